"""Training steps/s: the JAX micro-training step vs an equivalent PyTorch loop.

    python benchmarks/train_bench.py [--depth 4 --width 64 --length 256 --batch 16 --vocab 64 --steps 40]

Same architecture (pre-norm RMSNorm, GQA 4 heads / 2 kv heads with q/k/v bias,
RoPE rotate-half, SwiGLU MLP of width 2D, final RMSNorm, tied embeddings),
same batch, next-token cross-entropy, global-norm clipping at 1 and AdamW
(lr 3e-3, weight decay 0.01). Prints steps/s of each and the ratio JAX / PyTorch.
Not a test.

The JAX step is the one `lostmid train` runs: TrainConfig defaults
streams=2 (the batch cut into two independent sub-batches that XLA runs
concurrently) and unroll_layers=True; --streams 1 --scan times the plain step.

Measured (idle 2-core CPU, 40 timed steps, same run each line):
  at commit 7dc9f1b (scan, one stream)   JAX 6.1-6.4  PyTorch 11.2-12.1  ratio 0.51-0.58
  now (defaults)                         JAX 11.3-12.0 PyTorch 12.5-14.2 ratio 0.84-0.91
  now, --streams 1 --scan                JAX 9.1       PyTorch 13.8      ratio 0.66
Still below the 1.0 target. Without attention (both sides replaced by a
cheap elementwise op) JAX is faster, 22.7 vs 19.7 steps/s: the gap is the
attention, where PyTorch's fused scaled_dot_product_attention kernel needs
~7 ms per layer (fwd + bwd) and XLA's op-by-op blocked attention ~11 ms.
PyTorch's own speed varies by 10-15% between runs; under load it degrades
far more than JAX, so compare only on a quiet machine.

"""XLA's per-heap size limit for jitted steps on the CPU backend: temporaries reused instead of re-mapped.

    jax.jit(step, compiler_options=cpu_compiler_options())   # None off the CPU backend

XLA allocates a computation's temporaries afresh on every call. As one block (76 MB for
benchmarks/train_bench.py's training step) glibc maps it with mmap and unmaps it on return, so every call
faulted every page in again (~18,500 page faults, about a quarter of the step's CPU time); blocks of at most
:data:`CPU_HEAP_BYTES` come from malloc's heap and are reused. The option changes where the temporaries
live, never what is computed (tests/train/test_step.py: parameters bit-identical with and without it).
"""

from __future__ import annotations

CPU_HEAP_BYTES = 2 << 20
"""On the CPU backend, the most bytes of one of a step's temporary heaps (XLA's
xla_multiheap_size_constraint_per_heap)."""


def cpu_compiler_options() -> dict | None:
    """XLA compiler options for a jitted step: :data:`CPU_HEAP_BYTES` per heap on the CPU backend, else None.

    Only a top-level jax.jit may take them: a jit nested in another (data_parallel's) re-applies them."""
    import jax

    if jax.default_backend() != "cpu":
        return None
    return {"xla_multiheap_size_constraint_per_heap": CPU_HEAP_BYTES}

"""Compiled kernels, each in a subpackage imported only by a run that selects it.

    fused_cpu/   softmax attention in C++ through the XLA FFI (Execution(attn_impl="fused_cpu")):
                 compiled with the machine's C++ compiler on first use and cached.

Building or validating a DecoderConfig or TrainConfig never imports or
compiles anything here.
"""

"""A fused CPU softmax-attention kernel (C++, XLA FFI) for fast training steps.

Select it with ``model(x, execution=nn.Execution(attn_impl="fused_cpu"))``;
the library is compiled (or loaded from the cache) on first use, with an
INFO log line saying which. ``available()`` says whether it can be built here
and ``unavailable_reason()`` why not (both build it when they can); ``isa()``
names the variant built for this processor (avx512, avx2, ...: build.ISA_FLAGS).
"""

from .build import KernelUnavailable, available, isa, unavailable_reason
from .ops import MASK_CODES, FusedSpec, fused_attention

__all__ = ["KernelUnavailable", "available", "isa", "unavailable_reason", "MASK_CODES", "FusedSpec", "fused_attention"]

"""A fused CPU softmax-attention kernel (C++, XLA FFI) for fast training steps.

Opt in with ``DecoderConfig(attn_impl="fused_cpu")``; ``available()`` says
whether it can be built here and ``unavailable_reason()`` why not.
"""

from .build import KernelUnavailable, available, unavailable_reason
from .ops import MASK_CODES, FusedSpec, fused_attention

__all__ = ["KernelUnavailable", "available", "unavailable_reason", "MASK_CODES", "FusedSpec", "fused_attention"]

"""lostmid-jax: the 'lost in the middle' position bias, from first principles.

Subpackages:
    theory    exact Cesàro / residual-mixing mathematics (no model code).
    nn        Flax NNX decoder stacks and architecture presets.
    analysis  Jacobian influence profiles and comparison metrics.
    parallel  meshes, work spread over devices and hosts (docs/scaling.md).
"""

__version__ = "0.1.0"

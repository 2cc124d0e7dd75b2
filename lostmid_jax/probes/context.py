"""The context a checkpoint was trained for, and prompts that go beyond it (extrapolation).

    context, why = trained_context(model_cfg)       # e.g. (512, "max_position_embeddings 512")
    check_context(model_cfg, {1024: 1025}, allow=False, name="lengths")   # ValueError: one line naming the flag

The trained context C of a decoder config (:class:`lostmid_jax.nn.DecoderConfig`):

    C = max(P, s P0)  with RoPE scaling of factor s and original context P0 (P0 = P when the scaling names none)
    C = P             otherwise

with P = ``max_positions`` (transformers' max_position_embeddings). A prompt
whose forward uses more than C positions measures extrapolation failure mixed
into the position curve, so it is refused unless the user asks for it
(``--allow-extrapolation``); a learned position table cannot be read past P
at all, whatever the flag.
"""

from __future__ import annotations

ALLOW_FLAG = "--allow-extrapolation"
"""The flag (config field ``allow_extrapolation``) that measures lengths beyond the trained context."""


def trained_context(cfg) -> tuple[int, str]:
    """(C, how it was read) of a DecoderConfig (module docstring)."""
    p = int(cfg.max_positions)
    scaling = getattr(cfg, "rope_scaling", None)
    if cfg.position == "rope" and scaling is not None:
        original = scaling.original_max_positions or p
        scaled = int(scaling.factor * original)
        if scaled > p:
            return scaled, (f"rope_scaling {scaling.kind}: factor {scaling.factor:g} x original context "
                            f"{original}")
    return p, f"max_position_embeddings {p}"


def extrapolated(cfg, positions: int) -> bool:
    """True when a forward over ``positions`` positions goes beyond the trained context of ``cfg``."""
    return positions > trained_context(cfg)[0]


def extrapolation_note(cfg, what: str) -> str | None:
    """One line saying that ``what`` (e.g. "T = 600", or remedy names) was measured beyond the trained context
    of ``cfg``; None when ``what`` is empty."""
    if not what:
        return None
    context, why = trained_context(cfg)
    return (f"Extrapolated ({ALLOW_FLAG}): {what} read beyond the checkpoint's trained context of "
            f"{context} positions ({why}); their numbers mix in extrapolation failure.")


def check_context(cfg, needed: dict, *, allow: bool, name: str = "lengths") -> tuple[int, ...]:
    """The lengths of ``needed`` ({prompt length T: positions its forward uses}) beyond the trained context, in
    order; ValueError (one line naming ``name``, the length, the context and the flag) when any is and not
    ``allow``, and for a learned position table whatever ``allow`` says."""
    context, why = trained_context(cfg)
    beyond = tuple(t for t, n in needed.items() if n > context)
    if not beyond:
        return ()
    t = beyond[0]
    if cfg.position == "learned":
        raise ValueError(f"{name}: T = {t} needs {needed[t]} positions but the checkpoint's learned position table "
                         f"holds max_positions={cfg.max_positions}")
    if not allow:
        more = f" (and {', '.join(map(str, beyond[1:]))})" if len(beyond) > 1 else ""
        raise ValueError(f"{name}: T = {t}{more} needs {needed[t]} positions, beyond the checkpoint's trained context "
                         f"of {context} ({why}); the position curve would mix in extrapolation failure: use a "
                         f"shorter length, or pass {ALLOW_FLAG} to measure it anyway (marked extrapolated)")
    return beyond


__all__ = ["ALLOW_FLAG", "check_context", "extrapolated", "extrapolation_note", "trained_context"]

"""Text specs for the attention priors (command lines, CSV columns, config files).

=====================  =========================================
spec                   prior
=====================  =========================================
causal                 Causal()
bidirectional          Bidirectional()
window:W               SlidingWindow(W)
chunks:S               Chunks.equal(L, S)  (segments of S, last one shorter)
chunks:A+B+C           Chunks((A, B, C))
prefix:N               PrefixLM(N)
sinks:S                Sinks(S)            (= Causal())
sinks:S:W              Sinks(S, window=W)
alibi:N                ALiBi(N)
alibi:N:M1/M2/...      ALiBi(N, slopes=(M1, M2, ...))
=====================  =========================================

:func:`prior_spec` writes the spec that :func:`parse_prior` reads back.
"""

from __future__ import annotations

from ._validate import check_length
from .priors import ALiBi, Bidirectional, Causal, Chunks, PrefixLM, SlidingWindow, Sinks, check_prior

_FORMS = "causal, bidirectional, window:W, chunks:S, chunks:A+B+..., prefix:N, sinks:S, sinks:S:W, alibi:N, alibi:N:M1/M2/..."


def _ints(parts: list[str], text: str) -> list[int]:
    try:
        return [int(p) for p in parts]
    except ValueError:
        raise ValueError(f"prior spec {text!r}: expected integers after the name (forms: {_FORMS})") from None


def parse_prior(text: str, length: int):
    """The prior named by ``text`` for a sequence of ``length`` positions.

    Raises:
      ValueError: for an unknown name, a malformed spec, or a prior that does
        not fit L (naming the argument, as the prior classes do).

    >>> parse_prior("chunks:4", 10)
    Chunks(lengths=(4, 4, 2))
    >>> parse_prior("sinks:4:64", 128)
    Sinks(count=4, window=64)
    """
    length = check_length(length)
    if not isinstance(text, str):
        raise ValueError(f"prior spec must be a string ({_FORMS}), got {text!r}")
    name, *args = text.strip().lower().split(":")
    counts = {"causal": (0,), "bidirectional": (0,), "window": (1,), "chunks": (1,), "prefix": (1,),
              "sinks": (1, 2), "alibi": (1, 2)}
    if name not in counts or len(args) not in counts[name]:
        raise ValueError(f"prior spec {text!r} is not one of: {_FORMS}")
    if name == "causal":
        prior = Causal()
    elif name == "bidirectional":
        prior = Bidirectional()
    elif name == "window":
        prior = SlidingWindow(*_ints(args, text))
    elif name == "chunks":
        sizes = _ints(args[0].split("+"), text)
        prior = Chunks.equal(length, sizes[0]) if len(sizes) == 1 else Chunks(tuple(sizes))
    elif name == "prefix":
        prior = PrefixLM(*_ints(args, text))
    elif name == "sinks":
        prior = Sinks(*_ints(args, text))
    else:
        (heads,) = _ints(args[:1], text)
        slopes = None
        if len(args) == 2:
            try:
                slopes = tuple(float(m) for m in args[1].split("/"))
            except ValueError:
                raise ValueError(f"prior spec {text!r}: slopes must be numbers separated by '/'") from None
        prior = ALiBi(heads, slopes)
    return check_prior(prior, length)


def prior_spec(prior) -> str:
    """The text spec of ``prior`` (inverse of :func:`parse_prior`).

    >>> prior_spec(ALiBi(2, (0.5, 0.25)))
    'alibi:2:0.5/0.25'
    """
    if isinstance(prior, Causal):
        return "causal"
    if isinstance(prior, Bidirectional):
        return "bidirectional"
    if isinstance(prior, SlidingWindow):
        return f"window:{prior.width}"
    if isinstance(prior, Chunks):
        if Chunks.equal(sum(prior.lengths), prior.lengths[0]) == prior:
            return f"chunks:{prior.lengths[0]}"
        return "chunks:" + "+".join(str(n) for n in prior.lengths)
    if isinstance(prior, PrefixLM):
        return f"prefix:{prior.prefix}"
    if isinstance(prior, Sinks):
        return f"sinks:{prior.count}" + ("" if prior.window is None else f":{prior.window}")
    if isinstance(prior, ALiBi):
        return f"alibi:{prior.n_heads}" + ("" if prior.slopes is None else ":" + "/".join(repr(float(m)) for m in prior.slopes))
    raise ValueError(f"prior must be one of the attention priors, got {prior!r}")


def default_priors(length: int) -> tuple[str, ...]:
    """One of each prior, sized for L: windows and chunks L/8, prefix L/4, 4 sinks, 8 ALiBi heads.

    >>> default_priors(2048)
    ('causal', 'bidirectional', 'window:256', 'chunks:256', 'prefix:512', 'sinks:4:256', 'alibi:8')
    """
    length = check_length(length)
    eighth, quarter = max(1, length // 8), length // 4
    return ("causal", "bidirectional", f"window:{eighth}", f"chunks:{eighth}", f"prefix:{quarter}",
            f"sinks:{min(4, length)}:{eighth}", "alibi:8")

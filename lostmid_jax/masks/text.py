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
alibi:N                ALiBi(N)            (the ALiBi paper's slopes for any N)
alibi:N:geometric      ALiBi(N, rule="geometric")   (2^(-8h/N) for every N)
alibi:N:M1/M2/...      ALiBi(N, slopes=(M1, M2, ...))
content[:MASK]:K=V:...  Content(...) over the mask spec MASK (one of
                       the above, default causal) with keys heads,
                       diag, base (one number or one per head,
                       D1/D2/...), slopes (alibi, geometric, or
                       M1/M2/...), weights (P1/P2/...), temperature;
                       e.g. content:diag=2:heads=16:slopes=alibi,
                       content:sinks:4:256:diag=1 (no commas, so a
                       list of specs can be comma-separated)
=====================  =========================================

Content priors with per-key scores or per-layer values have no text form.

:func:`prior_spec` writes the spec that :func:`parse_prior` reads back.
"""

from __future__ import annotations

from ..validation import check_int_like
from .alibi import ALiBi
from .alibi_slopes import SLOPE_RULES
from .causal import Bidirectional, Causal
from .chunks import Chunks
from .content import Content
from .kinds import check_prior
from .prefix import PrefixLM
from .window import SlidingWindow, Sinks

_FORMS = "causal, bidirectional, window:W, chunks:S, chunks:A+B+..., prefix:N, sinks:S, sinks:S:W, alibi:N, alibi:N:geometric, alibi:N:M1/M2/..., content[:MASK]:K=V:..."


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
    Sinks(sinks=4, window=64)
    """
    length = check_int_like("length", length, 1)
    if not isinstance(text, str):
        raise ValueError(f"prior spec must be a string ({_FORMS}), got {text!r}")
    if text.strip().lower().split(":")[0] == "content":
        return check_prior(_parse_content(text, length), length)
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
        slopes, rule = None, "alibi"
        if len(args) == 2 and args[1] in SLOPE_RULES:
            rule = args[1]
        elif len(args) == 2:
            try:
                slopes = tuple(float(m) for m in args[1].split("/"))
            except ValueError:
                raise ValueError(f"prior spec {text!r}: slopes must be numbers separated by '/'") from None
        prior = ALiBi(heads, slopes, rule)
    return check_prior(prior, length)


_CONTENT_KEYS = ("heads", "diag", "base", "slopes", "weights", "temperature")


def _numbers(key: str, value: str, text: str) -> tuple[float, ...]:
    try:
        return tuple(float(v) for v in value.split("/"))
    except ValueError:
        raise ValueError(f"prior spec {text!r}: {key} must be numbers separated by '/', got {value!r}") from None


def _parse_content(text: str, length: int) -> Content:
    """content[:MASK]:K=V:... -> Content (keys of :data:`_CONTENT_KEYS`; MASK: the leading parts without '=')."""
    parts = text.strip().split(":")[1:]
    mask = [p for p in parts if "=" not in p]
    if parts and parts[:len(mask)] != mask:
        raise ValueError(f"prior spec {text!r}: the mask spec must come first, then K=V parts "
                         f"(keys {', '.join(_CONTENT_KEYS)})")
    fields = {"mask": ":".join(mask)} if mask else {}
    for item in parts[len(mask):]:
        key, _, value = item.partition("=")
        key, value = key.strip().lower(), value.strip()
        if key not in _CONTENT_KEYS or key in fields:
            raise ValueError(f"prior spec {text!r}: expected content[:MASK]:K=V:... with distinct keys from "
                             f"{', '.join(_CONTENT_KEYS)}; got {item!r}")
        fields[key] = value
    kw = {}
    if "mask" in fields:
        kw["mask"] = parse_prior(fields["mask"], length)
    if "heads" in fields:
        kw["heads"] = _ints([fields["heads"]], text)[0]
    for key in ("diag", "base"):
        if key in fields:
            kw[key] = _numbers(key, fields[key], text)
    if "slopes" in fields:
        kw["slopes"] = fields["slopes"].lower() if fields["slopes"].lower() in SLOPE_RULES else _numbers("slopes", fields["slopes"], text)
    if "weights" in fields:
        kw["head_weights"] = _numbers("weights", fields["weights"], text)
    if "temperature" in fields:
        kw["temperature"] = _numbers("temperature", fields["temperature"], text)[0]
    return Content(**kw)


def prior_spec(prior) -> str:
    """The text spec of ``prior`` (inverse of :func:`parse_prior`).

    >>> prior_spec(ALiBi(2, (0.5, 0.25)))
    'alibi:2:0.5/0.25'
    >>> prior_spec(ALiBi(12, rule="geometric"))
    'alibi:12:geometric'
    """
    spec = getattr(type(prior), "spec", None)  # each kind writes its own
    if not isinstance(spec, property):
        raise ValueError(f"prior must be one of the attention priors, got {prior!r}")
    return prior.spec


def default_priors(length: int) -> tuple[str, ...]:
    """One of each prior, sized for L: windows and chunks L/8, prefix L/4, 4 sinks, 8 ALiBi heads.

    >>> default_priors(2048)
    ('causal', 'bidirectional', 'window:256', 'chunks:256', 'prefix:512', 'sinks:4:256', 'alibi:8')
    """
    length = check_int_like("length", length, 1)
    eighth, quarter = max(1, length // 8), length // 4
    return ("causal", "bidirectional", f"window:{eighth}", f"chunks:{eighth}", f"prefix:{quarter}",
            f"sinks:{min(4, length)}:{eighth}", "alibi:8")

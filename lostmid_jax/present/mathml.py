"""The ASCII formulas of verdicts and tables, rendered as inline MathML (no script, nothing fetched).

    inline("mean a_l, log10 p/t, rho_H(1/2), 10^37.0, n^-1/2 >= 0.985")

Escapes the text for HTML and turns, inside it:

    X_y, X_{l,i}   (X a letter or a Greek name)    -> <msub>
    10^k, X^k, X^(expr), X^{expr}                  -> <msup>
    (group)^k, (group)^(expr), (group)^{expr}      -> <msup> whose base is the whole (group), parentheses inside
    log10                                          -> log with subscript 10
    sqrt(  ->  the radical sign;  >=, <=, ->  ->  the symbols

Identifiers such as middle_weighted_loss are left alone (only a single letter
or a Greek name takes a subscript). MathML Core renders in every current
browser without fonts or scripts from elsewhere.
"""

from __future__ import annotations

import html
import re

_GREEK = {"alpha": "\u03b1", "beta": "\u03b2", "gamma": "\u03b3", "delta": "\u03b4", "rho": "\u03c1",
          "sigma": "\u03c3", "mu": "\u03bc", "tau": "\u03c4", "theta": "\u03b8", "lambda": "\u03bb"}
_BASE = r"(?<![\w.])(?:" + "|".join(_GREEK) + r"|[A-Za-z])"
_SUB = re.compile(_BASE.replace("(?:", "(?P<base>", 1) + r"_(?P<sub>\{[^{}]{1,12}\}|[A-Za-z0-9]{1,6})(?![\w{])")
_SUP = re.compile(r"(?P<base>(?<![\w.])\d+|(?<![\w.])[A-Za-z]|\))\^(?P<exp>\([^()]{1,20}\)|\{[^{}]{1,20}\}"
                  r"|-?\d+(?:\.\d+)?(?:/\d+)?|-?[A-Za-z](?![\w]))")
_LOG10 = re.compile(r"\blog10\b")
_SYMBOLS = ((">=", "\u2265"), ("<=", "\u2264"), ("->", "\u2192"), ("sqrt(", "\u221a("))


def _mi(text: str) -> str:
    """Identifiers as <mi>, numbers as <mn>, the rest as <mo>, of an escaped piece of formula; a space between
    two words or numbers as a thin <mspace>."""
    out, previous = [], ""
    for token in re.findall(r"\d+(?:\.\d+)?|[A-Za-z]+|\s+|\S", text):
        if token.isspace():  # kept only between two words or numbers: "ln 2" (operators space themselves)
            previous = " " if previous.isalnum() else previous
            continue
        if previous == " " and token[0].isalnum():
            out.append("<mspace width='0.2em'></mspace>")
        previous = token[-1]
        if token[0].isdigit():
            out.append(f"<mn>{token}</mn>")
        elif token[0].isalpha():
            out.append(f"<mi>{_GREEK.get(token, token)}</mi>")
        else:
            out.append(f"<mo>{html.escape(token)}</mo>")
    return "<mrow>" + "".join(out) + "</mrow>"


def _math(inner: str) -> str:
    return f"<math>{inner}</math>"


def inline(text: str) -> str:
    """``text`` as HTML with its ASCII formulas as inline MathML (module docstring)."""
    pieces, last = [], 0
    pattern = re.compile("|".join(f"(?:{p.pattern})" for p in (_LOG10,)) + "|" + _SUB.pattern + "|" + _SUP.pattern
                         .replace("?P<base>", "?P<sbase>"))
    for match in pattern.finditer(text):
        token, start = match.group(0), match.start()
        opened = _opening(text, last, start) if match.group("sbase") == ")" else None
        pieces.append(_plain(text[last:start if opened is None else opened]))
        if token == "log10":
            pieces.append(_math("<msub><mi>log</mi><mn>10</mn></msub>"))
        elif match.group("sub") is not None:
            base, sub = match.group("base"), match.group("sub").strip("{}")
            pieces.append(_math(f"<msub><mi>{_GREEK.get(base, base)}</mi>{_mi(sub)}</msub>"))
        else:
            base, exp = match.group("sbase"), match.group("exp")
            exp = exp[1:-1] if exp.startswith(("(", "{")) else exp
            if base != ")":
                base_ml = _mi(base)
            elif opened is not None:  # the whole parenthesised group is the base: (ln 2)^(H-1)
                base_ml = f"<mrow><mo>(</mo>{_mi(text[opened + 1:start])}<mo>)</mo></mrow>"
            else:  # no "(" before it in this stretch of plain text
                base_ml = "<mo>)</mo>"
            pieces.append(_math(f"<msup>{base_ml}{_mi(exp)}</msup>"))
        last = match.end()
    pieces.append(_plain(text[last:]))
    return "".join(pieces)


def _opening(text: str, lo: int, close: int) -> int | None:
    """The index of the "(" in text[lo:close] matching the ")" at ``close``, or None."""
    depth = 0
    for at in range(close - 1, lo - 1, -1):
        if text[at] == ")":
            depth += 1
        elif text[at] == "(":
            if depth == 0:
                return at
            depth -= 1
    return None


def _plain(text: str) -> str:
    for ascii_, symbol in _SYMBOLS:
        text = text.replace(ascii_, symbol)
    return html.escape(text, quote=True)


__all__ = ["inline"]

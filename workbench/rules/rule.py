"""What rule modules are written with: the engine's ``Rule`` and its parts (``rewriting.rule``;
``Site`` and ``Refused`` from ``rewriting.site``), named here for them, and the candidate values
of a size parameter (``powers_of_two_dividing``, ``fractions_of``).
"""

from __future__ import annotations

from ..rewriting.rule import (
    BLOCKING,
    IDENTITY,
    NOT_WALKED,
    OTHER_SEED,
    UNROLLING,
    Rule,
    RuleParam,
    basic_rule,
    tagged,
)
from ..rewriting.site import Refused, Site
from ..sizes import Size

__all__ = ["Rule", "RuleParam", "Refused", "Site", "basic_rule", "tagged",
           "powers_of_two_dividing", "fractions_of", "IDENTITY", "BLOCKING", "UNROLLING",
           "OTHER_SEED", "NOT_WALKED"]


def powers_of_two_dividing(length: Size | None, low: int = 2, high: int = 2048,
                           proper: bool = True) -> list[Size]:
    """Split factors worth trying: powers of two in [low, high] that divide a concrete
    length (and are smaller than it when ``proper``); for a symbolic length the usual
    set 2..1024 (the type checker then records the divisibility it assumes)."""
    if length is None:
        return []
    if not length.is_integer_constant:
        return [Size.const(2 ** i) for i in range(1, 11) if low <= 2 ** i <= high]
    n = int(length.value)
    out = []
    d = 1
    while d <= min(high, n):
        if d >= low and n % d == 0 and (d < n or not proper):
            out.append(Size.const(d))
        d *= 2
    return out


def fractions_of(length: Size | None, low: int = 2, high: int = 1024) -> list[Size]:
    """For a symbolic length, the fractions ``N/d`` for the powers of two d in [low, high]
    (a number of parts that leaves chunks of d, as ICFP Fig. 10's ``reducePart … (N/128)``);
    nothing for a concrete length, whose parts ``powers_of_two_dividing`` lists."""
    if length is None or length.is_integer_constant:
        return []
    return [length / Size.const(2 ** i) for i in range(1, 11) if low <= 2 ** i <= high]

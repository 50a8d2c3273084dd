"""What a rewrite rule is: data plus a guarded pattern.

A ``Rule`` has a name, its equation as the papers write it, a category, the figure it
comes from, the parameters it takes (each with the candidate values that make sense at a
given place) and a function that either returns the rewritten node or a ``Refused`` value
saying which side condition failed (as ELEVATE's Success/Failure; failure is not an
exception). *Pair* rules rewrite a function together with its right neighbour in a
composition (``join ∘ split n → id``), and return the functions that replace the pair.
``Site`` and ``Refused`` are the rewriting engine's (``rewriting.site``), named here too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ..rewriting.site import Refused, Site
from ..sizes import Size

__all__ = ["Rule", "RuleParam", "Refused", "Site", "basic_rule", "tagged",
           "powers_of_two_dividing", "fractions_of", "IDENTITY", "BLOCKING", "UNROLLING",
           "OTHER_SEED", "NOT_WALKED"]


@dataclass(frozen=True)
class RuleParam:
    name: str
    doc: str
    candidates: Callable[[Site], list] = field(compare=False)
    kind: str = "size"  # "size" (a Size), "int", or "choice" (a name, e.g. "strided")


# What a rule is for beyond its category (``Rule.tags``); random walks (``search.space``)
# take every rule that has none of the tags in ``NOT_WALKED``.
IDENTITY = "identity"  # only adds or removes an identity, or undoes another rule: it makes
# walks longer without reaching new kernels
BLOCKING = "blocking"  # a step of blocking or tiling (CASES 2016): the cases exploration
# applies it where it serves a blocking or a tiling; at random it mostly reshapes the program
UNROLLING = "unrolling"  # unrolls a register block's loops: the cases exploration's choice
OTHER_SEED = "other seed"  # of a seed beside ICFP's space (Futhark's kernel extraction, scans,
# P2CL, SkelCL, PACT's alternatives): walks keep to ICFP's space (Figs. 6 and 7, PACT's maps,
# macros), in which the recorded searches replay
NOT_WALKED = frozenset({IDENTITY, BLOCKING, UNROLLING, OTHER_SEED})


@dataclass(frozen=True)
class Rule:
    name: str
    equation: str
    category: str  # "algorithmic", "opencl", "simplification", "memory", "macro"
    figure: str
    rewrite: Callable = field(compare=False, repr=False)
    params: tuple[RuleParam, ...] = ()
    pair: bool = False
    doc: str = ""
    tags: frozenset[str] = field(default=frozenset(), compare=False)  # IDENTITY, …
    # a macro's strategy over basic rules: ``expand(params)`` is run on a copy of the site
    # (``rewriting.macro``), so that its expansion can be shown and replayed
    expand: Callable | None = field(default=None, compare=False, repr=False)

    def _repr_markdown_(self) -> str:
        params = ", ".join(p.name for p in self.params)
        return (f"**{self.name}** ({self.figure}): `{self.equation}`"
                + (f" — parameters: {params}" if params else ""))


def basic_rule(name: str, equation: str, category: str, figure: str,
               **fields) -> Callable[[Callable], Rule]:
    """The rule whose rewrite is the function it decorates, its name and equation written
    above its code (as Lift's ``Rule("Map(f) => MapLcl(f)", { case … })``)::

        @basic_rule("transpose-map-map", "map (map f) → transpose ∘ map (map f) ∘ transpose",
                    "algorithmic", SLIDES)
        @matches(MAP_OF_MAP)
        def TRANSPOSE_MAP_MAP(m, site, p): …

    ``fields`` are the Rule's others (params, pair, doc, tags)."""
    return lambda rewrite: Rule(name, equation, category, figure, rewrite, **fields)


def tagged(rule: Rule, *tags: str) -> Rule:
    """The rule with more tags."""
    return replace(rule, tags=rule.tags | frozenset(tags)) if tags else rule


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

"""What a rewrite rule is: data plus a guarded pattern.

A ``Rule`` has a name, its equation as the papers write it, a category, the figure it
comes from, the parameters it takes (each with the candidate values that make sense at a
given place), its left-hand side where it states one (a ``match`` pattern) and a function
that either returns the rewritten node or a ``Refused`` value saying which side condition
failed (as ELEVATE's Success/Failure; failure is not an exception). *Pair* rules rewrite a
function together with its right neighbour in a composition (``join ∘ split n → id``), and
return the functions that replace the pair. A macro rule also has a strategy over basic
rules (``expand``, run by ``macro``). The rules themselves are written in
``workbench.rules``; the engine knows them only by this shape and by name (``registry``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from .match import Pattern
from .site import Site

__all__ = ["Rule", "RuleParam", "basic_rule", "tagged", "IDENTITY", "BLOCKING", "UNROLLING",
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
    # the shape of the node (with its right neighbour, for a pair rule) the rule rewrites,
    # where it states one: a basic rule's ``@matches`` pattern, a macro's ``lhs``, which is
    # checked before its strategy is run
    lhs: Pattern | None = field(default=None, compare=False, repr=False)
    # a macro's strategy over basic rules: ``expand(params)`` is run on a copy of the site
    # (``rewriting.macro``), so that its expansion can be shown and replayed
    expand: Callable | None = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        if self.lhs is None:  # a rewrite function made by ``match.matches`` knows its pattern
            object.__setattr__(self, "lhs", getattr(self.rewrite, "lhs", None))

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

    ``fields`` are the Rule's others (params, pair, doc, tags); the left-hand side is the
    pattern of ``@matches``."""
    return lambda rewrite: Rule(name, equation, category, figure, rewrite, **fields)


def tagged(rule: Rule, *tags: str) -> Rule:
    """The rule with more tags."""
    return replace(rule, tags=rule.tags | frozenset(tags)) if tags else rule

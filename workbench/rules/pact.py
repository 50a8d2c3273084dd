"""PACT's remaining rules (the thesis chapter "Code generation using patterns", Fig.
"algorithmic rules" and "lowering rules"): the inner split and join cancel each other
(simplification rules), a reduction is an iteration of a partial reduction (as one step),
and a reduction is lowered to ``reduceSeq`` only where PACT's pre-condition allows it,
inside a ``mapLocal`` or ``mapLane`` ([mlc ∨ mln]). Unrolling (Lift's MapSeqUnroll and
ReduceSeqUnroll, the slides' "complete loop unrolling") is here too."""

from __future__ import annotations

from ..expr import Expr, Prim, compose
from ..rewriting.match import array_length, matches, pair, prim
from ..sizes import Size
from ..types import ArrayType
from .algorithmic import REDUCE, integer_root
from .renaming import renaming
from .rule import Refused, Rule, RuleParam, Site, basic_rule


def _inner_cancel(outer: str, inner: str):
    @matches(pair(prim(outer), prim(inner), why=f"it rewrites {outer} ∘ {inner}"))
    def rewrite(m, site: Site, p):
        if outer == "innerSplit":  # the innermost arrays that innerJoin joined have length n
            t = site.next_typing.args[0] if site.next_typing else None
            while isinstance(t, ArrayType) and isinstance(t.elem, ArrayType):
                t = t.elem
            if t is not None and t.size != site.node.args[0]:
                return Refused(f"the joined innermost arrays have length {t.size}, not "
                               f"{site.node.args[0]}")
        return []
    return rewrite


INNER = [
    Rule("innerSplit-innerJoin", "innerSplit n ∘ innerJoin → id", "simplification",
         "PACT Fig. simplification", _inner_cancel("innerSplit", "innerJoin"), pair=True),
    Rule("innerJoin-innerSplit", "innerJoin ∘ innerSplit n → id", "simplification",
         "PACT Fig. simplification (inverse)", _inner_cancel("innerJoin", "innerSplit"),
         pair=True),
]


def _iterations(site: Site) -> list:
    length = array_length(site)
    if not REDUCE.fits(site.node) or length is None or not length.is_integer_constant:
        return []
    n = int(length.value)
    return [Size.const(k) for k in range(1, 21) if integer_root(n, k)]


@basic_rule(
    "reduce→iterate", "reduce f z → iterate k (join ∘ map (reducePart f z 1) ∘ split I)   "
    "(input I^k)", "algorithmic", "PACT Fig. reduction (iterate of part-red)",
    params=(RuleParam("k", "number of iterations", _iterations),),
    doc="PACT's reduce → iterate(part-red) as one step: each iteration reduces chunks of I "
        "elements to one, k times, leaving one element.")
@matches(REDUCE)
def REDUCE_ITERATE(m, site: Site, p) -> Expr | Refused:
    f, z = m.f, m.z
    length = array_length(site)
    k = p["k"]
    if length is None or not length.is_integer_constant:
        return Refused("the input length must be a known number")
    if not (k.is_integer_constant and 1 <= int(k) <= 64):
        return Refused(f"the number of iterations is a whole number from 1 to 64, not {k}")
    factor = integer_root(int(length.value), int(k.value))
    if factor is None:
        return Refused(f"{length} is not a {k}-th power of a whole number")
    step = compose(Prim("join"), Prim("map", (Prim("reducePart", (f, z, Size.const(1))),)),
                   Prim("split", (Size.const(factor),)))
    return Prim("iterate", (k, step))


def _in_a_local_or_lane_map(site: Site) -> Refused | None:
    if not {level for level, _ in site.context} & {"local", "lane"}:
        return Refused("PACT lowers reduce to reduce-seq only inside a map-local or a "
                       "map-lane (pre-condition mlc ∨ mln)")
    return None


REDUCE_SEQ_PACT = renaming("reduce", "reduceSeq", "f z", "opencl",
                           "PACT Fig. lowering (reduction)", name="reduce→reduceSeq (PACT)",
                           note="   [mlc ∨ mln]", condition=_in_a_local_or_lane_map)


RULES = [*INNER, REDUCE_ITERATE, REDUCE_SEQ_PACT]

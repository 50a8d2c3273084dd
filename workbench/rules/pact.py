"""PACT's remaining rules (the thesis chapter "Code generation using patterns", Fig.
"algorithmic rules" and "lowering rules"): the inner split and join cancel each other
(simplification rules), a reduction is an iteration of a partial reduction (as one step),
and a reduction is lowered to ``reduceSeq`` only where PACT's pre-condition allows it,
inside a ``mapLocal`` or ``mapLane`` ([mlc ∨ mln]). Unrolling (Lift's MapSeqUnroll and
ReduceSeqUnroll, the slides' "complete loop unrolling") is here too."""

from __future__ import annotations

from ..expr import Expr, Prim, compose
from ..sizes import Size
from ..types import ArrayType
from .algorithmic import array_length, integer_root, is_prim
from .rule import Refused, Rule, RuleParam, Site


def _inner_cancel(outer: str, inner: str):
    def rewrite(site: Site, p):
        if not (is_prim(site.node, outer) and is_prim(site.next, inner)):
            return Refused(f"it rewrites {outer} ∘ {inner}")
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


def _reduce_iterate(site: Site, p) -> Expr | Refused:
    node = site.node
    if not is_prim(node, "reduce"):
        return Refused("it rewrites reduce f z")
    f, z = node.args
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


def _iterations(site: Site) -> list:
    length = array_length(site)
    if not is_prim(site.node, "reduce") or length is None or not length.is_integer_constant:
        return []
    n = int(length.value)
    return [Size.const(k) for k in range(1, 21) if integer_root(n, k)]


REDUCE_ITERATE = Rule(
    "reduce→iterate", "reduce f z → iterate k (join ∘ map (reducePart f z 1) ∘ split I)   "
    "(input I^k)", "algorithmic", "PACT Fig. reduction (iterate of part-red)", _reduce_iterate,
    params=(RuleParam("k", "number of iterations", _iterations),),
    doc="PACT's reduce → iterate(part-red) as one step: each iteration reduces chunks of I "
        "elements to one, k times, leaving one element.")


def _reduce_seq_pact(site: Site, p) -> Expr | Refused:
    if not is_prim(site.node, "reduce"):
        return Refused("it rewrites reduce f z")
    levels = {level for level, _ in site.context}
    if not levels & {"local", "lane"}:
        return Refused("PACT lowers reduce to reduce-seq only inside a map-local or a "
                       "map-lane (pre-condition mlc ∨ mln)")
    return Prim("reduceSeq", site.node.args)


REDUCE_SEQ_PACT = Rule(
    "reduce→reduceSeq (PACT)", "reduce f z → reduceSeq f z   [mlc ∨ mln]", "opencl",
    "PACT Fig. lowering (reduction)", _reduce_seq_pact)


RULES = [*INNER, REDUCE_ITERATE, REDUCE_SEQ_PACT]

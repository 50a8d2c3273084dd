"""Vectorised reductions: PACT's vectorisation rule applied to ``reduce`` (PACT Fig.
"vectorization"; ICFP Fig. 7e for maps). A reduction over SIMD vectors keeps one
accumulator per lane (``mapVec ⊕`` combines two vectors lane by lane) and ends with a
reduction across the lanes; with a vectorised map before it, the whole fused reduction
works on vectors (``reduceSeq (mapVec (λ(acc, x). acc + abs x)) 0``: a vector accumulator).

The lanes reduce interleaved elements, so the rule needs an associative and commutative
operator (as ``reduce`` already assumes) whose initial value every lane may start from:
the neutral element of ``+`` (0) or ``*`` (1), anything for ``min``/``max``.
"""

from __future__ import annotations

from ..expr import BinOp, Expr, Lambda, Lit, Prim, Section, UnOp, Var, compose
from ..rewriting.macro import macro_rule
from ..rewriting.match import array_length, divides, prim
from ..rewriting.strategies import at_site, element, parent, rule, seq
from ..types import ArrayType, ScalarType, TupleType
from .macros import reduce_of_map
from .rule import Refused, RuleParam, Site, basic_rule, powers_of_two_dividing

# the operators a reduction over lanes may use, with the initial values every lane may
# start from (None: any value, the operator being idempotent)
NEUTRAL = {"+": 0, "*": 1, "min": None, "max": None}


def operator_of(f: Expr) -> str | None:
    """The associative, commutative operator of ``reduce f z``: ``(+)``, ``(*)``, ``min``,
    ``max``, or ``λ(a, b). a op b`` (None for any other function)."""
    if isinstance(f, Section) and f.left is None and f.right is None:
        return f.op if f.op in NEUTRAL else None
    if isinstance(f, Prim) and f.name in ("min", "max") and not f.args:
        return f.name
    if isinstance(f, Lambda):
        params = f.params
        if len(params) == 1 and isinstance(params[0], tuple):
            params = params[0]
        if len(params) != 2 or not all(isinstance(p, str) for p in params):
            return None
        a, b = (Var(p) for p in params)
        body = f.body
        if isinstance(body, BinOp) and body.op in NEUTRAL and \
                {body.left, body.right} == {a, b} and body.left != body.right:
            return body.op
    return None


def literal_value(z: Expr) -> float | None:
    if isinstance(z, Lit) and not isinstance(z.value, bool):
        return z.value
    if isinstance(z, UnOp) and z.op == "-" and isinstance(z.operand, Lit):
        return -z.operand.value
    return None


def lanes_may_start_at(op: str, z: Expr) -> Refused | None:
    """Why every lane (every partial result) may not start at ``z`` (None if it may)."""
    value = literal_value(z)
    if value is None:
        return Refused(f"the initial value {z} must be a number (every lane starts at it)")
    neutral = NEUTRAL[op]
    if neutral is not None and value != neutral:
        return Refused(f"every lane starts at {z}, so it would count once per lane: it must "
                       f"be {neutral}, the neutral element of ({op})")
    return None


REDUCE = prim("reduce", "f", "z", why="it rewrites reduce f z")


def reduction_operator(site: Site) -> tuple[str, Expr, Expr] | Refused:
    """``(op, f, z)`` of the ``reduce f z`` at the site, when its lanes or partial results
    may each start at z; else why not."""
    m = REDUCE.match(site.node)
    if isinstance(m, Refused):
        return m
    f, z = m.f, m.z
    op = operator_of(f)
    if op is None:
        return Refused(f"the operator {f} must be (+), (*), min or max (associative and "
                       f"commutative: the lanes reduce interleaved elements)")
    return lanes_may_start_at(op, z) or (op, f, z)


def vector_widths(site: Site) -> list:
    return powers_of_two_dividing(array_length(site), 2, 16)


@basic_rule(
    "reduce-vectorize", "reduce f z → reduce f z ∘ joinVec ∘ reduce (mapVec f) z ∘ splitVec n",
    "opencl", "PACT vectorization (for reduce); ICFP Fig. 7e",
    params=(RuleParam("n", "vector width (lanes of the accumulator)", vector_widths),),
    doc="A reduction over vectors of n lanes, each lane reducing every n-th element, then "
        "across the lanes. f must be (+), (*), min or max and z a value every lane may "
        "start from.")
def REDUCE_VECTORISE(site: Site, p) -> Expr | Refused:
    found = reduction_operator(site)
    if isinstance(found, Refused):
        return found
    _, f, z = found
    t = site.typing.args[0] if site.typing and site.typing.args else None
    if isinstance(t, ArrayType) and not (isinstance(t.elem, ScalarType)
                                         and t.elem.name != "bool"):
        return Refused(f"vectors hold numbers; the elements here are {t.elem}")
    n = p["n"]
    bad = divides(n, array_length(site), f"splitVec {n}")
    if bad:
        return bad
    return compose(site.node, Prim("joinVec"), Prim("reduce", (Prim("mapVec", (f,)), z)),
                   Prim("splitVec", (n,)))


# --- the macro: a vectorised map-reduce ---------------------------------------------------

def expand_map_reduce_vectorise(p):
    def build(site: Site):
        shape = reduce_of_map(site)
        if shape is not None:
            return shape
        t = site.next_typing.args[0] if site.next_typing and site.next_typing.args else None
        if isinstance(t, ArrayType) and not _scalars(t.elem):
            return Refused(f"vectors hold scalars (or tuples of them: zipped arrays); the "
                           f"elements here are {t.elem}")
        n = p["n"]
        bad = divides(n, array_length(site, of_next=True), f"splitVec {n}")
        if bad:
            return bad
        return parent(seq(
            element("reduce", rule("reduce-vectorize", n=n)),  # reduce f z ∘ joinVec ∘ …
            element("map", rule("vectorize", n=n)),  # map g → joinVec ∘ map (mapVec g) ∘ …
            element("splitVec", rule("splitVec-joinVec"))))  # 6e
    return at_site(build)


def _scalars(t) -> bool:
    if isinstance(t, TupleType):
        return all(isinstance(item, ScalarType) for item in t.items)
    return isinstance(t, ScalarType)


MAP_REDUCE_VECTORISE = macro_rule(
    "map-reduce-vectorize",
    "reduce f z ∘ map g → reduce f z ∘ joinVec ∘ reduce (mapVec f) z ∘ map (mapVec g) "
    "∘ splitVec n", "PACT vectorization, ICFP Fig. 7e, 6e", expand_map_reduce_vectorise,
    params=(RuleParam("n", "vector width (lanes of the accumulator)",
                      lambda s: powers_of_two_dividing(array_length(s, of_next=True), 2, 16)),),
    pair=True, lhs=reduce_of_map,
    doc="reduce-vectorize, vectorize, splitVec-joinVec: the map and the reduction both on "
        "vectors of n lanes, so that a fused sequential reduction has a vector accumulator "
        "(zipped arrays become tuples of vectors: dot's x·y on float4 pairs).")

RULES = [REDUCE_VECTORISE, MAP_REDUCE_VECTORISE]

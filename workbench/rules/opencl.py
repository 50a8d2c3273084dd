"""OpenCL rules (ICFP 2015 Fig. 7; PACT Fig. "lowering rules"): map lowering to each level
of the thread hierarchy, reduce to reduceSeq, reorder to reorderStride or id, vectorisation,
and the memory rules (toLocal/toGlobal around mapLocal, toPrivate around mapSeq)."""

from __future__ import annotations

from ..expr import BinOp, Expr, Prim, Section, UnOp, UserFun, compose, subterm, walk
from ..nesting import problem_with
from ..notation.c_lanes import lanewise_problem
from ..primitives import PRIMITIVES
from ..primitives.families import STORES
from ..primitives.opencl import is_component_vector
from ..rewriting.match import array_length, divides, map_of, matches, prim
from ..sizes import Size
from ..types import ArrayType, ScalarType, TupleType
from .renaming import renaming
from .rule import (
    OTHER_SEED,
    UNROLLING,
    Refused,
    Rule,
    RuleParam,
    Site,
    basic_rule,
    fractions_of,
    powers_of_two_dividing,
    tagged,
)

# (target primitive, level as in nesting, has a dimension)
_LOWERINGS = [("mapGlobal", "global", True), ("mapWorkgroup", "workgroup", True),
              ("mapLocal", "local", True), ("mapWarp", "warp", False),
              ("mapLane", "lane", False), ("mapSeq", "seq", False),
              ("mapSeqUnroll", "seq", False)]


def _free_dim(site: Site, level: str) -> list[Size]:
    used = {d for lvl, d in site.context if lvl == level}
    return [Size.const(min(d for d in range(3) if d not in used))] if len(used) < 3 else []


HIGH_LEVEL_MAP = map_of(why="it rewrites a high-level map f")


def _lower_map(target: str, level: str, has_dim: bool):
    @matches(HIGH_LEVEL_MAP)
    def rewrite(m, site: Site, p) -> Expr | Refused:
        if has_dim and not (p["dim"].is_integer_constant and int(p["dim"]) in (0, 1, 2)):
            return Refused(f"the dimension is 0, 1 or 2, not {p['dim']}")
        dim = int(p["dim"].value) if has_dim else 0
        reason = problem_with(level, dim, site.context)
        if reason:
            return Refused(reason)
        return Prim(target, (dim, m.f) if has_dim else (m.f,))

    params = (RuleParam("dim", "OpenCL dimension (0, 1 or 2)",
                        lambda s, lvl=level: _free_dim(s, lvl)),) if has_dim else ()
    figure = "ICFP Fig. 7a" if level not in ("warp", "lane") else "PACT Fig. map rules"
    if target == "mapSeqUnroll":
        figure = "Lift (MapSeqUnroll)"
    return Rule(f"map→{target}", f"map f → {target} f", "opencl", figure, rewrite,
                params=params, tags=frozenset({UNROLLING}) if target == "mapSeqUnroll"
                else frozenset())


MAP_LOWERINGS = [_lower_map(*spec) for spec in _LOWERINGS]


REDUCE_SEQ = renaming("reduce", "reduceSeq", "f z", "opencl", "ICFP Fig. 7b")

REORDER = prim("reorder", why="it rewrites reorder")


@basic_rule(
    "reorder→reorderStride", "reorder → reorderStride s", "opencl", "ICFP Fig. 7c",
    params=(RuleParam("s", "stride", lambda s: powers_of_two_dividing(
        array_length(s), proper=False) + fractions_of(array_length(s))),))
@matches(REORDER)
def REORDER_STRIDE(m, site: Site, p) -> Expr | Refused:
    s = p["s"]
    bad = divides(s, array_length(site), f"reorderStride {s}")
    return bad or Prim("reorderStride", (s,))


REORDER_ID = Rule("reorder→id", "reorder → id", "opencl", "ICFP Fig. 7c",
                  matches(REORDER)(lambda m, site, p: Prim("id")))


def _wrap(space: str, inner: str):
    @matches(prim(inner, why=f"it wraps a {inner}"))
    def rewrite(m, site: Site, p) -> Expr | Refused:
        if site.path:
            parent = subterm(site.root, site.path[:-1])
            if isinstance(parent, Prim) and parent.name in STORES:
                return Refused(f"its result is already placed by {parent.name}")
        return Prim(space, (site.node,))

    return rewrite


MEMORY = [
    Rule("toLocal", "mapLocal f → toLocal (mapLocal f)", "memory", "ICFP Fig. 7d",
         _wrap("toLocal", "mapLocal")),
    Rule("toGlobal", "mapLocal f → toGlobal (mapLocal f)", "memory", "ICFP Fig. 7d",
         _wrap("toGlobal", "mapLocal")),
    Rule("toPrivate", "mapSeq f → toPrivate (mapSeq f)", "memory", "Lift (private memory)",
         _wrap("toPrivate", "mapSeq")),
]

_VECTORISABLE = {"abs", "min", "max", "sqrt", "exp", "log", "sin", "cos", "floor", "ceil",
                 "pow", "fma", "select", "float", "int", "double", "get", "id"}


def vectorisable(f: Expr) -> str | None:
    """Why a scalar function cannot be applied lane-wise to a SIMD vector (None if it can).
    The user functions it calls are generated lane-wise too, so their bodies count; one
    given as OpenCL C is rewritten for vectors (``c_lanes``) where its body allows."""
    for _, node in walk(f):
        if isinstance(node, Prim) and node.name not in _VECTORISABLE:
            return f"{node.name} is not a scalar operation (mapVec needs a scalar function)"
        if isinstance(node, Prim) and node.name == "mapVec":
            return "the function is already vectorised"
        if isinstance(node, UserFun) and node.body is None:
            reason = lanewise_problem(node.name, node.c_body, node.params, node.type)
            if reason:
                return (f"the user function {node.name}, given as OpenCL C, cannot be "
                        f"applied lane-wise to vectors: {reason}")
            continue
        if isinstance(node, UserFun):
            reason = vectorisable(node.body)
            if reason:
                return f"the user function {node.name} cannot be applied to vectors: {reason}"
    return None


def _scalars(t) -> bool:
    """Scalars, or tuples of scalars (zipped arrays become a tuple of vectors)."""
    if isinstance(t, TupleType):
        return all(isinstance(item, ScalarType) for item in t.items)
    return isinstance(t, ScalarType)


@basic_rule(
    "vectorize", "map f → joinVec ∘ map (mapVec f) ∘ splitVec n", "opencl", "ICFP Fig. 7e",
    params=(RuleParam("n", "vector width", lambda s: powers_of_two_dividing(
        array_length(s), 2, 16)),))
@matches(HIGH_LEVEL_MAP)
def VECTORISE(m, site: Site, p) -> Expr | Refused:
    f = m.f
    if any(isinstance(n, Prim) and n.name == "mapVec" for _, n in walk(f)):
        return Refused("the function is already vectorised (PACT: vectorise once per path)")
    t = site.typing.args[0] if site.typing and site.typing.args else None
    if t is not None and not (isinstance(t, ArrayType) and _scalars(t.elem)):
        return Refused(f"vectors hold scalars; the elements here are {t.elem}" if
                       isinstance(t, ArrayType) else "the input is not an array")
    if site.typing is not None and not _scalars(site.typing.result.elem):
        return Refused("the function must return a scalar or a tuple of scalars (a tuple of "
                       "vectors lane-wise)")
    reason = vectorisable(f)
    if reason:
        return Refused(reason)
    n = p["n"]
    bad = divides(n, array_length(site), f"splitVec {n}")
    if bad:
        return bad
    return compose(Prim("joinVec"), Prim("map", (Prim("mapVec", (f,)),)), Prim("splitVec", (n,)))


def float4_lanes_problem(f: Expr) -> str | None:
    """Why ``f`` cannot be applied to float4s in lanes (None if it can): its float4 values
    are computed by user functions written in C (their bodies rewritten component by
    component: ``c_components``) or by ``mapVec g`` (g on each component's lanes); the
    arithmetic of the scalar language on a float4 has no such form here."""
    for _, node in walk(f):
        if isinstance(node, Prim) and node.name == "mapVec":
            reason = vectorisable(node.args[-1])
            if reason:
                return reason
        elif isinstance(node, BinOp | UnOp | Section) and not _inside_map_vec(f, node):
            return (f"{node}: arithmetic of the scalar language on float4s in lanes (a user "
                    f"function written in C, or mapVec, computes them)")
        elif isinstance(node, UserFun) and node.body is not None:
            return (f"the user function {node.name} is written in the scalar language: in "
                    f"lanes of float4s only C bodies are rewritten component by component")
        elif isinstance(node, UserFun):
            reason = lanewise_problem(node.name, node.c_body, node.params, node.type)
            if reason:
                return (f"the user function {node.name}, given as OpenCL C, cannot be "
                        f"applied lane-wise to vectors: {reason}")
        elif isinstance(node, Prim) and node.decl.category == "scalar" and \
                not _inside_map_vec(f, node):
            return f"{node.name} on float4s in lanes outside a mapVec"
    return None


def _inside_map_vec(f: Expr, target: Expr) -> bool:
    """Whether ``target`` (a node of f) is inside the function of a ``mapVec``."""
    for _, node in walk(f):
        if isinstance(node, Prim) and node.name == "mapVec" and \
                any(n is target for _, n in walk(node.args[-1])):
            return True
    return False


def _components(t) -> bool:
    """float2/3/4 values (or tuples of them and scalars, at least one float2/3/4)."""
    items = t.items if isinstance(t, TupleType) else (t,)
    return any(is_component_vector(i) for i in items) and \
        all(is_component_vector(i) or isinstance(i, ScalarType) for i in items)


def _component_widths(site: Site) -> list:
    return [n for n in powers_of_two_dividing(array_length(site), 2, 16) if int(n) != 4]


@basic_rule(
    "vectorize-components", "map f → joinVec ∘ map (mapVec f) ∘ splitVec n   "
    "(over float2/3/4: n elements' components in lanes)", "opencl",
    "PACT vectorization (of a C body of float4 values); ICFP Fig. 7e",
    params=(RuleParam("n", "vector width (elements in the lanes)", _component_widths),),
    doc="A map over float2/3/4 elements (or tuples of them: zipped arrays) n at a time: the "
        "n elements' components gathered into one floatN per component (structure of "
        "arrays, a view: no copy), f's C body applied to the lanes component by component "
        "(c_components), the results scattered back. n is 2, 8 or 16 (with 4 lanes a float4 "
        "given to every lane could not be told from lanes).")
@matches(HIGH_LEVEL_MAP)
def VECTORISE_COMPONENTS(m, site: Site, p) -> Expr | Refused:
    f = m.f
    t = site.typing.args[0] if site.typing and site.typing.args else None
    if t is None or not isinstance(t, ArrayType):
        return Refused("the input is not an array of known type")
    if not _components(t.elem):
        return Refused(f"the elements must be float2/3/4 (or tuples of them and scalars), "
                       f"not {t.elem}: vectorize takes maps over scalars")
    if not (_components(site.typing.result.elem) or _scalars(site.typing.result.elem)):
        return Refused(f"the function must return a float2/3/4, a scalar or a tuple of them, "
                       f"not {site.typing.result.elem}")
    reason = float4_lanes_problem(f)
    if reason:
        return Refused(reason)
    n = p["n"]
    if not n.is_integer_constant or int(n.value) not in (2, 8, 16):
        return Refused(f"the elements go 2, 8 or 16 to a vector, not {n}")
    bad = divides(n, array_length(site), f"splitVec {n}")
    if bad:
        return bad
    return compose(Prim("joinVec"), Prim("map", (Prim("mapVec", (f,)),)), Prim("splitVec", (n,)))


RULES = [*MAP_LOWERINGS, REDUCE_SEQ, REORDER_STRIDE, REORDER_ID, *MEMORY, VECTORISE,
         tagged(VECTORISE_COMPONENTS, OTHER_SEED)]

assert all(name in PRIMITIVES for name, _, _ in _LOWERINGS)

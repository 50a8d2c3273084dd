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

from contextvars import ContextVar

from ..errors import WorkbenchError
from ..expr import (
    Apply,
    BinOp,
    Compose,
    Expr,
    Lambda,
    Lit,
    Prim,
    Section,
    TupleExpr,
    UnOp,
    UserFun,
    Var,
    compose,
    fresh_name,
    substitute,
)
from ..primitives.families import WHOLE_REDUCTIONS
from ..primitives.opencl import is_component_vector, literal_array
from ..rewriting.macro import macro_rule
from ..rewriting.match import array_length, divides, map_of, matches, prim
from ..rewriting.strategies import at_site, element, parent, rule, seq
from ..sizes import Size
from ..typecheck import Checker
from ..types import ArrayType, ScalarType, TupleType, VectorType
from .macros import REDUCE_OF_MAP, reduce_of_map
from .opencl import float4_lanes_problem, vectorisable
from .rule import (
    OTHER_SEED,
    Refused,
    RuleParam,
    Site,
    basic_rule,
    powers_of_two_dividing,
    tagged,
)

# the operators a reduction over lanes may use, with the initial values every lane may
# start from (None: any value, the operator being idempotent)
NEUTRAL = {"+": 0, "*": 1, "min": None, "max": None}
LANES = (2, 4, 8, 16)  # the widths of OpenCL's vectors


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
    pair=True, lhs=REDUCE_OF_MAP,
    doc="reduce-vectorize, vectorize, splitVec-joinVec: the map and the reduction both on "
        "vectors of n lanes, so that a fused sequential reduction has a vector accumulator "
        "(zipped arrays become tuples of vectors: dot's x·y on float4 pairs).")

RULES = [REDUCE_VECTORISE, MAP_REDUCE_VECTORISE]


# --- a map of a function of arrays, n elements at a time in the lanes of vectors ----------
#
# PACT's vectorisation applies a scalar function to the lanes of a vector. A function of an
# array (K-means' nearest cluster of a point, from the point's features) is applied to n
# arrays at once the same way: the n arrays side by side are an array of vectors (feature f
# of n points is one vector), every scalar function of the function's maps and reductions is
# applied lane-wise (mapVec), and what does not depend on the n arrays (the clusters) stays
# scalar, widened to every lane where it meets a vector. The result, an array of vectors,
# is taken apart again into the n results.


# the width of the lanes while vectorize-lanes rewrites a function: a float2/3/4 of another
# width is one value given to every lane, not lanes
_WIDTH: ContextVar[int | None] = ContextVar("lane_width", default=None)


def _has_vectors(t) -> bool:
    if isinstance(t, VectorType):
        width = _WIDTH.get()
        return width is None or not is_component_vector(t) or int(t.size.value) == width
    if isinstance(t, ArrayType):
        return _has_vectors(t.elem)
    if isinstance(t, TupleType):
        return any(_has_vectors(i) for i in t.items)
    return False


def _lane_level(t) -> bool:
    """A vector, or a tuple of vectors and scalars: what mapVec applies a function to."""
    return _lane_parts(t) and _has_vectors(t)


def _float4_lanes(t) -> bool:
    """Lanes of float2/3/4 (``<float4>_n``), or a tuple holding only those."""
    if isinstance(t, TupleType):
        return all(_float4_lanes(i) for i in t.items)
    return isinstance(t, VectorType) and isinstance(t.elem, VectorType)


def _lane_parts(t) -> bool:
    if isinstance(t, VectorType | ScalarType):
        return True
    return isinstance(t, TupleType) and all(_lane_parts(i) for i in t.items)


def short(e: Expr) -> str:
    text = str(e)
    return text if len(text) <= 60 else text[:57] + "..."


class _NoLanes(Exception):
    """Why a function cannot be applied to n arrays at once in the lanes of vectors."""


def _type_of(e: Expr, env: dict) -> object:
    """The type of the value ``e`` with its free variables of the types ``env`` gives."""
    try:
        return Checker(e, None, record=False).value(e, env, ())
    except WorkbenchError as err:
        raise _NoLanes(f"{short(e)} does not type-check on vectors: {err}") from None


def _bind(pattern, t, env: dict) -> None:
    if isinstance(pattern, str):
        env[pattern] = t
    elif isinstance(t, TupleType) and len(t.items) == len(pattern):
        for p, item in zip(pattern, t.items):
            _bind(p, item, env)
    else:
        raise _NoLanes(f"the pattern {pattern} does not fit {t}")


def _lanes_value(e: Expr, env: dict) -> Expr:
    """The value ``e`` with the functions it applies made lane-wise where their arguments
    hold vectors."""
    if isinstance(e, Apply):
        args = tuple(_lanes_value(a, env) for a in e.args)
        types = [_type_of(a, env) for a in args]
        if _scalar_function(e.fn) and any(_has_vectors(t) for t in types) and \
                all(_lane_parts(t) for t in types):
            return _lane_call(e.fn, args)
        return Apply(_lanes_fn(e.fn, types, env), args)
    if isinstance(e, TupleExpr):
        return TupleExpr(tuple(_lanes_value(i, env) for i in e.items))
    if isinstance(e, BinOp | UnOp) and any(_has_vectors(env.get(v)) for v in e.free_vars()):
        raise _NoLanes(f"{short(e)}: arithmetic outside the function of a map or reduction")
    return e


def _scalar_function(fn: Expr) -> bool:
    """A user function, an operator section or a scalar primitive: applied to lanes it is a
    mapVec of it."""
    return isinstance(fn, UserFun | Section) or (
        isinstance(fn, Prim) and fn.decl.category == "scalar")


def _lane_call(fn: Expr, args: tuple) -> Expr:
    """``fn a b`` on lanes: ``mapVec (λp. fn p.0 p.1) (a, b)`` (the scalars among the
    arguments widened to every lane)."""
    reason = vectorisable(fn)
    if reason:
        raise _NoLanes(reason)
    if len(args) == 1:
        return Apply(Prim("mapVec", (fn,)), args)
    p = fresh_name("p", set().union(*(a.free_vars() for a in args)))
    body = Apply(fn, tuple(Apply(Prim("get", (k,)), (Var(p),)) for k in range(len(args))))
    return Apply(Prim("mapVec", (Lambda((p,), body),)), (TupleExpr(args),))


def _result(fn: Expr, types: list, env: dict):
    names = [fresh_name(f"a{i}", set(env) | fn.free_vars()) for i in range(len(types))]
    inner = {**env, **dict(zip(names, types))}
    return _type_of(Apply(fn, tuple(Var(n) for n in names)), inner)


def _reads_vectors(fn: Expr, env: dict) -> bool:
    return any(_has_vectors(env.get(v)) for v in fn.free_vars())


def _lanes_fn(fn: Expr, types: list, env: dict) -> Expr:
    """The function ``fn`` applied to arguments of ``types`` (some holding vectors)."""
    if not any(_has_vectors(t) for t in types) and not _reads_vectors(fn, env):
        return fn  # the same in every lane (the clusters): scalar
    if isinstance(fn, Compose):
        out, t = [], types
        for f in reversed(fn.fns):
            g = _lanes_fn(f, t, env)
            out.append(g)
            t = [_result(g, t, env)]
        return compose(*reversed(out))
    if isinstance(fn, Lambda):
        inner = dict(env)
        params = fn.params
        if len(types) == 1 and len(params) > 1:  # a reduction's operator: one pair
            params = (tuple(params),)
        for p, t in zip(params, types):
            _bind(p, t, inner)
        return Lambda(fn.params, _lanes_value(fn.body, inner))
    if isinstance(fn, Apply):  # a partial application: (dot xs) row
        own = tuple(_lanes_value(a, env) for a in fn.args)
        inner = _lanes_fn(fn.fn, [_type_of(a, env) for a in own] + list(types), env)
        return Apply(inner, own)
    if isinstance(fn, Prim) and fn.name == "mapVec" and _WIDTH.get() is not None and \
            any(_has_vectors(t) for t in types):
        # a function of float4s component by component: the same on each of the lanes
        reason = vectorisable(fn.args[-1])
        if reason:
            raise _NoLanes(reason)
        return Prim("mapVec", (fn,))
    if isinstance(fn, Prim) and fn.name == "mapVec":
        raise _NoLanes("the function is already vectorised")
    if isinstance(fn, Prim) and fn.decl.map_level is not None and fn.args:
        elem = types[0].elem if isinstance(types[0], ArrayType) else None
        g = fn.args[-1]
        if elem is not None and _lane_level(elem) and not (
                _WIDTH.get() is not None and _reads_vectors(g, env)):
            reason = vectorisable(g)
            if reason:
                raise _NoLanes(reason)
            return Prim(fn.name, (*fn.args[:-1], Prim("mapVec", (g,))))
        return Prim(fn.name, (*fn.args[:-1], _lanes_fn(g, [elem], env)))
    if isinstance(fn, Prim) and fn.name in WHOLE_REDUCTIONS:
        return _lanes_reduction(fn, types, env)
    if isinstance(fn, Prim) and (fn.decl.category == "scalar" or fn.name == "mapVec"):
        raise _NoLanes(f"{fn.name} applied to vectors outside the function of a map")
    if isinstance(fn, Prim) and not any(isinstance(a, Expr) and not isinstance(a, Lit)
                                        for a in fn.args):
        return fn  # zip, get, transpose, split, join, …: the same on vectors
    raise _NoLanes(f"{short(fn)} cannot be applied to vectors")


def _lanes_reduction(fn: Prim, types: list, env: dict) -> Expr:
    f, z = fn.args
    elem = types[0].elem if isinstance(types[0], ArrayType) else None
    if not literal_array(z):
        raise _NoLanes(f"the initial value {z} must be a literal: every lane starts at it")
    acc = _type_of(z, env)
    if elem is not None and _lane_level(elem) and not _has_vectors(acc) and \
            not isinstance(acc, ArrayType):
        if _float4_lanes(elem) and isinstance(f, Prim) and f.name == "mapVec":
            # a float4's operator component by component (Lift's VectorizeUserFun(4, add)):
            # lane by lane it is the same operator on each float4
            reason = vectorisable(f.args[-1])
            if reason:
                raise _NoLanes(reason)
            return Prim(fn.name, (Prim("mapVec", (f,)), z))
        reason = vectorisable(f)
        if reason:
            raise _NoLanes(reason)
        return Prim(fn.name, (Prim("mapVec", (f,)), z))
    for _ in range(2):  # the accumulator holds vectors once the operator gives it them
        g = _lanes_fn(f, [TupleType((acc, elem))], env)
        r = _result(g, [TupleType((acc, elem))], env)
        if r == acc:
            return Prim(fn.name, (g, z))
        acc = r
    raise _NoLanes(f"the accumulator of {short(fn)} changes type on vectors")


def _unvectorise(t, n: Size) -> list[Expr] | None:
    """The layout functions (outermost first) from an array of vectors of n lanes to n
    arrays: ``[<B>_n]_K → [[B]_K]_n`` is ``transpose ∘ split n ∘ joinVec``, one level more
    a ``transpose ∘ map`` of that."""
    if isinstance(t, ArrayType) and (isinstance(t.elem, VectorType) or (
            isinstance(t.elem, TupleType)
            and all(isinstance(i, VectorType) for i in t.elem.items))):
        return [Prim("transpose"), Prim("split", (n,)), Prim("joinVec")]
    if isinstance(t, ArrayType) and isinstance(t.elem, ArrayType):
        inner = _unvectorise(t.elem, n)
        return None if inner is None else [Prim("transpose"), Prim("map", (compose(*inner),))]
    return None


def _fused(outer: list[Expr], e: Expr) -> Expr:
    """``outer`` applied to the value ``e``, a map of ``outer`` fused with a map that
    computes ``e`` (so that the layout functions act on where it writes)."""
    if isinstance(e, Apply) and len(e.args) == 1:
        return Apply(_fused_fn(compose(*outer), e.fn), e.args)
    return Apply(compose(*outer), (e,))


def _fused_fn(outer: Expr, inner: Expr) -> Expr:
    outs = list(outer.fns) if isinstance(outer, Compose) else [outer]
    ins = list(inner.fns) if isinstance(inner, Compose) else [inner]
    last, first = outs[-1], ins[0]
    if isinstance(last, Prim) and last.name == "map" and isinstance(first, Prim) and \
            first.decl.map_level is not None and first.name != "mapVec":
        merged = Prim(first.name, (*first.args[:-1], _fused_fn(last.args[-1], first.args[-1])))
        return compose(*outs[:-1], merged, *ins[1:])
    return compose(*outs, *ins)


_LANES_DOC = ("n elements of the map (each an array of scalars) computed together, one in "
              "each lane of vectors: f^vec is f with every scalar function of its maps and "
              "reductions applied lane-wise (mapVec), its values that do not depend on the "
              "element left scalar (widened where they meet a vector); unvec takes the result "
              "apart (transpose ∘ split n ∘ joinVec, a transpose ∘ map of it per array level).")


@basic_rule(
    "vectorize-lanes",
    "map f → join ∘ map (λc. unvec (f^vec (splitVec n (join (transpose c))))) ∘ split n",
    "opencl", "PACT vectorization (of a function of arrays); ICFP Fig. 7e",
    params=(RuleParam("n", "vector width (arrays computed together, one per lane)",
                      lambda s: powers_of_two_dividing(array_length(s), 2, 16)),),
    doc=_LANES_DOC)
@matches(map_of(why="it rewrites a map f"))
def VECTORISE_LANES(m, site: Site, p) -> Expr | Refused:
    return _lanes_rule(m.f, site, p, float4s=False)


@basic_rule(
    "vectorize-lanes-float4",
    "map f → join ∘ map (λc. unvec (f^vec (at 0 (splitVec n c)))) ∘ split n   "
    "(elements float2/3/4, or tuples of them)", "opencl",
    "PACT vectorization (of C bodies of float4 values); ICFP Fig. 7e",
    params=(RuleParam("n", "vector width (elements computed together, one per lane)",
                      lambda s: [n for n in powers_of_two_dividing(array_length(s), 2, 16)
                                 if int(n) != 4]),),
    doc="vectorize-lanes over float4s (N-body's bodies, zipped positions and velocities): "
        "the n elements' components gathered into one floatN each (<float4>_n, a view: "
        "no copy), f's C bodies applied to them component by component (c_components), a "
        "float4 that does not depend on the element (the other body of an all-pairs "
        "reduction) given to every lane, a reduction over such float4s with a float4s-in-"
        "lanes accumulator, the results scattered back. n is 2, 8 or 16 (with 4 lanes a "
        "float4 given to every lane could not be told from lanes).")
@matches(map_of(why="it rewrites a map f"))
def VECTORISE_LANES_FLOAT4(m, site: Site, p) -> Expr | Refused:
    return _lanes_rule(m.f, site, p, float4s=True)


def _lanes_rule(f: Expr, site: Site, p, float4s: bool) -> Expr | Refused:
    t = site.typing.args[0] if site.typing and site.typing.args else None
    numbers = ("float", "int")
    rows = isinstance(t, ArrayType) and isinstance(t.elem, ArrayType) and \
        isinstance(t.elem.elem, ScalarType) and t.elem.elem.name in numbers
    zipped = isinstance(t, ArrayType) and isinstance(t.elem, TupleType) and all(
        isinstance(i, ScalarType) and i.name in numbers for i in t.elem.items)
    items = (t.elem.items if isinstance(t.elem, TupleType) else (t.elem,)) \
        if isinstance(t, ArrayType) else ()
    components = any(is_component_vector(i) for i in items) and all(
        is_component_vector(i) or (isinstance(i, ScalarType) and i.name in numbers)
        for i in items)
    if float4s and not components:
        return Refused(f"the elements must be float2/3/4, or tuples of them and scalars, not "
                       f"{t.elem}" if isinstance(t, ArrayType) else "the input's type is unknown")
    if not float4s and not (rows or zipped):
        return Refused("the elements must be arrays of floats or ints, or tuples of them "
                       "(zipped arrays): their scalars go in the lanes of vectors"
                       if t is not None else "the input's type is unknown")
    n = p["n"]
    bad = divides(n, t.size, f"split {n}")
    if bad:
        return bad
    if not n.is_integer_constant or int(n.value) not in LANES:
        return Refused(f"vectors have 2, 4, 8 or 16 lanes, not {n}")
    if float4s and int(n.value) == 4:
        return Refused("float4s go 2, 8 or 16 to a vector, not 4 (with 4 lanes a float4 "
                       "given to every lane could not be told from lanes)")
    if float4s and (reason := float4_lanes_problem(f)):
        return Refused(reason)
    token = _WIDTH.set(int(n.value) if float4s else None)
    try:
        return _vectorised_lanes(f, t, n, rows, site)
    finally:
        _WIDTH.reset(token)


def _vectorised_lanes(f: Expr, t: ArrayType, n: Size, rows: bool, site: Site
                      ) -> Expr | Refused:
    env = dict(site.typing.env)
    chunk = fresh_name("c", set(env) | f.free_vars())
    if rows:  # feature f of n rows: one vector
        vec_type = ArrayType(VectorType(t.elem.elem, n), t.elem.size)
        vec_input = Apply(Prim("splitVec", (n,)), (Apply(Prim("join"), (
            Apply(Prim("transpose"), (Var(chunk),)),)),))
    else:  # n tuples: a tuple of vectors, one per zipped array (n float4s: <float4>_n)
        vec_type = TupleType(tuple(VectorType(i, n) for i in t.elem.items)) \
            if isinstance(t.elem, TupleType) else VectorType(t.elem, n)
        vec_input = Apply(Prim("at"), (Lit(0), Apply(Prim("splitVec", (n,)), (Var(chunk),))))
    try:
        if isinstance(f, Lambda) and len(f.params) == 1 and isinstance(f.params[0], str):
            inner = {**env, f.params[0]: vec_type}
            body = _lanes_value(f.body, inner)
            result_type = _type_of(body, inner)
            body = substitute(body, f.params[0], vec_input)
        else:
            g = _lanes_fn(f, [vec_type], env)
            result_type = _result(g, [vec_type], env)
            body = Apply(g, (vec_input,))
    except _NoLanes as err:
        return Refused(str(err))
    outer = _unvectorise(result_type, n)
    if outer is None:
        return Refused(f"the function returns {result_type} on vectors: the rule takes apart "
                       f"arrays (of arrays) of vectors only")
    return compose(Prim("join"), Prim("map", (Lambda((chunk,), _fused(outer, body)),)),
                   Prim("split", (n,)))


RULES += [tagged(VECTORISE_LANES, OTHER_SEED), tagged(VECTORISE_LANES_FLOAT4, OTHER_SEED)]

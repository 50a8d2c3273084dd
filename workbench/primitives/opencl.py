"""Low-level OpenCL primitives (ICFP 2015 Fig. 5; PACT table of hardware patterns;
unrolled variants). Their meaning is that of the algorithmic primitive they implement
(ICFP Sect. 5.2); only the code generator tells them apart."""

from __future__ import annotations

from .. import values as V
from ..primitive import (
    DIM,
    FUN,
    OPENCL,
    SIZE,
    VALUE,
    AddressSpace,
    Kernel,
    Layout,
    MapLevel,
    Primitive,
    ViewForm,
    define,
)
from ..sizes import Size
from ..types import ArrayType, ScalarType, TupleType, Type, VectorType
from .algorithmic import array_arg, map_semantics, map_type, reduce_semantics

# The OpenCL thread hierarchy each map is bound to (PACT Fig. "map hierarchy"); the nesting
# check in ``nesting`` uses these levels.
_MAPS = [
    ("mapGlobal", "global", True, ("map-global", "mapGlb", "MapGlb"),
     "Each global work-item applies f to its own elements."),
    ("mapWorkgroup", "workgroup", True, ("map-workgroup", "mapWrg", "MapWrg"),
     "Each work-group applies f to its own elements."),
    ("mapLocal", "local", True, ("map-local", "mapLcl", "MapLcl"),
     "Each work-item of a work-group applies f to its own elements (barrier after)."),
    ("mapWarp", "warp", False, ("map-warp", "MapWarp"),
     "Each warp of a work-group applies f to its own elements."),
    ("mapLane", "lane", False, ("map-lane", "MapLane"),
     "Each lane of a warp applies f to its own elements (no barrier needed)."),
    ("mapSeq", "seq", False, ("map-seq", "MapSeq"),
     "A sequential loop within one work-item."),
    ("mapSeqUnroll", "seq", False, ("map-seq-unroll", "MapSeqUnroll"),
     "A sequential loop, fully unrolled."),
]

for name, level, has_dim, aliases, doc in _MAPS:
    define(Primitive(
        name, OPENCL, "(A -> B) -> [A]_I -> [B]_I", "ICFP Fig. 5" if level not in ("warp", "lane")
        else "PACT table 2", doc, map_type, map_semantics,
        params=(DIM(), FUN()) if has_dim else (FUN(),), aliases=aliases,
        map_level=MapLevel(level), unrolled="Unroll" in name))


def reduce_seq_type(chk, node, args, env, path):
    a = array_arg(chk, args[0], path, node.name)
    b = a.elem
    z_expr = node.args[1]
    # a literal initial value takes the elements' type, a vector's too (every lane starts
    # at it: the accumulator of a vectorised reduction)
    acc = chk.value(z_expr, env, path + (1,), expected=b if (_numeric(b) or _numeric_vector(b))
                    and not _fraction_for_integers(z_expr, b) else None)
    r = _operator_type(chk, node, env, path, acc, b)
    # a literal accumulator adopts the operator's result type, unless it is a fraction and
    # the operator returns integers
    adopts = r != acc and not _fraction_for_integers(z_expr, r)
    if adopts and (_numeric(r) or _numeric_vector(r)) and \
            (_numeric(acc) or _numeric_vector(acc)) and chk_literal(z_expr):
        acc = chk.value(z_expr, env, path + (1,), expected=r)
        r = chk.apply(node.args[0], [TupleType((acc, b))], env, path + (0,))
    if adopts and r != acc and literal_array(z_expr) and \
            (same_shape(acc, r) or widened(acc, r)):
        acc, r = array_accumulator(chk, node, env, path, b, r)
    if r != acc:
        chk.fail(path, f"{node.name}: the operator takes ({acc}, {b}) and must return the "
                       f"accumulator type {acc}, it returns {r}")
    return ArrayType(acc, Size.const(1))


def _operator_type(chk, node, env, path, acc, elem):
    """The operator's result on (acc, elem). A literal accumulator the operator cannot take
    as numbers, where the element holds vectors (chunks of float4, each reduced from the
    accumulator so far: reduce-split of a vectorised reduction), is typed as those vectors,
    every lane starting at the literal."""
    from ..errors import TypeCheckError

    try:
        return chk.apply(node.args[0], [TupleType((acc, elem))], env, path + (0,))
    except TypeCheckError:
        if not literal_array(node.args[1]) or _vector_in(acc) is not None:
            raise
        lanes = _vector_in(elem)
        wanted = _widen(acc, lanes) if lanes is not None else \
            _declared_use(node.args[0], acc)
        if wanted is None:
            raise
    chk.forget(path + (0,))
    chk.forget(path + (1,))
    acc = chk.value(node.args[1], env, path + (1,), expected=wanted)
    return chk.apply(node.args[0], [TupleType((acc, elem))], env, path + (0,))


def _declared_use(operator, acc: Type) -> Type | None:
    """The vector type a literal accumulator takes where the operator passes it on whole to
    a function that declares it (Lift's ``Value(0.0f, Float4)`` folding ints: ``λ(acc, i).
    updateF acc … (at i xs) …``, MD's neighbour forces after map-reduce fusion, where no
    element of the array says it holds float4s): the declared parameter's type, when it is
    a vector of the literal's numbers. None where no declared function takes it."""
    from ..expr import Apply, Lambda, TupleExpr, UserFun, Var
    from ..types import function_parts

    if not isinstance(operator, Lambda) or not isinstance(acc, ScalarType):
        return None
    names = operator.params[0] if len(operator.params) == 1 else operator.params
    if not (isinstance(names, tuple) and len(names) == 2 and isinstance(names[0], str)):
        return None
    name, body = names[0], operator.body
    while isinstance(body, Apply):
        if isinstance(body.fn, UserFun) and body.fn.type is not None:
            params = function_parts(body.fn.type)[0]
            for want, arg in zip(params, body.args):
                if arg == Var(name) and isinstance(want, VectorType) and _numeric(want.elem):
                    return want
            return None
        if isinstance(body.fn, Lambda) and len(body.args) == 1 \
                and isinstance(body.args[0], TupleExpr):
            inner = body.fn  # (λforce n. e) (acc, x): the accumulator is bound to force
            params = inner.params[0] if len(inner.params) == 1 else inner.params
            if not (isinstance(params, tuple) and len(params) == len(body.args[0].items)):
                return None
            bound = [p for p, a in zip(params, body.args[0].items) if a == Var(name)]
            if len(bound) != 1 or not isinstance(bound[0], str):
                return None
            name, body = bound[0], inner.body
            continue
        return None
    return None


def _vector_in(t) -> Type | None:
    """The vector type of an array's (or tuple's first) numeric vectors, if it has one."""
    while isinstance(t, ArrayType):
        t = t.elem
    return t if _numeric_vector(t) else None


def _widen(t, lanes: VectorType) -> Type:
    """``t`` with its numbers made vectors of ``lanes``' width."""
    if isinstance(t, ArrayType):
        return ArrayType(_widen(t.elem, lanes), t.size)
    return VectorType(t, lanes.size) if _numeric(t) else t


def literal_array(expr) -> bool:
    """``replicate n (replicate m 0)``: an array accumulator's initial value built from a
    literal, whose numbers take the type the operator gives them (as a literal 0 does)."""
    from ..expr import Apply, Prim, TupleExpr

    while isinstance(expr, Apply) and isinstance(expr.fn, Prim) and expr.fn.name == "replicate" \
            and len(expr.args) == 1:
        expr = expr.args[0]
    if isinstance(expr, TupleExpr):  # (3.4e38, 0, 0): a tuple of literals
        return all(literal_array(item) for item in expr.items)
    return chk_literal(expr)


def widened(a, b) -> bool:
    """Whether b is a with some of its numbers made vectors (a tuple of vectors: the
    accumulator of a function applied lane-wise, every lane starting at the literal)."""
    while isinstance(a, ArrayType) and isinstance(b, ArrayType) and a.size == b.size:
        a, b = a.elem, b.elem
    if isinstance(a, TupleType) and isinstance(b, TupleType):
        return len(a.items) == len(b.items) and all(
            widened(x, y) for x, y in zip(a.items, b.items))
    return _numeric(a) and (_numeric(b) or _numeric_vector(b))


def same_shape(a, b) -> bool:
    """Arrays of the same lengths whose elements are numbers (of any numeric type)."""
    while isinstance(a, ArrayType) and isinstance(b, ArrayType) and a.size == b.size:
        a, b = a.elem, b.elem
    return _numeric(a) and _numeric(b)


def array_accumulator(chk, node, env, path, elem, result):
    """A reduction whose accumulator is an array (a register block, CASES 2016): its
    literal initial value is typed as the operator's result, and the operator checked
    again on that accumulator."""
    chk.forget(path + (0,))
    chk.forget(path + (1,))
    acc = chk.value(node.args[1], env, path + (1,), expected=result)
    return acc, chk.apply(node.args[0], [TupleType((acc, elem))], env, path + (0,))


def _numeric(t) -> bool:
    return isinstance(t, ScalarType) and t.name != "bool"


def _numeric_vector(t) -> bool:
    """A vector of numbers, or lanes of float2/3/4 (``<float4>_n``)."""
    return isinstance(t, VectorType) and (_numeric(t.elem) or _numeric_vector(t.elem))


def _fraction_for_integers(expr, elem) -> bool:
    """A literal with a decimal point (``0.0f``) where the elements are integers: the
    accumulator is a float of its own (Lift's ReduceSeq folds ints into a float), not the
    elements' type."""
    from ..expr import Lit, UnOp

    lit = expr.operand if isinstance(expr, UnOp) else expr
    scalar = elem.elem if isinstance(elem, VectorType) else elem
    return isinstance(lit, Lit) and isinstance(lit.value, float) and \
        isinstance(scalar, ScalarType) and scalar.name == "int"


def chk_literal(expr) -> bool:
    from ..expr import Lit, UnOp

    return isinstance(expr, Lit) or (isinstance(expr, UnOp) and isinstance(expr.operand, Lit))


for name, aliases in (("reduceSeq", ("reduce-seq", "ReduceSeq")),
                      ("reduceSeqUnroll", ("reduce-seq-unroll", "ReduceSeqUnroll"))):
    define(Primitive(
        name, OPENCL, "((A × B) -> A) -> A -> [B]_I -> [A]_1", "ICFP Fig. 5",
        "A sequential left fold in one work-item (the operator need not be associative).",
        reduce_seq_type, reduce_semantics, params=(FUN(), VALUE()), aliases=aliases,
        kernel=Kernel.REDUCE_SEQ, unrolled="Unroll" in name))


def memory_type(chk, node, args, env, path):
    return chk.apply(node.args[0], args, env, path + (0,))


for name, space, aliases in (("toGlobal", "global", ("asGlobal", "to-global")),
                             ("toLocal", "local", ("asLocal", "to-local")),
                             ("toPrivate", "private", ("asPrivate", "to-private"))):
    define(Primitive(
        name, OPENCL, "(A -> B) -> (A -> B)", "ICFP Fig. 5" if space != "private" else "Lift",
        f"Store the results of f in {space} memory (the identity on values).", memory_type,
        lambda ev, node, args: ev.call(node.args[0], args), params=(FUN(),), aliases=aliases,
        address_space=AddressSpace(space)))


define(Primitive(
    "prefetch", OPENCL, "(A -> B) -> (A -> B)", "double buffering (CUTLASS, MAGMA)",
    "Store the results of f in private memory, made for the next element of the enclosing "
    "sequential reduction while it computes this one (elsewhere as toPrivate; the identity "
    "on values).",
    memory_type, lambda ev, node, args: ev.call(node.args[0], args), params=(FUN(),),
    aliases=("Prefetch",), address_space=AddressSpace("private"), ahead=True))


def _read_as_it_is(node, t, calls):
    return lambda *idx: idx


def constant_type(chk, node, args, env, path):
    return array_arg(chk, args[0], path, "toConstant")


# A kernel's input read from constant memory: the code generator declares its parameter
# ``constant`` (OpenCL 1.2 Sect. 6.5.3; Lift's constant address space); read-only, so it is
# read through like a view and never written (``rules.constant``).
define(Primitive(
    "toConstant", OPENCL, "[A]_N -> [A]_N", "Lift (constant address space); OpenCL 1.2 6.5.3",
    "The input array read from constant memory (the identity on values): a small read-only "
    "array that every work-item reads, cached and broadcast where the device has it.",
    constant_type, lambda ev, node, args: args[0], aliases=("asConstant", "to-constant"),
    layout=Layout(read=_read_as_it_is)))


def reorder_stride_type(chk, node, args, env, path):
    a = array_arg(chk, args[0], path, "reorderStride")
    s = chk.size(node.args[0])
    chk.require_divides(a.size, s, path, f"reorderStride {s}")
    return a


def reorder_stride_semantics(ev, node, args):
    import numpy as np

    x = args[0]
    s = ev.size(node.args[0])
    n = V.length(x, ev.depth)
    inner = n // s  # ICFP: reorderStride_{A,I} s : [A]_{s×I}; element i is x(i/I + s·(i%I))
    i = np.arange(n)
    return V.gather(x, ev.depth, i // inner + s * (i % inner))


def _reorder_stride_read(node, t, calls):
    s, length = int(node.args[0]), int(t.size)
    chunk = length // s  # ICFP: element i is read from i/I + s·(i%I)
    return lambda i, *rest: (i // chunk + (i % chunk) * s, *rest)


def _reorder_stride_write(node, t, calls):
    s, length = int(node.args[0]), int(t.size)
    chunk = length // s  # element j of the input lands at (j%s)·I + j/s
    return lambda j, *rest: ((j % s) * chunk + j // s, *rest)


define(Primitive(
    "reorderStride", OPENCL, "(s : size) -> [A]_{s×I} -> [A]_{s×I}", "ICFP Fig. 5",
    "A reordering with stride s: element i is read from i/I + s·(i%I), for coalescing.",
    reorder_stride_type, reorder_stride_semantics, params=(SIZE("s"),),
    aliases=("reorder-stride", "ReorderStride"),
    layout=Layout(_reorder_stride_read, _reorder_stride_write)))


def map_vec_type(chk, node, args, env, path):
    """``mapVec f`` on a vector, or lane-wise on a tuple of vectors of one width (PACT's
    vect: every scalar of f's type becomes a vector), scalars in the tuple widened to every
    lane as OpenCL C widens them: ``mapVec (λ(acc, x). acc + abs x)`` is the operator of
    a reduction whose accumulator is a vector."""
    t = args[0]
    if not isinstance(t, TupleType):
        return _vectors_of(chk, map_type(chk, node, args, env, path), path)
    widths = _widths(t)
    if len(widths) != 1:
        chk.fail(path, f"mapVec applies a function lane-wise to vectors of one width; found "
                       f"{t}")
    width = widths.pop()
    lanes = _lanes(chk, t, t, path, width)
    b = chk.apply(node.args[-1], [lanes], env, path + (0,))
    return _vectors_of(chk, VectorType(b, width), path)


def _vectors_of(chk, v: VectorType, path) -> Type:
    """The result of a lane-wise function: a vector of its scalar results, or, when it
    returns a tuple of scalars, a tuple of vectors (one per item: a struct of vectors)."""
    if isinstance(v.elem, ScalarType):
        return v
    if is_component_vector(v.elem):  # a float4 in every lane: lanes of float4
        return v
    if isinstance(v.elem, TupleType) and all(isinstance(i, ScalarType) or
                                             is_component_vector(i) for i in v.elem.items):
        return TupleType(tuple(VectorType(i, v.size) for i in v.elem.items))
    chk.fail(path, f"mapVec: the function must return a scalar, a float2/3/4 or a tuple of "
                   f"them, it returns {v.elem}")


def is_component_vector(t) -> bool:
    """A float2, float3 or float4 (int, uint too): what n lanes hold as one vector per
    component (``<float4>_n``, structure of arrays: ``notation.c_components``)."""
    return isinstance(t, VectorType) and isinstance(t.elem, ScalarType) and \
        t.elem.name in ("float", "int", "uint") and t.size.is_integer_constant and \
        int(t.size.value) in (2, 3, 4)


def _lane_widths(t) -> set:
    """The widths of the lanes of float2/3/4 (``<float4>_n``) in a tuple."""
    if isinstance(t, VectorType) and isinstance(t.elem, VectorType):
        return {t.size}
    if isinstance(t, TupleType):
        return set().union(*(_lane_widths(item) for item in t.items))
    return set()


def _widths(t, lanes: set | None = None) -> set:
    """The widths of the vectors of a tuple given to mapVec; where some hold float4s in
    lanes (``<float4>_n``), a vector of another width is one float2/3/4 given to every
    lane."""
    lanes = _lane_widths(t) if lanes is None else lanes
    if isinstance(t, VectorType):
        return {t.size} if not lanes or t.size in lanes else set()
    if isinstance(t, TupleType):
        return set().union(*(_widths(item, lanes) for item in t.items))
    return set()


def _lanes(chk, t, whole, path, width=None):
    """A lane of a tuple of vectors (nested tuples too: (acc, (x, y))); a float4 of lanes
    (``<float4>_n``) gives a float4, a float2/3/4 of a width other than the lanes' is the
    same in every lane."""
    if isinstance(t, VectorType) and isinstance(t.elem, VectorType):
        return t.elem
    if isinstance(t, VectorType) and isinstance(t.elem, ScalarType):
        return t if width is not None and t.size != width and is_component_vector(t) \
            else t.elem
    if isinstance(t, ScalarType):
        return t
    if isinstance(t, TupleType):
        return TupleType(tuple(_lanes(chk, item, whole, path, width) for item in t.items))
    chk.fail(path, f"mapVec on a tuple takes vectors and scalars, found {t} in {whole}")


def map_vec_semantics(ev, node, args):
    x = args[0]
    if isinstance(x, tuple):  # lane-wise on a tuple of vectors (and widened scalars)
        x = V.lanes(x, ev.depth)
    out = ev.map(node.args[-1], x)
    if isinstance(out, V.Zipped):  # a tuple of scalars in every lane: a tuple of vectors
        return tuple(out.parts)
    return out


define(Primitive(
    "mapVec", OPENCL, "(A -> B) -> <A>_I -> <B>_I", "ICFP Fig. 5",
    "Apply a scalar function to all lanes of a SIMD vector (of a tuple of vectors: lane by "
    "lane).", map_vec_type, map_vec_semantics,
    params=(FUN(),), aliases=("vect", "map-vec", "MapVec"),
    map_level=MapLevel.VECTOR, maps_over=VectorType))


def split_vec_type(chk, node, args, env, path):
    a = array_arg(chk, args[0], path, "splitVec")
    items = a.elem.items if isinstance(a.elem, TupleType) else (a.elem,)
    if not all(isinstance(item, ScalarType) or is_component_vector(item) for item in items):
        chk.fail(path, f"splitVec makes vectors of scalars or of float2/3/4 (or tuples of "
                       f"them), the elements are {a.elem}")
    n = chk.size(node.args[0])
    chk.require_divides(a.size, n, path, f"splitVec {n}")
    if isinstance(a.elem, TupleType):  # zipped arrays: a tuple of vectors, one per array
        return ArrayType(TupleType(tuple(VectorType(item, n) for item in items)), a.size / n)
    return ArrayType(VectorType(a.elem, n), a.size / n)


def split_vec_semantics(ev, node, args):
    x, n = args[0], ev.size(node.args[0])
    if isinstance(x, V.Zipped):  # each array of the zip in vectors; still one zip level
        return V.Zipped(tuple(V.split(p, ev.depth, n) for p in x.parts), x.levels)
    return V.split(x, ev.depth, n)


define(Primitive(
    "splitVec", OPENCL, "(n : size) -> [A]_{n×I} -> [<A>_n]_I", "ICFP Fig. 5",
    "Group scalars into SIMD vectors of n (zipped arrays: a tuple of vectors).",
    split_vec_type, split_vec_semantics,
    params=(SIZE(),), aliases=("split-vec", "asVector", "AsVector"), view=ViewForm.SPLIT_VEC))


def join_vec_type(chk, node, args, env, path):
    a = array_arg(chk, args[0], path, "joinVec")
    if isinstance(a.elem, TupleType):
        items = a.elem.items
        if not all(isinstance(item, VectorType) for item in items) or \
                len({item.size for item in items}) != 1:
            chk.fail(path, f"joinVec: the elements must be vectors (or tuples of vectors of "
                           f"one width), found {a.elem}")
        return ArrayType(TupleType(tuple(item.elem for item in items)),
                         items[0].size * a.size)
    v = array_arg(chk, a.elem, path, "joinVec (elements)", VectorType)
    return ArrayType(v.elem, v.size * a.size)


def join_vec_semantics(ev, node, args):
    x = args[0]
    if isinstance(x, V.Zipped):
        return V.Zipped(tuple(V.join(p, ev.depth) for p in x.parts), x.levels)
    return V.join(x, ev.depth)


define(Primitive(
    "joinVec", OPENCL, "[<A>_I]_J -> [A]_{I×J}", "ICFP Fig. 5",
    "Flatten SIMD vectors back to scalars.", join_vec_type, join_vec_semantics,
    aliases=("join-vec", "asScalar", "AsScalar"), view=ViewForm.JOIN_VEC))

"""High-level algorithmic primitives (ICFP 2015 Fig. 4; PACT table of algorithmic patterns;
``slide``/``pad`` for stencils; ``gather``/``scatter`` after P2CL; ``scan``)."""

from __future__ import annotations

import numpy as np

from .. import values as V
from ..errors import EvaluationError, SizeError
from ..expr import Lambda, Prim
from ..primitive import (
    ALGORITHMIC,
    FUN,
    INDEX,
    SIZE,
    VALUE,
    Kernel,
    Layout,
    MapLevel,
    Primitive,
    ViewForm,
    define,
)
from ..sizes import Size
from ..types import INT, ArrayType, ScalarType, TupleType, VectorType


def array_arg(chk, t, path, what, kind=ArrayType):
    if not isinstance(t, kind):
        noun = "an array" if kind is ArrayType else "a vector"
        chk.fail(path, f"{what} expects {noun}, found {t}")
    return t


# --- map -------------------------------------------------------------------------------------

def map_type(chk, node, args, env, path):
    kind = node.decl.maps_over
    a = array_arg(chk, args[0], path, node.name, kind)
    b = chk.apply(node.args[-1], [a.elem], env, path + (0,))
    return kind(b, a.size)


def map_semantics(ev, node, args):
    return ev.map(node.args[-1], args[0])


define(Primitive(
    "map", ALGORITHMIC, "(A -> B) -> [A]_I -> [B]_I", "ICFP Fig. 4",
    "Apply f to every element.", map_type, map_semantics, params=(FUN(),),
    aliases=("Map",), codegen=False, map_level=MapLevel.ANY))


# --- zip -------------------------------------------------------------------------------------

def zip_type(chk, node, args, env, path):
    arrays = [array_arg(chk, t, path, "zip") for t in args]
    for other in arrays[1:]:
        chk.same_size(arrays[0].size, other.size, path, "zip")
    return ArrayType(TupleType(tuple(a.elem for a in arrays)), arrays[0].size)


define(Primitive(
    "zip", ALGORITHMIC, "[A]_I -> [B]_I -> [A × B]_I", "ICFP Fig. 4",
    "Pair up elements of arrays of equal length (n-ary).", zip_type,
    lambda ev, node, args: V.Zipped(tuple(args)), arity=None, aliases=("Zip",),
    kernel=Kernel.ZIP))


# --- reduce ----------------------------------------------------------------------------------

def reduce_type(chk, node, args, env, path):
    a = array_arg(chk, args[0], path, node.name)
    elem = a.elem
    z = chk.value(node.args[1], env, path + (1,), expected=elem)
    if z != elem:
        chk.fail(path, f"{node.name}: the initial value has type {z}, the elements {elem}")
    r = chk.apply(node.args[0], [TupleType((elem, elem))], env, path + (0,))
    if r != elem:
        chk.fail(path, f"{node.name}: the operator must return {elem} (the element type), "
                       f"it returns {r}")
    return ArrayType(elem, Size.const(1))


def reduce_semantics(ev, node, args):
    acc = ev.fold(node.args[0], ev.value(node.args[1]), args[0])
    return V.collect(V.lift(acc, ev.depth, ev.depth + 1), ev.depth, 1)


define(Primitive(
    "reduce", ALGORITHMIC, "((A × A) -> A) -> A -> [A]_I -> [A]_1", "ICFP Fig. 4",
    "Reduce with an associative and commutative operator; the result is a one-element array.",
    reduce_type, reduce_semantics, params=(FUN(), VALUE()), aliases=("Reduce",), codegen=False))


def reduce_part_type(chk, node, args, env, path):
    a = array_arg(chk, args[0], path, node.name)
    n = chk.size(node.args[2])
    chk.require_divides(a.size, n, path, f"reducePart {n}")
    reduce_type(chk, node, args, env, path)
    return ArrayType(a.elem, n)


def reduce_part_semantics(ev, node, args):
    x = args[0]
    n = ev.size(node.args[2])
    chunks = V.split(x, ev.depth, V.length(x, ev.depth) // n)  # n chunks of I = L / n (Fig. 9)
    whole = ev.map(Prim("reduce", node.args[:2]), chunks)
    return V.join(whole, ev.depth)


define(Primitive(
    "reducePart", ALGORITHMIC, "((A × A) -> A) -> A -> (n : size) -> [A]_{I×n} -> [A]_n",
    "ICFP Fig. 5", "Partial reduction: n results, each reducing one contiguous chunk.",
    reduce_part_type, reduce_part_semantics, params=(FUN(), VALUE(), SIZE()),
    aliases=("part-red", "partRed", "reduce-part", "ReducePart"), codegen=False))


# --- split / join ----------------------------------------------------------------------------
# Their code is a view (ICFP 2015 Sect. 3.2): element [i, j] of ``split n xs`` is element
# i·n + j of xs; element k of ``join xss`` is element [k / m, k % m] of xss.

def _split_read(node, t, calls):
    n = int(node.args[0])
    return lambda i, j, *rest: (i * n + j, *rest)


def _split_write(node, t, calls):
    n = int(node.args[0])
    return lambda k, *rest: (k // n, k % n, *rest)


def _join_read(node, t, calls):
    m = int(t.elem.size)
    return lambda k, *rest: (k // m, k % m, *rest)


def _join_write(node, t, calls):
    m = int(t.elem.size)
    return lambda i, j, *rest: (i * m + j, *rest)


def split_type(chk, node, args, env, path):
    a = array_arg(chk, args[0], path, node.name)
    n = chk.size(node.args[0])
    chk.require_divides(a.size, n, path, f"split {n}")
    return ArrayType(ArrayType(a.elem, n), a.size / n)


define(Primitive(
    "split", ALGORITHMIC, "(n : size) -> [A]_{n×I} -> [[A]_n]_I", "ICFP Fig. 4",
    "Cut an array into chunks of n (PACT's outerSplit).", split_type,
    lambda ev, node, args: V.split(args[0], ev.depth, ev.size(node.args[0])),
    params=(SIZE(),), aliases=("Split", "outerSplit", "outer-split"),
    layout=Layout(_split_read, _split_write)))


def join_type(chk, node, args, env, path):
    a = array_arg(chk, args[0], path, node.name)
    inner = array_arg(chk, a.elem, path, f"{node.name} (elements)")
    return ArrayType(inner.elem, inner.size * a.size)


define(Primitive(
    "join", ALGORITHMIC, "[[A]_I]_J -> [A]_{I×J}", "ICFP Fig. 4",
    "Flatten an array of arrays (PACT's outerJoin).", join_type,
    lambda ev, node, args: V.join(args[0], ev.depth), aliases=("Join", "outerJoin", "outer-join"),
    layout=Layout(_join_read, _join_write)))


def _innermost(chk, t, path, what):
    """Levels of array nesting above the innermost array of scalars (PACT's T[]*[q])."""
    levels = []
    while isinstance(t, ArrayType) and isinstance(t.elem, ArrayType):
        levels.append(t.size)
        t = t.elem
    if not isinstance(t, ArrayType) or not isinstance(t.elem, ScalarType):
        chk.fail(path, f"{what} expects nested arrays of scalars, found {t}")
    return levels, t


def _rebuild(levels, inner):
    for size in reversed(levels):
        inner = ArrayType(inner, size)
    return inner


def inner_split_type(chk, node, args, env, path):
    levels, inner = _innermost(chk, args[0], path, node.name)
    n = chk.size(node.args[0])
    chk.require_divides(inner.size, n, path, f"innerSplit {n}")
    return _rebuild(levels, ArrayType(ArrayType(inner.elem, n), inner.size / n))


def inner_split_semantics(ev, node, args):
    n = ev.size(node.args[0])
    return V.transform(args[0], lambda leaf: leaf.reshape(leaf.shape[:-1] + (-1, n)))


def _inner_split_read(node, t, calls):
    n = int(node.args[0])
    return lambda *idx: (*idx[:-2], idx[-2] * n + idx[-1])


def _inner_split_write(node, t, calls):
    n = int(node.args[0])
    return lambda *idx: (*idx[:-1], idx[-1] // n, idx[-1] % n)


define(Primitive(
    "innerSplit", ALGORITHMIC, "(n : size) -> T[]*[n×m] -> T[]*[m][n]", "PACT table 1",
    "Split the innermost dimension into chunks of n.", inner_split_type, inner_split_semantics,
    params=(SIZE(),), aliases=("inner-split",),
    layout=Layout(_inner_split_read, _inner_split_write)))


def inner_join_type(chk, node, args, env, path):
    t = args[0]
    levels = []
    while isinstance(t, ArrayType) and isinstance(t.elem, ArrayType) \
            and isinstance(t.elem.elem, ArrayType):
        levels.append(t.size)
        t = t.elem
    if not (isinstance(t, ArrayType) and isinstance(t.elem, ArrayType)
            and isinstance(t.elem.elem, ScalarType)):
        chk.fail(path, f"innerJoin expects two or more levels of arrays of scalars, "
                       f"found {args[0]}")
    return _rebuild(levels, ArrayType(t.elem.elem, t.size * t.elem.size))


def _innermost_length(t) -> int:
    while isinstance(t.elem, ArrayType):
        t = t.elem
    return int(t.size)


def _inner_join_read(node, t, calls):
    n = _innermost_length(t)
    return lambda *idx: (*idx[:-1], idx[-1] // n, idx[-1] % n)


def _inner_join_write(node, t, calls):
    n = _innermost_length(t)
    return lambda *idx: (*idx[:-2], idx[-2] * n + idx[-1])


define(Primitive(
    "innerJoin", ALGORITHMIC, "T[]*[m][n] -> T[]*[m×n]", "PACT table 1",
    "Join the two innermost dimensions.", inner_join_type,
    lambda ev, node, args: V.transform(
        args[0], lambda leaf: leaf.reshape(leaf.shape[:-2] + (leaf.shape[-2] * leaf.shape[-1],))),
    aliases=("inner-join",), layout=Layout(_inner_join_read, _inner_join_write)))


# --- tile / untile (the matrix-multiplication slides' Tile and Untile) --------------------------
# 2-D split and join: ``tile m n`` cuts a matrix into m×n tiles, ``untile`` puts tiles back
# together. Lift defines Tile(x, y) = Map(Map(Transpose) ∘ Split(y) ∘ Transpose) ∘ Split(x);
# here both are primitives, so their code is one view each: element [I, J, r, c] of
# ``tile m n xs`` is element [I·m + r, J·n + c] of xs.

def tile_type(chk, node, args, env, path):
    a = array_arg(chk, args[0], path, "tile")
    rows = array_arg(chk, a.elem, path, "tile (elements)")
    m, n = chk.size(node.args[0]), chk.size(node.args[1])
    chk.require_divides(a.size, m, path, f"tile {m} {n} (rows)")
    chk.require_divides(rows.size, n, path, f"tile {m} {n} (columns)")
    one = ArrayType(ArrayType(rows.elem, n), m)
    return ArrayType(ArrayType(one, rows.size / n), a.size / m)


def tile_semantics(ev, node, args):
    m, n, d = ev.size(node.args[0]), ev.size(node.args[1]), ev.depth

    def fn(leaf):
        shape = leaf.shape
        rows, cols = shape[d], shape[d + 1]
        split = leaf.reshape(shape[:d] + (rows // m, m, cols // n, n) + shape[d + 2:])
        return np.swapaxes(split, d + 1, d + 2)

    return V._reshape(args[0], fn, 2)


def _tile_read(node, t, calls):
    m, n = int(node.args[0]), int(node.args[1])
    return lambda i, j, r, c, *rest: (i * m + r, j * n + c, *rest)


def _tile_write(node, t, calls):
    m, n = int(node.args[0]), int(node.args[1])
    return lambda row, col, *rest: (row // m, col // n, row % m, col % n, *rest)


define(Primitive(
    "tile", ALGORITHMIC, "(m n : size) -> [[A]_{N×n}]_{M×m} -> [[[[A]_n]_m]_N]_M",
    "matrix-multiplication slides (Tile)",
    "Cut a matrix into tiles of m rows and n columns (a 2-D split).", tile_type,
    tile_semantics, params=(SIZE("m"), SIZE("n")), aliases=("Tile",),
    layout=Layout(_tile_read, _tile_write)))


def untile_type(chk, node, args, env, path):
    a = array_arg(chk, args[0], path, "untile")
    row = array_arg(chk, a.elem, path, "untile (a row of tiles)")
    tile = array_arg(chk, row.elem, path, "untile (tiles)")
    tile_row = array_arg(chk, tile.elem, path, "untile (rows of a tile)")
    return ArrayType(ArrayType(tile_row.elem, row.size * tile_row.size), a.size * tile.size)


def untile_semantics(ev, node, args):
    d = ev.depth

    def fn(leaf):
        shape = leaf.shape
        i, j, m, n = shape[d:d + 4]
        return np.swapaxes(leaf, d + 1, d + 2).reshape(shape[:d] + (i * m, j * n) + shape[d + 4:])

    return V._reshape(args[0], fn, -2)


def _tile_shape(t) -> tuple[int, int]:
    tile = t.elem.elem
    return int(tile.size), int(tile.elem.size)


def _untile_read(node, t, calls):
    m, n = _tile_shape(t)
    return lambda row, col, *rest: (row // m, col // n, row % m, col % n, *rest)


def _untile_write(node, t, calls):
    m, n = _tile_shape(t)
    return lambda i, j, r, c, *rest: (i * m + r, j * n + c, *rest)


define(Primitive(
    "untile", ALGORITHMIC, "[[[[A]_n]_m]_N]_M -> [[A]_{N×n}]_{M×m}",
    "matrix-multiplication slides (Untile)",
    "Put a matrix of tiles back together (a 2-D join).", untile_type, untile_semantics,
    aliases=("Untile",), layout=Layout(_untile_read, _untile_write)))


# --- iterate ---------------------------------------------------------------------------------

def iterate_type(chk, node, args, env, path):
    n = chk.size(node.args[0])
    f = node.args[1]
    t = args[0]
    if n.is_integer_constant:
        if n.value > 64:
            chk.fail(path, f"iterate {n}: at most 64 iterations are supported")
        for _ in range(int(n.value)):
            t = chk.apply(f, [t], env, path + (0,))
        return t
    # Symbolic count: f must shrink by a constant factor (ICFP Fig. 4's I), giving I^n.
    a = array_arg(chk, t, path, "iterate")
    probe = Size.var("m_iter")
    out = chk.apply(f, [ArrayType(a.elem, probe)], env, path + (0,))
    if not isinstance(out, ArrayType) or out.elem != a.elem:
        chk.fail(path, f"iterate: the function must map [{a.elem}]_m to [{a.elem}]_(m/I), "
                       f"got {out}")
    factor = probe / out.size
    if factor.free_vars:
        chk.fail(path, f"iterate: the function must shrink arrays by a constant factor, "
                       f"it maps length m to {out.size}")
    result = a.size / factor ** n
    chk.require_divides(a.size, factor ** n, path, f"iterate {n}")
    return ArrayType(a.elem, result)


def iterate_semantics(ev, node, args):
    x = args[0]
    for _ in range(ev.size(node.args[0])):
        x = ev.call(node.args[1], [x])
    return x


define(Primitive(
    "iterate", ALGORITHMIC,
    "(n : size) -> ((m : size) -> [A]_{I×m} -> [A]_m) -> [A]_{I^n×J} -> [A]_J",
    "ICFP Fig. 4", "Apply f n times (the array may shrink by a constant factor each time).",
    iterate_type, iterate_semantics, params=(SIZE(), FUN()), aliases=("Iterate",),
    kernel=Kernel.ITERATE))


# --- reorder, transpose, id, get -------------------------------------------------------------

def same_array_type(chk, node, args, env, path):
    return array_arg(chk, args[0], path, node.name)


def _identity(node, t, calls):
    return lambda *idx: idx


IDENTITY = Layout(_identity, _identity)

define(Primitive(
    "reorder", ALGORITHMIC, "[A]_I -> [A]_I", "ICFP Fig. 4",
    "Any permutation: says the order of elements does not matter (the interpreter keeps it).",
    same_array_type, lambda ev, node, args: args[0], aliases=("Reorder",), codegen=False,
    layout=IDENTITY))  # the identity is one valid order


def _swap(i, j, *rest):
    return (j, i, *rest)


def transpose_type(chk, node, args, env, path):
    a = array_arg(chk, args[0], path, "transpose")
    inner = array_arg(chk, a.elem, path, "transpose (elements)")
    return ArrayType(ArrayType(inner.elem, a.size), inner.size)


define(Primitive(
    "transpose", ALGORITHMIC, "[[A]_N]_M -> [[A]_M]_N", "PACT table 1",
    "Swap the two outer dimensions.", transpose_type,
    lambda ev, node, args: V.swap(args[0], ev.depth), aliases=("Transpose",),
    layout=Layout(lambda node, t, calls: _swap, lambda node, t, calls: _swap)))

define(Primitive(
    "id", ALGORITHMIC, "A -> A", "ICFP Fig. 6", "The identity.",
    lambda chk, node, args, env, path: args[0], lambda ev, node, args: args[0],
    aliases=("Id",), layout=IDENTITY))


def get_type(chk, node, args, env, path):
    t = args[0]
    i = node.args[0]
    if not isinstance(t, TupleType):
        chk.fail(path, f"get {i} expects a tuple, found {t}")
    if i >= len(t.items):
        chk.fail(path, f"get {i}: the tuple {t} has only {len(t.items)} components")
    return t.items[i]


define(Primitive(
    "get", ALGORITHMIC, "(i : index) -> A_0 × ... × A_n -> A_i", "matrix-multiplication slides",
    "Tuple projection, zero-based (also written p.0).", get_type,
    lambda ev, node, args: args[0][node.args[0]], params=(INDEX(),), aliases=("Get",)))


# --- stencils: slide and pad -----------------------------------------------------------------

def slide_type(chk, node, args, env, path):
    a = array_arg(chk, args[0], path, "slide")
    size, step = chk.size(node.args[0]), chk.size(node.args[1])
    span = a.size - size
    chk.require_divides(span, step, path, f"slide {size} {step}")
    return ArrayType(ArrayType(a.elem, size), span / step + 1)


def _slide_read(node, t, calls):
    step = int(node.args[1])  # window i, element j is element i·step + j, as for split
    return lambda i, j, *rest: (i * step + j, *rest)


define(Primitive(
    "slide", ALGORITHMIC, "(size step : size) -> [A]_N -> [[A]_size]_{(N-size)/step+1}",
    "Lift stencils", "Overlapping windows of `size` elements, `step` apart.", slide_type,
    lambda ev, node, args: V.windows(args[0], ev.depth, ev.size(node.args[0]),
                                     ev.size(node.args[1])),
    params=(SIZE("size"), SIZE("step")), aliases=("Slide",),
    layout=Layout(_slide_read)))  # overlapping windows: not written through


def pad_type(chk, node, args, env, path):
    a = array_arg(chk, args[0], path, "pad")
    v = chk.value(node.args[2], env, path + (0,), expected=a.elem)
    if v != a.elem:
        chk.fail(path, f"pad: the padding value has type {v}, the elements {a.elem}")
    return ArrayType(a.elem, a.size + chk.size(node.args[0]) + chk.size(node.args[1]))


def pad_semantics(ev, node, args):
    left, right = ev.size(node.args[0]), ev.size(node.args[1])
    v = ev.value(node.args[2])
    d = ev.depth
    return V.concat([V.full_like_length(v, d, left), args[0], V.full_like_length(v, d, right)], d)


define(Primitive(
    "pad", ALGORITHMIC, "(l r : size) -> A -> [A]_N -> [A]_{l+N+r}", "Lift stencils",
    "Add l copies of a value before and r after.", pad_type, pad_semantics,
    params=(SIZE("l"), SIZE("r"), VALUE("v")), aliases=("Pad",), view=ViewForm.PAD))


def pad_clamp_type(chk, node, args, env, path):
    a = array_arg(chk, args[0], path, "padClamp")
    return ArrayType(a.elem, a.size + chk.size(node.args[0]) + chk.size(node.args[1]))


def pad_clamp_semantics(ev, node, args):
    left, right = ev.size(node.args[0]), ev.size(node.args[1])
    n = V.length(args[0], ev.depth)
    index = np.concatenate([np.zeros(left, int), np.arange(n), np.full(right, n - 1)])
    return V.gather(args[0], ev.depth, index)


def _pad_clamp_read(node, t, calls):
    left, n = int(node.args[0]), int(t.size)
    return lambda i, *rest: (calls.builtin("clamp", i - left, 0, n - 1, extent=n), *rest)


define(Primitive(
    "padClamp", ALGORITHMIC, "(l r : size) -> [A]_N -> [A]_{l+N+r}", "Lift stencils",
    "Pad by repeating the first and last elements.", pad_clamp_type, pad_clamp_semantics,
    params=(SIZE("l"), SIZE("r")), aliases=("PadClamp",), layout=Layout(_pad_clamp_read)))


# --- gather / scatter (P2CL) -----------------------------------------------------------------

def _index_fn_type(chk, node, env, path):
    f = node.args[0]
    arity = len(f.params) if isinstance(f, Lambda) else 1
    if arity not in (1, 2):
        chk.fail(path, f"{node.name}: the index function takes i (and the length n)")
    r = chk.apply(f, [INT] * arity, env, path + (0,))
    if r != INT:
        chk.fail(path, f"{node.name}: the index function must return an int, it returns {r}")


def index_fn_type(chk, node, args, env, path):
    _index_fn_type(chk, node, env, path)
    return array_arg(chk, args[0], path, node.name)


def _indices(ev, node, n):
    f = node.args[0]
    arity = len(f.params) if isinstance(f, Lambda) else 1
    i = np.arange(n, dtype=np.int64)
    idx = ev.index_function(f, [i, np.full(n, n, dtype=np.int64)][:arity], n)
    bad = (idx < 0) | (idx >= n)
    if bad.any():
        k = int(np.argmax(bad))
        raise EvaluationError(f"{node.name}: the index function maps {k} to {int(idx[k])}, "
                              f"outside 0..{n - 1}")
    return idx


def gather_semantics(ev, node, args):
    n = V.length(args[0], ev.depth)
    return V.gather(args[0], ev.depth, _indices(ev, node, n))


def scatter_semantics(ev, node, args):
    n = V.length(args[0], ev.depth)
    idx = _indices(ev, node, n)
    if len(np.unique(idx)) != n:
        raise EvaluationError("scatter: the index function is not a permutation "
                              "(two elements are written to the same place)")
    inverse = np.empty(n, dtype=np.int64)
    inverse[idx] = np.arange(n)
    return V.gather(args[0], ev.depth, inverse)


def _index_function(node, t, calls):
    """i ↦ f i (or f i n) computed by the index function, compiled as a function."""
    f, n = node.args[0], int(t.size)
    arity = len(f.params) if isinstance(f, Lambda) else 1
    return lambda i, *rest: (calls.function(f, *(i, n)[:arity], extent=n), *rest)


define(Primitive(
    "gather", ALGORITHMIC, "(f : int -> int) -> [A]_N -> [A]_N", "P2CL gather",
    "out[i] = in[f i] (f may also take the length: λi n. n - 1 - i reverses).",
    index_fn_type, gather_semantics, params=(FUN(),), aliases=("Gather",),
    layout=Layout(read=_index_function)))
def _scatter_read(node, t, calls):
    """Reading through ``scatter f`` reads element f⁻¹(i): possible where f is its own
    inverse (Lift's ``reverse``), which is checked on the concrete length."""
    n = int(t.size)
    f = node.args[0]
    arity = len(f.params) if isinstance(f, Lambda) else 1
    i = np.arange(n, dtype=np.int64)
    lengths = np.full(n, n, dtype=np.int64)
    image = calls.values(f, [i, lengths][:arity], n)
    inside = (image >= 0) & (image < n)
    if not inside.all() or not (calls.values(f, [image, lengths][:arity], n) == i).all():
        calls.refuse("scatter generates code only where its result is written (its index "
                     "function is not its own inverse, so it cannot be read through)")
    return _index_function(node, t, calls)


define(Primitive(
    "scatter", ALGORITHMIC, "(f : int -> int) -> [A]_N -> [A]_N", "P2CL scatter",
    "out[f i] = in[i]; f must be a permutation.", index_fn_type, scatter_semantics,
    params=(FUN(),), aliases=("Scatter",), layout=Layout(read=_scatter_read,
                                                         write=_index_function)))


# --- scan, replicate, at ---------------------------------------------------------------------

def scan_type(chk, node, args, env, path):
    reduce_type(chk, node, args, env, path)
    return args[0]


define(Primitive(
    "scan", ALGORITHMIC, "((A × A) -> A) -> A -> [A]_I -> [A]_I", "prefix sum",
    "Inclusive scan: out[i] = z ⊕ x0 ⊕ ... ⊕ xi.", scan_type,
    lambda ev, node, args: ev.scan(node.args[0], ev.value(node.args[1]), args[0]),
    params=(FUN(), VALUE()), aliases=("Scan",), codegen=False))


def replicate_type(chk, node, args, env, path):
    n = chk.size(node.args[0])
    if n.is_constant and n.value == 0:  # arrays hold at least one element, as take's do
        chk.fail(path, "replicate 0: an array of no copies; arrays hold at least one element",
                 SizeError)
    return ArrayType(args[0], n)


define(Primitive(
    "replicate", ALGORITHMIC, "(n : size) -> A -> [A]_n", "Futhark G4",
    "An array of n copies of a value.", replicate_type,
    lambda ev, node, args: V.full_like_length(args[0], ev.depth, ev.size(node.args[0])),
    params=(SIZE(),), aliases=("Replicate",), kernel=Kernel.REPLICATE,
    element_hint=True))  # its value has the element type a context expects


def at_type(chk, node, args, env, path):
    index, array = args
    if index != INT:
        chk.fail(path, f"at: the index must be an int, found {index}")
    return array_arg(chk, array, path, "at", ArrayType | VectorType).elem


def at_semantics(ev, node, args):
    index, array = args
    d = ev.depth

    def pick(leaf):
        i = np.asarray(index)
        if i.ndim == 0:  # one index for every element (a stencil's nbh.at(1)): a view
            if not 0 <= int(i) < leaf.shape[d]:
                raise EvaluationError(f"at: index outside 0..{leaf.shape[d] - 1}")
            return leaf[(slice(None),) * d + (int(i),)]
        batch = np.broadcast_shapes(i.shape, leaf.shape[:d])
        leaf = np.broadcast_to(leaf, batch + leaf.shape[d:])
        n = leaf.shape[d]
        if np.any((i < 0) | (i >= n)):
            raise EvaluationError(f"at: index outside 0..{n - 1}")
        i = np.broadcast_to(i, batch).reshape(batch + (1,) * (leaf.ndim - d))
        i = np.broadcast_to(i, batch + (1,) + leaf.shape[d + 1:])
        return np.take_along_axis(leaf, i, axis=d).squeeze(axis=d)

    def pick_value(value):
        if isinstance(value, V.Zipped):
            parts = tuple(pick_value(p) for p in value.parts)
            return parts if value.levels == 1 else V.Zipped(parts, value.levels - 1)
        return pick(value)

    return pick_value(array)


define(Primitive(
    "at", ALGORITHMIC, "int -> [A]_N -> A", "ICFP md (Fig. 13)",
    "Read one element of an array by index (neighbour lists, as in md).", at_type, at_semantics,
    arity=2, aliases=("At", "ArrayAccess"), kernel=Kernel.AT))

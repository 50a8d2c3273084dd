"""Data-layout primitives beyond ICFP Fig. 4: Lift's ``Head``/``Tail`` and boundary handling
(``Pad`` with ``Wrap`` and ``Mirror``), SkelCL's two-dimensional stencils (``slide2D``,
``pad2D``), P2CL's gather and scatter by offsets (KTH thesis Sect. 4.1.3, Eq. 4.3), the
element index P2CL's maps pass to their functions (``enumerate``), and Futhark's
``rearrange`` (kernel-extraction rule G6).

Each generates no code of its own: it is an index function (``Layout``) or, where it is
more than one (padding, tuples), a view of the code generator (``codegen.views``); those are
declared with ``view`` (and ``moves_only``, a layout primitive for the rules).
"""

from __future__ import annotations

import numpy as np

from .. import values as V
from ..errors import EvaluationError
from ..expr import Apply, BinOp, Lambda, Lit, Prim, Var
from ..primitive import ALGORITHMIC, SIZE, SIZES, VALUE, Layout, Primitive, ViewForm, define
from ..sizes import Size
from ..types import INT, ArrayType, TupleType
from .algorithmic import array_arg, pad_type


def _length(t) -> int:
    return int(t.size.value)


# --- head, tail, take, drop (Lift's Head/Tail; RISE's take/drop) ------------------------------

def _shorter(what: str, new_length):
    def infer(chk, node, args, env, path):
        a = array_arg(chk, args[0], path, node.name)
        n = new_length(chk, node, a.size)
        if n.is_constant and n.value <= 0:
            chk.fail(path, f"{what}: the array of {a.size} elements leaves none")
        if a.size.is_constant and n.is_constant and n.value > a.size.value:
            chk.fail(path, f"{what}: {n} elements from an array of {a.size}")
        return ArrayType(a.elem, n)
    return infer


def _from(first):
    """Reading element i of the result reads element first + i of the input."""
    def read(node, t, calls):
        k = first(node, t)
        return lambda i, *rest: (i + k, *rest)
    return read


def _picked(first, count):
    def run(ev, node, args):
        n = V.length(args[0], ev.depth)
        start = first(ev, node, n)
        return V.gather(args[0], ev.depth, np.arange(start, start + count(ev, node, n)))
    return run


define(Primitive(
    "head", ALGORITHMIC, "[A]_N -> [A]_1", "Lift (Head)", "The first element, as an array of one.",
    _shorter("head", lambda chk, node, n: Size.const(1)),
    _picked(lambda ev, node, n: 0, lambda ev, node, n: 1), aliases=("Head",),
    layout=Layout(read=_from(lambda node, t: 0))))
define(Primitive(
    "tail", ALGORITHMIC, "[A]_N -> [A]_{N-1}", "Lift (Tail)", "All elements but the first.",
    _shorter("tail", lambda chk, node, n: n - 1),
    _picked(lambda ev, node, n: 1, lambda ev, node, n: n - 1), aliases=("Tail",),
    layout=Layout(read=_from(lambda node, t: 1))))
define(Primitive(
    "take", ALGORITHMIC, "(n : size) -> [A]_{n+M} -> [A]_n", "RISE take",
    "The first n elements.", _shorter("take", lambda chk, node, n: chk.size(node.args[0])),
    _picked(lambda ev, node, n: 0, lambda ev, node, n: ev.size(node.args[0])),
    params=(SIZE(),), aliases=("Take",), layout=Layout(read=_from(lambda node, t: 0))))
define(Primitive(
    "drop", ALGORITHMIC, "(n : size) -> [A]_{n+M} -> [A]_M", "RISE drop",
    "All elements after the first n.",
    _shorter("drop", lambda chk, node, n: n - chk.size(node.args[0])),
    _picked(lambda ev, node, n: ev.size(node.args[0]),
            lambda ev, node, n: n - ev.size(node.args[0])),
    params=(SIZE(),), aliases=("Drop",),
    layout=Layout(read=_from(lambda node, t: int(node.args[0])))))


# --- boundary handling: Lift's Pad.Boundary.Wrap and Mirror -----------------------------------

def _pad_reindexed_type(chk, node, args, env, path):
    a = array_arg(chk, args[0], path, node.name)
    left, right = chk.size(node.args[0]), chk.size(node.args[1])
    return ArrayType(a.elem, a.size + left + right)


def wrap_index(i: int | np.ndarray, n: int):
    """Lift's Wrap boundary: index i of the (unpadded) array taken modulo its length."""
    return (i % n + n) % n


def mirror_index(i, n: int):
    """Lift's Mirror boundary: indices reflected at both ends (-1 is 0, n is n - 1)."""
    j = np.where(i < 0, -1 - i, i) % (2 * n)
    return np.where(j >= n, 2 * n - 1 - j, j)


def _reindexed_semantics(reindex):
    def run(ev, node, args):
        left, right = ev.size(node.args[0]), ev.size(node.args[1])
        n = V.length(args[0], ev.depth)
        return V.gather(args[0], ev.depth, reindex(np.arange(-left, n + right), n))
    return run


def _int(value: int) -> Lit:
    return Lit(int(value))


def wrap_function(left: int, n: int) -> Lambda:
    """The index function of ``padWrap`` in the scalar language (compiled into the kernel)."""
    j = BinOp("-", Var("i"), _int(left))
    return Lambda(("i",), BinOp("%", BinOp("+", BinOp("%", j, _int(n)), _int(n)), _int(n)))


def mirror_function(left: int, n: int) -> Lambda:
    j = BinOp("-", Var("i"), _int(left))
    reflected = Prim("select")
    inside = BinOp("%", Apply(reflected, (BinOp("<", j, _int(0)), BinOp("-", _int(-1), j), j)),
                     _int(2 * n))
    return Lambda(("i",), Apply(reflected, (BinOp(">=", inside, _int(n)),
                                            BinOp("-", _int(2 * n - 1), inside), inside)))


def _reindexed_read(function):
    def read(node, t, calls):
        left, n = int(node.args[0]), _length(t)
        f = function(left, n)
        return lambda i, *rest: (calls.function(f, i, extent=n), *rest)
    return read


define(Primitive(
    "padWrap", ALGORITHMIC, "(l r : size) -> [A]_N -> [A]_{l+N+r}", "Lift stencils (Wrap)",
    "Pad by wrapping around: element -1 is the last one.", _pad_reindexed_type,
    _reindexed_semantics(wrap_index), params=(SIZE("l"), SIZE("r")), aliases=("PadWrap",),
    layout=Layout(read=_reindexed_read(wrap_function))))
define(Primitive(
    "padMirror", ALGORITHMIC, "(l r : size) -> [A]_N -> [A]_{l+N+r}", "Lift stencils (Mirror)",
    "Pad by mirroring at the ends: element -1 is element 0.", _pad_reindexed_type,
    _reindexed_semantics(mirror_index), params=(SIZE("l"), SIZE("r")),
    aliases=("PadMirror",), layout=Layout(read=_reindexed_read(mirror_function))))


# --- SkelCL's two-dimensional stencils: slide2D and pad2D ---------------------------------------

def slide2d_type(chk, node, args, env, path):
    outer = array_arg(chk, args[0], path, "slide2D")
    inner = array_arg(chk, outer.elem, path, "slide2D (rows)")
    size, step = chk.size(node.args[0]), chk.size(node.args[1])
    out = []
    for n, what in ((outer.size, "rows"), (inner.size, "columns")):
        span = n - size
        chk.require_divides(span, step, path, f"slide2D {size} {step} ({what})")
        out.append(span / step + 1)
    window = ArrayType(ArrayType(inner.elem, size), size)
    return ArrayType(ArrayType(window, out[1]), out[0])


def slide2d_semantics(ev, node, args):
    size, step = ev.size(node.args[0]), ev.size(node.args[1])
    d = ev.depth
    rows = V.windows(args[0], d + 1, size, step)  # [N][M'][size]
    both = V.windows(rows, d, size, step)  # [N'][size][M'][size]
    return V.swap(both, d + 1)  # [N'][M'][size][size]


def _slide2d_read(node, t, calls):
    step = int(node.args[1])
    return lambda i, j, a, b, *rest: (i * step + a, j * step + b, *rest)


define(Primitive(
    "slide2D", ALGORITHMIC,
    "(size step : size) -> [[A]_M]_N -> [[[[A]_size]_size]_{(M-size)/step+1}]_{(N-size)/step+1}",
    "SkelCL stencil, Lift Slide2D", "Overlapping size×size neighbourhoods, step apart.",
    slide2d_type, slide2d_semantics, params=(SIZE("size"), SIZE("step")), aliases=("Slide2D",),
    layout=Layout(read=_slide2d_read)))


def pad2d_type(chk, node, args, env, path):
    outer = array_arg(chk, args[0], path, "pad2D")
    row = pad_type(chk, Prim("pad", node.args), [outer.elem], env, path)
    return ArrayType(row, outer.size + chk.size(node.args[0]) + chk.size(node.args[1]))


def pad2d_semantics(ev, node, args):
    left, right = ev.size(node.args[0]), ev.size(node.args[1])
    v = np.asarray(ev.value(node.args[2]))
    d = ev.depth
    if v.ndim:
        raise EvaluationError("pad2D pads with one value (SkelCL's out-of-bound value): it "
                              "may not differ between the elements of enclosing maps")

    def pad(leaf):
        widths = [(0, 0)] * leaf.ndim
        widths[d] = widths[d + 1] = (left, right)
        return np.pad(leaf, widths, constant_values=v)

    return V.transform(args[0], pad)


define(Primitive(
    "pad2D", ALGORITHMIC, "(l r : size) -> A -> [[A]_M]_N -> [[A]_{l+M+r}]_{l+N+r}",
    "SkelCL stencil (out-of-bound value), Lift Pad2D",
    "Surround a matrix with l rows and columns of a value before, r after.", pad2d_type,
    pad2d_semantics, params=(SIZE("l"), SIZE("r"), VALUE("v")), aliases=("Pad2D",),
    view=ViewForm.PAD_2D, moves_only=True))


# --- P2CL: the element index, gather and scatter by offsets ------------------------------------

def enumerate_type(chk, node, args, env, path):
    a = array_arg(chk, args[0], path, "enumerate")
    return ArrayType(TupleType((INT, a.elem)), a.size)


def enumerate_semantics(ev, node, args):
    n = V.length(args[0], ev.depth)
    index = np.arange(n, dtype=np.int32).reshape((1,) * ev.depth + (n,))
    return V.Zipped((index, args[0]))


define(Primitive(
    "enumerate", ALGORITHMIC, "[A]_N -> [(int, A)]_N", "P2CL map index (Sect. 6.2)",
    "Pair every element with its index (the `index` input of P2CL's functions).",
    enumerate_type, enumerate_semantics, aliases=("Enumerate",), view=ViewForm.ENUMERATE,
    moves_only=True))


def _offsets(chk, node, path) -> tuple[Size, ...]:
    offsets = tuple(chk.size(o) for o in node.args[0])
    if len(offsets) < 2:
        chk.fail(path, f"{node.name} takes two or more offsets, as in (0, m)")
    return offsets


def gather_offsets_type(chk, node, args, env, path):
    a = array_arg(chk, args[0], path, "gatherOffsets")
    offsets = _offsets(chk, node, path)
    k = len(offsets)
    chk.require_divides(a.size, Size.const(k), path, f"gatherOffsets with {k} offsets")
    m = a.size / k
    for o in offsets:
        last = o + m
        if last.is_constant and a.size.is_constant and last.value > a.size.value:
            chk.fail(path, f"gatherOffsets: offset {o} reads past the {a.size} elements "
                           f"(output i reads input i + {o}, for i < {m})")
    return ArrayType(TupleType((a.elem,) * k), m)


def gather_offsets_semantics(ev, node, args):
    n = V.length(args[0], ev.depth)
    offsets = [ev.size(o) for o in node.args[0]]
    m = n // len(offsets)
    for o in offsets:
        if o + m > n:
            raise EvaluationError(f"gatherOffsets: offset {o} reads past the {n} elements")
    return V.Zipped(tuple(V.gather(args[0], ev.depth, np.arange(m) + o) for o in offsets))


define(Primitive(
    "gatherOffsets", ALGORITHMIC, "(o : sizes) -> [A]_{k·m} -> [(A, …, A)]_m",
    "P2CL gather (Eq. 4.3)",
    "Output i is the tuple of the input elements i + o_0, …, i + o_(k-1).",
    gather_offsets_type, gather_offsets_semantics, params=(SIZES("offsets"),),
    aliases=("GatherOffsets", "gather-offsets"), view=ViewForm.GATHER_OFFSETS, moves_only=True))


def scatter_offsets_type(chk, node, args, env, path):
    a = array_arg(chk, args[0], path, "scatterOffsets")
    offsets = _offsets(chk, node, path)
    k = len(offsets)
    if not (isinstance(a.elem, TupleType) and len(a.elem.items) == k
            and all(item == a.elem.items[0] for item in a.elem.items)):
        chk.fail(path, f"scatterOffsets with {k} offsets expects {k}-tuples of one type, "
                       f"found {a.elem}")
    return ArrayType(a.elem.items[0], a.size * k)


def scatter_positions(offsets: list[int], m: int) -> np.ndarray:
    """For each output position, the position in the tuples' components laid end to end
    (component j of tuple i is j·m + i); refused unless every position is written once."""
    k = len(offsets)
    source = np.full(k * m, -1, dtype=np.int64)
    for j, o in enumerate(offsets):
        targets = np.arange(m) + o
        if targets.max() >= k * m or (source[targets] != -1).any():
            raise EvaluationError(f"scatterOffsets {tuple(offsets)}: the offsets do not "
                                  f"place the {k}×{m} elements on {k * m} distinct positions")
        source[targets] = j * m + np.arange(m)
    return source


def scatter_offsets_semantics(ev, node, args):
    value = args[0]
    m = V.length(value, ev.depth)
    offsets = [ev.size(o) for o in node.args[0]]
    parts = value.parts if isinstance(value, V.Zipped) else value
    laid = V.concat(list(parts), ev.depth)
    return V.gather(laid, ev.depth, scatter_positions(offsets, m))


define(Primitive(
    "scatterOffsets", ALGORITHMIC, "(o : sizes) -> [(A, …, A)]_m -> [A]_{k·m}",
    "P2CL scatter (Sect. 4.1.3)",
    "Component j of input i goes to output i + o_j (the inverse of gatherOffsets).",
    scatter_offsets_type, scatter_offsets_semantics, params=(SIZES("offsets"),),
    aliases=("ScatterOffsets", "scatter-offsets"), view=ViewForm.SCATTER_OFFSETS,
    moves_only=True))


# --- Futhark's rearrange ---------------------------------------------------------------------

def permutation(chk, node, path) -> tuple[int, ...]:
    perm = node.args[0]
    if not all(p.is_integer_constant for p in perm) or \
            sorted(int(p) for p in perm) != list(range(len(perm))) or len(perm) < 2:
        chk.fail(path, f"rearrange {tuple(str(p) for p in perm)}: a permutation of 0..n-1 "
                       f"(n >= 2) is needed")
    return tuple(int(p) for p in perm)


def rearrange_type(chk, node, args, env, path):
    perm = permutation(chk, node, path)
    sizes = []
    t = args[0]
    for _ in perm:
        if not isinstance(t, ArrayType):
            chk.fail(path, f"rearrange of {len(perm)} dimensions expects as many levels of "
                           f"arrays, found {args[0]}")
        sizes.append(t.size)
        t = t.elem
    for k in reversed(perm):
        t = ArrayType(t, sizes[k])
    return t


def rearrange_semantics(ev, node, args):
    perm = [int(p) for p in node.args[0]]
    d = ev.depth

    def move(leaf):
        axes = list(range(leaf.ndim))
        axes[d:d + len(perm)] = [d + p for p in perm]
        return np.transpose(leaf, axes)

    return V.transform(args[0], move)


def _rearrange_read(node, t, calls):
    perm = [int(p) for p in node.args[0]]

    def read(*idx):
        source = [None] * len(perm)
        for k, p in enumerate(perm):  # result dimension k is input dimension p
            source[p] = idx[k]
        return (*source, *idx[len(perm):])
    return read


def _rearrange_write(node, t, calls):
    perm = [int(p) for p in node.args[0]]
    return lambda *idx: (*(idx[p] for p in perm), *idx[len(perm):])


define(Primitive(
    "rearrange", ALGORITHMIC, "(p : sizes) -> array of rank n -> its dimensions permuted",
    "Futhark G6", "Dimension k of the result is dimension p_k of the input; "
    "rearrange (1, 0) is transpose.", rearrange_type, rearrange_semantics,
    params=(SIZES("p"),), aliases=("Rearrange",),
    layout=Layout(_rearrange_read, _rearrange_write)))

"""Views: the data-layout primitives as index functions (ICFP 2015 Sect. 3.2; PACT).

``split``, ``join``, ``reorderStride``, ``transpose``, ``slide``, ``gather``/``scatter``,
``zip`` and ``get`` generate no code. Each wraps the view of its input in a view that
rewrites an access (one index per array level, outermost first) into an access of the
input; the innermost view is a buffer, which turns the access into a flat offset. The kernel
reads ``buffer[offset]`` with the offset simplified by ``arith``.

The index functions of most layout primitives are declared with the primitive
(``primitives.Layout``): ``read`` for reading through it (``view_through``), ``write`` for a
computation whose result is written through it (``view_before``: writing element [i, j]
before ``join`` writes [i·n + j] after it). Here are the views that are more than an index
function: vectors (``splitVec``/``joinVec``), padding, tuples, replication and prefixes; a
layout primitive declares which of them is its view (``primitives.ViewForm``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from ..expr import BinOp, Compose, Expr, Lambda, Lit, Prim, UnOp, Var
from ..layout import is_layout, mapped_layout, rezipped_arity
from ..primitives import Kernel
from ..primitives import ViewForm as Form
from ..sizes import Size
from ..typecheck import annotate
from ..types import ArrayType, ScalarType, TupleType, Type, VectorType
from . import CodegenError, ir
from .arith import Index, Opaque


class View:
    def access(self, idx: list[Index]):
        raise NotImplementedError


@dataclass(frozen=True)
class Location:
    buffer: str
    offset: Index

    def __str__(self) -> str:
        return f"{self.buffer}[{ir.show_index(self.offset)}]"


@dataclass(frozen=True)
class VecLocation:
    """``width`` consecutive elements read or written as one SIMD vector."""

    buffer: str
    offset: Index
    width: int


@dataclass(frozen=True)
class Padded:
    """A read of a padded array: the padding value where ``outside`` holds."""

    outside: ir.Value
    value: ir.Value
    inner: Location


def read(loc) -> ir.Value:
    """The value at a location (a scalar or vector load, a padded read, or the value
    itself for a replicated scalar)."""
    if isinstance(loc, Location):
        return ir.Load(loc.buffer, loc.offset)
    if isinstance(loc, VecLocation):
        return ir.Load(loc.buffer, loc.offset, loc.width)
    if isinstance(loc, Padded):
        return ir.Select(loc.outside, loc.value, read(loc.inner))
    if isinstance(loc, Lanes):
        return lanes_value(loc)
    if isinstance(loc, StoredLanes):
        vector = VectorType(ScalarType(loc.scalar), Size.const(loc.n))
        return ir.MakeTuple(TupleType((vector,) * loc.k), tuple(
            ir.Load(loc.buffer, loc.offset + c * loc.n, loc.n) for c in range(loc.k)))
    if isinstance(loc, ir.Value):
        return loc
    raise CodegenError(f"cannot read {loc!r} as one value")


def lanes_value(loc: Lanes) -> ir.Value:
    """The struct of the component vectors of the elements at ``loc``."""
    n, scalar = len(loc.offsets), loc.scalar
    vector = VectorType(ScalarType(scalar), Size.const(n))
    t = TupleType((vector,) * loc.k)
    return ir.MakeTuple(t, tuple(
        ir.Call(f"({scalar}{n})", tuple(ir.Load(loc.buffer, offset + c)
                                        for offset in loc.offsets))
        for c in range(loc.k)))


@dataclass(frozen=True)
class BufferView(View):
    """A dense row-major buffer of the given shape (outermost first)."""

    buffer: str
    shape: tuple[int, ...]

    def access(self, idx):
        if len(idx) != len(self.shape):
            raise CodegenError(f"{self.buffer} has {len(self.shape)} levels, accessed with "
                               f"{len(idx)} indices")
        offset = Index.of(0)
        for i, n in zip(idx, self.shape):
            offset = offset * n + i
        return Location(self.buffer, offset)


@dataclass(frozen=True)
class IndexMapView(View):
    """Element ``idx`` is element ``fn(*idx)`` of the inner view: a layout primitive's
    declared index function (``primitives.Layout``)."""

    fn: Callable
    inner: View
    name: str = ""  # the primitive, for messages

    def access(self, idx):
        return self.inner.access(list(self.fn(*idx)))


@dataclass(frozen=True)
class SplitVecView(View):
    """``splitVec n`` on the input side (vload) and ``joinVec`` on the output side
    (vstore): vector i covers elements i·n … i·n + n - 1, which must be contiguous."""

    n: int
    inner: View

    def access(self, idx):
        i, *rest = idx
        first = self.inner.access([i * self.n, *rest])
        second = self.inner.access([i * self.n + 1, *rest])
        if not isinstance(first, Location) or second.offset - first.offset != Index.of(1):
            raise CodegenError("the elements of a vector are not contiguous in memory here "
                               "(vectorise before reordering)")
        return VecLocation(first.buffer, first.offset, self.n)


@dataclass(frozen=True)
class Lanes:
    """n float2/3/4 elements (each a vector of k consecutive scalars) as k vectors of n
    lanes, one per component: read, a gather of each component's scalars (``(float8)(
    p[0], p[4], …)``); written, each element's components put back together
    (structure of arrays in registers, the array of vectors in memory)."""

    buffer: str
    offsets: tuple[Index, ...]  # of each element's first component
    k: int  # components an element
    scalar: str = "float"


@dataclass(frozen=True)
class LanesOfVectorsView(View):
    """``splitVec n`` of an array of float2/3/4 (``[<float4>_n]``): vector i holds elements
    i·n … i·n + n - 1, each a vector of consecutive scalars (a view: nothing is copied)."""

    n: int
    inner: View
    scalar: str = "float"

    def access(self, idx):
        i, *rest = idx
        elements = [self.inner.access([i * self.n + lane, *rest]) for lane in range(self.n)]
        if not all(isinstance(e, VecLocation) for e in elements):
            raise CodegenError("float4s in lanes are read from float4s stored as consecutive "
                               "scalars only")
        return Lanes(elements[0].buffer, tuple(e.offset for e in elements),
                     elements[0].width, self.scalar)


@dataclass(frozen=True)
class StoredLanes:
    """n float2/3/4 in lanes where the kernel keeps them (a private or temporary array):
    the k vectors of their components, one after the other from ``offset``."""

    buffer: str
    offset: Index
    k: int
    n: int
    scalar: str = "float"


@dataclass(frozen=True)
class StoredLanesView(View):
    """An array of float4s in lanes (``[<float4>_n]``) in a buffer of its own: element i is
    the k vectors of n lanes at (i·k + c)·n."""

    k: int
    n: int
    inner: BufferView
    scalar: str = "float"

    def access(self, idx):
        i, *rest = idx
        first = self.inner.access([i * self.k * self.n, *rest])
        return StoredLanes(first.buffer, first.offset, self.k, self.n, self.scalar)


@dataclass(frozen=True)
class InnerVecView(View):
    """Nested arrays whose innermost elements are vectors of n, stored as consecutive
    scalars in a buffer whose last level is the lanes: element [i, …, k] is the vector of
    scalars [i, …, k, 0 … n - 1]."""

    n: int
    inner: View

    def access(self, idx):
        first = self.inner.access([*idx, 0])  # the inner view's last level is the lanes
        return VecLocation(first.buffer, first.offset, self.n)


@dataclass(frozen=True)
class LanesView(View):
    """``joinVec`` read through any view of vectors stored as consecutive scalars: scalar k
    is lane k % n of vector k / n."""

    n: int
    inner: View

    def access(self, idx):
        k, *rest = idx
        vector = self.inner.access([k // self.n, *rest])
        if not isinstance(vector, VecLocation):
            raise CodegenError("joinVec can only read vectors stored as consecutive scalars")
        return Location(vector.buffer, vector.offset + k % self.n)


@dataclass(frozen=True)
class ZipView(View):
    parts: tuple[View, ...]

    def access(self, idx):
        return tuple(p.access(idx) for p in self.parts)


@dataclass(frozen=True)
class GetView(View):
    k: int
    inner: View

    def access(self, idx):
        return self.inner.access(idx)[self.k]


@dataclass(frozen=True)
class ReplicateView(View):
    """``replicate n v``: every element is v (a scalar IR value, or the view of an array
    value)."""

    value: object

    def access(self, idx):
        _, *rest = idx
        if isinstance(self.value, View):
            return self.value.access(rest)
        return self.value


@dataclass(frozen=True)
class PadView(View):
    """``pad l r v``: element i is v for i < l or i >= l + n, else element i - l."""

    left: int
    n: int
    value: ir.Value
    inner: View

    def access(self, idx):
        i, *rest = idx
        inside = self.inner.access([i - self.left, *rest])
        if not isinstance(inside, Location | Padded):  # a padded row of pad2D is Padded
            raise CodegenError("pad of an array of tuples or vectors is not generated")
        at = ir.IndexValue(i)
        outside = ir.Binary("||", ir.Binary("<", at, ir.Literal(str(self.left))),
                            ir.Binary(">=", at, ir.Literal(str(self.left + self.n))))
        return Padded(outside, self.value, inside)


@dataclass(frozen=True)
class MapView(View):
    """``map f`` where f only rearranges data: element [i, …] is element […] of f applied to
    element i of the inner view (``build`` makes f's view from a view of its input; on the
    output side, the view its input is written through from a view of its result)."""

    build: Callable
    inner: View

    def access(self, idx):
        i, *rest = idx
        return self.build(Prefix((i,), self.inner)).access(rest)


@dataclass(frozen=True)
class IndexView(View):
    """The index of each element (``enumerate``'s first component): an int computed from
    the loop indices, stored nowhere."""

    def access(self, idx):
        return ir.IndexValue(idx[0])


@dataclass(frozen=True)
class Prefix(View):
    """An element of an array view: the first indices fixed (``xs[i]`` of a nested array)."""

    fixed: tuple
    inner: View

    def access(self, idx):
        return self.inner.access([*self.fixed, *idx])


def project(view: View, k: int) -> View:
    """The view of component k of an array of tuples (a ``zip``, possibly seen through
    layout primitives): the same view with component k chosen at the zip."""
    if isinstance(view, ZipView):
        return view.parts[k]
    if isinstance(view, IndexMapView | Prefix):
        return replace(view, inner=project(view.inner, k))
    if isinstance(view, MapView):  # a map of a layout that makes tuples (λt. zip t.0 t.1)
        return MapView(lambda element, build=view.build: project(build(element), k),
                       view.inner)
    return GetView(k, view)  # tuples made by a view (enumerate, gatherOffsets)


def buffers_of(view) -> set[str]:
    """The names of the buffers a view reads or writes."""
    if isinstance(view, BufferView):
        return {view.buffer}
    if isinstance(view, ZipView):
        return set().union(*(buffers_of(p) for p in view.parts))
    inner = getattr(view, "inner", None) if not isinstance(view, ReplicateView) else view.value
    return buffers_of(inner) if isinstance(inner, View) else set()


def reshaped(view: View, shape: tuple[int, ...], keep: int = 0) -> View:
    """The same storage seen with another shape (the first ``keep`` levels unchanged): the
    two buffers of ``iterate`` hold arrays of a different length at each iteration."""
    if isinstance(view, BufferView):
        return BufferView(view.buffer, view.shape[:keep] + tuple(shape))
    if isinstance(view, ZipView):
        return ZipView(tuple(reshaped(p, shape, keep) for p in view.parts))
    if isinstance(view, Prefix):
        return Prefix(view.fixed, reshaped(view.inner, shape, keep + len(view.fixed)))
    if isinstance(view, SplitVecView | InnerVecView) and isinstance(view.inner, BufferView):
        # vectors stored as scalars: the same scalars as arrays of vectors of another shape
        inner = view.inner
        if len(shape) == 1 and not keep:
            return SplitVecView(view.n, BufferView(inner.buffer, (shape[0] * view.n,)))
        outer = inner.shape[:keep] if isinstance(view, InnerVecView) else ()
        return InnerVecView(view.n, BufferView(inner.buffer, outer + tuple(shape) + (view.n,)))
    raise CodegenError(f"cannot reshape {type(view).__name__}")


# --- layout primitives -----------------------------------------------------------------------

class Calls:
    """Indices computed at run time, for the index functions of layout primitives: a
    function of the program (``compile(f, arity)`` declares it and gives its name), or an
    OpenCL built-in."""

    def __init__(self, compile: Callable | None = None):
        self._compile = compile

    def function(self, f: Expr, *indices, extent: int | None = None) -> Index:
        inline = index_arithmetic(f, indices)
        if inline is not None:
            return inline
        if self._compile is None:
            raise CodegenError("an index function needs a program to be compiled into")
        name = self._compile(f, len(indices))
        return self.builtin(name, *indices, extent=extent)

    def values(self, f: Expr, indices: list, extent: int):
        """The index function ``f`` evaluated on concrete indices (NumPy arrays): for the
        checks a layout makes at code generation (is ``f`` its own inverse?)."""
        from ..semantics import Evaluator

        return Evaluator({}).index_function(f, indices, extent)

    def refuse(self, reason: str):
        """Code generation cannot go through this layout: ``reason`` says why."""
        raise CodegenError(reason)

    def builtin(self, name: str, *indices, extent: int | None = None) -> Index:
        args = tuple(ir.IndexValue(Index.of(i)) if not isinstance(i, int)
                     else ir.Literal(str(i)) for i in indices)
        return Index.of(Opaque(ir.Call(name, args), extent))


def index_arithmetic(f: Expr, indices) -> Index | None:
    """The index function ``f`` applied to ``indices`` as index arithmetic, where its body is
    made of its parameters, integer literals, ``+``, ``-``, ``*``, and ``/`` or ``%`` by a
    positive literal of a value never negative (C's division and the arithmetic's floor
    division then agree): ``λi n. i + 1 - n * (i / (n - 1))`` at n = 512 becomes
    ``i + 1 - 512·(i / 511)``, which the arithmetic simplifies where the range of ``i`` is
    known (``peel``). Else None: the function is compiled and called."""
    if not isinstance(f, Lambda) or len(f.params) != len(indices) or \
            not all(isinstance(p, str) for p in f.params):
        return None
    return _arithmetic(f.body, {p: Index.of(i) for p, i in zip(f.params, indices)})


def _arithmetic(e: Expr, env: dict[str, Index]) -> Index | None:
    if isinstance(e, Var):
        return env.get(e.name)
    if isinstance(e, Lit):
        return Index.of(e.value) if type(e.value) is int else None
    if isinstance(e, UnOp) and e.op == "-":
        operand = _arithmetic(e.operand, env)
        return None if operand is None else -operand
    if not isinstance(e, BinOp) or e.op not in ("+", "-", "*", "/", "%"):
        return None
    left, right = _arithmetic(e.left, env), _arithmetic(e.right, env)
    if left is None or right is None:
        return None
    if e.op in ("+", "-", "*"):
        return left + right if e.op == "+" else left - right if e.op == "-" else left * right
    d = right.constant
    if d is None or d <= 0 or left.bounds()[0] < 0:
        return None
    return left // d if e.op == "/" else left % d


def _length(t: Type) -> int:
    return int(t.size.value)


def view_through(node: Prim, input_type: Type, inner: View, calls: Calls | None = None,
                 constant: Callable | None = None) -> View:
    """The view of ``node``'s output, given the view of its input (of ``input_type``).
    ``constant(e)`` gives the IR value of a constant (pad's value)."""
    name, form = node.name, node.decl.view
    layout = node.decl.layout
    if layout is not None:
        if layout.read is None:
            raise CodegenError(f"{name} generates code only where its result is written (its "
                               f"index function has no inverse to read through)")
        return IndexMapView(layout.read(node, input_type, calls or Calls()), inner, name)
    if form is Form.PAD:
        if constant is None:
            raise CodegenError("pad needs its padding value as a constant")
        return PadView(int(node.args[0]), _length(input_type), constant(node.args[2]), inner)
    if form is Form.PAD_2D:
        if constant is None:
            raise CodegenError("pad2D needs its padding value as a constant")
        left, value = int(node.args[0]), constant(node.args[2])
        columns = _length(input_type.elem)
        rows = MapView(lambda row: PadView(left, columns, value, row), inner)
        return PadView(left, _length(input_type), value, rows)
    if layout is None and (f := mapped_layout(node)) is not None:  # a map of any level
        return MapView(function_view(f, input_type.elem, calls, constant), inner)
    if node.decl.kernel is Kernel.LOOP and is_layout(node):
        for f, t in loop_stages(node, input_type):
            inner = function_view(f, t, calls, constant)(inner)
        return inner
    if form is Form.ENUMERATE:
        return ZipView((IndexView(), inner))
    if form is Form.GATHER_OFFSETS:
        return ZipView(tuple(IndexMapView(_shifted(int(o)), inner, name)
                             for o in node.args[0]))
    if form is Form.SPLIT_VEC:
        n = int(node.args[0])
        if isinstance(input_type.elem, TupleType):  # zipped arrays: vectors of each
            return ZipView(tuple(_split_vec(n, item, project(inner, k))
                                 for k, item in enumerate(input_type.elem.items)))
        return _split_vec(n, input_type.elem, inner)
    if form is Form.JOIN_VEC:  # vectors stored as consecutive scalars: the scalars again
        if isinstance(inner, SplitVecView | LanesOfVectorsView):
            return inner.inner
        if isinstance(inner, ZipView) and all(isinstance(p, SplitVecView | LanesOfVectorsView)
                                              for p in inner.parts):
            return ZipView(tuple(p.inner for p in inner.parts))
        if isinstance(input_type.elem, TupleType):
            n = int(input_type.elem.items[0].size.value)
            return ZipView(tuple(LanesView(n, project(inner, k))
                                 for k in range(len(input_type.elem.items))))
        return LanesView(int(input_type.elem.size.value), inner)
    raise CodegenError(f"{name} is not a data-layout primitive")


def _split_vec(n: int, elem: Type, inner: View) -> View:
    """Vectors of n elements: of scalars (consecutive: vloadN), or of float2/3/4 (each
    component's lanes gathered)."""
    return LanesOfVectorsView(n, inner, elem.elem.name) if isinstance(elem, VectorType) \
        else SplitVecView(n, inner)


def view_before(node: Prim, input_type: Type, dest: View, calls: Calls | None = None) -> View:
    """The output view for the input of a layout primitive whose result goes to ``dest``."""
    name, form = node.name, node.decl.view
    layout = node.decl.layout
    if layout is not None and layout.write is not None:
        return IndexMapView(layout.write(node, input_type, calls or Calls()), dest, name)
    if form is Form.JOIN_VEC:
        if isinstance(input_type.elem, TupleType):
            n = int(input_type.elem.items[0].size.value)
            return ZipView(tuple(_split_vec(n, item.elem, project(dest, k))
                                 for k, item in enumerate(input_type.elem.items)))
        return _split_vec(int(input_type.elem.size.value), input_type.elem.elem, dest)
    if layout is None and (f := mapped_layout(node)) is not None:
        return MapView(function_view(f, input_type.elem, calls, output=True), dest)
    if node.decl.kernel is Kernel.LOOP and is_layout(node):
        for f, t in reversed(loop_stages(node, input_type)):
            dest = function_view(f, t, calls, output=True)(dest)
        return dest
    if form is Form.SCATTER_OFFSETS:
        return ZipView(tuple(IndexMapView(_shifted(int(o)), dest, name) for o in node.args[0]))
    raise CodegenError(f"{name} cannot be written through: add a copy (map id) after the "
                       f"computation, before the {name}")


def _shifted(offset: int) -> Callable:
    return lambda i, *rest: (i + offset, *rest)


def function_view(f: Expr, input_type: Type, calls: Calls | None = None,
                  constant: Callable | None = None, output: bool = False) -> Callable:
    """For a function that only rearranges data: the function from the view of its input
    to the view of its result; with ``output``, from the view its result is written to, to
    the view its input is written through."""
    n = rezipped_arity(f)
    if n is not None:  # λt. zip t.0 … t.(n-1): the tuple's arrays, element by element
        if output:
            raise CodegenError("a zip of a tuple's arrays cannot be written through: add a "
                               "copy (map id) after the computation, before it")
        return lambda view: ZipView(tuple(project(view, k) for k in range(n)))
    note = annotate(f, input_type)
    fns = list(f.fns) if isinstance(f, Compose) else [f]
    paths = [(i,) if isinstance(f, Compose) else () for i in range(len(fns))]
    steps = [(node, note.typings[path].args[0]) for node, path in zip(fns, paths)]
    for node, _ in steps:
        if not is_layout(node):
            raise CodegenError(f"{node} is not a data-layout primitive")

    def build(view: View) -> View:
        if output:
            for node, t in steps:
                view = view_before(node, t, view, calls)
        else:
            for node, t in reversed(steps):
                view = view_through(node, t, view, calls, constant)
        return view

    return build


def loop_stages(node: Prim, input_type: Type) -> list[tuple[Expr, Type]]:
    """Each stage's function of ``loop n f`` and the type it is applied to."""
    from ..primitives.skeletons import stage_function
    from ..typecheck import typecheck

    out = []
    t = input_type
    for k in range(int(node.args[0])):
        f = stage_function(node.args[1], k)
        out.append((f, t))
        t = typecheck(f, t)
    return out


def layout_view(expr: Expr, input_type: Type | str, buffer: str = "in",
                output: bool = False) -> View:
    """The view of a pipeline of layout primitives applied to a dense buffer: the view
    that reads its result (or, with ``output``, the view a computation writes through so
    that the buffer holds the pipeline's result)."""
    note = annotate(expr, input_type)
    fns = list(expr.fns) if isinstance(expr, Compose) else [expr]
    paths = [(i,) if isinstance(expr, Compose) else () for i in range(len(fns))]
    for node in fns:
        if not is_layout(node):
            raise CodegenError(f"{node} is not a data-layout primitive")
    if output:
        view: View = BufferView(buffer, _shape(note.result))
        for node, path in zip(fns, paths):
            view = view_before(node, note.typings[path].args[0], view)
        return view
    view = BufferView(buffer, _shape(note.typings[()].args[0]))
    for node, path in reversed(list(zip(fns, paths))):
        view = view_through(node, note.typings[path].args[0], view)
    return view


def _shape(t: Type) -> tuple[int, ...]:
    out = []
    while isinstance(t, ArrayType):
        out.append(_length(t))
        t = t.elem
    return tuple(out)

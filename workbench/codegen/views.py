"""Views: the data-layout primitives as index functions (ICFP 2015 Sect. 3.2; PACT).

``split``, ``join``, ``reorderStride``, ``transpose``, ``slide``, ``zip`` and ``get``
generate no code. Each wraps the view of its input in a view that rewrites an access (one
index per array level, outermost first) into an access of the input; the innermost view is
a buffer, which turns the access into a flat offset. The generated kernel reads
``buffer[offset]`` with the offset simplified by ``arith``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..expr import Compose, Expr, Prim
from ..typecheck import annotate
from ..types import ArrayType, Type
from . import CodegenError
from .arith import Index, to_c, var


class View:
    def access(self, idx: list[Index]):
        raise NotImplementedError


@dataclass(frozen=True)
class Location:
    buffer: str
    offset: Index

    def __str__(self) -> str:
        return f"{self.buffer}[{self.offset}]"


@dataclass(frozen=True)
class VecLocation:
    """``width`` consecutive elements read or written as one SIMD vector."""

    buffer: str
    offset: Index
    width: int

    def __str__(self) -> str:
        return f"vload{self.width}(0, {self.buffer} + {self.offset})"

    def store(self, value: str) -> str:
        return f"vstore{self.width}({value}, 0, {self.buffer} + {self.offset});"


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
class BufferView(View):
    """A dense row-major buffer of the given shape (outermost first)."""

    buffer: str
    shape: tuple[int, ...]

    def access(self, idx):
        if len(idx) != len(self.shape):
            raise ValueError(f"{self.buffer} has {len(self.shape)} levels, accessed with "
                             f"{len(idx)} indices")
        offset = Index.of(0)
        for i, n in zip(idx, self.shape):
            offset = offset * n + i
        return Location(self.buffer, offset)


@dataclass(frozen=True)
class SplitView(View):
    n: int
    inner: View

    def access(self, idx):
        i, j, *rest = idx
        return self.inner.access([i * self.n + j, *rest])


@dataclass(frozen=True)
class JoinView(View):
    n: int  # length of the joined chunks
    inner: View

    def access(self, idx):
        k, *rest = idx
        return self.inner.access([k // self.n, k % self.n, *rest])


@dataclass(frozen=True)
class ReorderStrideView(View):
    s: int
    length: int
    inner: View

    def access(self, idx):
        i, *rest = idx
        chunk = self.length // self.s  # ICFP: element i is read from i/I + s·(i%I)
        return self.inner.access([i // chunk + (i % chunk) * self.s, *rest])


@dataclass(frozen=True)
class TransposeView(View):
    inner: View

    def access(self, idx):
        i, j, *rest = idx
        return self.inner.access([j, i, *rest])


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
class IndexFnView(View):
    """Element i is element f(i) of the inner view: ``gather f`` on the input side, and
    ``scatter f`` on the output side (element i is written to place f(i)). ``call`` turns
    the C text of i into the C text of f(i)."""

    call: object  # Callable[[str], str]
    length: int
    inner: View

    def access(self, idx):
        i, *rest = idx
        return self.inner.access([var(f"{self.call(to_c(i))}", self.length), *rest])


@dataclass(frozen=True)
class ReplicateView(View):
    """``replicate n v``: every element is v (a value, or a view of an array value)."""

    value: object  # C text of a scalar, or the View of an array element

    def access(self, idx):
        _, *rest = idx
        if isinstance(self.value, View):
            return self.value.access(rest)
        return self.value


@dataclass(frozen=True)
class Padded:
    """A read of a padded array: the padding value outside the original elements."""

    outside: str
    value: str
    inner: object

    def __str__(self) -> str:
        return f"({self.outside} ? {self.value} : {self.inner})"


@dataclass(frozen=True)
class PadView(View):
    """``pad l r v``: element i is v for i < l or i >= l + n, else element i - l."""

    left: int
    n: int
    value: str
    inner: View

    def access(self, idx):
        i, *rest = idx
        text = to_c(i)
        inside = self.inner.access([i - self.left, *rest])
        if isinstance(inside, tuple):
            raise CodegenError("pad of an array of tuples is not generated")
        return Padded(f"({text} < {self.left} || {text} >= {self.left + self.n})", self.value,
                      inside)


@dataclass(frozen=True)
class ClampView(View):
    """``padClamp l r``: element i is element clamp(i - l, 0, n - 1)."""

    left: int
    n: int
    inner: View

    def access(self, idx):
        i, *rest = idx
        clamped = var(f"clamp({to_c(i)} - {self.left}, 0, {self.n - 1})", self.n)
        return self.inner.access([clamped, *rest])


def buffers_of(view) -> set[str]:
    """The names of the buffers a view reads or writes."""
    if isinstance(view, BufferView):
        return {view.buffer}
    if isinstance(view, ZipView):
        return set().union(*(buffers_of(p) for p in view.parts))
    inner = getattr(view, "inner", None) if not isinstance(view, ReplicateView) else view.value
    return buffers_of(inner) if isinstance(inner, View) else set()


LAYOUT = {"split", "join", "reorderStride", "transpose", "slide", "id", "reorder", "splitVec",
          "joinVec", "gather", "scatter", "pad", "padClamp"}


def _length(t: Type) -> int:
    assert isinstance(t, ArrayType)
    return int(t.size.value)


def view_through(node: Prim, input_type: Type, inner: View, index_fn=None) -> View:
    """The view of ``node``'s output, given the view of its input (of ``input_type``).
    ``index_fn(f)`` compiles the index function of gather/scatter (C text → C text);
    ``index_fn(e)`` with a value gives its C text (the padding value)."""
    name = node.name
    if name == "gather":
        return IndexFnView(_index_fn(node, input_type, index_fn), _length(input_type), inner)
    if name == "scatter":
        raise CodegenError("scatter generates code only where its result is written (the "
                           "index function has no inverse to read through)")
    if name == "pad":
        left = int(node.args[0].value)
        if index_fn is None:
            raise CodegenError("pad needs its padding value in C")
        return PadView(left, _length(input_type), index_fn(node.args[2]), inner)
    if name == "padClamp":
        return ClampView(int(node.args[0].value), _length(input_type), inner)
    if name == "split":
        return SplitView(int(node.args[0].value), inner)
    if name == "join":
        return JoinView(_length(input_type.elem), inner)
    if name == "reorderStride":
        return ReorderStrideView(int(node.args[0].value), _length(input_type), inner)
    if name == "transpose":
        return TransposeView(inner)
    if name == "slide":  # window i, element j is element i·step + j, as for split
        return SplitView(int(node.args[1].value), inner)
    if name in ("id", "reorder"):  # reorder: the identity is one valid order
        return inner
    if name == "splitVec":
        return SplitVecView(int(node.args[0].value), inner)
    if name == "joinVec":  # vectors stored as consecutive scalars: the scalars again
        if isinstance(inner, SplitVecView):
            return inner.inner
        raise CodegenError("joinVec can only read vectors stored as consecutive scalars")
    raise ValueError(f"{name} is not a data-layout primitive")


def _index_fn(node: Prim, input_type: Type, index_fn):
    if index_fn is None:
        raise CodegenError(f"{node.name} needs its index function compiled to C")
    return index_fn(node.args[0], _length(input_type))


def layout_view(expr: Expr, input_type: Type | str, buffer: str = "in") -> View:
    """The view of a pipeline of layout primitives applied to a dense input buffer."""
    note = annotate(expr, input_type)
    t = note.typings[()].args[0]
    shape = []
    while isinstance(t, ArrayType):
        shape.append(_length(t))
        t = t.elem
    view: View = BufferView(buffer, tuple(shape))
    fns = list(expr.fns) if isinstance(expr, Compose) else [expr]
    for i in range(len(fns) - 1, -1, -1):
        path = (i,) if isinstance(expr, Compose) else ()
        node = fns[i]
        if not (isinstance(node, Prim) and node.name in LAYOUT):
            raise ValueError(f"{node} is not a data-layout primitive")
        view = view_through(node, note.typings[path].args[0], view)
    return view


@dataclass(frozen=True)
class Prefix(View):
    """An element of an array view: the first indices fixed (``xs[i]`` of a nested array)."""

    fixed: tuple
    inner: View

    def access(self, idx):
        return self.inner.access([*self.fixed, *idx])


def reshaped(view: View, shape: tuple[int, ...], keep: int = 0) -> View:
    """The same storage seen with another shape (the first ``keep`` levels unchanged): the
    two buffers of ``iterate`` hold arrays of a different length at each iteration."""
    if isinstance(view, BufferView):
        return BufferView(view.buffer, view.shape[:keep] + tuple(shape))
    if isinstance(view, ZipView):
        return ZipView(tuple(reshaped(p, shape, keep) for p in view.parts))
    if isinstance(view, Prefix):
        return Prefix(view.fixed, reshaped(view.inner, shape, keep + len(view.fixed)))
    raise ValueError(f"cannot reshape {type(view).__name__}")


@dataclass(frozen=True)
class ReorderStrideInverseView(View):
    """Where element j of the array that ``reorderStride s`` reads lands (output views)."""

    s: int
    length: int
    inner: View

    def access(self, idx):
        j, *rest = idx
        chunk = self.length // self.s
        return self.inner.access([(j % self.s) * chunk + j // self.s, *rest])


def view_before(node: Prim, input_type: Type, dest: View, index_fn=None) -> View:
    """The output view for the input of a layout primitive whose result goes to ``dest``
    (writing element [i, j] before ``join`` writes [i·n + j] after it, and so on)."""
    name = node.name
    if name == "scatter":
        return IndexFnView(_index_fn(node, input_type, index_fn), _length(input_type), dest)
    if name == "join":
        return SplitView(_length(input_type.elem), dest)
    if name == "split":
        return JoinView(int(node.args[0].value), dest)
    if name == "transpose":
        return TransposeView(dest)
    if name == "reorderStride":
        return ReorderStrideInverseView(int(node.args[0].value), _length(input_type), dest)
    if name in ("id", "reorder"):
        return dest
    if name == "joinVec":
        return SplitVecView(int(input_type.elem.size.value), dest)
    raise ValueError(f"{name} cannot be inverted on the output side")

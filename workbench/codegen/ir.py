"""The kernel IR: a small imperative language between the expression and the OpenCL text.

Translation (``translate``) turns a fully low-level expression into this IR; the passes
(``barriers``, ``unroll``, ``launch``, ``written``, ``wide``, ``memory``, ``features``) read
and rewrite it as data; ``emit`` prints OpenCL C from it last. Nothing here is mutable:
a pass returns new nodes (``dataclasses.replace``), sharing what it left alone.

The shape follows the imperative half of DPIA (RISE's Shine): loops carry the level of
the thread hierarchy they run on (ICFP 2015 Fig. 5; PACT table 2), stores and loads go
through flat offsets that the views computed (``arith.Index``), allocations carry an
address space, barriers a memory scope.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from enum import StrEnum

from ..types import ArrayType, ScalarType, TupleType, Type, VectorType, dtype_of
from .arith import Index, Opaque, to_c

# --- values: scalar and vector expressions -------------------------------------------------


class Value:
    """A scalar, vector or struct expression."""

    __slots__ = ()


@dataclass(frozen=True)
class Literal(Value):
    text: str  # as OpenCL C writes it: ``0.0f``, ``3``, ``true``


@dataclass(frozen=True)
class Name(Value):
    """A variable: a function parameter, an accumulator, a struct computed once."""

    name: str


@dataclass(frozen=True)
class IndexValue(Value):
    """An integer computed from loop indices (an argument of an index function)."""

    index: Index


@dataclass(frozen=True)
class Load(Value):
    """``buffer[offset]``; with ``width`` > 1 a vector of consecutive elements (vloadN)."""

    buffer: str
    offset: Index
    width: int = 1


@dataclass(frozen=True)
class Call(Value):
    """A call of a function of the program or of an OpenCL built-in."""

    function: str
    args: tuple[Value, ...]


@dataclass(frozen=True)
class Binary(Value):
    op: str
    left: Value
    right: Value


@dataclass(frozen=True)
class Unary(Value):
    op: str
    operand: Value


@dataclass(frozen=True)
class Cast(Value):
    to: str  # a scalar type name
    value: Value


@dataclass(frozen=True)
class Field(Value):
    """Component ``index`` of a tuple (a struct field ``_0``, ``_1``, …); with ``lane``
    a component of a vector instead (``.x``, ``.s3``: a float4 given to every lane)."""

    value: Value
    index: int
    lane: str = ""


@dataclass(frozen=True)
class MakeTuple(Value):
    type: TupleType
    items: tuple[Value, ...]


@dataclass(frozen=True)
class Select(Value):
    condition: Value
    then: Value
    otherwise: Value


# --- storage -------------------------------------------------------------------------------

SPACES = ("global", "local", "private")


@dataclass(frozen=True)
class Buffer:
    """An allocation: a name, an address space, the array type it holds (its element a
    scalar, or a vector stored as consecutive scalars) and its role in the program."""

    name: str
    space: str  # "global", "local", "private"
    type: Type
    role: str  # "input", "output", "temporary"
    per_warp: bool = False  # local memory with one slice per warp, each read by its own warp

    @property
    def shape(self) -> tuple[int, ...]:
        out = []
        t = self.type
        while isinstance(t, ArrayType | VectorType):
            out.append(int(t.size.value))
            t = t.elem
        return tuple(out)

    @property
    def length(self) -> int:
        n = 1
        for extent in self.shape:
            n *= extent
        return n

    @property
    def scalar(self) -> ScalarType:
        t = self.type
        while isinstance(t, ArrayType | VectorType):
            t = t.elem
        if not isinstance(t, ScalarType):
            from . import CodegenError

            raise CodegenError(f"{self.role} {self.name}: arrays of {t} (one buffer per "
                               f"component) are not supported yet")
        return t

    @property
    def width(self) -> int:
        """Lanes of the vectors it holds (1: scalars)."""
        t = self.type
        while isinstance(t, ArrayType):
            t = t.elem
        return int(t.size.value) if isinstance(t, VectorType) else 1

    def scalar_dtype(self):
        return dtype_of(self.scalar)


# --- statements ----------------------------------------------------------------------------


class Stmt:
    __slots__ = ()


@dataclass(frozen=True)
class Declare(Stmt):
    """A private scalar, vector or struct variable (an accumulator, a struct computed once)."""

    name: str
    type: Type
    value: Value | None = None


@dataclass(frozen=True)
class Assign(Stmt):
    name: str
    value: Value


@dataclass(frozen=True)
class Store(Stmt):
    """``buffer[offset] = value``; with ``width`` > 1 a vector store (through a vector
    pointer or vstoreN: ``emit``). ``assembled``: the vector is built from lanes of others
    (a float4 of n float4s in lanes, scattered back), which is stored by vstoreN: Oclgrind
    reads such a vector stored through a pointer as uninitialised, though every lane is set
    and the values it writes are right."""

    buffer: str
    offset: Index
    value: Value
    width: int = 1
    assembled: bool = False


class LoopLevel(StrEnum):
    """The level a loop runs on: over work-items of the whole launch, over work-groups, over
    the work-items of a group, over warps of a group and the lanes of a warp, sequentially in
    one work-item, or sequentially and unrolled (``unroll`` turns those into straight
    code). A map's loop has its map level (``primitives.MapLevel``) of the same name."""

    GLOBAL = "global"
    WORKGROUP = "workgroup"
    LOCAL = "local"
    WARP = "warp"
    LANE = "lane"
    SEQ = "seq"
    UNROLLED = "unrolled"


LEVELS = tuple(LoopLevel)
PARALLEL = (LoopLevel.GLOBAL, LoopLevel.WORKGROUP, LoopLevel.LOCAL, LoopLevel.WARP,
            LoopLevel.LANE)
WARP = 32  # work-items per warp: NVIDIA's warp size; on other devices a grouping


@dataclass(frozen=True)
class Loop(Stmt):
    """``for index in [0, extent)`` on a level of the thread hierarchy (and a dimension of
    the NDRange). ``step`` is the stride of a parallel loop — the number of work-items,
    work-groups or warps launched — filled in once the launch is known (``launch``). A warp
    loop counts its rounds in ``counter``, the same for every work-item, so the barriers
    inside are reached uniformly. ``origin`` is the expression the loop came from."""

    index: str
    level: LoopLevel
    extent: int
    body: tuple[Stmt, ...]
    dim: int = 0
    step: int | None = None
    counter: str | None = None
    origin: str = ""
    wide: bool = False  # a 64-bit index (``wide``)
    path: tuple | None = None  # the map's path in the expression, where known
    disjoint: bool = False  # each iteration touches elements no other one does (scanLocal)

    def __post_init__(self):
        if self.level not in LEVELS:
            raise ValueError(f"unknown loop level {self.level!r}")
        object.__setattr__(self, "level", LoopLevel(self.level))

    @property
    def parallel(self) -> bool:
        return self.level in PARALLEL


@dataclass(frozen=True)
class Guard(Stmt):
    """Code that one work-item runs for its whole work-group (``scope`` "workgroup") or its
    warp (``scope`` "warp", the innermost enclosing warp loop): the sequential parts of a
    work-group's or warp's function (ICFP Sect. 5.2)."""

    scope: str
    body: tuple[Stmt, ...]


@dataclass(frozen=True)
class Barrier(Stmt):
    """A barrier with the memory fences of the spaces it orders: of the whole work-group,
    or (``scope`` "warp") only between the work-items of each warp, which a sub-group barrier
    does where the device has sub-groups of whole warps (``emit``)."""

    fences: tuple[str, ...] = ("local", "global")
    scope: str = "workgroup"


@dataclass(frozen=True)
class Block(Stmt):
    """A scope of its own (the copies of an unrolled loop body that declare variables)."""

    body: tuple[Stmt, ...]


@dataclass(frozen=True)
class Comment(Stmt):
    text: str


@dataclass(frozen=True)
class Allocate(Stmt):
    """A private array of one work-item (local arrays are declared by the kernel). With
    ``owners`` "workgroup" it is an array of the work-group of which each work-item holds
    the part its local maps access (``distribute`` sizes it)."""

    buffer: Buffer
    owners: str = ""


# --- kernels and programs ------------------------------------------------------------------


@dataclass(frozen=True)
class Launch:
    """The NDRange of a kernel: global size and work-group size per dimension (None: any),
    and the global buffers it is passed, in argument order."""

    kernel: str
    global_size: tuple[int, ...]
    local_size: tuple[int, ...] | None
    args: tuple[str, ...] = ()


@dataclass(frozen=True)
class Kernel:
    name: str
    params: tuple[Buffer, ...]  # global buffers, in argument order
    locals: tuple[Buffer, ...]
    body: tuple[Stmt, ...]
    origin: str = ""  # the expression, as a comment above the kernel
    path: tuple = ()  # the path of the computation it implements (its stage)
    node: str = ""  # that computation, printed


@dataclass(frozen=True)
class Function:
    """A scalar function of the program: ``result name(params) { return body; }``."""

    name: str
    result: Type
    params: tuple[tuple[Type, str], ...]
    body: Value


@dataclass(frozen=True)
class NativeFunction:
    """A user function given directly as OpenCL C (the escape hatch of ``UserFun``)."""

    name: str
    result: Type
    params: tuple[tuple[Type, str], ...]
    text: str  # its body


@dataclass(frozen=True)
class StructDecl:
    type: TupleType


Declaration = Function | NativeFunction | StructDecl


@dataclass(frozen=True)
class Module:
    """A whole program: its declarations, kernels in launch order and global buffers."""

    name: str
    declarations: tuple[Declaration, ...]
    kernels: tuple[Kernel, ...]
    buffers: tuple[Buffer, ...]
    inputs: tuple[tuple[Buffer, ...], ...] = ()  # the buffers of each input
    outputs: tuple[Buffer, ...] = ()  # one per tuple component of the result
    launches: tuple[Launch, ...] = ()
    notes: tuple[str, ...] = field(default=())


# --- traversal -----------------------------------------------------------------------------


def children(stmt: Stmt) -> tuple[Stmt, ...]:
    return getattr(stmt, "body", ()) if isinstance(stmt, Loop | Guard | Block) else ()


def statements(body: tuple[Stmt, ...], enclosing: tuple = ()
               ) -> Iterator[tuple[Stmt, tuple]]:
    """Every statement with the loops and guards around it (outermost first)."""
    for stmt in body:
        yield stmt, enclosing
        inner = children(stmt)
        if inner:
            yield from statements(inner, enclosing + (stmt,)
                                  if isinstance(stmt, Loop | Guard) else enclosing)


def value_parts(v: Value) -> tuple[Value, ...]:
    """The values a value is computed from (its direct operands)."""
    if isinstance(v, Call | MakeTuple):
        return v.args if isinstance(v, Call) else v.items
    if isinstance(v, Binary):
        return (v.left, v.right)
    if isinstance(v, Unary):
        return (v.operand,)
    if isinstance(v, Cast | Field):
        return (v.value,)
    if isinstance(v, Select):
        return (v.condition, v.then, v.otherwise)
    return ()


def indices_in(v: Value) -> tuple[Index, ...]:
    """The index expressions a value reads through (offsets and index arguments)."""
    if isinstance(v, Load):
        return (v.offset,)
    if isinstance(v, IndexValue):
        return (v.index,)
    return ()


def loads(v: Value) -> Iterator[Load]:
    """Every load a value performs, those inside computed indices (``at``) included."""
    if isinstance(v, Load):
        yield v
    for index in indices_in(v):
        for atom in index.atoms():
            if isinstance(atom, Opaque):
                yield from loads(atom.value)
    for part in value_parts(v):
        yield from loads(part)


def stmt_values(stmt: Stmt) -> tuple[Value, ...]:
    if isinstance(stmt, Declare):
        return (stmt.value,) if stmt.value is not None else ()
    if isinstance(stmt, Assign | Store):
        return (stmt.value,)
    return ()


def stmt_loads(stmt: Stmt) -> Iterator[Load]:
    """The loads of one statement (not of the statements nested in it)."""
    for v in stmt_values(stmt):
        yield from loads(v)
    if isinstance(stmt, Store):
        for atom in stmt.offset.atoms():
            if isinstance(atom, Opaque):
                yield from loads(atom.value)


# --- substitution of loop indices (unrolling, renaming) -----------------------------------------


def substitute_index(e: Index, values: dict) -> Index:
    return e.substitute(values, lambda v: substitute(v, values))


def substitute(v: Value, values: dict) -> Value:
    """A value with loop indices replaced (by constants or other indices)."""
    if isinstance(v, Load):
        return Load(v.buffer, substitute_index(v.offset, values), v.width)
    if isinstance(v, IndexValue):
        return IndexValue(substitute_index(v.index, values))
    if isinstance(v, Call):
        return Call(v.function, tuple(substitute(a, values) for a in v.args))
    if isinstance(v, MakeTuple):
        return MakeTuple(v.type, tuple(substitute(a, values) for a in v.items))
    if isinstance(v, Binary):
        return Binary(v.op, substitute(v.left, values), substitute(v.right, values))
    if isinstance(v, Unary):
        return Unary(v.op, substitute(v.operand, values))
    if isinstance(v, Cast):
        return Cast(v.to, substitute(v.value, values))
    if isinstance(v, Field):
        return Field(substitute(v.value, values), v.index, v.lane)
    if isinstance(v, Select):
        return Select(substitute(v.condition, values), substitute(v.then, values),
                      substitute(v.otherwise, values))
    return v


def substitute_stmt(s: Stmt, values: dict) -> Stmt:
    """A statement with loop indices replaced, the statements nested in it included."""
    if isinstance(s, Declare) and s.value is not None:
        return Declare(s.name, s.type, substitute(s.value, values))
    if isinstance(s, Assign):
        return Assign(s.name, substitute(s.value, values))
    if isinstance(s, Store):
        return Store(s.buffer, substitute_index(s.offset, values), substitute(s.value, values),
                     s.width, s.assembled)
    if isinstance(s, Loop | Guard | Block):
        return replace(s, body=tuple(substitute_stmt(x, values) for x in s.body))
    return s


# --- debug printer -------------------------------------------------------------------------


def _show_opaque(v: Value) -> str:
    return show_value(v) if isinstance(v, Call) else f"({show_value(v)})"


def show_index(index: Index) -> str:
    return to_c(index, _show_opaque)


def show_value(v: Value) -> str:
    if isinstance(v, Literal):
        return v.text
    if isinstance(v, Name):
        return v.name
    if isinstance(v, IndexValue):
        return show_index(v.index)
    if isinstance(v, Load):
        lanes = f":{v.width}" if v.width > 1 else ""
        return f"{v.buffer}[{show_index(v.offset)}{lanes}]"
    if isinstance(v, Call):
        return f"{v.function}({', '.join(show_value(a) for a in v.args)})"
    if isinstance(v, Binary):
        return f"({show_value(v.left)} {v.op} {show_value(v.right)})"
    if isinstance(v, Unary):
        return f"({v.op}{show_value(v.operand)})"
    if isinstance(v, Cast):
        return f"{v.to}({show_value(v.value)})"
    if isinstance(v, Field):
        return f"{show_value(v.value)}.{v.lane or v.index}"
    if isinstance(v, MakeTuple):
        return f"({', '.join(show_value(i) for i in v.items)})"
    if isinstance(v, Select):
        return (f"({show_value(v.condition)} ? {show_value(v.then)} : "
                f"{show_value(v.otherwise)})")
    raise TypeError(f"not a kernel IR value: {v!r}")


def _show_stmt(stmt: Stmt, depth: int) -> list[str]:
    pad = "  " * depth
    if isinstance(stmt, Loop):
        step = "" if stmt.step is None else f" step {stmt.step}"
        kind = "long " if stmt.wide else ""
        head = (f"{pad}for {kind}{stmt.index} in {stmt.level}({stmt.dim}) < {stmt.extent}"
                f"{step}:" + (f"  # {stmt.origin}" if stmt.origin else ""))
        return [head, *(line for s in stmt.body for line in _show_stmt(s, depth + 1))]
    if isinstance(stmt, Guard | Block):
        head = f"{pad}one work-item of the {stmt.scope}:" if isinstance(stmt, Guard) \
            else f"{pad}block:"
        return [head, *(line for s in stmt.body for line in _show_stmt(s, depth + 1))]
    if isinstance(stmt, Declare):
        init = "" if stmt.value is None else f" = {show_value(stmt.value)}"
        return [f"{pad}{stmt.name}: {stmt.type}{init}"]
    if isinstance(stmt, Assign):
        return [f"{pad}{stmt.name} = {show_value(stmt.value)}"]
    if isinstance(stmt, Store):
        lanes = f":{stmt.width}" if stmt.width > 1 else ""
        return [f"{pad}{stmt.buffer}[{show_index(stmt.offset)}{lanes}] = "
                f"{show_value(stmt.value)}"]
    if isinstance(stmt, Barrier):
        kind = "warp barrier" if stmt.scope == "warp" else "barrier"
        return [f"{pad}{kind}({', '.join(stmt.fences)})"]
    if isinstance(stmt, Comment):
        return [f"{pad}# {stmt.text}"]
    if isinstance(stmt, Allocate):
        b = stmt.buffer
        return [f"{pad}private {b.name}: {b.scalar}[{b.length}]"]
    raise TypeError(f"not a kernel IR statement: {stmt!r}")


def dump(node: Kernel | Module | Stmt) -> str:
    """A readable listing of the IR, for debugging (not OpenCL)."""
    if isinstance(node, Module):
        return "\n\n".join(dump(k) for k in node.kernels)
    if isinstance(node, Kernel):
        lines = [f"kernel {node.name}({', '.join(b.name for b in node.params)})"]
        lines += [f"  local {b.name}: {b.scalar}[{b.length}]" for b in node.locals]
        lines += [line for s in node.body for line in _show_stmt(s, 1)]
        return "\n".join(lines)
    return "\n".join(_show_stmt(node, 0))


def element_type(t: Type) -> Type:
    while isinstance(t, ArrayType):
        t = t.elem
    return t


__all__ = ["Value", "Literal", "Name", "IndexValue", "Load", "Call", "Binary", "Unary", "Cast",
           "Field", "MakeTuple", "Select", "Buffer", "Stmt", "Declare", "Assign", "Store",
           "Loop", "Guard", "Barrier", "Block", "Comment", "Allocate", "Launch", "Kernel",
           "Function", "NativeFunction", "StructDecl", "Module", "LEVELS", "LoopLevel", "PARALLEL",
           "WARP", "statements", "loads", "stmt_loads", "dump", "show_value", "element_type",
           "SPACES", "VectorType"]

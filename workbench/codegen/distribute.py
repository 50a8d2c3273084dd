"""Private arrays of a work-group, spread over its work-items (CASES 2016's register blocks
of a tiled matrix multiplication): an array that a work-group's code keeps in private
memory (``toPrivate (mapLocal 1 (mapLocal 0 …))``) is accessed only inside the local maps
that own its parts, so each work-item holds its own part, not the whole array. The same
holds for a private array of sequential code that every work-item runs (a top-level
``mapSeq``, Lift's ``MapSeqSlide``) made and read by global maps inside it
(``mapGlobal id ∘ toPrivate (mapGlobal f)``).

For every such array (``Allocate`` with owners "workgroup") the pass checks that each
access stands inside local (or global) loops that each work-item runs at most once, that the offsets
depend on those loops' indices the same way everywhere (``c · l`` for each, the same
constants) and that, without them, the offsets stay within one part: the coefficients of
the local indices form a mixed radix over the part's length. Each work-item's array is
then the part, and the local indices leave the offsets. An array that does not fit is
refused, naming it: a work-item would read a part another one holds.
"""

from __future__ import annotations

import math
from dataclasses import replace

from . import CodegenError, ir
from .arith import Index, Var

# the loops whose iterations the work-items share out: mapLocal's, and mapGlobal's inside
# sequential code that every work-item runs (a top-level mapSeq or Lift's MapSeqSlide)
_OWNERS = ("local", "global")


def distribute(kernel: ir.Kernel) -> ir.Kernel:
    """The kernel with each private array of its work-group cut to one work-item's part
    (the strides of its loops must be known: ``launch.bind`` first)."""
    names = {s.buffer.name: s for s, _ in ir.statements(kernel.body)
             if isinstance(s, ir.Allocate) and s.owners == "workgroup"}
    if not names:
        return kernel
    parts = {name: _part(kernel, name, alloc.buffer.length) for name, alloc in names.items()}
    return replace(kernel, body=_rewrite(kernel.body, parts))


def _accesses(kernel: ir.Kernel, name: str):
    for stmt, enclosing in ir.statements(kernel.body):
        offsets = [load.offset for load in ir.stmt_loads(stmt) if load.buffer == name]
        if isinstance(stmt, ir.Store) and stmt.buffer == name:
            offsets.append(stmt.offset)
        for offset in offsets:
            yield offset, enclosing


def _part(kernel: ir.Kernel, name: str, length: int) -> tuple[int, dict]:
    """The length of one work-item's part, and the local indices to drop from offsets."""
    shape = None
    drop: dict[str, int] = {}
    for offset, enclosing in _accesses(kernel, name):
        owners = [f for f in enclosing if isinstance(f, ir.Loop) and f.level in _OWNERS]
        if not owners:
            raise CodegenError(f"the private array {name} of the work-group is read or "
                               f"written outside the local (or global) maps that own its "
                               f"parts")
        here = []
        for loop in owners:
            if loop.step is None or loop.extent > loop.step:
                raise CodegenError(f"the private array {name}: a work-item runs the local "
                                   f"map over {loop.extent} elements more than once (its "
                                   f"work-group has {loop.step} work-items in dimension "
                                   f"{loop.dim}), so it would hold several parts")
            coefficient = offset.terms.get((Var(loop.index, loop.extent),), 0)
            here.append((loop.dim, loop.extent, coefficient))
            drop[loop.index] = 0
        here.sort()
        if shape is None:
            shape = here
        elif here != shape:
            raise CodegenError(f"the private array {name} of the work-group is accessed by "
                               f"local maps of different shapes ({_shown(shape)} and "
                               f"{_shown(here)}): a work-item would read another's part")
        rest = ir.substitute_index(offset, {loop.index: 0 for loop in owners})
        if any(v in {loop.index for loop in owners} for v in rest.variables()):
            raise CodegenError(f"the private array {name}: its offset {offset} does not "
                               f"depend on the local indices by a constant factor")
    if shape is None:
        return length, drop
    owned = math.prod(extent for _, extent, c in shape if c)
    part = length // owned if owned and length % owned == 0 else None
    radix = part
    for _, extent, c in sorted((s for s in shape if s[2]), key=lambda s: s[2]):
        if radix is None or c != radix:
            raise CodegenError(f"the private array {name} of the work-group is not laid out "
                               f"as one part per work-item (its local indices have the "
                               f"factors {_shown(shape)} for {length} elements)")
        radix *= extent
    for offset, _ in _accesses(kernel, name):
        low, high = ir.substitute_index(offset, drop).bounds()
        if low < 0 or high >= part:
            raise CodegenError(f"the private array {name}: a work-item's accesses reach "
                               f"beyond its part of {part} elements")
    return part, drop


def _shown(shape) -> str:
    return ", ".join(f"{c}·l (dimension {d}, {n} work-items)" for d, n, c in shape)


def _rewrite(body: tuple[ir.Stmt, ...], parts: dict) -> tuple[ir.Stmt, ...]:
    out = []
    for stmt in body:
        if isinstance(stmt, ir.Allocate) and stmt.buffer.name in parts:
            length, _ = parts[stmt.buffer.name]
            b = stmt.buffer
            stmt = ir.Allocate(replace(b, type=_array(b, length)), stmt.owners)
        elif isinstance(stmt, ir.Loop | ir.Guard | ir.Block):
            stmt = replace(stmt, body=_rewrite(stmt.body, parts))
        else:
            stmt = _offsets(stmt, parts)
        out.append(stmt)
    return tuple(out)


def _array(b: ir.Buffer, length: int):
    from ..sizes import Size
    from ..types import ArrayType

    return ArrayType(b.scalar, Size.const(length))


def _offsets(stmt: ir.Stmt, parts: dict) -> ir.Stmt:
    def value(v: ir.Value) -> ir.Value:
        if isinstance(v, ir.Load) and v.buffer in parts:
            return ir.Load(v.buffer, ir.substitute_index(v.offset, parts[v.buffer][1]), v.width)
        return _rebuild(v, value)

    if isinstance(stmt, ir.Store):
        offset = stmt.offset
        if stmt.buffer in parts:
            offset = ir.substitute_index(offset, parts[stmt.buffer][1])
        return ir.Store(stmt.buffer, offset, value(stmt.value), stmt.width, stmt.assembled)
    if isinstance(stmt, ir.Declare) and stmt.value is not None:
        return ir.Declare(stmt.name, stmt.type, value(stmt.value))
    if isinstance(stmt, ir.Assign):
        return ir.Assign(stmt.name, value(stmt.value))
    return stmt


def _rebuild(v: ir.Value, f) -> ir.Value:
    if isinstance(v, ir.Call):
        return ir.Call(v.function, tuple(f(a) for a in v.args))
    if isinstance(v, ir.MakeTuple):
        return ir.MakeTuple(v.type, tuple(f(a) for a in v.items))
    if isinstance(v, ir.Binary):
        return ir.Binary(v.op, f(v.left), f(v.right))
    if isinstance(v, ir.Unary):
        return ir.Unary(v.op, f(v.operand))
    if isinstance(v, ir.Cast):
        return ir.Cast(v.to, f(v.value))
    if isinstance(v, ir.Field):
        return ir.Field(f(v.value), v.index, v.lane)
    if isinstance(v, ir.Select):
        return ir.Select(f(v.condition), f(v.then), f(v.otherwise))
    return v


__all__ = ["distribute", "Index"]

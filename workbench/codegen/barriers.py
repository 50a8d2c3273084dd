"""Barrier placement: a work-group barrier where a later access depends on an earlier one by
another work-item of the group, and nowhere else (SPEC 6).

The statements of a kernel that all work-items of a group run alike (the kernel body, the
bodies of work-group loops, of warp loops and of sequential loops around parallel maps)
form sequences; the loops over work-items (``local``, ``lane``, ``global``) and the guarded
code of one work-item (``Guard``) are, at that level, single statements whose accesses are
made by work-items other than... anyone's but their owner. Walking a sequence, the pass
keeps the accesses made since the last barrier; a statement that reads what one of them
wrote (or writes what one of them read or wrote) gets a barrier before it, unless both
accesses are provably made by the same work-item for every element: the same nest of
parallel loops (level, dimension, extent) and guards, and the same offset once the loop
indices of one are renamed to those of the other. A loop that a group runs more than once
also gets a barrier at the end of its body when an iteration's last accesses conflict with
the next iteration's first ones. Barriers never stand inside a work-item's loop or inside
guarded code, which not every work-item reaches; when a dependency would need one there,
the kernel is refused. Private memory is never shared. As RISE's Shine does it (its
``InsertMemoryBarriers`` pass) on imperative DPIA, and unlike Lift, which emits a barrier
after every ``mapLocal`` and removes some.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from . import CodegenError, ir
from .arith import Index, var


@dataclass(frozen=True)
class Frame:
    """What stands between the sequence being analysed and an access: a parallel loop (its
    level, dimension, extent and index), a sequential loop (level ``seq``, unrolled or not,
    its extent and index) or a guard (no level; its scope). Its shape is the frame without
    its index."""

    level: ir.LoopLevel | None
    extent: int = 0
    dim: int = 0
    index: str | None = None
    scope: str | None = None

    @property
    def sequential(self) -> bool:
        return self.level is ir.LoopLevel.SEQ

    @property
    def shape(self) -> Frame:
        return replace(self, index=None)


@dataclass(frozen=True)
class Access:
    buffer: str
    space: str
    write: bool
    offset: Index
    frames: tuple[Frame, ...]


def _frame(stmt: ir.Stmt) -> Frame:
    if isinstance(stmt, ir.Guard):
        return Frame(None, scope=stmt.scope)
    if stmt.level in (ir.LoopLevel.SEQ, ir.LoopLevel.UNROLLED):
        return Frame(ir.LoopLevel.SEQ, stmt.extent, index=stmt.index)
    return Frame(stmt.level, stmt.extent, stmt.dim, stmt.index)


def accesses(stmt: ir.Stmt, spaces: dict[str, str], frames: tuple = ()) -> list[Access]:
    """The reads and writes of shared (local, global) memory of a statement, with the
    frames between it and the statement."""
    if isinstance(stmt, ir.Loop | ir.Guard):
        inner = frames + (_frame(stmt),)
        return [a for s in stmt.body for a in accesses(s, spaces, inner)]
    if isinstance(stmt, ir.Block):
        return [a for s in stmt.body for a in accesses(s, spaces, frames)]
    out = [Access(load.buffer, spaces[load.buffer], False, load.offset, frames)
           for load in ir.stmt_loads(stmt) if load.buffer in spaces]
    if isinstance(stmt, ir.Store) and stmt.buffer in spaces:
        out.append(Access(stmt.buffer, spaces[stmt.buffer], True, stmt.offset, frames))
    return out


def same_work_item(earlier: Access, later: Access, one: bool = False) -> bool:
    """Whether every element the later access touches was touched by the earlier one in the
    same work-item (so program order suffices). ``one``: the sequence is the code of one
    work-item (else of every work-item of the group alike)."""
    owners = [f for f in earlier.frames if not f.sequential]
    if not owners:
        if one and not [f for f in later.frames if not f.sequential]:
            return True
        # code that every work-item runs: each reads what it wrote itself
        return earlier.write and not later.write
    if len(earlier.frames) != len(later.frames) or \
            any(a.shape != b.shape for a, b in zip(earlier.frames, later.frames)):
        return False
    renaming = {b.index: var(a.index, b.extent) for a, b in zip(earlier.frames, later.frames)
                if a.index is not None and a.index != b.index}
    return ir.substitute_index(later.offset, renaming) == earlier.offset


def conflicts(pending: list[Access], later: list[Access], one: bool = False,
              apart: ir.Loop | None = None) -> set[str]:
    """The spaces of the memory through which a later access depends on a pending one
    (``apart``: the later accesses are of the next iteration of that loop, and accesses of
    different iterations that never meet need no order)."""
    spaces = set()
    for b in later:
        for a in pending:
            if a.buffer == b.buffer and (a.write or b.write) and \
                    not same_work_item(a, b, one) and not _disjoint(a, b) and \
                    not (apart is not None and _apart(a, b, apart)):
                spaces.add(a.space)
    return spaces


def _disjoint(a: Access, b: Access) -> bool:
    """Whether two accesses never touch the same element, whichever work-items and
    iterations make them: their offsets range over intervals that do not meet (the
    unrolled rounds of a copy into local memory)."""
    low_a, high_a = a.offset.bounds()
    low_b, high_b = b.offset.bounds()
    return high_a < low_b or high_b < low_a


def conflicting_buffers(pending: list[Access], later: list[Access]) -> set[str]:
    """The buffers through which a later access depends on a pending one."""
    return {a.buffer for b in later for a in pending
            if a.buffer == b.buffer and (a.write or b.write) and not same_work_item(a, b)
            and not _disjoint(a, b)}


def _barrier(spaces: set[str], scope: str = "workgroup") -> ir.Barrier:
    return ir.Barrier(tuple(s for s in ("local", "global") if s in spaces), scope)


def _once(loop: ir.Loop) -> bool:
    """Whether a group runs a loop's body at most once."""
    if loop.level in ("seq", "unrolled"):
        return loop.extent <= 1
    return loop.step is not None and loop.extent <= loop.step


def _carried(pending: list[Access], loop: ir.Loop) -> list[Access]:
    """Accesses of an earlier iteration of a loop: its index is another one there."""
    other = {loop.index: var(loop.index + "_before", loop.extent)}
    return [replace(a, offset=ir.substitute_index(a.offset, other)) for a in pending]


def _apart(a: Access, b: Access, loop: ir.Loop) -> bool:
    """Whether an access of one iteration of a loop and one of another iteration never
    touch the same element: both offsets are ``c · i`` plus parts that span less than
    ``c`` (the rounds of a copy into local memory, each writing its own elements)."""
    index = var(loop.index, loop.extent)
    ranges, factors = [], set()
    for access, i in ((a, var(loop.index + "_before", loop.extent)), (b, index)):
        c = access.offset.terms.get(tuple(i.terms)[0], 0) if len(i.terms) == 1 else 0
        rest = access.offset - i * c
        if c == 0 or loop.index in rest.variables() or \
                loop.index + "_before" in rest.variables():
            return False
        factors.add(abs(c))
        ranges.append(rest.bounds())
    if len(factors) != 1:
        return False
    low = min(r[0] for r in ranges)
    high = max(r[1] for r in ranges)
    return high - low < factors.pop()


class _Placer:
    def __init__(self, kernel: ir.Kernel, spaces: dict[str, str], groups: bool):
        self.kernel = kernel
        self.spaces = spaces
        self.groups = groups  # launched in work-groups (else no barrier can help)
        # local memory of one slice per warp, read and written by that warp's lanes alone
        self.per_warp = {b.name for b in kernel.locals if b.per_warp}

    def sequence(self, body: tuple, pending: list[Access], warp: bool = False
                 ) -> tuple[tuple, list[Access], bool]:
        """The statements with barriers placed, the accesses pending at the end, and
        whether a barrier was placed in the sequence itself. In the body of a warp loop
        (``warp``) a dependency through a warp's own local memory needs only the warp's
        work-items to meet: a warp barrier (PACT's map-warp; the slides' version 5)."""
        out: list[ir.Stmt] = []
        placed = False
        for stmt in body:
            found = accesses(stmt, self.spaces)
            spaces = conflicts(pending, found)
            if spaces:
                self.need_barrier(stmt)
                if warp and conflicting_buffers(pending, found) <= self.per_warp:
                    out.append(_barrier(spaces, "warp"))
                    pending = [a for a in pending if a.buffer not in self.per_warp]
                else:
                    out.append(_barrier(spaces))
                    pending, placed = [], True
            if isinstance(stmt, ir.Loop) and self.uniform(stmt):
                stmt, pending = self.loop(stmt, pending)
            elif isinstance(stmt, ir.Block):
                inner, pending, inside = self.sequence(stmt.body, pending, warp)
                stmt = replace(stmt, body=inner)
                placed = placed or inside
            else:
                self.check_inside(stmt)
                pending = pending + found
            out.append(stmt)
        return tuple(out), pending, placed

    def uniform(self, loop: ir.Loop) -> bool:
        """A loop that every work-item of the group runs alike, around parallel code."""
        return loop.level in ("workgroup", "warp") or (
            loop.level in ("seq", "unrolled") and any(
                isinstance(s, ir.Loop | ir.Guard) and not (isinstance(s, ir.Loop) and
                                                           s.level in ("seq", "unrolled"))
                for s, _ in ir.statements(loop.body)))

    def loop(self, loop: ir.Loop, before: list[Access]) -> tuple[ir.Loop, list[Access]]:
        body, pending, placed = self.sequence(loop.body, [], warp=loop.level == "warp")
        if not _once(loop):
            # the next iteration's accesses up to its first barrier follow this one's last
            head: list[Access] = []
            for stmt in body:
                if isinstance(stmt, ir.Barrier):
                    break
                head += accesses(stmt, self.spaces)
            spaces = conflicts(_carried(pending, loop), head, apart=loop)
            if spaces:
                self.need_barrier(loop)
                return replace(loop, body=body + (_barrier(spaces),)), []
        # seen from the enclosing sequence, the body's accesses are made inside the loop
        outer = [replace(a, frames=(_frame(loop),) + a.frames) for a in pending]
        return replace(loop, body=body), outer if placed else before + outer

    def need_barrier(self, stmt: ir.Stmt) -> None:
        if not self.groups:
            raise _located(stmt, f"{_origin(stmt, self.kernel)} reads what other work-items "
                                 f"of the same kernel wrote, and they are not in one "
                                 f"work-group: no barrier can order them (make it a kernel "
                                 f"of its own)")

    def check_inside(self, stmt: ir.Stmt) -> None:
        """A dependency between work-items inside one work-item's loop or guarded code
        would need a barrier that not every work-item reaches."""
        if not isinstance(stmt, ir.Loop | ir.Guard):
            return
        if isinstance(stmt, ir.Loop) and stmt.disjoint:
            return  # its iterations touch disjoint elements (declared by its pattern)
        pending: list[Access] = []
        for inner in stmt.body:
            found = accesses(inner, self.spaces)
            if conflicts(pending, found, one=True):
                raise _located(stmt, f"{_origin(inner, self.kernel)} reads what other "
                                     f"work-items wrote inside the code of one work-item "
                                     f"({_origin(stmt, self.kernel)}): a barrier cannot "
                                     f"stand there; write to the enclosing destination "
                                     f"instead")
            pending += found
            self.check_inside(inner)


def _located(stmt: ir.Stmt, reason: str) -> CodegenError:
    """An error naming the map a loop came from, where its path is known."""
    path = getattr(stmt, "path", None)
    return CodegenError(reason, path, stmt.origin) if path is not None else CodegenError(reason)


def _origin(stmt: ir.Stmt, kernel: ir.Kernel) -> str:
    text = getattr(stmt, "origin", "") or kernel.origin
    return f"`{text}`" if text else "a statement"


def place(kernel: ir.Kernel, launch: ir.Launch) -> ir.Kernel:
    """The kernel with its barriers placed (the strides of its loops must be known)."""
    if math.prod(launch.local_size or launch.global_size) == 1:
        return kernel  # one work-item: program order is all the order there is
    spaces = {b.name: b.space for b in (*kernel.params, *kernel.locals) if b.space != "private"}
    placer = _Placer(kernel, spaces, launch.local_size is not None)
    body, _, _ = placer.sequence(kernel.body, [])
    return replace(kernel, body=body)

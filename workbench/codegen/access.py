"""How the kernels of a program touch global memory, for the search's cost model: every
global load and store, with the bytes it moves (dynamic: once per point of its loops'
iteration space and per work-item that runs it) and its *pattern*, read from how its offset
moves with the loops around it:

- ``coalesced``: neighbouring work-items (the innermost loop over work-items) touch
  neighbouring elements — what a GPU's memory system merges (ICFP Fig. 11's reorderStride);
- ``streamed``: one work-item's sequential loop walks neighbouring elements — what a CPU
  core's prefetcher and caches want (each work-item a contiguous chunk);
- ``shared``: every work-item touches the same element (a vector all rows read, gemv's x):
  served from cache after the first;
- ``scattered``: none of these (strided in both directions, or computed at run time).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from . import ir
from .arith import Index, var
from .launch import copies

PATTERNS = ("coalesced", "streamed", "shared", "scattered")
WORK_ITEM_LEVELS = ("global", "local", "lane")


@dataclass(frozen=True)
class Access:
    kernel: str
    buffer: str
    bytes: int
    pattern: str
    width: int
    store: bool


def _stride(offset: Index, loop: ir.Loop) -> int | None:
    """How far the offset moves when the loop's index moves by its step (None: not a
    constant distance)."""
    step = loop.step or 1
    moved = offset.substitute({loop.index: var(loop.index, loop.extent) + step})
    distance = (moved - offset).constant
    return None if distance is None else abs(distance) // step


def pattern(offset: Index, width: int, frames: list[ir.Loop]) -> str:
    parallel = next((f for f in reversed(frames) if f.level in WORK_ITEM_LEVELS), None)
    sequential = next((f for f in reversed(frames) if f.level == "seq"), None)
    across = _stride(offset, parallel) if parallel is not None else None
    along = _stride(offset, sequential) if sequential is not None else None
    if across is not None and 0 < across <= width:
        return "coalesced"
    if along is not None and along <= width:
        return "shared" if across == 0 else "streamed"
    if across == 0 or (parallel is None and sequential is None):
        return "shared" if across == 0 else "streamed"
    return "scattered"


def kernel_accesses(kernel: ir.Kernel, launch: ir.Launch,
                    buffers: dict[str, ir.Buffer]) -> list[Access]:
    out = []
    for stmt, enclosing in ir.statements(kernel.body):
        if isinstance(stmt, ir.Loop | ir.Guard | ir.Barrier):
            continue
        frames = [f for f in enclosing if isinstance(f, ir.Loop)]
        total = math.prod(f.extent for f in frames) * copies(enclosing, launch)
        found = [(load.buffer, load.offset, load.width, False) for load in ir.stmt_loads(stmt)]
        if isinstance(stmt, ir.Store):
            found.append((stmt.buffer, stmt.offset, stmt.width, True))
        for name, offset, width, store in found:
            buffer = buffers.get(name)
            if buffer is None or buffer.space != "global":
                continue
            size = total * width * buffer.scalar_dtype().itemsize
            out.append(Access(kernel.name, name, size, pattern(offset, width, frames), width,
                              store))
    return out


def accesses(module: ir.Module) -> list[Access]:
    """Every global access of the module's kernels."""
    out = []
    for kernel, launch in zip(module.kernels, module.launches):
        buffers = {b.name: b for b in (*module.buffers, *kernel.locals)}
        out.extend(kernel_accesses(kernel, launch, buffers))
    return out


def bytes_by_pattern(module: ir.Module) -> dict[str, int]:
    totals = dict.fromkeys(PATTERNS, 0)
    for a in accesses(module):
        totals[a.pattern] += a.bytes
    return totals

"""Launch inference: the NDRange of each kernel, read from its loops, and the strides of its
parallel loops, which are the launch's sizes.

Work-groups have the size of the kernel's local maps (warp maps: 32 work-items per warp of
the largest warp map; at most 1024 work-items, the local maps striding over the rest), as
many as its work-group maps have elements, per dimension; a kernel
without work-group maps launches as many work-items as its global maps have elements,
capped at ``MAX_GLOBAL`` (its loops stride over the rest); a kernel with neither (a
top-level sequential reduction) runs in one work-item.

The strides are constants in the code: PoCL miscompiles some loops striding by
``get_local_size()`` around barriers.
"""

from __future__ import annotations

import math
from dataclasses import replace

from . import CodegenError, ir

MAX_GLOBAL = 1 << 20  # work-items of a mapGlobal launch (loops stride over the rest)
# work-items of a work-group on any GPU (NVIDIA's and AMD's limits; PoCL takes 4096), and per
# dimension (NVIDIA's third dimension holds 64): local maps stride over the rest
MAX_LOCAL = 1024
MAX_LOCAL_DIMS = (1024, 1024, 64)


def infer(kernel: ir.Kernel) -> ir.Launch:
    """The launch of a kernel from the extents of its loops (and its parameters)."""
    args = tuple(b.name for b in kernel.params)
    groups: dict[int, int] = {}
    local: dict[int, int] = {}
    items: dict[int, int] = {}
    warps = False
    for stmt, _ in ir.statements(kernel.body):
        if not isinstance(stmt, ir.Loop):
            continue
        d, n = stmt.dim, stmt.extent
        if stmt.level == "workgroup":
            groups[d] = max(groups.get(d, 1), n)
        elif stmt.level == "local":
            local[d] = max(local.get(d, 1), n)
        elif stmt.level == "warp":
            local[0] = max(local.get(0, 1), n * ir.WARP)
            warps = True
        elif stmt.level == "global":
            items[d] = max(items.get(d, 1), n)
    if groups or local:
        dims = max([*groups, *local, 0]) + 1
        size = [local.get(d, 1) for d in range(dims)]
        if warps:  # whole warps
            size[0] = -(-size[0] // ir.WARP) * ir.WARP
        else:
            size = _fitted(size)
        count = [groups.get(d, 1) for d in range(dims)]
        return ir.Launch(kernel.name, tuple(g * n for g, n in zip(count, size)), tuple(size),
                         args)
    if items:
        dims = max(items) + 1
        budget = MAX_GLOBAL
        capped = []
        for n in (items.get(d, 1) for d in range(dims)):
            capped.append(max(1, min(n, budget)))
            budget = max(1, budget // capped[-1])
        return ir.Launch(kernel.name, tuple(capped), None, args)
    return ir.Launch(kernel.name, (1,), (1,), args)


def _fitted(size: list[int]) -> list[int]:
    """Work-group sizes that every OpenCL device takes (at most ``MAX_LOCAL`` work-items, and
    at most ``MAX_LOCAL_DIMS`` per dimension): the largest halved until they fit, its local
    loops then striding over the rest (Lift's MapLcl does the same with a smaller group)."""
    size = [min(n, most) for n, most in zip(size, MAX_LOCAL_DIMS)]
    while math.prod(size) > MAX_LOCAL:
        d = size.index(max(size))
        size[d] = -(-size[d] // 2)
    return size


def stride(loop: ir.Loop, launch: ir.Launch) -> int:
    """How far a parallel loop's index moves from one round to the next."""
    if loop.level in ("seq", "unrolled"):
        return 1
    if loop.level == "lane":
        return ir.WARP
    dims = len(launch.global_size)
    if loop.dim >= dims:
        raise CodegenError(f"a loop strides over dimension {loop.dim}, which the launch does "
                           f"not have")
    if loop.level == "global":
        return launch.global_size[loop.dim]
    if launch.local_size is None:
        raise CodegenError(f"a {loop.level} loop in a launch without work-groups")
    if loop.level == "local":
        return launch.local_size[loop.dim]
    if loop.level == "workgroup":
        return launch.global_size[loop.dim] // launch.local_size[loop.dim]
    return launch.local_size[0] // ir.WARP  # warps of a work-group


def with_strides(body: tuple[ir.Stmt, ...], launch: ir.Launch) -> tuple[ir.Stmt, ...]:
    out = []
    for stmt in body:
        if isinstance(stmt, ir.Loop):
            stmt = replace(stmt, step=stride(stmt, launch), body=with_strides(stmt.body, launch))
        elif isinstance(stmt, ir.Guard | ir.Block):
            stmt = replace(stmt, body=with_strides(stmt.body, launch))
        out.append(stmt)
    return tuple(out)


def bind(kernel: ir.Kernel) -> tuple[ir.Kernel, ir.Launch]:
    """The kernel with the strides of its loops filled in, and its launch."""
    launch = infer(kernel)
    return replace(kernel, body=with_strides(kernel.body, launch)), launch


# --- which work-items run a statement -------------------------------------------------------

def axes(launch: ir.Launch) -> dict[str, int]:
    """The ways work-items of a launch differ, with how many values each takes (the lanes
    and warps of dimension 0 apart when it holds whole warps)."""
    if launch.local_size is None:
        return {f"global{d}": n for d, n in enumerate(launch.global_size)}
    out = {f"group{d}": g // n for d, (g, n) in enumerate(zip(launch.global_size,
                                                                launch.local_size))}
    for d, n in enumerate(launch.local_size):
        if d == 0 and n % ir.WARP == 0:
            out["lane"], out["warp"] = ir.WARP, n // ir.WARP
        else:
            out[f"local{d}"] = n
    return out


def claims(frame: ir.Stmt) -> tuple[str, ...]:
    """The axes of work-items that a loop or guard tells apart: each iteration (or the
    guarded code) is run by one value of them."""
    if isinstance(frame, ir.Guard):
        return ("lane",) if frame.scope == "warp" else \
            ("lane", "warp", "local0", "local1", "local2")
    level, d = frame.level, frame.dim
    if level == "global":
        return (f"global{d}",)
    if level == "workgroup":
        return (f"group{d}",)
    if level == "local":
        return (f"local{d}", "lane", "warp") if d == 0 else (f"local{d}",)
    if level in ("warp", "lane"):
        return (level,)
    return ()


def copies(enclosing: tuple, launch: ir.Launch) -> int:
    """How many work-items run a statement at each point of its iteration space (every
    work-item of a group for code the group runs alike; one inside a loop over work-items
    or a guard)."""
    claimed = {a for frame in enclosing for a in claims(frame)}
    return math.prod(n for a, n in axes(launch).items() if a not in claimed)


def rounds(loop: ir.Loop) -> int:
    """Iterations of a loop that one work-item runs."""
    return -(-loop.extent // (loop.step or 1))

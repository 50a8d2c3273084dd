"""The features of a program that the search's cost model reads (``search.cost``), counted
on the kernel IR: loads and stores per address space, vector accesses, arithmetic
operations, barriers, the sequential steps of one work-item, and the work-items launched.
Counts are dynamic: a statement counts once per point of its loops' iteration space and
per work-item that runs it (as Lift's static analyses of its exploration count them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from . import ir
from .launch import copies, rounds

_FREE_CALLS = ("as_float", "as_uint", "as_double", "as_ulong")  # reinterpretations


@dataclass(frozen=True)
class KernelFeatures:
    name: str
    work_items: int
    work_group: int | None  # work-items per group (None: any)
    loads: dict = field(default_factory=dict)  # space -> elements read
    stores: dict = field(default_factory=dict)  # space -> elements written
    vector_accesses: int = 0  # vloadN / vstoreN
    arithmetic: int = 0  # operations (in the program's functions too)
    barriers: int = 0  # barriers each work-item passes
    steps: int = 0  # statements one work-item runs in sequence (its critical path)
    loops: tuple = ()  # (index, level, extent) of each loop
    global_bytes: int = 0  # moved to and from global memory

    def occupancy(self, parallelism: int) -> float:
        """The share of a device's wanted parallelism that the launch provides."""
        return min(1.0, self.work_items / parallelism)


@dataclass(frozen=True)
class ProgramFeatures:
    kernels: tuple[KernelFeatures, ...]

    @property
    def global_bytes(self) -> int:
        """Bytes moved to and from global memory by all kernels."""
        return sum(k.global_bytes for k in self.kernels)


def _operations(v: ir.Value, functions: dict, memo: dict) -> int:
    ops = 0
    if isinstance(v, ir.Binary | ir.Unary):
        ops += 1
    elif isinstance(v, ir.Call):
        if v.function in functions:
            if v.function not in memo:
                memo[v.function] = 0  # no recursion in OpenCL C
                memo[v.function] = _operations(functions[v.function].body, functions, memo)
            ops += memo[v.function]
        elif not v.function.startswith(_FREE_CALLS):
            ops += 1
    return ops + sum(_operations(p, functions, memo) for p in ir.value_parts(v))


def kernel_features(kernel: ir.Kernel, launch: ir.Launch, functions: dict,
                    buffers: dict[str, ir.Buffer]) -> KernelFeatures:
    loads: dict[str, int] = {}
    stores: dict[str, int] = {}
    vector = arithmetic = barriers = steps = moved = 0
    memo: dict = {}
    loops = []
    for stmt, enclosing in ir.statements(kernel.body):
        frames = [f for f in enclosing if isinstance(f, ir.Loop)]
        total = math.prod(f.extent for f in frames) * copies(enclosing, launch)
        mine = math.prod(rounds(f) for f in frames)  # what one work-item runs
        if isinstance(stmt, ir.Loop):
            loops.append((stmt.index, stmt.level, stmt.extent))
            continue
        if isinstance(stmt, ir.Barrier):
            barriers += mine
            continue
        accesses = [(load.buffer, load.width, loads) for load in ir.stmt_loads(stmt)]
        if isinstance(stmt, ir.Store):
            accesses.append((stmt.buffer, stmt.width, stores))
        for name, width, counts in accesses:
            buffer = buffers.get(name)
            space = buffer.space if buffer is not None else "private"
            counts[space] = counts.get(space, 0) + total * width
            vector += total if width > 1 else 0
            if space in ("global", "constant"):  # constant memory: device memory, cached
                moved += total * width * buffer.scalar_dtype().itemsize
        for v in ir.stmt_values(stmt):
            arithmetic += total * _operations(v, functions, memo)
        if isinstance(stmt, ir.Store | ir.Assign | ir.Declare):
            steps += mine
    return KernelFeatures(kernel.name, math.prod(launch.global_size),
                          math.prod(launch.local_size) if launch.local_size else None,
                          loads, stores, vector, arithmetic, barriers, steps, tuple(loops),
                          moved)


def of(module: ir.Module) -> ProgramFeatures:
    functions = {d.name: d for d in module.declarations if isinstance(d, ir.Function)}
    kernels = []
    for kernel, launch in zip(module.kernels, module.launches):
        buffers = {b.name: b for b in (*module.buffers, *kernel.locals)}
        kernels.append(kernel_features(kernel, launch, functions, buffers))
    return ProgramFeatures(tuple(kernels))

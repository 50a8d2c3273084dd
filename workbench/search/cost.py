"""An analytical cost model that ranks candidates before they run — a strategy none of the
papers have (SPEC 8). It reads the features the code generator counted on the kernel IR
(``codegen.features``), not a device: the work-items each launch provides against the
parallelism a device needs, the sequential steps of one work-item, the launches, vector
accesses, barriers and global memory traffic. Lower is better. It is a heuristic for
ordering, not a prediction of milliseconds: the search measures what it ranks first.
"""

from __future__ import annotations

from ..codegen.program import OpenCLProgram


def estimate(program: OpenCLProgram, parallelism: int = 4096) -> float:
    """Relative cost of a program on a device that wants ``parallelism`` work-items."""
    total = 0.0
    for kernel in program.features.kernels:
        occupancy = kernel.occupancy(parallelism)
        work = (kernel.steps + kernel.barriers) / max(occupancy, 1e-6) / 1e3
        vector = 0.5 if kernel.vector_accesses else 1.0
        total += 1.0 + work * vector  # + one launch
    return total + program.features.global_bytes / 1e7

"""An analytical cost model that ranks candidates before they run — a strategy none of the
papers have (SPEC 8). It reads the generated program, not a device: the work-items each
launch provides against the parallelism a device needs, the sequential loop trip counts on
the critical path, the launches, whether reads are vectorised, and global memory traffic.
Lower is better. It is a heuristic for ordering, not a prediction of milliseconds: the
search measures what it ranks first.
"""

from __future__ import annotations

import math
import re

from ..codegen.program import OpenCLProgram


def estimate(program: OpenCLProgram, parallelism: int = 4096) -> float:
    """Relative cost of a program on a device that wants ``parallelism`` work-items."""
    total = 0.0
    kernels = program.source.split("kernel void ")[1:]
    for launch, body in zip(program.launches, kernels):
        items = math.prod(launch.global_size)
        # Sequential trip counts on the path of one work-item: the product of the extents
        # of the loops that do not stride by a get_* size.
        serial = 1
        for start, extent in re.findall(r"for \(int \w+ = ([^;]+); [^;<]*< (\d+)", body):
            if "get_" not in start:  # a work-item's loop, not one over ids
                serial *= int(extent)
        occupancy = min(1.0, items / parallelism)
        work = serial / max(occupancy, 1e-6) / 1e3
        vector = 0.5 if "vload" in body else 1.0
        total += 1.0 + work * vector  # + one launch
    moved = sum(b.length * b.scalar_dtype().itemsize for b in program.buffers)
    return total + moved / 1e7

"""The written-once check: every element of a program's output is stored exactly once, or the
program is refused naming the computation (a kernel that never writes its output — a map
of layout primitives only, such as ``mapWorkgroup (id ∘ id)`` — would otherwise leave
garbage that only a comparison with the interpreter notices).

A store is executed once per point of its enclosing loops' iteration space by each
work-item that runs it (``launch.copies``). Its offsets over that space are counted
exactly: symbolically when the offset is affine in loop indices that form a mixed radix
(``i + 4·l + 1024·wg``, the common case), else by enumeration when the space is small
enough; otherwise (offsets computed at run
time by an index function, or huge spaces with divisions) only the number of stores is
compared with the number of elements.
"""

from __future__ import annotations

import math

import numpy as np

from . import CodegenError, ir
from .arith import Div, Index, Mod, Opaque, Var
from .launch import copies

ENUMERATION_LIMIT = 1 << 20  # store executions counted one by one at most


class _Count:
    """How often each element of one output buffer is stored."""

    def __init__(self, length: int):
        self.length = length
        self.intervals: list[tuple[int, int, int]] = []  # (start, stop, times)
        self.points: list[tuple[np.ndarray, int]] = []  # (offsets, times)
        self.unknown = 0  # stores whose offsets cannot be told (counted in total only)

    def total(self) -> int:
        return (sum((b - a) * t for a, b, t in self.intervals)
                + sum(len(p) * t for p, t in self.points) + self.unknown)

    def problem(self) -> str | None:
        if self.unknown:
            total = self.total()
            if total < self.length:
                return f"{self.length - total} of its {self.length} elements are never written"
            if total > self.length:
                return f"it is written {total} times for {self.length} elements"
            return None
        if not self.points and all(t == 1 for _, _, t in self.intervals):
            spans = sorted(self.intervals)
            end = 0
            for a, b, _ in spans:
                if a > end:
                    return f"elements {end} to {a - 1} are never written"
                if a < end:
                    return f"element {a} is written more than once"
                end = b
            if end < self.length:
                return f"elements {end} to {self.length - 1} are never written"
            return None
        counts = np.zeros(self.length, dtype=np.int64)
        for a, b, t in self.intervals:
            counts[a:b] += t
        by_times: dict[int, list[np.ndarray]] = {}
        for offsets, t in self.points:
            by_times.setdefault(t, []).append(offsets)
        for t, parts in by_times.items():  # one count over the whole length per multiplicity
            counts += np.bincount(np.concatenate(parts), minlength=self.length) * t
        if (counts == 0).any():
            missing = int((counts == 0).sum())
            return (f"{missing} of its {self.length} elements are never written (the first "
                    f"is element {int(np.argmax(counts == 0))})")
        if (counts > 1).any():
            return f"element {int(np.argmax(counts > 1))} is written more than once"
        return None


def _affine_image(offset: Index, loops: dict[str, int], lanes: int = 1
                  ) -> tuple[int, int, int] | None:
    """(start, stop, times) when the offset, plus each of its vector's ``lanes``, takes
    every value of [start, stop) the same number of times over the loops' iteration space
    (a mixed radix of loop indices, the lanes its unit digit)."""
    base = 0
    terms = [(1, lanes)]
    for m, c in offset.terms.items():
        if not m:
            base = c
        elif len(m) == 1 and isinstance(m[0], Var) and m[0].name in loops and c > 0:
            terms.append((c, loops[m[0].name]))
        else:
            return None
    used = {m[0].name for m in offset.terms if m}
    times = math.prod(n for name, n in loops.items() if name not in used)
    radix = 1
    for c, n in sorted(terms):
        if n == 1:
            continue
        if c != radix:
            return None
        radix *= n
    return base, base + radix, times


def _enumerate(offset: Index, loops: dict[str, int]) -> np.ndarray | None:
    size = math.prod(loops.values())
    if size > ENUMERATION_LIMIT or any(isinstance(a, Opaque) for a in offset.atoms()):
        return None
    names = sorted(offset.variables())
    if any(n not in loops for n in names):
        return None
    grids = np.meshgrid(*(np.arange(loops[n], dtype=np.int64) for n in names), indexing="ij")
    env = {n: g.reshape(-1) for n, g in zip(names, grids)}
    values = np.asarray(offset.evaluate(env), dtype=np.int64).reshape(-1)
    repeat = math.prod(n for name, n in loops.items() if name not in names)
    return np.tile(values, repeat) if repeat > 1 else values


def _record(count: _Count, store: ir.Store, enclosing: tuple, copies: int) -> None:
    loops = {f.index: f.extent for f in enclosing if isinstance(f, ir.Loop)}
    affine = not any(isinstance(a, Div | Mod | Opaque) for a in store.offset.atoms())
    image = _affine_image(store.offset, loops, store.width) if affine else None
    if image is not None:  # all lanes at once
        start, stop, times = image
        count.intervals.append((start, stop, times * copies))
        return
    for lane in range(store.width):  # lanes that overlap, or offsets that are not affine
        offset = store.offset + lane
        image = _affine_image(offset, loops) if affine and store.width > 1 else None
        if image is not None:
            start, stop, times = image
            count.intervals.append((start, stop, times * copies))
            continue
        points = _enumerate(offset, loops)
        if points is not None:
            if (points < 0).any() or (points >= count.length).any():
                raise CodegenError(f"a store to {store.buffer} falls outside its "
                                   f"{count.length} elements")
            count.points.append((points, copies))
        else:
            count.unknown += math.prod(loops.values()) * copies


def check(module: ir.Module) -> None:
    """Refuse a program whose output is not written exactly once per element."""
    outputs = {b.name: b for b in module.outputs}
    counts = {name: _Count(b.length) for name, b in outputs.items()}
    writers: dict[str, list[ir.Kernel]] = {name: [] for name in outputs}
    for kernel, launch in zip(module.kernels, module.launches):
        for stmt, enclosing in ir.statements(kernel.body):
            if isinstance(stmt, ir.Store) and stmt.buffer in outputs:
                _record(counts[stmt.buffer], stmt, enclosing, copies(enclosing, launch))
                if kernel not in writers[stmt.buffer]:
                    writers[stmt.buffer].append(kernel)
    for name, count in counts.items():
        problem = count.problem()
        if problem is None:
            continue
        kernel = (writers[name] or module.kernels)[-1]
        hint = "" if writers[name] else \
            " (a map of layout primitives only computes nothing: add a copy, e.g. mapLocal id)"
        raise CodegenError(f"the output {name} is not written exactly once: {problem}{hint}",
                           kernel.path, kernel.node)

"""The written-once check: every element of a program's output is stored exactly once, and
every element of a global temporary that a kernel reads was stored before (by an earlier
kernel, or earlier in the same one), or the program is refused naming the computation (a
kernel that never writes its result — a map of layout primitives only, such as
``mapWorkgroup (id ∘ id)`` — would otherwise leave garbage that only a comparison with the
interpreter notices, and not even that where the garbage is never looked at).

A store is executed once per point of its enclosing loops' iteration space by each
work-item that runs it (``launch.copies``). Its offsets over that space are counted
exactly: symbolically when the offset is affine in loop indices that form a mixed radix
(``i + 4·l + 1024·wg``, the common case), else by enumeration when the space is small
enough; otherwise (offsets computed at run
time by an index function, or huge spaces with divisions) only the number of stores is
compared with the number of elements. Reads are located the same way; a read whose offsets
cannot be told needs the whole temporary written. Offsets outside the buffer (the untaken
side of a padded read) are left to the bounds checks of Oclgrind.
"""

from __future__ import annotations

import math

import numpy as np

from . import CodegenError, ir
from .arith import Div, Index, Mod, Opaque, Var
from .launch import copies

# store executions counted one by one at most: a stencil's store through its inlined
# rotation at 1024 x 1024 took 34 of the 41 ms its code generation took at 2^20, and a
# search generates code for hundreds of candidates; beyond it, the run's check against the
# interpreter is what catches a store written twice or not at all
ENUMERATION_LIMIT = 1 << 18


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
    """Refuse a program whose output is not written exactly once per element, or one that
    reads an element of a temporary that nothing wrote before."""
    check_outputs(module)
    check_reads(module)


def check_outputs(module: ir.Module) -> None:
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
        raise CodegenError(f"the output {name} is not written exactly once: {problem}"
                           f"{_hint(bool(writers[name]))}", kernel.path, kernel.node)


def _hint(written: bool) -> str:
    return "" if written else \
        " (a map of layout primitives only computes nothing: add a copy, e.g. mapLocal id)"


class _Coverage:
    """The elements of one global buffer stored so far: intervals, and a mask for elements
    counted one by one; stores whose offsets cannot be told are only counted."""

    def __init__(self, length: int):
        self.length = length
        self.intervals: list[tuple[int, int]] = []
        self.mask: np.ndarray | None = None
        self.unknown = 0

    def add(self, count: _Count) -> None:
        self.intervals += [(a, b) for a, b, _ in count.intervals]
        if count.points:
            if self.mask is None:
                self.mask = np.zeros(self.length, dtype=bool)
            for offsets, _ in count.points:
                self.mask[offsets] = True
        self.unknown += count.unknown

    def missing(self, start: int, stop: int) -> tuple[int, int, int] | None:
        """(first, last, how many) of the elements of [start, stop) not stored, clipped to
        the buffer; None when all were, or when stores that cannot be told may have."""
        start, stop = max(start, 0), min(stop, self.length)
        if start >= stop or self.unknown >= self.length:
            return None
        if self.mask is None:  # intervals only: the gaps between them, without arrays
            gaps, end = [], start
            for a, b in sorted(self.intervals):
                if b <= end:
                    continue
                if a >= stop:
                    break
                if a > end:
                    gaps.append((end, a))
                end = max(end, b)
            if end < stop:
                gaps.append((end, stop))
            if not gaps:
                return None
            return gaps[0][0], gaps[-1][1] - 1, sum(b - a for a, b in gaps)
        return self.missing_points(np.arange(start, stop))

    def missing_points(self, points: np.ndarray) -> tuple[int, int, int] | None:
        """The same for the elements at the given offsets."""
        points = points[(points >= 0) & (points < self.length)]
        if not points.size or self.unknown >= self.length:
            return None
        covered = np.zeros(self.length, dtype=bool) if self.mask is None else self.mask.copy()
        for a, b in self.intervals:
            covered[a:b] = True
        lacking = np.unique(points[~covered[points]])
        if not lacking.size:
            return None
        return int(lacking[0]), int(lacking[-1]), int(lacking.size)


def _read_set(load: ir.Load, enclosing: tuple) -> list[tuple[int, int] | np.ndarray] | None:
    """The elements a load reads over its loops' iteration space: intervals or offsets
    (None: they cannot be told)."""
    loops = {f.index: f.extent for f in enclosing if isinstance(f, ir.Loop)}
    affine = not any(isinstance(a, Div | Mod | Opaque) for a in load.offset.atoms())
    image = _affine_image(load.offset, loops, load.width) if affine else None
    if image is not None:
        return [image[:2]]
    parts: list = []
    for lane in range(load.width):
        points = _enumerate(load.offset + lane, loops)
        if points is None:
            return None
        parts.append(points)
    return parts


def check_reads(module: ir.Module) -> None:
    """Refuse a program in which a kernel reads an element of a global temporary (or of an
    output) that no store before it wrote: kernels in launch order, the statements of each
    in program order (an ``iterate`` of one work-item reads back what it wrote)."""
    coverage = {b.name: _Coverage(b.length) for b in module.buffers
                if b.role != "input" and b.space == "global"}
    roles = {b.name: b.role for b in module.buffers}
    for k, kernel in enumerate(module.kernels):
        for stmt, enclosing in ir.statements(kernel.body):
            for load in ir.stmt_loads(stmt):
                if load.buffer not in coverage:
                    continue
                problem = _unwritten(coverage[load.buffer], load, enclosing)
                if problem is None:
                    continue
                what = f"{problem} of the {roles[load.buffer]} {load.buffer}"
                idle = next((kr for kr in module.kernels[:k] if not _stores_globally(kr,
                                                                                     coverage)),
                            None)
                if idle is not None:  # the computation that should have written it
                    shown = kernel.node if len(kernel.node) <= 60 else kernel.node[:57] + "..."
                    raise CodegenError(f"this computation stores nothing, yet a later one "
                                       f"(`{shown}`) reads {what}{_hint(False)}",
                                       idle.path, idle.node)
                raise CodegenError(f"this computation reads {what}, which nothing before "
                                   f"it writes", kernel.path, kernel.node)
            if isinstance(stmt, ir.Store) and stmt.buffer in coverage:
                count = _Count(coverage[stmt.buffer].length)
                _record(count, stmt, enclosing, 1)
                coverage[stmt.buffer].add(count)


def _stores_globally(kernel: ir.Kernel, buffers) -> bool:
    return any(isinstance(s, ir.Store) and s.buffer in buffers
               for s, _ in ir.statements(kernel.body))


def _unwritten(coverage: _Coverage, load: ir.Load, enclosing: tuple) -> str | None:
    """Which elements the load reads that were not stored before (None: none)."""
    reads = _read_set(load, enclosing)
    if reads is None:  # offsets computed at run time: the whole buffer must be written
        reads = [(0, coverage.length)]
    for part in reads:
        lacking = coverage.missing(*part) if isinstance(part, tuple) else \
            coverage.missing_points(part)
        if lacking is None:
            continue
        first, last, count = lacking
        if count == 1:
            return f"element {first}"
        if last - first + 1 == count:
            return f"elements {first} to {last}"
        return f"{count} elements (from {first} to {last})"
    return None

"""Random inputs for a program: the arrays ``workbench eval/run/search``, the demo, the
widget's run panel and the benchmarks run kernels on.

Values respect the program's input ranges when its file declares them (``domain``);
otherwise floats are drawn from [-1, 1) and ints are indices valid for the arrays among the
inputs (so programs such as md can use them to index). Inputs larger than the memory
available are refused, naming the sizes, before anything is allocated.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import numpy as np

from .domain import Interval, Range, ranges_problem
from .errors import (
    ArgumentError,
    EvaluationError,
    ResourceError,
    WorkbenchError,
    shown,
    sizes_argument,
    whole_argument,
)
from .sizes import Size
from .typecheck import input_type_argument
from .types import ArrayType, ScalarType, TupleType, Type, VectorType, substitute_sizes

_ITEM_BYTES = {"float": 4, "int": 4, "bool": 1, "double": 8}


def random_inputs(types: list[Type], sizes: Mapping[str, int], seed: int,
                  ranges: tuple[Range, ...] | None = None) -> list:
    """Random inputs of the given types at these sizes (one value per type: a NumPy
    array, a scalar, or a tuple of arrays for an array of tuples), drawn from ``ranges``
    (one per input, see ``domain``; None for the defaults)."""
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ArgumentError(f"seed = {seed!r}: give a whole number of at least 0", "seed")
    types, sizes = _types_argument(types), sizes_argument(sizes)
    for name, value in sizes.items():
        if value <= 0:
            raise ArgumentError(f"sizes: {name} = {value} is not positive", "sizes")
    concrete = []
    for t in types:
        missing = sorted(n for n in size_names(t) if n not in sizes)
        if missing:
            raise WorkbenchError(f"the input type {t} needs a value for "
                                 f"{', '.join(missing)}: give --size {missing[0]}=...")
        concrete.append(substitute_sizes(t, dict(sizes)))
    if ranges is not None:
        problem = _ranges_problem(ranges, concrete)
        if problem is not None:
            raise WorkbenchError(f"input ranges do not fit the inputs: {problem}")
    check_memory(types, concrete, sizes)
    rng = np.random.default_rng(seed)
    lengths = [int(t.size.value) for t in concrete if isinstance(t, ArrayType)]
    limit = min(lengths) if lengths else 16
    items = ranges if ranges is not None else (None,) * len(concrete)
    return [_random_value(t, rng, limit, item) for t, item in zip(concrete, items)]


def _types_argument(types) -> list[Type]:
    if not isinstance(types, list | tuple):
        raise ArgumentError(f"types = {shown(types)}: give a list of input types", "types")
    return [input_type_argument(k, t) for k, t in enumerate(types, start=1)]


def _ranges_problem(ranges, concrete: list[Type]) -> str | None:
    """What is wrong with ``ranges`` for inputs of these types (``domain.ranges_problem``),
    ranges that are not one range (or None) per input refused naming the argument."""
    try:
        return ranges_problem(tuple(ranges), concrete)
    except (TypeError, AttributeError, ValueError):
        raise ArgumentError(f"ranges = {shown(ranges)}: give one range per input (a "
                            f"domain.Interval, or None for the default)", "ranges") from None


INT_RANGE = (-2 ** 31, 2 ** 31 - 1)  # the workbench's int: OpenCL's 32 bits


def check_exact_inputs(arrays) -> None:
    """Refuse inputs that a kernel would not see as given, naming the input: a masked
    array (the kernel reads the masked elements too) and integers outside ``int``'s 32
    bits (cast to ``int`` they would wrap round)."""
    if not isinstance(arrays, list | tuple):
        raise ArgumentError(f"arrays = {shown(arrays)}: give the inputs as a list or tuple",
                            "arrays")
    for i, value in enumerate(arrays, start=1):
        for part in _parts(value):
            if isinstance(part, np.ma.MaskedArray):
                raise EvaluationError(f"input {i}: a masked array; kernels read every element, "
                                      f"the masked ones too: give .filled(value) or "
                                      f".compressed() instead", input=i)
            _check_int_range(part, i)


def _parts(value) -> list:
    if isinstance(value, tuple):
        return [p for v in value for p in _parts(v)]
    if isinstance(value, list):
        try:
            return [np.asarray(value)]
        except (ValueError, TypeError):
            return []  # ragged: the interpreter names it
    return [value]


def _check_int_range(part, i: int) -> None:
    if isinstance(part, bool) or not isinstance(part, int | np.ndarray | np.integer):
        return
    arr = np.asarray(part)
    if arr.dtype.kind not in "iu" or arr.size == 0:
        return
    low, high = int(arr.min()), int(arr.max())
    if low < INT_RANGE[0] or high > INT_RANGE[1]:
        bad = low if low < INT_RANGE[0] else high
        raise EvaluationError(f"input {i}: the integer {bad} is outside int's 32 bits "
                              f"({INT_RANGE[0]} to {INT_RANGE[1]}); kernels compute with 32-bit "
                              f"ints and would wrap it round", input=i)


def size_names(t: Type) -> set[str]:
    """The size variables a type mentions (``N`` and ``K`` in ``[[int]_K]_N``)."""
    if isinstance(t, ArrayType | VectorType):
        return set(t.size.free_vars) | size_names(t.elem)
    if isinstance(t, TupleType):
        return set().union(*(size_names(i) for i in t.items))
    return set()


# --- memory ------------------------------------------------------------------------------------

def input_bytes(t: Type) -> int:
    """The bytes a value of the concrete type ``t`` takes."""
    count = 1
    while isinstance(t, ArrayType | VectorType):
        count *= int(t.size.value)
        t = t.elem
    if isinstance(t, TupleType):
        return count * sum(input_bytes(i) for i in t.items)
    if isinstance(t, ScalarType):
        return count * _ITEM_BYTES.get(t.name, 8)
    return count * 8


def available_memory() -> int | None:
    """Bytes of memory this process can still take, None when unknown: the system's
    (MemAvailable), or less where a control group limits the process (a container, a
    JupyterHub or Binder server: its limit kills a kernel long before the machine is
    full)."""
    system = _system_available()
    group = _cgroup_available()
    known = [n for n in (system, group) if n is not None]
    return min(known) if known else None


def _system_available() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


# cgroup v2 (limit, usage) and v1 files, under the process's own group
_CGROUP_FILES = (("memory.max", "memory.current"),
                 ("memory.limit_in_bytes", "memory.usage_in_bytes"))


def _cgroup_available() -> int | None:
    """The memory left under the process's control group limit, None when unlimited or
    unknown."""
    for folder in _cgroup_folders():
        for limit_name, usage_name in _CGROUP_FILES:
            try:
                with open(os.path.join(folder, limit_name), encoding="ascii") as f:
                    limit = f.read().strip()
                with open(os.path.join(folder, usage_name), encoding="ascii") as f:
                    usage = int(f.read().strip())
            except (OSError, ValueError):
                continue
            if limit == "max" or not limit.isdigit() or int(limit) >= 1 << 60:
                return None  # no limit (v1 writes a huge number)
            return max(0, int(limit) - usage)
    return None


def _cgroup_folders() -> list[str]:
    """The process's memory control group folders, its own first."""
    folders = []
    try:
        with open("/proc/self/cgroup", encoding="ascii") as f:
            for line in f:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                if controllers in ("", "memory") or "memory" in controllers.split(","):
                    base = "/sys/fs/cgroup" if controllers == "" else "/sys/fs/cgroup/memory"
                    folders.append(base + path)
    except (OSError, ValueError):
        pass
    folders += ["/sys/fs/cgroup", "/sys/fs/cgroup/memory"]
    return folders


def check_memory(types: list[Type], concrete: list[Type], sizes: Mapping[str, int]) -> None:
    """Refuse inputs that would not fit in the memory available (before allocating)."""
    needed = sum(input_bytes(t) for t in concrete)
    available = available_memory()
    if available is None or needed <= available:
        return
    used = sorted({n for t in types for n in size_names(t)} & set(sizes))
    named = {n: int(sizes[n]) for n in used}
    shown = ", ".join(f"{n}={v}" for n, v in named.items()) or "these sizes"
    raise ResourceError(f"the inputs at {shown} need {format_bytes(needed)}, more than the "
                        f"{format_bytes(available)} of memory available: choose smaller sizes",
                        sizes=named)


def format_bytes(n: int) -> str:
    """``16.0 MiB``: a number of bytes for people."""
    n = whole_argument(n, "n")
    if n >= 1024 ** 6:  # past what a float holds exactly: whole PiB
        return f"{n // 1024 ** 5} PiB"
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{n} B"
        n /= 1024
    return f"{n} B"  # pragma: no cover


# --- values ------------------------------------------------------------------------------------

def _random_value(t: Type, rng, limit: int, item: Range):
    shape = []
    while isinstance(t, ArrayType | VectorType):
        shape.append(int(t.size.value))
        t = t.elem
    if isinstance(t, TupleType):
        parts = []
        items = item if isinstance(item, tuple) else (item,) * len(t.items)
        for component, sub in zip(t.items, items):
            for n in reversed(shape):
                component = ArrayType(component, Size.const(n))
            parts.append(_random_value(component, rng, limit, sub))
        return tuple(parts)
    if not isinstance(t, ScalarType):
        raise WorkbenchError(f"cannot make random inputs of type {t}")
    if t.name == "int":
        low, high = (item.low, item.high + 1) if isinstance(item, Interval) else (0, limit)
        return rng.integers(low, high, size=shape, dtype=np.int32)
    if t.name == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    dtype = np.float64 if t.name == "double" else np.float32
    low, high = (item.low, item.high) if isinstance(item, Interval) else (-1, 1)
    data = rng.uniform(low, high, size=shape).astype(dtype)
    return data if shape else dtype(data)

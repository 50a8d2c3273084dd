"""OpenCL devices, compilation, timing and isolation (SPEC 7).

Devices, their health and the default device are ``device.opencl``'s; this module builds and
runs on them.

Kernels are timed like the tuners do it: warm-up launches, then repetitions timed with
OpenCL profiling events; every sample is kept, median/min/max reported; transfers are timed
separately. Everything that can go wrong is an ``Outcome`` (compile error, launch error,
timeout, crash, wrong result), never an exception that ends the caller; ``run_isolated``
runs a job in a fresh process with a time limit so that a kernel that hangs or crashes the
driver (as PoCL can) only ends that process.
"""

from __future__ import annotations

import hashlib
import math
import re
import statistics
import threading
import time
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

import numpy as np

from .device import isolation, probe
from .device import lock as device_lock
from .device.host_arrays import in_place_copy
from .device.opencl import DeviceError, DeviceInfo, find_device, health_key, opencl

# --- compilation ------------------------------------------------------------------------------

# A built program holds the driver's compiled code and more (PoCL keeps its LLVM module and
# a compiled copy per work-group size): a notebook that built 60 kernels grew by 140 MiB
# while every program stayed cached. The cache keeps the most recently used ones, up to both
# limits (a search's retiming and a benchmark's rounds reuse a handful); the drivers' own
# caches on disk (PoCL's, pyopencl's) still make building an evicted program again cheap.
MAX_PROGRAMS = 32
MAX_PROGRAM_BYTES = 32 << 20  # sources and binaries


class ProgramCache:
    """Built programs by cache key (``cache_key``), least recently used first out: at most
    ``max_entries`` programs and ``max_bytes`` of their sources and binaries (the newest
    entry is kept even when it alone is larger). One per device's context; the widget's
    threads share it."""

    def __init__(self, max_entries: int = MAX_PROGRAMS, max_bytes: int = MAX_PROGRAM_BYTES):
        self.max_entries, self.max_bytes = max_entries, max_bytes
        self._entries: OrderedDict[str, tuple[object, int]] = OrderedDict()
        self._lock = threading.Lock()
        self.bytes = 0
        self.evicted = 0

    def get(self, key: str):
        """The program under ``key`` (now the most recently used), or None."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            return entry[0]

    def put(self, key: str, program, size: int) -> None:
        with self._lock:
            if key in self._entries:
                self.bytes -= self._entries.pop(key)[1]
            self._entries[key] = (program, size)
            self.bytes += size
            while len(self._entries) > 1 and (len(self._entries) > self.max_entries
                                              or self.bytes > self.max_bytes):
                _, (_, dropped) = self._entries.popitem(last=False)
                self.bytes -= dropped
                self.evicted += 1

    def __contains__(self, key: str) -> bool:
        return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def keys(self) -> list[str]:
        """The keys, least recently used first."""
        return list(self._entries)


def program_bytes(program, source: str, info: DeviceInfo | None = None) -> int:
    """What a built program is counted as: its source and its binaries (as the driver
    reports their sizes; the source alone where it does not, or where asking costs a
    compilation: PoCL writes its binaries only when asked, compiling the program's kernels
    again, 0.3 s for asum's two on PoCL 3.1 and 0.7 s on 3.0, a third to a half of a search
    candidate's time in its worker; its binaries are some 70 KB, far below the limit,
    which its entries' count bounds)."""
    cl = opencl()
    size = len(source.encode())
    if info is not None and info.is_pocl:
        return size
    try:
        size += sum(program.get_info(cl.program_info.BINARY_SIZES))
    except cl.Error:  # a driver that does not say
        pass
    return size


@dataclass
class _Context:
    info: DeviceInfo
    device: object
    context: object
    queue: object
    programs: ProgramCache = field(default_factory=ProgramCache)


_CONTEXTS: dict[str, _Context] = {}


def context_for(spec: str | None = None) -> _Context:
    info, device = find_device(spec)
    ctx = _CONTEXTS.get(info.id)
    if ctx is None:
        cl = opencl()
        context = cl.Context([device])
        queue = cl.CommandQueue(context, properties=cl.command_queue_properties.PROFILING_ENABLE)
        ctx = _CONTEXTS[info.id] = _Context(info, device, context, queue)
    ctx.info = info  # its health and vector widths as probed now
    return ctx


def cache_key(source: str, info: DeviceInfo, options: Sequence[str]) -> str:
    """Compiled programs are cached by source, device, driver version and build options."""
    text = "\0".join([source, info.platform, info.name, info.driver, *options])
    return hashlib.sha256(text.encode()).hexdigest()


class CompileError(Exception):
    def __init__(self, log: str):
        self.log = log
        super().__init__(log)


def build(ctx: _Context, source: str, options: Sequence[str] = ()) -> tuple[object, float]:
    """The built program (from the context's ``ProgramCache`` when possible: then 0 ms) and
    the build time in ms."""
    key = cache_key(source, ctx.info, options)
    cached = ctx.programs.get(key)
    if cached is not None:
        return cached, 0.0
    cl = opencl()
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():  # a driver's remarks on a successful build
            warnings.simplefilter("ignore", cl.CompilerWarning)
            program = cl.Program(ctx.context, source).build(options=list(options))
    except cl.RuntimeError as err:
        raise CompileError(str(err)) from None
    build_ms = (time.perf_counter() - start) * 1000
    ctx.programs.put(key, program, program_bytes(program, source, ctx.info))
    return program, build_ms


# --- outcomes and timing -----------------------------------------------------------------------

OK, COMPILE_ERROR, LAUNCH_ERROR, TIMEOUT, CRASHED, WRONG_RESULT, NO_DEVICE = (
    "ok", "compile error", "launch error", "timeout", "crashed", "wrong result", "no device")


@dataclass
class Timing:
    samples_ms: list[float]

    @property
    def median_ms(self) -> float:
        return statistics.median(self.samples_ms)

    @property
    def min_ms(self) -> float:
        return min(self.samples_ms)

    @property
    def max_ms(self) -> float:
        return max(self.samples_ms)


@dataclass
class Outcome:
    """What happened when something was compiled and run on a device."""

    status: str
    message: str = ""
    value: object = None
    kernel: Timing | None = None
    transfer_ms: float | None = None
    build_ms: float | None = None
    device: str = ""

    @property
    def ok(self) -> bool:
        return self.status == OK


@dataclass(frozen=True)
class Launch:
    """One kernel launch: name, global and local sizes, and argument names in order."""

    kernel: str
    global_size: tuple[int, ...]
    local_size: tuple[int, ...] | None
    args: tuple[str, ...]


def device_key(info: DeviceInfo) -> str:
    """What the device lock is keyed by."""
    return f"{info.platform}|{info.name}|{info.driver}|{info.id}"


@contextmanager
def exclusive(info: DeviceInfo) -> Iterator[None]:
    """Hold the device alone while timing on it (``device.lock``). A CPU device is held from
    the build on, since compiling uses the same cores the kernels run on."""
    with device_lock.exclusive(device_key(info)):
        yield


def run_kernels(source: str, launches: Sequence[Launch], inputs: dict[str, np.ndarray],
                outputs: dict[str, tuple[tuple[int, ...], np.dtype]],
                scratch: dict[str, tuple[tuple[int, ...], np.dtype]] | None = None,
                device: str | None = None, repeat: int = 20, warmup: int = 2,
                options: Sequence[str] = (), time_limit_ms: float | None = None,
                local_bytes: dict[str, int] | None = None,
                cutoff_ms: float | None = None,
                private_bytes: dict[str, int] | None = None,
                constant_bytes: dict[str, tuple[int, int]] | None = None) -> Outcome:
    """Build ``source``, copy ``inputs`` to the device, run the launches ``warmup`` +
    ``repeat`` times (timing each repetition with profiling events, all launches summed),
    and read back ``outputs`` (filled with NaN before the first run, so an output that is
    not completely written shows up as wrong). With ``time_limit_ms``, repetitions stop
    once the runs have taken that long and three are timed (a search need not time a
    kernel a hundred times slower than its best twenty times). With ``cutoff_ms``, a kernel
    whose first two runs each take longer is timed no further: its one sample is the faster
    of the two (a search's candidate already far slower than its best). ``local_bytes`` and
    ``private_bytes`` (per kernel; private: per work-item) are checked against the device
    first (``fit_private_arrays``), and so are ``constant_bytes`` (per kernel: the bytes and
    the number of its constant buffers)."""
    cl = opencl()
    try:
        ctx = context_for(device)
    except DeviceError as err:
        return Outcome(NO_DEVICE, str(err))
    except cl.Error as err:
        return Outcome(NO_DEVICE, f"the device cannot be opened: {err}")
    # refusals that need no device, so not its lock either
    too_large = oversized_work_group(ctx.device, launches) or \
        oversized_local_memory(ctx.device, local_bytes or {}) or \
        oversized_constant_memory(ctx.device, constant_bytes or {})
    if too_large:
        return Outcome(LAUNCH_ERROR, too_large, device=ctx.info.name)
    launches, too_large = fit_private_arrays(ctx.info, launches, private_bytes or {})
    if too_large:
        return Outcome(LAUNCH_ERROR, too_large, device=ctx.info.name)
    crash = known_compiler_crash(ctx.info, source)
    if crash:
        return Outcome(COMPILE_ERROR, crash, device=ctx.info.name)
    if ctx.info.kind == "cpu":
        with exclusive(ctx.info):
            return _build_and_run(ctx, source, launches, inputs, outputs, scratch, repeat,
                                  warmup, options, time_limit_ms=time_limit_ms,
                                  cutoff_ms=cutoff_ms)
    return _build_and_run(ctx, source, launches, inputs, outputs, scratch, repeat, warmup,
                          options, lock=True, time_limit_ms=time_limit_ms, cutoff_ms=cutoff_ms)


def _build_and_run(ctx, source, launches, inputs, outputs, scratch, repeat, warmup, options,
                   lock: bool = False, time_limit_ms: float | None = None,
                   cutoff_ms: float | None = None) -> Outcome:
    cl = opencl()
    try:
        program, build_ms = build(ctx, source, options)
    except CompileError as err:
        return Outcome(COMPILE_ERROR, err.log, build_ms=None, device=ctx.info.name)
    mf = cl.mem_flags
    in_place = ctx.info.kind == "cpu"

    def buffer(flags, host: np.ndarray):
        # A CPU device computes on host memory: large arrays in huge pages, used in place.
        pages = in_place_copy(host) if in_place else None
        if pages is not None:
            return cl.Buffer(ctx.context, flags | mf.USE_HOST_PTR, hostbuf=pages)
        return cl.Buffer(ctx.context, flags | mf.COPY_HOST_PTR, hostbuf=host)

    try:
        start = time.perf_counter()
        buffers = {name: buffer(mf.READ_ONLY, np.ascontiguousarray(array))
                   for name, array in inputs.items()}
        host_out = {}
        for name, (shape, dtype) in {**outputs, **(scratch or {})}.items():
            host = np.full(shape, np.nan, dtype=dtype) if np.dtype(dtype).kind == "f" \
                else np.zeros(shape, dtype=dtype)
            host_out[name] = host
            buffers[name] = buffer(mf.READ_WRITE, host)
        ctx.queue.finish()
        transfer_ms = (time.perf_counter() - start) * 1000
        kernels = {name: cl.Kernel(program, name) for name in {l.kernel for l in launches}}
        samples, runs = [], []
        with exclusive(ctx.info) if lock else _nothing():
            for i in range(warmup + repeat):
                total = 0.0
                for launch in launches:
                    k = kernels[launch.kernel]
                    event = k(ctx.queue, launch.global_size, launch.local_size,
                              *[buffers[a] for a in launch.args])
                    event.wait()
                    total += (event.profile.end - event.profile.start) * 1e-6
                runs.append(total)
                if i >= warmup:
                    samples.append(total)
                if cutoff_ms is not None and len(runs) == 2 and min(runs) > cutoff_ms:
                    samples = [min(runs)]
                    break
                if time_limit_ms is not None and len(samples) >= 3 and sum(runs) > time_limit_ms:
                    break
        start = time.perf_counter()
        for name in outputs:
            cl.enqueue_copy(ctx.queue, host_out[name], buffers[name])
        ctx.queue.finish()
        transfer_ms += (time.perf_counter() - start) * 1000
    except cl.Error as err:
        # A kernel that faults can leave the context unusable (NVIDIA then fails every
        # later build with -9999): the next run starts a fresh one.
        _CONTEXTS.pop(ctx.info.id, None)
        return Outcome(LAUNCH_ERROR, str(err), device=ctx.info.name, build_ms=build_ms)
    return Outcome(OK, value={n: host_out[n] for n in outputs}, kernel=Timing(samples),
                   transfer_ms=transfer_ms, build_ms=build_ms, device=ctx.info.name)


def known_compiler_crash(info: DeviceInfo, source: str) -> str | None:
    """Why building ``source`` would fail or kill this process (None when nothing is known):
    a vector width that failed the device's probe (``DeviceInfo.vector_widths``), or one
    whose built-in functions failed it (``DeviceInfo.builtin_widths``: PoCL 3.0 from PyPI on
    an AVX-512 CPU runs float16 code and aborts on float16 built-ins) in a source that calls
    built-in functions, is refused before it is built, so a notebook's kernel does not die
    with it."""
    if not info.vector_widths:
        return None  # not probed for widths (a device found before the probe knew them)
    widths = ", ".join(map(str, info.vector_widths))
    used = {int(m.group(1)): m.group(0) for m in _VECTOR_TYPE.finditer(source)}
    for n, name in sorted(used.items()):
        if n not in info.vector_widths:
            return (f"vectors of {n} ({name}) failed this device's probe (they do not "
                    f"build, run or compute right here; `workbench devices` shows each "
                    f"device's vector widths): use widths {widths}")
    for n, name in sorted(used.items()):
        if n in info.builtin_widths:
            continue
        called = sorted(f for f in builtin_calls(source) if _named_width(f) in ("", str(n)))
        if called:
            return (f"built-in functions on vectors of {n} ({name}) failed this device's "
                    f"probe, and this kernel calls {', '.join(called[:4])}: use widths "
                    + ", ".join(map(str, info.builtin_widths)) + " for it")
    return None


_WIDTH_NAMED = re.compile(r"v(?:load|store)(?:a_half|_half)?(\d+)")


def _named_width(function: str) -> str:
    """The vector width a built-in's name carries (vload8: '8'; '' for one that takes any)."""
    named = _WIDTH_NAMED.fullmatch(function)
    return named.group(1) if named else ""


_VECTOR_TYPE = re.compile(r"\b(?:float|double|u?int|u?long|u?short|u?char)(2|4|8|16)\b")
_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
# what is no call into the driver's library: statements, casts, reinterpretations (as_float8),
# the work-item functions, barriers, and the kernel's own functions (found in the source)
_NOT_LIBRARY = re.compile(r"(if|for|while|switch|return|sizeof|as_\w+|get_\w+|barrier|"
                          r"mem_fence|sub_group_barrier|WARP_BARRIER|defined|"
                          r"(?:float|double|u?int|u?long|u?short|u?char|bool|size_t)\d*)")


def builtin_calls(source: str) -> set[str]:
    """The built-in functions a kernel's source calls (vload8, fma, sqrt, …): every name
    called that the source does not define and that is no statement, cast, reinterpretation,
    work-item function or barrier."""
    code = re.sub(r"//[^\n]*|/\*.*?\*/|__attribute__\s*\(\(.*?\)\)", " ", source,
                  flags=re.DOTALL)
    defined = set(re.findall(r"\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*\{", code))
    return {name for name in _CALL.findall(code)
            if name not in defined and not _NOT_LIBRARY.fullmatch(name)}


def oversized_work_group(device, launches: Sequence[Launch]) -> str | None:
    """Why a launch's work-groups do not fit the device (None when they all do): checked
    before building, so the message names the kernel and both sizes, where OpenCL only says
    INVALID_WORK_GROUP_SIZE."""
    most = device.max_work_group_size
    per_dim = list(device.max_work_item_sizes)
    for launch in launches:
        if launch.local_size is None:
            continue
        items = math.prod(launch.local_size)
        dims = [d for d, n in enumerate(launch.local_size) if n > per_dim[min(d, 2)]]
        if items > most or dims:
            shape = " x ".join(map(str, launch.local_size))
            limit = (f"at most {most} work-items" if items > most else
                     f"at most {per_dim[dims[0]]} in dimension {dims[0]}")
            return (f"{launch.kernel}: work-groups of {shape} work-items do not fit the "
                    f"device ({limit})")
    return None


def oversized_local_memory(device, local_bytes: dict[str, int]) -> str | None:
    """Why a kernel's local memory does not fit the device (None when all fit): checked
    before building, since some drivers (PoCL) abort the process on a launch that asks for
    more than they have."""
    most = device.local_mem_size
    for kernel, size in local_bytes.items():
        if size > most:
            return (f"{kernel}: its local memory ({size} bytes) does not fit the device "
                    f"(at most {most} bytes per work-group)")
    return None


def oversized_constant_memory(device, constant_bytes: dict[str, tuple[int, int]]
                              ) -> str | None:
    """Why a kernel's constant buffers do not fit the device (None when they fit): their
    bytes in all against ``CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE``, their number against
    ``CL_DEVICE_MAX_CONSTANT_ARGS`` (a build or a launch past them fails, on some drivers
    only when the kernel runs)."""
    for kernel, (size, count) in constant_bytes.items():
        if not count:
            continue
        most, args = device.max_constant_buffer_size, device.max_constant_args
        if size > most:
            return (f"{kernel}: its constant inputs ({size} bytes) do not fit the device's "
                    f"constant memory (at most {most} bytes)")
        if count > args:
            return (f"{kernel}: its {count} constant buffers are more than the device takes "
                    f"(at most {args})")
    return None


PRIVATE_UNCHECKED = probe.PRIVATE_GROUPS[0] * probe.PRIVATE_ITEM_BYTES  # below the probe


def fit_private_arrays(info: DeviceInfo, launches: Sequence[Launch],
                       private_bytes: dict[str, int]) -> tuple[list[Launch], str | None]:
    """The launches with work-groups that hold no more private arrays (``private_bytes``:
    per work-item, per kernel) than the device's work-groups held in its probe
    (``probe.private_group_limit``: PoCL keeps every work-item's copy on one thread's stack,
    and a work-group past it kills the process), or why a launch cannot have them. A launch
    whose work-group size the driver chooses gets the largest that fits (its code does not
    depend on it); one whose code fixes the size is refused when that does not fit. Small
    arrays never ask the probe."""
    def most(launch: Launch) -> int:  # the bytes of the largest work-group it may have
        items = math.prod(launch.local_size) if launch.local_size is not None else \
            min(math.prod(launch.global_size), info.max_work_group_size)
        return private_bytes.get(launch.kernel, 0) * items

    if all(most(launch) <= PRIVATE_UNCHECKED for launch in launches):
        return list(launches), None
    limit = probe.private_group_limit(info, health_key(info))
    if limit is None:
        return list(launches), None
    out = []
    for launch in launches:
        per_item = private_bytes.get(launch.kernel, 0)
        if most(launch) <= limit:
            out.append(launch)
            continue
        items = limit // per_item
        if items < 1 or launch.local_size is not None:
            held = (f"one work-item's private arrays ({_bytes_text(per_item)})" if items < 1
                    else f"its work-groups of {math.prod(launch.local_size)} work-items "
                         f"({_bytes_text(most(launch))} of private arrays)")
            return list(launches), (
                f"{launch.kernel}: {held} do not fit this device's work-groups, which held "
                f"at most {_bytes_text(limit)} of private arrays in its probe (larger ones "
                f"failed: a driver that keeps every work-item's arrays on one thread's "
                f"stack, as PoCL does, overflows that stack and the process dies)")
        out.append(replace(launch, local_size=_largest_group(launch.global_size, items)))
    return out, None


def _largest_group(global_size: tuple[int, ...], items: int) -> tuple[int, ...]:
    """A work-group size of at most ``items`` work-items that divides the global size,
    filled from dimension 0 on."""
    out = []
    for n in global_size:
        size = max(d for d in range(1, min(n, items) + 1) if n % d == 0)
        out.append(size)
        items //= size
    return tuple(out)


def _bytes_text(n: int) -> str:
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:g} {unit}"
    return f"{n} bytes"


@contextmanager
def _nothing() -> Iterator[None]:
    yield


# --- isolation ---------------------------------------------------------------------------------

def run_isolated(job: Callable, *args, timeout: float = 60.0, **kwargs) -> Outcome:
    """Run ``job(*args, **kwargs)`` in a fresh process (``isolation``); a hang becomes a
    ``timeout`` outcome and a crash (even one that kills the process) a ``crashed`` outcome.
    A job's ``Outcome`` is returned as it is, any other value as ``Outcome(OK, value=…)``."""
    finished = isolation.run_isolated(job, *args, timeout=timeout, **kwargs)
    if finished.kind == "value":
        value = finished.payload
        return value if isinstance(value, Outcome) else Outcome(OK, value=value)
    if finished.kind == "error":
        return Outcome(CRASHED, finished.payload)
    return Outcome(TIMEOUT if finished.kind == isolation.TIMEOUT else CRASHED, finished.payload)

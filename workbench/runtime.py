"""OpenCL devices, compilation, timing and isolation (SPEC 7).

The embedded default device is PoCL's CPU device, installed from PyPI with the package.
NVIDIA GPUs are found through their ICD; when ``libnvidia-opencl.so.1`` is present but no
ICD file names it, the workbench registers it through ``OCL_ICD_VENDORS`` (before the ICD
loader first looks) and says so in ``notes()``.

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
import multiprocessing
import os
import re
import statistics
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

NVIDIA_LIBRARY_DIRS = ("/usr/local/nvidia/lib64", "/usr/lib/x86_64-linux-gnu",
                       "/usr/lib64", "/usr/lib")
_NOTES: list[str] = []
_cl = None


def _register_nvidia_icd() -> None:
    """Point the ICD loader at NVIDIA's OpenCL library when nothing registers it."""
    if "OCL_ICD_VENDORS" in os.environ:
        return
    registered = Path("/etc/OpenCL/vendors")
    if registered.is_dir() and any("nvidia" in p.name.lower() for p in registered.iterdir()):
        return
    for folder in NVIDIA_LIBRARY_DIRS:
        library = Path(folder) / "libnvidia-opencl.so.1"
        if library.exists():
            icd_dir = Path(tempfile.gettempdir()) / "workbench-icd"
            icd_dir.mkdir(exist_ok=True)
            (icd_dir / "nvidia.icd").write_text(str(library) + "\n")
            # Keep the vendors already registered system-wide visible as well.
            if registered.is_dir():
                for icd in registered.glob("*.icd"):
                    target = icd_dir / icd.name
                    if not target.exists():
                        target.write_text(icd.read_text())
            os.environ["OCL_ICD_VENDORS"] = str(icd_dir)
            _NOTES.append(f"registered NVIDIA's OpenCL driver {library} (no ICD file named "
                          f"it) through OCL_ICD_VENDORS={icd_dir}")
            return


def opencl():
    """The pyopencl module, imported once the ICD environment is set up."""
    global _cl
    if _cl is None:
        _register_nvidia_icd()
        import pyopencl

        _cl = pyopencl
    return _cl


def notes() -> list[str]:
    """What the runtime did on its own (e.g. registering a driver)."""
    opencl()
    return list(_NOTES)


@dataclass(frozen=True)
class DeviceInfo:
    """A device the workbench can use; ``id`` is what ``--device`` accepts."""

    id: str
    platform: str
    name: str
    kind: str  # "cpu", "gpu", "accelerator", "simulator" (Oclgrind)
    driver: str
    compute_units: int
    max_work_group_size: int
    local_memory_bytes: int
    doubles: bool

    def as_json(self) -> dict:
        return dict(self.__dict__)


def _kind(device) -> str:
    cl = opencl()
    if "oclgrind" in device.platform.name.lower():
        return "simulator"  # Oclgrind calls itself a GPU; it checks kernels, it is not one
    if device.type & cl.device_type.GPU:
        return "gpu"
    if device.type & cl.device_type.CPU:
        return "cpu"
    return "accelerator"


def _all_devices() -> list[tuple[DeviceInfo, object]]:
    cl = opencl()
    out = []
    try:
        platforms = cl.get_platforms()
    except cl.Error:  # no ICD at all
        return []
    for p, platform in enumerate(platforms):
        try:
            devices = platform.get_devices()
        except cl.Error:
            continue
        for d, device in enumerate(devices):
            info = DeviceInfo(
                id=f"{p}:{d}", platform=platform.name.strip(), name=device.name.strip(),
                kind=_kind(device), driver=device.driver_version.strip(),
                compute_units=device.max_compute_units,
                max_work_group_size=device.max_work_group_size,
                local_memory_bytes=device.local_mem_size,
                doubles="cl_khr_fp64" in device.extensions)
            out.append((info, device))
    return out


def devices() -> list[DeviceInfo]:
    """Every OpenCL device found (PoCL's CPU device at least, when installed)."""
    return [info for info, _ in _all_devices()]


class DeviceNotFound(Exception):
    pass


def find_device(spec: str | None = None):
    """``(DeviceInfo, pyopencl.Device)`` for ``spec``: None (the default: PoCL's CPU device,
    else the first device), ``cpu``/``gpu``, an id ``P:D``, or part of a device/platform
    name (``pthread``, ``NVIDIA``, ``H100``)."""
    found = _all_devices()
    if not found:
        raise DeviceNotFound("no OpenCL device: install the package's dependencies "
                             "(pocl-binary-distribution provides a CPU device)")
    if spec is None:
        for info, device in found:
            if "portable computing language" in info.platform.lower():
                return info, device
        # a simulator (Oclgrind) only when asked for
        return next((f for f in found if "oclgrind" not in f[0].platform.lower()), found[0])
    for info, device in found:
        if spec in (info.id, info.kind):
            return info, device
    for info, device in found:
        if spec.lower() in (info.name + " " + info.platform).lower():
            return info, device
    known = ", ".join(f"{i.id} {i.name} ({i.platform})" for i, _ in found)
    raise DeviceNotFound(f"no device matches {spec!r}; found: {known}")


# --- compilation ------------------------------------------------------------------------------

@dataclass
class _Context:
    info: DeviceInfo
    device: object
    context: object
    queue: object
    programs: dict = field(default_factory=dict)


_CONTEXTS: dict[str, _Context] = {}


def context_for(spec: str | None = None) -> _Context:
    info, device = find_device(spec)
    ctx = _CONTEXTS.get(info.id)
    if ctx is None:
        cl = opencl()
        context = cl.Context([device])
        queue = cl.CommandQueue(context, properties=cl.command_queue_properties.PROFILING_ENABLE)
        ctx = _CONTEXTS[info.id] = _Context(info, device, context, queue)
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
    """The built program (from the cache when possible) and the build time in ms."""
    key = cache_key(source, ctx.info, options)
    if key in ctx.programs:
        return ctx.programs[key], 0.0
    cl = opencl()
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():  # a driver's remarks on a successful build
            warnings.simplefilter("ignore", cl.CompilerWarning)
            program = cl.Program(ctx.context, source).build(options=list(options))
    except cl.RuntimeError as err:
        raise CompileError(str(err)) from None
    ctx.programs[key] = program
    return program, (time.perf_counter() - start) * 1000


# --- outcomes and timing -----------------------------------------------------------------------

OK, COMPILE_ERROR, LAUNCH_ERROR, TIMEOUT, CRASHED, WRONG_RESULT = (
    "ok", "compile error", "launch error", "timeout", "crashed", "wrong result")


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


@contextmanager
def exclusive(info: DeviceInfo) -> Iterator[None]:
    """Hold the device alone while timing on it: processes of one machine (search workers,
    Dask workers) take turns through a lock file per device. A CPU device is held from the
    build on, since compiling uses the same cores the kernels run on."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        yield
        return
    key = hashlib.sha256(info.id.encode()).hexdigest()[:16]
    path = Path(tempfile.gettempdir()) / f"workbench-device-{key}.lock"
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def run_kernels(source: str, launches: Sequence[Launch], inputs: dict[str, np.ndarray],
                outputs: dict[str, tuple[tuple[int, ...], np.dtype]],
                scratch: dict[str, tuple[tuple[int, ...], np.dtype]] | None = None,
                device: str | None = None, repeat: int = 20, warmup: int = 2,
                options: Sequence[str] = (), time_limit_ms: float | None = None) -> Outcome:
    """Build ``source``, copy ``inputs`` to the device, run the launches ``warmup`` +
    ``repeat`` times (timing each repetition with profiling events, all launches summed),
    and read back ``outputs`` (filled with NaN before the first run, so an output that is
    not completely written shows up as wrong). With ``time_limit_ms``, repetitions stop
    once the runs have taken that long and three are timed (a search need not time a
    kernel a hundred times slower than its best twenty times)."""
    cl = opencl()
    try:
        ctx = context_for(device)
    except (DeviceNotFound, cl.Error) as err:
        return Outcome("no device", str(err))
    # refusals that need no device, so not its lock either
    too_large = oversized_work_group(ctx.device, launches)
    if too_large:
        return Outcome(LAUNCH_ERROR, too_large, device=ctx.info.name)
    crash = known_compiler_crash(ctx.info, source)
    if crash:
        return Outcome(COMPILE_ERROR, crash, device=ctx.info.name)
    if ctx.info.kind == "cpu":
        with exclusive(ctx.info):
            return _build_and_run(ctx, source, launches, inputs, outputs, scratch, repeat,
                                  warmup, options, time_limit_ms=time_limit_ms)
    return _build_and_run(ctx, source, launches, inputs, outputs, scratch, repeat, warmup,
                          options, lock=True, time_limit_ms=time_limit_ms)


def _build_and_run(ctx, source, launches, inputs, outputs, scratch, repeat, warmup, options,
                   lock: bool = False, time_limit_ms: float | None = None) -> Outcome:
    cl = opencl()
    try:
        program, build_ms = build(ctx, source, options)
    except CompileError as err:
        return Outcome(COMPILE_ERROR, err.log, build_ms=None, device=ctx.info.name)
    mf = cl.mem_flags
    try:
        start = time.perf_counter()
        buffers = {name: cl.Buffer(ctx.context, mf.READ_ONLY | mf.COPY_HOST_PTR,
                                   hostbuf=np.ascontiguousarray(array))
                   for name, array in inputs.items()}
        host_out = {}
        for name, (shape, dtype) in {**outputs, **(scratch or {})}.items():
            host = np.full(shape, np.nan, dtype=dtype) if np.dtype(dtype).kind == "f" \
                else np.zeros(shape, dtype=dtype)
            host_out[name] = host
            buffers[name] = cl.Buffer(ctx.context, mf.READ_WRITE | mf.COPY_HOST_PTR,
                                      hostbuf=host)
        ctx.queue.finish()
        transfer_ms = (time.perf_counter() - start) * 1000
        kernels = {name: cl.Kernel(program, name) for name in {l.kernel for l in launches}}
        samples, spent = [], 0.0
        with exclusive(ctx.info) if lock else _nothing():
            for i in range(warmup + repeat):
                total = 0.0
                for launch in launches:
                    k = kernels[launch.kernel]
                    event = k(ctx.queue, launch.global_size, launch.local_size,
                              *[buffers[a] for a in launch.args])
                    event.wait()
                    total += (event.profile.end - event.profile.start) * 1e-6
                spent += total
                if i >= warmup:
                    samples.append(total)
                if time_limit_ms is not None and len(samples) >= 3 and spent > time_limit_ms:
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
    """Why building ``source`` would kill this process (None when nothing is known): the
    LLVM of PoCL 3.0 from PyPI aborts on every 16-wide vector kernel on x86 CPUs, so such a
    kernel is refused before it is built (a notebook's kernel would die with it)."""
    pocl_3 = "portable computing language" in info.platform.lower() and \
        info.driver.startswith("3.0")
    wide = re.search(r"\b(float|double|u?int|u?long|u?short|u?char)16\b", source)
    if pocl_3 and wide:
        return (f"PoCL {info.driver}'s compiler crashes on 16-wide vectors ({wide.group(0)}) "
                f"on this CPU and would stop the process: use vector widths up to 8 here")
    return None


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


@contextmanager
def _nothing() -> Iterator[None]:
    yield


# --- isolation ---------------------------------------------------------------------------------

def _child(conn, job, args, kwargs):
    try:
        conn.send(("value", job(*args, **kwargs)))
    except BaseException as err:  # reported to the parent, which survives
        conn.send(("error", f"{type(err).__name__}: {err}"))
    finally:
        conn.close()


def run_isolated(job: Callable, *args, timeout: float = 60.0, **kwargs) -> Outcome:
    """Run ``job(*args, **kwargs)`` in a fresh process; a hang becomes a ``timeout``
    outcome and a crash (even one that kills the process) a ``crashed`` outcome."""
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    process = ctx.Process(target=_child, args=(child, job, args, kwargs), daemon=True)
    process.start()
    child.close()
    if not parent.poll(timeout):
        process.kill()
        process.join()
        return Outcome(TIMEOUT, f"no result within {timeout:g} s; the worker was stopped")
    try:
        kind, payload = parent.recv()
    except EOFError:
        process.join()
        return Outcome(CRASHED, f"the worker process died (exit code {process.exitcode})")
    process.join()
    if kind == "error":
        return Outcome(CRASHED, payload)
    return payload if isinstance(payload, Outcome) else Outcome(OK, value=payload)

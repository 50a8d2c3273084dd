"""OpenCL devices: discovery, health and the default device (SPEC 7, 14).

Devices come through pyopencl's ICD loader: PoCL's CPU device from PyPI
(pocl-binary-distribution), the drivers registered in ``/etc/OpenCL/vendors`` (Debian's
``pocl-opencl-icd``, a GPU vendor's), and Oclgrind, a simulator. When NVIDIA's
``libnvidia-opencl.so.1`` is present but no ICD file names it, the workbench registers it
itself through ``OCL_ICD_VENDORS`` (before the loader first looks) and says so in
``notes()``. PoCL's worker threads are pinned to the cores (``POCL_AFFINITY``, unless it is
set already or the process may not run on every core), also said in ``notes()``.

Every device is probed before it is used (``probe``): a device that lists itself but
builds nothing is *broken* and is never chosen by default. The default is, in order, the
device ``WORKBENCH_DEVICE`` names, the device ``PYOPENCL_CTX`` names (pyopencl's own
variable, in pyopencl's syntax), the first working CPU device, the first working device
that is not a simulator. When nothing works, one ``NoWorkingDevice`` error says what
failed on each device and the command that fixes it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform as host_platform
import re
import selectors
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import WorkbenchError
from .probe import INJECT_ENV, PROBE_VERSION, VECTOR_WIDTHS, injected
from .userdirs import private_dir

try:
    import fcntl
except ImportError:  # not POSIX (Windows): processes do not wait for each other's probes
    fcntl = None

NVIDIA_LIBRARY_DIRS = ("/usr/local/nvidia/lib64", "/usr/lib/x86_64-linux-gnu",
                       "/usr/lib64", "/usr/lib")
SYSTEM_VENDORS = Path("/etc/OpenCL/vendors")
DEVICE_ENV = "WORKBENCH_DEVICE"
PYOPENCL_CTX_ENV = "PYOPENCL_CTX"  # pyopencl's: PLATFORM[:DEVICE], each an index or a name
PROBE_TIMEOUT_S = 120.0  # per device; a first build on a GPU can take seconds
PROBE_TIMEOUT_ENV = "WORKBENCH_PROBE_TIMEOUT"
FIX_POCL = "apt-get install -y pocl-opencl-icd"

PROBE_CHILD = "import sys; from workbench.device.probe import main; sys.exit(main(sys.argv[1:]))"

_NOTES: list[str] = []
_cl = None


class DeviceError(WorkbenchError):
    """A device that cannot be had: none matches, it is broken, or none works."""


class DeviceNotFound(DeviceError):
    pass


class BrokenDevice(DeviceError):
    pass


class NoWorkingDevice(DeviceError):
    pass


# --- the ICD loader ---------------------------------------------------------------------------

def _register_nvidia_icd() -> None:
    """Point the ICD loader at NVIDIA's OpenCL library when nothing registers it. The ICD
    folder is private to this user (``userdirs``): the loader loads whatever library an
    ``.icd`` file there names."""
    if "OCL_ICD_VENDORS" in os.environ:
        return
    if SYSTEM_VENDORS.is_dir() and any("nvidia" in p.name.lower()
                                       for p in SYSTEM_VENDORS.iterdir()):
        return
    for folder in NVIDIA_LIBRARY_DIRS:
        library = Path(folder) / "libnvidia-opencl.so.1"
        if library.exists():
            icd_dir = private_dir("icd")
            for old in icd_dir.glob("*.icd"):
                old.unlink()
            (icd_dir / "nvidia.icd").write_text(str(library) + "\n")
            # Keep the vendors already registered system-wide visible as well.
            if SYSTEM_VENDORS.is_dir():
                for icd in SYSTEM_VENDORS.glob("*.icd"):
                    (icd_dir / icd.name).write_text(icd.read_text())
            os.environ["OCL_ICD_VENDORS"] = str(icd_dir)
            _NOTES.append(f"registered NVIDIA's OpenCL driver {library} (no ICD file named "
                          f"it) through OCL_ICD_VENDORS={icd_dir}")
            return


def _pin_pocl_threads() -> None:
    """Ask PoCL's CPU device to pin its worker threads, one to each core. Unpinned, the
    scheduler at times runs two of them on one core for a whole kernel (after the host
    thread was busy, say): a memory-bound kernel on two cores then takes about 1.5 times as
    long, run after run, and a search's times follow the host's load more than the kernel.
    Left alone when the caller chose (``POCL_AFFINITY`` set) or when this process may not
    use every core (PoCL would pin to cores it is not given)."""
    if "POCL_AFFINITY" in os.environ:
        return
    try:
        if len(os.sched_getaffinity(0)) != os.cpu_count():
            return
    except (AttributeError, OSError):  # no affinity on this system
        return
    os.environ["POCL_AFFINITY"] = "1"
    _NOTES.append("pinned PoCL's worker threads to the cores (POCL_AFFINITY=1)")


def opencl():
    """The pyopencl module, imported once the ICD environment is set up."""
    global _cl
    if _cl is None:
        _register_nvidia_icd()
        _pin_pocl_threads()
        import pyopencl

        _cl = pyopencl
    return _cl


def notes() -> list[str]:
    """What the runtime did on its own (e.g. registering a driver)."""
    opencl()
    return list(_NOTES)


# --- discovery --------------------------------------------------------------------------------

@dataclass(frozen=True)
class DeviceInfo:
    """A device the workbench can use; ``id`` is what ``--device`` accepts. ``health`` is
    ``ok``, ``broken: <reason>``, or ``unknown`` before the device was probed."""

    id: str
    platform: str
    name: str
    kind: str  # "cpu", "gpu", "accelerator", "simulator" (Oclgrind)
    driver: str
    compute_units: int
    max_work_group_size: int
    local_memory_bytes: int
    doubles: bool
    health: str = "unknown"
    # the float vector widths whose probe built, ran and computed right (a device fact:
    # PoCL 3.0's compiler aborts on 16 on some CPUs); empty before the device was probed
    vector_widths: tuple[int, ...] = ()
    # those of them whose built-in functions (vloadN, fma, fabs, vstoreN) work too
    builtin_widths: tuple[int, ...] = ()
    # the platform's version text (PoCL's names its LLVM: "PoCL 3.0-rc2 ... LLVM 14.0.6")
    platform_version: str = ""
    # CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT: the floats one of its vector registers holds as
    # the driver says (PoCL: 16 with AVX-512, 8 with AVX2; 1 on NVIDIA's GPUs), 0 unknown
    native_float_width: int = 0

    @property
    def ok(self) -> bool:
        return self.health == "ok"

    @property
    def reason(self) -> str:
        """Why the device is broken ('' when it works)."""
        return self.health.removeprefix("broken: ") if self.health.startswith("broken") else ""

    @property
    def is_pocl(self) -> bool:
        """PoCL (the Portable Computing Language), the CPU devices' usual driver."""
        return "Portable Computing Language" in self.platform

    def describe(self) -> str:
        return f"{self.id} {self.name} ({self.platform}, driver {self.driver})"

    def as_json(self) -> dict:
        return dict(self.__dict__)


def _kind(device, platform_name: str) -> str:
    cl = opencl()
    if "oclgrind" in platform_name.lower():
        return "simulator"  # Oclgrind calls itself a GPU; it checks kernels, it is not one
    if device.type & cl.device_type.GPU:
        return "gpu"
    if device.type & cl.device_type.CPU:
        return "cpu"
    return "accelerator"


_FOUND: list[tuple[DeviceInfo, object]] | None = None


def _discover() -> list[tuple[DeviceInfo, object]]:
    """The devices the ICD loader lists (once per process: the list does not change)."""
    global _FOUND
    if _FOUND is None:
        _FOUND = _enumerate()
    return list(_FOUND)


def _enumerate() -> list[tuple[DeviceInfo, object]]:
    cl = opencl()
    out = []
    try:
        platforms = cl.get_platforms()
    except cl.Error:  # no ICD at all
        return []
    for p, platform in enumerate(platforms):
        try:
            found = platform.get_devices()
        except cl.Error:
            continue
        for d, device in enumerate(found):
            out.append((DeviceInfo(
                id=f"{p}:{d}", platform=platform.name.strip(), name=device.name.strip(),
                kind=_kind(device, platform.name), driver=device.driver_version.strip(),
                compute_units=device.max_compute_units,
                max_work_group_size=device.max_work_group_size,
                local_memory_bytes=device.local_mem_size,
                doubles="cl_khr_fp64" in device.extensions,
                platform_version=platform.version.strip(),
                native_float_width=_native_float_width(device)), device))
    return out


def _native_float_width(device) -> int:
    try:
        return int(device.native_vector_width_float)
    except Exception:  # noqa: BLE001 - a driver that does not answer: unknown
        return 0


def lane_widths(info: DeviceInfo) -> tuple[int, ...]:
    """The vector widths a CPU's kernels put a map's elements in (the guided search's
    ``lanes_first`` and ``vector_blocks_first``): the widths whose probe ran on the device
    from half its native float width to the whole (16 with AVX-512: 8 and 16; 8 with AVX2: 4
    and 8), at least 4 lanes; (8, 16) where the device says nothing."""
    native = max(info.native_float_width, 4) if info.native_float_width else 16
    probed = info.vector_widths or VECTOR_WIDTHS
    return tuple(w for w in probed if native // 2 <= w <= native) or (native,)


# --- health -----------------------------------------------------------------------------------

# health key -> ("ok" / "broken: reason", vector widths, built-in widths), for this process
_HEALTH: dict[str, Probed] = {}


@functools.cache
def _host_fingerprint() -> str:
    """The host CPU, as the drivers see it: a driver's health holds for one CPU model (PoCL
    3.0 builds on Zen 4 and not on Zen 5, which both call themselves 'AMD EPYC')."""
    text = host_platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key = line.split(":", 1)[0].strip()
                if key in ("vendor_id", "cpu family", "model", "model name", "flags"):
                    text += line
                elif not line.strip():
                    break  # the first processor is enough
    except OSError:
        pass
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def health_key(info: DeviceInfo) -> str:
    """What a device's health is kept under: device, driver, host CPU, the probe's version
    and any injected failure."""
    inject = injected(info.id, f"{info.name} {info.platform}")
    text = "\0".join([info.platform, info.name, info.driver, info.id if inject else "",
                      _host_fingerprint(), str(PROBE_VERSION), inject])
    return hashlib.sha256(text.encode()).hexdigest()


def _cache_file() -> Path:
    return private_dir("probes") / "health.json"


def _read_cache() -> dict:
    try:
        data = json.loads(_cache_file().read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}  # missing or damaged: probe again


def _write_cache(entries: dict) -> None:
    path = _cache_file()
    cached = _read_cache()
    cached.update(entries)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(cached, indent=1))
    os.replace(tmp, path)


Progress = Callable[[DeviceInfo], None]


Probed = tuple[str, tuple[int, ...], tuple[int, ...]]  # health, vector and built-in widths


def _probe_in_child(infos: list[DeviceInfo], progress: Progress | None = None
                    ) -> dict[str, Probed]:
    """Health and vector widths of each device, probed in child processes (``python -m
    workbench.device.probe``): a device whose probe kills or hangs its process is broken, and the
    others are probed by a fresh one; a vector width whose probe kills or hangs it is
    missing from the device's widths, and the next widths are probed by a fresh one.
    ``progress`` is told of each device as its probe starts (health ``unknown``) and as it
    ends (its health and widths), one device after the other."""
    health: dict[str, str | None] = {i.id: None for i in infos}
    widths: dict[str, dict[int, bool]] = {i.id: {} for i in infos}
    builtins: dict[str, dict[int, bool]] = {i.id: {} for i in infos}
    by_id = {i.id: i for i in infos}
    limit = _probe_timeout()
    told: dict[str, str] = {}  # device id -> "started" / "finished"

    def work(device_id: str) -> str | None:
        if health[device_id] is None:
            return device_id
        if health[device_id] != "ok":
            return None
        missing = [n for n in VECTOR_WIDTHS if n not in widths[device_id] or
                   (widths[device_id][n] and n not in builtins[device_id])]
        return f"{device_id}/{missing[0]}" if missing else None

    def tell(started: str | None = None) -> None:
        if progress is None:
            return
        for device_id in health:
            if work(device_id) is None and told.get(device_id) != "finished":
                told[device_id] = "finished"
                progress(replace(by_id[device_id], health=health[device_id],
                                 vector_widths=_widths_of(widths[device_id]),
                                 builtin_widths=_widths_of(builtins[device_id])))
        if started is not None and started not in told:
            told[started] = "started"
            progress(by_id[started])

    while True:
        todo = [item for item in map(work, health) if item is not None]
        if not todo:
            break
        child = subprocess.Popen([sys.executable, "-c", PROBE_CHILD, *todo],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        current, deadline = None, time.monotonic() + limit
        reason = ""
        with selectors.DefaultSelector() as sel:
            sel.register(child.stdout, selectors.EVENT_READ)
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(timeout=left):
                    child.kill()
                    reason = f"its probe did not finish within {limit:g} s"
                    break
                line = child.stdout.readline()
                if not line:  # the child is gone (or done)
                    code = child.wait()
                    said = _last_line(child.stderr.read())
                    if code != 0 or current is not None:
                        reason = (f"its probe stopped the process ({_exit_text(code)})"
                                  + (f": {said}" if said else ""))
                    break
                try:
                    message = json.loads(line)
                except ValueError:
                    continue  # a driver printed something on stdout
                if "probing" in message:
                    current = (message["probing"], message.get("width"),
                               bool(message.get("builtins")))
                    deadline = time.monotonic() + limit
                    tell(started=message["probing"] if message["probing"] in health else None)
                elif message.get("id") in health:
                    device_id, n = message["id"], message.get("width")
                    if n is None:
                        health[device_id] = "ok" if message["ok"] else \
                            f"broken: {message['reason']}"
                    elif message.get("builtins"):
                        builtins[device_id][n] = bool(message["ok"])
                    else:
                        widths[device_id][n] = bool(message["ok"])
                        if not message["ok"]:
                            builtins[device_id][n] = False
                    current = None
                    tell()
        child.wait()
        for stream in (child.stdout, child.stderr):
            stream.close()
        if current is None and reason:
            current = (todo[0].partition("/")[0], None, False)
        if current is not None:  # what it was probing killed or hung it
            device_id, n, through_builtins = current
            if n is None:
                health[device_id] = f"broken: {reason}"
            else:
                builtins[device_id][n] = False
                if not through_builtins:
                    widths[device_id][n] = False
                if "did not finish" in reason:
                    _UNSURE.add(device_id)
        tell()
    return {device_id: (h or "broken: no answer from its probe", _widths_of(widths[device_id]),
                        _widths_of(builtins[device_id]))
            for device_id, h in health.items()}


def _widths_of(probed: dict[int, bool]) -> tuple[int, ...]:
    return tuple(n for n in VECTOR_WIDTHS if probed.get(n))


_UNSURE: set[str] = set()  # devices a probe of which ran out of time (not kept on disk)


def _probe_timeout() -> float:
    try:
        return float(os.environ.get(PROBE_TIMEOUT_ENV, PROBE_TIMEOUT_S))
    except ValueError:
        return PROBE_TIMEOUT_S


def _exit_text(code: int) -> str:
    return f"signal {-code}" if code < 0 else f"exit code {code}"


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def _with_health(found: list[tuple[DeviceInfo, object]], check: bool = False,
                 only: set[str] | None = None, progress: Progress | None = None
                 ) -> list[tuple[DeviceInfo, object]]:
    """``found`` with each device's health (probing the devices in ``only``, or all, whose
    health is not known yet; ``check`` probes them again; ``progress`` hears of each probe,
    as ``_probe_in_child`` says)."""
    wanted = [info for info, _ in found if only is None or info.id in only]
    keys = {info.id: health_key(info) for info in wanted}
    known: dict[str, Probed] = {}
    if not check:
        known = {i.id: _HEALTH[keys[i.id]] for i in wanted if keys[i.id] in _HEALTH}
    missing = [i for i in wanted if i.id not in known]
    # an injected failure is the test's, not the device's: never kept on disk
    trial = [i for i in missing if injected(i.id, f"{i.name} {i.platform}")]
    if trial:
        known.update(_probe_in_child(trial, progress))
    missing = [i for i in missing if i not in trial]
    if missing:
        known.update(_probe_with_disk_cache(missing, keys, check, progress))
    for device_id, probed in known.items():
        _HEALTH[keys[device_id]] = probed
    out = []
    for info, device in found:
        if info.id in known:
            health, widths, builtin = known[info.id]
            info = replace(info, health=health, vector_widths=widths, builtin_widths=builtin)
        out.append((info, device))
    return out


def _probe_with_disk_cache(missing: list[DeviceInfo], keys: dict[str, str], check: bool,
                           progress: Progress | None = None
                           ) -> dict[str, Probed]:
    """Health (and vector widths) from the user's cache, probing what it does not hold; one
    process at a time probes (search workers starting together wait for the first one's
    answers)."""
    lock_path = private_dir("probes") / "probe.lock"
    with open(lock_path, "a") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            cached = {} if check else _read_cache()
            out = {}
            for i in missing:
                entry = cached.get(keys[i.id])
                if isinstance(entry, dict) and isinstance(entry.get("health"), str) and \
                        isinstance(entry.get("vector_widths"), list) and \
                        isinstance(entry.get("builtin_widths"), list):
                    out[i.id] = (entry["health"], *(tuple(int(n) for n in entry[key]
                                                          if n in VECTOR_WIDTHS)
                                                    for key in ("vector_widths",
                                                                "builtin_widths")))
            todo = [i for i in missing if i.id not in out]
            if todo:
                probed = _probe_in_child(todo, progress)
                out.update(probed)
                _write_cache({keys[device_id]: {"health": health, "vector_widths": list(widths),
                                                "builtin_widths": list(builtin),
                                                "device": _label(todo, device_id),
                                                "checked": time.time()}
                              for device_id, (health, widths, builtin) in probed.items()
                              if _lasting(health) and device_id not in _UNSURE})
        finally:
            if fcntl is not None:
                fcntl.flock(lock, fcntl.LOCK_UN)
    return out


def _lasting(health: str) -> bool:
    """Whether an answer holds for later processes: not a probe that ran out of time (the
    machine may only have been busy)."""
    return "did not finish" not in health


def _label(infos: list[DeviceInfo], device_id: str) -> str:
    return next((i.describe() for i in infos if i.id == device_id), device_id)


# --- the public surface -----------------------------------------------------------------------

def devices(check: bool = False, progress: Progress | None = None) -> list[DeviceInfo]:
    """Every OpenCL device found, each with its health (probed once per device, driver and
    CPU, then remembered; ``check=True`` probes every device again). ``progress(info)`` is
    called as each probe starts (``info.health`` is ``unknown``) and ends (its health and
    vector widths): a first probe of every device takes seconds to minutes."""
    from ..errors import ArgumentError, flag_argument, shown

    check = flag_argument(check, "check")
    if progress is not None and not callable(progress):
        raise ArgumentError(f"progress = {shown(progress)}: give a function of a device's "
                            f"DeviceInfo, or None", "progress")
    return [info for info, _ in _with_health(_discover(), check=check, progress=progress)]


def _choose_default(found: list[tuple[DeviceInfo, object]]) -> tuple[DeviceInfo, object]:
    """The first working CPU device, else the first working device; a simulator only when
    asked for."""
    order = ([f for f in found if f[0].kind == "cpu"]
             + [f for f in found if f[0].kind not in ("cpu", "simulator")])
    probed = dict((info.id, (info, device)) for info, device in
                  _with_health(found, only={info.id for info, _ in order}))
    for info, _ in order:
        if probed[info.id][0].ok:
            return probed[info.id]
    raise NoWorkingDevice(no_working_device_message(list(probed.values())))


def no_working_device_message(found: list[tuple[DeviceInfo, object]],
                              named: str | None = None) -> str:
    """One message for a machine where no device works: what failed on each device (each
    once; simulators only when ``named``, the id of the device asked for) and the command
    that fixes it."""
    usable = [info for info, _ in found if info.kind != "simulator" or info.id == named]
    lines = ["no working OpenCL device:"]
    lines += [f"  {info.describe()}: {info.health}" for info in usable]
    if not usable:
        lines.append("  (no OpenCL device found, apart from simulators)")
    debian_pocl = SYSTEM_VENDORS.is_dir() and any("pocl" in p.name.lower()
                                                  for p in SYSTEM_VENDORS.glob("*.icd"))
    if not debian_pocl:
        root = hasattr(os, "geteuid") and os.geteuid() == 0
        command = FIX_POCL if root else "sudo " + FIX_POCL
        lines.append(f"fix: install Debian's PoCL, which builds for this CPU:  {command}")
        lines.append("     then check with:  workbench devices --check")
    else:
        lines.append("fix: Debian's PoCL is installed but does not work here either; run "
                     "`workbench devices --check` to see each device's reason, or choose "
                     f"a device with {DEVICE_ENV}=<id>")
    return "\n".join(lines)


def environment_choice() -> tuple[str, str] | None:
    """``(variable, value)`` of the environment variable that names the default device:
    ``WORKBENCH_DEVICE``, else pyopencl's ``PYOPENCL_CTX``; None when neither is set."""
    for variable in (DEVICE_ENV, PYOPENCL_CTX_ENV):
        value = os.environ.get(variable, "").strip()
        if value:
            return variable, value
    return None


def pyopencl_ctx_matches(text: str, found: list[tuple[DeviceInfo, object]]
                         ) -> list[tuple[DeviceInfo, object]]:
    """The device ``PYOPENCL_CTX=text`` names, as pyopencl's ``create_some_context`` reads
    it: ``PLATFORM[:DEVICE]``, each a number (the index pyopencl lists it at: ``0:1`` is
    the device the workbench calls ``0:1``) or part of a name (of platforms the last whose
    name holds it, of devices the first); no device part is the platform's first device,
    and of several devices (``0:0,1``) the workbench takes the first. [] when none
    matches."""
    platform_part, _, device_part = text.partition(":")
    platform_part, device_part = platform_part.strip(), device_part.split(",")[0].strip()
    platforms: dict[int, str] = {}
    for info, _ in found:
        platforms.setdefault(_platform_index(info), info.platform)
    if not platform_part:
        chosen = min(platforms, default=None)
    elif platform_part.isdigit():
        chosen = int(platform_part)
    else:
        named = [p for p, name in platforms.items() if platform_part.lower() in name.lower()]
        chosen = named[-1] if named else None
    on_platform = [f for f in found if _platform_index(f[0]) == chosen]
    if not device_part:
        return on_platform[:1]
    if device_part.isdigit():
        return [f for f in on_platform if f[0].id == f"{chosen}:{int(device_part)}"]
    return [f for f in on_platform if device_part.lower() in f[0].name.lower()][:1]


def _platform_index(info: DeviceInfo) -> int:
    return int(info.id.partition(":")[0])


def find_device(spec: str | None = None) -> tuple[DeviceInfo, object]:
    """``(DeviceInfo, pyopencl.Device)`` for ``spec``: None (the default: the device
    ``WORKBENCH_DEVICE`` names, else the device ``PYOPENCL_CTX`` names, else the first
    working CPU device, else the first working device), ``cpu``/``gpu``, an id ``P:D``, or
    part of a device/platform name (``pthread``, ``NVIDIA``, ``H100``). A device that fails
    its probe is refused with the reason."""
    found = _discover()
    source = "--device"
    chosen = environment_choice() if spec is None else None
    if chosen is not None:
        source, spec = chosen
    if not found:
        raise NoWorkingDevice(no_working_device_message([]))
    if spec is None:
        return _choose_default(found)
    if not spec.strip():  # part of every name: it would pick a device at random
        known = ", ".join(info.describe() for info, _ in found)
        raise DeviceNotFound(f"{source}: an empty device name names no device (give an id "
                             f"P:D, cpu, gpu or part of a name); found: {known}")
    if source == PYOPENCL_CTX_ENV:
        matches = pyopencl_ctx_matches(spec, found)
    else:
        matches = [f for f in found if spec in (f[0].id, f[0].kind)]
        if not matches:
            matches = [f for f in found
                       if spec.lower() in (f[0].name + " " + f[0].platform).lower()]
    if not matches:
        known = ", ".join(info.describe() for info, _ in found)
        syntax = " (pyopencl's PLATFORM[:DEVICE])" if source == PYOPENCL_CTX_ENV else ""
        raise DeviceNotFound(f"{source}: no device matches {spec!r}{syntax}; found: {known}")
    probed = _with_health(matches)
    for info, device in probed:
        if info.ok:
            return info, device
    info = probed[0][0]
    raise BrokenDevice(_refusal(found, source, spec, info))


def _refusal(found, source: str, spec: str, broken: DeviceInfo) -> str:
    """Why the device ``spec`` names cannot be had, and what can be had instead: the working
    devices, or, when none works, one line per device (the named one among them, once) and
    the command that fixes it."""
    wanted = {i.id for i, _ in found if i.kind != "simulator" or i.id == broken.id}
    probed = _with_health(found, only=wanted)
    others = [info for info, _ in probed
              if info.ok and info.kind != "simulator" and info.id != broken.id]
    if others:
        return (f"{source} {spec!r}: device {broken.describe()} is {broken.health}; working "
                f"devices: " + ", ".join(info.describe() for info in others))
    return f"{source} {spec!r}: " + no_working_device_message(
        [f for f in probed if f[0].id in wanted], named=broken.id)


def pocl_build(info: DeviceInfo) -> str:
    """Which PoCL runs a CPU device and what it means for speed, in a sentence ('' for
    another driver). PoCL 3.1 and later build kernels for the host's own CPU and name the
    device after the kernel library they chose for it (``pthread-skylake-avx512-AMD
    EPYC``); PoCL 3.0 (``pocl-binary-distribution`` from PyPI) names the CPU model alone and
    builds for the CPU its LLVM 14 knows nearest: on a Zen 4, ``znver3``, AVX2 without
    AVX-512, while it links its AVX-512 library of built-in functions (whose float16 calls
    abort its compiler: the probe's ``builtin_widths``), which its kernels call rather than
    inline: scal by vload4/vstore4 ran 7 to 13 times slower than through float4 pointers
    there, asum's |x| by fabs on float8 12 to 18 times slower than by masking the sign bit
    (``benchmarks.pocl_study``, ``benchmarks/results/pocl_builtins.md``)."""
    if not info.is_pocl:
        return ""
    llvm = re.search(r"LLVM (\d+)", info.platform_version)
    source = " from PyPI (pocl-binary-distribution)" if _from_pypi(info) else \
        " from Debian" if "debian" in info.driver else ""
    head = f"PoCL {info.driver}{source}" + (f", LLVM {llvm.group(1)}" if llvm else "")
    variant = _cpu_variant(info.name)
    if variant:
        return f"{head}: kernels built for this CPU ({variant})"
    if variant is None:
        return head
    return (f"{head}: kernels built for the CPU its LLVM knows nearest, not for this one (on "
            f"a Zen 4, AVX2 without AVX-512), and its built-in vector functions (vload4, "
            f"vstore4, fabs) are calls into a library, 7 to 18 times slower than plain vector "
            f"code. Memory-bound kernels in vectors of 8 or 16 floats (what a search on a CPU "
            f"measures first) run about as fast as with PoCL 3.1, compute-bound ones slower; "
            f"Debian's pocl-opencl-icd (PoCL 3.1) builds for this CPU")


def _cpu_variant(name: str) -> str | None:
    """The CPU variant a PoCL device's name carries (``pthread-<variant>-<CPU model>``, as
    PoCL 3.1 names it), '' for a name of the CPU model alone (PoCL 3.0), None for a name
    of neither form."""
    model = _host_cpu_model()
    rest = name.removeprefix("pthread-").removeprefix("cpu-")
    if not model or rest == name:
        return None
    if rest == model:
        return ""
    return rest.removesuffix(f"-{model}") if rest.endswith(f"-{model}") else None


@functools.cache
def _host_cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.split(":", 1)[0].strip() == "model name":
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def _from_pypi(info: DeviceInfo) -> bool:
    """Whether PoCL comes from PyPI's pocl-binary-distribution (installed, of the device's
    driver version)."""
    try:
        from importlib.metadata import PackageNotFoundError, version

        return info.driver.startswith(version("pocl-binary-distribution"))
    except (ImportError, PackageNotFoundError, ValueError):
        return False


def idle_gpu(found: list[DeviceInfo], default: DeviceInfo | None) -> DeviceInfo | None:
    """The first working GPU when the default is a CPU device that no environment variable
    chose: runs go to the CPU while a GPU waits (``workbench devices`` and the widget's
    device menu say so). None otherwise."""
    if default is None or default.kind != "cpu" or environment_choice() is not None:
        return None
    return next((info for info in found if info.kind == "gpu" and info.ok), None)


def idle_gpu_hint(gpu: DeviceInfo, how: str = "--device gpu") -> str:
    """The line that says so; ``how`` is the way to choose it where the line is shown."""
    return (f"a working GPU is present ({gpu.id} {gpu.name}): choose it with {how} or "
            f"{DEVICE_ENV}=gpu")


def default_device() -> DeviceInfo:
    """The device runs use when none is named."""
    return find_device(None)[0]


__all__ = ["DeviceInfo", "DeviceError", "DeviceNotFound", "BrokenDevice", "NoWorkingDevice",
           "devices", "find_device", "default_device", "environment_choice", "idle_gpu",
           "idle_gpu_hint", "notes", "opencl", "pocl_build", "DEVICE_ENV", "PYOPENCL_CTX_ENV",
           "INJECT_ENV", "FIX_POCL", "lane_widths"]

"""Device health probes: does a device build, run and compute a tiny kernel correctly?

A driver can list a device that builds nothing (PoCL 3.0 from PyPI on a CPU its LLVM does
not know answers every build with ``unknown target CPU 'generic'``), or one whose compiler
aborts the process. So every device is probed once, in a separate process (a crash or a
hang there only marks the device broken), and the answer is kept per device, driver and
host CPU: in this process and in the user's cache folder (``userdirs``).

``main(ids)`` runs in that separate process: it probes the devices with
those ids (``P:D`` as ``opencl`` numbers them) one after the other and prints a JSON line
before (``{"probing": id}``) and after (``{"id": …, "ok": …, "reason": …}``) each, and so for
each vector width (``"width"``, and ``"builtins"``: whether through built-in functions).

``WORKBENCH_PROBE_FAIL`` (device ids or parts of names, comma-separated) makes the probe of
the matching devices fail for real: their probe kernel carries an ``#error`` line, so the
build fails in the driver and everything after it (the device's health, the choice of the
default, the messages) runs as it would for a broken driver; ``crash:<device>`` aborts the
probing process and ``hang:<device>`` never finishes. The tests use it to exercise the
fallback to another device on machines where every device works.

``private_group_limit(info, key)`` is a probe of its own, asked only when a kernel keeps
private arrays large enough to matter: how many bytes of private arrays a work-group of the
device held (``main_private`` runs in its separate process). PoCL (3.0 and 3.1 alike) runs
a work-group's work-items on one thread and keeps a copy of every work-item's private
arrays on that thread's stack (8 MiB by default, the process's stack limit): a work-group
whose arrays do not fit kills the process (SIGSEGV), although the device reports
work-groups of up to 4096 work-items. The answer is kept per device, driver, host CPU and
stack limit, beside the devices' health.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from contextlib import contextmanager

import numpy as np

PROBE_VERSION = 3  # bump when the probe changes, so cached answers are asked again
INJECT_ENV = "WORKBENCH_PROBE_FAIL"
PROBE_SOURCE = """
kernel void workbench_probe(global const float *xs, global float *out) {
    size_t i = get_global_id(0);
    out[i] = xs[i] * 2.0f + 1.0f;
}
"""
INJECTED = '#error "probe failure injected by WORKBENCH_PROBE_FAIL"\n'

# Vector widths are probed one by one, each twice: as the code generator writes a vector of
# it (loads and stores through vector pointers, arithmetic, bit operations), which decides the
# device's ``vector_widths``; then through the driver's built-in functions (vloadN, fma, fabs,
# vstoreN), which decides its ``builtin_widths``. A width whose kernel does not build, run or
# compute right is missing (PoCL 3.0 from PyPI on an AVX-512 CPU builds for AVX2 and links its
# AVX-512 library: float16 code runs, and its LLVM aborts on float16 built-ins; the probe finds
# that out in its own process, not by driver name).
VECTOR_WIDTHS = (2, 4, 8, 16)
VECTOR_SOURCE = """
kernel void workbench_vectors(global const float *xs, global float *out) {{
    size_t i = get_global_id(0);
    float{n} x = *(global const float{n} *)(xs + {n} * i);
    float{n} acc = (float{n})(0.5f);
    acc = x * x + acc + as_float{n}(as_uint{n}(x) & 0x7fffffffu) * 2.0f;
    *(global float{n} *)(out + {n} * i) = acc;
}}
"""
BUILTIN_SOURCE = """
kernel void workbench_vectors(global const float *xs, global float *out) {{
    size_t i = get_global_id(0);
    float{n} x = vload{n}(i, xs);
    float{n} acc = (float{n})(0.5f);
    acc = fma(x, x, acc) + fabs(x) + as_float{n}(as_uint{n}(x) & 0x7fffffffu);
    vstore{n}(acc, i, out);
}}
"""


def injected(device_id: str, description: str) -> str:
    """The failure ``WORKBENCH_PROBE_FAIL`` injects into this device's probe: ``build`` (the
    kernel does not compile), ``crash`` (the probing process aborts), ``hang`` (it never
    finishes), ``crash16`` (the process aborts when vectors of 16 are probed), ``builtins16``
    (it aborts when built-in functions on vectors of 16 are probed, as PoCL 3.0's compiler
    does on an AVX-512 CPU), or '' for none. Items are ``[crash:|hang:|crash16:|builtins16:]
    <device id or part of its name>``."""
    for item in (s.strip() for s in os.environ.get(INJECT_ENV, "").split(",")):
        kind, _, target = item.partition(":") if item.startswith(
            ("crash:", "hang:", "crash16:", "builtins16:")) else ("build", "", item)
        if target and (target == device_id or target.lower() in description.lower()):
            return kind
    return ""


def first_error_line(log: str) -> str:
    """The line of a build log that says what went wrong (the compiler's first error),
    without the driver's temporary file name."""
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    for line in lines:
        if "error" in line.lower() and "build_program_failure" not in line.lower():
            return re.sub(r"\S+\.cl:(\d+):(\d+):", r"line \1, column \2:", line)
    return lines[0] if lines else "the build failed without a log"


def probe(device, inject: str = "") -> tuple[bool, str]:
    """Build, run and check the probe kernel on a pyopencl device: ``(ok, reason)``;
    ``inject`` is a failure to inject (see ``injected``)."""
    import time

    import pyopencl as cl

    if inject == "crash":
        os.abort()
    if inject in ("crash16", "builtins16"):
        inject = ""  # the device works; its vectors of 16 crash (probe_width)
    if inject == "hang":
        while True:
            time.sleep(1)

    n = 64
    xs = np.arange(n, dtype=np.float32) - 20.5
    try:
        context = cl.Context([device])
        queue = cl.CommandQueue(context)
    except cl.Error as err:
        return False, f"no context: {err}"
    source = (INJECTED if inject == "build" else "") + PROBE_SOURCE
    try:
        program = _build(context, source)
    except cl.Error as err:
        return False, f"builds nothing: {first_error_line(str(err))}"
    try:
        out = _run(program.workbench_probe, context, queue, xs, n)
    except cl.Error as err:
        return False, f"cannot run a kernel: {err}"
    if not np.array_equal(out, xs * 2 + 1):
        return False, "runs kernels but computes wrong results"
    return True, ""


def _build(context, source: str):
    """A probe's program, built without the driver's warnings (a build log on success)."""
    import warnings

    import pyopencl as cl

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cl.Program(context, source).build()


def _run(kernel, context, queue, xs: np.ndarray, items: int,
         local: int | None = None) -> np.ndarray:
    """A probe kernel's output on ``xs`` (NaN before it runs), launched on ``items``
    (in work-groups of ``local``; None: the driver chooses)."""
    import pyopencl as cl

    mf = cl.mem_flags
    inp = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=xs)
    out = np.full(len(xs), np.nan, np.float32)
    buf = cl.Buffer(context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=out)
    kernel(queue, (items,), None if local is None else (local,), inp, buf)
    cl.enqueue_copy(queue, out, buf)
    queue.finish()
    return out


def probe_width(device, n: int, inject: str = "", builtins: bool = False) -> tuple[bool, str]:
    """Build, run and check a kernel on vectors of ``n`` floats, as the code generator writes
    them (``builtins``: through vloadN, fma, fabs and vstoreN): ``(ok, reason)``. A compiler
    that aborts ends the process; the parent then records the width as failed."""

    import pyopencl as cl

    if n == 16 and inject == ("builtins16" if builtins else "crash16"):
        os.abort()
    what = f"built-in functions on vectors of {n}" if builtins else f"vectors of {n}"
    count = 64 * n
    xs = (np.arange(count, dtype=np.float32) - count / 3) / count
    try:
        context = cl.Context([device])
        queue = cl.CommandQueue(context)
        program = _build(context, (BUILTIN_SOURCE if builtins else VECTOR_SOURCE).format(n=n))
    except cl.Error as err:
        return False, f"{what} do not build: {first_error_line(str(err))}"
    try:
        out = _run(program.workbench_vectors, context, queue, xs, 64)
    except cl.Error as err:
        return False, f"{what} do not run: {err}"
    if not np.allclose(out, xs * xs + 0.5 + 2 * np.abs(xs), rtol=1e-5, atol=1e-6):
        return False, f"{what} compute wrong results"
    return True, ""


def _found() -> dict:
    """``P:D`` -> (platform, device), numbered as ``opencl`` numbers them."""
    import pyopencl as cl

    found = {}
    try:
        for p, platform in enumerate(cl.get_platforms()):
            try:
                for d, device in enumerate(platform.get_devices()):
                    found[f"{p}:{d}"] = (platform, device)
            except cl.Error:
                continue
    except cl.Error:
        pass
    return found


def main(ids: list[str]) -> int:
    """Probe the devices with these ids, printing JSON lines (see the module's text). An id
    ``P:D/n`` probes only the vector widths from n on (the device itself was probed)."""
    found = _found()
    for item in ids:
        device_id, _, first_width = item.partition("/")
        inject = ""
        if not first_width:
            print(json.dumps({"probing": device_id}), flush=True)
            if device_id not in found:
                ok, reason = False, "the device is gone (the list of devices changed)"
            else:
                platform, device = found[device_id]
                inject = injected(device_id, f"{device.name.strip()} {platform.name.strip()}")
                ok, reason = probe(device, inject)
            print(json.dumps({"id": device_id, "ok": ok, "reason": reason}), flush=True)
            if not ok:
                continue
        platform, device = found[device_id]
        inject = injected(device_id, f"{device.name.strip()} {platform.name.strip()}")
        for n in VECTOR_WIDTHS:
            if n < int(first_width or 0):
                continue
            for builtins in (False, True):
                print(json.dumps({"probing": device_id, "width": n, "builtins": builtins}),
                      flush=True)
                ok, reason = probe_width(device, n, inject, builtins)
                print(json.dumps({"id": device_id, "width": n, "builtins": builtins, "ok": ok,
                                  "reason": reason}), flush=True)
                if not ok:
                    break
    return 0


# --- private arrays of a work-group -----------------------------------------------------------

# Work-groups of growing size, each work-item with an array of PRIVATE_ITEM_FLOATS floats
# (16 KiB): 256 KiB to 64 MiB of private arrays per work-group. A device's limit is the
# largest that ran right below the first that did not (a stack overflow may also corrupt
# memory instead of crashing: every step checks its result).
PRIVATE_ITEM_FLOATS = 4096
PRIVATE_ITEM_BYTES = 4 * PRIVATE_ITEM_FLOATS
PRIVATE_GROUPS = (16, 64, 256, 1024, 4096)  # work-items per group
PRIVATE_SOURCE = """
kernel void workbench_private(global const float *xs, global float *out) {
    size_t i = get_global_id(0);
    float own[4096];
    for (int j = 0; j < 4096; j++) {
        own[j] = xs[(i + j) & 4095] * 2.0f;
    }
    float sum = 0.0f;
    for (int j = 0; j < 4096; j++) {
        sum += own[4095 - j];
    }
    out[i] = sum;
}
"""
PRIVATE_CHILD = ("import sys; from workbench.device.probe import main_private; "
                 "sys.exit(main_private(sys.argv[1], int(sys.argv[2])))")


def probe_private(device, items: int) -> tuple[bool, str]:
    """Build, run and check one work-group of ``items`` work-items, each with 16 KiB of
    private arrays: ``(ok, reason)``. A driver whose thread overflows its stack ends the
    process; the parent then records the step as failed."""

    import pyopencl as cl

    xs = (np.arange(PRIVATE_ITEM_FLOATS) % 7).astype(np.float32)
    try:
        context = cl.Context([device])
        queue = cl.CommandQueue(context)
        program = _build(context, PRIVATE_SOURCE)
    except cl.Error as err:
        return False, f"private arrays do not build: {first_error_line(str(err))}"
    try:
        out = _run(program.workbench_private, context, queue, xs, items, local=items)
    except cl.Error as err:
        return False, f"work-groups of {items} with private arrays do not run: {err}"
    if not np.array_equal(out[:items], np.full(items, 2 * xs.sum(), np.float32)):
        return False, f"work-groups of {items} with private arrays compute wrong results"
    return True, ""


def main_private(device_id: str, first: int) -> int:
    """Probe the steps of ``PRIVATE_GROUPS`` from ``first`` work-items on, in this process,
    printing a JSON line before (``{"probing": items}``) and after (``{"items": …, "ok": …,
    "reason": …}``) each; ``ok`` is None for a step larger than the device's work-groups."""
    found = _found()
    if device_id not in found:
        return 1
    _, device = found[device_id]
    for items in PRIVATE_GROUPS:
        if items < first:
            continue
        print(json.dumps({"probing": items}), flush=True)
        if items > device.max_work_group_size:
            ok, reason = None, "larger than the device's work-groups"
        else:
            ok, reason = probe_private(device, items)
        print(json.dumps({"items": items, "ok": ok, "reason": reason}), flush=True)
        if ok is False:
            break
    return 0


_PRIVATE: dict[str, int | None] = {}  # this process's answers, by key


def private_group_limit(info, key: str, timeout: float = 120.0) -> int | None:
    """The most bytes of private arrays that the work-groups of a device (a
    ``DeviceInfo``; ``key`` what its health is kept under) held in the probe; None when
    no limit was found (every step ran, or the device is a simulator, which is not asked).
    Probed once per device, driver, host CPU and stack limit, in child processes (one at a
    time on this machine), and kept in the user's cache folder."""
    if info.kind == "simulator":
        return None
    key = f"{key}|stack {_stack_limit()}"
    if key in _PRIVATE:
        return _PRIVATE[key]
    from .userdirs import private_dir

    folder = private_dir("probes")
    with _exclusive(folder / "private.lock"):
        kept = _read_json(folder / "private.json")
        entry = kept.get(key)
        if isinstance(entry, dict) and "limit" in entry:
            limit = entry["limit"]
        else:
            limit, lasting = _probe_private_in_child(info.id, timeout)
            if lasting:
                kept = _read_json(folder / "private.json")
                kept[key] = {"limit": limit, "device": f"{info.name} ({info.platform}, "
                             f"driver {info.driver})", "checked": time.time()}
                _write_json(folder / "private.json", kept)
    _PRIVATE[key] = limit
    return limit


def _probe_private_in_child(device_id: str, timeout: float) -> tuple[int | None, bool]:
    """The limit from the steps' answers, probed in child processes (a step that kills or
    hangs its process failed; the next process starts after it), and whether it lasts (not
    when a step ran out of time: the machine may only have been busy)."""
    answers: dict[int, bool | None] = {}
    lasting = True
    while not any(ok is False for ok in answers.values()):
        todo = [n for n in PRIVATE_GROUPS if n not in answers]
        if not todo:
            break
        child = subprocess.Popen([sys.executable, "-c", PRIVATE_CHILD, device_id,
                                  str(todo[0])], stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, text=True)
        try:
            out, _ = child.communicate(timeout=timeout * len(todo))
        except subprocess.TimeoutExpired:
            child.kill()
            out, _ = child.communicate()
            lasting = False
        current = None
        for line in out.splitlines():
            try:
                message = json.loads(line)
            except ValueError:
                continue  # a driver printed something on stdout
            if "probing" in message:
                current = message["probing"]
            elif message.get("items") in PRIVATE_GROUPS:
                answers[message["items"]] = message["ok"]
                current = None
        if current is not None:  # this step killed or hung the process
            answers[current] = False
        elif not set(todo) & set(answers):  # nothing answered: the probe itself failed
            return None, False
    passed = 0
    for items in PRIVATE_GROUPS:
        if answers.get(items) is False:
            return passed, lasting
        if answers.get(items):
            passed = items * PRIVATE_ITEM_BYTES
    return None, lasting


def _stack_limit() -> str:
    """The process's stack limit, which PoCL's threads take as their stack size."""
    try:
        import resource
    except ImportError:  # not POSIX
        return "unknown"
    return str(resource.getrlimit(resource.RLIMIT_STACK)[0])


@contextmanager
def _exclusive(path):
    try:
        import fcntl
    except ImportError:  # not POSIX: processes do not wait for each other's probes
        fcntl = None
    with open(path, "a") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            if fcntl is not None:
                fcntl.flock(lock, fcntl.LOCK_UN)


def _read_json(path) -> dict:
    try:
        data = json.loads(path.read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}  # missing or damaged: probe again


def _write_json(path, data: dict) -> None:
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1))
    os.replace(tmp, path)


if __name__ == "__main__":  # pragma: no cover - the devices module runs main() itself
    sys.exit(main(sys.argv[1:]))

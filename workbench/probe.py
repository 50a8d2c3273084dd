"""Device health probes: does a device build, run and compute a tiny kernel correctly?

A driver can list a device that builds nothing (PoCL 3.0 from PyPI on a CPU its LLVM does
not know answers every build with ``unknown target CPU 'generic'``), or one whose compiler
aborts the process. So every device is probed once, in a separate process (a crash or a
hang there only marks the device broken), and the answer is kept per device, driver and
host CPU: in this process and in the user's cache folder (``userdirs``).

``main(ids)`` runs in that separate process: it probes the devices with
those ids (``P:D`` as ``opencl_devices`` numbers them) one after the other and prints a JSON line
before (``{"probing": id}``) and after (``{"id": …, "ok": …, "reason": …}``) each.

``WORKBENCH_PROBE_FAIL`` (device ids or parts of names, comma-separated) makes the probe of
the matching devices fail for real: their probe kernel carries an ``#error`` line, so the
build fails in the driver and everything after it (the device's health, the choice of the
default, the messages) runs as it would for a broken driver; ``crash:<device>`` aborts the
probing process and ``hang:<device>`` never finishes. The tests use it to exercise the
fallback to another device on machines where every device works.
"""

from __future__ import annotations

import json
import os
import re
import sys

import numpy as np

PROBE_VERSION = 2  # bump when the probe changes, so cached answers are asked again
INJECT_ENV = "WORKBENCH_PROBE_FAIL"
PROBE_SOURCE = """
kernel void workbench_probe(global const float *xs, global float *out) {
    size_t i = get_global_id(0);
    out[i] = xs[i] * 2.0f + 1.0f;
}
"""
INJECTED = '#error "probe failure injected by WORKBENCH_PROBE_FAIL"\n'

# Vector widths are probed one by one: a width whose kernel does not build, run or compute
# right is missing from the device's widths (PoCL 3.0's LLVM aborts on float16 with fabs
# and fma on some CPUs; the probe finds that out in its own process, not by driver name).
VECTOR_WIDTHS = (2, 4, 8, 16)
VECTOR_SOURCE = """
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
    finishes), ``crash16`` (the process aborts when vectors of 16 are probed, as PoCL 3.0's
    compiler does), or '' for none. Items are ``[crash:|hang:|crash16:]<device id or part
    of its name>``."""
    for item in (s.strip() for s in os.environ.get(INJECT_ENV, "").split(",")):
        kind, _, target = item.partition(":") if item.startswith(
            ("crash:", "hang:", "crash16:")) else ("build", "", item)
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
    import warnings

    import pyopencl as cl

    if inject == "crash":
        os.abort()
    if inject == "crash16":
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
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            program = cl.Program(context, source).build()
    except cl.Error as err:
        return False, f"builds nothing: {first_error_line(str(err))}"
    try:
        out = _run(program.workbench_probe, context, queue, xs, n)
    except cl.Error as err:
        return False, f"cannot run a kernel: {err}"
    if not np.array_equal(out, xs * 2 + 1):
        return False, "runs kernels but computes wrong results"
    return True, ""


def _run(kernel, context, queue, xs: np.ndarray, items: int) -> np.ndarray:
    """A probe kernel's output on ``xs`` (NaN before it runs), launched on ``items``."""
    import pyopencl as cl

    mf = cl.mem_flags
    inp = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=xs)
    out = np.full(len(xs), np.nan, np.float32)
    buf = cl.Buffer(context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=out)
    kernel(queue, (items,), None, inp, buf)
    cl.enqueue_copy(queue, out, buf)
    queue.finish()
    return out


def probe_width(device, n: int, inject: str = "") -> tuple[bool, str]:
    """Build, run and check a kernel on vectors of ``n`` floats (vloadn, fma, fabs, bit
    operations, vstoren): ``(ok, reason)``. A compiler that aborts ends the process; the
    parent then records the width as failed."""
    import warnings

    import pyopencl as cl

    if inject == "crash16" and n == 16:
        os.abort()
    count = 64 * n
    xs = (np.arange(count, dtype=np.float32) - count / 3) / count
    try:
        context = cl.Context([device])
        queue = cl.CommandQueue(context)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            program = cl.Program(context, VECTOR_SOURCE.format(n=n)).build()
    except cl.Error as err:
        return False, f"vectors of {n} do not build: {first_error_line(str(err))}"
    try:
        out = _run(program.workbench_vectors, context, queue, xs, 64)
    except cl.Error as err:
        return False, f"vectors of {n} do not run: {err}"
    if not np.allclose(out, xs * xs + 0.5 + 2 * np.abs(xs), rtol=1e-5, atol=1e-6):
        return False, f"vectors of {n} compute wrong results"
    return True, ""


def main(ids: list[str]) -> int:
    """Probe the devices with these ids, printing JSON lines (see the module's text). An id
    ``P:D/n`` probes only the vector widths from n on (the device itself was probed)."""
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
            print(json.dumps({"probing": device_id, "width": n}), flush=True)
            ok, reason = probe_width(device, n, inject)
            print(json.dumps({"id": device_id, "width": n, "ok": ok, "reason": reason}),
                  flush=True)
    return 0


if __name__ == "__main__":  # pragma: no cover - the devices module runs main() itself
    sys.exit(main(sys.argv[1:]))

"""What a device reaches at best, measured on it: the arithmetic ceiling (fused multiply-adds
in float32, GFLOP/s) and the bandwidth ceiling (a STREAM-like copy, GB/s). A kernel's time
is read against them: its GFLOP/s over the arithmetic ceiling is the fraction of the
device's peak it reaches, its GB/s over the copy's how close it is to the memory.

Below, the device's launch floor: what an empty kernel (one work-item writing one value)
takes there, the least any kernel's time can be. A time within ``RESOLUTION_FACTOR`` of it
is mostly the launch and its profiling events, not the kernel's work (``below_resolution``).

Both are small OpenCL kernels run through ``runtime.run_kernels`` on the device itself (a
vendor's data sheet counts clocks the device may not hold), each timed like any kernel and
the fastest run kept. The answers are kept for the process, per device.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .device.opencl import find_device
from .runtime import device_key

CHAINS = 8  # independent multiply-add chains of float8 per work-item: enough to hide the
# latency of each on a GPU, and vectors a CPU's compiler keeps in its vector registers
ITERATIONS = 256

FMA_KERNEL = """
kernel void fma_peak(global const float *restrict seed, global float *restrict out) {{
    float8 b = (float8)(seed[0]), c = (float8)(seed[1]);
    float8 a[{chains}];
    #pragma unroll
    for (int k = 0; k < {chains}; k++) a[k] = (float8)(seed[2] + (float)k);
    for (int i = 0; i < {iterations}; i++) {{
        #pragma unroll
        for (int k = 0; k < {chains}; k++) a[k] = fma(a[k], b, c);
    }}
    float8 s = (float8)(0.0f);
    #pragma unroll
    for (int k = 0; k < {chains}; k++) s += a[k];
    out[get_global_id(0)] = s.s0 + s.s1 + s.s2 + s.s3 + s.s4 + s.s5 + s.s6 + s.s7;
}}
"""

# a GPU's work-items copy neighbouring vectors (coalesced); a CPU's each copy a contiguous chunk
COPY_KERNEL = """
kernel void stream_copy(global const float4 *restrict xs, global float4 *restrict ys) {{
#if {chunked}
    size_t chunk = ({n} + get_global_size(0) - 1) / get_global_size(0);
    size_t end = min((size_t)({n}), (get_global_id(0) + 1) * chunk);
    for (size_t i = get_global_id(0) * chunk; i < end; i++) ys[i] = xs[i];
#else
    for (size_t i = get_global_id(0); i < {n}; i += get_global_size(0)) ys[i] = xs[i];
#endif
}}
"""


@dataclass(frozen=True)
class Ceilings:
    """A device's measured ceilings."""

    device: str
    gflop_per_s: float | None  # float32 fused multiply-adds, two operations each
    gb_per_s: float | None  # a copy: bytes read plus bytes written

    def fraction_of_peak(self, gflop_per_s: float | None) -> float | None:
        return gflop_per_s / self.gflop_per_s if gflop_per_s and self.gflop_per_s else None

    def fraction_of_bandwidth(self, gb_per_s: float | None) -> float | None:
        return gb_per_s / self.gb_per_s if gb_per_s and self.gb_per_s else None


@dataclass(frozen=True)
class LaunchFloor:
    """An empty kernel's time on a device (median and range of its repeats, device events)
    and the device's profiling timer resolution (``CL_DEVICE_PROFILING_TIMER_RESOLUTION``)."""

    device: str
    median_ms: float
    min_ms: float
    max_ms: float
    timer_resolution_ns: float | None


# A kernel that takes less than ten empty kernels spends a tenth or more of its time in the
# launch and its profiling events, whose own time varies from run to run by as much as it
# is (PoCL's runs of a few microseconds vary by 10x): at that size two kernels' times say
# more about the launches than about the kernels, and do not rank them.
RESOLUTION_FACTOR = 10.0

EMPTY_KERNEL = "kernel void empty(global float *out) { out[get_global_id(0)] = 1.0f; }"

_MEASURED: dict[str, Ceilings] = {}
_FLOORS: dict[str, LaunchFloor] = {}


def arithmetic_ceiling(device: str | None = None, repeat: int = 10) -> float | None:
    """GFLOP/s of independent float32 fused multiply-adds on every compute unit."""
    from .runtime import Launch, run_kernels

    info, _ = find_device(device)
    group = 256 if info.kind == "gpu" else 16
    # a CPU core's share is 1024 work-items (a third of a millisecond): with fewer, the
    # launch and the thread pool's start made the ceiling come out at half the cores' peak
    items = info.compute_units * (2048 if info.kind == "gpu" else 1024)
    seed = np.array([0.999, 0.001, 1.0], dtype=np.float32)
    outcome = run_kernels(FMA_KERNEL.format(chains=CHAINS, iterations=ITERATIONS),
                          [Launch("fma_peak", (items,), (group,), ("seed", "out"))],
                          {"seed": seed}, {"out": ((items,), np.float32)}, device=device,
                          repeat=repeat)
    if not outcome.ok or not outcome.kernel or not np.all(np.isfinite(outcome.value["out"])):
        return None
    flops = 2.0 * items * CHAINS * 8 * ITERATIONS
    return flops / (outcome.kernel.min_ms * 1e6)


def bandwidth_ceiling(device: str | None = None, megabytes: int = 256,
                      repeat: int = 10) -> float | None:
    """GB/s of a copy of ``megabytes`` (half read, half written)."""
    from .runtime import Launch, run_kernels

    info, _ = find_device(device)
    vectors = megabytes * 2 ** 20 // 2 // 16
    items = min(vectors, info.compute_units * (4096 if info.kind == "gpu" else 16))
    xs = np.ones(vectors * 4, dtype=np.float32)
    source = COPY_KERNEL.format(n=vectors, chunked=int(info.kind != "gpu"))
    outcome = run_kernels(source,
                          [Launch("stream_copy", (items,), None, ("xs", "ys"))], {"xs": xs},
                          {"ys": ((vectors * 4,), np.float32)}, device=device, repeat=repeat)
    if not outcome.ok or not outcome.kernel:
        return None
    return 2 * xs.nbytes / (outcome.kernel.min_ms * 1e6)


def ceilings(device: str | None = None) -> Ceilings:
    """The device's ceilings, measured once per process."""
    info, _ = find_device(device)
    key = device_key(info)
    if key not in _MEASURED:
        _MEASURED[key] = Ceilings(info.name, arithmetic_ceiling(device),
                                  bandwidth_ceiling(device))
    return _MEASURED[key]


def measure_launch_floor(device: str | None = None, repeat: int = 50) -> LaunchFloor | None:
    """An empty kernel's time on the device through ``runtime.run_kernels`` (None where it
    does not run there), with the device's profiling timer resolution where it reports one.
    Fifty runs, a fraction of a millisecond in all. On a CPU they vary by 10x or more (its
    thread pool asleep or awake), and on a busy one the median moves between measurements
    (0.0004 to 0.006 ms on two shared cores): the one measured first is the one kept and
    named."""
    from .runtime import Launch, run_kernels

    info, dev = find_device(device)
    outcome = run_kernels(EMPTY_KERNEL, [Launch("empty", (1,), (1,), ("out",))], {},
                          {"out": ((1,), np.float32)}, device=device, repeat=repeat)
    if not outcome.ok or not outcome.kernel:
        return None
    try:
        resolution = float(dev.profiling_timer_resolution)
    except Exception:  # a driver that does not answer the query: the floor alone says it
        resolution = None
    k = outcome.kernel
    return LaunchFloor(info.name, k.median_ms, k.min_ms, k.max_ms, resolution)


def launch_floor(device: str | None = None) -> LaunchFloor | None:
    """The device's launch floor, measured once per process (the first time a time on it
    is shown), None where it cannot be measured."""
    info, _ = find_device(device)
    key = device_key(info)
    if key not in _FLOORS:
        floor = measure_launch_floor(device)
        if floor is None:  # not kept: the next time shown tries again
            return None
        _FLOORS[key] = floor
    return _FLOORS[key]


def below_resolution(ms: float | None, low: float | None = None, high: float | None = None,
                     floor_ms: float | None = None) -> bool:
    """Whether a time says little on this device: within ``RESOLUTION_FACTOR`` of the
    launch floor ``floor_ms`` (an empty kernel's median there), or its repeats spread over
    more than the time itself (``high - low > ms``)."""
    if ms is None:
        return False
    if floor_ms is not None and ms < RESOLUTION_FACTOR * floor_ms:
        return True
    return low is not None and high is not None and high - low > ms


__all__ = ["Ceilings", "LaunchFloor", "RESOLUTION_FACTOR", "arithmetic_ceiling",
           "bandwidth_ceiling", "below_resolution", "ceilings", "launch_floor",
           "measure_launch_floor"]

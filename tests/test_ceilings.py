"""A device's ceilings are measured on it: the arithmetic one by independent fused
multiply-adds, the bandwidth one by a copy; a kernel's rate is read against them."""

import numpy as np
import pytest

from workbench.ceilings import Ceilings, arithmetic_ceiling, bandwidth_ceiling, ceilings


def test_the_ceilings_are_measured_on_the_device():
    assert arithmetic_ceiling(repeat=3) > 1.0  # GFLOP/s: every device here does more
    assert bandwidth_ceiling(megabytes=16, repeat=3) > 0.1  # GB/s


def test_the_ceilings_are_measured_once_per_process():
    assert ceilings() is ceilings()


def test_a_rate_reads_as_a_fraction_of_the_ceiling():
    c = Ceilings("a device", gflop_per_s=200.0, gb_per_s=40.0)
    assert c.fraction_of_peak(50.0) == 0.25 and c.fraction_of_bandwidth(40.0) == 1.0
    assert Ceilings("unmeasured", None, None).fraction_of_peak(50.0) is None


def test_the_launch_floor_is_an_empty_kernels_time_measured_once_per_process():
    from workbench.ceilings import launch_floor

    floor = launch_floor()
    assert floor is not None and floor is launch_floor()
    # an empty kernel: microseconds on any device here, never a millisecond
    assert 0 < floor.min_ms <= floor.median_ms <= floor.max_ms and floor.median_ms < 1.0
    assert floor.timer_resolution_ns is None or floor.timer_resolution_ns > 0


def test_the_arithmetic_ceiling_of_a_cpu_is_not_below_what_numpys_matmul_reaches():
    """No kernel does more multiply-adds than the ceiling: OpenBLAS's sgemm on the same
    cores is a lower bound of it (a ceiling timed on too little work came out at half)."""
    import time

    from workbench.opencl_devices import find_device

    if find_device(None)[0].kind != "cpu":
        pytest.skip("the default device is not a CPU")
    a = np.random.default_rng(0).standard_normal((512, 512)).astype(np.float32)
    a @ a
    start = time.perf_counter()
    for _ in range(10):
        a @ a
    numpy_gflops = 10 * 2 * 512 ** 3 / ((time.perf_counter() - start) * 1e9)
    assert arithmetic_ceiling(repeat=5) > 0.8 * numpy_gflops

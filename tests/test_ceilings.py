"""A device's ceilings are measured on it: the arithmetic one by independent fused
multiply-adds, the bandwidth one by a copy; a kernel's rate is read against them."""

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


def test_the_arithmetic_ceiling_of_a_cpu_is_timed_on_a_thousand_work_items_per_core(
        monkeypatch):
    """On 16 work-items per core the launch and the thread pool's start dominated and the
    ceiling came out at half the cores' peak, below OpenBLAS's sgemm rate."""
    from workbench import runtime
    from workbench.device.opencl import find_device

    info = find_device(None)[0]
    if info.kind != "cpu":
        pytest.skip("the default device is not a CPU")
    launched = []
    real = runtime.run_kernels

    def spy(source, launches, *args, **kwargs):
        launched.extend(launches)
        return real(source, launches, *args, **kwargs)

    monkeypatch.setattr(runtime, "run_kernels", spy)
    assert arithmetic_ceiling(repeat=2) > 1.0
    assert launched[0].global_size[0] >= 1024 * info.compute_units

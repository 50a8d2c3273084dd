"""Huge-page host arrays, and the runtime's use of them in place on a CPU device: the same
results as with the device's own copies, unwritten outputs still NaN, inputs untouched."""

import gc

import numpy as np
import pytest

from workbench import runtime
from workbench.device import host_arrays
from workbench.device.host_arrays import HUGE_PAGE, huge_page_array, in_place_copy
from workbench.device.opencl import find_device
from workbench.runtime import Launch, run_kernels

HALF = """
kernel void evens_tripled(global const float *xs, global float *out) {
    int i = get_global_id(0);
    if (i % 2 == 0) out[i] = xs[i] * 3.0f;
}
"""


@pytest.mark.parametrize("shape, dtype", [((3, 1000), np.float32), ((5,), np.int32),
                                          ((1 << 20,), np.float64), ((0,), np.float32)])
def test_a_huge_page_array_has_the_shape_and_type_asked_for_and_is_aligned(shape, dtype):
    a = huge_page_array(shape, dtype)
    assert a.shape == shape and a.dtype == dtype and a.flags.c_contiguous and a.flags.writeable
    if a.size:
        assert a.ctypes.data % HUGE_PAGE == 0
    a[...] = 7
    gc.collect()  # the mapping lives as long as the array
    assert (a == 7).all()


def test_only_arrays_of_a_huge_page_or_more_are_copied_in_place():
    small = np.arange(1000, dtype=np.float32)
    assert in_place_copy(small) is None
    large = np.arange(HUGE_PAGE // 4, dtype=np.float32).reshape(2, -1)
    copy = in_place_copy(large)
    assert copy is not None and copy.ctypes.data % HUGE_PAGE == 0
    np.testing.assert_array_equal(copy, large)
    assert not np.shares_memory(copy, large)


def test_large_buffers_on_a_cpu_device_are_used_in_place_with_the_same_results(monkeypatch):
    info, _ = find_device(None)
    if info.kind != "cpu":
        pytest.skip("the default device is not a CPU")
    copied = []

    def spy(array):
        copy = host_arrays.in_place_copy(array)
        copied.append(copy is not None)
        return copy

    monkeypatch.setattr(runtime, "in_place_copy", spy)
    n = HUGE_PAGE  # 8 MiB of float32
    xs = np.random.default_rng(1).uniform(-1, 1, n).astype(np.float32)
    before = xs.copy()
    outcome = run_kernels(HALF, [Launch("evens_tripled", (n,), None, ("xs", "out"))],
                          {"xs": xs}, {"out": ((n,), np.float32)}, repeat=2)
    assert outcome.ok, outcome.message
    assert copied == [True, True]  # the input and the output
    np.testing.assert_allclose(outcome.value["out"][::2], xs[::2] * 3)
    assert np.isnan(outcome.value["out"][1::2]).all()
    np.testing.assert_array_equal(xs, before)

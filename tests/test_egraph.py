"""Equality saturation (``rewriting.egraph``), sketches (``rewriting.sketching``,
``rewriting.sketching``) and the egraph strategy: every term extracted from a graph
evaluates as the program it was grown from, derives by ordinary steps that replay, and the
strategy's candidates run correctly on the device into a log that resumes and replays."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.saturation import MM_SKETCHES
from workbench.derivation import FORMAT, Derivation
from workbench.errors import ParseError, WorkbenchError
from workbench.inputs import random_inputs
from workbench.notation import parse, parse_type
from workbench.programs import library
from workbench.rewriting.application import lookup_rule
from workbench.rewriting.egraph import EGraph, NoDerivation, changed_place
from workbench.rewriting.sketching import (
    Contains,
    Hole,
    SketchFinder,
    matches,
    parse_sketch,
    sketch_guided,
)
from workbench.search import read, search
from workbench.search.egraph import derivation, saturation_rules
from workbench.search.log import read_log
from workbench.search.space import replay, walk_rules
from workbench.semantics import evaluate

ROOT = Path(__file__).parent.parent
STAGES = ["map abs", "map (λx. x * 2.0)", "map (λx. x + 1.0)", "map (λx. x * x)"]
VECTOR = "[float]_16"
MM_TYPES = ("[[float]_16]_16", "[[float]_16]_16")


@st.composite
def pipelines(draw) -> str:
    """A random pipeline of maps over a vector of floats, reduced or not."""
    stages = draw(st.lists(st.sampled_from(STAGES), min_size=1, max_size=3))
    if draw(st.booleans()):
        stages.insert(0, "reduce (+) 0")
    return " ∘ ".join(stages)


def same_values(a, b) -> bool:
    return np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-4,
                       atol=1e-4)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pipelines(), st.integers(0, 3))
def test_every_term_extracted_from_the_graph_evaluates_as_the_original(text, seed):
    start = parse(text)
    graph = EGraph(start, (VECTOR,), walk_rules()).saturate(rounds=2, node_limit=400)
    (xs,) = random_inputs([parse_type(VECTOR)], {}, seed)
    expected = evaluate(start, xs)
    terms = list(graph.sample(12, seed))
    assert len(graph.nodes) > start.size()  # the graph grew
    for term in terms:
        assert same_values(evaluate(term, xs), expected), term


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pipelines(), st.integers(0, 3))
def test_every_program_extracted_replays_through_the_ordinary_rules_and_evaluates_as_the_start(
        text, seed):
    """The egraph strategy's extraction: terms drawn, each with its derivation (a term
    without one is not extracted). Each derivation replays step by step through a
    ``Derivation`` to the very term, which evaluates as the start; and nearly every term
    drawn derives (933 of asum's 1,398 did not before a composition's functions had
    e-classes of their own)."""
    start = parse(text)
    graph = EGraph(start, (VECTOR,), saturation_rules()).saturate(rounds=2, node_limit=400)
    (xs,) = random_inputs([parse_type(VECTOR)], {}, seed)
    expected = evaluate(start, xs)
    terms = list(graph.sample(12, seed))
    extracted = [(term, steps) for term in terms
                 if (steps := derivation(graph, term)) is not None]
    assert len(extracted) >= 0.9 * len(terms)
    for term, steps in extracted:
        d = Derivation(start, VECTOR)
        for s in steps:
            d.apply(s.rule, s.path, **s.params)
        assert d.current == term
        assert same_values(evaluate(d.current, xs), expected), term


def test_a_function_of_a_composition_never_shares_an_e_class_with_a_composition():
    """Compositions are flat: where a function's e-class held a composition (the body of
    ``iterate 1``, of the same types), a term built from the graph spliced it into its
    neighbours, a shape no e-node has, which did not derive."""
    def mixed(graph):
        return sum(1 for n in graph.nodes if n.head[0] == "Compose" for k in n.children
                   if any(m.head[0] == "Compose" for m in graph.members[graph.find(k)]))

    asum = library("blas")["asum"]
    grown = {chains: EGraph(asum, ("[float]_64",), walk_rules(), chains=chains).saturate(
        rounds=3, node_limit=2500) for chains in (True, False)}
    assert mixed(grown[True]) == 0
    assert mixed(grown[False]) > 0  # as version 2 of the egraph strategy grew it


def test_an_extracted_term_derives_by_ordinary_steps_that_replay():
    asum = library("blas")["asum"]
    graph = EGraph(asum, (VECTOR,), walk_rules()).saturate(rounds=2, node_limit=800)
    derived = 0
    for term in graph.sample(20, 0):
        try:
            steps = graph.derive(term)
        except NoDerivation:
            continue
        derived += 1
        assert replay(asum, (parse_type(VECTOR),), steps) == term
        d = Derivation(asum, VECTOR)
        for s in steps:
            d.apply(s.rule, s.path, **s.params)
        assert d.current == term
    assert derived >= 19  # all but a term the graph holds by an equality read backwards


@pytest.mark.slow
def test_a_term_held_by_congruence_derives_by_an_origins_step_applied_in_place():
    """``mapWorkgroup ((λx. x * 2.0) ∘ abs)`` is an e-node because its function's e-class
    merged with another; the rewrite that created it was applied to another term. Its step
    applied to the term in place gives it (``rewriting.routes``); the first route alone, as
    version 2 of the egraph strategy derived, does not."""
    start = parse("reduce (+) 0 ∘ map (λx. x * 2.0) ∘ map abs")
    graph = EGraph(start, ("[float]_64",), walk_rules()).saturate(rounds=3, node_limit=2500)
    term = parse("reduceSeqUnroll (+) 0 ∘ join ∘ mapWorkgroup (join ∘ map (reducePart (+) 0 1) "
                 "∘ split 16) ∘ split 64 ∘ mapWorkgroup ((λx. x * 2.0) ∘ abs)")
    steps = graph.derive(term)
    assert replay(start, (parse_type("[float]_64"),), steps) == term
    with pytest.raises(NoDerivation):
        graph.derive(term, routes=False)


def test_the_smallest_changed_subterm_is_where_a_rewrite_happened():
    before, after = parse("reduce (+) 0 ∘ map abs"), parse("reduce (+) 0 ∘ mapSeq abs")
    assert changed_place(before, after) == (1,)
    assert changed_place(before, after, pair=True) == ()
    assert changed_place(before, before) is None


def test_a_rewrite_that_holds_at_one_size_does_not_leak_to_another():
    """The same term at two places of different types is two e-classes: a split by 4 that
    holds of an array of 8 is not extracted where the array has 6."""
    start = parse("λxs ys. (map abs xs, map abs ys)")
    types = ("[float]_8", "[float]_6")
    graph = EGraph(start, types, walk_rules()).saturate(rounds=1, node_limit=600)
    xs, ys = random_inputs([parse_type(t) for t in types], {}, 1)
    expected = evaluate(start, xs, ys)
    terms = list(graph.sample(30, 2))
    assert any("split 4" in str(t) for t in terms)  # split by 4 where it holds
    for term in terms:
        got = evaluate(term, xs, ys)
        assert all(same_values(a, b) for a, b in zip(got, expected)), term


def test_a_pair_rule_fuses_two_functions_that_first_met_other_neighbours():
    """``reduce (mapVec (+)) 0`` is first met beside ``splitVec n`` (``reduce-vectorize``),
    then beside ``map (mapVec abs)`` (``map-reduce-vectorize``): the composition that holds
    both applies the fusion, which reads the right neighbour, and the fused term derives."""
    asum = library("blas")["asum"]
    rules = [lookup_rule(name) for name in ("reduce-vectorize", "map-reduce-vectorize",
                                            "map-reduce-fusion")]
    graph = EGraph(asum, (VECTOR,), rules).saturate(rounds=2, node_limit=5000)
    fused = SketchFinder(graph).find(parse_sketch("contains(map (reduceSeq (mapVec ?) ?))"),
                                     graph.root)
    assert fused is not None
    steps = graph.derive(fused)
    assert [s.rule for s in steps] == ["map-reduce-vectorize", "map-reduce-fusion"]
    assert replay(asum, (parse_type(VECTOR),), steps) == fused
    (xs,) = random_inputs([parse_type(VECTOR)], {}, 0)
    assert same_values(evaluate(fused, xs), evaluate(asum, xs))


# -- sketches -------------------------------------------------------------------------------

def test_sketches_parse_with_holes_typed_holes_and_contains():
    sketch = parse_sketch("contains(reduceSeq ? ? ∘ map (mapSeq ?{float}))")
    assert isinstance(sketch, Contains)
    assert str(parse_sketch("?{[[float]_n]_m}")) == "?{[[float]_n]_m}"
    assert isinstance(parse_sketch("?"), Hole)
    assert matches(sketch, parse("join ∘ reduceSeq (+) 0 ∘ map (mapSeq abs)"))
    assert not matches(sketch, parse("reduce (+) 0 ∘ map abs"))
    assert matches(parse_sketch("split n"), parse("split 4"))
    assert not matches(parse_sketch("split 8"), parse("split 4"))


@pytest.mark.parametrize("text, column, says", [
    ("map ? ∘ ∘ split n", 9, "expected an expression"),
    ("contains(?{[float}) ∘ x", 18, "typed hole"),
    ("map ?{float", 5, "not closed"),
    ("contains", 1, "contains takes one sketch"),
    ("", 1, "a sketch is the text"),
])
def test_a_malformed_sketch_is_refused_at_its_place(text, column, says):
    with pytest.raises(ParseError) as err:
        parse_sketch(text)
    assert err.value.column == column and says in str(err.value)


MM_GOALS = MM_SKETCHES  # the sketches benchmarks/saturation.py reaches the goals with


@pytest.mark.parametrize("goal", list(MM_GOALS))
def test_sketches_reach_the_blockings_and_tilings_of_matrix_multiplication(goal):
    mm = library("mm")["mm"]
    reached = sketch_guided(mm, MM_TYPES, MM_GOALS[goal], saturation_rules(), seconds=60)
    assert all(r.reached for r in reached) and len(reached) == len(MM_GOALS[goal])
    steps = [s for r in reached for s in r.steps]
    assert goal in [s.rule for s in steps]
    program = replay(mm, tuple(parse_type(t) for t in MM_TYPES), steps)
    assert program == reached[-1].program and matches(reached[-1].sketch, program)
    a, b = random_inputs([parse_type(t) for t in MM_TYPES], {}, 0)
    assert same_values(evaluate(program, a, b), evaluate(mm, a, b))


def test_sketch_guided_saturation_needs_a_sketch():
    with pytest.raises(WorkbenchError, match="at least one sketch"):
        sketch_guided(parse("map abs"), (VECTOR,), [], walk_rules())


# -- the strategy ---------------------------------------------------------------------------

OPTIONS = {"rounds": 2, "nodes": 500, "extract": 40}


def test_the_egraph_strategy_measures_derived_kernels_into_a_log_that_resumes(tmp_path):
    asum = library("blas")["asum"]
    log = tmp_path / "egraph.jsonl"
    first = search(asum, "[float]_4096", strategy="egraph", budget=3, workers=0, repeat=2,
                   log=log, options=OPTIONS, seed=1)
    assert first.evaluated == 3 and first.best is not None
    assert replay(asum, (parse_type("[float]_4096"),), first.derivation.steps) == first.best
    assert first.details["egraph"]["nodes"] > 0
    again = search(asum, "[float]_4096", strategy="egraph", budget=3, workers=0, repeat=2,
                   log=log, options=OPTIONS, seed=1)
    assert again.from_log == 3 and str(again.best) == str(first.best)
    replayed = search(asum, "[float]_4096", replay_log=log, budget=3, options=OPTIONS)
    assert [r.expression for r in replayed.log] == [r.expression for r in first.log]
    for record in first.log:  # every candidate measured replays from the start, and ran right
        d = Derivation.from_json({"format": FORMAT, "start": str(asum),
                                  "inputs": ["[float]_4096"], "steps": record["steps"]})
        assert str(d.current) == record["expression"] and record["correct"]


def test_a_log_of_version_2_replays_with_derivable_off():
    """Version 2 grew compositions' functions into other e-classes and derived terms after
    ranking them; its logs replay with ``derivable`` off."""
    archived = ROOT / "benchmarks/results/logs/saturation_cpu_small_scal_65536_egraph.jsonl.gz"
    header = read_log(archived).headers[0]
    assert header["strategy_version"] == 2 and "derivable" not in header["options"]
    records = read(archived)
    result = search(library("blas")["scal"], *header["types"], replay_log=archived,
                    budget=len(records))
    assert not [r for r in result.log if r["status"] == "not in log"]
    assert {r["expression"] for r in result.log} == {r["expression"] for r in records}


def test_a_log_of_version_3_replays_with_the_terms_extracted_before_any_is_measured():
    """Version 3 grew within half the time limit and completed ``extract`` kernels of
    terms that derive before it measured any; its logs replay with those defaults."""
    from workbench.search.strategies import VERSIONS, replay_options, replays

    header = {"strategy": "egraph", "strategy_version": 3, "options": {"rounds": 4}}
    assert VERSIONS["egraph"] == 4 and replays("egraph", 3) and replays("egraph", 2)
    assert replay_options("egraph", header, None) == {
        "derive_late": False, "growth_share": 0.5, "rounds": 4}
    assert replay_options("egraph", header | {"strategy_version": 2}, None)["derivable"] is False


def test_version_4_measures_before_every_term_is_completed_and_derives_what_it_measures(
        tmp_path):
    """``first`` kernels completed, then more between batches: a budget of 3 completes a
    few of the ``extract`` kernels the graph offers; each candidate measured derives."""
    asum = library("blas")["asum"]
    options = OPTIONS | {"extract": 200, "first": 4}
    result = search(asum, "[float]_4096", strategy="egraph", budget=3, workers=0,
                    log=tmp_path / "v4.jsonl", options=options, seed=1)
    report = result.details["egraph"]
    assert result.evaluated == 3 and 4 <= report["kernels extracted"] < 40
    assert report["extraction seconds"] >= 0 and report["nodes"] > 0
    for record in result.log:
        d = Derivation.from_json({"format": FORMAT, "start": str(asum),
                                  "inputs": ["[float]_4096"], "steps": record["steps"]})
        assert str(d.current) == record["expression"] and record["correct"]


def test_version_3_derives_every_term_before_it_completes_it(tmp_path):
    """With version 3's options (``derive_late`` off), every kernel is extracted from a
    term that derived before any is measured, and each measured candidate replays."""
    asum = library("blas")["asum"]
    result = search(asum, "[float]_4096", strategy="egraph", budget=2, workers=0,
                    log=tmp_path / "v3.jsonl", seed=1,
                    options=OPTIONS | {"derive_late": False, "growth_share": 0.5})
    assert result.evaluated == 2 and result.details["egraph"]["kernels extracted"] == 40
    assert replay(asum, (parse_type("[float]_4096"),), result.derivation.steps) == result.best


def test_completing_ahead_while_candidates_run_changes_no_choice():
    """``Extraction.ahead`` (work done while a batch runs) only fills the completions'
    cache: the kernels ``more`` gives are the same with or without it."""
    from workbench.search.egraph import Extraction
    from workbench.search.guided import Candidates, GuidedState

    asum = library("blas")["asum"]
    graph = EGraph(asum, ("[float]_4096",), walk_rules()).saturate(rounds=2, node_limit=500)

    def kernels(ahead: int) -> list[str]:
        ctx = _bare_context(asum, "[float]_4096")
        extraction = Extraction(graph, Candidates(ctx, GuidedState.of(ctx)), 30, 0)
        out = [str(c.expr) for c, _, _ in extraction.more(3)]
        for _ in range(ahead):
            extraction.ahead()
        return out + [str(c.expr) for c, _, _ in extraction.more(5)]

    assert kernels(0) == kernels(12)
    assert len(set(kernels(0))) == 8


def _bare_context(expr, *types):
    """The context of a search that runs nothing (its strategy's pieces tested alone)."""
    from workbench.search.context import Context, SearchSpec
    from workbench.search.evaluation import ReplayEvaluator
    from workbench.search.log import Log

    spec = SearchSpec(expr, tuple(parse_type(t) for t in types), 3, "egraph", repeat=3,
                      replayed=[])
    return Context(spec, ReplayEvaluator([]), Log(None))


def test_no_batch_is_begun_that_would_end_past_the_time_limit():
    import time
    from types import SimpleNamespace

    from workbench.search.egraph import in_time

    soon = SimpleNamespace(deadline=time.time() + 5)
    assert in_time(soon, []) and in_time(soon, [1.0, 3.0]) and in_time(soon, [9.0, 1, 1, 1])
    assert not in_time(soon, [1.0, 6.0])  # the last batches took up to 6 s, 5 s are left
    assert in_time(SimpleNamespace(deadline=None), [100.0])


def test_draws_take_the_e_nodes_that_terms_chosen_by_weight_take():
    """``Draw`` (each e-class's options found once) draws the terms that ``EGraph.term``
    draws with a choice by weight, from the same random numbers."""
    import random

    from workbench.rewriting.egraph import Draw

    graph = EGraph(library("blas")["dot"], ("[float]_4096",) * 2, saturation_rules()
                   ).saturate(rounds=2, node_limit=800)
    smallest = graph.smallest()
    ours, theirs = random.Random(5), random.Random(5)
    draw = Draw(graph, ours, smallest)
    pick = lambda options: theirs.choices(  # noqa: E731
        options, weights=[1 + graph.born.get(o, 0) for o in options])[0]
    drawn = [draw.term(graph.root) for _ in range(30)]
    assert drawn == [graph.term(graph.root, pick, smallest=smallest) for _ in range(30)]
    assert len(set(drawn)) > 5


def test_the_egraph_strategy_refuses_an_option_it_does_not_take():
    with pytest.raises(WorkbenchError, match="egraph strategy takes no option 'depth'"):
        search(parse("map abs"), VECTOR, strategy="egraph", options={"depth": 2},
               replay_log=[])


# -- egglog (the measurement of benchmarks/saturation.py --egglog) ------------------------------

def test_the_untyped_egglog_encoding_reduces_by_substitution_and_outgrows_our_graph():
    """β by explicit substitution holds in the de Bruijn encoding, and the untyped graph of
    asum is past 10,000 e-nodes after three iterations (the module docstring of
    ``rewriting.egraph`` says why the project grows its own)."""
    egglog = pytest.importorskip("egglog")
    from benchmarks.saturation import Term, algorithmic_rules, programs, substitution_rules

    graph = egglog.EGraph()
    reduced = graph.let("reduced", Term.app(Term.lam(Term.map(Term.var(0))), Term("abs")))
    graph.register(*substitution_rules())
    graph.run(10)
    graph.check(egglog.eq(reduced).to(Term.map(Term("abs"))))
    graph = egglog.EGraph()
    graph.let("start", programs()["asum"])
    graph.register(*algorithmic_rules(), *substitution_rules())
    graph.run(3)
    ours = EGraph(library("blas")["asum"], ("[float]_4096",), walk_rules()).saturate(
        rounds=2, node_limit=20000)
    assert sum(n for _, n in graph.all_function_sizes()) > max(10000, len(ours.nodes))


@pytest.mark.slow
def test_the_command_line_searches_with_the_egraph_strategy(tmp_path):
    import json
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "workbench", "search", "reduce (+) 0 o map abs", "--type",
         "[float]_64", "--budget", "1", "--workers", "0", "--strategy", "egraph", "--log",
         str(tmp_path / "asum.jsonl")], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = (tmp_path / "asum.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["strategy"] == "egraph"
    assert any(json.loads(line).get("correct") for line in lines[1:])

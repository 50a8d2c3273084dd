"""Each element's fold over a mapped array fused (``search/fusion.py``) and the guided search's
option that measures it first (``fusion_first``, on by default on both kinds of device: its
version 5); the fused kernel's checks against the interpreter and under Oclgrind are in
tests/test_rules_curried.py."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import lift_programs as bench
from tests.replays import header_only_log
from workbench import evaluate, parse, parse_type
from workbench.inputs import random_inputs
from workbench.notation.program import user_functions_text
from workbench.search import search
from workbench.search.fusion import fused_folds
from workbench.search.strategies import VERSIONS, replay_options

ROWS = "[[float]_16]_8"


@pytest.mark.parametrize("text,fused", [
    ("λm. map (λr. reduce (+) 0.0 (map abs r)) m",
     "λm. map (λr. reduceSeq (λ(acc, x). acc + abs x) 0.0 r) m"),
    # two folds, the last fused first: both fused, their places kept
    ("λm. map (λr. at 0 (reduce max 0.0 (map abs r)) + at 0 (reduceSeq (λ(a, x). a + x) 0.0 "
     "(map (*2.0) r))) m", "λm. map (λr. at 0 (reduceSeq (λ(acc, x). max (acc, abs x)) 0.0 r) + "
     "at 0 (reduceSeq (λ(acc, x). acc + x * 2.0) 0.0 r)) m"),
    # a fold of a map of a map: the map of a map is fused too (the fold's array, once fused)
    ("λm. map (λr. reduce (+) 0.0 (map abs (map (*2.0) r))) m",
     "λm. map (λr. reduceSeq (λ(acc, x). acc + abs (x * 2.0)) 0.0 r) m")])
def test_each_elements_fold_over_a_mapped_array_is_fused_and_computes_the_same(text, fused):
    expr = parse(text)
    types = (parse_type(ROWS),)
    found = fused_folds(expr, types)
    assert found is not None and str(found[0]) == fused
    assert {s.rule for s in found[1]} == {"apply-compose", "reduce-map-fusion"}
    (m,) = random_inputs(types, {}, 3)
    np.testing.assert_allclose(evaluate(found[0], m), evaluate(expr, m), rtol=1e-5)


@pytest.mark.parametrize("text", [
    "λxs. reduce (+) 0.0 (map abs xs)",  # no map around it: one work-item's whole loop
    "λm. map (λr. (reduce (+) 0.0 ∘ map abs) r) m",  # composed: the code generator fuses it
    "λm. map (λr. reduce (+) 0.0 r) m"])  # no map to fuse
def test_no_fusion_outside_a_map_of_a_composed_fold_or_of_a_fold_over_no_map(text):
    arg = "[float]_64" if text.startswith("λxs") else ROWS
    assert fused_folds(parse(text), (parse_type(arg),)) is None


def _header_only_log(path, kind: str, name: str, version: int):
    """A log of a search of Lift's MD on a device of this kind that measured nothing: a
    replay shows the candidates the search proposes there, each "not in log"."""
    prog = bench.PROGRAMS["molecularDynamics"].program()
    from workbench.semantics import prepare_inputs

    _, types = prepare_inputs(prog, bench.inputs_of("molecularDynamics", 256))
    return prog, types, header_only_log(path, prog, types, kind, name, version,
                                        definitions=user_functions_text(prog))


@pytest.mark.parametrize("kind,name", [("gpu", "NVIDIA H200"), ("cpu", "pthread-AMD EPYC")])
def test_the_guided_search_measures_mds_fused_forces_on_either_kind(tmp_path, kind, name):
    """Guided version 5 measures the start with its folds over mapped arrays fused among its
    first candidates, on a GPU and on a CPU, on a GPU also on work-groups of 128 work-items
    (as the hand-written kernel); a log of version 4 replays without them."""
    prog, types, log = _header_only_log(tmp_path / f"{kind}.jsonl", kind, name,
                                        VERSIONS["guided"])
    found = search(prog, *types, budget=4, replay_log=log).log
    fused = [r for r in found if any(s["rule"] == "reduce-map-fusion" for s in r["steps"])]
    assert len(fused) == (2 if kind == "gpu" else 1)
    assert all("reduceSeq (λ(acc, x). updateF acc p.0 (at x particles)" in r["expression"]
               for r in fused)
    assert ("split 128" in fused[-1]["expression"]) == (kind == "gpu")
    prog, types, old = _header_only_log(tmp_path / f"{kind}4.jsonl", kind, name, 4)
    found = search(prog, *types, budget=4, replay_log=old).log
    assert not [r for r in found if any(s["rule"] == "reduce-map-fusion" for s in r["steps"])]
    assert replay_options("guided", {"strategy": "guided", "strategy_version": 4}, None) == \
        {"fusion_first": False, "fused_first": False, "vector_blocks_first": False,
         "lane_widths": [8, 16], "groups_first": False, "float4_lanes_first": False,
         "turns_first": False, "vector_reductions_first": False, "lane_sums_first": False}

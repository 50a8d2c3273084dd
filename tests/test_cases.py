"""The CASES 2016 exploration as a search strategy (``strategy="cases"``): four phases with
their counts, named heuristics, parameters pruned by the device's limits (counted by
reason), candidates in random order, every one checked against the interpreter, logged,
resumable and replayable."""

import numpy as np
import pytest

from workbench import load, parse_type
from workbench.search import cases as C
from workbench.search import search

MM = load("workbench/programs/mm.lift")["mm"]
TYPES = tuple(parse_type(t) for t in ("[[float]_64]_32", "[[float]_32]_64"))
CPU = C.Limits(kind="cpu", local_memory_bytes=32768, max_work_group_size=256,
               compute_units=2, min_work_group=1)
SMALL = {"depth": 2}


@pytest.fixture(scope="module")
def explored():
    return C.explore(MM, TYPES, C.Options(**SMALL), CPU)


def test_each_phase_reports_its_count_next_to_the_papers(explored):
    phases = {p["phase"]: p for p in explored["phases"]}
    assert list(phases) == ["algorithmic", "nesting depth", "add/multiply distance",
                            "rule repetitions", "OpenCL", "parameters"]
    counts = [p["count"] for p in explored["phases"]]
    assert counts[0] >= counts[1] >= counts[2] >= counts[3] > 0
    assert counts[4] > counts[3] and counts[5] > 0
    assert phases["algorithmic"]["paper"] == 20000 and phases["parameters"]["paper"] == 46000
    assert sum(explored["pruned"].values()) > 0


def test_the_heuristics_are_named_predicates():
    blocked = C.phase1(MM, TYPES, C.Options(depth=1))
    by_label = {v.label: v for v in blocked}
    assert C.add_multiply_distance(MM) > 0  # reduce (+) 0 ∘ map (*): a map between them
    assert C.add_multiply_distance(by_label["2d-blocking"].expr) == 0  # acc + a * b
    # the row and column maps and the map of the dot product; blocks of blocks of a block
    assert C.nesting_depth(MM) == 3 and C.nesting_depth(by_label["2d-blocking"].expr) == 4
    twice = C.Variant(MM, tuple(C.Step("tiling", (), {}) for _ in range(2)))
    assert not C.repetitions(twice)


def test_device_limits_prune_parameters_before_anything_is_built():
    tight = C.Limits(kind="gpu", local_memory_bytes=256, max_work_group_size=16,
                     compute_units=1, min_work_group=4)
    found = C.explore(MM, TYPES, C.Options(depth=2), tight)
    pruned = found["pruned"]
    assert pruned.get("work-groups larger than the device allows", 0) > 0
    assert pruned.get("work-groups too small", 0) > 0
    for v, env in found["candidates"][:200]:
        r = C.resources(v, TYPES)
        assert C.check(r, env, tight) is None


def test_phase_two_maps_the_two_outer_maps_over_work_groups(explored):
    texts = [str(v.expr) for v in explored["programs"]]
    assert all("mapWorkgroup 1" in t for t in texts)
    assert any("mapLocal 1" in t and "toLocal" in t for t in texts)
    assert any("packed" in t for t in texts)


def test_a_cases_search_measures_candidates_in_random_order_and_logs_them(tmp_path):
    a = np.random.default_rng(1).uniform(-1, 1, (32, 64)).astype(np.float32)
    b = np.random.default_rng(2).uniform(-1, 1, (64, 32)).astype(np.float32)
    log = tmp_path / "cases.jsonl"
    result = search(MM, a, b, strategy="cases", budget=4, workers=0, log=log,
                    options={**SMALL, "limits": CPU.as_json()})
    assert result.evaluated == 4 and result.best is not None
    assert all(r["correct"] for r in result.log), [r.get("message") for r in result.log]
    assert [p["phase"] for p in result.details["phases"]][0] == "algorithmic"
    assert all(r["details"]["parameters"] and r["details"]["label"] for r in result.log)
    np.testing.assert_allclose(np.asarray(__import__("workbench").evaluate(result.best, a, b)),
                               a @ b, rtol=1e-4, atol=1e-4)
    again = search(MM, a, b, strategy="cases", budget=4, workers=0, log=log,
                   options={**SMALL, "limits": CPU.as_json()})
    assert again.from_log == 4
    replayed = search(MM, a, b, strategy="cases", budget=4, replay_log=log,
                      options=SMALL)
    assert replayed.best_kernel_ms == result.best_record["kernel_ms"]


def test_refining_measures_the_neighbours_of_the_fastest_candidate():
    a = np.random.default_rng(3).uniform(-1, 1, (32, 64)).astype(np.float32)
    b = np.random.default_rng(4).uniform(-1, 1, (64, 32)).astype(np.float32)
    options = {**SMALL, "limits": CPU.as_json(), "refine": 0.5,
               "keep": ["one work-item per group", "register blocks unrolled"]}
    result = search(MM, a, b, strategy="cases", budget=6, workers=0, options=options)
    phases = [p["phase"] for p in result.details["phases"]]
    assert "sampled" in phases
    assert all("one work-item per group" in r["details"]["label"] for r in result.log)
    first = min(result.log[:3], key=lambda r: r["kernel_ms"])
    later = [r for r in result.log[3:] if r["details"]["program"] == first["details"]["program"]]
    assert later, "the fastest program's neighbours are measured"
    for r in later:
        changed = {k for k, v in r["details"]["parameters"].items()
                   if v != first["details"]["parameters"][k]}
        assert len(changed) >= 1


def test_random_order_draws_a_program_then_its_parameters(explored):
    order = C.random_order(explored["candidates"], seed=5)
    assert len(order) == len(explored["candidates"])
    programs = {id(v) for v, _ in explored["candidates"]}
    first = [id(v) for v, _ in order[:len(programs)]]
    assert len(set(first)) == len(programs)  # every program once before any twice
    assert C.random_order(explored["candidates"], seed=5) == order


def test_an_interleaved_tile_is_read_by_neighbouring_work_items_at_neighbouring_words():
    """The layout ``(interleaved)`` of a tile in local memory (the rule local-copy, t=3):
    the work-items of dimension 0 read one word apart (no bank conflicts), where the tile
    as it is puts them a k-chunk of register blocks apart (8 × 4 words); both kernels
    compute the product."""
    import re

    from workbench.codegen.program import opencl
    from workbench.run import run

    types = tuple(parse_type("[[float]_64]_64") for _ in range(2))
    options = C.Options(depth=3, mappings=("work-groups and work-items",))
    family = [v for v in C.phase1(MM, types, options)
              if v.label == "2d-blocking → tiling → innermost-tiling"]
    programs = {v.label.split("; ")[-1]: v for v in C.phase2(family, types, options)
                if "register blocks unrolled" in v.label and "packed" not in v.label}
    a, b = (np.random.default_rng(3).uniform(-1, 1, (64, 64)).astype(np.float32)
            for _ in range(2))
    strides = {}
    for layout in ("", " (interleaved)"):
        v = programs[f"private accumulator, A tile in local memory, B tile in local memory"
                     f"{layout}"]
        sizes = C.size_names(v.expr)
        env = {name: {"block": 4, "tile": 4, "chunk": 8}[C.roles(v)[name]] for name in sizes}
        expr, _ = C.concrete(v, env)
        source = opencl(expr, *types).source
        # the local tiles' reads in the register block's update, by the work-items of
        # dimension 0: lclN[… + s*lM …], lM one of their indices
        dim0 = set(re.findall(r"int (l\d+) = get_local_id\(0\);", source))
        updates = [line for line in source.splitlines() if "prv" in line and "kernel_f" in line]
        steps = {int(m.group(1) or 1) for line in updates
                 for read in re.findall(r"lcl\d+\[([^\]]*)\]", line)
                 for m in re.finditer(r"(?:(\d+)\*)?(l\d+)\b", read) if m.group(2) in dim0}
        assert steps, source
        strides[layout] = steps
        result = run(expr, a, b, repeat=1)
        assert result.status == "ok" and result.correct, result.message
    assert strides[""] == {32} and strides[" (interleaved)"] == {1}

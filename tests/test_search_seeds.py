"""Recorded winners as seeds, never as answers (SPEC 8): a log or result of another device
seeds a search, whose first candidates are the seeds' best, measured here; no time taken
elsewhere is ever reported as this device's."""

from pathlib import Path

import pytest

from workbench import Derivation
from workbench.errors import WorkbenchError
from workbench.programs import library
from workbench.search import Record, read, search
from workbench.search.seeds import seed_limit, seeds_of

DATA = Path(__file__).parent / "data"
H100_LOG = DATA / "asum_16777216_h100_guided.jsonl.gz"  # recorded on an H100
ASUM = library("blas")["asum"]
TYPES = ("[float]_65536",)


def _fastest_first(path) -> list[Record]:
    records = [Record.of(r) for r in read(path)]
    return sorted((r for r in records if r.measured and r.steps is not None),
                  key=lambda r: r.kernel_ms)


def test_another_devices_log_is_measured_first_here_and_its_times_never_reported(tmp_path):
    budget = 8
    result = search(ASUM, *TYPES, budget=budget, workers=0, repeat=2, seeds=H100_LOG,
                    log=tmp_path / "here.jsonl")
    wanted = seeds_of(ASUM, _types(), H100_LOG, budget).candidates
    assert result.seeded == len(wanted) == seed_limit(budget) == 2
    # the first candidates measured are the seeds, in their order (the H100's fastest first)
    assert [r.expression for r in result.log[:2]] == [str(e) for e, _ in wanted]
    recorded = {Record.of(r).kernel_ms for r in read(H100_LOG)}
    here = result.device["name"]
    assert here != "NVIDIA H100 80GB HBM3"
    for record in result.log:
        assert record.device_name == here  # measured on this device, every one
    assert result.best_record in result.log
    assert result.best_record.kernel_ms not in recorded
    # the log written here holds this device's measurements, the seeds' among them, and
    # its header says which seeds were measured first
    written = [Record.of(r) for r in read(tmp_path / "here.jsonl")]
    assert [r.expression for r in written[:2]] == [str(e) for e, _ in wanted]
    assert all(r.device_name == here for r in written)
    assert "seeds: 2 candidates of the seeds measured first, on this device" in str(result)


def test_a_seeded_log_replays_with_its_seeds_first(tmp_path):
    log = tmp_path / "seeded.jsonl"
    first = search(ASUM, *TYPES, budget=5, workers=0, repeat=2, seeds=H100_LOG, log=log)
    again = search(ASUM, *TYPES, budget=5, replay_log=log)
    assert [r.expression for r in again.log] == [r.expression for r in first.log]
    assert again.seeded == first.seeded == 1


def test_a_result_and_a_derivation_seed_a_search(tmp_path):
    derivation = Derivation(ASUM, *TYPES)
    derivation.apply("map→mapGlobal", "1", dim=0)
    other = search(ASUM, *TYPES, budget=3, workers=0, repeat=2, strategy="random")
    result = search(ASUM, *TYPES, budget=8, workers=0, repeat=2, strategy="random",
                    seeds=[derivation, other])
    assert result.seeded == 2
    seeds = seeds_of(ASUM, _types(), [derivation, other], 8)
    assert [r.expression for r in result.log[:2]] == [str(e) for e, _ in seeds.candidates]
    # the derivation's seed is completed by the default lowering into a kernel
    assert "mapGlobal" in result.log[0].expression


def test_seeds_that_no_longer_apply_are_left_out_and_said_so():
    elsewhere = {"expression": "x", "correct": True, "kernel_ms": 1.0, "status": "ok",
                "steps": [{"rule": "map→mapGlobal", "path": "0.1.1", "params": {"dim": "0"}}]}
    seeds = seeds_of(ASUM, _types(), [elsewhere], 8)  # a path asum does not have
    assert seeds.candidates == [] and seeds.left_out == 1


def test_what_cannot_seed_is_refused_with_the_argument_named():
    with pytest.raises(WorkbenchError, match="seeds = 42"):
        seeds_of(ASUM, _types(), 42, 8)


def _types():
    from workbench.notation import parse_type

    return tuple(parse_type(t) for t in TYPES)


def test_the_command_line_seeds_a_search_with_another_devices_log(capsys):
    import json

    from workbench.cli import main

    root = Path(__file__).parent.parent
    argv = ["search", f"@{root}/workbench/programs/blas.lift:asum", "--size", "N=65536",
            "--budget", "4", "--workers", "0", "--repeat", "2", "--seeds", str(H100_LOG),
            "--json"]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["seeded"] == 1 and doc["evaluated"] == 4
    assert doc["device"]["name"] != "NVIDIA H100 80GB HBM3"

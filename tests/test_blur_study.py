"""The blur study (benchmarks/blur_study.py): its NumPy reference is the blur's meaning, its
derived kernels are the mappings it names, and at a small size every kernel it times (copies,
derived and hand-written) runs correctly on PoCL and is in its table and its JSON."""

import json

import numpy as np
import pytest

from benchmarks import blur_study as study
from workbench.semantics import evaluate, prepare_inputs


def test_the_reference_is_the_programs_meaning():
    image, weights = study.inputs(12, seed=3)
    got = np.asarray(evaluate(study.program(), image, weights), dtype=np.float32)
    assert np.allclose(got, study.reference(image, weights), rtol=1e-5, atol=1e-6)


def test_the_derived_kernels_are_the_mappings_named():
    image, weights = study.inputs(64)
    types = tuple(prepare_inputs(study.program(), [image, weights])[1])
    exprs = study.derived(types, ((32, 4), (128, 2)))
    assert "mapGlobal 1 (mapGlobal" in str(exprs["derived: grid, a point a work-item"])
    groups = str(exprs["derived: groups 32x4, 4 rows a work-item"])
    assert "tile 4 32" in groups and "split 4" in groups and "mapSeqUnroll" in groups
    assert "toConstant ws" in str(
        exprs["derived: groups 32x4, a point a work-item, unrolled, constant weights"])
    # 128 columns a group do not divide 64: no such kernel
    assert not any("128x2" in label for label in exprs)


def test_a_wrong_kernel_is_reported_not_timed():
    image, weights = study.inputs(16)
    wrong = study.Design("one output", study.ONE_OUTPUT.replace("w8 * AT", "w7 * AT"),
                         (16, 4))
    entries = {}
    timed = study.timers(image, weights, study.reference(image, weights), "1:0", 1, (), {},
                         entries, extra=[wrong])
    assert entries[wrong.label]["correct"] is False and wrong.label not in timed


@pytest.mark.slow  # some fifty kernels built on PoCL
def test_the_study_runs_small_on_pocl(tmp_path):
    out = tmp_path / "blur.json"
    doc = study.main(["--size", "64", "--device", "1:0", "--search", "0", "--rounds", "1",
                      "--repeat", "2", "--shapes", "32x4", "--json", str(out)])
    entries = json.loads(out.read_text())["entries"]
    assert entries == json.loads(json.dumps(doc["entries"]))
    kinds = {e["kind"] for e in entries.values()}
    assert kinds == {"copy", "derived", "hand-written"}
    assert all(e.get("correct") and e["ms"] > 0 for e in entries.values()), \
        [e for e in entries.values() if not e.get("correct")]
    assert doc["copy_ms"] == min(e["ms"] for e in entries.values() if e["kind"] == "copy")
    table = (tmp_path / "blur.md").read_text()
    assert all(label in table for label in entries)


@pytest.mark.slow  # a search of three candidates on PoCL
def test_the_studys_search_is_a_fresh_default_search(tmp_path):
    import os

    from workbench.search import calibration, read_log

    before = os.environ.get(calibration.ENV)
    image, weights = study.inputs(32)
    log = tmp_path / "search.jsonl"
    best, found = study.searched(image, weights, "1:0", 3, 120.0, str(log))
    assert os.environ.get(calibration.ENV) == before  # the calibration folder given back
    assert best is not None and found["evaluated"] == 3 and found["best"] == str(best)
    assert read_log(str(log)).headers[0]["strategy"] == "guided"


def test_the_unconditional_pad_loads_are_unconditional_and_compute_the_blur():
    """The code generator patched for the study reads a pad's array at a clamped index and
    chooses the pad's value after the load; the patch is undone after, and the kernel
    computes the blur (on the default device)."""
    from workbench.codegen.program import opencl
    from workbench.run import run

    image, weights = study.inputs(32)
    types = tuple(prepare_inputs(study.program(), [image, weights])[1])
    exprs = study.derived(types, ((16, 4),))
    found = study.unconditional(exprs, types)
    label = "derived: groups 16x4, 4 rows a work-item, unconditional pad loads"
    expr, program = found[label]
    assert "select(select(in0[clamp(" in program.source
    assert "select(" not in opencl(expr, *types, complete=True).source  # patch undone
    r = run(expr, image, weights, repeat=1, warmup=0,
            expected=study.reference(image, weights), program=program)
    assert r.correct, r

"""The cost model's calibration per device (``workbench.search.calibration``): measured at
the first guided search on a device, kept in a cache folder, read by the next search and
fitted again to what each search measured; another device or driver lends only a prior."""

from __future__ import annotations

import json

import pytest

from workbench.cli import main
from workbench.search import calibration, cost, read_log, search
from workbench.search.calibration import Calibration

ASUM = "reduce (+) 0 ∘ map abs"
DOT = "λxs ys. (reduce (+) 0 ∘ map (*)) (zip xs ys)"
N = 2 ** 16


def _searched(folder, text: str, types: list[str], log, progress=None):
    from workbench import parse

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(calibration.ENV, str(folder))
        return search(parse(text), *types, budget=6, workers=1, repeat=3, log=log,
                      progress=progress)


@pytest.fixture(scope="module")
def two_searches(tmp_path_factory):
    """A fresh cache folder; a guided search of asum on the default device, then one of
    dot; the calibration as each left it, and for each progress call of the first search
    whether a calibration was kept by then."""
    root = tmp_path_factory.mktemp("calibration")
    folder = root / "calibrations"
    kept_at_progress = []
    first = _searched(folder, ASUM, [f"[float]_{N}"], root / "asum.jsonl",
                      lambda record: kept_at_progress.append(bool(calibration.stored(folder))))
    [after_first] = calibration.stored(folder)
    second = _searched(folder, DOT, [f"[float]_{N}"] * 2, root / "dot.jsonl")
    [after_second] = calibration.stored(folder)
    return {"folder": folder, "root": root, "first": first, "second": second,
            "after_first": after_first, "after_second": after_second,
            "kept_at_progress": kept_at_progress}


def test_the_first_candidates_are_shown_before_a_fresh_device_is_calibrated(two_searches):
    """On a device with no calibration the first candidates (the default completion and the
    CPU's first options, chosen without the model) are measured and shown before the
    calibration is measured; the log's first header has none, the header written again
    after them has the model the rest of the search ranked with."""
    kept = two_searches["kept_at_progress"]
    assert kept[0] is False and kept[-1] is True  # measured during the search, after
    contents = read_log(two_searches["root"] / "asum.jsonl")
    assert [("calibration" in h) for h in contents.headers] == [False, True]
    before = contents.sections.count(0)
    assert 1 <= before == kept.count(False)
    assert contents.headers[1]["calibration"]["fitted_on"] == \
        two_searches["after_first"].probes


def test_the_first_search_on_a_device_calibrates_it_and_the_next_reads_it(two_searches):
    folder, root = two_searches["folder"], two_searches["root"]
    after_first, after_second = two_searches["after_first"], two_searches["after_second"]
    identity = two_searches["first"].device
    # the first search measured the ceilings and the probe kernels, then added its own
    assert calibration.load(identity, folder) is not None
    assert after_first.ceilings["gb_per_s"] > 0 and after_first.probes >= 4
    assert after_first.searches == 1 and len(after_first.rows) > after_first.probes
    # the second search started from the calibration the first left (its log's header
    # keeps it), measured nothing first and added its candidates
    started = read_log(root / "dot.jsonl").headers[-1]["calibration"]
    assert started["weights"] == pytest.approx(after_first.model().weights)
    assert started["source"].startswith("calibrated on this device")
    assert after_second.probes == after_first.probes and after_second.searches == 2
    assert len(after_second.rows) > len(after_first.rows)
    first_header = read_log(root / "asum.jsonl").headers[-1]
    assert first_header["calibration"]["fitted_on"] == after_first.probes


def test_the_calibration_predicts_a_new_programs_candidates_better_than_the_prior(
        two_searches):
    """Measured on the device: the model the dot search started from (fitted to the probes
    and the asum search) misses the dot candidates' times by a smaller factor than the
    shipped prior of the device does."""
    second = two_searches["second"]
    device = two_searches["after_first"].device
    rows = [(r["features"], r["kernel_ms"]) for r in second.log
            if r["correct"] and r["kernel_ms"] and r.get("features")]
    assert len(rows) >= 3
    started = cost.CostModel.from_json(
        read_log(two_searches["root"] / "dot.jsonl").headers[-1]["calibration"])
    shipped = cost.prior_for(device["name"], device["kind"], device["compute_units"])
    assert calibration.prediction_error(started, rows) < \
        calibration.prediction_error(shipped, rows)


def test_the_command_shows_and_forgets_a_devices_calibration(two_searches, capsys,
                                                             monkeypatch):
    monkeypatch.setenv(calibration.ENV, str(two_searches["folder"]))
    assert main(["calibrate", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert not doc["measured"] and doc["calibration"]["searches"] == 2
    assert main(["calibrate"]) == 0
    out = capsys.readouterr().out
    assert "probe kernels" in out and "weights (ms per unit)" in out
    assert main(["calibrate", "--reset"]) == 0
    assert "forgotten" in capsys.readouterr().out
    assert calibration.stored(two_searches["folder"]) == []
    monkeypatch.setenv(calibration.ENV, "off")
    assert main(["calibrate"]) == 1
    assert "WORKBENCH_CALIBRATIONS=off" in capsys.readouterr().err


def _stored(name: str, driver: str, weight: float) -> Calibration:
    device = {"name": name, "platform": "Some CL", "driver": driver, "kind": "cpu",
              "compute_units": 4}
    weights = dict.fromkeys(cost.FEATURES, weight)
    return Calibration(device, {}, weights, "a test's", {}, weights, updated="2026")


def test_a_calibration_is_used_only_for_its_device_and_driver(tmp_path):
    calibration.save(_stored("Some CPU", "1.0", 0.5), tmp_path)
    same = {"name": "Some CPU", "platform": "Some CL", "driver": "1.0", "kind": "cpu"}
    newer = same | {"driver": "2.0"}
    assert calibration.load(same, tmp_path).weights["work"] == 0.5
    assert calibration.load(newer, tmp_path) is None
    # another driver of the same device lends its weights as a prior, and says so
    weights, source = calibration.starting_prior(newer, None, tmp_path)
    assert weights["work"] == 0.5 and source == "the same device under driver 1.0"
    # a device nobody calibrated starts from its kind's prior, scaled to its bandwidth
    other = {"name": "Another CPU", "platform": "Some CL", "driver": "1.0", "kind": "cpu"}
    kind = cost.prior_for(kind="cpu").weights
    weights, source = calibration.starting_prior(other, 20.0, tmp_path)
    assert weights["streamed"] == pytest.approx(kind["streamed"] * 40.0 / 20.0)
    assert weights["work"] == kind["work"] and "scaled to 20 GB/s" in source
    # a device the shipped calibration names starts from it
    weights, source = calibration.starting_prior(
        {"name": "NVIDIA H100 80GB HBM3", "driver": "1", "kind": "gpu"}, 3000.0, tmp_path)
    assert source.startswith("shipped") and weights == cost.prior_for(
        "NVIDIA H100 80GB HBM3", "gpu").weights
    assert calibration.reset(same, tmp_path) and calibration.load(same, tmp_path) is None


def test_a_calibration_keeps_its_latest_rows_and_fits_them(tmp_path):
    start = _stored("Some CPU", "1.0", 0.01)
    row = [0.0] * len(cost.FEATURES)
    streamed = cost.FEATURES.index("streamed")
    rows = {}
    for i in range(calibration.ROWS_KEPT + 5):
        features = list(row)
        features[streamed] = 1.0 + i % 7  # MB streamed; 40 GB/s: 0.025 ms per MB
        rows[f"k{i}"] = (features, 0.025 * features[streamed])
    fitted = start.refitted(rows)
    assert len(fitted.rows) == calibration.ROWS_KEPT and "k0" not in fitted.rows
    # the thousand rows move the weight from its prior (0.01) most of the way to theirs
    assert 0.02 < fitted.weights["streamed"] < 0.0255
    again = Calibration.from_json(json.loads(json.dumps(fitted.as_json())))
    assert again == fitted


def test_an_unreadable_calibration_is_none_and_is_replaced(tmp_path):
    same = {"name": "Some CPU", "platform": "Some CL", "driver": "1.0", "kind": "cpu"}
    calibration.path_of(same, tmp_path).write_text("{not json")
    assert calibration.load(same, tmp_path) is None
    calibration.save(_stored("Some CPU", "1.0", 0.5), tmp_path)
    assert calibration.load(same, tmp_path).weights["work"] == 0.5


def test_off_keeps_nothing_and_the_search_starts_from_the_shipped_prior(monkeypatch,
                                                                       tmp_path):
    monkeypatch.setenv(calibration.ENV, "off")
    assert calibration.folder() is None
    assert calibration.model_for_search(None, {"name": "x", "platform": "y"}) is None
    monkeypatch.setenv(calibration.ENV, str(tmp_path / "here"))
    assert calibration.folder() == tmp_path / "here"


def test_a_search_started_from_a_calibration_replays_whatever_the_cache_holds(two_searches,
                                                                             monkeypatch):
    """The log's header keeps the model the search started from: a replay takes the same
    candidates with the calibrations off (or changed since)."""
    from workbench import parse

    monkeypatch.setenv(calibration.ENV, "off")
    # the dot search started from the asum search's calibration; the asum search measured
    # it after its first candidates (its log's last header keeps it)
    for text, types, name, which in ((DOT, [f"[float]_{N}"] * 2, "dot", "second"),
                                     (ASUM, [f"[float]_{N}"], "asum", "first")):
        recorded = two_searches["root"] / f"{name}.jsonl"
        replayed = search(parse(text), *types, budget=6, replay_log=recorded)
        assert not [r for r in replayed.log if r["status"] == "not in log"]
        assert [r["key"] for r in replayed.log] == [r["key"] for r in two_searches[which].log]

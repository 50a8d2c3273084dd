"""Search logs say where their times were taken and of what: a header per search, keys that
name the device and the input types; a log of another device or other inputs is refused or
measured again; a resumed search reports the best of everything its log holds; archived logs
of earlier strategy versions are refused with the reason; damaged logs read or are refused
with the line."""

import gzip
import json
import warnings
from pathlib import Path

import pytest

from workbench.programs import library
from workbench.search import LogError, read, search
from workbench.search.log import VERSION, codegen_version, read_log

ROOT = Path(__file__).parent.parent
DATA = Path(__file__).parent / "data"
ASUM = library("blas")["asum"]


def _search(log, types="[float]_1024", budget=3, **kw):
    return search(ASUM, types, strategy="random", budget=budget, workers=0, repeat=2,
                  log=log, **kw)


def test_a_log_starts_with_a_header_and_keys_name_the_device_and_the_inputs(tmp_path):
    log = tmp_path / "log.jsonl"
    result = _search(log)
    contents = read_log(log)
    [header] = contents.headers
    assert header["version"] == VERSION
    assert header["device"]["name"] == result.device["name"] and header["device"]["driver"]
    assert header["types"] == ["[float]_1024"] and header["program"] == str(ASUM)
    assert header["strategy"] == "random" and header["seed"] == 0 and header["workbench"]
    for r in contents.records:
        assert "[float]_1024" in r["key"] and result.device["name"] in r["key"]
    _search(log, budget=4)  # resumed: same search, no second header
    assert len(read_log(log).headers) == 1


def test_a_log_is_never_taken_for_other_inputs(tmp_path):
    log = tmp_path / "log.jsonl"
    _search(log, "[float]_1024", budget=2)
    with pytest.raises(LogError, match=r"its times are for inputs \[float\]_1024; this "
                                       r"search's are \[float\]_2048.*--remeasure"):
        _search(log, "[float]_2048", budget=2)
    assert len(read(log)) == 2  # nothing written


def test_a_log_of_other_inputs_is_measured_again_when_asked(tmp_path):
    log = tmp_path / "log.jsonl"
    first = _search(log, "[float]_1024", budget=2)
    again = _search(log, "[float]_2048", budget=3, remeasure=True)
    assert again.from_log == 0 and again.remeasured == 2
    # the same derivations, applied again at the new size (their default completions may
    # choose other splits there)
    def rules(records):
        return sorted(tuple(s["rule"] for s in r["steps"]) for r in records)
    assert rules(again.log[:2]) == rules(first.log)
    assert all("[float]_2048" in r["key"] for r in again.log)
    contents = read_log(log)
    assert [h["types"] for h in contents.headers] == [["[float]_1024"], ["[float]_2048"]]
    # the log now answers for both inputs: each resumes from its own records
    assert _search(log, "[float]_2048", budget=3).from_log == 3


def test_a_log_edited_to_say_another_device_is_refused(tmp_path):
    log = tmp_path / "log.jsonl"
    _search(log, budget=2)
    lines = log.read_text().splitlines()
    header = json.loads(lines[0])
    header["device"] = {"name": "another machine's GPU", "platform": "elsewhere",
                        "driver": "0", "kind": "gpu"}
    log.write_text("\n".join([json.dumps(header)] + lines[1:]) + "\n")
    with pytest.raises(LogError, match="taken on another machine's GPU"):
        _search(log, budget=3)


def test_a_log_of_the_same_device_under_another_driver_is_refused(tmp_path):
    """A driver compiles the same kernel into other code: its times are another device's."""
    log = tmp_path / "log.jsonl"
    _search(log, budget=2)
    lines = log.read_text().splitlines()
    header = json.loads(lines[0])
    header["device"] = {**header["device"], "driver": header["device"]["driver"] + "-older"}
    log.write_text("\n".join([json.dumps(header)] + lines[1:]) + "\n")
    with pytest.raises(LogError, match="-older"):
        _search(log, budget=3)
    assert _search(log, budget=3, remeasure=True).remeasured == 2


def _as_written_by(log, header: dict, records: list[dict]) -> None:
    log.write_text("".join(json.dumps(v) + "\n" for v in [header] + records))


def test_a_log_of_another_code_generator_keeps_the_records_whose_source_is_unchanged(
        tmp_path):
    """A header names the code generator that made its kernels (a hash of its sources) and
    each record the hash of its kernel's source: a log resumed by another code generator
    keeps the records whose kernel it still generates, source for source, whatever its
    version; a log that names no code generator (older logs) is taken as this one's."""
    log = tmp_path / "log.jsonl"
    first = _search(log, budget=2)
    header, *records = [json.loads(line) for line in log.read_text().splitlines()]
    assert header["codegen"] == codegen_version()
    assert all(len(r["source_sha256"]) == 64 for r in records)
    assert _search(log, budget=2).from_log == 2  # the same code generator: resumed
    _as_written_by(log, {**header, "codegen": "an older one"}, records)
    again = _search(log, budget=2)
    assert again.from_log == 2  # the same sources: kept, not measured again
    assert read_log(log).headers[-1]["codegen"] == codegen_version()
    _as_written_by(log, {k: v for k, v in header.items() if k != "codegen"}, records)
    assert _search(log, budget=2).from_log == 2
    assert {r["key"] for r in first.log} == {r["key"] for r in records}


def test_a_record_whose_kernel_is_now_another_source_is_measured_again(tmp_path):
    """The same candidate under another code generator that now generates another source
    for it: its old time is never reported, the candidate is measured again (and its new
    record carries the source measured); its neighbour of unchanged source is kept."""
    log = tmp_path / "log.jsonl"
    _search(log, budget=2)
    header, changed, kept = [json.loads(line) for line in log.read_text().splitlines()]
    old = {**changed, "source_sha256": "0" * 64, "kernel_ms": 1e-9, "kernel_ms_min": 1e-9,
           "kernel_ms_max": 1e-9}
    _as_written_by(log, {**header, "codegen": "an older one"}, [old, kept])
    again = _search(log, budget=2)
    assert again.from_log == 1 and again.evaluated == 2
    [measured] = [r for r in again.log if r.key == changed["key"]]
    assert measured.source_sha256 == changed["source_sha256"] and measured.kernel_ms > 1e-9
    assert again.best_record.kernel_ms > 1e-9  # the old time is not the best


def test_records_without_a_source_hash_under_another_code_generator_are_measured_again(
        tmp_path):
    """Records written before records carried their source's hash: under another code
    generator, as the header alone says, measured again."""
    log = tmp_path / "log.jsonl"
    first = _search(log, budget=2)
    header, *records = [json.loads(line) for line in log.read_text().splitlines()]
    bare = [{k: v for k, v in r.items() if k != "source_sha256"} for r in records]
    _as_written_by(log, {**header, "codegen": "an older one"}, bare)
    again = _search(log, budget=2)
    assert again.from_log == 0 and again.evaluated == 2
    assert {r["key"] for r in again.log} == {r["key"] for r in first.log}
    _as_written_by(log, {**header, "codegen": codegen_version()}, bare)
    assert _search(log, budget=2).from_log == 2


def test_a_source_hash_that_is_not_text_is_refused_naming_its_line(tmp_path):
    log = tmp_path / "log.jsonl"
    _search(log, budget=2)
    header, first, second = [json.loads(line) for line in log.read_text().splitlines()]
    _as_written_by(log, header, [{**first, "source_sha256": 12}, second])
    with pytest.raises(LogError, match=r"line 2 is not a search record.*source_sha256"):
        _search(log, budget=2)


def test_a_log_without_a_header_is_refused_unless_measured_again(tmp_path):
    log = tmp_path / "log.jsonl"
    _search(log, budget=2)
    lines = log.read_text().splitlines()
    log.write_text("\n".join(lines[1:]) + "\n")  # as written before logs had headers
    with pytest.raises(LogError, match="it has no header"):
        _search(log, budget=3)
    assert _search(log, budget=3, remeasure=True).remeasured == 2


def test_a_resumed_search_reports_the_best_its_log_holds(tmp_path):
    log = tmp_path / "log.jsonl"
    first = _search(log, "[float]_65536", budget=4, seed=1)
    logged = min(r["kernel_ms"] for r in read(log) if r["correct"])
    # the resumed search meets none of the log's candidates (another seed) and finds
    # only slower ones: its best is still the log's best, measured again
    again = _search(log, "[float]_65536", budget=8, seed=7)
    assert again.from_log == 4 and again.evaluated == 8
    assert len(read(log)) == 8  # the whole log counted against the budget
    best = min((r for r in again.log if r["correct"]), key=lambda r: r["kernel_ms"])
    assert again.best_record is best and again.timing == "re-timed"
    assert best["kernel_ms"] <= logged
    assert {r["key"] for r in first.log} <= {r["key"] for r in again.log}


def test_records_with_fields_of_the_wrong_types_are_refused_with_their_line(tmp_path):
    log = tmp_path / "log.jsonl"
    _search(log, budget=2)
    lines = log.read_text().splitlines()
    bad = json.loads(lines[1])
    bad["kernel_ms"] = "fast"
    log.write_text("\n".join([lines[0], json.dumps(bad), lines[2]]) + "\n")
    with pytest.raises(LogError, match='line 2 is not a search record .*"kernel_ms" is str') \
            as caught:
        _search(log, budget=3)
    assert caught.value.line == 2
    bad = json.loads(lines[1])
    bad["steps"] = [{"rule": 3}]
    log.write_text("\n".join([lines[0], json.dumps(bad), lines[2]]) + "\n")
    with pytest.raises(LogError, match="step 1 is not a rule"):
        _search(log, budget=3)


@pytest.mark.parametrize("change, why", [
    ({"kernel_ms": -0.5}, '"kernel_ms" is -0.5, not a time'),
    ({"kernel_ms": float("nan")}, '"kernel_ms" is NaN, not a time'),
    ({"kernel_ms_min": float("inf")}, '"kernel_ms_min" is Infinity, not a time'),
    ({"kernel_ms": 5.0, "kernel_ms_min": 1.0, "kernel_ms_max": 2.0}, "outside its range"),
    ({"correct": True, "kernel_ms": None}, "correct but has no"),
])
def test_a_record_that_is_no_measurement_is_refused_with_its_line(tmp_path, change, why):
    """A negative, infinite or out-of-range time is never adopted as the best."""
    log = tmp_path / "log.jsonl"
    _search(log, budget=2)
    lines = log.read_text().splitlines()
    bad = {**json.loads(lines[1]), "correct": True, "status": "ok", **change}
    log.write_text("\n".join([lines[0], json.dumps(bad), lines[2]]) + "\n")
    with pytest.raises(LogError, match=f"line 2 is not a search record .*{why}") as caught:
        _search(log, budget=3)
    assert caught.value.line == 2


@pytest.mark.parametrize("text", ["just a note", "just a note\n", "1\n2"])
def test_a_text_file_of_other_lines_is_no_log_and_is_left_untouched(tmp_path, text):
    log = tmp_path / "notes.txt"
    log.write_text(text)
    with pytest.raises(LogError, match="is not a search record"):
        _search(log, budget=2)
    assert log.read_text() == text


def test_a_log_cut_inside_a_character_resumes(tmp_path):
    log = tmp_path / "log.jsonl"
    _search(log, budget=2)
    with open(log, "ab") as f:
        f.write('{"key": "λ'.encode()[:-1])  # killed between the two bytes of λ
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = _search(log, budget=3)
    assert any("cut short" in str(w.message) for w in caught)
    assert again.from_log == 2 and len(read(log)) == 3


def test_a_log_at_dev_null_keeps_nothing_and_fails_nothing():
    result = _search("/dev/null", budget=2)
    assert result.evaluated == 2 and read("/dev/null") == []


def test_an_archived_log_of_an_earlier_strategy_version_is_refused_with_the_reason():
    archived = ROOT / "benchmarks/results/logs/asum_gpu_paper_mcts.jsonl.gz"
    header = read_log(archived).headers[0]
    assert header["device"]["name"] == "NVIDIA H100 80GB HBM3" and header["replays"]
    with pytest.raises(LogError, match="does not replay: written by an earlier version of "
                                       "the mcts strategy"):
        search(ASUM, *header["types"], budget=10, replay_log=archived)


def test_an_archived_log_of_todays_strategy_replays_with_its_strategy_and_seed():
    archived = ROOT / "benchmarks/results/logs/asum_134217728_gpu_large_guided.jsonl.gz"
    header = read_log(archived).headers[0]
    assert "replays" not in header
    result = search(ASUM, *header["types"], budget=12, replay_log=archived)
    assert result.strategy == "guided"
    assert not [r for r in result.log if r["status"] == "not in log"]
    with pytest.raises(LogError, match="replay it with strategy='guided'"):
        search(ASUM, *header["types"], strategy="mcts", budget=12, replay_log=archived)


def test_every_archived_benchmark_log_has_a_header():
    for path in sorted((ROOT / "benchmarks/results/logs").glob("*.jsonl.gz")):
        text = gzip.decompress(path.read_bytes()).decode()
        first = json.loads(text.split("\n", 1)[0])
        assert first.get("format") == "rewrite-workbench search log", path.name
        assert first["device"]["name"] and first["types"], path.name


# --- records, typed ----------------------------------------------------------------------------

def _archived_lines():
    for path in sorted((ROOT / "benchmarks/results/logs").glob("*.jsonl.gz")) + \
            sorted(DATA.glob("*.jsonl*")):
        text = gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz" \
            else path.read_text(encoding="utf-8")
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                yield path.name, number, json.loads(line)


def test_every_archived_record_reads_as_a_record_and_back_as_it_was():
    from workbench.search.log import FORMAT, Record

    count = 0
    for name, number, value in _archived_lines():
        if value.get("format") == FORMAT and "key" not in value:
            continue  # a header
        record = Record.from_json(value)
        back = record.as_json()
        assert back == value and list(back) == list(value), f"{name}, line {number}"
        assert record.key == value["key"] and record.kernel_ms == value.get("kernel_ms")
        count += 1
    assert count > 1000


def test_the_record_type_names_every_field_the_log_checks():
    from dataclasses import fields

    from workbench.search.log import RECORD_FIELDS, Record

    assert {f.name for f in fields(Record)} - {"other", "fields"} == set(RECORD_FIELDS)


def test_a_record_with_a_field_of_the_wrong_type_is_not_appended(tmp_path):
    from workbench.search.log import Log, Record, RecordError

    log = Log(tmp_path / "log.jsonl")
    log.append({"key": "k", "expression": "id", "kernel_ms": 1.5, "max_error": 0.0})
    with pytest.raises(LogError, match=r'not a search record \(its "kernel_ms" is str'):
        log.append({"key": "k2", "expression": "id", "kernel_ms": "fast"})
    assert [r["key"] for r in read(tmp_path / "log.jsonl")] == ["k"]
    with pytest.raises(RecordError, match='no "key"'):
        Record.from_json({"expression": "id"})
    record = Record.from_json(read(tmp_path / "log.jsonl")[0])
    assert record.other == {"max_error": 0.0} and record.status is None
    assert record.as_json() == {"key": "k", "expression": "id", "kernel_ms": 1.5,
                                "max_error": 0.0}


def test_a_search_result_gives_its_records_typed(tmp_path):
    result = _search(tmp_path / "log.jsonl")
    assert [r.as_json() for r in result.records] == result.log
    assert all(r.strategy == "random" and r.finished and r.steps is not None
               for r in result.records)
    assert {r.measured for r in result.records} <= {True, False}


def test_a_record_reads_as_its_log_line_does():
    """The search reads a record's fields as attributes; readers of log lines (plots,
    notebooks, ``record["kernel_ms"]``) read it as the line's object."""
    from workbench.search.log import Record

    line = {"key": "k", "expression": "id", "correct": True, "kernel_ms": 1.5,
            "details": {"program": 2}, "max_error": 0.0}
    record = Record.from_json(line)
    assert record.kernel_ms == record["kernel_ms"] == 1.5 and record.details == {"program": 2}
    assert record.get("status") is None and record.get("max_error") == 0.0
    assert "status" not in record and "max_error" in record
    with pytest.raises(KeyError):
        record["status"]
    assert record == line and dict(record) == line and list(record) == list(line)
    assert record.measured and Record.of(line) == record and Record.of(record) is record
    assert Record("k2", correct=False).failure == "failed"

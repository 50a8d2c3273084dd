"""The benchmark harness runs (its numbers are read from its table and JSON, not asserted)."""

import json


def test_tool_benchmark_runs(tmp_path, monkeypatch):
    from benchmarks import tool

    monkeypatch.setattr(tool, "RESULTS", tmp_path)
    doc = tool.main(["--repeat", "1"])
    assert json.loads((tmp_path / "tool.json").read_text())["measurements"] == \
        json.loads(json.dumps(doc["measurements"]))

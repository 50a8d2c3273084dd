"""Headers for the archived search logs that were written before logs had them:

    python -m benchmarks.logs            # upgrade every log the results name, then check
    python -m benchmarks.logs --check    # only say which logs replay

A header says where a log's times were taken and of what; the results files hold those
facts (the device, its platform and driver, the program, its sizes, the strategy and its
options), so each log gets its header from the results entry that names it. Each log is then
replayed from the start with today's strategy (``REPLAYED`` candidates): one that meets a
candidate the log does not hold was written by an earlier version of its strategy, and its
header says so (``replays``), so that a replay refuses it with that reason instead of
answering "not in log" for most of its candidates.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from workbench.notation.program import user_functions_text
from workbench.programs import library
from workbench.search import VERSIONS, search
from workbench.search.log import FORMAT, VERSION, read, read_log, upgrade

from .search import RESULTS, ROOT, entry_program, program, types_of

REPLAYED = 24  # the candidates a replay from the start is checked on


def _gemm_entries(doc: dict):
    from .gemm import OPTIONS

    kind = "gpu" if "NVIDIA" in doc["device"] or doc.get("kind") == "gpu" else "cpu"
    mm = library("mm")["mm"]
    for n, entry in doc["sizes"].items():
        if entry.get("log"):
            yield entry["log"], mm, [f"[[float]_{n}]_{n}"] * 2, "cases", \
                doc.get("options") or OPTIONS[kind]


def _search_entries(doc: dict):
    for key, p in doc["programs"].items():
        if p.get("log"):
            name = entry_program(key, p)
            yield p["log"], program(name), types_of(name, p["sizes"]), doc["strategy"], {}


def entries():
    """(log path, program, input types, strategy, options, results document) of every log
    the results files name."""
    for path in sorted(RESULTS.glob("*.json")):
        doc = json.loads(path.read_text())
        if path.name.startswith("gemm_"):
            found = _gemm_entries(doc)
        elif path.name.startswith("search_"):
            found = _search_entries(doc)
        else:
            continue
        for log, prog, types, strategy, options in found:
            yield ROOT / log, prog, types, strategy, options, doc


def header_of(records: list[dict], prog, types, strategy, options, doc) -> dict:
    finished = [r["finished"] for r in records if isinstance(r.get("finished"), int | float)]
    created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(min(finished))) \
        if finished else ""
    return {"format": FORMAT, "version": VERSION,
            "device": {"name": doc["device"], "platform": doc.get("platform"),
                       "driver": doc.get("driver"),
                       "kind": "gpu" if "NVIDIA" in doc["device"] else "cpu"},
            "program": str(prog), "definitions": user_functions_text(prog),
            "types": list(types), "sizes": {}, "strategy": strategy,
            "strategy_version": VERSIONS[strategy], "seed": 0, "options": options,
            "repeat": 10, "workbench": "0.1.0 (written before logs had headers)",
            "created": created}


def missing_in_replay(log: Path, prog, types, strategy, options) -> tuple[int, int]:
    """Candidates a replay from the start with today's strategy meets that the log does not
    hold, of how many."""
    records = read(log)
    budget = min(REPLAYED, len({r["key"] for r in records}))
    result = search(prog, *types, strategy=strategy, budget=budget, replay_log=records,
                    options=options)
    return sum(1 for r in result.log if r.get("status") == "not in log"), len(result.log)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="only replay each log and say whether it replays")
    args = parser.parse_args(argv)
    for log, prog, types, strategy, options, doc in entries():
        contents = read_log(log)
        name = log.relative_to(ROOT)
        if contents.headers:
            print(f"{name}: has a header ({contents.headers[-1].get('workbench')})")
            continue
        missing, met = missing_in_replay(log, prog, types, strategy, options)
        print(f"{name}: {missing} of {met} candidates of a replay not in it")
        if args.check:
            continue
        header = header_of(contents.records, prog, types, strategy, options, doc)
        if missing:
            header["strategy_version"] = VERSIONS[strategy] - 1
            header["replays"] = (
                f"written by an earlier version of the {strategy} strategy: replayed from "
                f"the start with today's, {missing} of its first {met} candidates are not in "
                f"it")
        upgrade(log, header)


if __name__ == "__main__":
    main()

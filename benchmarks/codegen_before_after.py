"""Recorded search winners timed as an earlier code generator printed them and as it prints them now

The same candidates (the expressions a PoCL study recorded, ``benchmarks.pocl_study
--search``), the same launches and buffers, two kernel texts: the source the study recorded
(``before``) and the one ``codegen`` generates now (``after``), timed one after the other in
each round on the device the study ran on, each checked against NumPy's answer. What a
change of the printer alone (vector pointers for vloadN/vstoreN, a global map that each
work-item runs once printed as a block) does to each winner, with nothing else moved.

    python -m benchmarks.codegen_before_after \\
        --study benchmarks/results/pocl_study_search_v5_30_budget40.json \\
        --study benchmarks/results/pocl_study_search_v5_31_budget40.json --rounds 5

Writes benchmarks/results/codegen_before_after.json (and .md), or ``--out``.
"""

from __future__ import annotations

import argparse
import json
import statistics
from dataclasses import replace
from pathlib import Path

import numpy as np

from benchmarks import pocl_study

RESULTS = Path(__file__).parent / "results"


def recorded_winners(paths: list[str]) -> list[dict]:
    """Every winner of the studies: its device, program, expression and recorded source."""
    out = []
    for path in paths:
        doc = json.loads(Path(path).read_text())
        for dev in doc["devices"]:
            for name, entry in dev["programs"].items():
                found = entry.get("search") or {}
                if found.get("status") == "ok" and found.get("source"):
                    out.append({"device": dev["id"], "program": name, "sizes": doc["sizes"],
                                "expression": found["expression"], "before": found["source"],
                                "study": str(path)})
    return out


def programs_of(winner: dict) -> dict:
    """The winner's program as generated now and with the recorded source in its place
    (kernel names, buffers and launches are the generator's, which the change left alone)."""
    from workbench import parse
    from workbench.codegen.program import opencl
    from workbench.semantics import prepare_inputs

    expr = parse(winner["expression"])
    _, types = prepare_inputs(expr, pocl_study.search_inputs(winner["program"],
                                                             winner["sizes"]))
    now = opencl(expr, *types, complete=True, name=winner["program"])
    return {"expr": expr, "before": replace(now, source=winner["before"]), "after": now}


def time_one(winner: dict, program, expr, want: np.ndarray) -> float | str:
    from workbench.run import run

    result = run(expr, *pocl_study.search_inputs(winner["program"], winner["sizes"]),
                 device=winner["device"], repeat=winner["sizes"]["repeat"],
                 expected=want.astype(np.float32), program=program)
    if not result.correct:
        return f"{result.status}: {result.message.splitlines()[:1]}"
    return result.kernel_ms


def compare(winners: list[dict], rounds: int, log=print) -> list[dict]:
    rows = []
    for w in winners:
        programs = programs_of(w)
        want = pocl_study.expected(w["program"], pocl_study.inputs(w["program"], w["sizes"]))
        rows.append({**{k: w[k] for k in ("device", "program", "expression", "study")},
                     "changed": programs["before"].source != programs["after"].source,
                     "after_source": programs["after"].source,
                     "before_rounds_ms": [], "after_rounds_ms": [], "status": "ok",
                     "_programs": programs, "_want": want, "_winner": w})
    for r in range(rounds):
        for row in rows:
            for form in ("before", "after"):
                if row["status"] != "ok":
                    continue
                got = time_one(row["_winner"], row["_programs"][form], row["_programs"]["expr"],
                               row["_want"])
                if isinstance(got, str):
                    row["status"] = f"{form}: {got}"
                    log(f"  {row['device']} {row['program']} {form}: {got}")
                else:
                    row[f"{form}_rounds_ms"].append(got)
        log(f"round {r + 1} of {rounds} done")
    for row in rows:
        for key in ("_programs", "_want", "_winner"):
            row.pop(key)
        for form in ("before", "after"):
            samples = row[f"{form}_rounds_ms"]
            row[f"{form}_ms"] = statistics.median(samples) if samples else None
        row["speedup"] = row["before_ms"] / row["after_ms"] \
            if row["before_ms"] and row["after_ms"] else None
    return rows


def table(rows: list[dict], rounds: int) -> str:
    lines = ["# Recorded winners: the recorded kernel text against today's code generator", "",
             f"Each the median of {rounds} interleaved rounds' medians (OpenCL events). Written "
             "by `python -m benchmarks.codegen_before_after`.", "",
             "| device | program | before ms | after ms | before / after | text changed |",
             "|---|---|---|---|---|---|"]
    for row in rows:
        if row["speedup"] is None:
            lines.append(f"| {row['device']} | {row['program']} | {row['status']} | | | |")
            continue
        lines.append(f"| {row['device']} | {row['program']} | {row['before_ms']:.3f} | "
                     f"{row['after_ms']:.3f} | {row['speedup']:.2f} | "
                     f"{'yes' if row['changed'] else 'no'} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--study", action="append", required=True,
                        help="a pocl_study --search results file (repeatable)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--programs", nargs="*", default=list(pocl_study.PROGRAMS),
                        choices=pocl_study.PROGRAMS)
    parser.add_argument("--out", default=str(RESULTS / "codegen_before_after.json"))
    args = parser.parse_args(argv)
    winners = [w for w in recorded_winners(args.study) if w["program"] in args.programs]
    rows = compare(winners, args.rounds)
    out = Path(args.out)
    out.write_text(json.dumps({"rounds": args.rounds, "studies": args.study, "rows": rows},
                              indent=1) + "\n")
    out.with_suffix(".md").write_text(table(rows, args.rounds))
    print(table(rows, args.rounds))
    print(f"written to {out}")
    return rows


if __name__ == "__main__":
    main()

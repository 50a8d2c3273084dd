"""Efficiency curves (issue 46): equality saturation beside the guided, Monte-Carlo and random
searches, on ICFP's scal, asum, dot and gemv and one device: the best kernel time each found
so far, relative to the best any of them found, against the candidates it measured, one line
per strategy (``plots.strategies_curve``).

The searches' logs record their candidates in the order measured, so the curves are read
from logs: the egraph and guided searches' are those ``benchmarks.saturation`` writes (the
same names, ``saturation.log_of``); a strategy whose log is missing is searched here (budget
40, seed 0) and its log kept beside them. ``--fresh`` searches every strategy again.

    python -m benchmarks.efficiency                 # PoCL, small sizes: read, search the rest
    python -m benchmarks.efficiency --device gpu --sizes paper --fresh --deadline 400
    python -m benchmarks.efficiency --device gpu --sizes paper --fresh \
        --strategies egraph guided --time-limit 60 --out $OUT/efficiency

Writes benchmarks/results/efficiency_<kind>_<sizes>.json and .md (a table: each strategy's
best at 10, 20 and 40 candidates relative to the best of all, and the first candidate within
0.9x of it) and benchmarks/results/plots/efficiency_<kind>_<sizes>.png. With ``--out DIR``,
everything goes into DIR instead, in four files: the JSON, the table, the plot and
``logs.tar`` (the searches' logs, ``logs/*.jsonl.gz``, which a later run with ``--out DIR``
unpacks and reads as it reads benchmarks/results/logs).
"""

from __future__ import annotations

import argparse
import json
import shutil
import tarfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from benchmarks import saturation
from benchmarks.saturation import PROGRAMS, log_of, logged_search
from benchmarks.search import size_text, sizes_of
from workbench import plots
from workbench.device.opencl import find_device
from workbench.search import read

STRATEGIES = ("egraph", "guided", "mcts", "random")
MARKS = (10, 20, 40)  # candidates at which the table reads each curve
WITHIN = 0.9  # a strategy "reaches" the best of all once its best is within 0.9x of it


def logs_folder(args) -> Path | None:
    """Where the logs are kept: DIR/logs with ``--out DIR`` (None: benchmarks/results/logs)."""
    return None if args.out is None else args.out / "logs"


def runs_of(name: str, s: dict, args, tag: str, plan: Plan) -> dict[str, list[dict]]:
    """Each strategy's records in the order measured: from its log, or searched now (all
    searched with ``--fresh``)."""
    out = {}
    for strategy in args.strategies:
        log = log_of(tag, name, s, strategy, logs_folder(args))
        if args.fresh or not log.exists():
            limit = plan.next_limit()
            print(f"searching {name} {size_text(s)} with {strategy}"
                  + ("" if limit is None else f" (at most {limit:.0f} s)"), flush=True)
            began = time.time()
            logged_search(name, s, strategy, args.device, args.budget, None, tag, limit,
                          logs_folder(args))
            print(f"  {time.time() - began:.1f} s", flush=True)
        out[strategy] = [dict(r) for r in read(log)]
    return out


@dataclass
class Plan:
    """The time limit of each search still to run: ``--time-limit``, and within
    ``--deadline`` the time left shared evenly among the searches left."""

    searches: int
    time_limit: float | None
    deadline: float | None  # seconds for every search together
    began: float = field(default_factory=time.time)

    def next_limit(self) -> float | None:
        limits = [] if self.time_limit is None else [self.time_limit]
        if self.deadline is not None:
            left = self.deadline - (time.time() - self.began)
            limits.append(max(5.0, left / max(self.searches, 1)))
        self.searches -= 1
        return min(limits) if limits else None


def reading(curve: np.ndarray) -> dict:
    """One strategy's curve read at the marks, and the first candidate within ``WITHIN``
    of the best of all (None: never)."""
    at = {str(m): (None if len(curve) < m or np.isnan(curve[m - 1])
                   else round(float(curve[m - 1]), 3)) for m in MARKS}
    near = np.flatnonzero(curve <= 1 / WITHIN)
    return {"candidates": len(curve), "at": at,
            "within_0.9": int(near[0]) + 1 if len(near) else None}


def summary(name: str, s: dict, runs: dict[str, list[dict]], tag: str,
            out: Path | None = None) -> dict:
    """One program's curves and readings; its logs named relative to the repository (to
    ``out``, with ``--out``)."""
    curves = plots.relative_best_so_far(runs)
    best = {k: min((r["kernel_ms"] for r in v if r.get("correct")), default=None)
            for k, v in runs.items()}
    e, g = best.get("egraph"), best.get("guided")
    return {"program": name, "sizes": s,
            "best_ms": {k: v for k, v in best.items()},
            # the goal: at least 0.9 (the egraph strategy's best as fast as 0.9x the
            # guided search's)
            "egraph_vs_guided": round(g / e, 3) if e and g else None,
            "curves": {k: [None if np.isnan(x) else round(float(x), 4) for x in c]
                       for k, c in curves.items()},
            "readings": {k: reading(c) for k, c in curves.items()},
            "logs": {k: str(log_of(tag, name, s, k, None if out is None else out / "logs")
                            .relative_to(out or saturation.ROOT)) for k in runs}}


def table(doc: dict) -> str:
    marks = " | ".join(f"@{m}" for m in MARKS)
    lines = [f"# Efficiency curves on {doc['device']}", "",
             f"Budget {doc['budget']}, seed 0; best so far over the best any strategy found "
             f"(1.00: that best), and the first candidate within {WITHIN}x of it. Written "
             f"by `python -m benchmarks.efficiency`.", "",
             f"| program | strategy | best ms | {marks} | first within {WITHIN}x |",
             "|---|---|---|" + "---|" * len(MARKS) + "---|"]
    for p in doc["programs"]:
        for strategy, r in p["readings"].items():
            best = p["best_ms"][strategy]
            cells = " | ".join("-" if r["at"][str(m)] is None else f"{r['at'][str(m)]:.2f}"
                               for m in MARKS)
            lines.append(f"| {p['program']} {size_text(p['sizes'])} | {strategy} | "
                         f"{'-' if best is None else f'{best:.4g}'} | {cells} | "
                         f"{r['within_0.9'] or '-'} |")
    ratios = [f"{p['program']} {p['egraph_vs_guided']:.2f}x" for p in doc["programs"]
              if p["egraph_vs_guided"]]
    if ratios:
        lines += ["", "The guided search's best time over the egraph strategy's (the issue's "
                  "goal: at least 0.90x): " + ", ".join(ratios) + "."]
    return "\n".join(lines) + "\n"


def figure(doc: dict, runs: dict, path: Path | None = None):
    """The curves of every program, side by side."""
    fig = plots.figure((4.2 * len(runs), 3.6))
    axes = fig.subplots(1, len(runs), squeeze=False)[0]
    for ax, (key, by_strategy) in zip(axes, runs.items()):
        plots.strategies_curve(by_strategy, title=key, ax=ax)
    fig.suptitle(f"best so far relative to the best of all strategies, {doc['device']}")
    if path is not None:
        fig.savefig(path)
    return fig


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--sizes", default="small", choices=("small", "paper"))
    parser.add_argument("--budget", type=int, default=40)
    parser.add_argument("--programs", nargs="*", default=list(PROGRAMS))
    parser.add_argument("--strategies", nargs="*", default=list(STRATEGIES))
    parser.add_argument("--fresh", action="store_true", help="search every strategy again")
    parser.add_argument("--time-limit", type=float, default=None,
                        help="seconds each search may take (default: none)")
    parser.add_argument("--deadline", type=float, default=None,
                        help="seconds for every search together, shared evenly among the "
                             "searches left (default: none)")
    parser.add_argument("--out", type=Path, default=None, metavar="DIR",
                        help="write the results, the plot and logs.tar (the logs) into DIR "
                             "(default: benchmarks/results)")
    args = parser.parse_args(argv)
    info = find_device(args.device)[0]
    kind = "gpu" if info.kind == "gpu" else "cpu"
    tag = f"{kind}_{args.sizes}"
    doc = {"device": info.name, "budget": args.budget, "strategies": args.strategies,
           "time_limit": args.time_limit, "tag": tag, "programs": []}
    entries = [(name, s) for name in args.programs for s in sizes_of(args.sizes, kind, name)]
    if args.out is not None:
        unpacked(args.out)
    missing = sum(args.fresh or not log_of(tag, name, s, strategy, logs_folder(args)).exists()
                  for name, s in entries for strategy in args.strategies)
    plan = Plan(missing, args.time_limit, args.deadline)
    runs = {}
    for name, s in entries:
        by_strategy = runs_of(name, s, args, tag, plan)
        runs[f"{name} {size_text(s)}"] = by_strategy
        doc["programs"].append(summary(name, s, by_strategy, tag, args.out))
        written(doc, runs, tag, args.out)  # each program's row kept, should a later one fail
    if args.out is not None:
        shutil.rmtree(args.out / "logs")  # packed in logs.tar: four files come back
    print(table(doc))
    return doc


def unpacked(out: Path) -> None:
    """The logs of an earlier run into ``out`` (the logs.tar it left), to be read again."""
    if (out / "logs.tar").exists():
        with tarfile.open(out / "logs.tar") as tar:
            tar.extractall(out, filter="data")


def written(doc: dict, runs: dict, tag: str, out: Path | None) -> None:
    """The JSON, the table and the plot, in benchmarks/results (in ``out``, with the logs
    packed into ``out``/logs.tar)."""
    results = out or saturation.RESULTS
    plots_folder = results if out else results / "plots"
    plots_folder.mkdir(parents=True, exist_ok=True)
    (results / f"efficiency_{tag}.json").write_text(json.dumps(doc, indent=1) + "\n",
                                                     encoding="utf-8")
    (results / f"efficiency_{tag}.md").write_text(table(doc), encoding="utf-8")
    figure(doc, runs, plots_folder / f"efficiency_{tag}.png")
    if out is not None:
        with tarfile.open(out / "logs.tar", "w") as tar:
            for log in sorted((out / "logs").glob("*.jsonl.gz")):
                tar.add(log, arcname=f"logs/{log.name}")


if __name__ == "__main__":
    main()

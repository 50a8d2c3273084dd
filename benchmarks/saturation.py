"""Equality saturation beside the guided search (issue 46): for ICFP's scal, asum, dot and
gemv, the egraph strategy (unguided saturation to a limit, terms extracted and ranked by the
cost model, derived and measured) and the guided search at the same budget, one after the
other on the same device (one interleaved run); and matrix multiplication's blockings and
tilings reached by sketches (``rewriting.sketching``), with the e-graph's size, seconds and
peak memory.

    python -m benchmarks.saturation                         # PoCL, small sizes, budget 40
    python -m benchmarks.saturation --device gpu --sizes paper --seconds 60
    python -m benchmarks.saturation --programs --mm-unguided 600    # mm without sketches

Prints a table; writes benchmarks/results/saturation_<device>_<sizes>.json and one log per
search (benchmarks/results/logs/saturation_*), which replay anywhere.
"""

from __future__ import annotations

import argparse
import json
import resource
import time
import tracemalloc
from pathlib import Path

from benchmarks.search import program, size_text, sizes_of, types_of
from workbench.device.opencl import find_device
from workbench.notation.sketch import parse_sketch
from workbench.programs import library
from workbench.rewriting.egraph import EGraph
from workbench.rewriting.sketching import SketchFinder, sketch_guided
from workbench.search import search
from workbench.search.egraph import saturation_rules

RESULTS = Path(__file__).parent / "results"
PROGRAMS = ("scal", "asum", "dot", "gemv")

# One or two sketches for each of the CASES 2016 phase-1 programs of matrix multiplication
MM_SKETCHES = {
    "1d-blocking": ["contains(map join ∘ join ∘ map (λxs. transpose ?) ∘ split k)"],
    "2d-blocking": ["contains(map join ∘ map join ∘ join ∘ ? ∘ split k)"],
    "tiling": ["contains(map join ∘ untile ∘ ? ∘ split m)"],
    "innermost-tiling": ["contains(map join ∘ untile ∘ ? ∘ split m)",
                         "contains(reduceSeq ? (replicate k (replicate l ?)) "
                         "(zip (transpose (map (λrowA. split s rowA) ?)) ?))"],
}


def compare(name: str, s: dict, device: str | None, budget: int, options: dict, tag: str
            ) -> dict:
    """The egraph strategy and the guided search on one program, one after the other."""
    out = {"program": name, "sizes": s}
    for strategy in ("egraph", "guided"):
        log = RESULTS / "logs" / f"saturation_{tag}_{name}_{size_text(s)}_{strategy}.jsonl"
        log.parent.mkdir(parents=True, exist_ok=True)
        log.unlink(missing_ok=True)
        began = time.time()
        result = search(program(name), *types_of(name, s), strategy=strategy, budget=budget,
                        device=device, log=log, options=options if strategy == "egraph"
                        else None, seed=0)
        out[strategy] = {"best_ms": result.best_kernel_ms, "best": str(result.best),
                         "seconds": round(time.time() - began, 1), "log": str(log)}
        if strategy == "egraph":
            report = result.details.get("egraph", {})
            out[strategy] |= {k: report.get(k) for k in ("nodes", "classes", "saturated",
                                                          "kernels extracted", "not derived")}
            out[strategy]["growth_seconds"] = round(sum(r["seconds"] for r in
                                                        report.get("rounds", [])), 2)
    e, g = out["egraph"]["best_ms"], out["guided"]["best_ms"]
    out["egraph_vs_guided"] = g / e if e and g else None  # ≥ 0.9 is the goal
    return out


def sketches(size: int) -> list[dict]:
    """Each phase-1 program of matrix multiplication reached by its sketches."""
    mm = library("mm")["mm"]
    types = (f"[[float]_{size}]_{size}",) * 2
    out = []
    for goal, written in MM_SKETCHES.items():
        reached = sketch_guided(mm, types, written, saturation_rules(), seconds=60,
                                memory=True)
        out.append({"goal": goal, "sketches": len(written),
                    "reached": all(r.reached for r in reached) and len(reached) == len(written),
                    "rules": [s.rule for r in reached for s in r.steps],
                    "seconds": round(sum(r.seconds for r in reached), 2),
                    "peak_MiB": round(max(r.peak_bytes for r in reached) / 2 ** 20, 1),
                    "nodes": max(r.nodes for r in reached)})
    return out


def unguided(size: int, seconds: float, nodes: int) -> dict:
    """Matrix multiplication's e-graph grown without sketches for ``seconds`` (or ``nodes``
    e-nodes), and which of the phase-1 programs it then holds (each goal's last sketch)."""
    mm = library("mm")["mm"]
    types = (f"[[float]_{size}]_{size}",) * 2
    tracemalloc.start()
    began = time.time()
    graph = EGraph(mm, types, saturation_rules()).saturate(rounds=1000, node_limit=nodes,
                                                           seconds=seconds)
    grown_s = time.time() - began
    finder = SketchFinder(graph)
    held = {goal: finder.find(parse_sketch(written[-1]), graph.root) is not None
            for goal, written in MM_SKETCHES.items()}
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {"seconds": round(grown_s, 1), "nodes": len(graph.nodes),
            "classes": len(graph.members), "rounds": len(graph.rounds),
            "saturated": graph.saturated(), "peak_MiB": round(peak / 2 ** 20, 1),
            "holds": held}


def table(doc: dict) -> str:
    lines = ["| program | e-nodes | growth s | egraph best ms | guided best ms | guided/egraph |",
             "|---|---|---|---|---|---|"]
    for p in doc["programs"]:
        e, g = p["egraph"], p["guided"]
        ratio = f"{p['egraph_vs_guided']:.2f}" if p["egraph_vs_guided"] else "-"
        lines.append(f"| {p['program']} {size_text(p['sizes'])} | {e['nodes']} | "
                     f"{e['growth_seconds']} | {e['best_ms']} | {g['best_ms']} | {ratio} |")
    lines += ["", "| mm goal | sketches | reached | seconds | peak MiB | e-nodes |",
              "|---|---|---|---|---|---|"]
    for s in doc["sketches"]:
        lines.append(f"| {s['goal']} | {s['sketches']} | {s['reached']} | {s['seconds']} | "
                     f"{s['peak_MiB']} | {s['nodes']} |")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--sizes", default="small", choices=("small", "paper"))
    parser.add_argument("--budget", type=int, default=40)
    parser.add_argument("--programs", nargs="*", default=list(PROGRAMS))
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--nodes", type=int, default=3000)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--mm-size", type=int, default=64)
    parser.add_argument("--mm-unguided", type=float, default=0.0, metavar="SECONDS",
                        help="also grow mm's e-graph without sketches this long (the issue: "
                             "600)")
    parser.add_argument("--mm-nodes", type=int, default=2_000_000)
    args = parser.parse_args(argv)
    info = find_device(args.device)[0]
    kind = "gpu" if info.kind == "gpu" else "cpu"
    tag = f"{'gpu' if kind == 'gpu' else 'cpu'}_{args.sizes}"
    options = {"rounds": args.rounds, "nodes": args.nodes, "seconds": args.seconds}
    doc = {"device": info.name, "budget": args.budget,
           "options": options, "programs": [], "sketches": []}
    for name in args.programs:
        for s in sizes_of(args.sizes, kind, name):
            doc["programs"].append(compare(name, s, args.device, args.budget, options, tag))
            print(json.dumps(doc["programs"][-1]), flush=True)
    doc["sketches"] = sketches(args.mm_size)
    if args.mm_unguided:
        doc["mm_unguided"] = unguided(args.mm_size, args.mm_unguided, args.mm_nodes)
        print(json.dumps(doc["mm_unguided"]), flush=True)
    doc["max_rss_MiB"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    out = RESULTS / f"saturation_{tag}.json"
    out.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print(table(doc))
    print(f"written {out}")


if __name__ == "__main__":
    main()

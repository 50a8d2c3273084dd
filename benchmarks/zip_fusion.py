"""The guided search with and without the fusion through zips (its option ``fused_first``,
``search/fusion.py``), on Lift's programs: both searches run with the options of
``benchmarks.lift_programs`` on the same device, then the default mapping, both searches'
best kernels, the fused program's own kernels (its default completion; on a GPU its rows a
work-group each) and the hand-written kernel of ``benchmarks.peers`` are timed in the same
interleaved rounds (the order turned each round). Every kernel is checked against the
interpreter.

    python -m benchmarks.zip_fusion --device 1:0 --quick --budget 8     # PoCL, 512 rows
    python -m benchmarks.zip_fusion --device gpu --budget 40            # an H200, 4096 rows

Writes benchmarks/results/zip_fusion_<device>[_quick].json and .md.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from benchmarks.lift_programs import (
    PROGRAMS,
    hand_written_peer,
    inputs_of,
    search_options,
)
from benchmarks.timing import Spread, pooled

RESULTS = Path(__file__).parent / "results"
FUSED_PROGRAMS = ("gesummvNN",)  # Lift's programs whose zips join two computations


def candidates(name: str, size: int, kind: str, device: str | None, budget: int,
               repeat: int) -> tuple[list, dict, dict]:
    """The program's inputs, the kernels to time by label (the default mapping, each
    search's best, the fused program's kernels) and what each search found."""
    from workbench.rules.lowering import lower
    from workbench.search import search
    from workbench.search.fusion import zip_fusion
    from workbench.search.rows import row_groups
    from workbench.semantics import prepare_inputs

    prog = PROGRAMS[name].program()
    args = inputs_of(name, size)
    types = tuple(prepare_inputs(prog, args)[1])
    kernels, found = {"default": prog}, {}
    for label, fused in (("best without fusion", False), ("best with fusion", True)):
        result = search(prog, *args, budget=budget, device=device, repeat=repeat,
                        options={**search_options(kind), "fused_first": fused})
        found[label] = {"evaluated": result.evaluated, "seconds": round(result.seconds, 1),
                        "best_kernel_ms": result.best_kernel_ms,
                        "best": str(result.best) if result.best is not None else None}
        kernels[label] = result.best if result.best is not None else prog
    fusion = zip_fusion(prog, types)
    if fusion is not None:
        kernels["fused, default completion"] = lower(fusion[0], *types)[0]
        for k, (expr, _) in enumerate(row_groups(fusion[0], types) if kind == "gpu" else []):
            kernels[f"fused, a row a group ({k})"] = lower(expr, *types)[0]
    return args, kernels, found


def timed(name: str, args: list, kernels: dict, kind: str, device: str | None,
          rounds: int, repeat: int) -> tuple[dict, dict]:
    """Each kernel's pooled time over ``rounds`` interleaved rounds (the hand-written one's
    too), and the hand-written kernel's record."""
    from workbench.run import run
    from workbench.semantics import evaluate

    expected = evaluate(PROGRAMS[name].program(), *args)
    hand, timer = hand_written_peer(name, kind, args, device, expected, repeat)
    timers = {label: _runner(expr, args, device, repeat, expected, run)
              for label, expr in kernels.items()}
    if timer is not None:
        timers["hand-written"] = timer
    samples: dict[str, list[Spread]] = {k: [] for k in timers}
    order = list(timers)
    for r in range(rounds):
        for label in (order if r % 2 == 0 else order[::-1]):
            got = timers[label]()
            if got is not None:
                samples[label].append(got)
    return {k: pooled(v) for k, v in samples.items()}, hand


def _runner(expr, args, device, repeat, expected, run):
    def time_it() -> Spread | None:
        r = run(expr, *args, device=device, repeat=repeat, expected=expected)
        return Spread(r.kernel_ms, r.kernel_ms_min, r.kernel_ms_max) if r.correct else None
    return time_it


def table(doc: dict) -> str:
    lines = [f"# Fusion through zips, before and after: {doc['device']}", "",
             f"budget {doc['budget']} per search, {doc['rounds']} interleaved rounds; "
             "times are medians of the rounds' medians in ms [fastest–slowest]; vs "
             "hand-written: its time over the kernel's (above 1: faster).", ""]
    for name, entry in doc["programs"].items():
        lines += [f"## {name} ({entry['size']})", "", "| kernel | ms | vs hand-written |",
                  "|---|---|---|"]
        hand = entry["times"].get("hand-written")
        for label, t in entry["times"].items():
            if t is None:
                lines.append(f"| {label} | no correct run | – |")
                continue
            ratio = f"{hand[0] / t[0]:.2f}x" if hand else "–"
            lines.append(f"| {label} | {t[0]:.4f} [{t[1]:.4f}–{t[2]:.4f}] | {ratio} |")
        for label, f in entry["searches"].items():
            lines.append("")
            lines.append(f"{label}: {f['evaluated']} candidates in {f['seconds']} s; best "
                         f"`{f['best']}`")
        lines.append("")
    return "\n".join(lines) + "\n"


def main(argv=None) -> dict:
    from workbench.device.opencl import find_device

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None, help="cpu, gpu, an id P:D or part of a name")
    ap.add_argument("--quick", action="store_true", help="the --quick sizes")
    ap.add_argument("--programs", nargs="*", default=list(FUSED_PROGRAMS),
                    choices=list(PROGRAMS))
    ap.add_argument("--budget", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    info, _ = find_device(args.device)
    kind = "gpu" if info.kind == "gpu" else "cpu"
    tag = "gpu" if kind == "gpu" else "pocl" if info.is_pocl else info.kind
    repeat = 5 if args.quick else 10
    doc = {"device": info.name, "kind": kind, "budget": args.budget, "rounds": args.rounds,
           "programs": {}}
    for name in args.programs:
        size = PROGRAMS[name].sizes["quick" if args.quick else kind]
        began = time.time()
        inputs, kernels, found = candidates(name, size, kind, args.device, args.budget, repeat)
        times, hand = timed(name, inputs, kernels, kind, args.device, args.rounds, repeat)
        doc["programs"][name] = {"size": size, "searches": found, "hand_written": hand,
                                 "times": {k: list(t) if t else None for k, t in times.items()},
                                 "seconds": round(time.time() - began, 1)}
    out = RESULTS / f"zip_fusion_{tag}{'_quick' if args.quick else ''}.json"
    out.write_text(json.dumps(doc, indent=2, default=str) + "\n")
    out.with_suffix(".md").write_text(table(doc))
    print(table(doc))
    return doc


if __name__ == "__main__":
    main()

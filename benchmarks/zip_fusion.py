"""The guided search with and without the fusion through zips (its option ``fused_first``,
``search/zip_fusion.py``), on Lift's programs: both searches run with the options of
``benchmarks.lift_programs`` on the same device, then the default mapping, both searches'
best kernels, the fused program's own kernels (its default completion; on a GPU its rows a
work-group each) and the hand-written kernel of ``benchmarks.peers`` are timed in the same
interleaved rounds (the order turned each round). Every kernel is checked against the
interpreter.

    python -m benchmarks.zip_fusion --device 1:0 --quick --budget 8     # PoCL, 512 rows
    python -m benchmarks.zip_fusion --device gpu --budget 40            # an H200, 4096 rows
    python -m benchmarks.zip_fusion --device 1:0 --quick --again --rounds 15
    python -m benchmarks.zip_fusion --device 1:0 --quick --again --out zip_fusion_pocl_again

Writes benchmarks/results/zip_fusion_<device>[_quick].json and .md (or ``--out``'s name);
with ``--again`` no search runs: the bests the default file recorded and the fused kernels
are timed again (more rounds on a loaded machine), and the file (``--out``'s, where given)
gets the new times under ``again``. The fused kernels in vectors are timed also with their
lanes' sums unrolled (``zip_fusion.lane_sums_unrolled``, guided version 6's
``lane_sums_first``).
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
    from workbench.search import search
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
    return args, kernels | fused_kernels(prog, types, kind), found


def recorded(name: str, size: int, entry: dict, kind: str) -> tuple[list, dict]:
    """The inputs and the kernels of a recorded run (``--again``): the default mapping, each
    search's best as the file wrote it, the fused program's kernels."""
    from workbench.notation import parse
    from workbench.semantics import prepare_inputs

    prog = PROGRAMS[name].program()
    args = inputs_of(name, size)
    types = tuple(prepare_inputs(prog, args)[1])
    kernels = {"default": prog}
    kernels.update({label: parse(f["best"]) for label, f in entry["searches"].items()
                    if f.get("best")})
    return args, kernels | fused_kernels(prog, types, kind)


def fused_kernels(prog, types: tuple, kind: str) -> dict:
    """The fused program's kernels by label: each proposal's default completion and, for
    those in vectors, the same with their lanes' sums unrolled."""
    from workbench.rules.lowering import lower
    from workbench.search.zip_fusion import fused_proposals, lane_sums_unrolled

    kernels = {}
    for expr, steps in fused_proposals(prog, types, rows=kind == "gpu", lanes=kind == "cpu"):
        low = kernels[_label(steps)] = lower(expr, *types)[0]
        unrolled = lane_sums_unrolled(low, types)
        if unrolled is not None:
            kernels[f"{_label(steps)}, lanes' sums unrolled"] = unrolled[0]
    return kernels


def _label(steps) -> str:
    """A fused proposal named by what it does."""
    widths = [str(s.params["n"]) for s in steps if s.rule == "map-reduce-vectorize"]
    local = [str(s.params["local"]) for s in steps if s.rule == "workgroup-map-reduce"]
    group = f", a row pair a group of {local[0]}" if local else ""
    if widths:
        return f"fused, reductions side by side in float{widths[0]}s{group}"
    return f"fused, a pair accumulator{group}"


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
        lines += [f"## {name} ({entry['size']})", ""] + _times_table(entry["times"])
        if entry.get("again"):
            lines += ["", f"Timed again ({entry['again']['rounds']} interleaved rounds, no "
                      "search):", ""] + _times_table(entry["again"]["times"])
        for label, f in entry["searches"].items():
            lines.append("")
            lines.append(f"{label}: {f['evaluated']} candidates in {f['seconds']} s; best "
                         f"`{f['best']}`")
        lines.append("")
    return "\n".join(lines) + "\n"


def _times_table(times: dict) -> list[str]:
    lines = ["| kernel | ms | vs hand-written |", "|---|---|---|"]
    hand = times.get("hand-written")
    for label, t in times.items():
        if t is None:
            lines.append(f"| {label} | no correct run | – |")
            continue
        ratio = f"{hand[0] / t[0]:.2f}x" if hand else "–"
        lines.append(f"| {label} | {t[0]:.4f} [{t[1]:.4f}–{t[2]:.4f}] | {ratio} |")
    return lines


def main(argv=None) -> dict:
    from workbench.device.opencl import find_device

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None, help="cpu, gpu, an id P:D or part of a name")
    ap.add_argument("--quick", action="store_true", help="the --quick sizes")
    ap.add_argument("--programs", nargs="*", default=list(FUSED_PROGRAMS),
                    choices=list(PROGRAMS))
    ap.add_argument("--size", type=int, default=None,
                    help="rows (default: the program's --quick or device size)")
    ap.add_argument("--budget", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--again", action="store_true",
                    help="no search: time the recorded bests and the fused kernels again")
    ap.add_argument("--out", default=None, help="the results' file name in "
                    "benchmarks/results, without .json (default: zip_fusion_<device>"
                    "[_quick]; with --again the recorded run is read from the default)")
    args = ap.parse_args(argv)
    info, _ = find_device(args.device)
    kind = "gpu" if info.kind == "gpu" else "cpu"
    tag = "gpu" if kind == "gpu" else "pocl" if info.is_pocl else info.kind
    repeat = 5 if args.quick else 10
    recorded_file = RESULTS / f"zip_fusion_{tag}{'_quick' if args.quick else ''}.json"
    out = RESULTS / f"{args.out}.json" if args.out else recorded_file
    if args.again:
        return again(recorded_file, out, kind, args.device, args.rounds, repeat)
    doc = {"device": info.name, "kind": kind, "budget": args.budget, "rounds": args.rounds,
           "programs": {}}
    for name in args.programs:
        size = args.size or PROGRAMS[name].sizes["quick" if args.quick else kind]
        began = time.time()
        inputs, kernels, found = candidates(name, size, kind, args.device, args.budget, repeat)
        times, hand = timed(name, inputs, kernels, kind, args.device, args.rounds, repeat)
        doc["programs"][name] = {"size": size, "searches": found, "hand_written": hand,
                                 "times": {k: list(t) if t else None for k, t in times.items()},
                                 "seconds": round(time.time() - began, 1)}
    out.write_text(json.dumps(doc, indent=2, default=str) + "\n")
    out.with_suffix(".md").write_text(table(doc))
    print(table(doc))
    return doc


def again(source: Path, out: Path, kind: str, device: str | None, rounds: int,
          repeat: int) -> dict:
    """The recorded run's kernels (``source``) timed again (``recorded``), written beside its
    times to ``out``."""
    doc = json.loads(source.read_text())
    for name, entry in doc["programs"].items():
        inputs, kernels = recorded(name, entry["size"], entry, kind)
        times, _ = timed(name, inputs, kernels, kind, device, rounds, repeat)
        entry["again"] = {"rounds": rounds,
                          "times": {k: list(t) if t else None for k, t in times.items()}}
    out.write_text(json.dumps(doc, indent=2, default=str) + "\n")
    out.with_suffix(".md").write_text(table(doc))
    print(table(doc))
    return doc


if __name__ == "__main__":
    main()

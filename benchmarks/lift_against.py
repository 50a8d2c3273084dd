"""One of Lift's benchmark programs searched by this checkout and by another, both searched
best kernels timed beside the hand-written one in the same rounds.

Each search is the guided strategy with the options ``benchmarks.lift_programs`` gives it,
in a process of its own whose PYTHONPATH is its checkout; then both searched best kernels,
the default mapping and the hand-written kernel (``benchmarks.peers``) are timed in the same
interleaved rounds in this process, each checked against the interpreter: what a change to
the search gives on one program, measured before and after in one run.

    python -m benchmarks.lift_against /work/main --quick --device 1:0 \\
        --program molecularDynamics --budget 8

Writes benchmarks/results/against_<program>_<device>[_quick].json and .md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from benchmarks import lift_programs as bench
from benchmarks.timing import pooled, with_range

ROOT = Path(__file__).resolve().parent.parent

# the search a checkout runs: the options benchmarks.lift_programs gives (an option neither
# names takes the checkout's own default), its best expression and user functions as text
SEARCH = """
import json, sys
from benchmarks import lift_programs as bench
from workbench.notation import to_text
from workbench.notation.program import user_functions_text
from workbench.search import search
name, size, kind, device, budget = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], \\
    int(sys.argv[5])
prog = bench.PROGRAMS[name].program()
gpu = kind == "gpu"
found = search(prog, *bench.inputs_of(name, size), budget=budget, device=device,
               options={"default_first": True, "grids_first": gpu, "unrolled_first": not gpu,
                        "lanes_first": not gpu, "rows_first": gpu, "blocked_first": True,
                        "constant_first": gpu})
best = found.best if found.best is not None else prog
print(json.dumps({"best": to_text(best, width=None), "definitions": user_functions_text(prog),
                  "evaluated": found.evaluated, "seconds": round(found.seconds, 1)}))
"""


def searched(checkout: Path, name: str, size: int, kind: str, device: str, budget: int
             ) -> dict:
    """The search of ``checkout`` (its best expression's text, its user functions, the
    candidates measured and the seconds taken), run in a process of its own."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(checkout)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                           if p and Path(p).resolve() != ROOT]))
    proc = subprocess.run([sys.executable, "-c", SEARCH, name, str(size), kind, device,
                           str(budget)], capture_output=True, text=True, env=env,
                          cwd=checkout, timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(f"the search of {checkout} failed: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def timed(name: str, size: int, kind: str, device: str, kernels: dict, rounds: int,
          repeat: int) -> dict:
    """Each kernel (label -> expression) and the hand-written one, timed in ``rounds``
    interleaved rounds: label -> (median of the rounds' medians, [min, max]), None where
    one computed something else."""
    from workbench.run import run
    from workbench.semantics import evaluate

    args = bench.inputs_of(name, size)
    expected = evaluate(bench.PROGRAMS[name].program(), *args)
    _, peer = bench.hand_written_peer(name, kind, args, device, expected, repeat)
    samples: dict[str, list] = {label: [] for label in [*kernels, bench.HAND_WRITTEN]}
    for _ in range(rounds):
        if peer is not None:
            samples[bench.HAND_WRITTEN].append(peer())
        for label, expr in kernels.items():
            r = run(expr, *args, device=device, repeat=repeat, expected=expected)
            if r.correct:
                samples[label].append(bench.Spread(r.kernel_ms, r.kernel_ms_min,
                                                   r.kernel_ms_max))
    return {label: pooled(s) for label, s in samples.items()}


def table(doc: dict) -> str:
    hand = doc["times"].get(bench.HAND_WRITTEN)
    lines = [f"# {doc['program']} searched by two checkouts: {doc['device']}", "",
             f"Guided search, budget {doc['budget']}, size {doc['size']}; kernel times in ms "
             f"(median of {doc['rounds']} interleaved rounds, [min–max]). Written by "
             f"`python -m benchmarks.lift_against {doc['against']}"
             f"{' --quick' if doc['quick'] else ''} --device {doc['device_arg']} --program "
             f"{doc['program']} --budget {doc['budget']}`.", "",
             "| kernel | time | hand-written over it | searched best |", "|---|---|---|---|"]
    for label, t in doc["times"].items():
        ratio = f"{hand['median_ms'] / t['median_ms']:.2f}x" if t and hand else "–"
        text = with_range(t["median_ms"], (t["min_ms"], t["max_ms"])) if t else "wrong"
        lines.append(f"| {label} | {text} | {ratio} | "
                     f"{doc['best'].get(label, '').replace('|', '/')} |")
    return "\n".join(lines + [""])


def main(argv=None) -> dict:
    from workbench.device.opencl import find_device
    from workbench.expr import keep_signature
    from workbench.notation import parse
    from workbench.notation.reading import user_functions

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("against", help="the other checkout (its root folder)")
    ap.add_argument("--program", default="molecularDynamics", choices=list(bench.PROGRAMS))
    ap.add_argument("--quick", action="store_true", help="the program's quick size")
    ap.add_argument("--device", default="1:0")
    ap.add_argument("--budget", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    info, _ = find_device(args.device)
    kind = "gpu" if info.kind == "gpu" else "cpu"
    size = bench.PROGRAMS[args.program].sizes["quick" if args.quick else kind]
    prog = bench.PROGRAMS[args.program].program()
    kernels, best, searches = {"default": prog}, {}, {}
    for label, checkout in (("this checkout", ROOT), ("against", Path(args.against))):
        started = time.time()
        found = searched(checkout.resolve(), args.program, size, kind, args.device,
                         args.budget)
        searches[label] = {**{k: v for k, v in found.items() if k != "definitions"},
                           "wall_s": round(time.time() - started, 1)}
        # the program's declared input types kept (float4 inputs are read as vectors)
        kernels[label] = keep_signature(parse(found["best"], user_functions(
            found["definitions"])), prog)
        best[label] = found["best"]
    times = timed(args.program, size, kind, args.device, kernels, args.rounds,
                  5 if args.quick else 10)
    doc = {"program": args.program, "device": info.name, "device_arg": args.device,
           "against": args.against, "quick": args.quick, "size": size, "budget": args.budget,
           "rounds": args.rounds, "searches": searches, "best": best,
           "times": {k: t._asdict() if t else None for k, t in times.items()}}
    tag = "gpu" if kind == "gpu" else "pocl" if info.is_pocl else info.kind
    out = bench.RESULTS / f"against_{args.program}_{tag}{'_quick' if args.quick else ''}.json"
    out.write_text(json.dumps(doc, indent=2) + "\n")
    out.with_suffix(".md").write_text(table(doc))
    print(table(doc))
    return doc


if __name__ == "__main__":
    main()

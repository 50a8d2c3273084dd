"""Performance portability (CASES 2016, Table 2): the best kernel each search found for its
device, run on *this* device. Reads the search results in benchmarks/results/search_*.json,
runs every program's winners here (at this device's sizes; a winner whose split sizes do not
divide them is reported as such), interleaved over rounds, and writes
benchmarks/results/portability_<device>_<sizes>.json.

    python -m benchmarks.portability                  # PoCL, small sizes
    python -m benchmarks.portability --device gpu --sizes paper
"""

from __future__ import annotations

import argparse
import json
import statistics

from benchmarks.search import RESULTS, SIZES, types_of
from workbench.inputs import random_inputs
from workbench.notation import parse, parse_type
from workbench.opencl_devices import find_device
from workbench.programs import library
from workbench.run import run


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--sizes", choices=sorted(SIZES), default="small")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    info, _ = find_device(args.device)
    tag = "gpu" if info.kind == "gpu" else "pocl" if "Portable" in info.platform else info.kind
    doc = {"run_on": tag, "device": info.name, "sizes": args.sizes, "rounds": args.rounds,
           "programs": {}}
    # every program's kernels: each search's winner, and the program after default completion
    kernels: dict[str, dict[str, object]] = {}
    for found in sorted(RESULTS.glob("search_*.json")):
        search_doc = json.loads(found.read_text())
        tuned = found.stem.removeprefix("search_")
        for name, p in search_doc["programs"].items():
            if p.get("best_ms"):
                kernels.setdefault(name, {})[tuned] = parse(p["best_expression"])
    for name in kernels:
        kernels[name]["default completion"] = library("blas")[name]
    for name, exprs in kernels.items():
        s = SIZES[args.sizes][name]
        inputs = random_inputs([parse_type(t) for t in types_of(name, s)], s, 0)
        # interleaved rounds, each kernel the median of --repeat runs per round: the
        # device's speed drifts over seconds, so kernels compared are timed side by side
        samples: dict[str, list[float]] = {tuned: [] for tuned in exprs}
        outcomes = {}
        for _ in range(args.rounds):
            for tuned, expr in exprs.items():
                if tuned in outcomes and not outcomes[tuned].correct:
                    continue  # a failure is not run again
                result = run(expr, *inputs, device=args.device, repeat=args.repeat, sizes=s)
                outcomes[tuned] = result
                if result.correct:
                    samples[tuned].append(result.kernel_ms)
        entry = doc["programs"].setdefault(name, {})
        for tuned, result in outcomes.items():
            ms = statistics.median(samples[tuned]) if samples[tuned] else None
            entry[tuned] = {"status": result.status, "correct": result.correct,
                            "kernel_ms": ms, "message": result.message[:300]}
            shown = f"{ms:.4f} ms" if result.correct else result.status
            print(f"{name:<5} tuned for {tuned:<18} run on {tag}: {shown}")
    out = RESULTS / f"portability_{tag}_{args.sizes}.json"
    out.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()

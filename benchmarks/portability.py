"""Performance portability (CASES 2016, Table 2): the best kernel each search found for its
device, run on *this* device. Reads the search results in benchmarks/results/search_*.json,
runs every program's winners here (at this device's sizes; a winner whose split sizes do not
divide them is reported as such) and writes benchmarks/results/portability_<device>.json.

    python -m benchmarks.portability                  # PoCL, small sizes
    python -m benchmarks.portability --device gpu --sizes paper
"""

from __future__ import annotations

import argparse
import json

from benchmarks.search import RESULTS, SIZES, types_of
from workbench.cli import random_inputs
from workbench.derivation import _userfuns
from workbench.notation import parse, parse_type
from workbench.programs import library
from workbench.run import run
from workbench.runtime import find_device


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--sizes", choices=sorted(SIZES), default="small")
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args(argv)
    info, _ = find_device(args.device)
    tag = "gpu" if info.kind == "gpu" else "pocl" if "Portable" in info.platform else info.kind
    doc = {"run_on": tag, "device": info.name, "sizes": args.sizes, "programs": {}}
    for found in sorted(RESULTS.glob("search_*.json")):
        search_doc = json.loads(found.read_text())
        tuned = found.stem.removeprefix("search_")
        for name, p in search_doc["programs"].items():
            if not p.get("best_ms"):
                continue
            s = SIZES[args.sizes][name]
            types = [parse_type(t) for t in types_of(name, s)]
            expr = parse(p["best_expression"], _userfuns(""))
            result = run(expr, *random_inputs(types, s, 0), device=args.device,
                         repeat=args.repeat, sizes=s)
            entry = doc["programs"].setdefault(name, {})
            entry[tuned] = {"status": result.status, "correct": result.correct,
                            "kernel_ms": result.kernel_ms, "message": result.message[:300]}
            shown = f"{result.kernel_ms:.4f} ms" if result.correct else result.status
            print(f"{name:<5} tuned for {tuned:<12} run on {tag}: {shown}")
    # the high-level program after default completion, as a baseline
    for name in doc["programs"]:
        s = SIZES[args.sizes][name]
        types = [parse_type(t) for t in types_of(name, s)]
        result = run(library("blas")[name], *random_inputs(types, s, 0), device=args.device,
                     repeat=args.repeat, sizes=s)
        doc["programs"][name]["default completion"] = {
            "status": result.status, "correct": result.correct, "kernel_ms": result.kernel_ms}
    out = RESULTS / f"portability_{tag}_{args.sizes}.json"
    out.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()

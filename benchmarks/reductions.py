"""The seven versions of the reduction case study (the slides; PACT Sect. 5.1), each derived
from ``reduce (+) 0`` by rules: the first kernel of each (the work-groups' partial sums) run
on a device, checked against the interpreter and timed in interleaved rounds; its bandwidth is
the bytes it reads per second. Writes benchmarks/results/reductions_<device>_<n>.json, which
the reductions notebook plots.

    python -m benchmarks.reductions                              # the default device, 2^20
    python -m benchmarks.reductions --device gpu --n 16777216    # an NVIDIA GPU, 2^24
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from workbench.studies.reductions import measure

RESULTS = Path(__file__).parent / "results"


def tag(doc: dict) -> str:
    if doc["kind"] == "gpu":
        return "gpu"
    return "pocl" if "Portable" in doc["platform"] else doc["kind"]


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None, help="device (default: the default device)")
    parser.add_argument("--n", type=int, default=1 << 20, help="floats to reduce")
    parser.add_argument("--repeat", type=int, default=20, help="timed runs per round")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds")
    args = parser.parse_args(argv)
    doc = measure(args.n, args.device, args.repeat, args.rounds)
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"reductions_{tag(doc)}_{args.n}.json"
    out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"{doc['device']} ({doc['warp_sync']} for warps), {args.n} floats:")
    for row in doc["versions"]:
        speed = f"{row['gb_per_s']:8.1f} GB/s" if row["gb_per_s"] else f"{row['status']:>13}"
        print(f"  version {row['version']}: {speed}  {row['what']}")
    print(f"written to {out}")
    return doc


if __name__ == "__main__":
    main()

"""A device's first searches, from a fresh calibration (SPEC 8: the search adapts to the
device at hand): in a cache folder of their own, so the first search measures the device's
ceilings and probe kernels (``workbench.search.calibration``), each program is searched with
the default options (the guided strategy, its defaults for the device's kind), one after
the other. For each: how far the shipped prior of the device and the calibration the search
started from miss its measured candidates' times (geometric mean of the factor), and its
best kernel's bandwidth (the bytes it must move) against the device's copy.

    python -m benchmarks.first_search --device gpu --json first_search_gpu.json  # the H200
    python -m benchmarks.first_search --quick                                    # PoCL, small
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

SIZES = {"blur": {"full": 4096, "quick": 512}, "asum": {"full": 2 ** 24, "quick": 2 ** 18},
         "dot": {"full": 2 ** 24, "quick": 2 ** 18}, "gemv": {"full": 4096, "quick": 512}}


def case(name: str, size: int) -> tuple[object, list[str], int]:
    """A program, its input types and the bytes it must move at least."""
    from workbench.programs import library

    if name == "blur":
        return (library("skelcl")["gaussianBlur"], [f"[[float]_{size}]_{size}", "[float]_9"],
                8 * size * size)
    blas = library("blas")[name]
    if name == "gemv":
        return (blas, [f"[[float]_{size}]_{size}", f"[float]_{size}", f"[float]_{size}",
                       "float", "float"], 4 * size * size + 12 * size)
    vectors = 2 if name == "dot" else 1
    return blas, [f"[float]_{size}"] * vectors, 4 * size * vectors


def searched(name: str, size: int, device: str | None, budget: int, time_limit: float,
             folder: str) -> dict:
    from workbench.search import calibration, cost, read_log, search

    prog, types, moved = case(name, size)
    log = os.path.join(folder, f"{name}_{size}.jsonl")
    start = time.time()
    found = search(prog, *types, budget=budget, device=device, time_limit=time_limit, log=log)
    started = read_log(log).headers[-1].get("calibration")
    d = found.device
    shipped = cost.prior_for(d["name"], "gpu" if d.get("kind") == "gpu" else "cpu")
    rows = [(r["features"], r["kernel_ms"]) for r in found.log
            if r["correct"] and r["kernel_ms"] and r.get("features")]
    entry = {"program": name, "size": size, "evaluated": found.evaluated,
             "seconds": round(time.time() - start, 1), "best_kernel_ms": found.best_kernel_ms,
             "gb_per_s": moved / found.best_kernel_ms / 1e6 if found.best_kernel_ms else None,
             "shipped_prior_misses": calibration.prediction_error(shipped, rows),
             "calibration_misses": calibration.prediction_error(
                 cost.CostModel.from_json(started), rows) if started else None,
             "started_from": started and started["source"],
             "first_candidates": [r["expression"] for r in found.log[:3]]}
    return entry


def same_size_copy(entry: dict, device: str | None, kind: str
                   ) -> tuple[float | None, float | None]:
    """The fastest copy of the bytes ``entry``'s program moves (the OpenCL copy kernel, and
    CuPy's on a GPU) and the best kernel's share of its bandwidth."""
    from benchmarks.search import copy_ceilings

    if not entry["gb_per_s"]:
        return None, None
    moved = entry["gb_per_s"] * entry["best_kernel_ms"] * 1e6
    spreads = copy_ceilings(int(moved), kind, device)
    if not spreads:
        return None, None
    fastest = min(s.median_ms for s in spreads.values())
    return fastest, fastest / entry["best_kernel_ms"]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None, help="the device (default: the default)")
    parser.add_argument("--quick", action="store_true", help="small sizes")
    parser.add_argument("--programs", default="blur,gemv,asum,dot",
                        help="comma-separated, of " + ", ".join(SIZES))
    parser.add_argument("--budget", type=int, default=40, help="candidates per search")
    parser.add_argument("--time-limit", type=float, default=110.0,
                        help="seconds per search (default %(default)s)")
    parser.add_argument("--json", help="write the results here too")
    args = parser.parse_args(argv)
    from workbench.ceilings import ceilings
    from workbench.device.opencl import find_device
    from workbench.search import calibration

    folder = tempfile.mkdtemp(prefix="first-search-")
    os.environ[calibration.ENV] = os.path.join(folder, "calibrations")
    doc = {"device": None, "entries": []}
    for name in args.programs.split(","):
        size = SIZES[name]["quick" if args.quick else "full"]
        entry = searched(name, size, args.device, args.budget, args.time_limit, folder)
        doc["entries"].append(entry)
        print(json.dumps(entry), flush=True)
    copy = ceilings(args.device)
    kind = "gpu" if find_device(args.device)[0].kind == "gpu" else "cpu"
    doc["device"], doc["copy_gb_per_s"] = copy.device, copy.gb_per_s
    for e in doc["entries"]:
        e["of_copy"] = e["gb_per_s"] / copy.gb_per_s if e["gb_per_s"] and copy.gb_per_s \
            else None
        # a copy of the bytes the program moves, timed here: on a GPU a copy of tens of
        # MB runs below the device's copy ceiling (its launch and its tail), as the
        # program's kernel does
        same = same_size_copy(e, args.device, kind)
        e["same_size_copy_ms"], e["of_same_size_copy"] = same
        print(f"{e['program']:<5} {e['size']:>9}  {e['evaluated']:>3} candidates "
              f"{e['seconds']:>6.1f} s  best {e['best_kernel_ms']} ms  "
              f"{(e['of_copy'] or 0):.0%} of copy, {(e['of_same_size_copy'] or 0):.0%} "
              f"of a copy of its bytes ({same[0]} ms)  prior misses "
              f"x{e['shipped_prior_misses']:.2f}, calibration x"
              f"{(e['calibration_misses'] or float('nan')):.2f}")
    doc["calibration"] = [c.summary() for c in calibration.stored()]
    if args.json:
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()

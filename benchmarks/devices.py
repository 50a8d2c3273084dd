"""Several devices (SkelCL's distributions; searches spread over devices): one device against
two, on the same programs and inputs. Prints one JSON document and then a Markdown table, and
writes both to benchmarks/results/devices_<tag>.json and .md.

- a block-distributed dot product and scal (the derived BLAS kernels,
  workbench/derivations/blas_dot.json and blas_scal.json) of 2^28 floats: kernel time on one
  device against two (kernels only: the slowest device's median; both run at once);
- SkelCL's 3×3 Gaussian blur on an overlap-distributed 16384×16384 image, the same way;
- a random search of 400 candidates of dot (2^22 floats) on a Dask cluster with one worker
  per device, pinned (``workbench.several.cluster.device_cluster``): candidates measured per minute
  with one device and with two. Both searches draw the same candidates (one seed), and each
  compiles them cold: its workers have driver caches of their own, empty at the start
  (NVIDIA's ``CUDA_CACHE_PATH``, PoCL's ``POCL_CACHE_DIR``), so neither reuses the other's
  builds.

Every run is checked against the interpreter's output (a wrong or failed run is reported as
such); the blur's is computed by NumPy (``blur_reference``, tested equal to the
interpreter's up to float32's rounding), as interpreting a 16384² image would take minutes.

    python -m benchmarks.devices                 # the first two GPUs
    python -m benchmarks.devices --devices 0:0 0:1
    python -m benchmarks.devices --quick         # small sizes, two PoCL CPU devices
    python -m benchmarks.devices --no-search     # the kernels; then --no-kernels, the search
    python -m benchmarks.devices --no-search --programs blur   # one kernel; the others kept
    python -m benchmarks.devices --no-kernels --time-limit 240   # each search at most 4 min
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).parent / "results"
FULL = {"vector": 1 << 28, "image": 16384, "search_n": 1 << 22, "budget": 400, "repeat": 10}
QUICK = {"vector": 1 << 20, "image": 512, "search_n": 1 << 12, "budget": 12, "repeat": 5}


def pair_of_devices(kind: str) -> list[str]:
    """The first two working devices of ``kind``; for ``cpu``, two PoCL devices of one
    platform (``POCL_DEVICES="pthread pthread"``)."""
    from workbench.device.opencl import devices

    found = [d for d in devices() if d.kind == kind and d.ok]
    if kind == "cpu":
        by_platform: dict[str, list[str]] = {}
        for d in found:
            if d.is_pocl:
                by_platform.setdefault(d.id.split(":")[0], []).append(d.id)
        pairs = [ids[:2] for ids in by_platform.values() if len(ids) >= 2]
        return pairs[0] if pairs else []
    return [d.id for d in found[:2]]


PROGRAMS = ("dot", "scal", "blur")


def programs(sizes: dict, which=PROGRAMS, seed: int = 0) -> list[tuple[str, str, object,
                                                                      tuple, list]]:
    """(key, name, program, inputs, distributions) of the kernels measured (those of
    ``which``; only their inputs are drawn)."""
    from workbench import Derivation, load

    rng = np.random.default_rng(seed)
    n, m = sizes["vector"], sizes["image"]
    derived = Path(__file__).parent.parent / "workbench" / "derivations"
    out = []
    if "dot" in which or "scal" in which:
        x = rng.uniform(-1, 1, n).astype(np.float32)
    if "dot" in which:
        y = rng.uniform(-1, 1, n).astype(np.float32)
        dot = Derivation.load(derived / "blas_dot.json").current
        out.append(("dot", f"dot, 2^{n.bit_length() - 1} floats (block)", dot, (x, y),
                    ["block", "block"]))
    if "scal" in which:
        scal = Derivation.load(derived / "blas_scal.json").current
        out.append(("scal", f"scal, 2^{n.bit_length() - 1} floats (block)", scal,
                    (np.float32(1.5), x), ["copy", "block"]))
    if "blur" in which:
        image = rng.uniform(0, 1, (m, m)).astype(np.float32)
        weights = np.array([1, 2, 1, 2, 4, 2, 1, 2, 1], np.float32) / 16
        blur = load(Path(__file__).parent.parent / "workbench" / "programs" / "skelcl.lift")[
            "gaussianBlur"]
        out.append(("blur", f"3×3 Gaussian blur, {m}² (overlap 1)", blur, (image, weights),
                    [("overlap", 1), "copy"]))
    return out


def blur_reference(image: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The Gaussian blur's output as the program defines it (zero padding, the weighted sum
    of the 3×3 neighbourhood, in float32), in NumPy: the interpreter's windows of a 16384²
    image would take minutes and tens of GB. It equals the interpreter's up to float32's
    rounding (a test checks it)."""
    padded = np.pad(image, 1)
    out = np.zeros_like(image)
    rows, cols = image.shape
    for k in range(9):
        a, b = divmod(k, 3)
        out = out + weights[k] * padded[a:a + rows, b:b + cols]
    return out


def kernels(pair: list[str], sizes: dict, which=PROGRAMS) -> list[dict]:
    from workbench import evaluate, run

    rows = []
    for key, name, program, inputs, dists in programs(sizes, which):
        # the output each run is checked against, computed once for both runs
        expected = blur_reference(*inputs) if key == "blur" else evaluate(program, *inputs)
        one = run(program, *inputs, device=pair[0], repeat=sizes["repeat"], expected=expected)
        two = run(program, *inputs, devices=pair, distributions=dists, repeat=sizes["repeat"],
                  expected=expected)
        row = {"key": key, "program": name, "one_device": _run_json(one),
               "two_devices": _run_json(two)}
        if one.correct and two.correct:
            row["speedup"] = one.kernel_ms / two.kernel_ms
        rows.append(row)
        print(f"# {name}: {one} | {two}", file=sys.stderr, flush=True)
    return rows


def _run_json(r) -> dict:
    return {"status": r.status, "correct": r.correct, "message": r.message[:500],
            "kernel_ms": r.kernel_ms, "kernel_ms_min": r.kernel_ms_min,
            "transfer_ms": r.transfer_ms, "device": r.device, "per_device": r.per_device}


def searches(pair: list[str], sizes: dict, kind: str) -> dict:
    """Candidates measured per minute by one random search, on two devices, then on one.
    The search asks for a device of ``kind``: each pinned worker runs it on its own (and the
    log's header names that kind's first device, not this process's default)."""
    from distributed import Client

    from workbench.programs import library
    from workbench.rewriting.macro import forget_outcomes
    from workbench.several.cluster import device_cluster

    dot = library("blas")["dot"]
    types = [f"[float]_{sizes['search_n']}"] * 2
    out = {}
    for label, used in (("two devices", pair), ("one device", pair[:1])):
        forget_outcomes()  # the second search draws its walks as cold as the first
        caches = Path(tempfile.mkdtemp(prefix="workbench-driver-caches-"))
        env = {"CUDA_CACHE_PATH": str(caches / "cuda"), "POCL_CACHE_DIR": str(caches / "pocl")}
        with device_cluster(used, env=env) as cluster, Client(cluster) as client:
            client.wait_for_workers(len(used), timeout=300)
            start = time.perf_counter()
            result = search(dot, *types, client=client, budget=sizes["budget"], device=kind,
                            time_limit=sizes.get("time_limit"))
            minutes = (time.perf_counter() - start) / 60
        shutil.rmtree(caches, ignore_errors=True)
        measured = [r for r in result.log if r.get("status") not in ("not in log",)]
        per_device: dict[str, int] = {}
        busy: dict[str, float] = {}  # seconds each device's worker spent on candidates
        for r in measured:
            key = r.get("device_id") or "?"
            per_device[key] = per_device.get(key, 0) + 1
            busy[key] = busy.get(key, 0.0) + (r.get("seconds") or 0.0)
        out[label] = {"devices": used, "evaluated": result.evaluated, "minutes": minutes,
                      "per_minute": result.evaluated / minutes, "per_device": per_device,
                      # the share of the search's time each worker ran a candidate (the
                      # rest it waited for the search to give it one, or started a process)
                      "busy": {k: v / (60 * minutes) for k, v in busy.items()},
                      "best_kernel_ms": result.best_kernel_ms}
        print(f"# search on {label}: {result.evaluated} candidates in {minutes:.2f} min",
              file=sys.stderr, flush=True)
    out["speedup"] = out["two devices"]["per_minute"] / out["one device"]["per_minute"]
    out["budget"] = sizes["budget"]
    out["time_limit"] = sizes.get("time_limit")
    return out


def search(expr, *types, client, budget: int, device: str | None = None,
           time_limit: float | None = None):
    from workbench.search import search as run_search

    return run_search(expr, *types, strategy="random", budget=budget, executor=client,
                      time_limit=time_limit, device=device,
                      repeat=5, seed=1, timeout=60)


def table(doc: dict) -> str:
    lines = [f"# Several devices: {' and '.join(doc['devices'])} ({doc['device_names']})", "",
             "Kernel time (median ms; two devices: the slower device's, both running at once), "
             "checked against the interpreter. Written by `python -m benchmarks.devices"
             f"{' --quick' if doc['quick'] else ''}`.", "",
             "| program | one device (ms) | two devices (ms) | speedup |", "|---|---|---|---|"]
    for row in doc["kernels"]:
        one, two = row["one_device"], row["two_devices"]
        speed = f"{row['speedup']:.2f}×" if "speedup" in row else "–"
        lines.append(f"| {row['program']} | {_cell(one)} | {_cell(two)} | {speed} |")
    s = doc.get("search")
    if s:
        limit = f", at most {s['time_limit']:g} s each" if s.get("time_limit") else ""
        lines += ["", f"Search (random, budget {s['budget']}{limit}, dot of "
                  f"{doc['sizes']['search_n']} floats), one Dask worker per device:", "",
                  "| devices | candidates | minutes | candidates per minute | per device |",
                  "|---|---|---|---|---|"]
        for label in ("one device", "two devices"):
            r = s[label]
            busy = r.get("busy", {})
            lines.append(f"| {label} | {r['evaluated']} | {r['minutes']:.2f} | "
                         f"{r['per_minute']:.1f} | " + ", ".join(
                             f"{k}: {v}" + (f" ({busy[k]:.0%} busy)" if k in busy else "")
                             for k, v in sorted(r['per_device'].items())) + " |")
        lines.append(f"| ratio | | | {s['speedup']:.2f}× | |")
    return "\n".join(lines) + "\n"


def _cell(r: dict) -> str:
    return f"{r['kernel_ms']:.4g}" if r["correct"] else r["status"]


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", nargs=2, metavar="DEVICE",
                        help="the two devices (default: the first two GPUs; with --quick two "
                             "PoCL CPU devices)")
    parser.add_argument("--quick", action="store_true", help="small sizes (minutes on a CPU)")
    parser.add_argument("--no-search", action="store_true", help="kernels only")
    parser.add_argument("--no-kernels", action="store_true", help="the search only")
    parser.add_argument("--programs", nargs="+", choices=PROGRAMS, default=list(PROGRAMS),
                        help="the kernels to measure (default: all)")
    parser.add_argument("--time-limit", type=float, metavar="SECONDS",
                        help="end each search after this long (its rate is what it measured "
                             "by then)")
    parser.add_argument("--results", type=Path, default=RESULTS,
                        help="the folder the results are written to")
    parser.add_argument("--budget", type=int, help="the search's candidates (default: 400; "
                        "--quick: 12)")
    args = parser.parse_args(argv)
    if args.quick and not args.devices:
        os.environ.setdefault("POCL_DEVICES", "pthread pthread")  # before PoCL loads
    from workbench.device.opencl import find_device

    sizes = dict(QUICK if args.quick else FULL)
    if args.budget is not None:
        sizes["budget"] = args.budget
    if args.time_limit is not None:
        sizes["time_limit"] = args.time_limit
    pair = args.devices or pair_of_devices("cpu" if args.quick else "gpu")
    if len(pair) < 2:
        parser.error("two devices are needed: name them with --devices (this host has "
                     "fewer than two GPUs; --quick uses two PoCL CPU devices)")
    infos = [find_device(d)[0] for d in pair]
    doc = {"devices": [i.id for i in infos],
           "device_names": ", ".join(f"{i.name}, {i.driver}" for i in infos),
           "quick": args.quick, "sizes": sizes}
    tag = ("gpu" if infos[0].kind == "gpu" else "pocl" if infos[0].is_pocl else
           infos[0].kind) + ("_quick" if args.quick else "")
    out = args.results / f"devices_{tag}.json"
    # a part measured alone (--no-search, --no-kernels) keeps the other part of an earlier
    # run on the same devices
    earlier = json.loads(out.read_text()) if out.exists() else {}
    if earlier.get("devices") != doc["devices"]:
        earlier = {}
    measured = [] if args.no_kernels else kernels(pair, sizes, args.programs)
    kept = [r for r in earlier.get("kernels", []) if r.get("key") in PROGRAMS
            and (r["key"] not in args.programs or args.no_kernels)]
    doc["kernels"] = sorted(kept + measured, key=lambda r: PROGRAMS.index(r["key"]))
    if args.no_search:
        if "search" in earlier:
            doc["search"] = earlier["search"]
    else:
        doc["search"] = searches(pair, sizes, infos[0].kind)
    text = table(doc)
    print(json.dumps(doc, indent=1))
    print(text)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1) + "\n")
    out.with_suffix(".md").write_text(text)
    return doc


if __name__ == "__main__":
    main()

"""A matrix product as users write it: each spelling searched by the CASES exploration with
the strategy's defaults, its best kernel timed again beside the program's default mapping and
NumPy (OpenBLAS) in the same interleaved rounds.

    python -m benchmarks.spellings [--shape 512x256x384] [--budget 40] [--device ...]

writes ``results/spellings_<device>.json`` and ``.md``. The spellings are the library's
form and one with a named dot product; both reach the same exploration (``normalise``), so a
user's own way of writing the product finds the same kernels.
"""

from __future__ import annotations

import argparse
import json
import platform
import time

import numpy as np

from benchmarks.search import device_tag
from benchmarks.timing import Spread, pooled, with_range
from workbench import evaluate, load, parse_program
from workbench.device.opencl import find_device
from workbench.run import run
from workbench.search import search

from .gemm import RESULTS, fmt, numpy_peer

NAMED = """
dot = λxs ys. (reduce (+) 0 ∘ map (*)) (zip xs ys)
mm : [[float]_K]_M -> [[float]_N]_K -> [[float]_N]_M
mm = λA B. map (λrowA. join (map (λcolB. dot rowA colB) (transpose B))) A
"""


def spellings() -> dict:
    return {"library form": load("workbench/programs/mm.lift")["mm"],
            "named dot product": parse_program(NAMED)["mm"]}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--shape", default="512x256x384", help="M×K×N: A is M×K, B is K×N")
    parser.add_argument("--budget", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args(argv)
    m, k, n = (int(x) for x in args.shape.lower().replace("×", "x").split("x"))
    info, _ = find_device(args.device)
    tag = device_tag(info)
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    expected = np.asarray(evaluate(spellings()["library form"], a, b))
    doc = {"device": info.name, "platform": info.platform, "driver": info.driver,
           "machine": platform.machine(), "shape": [m, k, n], "budget": args.budget,
           "strategy": "cases (its defaults)", "spellings": {}}
    kernels = {}
    for name, expr in spellings().items():
        start = time.time()
        result = search(expr, a, b, strategy="cases", budget=args.budget, device=args.device,
                        workers=args.workers, seed=0)
        doc["spellings"][name] = {
            "evaluated": result.evaluated, "seconds": time.time() - start,
            "normalised": result.details.get("normalised"),
            "phases": [p["count"] for p in result.details.get("phases", [])],
            "best_logged_ms": result.best_kernel_ms,
            "best": str(result.best) if result.best is not None else None}
        kernels[name] = result.best
        kernels[f"{name}: default mapping"] = expr
        print(f"{name}: {result.evaluated} measured, best {fmt(result.best_kernel_ms)} ms",
              flush=True)
    samples: dict[str, list[Spread]] = {key: [] for key in kernels}
    samples["NumPy"] = []
    for _ in range(args.rounds):  # interleaved: a device's speed drifts
        for key, expr in kernels.items():
            if expr is None:
                continue
            r = run(expr, a, b, device=args.device, repeat=5, expected=expected)
            if r.correct and r.kernel_ms is not None:
                samples[key].append(Spread(r.kernel_ms, r.kernel_ms_min, r.kernel_ms_max))
        samples["NumPy"].append(numpy_peer((m, k, n), 10))
    timed = {key: pooled(s) for key, s in samples.items()}
    ms = {key: t.median_ms if t else None for key, t in timed.items()}
    ranges = {key: t.range_ms if t else None for key, t in timed.items()}
    flops = 2 * m * k * n
    for name in spellings():
        entry = doc["spellings"][name]
        best, default = ms[name], ms[f"{name}: default mapping"]
        entry.update({"best_ms": best, "default_mapping_ms": default,
                      "best_range_ms": ranges[name],
                      "default_mapping_range_ms": ranges[f"{name}: default mapping"],
                      "gflops": flops / (best * 1e6) if best else None,
                      "vs_default_mapping": default / best if best and default else None,
                      "vs_numpy": ms["NumPy"] / best if best and ms["NumPy"] else None})
    doc["numpy_ms"] = ms["NumPy"]
    doc["numpy_range_ms"] = ranges["NumPy"]
    out = RESULTS / f"spellings_{tag}.json"
    out.write_text(json.dumps(doc, indent=2) + "\n")
    out.with_suffix(".md").write_text(table(doc))
    print(table(doc))
    return doc


def table(doc: dict) -> str:
    m, k, n = doc["shape"]
    lines = [f"# A matrix product as users write it: {doc['device']}", "",
             f"A {m}×{k} times B {k}×{n}; each spelling searched with `strategy=\"cases\"` and "
             f"its defaults, budget {doc['budget']}; kernels timed again with NumPy in the "
             f"same interleaved rounds (ms, median [min–max] of all the runs). Written by "
             f"`python -m "
             f"benchmarks.spellings`.", "",
             "| spelling | normalised by | phase counts | best (ms) | GFLOP/s | default "
             "mapping (ms) | best vs default | NumPy (ms) | best vs NumPy |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, s in doc["spellings"].items():
        steps = ", ".join(x.split(" at ")[0] for x in s["normalised"] or []) or "–"
        lines.append(
            f"| {name} | {steps} | {s['phases']} | "
            f"{with_range(s['best_ms'], s.get('best_range_ms'))} | {fmt(s['gflops'], 1)} | "
            f"{with_range(s['default_mapping_ms'], s.get('default_mapping_range_ms'))} | "
            f"{fmt(s['vs_default_mapping'], 1)}× | "
            f"{with_range(doc['numpy_ms'], doc.get('numpy_range_ms'))} | "
            f"{fmt(s['vs_numpy'], 2)}× |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()

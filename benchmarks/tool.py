"""How fast the tool itself answers (SPEC 9, last bullet): listing every applicable rewrite
of a ~100-node expression (target < 50 ms), applying one rule, type-checking, generating
OpenCL (target < 20 ms per kernel), and the interpreter on 2^20 floats. Prints a table
and writes benchmarks/results/tool.json.

    python -m benchmarks.tool [--repeat 20]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path

import numpy as np

from workbench import apply, evaluate, opencl, parse, rewrites, typecheck
from workbench.programs import library

RESULTS = Path(__file__).parent / "results"

# Listing 5.13 followed by a few more high-level stages: a 100+ node expression mixing
# high- and low-level primitives, lambdas and symbolic sizes.
BIG = (str(library("reductions")["listing5_13"])
       + " ∘ map (λx. abs x * 3 + 1) ∘ join ∘ map (map (λy. max y 0) ∘ reorder) ∘ split 128"
       + " ∘ map (λz. z * z)")


LIFT_EXAMPLE = "Join() o MapWrg(Join() o MapLcl(MapSeq(id)) o Split(4)) o Split(1024)"


def timed(fn, repeat: int) -> dict:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return {"median_ms": statistics.median(samples), "min_ms": min(samples),
            "max_ms": max(samples), "repeat": repeat}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args(argv)

    big = parse(BIG)
    sizes = {"blockSize": 1024}
    xs = np.random.default_rng(0).uniform(-1, 1, 1 << 20).astype(np.float32)
    asum = library("figures")["fig10_0"]
    fused = library("figures")["fig10_8"]
    found = rewrites(big, "[float]_N")
    gemv = library("blas")["gemv"]
    gemv_types = ["[[float]_1024]_1024", "[float]_1024", "[float]_1024", "float", "float"]
    from workbench.rules.lowering import lower

    gemv_low, _ = lower(gemv, *gemv_types)
    listing513, _ = lower(library("reductions")["listing5_13"], "[float]_1048576")
    md, _ = lower(library("md")["md"])
    rows = {
        f"rewrites (listing, {big.size()} nodes, {len(found)} results)":
            (timed(lambda: rewrites(big, "[float]_N"), args.repeat), 50.0),
        "apply one rule (map-reduce-fusion)":
            (timed(lambda: apply(parse("reduce (+) 0 ∘ map abs"), "map-reduce-fusion", "0",
                                 "[float]_N", chunk=128), args.repeat), None),
        f"typecheck ({big.size()} nodes)":
            (timed(lambda: typecheck(big, "[float]_N", sizes=sizes), args.repeat), None),
        f"parse + print ({big.size()} nodes)":
            (timed(lambda: str(parse(BIG)), args.repeat), None),
        "codegen: Lift example (work-groups, local threads)":
            (timed(lambda: opencl(parse(LIFT_EXAMPLE), "[float]_1048576"), args.repeat), 20.0),
        "codegen: gemv, lowered by default completion (per kernel)":
            (timed(lambda: opencl(gemv_low, *gemv_types), args.repeat), 20.0),
        "codegen: Listing 5.13 (warp and lane maps, 2 kernels)":
            (timed(lambda: opencl(listing513, "[float]_1048576", sizes={"blockSize": 2048}),
                   args.repeat), 20.0),
        "codegen: md (arrays of tuples, neighbour reads)":
            (timed(lambda: opencl(md, "[(float, float, float)]_4096", "[[int]_16]_4096",
                                  "float"), args.repeat), 20.0),
        "interpreter: asum, 2^20 floats (high level)":
            (timed(lambda: evaluate(asum, xs), args.repeat), 1000.0),
        "interpreter: asum, 2^20 floats (Fig. 10 line 8)":
            (timed(lambda: evaluate(fused, xs), args.repeat), 1000.0),
    }
    width = max(len(k) for k in rows)
    print(f"{'measurement':<{width}}  {'median':>9}  {'min':>9}  {'max':>9}  target")
    doc = {"machine": platform.machine(), "python": platform.python_version(),
           "processor": platform.processor(), "measurements": {}}
    for name, (t, target) in rows.items():
        verdict = "" if target is None else (f"< {target:.0f} ms " +
                                             ("ok" if t["median_ms"] < target else "MISSED"))
        print(f"{name:<{width}}  {t['median_ms']:7.2f}ms  {t['min_ms']:7.2f}ms  "
              f"{t['max_ms']:7.2f}ms  {verdict}")
        doc["measurements"][name] = {**t, "target_ms": target}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "tool.json").write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return doc


if __name__ == "__main__":
    main()

"""Lift's programs whose user functions vectorise (Black-Scholes' C body returning a tuple,
nearest neighbour's distance, K-means' points in the lanes): on each CPU device, the default
mapping, the program computed 8 and 16 elements at a time in the lanes of vectors (the
candidates the guided search measures first on a CPU: ``guided.measure_lanes``, each
completed by the default lowering, and again with its innermost sequential reduction
unrolled where it has one), the fastest of those built with
``-cl-fast-relaxed-math``, and NumPy, timed in the same interleaved rounds; every kernel
checked against the interpreter.

    python -m benchmarks.lanes --devices 1:0 2:0            # --quick sizes (the default)
    python -m benchmarks.lanes --size cpu --programs blackScholes

Writes benchmarks/results/lanes_<size>.json and .md.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from pathlib import Path

import numpy as np

from benchmarks.lift_programs import PROGRAMS, inputs_of
from benchmarks.timing import Spread, host_spread, pooled, with_range

RESULTS = Path(__file__).parent / "results"
LANE_PROGRAMS = ("blackScholes", "nearestNeighbour", "kmeans")
WIDTHS = (8, 16)
RELAXED = ["-cl-fast-relaxed-math"]


def in_lanes(program, args, width: int):
    """The program with its outermost map computed ``width`` elements at a time in vector
    lanes (``vectorize-lanes`` for a map of arrays, ``vectorize`` for one of scalars), as the
    guided search builds it; None where neither applies."""
    from workbench import rewrites
    from workbench.rewriting.application import lookup_rule
    from workbench.semantics import prepare_inputs

    _, types = prepare_inputs(program, args)
    sites = [r for r in rewrites(program, *types, rules=[lookup_rule("vectorize-lanes"),
                                                         lookup_rule("vectorize")])
             if r.params.get("n") is not None and r.params["n"].is_integer_constant
             and int(r.params["n"].value) == width]
    if not sites:
        return None
    return min(sites, key=lambda r: len(r.path)).result


def _timed(expr, args, device, repeat: int, expected, build_options=None) -> Spread | None:
    from workbench.run import run

    r = run(expr, *args, device=device, repeat=repeat, expected=expected,
            build_options=build_options)
    if not r.correct:
        print(f"  not timed: {r.status}: {r.message[:300]}", flush=True)
        return None
    return Spread(r.kernel_ms, r.kernel_ms_min, r.kernel_ms_max)


def kernels(name: str, args, device: str) -> dict[str, tuple]:
    """The kernels timed for a program on a device: label -> (expression, build options);
    vectors of a width the device's probe refused are left out, as a search leaves them."""
    from workbench.device.opencl import find_device

    runs = find_device(device)[0].vector_widths
    program = PROGRAMS[name].program()
    out = {"default": (program, None)}
    for width in (w for w in WIDTHS if not runs or w in runs):
        expr = in_lanes(program, args, width)
        if expr is not None:
            out[f"lanes {width}"] = (expr, None)
            unrolled = innermost_unrolled(expr, args)
            if unrolled is not None:
                out[f"lanes {width} unrolled"] = (unrolled, None)
    return out


def innermost_unrolled(expr, args):
    """The expression's default completion with its innermost sequential reduction unrolled
    (the guided search's second candidate in lanes), or None where none unrolls."""
    from workbench import rewrites
    from workbench.rewriting.application import lookup_rule
    from workbench.rules.lowering import lower
    from workbench.semantics import prepare_inputs

    _, types = prepare_inputs(expr, args)
    low, _ = lower(expr, *types)
    sites = rewrites(low, *types, rules=[lookup_rule("reduceSeq→reduceSeqUnroll")])
    return max(sites, key=lambda r: len(r.path)).result if sites else None


def benchmark(name: str, size: int, devices: list[str], rounds: int, repeat: int) -> dict:
    """One program on each device: its kernels and NumPy, interleaved over ``rounds``; after
    the first round, the fastest kernel in lanes also built with relaxed math."""
    from workbench.semantics import evaluate

    spec = PROGRAMS[name]
    args = inputs_of(name, size)
    expected = evaluate(spec.program(), *args)
    per_device = {device: kernels(name, args, device) for device in devices}
    samples: dict[str, list[Spread]] = {"NumPy": []}
    for _ in range(rounds):
        samples["NumPy"].append(host_spread(lambda: spec.reference(np, *args), repeat))
        for device in devices:
            for label, (expr, options) in list(per_device[device].items()):
                t = _timed(expr, args, device, repeat, expected, options)
                if t is not None:
                    samples.setdefault(f"{label} @ {device}", []).append(t)
            _add_relaxed(per_device[device], samples, device)
    result = {k: pooled(v) for k, v in samples.items() if v}
    return {"size": size, "ms": {k: t.median_ms for k, t in result.items()},
            "range_ms": {k: t.range_ms for k, t in result.items()}}


def _add_relaxed(timed: dict, samples: dict, device: str) -> None:
    """After a round, the fastest kernel in lanes on the device also built with relaxed
    math (from the next round on)."""
    if any(k.endswith("relaxed") for k in timed):
        return
    lanes = [k for k in timed if k.startswith("lanes") and samples.get(f"{k} @ {device}")]
    if lanes:
        fastest = min(lanes, key=lambda k: samples[f"{k} @ {device}"][-1].median_ms)
        timed[f"{fastest} relaxed"] = (timed[fastest][0], RELAXED)


def table(doc: dict) -> str:
    lines = [f"# Lift's programs in vector lanes: {doc['platform']}", "",
             f"Kernel times in ms (device events, median of {doc['rounds']} interleaved "
             f"rounds, [min–max] of all their runs); NumPy by the host's clock in the same "
             f"rounds. Written by `python -m benchmarks.lanes "
             f"{' '.join(doc['argv'])}`.", "",
             "| program | size | kernel | device | ms | NumPy / kernel |",
             "|---|---|---|---|---|---|"]
    for name, entry in doc["programs"].items():
        numpy_ms = entry["ms"].get("NumPy")
        for label, ms in entry["ms"].items():
            kernel, _, device = label.partition(" @ ")
            ratio = f"{numpy_ms / ms:.2f}x" if numpy_ms and ms else "–"
            lines.append(f"| {name} | {entry['size']} | {kernel} | {device or 'host'} | "
                         f"{with_range(ms, entry['range_ms'][label])} | {ratio} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--devices", nargs="+", default=None,
                    help="CPU devices (ids P:D; default: the default device)")
    ap.add_argument("--programs", nargs="+", default=list(LANE_PROGRAMS),
                    choices=list(LANE_PROGRAMS))
    ap.add_argument("--size", default="quick", choices=["test", "quick", "cpu"])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    if args.devices is None:
        from workbench.device.opencl import find_device

        args.devices = [find_device(None)[0].id]
    doc = {"platform": platform.platform(), "devices": args.devices, "rounds": args.rounds,
           "argv": list(argv if argv is not None else sys.argv[1:]), "programs": {}}
    for name in args.programs:
        size = PROGRAMS[name].sizes[args.size]
        doc["programs"][name] = benchmark(name, size, args.devices, args.rounds, args.repeat)
        print(f"{name}: done", flush=True)
    out = RESULTS / f"lanes_{args.size}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2) + "\n")
    out.with_suffix(".md").write_text(table(doc))
    print(table(doc))
    return doc


if __name__ == "__main__":
    main()

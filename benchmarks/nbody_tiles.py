"""N-body (Lift's ``nbody``) with its bodies tiled through local memory (``shared-tiling``):
the default mapping, the tiled kernel at a few (T, L) (tiles of T bodies, work-groups of L
work-items), each as a loop over the tile and with that loop unrolled (``tile-unroll``), and
a guided search with its default options, each checked against the
interpreter, in milliseconds and TFLOP/s (20 flops per interaction, N² interactions).

    python -m benchmarks.nbody_tiles --device gpu            # 16384 bodies, a few minutes
    python -m benchmarks.nbody_tiles --size 1024 --budget 8  # on PoCL

Prints one line per kernel, then the best; writes benchmarks/results/nbody_tiles_<tag>.json.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from benchmarks.lift_programs import PROGRAMS, inputs_of

RESULTS = Path(__file__).parent / "results"
FLOPS_PER_INTERACTION = 20
TILES = ((32, 32), (64, 64), (128, 128), (256, 256), (128, 64))


def tflops(size: int, ms: float | None) -> float | None:
    return FLOPS_PER_INTERACTION * size * size / (ms * 1e-3) / 1e12 if ms else None


def _line(label: str, size: int, ms: float | None, extra: str = "") -> str:
    rate = tflops(size, ms)
    shown = f"{ms:8.4f} ms  {rate:6.2f} TFLOP/s" if ms else "       –"
    return f"{label:<36} {shown}  {extra}".rstrip()


def _timed(expr, args, device, repeat, expected) -> dict:
    from workbench.run import run

    r = run(expr, *args, device=device, repeat=repeat, expected=expected)
    ms = r.kernel_ms if r.correct else None
    return {"status": r.status, "correct": r.correct, "kernel_ms": ms,
            "kernel_ms_min": r.kernel_ms_min if r.correct else None,
            "tflops": tflops(len(args[0]), ms), "message": (r.message or "")[:300]}


def _unrolled(expr, types):
    """``expr`` completed by the default lowering with its work-items' fold over a tile
    unrolled (None where ``tile-unroll`` applies nowhere)."""
    from workbench.rules import CATALOGUE, rewrites
    from workbench.rules.lowering import lower

    low, _ = lower(expr, *types)
    sites = rewrites(low, *types, rules=[CATALOGUE["tile-unroll"]])
    return max(sites, key=lambda r: len(r.path)).result if sites else None


def benchmark(size: int, device: str | None, budget: int, repeat: int,
              tiles=TILES, time_limit: float | None = None) -> dict:
    """The default mapping, each tiling of ``tiles`` (those whose sizes divide ``size``) and
    a search of ``budget`` candidates with the default options."""
    from workbench.rules import apply
    from workbench.search import search
    from workbench.semantics import evaluate, prepare_inputs

    prog = PROGRAMS["nbody"].program()
    args = inputs_of("nbody", size)
    _, types = prepare_inputs(prog, args)
    expected = evaluate(prog, *args)
    doc: dict = {"size": size, "flops_per_interaction": FLOPS_PER_INTERACTION, "tiled": {}}
    doc["default"] = _timed(prog, args, device, repeat, expected)
    print(_line("default mapping", size, doc["default"]["kernel_ms"]), flush=True)
    for t, items in tiles:
        if size % items or size % t or t % items:
            continue
        tiled = apply(prog, "shared-tiling", "0", *types, t=t, l=items)
        for label, expr in ((f"T={t} L={items}", tiled),
                            (f"T={t} L={items} unrolled", _unrolled(tiled, types))):
            if expr is None:
                continue
            entry = doc["tiled"][label] = _timed(expr, args, device, repeat, expected)
            print(_line(f"shared-tiling {label}", size, entry["kernel_ms"],
                        "" if entry["correct"] else entry["message"]), flush=True)
    start = time.time()
    found = search(prog, *args, budget=budget, device=device, repeat=repeat,
                   time_limit=time_limit)
    best_steps = [s["rule"] for s in found.best_record.steps] if found.best_record else []
    doc["search"] = {"evaluated": found.evaluated, "seconds": round(time.time() - start, 1),
                     "best_kernel_ms": found.best_kernel_ms, "stopped": found.stopped,
                     "tflops": tflops(size, found.best_kernel_ms), "best_steps": best_steps}
    print(_line(f"guided search ({found.evaluated})", size, found.best_kernel_ms,
                " ".join(best_steps[:2])), flush=True)
    return doc


def main(argv=None) -> dict:
    from workbench.device.opencl import find_device

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None, help="cpu, gpu, an id P:D or part of a name")
    ap.add_argument("--size", type=int, default=16384, help="bodies (default 16384)")
    ap.add_argument("--budget", type=int, default=40, help="the search's candidates")
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--time-limit", type=float, default=None, help="the search's seconds")
    args = ap.parse_args(argv)
    info, _ = find_device(args.device)
    tag = "gpu" if info.kind == "gpu" else "pocl" if info.is_pocl else info.kind
    doc = {"device": info.name, **benchmark(args.size, args.device, args.budget, args.repeat,
                                            time_limit=args.time_limit)}
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"nbody_tiles_{tag}_{args.size}.json"
    out.write_text(json.dumps(doc, indent=2, default=str) + "\n")
    print(f"written {out}")
    return doc


if __name__ == "__main__":
    main()

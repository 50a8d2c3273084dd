"""N-body (Lift's ``nbody``) with its bodies tiled through local memory (``shared-tiling``):
the default mapping, the tiled kernel at a few (T, L) (tiles of T bodies, work-groups of L
work-items), each as a loop over the tile and with that loop unrolled (``tile-unroll``), and
a guided search with its default options, each checked against the
interpreter, in milliseconds and TFLOP/s (20 flops per interaction, N² interactions). With
``--program mriqComputeQ``, MRI-Q's k-space samples tiled so (in milliseconds alone).

    python -m benchmarks.nbody_tiles --device gpu            # 16384 bodies, a few minutes
    python -m benchmarks.nbody_tiles --size 1024 --budget 8  # on PoCL
    python -m benchmarks.nbody_tiles --device gpu --program mriqComputeQ --size 32768

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


PROGRAMS_TILED = ("nbody", "mriqComputeQ")


def tflops(size: int, ms: float | None, program: str = "nbody") -> float | None:
    """N-body's rate (None for another program: no flop count is agreed for it)."""
    if not ms or program != "nbody":
        return None
    return FLOPS_PER_INTERACTION * size * size / (ms * 1e-3) / 1e12


def _line(label: str, size: int, ms: float | None, extra: str = "",
          program: str = "nbody") -> str:
    rate = tflops(size, ms, program)
    shown = f"{ms:8.4f} ms" if ms else "       –"
    shown += f"  {rate:6.2f} TFLOP/s" if rate else ""
    return f"{label:<36} {shown}  {extra}".rstrip()


def _timed(expr, args, device, repeat, expected, program: str) -> dict:
    from workbench.run import run

    r = run(expr, *args, device=device, repeat=repeat, expected=expected)
    ms = r.kernel_ms if r.correct else None
    return {"status": r.status, "correct": r.correct, "kernel_ms": ms,
            "kernel_ms_min": r.kernel_ms_min if r.correct else None,
            "tflops": tflops(len(args[0]), ms, program), "message": (r.message or "")[:300]}


def _unrolled(expr, types):
    """``expr`` completed by the default lowering with its work-items' fold over a tile
    unrolled (None where ``tile-unroll`` applies nowhere)."""
    from workbench.rules import CATALOGUE, rewrites
    from workbench.rules.lowering import lower

    low, _ = lower(expr, *types)
    sites = rewrites(low, *types, rules=[CATALOGUE["tile-unroll"]])
    return max(sites, key=lambda r: len(r.path)).result if sites else None


def benchmark(size: int, device: str | None, budget: int, repeat: int,
              tiles=TILES, time_limit: float | None = None, program: str = "nbody") -> dict:
    """The default mapping, each tiling of ``tiles`` (those the macro takes at ``size``) and
    a search of ``budget`` candidates with the default options."""
    from workbench.rules import RewriteRefused, apply
    from workbench.search import search
    from workbench.semantics import evaluate, prepare_inputs

    prog = PROGRAMS[program].program()
    args = inputs_of(program, size)
    _, types = prepare_inputs(prog, args)
    expected = evaluate(prog, *args)
    doc: dict = {"program": program, "size": size, "tiled": {},
                 "flops_per_interaction": FLOPS_PER_INTERACTION if program == "nbody" else None}
    doc["default"] = _timed(prog, args, device, repeat, expected, program)
    print(_line("default mapping", size, doc["default"]["kernel_ms"], "", program), flush=True)
    for t, items in tiles:
        try:
            tiled = apply(prog, "shared-tiling", "0", *types, t=t, l=items)
        except RewriteRefused:
            continue
        for label, expr in ((f"T={t} L={items}", tiled),
                            (f"T={t} L={items} unrolled", _unrolled(tiled, types))):
            if expr is None:
                continue
            entry = doc["tiled"][label] = _timed(expr, args, device, repeat, expected, program)
            print(_line(f"shared-tiling {label}", size, entry["kernel_ms"],
                        "" if entry["correct"] else entry["message"], program), flush=True)
    start = time.time()
    found = search(prog, *args, budget=budget, device=device, repeat=repeat,
                   time_limit=time_limit)
    best_steps = [s["rule"] for s in found.best_record.steps] if found.best_record else []
    doc["search"] = {"evaluated": found.evaluated, "seconds": round(time.time() - start, 1),
                     "best_kernel_ms": found.best_kernel_ms, "stopped": found.stopped,
                     "tflops": tflops(size, found.best_kernel_ms, program),
                     "best_steps": best_steps}
    print(_line(f"guided search ({found.evaluated})", size, found.best_kernel_ms,
                " ".join(best_steps[:2]), program), flush=True)
    return doc


def main(argv=None) -> dict:
    from workbench.device.opencl import find_device

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None, help="cpu, gpu, an id P:D or part of a name")
    ap.add_argument("--program", default="nbody", choices=PROGRAMS_TILED)
    ap.add_argument("--size", type=int, default=16384, help="bodies (default 16384)")
    ap.add_argument("--budget", type=int, default=40, help="the search's candidates")
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--time-limit", type=float, default=None, help="the search's seconds")
    args = ap.parse_args(argv)
    info, _ = find_device(args.device)
    tag = "gpu" if info.kind == "gpu" else "pocl" if info.is_pocl else info.kind
    doc = {"device": info.name, **benchmark(args.size, args.device, args.budget, args.repeat,
                                            time_limit=args.time_limit, program=args.program)}
    RESULTS.mkdir(parents=True, exist_ok=True)
    stem = "nbody_tiles" if args.program == "nbody" else f"{args.program}_tiles"
    out = RESULTS / f"{stem}_{tag}_{args.size}.json"
    out.write_text(json.dumps(doc, indent=2, default=str) + "\n")
    print(f"written {out}")
    return doc


if __name__ == "__main__":
    main()

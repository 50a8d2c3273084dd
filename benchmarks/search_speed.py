"""Search speed benchmark (SPEC 8, 9): how soon a search says something and
how many candidates it measures per minute, for the guided search of ICFP's asum, dot and
gemv (``library("blas")``), SkelCL's Gaussian blur and Lift's jacobi2d5pt, each a search of
its own with ``budget`` candidates.

    python -m benchmarks.search_speed                          # PoCL (default device), small
    python -m benchmarks.search_speed --device gpu --sizes large --budget 20
    python -m benchmarks.search_speed --options default_first=true,grids_first=true
    python -m benchmarks.search_speed --checkout ../base --json base.json   # another checkout
    python -m benchmarks.search_speed --json new.json
    python -m benchmarks.search_speed --compare base.json new.json

For each search it prints the seconds from ``search()`` being called to the first progress
callback (``first_s``), to its end (``seconds``), the candidates measured and the candidates
per minute, and, of the candidates' own records, the seconds the code generator, the build
and the whole worker spent per candidate. ``--json FILE`` writes the rows with the
candidates' expressions in order (two runs from two checkouts propose the same candidates
when they measured the same expressions: ``--compare A.json B.json``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

PROGRAMS = {
    "asum": ("blas", "asum"),
    "dot": ("blas", "dot"),
    "gemv": ("blas", "gemv"),
    "blur": ("skelcl", "gaussianBlur"),
    "jacobi2d5pt": ("lift/stencils", "jacobi2d5pt"),
}
SIZES = {
    "small": {"asum": ["[float]_4194304"], "dot": ["[float]_4194304"] * 2,
              "gemv": ["[[float]_2048]_2048", "[float]_2048", "[float]_2048", "float", "float"],
              "blur": ["[[float]_1024]_1024", "[float]_9"],
              "jacobi2d5pt": ["[[float]_1024]_1024"]},
    "large": {"asum": ["[float]_134217728"], "dot": ["[float]_134217728"] * 2,
              "gemv": ["[[float]_16384]_8192", "[float]_16384", "[float]_8192", "float",
                       "float"],
              "blur": ["[[float]_4096]_4096", "[float]_9"],
              "jacobi2d5pt": ["[[float]_4096]_4096"]},
}


def _options(text: str) -> dict:
    options = {}
    for item in filter(None, text.split(",")):
        name, _, value = item.partition("=")
        options[name] = {"true": True, "false": False}.get(value.lower(), value)
        if isinstance(options[name], str):
            options[name] = float(value) if "." in value else int(value)
    return options


def measure(name: str, types: list[str], device: str | None, budget: int, strategy: str,
            options: dict, workers: int | None) -> dict:
    """One search, timed from the call: first progress, end, per-candidate worker times."""
    from workbench.programs import library
    from workbench.search import search

    program = library(PROGRAMS[name][0])[PROGRAMS[name][1]]
    first: list[float] = []
    start = time.perf_counter()

    def progress(record):
        if not first:
            first.append(time.perf_counter() - start)

    result = search(program, *types, budget=budget, device=device, strategy=strategy,
                    options=options, progress=progress, workers=workers)
    seconds = time.perf_counter() - start
    records = result.log

    def median(field: str) -> float | None:
        values = [r.get(field) for r in records if isinstance(r.get(field), int | float)]
        return statistics.median(values) if values else None

    return {"program": name, "types": types, "first_s": first[0] if first else None,
            "seconds": seconds, "evaluated": result.evaluated,
            "per_minute": 60 * result.evaluated / seconds if seconds else None,
            "best_ms": result.best_kernel_ms, "codegen_ms": median("codegen_ms"),
            "build_ms": median("build_ms"), "worker_s": median("seconds"),
            "expressions": [r.expression for r in records]}


def _table(rows: list[dict]) -> str:
    def f(v, fmt):
        return format(v, fmt) if isinstance(v, int | float) else "-"

    lines = [f"{'program':<12} {'first_s':>8} {'seconds':>8} {'cands':>5} {'per_min':>8} "
             f"{'codegen_ms':>10} {'build_ms':>9} {'worker_s':>8} {'best_ms':>9}"]
    for r in rows:
        lines.append(f"{r['program']:<12} {f(r['first_s'], '8.2f')} {f(r['seconds'], '8.1f')} "
                     f"{r['evaluated']:>5} {f(r['per_minute'], '8.1f')} "
                     f"{f(r['codegen_ms'], '10.1f')} {f(r['build_ms'], '9.1f')} "
                     f"{f(r['worker_s'], '8.2f')} {f(r['best_ms'], '9.4f')}")
    return "\n".join(lines)


def compare(a_path: str, b_path: str) -> int:
    """Two runs side by side: speed, and whether their searches proposed the same
    candidates in the same order (their records' expressions)."""
    a, b = (json.loads(Path(p).read_text()) for p in (a_path, b_path))
    same = True
    for ra, rb in zip(a["rows"], b["rows"]):
        # the same candidates (those measured at once finish in either order)
        equal = sorted(ra["expressions"]) == sorted(rb["expressions"])
        same &= equal
        ratio = rb["per_minute"] / ra["per_minute"] if ra["per_minute"] else float("nan")
        print(f"{ra['program']:<12} first {ra['first_s'] or 0:6.2f} -> {rb['first_s'] or 0:6.2f}"
              f" s; per minute {ra['per_minute']:6.1f} -> {rb['per_minute']:6.1f} "
              f"({ratio:.2f}x); same candidates: {equal}")
    return 0 if same else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default=None, help="device spec: cpu, gpu, an id "
                        "P:D (default: the workbench's default device)")
    parser.add_argument("--sizes", choices=sorted(SIZES), default="small")
    parser.add_argument("--programs", default=",".join(PROGRAMS))
    parser.add_argument("--budget", type=int, default=20)
    parser.add_argument("--strategy", default="guided")
    parser.add_argument("--options", default="", help="strategy options, name=value,...")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--json", default=None, help="write the rows to this file")
    parser.add_argument("--checkout", default=None, help="search with the workbench of this "
                        "checkout (its root folder) instead of the one installed")
    parser.add_argument("--compare", nargs=2, metavar=("A", "B"), default=None)
    args = parser.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    if args.checkout:  # before the workbench is imported (its worker processes inherit it)
        sys.path.insert(0, str(Path(args.checkout).resolve()))
    device = args.device
    rows = []
    for name in filter(None, args.programs.split(",")):
        rows.append(measure(name, SIZES[args.sizes][name], device, args.budget, args.strategy,
                            _options(args.options), args.workers))
        print(_table(rows[-1:]).splitlines()[-1] if len(rows) > 1 else _table(rows),
              flush=True)
    if args.json:
        import workbench

        Path(args.json).write_text(json.dumps({
            "device": device, "sizes": args.sizes, "budget": args.budget,
            "checkout": str(Path(workbench.__file__).parent.parent), "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

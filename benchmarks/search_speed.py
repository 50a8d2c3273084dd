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
    python -m benchmarks.search_speed --against ../baseline --programs asum,gemv,jacobi2d5pt
    python -m benchmarks.search_speed --calibrations fresh --programs asum   # no calibration

For each search it prints the seconds from ``search()`` being called to the first progress
callback (``first_s``), to its end (``seconds``), the candidates measured and the candidates
per minute, and, of the candidates' own records, the seconds the code generator, the build
and the whole worker spent per candidate. ``--json FILE`` writes the rows with the
candidates' expressions in order (two runs from two checkouts propose the same candidates
when they measured the same expressions: ``--compare A.json B.json``).

``--against CHECKOUT`` compares this checkout with another one (the root folder of an older
worktree, ``git worktree add ../baseline COMMIT``) in one interleaved run: each search is a
process of its own, this checkout's and the other's alternating (the order swapped each
round), with the same program, sizes, budget, seed and time limit, each started from a copy
of one calibration folder measured once at the start (``--calibrations``), with the drivers'
kernel caches off (neither reuses kernels the other built); it prints each one's candidates
per minute and time to the first progress line, and the ratio of the medians over the
rounds. ``--calibrations fresh`` starts every search from an empty calibration folder (the
first search on a device), ``kept`` from the user's own. The other checkout needs only its
``workbench`` package (this checkout's benchmark measures both), e.g. on a GPU host in about
seven minutes::

    git archive ba85175 workbench | (mkdir -p baseline && tar -x -C baseline)
    python -m benchmarks.search_speed --against baseline --device gpu --sizes large \\
        --programs asum,gemv,jacobi2d5pt --budget 20 --time-limit 20 --rounds 2
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
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
    "tiny": {"asum": ["[float]_65536"], "dot": ["[float]_65536"] * 2,
             "gemv": ["[[float]_256]_256", "[float]_256", "[float]_256", "float", "float"],
             "blur": ["[[float]_256]_256", "[float]_9"],
             "jacobi2d5pt": ["[[float]_256]_256"]},
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


def strategy_options(text: str) -> dict:
    """Strategy options written as name=value,... (true/false, numbers)."""
    options = {}
    for item in filter(None, text.split(",")):
        name, _, value = item.partition("=")
        options[name] = {"true": True, "false": False}.get(value.lower(), value)
        if isinstance(options[name], str):
            options[name] = float(value) if "." in value else int(value)
    return options


def measure(name: str, types: list[str], device: str | None, budget: int, strategy: str,
            options: dict, workers: int | None, seed: int = 0,
            time_limit: float | None = None) -> dict:
    """One search, timed from the call: first progress, end, per-candidate worker times."""
    from workbench.programs import library
    from workbench.search import search

    program = library(PROGRAMS[name][0])[PROGRAMS[name][1]]
    first: list[float] = []
    started = time.time()
    start = time.perf_counter()

    def progress(record):
        if not first:
            first.append(time.perf_counter() - start)

    result = search(program, *types, budget=budget, device=device, strategy=strategy,
                    options=options, progress=progress, workers=workers, seed=seed,
                    time_limit=time_limit)
    seconds = time.perf_counter() - start
    records = result.log

    def median(field: str) -> float | None:
        values = [r.get(field) for r in records if isinstance(r.get(field), int | float)]
        return statistics.median(values) if values else None

    return {"program": name, "types": types, "started": started,
            "first_s": first[0] if first else None,
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


# --- two checkouts, interleaved ---------------------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent  # this checkout
NO_KERNEL_CACHES = {"POCL_KERNEL_CACHE": "0", "CUDA_CACHE_DISABLE": "1"}


def one_search(checkout: Path, name: str, args, calibrations: str | None, out: Path) -> dict:
    """One program searched in a process of its own with the workbench of ``checkout`` (this
    benchmark's own code measures it), its calibration folder ``calibrations`` (None: the
    user's), the drivers' kernel caches off; its row."""
    env = dict(os.environ, PYTHONPATH=_path(checkout, ROOT),
               **NO_KERNEL_CACHES)
    if calibrations is not None:
        env["WORKBENCH_CALIBRATIONS"] = calibrations
    command = [sys.executable, "-m", "benchmarks.search_speed", "--checkout", str(checkout),
               "--programs", name, "--sizes", args.sizes, "--budget", str(args.budget),
               "--strategy", args.strategy, "--seed", str(args.seed), "--json", str(out)]
    command += ["--device", args.device] if args.device else []
    command += ["--time-limit", str(args.time_limit)] if args.time_limit else []
    command += ["--options", args.options] if args.options else []
    command += ["--workers", str(args.workers)] if args.workers is not None else []
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the search of {name} with {checkout} failed:\n{done.stderr[-2000:]}")
    [row] = json.loads(out.read_text())["rows"]
    return row


def _path(*first: Path) -> str:
    """A PYTHONPATH with ``first`` before the one this process was given (where its
    dependencies may be)."""
    given = os.environ.get("PYTHONPATH")
    return os.pathsep.join([str(p) for p in first] + ([given] if given else []))


def calibration_folder(kind: str, device: str | None, scratch: Path) -> Path | None:
    """The calibration folder each search starts from a copy of: measured once now with this
    checkout (``snapshot``), an empty one (``fresh``), or None (``kept``: the user's own,
    which each search then adds to)."""
    folder = scratch / "calibrations"
    folder.mkdir()
    if kind == "snapshot":
        env = dict(os.environ, PYTHONPATH=_path(ROOT), WORKBENCH_CALIBRATIONS=str(folder))
        subprocess.run([sys.executable, "-m", "workbench", "calibrate"] +
                       (["--device", device] if device else []), env=env, cwd=ROOT,
                       check=True, capture_output=True)
    return None if kind == "kept" else folder


def interleaved(args) -> dict:
    """This checkout and ``args.against``, each program searched ``args.rounds`` times by
    each, alternating (the order swapped each round); the rows by checkout and program."""
    checkouts = {"new": ROOT, "old": Path(args.against).resolve()}
    rows: dict = {which: {} for which in checkouts}
    load = [_load()]  # the host's load averages at the start and at the end of the run
    with tempfile.TemporaryDirectory(prefix="search-speed-") as scratch:
        snapshot = calibration_folder(args.calibrations, args.device, Path(scratch))
        for round_ in range(args.rounds):
            for name in filter(None, args.programs.split(",")):
                order = list(checkouts) if round_ % 2 == 0 else list(reversed(checkouts))
                for which in order:
                    start_from = None
                    if snapshot is not None:  # each search from the same calibration
                        start_from = Path(scratch) / f"cal-{which}-{name}-{round_}"
                        shutil.copytree(snapshot, start_from)
                    row = one_search(checkouts[which], name, args,
                                     start_from and str(start_from),
                                     Path(scratch) / f"{which}-{name}-{round_}.json")
                    rows[which].setdefault(name, []).append(row)
                    print(f"round {round_ + 1} {which:<3} {_table([row]).splitlines()[-1]}",
                          flush=True)
    load.append(_load())
    return {"device": args.device, "load_averages": load, "sizes": args.sizes,
            "budget": args.budget, "seed": args.seed, "time_limit": args.time_limit,
            "rounds": args.rounds, "calibrations": args.calibrations,
            "checkouts": {k: str(v) for k, v in checkouts.items()}, "rows": rows}


def _load() -> list[float] | None:
    """The host's load averages over 1, 5 and 15 minutes (None where it has none): other
    processes' work slows both checkouts' searches, and their ratio is what compares."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def interleaved_table(doc: dict) -> str:
    """Candidates per minute and seconds to the first progress line, the median over the
    rounds of each checkout, and new over old."""
    def median(rows: list[dict], field: str) -> float | None:
        values = [r[field] for r in rows if isinstance(r.get(field), int | float)]
        return statistics.median(values) if values else None

    lines = [f"{'program':<12} {'old/min':>8} {'new/min':>8} {'new/old':>7} "
             f"{'old first_s':>11} {'new first_s':>11}  per minute of each round (old; new)"]
    for name, old in doc["rows"]["old"].items():
        new = doc["rows"]["new"][name]
        a, b = median(old, "per_minute"), median(new, "per_minute")
        fa, fb = median(old, "first_s"), median(new, "first_s")
        rounds = (", ".join(f"{r['per_minute']:.1f}" for r in old) + "; " +
                  ", ".join(f"{r['per_minute']:.1f}" for r in new))
        lines.append(f"{name:<12} {a:8.1f} {b:8.1f} {b / a if a else float('nan'):7.2f} "
                     f"{fa if fa is not None else float('nan'):11.2f} "
                     f"{fb if fb is not None else float('nan'):11.2f}  {rounds}")
    return "\n".join(lines)


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
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--time-limit", type=float, default=None,
                        help="seconds each search may take (it ends with what it found)")
    parser.add_argument("--against", default=None, help="another checkout's root folder: "
                        "both searched alternately, candidates per minute of each")
    parser.add_argument("--rounds", type=int, default=2, help="with --against: searches of "
                        "each program by each checkout")
    parser.add_argument("--calibrations", choices=("snapshot", "fresh", "kept"),
                        default="snapshot", help="the calibration folder each search starts "
                        "from (see above; without --against: fresh or kept, the default)")
    args = parser.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    if args.against:
        doc = interleaved(args)
        print(interleaved_table(doc))
        if args.json:
            Path(args.json).write_text(json.dumps(doc, indent=1))
        return 0
    if args.calibrations == "fresh":  # before the workbench is imported
        os.environ["WORKBENCH_CALIBRATIONS"] = tempfile.mkdtemp(prefix="calibrations-")
    if args.checkout:  # before the workbench is imported (its worker processes inherit it)
        sys.path.insert(0, str(Path(args.checkout).resolve()))
    device = args.device
    rows = []
    for name in filter(None, args.programs.split(",")):
        rows.append(measure(name, SIZES[args.sizes][name], device, args.budget, args.strategy,
                            strategy_options(args.options), args.workers, args.seed,
                            args.time_limit))
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

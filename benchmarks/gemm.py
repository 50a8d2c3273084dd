"""Matrix multiplication benchmark (CASES 2016; SPEC 9): sgemm derived by the CASES
exploration (``strategy="cases"``) on one device, its best kernels timed again side by side
with the vendor library in the same run — NumPy/OpenBLAS on the CPU, cuBLAS through CuPy
(FP32, no tensor cores) on an NVIDIA GPU — and the phase counts of the exploration next to
the paper's.

    python -m benchmarks.gemm                                        # PoCL: 1024 and 2048
    python -m benchmarks.gemm --device gpu --sizes 1024,2048,4096    # the H100

Prints a table; writes benchmarks/results/gemm_<device>.json and .md, and each size's search
log (benchmarks/results/logs/gemm_<device>_<n>.jsonl.gz: replayable, plottable anywhere).
The winners of the other devices' results files found there are timed too, on this device
(CASES 2016 Table 2: a kernel tuned for one device run on another).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from benchmarks.search import device_tag
from benchmarks.timing import Spread, cuda_spread, host_spread, pooled, with_range
from workbench.ceilings import ceilings
from workbench.device.opencl import find_device
from workbench.programs import library
from workbench.search import StopSearch, read, search
from workbench.search.cases import DEFAULTS

ROOT = Path(__file__).parent.parent
RESULTS = Path(__file__).parent / "results"
# the hand-written 64×64-tile, 4×4-register OpenCL sgemm on the H100 (4096³), and the
# packed, register-blocked one on PoCL 3.1 on the CI machine kind (2 cores of an AMD EPYC
# Zen 4; 1024³, 2048³): the numbers to beat besides the vendor libraries
# (../shared/notes/device_performance_facts.md, re-measured 2026-11-25)
HAND_WRITTEN = {"gpu": {4096: 14.5e3}, "pocl": {1024: 220.0, 2048: 217.0}}


Shape = tuple[int, int, int]  # M, K, N: A is M×K, B is K×N


def shape_of(text: str | int) -> Shape:
    """``"1024"`` (square) or ``"4096x1024x2048"`` (M×K×N)."""
    parts = [int(x) for x in str(text).lower().replace("×", "x").split("x")]
    if len(parts) == 1:
        return (parts[0],) * 3
    if len(parts) != 3:
        raise ValueError(f"a size is n or MxKxN, not {text!r}")
    return tuple(parts)


def shape_text(shape: Shape) -> str:
    """The key of a shape in the results: ``"1024"`` when square, else ``"MxKxN"``."""
    return str(shape[0]) if len(set(shape)) == 1 else "x".join(map(str, shape))


def gflops(shape: Shape | int, ms: float | None) -> float | None:
    m, k, n = shape_of(shape) if isinstance(shape, int) else shape
    return None if not ms else 2 * m * k * n / (ms * 1e6)


def numpy_peer(shape: Shape, rounds: int) -> Spread:
    """NumPy's matmul (OpenBLAS here): the median and range of ``rounds`` runs, in ms."""
    m, k, n = shape
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    return host_spread(lambda: a @ b, rounds, HOST_WARMUP)


# OpenBLAS's threads start and warm up in NumPy's first calls of a matmul
HOST_WARMUP = 3


def cublas_peer(shape: Shape, rounds: int) -> Spread | None:
    """cuBLAS sgemm through CuPy (FP32: TF32 off), timed with CUDA events: the median and
    range of ``rounds`` runs, in ms."""
    os.environ.setdefault("CUPY_TF32", "0")
    try:
        import cupy as cp
    except Exception:
        return None
    m, k, n = shape
    rng = cp.random.default_rng(0)
    a = rng.uniform(-1, 1, (m, k), dtype=cp.float32)
    b = rng.uniform(-1, 1, (k, n), dtype=cp.float32)
    c = cp.empty((m, n), dtype=cp.float32)
    return cuda_spread(lambda: cp.matmul(a, b, out=c), rounds)


def inputs(shape: Shape):
    from workbench.inputs import random_inputs
    from workbench.notation import parse_type

    m, k, n = shape
    types = [parse_type(f"[[float]_{k}]_{m}"), parse_type(f"[[float]_{n}]_{k}")]
    return random_inputs(types, {}, 0)


def retime(n: Shape, expressions: list[str], peer, device: str | None, rounds: int
           ) -> tuple[list[Spread | None], Spread | None]:
    """The kernels timed again with the peer, interleaved round after round (a device's
    speed drifts), each round 10 runs: the median over the rounds' medians with the range
    of all the runs (``timing.pooled``), in ms; None for what never ran."""
    from workbench import evaluate
    from workbench.notation import parse
    from workbench.run import run

    a, b = inputs(n)
    expected = evaluate(library("mm")["mm"], a, b)  # the interpreter's, computed once here
    exprs = [parse(e) for e in expressions]
    samples: list[list[Spread]] = [[] for _ in exprs]
    peer_samples = []
    for _ in range(rounds):
        for i, e in enumerate(exprs):
            r = run(e, a, b, device=device, repeat=10, expected=expected)
            if r.correct and r.kernel_ms is not None:
                samples[i].append(Spread(r.kernel_ms, r.kernel_ms_min, r.kernel_ms_max))
        timed = peer(n, 10)
        if timed is not None:
            peer_samples.append(timed)
    return [pooled(s) for s in samples], pooled(peer_samples)


def _median(t: Spread | None) -> float | None:
    return t.median_ms if t else None


def _range(t: Spread | None) -> list[float] | None:
    return t.range_ms if t else None


def explore_and_search(n: Shape, tag: str, kind: str, device: str | None, budget: int,
                       workers: int | None, minutes: float, log: Path) -> dict:
    deadline = time.time() + minutes * 60

    def progress(record):
        if time.time() > deadline:
            raise StopSearch(f"the benchmark's time for {shape_text(n)} ran out")

    a, b = inputs(n)
    start = time.time()
    # the strategy's own defaults for the device's kind (cases.DEFAULTS)
    result = search(library("mm")["mm"], a, b, strategy="cases", budget=budget, device=device,
                    log=log, workers=workers, timeout=300, repeat=10, progress=progress)
    seconds = time.time() - start
    archived = log.with_suffix(".jsonl.gz")
    archived.write_bytes(gzip.compress(log.read_bytes()))
    log.unlink()
    records = read(archived)
    ok = sorted((r for r in records if r.get("correct") and r.get("kernel_ms")),
                key=lambda r: r["kernel_ms"])
    return {"n": n, "seconds": seconds, "evaluated": len(records),
            "failures_by_kind": result.failures_by_kind, "stopped": result.stopped,
            "phases": result.details.get("phases"), "pruned": result.details.get("pruned"),
            "limits": result.details.get("limits"),
            "leading": [{"expression": r["expression"], "kernel_ms": r["kernel_ms"],
                         "label": r["details"]["label"],
                         "parameters": r["details"]["parameters"], "steps": r["steps"]}
                        for r in ok[:3]],
            "log": str(archived.relative_to(ROOT))}


def portability(doc: dict, tag: str, device: str | None, peer, rounds: int) -> list[dict]:
    """The winners recorded for the other devices (their results files here), run on this
    device at the same size, with this device's winner."""
    rows = []
    for other in sorted(RESULTS.glob("gemm_*.json")):
        if other.stem == f"gemm_{tag}":
            continue
        theirs = json.loads(other.read_text())
        for n_text, s in theirs.get("sizes", {}).items():
            mine = doc["sizes"].get(n_text)
            if not (mine and s.get("winner") and mine.get("winner")):
                continue
            timed, _ = retime(shape_of(n_text), [mine["winner"], s["winner"]], peer, device,
                              rounds)
            times = [_median(t) for t in timed]
            rows.append({"n": n_text, "tuned for": theirs["device"], "run on": doc["device"],
                         "ms": times[1], "own winner ms": times[0],
                         "range_ms": _range(timed[1]), "own winner range_ms": _range(timed[0]),
                         "relative": times[0] / times[1] if times[0] and times[1] else None})
    return rows


def table(doc: dict) -> str:
    peer = doc["peer"]
    lines = [f"# sgemm derived by the CASES 2016 exploration: {doc['device']}",
             "", f"{doc['platform']}, driver {doc['driver']}; written by "
             f"`python -m benchmarks.gemm`. Kernel times from device events (median of 10 "
             f"runs, the median over {doc['rounds']} interleaved rounds, [min–max] of all "
             f"the runs), transfers excluded; {peer} timed in the same rounds.", "",
             f"| M×K×N | evaluated | best found (ms) | GFLOP/s | of peak | {peer} (ms) | "
             f"{peer} GFLOP/s | {peer} of peak | ratio | hand-written GFLOP/s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    peak = doc.get("peak_gflops")
    for n_text, s in doc["sizes"].items():
        shape = shape_of(n_text)
        hand = HAND_WRITTEN.get(doc["tag"], {}).get(shape[0]) if len(set(shape)) == 1 else None
        ratio = s["peer_ms"] / s["best_ms"] if s.get("peer_ms") and s.get("best_ms") else None
        ours, theirs = gflops(shape, s["best_ms"]), gflops(shape, s["peer_ms"])
        lines.append(f"| {'×'.join(map(str, shape))} | {s['evaluated']} | "
                     f"{with_range(s['best_ms'], s.get('best_range_ms'))} | "
                     f"{fmt(ours, 1)} | {_percent(ours, peak)} | "
                     f"{with_range(s['peer_ms'], s.get('peer_range_ms'))} | "
                     f"{fmt(theirs, 1)} | {_percent(theirs, peak)} | "
                     f"{'–' if ratio is None else f'{ratio:.2f}x'} | "
                     f"{'–' if hand is None else f'{hand:.0f}'} |")
    lines += ["", "ratio: the library's time over the derived kernel's (1.00x: as fast). "
              "of peak: over the device's arithmetic ceiling, measured in the same run "
              f"(`workbench.ceilings`: {fmt(peak, 0)} GFLOP/s of float32 fused multiply-adds).",
              ""]
    first = next(iter(doc["sizes"].values()), None)
    if first and first.get("phases"):
        lines += ["## Exploration (candidates after each phase)", "",
                  "| phase | count | CASES 2016 | what |", "|---|---|---|---|"]
        for p in first["phases"]:
            lines.append(f"| {p['phase']} | {p['count']} | {p['paper'] or '–'} | {p['what']} |")
        lines += ["", "pruned in phase 3: " + ", ".join(
            f"{k}: {v}" for k, v in (first.get("pruned") or {}).items()), ""]
    for n_text, s in doc["sizes"].items():
        if s.get("winner_label"):
            lines += [f"winner at {n_text}: {s['winner_label']}, parameters "
                      f"{s['winner_parameters']}", "", f"    {s['winner']}", ""]
    if doc.get("portability"):
        lines += ["## Kernels tuned for another device, run here (CASES 2016 Table 2)", "",
                  "| n | tuned for | ms here | this device's winner (ms) | relative |",
                  "|---|---|---|---|---|"]
        for row in doc["portability"]:
            rel = row["relative"]
            lines.append(f"| {row['n']} | {row['tuned for']} | "
                         f"{with_range(row['ms'], row.get('range_ms'))} | "
                         f"{with_range(row['own winner ms'], row.get('own winner range_ms'))} | "
                         f"{'–' if rel is None else f'{100 * rel:.1f} %'} |")
        lines.append("")
    return "\n".join(lines)


def fmt(x: float | None, digits: int = 4) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def _percent(x: float | None, of: float | None) -> str:
    return "–" if not x or not of else f"{100 * x / of:.0f} %"


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--sizes", default=None,
                        help="comma-separated n or MxKxN (default: 512,1024,2048,2048x512x1024 "
                             "on a CPU; 1024,2048,4096,4096x1024x2048 on a GPU)")
    parser.add_argument("--budget", type=int, default=None,
                        help="candidates measured per size (default 60 on a GPU, 48 on a CPU)")
    parser.add_argument("--minutes", type=float, default=None,
                        help="minutes for each size's search (default: 2 on a GPU, 8 on a CPU)")
    parser.add_argument("--rounds", type=int, default=None,
                        help="interleaved rounds of the final timing (default 3 on a GPU, 5)")
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args(argv)

    info, _ = find_device(args.device)
    kind = "gpu" if info.kind == "gpu" else "cpu"
    tag = device_tag(info)
    sizes = [shape_of(x) for x in (args.sizes or (
        "1024,2048,4096,4096x1024x2048" if kind == "gpu" else "512,1024,2048,2048x512x1024")
    ).split(",")]
    budget = args.budget or (60 if kind == "gpu" else 48)
    minutes = args.minutes or (2.0 if kind == "gpu" else 8.0)
    args.rounds = args.rounds or (3 if kind == "gpu" else 5)
    peer_name, peer = ("cuBLAS", cublas_peer) if kind == "gpu" else ("NumPy", numpy_peer)
    logs = RESULTS / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    doc = {"device": info.name, "platform": info.platform, "driver": info.driver,
           "machine": platform.machine(), "tag": tag, "peer": peer_name,
           "budget": budget, "rounds": args.rounds, "options": DEFAULTS[kind],
           "peak_gflops": ceilings(args.device).gflop_per_s, "sizes": {}}
    out = RESULTS / f"gemm_{tag}.json"
    print(f"device: {info.name} ({info.platform}); cases, budget {budget} per size")
    print(f"{'M×K×N':>14} {'evaluated':>9} {'best ms':>10} {'GFLOP/s':>9} {peer_name + ' ms':>12} "
          f"{'GFLOP/s':>9} {'ratio':>6}")
    for n in sizes:
        found = explore_and_search(n, tag, kind, args.device, budget, args.workers, minutes,
                                   logs / f"gemm_{tag}_{shape_text(n)}.jsonl")
        leading = found["leading"]
        timed, peer_timed = retime(n, [x["expression"] for x in leading], peer, args.device,
                                   args.rounds)
        times, peer_ms = [_median(t) for t in timed], _median(peer_timed)
        best_i = min((i for i, t in enumerate(times) if t), key=lambda i: times[i],
                     default=None)
        entry = {**found, "retimed_ms": times, "retimed_range_ms": [_range(t) for t in timed],
                 "peer_ms": peer_ms, "peer_range_ms": _range(peer_timed),
                 "best_ms": times[best_i] if best_i is not None else None,
                 "best_range_ms": _range(timed[best_i]) if best_i is not None else None,
                 "winner": leading[best_i]["expression"] if best_i is not None else None,
                 "winner_label": leading[best_i]["label"] if best_i is not None else None,
                 "winner_parameters": leading[best_i]["parameters"]
                 if best_i is not None else None}
        doc["sizes"][shape_text(n)] = entry
        best = entry["best_ms"]
        ratio = f"{peer_ms / best:.2f}" if peer_ms and best else "–"
        print(f"{shape_text(n):>14} {found['evaluated']:>9} {fmt(best):>10} "
              f"{fmt(gflops(n, best), 1):>9} {fmt(peer_ms):>12} {fmt(gflops(n, peer_ms), 1):>9} "
              f"{ratio:>6}", flush=True)
        out.write_text(json.dumps(doc, indent=2) + "\n")  # a cut-off run keeps these
    doc["portability"] = portability(doc, tag, args.device, peer, max(1, args.rounds // 2))
    out.write_text(json.dumps(doc, indent=2) + "\n")
    out.with_suffix(".md").write_text(table(doc))
    print(f"wrote {out} and {out.with_suffix('.md')}")
    return doc


if __name__ == "__main__":
    main()

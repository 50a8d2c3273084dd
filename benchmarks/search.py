"""Search benchmark (SPEC 9; ICFP 2015 Sect. 8, Figs. 12-15): searches for the six programs
of ICFP Fig. 13 (scal, asum, dot, gemv, BlackScholes, md) on one device; the best kernel of
the first 40 candidates against the best of the whole run; and the peers measured in the
same run: NumPy/OpenBLAS on a CPU, cuBLAS and CuPy on an NVIDIA GPU, and on both the
device's bandwidth ceiling (a STREAM-like copy of as many bytes as the program moves).

    python -m benchmarks.search                     # PoCL, small sizes, guided, budget 400
    python -m benchmarks.search --sizes large       # 2^24, 2^26, gemv 4096², BlackScholes, md
    python -m benchmarks.search --device gpu --sizes large --programs asum --size-index 1 \\
        --deadline 540                              # asum at 128M on the GPU, within 10 min

Prints a table; writes benchmarks/results/search_<device>_<sizes>.json (and .md; runs of
other programs or sizes with the same device, strategy and budget are gathered in the same
file), one log per program and size (benchmarks/results/logs/), which can be replayed and
plotted anywhere, and its efficiency curve (benchmarks/results/plots/; ``--plots-only
RESULTS_JSON`` draws them again).
"""

from __future__ import annotations

import argparse
import gzip
import json
import platform
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from benchmarks.timing import Spread, cuda_spread, host_spread, pooled, with_range
from workbench.device.opencl import find_device
from workbench.programs import library
from workbench.search import read, search

ROOT = Path(__file__).parent.parent
RESULTS = Path(__file__).parent / "results"

PROGRAMS = ("scal", "asum", "dot", "gemv", "blackScholes", "md")
LIBRARY = {"scal": "blas", "asum": "blas", "dot": "blas", "gemv": "blas",
           "blackScholes": "blackscholes", "md": "md"}

_SMALL = {"scal": [{"N": 1 << 16}], "asum": [{"N": 1 << 16}], "dot": [{"N": 1 << 16}],
          "gemv": [{"M": 256, "N": 256}], "blackScholes": [{"N": 1 << 16}],
          "md": [{"N": 4096, "K": 32}]}
_PAPER = {"scal": [{"N": 1 << 24}], "asum": [{"N": 1 << 24}], "dot": [{"N": 1 << 24}],
          "gemv": [{"M": 4096, "N": 4096}], "blackScholes": [{"N": 1 << 22}],
          "md": [{"N": 1 << 16, "K": 64}]}
# The sizes that matter (ICFP Sect. 8): vectors of 2^24 and 2^26 floats on a CPU, 16M and
# 128M on a GPU; gemv 4096² (and 8192×16384 on a GPU); BlackScholes and md at one size,
# the same on both kinds of device, so that each device's winner runs on the other.
_LARGE_CPU = {"scal": [{"N": 1 << 24}, {"N": 1 << 26}], "asum": [{"N": 1 << 24}, {"N": 1 << 26}],
              "dot": [{"N": 1 << 24}, {"N": 1 << 26}], "gemv": [{"M": 4096, "N": 4096}],
              "blackScholes": [{"N": 1 << 22}], "md": [{"N": 1 << 16, "K": 64}]}
_LARGE_GPU = {**_LARGE_CPU,
              "scal": [{"N": 1 << 24}, {"N": 1 << 27}], "asum": [{"N": 1 << 24}, {"N": 1 << 27}],
              "dot": [{"N": 1 << 24}, {"N": 1 << 27}],
              "gemv": [{"M": 4096, "N": 4096}, {"M": 8192, "N": 16384}]}
SIZES = {"small": {"cpu": _SMALL, "gpu": _SMALL}, "paper": {"cpu": _PAPER, "gpu": _PAPER},
         "large": {"cpu": _LARGE_CPU, "gpu": _LARGE_GPU}}


def sizes_of(sizes: str, kind: str, name: str) -> list[dict]:
    return SIZES[sizes]["gpu" if kind == "gpu" else "cpu"][name]


def size_text(s: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in s.items())


def entry_key(name: str, s: dict) -> str:
    return f"{name} {size_text(s)}"


def entry_program(key: str, p: dict) -> str:
    """The program of a results entry: its ``program``, or the first word of its key
    (``entry_key``; entries of files written before they carried the field)."""
    return p.get("program", key.split()[0])


def program(name: str):
    return library(LIBRARY[name])[name]


def types_of(name: str, s: dict) -> list[str]:
    n = s["N"]
    if name == "gemv":
        m = s["M"]
        return [f"[[float]_{n}]_{m}", f"[float]_{n}", f"[float]_{m}", "float", "float"]
    if name == "md":
        return [f"[(float, float, float)]_{n}", f"[[int]_{s['K']}]_{n}", "float"]
    return {"scal": ["float", f"[float]_{n}"], "asum": [f"[float]_{n}"],
            "dot": [f"[float]_{n}", f"[float]_{n}"], "blackScholes": [f"[float]_{n}"]}[name]


def bytes_moved(name: str, s: dict) -> int:
    """Bytes a program must read and write at least (its inputs and its output)."""
    n = s["N"]
    return {"scal": 8 * n, "asum": 4 * n, "dot": 8 * n,
            "gemv": 4 * s.get("M", 1) * n + 4 * n + 8 * s.get("M", 1),
            "blackScholes": 12 * n, "md": 24 * n + 4 * n * s.get("K", 1)}[name]


def inputs_of(name: str, s: dict) -> list:
    """The inputs the kernels and the peers run on (the program's ranges; seed 0)."""
    from workbench.domain import ranges_of
    from workbench.inputs import random_inputs
    from workbench.notation import parse_type

    return random_inputs([parse_type(t) for t in types_of(name, s)], s, 0,
                         ranges_of(program(name)))


def typed_inputs_of(name: str, s: dict) -> list:
    """The inputs as a search types them (md's array of tuples, given as a tuple of arrays):
    what its candidates, and the kernels timed again, run on."""
    from workbench.notation import parse_type
    from workbench.semantics import typed_input

    return [typed_input(v, parse_type(t)) for v, t in zip(inputs_of(name, s),
                                                         types_of(name, s))]


# --- the peers -------------------------------------------------------------------------------

def black_scholes(xp, r):
    """ICFP Fig. 13's BlackScholes (compCallPut of blackscholes.lift) on arrays of module xp."""
    s, k, t = 10 + 90 * r, 50 + 50 * r, 1 + 9 * r
    rate, v = 0.01 + 0.04 * r, 0.01 + 0.09 * r

    def cnd(d):
        kk = 1 / (1 + 0.2316419 * xp.abs(d))
        poly = kk * (0.31938153 + kk * (-0.356563782 + kk * (1.781477937 + kk * (
            -1.821255978 + kk * 1.330274429))))
        w = 0.3989422804 * xp.exp(-0.5 * d * d) * poly
        return xp.where(d > 0, 1 - w, w)

    d1 = (xp.log(s / k) + (rate + 0.5 * v * v) * t) / (v * xp.sqrt(t))
    d2 = d1 - v * xp.sqrt(t)
    discount = k * xp.exp(-rate * t)
    return s * cnd(d1) - discount * cnd(d2), discount * (1 - cnd(d2)) - s * (1 - cnd(d1))


def molecular_dynamics(xp, x, y, z, nbhs, t):
    """md.lift's force on each particle: a Lennard-Jones sum over its neighbours."""
    dx, dy, dz = x[:, None] - x[nbhs], y[:, None] - y[nbhs], z[:, None] - z[nbhs]
    r2 = dx * dx + dy * dy + dz * dz
    inv = 1 / xp.where(r2 > 0, r2, 1)
    coef = inv * inv * inv * (1.5 * inv * inv * inv - 2) * inv
    near = (r2 > 0) & (r2 < t)
    return tuple(xp.where(near, d * coef, 0).sum(axis=1) for d in (dx, dy, dz))


def numpy_peers(name: str, s: dict) -> dict[str, Callable[[], Spread]]:
    """NumPy (OpenBLAS for dot and gemv) on the kernels' inputs, out of place where NumPy
    allows it without allocating: each peer's timer gives the median and range of its
    calls in ms."""
    call, repeat = _numpy_call(name, inputs_of(name, s))
    return {"NumPy": lambda: host_spread(call, repeat)}


def _numpy_call(name: str, args: list) -> tuple[Callable[[], object], int]:
    """NumPy's computation of the program on its inputs, and how often to time it."""
    if name == "scal":
        a, x = args
        out = np.empty_like(x)
        return (lambda: np.multiply(x, a, out=out)), 20
    if name == "asum":
        return (lambda: np.abs(args[0]).sum()), 20
    if name == "dot":
        return (lambda: np.dot(args[0], args[1])), 20
    if name == "gemv":
        a, x, y, alpha, beta = args
        return (lambda: alpha * (a @ x) + beta * y), 20
    if name == "blackScholes":
        return (lambda: black_scholes(np, args[0])), 5
    (x, y, z), nbhs, t = args
    return (lambda: molecular_dynamics(np, x, y, z, nbhs, t)), 5


def cupy_peers(name: str, s: dict) -> dict[str, Callable[[], Spread]]:
    """cuBLAS through CuPy for the BLAS (CuPy fused element-wise code for BlackScholes and
    md), timed with CUDA events like the kernels: each timer gives the median and range of
    20 calls."""
    try:
        import cupy as cp
        from cupy import cublas
    except Exception:
        return {}

    def timed(fn):
        return lambda: cuda_spread(fn, 20)

    args = [cp.asarray(a) if isinstance(a, np.ndarray) else
            tuple(cp.asarray(p) for p in a) if isinstance(a, tuple) else a
            for a in inputs_of(name, s)]
    if name == "gemv":
        a, x, y, alpha, beta = args
        return {"cuBLAS": timed(lambda: cublas.gemv("N", float(alpha), a, x, float(beta),
                                                    y.copy()))}
    if name == "scal":
        return {"cuBLAS": timed(lambda: cublas.scal(float(args[0]), args[1]))}
    if name == "asum":
        return {"cuBLAS": timed(lambda: cublas.asum(args[0]))}
    if name == "dot":
        return {"cuBLAS": timed(lambda: cublas.dot(args[0], args[1]))}
    if name == "blackScholes":
        def fusable(r):  # CuPy names the fused kernel after the function: not a lambda
            return black_scholes(cp, r)

        try:
            fused = cp.fuse(fusable)
            fused(args[0])  # fuse compiles at the first call
            return {"CuPy (fused)": timed(lambda: fused(args[0]))}
        except Exception:  # a CuPy whose fuse cannot take it: CuPy's element-wise kernels
            return {"CuPy": timed(lambda: black_scholes(cp, args[0]))}
    (x, y, z), nbhs, t = args
    return {"CuPy": timed(lambda: molecular_dynamics(cp, x, y, z, nbhs, float(t)))}


# --- the bandwidth ceiling ----------------------------------------------------------------------

COPY_KERNEL = """
kernel void stream_copy(global const float16 *restrict xs, global float16 *restrict ys) {{
    int start = get_global_id(0) * {chunk};
    int end = min(start + {chunk}, {n});
    for (int i = start; i < end; i++) ys[i] = xs[i];
}}
"""


def ceilings(name: str, s: dict, kind: str) -> dict[str, Spread]:
    """The copy ceiling of a program: a copy moving as many bytes as it must."""
    return copy_ceilings(bytes_moved(name, s), kind, DEVICE)


def copy_ceilings(nbytes: int, kind: str, device: str | None, repeat: int = 20
                  ) -> dict[str, Spread]:
    """A STREAM-like copy of ``nbytes`` (half read, half written): on the OpenCL device
    itself (float16 vectors: few work-items each copying a contiguous chunk on a CPU, one
    vector each on a GPU) and by NumPy (CuPy on a GPU); the median and range of ``repeat``
    runs."""
    from workbench.runtime import Launch, run_kernels

    n = max(16, nbytes // 8 // 16 * 16)  # floats copied
    xs = np.random.default_rng(0).uniform(-1, 1, n).astype(np.float32)
    vectors = n // 16
    items = vectors if kind == "gpu" else 64
    chunk = -(-vectors // items)
    outcome = run_kernels(COPY_KERNEL.format(n=vectors, chunk=chunk),
                          [Launch("stream_copy", (items,), None, ("xs", "ys"))], {"xs": xs},
                          {"ys": ((n,), np.float32)}, device=device, repeat=repeat)
    out = {}
    if outcome.ok:
        k = outcome.kernel
        out["copy (OpenCL)"] = Spread(k.median_ms, k.min_ms, k.max_ms)
    if kind == "gpu":
        try:
            import cupy as cp

            gx, gy = cp.asarray(xs), cp.empty(n, dtype=cp.float32)
            out["copy (CuPy)"] = cuda_spread(lambda: cp.copyto(gy, gx), repeat)
        except Exception:
            pass
    else:
        ys = np.empty_like(xs)
        out["copy (NumPy)"] = host_spread(lambda: np.copyto(ys, xs), repeat)
    return out


def _finite(x: float) -> float | None:
    return None if not np.isfinite(x) else float(x)


def retime(name: str, s: dict, records: list[dict], peers: dict[str, Callable[[], Spread]]
           | None = None, rounds: int = 10, repeat: int = 20
           ) -> tuple[list[Spread | None], dict[str, Spread]]:
    """The kernels of ``records`` and the ``peers`` timed again, one at a time and
    interleaved over ``rounds``, each round ``repeat`` runs; per kernel and per peer the
    median over the rounds' medians with the range of all their runs (``timing.pooled``;
    None for a kernel that never ran correctly). A device's speed drifts over seconds (on a
    shared machine, its memory bandwidth by up to a half), so a peer timed minutes apart
    from a kernel is no fair peer; and the times a search logs were taken while other
    candidates built or ran beside them."""
    from workbench.notation import parse
    from workbench.notation.program import user_functions, user_functions_text
    from workbench.run import run
    from workbench.semantics import evaluate

    functions = user_functions(user_functions_text(program(name)))
    inputs = typed_inputs_of(name, s)
    exprs = [parse(r["expression"], functions) for r in records]
    expected = evaluate(program(name), *inputs, sizes=s) if exprs else None
    samples: list[list[Spread]] = [[] for _ in records]
    peer_samples: dict[str, list[Spread]] = {k: [] for k in peers or {}}
    for _ in range(rounds):
        for k, timer in (peers or {}).items():
            peer_samples[k].append(timer())
        for i, expr in enumerate(exprs):
            result = run(expr, *inputs, device=DEVICE, repeat=repeat, sizes=s,
                         expected=expected)
            if result.correct:
                samples[i].append(Spread(result.kernel_ms, result.kernel_ms_min,
                                         result.kernel_ms_max))
    peer_spreads = {k: pooled(x) for k, x in peer_samples.items()}
    return [pooled(x) for x in samples], {k: v for k, v in peer_spreads.items() if v}


DEVICE: str | None = None


def device_tag(info) -> str:
    """How result files name a device: ``gpu``, ``pocl`` (PoCL on a CPU), else its kind."""
    return "gpu" if info.kind == "gpu" else "pocl" if info.is_pocl else info.kind


def _write(doc: dict, out: Path) -> Path:
    """Write the results (JSON, and the table as Markdown beside it), gathered with those of
    programs and sizes run separately on the same device, strategy and budget."""
    if out.exists():
        old = json.loads(out.read_text())
        if all(old.get(k) == doc[k] for k in ("device", "strategy", "budget", "early")):
            doc["programs"] = {**old["programs"], **doc["programs"]}
    out.write_text(json.dumps(doc, indent=2) + "\n")
    out.with_suffix(".md").write_text(table(doc))
    return out


def _ms(x: float | None) -> str:
    return "–" if x is None else f"{x:.4f}"


def _named_times(medians: dict[str, float], ranges: dict[str, list[float]] | None) -> str:
    """``NumPy 1.2754 [1.19–1.57], …``; a file written before the ranges says so."""
    return ", ".join(f"{k} {with_range(v, (ranges or {}).get(k))}" for k, v in medians.items())


def _again(again: dict) -> str:
    """The best kernel timed again, with its range where the file has it."""
    if "best_range_ms" not in again:  # written before the ranges: the median alone
        return _ms(again["best_ms"])
    return with_range(again["best_ms"], again["best_range_ms"])


def _ratio(a, b) -> str:
    return f"{a / b:.2f}x" if a and b else "–"


def table(doc: dict) -> str:
    """The results as Markdown: best of the first candidates and of the whole run (as
    logged, and timed again side by side), the peers and the ceiling measured in the same
    run, and where the best kernel stands against them."""
    early, budget = doc["early"], doc["budget"]
    lines = [f"# Search results: {doc['device']} ({doc['platform']}, driver {doc['driver']})",
             "",
             f"Strategy {doc['strategy']}, budget {budget}; kernel times in ms (device "
             f"events, median), transfers excluded; timed again, and the peers' and the "
             f"ceiling's times, with [min–max] of all their runs. Written by `python -m "
             f"benchmarks.search`.",
             "",
             f"| program | sizes | evaluated | best@{early} | best | best@{early}/best "
             f"| best@{early} again | best again | again: best@{early}/best | peers | "
             f"copy ceiling | best vs peer | best vs ceiling |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for key, p in doc["programs"].items():
        name = entry_program(key, p)
        again = p["retimed"]
        peers = _named_times(p["peers_ms"], p.get("peers_range_ms"))
        ceiling = p.get("ceiling_ms") or {}
        ceil_text = _named_times(ceiling, p.get("ceiling_range_ms")) or "–"
        main_peer = next(iter(p["peers_ms"].values()), None)
        main_ceiling = ceiling.get("copy (OpenCL)") or next(iter(ceiling.values()), None)
        best = again["best_ms"] or p["best_ms"]
        ratio, ratio_again = p["early_over_best"], again["early_over_best"]
        lines.append(
            f"| {name} | {size_text(p['sizes'])} | {p['evaluated']} | "
            f"{_ms(p['best_early_ms'])} | {_ms(p['best_ms'])} | "
            f"{'–' if ratio is None else f'{1 / ratio:.2f}'} | "
            f"{_ms(again['best_early_ms'])} | {_again(again)} | "
            f"{'–' if ratio_again is None else f'{1 / ratio_again:.2f}'} | {peers} | "
            f"{ceil_text} | {_ratio(main_peer, best)} | {_ratio(main_ceiling, best)} |")
    lines += ["", f"best@{early}/best: the best time over the best of the first {early} "
              f"(1.00: the first {early} held the best; at least 0.90 is the goal). best vs "
              "peer: the peer's time over the best kernel's (above 1: faster than the peer). "
              "best vs ceiling: the time of a copy of the bytes the program moves over the "
              "best kernel's (1.00: at the bandwidth a copy reaches).", ""]
    return "\n".join(lines)


def plot(doc: dict, key: str, path: Path) -> Path:
    """The search's efficiency curve (ICFP Fig. 12) from its log, with the peers and the
    copy ceiling measured in the same run and the early budget marked."""
    from workbench.plots import efficiency_curve

    p = doc["programs"][key]
    records = read(ROOT / p["log"])
    name = entry_program(key, p)
    fig = efficiency_curve(records, p["fixed"], title=f"{name} ({size_text(p['sizes'])}) on "
                                                       f"{doc['device']}: {doc['strategy']}")
    ax = fig.axes[0]
    ax.axvline(doc["early"] + 0.5, color="tab:orange", lw=1,
               label=f"first {doc['early']} candidates")
    lines = [*p["peers_ms"].items(), *(p.get("ceiling_ms") or {}).items()]
    ranges = {**(p.get("peers_range_ms") or {}), **(p.get("ceiling_range_ms") or {})}
    for (label, ms), color in zip(lines, ["tab:green", "tab:purple", "tab:brown", "tab:gray"]):
        ax.axhline(ms, color=color, lw=1, ls=":", label=label)
        if label in ranges:  # the range of its runs, as a band
            ax.axhspan(*ranges[label], color=color, alpha=0.12, lw=0)
    ax.legend(fontsize="x-small")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    return path


def plot_path(doc: dict, key: str, tag: str) -> Path:
    p = doc["programs"][key]
    name = entry_program(key, p)
    sizes = "x".join(str(v) for v in p["sizes"].values())
    return RESULTS / "plots" / f"{name}_{sizes}_{tag}_{doc['sizes']}_{doc['strategy']}.png"


def summarize(name: str, s: dict, records: list[dict], early_budget: int, peers,
              kind: str = "cpu") -> dict:
    """What a search found, from its records in the order they finished (as in its log):
    the best of the first ``early_budget`` candidates and of the whole run as the search
    timed them, and the leading candidates timed again side by side with the peers.

    The search's own times were taken one candidate at a time, minutes apart, on a device
    whose speed drifts: the three fastest of the first candidates and the three fastest of
    the run (those within twice the best) are timed again, interleaved with the peers. The
    program's best kernel (``best_expression``) is the fastest of them when so timed: a
    search's own time for a candidate can be a lucky one."""
    ok = [r["kernel_ms"] if r.get("correct") else np.inf for r in records]
    early = min(ok[:early_budget], default=np.inf)
    best = min(ok, default=np.inf)
    order = sorted((t, i) for i, t in enumerate(ok) if t < np.inf)
    leading_early = [i for t, i in order if i < early_budget][:3]
    leading = [i for t, i in order[:3] if t <= 2 * best]
    chosen = sorted(set(leading_early) | set(leading))
    try:
        timers = peers(name, s)
    except Exception as err:  # a peer that fails here leaves the row without it, saying why
        timers, peers_error = {}, f"{type(err).__name__}: {err}"
    else:
        peers_error = None
    try:  # the peers timed in the same rounds as the kernels' second timing
        kernels, peers_timed = retime(name, s, [records[i] for i in chosen], timers)
    except Exception as err:
        if not timers:
            raise
        peers_error = f"{type(err).__name__}: {err}"
        kernels, peers_timed = retime(name, s, [records[i] for i in chosen])
    times = {i: k.median_ms if k else np.inf for i, k in zip(chosen, kernels)}
    ranges = {i: k.range_ms if k else None for i, k in zip(chosen, kernels)}
    try:
        ceiling = ceilings(name, s, kind)
    except Exception:  # a ceiling that cannot be measured here leaves the row without it
        ceiling = {}
    early_retimed = min((times[i] for i in leading_early), default=np.inf)
    best_retimed = min(times.values(), default=np.inf)
    winner = min((i for i in chosen if times[i] < np.inf), key=times.get, default=None)
    logged_best = order[0][1] if order else None
    return {
        "program": name, "sizes": s, "evaluated": len(records),
        "best_ms": _finite(best), "best_early_ms": _finite(early),
        "early_over_best": _finite(early / best),
        "retimed": {"candidates": chosen, "ms": [times[i] for i in chosen],
                    "range_ms": [ranges[i] for i in chosen],
                    "best_range_ms": ranges[winner] if winner is not None else None,
                    "early_candidates": leading_early,
                    "best_early_ms": _finite(early_retimed), "best_ms": _finite(best_retimed),
                    "early_over_best": _finite(early_retimed / best_retimed)},
        "failures": sum(1 for r in records if not r.get("correct")),
        "best_expression": records[winner]["expression"] if winner is not None else None,
        "winner": winner,
        "logged_best_expression": records[logged_best]["expression"]
        if logged_best is not None else None,
        # medians (as files written before the ranges read), and each one's [min, max]
        "peers_ms": {k: v.median_ms for k, v in peers_timed.items()},
        "peers_range_ms": {k: v.range_ms for k, v in peers_timed.items()},
        "ceiling_ms": {k: v.median_ms for k, v in ceiling.items()},
        "ceiling_range_ms": {k: v.range_ms for k, v in ceiling.items()},
        "bytes": bytes_moved(name, s),
        **({"peers_error": peers_error} if peers_error else {}),
    }


def _show(key: str, p: dict) -> None:
    peer_text = ", ".join([_named_times(p["peers_ms"], p.get("peers_range_ms")),
                           _named_times(p.get("ceiling_ms") or {}, p.get("ceiling_range_ms"))])
    again = p["retimed"]

    def row(a, b, r):
        return f"{_ms(a):>10} {_ms(b):>10} {'–' if r is None else f'{r:.2f}':>6}"

    print(f"{key:<28} {row(p['best_early_ms'], p['best_ms'], p['early_over_best'])}"
          f"  {peer_text}", flush=True)
    print(f"{'  timed again':<28} "
          f"{row(again['best_early_ms'], again['best_ms'], again['early_over_best'])}",
          flush=True)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--sizes", choices=sorted(SIZES), default="small")
    parser.add_argument("--size-index", type=int, default=None,
                        help="only this one of each program's sizes (0: the first)")
    parser.add_argument("--budget", type=int, default=400)
    parser.add_argument("--early", type=int, default=40, help="the early budget compared")
    parser.add_argument("--strategy", default="guided")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--programs", default=",".join(PROGRAMS))
    parser.add_argument("--deadline", type=float, default=None, metavar="SECONDS",
                        help="stop each search in time for the command to end within this many "
                             "seconds (each search's share, less time to time it again)")
    parser.add_argument("--plots-only", metavar="RESULTS_JSON",
                        help="only draw the plots of recorded results (no device needed)")
    parser.add_argument("--resume", action="store_true",
                        help="continue the searches recorded in the results (their archived "
                             "logs) up to the budget, instead of starting them again")
    parser.add_argument("--remeasure", action="store_true",
                        help="with --resume: a log of another device (or driver) is measured "
                             "again here, where it would be refused")
    parser.add_argument("--retime-only", metavar="RESULTS_JSON",
                        help="time the leading candidates of recorded searches (their logs) "
                             "and the peers again, on this device")
    args = parser.parse_args(argv)
    if args.plots_only:
        doc = json.loads(Path(args.plots_only).read_text())
        tag = Path(args.plots_only).stem.removeprefix("search_").rsplit("_", 1)[0]
        for key in doc["programs"]:
            print(plot(doc, key, plot_path(doc, key, tag)))
        return

    global DEVICE
    DEVICE = args.device
    info, _ = find_device(args.device)
    kind = "gpu" if info.kind == "gpu" else "cpu"
    tag = device_tag(info)
    peers = numpy_peers if kind != "gpu" else cupy_peers
    if args.retime_only:
        path = Path(args.retime_only)
        doc = json.loads(path.read_text())
        wanted = set(args.programs.split(","))
        for key, p in doc["programs"].items():
            name = entry_program(key, p)
            if name not in wanted:
                continue
            records = read(ROOT / p["log"])
            doc["programs"][key] = {**p, **summarize(name, p["sizes"], records, doc["early"],
                                                     peers, kind)}
            _show(key, doc["programs"][key])
        path.write_text(json.dumps(doc, indent=2) + "\n")
        path.with_suffix(".md").write_text(table(doc))
        print(f"wrote {path}")
        return

    logs = RESULTS / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    doc = {"device": info.name, "platform": info.platform, "driver": info.driver,
           "kind": kind, "compute_units": info.compute_units,
           "machine": platform.machine(), "sizes": args.sizes, "strategy": args.strategy,
           "budget": args.budget, "early": args.early, "programs": {}}
    runs = [(name, s) for name in args.programs.split(",")
            for i, s in enumerate(sizes_of(args.sizes, kind, name))
            if args.size_index is None or i == args.size_index]
    print(f"device: {info.name} ({info.platform}); strategy {args.strategy}, budget "
          f"{args.budget}; {len(runs)} searches")
    print(f"{'program, sizes':<28} {'best@' + str(args.early):>10} "
          f"{'best@' + str(args.budget):>10} {'ratio':>6}  peers and ceiling (ms)")
    began = time.time()
    out = RESULTS / f"search_{tag}_{args.sizes}.json"
    for n, (name, s) in enumerate(runs):
        key = entry_key(name, s)
        stem = f"{name}_{'x'.join(str(v) for v in s.values())}_{tag}_{args.sizes}_" \
               f"{args.strategy}"
        log = logs / f"{stem}.jsonl"
        archived = log.with_suffix(".jsonl.gz")  # kept compressed; plots read either
        earlier, logged = 0.0, set()
        if args.resume and archived.exists() and not log.exists():
            log.write_bytes(gzip.decompress(archived.read_bytes()))  # the search resumes it
            logged = {r["key"] for r in read(log)}  # they count against the budget
            if out.exists():
                earlier = json.loads(out.read_text())["programs"].get(key, {}).get(
                    "seconds", 0.0)
        # each search's share is the time left over the searches left, so one that ran
        # over its share (its summary times the leaders again, the peers and the ceiling)
        # shortens the others a little instead of leaving the next one nothing
        left = None if args.deadline is None else began + args.deadline - time.time()
        share = None if left is None else left / (len(runs) - n)
        until = None if share is None else time.time() + share - min(120, share / 4)
        start = time.time()
        if len(logged) >= args.budget:
            print(f"{key}: its log holds {len(logged)} candidates already")
            log.unlink()
            continue
        result = search(program(name), *types_of(name, s), strategy=args.strategy,
                        budget=args.budget, device=args.device, log=log,
                        workers=args.workers, timeout=args.timeout, repeat=args.repeat,
                        time_limit=None if until is None else max(1.0, until - time.time()),
                        remeasure=args.remeasure)
        seconds = earlier + time.time() - start
        archived.write_bytes(gzip.compress(log.read_bytes()))
        log.unlink()
        doc["programs"][key] = {
            **summarize(name, s, read(archived), args.early, peers, kind),
            "seconds": seconds, "fixed": result.fixed, "stopped": result.stopped,
            "log": str(archived.relative_to(ROOT))}
        _show(key, doc["programs"][key])
        _write(doc, out)  # a cut-off run keeps these
        try:
            plot(doc, key, plot_path(doc, key, tag))
        except ImportError as err:  # a machine without matplotlib: draw it elsewhere
            print(f"no plot here ({err}): python -m benchmarks.search --plots-only {out}")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()

"""Plots of search logs (SPEC 8). They read records only — from a log file of today or of
last month, recorded here or on a GPU machine — never a device.

- ``efficiency_curve``: ICFP 2015 Fig. 12: every evaluated candidate a point (its kernel
  time, in the order evaluated), the best-so-far line, and vertical bars where the
  Monte-Carlo descent fixed a derivation step; for a guided search also the time its cost
  model predicted for each candidate (hollow);
- ``best_so_far_band``: best-so-far against evaluations (or wall time) over seeded repeats,
  the median and the 10–90 % band, for several strategies (random search as the baseline);
- ``strategies_curve``: one search per strategy on the same program and device, each one's
  best-so-far relative to the best any of them found (``relative_best_so_far``);
- ``versus_peers``: the best kernel found next to the peers' times (NumPy, cuBLAS, ...);
- ``spread_text``, ``with_range``, ``timing_note``, ``comparison_text``: timings in words
  with their spread (``with_range`` as the benchmarks' results files record it),
  a note where times are too short to rank kernels, and which of two is faster when their
  ranges say so;
- ``portability_table``: kernels found for device A run on device B (CASES 2016 Table 2);
- ``roofline``: measured kernels (``rates.Rates``) under the device's copy and peak ceilings.

Matplotlib's object API is used (no pyplot state), so plots can be drawn from threads. The
figures returned are ``plots.Figure``: a matplotlib figure that shows itself as a PNG image
in a notebook (``_repr_png_``), with no pyplot call and no Jupyter import here.

A candidate that failed (did not build, crashed, timed out, computed something else) has no
time: it is drawn as a red cross on the bottom edge of the axes, never at a kernel time.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from .errors import WorkbenchError

try:
    from matplotlib.figure import Figure as _MatplotlibFigure
except ImportError:  # only the plots need matplotlib (the lab extra); reading logs does not
    _MatplotlibFigure = None

PNG_DPI = 100


if _MatplotlibFigure is not None:
    class Figure(_MatplotlibFigure):
        """A matplotlib figure that a notebook shows as an image (``_repr_png_``) when it is
        a cell's value or passed to ``display``; ``savefig`` works as usual."""

        def _repr_png_(self) -> bytes:
            buf = io.BytesIO()
            self.savefig(buf, format="png", dpi=PNG_DPI)
            return buf.getvalue()
else:  # pragma: no cover - matplotlib is installed with the lab extra
    Figure = None


def figure(size: tuple[float, float] = (6.4, 3.6), **kwargs):
    """A new ``plots.Figure`` (constrained layout), e.g. ``fig = plots.figure((10, 6));
    axes = fig.subplots(2, 2)`` for several curves side by side."""
    if Figure is None:
        raise WorkbenchError("plots need matplotlib: pip install matplotlib (or the lab extra: "
                             "pip install -e '.[lab]')")
    kwargs.setdefault("layout", "constrained")
    return Figure(figsize=size, **kwargs)


def _figure(size=(6.4, 3.6)):
    return figure(size)


def times(records: Sequence[dict]) -> np.ndarray:
    """Kernel time of each record in order, NaN for failed or wrong candidates."""
    return np.array([r["kernel_ms"] if r.get("correct") and r.get("kernel_ms") is not None
                     else np.nan for r in records], dtype=float)


def best_so_far(records: Sequence[dict]) -> np.ndarray:
    t = times(records)
    out = np.full(len(t), np.nan)
    best = np.inf
    for i, x in enumerate(t):
        if not np.isnan(x):
            best = min(best, x)
        out[i] = best if best < np.inf else np.nan
    return out


def efficiency_curve(records: Sequence[dict], fixed: Sequence[int] = (), title: str = "",
                     ax=None, path: str | Path | None = None, legend: bool = True):
    """ICFP Fig. 12 for one search. ``legend=False`` leaves the legend to the caller (a grid
    of curves shares one: ``shared_legend``)."""
    fig = None
    if ax is None:
        fig = _figure()
        ax = fig.add_subplot()
    t = times(records)
    x = np.arange(1, len(t) + 1)
    ok = ~np.isnan(t)
    if ok.any():
        low, high = _spread(records)
        has = ok & ~np.isnan(low) & ~np.isnan(high)
        if has.any():  # each candidate's fastest to slowest timed run
            ax.vlines(x[has], low[has], high[has], color="tab:blue", alpha=0.35, lw=0.8,
                      label="min–max of its runs")
        ax.scatter(x[ok], t[ok], s=12, alpha=0.6, label="candidate (median)")
    failed = x[~ok]
    if len(failed):
        # on the bottom edge of the axes (y in axes coordinates): a failure has no time
        ax.scatter(failed, np.full(len(failed), 0.02), marker="x", color="tab:red", s=14,
                   clip_on=False, transform=ax.get_xaxis_transform(),
                   label=f"failed or wrong ({len(failed)})")
    predicted = np.array([r.get("predicted_ms") or np.nan for r in records], dtype=float)
    if ok.any():  # the axes fit what was measured; a prediction far off does not squash it
        top, bottom = np.nanmax(t) * 1.5, np.nanmin(t) / 1.5
        beyond = int(np.count_nonzero((predicted > top) | (predicted < bottom)))
        predicted = np.where((predicted > top) | (predicted < bottom), np.nan, predicted)
    else:
        beyond = 0
    if (~np.isnan(predicted)).any():  # a guided search: what its cost model expected
        has = ~np.isnan(predicted)
        ax.scatter(x[has], predicted[has], s=12, facecolors="none", edgecolors="tab:cyan",
                   alpha=0.7, label="predicted (cost model)" + (
                       f", {beyond} off the axes" if beyond else ""))
    if ok.any():
        ax.plot(x, best_so_far(records), color="black", lw=1.5, label="best so far")
    else:
        n = len(records)
        ax.text(0.5, 0.5, f"no correct kernel among {n} candidate{'s' if n != 1 else ''}"
                if n else "no candidates", transform=ax.transAxes,
                ha="center", va="center", color="tab:red")
        ax.set_yticks([])
    ax.set_xlim(0.5, max(len(t), 2) + 0.5)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # candidates are counted
    _fixed_steps(ax, fixed)
    ax.set_xlabel("evaluated candidates")
    ax.set_ylabel("kernel time (ms)")
    if ok.any() and np.nanmax(t) / max(np.nanmin(t), 1e-9) > 20:
        ax.set_yscale("log")
    ax.set_title(title, fontsize="medium")
    if legend and ax.get_legend_handles_labels()[0]:
        outside_legend(ax)
    if path is not None and fig is not None:
        fig.savefig(path)
    return fig if fig is not None else ax.figure


def shared_legend(fig, columns: int = 4) -> None:
    """One legend for a grid of axes, below them: each label once (the first axes that
    has it gives its symbol)."""
    handles = {}
    for ax in fig.axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            key = label.split(" (")[0]  # "failed or wrong (3)" and "(5)" are one entry
            handles.setdefault(key, handle)
    if handles:
        fig.legend(list(handles.values()), list(handles), loc="outside lower center",
                   ncols=columns, fontsize="small", frameon=False)


# More fixed steps than this are drawn as ticks on the top edge, not as lines across the data
MAX_STEP_LINES = 12


def _fixed_steps(ax, fixed: Sequence[int]) -> None:
    """Where the descent fixed a step: dashed lines when few, ticks on the top edge when
    many (a long search fixes hundreds)."""
    fixed = list(fixed)
    if not fixed:
        return
    if len(fixed) <= MAX_STEP_LINES:
        for i, k in enumerate(fixed):
            ax.axvline(k + 0.5, color="grey", ls="--", lw=0.8,
                       label="step fixed" if i == 0 else None)
        return
    ax.scatter(np.asarray(fixed) + 0.5, np.full(len(fixed), 1.0), marker="|", s=40,
               color="grey", transform=ax.get_xaxis_transform(), clip_on=False,
               label=f"steps fixed ({len(fixed)}, top edge)")


def outside_legend(ax, fontsize: str = "small") -> None:
    """The legend beside the axes, right of them, off the data."""
    ax.legend(fontsize=fontsize, loc="upper left", bbox_to_anchor=(1.01, 1.0),
              borderaxespad=0.0, frameon=False)


def _spread(records: Sequence[dict]) -> tuple[np.ndarray, np.ndarray]:
    """Each record's fastest and slowest timed run (NaN where not logged or failed)."""
    def value(r, key):
        v = r.get(key) if r.get("correct") else None
        return np.nan if v is None else float(v)
    return (np.array([value(r, "kernel_ms_min") for r in records], dtype=float),
            np.array([value(r, "kernel_ms_max") for r in records], dtype=float))


# --- timings in words ------------------------------------------------------------------------

# Below this a kernel's time says little on its own: an empty kernel's launch and its
# profiling events take microseconds on a CPU device (PoCL's timer ticks in nanoseconds, but
# its runs of a few microseconds vary by 10x), so such times do not rank kernels.
TIMING_FLOOR_MS = 0.02


def spread_text(median_ms: float | None, min_ms: float | None = None,
                max_ms: float | None = None) -> str:
    """``0.0123 ms (0.0110–0.0150)``: a median with the range of its runs."""
    if median_ms is None:
        return "no time"
    if min_ms is None or max_ms is None:
        return f"{median_ms:.4f} ms"
    return f"{median_ms:.4f} ms ({min_ms:.4f}–{max_ms:.4f})"


def with_range(ms: float | None, range_ms: Sequence[float] | None, digits: int = 4) -> str:
    """``1.2754 [1.19–1.57]``: a median and the range of its runs, as results files record
    them; ``–`` for no time, and "(range not recorded)" for a time whose file kept none."""
    if ms is None:
        return "–"
    if not range_ms:
        return f"{ms:.{digits}f} (range not recorded)"
    low, high = range_ms
    return f"{ms:.{digits}f} [{low:.3g}–{high:.3g}]"


def timing_note(times_ms: Sequence[float | None], resolution_ns: float | None = None,
                floor_ms: float | None = None) -> str:
    """A note for times too short to compare, or the empty string. Short is below the
    largest of ``TIMING_FLOOR_MS``, ``ceilings.RESOLUTION_FACTOR`` times ``floor_ms`` (the
    device's launch floor, an empty kernel's time there: ``ceilings.launch_floor``) where it
    was measured, and 100 ticks of the device's timer. Times alone carry no spread to judge
    them by (the widget's ``below_resolution`` has it), so ``TIMING_FLOOR_MS`` stays a
    least: on a CPU an empty kernel's events can span a fraction of a microsecond while a
    real kernel's runs of microseconds still vary by 10x."""
    from .ceilings import RESOLUTION_FACTOR

    measured = RESOLUTION_FACTOR * floor_ms if floor_ms is not None else 0.0
    floor = max(TIMING_FLOOR_MS, measured, 100 * (resolution_ns or 0) * 1e-6)
    short = [t for t in times_ms if t is not None and t < floor]
    if not short:
        return ""
    measured = (f" ({RESOLUTION_FACTOR:g}x an empty kernel's {floor_ms:.4f} ms on this "
                f"device)" if floor_ms is not None and floor == measured else "")
    return (f"Note: {len(short)} of these {len(times_ms)} times are below {floor:.3g} ms"
            f"{measured}, where a launch's own overhead and the timer's noise are of the same "
            f"size: they do not rank kernels; a larger size does.")


def comparison_text(a_name: str, a: tuple[float, float, float], b_name: str,
                    b: tuple[float, float, float]) -> str:
    """Which of two timed things is faster, read from their (min, median, max): faster or
    slower when their ranges do not overlap, else no measurable difference."""
    a_min, a_med, a_max = a
    b_min, b_med, b_max = b
    ratio = a_med / b_med if b_med else float("nan")
    if a_max < b_min:
        verdict = "faster: the ranges do not overlap"
    elif a_min > b_max:
        verdict = "slower: the ranges do not overlap"
    else:
        verdict = "not measurably different: the ranges overlap"
    return (f"{a_name} measured {spread_text(a_med, a_min, a_max)}, {b_name} "
            f"{spread_text(b_med, b_min, b_max)}; the first is {verdict} (median ratio "
            f"{ratio:.2f})")


def best_so_far_band(runs: Mapping[str, Sequence[Sequence[dict]]], against: str = "evaluations",
                     title: str = "", ax=None, path: str | Path | None = None):
    """Best-so-far over seeded repeats of each strategy: median line, 10-90 % band.
    ``against`` is "evaluations" or "seconds" (wall time, from each record's ``finished``)."""
    fig = None
    if ax is None:
        fig = _figure()
        ax = fig.add_subplot()
    drawn = False
    for name, repeats in runs.items():
        curves = [best_so_far(r) for r in repeats if len(r)]
        if not curves:
            continue
        if against == "seconds":
            grid = np.linspace(0, max(_elapsed(r)[-1] for r in repeats if len(r)), 100)
            curves = [_on_grid(_elapsed(r), best_so_far(r), grid) for r in repeats if len(r)]
            x = grid
        else:
            n = max(len(c) for c in curves)
            curves = [np.concatenate([c, np.full(n - len(c), c[-1])]) for c in curves]
            x = np.arange(1, n + 1)
        stack = np.vstack(curves)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # steps before any success
            median = np.nanmedian(stack, axis=0)
            low, high = np.nanpercentile(stack, 10, axis=0), np.nanpercentile(stack, 90, axis=0)
        line = ax.plot(x, median, label=f"{name} (median of {len(curves)})")[0]
        ax.fill_between(x, low, high, color=line.get_color(), alpha=0.2)
        drawn = drawn or bool(np.isfinite(median).any())
    if not drawn:
        total = sum(len(r) for repeats in runs.values() for r in repeats)
        ax.text(0.5, 0.5, f"no correct kernel among {total} candidates", color="tab:red",
                transform=ax.transAxes, ha="center", va="center")
    ax.set_xlabel("evaluated candidates" if against == "evaluations" else "wall time (s)")
    ax.set_ylabel("best kernel time so far (ms)")
    ax.set_title(title)
    ax.legend(fontsize="small")
    if path is not None and fig is not None:
        fig.savefig(path)
    return fig if fig is not None else ax.figure


def relative_best_so_far(runs: Mapping[str, Sequence[dict]]) -> dict[str, np.ndarray]:
    """Each run's best-so-far over the best time any of the runs found, candidate by
    candidate (1: that best; NaN before the run's first correct kernel; all NaN where no
    run found one)."""
    curves = {name: best_so_far(records) for name, records in runs.items()}
    found = [np.nanmin(c) for c in curves.values() if (~np.isnan(c)).any()]
    best = min(found) if found else np.nan
    return {name: c / best for name, c in curves.items()}


def strategies_curve(runs: Mapping[str, Sequence[dict]], title: str = "", ax=None,
                     path: str | Path | None = None, legend: bool = True):
    """Several searches of one program on one device (one run per strategy): the best time
    each found so far, relative to the best any of them found, against the candidates it
    measured; one line per strategy (log axis where the lines span more than tenfold)."""
    fig = None
    if ax is None:
        fig = _figure()
        ax = fig.add_subplot()
    curves = relative_best_so_far(runs)
    for name, curve in curves.items():
        x = np.arange(1, len(curve) + 1)
        reached = "" if not (~np.isnan(curve)).any() else f", ends at {np.nanmin(curve):.2f}×"
        ax.step(x, curve, where="post", label=f"{name} ({len(curve)}{reached})")
    drawn = [c for c in curves.values() if (~np.isnan(c)).any()]
    if not drawn:
        total = sum(len(r) for r in runs.values())
        ax.text(0.5, 0.5, f"no correct kernel among {total} candidates", color="tab:red",
                transform=ax.transAxes, ha="center", va="center")
    elif max(np.nanmax(c) for c in drawn) > 10:
        ax.set_yscale("log")
    ax.axhline(1.0, color="grey", lw=0.8, ls=":")
    ax.set_xlabel("measured candidates")
    ax.set_ylabel("best so far / best of all")
    ax.set_title(title, fontsize="medium")
    if legend and drawn:
        ax.legend(fontsize="small")
    if path is not None and fig is not None:
        fig.savefig(path)
    return fig if fig is not None else ax.figure


def _elapsed(records: Sequence[dict]) -> np.ndarray:
    finished = np.array([r.get("finished", i) for i, r in enumerate(records)], dtype=float)
    return finished - finished[0] + 1e-9


def _on_grid(x: np.ndarray, y: np.ndarray, grid: np.ndarray) -> np.ndarray:
    idx = np.searchsorted(x, grid, side="right") - 1
    return np.where(idx >= 0, y[np.clip(idx, 0, len(y) - 1)], np.nan)


def versus_peers(best_ms: Mapping[str, float], peers_ms: Mapping[str, Mapping[str, float]],
                 title: str = "", ax=None, path: str | Path | None = None,
                 spread: Mapping[str, tuple[float, float]] | None = None,
                 labels: Mapping[str, str] | None = None,
                 peers_spread: Mapping[str, Mapping[str, Sequence[float]]] | None = None):
    """Horizontal bars per program: the best kernel found and each peer, each relative to
    the fastest of them (1.0: the fastest; the time in ms is written on each bar).
    ``spread`` gives the best kernel's (min, max) per program, ``peers_spread`` each peer's
    (program -> peer -> (min, max)), each drawn as a range across its bar; where one of
    them is given but a bar's range is not in it (results written before ranges were kept),
    the bar says so. ``labels`` is the text for each program's row (its name and sizes)."""
    fig = None
    if ax is None:
        fig = _figure((7.5, 0.9 + 0.75 * max(1, len(best_ms))))
        ax = fig.add_subplot()
    programs = list(best_ms)
    names = ["best found"] + sorted({p for peers in peers_ms.values() for p in peers})
    height = 0.8 / len(names)
    peer_ranges_drawn = False  # one legend entry for all the peers' ranges
    for j, name in enumerate(names):
        values = np.array([best_ms[p] if name == "best found" else
                           peers_ms.get(p, {}).get(name, np.nan) for p in programs], dtype=float)
        fastest = np.array([np.nanmin([best_ms[p], *peers_ms.get(p, {}).values()])
                            for p in programs], dtype=float)
        y = np.arange(len(programs)) + j * height
        bars = ax.barh(y, values / fastest, height, label=name)
        ranges = spread if name == "best found" else None if peers_spread is None else {
            p: peers_spread[p][name] for p in programs if name in peers_spread.get(p, {})}
        lo = np.array([(ranges or {}).get(p, (np.nan, np.nan))[0] for p in programs],
                      dtype=float)
        hi = np.array([(ranges or {}).get(p, (np.nan, np.nan))[1] for p in programs],
                      dtype=float)
        has = ~np.isnan(lo) & ~np.isnan(hi)
        if has.any():
            best = name == "best found"
            ax.hlines(y[has], (lo / fastest)[has], (hi / fastest)[has], color="black", lw=1.2,
                      label="best found: min–max of its runs" if best else
                      "_nolegend_" if peer_ranges_drawn else "peers: min–max of their runs")
            peer_ranges_drawn = peer_ranges_drawn or not best
        for bar, v, known in zip(bars, values, has):
            if np.isfinite(v):
                missing = ranges is not None and not known
                ax.text(bar.get_width(), bar.get_y() + bar.get_height() / 2,
                        f" {v:.4g} ms" + (", range not recorded" if missing else ""),
                        va="center", fontsize="x-small")
    ax.set_yticks(np.arange(len(programs)) + 0.4 - height / 2,
                  [(labels or {}).get(p, p) for p in programs], fontsize="small")
    ax.invert_yaxis()
    ax.set_xlabel("time relative to the fastest of the row (lower is better)")
    ax.set_xlim(0, ax.get_xlim()[1] * 1.25)  # room for the times written on the bars
    ax.set_title(title, fontsize="medium")
    outside_legend(ax)
    if path is not None and fig is not None:
        fig.savefig(path)
    return fig if fig is not None else ax.figure


def portability_table(results: Mapping[tuple[str, str], float]) -> str:
    """CASES 2016 Table 2: ``results[(tuned_for, run_on)]`` = kernel time; each cell as a
    fraction of the kernel tuned for the device it runs on (1.00 on the diagonal)."""
    tuned = sorted({a for a, _ in results})
    run_on = sorted({b for _, b in results})
    lines = ["| tuned for \\ run on | " + " | ".join(run_on) + " |",
             "|---|" + "---|" * len(run_on)]
    for a in tuned:
        cells = []
        for b in run_on:
            own = results.get((b, b))
            value = results.get((a, b))
            cells.append("-" if value is None or own is None else f"{own / value:.2f}")
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def efficiency_by_device(records: Sequence[dict], title: str = "", ax=None,
                         path: str | Path | None = None):
    """The search-efficiency curve of a search spread over several devices (a Dask cluster
    of pinned workers, ``workbench.several.cluster``): every candidate a point coloured by
    the device that measured it (its host and device id, as the record names them), the best
    so far a line."""
    fig = None
    if ax is None:
        fig = _figure()
        ax = fig.add_subplot()
    t = times(records)
    x = np.arange(1, len(t) + 1)
    where = [_measured_on(r) for r in records]
    for device in sorted(set(where)):
        on = np.array([w == device for w in where]) & ~np.isnan(t)
        if on.any():
            ax.scatter(x[on], t[on], s=12, alpha=0.7, label=f"{device} ({int(on.sum())})")
    failed = x[np.isnan(t)]
    if len(failed):
        ax.scatter(failed, np.full(len(failed), 0.02), marker="x", color="tab:red", s=14,
                   clip_on=False, transform=ax.get_xaxis_transform(),
                   label=f"failed or wrong ({len(failed)})")
    if (~np.isnan(t)).any():
        ax.plot(x, best_so_far(records), color="black", lw=1.5, label="best so far")
        if np.nanmax(t) / max(np.nanmin(t), 1e-9) > 20:
            ax.set_yscale("log")
    ax.set_xlim(0.5, max(len(t), 2) + 0.5)
    ax.set_xlabel("evaluated candidates")
    ax.set_ylabel("kernel time (ms)")
    ax.set_title(title)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small")
    if path is not None and fig is not None:
        fig.savefig(path)
    return fig if fig is not None else ax.figure


def _measured_on(record: dict) -> str:
    """The device a record was measured on: host and id where the record names them (a
    search on a cluster), else the device's name."""
    if record.get("device_id"):
        host = record.get("host")
        return f"{host} {record['device_id']}" if host else record["device_id"]
    return record.get("device_name") or record.get("device") or "unknown device"


def roofline(points: Mapping[str, object], ceilings=None, title: str = "", ax=None,
             path: str | Path | None = None):
    """The roofline of measured kernels: each point a kernel (a label and its
    ``rates.Rates``: a derivation's steps, a search's candidates) at its arithmetic
    intensity (operations per byte of the program's own inputs and output) and its
    GFLOP/s, under the device's two ceilings measured on it (``ceilings.Ceilings``): the
    copy's bandwidth times the intensity, and the fused multiply-adds' peak. A point above
    the slanted roof read its inputs (partly) from a cache. Points without counts are left
    out."""
    fig = None
    if ax is None:
        fig = _figure()
        ax = fig.add_subplot()
    shown = {k: r for k, r in points.items()
             if getattr(r, "gflop_per_s", None) and getattr(r, "bytes", None)}
    intensity = np.array([r.operations / r.bytes for r in shown.values()], dtype=float)
    flops = np.array([r.gflop_per_s for r in shown.values()], dtype=float)
    for i, (label, _) in enumerate(shown.items()):
        ax.scatter(intensity[i], flops[i], s=18, zorder=3, label=label)
    bandwidth = getattr(ceilings, "gb_per_s", None)
    peak = getattr(ceilings, "gflop_per_s", None)
    low = min(intensity.min() / 4, 0.05) if len(intensity) else 0.05
    high = max(intensity.max() * 4, 50.0) if len(intensity) else 50.0
    x = np.geomspace(low, high, 200)
    if bandwidth:
        roof = bandwidth * x if not peak else np.minimum(bandwidth * x, peak)
        ax.plot(x, roof, color="black", lw=1.2,
                label=f"copy {bandwidth:.1f} GB/s" + (f", peak {peak:.0f} GFLOP/s"
                                                      if peak else ""))
    elif peak:
        ax.axhline(peak, color="black", lw=1.2, label=f"peak {peak:.0f} GFLOP/s")
    if not shown:
        ax.text(0.5, 0.5, "no kernel with counted operations and bytes",
                transform=ax.transAxes, ha="center", va="center", color="tab:red")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("operations per byte of the program's inputs and output")
    ax.set_ylabel("GFLOP/s")
    ax.set_title(title, fontsize="medium")
    if ax.get_legend_handles_labels()[0]:
        outside_legend(ax)
    if path is not None and fig is not None:
        fig.savefig(path)
    return fig if fig is not None else ax.figure

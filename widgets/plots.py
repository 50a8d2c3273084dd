"""The widget's plots, drawn with matplotlib's object API (no pyplot state, so they can be
drawn from worker threads) and shown as PNG bytes in ``ipywidgets.Image``."""

from __future__ import annotations

import io

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .chart import spans_decades


def _png(fig: Figure) -> bytes:
    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    return buf.getvalue()


def steps_plot(labels: list[str], kernel_ms: list[float | None], failed: list[bool],
               peers: dict[str, float], device: str = "") -> bytes:
    """Kernel time along the derivation steps (one point per measured step; failed steps
    marked on the axis), with each peer as a horizontal line."""
    fig = Figure(figsize=(6.4, 3.3))
    ax = fig.add_subplot()
    xs = list(range(len(labels)))
    measured = [(x, y) for x, y in zip(xs, kernel_ms) if y is not None]
    if measured:
        ax.plot([x for x, _ in measured], [y for _, y in measured], "o-", color="#ea580c",
                label=f"OpenCL kernel{' on ' + device if device else ''}")
    bad = [x for x, f in zip(xs, failed) if f]
    times = [y for _, y in measured] + list(peers.values())
    log = spans_decades([(t,) for t in times])  # the slowest would flatten the others
    if bad:  # on the bottom edge
        ax.plot(bad, [min(times) if log else 0] * len(bad), "x", color="#b91c1c",
                markersize=9, clip_on=False, label="failed or wrong")
    for (name, ms), colour in zip(peers.items(), ("#2563eb", "#16a34a", "#7c3aed")):
        ax.axhline(ms, linestyle="--", color=colour, label=f"{name}: {ms:.4g} ms")
    ax.set_xticks(xs, labels, rotation=30, ha="right", fontsize=8)
    ax.set_xlim(-0.5, max(len(labels) - 0.5, 0.5))
    if log:
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)
    ax.set_ylabel("kernel time (ms, median" + (", log scale)" if log else ")"))
    ax.set_title("runtime along the derivation", fontsize=10)
    ax.grid(alpha=0.3)
    if measured or peers or bad:
        ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    return _png(fig)


def search_plot(times: list[float | None], best: list[float | None], budget: int,
                predicted: list[float | None] | None = None, fixed: list[int] = (),
                early: int = 40) -> bytes:
    """Search efficiency (ICFP 2015 Fig. 12): every evaluated candidate a point, the best so
    far a line, vertical bars where the descent fixed a step; a failed candidate (no time) a
    cross on the bottom edge. A guided search also shows what its cost model predicted for
    each candidate (hollow circles) and where its first ``early`` candidates end."""
    fig = Figure(figsize=(6.4, 3.0))
    ax = fig.add_subplot()
    xs = [i + 1 for i, t in enumerate(times) if t is not None]
    ax.plot(xs, [t for t in times if t is not None], ".", color="#94a3b8", label="candidate")
    if predicted and any(p is not None for p in predicted):
        px = [i + 1 for i, p in enumerate(predicted) if p is not None]
        ax.plot(px, [p for p in predicted if p is not None], "o", mfc="none", ms=4,
                color="#0284c7", alpha=0.7, label="predicted (cost model)")
    failed = [i + 1 for i, t in enumerate(times) if t is None]
    if failed:
        ax.plot(failed, [0.02] * len(failed), "x", color="#b91c1c", clip_on=False,
                transform=ax.get_xaxis_transform(), label=f"failed or wrong ({len(failed)})")
    bx = [i + 1 for i, b in enumerate(best) if b is not None]
    ax.step(bx, [b for b in best if b is not None], where="post", color="#ea580c",
            label="best so far")
    for k, at in enumerate(fixed):
        ax.axvline(at + 0.5, color="#a1a1aa", lw=0.8, label="step fixed" if k == 0 else None)
    if budget > early and len(times) > early // 2:
        ax.axvline(early + 0.5, color="#16a34a", lw=1, ls="--", label=f"first {early}")
    if any(t is not None for t in times) and predicted and any(predicted):
        ax.set_yscale("log")
    ax.set_xlim(0, max(budget, len(times), 1) + 1)
    ax.set_xlabel("evaluated candidates")
    ax.set_ylabel("kernel time (ms)")
    ax.grid(alpha=0.3)
    if xs or failed:
        ax.legend(fontsize=7)
    fig.tight_layout()
    return _png(fig)

"""Plots and timings in words (``workbench.plots``): every time with its spread, legends off
the data, fixed steps that do not cover the curve, and prose that says what the numbers
say."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("matplotlib", reason="plots need matplotlib (the lab extra)")

from workbench import plots  # noqa: E402


def _records(n: int) -> list[dict]:
    out = []
    for i in range(n):
        median = 1.0 + (i % 7) * 0.1
        out.append({"correct": i % 9 != 4, "kernel_ms": median if i % 9 != 4 else None,
                    "kernel_ms_min": median * 0.9, "kernel_ms_max": median * 1.5,
                    "status": "ok" if i % 9 != 4 else "compile error"})
    return out


def test_every_candidate_is_drawn_with_the_range_of_its_runs():
    records = _records(30)
    ax = plots.efficiency_curve(records, fixed=[5, 12]).axes[0]
    ranges = [c for c in ax.collections if c.get_label() == "min–max of its runs"]
    assert len(ranges) == 1
    segments = ranges[0].get_segments()
    correct = [r for r in records if r["correct"]]
    assert len(segments) == len(correct)
    assert all(abs(s[0][1] - r["kernel_ms_min"]) < 1e-9 and abs(s[1][1] - r["kernel_ms_max"])
               < 1e-9 for s, r in zip(segments, correct))


def test_many_fixed_steps_are_ticks_on_the_edge_not_lines_across_the_data():
    ax = plots.efficiency_curve(_records(400), fixed=list(range(3, 400, 2))).axes[0]
    dashed = [line for line in ax.lines if line.get_linestyle() == "--"]
    assert not dashed
    ticks = [c for c in ax.collections if c.get_label().startswith("steps fixed (199")]
    assert len(ticks) == 1 and ticks[0].get_transform() != ax.transData
    few = plots.efficiency_curve(_records(40), fixed=[5, 12]).axes[0]
    assert len([line for line in few.lines if line.get_linestyle() == "--"]) == 2


def test_the_legend_sits_beside_the_axes():
    fig = plots.efficiency_curve(_records(30), fixed=[5])
    fig.canvas.draw()
    ax = fig.axes[0]
    legend = ax.get_legend().get_window_extent()
    assert legend.x0 >= ax.get_window_extent().x1 - 1  # right of the plotting area


def test_the_peers_chart_has_readable_rows_and_writes_each_time():
    best = {"asum_16777216": 1.2, "gemv_4096x4096": 3.0}
    peers = {"asum_16777216": {"NumPy": 2.4}, "gemv_4096x4096": {"NumPy": 1.5}}
    labels = {"asum_16777216": "asum\nN = 2^24", "gemv_4096x4096": "gemv\n4096²"}
    fig = plots.versus_peers(best, peers, labels=labels, spread={"asum_16777216": (1.1, 1.4)})
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == list(labels.values())
    written = {t.get_text().strip() for t in ax.texts}
    # gemv's best has no range given: its bar says so
    assert {"1.2 ms", "3 ms, range not recorded", "2.4 ms", "1.5 ms"} <= written
    widths = sorted(round(b.get_width(), 3) for b in ax.patches)
    assert widths == [1.0, 1.0, 2.0, 2.0]  # each relative to the fastest of its row
    assert any(c.get_label().startswith("best found: min–max") for c in ax.collections)
    assert fig._repr_png_().startswith(b"\x89PNG")


def test_the_peers_chart_draws_each_peers_range_and_says_where_none_was_recorded():
    best = {"asum": 1.2, "gemv": 3.0}
    peers = {"asum": {"NumPy": 2.4}, "gemv": {"NumPy": 1.5}}
    fig = plots.versus_peers(best, peers, spread={"asum": (1.1, 1.4), "gemv": (2.9, 3.3)},
                             peers_spread={"asum": {"NumPy": (2.0, 3.0)}})
    ax = fig.axes[0]
    written = {t.get_text().strip() for t in ax.texts}
    assert {"1.2 ms", "3 ms", "2.4 ms", "1.5 ms, range not recorded"} <= written
    ranges = [c for c in ax.collections if c.get_label() == "peers: min–max of their runs"]
    [(start, end)] = [tuple(seg[:, 0]) for seg in ranges[0].get_segments()]
    assert (start, end) == (2.0 / 1.2, 3.0 / 1.2)  # relative to the row's fastest


def test_short_times_come_with_a_note_and_long_ones_without():
    assert plots.timing_note([0.5, 1.2]) == ""
    note = plots.timing_note([0.004, 0.5, None])
    assert "1 of these 3 times are below 0.02 ms" in note
    assert "below 0.1 ms" in plots.timing_note([0.05], resolution_ns=1000)  # a coarse timer
    # the device's own floor, where measured and higher: 10x an empty kernel's time there
    assert plots.timing_note([0.03], floor_ms=0.002) == ""
    assert "below 0.02 ms, where" in plots.timing_note([0.01], floor_ms=0.0002)
    note = plots.timing_note([0.01, 0.05], floor_ms=0.004)
    assert "1 of these 2 times are below 0.04 ms (10x an empty kernel's 0.0040 ms" in note


@given(st.floats(0.001, 10), st.floats(1.0, 3.0), st.floats(0.001, 10), st.floats(1.0, 3.0))
def test_the_comparison_says_what_the_ranges_say(a, a_spread, b, b_spread):
    a_range, b_range = (a, a * a_spread ** 0.5, a * a_spread), (b, b * b_spread ** 0.5,
                                                               b * b_spread)
    text = plots.comparison_text("fused", a_range, "unfused", b_range)
    if a_range[2] < b_range[0]:
        assert "the first is faster" in text
    elif a_range[0] > b_range[2]:
        assert "the first is slower" in text
    else:
        assert "the first is not measurably different" in text
    assert plots.spread_text(a_range[1], a_range[0], a_range[2]) in text


def test_a_grid_of_curves_shares_one_legend_below_it():
    fig = plots.figure((12, 6))
    for ax in fig.subplots(2, 3).flat:
        plots.efficiency_curve(_records(20), fixed=[4], title="a rather long title", ax=ax,
                               legend=False)
    plots.shared_legend(fig)
    assert all(ax.get_legend() is None for ax in fig.axes)
    assert len(fig.legends) == 1
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert len(labels) == len(set(labels)) and "step fixed" in labels
    fig.canvas.draw()
    assert fig.legends[0].get_window_extent().y1 <= min(
        ax.get_window_extent().y0 for ax in fig.axes) + 1  # below every axes
    boxes = [ax.title.get_window_extent() for ax in fig.axes]
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


def test_a_prediction_far_off_does_not_squash_the_measured_curve():
    records = _records(30)
    for i, r in enumerate(records):
        r["predicted_ms"] = 1.2 if i != 7 else 70000.0
    ax = plots.efficiency_curve(records).axes[0]
    assert ax.get_ylim()[1] < 10  # the measured times fill the axes
    assert any("1 off the axes" in c.get_label() for c in ax.collections)


def _timed(times: list[float | None]) -> list[dict]:
    return [{"correct": t is not None, "kernel_ms": t} for t in times]


def test_strategies_are_drawn_relative_to_the_best_any_of_them_found():
    runs = {"egraph": _timed([4.0, None, 2.0, 3.0]), "guided": _timed([None, 8.0, 1.0]),
            "random": _timed([None, None])}
    curves = plots.relative_best_so_far(runs)
    assert list(curves["egraph"]) == [4.0, 4.0, 2.0, 2.0]
    assert curves["guided"][0] != curves["guided"][0]  # NaN before its first correct kernel
    assert list(curves["guided"][1:]) == [8.0, 1.0]
    assert all(c != c for c in curves["random"])
    ax = plots.strategies_curve(runs, title="asum").axes[0]
    labels = [line.get_label() for line in ax.get_lines()]
    assert "egraph (4, ends at 2.00×)" in labels and "guided (3, ends at 1.00×)" in labels
    assert "random (2)" in labels


def test_strategies_without_a_correct_kernel_say_so():
    ax = plots.strategies_curve({"mcts": _timed([None, None, None])}).axes[0]
    assert [t.get_text() for t in ax.texts] == ["no correct kernel among 3 candidates"]

"""The widget's e-graph panel (``widgets.egraph_panel``), its Python side: growing the
current step's e-graph in the background fills the view's synced traits with each
iteration as the report has it, the header says what was grown, a selected iteration's
program is adopted as the derivation's next steps, "stop" ends the growth after the round
running, a sketch that does not parse is shown in the panel's error area, and a panel of a
given program has no derivation to adopt into."""

from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets", reason="the widget needs the lab extra: pip install -e .[lab]")
pytest.importorskip("anywidget", reason="the widget needs the lab extra: pip install -e .[lab]")

from benchmarks.saturation import MM_SKETCHES  # noqa: E402
from widgets import Workbench  # noqa: E402
from widgets.egraph_panel import EGraphPanel, EGraphView  # noqa: E402
from workbench.errors import WorkbenchError  # noqa: E402
from workbench.programs import library  # noqa: E402


def asum_widget() -> Workbench:
    wb = Workbench(library("blas")["asum"], auto_run=False, sizes={"N": 1024})
    wb.egraph.rounds.value, wb.egraph.nodes.value = 2, 1200
    return wb


def test_growing_fills_the_views_traits_with_every_iteration_and_adopts_one():
    wb = asum_widget()
    panel = wb.egraph
    assert "egraph" in wb.sections and panel.adopt_button.disabled
    panel.start_button.click()
    wb.wait(120)
    assert wb.errors.messages == []
    report = panel.report
    assert len(report.iterations) == 3  # the start and two rounds
    assert panel.view.iterations == [it.as_json() for it in report.iterations]
    assert panel.view.stopped == report.stopped and panel.view.selected == -1
    last = report.last
    assert f"2 rounds, {last.classes} e-classes, {last.nodes} e-nodes" in \
        wb.sections["egraph"].summary.value
    assert panel.shown() is last and not panel.adopt_button.disabled
    assert "ready (e-graph (unguided)" in panel.status.value
    # a click on the chart's first round selects it; adopting it continues the derivation
    chosen = next(it for it in report.iterations if it.steps)
    panel.view.selected = chosen.number
    assert panel.shown() is chosen
    panel.adopt_button.click()
    assert wb.errors.messages == []
    assert wb.derivation.current == chosen.program
    assert [s.rule for s in wb.derivation.steps] == [s.rule for s in chosen.steps]
    assert f"adopted iteration {chosen.number}'s {len(chosen.steps)} step" in \
        panel.adopted.value


def test_stop_ends_the_growth_after_the_round_running():
    wb = asum_widget()
    panel = wb.egraph
    panel.rounds.value = 6
    shown = panel._iteration

    def stop_at_the_start(it):  # the user clicks stop as the start is shown
        shown(it)
        if it.number == 0:
            panel.stop_button.click()

    panel._iteration = stop_at_the_start
    panel.start_button.click()
    wb.wait(120)
    assert panel.report.stopped == "cancelled" and len(panel.view.iterations) == 1
    assert panel.stop_button.disabled and "cancelled" in wb.sections["egraph"].summary.value


def test_a_new_growth_stops_the_one_running_and_only_its_own_iterations_are_shown():
    wb = asum_widget()
    panel = wb.egraph
    panel.rounds.value = 6
    first = panel.start()
    panel.rounds.value = 1
    second = panel.start()
    wb.wait(120)
    assert first.result().stopped == "cancelled"
    assert second.result() is panel.report and len(panel.report.iterations) == 2
    assert panel.view.iterations == [it.as_json() for it in panel.report.iterations]
    assert panel.view.stopped == panel.report.stopped == "1 round"


def test_sketches_one_per_line_guide_the_growth_and_a_malformed_one_is_shown():
    mm = library("mm")["mm"]
    wb = Workbench(mm, "[[float]_16]_16", "[[float]_16]_16", auto_run=False)
    panel = wb.egraph
    panel.rounds.value, panel.nodes.value = 6, 20000
    panel.sketches.value = "\n".join(MM_SKETCHES["tiling"]) + "\n\n"
    panel.start_button.click()
    wb.wait(180)
    assert panel.report.stopped == "every sketch reached", panel.report.stopped
    assert panel.view.iterations[-1]["sketch"] == MM_SKETCHES["tiling"][0]
    assert panel.view.iterations[-1]["reached"] is True
    reached = panel.iterations[-1]  # costed by the cost model, as every extracted program
    assert reached.unit == "ms predicted" and reached.cost > 0
    assert "1 of 1 sketches reached" in wb.sections["egraph"].summary.value
    panel.sketches.value = "contains(map ? ∘ ∘ split n)"
    panel.start_button.click()
    wb.wait(60)
    assert panel.report is None and panel.view.iterations == []
    assert "e-graph (1 sketch)" in panel.errors.value and "line 1" in panel.errors.value


def test_a_panel_of_a_given_program_grows_but_has_nothing_to_adopt_into():
    panel = EGraphPanel.of("reduce (+) 0 ∘ map abs", "[float]_64")
    assert panel.adopt_button not in panel.children[2].children
    panel.rounds.value = 1
    panel.start()
    panel.wait(60)
    assert len(panel.view.iterations) == 2 and panel.view.iterations[1]["nodes"] > 6
    with pytest.raises(WorkbenchError, match="no derivation to adopt into"):
        panel.adopt()


def test_the_view_declares_its_synced_traits():
    view = EGraphView()
    synced = {name for name in view.trait_names(sync=True)}
    assert {"iterations", "selected", "stopped"} <= synced
    assert (view.iterations, view.selected, view.stopped) == ([], -1, "")
    assert "wb-egraph-chart" in view._esm and ".wb-egraph-program" in view._css

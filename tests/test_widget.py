"""The workbench widget driven from Python, without a browser: selecting a node (what a click
sets), the buttons (``.click()``), the derivation, the OpenCL text and runs on the CPU
default. The browser side (the JavaScript click handler) is in ``test_browser.py``."""

from __future__ import annotations

import html
import importlib.util
import json
import re
import threading
import time

import numpy as np
import pytest

pytest.importorskip("ipywidgets", reason="the widget needs the lab extra: pip install -e .[lab]")
pytest.importorskip("anywidget", reason="the widget needs the lab extra: pip install -e .[lab]")
pytest.importorskip("matplotlib", reason="the widget needs the lab extra: pip install -e .[lab]")

from widgets import Workbench
from widgets.search_panel import steps_of
from widgets.tasks import ErrorArea, Worker
from widgets.tree import CHANGED, LEVELS, has_dot, level, tree_svg
from workbench import Derivation, WorkbenchError, apply, parse, parse_program, rewrites, run
from workbench.errors import format_path
from workbench.expr import subterm, walk

SCAL = """
mul3 : float -> float
mul3 = λx. x * 3

vectorScal : [float]_N -> [float]_N
vectorScal = map mul3
"""

needs_dot = pytest.mark.skipif(not has_dot(), reason="graphviz's dot is not installed "
                               "(apt-get install graphviz)")


def scal():
    return parse_program(SCAL)["vectorScal"]


def has_device() -> bool:
    from workbench.device.opencl import devices

    try:
        return bool(devices())
    except Exception:
        return False


needs_device = pytest.mark.skipif(not has_device(), reason="no OpenCL device (PoCL missing)")


def fills(svg: str) -> dict[str, str]:
    """Node title (its path) -> fill colour, read from graphviz's SVG."""
    out = {}
    for block in re.findall(r'<g id="[^"]*" class="node">(.*?)</g>\s*</g>', svg, re.S):
        title = re.search(r"<title>(.*?)</title>", block).group(1)
        out[title] = re.search(r'fill="(#[0-9a-f]{6})"', block).group(1)
    return out


@needs_dot
def test_tree_nodes_are_paths_and_levels_have_colours():
    e = parse("join ∘ mapWorkgroup (map abs) ∘ split 1024")
    svg = tree_svg(e, selected="1")
    colours = fills(svg)
    assert set(colours) == {format_path(p) for p, _ in walk(e)}
    assert level(subterm(e, (1,))) == "opencl" and level(subterm(e, (1, 0))) == "high"
    assert colours["1"] == LEVELS["opencl"][0]
    assert colours["1.0"] == LEVELS["high"][0]
    assert colours["1"] != colours["1.0"] != colours["2"]
    assert not svg.startswith("<?xml") and 'id="wb_n_1_0"' in svg


def test_selecting_a_node_lists_the_rules_that_apply_there():
    wb = Workbench(scal(), auto_run=False)
    wb.tree.selected = "root"  # what a click on the root node sets
    expected = list(dict.fromkeys(r.rule for r in rewrites(wb.current, at=())))
    assert [v for _, v in wb.rules.rule_select.options] == expected
    assert "selected <b>root</b>" in wb.rules.header.value
    wb.rules.rule_select.value = "split-join"
    wb.rules._dropdowns["n"].value = "128"
    assert "join ∘ map (map mul3) ∘ split 128" in wb.rules.preview.value
    wb.wait()
    assert not wb.errors.messages


@needs_dot
def test_the_preview_highlights_the_nodes_the_rule_changes():
    wb = Workbench("join ∘ map (map abs) ∘ split 1024", "[float]_N", auto_run=False)
    wb.tree.selected = "1"
    wb.rules.rule_select.value = "map→mapWorkgroup"
    colours = fills(wb.tree.svg)
    assert colours["1"] == CHANGED and colours["1.0"] == CHANGED  # the map and its body
    assert colours["0"] != CHANGED and colours["2"] != CHANGED
    wb.rules.rule_select.value = None
    assert CHANGED not in fills(wb.tree.svg).values()


def test_apply_undo_redo_branch_switch_through_the_buttons():
    wb = Workbench(scal(), auto_run=False)
    start = wb.current
    wb.tree.selected = "root"
    wb.rules.rule_select.value = "split-join"
    wb.rules._dropdowns["n"].value = "1024"
    wb.apply_button.click()
    assert wb.current == apply(start, "split-join", "root", n=1024)
    assert len(wb.derivation) == 1 and not wb.undo_button.disabled and wb.redo_button.disabled
    assert "split 1024" in wb.paper.table.value
    wb.tree.selected = "1"
    wb.choose("map→mapWorkgroup")
    wb.apply_button.click()
    assert str(wb.current) == "join ∘ mapWorkgroup (map mul3) ∘ split 1024"

    wb.undo_button.click()
    assert str(wb.current) == "join ∘ map (map mul3) ∘ split 1024"
    assert not wb.redo_button.disabled
    wb.redo_button.click()
    assert str(wb.current) == "join ∘ mapWorkgroup (map mul3) ∘ split 1024"

    wb.branch_step.value = 1
    wb.branch_button.click()  # back to step 1; the mapWorkgroup step is kept as a branch
    assert len(wb.derivation) == 1 and len(wb.derivation.branches) == 1
    wb.select("1")
    wb.choose("map→mapGlobal")
    wb.apply_button.click()
    assert str(wb.current) == "join ∘ mapGlobal (map mul3) ∘ split 1024"
    wb.branch_choice.value = 0
    wb.switch_button.click()
    assert str(wb.current) == "join ∘ mapWorkgroup (map mul3) ∘ split 1024"
    wb.wait()
    assert not wb.errors.messages


def test_apply_without_a_choice_is_reported_in_the_widget_not_raised():
    wb = Workbench(scal(), auto_run=False)
    wb.tree.selected = "0"  # the user function mul3: no rule applies there
    assert wb.rules.rule_select.options == ()
    wb.apply_button.click()
    assert any("choose a rule" in m for m in wb.errors.messages)
    wb.undo_button.click()  # disabled in the browser; from Python it is reported
    assert any("nothing to undo" in m for m in wb.errors.messages)
    assert len(wb.derivation) == 0


def test_exports_are_the_derivations_own():
    d = Derivation.load(_saved("icfp_fig3_vector_scaling.json"))
    wb = Workbench(d, auto_run=False)
    wb.paper.buttons["Markdown"].click()
    assert wb.paper.text.value == d.to_markdown()
    wb.paper.buttons["LaTeX"].click()
    assert wb.paper.text.value == d.to_latex()
    wb.paper.buttons["JSON"].click()
    assert json.loads(wb.paper.text.value) == d.to_json()
    assert "download=" in wb.paper.link.value
    for _, rule, expr in d.lines()[1:]:
        assert str(expr).replace("∘", "") and rule.split()[-1] in wb.paper.table.value


def test_opencl_of_the_step_is_what_run_compiles_and_names_default_completion():
    wb = Workbench(scal(), sizes={"N": 2048}, auto_run=False)
    wb.wait()
    xs = np.zeros(2048, np.float32)
    assert "default completion" in wb.code.value
    assert "map→mapGlobal at root" in wb.code.value
    assert wb.opencl_source == run(wb.current, xs, repeat=1).source
    for rule, path, params in [("split-join", "root", {"n": 512}),
                               ("map→mapWorkgroup", "1", {}), ("map→mapLocal", "1.0", {})]:
        wb.select(path)
        wb.choose(rule, **params)
        wb.apply_button.click()
    wb.wait()
    assert "fully low-level" in wb.code.value and "default completion" not in wb.code.value
    assert "kernel void" in wb.opencl_source and "get_local_id" in wb.opencl_source
    assert wb.opencl_source == run(wb.current, xs, repeat=1).source
    assert '<span style="color' in wb.code.value  # highlighted


@needs_device
def test_the_device_menu_shows_each_devices_health_and_chooses_the_runs_device():
    from widgets.device_menu import DEFAULT
    from workbench.device.opencl import default_device, devices

    wb = Workbench(scal(), sizes={"N": 1024}, repeat=3, auto_run=False)
    labels = dict((value, label) for label, value in wb.device_menu.menu.options)
    assert wb.device_menu.menu.label == labels[DEFAULT]  # the menu shows the default
    assert labels[DEFAULT].startswith(f"default: {default_device().id} ")
    assert wb.device_menu.value is None
    for d in devices():
        assert labels[d.id].endswith("ok" if d.ok else d.health)
    broken = [d for d in devices() if not d.ok]
    if broken:
        wb.device_menu.menu.value = broken[0].id
        assert html.escape(broken[0].reason) in wb.device_menu.note.value  # said at once
        assert wb.runs.device == broken[0].id and wb.device == broken[0].id
    working = next(d for d in devices() if d.ok and d.kind != "simulator")
    wb.device_menu.menu.value = working.id
    assert wb.device_menu.note.value == ""
    wb.runs.run_button.click()
    wb.wait()
    m = wb.runs.measurement(wb.current)
    assert m is not None and m.correct and m.device == working.name
    wb.device_menu.menu.value = DEFAULT  # back to the default device
    assert wb.device is None and wb.runs.device is None


def _fake_device(id: str, kind: str, health: str = "ok"):
    from workbench.device.opencl import DeviceInfo

    return DeviceInfo(id=id, platform="Fake", name=f"fake {kind}", kind=kind, driver="1",
                      compute_units=2, max_work_group_size=256, local_memory_bytes=32768,
                      doubles=True, health=health)


@pytest.mark.parametrize("gpu_health, environment, says", [
    ("ok", {}, True),                                 # the CPU is the default, a GPU works
    ("broken: builds nothing", {}, False),            # the GPU does not work
    ("ok", {"WORKBENCH_DEVICE": "cpu"}, False),       # the CPU was chosen
    ("ok", {"PYOPENCL_CTX": "0:0"}, False),
])
def test_the_device_menu_says_when_a_working_gpu_waits_beside_the_cpu_default(
        monkeypatch, gpu_health, environment, says):
    from widgets.device_menu import DeviceMenu
    from workbench.device import opencl as opencl_devices

    cpu, gpu = _fake_device("0:0", "cpu"), _fake_device("1:0", "gpu", gpu_health)
    monkeypatch.setattr(opencl_devices, "devices", lambda check=False, progress=None: [cpu, gpu])
    monkeypatch.setattr(opencl_devices, "default_device", lambda: cpu)
    for name in ("WORKBENCH_DEVICE", "PYOPENCL_CTX"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    menu = DeviceMenu()
    hint = "a working GPU is present (1:0 fake gpu): choose it with this menu"
    assert (hint in menu.note.value) == says, menu.note.value
    menu.menu.value = gpu.id  # chosen: nothing more to say
    assert hint not in menu.note.value
    assert DeviceMenu(device="gpu").value == "gpu"  # a kind is kept as given


@needs_device
def test_run_this_step_on_the_default_device():
    wb = Workbench(scal(), sizes={"N": 1024}, repeat=3, auto_run=False)
    wb.runs.run_button.click()
    wb.wait()
    m = wb.runs.measurement(wb.current)
    assert m is not None and m.correct and m.status == "ok", wb.errors.messages
    assert m.kernel_ms > 0 and m.completed == ["map→mapGlobal at root"]
    assert "ok (checked)" in wb.runs.table.value and "interpreter (NumPy)" in wb.runs.table.value
    assert bytes(wb.runs.plot.value).startswith(b"\x89PNG")
    first_plot = bytes(wb.runs.plot.value)
    wb.select("root")
    wb.choose("split-join", n=256)
    wb.apply_button.click()
    wb.runs.run_all_button.click()
    wb.wait()
    steps = [wb.runs.measurement(e) for e in wb.derivation.expressions()]
    assert all(s is not None and s.correct for s in steps)
    assert [s.step for s in steps] == [0, 1]
    assert bytes(wb.runs.plot.value) != first_plot


@needs_device
def test_each_new_step_runs_by_itself_and_a_bad_size_is_an_outcome():
    wb = Workbench(scal(), sizes={"N": 1024}, repeat=2)
    wb.select("root")
    wb.choose("split-join", n=256)
    wb.apply_button.click()
    wb.wait()
    assert [wb.runs.measurement(e) is not None for e in wb.derivation.expressions()] == \
        [True, True]
    wb.runs.size_inputs["N"].value = 1000  # split 256 does not divide 1000
    wb.runs.run_button.click()
    wb.wait()
    m = wb.runs.measurement(wb.current)
    assert m is not None and not m.correct and m.status != "ok"
    assert "256" in m.message or "1000" in m.message
    assert m.status in wb.runs.table.value


def test_program_text_expression_and_bad_input():
    assert str(Workbench(SCAL, auto_run=False).current) == "map mul3"
    wb = Workbench("reduce (+) 0 ∘ map abs", "[float]_N", auto_run=False)
    assert wb.derivation.input_types and wb.runs.sizes() == {"N": 4096}
    with pytest.raises(WorkbenchError, match="carries its input types"):
        Workbench(Derivation("map abs", "[float]_N"), "[float]_N")
    with pytest.raises(WorkbenchError, match="not a int"):
        Workbench(3)


def test_worker_shows_running_and_reports_errors():
    import ipywidgets as w

    errors = ErrorArea()
    status = w.HTML("")
    worker = Worker("test", status, errors)
    gate = threading.Event()
    worker.submit("slow job", gate.wait)
    assert worker.busy
    for _ in range(100):
        if "running" in status.value:
            break
        threading.Event().wait(0.01)
    assert "running… slow job" in status.value
    gate.set()
    worker.submit("bad job", lambda: 1 / 0)
    worker.wait(10)
    assert not worker.busy and "ready" in status.value
    assert errors.messages and errors.messages[-1].startswith("bad job: ZeroDivisionError")


def test_the_search_panel_offers_every_strategy():
    wb = Workbench(scal(), auto_run=False)
    from workbench.search import STRATEGIES

    assert tuple(wb.search.strategy.options) == tuple(STRATEGIES)
    assert not wb.search.start_button.disabled


def test_search_steps_in_each_accepted_form():
    d = Derivation("map abs", "[float]_N")
    d.apply("split-join", "root", n=128)
    expected = [("split-join", (), {"n": d.steps[0].params["n"]})]
    assert steps_of(d) == expected
    assert steps_of([("split-join", (), {"n": 128})]) == [("split-join", (), {"n": 128})]
    assert steps_of([{"rule": "split-join", "path": "root", "params": {"n": "128"}}]) == \
        [("split-join", "root", {"n": "128"})]


@needs_device
@pytest.mark.skipif(importlib.util.find_spec("workbench.search") is None,
                    reason="workbench.search is not installed")
def test_search_from_the_widget_and_adopt_the_best():
    wb = Workbench(scal(), sizes={"N": 1024}, repeat=2, auto_run=False)
    assert wb.search.strategy.value == "guided"  # the cost-guided descent by default
    wb.search.budget.value = 4
    wb.search.start_button.click()
    wb.wait(300)
    assert not wb.errors.messages
    assert wb.search.result is not None and wb.search.records
    assert wb.search.progress.value == min(len(wb.search.records), 4)
    assert bytes(wb.search.plot.value).startswith(b"\x89PNG")
    # the curve shows the cost model's prediction for each candidate
    assert all(r.get("predicted_ms") for r in wb.search.records)
    wb.search.adopt_button.click()
    assert not wb.errors.messages
    assert wb.current == wb.search.result.best


def _program(name: str) -> str:
    from pathlib import Path

    import workbench

    return str(Path(workbench.__file__).parent / "programs" / name)


def _saved(name: str) -> str:
    from pathlib import Path

    import workbench

    return str(Path(workbench.__file__).parent / "derivations" / name)


def test_without_graphviz_the_tree_is_a_clickable_list():
    from widgets.tree import tree_html

    e = parse("join ∘ mapWorkgroup (map abs) ∘ split 1024")
    page = tree_html(e, selected="1", changed={"1.0"})
    assert re.findall(r'data-path="([^"]*)"', page) == [format_path(p) for p, _ in walk(e)]
    assert "apt-get install graphviz" in page and CHANGED in page


HALF = """
f : [float]_N -> [float]_N
f = joinVec ∘ mapGlobal (mapVec (λx. float (int x))) ∘ splitVec 4
"""  # a scalar cast applied to a float4 in OpenCL C: the kernel cannot compile


@needs_device
def test_a_failed_runs_whole_message_opens_in_the_table():
    wb = Workbench(HALF, sizes={"N": 256}, repeat=1)
    wb.wait()
    m = wb.runs.measurement(wb.current)
    assert m is not None and m.status == "compile error" and len(m.message) > 200
    table = wb.runs.table.value
    assert '<details class="wb-message"' in table
    assert html.escape(m.message) in table  # all of it, one click away
    assert "compile error" in wb.sections["runs"].summary.value


def test_long_messages_open_in_full_and_short_ones_stay_inline():
    from widgets.sections import message_html

    short = message_html("wrong result", "differs by 0.5")
    assert "<details" not in short and "wrong result: differs by 0.5" in short
    long = message_html("compile error", "line one\n" + "x" * 400 + "\nthe cause <here>")
    assert long.startswith('<details class="wb-message"')
    assert "<summary" in long and "compile error: line one" in long
    assert "the cause &lt;here&gt;" in long


def test_the_opencl_panel_wraps_long_lines_in_a_full_width_panel():
    from widgets.code import StepCode, code_html

    source = "kernel void k(" + ", ".join(f"global float *restrict in{i}" for i in range(20)) \
        + ") {\n  /* a comment */\n\n}"
    page = code_html(StepCode("map abs", source=source, launches=[("k", (64,), None)],
                              codegen_ms=0.1), 2)
    panel = page[page.index('class="wb-opencl"'):]
    assert "white-space:pre-wrap" in panel and "overflow-x:hidden" in panel
    assert panel.count("text-indent:-6ch") == 4  # one block per line, continuations indented
    wb = Workbench(scal(), auto_run=False)
    wb.wait()
    assert set(wb.sections) == {"tree", "derivation", "code", "runs", "search", "egraph"}
    assert "1 kernel" in wb.sections["code"].summary.value


def test_panels_collapse_from_their_header_and_from_the_bar():
    from widgets.sections import SectionBar

    wb = Workbench(scal(), auto_run=False, collapsed=("derivation",))
    assert not wb.sections["derivation"].expanded
    assert wb.sections["derivation"].body.layout.display == "none"
    bar = next(c for c in wb.children if isinstance(c, SectionBar))
    bar.toggles["code"].value = False  # the bar at the top hides the OpenCL panel
    assert not wb.sections["code"].expanded and wb.sections["code"].body.layout.display == "none"
    assert wb.sections["code"].toggle.description == "▸ OpenCL"
    wb.sections["code"].toggle.value = True  # its own header shows it again
    assert bar.toggles["code"].value and wb.sections["code"].body.layout.display is None
    with pytest.raises(WorkbenchError, match="no panel 'plots'"):
        Workbench(scal(), auto_run=False, collapsed=("plots",))


@needs_device
def test_a_search_that_stops_early_or_finds_nothing_says_why():
    wb = Workbench("mapGlobal abs", "[float]_N", sizes={"N": 1024}, repeat=1, auto_run=False)
    wb.search.budget.value = 12
    wb.search.start_button.click()
    wb.wait(120)
    assert "stopped after 1 of 12: the expression is already fully low-level: 1 candidate" \
        in wb.search.best.value
    assert "best 0." in wb.sections["search"].summary.value
    wb = Workbench(HALF, sizes={"N": 256}, repeat=1, auto_run=False)
    wb.search.start_button.click()
    wb.wait(120)
    assert wb.search.result.best is None and wb.search.adopt_button.disabled
    assert "no correct kernel among 1 candidate (1 compile error)" in wb.search.best.value
    assert "the first failure (candidate 1, compile error)" in wb.search.best.value
    assert html.escape(wb.search.result.first_failure["message"]) in wb.search.best.value


@needs_device
def test_the_stop_button_ends_a_search_and_keeps_what_it_found():
    wb = Workbench(scal(), sizes={"N": 1024}, repeat=1, auto_run=False)
    wb.search.budget.value = 30
    original = wb.search._record

    said = []

    def record_then_stop(record):  # the user clicks stop once the first candidate is in
        if len(wb.search.records) == 1:
            wb.search.stop_button.click()
            # at once, before the search has ended: the panel says so, with what it found
            said.append((wb.search.status.value, wb.sections["search"].summary.value,
                         wb.search.result, len(wb.search.stopped_records)))
        original(record)

    wb.search._record = record_then_stop
    wb.search.start_button.click()
    wb.wait(300)
    result = wb.search.result
    assert not wb.errors.messages
    assert result is not None and result.evaluated < 30
    assert result.stopped.startswith("stopped by you after 2 of 30 candidates")
    assert "stopped by you" in wb.search.best.value
    assert wb.search.stop_button.disabled
    status, header, result_then, shown = said[0]
    assert "stopped by you after 1 candidate;" in status and result_then is None
    assert shown == 1 and "stopped after 1 candidate" in header


def test_progress_counts_candidates_and_runs_with_the_best_so_far():
    from widgets import Progress

    progress = Progress(4, "candidates", show=False)
    progress.start("mcts, seed 0")
    progress({"correct": True, "kernel_ms": 0.5, "status": "ok"})
    progress({"correct": False, "kernel_ms": None, "status": "compile error"})
    progress({"correct": True, "kernel_ms": 0.25, "status": "ok"})
    assert progress.bar.value == 3 and progress.best_ms == 0.25
    text = progress.text.value
    assert "3 / 4 candidates · mcts, seed 0 · best so far 0.2500 ms · last: 0.2500 ms" in text
    progress.advance("a run")
    progress.finish()
    assert progress.bar.value == 4 and "last: done" in progress.text.value
    progress({"correct": True, "kernel_ms": 0.125, "kernel_ms_min": 0.12,
              "kernel_ms_max": 0.5, "status": "ok"})  # a time with its range
    assert "best so far 0.1250 ms [0.1200–0.5000]" in progress.text.value


@pytest.mark.parametrize("macro", ["map-reduce-fusion", "map-reduce-fusion-strided"])
def test_fig_10_by_clicking_at_symbolic_n(macro):
    """ICFP Fig. 10 (and Fig. 11's strided reading) line by line on asum as the README builds
    it (symbolic N, the size box): every parameter, N/128 included, is one the rule list
    offers, and the last line is the macro's."""
    from workbench import load
    from workbench.rewriting.expansion import expand

    wb = Workbench(load(_program("blas.lift"))["asum"], auto_run=False)  # README's way
    assert "N" in wb.runs.size_inputs and not wb.runs.size_inputs["N"].disabled
    steps = expand(wb.current, macro, "0", chunk=128)
    last = apply(wb.current, macro, (0,), chunk=128)
    for step in steps:
        wb.select(step.path)
        assert wb.apply_button.disabled  # nothing chosen yet
        wb.choose(step.rule, **{k: str(v) for k, v in step.params.items()})
        assert not wb.apply_button.disabled
        wb.apply_button.click()
        assert not wb.errors.messages, wb.errors.messages
    assert [s.rule for s in wb.derivation.steps] == [s.rule for s in steps]
    assert str(wb.derivation.steps[0].params["n"]) == "N/128"
    assert str(wb.current) == str(last)
    assert str(wb.current).startswith("reduce (+) 0 ∘ join ∘ map (reduceSeq (λ(acc, x). acc + "
                                      "abs x) 0) ∘ split 128")
    assert wb.derivation.input_types == () and wb.runs.size_inputs["N"].value == 4096


def test_errors_show_beside_their_buttons_and_are_dismissed():
    wb = Workbench(scal(), auto_run=False)
    wb.apply_button.click()  # nothing chosen
    assert "choose a rule" in wb.step_errors.value  # in the rule panel, by the button
    assert wb.errors.value == ""  # not at the top of the widget
    assert any("choose a rule" in m for m in wb.errors.messages)  # but recorded there
    assert wb.step_errors.dismiss.layout.display is None  # the × shows with a message
    wb.step_errors.dismiss.click()
    assert wb.step_errors.value == "" and wb.step_errors.dismiss.layout.display == "none"
    wb.search.adopt_button.click()  # no search yet: said beside the search's buttons
    assert "no finished search" in wb.search.errors.value and wb.step_errors.value == ""


def test_apply_is_disabled_where_no_rule_applies():
    wb = Workbench(scal(), auto_run=False)
    wb.select("0")  # mul3: a user function, no rule applies
    assert not wb.rules.rewrites and wb.apply_button.disabled
    assert wb.apply_button.tooltip == "no rule applies here"
    wb.select("root")
    assert wb.rules.rewrites and wb.apply_button.disabled  # rules, none chosen yet
    wb.choose("split-join", n=256)
    assert not wb.apply_button.disabled


def test_a_size_that_cannot_run_is_refused_at_the_size_box_never_clamped():
    from workbench.inputs import available_memory

    if available_memory() is None:
        pytest.skip("the memory available is not known here")
    wb = Workbench(scal(), auto_run=False)
    box = wb.runs.size_inputs["N"]
    box.value = 2 ** 40  # 4 TiB of floats
    assert box.value == 2 ** 40  # kept as typed
    problem = wb.runs.size_errors.value
    assert "N = 1099511627776" in problem and "memory" in problem
    assert "wb-size-refused" in box._dom_classes
    wb.runs.run_button.click()
    wb.wait()
    assert wb.runs.measurement(wb.current) is None  # nothing was allocated or run
    assert "fully low-level" not in wb.code.value and "no code" in wb.code.value
    box.value = 0
    assert "a size is at least 1" in wb.runs.size_errors.value
    box.value = 1024
    assert wb.runs.size_errors.value == "" and "wb-size-refused" not in box._dom_classes


def test_a_step_without_code_never_says_fully_low_level():
    from widgets.code import StepCode, code_html

    page = code_html(StepCode("map f", problem="split 256 does not divide N = 1000"), 1)
    assert "no code" in page and "fully low-level" not in page and "completion" not in page


def test_no_search_plot_before_a_search():
    wb = Workbench(scal(), auto_run=False)
    assert wb.search.plot.layout.display == "none" and not wb.search.plot.value


def test_adopt_replays_a_step_that_needs_the_length_at_the_searchs_sizes():
    """An iteration of partial reductions needs the length (k-th root of N): adopting it on
    asum at symbolic N replays the derivation at the size the search ran at, and fixes the
    size box. A two-stage reduction (chunks of N/G) keeps the widget's own types."""
    from workbench import load

    asum = load(_program("blas.lift"))["asum"]
    wb = Workbench(asum, auto_run=False)
    start = wb.current
    found = [r for r in rewrites(start, "[float]_4096") if r.rule == "reduce→iterate"
             and str(r.params["k"]) == "2"]
    assert found and not [r for r in rewrites(start) if r.rule == "reduce→iterate"]
    first = found[0]
    steps = [("reduce→iterate", first.path, dict(first.params))]
    note = wb._adopt(0, steps, str(start), {"N": 4096})
    assert "N = 4096" in note and "reduce→iterate" in note
    assert [s.rule for s in wb.derivation.steps] == ["reduce→iterate"]
    assert [str(t) for t in wb.derivation.input_types] == ["[float]_4096"]
    assert wb.current == first.result
    box = wb.runs.size_inputs["N"]
    assert box.disabled and box.value == 4096
    assert "[float]_4096" in wb.title.value
    two_stage = Workbench(asum, auto_run=False)
    searched = [r for r in rewrites(start, "[float]_4096") if r.rule == "two-stage-reduction"
                and str(r.params["groups"]) == "16" and str(r.params["local"]) == "32"][0]
    assert two_stage._adopt(0, [("two-stage-reduction", searched.path,
                                 dict(searched.params))], str(start), {"N": 4096}) == ""
    assert two_stage.derivation.input_types == ()
    assert "split (N/16)" in str(two_stage.current)
    assert not two_stage.runs.size_inputs["N"].disabled
    two_stage.wait()
    assert "kernel void" in two_stage.opencl_source
    # steps that apply at the widget's own types keep them
    wb2 = Workbench(asum, auto_run=False)
    assert wb2._adopt(0, [("map-reduce-fusion", (0,), {"chunk": "128"})], str(asum),
                      {"N": 4096}) == ""
    assert wb2.derivation.input_types == () and not wb2.runs.size_inputs["N"].disabled
    # a step that applies at no size is refused, naming it, and nothing changes
    with pytest.raises(WorkbenchError, match="step 1 of the 1 adopted .split-join"):
        wb2._adopt(1, [("split-join", (0,), {"n": "128"})], str(wb2.current), {"N": 4096})
    assert len(wb2.derivation.steps) == 1


def test_a_time_below_the_resolution_is_said_so():
    from widgets.runs import below_resolution, spread

    assert spread(0.0123, 0.0118, 0.015) == "0.0123 ms [0.0118–0.0150]"
    assert below_resolution(0.004, 0.0042, 3.8)  # the range is 950x the median
    assert not below_resolution(1.0, 0.9, 1.2)
    assert not below_resolution(None, None, None)


@needs_device
def test_every_time_shown_carries_its_range_and_rates():
    wb = Workbench(scal(), sizes={"N": 1 << 16}, repeat=4, auto_run=False)
    wb.runs.run_button.click()
    wb.wait()
    m = wb.runs.measurement(wb.current)
    assert m is not None and m.correct, wb.errors.messages
    # the program's own input and output: 2^16 floats read and written
    assert m.global_bytes == 2 * 4 * (1 << 16) and m.gb_per_s == pytest.approx(
        m.global_bytes / (m.kernel_ms * 1e6))
    summary = wb.sections["runs"].summary.value
    assert f"[{m.kernel_ms_min:.4f}–{m.kernel_ms_max:.4f}]" in summary and "GB/s" in summary
    c = m.ceilings  # measured on the device: the rate's share of a copy's
    assert c is not None and c.gb_per_s > 0
    assert html.escape(f"{m.gb_per_s / c.gb_per_s:.0%} of a copy's {c.gb_per_s:.1f}") in summary
    table = wb.runs.table.value
    assert "GB/s" in table and re.search(r"interpreter \(NumPy\).*?\d\.\d{4} \[\d", table, re.S)
    assert ("wb-resolution-note" in table) == m.below_resolution
    roof = wb.runs.roofline()  # the measured step under the device's ceilings
    assert len(roof.axes[0].collections) == 1 and roof.axes[0].lines


def test_selecting_a_node_shades_the_opencl_lines_it_generates():
    from workbench import load

    wb = Workbench(load(_program("blas.lift"))["asum"], auto_run=False)
    wb.wait()
    code = wb.code_text
    assert code.line_paths and len(code.line_paths) == len(code.source.rstrip("\n").split("\n"))
    wb.select("1")  # map abs: its kernel's lines
    shaded = re.findall(r'<div class="wb-line wb-line-selected" data-path="([^"]*)"',
                        wb.code.value)
    assert shaded and set(shaded) == {"1"}
    marked = [line for line, p in zip(code.source.split("\n"), code.line_paths) if p == "1"]
    assert any("asum_abs" in line and "=" in line for line in marked)
    wb.select("0")  # the reduction: other lines
    again = re.findall(r'wb-line-selected" data-path="([^"]*)"', wb.code.value)
    assert again and set(again) == {"0"}


def test_the_code_panel_shows_the_difference_from_the_step_before_side_by_side():
    from widgets.diff import canonical_lines

    wb = Workbench(scal(), sizes={"N": 1024}, auto_run=False)
    wb.wait()
    assert "wb-diff" not in wb.code.value  # step 0 has no step before
    wb.select("root")
    wb.choose("split-join", n=256)
    wb.apply_button.click()
    wb.wait()
    before = canonical_lines(wb.code_before.source)
    after = canonical_lines(wb.code_text.source)
    assert before != after
    page = wb.code.value
    assert "difference from step 0" in page and "temporaries renamed canonically" in page
    removed = [line for line in before if line not in after]
    added = [line for line in after if line not in before]
    assert removed and added
    rows = re.findall(r'<tr class="wb-diff-(\w+)">(.*?)</tr>', page, re.S)
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", row, re.S) for _, row in rows]
    # two columns: each line before on the left, each line after on the right
    assert all(len(c) == 2 for c in cells)
    assert html.escape(removed[0]) in [c[0] for c in cells]
    assert html.escape(added[-1]) in [c[1] for c in cells]
    assert "//" not in page[page.index("wb-diff-lines"):]  # no comments in the rows


def test_canonical_names_hide_the_generators_counters_and_comments():
    from widgets.diff import canonical_lines, change_text, side_by_side

    one = ("float uf_f3(float x_) { return x_; }\n// map f\n"
           "kernel void k(global const float *restrict in0, global float *restrict out) {\n"
           "    /* mapGlobal f */\n"
           "    for (int gl1 = get_global_id(0); gl1 < 4; gl1 += 4) {\n"
           "        float4 v2 = vload4(gl1, in0);\n"
           "        out[gl1] = uf_f3(in0[gl1]);\n    }\n}")
    renumbered = (one.replace("gl1", "gl7").replace("uf_f3", "uf_f9").replace("v2", "v5")
                  .replace("// map f", "// map (λx. x)").replace("mapGlobal f", "other"))
    assert canonical_lines(one) == canonical_lines(renumbered)
    assert side_by_side(one, renumbered).same
    assert "float4 v0 = vload4(gl0, in0);" in [line.strip() for line in canonical_lines(one)]
    changed = renumbered.replace("out[gl7] = uf_f9(in0[gl7]);", "out[gl7] = 2 * in0[gl7];")
    change = side_by_side(one, changed)
    assert (change.changed, change.removed, change.added) == (1, 0, 0)
    row = next(r for r in change.rows if r.kind == "changed")
    assert (row.before.strip(), row.after.strip()) == ("out[gl0] = uf_f0(in0[gl0]);",
                                                       "out[gl0] = 2 * in0[gl0];")
    assert "apart from names and comments" in change_text(one, renumbered, 4, "r")
    assert change_text(one, changed, 4, "r").startswith(
        "Step 4 (r) changes the OpenCL of step 3: 1 line changed")


def test_asums_fusion_step_changes_only_where_abs_is_applied():
    """The fusion of the reduction with the map of abs (ICFP Fig. 10): the code generator
    already emitted one loop at the step before, so the step moves abs into the reduction's
    function; the canonical difference shows that line and no renamed temporaries."""
    from widgets.diff import change_text, side_by_side
    from workbench import opencl
    from workbench.programs import library

    d = Derivation(library("blas")["asum"], name="asum")
    d.apply("map-reduce-fusion", "0", chunk=128)
    fused = d.current
    e = Derivation(library("blas")["asum"], name="asum")
    for rule, path, params in [("reduce-partial", "0", {"n": "N/128"}),
                               ("partial-split", "1", {"j": 1}), ("split-join", "4", {"n": 128}),
                               ("split-join-cancel", "3", {}), ("map-fusion", "2", {}),
                               ("map→mapSeq", "2.0.1", {}), ("partial-reduce", "2.0.0", {}),
                               ("reduce→reduceSeq", "2.0.0", {})]:
        e.apply(rule, path, **params)
    before = opencl(e.current, sizes={"N": 4096}, complete=True).source
    e.apply("reduceSeq-mapSeq-fusion", "2.0.0")
    assert str(e.current) == str(fused)
    after = opencl(e.current, sizes={"N": 4096}, complete=True).source
    change = side_by_side(before, after)
    loops = [r for r in change.rows if r.kind == "changed" and "for (" in (r.before or "")]
    assert not loops  # the loops are the same: no renamed loop index shows as a change
    moved = [r for r in change.rows if r.kind == "changed" and "in0[" in (r.before or "")]
    assert len(moved) == 1 and "abs" in moved[0].before and "abs" not in moved[0].after
    assert "Its loops are those of step 8 (the code generator had already produced them" \
        in change_text(before, after, 9, "reduceSeq-mapSeq-fusion")


def test_split_and_join_link_to_the_index_expressions_they_produce():
    from widgets.code import lines_of

    wb = Workbench(scal(), sizes={"N": 4096}, auto_run=False)
    wb.apply("split-join", n=1024)
    wb.wait()
    code = wb.code_text
    lines = code.source.split("\n")
    assert code.line_paths.count("2") == 0 and code.line_paths.count("0") == 0  # no own code
    for view in ("0", "2"):  # join and split
        linked = lines_of(code.line_paths, view, code.view_lines)
        assert linked, view
        assert all("1024*" in lines[k] and "[" in lines[k] for k in linked)
    wb.select("2")
    shaded = re.findall(r'<div class="wb-line wb-line-selected"[^>]*data-views="([^"]*)"',
                        wb.code.value)
    assert shaded and all("2" in v.split() for v in shaded)
    wb.select("1")  # the map keeps its own lines
    assert set(re.findall(r'wb-line-selected" data-path="([^"]*)"', wb.code.value)) <= {
        "1", "1.0"}


def test_applied_views_link_to_the_loads_and_stores_they_index():
    """In the matrix multiplication as Lift writes it (views applied, not composed):
    ``transpose b`` and ``zip rowA colB`` index the loads, ``join`` of a row's results the
    store."""
    from widgets.code import generate
    from workbench import load

    mm = load(_program("mm.lift"))["mm"]
    code = generate(mm, {"M": 32, "K": 32, "N": 32})
    lines = code.source.split("\n")
    named = {format_path(p): n.name for p, n in walk(mm) if hasattr(n, "decl")}
    linked = {named[v]: [lines[k] for k in ks] for v, ks in code.view_lines.items()}
    assert set(linked) == {"transpose", "zip", "join"}
    for view in ("transpose", "zip"):
        assert all("in1[" in line and "=" in line for line in linked[view]), linked[view]
    assert all(line.strip().startswith("out[") for line in linked["join"]), linked["join"]


def test_worker_cancels_the_jobs_of_a_tag_that_have_not_started():
    import ipywidgets

    area = ErrorArea()
    worker = Worker("run", ipywidgets.HTML(""), area)
    release, ran = threading.Event(), []
    worker.submit("blocking", lambda: release.wait(30))
    for k in range(3):
        worker.submit(f"stale {k}", lambda k=k: ran.append(k), tag="auto")
    worker.submit("kept", lambda: ran.append("kept"))
    assert worker.cancel_pending("auto") == 3
    release.set()
    worker.wait(30)
    assert ran == ["kept"] and worker.cancelled == 3 and not area.messages


@needs_device
def test_stale_runs_are_cancelled_when_the_step_changes():
    """Undo and redo with auto-run on: the runs queued for steps left before their run
    began are cancelled; only the step shown at the end is measured."""
    wb = Workbench(scal(), sizes={"N": 1024}, repeat=1, auto_run=False)
    wb.apply("split-join", n=256)
    wb.select("1")
    wb.apply("map→mapGlobal", dim=0)
    wb.wait()
    wb.runs.auto_run.value = True
    release = threading.Event()
    wb.runs.worker.submit("a run that has started", lambda: release.wait(60))
    wb.undo()
    wb.undo()
    wb.redo()
    wb.redo()
    release.set()
    wb.wait(120)
    measured = {m.step for m in wb.runs.measurements.values()}
    assert measured == {2}, measured
    assert wb.runs.worker.cancelled == 3
    assert not wb.errors.messages


def test_a_run_chart_whose_times_span_decades_is_drawn_on_a_log_axis():
    from widgets.chart import spans_decades, steps_chart
    from widgets.plots import steps_plot

    labels, exprs = ["start", "(1) r"], ["a", "b"]
    kernels = [(0.5, 0.45, 0.6), (1.9, 1.8, 2.1)]
    flat = steps_chart(labels, exprs, kernels, {})
    assert not flat["log"]  # kernels within a decade of each other: linear
    beside = steps_chart(labels, exprs, kernels, {"interpreter (NumPy)": (24.0, 23.0, 25.0)})
    assert beside["log"] and spans_decades(kernels + [(24.0, 23.0, 25.0)])
    assert steps_plot(labels, [0.2, 1.9], [False, False], {"interpreter (NumPy)": 24.0})


def test_the_interactive_plots_carry_each_points_range_and_what_it_is():
    from widgets.chart import search_chart, steps_chart

    data = steps_chart(["start", "(1) split-join"], ["map f", "join ∘ map (map f) ∘ split 4"],
                       [(0.02, 0.018, 0.05), None], {"interpreter (NumPy)": (0.1, 0.09, 0.2)})
    kernel, peer = data["series"]
    assert [p["x"] for p in kernel["points"]] == [0]  # the unmeasured step has no point
    point = kernel["points"][0]
    assert (point["lo"], point["hi"]) == (0.018, 0.05)
    assert "start: 0.0200 ms [0.0180–0.0500]" in point["label"] and "map f" in point["label"]
    assert peer["kind"] == "hline" and peer["points"][0]["hi"] == 0.2
    records = [{"kernel_ms": 0.3, "kernel_ms_min": 0.2, "kernel_ms_max": 0.4, "correct": True,
                "expression": "a", "predicted_ms": 0.25},
               {"kernel_ms": None, "correct": False, "expression": "b"},
               {"kernel_ms": 0.1, "kernel_ms_min": 0.1, "kernel_ms_max": 0.2, "correct": True,
                "expression": "c"}]
    s = search_chart(records, lambda r, k: r.get(k))
    candidates, best, predicted = s["series"]
    assert [p["x"] for p in candidates["points"]] == [1, 3]
    assert candidates["points"][1]["label"].endswith("\nc")
    assert [p["y"] for p in best["points"]] == [0.3, 0.1]
    assert predicted["points"][0]["y"] == 0.25 and s["log"]


@needs_device
def test_the_run_panels_chart_is_drawn_from_its_measurements():
    wb = Workbench(scal(), sizes={"N": 1024}, repeat=3, auto_run=False)
    wb.runs.run_button.click()
    wb.wait()
    m = wb.runs.measurement(wb.current)
    kernel = wb.runs.chart.data["series"][0]
    assert kernel["points"][0]["y"] == m.kernel_ms and kernel["points"][0]["lo"] == \
        m.kernel_ms_min


def test_a_search_at_symbolic_n_is_adopted_at_the_widgets_own_types():
    """The widget's search rewrites at the widget's own types ([float]_N) and runs at the
    size box's N: whatever it finds applies there, and adopting it keeps the size box."""
    from workbench import load

    asum = load(_program("blas.lift"))["asum"]
    wb = Workbench(asum, sizes={"N": 4096}, repeat=2, auto_run=False)
    wb.search.budget.value = 4
    wb.search.start_button.click()
    wb.wait(300)
    assert not wb.errors.messages and wb.search.result.best is not None
    assert all(r["sizes"] == {"N": 4096} for r in wb.search.records)
    wb.search.adopt_button.click()
    assert not wb.errors.messages and "N = " not in wb.search.adopted.value
    assert wb.current == wb.search.result.best
    assert wb.derivation.input_types == () and not wb.runs.size_inputs["N"].disabled


def test_the_compilers_lines_are_collected_not_printed(capfd):
    """Lines written to descriptor 2 during a widget job (PoCL's "N warnings generated.",
    from this process or from a worker process it starts) are kept and shown on request."""
    import os
    import subprocess
    import sys
    import time

    import ipywidgets

    from widgets import stderr

    area = ErrorArea()
    worker = Worker("run", ipywidgets.HTML(""), area)
    shown = stderr.CompilerMessages()
    worker.submit("build", lambda: os.write(2, b"3 warnings generated.\n"))
    worker.submit("search", lambda: subprocess.run(
        [sys.executable, "-c", "import os; os.write(2, b'1 warning generated.\\n')"],
        check=True))
    worker.wait(60)
    assert not area.messages
    # (other tests' jobs may still be collecting: their lines can come between these)
    ours = [m for m in stderr.messages if m in ("3 warnings generated.",
                                                "1 warning generated.")]
    assert ours[-2:] == ["3 warnings generated.", "1 warning generated."]
    assert "generated" not in capfd.readouterr().err
    assert "<details" in shown.value and "compiler warnings" in shown.value
    deadline = time.monotonic() + 120  # other tests' jobs may still be collecting
    while stderr._depth and time.monotonic() < deadline:
        time.sleep(0.1)
    os.write(2, b"after\n")  # the descriptor is restored after the jobs
    assert "after" in capfd.readouterr().err
    assert stderr.summary(["2 warnings generated.", "x.cl:1: warning: unused"]) == \
        "2 compiler warnings, 1 line of compiler output"


@needs_device
def test_a_pocl_build_with_a_warning_prints_nothing_during_a_job(capfd):
    import pyopencl as cl

    from widgets import stderr
    from workbench.device.opencl import find_device

    _info, device = find_device()
    context = cl.Context([device])
    # a kernel never built before (pyopencl and PoCL keep built programs on disk, by their
    # preprocessed text, and one taken from a cache is not compiled again: no warning)
    source = (f"kernel void k{time.time_ns()}(global float *x) {{ int i = get_global_id(0); "
              f"x[i] == x[i]; }}")
    with stderr.collecting():
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", cl.CompilerWarning)
            cl.Program(context, source).build()
    assert "1 warning generated." in stderr.messages
    assert "generated" not in capfd.readouterr().err


def test_a_misspelt_size_name_is_refused_naming_the_programs_sizes():
    from workbench.errors import WorkbenchError

    with pytest.raises(WorkbenchError, match=r"sizes 'n': the program has no such size "
                                             r"\(its sizes: N\)"):
        Workbench(scal(), sizes={"n": 1024}, auto_run=False)
    assert Workbench(scal(), sizes={"N": 1024}, auto_run=False).runs.sizes() == {"N": 1024}

"""Several devices in the widget: where more than one device works, the run panel offers a
run on several of them with one distribution per input, and shows every device's times (and
each stage's redistribution); a redistribution shows in the tree like any node."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("ipywidgets", reason="the widget needs the lab extra: pip install -e .[lab]")
pytest.importorskip("anywidget", reason="the widget needs the lab extra: pip install -e .[lab]")

from widgets import Workbench  # noqa: E402
from widgets.device_menu import SeveralDevices  # noqa: E402
from widgets.tree import tree_html  # noqa: E402
from workbench import Derivation, parse  # noqa: E402
from workbench.device.opencl import devices  # noqa: E402
from workbench.errors import format_path  # noqa: E402
from workbench.expr import walk  # noqa: E402

STAGED = "λxs. map abs (redistribute copy (map (*2) xs))"


def working() -> list:
    try:
        return [d for d in devices() if d.ok]
    except Exception:
        return []


def test_several_devices_are_offered_only_where_two_work():
    found = working()
    if not found:
        pytest.skip("no OpenCL device")
    alone = SeveralDevices(found[:1])
    assert not alone.available and alone.layout.display == "none" and alone.value is None
    if len(found) < 2:
        pytest.skip("one device works here")
    pair = SeveralDevices(found)
    assert pair.available and pair.value is None  # not chosen yet
    pair.enabled.value = True
    assert pair.value is not None and len(pair.value) == 2
    assert pair.choice.layout.display == ""
    pair.choice.value = pair.value[:1]
    assert pair.value is None and "two devices at least" in pair.note.value


def test_a_redistribution_is_a_node_of_the_tree():
    e = parse(STAGED)
    page = tree_html(e)
    assert re.findall(r'data-path="([^"]*)"', page) == [format_path(p) for p, _ in walk(e)]
    assert "redistribute copy" in page


def test_the_run_panel_runs_on_two_devices_with_a_distribution_per_input():
    real = [d for d in working() if d.kind != "simulator"]
    if len(real) < 2:
        pytest.skip("needs two working devices other than a simulator")
    wb = Workbench(Derivation(STAGED, "[float]_N"), sizes={"N": 1000}, repeat=2,
                   auto_run=False)
    runs = wb.runs
    assert [menu.value for menu, _ in runs.distribution_inputs] == ["block"]
    assert runs.distribution_box.layout.display == "none"
    runs.several.enabled.value = True
    runs.several.choice.value = [d.id for d in real[:2]]
    assert runs.distribution_box.layout.display == ""
    menu, halo = runs.distribution_inputs[0]
    menu.value = "overlap"
    assert halo.layout.display == ""
    halo.value = 2
    assert runs.spread() == ([d.id for d in real[:2]], [("overlap", 2)])
    menu.value = "block"
    runs.run_button.click()
    wb.wait()
    m = runs.measurement(wb.current)
    assert m is not None and m.correct, (m, wb.errors.messages)
    assert [(e["stage"], e["device"]) for e in m.per_device] == \
        [(s, d.id) for s in (1, 2) for d in real[:2]]
    assert [s["rule"] for s in m.stages] == ["map", "copy"]
    table = runs.table.value
    assert "wb-per-device" in table and "output redistributed copy in" in table
    assert f"stage 1, {real[0].id}" in table and "rows 0:500" in table
    # back on one device: a measurement of its own
    runs.several.enabled.value = False
    assert runs.measurement(wb.current) is None

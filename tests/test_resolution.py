"""A time is below a device's resolution when it is within ``RESOLUTION_FACTOR`` of the
device's launch floor (an empty kernel's time there), or when its repeats spread over more
than the time; the widget's note then names the floor."""

import html

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench.ceilings import RESOLUTION_FACTOR, below_resolution

floors = st.floats(min_value=1e-5, max_value=1.0)


@given(floors, st.floats(min_value=0.0, max_value=0.999))
def test_a_time_within_the_factor_of_the_floor_is_below_the_resolution(floor, share):
    ms = share * RESOLUTION_FACTOR * floor
    assert below_resolution(ms, ms, ms, floor)  # however steady its repeats


@given(floors, st.floats(min_value=1.0, max_value=1e4), st.floats(min_value=0.0, max_value=0.9))
def test_a_steady_time_above_the_factor_is_not(floor, times, spread):
    ms = RESOLUTION_FACTOR * floor * times
    assert not below_resolution(ms, ms * (1 - spread / 2), ms * (1 + spread / 2), floor)


def test_a_time_whose_repeats_spread_over_more_than_it_is_below_the_resolution():
    assert below_resolution(5.0, 0.5, 6.0, floor_ms=0.001)  # far above the floor
    assert below_resolution(0.004, 0.0042, 3.8)  # no floor measured: the spread alone
    assert not below_resolution(1.0, 0.9, 1.2) and not below_resolution(1.0, 0.9, 1.2, 0.01)
    assert not below_resolution(None, None, None, 0.01)


widgets = pytest.importorskip("widgets.runs", reason="the widget needs the lab extra")


def test_the_note_names_the_devices_floor():
    from widgets.runs import RESOLUTION_NOTE, Measurement, resolution_note

    assert "an empty kernel takes 0.0040 ms here" in resolution_note(0.004)
    assert resolution_note(None) == RESOLUTION_NOTE
    steady = dict(step=0, expression="e", status="ok", correct=True, max_error=0.0,
                  device="d", kernel_ms_min=0.019, kernel_ms_max=0.021)
    assert Measurement(kernel_ms=0.02, floor_ms=0.004, **steady).below_resolution
    assert not Measurement(kernel_ms=0.02, floor_ms=0.001, **steady).below_resolution
    assert not Measurement(kernel_ms=0.02, **steady).below_resolution


def test_the_search_panels_best_carries_the_note_with_the_floor():
    from widgets.search_panel import outcome_html

    result = {"best": "mapGlobal f", "best_kernel_ms": 0.02}
    record = {"kernel_ms": 0.02, "kernel_ms_min": 0.019, "kernel_ms_max": 0.021,
              "correct": True}
    near = outcome_html(result, 3, 3, [record], floor_ms=0.004)
    assert "wb-resolution-note" in near and html.escape("0.0040 ms here") in near
    assert "wb-resolution-note" not in outcome_html(result, 3, 3, [record], floor_ms=0.0001)


def test_a_run_in_the_widget_is_judged_against_the_devices_launch_floor():
    pytest.importorskip("anywidget", reason="the widget needs the lab extra")
    from widgets import Workbench
    from workbench import parse_program
    from workbench.ceilings import launch_floor

    program = parse_program("mul3 : float -> float\nmul3 = λx. x * 3\n\n"
                            "vectorScal : [float]_N -> [float]_N\nvectorScal = map mul3\n")
    wb = Workbench(program["vectorScal"], sizes={"N": 1024}, repeat=3, auto_run=False)
    wb.runs.run_button.click()
    wb.wait()
    m = wb.runs.measurement(wb.current)
    assert m is not None and m.correct, wb.errors.messages
    assert m.floor_ms == launch_floor().median_ms  # measured once, for the device
    below = below_resolution(m.kernel_ms, m.kernel_ms_min, m.kernel_ms_max, m.floor_ms)
    table, summary = wb.runs.table.value, wb.sections["runs"].summary.value
    assert m.below_resolution == below == ("wb-resolution-note" in table)
    assert below == (f"an empty kernel takes {m.floor_ms:.4f} ms here" in table) \
        == (f"an empty kernel takes {m.floor_ms:.4f} ms here" in summary)

"""The run panel (SPEC 11): measure a step of the derivation on the device with
``workbench.run`` on random inputs of sizes the user sets, keep a time per step, and plot
kernel time along the steps next to the interpreter (NumPy) on the same inputs."""

from __future__ import annotations

import html
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import ipywidgets as w
import numpy as np

from workbench import Derivation, evaluate, opencl, run
from workbench.ceilings import RESOLUTION_FACTOR, Ceilings, below_resolution, ceilings, launch_floor
from workbench.domain import ranges_of
from workbench.errors import ResourceError, WorkbenchError
from workbench.expr import Expr
from workbench.inputs import check_memory, random_inputs
from workbench.rates import Rates, program_bytes, program_operations
from workbench.rates import rates as rates_of
from workbench.types import ArrayType, free_size_vars, function_parts, substitute_sizes

from . import plots
from .chart import Chart, steps_chart
from .device_menu import SeveralDevices
from .sections import message_html
from .tasks import ErrorArea, Worker, guarded

NUMPY_PEER = "interpreter (NumPy)"
AUTO = "auto-run"  # the tag of the runs auto-run queues (cancelled when the step changes)


@dataclass
class Measurement:
    """One run of one step at one set of sizes."""

    step: int
    expression: str
    status: str
    correct: bool
    kernel_ms: float | None
    kernel_ms_min: float | None
    kernel_ms_max: float | None
    max_error: float | None
    device: str
    message: str = ""
    completed: list = field(default_factory=list)
    global_bytes: int | None = None  # the program's own inputs and outputs (workbench.rates)
    operations: int | None = None  # arithmetic operations (the kernel IR's count)
    ceilings: Ceilings | None = None  # the device's, measured on it (``workbench.ceilings``)
    floor_ms: float | None = None  # an empty kernel's median there (``ceilings.launch_floor``)
    per_device: list | None = None  # several devices: each device's times (``RunResult``)
    stages: list | None = None  # several devices, with redistributions: each stage's

    @property
    def rates(self) -> Rates | None:
        """The time as rates against the device's ceilings (``workbench.rates``)."""
        if not self.kernel_ms:
            return None
        return rates_of(self.kernel_ms, self.global_bytes, self.operations, self.ceilings)

    @property
    def gb_per_s(self) -> float | None:
        return self.rates.gb_per_s if self.rates else None

    @property
    def gflop_per_s(self) -> float | None:
        return self.rates.gflop_per_s if self.rates else None

    @property
    def below_resolution(self) -> bool:
        """The time is noise: close to an empty kernel's on the device, or its repeats
        spread over more than the time itself."""
        return below_resolution(self.kernel_ms, self.kernel_ms_min, self.kernel_ms_max,
                                self.floor_ms)


RESOLUTION_NOTE = ("* below what this device times reliably: the repeats spread over more than "
                   "the time itself; choose a larger size to compare steps")


def resolution_note(floor_ms: float | None = None) -> str:
    """The note beside times below the device's resolution, naming its launch floor where
    it was measured (``RESOLUTION_NOTE`` where it was not)."""
    if floor_ms is None:
        return RESOLUTION_NOTE
    return (f"* below what this device times reliably (an empty kernel takes {floor_ms:.4f} "
            f"ms here: a time under {RESOLUTION_FACTOR:g}x that, or whose repeats spread over "
            "more than the time, is mostly the launch); choose a larger size to compare steps")


def spread(ms: float, low: float | None, high: float | None) -> str:
    """``0.0123 ms [0.0118–0.0150]``: a median with the range of its repeats."""
    if low is None or high is None:
        return f"{ms:.4f} ms"
    return f"{ms:.4f} ms [{low:.4f}–{high:.4f}]"


def _range_cell(ms: float, low: float | None, high: float | None) -> str:
    return spread(ms, low, high).replace(" ms", "", 1)


def rates(m: Measurement) -> str:
    """Effective GB/s (the program's own inputs and outputs) and GFLOP/s (the kernel IR's
    count) of a measured step, each with its share of the device's ceiling (a copy's GB/s,
    fused multiply-adds' GFLOP/s): ``workbench.rates``, as ``run`` and the command line say
    them."""
    return m.rates.text() if m.rates else ""


def device_floor(device: str | None) -> float | None:
    """An empty kernel's median time on the device (measured once per process, the first
    time a time on it is shown), None where it cannot be measured there."""
    try:
        floor = launch_floor(device)
    except WorkbenchError:
        return None
    return floor.median_ms if floor is not None else None


def device_ceilings(device: str | None) -> Ceilings | None:
    """The device's measured ceilings (once per process), None where they cannot be
    measured there."""
    try:
        return ceilings(device)
    except WorkbenchError:
        return None


def default_sizes(start: Expr) -> dict[str, int]:
    """N = 4096 for a program over vectors; 256 per size when there are several (a 256 x 256
    matrix), so a first run on the CPU takes well under a second."""
    declared = getattr(start, "declared_type", None)
    if declared is None:
        return {}
    names = sorted(set().union(*(free_size_vars(t) for t in function_parts(declared)[0])))
    nested = any(isinstance(t, ArrayType) and isinstance(t.elem, ArrayType)
                 for t in function_parts(declared)[0])
    value = 256 if len(names) > 1 or nested else 4096
    return {n: value for n in names}


def check_size_names(start: Expr, sizes: dict | None) -> None:
    """Refuse sizes the program does not have (a misspelt ``n`` for ``N`` would otherwise
    add a box of its own and leave N at its default), naming the program's sizes."""
    known = default_sizes(start)
    if not sizes or not known:
        return
    unknown = [name for name in sizes if name not in known]
    if unknown:
        raise WorkbenchError(f"sizes {', '.join(repr(n) for n in unknown)}: the program has no "
                             f"such size (its sizes: {', '.join(sorted(known))})")


def step_labels(d: Derivation) -> list[str]:
    return ["start"] + [f"({i}) {s.rule}" for i, s in enumerate(d.steps, start=1)]


class RunPanel(w.VBox):
    """Sizes, repeat, "run this step", "run all steps", a table of outcomes and the plot."""

    def __init__(self, derivation: Callable[[], Derivation], device: str | None,
                 errors: ErrorArea, sizes: dict[str, int] | None = None, repeat: int = 10,
                 auto_run: bool = True):
        self._derivation = derivation
        self.device = device
        self.errors = ErrorArea(log=errors)  # next to the run buttons
        self.size_errors = ErrorArea(log=errors)  # next to the size boxes
        self.size_errors.add_class("wb-size-errors")
        start = derivation().start
        check_size_names(start, sizes)
        chosen = {**default_sizes(start), **(sizes or {})}
        # plain integer boxes: a size is never changed behind the user's back; one that
        # cannot run is refused with a message beside the boxes
        # wide enough for a size of eight digits and more (1048576 shows in full)
        self.size_inputs = {name: w.IntText(value=v, description=f"{name} =",
                                            style={"description_width": "initial"},
                                            layout=w.Layout(width="200px"))
                            for name, v in chosen.items()}
        for box in self.size_inputs.values():
            box.add_class("wb-size")
            box.observe(lambda _c: self._sizes_changed(), "value")
        self.on_sizes: Callable[[], None] | None = None  # the workbench redraws the code
        self.size_problem = ""
        self.repeat_input = w.BoundedIntText(value=repeat, min=1, max=1000,
                                             description="repeat",
                                             layout=w.Layout(width="150px"))
        self.run_button = w.Button(description="run this step", icon="play",
                                   button_style="primary")
        self.run_all_button = w.Button(description="run all steps", icon="forward")
        # where several devices work: run on some at once, one distribution per input
        self.several = SeveralDevices()
        self.distribution_inputs = distribution_inputs(start)
        self.distribution_box = w.HBox([w.HBox(pair) for pair in self.distribution_inputs],
                                       layout=w.Layout(display="none"))
        self.distribution_box.add_class("wb-distributions")
        self.several.observe_choice(lambda _v: self._several_changed())
        for menu, halo in self.distribution_inputs:
            menu.observe(lambda _c: self._several_changed(), "value")
            halo.observe(lambda _c: self._several_changed(), "value")
        self.auto_run = w.Checkbox(value=auto_run, description="run each new step",
                                   indent=False)
        self.status = w.HTML("ready")
        self.status.add_class("wb-run-status")
        self.table = w.HTML("")
        self.table.add_class("wb-run-table")
        # the widget shows the interactive chart; the PNG (the same data, drawn by
        # matplotlib) is kept for saving and scripts
        self.plot = w.Image(format="png", layout=w.Layout(max_width="640px", display="none"))
        self.plot.add_class("wb-run-plot")
        self.chart = Chart()
        self.chart.add_class("wb-run-chart")
        self.worker = Worker("run", self.status, self.errors)
        # matplotlib takes ~0.1 s per plot: drawn off the click path, the latest one only
        self.plot_worker = Worker("plot", w.HTML(""), errors)
        self._plot_version = 0
        self.on_summary: Callable[[str], None] | None = None  # the panel header's line
        self.measurements: dict[tuple, Measurement] = {}
        self.peers: dict[tuple, dict[str, float]] = {}
        self.peer_spread: dict[tuple, dict[str, tuple[float, float]]] = {}
        self._inputs: dict[tuple, list] = {}
        self._lock = threading.Lock()
        self.run_button.on_click(guarded(self.errors, "run this step",
                                         lambda _: self.run_step()))
        self.run_all_button.on_click(guarded(self.errors, "run all steps",
                                             lambda _: self.run_all()))
        super().__init__([
            w.HTML('<span style="color:#52525b">Random inputs of these sizes; every kernel '
                   "is checked against the interpreter.</span>"),
            w.HBox([*self.size_inputs.values(), self.repeat_input]), self.size_errors,
            self.several, self.distribution_box,
            w.HBox([self.run_button, self.run_all_button, self.auto_run, self.status]),
            self.errors,
            self.table, self.chart, self.plot])
        self.add_class("wb-run-panel")

    # --- what to run ----------------------------------------------------------------------
    def sizes(self) -> dict[str, int]:
        return {name: int(box.value) for name, box in self.size_inputs.items()}

    def _sizes_changed(self) -> None:
        """Check the sizes as they are typed; a refusal is shown beside the boxes."""
        self.size_problem = size_problem(self._derivation().current, self.sizes())
        self.size_errors.clear()
        for box in self.size_inputs.values():
            box.remove_class("wb-size-refused")
        if self.size_problem:
            self.size_errors.say(self.size_problem)
            for box in self.size_inputs.values():
                box.add_class("wb-size-refused")
        if self.on_sizes is not None:
            self.on_sizes()

    def _key(self, expr: Expr, sizes: dict[str, int]) -> tuple:
        spread = self.spread()
        if spread is None:
            return (str(expr), tuple(sorted(sizes.items())), self.device)
        return (str(expr), tuple(sorted(sizes.items())), tuple(spread[0]), repr(spread[1]))

    def spread(self) -> tuple[list[str], list] | None:
        """The devices and one distribution per input of a run on several devices (None: a
        run on the panel's device)."""
        ids = self.several.value
        if ids is None:
            return None
        return ids, [menu.value if menu.value != "overlap" else ("overlap", int(halo.value))
                     for menu, halo in self.distribution_inputs]

    def _several_changed(self) -> None:
        shown = self.several.value is not None
        self.distribution_box.layout.display = "" if shown else "none"
        for menu, halo in self.distribution_inputs:
            halo.layout.display = "" if menu.value == "overlap" else "none"
        self.refresh()

    def inputs(self, sizes: dict[str, int]) -> list:
        """The random inputs for these sizes (made once, seed 0, the same for every step)."""
        key = tuple(sorted(sizes.items()))
        with self._lock:
            if key not in self._inputs:
                start = self._derivation().start
                declared = getattr(start, "declared_type", None)
                types = function_parts(declared)[0] if declared is not None else []
                self._inputs = {key: random_inputs(types, sizes, seed=0,
                                                   ranges=ranges_of(start))}
            return self._inputs[key]

    def measurement(self, expr: Expr) -> Measurement | None:
        return self.measurements.get(self._key(expr, self.sizes()))

    def roofline(self):
        """The measured steps of the derivation at the current sizes on the roofline of
        their device (``plots.roofline``): each step's GFLOP/s at its operations per byte,
        under the copy's and the peak's ceilings."""
        from workbench import plots

        d = self._derivation()
        measured = {k: self.measurement(e) for k, e in enumerate(d.expressions())}
        points = {f"step {k}": m.rates for k, m in measured.items()
                  if m is not None and m.correct and m.rates is not None}
        ceiling = next((m.ceilings for m in measured.values() if m and m.ceilings), None)
        return plots.roofline(points, ceiling, title="the derivation's steps")

    # --- actions --------------------------------------------------------------------------
    def run_step(self, step: int | None = None, tag: str | None = None):
        """Measure step ``step`` (default: the current one) in the background; ``tag``
        names runs that a later ``cancel_pending`` may cancel before they start."""
        d = self._derivation()
        exprs = d.expressions()
        k = len(exprs) - 1 if step is None else step
        return self._submit(k, exprs[k], d.start, tag)

    def run_all(self):
        d = self._derivation()
        for k, expr in enumerate(d.expressions()):
            self._submit(k, expr, d.start)

    def _submit(self, k: int, expr: Expr, start: Expr, tag: str | None = None):
        sizes, repeat = self.sizes(), int(self.repeat_input.value)
        key, spread = self._key(expr, sizes), self.spread()
        problem = size_problem(expr, sizes)
        if problem:
            self.size_errors.clear()
            self.size_errors.say(problem)
            return None

        def job():
            arrays = self.inputs(sizes)
            peer_key = (str(start), key[1])
            if peer_key not in self.peers:
                median, low, high = _numpy_ms(start, arrays, sizes)
                self.peers[peer_key] = {NUMPY_PEER: median}
                self.peer_spread[peer_key] = {NUMPY_PEER: (low, high)}
            one = spread is None
            if one:
                result = run(expr, *arrays, device=self.device, repeat=repeat, sizes=sizes)
            else:
                result = run(expr, *arrays, devices=spread[0], distributions=spread[1],
                             repeat=repeat, sizes=sizes)
            moved, operations = _counts(expr, sizes) if result.correct else (None, None)
            # a device's ceilings and launch floor are those of a run on it alone
            peak = device_ceilings(self.device) if result.correct and one else None
            floor = device_floor(self.device) if result.correct and one else None
            return Measurement(k, str(expr), result.status, result.correct, result.kernel_ms,
                               result.kernel_ms_min, result.kernel_ms_max, result.max_error,
                               result.device, result.message, list(result.completed or []),
                               moved, operations, peak, floor, result.per_device,
                               result.stages)

        def done(m: Measurement):
            self.measurements[key] = m
            self.refresh()

        return self.worker.submit(f"run step {k}", job, done, tag=tag)

    def on_step_changed(self) -> None:
        """After apply/undo/redo/branch: redraw, and measure the new step when asked to.
        The runs of earlier steps that auto-run queued and that have not started are
        cancelled (a step left by undo or redo before its run began is not measured), so
        clicking through the steps never queues work; a run that has started ends and is
        kept."""
        self.worker.cancel_pending(AUTO)
        self.refresh()
        d = self._derivation()
        if self.auto_run.value and self.measurement(d.current) is None:
            self.run_step(tag=AUTO)

    # --- display --------------------------------------------------------------------------
    def refresh(self) -> None:
        d = self._derivation()
        sizes = self.sizes()
        labels = step_labels(d)
        rows = []
        times, failed, device = [], [], ""
        for k, (label, expr) in enumerate(zip(labels, d.expressions())):
            m = self.measurements.get(self._key(expr, sizes))
            times.append(m.kernel_ms if m and m.correct else None)
            failed.append(bool(m and not m.correct))
            device = m.device if m and m.device else device
            rows.append(_row(k, label, m))
        peer_key = (str(d.start), tuple(sorted(sizes.items())))
        peers = self.peers.get(peer_key, {})
        ranges = self.peer_spread.get(peer_key, {})
        shown = ", ".join(f"{k}={v}" for k, v in sizes.items())
        measured = [m for m in (self.measurements.get(self._key(e, sizes))
                                for e in d.expressions()) if m is not None and m.correct]
        noisy = [m for m in measured if m.below_resolution]
        floor = next((m.floor_ms for m in noisy if m.floor_ms is not None), None)
        note = (f'<div class="wb-resolution-note" style="font-size:11px;color:#92400e">'
                f"{html.escape(resolution_note(floor))}</div>" if noisy else "")
        self.table.value = (
            f'<div style="font-size:11px">sizes {html.escape(shown)}; times are medians '
            f"of the repeats [min–max], from device events; GB/s of the program's own inputs "
            f"and output, GFLOP/s of the operations the kernels' IR counts (over 100% of a "
            f"copy: in cache)</div>{note}"
            '<table style="font-size:12px;border-collapse:collapse;line-height:1.5;width:100%">'
            "<tr><th>step</th><th>rule</th><th>outcome</th><th>max error</th>"
            "<th>kernel ms [min–max]</th><th>rate</th><th>default completion</th></tr>"
            + "".join(rows)
            + "".join(f"<tr><td></td><td>{html.escape(name)}</td><td>peer</td><td></td>"
                      f"<td>{_range_cell(ms, *ranges.get(name, (None, None)))}</td>"
                      "<td></td><td></td></tr>" for name, ms in peers.items())
            + "</table>")
        if self.on_summary is not None:
            self.on_summary(summary(len(labels) - 1, self.measurements.get(
                self._key(d.current, sizes))))
        spreads = []
        for expr in d.expressions():
            m = self.measurements.get(self._key(expr, sizes))
            spreads.append((m.kernel_ms, m.kernel_ms_min, m.kernel_ms_max)
                           if m and m.correct and m.kernel_ms_min is not None else None)
        self.chart.data = steps_chart(
            labels, [str(e) for e in d.expressions()], spreads,
            {name: (ms, *ranges.get(name, (ms, ms))) for name, ms in peers.items()}, device)
        self._plot_version += 1
        version = self._plot_version

        def draw():
            if version == self._plot_version:
                self.plot.value = plots.steps_plot(labels, times, failed, peers, device)

        self.plot_worker.submit("plot", draw)

    def wait(self, timeout: float | None = None) -> None:
        self.worker.wait(timeout)
        self.plot_worker.wait(timeout)


def size_problem(expr: Expr, sizes: dict[str, int]) -> str:
    """Why these sizes cannot run ``expr`` (empty when they can): a size below 1, or a run
    that would not fit in the memory left (refused before anything is allocated)."""
    bad = [f"{n} = {v}" for n, v in sizes.items() if v < 1]
    if bad:
        return f"{', '.join(bad)}: a size is at least 1"
    try:
        return _memory_problem(expr, sizes)
    except ResourceError as err:
        return f"{', '.join(f'{n} = {v}' for n, v in sizes.items())} refused: {err}"


def _memory_problem(expr: Expr, sizes: dict[str, int]) -> str:
    """Raises ``ResourceError`` when a run at ``sizes`` would not fit in memory."""
    try:
        from workbench.memory import check_run_memory
    except ImportError:  # the inputs alone are checked
        declared = getattr(expr, "declared_type", None)
        if declared is None:
            return ""
        types = function_parts(declared)[0]
        check_memory(types, [substitute_sizes(t, sizes) for t in types], sizes)
        return ""
    try:
        check_run_memory(expr, sizes)
    except ResourceError:
        raise
    except WorkbenchError:
        return ""  # not a question of memory: code generation or the run says what it is
    return ""


def _numpy_ms(start: Expr, arrays: list, sizes: dict[str, int],
              repeat: int = 5) -> tuple[float, float, float]:
    """The interpreter on the same inputs: NumPy array operations, timed as a peer
    (median, min, max in ms)."""
    evaluate(start, *arrays, sizes=sizes)
    samples = []
    for _ in range(repeat):
        t = time.perf_counter()
        evaluate(start, *arrays, sizes=sizes)
        samples.append((time.perf_counter() - t) * 1000)
    return float(np.median(samples)), min(samples), max(samples)


def _counts(expr: Expr, sizes: dict[str, int]) -> tuple[int | None, int | None]:
    """The bytes of ``expr``'s own inputs and outputs and the arithmetic operations its
    kernels perform at ``sizes`` (``workbench.rates``; None when the code cannot be
    generated)."""
    try:
        program = opencl(expr, sizes=sizes, complete=True)
    except WorkbenchError:
        return None, None
    return program_bytes(program), program_operations(program)


def summary(step: int, m: Measurement | None) -> str:
    """One line for the panel's header: the current step's outcome."""
    if m is None:
        return f"step {step}: not run yet"
    if m.correct:
        rate = rates(m)
        return (f"step {step}: {spread(m.kernel_ms, m.kernel_ms_min, m.kernel_ms_max)} "
                f"(checked){', ' + rate if rate else ''} on {m.device}"
                + (_below_text(m) if m.below_resolution else ""))
    return f"step {step}: {m.status}"


def _below_text(m: Measurement) -> str:
    if m.floor_ms is None:
        return "; below the timing resolution"
    return f"; below the timing resolution (an empty kernel takes {m.floor_ms:.4f} ms here)"


def _row(k: int, label: str, m: Measurement | None) -> str:
    """A step's row; a failure's message follows in a row of its own, across the table (a
    long one opens in full on a click)."""
    cells = [str(k), html.escape(label)]
    message = ""
    if m is None:
        cells += ["not run", "", "", "", ""]
    else:
        colour = "#166534" if m.correct else "#b91c1c"
        outcome = "ok (checked)" if m.correct else m.status
        cells.append(f'<span class="wb-outcome" style="color:{colour}">'
                     f"{html.escape(outcome)}</span>")
        cells.append("" if m.max_error is None else f"{m.max_error:.2g}")
        cells.append("" if m.kernel_ms is None else
                     _range_cell(m.kernel_ms, m.kernel_ms_min, m.kernel_ms_max)
                     + (" *" if m.below_resolution else ""))
        cells.append(html.escape(rates(m)) if m.correct else "")
        cells.append(html.escape(", ".join(m.completed)))
        if not m.correct and m.message:
            message = (f'<tr><td></td><td colspan="6" style="padding:0 6px 4px 6px">'
                       f"{message_html(m.status, m.message)}</td></tr>")
        if m.per_device:
            message += (f'<tr class="wb-per-device"><td></td><td colspan="6" '
                        f'style="padding:0 6px 4px 6px;font-size:11px">'
                        f"{'<br>'.join(html.escape(line) for line in per_device_lines(m))}"
                        "</td></tr>")
    return ("<tr>" + "".join(f'<td style="padding:1px 6px;border-top:1px solid #e4e4e7">{c}'
                             "</td>" for c in cells) + "</tr>" + message)


def distribution_inputs(start: Expr) -> list[tuple[w.Dropdown, w.BoundedIntText]]:
    """A distribution menu (block, copy, overlap) and a halo box for each input of the
    program, named as its parameters are; SkelCL's default: block for an array, copy for
    a scalar."""
    declared = getattr(start, "declared_type", None)
    types = function_parts(declared)[0] if declared is not None else []
    params = start.params if hasattr(start, "params") else ()
    out = []
    for i, t in enumerate(types):
        name = params[i] if i < len(params) and isinstance(params[i], str) else f"input {i}"
        menu = w.Dropdown(options=["block", "copy", "overlap"],
                          value="block" if isinstance(t, ArrayType) else "copy",
                          description=name, layout=w.Layout(width="210px"))
        menu.add_class("wb-distribution")
        halo = w.BoundedIntText(value=1, min=0, max=1 << 20, description="halo",
                                layout=w.Layout(width="120px", display="none"))
        halo.add_class("wb-halo")
        out.append((menu, halo))
    return out


def per_device_lines(m: Measurement) -> list[str]:
    """A run on several devices: each device's rows and times (per stage where the program
    has redistributions), and each redistribution's time on the host."""
    lines = []
    stages = {s["stage"]: s for s in m.stages or []}
    for e in m.per_device or []:
        stage = f"stage {e['stage']}, " if "stage" in e else ""
        kernel = "" if e.get("kernel_ms") is None else f"kernel {e['kernel_ms']:.4f} ms"
        moved = "" if e.get("transfer_ms") is None else f", transfers {e['transfer_ms']:.4f} ms"
        lines.append(f"{stage}{e['device']} {e['name']}: rows {e['rows'][0]}:{e['rows'][1]}, "
                     f"{kernel}{moved}")
        done = stages.get(e.get("stage"))
        if done and done.get("redistribute") and e is [p for p in m.per_device
                                                        if p.get("stage") == e["stage"]][-1]:
            lines.append(f"stage {done['stage']} ({done['rule']} rule): output redistributed "
                         f"{done['redistribute']} in {done['redistribute_ms']:.4f} ms on the "
                         "host")
    return lines

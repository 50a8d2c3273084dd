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

from workbench import Derivation, evaluate, run
from workbench.domain import ranges_of
from workbench.expr import Expr
from workbench.inputs import random_inputs
from workbench.types import ArrayType, free_size_vars, function_parts

from . import plots
from .sections import message_html
from .tasks import ErrorArea, Worker, guarded

NUMPY_PEER = "interpreter (NumPy)"


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


def step_labels(d: Derivation) -> list[str]:
    return ["start"] + [f"({i}) {s.rule}" for i, s in enumerate(d.steps, start=1)]


class RunPanel(w.VBox):
    """Sizes, repeat, "run this step", "run all steps", a table of outcomes and the plot."""

    def __init__(self, derivation: Callable[[], Derivation], device: str | None,
                 errors: ErrorArea, sizes: dict[str, int] | None = None, repeat: int = 10,
                 auto_run: bool = True):
        self._derivation = derivation
        self.device = device
        self.errors = errors
        start = derivation().start
        chosen = {**default_sizes(start), **(sizes or {})}
        self.size_inputs = {name: w.BoundedIntText(value=v, min=1, max=1 << 30,
                                                   description=f"{name} =",
                                                   layout=w.Layout(width="150px"))
                            for name, v in chosen.items()}
        self.repeat_input = w.BoundedIntText(value=repeat, min=1, max=1000,
                                             description="repeat",
                                             layout=w.Layout(width="150px"))
        self.run_button = w.Button(description="run this step", icon="play",
                                   button_style="primary")
        self.run_all_button = w.Button(description="run all steps", icon="forward")
        self.auto_run = w.Checkbox(value=auto_run, description="run each new step",
                                   indent=False)
        self.status = w.HTML("ready")
        self.status.add_class("wb-run-status")
        self.table = w.HTML("")
        self.table.add_class("wb-run-table")
        self.plot = w.Image(format="png", layout=w.Layout(max_width="640px"))
        self.plot.add_class("wb-run-plot")
        self.worker = Worker("run", self.status, errors)
        # matplotlib takes ~0.1 s per plot: drawn off the click path, the latest one only
        self.plot_worker = Worker("plot", w.HTML(""), errors)
        self._plot_version = 0
        self.on_summary: Callable[[str], None] | None = None  # the panel header's line
        self.measurements: dict[tuple, Measurement] = {}
        self.peers: dict[tuple, dict[str, float]] = {}
        self._inputs: dict[tuple, list] = {}
        self._lock = threading.Lock()
        self.run_button.on_click(guarded(errors, "run this step", lambda _: self.run_step()))
        self.run_all_button.on_click(guarded(errors, "run all steps",
                                             lambda _: self.run_all()))
        super().__init__([
            w.HTML('<span style="color:#52525b">Random inputs of these sizes; every kernel '
                   "is checked against the interpreter.</span>"),
            w.HBox([*self.size_inputs.values(), self.repeat_input]),
            w.HBox([self.run_button, self.run_all_button, self.auto_run, self.status]),
            self.table, self.plot])
        self.add_class("wb-run-panel")

    # --- what to run ----------------------------------------------------------------------
    def sizes(self) -> dict[str, int]:
        return {name: int(box.value) for name, box in self.size_inputs.items()}

    def _key(self, expr: Expr, sizes: dict[str, int]) -> tuple:
        return (str(expr), tuple(sorted(sizes.items())), self.device)

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

    # --- actions --------------------------------------------------------------------------
    def run_step(self, step: int | None = None):
        """Measure step ``step`` (default: the current one) in the background."""
        d = self._derivation()
        exprs = d.expressions()
        k = len(exprs) - 1 if step is None else step
        return self._submit(k, exprs[k], d.start)

    def run_all(self):
        d = self._derivation()
        for k, expr in enumerate(d.expressions()):
            self._submit(k, expr, d.start)

    def _submit(self, k: int, expr: Expr, start: Expr):
        sizes, repeat = self.sizes(), int(self.repeat_input.value)
        key = self._key(expr, sizes)

        def job():
            arrays = self.inputs(sizes)
            peer_key = (str(start), key[1])
            if peer_key not in self.peers:
                self.peers[peer_key] = {NUMPY_PEER: _numpy_ms(start, arrays, sizes)}
            result = run(expr, *arrays, device=self.device, repeat=repeat, sizes=sizes)
            return Measurement(k, str(expr), result.status, result.correct, result.kernel_ms,
                               result.kernel_ms_min, result.kernel_ms_max, result.max_error,
                               result.device, result.message, list(result.completed or []))

        def done(m: Measurement):
            self.measurements[key] = m
            self.refresh()

        return self.worker.submit(f"run step {k}", job, done)

    def on_step_changed(self) -> None:
        """After apply/undo/redo/branch: redraw, and measure the new step when asked to."""
        self.refresh()
        d = self._derivation()
        if self.auto_run.value and self.measurement(d.current) is None:
            self.run_step()

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
        peers = self.peers.get((str(d.start), tuple(sorted(sizes.items()))), {})
        shown = ", ".join(f"{k}={v}" for k, v in sizes.items())
        self.table.value = (
            f'<div style="font-size:11px">sizes {html.escape(shown)}; times are medians '
            f"of the repeats, from device events</div>"
            '<table style="font-size:12px;border-collapse:collapse;line-height:1.5;width:100%">'
            "<tr><th>step</th><th>rule</th><th>outcome</th><th>max error</th>"
            "<th>kernel ms</th><th>default completion</th></tr>" + "".join(rows)
            + "".join(f"<tr><td></td><td>{html.escape(name)}</td><td>peer</td><td></td>"
                      f"<td>{ms:.4f}</td><td></td></tr>" for name, ms in peers.items())
            + "</table>")
        if self.on_summary is not None:
            self.on_summary(summary(len(labels) - 1, self.measurements.get(
                self._key(d.current, sizes))))
        self._plot_version += 1
        version = self._plot_version

        def draw():
            if version == self._plot_version:
                self.plot.value = plots.steps_plot(labels, times, failed, peers, device)

        self.plot_worker.submit("plot", draw)

    def wait(self, timeout: float | None = None) -> None:
        self.worker.wait(timeout)
        self.plot_worker.wait(timeout)


def _numpy_ms(start: Expr, arrays: list, sizes: dict[str, int], repeat: int = 5) -> float:
    """The interpreter on the same inputs: NumPy array operations, timed as a peer."""
    evaluate(start, *arrays, sizes=sizes)
    samples = []
    for _ in range(repeat):
        t = time.perf_counter()
        evaluate(start, *arrays, sizes=sizes)
        samples.append((time.perf_counter() - t) * 1000)
    return float(np.median(samples))


def summary(step: int, m: Measurement | None) -> str:
    """One line for the panel's header: the current step's outcome."""
    if m is None:
        return f"step {step}: not run yet"
    if m.correct:
        return f"step {step}: {m.kernel_ms:.4f} ms (checked) on {m.device}"
    return f"step {step}: {m.status}"


def _row(k: int, label: str, m: Measurement | None) -> str:
    """A step's row; a failure's message follows in a row of its own, across the table (a
    long one opens in full on a click)."""
    cells = [str(k), html.escape(label)]
    message = ""
    if m is None:
        cells += ["not run", "", "", ""]
    else:
        colour = "#166534" if m.correct else "#b91c1c"
        outcome = "ok (checked)" if m.correct else m.status
        cells.append(f'<span class="wb-outcome" style="color:{colour}">'
                     f"{html.escape(outcome)}</span>")
        cells.append("" if m.max_error is None else f"{m.max_error:.2g}")
        cells.append("" if m.kernel_ms is None else
                     f"{m.kernel_ms:.4f} [{m.kernel_ms_min:.4f}–{m.kernel_ms_max:.4f}]")
        cells.append(html.escape(", ".join(m.completed)))
        if not m.correct and m.message:
            message = (f'<tr><td></td><td colspan="5" style="padding:0 6px 4px 6px">'
                       f"{message_html(m.status, m.message)}</td></tr>")
    return ("<tr>" + "".join(f'<td style="padding:1px 6px;border-top:1px solid #e4e4e7">{c}'
                             "</td>" for c in cells) + "</tr>" + message)

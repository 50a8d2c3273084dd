"""The auto-search panel (SPEC 8, 11): strategy (the cost-guided descent by default), budget,
device, a progress bar and the live search-efficiency curve (each candidate's time, the best
so far, the cost model's prediction for each, the steps fixed, the first 40) while
``workbench.search.search`` runs in the background, and
"adopt best", which continues the derivation with the best candidate's steps (the steps it
replaces are kept as a branch).

The panel is shown disabled, saying "search is not installed", when ``workbench.search`` is
not part of the installed workbench.
"""

from __future__ import annotations

import html
import threading
import time
from collections.abc import Callable

import ipywidgets as w

from workbench import Derivation, WorkbenchError
from workbench.search import DEFAULT_STRATEGY, STRATEGIES, search
from workbench.types import free_size_vars, function_parts

from . import plots
from .chart import Chart, search_chart
from .runs import below_resolution, device_floor, resolution_note, spread
from .sections import message_html
from .tasks import ErrorArea, Worker, guarded


def _get(record, name: str):
    return record.get(name) if isinstance(record, dict) else getattr(record, name, None)


def steps_of(derivation) -> list[tuple[str, object, dict]]:
    """The (rule, path, params) steps of a search result's derivation (a ``Derivation``, or
    a list of steps as tuples or objects with ``rule``, ``path`` and ``params``)."""
    if isinstance(derivation, Derivation):
        return [(s.rule, s.path, dict(s.params)) for s in derivation.steps]
    out = []
    for step in derivation or []:
        if isinstance(step, tuple | list):
            rule, path, *rest = step
            out.append((rule, path, dict(rest[0]) if rest else {}))
        else:
            out.append((_get(step, "rule"), _get(step, "path"), dict(_get(step, "params") or {})))
    return out


class SearchPanel(w.VBox):
    """Runs a search from the current step; ``result`` is the last finished search."""

    def __init__(self, derivation: Callable[[], Derivation], inputs: Callable[[], list],
                 device: Callable[[], str | None], errors: ErrorArea,
                 adopt: Callable[[int, list, str, dict], str],
                 sizes: Callable[[], dict[str, int]] = dict):
        self._derivation = derivation
        self._inputs = inputs
        self._device = device  # the workbench's device menu chooses it
        self._adopt = adopt
        self._sizes = sizes  # the sizes a search runs at (the run panel's)
        self.sizes: dict[str, int] = {}
        self._errors = ErrorArea(log=errors)  # beside the buttons
        self.errors = self._errors
        self.search_fn = search
        self.strategy = w.Dropdown(options=tuple(STRATEGIES), description="strategy",
                                   value=DEFAULT_STRATEGY,
                                   layout=w.Layout(width="220px"))
        self.budget = w.BoundedIntText(value=40, min=1, max=100_000, description="budget",
                                       layout=w.Layout(width="160px"))
        self.start_button = w.Button(description="search from this step", icon="search",
                                     button_style="primary", layout=w.Layout(width="200px"))
        self.adopt_button = w.Button(description="adopt best", icon="check", disabled=True)
        self.stop_button = w.Button(description="stop", icon="stop", disabled=True,
                                    tooltip="end the search after the candidate that is "
                                            "running; what was found is kept",
                                    layout=w.Layout(width="90px"))
        self.stop_button.add_class("wb-search-stop")
        self._stop = threading.Event()
        self.stopped_records: list = []  # the candidates shown when "stop" was clicked
        self.on_summary: Callable[[str], None] | None = None  # the panel header's line
        self.progress = w.IntProgress(value=0, min=0, max=40, description="0 / 40")
        self.status = w.HTML("")
        self.status.add_class("wb-search-status")
        self.best = w.HTML("")
        self.best.add_class("wb-search-best")
        # hidden until there is a curve to show (an empty image is a broken-image icon)
        self.plot = w.Image(format="png", layout=w.Layout(max_width="640px", display="none"))
        self.plot.add_class("wb-search-plot")  # the PNG, kept for saving and scripts
        self.chart = Chart()  # what the widget shows: zoom, and each candidate on hover
        self.chart.add_class("wb-search-chart")
        self.worker = Worker("search", self.status, self._errors)
        self.result = None
        self.records: list = []
        self._start_step = 0
        self._start_text = ""
        self._lock = threading.Lock()
        self._last_draw = 0.0
        self._floor_ms: float | None = None  # an empty kernel's time on the search's device
        self.start_button.on_click(guarded(self._errors, "search", lambda _: self.start()))
        self.adopt_button.on_click(guarded(self._errors, "adopt best",
                                           lambda _: self.adopt()))
        self.adopt_button.add_class("wb-adopt")
        self.stop_button.on_click(guarded(self._errors, "stop", lambda _: self.stop()))
        self.adopted = w.HTML("")  # what adopting did, beside the button
        self.adopted.add_class("wb-adopted")
        children = [w.HBox([self.strategy, self.budget]),
                    w.HBox([self.start_button, self.stop_button, self.adopt_button,
                            self.progress, self.status]),
                    self._errors, self.adopted, self.best, self.chart, self.plot]
        super().__init__(children)
        self.add_class("wb-search-panel")

    def start(self):
        d = self._derivation()
        expr, budget = d.current, int(self.budget.value)
        strategy, device = self.strategy.value, self._device()
        self._start_step, self._start_text = len(d.steps), str(expr)
        self.sizes = self._sizes()
        self.adopted.value = ""
        self.records, self.result, self.stopped_records = [], None, []
        self.adopt_button.disabled = True
        self.progress.max, self.progress.value = budget, 0
        self.progress.description = f"0 / {budget}"
        self.best.value = ""
        self._stop.clear()
        self.stop_button.disabled = False
        self._summarize(f"running from step {self._start_step} ({strategy}, budget {budget})")

        own = symbolic_types(d) if self.sizes and strategy in AT_SYMBOLIC_SIZES else None

        def job():
            # at the widget's own types where they have size variables (the search then
            # rewrites only as holds at every size, so its result is adopted at those
            # types), run at the size boxes' sizes
            inputs, sizes = (own, self.sizes) if own else (self._inputs(), None)
            # measured before the search holds the device (once per device and process)
            self._floor_ms = device_floor(device)
            try:
                return self.search_fn(expr, *inputs, strategy=strategy, budget=budget,
                                      device=device, progress=self._record, sizes=sizes)
            finally:
                self.stop_button.disabled = True

        def done(result):
            self.result = result
            if result is not None and not self.records:
                self.records = list(_get(result, "log") or [])
            self._draw(final=True)
            self.best.value = outcome_html(result, len(self.records), budget, self.records,
                                           self._floor_ms)
            self.adopt_button.disabled = _get(result, "best") is None
            self._summarize(summary(result, len(self.records), self.records))

        return self.worker.submit(f"search ({strategy}, budget {budget})", job, done)

    def stop(self) -> None:
        """Stop the running search at once, as far as the panel is concerned: it says so,
        shows the best of the candidates measured so far, and "adopt best" adopts that one.
        The candidates still being measured end in the background (a kernel on the device
        cannot be interrupted), and the search returns when they end: its result then
        replaces what the panel shows."""
        self._stop.set()
        self.stop_button.disabled = True
        with self._lock:
            self.stopped_records = list(self.records)
        n = len(self.stopped_records)
        self.chart.data = search_chart(self.stopped_records, _get)  # the PNG waits for the end
        self.status.value = (f'<span class="wb-idle wb-search-stopped-now">stopped by you after '
                             f"{_candidates(n)}; the candidate being measured ends in the "
                             "background</span>")
        best = best_record(self.stopped_records)
        self.adopt_button.disabled = best is None or not _get(best, "steps")
        self._summarize(f"stopped after {_candidates(n)}"
                        + (f"; best {_get(best, 'kernel_ms'):.4f} ms" if best else ""))

    def _summarize(self, text: str) -> None:
        if self.on_summary is not None:
            self.on_summary(text)

    def _record(self, record) -> None:
        """Called by the search with each finished candidate (from any thread)."""
        with self._lock:
            self.records.append(record)
        try:
            self._draw()
        except Exception as err:  # a drawing problem must not stop the search
            self._errors.report("search progress", err)
        if self._stop.is_set():
            from workbench.search import StopSearch

            raise StopSearch(f"stopped by you after {len(self.records)} of "
                             f"{self.progress.max} candidates")

    def _times(self) -> tuple[list, list]:
        times, best, low = [], [], None
        for r in self.records:
            ms = _get(r, "kernel_ms")
            ok = _get(r, "correct")
            ms = ms if ms is not None and ok is not False else None
            times.append(ms)
            if ms is not None and (low is None or ms < low):
                low = ms
            best.append(low)
        return times, best

    def _draw(self, final: bool = False) -> None:
        n = len(self.records)
        self.progress.value = min(n, self.progress.max)
        self.progress.description = f"{n} / {self.progress.max}"
        now = time.monotonic()
        if not final and now - self._last_draw < 0.5:
            return
        self._last_draw = now
        times, best = self._times()
        top = best_record(self.records)
        if top is not None:
            ms, low, high = (_get(top, k) for k in ("kernel_ms", "kernel_ms_min",
                                                    "kernel_ms_max"))
            noisy = below_resolution(ms, low, high, self._floor_ms)
            self.best.value = (f"best so far: {html.escape(spread(ms, low, high))} "
                               f"({n} candidates)"
                               + (_note_html(self._floor_ms) if noisy else ""))
        predicted = [_get(r, "predicted_ms") for r in self.records]
        fixed = list(_get(self.result, "fixed") or []) if final and self.result else []
        self.chart.data = search_chart(list(self.records), _get)
        self.plot.value = plots.search_plot(times, best, self.progress.max, predicted, fixed)

    def adopt(self) -> None:
        """Adopt the best candidate's steps: the finished search's best, or, while a
        stopped search is still ending, the best of the candidates shown."""
        if self.result is not None:
            steps = steps_of(_get(self.result, "derivation"))
        elif self._stop.is_set() and best_record(self.stopped_records) is not None:
            steps = steps_of(_get(best_record(self.stopped_records), "steps"))
        else:
            raise WorkbenchError("no finished search to adopt")
        note = self._adopt(self._start_step, steps, self._start_text, self.sizes)
        self.adopted.value = (f'<span style="color:#166534">adopted {len(steps)} step'
                              f"{'s' if len(steps) != 1 else ''}"
                              + (f"; {html.escape(note)}" if note else "") + "</span>")

    def wait(self, timeout: float | None = None) -> None:
        self.worker.wait(timeout)


# The strategies that search at the widget's own types when they have size variables; the
# CASES exploration fits its parameters to concrete lengths, so it searches at the size
# boxes' sizes (adopting its result then fixes them, when a step needs them).
AT_SYMBOLIC_SIZES = frozenset(STRATEGIES) - {"cases"}


def symbolic_types(derivation) -> list[str] | None:
    """The derivation's input types as text when they have size variables (``[float]_N``:
    a widget with size boxes), else None."""
    types = list(derivation.input_types)
    if not types:
        declared = getattr(derivation.start, "declared_type", None)
        types = list(function_parts(declared)[0]) if declared is not None else []
    if not any(free_size_vars(t) for t in types):
        return None
    return [str(t) for t in types]


def best_record(records: list):
    """The record of the fastest correct candidate (None when there is none)."""
    ok = [r for r in records if _get(r, "kernel_ms") is not None and _get(r, "correct")
          is not False]
    return min(ok, key=lambda r: _get(r, "kernel_ms")) if ok else None


def _note_html(floor_ms: float | None) -> str:
    return (f'<div class="wb-resolution-note" style="font-size:11px;color:#92400e">'
            f"{html.escape(resolution_note(floor_ms)[2:])}</div>")


def outcome_html(result, measured: int, budget: int, records: list = (),
                 floor_ms: float | None = None) -> str:
    """What the search found, why it stopped early, or why nothing correct was found (with
    the first failure's whole message one click away). A time carries the range of its
    repeats, as logged, and a note when it is below the device's resolution: within
    ``ceilings.RESOLUTION_FACTOR`` of an empty kernel's ``floor_ms``, or its range wider
    than the time."""
    best = _get(result, "best")
    stopped = _get(result, "stopped") or ""
    parts = []
    if best is not None:
        ms = _get(result, "best_kernel_ms")
        top = best_record(list(records))
        logged = ""
        if top is not None and _get(top, "kernel_ms_min") is not None:
            low, high = _get(top, "kernel_ms_min"), _get(top, "kernel_ms_max")
            shown = spread(_get(top, "kernel_ms"), low, high)
            logged = f" (during the search: {html.escape(shown)})"
            if below_resolution(_get(top, "kernel_ms"), low, high, floor_ms):
                logged += _note_html(floor_ms)
        parts.append(f'<div class="wb-search-result">best: <code>{html.escape(str(best))}'
                     "</code>" + (f", {ms:.4f} ms median" if ms is not None else "")
                     + f" after {_candidates(measured)}{logged}</div>")
    else:
        outcome = _get(result, "outcome") or f"no correct kernel among {_candidates(measured)}"
        first = _get(result, "first_failure")
        parts.append(f'<div class="wb-search-result" style="color:#b91c1c">'
                     f"{html.escape(outcome)}</div>")
        if first:
            parts.append(message_html(f"the first failure (candidate {first['candidate']}, "
                                      f"{first['status']})", first["message"]))
    if stopped:
        parts.append(f'<div class="wb-search-stopped" style="color:#52525b">stopped after '
                     f"{measured} of {budget}: {html.escape(stopped)}</div>")
    return "".join(parts)


def summary(result, measured: int, records: list = ()) -> str:
    """One line for the panel's header (the best time with the range of its repeats during
    the search, when the log has it)."""
    if _get(result, "best") is None:
        return _get(result, "outcome") or f"no correct kernel among {_candidates(measured)}"
    ms = _get(result, "best_kernel_ms")
    if ms is None:
        return "done"
    top = best_record(list(records))
    low, high = (_get(top, "kernel_ms_min"), _get(top, "kernel_ms_max")) if top else (None,
                                                                                         None)
    shown = f"{ms:.4f} ms" + (f" (searched: [{low:.4f}–{high:.4f}])" if low is not None else "")
    return f"best {shown} after {_candidates(measured)}"


def _candidates(n: int) -> str:
    return f"{n} candidate{'s' if n != 1 else ''}"

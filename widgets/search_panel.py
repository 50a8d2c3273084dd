"""The auto-search panel (SPEC 8, 11): strategy, budget, device, a progress bar and the live
search-efficiency curve while ``workbench.search.search`` runs in the background, and
"adopt best", which continues the derivation with the best candidate's steps (the steps it
replaces are kept as a branch).

The panel is shown disabled, saying "search is not installed", when ``workbench.search`` is
not part of the installed workbench.
"""

from __future__ import annotations

import html
import importlib
import importlib.util
import threading
import time
from collections.abc import Callable

import ipywidgets as w

from workbench import Derivation

from . import plots
from .tasks import ErrorArea, Worker, guarded

NOT_INSTALLED = "search is not installed"
DEFAULT_STRATEGIES = ("mcts",)


def find_search() -> tuple[Callable | None, tuple[str, ...]]:
    """``workbench.search.search`` and the strategy names it offers, or ``(None, ())``."""
    if importlib.util.find_spec("workbench.search") is None:
        return None, ()
    module = importlib.import_module("workbench.search")
    fn = getattr(module, "search", None)
    if not callable(fn):
        return None, ()
    names = getattr(module, "STRATEGIES", None)
    strategies = tuple(names) if names else DEFAULT_STRATEGIES
    return fn, strategies


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
                 adopt: Callable[[int, list], None]):
        self._derivation = derivation
        self._inputs = inputs
        self._device = device  # the workbench's device menu chooses it
        self._adopt = adopt
        self._errors = errors
        self.search_fn, strategies = find_search()
        self.strategy = w.Dropdown(options=strategies or DEFAULT_STRATEGIES,
                                   description="strategy", layout=w.Layout(width="220px"))
        self.budget = w.BoundedIntText(value=40, min=1, max=100_000, description="budget",
                                       layout=w.Layout(width="160px"))
        self.start_button = w.Button(description="search from this step", icon="search",
                                     button_style="primary", layout=w.Layout(width="200px"))
        self.adopt_button = w.Button(description="adopt best", icon="check", disabled=True)
        self.progress = w.IntProgress(value=0, min=0, max=40, description="0 / 40")
        self.status = w.HTML("")
        self.status.add_class("wb-search-status")
        self.best = w.HTML("")
        self.best.add_class("wb-search-best")
        self.plot = w.Image(format="png", layout=w.Layout(max_width="640px"))
        self.worker = Worker("search", self.status, errors)
        self.result = None
        self.records: list = []
        self._start_step = 0
        self._start_text = ""
        self._lock = threading.Lock()
        self._last_draw = 0.0
        self.start_button.on_click(guarded(errors, "search", lambda _: self.start()))
        self.adopt_button.on_click(guarded(errors, "adopt best", lambda _: self.adopt()))
        children = [w.HTML("<b>Automatic search</b>"),
                    w.HBox([self.strategy, self.budget]),
                    w.HBox([self.start_button, self.adopt_button, self.progress, self.status]),
                    self.best, self.plot]
        if self.search_fn is None:
            for control in (self.strategy, self.budget, self.start_button,
                            self.adopt_button, self.progress):
                control.disabled = True
            self.status.value = f'<span class="wb-search-missing">{NOT_INSTALLED}</span>'
        super().__init__(children)
        self.add_class("wb-search-panel")

    @property
    def available(self) -> bool:
        return self.search_fn is not None

    def start(self):
        if self.search_fn is None:
            raise RuntimeError(NOT_INSTALLED)
        d = self._derivation()
        expr, budget = d.current, int(self.budget.value)
        strategy, device = self.strategy.value, self._device()
        self._start_step, self._start_text = len(d.steps), str(expr)
        self.records, self.result = [], None
        self.adopt_button.disabled = True
        self.progress.max, self.progress.value = budget, 0
        self.progress.description = f"0 / {budget}"
        self.best.value = ""

        def job():
            arrays = self._inputs()
            return self.search_fn(expr, *arrays, strategy=strategy, budget=budget,
                                  device=device, progress=self._record)

        def done(result):
            self.result = result
            if result is not None and not self.records:
                self.records = list(_get(result, "log") or [])
            self._draw(final=True)
            ms = _get(result, "best_kernel_ms")
            best = _get(result, "best")
            self.best.value = (f'<div class="wb-search-result">best: <code>{html.escape(str(best))}'
                               f"</code>" + (f", {ms:.4f} ms" if ms is not None else "")
                               + f" after {len(self.records)} candidates</div>")
            self.adopt_button.disabled = best is None

        return self.worker.submit(f"search ({strategy}, budget {budget})", job, done)

    def _record(self, record) -> None:
        """Called by the search with each finished candidate (from any thread)."""
        with self._lock:
            self.records.append(record)
        try:
            self._draw()
        except Exception as err:  # a drawing problem must not stop the search
            self._errors.report("search progress", err)

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
        if best and best[-1] is not None:
            self.best.value = f"best so far: {best[-1]:.4f} ms ({n} candidates)"
        self.plot.value = plots.search_plot(times, best, self.progress.max)

    def adopt(self) -> None:
        if self.result is None:
            raise RuntimeError("no finished search to adopt")
        steps = steps_of(_get(self.result, "derivation"))
        self._adopt(self._start_step, steps, self._start_text)

    def wait(self, timeout: float | None = None) -> None:
        self.worker.wait(timeout)

"""The e-graph panel: equality saturation watched iteration by iteration (issue 46). For the
widget's current program (or a given one) the e-graph is grown round by round by the
``egraph`` strategy's rules, within a limit of rounds, e-nodes and seconds, optionally
guided by sketches (one per line); for each iteration the panel shows the e-classes and
e-nodes (a small chart), the rules that fired (how many merges each made), the program the
device's cost model extracts (in the notation) and, with sketches, which sketch was
reached. "Adopt extracted" continues the derivation with the selected iteration's program:
the steps ``EGraph.derive`` found, replayed through the ordinary rules.

The growth runs in the background (``tasks.Worker``); "stop" ends it after the round that
is running. The data is ``workbench.search.extraction.watch_saturation``'s report; the
drawing is the JavaScript below (``EGraphView``), as ``chart.Chart`` draws its plots.
"""

from __future__ import annotations

import html
import threading
from collections.abc import Callable

import anywidget
import ipywidgets as w
import traitlets

from workbench import Derivation, WorkbenchError
from workbench.rewriting.iterations import Iteration, SaturationReport
from workbench.search.extraction import watch_saturation
from workbench.types import function_parts

from .tasks import ErrorArea, Worker, guarded

_ESM = """
const W = 420, H = 170, M = {l: 50, r: 10, t: 18, b: 30};
const NS = "http://www.w3.org/2000/svg";
const COLOURS = {nodes: "#ea580c", classes: "#2563eb"};
const RULES_SHOWN = 10;  // the rules that merged most, as bars; the others listed
function node(tag, attrs, parent) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}
function html(tag, cls, text, parent) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}
function chart(its, selected, pick) {
  const svg = node("svg", {width: W, height: H, viewBox: `0 0 ${W} ${H}`,
                           class: "wb-egraph-chart", style: "font:11px sans-serif"});
  node("rect", {x: M.l, y: M.t, width: W - M.l - M.r, height: H - M.t - M.b,
                fill: "#fff", stroke: "#d4d4d8"}, svg);
  const top = Math.max(1, ...its.map((i) => i.nodes));
  const X = (k) => M.l + (its.length > 1 ? k / (its.length - 1) : 0.5) * (W - M.l - M.r);
  const Y = (v) => H - M.b - v / top * (H - M.t - M.b) * 0.92;
  for (const v of [0, top]) {
    node("text", {x: M.l - 4, y: Y(v) + 3, "text-anchor": "end"}, svg).textContent = v;
  }
  its.forEach((it, k) => {
    if (it.sketch !== null && (k === 0 || its[k - 1].sketch !== it.sketch) && k > 0) {
      node("line", {x1: X(k - 0.5), x2: X(k - 0.5), y1: M.t, y2: H - M.b, stroke: "#a1a1aa",
                    "stroke-dasharray": "3 3"}, svg);
    }
    node("text", {x: X(k), y: H - M.b + 13, "text-anchor": "middle"}, svg).textContent =
      it.number;
  });
  node("text", {x: M.l + (W - M.l - M.r) / 2, y: H - 3, "text-anchor": "middle",
                fill: "#52525b"}, svg).textContent = "iteration";
  its.forEach((it, k) => {  // a ring where a sketch was reached
    if (it.reached) {
      node("circle", {cx: X(k), cy: Y(it.nodes), r: 8, fill: "none", stroke: "#16a34a",
                      "stroke-width": 2, class: "wb-egraph-reached"}, svg);
    }
  });
  let ly = M.t + 12;
  for (const key of ["nodes", "classes"]) {
    const c = COLOURS[key];
    const d = its.map((it, k) => `${k ? "L" : "M"}${X(k)},${Y(it[key])}`).join("");
    node("path", {d, fill: "none", stroke: c, "stroke-width": 1.6}, svg);
    its.forEach((it, k) => {
      const dot = node("circle", {cx: X(k), cy: Y(it[key]), r: k === selected ? 5 : 3.5,
                                  fill: c, class: `wb-egraph-point wb-egraph-${key}`}, svg);
      dot.style.cursor = "pointer";
      node("title", {}, dot).textContent = `iteration ${it.number}: ${it[key]} e-${key}`;
      dot.addEventListener("click", () => pick(k));
    });
    node("text", {x: M.l + 8, y: ly, fill: c}, svg).textContent =
      key === "nodes" ? "e-nodes" : "e-classes";
    ly += 13;
  }
  return svg;
}
function fired(it, parent) {
  const rules = Object.entries(it.fired).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const box = html("div", "wb-egraph-fired", undefined, parent);
  if (!rules.length) { html("div", "wb-egraph-none", it.number ? "no rule fired" :
                            "the start: no round yet", box); return; }
  const most = rules[0][1], shown = rules.slice(0, RULES_SHOWN);
  for (const [rule, n] of shown) {
    const row = html("div", "wb-egraph-rule", undefined, box);
    html("span", "wb-egraph-rule-name", rule, row);
    const bar = html("span", "wb-egraph-bar", undefined, row);
    bar.style.width = Math.max(2, 120 * n / most) + "px";
    html("span", "wb-egraph-count", String(n), row);
  }
  const rest = rules.slice(RULES_SHOWN);
  if (rest.length) {
    html("div", "wb-egraph-none", `and ${rest.length} other rules: `
         + rest.map(([rule, n]) => `${rule} ${n}`).join(", "), box);
  }
}
function render({ model, el }) {
  el.classList.add("wb-egraph-view");
  const draw = () => {
    const its = model.get("iterations") || [];
    el.innerHTML = "";
    if (!its.length) return;
    let k = model.get("selected");
    if (k < 0 || k >= its.length) k = its.length - 1;
    const it = its[k];
    const pick = (j) => { model.set("selected", j); model.save_changes(); };
    const row = html("div", "wb-egraph-row", undefined, el);
    row.appendChild(chart(its, k, pick));
    const side = html("div", "wb-egraph-side", undefined, row);
    html("div", "wb-egraph-head", `iteration ${it.number}: ${it.classes} e-classes, `
         + `${it.nodes} e-nodes (+${it.created} created, ${it.merged} merged), `
         + `${it.seconds.toFixed(2)} s`, side);
    if (it.sketch !== null) {
      html("div", "wb-egraph-sketch " + (it.reached ? "wb-reached" : "wb-not-reached"),
           (it.reached ? "reached: " : "growing towards: ") + it.sketch, side);
    }
    html("div", "wb-egraph-label", "rules fired (merges)", side);
    fired(it, side);
    html("div", "wb-egraph-label", "extracted program"
         + (it.cost !== null ? ` (${Number(it.cost.toPrecision(4))} ${it.unit})` : "")
         + (it.steps === null ? ": no derivation found" : `: ${it.steps.length} steps`), el);
    html("code", "wb-egraph-program", it.program, el);
    const stopped = model.get("stopped");
    if (stopped) html("div", "wb-egraph-stopped", "stopped: " + stopped, el);
  };
  draw();
  for (const name of ["iterations", "selected", "stopped"]) model.on(`change:${name}`, draw);
  return () => { for (const name of ["iterations", "selected", "stopped"])
                   model.off(`change:${name}`, draw); };
}
export default { render };
"""

_CSS = """
.wb-egraph-view { font: 12px sans-serif; max-width: 100%; }
.wb-egraph-row { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
.wb-egraph-side { min-width: 220px; flex: 1; }
.wb-egraph-head { font-weight: bold; margin-bottom: 4px; }
.wb-egraph-label { color: #52525b; margin: 6px 0 2px; }
.wb-egraph-rule { display: flex; align-items: center; gap: 6px; line-height: 16px; }
.wb-egraph-rule-name { font-family: monospace; min-width: 220px; }
.wb-egraph-bar { display: inline-block; height: 8px; background: #ea580c; opacity: 0.7; }
.wb-egraph-program { display: block; white-space: pre-wrap; overflow-wrap: anywhere;
  background: #f4f4f5; padding: 4px 6px; border-radius: 4px; }
.wb-egraph-sketch { font-family: monospace; overflow-wrap: anywhere; }
.wb-egraph-sketch.wb-reached { color: #166534; }
.wb-egraph-sketch.wb-not-reached { color: #92400e; }
.wb-egraph-stopped { color: #52525b; margin-top: 4px; }
.wb-egraph-none { color: #52525b; overflow-wrap: anywhere; }
"""


class EGraphView(anywidget.AnyWidget):
    """``iterations``: each iteration's ``Iteration.as_json()``; ``selected``: the iteration
    shown (-1: the last; a click on the chart's point sets it); ``stopped``: why the growth
    ended. An iteration where a sketch was reached is ringed in green."""

    _esm = _ESM
    _css = _CSS
    iterations = traitlets.List([]).tag(sync=True)
    selected = traitlets.Int(-1).tag(sync=True)
    stopped = traitlets.Unicode("").tag(sync=True)


def input_types(d: Derivation) -> list:
    """The types the derivation's program takes (its declared ones when none are given)."""
    types = list(d.input_types)
    if not types:
        declared = getattr(d.start, "declared_type", None)
        types = list(function_parts(declared)[0]) if declared is not None else []
    return types


class EGraphPanel(w.VBox):
    """Grows the e-graph of the current step's program; ``report`` is the last one grown.

    ``adopt(start_step, steps, start_text, sizes)`` is the widget's: without it (a panel of
    a given program, ``EGraphPanel.of``) there is no "adopt" button."""

    def __init__(self, derivation: Callable[[], Derivation], device: Callable[[], str | None],
                 errors: ErrorArea, adopt: Callable[[int, list, str, dict], str] | None,
                 sizes: Callable[[], dict[str, int]] = dict):
        self._derivation = derivation
        self._device = device
        self._adopt = adopt
        self._sizes = sizes
        self.errors = ErrorArea(log=errors)
        self.watch = watch_saturation
        self.rounds = w.BoundedIntText(value=4, min=1, max=50, description="rounds",
                                       layout=w.Layout(width="140px"))
        self.nodes = w.BoundedIntText(value=3000, min=10, max=1_000_000, description="e-nodes",
                                      layout=w.Layout(width="170px"))
        self.seconds = w.BoundedFloatText(value=30.0, min=0.5, max=3600.0, description="seconds",
                                          layout=w.Layout(width="160px"))
        self.sketches = w.Textarea(value="", placeholder="sketches, one per line (none: "
                                   "unguided), e.g. contains(map join ∘ untile ∘ ? ∘ split m)",
                                   layout=w.Layout(width="100%", height="48px"))
        self.sketches.add_class("wb-egraph-sketches")
        self.start_button = w.Button(description="grow e-graph", icon="sitemap",
                                     button_style="primary", layout=w.Layout(width="150px"))
        self.start_button.add_class("wb-egraph-start")
        self.stop_button = w.Button(description="stop", icon="stop", disabled=True,
                                    tooltip="stop after the round that is running",
                                    layout=w.Layout(width="90px"))
        self.stop_button.add_class("wb-egraph-stop")
        self.adopt_button = w.Button(description="adopt extracted", icon="check", disabled=True,
                                     tooltip="continue the derivation with the shown "
                                             "iteration's program (its derivation's steps)")
        self.adopt_button.add_class("wb-egraph-adopt")
        self.status = w.HTML("")
        self.status.add_class("wb-egraph-status")
        self.adopted = w.HTML("")
        self.view = EGraphView()
        self.worker = Worker("egraph", self.status, self.errors)
        self.report: SaturationReport | None = None
        self.iterations: list[Iteration] = []  # what the view shows, as the growth made them
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._start_step, self._start_text, self._run_sizes = 0, "", {}
        self.on_summary: Callable[[str], None] | None = None
        self.start_button.on_click(guarded(self.errors, "grow e-graph", lambda _: self.start()))
        self.stop_button.on_click(guarded(self.errors, "stop", lambda _: self.stop()))
        self.adopt_button.on_click(guarded(self.errors, "adopt extracted",
                                           lambda _: self.adopt()))
        self.view.observe(lambda _c: self._can_adopt(), "selected")
        buttons = [self.start_button, self.stop_button]
        if adopt is not None:
            buttons.append(self.adopt_button)
        super().__init__([w.HBox([self.rounds, self.nodes, self.seconds]), self.sketches,
                          w.HBox(buttons + [self.status]), self.errors, self.adopted,
                          self.view])
        self.add_class("wb-egraph-panel")

    @classmethod
    def of(cls, program, *input_types, sizes: dict[str, int] | None = None,
           device: str | None = None) -> EGraphPanel:
        """A panel of a given program (an expression or its text) at ``input_types``."""
        d = program if isinstance(program, Derivation) else Derivation(program, *input_types)
        return cls(lambda: d, lambda: device, ErrorArea(), None, lambda: dict(sizes or {}))

    def start(self):
        """Grow the current step's e-graph in the background (see ``wait``); a growth
        still running is stopped after its round, and what it grew is not shown."""
        d = self._derivation()
        expr, types, sizes = d.current, input_types(d), self._sizes()
        sketches = [s.strip() for s in self.sketches.value.splitlines() if s.strip()]
        limits = dict(rounds=int(self.rounds.value), nodes=int(self.nodes.value),
                      seconds=float(self.seconds.value))
        self._start_step, self._start_text, self._run_sizes = len(d.steps), str(expr), sizes
        self.report, self.iterations = None, []
        self.adopted.value = ""
        self.adopt_button.disabled = True
        self.view.iterations, self.view.selected, self.view.stopped = [], -1, ""
        self._stop.set()  # a growth still running ends after its round, and is not shown
        stop = self._stop = threading.Event()
        self.stop_button.disabled = False
        guided = f"{len(sketches)} sketch{'es' if len(sketches) != 1 else ''}" if sketches \
            else "unguided"
        self._summarize(f"growing from step {self._start_step} ({guided})")
        device = self._device()

        def shown(it: Iteration) -> None:
            if stop is self._stop:  # this growth is the one shown
                self._iteration(it)

        def job() -> SaturationReport:
            try:
                return self.watch(expr, *types, sketches=sketches, sizes=sizes, device=device,
                                  cancel=stop.is_set, on_iteration=shown, **limits)
            finally:
                if stop is self._stop:
                    self.stop_button.disabled = True

        def done(report: SaturationReport) -> None:
            if stop is self._stop:
                self._done(report)

        return self.worker.submit(f"e-graph ({guided})", job, done)

    def stop(self) -> None:
        """End the growth after the round that is running (what it grew is kept)."""
        self._stop.set()
        self.stop_button.disabled = True
        self.status.value = ('<span class="wb-idle wb-egraph-stopping">stopping after the '
                             "round that is running</span>")

    def _iteration(self, it: Iteration) -> None:
        """Called by the growth with each iteration (in the worker's thread)."""
        with self._lock:
            self.iterations = self.iterations + [it]
            self.view.iterations = self.view.iterations + [it.as_json()]
        self._can_adopt()

    def _done(self, report: SaturationReport) -> None:
        self.report = report
        with self._lock:
            self.iterations = list(report.iterations)
            self.view.iterations = [it.as_json() for it in report.iterations]
        self.view.stopped = report.stopped
        self._can_adopt()
        last = report.last
        reached = report.reached()
        rounds = len(report.iterations) - 1
        self._summarize(f"{rounds} round{'s' if rounds != 1 else ''}, {last.classes} e-classes, "
                        f"{last.nodes} e-nodes"
                        + (f"; {len(reached)} of {len(report.sketches)} sketches reached"
                           if report.sketches else "") + f"; {report.stopped}")

    def shown(self) -> Iteration | None:
        """The iteration the view shows (the selected one, else the last)."""
        its = self.iterations
        if not its:
            return None
        k = self.view.selected
        return its[k] if 0 <= k < len(its) else its[-1]

    def _can_adopt(self) -> None:
        it = self.shown()
        self.adopt_button.disabled = it is None or not it.steps

    def adopt(self) -> None:
        """Continue the derivation, from the step the growth started at, with the shown
        iteration's steps."""
        it = self.shown()
        if it is None or it.steps is None:
            raise WorkbenchError("no extracted program with a derivation to adopt: grow the "
                                 "e-graph first")
        if self._adopt is None:
            raise WorkbenchError("this panel shows a given program: there is no derivation "
                                 "to adopt into")
        steps = [(s.rule, s.path, dict(s.params)) for s in it.steps]
        note = self._adopt(self._start_step, steps, self._start_text, self._run_sizes)
        self.adopted.value = (f'<span class="wb-egraph-adopted" style="color:#166534">adopted '
                              f"iteration {it.number}'s {len(steps)} step"
                              f"{'s' if len(steps) != 1 else ''}"
                              + (f"; {html.escape(note)}" if note else "") + "</span>")

    def _summarize(self, text: str) -> None:
        if self.on_summary is not None:
            self.on_summary(text)

    def wait(self, timeout: float | None = None) -> None:
        self.worker.wait(timeout)

"""``Workbench``: the interactive derivation widget (SPEC 11).

It is a view of one ``workbench.Derivation`` and holds no compiler logic: the tree is drawn
from the current expression, the rules come from ``workbench.rewrites``, the steps are the
derivation's ``apply``/``undo``/``redo``/``branch``, the code from default completion and
``workbench.opencl``, the times from ``workbench.run``, the search from
``workbench.search``, the e-graph's iterations from ``workbench.search.extraction``. Code
generation, runs, searches and e-graphs grow in worker threads; an error
is shown beside the buttons that caused it (with a button that dismisses it) and recorded
in ``errors.messages``.

The tree and the code are linked by the code generator's ``source_map``: the selected
node's OpenCL lines are shaded, hovering a node or a line lights up the other, and a click
on a line selects its node; the code panel also opens the difference from the step before.
"Adopt best" replays the search's steps at the widget's own types, or, when a step needs
sizes that symbolic types leave open, replays the whole derivation at the sizes the search
ran at (the size boxes are then fixed to them).
"""

from __future__ import annotations

import html
import threading
from collections.abc import Mapping
from pathlib import Path

import ipywidgets as w

from workbench import Derivation, Expr, WorkbenchError, parse_program
from workbench.errors import as_path, format_path, parse_path
from workbench.expr import UserFun, subterm

from . import code as code_panel
from .device_menu import DeviceMenu
from .egraph_panel import EGraphPanel
from .paper import PaperView
from .rule_list import RuleList
from .runs import RunPanel
from .search_panel import SearchPanel
from .sections import Section, SectionBar, SideBySide
from .stderr import CompilerMessages
from .tasks import ErrorArea, Worker, guarded
from .tree import TreeView, legend_html


def as_derivation(source, input_types: tuple, name: str = "") -> Derivation:
    """A derivation to show: given as one, as an expression (or its text) with input types,
    as program text or a loaded program (its last definition), or as a saved ``.json``."""
    if isinstance(source, Derivation):
        if input_types:
            raise WorkbenchError("a Derivation carries its input types: give no others")
        return source
    if isinstance(source, Path) or (isinstance(source, str) and source.endswith(".json")):
        return Derivation.load(source)
    if isinstance(source, str) and ("\n" in source or " : " in source):
        source = parse_program(source)
    if isinstance(source, Mapping):
        candidates = [e for e in source.values() if not isinstance(e, UserFun)]
        if not candidates:
            raise WorkbenchError("the program defines only scalar functions: nothing to derive")
        source = candidates[-1]
    if isinstance(source, Expr | str):
        return Derivation(source, *input_types, name=name)
    raise WorkbenchError(f"Workbench shows an expression, a program or a Derivation, not a "
                         f"{type(source).__name__}")


class StepRefused(WorkbenchError):
    """A step of a search's result that does not apply at the types tried."""

    def __init__(self, message: str, rule: str):
        super().__init__(message)
        self.rule = rule


def _stepped(d: Derivation, types: tuple, start_step: int,
             steps: list) -> tuple[Derivation, StepRefused | None]:
    """A new derivation at ``types``: ``d``'s first ``start_step`` steps, then ``steps``;
    and the first refusal (None when every step applied)."""
    out = Derivation(d.start, *types, name=d.name, definitions=d.definitions)
    todo = [(s.rule, s.path, dict(s.params)) for s in d.steps[:start_step]]
    for k, (rule, path, params) in enumerate(todo + list(steps), start=1):
        try:
            out.apply(rule, path, **params)
        except WorkbenchError as err:
            adopted = k - start_step
            where = (f"step {adopted} of the {len(steps)} adopted" if adopted > 0 else
                     f"step {k} of the derivation")
            return out, StepRefused(f"{where} ({rule} at {format_path(as_path(path))}) does "
                                    f"not apply at {', '.join(map(str, types)) or 'these types'}"
                                    f": {err}", rule)
    return out, None


def _title(d: Derivation) -> str:
    types = " → ".join(map(str, d.input_types)) or str(getattr(d.start, "declared_type", ""))
    return (f'<div style="font-size:15px"><b>{html.escape(d.name)}</b> '
            f"<code>{html.escape(types)}</code></div><div>{legend_html()}</div>{STYLE}")


# The panels' headers read as headings, not as buttons (scoped to the widget).
STYLE = """<style>
.wb-workbench .wb-section-toggle { background: none; box-shadow: none; font-weight: bold;
  font-size: 14px; padding: 0 6px 0 0; text-align: left; color: #18181b; }
.wb-workbench .wb-section-toggle:hover { color: #2563eb; }
.wb-workbench .wb-section-bar .widget-toggle-button { height: 24px; line-height: 22px;
  font-size: 12px; }
.wb-workbench .wb-tree::-webkit-scrollbar { width: 10px; height: 10px; }
.wb-workbench .wb-tree::-webkit-scrollbar-thumb { background: #a1a1aa; border-radius: 5px; }
.wb-workbench .wb-tree::-webkit-scrollbar-track { background: #f4f4f5; }
.wb-workbench .wb-controls select { max-width: 100%; }
.wb-workbench .wb-rule-list code { white-space: normal; overflow-wrap: anywhere; }
.wb-workbench .wb-rule-list { min-width: 0; max-width: 100%; }
.wb-workbench .wb-line-hover { background: #fde68a !important; }
.wb-workbench .wb-opencl [data-path] { cursor: pointer; }
.wb-workbench .wb-node-hover path, .wb-workbench .wb-node-hover polygon,
.wb-workbench .wb-node-hover ellipse { stroke: #f59e0b; stroke-width: 3; }
.wb-workbench .wb-size-refused input { border-color: #b91c1c; background: #fef2f2; }
</style>"""


class Workbench(w.VBox):
    """``Workbench(program_or_expr, *input_types, device=None)``: click a node of the tree,
    pick a rule, apply; see the derivation, the OpenCL and the measured time of every step.

    ``sizes`` sets the run sizes (default N = 4096), ``repeat`` the timed runs per step,
    ``auto_run`` whether every new step is measured as soon as it is made, ``collapsed`` the
    panels shown closed at first (of "tree", "derivation", "code", "runs", "search",
    "egraph"; the
    bar at the top and each panel's header open and close them).
    """

    def __init__(self, program_or_expr, *input_types, device: str | None = None,
                 sizes: dict[str, int] | None = None, repeat: int = 10,
                 auto_run: bool = True, name: str = "", collapsed: tuple[str, ...] = ()):
        self.derivation = as_derivation(program_or_expr, input_types, name)
        self.device = device
        self.errors = ErrorArea()  # every error is recorded here; each is shown by its buttons
        self.compiler_messages = CompilerMessages()  # PoCL's build output, on request
        self.step_errors = ErrorArea(log=self.errors)  # select, apply, undo, branch, adopt
        self.code_errors = ErrorArea(log=self.errors)
        self.paper_errors = ErrorArea(log=self.errors)
        self._lock = threading.RLock()
        self._version = 0
        self._changed_nodes: set[str] = set()

        self.tree = TreeView()
        self.rules = RuleList(on_preview=self._highlight)
        self.apply_button = w.Button(description="apply", icon="check", button_style="success")
        self.undo_button = w.Button(description="undo", icon="undo")
        self.redo_button = w.Button(description="redo", icon="repeat")
        self.branch_step = w.Dropdown(description="from step", layout=w.Layout(width="170px"))
        self.branch_button = w.Button(description="branch", icon="code-fork",
                                      tooltip="go back to the chosen step; the later steps "
                                              "are kept as a branch")
        self.branch_choice = w.Dropdown(description="branches", layout=w.Layout(width="260px"))
        self.switch_button = w.Button(description="switch", icon="exchange")
        for button in (self.apply_button, self.undo_button, self.redo_button,
                       self.branch_button, self.switch_button):
            button.layout.width = "100px"
        self.apply_button.add_class("wb-apply")
        self.undo_button.add_class("wb-undo")
        self.redo_button.add_class("wb-redo")
        self.paper = PaperView(on_expand=guarded(self.paper_errors, "expand", self.expand))
        self.code_status = w.HTML("")
        self.code = w.HTML("")
        self.code.add_class("wb-code")
        self.code_worker = Worker("code", self.code_status, self.code_errors)
        self.code_text: code_panel.StepCode | None = None
        self.code_before: code_panel.StepCode | None = None  # the step before's, for the diff
        self._codes: dict[tuple, code_panel.StepCode] = {}
        self.device_menu = DeviceMenu(device)
        self.device_menu.observe_choice(self._device_chosen)
        self.runs = RunPanel(lambda: self.derivation, device, self.errors, sizes, repeat,
                             auto_run)
        self.search = SearchPanel(lambda: self.derivation,
                                  lambda: self.runs.inputs(self.runs.sizes()),
                                  lambda: self.device, self.errors, self._adopt,
                                  self.runs.sizes)
        self.egraph = EGraphPanel(lambda: self.derivation, lambda: self.device, self.errors,
                                  self._adopt, self.runs.sizes)

        steps = self.step_errors
        self.tree.observe(guarded(steps, "select", self._selected), "selected")
        self.apply_button.on_click(guarded(steps, "apply", lambda _: self.apply()))
        self.undo_button.on_click(guarded(steps, "undo", lambda _: self.undo()))
        self.redo_button.on_click(guarded(steps, "redo", lambda _: self.redo()))
        self.branch_button.on_click(guarded(steps, "branch",
                                            lambda _: self.branch(self.branch_step.value)))
        self.switch_button.on_click(guarded(steps, "switch",
                                            lambda _: self.switch(self.branch_choice.value)))
        self.runs.on_sizes = self._generate

        self.title = title = w.HTML(_title(self.derivation))
        controls = w.VBox([
            w.HTML("<b>Rules at the selected node</b>"), self.rules,
            w.HBox([self.apply_button, self.undo_button, self.redo_button]), self.step_errors,
            w.HBox([self.branch_step, self.branch_button]),
            w.HBox([self.branch_choice, self.switch_button])],
            layout=w.Layout(width="100%", min_width="0"))
        controls.add_class("wb-controls")
        code_box = w.VBox([self.code_status, self.code_errors, self.code],
                          layout=w.Layout(width="100%", min_width="0"))
        tree_box = w.VBox([w.HTML("<b>Expression tree</b> (click a node)"), self.tree,
                           controls], layout=w.Layout(width="100%", min_width="0"))
        # Each panel collapsible (its header, or the bar at the top); the tree and its OpenCL
        # side by side, so both ends of a link between a node and its lines are in view.
        self.sections = {s.key: s for s in (
            Section("tree", "Expression tree and rules", tree_box),
            Section("derivation", "Derivation", w.VBox([self.paper_errors, self.paper])),
            Section("code", "OpenCL", code_box),
            Section("runs", "Run on the device", self.runs),
            Section("search", "Automatic search", self.search),
            Section("egraph", "Equality saturation (e-graph)", self.egraph))}
        for key in collapsed:
            if key not in self.sections:
                raise WorkbenchError(f"no panel {key!r} to collapse (the panels: "
                                     f"{', '.join(self.sections)})")
            self.sections[key].expanded = False
        self.runs.on_summary = self.sections["runs"].summarize
        self.search.on_summary = self.sections["search"].summarize
        self.egraph.on_summary = self.sections["egraph"].summarize
        sections = self.sections
        super().__init__([title, self.device_menu, SectionBar(list(sections.values())),
                          self.errors, self.compiler_messages,
                          SideBySide(sections["tree"], sections["code"]),
                          sections["derivation"], sections["runs"], sections["search"],
                          sections["egraph"]])
        self.add_class("wb-workbench")
        self._changed(select="root")

    def _device_chosen(self, device: str | None) -> None:
        """Runs and searches from now on use ``device`` (None: the default device)."""
        self.device = device
        self.runs.device = device

    # --- the derivation -------------------------------------------------------------------
    @property
    def current(self) -> Expr:
        return self.derivation.current

    def select(self, path: str | int | tuple) -> None:
        """Select a node by path (what a click on the tree does): "1.0", (1, 0), 0, "root"."""
        self.tree.selected = format_path(as_path(path))

    def choose(self, rule: str, **params):
        """Pick a rule and its parameters at the selected node (the preview shows it)."""
        return self.rules.choose(rule, **params)

    def apply(self, rule: str | None = None, **params) -> Expr:
        """Apply the chosen rewrite (or pick ``rule`` with ``params`` first)."""
        with self._lock:
            if rule is not None:
                self.choose(rule, **params)
            chosen = self.rules.chosen
            if chosen is None:
                raise WorkbenchError("choose a rule (and its parameters) from the list first")
            result = self.derivation.apply(chosen.rule, chosen.path, **chosen.params)
            self._changed(select=format_path(chosen.path))
            return result

    def undo(self) -> Expr:
        with self._lock:
            out = self.derivation.undo()
            self._changed()
            return out

    def redo(self) -> Expr:
        with self._lock:
            out = self.derivation.redo()
            self._changed()
            return out

    def branch(self, k: int) -> None:
        """Go back to after step ``k``; the later steps are kept as a branch."""
        with self._lock:
            self.derivation.branch(int(k))
            self._changed()

    def switch(self, i: int) -> None:
        with self._lock:
            if i is None:
                raise WorkbenchError("there is no other branch yet")
            self.derivation.switch(int(i))
            self._changed()

    def _adopt(self, start_step: int, steps: list, start_text: str,
               sizes: dict[str, int] | None = None) -> str:
        """Continue from the step the search started at with the search's steps; the steps
        that followed it are kept as a branch. The steps are tried at the widget's own
        types first (a copy is stepped, so a refusal changes nothing); when one needs a
        length the symbolic types leave open (a two-stage reduction's work-groups), the
        whole derivation is replayed at the sizes the search ran at, and the size boxes
        are fixed to them. Returns what was done, in words, when it was more than the
        steps."""
        with self._lock:
            d = self.derivation
            exprs = d.expressions()
            if start_step >= len(exprs) or str(exprs[start_step]) != start_text:
                raise WorkbenchError(f"step {start_step} is no longer the expression the "
                                     f"search started from (`{start_text}`)")
            trial, refused = _stepped(d, d.input_types, start_step, steps)
            note = ""
            if refused is not None:
                free = {n: v for n, v in (sizes or {}).items()
                        if n in self.runs.size_inputs}
                if not free:
                    raise refused
                types = code_panel.input_types(d.start, free)
                trial, again = _stepped(d, tuple(types), start_step, steps)
                if again is not None:
                    raise again
                trial.branches = list(d.branches)
                shown = ", ".join(f"{n} = {v}" for n, v in free.items())
                note = (f"{refused.rule} needs sizes the symbolic types leave open, so the "
                        f"derivation now runs at {shown} (the sizes the search ran at)")
                self._instantiate(trial, free)
            else:
                if len(d.steps) > start_step:
                    d.branch(start_step)  # the steps after it are kept as a branch
                for rule, path, params in steps:
                    d.apply(rule, path, **params)
            self._changed()
            return note

    def _instantiate(self, derivation: Derivation, sizes: dict[str, int]) -> None:
        """Show ``derivation`` (at concrete types) in place of the symbolic one: the size
        boxes hold the sizes its types fix, and can no longer change them."""
        self.derivation = derivation
        for name, value in sizes.items():
            box = self.runs.size_inputs[name]
            box.value = int(value)
            box.disabled = True
            box.tooltip = f"fixed: the derivation's types have {name} = {value}"
        self.title.value = _title(derivation)

    def expand(self, k: int) -> Expr:
        """Replace macro step ``k`` of the derivation by its basic steps."""
        out = self.derivation.expand(k)
        self._changed()
        return out

    # --- views ----------------------------------------------------------------------------
    def _selected(self, _change=None) -> None:
        self.rules.show(self.current, self.derivation.input_types, self.tree.selected)
        self._show_code()

    def _highlight(self, paths: set[str]) -> None:
        self._changed_nodes = paths
        chosen = self.rules.chosen
        self.apply_button.disabled = chosen is None  # nothing applies, or nothing is chosen
        self.apply_button.tooltip = ("apply the chosen rule" if chosen is not None else
                                     "no rule applies here" if not self.rules.rewrites else
                                     "choose a rule that applies")
        self.tree.show(self.current, paths)

    def _changed(self, select: str | None = None) -> None:
        """Redraw everything after the derivation changed."""
        d = self.derivation
        path = self.tree.selected if select is None else select
        try:
            subterm(d.current, parse_path(path)) if path else None
        except WorkbenchError:
            path = "root"
        if self.tree.selected != path:
            self.tree.selected = path  # the observer lists the rules there
        else:
            self._selected()
        self.paper.show(d)
        self.undo_button.disabled = not d.can_undo
        self.redo_button.disabled = not d.can_redo
        self.branch_step.options = [(f"{k}", k) for k in range(len(d.steps) + 1)]
        self.branch_step.value = max(len(d.steps) - 1, 0)
        self.branch_choice.options = [
            (f"{i}: {len(b)} steps" + (f", last {b[-1].rule}" if b else ""), i)
            for i, b in enumerate(d.branches)]
        self.switch_button.disabled = not d.branches
        self._generate()
        self.runs.on_step_changed()

    def _generate(self) -> None:
        self._version += 1
        version, step = self._version, len(self.derivation.steps)
        exprs = self.derivation.expressions()
        expr, previous = exprs[-1], (exprs[-2] if len(exprs) > 1 else None)
        sizes = self.runs.sizes()
        refused = self.runs.size_problem

        def done(result: tuple) -> None:
            if version == self._version:
                self.code_text, self.code_before = result
                self._show_code()
                self.sections["code"].summarize(code_panel.summary(self.code_text, step))

        if refused:  # the size box says why; no code is generated for such sizes
            done((code_panel.StepCode(str(expr), problem=refused), None))
            return

        def job() -> tuple:
            before = None if previous is None else self._code(previous, sizes)
            return self._code(expr, sizes), before

        self.code_worker.cancel_pending("code")  # a later step's code replaces it
        self.code_worker.submit(f"OpenCL of step {step}", job, done, tag="code")

    def _code(self, expr: Expr, sizes: dict[str, int]) -> code_panel.StepCode:
        """The code of one step at ``sizes`` (kept: the diff needs the step before)."""
        key = (str(expr), tuple(sorted(sizes.items())))
        if key not in self._codes:
            if len(self._codes) > 64:
                self._codes.clear()
            self._codes[key] = code_panel.generate(expr, sizes)
        return self._codes[key]

    def _show_code(self) -> None:
        """The code panel, with the selected node's lines shaded."""
        if self.code_text is not None:
            self.code.value = code_panel.code_html(self.code_text, len(self.derivation.steps),
                                                   self.tree.selected, self.code_before)

    # --- for scripts and tests ------------------------------------------------------------
    def wait(self, timeout: float | None = 120) -> None:
        """Block until the queued code generation, runs and search have finished."""
        self.code_worker.wait(timeout)
        self.runs.wait(timeout)
        self.search.wait(timeout)
        self.egraph.wait(timeout)

    @property
    def opencl_source(self) -> str:
        """The OpenCL of the current step (after ``wait()``)."""
        return self.code_text.source if self.code_text else ""

    def run_step(self):
        """Measure the current step on the device (in the background; see ``wait``)."""
        return self.runs.run_step()

    def to_markdown(self) -> str:
        return self.derivation.to_markdown()

    def to_latex(self) -> str:
        return self.derivation.to_latex()

    def to_json(self) -> dict:
        return self.derivation.to_json()

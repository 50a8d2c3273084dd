"""The rules that apply at the selected node (SPEC 11): one entry per rule with its
equation, a dropdown per parameter (the values ``workbench.rewrites`` found), a preview of
the result, and the reasons the other rules do not apply there (``refusals``)."""

from __future__ import annotations

import html
from collections.abc import Callable

import ipywidgets as w

from workbench import rewrites
from workbench.errors import format_path, parse_path
from workbench.expr import Expr, subterm
from workbench.rules import Rewrite, lookup_rule, refusals

from .tree import changed_paths


def _middle(values: list[str]) -> str:
    """The default of a parameter: the middle candidate (a chunk of 64 among 2..1024), of
    the numbers when symbolic fractions (N/2 … N/1024) follow them."""
    numbers = [v for v in values if v.isdigit()] or values
    return numbers[(len(numbers) - 1) // 2]


class RuleList(w.VBox):
    """Lists rewrites at one node; ``chosen`` is the rewrite the controls describe.

    ``on_preview(paths)`` is called with the paths the chosen rewrite would change (empty
    when nothing is chosen), so the tree can highlight them.
    """

    def __init__(self, on_preview: Callable[[set[str]], None]):
        self.on_preview = on_preview
        self.header = w.HTML("<i>click a node of the tree</i>")
        self.header.add_class("wb-selection")
        self.rule_select = w.Select(options=[], rows=8, layout=w.Layout(width="98%"))
        self.rule_select.add_class("wb-rule-select")
        self.param_box = w.HBox([])
        self.preview = w.HTML("")
        self.preview.add_class("wb-preview")
        self.why_not = w.HTML("")
        self.rewrites: list[Rewrite] = []
        self.expr: Expr | None = None
        self.path: tuple = ()
        self._dropdowns: dict[str, w.Dropdown] = {}
        self._quiet = False
        self.rule_select.observe(self._rule_changed, "value")
        super().__init__([self.header, self.rule_select, self.param_box, self.preview,
                          self.why_not])
        self.add_class("wb-rule-list")

    def show(self, expr: Expr, input_types: tuple, path: str) -> None:
        """List the rewrites at ``path`` of ``expr`` (an empty path text: nothing selected)."""
        self.expr = expr
        if not path:
            self.rewrites, self.path = [], ()
            self.header.value = "<i>click a node of the tree to see the rules that apply</i>"
            self._set_rules([])
            self.why_not.value = ""
            return
        self.path = parse_path(path)
        node = subterm(expr, self.path)
        self.rewrites = rewrites(expr, *input_types, at=self.path)
        names = list(dict.fromkeys(r.rule for r in self.rewrites))
        shown = str(node) if len(str(node)) <= 90 else str(node)[:87] + "..."
        self.header.value = (
            f'<div class="wb-selected-text">selected <b>{html.escape(format_path(self.path))}'
            f"</b> <code>{html.escape(shown)}</code>: {len(names)} rule"
            f"{'' if len(names) == 1 else 's'} apply: {html.escape(', '.join(names)) or '—'}"
            "</div>")
        self._set_rules(names)
        reasons = refusals(expr, self.path, *input_types)
        items = "".join(f"<li><b>{html.escape(k)}</b>: {html.escape(v)}</li>"
                        for k, v in reasons.items())
        self.why_not.value = (f'<details style="font-size:11px"><summary>why the other '
                              f"{len(reasons)} rules do not apply here</summary>"
                              f"<ul>{items}</ul></details>" if reasons else "")

    def _set_rules(self, names: list[str]) -> None:
        options = []
        for name in names:
            rule = lookup_rule(name)
            options.append((f"{name}    {rule.equation}", name))
        self._quiet = True
        try:
            self.rule_select.options = options
            self.rule_select.value = None
        finally:
            self._quiet = False
        self._rule_changed(None)

    def choose(self, rule: str, **params) -> Rewrite:
        """Pick a rule (and parameter values, as text or values) as the UI would."""
        if rule not in [v for _, v in self.rule_select.options]:
            raise ValueError(f"rule {rule} does not apply at {format_path(self.path)}; "
                             f"these do: {[v for _, v in self.rule_select.options]}")
        self.rule_select.value = rule
        for name, value in params.items():
            if name not in self._dropdowns:
                raise ValueError(f"rule {rule} has no parameter {name}")
            self._dropdowns[name].value = str(value)
        chosen = self.chosen
        if chosen is None:
            raise ValueError(f"{rule} with {params} does not apply here")
        return chosen

    def _rule_changed(self, _change) -> None:
        if self._quiet:
            return
        name = self.rule_select.value
        self._dropdowns = {}
        # a long equation is clipped by the list's width: the whole of it on hover
        self.rule_select.tooltip = (None if name is None else
                                    f"{name}: {lookup_rule(name).equation}")
        if name is not None:
            rule = lookup_rule(name)
            for p in rule.params:
                values = list(dict.fromkeys(str(r.params[p.name]) for r in self.rewrites
                                            if r.rule == name and p.name in r.params))
                dd = w.Dropdown(options=values, value=_middle(values), description=p.name,
                                tooltip=p.doc, layout=w.Layout(width="170px"))
                dd.add_class(f"wb-param-{p.name}")
                dd.observe(lambda _c: self._update_preview(), "value")
                self._dropdowns[p.name] = dd
        self.param_box.children = tuple(self._dropdowns.values())
        self._update_preview()

    @property
    def chosen(self) -> Rewrite | None:
        name = self.rule_select.value
        if name is None:
            return None
        wanted = {k: dd.value for k, dd in self._dropdowns.items()}
        for r in self.rewrites:
            if r.rule == name and {k: str(v) for k, v in r.params.items()} == wanted:
                return r
        return None

    def _update_preview(self) -> None:
        r = self.chosen
        if r is None:
            self.preview.value = ("" if self.rule_select.value is None else
                                  "<i>this combination of parameters does not apply here</i>")
            self.on_preview(set())
            return
        rule = lookup_rule(r.rule)
        params = ", ".join(f"{k} = {v}" for k, v in r.params.items())
        self.preview.value = (
            f'<div style="font-size:12px"><b>{html.escape(rule.name)}</b> '
            f"({html.escape(rule.figure)}, {html.escape(rule.category)}): "
            f"<code>{html.escape(rule.equation)}</code>"
            + (f"<br>parameters: {html.escape(params)}" if params else "")
            + f'<br>result: <code class="wb-preview-result">{html.escape(str(r.result))}'
            "</code></div>")
        self.on_preview(changed_paths(self.expr, r.path, rule.pair))

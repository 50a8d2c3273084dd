"""The derivation so far in the style of ICFP 2015 Fig. 10 (each line annotated with the rule
that produced it), with export to Markdown, LaTeX and JSON (``Derivation.to_markdown``,
``to_latex``, ``to_json``) as text to copy and as a download link."""

from __future__ import annotations

import base64
import html
import json

import ipywidgets as w

from workbench import Derivation

# Each export with (True) or without (False) the basic steps of macro steps; JSON keeps the
# steps as they are (``Derivation.expand`` replaces a macro step by its basic steps).
FORMATS = {
    "Markdown": ("md", "text/markdown", lambda d, expand: d.to_markdown(expand)),
    "LaTeX": ("tex", "application/x-tex", lambda d, expand: d.to_latex(expand)),
    "JSON": ("json", "application/json",
             lambda d, expand: json.dumps(d.to_json(), indent=2, ensure_ascii=False) + "\n"),
}


def derivation_html(d: Derivation, expand: bool = False) -> str:
    """The derivation as a table; with ``expand``, each macro step is followed by its basic
    steps (labelled k.1, k.2, …, set in a lighter colour)."""
    types = " → ".join(str(t) for t in d.input_types)
    rows = []
    for i, (label, rule, expr) in enumerate(d.lines(expand)):
        basic = "." in label
        arrow = "" if i == 0 else f'<span style="color:#52525b">→ {html.escape(rule)}</span>'
        style = "color:#71717a;font-size:11px" if basic else ""
        rows.append(f'<tr class="wb-line{" wb-basic" if basic else ""}" style="{style}">'
                    f'<td style="padding:1px 6px;color:#52525b">'
                    f"{html.escape(label)}</td><td style='padding:1px 6px'>{arrow}</td>"
                    f'<td style="padding:1px 6px"><code>{html.escape(str(expr))}</code></td></tr>')
    branches = (f'<div style="font-size:11px;color:#52525b">{len(d.branches)} other '
                f"branch{'es' if len(d.branches) != 1 else ''} kept</div>" if d.branches else "")
    return (f'<div><b>{html.escape(d.name)}</b>'
            + (f" : {html.escape(types)}" if types else "") + "</div>"
            '<table class="wb-derivation" style="font-size:12px;border-collapse:collapse">'
            + "".join(rows) + "</table>" + branches)


class PaperView(w.VBox):
    """The derivation as a table plus export buttons; ``exported`` holds the last export.
    Macro steps can be shown with their basic steps (``basic``, also in the Markdown and
    LaTeX exports) or replaced by them in the derivation (``expand_button``, which calls
    ``on_expand(k)``)."""

    def __init__(self, on_expand=None):
        self.table = w.HTML("")
        self.table.add_class("wb-paper")
        self.on_expand = on_expand
        self.basic = w.Checkbox(description="show the basic steps of macro steps", value=False,
                                indent=False, layout=w.Layout(width="320px"))
        self.macro_step = w.Dropdown(description="macro step", options=[],
                                     layout=w.Layout(width="320px"))
        self.expand_button = w.Button(description="expand", icon="list",
                                      tooltip="replace the macro step by its basic steps",
                                      layout=w.Layout(width="110px"))
        self.expand_button.add_class("wb-expand")
        self.basic.observe(lambda _c: self.show(self.derivation) if self.derivation else None,
                           "value")
        self.expand_button.on_click(lambda _b: self.expand())
        self.buttons = {name: w.Button(description=name, icon="download",
                                       layout=w.Layout(width="110px"))
                        for name in FORMATS}
        self.text = w.Textarea(layout=w.Layout(width="98%", height="150px",
                                               display="none"))
        self.link = w.HTML("")
        self.derivation: Derivation | None = None
        for name, button in self.buttons.items():
            button.on_click(lambda _b, name=name: self.export(name))
        super().__init__([self.table,
                          w.HBox([self.basic, self.macro_step, self.expand_button]),
                          w.HBox([w.HTML("export:"), *self.buttons.values(), self.link]),
                          self.text])
        self.add_class("wb-paper-view")

    def show(self, d: Derivation) -> None:
        self.derivation = d
        self.table.value = derivation_html(d, self.basic.value)
        macros = [(f"({k}) {s.rule}", k) for k, s in enumerate(d.steps, start=1)
                  if d.is_macro(k)]
        self.macro_step.options = macros
        if macros and self.macro_step.value not in [k for _, k in macros]:
            self.macro_step.value = macros[-1][1]
        self.macro_step.disabled = self.expand_button.disabled = not macros

    def expand(self) -> None:
        """Replace the chosen macro step by its basic steps."""
        k = self.macro_step.value
        if k is None:
            return
        if self.on_expand is not None:
            self.on_expand(k)
        else:
            self.derivation.expand(k)
            self.show(self.derivation)

    def export(self, name: str) -> str:
        """The derivation in format ``name``, shown to copy and offered as a download."""
        ext, mime, render = FORMATS[name]
        text = render(self.derivation, self.basic.value)
        self.text.value = text
        self.text.layout.display = None
        data = base64.b64encode(text.encode()).decode()
        self.link.value = (f'<a download="{html.escape(self.derivation.name)}.{ext}" '
                           f'href="data:{mime};base64,{data}">save {ext} file</a>')
        return text

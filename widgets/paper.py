"""The derivation so far in the style of ICFP 2015 Fig. 10 (each line annotated with the rule
that produced it), with export to Markdown, LaTeX and JSON (``Derivation.to_markdown``,
``to_latex``, ``to_json``) as text to copy and as a download link."""

from __future__ import annotations

import base64
import html
import json

import ipywidgets as w

from workbench import Derivation

FORMATS = {
    "Markdown": ("md", "text/markdown", lambda d: d.to_markdown()),
    "LaTeX": ("tex", "application/x-tex", lambda d: d.to_latex()),
    "JSON": ("json", "application/json",
             lambda d: json.dumps(d.to_json(), indent=2, ensure_ascii=False) + "\n"),
}


def derivation_html(d: Derivation) -> str:
    types = " → ".join(str(t) for t in d.input_types)
    rows = []
    for i, (label, rule, expr) in enumerate(d.lines()):
        arrow = "" if i == 0 else f'<span style="color:#52525b">→ {html.escape(rule)}</span>'
        rows.append(f'<tr class="wb-line"><td style="padding:1px 6px;color:#52525b">'
                    f"{html.escape(label)}</td><td style='padding:1px 6px'>{arrow}</td>"
                    f'<td style="padding:1px 6px"><code>{html.escape(str(expr))}</code></td></tr>')
    branches = (f'<div style="font-size:11px;color:#52525b">{len(d.branches)} other '
                f"branch{'es' if len(d.branches) != 1 else ''} kept</div>" if d.branches else "")
    return (f'<div><b>{html.escape(d.name)}</b>'
            + (f" : {html.escape(types)}" if types else "") + "</div>"
            '<table class="wb-derivation" style="font-size:12px;border-collapse:collapse">'
            + "".join(rows) + "</table>" + branches)


class PaperView(w.VBox):
    """The derivation as a table plus export buttons; ``exported`` holds the last export."""

    def __init__(self):
        self.table = w.HTML("")
        self.table.add_class("wb-paper")
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
                          w.HBox([w.HTML("export:"), *self.buttons.values(), self.link]),
                          self.text])
        self.add_class("wb-paper-view")

    def show(self, d: Derivation) -> None:
        self.derivation = d
        self.table.value = derivation_html(d)

    def export(self, name: str) -> str:
        """The derivation in format ``name``, shown to copy and offered as a download."""
        ext, mime, render = FORMATS[name]
        text = render(self.derivation)
        self.text.value = text
        self.text.layout.display = None
        data = base64.b64encode(text.encode()).decode()
        self.link.value = (f'<a download="{html.escape(self.derivation.name)}.{ext}" '
                           f'href="data:{mime};base64,{data}">save {ext} file</a>')
        return text

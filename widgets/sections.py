"""Collapsible panels for the workbench widget, and long messages that open in full.

A ``Section`` is a panel with a header button that hides or shows its body; the header also
carries a one-line summary (the step's time, the search's best), so a collapsed panel still
says what it holds. A ``SectionBar`` is one row of toggles, one per section, at the top of
the widget: any panel can be shown or hidden without scrolling to it.

``message_html`` shows a message of any length: a short one as it is, a long one as its
first line with the whole text one click away (an HTML ``<details>``), never cut.
"""

from __future__ import annotations

import html

import ipywidgets as w

SHORT = 160  # characters of a message shown before "open in full"


class Section(w.VBox):
    """``Section(key, title, body, expanded=True)``: ``expanded`` is the body's visibility."""

    def __init__(self, key: str, title: str, body: w.Widget, expanded: bool = True):
        self.key, self.title, self.body = key, title, body
        self.toggle = w.ToggleButton(value=expanded, tooltip=f"show or hide {title}",
                                     layout=w.Layout(width="auto", min_width="180px"))
        self.toggle.add_class("wb-section-toggle")
        self.summary = w.HTML("")
        self.summary.add_class("wb-section-summary")
        self.toggle.observe(lambda _change: self._show(), "value")
        header = w.HBox([self.toggle, self.summary],
                        layout=w.Layout(align_items="center", border_bottom="1px solid #e4e4e7",
                                        margin="6px 0 2px 0"))
        super().__init__([header, body], layout=w.Layout(width="100%"))
        body.add_class("wb-section-body")
        self.add_class("wb-section")
        self.add_class(f"wb-section-{key}")
        self._show()

    @property
    def expanded(self) -> bool:
        return bool(self.toggle.value)

    @expanded.setter
    def expanded(self, value: bool) -> None:
        self.toggle.value = bool(value)

    def summarize(self, text: str) -> None:
        """The one line shown beside the title (HTML-escaped here)."""
        self.summary.value = (f'<span style="color:#52525b;font-size:12px;padding-left:8px">'
                              f"{html.escape(text)}</span>")

    def _show(self) -> None:
        self.toggle.description = ("▾ " if self.expanded else "▸ ") + self.title
        self.body.layout.display = None if self.expanded else "none"


class SectionBar(w.HBox):
    """One toggle per section (linked to the section's own header)."""

    def __init__(self, sections: list[Section]):
        self.toggles = {}
        for s in sections:
            t = w.ToggleButton(value=s.expanded, description=s.title.split(" (")[0],
                               tooltip=f"show or hide {s.title}",
                               layout=w.Layout(width="auto"))
            t.add_class(f"wb-show-{s.key}")
            w.link((t, "value"), (s.toggle, "value"))
            self.toggles[s.key] = t
        super().__init__([w.HTML('<span style="color:#52525b;padding-right:6px">panels:</span>'),
                          *self.toggles.values()], layout=w.Layout(align_items="center",
                                                                   flex_flow="row wrap"))
        self.add_class("wb-section-bar")


class SideBySide(w.HBox):
    """Two sections in one row: each takes half while both are open, an open one the whole
    row beside a closed one's header."""

    def __init__(self, left: Section, right: Section):
        self.sections = (left, right)
        super().__init__([left, right], layout=w.Layout(width="100%", align_items="flex-start"))
        self.add_class("wb-side-by-side")
        for s in self.sections:
            s.toggle.observe(lambda _change: self._share(), "value")
        self._share()

    def _share(self) -> None:
        for s, other in (self.sections, self.sections[::-1]):
            s.layout.width = "auto"
            s.layout.min_width = "0"
            s.layout.padding = "0 6px"
            s.layout.flex = "1 1 0%" if s.expanded or not other.expanded else "0 0 auto"


def message_html(head: str, message: str, colour: str = "#b91c1c") -> str:
    """``head: message`` in ``colour``; a long or multi-line message shows its start and
    opens in full on a click."""
    text = f"{head}: {message}" if message else head
    first = text.splitlines()[0] if text else ""
    style = f"color:{colour};white-space:normal;line-height:1.4"
    if len(text) <= SHORT and "\n" not in text:
        return f'<span class="wb-message" style="{style}">{html.escape(text)}</span>'
    shown = first if len(first) <= SHORT else first[:SHORT - 1] + "…"
    return (f'<details class="wb-message" style="{style}">'
            f'<summary style="cursor:pointer">{html.escape(shown)} '
            f'<span style="color:#52525b">(open in full: {len(text):,} characters)</span>'
            f"</summary>"
            f'<pre class="wb-message-full" style="white-space:pre-wrap;overflow-wrap:anywhere;'
            f'max-height:320px;overflow-y:auto;margin:2px 0;font-size:11px;color:#27272a;'
            f'background:#fafafa;border:1px solid #e4e4e7;padding:4px">{html.escape(text)}'
            f"</pre></details>")

"""The expression tree as a clickable picture (SPEC 11).

``tree_svg`` draws an ``Expr`` with graphviz: one node per IR node, named by its path
(``root``, ``0``, ``1.0``; the SVG ``<title>`` of a node is its path), coloured by the level
of its primitive (``workbench.primitives`` knows it). ``TreeView`` shows the drawing and sets
its synced ``selected`` traitlet to the path of the node the user clicks.

Without graphviz's ``dot`` the same tree is drawn as an indented HTML list whose items carry
their path in ``data-path``, so the widget still works (with a note saying what to install).
"""

from __future__ import annotations

import html
import itertools
import shutil
from collections.abc import Iterable

import anywidget
import traitlets

from workbench.errors import format_path
from workbench.expr import (
    Apply,
    Compose,
    Expr,
    Lambda,
    Lit,
    Path,
    Prim,
    Section,
    TupleExpr,
    UserFun,
    Var,
    walk,
)
from workbench.layout import needs_lowering
from workbench.primitives import OPENCL, SCALAR

# Fill colours per level; the legend in the widget uses the same table.
LEVELS = {
    "high": ("#bfdbfe", "high-level (rewritten away before code generation)"),
    "opencl": ("#fed7aa", "low-level OpenCL"),
    "layout": ("#d9f99d", "generated directly (views: split, join, zip, ...)"),
    "scalar": ("#f4f4f5", "scalar code and user functions"),
    "compose": ("#ffffff", "composition (data flows right to left)"),
}
CHANGED = "#fde047"  # the nodes a previewed rule would change
SELECTED = "#be185d"  # border of the selected node

_ids = itertools.count()


def level(node: Expr) -> str:
    """Which of ``LEVELS`` a node belongs to."""
    if isinstance(node, Prim):
        decl = node.decl
        if decl.high_level:
            return "high" if needs_lowering(node) else "layout"  # a map of views is a view
        if decl.category == SCALAR:
            return "scalar"
        return "opencl" if decl.category == OPENCL else "layout"
    if isinstance(node, Compose):
        return "compose"
    return "scalar"


def label(node: Expr) -> str:
    """A short text for one node (its children are drawn below it)."""
    if isinstance(node, Prim):
        shown = []
        for param, arg in zip(node.decl.params, node.args):
            if isinstance(arg, Expr):
                continue
            if param.kind == "dim":
                if arg not in (0, None) and str(arg) != "0":
                    shown.append(f"dim {arg}")
            else:
                shown.append(str(arg))
        return " ".join([node.name, *shown])
    if isinstance(node, Compose):
        return "∘"
    if isinstance(node, Lambda):
        return f"λ{' '.join(_pattern(p) for p in node.params)}."
    if isinstance(node, Apply):
        return "apply"
    if isinstance(node, TupleExpr):
        return "( , )"
    if isinstance(node, UserFun | Var):
        return node.name
    if isinstance(node, Lit):
        return str(node.value)
    if isinstance(node, Section):
        return str(node)
    return getattr(node, "op", type(node).__name__)


def _pattern(p) -> str:
    return p if isinstance(p, str) else "(" + ", ".join(_pattern(x) for x in p) + ")"


def changed_paths(expr: Expr, path: Path, pair: bool = False) -> set[str]:
    """The paths a rewrite at ``path`` replaces: the node and everything below it (and the
    next function of the composition for rules over a pair such as map fusion)."""
    roots = [tuple(path)]
    if pair and path:
        roots.append(tuple(path[:-1]) + (path[-1] + 1,))
    out = set()
    for p, _ in walk(expr):
        if any(p[:len(r)] == r for r in roots):
            out.add(format_path(p))
    return out


def has_dot() -> bool:
    return shutil.which("dot") is not None


def tree_svg(expr: Expr, selected: str = "", changed: Iterable[str] = (),
             prefix: str = "wb") -> str:
    """The tree as an SVG document without the XML prologue (ready for ``innerHTML``).
    Node ids are ``{prefix}_n_{path with _}``; each node's ``<title>`` is its path."""
    import graphviz

    changed = set(changed)
    g = graphviz.Digraph(graph_attr={"rankdir": "TB", "nodesep": "0.25", "ranksep": "0.3",
                                     "bgcolor": "transparent"},
                         node_attr={"shape": "box", "style": "rounded,filled",
                                    "fontname": "DejaVu Sans", "fontsize": "11",
                                    "height": "0.3", "margin": "0.08,0.04"},
                         edge_attr={"arrowsize": "0.5", "color": "#71717a"})
    for path, node in walk(expr):
        name = format_path(path)
        fill = CHANGED if name in changed else LEVELS[level(node)][0]
        attrs = {"id": f"{prefix}_n_{'_'.join(map(str, path)) or 'root'}", "fillcolor": fill,
                 "tooltip": f"{name}: {str(node)[:120]}"}
        if name == selected:
            attrs.update(color=SELECTED, penwidth="3")
        if isinstance(node, Compose):
            attrs.update(shape="circle", width="0.3", fixedsize="true")
        g.node(name, label(node), **attrs)
        if path:
            g.edge(format_path(path[:-1]), name)
    svg = g.pipe(format="svg", encoding="utf-8")
    return svg[svg.index("<svg"):]


def tree_html(expr: Expr, selected: str = "", changed: Iterable[str] = ()) -> str:
    """The tree as a nested list (used when graphviz's ``dot`` is not installed)."""
    changed = set(changed)
    rows = ['<div class="wb-tree-list" style="font-family:monospace">'
            "<div style='color:#b91c1c'>graphviz's <code>dot</code> is not installed "
            "(apt-get install graphviz); the tree is shown as a list.</div>"]
    for path, node in walk(expr):
        name = format_path(path)
        fill = CHANGED if name in changed else LEVELS[level(node)][0]
        border = f"2px solid {SELECTED}" if name == selected else "1px solid #a1a1aa"
        rows.append(f'<div style="margin-left:{1.5 * len(path)}em;padding:1px">'
                    f'<span data-path="{html.escape(name)}" title="{html.escape(name)}" '
                    f'style="background:{fill};border:{border};border-radius:4px;'
                    f'padding:0 4px">{html.escape(label(node))}</span></div>')
    rows.append("</div>")
    return "".join(rows)


def legend_html() -> str:
    items = [(fill, text) for fill, text in LEVELS.values()]
    items.append((CHANGED, "what the previewed rule changes"))
    return "".join(f'<span style="display:inline-block;margin-right:10px;font-size:11px">'
                   f'<span style="display:inline-block;width:10px;height:10px;'
                   f'background:{fill};border:1px solid #a1a1aa;margin-right:3px"></span>'
                   f"{html.escape(text)}</span>" for fill, text in items)


_ESM = """
function render({ model, el }) {
  el.classList.add("wb-tree");
  // the drawing scrolls inside its column (its size and overflow are the widget's layout,
  // which ipywidgets writes onto this element)
  el.style.boxSizing = "border-box";
  el.style.scrollbarGutter = "stable";
  const draw = () => {
    const top = el.scrollTop, left = el.scrollLeft;  // a redraw keeps the view
    el.innerHTML = model.get("svg");
    el.scrollTop = top;
    el.scrollLeft = left;
    el.querySelectorAll("g.node, [data-path]").forEach((node) => {
      node.style.cursor = "pointer";
      node.addEventListener("click", (event) => {
        event.stopPropagation();
        const title = node.querySelector("title");
        const path = node.getAttribute("data-path") || (title ? title.textContent : "");
        model.set("selected", path);
        model.save_changes();
      });
    });
  };
  draw();
  model.on("change:svg", draw);

  // Tree nodes and OpenCL lines light each other up: hovering a node shades the lines it
  // generates (each line carries its node's path in data-path), hovering a line outlines
  // its node, and clicking a line selects its node.
  const root = () => el.closest(".wb-workbench") || document;
  const below = (path, node) => node === "root" || path === node
    || path.startsWith(node + ".");
  const linesOf = (node) => {
    const lines = [...root().querySelectorAll(".wb-opencl [data-path]")];
    const own = lines.filter((l) => below(l.dataset.path, node));
    if (own.length) return own;
    // a view (split, join, ...): the lines of the index expressions it produces
    const views = lines.filter((l) => (l.dataset.views || "").split(" ").includes(node));
    if (views.length) return views;
    const above = lines.map((l) => l.dataset.path).filter((p) => below(node, p));
    if (!above.length) return [];
    const depth = (p) => (p === "root" ? 0 : p.split(".").length);
    const nearest = above.reduce((a, b) => (depth(b) > depth(a) ? b : a));
    return lines.filter((l) => l.dataset.path === nearest);
  };
  const pathOf = (node) => {
    const title = node.querySelector("title");
    return node.getAttribute("data-path") || (title ? title.textContent : "");
  };
  const clear = () => {
    root().querySelectorAll(".wb-line-hover").forEach((l) => l.classList.remove("wb-line-hover"));
    el.querySelectorAll(".wb-node-hover").forEach((n) => n.classList.remove("wb-node-hover"));
  };
  // The other end of a link is scrolled into view inside its own panel (never the page,
  // which would move the end under the pointer away).
  const reveal = (item, box) => {
    if (!item || !box) return;
    const r = item.getBoundingClientRect(), b = box.getBoundingClientRect();
    if (r.top < b.top || r.bottom > b.bottom) {
      box.scrollTop += r.top - b.top - Math.max(0, (box.clientHeight - r.height) / 3);
    }
    if (r.left < b.left || r.right > b.right) {
      box.scrollLeft += r.left - b.left - Math.max(0, (box.clientWidth - r.width) / 3);
    }
  };
  const onOver = (event) => {
    const node = event.target.closest && event.target.closest("g.node, [data-path]");
    if (node && el.contains(node)) {
      clear();
      const lines = linesOf(pathOf(node));
      lines.forEach((l) => l.classList.add("wb-line-hover"));
      if (lines.length) reveal(lines[0], lines[0].closest(".wb-opencl"));
      return;
    }
    const line = event.target.closest && event.target.closest(".wb-opencl [data-path]");
    if (line && root().contains(line) && root() !== document) {
      clear();
      const owners = [line.dataset.path, ...(line.dataset.views || "").split(" ")];
      el.querySelectorAll("g.node, [data-path]").forEach((n) => {
        if (owners.includes(pathOf(n))) n.classList.add("wb-node-hover");
      });
      reveal(el.querySelector(".wb-node-hover"), el);
    }
  };
  // A new code panel (another step, another selection) shows the selected node's lines.
  const watch = new MutationObserver((changes) => {
    const code = root() !== document && root().querySelector(".wb-opencl");
    if (!code || !changes.some((c) => code.parentElement.contains(c.target)
                                       || c.target.contains(code))) return;
    reveal(code.querySelector(".wb-line-selected"), code);
  });
  let watched = false;
  const startWatching = () => {
    if (watched) return;
    if (root() === document) { setTimeout(startWatching, 200); return; }
    watched = true;
    watch.observe(root(), {childList: true, subtree: true});
  };
  startWatching();
  const onClick = (event) => {
    const line = event.target.closest && event.target.closest(".wb-opencl [data-path]");
    if (line && root() !== document && root().contains(line)) {
      model.set("selected", line.dataset.path);
      model.save_changes();
    }
  };
  document.addEventListener("mouseover", onOver);
  document.addEventListener("click", onClick);
  return () => {
    model.off("change:svg", draw);
    document.removeEventListener("mouseover", onOver);
    document.removeEventListener("click", onClick);
    watch.disconnect();
  };
}
export default { render };
"""


class TreeView(anywidget.AnyWidget):
    """The drawing of one expression; ``selected`` is the path of the clicked node."""

    _esm = _ESM
    svg = traitlets.Unicode("").tag(sync=True)
    selected = traitlets.Unicode("").tag(sync=True)

    def __init__(self, **kwargs):
        # The drawing scrolls inside its column, both ways, with its scroll bars shown, and is
        # never wider than the column (a wide tree was clipped by it). These are the layout's:
        # ipywidgets writes the layout onto the element and would undo styles set in ``_esm``.
        kwargs.setdefault("layout", {"width": "100%", "max_width": "100%", "overflow": "auto",
                                     "max_height": "min(480px, 55vh)"})
        super().__init__(**kwargs)
        self.prefix = f"wb{next(_ids)}"

    def show(self, expr: Expr, changed: Iterable[str] = ()) -> None:
        if has_dot():
            self.svg = tree_svg(expr, self.selected, changed, self.prefix)
        else:
            self.svg = tree_html(expr, self.selected, changed)

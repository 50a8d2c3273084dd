"""The OpenCL of the current step (SPEC 11): ``workbench.opencl`` with the default lowering
of what is still high-level (``complete=True``), as ``run`` compiles it; shown highlighted,
with the launch plan and, when the step was not fully low-level, the lowered nodes."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import CLexer

from workbench import CodegenError, WorkbenchError, opencl
from workbench.codegen.emit import source_map
from workbench.errors import format_path
from workbench.expr import Apply, Compose, Expr, walk
from workbench.types import Type, function_parts, substitute_sizes

from .diff import side_by_side
from .sections import message_html
from .tree import level

_FORMATTER = HtmlFormatter(noclasses=True, nowrap=True, style="friendly")
_LEXER = CLexer()


@dataclass
class StepCode:
    """The generated code of one step, or why there is none."""

    expression: str
    source: str = ""
    launches: list = field(default_factory=list)  # (kernel, global size, local size)
    completed: list[str] = field(default_factory=list)  # "map→mapGlobal at root", ...
    codegen_ms: float | None = None
    problem: str = ""  # code generation refused: the message
    line_paths: list = field(default_factory=list)  # each line's expression path, or None
    view_lines: dict = field(default_factory=dict)  # a view's path: the lines of its indices


def input_types(expr: Expr, sizes: dict[str, int]) -> list[Type]:
    """The expression's declared input types with the given sizes put in."""
    declared = getattr(expr, "declared_type", None)
    if declared is None:
        raise WorkbenchError("the expression has no input types: give them, as in "
                             "Workbench(expr, \"[float]_N\")")
    return [substitute_sizes(t, sizes) for t in function_parts(declared)[0]]


def generate(expr: Expr, sizes: dict[str, int]) -> StepCode:
    """Complete and generate one step; a refusal of the code generator is the outcome."""
    out = StepCode(str(expr))
    input_types(expr, sizes)  # says so when the expression has no signature
    try:
        program = opencl(expr, sizes=sizes, complete=True,
                         name=getattr(expr, "definition_name", None))
    except (CodegenError, WorkbenchError) as err:
        out.problem = str(err)
        return out
    out.completed = [f"{s.rule} at {format_path(s.path)}" for s in program.completed]
    out.source = program.source
    out.codegen_ms = program.codegen_ms
    out.launches = [(l.kernel, l.global_size, l.local_size) for l in program.launches]
    paths = source_map(program.module)
    if len(paths) == len(program.source.rstrip("\n").split("\n")):
        out.line_paths = [None if p is None else format_path(p) for p in paths]
        out.view_lines = view_lines(expr, out.line_paths, program.source)
    return out


# The first assignment of a line (``=``, ``+=``; not ``==``, ``<=``, ``>=``, ``!=``).
_ASSIGN = re.compile(r"(?<![=!<>])=(?!=)")


# A vector accessed through a pointer: ``*(global float4 *)(out + 4*gl1)`` (``emit``).
_VECTOR_POINTER = re.compile(r"\*\((?:global |local |constant )?(?:const )?\w+ \*\)\(")


def _indexes(line: str, reads: bool) -> bool:
    """Whether ``line`` reads an array element (a subscript or a vector pointer right of
    its assignment, or a ``vload``) or, with ``reads`` false, writes one (left of it, or a
    ``vstore``)."""
    at = _ASSIGN.search(line)
    if reads:
        right = line[at.end():] if at else line
        return "[" in right or "vload" in line or _VECTOR_POINTER.search(right) is not None
    left = line[:at.start()] if at is not None else ""
    return "[" in left or _VECTOR_POINTER.search(left) is not None or "vstore" in line


def view_lines(expr: Expr, line_paths: list, source: str) -> dict[str, list[int]]:
    """The lines holding the index expressions each view of ``expr`` (split, join,
    transpose, …: code generation makes no code of their own, only indices) produces: in a
    composition, a view is read through by the nearest computation on its left (its
    subscripts right of the assignment), or, with none there (``join ∘ map f``), written
    through by the nearest on its right (its subscripts left of it); applied, a view given
    as an argument (``map g (transpose b)``) is read through by the function it is given
    to, and one applied to a computation's result (``join (map f x)``) written through by
    that computation."""
    lines = source.split("\n")
    out: dict[str, list[int]] = {}

    def link(view: tuple, owner: tuple, reads: bool) -> None:
        hits = [i for i, p in enumerate(line_paths)
                if p is not None and i < len(lines) and _below(p, format_path(owner))
                and _indexes(lines[i], reads)]
        if hits:
            out.setdefault(format_path(view), [])
            out[format_path(view)] += [i for i in hits if i not in out[format_path(view)]]

    nodes = dict(walk(expr))
    for path, node in nodes.items():
        path = tuple(path)
        if isinstance(node, Compose):
            computes = [level(f) not in ("layout", "compose") for f in node.fns]
            for k, f in enumerate(node.fns):
                if level(f) != "layout":
                    continue
                left = next((j for j in range(k - 1, -1, -1) if computes[j]), None)
                right = next((j for j in range(k + 1, len(node.fns)) if computes[j]), None)
                if left is not None:
                    link(path + (k,), path + (left,), True)
                elif right is not None:
                    link(path + (k,), path + (right,), False)
        elif isinstance(node, Apply) and level(node.fn) == "layout":
            # ``g (view x)``: g reads through the view; ``view (f x)`` as a result (join
            # of a map's rows): f writes through it
            parent = nodes.get(path[:-1]) if path else None
            if isinstance(parent, Apply) and path[-1] >= 1 and level(parent.fn) != "layout":
                link(path + (0,), path[:-1] + (0,), True)
            else:
                for k in range(1, len(node.args) + 1):
                    link(path + (0,), path + (k,), False)
    return out


def _below(path: str, node: str) -> bool:
    return node == "root" or path == node or path.startswith(node + ".")


def lines_of(line_paths: list, selected: str, views: dict | None = None) -> set[int]:
    """The lines a node generates: those of the node and the nodes below it; for a view
    (split, join, …), the lines of the index expressions it produces (``view_lines``); when
    it has none of these (a function inside a loop), those of the nearest node above it."""
    if not selected:
        return set()
    below = _below
    own = {k for k, p in enumerate(line_paths) if p is not None and below(p, selected)}
    if own:
        return own
    if views and selected in views:
        return set(views[selected])
    above = [p for p in set(line_paths) if p is not None and below(selected, p)]
    if not above:
        return set()
    nearest = max(above, key=lambda p: 0 if p == "root" else p.count(".") + 1)
    return {k for k, p in enumerate(line_paths) if p == nearest}


def highlighted(source: str) -> str:
    return highlight(source, _LEXER, _FORMATTER)


def source_html(source: str, line_paths: list = (), marked: set[int] = frozenset(),
                views: dict | None = None) -> str:
    """Highlighted source whose long lines wrap (never a horizontal scroll bar): each line is
    a block with a hanging indent, so a wrapped line's continuation stands out. A line
    carries the path of the node it comes from (``data-path``) and those of the views whose
    index expressions it holds (``data-views``); ``marked`` lines (those of the selected
    node) are shaded."""
    lines = highlighted(source).rstrip("\n").split("\n")  # pygments closes spans per line
    by_line: dict[int, list[str]] = {}
    for view, numbers in (views or {}).items():
        for k in numbers:
            by_line.setdefault(k, []).append(view)
    out = []
    for k, line in enumerate(lines):
        path = line_paths[k] if k < len(line_paths) else None
        attrs = f' data-path="{html.escape(path)}"' if path is not None else ""
        if k in by_line:
            attrs += f' data-views="{html.escape(" ".join(by_line[k]))}"'
        shade = "background:#fef9c3;" if k in marked else ""
        cls = ' class="wb-line wb-line-selected"' if k in marked else ' class="wb-line"'
        out.append(f'<div{cls}{attrs} style="{shade}padding-left:6ch;text-indent:-6ch">'
                   f"{line or ' '}</div>")
    return "".join(out)


def code_html(code: StepCode, step: int, selected: str = "",
              before: StepCode | None = None) -> str:
    """The code panel: the step's OpenCL with the selected node's lines shaded, and the
    difference from the step before (``before``) one click away."""
    normal = "white-space:normal;overflow-wrap:anywhere"
    head = (f'<div style="{normal}"><b>OpenCL of step {step}</b> '
            f"<code>{html.escape(code.expression)}</code></div>")
    if code.problem:  # no code: nothing to say about its level
        return head + message_html("no code", code.problem)
    if code.completed:
        head += (f'<div class="wb-completion" style="color:#92400e;{normal}">default '
                 "completion (the step is not fully low-level): "
                 + html.escape(", ".join(code.completed)) + "</div>")
    else:
        head += f'<div style="color:#166534;{normal}">fully low-level: no completion needed</div>'
    plan = "; ".join(f"{k}: global {g}" + (f", local {l}" if l else "")
                     for k, g, l in code.launches)
    lines = code.source.count("\n") + 1
    return (head + f'<div style="font-size:11px;color:#52525b;{normal}">launches: '
            f"{html.escape(plan)} ({lines} lines, generated in {code.codegen_ms:.1f} ms)</div>"
            '<div class="wb-opencl" style="max-height:min(640px, 72vh);overflow-y:auto;'
            "overflow-x:hidden;font-size:12px;font-family:monospace;white-space:pre-wrap;overflow-wrap:anywhere;"
            "line-height:1.35;background:#fafafa;border:1px solid #e4e4e7;padding:6px;"
            'margin:2px 0">'
            + source_html(code.source, code.line_paths,
                          lines_of(code.line_paths, selected, code.view_lines), code.view_lines)
            + "</div>" + diff_html(before, code, step))


def diff_html(before: StepCode | None, after: StepCode, step: int) -> str:
    """The kernel's difference from the step before, side by side (one click away): the
    temporaries renamed canonically and the comments left out (``widgets.diff``), so the rows
    show what the step changed."""
    if before is None or not before.source or not after.source:
        return ""
    change = side_by_side(before.source, after.source)
    if change.same:
        return (f'<div class="wb-diff wb-diff-same" style="font-size:11px;color:#52525b">'
                f"the same OpenCL as step {step - 1}, apart from names and comments</div>")
    colours = {"changed": ("#fee2e2", "#dcfce7"), "removed": ("#fee2e2", "#f4f4f5"),
               "added": ("#f4f4f5", "#dcfce7"), "same": ("transparent", "transparent")}
    cell = ('<td style="background:{};vertical-align:top;padding:0 4px 0 6ch;text-indent:-6ch;'
            'white-space:pre-wrap;overflow-wrap:anywhere;width:50%">{}</td>')
    rows = []
    for row in change.rows:
        if row.kind == "skip":
            rows.append(f'<tr class="wb-diff-skip"><td colspan="2" style="color:#71717a;'
                        f'text-align:center">… {row.before} unchanged lines …</td></tr>')
            continue
        left, right = colours[row.kind]
        rows.append(f'<tr class="wb-diff-{row.kind}">'
                    + cell.format(left, html.escape(row.before or ""))
                    + cell.format(right, html.escape(row.after or "")) + "</tr>")
    counts = ", ".join(f"{n} {what}" for n, what in ((change.changed, "changed"),
                                                     (change.removed, "removed"),
                                                     (change.added, "added")) if n)
    return (f'<details class="wb-diff"><summary style="cursor:pointer;font-size:12px">'
            f"difference from step {step - 1}: {counts} lines (temporaries renamed "
            "canonically, comments left out)</summary>"
            '<div class="wb-diff-lines" style="max-height:360px;overflow-y:auto;'
            'border:1px solid #e4e4e7">'
            '<table style="width:100%;table-layout:fixed;border-collapse:collapse;'
            'font-size:11px;font-family:monospace;line-height:1.35">'
            f'<tr><th style="text-align:left">step {step - 1}</th>'
            f'<th style="text-align:left">step {step}</th></tr>'
            + "".join(rows) + "</table></div></details>")


def summary(code: StepCode | None, step: int) -> str:
    """One line for the panel's header."""
    if code is None:
        return ""
    if code.problem:
        return f"step {step}: no code ({code.problem.splitlines()[0][:80]})"
    kernels = len(code.launches)
    completed = ", default completion" if code.completed else ""
    return (f"step {step}: {kernels} kernel{'s' if kernels != 1 else ''}, "
            f"{code.source.count(chr(10)) + 1} lines{completed}")

"""The OpenCL of the current step (SPEC 11): ``workbench.opencl`` with the default lowering
of what is still high-level (``complete=True``), as ``run`` compiles it; shown highlighted,
with the launch plan and, when the step was not fully low-level, the lowered nodes."""

from __future__ import annotations

import difflib
import html
from dataclasses import dataclass, field

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import CLexer

from workbench import CodegenError, WorkbenchError, opencl
from workbench.codegen.emit import source_map
from workbench.errors import format_path
from workbench.expr import Expr
from workbench.types import Type, function_parts, substitute_sizes

from .sections import message_html

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
    return out


def lines_of(line_paths: list, selected: str) -> set[int]:
    """The lines a node generates: those of the node and the nodes below it; when it has
    none of its own (a function inside a loop), those of the nearest node above it."""
    if not selected:
        return set()

    def below(path: str, node: str) -> bool:
        return node == "root" or path == node or path.startswith(node + ".")

    own = {k for k, p in enumerate(line_paths) if p is not None and below(p, selected)}
    if own:
        return own
    above = [p for p in set(line_paths) if p is not None and below(selected, p)]
    if not above:
        return set()
    nearest = max(above, key=lambda p: 0 if p == "root" else p.count(".") + 1)
    return {k for k, p in enumerate(line_paths) if p == nearest}


def highlighted(source: str) -> str:
    return highlight(source, _LEXER, _FORMATTER)


def source_html(source: str, line_paths: list = (), marked: set[int] = frozenset()) -> str:
    """Highlighted source whose long lines wrap (never a horizontal scroll bar): each line is
    a block with a hanging indent, so a wrapped line's continuation stands out. A line
    carries the path of the node it comes from (``data-path``); ``marked`` lines (those of
    the selected node) are shaded."""
    lines = highlighted(source).rstrip("\n").split("\n")  # pygments closes spans per line
    out = []
    for k, line in enumerate(lines):
        path = line_paths[k] if k < len(line_paths) else None
        attrs = f' data-path="{html.escape(path)}"' if path is not None else ""
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
            '<div class="wb-opencl" style="max-height:480px;overflow-y:auto;overflow-x:hidden;'
            "font-size:12px;font-family:monospace;white-space:pre-wrap;overflow-wrap:anywhere;"
            "line-height:1.35;background:#fafafa;border:1px solid #e4e4e7;padding:6px;"
            'margin:2px 0">'
            + source_html(code.source, code.line_paths, lines_of(code.line_paths, selected))
            + "</div>" + diff_html(before, code, step))


def diff_html(before: StepCode | None, after: StepCode, step: int) -> str:
    """The kernel's difference from the step before, as a unified diff (one click away)."""
    if before is None or not before.source or not after.source:
        return ""
    diff = list(difflib.unified_diff(before.source.splitlines(), after.source.splitlines(),
                                     f"step {step - 1}", f"step {step}", lineterm="", n=2))
    if not diff:
        return (f'<div class="wb-diff" style="font-size:11px;color:#52525b">the same OpenCL as '
                f"step {step - 1}</div>")
    added = sum(1 for d in diff if d.startswith("+") and not d.startswith("+++"))
    removed = sum(1 for d in diff if d.startswith("-") and not d.startswith("---"))
    colours = {"+": "#dcfce7", "-": "#fee2e2", "@": "#e0e7ff"}
    rows = "".join(f'<div style="background:{colours.get(d[:1], "transparent")};'
                   f'padding-left:6ch;text-indent:-6ch">{html.escape(d) or " "}</div>'
                   for d in diff)
    return (f'<details class="wb-diff"><summary style="cursor:pointer;font-size:12px">'
            f"difference from step {step - 1}: +{added} −{removed} lines</summary>"
            '<div class="wb-diff-lines" style="max-height:360px;overflow-y:auto;'
            "font-size:12px;font-family:monospace;white-space:pre-wrap;"
            f'overflow-wrap:anywhere;border:1px solid #e4e4e7;padding:4px">{rows}</div>'
            "</details>")


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

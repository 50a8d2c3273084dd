"""The OpenCL of the current step (SPEC 11): ``workbench.opencl`` with the default lowering
of what is still high-level (``complete=True``), as ``run`` compiles it; shown highlighted,
with the launch plan and, when the step was not fully low-level, the lowered nodes."""

from __future__ import annotations

import html
from dataclasses import dataclass, field

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import CLexer

from workbench import CodegenError, WorkbenchError, opencl
from workbench.errors import format_path
from workbench.expr import Expr
from workbench.types import Type, function_parts, substitute_sizes

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
    return out


def highlighted(source: str) -> str:
    return highlight(source, _LEXER, _FORMATTER)


def code_html(code: StepCode, step: int) -> str:
    head = f"<div><b>OpenCL of step {step}</b> <code>{html.escape(code.expression)}</code></div>"
    if code.completed:
        head += ('<div class="wb-completion" style="color:#92400e">default completion '
                 "(the step is not fully low-level): "
                 + html.escape(", ".join(code.completed)) + "</div>")
    else:
        head += '<div style="color:#166534">fully low-level: no completion needed</div>'
    if code.problem:
        return head + ('<div class="wb-codegen-problem" style="color:#b91c1c">no code: '
                       f"{html.escape(code.problem)}</div>")
    plan = "; ".join(f"{k}: global {g}" + (f", local {l}" if l else "")
                     for k, g, l in code.launches)
    return (head + f'<div style="font-size:11px;color:#52525b">launches: {html.escape(plan)}'
            f" (generated in {code.codegen_ms:.1f} ms)</div>"
            '<div class="wb-opencl" style="max-height:420px;overflow:auto;font-size:11px;'
            "font-family:monospace;white-space:pre;line-height:1.35;background:#fafafa;"
            'border:1px solid #e4e4e7;padding:6px;margin:2px 0">'
            + highlighted(code.source).rstrip("\n").replace("\n", "<br>") + "</div>")

"""Which of a kernel's inputs are read from constant memory: those the program reads only
through ``toConstant`` (``rules.constant``). Their parameters are declared ``constant``
(OpenCL 1.2 Sect. 6.5.3) instead of ``global const``; they are read as they are, like any
view. An input read both through ``toConstant`` and directly is refused: a parameter has one
address space."""

from __future__ import annotations

from ..expr import Apply, Expr, Lambda, Prim, Var, fresh_name, substitute, walk
from . import CodegenError

CONSTANT = "toConstant"


def constant_reads(body: Expr, name: str) -> tuple[int, int]:
    """How often the free variable ``name`` is read through ``toConstant`` and how often
    directly (an inner binder of the same name shadows it: its free occurrences are first
    renamed to a name no binder has)."""
    free = fresh_name(f"{name}_input", _names(body))
    body = substitute(body, name, Var(free))
    through = sum(1 for _, n in walk(body) if is_constant_read(n, free))
    everywhere = sum(1 for _, n in walk(body) if n == Var(free))
    return through, everywhere - through


def _names(e: Expr) -> set[str]:
    out: set[str] = set()
    for _, n in walk(e):
        if isinstance(n, Var):
            out.add(n.name)
        elif isinstance(n, Lambda):
            out.update(n.names())
    return out


def is_constant_read(node: Expr, name: str | None = None) -> bool:
    """``toConstant xs`` (of the variable ``name`` when given)."""
    return isinstance(node, Apply) and isinstance(node.fn, Prim) and \
        node.fn.name == CONSTANT and len(node.args) == 1 and isinstance(node.args[0], Var) \
        and (name is None or node.args[0].name == name)


def input_spaces(program: Expr, inputs: int) -> list[str]:
    """The address space of each of the program's inputs: ``constant`` for those read only
    through ``toConstant``, else ``global``."""
    spaces = ["global"] * inputs
    if not isinstance(program, Lambda) or not any(
            isinstance(n, Prim) and n.name == CONSTANT for _, n in walk(program)):
        return spaces  # (most programs: one walk)
    for i, param in enumerate(program.params[:inputs]):
        if not isinstance(param, str):
            continue
        through, directly = constant_reads(program.body, param)
        if through and directly:
            raise CodegenError(f"the input {param} is read from constant memory (toConstant "
                               f"{param}) and {directly} time(s) from global memory: a kernel "
                               f"parameter has one address space; read it through toConstant "
                               f"everywhere")
        if through:
            spaces[i] = "constant"
    for _, node in walk(program):
        if isinstance(node, Apply) and isinstance(node.fn, Prim) and node.fn.name == CONSTANT \
                and not (isinstance(node.args[0], Var) and node.args[0].name in program.params):
            raise CodegenError(f"toConstant reads a kernel input, not {node.args[0]}: an "
                               f"array the program computes is written by it")
    return spaces

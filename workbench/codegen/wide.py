"""64-bit indices where 32 bits do not suffice: a loop whose index, or an offset computed
from it, can reach 2^31 gets a ``long`` index, so that the products and sums of its offsets
are computed in 64 bits (C promotes ``int * long`` to ``long``). Index functions of
``gather``/``scatter`` take ``int`` arguments: on arrays that long they are refused.
"""

from __future__ import annotations

from dataclasses import replace

from . import CodegenError, ir
from .arith import Div, Index, Mod, Opaque, Var

INT_MAX = (1 << 31) - 1


def _term_max(monomial: tuple, coefficient: int) -> float:
    high = abs(coefficient)
    for atom in monomial:
        lo, hi = (0.0, atom.extent - 1 if atom.extent is not None else float("inf")) \
            if isinstance(atom, Var | Opaque) else Index({(atom,): 1}).bounds()
        high *= max(abs(lo), abs(hi))
    return high


def wide_variables(e: Index) -> set[str]:
    """The loop indices of the terms of e (or of its divisions and remainders) that may
    not fit in an ``int``."""
    out: set[str] = set()
    for m, c in e.terms.items():
        if _term_max(m, c) > INT_MAX:
            out |= {a.name for a in m if isinstance(a, Var)}
            out |= {v for a in m if isinstance(a, Div | Mod) for v in a.num.variables()}
        for atom in m:
            if isinstance(atom, Div | Mod):
                out |= wide_variables(atom.num)
            elif isinstance(atom, Opaque):
                out |= _value_wide(atom.value)
    return out


def _value_wide(v: ir.Value) -> set[str]:
    out: set[str] = set()
    if isinstance(v, ir.Call):
        for arg in v.args:
            if isinstance(arg, ir.IndexValue) and arg.index.bounds()[1] > INT_MAX:
                raise CodegenError(f"{v.function} takes int indices, and here they reach "
                                   f"{int(arg.index.bounds()[1])}: index functions are "
                                   f"limited to arrays of fewer than 2^31 elements")
    for index in ir.indices_in(v):
        out |= wide_variables(index)
    for part in ir.value_parts(v):
        out |= _value_wide(part)
    return out


def _wide(body: tuple[ir.Stmt, ...]) -> set[str]:
    out: set[str] = set()
    for stmt, _ in ir.statements(body):
        if isinstance(stmt, ir.Loop) and stmt.extent + (stmt.step or 1) - 1 > INT_MAX:
            out.add(stmt.index)
        if isinstance(stmt, ir.Store):
            out |= wide_variables(stmt.offset)
        for v in ir.stmt_values(stmt):
            out |= _value_wide(v)
    return out


def _mark(body: tuple[ir.Stmt, ...], wide: set[str]) -> tuple[ir.Stmt, ...]:
    out = []
    for stmt in body:
        if isinstance(stmt, ir.Loop):
            stmt = replace(stmt, body=_mark(stmt.body, wide),
                           wide=stmt.index in wide or (stmt.counter in wide))
        elif isinstance(stmt, ir.Guard | ir.Block):
            stmt = replace(stmt, body=_mark(stmt.body, wide))
        out.append(stmt)
    return tuple(out)


def widen(kernel: ir.Kernel) -> ir.Kernel:
    """The kernel with 64-bit indices where their values or offsets need them."""
    wide = _wide(kernel.body)
    return replace(kernel, body=_mark(kernel.body, wide)) if wide else kernel

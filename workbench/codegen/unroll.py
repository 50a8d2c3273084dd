"""Unrolling: the loops of ``mapSeqUnroll`` and ``reduceSeqUnroll`` (level "unrolled")
become straight-line code, one copy of the body per iteration with the index a constant, so
their offsets fold to constants (Lift's unrolled patterns; PACT table 2). A copy that
declares variables gets a scope of its own. A loop longer than ``LIMIT`` (its length was a
size when the rule unrolled it) stays a sequential loop.
"""

from __future__ import annotations

from dataclasses import replace

from . import ir

LIMIT = 256  # copies of a body written out at most


def unroll_body(body: tuple[ir.Stmt, ...]) -> tuple[ir.Stmt, ...]:
    out: list[ir.Stmt] = []
    for stmt in body:
        if isinstance(stmt, ir.Loop | ir.Guard | ir.Block):
            stmt = replace(stmt, body=unroll_body(stmt.body))
        if isinstance(stmt, ir.Loop) and stmt.level == "unrolled":
            if isinstance(stmt.extent, int) and stmt.extent <= LIMIT:
                out.extend(_copies(stmt))
            else:
                out.append(replace(stmt, level="seq"))
        else:
            out.append(stmt)
    return tuple(out)


def _copies(loop: ir.Loop) -> list[ir.Stmt]:
    declares = any(isinstance(s, ir.Declare | ir.Allocate) for s, _ in ir.statements(loop.body))
    out: list[ir.Stmt] = [ir.Comment(f"{loop.origin} (unrolled)")] if loop.origin else []
    for k in range(loop.extent):
        copy = tuple(ir.substitute_stmt(s, {loop.index: k}) for s in loop.body)
        if declares:
            out.append(ir.Block(copy))
        else:
            out.extend(copy)
    return out


def unroll(kernel: ir.Kernel) -> ir.Kernel:
    return replace(kernel, body=unroll_body(kernel.body))

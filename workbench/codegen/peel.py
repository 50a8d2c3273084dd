"""Peeling the edges off a sequential loop whose indices clamp its own index into an array.

Such a loop (a stencil's ``padClamp`` read through as a view: ``clamp(i - 1, 0, n - 1)``)
is split in three: the iterations at the low edge, the interior, where no clamp of the
loop's index changes its argument and every division of it (an index function's, as PPCG's
rotation ``i + 1 - n·(i / (n - 1))``) has one quotient, and the iterations at the high edge.
In the interior the clamps are dropped and the divisions fold, so its offsets are affine in
the index: a CPU compiler (PoCL's LLVM) turns such a loop into vector loads and stores,
which it does not do through a clamp or a division per element (PoCL 3.1, a 512×512 Jacobi
stencil by rows, its result rotated: 0.048 ms peeled, 0.33 ms clamped and divided).

Only innermost sequential loops of a known length of at least ``SHORTEST`` are peeled, and
only where the interior holds half the iterations or more; the edges keep the clamps (and
the index arithmetic folds what it can there).
"""

from __future__ import annotations

from dataclasses import replace

from . import ir
from .arith import Div, Index, Mod, Opaque, Var, divide, remainder

SHORTEST = 16  # iterations a loop needs to be peeled


def peel(kernel: ir.Kernel) -> ir.Kernel:
    return replace(kernel, body=peel_body(kernel.body))


def peel_body(body: tuple[ir.Stmt, ...]) -> tuple[ir.Stmt, ...]:
    out: list[ir.Stmt] = []
    for stmt in body:
        if isinstance(stmt, ir.Loop | ir.Guard | ir.Block):
            stmt = replace(stmt, body=peel_body(stmt.body))
        if _innermost_sequential(stmt):
            out.extend(peeled(stmt))
        else:
            out.append(stmt)
    return tuple(out)


def _innermost_sequential(stmt: ir.Stmt) -> bool:
    return isinstance(stmt, ir.Loop) and stmt.level == ir.LoopLevel.SEQ and \
        isinstance(stmt.extent, int) and stmt.extent >= SHORTEST and stmt.counter is None \
        and not any(isinstance(s, ir.Loop) for s, _ in ir.statements(stmt.body))


def peeled(loop: ir.Loop) -> list[ir.Stmt]:
    """The loop as its low edge, interior and high edge (the loop itself where no clamp of
    its index leaves an interior of half its iterations or more)."""
    ranges = [safe for stmt, _ in ir.statements(loop.body)
              for safe in _clamp_ranges(stmt, loop.index, loop.extent)]
    if not ranges:
        return [loop]
    start = max(0, *(lo for lo, _ in ranges))
    stop = min(loop.extent, *(hi for _, hi in ranges))
    if stop - start < max(SHORTEST, loop.extent // 2):
        return [loop]
    parts: list[ir.Stmt] = []
    for first, last, name in ((0, start, f"{loop.index}_lo"), (start, stop, f"{loop.index}_in"),
                              (stop, loop.extent, f"{loop.index}_hi")):
        if last > first:
            moved = {loop.index: Index.of(Var(name, last - first)) + first}
            body = tuple(_unclamped_stmt(ir.substitute_stmt(s, moved)) for s in loop.body)
            parts.append(replace(loop, index=name, extent=last - first, body=body))
    return parts


def _clamp_ranges(stmt: ir.Stmt, index: str, extent: int) -> list[tuple[int, int]]:
    """For each clamp of ``index + c`` into ``[lo, hi]`` in the statement's indices, the
    iterations ``[lo - c, hi - c + 1)`` where it changes nothing; for each division of
    ``index + c`` by ``d`` (an index function's, as PPCG's rotation ``i + 1 - n·(i / (n -
    1))``), the iterations where its quotient is the one of the middle iteration."""
    found = []
    for e in _indices_of(stmt):
        for atom in e.atoms():
            clamp = _clamp(atom)
            if clamp is not None:
                offset = _offset_from(clamp[0], index)
                if offset is not None:
                    found.append((clamp[1] - offset, clamp[2] - offset + 1))
            elif isinstance(atom, Div) and (offset := _offset_from(atom.num, index)) is not None:
                block = (extent // 2 + offset) // atom.den * atom.den
                found.append((block - offset, block + atom.den - offset))
    return found


def _indices_of(stmt: ir.Stmt) -> list[Index]:
    indices = [stmt.offset] if isinstance(stmt, ir.Store) else []
    pending = list(ir.stmt_values(stmt))
    while pending:
        v = pending.pop()
        indices.extend(ir.indices_in(v))
        pending.extend(ir.value_parts(v))
    for e in list(indices):
        indices.extend(inner for atom in e.atoms() if isinstance(atom, Opaque)
                       for inner in _indices_of_value(atom.value))
    return indices


def _indices_of_value(v: ir.Value) -> list[Index]:
    return _indices_of(ir.Assign("_", v))


def _clamp(atom) -> tuple[Index, int, int] | None:
    """``(argument, lo, hi)`` of an integer clamp atom with literal bounds, else None."""
    if not (isinstance(atom, Opaque) and isinstance(atom.value, ir.Call)
            and atom.value.function == "clamp" and len(atom.value.args) == 3):
        return None
    arg, lo, hi = atom.value.args
    if not isinstance(arg, ir.IndexValue):
        return None
    try:
        return arg.index, int(lo.text), int(hi.text)
    except (AttributeError, ValueError):
        return None


def _offset_from(e: Index, index: str) -> int | None:
    """``c`` where ``e`` is ``index + c``, else None."""
    rest = {m: c for m, c in e.terms.items() if m != ()}
    if len(rest) != 1:
        return None
    (monomial, coefficient), = rest.items()
    if coefficient != 1 or len(monomial) != 1 or not isinstance(monomial[0], Var) \
            or monomial[0].name != index:
        return None
    return e.terms.get((), 0)


# --- clamps that change nothing dropped ---------------------------------------------------------

def _unclamped_stmt(s: ir.Stmt) -> ir.Stmt:
    if isinstance(s, ir.Declare) and s.value is not None:
        return replace(s, value=_unclamped_value(s.value))
    if isinstance(s, ir.Assign):
        return replace(s, value=_unclamped_value(s.value))
    if isinstance(s, ir.Store):
        return replace(s, offset=unclamped(s.offset), value=_unclamped_value(s.value))
    if isinstance(s, ir.Loop | ir.Guard | ir.Block):
        return replace(s, body=tuple(_unclamped_stmt(x) for x in s.body))
    return s


def _unclamped_value(v: ir.Value) -> ir.Value:
    if isinstance(v, ir.Load):
        return replace(v, offset=unclamped(v.offset))
    if isinstance(v, ir.IndexValue):
        return ir.IndexValue(unclamped(v.index))
    if isinstance(v, ir.Call):
        return ir.Call(v.function, tuple(_unclamped_value(a) for a in v.args))
    if isinstance(v, ir.MakeTuple):
        return replace(v, items=tuple(_unclamped_value(a) for a in v.items))
    if isinstance(v, ir.Binary):
        return replace(v, left=_unclamped_value(v.left), right=_unclamped_value(v.right))
    if isinstance(v, ir.Unary):
        return replace(v, operand=_unclamped_value(v.operand))
    if isinstance(v, ir.Cast | ir.Field):
        return replace(v, value=_unclamped_value(v.value))
    if isinstance(v, ir.Select):
        return ir.Select(_unclamped_value(v.condition), _unclamped_value(v.then),
                         _unclamped_value(v.otherwise))
    return v


def unclamped(e: Index) -> Index:
    """``e`` with every clamp whose argument lies within its bounds (as the argument's
    variables' ranges say) replaced by its argument."""
    total = Index.of(0)
    for monomial, coefficient in e.terms.items():
        term = Index.of(coefficient)
        for atom in monomial:
            term = term * _unclamped_atom(atom)
        total = total + term
    return total


def _unclamped_atom(atom) -> Index:
    if isinstance(atom, Div):
        return divide(unclamped(atom.num), atom.den)
    if isinstance(atom, Mod):
        return remainder(unclamped(atom.num), atom.den)
    if not isinstance(atom, Opaque):
        return Index.of(atom)
    clamp = _clamp(atom)
    if clamp is not None:
        arg, lo, hi = clamp
        arg = unclamped(arg)
        low, high = arg.bounds()
        if lo <= low and high <= hi:
            return arg
    return Index.of(Opaque(_unclamped_value(atom.value), atom.extent))

"""Peeling a sequential loop's edges off where its index is clamped (``codegen.peel``), and
index functions of plain arithmetic read as index arithmetic (``views.index_arithmetic``):
the peeled loops compute at each iteration what the loop did (every offset the same), the
loops that must stay whole stay whole, and the stencils' kernels agree with the
interpreter."""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.lift_programs import PROGRAMS, inputs_of
from workbench import parse
from workbench.codegen import ir, peel
from workbench.codegen.arith import Div, Index, Mod, Opaque, Var, var
from workbench.codegen.views import Calls, index_arithmetic
from workbench.run import run
from workbench.search.grids import pads_moved
from workbench.semantics import prepare_inputs

# --- the offsets a loop touches, evaluated -------------------------------------------------------


def value_of(e: Index, env: dict) -> int:
    """An index's value, its clamps evaluated (the test's own evaluator of the atoms)."""
    total = 0
    for monomial, coefficient in e.terms.items():
        v = coefficient
        for atom in monomial:
            v *= _atom(atom, env)
        total += v
    return total


def _atom(atom, env) -> int:
    if isinstance(atom, Var):
        return env[atom.name]
    if isinstance(atom, Div | Mod):
        n = value_of(atom.num, env)
        return n // atom.den if isinstance(atom, Div) else n % atom.den
    call = atom.value
    assert call.function == "clamp"
    arg, lo, hi = call.args
    return min(max(value_of(arg.index, env), int(lo.text)), int(hi.text))


def touched(stmts, env=None) -> list[tuple]:
    """Every store's and load's offset, iteration by iteration, in the order run."""
    env = env or {}
    out = []
    for stmt in stmts:
        if isinstance(stmt, ir.Loop):
            for k in range(stmt.extent):
                out.extend(touched(stmt.body, {**env, stmt.index: k}))
        elif isinstance(stmt, ir.Store):
            loads = [value_of(v.offset, env) for v in _loads(stmt.value)]
            out.append((value_of(stmt.offset, env), *loads))
    return out


def _loads(v):
    if isinstance(v, ir.Load):
        return [v]
    return [load for part in ir.value_parts(v) for load in _loads(part)]


def clamp(e: Index, lo: int, hi: int) -> Index:
    call = ir.Call("clamp", (ir.IndexValue(e), ir.Literal(str(lo)), ir.Literal(str(hi))))
    return Index.of(Opaque(call, hi + 1))


def stencil_loop(n: int, taps, rotated: int | None = None) -> ir.Loop:
    """``out[r(i)] = in0[clamp(i + c, lo, hi)] + …`` for each tap (c, lo, hi); with
    ``rotated`` the store goes through PPCG's rotation ``i + 1 - m·(i / (m - 1))``."""
    i = var("i", n)
    value = ir.Literal("0.0f")
    for c, lo, hi in taps:
        value = ir.Binary("+", value, ir.Load("in0", clamp(i + c, lo, hi)))
    where = i if rotated is None else i + 1 - rotated * (i // (rotated - 1))
    return ir.Loop("i", "seq", n, (ir.Store("out", where, value),), step=1)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 90), st.lists(st.tuples(st.integers(-4, 4), st.integers(-2, 3),
                                              st.integers(-3, 2)), min_size=1, max_size=4),
       st.booleans())
def test_a_peeled_loop_touches_what_the_loop_touched_iteration_by_iteration(n, taps, rotated):
    taps = [(c, max(0, lo), n - 1 + hi) for c, lo, hi in taps if n - 1 + hi >= max(0, lo)]
    if not taps:
        return
    loop = stencil_loop(n, taps, n if rotated and n >= 2 else None)
    parts = peel.peeled(loop)
    assert touched(parts) == touched([loop])
    assert sum(p.extent for p in parts) == n


def test_the_interior_has_no_clamp_of_the_index_and_no_division():
    loop = stencil_loop(64, [(-1, 0, 63), (0, 0, 63), (1, 0, 63)], rotated=64)
    low, interior, high = peel.peeled(loop)
    assert (low.extent, interior.extent, high.extent) == (1, 62, 1)
    store = interior.body[0]
    assert not any(isinstance(a, Opaque | Div) for e in peel._indices_of(store)
                   for a in e.atoms())


@pytest.mark.parametrize("loop, why", [
    (stencil_loop(12, [(-1, 0, 11)]), "shorter than SHORTEST"),
    (stencil_loop(64, [(-40, 0, 63)]), "an interior of less than half"),
    (stencil_loop(64, []), "no clamp"),
    (ir.Loop("i", "seq", 64, (ir.Store("out", var("i", 64), ir.Load(
        "in0", clamp(var("i", 64) * 2, 0, 63))),), step=1), "a clamp of 2·i"),
])
def test_loops_that_stay_whole(loop, why):
    assert peel.peel_body((loop,)) == (loop,), why


def test_only_the_innermost_loop_is_peeled():
    inner = stencil_loop(64, [(-1, 0, 63)])
    outer = ir.Loop("j", "seq", 64, (ir.Store("out", var("j", 64), ir.Load(
        "in0", clamp(var("j", 64) - 1, 0, 63))), inner), step=1)
    peeled, = peel.peel_body((outer,))
    assert (peeled.index, peeled.extent) == ("j", 64)
    assert [s.index for s in peeled.body[1:]] == ["i_lo", "i_in"]  # i - 1 stays below 63


def test_only_sequential_loops_are_peeled():
    loop = stencil_loop(64, [(-1, 0, 63)])
    parallel = ir.Loop("i", "global", 64, loop.body)
    assert peel.peel_body((parallel,)) == (parallel,)
    assert len(peel.peel_body((loop,))) == 2


# --- index functions as index arithmetic --------------------------------------------------------

ARITHMETIC = ["λi n. n - 1 - i", "λi n. i + 1 - n * (i / (n - 1))", "λi. (i * 7) % 64",
              "λi n. (i + n / 2) % n", "λi n. i / 8 + (i % 8) * (n / 8)", "λi. -(0 - i)"]


@pytest.mark.parametrize("text", ARITHMETIC)
@pytest.mark.parametrize("n", [8, 64])
def test_an_arithmetic_index_function_agrees_with_the_interpreter(text, n):
    f = parse(text)
    args = (var("i", n), n)[:len(f.params)]
    inline = index_arithmetic(f, args)
    assert inline is not None
    want = Calls().values(f, [np.arange(n), np.full(n, n)][:len(f.params)], n)
    assert [inline.evaluate({"i": k}) for k in range(n)] == list(np.asarray(want))


@pytest.mark.parametrize("text, why", [
    ("λi n. if i < n then n - 1 - i else i", "a conditional"),
    ("λi n. (n - 1 - i) / (i + 1)", "a divisor that is no literal"),
    ("λi n. (i - 1) / 2", "a numerator that may be negative (C truncates, floor does not)"),
    ("λi n. (i - 1) % n", "a remainder of a value that may be negative"),
    ("λi n. abs (n - 1 - i)", "a call"),
])
def test_index_functions_left_as_calls(text, why):
    f = parse(text)
    assert index_arithmetic(f, (var("i", 16), 16)) is None, why


# --- the stencils ---------------------------------------------------------------------------

@pytest.mark.parametrize("name, moved", [("hotspot", False), ("jacobi2d5pt", True),
                                         ("jacobi3d7pt", True), ("srad1", False)])
def test_peeled_stencils_agree_with_the_interpreter(name, moved):
    prog = PROGRAMS[name].program()
    args = inputs_of(name, 40 if PROGRAMS[name].sizes["test"] > 6 else 20)
    if moved:
        prog, steps = pads_moved(prog, prepare_inputs(prog, args)[1])
        assert steps
    result = run(prog, *args, repeat=1)
    assert result.correct, result.message
    assert re.search(r"for \(int \w+_in = 0;", result.source)  # an interior was peeled

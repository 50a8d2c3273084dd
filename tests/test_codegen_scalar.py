"""Scalar functions in OpenCL C compute what the interpreter computes (run on PoCL)."""

import numpy as np
import pytest

from workbench import evaluate, parse
from workbench.codegen.scalar import CProgram, define_function
from workbench.programs import library
from workbench.runtime import Launch, run_kernels
from workbench.types import FLOAT, TupleType


def run_elementwise(fn, xs: np.ndarray, pair: bool = False):
    """Run ``out[i] = fn(xs[i])`` as a kernel; a pair-valued fn writes two outputs."""
    program = CProgram()
    name = define_function(fn, [FLOAT], program, name=getattr(fn, "name", "f"))
    if pair:
        kernel = (f"kernel void k(global const float *xs, global float *a, global float *b) {{\n"
                  f"  int i = get_global_id(0);\n  struct Tuple_float_float r = {name}(xs[i]);\n"
                  f"  a[i] = r._0; b[i] = r._1;\n}}\n")
        args = ("xs", "a", "b")
    else:
        kernel = (f"kernel void k(global const float *xs, global float *out) {{\n"
                  f"  int i = get_global_id(0);\n  out[i] = {name}(xs[i]);\n}}\n")
        args = ("xs", "out")
    outputs = {a: (xs.shape, np.float32) for a in args[1:]}
    source = program.source() + kernel
    outcome = run_kernels(source, [Launch("k", xs.shape, None, args)], {"xs": xs}, outputs,
                          repeat=1)
    assert outcome.ok, outcome.message + "\n" + source
    return tuple(outcome.value[a] for a in args[1:])


@pytest.mark.parametrize("name", ["mul3"])
def test_user_function_from_the_figures(name):
    xs = np.random.default_rng(0).uniform(-2, 2, 256).astype(np.float32)
    fn = library("figures")[name]
    (out,) = run_elementwise(fn, xs)
    np.testing.assert_allclose(out, evaluate(parse("map f", {"f": fn}), xs), rtol=1e-6)


def test_black_scholes_compcallput_returns_a_struct():
    xs = np.random.default_rng(1).uniform(0, 1, 512).astype(np.float32)
    fn = library("blackscholes")["compCallPut"]
    call, put = run_elementwise(fn, xs, pair=True)
    ref_call, ref_put = evaluate(library("blackscholes")["blackScholes"], xs)
    np.testing.assert_allclose(call, ref_call, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(put, ref_put, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("text", [
    "λx. if x > 0 then sqrt x else -x * 0.5",
    "λx. max (min x 1) (-1) + fma x x 2",
    "λx. float (int (x * 10)) / 10",
    "λx. (λy. y * y + 1) (x - 1)",
    "λx. exp (-x * x) + log (abs x + 1)",
])
def test_scalar_lambdas(text):
    xs = np.random.default_rng(2).uniform(-3, 3, 128).astype(np.float32)
    fn = parse(text)
    (out,) = run_elementwise(fn, xs)
    expected = evaluate(parse(f"map ({text})"), xs)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


def test_tuple_struct_is_declared_once():
    program = CProgram()
    assert program.struct(TupleType((FLOAT, FLOAT))) == program.struct(TupleType((FLOAT, FLOAT)))
    assert program.source().count("struct Tuple_float_float {") == 1


@pytest.mark.parametrize("text", ["mapGlobal abs", "joinVec ∘ mapGlobal (mapVec abs) ∘ splitVec 4"])
def test_float_abs_clears_the_sign_bit_like_fabs(text):
    from workbench.run import run

    special = np.array([-0.0, 0.0, -np.inf, np.inf, np.nan, -np.nan, -1.5, 3.25,
                        -1e-45, 1e38, -3.4e38, 7.0], dtype=np.float32)
    result = run(parse(text), np.tile(special, 4), repeat=1)
    assert "fabs" not in result.source and "0x7fffffff" in result.source
    np.testing.assert_array_equal(result.output.view(np.uint32),
                                  np.abs(np.tile(special, 4)).view(np.uint32))

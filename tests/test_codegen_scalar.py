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


# --- names of the user's in C ------------------------------------------------------------------

COLLIDING = """
out : float -> float
out = λfmin. min fmin 0.5 * 2

in0 : float -> float -> float
in0 = λp0 int. p0 - int

float4 : float -> float
float4 = λfloat. float + 1

f : [float]_N -> [float]_N -> [float]_N
f = λxs ys. mapGlobal (λp. float4 (out (in0 p.0 p.1))) (zip xs ys)
"""


def test_user_functions_and_parameters_named_like_buffers_keywords_or_built_ins():
    """A function ``out`` was hidden by the kernel's buffer ``out``, a parameter ``fmin`` hid
    the built-in its body calls, ``int`` is a keyword: each is spelled apart in C."""
    from workbench import parse_program
    from workbench.run import run

    f = parse_program(COLLIDING)["f"]
    rng = np.random.default_rng(4)
    xs, ys = (rng.uniform(-1, 1, 64).astype(np.float32) for _ in range(2))
    result = run(f, xs, ys, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message + "\n" + result.source
    source = result.source
    assert "float uf_out(float fmin_) { return (fmin(fmin_, 0.5f) * 2" in source, source
    assert "float uf_in0(float p0_, float int_) { return (p0_ - int_); }" in source, source
    assert "float uf_float4(float float_) { return (float_ + 1" in source, source


def test_names_that_are_not_c_identifiers_do_not_become_code():
    from workbench.codegen.program import opencl
    from workbench.expr import Apply, Lambda, Prim, UserFun, Var
    from workbench.run import run
    from workbench.types import FunctionType

    name = "f(float y) { return 0; }\nkernel void evil(global float *p) { p[0] = 1; } float g"
    param = "z) { return 1; } float h(float w"
    fn = UserFun(name, Lambda((param,), Apply(Prim("abs"), (Var(param),))),
                 FunctionType(FLOAT, FLOAT))
    expr = Prim("mapGlobal", (0, Lambda(("x",), Apply(fn, (Var("x"),)))))
    source = opencl(expr, "[float]_64", name="prog\nkernel void evil2() {}").source
    code = [line for line in source.splitlines() if not line.lstrip().startswith(("//", "/*"))]
    kernels = [line for line in code if "kernel void" in line]
    assert len(kernels) == 1 and kernels[0].startswith("kernel void prog_x"), source
    assert not any("return 0" in line or "return 1" in line or "float h(" in line
                   for line in code), source
    xs = np.random.default_rng(5).uniform(-1, 1, 64).astype(np.float32)
    result = run(expr, xs, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message + "\n" + result.source


def test_a_user_function_given_as_c_keeps_its_parameters_which_must_be_identifiers():
    from workbench.codegen import CodegenError
    from workbench.codegen.program import opencl
    from workbench.expr import Apply, Lambda, Prim, UserFun, Var
    from workbench.types import FunctionType

    def native(param):
        return UserFun("out", type=FunctionType(FLOAT, FLOAT), c_body=f"return {param} * 3;",
                       params=(param,), numpy_fn=lambda x: x * 3)

    def program(fn):
        return Prim("mapGlobal", (0, Lambda(("x",), Apply(fn, (Var("x"),)))))

    source = opencl(program(native("x")), "[float]_64").source
    assert "float uf_out(float x) { return x * 3; }" in source
    with pytest.raises(CodegenError, match=r"parameter 'x\) \{' is not a C identifier"):
        opencl(program(native("x) {")), "[float]_64")

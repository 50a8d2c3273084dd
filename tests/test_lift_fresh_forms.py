"""Forms of Lift's language that its tests outside the code generator's use (the fresh batch
``tests/data/lift_fresh_other.py``): each read as Lift means it, evaluated and compared with
NumPy, and refused where it is written when it is misused."""

import numpy as np
import pytest

from workbench import ParseError, evaluate, parse_program
from workbench.types import function_parts

RNG = np.random.default_rng(61)


def floats(*shape):
    return RNG.uniform(-1, 1, shape).astype(np.float32)


def last(text):
    program = parse_program(text)
    return program[list(program)[-1]]


def refused_at(text, message, where):
    with pytest.raises(ParseError, match=message) as info:
        parse_program(text)
    assert (info.value.line, info.value.column) == where


# --- Reduce(f): the pattern, a function of the initial value and the array -------------------

@pytest.mark.parametrize("call", ["Reduce(fun((a, b) => add(a, b)))(add(s, s), xs)",
                                  "FunCall(ReduceSeq(add), add(s, s), xs)",
                                  "ReduceSeqUnroll(add)(add(s, s), xs)"])
def test_a_reduction_given_only_its_operator_takes_the_initial_value_and_the_array(call):
    f = last(f'val f = fun(Float, ArrayType(Float, 16), (s, xs) => {call})')
    s, xs = np.float32(0.5), floats(16)
    assert np.allclose(evaluate(f, s, xs), [2 * s + xs.sum()], atol=1e-5)
    with_init = last('val f = fun(Float, ArrayType(Float, 16), (s, xs) => '
                     'ReduceSeq(add, add(s, s)) $ xs)')
    assert np.allclose(evaluate(f, s, xs), evaluate(with_init, s, xs))


def test_a_reduction_given_only_its_operator_is_refused_with_one_argument():
    refused_at('val f = fun(ArrayType(Float, 16), xs => Reduce(add)(xs))',
               r"Reduce\(f\) \(its initial value and the array\) takes 2 arguments, got 1",
               (1, 52))


# --- SizeVar(""), dot and OpenCLBuiltInFun (opencl/ir/ast) ---------------------------------

def test_a_size_without_a_name_is_a_size_of_its_own_named_by_its_val():
    program = parse_program('val N = SizeVar("")\nval M = SizeVar("")\n'
                            'val f = fun(ArrayType(Float, N), ArrayType(Float, M), '
                            '(x, y) => Map(plusOne) $ x)\n'
                            'val g = fun(ArrayType(Float, SizeVar("")), '
                            'ArrayType(Float, SizeVar("")), (x, y) => Map(plusOne) $ y)')
    named = parse_program('val N = SizeVar("N")\nval M = SizeVar("M")\n'
                          'val f = fun(ArrayType(Float, N), ArrayType(Float, M), '
                          '(x, y) => Map(plusOne) $ x)')
    assert str(program["f"].declared_type) == str(named["f"].declared_type)
    (a, b), _ = function_parts(program["g"].declared_type)
    assert a.size != b.size  # each SizeVar("") is a size of its own
    x = floats(8)
    assert np.allclose(evaluate(program["g"], floats(4), x), x + 1)


def test_dot_is_the_opencl_built_in_of_two_float4_vectors():
    f = last('val f = fun(ArrayType(Float4, SizeVar("N")), ArrayType(Float4, SizeVar("N")), '
             '(x, y) => MapSeq(dot) $ Zip(x, y))')
    x, y = floats(8, 4), floats(8, 4)
    assert np.allclose(evaluate(f, x, y), (x * y).sum(axis=1), atol=1e-5)


def test_an_opencl_built_in_function_declared_by_its_name_and_types():
    f = last('val h = OpenCLBuiltInFun("hypot", Seq(Float, Float), Float)\n'
             'val f = fun(ArrayType(Float, SizeVar("N")), x => Map(fun(y => h(y, 2.0f))) $ x)')
    x = floats(16)
    assert np.allclose(evaluate(f, x), np.hypot(x, 2), atol=1e-5)


def test_an_opencl_built_in_function_the_reader_does_not_know_is_refused_where_declared():
    refused_at('val f = fun(Float, x => x)\n'
               'val h = OpenCLBuiltInFun("frobnicate", Seq(Float), Float)',
               "a call of 'frobnicate' \\(not one of OpenCL's built-in functions", (2, 25))


# --- a float accumulator folding integers ----------------------------------------------------

def test_a_reduction_of_integers_into_a_float_literal_accumulates_floats():
    f = last('val toF = UserFun("toF", "x", "{ return x; }", Int, Float)\n'
             'val f = fun(ArrayType(Int, SizeVar("N")), xs => toGlobal(MapSeq(id)) o '
             'ReduceSeq(fun((acc, x) => add(acc, toF(x))), 0.0f) $ xs)')
    xs = np.arange(100, dtype=np.int32)
    out = evaluate(f, xs)
    assert out.dtype == np.float32 and out.tolist() == [4950.0]


def test_an_integer_literal_accumulator_of_floats_still_takes_the_elements_type():
    f = last('val f = fun(ArrayType(Float, SizeVar("N")), xs => ReduceSeq(add, 0) $ xs)')
    xs = floats(8)
    out = evaluate(f, xs)
    assert out.dtype == np.float32 and np.allclose(out, [xs.sum()])


def test_a_float_accumulator_the_operator_returns_as_an_integer_is_refused():
    refused_at('val f = fun(ArrayType(Int, SizeVar("N")), xs => '
               'ReduceSeq(fun((acc, x) => addI(x, x)), 0.0f) $ xs)',
               r"the operator takes \(float, int\) and must return the accumulator type float, "
               r"it returns int", (1, 1))


# --- Scala's number constants ----------------------------------------------------------------

def test_scalas_number_constants_start_a_search_for_the_least():
    f = last('val f = fun(ArrayType(Float, SizeVar("N")), xs => '
             'ReduceSeq(min, scala.Float.MaxValue) $ xs)')
    g = last('val f = fun(ArrayType(Int, SizeVar("N")), xs => '
             'ReduceSeq(max(Int), Int.MinValue) $ xs)')
    xs = floats(32)
    assert evaluate(f, xs).tolist() == [xs.min()]
    assert evaluate(f, np.array([np.inf], np.float32)).tolist() == [np.finfo(np.float32).max]
    ints = RNG.integers(-5, 5, 16).astype(np.int32)
    assert evaluate(g, ints).tolist() == [ints.max()]


def test_a_scala_tuple_of_constants_is_an_initial_value():
    f = last('val nearest = UserFun("nearest", Array("a", "b"), "{ return a._0 < b._0 ? a : b; }", '
             'Seq(TupleType(Float, Int), TupleType(Float, Int)), TupleType(Float, Int))\n'
             'val f = fun(ArrayType(Float, SizeVar("N")), ArrayType(Int, SizeVar("N")), (d, i) => '
             'ReduceSeq(nearest, (Float.MaxValue, -1)) $ Zip(d, i))')
    d, i = floats(8), np.arange(8, dtype=np.int32)
    least, at = evaluate(f, d, i)
    assert least.tolist() == [d.min()] and at.tolist() == [np.argmin(d)]


def test_a_name_that_is_no_scala_constant_is_refused_where_written():
    refused_at('val f = fun(ArrayType(Float, SizeVar("N")), xs => '
               'ReduceSeq(min, Float.Largest) $ xs)', r"the member \.Largest is not supported",
               (1, 71))


# --- Scala Arrays as Lift's tests compute with them ------------------------------------------

def test_a_scala_arrays_map_and_length_are_computed_before_the_program():
    f = last('val weights = Array(1, 2, 1).map(_.toFloat)\n'
             'val doubled = weights.map(w => w * 2)\n'
             'val f = fun(ArrayType(Float, SizeVar("N")), ArrayType(Float, weights.length), '
             '(x, w) => Map(fun(y => mult(y, doubled(1)))) $ x)')
    (_, weights), _ = function_parts(f.declared_type)
    assert weights.size.is_integer_constant and int(weights.size.value) == 3
    x = floats(8)
    assert np.allclose(evaluate(f, x, floats(3)), x * 4)


def test_the_lengths_of_nested_scala_arrays_held_by_a_helper_object():
    f = last('val w3 = Array(Array(Array(0.0f, 1.0f), Array(1.0f, 0.0f)), '
             'Array(Array(1.0f, 1.0f), Array(0.0f, 0.0f)), Array(Array(0.0f, 0.0f), '
             'Array(0.0f, 1.0f)))\n'
             'val f = fun(ArrayType(ArrayType(ArrayType(Float, Utilities.w3(0)(0).length), '
             'Utilities.w3(0).length), Utilities.w3.length), x => Map(Map(Map(plusOne))) $ x)')
    (t,), _ = function_parts(f.declared_type)
    assert [int(t.size.value), int(t.elem.size.value), int(t.elem.elem.size.value)] == [3, 2, 2]
    x = floats(3, 2, 2)
    assert np.allclose(evaluate(f, x), x + 1)


def test_a_scala_arrays_map_takes_a_function_of_one_parameter():
    refused_at('val w = Array(1, 2).map((a, b) => a)\nval f = fun(Float, x => x)',
               r"the \.map of a Scala Array takes a function of one parameter", (1, 24))


# --- what stays refused, where ---------------------------------------------------------------

def test_lifts_lambda_constructor_is_refused_where_written_before_its_arguments_are_read():
    # the generator's body (ArithExpression, a name of Lift's arithmetic) is never read: the
    # refusal names the construct the program is built with
    refused_at('val f = fun(Float, x => x)\nval g = Lambda(\n  Array(),\n'
               '  MapSeq(id) $ ArrayFromGenerator((i, _) => ArithExpression(i), '
               'ArrayType(Int, 4)))', r"Lambda is not supported: .* write fun\(T, \.\.\.",
               (2, 15))


def test_array_from_generator_is_refused_before_its_generator_is_read():
    refused_at('val f = fun(Float, x => MapSeq(id) $ ArrayFromGenerator((i, _) => '
               'ArithExpression(i), ArrayType(Int, 4)))',
               "ArrayFromGenerator is not supported: its generator is a Scala function", (1, 56))

"""The readings of Lift's Scala that the fresh batch of Lift's generator tests
(``tests/data/lift_fresh_generator.py``) found missing, each read and evaluated against
NumPy, and the refusals that stay."""

import numpy as np
import pytest

from workbench import ParseError, evaluate, parse_program
from workbench.notation.lift_printer import lift_program
from workbench.run import run
from workbench.typecheck import declared_type_of
from workbench.types import function_parts

RNG = np.random.default_rng(45)
N = 'SizeVar("N")'


def floats(*shape):
    return RNG.uniform(-1, 1, shape).astype(np.float32)


def refused_at(text, *words):
    with pytest.raises(ParseError) as info:
        parse_program(text)
    for word in words:
        assert word in str(info.value), str(info.value)
    return info.value


# --- Scala's conversions of numbers ------------------------------------------------------

def test_to_int_of_a_computed_number_is_an_integer_a_size_can_be():
    f = parse_program(f'''
val s = Math.pow(2, 5).toInt
val n = 3
val k = n.toFloat
val f = fun(ArrayType(Float, {N}),
  x => Join() o MapGlb(MapSeq(fun(y => mult(y, k)))) o Split(s) $ x)''')["f"]
    x = floats(96)
    np.testing.assert_allclose(evaluate(f, x), x * 3, rtol=1e-6)
    assert "split 32" in str(f) and "3.0" in str(f)


def test_to_int_truncates_toward_zero_as_scala_does():
    f = parse_program(f'''
val s = Math.sqrt(15.0f).toInt
val f = fun(ArrayType(Float, {N}), x => Join() o MapGlb(MapSeq(id)) o Split(s) $ x)''')["f"]
    assert "split 3" in str(f)


def test_a_number_that_is_no_integer_is_still_no_size():
    with pytest.raises(ParseError, match="is not a size"):
        parse_program(f'''
val s = Math.pow(2, 5)
val f = fun(ArrayType(Float, {N}), x => Join() o MapGlb(MapSeq(id)) o Split(s) $ x)''')


# --- Pad's boundaries unqualified (import ir.ast.Pad.Boundary._) ------------------------

@pytest.mark.parametrize("boundary, mode", [("Clamp", "edge"), ("Wrap", "wrap"),
                                            ("Mirror", "symmetric"),
                                            ("MirrorUnsafe", "symmetric")])
def test_a_boundary_reads_unqualified_as_lifts_tests_import_it(boundary, mode):
    f = parse_program(f"val f = fun(ArrayType(Float, {N}), x => MapGlb(id) o "
                      f"Pad(2, 1, {boundary}) $ x)")["f"]
    x = floats(9)
    np.testing.assert_array_equal(evaluate(f, x), np.pad(x, (2, 1), mode=mode))
    qualified = parse_program(f"val f = fun(ArrayType(Float, {N}), x => MapGlb(id) o "
                              f"Pad(2, 1, Pad.Boundary.{boundary}) $ x)")["f"]
    assert f == qualified


def test_a_programs_own_definition_hides_a_boundarys_name():
    f = parse_program(f'''
val Clamp = 3
val f = fun(ArrayType(Float, {N}), x => Join() o MapGlb(MapSeq(id)) o Split(Clamp) $ x)''')["f"]
    assert "split 3" in str(f)


def test_a_boundary_is_no_value():
    with pytest.raises(ParseError):
        parse_program(f"val f = fun(ArrayType(Float, {N}), x => MapGlb(fun(y => "
                      f"add(y, Clamp))) $ x)")


# --- ArrayTypeWC: an input's array of a capacity --------------------------------------------

def test_an_input_of_a_capacity_is_an_array_of_its_own_length():
    f = parse_program('''
val capacity = 1024
val f = fun(ArrayTypeWC(Int, capacity), Float,
  (in, k) => MapGlb(toGlobal(id(Int))) o ReduceSeq(addI, 0) $ in)''')["f"]
    params, _ = function_parts(declared_type_of(f))
    assert str(params[0]) == "[int]_in_length"
    for n in (7, 700):
        x = RNG.integers(0, 100, n).astype(np.int32)
        assert evaluate(f, x, np.float32(1)).tolist() == [x.sum()]


def test_two_inputs_of_a_capacity_have_lengths_of_their_own():
    f = parse_program('''
val length = SizeVar("in_length")
val f = fun(ArrayTypeWC(Float, 64), ArrayTypeWC(Float, 64), ArrayType(Float, length),
  (in, b, c) => MapGlb(id) $ in)''')["f"]
    params, _ = function_parts(declared_type_of(f))
    assert len({str(p) for p in params}) == 3, params
    x = floats(5)
    np.testing.assert_array_equal(evaluate(f, x, floats(3), floats(4)), x)


def test_an_array_of_a_capacity_inside_another_type_is_refused_where_it_is_written():
    err = refused_at('''val f = fun(
  ArrayType(ArrayTypeWC(Float, 4), SizeVar("N")),
  x => MapGlb(MapSeq(id)) $ x)''', "ArrayTypeWC is not supported here", "inside another type")
    assert err.line == 2
    refused_at('val f = fun(ArrayType(Float, SizeVar("N")), x => MapGlb(fun(y => ReduceSeq(add, y)'
               ' $ Value("0.0f", ArrayTypeWC(Float, 4)))) $ x)', "ArrayTypeWC")


def test_an_input_of_a_capacity_runs_and_prints_back():
    f = parse_program('val f = fun(ArrayTypeWC(Float, 1024), x => MapGlb(plusOne) $ x)')["f"]
    result = run(f, floats(300), repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message
    again = parse_program(lift_program(f, "f"))["f"]
    assert again == f and str(again.declared_type) == str(f.declared_type)

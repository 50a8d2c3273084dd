"""The readings of Lift's Scala that the fresh batch of Lift's generator tests
(``tests/data/lift_fresh_generator.py``) found missing, each read and evaluated against
NumPy, and the refusals that stay."""

import numpy as np
import pytest

from workbench import ParseError, evaluate, parse_program

RNG = np.random.default_rng(45)
N = 'SizeVar("N")'


def floats(*shape):
    return RNG.uniform(-1, 1, shape).astype(np.float32)


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

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

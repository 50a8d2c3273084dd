"""Forms of Lift's language that its tests outside the code generator's use (the fresh batch
``tests/data/lift_fresh_other.py``): each read as Lift means it, evaluated and compared with
NumPy, and refused where it is written when it is misused."""

import numpy as np
import pytest

from workbench import ParseError, evaluate, parse_program

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

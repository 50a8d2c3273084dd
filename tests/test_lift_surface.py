"""The Scala and the patterns of Lift's code that the reader took last (issue 44): ``def``
with default arguments, the ``_`` placeholder, qualified names, the lowercase index function
``reorderStride(s)`` and ``transposeFunction(m, n)`` of symbolic sizes, ``Unzip``,
``ReduceWhileSeq``, ``CheckedArrayAccess``, ``UnsafeArrayAccess``, memory-placed functions of
two arguments, Lift's numbered tuple types in C bodies and ``Value`` of arrays of vectors.
Each program is read, evaluated and compared with NumPy written from its meaning, and run
on the default device where the code generator takes it. Then the table of Lift's whole
surface (``workbench.notation.lift_surface``, ``docs/lift_surface.md``): each name reads, or
is refused with the reason its entry states, each program that reads evaluates and runs on
the default device or is refused by the code generator as the table states."""

from pathlib import Path

import numpy as np
import pytest

from tests.test_lift_language import close
from workbench import ParseError, evaluate, parse_program
from workbench.inputs import random_inputs
from workbench.notation.lift_printer import lift_program
from workbench.notation.lift_surface import CODE_REFUSED, KINDS, NAMES, TYPE, markdown, read
from workbench.run import run
from workbench.typecheck import declared_type_of
from workbench.types import free_size_vars, function_parts

RNG = np.random.default_rng(44)


def floats(*shape):
    return RNG.uniform(-1, 1, shape).astype(np.float32)


def program(text):
    definitions = parse_program(text)
    return definitions[list(definitions)[-1]]


def runs(f, *args):
    """The program runs on the default device and computes what the interpreter does."""
    result = run(f, *args, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, f"{result.status}: {result.message}"


# --- Scala --------------------------------------------------------------------------------

def test_a_def_with_default_arguments():
    f = program('''
def scaled(xs: Param, k: Float = 2.0f, shift: Float = 0.5f) =
  MapGlb(fun(x => add(mult(x, k), shift))) $ xs
val N = SizeVar("N")
val f = fun(ArrayType(Float, N), ArrayType(Float, N), (a, b) =>
  MapGlb(add) $ Zip(scaled(a), scaled(b, 3.0f)))''')
    a, b = floats(32), floats(32)
    close(evaluate(f, a, b), (2 * a + 0.5) + (3 * b + 0.5))
    runs(f, a, b)


def test_a_default_argument_is_left_out_only_at_the_end():
    with pytest.raises(ParseError, match="scaled takes 1 to 3 arguments"):
        parse_program('''def scaled(x: Param, k: Float = 2.0f, s: Float = 1.0f) = mult(x, k)
val f = fun(Float, x => scaled())''')
    with pytest.raises(ParseError, match="the parameter s follows one with a default"):
        parse_program("val N = 1\ndef scaled(x: Param, k: Float = 2.0f, s: Float) = mult(x, k)")


def test_the_placeholder_makes_a_function_of_its_holes():
    # Lift's TestMisc.issue102IntFloat: fun(types..., MapGlb(...) $ Zip(_, _))
    f = program('''
val tuple_id = UserFun("tuple_id", "x", "return x;", TupleType(Int, Float), TupleType(Int, Float))
val N = SizeVar("N")
val f = fun(ArrayType(Int, N), ArrayType(Float, N), MapGlb(toGlobal(tuple_id)) $ Zip(_, _))''')
    left, right = RNG.integers(-9, 9, 16).astype(np.int32), floats(16)
    close(evaluate(f, left, right), (left, right))
    runs(f, left, right)


def test_a_placeholder_inside_an_argument_is_that_arguments_function():
    f = program('''
val N = SizeVar("N")
val f = fun(ArrayType(TupleType(Float, Float), N), MapGlb(add(_, 1.0f)) o MapGlb(Get(_, 0)) $ _)''')
    a, b = floats(16), floats(16)
    close(evaluate(f, (a, b)), a + 1)


def test_qualified_names_are_their_last_name():
    # Lift's NN code passes activations as nn.Linear and nn.ReLU
    f = program('''
val f = fun(ArrayType(Float, SizeVar("N")), xs =>
  MapGlb(fun(x => nn.ReLU(nn.Linear(x)))) o MapGlb(opencl.ir.id) $ xs)''')
    xs = floats(32)
    close(evaluate(f, xs), np.maximum(xs, 0))
    runs(f, xs)
    with pytest.raises(ParseError, match="unknown qualified name nn.Sigmoid") as info:
        parse_program('val f = fun(ArrayType(Float, SizeVar("N")), xs => Map(nn.Sigmoid) $ xs)')
    assert (info.value.line, info.value.column) == (1, 55)


# --- index functions ------------------------------------------------------------------------

def test_the_lowercase_reorder_stride_is_lifts_index_function():
    f = program('''
val f = fun(ArrayType(Float, 32), xs =>
  Scatter(reorderStride(4)) o MapGlb(id) o Gather(reorderStride(4)) $ xs)''')
    assert f == program('''
val f = fun(ArrayType(Float, 32), xs =>
  Scatter(ReorderWithStride(4)) o MapGlb(id) o Gather(ReorderWithStride(4)) $ xs)''')
    xs = floats(32)
    close(evaluate(f, xs), xs)
    g = program('val f = fun(ArrayType(Float, 32), xs => MapGlb(id) o Gather(reorderStride(4)) '
                '$ xs)')
    close(evaluate(g, xs), xs.reshape(8, 4).T.reshape(-1))  # i/8 + 4 (i % 8)
    runs(f, xs)


@pytest.mark.parametrize("pattern", ["Gather", "Scatter"])
def test_transpose_function_of_symbolic_sizes_reads_as_its_numbers_do(pattern):
    def text(m, n):
        return f'''
val M = {m}
val N = {n}
val f = fun(ArrayType(ArrayType(Float, M), N), xs =>
  Split(N) o MapGlb(id) o {pattern}(transposeFunction(M, N)) o Join() $ xs)'''
    symbolic = program(text('SizeVar("M")', 'SizeVar("N")'))
    numbers = program(text(4, 3))
    m = floats(3, 4)
    close(evaluate(symbolic, m), evaluate(numbers, m))
    # element i of the gather is element (i % n) * m + i / n
    flat = m.reshape(-1)
    gathered = flat[[(i % 3) * 4 + i // 3 for i in range(12)]]
    if pattern == "Gather":
        close(evaluate(symbolic, m), gathered.reshape(4, 3))
    runs(symbolic, m)


# --- patterns ---------------------------------------------------------------------------------

def test_unzip_gives_the_arrays_of_the_components():
    # the shape of Lift's NBody.nvidia: Get(Unzip() $ chunk, i)
    f = program('''
val N = SizeVar("N")
val f = fun(ArrayType(Float, N), ArrayType(Float, N), (a, b) =>
  MapGlb(fun(p => subtract(p._0, p._1))) $
    Zip(MapSeq(id) $ Get(Unzip() $ Zip(a, b), 1), Get(Unzip() $ Zip(a, b), 0)))''')
    a, b = floats(16), floats(16)
    close(evaluate(f, a, b), b - a)
    runs(f, a, b)
    g = program('''
val f = fun(ArrayType(TupleType(Float, Float), SizeVar("N")), xs => Unzip() o MapSeq(
  fun(p => Tuple(add(p._0, p._1), p._0))) $ xs)''')
    close(evaluate(g, (a, b)), (a + b, a))


def test_unzip_after_maps_that_build_pairs():
    # the shape of the tile copies of Lift's MatrixMultiplication.tiledAndBlockedBInnermost:
    # Unzip() o toLocal(MapLcl(1)(... Unzip() o MapLcl(0)(pairs of copies) ...))
    f = program('''
val f = fun(ArrayType(ArrayType(Float, 8), 4), ArrayType(ArrayType(Float, 8), 4), (a, b) =>
  fun(tiles => MapWrg(fun(rows => MapLcl(add) $ Zip(rows._0, rows._1))) $
    Zip(tiles._0, tiles._1)) o
  Unzip() o toLocal(MapLcl(1)(fun(pair =>
    Unzip() o MapLcl(0)(fun(p => Tuple(id $ Get(p, 0), id $ Get(p, 1)))) $
      Zip(Get(pair, 0), Get(pair, 1))))) $ Zip(a, b))''')
    a, b = floats(4, 8), floats(4, 8)
    close(evaluate(f, a, b), a + b)


def test_unzip_takes_as_many_components_as_the_writing_shows():
    f = program('''
val N = SizeVar("N")
val f = fun(ArrayType(Float, N), ArrayType(Float, N), ArrayType(Float, N), (a, b, c) =>
  MapGlb(fun(p => add(p._0, mult(p._1, p._2)))) $ Zip(
    Get(Unzip() $ Zip(a, b, c), 2), Get(Unzip() $ Zip(a, b, c), 0),
    Get(Unzip() o MapSeq(fun(t => Tuple(t._0, t._1, add(t._2, 1.0f)))) $ Zip(a, b, c), 2)))''')
    a, b, c = floats(16), floats(16), floats(16)
    close(evaluate(f, a, b, c), c + a * (c + 1))
    runs(f, a, b, c)


def test_reduce_while_seq_stops_before_the_first_element_its_predicate_refuses():
    f = program('''
val N = SizeVar("N")
val below = UserFun("below", Array("acc", "x"), "{ return acc + x < 10.0f; }",
  Seq(Float, Float), Int)
val f = fun(ArrayType(ArrayType(Float, 8), N), rows =>
  MapGlb(toGlobal(MapSeq(id)) o ReduceWhileSeq(add, below, 0.0f)) $ rows)''')
    rows = RNG.uniform(0, 4, (6, 8)).astype(np.float32)

    def reduce_while(row):
        acc = np.float32(0)
        for x in row:
            if not acc + x < 10:
                break
            acc += x
        return [acc]

    close(evaluate(f, rows), np.array([reduce_while(r) for r in rows]))
    runs(f, rows)


def test_checked_array_access_gives_the_default_outside_the_array():
    # Lift's TestCheckedArrayAccess.TEST_ACCESS, with indices outside the array too
    f = program('''
val N = SizeVar("N")
val f = fun(ArrayTypeWSWC(Float, N), ArrayTypeWSWC(Int, 5), (arr, ix) => {
  MapSeq(fun((index) => toGlobal(id) o CheckedArrayAccess(index, -142.0f) $ arr)) $ ix
})''')
    arr, ix = floats(16), np.array([3, 0, 15, 16, -1], np.int32)
    close(evaluate(f, arr, ix), [arr[3], arr[0], arr[15], -142, -142])
    runs(f, arr, ix)


def test_unsafe_array_access_reads_the_element_at_an_index():
    f = program('''
val N = SizeVar("N")
val f = fun(ArrayTypeWSWC(Float, N), ArrayTypeWSWC(Int, SizeVar("M")), (arr, ix) =>
  MapGlb(fun(index => toGlobal(id) o UnsafeArrayAccess(index) $ arr)) $ ix)''')
    arr, ix = floats(16), RNG.integers(0, 16, 9).astype(np.int32)
    close(evaluate(f, arr, ix), arr[ix])
    runs(f, arr, ix)


def test_a_memory_placed_function_of_two_arguments():
    # the shape of Lift's vector scaling: toPrivate(mult)(x._0, alpha)
    f = program('''
val N = SizeVar("N")
val f = fun(ArrayType(Float, N), ArrayType(Float, N), Float, (a, b, alpha) =>
  MapGlb(fun(x => toGlobal(id) $ add(toPrivate(mult)(x._0, alpha), x._1))) $ Zip(a, b))''')
    a, b = floats(16), floats(16)
    close(evaluate(f, a, b, np.float32(1.5)), 1.5 * a + b)
    runs(f, a, b, np.float32(1.5))


# --- C bodies and values -----------------------------------------------------------------------

def test_lifts_numbered_tuple_types_in_c_bodies():
    # Lift's TestDbQueries writes "Tuple1 t = {...}; return t;"
    f = program('''
val both = UserFun("both", Array("x", "y"),
  "Tuple1 t = {(x._0 == y._0), x._1 + y._1}; return t;",
  Seq(TupleType(Int, Float), TupleType(Int, Float)), TupleType(Bool, Float))
val N = SizeVar("N")
val f = fun(ArrayType(TupleType(Int, Float), N), ArrayType(TupleType(Int, Float), N), (a, b) =>
  MapGlb(fun(p => both(p._0, p._1))) $ Zip(a, b))''')
    ka, kb = RNG.integers(0, 2, 16).astype(np.int32), RNG.integers(0, 2, 16).astype(np.int32)
    va, vb = floats(16), floats(16)
    close(evaluate(f, (ka, va), (kb, vb)), (ka == kb, va + vb))
    runs(f, (ka, va), (kb, vb))


def test_a_left_join_with_scala_booleans_and_a_numbered_tuple():
    # the shape of Lift's TestDbQueries.leftJoin: rows of the left table without a match on
    # the right, flagged, with ReduceSeq(or, false) and a C body building a Tuple1
    f = program('''
val toInt = UserFun("to_int", "x", "return x;", Bool, Int)
val sameKey = UserFun("sameKey", Array("x", "y"), "return (x._0 == y._0);",
  Seq(TupleType(Int, Int), TupleType(Int, Int)), Bool)
val flagged = UserFun("flagged", Array("alone", "row"),
  "Tuple1 t = {alone, row._0, row._1}; return t;",
  Seq(Int, TupleType(Int, Int)), TupleType(Int, Int, Int))
val N = SizeVar("N")
val M = SizeVar("M")
val f = fun(ArrayType(TupleType(Int, Int), N), ArrayType(TupleType(Int, Int), M),
  (left, right) => Join() o MapGlb(fun(rows =>
    MapSeq(toGlobal(flagged)) $ Zip(
      Join() o MapSeq(MapSeq(toInt o not) o ReduceSeq(or, false)) o
        MapSeq(fun(l => MapSeq(fun(r => sameKey.apply(l, r))) $ right)) $ rows,
      rows))) o Split(4) $ left)''')
    lk, lv = RNG.integers(0, 10, 16).astype(np.int32), RNG.integers(0, 9, 16).astype(np.int32)
    rk, rv = RNG.integers(0, 8, 12).astype(np.int32), RNG.integers(0, 9, 12).astype(np.int32)
    alone = np.array([not (rk == k).any() for k in lk], np.int32)
    close(evaluate(f, (lk, lv), (rk, rv)), (alone, lk, lv))
    runs(f, (lk, lv), (rk, rv))


def test_a_value_of_an_array_of_vectors_is_typed_as_the_vectors():
    # NBody.nvidia's accumulator: MapLcl(1)(MapLcl(0)(idF4)) $ Value("0.0f",
    # ArrayTypeWSWC(ArrayTypeWSWC(Float4, tileX), tileY)), smaller
    f = program('''
val f = fun(ArrayType(Float4, SizeVar("N")), xs =>
  MapSeq(MapSeq(idF4)) o ReduceSeq(fun((acc, x) =>
    MapSeq(MapSeq(VectorizeUserFun(4, add))) $ Zip2D(acc, x)),
    MapSeq(MapSeq(idF4)) $ Value("0.0f", ArrayTypeWSWC(ArrayTypeWSWC(Float4, 2), 1)))
  o Split(1) o Split(2) $ xs)''')
    assert str(f.declared_type) == "[<float>_4]_N -> [[[<float>_4]_2]_1]_1"
    xs = floats(8, 4)
    close(evaluate(f, xs), xs.reshape(4, 1, 2, 4).sum(axis=0))


# --- the table of Lift's surface ------------------------------------------------------------

SURFACE = {entry.name: entry for entry in NAMES}


def test_the_table_names_each_name_once_and_every_kind():
    assert len(SURFACE) == len(NAMES)
    assert {entry.kind for entry in NAMES} == set(KINDS)


@pytest.mark.parametrize("name", [
    # every pattern class (and macro object) of Lift's ir/ast and opencl/ir/pattern packages
    "Array2DFromUserFunGenerator", "Array3DFromUserFunGenerator", "ArrayAccess",
    "ArrayFromGenerator", "ArrayFromUserFunGenerator", "ArrayFromValue", "CheckedArrayAccess",
    "Filter", "FunCall", "Gather", "Get", "Head", "Id", "Iterate", "Join", "Let", "Map", "Pad",
    "Pad2D", "Pad3D", "PadND", "PadConstant", "PadConstant2D", "PadConstant3D", "PartRed",
    "Reduce", "Scatter", "Search", "Slide", "Slide2D", "Slide3D", "SlideND", "TiledSlidedND",
    "Split", "Tail", "Transpose", "TransposeW", "Tuple", "UnsafeArrayAccess", "Unzip",
    "UserFun", "VectorizeUserFun", "Value", "Vectorize", "Zip", "Zip2D", "Zip3D", "asScalar",
    "asVector", "AssertType", "PrintComment", "PrintType", "PrintTypeInConsole", "PrintView",
    "TypeOperator", "BSearch", "FilterSeq", "InsertionSortSeq", "LSearch", "MapAtomLcl",
    "MapAtomWrg", "MapGlb", "MapLane", "MapLcl", "MapSeq", "MapSeqUnroll", "MapSeqSlide",
    "MapWarp", "MapWrg", "ReduceSeq", "ReduceSeqUnroll", "ReduceWhileSeq",
    "ReduceWhileSeqUnroll", "ScanSeq", "toGlobal", "toLocal", "toPrivate",
    # the Scala forms the issue names
    "def with default arguments", "_ (placeholder)", "o", "$", ">>>", "<<:", ":>>", "\\(...)",
    "qualified names", "Let", "Value(text, Float4)",
])
def test_the_table_holds_lifts_names(name):
    assert name in SURFACE


def sizes_of(types):
    """Small sizes for the inputs: N, M and L as the examples name them, and 8 for any
    other (an ArrayTypeWC input's own length)."""
    names = set().union(*(free_size_vars(t) for t in types))
    return dict.fromkeys(names, 8) | {"N": 8, "M": 8, "L": 4}


@pytest.mark.parametrize("entry", NAMES, ids=[e.name for e in NAMES])
def test_each_name_reads_or_is_refused_with_the_stated_reason(entry):
    reading = read(entry)
    if entry.refusal:
        assert reading.reads_to is None and entry.refusal in reading.refused, reading.refused
    else:
        assert reading.reads_to is not None, reading.refused


@pytest.mark.parametrize("entry", [e for e in NAMES if not e.refusal and e.kind != TYPE],
                         ids=[e.name for e in NAMES if not e.refusal and e.kind != TYPE])
def test_each_program_that_reads_evaluates(entry):
    text = entry.example if entry.example.startswith(("val ", "def ")) else \
        f"val f = {entry.example}"
    f = program(text)
    types = function_parts(declared_type_of(f))[0]
    if not types:  # a user function: applied to numbers of its types
        types = function_parts(f.type)[0]
    args = random_inputs(types, sizes_of(types), seed=44)
    evaluate(f, *args)


def test_the_table_of_the_docs_is_the_generated_one():
    text = (Path(__file__).parent.parent / "docs" / "lift_surface.md").read_text(
        encoding="utf-8")
    begin, end = "<!-- the table:", "<!-- end of the table -->"
    start = text.index("\n", text.index(begin)) + 1
    assert text[start:text.index(end)] == markdown()


@pytest.mark.slow  # about 15 seconds: a kernel for each of some 160 programs
def test_each_program_that_reads_runs_or_is_refused_by_the_code_generator_as_stated():
    wrong = []
    for entry in NAMES:
        if entry.refusal:
            continue
        f = program(entry.example if entry.example.startswith(("val ", "def ")) else
                    f"val f = {entry.example}")
        types = function_parts(declared_type_of(f))[0]
        result = run(f, *random_inputs(types, sizes_of(types), seed=44),
                     repeat=1, warmup=0)
        if entry.name in CODE_REFUSED:
            if result.status != "codegen error" or CODE_REFUSED[entry.name] not in \
                    result.message:
                wrong.append(f"{entry.name}: {result.status}: {result.message[:200]}")
        elif not (result.status == "ok" and result.correct):
            wrong.append(f"{entry.name}: {result.status}: {result.message[:200]}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("entry", [e for e in NAMES if not e.refusal],
                         ids=[e.name for e in NAMES if not e.refusal])
def test_each_program_that_reads_prints_in_lifts_spelling_and_reads_back(entry):
    f = program(entry.example if entry.example.startswith(("val ", "def ")) else
                f"val f = {entry.example}")
    again = parse_program(lift_program(f, "f"))["f"]
    assert again == f and str(again.declared_type) == str(f.declared_type)

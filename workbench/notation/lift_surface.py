"""Lift's whole surface, name by name: every pattern class of Lift's ``ir/ast`` and
``opencl/ir/pattern`` packages (and the macros defined beside them), its index functions,
the user functions and types of its library, and the Scala forms its programs are written
in, each with a small program that uses it. Reading that program gives the row of the table
in ``docs/lift_surface.md``: what the reader reads it to, or the refusal and its reason,
and whether the program runs on the default device (``CODE_REFUSED`` holds the code
generator's refusals). ``python -m workbench.notation.lift_surface`` prints the table;
``scripts/write_docs.py`` writes it.

The names are those of Lift's repository (``lift-project/lift``, snapshot 5e8a18df):
the files under ``src/main/`` that declare them are named in each entry. Lift's abstract
classes and compiler nodes (``Pattern``, ``FunDecl``, ``AbstractMap``, ``Lambda1`` …) are
not written in programs and are left out; the lambdas that programs write are the Scala
forms ``fun``, ``\\`` and ``λ``."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from ..errors import ParseError

PATTERN = "pattern"
INDEX_FUNCTION = "index function"
USER_FUNCTION = "user function"
TYPE = "type"
SCALA = "Scala form"
KINDS = (PATTERN, INDEX_FUNCTION, USER_FUNCTION, TYPE, SCALA)


@dataclass(frozen=True)
class LiftName:
    """One name of Lift's surface: its kind, the file of Lift that declares it, a Lift
    program using it and, when the reader refuses it, a part of the reason it gives."""

    name: str
    kind: str
    where: str
    example: str
    refusal: str = ""


@dataclass(frozen=True)
class Reading:
    """What the reader makes of an entry's program: the expression it reads to (printed in
    the workbench's notation), or its refusal."""

    entry: LiftName
    reads_to: str | None = None
    refused: str | None = None


# --- the programs ----------------------------------------------------------------------------

_V = 'ArrayType(Float, SizeVar("N"))'
_VI = 'ArrayType(Int, SizeVar("N"))'
_VB = 'ArrayType(Bool, SizeVar("N"))'
_VD = 'ArrayType(Double, SizeVar("N"))'
_V4 = 'ArrayType(Float4, SizeVar("N"))'
_M = 'ArrayType(ArrayType(Float, SizeVar("M")), SizeVar("N"))'
_C = 'ArrayType(ArrayType(ArrayType(Float, SizeVar("L")), SizeVar("M")), SizeVar("N"))'
_UNIT = "UserFun(\"unit\", Array(\"i\", \"n\"), \"{ return 1.0f; }\", Seq(Int, Int), Float)"


def _on(t: str, body: str) -> str:
    """A program of one parameter x of type t."""
    return f"fun({t}, x => {body})"


def _map(f: str, t: str = _V) -> str:
    """A program mapping the user function f over an array."""
    return _on(t, f"MapGlb({f}) $ x")


def _pairs(body: str, t: str = _V, u: str = "") -> str:
    """A program of two arrays a and b, whose body reads their pairs as x (arrays of tuples
    are zipped from arrays, as a kernel's inputs are one array per component)."""
    return f"fun({t}, {u or t}, (a, b) => {body.replace('$ x', '$ Zip(a, b)')})"


_AST = "ir/ast/"
_OCL = "opencl/ir/pattern/"
_IR = "opencl/ir/package.scala"
_TYPES = "opencl/ir/Type.scala"


def _p(name: str, file: str, example: str, refusal: str = "") -> LiftName:
    return LiftName(name, PATTERN, file, example, refusal)


PATTERNS = [
    # ir/ast
    _p("Array2DFromUserFunGenerator", _AST + "Array2DFromUserFunGenerator.scala",
       _on("Float", f"Array2DFromUserFunGenerator({_UNIT}, ArrayType(ArrayType(Float, 4), 4))"),
       "a symbolic size has no value inside an expression"),
    _p("Array3DFromUserFunGenerator", _AST + "Array3DFromUserFunGenerator.scala",
       _on("Float", f"Array3DFromUserFunGenerator({_UNIT}, ArrayType(ArrayType(ArrayType("
                    f"Float, 4), 4), 4))"),
       "a symbolic size has no value inside an expression"),
    _p("ArrayAccess", _AST + "ArrayAccess.scala",
       _on('ArrayType(ArrayType(Float, 8), SizeVar("N"))',
           "MapGlb(fun(row => toGlobal(id) o ArrayAccess(2) $ row)) $ x")),
    _p("ArrayFromGenerator", _AST + "ArrayFromGenerator.scala",
       _on("Float", "ArrayFromGenerator((i, n) => i, ArrayType(Int, 4))"),
       "its generator is a Scala function of each index and the length"),
    _p("ArrayFromUserFunGenerator", _AST + "ArrayFromUserFunGenerator.scala",
       _on("Float", f"ArrayFromUserFunGenerator({_UNIT}, ArrayType(Float, 4))"),
       "a symbolic size has no value inside an expression"),
    _p("ArrayFromValue", _AST + "ArrayFromValue.scala",
       _map('fun(y => ReduceSeq(add, y) $ ArrayFromValue(Value("1.0f", Float), '
            'ArrayType(Float, 4)))')),
    _p("CheckedArrayAccess", _AST + "CheckedArrayAccess.scala",
       f"fun({_V}, {_VI}, (xs, ids) => MapGlb(fun(i => toGlobal(id) o "
       f"CheckedArrayAccess(i, -1.0f) $ xs)) $ ids)"),
    _p("Filter", _AST + "Filter.scala", f"fun({_V}, {_VI}, (xs, ids) => Filter(xs, ids))"),
    _p("FunCall", _AST + "FunCall.scala", _on(_V, "FunCall(Map(plusOne), x)")),
    _p("Gather", _AST + "Gather.scala", _on(_V, "Gather(reverse) $ x")),
    _p("Get", _AST + "Get.scala", _pairs("MapGlb(id) o Map(Get(0)) $ x")),
    _p("Head", _AST + "Head.scala", _on(_V, "Head() $ x")),
    _p("Id", _AST + "Id.scala", _on(_V, "Id() $ x")),
    _p("Iterate", _AST + "Iterate.scala", _on(_V, "Iterate(3)(Map(plusOne)) $ x")),
    _p("Join", _AST + "Join.scala", _on(_M, "Join() $ x")),
    _p("Let", _AST + "Let.scala", _map("fun(y => Let(z => add(z, z)) $ y)")),
    _p("Map", _AST + "Map.scala", _map("plusOne").replace("MapGlb", "Map")),
    _p("Pad", _AST + "Pad.scala", _on(_V, "Pad(1, 1, Pad.Boundary.Clamp) $ x")),
    _p("Pad2D", _AST + "Pad.scala", _on(_M, "Pad2D(1, 1, Pad.Boundary.Wrap) $ x")),
    _p("Pad3D", _AST + "Pad.scala", _on(_C, "Pad3D(1, 1, 1, Pad.Boundary.Mirror) $ x")),
    _p("PadND", _AST + "Pad.scala", _on(_M, "PadND(2)(1, 1, Pad.Boundary.Clamp) $ x")),
    _p("PadConstant", _AST + "PadConstant.scala", _on(_V, "PadConstant(1, 2, 0.0f) $ x")),
    _p("PadConstant2D", _AST + "PadConstant.scala", _on(_M, "PadConstant2D(1, 1, 0.0f) $ x")),
    _p("PadConstant3D", _AST + "PadConstant.scala",
       _on(_C, "PadConstant3D(1, 1, 1, 0.0f) $ x")),
    _p("PartRed", _AST + "PartialReduce.scala", _on(_V, "PartRed(add, 0.0f) $ x"),
       "a partial reduction leaves the length of its result open"),
    _p("Reduce", _AST + "Reduce.scala", _on(_V, "Reduce(add, 0.0f) $ x")),
    _p("Scatter", _AST + "Scatter.scala", _on(_V, "Scatter(reverse) o MapGlb(id) $ x")),
    _p("Search", _AST + "Search.scala", _on(_V, "Search(fun(y => 0)) $ x"),
       "a search stops at the element it finds"),
    _p("Slide", _AST + "Slide.scala", _on(_V, "Slide(3, 1) $ x")),
    _p("Slide2D", _AST + "Slide.scala", _on(_M, "Slide2D(3, 1) $ x")),
    _p("Slide3D", _AST + "Slide.scala", _on(_C, "Slide3D(3, 1) $ x")),
    _p("SlideND", _AST + "Slide.scala", _on(_M, "SlideND(2)(3, 1) $ x")),
    _p("TiledSlidedND", _AST + "Slide.scala", _on(_V, "TiledSlidedND(1)(3, 1, 4) $ x"),
       "its tiling of overlapping windows is a rewrite of SlideND"),
    _p("Split", _AST + "Split.scala", _on(_V, "Split(4) $ x")),
    _p("Tail", _AST + "Tail.scala", _on(_V, "Tail() $ x")),
    _p("Transpose", _AST + "Transpose.scala", _on(_M, "Transpose() $ x")),
    _p("TransposeW", _AST + "TransposeW.scala", _on(_M, "TransposeW() o MapGlb(MapSeq(id)) $ x")),
    _p("Tuple", _AST + "Tuple.scala", _map("fun(y => addTuple(Tuple(y, 1.0f)))")),
    _p("UnsafeArrayAccess", _AST + "UnsafeArrayAccess.scala",
       f"fun({_V}, {_VI}, (xs, ids) => MapGlb(fun(i => toGlobal(id) o "
       f"UnsafeArrayAccess(i) $ xs)) $ ids)"),
    _p("Unzip", _AST + "Unzip.scala",
       f"fun({_V}, {_V}, (a, b) => MapGlb(add) $ Zip(MapSeq(id) $ Get(Unzip() $ Zip(a, b), 1), "
       f"Get(Unzip() $ Zip(a, b), 0)))"),
    _p("UserFun", _AST + "UserFun.scala",
       'val twice = UserFun("twice", "x", "{ return 2.0f * x; }", Float, Float)\n'
       'val f = ' + _map("twice")),
    _p("VectorizeUserFun", _AST + "UserFun.scala", _map("VectorizeUserFun(4, plusOne)", _V4)),
    _p("Value", _AST + "Value.scala", _on(_V, 'ReduceSeq(add, Value("0.0f", Float)) $ x')),
    _p("Vectorize", _AST + "Vectorize.scala", _map("Vectorize(4)(plusOne)", _V4)),
    _p("Zip", _AST + "Zip.scala", f"fun({_V}, {_V}, (a, b) => Zip(a, b))"),
    _p("Zip2D", _AST + "Zip.scala", f"fun({_M}, {_M}, (a, b) => Zip2D(a, b))"),
    _p("Zip3D", _AST + "Zip.scala", f"fun({_C}, {_C}, (a, b) => Zip3D(a, b))"),
    _p("asScalar", _AST + "asScalar.scala", _on(_V4, "asScalar() $ x")),
    _p("asVector", _AST + "asVector.scala", _on(_V, "asVector(4) $ x")),
    _p("AssertType", _AST + "debug/AssertType.scala",
       _on(_V, f'Map(plusOne) o AssertType({_V}, "input") $ x')),
    _p("PrintComment", _AST + "debug/PrintComment.scala",
       _on(_V, 'Map(plusOne) o PrintComment("here") $ x')),
    _p("PrintType", _AST + "debug/PrintType.scala", _on(_V, "Map(plusOne) o PrintType() $ x")),
    _p("PrintTypeInConsole", _AST + "debug/PrintTypeInConsole.scala",
       _on(_V, 'Map(plusOne) o PrintTypeInConsole("x") $ x')),
    _p("PrintView", _AST + "debug/PrintView.scala", _on(_V, 'PrintView("x", Map(plusOne)) $ x')),
    _p("TypeOperator", _AST + "debug/TypeOperator.scala", _on(_V, "TypeOperator(t => t) $ x"),
       "the abstract base of Lift's debugging patterns"),
    # opencl/ir/pattern
    _p("BSearch", _OCL + "BSearch.scala", _on(_V, "BSearch(fun(y => 0)) $ x"),
       "a binary search stops at the element it finds"),
    _p("FilterSeq", _OCL + "FilterSeq.scala", _on(_V, "FilterSeq(fun(y => 1)) $ x"),
       "the length of its result depends on the data"),
    _p("InsertionSortSeq", _OCL + "InsertionSortSeq.scala",
       _on(_V, "InsertionSortSeq(fun((a, b) => 1)) $ x"), "no workbench primitive sorts"),
    _p("LSearch", _OCL + "LSearch.scala", _on(_V, "LSearch(fun(y => 0)) $ x"),
       "a linear search stops at the element it finds"),
    _p("MapAtomLcl", _OCL + "MapAtomLcl.scala",
       _on(_M, "MapWrg(MapAtomLcl(0)(plusOne)) $ x")),
    _p("MapAtomWrg", _OCL + "MapAtomWrg.scala",
       _on(_M, "MapAtomWrg(0)(MapLcl(plusOne)) $ x")),
    _p("MapGlb", _OCL + "MapGlb.scala", _map("plusOne")),
    _p("MapLane", _OCL + "MapLane.scala", _on(_C, "MapWrg(MapWarp(MapLane(plusOne))) $ x")),
    _p("MapLcl", _OCL + "MapLcl.scala", _on(_M, "MapWrg(MapLcl(0)(plusOne)) $ x")),
    _p("MapSeq", _OCL + "MapSeq.scala", _on(_V, "MapSeq(plusOne) $ x")),
    _p("MapSeqUnroll", _OCL + "MapSeq.scala", _on(_V, "MapSeqUnroll(plusOne) $ x")),
    _p("MapSeqSlide", _OCL + "MapSeqSlide.scala",
       _on(_V, "MapSeqSlide(ReduceSeq(add, 0.0f), 3, 1) $ x")),
    _p("MapWarp", _OCL + "MapWarp.scala", _on(_C, "MapWrg(MapWarp(MapLane(plusOne))) $ x")),
    _p("MapWrg", _OCL + "MapWrg.scala", _on(_M, "MapWrg(0)(MapLcl(plusOne)) $ x")),
    _p("ReduceSeq", _OCL + "ReduceSeq.scala", _on(_V, "ReduceSeq(add, 0.0f) $ x")),
    _p("ReduceSeqUnroll", _OCL + "ReduceSeq.scala", _on(_V, "ReduceSeqUnroll(add, 0.0f) $ x")),
    _p("ReduceWhileSeq", _OCL + "ReduceWhileSeq.scala",
       _on(_V, 'ReduceWhileSeq(add, UserFun("small", Array("a", "x"), "{ return a < 10.0f; }", '
               'Seq(Float, Float), Int), 0.0f) $ x')),
    _p("ReduceWhileSeqUnroll", _OCL + "ReduceWhileSeq.scala",
       _on(_V, 'ReduceWhileSeqUnroll(add, UserFun("small", Array("a", "x"), "{ return a < '
               '10.0f; }", Seq(Float, Float), Int), 0.0f) $ x')),
    _p("ScanSeq", _OCL + "ScanSeq.scala", _on(_V, "ScanSeq(add, 0.0f) $ x")),
    _p("toGlobal", _OCL + "toGlobal.scala", _on(_V, "toGlobal(MapGlb(plusOne)) $ x")),
    _p("toLocal", _OCL + "toLocal.scala", _on(_M, "MapWrg(toLocal(MapLcl(plusOne))) $ x")),
    _p("toPrivate", _OCL + "toPrivate.scala",
       _on(_M, "MapGlb(toPrivate(MapSeq(plusOne))) $ x")),
]


def _i(name: str, example: str, refusal: str = "") -> LiftName:
    return LiftName(name, INDEX_FUNCTION, _AST + "package.scala", example, refusal)


INDEX_FUNCTIONS = [
    _i("reverse", _on(_V, "Gather(reverse) $ x")),
    _i("transposeFunction", _on(_M, 'Split(SizeVar("N")) o Gather(transposeFunction('
                                    'SizeVar("M"), SizeVar("N"))) o Join() $ x')),
    _i("transpose", _on(_V, "Gather(transpose) $ x"),
       "takes its sizes from the array's type"),
    _i("Shift", _on(_V, "Scatter(Shift(1)) o MapGlb(id) $ x")),
    _i("shiftRightGeneric", _on(_V, "Gather(shiftRightGeneric(1)) $ x")),
    _i("shiftRight", _on(_V, "Gather(shiftRight) $ x")),
    _i("shift2Right", _on(_V, "Gather(shift2Right) $ x"), "only Shift(1) (shiftRight) is read"),
    _i("reorderStride", _on("ArrayType(Float, 32)", "Gather(reorderStride(4)) $ x")),
    _i("ReorderWithStride", _on("ArrayType(Float, 32)",
                                "Scatter(ReorderWithStride(4)) o MapGlb(id) $ x")),
]


def _u(name: str, example: str) -> LiftName:
    return LiftName(name, USER_FUNCTION, _IR, example)


_FLOATS = ("absAndSumUp", "add", "doubleItAndSumUp", "mult", "subtract")
USER_FUNCTIONS = [
    _u("id", _map("id")),
    _u("id(T)", _map("id(Int)", _VI)),
    _u("add(T)", _on(_VI, "ReduceSeq(add(Int), 0) $ x")),
    _u("equality(T)", _pairs("MapGlb(fun(p => equality(Int)(p._0, p._1))) $ x", _VI)),
    _u("first(S, T)", _pairs("MapGlb(fun(p => first(Int, Int)(p._0, p._1))) $ x", _VI)),
    _u("max(T)", _pairs("MapGlb(fun(p => max(Float)(p._0, p._1))) $ x")),
    _u("t_id", _pairs("MapGlb(fun(p => addI(p._0, p._1))) o MapSeq(t_id) $ x", _VI)),
    _u("tf_id", _pairs("MapGlb(addTuple) o MapSeq(tf_id) $ x")),
    _u("i_id", _map("i_id", _VI)),
    _u("int_add", _on(_VI, "ReduceSeq(int_add, 0) $ x")),
    _u("idI", _map("idI", _VI)),
    _u("idB", _map("idB", _VB)),
    _u("idfloat", _map("idfloat")),
    _u("iddouble", _map("iddouble", _VD)),
    _u("idF4", _map("idF4", _V4)),
    _u("idFI", _pairs("MapGlb(fun(p => p._0)) o MapSeq(idFI) $ x", _V, _VI)),
    _u("idFF", _pairs("MapGlb(addTuple) o MapSeq(idFF) $ x")),
    *[_u(name, _on(_V, f"ReduceSeq({name}, 0.0f) $ x")) for name in _FLOATS],
    _u("addF4", _on(_V4, 'ReduceSeq(addF4, Value("0.0f", Float4)) $ x')),
    _u("addI", _on(_VI, "ReduceSeq(addI, 0) $ x")),
    _u("adddouble", _on(_VD, "ReduceSeq(adddouble, 0.0) $ x")),
    _u("multI", _on(_VI, "ReduceSeq(multI, 1) $ x")),
    _u("multdouble", _on(_VD, "ReduceSeq(multdouble, 1.0) $ x")),
    *[_u(name, _map(name)) for name in ("plusOne", "sqrtIt", "square", "abs", "neg")],
    _u("multAndSumUp", _pairs("ReduceSeq(fun((acc, p) => multAndSumUp(acc, p._0, p._1)), "
                              "0.0f) $ x")),
    *[_u(name, _pairs(f"MapGlb({name}) $ x"))
      for name in ("multTuple", "addTuple", "subtractTuple")],
    _u("addPair", _pairs("MapSeq(addTuple) o ReduceSeq(addPair, Value(\"{0.0f, 0.0f}\", "
                         "TupleType(Float, Float))) $ x")),
    _u("or", _on(_VB, "ReduceSeq(or, false) $ x")),
    _u("not", _map("not", _VB)),
]


def _t(name: str, t: str, where: str = _TYPES, refusal: str = "") -> LiftName:
    """A type, as the elements of an array copied by a kernel."""
    copy = "MapSeq(id)" if t.startswith("Array") else "id"
    return LiftName(name, TYPE, where, _map(copy, f'ArrayType({t}, SizeVar("N"))'), refusal)


TYPES = [
    *[_t(name, name) for name in ("Float", "Int", "Double", "Bool")],
    _t("Long", "Long", refusal="no 64-bit integer"),
    *[_t(f"{scalar}{width}", f"{scalar}{width}") for scalar in ("Float", "Int", "Double")
      for width in (2, 3, 4, 8, 16)],
    _t("TupleType", "TupleType(Float, Int)", "ir/Type.scala"),
    _t("ArrayType", "ArrayType(Float, 4)", "ir/Type.scala"),
    _t("ArrayTypeWSWC", "ArrayTypeWSWC(Float, 4)", "ir/Type.scala"),
    _t("ArrayTypeWS", "ArrayTypeWS(Float, 4)", "ir/Type.scala"),
    LiftName("ArrayTypeWC", TYPE, "ir/Type.scala",
             "fun(ArrayTypeWC(Float, 1024), x => MapGlb(id) $ x)"),
    LiftName("ArrayTypeWC inside a type", TYPE, "ir/Type.scala",
             _map("MapSeq(id)", 'ArrayType(ArrayTypeWC(Float, 4), SizeVar("N"))'),
             "inside another type"),
    _t("VectorType", "VectorType(Float, 4)", "ir/Type.scala"),
    _t("UndefType", "UndefType", "ir/Type.scala", "not written in programs"),
    _t("NoType", "NoType", "ir/Type.scala", "not written in programs"),
]


def _s(name: str, example: str, refusal: str = "") -> LiftName:
    return LiftName(name, SCALA, "Scala", example, refusal)


SCALA_FORMS = [
    _s("val", 'val N = SizeVar("N")\nval f = ' + _map("plusOne")),
    _s("val (a, b) = e", "val f = " + _map("fun(y => { val (a, b) = (y, 2.0f); mult(a, b) "
                                           "})")),
    _s("def with parameters", "def twice(y: Param) = mult(y, 2.0f)\nval f = "
       + _map("fun(y => twice(y))")),
    _s("def with default arguments", "def scaled(y: Param, k: Float = 2.0f) = mult(y, k)\n"
       "val f = " + _map("fun(y => scaled(y))")),
    _s("_ (placeholder)", f"fun({_V}, {_V}, MapGlb(add(_, 1.0f)) o Map(addTuple) $ Zip(_, _))"),
    _s("o", _on(_V, "Map(plusOne) o Map(neg) $ x")),
    _s("$", _on(_V, "Map(plusOne) $ x")),
    _s(">>>", _on(_V, "(Map(neg) >>> Map(plusOne)) $ x")),
    _s("<<<", _on(_V, "(Map(plusOne) <<< Map(neg)) $ x")),
    _s("<<:", _on(_V, "Map(plusOne) <<: x")),
    _s(":>>", _on(_V, "x :>> Map(plusOne)")),
    _s("fun(...)", _on(_V, "Map(fun(y => add(y, y))) $ x")),
    _s("\\(...)", f"\\({_V}, x => Map(\\(y => add(y, y))) $ x)"),
    _s("λ(...)", f"λ({_V}, x => Map(λ(y => add(y, y))) $ x)"),
    _s("qualified names", _on(_V, "Map(nn.ReLU) o Map(opencl.ir.plusOne) $ x")),
    _s("x._0", _pairs("MapGlb(fun(p => add(p._0, p._1))) $ x")),
    _s("{ val ...; e }", _map("fun(y => { val z = mult(y, y); add(z, 1.0f) })")),
    _s(".at(i)", _on(_V, "Map(fun(w => w.at(1))) o Slide(3, 1) $ x")),
    _s(".vectorize(n)", _on(_V4, "ReduceSeq(add.vectorize(4), Value(0.0f).vectorize(4)) $ x")),
    _s(".apply(...)", _map("fun(y => add.apply(y, y))")),
    _s("Value(text, Float4)", _on(_V4, 'ReduceSeq(addF4, Value("0.0f", Float4)) $ x')),
    _s("Value(text, TupleType)", _pairs('MapSeq(addTuple) o ReduceSeq(addPair, Value('
                                        '"{0.0f, 0.0f}", TupleType(Float, Float))) $ x')),
    _s("Value(text, ArrayType)", _map('fun(y => ReduceSeq(add, y) o MapSeq(id) $ Value('
                                      '"1.0f", ArrayType(Float, 4)))')),
    _s("Value of an array of vectors", _on(_V4, 'MapGlb(fun(y => ReduceSeq(addF4, y) o '
                                                'MapSeq(idF4) $ Value("1.0f", '
                                                'ArrayType(Float4, 4)))) $ x')),
    _s("SizeVar / Var / Cst", "val N = SizeVar(\"N\")\nval K = Var(\"K\")\nval C = Cst(4)\n"
       "val f = fun(ArrayType(ArrayType(Float, C), N), x => Map(Join()) o Map(Split(C)) $ x)"),
    _s("string + string", 'val g = UserFun("g", "x", "{ return x" + " + 1.0f; }", Float, '
       'Float)\nval f = ' + _map("g")),
    _s(".stripMargin", 'val g = UserFun("g", "x", """|{ return x; }""".stripMargin, '
       'Float, Float)\nval f = ' + _map("g")),
    _s("`backquoted names`", "val f = " + _map("fun(y => { val `tile[0]` = y; `tile[0]` })")),
    _s("Array(...) / Seq(...)", "val w = Array(1.0f, 2.0f)\nval f = "
       + _map("fun(y => mult(y, w(1)))")),
    _s("Math.sqrt(...)", "val s = Math.sqrt(4.0f)\nval f = " + _map("fun(y => mult(y, s))")),
    _s("x.toFloat", "val s = 2\nval f = " + _map("fun(y => mult(y, s.toFloat))")),
    _s("x.toInt", "val s = Math.pow(2, 2).toInt\nval f = "
       + _on(_V, "Join() o MapGlb(MapSeq(plusOne)) o Split(s) $ x")),
    _s("Clamp (import Pad.Boundary._)", _on(_V, "MapGlb(id) o Pad(1, 1, Clamp) $ x")),
    _s("FunCall(Tuple(2), ...) as Lift prints", "fun(" + _V + ", " + _V + ", (p_0, p_1) => "
       "FunCall(MapGlb(fun((p_2) => FunCall(addTuple, FunCall(Tuple(2), FunCall(Get(0), p_2), "
       "FunCall(Get(1), p_2))))), FunCall(Zip(2), p_0, p_1)))"),
    _s("setScalaFun", 'val g = UserFun("g", "x", "{ return x; }", Float, Float)'
       '.setScalaFun(xs => xs.head)\nval f = ' + _map("g")),
]

NAMES: list[LiftName] = PATTERNS + INDEX_FUNCTIONS + USER_FUNCTIONS + TYPES + SCALA_FORMS

# The programs that read and evaluate but that the code generator refuses today, with (a
# part of) its reason; every other program that reads runs on the default device and
# computes what the interpreter does (``tests/test_lift_surface.py`` runs them all).
CODE_REFUSED = {
    "Value of an array of vectors": "the elements of a vector are not contiguous in memory",
}


# --- reading them ----------------------------------------------------------------------------

def read(entry: LiftName) -> Reading:
    """Read an entry's program: the expression it reads to, or the reader's refusal."""
    from .lift import parse_lift_program

    text = entry.example
    if not text.startswith(("val ", "def ")):
        text = f"val f = {text}"
    try:
        program = parse_lift_program(text)
    except ParseError as err:
        return Reading(entry, refused=err.reason)
    return Reading(entry, reads_to=str(program[list(program)[-1]]))


def readings() -> list[Reading]:
    return [read(entry) for entry in NAMES]


_HEADINGS = {PATTERN: "Patterns", INDEX_FUNCTION: "Index functions",
             USER_FUNCTION: "User functions of Lift's library", TYPE: "Types",
             SCALA: "Scala forms"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    """Text as Markdown code in a table cell: one line (a program's lines joined by ``;``,
    as Scala allows), and a name in backquotes inside double ones."""
    text = _cell(text.replace("\n", "; "))
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def markdown() -> str:
    """The table: one section per kind, one row per name."""
    lines = []
    all_readings = readings()
    for kind in KINDS:
        rows = [r for r in all_readings if r.entry.kind == kind]
        read_count = sum(1 for r in rows if r.reads_to is not None)
        runs = sum(1 for r in rows if r.reads_to is not None and
                   r.entry.name not in CODE_REFUSED)
        lines += [f"### {_HEADINGS[kind]} ({read_count} of {len(rows)} read, {runs} run)", "",
                  "| name | in Lift | example | reads to | code |", "|---|---|---|---|---|"]
        for r in rows:
            e = r.entry
            where = e.where if e.where == "Scala" else f"`{e.where}`"
            result = _code(r.reads_to) if r.reads_to is not None else \
                f"refused: {_cell(r.refused or '')}"
            code = "—" if r.reads_to is None else \
                f"refused: {_cell(CODE_REFUSED[e.name])}" if e.name in CODE_REFUSED else "runs"
            lines.append(f"| {_code(e.name)} | {where} | {_code(e.example)} | {result} "
                         f"| {code} |")
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    sys.stdout.write(markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())

# ruff: noqa: E501  (the programs keep the lines of the tests they are copied from)
"""Programs copied from Lift's test suite (``lift-project/lift``, GitHub snapshot 5e8a18df,
``src/test/…``), each with the test it comes from, the sizes that test runs it at, and
its expected result in NumPy.

The program text is the test's ``fun(...)`` (and the ``val``s it uses) as written there;
where a test builds it with a Scala helper (``createSimple2DStencil(3, 1, 1, 1, ...)``,
``testCombinationPadSlide(...)``) the helper's body is taken with the test's arguments in
place, and a helper function of the test class (``incrementF``) is written as a ``val``.
"""

from dataclasses import dataclass, field

import numpy as np

G = "src/test/opencl/generator/"


@dataclass(frozen=True)
class LiftTest:
    name: str  # the test method
    source: str  # the file it is in
    program: str  # Lift program text; the definition used is ``f``
    inputs: tuple  # per input: (dtype, shape) or a fixed value; ("pair", shape): two arrays
    gold: object  # NumPy: inputs -> expected output
    values: dict = field(default_factory=dict)  # fixed inputs by position

    @property
    def provenance(self) -> str:
        return f"{self.source}: {self.name}"


def _stencil1d(x, weights, left, right, mode):
    padded = np.pad(x, (left, right), mode={"clamp": "edge", "wrap": "wrap"}[mode])
    size = len(weights)
    windows = np.lib.stride_tricks.sliding_window_view(padded, size)
    return windows @ weights


def _neighbourhoods(x, size, left, right, mode):
    padded = np.pad(x, (left, right), mode={"clamp": "edge", "wrap": "wrap"}[mode])
    return np.lib.stride_tricks.sliding_window_view(padded, size).reshape(-1)


def _stencil2d(m, weights, size, pad):
    padded = np.pad(m, pad, mode="edge")
    windows = np.lib.stride_tricks.sliding_window_view(padded, (size, size))
    return np.einsum("ijab,ab->ij", windows, weights.reshape(size, size))


GAUSS = np.array([0.08, 0.12, 0.08, 0.12, 0.20, 0.12, 0.08, 0.12, 0.08], np.float32)
GAUSS25 = (np.array([1, 4, 7, 4, 1, 4, 16, 26, 16, 4, 7, 26, 41, 26, 7, 4, 16, 26, 16, 4,
                     1, 4, 7, 4, 1], np.float32) * np.float32(0.004219409282700422))

TESTS = [
    # --- vectors -----------------------------------------------------------------------------
    LiftTest("TestVector.VECTOR_ADD_SIMPLE", G + "TestVector.scala", '''
val N = SizeVar("N")
val f = fun(
  ArrayTypeWSWC(Float, N),
  ArrayTypeWSWC(Float, N),
  (left, right) =>
    Join() o MapWrg(
      Join() o  MapLcl(MapSeq(add)) o Split(4)
    ) o Split(1024) $ Zip(left, right)
)''', (("float", (1024,)), ("float", (1024,))), lambda a, b: a + b),
    LiftTest("TestVector.VECTOR_NEG_SIMPLE", G + "TestVector.scala", '''
val f = fun(ArrayTypeWSWC(Float, SizeVar("N")), (input) =>
  Join() o MapWrg(
    Join() o  MapLcl(MapSeq(neg)) o Split(4)
  ) o Split(1024) $ input
)''', (("float", (1024,)),), lambda x: -x),
    LiftTest("TestVector.VECTOR_NEG_SIMPLE_GLOBAL_ID", G + "TestVector.scala", '''
val f = fun(
  ArrayTypeWSWC(Float, SizeVar("N")),
  (input) => Join() o MapGlb(
    MapSeq(neg)
  ) o Split(4) $ input
)''', (("float", (1024,)),), lambda x: -x),
    LiftTest("TestVector.VECTOR_NEG_SIMPLE_GLOBAL_ID_REORDER_REVERSE", G + "TestVector.scala", '''
val f = fun(ArrayTypeWSWC(Float, SizeVar("N")), (input) =>
  Join() o MapGlb(
    MapSeq(neg)
  ) o Split(4) o Gather(reverse) $ input
)''', (("float", (1024,)),), lambda x: -x[::-1]),
    LiftTest("TestVector.VECTOR_SCAL_REDUCE", G + "TestVector.scala", '''
val f = fun( ArrayTypeWSWC(Float, SizeVar("N")), Float, (input, alpha) =>
  Join() o MapWrg(
    Join() o  MapLcl(toGlobal(MapSeq(id)) o ReduceSeq(add, 0.0f) o MapSeq(
      fun( x => mult(alpha, x) )
    )) o Split(4)
  ) o Split(1024) $ input
)''', (("float", (2048,)), ("float", ())), lambda x, a: (a * x).reshape(-1, 4).sum(1),
             values={1: np.float32(2.5)}),
    LiftTest("TestVector.VECTOR_NORM", G + "TestVector.scala", '''
val f = fun(
  ArrayTypeWSWC(Float, SizeVar("N")),
  (input) => {
    Join() o MapWrg(
      Join() o  toGlobal(MapLcl(MapSeq(sqrtIt))) o Split(1) o
      Iterate(5)(
        Join() o  MapLcl(toLocal(MapSeq(id)) o ReduceSeq(add, 0.0f)) o Split(2)
      ) o Join() o
      toLocal(MapLcl(toLocal(MapSeq(id)) o ReduceSeq(doubleItAndSumUp, 0.0f))) o Split(32) o
      ReorderStride(1024/32)
    ) o Split(1024) $ input
})''', (("float", (1024,)),), lambda x: np.sqrt([np.sum(x * x)])),
    LiftTest("TestVector.addArrayOfVectors", G + "TestVector.scala", '''
val f = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, SizeVar("M")), SizeVar("N")),
  input => MapGlb(toGlobal(MapSeq(id)) o ReduceSeq(add, 0.0f)) o Transpose() $ input
)''', (("float", (1024, 1024)),), lambda m: m.sum(axis=0)),
    LiftTest("TestMisc.mapValueArg", G + "TestMisc.scala", '''
val N = SizeVar("N")
val f = fun(
  ArrayTypeWSWC(Float, N),
  (input) =>
    MapGlb(fun(x => add(x, 3.0f))) $ input
)''', (("float", (1024,)),), lambda x: x + 3),
    LiftTest("TestMisc.composeUserFunctionWithPattern", G + "TestMisc.scala", '''
val f = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, SizeVar("N")), SizeVar("M")),
  (input) => MapGlb(toGlobal(MapSeq(neg)) o ReduceSeq(add, 0.0f)) $ input
)''', (("float", (512, 512)),), lambda m: -m.sum(axis=1, keepdims=True)),
    LiftTest("TestMisc.vectorize", G + "TestMisc.scala", '''
val f = fun(
  ArrayTypeWSWC(Float, SizeVar("N")),
  in => asScalar() o MapGlb(plusOne.vectorize(4)) o asVector(4) $ in
)''', (("float", (512,)),), lambda x: x + 1),
    LiftTest("TestMisc.asVectorFollowedByAsScalar", G + "TestMisc.scala", '''
val f = fun(
  ArrayTypeWSWC(Float, SizeVar("N")),
  in => MapGlb(plusOne) o asScalar() o asVector(4) $ in
)''', (("float", (512,)),), lambda x: x + 1),
    LiftTest("TestMisc.joinThenSplit2D", G + "TestMisc.scala", '''
val N = SizeVar("N")
val M = SizeVar("M")
val f = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, M), N),
  (matrix) => Split(128) o MapGlb(0)(id) o Join() $ matrix
)''', (("float", (256, 128)),), lambda m: m),
    # --- tuples --------------------------------------------------------------------------------
    LiftTest("TestTuple.MAKE_TUPLE_FROM_ZIP_EXPLICIT", G + "TestTuple.scala", '''
val makeTupleFromZip = UserFun("id",
  Array("x", "y"), "{ Tuple t = {x, y}; return t; }",
  Seq(Float, Float),
  TupleType(Float, Float))
val N = SizeVar("N")
val f = fun(
  ArrayTypeWSWC(Float, N),
  ArrayTypeWSWC(Float, N),
  (a,b) => {
    toGlobal(MapGlb(makeTupleFromZip)) $ Zip(a, b)
  }
)''', (("float", (1024,)), ("float", (1024,))), lambda a, b: (a, b)),
    LiftTest("TestTuple.VECTOR_NEG_PAIR", G + "TestTuple.scala", '''
val negPair = UserFun("pair", "x", "{ x._0 = -x._0; x._1 = -x._1; return x; }",
  TupleType(Float, Float), TupleType(Float, Float))
val f = fun(ArrayTypeWSWC(TupleType(Float, Float), SizeVar("N")), (input) =>
  Join() o MapWrg(
    Join() o  MapLcl(MapSeq(fun(x => negPair(x)))) o Split(4)
  ) o Split(1024) $ input
)''', (("pair", (1024,)),), lambda p: (-p[0], -p[1])),
    LiftTest("TestTuple.VECTOR_ADD_PAIRS", G + "TestTuple.scala", '''
val N = SizeVar("N")
val f = fun(
  ArrayTypeWSWC(TupleType(Float, Float), N),
  ArrayTypeWSWC(TupleType(Float, Float), N),
  (left, right) =>
    Join() o MapWrg(
      Join() o  MapLcl(MapSeq(addPair)) o Split(4)
    ) o Split(1024) $ Zip(left, right)
)''', (("pair", (1024,)), ("pair", (1024,))), lambda a, b: (a[0] + b[0], a[1] + b[1])),
    LiftTest("TestTuple.sumOverTuples", G + "TestTuple.scala", '''
val N = SizeVar("N")
val f = fun(
  ArrayTypeWSWC(TupleType(Float, Float), N),
  input => toGlobal(MapSeq(idFF)) o ReduceSeq(addPair, (0.0f, 0.0f)) $ input
)''', (("pair", (512,)),), lambda p: ([p[0].sum()], [p[1].sum()])),
    # --- reductions ------------------------------------------------------------------------
    LiftTest("TestReduce.reduceParamInitial", G + "TestReduce.scala", '''
val f = fun (
  ArrayTypeWSWC(Float, SizeVar("N")),
  Float,
  (in, init) => {
  Join() o MapWrg(
    Join() o  MapLcl(toGlobal(MapSeq(id)) o ReduceSeq(add, init)) o Split(4)
  ) o Split(128) $ in
})''', (("float", (1024,)), ("float", ())), lambda x, z: x.reshape(-1, 4).sum(1) + z,
             values={1: np.float32(0.0)}),
    LiftTest("TestReduce.reduceIdParamInitial", G + "TestReduce.scala", '''
val f = fun (ArrayTypeWSWC(Float, SizeVar("N")),
  Float,
  (in, init) => {
    Join() o MapWrg(
      Join() o  MapLcl(toGlobal(MapSeq(id)) o ReduceSeq(add, id(init))) o Split(4)
    ) o Split(128) $ in
  })''', (("float", (1024,)), ("float", ())), lambda x, z: x.reshape(-1, 4).sum(1) + z,
             values={1: np.float32(0.0)}),
    LiftTest("TestReduce.reduceIdValueInitial", G + "TestReduce.scala", '''
val f = fun (ArrayTypeWSWC(Float, SizeVar("N")),
  in => {
    Join() o MapWrg(
      Join() o  MapLcl(toGlobal(MapSeq(id)) o
                                  ReduceSeq(add, id(0.0f))) o Split(4)
    ) o Split(128) $ in
  })''', (("float", (1024,)),), lambda x: x.reshape(-1, 4).sum(1)),
    LiftTest("TestReduce.SIMPLE_REDUCE_FIRST", G + "TestReduce.scala", '''
val f = fun (ArrayTypeWSWC(Float, SizeVar("N")), (in) => {
  Join() o MapWrg(
    Join() o  MapLcl(toGlobal(MapSeq(id)) o ReduceSeq(add, 0.0f)) o Split(2048)
  ) o Split(262144) $ in
} )''', (("float", (4194304,)),), lambda x: x.reshape(-1, 2048).sum(1)),
    LiftTest("TestReduce.SIMPLE_REDUCE_SECOND", G + "TestReduce.scala", '''
val f = fun(ArrayTypeWSWC(Float, SizeVar("N")), (in) => {
    Join() o Join() o  MapWrg(
       MapLcl(toGlobal(MapSeq(id)) o ReduceSeq(add, 0.0f))
    ) o Split(128) o Split(2048) $ in
  })''', (("float", (4194304,)),), lambda x: x.reshape(-1, 2048).sum(1)),
    LiftTest("TestReduce.NVIDIA_A", G + "TestReduce.scala", '''
val f = fun(ArrayTypeWSWC(Float, SizeVar("N")), (in) => {
  Join() o MapWrg(
    Join() o  toGlobal(MapLcl(MapSeq(id))) o Split(1) o
      Iterate(7)(
        Join() o  MapLcl(toLocal(MapSeq(id)) o ReduceSeq(add, 0.0f)) o Split(2)
      ) o Join() o  toLocal(MapLcl(MapSeq(id))) o Split(1)
  ) o Split(128) $ in
})''', (("float", (1024,)),), lambda x: x.reshape(-1, 128).sum(1)),
    LiftTest("TestReduce.NVIDIA_B", G + "TestReduce.scala", '''
val f = fun(ArrayTypeWSWC(Float, SizeVar("N")), (in) => {
  Join() o MapWrg(
    Join() o  toGlobal(MapLcl(MapSeq(id))) o Split(1) o
    Iterate(7)(
      Join() o  MapLcl(toLocal(MapSeq(id)) o ReduceSeq(add, 0.0f)) o Split(2)
    ) o Join() o  toLocal(MapLcl(toLocal(MapSeq(id)) o ReduceSeq(add, 0.0f))) o
    Split(2)
  ) o Split(256) $ in
})''', (("float", (1024,)),), lambda x: x.reshape(-1, 256).sum(1)),
    LiftTest("TestReduce.NVIDIA_C_NO_WARPS", G + "TestReduce.scala", '''
val f = fun(
  ArrayTypeWSWC(Float, SizeVar("N")),
  (in) => {
    Join() o MapWrg(
      Join() o  toGlobal(MapLcl(MapSeq(id))) o Split(1) o
      Iterate(7)(
        Join() o  MapLcl(toLocal(MapSeq(id)) o ReduceSeq(add, 0.0f)) o Split(2)
      ) o Join() o  toLocal(MapLcl(toLocal(MapSeq(id)) o ReduceSeq(add, 0.0f))) o
    Split(2048) o ReorderStride(262144 / 2048)
  ) o Split(262144) $ in
  })''', (("float", (16777216,)),), lambda x: x.reshape(-1, 262144).sum(1)),
    # --- iterate ---------------------------------------------------------------------------
    LiftTest("TestIterate.issue20", G + "TestIterate.scala", '''
val incrementF = fun(Float, x => add(Float).apply(1f, x))
val f = fun(
  ArrayType(Float, SizeVar("N")),
  (inArr) => {
    Join() o MapGlb(
      Iterate(5)(fun((e) => MapSeq(incrementF) $ e))
    ) o Split(1) $ inArr
  }
)''', (("float", (1024,)),), lambda x: x + 5),
    LiftTest("TestIterate.issue20 (f2)", G + "TestIterate.scala", '''
val incrementF = fun(Float, x => add(Float).apply(1f, x))
val f = fun(
  ArrayType(Float, SizeVar("N")),
  (inArr) => {
    Iterate(5)(fun((arr) =>
      MapGlb(incrementF) $ arr
    )) $ inArr
  }
)''', (("float", (1024,)),), lambda x: x + 5),
    LiftTest("TestIterate.iterate", G + "TestIterate.scala", '''
val incrementF = fun(Float, x => add(Float).apply(1f, x))
val f = fun(
  ArrayType(Float, SizeVar("N")),
  in => Iterate(7)(MapGlb(incrementF)) $ in
)''', (("float", (512,)),), lambda x: x + 7),
    LiftTest("TestIterate.iterateLocalOnly", G + "TestIterate.scala", '''
val incrementF = fun(Float, x => add(Float).apply(1f, x))
val f = fun(
  ArrayType(Float, SizeVar("N")),
  in => Join() o MapWrg(toGlobal(MapLcl(id)) o
    Iterate(5)( MapLcl(incrementF)) o
    toLocal(MapLcl(id))) o Split(16) $ in
)''', (("float", (512,)),), lambda x: x + 5),
    LiftTest("TestIterate.IterateAfterGet", G + "TestIterate.scala", '''
val incrementI = fun(Int, x => add(Int).apply(1, x))
val f = fun(
  ArrayType(Int, 128),
  ArrayType(Int, 128),
  (v, w) =>
    Join() o MapGlb(
      Iterate(5)(MapSeq(incrementI)) o Get(0)
    ) $ Zip(Split(32) $ v, Split(32) $ w)
)''', (("int", (128,)), ("int", (128,))), lambda v, w: v + 5),
    # --- scatter and gather ----------------------------------------------------------------
    LiftTest("TestScatterGather.testScatterGlb1D", G + "TestScatterGather.scala", '''
val f = fun(
  ArrayTypeWSWC(Float, SizeVar("N")),
  in => Scatter(reverse) o MapGlb(id) $ in
)''', (("float", (128,)),), lambda x: x[::-1]),
    LiftTest("TestScatterGather.testScatterGlbSeqInnerDim", G + "TestScatterGather.scala", '''
val f = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, SizeVar("M")), SizeVar("N")),
  in => MapGlb(Scatter(reverse) o MapSeq(id)) $ in
)''', (("float", (128, 64)),), lambda m: m[:, ::-1]),
    LiftTest("TestScatterGather.testGatherGlbSeqBothDims", G + "TestScatterGather.scala", '''
val f = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, SizeVar("M")), SizeVar("N")),
  in => MapGlb(MapSeq(id) o Gather(reverse)) o Gather(reverse) $ in
)''', (("float", (128, 64)),), lambda m: m[::-1, ::-1]),
    LiftTest("TestScatterGather.testGatherWrgLclBothDims", G + "TestScatterGather.scala", '''
val f = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, SizeVar("M")), SizeVar("N")),
  in => MapWrg( MapLcl(id) o Gather(reverse)) o Gather(reverse) $ in
)''', (("float", (128, 64)),), lambda m: m[::-1, ::-1]),
    LiftTest("TestScatterGather.scatterBetweenMaps2", G + "TestScatterGather.scala", '''
val f = fun(
  ArrayTypeWSWC(Float, SizeVar("N")),
  in => MapGlb(MapSeq(id) o Scatter(reverse)) o MapGlb(Scatter(reverse) o MapSeq(id)) o Split(64) $ in
)''', (("float", (256,)),), lambda x: x.reshape(-1, 64)),
    # --- transpose -------------------------------------------------------------------------
    LiftTest("TestTranspose.transposeMatrixOnWrite", G + "TestTranspose.scala", '''
val N = SizeVar("N")
val M = SizeVar("M")
val f = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, M), N),
  (matrix) => {
    TransposeW() o MapGlb(0)(MapGlb(1)(id)) $ matrix
  })''', (("float", (12, 8)),), lambda m: m.T),
    LiftTest("TestTranspose.transposeMatrix3DInnerOnWrite", G + "TestTranspose.scala", '''
val N = SizeVar("N")
val M = SizeVar("M")
val K = SizeVar("K")
val f = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(ArrayTypeWSWC(Float, K), M), N),
  (matrix) => {
      MapGlb(0)(
        TransposeW() o MapGlb(1)(
          MapSeq(id)
        )
      ) $ matrix
  })''', (("float", (8, 4, 2)),), lambda m: m.transpose(0, 2, 1)),
    LiftTest("TestTranspose.transposeWrite2Dims", G + "TestTranspose.scala", '''
val f = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(ArrayTypeWSWC(Float, SizeVar("N")), SizeVar("M")), SizeVar("L")),
  input => TransposeW() o MapWrg(TransposeW() o MapLcl(MapSeq(id))) $ input
)''', (("float", (2, 4, 8)),), lambda m: m.transpose(0, 2, 1).transpose(1, 0, 2)),
    LiftTest("TestTranspose.idTranspose", G + "TestTranspose.scala", '''
val f = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(ArrayTypeWSWC(Float, SizeVar("N")), SizeVar("M")), SizeVar("L")),
  input => MapWrg(
    toGlobal(MapLcl(MapSeq(id))) o
      Transpose() o TransposeW() o
      toLocal(MapLcl(MapSeq(id)))
  ) $ input
)''', (("float", (2, 4, 8)),), lambda m: m),
    # --- matrix-vector ---------------------------------------------------------------------
    LiftTest("TestMatrixVector.MATRIX_VECTOR_FIXED_SIZE",
             G + "matrixVector/TestMatrixVector.scala", '''
val f = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, 1024), 1024),
  ArrayTypeWSWC(Float, 1024),
  (matrix, vector) => {
    Join() o MapWrg(
       MapLcl( fun( (r) => toGlobal(MapSeq(id)) o ReduceSeq(add, 0.0f) o MapSeq(mult) $ Zip(vector, r) ) )
    ) o Split(128) $ matrix
  })''', (("float", (1024, 1024)), ("float", (1024,))), lambda m, v: m @ v),
    LiftTest("TestMatrixVector.MATRIX_VECTOR", G + "matrixVector/TestMatrixVector.scala", '''
val N = SizeVar("N")
val f = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, N), SizeVar("M")),
  ArrayTypeWSWC(Float, N),
  (matrix, vector) => {
    Join() o MapWrg(
       MapLcl( fun( (r) => toGlobal(MapSeq(id)) o ReduceSeq(add, 0.0f) o MapSeq(mult) $ Zip(vector, r) ) )
    ) o Split(128) $ matrix
  })''', (("float", (4096, 4096)), ("float", (4096,))), lambda m, v: m @ v),
    LiftTest("TestMatrixVector.MATRIX_VECTOR_LOCAL_MEMORY_FUSED",
             G + "matrixVector/TestMatrixVector.scala", '''
val N = SizeVar("N")
val M = SizeVar("M")
val f = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, N), M),
  ArrayTypeWSWC(Float, N),
  (matrix, vector) => {
    MapWrg(
      Join() o
        toGlobal(MapLcl(toGlobal(MapSeq(id)) o ReduceSeq(add, 0.0f))) o
        Split(N /^ 32) o
        Join() o
        toLocal(MapLcl(
          toLocal(MapSeq(id)) o
            ReduceSeq(fun((acc, y) => multAndSumUp.apply(acc, Get(y, 0), Get(y, 1))), 0.0f))
        ) o
        Split(32) o ReorderStride(N/^32) o fun( r => Zip(vector, r) )
    ) $ matrix
  })''', (("float", (4096, 4096)), ("float", (4096,))), lambda m, v: (m @ v)[:, None]),
    # --- matrix-matrix ---------------------------------------------------------------------
    LiftTest("Basic.MATRIX_MATRIX_SIMPLE", G + "matrixMultiplication/Basic.scala", '''
val N = SizeVar("N")
val M = SizeVar("M")
val K = SizeVar("K")
val f = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, K), M),
  ArrayTypeWSWC(ArrayTypeWSWC(Float, K), N),
  (A, B) => {
    MapWrg(fun( Arow =>
      Join() o  MapLcl(fun( Bcol =>
        toGlobal(MapSeq(id)) o ReduceSeq(fun((acc, y) => multAndSumUp.apply(acc, Get(y, 0), Get(y, 1))), 0.0f) $ Zip(Arow, Bcol)
      )) $ B
    )) $ A
  })''', (("float", (256, 64)), ("float", (512, 64))), lambda a, bt: a @ bt.T),
    LiftTest("Basic.MATRIX_MATRIX_SIMPLER", G + "matrixMultiplication/Basic.scala", '''
val N = SizeVar("N")
val M = SizeVar("M")
val K = SizeVar("K")
val f = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, K), M),
  ArrayTypeWSWC(ArrayTypeWSWC(Float, K), N),
  (A, B) => {
    MapGlb(fun( Arow =>
      MapSeq(fun( Bcol =>
        toGlobal(MapSeq(id)) o ReduceSeq(add, 0.0f) o MapSeq(mult)  $ Zip(Arow, Bcol)
      )) $ B
    )) $ A
  })''', (("float", (64, 128)), ("float", (256, 128))), lambda a, bt: (a @ bt.T)[..., None]),
    LiftTest("Basic.MATRIX_MATRIX_2D_GLOBAL_ID", G + "matrixMultiplication/Basic.scala", '''
val N = SizeVar("N")
val M = SizeVar("M")
val K = SizeVar("K")
val f = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, K), M),
  ArrayTypeWSWC(ArrayTypeWSWC(Float, K), N), // this is already transposed
  (A, B) => {
    MapGlb(0)(fun( Arow =>
      MapGlb(1)(fun( Bcol =>
        toGlobal(MapSeq(id)) o ReduceSeq(fun((acc, y) => multAndSumUp.apply(acc, Get(y, 0), Get(y, 1))), 0.0f) $ Zip(Arow, Bcol)
      )) $ B
    )) $ A
  })''', (("float", (512, 512)), ("float", (512, 512))), lambda a, bt: (a @ bt.T)[..., None]),
    LiftTest("Basic.MATRIX_MATRIX_2D_TEST", G + "matrixMultiplication/Basic.scala", '''
val N = SizeVar("N")
val M = SizeVar("M")
val K = SizeVar("K")
val f = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, K), M),
  ArrayTypeWSWC(ArrayTypeWSWC(Float, K), N), // this is already transposed
  (A, B) => {
    Join() o MapWrg(0)(fun( aRows =>
      TransposeW() o Join() o MapWrg(1)(fun( bCols =>
        MapLcl(0)(fun( bCol =>
          MapLcl(1)(fun( aRow =>
            toGlobal(MapSeq(id)) o ReduceSeq(fun((acc, y) => multAndSumUp.apply(acc, Get(y, 0), Get(y, 1))), 0.0f) $ Zip(aRow, bCol)
          )) $ aRows
        )) $ bCols
      )) o Split(4) $ B
    )) o Split(2) $ A
  })''', (("float", (8, 8)), ("float", (8, 8))), lambda a, bt: (a @ bt.T)[..., None]),
    LiftTest("Basic.addArrayOfMatrices", G + "matrixMultiplication/Basic.scala", '''
val f = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(ArrayTypeWSWC(Float, SizeVar("M")), SizeVar("K")), SizeVar("N")),
  input => {
    MapGlb(0)(MapGlb(1)(toGlobal(MapSeq(id)) o ReduceSeq(add, 0.0f)) o Transpose()) o
      Transpose() $ input
  }
)''', (("float", (16, 16, 16)),), lambda m: m.sum(axis=0)[..., None]),
    LiftTest("Tiled.tiledMatrixMultiply", G + "matrixMultiplication/Tiled.scala", '''
val N = SizeVar("N")
val M = SizeVar("M")
val K = SizeVar("K")
val f = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, K), M),
  ArrayTypeWSWC(ArrayTypeWSWC(Float, K), N),
  (A, B) => {
    // Undo the tiling
    Untile2D() o
    MapWrg(0)(fun( aRows =>
      MapWrg(1)(fun( bCols =>

        // Reduce the partial results (matrices), so that the reduce is innermost
         MapLcl(0)(Join() o MapLcl(1)(toGlobal(MapSeq(id)) o ReduceSeq(add, 0.0f) o Join()) o Transpose()) o Transpose() o

        // Multiply all necessary combinations of tiles
        MapSeq(fun( tiles =>
           MapLcl(0)( fun(aTile =>
            MapLcl(1)( fun( bTile =>
              toGlobal(MapSeq(id)) o ReduceSeq(fun((acc, y) => multAndSumUp.apply(acc, Get(y, 0), Get(y, 1))), 0.0f) $ Zip(aTile, bTile)
            )) $ Get(tiles, 1)
          )) $ Get(tiles, 0)
        )) $ Zip(aRows, bCols)

      // Tile the matrices
      )) o Tile(4) $ B
    )) o Tile(4) $ A
  })''', (("float", (16, 16)), ("float", (16, 16))), lambda a, bt: a @ bt.T),
    # --- 1-D stencils ----------------------------------------------------------------------
    LiftTest("TestStencil.simple3Point1DStencil", G + "stencil/TestStencil.scala", '''
val BOUNDARY = Pad.Boundary.Clamp
val f = fun(
  ArrayType(Float, Var("N", StartFromRange(2))),
  ArrayType(Float, 3),
  (input, weights) => {
    MapGlb(
      fun(neighbourhood => {
        toGlobal(MapSeqUnroll(id)) o
          ReduceSeqUnroll(fun((acc, y) => {
            multAndSumUp.apply(acc, Get(y, 0), Get(y, 1))
          }), 0.0f) $
          Zip(weights, neighbourhood)
      })
    ) o Slide(3, 1) o Pad(1, 1, BOUNDARY) $ input
  }
)''', (("float", (1024,)), ("float", (3,))),
             lambda x, w: _stencil1d(x, w, 1, 1, "clamp")[:, None],
             values={1: np.array([1, 2, 1], np.float32)}),
    LiftTest("TestStencil.simple5Point1DStencil", G + "stencil/TestStencil.scala", '''
val BOUNDARY = Pad.Boundary.Clamp
val f = fun(
  ArrayType(Float, Var("N", StartFromRange(3))),
  ArrayType(Float, 5),
  (input, weights) => {
    MapGlb(
      fun(neighbourhood => {
        toGlobal(MapSeqUnroll(id)) o
          ReduceSeqUnroll(add, 0.0f) o
          MapSeqUnroll(mult) $
          Zip(weights, neighbourhood)
      })
    ) o Slide(5, 1) o Pad(2, 2, BOUNDARY) $ input
  }
)''', (("float", (1024,)), ("float", (5,))),
             lambda x, w: _stencil1d(x, w, 2, 2, "clamp")[:, None],
             values={1: np.array([1, 2, 3, 2, 1], np.float32)}),
    LiftTest("TestStencil.create3PointNbhsUsingWrap", G + "stencil/TestStencil.scala", '''
val f = fun(
  ArrayType(Float, Var("N", StartFromRange(2))),
  (input) => MapGlb(MapSeqUnroll(id)) o Slide(3, 1) o Pad(1, 1, Pad.Boundary.Wrap) $ input
)''', (("float", (5,)),), lambda x: _neighbourhoods(x, 3, 1, 1, "wrap").reshape(-1, 3)),
    LiftTest("TestStencil.create5PointNeighborhoodsUsingClamp", G + "stencil/TestStencil.scala",
             '''
val f = fun(
  ArrayType(Float, Var("N", StartFromRange(2))),
  (input) => MapGlb(MapSeqUnroll(id)) o Slide(5, 1) o Pad(2, 2, Pad.Boundary.Clamp) $ input
)''', (("float", (5,)),), lambda x: _neighbourhoods(x, 5, 2, 2, "clamp").reshape(-1, 5)),
    LiftTest("TestStencil.multiInput1D", G + "stencil/TestStencil.scala", '''
val BOUNDARY = Pad.Boundary.Clamp
val f = fun(
  ArrayType(Float, SizeVar("N")),
  ArrayType(Float, 3),
  (input, weights) => {

    Join() o
      MapGlb(
        fun(tuple => {
          toGlobal(MapSeqUnroll(id)) o
            ReduceSeqUnroll(
              fun((acc, y) => {
                multAndSumUp.apply(acc, Get(y, 0), Get(y, 1))
              }), 0.0f) $
            Zip(weights, Get(tuple, 0))
        })

      ) $ Zip(
        Slide(3, 1) o Pad(1, 1, BOUNDARY) $ input,
        input)
  }
)''', (("float", (1024,)), ("float", (3,))), lambda x, w: _stencil1d(x, w, 1, 1, "clamp"),
             values={1: np.array([1, 2, 1], np.float32)}),
    # --- 2-D stencils ----------------------------------------------------------------------
    LiftTest("TestStencil2D.gaussianBlur", G + "stencil/TestStencil2D.scala", '''
val BOUNDARY = Pad.Boundary.Clamp
val f = fun(
  ArrayType(ArrayType(Float, Var("N", StartFromRange(2))), Var("M", StartFromRange(2))),
  ArrayType(Float, 9),
  (matrix, weights) => {
    MapGlb(1)(
      MapGlb(0)(fun(neighbours => {
        toGlobal(MapSeqUnroll(id)) o
          ReduceSeqUnroll(fun((acc, pair) => {
            val pixel = Get(pair, 0)
            val weight = Get(pair, 1)
            multAndSumUp.apply(acc, pixel, weight)
          }), 0.0f) $ Zip(Join() $ neighbours, weights)
      }))
    ) o Slide2D(3, 1, 3, 1) o Pad2D(1, 1, 1, 1, BOUNDARY) $ matrix
  })''', (("float", (32, 32)), ("float", (9,))),
             lambda m, w: _stencil2d(m, w, 3, 1)[..., None], values={1: GAUSS}),
    LiftTest("TestStencil2D.gaussianBlur25PointStencil", G + "stencil/TestStencil2D.scala", '''
val BOUNDARY = Pad.Boundary.Clamp
val f = fun(
  ArrayType(ArrayType(Float, Var("N", StartFromRange(3))), Var("M", StartFromRange(3))),
  ArrayType(Float, 25),
  (matrix, weights) => {
    MapGlb(1)(
      MapGlb(0)(fun(neighbours => {
        toGlobal(MapSeqUnroll(id)) o
          ReduceSeqUnroll(fun((acc, pair) => {
            val pixel = Get(pair, 0)
            val weight = Get(pair, 1)
            multAndSumUp.apply(acc, pixel, weight)
          }), 0.0f) $ Zip(Join() $ neighbours, weights)
      }))
    ) o Slide2D(5, 1, 5, 1) o Pad2D(2, 2, 2, 2, BOUNDARY) $ matrix
  })''', (("float", (32, 32)), ("float", (25,))),
             lambda m, w: _stencil2d(m, w, 5, 2)[..., None], values={1: GAUSS25}),
    LiftTest("TestStencil2D.groupClampPaddedData2D", G + "stencil/TestStencil2D.scala", '''
val f = fun(
  ArrayType(ArrayType(Float, SizeVar("M")), SizeVar("N")),
  (domain) => {
    MapGlb(1)(
      MapGlb(0)(fun(neighbours =>
        MapSeqUnroll(MapSeqUnroll(id)) $ neighbours
      ))
    ) o Slide2D(3, 1) o Pad2D(1, 1, Pad.Boundary.Clamp) $ domain
  }
)''', (("float", (4, 4)),), lambda m: np.lib.stride_tricks.sliding_window_view(
        np.pad(m, 1, mode="edge"), (3, 3))),
    LiftTest("TestStencil2D.tiling2DBiggerTiles", G + "stencil/TestStencil2D.scala", '''
val BOUNDARY = Pad.Boundary.Clamp
val f = fun(
  ArrayType(ArrayType(Float, Var("N", StartFromRange(100))), Var("M", StartFromRange(100))),
  ArrayType(Float, 9),
  (matrix, weights) => {
    Untile2D() o MapWrg(1)(MapWrg(0)(fun(tile =>

      MapLcl(1)(MapLcl(0)(
        fun(elem => {
          toGlobal(MapSeqUnroll(id)) o
            ReduceSeqUnroll(fun((acc, pair) => {
              val pixel = Get(pair, 0)
              val weight = Get(pair, 1)
              multAndSumUp.apply(acc, pixel, weight)
            }), 0.0f) $ Zip(Join() $ elem, weights)
        })

      )) o Slide2D(3, 1, 3, 1) o toLocal(MapLcl(1)(MapLcl(0)(id))) $ tile
    ))) o Slide2D(10, 8, 10, 8) o Pad2D(1, 1, 1, 1, BOUNDARY) $ matrix
  }
)''', (("float", (32, 32)), ("float", (9,))),
             lambda m, w: _stencil2d(m, w, 3, 1)[..., None], values={1: GAUSS}),
    # --- head and tail ---------------------------------------------------------------------
    LiftTest("TestHeadTail.HEAD_TAIL_TEST", G + "TestHeadTail.scala", '''
val id = UserFun("id", "i", "return i;", Float, Float)
val f = fun (ArrayTypeWSWC(Float,Var("N",StartFromRange(2))),(input) =>
  MapSeq(id) o Head() o Tail() $ input
)''', (("float", (1024,)),), lambda x: x[1:2]),
    LiftTest("TestHeadTail.MULTIDIMENSIONAL_TAIL", G + "TestHeadTail.scala", '''
val id = UserFun("id", "i", "return i;", Float, Float)
val f = fun (ArrayTypeWSWC(Float,SizeVar("N")),(input) =>
  Join() o MapSeq(MapSeq(id) o Tail()) o Split(32) $ input
)''', (("float", (1024,)),), lambda x: x.reshape(-1, 32)[:, 1:].reshape(-1)),
]

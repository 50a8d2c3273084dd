# ruff: noqa: E501, W291  (the programs keep the lines and trailing blanks of the files they are copied from)
"""A fresh batch of Lift programs from Lift's tests outside ``src/test/opencl/generator/``
(``lift-project/lift``, GitHub snapshot 5e8a18df48ab791ae66016007e18826047a015f7), held by
none of ``tests/data/lift_tests.py``, ``tests/data/lift_heldout.py`` and
``workbench/programs/lift/``.

How they were chosen: the files of ``src/test/`` (outside ``opencl/generator/``) whose tests
build a ``fun(...)`` and run it with ``Execute``, from many folders (``opencl/executor``,
``opencl/ir/ast``, ``tutorial/applications``, ``rodinia``, ``polybench``,
``rewriting/rules``, ``prog_gen``); within each file every program a test runs, in file order. Left out:
tests marked ``@Ignore`` (``TestExecute.allocateMoreThanMaxIntForOutput``,
``DotProduct.dotProductWithLocalAndWorkgroupMappingsAndIterate``,
``ProgGenFinishedIssue.hlGenLower1`` and ``hlGenCompiler2``), tests that only compile
(``Kmeans.kMeans_swap``, ``NearestNeighbor.main``), programs a test derives by a rewrite
(in ``rewriting/rules/TestFusion.scala`` the ``goldF`` each test builds and runs is taken,
not the rewritten ``lambda``; ``prog_gen``'s tests run a lowering of the high-level program,
which is taken as written), a program whose text is another's (``TestBuiltIn.testDotRule``'s
``f`` is ``testDot1``'s; ``TestEval.VECTOR_ADD_SIMPLE_STRING`` is
``TestVector.VECTOR_ADD_SIMPLE`` of ``tests/data/lift_tests.py``) and
PolyBench's programs already in ``tests/data/lift_heldout.py`` (``gemm``, ``atax``,
``outerProduct``, ``matrixAdd``, ``gemvKernel``). Files not taken: ``rewriting/TestRewrite*``
and ``TestDeriving*`` (each runs rewrites of one high-level program: matrix multiplication,
GEMV, N-body, MRI-Q, as the held-out sets hold them), ``rewriting/rules/TestSimplification``
(its gold programs are ``MapGlb(id)`` copies), ``nn/`` (layers built by Scala factories).

Each program text is the ``fun(...)`` as the test writes it, with the ``val``s and user
functions it uses (those a test class or a helper object holds are written as ``val``s, the
qualified names kept as the lambda writes them). The program a test runs is the text's last
definition. Sizes are Lift's where they are small; where the test's size only makes a point
about the device (more than 2^31 bytes) or would take minutes in the interpreter, it is
small (said at the program). Each NumPy reference is written from what the program means.
"""

import numpy as np

from tests.data.lift_tests import LiftTest

EX = "src/test/opencl/executor/"
ST = "src/test/tutorial/applications/"
RO = "src/test/rodinia/Kmeans.scala"
PB = "src/test/polybench/HighLevel.scala"
RR = "src/test/rewriting/rules/"
BI = "src/test/opencl/ir/ast/TestBuiltIn.scala"
PG = "src/test/prog_gen/"

_RNG = np.random.default_rng(44)


def _floats(*shape, low=0.0, high=1.0):
    return _RNG.uniform(low, high, shape).astype(np.float32)


# --- references ------------------------------------------------------------------------------


def _counts_of_tens(size, chunk, local):
    """allocateMoreThan2GB: for every ``local`` consecutive indices of 0..size-1 (grouped by
    ``chunk``), how many are multiples of 10."""
    i = np.arange(size).reshape(size // chunk, chunk // local, local)
    return (i % 10 == 0).sum(axis=2, dtype=np.int32)


def _tuple_sum(arr, t):
    """tupleArgument: the ints summed with each float truncated, the floats summed."""
    ints = np.int32(t[0]) + np.trunc(arr).astype(np.int32).sum(dtype=np.int32)
    return (np.array([ints], np.int32), np.array([np.float32(t[1]) + arr.sum()], np.float32))


def _constant_1d(x, size, left, right, value):
    padded = np.pad(x, (left, right), constant_values=value)
    return np.lib.stride_tricks.sliding_window_view(padded, size).sum(axis=1)


def _clamp_weighted_1d(x, w):
    padded = np.pad(x, 1, mode="edge")
    return np.lib.stride_tricks.sliding_window_view(padded, 3) @ w


def _constant_weighted(m, w):
    """An n-D 3-point-per-axis stencil over ``m`` padded with zeros, weighted by ``w``."""
    padded = np.pad(m, 1)
    windows = np.lib.stride_tricks.sliding_window_view(padded, (3,) * m.ndim)
    axes = "abc"[:m.ndim]
    return np.einsum(f"...{axes},{axes}->...", windows, w.reshape((3,) * m.ndim))


def _membership_2d(x, y, a, b, ids):
    """kMeansMembership2Dim: the id of each point's nearest centre (the reduction keeps its
    accumulator only when strictly nearer, so of equal ones the last)."""
    dist = (x[:, None] - a[None, :]) ** 2 + (y[:, None] - b[None, :]) ** 2
    last = dist.shape[1] - 1 - np.argmin(dist[:, ::-1], axis=1)
    return ids[last]


def _membership(features, clusters):
    """kMeans: the index of each point's nearest cluster (the first of equal ones), a
    one-element array per point."""
    points = features.T
    dist = ((points[:, None, :] - clusters[None, :, :]) ** 2).sum(axis=2)
    return np.argmin(dist, axis=1)[:, None].astype(np.int32)


def _dot4(x, y):
    return np.array([np.sum(x * y)], np.float32)


# --- fixed inputs ---------------------------------------------------------------------------

INTS = _RNG.integers(0, 1000, 1024).astype(np.int32)
TUPLE_FLOATS = _floats(32, high=10.0)
KM_X, KM_Y, KM_A, KM_B = _floats(512), _floats(512), _floats(16), _floats(16)
STENCIL_6x6 = np.tile(np.arange(1, 7, dtype=np.float32), (6, 1))
STENCIL_8x4x2 = np.fromfunction(lambda i, j, k: i + j + k + 1, (8, 4, 2)).astype(np.float32)
WEIGHTS2D = np.array([0, 1, 0, 1, 1, 1, 0, 1, 0], np.float32)
WEIGHTS3D = np.array([[[0, 0, 0], [0, 1, 0], [0, 0, 0]], [[0, 1, 0], [1, 1, 1], [0, 1, 0]],
                      [[0, 0, 0], [0, 1, 0], [0, 0, 0]]], np.float32)

TESTS = [
    # --- opencl/executor/TestExecute.scala --------------------------------------------------
    # Lift runs it on 2^29 + 1 ints (more than 2^31 bytes): here 1024
    LiftTest("TestExecute.allocateMoreThanMaxIntForInput", EX + "TestExecute.scala", '''
val N = SizeVar("N")

val f = fun(
  ArrayType(Int, N),
  toGlobal(MapSeq(idI)) o ReduceSeq(addI, 0) $ _
)''', (("int", (1024,)),), lambda x: np.array([x.sum(dtype=np.int32)]), values={0: INTS}),
    LiftTest("TestExecute.testInferSeq", EX + "TestExecute.scala", '''
val N = SizeVar("N")

val f = \\(ArrayTypeWSWC(Float, N),
  MapSeq(plusOne) $ _
)''', (("float", (1024,)),), lambda x: x + 1),
    LiftTest("TestExecute.testInferNoLocalOneDim", EX + "TestExecute.scala", '''
val N = SizeVar("N")

val f = \\(ArrayTypeWSWC(Float, N),
  MapGlb(plusOne) $ _
)''', (("float", (1024,)),), lambda x: x + 1),
    LiftTest("TestExecute.testInferNoLocalTwoDim", EX + "TestExecute.scala", '''
val N = SizeVar("N")
val M = SizeVar("M")

val f = \\(ArrayTypeWSWC(ArrayTypeWSWC(Float, M), N),
  MapGlb(1)(MapGlb(0)(plusOne)) $ _
)''', (("float", (1024, 512)),), lambda x: x + 1),
    LiftTest("TestExecute.testInferOneDim", EX + "TestExecute.scala", '''
val N = SizeVar("N")
val split = 32

val f = \\(ArrayTypeWSWC(Float, N),
  MapWrg(MapLcl(plusOne)) o Split(split) $ _
)''', (("float", (1024,)),), lambda x: (x + 1).reshape(-1, 32)),
    LiftTest("TestExecute.testInferTwoDim", EX + "TestExecute.scala", '''
val N = SizeVar("N")
val M = SizeVar("M")
val split1 = 32
val split2 = 8

val f = \\(ArrayTypeWSWC(ArrayTypeWSWC(Float, M), N),
  Untile2D() o
    MapWrg(1)(MapWrg(0)(MapLcl(1)(MapLcl(0)(plusOne)))) o
    Tile(split1, split2) $ _
)''', (("float", (1024, 512)),), lambda x: x + 1),
    LiftTest("TestExecute.testInferComplexArgSize", EX + "TestExecute.scala", '''
val A = SizeVar("A")
val B = SizeVar("B")

val cst1 = 8

val f = λ(ArrayTypeWSWC(ArrayTypeWSWC(Float, B*Cst(cst1)), A),
  MapWrg(
    MapLcl(MapSeq(id)) o Split(cst1)
  ) $ _
)''', (("float", (128, 128)),), lambda x: x.reshape(128, 16, 8)),
    LiftTest("TestExecute.testInferConstantFirstArgSizes", EX + "TestExecute.scala", '''
val A = SizeVar("A")

val cst1 = 8

val f = λ(ArrayTypeWSWC(Float, cst1), ArrayTypeWSWC(Float, A),
  (cstArr, varArr) =>
  MapSeq(toGlobal(id)) o Join() o MapSeq(λ(Float, (r_res) =>
    ReduceSeq(add, r_res) $ cstArr
  )) o ReduceSeq(add, 0.0f) $ varArr
)''', (("float", (8,)), ("float", (8,))), lambda a, b: np.array([a.sum() + b.sum()])),
    LiftTest("TestExecute.tupleArgument", EX + "TestExecute.scala", '''
val size = 32

val addTuple = UserFun(
  "addTuple", Array("x", "y"), "Tuple z = {x._0 + (int)y, x._1 + y}; return z;",
  Seq(TupleType(Int, Float), Float), TupleType(Int, Float)
)

val f = fun(
  ArrayType(Float, size),
  TupleType(Int, Float),
  (arr, t) =>
    MapSeq(id(TupleType(Int, Float))) o ReduceSeq(addTuple, t) $ arr
)''', (("float", (32,)), ("tuple", ())), _tuple_sum,
             values={0: TUPLE_FLOATS, 1: (np.int32(13), np.float32(42.24))}),
    # Lift's sizes allocate more than 2 GB (2^28, 2^20 and 2^15): here 2^16, 2^12 and 2^10.
    # Not run: a function built with Lift's Lambda constructor from no parameters, its only
    # array made by ArrayFromGenerator from a Scala function of each index (the workbench's
    # programs take their arrays as inputs): a located error at Lambda
    LiftTest("TestExecute.allocateMoreThan2GB", EX + "TestExecute.scala", '''
val size = 65536 // 2^28 in Lift's test
val chunkSize = 4096 // 2^20
val lclSize = 1024 // 2^15

val uf = UserFun(
  "count", Array("nb", "x"), "return nb + (int)(x % 10 == 0);", Seq(Int, Int), Int
)
val f = Lambda(
  Array(),
  MapWrg(
    MapLcl(
      MapSeq(toGlobal(id(Int))) o ReduceSeq(uf, 0) // allocates lclSize * 4 bytes = ε
        o MapSeq(toGlobal(id(Int))) // allocates 2^30
        o MapSeq(toGlobal(id(Int))) // allocates 2^30
    ) o Split(lclSize)
  ) o Split(chunkSize)
    $ ArrayFromGenerator((i, _) => ArithExpression(i), ArrayType(Int, size))
) // Allocates 2GB + ε in total''', (), lambda: _counts_of_tens(65536, 4096, 1024)),
    # --- tutorial/applications ---------------------------------------------------------------
    LiftTest("Stencils.jacobi3Point1DStencil", ST + "Stencils.scala", '''
val stencilLambda = fun(
  ArrayType(Float, SizeVar("N")),
  (input) => {
    toGlobal(MapGlb(id)) o Join() o MapGlb(ReduceSeq(add, 0.0f)) o
      Slide(3, 1) o PadConstant(1, 1, 0.0f) $ input
  }
)''', (("float", (128,)),), lambda x: _constant_1d(x, 3, 1, 1, 0.0),
             values={0: np.arange(128, dtype=np.float32)}),
    LiftTest("Stencils.jacobi3Point1DStencilWithWeights", ST + "Stencils.scala", '''
val BOUNDARY = Pad.Boundary.Clamp
val weights = Array(1, 2, 1).map(_.toFloat)

val stencil = fun(
  ArrayType(Float, SizeVar("N")),
  ArrayType(Float, weights.length),
  (input, weights) => {
    MapGlb(
      fun(neighbourhood => {
        toGlobal(MapSeqUnroll(id)) o
          ReduceSeqUnroll(fun((acc, y) => {
            multAndSumUp.apply(acc, Get(y, 0), Get(y, 1))
          }), 0.0f) $
          Zip(weights, neighbourhood) // here weights are zipped together with the neighbourhood to multiply them by the correct value
      })
    ) o Slide(3, 1) o Pad(1, 1, BOUNDARY) $ input
  }
)''', (("float", (256,)), ("float", (3,))), _clamp_weighted_1d,
             values={1: np.array([1, 2, 1], np.float32)}),
    LiftTest("Stencils.jacobi5Point2DStencilWithWeights", ST + "Stencils.scala", '''
// StencilUtilities' values
val slidesize = 3; // size of neighbourhoods to calculate
val slidestep = 1; // size of overlap to process neighbourhoods
val weights2D = Array(
  0.0f, 1.0f, 0.0f,
  1.0f, 1.0f, 1.0f,
  0.0f, 1.0f, 0.0f)

val stencilLambda = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, SizeVar("M")), SizeVar("N")),
  ArrayTypeWSWC(Float, StencilUtilities.weights2D.length),
  (mat, weights) => {
    MapGlb(1)(
      MapGlb(0)(fun(neighbours => {
        toGlobal(MapSeqUnroll(id)) o
          ReduceSeqUnroll(fun((acc, pair) => {
            val pixel = Get(pair, 0)
            val weight = Get(pair, 1)
            multAndSumUp.apply(acc, pixel, weight)
          }), 0.0f) $ Zip(Join() $ neighbours, weights) // here 2D weights passed in must be flattened first
      }))
    ) o Slide2D(StencilUtilities.slidesize, StencilUtilities.slidestep) o PadConstant2D(1,1,0.0f) $ mat
  })''', (("float", (6, 6)), ("float", (9,))), _constant_weighted,
             values={0: STENCIL_6x6, 1: WEIGHTS2D}),
    LiftTest("Stencils.jacobi7Point3DStencilWithWeights", ST + "Stencils.scala", '''
// StencilUtilities' values
val slidesize = 3; // size of neighbourhoods to calculate
val slidestep = 1; // size of overlap to process neighbourhoods
val weights3D = Array(
  Array(Array(0.0f, 0.0f, 0.0f),
    Array(0.0f, 1.0f, 0.0f),
    Array(0.0f, 0.0f, 0.0f)),
  Array(Array(0.0f, 1.0f, 0.0f),
    Array(1.0f, 1.0f, 1.0f),
    Array(0.0f, 1.0f, 0.0f)),
  Array(Array(0.0f, 0.0f, 0.0f),
    Array(0.0f, 1.0f, 0.0f),
    Array(0.0f, 0.0f, 0.0f))
)

val stencilLambda = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(ArrayTypeWSWC(Float, SizeVar("M")), SizeVar("N")), SizeVar("O")),
  ArrayTypeWSWC(ArrayTypeWSWC(ArrayTypeWSWC(Float, StencilUtilities.weights3D(0)(0).length), StencilUtilities.weights3D(0).length), StencilUtilities.weights3D.length),
  (mat, weights) => {
    MapGlb(2)(MapGlb(1)(MapGlb(0)(fun(neighbours => {
      toGlobal(MapSeq(id)) o
        ReduceSeqUnroll(\\((acc, next) =>
          multAndSumUp(acc, next._0, next._1)), 0.0f) $ Zip(Join() o Join() $ neighbours, Join() o Join() $ weights)
    })))
    ) o Slide3D(StencilUtilities.slidesize, StencilUtilities.slidestep) o PadConstant3D(1,1,1,0.0f) $ mat
  })''', (("float", (8, 4, 2)), ("float", (3, 3, 3))), _constant_weighted,
             values={0: STENCIL_8x4x2, 1: WEIGHTS3D}),
    LiftTest("DotProduct.simpleDotProduct", ST + "DotProduct.scala", '''
val N = SizeVar("N")

val dotProductLift =
  fun(
    ArrayTypeWSWC(Float, N),
    ArrayTypeWSWC(Float, N),
    (left, right) => {
      Join() o 
        MapGlb(
          toGlobal(MapSeq(id)) o
            ReduceSeq(add, 0.0f) o
            MapSeq(mult)) o
        Split(4) $ Zip(left, right)
  })''', (("float", (1024,)), ("float", (1024,))),
             lambda a, b: (a * b).reshape(-1, 4).sum(axis=1)),
    LiftTest("DotProduct.dotProductWithLocalAndWorkgroupMappings", ST + "DotProduct.scala", '''
val N = SizeVar("N")

val dotProductLift = fun(
  ArrayTypeWSWC(Float, N),
  ArrayTypeWSWC(Float, N),
  (left, right) => {
    Join() o MapWrg(
      Join() o 
        MapLcl(
          toGlobal(MapSeq(id)) o
            ReduceSeq(add, 0.0f) o
            MapSeq(mult)) o 
        Split(4)
    ) o Split(1024) $ Zip(left, right)
  })''', (("float", (1024,)), ("float", (1024,))),
             lambda a, b: (a * b).reshape(-1, 4).sum(axis=1)),
    # Lift's matrix is 4096 x 4096: here 256 x 256
    LiftTest("MatrixMultiplication.matrixVectorMultiplication", ST + "MatrixMultiplication.scala", '''
// size placeholders in LIFT
val M = SizeVar("M")
val N = SizeVar("N")

// define our lambda function - this gets compiled to a kernel
val f = fun(
  // takes in two inputs - (matrix, vector) - one two dimensional matrix and one one dimensional vector
  ArrayTypeWSWC(ArrayTypeWSWC(Float, N), M),
  ArrayTypeWSWC(Float, N),
  (matrix, vector) => {
    Join() o MapGlb(( fun( (r) => toGlobal(MapSeq(id)) o ReduceSeq(add, 0.0f) o MapSeq(mult) $ Zip(vector, r) ) )
    ) $ matrix
  })''', (("float", (256, 256)), ("float", (256,))), lambda m, v: m @ v),
    LiftTest("MatrixMultiplication.matrixMatrixMultiplication", ST + "MatrixMultiplication.scala", '''
val N = SizeVar("N")
val M = SizeVar("M")
val K = SizeVar("K")

val f = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, K), M),
  ArrayTypeWSWC(ArrayTypeWSWC(Float, K), N),
  (matA, matB) => {
    MapGlb(fun( Arow =>  // map over function with "Arow" as the parameter
      MapSeq(fun( Bcol =>
        toGlobal(MapSeq(id)) o ReduceSeq(add, 0.0f) o MapSeq(mult) $ Zip(Arow, Bcol)
      )) $ matB
    )) $ matA
  })''', (("float", (64, 128)), ("float", (256, 128))), lambda a, bt: a @ bt.T),
    # --- opencl/ir/ast/TestBuiltIn.scala ---------------------------------------------------
    LiftTest("TestBuiltIn.testDot", BI, '''
val N = SizeVar("")

val f = \\(ArrayTypeWSWC(Float, N),
  MapGlb(\\(a => dot(a, a))) o asVector(4) $ _
)''', (("float", (1024,)),), lambda x: (x * x).reshape(-1, 4).sum(axis=1)),
    LiftTest("TestBuiltIn.testFma", BI, '''
val N = SizeVar("")

val f = \\(ArrayTypeWSWC(Float, N),
  MapGlb(\\(a => fma(a, a, a))) $ _
)''', (("float", (1024,)),), lambda x: x * x + x),
    # --- opencl/executor/TestEval.scala: a program given as a string -------------------------
    LiftTest("TestEval.Accelerate1", EX + "TestEval.scala", '''
val gensym0 = UserFun("gensym0", "x0_0", "{int gensym3 = x0_0 + (int) 1; return gensym3;}", Int, Int)
val gensym1 = fun(ArrayTypeWSWC(Int, SizeVar("N")), gensym2 => MapGlb(gensym0) $ gensym2)
gensym1''', (("int", (1024,)),), lambda x: x + 1),
    # --- rodinia/Kmeans.scala ----------------------------------------------------------------
    LiftTest("Kmeans.kMeansMembership2Dim", RO, '''
val distance = UserFun("dist", Array("x", "y", "a", "b", "id"), "{ Tuple t = {(x - a) * (x - a) + (y - b) * (y - b), id}; return t; }", Seq(Float, Float, Float, Float, Int), TupleType(Float, Int))
val minimum = UserFun("minimum", Array("x", "y"), "{ return x._0 < y._0 ? x : y; }", Seq(TupleType(Float, Int), TupleType(Float, Int)), TupleType(Float, Int))
val getSecond = UserFun("getSecond", "x", "{ return x._1; }", TupleType(Float, Int), Int)

val N = SizeVar("N")
val K = SizeVar("K")

val function = fun(
  ArrayTypeWSWC(Float, N),
  ArrayTypeWSWC(Float, N),
  ArrayTypeWSWC(Float, K),
  ArrayTypeWSWC(Float, K),
  ArrayTypeWSWC(Int, K),
  (x, y, a, b, i) => {
    MapGlb(fun(xy => {
      toGlobal(MapSeq(idI)) o
        MapSeq(getSecond) o
        ReduceSeq(minimum, (scala.Float.MaxValue, -1)) o
        MapSeq(fun(ab => {
          distance(Get(xy, 0), Get(xy, 1), Get(ab, 0), Get(ab, 1), Get(ab, 2))
        })) $ Zip(a, b, i)
    })) $ Zip(x, y)
  }
)''', (("float", (512,)), ("float", (512,)), ("float", (16,)), ("float", (16,)), ("int", (16,))),
             _membership_2d,
             values={0: KM_X, 1: KM_Y, 2: KM_A, 3: KM_B, 4: np.arange(16, dtype=np.int32)}),
    LiftTest("Kmeans.kMeans", RO, '''
val P = SizeVar("P") // number of points
val C = SizeVar("C") // number of clusters
val F = SizeVar("F") // number of features

val featuresType    = ArrayTypeWSWC(ArrayTypeWSWC(Float, P), F)
val clustersType    = ArrayTypeWSWC(ArrayTypeWSWC(Float, F), C)

val update = UserFun("update", Array("dist", "pair"),
  "{ return dist + (pair._0 - pair._1) * (pair._0 - pair._1); }",
  Seq(Float, TupleType(Float, Float)), Float)

val test = UserFun("test", Array("dist", "tuple"),
  "{" +
    "float min_dist = tuple._0;" +
    "int i          = tuple._1;" +
    "int index      = tuple._2;" +
    "if (dist < min_dist) {" +
    "  Tuple t = {dist, i + 1, i};" +
    "  return t;" +
    "} else {" +
    "  Tuple t = {min_dist, i + 1, index};" +
    "  return t;" +
    "}" +
    "}",
  Seq(Float, TupleType(Float, Int, Int)), TupleType(Float, Int, Int))

val select = UserFun("select_", Array("tuple"),
  "{ return tuple._2; }",
  Seq(TupleType(Float, Int, Int)), Int)

val kMeans = fun(
  featuresType, clustersType,
  (features, clusters) => {
    features :>> Transpose() :>> MapGlb( \\( feature => {
      clusters :>> ReduceSeq( \\( (tuple, cluster) => {
        val dist = Zip(feature, cluster) :>> ReduceSeq(update, 0.0f )
        Zip(dist, tuple) :>> MapSeq(test)
      }), Value("{3.40282347e+38, 0, 0}", ArrayTypeWSWC(TupleType(Float, Int, Int), 1)) ) :>>
      toGlobal(MapSeq(MapSeq(select)))
    }) )
  })''', (("float", (34, 1024)), ("float", (5, 34))), _membership),
    LiftTest("Kmeans.kMeansLocalMemory", RO, '''
val P = SizeVar("P") // number of points
val C = SizeVar("C") // number of clusters
val F = SizeVar("F") // number of features

val featuresType    = ArrayTypeWSWC(ArrayTypeWSWC(Float, P), F)
val clustersType    = ArrayTypeWSWC(ArrayTypeWSWC(Float, F), C)

val update2 = UserFun("update", Array("dist", "pair0", "pair1"),
  "{ return dist + (pair0 - pair1) * (pair0 - pair1); }",
  Seq(Float, Float, Float), Float)

val test = UserFun("test", Array("dist", "tuple"),
  "{" +
    "float min_dist = tuple._0;" +
    "int i          = tuple._1;" +
    "int index      = tuple._2;" +
    "if (dist < min_dist) {" +
    "  Tuple t = {dist, i + 1, i};" +
    "  return t;" +
    "} else {" +
    "  Tuple t = {min_dist, i + 1, index};" +
    "  return t;" +
    "}" +
    "}",
  Seq(Float, TupleType(Float, Int, Int)), TupleType(Float, Int, Int))

val select = UserFun("select_", Array("tuple"),
  "{ return tuple._2; }",
  Seq(TupleType(Float, Int, Int)), Int)

val splitFactor = 128

val kMeans = fun(
  featuresType, clustersType,
  (features, clusters) => {
    features :>> Transpose() :>> Split(splitFactor) :>> MapWrg(\\( featuresChunk =>
      clusters :>> toLocal(MapLcl(MapSeq(id))) :>> Let(localClusters =>
      MapLcl( \\( feature => {
        localClusters :>> ReduceSeq( \\( (tuple, cluster) => {
          val dist = Zip(feature, cluster) :>> ReduceSeq(\\((acc, b) => update2(acc, Get(b, 0), Get(b,1))), 0.0f )
          Zip(dist, tuple) :>> MapSeq(test)
        }), Value("{3.40282347e+38, 0, 0}", ArrayTypeWSWC(TupleType(Float, Int, Int), 1)) ) :>>
          toGlobal(MapSeq(MapSeq(select)))
      })) $ featuresChunk
      )
    )) :>> Join()
  })''', (("float", (8, 1024)), ("float", (5, 8))), _membership),
    # --- polybench/HighLevel.scala: the class's programs no other set holds ------------------
    LiftTest("HighLevel.mm (twoMM)", PB, '''
val N = SizeVar("N")
val M = SizeVar("M")
val K = SizeVar("K")

val mm = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, K), N),
  ArrayTypeWSWC(ArrayTypeWSWC(Float, M), K),
  (A, B) => {
    MapGlb(fun( aRow =>
      MapSeq(fun( bCol =>
        toGlobal(MapSeq(id)) o
          ReduceSeq(fun((acc, y) =>
            multAndSumUp.apply(acc, Get(y, 0), Get(y, 1))
          ), 0.0f) $ Zip(aRow, bCol)
      )) o Transpose() $ B
    )) $ A
  })''', (("float", (128, 32)), ("float", (32, 16))), lambda a, b: (a @ b)[:, :, None]),
    LiftTest("HighLevel.mvAlpha (gesummv)", PB, '''
val N = SizeVar("N")
val K = SizeVar("K")

val mvAlpha = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, K), N),
  ArrayTypeWSWC(Float, K),
  Float,
  (matrix, vector, alpha) =>
    MapGlb(fun(row => toGlobal(MapSeq(id)) o
      MapSeq(fun(x => mult(x, alpha))) o
      ReduceSeq(fun((acc, y) =>
        multAndSumUp.apply(acc, Get(y, 0), Get(y, 1))
      ), 0.0f) $ Zip(row, vector)
    )) $ matrix
)''', (("float", (128, 128)), ("float", (128,)), ("float", ())),
             lambda m, x, a: ((m @ x) * a)[:, None], values={2: np.float32(2.0)}),
    LiftTest("HighLevel.vecAdd (gesummv)", PB, '''
val N = SizeVar("N")

val vecAdd = fun(
  ArrayTypeWSWC(Float, N),
  ArrayTypeWSWC(Float, N),
  (a,b) => MapGlb(add) $ Zip(a, b)
)''', (("float", (128,)), ("float", (128,))), lambda a, b: a + b),
    LiftTest("HighLevel.gemvTransposed (gemver)", PB, '''
val N = SizeVar("N")
val M = SizeVar("M")

val gemvTransposed = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, N), M),
  ArrayTypeWSWC(Float, M),
  ArrayTypeWSWC(Float,N),
  Float,
  Float,
  (matrix, vectorX, vectorY, alpha, beta) => {
    MapGlb(fun( t =>
      MapSeq(fun( x => multAndSumUp(x, Get(t, 1), beta))) o
        MapSeq(fun(x => mult(alpha, x))) o
        toGlobal(MapSeq(id)) o
        ReduceSeq(fun((acc, y) =>
          multAndSumUp.apply(acc, Get(y, 0), Get(y, 1))
        ), 0.0f) $ Zip(vectorX, Get(t, 0))
    )) $ Zip(Transpose() $ matrix, vectorY)
  })''', (("float", (128, 96)), ("float", (128,)), ("float", (96,)), ("float", ()), ("float", ())),
             lambda m, x, y, a, b: ((m.T @ x) * a + y * b)[:, None],
             values={3: np.float32(2.5), 4: np.float32(1.0)}),
    # --- rewriting/rules/TestBuiltIn.scala: Float4 arrays --------------------------------------
    LiftTest("TestBuiltIn.testDot0 (f)", RR + "TestBuiltIn.scala", '''
val f = fun(
  ArrayTypeWSWC(Float4, 1),
  ArrayTypeWSWC(Float4, 1),
  (x, y) =>
    toGlobal(MapSeq(id)) o
      ReduceSeq(add, 0.0f) o
      asScalar() o
      MapSeq(VectorizeUserFun(4, mult)) $ Zip(x, y)
)''', (("float", (1, 4)), ("float", (1, 4))), _dot4),
    LiftTest("TestBuiltIn.testDot0 (g)", RR + "TestBuiltIn.scala", '''
val g = fun(
  ArrayTypeWSWC(Float4, 1),
  ArrayTypeWSWC(Float4, 1),
  (x, y) =>
    toGlobal(MapSeq(id)) o
      MapSeq(dot) $ Zip(x, y)
)''', (("float", (1, 4)), ("float", (1, 4))), _dot4),
    LiftTest("TestBuiltIn.testDot1 (f)", RR + "TestBuiltIn.scala", '''
val N = SizeVar("N")

val f = fun(
  ArrayTypeWSWC(Float4, N),
  ArrayTypeWSWC(Float4, N),
  (x, y) =>
    toGlobal(MapSeq(id)) o
      ReduceSeq(add, 0.0f) o
      asScalar() o
      MapSeq(VectorizeUserFun(4, mult)) $ Zip(x, y)
)''', (("float", (4, 4)), ("float", (4, 4))), _dot4),
    LiftTest("TestBuiltIn.testDot1 (g)", RR + "TestBuiltIn.scala", '''
val N = SizeVar("N")

val g = fun(
  ArrayTypeWSWC(Float4, N),
  ArrayTypeWSWC(Float4, N),
  (x, y) =>
    toGlobal(MapSeq(id)) o
      ReduceSeq(add, 0.0f) o
      MapSeq(dot) $ Zip(x, y)
)''', (("float", (4, 4)), ("float", (4, 4))), _dot4),
    # --- rewriting/rules/TestFusion.scala: the gold programs each test runs -------------------
    LiftTest("TestFusion.ReduceSeqMapSeqArray (goldF)", RR + "TestFusion.scala", '''
val N = SizeVar("N")

val goldF = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, 4), N),
  input => toGlobal(MapSeq(MapSeq(id))) o
    ReduceSeq(fun((acc, elem) => MapSeq(add) o fun(elem => Zip(acc, MapSeq(plusOne) $ elem)) $ elem),
      Value(0.0f, ArrayTypeWSWC(Float, 4))) $ input
)''', (("float", (128, 4)),), lambda m: (m + 1).sum(axis=0, keepdims=True)),
    LiftTest("TestFusion.moreComplexReduceSeqMapSeq (goldF)", RR + "TestFusion.scala", '''
val N = SizeVar("N")

val goldF = fun(
  ArrayTypeWSWC(Float, N),
  Float,
  (input, a) => PrintType() o toGlobal(MapSeq(id)) o ReduceSeq(fun((acc, newValue) => add(acc, add(newValue, a))), 0.0f) $ input
)''', (("float", (128,)), ("float", ())), lambda x, a: np.array([(x + a).sum()]),
             values={1: np.float32(2.0)}),
    LiftTest("TestFusion.ReduceSeqMapSeq (goldF)", RR + "TestFusion.scala", '''
val N = SizeVar("N")

val goldF = fun(
  ArrayTypeWSWC(Float, N),
  input =>  toGlobal(MapSeq(id)) o ReduceSeq(fun((acc, newValue) => add(acc, plusOne(newValue))), 0.0f) $ input
)''', (("float", (128,)),), lambda x: np.array([(x + 1).sum()])),
    LiftTest("TestFusion.ReduceSeqMapSeqChangesType (goldF)", RR + "TestFusion.scala", '''
val N = SizeVar("N")

val userFun = UserFun("idIntToFloat", "x", "{ return x; }", Int, Float)

val goldF = fun(
  ArrayTypeWSWC(Int, N),
  input => toGlobal(MapSeq(id)) o ReduceSeq(fun((acc, newValue) => add(acc, userFun(newValue))), 0.0f) $ input
)''', (("int", (128,)),), lambda x: np.array([x.sum()], np.float32),
             values={0: np.arange(128, dtype=np.int32)}),
    # --- prog_gen: programs Lift's program generator wrote (the first given to Eval as text) --
    LiftTest("ProgGenIssues.hlGenResultNotEqual1", PG + "ProgGenIssues.scala", '''
val add = UserFun("add", Array("x", "y"), """|{ return x+y; }""".stripMargin, Seq(Float, Float), Float).setScalaFun (xs => xs.head.asInstanceOf[Float] + xs(1).asInstanceOf[Float])
fun(Float, ArrayTypeWSWC(ArrayTypeWSWC(Float, 32), 32), ArrayTypeWSWC(Float, 32),(p_0, p_1, p_2) => FunCall(Map(fun((p_3) => FunCall(Reduce(fun((p_4, p_5) => FunCall(add, p_4, p_5))), FunCall(add, p_0, p_3), FunCall(Map(fun((p_6) => FunCall(add, p_6, p_6))), FunCall(Join(), p_1))))), FunCall(Map(fun((p_7) => FunCall(add, p_7, p_7))), p_2)))''',
             (("float", ()), ("float", (32, 32)), ("float", (32,))),
             lambda p0, p1, p2: (p0 + 2 * p2 + 2 * p1.sum())[:, None]),
    LiftTest("ProgGenIssues.issue76", PG + "ProgGenIssues.scala", '''
val f = fun(
  Float,
  ArrayTypeWSWC(Float,32),
  (p236,p116) =>{
    Map(fun((p200) =>
      add(p236,add(p236,p200))
    )) $ p116
  })''', (("float", ()), ("float", (32,))), lambda a, x: a + (a + x)),
    LiftTest("ProgGenIssues.issue78", PG + "ProgGenIssues.scala", '''
val f = fun(
  Float,
  ArrayTypeWSWC(Float,32),
  (p252,p174) =>
    toGlobal(MapSeq(fun((p30) =>
      add(p252,p30)
    )))(ReduceSeq(fun((p89,p156) =>
      add(p89,p156)
    ))(id $ p252,p174))
)''', (("float", ()), ("float", (32,))), lambda a, x: np.array([a + (a + x.sum())])),
    LiftTest("ProgGenFinishedIssue.hlGenTest1", PG + "ProgGenFinishedIssue.scala", '''
val f = fun(
  ArrayTypeWSWC(Float,32),
  Float,
  ArrayTypeWSWC(ArrayTypeWSWC(Float,32),32),
  (p241,p152,p10) =>{
    Map(fun((p2)=>
      Reduce(fun((p165,p139) =>
        add(p165,p139)
      ))(p2,p241)
    ))(Reduce(fun((p51,p177) =>
      add(p51,p177)
    ))(add(p152,p152), Join() $ p10))
  }
)''', (("float", (32,)), ("float", ()), ("float", (32, 32))),
             lambda v, a, m: np.array([[2 * a + m.sum() + v.sum()]])),
    LiftTest("ProgGenFinishedIssue.hlGenCompiler1", PG + "ProgGenFinishedIssue.scala", '''
val f = fun(
  Float,
  ArrayTypeWSWC(Float,32),
  ArrayTypeWSWC(Float,32),
  (p104,p243,p10) =>{
    Map(fun((p199)=>
      Reduce(fun((p51,p177)=>
        add(p51,p177)
      ))(add(p104,p199),p243)
    ))(Reduce(fun((p223,p14) =>
      add(p223,p14)
    ))(add(p104,p104),p10))
  }
)''', (("float", ()), ("float", (32,)), ("float", (32,))),
             lambda a, v, w: np.array([[a + (2 * a + w.sum()) + v.sum()]])),
]

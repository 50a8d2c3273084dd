# ruff: noqa: E501, W291, E101  (the programs keep the lines, tabs and trailing blanks of the files they are copied from)
"""A held-out set of Lift programs: copied from Lift's repository (``lift-project/lift``,
GitHub snapshot 5e8a18df48ab791ae66016007e18826047a015f7) and found in neither
``tests/data/lift_tests.py`` nor ``workbench/programs/lift/``. They are Lift's
``highLevel/`` programs (the files Lift's exploration reads: an anonymous ``fun(...)`` or
``λ(...)`` after the ``val``s and ``def``s it uses), the lambdas of its benchmarks
(``src/main/benchmarks/``), PolyBench's high-level programs (``src/test/polybench``) and
the stencil tutorial (``GettingStarted.scala``).

Each program text is the file or the ``val`` as written, with the definitions it uses;
where a benchmark builds a lambda with a Scala helper (``create1DStencilLambda(...)``,
``coalesced(x, y)``), the helper's body is taken with the benchmark's arguments in place.
The program a test runs is the last definition of the text (a highLevel file's anonymous
function is its last, and only unnamed, expression). Sizes are Lift's where the program
fixes them (``Cst(4096)``, ``val M = 256``) and small otherwise; each NumPy reference is
written from what the program means.

Two of them were read before the set was assembled, in other tests: ``mandelbrot``
(``tests/test_c_user_functions.py``, its C loop) and ``GESUMMV.fused``
(``tests/test_lift_language.py``); counts of what the workbench reads unseen leave them out.
"""

import numpy as np

from tests.data.lift_tests import LiftTest

HL = "highLevel/"
ST = "highLevel/stencil/"
CGO = "highLevel/stencil/cgo/"
B = "src/main/benchmarks/"
PB = "src/test/polybench/HighLevel.scala"
GS = "src/test/opencl/generator/stencil/GettingStarted.scala"

_RNG = np.random.default_rng(29)

# --- references ------------------------------------------------------------------------------


def _inner(a, size, *offsets):
    """The element at ``offsets`` of every ``size``-wide window of ``a`` (Lift's
    ``nbh.at(i).at(j)`` over ``Slide2D(size, 1) $ a``, without padding)."""
    index = tuple(slice(o, o + n - size + 1) for o, n in zip(offsets, a.shape))
    return a[index]


def _pad_rotate(inner, pad, shift):
    """PPCG's stencils as Lift writes them: the result padded (clamped) and each axis
    rotated right by ``shift`` (``Scatter(Shift(shift))`` at every level)."""
    out = np.pad(inner, pad, mode="edge")
    for axis in range(out.ndim):
        out = np.roll(out, shift, axis=axis)
    return out


def _stencil1d(x, weights, left, right, mode):
    padded = np.pad(x, (left, right), mode={"clamp": "edge", "wrap": "wrap"}[mode])
    windows = np.lib.stride_tricks.sliding_window_view(padded, len(weights))
    return windows @ weights


def _windows2d(m, size):
    return np.lib.stride_tricks.sliding_window_view(m, (size, size))


def _gaussian5x5(a):
    w = np.array([[2, 4, 5, 4, 2], [4, 9, 12, 9, 4], [5, 12, 15, 12, 5], [4, 9, 12, 9, 4],
                  [2, 4, 5, 4, 2]], np.float32)
    inner = np.einsum("ijab,ab->ij", _windows2d(a, 5), w) / np.float32(159)
    return _pad_rotate(inner, 2, 2)


def _grad2d(a):
    top, bottom = _inner(a, 3, 0, 1), _inner(a, 3, 2, 1)
    left, right, c = _inner(a, 3, 1, 0), _inner(a, 3, 1, 2), _inner(a, 3, 1, 1)
    inner = c + np.float32(1) / np.sqrt(np.float32(0.0001) + (c - top) * (c - top)
                                        + (c - bottom) * (c - bottom)
                                        + (c - right) * (c - right) + (c - left) * (c - left))
    return _pad_rotate(inner, 1, 1)


def _j2d9pt(a):
    w = np.array([[7, 5, 9], [12, 15, 12], [9, 5, 7]], np.float32)
    inner = np.einsum("ijab,ab->ij", _windows2d(a, 3), w) / np.float32(118)
    return _pad_rotate(inner, 1, 1)


def _j3d13pt(a):
    at = lambda *o: _inner(a, 5, *o)  # noqa: E731
    q = np.float32(0.083)
    inner = (q * at(2, 2, 4) + q * at(2, 2, 3) + q * at(2, 2, 1) + q * at(2, 2, 0)
             + q * at(2, 4, 2) + q * at(2, 3, 2) + q * at(2, 1, 2) + q * at(2, 0, 2)
             + q * at(4, 2, 2) + q * at(3, 2, 2) + q * at(1, 2, 2) + q * at(0, 2, 2)
             - np.float32(0.996) * at(2, 2, 2))
    return _pad_rotate(inner, 2, 2)


def _poisson3d(a):
    at = lambda *o: _inner(a, 3, *o)  # noqa: E731
    faces = at(0, 1, 1) + at(2, 1, 1) + at(1, 0, 1) + at(1, 2, 1) + at(1, 1, 2) + at(1, 1, 0)
    edges = (at(0, 0, 1) + at(2, 0, 1) + at(0, 2, 1) + at(2, 2, 1) + at(0, 1, 0) + at(2, 1, 0)
             + at(1, 0, 0) + at(1, 2, 0) + at(0, 1, 2) + at(2, 1, 2) + at(1, 0, 2) + at(1, 2, 2))
    inner = (np.float32(2.666) * at(1, 1, 1) - np.float32(0.166) * faces
             - np.float32(0.0833) * edges)
    return _pad_rotate(inner, 1, 1)


def _acoustic(mat1, mat2):
    """Lift's acoustic room stencil: each point's update from its 6 neighbours in mat2,
    its value in mat1 and its number of neighbours inside the room (6 less one per axis
    on which it lies on the room's boundary)."""
    sr, alpha, c = np.float32(441.0), np.float32(0.005), np.float32(344.0)
    k = np.float32(1) / sr
    h = np.sqrt(3.0) * float(c) * float(k)
    lam = float(c) * float(k) / h
    loss1 = np.float32(1.0 / (1.0 + lam * float(alpha)))
    loss2 = np.float32(1.0 - lam * float(alpha))
    l2 = np.float32((float(c) * float(c) * float(k) * float(k)) / (h * h))
    o, n, m = mat1.shape
    count = np.full(mat1.shape, 6, np.int32)
    for axis, length in enumerate((o, n, m)):
        edge = np.zeros(length, bool)
        edge[[0, length - 1]] = True
        count -= edge.reshape([-1 if a == axis else 1 for a in range(3)])
    at = lambda *off: mat2[off[0]:off[0] + o, off[1]:off[1] + n, off[2]:off[2] + m]  # noqa: E731
    stencil = at(2, 1, 1) + at(1, 2, 1) + at(1, 1, 2) + at(1, 1, 0) + at(1, 0, 1) + at(0, 1, 1)
    cf = np.where(count < 6, loss1, np.float32(1))
    cf2 = np.where(count < 6, loss2, np.float32(1))
    mask = count.astype(np.float32)
    return (((np.float32(2) - mask * l2) * at(1, 1, 1)) + (stencil * l2 - mat1 * cf2)) * cf


def _mandelbrot(xs, niters, size):
    space = np.float32(2.0) / np.float32(size)
    i, j = np.meshgrid(xs, xs, indexing="ij")
    cr = j.astype(np.float32) * space - np.float32(1.5)
    ci = i.astype(np.float32) * space - np.float32(1.0)
    zr = np.zeros_like(cr)
    zi = np.zeros_like(cr)
    y = np.zeros(cr.shape, np.int32)
    live = np.ones(cr.shape, bool)
    for _ in range(int(niters)):
        zin, zrn = zi * zi, zr * zr
        live &= ~(zin + zrn > np.float32(4))
        zi = np.where(live, (zi * zr) * np.float32(2) + ci, zi)
        zr = np.where(live, zrn - zin + cr, zr)
        y += live
    return (y * 255) // int(niters)


def _nbody(pos, vel, esp_sqr, delta_t):
    """Lift's N-body step: every body's acceleration from all bodies (itself adds
    nothing), its position and velocity advanced by delta_t (w kept)."""
    r = pos[None, :, :3] - pos[:, None, :3]
    dist_sqr = (r * r).sum(axis=2)
    inv = np.float32(1) / np.sqrt(dist_sqr + np.float32(esp_sqr))
    acc = ((inv * inv * inv * pos[None, :, 3])[..., None] * r).sum(axis=1)
    dt = np.float32(delta_t)
    new_pos = pos.copy()
    new_pos[:, :3] = pos[:, :3] + vel[:, :3] * dt + np.float32(0.5) * acc * dt * dt
    new_vel = vel.copy()
    new_vel[:, :3] = vel[:, :3] + acc * dt
    return new_pos, new_vel


def _kmeans(features, clusters):
    """The index of each point's nearest cluster (the first of equal ones)."""
    points = features.T  # [P][F]
    dist = ((points[:, None, :] - clusters[None, :, :]) ** 2).sum(axis=2)
    return np.argmin(dist, axis=1)


def _md(particles, neighbour_ids, cutsq, lj1, lj2):
    """SHOC's molecular dynamics: the Lennard-Jones force on each particle from its listed
    neighbours within the cutoff (w stays 0)."""
    ipos = particles[:, None, :3]
    jpos = particles[neighbour_ids.T][:, :, :3]  # [N][M]
    d = ipos - jpos
    r2 = (d * d).sum(axis=2)
    near = r2 < cutsq
    inv = np.where(near, 1 / np.where(near, r2, 1), 0)
    r6 = inv * inv * inv
    force = inv * r6 * (lj1 * r6 - lj2)
    out = np.zeros_like(particles)
    out[:, :3] = (d * force[..., None]).sum(axis=1)
    return out


def _reorder_stride(n, s):
    """Lift's ReorderStride(s) on n elements: element i is element (i / (n/s)) + s * (i % (n/s))."""
    i = np.arange(n)
    chunk = n // s
    return i // chunk + s * (i % chunk)


def _amd_derived1(x):
    groups = x.reshape(-1, 262144, 2)[:, _reorder_stride(262144, 64)]
    return groups.reshape(-1, 128, 2048, 2).sum(axis=2)


def _dot_product1(a, b):
    prod = (a * b).reshape(-1, 2048 * 128)[:, _reorder_stride(2048 * 128, 128)]
    return prod.reshape(-1, 128, 2048).sum(axis=2)


def _blur_y(m, w):
    padded = np.pad(m, ((8, 8), (0, 0)), mode="edge")
    out = np.zeros_like(m)
    for k in range(17):
        out = out + padded[k:k + m.shape[0]] * w[k]
    return out


def _halide_blur(m):
    sums = _windows2d(m.astype(np.int64), 3).sum(axis=(2, 3))
    return (sums // 9).astype(np.int32)


# --- fixed inputs ---------------------------------------------------------------------------


def _bodies(n):
    pos = _RNG.uniform(-1, 1, (n, 4)).astype(np.float32)
    pos[:, 3] = _RNG.uniform(0.5, 1.5, n)
    return pos


def _neighbours(n, m):
    """m neighbour indices of each of n particles, none itself: [M][N] as Lift's
    benchmark passes them."""
    ids = (np.arange(n)[None, :] + _RNG.integers(1, n, (m, n))) % n
    return ids.astype(np.int32)


W3 = np.array([0.25, 0.5, 0.25], np.float32)
W9 = np.ones(9, np.float32)
WG = np.array([0.08, 0.12, 0.08, 0.12, 0.20, 0.12, 0.08, 0.12, 0.08], np.float32)
W17 = (np.arange(1, 18, dtype=np.float32) / np.float32(153))
MD_PARTICLES = _RNG.uniform(0, 4, (256, 4)).astype(np.float32)
MD_NEIGHBOURS = _neighbours(256, 16)

TESTS = [
    # --- highLevel: BLAS ------------------------------------------------------------------
    LiftTest("asum", HL + "asum", '''
val N = SizeVar("N")

fun(
  ArrayType(Float, N),
  Float,
  (vector, alpha) =>
    Map(fun(x => mult(x, alpha))) $ vector
)''', (("float", (1024,)), ("float", ())), lambda x, a: x * a, values={1: np.float32(2.5)}),
    LiftTest("dot", HL + "dot", '''
val N = SizeVar("N")

fun(
  ArrayType(Float, N),
  input =>
    Reduce(add, 0.0f) o Map(abs) $ input
)''', (("float", (1024,)),), lambda x: np.abs(x).sum(keepdims=True)),
    LiftTest("gemvN", HL + "gemvN", '''
val N = SizeVar("N")
val M = SizeVar("M")

fun(
  ArrayType(ArrayType(Float, M), N),
  ArrayType(Float, M),
  ArrayType(Float, N),
  Float,
  Float,
  (matrix, vectorX, vectorY, alpha, beta) => {
    Map(fun(t =>
      Map(fun(x =>
        add(
          mult(x, alpha),
          mult(Get(t, 1), beta)
        )
      )) o
        Reduce(add, 0.0f) o
        Map(fun(x => mult(Get(x, 0), Get(x, 1)))) $ Zip(vectorX, Get(t, 0))
    )) $ Zip(matrix, vectorY)
  })''', (("float", (128, 64)), ("float", (64,)), ("float", (128,)), ("float", ()), ("float", ())),
             lambda m, x, y, a, b: (m @ x) * a + y * b, values={3: np.float32(1.5), 4: np.float32(2.5)}),
    LiftTest("gemvT", HL + "gemvT", '''
val N = SizeVar("N")
val M = SizeVar("M")

fun(
  ArrayType(ArrayType(Float, N), M),
  ArrayType(Float, M),
  ArrayType(Float, N),
  Float,
  Float,
  (matrix, vectorX, vectorY, alpha, beta) => {
    Map(fun(t =>
      Map(fun(x =>
        add(
          mult(x, alpha),
          mult(Get(t, 1), beta)
        )
      )) o
        Reduce(add, 0.0f) o
        Map(fun(x => mult(Get(x, 0), Get(x, 1)))) $ Zip(vectorX, Get(t, 0))
    )) $ Zip(Transpose() $ matrix, vectorY)
  })''', (("float", (64, 128)), ("float", (64,)), ("float", (128,)), ("float", ()), ("float", ())),
             lambda m, x, y, a, b: (m.T @ x) * a + y * b, values={3: np.float32(1.5), 4: np.float32(2.5)}),
    LiftTest("gesummvTT", HL + "gesummvTT", '''
val K = SizeVar("K")
val N = SizeVar("N")

def mvAlpha = fun(
  ArrayType(ArrayType(Float, K), N),
  ArrayType(Float, K),
  Float,
  (matrix, vector, alpha) =>
    Join() o
      Map(fun(row =>
        Map(fun(x => mult(x, alpha))) o
          Reduce(add, 0.0f) o Map(fun(y => mult(y._0, y._1))) $ Zip(row, vector)
      )) $ matrix
)

def vecAdd = fun(
  ArrayType(Float, K),
  ArrayType(Float, K),
  (a,b) => Map(fun(x => add(x._0, x._1))) $ Zip(a, b)
)

fun(
  ArrayType(ArrayType(Float, N), K),
  ArrayType(ArrayType(Float, N), K),
  ArrayType(Float, K),
  Float,
  Float,
  (A, B, x, alpha, beta) =>
    vecAdd(mvAlpha(Transpose() $ A, x, alpha), mvAlpha(Transpose() $ B, x, beta))
)''', (("float", (128, 128)), ("float", (128, 128)), ("float", (128,)), ("float", ()), ("float", ())),
             lambda a, b, x, al, be: (a.T @ x) * al + (b.T @ x) * be,
             values={3: np.float32(2.0), 4: np.float32(1.5)}),
    # also in tests/test_c_user_functions.py (MANDELBROT): not unseen
    LiftTest("mandelbrot", HL + "mandelbrot", '''
val md = UserFun("md", Array("i", "j", "niters", "size"),
  """|{
     |  const float space = 2.0f / size;
     |  float Zr = 0.0f;
     |  float Zi = 0.0f;
     |  float Cr = (j * space - 1.5f);
     |  float Ci = (i * space - 1.0f);
     |  int y = 0;
     |
     |  for (y = 0; y < niters; y++) {
     |    const float ZiN = Zi * Zi;
     |    const float ZrN = Zr * Zr;
     |    if(ZiN + ZrN > 4.0f) break;
     |    Zi *= Zr;
     |    Zi *= 2.0f;
     |    Zi += Ci;
     |    Zr = ZrN - ZiN + Cr;
     |  }
     |  return ((y * 255) / niters);
     |}
     |""".stripMargin, Seq(Int, Int, Int, Int), Int)

fun(
  ArrayType(Int, SizeVar("N")),
  Int,
  Int,
  (in, niters, size) => Map(fun(i => Map(fun(j => md(i, j, niters, size))) $ in)) $ in
)''', (("int", (64,)), ("int", ()), ("int", ())), _mandelbrot,
             values={0: np.arange(64, dtype=np.int32), 1: np.int32(32), 2: np.int32(64)}),
    LiftTest("mmNN", HL + "mmNN", '''
val N = SizeVar("N")
val M = SizeVar("M")
val K = SizeVar("K")

fun(
  ArrayType(ArrayType(Float, K), M),
  ArrayType(ArrayType(Float, N), K),
  (A, B) => {
    Map(fun(aRow =>
      Map(fun(bCol =>
        Reduce(add, 0.0f) o Map(fun(x => mult(Get(x, 0), Get(x, 1)))) $ Zip(aRow, bCol)
      )) o Transpose() $ B
    )) $ A
  })''', (("float", (64, 32)), ("float", (32, 48))), lambda a, b: a @ b),
    LiftTest("mmTN", HL + "mmTN", '''
val N = SizeVar("N")
val M = SizeVar("M")
val K = SizeVar("K")

fun(
  ArrayType(ArrayType(Float, M), K),
  ArrayType(ArrayType(Float, N), K),
  (A, B) => {
    Map(fun(aRow =>
      Map(fun(bCol =>
        Reduce(add, 0.0f) o Map(fun(x => mult(Get(x, 0), Get(x, 1)))) $ Zip(aRow, bCol)
      )) o Transpose() $ B
    )) o Transpose() $ A
  })''', (("float", (32, 64)), ("float", (32, 48))), lambda a, b: a.T @ b),
    LiftTest("mmTT", HL + "mmTT", '''
val N = SizeVar("N")
val M = SizeVar("M")
val K = SizeVar("K")

fun(
  ArrayType(ArrayType(Float, M), K),
  ArrayType(ArrayType(Float, K), N),
  (A, B) => {
    Map(fun(aRow =>
      Map(fun(bCol =>
        Reduce(add, 0.0f) o Map(fun(x => mult(Get(x, 0), Get(x, 1)))) $ Zip(aRow, bCol)
      )) $ B
    )) o Transpose() $ A
  })''', (("float", (32, 64)), ("float", (48, 32))), lambda a, b: a.T @ b.T),
    LiftTest("mvAsMM", HL + "mvAsMM", '''
val N = SizeVar("N")
val K = SizeVar("K")

fun(
  ArrayType(ArrayType(Float, K), N),
  ArrayType(ArrayType(Float, 1), K), // Column vector
  (matrix, vector) =>
    Map(fun(row =>
      Map( fun( col =>
        Reduce(add, 0.0f) o Map(fun(x => mult(Get(x, 0), Get(x, 1)))) $ Zip(row, col)
      )) o Transpose() $ vector
    )) $ matrix
)''', (("float", (128, 64)), ("float", (64, 1))), lambda m, v: m @ v),
    # --- highLevel: stencils ----------------------------------------------------------------
    LiftTest("acoustic", ST + "acoustic", '''
def getNumNeighbours = UserFun("idxF", Array("i", "j", "k", "m", "n", "o"), "{int count = 6; if(i == (m-1) || i == 0){ count--; } if(j == (n-1) || j == 0){ count--; } if(k == (o-1) || k == 0){ count--; }return count; }", Seq(Int,Int,Int,Int,Int,Int), Int)
def getCF = UserFun("getCF", Array("neigh", "cfB", "cfI"), "{ if(neigh < 6) { return cfB; } else{ return cfI;} }", Seq(Int,Float,Float), Float)

val SR = 441.0f
val alpha = 0.005f
val c = 344.0f
val NF = 4410
val k = 1 / SR
val h = Math.sqrt(3.0f) * c * k
val lambda = c * k / h

val loss1 = 1.0f / (1.0f + lambda * alpha)
val loss2 = 1.0f - lambda * alpha

val l2: Float = ((c * c * k * k) / (h * h)).toFloat
val cf1: Array[Float] = Array(loss1.toFloat, 1.0f)
val cf21: Array[Float] = Array(loss2.toFloat, 1.0f)

val idIF = UserFun("idIF", "x", "{ return (float)(x*1.0); }", Int, Float)
val m = SizeVar("M")
val n = SizeVar("N")
val o = SizeVar("O")

val arraySig = ArrayType(ArrayType(ArrayType(Int, m), n), o)

fun(
  ArrayType(ArrayType(ArrayType(Float, m), n), o),
  ArrayType(ArrayType(ArrayType(Float, m+2), n+2), o+2),
  (mat1, mat2) => {
    Map(Map(Map(fun(m => {

      val cf = toPrivate( fun(x => getCF(x,cf1(0), cf1(1))) ) $ Get(m,2)
      val cf2 = toPrivate( fun(x => getCF(x,cf21(0), cf21(1))) ) $ Get(m,2)
      val maskedValStencil = l2

      val `tile[1][1][1]` = Get(m,1).at(1).at(1).at(1)

      val `tile[0][1][1]` = Get(m,1).at(0).at(1).at(1)
      val `tile[1][0][1]` = Get(m,1).at(1).at(0).at(1)
      val `tile[1][1][0]` = Get(m,1).at(1).at(1).at(0)
      val `tile[1][1][2]` = Get(m,1).at(1).at(1).at(2)
      val `tile[1][2][1]` = Get(m,1).at(1).at(2).at(1)
      val `tile[2][1][1]` = Get(m,1).at(2).at(1).at(1)

      val stencil =  toPrivate(fun(x => add(x,`tile[0][1][1]`))) o
        toPrivate(fun(x => add(x,`tile[1][0][1]`))) o
        toPrivate(fun(x => add(x,`tile[1][1][0]`))) o
        toPrivate(fun(x => add(x,`tile[1][1][2]`))) o
        toPrivate(fun(x => add(x,`tile[1][2][1]`))) $ `tile[2][1][1]`

      val valueMat1 = Get(m,0)
      val valueMask = toPrivate(idIF) $ Get(m,2)

      toGlobal(id) o toPrivate(fun( x => mult(x,cf))) o toPrivate(addTuple) $
        Tuple(toPrivate(multTuple) $ Tuple(toPrivate(fun(x => subtract(2.0f,x))) o toPrivate(fun(x => mult(x,l2))) $ valueMask, `tile[1][1][1]`),
          toPrivate(subtractTuple) $ Tuple(
            toPrivate(fun(x => mult(x, maskedValStencil))) $ stencil,
            toPrivate(fun(x => mult(x,cf2))) $ valueMat1))

    })))
    ) $ Zip3D(mat1, Slide3D(3, 1) $ mat2, Array3DFromUserFunGenerator(getNumNeighbours, arraySig))
})''', (("float", (6, 8, 10)), ("float", (8, 10, 12))), _acoustic),
    LiftTest("convolution1D", ST + "convolution1D", '''
val N = SizeVar("N")

fun(
  ArrayType(Float, N),
  ArrayType(Float, Cst(3)),
  (input, weights) => {
    Map( \\(neighbourhood => 
			Reduce(add, 0.0f) o Map( \\(tuple => 
				mult.apply(Get(tuple,0),Get(tuple,1))
			)) $ Zip(weights, neighbourhood))) o 
		Slide(3, 1) o Pad(1, 1, Pad.Boundary.Clamp) $ input
  }
)''', (("float", (1024,)), ("float", (3,))), lambda x, w: _stencil1d(x, w, 1, 1, "clamp"),
             values={1: W3}),
    LiftTest("convolutionSeparableY", ST + "convolutionSeparableY", '''
val M = SizeVar("M")
val N = SizeVar("N")

fun(
    ArrayType(ArrayType(Float, M), N),
    ArrayType(Float, Cst(3)),
    (input, weights) => {
        Map(Map( \\(neighbourhood =>
			Reduce(add, 0.0f) o Map( \\(tuple =>
				mult.apply(Get(tuple,0),Get(tuple,1))
			)) $ Zip(weights,
			         Join() $ neighbourhood)))) o
		Slide2D(3,1, 1,1) o Pad2D(1,1, 0,0, Pad.Boundary.Clamp) $ input
  })''', (("float", (64, 48)), ("float", (3,))),
             lambda m, w: sum(np.pad(m, ((1, 1), (0, 0)), mode="edge")[k:k + 64] * w[k]
                              for k in range(3)), values={1: W3}),
    LiftTest("halideBlur", ST + "halideBlur", '''
val M = Var("M", StartFromRange(4000))
val N = Var("N", StartFromRange(6000))

val div9 = UserFun("div9", "x", "{ return x/9; }", Int, Int)
fun(
    ArrayType(ArrayType(Int, M), N),
    input => {
        Map(Map( \\(neighborhood => Map(div9) o Reduce(addI, 0) o Join() $ neighborhood)
			)) o Slide2D(3, 1) $ input
})''', (("int", (6000, 4000)),), _halide_blur),
    LiftTest("shocStencil2DDot", ST + "shocStencil2DDot", '''
val dotAndSumUp = UserFun("dotAndSumUp", Array("acc", "l", "r"),
      "{ return acc + dot(l, r); }",
      Seq(Float, Float3, Float3), Float)

val M = SizeVar("M") //need to be power_of_two +2 because of missing pad
val N = SizeVar("N")

fun(
    ArrayType(ArrayType(Float, M), N),
    ArrayType(Float, Cst(9)),
    (input, weights) => {
        Map(Map(fun(elem => {
                            toGlobal(MapSeqUnroll(id)) o
                              ReduceSeqUnroll(fun( (acc, pair) => {
                                val pixel = pair._0
                                val weight = pair._1
                                dotAndSumUp.apply(acc, pixel, weight)
                              }), 0.0f) $ Zip(asVector(3) o Join() $ elem, asVector(3) $ weights)
                          }) )) o
		Slide2D(3, 1) $ input
  })''', (("float", (34, 66)), ("float", (9,))),
             lambda m, w: np.einsum("ijab,ab->ij", _windows2d(m, 3), w.reshape(3, 3)),
             values={1: WG}),
    LiftTest("stencil1D", ST + "stencil1D", '''
val N = SizeVar("N")

fun(
	ArrayType(Float, N),
	input => 
		Join() o Map(Reduce(add, 0.0f)) o Slide(3,1) o Pad(1,1,Pad.Boundary.Clamp) $ input
  )''', (("float", (1024,)),), lambda x: _stencil1d(x, np.ones(3, np.float32), 1, 1, "clamp")),
    LiftTest("stencilNoPad1D", ST + "stencilNoPad1D", '''
val N = SizeVar("N")

fun(
	ArrayType(Float, N),
	input => 
		Join() o Map(Reduce(add, 0.0f)) o Slide(3,1) $ input
  )''', (("float", (1024,)),), lambda x: x[:-2] + x[1:-1] + x[2:]),
    LiftTest("gaussian (small)", CGO + "ppcg/gaussian/small/gaussian.lift", '''
def f = UserFun("jacobi", Array("NNWW", "NNW", "NN", "NNE", "NNEE",
  "NWW", "NW", "N", "NE", "NEE",
  "WW", "W", "C", "E", "EE",
  "SWW", "SW", "S", "SE", "SEE",
  "SSWW", "SSW", "SS", "SSE", "SSEE"),
  """return (2*NNWW + 4*NNW + 5*NN + 4*NNE + 2*NNEE +
    | 4*NWW + 9*NW + 12*N + 9*NE + 4*NEE +
    | 5*WW + 12*W + 15*C + 12*E + 5*EE +
    | 4*SWW + 9*SW + 12*S + 9*SE + 4*SEE +
    | 2*SSWW + 4*SSW + 5*SS + 4*SSE + 2*SSEE) / 159;""".stripMargin,
  Seq(Float, Float, Float, Float, Float,
    Float, Float, Float, Float, Float,
    Float, Float, Float, Float, Float,
    Float, Float, Float, Float, Float,
    Float, Float, Float, Float, Float), Float)

val M = Cst(4096)
val N = Cst(4096)

λ(
  ArrayType(ArrayType(Float, M), N),
  input => {
    Map(Scatter(Shift(2))) o Scatter(Shift(2)) o Pad2D(2,2,Pad.Boundary.Clamp) o
    Map(Map(λ(nbh => {
      val nnww = nbh.at(0).at(0)
      val nnw  = nbh.at(0).at(1)
      val nn   = nbh.at(0).at(2)
      val nne  = nbh.at(0).at(3)
      val nnee = nbh.at(0).at(4)
      val nww  = nbh.at(1).at(0)
      val nw   = nbh.at(1).at(1)
      val n    = nbh.at(1).at(2)
      val ne   = nbh.at(1).at(3)
      val nee  = nbh.at(1).at(4)
      val ww   = nbh.at(2).at(0)
      val w    = nbh.at(2).at(1)
      val c    = nbh.at(2).at(2)
      val e    = nbh.at(2).at(3)
      val ee   = nbh.at(2).at(4)
      val sww  = nbh.at(3).at(0)
      val sw   = nbh.at(3).at(1)
      val s    = nbh.at(3).at(2)
      val se   = nbh.at(3).at(3)
      val see  = nbh.at(3).at(4)
      val ssww = nbh.at(4).at(0)
      val ssw  = nbh.at(4).at(1)
      val ss   = nbh.at(4).at(2)
      val sse  = nbh.at(4).at(3)
      val ssee = nbh.at(4).at(4)

      λ(x =>
        f(x, nnw, nn, nne, nnee,
          nww, nw, n, ne, nee,
          ww, w, c, e, ee,
          sww, sw, s, se, see,
          ssww, ssw, ss, sse, ssee)) $ nnww

    }))) o Slide2D(5, 1) $ input
  })''', (("float", (4096, 4096)),), _gaussian5x5),
    LiftTest("grad2d (small)", CGO + "ppcg/grad2d/small/grad2d.lift", '''
def vonNeumann5pt(x: Param) = {
  val top = x.at(0).at(1)
  val bottom = x.at(2).at(1)
  val left = x.at(1).at(0)
  val right = x.at(1).at(2)
  val center = x.at(1).at(1)
  (top, bottom, left, right, center)
}

val M = 4096
val N = 4096

def grad = UserFun("grad", Array("top", "bottom", "left", "right", "center"),
  """return center + 1.0f/sqrt(0.0001f +
    | (center-top)*(center-top) +
    | (center-bottom)*(center-bottom) +
    | (center-right)*(center-right) +
    | (center-left)*(center-left));""".stripMargin,
  Seq(Float, Float, Float, Float, Float), Float)

λ(
  ArrayType(ArrayType(Float, M), N),
  input => {
    Map(Scatter(Shift(1))) o Scatter(Shift(1)) o Pad2D(1,1,Pad.Boundary.Clamp) o
    Map(Map(λ(nbh => {

      val (top, bottom, left, right, center) = vonNeumann5pt(nbh)

      λ(x =>
        grad(x, bottom, left, right, center)) $ top

    }))) o Slide2D(3, 1) $ input
  })''', (("float", (4096, 4096)),), _grad2d),
    LiftTest("j2d9pt (small)", CGO + "ppcg/j2d9pt/small/j2d9pt.lift", '''
def moore9pt(x: Param) = {
  val NW = x.at(0).at(0)
  val N  = x.at(0).at(1)
  val NE = x.at(0).at(2)
  val W  = x.at(1).at(0)
  val C  = x.at(1).at(1)
  val E  = x.at(1).at(2)
  val SW = x.at(2).at(0)
  val S  = x.at(2).at(1)
  val SE = x.at(2).at(2)
  (NW, N, NE, W, C, E, SW, S, SE)
}

val M = Cst(4096)
val N = Cst(4096)

def f = UserFun("jacobi", Array("NW","N","NE","W","C","E","SW","S","SE"),
  "return (7 * NW + 5 * N + 9 * NE + 12 * W + 15 * C + 12 * E + 9 * SW + 5 * S + 7 * SE) / 118;",
  Seq(Float, Float, Float, Float, Float, Float, Float, Float, Float), Float)

λ(
  ArrayType(ArrayType(Float, M), N),
  input => {
    Map(Scatter(Shift(1))) o Scatter(Shift(1)) o Pad2D(1,1,Pad.Boundary.Clamp) o
    Map(Map(λ(nbh => {

      val (northWest, north, northEast,
        west, center, east,
        southWest, south, southEast) = moore9pt(nbh)

      λ(x =>
        f(x, north, northEast,
          west, center, east,
          southWest, south, southEast)) $ northWest

    }))) o Slide2D(3, 1) $ input
  })''', (("float", (4096, 4096)),), _j2d9pt),
    LiftTest("j3d13pt (small)", CGO + "ppcg/j3d13pt/small/j3d13pt.lift", '''
val M = 256
val N = 256
val O = 256

def jacobi = UserFun("jacobi", Array("EE", "E", "W", "WW", "SS", "S", "N", "NN", "BB", "B", "F", "FF", "C"),
  """return 0.083f * EE + 0.083f * E + 0.083f * W + 0.083f * WW +
    |       0.083f * SS + 0.083f * S + 0.083f * N + 0.083f * NN +
    |       0.083f * BB + 0.083f * B + 0.083f * F + 0.083f * FF -
    |       0.996f * C;""".stripMargin,
  Seq(Float, Float, Float, Float, Float, Float, Float, Float, Float, Float, Float, Float, Float), Float)

λ(
  ArrayType(ArrayType(ArrayType(Float, M), N), O),
  input => {
    Map(Map(Scatter(Shift(2)))) o
      Map(Scatter(Shift(2))) o
        Scatter(Shift(2)) o
    Pad3D(2,2,2,Pad.Boundary.Clamp) o
    Map(Map(Map(λ(nbh => {
      val ee = nbh.at(2).at(2).at(4)
      val e  = nbh.at(2).at(2).at(3)
      val w  = nbh.at(2).at(2).at(1)
      val ww = nbh.at(2).at(2).at(0)
      val ss = nbh.at(2).at(4).at(2)
      val s  = nbh.at(2).at(3).at(2)
      val n  = nbh.at(2).at(1).at(2)
      val nn = nbh.at(2).at(0).at(2)
      val bb = nbh.at(4).at(2).at(2)
      val b  = nbh.at(3).at(2).at(2)
      val f  = nbh.at(1).at(2).at(2)
      val ff = nbh.at(0).at(2).at(2)
      val c  = nbh.at(2).at(2).at(2)

      λ(x =>
        jacobi(x, e, w, ww, ss, s, n, nn, bb, b, f, ff, c)) $ ee

    })))) o Slide3D(5, 1) $ input
  })''', (("float", (256, 256, 256)),), _j3d13pt),
    LiftTest("poisson3d (small)", CGO + "ppcg/poisson3d/small/poisson3d.lift", '''
val M = 256
val N = 256
val O = 256

def poisson = UserFun("jacobi", Array("C", "N", "S", "E", "W", "F", "B",
"FN", "BN", "FS", "BS", "FW", "BW", "NW", "SW", "FE", "BE", "NE", "SE"),
  """return 2.666f * C - 0.166f * (F + B + N + S + E + W) -
    |       0.0833f * (FN + BN + FS + BS + FW + BW +
    |                  NW + SW + FE + BE + NE + SE);""".stripMargin,
  Seq(Float, Float, Float, Float, Float, Float, Float, Float, Float,
    Float, Float, Float, Float, Float, Float, Float, Float, Float, Float), Float)

λ(
  ArrayType(ArrayType(ArrayType(Float, M), N), O),
  input => {
    Map(Map(Scatter(Shift(1)))) o
      Map(Scatter(Shift(1))) o
        Scatter(Shift(1)) o
    Pad3D(1,1,1,Pad.Boundary.Clamp) o
    Map(Map(Map(λ(nbh => {

      val c  = nbh.at(1).at(1).at(1)
      val n  = nbh.at(1).at(0).at(1)
      val s  = nbh.at(1).at(2).at(1)
      val e  = nbh.at(1).at(1).at(2)
      val w  = nbh.at(1).at(1).at(0)
      val f  = nbh.at(0).at(1).at(1)
      val b  = nbh.at(2).at(1).at(1)
      val fn = nbh.at(0).at(0).at(1)
      val bn = nbh.at(2).at(0).at(1)
      val fs = nbh.at(0).at(2).at(1)
      val bs = nbh.at(2).at(2).at(1)
      val fw = nbh.at(0).at(1).at(0)
      val bw = nbh.at(2).at(1).at(0)
      val nw = nbh.at(1).at(0).at(0)
      val sw = nbh.at(1).at(2).at(0)
      val fe = nbh.at(0).at(1).at(2)
      val be = nbh.at(2).at(1).at(2)
      val ne = nbh.at(1).at(0).at(2)
      val se = nbh.at(1).at(2).at(2)

      λ(x =>
        poisson(x, n, s, e, w, f, b, fn, bn, fs, bs, fw, bw, nw, sw, fe, be, ne, se)) $ c

    })))) o Slide3D(3, 1) $ input
  })''', (("float", (256, 256, 256)),), _poisson3d),
    LiftTest("shocStencil2D (small)", CGO + "handwritten/shocStencil2D/small/shocStencil2D.lift", '''
val M = Var("M", StartFromRange(4098)) //need to be power_of_two +2 because of missing pad
val N = Var("N", StartFromRange(4098))

fun(
    ArrayType(ArrayType(Float, M), N),
    ArrayType(Float, Cst(9)),
    (input, weights) => {
        Map(Map( \\(neighbourhood =>
			Reduce(add, 0.0f) o Map( \\(tuple =>
				mult.apply(Get(tuple,0),Get(tuple,1))
			)) $ Zip(weights,
			         Join() $ neighbourhood)))) o
		Slide2D(3, 1) $ input
  })''', (("float", (4098, 4098)), ("float", (9,))),
             lambda m, w: np.einsum("ijab,ab->ij", _windows2d(m, 3), w.reshape(3, 3)),
             values={1: WG}),
    # --- benchmarks -------------------------------------------------------------------------
    LiftTest("MatrixTransposition.naive", B + "MatrixTransposition.scala", '''
val N = SizeVar("N")
val M = SizeVar("M")

val naive = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, M), N),
  (matrix) => {
    MapGlb(0)(MapGlb(1)(id)) o Transpose() $ matrix
  })''', (("float", (256, 128)),), lambda m: m.T),
    LiftTest("MatrixTransposition.coalesced", B + "MatrixTransposition.scala", '''
val N = SizeVar("N")
val M = SizeVar("M")

val coalesced = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, M), N),
  (matrix) => {
    // Merge the tiles
    Untile2D() o
    MapWrg(0)(MapWrg(1)(
       toGlobal(MapLcl(1)(MapLcl(0)(id))) o
      // Transpose the tiles and then the insides of tiles
      TransposeW() o  toLocal(MapLcl(1)(MapLcl(0)(id)))
    )) o Transpose() o
      // Tile the matrix
      Tile(4, 4) $ matrix
  })''', (("float", (64, 32)),), lambda m: m.T),
    LiftTest("NBody.amd", B + "NBody.scala", '''
val calcAccAndAccumulate =
  UserFun("calcAcc", Array("p1", "p2", "deltaT", "espSqr", "acc"),
    """|{
      |  float4 r;
      |  r.xyz = p2.xyz - p1.xyz ;
      |  float distSqr = r.x*r.x + r.y*r.y + r.z*r.z;
      |  float invDist = 1.0f / sqrt(distSqr + espSqr);
      |  float invDistCube = invDist * invDist * invDist;
      |  float s = invDistCube * p2.w;
      |  float4 res;
      |  res.xyz = acc.xyz + s * r.xyz;
      |  return res;
      |}
      | """.stripMargin,
    Seq(Float4, Float4, Float, Float, Float4), Float4)

val update =
  UserFun("update", Array("pos", "vel", "deltaT", "acceleration"),
    """|{
      |  float4 newPos;
      |  newPos.xyz = pos.xyz + vel.xyz * deltaT + 0.5f * acceleration.xyz * deltaT * deltaT;
      |  newPos.w = pos.w;
      |  float4 newVel;
      |  newVel.xyz = vel.xyz + acceleration.xyz * deltaT;
      |  newVel.w = vel.w;
      |  Tuple t = {newPos, newVel};
      |  return t;
      |}
    """.stripMargin,
    Seq(Float4, Float4, Float, Float4), TupleType(Float4, Float4))

val N = SizeVar("N")

val amd = fun(
  ArrayTypeWSWC(Float4, N),
  ArrayTypeWSWC(Float4, N),
  Float,
  Float,
  (pos, vel, espSqr, deltaT) =>
    MapGlb(fun(p1 =>

      toGlobal(MapSeq(fun(acceleration =>
        update(Get(p1, 0), Get(p1, 1), deltaT, acceleration))))

        o ReduceSeq(fun((acc, p2) =>
        calcAccAndAccumulate(Get(p1,0), p2, deltaT, espSqr, acc)),
        Value("(float4) 0.0f", Float4)) $ pos

    )) $ Zip(pos, vel)
)''', (("float", (256, 4)), ("float", (256, 4)), ("float", ()), ("float", ())), _nbody,
             values={0: _bodies(256), 2: np.float32(0.01), 3: np.float32(0.005)}),
    LiftTest("NBody.lessLoadsToGlobal", B + "NBody.scala", '''
val calcAccAndAccumulate =
  UserFun("calcAcc", Array("p1", "p2", "deltaT", "espSqr", "acc"),
    """|{
      |  float4 r;
      |  r.xyz = p2.xyz - p1.xyz ;
      |  float distSqr = r.x*r.x + r.y*r.y + r.z*r.z;
      |  float invDist = 1.0f / sqrt(distSqr + espSqr);
      |  float invDistCube = invDist * invDist * invDist;
      |  float s = invDistCube * p2.w;
      |  float4 res;
      |  res.xyz = acc.xyz + s * r.xyz;
      |  return res;
      |}
      | """.stripMargin,
    Seq(Float4, Float4, Float, Float, Float4), Float4)

val update =
  UserFun("update", Array("pos", "vel", "deltaT", "acceleration"),
    """|{
      |  float4 newPos;
      |  newPos.xyz = pos.xyz + vel.xyz * deltaT + 0.5f * acceleration.xyz * deltaT * deltaT;
      |  newPos.w = pos.w;
      |  float4 newVel;
      |  newVel.xyz = vel.xyz + acceleration.xyz * deltaT;
      |  newVel.w = vel.w;
      |  Tuple t = {newPos, newVel};
      |  return t;
      |}
    """.stripMargin,
    Seq(Float4, Float4, Float, Float4), TupleType(Float4, Float4))

val N = SizeVar("N")

val lessLoadsToGlobal = fun(
  ArrayTypeWSWC(Float4, N),
  ArrayTypeWSWC(Float4, N),
  Float,
  Float,
  (pos, vel, espSqr, deltaT) =>
    MapGlb(fun(p1 =>
      fun (p1 =>
        toGlobal(MapSeq(fun(acceleration =>
          NBody.update(Get(p1, 0), Get(p1, 1), deltaT, acceleration))))

          o ReduceSeq(fun((acc, p2) =>
          NBody.calcAccAndAccumulate(Get(p1,0), p2, deltaT, espSqr, acc)),
          Value("(float4) 0.0f", Float4)) $ pos
      ) $ Tuple(toPrivate(idF4) $ Get(p1, 0), toPrivate(idF4) $ Get(p1,1))
    )) $ Zip(pos, vel)
)''', (("float", (256, 4)), ("float", (256, 4)), ("float", ()), ("float", ())), _nbody,
             values={0: _bodies(256), 2: np.float32(0.01), 3: np.float32(0.005)}),
    LiftTest("KMeans.rodinia", B + "KMeans.scala", '''
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

val rodinia = fun(
    featuresType, clustersType,
    (features, clusters) => {
      features :>> Transpose() :>> MapGlb( \\( feature => {
        clusters :>> ReduceSeq( \\( (tuple, cluster) => {
          val dist = Zip(feature, cluster) :>> ReduceSeq(update, 0.0f )
          Zip(dist, tuple) :>> MapSeq(test)
        }), Value("{3.40282347e+38, 0, 0}", ArrayTypeWSWC(TupleType(Float, Int, Int), 1)) ) :>>
        toGlobal(MapSeq(MapSeq(select)))
      }) )
    })''', (("float", (34, 512)), ("float", (5, 34))), _kmeans),
    LiftTest("MolecularDynamics.shoc", B + "MolecularDynamics.scala", '''
val mdCompute = UserFun("updateF",
  Array("f", "ipos", "jpos", "cutsq", "lj1", "lj2"),
  """|{
     |  // Calculate distance
     |  float delx = ipos.x - jpos.x;
     |  float dely = ipos.y - jpos.y;
     |  float delz = ipos.z - jpos.z;
     |  float r2inv = delx*delx + dely*dely + delz*delz;
     |  // If distance is less than cutoff, calculate force
     |  if (r2inv < cutsq) {
     |    r2inv = 1.0f/r2inv;
     |    float r6inv = r2inv * r2inv * r2inv;
     |    float forceC = r2inv*r6inv*(lj1*r6inv - lj2);
     |    f.x += delx * forceC;
     |    f.y += dely * forceC;
     |    f.z += delz * forceC;
     |  }
     |  return f;
     |}
  """.stripMargin,
  Seq(Float4, Float4, Float4, Float, Float, Float),
  Float4)

val N = SizeVar("N") // number of particles
val M = SizeVar("M") // number of neighbors

val shoc = fun(
  ArrayTypeWSWC(Float4, N),
  ArrayTypeWSWC(ArrayTypeWSWC(Int, N), M),
  Float,
  Float,
  Float,
  (particles, neighbourIds, cutsq, lj1, lj2) =>
    Zip(particles, Transpose() $ neighbourIds) :>>
    Split(128) :>>
    MapWrg(
      MapLcl( \\(p =>
        p._0 :>> toPrivate(idF4) :>> Let(particle => {
        Filter(particles, p._1) :>>
        ReduceSeq(\\((force, n) =>
          MolecularDynamics.mdCompute(force, particle, n, cutsq, lj1, lj2)
        ), Value(0.0f, Float4)) :>>
        toGlobal(MapSeq(id.vectorize(4)))
        })
      ) )
    ) :>>
    Join()
)''', (("float", (256, 4)), ("int", (16, 256)), ("float", ()), ("float", ()), ("float", ())),
             _md, values={0: MD_PARTICLES, 1: MD_NEIGHBOURS, 2: np.float32(16.0),
                          3: np.float32(1.5), 4: np.float32(2.0)}),
    LiftTest("NearestNeighbour.rodinia", B + "NearestNeighbour.scala", '''
val distance = UserFun("distance_", Array("loc", "lat", "lng"),
  "{ return sqrt( (lat - loc._0) * (lat - loc._0) + (lng - loc._1) * (lng - loc._1) ); }",
  Seq(TupleType(Float, Float), Float, Float), Float)

val N = SizeVar("N")

val rodinia = fun(
  ArrayTypeWSWC(TupleType(Float, Float), N), Float, Float,
  (locations, lat, lng) => {
    locations :>> MapGlb( \\(loc => distance(loc, lat, lng)) )
  })''', (("pair", (1024,)), ("float", ()), ("float", ())),
             lambda loc, lat, lng: np.sqrt((lat - loc[0]) ** 2 + (lng - loc[1]) ** 2),
             values={1: np.float32(0.25), 2: np.float32(-0.5)}),
    LiftTest("SumAbsoluteValues.intelDerivedNoWarp1", B + "SumAbsoluteValues.scala", '''
val intelDerivedNoWarp1 = fun(ArrayTypeWSWC(Float, SizeVar("N")), (in) => {
  Join() o MapWrg(
    asScalar() o Join() o  MapLcl(
      toGlobal(MapSeq(id.vectorize(4))) o ReduceSeq(absAndSumUp.vectorize(4), Value(0.0f).vectorize(4))
    ) o Split(8192) o asVector(4)
  ) o Split(32768) $ in
})''', (("float", (65536,)),), lambda x: np.abs(x).reshape(-1, 8192, 4).sum(axis=1)),
    LiftTest("SumAbsoluteValues.amdDerived1_", B + "SumAbsoluteValues.scala", '''
val amdDerived1_ = fun(ArrayTypeWSWC(Float, SizeVar("N")), (in) => {
  in :>>
  Split(4096*128) :>>
  MapWrg(
    asVector(2) >>>
    ReorderStride(64) >>>
    Split(2048) >>>
    MapLcl(
      ReduceSeq(add.vectorize(2), Value(0.0f).vectorize(2)) >>>
      toGlobal(MapSeq(id.vectorize(2)))
    ) >>>
    Join() >>>
    asScalar()
  ) :>>
  Join()
})''', (("float", (524288,)),), _amd_derived1),
    LiftTest("VectorScaling.scalINTEL", B + "VectorScaling.scala", '''
val scalINTEL = fun( ArrayTypeWSWC(Float, SizeVar("N")), Float, (input, alpha) =>
  Join() o MapWrg(
    Join() o  MapLcl(MapSeq(
      fun( x => mult.vectorize(4).apply(alpha.vectorize(4), x) )
    )) o Split(128) o asVector(4)
  ) o Split(4*128*128) $ input
)''', (("float", (131072,)), ("float", ())), lambda x, a: x * a, values={1: np.float32(3.0)}),
    LiftTest("Stencil1D.TILED_3_POINT_1D_WRAP", B + "Stencil1D.scala", '''
val makePositive = UserFun("makePositive", "i", "{ return (i < 0) ? 0 : i;  }", Float, Float)

val f = fun(
  ArrayTypeWSWC(Float, Var("N")),
  ArrayTypeWSWC(Float, 3),
  (input, weights) => {
    MapWrg(fun(tile =>
      MapLcl(
      fun(neighbourhood => {
        toGlobal(MapSeqUnroll(makePositive)) o
          ReduceSeqUnroll(fun((acc, y) => {
            multAndSumUp.apply(acc, Get(y, 0), Get(y, 1))
          }), 0.0f) $
          Zip(weights, neighbourhood)
      })
    ) o Slide(3, 1) o MapLcl(toLocal(id)) $ tile
    )) o Slide(18, 16) o Pad(1, 1, Pad.Boundary.Wrap) $ input
  }
)''', (("float", (1024,)), ("float", (3,))),
             lambda x, w: np.maximum(_stencil1d(x, w, 1, 1, "wrap"), 0), values={1: W3}),
    LiftTest("Stencil1D.9_POINT_1D_WRAP", B + "Stencil1D.scala", '''
val makePositive = UserFun("makePositive", "i", "{ return (i < 0) ? 0 : i;  }", Float, Float)

val f = fun(
  ArrayTypeWSWC(Float, Var("N")),
  ArrayTypeWSWC(Float, 9),
  (input, weights) => {
    MapGlb(
      fun(neighbourhood => {
        toGlobal(MapSeqUnroll(makePositive)) o
          ReduceSeqUnroll(fun((acc, y) => {
            multAndSumUp.apply(acc, Get(y, 0), Get(y, 1))
          }), 0.0f) $
          Zip(weights, neighbourhood)
      })
    ) o Slide(9, 1) o Pad(4, 4, Pad.Boundary.Wrap) $ input
  }
)''', (("float", (1024,)), ("float", (9,))),
             lambda x, w: np.maximum(_stencil1d(x, w, 4, 4, "wrap"), 0), values={1: W9}),
    LiftTest("DotProduct.dotProduct1", B + "DotProduct.scala", '''
val N = SizeVar("N")

val dotProduct1 = fun(ArrayTypeWSWC(Float, N),
  ArrayTypeWSWC(Float, N), (left, right) => {
    Join() o Join() o MapWrg(
       toGlobal(MapLcl(toGlobal(MapSeq(id)) o ReduceSeq(fun((acc, y) => multAndSumUp.apply(acc, Get(y, 0), Get(y, 1))), 0.0f)))
        o Split(2048) o ReorderStride(128)
    ) o Split(2048*128) $ Zip(left, right)
  })''', (("float", (524288,)), ("float", (524288,))), _dot_product1),
    LiftTest("Convolution.blurY", B + "Convolution.scala", '''
val inputSize = 4096

val blurY = fun(
  //ArrayTypeWSWC(ArrayTypeWSWC(Float, Var("N", StartFromRange(100))), Var("M", StartFromRange(100))),
  ArrayTypeWSWC(ArrayTypeWSWC(Float, inputSize), inputSize),
  ArrayTypeWSWC(Float, 17),
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
    ) o Slide2D(17,1, 1,1) o Pad2D(8,8, 0,0, Pad.Boundary.Clamp)$ matrix
  })''', (("float", (4096, 4096)), ("float", (17,))), _blur_y, values={1: W17}),
    # --- PolyBench -------------------------------------------------------------------------
    LiftTest("HighLevel.gemm", PB, '''
val N = SizeVar("N")
val M = SizeVar("M")
val K = SizeVar("K")

val f = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, K), N),
  ArrayTypeWSWC(ArrayTypeWSWC(Float, M), K),
  ArrayTypeWSWC(ArrayTypeWSWC(Float, M), N),
  Float,
  Float,
  (A, B, C, alpha, beta) => {
    MapGlb(fun( aRow =>
      Join() o  MapSeq(fun( bCol =>
        toGlobal(MapSeq(id)) o
        toPrivate(MapSeq(fun(x => multAndSumUp(x, beta, Get(bCol, 1))))) o
        toPrivate(MapSeq(fun(x => mult(x, alpha)))) o
        ReduceSeq(fun((acc, y) =>
          multAndSumUp.apply(acc, Get(y, 0), Get(y, 1))
        ), 0.0f) $ Zip(Get(aRow, 0), Get(bCol, 0))
      )) $ Zip(Transpose() $ B, Get(aRow, 1))
    )) $ Zip(A, C)
  })''', (("float", (128, 64)), ("float", (64, 256)), ("float", (128, 256)), ("float", ()), ("float", ())),
             lambda a, b, c, al, be: (a @ b) * al + c * be, values={3: np.float32(1.5), 4: np.float32(0.5)}),
    LiftTest("HighLevel.atax", PB, '''
val N = SizeVar("N")
val K = SizeVar("K")

val f = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, N), K),
  ArrayTypeWSWC(Float, K),
  (matrix, vector) =>
    MapGlb(fun(row => toGlobal(MapSeq(id)) o
      ReduceSeq(fun((acc, y) =>
        multAndSumUp.apply(acc, Get(y, 0), Get(y, 1))
      ), 0.0f) $ Zip(row, vector)
    )) o Transpose() $ matrix
)''', (("float", (128, 256)), ("float", (128,))), lambda m, v: m.T @ v),
    LiftTest("HighLevel.gemver (outerProduct)", PB, '''
val N = SizeVar("N")

val outerProduct = fun(
  ArrayTypeWSWC(Float, N),
  ArrayTypeWSWC(Float, N),
  (a, b) => MapGlb(fun(x => MapSeq(fun(y => mult(x, y))) $ b)) $ a
)''', (("float", (128,)), ("float", (128,))), np.outer),
    LiftTest("HighLevel.matrixAdd", PB, '''
val N = SizeVar("N")
val M = SizeVar("M")

val matrixAdd = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, M), N),
  ArrayTypeWSWC(ArrayTypeWSWC(Float, M), N),
  (A, B) =>
    MapGlb(fun(x => MapSeq(add) $ Zip(Get(x, 0), Get(x, 1)))) $ Zip(A, B)
)''', (("float", (128, 96)), ("float", (128, 96))), lambda a, b: a + b),
    LiftTest("HighLevel.gemvKernel", PB, '''
val N = SizeVar("N")
val M = SizeVar("M")

val gemvKernel = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, M), N),
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
    )) $ Zip(matrix, vectorY)
  })''', (("float", (256, 128)), ("float", (128,)), ("float", (256,)), ("float", ()), ("float", ())),
             lambda m, x, y, a, b: (m @ x) * a + y * b, values={3: np.float32(1.5), 4: np.float32(2.5)}),
    # --- the stencil tutorial ---------------------------------------------------------------
    LiftTest("GettingStarted.lowLevel3pointJacobi", GS, '''
val clamp = Pad.Boundary.Clamp // abbreviation

def lowLevel3pointJacobi =
  λ(ArrayTypeWSWC(Float, SizeVar("N")),
    A =>
    MapSeq(                                               // (c)
      toGlobal(MapSeq(id)) o ReduceSeq(add, 0.0f)
    ) o
      Slide(3, 1) o                                       // (a)
        Pad(1, 1, clamp) $ A                              // (b)
  )''', (("float", (1024,)),), lambda x: _stencil1d(x, np.ones(3, np.float32), 1, 1, "clamp")),
    LiftTest("GettingStarted.tiled3pointJacobi", GS, '''
val clamp = Pad.Boundary.Clamp // abbreviation

def tiled3pointJacobi = λ(
  ArrayTypeWSWC(Float, SizeVar("N")),
  A =>
  Join() o MapGlb(1)(MapGlb(0)(toGlobal(MapSeq(id)) o ReduceSeq(add, 0.0f))) o
    Map(Slide(3, 1)) o Slide(4, 2) o
      Pad(1,1,clamp) $ A
)''', (("float", (1024,)),), lambda x: _stencil1d(x, np.ones(3, np.float32), 1, 1, "clamp")),
]

# --- a second batch ---------------------------------------------------------------------------
# Assembled after the reader and code generator were fixed for the programs above, and
# measured before any further change: a check that those fixes were not fitted to them.


def _gesummv(a, b, x, alpha, beta):
    return (a @ x) * alpha + (b @ x) * beta


def _hotspot(power, heat):
    p = np.pad(heat, 1, mode="edge").astype(np.float64)
    n, m = heat.shape
    top, bottom = p[0:n, 1:m + 1], p[2:n + 2, 1:m + 1]
    left, right, c = p[1:n + 1, 0:m], p[1:n + 1, 2:m + 2], p[1:n + 1, 1:m + 1]
    return c + 1.365333 * (power + 0.1 * (bottom + top - 2 * c) + 0.1 * (left + right - 2 * c)
                           + 4.882813e-05 * (80.0 - c))


def _box27(a):
    """Each point's sum over its 3x3x3 neighbourhood, the volume mirrored at its faces
    (Lift's Pad.Boundary.MirrorUnsafe repeats the edge)."""
    p = np.pad(a, 1, mode="symmetric")
    windows = np.lib.stride_tricks.sliding_window_view(p, (3, 3, 3))
    return windows.sum(axis=(3, 4, 5))


def _hotspot_sm(a):
    """``_box27`` in Lift's tiles of 8 x 4 x 64 points, left tiled: [1][128][8][8][4][64]."""
    return _box27(a).reshape(1, 8, 128, 4, 8, 64).transpose(0, 2, 4, 1, 3, 5)


SECOND_BATCH = [
    # also in tests/test_lift_language.py (GESUMMV): not unseen
    LiftTest("GESUMMV.fused", B + "GESUMMV.scala", '''
val N = SizeVar("N")
val K = SizeVar("M")

val f = UserFun("f", Array("acc", "a", "b", "x"),
  "{ Tuple t = { acc._0 + a * x, acc._1 + b * x };" +
    "return t; }",
  Seq(TupleType(Float, Float), Float, Float, Float), TupleType(Float, Float))

val g = UserFun("g", Array("alpha", "a", "beta", "b"),
  "{ return alpha * a + beta * b; }",
  Seq(Float, Float, Float, Float), Float)

val fused = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, K), N),
  ArrayTypeWSWC(ArrayTypeWSWC(Float, K), N),
  ArrayTypeWSWC(Float, K),
  Float, Float,
  (A, B, x, alpha, beta) =>
    Zip(A, B) :>> MapGlb(\\( p => {
      val aRow = p._0
      val bRow = p._1
      Zip(aRow, bRow, x) :>>
        ReduceSeq(\\( (acc, p) => {
          val a = p._0
          val b = p._1
          val x = p._2
          f(acc, a, b, x)
        }), Value("{0.0f, 0.0f}", TupleType(Float, Float))) :>>
        MapSeq(\\( p => { g(alpha, p._0, beta, p._1) })) :>> toGlobal(MapSeq(id))
    }))
)''', (("float", (128, 256)), ("float", (128, 256)), ("float", (256,)), ("float", ()), ("float", ())),
             _gesummv, values={3: np.float32(2.0), 4: np.float32(1.5)}),
    LiftTest("GESUMMV.simpleUserFun", B + "GESUMMV.scala", '''
val N = SizeVar("N")
val K = SizeVar("M")

val simpleUserFun = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, K), N),
  ArrayTypeWSWC(ArrayTypeWSWC(Float, K), N),
  ArrayTypeWSWC(Float, K),
  Float, Float,
  (A, B, x, alpha, beta) =>
    Zip(A, B) :>> MapGlb(\\( p => {
      val aRow = p._0
      val bRow = p._1
      Zip(aRow, bRow, x) :>>
        ReduceSeq(\\( (acc, p) => {
          val a = p._0
          val b = p._1
          val x = p._2
          idFF $ Tuple(add(acc._0, mult(a, x)), add(acc._1, mult(b, x)))
        }), Value("{0.0f, 0.0f}", TupleType(Float, Float))) :>>
        MapSeq(\\( p =>  add(mult(alpha, p._0), mult(beta, p._1)) )) :>>
        toGlobal(MapSeq(id))
    }))
)''', (("float", (128, 256)), ("float", (128, 256)), ("float", (256,)), ("float", ()), ("float", ())),
             _gesummv, values={3: np.float32(2.0), 4: np.float32(1.5)}),
    LiftTest("GESUMMV.fusedOptimised", B + "GESUMMV.scala", '''
val N = SizeVar("N")
val K = SizeVar("M")

val f = UserFun("f", Array("acc", "a", "b", "x"),
  "{ Tuple t = { acc._0 + a * x, acc._1 + b * x };" +
    "return t; }",
  Seq(TupleType(Float, Float), Float, Float, Float), TupleType(Float, Float))

val g = UserFun("g", Array("alpha", "a", "beta", "b"),
  "{ return alpha * a + beta * b; }",
  Seq(Float, Float, Float, Float), Float)

val h = UserFun("h", Array("a", "b"), "{ Tuple t = {a._0 + b._0, a._1 + b._1}; return t; }",
  Seq(TupleType(Float, Float), TupleType(Float, Float)),
  TupleType(Float, Float))

val stride = 128

val fusedOptimised = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, K), N),
  ArrayTypeWSWC(ArrayTypeWSWC(Float, K), N),
  ArrayTypeWSWC(Float, K),
  Float, Float,
  (A, B, x, alpha, beta) =>
    MapWrg(fun(matrices =>
      toGlobal(MapLcl(fun(partials => g(alpha, partials._0, beta, partials._1)))) o
        MapSeq(toLocal(idFF)) o
        ReduceSeq(h, Value("{0.0f, 0.0f}", TupleType(Float, Float))) o
        Join() o
        MapLcl(MapSeq(toLocal(idFF)) o
          ReduceSeq(fun((acc, next) =>
            fun(inPrivate =>
              f(acc, Get(inPrivate, 1), Get(inPrivate,2), Get(inPrivate,0))
            ) o toPrivate(fun(next => Tuple(id(Get(next, 0)), id(Get(next,1)), id(Get(next,2))))) $ next
          ), Value("{0.0f, 0.0f}", TupleType(Float, Float)))
        ) o
        Split(K/^stride) o
        ReorderStride(stride) $
        Zip(x, Get(matrices, 0), Get(matrices, 1))
    )) $ Zip(A, B)
)''', (("float", (64, 512)), ("float", (64, 512)), ("float", (512,)), ("float", ()), ("float", ())),
             _gesummv, values={3: np.float32(2.0), 4: np.float32(1.5)}),
    LiftTest("MatrixVector.fullMatrixVectorFusedOpenCL", B + "MatrixVector.scala", '''
val N = SizeVar("N")
val M = SizeVar("M")

val fullMatrixVectorFusedOpenCL = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, N), M),
  ArrayTypeWSWC(Float, N),
  ArrayTypeWSWC(Float, M),
  Float,
  Float,
  (matrix, vectorX, vectorY, alpha, beta) => {
    MapWrg(fun( t =>
      Join() o  toGlobal(MapLcl(MapSeq(fun( x => multAndSumUp(x, Get(t, 1), beta))))) o Split(1) o
          Join() o  MapLcl(MapSeq(fun( x => mult(alpha, x) ))) o Split(1) o
            Join() o  toLocal(MapLcl(toLocal(MapSeq(id)) o ReduceSeq(fun((acc, y) => multAndSumUp.apply(acc, Get(y, 0), Get(y, 1))), 0.0f))) o Split(N) $ Zip(vectorX, Get(t, 0)))
    ) $ Zip(matrix, vectorY)
  })''', (("float", (128, 256)), ("float", (256,)), ("float", (128,)), ("float", ()), ("float", ())),
             lambda m, x, y, a, b: (m @ x) * a + y * b, values={3: np.float32(1.5), 4: np.float32(2.5)}),
    LiftTest("MatrixVector.fullMatrixVectorFusedOpenCLAMD_", B + "MatrixVector.scala", '''
val N = SizeVar("N")
val M = SizeVar("M")

val fullMatrixVectorFusedOpenCLAMD_ = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, N), M),
  ArrayTypeWSWC(Float, N),
  ArrayTypeWSWC(Float, M),
  Float,
  Float,
  (matrix, vectorX, vectorY, alpha, beta) => {
    Zip(matrix, vectorY) :>>
      MapWrg(
        \\(pair => {
          val matrixRow = pair._0
          val y_i       = pair._1

          val partialDotProdcut = {
            Zip(vectorX, matrixRow) :>>
              ReorderStride(128) :>>
              Split(N /^ 128) :>>
              toLocal(MapLcl(
                ReduceSeq(\\((acc, y) => multAndSumUp(acc, y._0, y._1)), 0.0f) >>>
                  toLocal(MapSeq(id))
              )) :>>
              Join()
          }

          val timesAlpha = {
            partialDotProdcut :>>
              Split(1) :>> MapLcl(MapSeq(\\(x => mult(alpha, x)))) :>> Join()
          }

          val fullDotProduct = {
            timesAlpha  :>>
              Split(128) :>> MapLcl(ReduceSeq(add, 0.0f) >>> toLocal(MapSeq(id))) :>> Join()
          }

          fullDotProduct  :>>
            Split(1) :>>
            toGlobal(MapLcl(MapSeq(fun(x => multAndSumUp(x, y_i, beta))))) :>>
            Join()
        })
      )
  })''', (("float", (64, 512)), ("float", (512,)), ("float", (64,)), ("float", ()), ("float", ())),
             lambda m, x, y, a, b: (m @ x) * a + y * b, values={3: np.float32(1.5), 4: np.float32(2.5)}),
    LiftTest("RodiniaHotspot.hotspotAt", B + "RodiniaHotspot.scala", '''
def rodiniaUserFun = UserFun("rodiniaUserFun",
    Array("power", "top", "bottom", "left", "right", "center"), "{ float step_div_cap = 1.365333e+00; return center + step_div_cap*(power + 0.1f*(bottom + top - 2*center) + 0.1*(left + right - 2*center) + 4.882813e-05*(80.0f - center)); }",
    Seq(Float, Float, Float, Float, Float, Float), Float)

def rodiniaStencil = \\(tuple => {
  val nbh = tuple._0
  val powerValue = tuple._1

  val top = Get(tuple,0).at(0).at(1)
  val bottom = tuple._0.at(2).at(1)
  val left = tuple._0.at(1).at(0)
  val right = tuple._0.at(1).at(2)
  val center = tuple._0.at(1).at(1)

  toGlobal(id) o toPrivate(fun(x => rodiniaUserFun(x, top, bottom, left, right, center))) $ powerValue
})

val M = Var("M", StartFromRange(4096))
val N = Var("N", StartFromRange(4096))

val hotspotAt = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, M), N),
  ArrayTypeWSWC(ArrayTypeWSWC(Float, M), N),
  (power, heat) => {
    MapGlb(1)(MapGlb(0)(rodiniaStencil)) $ Zip2D(
      Slide2D(3, 1) o Pad2D(1, 1, Pad.Boundary.Clamp) $ heat,
      power)
  }
)''', (("float", (4096, 4096)), ("float", (4096, 4096))), _hotspot),
    LiftTest("RodiniaHotspot.hotspotTiled", B + "RodiniaHotspot.scala", '''
def rodiniaUserFun = UserFun("rodiniaUserFun",
    Array("power", "top", "bottom", "left", "right", "center"), "{ float step_div_cap = 1.365333e+00; return center + step_div_cap*(power + 0.1f*(bottom + top - 2*center) + 0.1*(left + right - 2*center) + 4.882813e-05*(80.0f - center)); }",
    Seq(Float, Float, Float, Float, Float, Float), Float)

def rodiniaStencil = \\(tuple => {
  val nbh = tuple._0
  val powerValue = tuple._1

  val top = Get(tuple,0).at(0).at(1)
  val bottom = tuple._0.at(2).at(1)
  val left = tuple._0.at(1).at(0)
  val right = tuple._0.at(1).at(2)
  val center = tuple._0.at(1).at(1)

  toGlobal(id) o toPrivate(fun(x => rodiniaUserFun(x, top, bottom, left, right, center))) $ powerValue
})

val M = Var("M", StartFromRange(4096))
val N = Var("N", StartFromRange(4096))

val hotspotTiled = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, M), N),
  ArrayTypeWSWC(ArrayTypeWSWC(Float, M), N),
  (power, heat) => {
    Map(Join()) o Join() o Map(TransposeW()) o
      MapWrg(1)(MapWrg(0)(\\(tile => {
        MapLcl(1)(MapLcl(0)(rodiniaStencil)) $ Zip2D(
          Slide2D(3, 1) o toLocal(MapLcl(1)(MapLcl(0)(id))) $ tile._0,
          tile._1)
      }))) $ Zip2D(
      Slide2D(6, 4, 514, 512) o Pad2D(1, 1, Pad.Boundary.Clamp) $ heat,
      Slide2D(4, 4, 512, 512) $ power)
  }
)''', (("float", (4096, 4096)), ("float", (4096, 4096))), _hotspot),
    LiftTest("SHOCStencil2D.shocNoTiling", B + "SHOCStencil2D.scala", '''
val shocNoTiling = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, Var("N", StartFromRange(6))), Var("M", StartFromRange(6))),
  ArrayTypeWSWC(Float, 9),
  (matrix, weights) => {
    MapGlb(1)(MapGlb(0)(
      // stencil computation
      fun(elem => {
        toGlobal(MapSeqUnroll(id)) o
          ReduceSeqUnroll(fun( (acc, pair) => {
            val pixel = pair._0
            val weight = pair._1
            multAndSumUp.apply(acc, pixel, weight)
          }), 0.0f) $ Zip(Join() $ elem, weights)
      })
      // create neighbourhoods in tiles
    )) o Slide2D(3, 1, 3, 1) $ matrix
  }
)''', (("float", (66, 130)), ("float", (9,))),
             lambda m, w: np.einsum("ijab,ab->ij", _windows2d(m, 3), w.reshape(3, 3)),
             values={1: WG}),
    LiftTest("SHOCStencil2D.shocGeneric(128, 16)", B + "SHOCStencil2D.scala", '''
val shocGeneric = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, Var("N", StartFromRange(6))), Var("M", StartFromRange(6))),
  ArrayTypeWSWC(Float, 9),
  (matrix, weights) => {
    Untile2D() o MapWrg(1)(MapWrg(0)(fun(tile =>

      MapLcl(1)(MapLcl(0)(
        // stencil computation
        fun(elem => {
          toGlobal(MapSeqUnroll(id)) o
            ReduceSeqUnroll(fun((acc, pair) => {
              val pixel = Get(pair, 0)
              val weight = Get(pair, 1)
              multAndSumUp.apply(acc, pixel, weight)
            }), 0.0f) $ Zip(Join() $ elem, weights)
        })
        // create neighbourhoods in tiles
      )) o Slide2D(3,1, 3,1) o
        // load to local memory
        toLocal(MapLcl(1)(MapLcl(0)(id))) $ tile
    ))) o
      // tiling
      Slide2D(16 + 2,16, 128 + 2,128) $ matrix
  }
)''', (("float", (66, 258)), ("float", (9,))),
             lambda m, w: np.einsum("ijab,ab->ij", _windows2d(m, 3), w.reshape(3, 3)),
             values={1: WG}),
    LiftTest("Hotspot3D.hotspotGenericSize", B + "Hotspot3D.scala", '''
val N = Var("N", StartFromRange(2))
val M = Var("N", StartFromRange(2))

val hotspotGenericSize = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(ArrayTypeWSWC(Float, M), M), N),
  (input) => {
    MapSeq(MapGlb(1)(MapGlb(0)( \\(nbh =>
      toGlobal(MapSeq(id)) o
        ReduceSeqUnroll(add, 0.0f) o Join() o Join() $ nbh)
    ))) o Slide3D(3,1) o Pad3D(1,1,1, Pad.Boundary.MirrorUnsafe) $ input
  }
)''', (("float", (8, 16, 16)),), _box27),
    LiftTest("Hotspot3D.hotspotInjectSize", B + "Hotspot3D.scala", '''
val hotspotInjectSize = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(ArrayTypeWSWC(Float, 512), 512), 8),
  (input) => {
    MapSeq(MapGlb(1)(MapGlb(0)( \\(nbh =>
      toGlobal(MapSeq(id)) o
        ReduceSeqUnroll(add, 0.0f) o Join() o Join() $ nbh)
    ))) o Slide3D(3,1) o Pad3D(1,1,1, Pad.Boundary.MirrorUnsafe) $ input
  }
)''', (("float", (8, 512, 512)),), _box27),
    LiftTest("Hotspot3D.hotspotSM", B + "Hotspot3D.scala", '''
val hotspotSM = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(ArrayTypeWSWC(Float, 512), 512), 8),
  (input) => {
    MapSeq(MapWrg(1)(MapWrg(0)( \\(tiles =>
      MapSeq(MapLcl(1)(MapLcl(0)( \\(nbh =>
        toGlobal(MapSeq(id)) o
          ReduceSeq(add, 0.0f) o Join() o Join() $ nbh)))) o
        Slide3D(3,1) o
        toLocal(MapSeq(MapLcl(1)(MapLcl(0)(id)))) $ tiles)
    ))) o Slide3D(66,64, 6,4, 10,10) o Pad3D(1,1,1, Pad.Boundary.MirrorUnsafe) $ input
  }
)''', (("float", (8, 512, 512)),), _hotspot_sm),
]

# --- a third batch ----------------------------------------------------------------------------
# Lift's tests of MapSeqSlide and of a tiled 17 x 17 convolution, assembled after the second
# batch ran and measured before any further change.

MS = "src/test/opencl/generator/stencil/TestMapSeqSlide.scala"
CS = "src/test/opencl/generator/stencil/TestConvolutionSeparable.scala"


def _seven_point(a):
    at = lambda *o: _inner(a, 3, *o)  # noqa: E731
    return (at(2, 1, 1) + at(1, 2, 1) + at(1, 1, 2) + at(1, 1, 0) + at(1, 0, 1) + at(1, 1, 1)
            + at(0, 1, 1))


def _box17_clamped(m, w):
    padded = np.pad(m, 8, mode="edge")
    windows = np.lib.stride_tricks.sliding_window_view(padded, (17, 17))
    return np.einsum("ijab,ab->ij", windows, w.reshape(17, 17))


THIRD_BATCH = [
    LiftTest("TestMapSeqSlide.reduceSlide1DTestSize5Step3", MS, '''
val N = 2 + SizeVar("N")

val f = fun(
  ArrayTypeWSWC(Float, N),
  (input) =>
     toGlobal(MapSeqSlide(MapSeqUnroll(id) o ReduceSeqUnroll(absAndSumUp,0.0f), 5,3)) $ input
)''', (("float", (20,)),),
             lambda x: np.abs(np.lib.stride_tricks.sliding_window_view(x, 5)[::3]).sum(axis=1)),
    LiftTest("TestMapSeqSlide.reduceSlide2DTest9PointStencilAsymmetric", MS, '''
val N = 2 + SizeVar("N")
val M = 2 + SizeVar("M")

val f = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(Float, M), N),
  (input) =>
    TransposeW() o
    MapGlb(0)(fun(x => {
      toGlobal(MapSeqSlide(MapSeq(id) o ReduceSeq(add, 0.0f) o Join(), 3, 1)) o Transpose() $ x
    })) o Slide(3,1) o Transpose() $ input
)''', (("float", (8, 16)),), lambda m: _windows2d(m, 3).sum(axis=(2, 3))),
    LiftTest("TestMapSeqSlide.original3DStencil", MS, '''
val O = 2 + SizeVar("O")
val N = 2 + SizeVar("N")
val M = 2 + SizeVar("M")

val f = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(ArrayTypeWSWC(Float, O), N), M),
  (mat) => {
    (MapGlb(2)(MapGlb(1)(MapGlb(0)(fun(m => {

      val `tile[0][0][0]` = m.at(0).at(0).at(0)

      val `tile[1][1][1]` = m.at(1).at(1).at(1)
      val `tile[0][1][1]` = m.at(0).at(1).at(1)
      val `tile[1][0][1]` = m.at(1).at(0).at(1)
      val `tile[1][1][0]` = m.at(1).at(1).at(0)
      val `tile[1][1][2]` = m.at(1).at(1).at(2)
      val `tile[1][2][1]` = m.at(1).at(2).at(1)
      val `tile[2][1][1]` = m.at(2).at(1).at(1)

      val stencil =  fun(x => add(x,`tile[0][1][1]`)) o
        fun(x => add(x,`tile[1][1][1]`)) o
        fun(x => add(x,`tile[1][0][1]`)) o
        fun(x => add(x,`tile[1][1][0]`)) o
        fun(x => add(x,`tile[1][1][2]`)) o
        fun(x => add(x,`tile[1][2][1]`)) $ `tile[2][1][1]`

      toGlobal(id) $ stencil

    }))))
      o Slide3D(3,1) $ mat)
  })''', (("float", (6, 8, 10)),), _seven_point),
    LiftTest("TestMapSeqSlide.stencil3D", MS, '''
val O = 2 + SizeVar("O")
val N = 2 + SizeVar("N")
val M = 2 + SizeVar("M")

val f = fun(
  ArrayTypeWSWC(ArrayTypeWSWC(ArrayTypeWSWC(Float, O), N), M),
  (input) =>
    TransposeW() o Map(TransposeW()) o TransposeW() o
    MapGlb(1)(MapGlb(0)(fun(x => {
      toGlobal(MapSeqSlide(
        fun(m => {

          val `tile[0][0][0]` = m.at(0).at(0).at(0)

          val `tile[1][1][1]` = m.at(1).at(1).at(1)
          val `tile[0][1][1]` = m.at(0).at(1).at(1)
          val `tile[1][0][1]` = m.at(1).at(0).at(1)
          val `tile[1][1][0]` = m.at(1).at(1).at(0)
          val `tile[1][1][2]` = m.at(1).at(1).at(2)
          val `tile[1][2][1]` = m.at(1).at(2).at(1)
          val `tile[2][1][1]` = m.at(2).at(1).at(1)

          val stencil =  toPrivate(fun(x => add(x,`tile[0][1][1]`)) o
            fun(x => add(x,`tile[1][1][1]`)) o
            fun(x => add(x,`tile[1][0][1]`)) o
            fun(x => add(x,`tile[1][1][0]`)) o
            fun(x => add(x,`tile[1][1][2]`)) o
            fun(x => add(x,`tile[1][2][1]`))) $ `tile[2][1][1]`

          toGlobal(id) $ stencil

        }), 3,1)) o Transpose() o Map(Transpose()) $ x }))) o Transpose() o Slide2D(3,1) o Map(Transpose()) o Transpose()  $ input
)''', (("float", (6, 8, 10)),), _seven_point),
    LiftTest("TestConvolutionSeparable.convolutionTiled", CS, '''
val stencil = fun(
  ArrayType(ArrayType(Float, Var("N", StartFromRange(100))), Var("M", StartFromRange(100))),
  ArrayType(Float, 17 * 17),
  (matrix, weights) => {
    Untile2D() o MapWrg(1)(MapWrg(0)(fun(tile =>

      MapLcl(1)(MapLcl(0)(
        // stencil computation
        fun(elem => {
          toGlobal(MapSeqUnroll(id)) o
            ReduceSeq(fun((acc, pair) => {
              val pixel = Get(pair, 0)
              val weight = Get(pair, 1)
              multAndSumUp.apply(acc, pixel, weight)
            }), 0.0f) $ Zip(Join() $ elem, weights)
        })
        // create neighbourhoods in tiles
      )) o Slide2D(17, 1, 17, 1) o
        // load to local memory
        toLocal(MapLcl(1)(MapLcl(0)(id))) $ tile
    ))) o
      // tiling
      Slide2D(32, 16, 32, 16) o
      Pad2D(8, 8, 8, 8, Pad.Boundary.Clamp) $ matrix
  }
)''', (("float", (128, 128)), ("float", (289,))), _box17_clamped,
             values={1: np.ones(289, np.float32)}),
]

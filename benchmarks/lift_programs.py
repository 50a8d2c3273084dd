"""Lift's benchmark programs as Lift writes them (workbench/programs/lift/): each searched
(the guided strategy, a small budget each search measures in full, a time limit only where
one is given) and its best kernel timed
again beside the peers in the same interleaved rounds. Two kinds of peer:

- the hand-written OpenCL kernel of ``benchmarks.peers``, written the way the fast
  implementations compute the program (N-body's bodies tiled through local memory, MRI-Q's
  samples tiled, GESUMMV a row a group; on PoCL float8 or float16 lanes, a chunk a work-item),
  run on the same device: the table gives the searched kernel's time over it ("best vs
  hand-written") and both kernels' rate, GFLOP/s for the dense programs and GB/s for the
  stencils and maps, with its share of the device's measured ceiling (``workbench.ceilings``:
  float32 multiply-adds, a copy);
- the array libraries: on a CPU NumPy (SciPy's ``ndimage.correlate`` for the stencils; for
  K-means and MRI-Q also the fastest NumPy formulation, by matrix products), on
  an NVIDIA GPU CuPy (``cupyx.scipy.ndimage``), where CuPy is installed; and a STREAM-like
  copy of as many bytes as the program moves.

Every kernel is checked against the interpreter (the hand-written one too); the interpreter
is checked against the program's NumPy reference (at the --quick size), and
tests/test_lift_benchmarks.py checks the ndimage peers against the references,
tests/test_peers.py the hand-written ones.

    python -m benchmarks.lift_programs --quick             # small sizes, PoCL: a few minutes
    python -m benchmarks.lift_programs --device gpu        # Lift's sizes, within 9 minutes
    python -m benchmarks.lift_programs --programs hotspot --budget 30 --time-limit 120

Within the run's deadline (``--deadline``, 9 minutes unless given) a program starts only
while the time left is at least what the longest program so far took: the programs after
are listed as not run, and no search started is cut short of its budget (``--time-limit``
gives the searches a limit of their own).

Writes benchmarks/results/lift_programs_<device>.json and .md (``_quick`` with --quick).
The peers compute what the program computes; for PPCG's stencils, whose result Lift pads
and rotates by one on its way out, SciPy's and CuPy's correlate compute the stencil alone
(the hand-written kernels compute the padded and rotated result).
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from benchmarks.timing import Spread, cuda_spread, host_spread, pooled, with_range

RESULTS = Path(__file__).parent / "results"

# --- the programs: inputs and NumPy references ---------------------------------------------------


def _pad(xp, a):
    return xp.pad(a, 1, mode="edge")


def _window(xp, a, *offsets):
    """The element at ``offsets`` (0, 1 or 2 per axis) of every 3-wide window of ``a``
    padded by one with its edge values: Lift's ``nbh.at(i).at(j)`` over Slide2D(3, 1) o
    Pad2D(1, 1, Pad.Boundary.Clamp)."""
    p = _pad(xp, a)
    index = tuple(slice(o, o + n) for o, n in zip(offsets, a.shape))
    return p[index]


def _inner(a, *offsets):
    """The same over the unpadded array (Lift's Slide2D(3, 1) $ input): the windows' count
    is two fewer per axis."""
    index = tuple(slice(o, o + n - 2) for o, n in zip(offsets, a.shape))
    return a[index]


def _pad_and_rotate(xp, inner):
    """PPCG's stencils as Lift writes them: the result padded by one (clamped) and rotated
    by one along every axis (Scatter(Shift(1)) at each level)."""
    out = xp.pad(inner, 1, mode="edge")
    for axis in range(out.ndim):
        out = xp.roll(out, 1, axis=axis)
    return out


def jacobi2d5pt(xp, a):
    top, bottom = _inner(a, 0, 1), _inner(a, 2, 1)
    left, right, center = _inner(a, 1, 0), _inner(a, 1, 2), _inner(a, 1, 1)
    return _pad_and_rotate(xp, (5 * top + 12 * left + 15 * center + 5 * bottom + 12 * right)
                           / np.float32(118))


def _von_neumann7(a):
    n, s = _inner(a, 1, 0, 1), _inner(a, 1, 2, 1)
    w, e = _inner(a, 1, 1, 0), _inner(a, 1, 1, 2)
    f, b, c = _inner(a, 0, 1, 1), _inner(a, 2, 1, 1), _inner(a, 1, 1, 1)
    return n, s, w, e, f, b, c


def jacobi3d7pt(xp, a):
    n, s, w, e, f, b, c = _von_neumann7(a)
    # jacobi(C, N, S, E, W, F, B) called as jacobi(c, n, s, e, w, f, b)
    out = (np.float32(0.161) * e + np.float32(0.162) * w + np.float32(0.163) * s
           + np.float32(0.164) * n + np.float32(0.165) * b + np.float32(0.166) * f
           - np.float32(1.67) * c)
    return _pad_and_rotate(xp, out)


def heat3d(xp, a):
    n, s, w, e, f, b, c = _von_neumann7(a)
    q = np.float32(0.125)
    return _pad_and_rotate(xp, q * (f - 2 * c + b) + q * (n - 2 * c + s)
                           + q * (e - 2 * c + w) + c)


def convolution2D(xp, a, weights):
    out = xp.zeros_like(a)
    for i in range(3):
        for j in range(3):
            out = out + _window(xp, a, i, j) * weights[3 * i + j]
    return out


# Rodinia's hotspot constants as its user function derives them (chip 0.016 m square on
# a 512 x 512 grid): step/Cap, 1/Rx = 1/Ry and 1/Rz
_HOTSPOT_STEP_DIV_CAP = (0.001 / (3.0e6 / (0.5 * 0.0005 * 1.75e6))) / (
    0.5 * 1.75e6 * 0.0005 * (0.016 / 512) * (0.016 / 512))
_HOTSPOT_R_1 = 0.1
_HOTSPOT_RZ_1 = (100 * (0.016 / 512) * (0.016 / 512)) / 0.0005


def hotspot(xp, heat, power):
    top, bottom = _window(xp, heat, 0, 1), _window(xp, heat, 2, 1)
    left, right, c = _window(xp, heat, 1, 0), _window(xp, heat, 1, 2), heat
    return (c + np.float32(_HOTSPOT_STEP_DIV_CAP) * (
        power + (bottom + top - 2 * c) * np.float32(_HOTSPOT_R_1)
        + (right + left - 2 * c) * np.float32(_HOTSPOT_R_1)
        + (80 - c) * np.float32(_HOTSPOT_RZ_1))).astype(np.float32)


def hotspot3D(xp, temp, power):
    w = lambda *o: _window(xp, temp, *o)  # noqa: E731
    # Lift's tInW is .at(0).at(1).at(1) and tInE .at(2).at(1).at(1): along the outer axis
    c, west, north, bottom = w(1, 1, 1), w(0, 1, 1), w(1, 0, 1), w(1, 1, 0)
    top, south, east = w(1, 1, 2), w(1, 2, 1), w(2, 1, 1)
    side, vertical = np.float32(0.03413332998752593994), np.float32(0.00053333328105509281)
    cc, step = np.float32(0.86186665296554565430), np.float32(0.34133329987525939941)
    return (c * cc + north * side + south * side + east * side + west * side
            + top * vertical + bottom * vertical + step * power + vertical * np.float32(80))


def srad1(xp, image):
    jc = image
    dn = _window(xp, image, 0, 1) - jc
    ds = _window(xp, image, 2, 1) - jc
    dw = _window(xp, image, 1, 0) - jc
    de = _window(xp, image, 1, 2) - jc
    q0sqr = np.float32(0.053787220269)
    g2 = (dn * dn + ds * ds + dw * dw + de * de) / (jc * jc)
    lap = (dn + ds + dw + de) / jc
    num = 0.5 * g2 - (1.0 / 16.0) * (lap * lap)
    den = 1 + 0.25 * lap
    qsqr = num / (den * den)
    den = (qsqr - q0sqr) / (q0sqr * (1 + q0sqr))
    return xp.clip(1.0 / (1.0 + den), 0, 1).astype(np.float32)


def srad2(xp, image, coeff, dn, ds, de, dw):
    cc = coeff
    c_south, c_east = _window(xp, coeff, 2, 1), _window(xp, coeff, 1, 2)
    div = cc * dn + c_south * ds + cc * dw + c_east * de
    return image + np.float32(0.125) * div


def nbody(xp, pos, vel, esp_sqr, delta_t):
    r = pos[None, :, :3] - pos[:, None, :3]  # [i, j]: body j's position less body i's
    dist_sqr = (r * r).sum(axis=2)
    inv = 1 / xp.sqrt(dist_sqr + np.float32(esp_sqr))
    s = inv * inv * inv * pos[None, :, 3]
    acc = (s[:, :, None] * r).sum(axis=1)
    dt = np.float32(delta_t)
    new_pos, new_vel = pos.copy(), vel.copy()
    new_pos[:, :3] = pos[:, :3] + vel[:, :3] * dt + np.float32(0.5) * acc * dt * dt
    new_vel[:, :3] = vel[:, :3] + acc * dt
    return new_pos[:, None, :], new_vel[:, None, :]


def kmeans(xp, features, clusters):
    d = ((features.T[:, None, :] - clusters[None, :, :]) ** 2).sum(axis=2)  # [P, C]
    return xp.argmin(d, axis=1).astype(np.int32)[:, None]


def kmeans_by_products(xp, features, clusters):
    """K-means' nearest clusters the fast way NumPy computes them: |x − c|² = |x|² − 2 x·c
    + |c|², and |x|² is the same for every cluster, so the argmin over |c|² − 2 x·c, whose
    products are one matrix product (BLAS); the argmin taken a cluster at a time over all
    points (NumPy's argmin along an axis of 5 was 5 to 8 times slower at 204,800 points),
    the first of equal distances kept as argmin keeps it."""
    d = (clusters * clusters).sum(axis=1)[:, None] - 2 * (clusters @ features)  # [C, P]
    best, index = d[0].copy(), xp.zeros(d.shape[1], np.int32)
    for k in range(1, d.shape[0]):
        nearer = d[k] < best
        xp.minimum(best, d[k], out=best)
        index[nearer] = k
    return index[:, None]


def nearestNeighbour(xp, locations, lat, lng):
    la, ln = locations
    return xp.sqrt((np.float32(lat) - la) ** 2 + (np.float32(lng) - ln) ** 2)


def mriqComputeQ(xp, x, y, z, k):
    kx, ky, kz, phi = k
    arg = np.float32(2 * np.pi) * (x[:, None] * kx[None] + y[:, None] * ky[None]
                                   + z[:, None] * kz[None])
    return ((phi[None] * xp.cos(arg)).sum(axis=1)[:, None],
            (phi[None] * xp.sin(arg)).sum(axis=1)[:, None])


def mriq_by_products(xp, x, y, z, k):
    """MRI-Q's computeQ the fast way NumPy computes it: the sums over the samples as two
    matrix-vector products, ``cos(arg) @ φ`` and ``sin(arg) @ φ`` (BLAS)."""
    kx, ky, kz, phi = k
    arg = np.float32(2 * np.pi) * (x[:, None] * kx[None] + y[:, None] * ky[None]
                                   + z[:, None] * kz[None])
    return (xp.cos(arg) @ phi)[:, None], (xp.sin(arg) @ phi)[:, None]


def mriqPhiMag(xp, phi_r, phi_i):
    return phi_r * phi_r + phi_i * phi_i


def molecularDynamics(xp, particles, neighbours, cutsq, lj1, lj2):
    pos = particles[:, :3]
    d = pos[:, None, :] - pos[neighbours.T]  # [N, M, 3]
    r2 = (d * d).sum(axis=2)
    inv = 1 / r2
    r6 = inv * inv * inv
    force = xp.where(r2 < cutsq, inv * r6 * (lj1 * r6 - lj2), 0)
    out = xp.zeros_like(particles)
    out[:, :3] = (d * force[:, :, None]).sum(axis=1)
    return out


def blackScholes(xp, r):
    f = np.float32
    s = f(10) * r + f(100) * (1 - r)
    k = f(10) * r + f(100) * (1 - r)
    t = f(1) * r + f(10) * (1 - r)
    rate = f(0.01) * r + f(0.05) * (1 - r)
    v = f(0.01) * r + f(0.10) * (1 - r)
    sqrt_t = xp.sqrt(t)
    d1 = (xp.log(s / k) + (rate + v * v * f(0.05)) * t) / v * sqrt_t
    d2 = d1 - v * sqrt_t

    def cnd(d):  # as Lift's body writes it: a3 * K^3 * +a4 * K^4 is one product
        a1, a2, a3, a4, a5, a6 = (f(0.319381530), f(-0.356563782), f(1.781477937),
                                  f(-1.821255978), f(1.330274429), f(2.506628273))
        big_l = xp.abs(d)
        k1 = 1 / (1 + f(0.2316419) * big_l)
        w = 1 - a6 * xp.exp(-big_l * big_l / 2) * (
            a1 * k1 + a2 * k1 ** 2 + a3 * a4 * k1 ** 7 + a5 * k1 ** 5)
        return xp.where(d < 0, 1 - w, w)

    c1, c2 = cnd(d1), cnd(d2)
    exp_rt = xp.exp(-t * rate)
    return s * c1 - k * exp_rt * c2, k * exp_rt * (1 - c2) - s * (1 - c1)


def gesummvNN(xp, a, b, x, alpha, beta):
    return np.float32(alpha) * (a @ x) + np.float32(beta) * (b @ x)


def _floats(rng, shape, low=-1.0, high=1.0):
    return rng.uniform(low, high, shape).astype(np.float32)


def _bodies(rng, n):
    pos = _floats(rng, (n, 4), -10, 10)
    pos[:, 3] = rng.uniform(1, 2, n)
    return pos


def _neighbours(rng, n, m):
    """m neighbour indices per particle, none of them the particle itself (Lift's layout:
    [M][N], one row per neighbour)."""
    return ((np.arange(n)[None, :] + rng.integers(1, n, (m, n))) % n).astype(np.int32)


@dataclass(frozen=True)
class LiftProgram:
    """One of Lift's programs: its program file and name, its inputs at a size, its NumPy
    reference (written for any array module ``xp``) and, for a stencil, the stencil as
    ``ndimage.correlate`` computes it."""

    family: str
    name: str
    kind: str  # "stencil", "dense", "map"
    inputs: Callable  # (rng, size) -> list of inputs
    reference: Callable
    sizes: dict = field(default_factory=dict)  # "test", "quick", "cpu", "gpu"
    correlate: Callable | None = None  # (ndimage, xp, *inputs) -> the stencil
    # the fastest NumPy formulation where it is not the reference itself: (xp, *inputs)
    fastest: Callable | None = None

    def program(self):
        from workbench.programs import library

        return library(f"lift/{self.family}")[self.name]


def _correlate2(weights):
    def correlate(nd, xp, a, *rest):
        return nd.correlate(a, xp.asarray(weights, dtype=np.float32), mode="nearest")
    return correlate


_J2D = np.array([[0, 5, 0], [12, 15, 12], [0, 5, 0]], np.float32) / 118
_J3D = np.zeros((3, 3, 3), np.float32)
_J3D[1, 1, 1] = -1.67
_J3D[1, 0, 1], _J3D[1, 2, 1], _J3D[1, 1, 0], _J3D[1, 1, 2] = 0.164, 0.163, 0.162, 0.161
_J3D[0, 1, 1], _J3D[2, 1, 1] = 0.166, 0.165
_HEAT = np.zeros((3, 3, 3), np.float32)
_HEAT[1, 1, 1] = 1 - 0.75
for _i in ((0, 1, 1), (2, 1, 1), (1, 0, 1), (1, 2, 1), (1, 1, 0), (1, 1, 2)):
    _HEAT[_i] = 0.125
GAUSS = np.array([1, 2, 1, 2, 4, 2, 1, 2, 1], np.float32) / 16
_HOT = np.array([[0, 0.1, 0], [0.1, -0.4 - _HOTSPOT_RZ_1, 0.1], [0, 0.1, 0]]) \
    * _HOTSPOT_STEP_DIV_CAP
_HOT[1, 1] += 1
_HOT3 = np.zeros((3, 3, 3))
_HOT3[1, 1, 1] = 0.86186665296554565430
for _i in ((0, 1, 1), (2, 1, 1), (1, 0, 1), (1, 2, 1)):
    _HOT3[_i] = 0.03413332998752593994
_HOT3[1, 1, 0] = _HOT3[1, 1, 2] = 0.00053333328105509281


def _hotspot_correlate(nd, xp, heat, power):
    return nd.correlate(heat, xp.asarray(_HOT, dtype=np.float32), mode="nearest") + \
        np.float32(_HOTSPOT_STEP_DIV_CAP) * power + \
        np.float32(80 * _HOTSPOT_STEP_DIV_CAP * _HOTSPOT_RZ_1)


def _hotspot3d_correlate(nd, xp, temp, power):
    return nd.correlate(temp, xp.asarray(_HOT3, dtype=np.float32), mode="nearest") + \
        np.float32(0.34133329987525939941) * power + np.float32(80 * 0.00053333328105509281)


# Lift's sizes (highLevel/*.json, the CGO stencils' Cst): 4096² and 256³ stencils, 16384
# bodies, 204800 points of 34 features in 5 clusters, 8M locations, 32768 points of MRI-Q
# (4096 k-space samples: Lift's 3072 rounded to an eighth of them), 12288 particles of 128
# neighbours, 4M options
_2D = {"test": 12, "quick": 512, "cpu": 2048, "gpu": 4096}
_3D = {"test": 6, "quick": 64, "cpu": 128, "gpu": 256}
PROGRAMS = {p.name: p for p in [
    LiftProgram("stencils", "jacobi2d5pt", "stencil", lambda rng, n: [_floats(rng, (n, n))],
                jacobi2d5pt, _2D, _correlate2(_J2D)),
    LiftProgram("stencils", "jacobi3d7pt", "stencil",
                lambda rng, n: [_floats(rng, (n, n, n))], jacobi3d7pt, _3D, _correlate2(_J3D)),
    LiftProgram("stencils", "heat3d", "stencil", lambda rng, n: [_floats(rng, (n, n, n))],
                heat3d, _3D, _correlate2(_HEAT)),
    LiftProgram("stencils", "convolution2D", "stencil",
                lambda rng, n: [_floats(rng, (n, n)), GAUSS.copy()], convolution2D, _2D,
                lambda nd, xp, a, w: nd.correlate(a, w.reshape(3, 3), mode="nearest")),
    LiftProgram("stencils", "hotspot", "stencil",
                lambda rng, n: [_floats(rng, (n, n), 320, 340), _floats(rng, (n, n), 0, 0.01)],
                hotspot, _2D, _hotspot_correlate),
    LiftProgram("stencils", "hotspot3D", "stencil",
                lambda rng, n: [_floats(rng, (n, n, n), 320, 340),
                                _floats(rng, (n, n, n), 0, 0.01)], hotspot3D, _3D,
                _hotspot3d_correlate),
    LiftProgram("stencils", "srad1", "stencil", lambda rng, n: [_floats(rng, (n, n), 1, 2)],
                srad1, _2D),
    LiftProgram("stencils", "srad2", "stencil",
                lambda rng, n: [_floats(rng, (n, n), 1, 2)] + [_floats(rng, (n, n), 0, 1)]
                + [_floats(rng, (n, n), -0.1, 0.1) for _ in range(4)], srad2, _2D),
    LiftProgram("nbody", "nbody", "dense",
                lambda rng, n: [_bodies(rng, n), _floats(rng, (n, 4)), 0.01, 0.005], nbody,
                {"test": 16, "quick": 1024, "cpu": 4096, "gpu": 16384}),
    LiftProgram("kmeans", "kmeans", "dense",
                lambda rng, p: [_floats(rng, (34, p), 0, 1), _floats(rng, (5, 34), 0, 1)],
                kmeans, {"test": 20, "quick": 1 << 14, "cpu": 204800, "gpu": 204800},
                fastest=kmeans_by_products),
    LiftProgram("nearest_neighbour", "nearestNeighbour", "map",
                lambda rng, n: [(_floats(rng, n, -90, 90), _floats(rng, n, -180, 180)),
                                30.0, 90.0], nearestNeighbour,
                {"test": 64, "quick": 1 << 18, "cpu": 1 << 23, "gpu": 1 << 23}),
    LiftProgram("mriq", "mriqComputeQ", "dense",
                lambda rng, n: [_floats(rng, n), _floats(rng, n), _floats(rng, n),
                                tuple(_floats(rng, n // 8) for _ in range(4))], mriqComputeQ,
                {"test": 16, "quick": 2048, "cpu": 8192, "gpu": 32768},
                fastest=mriq_by_products),
    LiftProgram("mriq", "mriqPhiMag", "map", lambda rng, n: [_floats(rng, n), _floats(rng, n)],
                mriqPhiMag, {"test": 64, "quick": 1 << 18, "cpu": 1 << 22, "gpu": 1 << 24}),
    LiftProgram("md", "molecularDynamics", "dense",
                lambda rng, n: [_bodies(rng, n), _neighbours(rng, n, 128 if n >= 12288 else 16),
                                16.0, 1.5, 2.0],
                molecularDynamics,
                {"test": 16, "quick": 4096, "cpu": 12288, "gpu": 12288}),
    LiftProgram("blackscholes", "blackScholes", "map",
                lambda rng, n: [_floats(rng, n, 0, 1)], blackScholes,
                {"test": 64, "quick": 1 << 18, "cpu": 1 << 22, "gpu": 1 << 22}),
    LiftProgram("gesummv", "gesummvNN", "dense",
                lambda rng, n: [_floats(rng, (n, n)), _floats(rng, (n, n)), _floats(rng, n),
                                1.5, 2.5], gesummvNN,
                {"test": 8, "quick": 512, "cpu": 2048, "gpu": 4096}),
]}


def inputs_of(name: str, size: int, seed: int = 0) -> list:
    return PROGRAMS[name].inputs(np.random.default_rng(seed), size)


def parts(value) -> list[np.ndarray]:
    """An output as flat float arrays, one per tuple component."""
    if isinstance(value, tuple):
        return [p for v in value for p in parts(v)]
    return [np.asarray(value, dtype=np.float64).ravel()]


def agree(got, want, rtol: float = 2e-3, atol: float = 2e-3) -> bool:
    """Whether two outputs (possibly tuples of arrays) agree to float32 accuracy."""
    a, b = parts(got), parts(want)
    return len(a) == len(b) and all(x.size == y.size and np.allclose(x, y, rtol, atol)
                                    for x, y in zip(a, b))


def program_flops(name: str, args: list) -> float:
    """The floating-point operations of one run of the program (counted per program in
    ``benchmarks.peers``, the same for every kernel of it)."""
    from benchmarks import peers

    return peers.flops(name, args)


def bytes_moved(name: str, size: int) -> int:
    """The bytes a program must read and write at least: its inputs and its output."""
    args = inputs_of(name, size)
    return bytes_of(args, PROGRAMS[name].reference(np, *args))


def bytes_of(args: list, output) -> int:
    """The bytes of a program's array inputs and its output (four a float or an int)."""
    return sum(p.size * 4 for v in list(args) + [output] for p in parts(v) if p.size > 1)


# --- the peers ------------------------------------------------------------------------------


def cpu_peers(name: str, args: list, repeat: int) -> dict[str, Callable[[], Spread]]:
    """NumPy's reference, the fastest NumPy formulation where it is another (K-means' and
    MRI-Q's by matrix products) and, for a stencil, SciPy's ``ndimage.correlate``: each
    timer gives the median and range of ``repeat`` runs."""
    spec = PROGRAMS[name]
    peers = {"NumPy": lambda: host_spread(lambda: spec.reference(np, *args), repeat)}
    if spec.fastest is not None:
        peers["NumPy (products)"] = lambda: host_spread(lambda: spec.fastest(np, *args),
                                                        repeat)
    if spec.correlate is not None:
        try:
            from scipy import ndimage
        except ImportError:
            return peers
        peers["SciPy ndimage"] = lambda: host_spread(
            lambda: spec.correlate(ndimage, np, *args), repeat)
    return peers


def gpu_peers(name: str, args: list, repeat: int) -> dict[str, Callable[[], Spread]]:
    """CuPy running the NumPy reference and, for a stencil, ``cupyx.scipy.ndimage``'s
    correlate, timed with CUDA events; none where CuPy is missing."""
    try:
        import cupy as cp
        from cupyx.scipy import ndimage
    except Exception:
        return {}
    spec = PROGRAMS[name]
    on_gpu = [cp.asarray(a) if isinstance(a, np.ndarray) else
              tuple(cp.asarray(p) for p in a) if isinstance(a, tuple) else a for a in args]

    peers = {"CuPy": lambda: cuda_spread(lambda: spec.reference(cp, *on_gpu), repeat)}
    if spec.correlate is not None:
        peers["CuPy ndimage"] = lambda: cuda_spread(
            lambda: spec.correlate(ndimage, cp, *on_gpu), repeat)
    return peers


HAND_WRITTEN = "hand-written"


def hand_written_peer(name: str, kind: str, args: list, device: str | None, expected,
                      repeat: int) -> tuple[dict, Callable[[], Spread] | None]:
    """The program's hand-written kernel (``benchmarks.peers``) for the device's kind, built
    on the device and checked against the interpreter's ``expected`` output: what it is
    (design, options, correct, or the error that stopped it) and its timer (None where it
    did not build or computed something else)."""
    from benchmarks import peers
    from workbench.device.opencl import find_device

    info, _ = find_device(device)
    try:
        peer = peers.peer(name, kind, args, peers.target_of(info))
        bound = peer.bind(device)
        correct = bool(agree(bound.output(), expected))
    except Exception as err:  # a peer the compiler refuses is reported, not fatal
        return {"error": f"{type(err).__name__}: {err}"[:2000]}, None
    record = {"design": peer.design, "options": list(peer.options), "correct": correct}
    return record, (lambda: bound.time(repeat)) if correct else None


def copy_ceiling(nbytes: int, kind: str, device: str | None, repeat: int) -> dict[str, Spread]:
    """A STREAM-like copy of ``nbytes`` (half read, half written) on the OpenCL device, and
    by NumPy on a CPU (CuPy on a GPU)."""
    from benchmarks.search import copy_ceilings

    return copy_ceilings(nbytes, kind, device, repeat)


# --- search and timing ----------------------------------------------------------------------


def search_options(kind: str) -> dict:
    """The guided search's options for a device of this ``kind`` (those it leaves out, such
    as ``pads_first`` and ``fused_first``, take the strategy's defaults)."""
    return {"default_first": True, "grids_first": kind == "gpu",
            "unrolled_first": kind == "cpu", "lanes_first": kind == "cpu",
            "rows_first": kind == "gpu", "blocked_first": True,
            "constant_first": kind == "gpu"}


def benchmark(name: str, size: int, kind: str, device: str | None, budget: int,
              time_limit: float | None, rounds: int, repeat: int,
              build_options: tuple[str, ...] = ()) -> dict:
    """One program: the default mapping run, the guided search (``budget`` candidates,
    within ``time_limit`` seconds where one is given: else the search measures its whole
    budget; the OpenCL ``build_options`` it may choose for its best kernels, none unless
    given), then the default mapping, the best kernel (built with the options the search
    chose for it) and the peers timed again, interleaved over ``rounds``."""
    from workbench.run import run
    from workbench.search import search
    from workbench.semantics import evaluate

    spec = PROGRAMS[name]
    entry: dict = {"family": spec.family, "size": size}
    start = time.time()
    try:
        prog = spec.program()
    except Exception as err:  # a program the reader refuses is reported, not fatal
        return {**entry, "status": "parse error", "message": str(err)[:2000]}
    small = inputs_of(name, min(size, spec.sizes["quick"]))
    entry["evaluates_equal_to_numpy"] = agree(evaluate(prog, *small),
                                              spec.reference(np, *small))
    args = inputs_of(name, size)
    expected = evaluate(prog, *args)
    default = run(prog, *args, device=device, repeat=repeat, expected=expected)
    entry["default"] = {"status": default.status, "correct": default.correct,
                        "kernel_ms": default.kernel_ms if default.correct else None,
                        "message": (default.message or "")[:500]}
    best, best_options = prog, []
    try:
        # the default mapping is the search's first candidate: its best is never slower;
        # on a GPU the map nests on grids of work-items come next (innermost map on
        # dimension 0, reads coalesced: the default mapping gives a 3-D stencil at 256³ 256
        # work-items; on PoCL the grids were 1.5 to 3 times slower than it at --quick
        # sizes), then a work-group per row of each map of reductions over its elements
        # (GESUMMV's rows, read coalesced by a group); on a CPU the default mapping with
        # each short reduction unrolled comes next (on PoCL K-means' kernel is 3 times
        # faster with its distance's loop unrolled), then a map of arrays computed in the
        # lanes of vectors (K-means' points 8 or 16 at a time: PoCL does not run its
        # work-items in vector lanes); then a map of reductions over a shared array
        # computing 4 or 8 outputs per work-item (GESUMMV's rows), and on a GPU its shared
        # inputs in constant memory (MRI-Q's k-space samples; PoCL has no constant memory
        # of its own). These are the guided strategy's defaults but for the last two; its
        # fusion_first, left to its default, measures each fold over a mapped array fused
        # too (MD's forces read through the neighbour index, on a GPU also on work-groups
        # of 128 work-items, as the hand-written kernel).
        found = search(prog, *args, budget=budget, device=device, time_limit=time_limit,
                       repeat=repeat, build_options=list(build_options) or None,
                       options=search_options(kind))
        entry["search"] = {"evaluated": found.evaluated, "seconds": round(found.seconds, 1),
                           "stopped": found.stopped,
                           "best_kernel_ms": found.best_kernel_ms,
                           "build_options": found.build_options}
        if found.best is not None:
            best, best_options = found.best, found.build_options
            from workbench.notation import to_text

            entry["search"]["best"] = to_text(found.best, width=None)
    except Exception as err:  # the search's failure leaves the default mapping timed
        entry["search"] = {"error": f"{type(err).__name__}: {err}"[:1000]}
    peers = (gpu_peers if kind == "gpu" else cpu_peers)(name, args, repeat)
    entry["hand_written"], timer = hand_written_peer(name, kind, args, device, expected,
                                                      repeat)
    if timer is not None:
        peers[HAND_WRITTEN] = timer
    samples: dict[str, list[Spread]] = {"default": [], "best": [], **{k: [] for k in peers}}
    for _ in range(rounds):
        for k, timer in peers.items():
            samples[k].append(timer())
        for label, expr, options in (("default", prog, []), ("best", best, best_options)):
            r = run(expr, *args, device=device, repeat=repeat, expected=expected,
                    build_options=options or None)
            if r.correct:
                samples[label].append(Spread(r.kernel_ms, r.kernel_ms_min, r.kernel_ms_max))
    timed = {k: pooled(v) for k, v in samples.items()}
    # medians (as files written before the ranges read), and each one's [min, max]
    entry["retimed_ms"] = {k: t.median_ms if t else None for k, t in timed.items()}
    entry["retimed_range_ms"] = {k: t.range_ms if t else None for k, t in timed.items()}
    nbytes = bytes_of(args, expected)
    ceiling = copy_ceiling(nbytes, kind, device, repeat)
    entry["ceiling_ms"] = {k: t.median_ms for k, t in ceiling.items()}
    entry["flops"], entry["bytes"] = program_flops(name, args), nbytes
    entry["ceiling_range_ms"] = {k: t.range_ms for k, t in ceiling.items()}
    entry["status"] = "ok" if samples["best"] else "no correct kernel"
    entry["seconds"] = round(time.time() - start, 1)
    return entry


def _times(a, b) -> str:
    return f"{a / b:.2f}x" if a and b else "–"


def _ceilings(doc: dict):
    """The device's ceilings as the run recorded them (None in files written before)."""
    from workbench.ceilings import Ceilings

    found = doc.get("ceilings")
    return Ceilings(doc["device"], found.get("gflop_per_s"), found.get("gb_per_s")) \
        if found else None


def _rate(name: str, p: dict, ms, ceilings) -> str:
    from benchmarks.peers.rates import rate, rate_text

    kind = PROGRAMS[name].kind
    return rate_text(kind, *rate(kind, p.get("flops"), p.get("bytes"), ms, ceilings))


def _hand_written_text(p: dict, times: dict, ranges: dict) -> str:
    hand = p.get("hand_written") or {}
    if "error" in hand:
        return "error: " + hand["error"].splitlines()[0][:80].replace("|", "/")
    if hand and not hand.get("correct"):
        return "wrong result"
    return with_range(times.get(HAND_WRITTEN), ranges.get(HAND_WRITTEN)) \
        if times.get(HAND_WRITTEN) else "–"


def _limit_text(time_limit) -> str:
    if time_limit is None:
        return "no time limit (each search measured its budget)"
    return f"at most {time_limit} s a program"


def _options_text(doc: dict) -> str:
    allowed = doc.get("build_options")
    return (f" The searches might build their best kernels with {', '.join(allowed)} "
            f"(``--build-option``).") if allowed else ""


def _built_with(p: dict) -> str:
    options = (p.get("search") or {}).get("build_options")
    return f" (built with {' '.join(options)})" if options else ""


def table(doc: dict) -> str:
    """The results as Markdown: per program the default mapping, the searched best, the
    array peers, the copy ceiling and the hand-written kernel, all timed in the same
    rounds; the best kernel's and the hand-written kernel's rates and shares of the
    device's ceilings."""
    ceilings = _ceilings(doc)
    found = ""
    if ceilings:
        found = (f" Device ceilings (``workbench.ceilings``): float32 multiply-adds "
                 f"{ceilings.gflop_per_s or 0:.4g} GFLOP/s, a copy {ceilings.gb_per_s or 0:.4g} "
                 "GB/s.")
    lines = [f"# Lift's programs: {doc['device']} ({doc['platform']})", "",
             f"Guided search, budget {doc['budget']}, {_limit_text(doc['time_limit'])}; "
             f"kernel times in ms (device events, median of {doc['rounds']} interleaved "
             "rounds, [min–max] of all their runs), transfers excluded; the peers' timed in "
             "the same rounds. Written by `python -m benchmarks.lift_programs"
             f"{' --quick' if doc['quick'] else ''}`.{found}{_options_text(doc)}", "",
             "| program | size | evaluates = NumPy | default | searched best | evaluated | "
             "peers | copy ceiling | best vs peer | best vs ceiling | hand-written | "
             "best vs hand-written | best rate (share) | hand-written rate (share) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, p in doc["programs"].items():
        if "retimed_ms" not in p:  # refused by the reader, or not run by the deadline
            lines.append(f"| {name} | {p['size']} | {p['status']} |" + " – |" * 11)
            continue
        t, r = p["retimed_ms"], p.get("retimed_range_ms") or {}
        peers = {k: v for k, v in t.items() if k not in ("default", "best", HAND_WRITTEN)}
        peer_text = ", ".join(f"{k} {with_range(v, r.get(k))}" for k, v in peers.items()) or "–"
        ceiling, ceiling_range = p["ceiling_ms"], p.get("ceiling_range_ms") or {}
        ceil_text = ", ".join(f"{k} {with_range(v, ceiling_range.get(k))}"
                              for k, v in ceiling.items()) or "–"
        best_peer = min((v for v in peers.values() if v), default=None)
        lines.append(
            f"| {name} | {p['size']} | {'yes' if p['evaluates_equal_to_numpy'] else 'NO'} | "
            f"{with_range(t['default'], r.get('default'))} | "
            f"{with_range(t['best'], r.get('best'))}{_built_with(p)} | "
            f"{p['search'].get('evaluated', '–')} | {peer_text} | {ceil_text} | "
            f"{_times(best_peer, t['best'])} | "
            f"{_times(ceiling.get('copy (OpenCL)'), t['best'])} | "
            f"{_hand_written_text(p, t, r)} | {_times(t.get(HAND_WRITTEN), t['best'])} | "
            f"{_rate(name, p, t['best'], ceilings)} | "
            f"{_rate(name, p, t.get(HAND_WRITTEN), ceilings)} |")
    lines += ["", "size: the side of a square or cubic grid for a stencil, else the number of "
              "elements (bodies, points, options, rows). best vs peer: the fastest array "
              "peer's time over the searched kernel's (above 1: the kernel is faster). best vs "
              "ceiling: the OpenCL copy of the bytes the program moves over the kernel's time "
              "(1.00: at the bandwidth a copy reaches). hand-written: the kernel of "
              "`benchmarks.peers` for the device's kind, checked against the interpreter; best "
              "vs hand-written: its time over the searched kernel's. rate: GFLOP/s for the "
              "dense programs (N-body, MD, K-means, MRI-Q's computeQ, GESUMMV; flops counted "
              "per program in `benchmarks.peers`), GB/s of the inputs read and the output "
              "written for the stencils and maps; its share of the device's measured "
              "arithmetic or copy ceiling in brackets (the copy's of 256 MiB: above 100 %, the "
              "program's data fit in the caches). Where the search measured no candidate "
              "(evaluated 0), the searched best is the default mapping timed again.", ""]
    return "\n".join(lines)


NOT_RUN = "not run: too little time was left before the run's deadline"


def may_start(left: float, taken: list[float]) -> bool:
    """Whether a program may start with ``left`` seconds to the run's deadline: a search
    started measures its whole budget (it is never cut short), so a program starts only
    while the time left is at least what the longest program so far took (any time left
    for the first). Once one is not started, no later one is (the table lists them as
    not run)."""
    return left > 0 and (not taken or left >= max(taken))


def main(argv=None) -> dict:
    from workbench.device.build_options import build_options as build_options_of
    from workbench.device.opencl import find_device

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (minutes on a CPU)")
    ap.add_argument("--device", default=None, help="cpu, gpu, an id P:D or part of a name")
    ap.add_argument("--programs", nargs="*", default=list(PROGRAMS), choices=list(PROGRAMS))
    ap.add_argument("--budget", type=int, default=None, help="candidates per search")
    ap.add_argument("--time-limit", type=float, default=None,
                    help="seconds a program's search may take (default: none, each search "
                         "measures its budget)")
    ap.add_argument("--build-option", action="append", default=[], dest="build_options",
                    help="an OpenCL build option the searches may choose for their best "
                         "kernels (workbench.device.build_options; repeat for several; "
                         "default none)")
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument("--deadline", type=float, default=None,
                    help="seconds the whole run may take (default: 540, 9 minutes): a "
                         "program starts only while the time left is at least what the "
                         "longest program so far took; those not started are listed as not "
                         "run (a search started is never cut short)")
    ap.add_argument("--out", default=None,
                    help="the results' file name in benchmarks/results, without .json "
                         "(default: lift_programs_<device>[_quick])")
    args = ap.parse_args(argv)
    info, _ = find_device(args.device)
    kind = "gpu" if info.kind == "gpu" else "cpu"
    tag = "gpu" if kind == "gpu" else "pocl" if info.is_pocl else info.kind
    budget = args.budget or (8 if args.quick else 20)
    time_limit = args.time_limit  # the search's own option, only where it is given
    deadline = time.time() + (args.deadline or 540.0)
    rounds = args.rounds or (3 if args.quick else 5)
    repeat = 5 if args.quick else 10
    size_key = "quick" if args.quick else kind
    allowed = build_options_of(args.build_options)
    from workbench.ceilings import ceilings as device_ceilings

    found = device_ceilings(args.device)  # measured once, before the programs' rounds
    doc = {"device": info.name, "platform": platform.platform(), "kind": kind,
           "quick": args.quick, "budget": budget, "time_limit": time_limit,
           "build_options": list(allowed),
           "rounds": rounds, "ceilings": {"gflop_per_s": found.gflop_per_s,
                                           "gb_per_s": found.gb_per_s}, "programs": {}}
    out = RESULTS / f"{args.out or f'lift_programs_{tag}' + ('_quick' if args.quick else '')}.json"
    taken: list[float] = []  # seconds each program run took
    stopped = False
    for name in args.programs:
        size = PROGRAMS[name].sizes[size_key]
        stopped = stopped or not may_start(deadline - time.time(), taken)
        if stopped:
            doc["programs"][name] = {"family": PROGRAMS[name].family, "size": size,
                                     "status": NOT_RUN}
            continue
        began = time.time()
        doc["programs"][name] = benchmark(name, size, kind, args.device, budget, time_limit,
                                          rounds, repeat, allowed)
        taken.append(time.time() - began)
        print(f"{name}: {doc['programs'][name].get('status')} "
              f"({doc['programs'][name].get('seconds', 0)} s)", flush=True)
        _write(doc, out, args.programs)  # after each program: a run cut short keeps its results
    _write(doc, out, args.programs)
    print(table(doc))
    return doc


def _write(doc: dict, out: Path, programs: list[str]) -> None:
    """The results as JSON and the table as Markdown beside it; a run of some programs
    keeps the other programs' entries of an earlier run on the same device (and those of the
    programs it did not run)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    written = dict(doc)
    if out.exists() and set(programs) != set(PROGRAMS):
        old = json.loads(out.read_text()).get("programs", {})
        written["programs"] = {**old, **{k: v for k, v in doc["programs"].items()
                                         if v.get("status") != NOT_RUN or k not in old}}
    out.write_text(json.dumps(written, indent=2, default=str) + "\n")
    out.with_suffix(".md").write_text(table(written))


if __name__ == "__main__":
    main()

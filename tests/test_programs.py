"""Every program of the library parses, type-checks, round-trips through the printer and
evaluates equal to an independent NumPy reference, for several sizes."""

import numpy as np
import pytest

from workbench import evaluate, parse_program, typecheck
from workbench.programs import files, library

RNG = np.random.default_rng(7)


def floats(*shape):
    return RNG.uniform(-1, 1, size=shape).astype(np.float32)


def close(actual, expected, rtol=1e-4):
    scale = 1 + np.abs(expected).max()
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol * scale)


@pytest.mark.parametrize("path", files(), ids=lambda p: p.stem)
def test_every_file_parses_and_round_trips(path):
    program = library(path.stem)
    again = parse_program(str(program))
    assert list(again) == list(program)
    for name in program:
        assert again[name] == program[name], name


@pytest.mark.parametrize("n", [128, 1024, 4096])
def test_blas(n):
    blas = library("blas")
    xs, ys = floats(n), floats(n)
    a = np.float32(1.5)
    close(evaluate(blas["scal"], a, xs), a * xs)
    close(evaluate(blas["asum"], xs), [np.abs(xs).sum()])
    close(evaluate(blas["dot"], xs, ys), [np.dot(xs, ys)])
    close(evaluate(blas["vecSum"], xs), [xs.sum()])


@pytest.mark.parametrize("m,n", [(4, 8), (64, 128), (100, 30)])
def test_gemv(m, n):
    gemv = library("blas")["gemv"]
    mat, x, y = floats(m, n), floats(n), floats(m)
    alpha, beta = np.float32(0.5), np.float32(2.0)
    close(evaluate(gemv, mat, x, y, alpha, beta), alpha * mat @ x + beta * y)


@pytest.mark.parametrize("m,k,n", [(2, 3, 4), (16, 32, 8), (33, 7, 5)])
def test_mm(m, k, n):
    a, b = floats(m, k), floats(k, n)
    close(evaluate(library("mm")["mm"], a, b), a @ b)


def black_scholes_reference(x):
    from math import erf

    x = x.astype(np.float64)
    s, k, t, r, v = 10 + 90 * x, 50 + 50 * x, 1 + 9 * x, 0.01 + 0.04 * x, 0.01 + 0.09 * x
    cdf = np.vectorize(lambda z: 0.5 * (1 + erf(z / np.sqrt(2))))
    d1 = (np.log(s / k) + (r + 0.5 * v * v) * t) / (v * np.sqrt(t))
    d2 = d1 - v * np.sqrt(t)
    call = s * cdf(d1) - k * np.exp(-r * t) * cdf(d2)
    put = k * np.exp(-r * t) * cdf(-d2) - s * cdf(-d1)
    return call, put


@pytest.mark.parametrize("n", [16, 256, 1000])
def test_black_scholes(n):
    x = RNG.uniform(0, 1, n).astype(np.float32)
    call, put = evaluate(library("blackscholes")["blackScholes"], x)
    ref_call, ref_put = black_scholes_reference(x)
    # The polynomial approximation of the normal CDF is good to about 1e-7 absolute.
    np.testing.assert_allclose(call, ref_call, atol=1e-3 * 100)
    np.testing.assert_allclose(put, ref_put, atol=1e-3 * 100)
    assert np.all(call >= -1e-3) and np.all(put >= -1e-3)


def md_reference(ps, nbhs, t):
    pos = np.stack(ps, axis=1).astype(np.float64)
    force = np.zeros_like(pos)
    for i in range(len(pos)):
        for j in nbhs[i]:
            d = pos[i] - pos[j]
            r2 = float(d @ d)
            if r2 < t:
                inv = 1 / r2
                force[i] += d * (inv ** 3 * (1.5 * inv ** 3 - 2) * inv)
    return force


@pytest.mark.parametrize("n,k", [(8, 3), (64, 8), (100, 16)])
def test_md(n, k):
    ps = tuple(RNG.uniform(0, 4, n).astype(np.float32) for _ in range(3))
    nbhs = np.stack([RNG.choice(np.delete(np.arange(n), i), k, replace=False)
                     for i in range(n)]).astype(np.int32)
    t = np.float32(4.0)
    fx, fy, fz = evaluate(library("md")["md"], ps, nbhs, t)
    close(np.stack([fx, fy, fz], axis=1), md_reference(ps, nbhs, t), rtol=1e-3)


@pytest.mark.parametrize("n", [1024, 4096, 128 * 1024])
def test_figure_10_every_line_is_asum(n):
    figures = library("figures")
    xs = floats(n)
    for line in range(9):
        close(evaluate(figures[f"fig10_{line}"], xs), [np.abs(xs).sum()])


@pytest.mark.parametrize("n", [1024, 8192])
def test_figure_3_vector_scaling(n):
    figures = library("figures")
    xs = floats(n)
    for name in ("vectorScal", "vectorScalLow"):
        close(evaluate(figures[name], xs), xs * 3)
    assert str(typecheck(figures["vectorScalLow"])) == "[float]_N"


@pytest.mark.parametrize("n,block", [(128, 128), (1024, 128), (4096, 1024), (8192, 2048)])
def test_reduction_listings(n, block):
    reductions = library("reductions")
    xs = floats(n)
    close(evaluate(reductions["listing5_8"], xs), [xs.sum()])
    close(evaluate(reductions["listing5_13"], xs, sizes={"blockSize": block}), [xs.sum()])


def test_asum_on_a_million_floats():
    xs = floats(1 << 20)
    for name in ("fig10_0", "fig10_8"):
        close(evaluate(library("figures")[name], xs), [np.abs(xs).sum()], rtol=1e-3)


def test_a_program_file_in_a_folder_of_the_library_is_named_by_its_path():
    from workbench.errors import WorkbenchError
    from workbench.programs import library

    assert "nbody" in library("lift/nbody")
    with pytest.raises(WorkbenchError, match="lift/nbody"):
        library("lift/nbodyy")

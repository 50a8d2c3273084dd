"""Every saved derivation ends in a kernel that runs on the default device and computes what
the interpreter computes, at three sizes; every intermediate step runs after default
completion."""

from pathlib import Path

import numpy as np
import pytest

from workbench import Derivation, parse
from workbench.run import run
from workbench.types import function_parts, substitute_sizes

DERIVATIONS = Path(__file__).parent.parent / "workbench" / "derivations"

# Sizes for each derivation (by its file's stem), chosen so that every split divides.
SIZES = {
    "blackscholes": [{"N": 1024}, {"N": 4096}, {"N": 65536}],
    "blas_dot": [{"N": 1024}, {"N": 8192}, {"N": 65536}],
    "blas_gemv": [{"M": 64, "N": 128}, {"M": 128, "N": 256}, {"M": 32, "N": 1024}],
    "blas_scal": [{"N": 256}, {"N": 4096}, {"N": 65536}],
    "icfp_fig10_asum": [{"N": 4096}, {"N": 8192}, {"N": 65536}],
    "icfp_fig3_vector_scaling": [{"N": 4096}, {"N": 8192}, {"N": 65536}],
    "md": [{"N": 256, "K": 16}, {"N": 1024, "K": 32}, {"N": 4096, "K": 8}],
    "mm": [{"M": 32, "K": 16, "N": 8}, {"M": 64, "K": 64, "N": 64}, {"M": 16, "K": 128, "N": 32}],
    "reduction_listing5_8": [{"N": 128}, {"N": 4096}, {"N": 65536}],
    "reduction_listing5_13": [{"N": 2048}, {"N": 8192}, {"N": 65536}],
    "reduction_v3_sequential": [{"N": 128}, {"N": 4096}, {"N": 65536}],
    "reduction_v4_first_add": [{"N": 256}, {"N": 4096}, {"N": 65536}],
    "reduction_v5_warp": [{"N": 256}, {"N": 4096}, {"N": 65536}],
    "reduction_v6_unrolled": [{"N": 256}, {"N": 4096}, {"N": 65536}],
    "reduction_v7_more_work": [{"N": 2048}, {"N": 8192}, {"N": 65536}],
}
EXTRA = {"reduction_listing5_13": {"blockSize": 2048}, "reduction_v5_warp": {"blockSize": 256},
         "reduction_v6_unrolled": {"blockSize": 256},
         "reduction_v7_more_work": {"blockSize": 2048}}


CONTINUE_5_13 = {"reduction_v5_warp", "reduction_v6_unrolled", "reduction_v7_more_work"}


def test_every_saved_derivation_has_sizes():
    assert {p.stem for p in DERIVATIONS.glob("*.json")} == set(SIZES)


def load(stem: str) -> Derivation:
    return Derivation.load(DERIVATIONS / f"{stem}.json")


def inputs(stem: str, d: Derivation, sizes: dict, seed: int = 0) -> list:
    from workbench.inputs import random_inputs

    rng = np.random.default_rng(seed)
    if stem == "md":
        n, k = sizes["N"], sizes["K"]
        ps = tuple(rng.uniform(0, 10, n).astype(np.float32) for _ in range(3))
        neighbours = ((np.arange(n)[:, None] + rng.integers(1, n, (n, k))) % n)
        return [ps, neighbours.astype(np.int32), np.float32(16.0)]
    if stem == "icfp_fig10_asum":  # saved for [float]_4096; its last line takes any N/128
        return [rng.uniform(-1, 1, sizes["N"]).astype(np.float32)]
    if stem == "blackscholes":
        return [rng.uniform(0, 1, sizes["N"]).astype(np.float32)]
    declared = getattr(d.start, "declared_type", None)
    types = [substitute_sizes(t, sizes) for t in function_parts(declared)[0]]
    return random_inputs(types, sizes, seed)


@pytest.mark.parametrize("stem,sizes", [(stem, s) for stem, all_sizes in sorted(SIZES.items())
                                        for s in all_sizes])
def test_the_derived_kernel_runs_and_matches_the_interpreter(stem, sizes):
    d = load(stem)
    expr = d.current
    if stem == "icfp_fig10_asum":  # the same line without the saved signature
        expr = parse(str(expr))
    result = run(expr, *inputs(stem, d, sizes), repeat=2,
                 sizes={**sizes, **EXTRA.get(stem, {})})
    assert result.status == "ok" and result.correct, f"{result.status}: {result.message}"


@pytest.mark.slow
@pytest.mark.parametrize("stem", sorted(SIZES))
def test_every_step_runs_after_default_completion(stem):
    sizes = SIZES[stem][0]
    d = load(stem)
    args = inputs(stem, d, sizes)
    # versions 5 to 7 continue Listing 5.13's derivation: its steps are checked with it
    first = len(load("reduction_listing5_13").steps) if stem in CONTINUE_5_13 else 0
    for k, expr in enumerate(d.expressions()[first:], start=first):
        result = run(expr, *args, repeat=1, sizes={**sizes, **EXTRA.get(stem, {})})
        assert result.status == "ok" and result.correct, \
            f"step {k} ({expr}): {result.status}: {result.message}"

"""Random walks through the rewrite space of the library programs: every listed rewrite,
chosen at random step after step, keeps the interpreter's result (what a search does)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench import evaluate, rewrites
from workbench.programs import library

CASES = {
    "asum": ("blas", "asum", {"N": 512}),
    "dot": ("blas", "dot", {"N": 256}),
    "scal": ("blas", "scal", {"N": 256}),
    "vecSum": ("blas", "vecSum", {"N": 1024}),
    "gemv": ("blas", "gemv", {"N": 32, "M": 16}),
    "mm": ("mm", "mm", {"M": 8, "K": 16, "N": 4}),
    "vectorScal": ("figures", "vectorScal", {"N": 2048}),
}


def inputs_for(expr, sizes, rng):
    from workbench.inputs import random_inputs
    from workbench.types import function_parts

    return random_inputs(function_parts(expr.declared_type)[0], sizes, int(rng.integers(1 << 30)))


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_random_walks_keep_the_meaning(case, data):
    file, name, sizes = CASES[case]
    expr = library(file)[name]
    from workbench.types import function_parts, substitute_sizes

    concrete = [substitute_sizes(t, sizes) for t in function_parts(expr.declared_type)[0]]
    rng = np.random.default_rng(data.draw(st.integers(0, 1 << 16)))
    args = inputs_for(expr, sizes, rng)
    expected = evaluate(expr, *args)
    current = expr
    for _ in range(6):
        found = rewrites(current, *concrete)
        if not found:
            break
        step = data.draw(st.sampled_from(found))
        current = step.result
        got = evaluate(current, *args)
        for g, e in zip(*(x if isinstance(x, tuple) else (x,) for x in (got, expected))):
            scale = 1 + float(np.max(np.abs(e)))
            np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-4 * scale,
                                       err_msg=f"after {step.rule} at {step.path}: {current}")

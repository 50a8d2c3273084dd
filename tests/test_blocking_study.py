"""The blocking study (benchmarks/blocking_study.py): its variants of GESUMMV and MRI-Q are
the default program, the blocked ones at each k and distribution, the constant one and both,
and each runs correctly on the default device."""

import pytest

from benchmarks import blocking_study as study
from benchmarks import lift_programs as lift
from workbench.run import prepare_inputs
from workbench.semantics import evaluate


@pytest.mark.slow  # a dozen kernels built and run each
@pytest.mark.parametrize("name,size", [("gesummvNN", 16), ("mriqComputeQ", 64)])
def test_the_studys_variants_run_correctly(name, size):
    prog, args = lift.PROGRAMS[name].program(), lift.inputs_of(name, size)
    exprs = study.variants(prog, tuple(prepare_inputs(prog, args)[1]))
    assert {"default", "constant", "k=2 chunked", "k=8 strided",
            "k=4 strided + constant"} <= set(exprs)
    times = study.timed(exprs, args, evaluate(prog, *args), None, rounds=1, repeat=1)
    assert all(t["correct"] and t["kernel_ms"] > 0 for t in times.values()), times

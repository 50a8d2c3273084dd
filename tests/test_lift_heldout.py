"""A held-out set of Lift programs (``tests/data/lift_heldout.py``: Lift's highLevel
programs, benchmarks, PolyBench programs and stencil tutorial, none of them among the
programs the reader was written against) parse as written, type-check, evaluate to what
NumPy computes and run on the default device, checked against the interpreter."""

import pytest

from tests.data.lift_heldout import TESTS
from tests.test_lift_programs import assert_close, inputs
from workbench import evaluate, parse_program, typecheck
from workbench.run import run
from workbench.typecheck import declared_type_of
from workbench.types import function_parts


def program_of(test):
    """The program a test runs: the text's last definition (a highLevel file's anonymous
    function is its last expression)."""
    program = parse_program(test.program)
    return program[list(program)[-1]]


def test_about_forty_programs_of_every_kind():
    assert len(TESTS) >= 40
    assert len({t.name for t in TESTS}) == len(TESTS)
    sources = " ".join(t.source for t in TESTS)
    for kind in ("highLevel/asum", "highLevel/stencil/cgo/", "src/main/benchmarks/",
                 "polybench", "GettingStarted"):
        assert kind in sources, kind


@pytest.mark.parametrize("test", TESTS, ids=[t.name for t in TESTS])
def test_a_held_out_program_parses_and_typechecks(test):
    f = program_of(test)
    declared = declared_type_of(f)
    assert declared is not None, test.provenance
    assert len(function_parts(declared)[0]) == len(test.inputs)
    typecheck(f)


@pytest.mark.parametrize("test", TESTS, ids=[t.name for t in TESTS])
def test_a_held_out_program_computes_what_numpy_does(test):
    f = program_of(test)
    args = inputs(test)
    assert_close(evaluate(f, *args), test.gold(*args), test.provenance)


@pytest.mark.parametrize("test", TESTS, ids=[t.name for t in TESTS])
def test_a_held_out_program_runs_on_the_default_device(test):
    f = program_of(test)
    result = run(f, *inputs(test), repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, \
        f"{test.provenance}: {result.status}: {result.message}\n{result.source}"

"""What every set of Lift programs copied from Lift's repository is checked for (the held-out
sets, the fresh batches): each check takes a ``LiftTest`` record, whose program is its text's
last definition."""

import importlib
import json

import pytest

from tests.test_lift_programs import assert_close, inputs
from workbench import ParseError, evaluate, parse_program, typecheck
from workbench.notation.lift_printer import lift_program
from workbench.run import run
from workbench.typecheck import declared_type_of
from workbench.types import function_parts


def program_of(test):
    """The program a test runs: the text's last definition (a highLevel file's anonymous
    function is its last expression)."""
    program = parse_program(test.program)
    return program[list(program)[-1]]


def check_located_error(test, line: int, column: int, words: str) -> None:
    """Reading the program fails at ``line`` and ``column`` with ``words`` in the message."""
    with pytest.raises(ParseError) as info:
        program_of(test)
    err = info.value
    assert (err.line, err.column) == (line, column) and words in str(err), str(err)
    assert err.source_line == test.program.split("\n")[line - 1]


def check_parses_and_typechecks(test) -> None:
    f = program_of(test)
    declared = declared_type_of(f)
    assert declared is not None, test.provenance
    assert len(function_parts(declared)[0]) == len(test.inputs)
    typecheck(f)


def check_computes_what_numpy_does(test) -> None:
    f = program_of(test)
    args = inputs(test)
    assert_close(evaluate(f, *args), test.gold(*args), test.provenance)


def check_runs_on_the_default_device(test) -> None:
    f = program_of(test)
    result = run(f, *inputs(test), repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, \
        f"{test.provenance}: {result.status}: {result.message}\n{result.source}"


def check_reads_back(test) -> None:
    """The program printed in Lift's spelling reads back to the same program and type."""
    f = program_of(test)
    again = parse_program(lift_program(f, "f"))["f"]
    assert again == f and str(again.declared_type) == str(f.declared_type)


def run_on_oclgrind(module: str, name: str) -> None:
    """In a child process (``tests.children.under_oclgrind``): the program ``name`` of the
    record lists ``module`` names after ``:`` (``tests.data.lift_heldout:TESTS,SECOND_BATCH``)
    run on Oclgrind, its outcome printed as JSON."""
    path, lists = module.split(":")
    data = importlib.import_module(path)
    (test,) = [t for n in lists.split(",") for t in getattr(data, n) if t.name == name]
    r = run(program_of(test), *inputs(test), device="Oclgrind", repeat=1, warmup=0)
    print(json.dumps({"status": r.status, "correct": r.correct, "message": r.message[:2000]}))


# a child's code: ``under_oclgrind(OCLGRIND_CHILD, module, name)``
OCLGRIND_CHILD = """
import sys
from tests.lift_sets import run_on_oclgrind
run_on_oclgrind(sys.argv[1], sys.argv[2])
"""

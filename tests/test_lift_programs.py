"""Programs copied from Lift's test suite (``tests/data/lift_tests.py``, with their
provenance) parse as Lift program text, type-check, evaluate to what NumPy computes, and
run on the default device at the sizes their tests use, checked against the interpreter."""

import numpy as np
import pytest

from tests.data.lift_tests import TESTS
from workbench import evaluate, parse_program, typecheck
from workbench.run import run
from workbench.typecheck import declared_type_of
from workbench.types import function_parts

RNG = np.random.default_rng(18)


def _input(spec):
    dtype, shape = spec
    if dtype == "pair":
        return tuple(RNG.uniform(-1, 1, shape).astype(np.float32) for _ in range(2))
    if dtype == "int":
        return RNG.integers(0, 1000, shape).astype(np.int32)
    if shape == ():
        return np.float32(RNG.uniform(-1, 1))
    return RNG.uniform(-1, 1, shape).astype(np.float32)


def inputs(test):
    return [test.values[i] if i in test.values else _input(spec)
            for i, spec in enumerate(test.inputs)]


def _flat(value):
    if isinstance(value, tuple):
        return tuple(_flat(v) for v in value)
    return np.asarray(value, dtype=np.float64).reshape(-1)


def assert_close(got, expected, what):
    got, expected = _flat(got), _flat(expected)
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected), what
        for g, e in zip(got, expected):
            assert_close(g, e, what)
        return
    assert got.shape == expected.shape, (what, got.shape, expected.shape)
    scale = max(1.0, float(np.max(np.abs(expected))))
    np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-3 * scale, err_msg=what)


def test_at_least_thirty_programs_from_lift_tests():
    assert len(TESTS) >= 30
    kinds = " ".join(t.provenance for t in TESTS)
    for kind in ("TestVector", "TestReduce", "TestIterate", "TestScatterGather",
                 "TestTranspose", "TestMatrixVector", "Basic", "Tiled", "TestStencil.",
                 "TestStencil2D"):
        assert kind in kinds, kind
    assert len({t.name for t in TESTS}) == len(TESTS)


@pytest.mark.parametrize("test", TESTS, ids=[t.name for t in TESTS])
def test_a_lift_test_program_parses_typechecks_and_computes_what_numpy_does(test):
    program = parse_program(test.program)
    f = program["f"]
    declared = declared_type_of(f)
    assert declared is not None, test.provenance
    args = inputs(test)
    assert len(function_parts(declared)[0]) == len(args)
    typecheck(f)
    assert_close(evaluate(f, *args), test.gold(*args), test.provenance)


@pytest.mark.parametrize("test", TESTS, ids=[t.name for t in TESTS])
def test_a_lift_test_program_runs_on_the_default_device(test):
    f = parse_program(test.program)["f"]
    result = run(f, *inputs(test), repeat=1, warmup=0)
    assert result.status == "ok" and result.correct, \
        f"{test.provenance}: {result.status}: {result.message}\n{result.source}"

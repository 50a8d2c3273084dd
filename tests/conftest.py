import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True,
                          print_blob=True, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=40, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite the golden files under tests/golden/ from the code as it is "
                          "now, instead of comparing with them")


@pytest.fixture
def golden(request):
    """``golden(name, text)`` compares ``text`` with ``tests/golden/<name>`` and fails with a
    unified diff where they differ; with ``--update-golden`` it writes the file instead."""
    from tests.golden import compare

    update = request.config.getoption("--update-golden")
    return lambda name, text: compare(name, text, update)


# The guided search starts from the device's calibration in the user's cache and adds to it
# (workbench.search.calibration): a test's search would then depend on the tests run before
# it. Tests keep none, unless a test gives a folder of its own (tests/test_calibration.py).
os.environ.setdefault("WORKBENCH_CALIBRATIONS", "off")

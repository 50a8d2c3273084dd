"""Devices are probed before they are used; the default is a working one; a machine where no
device works gets one clear error with the command that fixes it (SPEC 7, 14).

Failures are injected for real with WORKBENCH_PROBE_FAIL (the probe kernel of the named
device does not compile, or its probing process aborts or hangs), so the choice of the
default and the messages run as they would for a broken driver. Commands run in fresh
processes: device discovery happens once per process."""

import json
import os
import re
import stat
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tests.jupyter import require_notebook
from workbench import parse
from workbench.device import opencl as opencl_devices
from workbench.device import userdirs
from workbench.run import run

ROOT = Path(__file__).parent.parent
TOUR = ROOT / "notebooks" / "tour.ipynb"
# the default as the workbench chooses it, whatever device this machine's environment names
UNCHOSEN = {"WORKBENCH_DEVICE": None, "PYOPENCL_CTX": None}


def environment(env: dict | None) -> dict:
    """This process's environment with ``env`` over it (a value of None removes that
    variable)."""
    out = {**os.environ, **(env or {})}
    return {k: v for k, v in out.items() if v is not None}


def workbench(*argv: str, env: dict | None = None, timeout: float = 300):
    """``workbench ARGV`` in a fresh process: (exit status, stdout, stderr)."""
    done = subprocess.run([sys.executable, "-m", "workbench", *argv], cwd=ROOT,
                          env=environment(env), capture_output=True, text=True,
                          timeout=timeout)
    return done.returncode, done.stdout, done.stderr


def devices_doc(env: dict | None = None) -> dict:
    _, out, err = workbench("devices", "--json", env=env)
    return json.loads(out)


def usable(doc: dict) -> list[dict]:
    return [d for d in doc["devices"] if d["kind"] != "simulator"]


def test_every_device_has_a_health_and_the_default_works(monkeypatch):
    for name in UNCHOSEN:
        monkeypatch.delenv(name, raising=False)
    found = opencl_devices.devices()
    assert found, "PoCL provides at least one device"
    for d in found:
        assert d.health == "ok" or d.health.startswith("broken: ")
    default = opencl_devices.default_device()
    assert default.ok and default.kind != "simulator"
    working_cpus = [d for d in found if d.kind == "cpu" and d.ok]
    if working_cpus:
        assert default.id == working_cpus[0].id  # the first working CPU device


def test_devices_json_carries_health_and_marks_the_default():
    status, out, _ = workbench("devices", "--json")
    doc = json.loads(out)
    assert status == 0
    by_id = {d["id"]: d for d in doc["devices"]}
    assert by_id[doc["default"]]["health"] == "ok"
    assert all("health" in d for d in doc["devices"])
    status, text, _ = workbench("devices")
    assert f"* {doc['default']} " in text


def test_a_broken_first_cpu_device_is_passed_over_for_a_working_one():
    """The first CPU device's probe fails (as PoCL 3.0's does on CPUs its LLVM does not
    know): the default is another device that works. Where this machine has no second
    working CPU device, PoCL is asked for a second one (its single-threaded 'basic')."""
    env = dict(UNCHOSEN)
    doc = devices_doc(env)
    first = _first_cpu(doc)
    env["WORKBENCH_PROBE_FAIL"] = first["id"]
    doc = devices_doc(env)
    if not [d for d in usable(doc) if d["health"] == "ok"]:
        env["POCL_DEVICES"] = "pthread basic"
        first = next(d for d in usable(devices_doc(env)) if d["kind"] == "cpu")
        env["WORKBENCH_PROBE_FAIL"] = first["id"]
        doc = devices_doc(env)
    by_id = {d["id"]: d for d in doc["devices"]}
    assert "injected" in by_id[first["id"]]["health"]
    assert doc["default"] not in (None, first["id"])
    assert by_id[doc["default"]]["health"] == "ok"
    assert by_id[doc["default"]]["kind"] != "simulator"
    status, out, err = workbench("run", "map abs", "--type", "[float]_N", "--size", "N=4096",
                                 "--json", env=env)
    assert status == 0, err
    result = json.loads(out)
    assert result["correct"] and result["device"] == by_id[doc["default"]]["name"]


@pytest.mark.slow
def test_the_tour_notebook_runs_on_the_device_chosen_when_the_first_fails(monkeypatch):
    require_notebook(TOUR)
    import nbformat
    from nbclient import NotebookClient

    env = dict(UNCHOSEN)
    first = _first_cpu(devices_doc(env))
    env["WORKBENCH_PROBE_FAIL"] = first["id"]
    doc = devices_doc(env)
    if not [d for d in usable(doc) if d["health"] == "ok"]:
        env["POCL_DEVICES"] = "pthread basic"
        first = next(d for d in usable(devices_doc(env)) if d["kind"] == "cpu")
        env["WORKBENCH_PROBE_FAIL"] = first["id"]
        doc = devices_doc(env)
    chosen = {d["id"]: d for d in doc["devices"]}[doc["default"]]["name"]
    for name, value in env.items():  # the notebook's kernel inherits them
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    nb = nbformat.read(TOUR, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(TOUR.parent)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = "".join(o.get("text", "") for o in outputs)
    assert re.search(rf"ok \(checked against the interpreter\): .* on {re.escape(chosen)}"
                     rf"(; [^\n]*)?\n",
                     text), text


def _first_cpu(doc: dict) -> dict:
    cpus = [d for d in usable(doc) if d["kind"] == "cpu"]
    if not cpus:
        pytest.skip("no CPU OpenCL device here (PoCL is not installed)")
    return cpus[0]


def _all_failing() -> dict:
    ids = [d["id"] for d in usable(devices_doc())]
    return {"WORKBENCH_PROBE_FAIL": ",".join(ids)}


@pytest.mark.parametrize("chosen_by", [None, "WORKBENCH_DEVICE", "PYOPENCL_CTX"])
def test_when_no_device_works_each_command_says_so_once_with_the_fix(chosen_by):
    """Each device is named once, with its reason: also the one the environment chose."""
    env = {**_all_failing(), **UNCHOSEN}
    if chosen_by is not None:
        env[chosen_by] = usable(devices_doc())[-1]["id"]
    for argv in (["run", "map abs", "--type", "[float]_N", "--size", "N=64"],
                 ["search", "map abs", "--type", "[float]_64", "--budget", "3"],
                 ["devices"]):
        status, out, err = workbench(*argv, env=env)
        said = out + err
        assert status == 1, (argv, said)
        assert "Traceback" not in said
        assert said.count("no working OpenCL device") == 1, said
        assert "fix:" in said
        if argv[0] != "devices":  # one line per device, not one build log per kernel
            for d in usable(devices_doc()):
                assert said.count(f"{d['id']} {d['name']} (") == 1, said


def test_run_and_search_answer_a_missing_device_without_raising(monkeypatch):
    monkeypatch.setenv("WORKBENCH_DEVICE", "no such device")
    result = run(parse("map abs"), np.ones(16, np.float32), repeat=1)
    assert result.status == "no device" and not result.correct
    assert "WORKBENCH_DEVICE" in result.message
    from workbench import search

    with pytest.raises(opencl_devices.DeviceNotFound):
        search(parse("map abs"), "[float]_64", budget=2, workers=0)


def test_workbench_device_chooses_the_device():
    doc = devices_doc()
    for d in usable(doc):
        status, out, err = workbench("run", "map abs", "--type", "[float]_N", "--size",
                                     "N=64", "--json", env={"WORKBENCH_DEVICE": d["id"]})
        if d["health"] == "ok":
            assert status == 0 and json.loads(out)["device"] == d["name"], err
        else:  # a broken device is refused, with its reason
            assert status == 1 and d["health"].removeprefix("broken: ") in err


def test_a_probe_that_kills_its_process_marks_only_that_device_broken():
    ids = [d["id"] for d in usable(devices_doc())]
    doc = devices_doc({"WORKBENCH_PROBE_FAIL": f"crash:{ids[0]}"})
    by_id = {d["id"]: d for d in doc["devices"]}
    assert by_id[ids[0]]["health"].startswith("broken: its probe stopped the process")
    assert all(by_id[i]["health"] == d["health"]
               for i, d in ((d["id"], d) for d in usable(devices_doc())) if i != ids[0])


def test_a_probe_that_hangs_is_stopped():
    ids = [d["id"] for d in usable(devices_doc())]
    started = time.monotonic()
    doc = devices_doc({"WORKBENCH_PROBE_FAIL": f"hang:{ids[0]}",
                       "WORKBENCH_PROBE_TIMEOUT": "3"})
    assert time.monotonic() - started < 60
    by_id = {d["id"]: d for d in doc["devices"]}
    assert "did not finish within 3 s" in by_id[ids[0]]["health"]


def test_answers_are_kept_in_the_users_cache_and_check_asks_again(tmp_path):
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    doc = devices_doc(env)
    cache = tmp_path / userdirs.APP / "probes" / "health.json"
    entries = json.loads(cache.read_text())
    # every answer is kept, but for a probe that ran out of time (on a busy machine): that
    # one is asked again by the next process
    finished = [d for d in doc["devices"] if "did not finish" not in d["health"]]
    assert len(entries) == len(finished) >= 1
    assert stat.S_IMODE(os.stat(cache.parent).st_mode) == 0o700
    # a later process takes the kept answers (here: one planted for every device)
    for entry in entries.values():
        entry["health"] = "broken: an answer kept from an earlier process"
    cache.write_text(json.dumps(entries))
    kept = {d["id"]: d["health"] for d in devices_doc(env)["devices"]}
    assert {kept[d["id"]] for d in finished} == {
        "broken: an answer kept from an earlier process"}
    # --check probes again
    _, out, _ = workbench("devices", "--check", "--json", env=env)
    again = {d["id"]: d["health"] for d in json.loads(out)["devices"]}
    assert all(again[d["id"]] == d["health"] for d in finished)


def test_private_folders_are_not_taken_from_other_hands(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    shared = tmp_path / userdirs.APP
    shared.mkdir(mode=0o777)
    os.chmod(shared, 0o777)  # anyone may write here: an .icd planted there would load
    folder = userdirs.private_dir("icd")
    assert not folder.is_relative_to(shared)
    assert userdirs.is_private(folder)
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    os.chmod(shared, 0o700)
    assert userdirs.private_dir("icd") == shared / "icd"


def test_vector_widths_are_a_probed_fact_of_each_device():
    """Each working device lists the float vector widths whose probe kernel built, ran and
    computed right; a width whose probe kills the process (PoCL 3.0's compiler on float16,
    injected here) is missing, and the device still works."""
    doc = devices_doc()
    working = [d for d in usable(doc) if d["health"] == "ok"]
    if not working:
        pytest.skip("no working OpenCL device here")
    first = working[0]
    assert first["vector_widths"] and set(first["vector_widths"]) <= {2, 4, 8, 16}
    env = {"WORKBENCH_PROBE_FAIL": f"crash16:{first['id']}"}
    again = {d["id"]: d for d in devices_doc(env)["devices"]}[first["id"]]
    assert again["health"] == "ok"
    assert 16 not in again["vector_widths"] and 8 in again["vector_widths"]
    status, text, _ = workbench("devices", env=env)
    assert "ok (vectors of 2, 4, 8)" in text


def test_built_in_functions_on_vectors_are_probed_apart():
    """A width whose built-in functions kill the compiler (PoCL 3.0 from PyPI on an AVX-512
    CPU, on float16; injected here) stays among the device's vector widths, as the code
    generator writes vectors without them, and is missing from its built-in widths."""
    doc = devices_doc()
    working = [d for d in usable(doc) if d["health"] == "ok"]
    if not working:
        pytest.skip("no working OpenCL device here")
    first = working[0]
    assert set(first["builtin_widths"]) <= set(first["vector_widths"])
    env = {"WORKBENCH_PROBE_FAIL": f"builtins16:{first['id']}"}
    again = {d["id"]: d for d in devices_doc(env)["devices"]}[first["id"]]
    assert again["health"] == "ok" and 16 in again["vector_widths"]
    assert 16 not in again["builtin_widths"] and 8 in again["builtin_widths"]
    status, text, _ = workbench("devices", env=env)
    assert "(vectors of 2, 4, 8, 16; built-in functions on 2, 4, 8)" in text


@pytest.mark.parametrize("name, driver, says", [
    ("pthread-skylake-avx512-AMD EPYC", "3.1+debian",
     "PoCL 3.1+debian from Debian, LLVM 15: kernels built for this CPU (skylake-avx512)"),
    ("pthread-AMD EPYC", "3.0-rc2", "PoCL 3.0-rc2, LLVM 14: kernels built for the CPU its "
     "LLVM knows nearest, not for this one"),
])
def test_devices_say_which_pocl_runs_the_cpu_and_what_it_means(monkeypatch, name, driver, says):
    monkeypatch.setattr(opencl_devices, "_host_cpu_model", lambda: "AMD EPYC")
    monkeypatch.setattr(opencl_devices, "_from_pypi", lambda info: False)
    info, _ = _fake("1:0", "Portable Computing Language", name)
    llvm = "15.0.6" if "debian" in driver else "14.0.6"
    info = replace(info, driver=driver, platform_version=f"OpenCL 3.0 PoCL {driver} LLVM {llvm}")
    assert opencl_devices.pocl_build(info).startswith(says)
    gpu, _ = _fake("0:0", "NVIDIA CUDA", "NVIDIA H200", "gpu")
    assert opencl_devices.pocl_build(gpu) == ""


PINNED = ("import os; from workbench.device import opencl as d; d.opencl(); "
          "print(os.environ.get('POCL_AFFINITY')); print(d.notes())")


@pytest.mark.parametrize("given, cores, pinned", [
    (None, "all", "1"),     # PoCL's threads are pinned, and the notes say so
    ("0", "all", "0"),      # the caller's choice stands
    (None, "one", None),    # a process held to fewer cores is left alone
])
def test_pocl_threads_are_pinned_to_the_cores_unless_the_caller_chose(given, cores, pinned):
    env = {k: v for k, v in os.environ.items() if k != "POCL_AFFINITY"}
    if given is not None:
        env["POCL_AFFINITY"] = given
    held = None
    if cores == "one":
        if (os.cpu_count() or 1) < 2:
            pytest.skip("one core: every process may use them all")
        held = lambda: os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # noqa: E731
    elif len(os.sched_getaffinity(0)) != os.cpu_count() and given is None:
        pinned = None  # this process is held to some of the cores already (a container's)
    done = subprocess.run([sys.executable, "-c", PINNED], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, preexec_fn=held)
    assert done.returncode == 0, done.stderr
    value, notes = done.stdout.splitlines()[-2:]
    assert value == str(pinned)
    assert ("POCL_AFFINITY=1" in notes) == (pinned == "1" and given is None)


def _fake(id: str, platform: str, name: str, kind: str = "cpu"):
    info = opencl_devices.DeviceInfo(id=id, platform=platform, name=name, kind=kind,
                                     driver="1", compute_units=2, max_work_group_size=256,
                                     local_memory_bytes=32768, doubles=True, health="ok")
    return info, None


FOUND = [_fake("0:0", "NVIDIA CUDA", "NVIDIA H100 80GB HBM3", "gpu"),
         _fake("0:1", "NVIDIA CUDA", "NVIDIA H100 80GB HBM3", "gpu"),
         _fake("1:0", "Portable Computing Language", "pthread-AMD EPYC"),
         _fake("2:0", "Portable Computing Language", "cpu-haswell-AMD EPYC")]


@pytest.mark.parametrize("text, chosen", [
    ("0", "0:0"), ("0:1", "0:1"), ("1:0", "1:0"), ("1", "1:0"), ("2:0", "2:0"),
    ("0:0,1", "0:0"),                  # several devices: the first
    (":", "0:0"), ("nvidia", "0:0"),   # the first platform; a platform by name
    ("portable", "2:0"),               # of platforms whose name holds it, the last (pyopencl's)
    ("Portable:pthread", None),        # ... and no device of that one is called so
    ("1:pthread", "1:0"), ("0:h100", "0:0"),
    ("3", None), ("1:1", None), ("amd", None),
])
def test_pyopencl_ctx_names_devices_as_pyopencl_reads_it(text, chosen):
    matches = opencl_devices.pyopencl_ctx_matches(text, FOUND)
    assert [info.id for info, _ in matches] == ([chosen] if chosen else [])


def test_pyopencl_ctx_chooses_the_default_and_workbench_device_wins(monkeypatch):
    working = [d for d in opencl_devices.devices() if d.ok and d.kind != "simulator"]
    if not working:
        pytest.skip("no working OpenCL device here")
    for name in UNCHOSEN:
        monkeypatch.delenv(name, raising=False)
    automatic = opencl_devices.default_device()
    other = next((d for d in reversed(opencl_devices.devices())
                  if d.ok and d.id != automatic.id), None)
    if other is None:
        pytest.skip("one working device here: nothing else to choose")
    monkeypatch.setenv("PYOPENCL_CTX", other.id)
    assert opencl_devices.default_device().id == other.id
    assert opencl_devices.environment_choice() == ("PYOPENCL_CTX", other.id)
    monkeypatch.setenv("WORKBENCH_DEVICE", automatic.id)
    assert opencl_devices.default_device().id == automatic.id
    monkeypatch.delenv("WORKBENCH_DEVICE")
    monkeypatch.setenv("PYOPENCL_CTX", "9:9")
    with pytest.raises(opencl_devices.DeviceNotFound, match="PYOPENCL_CTX: no device matches "
                       "'9:9' \\(pyopencl's PLATFORM\\[:DEVICE\\]\\)"):
        opencl_devices.default_device()
    status, text, _ = workbench("devices", env={**UNCHOSEN, "PYOPENCL_CTX": other.id})
    assert status == 0 and f"* {other.id} " in text
    assert f"* the default device, as PYOPENCL_CTX={other.id} chooses" in text


def test_devices_are_listed_as_their_probes_finish():
    """A first probe of every device takes a while: each device is said on stderr as its
    probe starts and ends, long before the command ends (here every probe but the last
    fails at once, and the last one hangs until its time is up)."""
    ids = [d["id"] for d in devices_doc()["devices"]]
    env = {"WORKBENCH_PROBE_FAIL": ",".join([*ids[:-1], f"hang:{ids[-1]}"]),
           "WORKBENCH_PROBE_TIMEOUT": "4"}
    child = subprocess.Popen([sys.executable, "-m", "workbench", "devices"], cwd=ROOT,
                             env=environment(env), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    said = [(time.monotonic(), line.rstrip("\n")) for line in child.stderr]
    out = child.stdout.read()
    ended = time.monotonic()
    child.wait(timeout=300)
    probing = [line.split()[1] for _, line in said if line.startswith("probing ")]
    probed = [(t, line) for t, line in said if line.startswith("probed  ")]
    assert probing == [line.split()[1] for _, line in probed] == ids, said
    assert "did not finish within 4 s" in probed[-1][1]
    if len(ids) > 1:  # the first was said while the last one's probe still ran
        assert "injected" in probed[0][1]
        assert ended - probed[0][0] > 3, said
    assert f"{ids[-1]}  " in out  # then the listing, on stdout

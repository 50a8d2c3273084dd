"""A search spread over the devices of a Dask cluster, one worker per device, each pinned to
its device: on the two PoCL CPU devices ``POCL_DEVICES="pthread pthread"`` gives (set before
PoCL loads, so the searches run in a child process). Both ways a user gets such a cluster are
tested: ``device_cluster()`` on this host, and workers started with ``python -m
workbench.several.cluster SCHEDULER`` joining a scheduler by its address (as on every host of a
cluster that spans hosts)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.children import ROOT, child_env
from workbench.device.opencl import find_device
from workbench.several.cluster import WORKER_DEVICE_ENV, matches, pinned_device

pytest.importorskip("distributed")

CHILD = r"""
import json, subprocess, sys
from distributed import Client, LocalCluster
from workbench.several.cluster import device_cluster, pinned_workers
from workbench.device.opencl import devices
from workbench.programs import library
from workbench.search import search

ids = {}
for d in devices():
    if d.is_pocl and d.kind == "cpu" and d.ok:
        ids.setdefault(d.id.split(":")[0], []).append(d.id)
pair = next(v[:2] for v in ids.values() if len(v) >= 2)
scal = library("blas")["scal"]


def searched(client):
    from workbench.search.evaluation import ExecutorEvaluator

    out["parallelism"] = ExecutorEvaluator(client).parallelism  # a thread per device
    result = search(scal, "float", "[float]_2048", strategy="random", budget=6,
                    executor=client, repeat=1, timeout=120)
    return {"evaluated": result.evaluated, "best": result.best is not None,
            "records": [{k: r.get(k) for k in ("device_id", "host", "device_name", "status")}
                        for r in result.log]}


out = {"pair": pair}
if sys.argv[1] == "local":
    with device_cluster(pair) as cluster, Client(cluster) as client:
        out["pinned"] = sorted(pinned_workers(client).values())
        out["search"] = searched(client)
else:
    with LocalCluster(n_workers=0, processes=True, dashboard_address=None) as cluster:
        workers = subprocess.Popen([sys.executable, "-m", "workbench.several.cluster",
                                    cluster.scheduler_address, "--devices", *pair])
        try:
            with Client(cluster.scheduler_address) as client:
                client.wait_for_workers(2, timeout=120)
                out["pinned"] = sorted(pinned_workers(client).values())
                out["names"] = sorted(client.scheduler_info()["workers"][w]["name"]
                                      for w in client.scheduler_info()["workers"])
                out["search"] = searched(client)
        finally:
            workers.terminate()
            workers.wait(timeout=60)
print(json.dumps(out))
"""


def spread_search(how: str) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, how], cwd=ROOT, timeout=400,
                          env=child_env(POCL_DEVICES="pthread pthread"),
                          capture_output=True, text=True)
    if done.returncode != 0 and "StopIteration" in done.stderr:
        pytest.skip("PoCL does not give two CPU devices of one platform here")
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def check_spread(out: dict) -> None:
    assert out["pinned"] == sorted(out["pair"])
    assert out["parallelism"] == 2  # two candidates at once, one on each device
    search = out["search"]
    assert search["evaluated"] == 6 and search["best"]
    assert all(r["host"] for r in search["records"])
    measured_on = {r["device_id"] for r in search["records"]}
    assert measured_on == set(out["pair"]), search["records"]


@pytest.mark.slow
def test_a_search_measures_on_every_device_of_a_local_device_cluster():
    check_spread(spread_search("local"))


@pytest.mark.slow
def test_workers_started_on_a_host_join_a_scheduler_by_its_address():
    out = spread_search("address")
    check_spread(out)
    assert [n.rsplit("/", 1)[1] for n in out["names"]] == sorted(out["pair"])


def test_a_pinned_worker_runs_what_asks_for_the_default_or_a_device_it_matches(monkeypatch):
    here = find_device(None)[0]
    monkeypatch.setitem(os.environ, WORKER_DEVICE_ENV, here.id)
    assert pinned_device(None) == here.id
    assert pinned_device(here.kind) == here.id
    assert pinned_device("no such device") == "no such device"
    monkeypatch.delitem(os.environ, WORKER_DEVICE_ENV)
    assert pinned_device(None) is None and pinned_device("cpu") == "cpu"
    assert matches(here, here.id) and matches(here, here.name[:5])


def test_the_worker_command_refuses_a_device_it_cannot_find():
    done = subprocess.run([sys.executable, "-m", "workbench.several.cluster", "tcp://127.0.0.1:1",
                           "--devices", "no such device"], cwd=ROOT, env=child_env(),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "no device matches 'no such device'" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_efficiency_curve_colours_candidates_by_the_device_that_measured_them():
    pytest.importorskip("matplotlib")
    from workbench import plots

    records = [{"correct": True, "kernel_ms": 2.0 - i / 10, "host": "h", "device_id": f"0:{i % 2}"}
               for i in range(6)] + [{"correct": False, "kernel_ms": None, "device_name": "cpu"}]
    fig = plots.efficiency_by_device(records, title="spread")
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert labels[:2] == ["h 0:0 (3)", "h 0:1 (3)"]
    assert "failed or wrong (1)" in labels and "best so far" in labels

"""Dask clusters with one worker per device, each pinned to its device (SPEC 8): a search
given such a cluster's client (``search(..., executor=client)``) measures candidates on every
device at once, and every record names the host and device that measured it.

A worker is pinned by its environment: ``WORKBENCH_WORKER_DEVICE`` holds its device's id,
set when the worker process starts (``distributed.Nanny(env=...)``), so it holds for every
candidate the worker runs, in the fresh process each one gets, and again after the nanny
restarts a worker that crashed. A candidate asked to run on the default device, or on a
device the pinned one matches (``gpu``, a model name), runs on the pinned device.

On one host::

    from workbench.several.cluster import device_cluster
    from distributed import Client
    with device_cluster() as cluster, Client(cluster) as client:  # one worker per GPU
        result = search(expr, *arrays, executor=client)

On several hosts: start a scheduler anywhere (``dask scheduler``), then on every host start
its workers, one per device, pinned (``python -m workbench.several.cluster tcp://HOST:8786``
for every GPU of the host, ``--devices 0:0 0:1`` to choose), and give the search a client of
that scheduler: ``Client("tcp://HOST:8786")``. Workers started another way need
``WORKBENCH_WORKER_DEVICE`` (the device's id) and ``DASK_DISTRIBUTED__WORKER__DAEMON=False``
(each candidate runs in a process of its own) in their environment, one thread each.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import socket
import sys

from ..device.opencl import DeviceError, DeviceInfo, devices, find_device
from ..errors import WorkbenchError

WORKER_DEVICE_ENV = "WORKBENCH_WORKER_DEVICE"


def pinned_device(spec: str | None) -> str | None:
    """The device a candidate asked to run on ``spec`` runs on in this process: the device
    this worker is pinned to when ``spec`` is None or matches it, else ``spec``."""
    pinned = os.environ.get(WORKER_DEVICE_ENV)
    if not pinned or spec == pinned:
        return pinned or spec
    if spec is None:
        return pinned
    try:
        info = find_device(pinned)[0]
    except DeviceError:
        return spec  # running it says what is wrong with the pin
    return pinned if matches(info, spec) else spec


def matches(info: DeviceInfo, spec: str) -> bool:
    """Whether ``spec`` (as ``find_device`` reads it: an id, a kind, part of a name) names
    this device among others."""
    return spec in (info.id, info.kind) or \
        spec.lower() in f"{info.name} {info.platform}".lower()


def placement(spec: str | None) -> dict:
    """Where a candidate asked to run on ``spec`` ran: this host and the device's id (the
    devices of one host may share a name, as two H100s do)."""
    out = {"host": socket.gethostname()}
    try:
        out["device_id"] = find_device(pinned_device(spec))[0].id
    except DeviceError:
        pass
    return out


def device_ids(kind: str = "gpu") -> list[str]:
    """The ids of this host's working devices of ``kind`` (``gpu``, ``cpu``)."""
    return [d.id for d in devices() if d.kind == kind and d.ok]


def worker_specs(device_list: list[str], env: dict[str, str] | None = None,
                 prefix: str = "") -> dict:
    """Dask worker specifications, one per device: a nanny-managed process of one thread
    pinned to the device (``env``: more of its environment)."""
    from distributed import Nanny

    return {f"{prefix}device-{d}": {"cls": Nanny, "options": {
        "nthreads": 1, "env": {**(env or {}), WORKER_DEVICE_ENV: d},
        "silence_logs": logging.WARNING}}
        for d in device_list}


def _devices_or_all(device_list: list[str] | None, kind: str) -> list[str]:
    if device_list is None:
        device_list = device_ids(kind)
        if not device_list:
            raise WorkbenchError(f"this host has no working {kind} device: name the devices "
                                 f"(ids as `workbench devices` lists them)")
    ids = []
    for spec in device_list:
        info = find_device(spec)[0]
        if info.id in ids:
            raise WorkbenchError(f"device {spec!r} is {info.id}, named already: one worker "
                                 f"per device")
        ids.append(info.id)
    return ids


def device_cluster(device_list: list[str] | None = None, kind: str = "gpu",
                   env: dict[str, str] | None = None, **options):
    """A Dask cluster on this host with one worker process per device (default: every
    working device of ``kind``), each pinned to its device. ``env`` is more of the
    workers' environment (``POCL_DEVICES``, say); ``options`` go to ``SpecCluster``."""
    from distributed import Scheduler, SpecCluster

    ids = _devices_or_all(device_list, kind)
    allow_children()
    scheduler = {"cls": Scheduler, "options": {"dashboard": False, "dashboard_address": None}}
    options.setdefault("silence_logs", logging.WARNING)  # a notebook shows warnings only
    return SpecCluster(workers=worker_specs(ids, env), scheduler=scheduler, **options)


def allow_children() -> None:
    """Let the workers this process's nannies start have child processes: every candidate
    runs in a worker process of its own (``isolation``), which a daemonic process may not
    start. (Workers started otherwise need the same: ``DASK_DISTRIBUTED__WORKER__DAEMON=False``
    in their environment.)"""
    import dask

    dask.config.set({"distributed.worker.daemon": False})


def pinned_workers(client) -> dict[str, str | None]:
    """Each worker of the client's cluster (by address) and the device it is pinned to
    (None: not pinned)."""
    return client.run(worker_device)


def worker_device() -> str | None:
    """The device this process is pinned to (None: not pinned)."""
    return os.environ.get(WORKER_DEVICE_ENV)


async def serve(scheduler: str, device_list: list[str]) -> None:
    """Start this host's workers for the cluster of ``scheduler`` (an address such as
    ``tcp://10.0.0.1:8786``), one per device, pinned; return when they have all ended."""
    from distributed import Nanny

    allow_children()
    host = socket.gethostname()
    nannies = [Nanny(scheduler, nthreads=1, name=f"{host}/{d}", env={WORKER_DEVICE_ENV: d})
               for d in device_list]
    await asyncio.gather(*nannies)
    try:
        await asyncio.gather(*(n.finished() for n in nannies))
    finally:
        await asyncio.gather(*(n.close() for n in nannies), return_exceptions=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m workbench.several.cluster",
        description="Start this host's Dask workers for a workbench search, one per device, "
                    "each pinned to its device.")
    parser.add_argument("scheduler", help="the scheduler's address, e.g. tcp://10.0.0.1:8786")
    parser.add_argument("--devices", nargs="+", metavar="DEVICE",
                        help="the devices (default: every working GPU of this host)")
    parser.add_argument("--kind", default="gpu", help="the kind of device when --devices is "
                        "not given (gpu, cpu)")
    args = parser.parse_args(argv)
    try:
        ids = _devices_or_all(args.devices, args.kind)
    except WorkbenchError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(f"workers for {', '.join(ids)} on {socket.gethostname()}, scheduler "
          f"{args.scheduler}", flush=True)
    try:
        asyncio.run(serve(args.scheduler, ids))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["WORKER_DEVICE_ENV", "pinned_device", "placement", "device_ids", "worker_specs",
           "device_cluster", "pinned_workers", "worker_device", "allow_children", "serve",
           "main", "matches"]

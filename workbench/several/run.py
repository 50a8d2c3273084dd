"""Running one program on several devices at once (SkelCL's multi-GPU execution, SPEC 14):
``run(expr, *arrays, devices=[...], distributions=[...])``.

The program splits by its skeleton's rule (``distribution.split``): each device gets its
parts of the inputs and runs the program on them as an ordinary run — its own context and
queue (``runtime.context_for``), its own buffers, its inputs copied in and its output read
back (timed as transfers), its kernels timed with profiling events and its output checked
against the interpreter on its parts. The devices run at the same time, one host thread
each. The outputs are combined (concatenated, reduced, or each device's own rows of a
stencil) and the whole is checked against the interpreter on the whole inputs.

Times: the run's ``kernel_ms`` is the slowest device's median (the devices run side by side,
so the slowest bounds the whole), ``transfer_ms`` the slowest device's transfers, and
``per_device`` has every device's own: id, name, the rows it computed, kernel and transfer
times, status.

A program with redistributions (``redistribute block``, ``copy``, ``(overlap h)`` as stages
of its composition) runs in stages (``distribution.stages``): the first on the inputs as
given, each next one on the previous stage's output, distributed as that stage's rule leaves
it (a map's or stencil's blocks, a reduce's value on every device) and then redistributed as
written. Every stage is split, run and checked like a program of its own; the run's times
add the stages' up, with the host's time for each redistribution among the transfers, and
``stages`` has each stage's rule and times.

Every device's run is the single-device ``run`` (``workbench.run.run``), the same code path
as a run on one device, and the combined output is checked by its ``compare``. ``run`` here
is the one the package exports: on one device it is that ``run``, with ``devices`` or
``distributions`` it runs on several.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..device.opencl import DeviceError, find_device
from ..errors import ArgumentError, WorkbenchError
from ..expr import Expr
from ..run import RunResult, check_arguments, compare
from ..run import run as run_one
from ..semantics import evaluate, prepare_inputs
from ..values import leaves
from .distribution import (
    DistributedArray,
    Overlap,
    check_distributions,
    distributed_output,
    redistribute,
    split,
    split_stage,
    stage_inputs,
    stages,
)


def run(expr: Expr, *arrays, device: str | None = None, repeat: int = 20, sizes=None,
        warmup: int = 2, time_limit_ms: float | None = None, expected=None,
        cutoff_ms: float | None = None, devices=None, distributions=None,
        build_options=None) -> RunResult:
    """``expr`` run on ``arrays``, timed and checked against the interpreter: on one device
    (``device``; the single-device ``workbench.run.run``, whose arguments these are), or with
    ``devices`` and ``distributions`` on several devices at once, one distribution per input
    (``run_distributed``; ``cutoff_ms`` applies to one device only). ``build_options``: the
    OpenCL math options every device builds with (``device.build_options``)."""
    if devices is None and distributions is None:
        return run_one(expr, *arrays, device=device, repeat=repeat, sizes=sizes, warmup=warmup,
                       time_limit_ms=time_limit_ms, expected=expected, cutoff_ms=cutoff_ms,
                       build_options=build_options)
    try:
        check_arguments(repeat, warmup, time_limit_ms, cutoff_ms)
    except WorkbenchError as err:
        return RunResult("invalid input", str(err), error=err)
    return run_distributed(expr, arrays, devices, distributions, repeat=repeat, warmup=warmup,
                           sizes=sizes, time_limit_ms=time_limit_ms, expected=expected,
                           build_options=build_options)


def run_distributed(expr, arrays: Sequence, devices, distributions, *, repeat: int = 20,
                    warmup: int = 2, sizes=None, time_limit_ms: float | None = None,
                    expected=None, build_options=None) -> RunResult:
    """``expr`` on ``arrays`` across ``devices`` (names as ``WORKBENCH_DEVICE`` takes them:
    ``1:0``, ``cpu``, ``gpu``, part of a name) with one distribution per input (None: SkelCL's
    default, ``block`` for arrays and ``copy`` for scalars). An input may be a
    ``DistributedArray`` of as many devices with the same distribution; another one must be
    redistributed first (``distribution.redistribute``: redistributions are explicit).
    ``expected``: the interpreter's output on the whole inputs when it is known already;
    each device's expected output is had from it where the rule can (``Split.outputs_of``),
    so that a large input is interpreted once."""
    try:
        infos = _devices(devices)
        arrays, distributions = _given(arrays, distributions, len(infos))
        values, _ = prepare_inputs(expr, arrays)
        dists = check_distributions(distributions, len(values))
        staged = stages(expr, len(values))
        expected_value = evaluate(expr, *values, sizes=sizes) if expected is None else expected
        if staged is None:
            plan = split(expr, values, dists, len(infos))
    except WorkbenchError as err:
        return RunResult("invalid input", str(err), error=err)
    options = {"repeat": repeat, "warmup": warmup, "sizes": sizes,
               "time_limit_ms": time_limit_ms, "build_options": build_options}
    if staged is not None:
        return _run_stages(expr, staged, values, dists, infos, expected_value, **options)
    result, _ = _run_split(expr, plan, infos, expected_value, **options)
    return result


def _run_split(expr, plan, infos, expected_value, *, repeat, warmup, sizes, time_limit_ms,
               build_options=None):
    """One split program run on its devices side by side, its combined output checked
    against ``expected_value``: the result, and the combined output (None if a device
    failed)."""
    try:
        part_expected = plan.outputs_of(expected_value) if plan.outputs_of else None
    except WorkbenchError as err:
        return RunResult("invalid input", str(err), error=err), None
    expected = _stacked(expected_value)

    def one(k: int):
        info = infos[plan.devices[k]]
        return run_one(expr, *plan.inputs[k], device=info.id, repeat=repeat, warmup=warmup,
                       time_limit_ms=time_limit_ms, build_options=build_options,
                       expected=part_expected[k] if part_expected else None)

    with ThreadPoolExecutor(max_workers=len(plan.devices)) as pool:
        parts = list(pool.map(one, range(len(plan.devices))))
    per_device = [_entry(infos[d], rows, r) for d, rows, r in zip(plan.devices, plan.rows, parts)]
    names = " + ".join(f"{infos[d].id} {infos[d].name}" for d in plan.devices)
    result = RunResult(parts[0].status, expected=expected, device=names,
                         source=parts[0].source, source_sha256=parts[0].source_sha256,
                         completed=parts[0].completed, per_device=per_device)
    result.codegen_ms = sum(p.codegen_ms or 0.0 for p in parts)
    result.build_ms = max((p.build_ms or 0.0 for p in parts), default=None)
    failed = [(d, p) for d, p in zip(plan.devices, parts) if not p.correct]
    if failed:
        d, p = failed[0]
        result.status = p.status
        result.message = (f"on device {infos[d].id} ({infos[d].name}), rows "
                          f"{plan.rows[plan.devices.index(d)][0]}:"
                          f"{plan.rows[plan.devices.index(d)][1]}: {p.message}")
        return result, None
    combined = plan.combine([p.output for p in parts])
    out = _stacked(combined)
    result.output = out
    result.kernel_ms = max(p.kernel_ms for p in parts)
    result.kernel_ms_min = max(p.kernel_ms_min for p in parts)
    result.kernel_ms_max = max(p.kernel_ms_max for p in parts)
    result.runs = min(p.runs for p in parts)
    result.transfer_ms = max(p.transfer_ms or 0.0 for p in parts)
    check = compare(out, expected)
    result.max_error, result.correct = check.max_error, check.correct
    if not check.correct:
        result.status = "wrong result"
        result.message = (f"the devices' outputs, combined by the {plan.rule} rule: "
                          f"{check.describe()}")
    return result, combined


def _run_stages(expr, staged, values, dists, infos, expected_value, *, sizes, **options):
    """A program with redistributions run stage by stage (``distribution.stages``): each
    stage split by its rule and run on the devices, checked against the interpreter on its
    inputs; its output, distributed as the rule leaves it, is redistributed for the next
    stage. The redistribution gathers the devices' outputs (read back by the stage's run,
    among its transfers) and spreads them again as the next stage's inputs (written by that
    stage's run): its time on the host is ``redistribute_ms``. The run's times add up the
    stages' (they run one after the other); ``stages`` has each stage's, ``per_device`` each
    device's in each stage."""
    previous, records, per_device, results = None, [], [], []
    for stage in staged:
        try:
            stage_values, stage_dists = stage_inputs(stage, values, dists, previous)
            plan = split_stage(stage, stage_values, stage_dists, len(infos))
            stage_expected = evaluate(stage.program, *stage_values, sizes=sizes)
        except WorkbenchError as err:
            return RunResult("invalid input", str(err), error=err)
        result, output = _run_split(stage.program, plan, infos, stage_expected, sizes=sizes,
                                    **options)
        results.append(result)
        per_device += [dict(entry, stage=stage.number + 1)
                       for entry in result.per_device or []]
        record = {"stage": stage.number + 1, "program": str(stage.program), "rule": plan.rule,
                  "status": result.status, "kernel_ms": result.kernel_ms,
                  "transfer_ms": result.transfer_ms, "redistribute": None,
                  "redistribute_ms": None}
        records.append(record)
        if not result.correct:
            result.message = f"{stage}: {result.message}"
            result.per_device, result.stages = per_device, records
            return result
        previous = distributed_output(plan, output, len(infos))
        if stage.into is not None:
            started = time.perf_counter()
            previous = redistribute(previous, stage.into)
            record["redistribute"] = written_distribution(stage.into)
            record["redistribute_ms"] = (time.perf_counter() - started) * 1e3
    expected = _stacked(expected_value)
    out = _stacked(previous.gather())
    first = results[0]
    result = RunResult(first.status, expected=expected, device=first.device,
                         source="\n".join(r.source for r in results),
                         source_sha256=first.source_sha256, completed=first.completed,
                         per_device=per_device)
    result.stages = records
    result.output = out
    result.codegen_ms = sum(r.codegen_ms or 0.0 for r in results)
    result.build_ms = sum(r.build_ms or 0.0 for r in results)
    result.kernel_ms = sum(r.kernel_ms for r in results)
    result.kernel_ms_min = sum(r.kernel_ms_min for r in results)
    result.kernel_ms_max = sum(r.kernel_ms_max for r in results)
    result.runs = min(r.runs for r in results)
    result.transfer_ms = sum(r.transfer_ms or 0.0 for r in results) + \
        sum(r["redistribute_ms"] or 0.0 for r in records)
    check = compare(out, expected)
    result.max_error, result.correct = check.max_error, check.correct
    result.status = "ok" if check.correct else "wrong result"
    if not check.correct:
        result.message = f"the last stage's output, gathered: {check.describe()}"
    return result


def written_distribution(dist) -> str:
    """A distribution as ``redistribute`` writes it: ``block``, ``copy``, ``(overlap h)``."""
    return f"(overlap {dist.halo})" if isinstance(dist, Overlap) else str(dist)


def _devices(devices) -> list:
    """The devices named (each found and probed, ``find_device``), none twice."""
    if devices is None:
        devices = [None]
    if isinstance(devices, str) or not isinstance(devices, Sequence) or not devices:
        raise ArgumentError(f"devices = {devices!r}: give a list of device names (as "
                            f"WORKBENCH_DEVICE takes them: 1:0, cpu, gpu, part of a name)",
                            "devices")
    infos = []
    for i, spec in enumerate(devices):
        if spec is not None and not isinstance(spec, str):
            raise ArgumentError(f"devices[{i}] = {spec!r}: give a device's name or id",
                                "devices")
        try:
            info = find_device(spec)[0]
        except DeviceError as err:
            raise ArgumentError(f"devices[{i}]: {err}", "devices") from None
        if any(info.id == other.id for other in infos):
            raise ArgumentError(f"devices[{i}] = {spec!r} is device {info.id}, named "
                                f"already: give each device once", "devices")
        infos.append(info)
    return infos


def _given(arrays: Sequence, distributions, devices: int) -> tuple[list, list]:
    """The inputs as arrays, and their distributions: a ``DistributedArray`` keeps its own
    (and must be spread over as many devices, with the distribution asked for)."""
    if distributions is None:
        distributions = [a.distribution if isinstance(a, DistributedArray)
                         else "copy" if np.ndim(a) == 0 else "block" for a in arrays]
    dists = check_distributions(distributions, len(arrays))
    out = []
    for i, (a, d) in enumerate(zip(arrays, dists)):
        if isinstance(a, DistributedArray):
            if a.devices != devices or a.distribution != d:
                raise ArgumentError(
                    f"input {i} is distributed as {a.distribution} over {a.devices} devices, "
                    f"the run asks for {d} over {devices}: redistribute it explicitly "
                    f"(workbench.several.distribution.redistribute)", "distributions")
            a = a.gather()
        out.append(a)
    return out, dists


def _stacked(value):
    return np.asarray(value) if not isinstance(value, tuple) else \
        np.stack([np.asarray(p) for p in leaves(value)])


def _entry(info, rows: tuple[int, int], r) -> dict:
    return {"device": info.id, "name": info.name, "rows": list(rows), "status": r.status,
            "kernel_ms": r.kernel_ms, "kernel_ms_min": r.kernel_ms_min,
            "kernel_ms_max": r.kernel_ms_max, "transfer_ms": r.transfer_ms,
            "build_ms": r.build_ms, "source_sha256": r.source_sha256, "message": r.message}


__all__ = ["run", "run_distributed"]

"""One program's hand-written peer measured beside the array libraries' peers (NumPy and,
for a stencil, SciPy's ndimage on a CPU; CuPy and cupyx's ndimage on an NVIDIA GPU) in
interleaved rounds, its output checked against the program's reference first."""

from __future__ import annotations

import time

import numpy as np

from benchmarks.timing import pooled


def _array_peers(name: str, kind: str, args: list, repeat: int) -> dict:
    from benchmarks.lift_programs import cpu_peers, gpu_peers

    return gpu_peers(name, args, repeat) if kind == "gpu" else cpu_peers(name, args, repeat)


def _expected(name: str, kind: str, args: list):
    """The program's reference output, by CuPy where the device is a GPU and CuPy works
    (NumPy at Lift's GPU sizes takes seconds), else by NumPy."""
    from benchmarks.lift_programs import PROGRAMS

    spec = PROGRAMS[name]
    if kind == "gpu":
        try:
            import cupy as cp

            on_gpu = [cp.asarray(a) if isinstance(a, np.ndarray) else
                      tuple(cp.asarray(p) for p in a) if isinstance(a, tuple) else a
                      for a in args]
            value = spec.reference(cp, *on_gpu)
            return tuple(cp.asnumpy(v) for v in value) if isinstance(value, tuple) else \
                cp.asnumpy(value)
        except Exception:  # no CuPy, or no CUDA device it can use
            pass
    return spec.reference(np, *args)


def measure(name: str, size: int, device: str | None, rounds: int = 3, repeat: int = 10,
            array_peers: bool = True) -> dict:
    """``name``'s peer for the device's kind at ``size``: built, checked against the
    reference, then timed in ``rounds`` interleaved with the array libraries' peers. Every
    outcome is an entry (a build error, a wrong result), not an exception."""
    from benchmarks import peers
    from benchmarks.lift_programs import agree, inputs_of
    from workbench.device.opencl import find_device

    info, _ = find_device(device)
    kind = "gpu" if info.kind == "gpu" else "cpu"
    start = time.time()
    args = inputs_of(name, size)
    entry = {"program": name, "size": size, "kind": kind, "device": info.name}
    try:
        peer = peers.peer(name, kind, args, peers.target_of(info))
        entry.update(design=peer.design, options=list(peer.options), flops=peer.flops,
                     bytes=peer.bytes)
        bound = peer.bind(device)
        entry["correct"] = bool(agree(bound.output(), _expected(name, kind, args)))
    except Exception as err:  # a peer the compiler refuses is reported with its log
        return {**entry, "status": f"error: {type(err).__name__}", "message": str(err)[:3000]}
    others = _array_peers(name, kind, args, max(3, repeat // 2)) if array_peers else {}
    samples = {"hand-written": [], **{k: [] for k in others}}
    for _ in range(rounds):
        samples["hand-written"].append(bound.time(repeat))
        for k, timer in others.items():
            samples[k].append(timer())
    timed = {k: pooled(v) for k, v in samples.items()}
    entry["ms"] = {k: t.median_ms for k, t in timed.items() if t}
    entry["range_ms"] = {k: t.range_ms for k, t in timed.items() if t}
    entry["status"] = "ok" if entry["correct"] else "wrong result"
    entry["seconds"] = round(time.time() - start, 1)
    return entry

"""MRI-Q's ``computeQ`` on a CPU: hand-written PoCL designs beside NumPy's fastest formulation
(``cos(arg) @ φ``), in one process, interleaved rounds, to find what the kernel's sines and
cosines need to reach four times NumPy.

    python -m benchmarks.mriq_study --device 1:0            # Lift's CPU size, 8192 x 1024
    python -m benchmarks.mriq_study --device 2:0 --quick    # 2048 voxels

Each design is one kernel text: voxels in vectors of ``width`` lanes, ``voxels`` such vectors
a work-item's inner step (they share each sample's loads), the samples read from global or
constant memory, the sine and cosine by ``sincos``, by ``sin`` and ``cos``, by ``native_sin``
and ``native_cos``, or by ``sinpi`` and ``cospi`` of twice the sum (``sin(2πt) =
sinpi(2t)``: the factor 2π leaves the argument and the reduction to a period is exact), built
with no options, ``-cl-mad-enable`` or ``-cl-fast-relaxed-math``. Every design's output is
compared with a float64 evaluation of the program: the table gives its largest error beside
the workbench's tolerance (``workbench.run.tolerance``: 1e-3 of the largest output). Vectors
are at most as wide as the device's built-in functions work on (``peers.target_of``: float8
on PoCL 3.0, whose float16 built-ins end the process). The first design is the hand-written
peer's design before this study (float16 or float8, ``sincos``). Writes
benchmarks/results/mriq_study_<device>_<size>.json and .md (``--out`` names them).
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass, replace

import numpy as np

from benchmarks.lift_programs import RESULTS, cpu_peers, inputs_of
from benchmarks.peers.core import Launch, Peer, chunks, cpu_work_items, vector_io
from benchmarks.peers.mriq import flops_q
from benchmarks.timing import pooled

TRIG = {
    "sincos": "float$w c$j, s$j = sincos(TWO_PI * t$j, &c$j);",
    "sin+cos": "float$w s$j = sin(TWO_PI * t$j), c$j = cos(TWO_PI * t$j);",
    "native": "float$w s$j = native_sin(TWO_PI * t$j), c$j = native_cos(TWO_PI * t$j);",
    "sinpi": "float$w s$j = sinpi(2.0f * t$j), c$j = cospi(2.0f * t$j);",
}


@dataclass(frozen=True)
class Design:
    width: int = 16
    voxels: int = 1
    trig: str = "sincos"
    memory: str = "global"
    options: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        opts = " ".join(o.removeprefix("-cl-") for o in self.options)
        return (f"float{self.width} x{self.voxels} {self.trig} {self.memory}"
                + (f" [{opts}]" if opts else ""))


def source(d: Design) -> str:
    """The kernel of design ``d``: a work-item's chunk of voxel vectors, ``d.voxels`` of them
    at a time, each sample's three coordinates and weight loaded once for all of them."""
    w, space = d.width, "constant" if d.memory == "constant" else "global const"
    js = range(d.voxels)
    each = lambda text: "\n".join(  # noqa: E731
        "        " + text.replace("$w", str(w)).replace("$j", str(j)) for j in js)
    return vector_io(w) + f"""
kernel void peer(global const float *x, global const float *y, global const float *z,
                 {space} float *kx, {space} float *ky, {space} float *kz,
                 {space} float *phi, global float *qr, global float *qi) {{
    size_t first = get_global_id(0) * CHUNK, last = min((size_t)NV, first + CHUNK);
    for (size_t v = first; v < last; v += {d.voxels}) {{
{each("size_t i$j = (v + $j) * $w;")}
{each("float$w px$j = load$w(x, i$j, N), py$j = load$w(y, i$j, N), pz$j = load$w(z, i$j, N);")}
{each("float$w sr$j = 0.0f, si$j = 0.0f;")}
        for (int k = 0; k < K; k++) {{
            float ax = kx[k], ay = ky[k], az = kz[k], p = phi[k];
{each("    float$w t$j = px$j * ax + py$j * ay + pz$j * az;")}
{each("    " + TRIG[d.trig])}
{each("    sr$j += p * c$j; si$j += p * s$j;")}
        }}
{each("if (v + $j < last) { store$w(sr$j, qr, i$j, N); store$w(si$j, qi, i$j, N); }")}
    }}
}}
"""


def peer(d: Design, args, units: int) -> Peer:
    x, y, z, (kx, ky, kz, phi) = args
    n, k = x.size, kx.size
    vectors = -(-n // d.width)
    steps = -(-vectors // d.voxels)
    items = cpu_work_items(steps, units)
    inputs = {"x": x, "y": y, "z": z, "kx": kx, "ky": ky, "kz": kz, "phi": phi}
    defines = {"N": n, "K": k, "NV": vectors, "CHUNK": chunks(steps, items) * d.voxels,
               "TWO_PI": np.float32(2 * np.pi)}
    return Peer("mriqComputeQ", "cpu", d.name, source(d),
                (Launch("peer", (items,), (1,), (*inputs, "qr", "qi")),),
                {name: np.ascontiguousarray(a, np.float32) for name, a in inputs.items()},
                {"qr": ((n,), np.float32), "qi": ((n,), np.float32)},
                lambda host: (host["qr"], host["qi"]), flops_q(args), defines, d.options)


def exact(args) -> np.ndarray:
    """The program in float64 (rows: the real and the imaginary part)."""
    x, y, z, (kx, ky, kz, phi) = (a if isinstance(a, np.ndarray) else
                                  tuple(p.astype(np.float64) for p in a) for a in args)
    arg = 2 * np.pi * (np.outer(x, kx) + np.outer(y, ky) + np.outer(z, kz))
    return np.stack([np.cos(arg) @ phi, np.sin(arg) @ phi])


DESIGNS = [
    Design(16, 1, "sincos"),  # the hand-written peer's design
    Design(8, 1, "sincos"),
    Design(16, 2, "sincos"),
    Design(8, 2, "sincos"),
    Design(16, 1, "sincos", "constant"),
    Design(16, 1, "sin+cos"),
    Design(16, 1, "sinpi"),
    Design(16, 2, "sinpi"),
    Design(8, 2, "sinpi"),
    Design(16, 1, "native"),
    Design(16, 2, "native"),
    Design(16, 1, "sincos", options=("-cl-mad-enable",)),
    Design(16, 1, "sincos", options=("-cl-fast-relaxed-math",)),
    Design(16, 2, "sincos", options=("-cl-fast-relaxed-math",)),
    Design(16, 1, "sinpi", options=("-cl-fast-relaxed-math",)),
]


def study(device: str, size: int, rounds: int, repeat: int, only: list[str] | None) -> dict:
    from benchmarks.peers import target_of
    from workbench.device.opencl import find_device

    info, _ = find_device(device)
    widest = target_of(info).width
    args = inputs_of("mriqComputeQ", size)
    want = exact(args)
    from workbench.run import tolerance

    tol = tolerance(want.astype(np.float32))
    entries, timers = {}, {}
    for d in dict.fromkeys(replace(d, width=min(d.width, widest)) for d in DESIGNS):
        if only and not any(o in d.name for o in only):
            continue
        try:
            bound = peer(d, args, info.compute_units).bind(device)
            got = np.stack(bound.output())
        except Exception as err:  # a design the compiler refuses is a row saying so
            entries[d.name] = {"status": f"error: {type(err).__name__}: {str(err)[:300]}"}
            continue
        error = float(np.max(np.abs(got - want)))
        entries[d.name] = {"status": "ok" if error <= tol else "wrong", "max_error": error}
        timers[d.name] = lambda b=bound: b.time(repeat)
    for name, timer in cpu_peers("mriqComputeQ", args, max(3, repeat // 2)).items():
        entries[name] = {"status": "ok"}
        timers[name] = timer
    samples = {name: [] for name in timers}
    for _ in range(rounds):
        for name, timer in timers.items():
            samples[name].append(timer())
    for name, spread in samples.items():
        t = pooled(spread)
        entries[name].update(ms=t.median_ms, range_ms=t.range_ms)
    return {"device": info.name, "platform": info.platform, "device_arg": device,
            "size": size, "samples": int(args[3][0].size), "rounds": rounds,
            "repeat": repeat, "tolerance": tol, "flops": flops_q(args),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "designs": entries}


def table(doc: dict) -> str:
    numpy_ms = doc["designs"]["NumPy (products)"]["ms"]
    peer_ms = next(iter(doc["designs"].values())).get("ms")
    lines = [f"# MRI-Q computeQ designs on {doc['device']} ({doc['platform']})", "",
             f"{doc['size']} voxels x {doc['samples']} samples; median of {doc['rounds']} "
             f"interleaved rounds of {doc['repeat']} runs, ms [min-max]; error: the largest "
             f"against float64, beside the workbench's tolerance {doc['tolerance']:.3g}. "
             f"Written by `python -m benchmarks.mriq_study --device {doc['device_arg']}"
             f"{' --quick' if doc['size'] == 2048 else ''}` ({doc['date']}).", "",
             "| design | ms | GFLOP/s | vs NumPy (products) | vs the first design | error |",
             "|---|---|---|---|---|---|"]
    for name, e in doc["designs"].items():
        if "ms" not in e:
            lines.append(f"| {name} | {e['status']} | | | | |")
            continue
        rate = doc["flops"] / e["ms"] * 1e-6
        error = f"{e['max_error']:.2g}" if "max_error" in e else ""
        peer = f"{peer_ms / e['ms']:.2f}x" if peer_ms else ""
        lines.append(f"| {name} | {e['ms']:.2f} [{e['range_ms'][0]:.2f}-"
                     f"{e['range_ms'][1]:.2f}] | {rate:.1f} | {numpy_ms / e['ms']:.2f}x | "
                     f"{peer} | {error}{'' if e['status'] == 'ok' else ' ' + e['status']} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="1:0")
    parser.add_argument("--quick", action="store_true", help="2048 voxels (else 8192)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", nargs="*", help="designs whose name holds one of these")
    parser.add_argument("--out", help="results' file name without extension")
    a = parser.parse_args(argv)
    size = 2048 if a.quick else 8192
    doc = study(a.device, size, a.rounds, a.repeat, a.only)
    stem = a.out or f"mriq_study_{a.device.replace(':', '_')}_{size}"
    (RESULTS / f"{stem}.json").write_text(json.dumps(doc, indent=1))
    (RESULTS / f"{stem}.md").write_text(table(doc))
    print(table(doc))


if __name__ == "__main__":
    main()

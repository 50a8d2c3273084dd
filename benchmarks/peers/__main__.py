"""Every hand-written peer timed beside NumPy (SciPy's ndimage for the stencils) on a CPU,
beside CuPy (cupyx's ndimage) on an NVIDIA GPU, each checked against the program's
reference first; a table of times, rates and shares of the device's measured ceilings.

    python -m benchmarks.peers --device cpu --size quick    # this machine's PoCL: a minute
    python -m benchmarks.peers --device gpu                 # Lift's sizes on a GPU: minutes

Each program is measured in a process of its own (a peer that crashes the driver ends only
that process); a peer that fails to build or computes a wrong result is a row that says so.
Writes benchmarks/results/peers_<device>_<size>.json and .md.
"""

from __future__ import annotations

import argparse
import json
import platform
import time

from benchmarks.lift_programs import PROGRAMS, RESULTS
from benchmarks.peers.measure import measure
from benchmarks.peers.rates import rate, rate_text
from benchmarks.timing import with_range


def _speedup(other: float | None, mine: float | None) -> str:
    return f"{other / mine:.2f}x" if other and mine else "–"


def table(doc: dict, ceilings) -> str:
    """The results as Markdown: per program the peer's time, its rate and share of the
    ceiling, the array libraries' times and how many times faster the peer is."""
    arith = f"{ceilings.gflop_per_s:.4g} GFLOP/s" if ceilings.gflop_per_s else "–"
    copy = f"{ceilings.gb_per_s:.4g} GB/s" if ceilings.gb_per_s else "–"
    lines = [f"# Hand-written peers: {doc['device']} ({doc['platform']})", "",
             f"Sizes `{doc['size']}`; kernel times in ms (profiling events, median of "
             f"{doc['rounds']} interleaved rounds, [min–max] of their runs). Device "
             f"ceilings: arithmetic {arith}, copy {copy}. Written by `python -m "
             f"benchmarks.peers --device {doc['device_arg']} --size {doc['size']}`.", "",
             "| program | size | design | hand-written | rate (share of ceiling) | "
             "array peers | hand-written vs array peer |", "|---|---|---|---|---|---|---|"]
    for name, e in doc["programs"].items():
        if "ms" not in e:
            message = e.get("message", "").splitlines()[0][:120] if e.get("message") else ""
            lines.append(f"| {name} | {e.get('size', '–')} | {e.get('design', '–')} | "
                         f"{e['status']}: {message} | – | – | – |")
            continue
        ms, ranges = e["ms"], e["range_ms"]
        mine = ms.get("hand-written")
        kind = PROGRAMS[name].kind
        value, share = rate(kind, e.get("flops"), e.get("bytes"), mine, ceilings)
        others = {k: v for k, v in ms.items() if k != "hand-written"}
        design = e["design"] + (f" ({' '.join(e['options'])})" if e.get("options") else "")
        status = "" if e["status"] == "ok" else f" **{e['status']}**"
        lines.append(
            f"| {name} | {e['size']} | {design} | {with_range(mine, ranges['hand-written'])}"
            f"{status} | {rate_text(kind, value, share)} | "
            + (", ".join(f"{k} {with_range(v, ranges[k])}" for k, v in others.items()) or "–")
            + f" | {_speedup(min(others.values(), default=None), mine)} |")
    lines += ["", "rate: GFLOP/s for the dense programs (flops counted per program in "
              "benchmarks/peers), GB/s of the inputs read and the outputs written for the "
              "stencils and maps; the share is of the device's measured arithmetic or copy "
              "ceiling (the copy's of 256 MiB: above 100 %, the program's data fit in the "
              "caches). hand-written vs array peer: the fastest array peer's time over the "
              "hand-written kernel's (above 1: the kernel is faster).", ""]
    return "\n".join(lines)


def main(argv=None) -> dict:
    from workbench.ceilings import ceilings as device_ceilings
    from workbench.device.isolation import run_isolated
    from workbench.device.opencl import find_device

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None, help="cpu, gpu, an id P:D or part of a name")
    ap.add_argument("--size", choices=["test", "quick", "cpu", "gpu"], default=None,
                    help="the programs' sizes (default: Lift's for the device's kind)")
    ap.add_argument("--programs", nargs="*", default=list(PROGRAMS), choices=list(PROGRAMS))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--no-array-peers", action="store_true",
                    help="time the hand-written kernels alone")
    ap.add_argument("--in-process", action="store_true",
                    help="measure in this process (a driver crash then ends the run)")
    ap.add_argument("--out", default=None, help="where to write the JSON (and .md beside)")
    args = ap.parse_args(argv)
    info, _ = find_device(args.device)
    kind = "gpu" if info.kind == "gpu" else "cpu"
    size_key = args.size or kind
    doc = {"device": info.name, "device_arg": args.device or info.id,
           "platform": platform.platform(), "size": size_key, "rounds": args.rounds,
           "programs": {}}
    start = time.time()
    for name in args.programs:
        size = PROGRAMS[name].sizes[size_key]
        job = (name, size, args.device, args.rounds, args.repeat, not args.no_array_peers)
        if args.in_process:
            entry = measure(*job)
        else:
            done = run_isolated(measure, *job, timeout=240.0)
            entry = done.payload if done.kind == "value" else {
                "program": name, "size": size, "status": done.kind,
                "message": str(done.payload)}
        doc["programs"][name] = entry
        print(f"{name}: {entry['status']} ({time.time() - start:.0f} s)", flush=True)
    found = device_ceilings(args.device)
    doc["ceilings"] = {"gflop_per_s": found.gflop_per_s, "gb_per_s": found.gb_per_s}
    text = table(doc, found)
    print(text)
    tag = "gpu" if kind == "gpu" else "pocl" if info.is_pocl else info.kind
    out = RESULTS / f"peers_{tag}_{size_key}.json" if args.out is None else \
        __import__("pathlib").Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2, default=str) + "\n")
    out.with_suffix(".md").write_text(text)
    return doc


if __name__ == "__main__":
    main()

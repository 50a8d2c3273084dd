"""Lift's stencils on a CPU before and after the code generator peels a row's edges off its
interior (``codegen.peel``, with index functions of plain arithmetic read as index
arithmetic: ``codegen.views.index_arithmetic``), beside the hand-written PoCL kernel, all
timed in the same interleaved rounds in one process:

- before: the default mapping as the code generator wrote it without the two (every
  element of a row through a clamp, PPCG's rotation a call per element), its innermost
  sequential reduction unrolled where it has one (the convolution's 9 taps: what the
  guided search measures on a CPU, ``unrolled_first``);
- after: the same, and the stencil with its result's pads moved onto its input
  (``grids.pads_moved``: what the guided search measures second on a CPU, ``pads_first``);
- hand-written: ``benchmarks.peers`` (a chunk of rows a work-item, float8 along the row).

Every kernel is checked against the interpreter.

    python -m benchmarks.stencil_peeling --device 1:0          # the --quick sizes

Writes benchmarks/results/stencil_peeling_<device>.json and .md.
"""

from __future__ import annotations

import argparse
import json
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

from benchmarks.lift_programs import PROGRAMS, hand_written_peer, inputs_of
from benchmarks.timing import Spread, pooled

RESULTS = Path(__file__).parent / "results"
STENCILS = [name for name, p in PROGRAMS.items() if p.kind == "stencil"]


@contextmanager
def without_peeling():
    """The code generator as it was before peeling: no loop peeled, every index function
    a call."""
    with mock.patch("workbench.codegen.peel.peel", lambda kernel: kernel), \
            mock.patch("workbench.codegen.views.index_arithmetic", lambda f, indices: None):
        yield


def variants(name: str, size: int) -> tuple[list, object, dict]:
    """The program's inputs at ``size``, the interpreter's output, and the compiled
    variants by label: (expression, program)."""
    from workbench.codegen.program import opencl
    from workbench.rules.lowering import lower
    from workbench.search.grids import pads_moved
    from workbench.semantics import evaluate, prepare_inputs

    prog = PROGRAMS[name].program()
    args = inputs_of(name, size)
    types = prepare_inputs(prog, args)[1]
    default = unrolled(lower(prog, *types)[0], types)
    with without_peeling():
        found = {"before": (default, opencl(default, *types, complete=True))}
    found["after"] = (default, opencl(default, *types, complete=True))
    moved, steps = pads_moved(prog, types)
    if steps:
        low = lower(moved, *types)[0]
        found["after, pads moved"] = (low, opencl(low, *types, complete=True))
    return args, evaluate(prog, *args), found


def unrolled(expr, types):
    """``expr`` with its innermost sequential reduction unrolled, where it has one."""
    from workbench.rewriting.application import lookup_rule, rewrites

    sites = rewrites(expr, *types, rules=[lookup_rule("reduceSeq→reduceSeqUnroll")])
    return max(sites, key=lambda r: len(r.path)).result if sites else expr


def measure(name: str, size: int, device: str | None, rounds: int, repeat: int) -> dict:
    from workbench.run import run

    args, expected, found = variants(name, size)
    design, timer = hand_written_peer(name, "cpu", args, device, expected, repeat)
    samples: dict[str, list[Spread]] = {k: [] for k in [*found, "hand-written"]}
    for _ in range(rounds):
        if timer is not None:
            samples["hand-written"].append(timer())
        for label, (expr, program) in found.items():
            r = run(expr, *args, device=device, repeat=repeat, expected=expected,
                    program=program)
            if not r.correct:
                raise AssertionError(f"{name}, {label}: {r.status} {r.message}")
            samples[label].append(Spread(r.kernel_ms, r.kernel_ms_min, r.kernel_ms_max))
    timed = {k: pooled(v) for k, v in samples.items() if v}
    return {"size": size, "hand_written": design,
            "ms": {k: t.median_ms for k, t in timed.items()},
            "range_ms": {k: t.range_ms for k, t in timed.items()}}


def table(doc: dict) -> str:
    labels = ["before", "after", "after, pads moved"]
    lines = [f"# Stencils before and after peeling: {doc['device']}", "",
             f"Kernel times in ms (device events, median of {doc['rounds']} interleaved "
             "rounds); in brackets the hand-written kernel's time over each. Written by "
             "`python -m benchmarks.stencil_peeling`.", "",
             "| program | size | " + " | ".join(labels) + " | hand-written |",
             "|---|---|" + "---|" * (len(labels) + 1)]
    for name, e in doc["programs"].items():
        ms, peer = e["ms"], e["ms"].get("hand-written")
        cells = [f"{ms[k]:.4f} ({peer / ms[k]:.2f}x)" if k in ms and peer else
                 f"{ms[k]:.4f}" if k in ms else "–" for k in labels]
        lines.append(f"| {name} | {e['size']} | " + " | ".join(cells) +
                     (f" | {peer:.4f} |" if peer else " | – |"))
    return "\n".join(lines) + "\n"


def main(argv=None) -> dict:
    from workbench.device.opencl import find_device

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None, help="cpu, an id P:D or part of a name")
    ap.add_argument("--programs", nargs="*", default=STENCILS, choices=STENCILS)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    info, _ = find_device(args.device)
    tag = "pocl" if info.is_pocl else info.kind
    doc = {"device": info.name, "rounds": args.rounds, "programs": {}}
    for name in args.programs:
        doc["programs"][name] = measure(name, PROGRAMS[name].sizes["quick"], args.device,
                                        args.rounds, 5)
        print(name, doc["programs"][name]["ms"], flush=True)
    out = RESULTS / f"stencil_peeling_{tag}.json"
    out.write_text(json.dumps(doc, indent=2) + "\n")
    out.with_suffix(".md").write_text(table(doc))
    print(table(doc))
    return doc


if __name__ == "__main__":
    main()

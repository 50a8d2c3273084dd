"""More outputs per work-item and constant memory on Lift's GESUMMV and MRI-Q: the default
kernel, the maps of reductions blocked k outputs at a time (``block-outputs``, chunked and
strided), the shared input in constant memory (``input→toConstant``) and both, timed in the
same interleaved rounds, each checked against the interpreter; then the guided search with
its default options and with ``blocked_first`` and ``constant_first``, their best kernels
timed again beside the default one.

    python -m benchmarks.blocking_study --device gpu      # 4096 and 32768: within 9 minutes
    python -m benchmarks.blocking_study --quick           # small sizes on PoCL

Writes benchmarks/results/blocking_study_<device>.json (``_quick`` with --quick).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from benchmarks import lift_programs as lift
from benchmarks.timing import Spread, pooled

RESULTS = Path(__file__).parent / "results"
SIZES = {"gesummvNN": {"quick": 512, "full": 4096},
         "mriqComputeQ": {"quick": 2048, "full": 32768}}
KS = (2, 4, 8)


def variants(prog, types) -> dict[str, object]:
    """The default program, blocked at each k and distribution, its shared inputs in
    constant memory, and both (k 4 and 8), by label."""
    from workbench.search.proposals import blocked_mapping, constant_inputs, with_constant_inputs

    out = {"default": prog}
    constant = constant_inputs(prog, types)
    if constant is not None:
        out["constant"] = constant[0]
    for k in KS:
        for distribution in ("chunked", "strided"):
            found = blocked_mapping(prog, types, k, distribution)
            if found is None:
                continue
            out[f"k={k} {distribution}"] = found[0]
            both = with_constant_inputs(*found, types) if k > 2 else None
            if both is not None:
                out[f"k={k} {distribution} + constant"] = both[0]
    return out


def timed(exprs: dict, args, expected, device, rounds: int, repeat: int) -> dict[str, dict]:
    """Each expression run ``rounds`` times in turn (``repeat`` timed runs each): its status,
    whether it matched the interpreter, and its median and range in ms over the rounds."""
    from workbench.run import run

    samples: dict[str, list[Spread]] = {label: [] for label in exprs}
    status: dict[str, dict] = {}
    for _ in range(rounds):
        for label, expr in exprs.items():
            r = run(expr, *args, device=device, repeat=repeat, expected=expected)
            status[label] = {"status": r.status, "correct": r.correct,
                             "message": (r.message or "")[:300]}
            if r.correct:
                samples[label].append(Spread(r.kernel_ms, r.kernel_ms_min, r.kernel_ms_max))
    out = {}
    for label in exprs:
        spread = pooled(samples[label])
        out[label] = {**status[label], "kernel_ms": spread.median_ms if spread else None,
                      "range_ms": spread.range_ms if spread else None}
    return out


def searched(prog, args, device, budget: int, time_limit: float, options: dict) -> dict:
    """The guided search with ``options``: its best kernel, time, candidates and seconds."""
    from workbench.notation import to_text
    from workbench.search import search

    start = time.time()
    try:
        found = search(prog, *args, device=device, budget=budget, time_limit=time_limit,
                       options=options)
    except Exception as err:  # a failed search is reported, the study goes on
        return {"error": f"{type(err).__name__}: {err}"[:500]}
    return {"best": found.best, "best_text": to_text(found.best, width=None)
            if found.best is not None else None, "kernel_ms": found.best_kernel_ms,
            "evaluated": found.evaluated, "seconds": round(time.time() - start, 1),
            "options": options}


def study(name: str, size: int, device, budget: int, time_limit: float, rounds: int,
          repeat: int) -> dict:
    from workbench.run import prepare_inputs
    from workbench.semantics import evaluate

    prog, args = lift.PROGRAMS[name].program(), lift.inputs_of(name, size)
    types = tuple(prepare_inputs(prog, args)[1])
    expected = evaluate(prog, *args)
    exprs = variants(prog, types)
    entry = {"size": size, "variants": timed(exprs, args, expected, device, rounds, repeat)}
    _print_times(name, size, entry["variants"])
    searches = {"guided (default options)": {},
                "guided (blocked_first, constant_first)": {"blocked_first": True,
                                                           "constant_first": True}}
    found = {label: searched(prog, args, device, budget, time_limit, options)
             for label, options in searches.items()}
    best = {label: f.pop("best") for label, f in found.items() if f.get("best") is not None}
    entry["searches"] = found
    entry["searched_retimed"] = timed({"default": prog, **best}, args, expected, device,
                                      rounds, repeat)
    _print_times(f"{name}: the searches' best, timed again", size, entry["searched_retimed"],
                 found)
    return entry


def _print_times(title: str, size: int, times: dict, searches: dict | None = None) -> None:
    print(f"\n{title} (size {size})", flush=True)
    default = times.get("default", {}).get("kernel_ms")
    for label, t in times.items():
        ms = t["kernel_ms"]
        ratio = f"  {default / ms:5.2f}x default" if ms and default else ""
        what = f"{ms:9.4f} ms{ratio}" if ms else f"{t['status']}: {t['message'][:120]}"
        extra = ""
        if searches and label in searches:
            s = searches[label]
            extra = f"  ({s.get('evaluated')} candidates, {s.get('seconds')} s)"
        print(f"  {label:42s} {what}{extra}", flush=True)


def main(argv=None) -> dict:
    from workbench.device.opencl import find_device

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None, help="cpu, gpu, an id P:D or part of a name")
    ap.add_argument("--quick", action="store_true", help="small sizes (minutes on a CPU)")
    ap.add_argument("--programs", nargs="*", default=list(SIZES), choices=list(SIZES))
    ap.add_argument("--budget", type=int, default=40, help="candidates per search")
    ap.add_argument("--time-limit", type=float, default=None,
                    help="seconds a search may take (default 75, 40 with --quick)")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    info, _ = find_device(args.device)
    tag = "gpu" if info.kind == "gpu" else "pocl" if info.is_pocl else info.kind
    time_limit = args.time_limit or (40.0 if args.quick else 75.0)
    doc = {"device": info.name, "budget": args.budget, "time_limit": time_limit,
           "rounds": args.rounds, "programs": {}}
    out = RESULTS / f"blocking_study_{tag}{'_quick' if args.quick else ''}.json"
    for name in args.programs:
        size = SIZES[name]["quick" if args.quick else "full"]
        doc["programs"][name] = study(name, size, args.device, args.budget, time_limit,
                                      args.rounds, 5 if args.quick else 10)
        out.write_text(json.dumps(doc, indent=1, default=str) + "\n")
    print(f"\nwrote {out}")
    return doc


if __name__ == "__main__":
    main()

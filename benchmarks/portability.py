"""Performance portability (CASES 2016, Table 2): the best kernel each search found for its
device, run on *this* device. Reads the search results in benchmarks/results/search_*.json,
runs every program's winners here at the sizes they were found for (those this device's
size set has too; a winner whose split sizes do not divide them is reported as such), next
to the program after default completion, interleaved over rounds, and writes
benchmarks/results/portability_<device>_<sizes>.json (and .md).

    python -m benchmarks.portability                  # PoCL, small sizes
    python -m benchmarks.portability --sizes large    # the GPU's winners on this CPU
    python -m benchmarks.portability --device gpu --sizes large
"""

from __future__ import annotations

import argparse
import json

from benchmarks.search import (
    RESULTS,
    SIZES,
    device_tag,
    entry_key,
    entry_program,
    program,
    size_text,
    sizes_of,
    typed_inputs_of,
)
from benchmarks.timing import Spread, pooled
from workbench.device.opencl import find_device
from workbench.notation import parse
from workbench.notation.program import user_functions, user_functions_text
from workbench.plots import with_range
from workbench.run import run
from workbench.semantics import evaluate


def winners(sizes: str) -> dict[tuple[str, str], dict[str, object]]:
    """(program, sizes text) -> {results file it was tuned in: its best expression}."""
    found: dict[tuple[str, str], dict[str, object]] = {}
    for path in sorted(RESULTS.glob(f"search_*_{sizes}.json")):
        doc = json.loads(path.read_text())
        tuned = path.stem.removeprefix("search_").removesuffix(f"_{sizes}")
        for key, p in doc["programs"].items():
            name = entry_program(key, p)
            if p.get("best_expression"):
                functions = user_functions(user_functions_text(program(name)))
                found.setdefault((name, size_text(p["sizes"])), {})[tuned] = \
                    parse(p["best_expression"], functions)
    return found


def table(doc: dict) -> str:
    """Markdown: a row per program and sizes, a column per device the kernel was tuned for;
    each cell the time here and its ratio to the row's fastest."""
    tuned_for = sorted({t for p in doc["programs"].values() for t in p} - {"default completion"})
    columns = [*tuned_for, "default completion"]
    lines = [f"# Performance portability: kernels run on {doc['device']} ({doc['run_on']})", "",
             "Each search's winner for its device (column), run here at the sizes it was "
             "found for; ms (median of interleaved rounds, [min–max] of all their runs) and, "
             "in brackets, the time over the fastest of the row. Written by `python -m "
             "benchmarks.portability`.", "",
             "| program | sizes | " + " | ".join(f"tuned for {c}" if c != "default completion"
                                                   else c for c in columns) + " |",
             "|---|---|" + "---|" * len(columns)]
    for key, row in doc["programs"].items():
        times = [c.get("kernel_ms") for c in row.values() if c.get("kernel_ms")]
        best = min(times) if times else None
        cells = []
        for c in columns:
            cell = row.get(c)
            if cell is None:
                cells.append("–")
            elif cell.get("kernel_ms"):
                cells.append(f"{with_range(cell['kernel_ms'], cell.get('range_ms'))} "
                             f"({cell['kernel_ms'] / best:.2f}x)")
            else:
                cells.append(cell["status"])
        name, sizes = key.split(" ", 1)
        lines.append(f"| {name} | {sizes} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--sizes", choices=sorted(SIZES), default="small")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--time-limit", type=float, default=2000.0, metavar="MS",
                        help="a kernel's repetitions in one round stop (after 3) once they "
                             "have taken this long (a slow default completion at large sizes)")
    args = parser.parse_args(argv)
    info, _ = find_device(args.device)
    kind = "gpu" if info.kind == "gpu" else "cpu"
    tag = device_tag(info)
    doc = {"run_on": tag, "device": info.name, "sizes": args.sizes, "rounds": args.rounds,
           "programs": {}}
    out = RESULTS / f"portability_{tag}_{args.sizes}.json"
    for (name, sizes), exprs in sorted(winners(args.sizes).items()):
        here = [s for s in sizes_of(args.sizes, kind, name) if size_text(s) == sizes]
        if not here:
            continue  # found for sizes this device's set does not have
        s = here[0]
        exprs = {**exprs, "default completion": program(name)}
        inputs = typed_inputs_of(name, s)
        expected = evaluate(program(name), *inputs, sizes=s)
        # interleaved rounds, each kernel the median of --repeat runs per round: the
        # device's speed drifts over seconds, so kernels compared are timed side by side
        samples: dict[str, list[Spread]] = {tuned: [] for tuned in exprs}
        outcomes = {}
        for _ in range(args.rounds):
            for tuned, expr in exprs.items():
                if tuned in outcomes and not outcomes[tuned].correct:
                    continue  # a failure is not run again
                result = run(expr, *inputs, device=args.device, repeat=args.repeat, sizes=s,
                             expected=expected, time_limit_ms=args.time_limit)
                outcomes[tuned] = result
                if result.correct:
                    samples[tuned].append(Spread(result.kernel_ms, result.kernel_ms_min,
                                                 result.kernel_ms_max))
        entry = doc["programs"].setdefault(entry_key(name, s), {})
        for tuned, result in outcomes.items():
            timed = pooled(samples[tuned])
            ms = timed.median_ms if timed else None
            entry[tuned] = {"status": result.status, "correct": result.correct,
                            "kernel_ms": ms, "range_ms": timed.range_ms if timed else None,
                            "message": result.message[:300]}
            shown = f"{ms:.4f} ms" if result.correct else result.status
            print(f"{entry_key(name, s):<28} tuned for {tuned:<18} run on {tag}: {shown}",
                  flush=True)
        out.write_text(json.dumps(doc, indent=2) + "\n")  # a cut-off run keeps these
        out.with_suffix(".md").write_text(table(doc))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()

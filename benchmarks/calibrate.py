"""Calibrate the search's cost model (``workbench.search.cost``) per device from recorded
searches: every correct candidate of the logs that ``benchmarks.search`` wrote is compiled
again at its program's sizes, its features counted, and the model's weights fitted to the
measured times. Writes ``workbench/search/calibration.json`` (one model per device, and one
per kind of device: the priors of searches on devices never measured).

    python -m benchmarks.calibrate                      # every results file of benchmarks/results
    python -m benchmarks.calibrate benchmarks/results/search_gpu_paper.json --report

Prints, per device and program, how well the fitted model ranks: the rank correlation of
predicted and measured times, and the measured time of the candidate it ranks first against
the best measured (1.00: it picks the best).

These are the shipped priors. A search on a device calibrates the model there itself and
keeps it in the user's cache (``workbench.search.calibration``); ``--from-cache`` ships
those calibrations too, one entry per device name (the one updated last), fitted again from
the prior of its kind to every candidate the calibration holds:

    python -m benchmarks.calibrate --from-cache --report   # what the cache holds, per device

A kind's entry keeps the copy bandwidth its weights assume (``gb_per_s``): a device with no
calibration of its own starts from the kind's weights, its memory weights scaled to its own
measured bandwidth.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from workbench.search import cost, read

ROOT = Path(__file__).parent.parent
RESULTS = Path(__file__).parent / "results"

# compute units of the devices recorded before the results files said so
KNOWN_UNITS = {"NVIDIA H100 80GB HBM3": 132}


def device_of(doc: dict) -> tuple[str, str, int]:
    name = doc["device"]
    kind = doc.get("kind") or ("gpu" if "NVIDIA" in name or "GPU" in name else "cpu")
    units = doc.get("compute_units") or KNOWN_UNITS.get(name, 2)
    return name, kind, int(units)


def program_of(name: str):
    from workbench.programs import library

    for lib in ("blas", "blackscholes", "md"):
        programs = library(lib)
        if name in programs:
            return programs[name]
    raise KeyError(name)


def candidates(path: Path) -> list[dict]:
    """The correct candidates of one results file, each with its program, measured time and
    features on that file's device."""
    from workbench.codegen.program import opencl
    from workbench.notation import parse
    from workbench.notation.program import user_functions, user_functions_text

    from .search import entry_program, types_of

    doc = json.loads(path.read_text())
    name, kind, units = device_of(doc)
    parallelism = cost.parallelism_of(kind, units)
    out = []
    for key, p in doc["programs"].items():  # keyed by program, or program and sizes
        program = entry_program(key, p)
        functions = user_functions(user_functions_text(program_of(program)))
        types = types_of(program, p["sizes"])
        for record in read(ROOT / p["log"]):
            if not record.get("correct") or not record.get("kernel_ms"):
                continue
            features = record.get("features")
            if features is None or set(features) != set(cost.FEATURES):
                try:
                    compiled = opencl(parse(record["expression"], functions), *types,
                                      complete=True)
                except Exception:  # a candidate the generator no longer builds
                    continue
                features = cost.program_features(compiled, parallelism, kind)
            out.append({"device": name, "kind": kind, "units": units, "program": program,
                        "sizes": p["sizes"], "kernel_ms": record["kernel_ms"],
                        "correct": True, "features": features})
    return out


def _spearman(a: list[float], b: list[float]) -> float:
    if len(a) < 3:
        return float("nan")
    ra, rb = np.argsort(np.argsort(a)), np.argsort(np.argsort(b))
    return float(np.corrcoef(ra, rb)[0, 1])


def quality(model: cost.CostModel, rows: list[dict]) -> dict:
    """How the model ranks these candidates of one program: rank correlation, and the
    measured time of the best-ranked (and of the best of its first 10) over the best."""
    predicted = [model.predict(r["features"]) for r in rows]
    measured = [r["kernel_ms"] for r in rows]
    order = np.argsort(predicted)
    best = min(measured)
    return {"candidates": len(rows), "spearman": _spearman(predicted, measured),
            "first": measured[order[0]] / best,
            "best_of_10": min(measured[i] for i in order[:10]) / best}


def calibrate(paths: list[Path], report: bool = True) -> dict:
    rows = [r for path in paths for r in candidates(path)]
    table = {"devices": {}, "kinds": {}}
    for kind in sorted({r["kind"] for r in rows}):
        mine = [r for r in rows if r["kind"] == kind]
        units = max(r["units"] for r in mine)  # the features were counted per device
        model = cost.prior_for(kind=kind, compute_units=units).fit(mine, strength=0.1)
        table["kinds"][kind] = {**_entry(model, mine)}
        for device in sorted({r["device"] for r in mine}):
            theirs = [r for r in mine if r["device"] == device]
            fitted = cost.prior_for(kind=kind, compute_units=theirs[0]["units"]).fit(
                theirs, strength=0.1)
            table["devices"][device] = _entry(fitted, theirs)
            if report:
                print(f"{device}: {len(theirs)} candidates; weights "
                      + ", ".join(f"{k} {v:.3g}" for k, v in fitted.weights.items()))
                for program in sorted({r["program"] for r in theirs}):
                    for sizes in {json.dumps(r["sizes"]) for r in theirs
                                  if r["program"] == program}:
                        q = quality(fitted, [r for r in theirs if r["program"] == program
                                             and json.dumps(r["sizes"]) == sizes])
                        print(f"  {program:<12} {sizes:<28} n={q['candidates']:<4} "
                              f"rank corr {q['spearman']:.2f}  first {q['first']:.2f}x  "
                              f"best of 10 {q['best_of_10']:.2f}x")
    return table


def from_cache(report: bool = True) -> dict:
    """The user's device calibrations as shipped entries, by device name (the one updated
    last where a device has several drivers)."""
    from workbench.search import calibration

    table: dict = {"devices": {}, "kinds": {}}
    for found in sorted(calibration.stored(), key=lambda c: c.updated):
        model = found.model()
        table["devices"][found.device["name"]] = {
            "parallelism": model.parallelism, "weights": dict(model.weights),
            "source": f"calibrated on {found.device['name']} (driver "
                      f"{found.device['driver']}): {len(found.rows)} candidates, "
                      f"{found.searches} searches"}
        if report:
            rows = [(dict(zip(cost.FEATURES, f)), ms) for f, ms in found.rows.values()]
            prior = cost.prior_for(kind=found.device["kind"],
                                   compute_units=found.device["compute_units"])
            print(f"{found.device['name']} ({found.device['driver']}): {len(rows)} candidates; "
                  f"predictions miss by x{calibration.prediction_error(model, rows):.2f} "
                  f"(the kind's prior: x{calibration.prediction_error(prior, rows):.2f})")
    return table


def _entry(model: cost.CostModel, rows: list[dict]) -> dict:
    return {"parallelism": model.parallelism, "weights": model.weights,
            "source": f"{len(rows)} candidates of "
                      + ", ".join(sorted({r['program'] for r in rows}))}


def at_small_sizes(path: Path) -> bool:
    """Whether a results file is of ``--sizes small`` (2^16 floats, gemv 256²): kernels of a
    few microseconds, whose times a launch's cost hides, so that weights fitted to them alone
    leave out the work and the accumulator chains (a PoCL 3.0 model fitted so ranked a dot
    product of 2^24 floats in one work-item as fast as any)."""
    try:
        return json.loads(path.read_text()).get("sizes") == "small"
    except (OSError, ValueError):
        return False


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="*", type=Path,
                        help="results files of benchmarks.search (default: all but those of the "
                        "small sizes)")
    parser.add_argument("--report", action="store_true", help="only print, write nothing")
    parser.add_argument("--from-cache", action="store_true",
                        help="ship the device calibrations of the user's cache instead of "
                             "fitting the results files")
    parser.add_argument("--kinds", default="cpu,gpu",
                        help="the kinds of device whose prior is written too (the others keep "
                             "theirs), e.g. gpu")
    args = parser.parse_args(argv)
    paths = args.results or [p for p in sorted(RESULTS.glob("search_*.json"))
                             if not at_small_sizes(p)]
    table = from_cache() if args.from_cache else calibrate(paths)
    if not args.report:
        old = json.loads(cost.CALIBRATION.read_text()) if cost.CALIBRATION.exists() else {}
        kinds = set(args.kinds.split(","))
        table["kinds"] = {k: v for k, v in table["kinds"].items() if k in kinds}
        for key in ("devices", "kinds"):
            # an entry written again keeps what it said besides (a kind's gb_per_s)
            table[key] = {**old.get(key, {}), **{
                name: {**old.get(key, {}).get(name, {}), **entry}
                for name, entry in table[key].items()}}
        cost.CALIBRATION.write_text(json.dumps(table, indent=1) + "\n")
        print(f"wrote {cost.CALIBRATION}")


if __name__ == "__main__":
    main()

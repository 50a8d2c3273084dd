"""The expansion of macro steps into basic steps, pinned: for every macro of the catalogue at
fixed sites, and for the macro steps of the saved derivations and of the recorded search
logs (a selection, at most ``PER_RULE`` of each macro from the logs), the basic steps
``rewriting.expansion.expand`` lists (what the widget's paper view and ``Derivation.expand``
show), or the refusal. ``tests/test_macro_expansions.py`` checks that they stay the same.

    python -m tests.macro_expansions     # write tests/data/macro_expansions.json again

(replaying every log takes a couple of minutes)."""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from pathlib import Path

from workbench import Derivation, WorkbenchError, load
from workbench.rewriting.expansion import expand, is_macro

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "macro_expansions.json"
PER_RULE = 20
LOGS = ("tests/data/*.jsonl*", "notebooks/*.jsonl*", "benchmarks/results/logs/*.jsonl*")

MM_TYPES = ["[[float]_32]_16", "[[float]_8]_32"]
# (program, input types, rule, path, params): each macro where it applies and where not
SITES = [
    ("mm", MM_TYPES, "1d-blocking", "0.0", {"k": "4"}),
    ("mm", MM_TYPES, "1d-blocking", "0.0", {"k": "3"}),
    ("mm", MM_TYPES, "2d-blocking", "0.0", {"k": "2", "l": "4"}),
    ("mm", MM_TYPES, "2d-blocking", "0.0", {"k": "4", "l": "2"}),
    ("mm", MM_TYPES, "tiling", "0.0", {"m": "4", "n": "2"}),
    ("mm", MM_TYPES, "tiling", "0.0", {"m": "4", "n": "4"}),
    ("mm", MM_TYPES, "tiling", "0.0.0.0.1.0", {"m": "2", "n": "2"}),
    ("mm", MM_TYPES, "innermost-tiling", "0.0", {"s": "8"}),
    ("reduce (+) 0 ∘ map abs", ["[float]_4096"], "map-reduce-fusion", "0", {"chunk": "128"}),
    ("reduce (+) 0 ∘ map abs", ["[float]_4096"], "map-reduce-fusion", "0", {"chunk": "3"}),
    ("reduce (+) 0 ∘ map abs", ["[float]_4096"], "map-reduce-fusion-strided", "0",
     {"chunk": "64"}),
    ("reduce (+) 0 ∘ map abs", ["[float]_4096"], "map-reduce-fusion", "1", {"chunk": "64"}),
    ("reduce (+) 0", ["[float]_1024"], "reduce-chunks", "", {"chunk": "32"}),
    ("reduce (+) 0", ["[float]_1024"], "reduce-chunks-strided", "", {"chunk": "32"}),
    ("reduce (+) 0", ["[float]_1024"], "reduce-chunks", "", {"chunk": "5"}),
    ("map abs", ["[float]_1024"], "reduce-chunks", "", {"chunk": "4"}),
    ("reduce (+) 0 ∘ map abs", ["[float]_4096"], "map-reduceSeq-fusion", "0", {}),
    ("reduce (+) 0 ∘ map abs", ["[float]_4096"], "map-reduce-vectorize", "0", {"n": "4"}),
    ("reduce (+) 0 ∘ map abs", ["[float]_65536"], "two-stage-reduction", "0",
     {"groups": "64", "local": "256", "distribution": "strided"}),
    ("reduce (+) 0 ∘ map abs", ["[float]_65536"], "two-stage-reduction", "0",
     {"groups": "16", "local": "1", "distribution": "chunked"}),
    ("reduce (+) 0 ∘ map abs", ["[float]_65536"], "two-stage-reduction", "0",
     {"groups": "1", "local": "64", "distribution": "chunked"}),
    ("reduce max (-1000.0) ∘ map (λx. x * x)", ["[float]_512"], "two-stage-reduction", "0",
     {"groups": "4", "local": "32", "distribution": "chunked"}),
    ("join ∘ mapWorkgroup (reduce (*) 1) ∘ split 64", ["[float]_1024"], "workgroup-reduce",
     "1.0", {"local": "16", "distribution": "chunked"}),
    ("join ∘ mapWorkgroup (reduce (*) 1) ∘ split 64", ["[float]_1024"], "workgroup-reduce",
     "1.0", {"local": "3", "distribution": "chunked"}),
    ("reduce (*) 1", ["[float]_1024"], "workgroup-reduce", "",
     {"local": "16", "distribution": "chunked"}),
    ("join ∘ mapWorkgroup (reduce (+) 0 ∘ map abs) ∘ split 256", ["[float]_1024"],
     "workgroup-map-reduce", "1.0.0", {"local": "64", "distribution": "strided"}),
    ("join ∘ mapWorkgroup (reduce (+) 0 ∘ map abs) ∘ split 256", ["[float]_1024"],
     "workgroup-map-reduce", "1.0.0", {"local": "64", "distribution": "diagonal"}),
    ("λxs ys. map (λp. reduce (+) 0.0 (map (λq. p * q) ys)) xs", ["[float]_256", "[float]_512"],
     "shared-tiling", "0", {"t": "128", "l": "64"}),
    ("λxs ys. map (λp. reduce (+) 0.0 (map (λq. p * q) ys)) xs", ["[float]_256", "[float]_512"],
     "shared-tiling", "0", {"t": "32", "l": "64"}),
]


def expansion(case: dict) -> list[str] | str:
    """The basic steps of a case's macro step (as ``Step.describe`` writes them), or
    ``refused: `` and why."""
    d = Derivation(case["before"], *case["types"], definitions=case["definitions"])
    try:
        steps = expand(d.start, case["rule"], case["path"], *d.input_types, **case["params"])
    except WorkbenchError as err:
        return f"refused: {err}"
    return [s.describe() for s in steps]


def _site_cases() -> list[dict]:
    out = []
    for program, types, rule, path, params in SITES:
        text = str(load("workbench/programs/mm.lift")["mm"]) if program == "mm" else program
        out.append({"source": "site", "definitions": "", "types": types, "before": text,
                    "rule": rule, "path": path, "params": params})
    return out


def _recorded() -> tuple[list[dict], list[tuple[str, str, list, str, list]]]:
    """The saved derivations' and the logs' (source, program, types, definitions, runs)."""
    from workbench.search.log import read_log

    saved, logs = [], []
    for f in sorted((ROOT / "workbench" / "derivations").glob("*.json")):
        doc = json.loads(f.read_text())
        saved.append((str(f.relative_to(ROOT)), doc["start"], doc["inputs"],
                      doc.get("definitions", ""), [doc["steps"], *doc.get("branches", [])]))
    for f in sorted(itertools.chain.from_iterable(ROOT.glob(p) for p in LOGS)):
        contents = read_log(f)
        groups: dict[tuple, list] = {}
        for i, record in enumerate(contents.records):
            header = contents.header_of(i)
            if header is None or not any(is_macro(s["rule"]) for s in record.get("steps", [])):
                continue
            key = (header["program"], tuple(header["types"]), header.get("definitions", ""))
            groups.setdefault(key, []).append(record["steps"])
        logs += [(str(f.relative_to(ROOT)), p, list(t), d, runs)
                 for (p, t, d), runs in groups.items()]
    return saved, logs


def _macro_steps(source, program, types, definitions, runs) -> list[dict]:
    out = []
    for steps in runs:
        d = Derivation(program, *types, definitions=definitions)
        for s in steps:
            if is_macro(s["rule"]):
                out.append({"source": source, "definitions": definitions, "types": types,
                            "before": str(d.current), "rule": s["rule"], "path": s["path"],
                            "params": s["params"]})
            d.apply(s["rule"], s["path"], **s["params"])
    return out


def cases() -> list[dict]:
    """Every case of the table, without its expansion."""
    saved, logs = _recorded()
    out = _site_cases()
    for entry in saved:
        out += _macro_steps(*entry)
    # from the logs: each macro at different places of different programs, round robin
    by_rule: dict[str, dict[tuple, list]] = defaultdict(lambda: defaultdict(list))
    seen = set()
    for entry in logs:
        for case in _macro_steps(*entry):
            key = (case["before"], tuple(case["types"]), case["rule"], case["path"],
                   tuple(sorted(case["params"].items())))
            if key not in seen:
                seen.add(key)
                by_rule[case["rule"]][(case["source"], tuple(case["types"]))].append(case)
    for rule in sorted(by_rule):
        picked = []
        for row in itertools.zip_longest(*by_rule[rule].values()):
            picked += [c for c in row if c is not None]
        out += picked[:PER_RULE]
    return out


def main() -> None:
    table = [{**case, "expansion": expansion(case)} for case in cases()]
    DATA.write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{DATA.relative_to(ROOT)}: {len(table)} macro steps")


if __name__ == "__main__":
    main()

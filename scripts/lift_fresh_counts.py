"""How many programs of a set of Lift programs parse, evaluate to their NumPy reference and run
correctly on the default device, with the message of every failure.

    python scripts/lift_fresh_counts.py tests.data.lift_fresh_other [--json OUT] [--only NAME]

The set is a module's ``TESTS`` (``LiftTest`` records; the program a record runs is its
text's last definition). Each step is tried only when the one before it succeeded: parse
(read, declared type with one parameter per input, type check), evaluate (the interpreter's
result equals the reference), run (the generated kernels on the default device equal the
interpreter). A run goes through ``runtime.run_isolated``, so a driver that crashes or hangs
on one kernel ends only that program's process. The table goes to standard output and the
outcomes, program by program, to ``--json``."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.test_lift_programs import assert_close, inputs  # noqa: E402
from workbench import evaluate, parse_program, typecheck  # noqa: E402
from workbench.run import run  # noqa: E402
from workbench.runtime import run_isolated  # noqa: E402
from workbench.typecheck import declared_type_of  # noqa: E402
from workbench.types import function_parts  # noqa: E402

STEPS = ("parse", "evaluate", "run")
RUN_TIMEOUT_S = 600.0


def program_of(test):
    """The program a record runs: its text's last definition."""
    program = parse_program(test.program)
    return program[list(program)[-1]]


def _message(err: BaseException) -> str:
    return f"{type(err).__name__}: {err}".strip()[:1500]


def _parse(test):
    f = program_of(test)
    declared = declared_type_of(f)
    if declared is None:
        raise ValueError("the program declares no parameter types")
    count = len(function_parts(declared)[0])
    if count != len(test.inputs):
        raise ValueError(f"{count} parameters for {len(test.inputs)} inputs")
    typecheck(f)
    return f


def _run(f, args) -> str | None:
    """None when the program's kernels run correctly, else what happened."""
    outcome = run_isolated(run, f, *args, repeat=1, warmup=0, timeout=RUN_TIMEOUT_S)
    if not outcome.ok:
        return f"{outcome.status}: {outcome.message}"[:1500]
    result = outcome.value
    if result.status == "ok" and result.correct:
        return None
    return f"{result.status}: {result.message}"[:1500]


def measure(test) -> dict:
    """One program's outcome: for each step reached, ``ok`` or the failure's message."""
    record = {"name": test.name, "source": test.source}
    start = time.perf_counter()
    try:
        f = _parse(test)
    except Exception as err:  # noqa: BLE001 - every failure is recorded, none ends the count
        record["parse"] = _message(err)
        return record
    record["parse"] = "ok"
    args = inputs(test)
    try:
        assert_close(evaluate(f, *args), test.gold(*args), test.provenance)
    except Exception as err:  # noqa: BLE001
        record["evaluate"] = _message(err)
        return record
    record["evaluate"] = "ok"
    failure = _run(f, args)
    record["run"] = "ok" if failure is None else failure
    record["seconds"] = round(time.perf_counter() - start, 1)
    return record


def counts(records: list[dict]) -> dict[str, int]:
    return {step: sum(r.get(step) == "ok" for r in records) for step in STEPS}


def table(records: list[dict]) -> str:
    lines = ["| program | parse | evaluate | run |", "|---|---|---|---|"]
    for r in records:
        cells = [("ok" if r.get(s) == "ok" else "—" if s not in r else "fails") for s in STEPS]
        lines.append(f"| {r['name']} | " + " | ".join(cells) + " |")
    total = counts(records)
    lines.append(f"| **of {len(records)}** | " + " | ".join(str(total[s]) for s in STEPS) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("module", help="the data module, e.g. tests.data.lift_fresh_other")
    parser.add_argument("--json", help="write the outcomes, program by program, here")
    parser.add_argument("--only", action="append", help="measure only this program (repeatable)")
    options = parser.parse_args(argv)
    tests = importlib.import_module(options.module).TESTS
    if options.only:
        tests = [t for t in tests if t.name in options.only]
    records = []
    for test in tests:
        record = measure(test)
        records.append(record)
        failed = [f"{s}: {record[s]}" for s in STEPS if record.get(s, "ok") != "ok"]
        print(f"{test.name}: {failed[0] if failed else 'runs'}", file=sys.stderr, flush=True)
    print(table(records))
    for r in records:
        for step in STEPS:
            if r.get(step, "ok") != "ok":
                print(f"\n{r['name']} ({step}): {r[step]}")
    if options.json:
        data = {"module": options.module, "counts": counts(records), "of": len(records),
                "programs": records}
        Path(options.json).write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

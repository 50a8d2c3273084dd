"""How far a batch of Lift programs gets: ``python scripts/lift_fresh_counts.py MODULE
[--json FILE]`` reads ``MODULE``'s ``TESTS`` (``LiftTest`` records, as
``tests/data/lift_heldout.py`` holds them) and for each program says whether it parses
(read as Lift text, the last definition taken, its declared type checked), evaluates to what
its NumPy reference computes, and runs correctly on the default device (checked against the
interpreter); each run is in a process of its own, so a driver that crashes ends only that
run. It prints the counts and each failure's stage and message; ``--json`` writes every
program's outcome."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a file: the tests' package is the repository's
    sys.path.insert(0, str(ROOT))

STAGES = ("parse", "evaluate", "run")
RUN_SECONDS = 300.0


def _program(test):
    from workbench import parse_program, typecheck

    program = parse_program(test.program)
    f = program[list(program)[-1]]
    typecheck(f)
    return f


def _message(err: BaseException) -> str:
    return f"{type(err).__name__}: {err}".strip()[:1500]


def _run_one(module: str, name: str) -> dict:
    """One program's run on the default device (in a process of its own)."""
    from tests.test_lift_programs import inputs
    from workbench.run import run

    (test,) = [t for t in importlib.import_module(module).TESTS if t.name == name]
    result = run(_program(test), *inputs(test), repeat=1, warmup=0)
    return {"status": result.status, "correct": bool(result.correct),
            "message": result.message[:1500]}


def outcome(module: str, test) -> dict:
    """Which stages ``test`` passes, and the message of the first it fails."""
    from tests.test_lift_programs import assert_close, inputs
    from workbench import evaluate
    from workbench.device.isolation import run_isolated

    out = {"name": test.name, "source": test.source, **dict.fromkeys(STAGES, False)}
    try:
        f = _program(test)
        out["parse"] = True
        args = inputs(test)
        assert_close(evaluate(f, *args), test.gold(*args), test.provenance)
        out["evaluate"] = True
    except Exception as err:  # every failure is recorded, none ends the count
        out["failure"] = ("evaluate" if out["parse"] else "parse", _message(err))
        return out
    finished = run_isolated(_run_one, module, test.name, timeout=RUN_SECONDS)
    if finished.kind != "value":
        out["failure"] = ("run", f"{finished.kind}: {finished.payload}"[:1500])
    elif not (finished.payload["status"] == "ok" and finished.payload["correct"]):
        out["failure"] = ("run", f"{finished.payload['status']}: {finished.payload['message']}")
    else:
        out["run"] = True
    return out


def table(outcomes: list[dict]) -> str:
    n = len(outcomes)
    lines = [f"{len(outcomes)} programs: " + ", ".join(
        f"{stage} {sum(o[stage] for o in outcomes)} of {n}" for stage in STAGES)]
    for o in outcomes:
        if "failure" in o:
            stage, message = o["failure"]
            lines.append(f"- {o['name']} fails to {stage}: {message.splitlines()[0][:300]}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("module", help="the data module, e.g. tests.data.lift_fresh_generator")
    parser.add_argument("--json", help="write every program's outcome to this file")
    parser.add_argument("--only", nargs="*", help="only the programs of these names")
    args = parser.parse_args(argv)
    tests = importlib.import_module(args.module).TESTS
    if args.only:
        tests = [t for t in tests if t.name in args.only]
    outcomes = []
    for test in tests:
        outcomes.append(outcome(args.module, test))
        print(("ok   " if outcomes[-1]["run"] else "FAIL ") + test.name, flush=True)
    print(table(outcomes))
    if args.json:
        counts = {stage: sum(o[stage] for o in outcomes) for stage in STAGES}
        Path(args.json).write_text(json.dumps(
            {"module": args.module, "programs": len(outcomes), "counts": counts,
             "outcomes": outcomes}, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A campaign of random derivations: random rewrites of the library programs, the
interpreter checked after every step, and the derived kernels run on the default device and
under Oclgrind (which checks every memory access), each compared with the interpreter.

    python -m tests.campaign --derivations 4000 --kernels 800 --seed 1

prints the counts by outcome and every failure; ``tests/test_campaign.py`` runs a small
sample of it in CI (and a larger one with ``WORKBENCH_CAMPAIGN=large``).

Kernels run in child processes (a driver may abort the process on some kernel: Debian's
PoCL is built with LLVM's assertions), several kernels per child; a child that dies or
overruns is replaced and the kernel it was running is recorded as crashed or timed out.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tests.children import child_env

ROOT = Path(__file__).parent.parent

# program -> (library file, definition, sizes): small sizes that every split candidate
# proposed by the rules still divides often enough to make deep derivations.
PROGRAMS = {
    "scal": ("blas", "scal", {"N": 1024}),
    "asum": ("blas", "asum", {"N": 1024}),
    "dot": ("blas", "dot", {"N": 512}),
    "vecSum": ("blas", "vecSum", {"N": 1024}),
    "gemv": ("blas", "gemv", {"N": 64, "M": 32}),
    "mm": ("mm", "mm", {"M": 16, "K": 16, "N": 8}),
    "vectorScal": ("figures", "vectorScal", {"N": 2048}),
    "fig10_1": ("figures", "fig10_1", {"N": 512}),
    "listing5_8": ("reductions", "listing5_8", {"N": 512}),
    "blackScholes": ("blackscholes", "blackScholes", {"N": 256}),
    "md": ("md", "md", {"N": 64, "K": 8}),
}

# Outcomes of a kernel run that are defects (the rules are sound and the generator must
# either refuse or compute what the interpreter computes).
DEFECTS = {"wrong result", "internal error", "compile error", "crashed", "oclgrind report",
           "error"}
OCLGRIND_PROBLEMS = ("Invalid read", "Invalid write", "data race", "Uninitialized",
                     "divergence", "out of bounds", "Unaligned", "Invalid access")


@dataclass
class Report:
    derivations: int = 0
    steps: int = 0
    interpreter_checks: int = 0
    interpreter_mismatches: list = field(default_factory=list)
    internal_errors: list = field(default_factory=list)  # non-WorkbenchError while deriving
    unfit_rewrites: list = field(default_factory=list)  # offered, then refused by its sizes
    kernels: Counter = field(default_factory=Counter)  # (device, outcome) -> count
    failures: list = field(default_factory=list)  # kernel runs that are defects

    @property
    def ok(self) -> bool:
        return not (self.interpreter_mismatches or self.internal_errors or self.failures
                    or self.unfit_rewrites)

    def table(self) -> str:
        lines = [f"derivations: {self.derivations} ({self.steps} steps), interpreter checks: "
                 f"{self.interpreter_checks}, mismatches: {len(self.interpreter_mismatches)}, "
                 f"internal errors: {len(self.internal_errors)}, offered rewrites that do "
                 f"not fit: {len(self.unfit_rewrites)}",
                 "kernel runs:"]
        for device in sorted({d for d, _ in self.kernels}):
            counts = {o: n for (d, o), n in self.kernels.items() if d == device}
            total = sum(counts.values())
            shown = ", ".join(f"{o} {n}" for o, n in sorted(counts.items()))
            lines.append(f"  {device}: {total} ({shown})")
        for failure in self.failures[:20]:
            lines.append(f"  FAILED {failure['device']}: {failure['outcome']}: "
                         f"{failure['expression']} {failure['sizes']}: "
                         f"{failure['message'][:300]}")
        for kind, items in (("MISMATCH", self.interpreter_mismatches),
                            ("INTERNAL", self.internal_errors),
                            ("UNFIT", self.unfit_rewrites)):
            for item in items[:20]:
                lines.append(f"  {kind}: {item}")
        return "\n".join(lines)


def _inputs(types, sizes, seed, ranges=None):
    from workbench.inputs import random_inputs
    from workbench.semantics import typed_input

    return [typed_input(v, t) for v, t in zip(random_inputs(types, sizes, seed, ranges),
                                               types)]


def _close(got, expected) -> bool:
    from workbench.values import leaves

    for g, e in zip(leaves(got), leaves(expected)):
        g, e = np.asarray(g, np.float64), np.asarray(e, np.float64)
        if g.shape != e.shape or not np.array_equal(np.isnan(g), np.isnan(e)):
            return False
        finite = np.isfinite(e)
        scale = 1 + (float(np.max(np.abs(e[finite]))) if finite.any() else 0.0)
        if not np.allclose(g[finite], e[finite], rtol=1e-4, atol=1e-4 * scale):
            return False
    return True


def derive(program: str, rng: np.random.Generator, steps: int, report: Report):
    """One random derivation of ``program``: every step's result evaluated and compared with
    the program's; returns the expressions of its steps (the last one first)."""
    from workbench import evaluate, rewrites
    from workbench.domain import ranges_of
    from workbench.errors import WorkbenchError
    from workbench.programs import library
    from workbench.types import function_parts, substitute_sizes

    file, name, sizes = PROGRAMS[program]
    expr = library(file)[name]
    types = [substitute_sizes(t, sizes) for t in function_parts(expr.declared_type)[0]]
    args = _inputs(types, sizes, int(rng.integers(1 << 30)), ranges_of(expr))
    expected = evaluate(expr, *args)
    current, path = expr, []
    report.derivations += 1
    for _ in range(steps):
        try:
            found = rewrites(current, *types)
        except WorkbenchError:
            break
        except Exception as err:  # a defect: listing rewrites must not raise
            report.internal_errors.append(f"rewrites of {current}: {type(err).__name__}: {err}")
            break
        if not found:
            break
        step = found[int(rng.integers(len(found)))]
        report.steps += 1
        try:
            got = evaluate(step.result, *args)
        except WorkbenchError as err:  # offered, so it should fit these inputs
            report.unfit_rewrites.append(f"{program} at {sizes}: {step.rule} {step.params} "
                                         f"at {step.path} of `{current}`: "
                                         f"{type(err).__name__}: {err}")
            break
        except Exception as err:
            report.internal_errors.append(f"{program}: after {step.rule} at {step.path}: "
                                          f"{type(err).__name__}: {err}")
            break
        report.interpreter_checks += 1
        if not _close(got, expected):
            report.interpreter_mismatches.append(f"{program}: after {step.rule} at "
                                                 f"{step.path}: {step.result}")
            break
        current = step.result
        path.append(current)
    return expr, types, sizes, path


# --- kernels, in child processes --------------------------------------------------------------

CHILD = r"""
import json, sys
from tests.campaign import run_job
for line in sys.stdin:
    job = json.loads(line)
    print("@@campaign job " + str(job["n"]), file=sys.stderr, flush=True)
    print(json.dumps(run_job(job)), flush=True)
    print("@@campaign done " + str(job["n"]), file=sys.stderr, flush=True)
"""


def run_job(job: dict) -> dict:
    """Run one derived kernel (in a child process); the outcome as a plain dict."""
    from workbench.notation import parse, parse_ranges, parse_type
    from workbench.notation.program import user_functions
    from workbench.run import run

    out = {"n": job["n"]}
    try:
        expr = parse(job["expression"], user_functions(job["definitions"]))
        types = [parse_type(t) for t in job["types"]]
        ranges = parse_ranges(job["ranges"]) if job.get("ranges") else None
        result = run(expr, *_inputs(types, job["sizes"], job["seed"], ranges),
                     device=job["device"], repeat=1, warmup=0, sizes=job["sizes"])
        status = result.status
        if status == "codegen error" and result.message.startswith("internal error"):
            status = "internal error"
        out.update(outcome=status, message=result.message, device=result.device)
    except Exception as err:
        out.update(outcome="error", message=f"{type(err).__name__}: {err}", device="")
    return out


def run_kernels(jobs: list[dict], device: str | None, timeout: float = 300.0) -> list[dict]:
    """Outcomes of ``jobs`` on ``device`` (None: the default; "Oclgrind": the simulator,
    with its memory checks on), in the jobs' order."""
    env = child_env()
    if device == "Oclgrind":
        env.update(OCLGRIND_DATA_RACES="1", OCLGRIND_UNINITIALIZED="1")
    results: dict[int, dict] = {}
    todo = [dict(job, device=device) for job in jobs]
    while todo:
        child = subprocess.Popen([sys.executable, "-c", CHILD], cwd=ROOT, env=env, text=True,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)
        try:
            out, err = child.communicate("".join(json.dumps(j) + "\n" for j in todo),
                                         timeout=timeout * len(todo))
        except subprocess.TimeoutExpired:
            child.kill()
            out, err = child.communicate()
        reports = _stderr_by_job(err)
        for line in out.splitlines():
            try:
                result = json.loads(line)
            except ValueError:
                continue
            problems = [r for r in reports.get(result["n"], [])
                        if any(p.lower() in r.lower() for p in OCLGRIND_PROBLEMS)]
            if problems and result["outcome"] == "ok":
                result.update(outcome="oclgrind report", message="\n".join(problems[:5]))
            results[result["n"]] = result
        left = [j for j in todo if j["n"] not in results]
        if left:  # the child died (or overran) on the first of them
            first = left[0]
            said = "\n".join(reports.get(first["n"], [])[-5:])
            results[first["n"]] = {"n": first["n"], "device": device or "default",
                                   "outcome": "crashed" if child.returncode else "timeout",
                                   "message": f"the child process ended (status "
                                              f"{child.returncode}): {said}"}
        todo = left[1:]
    return [results[j["n"]] for j in jobs]


def _stderr_by_job(text: str) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    current = None
    for line in text.splitlines():
        if line.startswith("@@campaign job "):
            current = int(line.split()[-1])
        elif line.startswith("@@campaign done "):
            current = None
        elif current is not None:
            out.setdefault(current, []).append(line)
    return out


def campaign(derivations: int, kernels: int, seed: int = 0, steps: int = 6,
             devices: tuple = (None, "Oclgrind"), oclgrind_share: float = 0.25) -> Report:
    """Random derivations of every program in turn; the last expression of some of them
    run as kernels (``kernels`` in all on the default device, a share of them under
    Oclgrind, which interprets every work-item)."""
    from workbench.domain import ranges_of, ranges_text
    from workbench.notation.program import user_functions_text

    report = Report()
    rng = np.random.default_rng(seed)
    names = sorted(PROGRAMS)
    jobs: list[dict] = []
    every = max(1, derivations // max(1, kernels))
    for i in range(derivations):
        program = names[i % len(names)]
        expr, types, sizes, path = derive(program, rng, steps, report)
        if path and i % every == 0 and len(jobs) < kernels:
            ranges = ranges_of(expr)
            jobs.append({"n": len(jobs), "program": program, "expression": str(path[-1]),
                         "definitions": user_functions_text(expr), "types": [str(t) for t in types],
                         "ranges": ranges_text(ranges) if ranges is not None else None,
                         "sizes": sizes, "seed": int(rng.integers(1 << 30))})
    for device in devices:
        chosen = jobs if device is None else jobs[:max(1, int(len(jobs) * oclgrind_share))]
        for job, result in zip(chosen, run_kernels(chosen, device)):
            name = device or "default device"
            report.kernels[(name, result["outcome"])] += 1
            if result["outcome"] in DEFECTS:
                report.failures.append({"device": name, "outcome": result["outcome"],
                                        "expression": job["expression"],
                                        "sizes": job["sizes"], "message": result["message"]})
    return report


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--derivations", type=int, default=200)
    parser.add_argument("--kernels", type=int, default=40)
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--oclgrind-share", type=float, default=0.25,
                        help="the share of the kernels also run under Oclgrind")
    parser.add_argument("--json", help="also write the report here")
    args = parser.parse_args(argv)
    started = time.time()
    report = campaign(args.derivations, args.kernels, args.seed, args.steps,
                      oclgrind_share=args.oclgrind_share)
    print(report.table())
    print(f"{time.time() - started:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "derivations": report.derivations, "steps": report.steps,
            "interpreter_checks": report.interpreter_checks,
            "interpreter_mismatches": report.interpreter_mismatches,
            "internal_errors": report.internal_errors,
            "unfit_rewrites": report.unfit_rewrites,
            "kernels": [{"device": d, "outcome": o, "count": n}
                        for (d, o), n in sorted(report.kernels.items())],
            "failures": report.failures}, indent=1))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""Mutation check of the test suite: one-line bugs planted one at a time in a copy of the
checkout, the suite run against each; every mutant must be *killed* (some test fails).

    python -m tests.mutants               # all mutants, the whole suite against each
    python -m tests.mutants --only tolerance-1000x --only nan-check-removed
    python -m tests.mutants --list

Each mutant changes one line that computes an answer, so a surviving mutant is a wrong
answer no test notices. The copy is made with ``git archive HEAD`` (what is committed), and
the suite stops at its first failure (``-x``), so a killed mutant costs seconds to minutes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).parent.parent


@dataclass(frozen=True)
class Mutant:
    name: str
    file: str
    original: str
    mutated: str
    why: str


MUTANTS = [
    Mutant("tolerance-1000x", "workbench/run.py",
           "RELATIVE_TOLERANCE = 1e-3", "RELATIVE_TOLERANCE = 1.0",
           "the correctness tolerance made 1000x looser: a kernel off by 0.05 passes"),
    Mutant("nan-check-removed", "workbench/run.py",
           "error = np.where(both, np.abs(o - e), np.where(same_special, 0.0, np.inf))",
           "error = np.where(both, np.abs(o - e), 0.0)",
           "NaN and unwritten elements no longer compared: a half-written output passes"),
    Mutant("reorder-stride-write-swapped", "workbench/primitives/opencl.py",
           "return lambda j, *rest: ((j % s) * chunk + j // s, *rest)",
           "return lambda j, *rest: ((j % chunk) * s + j // chunk, *rest)",
           "the output-side view of reorderStride with stride and chunk swapped"),
    Mutant("simplifier-division-bound", "workbench/codegen/arith.py",
           "    if lo >= 0 and hi < d:\n        return q  # (d·q + r)/d = q when 0 <= r < d",
           "    if lo >= 0 and hi <= d:\n        return q  # (d·q + r)/d = q when 0 <= r < d",
           "(d·q + r)/d -> q also when r = d: i/4 with i in [0, 5) becomes 0"),
    Mutant("runtime-outputs-not-poisoned", "workbench/runtime.py",
           "host = np.full(shape, np.nan, dtype=dtype)",
           "host = np.zeros(shape, dtype=dtype)",
           "outputs start as zeros: an element a kernel never writes can look right"),
    Mutant("split-join-chunk", "workbench/rules/algorithmic.py",
           'return compose(Prim("join"), Prim("map", (Prim("map", (f,)),)), Prim("split", (n,)))',
           'return compose(Prim("join"), Prim("map", (Prim("map", (f,)),)), '
           'Prim("split", (n,)), Prim("reorderStride", (n,)))',
           "split-join also reorders its input: the rule is unsound"),
    Mutant("fold-ignores-initial-value", "workbench/semantics.py",
           "                return _combine(op, init, total)",
           "                return total",
           "the interpreter's fast reduction drops the initial value z"),
    Mutant("split-divisibility-unchecked", "workbench/typecheck.py",
           "        if known is False:\n            self.fail(path, f\"{what}: {divisor} does not "
           "divide the array length {total}\",",
           "        if known is None and False:\n            self.fail(path, f\"{what}: "
           "{divisor} does not divide the array length {total}\",",
           "a split that does not divide its array is accepted"),
    Mutant("map-local-outside-workgroup", "workbench/nesting.py",
           '        if "workgroup" not in levels:\n            return "mapLocal must be inside',
           '        if False:\n            return "mapLocal must be inside',
           "mapLocal accepted outside a mapWorkgroup"),
    Mutant("no-barriers", "workbench/codegen/barriers.py",
           "    if math.prod(launch.local_size or launch.global_size) == 1:",
           "    if True:",
           "no barrier is ever placed"),
    Mutant("written-once-unchecked", "workbench/codegen/written.py",
           "        problem = count.problem()\n        if problem is None:",
           "        problem = count.problem()\n        if True:",
           "outputs not written exactly once are not refused"),
    Mutant("printer-operator-precedence", "workbench/notation/printer.py",
           "            right_level = level + 1",
           "            right_level = level",
           "a - (b - c) prints as a - b - c"),
    Mutant("parser-precedence-swapped", "workbench/notation/parser.py",
           'BINARY_LEVELS = [["||"], ["&&"], ["==", "!=", "<", "<=", ">", ">="], ["+", "-"], '
           '["*", "/", "%"]]',
           'BINARY_LEVELS = [["||"], ["&&"], ["==", "!=", "<", "<=", ">", ">="], '
           '["*", "/", "%"], ["+", "-"]]',
           "a + b * c parses as (a + b) * c"),
    Mutant("divisibility-always-known", "workbench/sizes.py",
           "            return quotient.is_integer_constant",
           "            return True",
           "every constant size divides every other"),
    Mutant("search-adopts-the-slowest", "workbench/search/__init__.py",
           "    return min((r for r in ctx.records if r.measured), key=lambda r: r.kernel_ms,",
           "    return max((r for r in ctx.records if r.measured), key=lambda r: r.kernel_ms,",
           "the search reports its slowest correct candidate as the best"),
    Mutant("derivation-replay-drops-parameters", "workbench/derivation.py",
           "            result = self.apply(rule, path, **params)",
           "            result = self.apply(rule, path, **{k: v for k, v in params.items() "
           "if k != 'n'})",
           "a saved derivation replays without its split sizes"),
    # the eleven one-line bugs planted where earlier checks were not held by a test
    Mutant("written-gap-of-one", "workbench/codegen/written.py",
           "            for a, b, _ in spans:\n                if a > end:",
           "            for a, b, _ in spans:\n                if a > end + 1:",
           "the written-once check accepts an output with a one-element gap"),
    Mutant("coverage-gap-of-one", "workbench/codegen/written.py",
           "                if a > end:\n                    gaps.append((end, a))",
           "                if a > end + 1:\n                    gaps.append((end, a))",
           "a temporary read with a one-element gap counts as written"),
    Mutant("fission-reads-accumulator", "workbench/rules/normalisation.py",
           "    if acc in element.free_vars():",
           "    if False and acc in element.free_vars():",
           "normalisation's fission splits a fold whose element reads the accumulator"),
    Mutant("loop-twice-as-once", "workbench/codegen/barriers.py",
           "        return loop.extent <= 1", "        return loop.extent <= 2",
           "a sequential loop run twice is taken as run once: no barrier between rounds"),
    Mutant("vload-of-non-neighbours", "workbench/codegen/views.py",
           "        if not isinstance(first, Location) or second.offset - first.offset != "
           "Index.of(1):",
           "        if not isinstance(first, Location):",
           "vloadN where a vector's lanes are not neighbours in memory"),
    Mutant("vector-pointer-unaligned", "workbench/codegen/emit.py",
           "    return all(c % width == 0 for c in offset.terms.values())",
           "    return True",
           "a vector that starts between vectors read through a vector pointer"),
    Mutant("chunk-stores-through-pointers", "workbench/codegen/emit.py",
           "            if walked and access.pattern(stmt.offset, stmt.width, frames) == "
           "\"streamed\":",
           "            if False:",
           "a store a work-item's loop walks through its chunk printed through a pointer"),
    Mutant("widening-ignores-step", "workbench/codegen/wide.py",
           "stmt.extent + (stmt.step or 1) - 1 > INT_MAX", "stmt.extent > INT_MAX",
           "a strided loop's index stays 32-bit though its last increment overflows"),
    Mutant("guided-fixes-wrong-kernel", "workbench/search/guided.py",
           "            if record is not None and record.correct and record.kernel_ms:",
           "            if record is not None and record.kernel_ms:",
           "the guided descent fixes a move on a wrong kernel's time"),
    Mutant("cases-local-memory-4x", "workbench/search/cases/parameters.py",
           "    reasons = exceeded(r, limits, work_group, groups, local * 4, private * 4)",
           "    reasons = exceeded(r, limits, work_group, groups, local, private * 4)",
           "CASES admits candidates that need 4x the device's local memory"),
    Mutant("cutoff-after-one-run", "workbench/runtime.py",
           "if cutoff_ms is not None and len(runs) == 2 and min(runs) > cutoff_ms:",
           "if cutoff_ms is not None and len(runs) == 1 and min(runs) > cutoff_ms:",
           "one slow run cuts a kernel's timing short"),
    Mutant("log-device-without-driver", "workbench/search/log.py",
           'DEVICE_FIELDS = ("name", "platform", "driver")',
           'DEVICE_FIELDS = ("name", "platform")',
           "a log of another driver answers a search"),
    Mutant("lift-tuple-field-past-last", "workbench/notation/lift.py",
           "            if k >= len(target.items):", "            if k > len(target.items):",
           "a Lift tuple's component one past the last is accepted"),
    Mutant("barrier-after-reads-only", "workbench/codegen/barriers.py",
           "            if a.buffer == b.buffer and (a.write or b.write) and \\\n"
           "                    not same_work_item(a, b, one)",
           "            if a.buffer == b.buffer and \\\n"
           "                    not same_work_item(a, b, one)",
           "barriers placed between accesses none of which writes"),
]


def plant(copy: Path, mutant: Mutant) -> None:
    path = copy / mutant.file
    text = path.read_text(encoding="utf-8")
    count = text.count(mutant.original)
    if count != 1:
        raise SystemExit(f"{mutant.name}: the original line occurs {count} times in "
                         f"{mutant.file}; update the mutant")
    path.write_text(text.replace(mutant.original, mutant.mutated), encoding="utf-8")


def run_suite(copy: Path, pytest_args: list[str], timeout: float) -> tuple[bool, str, float]:
    """(killed, the first failure's line, seconds)."""
    started = time.monotonic()
    path = [str(copy)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path), PYTHONDONTWRITEBYTECODE="1")
    try:
        done = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p",
                               "no:cacheprovider", *pytest_args], cwd=copy, env=env,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return True, "timed out (counted as killed: the suite did not pass)", timeout
    lines = [line for line in done.stdout.splitlines() if line.startswith("FAILED")
             or line.startswith("ERROR")]
    return done.returncode != 0, (lines[0] if lines else done.stdout.strip().splitlines()[-1]
                                  if done.stdout.strip() else ""), time.monotonic() - started


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", default=[], help="a mutant's name")
    parser.add_argument("--list", action="store_true", help="list the mutants")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds per mutant")
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest (e.g. tests/)")
    args = parser.parse_args(argv)
    chosen = [m for m in MUTANTS if not args.only or m.name in args.only]
    if args.list:
        for m in chosen:
            print(f"{m.name:36} {m.file}: {m.why}")
        return 0
    survivors = []
    with tempfile.TemporaryDirectory(prefix="mutants-") as tmp:
        base = Path(tmp) / "base"
        base.mkdir()
        archive = subprocess.run(["git", "archive", "HEAD"], cwd=ROOT, capture_output=True,
                                 check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
        for m in chosen:
            copy = Path(tmp) / m.name
            shutil.copytree(base, copy)
            plant(copy, m)
            killed, first, seconds = run_suite(copy, args.pytest_args, args.timeout)
            print(f"{'killed  ' if killed else 'SURVIVED'} {m.name:36} {seconds:6.0f} s  "
                  f"{first}", flush=True)
            if not killed:
                survivors.append(m.name)
            shutil.rmtree(copy)
    print(f"{len(chosen) - len(survivors)} of {len(chosen)} mutants killed"
          + (f"; surviving: {', '.join(survivors)}" if survivors else ""))
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())

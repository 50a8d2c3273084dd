"""Does the ``egglog`` package hold our language? A measurement (issue 46): ICFP's asum and
dot and matrix multiplication written as egglog terms — lambdas as de Bruijn indices with
explicit substitution and shifting, sizes as integers, no types — and grown by the rules of
ICFP Fig. 6 and 7 that need no type to be stated (split-join and the partial reduction at
the split sizes our rules offer, map fusion with the associativity of composition, the
lowerings of map and reduce, β-reduction by substitution, compose-apply), one iteration at a
time until saturation, a limit of e-nodes or of seconds; for each iteration the e-nodes, the
seconds and the process's peak memory.

    pip install 'rewrite-workbench[egraph]'
    python -m benchmarks.egglog_encoding                  # asum, dot, mm; 30 s, 2M e-nodes

Each program runs in a process of its own (its peak memory is its own). Writes
benchmarks/results/egglog_encoding.json.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

try:
    import egglog
    from egglog import Expr, StringLike, i64Like, rewrite, rule, union, vars_
except ImportError:  # the measurement needs the e-graph extra
    egglog = None

RESULTS = Path(__file__).parent / "results"
# the split sizes the rules offer at an array of 4096 (``rules.algorithmic``: powers of two)
SIZES = (2, 4, 8, 16, 32, 64, 128, 256, 512)

if egglog is not None:
    class Term(Expr):
        """A term of the language: a primitive by name, de Bruijn variables, lambdas,
        application, composition, the patterns, and explicit substitution and shifting."""

        def __init__(self, name: StringLike) -> None: ...

        @classmethod
        def var(cls, i: i64Like) -> Term: ...

        @classmethod
        def lam(cls, body: Term) -> Term: ...

        @classmethod
        def app(cls, f: Term, x: Term) -> Term: ...

        @classmethod
        def comp(cls, f: Term, g: Term) -> Term: ...

        @classmethod
        def map(cls, f: Term) -> Term: ...

        @classmethod
        def map_seq(cls, f: Term) -> Term: ...

        @classmethod
        def map_glb(cls, f: Term) -> Term: ...

        @classmethod
        def reduce(cls, f: Term) -> Term: ...

        @classmethod
        def reduce_seq(cls, f: Term) -> Term: ...

        @classmethod
        def split(cls, n: i64Like) -> Term: ...

        @classmethod
        def zip(cls, a: Term, b: Term) -> Term: ...

        @classmethod
        def subst(cls, t: Term, k: i64Like, v: Term) -> Term: ...

        @classmethod
        def shift(cls, t: Term, c: i64Like, d: i64Like) -> Term: ...


def programs() -> dict:
    """asum, dot and mm (``library("blas")``, ``library("mm")``) as terms."""
    t = Term
    dot_body = t.comp(t.reduce(t("+")), t.map(t("*")))
    return {
        "asum": t.comp(t.reduce(t("+")), t.map(t("abs"))),
        "dot": t.lam(t.lam(t.app(dot_body, t.zip(t.var(1), t.var(0))))),
        # λa b. map (λrowA. join (map (λcolB. dot rowA colB) (transpose b))) a
        "mm": t.lam(t.lam(t.app(t.map(t.lam(t.app(t("join"), t.app(
            t.map(t.lam(t.app(dot_body, t.zip(t.var(1), t.var(0))))),
            t.app(t("transpose"), t.var(1)))))), t.var(1)))),
    }


VARIANTS = ("all", "no associativity", "one size")


def algorithmic_rules(variant: str = "all") -> list:
    """The rules of ICFP Figs. 6 and 7 that need no type; ``variant`` leaves out the
    associativity of composition (``no associativity``) or offers one split size only
    (``one size``)."""
    t = Term
    f, g, h, x = vars_("f g h x", Term)
    out = [rewrite(t.comp(t.map(f), t.map(g))).to(t.map(t.comp(f, g))),
           rewrite(t.app(t.comp(f, g), x)).to(t.app(f, t.app(g, x))),
           rewrite(t.map(f)).to(t.map_seq(f)), rewrite(t.map(f)).to(t.map_glb(f)),
           rewrite(t.reduce(f)).to(t.reduce_seq(f))]
    if variant != "no associativity":
        out += [rewrite(t.comp(t.comp(f, g), h)).to(t.comp(f, t.comp(g, h))),
                rewrite(t.comp(f, t.comp(g, h))).to(t.comp(t.comp(f, g), h))]
    for n in SIZES[:1] if variant == "one size" else SIZES:
        out.append(rewrite(t.map(f)).to(t.comp(t("join"), t.comp(t.map(t.map(f)),
                                                                  t.split(n)))))
        out.append(rewrite(t.reduce(f)).to(t.comp(t.reduce(f), t.comp(
            t("join"), t.comp(t.map(t.reduce(f)), t.split(n))))))
    return out


def substitution_rules() -> list:
    """β-reduction by explicit substitution, and the substitution's and shifting's rules."""
    t = Term
    a, b, v, e = vars_("a b v e", Term)
    i, k, d = vars_("i k d", egglog.i64)
    (name,) = vars_("name", egglog.String)
    out = [rewrite(t.app(t.lam(b), v)).to(t.subst(b, 0, v)),
           rule(e == t.subst(t.var(i), k, v), i == k).then(union(e).with_(v)),
           rule(e == t.subst(t.var(i), k, v), i > k).then(union(e).with_(t.var(i - 1))),
           rule(e == t.subst(t.var(i), k, v), i < k).then(union(e).with_(t.var(i))),
           rewrite(t.subst(t.lam(b), k, v)).to(t.lam(t.subst(b, k + 1, t.shift(v, 0, 1)))),
           rule(e == t.shift(t.var(i), k, d), i >= k).then(union(e).with_(t.var(i + d))),
           rule(e == t.shift(t.var(i), k, d), i < k).then(union(e).with_(t.var(i))),
           rewrite(t.shift(t.lam(b), k, d)).to(t.lam(t.shift(b, k + 1, d))),
           rewrite(t.subst(t(name), k, v)).to(t(name)),
           rewrite(t.shift(t(name), k, d)).to(t(name)),
           rewrite(t.subst(t.split(i), k, v)).to(t.split(i)),
           rewrite(t.shift(t.split(i), k, d)).to(t.split(i))]
    for two in (t.app, t.comp, t.zip):
        out.append(rewrite(t.subst(two(a, b), k, v)).to(two(t.subst(a, k, v),
                                                               t.subst(b, k, v))))
        out.append(rewrite(t.shift(two(a, b), k, d)).to(two(t.shift(a, k, d),
                                                               t.shift(b, k, d))))
    for one in (t.map, t.map_seq, t.map_glb, t.reduce, t.reduce_seq):
        out.append(rewrite(t.subst(one(a), k, v)).to(one(t.subst(a, k, v))))
        out.append(rewrite(t.shift(one(a), k, d)).to(one(t.shift(a, k, d))))
    return out


def grow(name: str, variant: str, seconds: float, nodes: int, iterations: int) -> None:
    """One program's graph grown an iteration at a time, a line of JSON printed after each
    (an iteration that does not end is cut by the caller's time limit)."""
    graph = egglog.EGraph()
    graph.let("start", programs()[name])
    graph.register(*algorithmic_rules(variant), *substitution_rules())
    began = time.time()
    for n in range(1, iterations + 1):
        report = graph.run(1)
        size = sum(count for _, count in graph.all_function_sizes())
        print(json.dumps({"iteration": n, "enodes": size,
                          "seconds": round(time.time() - began, 3),
                          "peak_MiB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
                          "saturated": not report.updated}), flush=True)
        if not report.updated or size > nodes or time.time() - began > seconds:
            break


def measured(name: str, variant: str, args) -> dict:
    """One program and variant in a process of its own, cut after ``args.seconds`` (twice
    that for the iteration under way)."""
    command = [sys.executable, "-m", "benchmarks.egglog_encoding", "--one", "--programs", name,
               "--variant", variant, "--seconds", str(args.seconds), "--nodes",
               str(args.nodes), "--iterations", str(args.iterations)]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        out, _ = child.communicate(timeout=2 * args.seconds + 10)
        cut = False
    except subprocess.TimeoutExpired:
        child.kill()
        out, _ = child.communicate()
        cut = True
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return {"program": name, "variant": variant, "iterations": rows,
            "next iteration cut after s": 2 * args.seconds + 10 if cut else None}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", nargs="*", default=["asum", "dot", "mm"])
    parser.add_argument("--variants", nargs="*", default=list(VARIANTS))
    parser.add_argument("--variant", default="all", choices=VARIANTS)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--nodes", type=int, default=2_000_000)
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--one", action="store_true", help="measure in this process")
    args = parser.parse_args(argv)
    if egglog is None:
        sys.exit("this measurement needs egglog: pip install 'rewrite-workbench[egraph]'")
    if args.one:
        for name in args.programs:
            grow(name, args.variant, args.seconds, args.nodes, args.iterations)
        return
    out = []
    for variant in args.variants:
        for name in args.programs:
            out.append(measured(name, variant, args))
            rows = out[-1]["iterations"]
            last = rows[-1] if rows else {}
            print(f"{name} ({variant}): {len(rows)} iterations, {last.get('enodes')} e-nodes, "
                  f"{last.get('seconds')} s, {last.get('peak_MiB')} MiB, saturated: "
                  f"{last.get('saturated')}; next iteration cut: "
                  f"{out[-1]['next iteration cut after s'] is not None}", flush=True)
    path = RESULTS / "egglog_encoding.json"
    path.write_text(json.dumps({"egglog": egglog_version(), "sizes": SIZES,
                                "programs": out}, indent=1) + "\n", encoding="utf-8")
    print(f"written {path}")


def egglog_version() -> str:
    from importlib.metadata import version

    return version("egglog")


if __name__ == "__main__":
    main()

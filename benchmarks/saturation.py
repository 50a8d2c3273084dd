"""Equality saturation beside the guided search (issue 46): for ICFP's scal, asum, dot and
gemv, the egraph strategy (unguided saturation to a limit, terms extracted and ranked by the
cost model, derived and measured) and the guided search at the same budget, one after the
other on the same device (one interleaved run); and matrix multiplication's blockings and
tilings reached by sketches (``rewriting.sketching``), with the e-graph's size, seconds and
peak memory.

    python -m benchmarks.saturation                         # PoCL, small sizes, budget 40
    python -m benchmarks.saturation --device gpu --sizes paper
    python -m benchmarks.saturation --search egraph     # the guided searches' logs kept
    python -m benchmarks.saturation --programs --mm-unguided 600    # mm without sketches
    python -m benchmarks.saturation --programs --mm-unguided 600 --no-macros  # basic rules

Prints a table; writes benchmarks/results/saturation_<device>_<sizes>.json and .md (with
``--programs`` alone, matrix multiplication's only: saturation_mm_<size>.json and .md;
with ``--no-macros``, each name ends in ``_basic``) and
one log per search (benchmarks/results/logs/saturation_*.jsonl.gz), which replay anywhere
and which ``benchmarks.efficiency`` draws.

Does the ``egglog`` package hold our language? ``--egglog`` measures it (the evidence in
``workbench.rewriting.egraph``'s docstring): ICFP's asum and dot and matrix multiplication
written as egglog terms — lambdas as de Bruijn indices with explicit substitution and
shifting, sizes as integers, no types — grown by the rules of ICFP Figs. 6 and 7 that need
no type to be stated (split-join and the partial reduction at the split sizes our rules
offer, map fusion with the associativity of composition, the lowerings of map and reduce,
β-reduction by substitution, compose-apply), one iteration at a time until saturation, a
limit of e-nodes or of seconds; after each iteration, the e-nodes, the seconds and the
process's peak memory. Each program runs in a process of its own; writes
benchmarks/results/egglog_encoding.json.

    pip install 'rewrite-workbench[egraph]'
    python -m benchmarks.saturation --egglog                # asum, dot, mm; 20 s each
"""

from __future__ import annotations

import argparse
import gzip
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

from benchmarks import search as bench
from benchmarks.search import program, retime, size_text, sizes_of, types_of
from workbench.device.opencl import find_device
from workbench.programs import library
from workbench.rewriting.egraph import EGraph
from workbench.rewriting.sketching import SketchFinder, parse_sketch, sketch_guided
from workbench.search import read, search
from workbench.search.egraph import basic_rules, saturation_rules
from workbench.search.strategies import option_names

RESULTS = Path(__file__).parent / "results"
ROOT = RESULTS.parent.parent
PROGRAMS = ("scal", "asum", "dot", "gemv")

# One or two sketches for each of the CASES 2016 phase-1 programs of matrix multiplication
MM_SKETCHES = {
    "1d-blocking": ["contains(map join ∘ join ∘ map (λxs. transpose ?) ∘ split k)"],
    "2d-blocking": ["contains(map join ∘ map join ∘ join ∘ ? ∘ split k)"],
    "tiling": ["contains(map join ∘ untile ∘ ? ∘ split m)"],
    "innermost-tiling": ["contains(map join ∘ untile ∘ ? ∘ split m)",
                         "contains(reduceSeq ? (replicate k (replicate l ?)) "
                         "(zip (transpose (map (λrowA. split s rowA) ?)) ?))"],
}


def log_of(tag: str, name: str, s: dict, strategy: str, folder: Path | None = None) -> Path:
    """Where a search of this benchmark (and of ``benchmarks.efficiency``) keeps its log,
    compressed (plots and replays read it as it is): in ``folder`` (default
    benchmarks/results/logs)."""
    sized = "x".join(str(v) for v in s.values())
    return (folder or RESULTS / "logs") / f"saturation_{tag}_{name}_{sized}_{strategy}.jsonl.gz"


def logged_search(name: str, s: dict, strategy: str, device: str | None, budget: int,
                  options: dict | None, tag: str, time_limit: float | None = None,
                  folder: Path | None = None):
    """One search from scratch, its log archived at ``log_of``; the search's result."""
    archived = log_of(tag, name, s, strategy, folder)
    archived.parent.mkdir(parents=True, exist_ok=True)
    log = archived.with_suffix("")
    log.unlink(missing_ok=True)
    result = search(program(name), *types_of(name, s), strategy=strategy, budget=budget,
                    device=device, log=log, options=options, seed=0, time_limit=time_limit)
    archived.write_bytes(gzip.compress(log.read_bytes()))
    log.unlink()
    return result


def compare(name: str, s: dict, device: str | None, budget: int, options: dict, tag: str,
            earlier: dict | None = None, time_limit: float | None = None) -> dict:
    """The egraph strategy (within ``time_limit`` seconds, where given) and the guided
    search on one program, one after the other (a strategy that ``earlier``, the entry of
    an earlier run of this program, holds: its log read, not searched again), then each
    one's best timed again, interleaved (``timed_again``)."""
    out = {"program": name, "sizes": s}
    for strategy in ("egraph", "guided"):
        began = time.time()
        if earlier is not None and strategy in earlier:
            out[strategy] = dict(earlier[strategy])
        else:
            egraph = strategy == "egraph"
            result = logged_search(name, s, strategy, device, budget,
                                   options if egraph else None, tag,
                                   time_limit if egraph else None)
            out[strategy] = {"seconds": round(time.time() - began, 1),
                             "log": str(log_of(tag, name, s, strategy).relative_to(ROOT)),
                             "peak_rss_MiB": resource.getrusage(
                                 resource.RUSAGE_SELF).ru_maxrss // 1024}
            if strategy == "egraph":
                out[strategy] |= grown_report(result.details.get("egraph", {}))
        records = read(ROOT / out[strategy]["log"])
        best = best_record(records)
        out[strategy] |= {"best_ms": best["kernel_ms"] if best else None,
                          "best": best["expression"] if best else None,
                          "measured": len(records)}
    return out | timed_again(name, s, out, device)


def grown_report(report: dict) -> dict:
    """What the egraph strategy reported of its graph."""
    return {k: report.get(k) for k in ("nodes", "classes", "saturated", "kernels extracted",
                                       "not derived", "extraction seconds")} | {
        "growth_seconds": round(sum(r["seconds"] for r in report.get("rounds", [])), 2)}


def best_record(records: list) -> dict | None:
    good = [r for r in records if r.get("correct") and r.get("kernel_ms")]
    return min(good, key=lambda r: r["kernel_ms"]) if good else None


def timed_again(name: str, s: dict, out: dict, device: str | None) -> dict:
    """The two bests timed again, interleaved over ten rounds (``search.retime``: the times
    logged were taken while other candidates built or ran beside them, minutes apart), and
    the guided search's time over the egraph strategy's, as logged and as timed again (the
    issue's goal: at least 0.9)."""
    bench.DEVICE = device
    bests = [best_record(read(ROOT / out[k]["log"])) for k in ("egraph", "guided")]
    spreads = retime(name, s, [b for b in bests if b]) if all(bests) else ([None, None], {})
    again = {}
    for strategy, spread in zip(("egraph", "guided"), spreads[0]):
        again[strategy] = None if spread is None else {"median_ms": spread.median_ms,
                                                        "range_ms": spread.range_ms}
    e, g = again["egraph"], again["guided"]
    logged = (out["guided"]["best_ms"] / out["egraph"]["best_ms"]
              if out["egraph"]["best_ms"] and out["guided"]["best_ms"] else None)
    return {"timed_again": again, "egraph_vs_guided_logged": logged,
            "egraph_vs_guided": g["median_ms"] / e["median_ms"] if e and g else None}


def grown_by(macros: bool) -> list:
    """The rules matrix multiplication's graphs grow by: the egraph strategy's, or without
    ``macros`` the basic rules alone."""
    return saturation_rules() if macros else basic_rules()


def sketches(size: int, macros: bool = True) -> list[dict]:
    """Each phase-1 program of matrix multiplication reached by its sketches (without
    ``macros``, by the basic rules alone)."""
    mm = library("mm")["mm"]
    types = (f"[[float]_{size}]_{size}",) * 2
    out = []
    for goal, written in MM_SKETCHES.items():
        reached = sketch_guided(mm, types, written, grown_by(macros), seconds=60,
                                memory=True)
        out.append({"goal": goal, "sketches": len(written),
                    "reached": all(r.reached for r in reached) and len(reached) == len(written),
                    "rules": [s.rule for r in reached for s in r.steps],
                    "seconds": round(sum(r.seconds for r in reached), 2),
                    "peak_MiB": round(max(r.peak_bytes for r in reached) / 2 ** 20, 1),
                    "nodes": max(r.nodes for r in reached)})
    return out


def unguided(size: int, seconds: float, nodes: int, macros: bool = True) -> dict:
    """Matrix multiplication's e-graph grown without sketches for ``seconds`` (or ``nodes``
    e-nodes), and which of the phase-1 programs it then holds (each goal's last sketch);
    the memory is the process's peak resident size (tracemalloc would slow the growth).
    Without ``macros``, the basic rules alone grow it (the paper's unguided setting: no
    blocking or tiling is one rule)."""
    mm = library("mm")["mm"]
    types = (f"[[float]_{size}]_{size}",) * 2
    began = time.time()
    graph = EGraph(mm, types, grown_by(macros)).saturate(
        rounds=1000, node_limit=nodes, seconds=seconds)
    grown_s = time.time() - began
    finder = SketchFinder(graph)
    held = {goal: finder.find(parse_sketch(written[-1]), graph.root) is not None
            for goal, written in MM_SKETCHES.items()}
    return {"size": size, "macros": macros, "seconds": round(grown_s, 1),
            "nodes": len(graph.nodes),
            "classes": len(graph.members), "rounds": [r.as_json() for r in graph.rounds],
            "saturated": graph.saturated(), "find_seconds": round(time.time() - began
                                                                  - grown_s, 1),
            "peak_rss_MiB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
            "holds": held}


def _ms(x: float | None) -> str:
    return "-" if x is None else f"{x:.4g}"


def _again(t: dict | None) -> str:
    return "-" if t is None else f"{t['median_ms']:.4g} [{_ms(t['range_ms'][0])}–" \
        f"{_ms(t['range_ms'][1])}]"


def fastest(again: dict) -> float | None:
    """The guided search's fastest run timed again over the egraph strategy's."""
    e, g = again.get("egraph"), again.get("guided")
    return g["range_ms"][0] / e["range_ms"][0] if e and g else None


def _ratio(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def table(doc: dict) -> str:
    """The results as Markdown: each program's egraph and guided searches, the sketches,
    and the unguided growth of matrix multiplication where it ran."""
    lines = [f"# Equality saturation on {doc['device']}", "",
             f"Budget {doc['budget']}, seed 0; the egraph strategy's options "
             f"{doc['options']}" + (f", its search within {doc['time_limit']:g} s (growth, "
                                    "extraction and measurements)"
                                    if doc.get("time_limit") else "") +
             ". Written by `python -m benchmarks.saturation`.", ""]
    if doc["programs"]:
        lines += ["| program | e-nodes | growth s; extraction s | egraph search s; peak MiB; "
                  "measured | egraph best ms (logged; again) | "
                  "guided best ms (logged; again) | guided/egraph logged | again | "
                  "again, fastest runs |", "|---|---|---|---|---|---|---|---|---|"]
    for p in doc["programs"]:
        e, g, again = p["egraph"], p["guided"], p["timed_again"]
        lines.append(f"| {p['program']} {size_text(p['sizes'])} | {e['nodes']} | "
                     f"{e['growth_seconds']}; {e.get('extraction seconds') or '-'} | "
                     f"{e.get('seconds', '-')}; {e.get('peak_rss_MiB', '-')}; "
                     f"{e.get('measured', '-')} | "
                     f"{_ms(e['best_ms'])}; {_again(again['egraph'])} | "
                     f"{_ms(g['best_ms'])}; {_again(again['guided'])} | "
                     f"{_ratio(p['egraph_vs_guided_logged'])} | "
                     f"**{_ratio(p['egraph_vs_guided'])}** | {_ratio(fastest(again))} |")
    if doc["programs"]:
        lines += ["", "Each best timed again: ten interleaved rounds of 20 runs, the median of "
                  "the rounds' medians [fastest–slowest run]. guided/egraph: the guided "
                  "search's time over the egraph strategy's (the issue's goal: at least 0.90), "
                  "as logged, timed again (medians) and the fastest runs' (on a loaded host "
                  "a kernel of several work-groups waits for cores more often than one of a "
                  "single work-item: its median suffers, its fastest run less)."]
    if doc["sketches"]:
        lines += ["", "| mm goal | sketches | reached | seconds | peak MiB | e-nodes |",
                  "|---|---|---|---|---|---|"]
    for s in doc["sketches"]:
        lines.append(f"| {s['goal']} | {s['sketches']} | {s['reached']} | {s['seconds']} | "
                     f"{s['peak_MiB']} | {s['nodes']} |")
    if "mm_unguided" in doc:
        u = doc["mm_unguided"]
        held = ", ".join(goal for goal, holds in u["holds"].items() if holds) or "none"
        rules = "the egraph strategy's rules (the macros too)" if u.get("macros", True) \
            else "the basic rules alone (no macro)"
        lines += ["", f"Unguided, matrix multiplication at {u['size']} × {u['size']}, "
                  f"grown by {rules}: "
                  f"{u['nodes']} e-nodes in {len(u['rounds'])} rounds and {u['seconds']} s "
                  f"(saturated: {u['saturated']}), peak resident {u['peak_rss_MiB']} MiB; "
                  f"the goals' shapes it holds: {held}."]
    return "\n".join(lines) + "\n"


# -- the egglog measurement --------------------------------------------------------------

try:
    import egglog
    from egglog import Expr, StringLike, i64Like, rewrite, rule, union, vars_
except ImportError:  # the measurement needs the e-graph extra
    egglog = None

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
    """One program and variant in a process of its own, cut after ``args.egglog_seconds``
    (twice that for the iteration under way)."""
    command = [sys.executable, "-m", "benchmarks.saturation", "--egglog-one", "--programs",
               name, "--variant", variant, "--egglog-seconds", str(args.egglog_seconds),
               "--egglog-nodes", str(args.egglog_nodes)]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        out, _ = child.communicate(timeout=2 * args.egglog_seconds + 10)
        cut = False
    except subprocess.TimeoutExpired:
        child.kill()
        out, _ = child.communicate()
        cut = True
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return {"program": name, "variant": variant, "iterations": rows,
            "next iteration cut after s": 2 * args.egglog_seconds + 10 if cut else None}


def egglog_measurement(args) -> None:
    """Each program and variant grown by egglog in a process of its own; written to
    benchmarks/results/egglog_encoding.json."""
    if egglog is None:
        sys.exit("this measurement needs egglog: pip install 'rewrite-workbench[egraph]'")
    if args.egglog_one:
        for name in args.programs:
            grow(name, args.variant, args.egglog_seconds, args.egglog_nodes, 30)
        return
    out = []
    for variant in VARIANTS:
        for name in ("asum", "dot", "mm"):
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


def written(out: Path, doc: dict) -> None:
    """The results so far, as JSON and as the Markdown table, with the process's peak
    resident size so far."""
    doc["max_rss_MiB"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    out.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    out.with_suffix(".md").write_text(table(doc), encoding="utf-8")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--sizes", default="small", choices=("small", "paper"))
    parser.add_argument("--budget", type=int, default=40)
    parser.add_argument("--programs", nargs="*", default=list(PROGRAMS))
    parser.add_argument("--rounds", type=int, default=None,
                        help="the egraph strategy's options (default: its own)")
    parser.add_argument("--nodes", type=int, default=None)
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--search", nargs="*", default=["egraph", "guided"],
                        choices=("egraph", "guided"),
                        help="the strategies searched again (default: both); the others' "
                             "logs are those of the last run (its results file)")
    parser.add_argument("--time-limit", type=float, default=None,
                        help="seconds the egraph strategy's search may take, growth, "
                             "extraction and measurements together (the issue: 60; the "
                             "guided search runs its whole budget)")
    parser.add_argument("--label", default="",
                        help="a name the results file and the logs end in "
                             "(saturation_<device>_<sizes>_<label>.json)")
    parser.add_argument("--keep-from", type=Path, default=None, metavar="JSON",
                        help="the results file whose logs answer for the strategies not "
                             "searched again (default: this run's results file)")
    parser.add_argument("--no-sketches", action="store_true",
                        help="leave out matrix multiplication's sketches")
    parser.add_argument("--mm-size", type=int, default=64)
    parser.add_argument("--mm-unguided", type=float, default=0.0, metavar="SECONDS",
                        help="also grow mm's e-graph without sketches this long (the issue: "
                             "600)")
    parser.add_argument("--mm-nodes", type=int, default=2_000_000)
    parser.add_argument("--no-macros", action="store_true",
                        help="grow matrix multiplication's e-graphs by the basic rules "
                             "alone, no macro as one rule (the paper's unguided setting), "
                             "and the egraph strategy without the blocking macros")
    parser.add_argument("--egglog", action="store_true",
                        help="measure the egglog encoding instead (needs the egraph extra)")
    parser.add_argument("--egglog-seconds", type=float, default=20.0)
    parser.add_argument("--egglog-nodes", type=int, default=2_000_000)
    parser.add_argument("--egglog-one", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--variant", default="all", choices=VARIANTS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.egglog or args.egglog_one:
        egglog_measurement(args)
        return
    info = find_device(args.device)[0]
    kind = "gpu" if info.kind == "gpu" else "cpu"
    tag = f"{'gpu' if kind == 'gpu' else 'cpu'}_{args.sizes}" + \
        (f"_{args.label}" if args.label else "")
    options = {k: v for k, v in (("rounds", args.rounds), ("nodes", args.nodes),
                                 ("seconds", args.seconds)) if v is not None}
    options = {**{k: v for k, v in option_names("egraph").items()
                  if k in ("rounds", "nodes", "seconds")}, **options}
    if args.no_macros:
        options["macros"] = False
    doc = {"device": info.name, "budget": args.budget, "time_limit": args.time_limit,
           "options": options, "programs": [], "sketches": []}
    # without programs (``--programs`` alone), the run is matrix multiplication's only
    basic = "_basic" if args.no_macros else ""
    out = RESULTS / (f"saturation_{tag}{basic}.json" if args.programs else
                     f"saturation_mm_{args.mm_size}{basic}.json")
    kept = {"egraph", "guided"} - set(args.search)
    before = {(p["program"], json.dumps(p["sizes"])): p for p in
              json.loads((args.keep_from or out).read_text())["programs"]} if kept else {}
    for name in args.programs:
        for s in sizes_of(args.sizes, kind, name):
            earlier = before.get((name, json.dumps(s)))
            if kept and earlier is None:
                sys.exit(f"{out} has no entry of {name} {size_text(s)} to read the logs of")
            earlier = {k: v for k, v in (earlier or {}).items() if k in kept} or None
            doc["programs"].append(compare(name, s, args.device, args.budget, options, tag,
                                           earlier, args.time_limit))
            print(json.dumps(doc["programs"][-1]), flush=True)
            written(out, doc)  # each program's row kept, should a later one not end
    if args.mm_unguided:  # first: the process's peak resident size is the growth's own
        doc["mm_unguided"] = unguided(args.mm_size, args.mm_unguided, args.mm_nodes,
                                      not args.no_macros)
        print(json.dumps(doc["mm_unguided"]), flush=True)
    if not args.no_sketches:
        doc["sketches"] = sketches(args.mm_size, not args.no_macros)
    written(out, doc)
    print(table(doc))
    print(f"written {out}")


if __name__ == "__main__":
    main()

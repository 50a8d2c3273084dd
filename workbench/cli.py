"""The ``workbench`` command line (SPEC 14).

Every command that prints a result accepts ``--json`` and then prints one JSON document.
EXPR is expression text or ``@FILE[:NAME]`` (a definition of a program file). Exit code 0
on success, 1 on a user error (a one-paragraph message on stderr, never a traceback).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

import numpy as np

from .errors import WorkbenchError, format_path, parse_path
from .expr import Expr, subterm
from .nesting import check_nesting
from .notation import load, parse, parse_type
from .semantics import evaluate
from .sizes import Size
from .typecheck import annotate, declared_type_of
from .types import (
    ArrayType,
    FunctionType,
    ScalarType,
    TupleType,
    Type,
    VectorType,
    function_parts,
    substitute_sizes,
)

MAX_PRINTED = 4096


class UserError(WorkbenchError):
    pass


# --- EXPR and options --------------------------------------------------------------------------

def read_expression(text: str) -> list[tuple[str, Expr]]:
    """``@FILE:NAME`` -> that definition; ``@FILE`` -> all of them; else parse the text."""
    if not text.startswith("@"):
        return [("expression", parse(text))]
    spec = text[1:]
    path, _, name = spec.rpartition(":") if ":" in spec else (spec, "", "")
    if not path:
        path, name = spec, ""
    program = load(path)
    if name:
        if name not in program:
            raise UserError(f"{path} has no definition {name!r} (it defines "
                            f"{', '.join(program)})")
        return [(name, program[name])]
    return list(program.items())


def one_expression(text: str) -> tuple[str, Expr]:
    found = read_expression(text)
    if len(found) > 1:
        names = ", ".join(n for n, _ in found)
        raise UserError(f"{text} defines several programs ({names}): name one as {text}:NAME")
    return found[0]


def parse_sizes(pairs: Sequence[str]) -> dict[str, int]:
    sizes = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip().isidentifier():
            raise UserError(f"bad --size {pair!r}: write NAME=VALUE, e.g. --size N=1024")
        try:
            number = int(value)
        except ValueError:
            raise UserError(f"bad --size {pair!r}: {value!r} is not a whole number") from None
        if number <= 0:
            raise UserError(f"bad --size {pair!r}: sizes are positive")
        sizes[name.strip()] = number
    return sizes


def input_types(expr: Expr, type_texts: Sequence[str]) -> tuple[list[Type], Type | None]:
    """Input types from ``--type`` (one per input, or one function type), else declared."""
    if type_texts:
        types = [parse_type(t) for t in type_texts]
        if len(types) == 1 and isinstance(types[0], FunctionType):
            args, result = function_parts(types[0])
            return args, result
        return types, None
    declared = declared_type_of(expr)
    if declared is None:
        return [], None
    args, result = function_parts(declared)
    return args, result


# --- commands --------------------------------------------------------------------------------

def cmd_check(args) -> dict:
    results = []
    for name, expr in read_expression(args.expr):
        types, want = input_types(expr, args.type)
        note = annotate(expr, *types) if types or declared_type_of(expr) is None \
            else annotate(expr)
        result = note.result
        if want is not None and result != want:
            raise UserError(f"{name}: expected result type {want}, the expression has {result}")
        signature = " -> ".join(str(t) for t in [*types, result])
        results.append({
            "name": name, "expression": str(expr), "type": signature,
            "inputs": [str(t) for t in types], "result": str(result),
            "assumptions": [str(a) for a in note.assumptions],
            "nesting_problems": [str(p) for p in check_nesting(expr)],
            "nodes": expr.size(),
        })
    return {"definitions": results} if len(results) > 1 else results[0]


def show_check(doc: dict) -> str:
    items = doc["definitions"] if "definitions" in doc else [doc]
    lines = []
    for item in items:
        lines.append(f"{item['name']} = {item['expression']}")
        lines.append(f"  : {item['type']}")
        for a in item["assumptions"]:
            lines.append(f"  assuming {a}")
        for p in item["nesting_problems"]:
            lines.append(f"  not valid OpenCL nesting {p}")
    return "\n".join(lines)


def random_inputs(types: list[Type], sizes: dict[str, int], seed: int) -> list:
    """Random inputs of the given types: floats in [-1, 1); ints are indices valid for the
    arrays among the inputs (so programs such as md can use them to index)."""
    rng = np.random.default_rng(seed)
    concrete = []
    for t in types:
        missing = sorted(n for n in _size_names(t) if n not in sizes)
        if missing:
            raise UserError(f"the input type {t} needs a value for {', '.join(missing)}: "
                            f"give --size {missing[0]}=...")
        concrete.append(substitute_sizes(t, sizes))
    lengths = [int(t.size.value) for t in concrete if isinstance(t, ArrayType)]
    limit = min(lengths) if lengths else 16
    return [_random_value(t, rng, limit) for t in concrete]


def _size_names(t: Type) -> set[str]:
    if isinstance(t, ArrayType | VectorType):
        return set(t.size.free_vars) | _size_names(t.elem)
    if isinstance(t, TupleType):
        return set().union(*(_size_names(i) for i in t.items))
    return set()


def _random_value(t: Type, rng, limit: int):
    shape = []
    while isinstance(t, ArrayType | VectorType):
        shape.append(int(t.size.value))
        t = t.elem
    if isinstance(t, TupleType):
        parts = []
        for item in t.items:
            for n in reversed(shape):
                item = ArrayType(item, Size.const(n))
            parts.append(_random_value(item, rng, limit))
        return tuple(parts)
    if not isinstance(t, ScalarType):
        raise UserError(f"cannot make random inputs of type {t}")
    if t.name == "int":
        return rng.integers(0, limit, size=shape, dtype=np.int32)
    if t.name == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    dtype = np.float64 if t.name == "double" else np.float32
    data = rng.uniform(-1, 1, size=shape).astype(dtype)
    return data if shape else dtype(data)


def to_json_value(value):
    if isinstance(value, tuple):
        return [to_json_value(v) for v in value]
    arr = np.asarray(value)
    flat = arr.reshape(-1)
    doc = {"shape": list(arr.shape), "dtype": str(arr.dtype),
           "values": flat[:MAX_PRINTED].tolist(), "truncated": bool(flat.size > MAX_PRINTED)}
    if arr.dtype.kind in "fiu" and flat.size:
        doc["sum"] = float(flat.astype(np.float64).sum())
    return doc


def cmd_eval(args) -> dict:
    name, expr = one_expression(args.expr)
    sizes = parse_sizes(args.size)
    types, _ = input_types(expr, args.type)
    if not types and declared_type_of(expr) is None:
        raise UserError("give the input types with --type (e.g. --type '[float]_N'), or use a "
                        "definition with a signature (@FILE:NAME)")
    inputs = random_inputs(types, sizes, args.seed)
    output = evaluate(expr, *inputs, sizes=sizes)
    return {"name": name, "expression": str(expr), "sizes": sizes, "seed": args.seed,
            "inputs": [to_json_value(v) for v in inputs], "output": to_json_value(output)}


def show_eval(doc: dict) -> str:
    def fmt(v):
        if isinstance(v, list):
            return "(" + ", ".join(fmt(x) for x in v) + ")"
        values = v["values"][:8]
        more = " ..." if len(v["values"]) > 8 or v["truncated"] else ""
        shown = ", ".join(f"{x:.6g}" if isinstance(x, float) else str(x) for x in values)
        return f"{v['dtype']}{v['shape']} [{shown}{more}]"

    lines = [f"{doc['name']} = {doc['expression']}",
             "sizes: " + (", ".join(f"{k}={v}" for k, v in doc["sizes"].items()) or "-"),
             "output: " + fmt(doc["output"])]
    return "\n".join(lines)


def _typed_expression(args) -> tuple[str, Expr, list[Type]]:
    name, expr = one_expression(args.expr)
    types, _ = input_types(expr, args.type)
    if not types and declared_type_of(expr) is None:
        raise UserError("give the input types with --type (e.g. --type '[float]_N'), or use a "
                        "definition with a signature (@FILE:NAME)")
    return name, expr, types


def cmd_rules(args) -> list:
    from .rules import rewrites

    _, expr, types = _typed_expression(args)
    at = parse_path(args.at) if args.at is not None else None
    if at is not None:
        subterm(expr, at)
    found = [r.as_json() for r in rewrites(expr, *types, at=at)]
    if not args.why:
        return found
    if at is None:
        raise UserError("--why needs --at PATH (the node whose refused rules to explain)")
    from .rules import refusals

    return {"rewrites": found, "refused": refusals(expr, at, *types)}


def show_rules(doc) -> str:
    if isinstance(doc, dict):
        refused = [f"  {rule}: {reason}" for rule, reason in doc["refused"].items()]
        return show_rules(doc["rewrites"]) + "\nrefused here:\n" + "\n".join(refused)
    if not doc:
        return "no rule applies here"
    width = max(len(r["path"]) for r in doc)
    lines = []
    for r in doc:
        params = " ".join(f"{k}={v}" for k, v in r["params"].items())
        lines.append(f"{r['path']:<{width}}  {r['rule']} {params}".rstrip())
        lines.append(f"{'':<{width}}    → {r['result']}")
    return "\n".join(lines)


def _params(pairs: Sequence[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UserError(f"bad --param {pair!r}: write NAME=VALUE, e.g. --param n=128")
        out[key.strip()] = value.strip()
    return out


def cmd_apply(args) -> dict:
    from .rules import apply

    _, expr, types = _typed_expression(args)
    result = apply(expr, args.rule, parse_path(args.at), *types, **_params(args.param))
    return {"rule": args.rule, "path": args.at, "params": _params(args.param),
            "before": str(expr), "result": str(result)}


def cmd_derive(args) -> dict:
    from .derivation import Derivation

    d = Derivation.load(args.file)
    doc = d.to_json()
    doc["final"] = str(d.current)
    doc["markdown"] = d.to_markdown()
    doc["latex"] = d.to_latex()
    doc["_show"] = "latex" if args.latex else "markdown" if args.markdown else "plain"
    return doc


def show_derive(doc: dict) -> str:
    if doc["_show"] == "latex":
        return doc["latex"].rstrip()
    if doc["_show"] == "markdown":
        return doc["markdown"].rstrip()
    lines = [f"{doc['name']} = {doc['start']}"]
    for i, step in enumerate(doc["steps"], start=1):
        params = " ".join(f"{k}={v}" for k, v in step["params"].items())
        lines.append(f"  →({i}) {step['rule']} {params} at {step['path']}".rstrip())
        lines.append(f"      {step['result']}")
    lines.append(f"replayed {len(doc['steps'])} steps: every step checks")
    return "\n".join(lines)


def cmd_devices(args) -> dict:
    from . import runtime

    found = runtime.devices()
    default = runtime.find_device()[0].id if found else None
    return {"devices": [d.as_json() for d in found], "default": default,
            "notes": runtime.notes()}


def show_devices(doc: dict) -> str:
    if not doc["devices"]:
        return "no OpenCL device found"
    lines = []
    for d in doc["devices"]:
        mark = "*" if d["id"] == doc["default"] else " "
        lines.append(f"{mark} {d['id']}  {d['name']} ({d['platform']}, {d['kind']}, "
                     f"{d['compute_units']} compute units, driver {d['driver']})")
    lines.extend(f"note: {n}" for n in doc["notes"])
    return "\n".join(lines)


def _concrete(args) -> tuple[str, Expr, list[Type], dict[str, int]]:
    name, expr, types = _typed_expression(args)
    sizes = parse_sizes(args.size)
    if not types:
        types = function_parts(declared_type_of(expr))[0]
    concrete = []
    for t in types:
        missing = sorted(_size_names(t) - set(sizes))
        if missing:
            raise UserError(f"the input type {t} needs a value for {', '.join(missing)}: "
                            f"give --size {missing[0]}=...")
        concrete.append(substitute_sizes(t, sizes))
    return name, expr, concrete, sizes


def cmd_codegen(args) -> dict:
    from .codegen import CodegenError
    from .codegen.program import opencl

    name, expr, types, sizes = _concrete(args)
    try:
        program = opencl(expr, *types, sizes=sizes, complete=args.complete,
                         name=name if name != "expression" else None)
    except CodegenError as err:
        hint = "" if args.complete else " (--complete lowers what is still high-level)"
        raise UserError(f"cannot generate OpenCL: {err}{hint}") from None
    return {"name": program.name, "expression": program.expression, "source": program.source,
            "completed": [f"{c.rule} at {format_path(c.path)}" for c in program.completed],
            "source_sha256": program.sha256, "codegen_ms": program.codegen_ms,
            "launches": [{"kernel": l.kernel, "global_size": list(l.global_size),
                          "local_size": list(l.local_size) if l.local_size else None}
                         for l in program.launches],
            "buffers": [{"name": b.name, "role": b.role, "space": b.space, "type": str(b.type)}
                        for b in program.buffers]}


def show_codegen(doc: dict) -> str:
    done = "".join(f"// default completion: {c}\n" for c in doc["completed"])
    plan = "\n".join(f"// launch {l['kernel']}: global {l['global_size']}, local "
                      f"{l['local_size']}" for l in doc["launches"])
    return done + doc["source"].rstrip() + "\n\n" + plan


def cmd_run(args) -> dict:
    from .run import run

    name, expr, types, sizes = _concrete(args)
    inputs = random_inputs(types, sizes, args.seed)
    result = run(expr, *inputs, device=args.device, repeat=args.repeat, sizes=sizes)
    doc = result.as_json()
    doc["name"] = name
    doc["expression"] = str(expr)
    if result.status not in ("ok", "wrong result"):
        raise UserError(f"{result.status}: {result.message}")
    return doc


def show_run(doc: dict) -> str:
    verdict = "correct" if doc["correct"] else f"WRONG ({doc['message']})"
    return (f"{doc['name']} = {doc['expression']}\n"
            f"device: {doc['device']}\n"
            f"result: {verdict}, max error {doc['max_error']:.3g}\n"
            f"kernel: {doc['kernel_ms']:.4f} ms median (min {doc['kernel_ms_min']:.4f}, max "
            f"{doc['kernel_ms_max']:.4f}); transfers {doc['transfer_ms']:.3f} ms; "
            f"codegen {doc['codegen_ms']:.2f} ms")


def cmd_demo(args) -> dict:
    from .demo import demo

    doc = demo(args.derivation, parse_sizes(args.size) or None, device=args.device,
               repeat=args.repeat)
    if not doc["correct"]:
        bad = next(s for s in doc["steps"] if not s["correct"])
        raise UserError(f"step {bad['step']}: {bad['status']}: {bad['message']}")
    return doc


def cmd_search(args) -> dict:
    from .search import search

    name, expr, types, sizes = _concrete(args)
    progress = None
    if not args.json:
        seen = {"n": 0, "best": None}

        def progress(record):
            seen["n"] += 1
            ok = record.get("correct") and record.get("kernel_ms") is not None
            if ok and (seen["best"] is None or record["kernel_ms"] < seen["best"]):
                seen["best"] = record["kernel_ms"]
            mark = f"{record['kernel_ms']:.4f} ms" if ok else record.get("status")
            best = "–" if seen["best"] is None else f"{seen['best']:.4f} ms"
            print(f"  [{seen['n']:>{len(str(args.budget))}}/{args.budget}] best {best}; "
                  f"candidate: {mark}", file=sys.stderr, flush=True)
    result = search(expr, *[str(t) for t in types], strategy=args.strategy,
                    budget=args.budget, device=args.device, log=args.log, seed=args.seed,
                    timeout=args.timeout, workers=args.workers, progress=progress,
                    sizes=sizes)
    doc = result.as_json()
    doc["name"] = name
    if args.plot:
        from .plots import efficiency_curve

        efficiency_curve(result.log, result.fixed, title=f"{name}: {args.strategy}",
                         path=args.plot)
        doc["plot"] = args.plot
    if result.best is None:
        raise UserError(f"no correct kernel among {result.evaluated} candidates"
                        + (f" (log: {args.log})" if args.log else ""))
    doc["best"]["markdown"] = result.derivation.to_markdown()
    return doc


def show_search(doc: dict) -> str:
    best = doc["best"]
    lines = [f"{doc['name']}: {doc['evaluated']} candidates ({doc['strategy']}), "
             f"{doc['failures']} failed or wrong, {doc['seconds']:.1f} s",
             f"best: {best['kernel_ms']:.4f} ms", best["expression"], "", best["markdown"]]
    if doc.get("plot"):
        lines.append(f"plot: {doc['plot']}")
    return "\n".join(lines)


def show_demo(doc: dict) -> str:
    from .demo import show

    return show(doc)


COMMANDS = {"devices": (cmd_devices, show_devices), "demo": (cmd_demo, show_demo),
            "search": (cmd_search, show_search),
            "codegen": (cmd_codegen, show_codegen),
            "run": (cmd_run, show_run), "check": (cmd_check, show_check),
            "eval": (cmd_eval, show_eval),
            "rules": (cmd_rules, show_rules), "apply": (cmd_apply, lambda d: d["result"]),
            "derive": (cmd_derive, show_derive)}


def _expression_command(sub, name: str, help: str, sizes: bool = False,
                        type_help: str = "input type (repeat for several inputs)"):
    """A subcommand on an EXPR, with --type (and --size) and --json."""
    cmd = sub.add_parser(name, help=help)
    cmd.add_argument("expr", help="expression text or @FILE[:NAME]")
    cmd.add_argument("--type", action="append", default=[], help=type_help)
    if sizes:
        cmd.add_argument("--size", action="append", default=[],
                         help="NAME=VALUE for a size variable")
    cmd.add_argument("--json", action="store_true")
    return cmd


def build_parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="workbench", description="Derive OpenCL kernels from functional expressions.")
    sub = top.add_subparsers(dest="command", required=True)

    dev = sub.add_parser("devices", help="OpenCL platforms and devices the workbench can use")
    dev.add_argument("--json", action="store_true")

    cg = _expression_command(sub, "codegen", "OpenCL source and launch plan", sizes=True)
    cg.add_argument("--complete", action="store_true",
                    help="lower what is still high-level with the default completion first")

    rn = _expression_command(sub, "run", "run on a device, check against the interpreter, "
                             "time", sizes=True)
    rn.add_argument("--device", help="device id, cpu/gpu, or part of its name")
    rn.add_argument("--repeat", type=int, default=20)
    rn.add_argument("--seed", type=int, default=0)

    _expression_command(sub, "check", "parse and type-check; print normal form and type",
                        type_help="input type (repeat for several inputs) or a whole "
                                  "function type")

    ev = _expression_command(sub, "eval", "run the interpreter on random inputs", sizes=True)
    ev.add_argument("--seed", type=int, default=0)

    rl = _expression_command(sub, "rules", "every applicable rewrite: path, rule, params, "
                             "result")
    rl.add_argument("--at", help="only at this node path (e.g. 1.0; 'root' for the root)")
    rl.add_argument("--why", action="store_true",
                    help="with --at: also say why each other rule is refused there")

    ap = _expression_command(sub, "apply", "apply one rewrite and print the result")
    ap.add_argument("rule", help="rule name (see 'workbench rules')")
    ap.add_argument("--at", required=True, help="node path ('root', 0, 1.0.2, ...)")
    ap.add_argument("--param", action="append", default=[], help="NAME=VALUE rule parameter")

    from .search import STRATEGIES

    se = _expression_command(sub, "search", "search for the fastest correct kernel",
                             sizes=True)
    se.add_argument("--device", help="device id, cpu/gpu, or part of its name")
    se.add_argument("--strategy", default="mcts", choices=sorted(STRATEGIES))
    se.add_argument("--budget", type=int, default=40, help="candidates to measure")
    se.add_argument("--log", help="JSON-lines log: every candidate as it finishes; an "
                    "existing log is resumed")
    se.add_argument("--plot", help="write the efficiency curve (ICFP Fig. 12) to this file")
    se.add_argument("--seed", type=int, default=0)
    se.add_argument("--timeout", type=float, default=60.0, help="seconds per candidate")
    se.add_argument("--workers", type=int, default=None, help="worker processes")

    dm = sub.add_parser("demo", help="a derivation end to end on the default device: every "
                        "step run, checked and timed")
    dm.add_argument("--derivation", help="a saved derivation (default: ICFP Fig. 3, vector "
                    "scaling)")
    dm.add_argument("--size", action="append", default=[], help="NAME=VALUE (default N=2^20)")
    dm.add_argument("--device", help="device id, cpu/gpu, or part of its name")
    dm.add_argument("--repeat", type=int, default=10)
    dm.add_argument("--json", action="store_true")

    dv = sub.add_parser("derive", help="replay a saved derivation and check every step")
    dv.add_argument("file", help="a derivation saved as JSON")
    form = dv.add_mutually_exclusive_group()
    form.add_argument("--markdown", action="store_true")
    form.add_argument("--latex", action="store_true")
    dv.add_argument("--json", action="store_true")
    return top


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    run, show = COMMANDS[args.command]
    try:
        doc = run(args)
    except WorkbenchError as err:
        print(f"workbench {args.command}: {err}", file=sys.stderr)
        return 1
    except RecursionError:
        print(f"workbench {args.command}: the expression is nested too deeply", file=sys.stderr)
        return 1
    if isinstance(doc, dict):
        doc_json = {k: v for k, v in doc.items() if not k.startswith("_")}
    else:
        doc_json = doc
    print(json.dumps(doc_json, indent=2, ensure_ascii=False) if args.json else show(doc))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

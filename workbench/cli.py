"""The ``workbench`` command line (SPEC 14).

Every command that prints a result accepts ``--json`` and then prints one JSON document.
EXPR is expression text or ``@FILE[:NAME]`` (a definition of a program file; a
``workbench/…`` path not found in the current folder is the installed package's file). Exit
code 0 on success, 1 on a user error (a one-paragraph message on stderr, never a
traceback).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
from collections.abc import Sequence
from importlib import metadata

import numpy as np

from .domain import ranges_of
from .errors import WorkbenchError, format_path, parse_path
from .expr import Expr, subterm
from .inputs import random_inputs, size_names
from .nesting import check_nesting
from .notation import load, parse, parse_type, to_text
from .semantics import evaluate
from .sizes import MAX_SIZE_CONSTANT
from .typecheck import annotate, declared_type_of
from .types import (
    FunctionType,
    Type,
    function_parts,
    substitute_sizes,
)


class UserError(WorkbenchError):
    pass


class Interrupted(UserError):
    """Ctrl-C: the command says what was kept, and exits with 130 (as the shell does)."""


def package_version() -> str:
    """The installed package's version (its metadata), or what a checkout that is not
    installed says instead."""
    try:
        return metadata.version("rewrite-workbench")
    except metadata.PackageNotFoundError:
        return "unknown (not installed: pip install -e .)"


# --- EXPR and options --------------------------------------------------------------------------

def read_expression(text: str) -> list[tuple[str, Expr]]:
    """``@FILE:NAME`` -> that definition; ``@FILE`` -> all of them; else parse the text."""
    if not text.startswith("@"):
        return [("expression", parse(text))]
    spec = text[1:]
    path, _, name = spec.rpartition(":") if ":" in spec else (spec, "", "")
    if not path:
        path, name = spec, ""
    program = load(package_file(path))
    if name:
        if name not in program:
            raise UserError(f"{path} has no definition {name!r} (it defines "
                            f"{', '.join(program)})")
        return [(name, program[name])]
    return list(program.items())


def package_file(path: str) -> str:
    """A file named on the command line (a program file after ``@``, a derivation): relative
    to the current folder, or, where no such file is there, one of the installed package's
    own (``workbench/programs/blas.lift``), so that the examples work outside a checkout
    after ``pip install``."""
    parts = path.replace("\\", "/").split("/")
    if os.path.exists(path) or parts[0] != __package__ or len(parts) < 2:
        return path
    installed = os.path.join(os.path.dirname(os.path.abspath(__file__)), *parts[1:])
    return installed if os.path.isfile(installed) else path


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
        digits = value.strip().lstrip("+-")
        try:
            number = int(value) if len(digits) <= len(str(MAX_SIZE_CONSTANT)) else None
        except ValueError:
            raise UserError(f"bad --size {pair[:60]!r}: {value[:40]!r} is not a whole "
                            f"number") from None
        if number is None or number > MAX_SIZE_CONSTANT:
            raise UserError(f"bad --size {name.strip()}: sizes are below 2^63")
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
            "name": name, "expression": to_text(expr, style="lift") if args.lift else str(expr),
            "type": signature,
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


SHOWN = 8  # values in a summary's "first"
OUTPUT_VALUES = 1024  # an output of at most this many values is printed whole


def summary(value, whole: bool = False):
    """A JSON summary of an array (a list of them for a tuple): ``shape``, ``dtype``,
    ``size``, ``first`` (its first values), ``sum``/``min``/``max`` (numbers only) and
    ``sha256`` (of its values' bytes in C order, as ``np.ascontiguousarray(a).tobytes()``);
    ``values`` (every value) when ``whole``."""
    if isinstance(value, tuple):
        return [summary(v, whole) for v in value]
    arr = np.asarray(value)
    flat = arr.reshape(-1)
    doc = {"shape": list(arr.shape), "dtype": str(arr.dtype), "size": int(flat.size),
           "first": flat[:SHOWN].tolist()}
    if arr.dtype.kind in "fiub" and flat.size:
        numbers = flat.astype(np.float64)
        doc.update(sum=float(numbers.sum()), min=float(numbers.min()), max=float(numbers.max()))
    doc["sha256"] = hashlib.sha256(np.ascontiguousarray(arr).tobytes()).hexdigest()
    if whole:
        doc["values"] = flat.tolist()
    return doc


def cmd_eval(args) -> dict:
    name, expr = one_expression(args.expr)
    sizes = parse_sizes(args.size)
    types, _ = input_types(expr, args.type)
    if not types and declared_type_of(expr) is None:
        raise UserError("give the input types with --type (e.g. --type '[float]_N'), or use a "
                        "definition with a signature (@FILE:NAME)")
    inputs = random_inputs(types, sizes, args.seed, ranges_of(expr))
    output = evaluate(expr, *inputs, sizes=sizes)
    size = sum(np.size(v) for v in (output if isinstance(output, tuple) else (output,)))
    return {"name": name, "expression": str(expr), "sizes": sizes, "seed": args.seed,
            "inputs": [summary(v, args.full) for v in inputs],
            "output": summary(output, args.full or size <= OUTPUT_VALUES)}


def show_eval(doc: dict) -> str:
    def fmt(v):
        if isinstance(v, list):
            return "(" + ", ".join(fmt(x) for x in v) + ")"
        values = v["first"]
        more = " ..." if v["size"] > len(values) else ""
        shown = ", ".join(f"{x:.6g}" if isinstance(x, float) else str(x) for x in values)
        total = f", sum {v['sum']:.6g}" if "sum" in v and v["size"] > 1 else ""
        return f"{v['dtype']}{v['shape']} [{shown}{more}]{total}"

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

    if args.all:
        if args.expr is not None or args.at is not None or args.why:
            raise UserError("--all lists the whole catalogue: give no EXPR, --at or --why")
        return catalogue()
    if args.expr is None:
        raise UserError("give an expression (EXPR) to list the rewrites that apply to it, or "
                        "--all for the whole catalogue")
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


def catalogue() -> dict:
    """Every rule: name, equation, category, figure, parameters."""
    from .rules import rules

    return {"catalogue": [{"name": r.name, "equation": r.equation, "category": r.category,
                           "figure": r.figure, "pair": r.pair,
                           "params": [{"name": p.name, "doc": p.doc} for p in r.params]}
                          for r in rules]}


def show_catalogue(doc: dict) -> str:
    by_category: dict[str, list] = {}
    for r in doc["catalogue"]:
        by_category.setdefault(r["category"], []).append(r)
    width = max(len(r["name"]) for r in doc["catalogue"])
    lines = []
    for category, found in by_category.items():
        lines.append(f"{category} ({len(found)})")
        for r in found:
            params = ", ".join(p["name"] for p in r["params"])
            lines.append(f"  {r['name']:<{width}}  {r['equation']}")
            lines.append(f"  {'':<{width}}  {r['figure']}"
                         + (f"; parameters: {params}" if params else ""))
    lines.append(f"{len(doc['catalogue'])} rules; `workbench rules EXPR` lists where they "
                 f"apply")
    return "\n".join(lines)


def group_rewrites(found: list[dict]) -> list[dict]:
    """Rewrites of one rule at one place, whatever their parameters, as one group: the
    values of each parameter, and the result with each parameter written ``{name}`` when
    the results differ only there (else the first result, with its parameters)."""
    groups: dict[tuple, list[dict]] = {}
    for r in found:
        groups.setdefault((r["path"], r["rule"]), []).append(r)
    out = []
    for (path, rule), members in groups.items():
        values: dict[str, list[str]] = {}
        for m in members:
            for k, v in m["params"].items():
                if v not in values.setdefault(k, []):
                    values[k].append(v)
        template = _template(members)
        out.append({"path": path, "rule": rule, "values": values, "count": len(members),
                    "result": template if template is not None else members[0]["result"],
                    "example": None if template is not None else members[0]["params"]})
    return out


def _template(members: list[dict]) -> str | None:
    if len(members) == 1:
        return members[0]["result"]  # its parameter values are on the rule's line
    templates = set()
    for m in members:
        text = m["result"]
        chosen = list(m["params"].items())
        if len({v for _, v in chosen}) < len(chosen):
            return None  # two parameters with one value: which is which cannot be told
        for k, v in chosen:
            text = re.sub(rf"(?<![\w.]){re.escape(v)}(?![\w.])", f"{{{k}}}", text)
        templates.add(text)
    return templates.pop() if len(templates) == 1 else None


def show_rules(doc) -> str:
    if isinstance(doc, dict) and "catalogue" in doc:
        return show_catalogue(doc)
    if isinstance(doc, dict):
        refused = [f"  {rule}: {reason}" for rule, reason in doc["refused"].items()]
        return show_rules(doc["rewrites"]) + "\nrefused here:\n" + "\n".join(refused)
    if not doc:
        return "no rule applies here"
    groups = group_rewrites(doc)
    width = max(len(g["path"]) for g in groups)
    lines = []
    for g in groups:
        params = "; ".join(f"{k} = {', '.join(v)}" for k, v in g["values"].items())
        several = len(g["values"]) > 1 and g["count"] > 1
        count = f" ({g['count']} combinations)" if several else ""
        lines.append(f"{g['path']:<{width}}  {g['rule']}  {params}{count}".rstrip())
        example = ""
        if g["example"]:
            example = "  (with " + ", ".join(f"{k}={v}" for k, v in g["example"].items()) + ")"
        lines.append(f"{'':<{width}}    → {g['result']}{example}")
    rewrites = len(doc)
    lines.append(f"{rewrites} rewrite{'s' if rewrites != 1 else ''} of {len(groups)} rules "
                 f"and places; --json lists each rewrite")
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

    d = Derivation.load(package_file(args.file))
    doc = d.to_json()
    doc["final"] = str(d.current)
    doc["markdown"] = d.to_markdown()
    doc["latex"] = d.to_latex()
    doc["text"] = d.to_text()
    if args.lift:
        doc["lift"] = d.to_lift()
    doc["_show"] = "latex" if args.latex else "markdown" if args.markdown else \
        "lift" if args.lift else "plain"
    return doc


def show_derive(doc: dict) -> str:
    if doc["_show"] == "latex":
        return doc["latex"].rstrip()
    if doc["_show"] == "lift":
        return doc["lift"].rstrip()
    if doc["_show"] == "markdown":
        return doc["markdown"].rstrip()
    return doc["text"] + f"\nreplayed {len(doc['steps'])} steps: every step checks"


def cmd_devices(args) -> dict:
    from .device import opencl as devices

    found = devices.devices(check=args.check, progress=_say_probe)
    try:
        default, problem = devices.find_device()[0], ""
    except devices.DeviceError as err:
        default, problem = None, str(err)
    chosen_by = devices.environment_choice()
    doc = {"devices": [d.as_json() for d in found], "default": default and default.id,
           "chosen_by": "=".join(chosen_by) if chosen_by else None,
           "notes": devices.notes(),
           "pocl": {d.id: devices.pocl_build(d) for d in found if d.ok and devices.pocl_build(d)}}
    gpu = devices.idle_gpu(found, default)
    if gpu is not None:
        doc["hint"] = devices.idle_gpu_hint(gpu)
    if problem:
        doc["problem"] = problem
        doc["_exit"] = 1  # no working device: the command says so with its status too
    return doc


def _say_probe(info) -> None:
    """A device's probe, on stderr as it starts and ends: a first probe of every device
    takes a while, and the listing comes only once all are probed."""
    if info.health == "unknown":
        print(f"probing {info.id}  {info.name} ({info.platform}) ...", file=sys.stderr,
              flush=True)
    else:
        print(f"probed  {_device_line(info.as_json())}", file=sys.stderr, flush=True)


def _device_line(d: dict) -> str:
    widths = d.get("vector_widths") or []
    builtin = d.get("builtin_widths", widths)
    but = f"; built-in functions on {', '.join(map(str, builtin)) or 'none'}" \
        if builtin != widths else ""
    vectors = f" (vectors of {', '.join(map(str, widths))}{but})" if d["health"] == "ok" and \
        widths else ""
    return (f"{d['id']}  {d['name']} ({d['platform']}, {d['kind']}, {d['compute_units']} "
            f"compute units, driver {d['driver']})  {d['health']}{vectors}")


def show_devices(doc: dict) -> str:
    if not doc["devices"]:
        return doc.get("problem") or "no OpenCL device found"
    lines = [("*" if d["id"] == doc["default"] else " ") + " " + _device_line(d)
             for d in doc["devices"]]
    if doc["default"] is None:
        lines.append(doc.get("problem", "no working device"))
    elif doc.get("chosen_by"):
        lines.append(f"* the default device, as {doc['chosen_by']} chooses")
    else:
        lines.append("* the default device (WORKBENCH_DEVICE=<id> chooses another)")
    if doc.get("hint"):
        lines.append(doc["hint"])
    lines.extend(f"{device_id}: {text}" for device_id, text in doc.get("pocl", {}).items())
    lines.extend(f"note: {n}" for n in doc["notes"])
    return "\n".join(lines)


def _concrete(args) -> tuple[str, Expr, list[Type], dict[str, int]]:
    name, expr, types = _typed_expression(args)
    sizes = parse_sizes(args.size)
    if not types:
        types = function_parts(declared_type_of(expr))[0]
    concrete = []
    for t in types:
        missing = sorted(size_names(t) - set(sizes))
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
    from .memory import check_run_memory
    from .run import run

    name, expr, types, sizes = _concrete(args)
    check_run_memory(expr, sizes, types, device=args.device)  # before the inputs exist
    inputs = random_inputs(types, sizes, args.seed, ranges_of(expr))
    result = run(expr, *inputs, device=args.device, repeat=args.repeat, sizes=sizes,
                 build_options=args.build_option)
    doc = result.as_json()
    doc["rates"] = _rates_json(result.rates(_ceilings(args.device)))
    doc["name"] = name
    doc["expression"] = str(expr)
    if result.status not in ("ok", "wrong result"):
        raise UserError(f"{result.status}: {result.message}")
    return doc


def _ceilings(device):
    """The device's measured ceilings, None where they cannot be measured there."""
    from .ceilings import ceilings

    try:
        return ceilings(device)
    except WorkbenchError:
        return None


def _rates_json(rates) -> dict | None:
    if rates is None:
        return None
    return {**rates.as_json(), "text": rates.text()}


def check_plot(path: str) -> None:
    """``--plot FILE`` checked before anything runs: matplotlib installed, a format it
    writes, and a folder to write it in (a search that ends unable to plot would lose the
    kernel it found)."""
    from . import plots

    if plots.Figure is None:
        raise UserError("--plot needs matplotlib, which is not installed: pip install "
                        "matplotlib (or the lab extra: pip install 'rewrite-workbench[lab]'); "
                        "nothing was run")
    if "\x00" in path:
        raise UserError(f"--plot {path!r}: a path holds no NUL character; nothing was run")
    suffix = os.path.splitext(path)[1].lstrip(".").lower()
    formats = plots.figure().canvas.get_supported_filetypes()
    if suffix and suffix not in formats:
        raise UserError(f"--plot {path}: matplotlib does not write .{suffix} files (it writes "
                        f"{', '.join('.' + f for f in sorted(formats))}); nothing was run")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UserError(f"--plot {path}: there is no folder {folder}; nothing was run")


def show_run(doc: dict) -> str:
    verdict = "correct" if doc["correct"] else f"WRONG ({doc['message']})"
    return (f"{doc['name']} = {doc['expression']}\n"
            f"device: {doc['device']}\n"
            f"result: {verdict}, max error {doc['max_error']:.3g}\n"
            f"kernel: {doc['kernel_ms']:.4f} ms median (min {doc['kernel_ms_min']:.4f}, max "
            f"{doc['kernel_ms_max']:.4f}); transfers {doc['transfer_ms']:.3f} ms; "
            f"codegen {doc['codegen_ms']:.2f} ms"
            + (f"\nrates: {doc['rates']['text']}" if doc.get("rates") else ""))


def cmd_demo(args) -> dict:
    from .studies.demo import demo

    doc = demo(args.derivation, parse_sizes(args.size) or None, device=args.device,
               repeat=args.repeat)
    if not doc["correct"]:
        bad = next(s for s in doc["steps"] if not s["correct"])
        raise UserError(f"step {bad['step']}: {bad['status']}: {bad['message']}")
    return doc


def cmd_calibrate(args) -> dict:
    from .search.calibration import report

    return report(args.device, reset_it=args.reset)


def show_calibrate(doc: dict) -> str:
    d = doc["device"]
    device = f"{d['name']} ({d['platform']}, driver {d['driver']})"
    if doc["calibration"] is None:
        return (f"{device}: calibration forgotten ({doc['file']}); the next search measures "
                f"it again" if doc.get("reset") else f"{device}: no calibration was kept")
    c = doc["calibration"]
    ceilings = c["ceilings"]
    lines = [f"{device}: {'measured now, ' if doc['measured'] else ''}{doc['file']}",
             f"  {c['candidates']} candidates measured ({c['probes']} probe kernels, "
             f"{c['searches']} searches), updated {c['updated']}",
             "  ceilings: " + ", ".join(f"{k} {v:.4g}" for k, v in ceilings.items()
                                          if v is not None),
             f"  prior: {c['prior_source']}",
             "  weights (ms per unit): " + ", ".join(f"{k} {v:.3g}"
                                                    for k, v in c["weights"].items())]
    return "\n".join(lines)


def _say_calibration(args) -> None:
    """On stderr, before a search that measures its device's calibration first (the first
    guided search on a device): what it measures, so that the wait is not taken for a
    hang."""
    from .search import calibration
    from .search.strategies import CALIBRATED

    if args.strategy in CALIBRATED and calibration.folder() is not None:
        try:
            identity, _ = calibration.device_of(args.device)
        except WorkbenchError:
            return  # the search says what is wrong with the device
        if calibration.load(identity) is None and identity["kind"] in ("cpu", "gpu"):
            print(f"calibrating the cost model on {identity['name']} first (once per device "
                  f"and driver: its ceilings and a few probe kernels)", file=sys.stderr,
                  flush=True)


def cmd_search(args) -> dict:
    from .memory import check_run_memory
    from .search import read, search

    if args.plot:
        check_plot(args.plot)
    name, expr, types, sizes = _concrete(args)
    check_run_memory(expr, sizes, types, device=args.device)  # each candidate is such a run
    logged = {r["key"] for r in read(args.log)} if args.log else set()
    if logged:
        print(f"resuming from {args.log}: it holds {len(logged)} measured candidates (those "
              f"of this device and these inputs are not run again)", file=sys.stderr,
              flush=True)
    _say_calibration(args)
    progress = None
    if not args.json:
        seen = {"n": 0, "best": None}

        def progress(record):
            seen["n"] += 1
            ok = record.measured
            if ok and (seen["best"] is None or record.kernel_ms < seen["best"]):
                seen["best"] = record.kernel_ms
            mark = f"{record.kernel_ms:.4f} ms" if ok else record.status
            if record.key in logged:
                mark += " (from the log)"
            best = "–" if seen["best"] is None else f"{seen['best']:.4f} ms"
            print(f"  [{seen['n']:>{len(str(args.budget))}}/{args.budget}] best {best}; "
                  f"candidate: {mark}", file=sys.stderr, flush=True)
    try:
        result = search(expr, *[str(t) for t in types], strategy=args.strategy,
                        budget=args.budget, device=args.device, log=args.log, seed=args.seed,
                        timeout=args.timeout, workers=args.workers, progress=progress,
                        repeat=args.repeat, sizes=sizes, time_limit=args.time_limit,
                        remeasure=args.remeasure, build_options=args.build_option,
                        seeds=args.seeds)
    except KeyboardInterrupt:
        if args.log:
            held = len(read(args.log))
            raise Interrupted(f"interrupted; {args.log} holds {held} measured candidates: run "
                              f"the same command again to resume") from None
        raise Interrupted("interrupted; nothing was kept (give --log FILE to make a search "
                          "resumable)") from None
    doc = result.as_json()
    doc["name"] = name
    doc["log"] = args.log
    if args.plot:
        from .plots import efficiency_curve

        efficiency_curve(result.log, result.fixed, title=f"{name}: {args.strategy}",
                         path=args.plot)
        doc["plot"] = args.plot
    if result.best is None:
        message = result._explanation() + (f"\nlog: {args.log}" if args.log else "") + (
            f"\nplot: {args.plot} (failures marked on the bottom edge)" if args.plot else "")
        if not args.json:
            raise UserError(message)
        doc["_exit"], doc["_stderr"] = 1, message  # the JSON still says what failed
        return doc
    record = result.best_record
    if record is not None and record.kernel_ms_min is not None:
        doc["best"]["logged_range_ms"] = [record.kernel_ms_min, record.kernel_ms_max]
    from .ceilings import launch_floor

    floor = launch_floor(args.device)  # what the device times reliably, for the note
    doc["best"]["launch_floor_ms"] = floor.median_ms if floor else None
    if result.rates is not None:
        from .rates import rates

        within = rates(result.rates.kernel_ms, result.rates.bytes, result.rates.operations,
                       _ceilings(args.device))
        doc["best"]["rates"] = _rates_json(within)
    derivation, tidy = tidied(result.derivation)
    doc["best"]["markdown"] = derivation.to_markdown()
    doc["best"]["text"] = str(derivation)
    doc["best"]["timing_text"] = result.timing_text
    doc["best"]["rules"] = [line for line in str(derivation).splitlines()
                            if line.lstrip().startswith("(")]
    doc["best"]["layout"] = to_text(derivation.current)
    if tidy:
        doc["best"]["tidied"] = tidy
        doc["best"]["tidied_expression"] = str(derivation.current)
        doc["best"]["tidied_check"] = _check_tidied(derivation, types, sizes, args)
    return doc


# Rules that remove what random walks leave behind without changing what is computed;
# the found kernel is tidied with them before it is reported.
TIDY_RULES = ("iterate-once",)


def tidied(derivation):
    """A copy of ``derivation`` with every walk leftover removed by steps of its own
    (``TIDY_RULES``: ``iterate 1 f → f``), and the rule and place of each such step."""
    from .derivation import Derivation
    from .rules import lookup_rule, rewrites

    d = Derivation.from_json(derivation.to_json())
    done = []
    for _ in range(64):  # each step removes one node: a kernel has fewer
        found = rewrites(d.current, *d.input_types, rules=[lookup_rule(n) for n in TIDY_RULES])
        if not found:
            break
        r = found[0]
        d.apply(r.rule, r.path, **r.params)
        done.append(f"{r.rule} at {format_path(r.path)}")
    return d, done


def _check_tidied(derivation, types, sizes, args) -> str:
    """The tidied kernel run once against the interpreter: what it gives (it computes what
    the kernel found computes, and is checked like every kernel)."""
    from .run import run

    arrays = random_inputs(types, sizes, args.seed, ranges_of(derivation.start))
    result = run(derivation.current, *arrays, device=args.device, repeat=3, sizes=sizes)
    if result.correct:
        return f"checked against the interpreter, {result.kernel_ms:.4f} ms (3 runs)"
    return f"{result.status}: {result.message}"


def show_search(doc: dict) -> str:
    best = doc["best"]
    failures = ", ".join(f"{n} {kind}" for kind, n in doc["failures_by_kind"].items())
    lines = [f"{doc['name']}: {doc['evaluated']} candidates ({doc['strategy']}), "
             f"{doc['seconds']:.1f} s" + (f"; failed or wrong: {failures}" if failures else ""),
             f"best: {best['kernel_ms']:.4f} ms ({best['timing_text']}"
             + (", its runs then {:.4f}–{:.4f} ms".format(*best["logged_range_ms"])
                if best.get("logged_range_ms") else "") + ")"]
    if (best.get("rates") or {}).get("text"):
        lines.append(f"rates: {best['rates']['text']}")
    from .plots import timing_note

    note = timing_note([best["kernel_ms"]], floor_ms=best.get("launch_floor_ms"))
    if note:
        lines.append(note)
    if best.get("build_options"):
        lines.append(f"built with: {' '.join(best['build_options'])} (run it with "
                     + " ".join(f"--build-option={o}" for o in best["build_options"]) + ")")
    if doc["stopped"]:
        lines.append(f"stopped after {doc['evaluated']} of {doc['budget']}: {doc['stopped']}")
    if doc["from_log"]:
        lines.append(f"resumed: {doc['from_log']} of the {doc['evaluated']} candidates were "
                     f"taken from {doc['log']}")
    if doc.get("remeasured"):
        lines.append(f"remeasured: {doc['remeasured']} candidates of {doc['log']} measured "
                     f"again on this device and these inputs")
    if doc.get("seeded"):
        lines.append(f"seeds: {doc['seeded']} candidates of the seeds measured first, on "
                     f"this device")
    if doc.get("time_limit") is not None:
        lines.append(f"time limit: {doc['time_limit']:g} s")
    if doc.get("restarts") or doc.get("lost_seconds"):
        lines.append(f"crashes and time-outs: {doc['restarts']} workers started again, "
                     f"{doc['lost_seconds']:.1f} s lost")
    phases = (doc.get("details") or {}).get("phases")
    if phases:  # the cases strategy: candidates after each phase, and the paper's
        lines.append("phases: " + " → ".join(
            f"{p['phase']} {p['count']}" + (f" (paper {p['paper']})" if p.get("paper") else "")
            for p in phases))
    steps = best.get("rules") or []
    lines += ["", f"derivation ({len(steps)} steps; --json gives every expression):"]
    lines += [f"  {line.strip()}" for line in steps]
    if best.get("tidied"):
        lines.append(f"tidied (walk leftovers removed): {', '.join(best['tidied'])}; "
                     f"{best.get('tidied_check', '')}")
    lines += ["", "best kernel:", best.get("layout") or best["expression"]]
    if doc.get("plot"):
        lines.append(f"plot: {doc['plot']}")
    return "\n".join(lines)


def show_demo(doc: dict) -> str:
    from .studies.demo import show

    return show(doc)


COMMANDS = {"devices": (cmd_devices, show_devices), "demo": (cmd_demo, show_demo),
            "search": (cmd_search, show_search),
            "codegen": (cmd_codegen, show_codegen),
            "run": (cmd_run, show_run), "check": (cmd_check, show_check),
            "eval": (cmd_eval, show_eval),
            "rules": (cmd_rules, show_rules), "apply": (cmd_apply, lambda d: d["result"]),
            "derive": (cmd_derive, show_derive),
            "calibrate": (cmd_calibrate, show_calibrate)}


JSON_HELP = "print one JSON document on stdout instead of text"
SEED_HELP = "seed of the random inputs (default 0: the same inputs every time)"
DEVICE_HELP = "device id (see 'workbench devices'), cpu/gpu, or part of its name"
REPEAT_HELP = "timed runs of the kernel; the median is reported (default %(default)s)"
BUILD_OPTIONS_HELP = ("single-precision-constant, mad-enable, no-signed-zeros, "
                      "unsafe-math-optimizations, finite-math-only, fast-relaxed-math or "
                      "denorms-are-zero (OpenCL's "
                      "-cl-... spelling too, as --build-option=-cl-mad-enable); the kernel is "
                      "still checked against the interpreter")
SIZE_HELP = "NAME=VALUE for a size variable of the input types (repeat for several)"

EXAMPLES = {
    "check": """examples:
  workbench check 'reduce (+) 0 o map abs' --type '[float]_N'
  workbench check @workbench/programs/blas.lift          # every definition of a file
  workbench check @workbench/programs/blas.lift:asum --json""",
    "rules": """examples:
  workbench rules 'reduce (+) 0 o map abs' --type '[float]_4096'
  workbench rules 'map abs' --type '[float]_64' --at root --why
  workbench rules --all                                   # the whole catalogue

A rule that applies with several parameter values is one line listing the values; --json
lists every rewrite as its own object (path, rule, params, result).""",
    "apply": """example:
  workbench apply 'map abs' split-join --at root --param n=128 --type '[float]_N'""",
    "derive": """examples:
  workbench derive workbench/derivations/icfp_fig10_asum.json
  workbench derive workbench/derivations/icfp_fig10_asum.json --latex
  workbench derive workbench/derivations/icfp_fig10_asum.json --lift""",
    "eval": """examples:
  workbench eval 'reduce (+) 0 o map abs' --type '[float]_N' --size N=1024
  workbench eval @workbench/programs/blas.lift:dot --size N=1024 --json

--json keys: name, expression, sizes, seed, inputs (one summary per input), output (a
summary). A summary (a list of them for a tuple) has shape, dtype, size, first (the first
8 values), sum, min and max (numbers only), sha256 (of the values' bytes in C order) and
values (every value): for the output when it has at most 1024 values, for everything with
--full.""",
    "codegen": """examples:
  workbench codegen @workbench/programs/figures.lift:vectorScalLow --size N=8192
  workbench codegen 'map abs' --type '[float]_N' --size N=4096 --complete""",
    "run": """examples:
  workbench run @workbench/programs/blas.lift:dot --size N=1048576
  workbench run 'mapGlobal abs' --type '[float]_N' --size N=4096 --repeat 50 --json""",
    "search": """examples:
  workbench search @workbench/programs/blas.lift:asum --size N=65536 --budget 40 \\
                   --log asum.jsonl --plot asum.png
  workbench search @workbench/programs/blas.lift:scal --size N=4096 --strategy random
  workbench search @workbench/programs/blas.lift:dot --size N=1048576 --time-limit 60

Ctrl-C stops a search; with --log every finished candidate is kept, and the same command
run again resumes (nothing is measured twice). A log says which device and inputs its
times are for: a log of another device or other inputs is refused, unless --remeasure asks
for its candidates to be measured again here. With no correct candidate the command says
so, with the failures counted by kind and the first one's whole message, and exits 1.""",
    "devices": """examples:
  workbench devices
  workbench devices --check          # probe every device again
  PYOPENCL_CTX=0:1 workbench devices # pyopencl's choice, honoured (WORKBENCH_DEVICE wins)
  WORKBENCH_DEVICE=0:0 workbench run 'mapGlobal abs' --type '[float]_N' --size N=64""",
    "calibrate": """examples:
  workbench calibrate                    # the default device's, measured first if none is kept
  workbench calibrate --device 2:0 --json
  workbench calibrate --reset            # forget it: the next search measures it again

The guided search's cost model is calibrated per device (name, platform and driver) and
kept in the user's cache (WORKBENCH_CALIBRATIONS names another folder, or off): measured at
the first search on a device (its ceilings and a few probe kernels), then fitted again to
the candidates of every search there.""",
    "demo": """examples:
  workbench demo
  workbench demo --derivation workbench/derivations/icfp_fig10_asum.json --size N=65536""",
}


def _parser(sub, name: str, help: str):
    return sub.add_parser(name, help=help, description=help[:1].upper() + help[1:] + ".",
                          epilog=EXAMPLES.get(name),
                          formatter_class=argparse.RawDescriptionHelpFormatter)


def _expression_command(sub, name: str, help: str, sizes: bool = False,
                        type_help: str = "input type (repeat for several inputs)",
                        optional: bool = False):
    """A subcommand on an EXPR, with --type (and --size) and --json."""
    cmd = _parser(sub, name, help)
    cmd.add_argument("expr", help="expression text or @FILE[:NAME]",
                     **({"nargs": "?"} if optional else {}))
    cmd.add_argument("--type", action="append", default=[], help=type_help)
    if sizes:
        cmd.add_argument("--size", action="append", default=[], help=SIZE_HELP)
    cmd.add_argument("--json", action="store_true", help=JSON_HELP)
    return cmd


def build_parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="workbench", description="Derive OpenCL kernels from functional expressions.",
        epilog="'workbench COMMAND --help' shows a command's options and examples.")
    top.add_argument("--version", action="version", version=f"workbench {package_version()}")
    sub = top.add_subparsers(dest="command", required=True)

    dev = _parser(sub, "devices", "OpenCL devices, each probed (ok / broken: reason); the "
                  "default marked *")
    dev.add_argument("--check", action="store_true",
                     help="probe every device again instead of using remembered answers")
    dev.add_argument("--json", action="store_true", help=JSON_HELP)

    cg = _expression_command(sub, "codegen", "OpenCL source and launch plan", sizes=True)
    cg.add_argument("--complete", action="store_true",
                    help="lower what is still high-level with the default completion first")

    rn = _expression_command(sub, "run", "run on a device, check against the interpreter, "
                             "time", sizes=True)
    rn.add_argument("--device", help=DEVICE_HELP)
    rn.add_argument("--repeat", type=int, default=20, help=REPEAT_HELP)
    rn.add_argument("--seed", type=int, default=0, help=SEED_HELP)
    rn.add_argument("--build-option", action="append", default=None, metavar="OPTION",
                    help="build with this OpenCL math option (repeat for several): "
                    + BUILD_OPTIONS_HELP)

    ck = _expression_command(sub, "check", "parse and type-check; print normal form and type",
                             type_help="input type (repeat for several inputs) or a whole "
                                       "function type")
    ck.add_argument("--lift", action="store_true",
                    help="print the expression in Lift's spelling (Join() o MapWrg(...))")

    ev = _expression_command(sub, "eval", "run the interpreter on random inputs", sizes=True)
    ev.add_argument("--seed", type=int, default=0, help=SEED_HELP)
    ev.add_argument("--full", action="store_true",
                    help="with --json: every value of the inputs and the output, not only "
                    "their summaries")

    rl = _expression_command(sub, "rules", "every applicable rewrite: path, rule, params, "
                             "result", optional=True)
    rl.add_argument("--at", help="only at this node path (e.g. 1.0; 'root' for the root)")
    rl.add_argument("--why", action="store_true",
                    help="with --at: also say why each other rule is refused there")
    rl.add_argument("--all", action="store_true",
                    help="list the whole rule catalogue (no EXPR needed)")

    ap = _expression_command(sub, "apply", "apply one rewrite and print the result")
    ap.add_argument("rule", help="rule name (see 'workbench rules --all')")
    ap.add_argument("--at", required=True, help="node path ('root', 0, 1.0.2, ...)")
    ap.add_argument("--param", action="append", default=[], help="NAME=VALUE rule parameter")

    from .search import DEFAULT_STRATEGY, STRATEGIES

    se = _expression_command(sub, "search", "search for the fastest correct kernel",
                             sizes=True)
    se.add_argument("--device", help=DEVICE_HELP)
    se.add_argument("--strategy", default=DEFAULT_STRATEGY, choices=sorted(STRATEGIES),
                    help="how candidates are chosen (default %(default)s: the descent of "
                    "ICFP 2015 guided by the device's cost model)")
    se.add_argument("--budget", type=int, default=40,
                    help="candidates to measure, a resumed log's among them (default "
                    "%(default)s)")
    se.add_argument("--time-limit", type=float, default=None, metavar="SECONDS",
                    help="stop the search after this many seconds, with what it found")
    se.add_argument("--log", help="JSON-lines log: every candidate as it finishes; an "
                    "existing log of this device and these inputs is resumed")
    se.add_argument("--remeasure", action="store_true",
                    help="a log of another device or other inputs: measure its candidates "
                    "again here and go on (without it such a log is refused)")
    se.add_argument("--seeds", action="append", metavar="LOG",
                    help="a search log of another device, driver or version whose best "
                    "candidates are measured here first (never taken as this device's "
                    "times); may be given several times")
    se.add_argument("--plot", help="write the efficiency curve (ICFP Fig. 12) to this file")
    se.add_argument("--seed", type=int, default=0,
                    help="seed of the strategy's random choices and of the inputs (default 0)")
    se.add_argument("--repeat", type=int, default=10, help=REPEAT_HELP)
    se.add_argument("--timeout", type=float, default=60.0,
                    help="seconds per candidate (default %(default)s)")
    se.add_argument("--workers", type=int, default=None,
                    help="worker processes (default: up to 4, one per core)")
    se.add_argument("--build-option", action="append", default=None, metavar="OPTION",
                    help="allow the search to build its best kernels with this OpenCL math "
                    "option (repeat for several; none unless given): " + BUILD_OPTIONS_HELP)

    dm = _parser(sub, "demo", "a derivation end to end on the default device: every step "
                 "run, checked and timed")
    dm.add_argument("--derivation", help="a saved derivation (JSON) to replay instead of "
                    "ICFP Fig. 3's vector scaling")
    dm.add_argument("--size", action="append", default=[], help="NAME=VALUE (default N=2^20)")
    dm.add_argument("--device", help=DEVICE_HELP)
    dm.add_argument("--repeat", type=int, default=10, help=REPEAT_HELP)
    dm.add_argument("--json", action="store_true", help=JSON_HELP)

    ca = _parser(sub, "calibrate", "the cost model's calibration of a device: where it is "
                 "kept, what it measured, its weights")
    ca.add_argument("--device", help=DEVICE_HELP)
    ca.add_argument("--reset", action="store_true",
                    help="forget the device's calibration (the next search measures it again)")
    ca.add_argument("--json", action="store_true", help=JSON_HELP)

    dv = _parser(sub, "derive", "replay a saved derivation and check every step")
    dv.add_argument("file", help="a derivation saved as JSON")
    form = dv.add_mutually_exclusive_group()
    form.add_argument("--markdown", action="store_true", help="print it as a Markdown table")
    form.add_argument("--latex", action="store_true", help="print it as LaTeX (align*)")
    form.add_argument("--lift", action="store_true",
                      help="print the derived expression as a Lift program")
    dv.add_argument("--json", action="store_true", help=JSON_HELP)
    return top


def check_seed(seed: int | None) -> None:
    """``--seed`` (of the random inputs, and of a search's strategy) is at least 0."""
    if seed is not None and seed < 0:
        raise UserError(f"--seed {seed}: give a whole number of at least 0 (the seed of the "
                        f"random inputs)")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    run, show = COMMANDS[args.command]
    try:
        check_seed(getattr(args, "seed", None))
        doc = run(args)
    except Interrupted as err:
        print(f"workbench {args.command}: {err}", file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        print(f"workbench {args.command}: interrupted", file=sys.stderr)
        return 130
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
    try:
        print(json.dumps(doc_json, indent=2, ensure_ascii=False) if args.json else show(doc),
              flush=True)
    except BrokenPipeError:  # e.g. `workbench rules ... | head`: the reader has enough
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    if isinstance(doc, dict) and doc.get("_stderr"):
        print(f"workbench {args.command}: {doc['_stderr']}", file=sys.stderr)
    return doc.get("_exit", 0) if isinstance(doc, dict) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

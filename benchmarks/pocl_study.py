"""Hand-written OpenCL BLAS kernels on each PoCL CPU device, beside NumPy and the search's winners

What the search must reach on each PoCL (PyPI's 3.0, Debian's 3.1), and where it falls short
(issue 43).

The variants are the shapes that matter on a CPU: one work-item per element or per vector
(the driver choosing the work-groups), a few work-items each owning a long contiguous chunk
(work-groups of one work-item, so that each is a task of its own on PoCL's threads) with
vector loads of 4, 8 or 16 floats and vector accumulators, a GPU-style reduction in local
memory, and for gemv one work-item per row (or per four rows) in work-groups of 1 to 64.
Every kernel runs through the workbench's own runtime (``runtime.run_kernels``: huge-page
host arrays used in place, OpenCL profiling events, the device held alone), is checked
against NumPy, and is timed in rounds interleaved with NumPy's and with each other's; a time
is the median of the rounds' medians. The kernels read and write vectors through vector
pointers and call no built-in function on them (PoCL 3.0 from PyPI aborts on float16
built-ins on an AVX-512 CPU, not on float16 code); widths a device's probe refused are not
run there.

    python -m benchmarks.pocl_study                        # both PoCLs, 2^24 floats, 4096²
    python -m benchmarks.pocl_study --quick                # 2^20 floats, 1024², fewer rounds
    python -m benchmarks.pocl_study --search               # also a default search (budget 40)
                                                           # on each, its winner timed beside
    python -m benchmarks.pocl_study --programs gemv --devices 2:0
    python -m benchmarks.pocl_study --search --options blocked_first=true   # other options

Prints a table per device; writes benchmarks/results/pocl_study[_quick].json (and .md).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.search_speed import strategy_options
from benchmarks.timing import host_spread

RESULTS = Path(__file__).parent / "results"
PROGRAMS = ("scal", "asum", "dot", "gemv")
FULL = {"n": 1 << 24, "rows": 4096, "rounds": 5, "repeat": 10}
QUICK = {"n": 1 << 20, "rows": 1024, "rounds": 3, "repeat": 5}


@dataclass(frozen=True)
class Variant:
    """A hand-written kernel (or kernels, run one after the other): its name, the shape it
    has in words, its source and its launches ``(kernel, global, local)``; the arguments of
    every kernel are the program's inputs, then ``out`` (and ``part`` between two kernels)."""

    name: str
    shape: str
    source: str
    launches: tuple[tuple[str, tuple[int, ...], tuple[int, ...] | None], ...]
    width: int = 1  # the widest float vector it uses


# --- the kernels ------------------------------------------------------------------------------

def horizontal_sum(var: str, width: int) -> str:
    """OpenCL C for the sum of a float vector's lanes, halving it (``v.lo + v.hi``)."""
    if width == 1:
        return var
    if width == 2:
        return f"({var}.x + {var}.y)"
    return horizontal_sum(f"({var}.lo + {var}.hi)", width // 2)


def vec(width: int) -> str:
    return "float" if width == 1 else f"float{width}"


def absolute(x: str, width: int, how: str) -> str:
    """|x| by ``fabs`` or by masking the sign bit (PoCL 3.0 ran fabs ~10x slower)."""
    if how == "fabs":
        return f"fabs({x})"
    u = "uint" if width == 1 else f"uint{width}"
    return f"as_{vec(width)}(as_{u}({x}) & 0x7fffffffu)"


def scal_variants(n: int, widths: tuple[int, ...]) -> list[Variant]:
    out = [Variant("item", "one element per work-item, driver's work-groups", """
kernel void k(global const float *restrict a, global const float *restrict x,
              global float *restrict out) {
    size_t i = get_global_id(0);
    out[i] = a[0] * x[i];
}""", (("k", (n,), None),)),
           Variant("item-loop", "one element per work-item in a loop each work-item runs once "
                   "(as the code generator wrote a global map before)", f"""
kernel void k(global const float *restrict a, global const float *restrict x,
              global float *restrict out) {{
    for (int i = get_global_id(0); i < {n}; i += {n}) out[i] = a[0] * x[i];
}}""", (("k", (n,), None),)),
           Variant("strided16", f"{n // 16} work-items (the code generator's most), 16 elements "
                   "each a work-item's global size apart, driver's work-groups", f"""
kernel void k(global const float *restrict a, global const float *restrict x,
              global float *restrict out) {{
    for (int i = get_global_id(0); i < {n}; i += {n // 16}) out[i] = a[0] * x[i];
}}""", (("k", (n // 16,), None),))]
    for w in widths:
        t = vec(w)
        out.append(Variant(f"item-f{w}", f"one {t} per work-item, driver's work-groups", f"""
kernel void k(global const float *restrict a, global const {t} *restrict x,
              global {t} *restrict out) {{
    size_t i = get_global_id(0);
    out[i] = a[0] * x[i];
}}""", (("k", (n // w,), None),), w))
        if w <= 8:  # through the built-ins (PoCL 3.0 refuses float16 ones on some CPUs)
            out.append(Variant(f"item-f{w}-vload", f"one {t} per work-item by vload{w} and "
                               f"vstore{w} (as the code generator writes loads of fewer "
                               "than 8 lanes and an output's stores)", f"""
kernel void k(global const float *restrict a, global const float *restrict x,
              global float *restrict out) {{
    size_t i = get_global_id(0);
    vstore{w}(a[0] * vload{w}(i, x), i, out);
}}""", (("k", (n // w,), None),), w))
        if w <= 8:  # loads through pointers, stores through the built-in
            out.append(Variant(f"item-f{w}-vstore", f"one {t} per work-item, read through a "
                               f"pointer, stored by vstore{w} (as the code generator wrote an "
                               "output's stores before)", f"""
kernel void k(global const float *restrict a, global const {t} *restrict x,
              global float *restrict out) {{
    size_t i = get_global_id(0);
    vstore{w}(a[0] * x[i], i, out);
}}""", (("k", (n // w,), None),), w))
        for items in (2, 16, 256):
            per = n // w // items
            out.append(Variant(f"chunks{items}-f{w}", f"{items} work-items (groups of 1), "
                               f"a chunk of {per} {t} each", f"""
kernel void k(global const float *restrict a, global const {t} *restrict x,
              global {t} *restrict out) {{
    size_t start = get_global_id(0) * {per};
    float s = a[0];
    for (size_t i = start; i < start + {per}; i++) out[i] = s * x[i];
}}""", (("k", (items,), (1,)),), w))
    return out


def reduction_variants(name: str, n: int, widths: tuple[int, ...]) -> list[Variant]:
    """asum (``name == "asum"``) or dot: a first kernel of partial sums, then one work-item
    adding them."""
    args = "global const {t} *restrict x" + (", global const {t} *restrict y"
                                              if name == "dot" else "")

    def term(i: str, w: int, how: str = "mask") -> str:
        return f"x[{i}] * y[{i}]" if name == "dot" else absolute(f"x[{i}]", w, how)

    def two_pass(items: int, w: int, accumulators: int, local: int, how: str = "mask"
                 ) -> tuple[str, tuple]:
        t = vec(w)
        per = n // w // items
        accs = "".join(f"    {t} acc{j} = ({t})(0.0f);\n" for j in range(accumulators))
        adds = "".join(f"        acc{j} += {term(f'i + {j}', w, how)};\n"
                       for j in range(accumulators))
        total = " + ".join(f"acc{j}" for j in range(accumulators))
        source = f"""
kernel void part({args.format(t=t)}, global float *restrict part) {{
    size_t start = get_global_id(0) * {per};
{accs}    for (size_t i = start; i < start + {per}; i += {accumulators}) {{
{adds}    }}
    {t} acc = {total};
    part[get_global_id(0)] = {horizontal_sum("acc", w)};
}}
kernel void total(global const float *restrict part, global float *restrict out) {{
    float s = 0.0f;
    for (int i = 0; i < {items}; i++) s += part[i];
    out[0] = s;
}}"""
        return source, (("part", (items,), (local,)), ("total", (1,), (1,)))

    out = []
    scalar_source, scalar_launches = two_pass(16, 1, 1, 1)
    out.append(Variant("chunks16-f1", "16 work-items, a scalar accumulator each",
                       scalar_source, scalar_launches))
    for w in widths:
        for items in (2, 16, 64, 256):
            src, launches = two_pass(items, w, 1, 1)
            out.append(Variant(f"chunks{items}-f{w}", f"{items} work-items (groups of 1), "
                               f"one float{w} accumulator each", src, launches, w))
        src, launches = two_pass(16, w, 4, 1)
        out.append(Variant(f"chunks16-f{w}x4", f"16 work-items (groups of 1), four float{w} "
                           "accumulators each", src, launches, w))
        src, launches = two_pass(256, w, 1, 16)
        out.append(Variant(f"chunks256-f{w}-g16", f"256 work-items in groups of 16, one "
                           f"float{w} accumulator each", src, launches, w))
    if name == "asum":
        w = max(x for x in widths if x <= 8)
        src, launches = two_pass(16, w, 1, 1, "fabs")
        out.append(Variant(f"chunks16-f{w}-fabs", f"16 work-items, float{w}, |x| by fabs",
                           src, launches, w))
    groups, size = 64, 128
    out.append(Variant("gpu-tree", f"{groups} groups of {size}, grid-stride loads, a tree "
                       "in local memory (GPU style)", f"""
kernel void part({args.format(t="float")}, global float *restrict part) {{
    local float tree[{size}];
    size_t l = get_local_id(0);
    float acc = 0.0f;
    for (size_t i = get_global_id(0); i < {n}; i += {groups * size}) acc += {term("i", 1)};
    tree[l] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = {size // 2}; s > 0; s >>= 1) {{
        if (l < s) tree[l] += tree[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }}
    if (l == 0) part[get_group_id(0)] = tree[0];
}}
kernel void total(global const float *restrict part, global float *restrict out) {{
    float s = 0.0f;
    for (int i = 0; i < {groups}; i++) s += part[i];
    out[0] = s;
}}""", (("part", (groups * size,), (size,)), ("total", (1,), (1,)))))
    return out


def gemv_variants(rows: int, cols: int, widths: tuple[int, ...]) -> list[Variant]:
    head = ("global const {t} *restrict mat, global const {t} *restrict xs, "
            "global const float *restrict ys, global const float *restrict alpha, "
            "global const float *restrict beta, global float *restrict out")

    def per_row(w: int, block: int) -> str:
        t = vec(w)
        cv = cols // w
        accs = "".join(f"    {t} acc{r} = ({t})(0.0f);\n" for r in range(block))
        adds = "".join(f"        acc{r} += mat[(row + {r}) * {cv} + j] * x;\n"
                       for r in range(block))
        stores = "".join(f"    out[row + {r}] = alpha[0] * {horizontal_sum(f'acc{r}', w)} "
                         f"+ beta[0] * ys[row + {r}];\n" for r in range(block))
        return f"""
kernel void k({head.format(t=t)}) {{
    size_t row = get_global_id(0) * {block};
{accs}    for (size_t j = 0; j < {cv}; j++) {{
        {t} x = xs[j];
{adds}    }}
{stores}}}"""

    out = [Variant("row-f1", "one row per work-item, scalar, driver's work-groups",
                   per_row(1, 1), (("k", (rows,), None),))]
    for w in widths:
        for local in (None, 1, 16, 64):
            out.append(Variant(f"row-f{w}-g{local or 'driver'}", f"one row per work-item, "
                               f"float{w}, groups of {local or 'the driver'}", per_row(w, 1),
                               (("k", (rows,), None if local is None else (local,)),), w))
        out.append(Variant(f"rows4-f{w}-g1", f"four rows per work-item, float{w}, groups of "
                           "1", per_row(w, 4), (("k", (rows // 4,), (1,)),), w))
    size = 64
    out.append(Variant("gpu-group-per-row", f"a group of {size} per row, a tree in local "
                       "memory (GPU style)", f"""
kernel void k({head.format(t="float")}) {{
    local float tree[{size}];
    size_t row = get_group_id(0), l = get_local_id(0);
    float acc = 0.0f;
    for (size_t j = l; j < {cols}; j += {size}) acc += mat[row * {cols} + j] * xs[j];
    tree[l] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = {size // 2}; s > 0; s >>= 1) {{
        if (l < s) tree[l] += tree[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }}
    if (l == 0) out[row] = alpha[0] * tree[0] + beta[0] * ys[row];
}}""", (("k", (rows * size,), (size,)),)))
    return out


def variants(name: str, sizes: dict, widths: tuple[int, ...]) -> list[Variant]:
    n, rows = sizes["n"], sizes["rows"]
    if name == "scal":
        return scal_variants(n, widths)
    if name == "gemv":
        return gemv_variants(rows, rows, widths)
    return reduction_variants(name, n, widths)


# --- inputs, NumPy, checks --------------------------------------------------------------------

def inputs(name: str, sizes: dict) -> dict[str, np.ndarray]:
    """The kernels' inputs by argument name (seed 0), scalars as one-element arrays."""
    rng = np.random.default_rng(0)
    n, rows = sizes["n"], sizes["rows"]

    def floats(*shape):
        return rng.uniform(-1, 1, shape).astype(np.float32)

    if name == "scal":
        return {"a": np.array([1.5], np.float32), "x": floats(n)}
    if name == "asum":
        return {"x": floats(n)}
    if name == "dot":
        return {"x": floats(n), "y": floats(n)}
    return {"mat": floats(rows, rows), "xs": floats(rows), "ys": floats(rows),
            "alpha": np.array([1.5], np.float32), "beta": np.array([0.5], np.float32)}


def numpy_call(name: str, args: dict):
    """NumPy's computation (OpenBLAS for dot and gemv), as benchmarks.search times it."""
    if name == "scal":
        a, x = args["a"][0], args["x"]
        out = np.empty_like(x)
        return lambda: np.multiply(x, a, out=out)
    if name == "asum":
        return lambda: np.abs(args["x"]).sum()
    if name == "dot":
        return lambda: np.dot(args["x"], args["y"])
    mat, xs, ys = args["mat"], args["xs"], args["ys"]
    alpha, beta = args["alpha"][0], args["beta"][0]
    return lambda: alpha * (mat @ xs) + beta * ys


def expected(name: str, args: dict) -> np.ndarray:
    """The exact answer (in float64) a kernel's output is checked against."""
    d = {k: v.astype(np.float64) for k, v in args.items()}
    if name == "scal":
        return d["a"][0] * d["x"]
    if name == "asum":
        return np.array([np.abs(d["x"]).sum()])
    if name == "dot":
        return np.array([d["x"] @ d["y"]])
    return d["alpha"][0] * (d["mat"] @ d["xs"]) + d["beta"][0] * d["ys"]


def bytes_moved(name: str, sizes: dict) -> int:
    n, rows = sizes["n"], sizes["rows"]
    return {"scal": 8 * n, "asum": 4 * n, "dot": 8 * n,
            "gemv": 4 * rows * rows + 12 * rows}[name]


def correct(out: np.ndarray, want: np.ndarray) -> bool:
    scale = max(1.0, float(np.abs(want).max()))
    return bool(np.allclose(out.astype(np.float64), want, rtol=1e-3, atol=1e-3 * scale))


# --- timing -----------------------------------------------------------------------------------

@dataclass
class Timed:
    """A kernel as the rounds time it: a hand-written one (``source`` and ``launches``) or a
    search's winner (``expr``, run as ``workbench.run`` runs it)."""

    name: str
    shape: str
    source: str = ""
    launches: tuple = ()
    width: int = 1
    expr: object = None
    status: str = "ok"
    samples: list | None = None


def run_hand_written(device: str, k: Timed, args: dict, want: np.ndarray, repeat: int
                     ) -> float | str:
    """One timing of a hand-written kernel (ms), or why it has none: its kernels take the
    inputs, then ``part`` (the partial sums, written by ``part`` and read by ``total``) and
    ``out``."""
    from workbench.runtime import Launch, run_kernels

    inputs = tuple(args)
    launches = [Launch(kernel, size, local, inputs + ("part",) if kernel == "part" else
                       ("part", "out") if kernel == "total" else inputs + ("out",))
                for kernel, size, local in k.launches]
    scratch = {"part": ((4096,), np.float32)} if any(l.kernel == "part" for l in launches) \
        else {}
    outcome = run_kernels(k.source, launches, args, {"out": ((len(want),), np.float32)},
                          scratch, device=device, repeat=repeat)
    if not outcome.ok:
        return f"{outcome.status}: {(outcome.message or '').splitlines()[:1]}"
    return outcome.kernel.median_ms if correct(outcome.value["out"], want) else "wrong result"


def run_winner(device: str, k: Timed, name: str, sizes: dict, want: np.ndarray, repeat: int
               ) -> float | str:
    """One timing of a search's winner, by ``workbench.run`` (checked against ``want``)."""
    from workbench.run import run

    result = run(k.expr, *search_inputs(name, sizes), device=device, repeat=repeat,
                 expected=want.astype(np.float32))
    if not result.correct:
        return f"{result.status}: {result.message.splitlines()[:1]}"
    return result.kernel_ms


def time_rounds(device: str, name: str, kernels: list[Timed], sizes: dict, args: dict,
                log=print) -> dict:
    """NumPy and the kernels, one after the other in each of the rounds: each kernel's
    samples are the rounds' medians (a kernel that fails or computes wrong is dropped with
    its reason)."""
    want = expected(name, args)
    call = numpy_call(name, args)
    numpy_rounds = []
    for k in kernels:
        k.samples = []
    for _ in range(sizes["rounds"]):
        numpy_rounds.append(host_spread(call, sizes["repeat"]).median_ms)
        for k in kernels:
            if k.status != "ok":
                continue
            got = run_winner(device, k, name, sizes, want, sizes["repeat"]) \
                if k.expr is not None else \
                run_hand_written(device, k, args, want, sizes["repeat"])
            if isinstance(got, str):
                k.status = got
                log(f"    {k.name}: {got}")
            else:
                k.samples.append(got)
    return {"numpy_ms": statistics.median(numpy_rounds), "numpy_rounds": numpy_rounds}


# --- the search's winner ----------------------------------------------------------------------

def search_winner(name: str, sizes: dict, device: str, budget: int, log=print,
                  options: dict | None = None) -> dict:
    """A default search (budget ``budget``; the guided strategy's ``options`` where given)
    on the device: its winner's expression, derivation, kernel source and launches, and how
    long the search took."""
    from workbench.programs import library
    from workbench.search import search

    start = time.time()
    result = search(library("blas")[name], *search_inputs(name, sizes), budget=budget,
                    device=device, options=options)
    took = time.time() - start
    if result.best is None:
        return {"status": result.outcome, "search_s": took}
    log(f"  search {name} on {device}: {result.best_kernel_ms:.3f} ms in {took:.0f} s")
    return {"status": "ok", "expr": result.best, "expression": str(result.best),
            "steps": result.best_record.steps, "logged_ms": result.best_kernel_ms,
            "search_s": took, "evaluated": len(result.records), **kernel_of(result.best,
                                                                          name, sizes)}


def kernel_of(expr, name: str, sizes: dict) -> dict:
    """A kernel's OpenCL source and launches ``(kernel, global, local)``."""
    from workbench.codegen.program import opencl
    from workbench.run import runtime_launches
    from workbench.semantics import prepare_inputs

    _, types = prepare_inputs(expr, search_inputs(name, sizes))
    program = opencl(expr, *types, complete=True)
    return {"source": program.source,
            "launches": [(l.kernel, list(l.global_size), l.local_size and list(l.local_size))
                         for l in runtime_launches(program)]}


def search_inputs(name: str, sizes: dict) -> list:
    """The program's inputs in the order of its parameters, scalars as NumPy scalars."""
    a = inputs(name, sizes)
    if name == "scal":
        return [np.float32(a["a"][0]), a["x"]]
    if name == "gemv":
        return [a["mat"], a["xs"], a["ys"], np.float32(a["alpha"][0]), np.float32(a["beta"][0])]
    return list(a.values())


# --- the study --------------------------------------------------------------------------------

def pocl_devices(asked: list[str] | None) -> list:
    from workbench.device.opencl import devices

    return [d for d in devices() if d.is_pocl and d.ok and (not asked or d.id in asked)]


def study(name: str, info, sizes: dict, search: bool, budget: int, log=print,
          options: dict | None = None) -> dict:
    """The hand-written kernels of one program on one device (and the search's winner),
    timed beside NumPy."""
    args = inputs(name, sizes)
    widths = tuple(w for w in (4, 8, 16) if w in info.vector_widths)
    kernels = [Timed(v.name, v.shape, v.source, v.launches, v.width)
               for v in variants(name, sizes, widths)]
    found = search_winner(name, sizes, info.id, budget, log, options) if search else None
    if found and found["status"] == "ok":
        kernels.append(Timed("search winner", "the default search's best", expr=found["expr"]))
    log(f"  {name} on {info.id}: {len(kernels)} kernels and NumPy in {sizes['rounds']} rounds")
    peer = time_rounds(info.id, name, kernels, sizes, args, log)
    moved = bytes_moved(name, sizes)
    rows = []
    for k in kernels:
        ms = statistics.median(k.samples) if k.samples and k.status == "ok" else None
        rows.append({"variant": k.name, "shape": k.shape, "width": k.width, "ms": ms,
                     "status": k.status, "gb_per_s": moved / ms / 1e6 if ms else None,
                     "vs_numpy": peer["numpy_ms"] / ms if ms else None,
                     "rounds_ms": k.samples})
    hand = [r for r in rows if r["ms"] and r["variant"] != "search winner"]
    best = min(hand, key=lambda r: r["ms"]) if hand else None
    entry = {"numpy_ms": peer["numpy_ms"], "numpy_gb_per_s": moved / peer["numpy_ms"] / 1e6,
             "numpy_rounds_ms": peer["numpy_rounds"], "variants": rows,
             "best_hand_written": best and best["variant"],
             "best_hand_written_vs_numpy": best and best["vs_numpy"]}
    if found:
        won = next((r for r in rows if r["variant"] == "search winner" and r["ms"]), None)
        entry["search"] = {**{k: v for k, v in found.items() if k != "expr"},
                           "vs_numpy": won and won["vs_numpy"],
                           "vs_hand_written": won and best and best["ms"] / won["ms"]}
    return entry


def table(doc: dict) -> str:
    lines = [f"# PoCL study: hand-written kernels beside NumPy ({doc['sizes_text']})", "",
             "Kernel times by OpenCL events, NumPy by the host clock; each the median of "
             f"{doc['sizes']['rounds']} interleaved rounds' medians. Written by "
             "`python -m benchmarks.pocl_study`.", ""]
    for dev in doc["devices"]:
        lines += [f"## {dev['device']}", "", dev["note"], "",
                  "| program | kernel | shape | ms | GB/s | × NumPy |", "|---|---|---|---|---|---|"]
        for name, entry in dev["programs"].items():
            lines.append(f"| {name} | NumPy | | {entry['numpy_ms']:.3f} | "
                         f"{entry['numpy_gb_per_s']:.1f} | 1.00 |")
            for r in sorted(entry["variants"], key=lambda r: r["ms"] or 1e9):
                if r["ms"] is None:
                    lines.append(f"| {name} | {r['variant']} | {r['shape']} | {r['status']} "
                                 "| | |")
                else:
                    lines.append(f"| {name} | {r['variant']} | {r['shape']} | {r['ms']:.3f} | "
                                 f"{r['gb_per_s']:.1f} | {r['vs_numpy']:.2f} |")
        lines.append("")
    return "\n".join(lines) + "\n"


def device_note(info) -> str:
    """Which PoCL it is and what that means for speed (``workbench devices`` says the same)."""
    from workbench.device.opencl import pocl_build

    return pocl_build(info)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2^20 floats, 1024², 3 rounds")
    parser.add_argument("--programs", nargs="*", default=list(PROGRAMS), choices=PROGRAMS)
    parser.add_argument("--devices", nargs="*", default=None, help="device ids (default: "
                        "every PoCL device that works)")
    parser.add_argument("--search", action="store_true", help="also a default search on each "
                        "device, its winner timed beside the hand-written kernels")
    parser.add_argument("--budget", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--options", default="", help="the search's strategy options, "
                        "name=value,... (default: none, the defaults)")
    parser.add_argument("--out", default=None, help="results file (default: "
                        "benchmarks/results/pocl_study[_quick].json)")
    args = parser.parse_args(argv)
    sizes = dict(QUICK if args.quick else FULL)
    if args.rounds:
        sizes["rounds"] = args.rounds
    doc = {"sizes": sizes, "sizes_text": f"{sizes['n']} floats, gemv {sizes['rows']}²",
           "options": strategy_options(args.options),
           "host": platform.node(), "cpu": _cpu_model(), "devices": []}
    for info in pocl_devices(args.devices):
        print(f"{info.describe()}: vectors of {', '.join(map(str, info.vector_widths))}")
        dev = {"device": info.describe(), "id": info.id, "vector_widths": info.vector_widths,
               "note": device_note(info), "programs": {}}
        for name in args.programs:
            dev["programs"][name] = study(name, info, sizes, args.search, args.budget,
                                          options=strategy_options(args.options) or None)
        doc["devices"].append(dev)
    out = Path(args.out) if args.out else \
        RESULTS / f"pocl_study{'_quick' if args.quick else ''}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1) + "\n")
    out.with_suffix(".md").write_text(table(doc))
    print(table(doc))
    print(f"written to {out}")
    return doc


def _cpu_model() -> str:
    """The host CPU's model name, family and model (from /proc/cpuinfo)."""
    fields = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if not line.strip():
                    break  # the first processor
                key, _, value = line.partition(":")
                fields[key.strip()] = value.strip()
    except OSError:
        return platform.processor()
    return (f"{fields.get('model name')} (family {fields.get('cpu family')}, model "
            f"{fields.get('model')})")


if __name__ == "__main__":
    main()

"""SkelCL's 3×3 blur beside a copy of its bytes (issue 43: on a GPU the blur should move its
bytes at 90 % of the bandwidth of a copy): in one process on one device, timed in the same
interleaved rounds, each checked against NumPy first:

- copies of the bytes the blur must move (its image read once, its result written once):
  float4 a work-item in groups of 256, the STREAM-like copy of ``benchmarks.search`` and, on
  an NVIDIA GPU, CuPy's;
- derived kernels: the guided search's best (a fresh default search, in a calibration
  folder of its own, as a device's first search runs), the default mapping (a row a
  work-item), the grids the guided search measures first (``search.grids``: a point a
  work-item, or 2, 4, 8 rows of a column), the point grid on 2-D work-groups of several
  shapes (``tile-split-join`` onto ``mapWorkgroup``/``mapLocal``), with and without several
  rows per work-item;
- hand-written kernels of the designs that move a stencil's bytes at a copy's speed on GPUs:
  2-D work-groups whose rows read coalesced, one output per work-item (its 9 loads hit the
  cache), several outputs per work-item along y with the three rows it reads slid through
  registers (3 loads per output, not 9; also with every load unconditional, its index
  clamped and the value replaced by 0 outside the image after it, and with the groups
  inside the image reading unchecked), float4 along x with the rows slid, and a tile with
  its halo in local memory.

Prints a table (ms, GB/s, share of the fastest copy) and writes the results as JSON.

    python -m benchmarks.blur_study --json blur_study_gpu.json               # 4096², the GPU
    python -m benchmarks.blur_study --size 64 --device 1:0 --search 0 --json F  # PoCL, small
    python -m benchmarks.blur_study --only "rows slid" --shapes 128x2 --json F    # fewer

On the H200 (benchmarks/results/blur_study_h200.md) the rows slid through registers, 8 a
work-item on groups of 128x2, took 0.0433 ms where a copy of the same bytes took 0.0363.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from benchmarks.timing import Spread, pooled

SHAPES = ((32, 4), (32, 8), (64, 4), (128, 2), (256, 1))  # work-groups (x, y)
ROWS = (2, 4, 8)  # outputs per work-item along y in the derived kernels


# --- the program and its reference -------------------------------------------------------------

def inputs(size: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """An image of ``size``² floats in [0, 1) and 9 weights that sum to 1."""
    rng = np.random.default_rng(seed)
    image = rng.random((size, size), dtype=np.float32)
    weights = rng.random(9, dtype=np.float32)
    return image, (weights / weights.sum()).astype(np.float32)


def reference(image: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The blur by NumPy: each pixel the weighted sum of its 3×3 neighbourhood, neighbours
    outside the image 0 (SkelCL's out-of-bound value)."""
    n, m = image.shape
    padded = np.pad(image.astype(np.float64), 1)
    out = np.zeros((n, m))
    for i in range(3):
        for j in range(3):
            out += float(weights[3 * i + j]) * padded[i:i + n, j:j + m]
    return out.astype(np.float32)


def moved_bytes(size: int) -> int:
    """The bytes the blur must move at least: its image read once, its result written."""
    return 8 * size * size


# --- hand-written kernels ----------------------------------------------------------------------

# A neighbour of the image, 0 outside it; the weights in registers.
COMMON = """
#define AT(r, c) (((r) >= 0 && (r) < N && (c) >= 0 && (c) < N) ? in[(r) * N + (c)] : 0.0f)
#define WEIGHTS float w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], \\
    w6 = w[6], w7 = w[7], w8 = w[8];
"""

# One output a work-item: 9 loads, neighbouring work-items' loads shared through the cache.
ONE_OUTPUT = COMMON + """
kernel void blur(global const float *restrict in, WEIGHTS_SPACE const float *restrict w,
                 global float *restrict out) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= N || y >= N) return;
    WEIGHTS
    out[y * N + x] = w0 * AT(y - 1, x - 1) + w1 * AT(y - 1, x) + w2 * AT(y - 1, x + 1)
                   + w3 * AT(y, x - 1) + w4 * AT(y, x) + w5 * AT(y, x + 1)
                   + w6 * AT(y + 1, x - 1) + w7 * AT(y + 1, x) + w8 * AT(y + 1, x + 1);
}
"""

# RY outputs a work-item down a column: the three rows it reads slid through registers, a row
# of three loads per output.
ROWS_SLID = COMMON + """
kernel void blur(global const float *restrict in, global const float *restrict w,
                 global float *restrict out) {
    int x = get_global_id(0), y0 = get_global_id(1) * RY;
    if (x >= N || y0 >= N) return;
    WEIGHTS
    float a0 = AT(y0 - 1, x - 1), a1 = AT(y0 - 1, x), a2 = AT(y0 - 1, x + 1);
    float b0 = AT(y0, x - 1), b1 = AT(y0, x), b2 = AT(y0, x + 1);
    #pragma unroll
    for (int r = 0; r < RY; r++) {
        int y = y0 + r;
        float c0 = AT(y + 1, x - 1), c1 = AT(y + 1, x), c2 = AT(y + 1, x + 1);
        out[y * N + x] = w0 * a0 + w1 * a1 + w2 * a2 + w3 * b0 + w4 * b1 + w5 * b2
                       + w6 * c0 + w7 * c1 + w8 * c2;
        a0 = b0; a1 = b1; a2 = b2; b0 = c0; b1 = c1; b2 = c2;
    }
}
"""

# ROWS_SLID with its loads unconditional: each neighbour read at its index clamped into the
# image and replaced by 0 outside it after the load (OpenCL's select evaluates both), so the
# compiler may issue a work-item's loads of all its rows at once.
ROWS_SLID_CLAMPED = ROWS_SLID.replace("#define AT(r, c)", """#define AT(r, c) select( \\
    in[clamp((r), 0, N - 1) * N + clamp((c), 0, N - 1)], 0.0f, \\
    (int)((r) < 0 || (r) >= N || (c) < 0 || (c) >= N))
#define GUARDED_AT(r, c)""")

# ROWS_SLID where a work-group whose block and halo lie inside the image reads without any
# check (the group's test is the same for all its work-items: no divergence); the groups on
# the image's edges read as ROWS_SLID does.
ROWS_SLID_INTERIOR = COMMON + """
#define SLIDE(LOAD) { \\
    float a0 = LOAD(y0 - 1, x - 1), a1 = LOAD(y0 - 1, x), a2 = LOAD(y0 - 1, x + 1); \\
    float b0 = LOAD(y0, x - 1), b1 = LOAD(y0, x), b2 = LOAD(y0, x + 1); \\
    for (int r = 0; r < RY; r++) { \\
        int y = y0 + r; \\
        float c0 = LOAD(y + 1, x - 1), c1 = LOAD(y + 1, x), c2 = LOAD(y + 1, x + 1); \\
        out[y * N + x] = w0 * a0 + w1 * a1 + w2 * a2 + w3 * b0 + w4 * b1 + w5 * b2 \\
                       + w6 * c0 + w7 * c1 + w8 * c2; \\
        a0 = b0; a1 = b1; a2 = b2; b0 = c0; b1 = c1; b2 = c2; \\
    } }
#define PLAIN(r, c) in[(r) * N + (c)]
kernel void blur(global const float *restrict in, global const float *restrict w,
                 global float *restrict out) {
    int x = get_global_id(0), y0 = get_global_id(1) * RY;
    int gx = get_group_id(0) * LX, gy = get_group_id(1) * LY * RY;
    WEIGHTS
    if (gx > 0 && gx + LX < N && gy > 0 && gy + LY * RY < N) SLIDE(PLAIN)
    else if (x < N && y0 < N) SLIDE(AT)
}
"""

# Four outputs along x a work-item (a float4 load and store a row) and RY down the column,
# the rows slid through registers: a row is a float4 and its two neighbours.
FLOAT4_ROWS = COMMON + """
typedef struct { float l; float4 m; float r; } row4;
row4 row_at(global const float *restrict in, int y, int x) {
    row4 v;
    if (y < 0 || y >= N) { v.l = 0.0f; v.m = (float4)(0.0f); v.r = 0.0f; return v; }
    v.m = vload4(0, in + y * N + x);
    v.l = x > 0 ? in[y * N + x - 1] : 0.0f;
    v.r = x + 4 < N ? in[y * N + x + 4] : 0.0f;
    return v;
}
float4 taps(row4 v, float a, float b, float c) {
    return a * (float4)(v.l, v.m.s012) + b * v.m + c * (float4)(v.m.s123, v.r);
}
kernel void blur(global const float *restrict in, global const float *restrict w,
                 global float *restrict out) {
    int x = get_global_id(0) * 4, y0 = get_global_id(1) * RY;
    if (x >= N || y0 >= N) return;
    WEIGHTS
    row4 a = row_at(in, y0 - 1, x), b = row_at(in, y0, x);
    #pragma unroll
    for (int r = 0; r < RY; r++) {
        row4 c = row_at(in, y0 + r + 1, x);
        vstore4(taps(a, w0, w1, w2) + taps(b, w3, w4, w5) + taps(c, w6, w7, w8), 0,
                out + (y0 + r) * N + x);
        a = b; b = c;
    }
}
"""

# A work-group's tile of LX columns and LY·RY rows with its halo copied into local memory
# (each input read once by the group), then each work-item's RY outputs from there.
LOCAL_TILE = COMMON + """
kernel void blur(global const float *restrict in, global const float *restrict w,
                 global float *restrict out) {
    local float tile[LY * RY + 2][LX + 2];
    int lx = get_local_id(0), ly = get_local_id(1);
    int x0 = get_group_id(0) * LX, y0 = get_group_id(1) * (LY * RY);
    for (int i = ly; i < LY * RY + 2; i += LY)
        for (int j = lx; j < LX + 2; j += LX)
            tile[i][j] = AT(y0 + i - 1, x0 + j - 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    WEIGHTS
    #pragma unroll
    for (int r = 0; r < RY; r++) {
        int ty = r * LY + ly;
        int y = y0 + ty, x = x0 + lx;
        if (x < N && y < N)
            out[y * N + x] = w0 * tile[ty][lx] + w1 * tile[ty][lx + 1] + w2 * tile[ty][lx + 2]
                + w3 * tile[ty + 1][lx] + w4 * tile[ty + 1][lx + 1] + w5 * tile[ty + 1][lx + 2]
                + w6 * tile[ty + 2][lx] + w7 * tile[ty + 2][lx + 1] + w8 * tile[ty + 2][lx + 2];
    }
}
"""


@dataclass(frozen=True)
class Design:
    """A hand-written kernel: its source, the work-group (x, y), outputs per work-item along
    x (``vx``) and y (``ry``), and the address space of the weights."""

    name: str
    source: str
    shape: tuple[int, int]
    vx: int = 1
    ry: int = 1
    weights: str = "global"

    @property
    def label(self) -> str:
        per = f"{self.vx}x{self.ry} outputs" if self.vx * self.ry > 1 else "1 output"
        space = ", constant weights" if self.weights != "global" else ""
        return f"{self.name} {self.shape[0]}x{self.shape[1]}, {per}{space}"

    def fits(self, size: int) -> bool:
        """Whether the design's blocks tile an image of ``size``² (x by its vectors)."""
        return size % self.vx == 0 and size % self.ry == 0

    def peer(self, image: np.ndarray, weights: np.ndarray):
        from benchmarks.peers.core import Launch, Peer, round_up

        n = image.shape[0]
        lx, ly = self.shape
        items = (round_up(n // self.vx, lx), round_up(n // self.ry, ly))
        source = self.source.replace("WEIGHTS_SPACE", self.weights)
        return Peer("blur", "gpu", self.label, source,
                    (Launch("blur", items, (lx, ly), ("in", "w", "out")),),
                    {"in": image, "w": weights}, {"out": ((n, n), np.float32)},
                    lambda host: host["out"], 17.0 * n * n,
                    {"N": n, "LX": lx, "LY": ly, "RY": self.ry})


def designs(shapes=SHAPES) -> list[Design]:
    """The hand-written kernels measured: each design at each work-group shape."""
    out = []
    for shape in shapes:
        out.append(Design("one output", ONE_OUTPUT, shape))
        for ry in (4, 8, 16):
            out.append(Design("rows slid", ROWS_SLID, shape, ry=ry))
            out.append(Design("rows slid, clamped loads", ROWS_SLID_CLAMPED, shape, ry=ry))
            out.append(Design("rows slid, interior unchecked", ROWS_SLID_INTERIOR, shape,
                              ry=ry))
        for ry in (1, 4, 8):
            out.append(Design("float4 rows slid", FLOAT4_ROWS, shape, vx=4, ry=ry))
        for ry in (1, 4):
            out.append(Design("local tile", LOCAL_TILE, shape, ry=ry))
    return out + [Design("one output", ONE_OUTPUT, shape, weights="constant")
                  for shape in shapes[:1]]


# --- copies ------------------------------------------------------------------------------------

COPY4 = """
kernel void copy(global const float4 *restrict in, global float4 *restrict out) {
    int i = get_global_id(0);
    if (i < NV) out[i] = in[i];
}
"""


def copy_peer(image: np.ndarray):
    """A copy of the image: a float4 a work-item, groups of 256."""
    from benchmarks.peers.core import Launch, Peer, round_up

    flat = image.reshape(-1)
    vectors = -(-flat.size // 4)
    padded = np.zeros(4 * vectors, np.float32)
    padded[:flat.size] = flat
    return Peer("copy", "gpu", "copy: a float4 a work-item, groups of 256", COPY4,
                (Launch("copy", (round_up(vectors, 256),), (256,), ("in", "out")),),
                {"in": padded}, {"out": ((4 * vectors,), np.float32)},
                lambda host: host["out"][:flat.size].reshape(image.shape), 0.0,
                {"NV": vectors})


# --- derived kernels ---------------------------------------------------------------------------

def program():
    from workbench.programs import library

    return library("skelcl")["gaussianBlur"]


def derived(types, shapes=SHAPES) -> dict[str, object]:
    """The derived kernels by label (each fully low-level): the default mapping, the grids
    the guided search measures first, and the point grid on 2-D work-groups of each shape
    that divides the image, one output or several rows a work-item; those of one output or
    4 rows also with their sequential loops unrolled and the weights in constant memory."""
    from workbench.rules.lowering import lower
    from workbench.search.grids import grid_mappings

    prog = program()
    out = {"derived: default mapping (a row a work-item)": lower(prog, *types)[0]}
    for expr, steps in grid_mappings(prog, types):
        split = [s for s in steps if s.rule == "split-join"]
        label = (f"derived: grid, {split[0].params['n']} rows a work-item" if split
                 else "derived: grid, a point a work-item")
        out[label] = lower(expr, *types)[0]
    for shape in shapes:
        for rows in (1, *ROWS):
            found = on_workgroups(types, shape, rows)
            if found is None:
                continue
            per = f"{rows} rows a work-item" if rows > 1 else "a point a work-item"
            label = f"derived: groups {shape[0]}x{shape[1]}, {per}"
            out[label] = lower(found, *types)[0]
            if rows in (1, 4):
                out[label + ", unrolled, constant weights"] = tuned(out[label], types)
    return out


def unconditional(exprs: dict, types) -> dict[str, tuple]:
    """Of the derived kernels with several rows a work-item, each compiled as the code
    generator would with its pads' reads unconditional (``unconditional_pad_loads``), by
    label: (expression, program)."""
    from workbench.codegen.program import opencl

    out = {}
    with unconditional_pad_loads():
        for label, expr in exprs.items():
            if "4 rows" in label or "8 rows" in label:
                out[label + ", unconditional pad loads"] = (
                    expr, opencl(expr, *types, complete=True))
    return out


@contextmanager
def unconditional_pad_loads():
    """The code generator with a pad's read (``views.PadView``) made unconditional: the
    padded array read at its index clamped into it, and the pad's value chosen after the
    load by OpenCL's ``select``, which evaluates both (``cond ? v : a[i]`` loads only where
    the condition fails, and the compiler may not load before it knows). Where a work-item
    reads the same element for several outputs, the loads are then the same and the
    compiler may share them. For float arrays (the blur's)."""
    from unittest import mock

    from workbench.codegen import ir, views
    from workbench.codegen.arith import Index, Opaque

    def access(self, idx):
        i, *rest = idx
        clamped = Index.of(Opaque(ir.Call("clamp", (
            ir.IndexValue(Index.of(i - self.left)), ir.Literal("0"),
            ir.Literal(str(self.n - 1)))), self.n))
        inside = self.inner.access([clamped, *rest])
        at = ir.IndexValue(i)
        outside = ir.Binary("||", ir.Binary("<", at, ir.Literal(str(self.left))),
                            ir.Binary(">=", at, ir.Literal(str(self.left + self.n))))
        return views.Padded(outside, self.value, inside)

    original = views.read

    def read(loc):
        if isinstance(loc, views.Padded):
            return ir.Call("select", (read(loc.inner), loc.value, ir.Cast("int", loc.outside)))
        return original(loc)

    with mock.patch.object(views.PadView, "access", access), \
            mock.patch("workbench.codegen.views.read", read), \
            mock.patch("workbench.codegen.values.read", read):
        yield


def tuned(expr, types):
    """``expr`` with its sequential maps and reductions unrolled (innermost first) and its
    shared inputs (the weights) in constant memory."""
    from workbench.rewriting.application import lookup_rule, rewrites
    from workbench.search.proposals import constant_inputs

    rules = [lookup_rule("reduceSeq→reduceSeqUnroll"), lookup_rule("mapSeq→mapSeqUnroll")]
    for _ in range(8):
        sites = rewrites(expr, *types, rules=rules)
        if not sites:
            break
        expr = max(sites, key=lambda r: len(r.path)).result
    constant = constant_inputs(expr, types)
    return constant[0] if constant else expr


def on_workgroups(types, shape: tuple[int, int], rows: int = 1):
    """The blur's point grid on work-groups of ``shape`` (x, y), each work-item computing
    ``rows`` neighbouring rows of its column (unrolled), as the guided search's
    ``groups_first`` makes it (``grids.on_work_groups``); None where a step does not
    apply."""
    from workbench.search.grids import nests_to_grid, on_work_groups

    moved, _, nests = nests_to_grid(program(), types)
    found = on_work_groups(moved, nests[0].path, shape, rows, types) if nests else None
    return None if found is None else found[0]


def searched(image, weights, device, budget: int, time_limit: float, log: str | None):
    """A fresh default search (its own calibration folder): its best expression, time and
    the number of candidates it measured."""
    from workbench.search import calibration, search

    folder = tempfile.mkdtemp(prefix="blur-study-")
    before = os.environ.get(calibration.ENV)
    os.environ[calibration.ENV] = os.path.join(folder, "calibrations")
    start = time.time()
    try:
        found = search(program(), image, weights, budget=budget, device=device,
                       time_limit=time_limit, log=log or os.path.join(folder, "search.jsonl"))
    finally:
        if before is None:
            del os.environ[calibration.ENV]
        else:
            os.environ[calibration.ENV] = before
    return found.best, {"search_ms": found.best_kernel_ms, "evaluated": found.evaluated,
                        "seconds": round(time.time() - start, 1),
                        "best": str(found.best) if found.best is not None else None}


# --- measurement -------------------------------------------------------------------------------

def timers(image, weights, expected, device, repeat: int, shapes, derived_exprs: dict,
           entries: dict, extra: tuple = (), only: tuple[str, ...] = ()) -> dict:
    """A timer per kernel (a call gives one round's ``Spread``), each checked against
    ``expected`` first; ``entries`` gets each kernel's design and check (a kernel that is
    refused or wrong is reported and not timed). ``extra``: more hand-written designs;
    ``only``: where given, the hand-written kernels whose label holds one of these texts."""
    from benchmarks.peers.core import PeerBuildError
    from workbench.run import compare, run

    kind = _kind(device)
    out = {}
    for design in [copy_peer(image)] + [d.peer(image, weights)
                                         for d in [*designs(shapes), *extra]
                                         if d.fits(image.shape[0]) and (
                                             not only or any(t in d.label for t in only))]:
        label = design.design
        try:
            bound = design.bind(device)
            check = compare(bound.output(), image if design.program == "copy" else expected)
        except Exception as err:  # a build or launch error is a result, not the study's end
            status = "build error" if isinstance(err, PeerBuildError) else "launch error"
            entries[label] = {"kind": "hand-written", "status": status,
                              "message": f"{type(err).__name__}: {err}"[:2000]}
            continue
        entries[label] = {"kind": "copy" if design.program == "copy" else "hand-written",
                          "correct": bool(check.correct), "max_error": check.max_error,
                          "work_group": list(design.launches[0].local_size)}
        if check.correct:
            out[label] = (lambda b=bound: b.time(repeat))
    for label, found in derived_exprs.items():
        # an expression, or one with the program it was compiled to (``unconditional``)
        expr, program = found if isinstance(found, tuple) else (found, None)
        first = run(expr, image, weights, device=device, repeat=1, expected=expected,
                    program=program)
        entries[label] = {"kind": "derived", "expression": str(expr), "status": first.status,
                          "correct": first.correct, "source_sha256": first.source_sha256,
                          "message": first.message[:2000]}
        if first.correct:
            out[label] = (lambda e=expr, p=program: _derived_spread(
                e, image, weights, device, repeat, expected, p))
    moved = moved_bytes(image.shape[0])
    for label, spread in _other_copies(moved, kind, device).items():
        entries[label] = {"kind": "copy", "correct": True}
        out[label] = spread
    return out


def _derived_spread(expr, image, weights, device, repeat, expected, program=None) -> Spread:
    from workbench.run import run

    r = run(expr, image, weights, device=device, repeat=repeat, expected=expected,
            program=program)
    if not r.correct:
        raise AssertionError(f"{expr}: {r.status} {r.message}")
    return Spread(r.kernel_ms, r.kernel_ms_min, r.kernel_ms_max)


def _other_copies(nbytes: int, kind: str, device) -> dict:
    """Timers of the STREAM-like copy of ``benchmarks.search`` (and CuPy's on a GPU), each a
    call of ``copy_ceilings`` (one round)."""
    from benchmarks.search import copy_ceilings

    first = copy_ceilings(nbytes, kind, device, repeat=2)
    return {label: (lambda k=label: copy_ceilings(nbytes, kind, device)[k])
            for label in first}


def _kind(device) -> str:
    from workbench.device.opencl import find_device

    return "gpu" if find_device(device)[0].kind == "gpu" else "cpu"


def interleaved(timed: dict, rounds: int, entries: dict) -> dict[str, Spread]:
    """Each timer called once a round, the order turned each round, pooled; a timer that
    fails is timed no more (its entry says why)."""
    samples: dict[str, list[Spread]] = {k: [] for k in timed}
    labels = list(timed)
    for k in range(rounds):
        for label in labels[k % len(labels):] + labels[:k % len(labels)]:
            if label not in timed:
                continue
            try:
                samples[label].append(timed[label]())
            except Exception as err:  # noqa: BLE001 - reported in its entry
                entries[label].update(status="failed while timed", correct=False,
                                      message=f"{type(err).__name__}: {err}"[:2000])
                del timed[label]
    return {k: pooled(v) for k, v in samples.items() if v and k in timed}


def table(doc: dict) -> str:
    """The kernels fastest first: ms [range], GB/s, share of the fastest copy."""
    rows = sorted((e for e in doc["entries"].values() if e.get("ms")),
                  key=lambda e: e["ms"])
    lines = [f"# SkelCL's 3x3 blur at {doc['size']}² on {doc['device']}", "",
             f"Median of {doc['rounds']} interleaved rounds of {doc['repeat']} runs; bytes "
             f"moved {doc['bytes']} (image read once, result written once); share of the "
             f"fastest copy ({doc['copy_ms']:.4f} ms).", "",
             *_searched_lines(doc.get("search")),
             "| kernel | ms [range] | GB/s | of copy |", "|---|---|---|---|"]
    for e in rows:
        lines.append(f"| {e['label']} | {e['ms']:.4f} [{e['range_ms'][0]:.4f}–"
                     f"{e['range_ms'][1]:.4f}] | {e['gb_per_s']:.0f} | {e['of_copy']:.0%} |")
    failed = [e for e in doc["entries"].values() if not e.get("ms")]
    lines += ["", *(f"- not timed: {e['label']}: {e.get('status', 'wrong result')} "
                    f"{e.get('message', '')[:200]}" for e in failed)]
    return "\n".join(lines) + "\n"


def _searched_lines(found: dict | None) -> list[str]:
    if not found:
        return []
    if "error" in found:
        return [f"The search failed: {found['error']}", ""]
    return [f"The search: {found['evaluated']} candidates in {found['seconds']} s, its best "
            f"logged at {found['search_ms']} ms: `{found['best']}`", ""]


def study(size: int, device, rounds: int, repeat: int, shapes, budget: int,
          time_limit: float, log: str | None, only: tuple[str, ...] = ()) -> dict:
    from workbench.device.opencl import find_device
    from workbench.semantics import prepare_inputs

    image, weights = inputs(size)
    expected = reference(image, weights)
    types = tuple(prepare_inputs(program(), [image, weights])[1])
    exprs = derived(types, shapes)
    exprs |= unconditional(exprs, types)
    doc = {"device": find_device(device)[0].name, "size": size, "rounds": rounds,
           "repeat": repeat, "bytes": moved_bytes(size), "search": None}
    if budget > 0:
        try:
            best, doc["search"] = searched(image, weights, device, budget, time_limit, log)
        except Exception as err:  # noqa: BLE001 - the kernels are measured all the same
            best, doc["search"] = None, {"error": f"{type(err).__name__}: {err}"[:2000]}
        if best is not None:
            exprs = {"derived: the search's best": best, **exprs}
    entries: dict[str, dict] = {}
    timed = interleaved(timers(image, weights, expected, device, repeat, shapes, exprs,
                               entries, only=only), rounds, entries)
    copies = [timed[k].median_ms for k, e in entries.items() if e["kind"] == "copy"
              and k in timed]
    doc["copy_ms"] = min(copies) if copies else math.nan
    for label, e in entries.items():
        e["label"] = label
        if label in timed:
            t = timed[label]
            e.update(ms=t.median_ms, range_ms=t.range_ms,
                     gb_per_s=doc["bytes"] / t.median_ms / 1e6,
                     of_copy=doc["copy_ms"] / t.median_ms)
    doc["entries"] = entries
    return doc


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None, help="cpu, gpu, an id P:D or part of a name")
    ap.add_argument("--size", type=int, default=4096, help="the image's side")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=20, help="runs timed a round")
    ap.add_argument("--shapes", default=",".join(f"{x}x{y}" for x, y in SHAPES),
                    help="work-groups of the hand-written kernels, e.g. 32x4,256x1")
    ap.add_argument("--search", type=int, default=40,
                    help="the default search's budget (0: no search)")
    ap.add_argument("--time-limit", type=float, default=150.0, help="the search's seconds")
    ap.add_argument("--log", help="the search's log (default: a temporary folder)")
    ap.add_argument("--only", default="",
                    help="hand-written kernels whose label holds one of these comma-separated "
                         "texts (default: all)")
    ap.add_argument("--json", required=True, help="write the results here")
    args = ap.parse_args(argv)
    shapes = tuple(tuple(int(v) for v in s.split("x")) for s in args.shapes.split(","))
    doc = study(args.size, args.device, args.rounds, args.repeat, shapes, args.search,
                args.time_limit, args.log, tuple(t for t in args.only.split(",") if t))
    with open(args.json, "w") as f:
        json.dump(doc, f, indent=1)
    text = table(doc)
    with open(os.path.splitext(args.json)[0] + ".md", "w") as f:
        f.write(text)
    print(text)
    return doc


if __name__ == "__main__":
    main()

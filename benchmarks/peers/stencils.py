"""The stencils of Lift's CGO 2018 set (PPCG's jacobi2d5pt, jacobi3d7pt and heat3d, the 3x3
convolution, Rodinia's hotspot, hotspot3D and the two SRAD steps), hand-written from one
description each: the values a point reads (taps: an array and an offset per axis) and the
arithmetic over them. On a GPU one output a work-item on a 2-D or 3-D grid, neighbouring
work-items reading neighbouring floats (the neighbours' reads hit the cache); on a CPU a row
a work-item (a chunk of rows each), its interior in float8 vectors loaded straight from the
rows around it, its edges point by point.

Boundaries: Rodinia's and the convolution's clamp at the edge (a point reads its neighbour's
index clamped into the grid); PPCG's, as Lift writes them, compute the inner points and pad
the result by one (clamped) and rotate it by one along every axis: output point ``k`` of an
axis of ``n`` is then the stencil centred at ``n - 2`` for ``k = 0``, at 1 for ``k = 1`` and
at ``k - 1`` after, whose neighbours are always inside the grid.
"""

from __future__ import annotations

from dataclasses import dataclass
from string import Template

import numpy as np

from .core import Launch, Peer, Target, chunks, cpu_work_items, round_up


@dataclass(frozen=True)
class Stencil:
    """A stencil program: its input grids (in the program's order), the values a point
    reads (``taps``: name → grid and offset per axis), ``body`` (OpenCL C over ``T`` setting
    ``out`` from the taps and the weights ``w0``… of a small array ``weights``), and its
    arithmetic per point."""

    name: str
    dims: int
    rotated: bool
    grids: tuple[str, ...]
    taps: dict[str, tuple[str, tuple[int, ...]]]
    body: str
    flops_per_point: int
    weights: tuple[str, int] | None = None


def _axis_taps(grid, dims, names):
    """Taps named in the order (-1, +1) of each axis, then the centre."""
    taps = {}
    for axis in range(dims):
        for sign, name in zip((-1, 1), names[2 * axis:2 * axis + 2]):
            offset = [0] * dims
            offset[axis] = sign
            taps[name] = (grid, tuple(offset))
    taps[names[-1]] = (grid, (0,) * dims)
    return taps


_HOT_STEP = (0.001 / (3.0e6 / (0.5 * 0.0005 * 1.75e6))) / (
    0.5 * 1.75e6 * 0.0005 * (0.016 / 512) * (0.016 / 512))
_HOT_RZ_1 = (100 * (0.016 / 512) * (0.016 / 512)) / 0.0005


def _f(x: float) -> str:
    return f"{float(np.float32(x))!r}f"


STENCILS = {s.name: s for s in [
    Stencil("jacobi2d5pt", 2, True, ("a",),
            _axis_taps("a", 2, ["top", "bottom", "left", "right", "center"]),
            "out = (5.0f * top + 12.0f * left + 15.0f * center + 5.0f * bottom"
            " + 12.0f * right) / 118.0f;", 10),
    Stencil("jacobi3d7pt", 3, True, ("a",),
            _axis_taps("a", 3, ["f", "b", "n", "s", "w", "e", "c"]),
            "out = 0.161f * e + 0.162f * w + 0.163f * s + 0.164f * n + 0.165f * b"
            " + 0.166f * f - 1.67f * c;", 13),
    Stencil("heat3d", 3, True, ("a",),
            _axis_taps("a", 3, ["f", "b", "n", "s", "w", "e", "c"]),
            "out = 0.125f * (f - 2.0f * c + b) + 0.125f * (n - 2.0f * c + s)"
            " + 0.125f * (e - 2.0f * c + w) + c;", 15),
    Stencil("convolution2D", 2, False, ("a",),
            {f"t{i}{j}": ("a", (i - 1, j - 1)) for i in range(3) for j in range(3)},
            "out = " + " + ".join(f"t{i}{j} * w{3 * i + j}" for i in range(3)
                                  for j in range(3)) + ";", 17, ("weights", 9)),
    Stencil("hotspot", 2, False, ("heat", "power"),
            {**_axis_taps("heat", 2, ["top", "bottom", "left", "right", "c"]),
             "power": ("power", (0, 0))},
            f"out = c + {_f(_HOT_STEP)} * (power + (bottom + top - 2.0f * c) * {_f(0.1)}"
            f" + (right + left - 2.0f * c) * {_f(0.1)} + (80.0f - c) * {_f(_HOT_RZ_1)});",
            15),
    Stencil("hotspot3D", 3, False, ("temp", "power"),
            {**_axis_taps("temp", 3, ["west", "east", "north", "south", "bottom", "top",
                                      "c"]),
             "power": ("power", (0, 0, 0))},
            "T side = 0.03413332998752593994f, vertical = 0.00053333328105509281f;\n"
            "out = c * 0.86186665296554565430f + north * side + south * side + east * side"
            " + west * side + top * vertical + bottom * vertical"
            " + 0.34133329987525939941f * power + vertical * 80.0f;", 17),
    Stencil("srad1", 2, False, ("image",),
            _axis_taps("image", 2, ["n", "s", "w", "e", "jc"]),
            """T dn = n - jc, ds = s - jc, dw = w - jc, de = e - jc;
T g2 = (dn * dn + ds * ds + dw * dw + de * de) / (jc * jc);
T lap = (dn + ds + dw + de) / jc;
T num = 0.5f * g2 - 0.0625f * (lap * lap);
T den = 1.0f + 0.25f * lap;
T qsqr = num / (den * den);
den = (qsqr - Q0SQR) / (Q0SQR * (1.0f + Q0SQR));
out = clamp(1.0f / (1.0f + den), 0.0f, 1.0f);""".replace("Q0SQR", _f(0.053787220269)), 30),
    Stencil("srad2", 2, False, ("image", "coeff", "dn", "ds", "de", "dw"),
            {"img": ("image", (0, 0)), "cc": ("coeff", (0, 0)), "cs": ("coeff", (1, 0)),
             "ce": ("coeff", (0, 1)), "dn": ("dn", (0, 0)), "ds": ("ds", (0, 0)),
             "de": ("de", (0, 0)), "dw": ("dw", (0, 0))},
            "out = img + 0.125f * (cc * dn + cs * ds + cc * dw + ce * de);", 9),
]}

# the index of a neighbour along an axis: the centre of output point k (PPCG's rotation or
# the point itself) moved by the offset, clamped into the grid
INDEX = """
int centre(int k) {
#if ROTATED
    return k == 0 ? S - 2 : k == 1 ? 1 : k - 1;
#else
    return k;
#endif
}
int at(int k, int offset) { return clamp(centre(k) + offset, 0, S - 1); }
"""

POINT = Template("""
#define T $t
$t point$w($params) {
    $t out;
$body
    return out;
}
#undef T
""")

GPU = Template("""
kernel void peer($params) {
    int x = get_global_id(0), y = get_global_id(1), z = $z;
    if (x >= S || y >= S || z >= S) return;
$weights
$taps
    out[((size_t)z * S + y) * S + x] = point1($args);
}
""")

CPU = Template("""
kernel void peer($params) {
$weights
    size_t first = get_global_id(0) * CHUNK, last = min((size_t)ROWS, first + CHUNK);
    for (size_t row = first; row < last; row++) {
        int z = row / S, y = row - z * S;
$rows
        global float *o = out + row * S;
        int x = 0;
        for (; x < LO; x++) {
            int cx = centre(x);
$scalar_taps
            o[x] = point1($args);
        }
        for (; x + 8 <= HI; x += 8) {
$vector_taps
            vstore8(point8($args), 0, o + x);
        }
        for (; x < S; x++) {
            int cx = centre(x);
$scalar_taps
            o[x] = point1($args);
        }
    }
}
""")


def _params(st: Stencil, kind: str) -> str:
    grids = [f"global const float *restrict g_{g}" for g in st.grids]
    if st.weights:
        space = "constant" if kind == "gpu" else "global const"
        grids.append(f"{space} float *restrict g_{st.weights[0]}")
    return ", ".join(grids + ["global float *restrict out"])


def _point_functions(st: Stencil) -> str:
    weights = [f"float w{k}" for k in range(st.weights[1])] if st.weights else []
    return "".join(POINT.substitute(t=t, w=w, body=st.body, params=", ".join(
        [f"{t} {name}" for name in st.taps] + weights)) for t, w in (("float", 1), ("float8", 8)))


def _row_offset(st: Stencil, offset) -> str:
    """The C expression of the start of the row a tap reads (its offsets along the outer
    axes applied)."""
    if st.dims == 2:
        return f"(size_t)at(y, {offset[0]}) * S"
    return f"((size_t)at(z, {offset[0]}) * S + at(y, {offset[1]})) * S"


def source(st: Stencil, kind: str) -> str:
    weights = ""
    if st.weights:
        name, count = st.weights
        weights = f"    float {', '.join(f'w{k} = g_{name}[{k}]' for k in range(count))};"
    args = ", ".join([f"v_{n}" for n in st.taps]
                     + ([f"w{k}" for k in range(st.weights[1])] if st.weights else []))
    head = INDEX + _point_functions(st)
    if kind == "gpu":
        taps = "\n".join(f"    float v_{n} = g_{g}[{_row_offset(st, o)} + at(x, {o[-1]})];"
                         for n, (g, o) in st.taps.items())
        z = "get_global_id(2)" if st.dims == 3 else "0"
        return head + GPU.substitute(params=_params(st, kind), z=z, weights=weights, taps=taps,
                                     args=args)
    rows = sorted({(g, o[:-1]) for g, o in st.taps.values()})
    row_name = {r: f"r{i}" for i, r in enumerate(rows)}
    row_text = "\n".join(f"        global const float *{row_name[(g, o)]} = g_{g} + "
                         f"{_row_offset(st, o + (0,))};" for g, o in rows)
    scalar = "\n".join(f"            float v_{n} = {row_name[(g, o[:-1])]}"
                       f"[clamp(cx + {o[-1]}, 0, S - 1)];" for n, (g, o) in st.taps.items())
    vector = "\n".join(f"            float8 v_{n} = vload8(0, {row_name[(g, o[:-1])]} + x + SHIFT"
                       f" + {o[-1]});" for n, (g, o) in st.taps.items())
    return head + CPU.substitute(params=_params(st, kind), weights=weights, rows=row_text,
                                 scalar_taps=scalar, vector_taps=vector, args=args)


GPU_GROUPS = {2: (32, 8), 3: (32, 4, 2)}


def flops(name: str, args) -> float:
    return STENCILS[name].flops_per_point * args[0].size


def stencil(name: str, kind: str, args, target: Target) -> Peer:
    st = STENCILS[name]
    grids = dict(zip(st.grids, args))
    inputs = {f"g_{g}": np.ascontiguousarray(a, np.float32) for g, a in grids.items()}
    if st.weights:
        inputs[f"g_{st.weights[0]}"] = np.ascontiguousarray(args[len(st.grids)], np.float32)
    side = args[0].shape[0]
    shape = args[0].shape
    defines = {"S": side, "ROTATED": int(st.rotated)}
    if kind == "gpu":
        local = GPU_GROUPS[st.dims]
        launch = Launch("peer", tuple(round_up(side, g) for g in local), local,
                        (*inputs, "out"))
        design = f"an output a work-item on a {st.dims}-D grid"
    else:
        rows = side ** (st.dims - 1)
        items = cpu_work_items(rows, target.units)
        launch = Launch("peer", (items,), (1,), (*inputs, "out"))
        design = "a row a work-item, float8 along it"
        # the points whose taps need no clamp: x - 1 and x + 8 inside the grid around the
        # centre (x itself, or x - 1 rotated)
        lo, hi, shift = (2, side, -1) if st.rotated else (1, side - 1, 0)
        defines.update(ROWS=rows, CHUNK=chunks(rows, items), LO=lo, HI=hi, SHIFT=shift)
    return Peer(name, kind, design, source(st, kind), (launch,), inputs,
                {"out": (shape, np.float32)}, lambda host: host["out"], flops(name, args),
                defines)


def _builder(name):
    return (lambda kind, args, target: stencil(name, kind, args, target),
            lambda args: flops(name, args))


PEERS = {name: _builder(name) for name in STENCILS}

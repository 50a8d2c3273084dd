"""Molecular dynamics as SHOC's ``md`` computes Lennard-Jones forces: each atom over its
neighbour list, the list neighbour-major ([M][N], as Lift's program takes it: neighbouring
work-items read neighbouring indices), a force only within the cutoff. On a GPU an atom a
work-item, float4 positions; on a CPU eight atoms in the lanes of float8 vectors, each
lane's neighbour gathered."""

from __future__ import annotations

from string import Template

import numpy as np

from .core import Launch, Peer, Target, chunks, cpu_work_items, gather, lane, lanes_of, round_up

# per neighbour: the difference 3, its square 5, the cutoff 1, 1/r2 and r^6 3, the force 4,
# the sums 6
FLOPS_PER_NEIGHBOUR = 22
GROUP = 128

GPU = """
kernel void peer(global const float4 *pos, global const int *neighbours, global float4 *out) {
    int i = get_global_id(0);
    if (i >= N) return;
    float4 p = pos[i], f = (float4)(0.0f);
    for (int j = 0; j < M; j++) {
        float4 d = p - pos[neighbours[j * N + i]];
        d.w = 0.0f;
        float r2 = dot(d, d);
        if (r2 < CUTSQ) {
            float inv = 1.0f / r2;
            float r6 = inv * inv * inv;
            f += d * (inv * r6 * (LJ1 * r6 - LJ2));
        }
    }
    out[i] = f;
}
"""

# atoms' positions and their neighbours' gathered into the lanes of float8 or float16
# vectors, the forces written back lane by lane (components named: no private arrays)
CPU = Template("""
kernel void peer(global const float4 *pos, global const int *neighbours, global float4 *out) {
    size_t first = get_global_id(0) * CHUNK, last = min((size_t)NV, first + CHUNK);
    for (size_t g = first; g < last; g++) {
        size_t i = g * $w;
$gather_p
        float$w px = $px;
        float$w py = $py;
        float$w pz = $pz;
        float$w fx = 0.0f, fy = 0.0f, fz = 0.0f;
        for (int j = 0; j < M; j++) {
            global const int *row = neighbours + j * N;
$gather_q
            float$w dx = px - $qx;
            float$w dy = py - $qy;
            float$w dz = pz - $qz;
            float$w r2 = dx * dx + dy * dy + dz * dz;
            float$w inv = 1.0f / r2;
            float$w r6 = inv * inv * inv;
            float$w force = select((float$w)(0.0f), inv * r6 * (LJ1 * r6 - LJ2), r2 < CUTSQ);
            fx += dx * force; fy += dy * force; fz += dz * force;
        }
$put
    }
}
""")


def cpu_source(w: int) -> str:
    put = "\n".join(f"        if (i + {k} < N) out[i + {k}] = (float4)(fx.{lane(k)}, "
                    f"fy.{lane(k)}, fz.{lane(k)}, 0.0f);" for k in range(w))
    return CPU.substitute(
        w=w, gather_p=gather("p", w, "pos[min(i + {k}, (size_t)N - 1)]", " " * 8),
        gather_q=gather("q", w, "pos[row[min(i + {k}, (size_t)N - 1)]]", " " * 12),
        px=lanes_of("p", "x", w), py=lanes_of("p", "y", w), pz=lanes_of("p", "z", w),
        qx=lanes_of("q", "x", w), qy=lanes_of("q", "y", w), qz=lanes_of("q", "z", w),
        put=put)


def flops(args) -> float:
    return FLOPS_PER_NEIGHBOUR * args[1].size


def molecular_dynamics(kind: str, args, target: Target) -> Peer:
    particles, neighbours, cutsq, lj1, lj2 = args
    m, n = neighbours.shape
    defines = {"N": n, "M": m, "CUTSQ": np.float32(cutsq), "LJ1": np.float32(lj1),
               "LJ2": np.float32(lj2)}
    names = ("pos", "neighbours", "out")
    if kind == "gpu":
        launch = Launch("peer", (round_up(n, GROUP),), (GROUP,), names)
        design = "an atom a work-item over its neighbour list"
        source = GPU
    else:
        # eight lanes even where sixteen work: sixteen gathers a neighbour took longer than
        # the arithmetic they save (PoCL 3.1, 4096 atoms: 0.083 ms against 0.068)
        w = min(target.width, 8)
        vectors = -(-n // w)
        items = cpu_work_items(vectors, target.units)
        launch = Launch("peer", (items,), (1,), names)
        source, design = cpu_source(w), f"{w} atoms in float{w} lanes, neighbours gathered"
        defines.update(NV=vectors, CHUNK=chunks(vectors, items))
    return Peer("molecularDynamics", kind, design, source, (launch,),
                {"pos": np.ascontiguousarray(particles, np.float32),
                 "neighbours": np.ascontiguousarray(neighbours, np.int32)},
                {"out": ((n, 4), np.float32)}, lambda host: host["out"], flops(args), defines)


PEERS = {"molecularDynamics": (molecular_dynamics, flops)}

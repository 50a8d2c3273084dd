"""Molecular dynamics as SHOC's ``md`` computes Lennard-Jones forces: each atom over its
neighbour list, the list neighbour-major ([M][N], as Lift's program takes it: neighbouring
work-items read neighbouring indices), a force only within the cutoff. On a GPU an atom a
work-item, float4 positions; on a CPU eight atoms in the lanes of float8 vectors, each
lane's neighbour gathered."""

from __future__ import annotations

import numpy as np

from .core import Launch, Peer, Target, chunks, cpu_work_items, round_up

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

# eight atoms' positions and their neighbours' gathered into the lanes of float8 vectors,
# the forces written back lane by lane (components named: no private arrays)
CPU = """
kernel void peer(global const float4 *pos, global const int *neighbours, global float4 *out) {
    size_t first = get_global_id(0) * CHUNK, last = min((size_t)NV, first + CHUNK);
    for (size_t g = first; g < last; g++) {
        size_t i = g * 8;
        float4 p0 = pos[min(i + 0, (size_t)N - 1)];
        float4 p1 = pos[min(i + 1, (size_t)N - 1)];
        float4 p2 = pos[min(i + 2, (size_t)N - 1)];
        float4 p3 = pos[min(i + 3, (size_t)N - 1)];
        float4 p4 = pos[min(i + 4, (size_t)N - 1)];
        float4 p5 = pos[min(i + 5, (size_t)N - 1)];
        float4 p6 = pos[min(i + 6, (size_t)N - 1)];
        float4 p7 = pos[min(i + 7, (size_t)N - 1)];
        float8 px = (float8)(p0.x, p1.x, p2.x, p3.x, p4.x, p5.x, p6.x, p7.x);
        float8 py = (float8)(p0.y, p1.y, p2.y, p3.y, p4.y, p5.y, p6.y, p7.y);
        float8 pz = (float8)(p0.z, p1.z, p2.z, p3.z, p4.z, p5.z, p6.z, p7.z);
        float8 fx = 0.0f, fy = 0.0f, fz = 0.0f;
        for (int j = 0; j < M; j++) {
            global const int *row = neighbours + j * N;
            float4 q0 = pos[row[min(i + 0, (size_t)N - 1)]];
            float4 q1 = pos[row[min(i + 1, (size_t)N - 1)]];
            float4 q2 = pos[row[min(i + 2, (size_t)N - 1)]];
            float4 q3 = pos[row[min(i + 3, (size_t)N - 1)]];
            float4 q4 = pos[row[min(i + 4, (size_t)N - 1)]];
            float4 q5 = pos[row[min(i + 5, (size_t)N - 1)]];
            float4 q6 = pos[row[min(i + 6, (size_t)N - 1)]];
            float4 q7 = pos[row[min(i + 7, (size_t)N - 1)]];
            float8 dx = px - (float8)(q0.x, q1.x, q2.x, q3.x, q4.x, q5.x, q6.x, q7.x);
            float8 dy = py - (float8)(q0.y, q1.y, q2.y, q3.y, q4.y, q5.y, q6.y, q7.y);
            float8 dz = pz - (float8)(q0.z, q1.z, q2.z, q3.z, q4.z, q5.z, q6.z, q7.z);
            float8 r2 = dx * dx + dy * dy + dz * dz;
            float8 inv = 1.0f / r2;
            float8 r6 = inv * inv * inv;
            float8 force = select((float8)(0.0f), inv * r6 * (LJ1 * r6 - LJ2), r2 < CUTSQ);
            fx += dx * force; fy += dy * force; fz += dz * force;
        }
        if (i + 0 < N) out[i + 0] = (float4)(fx.s0, fy.s0, fz.s0, 0.0f);
        if (i + 1 < N) out[i + 1] = (float4)(fx.s1, fy.s1, fz.s1, 0.0f);
        if (i + 2 < N) out[i + 2] = (float4)(fx.s2, fy.s2, fz.s2, 0.0f);
        if (i + 3 < N) out[i + 3] = (float4)(fx.s3, fy.s3, fz.s3, 0.0f);
        if (i + 4 < N) out[i + 4] = (float4)(fx.s4, fy.s4, fz.s4, 0.0f);
        if (i + 5 < N) out[i + 5] = (float4)(fx.s5, fy.s5, fz.s5, 0.0f);
        if (i + 6 < N) out[i + 6] = (float4)(fx.s6, fy.s6, fz.s6, 0.0f);
        if (i + 7 < N) out[i + 7] = (float4)(fx.s7, fy.s7, fz.s7, 0.0f);
    }
}
"""


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
        vectors = -(-n // 8)
        items = cpu_work_items(vectors, target.units)
        launch = Launch("peer", (items,), (1,), names)
        source, design = CPU, "eight atoms in float8 lanes, neighbours gathered"
        defines.update(NV=vectors, CHUNK=chunks(vectors, items))
    return Peer("molecularDynamics", kind, design, source, (launch,),
                {"pos": np.ascontiguousarray(particles, np.float32),
                 "neighbours": np.ascontiguousarray(neighbours, np.int32)},
                {"out": ((n, 4), np.float32)}, lambda host: host["out"], flops(args), defines)


PEERS = {"molecularDynamics": (molecular_dynamics, flops)}

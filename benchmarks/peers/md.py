"""Molecular dynamics as SHOC's ``md`` computes Lennard-Jones forces: each atom over its
neighbour list, the list neighbour-major ([M][N], as Lift's program takes it: neighbouring
work-items read neighbouring indices), a force only within the cutoff. On a GPU an atom a
work-item, float4 positions; on a CPU eight atoms in the lanes of float8 vectors, each
lane's neighbour gathered."""

from __future__ import annotations

import numpy as np

from .core import Launch, Peer, chunks, cpu_work_items, round_up

# per neighbour: the difference 3, its square 5, the cutoff 1, 1/r2 and r^6 3, the force 4,
# the sums 6
FLOPS_PER_NEIGHBOUR = 22
GROUP = 128

GPU = """
kernel void peer(global const float4 *pos, global const int *neighbours, global float4 *out) {
    int i = get_global_id(0);
    if (i >= N) return;
    float4 p = pos[i];
    float3 f = (float3)(0.0f);
    for (int j = 0; j < M; j++) {
        float4 q = pos[neighbours[j * N + i]];
        float3 d = p.xyz - q.xyz;
        float r2 = dot(d, d);
        if (r2 < CUTSQ) {
            float inv = 1.0f / r2;
            float r6 = inv * inv * inv;
            f += d * (inv * r6 * (LJ1 * r6 - LJ2));
        }
    }
    out[i] = (float4)(f, 0.0f);
}
"""

CPU = """
kernel void peer(global const float4 *pos, global const int *neighbours, global float4 *out) {
    size_t first = get_global_id(0) * CHUNK, last = min((size_t)NV, first + CHUNK);
    for (size_t g = first; g < last; g++) {
        size_t i = g * 8;
        float lx[8], ly[8], lz[8];
        for (int k = 0; k < 8; k++) {
            float4 p = pos[min(i + k, (size_t)N - 1)];
            lx[k] = p.x; ly[k] = p.y; lz[k] = p.z;
        }
        float8 px = vload8(0, lx), py = vload8(0, ly), pz = vload8(0, lz);
        float8 fx = 0.0f, fy = 0.0f, fz = 0.0f;
        for (int j = 0; j < M; j++) {
            global const int *row = neighbours + j * N;
            for (int k = 0; k < 8; k++) {
                float4 q = pos[row[min(i + k, (size_t)N - 1)]];
                lx[k] = q.x; ly[k] = q.y; lz[k] = q.z;
            }
            float8 dx = px - vload8(0, lx), dy = py - vload8(0, ly), dz = pz - vload8(0, lz);
            float8 r2 = dx * dx + dy * dy + dz * dz;
            float8 inv = 1.0f / r2;
            float8 r6 = inv * inv * inv;
            float8 force = select((float8)(0.0f), inv * r6 * (LJ1 * r6 - LJ2), r2 < CUTSQ);
            fx += dx * force; fy += dy * force; fz += dz * force;
        }
        vstore8(fx, 0, lx); vstore8(fy, 0, ly); vstore8(fz, 0, lz);
        for (int k = 0; k < 8 && i + k < N; k++)
            out[i + k] = (float4)(lx[k], ly[k], lz[k], 0.0f);
    }
}
"""


def flops(args) -> float:
    return FLOPS_PER_NEIGHBOUR * args[1].size


def molecular_dynamics(kind: str, args, units: int) -> Peer:
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
        items = cpu_work_items(vectors, units)
        launch = Launch("peer", (items,), (1,), names)
        source, design = CPU, "eight atoms in float8 lanes, neighbours gathered"
        defines.update(NV=vectors, CHUNK=chunks(vectors, items))
    return Peer("molecularDynamics", kind, design, source, (launch,),
                {"pos": np.ascontiguousarray(particles, np.float32),
                 "neighbours": np.ascontiguousarray(neighbours, np.int32)},
                {"out": ((n, 4), np.float32)}, lambda host: host["out"], flops(args), defines)


PEERS = {"molecularDynamics": (molecular_dynamics, flops)}

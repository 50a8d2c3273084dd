"""N-body as the fast all-pairs codes write it (NVIDIA's GPU Gems 3 chapter 31 scheme, the
one SkelCL's ``allpairs`` uses): on a GPU each work-item one body, a group of 128 reading a
tile of 128 bodies into local memory, every work-item then summing over the tile, ``rsqrt``
and float4; on a CPU each work-item eight bodies in the lanes of float8 vectors, every other
body read once and given to all eight lanes. Lift's ``nbody``: positions and velocities as
[N] float4 (x, y, z, mass), one step of ``delta_t``, the softening ``esp_sqr``; the result
two [N][1] float4 arrays."""

from __future__ import annotations

import math

import numpy as np

from .core import Launch, Peer, Target, chunks, cpu_work_items, round_up

FLOPS_PER_INTERACTION = 20  # the count the issue and the fast codes' papers use
GROUP = 128

GPU = """
kernel void peer(global const float4 *pos, global const float4 *vel,
                 global float4 *new_pos, global float4 *new_vel) {
    local float4 tile[GROUP];
    int i = get_global_id(0), l = get_local_id(0);
    float4 p = pos[i];
    float4 acc = (float4)(0.0f);  // its w a sum of no meaning
    for (int t = 0; t < N; t += GROUP) {
        tile[l] = pos[t + l];
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll 16
        for (int j = 0; j < GROUP; j++) {
            float4 q = tile[j];
            float4 r = q - p;
            float inv = rsqrt(fma(r.x, r.x, fma(r.y, r.y, fma(r.z, r.z, EPS_SQR))));
            acc = fma((float4)(q.w * inv * inv * inv), r, acc);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float4 v = vel[i];
    new_pos[i] = (float4)(p.xyz + v.xyz * DT + 0.5f * acc.xyz * DT * DT, p.w);
    new_vel[i] = (float4)(v.xyz + acc.xyz * DT, v.w);
}
"""

# eight bodies in the lanes of float8 vectors, each lane's acceleration applied by ``step``
# (components named: no private arrays)
CPU = """
inline void step(global const float4 *pos, global const float4 *vel, global float4 *new_pos,
                 global float4 *new_vel, size_t i, float3 acc) {
    float4 p = pos[i], v = vel[i];
    new_pos[i] = (float4)(p.xyz + v.xyz * DT + 0.5f * acc * DT * DT, p.w);
    new_vel[i] = (float4)(v.xyz + acc * DT, v.w);
}
kernel void peer(global const float4 *pos, global const float4 *vel,
                 global float4 *new_pos, global float4 *new_vel) {
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
        float8 ax = 0.0f, ay = 0.0f, az = 0.0f;
        for (int j = 0; j < N; j++) {
            float4 q = pos[j];
            float8 rx = q.x - px, ry = q.y - py, rz = q.z - pz;
            float8 inv = rsqrt(rx * rx + ry * ry + rz * rz + EPS_SQR);
            float8 s = q.w * inv * inv * inv;
            ax += s * rx; ay += s * ry; az += s * rz;
        }
        if (i + 0 < N) step(pos, vel, new_pos, new_vel, i + 0, (float3)(ax.s0, ay.s0, az.s0));
        if (i + 1 < N) step(pos, vel, new_pos, new_vel, i + 1, (float3)(ax.s1, ay.s1, az.s1));
        if (i + 2 < N) step(pos, vel, new_pos, new_vel, i + 2, (float3)(ax.s2, ay.s2, az.s2));
        if (i + 3 < N) step(pos, vel, new_pos, new_vel, i + 3, (float3)(ax.s3, ay.s3, az.s3));
        if (i + 4 < N) step(pos, vel, new_pos, new_vel, i + 4, (float3)(ax.s4, ay.s4, az.s4));
        if (i + 5 < N) step(pos, vel, new_pos, new_vel, i + 5, (float3)(ax.s5, ay.s5, az.s5));
        if (i + 6 < N) step(pos, vel, new_pos, new_vel, i + 6, (float3)(ax.s6, ay.s6, az.s6));
        if (i + 7 < N) step(pos, vel, new_pos, new_vel, i + 7, (float3)(ax.s7, ay.s7, az.s7));
    }
}
"""


def flops(args) -> float:
    return FLOPS_PER_INTERACTION * len(args[0]) ** 2


def nbody(kind: str, args, target: Target) -> Peer:
    pos, vel, esp_sqr, delta_t = args
    n = len(pos)
    defines = {"N": n, "EPS_SQR": np.float32(esp_sqr), "DT": np.float32(delta_t)}
    names = ("pos", "vel", "new_pos", "new_vel")
    if kind == "gpu":
        group = math.gcd(n, GROUP)  # the tiles cover the bodies exactly
        launch = Launch("peer", (round_up(n, group),), (group,), names)
        source, design = GPU, f"a body a work-item, tiles of {group} bodies in local memory"
        defines["GROUP"] = group
        options = ("-cl-fast-relaxed-math",)
    else:
        vectors = -(-n // 8)
        items = cpu_work_items(vectors, target.units)
        launch = Launch("peer", (items,), (1,), names)
        source, design = CPU, "eight bodies in float8 lanes against every body"
        defines.update(NV=vectors, CHUNK=chunks(vectors, items))
        options = ()
    return Peer("nbody", kind, design, source, (launch,),
                {"pos": np.ascontiguousarray(pos, np.float32),
                 "vel": np.ascontiguousarray(vel, np.float32)},
                {"new_pos": ((n, 4), np.float32), "new_vel": ((n, 4), np.float32)},
                lambda host: (host["new_pos"][:, None, :], host["new_vel"][:, None, :]),
                flops(args), defines, options)


PEERS = {"nbody": (nbody, flops)}

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

from .core import Launch, Peer, chunks, cpu_work_items, round_up

FLOPS_PER_INTERACTION = 20  # the count the issue and the fast codes' papers use
GROUP = 128

GPU = """
kernel void peer(global const float4 *pos, global const float4 *vel,
                 global float4 *new_pos, global float4 *new_vel) {
    local float4 tile[GROUP];
    int i = get_global_id(0), l = get_local_id(0);
    float4 p = pos[i];
    float3 acc = (float3)(0.0f);
    for (int t = 0; t < N; t += GROUP) {
        tile[l] = pos[t + l];
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll 16
        for (int j = 0; j < GROUP; j++) {
            float4 q = tile[j];
            float3 r = q.xyz - p.xyz;
            float inv = rsqrt(fma(r.x, r.x, fma(r.y, r.y, fma(r.z, r.z, EPS_SQR))));
            acc = fma((float3)(q.w * inv * inv * inv), r, acc);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float4 v = vel[i];
    new_pos[i] = (float4)(p.xyz + v.xyz * DT + 0.5f * acc * DT * DT, p.w);
    new_vel[i] = (float4)(v.xyz + acc * DT, v.w);
}
"""

CPU = """
kernel void peer(global const float4 *pos, global const float4 *vel,
                 global float4 *new_pos, global float4 *new_vel) {
    size_t first = get_global_id(0) * CHUNK, last = min((size_t)NV, first + CHUNK);
    for (size_t g = first; g < last; g++) {
        float lx[8], ly[8], lz[8];
        for (int k = 0; k < 8; k++) {
            float4 p = pos[min(g * 8 + k, (size_t)N - 1)];
            lx[k] = p.x; ly[k] = p.y; lz[k] = p.z;
        }
        float8 px = vload8(0, lx), py = vload8(0, ly), pz = vload8(0, lz);
        float8 ax = 0.0f, ay = 0.0f, az = 0.0f;
        for (int j = 0; j < N; j++) {
            float4 q = pos[j];
            float8 rx = q.x - px, ry = q.y - py, rz = q.z - pz;
            float8 inv = rsqrt(rx * rx + ry * ry + rz * rz + EPS_SQR);
            float8 s = q.w * inv * inv * inv;
            ax += s * rx; ay += s * ry; az += s * rz;
        }
        vstore8(ax, 0, lx); vstore8(ay, 0, ly); vstore8(az, 0, lz);
        for (int k = 0; k < 8 && g * 8 + k < N; k++) {
            size_t i = g * 8 + k;
            float4 p = pos[i], v = vel[i];
            float3 acc = (float3)(lx[k], ly[k], lz[k]);
            new_pos[i] = (float4)(p.xyz + v.xyz * DT + 0.5f * acc * DT * DT, p.w);
            new_vel[i] = (float4)(v.xyz + acc * DT, v.w);
        }
    }
}
"""


def flops(args) -> float:
    return FLOPS_PER_INTERACTION * len(args[0]) ** 2


def nbody(kind: str, args, units: int) -> Peer:
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
        items = cpu_work_items(vectors, units)
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

"""N-body as the fast all-pairs codes write it (NVIDIA's GPU Gems 3 chapter 31 scheme, the
one SkelCL's ``allpairs`` uses): on a GPU each work-item one body, a group of 128 reading a
tile of 128 bodies into local memory, every work-item then summing over the tile, ``rsqrt``
and float4; on a CPU each work-item eight bodies in the lanes of float8 vectors, every other
body read once and given to all eight lanes. Lift's ``nbody``: positions and velocities as
[N] float4 (x, y, z, mass), one step of ``delta_t``, the softening ``esp_sqr``; the result
two [N][1] float4 arrays."""

from __future__ import annotations

import math
from string import Template

import numpy as np

from .core import Launch, Peer, Target, chunks, cpu_work_items, gather, lane, lanes_of, round_up

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

# bodies in the lanes of float8 or float16 vectors, each lane's acceleration applied by
# ``step`` (components named: no private arrays)
CPU = Template("""
void step(global const float4 *pos, global const float4 *vel, global float4 *new_pos,
          global float4 *new_vel, size_t i, float3 acc) {
    float4 p = pos[i], v = vel[i];
    new_pos[i] = (float4)(p.xyz + v.xyz * DT + 0.5f * acc * DT * DT, p.w);
    new_vel[i] = (float4)(v.xyz + acc * DT, v.w);
}
kernel void peer(global const float4 *pos, global const float4 *vel,
                 global float4 *new_pos, global float4 *new_vel) {
    size_t first = get_global_id(0) * CHUNK, last = min((size_t)NV, first + CHUNK);
    for (size_t g = first; g < last; g++) {
        size_t i = g * $w;
$gather
        float$w px = $px;
        float$w py = $py;
        float$w pz = $pz;
        float$w ax = 0.0f, ay = 0.0f, az = 0.0f;
        for (int j = 0; j < N; j++) {
            float4 q = pos[j];
            float$w rx = q.x - px, ry = q.y - py, rz = q.z - pz;
            float$w inv = rsqrt(rx * rx + ry * ry + rz * rz + EPS_SQR);
            float$w s = q.w * inv * inv * inv;
            ax += s * rx; ay += s * ry; az += s * rz;
        }
$steps
    }
}
""")


def cpu_source(w: int) -> str:
    steps = "\n".join(f"        if (i + {k} < N) step(pos, vel, new_pos, new_vel, i + {k},"
                      f" (float3)(ax.{lane(k)}, ay.{lane(k)}, az.{lane(k)}));"
                      for k in range(w))
    return CPU.substitute(w=w, gather=gather("p", w, "pos[min(i + {k}, (size_t)N - 1)]", " " * 8),
                          px=lanes_of("p", "x", w), py=lanes_of("p", "y", w),
                          pz=lanes_of("p", "z", w), steps=steps)


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
        w = target.width
        vectors = -(-n // w)
        items = cpu_work_items(vectors, target.units)
        launch = Launch("peer", (items,), (1,), names)
        source, design = cpu_source(w), f"{w} bodies in float{w} lanes against every body"
        defines.update(NV=vectors, CHUNK=chunks(vectors, items))
        options = ()
    return Peer("nbody", kind, design, source, (launch,),
                {"pos": np.ascontiguousarray(pos, np.float32),
                 "vel": np.ascontiguousarray(vel, np.float32)},
                {"new_pos": ((n, 4), np.float32), "new_vel": ((n, 4), np.float32)},
                lambda host: (host["new_pos"][:, None, :], host["new_vel"][:, None, :]),
                flops(args), defines, options)


PEERS = {"nbody": (nbody, flops)}

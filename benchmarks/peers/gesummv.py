"""GESUMMV (``alpha A x + beta B x``) as fast matrix-vector products are written: on a GPU a
row a group of 256, each work-item float4 loads of both rows strided by the group, then a
tree reduction of both sums in local memory; on a CPU a row a work-item, float8 loads and
two float8 accumulators a matrix, a chunk of rows each."""

from __future__ import annotations

import numpy as np

from .core import Launch, Peer, Target, chunks, cpu_work_items, vector_io

GROUP = 256

GPU = """
kernel void peer(global const float *a, global const float *b, global const float *x,
                 global float *y) {
    local float sa[GROUP], sb[GROUP];
    int row = get_group_id(0), l = get_local_id(0);
    global const float *ar = a + (size_t)row * N, *br = b + (size_t)row * N;
    float ta = 0.0f, tb = 0.0f;
#if N % 4 == 0
    for (int j = l; j < N / 4; j += GROUP) {
        float4 xv = vload4(j, x);
        float4 pa = vload4(j, ar) * xv, pb = vload4(j, br) * xv;
        ta += pa.x + pa.y + pa.z + pa.w;
        tb += pb.x + pb.y + pb.z + pb.w;
    }
#else
    for (int j = l; j < N; j += GROUP) { ta += ar[j] * x[j]; tb += br[j] * x[j]; }
#endif
    sa[l] = ta; sb[l] = tb;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = GROUP / 2; s > 0; s /= 2) {
        if (l < s) { sa[l] += sa[l + s]; sb[l] += sb[l + s]; }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) y[row] = ALPHA * sa[0] + BETA * sb[0];
}
"""

CPU = """
kernel void peer(global const float *a, global const float *b, global const float *x,
                 global float *y) {
    size_t first = get_global_id(0) * CHUNK, last = min((size_t)N, first + CHUNK);
    for (size_t row = first; row < last; row++) {
        global const float *ar = a + row * N, *br = b + row * N;
        float8 a0 = 0.0f, a1 = 0.0f, b0 = 0.0f, b1 = 0.0f;
        int j = 0;
        for (; j + 16 <= N; j += 16) {
            float8 x0 = vload8(0, x + j), x1 = vload8(0, x + j + 8);
            a0 += vload8(0, ar + j) * x0; a1 += vload8(0, ar + j + 8) * x1;
            b0 += vload8(0, br + j) * x0; b1 += vload8(0, br + j + 8) * x1;
        }
        float8 av = a0 + a1, bv = b0 + b1;
        float4 a4 = av.lo + av.hi, b4 = bv.lo + bv.hi;
        float ta = a4.x + a4.y + a4.z + a4.w, tb = b4.x + b4.y + b4.z + b4.w;
        for (; j < N; j++) { ta += ar[j] * x[j]; tb += br[j] * x[j]; }
        y[row] = ALPHA * ta + BETA * tb;
    }
}
"""


def flops(args) -> float:
    n = len(args[2])
    return 4 * n * n + 3 * n


def gesummv(kind: str, args, target: Target) -> Peer:
    a, b, x, alpha, beta = args
    n = len(x)
    defines = {"N": n, "ALPHA": np.float32(alpha), "BETA": np.float32(beta)}
    names = ("a", "b", "x", "y")
    if kind == "gpu":
        launch = Launch("peer", (n * GROUP,), (GROUP,), names)
        source, design = GPU, "a row a group, float4 loads, a tree reduction"
        defines["GROUP"] = GROUP
    else:
        items = cpu_work_items(n, target.units)
        launch = Launch("peer", (items,), (1,), names)
        source, design = vector_io(8) + CPU, "a row a work-item, float8 accumulators"
        defines["CHUNK"] = chunks(n, items)
    return Peer("gesummvNN", kind, design, source, (launch,),
                {k: np.ascontiguousarray(v, np.float32) for k, v in zip(names, (a, b, x))},
                {"y": ((n,), np.float32)}, lambda host: host["y"], flops(args), defines)


PEERS = {"gesummvNN": (gesummv, flops)}

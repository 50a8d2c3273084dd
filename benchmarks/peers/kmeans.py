"""K-means' assignment step as Rodinia's ``kmeans_kernel_c`` writes it: a point a work-item,
the features in the feature-major layout Lift's program takes ([F][P]: neighbouring
work-items read neighbouring floats), the squared distance to each cluster and the first
nearest kept; the clusters in constant memory. On a CPU eight points in the lanes of float8
vectors, the features read once for all the clusters (a distance accumulator per cluster),
the nearest chosen by ``select`` lane by lane."""

from __future__ import annotations

from string import Template

import numpy as np

from .core import Launch, Peer, Target, chunks, cpu_work_items, round_up, vector_io

FLOPS_PER_POINT_CLUSTER_FEATURE = 3  # a difference, a square, a sum
GROUP = 256

GPU = """
kernel void peer(global const float *features, constant float *clusters, global int *out) {
    int p = get_global_id(0);
    if (p >= P) return;
    float best = INFINITY;
    int index = 0;
    for (int c = 0; c < C; c++) {
        float d = 0.0f;
        for (int f = 0; f < F; f++) {
            float diff = features[f * P + p] - clusters[c * F + f];
            d += diff * diff;
        }
        if (d < best) { best = d; index = c; }
    }
    out[p] = index;
}
"""

# the CPU kernel's per-cluster statements, written out for the program's number of clusters
# (a sum a cluster in a register of its own)
CPU = Template("""
kernel void peer(global const float *features, global const float *clusters,
                 global int *out) {
    size_t first = get_global_id(0) * CHUNK, last = min((size_t)NV, first + CHUNK);
    for (size_t v = first; v < last; v++) {
        size_t i = v * 8;
        float8 $zeros;
        #pragma unroll 2
        for (int f = 0; f < F; f++) {
            float8 x = load8(features + f * P, i, P), diff;
$sums
        }
        float8 best = d0;
        int8 index = 0, nearer;
$nearest
        if (i + 8 <= P) vstore8(index, 0, out + i);
        else {
            union { int8 v; int a[8]; } lanes;
            lanes.v = index;
            for (int k = 0; i + k < P; k++) out[i + k] = lanes.a[k];
        }
    }
}
""")


def cpu_source(clusters: int) -> str:
    return CPU.substitute(
        zeros=", ".join(f"d{c} = 0.0f" for c in range(clusters)),
        sums="\n".join(f"            diff = x - clusters[{c} * F + f]; d{c} += diff * diff;"
                       for c in range(clusters)),
        nearest="\n".join(f"        nearer = d{c} < best; best = select(best, d{c}, nearer);"
                          f" index = select(index, (int8)({c}), nearer);"
                          for c in range(1, clusters)))


def flops(args) -> float:
    features, clusters = args
    return FLOPS_PER_POINT_CLUSTER_FEATURE * features.size * len(clusters)


def kmeans(kind: str, args, target: Target) -> Peer:
    features, clusters = args
    f, p = features.shape
    defines = {"P": p, "F": f, "C": len(clusters)}
    if kind == "gpu":
        launch = Launch("peer", (round_up(p, GROUP),), (GROUP,), ("features", "clusters", "out"))
        source, design = GPU, "a point a work-item, the clusters in constant memory"
    else:
        vectors = -(-p // 8)
        items = cpu_work_items(vectors, target.units)
        launch = Launch("peer", (items,), (1,), ("features", "clusters", "out"))
        source = vector_io(8) + cpu_source(len(clusters))
        design = "eight points in float8 lanes, a sum per cluster"
        defines.update(NV=vectors, CHUNK=chunks(vectors, items))
    return Peer("kmeans", kind, design, source, (launch,),
                {"features": np.ascontiguousarray(features, np.float32),
                 "clusters": np.ascontiguousarray(clusters, np.float32)},
                {"out": ((p,), np.int32)}, lambda host: host["out"][:, None], flops(args),
                defines)


PEERS = {"kmeans": (kmeans, flops)}

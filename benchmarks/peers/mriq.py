"""MRI-Q's two kernels as Parboil writes them, ``computeQ`` and ``phiMag``.

``computeQ``: every voxel sums over all k-space samples; on a GPU a group of 256 voxels
reads the samples through local memory, a tile at a time, each read once from global memory
for the whole group (Parboil keeps them in constant memory, whose 64 KiB Lift's largest size
fills); on a CPU each work-item takes a chunk of voxels two vectors of eight or sixteen
(float8 or float16) at a time, one sample to all lanes, the sine and cosine of 2π·t as
``sinpi`` and ``cospi`` of 2t. ``phiMag``: an elementwise map."""

from __future__ import annotations

from string import Template

import numpy as np

from .core import Launch, Peer, Target, chunks, cpu_work_items, map_peer, round_up, vector_io

# per voxel and sample: the argument 6 (three products, two sums, the factor 2 pi), sine
# and cosine 2, the two weighted sums 4
FLOPS_PER_VOXEL_SAMPLE = 12
GROUP = 256

GPU_Q = """
kernel void peer(global const float *x, global const float *y, global const float *z,
                 global const float *kx, global const float *ky, global const float *kz,
                 global const float *phi, global float *qr, global float *qi) {
    local float tx[TILE], ty[TILE], tz[TILE], tphi[TILE];
    int i = get_global_id(0), l = get_local_id(0);
    int j = min(i, N - 1);
    float px = x[j], py = y[j], pz = z[j], sr = 0.0f, si = 0.0f;
    for (int t = 0; t < K; t += TILE) {
        for (int m = l; m < TILE; m += GROUP) {
            int k = min(t + m, K - 1);
            tx[m] = kx[k]; ty[m] = ky[k]; tz[m] = kz[k]; tphi[m] = phi[k];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        int count = min(TILE, K - t);
        for (int m = 0; m < count; m++) {
            float arg = TWO_PI * (px * tx[m] + py * ty[m] + pz * tz[m]);
            float c, s = sincos(arg, &c);
            sr += tphi[m] * c;
            si += tphi[m] * s;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (i < N) { qr[i] = sr; qi[i] = si; }
}
"""

# two vectors of voxels a step share each sample's loads; the angle 2π·t taken in turns
# (sinpi(2t), cospi(2t): reduced to a period exactly; on PoCL twice as fast as sincos of
# 2π·t, and nearer the exact values: benchmarks.mriq_study)
CPU_Q = Template("""
kernel void peer(global const float *x, global const float *y, global const float *z,
                 global const float *kx, global const float *ky, global const float *kz,
                 global const float *phi, global float *qr, global float *qi) {
    size_t first = get_global_id(0) * CHUNK, last = min((size_t)NV, first + CHUNK);
    for (size_t v = first; v < last; v += 2) {
        size_t i = v * $w, j = min(v + 1, (size_t)NV - 1) * $w;
        float$w px = load$w(x, i, N), py = load$w(y, i, N), pz = load$w(z, i, N);
        float$w qx = load$w(x, j, N), qy = load$w(y, j, N), qz = load$w(z, j, N);
        float$w sr = 0.0f, si = 0.0f, tr = 0.0f, ti = 0.0f;
        for (int k = 0; k < K; k++) {
            float ax = 2.0f * kx[k], ay = 2.0f * ky[k], az = 2.0f * kz[k], p = phi[k];
            float$w a = px * ax + py * ay + pz * az, b = qx * ax + qy * ay + qz * az;
            sr += p * cospi(a);
            si += p * sinpi(a);
            tr += p * cospi(b);
            ti += p * sinpi(b);
        }
        store$w(sr, qr, i, N);
        store$w(si, qi, i, N);
        if (v + 1 < last) { store$w(tr, qr, j, N); store$w(ti, qi, j, N); }
    }
}
""")


def flops_q(args) -> float:
    return FLOPS_PER_VOXEL_SAMPLE * args[0].size * args[3][0].size


def compute_q(kind: str, args, target: Target) -> Peer:
    x, y, z, (kx, ky, kz, phi) = args
    n, k = x.size, kx.size
    inputs = {"x": x, "y": y, "z": z, "kx": kx, "ky": ky, "kz": kz, "phi": phi}
    defines = {"N": n, "K": k, "TWO_PI": np.float32(2 * np.pi)}
    if kind == "gpu":
        tile = min(GROUP, k)
        launch = Launch("peer", (round_up(n, GROUP),), (GROUP,), (*inputs, "qr", "qi"))
        source, design = GPU_Q, "a voxel a work-item, samples tiled through local memory"
        defines.update(TILE=tile, GROUP=GROUP)
    else:
        w = target.width
        vectors = -(-n // w)
        items = cpu_work_items(-(-vectors // 2), target.units)
        launch = Launch("peer", (items,), (1,), (*inputs, "qr", "qi"))
        source = vector_io(w) + CPU_Q.substitute(w=w)
        design = (f"chunks of voxels, two vectors of {w} at a time, each sample to all lanes, "
                  f"sinpi and cospi")
        defines.update(NV=vectors, CHUNK=2 * chunks(-(-vectors // 2), items))
    return Peer("mriqComputeQ", kind, design, source, (launch,),
                {name: np.ascontiguousarray(a, np.float32) for name, a in inputs.items()},
                {"qr": ((n,), np.float32), "qi": ((n,), np.float32)},
                lambda host: (host["qr"][:, None], host["qi"][:, None]), flops_q(args),
                defines)


def flops_phi_mag(args) -> float:
    return 3 * args[0].size


def phi_mag(kind: str, args, target: Target) -> Peer:
    phi_r, phi_i = args
    return map_peer("mriqPhiMag", kind, "vectors of samples", phi_r.size,
                    {"phi_r": phi_r, "phi_i": phi_i}, ["mag"],
                    "mag = phi_r * phi_r + phi_i * phi_i;", lambda m: m, flops_phi_mag(args),
                    target)


PEERS = {"mriqComputeQ": (compute_q, flops_q), "mriqPhiMag": (phi_mag, flops_phi_mag)}

// derivation icfp_fig3_vector_scaling on [float]_4096 (N=4096)
float4 uf_mul3_v4(float4 x_) { return (x_ * 3); }


// join ∘ mapWorkgroup (joinVec ∘ mapLocal (mapVec mul3) ∘ splitVec 4) ∘ split 1024

kernel void icfp_fig3_vector_scaling_0(global const float *restrict in0, global float *restrict out) {
    /* mapWorkgroup (joinVec ∘ mapLocal (mapVec mul3) ∘ splitVec 4) */
    {
        int wg1 = get_group_id(0);
        if (wg1 < 4) {
            /* mapLocal (mapVec mul3) */
            {
                int l2 = get_local_id(0);
                *(global float4 *)(out + 4*l2 + 1024*wg1) = uf_mul3_v4((*(global const float4 *)(in0 + 4*l2 + 1024*wg1)));
            }
        }
    }
}

// join ∘ mapWorkgroup (join ∘ mapLocal (mapSeq id) ∘ split 4) ∘ split 1024

kernel void kernel_0(global const float *restrict in0, global float *restrict out) {
    /* mapWorkgroup (join ∘ mapLocal (mapSeq id) ∘ split 4) */
    {
        int wg1 = get_group_id(0);
        if (wg1 < 4) {
            /* mapLocal (mapSeq id) */
            {
                int l2 = get_local_id(0);
                /* mapSeq id */
                for (int i3 = 0; i3 < 4; i3++) {
                    out[i3 + 4*l2 + 1024*wg1] = in0[i3 + 4*l2 + 1024*wg1];
                }
            }
        }
    }
}

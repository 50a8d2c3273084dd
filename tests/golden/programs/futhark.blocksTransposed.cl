// program futhark.blocksTransposed on [[[float]_1024]_1024]_1024 (K=1024, M=1024, N=1024)
// mapGlobal (mapSeq (mapSeq id)) ∘ map transpose

kernel void blocksTransposed_0(global const float *restrict in0, global float *restrict out) {
    /* mapGlobal (mapSeq (mapSeq id)) */
    {
        int gl1 = get_global_id(0);
        /* mapSeq (mapSeq id) */
        for (int i2 = 0; i2 < 1024; i2++) {
            /* mapSeq id */
            for (int i3 = 0; i3 < 1024; i3++) {
                out[1048576*gl1 + 1024*i2 + i3] = in0[1048576*gl1 + i2 + 1024*i3];
            }
        }
    }
}

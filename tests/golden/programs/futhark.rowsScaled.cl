// program futhark.rowsScaled on [[float]_1024]_1024 (M=1024, N=1024)
float rowsScaled_f5(float x_) { return ((x_ * 0.5f) + 1); }


// mapGlobal (iterate 4 (mapSeq (λx. x * 0.5 + 1)))

kernel void rowsScaled_0(global const float *restrict in0, global float *restrict out) {
    /* mapGlobal (iterate 4 (mapSeq (λx. x * 0.5 + 1))) */
    {
        int gl1 = get_global_id(0);
        float prv2[1024];
        float prv3[1024];
        /* mapSeq (λx. x * 0.5 + 1) */
        for (int i4 = 0; i4 < 1024; i4++) {
            prv2[i4] = rowsScaled_f5(in0[1024*gl1 + i4]);
        }
        /* mapSeq (λx. x * 0.5 + 1) */
        for (int i6 = 0; i6 < 1024; i6++) {
            prv3[i6] = rowsScaled_f5(prv2[i6]);
        }
        /* mapSeq (λx. x * 0.5 + 1) */
        for (int i8 = 0; i8 < 1024; i8++) {
            prv2[i8] = rowsScaled_f5(prv3[i8]);
        }
        /* mapSeq (λx. x * 0.5 + 1) */
        for (int i10 = 0; i10 < 1024; i10++) {
            out[1024*gl1 + i10] = rowsScaled_f5(prv2[i10]);
        }
    }
}

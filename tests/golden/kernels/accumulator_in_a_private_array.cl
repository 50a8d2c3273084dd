struct Tuple_float_float { float _0; float _1; };
float kernel_f6(struct Tuple_float_float a0_) { return (a0_._0 + a0_._1); }


// mapGlobal (λm. join (reduceSeq (λ(acc, row). mapSeq (+) (zip acc row)) (replicate 8 0) m))

kernel void kernel_0(global const float *restrict in0, global float *restrict out) {
    /* mapGlobal (λm. join (reduceSeq (λ(acc, row). mapSeq (+) (zip acc ro... */
    {
        int gl1 = get_global_id(0);
        float prv2[8];
        for (int c3 = 0; c3 < 8; c3++) {
            prv2[c3] = 0.0f;
        }
        /* reduceSeq (λ(acc, row). mapSeq (+) (zip acc row)) (replicate 8 0) */
        for (int i4 = 0; i4 < 16; i4++) {
            /* mapSeq (+) */
            for (int i5 = 0; i5 < 8; i5++) {
                prv2[i5] = kernel_f6(((struct Tuple_float_float){prv2[i5], in0[128*gl1 + 8*i4 + i5]}));
            }
        }
        for (int c7 = 0; c7 < 8; c7++) {
            out[c7 + 8*gl1] = prv2[c7];
        }
    }
}

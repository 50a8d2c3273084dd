// program figures.fig10_6 on [float]_1024 (N=1024)
float fig10_6_abs5(float a0_) { return as_float((as_uint(a0_) & 0x7fffffffu)); }
struct Tuple_float_float { float _0; float _1; };
float fig10_6_f6(struct Tuple_float_float a0_) { return (a0_._0 + a0_._1); }


// reduceSeq (+) 0 ∘ join ∘ mapGlobal (reduceSeq (+) 0 ∘ mapSeq abs) ∘ split 128

kernel void fig10_6_0(global const float *restrict in0, global float *restrict tmp1) {
    /* mapGlobal (reduceSeq (+) 0 ∘ mapSeq abs) */
    {
        int gl2 = get_global_id(0);
        float acc3 = 0.0f;
        /* reduceSeq (+) 0 */
        for (int i4 = 0; i4 < 128; i4++) {
            acc3 = fig10_6_f6(((struct Tuple_float_float){acc3, fig10_6_abs5(in0[128*gl2 + i4])}));
        }
        tmp1[gl2] = acc3;
    }
}

// reduceSeq (+) 0 ∘ join ∘ mapGlobal (reduceSeq (+) 0 ∘ mapSeq abs) ∘ split 128

kernel void fig10_6_1(global float *restrict out, global float *restrict tmp1) {
    float acc7 = 0.0f;
    /* reduceSeq (+) 0 */
    for (int i8 = 0; i8 < 8; i8++) {
        acc7 = fig10_6_f6(((struct Tuple_float_float){acc7, tmp1[i8]}));
    }
    out[0] = acc7;
}

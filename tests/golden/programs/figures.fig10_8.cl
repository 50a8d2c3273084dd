// program figures.fig10_8 on [float]_1024 (N=1024)
struct Tuple_float_float { float _0; float _1; };
float fig10_8_f5(struct Tuple_float_float p0) { return (p0._0 + as_float((as_uint(p0._1) & 0x7fffffffu))); }
float fig10_8_f8(struct Tuple_float_float a0_) { return (a0_._0 + a0_._1); }


// reduceSeq (+) 0 ∘ join ∘ mapGlobal (reduceSeq (λ(acc, a). acc + abs a) 0) ∘ split 128

kernel void fig10_8_0(global const float *restrict in0, global float *restrict tmp1) {
    /* mapGlobal (reduceSeq (λ(acc, a). acc + abs a) 0) */
    {
        int gl2 = get_global_id(0);
        float acc3 = 0.0f;
        /* reduceSeq (λ(acc, a). acc + abs a) 0 */
        for (int i4 = 0; i4 < 128; i4++) {
            acc3 = fig10_8_f5(((struct Tuple_float_float){acc3, in0[128*gl2 + i4]}));
        }
        tmp1[gl2] = acc3;
    }
}

// reduceSeq (+) 0 ∘ join ∘ mapGlobal (reduceSeq (λ(acc, a). acc + abs a) 0) ∘ split 128

kernel void fig10_8_1(global float *restrict out, global float *restrict tmp1) {
    float acc6 = 0.0f;
    /* reduceSeq (+) 0 */
    for (int i7 = 0; i7 < 8; i7++) {
        acc6 = fig10_8_f8(((struct Tuple_float_float){acc6, tmp1[i7]}));
    }
    out[0] = acc6;
}

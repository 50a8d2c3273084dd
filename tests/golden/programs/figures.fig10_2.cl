// program figures.fig10_2 on [float]_1024 (N=1024)
float fig10_2_abs3(float a0_) { return as_float((as_uint(a0_) & 0x7fffffffu)); }
struct Tuple_float_float { float _0; float _1; };
float fig10_2_f8(struct Tuple_float_float a0_) { return (a0_._0 + a0_._1); }


// reduceSeq (+) 0 ∘ join ∘ mapGlobal (reduceSeq (+) 0) ∘ split 128 ∘ mapGlobal abs

kernel void fig10_2_0(global const float *restrict in0, global float *restrict tmp1) {
    /* mapGlobal abs */
    {
        int gl2 = get_global_id(0);
        tmp1[gl2] = fig10_2_abs3(in0[gl2]);
    }
}

// reduceSeq (+) 0 ∘ join ∘ mapGlobal (reduceSeq (+) 0) ∘ split 128 ∘ mapGlobal abs

kernel void fig10_2_1(global float *restrict tmp1, global float *restrict tmp4) {
    /* mapGlobal (reduceSeq (+) 0) */
    {
        int gl5 = get_global_id(0);
        float acc6 = 0.0f;
        /* reduceSeq (+) 0 */
        for (int i7 = 0; i7 < 128; i7++) {
            acc6 = fig10_2_f8(((struct Tuple_float_float){acc6, tmp1[128*gl5 + i7]}));
        }
        tmp4[gl5] = acc6;
    }
}

// reduceSeq (+) 0 ∘ join ∘ mapGlobal (reduceSeq (+) 0) ∘ split 128 ∘ mapGlobal abs

kernel void fig10_2_2(global float *restrict out, global float *restrict tmp4) {
    float acc9 = 0.0f;
    /* reduceSeq (+) 0 */
    for (int i10 = 0; i10 < 8; i10++) {
        acc9 = fig10_2_f8(((struct Tuple_float_float){acc9, tmp4[i10]}));
    }
    out[0] = acc9;
}

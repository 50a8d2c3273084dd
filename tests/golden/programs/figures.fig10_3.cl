// program figures.fig10_3 on [float]_1024 (N=1024)
float fig10_3_abs4(float a0_) { return as_float((as_uint(a0_) & 0x7fffffffu)); }
struct Tuple_float_float { float _0; float _1; };
float fig10_3_f9(struct Tuple_float_float a0_) { return (a0_._0 + a0_._1); }


// reduceSeq (+) 0 ∘ join ∘ mapGlobal (reduceSeq (+) 0) ∘ split 128 ∘ join ∘ mapGlobal (mapSeq abs) ∘ split 128

kernel void fig10_3_0(global const float *restrict in0, global float *restrict tmp1) {
    /* mapGlobal (mapSeq abs) */
    {
        int gl2 = get_global_id(0);
        /* mapSeq abs */
        for (int i3 = 0; i3 < 128; i3++) {
            tmp1[128*gl2 + i3] = fig10_3_abs4(in0[128*gl2 + i3]);
        }
    }
}

// reduceSeq (+) 0 ∘ join ∘ mapGlobal (reduceSeq (+) 0) ∘ split 128 ∘ join ∘ mapGlobal (mapSeq abs) ∘ split 128

kernel void fig10_3_1(global float *restrict tmp1, global float *restrict tmp5) {
    /* mapGlobal (reduceSeq (+) 0) */
    {
        int gl6 = get_global_id(0);
        float acc7 = 0.0f;
        /* reduceSeq (+) 0 */
        for (int i8 = 0; i8 < 128; i8++) {
            acc7 = fig10_3_f9(((struct Tuple_float_float){acc7, tmp1[128*gl6 + i8]}));
        }
        tmp5[gl6] = acc7;
    }
}

// reduceSeq (+) 0 ∘ join ∘ mapGlobal (reduceSeq (+) 0) ∘ split 128 ∘ join ∘ mapGlobal (mapSeq abs) ∘ split 128

kernel void fig10_3_2(global float *restrict out, global float *restrict tmp5) {
    float acc10 = 0.0f;
    /* reduceSeq (+) 0 */
    for (int i11 = 0; i11 < 8; i11++) {
        acc10 = fig10_3_f9(((struct Tuple_float_float){acc10, tmp5[i11]}));
    }
    out[0] = acc10;
}

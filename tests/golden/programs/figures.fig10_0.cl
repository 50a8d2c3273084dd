// program figures.fig10_0 on [float]_1024 (N=1024)
float fig10_0_abs3(float a0_) { return as_float((as_uint(a0_) & 0x7fffffffu)); }
struct Tuple_float_float { float _0; float _1; };
float fig10_0_f6(struct Tuple_float_float a0_) { return (a0_._0 + a0_._1); }


// reduceSeq (+) 0 ∘ mapGlobal abs

kernel void fig10_0_0(global const float *restrict in0, global float *restrict tmp1) {
    /* mapGlobal abs */
    {
        int gl2 = get_global_id(0);
        tmp1[gl2] = fig10_0_abs3(in0[gl2]);
    }
}

// reduceSeq (+) 0 ∘ mapGlobal abs

kernel void fig10_0_1(global float *restrict out, global float *restrict tmp1) {
    float acc4 = 0.0f;
    /* reduceSeq (+) 0 */
    for (int i5 = 0; i5 < 1024; i5++) {
        acc4 = fig10_0_f6(((struct Tuple_float_float){acc4, tmp1[i5]}));
    }
    out[0] = acc4;
}

// program p2cl.dot on [float]_1024, [float]_1024 (N=1024)
struct Tuple_float_float { float _0; float _1; };
float dot_f3(struct Tuple_float_float a0_) { return (a0_._0 * a0_._1); }
float dot_f6(struct Tuple_float_float a0_) { return (a0_._0 + a0_._1); }


// λxs ys. (reduceSeq (+) 0 ∘ mapGlobal (*)) (zip xs ys)

kernel void dot_0(global const float *restrict in0, global const float *restrict in1, global float *restrict tmp1) {
    /* mapGlobal (*) */
    {
        int gl2 = get_global_id(0);
        tmp1[gl2] = dot_f3(((struct Tuple_float_float){in0[gl2], in1[gl2]}));
    }
}

// λxs ys. (reduceSeq (+) 0 ∘ mapGlobal (*)) (zip xs ys)

kernel void dot_1(global float *restrict out, global float *restrict tmp1) {
    float acc4 = 0.0f;
    /* reduceSeq (+) 0 */
    for (int i5 = 0; i5 < 1024; i5++) {
        acc4 = dot_f6(((struct Tuple_float_float){acc4, tmp1[i5]}));
    }
    out[0] = acc4;
}

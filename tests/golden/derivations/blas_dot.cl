// derivation blas_dot on [float]_1024, [float]_1024 (N=1024)
struct Tuple_float_float { float _0; float _1; };
struct Tuple_float_Tuple_float_float { float _0; struct Tuple_float_float _1; };
float blas_dot_f5(struct Tuple_float_Tuple_float_float p0) { return (p0._0 + (p0._1._0 * p0._1._1)); }
float blas_dot_f8(struct Tuple_float_float a0_) { return (a0_._0 + a0_._1); }


// λxs ys. (reduceSeq (+) 0 ∘ join ∘ mapGlobal (reduceSeq (λ(acc, x). acc + (*) x) 0) ∘ split 128) (zip xs ys)

kernel void blas_dot_0(global const float *restrict in0, global const float *restrict in1, global float *restrict tmp1) {
    /* mapGlobal (reduceSeq (λ(acc, x). acc + (*) x) 0) */
    {
        int gl2 = get_global_id(0);
        float acc3 = 0.0f;
        /* reduceSeq (λ(acc, x). acc + (*) x) 0 */
        for (int i4 = 0; i4 < 128; i4++) {
            acc3 = blas_dot_f5(((struct Tuple_float_Tuple_float_float){acc3, ((struct Tuple_float_float){in0[128*gl2 + i4], in1[128*gl2 + i4]})}));
        }
        tmp1[gl2] = acc3;
    }
}

// λxs ys. (reduceSeq (+) 0 ∘ join ∘ mapGlobal (reduceSeq (λ(acc, x). acc + (*) x) 0) ∘ split 128) (zip xs ys)

kernel void blas_dot_1(global float *restrict out, global float *restrict tmp1) {
    float acc6 = 0.0f;
    /* reduceSeq (+) 0 */
    for (int i7 = 0; i7 < 8; i7++) {
        acc6 = blas_dot_f8(((struct Tuple_float_float){acc6, tmp1[i7]}));
    }
    out[0] = acc6;
}

// derivation blas_gemv on [[float]_128]_64, [float]_128, [float]_64, float, float (M=64, N=128)
struct Tuple_float_float { float _0; float _1; };
struct Tuple_float_Tuple_float_float { float _0; struct Tuple_float_float _1; };
float blas_gemv_f6(struct Tuple_float_Tuple_float_float p0) { return (p0._0 + (p0._1._0 * p0._1._1)); }
float blas_gemv_f8(float a_, float a0_) { return (a0_ * a_); }
float blas_gemv_f13(struct Tuple_float_float a0_) { return (a0_._0 + a0_._1); }


// λmat xs ys α β. mapGlobal (+) (zip (join (mapGlobal ((λa. mapSeq (*a)) α ∘ (λxs ys. reduceSeq (λ(acc, x). acc + (*) x) 0 (zip xs ys)) xs) mat)) ((λa. mapGlobal (*a)) β ys))

kernel void blas_gemv_0(global const float *restrict in0, global const float *restrict in1, global const float *restrict in3, global float *restrict tmp1) {
    /* mapGlobal ((λa. mapSeq (*a)) α ∘ (λxs ys. reduceSeq (λ(acc, x). acc... */
    {
        int gl2 = get_global_id(0);
        float prv3[1];
        float acc4 = 0.0f;
        /* reduceSeq (λ(acc, x). acc + (*) x) 0 */
        for (int i5 = 0; i5 < 128; i5++) {
            acc4 = blas_gemv_f6(((struct Tuple_float_Tuple_float_float){acc4, ((struct Tuple_float_float){in1[i5], in0[128*gl2 + i5]})}));
        }
        prv3[0] = acc4;
        /* mapSeq (*a) */
        for (int i7 = 0; i7 < 1; i7++) {
            tmp1[gl2 + i7] = blas_gemv_f8(in3[0], prv3[i7]);
        }
    }
}

// λmat xs ys α β. mapGlobal (+) (zip (join (mapGlobal ((λa. mapSeq (*a)) α ∘ (λxs ys. reduceSeq (λ(acc, x). acc + (*) x) 0 (zip xs ys)) xs) mat)) ((λa. mapGlobal (*a)) β ys))

kernel void blas_gemv_1(global const float *restrict in2, global const float *restrict in4, global float *restrict tmp9) {
    /* mapGlobal (*a) */
    {
        int gl10 = get_global_id(0);
        tmp9[gl10] = blas_gemv_f8(in4[0], in2[gl10]);
    }
}

// λmat xs ys α β. mapGlobal (+) (zip (join (mapGlobal ((λa. mapSeq (*a)) α ∘ (λxs ys. reduceSeq (λ(acc, x). acc + (*) x) 0 (zip xs ys)) xs) mat)) ((λa. mapGlobal (*a)) β ys))

kernel void blas_gemv_2(global float *restrict out, global float *restrict tmp1, global float *restrict tmp9) {
    /* mapGlobal (+) */
    {
        int gl12 = get_global_id(0);
        out[gl12] = blas_gemv_f13(((struct Tuple_float_float){tmp1[gl12], tmp9[gl12]}));
    }
}

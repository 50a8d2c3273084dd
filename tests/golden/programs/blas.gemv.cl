// program blas.gemv on [[float]_1024]_1024, [float]_1024, [float]_1024, float, float (M=1024, N=1024)
struct Tuple_float_float { float _0; float _1; };
float gemv_f6(struct Tuple_float_float a0_) { return (a0_._0 * a0_._1); }
float gemv_f7(struct Tuple_float_float a0_) { return (a0_._0 + a0_._1); }
float gemv_f9(float a_, float a0_) { return (a0_ * a_); }


// λmat xs ys α β. mapGlobal (+) (zip (join (mapGlobal ((λa. mapSeq (*a)) α ∘ (λxs ys. (reduceSeq (+) 0 ∘ mapSeq (*)) (zip xs ys)) xs) mat)) ((λa. mapGlobal (*a)) β ys))

kernel void gemv_0(global const float *restrict in0, global const float *restrict in1, global const float *restrict in3, global float *restrict tmp1) {
    /* mapGlobal ((λa. mapSeq (*a)) α ∘ (λxs ys. (reduceSeq (+) 0 ∘ mapSeq... */
    {
        int gl2 = get_global_id(0);
        float prv3[1];
        float acc4 = 0.0f;
        /* reduceSeq (+) 0 */
        for (int i5 = 0; i5 < 1024; i5++) {
            acc4 = gemv_f7(((struct Tuple_float_float){acc4, gemv_f6(((struct Tuple_float_float){in1[i5], in0[1024*gl2 + i5]}))}));
        }
        prv3[0] = acc4;
        /* mapSeq (*a) */
        for (int i8 = 0; i8 < 1; i8++) {
            tmp1[gl2 + i8] = gemv_f9(in3[0], prv3[i8]);
        }
    }
}

// λmat xs ys α β. mapGlobal (+) (zip (join (mapGlobal ((λa. mapSeq (*a)) α ∘ (λxs ys. (reduceSeq (+) 0 ∘ mapSeq (*)) (zip xs ys)) xs) mat)) ((λa. mapGlobal (*a)) β ys))

kernel void gemv_1(global const float *restrict in2, global const float *restrict in4, global float *restrict tmp10) {
    /* mapGlobal (*a) */
    {
        int gl11 = get_global_id(0);
        tmp10[gl11] = gemv_f9(in4[0], in2[gl11]);
    }
}

// λmat xs ys α β. mapGlobal (+) (zip (join (mapGlobal ((λa. mapSeq (*a)) α ∘ (λxs ys. (reduceSeq (+) 0 ∘ mapSeq (*)) (zip xs ys)) xs) mat)) ((λa. mapGlobal (*a)) β ys))

kernel void gemv_2(global float *restrict out, global float *restrict tmp1, global float *restrict tmp10) {
    /* mapGlobal (+) */
    {
        int gl13 = get_global_id(0);
        out[gl13] = gemv_f7(((struct Tuple_float_float){tmp1[gl13], tmp10[gl13]}));
    }
}

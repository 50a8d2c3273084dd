// program blas.gemv on [[float]_1024]_1024, [float]_1024, [float]_1024, float, float (M=1024, N=1024)
struct Tuple_float_float { float _0; float _1; };
float gemv_f5(struct Tuple_float_float a0_) { return (a0_._0 * a0_._1); }
float gemv_f9(struct Tuple_float_float a0_) { return (a0_._0 + a0_._1); }
float gemv_f11(float a_, float a0_) { return (a0_ * a_); }


// λmat xs ys α β. mapGlobal (+) (zip (join (mapGlobal ((λa. mapSeq (*a)) α ∘ (λxs ys. (reduceSeq (+) 0 ∘ mapSeq (*)) (zip xs ys)) xs) mat)) ((λa. mapGlobal (*a)) β ys))

kernel void gemv_0(global const float *restrict in0, global const float *restrict in1, global const float *restrict in3, global float *restrict tmp1) {
    /* mapGlobal ((λa. mapSeq (*a)) α ∘ (λxs ys. (reduceSeq (+) 0 ∘ mapSeq... */
    for (int gl2 = get_global_id(0); gl2 < 1024; gl2 += 1024) {
        float prv3[1024];
        /* mapSeq (*) */
        for (int i4 = 0; i4 < 1024; i4++) {
            prv3[i4] = gemv_f5(((struct Tuple_float_float){in1[i4], in0[1024*gl2 + i4]}));
        }
        float prv6[1];
        float acc7 = 0.0f;
        /* reduceSeq (+) 0 */
        for (int i8 = 0; i8 < 1024; i8++) {
            acc7 = gemv_f9(((struct Tuple_float_float){acc7, prv3[i8]}));
        }
        prv6[0] = acc7;
        /* mapSeq (*a) */
        for (int i10 = 0; i10 < 1; i10++) {
            tmp1[gl2 + i10] = gemv_f11(in3[0], prv6[i10]);
        }
    }
}

// λmat xs ys α β. mapGlobal (+) (zip (join (mapGlobal ((λa. mapSeq (*a)) α ∘ (λxs ys. (reduceSeq (+) 0 ∘ mapSeq (*)) (zip xs ys)) xs) mat)) ((λa. mapGlobal (*a)) β ys))

kernel void gemv_1(global const float *restrict in2, global const float *restrict in4, global float *restrict tmp12) {
    /* mapGlobal (*a) */
    for (int gl13 = get_global_id(0); gl13 < 1024; gl13 += 1024) {
        tmp12[gl13] = gemv_f11(in4[0], in2[gl13]);
    }
}

// λmat xs ys α β. mapGlobal (+) (zip (join (mapGlobal ((λa. mapSeq (*a)) α ∘ (λxs ys. (reduceSeq (+) 0 ∘ mapSeq (*)) (zip xs ys)) xs) mat)) ((λa. mapGlobal (*a)) β ys))

kernel void gemv_2(global float *restrict out, global float *restrict tmp1, global float *restrict tmp12) {
    /* mapGlobal (+) */
    for (int gl15 = get_global_id(0); gl15 < 1024; gl15 += 1024) {
        out[gl15] = gemv_f9(((struct Tuple_float_float){tmp1[gl15], tmp12[gl15]}));
    }
}

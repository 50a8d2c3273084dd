// program mm.mm on [[float]_1024]_1024, [[float]_1024]_1024 (K=1024, M=1024, N=1024)
struct Tuple_float_float { float _0; float _1; };
float mm_f5(struct Tuple_float_float a0_) { return (a0_._0 * a0_._1); }
float mm_f6(struct Tuple_float_float a0_) { return (a0_._0 + a0_._1); }


// λa b. mapGlobal (λrowA. join (mapSeq (λcolB. (reduceSeq (+) 0 ∘ mapSeq (*)) (zip rowA colB)) (transpose b))) a

kernel void mm_0(global const float *restrict in0, global const float *restrict in1, global float *restrict out) {
    /* mapGlobal (λrowA. join (mapSeq (λcolB. (reduceSeq (+) 0 ∘ mapSeq (*... */
    {
        int gl1 = get_global_id(0);
        /* mapSeq (λcolB. (reduceSeq (+) 0 ∘ mapSeq (*)) (zip rowA colB)) */
        for (int i2 = 0; i2 < 1024; i2++) {
            float acc3 = 0.0f;
            /* reduceSeq (+) 0 */
            for (int i4 = 0; i4 < 1024; i4++) {
                acc3 = mm_f6(((struct Tuple_float_float){acc3, mm_f5(((struct Tuple_float_float){in0[1024*gl1 + i4], in1[i2 + 1024*i4]}))}));
            }
            out[1024*gl1 + i2] = acc3;
        }
    }
}

// derivation mm on [[float]_16]_32, [[float]_8]_16 (K=16, M=32, N=8)
struct Tuple_float_float { float _0; float _1; };
struct Tuple_float_Tuple_float_float { float _0; struct Tuple_float_float _1; };
float mm_f5(struct Tuple_float_Tuple_float_float p0) { return (p0._0 + (p0._1._0 * p0._1._1)); }


// λa b. mapGlobal 1 (λrowA. join (mapGlobal (λcolB. reduceSeq (λ(acc, x). acc + (*) x) 0 (zip rowA colB)) (transpose b))) a

kernel void mm_0(global const float *restrict in0, global const float *restrict in1, global float *restrict out) {
    /* mapGlobal 1 (λrowA. join (mapGlobal (λcolB. reduceSeq (λ(acc, x). a... */
    {
        int gl1 = get_global_id(1);
        /* mapGlobal (λcolB. reduceSeq (λ(acc, x). acc + (*) x) 0 (zip rowA co... */
        {
            int gl2 = get_global_id(0);
            float acc3 = 0.0f;
            /* reduceSeq (λ(acc, x). acc + (*) x) 0 */
            for (int i4 = 0; i4 < 16; i4++) {
                acc3 = mm_f5(((struct Tuple_float_Tuple_float_float){acc3, ((struct Tuple_float_float){in0[16*gl1 + i4], in1[gl2 + 8*i4]})}));
            }
            out[8*gl1 + gl2] = acc3;
        }
    }
}

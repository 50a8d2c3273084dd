// program skelcl.mm on [[float]_1024]_1024, [[float]_1024]_1024 (D=1024, K=1024, M=1024)
struct Tuple_float_float { float _0; float _1; };
float mm_f5(struct Tuple_float_float a0_) { return (a0_._0 * a0_._1); }
float mm_f9(struct Tuple_float_float a0_) { return (a0_._0 + a0_._1); }


// λa bt. (λxs ys. mapGlobal (λx. mapSeq (λy. (λx y. at 0 (reduceSeq (+) 0 (mapSeq (*) (zip x y)))) x y) ys) xs) a bt

kernel void mm_0(global const float *restrict in0, global const float *restrict in1, global float *restrict out) {
    /* mapGlobal (λx. mapSeq (λy. (λx y. at 0 (reduceSeq (+) 0 (mapSeq (*)... */
    {
        int gl1 = get_global_id(0);
        /* mapSeq (λy. (λx y. at 0 (reduceSeq (+) 0 (mapSeq (*) (zip x y)))) x y) */
        for (int i2 = 0; i2 < 1024; i2++) {
            float prv3[1024];
            /* mapSeq (*) */
            for (int i4 = 0; i4 < 1024; i4++) {
                prv3[i4] = mm_f5(((struct Tuple_float_float){in0[1024*gl1 + i4], in1[1024*i2 + i4]}));
            }
            float prv6[1];
            float acc7 = 0.0f;
            /* reduceSeq (+) 0 */
            for (int i8 = 0; i8 < 1024; i8++) {
                acc7 = mm_f9(((struct Tuple_float_float){acc7, prv3[i8]}));
            }
            prv6[0] = acc7;
            out[1024*gl1 + i2] = prv6[0];
        }
    }
}

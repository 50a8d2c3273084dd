// program skelcl.pmd on [[float]_1024]_1024 (D=1024, K=1024)
struct Tuple_float_float { float _0; float _1; };
float pmd_f5(struct Tuple_float_float p0) { return as_float((as_uint((p0._0 - p0._1)) & 0x7fffffffu)); }
float pmd_f9(struct Tuple_float_float a0_) { return (a0_._0 + a0_._1); }


// λa. (λxs ys. mapGlobal (λx. mapSeq (λy. (λx y. at 0 (reduceSeq (+) 0 (mapSeq (λ(p, q). abs (p - q)) (zip x y)))) x y) ys) xs) a a

kernel void pmd_0(global const float *restrict in0, global float *restrict out) {
    /* mapGlobal (λx. mapSeq (λy. (λx y. at 0 (reduceSeq (+) 0 (mapSeq (λ(... */
    {
        int gl1 = get_global_id(0);
        /* mapSeq (λy. (λx y. at 0 (reduceSeq (+) 0 (mapSeq (λ(p, q). abs (p -... */
        for (int i2 = 0; i2 < 1024; i2++) {
            float prv3[1024];
            /* mapSeq (λ(p, q). abs (p - q)) */
            for (int i4 = 0; i4 < 1024; i4++) {
                prv3[i4] = pmd_f5(((struct Tuple_float_float){in0[1024*gl1 + i4], in0[1024*i2 + i4]}));
            }
            float prv6[1];
            float acc7 = 0.0f;
            /* reduceSeq (+) 0 */
            for (int i8 = 0; i8 < 1024; i8++) {
                acc7 = pmd_f9(((struct Tuple_float_float){acc7, prv3[i8]}));
            }
            prv6[0] = acc7;
            out[1024*gl1 + i2] = prv6[0];
        }
    }
}

// program skelcl.gaussianBlur on [[float]_1024]_1024, [float]_9 (M=1024, N=1024)
struct Tuple_float_float { float _0; float _1; };
float gaussianBlur_f5(struct Tuple_float_float a0_) { return (a0_._0 * a0_._1); }
float gaussianBlur_f8(struct Tuple_float_float a0_) { return (a0_._0 + a0_._1); }


// λimg ws. mapGlobal (join ∘ mapSeq (λnbh. reduceSeq (+) 0 (mapSeq (*) (zip (join nbh) ws)))) (slide2D 3 1 (pad2D 1 1 0.0 img))

kernel void gaussianBlur_0(global const float *restrict in0, global const float *restrict in1, global float *restrict out) {
    /* mapGlobal (join ∘ mapSeq (λnbh. reduceSeq (+) 0 (mapSeq (*) (zip (j... */
    {
        int gl1 = get_global_id(0);
        /* mapSeq (λnbh. reduceSeq (+) 0 (mapSeq (*) (zip (join nbh) ws))) */
        for (int i2 = 0; i2 < 1024; i2++) {
            float prv3[9];
            /* mapSeq (*) */
            for (int i4 = 0; i4 < 9; i4++) {
                prv3[i4] = gaussianBlur_f5(((struct Tuple_float_float){(((((i4) / 3) + gl1 < 1) || (((i4) / 3) + gl1 >= 1025)) ? 0.0f : (((((i4) % 3) + i2 < 1) || (((i4) % 3) + i2 >= 1025)) ? 0.0f : in0[1024*((i4) / 3) + ((i4) % 3) + 1024*gl1 + i2 - 1025])), in1[i4]}));
            }
            float acc6 = 0.0f;
            /* reduceSeq (+) 0 */
            for (int i7 = 0; i7 < 9; i7++) {
                acc6 = gaussianBlur_f8(((struct Tuple_float_float){acc6, prv3[i7]}));
            }
            out[1024*gl1 + i2] = acc6;
        }
    }
}

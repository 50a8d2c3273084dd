// program p2cl.sumAndDifference on [float]_1024, [float]_1024 (N=1024)
struct Tuple_float_float { float _0; float _1; };
struct Tuple_float_float sumAndDifference_f2(struct Tuple_float_float p0) { return ((struct Tuple_float_float){(p0._0 + p0._1), (p0._0 - p0._1)}); }


// λxs ys. mapGlobal (λ(x, y). (x + y, x - y)) (zip xs ys)

kernel void sumAndDifference_0(global const float *restrict in0, global const float *restrict in1, global float *restrict out_0, global float *restrict out_1) {
    /* mapGlobal (λ(x, y). (x + y, x - y)) */
    {
        int gl1 = get_global_id(0);
        struct Tuple_float_float t3 = sumAndDifference_f2(((struct Tuple_float_float){in0[gl1], in1[gl1]}));
        out_0[gl1] = t3._0;
        out_1[gl1] = t3._1;
    }
}

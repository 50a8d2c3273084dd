// program blas.vecSum on [float]_1024 (N=1024)
struct Tuple_float_float { float _0; float _1; };
float vecSum_f3(struct Tuple_float_float a0_) { return (a0_._0 + a0_._1); }


// reduceSeq (+) 0

kernel void vecSum_0(global const float *restrict in0, global float *restrict out) {
    float acc1 = 0.0f;
    /* reduceSeq (+) 0 */
    for (int i2 = 0; i2 < 1024; i2++) {
        acc1 = vecSum_f3(((struct Tuple_float_float){acc1, in0[i2]}));
    }
    out[0] = acc1;
}

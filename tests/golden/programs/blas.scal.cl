// program blas.scal on float, [float]_1024 (N=1024)
float scal_f2(float a_, float a0_) { return (a0_ * a_); }


// λa. mapGlobal (*a)

kernel void scal_0(global const float *restrict in0, global const float *restrict in1, global float *restrict out) {
    /* mapGlobal (*a) */
    {
        int gl1 = get_global_id(0);
        out[gl1] = scal_f2(in0[0], in1[gl1]);
    }
}

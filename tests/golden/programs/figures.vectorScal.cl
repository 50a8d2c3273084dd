// program figures.vectorScal on [float]_1024 (N=1024)
float uf_mul3(float x_) { return (x_ * 3); }


// mapGlobal mul3

kernel void vectorScal_0(global const float *restrict in0, global float *restrict out) {
    /* mapGlobal mul3 */
    {
        int gl1 = get_global_id(0);
        out[gl1] = uf_mul3(in0[gl1]);
    }
}

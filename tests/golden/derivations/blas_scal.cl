// derivation blas_scal on float, [float]_256 (N=256)
float blas_scal_f3(float a_, float a0_) { return (a0_ * a_); }


// λa. join ∘ mapWorkgroup (mapLocal (*a)) ∘ split 256

kernel void blas_scal_0(global const float *restrict in0, global const float *restrict in1, global float *restrict out) {
    /* mapWorkgroup (mapLocal (*a)) */
    {
        int wg1 = get_group_id(0);
        if (wg1 < 1) {
            /* mapLocal (*a) */
            {
                int l2 = get_local_id(0);
                out[l2 + 256*wg1] = blas_scal_f3(in0[0], in1[l2 + 256*wg1]);
            }
        }
    }
}

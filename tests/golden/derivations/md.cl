// derivation md on [(float, float, float)]_256, [[int]_16]_256, float (K=16, N=256)
struct Tuple_float_float_float { float _0; float _1; float _2; };
struct Tuple_float_float_float md_f3(int __) { return ((struct Tuple_float_float_float){0.0f, 0.0f, 0.0f}); }
float uf_coef(float r2_) { return (((((1 / r2_) * (1 / r2_)) * (1 / r2_)) * ((((1.5f * (1 / r2_)) * (1 / r2_)) * (1 / r2_)) - 2)) * (1 / r2_)); }
struct Tuple_float_float_float uf_ljForce(struct Tuple_float_float_float f_, float dx_, float dy_, float dz_, float r2_, float t_) { return (((0 < r2_) && (r2_ < t_)) ? ((struct Tuple_float_float_float){(f_._0 + (dx_ * uf_coef(r2_))), (f_._1 + (dy_ * uf_coef(r2_))), (f_._2 + (dz_ * uf_coef(r2_)))}) : f_); }
struct Tuple_float_float_float uf_addForce(struct Tuple_float_float_float f_, struct Tuple_float_float_float p_, struct Tuple_float_float_float q_, float t_) { return uf_ljForce(f_, (p_._0 - q_._0), (p_._1 - q_._1), (p_._2 - q_._2), ((((p_._0 - q_._0) * (p_._0 - q_._0)) + ((p_._1 - q_._1) * (p_._1 - q_._1))) + ((p_._2 - q_._2) * (p_._2 - q_._2))), t_); }


// λps nbhs t. join (mapGlobal (λ(p, ns). reduceSeq (λf nId. (λf nId p ps t. addForce f p (at nId ps) t) f nId p ps t) (0.0, 0.0, 0.0) ns) (zip ps nbhs))

kernel void md_0(global const float *restrict in0_0, global const float *restrict in0_1, global const float *restrict in0_2, global const int *restrict in1, global const float *restrict in2, global float *restrict out_0, global float *restrict out_1, global float *restrict out_2) {
    /* mapGlobal (λ(p, ns). reduceSeq (λf nId. (λf nId p ps t. addForce f ... */
    {
        int gl1 = get_global_id(0);
        struct Tuple_float_float_float acc2 = md_f3(0);
        /* reduceSeq (λf nId. (λf nId p ps t. addForce f p (at nId ps) t) f nI... */
        for (int i4 = 0; i4 < 16; i4++) {
            acc2 = uf_addForce(acc2, ((struct Tuple_float_float_float){in0_0[gl1], in0_1[gl1], in0_2[gl1]}), ((struct Tuple_float_float_float){in0_0[(in1[16*gl1 + i4])], in0_1[(in1[16*gl1 + i4])], in0_2[(in1[16*gl1 + i4])]}), in2[0]);
        }
        out_0[gl1] = acc2._0;
        out_1[gl1] = acc2._1;
        out_2[gl1] = acc2._2;
    }
}

// program blackscholes.blackScholes on [float]_1024 (N=1024)
float uf_d1(float s_, float k_, float t_, float r_, float v_) { return ((log((s_ / k_)) + ((r_ + ((0.5f * v_) * v_)) * t_)) / (v_ * sqrt(t_))); }
struct Tuple_float_float { float _0; float _1; };
float uf_cndPoly(float k_) { return (k_ * (0.31938153f + (k_ * (-0.356563782f + (k_ * (1.781477937f + (k_ * (-1.821255978f + (k_ * 1.330274429f))))))))); }
float uf_cndOf(float d_, float k_) { return ((d_ > 0) ? (1 - ((0.3989422804f * exp(((-0.5f * d_) * d_))) * uf_cndPoly(k_))) : ((0.3989422804f * exp(((-0.5f * d_) * d_))) * uf_cndPoly(k_))); }
float uf_cnd(float d_) { return uf_cndOf(d_, (1 / (1 + (0.2316419f * as_float((as_uint(d_) & 0x7fffffffu)))))); }
struct Tuple_float_float uf_prices(float s_, float k_, float t_, float r_, float v_, float d_) { return ((struct Tuple_float_float){((s_ * uf_cnd(d_)) - ((k_ * exp(((-r_) * t_))) * uf_cnd((d_ - (v_ * sqrt(t_)))))), (((k_ * exp(((-r_) * t_))) * (1 - uf_cnd((d_ - (v_ * sqrt(t_)))))) - (s_ * (1 - uf_cnd(d_))))}); }
struct Tuple_float_float uf_option(float s_, float k_, float t_, float r_, float v_) { return uf_prices(s_, k_, t_, r_, v_, uf_d1(s_, k_, t_, r_, v_)); }
struct Tuple_float_float uf_compCallPut(float x_) { return uf_option((10 + (90 * x_)), (50 + (50 * x_)), (1 + (9 * x_)), (0.01f + (0.04f * x_)), (0.01f + (0.09f * x_))); }


// mapGlobal compCallPut

kernel void blackScholes_0(global const float *restrict in0, global float *restrict out_0, global float *restrict out_1) {
    /* mapGlobal compCallPut */
    {
        int gl1 = get_global_id(0);
        struct Tuple_float_float t2 = uf_compCallPut(in0[gl1]);
        out_0[gl1] = t2._0;
        out_1[gl1] = t2._1;
    }
}

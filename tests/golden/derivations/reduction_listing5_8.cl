// derivation reduction_listing5_8 on [float]_128 (N=128)
struct Tuple_float_float { float _0; float _1; };
float reduction_listing5_8_f11(struct Tuple_float_float a0_) { return (a0_._0 + a0_._1); }


// reduceSeq (+) 0 ∘ join ∘ mapWorkgroup (join ∘ toGlobal (mapLocal (mapSeq id)) ∘ split 1 ∘ iterate 7 (join ∘ mapLocal (reduceSeq (+) 0) ∘ split 2) ∘ join ∘ toLocal (mapLocal (mapSeq id)) ∘ split 1) ∘ s

kernel void reduction_listing5_8_0(global const float *restrict in0, global float *restrict tmp1) {
    local float lcl3[128];
    local float lcl6[64];
    local float lcl7[32];
    local float lcl32[1];
    /* mapWorkgroup (join ∘ toGlobal (mapLocal (mapSeq id)) ∘ split 1 ∘ it... */
    for (int wg2 = get_group_id(0); wg2 < 1; wg2 += 1) {
        /* mapLocal (mapSeq id) */
        {
            int l4 = get_local_id(0);
            /* mapSeq id */
            for (int i5 = 0; i5 < 1; i5++) {
                lcl3[i5 + l4] = in0[i5 + l4 + 128*wg2];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* mapLocal (reduceSeq (+) 0) */
        {
            int l8 = get_local_id(0);
            if (l8 < 64) {
                float acc9 = 0.0f;
                /* reduceSeq (+) 0 */
                for (int i10 = 0; i10 < 2; i10++) {
                    acc9 = reduction_listing5_8_f11(((struct Tuple_float_float){acc9, lcl3[i10 + 2*l8]}));
                }
                lcl6[l8] = acc9;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* mapLocal (reduceSeq (+) 0) */
        {
            int l12 = get_local_id(0);
            if (l12 < 32) {
                float acc13 = 0.0f;
                /* reduceSeq (+) 0 */
                for (int i14 = 0; i14 < 2; i14++) {
                    acc13 = reduction_listing5_8_f11(((struct Tuple_float_float){acc13, lcl6[i14 + 2*l12]}));
                }
                lcl7[l12] = acc13;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* mapLocal (reduceSeq (+) 0) */
        {
            int l16 = get_local_id(0);
            if (l16 < 16) {
                float acc17 = 0.0f;
                /* reduceSeq (+) 0 */
                for (int i18 = 0; i18 < 2; i18++) {
                    acc17 = reduction_listing5_8_f11(((struct Tuple_float_float){acc17, lcl7[i18 + 2*l16]}));
                }
                lcl6[l16] = acc17;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* mapLocal (reduceSeq (+) 0) */
        {
            int l20 = get_local_id(0);
            if (l20 < 8) {
                float acc21 = 0.0f;
                /* reduceSeq (+) 0 */
                for (int i22 = 0; i22 < 2; i22++) {
                    acc21 = reduction_listing5_8_f11(((struct Tuple_float_float){acc21, lcl6[i22 + 2*l20]}));
                }
                lcl7[l20] = acc21;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* mapLocal (reduceSeq (+) 0) */
        {
            int l24 = get_local_id(0);
            if (l24 < 4) {
                float acc25 = 0.0f;
                /* reduceSeq (+) 0 */
                for (int i26 = 0; i26 < 2; i26++) {
                    acc25 = reduction_listing5_8_f11(((struct Tuple_float_float){acc25, lcl7[i26 + 2*l24]}));
                }
                lcl6[l24] = acc25;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* mapLocal (reduceSeq (+) 0) */
        {
            int l28 = get_local_id(0);
            if (l28 < 2) {
                float acc29 = 0.0f;
                /* reduceSeq (+) 0 */
                for (int i30 = 0; i30 < 2; i30++) {
                    acc29 = reduction_listing5_8_f11(((struct Tuple_float_float){acc29, lcl6[i30 + 2*l28]}));
                }
                lcl7[l28] = acc29;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* mapLocal (reduceSeq (+) 0) */
        {
            int l33 = get_local_id(0);
            if (l33 < 1) {
                float acc34 = 0.0f;
                /* reduceSeq (+) 0 */
                for (int i35 = 0; i35 < 2; i35++) {
                    acc34 = reduction_listing5_8_f11(((struct Tuple_float_float){acc34, lcl7[i35 + 2*l33]}));
                }
                lcl32[l33] = acc34;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* mapLocal (mapSeq id) */
        {
            int l37 = get_local_id(0);
            if (l37 < 1) {
                /* mapSeq id */
                for (int i38 = 0; i38 < 1; i38++) {
                    tmp1[i38 + l37 + wg2] = lcl32[i38 + l37];
                }
            }
        }
    }
}

// reduceSeq (+) 0 ∘ join ∘ mapWorkgroup (join ∘ toGlobal (mapLocal (mapSeq id)) ∘ split 1 ∘ iterate 7 (join ∘ mapLocal (reduceSeq (+) 0) ∘ split 2) ∘ join ∘ toLocal (mapLocal (mapSeq id)) ∘ split 1) ∘ s

kernel void reduction_listing5_8_1(global float *restrict out, global float *restrict tmp1) {
    float acc39 = 0.0f;
    /* reduceSeq (+) 0 */
    for (int i40 = 0; i40 < 1; i40++) {
        acc39 = reduction_listing5_8_f11(((struct Tuple_float_float){acc39, tmp1[i40]}));
    }
    out[0] = acc39;
}

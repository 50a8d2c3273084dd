// derivation reduction_v4_first_add on [float]_256 (N=256)
struct Tuple_float_float { float _0; float _1; };
float reduction_v4_first_add_f7(struct Tuple_float_float a0_) { return (a0_._0 + a0_._1); }


// reduceSeq (+) 0 ∘ join ∘ mapWorkgroup (join ∘ toGlobal (mapLocal (mapSeq id)) ∘ split 1 ∘ join ∘ mapLocal (reduceSeq (+) 0) ∘ split 2 ∘ reorderStride 1 ∘ join ∘ mapLocal (reduceSeq (+) 0) ∘ split 2 ∘ 

kernel void reduction_v4_first_add_0(global const float *restrict in0, global float *restrict tmp1) {
    local float lcl3[128];
    local float lcl8[64];
    local float lcl13[32];
    local float lcl18[16];
    local float lcl23[8];
    local float lcl28[4];
    local float lcl33[2];
    local float lcl38[1];
    /* mapWorkgroup (join ∘ toGlobal (mapLocal (mapSeq id)) ∘ split 1 ∘ jo... */
    for (int wg2 = get_group_id(0); wg2 < 1; wg2 += 1) {
        /* mapLocal (reduceSeq (+) 0) */
        {
            int l4 = get_local_id(0);
            float acc5 = 0.0f;
            /* reduceSeq (+) 0 */
            for (int i6 = 0; i6 < 2; i6++) {
                acc5 = reduction_v4_first_add_f7(((struct Tuple_float_float){acc5, in0[128*i6 + l4 + 256*wg2]}));
            }
            lcl3[l4] = acc5;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* mapLocal (reduceSeq (+) 0) */
        {
            int l9 = get_local_id(0);
            if (l9 < 64) {
                float acc10 = 0.0f;
                /* reduceSeq (+) 0 */
                for (int i11 = 0; i11 < 2; i11++) {
                    acc10 = reduction_v4_first_add_f7(((struct Tuple_float_float){acc10, lcl3[64*i11 + l9]}));
                }
                lcl8[l9] = acc10;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* mapLocal (reduceSeq (+) 0) */
        {
            int l14 = get_local_id(0);
            if (l14 < 32) {
                float acc15 = 0.0f;
                /* reduceSeq (+) 0 */
                for (int i16 = 0; i16 < 2; i16++) {
                    acc15 = reduction_v4_first_add_f7(((struct Tuple_float_float){acc15, lcl8[32*i16 + l14]}));
                }
                lcl13[l14] = acc15;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* mapLocal (reduceSeq (+) 0) */
        {
            int l19 = get_local_id(0);
            if (l19 < 16) {
                float acc20 = 0.0f;
                /* reduceSeq (+) 0 */
                for (int i21 = 0; i21 < 2; i21++) {
                    acc20 = reduction_v4_first_add_f7(((struct Tuple_float_float){acc20, lcl13[16*i21 + l19]}));
                }
                lcl18[l19] = acc20;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* mapLocal (reduceSeq (+) 0) */
        {
            int l24 = get_local_id(0);
            if (l24 < 8) {
                float acc25 = 0.0f;
                /* reduceSeq (+) 0 */
                for (int i26 = 0; i26 < 2; i26++) {
                    acc25 = reduction_v4_first_add_f7(((struct Tuple_float_float){acc25, lcl18[8*i26 + l24]}));
                }
                lcl23[l24] = acc25;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* mapLocal (reduceSeq (+) 0) */
        {
            int l29 = get_local_id(0);
            if (l29 < 4) {
                float acc30 = 0.0f;
                /* reduceSeq (+) 0 */
                for (int i31 = 0; i31 < 2; i31++) {
                    acc30 = reduction_v4_first_add_f7(((struct Tuple_float_float){acc30, lcl23[4*i31 + l29]}));
                }
                lcl28[l29] = acc30;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* mapLocal (reduceSeq (+) 0) */
        {
            int l34 = get_local_id(0);
            if (l34 < 2) {
                float acc35 = 0.0f;
                /* reduceSeq (+) 0 */
                for (int i36 = 0; i36 < 2; i36++) {
                    acc35 = reduction_v4_first_add_f7(((struct Tuple_float_float){acc35, lcl28[2*i36 + l34]}));
                }
                lcl33[l34] = acc35;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* mapLocal (reduceSeq (+) 0) */
        {
            int l39 = get_local_id(0);
            if (l39 < 1) {
                float acc40 = 0.0f;
                /* reduceSeq (+) 0 */
                for (int i41 = 0; i41 < 2; i41++) {
                    acc40 = reduction_v4_first_add_f7(((struct Tuple_float_float){acc40, lcl33[i41 + l39]}));
                }
                lcl38[l39] = acc40;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* mapLocal (mapSeq id) */
        {
            int l43 = get_local_id(0);
            if (l43 < 1) {
                /* mapSeq id */
                for (int i44 = 0; i44 < 1; i44++) {
                    tmp1[i44 + l43 + wg2] = lcl38[i44 + l43];
                }
            }
        }
    }
}

// reduceSeq (+) 0 ∘ join ∘ mapWorkgroup (join ∘ toGlobal (mapLocal (mapSeq id)) ∘ split 1 ∘ join ∘ mapLocal (reduceSeq (+) 0) ∘ split 2 ∘ reorderStride 1 ∘ join ∘ mapLocal (reduceSeq (+) 0) ∘ split 2 ∘ 

kernel void reduction_v4_first_add_1(global float *restrict out, global float *restrict tmp1) {
    float acc45 = 0.0f;
    /* reduceSeq (+) 0 */
    for (int i46 = 0; i46 < 1; i46++) {
        acc45 = reduction_v4_first_add_f7(((struct Tuple_float_float){acc45, tmp1[i46]}));
    }
    out[0] = acc45;
}

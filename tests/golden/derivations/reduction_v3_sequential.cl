// derivation reduction_v3_sequential on [float]_128 (N=128)
struct Tuple_float_float { float _0; float _1; };
float reduction_v3_sequential_f10(struct Tuple_float_float a0_) { return (a0_._0 + a0_._1); }


// reduceSeq (+) 0 ∘ join ∘ mapWorkgroup (join ∘ toGlobal (mapLocal (mapSeq id)) ∘ split 1 ∘ join ∘ mapLocal (reduceSeq (+) 0) ∘ split 2 ∘ reorderStride 1 ∘ join ∘ mapLocal (reduceSeq (+) 0) ∘ split 2 ∘ 

kernel void reduction_v3_sequential_0(global const float *restrict in0, global float *restrict tmp1) {
    local float lcl3[128];
    local float lcl6[64];
    local float lcl11[32];
    local float lcl16[16];
    local float lcl21[8];
    local float lcl26[4];
    local float lcl31[2];
    local float lcl36[1];
    /* mapWorkgroup (join ∘ toGlobal (mapLocal (mapSeq id)) ∘ split 1 ∘ jo... */
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
            int l7 = get_local_id(0);
            if (l7 < 64) {
                float acc8 = 0.0f;
                /* reduceSeq (+) 0 */
                for (int i9 = 0; i9 < 2; i9++) {
                    acc8 = reduction_v3_sequential_f10(((struct Tuple_float_float){acc8, lcl3[64*i9 + l7]}));
                }
                lcl6[l7] = acc8;
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
                    acc13 = reduction_v3_sequential_f10(((struct Tuple_float_float){acc13, lcl6[32*i14 + l12]}));
                }
                lcl11[l12] = acc13;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* mapLocal (reduceSeq (+) 0) */
        {
            int l17 = get_local_id(0);
            if (l17 < 16) {
                float acc18 = 0.0f;
                /* reduceSeq (+) 0 */
                for (int i19 = 0; i19 < 2; i19++) {
                    acc18 = reduction_v3_sequential_f10(((struct Tuple_float_float){acc18, lcl11[16*i19 + l17]}));
                }
                lcl16[l17] = acc18;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* mapLocal (reduceSeq (+) 0) */
        {
            int l22 = get_local_id(0);
            if (l22 < 8) {
                float acc23 = 0.0f;
                /* reduceSeq (+) 0 */
                for (int i24 = 0; i24 < 2; i24++) {
                    acc23 = reduction_v3_sequential_f10(((struct Tuple_float_float){acc23, lcl16[8*i24 + l22]}));
                }
                lcl21[l22] = acc23;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* mapLocal (reduceSeq (+) 0) */
        {
            int l27 = get_local_id(0);
            if (l27 < 4) {
                float acc28 = 0.0f;
                /* reduceSeq (+) 0 */
                for (int i29 = 0; i29 < 2; i29++) {
                    acc28 = reduction_v3_sequential_f10(((struct Tuple_float_float){acc28, lcl21[4*i29 + l27]}));
                }
                lcl26[l27] = acc28;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* mapLocal (reduceSeq (+) 0) */
        {
            int l32 = get_local_id(0);
            if (l32 < 2) {
                float acc33 = 0.0f;
                /* reduceSeq (+) 0 */
                for (int i34 = 0; i34 < 2; i34++) {
                    acc33 = reduction_v3_sequential_f10(((struct Tuple_float_float){acc33, lcl26[2*i34 + l32]}));
                }
                lcl31[l32] = acc33;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* mapLocal (reduceSeq (+) 0) */
        {
            int l37 = get_local_id(0);
            if (l37 < 1) {
                float acc38 = 0.0f;
                /* reduceSeq (+) 0 */
                for (int i39 = 0; i39 < 2; i39++) {
                    acc38 = reduction_v3_sequential_f10(((struct Tuple_float_float){acc38, lcl31[i39 + l37]}));
                }
                lcl36[l37] = acc38;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* mapLocal (mapSeq id) */
        {
            int l41 = get_local_id(0);
            if (l41 < 1) {
                /* mapSeq id */
                for (int i42 = 0; i42 < 1; i42++) {
                    tmp1[i42 + l41 + wg2] = lcl36[i42 + l41];
                }
            }
        }
    }
}

// reduceSeq (+) 0 ∘ join ∘ mapWorkgroup (join ∘ toGlobal (mapLocal (mapSeq id)) ∘ split 1 ∘ join ∘ mapLocal (reduceSeq (+) 0) ∘ split 2 ∘ reorderStride 1 ∘ join ∘ mapLocal (reduceSeq (+) 0) ∘ split 2 ∘ 

kernel void reduction_v3_sequential_1(global float *restrict out, global float *restrict tmp1) {
    float acc43 = 0.0f;
    /* reduceSeq (+) 0 */
    for (int i44 = 0; i44 < 1; i44++) {
        acc43 = reduction_v3_sequential_f10(((struct Tuple_float_float){acc43, tmp1[i44]}));
    }
    out[0] = acc43;
}

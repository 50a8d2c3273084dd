// derivation reduction_v6_unrolled on [float]_256 (N=256, blockSize=256)
/* A warp (32 consecutive work-items) waits for its own work-items: with a sub-group barrier
   where the device has sub-groups holding whole warps, else with a work-group barrier. */
#if defined(cl_khr_subgroups)
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif
#if defined(cl_khr_subgroups) || defined(__opencl_c_subgroups)
#define WARP_BARRIER(fence) do { if (get_max_sub_group_size() % 32 == 0) \
    sub_group_barrier(fence); else barrier(fence); } while (0)
#else
#define WARP_BARRIER(fence) barrier(fence)
#endif


struct Tuple_float_float { float _0; float _1; };
float reduction_v6_unrolled_f7(struct Tuple_float_float a0_) { return (a0_._0 + a0_._1); }


// reduceSeq (+) 0 ∘ join ∘ mapWorkgroup (join ∘ toGlobal (mapLocal (mapSeq id)) ∘ split 1 ∘ join ∘ mapWarp (join ∘ mapLane (reduceSeqUnroll (+) 0) ∘ split 2 ∘ reorderStride 1 ∘ join ∘ mapLane (reduceSeq

kernel void reduction_v6_unrolled_0(global const float *restrict in0, global float *restrict tmp1) {
    local float lcl3[128];
    local float lcl8[64];
    local float lcl13[1];
    local float lcl16[32];
    local float lcl21[16];
    local float lcl26[8];
    local float lcl31[4];
    local float lcl36[2];
    /* mapWorkgroup (join ∘ toGlobal (mapLocal (mapSeq id)) ∘ split 1 ∘ jo... */
    {
        int wg2 = get_group_id(0);
        /* mapLocal (reduceSeqUnroll (+) 0) */
        {
            int l4 = get_local_id(0);
            float acc5 = 0.0f;
            /* reduceSeqUnroll (+) 0 (unrolled) */
            acc5 = reduction_v6_unrolled_f7(((struct Tuple_float_float){acc5, in0[l4 + 256*wg2]}));
            acc5 = reduction_v6_unrolled_f7(((struct Tuple_float_float){acc5, in0[l4 + 256*wg2 + 128]}));
            lcl3[l4] = acc5;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* mapLocal (reduceSeqUnroll (+) 0) */
        {
            int l9 = get_local_id(0);
            if (l9 < 64) {
                float acc10 = 0.0f;
                /* reduceSeqUnroll (+) 0 (unrolled) */
                acc10 = reduction_v6_unrolled_f7(((struct Tuple_float_float){acc10, lcl3[l9]}));
                acc10 = reduction_v6_unrolled_f7(((struct Tuple_float_float){acc10, lcl3[l9 + 64]}));
                lcl8[l9] = acc10;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* mapWarp (join ∘ mapLane (reduceSeqUnroll (+) 0) ∘ split 2 ∘ reorder... */
        for (int k15 = 0; k15 * 4 < 1; k15++) {
            int w14 = get_local_id(0) / 32 + k15 * 4;
            /* mapLane (reduceSeqUnroll (+) 0) */
            {
                int ln17 = get_local_id(0) % 32;
                if (ln17 < 32 && w14 < 1) {
                    float acc18 = 0.0f;
                    /* reduceSeqUnroll (+) 0 (unrolled) */
                    acc18 = reduction_v6_unrolled_f7(((struct Tuple_float_float){acc18, lcl8[ln17 + 64*w14]}));
                    acc18 = reduction_v6_unrolled_f7(((struct Tuple_float_float){acc18, lcl8[ln17 + 64*w14 + 32]}));
                    lcl16[ln17 + 32*w14] = acc18;
                }
            }
            WARP_BARRIER(CLK_LOCAL_MEM_FENCE);
            /* mapLane (reduceSeqUnroll (+) 0) */
            {
                int ln22 = get_local_id(0) % 32;
                if (ln22 < 16 && w14 < 1) {
                    float acc23 = 0.0f;
                    /* reduceSeqUnroll (+) 0 (unrolled) */
                    acc23 = reduction_v6_unrolled_f7(((struct Tuple_float_float){acc23, lcl16[ln22 + 32*w14]}));
                    acc23 = reduction_v6_unrolled_f7(((struct Tuple_float_float){acc23, lcl16[ln22 + 32*w14 + 16]}));
                    lcl21[ln22 + 16*w14] = acc23;
                }
            }
            WARP_BARRIER(CLK_LOCAL_MEM_FENCE);
            /* mapLane (reduceSeqUnroll (+) 0) */
            {
                int ln27 = get_local_id(0) % 32;
                if (ln27 < 8 && w14 < 1) {
                    float acc28 = 0.0f;
                    /* reduceSeqUnroll (+) 0 (unrolled) */
                    acc28 = reduction_v6_unrolled_f7(((struct Tuple_float_float){acc28, lcl21[ln27 + 16*w14]}));
                    acc28 = reduction_v6_unrolled_f7(((struct Tuple_float_float){acc28, lcl21[ln27 + 16*w14 + 8]}));
                    lcl26[ln27 + 8*w14] = acc28;
                }
            }
            WARP_BARRIER(CLK_LOCAL_MEM_FENCE);
            /* mapLane (reduceSeqUnroll (+) 0) */
            {
                int ln32 = get_local_id(0) % 32;
                if (ln32 < 4 && w14 < 1) {
                    float acc33 = 0.0f;
                    /* reduceSeqUnroll (+) 0 (unrolled) */
                    acc33 = reduction_v6_unrolled_f7(((struct Tuple_float_float){acc33, lcl26[ln32 + 8*w14]}));
                    acc33 = reduction_v6_unrolled_f7(((struct Tuple_float_float){acc33, lcl26[ln32 + 8*w14 + 4]}));
                    lcl31[ln32 + 4*w14] = acc33;
                }
            }
            WARP_BARRIER(CLK_LOCAL_MEM_FENCE);
            /* mapLane (reduceSeqUnroll (+) 0) */
            {
                int ln37 = get_local_id(0) % 32;
                if (ln37 < 2 && w14 < 1) {
                    float acc38 = 0.0f;
                    /* reduceSeqUnroll (+) 0 (unrolled) */
                    acc38 = reduction_v6_unrolled_f7(((struct Tuple_float_float){acc38, lcl31[ln37 + 4*w14]}));
                    acc38 = reduction_v6_unrolled_f7(((struct Tuple_float_float){acc38, lcl31[ln37 + 4*w14 + 2]}));
                    lcl36[ln37 + 2*w14] = acc38;
                }
            }
            WARP_BARRIER(CLK_LOCAL_MEM_FENCE);
            /* mapLane (reduceSeqUnroll (+) 0) */
            {
                int ln41 = get_local_id(0) % 32;
                if (ln41 < 1 && w14 < 1) {
                    float acc42 = 0.0f;
                    /* reduceSeqUnroll (+) 0 (unrolled) */
                    acc42 = reduction_v6_unrolled_f7(((struct Tuple_float_float){acc42, lcl36[ln41 + 2*w14]}));
                    acc42 = reduction_v6_unrolled_f7(((struct Tuple_float_float){acc42, lcl36[ln41 + 2*w14 + 1]}));
                    lcl13[ln41 + w14] = acc42;
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* mapLocal (mapSeq id) */
        {
            int l45 = get_local_id(0);
            if (l45 < 1) {
                /* mapSeq id */
                for (int i46 = 0; i46 < 1; i46++) {
                    tmp1[i46 + l45 + wg2] = lcl13[i46 + l45];
                }
            }
        }
    }
}

// reduceSeq (+) 0 ∘ join ∘ mapWorkgroup (join ∘ toGlobal (mapLocal (mapSeq id)) ∘ split 1 ∘ join ∘ mapWarp (join ∘ mapLane (reduceSeqUnroll (+) 0) ∘ split 2 ∘ reorderStride 1 ∘ join ∘ mapLane (reduceSeq

kernel void reduction_v6_unrolled_1(global float *restrict out, global float *restrict tmp1) {
    float acc47 = 0.0f;
    /* reduceSeq (+) 0 */
    for (int i48 = 0; i48 < 1; i48++) {
        acc47 = reduction_v6_unrolled_f7(((struct Tuple_float_float){acc47, tmp1[i48]}));
    }
    out[0] = acc47;
}

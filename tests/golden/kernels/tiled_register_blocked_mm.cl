struct Tuple_float_float { float _0; float _1; };
float kernel_f22(float av_, struct Tuple_float_float a0_) { return (a0_._0 + (av_ * a0_._1)); }


// λa b. untile (mapWorkgroup 1 (λaRows. mapWorkgroup (λbCols. untile (toGlobal (mapLocal 1 (mapLocal (mapSeqUnroll (mapSeqUnroll id)))) (join (reduceSeq (λ(acc, p). (λtA tB. mapLocal 1 (λ(accRow, aBlk).

kernel void kernel_0(global const float *restrict in0, global const float *restrict in1, global float *restrict out) {
    local float lcl9[128];
    local float lcl13[128];
    /* mapWorkgroup 1 (λaRows. mapWorkgroup (λbCols. untile (toGlobal (map... */
    {
        int wg1 = get_group_id(1);
        /* mapWorkgroup (λbCols. untile (toGlobal (mapLocal 1 (mapLocal (mapSe... */
        {
            int wg2 = get_group_id(0);
            float prv3[16];
            /* mapLocal 1 (mapLocal (mapSeqUnroll (mapSeqUnroll id))) */
            {
                int l4 = get_local_id(1);
                /* mapLocal (mapSeqUnroll (mapSeqUnroll id)) */
                {
                    int l5 = get_local_id(0);
                    /* mapSeqUnroll (mapSeqUnroll id) (unrolled) */
                    /* mapSeqUnroll id (unrolled) */
                    prv3[0] = 0.0f;
                    prv3[1] = 0.0f;
                    prv3[2] = 0.0f;
                    prv3[3] = 0.0f;
                    /* mapSeqUnroll id (unrolled) */
                    prv3[4] = 0.0f;
                    prv3[5] = 0.0f;
                    prv3[6] = 0.0f;
                    prv3[7] = 0.0f;
                    /* mapSeqUnroll id (unrolled) */
                    prv3[8] = 0.0f;
                    prv3[9] = 0.0f;
                    prv3[10] = 0.0f;
                    prv3[11] = 0.0f;
                    /* mapSeqUnroll id (unrolled) */
                    prv3[12] = 0.0f;
                    prv3[13] = 0.0f;
                    prv3[14] = 0.0f;
                    prv3[15] = 0.0f;
                }
            }
            /* reduceSeq (λ(acc, p). (λtA tB. mapLocal 1 (λ(accRow, aBlk). mapLoca... */
            for (int i8 = 0; i8 < 2; i8++) {
                /* mapSeq (mapLocal 1 (mapLocal id)) */
                for (int i10 = 0; i10 < 8; i10++) {
                    /* mapLocal 1 (mapLocal id) */
                    {
                        int l11 = get_local_id(1);
                        /* mapLocal id */
                        {
                            int l12 = get_local_id(0);
                            lcl9[16*i10 + 4*l11 + l12] = in0[16*((4*l11 + l12) / 8) + ((4*l11 + l12) % 8) + 32*i10 + 8*i8 + 256*wg1];
                        }
                    }
                }
                /* mapSeq (mapLocal 1 (mapLocal id)) */
                for (int i14 = 0; i14 < 8; i14++) {
                    /* mapLocal 1 (mapLocal id) */
                    {
                        int l15 = get_local_id(1);
                        /* mapLocal id */
                        {
                            int l16 = get_local_id(0);
                            lcl13[16*i14 + 4*l15 + l16] = in1[32*i14 + 256*i8 + 4*l15 + l16 + 16*wg2];
                        }
                    }
                }
                barrier(CLK_LOCAL_MEM_FENCE);
                /* mapLocal 1 (λ(accRow, aBlk). mapLocal (λ(accBlk, bBlk). join (reduc... */
                {
                    int l17 = get_local_id(1);
                    /* mapLocal (λ(accBlk, bBlk). join (reduceSeq (λ(racc, q). mapSeqUnrol... */
                    {
                        int l18 = get_local_id(0);
                        /* reduceSeq (λ(racc, q). mapSeqUnroll (λ(rrow, av). mapSeqUnroll (λ(x... */
                        for (int i19 = 0; i19 < 8; i19++) {
                            /* mapSeqUnroll (λ(rrow, av). mapSeqUnroll (λ(x, bv). x + av * bv) (zi... (unrolled) */
                            /* mapSeqUnroll (λ(x, bv). x + av * bv) (unrolled) */
                            prv3[0] = kernel_f22(lcl9[i19 + 32*l17], ((struct Tuple_float_float){prv3[0], lcl13[16*i19 + 4*l18]}));
                            prv3[1] = kernel_f22(lcl9[i19 + 32*l17], ((struct Tuple_float_float){prv3[1], lcl13[16*i19 + 4*l18 + 1]}));
                            prv3[2] = kernel_f22(lcl9[i19 + 32*l17], ((struct Tuple_float_float){prv3[2], lcl13[16*i19 + 4*l18 + 2]}));
                            prv3[3] = kernel_f22(lcl9[i19 + 32*l17], ((struct Tuple_float_float){prv3[3], lcl13[16*i19 + 4*l18 + 3]}));
                            /* mapSeqUnroll (λ(x, bv). x + av * bv) (unrolled) */
                            prv3[4] = kernel_f22(lcl9[i19 + 32*l17 + 8], ((struct Tuple_float_float){prv3[4], lcl13[16*i19 + 4*l18]}));
                            prv3[5] = kernel_f22(lcl9[i19 + 32*l17 + 8], ((struct Tuple_float_float){prv3[5], lcl13[16*i19 + 4*l18 + 1]}));
                            prv3[6] = kernel_f22(lcl9[i19 + 32*l17 + 8], ((struct Tuple_float_float){prv3[6], lcl13[16*i19 + 4*l18 + 2]}));
                            prv3[7] = kernel_f22(lcl9[i19 + 32*l17 + 8], ((struct Tuple_float_float){prv3[7], lcl13[16*i19 + 4*l18 + 3]}));
                            /* mapSeqUnroll (λ(x, bv). x + av * bv) (unrolled) */
                            prv3[8] = kernel_f22(lcl9[i19 + 32*l17 + 16], ((struct Tuple_float_float){prv3[8], lcl13[16*i19 + 4*l18]}));
                            prv3[9] = kernel_f22(lcl9[i19 + 32*l17 + 16], ((struct Tuple_float_float){prv3[9], lcl13[16*i19 + 4*l18 + 1]}));
                            prv3[10] = kernel_f22(lcl9[i19 + 32*l17 + 16], ((struct Tuple_float_float){prv3[10], lcl13[16*i19 + 4*l18 + 2]}));
                            prv3[11] = kernel_f22(lcl9[i19 + 32*l17 + 16], ((struct Tuple_float_float){prv3[11], lcl13[16*i19 + 4*l18 + 3]}));
                            /* mapSeqUnroll (λ(x, bv). x + av * bv) (unrolled) */
                            prv3[12] = kernel_f22(lcl9[i19 + 32*l17 + 24], ((struct Tuple_float_float){prv3[12], lcl13[16*i19 + 4*l18]}));
                            prv3[13] = kernel_f22(lcl9[i19 + 32*l17 + 24], ((struct Tuple_float_float){prv3[13], lcl13[16*i19 + 4*l18 + 1]}));
                            prv3[14] = kernel_f22(lcl9[i19 + 32*l17 + 24], ((struct Tuple_float_float){prv3[14], lcl13[16*i19 + 4*l18 + 2]}));
                            prv3[15] = kernel_f22(lcl9[i19 + 32*l17 + 24], ((struct Tuple_float_float){prv3[15], lcl13[16*i19 + 4*l18 + 3]}));
                        }
                    }
                }
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            /* mapLocal 1 (mapLocal (mapSeqUnroll (mapSeqUnroll id))) */
            {
                int l23 = get_local_id(1);
                /* mapLocal (mapSeqUnroll (mapSeqUnroll id)) */
                {
                    int l24 = get_local_id(0);
                    /* mapSeqUnroll (mapSeqUnroll id) (unrolled) */
                    /* mapSeqUnroll id (unrolled) */
                    out[128*l23 + 4*l24 + 512*wg1 + 16*wg2] = prv3[0];
                    out[128*l23 + 4*l24 + 512*wg1 + 16*wg2 + 1] = prv3[1];
                    out[128*l23 + 4*l24 + 512*wg1 + 16*wg2 + 2] = prv3[2];
                    out[128*l23 + 4*l24 + 512*wg1 + 16*wg2 + 3] = prv3[3];
                    /* mapSeqUnroll id (unrolled) */
                    out[128*l23 + 4*l24 + 512*wg1 + 16*wg2 + 32] = prv3[4];
                    out[128*l23 + 4*l24 + 512*wg1 + 16*wg2 + 33] = prv3[5];
                    out[128*l23 + 4*l24 + 512*wg1 + 16*wg2 + 34] = prv3[6];
                    out[128*l23 + 4*l24 + 512*wg1 + 16*wg2 + 35] = prv3[7];
                    /* mapSeqUnroll id (unrolled) */
                    out[128*l23 + 4*l24 + 512*wg1 + 16*wg2 + 64] = prv3[8];
                    out[128*l23 + 4*l24 + 512*wg1 + 16*wg2 + 65] = prv3[9];
                    out[128*l23 + 4*l24 + 512*wg1 + 16*wg2 + 66] = prv3[10];
                    out[128*l23 + 4*l24 + 512*wg1 + 16*wg2 + 67] = prv3[11];
                    /* mapSeqUnroll id (unrolled) */
                    out[128*l23 + 4*l24 + 512*wg1 + 16*wg2 + 96] = prv3[12];
                    out[128*l23 + 4*l24 + 512*wg1 + 16*wg2 + 97] = prv3[13];
                    out[128*l23 + 4*l24 + 512*wg1 + 16*wg2 + 98] = prv3[14];
                    out[128*l23 + 4*l24 + 512*wg1 + 16*wg2 + 99] = prv3[15];
                }
            }
        }
    }
}

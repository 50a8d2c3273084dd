// program p2cl.fft on [(float, float)]_1024
float fft_float5(int a0_) { return ((float)(a0_)); }
float fft_pow6(float a0_, float a1_) { return pow(a0_, a1_); }
struct Tuple_float_float { float _0; float _1; };
struct Tuple_Tuple_float_float_Tuple_float_float { struct Tuple_float_float _0; struct Tuple_float_float _1; };
struct Tuple_int_Tuple_Tuple_float_float_Tuple_float_float { int _0; struct Tuple_Tuple_float_float_Tuple_float_float _1; };
struct Tuple_float_float uf_cadd(struct Tuple_float_float a_, struct Tuple_float_float b_) { return ((struct Tuple_float_float){(a_._0 + b_._0), (a_._1 + b_._1)}); }
struct Tuple_float_float uf_csub(struct Tuple_float_float a_, struct Tuple_float_float b_) { return ((struct Tuple_float_float){(a_._0 - b_._0), (a_._1 - b_._1)}); }
struct Tuple_float_float uf_twiddle(float m_, int j_) { return ((struct Tuple_float_float){cos(((-3.141592653589793f * ((float)(j_))) / m_)), sin(((-3.141592653589793f * ((float)(j_))) / m_))}); }
struct Tuple_float_float uf_cmul(struct Tuple_float_float a_, struct Tuple_float_float b_) { return ((struct Tuple_float_float){((a_._0 * b_._0) - (a_._1 * b_._1)), ((a_._0 * b_._1) + (a_._1 * b_._0))}); }
struct Tuple_Tuple_float_float_Tuple_float_float uf_bfly(float m_, struct Tuple_int_Tuple_Tuple_float_float_Tuple_float_float q_) { return ((struct Tuple_Tuple_float_float_Tuple_float_float){uf_cadd(q_._1._0, q_._1._1), uf_cmul(uf_csub(q_._1._0, q_._1._1), uf_twiddle(m_, q_._0))}); }


// loop 9 (λt. join ∘ map (join ∘ transpose ∘ split 2) ∘ split (1024/2^t)) ∘ loop 10 (λs. join ∘ mapGlobal (scatterOffsets (0, 512*2^(-s)) ∘ mapSeq (bfly (pow 2.0 (float (9 - s)))) ∘ enumerate ∘ gatherOf

kernel void fft_0(global const float *restrict in0_0, global const float *restrict in0_1, global float *restrict tmp1_0, global float *restrict tmp1_1) {
    /* mapGlobal (scatterOffsets (0, 512) ∘ mapSeq (bfly (pow 2.0 (float (... */
    {
        int gl3 = get_global_id(0);
        /* mapSeq (bfly (pow 2.0 (float (9 - 0)))) */
        for (int i4 = 0; i4 < 512; i4++) {
            struct Tuple_Tuple_float_float_Tuple_float_float t7 = uf_bfly(fft_pow6(2.0f, fft_float5((9 - 0))), ((struct Tuple_int_Tuple_Tuple_float_float_Tuple_float_float){i4, ((struct Tuple_Tuple_float_float_Tuple_float_float){((struct Tuple_float_float){in0_0[1024*gl3 + i4], in0_1[1024*gl3 + i4]}), ((struct Tuple_float_float){in0_0[1024*gl3 + i4 + 512], in0_1[1024*gl3 + i4 + 512]})})}));
            struct Tuple_float_float t8 = t7._0;
            tmp1_0[1024*gl3 + i4] = t8._0;
            tmp1_1[1024*gl3 + i4] = t8._1;
            struct Tuple_float_float t9 = t7._1;
            tmp1_0[1024*gl3 + i4 + 512] = t9._0;
            tmp1_1[1024*gl3 + i4 + 512] = t9._1;
        }
    }
}

// loop 9 (λt. join ∘ map (join ∘ transpose ∘ split 2) ∘ split (1024/2^t)) ∘ loop 10 (λs. join ∘ mapGlobal (scatterOffsets (0, 512*2^(-s)) ∘ mapSeq (bfly (pow 2.0 (float (9 - s)))) ∘ enumerate ∘ gatherOf

kernel void fft_1(global float *restrict tmp1_0, global float *restrict tmp1_1, global float *restrict tmp2_0, global float *restrict tmp2_1) {
    /* mapGlobal (scatterOffsets (0, 256) ∘ mapSeq (bfly (pow 2.0 (float (... */
    {
        int gl10 = get_global_id(0);
        /* mapSeq (bfly (pow 2.0 (float (9 - 1)))) */
        for (int i11 = 0; i11 < 256; i11++) {
            struct Tuple_Tuple_float_float_Tuple_float_float t14 = uf_bfly(fft_pow6(2.0f, fft_float5((9 - 1))), ((struct Tuple_int_Tuple_Tuple_float_float_Tuple_float_float){i11, ((struct Tuple_Tuple_float_float_Tuple_float_float){((struct Tuple_float_float){tmp1_0[512*gl10 + i11], tmp1_1[512*gl10 + i11]}), ((struct Tuple_float_float){tmp1_0[512*gl10 + i11 + 256], tmp1_1[512*gl10 + i11 + 256]})})}));
            struct Tuple_float_float t15 = t14._0;
            tmp2_0[512*gl10 + i11] = t15._0;
            tmp2_1[512*gl10 + i11] = t15._1;
            struct Tuple_float_float t16 = t14._1;
            tmp2_0[512*gl10 + i11 + 256] = t16._0;
            tmp2_1[512*gl10 + i11 + 256] = t16._1;
        }
    }
}

// loop 9 (λt. join ∘ map (join ∘ transpose ∘ split 2) ∘ split (1024/2^t)) ∘ loop 10 (λs. join ∘ mapGlobal (scatterOffsets (0, 512*2^(-s)) ∘ mapSeq (bfly (pow 2.0 (float (9 - s)))) ∘ enumerate ∘ gatherOf

kernel void fft_2(global float *restrict tmp1_0, global float *restrict tmp1_1, global float *restrict tmp2_0, global float *restrict tmp2_1) {
    /* mapGlobal (scatterOffsets (0, 128) ∘ mapSeq (bfly (pow 2.0 (float (... */
    {
        int gl17 = get_global_id(0);
        /* mapSeq (bfly (pow 2.0 (float (9 - 2)))) */
        for (int i18 = 0; i18 < 128; i18++) {
            struct Tuple_Tuple_float_float_Tuple_float_float t21 = uf_bfly(fft_pow6(2.0f, fft_float5((9 - 2))), ((struct Tuple_int_Tuple_Tuple_float_float_Tuple_float_float){i18, ((struct Tuple_Tuple_float_float_Tuple_float_float){((struct Tuple_float_float){tmp2_0[256*gl17 + i18], tmp2_1[256*gl17 + i18]}), ((struct Tuple_float_float){tmp2_0[256*gl17 + i18 + 128], tmp2_1[256*gl17 + i18 + 128]})})}));
            struct Tuple_float_float t22 = t21._0;
            tmp1_0[256*gl17 + i18] = t22._0;
            tmp1_1[256*gl17 + i18] = t22._1;
            struct Tuple_float_float t23 = t21._1;
            tmp1_0[256*gl17 + i18 + 128] = t23._0;
            tmp1_1[256*gl17 + i18 + 128] = t23._1;
        }
    }
}

// loop 9 (λt. join ∘ map (join ∘ transpose ∘ split 2) ∘ split (1024/2^t)) ∘ loop 10 (λs. join ∘ mapGlobal (scatterOffsets (0, 512*2^(-s)) ∘ mapSeq (bfly (pow 2.0 (float (9 - s)))) ∘ enumerate ∘ gatherOf

kernel void fft_3(global float *restrict tmp1_0, global float *restrict tmp1_1, global float *restrict tmp2_0, global float *restrict tmp2_1) {
    /* mapGlobal (scatterOffsets (0, 64) ∘ mapSeq (bfly (pow 2.0 (float (9... */
    {
        int gl24 = get_global_id(0);
        /* mapSeq (bfly (pow 2.0 (float (9 - 3)))) */
        for (int i25 = 0; i25 < 64; i25++) {
            struct Tuple_Tuple_float_float_Tuple_float_float t28 = uf_bfly(fft_pow6(2.0f, fft_float5((9 - 3))), ((struct Tuple_int_Tuple_Tuple_float_float_Tuple_float_float){i25, ((struct Tuple_Tuple_float_float_Tuple_float_float){((struct Tuple_float_float){tmp1_0[128*gl24 + i25], tmp1_1[128*gl24 + i25]}), ((struct Tuple_float_float){tmp1_0[128*gl24 + i25 + 64], tmp1_1[128*gl24 + i25 + 64]})})}));
            struct Tuple_float_float t29 = t28._0;
            tmp2_0[128*gl24 + i25] = t29._0;
            tmp2_1[128*gl24 + i25] = t29._1;
            struct Tuple_float_float t30 = t28._1;
            tmp2_0[128*gl24 + i25 + 64] = t30._0;
            tmp2_1[128*gl24 + i25 + 64] = t30._1;
        }
    }
}

// loop 9 (λt. join ∘ map (join ∘ transpose ∘ split 2) ∘ split (1024/2^t)) ∘ loop 10 (λs. join ∘ mapGlobal (scatterOffsets (0, 512*2^(-s)) ∘ mapSeq (bfly (pow 2.0 (float (9 - s)))) ∘ enumerate ∘ gatherOf

kernel void fft_4(global float *restrict tmp1_0, global float *restrict tmp1_1, global float *restrict tmp2_0, global float *restrict tmp2_1) {
    /* mapGlobal (scatterOffsets (0, 32) ∘ mapSeq (bfly (pow 2.0 (float (9... */
    {
        int gl31 = get_global_id(0);
        /* mapSeq (bfly (pow 2.0 (float (9 - 4)))) */
        for (int i32 = 0; i32 < 32; i32++) {
            struct Tuple_Tuple_float_float_Tuple_float_float t35 = uf_bfly(fft_pow6(2.0f, fft_float5((9 - 4))), ((struct Tuple_int_Tuple_Tuple_float_float_Tuple_float_float){i32, ((struct Tuple_Tuple_float_float_Tuple_float_float){((struct Tuple_float_float){tmp2_0[64*gl31 + i32], tmp2_1[64*gl31 + i32]}), ((struct Tuple_float_float){tmp2_0[64*gl31 + i32 + 32], tmp2_1[64*gl31 + i32 + 32]})})}));
            struct Tuple_float_float t36 = t35._0;
            tmp1_0[64*gl31 + i32] = t36._0;
            tmp1_1[64*gl31 + i32] = t36._1;
            struct Tuple_float_float t37 = t35._1;
            tmp1_0[64*gl31 + i32 + 32] = t37._0;
            tmp1_1[64*gl31 + i32 + 32] = t37._1;
        }
    }
}

// loop 9 (λt. join ∘ map (join ∘ transpose ∘ split 2) ∘ split (1024/2^t)) ∘ loop 10 (λs. join ∘ mapGlobal (scatterOffsets (0, 512*2^(-s)) ∘ mapSeq (bfly (pow 2.0 (float (9 - s)))) ∘ enumerate ∘ gatherOf

kernel void fft_5(global float *restrict tmp1_0, global float *restrict tmp1_1, global float *restrict tmp2_0, global float *restrict tmp2_1) {
    /* mapGlobal (scatterOffsets (0, 16) ∘ mapSeq (bfly (pow 2.0 (float (9... */
    {
        int gl38 = get_global_id(0);
        /* mapSeq (bfly (pow 2.0 (float (9 - 5)))) */
        for (int i39 = 0; i39 < 16; i39++) {
            struct Tuple_Tuple_float_float_Tuple_float_float t42 = uf_bfly(fft_pow6(2.0f, fft_float5((9 - 5))), ((struct Tuple_int_Tuple_Tuple_float_float_Tuple_float_float){i39, ((struct Tuple_Tuple_float_float_Tuple_float_float){((struct Tuple_float_float){tmp1_0[32*gl38 + i39], tmp1_1[32*gl38 + i39]}), ((struct Tuple_float_float){tmp1_0[32*gl38 + i39 + 16], tmp1_1[32*gl38 + i39 + 16]})})}));
            struct Tuple_float_float t43 = t42._0;
            tmp2_0[32*gl38 + i39] = t43._0;
            tmp2_1[32*gl38 + i39] = t43._1;
            struct Tuple_float_float t44 = t42._1;
            tmp2_0[32*gl38 + i39 + 16] = t44._0;
            tmp2_1[32*gl38 + i39 + 16] = t44._1;
        }
    }
}

// loop 9 (λt. join ∘ map (join ∘ transpose ∘ split 2) ∘ split (1024/2^t)) ∘ loop 10 (λs. join ∘ mapGlobal (scatterOffsets (0, 512*2^(-s)) ∘ mapSeq (bfly (pow 2.0 (float (9 - s)))) ∘ enumerate ∘ gatherOf

kernel void fft_6(global float *restrict tmp1_0, global float *restrict tmp1_1, global float *restrict tmp2_0, global float *restrict tmp2_1) {
    /* mapGlobal (scatterOffsets (0, 8) ∘ mapSeq (bfly (pow 2.0 (float (9 ... */
    {
        int gl45 = get_global_id(0);
        /* mapSeq (bfly (pow 2.0 (float (9 - 6)))) */
        for (int i46 = 0; i46 < 8; i46++) {
            struct Tuple_Tuple_float_float_Tuple_float_float t49 = uf_bfly(fft_pow6(2.0f, fft_float5((9 - 6))), ((struct Tuple_int_Tuple_Tuple_float_float_Tuple_float_float){i46, ((struct Tuple_Tuple_float_float_Tuple_float_float){((struct Tuple_float_float){tmp2_0[16*gl45 + i46], tmp2_1[16*gl45 + i46]}), ((struct Tuple_float_float){tmp2_0[16*gl45 + i46 + 8], tmp2_1[16*gl45 + i46 + 8]})})}));
            struct Tuple_float_float t50 = t49._0;
            tmp1_0[16*gl45 + i46] = t50._0;
            tmp1_1[16*gl45 + i46] = t50._1;
            struct Tuple_float_float t51 = t49._1;
            tmp1_0[16*gl45 + i46 + 8] = t51._0;
            tmp1_1[16*gl45 + i46 + 8] = t51._1;
        }
    }
}

// loop 9 (λt. join ∘ map (join ∘ transpose ∘ split 2) ∘ split (1024/2^t)) ∘ loop 10 (λs. join ∘ mapGlobal (scatterOffsets (0, 512*2^(-s)) ∘ mapSeq (bfly (pow 2.0 (float (9 - s)))) ∘ enumerate ∘ gatherOf

kernel void fft_7(global float *restrict tmp1_0, global float *restrict tmp1_1, global float *restrict tmp2_0, global float *restrict tmp2_1) {
    /* mapGlobal (scatterOffsets (0, 4) ∘ mapSeq (bfly (pow 2.0 (float (9 ... */
    {
        int gl52 = get_global_id(0);
        /* mapSeq (bfly (pow 2.0 (float (9 - 7)))) */
        for (int i53 = 0; i53 < 4; i53++) {
            struct Tuple_Tuple_float_float_Tuple_float_float t56 = uf_bfly(fft_pow6(2.0f, fft_float5((9 - 7))), ((struct Tuple_int_Tuple_Tuple_float_float_Tuple_float_float){i53, ((struct Tuple_Tuple_float_float_Tuple_float_float){((struct Tuple_float_float){tmp1_0[8*gl52 + i53], tmp1_1[8*gl52 + i53]}), ((struct Tuple_float_float){tmp1_0[8*gl52 + i53 + 4], tmp1_1[8*gl52 + i53 + 4]})})}));
            struct Tuple_float_float t57 = t56._0;
            tmp2_0[8*gl52 + i53] = t57._0;
            tmp2_1[8*gl52 + i53] = t57._1;
            struct Tuple_float_float t58 = t56._1;
            tmp2_0[8*gl52 + i53 + 4] = t58._0;
            tmp2_1[8*gl52 + i53 + 4] = t58._1;
        }
    }
}

// loop 9 (λt. join ∘ map (join ∘ transpose ∘ split 2) ∘ split (1024/2^t)) ∘ loop 10 (λs. join ∘ mapGlobal (scatterOffsets (0, 512*2^(-s)) ∘ mapSeq (bfly (pow 2.0 (float (9 - s)))) ∘ enumerate ∘ gatherOf

kernel void fft_8(global float *restrict tmp1_0, global float *restrict tmp1_1, global float *restrict tmp2_0, global float *restrict tmp2_1) {
    /* mapGlobal (scatterOffsets (0, 2) ∘ mapSeq (bfly (pow 2.0 (float (9 ... */
    {
        int gl59 = get_global_id(0);
        /* mapSeq (bfly (pow 2.0 (float (9 - 8)))) */
        for (int i60 = 0; i60 < 2; i60++) {
            struct Tuple_Tuple_float_float_Tuple_float_float t63 = uf_bfly(fft_pow6(2.0f, fft_float5((9 - 8))), ((struct Tuple_int_Tuple_Tuple_float_float_Tuple_float_float){i60, ((struct Tuple_Tuple_float_float_Tuple_float_float){((struct Tuple_float_float){tmp2_0[4*gl59 + i60], tmp2_1[4*gl59 + i60]}), ((struct Tuple_float_float){tmp2_0[4*gl59 + i60 + 2], tmp2_1[4*gl59 + i60 + 2]})})}));
            struct Tuple_float_float t64 = t63._0;
            tmp1_0[4*gl59 + i60] = t64._0;
            tmp1_1[4*gl59 + i60] = t64._1;
            struct Tuple_float_float t65 = t63._1;
            tmp1_0[4*gl59 + i60 + 2] = t65._0;
            tmp1_1[4*gl59 + i60 + 2] = t65._1;
        }
    }
}

// loop 9 (λt. join ∘ map (join ∘ transpose ∘ split 2) ∘ split (1024/2^t)) ∘ loop 10 (λs. join ∘ mapGlobal (scatterOffsets (0, 512*2^(-s)) ∘ mapSeq (bfly (pow 2.0 (float (9 - s)))) ∘ enumerate ∘ gatherOf

kernel void fft_9(global float *restrict out_0, global float *restrict out_1, global float *restrict tmp1_0, global float *restrict tmp1_1) {
    /* mapGlobal (scatterOffsets (0, 1) ∘ mapSeq (bfly (pow 2.0 (float (9 ... */
    {
        int gl66 = get_global_id(0);
        /* mapSeq (bfly (pow 2.0 (float (9 - 9)))) */
        for (int i67 = 0; i67 < 1; i67++) {
            struct Tuple_Tuple_float_float_Tuple_float_float t70 = uf_bfly(fft_pow6(2.0f, fft_float5((9 - 9))), ((struct Tuple_int_Tuple_Tuple_float_float_Tuple_float_float){i67, ((struct Tuple_Tuple_float_float_Tuple_float_float){((struct Tuple_float_float){tmp1_0[2*gl66 + i67], tmp1_1[2*gl66 + i67]}), ((struct Tuple_float_float){tmp1_0[2*gl66 + i67 + 1], tmp1_1[2*gl66 + i67 + 1]})})}));
            struct Tuple_float_float t71 = t70._0;
            out_0[((((((((((((((((gl66) / 2)) / 2)) / 2)) / 2)) / 2)) / 2)) / 2)) / 2) + 2*((((((((((((((((gl66) / 2)) / 2)) / 2)) / 2)) / 2)) / 2)) / 2)) % 2) + 4*((((((((((((((gl66) / 2)) / 2)) / 2)) / 2)) / 2)) / 2)) % 2) + 8*((((((((((((gl66) / 2)) / 2)) / 2)) / 2)) / 2)) % 2) + 16*((((((((((gl66) / 2)) / 2)) / 2)) / 2)) % 2) + 32*((((((((gl66) / 2)) / 2)) / 2)) % 2) + 64*((((((gl66) / 2)) / 2)) % 2) + 128*((((gl66) / 2)) % 2) + 256*((gl66) % 2) + 512*i67] = t71._0;
            out_1[((((((((((((((((gl66) / 2)) / 2)) / 2)) / 2)) / 2)) / 2)) / 2)) / 2) + 2*((((((((((((((((gl66) / 2)) / 2)) / 2)) / 2)) / 2)) / 2)) / 2)) % 2) + 4*((((((((((((((gl66) / 2)) / 2)) / 2)) / 2)) / 2)) / 2)) % 2) + 8*((((((((((((gl66) / 2)) / 2)) / 2)) / 2)) / 2)) % 2) + 16*((((((((((gl66) / 2)) / 2)) / 2)) / 2)) % 2) + 32*((((((((gl66) / 2)) / 2)) / 2)) % 2) + 64*((((((gl66) / 2)) / 2)) % 2) + 128*((((gl66) / 2)) % 2) + 256*((gl66) % 2) + 512*i67] = t71._1;
            struct Tuple_float_float t72 = t70._1;
            out_0[((((((((((((((((gl66) / 2)) / 2)) / 2)) / 2)) / 2)) / 2)) / 2)) / 2) + 2*((((((((((((((((gl66) / 2)) / 2)) / 2)) / 2)) / 2)) / 2)) / 2)) % 2) + 4*((((((((((((((gl66) / 2)) / 2)) / 2)) / 2)) / 2)) / 2)) % 2) + 8*((((((((((((gl66) / 2)) / 2)) / 2)) / 2)) / 2)) % 2) + 16*((((((((((gl66) / 2)) / 2)) / 2)) / 2)) % 2) + 32*((((((((gl66) / 2)) / 2)) / 2)) % 2) + 64*((((((gl66) / 2)) / 2)) % 2) + 128*((((gl66) / 2)) % 2) + 256*((gl66) % 2) + 512*i67 + 512] = t72._0;
            out_1[((((((((((((((((gl66) / 2)) / 2)) / 2)) / 2)) / 2)) / 2)) / 2)) / 2) + 2*((((((((((((((((gl66) / 2)) / 2)) / 2)) / 2)) / 2)) / 2)) / 2)) % 2) + 4*((((((((((((((gl66) / 2)) / 2)) / 2)) / 2)) / 2)) / 2)) % 2) + 8*((((((((((((gl66) / 2)) / 2)) / 2)) / 2)) / 2)) % 2) + 16*((((((((((gl66) / 2)) / 2)) / 2)) / 2)) % 2) + 32*((((((((gl66) / 2)) / 2)) / 2)) % 2) + 64*((((((gl66) / 2)) / 2)) % 2) + 128*((((gl66) / 2)) % 2) + 256*((gl66) % 2) + 512*i67 + 512] = t72._1;
        }
    }
}

float4 nbody_tiled_f10_v4(float4 acc_, int a0_) { return acc_; }
float4 uf_calcAcc(float4 p1, float4 p2, float deltaT, float espSqr) {
{
  float4 r;
  r.xyz = p2.xyz - p1.xyz ;
  float distSqr = r.x*r.x + r.y*r.y + r.z*r.z;
  float invDist = 1.0f / sqrt(distSqr + espSqr);
  float invDistCube = invDist * invDist * invDist;
  float s = invDistCube * p2.w;
  float4 res;
  res.xyz = s * r.xyz;
  return res;
}
 
}
struct Tuple_float4_float4 { float4 _0; float4 _1; };
float4 nbody_tiled_f12_v4(struct Tuple_float4_float4 a0_) { return (a0_._0 + a0_._1); }
struct Tuple_float4_float4 uf_update(float4 pos, float4 vel, float deltaT, float4 acceleration) {
#define Tuple struct Tuple_float4_float4
{
  float4 newPos;
  newPos.xyz = pos.xyz + vel.xyz * deltaT + 0.5f * acceleration.xyz * deltaT * deltaT;
  newPos.w = pos.w;
  float4 newVel;
  newVel.xyz = vel.xyz + acceleration.xyz * deltaT;
  newVel.w = vel.w;
  Tuple t = {newPos, newVel};
  return t;
}
    
#undef Tuple
}


// λpos vel espSqr deltaT. join (mapWorkgroup (λxs. mapLocal (λ(r, p1). mapSeq (λacceleration. update p1.0 p1.1 deltaT acceleration) r) (zip (transpose (reduceSeq (λ(accs, y). (λtile. mapLocal (λ(acc, p1

kernel void nbody_tiled_0(global const float *restrict in0, global const float *restrict in1, global const float *restrict in2, global const float *restrict in3, global float *restrict out_0, global float *restrict out_1) {
    local float lcl2[512] __attribute__((aligned(16)));
    local float lcl5[512] __attribute__((aligned(16)));
    /* mapWorkgroup (λxs. mapLocal (λ(r, p1). mapSeq (λacceleration. updat... */
    {
        int wg1 = get_group_id(0);
        if (get_local_id(0) == 0 && get_local_id(1) == 0 && get_local_id(2) == 0) {
            for (int c3 = 0; c3 < 128; c3++) {
                *(local float4 *)(lcl2 + 4*c3) = (float4)(0.0f);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* reduceSeq (λ(accs, y). (λtile. mapLocal (λ(acc, p1). at 0 ((reduceS... */
        for (int i4 = 0; i4 < 128; i4++) {
            /* mapLocal id */
            {
                int l6 = get_local_id(0);
                *(local float4 *)(lcl5 + 4*l6) = (*(global const float4 *)(in0 + 512*i4 + 4*l6));
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            /* mapLocal (λ(acc, p1). at 0 ((reduceSeq (mapVec (+)) acc ∘ mapSeq (λ... */
            {
                int l7 = get_local_id(0);
                float prv8[4];
                float4 acc9 = nbody_tiled_f10_v4((*(local float4 *)(lcl2 + 4*l7)), 0);
                /* reduceSeq (mapVec (+)) acc */
                for (int i11 = 0; i11 < 128; i11++) {
                    acc9 = nbody_tiled_f12_v4(((struct Tuple_float4_float4){acc9, uf_calcAcc((*(global const float4 *)(in0 + 4*l7 + 512*wg1)), (*(local float4 *)(lcl5 + 4*i11)), in3[0], in2[0])}));
                }
                vstore4(acc9, 0, prv8 + 0);
                *(local float4 *)(lcl2 + 4*l7) = vload4(0, prv8 + 0);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        /* mapLocal (λ(r, p1). mapSeq (λacceleration. update p1.0 p1.1 deltaT ... */
        {
            int l13 = get_local_id(0);
            /* mapSeq (λacceleration. update p1.0 p1.1 deltaT acceleration) */
            for (int i14 = 0; i14 < 1; i14++) {
                struct Tuple_float4_float4 t15 = uf_update((*(global const float4 *)(in0 + 4*l13 + 512*wg1)), (*(global const float4 *)(in1 + 4*l13 + 512*wg1)), in3[0], (*(local float4 *)(lcl2 + 4*l13)));
                *(global float4 *)(out_0 + 4*i14 + 4*l13 + 512*wg1) = t15._0;
                *(global float4 *)(out_1 + 4*i14 + 4*l13 + 512*wg1) = t15._1;
            }
        }
    }
}

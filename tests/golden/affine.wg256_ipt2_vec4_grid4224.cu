// kernel-forge generated CUDA C source (forge.emit, emitter version 5); do not edit
// kernel: affine v1, entry point affine_kernel
// semantic hash: 06ffa8c127aa60b96317540134f2898f1fdc8d10831ca10c03d03e07ee477f84
// schedule: wg=256,ipt=2,vec=4,grid=4224
// pattern: map (n=size)
// IR:
//   y = ((a * x) + b)

struct __align__(16) fg_Params {
    float a;
    float b;
    unsigned int n;
};

extern "C" __global__ void __launch_bounds__(256) affine_kernel(
        const float* __restrict__ x,
        float* __restrict__ y,
        const fg_Params fg_p) {
    const unsigned int fg_lidx = threadIdx.x;
    const unsigned int fg_chunks = (fg_p.n / 4u + (fg_p.n % 4u != 0u ? 1u : 0u));
    const bool fg_vec_ok1 = (((unsigned long long)x | (unsigned long long)y) & 15ull) == 0ull;
    // each workgroup takes 512 chunks of 4 per pass; grid-stride over the rest
    for (unsigned long long fg_first = (unsigned long long)((blockIdx.y * gridDim.x + blockIdx.x)) * 512u; fg_first < fg_chunks; fg_first += (unsigned long long)((gridDim.x * gridDim.y)) * 512u) {
        float fg_v_x[8] = {};
        // load every chunk first, then compute and store
        #pragma unroll
        for (unsigned int fg_k = 0u; fg_k < 2u; fg_k += 1u) {
            const unsigned long long fg_j2 = fg_first + fg_k * 256u + fg_lidx;
            if (fg_j2 < fg_chunks) {
                if (fg_vec_ok1 && fg_j2 * 4u + 4u <= fg_p.n) {
                    const float4 fg_q = *reinterpret_cast<const float4*>(&x[fg_j2 * 4u]);
                    fg_v_x[fg_k * 4u] = fg_q.x;
                    fg_v_x[fg_k * 4u + 1u] = fg_q.y;
                    fg_v_x[fg_k * 4u + 2u] = fg_q.z;
                    fg_v_x[fg_k * 4u + 3u] = fg_q.w;
                } else {
                    if (fg_j2 * 4u < fg_p.n) { fg_v_x[fg_k * 4u] = x[fg_j2 * 4u]; }
                    if (fg_j2 * 4u + 1u < fg_p.n) { fg_v_x[fg_k * 4u + 1u] = x[fg_j2 * 4u + 1u]; }
                    if (fg_j2 * 4u + 2u < fg_p.n) { fg_v_x[fg_k * 4u + 2u] = x[fg_j2 * 4u + 2u]; }
                    if (fg_j2 * 4u + 3u < fg_p.n) { fg_v_x[fg_k * 4u + 3u] = x[fg_j2 * 4u + 3u]; }
                }
            }
        }
        #pragma unroll
        for (unsigned int fg_k = 0u; fg_k < 2u; fg_k += 1u) {
            const unsigned long long fg_j3 = fg_first + fg_k * 256u + fg_lidx;
            if (fg_j3 < fg_chunks) {
                float fg_o_y[4] = {};
                const float fg_t4 = (fg_p.a * fg_v_x[fg_k * 4u]);  // (a * x)
                const float fg_t5 = (fg_t4 + fg_p.b);  // ((a * x) + b)
                fg_o_y[0u] = fg_t5;
                const float fg_t6 = (fg_p.a * fg_v_x[fg_k * 4u + 1u]);  // (a * x)
                const float fg_t7 = (fg_t6 + fg_p.b);  // ((a * x) + b)
                fg_o_y[1u] = fg_t7;
                const float fg_t8 = (fg_p.a * fg_v_x[fg_k * 4u + 2u]);  // (a * x)
                const float fg_t9 = (fg_t8 + fg_p.b);  // ((a * x) + b)
                fg_o_y[2u] = fg_t9;
                const float fg_t10 = (fg_p.a * fg_v_x[fg_k * 4u + 3u]);  // (a * x)
                const float fg_t11 = (fg_t10 + fg_p.b);  // ((a * x) + b)
                fg_o_y[3u] = fg_t11;
                if (fg_vec_ok1 && fg_j3 * 4u + 4u <= fg_p.n) {
                    *reinterpret_cast<float4*>(&y[fg_j3 * 4u]) = make_float4(fg_o_y[0u], fg_o_y[1u], fg_o_y[2u], fg_o_y[3u]);
                } else {
                    if (fg_j3 * 4u < fg_p.n) { y[fg_j3 * 4u] = fg_o_y[0u]; }
                    if (fg_j3 * 4u + 1u < fg_p.n) { y[fg_j3 * 4u + 1u] = fg_o_y[1u]; }
                    if (fg_j3 * 4u + 2u < fg_p.n) { y[fg_j3 * 4u + 2u] = fg_o_y[2u]; }
                    if (fg_j3 * 4u + 3u < fg_p.n) { y[fg_j3 * 4u + 3u] = fg_o_y[3u]; }
                }
            }
        }
    }
}

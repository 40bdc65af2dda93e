// kernel-forge generated CUDA C source (forge.emit, emitter version 5); do not edit
// kernel: gemm v1, entry point gemm_kernel
// semantic hash: f813ba1cd744885a2c6cc2e3f8247d8c71abcb64c1789a64b9e951ef579f7432
// schedule: wg=16x16,ipt=1,vec=4,tile=64x64x8
// pattern: matmul (m=size, n=size, k=size)
// IR:
//   c = alpha * a @ b + beta * c (f32; a row-major, b row-major; c not read when beta == 0)

struct __align__(16) fg_Params {
    float alpha;
    float beta;
    unsigned int m;
    unsigned int n;
    unsigned int k;
};

extern "C" __global__ void __launch_bounds__(256) gemm_kernel(
        const float* __restrict__ a,
        const float* __restrict__ b,
        float* __restrict__ c,
        const fg_Params fg_p) {
    const unsigned int fg_lidx = threadIdx.x + 16u * threadIdx.y;
    __shared__ __align__(16) float fg_as[512];
    __shared__ __align__(16) float fg_bs[512];
    const unsigned int fg_tx = threadIdx.x;
    const unsigned int fg_ty = threadIdx.y;
    const unsigned int fg_tiles_n = (fg_p.n / 64u + (fg_p.n % 64u != 0u ? 1u : 0u));
    const unsigned int fg_tiles = (fg_p.m / 64u + (fg_p.m % 64u != 0u ? 1u : 0u)) * fg_tiles_n;
    const bool fg_vec_ok1 = (((unsigned long long)a) & 15ull) == 0ull && fg_p.k % 4u == 0u;
    const bool fg_vec_ok2 = (((unsigned long long)b) & 15ull) == 0ull && fg_p.n % 4u == 0u;
    const bool fg_vec_ok3 = (((unsigned long long)c) & 15ull) == 0ull && fg_p.n % 4u == 0u;
    // 64x64 block of c per workgroup, 4x4 per invocation, k in steps of 8
    for (unsigned long long fg_tile = (unsigned long long)((blockIdx.y * gridDim.x + blockIdx.x)); fg_tile < fg_tiles; fg_tile += (unsigned long long)((gridDim.x * gridDim.y))) {
        const unsigned int fg_m0 = (unsigned int)(fg_tile) / fg_tiles_n * 64u;
        const unsigned int fg_n0 = (unsigned int)(fg_tile) % fg_tiles_n * 64u;
        float fg_acc[16] = {};
        float fg_ra[4] = {};
        float fg_rb[4] = {};
        for (unsigned int fg_k0 = 0u; fg_k0 < fg_p.k; fg_k0 += 8u) {
            const unsigned int fg_s4 = 0u + fg_lidx;
            const unsigned int fg_go5 = fg_m0 + fg_s4 / 2u;
            const unsigned int fg_gk6 = fg_k0 + fg_s4 % 2u * 4u;
            fg_ra[0u] = 0.0f;
            fg_ra[1u] = 0.0f;
            fg_ra[2u] = 0.0f;
            fg_ra[3u] = 0.0f;
            if (fg_s4 < 128u && fg_go5 < fg_p.m) {
                if (fg_vec_ok1 && fg_gk6 + 4u <= fg_p.k) {
                    const float4 fg_q = *reinterpret_cast<const float4*>(&a[(unsigned long long)(fg_go5) * fg_p.k + fg_gk6]);
                    fg_ra[0u] = fg_q.x;
                    fg_ra[1u] = fg_q.y;
                    fg_ra[2u] = fg_q.z;
                    fg_ra[3u] = fg_q.w;
                } else {
                    if (fg_gk6 < fg_p.k) { fg_ra[0u] = a[(unsigned long long)(fg_go5) * fg_p.k + fg_gk6]; }
                    if (fg_gk6 + 1u < fg_p.k) { fg_ra[1u] = a[(unsigned long long)(fg_go5) * fg_p.k + fg_gk6 + 1u]; }
                    if (fg_gk6 + 2u < fg_p.k) { fg_ra[2u] = a[(unsigned long long)(fg_go5) * fg_p.k + fg_gk6 + 2u]; }
                    if (fg_gk6 + 3u < fg_p.k) { fg_ra[3u] = a[(unsigned long long)(fg_go5) * fg_p.k + fg_gk6 + 3u]; }
                }
            }
            const unsigned int fg_s7 = 0u + fg_lidx;
            const unsigned int fg_go8 = fg_n0 + fg_s7 % 16u * 4u;
            const unsigned int fg_gk9 = fg_k0 + fg_s7 / 16u;
            fg_rb[0u] = 0.0f;
            fg_rb[1u] = 0.0f;
            fg_rb[2u] = 0.0f;
            fg_rb[3u] = 0.0f;
            if (fg_s7 < 128u && fg_gk9 < fg_p.k) {
                if (fg_vec_ok2 && fg_go8 + 4u <= fg_p.n) {
                    const float4 fg_q = *reinterpret_cast<const float4*>(&b[(unsigned long long)(fg_gk9) * fg_p.n + fg_go8]);
                    fg_rb[0u] = fg_q.x;
                    fg_rb[1u] = fg_q.y;
                    fg_rb[2u] = fg_q.z;
                    fg_rb[3u] = fg_q.w;
                } else {
                    if (fg_go8 < fg_p.n) { fg_rb[0u] = b[(unsigned long long)(fg_gk9) * fg_p.n + fg_go8]; }
                    if (fg_go8 + 1u < fg_p.n) { fg_rb[1u] = b[(unsigned long long)(fg_gk9) * fg_p.n + fg_go8 + 1u]; }
                    if (fg_go8 + 2u < fg_p.n) { fg_rb[2u] = b[(unsigned long long)(fg_gk9) * fg_p.n + fg_go8 + 2u]; }
                    if (fg_go8 + 3u < fg_p.n) { fg_rb[3u] = b[(unsigned long long)(fg_gk9) * fg_p.n + fg_go8 + 3u]; }
                }
            }
            const unsigned int fg_s10 = 0u + fg_lidx;
            if (fg_s10 < 128u) {
                fg_as[(fg_s10 % 2u * 4u) * 64u + fg_s10 / 2u] = fg_ra[0u];
                fg_as[(fg_s10 % 2u * 4u + 1u) * 64u + fg_s10 / 2u] = fg_ra[1u];
                fg_as[(fg_s10 % 2u * 4u + 2u) * 64u + fg_s10 / 2u] = fg_ra[2u];
                fg_as[(fg_s10 % 2u * 4u + 3u) * 64u + fg_s10 / 2u] = fg_ra[3u];
            }
            const unsigned int fg_s11 = 0u + fg_lidx;
            if (fg_s11 < 128u) {
                fg_bs[(fg_s11 / 16u) * 64u + fg_s11 % 16u * 4u] = fg_rb[0u];
                fg_bs[(fg_s11 / 16u) * 64u + fg_s11 % 16u * 4u + 1u] = fg_rb[1u];
                fg_bs[(fg_s11 / 16u) * 64u + fg_s11 % 16u * 4u + 2u] = fg_rb[2u];
                fg_bs[(fg_s11 / 16u) * 64u + fg_s11 % 16u * 4u + 3u] = fg_rb[3u];
            }
            __syncthreads();
            #pragma unroll
            for (unsigned int fg_kk = 0u; fg_kk < 8u; fg_kk += 1u) {
                float fg_fa[4] = {};
                float fg_fb[4] = {};
                #pragma unroll
                for (unsigned int fg_i = 0u; fg_i < 4u; fg_i += 1u) {
                    fg_fa[fg_i] = fg_as[fg_kk * 64u + fg_i / 4u * 64u + fg_ty * 4u + fg_i % 4u];
                }
                #pragma unroll
                for (unsigned int fg_j = 0u; fg_j < 4u; fg_j += 1u) {
                    fg_fb[fg_j] = fg_bs[fg_kk * 64u + fg_j / 4u * 64u + fg_tx * 4u + fg_j % 4u];
                }
                #pragma unroll
                for (unsigned int fg_i = 0u; fg_i < 4u; fg_i += 1u) {
                    #pragma unroll
                    for (unsigned int fg_j = 0u; fg_j < 4u; fg_j += 1u) {
                        fg_acc[fg_i * 4u + fg_j] += fg_fa[fg_i] * fg_fb[fg_j];
                    }
                }
            }
            __syncthreads();
        }
        // c = alpha * acc + beta * c; c is not read when beta == 0
        #pragma unroll
        for (unsigned int fg_i = 0u; fg_i < 4u; fg_i += 1u) {
            const unsigned int fg_m = fg_m0 + fg_i / 4u * 64u + fg_ty * 4u + fg_i % 4u;
            if (fg_m < fg_p.m) {
                #pragma unroll
                for (unsigned int fg_g = 0u; fg_g < 1u; fg_g += 1u) {
                    const unsigned int fg_n = fg_n0 + fg_g * 64u + fg_tx * 4u;
                    float fg_out[4] = {};
                    float fg_old[4] = {};
                    fg_out[0u] = fg_p.alpha * fg_acc[fg_i * 4u + fg_g * 4u + 0u];
                    fg_out[1u] = fg_p.alpha * fg_acc[fg_i * 4u + fg_g * 4u + 1u];
                    fg_out[2u] = fg_p.alpha * fg_acc[fg_i * 4u + fg_g * 4u + 2u];
                    fg_out[3u] = fg_p.alpha * fg_acc[fg_i * 4u + fg_g * 4u + 3u];
                    if (fg_p.beta != 0.0f) {
                        if (fg_vec_ok3 && fg_n + 4u <= fg_p.n) {
                            const float4 fg_q = *reinterpret_cast<const float4*>(&c[(unsigned long long)(fg_m) * fg_p.n + fg_n]);
                            fg_old[0u] = fg_q.x;
                            fg_old[1u] = fg_q.y;
                            fg_old[2u] = fg_q.z;
                            fg_old[3u] = fg_q.w;
                        } else {
                            if (fg_n < fg_p.n) { fg_old[0u] = c[(unsigned long long)(fg_m) * fg_p.n + fg_n]; }
                            if (fg_n + 1u < fg_p.n) { fg_old[1u] = c[(unsigned long long)(fg_m) * fg_p.n + fg_n + 1u]; }
                            if (fg_n + 2u < fg_p.n) { fg_old[2u] = c[(unsigned long long)(fg_m) * fg_p.n + fg_n + 2u]; }
                            if (fg_n + 3u < fg_p.n) { fg_old[3u] = c[(unsigned long long)(fg_m) * fg_p.n + fg_n + 3u]; }
                        }
                        fg_out[0u] = fg_out[0u] + fg_p.beta * fg_old[0u];
                        fg_out[1u] = fg_out[1u] + fg_p.beta * fg_old[1u];
                        fg_out[2u] = fg_out[2u] + fg_p.beta * fg_old[2u];
                        fg_out[3u] = fg_out[3u] + fg_p.beta * fg_old[3u];
                    }
                    if (fg_vec_ok3 && fg_n + 4u <= fg_p.n) {
                        *reinterpret_cast<float4*>(&c[(unsigned long long)(fg_m) * fg_p.n + fg_n]) = make_float4(fg_out[0u], fg_out[1u], fg_out[2u], fg_out[3u]);
                    } else {
                        if (fg_n < fg_p.n) { c[(unsigned long long)(fg_m) * fg_p.n + fg_n] = fg_out[0u]; }
                        if (fg_n + 1u < fg_p.n) { c[(unsigned long long)(fg_m) * fg_p.n + fg_n + 1u] = fg_out[1u]; }
                        if (fg_n + 2u < fg_p.n) { c[(unsigned long long)(fg_m) * fg_p.n + fg_n + 2u] = fg_out[2u]; }
                        if (fg_n + 3u < fg_p.n) { c[(unsigned long long)(fg_m) * fg_p.n + fg_n + 3u] = fg_out[3u]; }
                    }
                }
            }
        }
    }
}

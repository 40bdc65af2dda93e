// kernel-forge generated CUDA C source (forge.emit, emitter version 5); do not edit
// kernel: layernorm v1, entry point layernorm_kernel
// semantic hash: 710e18ad94c423a5a14ba4af3643dfcbb0f2fc38eae69263c0c4b419a36639b9
// schedule: wg=256,ipt=4,vec=4
// pattern: rows (rows=37, cols=size)
// IR:
//   y = ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) / f32(cols))) * (x - (row_sum(x) / f32(cols))))) / f32(cols)) + eps))) * gamma) + beta)

struct __align__(16) fg_Params {
    float eps;
    unsigned int rows;
    unsigned int cols;
};

extern "C" __global__ void __launch_bounds__(256) layernorm_kernel(
        const float* __restrict__ x,
        const float* __restrict__ gamma,
        const float* __restrict__ beta,
        float* __restrict__ y,
        const fg_Params fg_p) {
    const unsigned int fg_lidx = threadIdx.x;
    __shared__ __align__(16) float fg_red_f32[48];
    const float fg_t1 = ((float)(fg_p.cols));  // f32(cols)
    const unsigned int fg_tx = threadIdx.x;
    const unsigned int fg_ty = threadIdx.y;
    const unsigned int fg_blocks = fg_p.rows;
    const bool fg_vec_ok2 = (((unsigned long long)x | (unsigned long long)y | (unsigned long long)gamma | (unsigned long long)beta) & 15ull) == 0ull && fg_p.cols % 4u == 0u;
    unsigned int fg_half = 0u;
    // 1 row(s) per workgroup, 256 invocations per row; rows of up to 4096 columns stay in registers
    for (unsigned long long fg_blk = (unsigned long long)((blockIdx.y * gridDim.x + blockIdx.x)); fg_blk < fg_blocks; fg_blk += (unsigned long long)((gridDim.x * gridDim.y))) {
        const unsigned int fg_row = (unsigned int)(fg_blk) * 1u + fg_ty;
        const bool fg_active = fg_row < fg_p.rows;
        const unsigned int fg_rowc = min(fg_row, fg_p.rows - 1u);
        const unsigned long long fg_base = (unsigned long long)(fg_rowc) * fg_p.cols;
        if (fg_p.cols == 4096u) {
            // one pass, the row exactly fills the registers: no bounds checks
            float fg_v_x[16] = {};
            #pragma unroll
            for (unsigned int fg_k = 0u; fg_k < 4u; fg_k += 1u) {
                const unsigned int fg_c3 = 0u + (fg_k * 256u + fg_tx) * 4u;
                if (fg_vec_ok2) {
                    const float4 fg_q = *reinterpret_cast<const float4*>(&x[fg_base + fg_c3]);
                    fg_v_x[fg_k * 4u] = fg_q.x;
                    fg_v_x[fg_k * 4u + 1u] = fg_q.y;
                    fg_v_x[fg_k * 4u + 2u] = fg_q.z;
                    fg_v_x[fg_k * 4u + 3u] = fg_q.w;
                } else {
                    fg_v_x[fg_k * 4u] = x[fg_base + fg_c3];
                    fg_v_x[fg_k * 4u + 1u] = x[fg_base + fg_c3 + 1u];
                    fg_v_x[fg_k * 4u + 2u] = x[fg_base + fg_c3 + 2u];
                    fg_v_x[fg_k * 4u + 3u] = x[fg_base + fg_c3 + 3u];
                }
            }
            // row_sum(x) and row_sum(((x - (row_sum(x) / f32(cols))) * (x - (row_sum(x) / f32(cols... as moments: one sweep
            float fg_k4 = 0.0f;
            if (fg_p.cols > 0u) {
                const float fg_at5 = x[fg_base];
                const float fg_at6 = x[fg_base + fg_p.cols / 2u];
                const float fg_at7 = x[fg_base + fg_p.cols - 1u];
                const unsigned int fg_b8 = min(((unsigned int)(33 - __clz((int)(fg_p.cols)) - __ffs((int)(fg_p.cols)))), 23u);
                fg_k4 = __uint_as_float(__float_as_uint(fmaxf(fminf(fg_at5, fg_at6), fminf(fmaxf(fg_at5, fg_at6), fg_at7))) & (0xffffffffu << fg_b8));
            }
            float fg_s9 = 0.0f;
            #pragma unroll
            for (unsigned int fg_k = 0u; fg_k < 4u; fg_k += 1u) {
                const unsigned int fg_c10 = 0u + (fg_k * 256u + fg_tx) * 4u;
                {
                    fg_s9 = fg_s9 + (fg_v_x[fg_k * 4u] - fg_k4);
                }
                {
                    fg_s9 = fg_s9 + (fg_v_x[fg_k * 4u + 1u] - fg_k4);
                }
                {
                    fg_s9 = fg_s9 + (fg_v_x[fg_k * 4u + 2u] - fg_k4);
                }
                {
                    fg_s9 = fg_s9 + (fg_v_x[fg_k * 4u + 3u] - fg_k4);
                }
            }
            const float fg_mean11 = (fg_s9 * 6.25e-02f);
            const float fg_m12 = (fg_k4 + fg_mean11);
            float fg_q13 = 0.0f;
            #pragma unroll
            for (unsigned int fg_k = 0u; fg_k < 4u; fg_k += 1u) {
                const unsigned int fg_c14 = 0u + (fg_k * 256u + fg_tx) * 4u;
                {
                    const float fg_t15 = (fg_v_x[fg_k * 4u] - fg_m12);
                    fg_q13 = fg_q13 + fg_t15 * fg_t15;
                }
                {
                    const float fg_t16 = (fg_v_x[fg_k * 4u + 1u] - fg_m12);
                    fg_q13 = fg_q13 + fg_t16 * fg_t16;
                }
                {
                    const float fg_t17 = (fg_v_x[fg_k * 4u + 2u] - fg_m12);
                    fg_q13 = fg_q13 + fg_t17 * fg_t17;
                }
                {
                    const float fg_t18 = (fg_v_x[fg_k * 4u + 3u] - fg_m12);
                    fg_q13 = fg_q13 + fg_t18 * fg_t18;
                }
            }
            const float fg_g19 = ((fg_k4 - fg_m12) + fg_mean11);
            const float fg_q20 = fmaxf((fg_q13 - (1.6e+01f * fg_g19) * fg_g19), 0.0f);
            const float fg_o21 = __shfl_xor_sync(0xffffffffu, fg_s9, 16, 32);
            const float fg_o22 = __shfl_xor_sync(0xffffffffu, fg_q20, 16, 32);
            const float fg_s23 = (fg_s9 + fg_o21);
            const float fg_g24 = (fg_o21 - fg_s9);
            const float fg_q25 = ((fg_q20 + fg_o22) + (fg_g24 * fg_g24) * 3.125e-02f);
            const float fg_o26 = __shfl_xor_sync(0xffffffffu, fg_s23, 8, 32);
            const float fg_o27 = __shfl_xor_sync(0xffffffffu, fg_q25, 8, 32);
            const float fg_s28 = (fg_s23 + fg_o26);
            const float fg_g29 = (fg_o26 - fg_s23);
            const float fg_q30 = ((fg_q25 + fg_o27) + (fg_g29 * fg_g29) * 1.5625e-02f);
            const float fg_o31 = __shfl_xor_sync(0xffffffffu, fg_s28, 4, 32);
            const float fg_o32 = __shfl_xor_sync(0xffffffffu, fg_q30, 4, 32);
            const float fg_s33 = (fg_s28 + fg_o31);
            const float fg_g34 = (fg_o31 - fg_s28);
            const float fg_q35 = ((fg_q30 + fg_o32) + (fg_g34 * fg_g34) * 7.8125e-03f);
            const float fg_o36 = __shfl_xor_sync(0xffffffffu, fg_s33, 2, 32);
            const float fg_o37 = __shfl_xor_sync(0xffffffffu, fg_q35, 2, 32);
            const float fg_s38 = (fg_s33 + fg_o36);
            const float fg_g39 = (fg_o36 - fg_s33);
            const float fg_q40 = ((fg_q35 + fg_o37) + (fg_g39 * fg_g39) * 3.90625e-03f);
            const float fg_o41 = __shfl_xor_sync(0xffffffffu, fg_s38, 1, 32);
            const float fg_o42 = __shfl_xor_sync(0xffffffffu, fg_q40, 1, 32);
            const float fg_s43 = (fg_s38 + fg_o41);
            const float fg_g44 = (fg_o41 - fg_s38);
            const float fg_q45 = ((fg_q40 + fg_o42) + (fg_g44 * fg_g44) * 1.953125e-03f);
            if ((fg_tx & 31u) == 0u) {
                fg_red_f32[fg_half * 24u + 8u + fg_ty * 8u + fg_tx / 32u] = fg_s43;
                fg_red_f32[fg_half * 24u + 16u + fg_ty * 8u + fg_tx / 32u] = fg_q45;
            }
            __syncthreads();
            const float fg_w46 = fg_red_f32[fg_half * 24u + 8u + fg_ty * 8u + (fg_tx & 7u)];
            const float fg_w47 = fg_red_f32[fg_half * 24u + 16u + fg_ty * 8u + (fg_tx & 7u)];
            fg_half ^= 1u;
            const float fg_o48 = __shfl_xor_sync(0xffffffffu, fg_w46, 4, 32);
            const float fg_o49 = __shfl_xor_sync(0xffffffffu, fg_w47, 4, 32);
            const float fg_s50 = (fg_w46 + fg_o48);
            const float fg_g51 = (fg_o48 - fg_w46);
            const float fg_q52 = ((fg_w47 + fg_o49) + (fg_g51 * fg_g51) * 9.765625e-04f);
            const float fg_o53 = __shfl_xor_sync(0xffffffffu, fg_s50, 2, 32);
            const float fg_o54 = __shfl_xor_sync(0xffffffffu, fg_q52, 2, 32);
            const float fg_s55 = (fg_s50 + fg_o53);
            const float fg_g56 = (fg_o53 - fg_s50);
            const float fg_q57 = ((fg_q52 + fg_o54) + (fg_g56 * fg_g56) * 4.8828125e-04f);
            const float fg_o58 = __shfl_xor_sync(0xffffffffu, fg_s55, 1, 32);
            const float fg_o59 = __shfl_xor_sync(0xffffffffu, fg_q57, 1, 32);
            const float fg_s60 = (fg_s55 + fg_o58);
            const float fg_g61 = (fg_o58 - fg_s55);
            const float fg_q62 = ((fg_q57 + fg_o59) + (fg_g61 * fg_g61) * 2.4414062e-04f);
            const float fg_r63 = (((float)(fg_p.cols)) * fg_k4 + fg_s60);
            const float fg_t64 = (fg_r63 / fg_t1);  // (row_sum(x) / f32(cols))
            const float fg_g65 = ((fg_k4 - fg_t64) + (fg_s60 * 2.4414062e-04f));
            const float fg_r66 = (fg_q62 + (4.096e+03f * fg_g65) * fg_g65);
            const float fg_t67 = (fg_r66 / fg_t1);  // (row_sum(((x - (row_sum(x) / f32(cols))) * (x - (row_sum(x) / f32(col...
            const float fg_t68 = (fg_t67 + fg_p.eps);  // ((row_sum(((x - (row_sum(x) / f32(cols))) * (x - (row_sum(x) / f32(co...
            const float fg_t69 = rsqrtf(fg_t68);  // rsqrt(((row_sum(((x - (row_sum(x) / f32(cols))) * (x - (row_sum(x) / ...
            #pragma unroll
            for (unsigned int fg_k = 0u; fg_k < 4u; fg_k += 1u) {
                const unsigned int fg_c70 = 0u + (fg_k * 256u + fg_tx) * 4u;
                float fg_w_gamma[4] = {};
                if (fg_vec_ok2) {
                    const float4 fg_q = *reinterpret_cast<const float4*>(&gamma[fg_c70]);
                    fg_w_gamma[0u] = fg_q.x;
                    fg_w_gamma[1u] = fg_q.y;
                    fg_w_gamma[2u] = fg_q.z;
                    fg_w_gamma[3u] = fg_q.w;
                } else {
                    fg_w_gamma[0u] = gamma[fg_c70];
                    fg_w_gamma[1u] = gamma[fg_c70 + 1u];
                    fg_w_gamma[2u] = gamma[fg_c70 + 2u];
                    fg_w_gamma[3u] = gamma[fg_c70 + 3u];
                }
                float fg_w_beta[4] = {};
                if (fg_vec_ok2) {
                    const float4 fg_q = *reinterpret_cast<const float4*>(&beta[fg_c70]);
                    fg_w_beta[0u] = fg_q.x;
                    fg_w_beta[1u] = fg_q.y;
                    fg_w_beta[2u] = fg_q.z;
                    fg_w_beta[3u] = fg_q.w;
                } else {
                    fg_w_beta[0u] = beta[fg_c70];
                    fg_w_beta[1u] = beta[fg_c70 + 1u];
                    fg_w_beta[2u] = beta[fg_c70 + 2u];
                    fg_w_beta[3u] = beta[fg_c70 + 3u];
                }
                float fg_o_y[4] = {};
                {
                    const float fg_t71 = (fg_v_x[fg_k * 4u] - fg_t64);  // (x - (row_sum(x) / f32(cols)))
                    const float fg_t72 = (fg_t71 * fg_t69);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                    const float fg_t73 = (fg_t72 * fg_w_gamma[0u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                    const float fg_t74 = (fg_t73 + fg_w_beta[0u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                    fg_o_y[0u] = fg_t74;
                }
                {
                    const float fg_t75 = (fg_v_x[fg_k * 4u + 1u] - fg_t64);  // (x - (row_sum(x) / f32(cols)))
                    const float fg_t76 = (fg_t75 * fg_t69);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                    const float fg_t77 = (fg_t76 * fg_w_gamma[1u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                    const float fg_t78 = (fg_t77 + fg_w_beta[1u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                    fg_o_y[1u] = fg_t78;
                }
                {
                    const float fg_t79 = (fg_v_x[fg_k * 4u + 2u] - fg_t64);  // (x - (row_sum(x) / f32(cols)))
                    const float fg_t80 = (fg_t79 * fg_t69);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                    const float fg_t81 = (fg_t80 * fg_w_gamma[2u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                    const float fg_t82 = (fg_t81 + fg_w_beta[2u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                    fg_o_y[2u] = fg_t82;
                }
                {
                    const float fg_t83 = (fg_v_x[fg_k * 4u + 3u] - fg_t64);  // (x - (row_sum(x) / f32(cols)))
                    const float fg_t84 = (fg_t83 * fg_t69);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                    const float fg_t85 = (fg_t84 * fg_w_gamma[3u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                    const float fg_t86 = (fg_t85 + fg_w_beta[3u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                    fg_o_y[3u] = fg_t86;
                }
                if (fg_active) {
                    if (fg_vec_ok2) {
                        *reinterpret_cast<float4*>(&y[fg_base + fg_c70]) = make_float4(fg_o_y[0u], fg_o_y[1u], fg_o_y[2u], fg_o_y[3u]);
                    } else {
                        y[fg_base + fg_c70] = fg_o_y[0u];
                        y[fg_base + fg_c70 + 1u] = fg_o_y[1u];
                        y[fg_base + fg_c70 + 2u] = fg_o_y[2u];
                        y[fg_base + fg_c70 + 3u] = fg_o_y[3u];
                    }
                }
            }
        } else {
            if (fg_p.cols < 4096u) {
                // one pass: the row lives in registers
                float fg_v_x[16] = {};
                #pragma unroll
                for (unsigned int fg_k = 0u; fg_k < 4u; fg_k += 1u) {
                    const unsigned int fg_c87 = 0u + (fg_k * 256u + fg_tx) * 4u;
                    if (fg_vec_ok2 && fg_c87 + 4u <= fg_p.cols) {
                        const float4 fg_q = *reinterpret_cast<const float4*>(&x[fg_base + fg_c87]);
                        fg_v_x[fg_k * 4u] = fg_q.x;
                        fg_v_x[fg_k * 4u + 1u] = fg_q.y;
                        fg_v_x[fg_k * 4u + 2u] = fg_q.z;
                        fg_v_x[fg_k * 4u + 3u] = fg_q.w;
                    } else {
                        if (fg_c87 < fg_p.cols) { fg_v_x[fg_k * 4u] = x[fg_base + fg_c87]; }
                        if (fg_c87 + 1u < fg_p.cols) { fg_v_x[fg_k * 4u + 1u] = x[fg_base + fg_c87 + 1u]; }
                        if (fg_c87 + 2u < fg_p.cols) { fg_v_x[fg_k * 4u + 2u] = x[fg_base + fg_c87 + 2u]; }
                        if (fg_c87 + 3u < fg_p.cols) { fg_v_x[fg_k * 4u + 3u] = x[fg_base + fg_c87 + 3u]; }
                    }
                }
                // row_sum(x) and row_sum(((x - (row_sum(x) / f32(cols))) * (x - (row_sum(x) / f32(cols... as moments: one sweep
                float fg_k88 = 0.0f;
                if (fg_p.cols > 0u) {
                    const float fg_at89 = x[fg_base];
                    const float fg_at90 = x[fg_base + fg_p.cols / 2u];
                    const float fg_at91 = x[fg_base + fg_p.cols - 1u];
                    const unsigned int fg_b92 = min(((unsigned int)(33 - __clz((int)(fg_p.cols)) - __ffs((int)(fg_p.cols)))), 23u);
                    fg_k88 = __uint_as_float(__float_as_uint(fmaxf(fminf(fg_at89, fg_at90), fminf(fmaxf(fg_at89, fg_at90), fg_at91))) & (0xffffffffu << fg_b92));
                }
                float fg_c93 = 0.0f;
                float fg_s94 = 0.0f;
                #pragma unroll
                for (unsigned int fg_k = 0u; fg_k < 4u; fg_k += 1u) {
                    const unsigned int fg_c95 = 0u + (fg_k * 256u + fg_tx) * 4u;
                    if (fg_c95 < fg_p.cols) {
                        fg_c93 = fg_c93 + 1.0f;
                        fg_s94 = fg_s94 + (fg_v_x[fg_k * 4u] - fg_k88);
                    }
                    if (fg_c95 + 1u < fg_p.cols) {
                        fg_c93 = fg_c93 + 1.0f;
                        fg_s94 = fg_s94 + (fg_v_x[fg_k * 4u + 1u] - fg_k88);
                    }
                    if (fg_c95 + 2u < fg_p.cols) {
                        fg_c93 = fg_c93 + 1.0f;
                        fg_s94 = fg_s94 + (fg_v_x[fg_k * 4u + 2u] - fg_k88);
                    }
                    if (fg_c95 + 3u < fg_p.cols) {
                        fg_c93 = fg_c93 + 1.0f;
                        fg_s94 = fg_s94 + (fg_v_x[fg_k * 4u + 3u] - fg_k88);
                    }
                }
                const float fg_mean96 = (fg_s94 / fmaxf(fg_c93, 1.0f));
                const float fg_m97 = (fg_k88 + fg_mean96);
                float fg_q98 = 0.0f;
                #pragma unroll
                for (unsigned int fg_k = 0u; fg_k < 4u; fg_k += 1u) {
                    const unsigned int fg_c99 = 0u + (fg_k * 256u + fg_tx) * 4u;
                    if (fg_c99 < fg_p.cols) {
                        const float fg_t100 = (fg_v_x[fg_k * 4u] - fg_m97);
                        fg_q98 = fg_q98 + fg_t100 * fg_t100;
                    }
                    if (fg_c99 + 1u < fg_p.cols) {
                        const float fg_t101 = (fg_v_x[fg_k * 4u + 1u] - fg_m97);
                        fg_q98 = fg_q98 + fg_t101 * fg_t101;
                    }
                    if (fg_c99 + 2u < fg_p.cols) {
                        const float fg_t102 = (fg_v_x[fg_k * 4u + 2u] - fg_m97);
                        fg_q98 = fg_q98 + fg_t102 * fg_t102;
                    }
                    if (fg_c99 + 3u < fg_p.cols) {
                        const float fg_t103 = (fg_v_x[fg_k * 4u + 3u] - fg_m97);
                        fg_q98 = fg_q98 + fg_t103 * fg_t103;
                    }
                }
                const float fg_g104 = ((fg_k88 - fg_m97) + fg_mean96);
                const float fg_q105 = fmaxf((fg_q98 - (fg_c93 * fg_g104) * fg_g104), 0.0f);
                const float fg_o106 = __shfl_xor_sync(0xffffffffu, fg_c93, 16, 32);
                const float fg_o107 = __shfl_xor_sync(0xffffffffu, fg_s94, 16, 32);
                const float fg_o108 = __shfl_xor_sync(0xffffffffu, fg_q105, 16, 32);
                const float fg_s109 = (fg_s94 + fg_o107);
                const float fg_n110 = (fg_c93 + fg_o106);
                const float fg_g111 = ((fg_o107 / fmaxf(fg_o106, 1.0f)) - (fg_s94 / fmaxf(fg_c93, 1.0f)));
                const float fg_q112 = ((fg_q105 + fg_o108) + (fg_g111 * fg_g111) * ((fg_c93 * fg_o106) / fmaxf(fg_n110, 1.0f)));
                const float fg_o113 = __shfl_xor_sync(0xffffffffu, fg_n110, 8, 32);
                const float fg_o114 = __shfl_xor_sync(0xffffffffu, fg_s109, 8, 32);
                const float fg_o115 = __shfl_xor_sync(0xffffffffu, fg_q112, 8, 32);
                const float fg_s116 = (fg_s109 + fg_o114);
                const float fg_n117 = (fg_n110 + fg_o113);
                const float fg_g118 = ((fg_o114 / fmaxf(fg_o113, 1.0f)) - (fg_s109 / fmaxf(fg_n110, 1.0f)));
                const float fg_q119 = ((fg_q112 + fg_o115) + (fg_g118 * fg_g118) * ((fg_n110 * fg_o113) / fmaxf(fg_n117, 1.0f)));
                const float fg_o120 = __shfl_xor_sync(0xffffffffu, fg_n117, 4, 32);
                const float fg_o121 = __shfl_xor_sync(0xffffffffu, fg_s116, 4, 32);
                const float fg_o122 = __shfl_xor_sync(0xffffffffu, fg_q119, 4, 32);
                const float fg_s123 = (fg_s116 + fg_o121);
                const float fg_n124 = (fg_n117 + fg_o120);
                const float fg_g125 = ((fg_o121 / fmaxf(fg_o120, 1.0f)) - (fg_s116 / fmaxf(fg_n117, 1.0f)));
                const float fg_q126 = ((fg_q119 + fg_o122) + (fg_g125 * fg_g125) * ((fg_n117 * fg_o120) / fmaxf(fg_n124, 1.0f)));
                const float fg_o127 = __shfl_xor_sync(0xffffffffu, fg_n124, 2, 32);
                const float fg_o128 = __shfl_xor_sync(0xffffffffu, fg_s123, 2, 32);
                const float fg_o129 = __shfl_xor_sync(0xffffffffu, fg_q126, 2, 32);
                const float fg_s130 = (fg_s123 + fg_o128);
                const float fg_n131 = (fg_n124 + fg_o127);
                const float fg_g132 = ((fg_o128 / fmaxf(fg_o127, 1.0f)) - (fg_s123 / fmaxf(fg_n124, 1.0f)));
                const float fg_q133 = ((fg_q126 + fg_o129) + (fg_g132 * fg_g132) * ((fg_n124 * fg_o127) / fmaxf(fg_n131, 1.0f)));
                const float fg_o134 = __shfl_xor_sync(0xffffffffu, fg_n131, 1, 32);
                const float fg_o135 = __shfl_xor_sync(0xffffffffu, fg_s130, 1, 32);
                const float fg_o136 = __shfl_xor_sync(0xffffffffu, fg_q133, 1, 32);
                const float fg_s137 = (fg_s130 + fg_o135);
                const float fg_n138 = (fg_n131 + fg_o134);
                const float fg_g139 = ((fg_o135 / fmaxf(fg_o134, 1.0f)) - (fg_s130 / fmaxf(fg_n131, 1.0f)));
                const float fg_q140 = ((fg_q133 + fg_o136) + (fg_g139 * fg_g139) * ((fg_n131 * fg_o134) / fmaxf(fg_n138, 1.0f)));
                if ((fg_tx & 31u) == 0u) {
                    fg_red_f32[fg_half * 24u + 0u + fg_ty * 8u + fg_tx / 32u] = fg_n138;
                    fg_red_f32[fg_half * 24u + 8u + fg_ty * 8u + fg_tx / 32u] = fg_s137;
                    fg_red_f32[fg_half * 24u + 16u + fg_ty * 8u + fg_tx / 32u] = fg_q140;
                }
                __syncthreads();
                const float fg_w141 = fg_red_f32[fg_half * 24u + 0u + fg_ty * 8u + (fg_tx & 7u)];
                const float fg_w142 = fg_red_f32[fg_half * 24u + 8u + fg_ty * 8u + (fg_tx & 7u)];
                const float fg_w143 = fg_red_f32[fg_half * 24u + 16u + fg_ty * 8u + (fg_tx & 7u)];
                fg_half ^= 1u;
                const float fg_o144 = __shfl_xor_sync(0xffffffffu, fg_w141, 4, 32);
                const float fg_o145 = __shfl_xor_sync(0xffffffffu, fg_w142, 4, 32);
                const float fg_o146 = __shfl_xor_sync(0xffffffffu, fg_w143, 4, 32);
                const float fg_s147 = (fg_w142 + fg_o145);
                const float fg_n148 = (fg_w141 + fg_o144);
                const float fg_g149 = ((fg_o145 / fmaxf(fg_o144, 1.0f)) - (fg_w142 / fmaxf(fg_w141, 1.0f)));
                const float fg_q150 = ((fg_w143 + fg_o146) + (fg_g149 * fg_g149) * ((fg_w141 * fg_o144) / fmaxf(fg_n148, 1.0f)));
                const float fg_o151 = __shfl_xor_sync(0xffffffffu, fg_n148, 2, 32);
                const float fg_o152 = __shfl_xor_sync(0xffffffffu, fg_s147, 2, 32);
                const float fg_o153 = __shfl_xor_sync(0xffffffffu, fg_q150, 2, 32);
                const float fg_s154 = (fg_s147 + fg_o152);
                const float fg_n155 = (fg_n148 + fg_o151);
                const float fg_g156 = ((fg_o152 / fmaxf(fg_o151, 1.0f)) - (fg_s147 / fmaxf(fg_n148, 1.0f)));
                const float fg_q157 = ((fg_q150 + fg_o153) + (fg_g156 * fg_g156) * ((fg_n148 * fg_o151) / fmaxf(fg_n155, 1.0f)));
                const float fg_o158 = __shfl_xor_sync(0xffffffffu, fg_n155, 1, 32);
                const float fg_o159 = __shfl_xor_sync(0xffffffffu, fg_s154, 1, 32);
                const float fg_o160 = __shfl_xor_sync(0xffffffffu, fg_q157, 1, 32);
                const float fg_s161 = (fg_s154 + fg_o159);
                const float fg_n162 = (fg_n155 + fg_o158);
                const float fg_g163 = ((fg_o159 / fmaxf(fg_o158, 1.0f)) - (fg_s154 / fmaxf(fg_n155, 1.0f)));
                const float fg_q164 = ((fg_q157 + fg_o160) + (fg_g163 * fg_g163) * ((fg_n155 * fg_o158) / fmaxf(fg_n162, 1.0f)));
                const float fg_r165 = (((float)(fg_p.cols)) * fg_k88 + fg_s161);
                const float fg_t166 = (fg_r165 / fg_t1);  // (row_sum(x) / f32(cols))
                const float fg_g167 = ((fg_k88 - fg_t166) + (fg_s161 / fmaxf(fg_n162, 1.0f)));
                const float fg_r168 = (fg_n162 > 0.0f ? (fg_q164 + (fg_n162 * fg_g167) * fg_g167) : 0.0f);
                const float fg_t169 = (fg_r168 / fg_t1);  // (row_sum(((x - (row_sum(x) / f32(cols))) * (x - (row_sum(x) / f32(col...
                const float fg_t170 = (fg_t169 + fg_p.eps);  // ((row_sum(((x - (row_sum(x) / f32(cols))) * (x - (row_sum(x) / f32(co...
                const float fg_t171 = rsqrtf(fg_t170);  // rsqrt(((row_sum(((x - (row_sum(x) / f32(cols))) * (x - (row_sum(x) / ...
                #pragma unroll
                for (unsigned int fg_k = 0u; fg_k < 4u; fg_k += 1u) {
                    const unsigned int fg_c172 = 0u + (fg_k * 256u + fg_tx) * 4u;
                    float fg_w_gamma[4] = {};
                    if (fg_vec_ok2 && fg_c172 + 4u <= fg_p.cols) {
                        const float4 fg_q = *reinterpret_cast<const float4*>(&gamma[fg_c172]);
                        fg_w_gamma[0u] = fg_q.x;
                        fg_w_gamma[1u] = fg_q.y;
                        fg_w_gamma[2u] = fg_q.z;
                        fg_w_gamma[3u] = fg_q.w;
                    } else {
                        if (fg_c172 < fg_p.cols) { fg_w_gamma[0u] = gamma[fg_c172]; }
                        if (fg_c172 + 1u < fg_p.cols) { fg_w_gamma[1u] = gamma[fg_c172 + 1u]; }
                        if (fg_c172 + 2u < fg_p.cols) { fg_w_gamma[2u] = gamma[fg_c172 + 2u]; }
                        if (fg_c172 + 3u < fg_p.cols) { fg_w_gamma[3u] = gamma[fg_c172 + 3u]; }
                    }
                    float fg_w_beta[4] = {};
                    if (fg_vec_ok2 && fg_c172 + 4u <= fg_p.cols) {
                        const float4 fg_q = *reinterpret_cast<const float4*>(&beta[fg_c172]);
                        fg_w_beta[0u] = fg_q.x;
                        fg_w_beta[1u] = fg_q.y;
                        fg_w_beta[2u] = fg_q.z;
                        fg_w_beta[3u] = fg_q.w;
                    } else {
                        if (fg_c172 < fg_p.cols) { fg_w_beta[0u] = beta[fg_c172]; }
                        if (fg_c172 + 1u < fg_p.cols) { fg_w_beta[1u] = beta[fg_c172 + 1u]; }
                        if (fg_c172 + 2u < fg_p.cols) { fg_w_beta[2u] = beta[fg_c172 + 2u]; }
                        if (fg_c172 + 3u < fg_p.cols) { fg_w_beta[3u] = beta[fg_c172 + 3u]; }
                    }
                    float fg_o_y[4] = {};
                    if (fg_c172 < fg_p.cols) {
                        const float fg_t173 = (fg_v_x[fg_k * 4u] - fg_t166);  // (x - (row_sum(x) / f32(cols)))
                        const float fg_t174 = (fg_t173 * fg_t171);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                        const float fg_t175 = (fg_t174 * fg_w_gamma[0u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                        const float fg_t176 = (fg_t175 + fg_w_beta[0u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                        fg_o_y[0u] = fg_t176;
                    }
                    if (fg_c172 + 1u < fg_p.cols) {
                        const float fg_t177 = (fg_v_x[fg_k * 4u + 1u] - fg_t166);  // (x - (row_sum(x) / f32(cols)))
                        const float fg_t178 = (fg_t177 * fg_t171);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                        const float fg_t179 = (fg_t178 * fg_w_gamma[1u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                        const float fg_t180 = (fg_t179 + fg_w_beta[1u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                        fg_o_y[1u] = fg_t180;
                    }
                    if (fg_c172 + 2u < fg_p.cols) {
                        const float fg_t181 = (fg_v_x[fg_k * 4u + 2u] - fg_t166);  // (x - (row_sum(x) / f32(cols)))
                        const float fg_t182 = (fg_t181 * fg_t171);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                        const float fg_t183 = (fg_t182 * fg_w_gamma[2u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                        const float fg_t184 = (fg_t183 + fg_w_beta[2u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                        fg_o_y[2u] = fg_t184;
                    }
                    if (fg_c172 + 3u < fg_p.cols) {
                        const float fg_t185 = (fg_v_x[fg_k * 4u + 3u] - fg_t166);  // (x - (row_sum(x) / f32(cols)))
                        const float fg_t186 = (fg_t185 * fg_t171);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                        const float fg_t187 = (fg_t186 * fg_w_gamma[3u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                        const float fg_t188 = (fg_t187 + fg_w_beta[3u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                        fg_o_y[3u] = fg_t188;
                    }
                    if (fg_active) {
                        if (fg_vec_ok2 && fg_c172 + 4u <= fg_p.cols) {
                            *reinterpret_cast<float4*>(&y[fg_base + fg_c172]) = make_float4(fg_o_y[0u], fg_o_y[1u], fg_o_y[2u], fg_o_y[3u]);
                        } else {
                            if (fg_c172 < fg_p.cols) { y[fg_base + fg_c172] = fg_o_y[0u]; }
                            if (fg_c172 + 1u < fg_p.cols) { y[fg_base + fg_c172 + 1u] = fg_o_y[1u]; }
                            if (fg_c172 + 2u < fg_p.cols) { y[fg_base + fg_c172 + 2u] = fg_o_y[2u]; }
                            if (fg_c172 + 3u < fg_p.cols) { y[fg_base + fg_c172 + 3u] = fg_o_y[3u]; }
                        }
                    }
                }
            } else {
                // looped: each level sweeps the row again
                // row_sum(x) and row_sum(((x - (row_sum(x) / f32(cols))) * (x - (row_sum(x) / f32(cols... as moments: one sweep
                float fg_k189 = 0.0f;
                if (fg_p.cols > 0u) {
                    const float fg_at190 = x[fg_base];
                    const float fg_at191 = x[fg_base + fg_p.cols / 2u];
                    const float fg_at192 = x[fg_base + fg_p.cols - 1u];
                    const unsigned int fg_b193 = min(((unsigned int)(33 - __clz((int)(fg_p.cols)) - __ffs((int)(fg_p.cols)))), 23u);
                    fg_k189 = __uint_as_float(__float_as_uint(fmaxf(fminf(fg_at190, fg_at191), fminf(fmaxf(fg_at190, fg_at191), fg_at192))) & (0xffffffffu << fg_b193));
                }
                float fg_n194 = 0.0f;
                float fg_s195 = 0.0f;
                float fg_q196 = 0.0f;
                for (unsigned int fg_off = 0u; fg_off < fg_p.cols; fg_off += 4096u) {
                    float fg_v_x[16] = {};
                    #pragma unroll
                    for (unsigned int fg_k = 0u; fg_k < 4u; fg_k += 1u) {
                        const unsigned int fg_c197 = fg_off + (fg_k * 256u + fg_tx) * 4u;
                        if (fg_vec_ok2 && fg_c197 + 4u <= fg_p.cols) {
                            const float4 fg_q = *reinterpret_cast<const float4*>(&x[fg_base + fg_c197]);
                            fg_v_x[fg_k * 4u] = fg_q.x;
                            fg_v_x[fg_k * 4u + 1u] = fg_q.y;
                            fg_v_x[fg_k * 4u + 2u] = fg_q.z;
                            fg_v_x[fg_k * 4u + 3u] = fg_q.w;
                        } else {
                            if (fg_c197 < fg_p.cols) { fg_v_x[fg_k * 4u] = x[fg_base + fg_c197]; }
                            if (fg_c197 + 1u < fg_p.cols) { fg_v_x[fg_k * 4u + 1u] = x[fg_base + fg_c197 + 1u]; }
                            if (fg_c197 + 2u < fg_p.cols) { fg_v_x[fg_k * 4u + 2u] = x[fg_base + fg_c197 + 2u]; }
                            if (fg_c197 + 3u < fg_p.cols) { fg_v_x[fg_k * 4u + 3u] = x[fg_base + fg_c197 + 3u]; }
                        }
                    }
                    float fg_c198 = 0.0f;
                    float fg_s199 = 0.0f;
                    #pragma unroll
                    for (unsigned int fg_k = 0u; fg_k < 4u; fg_k += 1u) {
                        const unsigned int fg_c200 = fg_off + (fg_k * 256u + fg_tx) * 4u;
                        if (fg_c200 < fg_p.cols) {
                            fg_c198 = fg_c198 + 1.0f;
                            fg_s199 = fg_s199 + (fg_v_x[fg_k * 4u] - fg_k189);
                        }
                        if (fg_c200 + 1u < fg_p.cols) {
                            fg_c198 = fg_c198 + 1.0f;
                            fg_s199 = fg_s199 + (fg_v_x[fg_k * 4u + 1u] - fg_k189);
                        }
                        if (fg_c200 + 2u < fg_p.cols) {
                            fg_c198 = fg_c198 + 1.0f;
                            fg_s199 = fg_s199 + (fg_v_x[fg_k * 4u + 2u] - fg_k189);
                        }
                        if (fg_c200 + 3u < fg_p.cols) {
                            fg_c198 = fg_c198 + 1.0f;
                            fg_s199 = fg_s199 + (fg_v_x[fg_k * 4u + 3u] - fg_k189);
                        }
                    }
                    const float fg_mean201 = (fg_s199 / fmaxf(fg_c198, 1.0f));
                    const float fg_m202 = (fg_k189 + fg_mean201);
                    float fg_q203 = 0.0f;
                    #pragma unroll
                    for (unsigned int fg_k = 0u; fg_k < 4u; fg_k += 1u) {
                        const unsigned int fg_c204 = fg_off + (fg_k * 256u + fg_tx) * 4u;
                        if (fg_c204 < fg_p.cols) {
                            const float fg_t205 = (fg_v_x[fg_k * 4u] - fg_m202);
                            fg_q203 = fg_q203 + fg_t205 * fg_t205;
                        }
                        if (fg_c204 + 1u < fg_p.cols) {
                            const float fg_t206 = (fg_v_x[fg_k * 4u + 1u] - fg_m202);
                            fg_q203 = fg_q203 + fg_t206 * fg_t206;
                        }
                        if (fg_c204 + 2u < fg_p.cols) {
                            const float fg_t207 = (fg_v_x[fg_k * 4u + 2u] - fg_m202);
                            fg_q203 = fg_q203 + fg_t207 * fg_t207;
                        }
                        if (fg_c204 + 3u < fg_p.cols) {
                            const float fg_t208 = (fg_v_x[fg_k * 4u + 3u] - fg_m202);
                            fg_q203 = fg_q203 + fg_t208 * fg_t208;
                        }
                    }
                    const float fg_g209 = ((fg_k189 - fg_m202) + fg_mean201);
                    const float fg_q210 = fmaxf((fg_q203 - (fg_c198 * fg_g209) * fg_g209), 0.0f);
                    const float fg_s211 = (fg_s195 + fg_s199);
                    const float fg_n212 = (fg_n194 + fg_c198);
                    const float fg_g213 = ((fg_s199 / fmaxf(fg_c198, 1.0f)) - (fg_s195 / fmaxf(fg_n194, 1.0f)));
                    const float fg_q214 = ((fg_q196 + fg_q210) + (fg_g213 * fg_g213) * ((fg_n194 * fg_c198) / fmaxf(fg_n212, 1.0f)));
                    fg_n194 = fg_n212;
                    fg_s195 = fg_s211;
                    fg_q196 = fg_q214;
                }
                const float fg_o215 = __shfl_xor_sync(0xffffffffu, fg_n194, 16, 32);
                const float fg_o216 = __shfl_xor_sync(0xffffffffu, fg_s195, 16, 32);
                const float fg_o217 = __shfl_xor_sync(0xffffffffu, fg_q196, 16, 32);
                const float fg_s218 = (fg_s195 + fg_o216);
                const float fg_n219 = (fg_n194 + fg_o215);
                const float fg_g220 = ((fg_o216 / fmaxf(fg_o215, 1.0f)) - (fg_s195 / fmaxf(fg_n194, 1.0f)));
                const float fg_q221 = ((fg_q196 + fg_o217) + (fg_g220 * fg_g220) * ((fg_n194 * fg_o215) / fmaxf(fg_n219, 1.0f)));
                const float fg_o222 = __shfl_xor_sync(0xffffffffu, fg_n219, 8, 32);
                const float fg_o223 = __shfl_xor_sync(0xffffffffu, fg_s218, 8, 32);
                const float fg_o224 = __shfl_xor_sync(0xffffffffu, fg_q221, 8, 32);
                const float fg_s225 = (fg_s218 + fg_o223);
                const float fg_n226 = (fg_n219 + fg_o222);
                const float fg_g227 = ((fg_o223 / fmaxf(fg_o222, 1.0f)) - (fg_s218 / fmaxf(fg_n219, 1.0f)));
                const float fg_q228 = ((fg_q221 + fg_o224) + (fg_g227 * fg_g227) * ((fg_n219 * fg_o222) / fmaxf(fg_n226, 1.0f)));
                const float fg_o229 = __shfl_xor_sync(0xffffffffu, fg_n226, 4, 32);
                const float fg_o230 = __shfl_xor_sync(0xffffffffu, fg_s225, 4, 32);
                const float fg_o231 = __shfl_xor_sync(0xffffffffu, fg_q228, 4, 32);
                const float fg_s232 = (fg_s225 + fg_o230);
                const float fg_n233 = (fg_n226 + fg_o229);
                const float fg_g234 = ((fg_o230 / fmaxf(fg_o229, 1.0f)) - (fg_s225 / fmaxf(fg_n226, 1.0f)));
                const float fg_q235 = ((fg_q228 + fg_o231) + (fg_g234 * fg_g234) * ((fg_n226 * fg_o229) / fmaxf(fg_n233, 1.0f)));
                const float fg_o236 = __shfl_xor_sync(0xffffffffu, fg_n233, 2, 32);
                const float fg_o237 = __shfl_xor_sync(0xffffffffu, fg_s232, 2, 32);
                const float fg_o238 = __shfl_xor_sync(0xffffffffu, fg_q235, 2, 32);
                const float fg_s239 = (fg_s232 + fg_o237);
                const float fg_n240 = (fg_n233 + fg_o236);
                const float fg_g241 = ((fg_o237 / fmaxf(fg_o236, 1.0f)) - (fg_s232 / fmaxf(fg_n233, 1.0f)));
                const float fg_q242 = ((fg_q235 + fg_o238) + (fg_g241 * fg_g241) * ((fg_n233 * fg_o236) / fmaxf(fg_n240, 1.0f)));
                const float fg_o243 = __shfl_xor_sync(0xffffffffu, fg_n240, 1, 32);
                const float fg_o244 = __shfl_xor_sync(0xffffffffu, fg_s239, 1, 32);
                const float fg_o245 = __shfl_xor_sync(0xffffffffu, fg_q242, 1, 32);
                const float fg_s246 = (fg_s239 + fg_o244);
                const float fg_n247 = (fg_n240 + fg_o243);
                const float fg_g248 = ((fg_o244 / fmaxf(fg_o243, 1.0f)) - (fg_s239 / fmaxf(fg_n240, 1.0f)));
                const float fg_q249 = ((fg_q242 + fg_o245) + (fg_g248 * fg_g248) * ((fg_n240 * fg_o243) / fmaxf(fg_n247, 1.0f)));
                if ((fg_tx & 31u) == 0u) {
                    fg_red_f32[fg_half * 24u + 0u + fg_ty * 8u + fg_tx / 32u] = fg_n247;
                    fg_red_f32[fg_half * 24u + 8u + fg_ty * 8u + fg_tx / 32u] = fg_s246;
                    fg_red_f32[fg_half * 24u + 16u + fg_ty * 8u + fg_tx / 32u] = fg_q249;
                }
                __syncthreads();
                const float fg_w250 = fg_red_f32[fg_half * 24u + 0u + fg_ty * 8u + (fg_tx & 7u)];
                const float fg_w251 = fg_red_f32[fg_half * 24u + 8u + fg_ty * 8u + (fg_tx & 7u)];
                const float fg_w252 = fg_red_f32[fg_half * 24u + 16u + fg_ty * 8u + (fg_tx & 7u)];
                fg_half ^= 1u;
                const float fg_o253 = __shfl_xor_sync(0xffffffffu, fg_w250, 4, 32);
                const float fg_o254 = __shfl_xor_sync(0xffffffffu, fg_w251, 4, 32);
                const float fg_o255 = __shfl_xor_sync(0xffffffffu, fg_w252, 4, 32);
                const float fg_s256 = (fg_w251 + fg_o254);
                const float fg_n257 = (fg_w250 + fg_o253);
                const float fg_g258 = ((fg_o254 / fmaxf(fg_o253, 1.0f)) - (fg_w251 / fmaxf(fg_w250, 1.0f)));
                const float fg_q259 = ((fg_w252 + fg_o255) + (fg_g258 * fg_g258) * ((fg_w250 * fg_o253) / fmaxf(fg_n257, 1.0f)));
                const float fg_o260 = __shfl_xor_sync(0xffffffffu, fg_n257, 2, 32);
                const float fg_o261 = __shfl_xor_sync(0xffffffffu, fg_s256, 2, 32);
                const float fg_o262 = __shfl_xor_sync(0xffffffffu, fg_q259, 2, 32);
                const float fg_s263 = (fg_s256 + fg_o261);
                const float fg_n264 = (fg_n257 + fg_o260);
                const float fg_g265 = ((fg_o261 / fmaxf(fg_o260, 1.0f)) - (fg_s256 / fmaxf(fg_n257, 1.0f)));
                const float fg_q266 = ((fg_q259 + fg_o262) + (fg_g265 * fg_g265) * ((fg_n257 * fg_o260) / fmaxf(fg_n264, 1.0f)));
                const float fg_o267 = __shfl_xor_sync(0xffffffffu, fg_n264, 1, 32);
                const float fg_o268 = __shfl_xor_sync(0xffffffffu, fg_s263, 1, 32);
                const float fg_o269 = __shfl_xor_sync(0xffffffffu, fg_q266, 1, 32);
                const float fg_s270 = (fg_s263 + fg_o268);
                const float fg_n271 = (fg_n264 + fg_o267);
                const float fg_g272 = ((fg_o268 / fmaxf(fg_o267, 1.0f)) - (fg_s263 / fmaxf(fg_n264, 1.0f)));
                const float fg_q273 = ((fg_q266 + fg_o269) + (fg_g272 * fg_g272) * ((fg_n264 * fg_o267) / fmaxf(fg_n271, 1.0f)));
                const float fg_r274 = (((float)(fg_p.cols)) * fg_k189 + fg_s270);
                const float fg_t275 = (fg_r274 / fg_t1);  // (row_sum(x) / f32(cols))
                const float fg_g276 = ((fg_k189 - fg_t275) + (fg_s270 / fmaxf(fg_n271, 1.0f)));
                const float fg_r277 = (fg_n271 > 0.0f ? (fg_q273 + (fg_n271 * fg_g276) * fg_g276) : 0.0f);
                const float fg_t278 = (fg_r277 / fg_t1);  // (row_sum(((x - (row_sum(x) / f32(cols))) * (x - (row_sum(x) / f32(col...
                const float fg_t279 = (fg_t278 + fg_p.eps);  // ((row_sum(((x - (row_sum(x) / f32(cols))) * (x - (row_sum(x) / f32(co...
                const float fg_t280 = rsqrtf(fg_t279);  // rsqrt(((row_sum(((x - (row_sum(x) / f32(cols))) * (x - (row_sum(x) / ...
                for (unsigned int fg_off = 0u; fg_off < fg_p.cols; fg_off += 4096u) {
                    float fg_v_x[16] = {};
                    #pragma unroll
                    for (unsigned int fg_k = 0u; fg_k < 4u; fg_k += 1u) {
                        const unsigned int fg_c281 = fg_off + (fg_k * 256u + fg_tx) * 4u;
                        if (fg_vec_ok2 && fg_c281 + 4u <= fg_p.cols) {
                            const float4 fg_q = *reinterpret_cast<const float4*>(&x[fg_base + fg_c281]);
                            fg_v_x[fg_k * 4u] = fg_q.x;
                            fg_v_x[fg_k * 4u + 1u] = fg_q.y;
                            fg_v_x[fg_k * 4u + 2u] = fg_q.z;
                            fg_v_x[fg_k * 4u + 3u] = fg_q.w;
                        } else {
                            if (fg_c281 < fg_p.cols) { fg_v_x[fg_k * 4u] = x[fg_base + fg_c281]; }
                            if (fg_c281 + 1u < fg_p.cols) { fg_v_x[fg_k * 4u + 1u] = x[fg_base + fg_c281 + 1u]; }
                            if (fg_c281 + 2u < fg_p.cols) { fg_v_x[fg_k * 4u + 2u] = x[fg_base + fg_c281 + 2u]; }
                            if (fg_c281 + 3u < fg_p.cols) { fg_v_x[fg_k * 4u + 3u] = x[fg_base + fg_c281 + 3u]; }
                        }
                    }
                    #pragma unroll
                    for (unsigned int fg_k = 0u; fg_k < 4u; fg_k += 1u) {
                        const unsigned int fg_c282 = fg_off + (fg_k * 256u + fg_tx) * 4u;
                        float fg_w_gamma[4] = {};
                        if (fg_vec_ok2 && fg_c282 + 4u <= fg_p.cols) {
                            const float4 fg_q = *reinterpret_cast<const float4*>(&gamma[fg_c282]);
                            fg_w_gamma[0u] = fg_q.x;
                            fg_w_gamma[1u] = fg_q.y;
                            fg_w_gamma[2u] = fg_q.z;
                            fg_w_gamma[3u] = fg_q.w;
                        } else {
                            if (fg_c282 < fg_p.cols) { fg_w_gamma[0u] = gamma[fg_c282]; }
                            if (fg_c282 + 1u < fg_p.cols) { fg_w_gamma[1u] = gamma[fg_c282 + 1u]; }
                            if (fg_c282 + 2u < fg_p.cols) { fg_w_gamma[2u] = gamma[fg_c282 + 2u]; }
                            if (fg_c282 + 3u < fg_p.cols) { fg_w_gamma[3u] = gamma[fg_c282 + 3u]; }
                        }
                        float fg_w_beta[4] = {};
                        if (fg_vec_ok2 && fg_c282 + 4u <= fg_p.cols) {
                            const float4 fg_q = *reinterpret_cast<const float4*>(&beta[fg_c282]);
                            fg_w_beta[0u] = fg_q.x;
                            fg_w_beta[1u] = fg_q.y;
                            fg_w_beta[2u] = fg_q.z;
                            fg_w_beta[3u] = fg_q.w;
                        } else {
                            if (fg_c282 < fg_p.cols) { fg_w_beta[0u] = beta[fg_c282]; }
                            if (fg_c282 + 1u < fg_p.cols) { fg_w_beta[1u] = beta[fg_c282 + 1u]; }
                            if (fg_c282 + 2u < fg_p.cols) { fg_w_beta[2u] = beta[fg_c282 + 2u]; }
                            if (fg_c282 + 3u < fg_p.cols) { fg_w_beta[3u] = beta[fg_c282 + 3u]; }
                        }
                        float fg_o_y[4] = {};
                        if (fg_c282 < fg_p.cols) {
                            const float fg_t283 = (fg_v_x[fg_k * 4u] - fg_t275);  // (x - (row_sum(x) / f32(cols)))
                            const float fg_t284 = (fg_t283 * fg_t280);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                            const float fg_t285 = (fg_t284 * fg_w_gamma[0u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                            const float fg_t286 = (fg_t285 + fg_w_beta[0u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                            fg_o_y[0u] = fg_t286;
                        }
                        if (fg_c282 + 1u < fg_p.cols) {
                            const float fg_t287 = (fg_v_x[fg_k * 4u + 1u] - fg_t275);  // (x - (row_sum(x) / f32(cols)))
                            const float fg_t288 = (fg_t287 * fg_t280);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                            const float fg_t289 = (fg_t288 * fg_w_gamma[1u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                            const float fg_t290 = (fg_t289 + fg_w_beta[1u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                            fg_o_y[1u] = fg_t290;
                        }
                        if (fg_c282 + 2u < fg_p.cols) {
                            const float fg_t291 = (fg_v_x[fg_k * 4u + 2u] - fg_t275);  // (x - (row_sum(x) / f32(cols)))
                            const float fg_t292 = (fg_t291 * fg_t280);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                            const float fg_t293 = (fg_t292 * fg_w_gamma[2u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                            const float fg_t294 = (fg_t293 + fg_w_beta[2u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                            fg_o_y[2u] = fg_t294;
                        }
                        if (fg_c282 + 3u < fg_p.cols) {
                            const float fg_t295 = (fg_v_x[fg_k * 4u + 3u] - fg_t275);  // (x - (row_sum(x) / f32(cols)))
                            const float fg_t296 = (fg_t295 * fg_t280);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                            const float fg_t297 = (fg_t296 * fg_w_gamma[3u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                            const float fg_t298 = (fg_t297 + fg_w_beta[3u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                            fg_o_y[3u] = fg_t298;
                        }
                        if (fg_active) {
                            if (fg_vec_ok2 && fg_c282 + 4u <= fg_p.cols) {
                                *reinterpret_cast<float4*>(&y[fg_base + fg_c282]) = make_float4(fg_o_y[0u], fg_o_y[1u], fg_o_y[2u], fg_o_y[3u]);
                            } else {
                                if (fg_c282 < fg_p.cols) { y[fg_base + fg_c282] = fg_o_y[0u]; }
                                if (fg_c282 + 1u < fg_p.cols) { y[fg_base + fg_c282 + 1u] = fg_o_y[1u]; }
                                if (fg_c282 + 2u < fg_p.cols) { y[fg_base + fg_c282 + 2u] = fg_o_y[2u]; }
                                if (fg_c282 + 3u < fg_p.cols) { y[fg_base + fg_c282 + 3u] = fg_o_y[3u]; }
                            }
                        }
                    }
                }
            }
        }
    }
}

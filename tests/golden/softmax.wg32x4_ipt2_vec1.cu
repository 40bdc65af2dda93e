// kernel-forge generated CUDA C source (forge.emit, emitter version 5); do not edit
// kernel: softmax v1, entry point softmax_kernel
// semantic hash: 3e1dcd70e2030aeb8f5eced6fb21aca9fe428f278594038936a0fcd8aa04476b
// schedule: wg=32x4,ipt=2,vec=1
// pattern: rows (rows=37, cols=size)
// IR:
//   y = (exp((x - row_max(x))) / row_sum(exp((x - row_max(x)))))

struct __align__(16) fg_Params {
    unsigned int rows;
    unsigned int cols;
};

extern "C" __global__ void __launch_bounds__(128) softmax_kernel(
        const float* __restrict__ x,
        float* __restrict__ y,
        const fg_Params fg_p) {
    const unsigned int fg_lidx = threadIdx.x + 32u * threadIdx.y;
    const unsigned int fg_tx = threadIdx.x;
    const unsigned int fg_ty = threadIdx.y;
    const unsigned int fg_blocks = (fg_p.rows / 4u + (fg_p.rows % 4u != 0u ? 1u : 0u));
    // 4 row(s) per workgroup, 32 invocations per row; rows of up to 64 columns stay in registers
    for (unsigned long long fg_blk = (unsigned long long)((blockIdx.y * gridDim.x + blockIdx.x)); fg_blk < fg_blocks; fg_blk += (unsigned long long)((gridDim.x * gridDim.y))) {
        const unsigned int fg_row = (unsigned int)(fg_blk) * 4u + fg_ty;
        const bool fg_active = fg_row < fg_p.rows;
        const unsigned int fg_rowc = min(fg_row, fg_p.rows - 1u);
        const unsigned long long fg_base = (unsigned long long)(fg_rowc) * fg_p.cols;
        if (fg_p.cols == 64u) {
            // one pass, the row exactly fills the registers: no bounds checks
            float fg_v_x[2] = {};
            #pragma unroll
            for (unsigned int fg_k = 0u; fg_k < 2u; fg_k += 1u) {
                const unsigned int fg_c1 = 0u + (fg_k * 32u + fg_tx) * 1u;
                fg_v_x[fg_k * 1u] = x[fg_base + fg_c1];
            }
            // row_max(x) and row_sum(exp((x - row_max(x)))) online: one sweep
            float fg_m2 = __int_as_float((int)0xff800000u);
            float fg_s3 = 0.0f;
            float fg_e4[2] = {};
            #pragma unroll
            for (unsigned int fg_k = 0u; fg_k < 2u; fg_k += 1u) {
                const unsigned int fg_c5 = 0u + (fg_k * 32u + fg_tx) * 1u;
                {
                    fg_m2 = fmaxf(fg_m2, fg_v_x[fg_k * 1u]);
                }
            }
            const float fg_shift6 = (fg_m2 == __int_as_float((int)0xff800000u) ? 0.0f : fg_m2);
            #pragma unroll
            for (unsigned int fg_k = 0u; fg_k < 2u; fg_k += 1u) {
                const unsigned int fg_c7 = 0u + (fg_k * 32u + fg_tx) * 1u;
                {
                    const float fg_t8 = expf((fg_v_x[fg_k * 1u] - fg_shift6));
                    fg_s3 = fg_s3 + fg_t8;
                    fg_e4[fg_k * 1u] = fg_t8;
                }
            }
            float fg_peak9 = fg_m2;
            fg_peak9 = fmaxf(fg_peak9, __shfl_xor_sync(0xffffffffu, fg_peak9, 16, 32));
            fg_peak9 = fmaxf(fg_peak9, __shfl_xor_sync(0xffffffffu, fg_peak9, 8, 32));
            fg_peak9 = fmaxf(fg_peak9, __shfl_xor_sync(0xffffffffu, fg_peak9, 4, 32));
            fg_peak9 = fmaxf(fg_peak9, __shfl_xor_sync(0xffffffffu, fg_peak9, 2, 32));
            fg_peak9 = fmaxf(fg_peak9, __shfl_xor_sync(0xffffffffu, fg_peak9, 1, 32));
            float fg_total10 = fg_s3 * (fg_m2 == fg_peak9 ? 1.0f : (fg_m2 == __int_as_float((int)0xff800000u) ? 0.0f : expf((fg_m2 - fg_peak9))));
            fg_total10 = (fg_total10 + __shfl_xor_sync(0xffffffffu, fg_total10, 16, 32));
            fg_total10 = (fg_total10 + __shfl_xor_sync(0xffffffffu, fg_total10, 8, 32));
            fg_total10 = (fg_total10 + __shfl_xor_sync(0xffffffffu, fg_total10, 4, 32));
            fg_total10 = (fg_total10 + __shfl_xor_sync(0xffffffffu, fg_total10, 2, 32));
            fg_total10 = (fg_total10 + __shfl_xor_sync(0xffffffffu, fg_total10, 1, 32));
            const float fg_f11 = (fg_m2 == fg_peak9 ? 1.0f : (fg_m2 == __int_as_float((int)0xff800000u) ? 0.0f : expf((fg_m2 - fg_peak9))));
            const float fg_g12 = (fg_f11 / fg_total10);
            #pragma unroll
            for (unsigned int fg_k = 0u; fg_k < 2u; fg_k += 1u) {
                const unsigned int fg_c13 = 0u + (fg_k * 32u + fg_tx) * 1u;
                float fg_o_y[1] = {};
                {
                    fg_o_y[0u] = (fg_e4[fg_k * 1u] * fg_g12);
                }
                if (fg_active) {
                    y[fg_base + fg_c13] = fg_o_y[0u];
                }
            }
        } else {
            if (fg_p.cols < 64u) {
                // one pass: the row lives in registers
                float fg_v_x[2] = {};
                #pragma unroll
                for (unsigned int fg_k = 0u; fg_k < 2u; fg_k += 1u) {
                    const unsigned int fg_c14 = 0u + (fg_k * 32u + fg_tx) * 1u;
                    if (fg_c14 < fg_p.cols) {
                        fg_v_x[fg_k * 1u] = x[fg_base + fg_c14];
                    }
                }
                // row_max(x) and row_sum(exp((x - row_max(x)))) online: one sweep
                float fg_m15 = __int_as_float((int)0xff800000u);
                float fg_s16 = 0.0f;
                float fg_e17[2] = {};
                #pragma unroll
                for (unsigned int fg_k = 0u; fg_k < 2u; fg_k += 1u) {
                    const unsigned int fg_c18 = 0u + (fg_k * 32u + fg_tx) * 1u;
                    if (fg_c18 < fg_p.cols) {
                        fg_m15 = fmaxf(fg_m15, fg_v_x[fg_k * 1u]);
                    }
                }
                const float fg_shift19 = (fg_m15 == __int_as_float((int)0xff800000u) ? 0.0f : fg_m15);
                #pragma unroll
                for (unsigned int fg_k = 0u; fg_k < 2u; fg_k += 1u) {
                    const unsigned int fg_c20 = 0u + (fg_k * 32u + fg_tx) * 1u;
                    if (fg_c20 < fg_p.cols) {
                        const float fg_t21 = expf((fg_v_x[fg_k * 1u] - fg_shift19));
                        fg_s16 = fg_s16 + fg_t21;
                        fg_e17[fg_k * 1u] = fg_t21;
                    }
                }
                float fg_peak22 = fg_m15;
                fg_peak22 = fmaxf(fg_peak22, __shfl_xor_sync(0xffffffffu, fg_peak22, 16, 32));
                fg_peak22 = fmaxf(fg_peak22, __shfl_xor_sync(0xffffffffu, fg_peak22, 8, 32));
                fg_peak22 = fmaxf(fg_peak22, __shfl_xor_sync(0xffffffffu, fg_peak22, 4, 32));
                fg_peak22 = fmaxf(fg_peak22, __shfl_xor_sync(0xffffffffu, fg_peak22, 2, 32));
                fg_peak22 = fmaxf(fg_peak22, __shfl_xor_sync(0xffffffffu, fg_peak22, 1, 32));
                float fg_total23 = fg_s16 * (fg_m15 == fg_peak22 ? 1.0f : (fg_m15 == __int_as_float((int)0xff800000u) ? 0.0f : expf((fg_m15 - fg_peak22))));
                fg_total23 = (fg_total23 + __shfl_xor_sync(0xffffffffu, fg_total23, 16, 32));
                fg_total23 = (fg_total23 + __shfl_xor_sync(0xffffffffu, fg_total23, 8, 32));
                fg_total23 = (fg_total23 + __shfl_xor_sync(0xffffffffu, fg_total23, 4, 32));
                fg_total23 = (fg_total23 + __shfl_xor_sync(0xffffffffu, fg_total23, 2, 32));
                fg_total23 = (fg_total23 + __shfl_xor_sync(0xffffffffu, fg_total23, 1, 32));
                const float fg_f24 = (fg_m15 == fg_peak22 ? 1.0f : (fg_m15 == __int_as_float((int)0xff800000u) ? 0.0f : expf((fg_m15 - fg_peak22))));
                const float fg_g25 = (fg_f24 / fg_total23);
                #pragma unroll
                for (unsigned int fg_k = 0u; fg_k < 2u; fg_k += 1u) {
                    const unsigned int fg_c26 = 0u + (fg_k * 32u + fg_tx) * 1u;
                    float fg_o_y[1] = {};
                    if (fg_c26 < fg_p.cols) {
                        fg_o_y[0u] = (fg_e17[fg_k * 1u] * fg_g25);
                    }
                    if (fg_active) {
                        if (fg_c26 < fg_p.cols) {
                            y[fg_base + fg_c26] = fg_o_y[0u];
                        }
                    }
                }
            } else {
                // looped: each level sweeps the row again
                // row_max(x) and row_sum(exp((x - row_max(x)))) online: one sweep
                float fg_m27 = __int_as_float((int)0xff800000u);
                float fg_s28 = 0.0f;
                for (unsigned int fg_off = 0u; fg_off < fg_p.cols; fg_off += 64u) {
                    float fg_v_x[2] = {};
                    #pragma unroll
                    for (unsigned int fg_k = 0u; fg_k < 2u; fg_k += 1u) {
                        const unsigned int fg_c30 = fg_off + (fg_k * 32u + fg_tx) * 1u;
                        if (fg_c30 < fg_p.cols) {
                            fg_v_x[fg_k * 1u] = x[fg_base + fg_c30];
                        }
                    }
                    float fg_top31 = __int_as_float((int)0xff800000u);
                    #pragma unroll
                    for (unsigned int fg_k = 0u; fg_k < 2u; fg_k += 1u) {
                        const unsigned int fg_c32 = fg_off + (fg_k * 32u + fg_tx) * 1u;
                        if (fg_c32 < fg_p.cols) {
                            fg_top31 = fmaxf(fg_top31, fg_v_x[fg_k * 1u]);
                        }
                    }
                    const float fg_top33 = fmaxf(fg_m27, fg_top31);
                    fg_s28 = fg_s28 * (fg_m27 == fg_top33 ? 1.0f : (fg_m27 == __int_as_float((int)0xff800000u) ? 0.0f : expf((fg_m27 - fg_top33))));
                    fg_m27 = fg_top33;
                    const float fg_shift34 = (fg_m27 == __int_as_float((int)0xff800000u) ? 0.0f : fg_m27);
                    #pragma unroll
                    for (unsigned int fg_k = 0u; fg_k < 2u; fg_k += 1u) {
                        const unsigned int fg_c35 = fg_off + (fg_k * 32u + fg_tx) * 1u;
                        if (fg_c35 < fg_p.cols) {
                            const float fg_t36 = expf((fg_v_x[fg_k * 1u] - fg_shift34));
                            fg_s28 = fg_s28 + fg_t36;
                        }
                    }
                }
                float fg_peak37 = fg_m27;
                fg_peak37 = fmaxf(fg_peak37, __shfl_xor_sync(0xffffffffu, fg_peak37, 16, 32));
                fg_peak37 = fmaxf(fg_peak37, __shfl_xor_sync(0xffffffffu, fg_peak37, 8, 32));
                fg_peak37 = fmaxf(fg_peak37, __shfl_xor_sync(0xffffffffu, fg_peak37, 4, 32));
                fg_peak37 = fmaxf(fg_peak37, __shfl_xor_sync(0xffffffffu, fg_peak37, 2, 32));
                fg_peak37 = fmaxf(fg_peak37, __shfl_xor_sync(0xffffffffu, fg_peak37, 1, 32));
                float fg_total38 = fg_s28 * (fg_m27 == fg_peak37 ? 1.0f : (fg_m27 == __int_as_float((int)0xff800000u) ? 0.0f : expf((fg_m27 - fg_peak37))));
                fg_total38 = (fg_total38 + __shfl_xor_sync(0xffffffffu, fg_total38, 16, 32));
                fg_total38 = (fg_total38 + __shfl_xor_sync(0xffffffffu, fg_total38, 8, 32));
                fg_total38 = (fg_total38 + __shfl_xor_sync(0xffffffffu, fg_total38, 4, 32));
                fg_total38 = (fg_total38 + __shfl_xor_sync(0xffffffffu, fg_total38, 2, 32));
                fg_total38 = (fg_total38 + __shfl_xor_sync(0xffffffffu, fg_total38, 1, 32));
                for (unsigned int fg_off = 0u; fg_off < fg_p.cols; fg_off += 64u) {
                    float fg_v_x[2] = {};
                    #pragma unroll
                    for (unsigned int fg_k = 0u; fg_k < 2u; fg_k += 1u) {
                        const unsigned int fg_c39 = fg_off + (fg_k * 32u + fg_tx) * 1u;
                        if (fg_c39 < fg_p.cols) {
                            fg_v_x[fg_k * 1u] = x[fg_base + fg_c39];
                        }
                    }
                    #pragma unroll
                    for (unsigned int fg_k = 0u; fg_k < 2u; fg_k += 1u) {
                        const unsigned int fg_c40 = fg_off + (fg_k * 32u + fg_tx) * 1u;
                        float fg_o_y[1] = {};
                        if (fg_c40 < fg_p.cols) {
                            const float fg_t41 = (fg_v_x[fg_k * 1u] - fg_peak37);  // (x - row_max(x))
                            const float fg_t42 = expf(fg_t41);  // exp((x - row_max(x)))
                            const float fg_t43 = (fg_t42 / fg_total38);  // (exp((x - row_max(x))) / row_sum(exp((x - row_max(x)))))
                            fg_o_y[0u] = fg_t43;
                        }
                        if (fg_active) {
                            if (fg_c40 < fg_p.cols) {
                                y[fg_base + fg_c40] = fg_o_y[0u];
                            }
                        }
                    }
                }
            }
        }
    }
}

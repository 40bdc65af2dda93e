// kernel-forge generated CUDA C source (forge.emit, emitter version 2); do not edit
// kernel: softmax v1, entry point softmax_kernel
// semantic hash: 47f18ea1aa095da7080c10f11f5f5a91c7f3861c0984dae386f21822a58345c9
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
        if (fg_p.cols <= 64u) {
            // one pass: the row lives in registers
            float fg_v_x[2] = {};
            #pragma unroll
            for (unsigned int fg_k = 0u; fg_k < 2u; fg_k += 1u) {
                const unsigned int fg_c1 = 0u + (fg_k * 32u + fg_tx) * 1u;
                if (fg_c1 < fg_p.cols) {
                    fg_v_x[fg_k * 1u] = x[fg_base + fg_c1];
                }
            }
            float fg_acc2 = __int_as_float((int)0xff800000u);
            #pragma unroll
            for (unsigned int fg_k = 0u; fg_k < 2u; fg_k += 1u) {
                const unsigned int fg_c3 = 0u + (fg_k * 32u + fg_tx) * 1u;
                if (fg_c3 < fg_p.cols) {
                    fg_acc2 = fmaxf(fg_acc2, fg_v_x[fg_k * 1u]);
                }
            }
            fg_acc2 = fmaxf(fg_acc2, __shfl_xor_sync(0xffffffffu, fg_acc2, 16, 32));
            fg_acc2 = fmaxf(fg_acc2, __shfl_xor_sync(0xffffffffu, fg_acc2, 8, 32));
            fg_acc2 = fmaxf(fg_acc2, __shfl_xor_sync(0xffffffffu, fg_acc2, 4, 32));
            fg_acc2 = fmaxf(fg_acc2, __shfl_xor_sync(0xffffffffu, fg_acc2, 2, 32));
            fg_acc2 = fmaxf(fg_acc2, __shfl_xor_sync(0xffffffffu, fg_acc2, 1, 32));
            float fg_acc4 = 0.0f;
            #pragma unroll
            for (unsigned int fg_k = 0u; fg_k < 2u; fg_k += 1u) {
                const unsigned int fg_c5 = 0u + (fg_k * 32u + fg_tx) * 1u;
                if (fg_c5 < fg_p.cols) {
                    const float fg_t6 = (fg_v_x[fg_k * 1u] - fg_acc2);  // (x - row_max(x))
                    const float fg_t7 = expf(fg_t6);  // exp((x - row_max(x)))
                    fg_acc4 = (fg_acc4 + fg_t7);
                }
            }
            fg_acc4 = (fg_acc4 + __shfl_xor_sync(0xffffffffu, fg_acc4, 16, 32));
            fg_acc4 = (fg_acc4 + __shfl_xor_sync(0xffffffffu, fg_acc4, 8, 32));
            fg_acc4 = (fg_acc4 + __shfl_xor_sync(0xffffffffu, fg_acc4, 4, 32));
            fg_acc4 = (fg_acc4 + __shfl_xor_sync(0xffffffffu, fg_acc4, 2, 32));
            fg_acc4 = (fg_acc4 + __shfl_xor_sync(0xffffffffu, fg_acc4, 1, 32));
            #pragma unroll
            for (unsigned int fg_k = 0u; fg_k < 2u; fg_k += 1u) {
                const unsigned int fg_c8 = 0u + (fg_k * 32u + fg_tx) * 1u;
                float fg_o_y[1] = {};
                if (fg_c8 < fg_p.cols) {
                    const float fg_t9 = (fg_v_x[fg_k * 1u] - fg_acc2);  // (x - row_max(x))
                    const float fg_t10 = expf(fg_t9);  // exp((x - row_max(x)))
                    const float fg_t11 = (fg_t10 / fg_acc4);  // (exp((x - row_max(x))) / row_sum(exp((x - row_max(x)))))
                    fg_o_y[0u] = fg_t11;
                }
                if (fg_active) {
                    if (fg_c8 < fg_p.cols) {
                        y[fg_base + fg_c8] = fg_o_y[0u];
                    }
                }
            }
        } else {
            // looped: each level sweeps the row again
            float fg_acc12 = __int_as_float((int)0xff800000u);
            for (unsigned int fg_off = 0u; fg_off < fg_p.cols; fg_off += 64u) {
                float fg_v_x[2] = {};
                #pragma unroll
                for (unsigned int fg_k = 0u; fg_k < 2u; fg_k += 1u) {
                    const unsigned int fg_c13 = fg_off + (fg_k * 32u + fg_tx) * 1u;
                    if (fg_c13 < fg_p.cols) {
                        fg_v_x[fg_k * 1u] = x[fg_base + fg_c13];
                    }
                }
                #pragma unroll
                for (unsigned int fg_k = 0u; fg_k < 2u; fg_k += 1u) {
                    const unsigned int fg_c14 = fg_off + (fg_k * 32u + fg_tx) * 1u;
                    if (fg_c14 < fg_p.cols) {
                        fg_acc12 = fmaxf(fg_acc12, fg_v_x[fg_k * 1u]);
                    }
                }
            }
            fg_acc12 = fmaxf(fg_acc12, __shfl_xor_sync(0xffffffffu, fg_acc12, 16, 32));
            fg_acc12 = fmaxf(fg_acc12, __shfl_xor_sync(0xffffffffu, fg_acc12, 8, 32));
            fg_acc12 = fmaxf(fg_acc12, __shfl_xor_sync(0xffffffffu, fg_acc12, 4, 32));
            fg_acc12 = fmaxf(fg_acc12, __shfl_xor_sync(0xffffffffu, fg_acc12, 2, 32));
            fg_acc12 = fmaxf(fg_acc12, __shfl_xor_sync(0xffffffffu, fg_acc12, 1, 32));
            float fg_acc15 = 0.0f;
            for (unsigned int fg_off = 0u; fg_off < fg_p.cols; fg_off += 64u) {
                float fg_v_x[2] = {};
                #pragma unroll
                for (unsigned int fg_k = 0u; fg_k < 2u; fg_k += 1u) {
                    const unsigned int fg_c16 = fg_off + (fg_k * 32u + fg_tx) * 1u;
                    if (fg_c16 < fg_p.cols) {
                        fg_v_x[fg_k * 1u] = x[fg_base + fg_c16];
                    }
                }
                #pragma unroll
                for (unsigned int fg_k = 0u; fg_k < 2u; fg_k += 1u) {
                    const unsigned int fg_c17 = fg_off + (fg_k * 32u + fg_tx) * 1u;
                    if (fg_c17 < fg_p.cols) {
                        const float fg_t18 = (fg_v_x[fg_k * 1u] - fg_acc12);  // (x - row_max(x))
                        const float fg_t19 = expf(fg_t18);  // exp((x - row_max(x)))
                        fg_acc15 = (fg_acc15 + fg_t19);
                    }
                }
            }
            fg_acc15 = (fg_acc15 + __shfl_xor_sync(0xffffffffu, fg_acc15, 16, 32));
            fg_acc15 = (fg_acc15 + __shfl_xor_sync(0xffffffffu, fg_acc15, 8, 32));
            fg_acc15 = (fg_acc15 + __shfl_xor_sync(0xffffffffu, fg_acc15, 4, 32));
            fg_acc15 = (fg_acc15 + __shfl_xor_sync(0xffffffffu, fg_acc15, 2, 32));
            fg_acc15 = (fg_acc15 + __shfl_xor_sync(0xffffffffu, fg_acc15, 1, 32));
            for (unsigned int fg_off = 0u; fg_off < fg_p.cols; fg_off += 64u) {
                float fg_v_x[2] = {};
                #pragma unroll
                for (unsigned int fg_k = 0u; fg_k < 2u; fg_k += 1u) {
                    const unsigned int fg_c20 = fg_off + (fg_k * 32u + fg_tx) * 1u;
                    if (fg_c20 < fg_p.cols) {
                        fg_v_x[fg_k * 1u] = x[fg_base + fg_c20];
                    }
                }
                #pragma unroll
                for (unsigned int fg_k = 0u; fg_k < 2u; fg_k += 1u) {
                    const unsigned int fg_c21 = fg_off + (fg_k * 32u + fg_tx) * 1u;
                    float fg_o_y[1] = {};
                    if (fg_c21 < fg_p.cols) {
                        const float fg_t22 = (fg_v_x[fg_k * 1u] - fg_acc12);  // (x - row_max(x))
                        const float fg_t23 = expf(fg_t22);  // exp((x - row_max(x)))
                        const float fg_t24 = (fg_t23 / fg_acc15);  // (exp((x - row_max(x))) / row_sum(exp((x - row_max(x)))))
                        fg_o_y[0u] = fg_t24;
                    }
                    if (fg_active) {
                        if (fg_c21 < fg_p.cols) {
                            y[fg_base + fg_c21] = fg_o_y[0u];
                        }
                    }
                }
            }
        }
    }
}

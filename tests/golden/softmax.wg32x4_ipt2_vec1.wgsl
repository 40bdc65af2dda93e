// kernel-forge generated WGSL source (forge.emit, emitter version 2); do not edit
// kernel: softmax v1, entry point softmax_kernel
// semantic hash: 47f18ea1aa095da7080c10f11f5f5a91c7f3861c0984dae386f21822a58345c9
// schedule: wg=32x4,ipt=2,vec=1
// pattern: rows (rows=37, cols=size)
// IR:
//   y = (exp((x - row_max(x))) / row_sum(exp((x - row_max(x)))))

struct fg_Params {
    rows: u32,
    cols: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> fg_p: fg_Params;
var<workgroup> fg_red_f32: array<f32, 128>;

@compute @workgroup_size(32, 4, 1)
fn softmax_kernel(@builtin(workgroup_id) fg_wid: vec3<u32>,
        @builtin(num_workgroups) fg_nwg: vec3<u32>,
        @builtin(local_invocation_id) fg_lid3: vec3<u32>,
        @builtin(local_invocation_index) fg_lidx: u32) {
    let fg_tx: u32 = fg_lid3.x;
    let fg_ty: u32 = fg_lid3.y;
    let fg_blocks: u32 = (fg_p.rows / 4u + select(0u, 1u, fg_p.rows % 4u != 0u));
    // 4 row(s) per workgroup, 32 invocations per row; rows of up to 64 columns stay in registers
    for (var fg_blk: u32 = (fg_wid.y * fg_nwg.x + fg_wid.x); fg_blk < fg_blocks; fg_blk += (fg_nwg.x * fg_nwg.y)) {
        let fg_row: u32 = fg_blk * 4u + fg_ty;
        let fg_active: bool = fg_row < fg_p.rows;
        let fg_rowc: u32 = min(fg_row, fg_p.rows - 1u);
        let fg_base: u32 = fg_rowc * fg_p.cols;
        if (fg_p.cols <= 64u) {
            // one pass: the row lives in registers
            var fg_v_x: array<f32, 2> = array<f32, 2>();
            for (var fg_k: u32 = 0u; fg_k < 2u; fg_k += 1u) {
                let fg_c1: u32 = 0u + (fg_k * 32u + fg_tx) * 1u;
                if (fg_c1 < fg_p.cols) {
                    fg_v_x[fg_k * 1u] = x[fg_base + fg_c1];
                }
            }
            var fg_acc2: f32 = bitcast<f32>(0xff800000u);
            for (var fg_k: u32 = 0u; fg_k < 2u; fg_k += 1u) {
                let fg_c3: u32 = 0u + (fg_k * 32u + fg_tx) * 1u;
                if (fg_c3 < fg_p.cols) {
                    fg_acc2 = max(fg_acc2, fg_v_x[fg_k * 1u]);
                }
            }
            fg_red_f32[0u + fg_ty * 32u + fg_tx] = fg_acc2;
            workgroupBarrier();
            if (fg_tx < 16u) {
                fg_red_f32[0u + fg_ty * 32u + fg_tx] = max(fg_red_f32[0u + fg_ty * 32u + fg_tx], fg_red_f32[0u + fg_ty * 32u + fg_tx + 16u]);
            }
            workgroupBarrier();
            if (fg_tx < 8u) {
                fg_red_f32[0u + fg_ty * 32u + fg_tx] = max(fg_red_f32[0u + fg_ty * 32u + fg_tx], fg_red_f32[0u + fg_ty * 32u + fg_tx + 8u]);
            }
            workgroupBarrier();
            if (fg_tx < 4u) {
                fg_red_f32[0u + fg_ty * 32u + fg_tx] = max(fg_red_f32[0u + fg_ty * 32u + fg_tx], fg_red_f32[0u + fg_ty * 32u + fg_tx + 4u]);
            }
            workgroupBarrier();
            if (fg_tx < 2u) {
                fg_red_f32[0u + fg_ty * 32u + fg_tx] = max(fg_red_f32[0u + fg_ty * 32u + fg_tx], fg_red_f32[0u + fg_ty * 32u + fg_tx + 2u]);
            }
            workgroupBarrier();
            if (fg_tx < 1u) {
                fg_red_f32[0u + fg_ty * 32u + fg_tx] = max(fg_red_f32[0u + fg_ty * 32u + fg_tx], fg_red_f32[0u + fg_ty * 32u + fg_tx + 1u]);
            }
            workgroupBarrier();
            let fg_r4: f32 = fg_red_f32[0u + fg_ty * 32u];
            workgroupBarrier();
            var fg_acc5: f32 = 0.0f;
            for (var fg_k: u32 = 0u; fg_k < 2u; fg_k += 1u) {
                let fg_c6: u32 = 0u + (fg_k * 32u + fg_tx) * 1u;
                if (fg_c6 < fg_p.cols) {
                    let fg_t7: f32 = (fg_v_x[fg_k * 1u] - fg_r4);  // (x - row_max(x))
                    let fg_t8: f32 = exp(fg_t7);  // exp((x - row_max(x)))
                    fg_acc5 = (fg_acc5 + fg_t8);
                }
            }
            fg_red_f32[0u + fg_ty * 32u + fg_tx] = fg_acc5;
            workgroupBarrier();
            if (fg_tx < 16u) {
                fg_red_f32[0u + fg_ty * 32u + fg_tx] = (fg_red_f32[0u + fg_ty * 32u + fg_tx] + fg_red_f32[0u + fg_ty * 32u + fg_tx + 16u]);
            }
            workgroupBarrier();
            if (fg_tx < 8u) {
                fg_red_f32[0u + fg_ty * 32u + fg_tx] = (fg_red_f32[0u + fg_ty * 32u + fg_tx] + fg_red_f32[0u + fg_ty * 32u + fg_tx + 8u]);
            }
            workgroupBarrier();
            if (fg_tx < 4u) {
                fg_red_f32[0u + fg_ty * 32u + fg_tx] = (fg_red_f32[0u + fg_ty * 32u + fg_tx] + fg_red_f32[0u + fg_ty * 32u + fg_tx + 4u]);
            }
            workgroupBarrier();
            if (fg_tx < 2u) {
                fg_red_f32[0u + fg_ty * 32u + fg_tx] = (fg_red_f32[0u + fg_ty * 32u + fg_tx] + fg_red_f32[0u + fg_ty * 32u + fg_tx + 2u]);
            }
            workgroupBarrier();
            if (fg_tx < 1u) {
                fg_red_f32[0u + fg_ty * 32u + fg_tx] = (fg_red_f32[0u + fg_ty * 32u + fg_tx] + fg_red_f32[0u + fg_ty * 32u + fg_tx + 1u]);
            }
            workgroupBarrier();
            let fg_r9: f32 = fg_red_f32[0u + fg_ty * 32u];
            workgroupBarrier();
            for (var fg_k: u32 = 0u; fg_k < 2u; fg_k += 1u) {
                let fg_c10: u32 = 0u + (fg_k * 32u + fg_tx) * 1u;
                var fg_o_y: array<f32, 1> = array<f32, 1>();
                if (fg_c10 < fg_p.cols) {
                    let fg_t11: f32 = (fg_v_x[fg_k * 1u] - fg_r4);  // (x - row_max(x))
                    let fg_t12: f32 = exp(fg_t11);  // exp((x - row_max(x)))
                    let fg_t13: f32 = (fg_t12 / fg_r9);  // (exp((x - row_max(x))) / row_sum(exp((x - row_max(x)))))
                    fg_o_y[0u] = fg_t13;
                }
                if (fg_active) {
                    if (fg_c10 < fg_p.cols) {
                        y[fg_base + fg_c10] = fg_o_y[0u];
                    }
                }
            }
        } else {
            // looped: each level sweeps the row again
            var fg_acc14: f32 = bitcast<f32>(0xff800000u);
            for (var fg_off: u32 = 0u; fg_off < fg_p.cols; fg_off += 64u) {
                var fg_v_x: array<f32, 2> = array<f32, 2>();
                for (var fg_k: u32 = 0u; fg_k < 2u; fg_k += 1u) {
                    let fg_c15: u32 = fg_off + (fg_k * 32u + fg_tx) * 1u;
                    if (fg_c15 < fg_p.cols) {
                        fg_v_x[fg_k * 1u] = x[fg_base + fg_c15];
                    }
                }
                for (var fg_k: u32 = 0u; fg_k < 2u; fg_k += 1u) {
                    let fg_c16: u32 = fg_off + (fg_k * 32u + fg_tx) * 1u;
                    if (fg_c16 < fg_p.cols) {
                        fg_acc14 = max(fg_acc14, fg_v_x[fg_k * 1u]);
                    }
                }
            }
            fg_red_f32[0u + fg_ty * 32u + fg_tx] = fg_acc14;
            workgroupBarrier();
            if (fg_tx < 16u) {
                fg_red_f32[0u + fg_ty * 32u + fg_tx] = max(fg_red_f32[0u + fg_ty * 32u + fg_tx], fg_red_f32[0u + fg_ty * 32u + fg_tx + 16u]);
            }
            workgroupBarrier();
            if (fg_tx < 8u) {
                fg_red_f32[0u + fg_ty * 32u + fg_tx] = max(fg_red_f32[0u + fg_ty * 32u + fg_tx], fg_red_f32[0u + fg_ty * 32u + fg_tx + 8u]);
            }
            workgroupBarrier();
            if (fg_tx < 4u) {
                fg_red_f32[0u + fg_ty * 32u + fg_tx] = max(fg_red_f32[0u + fg_ty * 32u + fg_tx], fg_red_f32[0u + fg_ty * 32u + fg_tx + 4u]);
            }
            workgroupBarrier();
            if (fg_tx < 2u) {
                fg_red_f32[0u + fg_ty * 32u + fg_tx] = max(fg_red_f32[0u + fg_ty * 32u + fg_tx], fg_red_f32[0u + fg_ty * 32u + fg_tx + 2u]);
            }
            workgroupBarrier();
            if (fg_tx < 1u) {
                fg_red_f32[0u + fg_ty * 32u + fg_tx] = max(fg_red_f32[0u + fg_ty * 32u + fg_tx], fg_red_f32[0u + fg_ty * 32u + fg_tx + 1u]);
            }
            workgroupBarrier();
            let fg_r17: f32 = fg_red_f32[0u + fg_ty * 32u];
            workgroupBarrier();
            var fg_acc18: f32 = 0.0f;
            for (var fg_off: u32 = 0u; fg_off < fg_p.cols; fg_off += 64u) {
                var fg_v_x: array<f32, 2> = array<f32, 2>();
                for (var fg_k: u32 = 0u; fg_k < 2u; fg_k += 1u) {
                    let fg_c19: u32 = fg_off + (fg_k * 32u + fg_tx) * 1u;
                    if (fg_c19 < fg_p.cols) {
                        fg_v_x[fg_k * 1u] = x[fg_base + fg_c19];
                    }
                }
                for (var fg_k: u32 = 0u; fg_k < 2u; fg_k += 1u) {
                    let fg_c20: u32 = fg_off + (fg_k * 32u + fg_tx) * 1u;
                    if (fg_c20 < fg_p.cols) {
                        let fg_t21: f32 = (fg_v_x[fg_k * 1u] - fg_r17);  // (x - row_max(x))
                        let fg_t22: f32 = exp(fg_t21);  // exp((x - row_max(x)))
                        fg_acc18 = (fg_acc18 + fg_t22);
                    }
                }
            }
            fg_red_f32[0u + fg_ty * 32u + fg_tx] = fg_acc18;
            workgroupBarrier();
            if (fg_tx < 16u) {
                fg_red_f32[0u + fg_ty * 32u + fg_tx] = (fg_red_f32[0u + fg_ty * 32u + fg_tx] + fg_red_f32[0u + fg_ty * 32u + fg_tx + 16u]);
            }
            workgroupBarrier();
            if (fg_tx < 8u) {
                fg_red_f32[0u + fg_ty * 32u + fg_tx] = (fg_red_f32[0u + fg_ty * 32u + fg_tx] + fg_red_f32[0u + fg_ty * 32u + fg_tx + 8u]);
            }
            workgroupBarrier();
            if (fg_tx < 4u) {
                fg_red_f32[0u + fg_ty * 32u + fg_tx] = (fg_red_f32[0u + fg_ty * 32u + fg_tx] + fg_red_f32[0u + fg_ty * 32u + fg_tx + 4u]);
            }
            workgroupBarrier();
            if (fg_tx < 2u) {
                fg_red_f32[0u + fg_ty * 32u + fg_tx] = (fg_red_f32[0u + fg_ty * 32u + fg_tx] + fg_red_f32[0u + fg_ty * 32u + fg_tx + 2u]);
            }
            workgroupBarrier();
            if (fg_tx < 1u) {
                fg_red_f32[0u + fg_ty * 32u + fg_tx] = (fg_red_f32[0u + fg_ty * 32u + fg_tx] + fg_red_f32[0u + fg_ty * 32u + fg_tx + 1u]);
            }
            workgroupBarrier();
            let fg_r23: f32 = fg_red_f32[0u + fg_ty * 32u];
            workgroupBarrier();
            for (var fg_off: u32 = 0u; fg_off < fg_p.cols; fg_off += 64u) {
                var fg_v_x: array<f32, 2> = array<f32, 2>();
                for (var fg_k: u32 = 0u; fg_k < 2u; fg_k += 1u) {
                    let fg_c24: u32 = fg_off + (fg_k * 32u + fg_tx) * 1u;
                    if (fg_c24 < fg_p.cols) {
                        fg_v_x[fg_k * 1u] = x[fg_base + fg_c24];
                    }
                }
                for (var fg_k: u32 = 0u; fg_k < 2u; fg_k += 1u) {
                    let fg_c25: u32 = fg_off + (fg_k * 32u + fg_tx) * 1u;
                    var fg_o_y: array<f32, 1> = array<f32, 1>();
                    if (fg_c25 < fg_p.cols) {
                        let fg_t26: f32 = (fg_v_x[fg_k * 1u] - fg_r17);  // (x - row_max(x))
                        let fg_t27: f32 = exp(fg_t26);  // exp((x - row_max(x)))
                        let fg_t28: f32 = (fg_t27 / fg_r23);  // (exp((x - row_max(x))) / row_sum(exp((x - row_max(x)))))
                        fg_o_y[0u] = fg_t28;
                    }
                    if (fg_active) {
                        if (fg_c25 < fg_p.cols) {
                            y[fg_base + fg_c25] = fg_o_y[0u];
                        }
                    }
                }
            }
        }
    }
}

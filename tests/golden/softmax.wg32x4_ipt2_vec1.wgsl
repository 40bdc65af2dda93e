// kernel-forge generated WGSL source (forge.emit, emitter version 5); do not edit
// kernel: softmax v1, entry point softmax_kernel
// semantic hash: 3e1dcd70e2030aeb8f5eced6fb21aca9fe428f278594038936a0fcd8aa04476b
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

fn fg_f32_from_bits(bits: u32) -> f32 { return bitcast<f32>(bits); }

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
        if (fg_p.cols == 64u) {
            // one pass, the row exactly fills the registers: no bounds checks
            var fg_v_x: array<f32, 2> = array<f32, 2>();
            {
                const fg_k: u32 = 0u;
                let fg_c1: u32 = 0u + (fg_k * 32u + fg_tx) * 1u;
                fg_v_x[fg_k * 1u] = x[fg_base + fg_c1];
            }
            {
                const fg_k: u32 = 1u;
                let fg_c2: u32 = 0u + (fg_k * 32u + fg_tx) * 1u;
                fg_v_x[fg_k * 1u] = x[fg_base + fg_c2];
            }
            // row_max(x) and row_sum(exp((x - row_max(x)))) online: one sweep
            var fg_m3: f32 = fg_f32_from_bits(0xff800000u);
            var fg_s4: f32 = 0.0f;
            var fg_e5: array<f32, 2> = array<f32, 2>();
            {
                const fg_k: u32 = 0u;
                let fg_c6: u32 = 0u + (fg_k * 32u + fg_tx) * 1u;
                {
                    fg_m3 = max(fg_m3, fg_v_x[fg_k * 1u]);
                }
            }
            {
                const fg_k: u32 = 1u;
                let fg_c7: u32 = 0u + (fg_k * 32u + fg_tx) * 1u;
                {
                    fg_m3 = max(fg_m3, fg_v_x[fg_k * 1u]);
                }
            }
            let fg_shift8: f32 = select(fg_m3, 0.0f, fg_m3 == fg_f32_from_bits(0xff800000u));
            {
                const fg_k: u32 = 0u;
                let fg_c9: u32 = 0u + (fg_k * 32u + fg_tx) * 1u;
                {
                    let fg_t10: f32 = exp((fg_v_x[fg_k * 1u] - fg_shift8));
                    fg_s4 = fg_s4 + fg_t10;
                    fg_e5[fg_k * 1u] = fg_t10;
                }
            }
            {
                const fg_k: u32 = 1u;
                let fg_c11: u32 = 0u + (fg_k * 32u + fg_tx) * 1u;
                {
                    let fg_t12: f32 = exp((fg_v_x[fg_k * 1u] - fg_shift8));
                    fg_s4 = fg_s4 + fg_t12;
                    fg_e5[fg_k * 1u] = fg_t12;
                }
            }
            fg_red_f32[0u + fg_ty * 32u + fg_tx] = fg_m3;
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
            let fg_r13: f32 = fg_red_f32[0u + fg_ty * 32u];
            workgroupBarrier();
            let fg_s14: f32 = fg_s4 * select(select(exp((fg_m3 - fg_r13)), 0.0f, fg_m3 == fg_f32_from_bits(0xff800000u)), 1.0f, fg_m3 == fg_r13);
            fg_red_f32[0u + fg_ty * 32u + fg_tx] = fg_s14;
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
            let fg_r15: f32 = fg_red_f32[0u + fg_ty * 32u];
            workgroupBarrier();
            let fg_f16: f32 = select(select(exp((fg_m3 - fg_r13)), 0.0f, fg_m3 == fg_f32_from_bits(0xff800000u)), 1.0f, fg_m3 == fg_r13);
            let fg_g17: f32 = (fg_f16 / fg_r15);
            {
                const fg_k: u32 = 0u;
                let fg_c18: u32 = 0u + (fg_k * 32u + fg_tx) * 1u;
                var fg_o_y: array<f32, 1> = array<f32, 1>();
                {
                    fg_o_y[0u] = (fg_e5[fg_k * 1u] * fg_g17);
                }
                if (fg_active) {
                    y[fg_base + fg_c18] = fg_o_y[0u];
                }
            }
            {
                const fg_k: u32 = 1u;
                let fg_c19: u32 = 0u + (fg_k * 32u + fg_tx) * 1u;
                var fg_o_y: array<f32, 1> = array<f32, 1>();
                {
                    fg_o_y[0u] = (fg_e5[fg_k * 1u] * fg_g17);
                }
                if (fg_active) {
                    y[fg_base + fg_c19] = fg_o_y[0u];
                }
            }
        } else {
            if (fg_p.cols < 64u) {
                // one pass: the row lives in registers
                var fg_v_x: array<f32, 2> = array<f32, 2>();
                {
                    const fg_k: u32 = 0u;
                    let fg_c20: u32 = 0u + (fg_k * 32u + fg_tx) * 1u;
                    if (fg_c20 < fg_p.cols) {
                        fg_v_x[fg_k * 1u] = x[fg_base + fg_c20];
                    }
                }
                {
                    const fg_k: u32 = 1u;
                    let fg_c21: u32 = 0u + (fg_k * 32u + fg_tx) * 1u;
                    if (fg_c21 < fg_p.cols) {
                        fg_v_x[fg_k * 1u] = x[fg_base + fg_c21];
                    }
                }
                // row_max(x) and row_sum(exp((x - row_max(x)))) online: one sweep
                var fg_m22: f32 = fg_f32_from_bits(0xff800000u);
                var fg_s23: f32 = 0.0f;
                var fg_e24: array<f32, 2> = array<f32, 2>();
                {
                    const fg_k: u32 = 0u;
                    let fg_c25: u32 = 0u + (fg_k * 32u + fg_tx) * 1u;
                    if (fg_c25 < fg_p.cols) {
                        fg_m22 = max(fg_m22, fg_v_x[fg_k * 1u]);
                    }
                }
                {
                    const fg_k: u32 = 1u;
                    let fg_c26: u32 = 0u + (fg_k * 32u + fg_tx) * 1u;
                    if (fg_c26 < fg_p.cols) {
                        fg_m22 = max(fg_m22, fg_v_x[fg_k * 1u]);
                    }
                }
                let fg_shift27: f32 = select(fg_m22, 0.0f, fg_m22 == fg_f32_from_bits(0xff800000u));
                {
                    const fg_k: u32 = 0u;
                    let fg_c28: u32 = 0u + (fg_k * 32u + fg_tx) * 1u;
                    if (fg_c28 < fg_p.cols) {
                        let fg_t29: f32 = exp((fg_v_x[fg_k * 1u] - fg_shift27));
                        fg_s23 = fg_s23 + fg_t29;
                        fg_e24[fg_k * 1u] = fg_t29;
                    }
                }
                {
                    const fg_k: u32 = 1u;
                    let fg_c30: u32 = 0u + (fg_k * 32u + fg_tx) * 1u;
                    if (fg_c30 < fg_p.cols) {
                        let fg_t31: f32 = exp((fg_v_x[fg_k * 1u] - fg_shift27));
                        fg_s23 = fg_s23 + fg_t31;
                        fg_e24[fg_k * 1u] = fg_t31;
                    }
                }
                fg_red_f32[0u + fg_ty * 32u + fg_tx] = fg_m22;
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
                let fg_r32: f32 = fg_red_f32[0u + fg_ty * 32u];
                workgroupBarrier();
                let fg_s33: f32 = fg_s23 * select(select(exp((fg_m22 - fg_r32)), 0.0f, fg_m22 == fg_f32_from_bits(0xff800000u)), 1.0f, fg_m22 == fg_r32);
                fg_red_f32[0u + fg_ty * 32u + fg_tx] = fg_s33;
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
                let fg_r34: f32 = fg_red_f32[0u + fg_ty * 32u];
                workgroupBarrier();
                let fg_f35: f32 = select(select(exp((fg_m22 - fg_r32)), 0.0f, fg_m22 == fg_f32_from_bits(0xff800000u)), 1.0f, fg_m22 == fg_r32);
                let fg_g36: f32 = (fg_f35 / fg_r34);
                {
                    const fg_k: u32 = 0u;
                    let fg_c37: u32 = 0u + (fg_k * 32u + fg_tx) * 1u;
                    var fg_o_y: array<f32, 1> = array<f32, 1>();
                    if (fg_c37 < fg_p.cols) {
                        fg_o_y[0u] = (fg_e24[fg_k * 1u] * fg_g36);
                    }
                    if (fg_active) {
                        if (fg_c37 < fg_p.cols) {
                            y[fg_base + fg_c37] = fg_o_y[0u];
                        }
                    }
                }
                {
                    const fg_k: u32 = 1u;
                    let fg_c38: u32 = 0u + (fg_k * 32u + fg_tx) * 1u;
                    var fg_o_y: array<f32, 1> = array<f32, 1>();
                    if (fg_c38 < fg_p.cols) {
                        fg_o_y[0u] = (fg_e24[fg_k * 1u] * fg_g36);
                    }
                    if (fg_active) {
                        if (fg_c38 < fg_p.cols) {
                            y[fg_base + fg_c38] = fg_o_y[0u];
                        }
                    }
                }
            } else {
                // looped: each level sweeps the row again
                // row_max(x) and row_sum(exp((x - row_max(x)))) online: one sweep
                var fg_m39: f32 = fg_f32_from_bits(0xff800000u);
                var fg_s40: f32 = 0.0f;
                for (var fg_off: u32 = 0u; fg_off < fg_p.cols; fg_off += 64u) {
                    var fg_v_x: array<f32, 2> = array<f32, 2>();
                    {
                        const fg_k: u32 = 0u;
                        let fg_c42: u32 = fg_off + (fg_k * 32u + fg_tx) * 1u;
                        if (fg_c42 < fg_p.cols) {
                            fg_v_x[fg_k * 1u] = x[fg_base + fg_c42];
                        }
                    }
                    {
                        const fg_k: u32 = 1u;
                        let fg_c43: u32 = fg_off + (fg_k * 32u + fg_tx) * 1u;
                        if (fg_c43 < fg_p.cols) {
                            fg_v_x[fg_k * 1u] = x[fg_base + fg_c43];
                        }
                    }
                    var fg_top44: f32 = fg_f32_from_bits(0xff800000u);
                    {
                        const fg_k: u32 = 0u;
                        let fg_c45: u32 = fg_off + (fg_k * 32u + fg_tx) * 1u;
                        if (fg_c45 < fg_p.cols) {
                            fg_top44 = max(fg_top44, fg_v_x[fg_k * 1u]);
                        }
                    }
                    {
                        const fg_k: u32 = 1u;
                        let fg_c46: u32 = fg_off + (fg_k * 32u + fg_tx) * 1u;
                        if (fg_c46 < fg_p.cols) {
                            fg_top44 = max(fg_top44, fg_v_x[fg_k * 1u]);
                        }
                    }
                    let fg_top47: f32 = max(fg_m39, fg_top44);
                    fg_s40 = fg_s40 * select(select(exp((fg_m39 - fg_top47)), 0.0f, fg_m39 == fg_f32_from_bits(0xff800000u)), 1.0f, fg_m39 == fg_top47);
                    fg_m39 = fg_top47;
                    let fg_shift48: f32 = select(fg_m39, 0.0f, fg_m39 == fg_f32_from_bits(0xff800000u));
                    {
                        const fg_k: u32 = 0u;
                        let fg_c49: u32 = fg_off + (fg_k * 32u + fg_tx) * 1u;
                        if (fg_c49 < fg_p.cols) {
                            let fg_t50: f32 = exp((fg_v_x[fg_k * 1u] - fg_shift48));
                            fg_s40 = fg_s40 + fg_t50;
                        }
                    }
                    {
                        const fg_k: u32 = 1u;
                        let fg_c51: u32 = fg_off + (fg_k * 32u + fg_tx) * 1u;
                        if (fg_c51 < fg_p.cols) {
                            let fg_t52: f32 = exp((fg_v_x[fg_k * 1u] - fg_shift48));
                            fg_s40 = fg_s40 + fg_t52;
                        }
                    }
                }
                fg_red_f32[0u + fg_ty * 32u + fg_tx] = fg_m39;
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
                let fg_r53: f32 = fg_red_f32[0u + fg_ty * 32u];
                workgroupBarrier();
                let fg_s54: f32 = fg_s40 * select(select(exp((fg_m39 - fg_r53)), 0.0f, fg_m39 == fg_f32_from_bits(0xff800000u)), 1.0f, fg_m39 == fg_r53);
                fg_red_f32[0u + fg_ty * 32u + fg_tx] = fg_s54;
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
                let fg_r55: f32 = fg_red_f32[0u + fg_ty * 32u];
                workgroupBarrier();
                for (var fg_off: u32 = 0u; fg_off < fg_p.cols; fg_off += 64u) {
                    var fg_v_x: array<f32, 2> = array<f32, 2>();
                    {
                        const fg_k: u32 = 0u;
                        let fg_c56: u32 = fg_off + (fg_k * 32u + fg_tx) * 1u;
                        if (fg_c56 < fg_p.cols) {
                            fg_v_x[fg_k * 1u] = x[fg_base + fg_c56];
                        }
                    }
                    {
                        const fg_k: u32 = 1u;
                        let fg_c57: u32 = fg_off + (fg_k * 32u + fg_tx) * 1u;
                        if (fg_c57 < fg_p.cols) {
                            fg_v_x[fg_k * 1u] = x[fg_base + fg_c57];
                        }
                    }
                    {
                        const fg_k: u32 = 0u;
                        let fg_c58: u32 = fg_off + (fg_k * 32u + fg_tx) * 1u;
                        var fg_o_y: array<f32, 1> = array<f32, 1>();
                        if (fg_c58 < fg_p.cols) {
                            let fg_t59: f32 = (fg_v_x[fg_k * 1u] - fg_r53);  // (x - row_max(x))
                            let fg_t60: f32 = exp(fg_t59);  // exp((x - row_max(x)))
                            let fg_t61: f32 = (fg_t60 / fg_r55);  // (exp((x - row_max(x))) / row_sum(exp((x - row_max(x)))))
                            fg_o_y[0u] = fg_t61;
                        }
                        if (fg_active) {
                            if (fg_c58 < fg_p.cols) {
                                y[fg_base + fg_c58] = fg_o_y[0u];
                            }
                        }
                    }
                    {
                        const fg_k: u32 = 1u;
                        let fg_c62: u32 = fg_off + (fg_k * 32u + fg_tx) * 1u;
                        var fg_o_y: array<f32, 1> = array<f32, 1>();
                        if (fg_c62 < fg_p.cols) {
                            let fg_t63: f32 = (fg_v_x[fg_k * 1u] - fg_r53);  // (x - row_max(x))
                            let fg_t64: f32 = exp(fg_t63);  // exp((x - row_max(x)))
                            let fg_t65: f32 = (fg_t64 / fg_r55);  // (exp((x - row_max(x))) / row_sum(exp((x - row_max(x)))))
                            fg_o_y[0u] = fg_t65;
                        }
                        if (fg_active) {
                            if (fg_c62 < fg_p.cols) {
                                y[fg_base + fg_c62] = fg_o_y[0u];
                            }
                        }
                    }
                }
            }
        }
    }
}

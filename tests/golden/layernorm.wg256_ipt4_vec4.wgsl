// kernel-forge generated WGSL source (forge.emit, emitter version 5); do not edit
// kernel: layernorm v1, entry point layernorm_kernel
// semantic hash: 710e18ad94c423a5a14ba4af3643dfcbb0f2fc38eae69263c0c4b419a36639b9
// schedule: wg=256,ipt=4,vec=4
// pattern: rows (rows=37, cols=size)
// IR:
//   y = ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) / f32(cols))) * (x - (row_sum(x) / f32(cols))))) / f32(cols)) + eps))) * gamma) + beta)

struct fg_Params {
    eps: f32,
    rows: u32,
    cols: u32,
}

// x, y, gamma, beta: arrays of vectors, bound rounded up to whole vectors; a partial last chunk goes lane by lane
@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> gamma: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> beta: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> y: array<vec4<f32>>;
@group(0) @binding(4) var<uniform> fg_p: fg_Params;
var<workgroup> fg_red_f32: array<f32, 768>;

@compute @workgroup_size(256, 1, 1)
fn layernorm_kernel(@builtin(workgroup_id) fg_wid: vec3<u32>,
        @builtin(num_workgroups) fg_nwg: vec3<u32>,
        @builtin(local_invocation_id) fg_lid3: vec3<u32>,
        @builtin(local_invocation_index) fg_lidx: u32) {
    let fg_t1: f32 = f32(fg_p.cols);  // f32(cols)
    let fg_tx: u32 = fg_lid3.x;
    let fg_ty: u32 = fg_lid3.y;
    let fg_blocks: u32 = fg_p.rows;
    let fg_vec_ok: bool = fg_p.cols % 4u == 0u;
    // 1 row(s) per workgroup, 256 invocations per row; rows of up to 4096 columns stay in registers
    for (var fg_blk: u32 = (fg_wid.y * fg_nwg.x + fg_wid.x); fg_blk < fg_blocks; fg_blk += (fg_nwg.x * fg_nwg.y)) {
        let fg_row: u32 = fg_blk * 1u + fg_ty;
        let fg_active: bool = fg_row < fg_p.rows;
        let fg_rowc: u32 = min(fg_row, fg_p.rows - 1u);
        let fg_base: u32 = fg_rowc * fg_p.cols;
        if (fg_p.cols == 4096u) {
            // one pass, the row exactly fills the registers: no bounds checks
            var fg_v_x: array<f32, 16> = array<f32, 16>();
            {
                const fg_k: u32 = 0u;
                let fg_c2: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                if (fg_vec_ok) {
                    let fg_q: vec4<f32> = x[(fg_base + fg_c2) / 4u];
                    fg_v_x[fg_k * 4u] = fg_q.x;
                    fg_v_x[fg_k * 4u + 1u] = fg_q.y;
                    fg_v_x[fg_k * 4u + 2u] = fg_q.z;
                    fg_v_x[fg_k * 4u + 3u] = fg_q.w;
                } else {
                    fg_v_x[fg_k * 4u] = x[(fg_base + fg_c2) / 4u][(fg_base + fg_c2) % 4u];
                    fg_v_x[fg_k * 4u + 1u] = x[(fg_base + fg_c2 + 1u) / 4u][(fg_base + fg_c2 + 1u) % 4u];
                    fg_v_x[fg_k * 4u + 2u] = x[(fg_base + fg_c2 + 2u) / 4u][(fg_base + fg_c2 + 2u) % 4u];
                    fg_v_x[fg_k * 4u + 3u] = x[(fg_base + fg_c2 + 3u) / 4u][(fg_base + fg_c2 + 3u) % 4u];
                }
            }
            {
                const fg_k: u32 = 1u;
                let fg_c3: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                if (fg_vec_ok) {
                    let fg_q: vec4<f32> = x[(fg_base + fg_c3) / 4u];
                    fg_v_x[fg_k * 4u] = fg_q.x;
                    fg_v_x[fg_k * 4u + 1u] = fg_q.y;
                    fg_v_x[fg_k * 4u + 2u] = fg_q.z;
                    fg_v_x[fg_k * 4u + 3u] = fg_q.w;
                } else {
                    fg_v_x[fg_k * 4u] = x[(fg_base + fg_c3) / 4u][(fg_base + fg_c3) % 4u];
                    fg_v_x[fg_k * 4u + 1u] = x[(fg_base + fg_c3 + 1u) / 4u][(fg_base + fg_c3 + 1u) % 4u];
                    fg_v_x[fg_k * 4u + 2u] = x[(fg_base + fg_c3 + 2u) / 4u][(fg_base + fg_c3 + 2u) % 4u];
                    fg_v_x[fg_k * 4u + 3u] = x[(fg_base + fg_c3 + 3u) / 4u][(fg_base + fg_c3 + 3u) % 4u];
                }
            }
            {
                const fg_k: u32 = 2u;
                let fg_c4: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                if (fg_vec_ok) {
                    let fg_q: vec4<f32> = x[(fg_base + fg_c4) / 4u];
                    fg_v_x[fg_k * 4u] = fg_q.x;
                    fg_v_x[fg_k * 4u + 1u] = fg_q.y;
                    fg_v_x[fg_k * 4u + 2u] = fg_q.z;
                    fg_v_x[fg_k * 4u + 3u] = fg_q.w;
                } else {
                    fg_v_x[fg_k * 4u] = x[(fg_base + fg_c4) / 4u][(fg_base + fg_c4) % 4u];
                    fg_v_x[fg_k * 4u + 1u] = x[(fg_base + fg_c4 + 1u) / 4u][(fg_base + fg_c4 + 1u) % 4u];
                    fg_v_x[fg_k * 4u + 2u] = x[(fg_base + fg_c4 + 2u) / 4u][(fg_base + fg_c4 + 2u) % 4u];
                    fg_v_x[fg_k * 4u + 3u] = x[(fg_base + fg_c4 + 3u) / 4u][(fg_base + fg_c4 + 3u) % 4u];
                }
            }
            {
                const fg_k: u32 = 3u;
                let fg_c5: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                if (fg_vec_ok) {
                    let fg_q: vec4<f32> = x[(fg_base + fg_c5) / 4u];
                    fg_v_x[fg_k * 4u] = fg_q.x;
                    fg_v_x[fg_k * 4u + 1u] = fg_q.y;
                    fg_v_x[fg_k * 4u + 2u] = fg_q.z;
                    fg_v_x[fg_k * 4u + 3u] = fg_q.w;
                } else {
                    fg_v_x[fg_k * 4u] = x[(fg_base + fg_c5) / 4u][(fg_base + fg_c5) % 4u];
                    fg_v_x[fg_k * 4u + 1u] = x[(fg_base + fg_c5 + 1u) / 4u][(fg_base + fg_c5 + 1u) % 4u];
                    fg_v_x[fg_k * 4u + 2u] = x[(fg_base + fg_c5 + 2u) / 4u][(fg_base + fg_c5 + 2u) % 4u];
                    fg_v_x[fg_k * 4u + 3u] = x[(fg_base + fg_c5 + 3u) / 4u][(fg_base + fg_c5 + 3u) % 4u];
                }
            }
            // row_sum(x) and row_sum(((x - (row_sum(x) / f32(cols))) * (x - (row_sum(x) / f32(cols... as moments: one sweep
            var fg_k6: f32 = 0.0f;
            if (fg_p.cols > 0u) {
                let fg_at7: f32 = x[(fg_base) / 4u][(fg_base) % 4u];
                let fg_at8: f32 = x[(fg_base + fg_p.cols / 2u) / 4u][(fg_base + fg_p.cols / 2u) % 4u];
                let fg_at9: f32 = x[(fg_base + fg_p.cols - 1u) / 4u][(fg_base + fg_p.cols - 1u) % 4u];
                let fg_b10: u32 = min((firstLeadingBit(fg_p.cols) - firstTrailingBit(fg_p.cols) + 1u), 23u);
                fg_k6 = bitcast<f32>(bitcast<u32>(max(min(fg_at7, fg_at8), min(max(fg_at7, fg_at8), fg_at9))) & (0xffffffffu << fg_b10));
            }
            var fg_s11: f32 = 0.0f;
            {
                const fg_k: u32 = 0u;
                let fg_c12: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                {
                    fg_s11 = fg_s11 + (fg_v_x[fg_k * 4u] - fg_k6);
                }
                {
                    fg_s11 = fg_s11 + (fg_v_x[fg_k * 4u + 1u] - fg_k6);
                }
                {
                    fg_s11 = fg_s11 + (fg_v_x[fg_k * 4u + 2u] - fg_k6);
                }
                {
                    fg_s11 = fg_s11 + (fg_v_x[fg_k * 4u + 3u] - fg_k6);
                }
            }
            {
                const fg_k: u32 = 1u;
                let fg_c13: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                {
                    fg_s11 = fg_s11 + (fg_v_x[fg_k * 4u] - fg_k6);
                }
                {
                    fg_s11 = fg_s11 + (fg_v_x[fg_k * 4u + 1u] - fg_k6);
                }
                {
                    fg_s11 = fg_s11 + (fg_v_x[fg_k * 4u + 2u] - fg_k6);
                }
                {
                    fg_s11 = fg_s11 + (fg_v_x[fg_k * 4u + 3u] - fg_k6);
                }
            }
            {
                const fg_k: u32 = 2u;
                let fg_c14: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                {
                    fg_s11 = fg_s11 + (fg_v_x[fg_k * 4u] - fg_k6);
                }
                {
                    fg_s11 = fg_s11 + (fg_v_x[fg_k * 4u + 1u] - fg_k6);
                }
                {
                    fg_s11 = fg_s11 + (fg_v_x[fg_k * 4u + 2u] - fg_k6);
                }
                {
                    fg_s11 = fg_s11 + (fg_v_x[fg_k * 4u + 3u] - fg_k6);
                }
            }
            {
                const fg_k: u32 = 3u;
                let fg_c15: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                {
                    fg_s11 = fg_s11 + (fg_v_x[fg_k * 4u] - fg_k6);
                }
                {
                    fg_s11 = fg_s11 + (fg_v_x[fg_k * 4u + 1u] - fg_k6);
                }
                {
                    fg_s11 = fg_s11 + (fg_v_x[fg_k * 4u + 2u] - fg_k6);
                }
                {
                    fg_s11 = fg_s11 + (fg_v_x[fg_k * 4u + 3u] - fg_k6);
                }
            }
            let fg_mean16: f32 = (fg_s11 * 6.25e-02f);
            let fg_m17: f32 = (fg_k6 + fg_mean16);
            var fg_q18: f32 = 0.0f;
            {
                const fg_k: u32 = 0u;
                let fg_c19: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                {
                    let fg_t20: f32 = (fg_v_x[fg_k * 4u] - fg_m17);
                    fg_q18 = fg_q18 + fg_t20 * fg_t20;
                }
                {
                    let fg_t21: f32 = (fg_v_x[fg_k * 4u + 1u] - fg_m17);
                    fg_q18 = fg_q18 + fg_t21 * fg_t21;
                }
                {
                    let fg_t22: f32 = (fg_v_x[fg_k * 4u + 2u] - fg_m17);
                    fg_q18 = fg_q18 + fg_t22 * fg_t22;
                }
                {
                    let fg_t23: f32 = (fg_v_x[fg_k * 4u + 3u] - fg_m17);
                    fg_q18 = fg_q18 + fg_t23 * fg_t23;
                }
            }
            {
                const fg_k: u32 = 1u;
                let fg_c24: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                {
                    let fg_t25: f32 = (fg_v_x[fg_k * 4u] - fg_m17);
                    fg_q18 = fg_q18 + fg_t25 * fg_t25;
                }
                {
                    let fg_t26: f32 = (fg_v_x[fg_k * 4u + 1u] - fg_m17);
                    fg_q18 = fg_q18 + fg_t26 * fg_t26;
                }
                {
                    let fg_t27: f32 = (fg_v_x[fg_k * 4u + 2u] - fg_m17);
                    fg_q18 = fg_q18 + fg_t27 * fg_t27;
                }
                {
                    let fg_t28: f32 = (fg_v_x[fg_k * 4u + 3u] - fg_m17);
                    fg_q18 = fg_q18 + fg_t28 * fg_t28;
                }
            }
            {
                const fg_k: u32 = 2u;
                let fg_c29: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                {
                    let fg_t30: f32 = (fg_v_x[fg_k * 4u] - fg_m17);
                    fg_q18 = fg_q18 + fg_t30 * fg_t30;
                }
                {
                    let fg_t31: f32 = (fg_v_x[fg_k * 4u + 1u] - fg_m17);
                    fg_q18 = fg_q18 + fg_t31 * fg_t31;
                }
                {
                    let fg_t32: f32 = (fg_v_x[fg_k * 4u + 2u] - fg_m17);
                    fg_q18 = fg_q18 + fg_t32 * fg_t32;
                }
                {
                    let fg_t33: f32 = (fg_v_x[fg_k * 4u + 3u] - fg_m17);
                    fg_q18 = fg_q18 + fg_t33 * fg_t33;
                }
            }
            {
                const fg_k: u32 = 3u;
                let fg_c34: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                {
                    let fg_t35: f32 = (fg_v_x[fg_k * 4u] - fg_m17);
                    fg_q18 = fg_q18 + fg_t35 * fg_t35;
                }
                {
                    let fg_t36: f32 = (fg_v_x[fg_k * 4u + 1u] - fg_m17);
                    fg_q18 = fg_q18 + fg_t36 * fg_t36;
                }
                {
                    let fg_t37: f32 = (fg_v_x[fg_k * 4u + 2u] - fg_m17);
                    fg_q18 = fg_q18 + fg_t37 * fg_t37;
                }
                {
                    let fg_t38: f32 = (fg_v_x[fg_k * 4u + 3u] - fg_m17);
                    fg_q18 = fg_q18 + fg_t38 * fg_t38;
                }
            }
            let fg_g39: f32 = ((fg_k6 - fg_m17) + fg_mean16);
            let fg_q40: f32 = max((fg_q18 - (1.6e+01f * fg_g39) * fg_g39), 0.0f);
            fg_red_f32[256u + fg_ty * 256u + fg_tx] = fg_s11;
            fg_red_f32[512u + fg_ty * 256u + fg_tx] = fg_q40;
            workgroupBarrier();
            if (fg_tx < 128u) {
                let fg_p41: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx];
                let fg_p42: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx + 128u];
                let fg_p43: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx];
                let fg_p44: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx + 128u];
                let fg_s45: f32 = (fg_p41 + fg_p42);
                let fg_g46: f32 = (fg_p42 - fg_p41);
                let fg_q47: f32 = ((fg_p43 + fg_p44) + (fg_g46 * fg_g46) * 3.125e-02f);
                fg_red_f32[256u + fg_ty * 256u + fg_tx] = fg_s45;
                fg_red_f32[512u + fg_ty * 256u + fg_tx] = fg_q47;
            }
            workgroupBarrier();
            if (fg_tx < 64u) {
                let fg_p48: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx];
                let fg_p49: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx + 64u];
                let fg_p50: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx];
                let fg_p51: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx + 64u];
                let fg_s52: f32 = (fg_p48 + fg_p49);
                let fg_g53: f32 = (fg_p49 - fg_p48);
                let fg_q54: f32 = ((fg_p50 + fg_p51) + (fg_g53 * fg_g53) * 1.5625e-02f);
                fg_red_f32[256u + fg_ty * 256u + fg_tx] = fg_s52;
                fg_red_f32[512u + fg_ty * 256u + fg_tx] = fg_q54;
            }
            workgroupBarrier();
            if (fg_tx < 32u) {
                let fg_p55: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx];
                let fg_p56: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx + 32u];
                let fg_p57: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx];
                let fg_p58: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx + 32u];
                let fg_s59: f32 = (fg_p55 + fg_p56);
                let fg_g60: f32 = (fg_p56 - fg_p55);
                let fg_q61: f32 = ((fg_p57 + fg_p58) + (fg_g60 * fg_g60) * 7.8125e-03f);
                fg_red_f32[256u + fg_ty * 256u + fg_tx] = fg_s59;
                fg_red_f32[512u + fg_ty * 256u + fg_tx] = fg_q61;
            }
            workgroupBarrier();
            if (fg_tx < 16u) {
                let fg_p62: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx];
                let fg_p63: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx + 16u];
                let fg_p64: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx];
                let fg_p65: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx + 16u];
                let fg_s66: f32 = (fg_p62 + fg_p63);
                let fg_g67: f32 = (fg_p63 - fg_p62);
                let fg_q68: f32 = ((fg_p64 + fg_p65) + (fg_g67 * fg_g67) * 3.90625e-03f);
                fg_red_f32[256u + fg_ty * 256u + fg_tx] = fg_s66;
                fg_red_f32[512u + fg_ty * 256u + fg_tx] = fg_q68;
            }
            workgroupBarrier();
            if (fg_tx < 8u) {
                let fg_p69: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx];
                let fg_p70: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx + 8u];
                let fg_p71: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx];
                let fg_p72: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx + 8u];
                let fg_s73: f32 = (fg_p69 + fg_p70);
                let fg_g74: f32 = (fg_p70 - fg_p69);
                let fg_q75: f32 = ((fg_p71 + fg_p72) + (fg_g74 * fg_g74) * 1.953125e-03f);
                fg_red_f32[256u + fg_ty * 256u + fg_tx] = fg_s73;
                fg_red_f32[512u + fg_ty * 256u + fg_tx] = fg_q75;
            }
            workgroupBarrier();
            if (fg_tx < 4u) {
                let fg_p76: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx];
                let fg_p77: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx + 4u];
                let fg_p78: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx];
                let fg_p79: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx + 4u];
                let fg_s80: f32 = (fg_p76 + fg_p77);
                let fg_g81: f32 = (fg_p77 - fg_p76);
                let fg_q82: f32 = ((fg_p78 + fg_p79) + (fg_g81 * fg_g81) * 9.765625e-04f);
                fg_red_f32[256u + fg_ty * 256u + fg_tx] = fg_s80;
                fg_red_f32[512u + fg_ty * 256u + fg_tx] = fg_q82;
            }
            workgroupBarrier();
            if (fg_tx < 2u) {
                let fg_p83: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx];
                let fg_p84: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx + 2u];
                let fg_p85: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx];
                let fg_p86: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx + 2u];
                let fg_s87: f32 = (fg_p83 + fg_p84);
                let fg_g88: f32 = (fg_p84 - fg_p83);
                let fg_q89: f32 = ((fg_p85 + fg_p86) + (fg_g88 * fg_g88) * 4.8828125e-04f);
                fg_red_f32[256u + fg_ty * 256u + fg_tx] = fg_s87;
                fg_red_f32[512u + fg_ty * 256u + fg_tx] = fg_q89;
            }
            workgroupBarrier();
            if (fg_tx < 1u) {
                let fg_p90: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx];
                let fg_p91: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx + 1u];
                let fg_p92: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx];
                let fg_p93: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx + 1u];
                let fg_s94: f32 = (fg_p90 + fg_p91);
                let fg_g95: f32 = (fg_p91 - fg_p90);
                let fg_q96: f32 = ((fg_p92 + fg_p93) + (fg_g95 * fg_g95) * 2.4414062e-04f);
                fg_red_f32[256u + fg_ty * 256u + fg_tx] = fg_s94;
                fg_red_f32[512u + fg_ty * 256u + fg_tx] = fg_q96;
            }
            workgroupBarrier();
            let fg_r97: f32 = fg_red_f32[256u + fg_ty * 256u + 0u];
            let fg_r98: f32 = fg_red_f32[512u + fg_ty * 256u + 0u];
            workgroupBarrier();
            let fg_r99: f32 = (f32(fg_p.cols) * fg_k6 + fg_r97);
            let fg_t100: f32 = (fg_r99 / fg_t1);  // (row_sum(x) / f32(cols))
            let fg_g101: f32 = ((fg_k6 - fg_t100) + (fg_r97 * 2.4414062e-04f));
            let fg_r102: f32 = (fg_r98 + (4.096e+03f * fg_g101) * fg_g101);
            let fg_t103: f32 = (fg_r102 / fg_t1);  // (row_sum(((x - (row_sum(x) / f32(cols))) * (x - (row_sum(x) / f32(col...
            let fg_t104: f32 = (fg_t103 + fg_p.eps);  // ((row_sum(((x - (row_sum(x) / f32(cols))) * (x - (row_sum(x) / f32(co...
            let fg_t105: f32 = inverseSqrt(fg_t104);  // rsqrt(((row_sum(((x - (row_sum(x) / f32(cols))) * (x - (row_sum(x) / ...
            {
                const fg_k: u32 = 0u;
                let fg_c106: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                var fg_w_gamma: array<f32, 4> = array<f32, 4>();
                if (fg_vec_ok) {
                    let fg_q: vec4<f32> = gamma[(fg_c106) / 4u];
                    fg_w_gamma[0u] = fg_q.x;
                    fg_w_gamma[1u] = fg_q.y;
                    fg_w_gamma[2u] = fg_q.z;
                    fg_w_gamma[3u] = fg_q.w;
                } else {
                    fg_w_gamma[0u] = gamma[(fg_c106) / 4u][(fg_c106) % 4u];
                    fg_w_gamma[1u] = gamma[(fg_c106 + 1u) / 4u][(fg_c106 + 1u) % 4u];
                    fg_w_gamma[2u] = gamma[(fg_c106 + 2u) / 4u][(fg_c106 + 2u) % 4u];
                    fg_w_gamma[3u] = gamma[(fg_c106 + 3u) / 4u][(fg_c106 + 3u) % 4u];
                }
                var fg_w_beta: array<f32, 4> = array<f32, 4>();
                if (fg_vec_ok) {
                    let fg_q: vec4<f32> = beta[(fg_c106) / 4u];
                    fg_w_beta[0u] = fg_q.x;
                    fg_w_beta[1u] = fg_q.y;
                    fg_w_beta[2u] = fg_q.z;
                    fg_w_beta[3u] = fg_q.w;
                } else {
                    fg_w_beta[0u] = beta[(fg_c106) / 4u][(fg_c106) % 4u];
                    fg_w_beta[1u] = beta[(fg_c106 + 1u) / 4u][(fg_c106 + 1u) % 4u];
                    fg_w_beta[2u] = beta[(fg_c106 + 2u) / 4u][(fg_c106 + 2u) % 4u];
                    fg_w_beta[3u] = beta[(fg_c106 + 3u) / 4u][(fg_c106 + 3u) % 4u];
                }
                var fg_o_y: array<f32, 4> = array<f32, 4>();
                {
                    let fg_t107: f32 = (fg_v_x[fg_k * 4u] - fg_t100);  // (x - (row_sum(x) / f32(cols)))
                    let fg_t108: f32 = (fg_t107 * fg_t105);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                    let fg_t109: f32 = (fg_t108 * fg_w_gamma[0u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                    let fg_t110: f32 = (fg_t109 + fg_w_beta[0u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                    fg_o_y[0u] = fg_t110;
                }
                {
                    let fg_t111: f32 = (fg_v_x[fg_k * 4u + 1u] - fg_t100);  // (x - (row_sum(x) / f32(cols)))
                    let fg_t112: f32 = (fg_t111 * fg_t105);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                    let fg_t113: f32 = (fg_t112 * fg_w_gamma[1u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                    let fg_t114: f32 = (fg_t113 + fg_w_beta[1u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                    fg_o_y[1u] = fg_t114;
                }
                {
                    let fg_t115: f32 = (fg_v_x[fg_k * 4u + 2u] - fg_t100);  // (x - (row_sum(x) / f32(cols)))
                    let fg_t116: f32 = (fg_t115 * fg_t105);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                    let fg_t117: f32 = (fg_t116 * fg_w_gamma[2u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                    let fg_t118: f32 = (fg_t117 + fg_w_beta[2u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                    fg_o_y[2u] = fg_t118;
                }
                {
                    let fg_t119: f32 = (fg_v_x[fg_k * 4u + 3u] - fg_t100);  // (x - (row_sum(x) / f32(cols)))
                    let fg_t120: f32 = (fg_t119 * fg_t105);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                    let fg_t121: f32 = (fg_t120 * fg_w_gamma[3u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                    let fg_t122: f32 = (fg_t121 + fg_w_beta[3u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                    fg_o_y[3u] = fg_t122;
                }
                if (fg_active) {
                    if (fg_vec_ok) {
                        y[(fg_base + fg_c106) / 4u] = vec4<f32>(fg_o_y[0u], fg_o_y[1u], fg_o_y[2u], fg_o_y[3u]);
                    } else {
                        y[(fg_base + fg_c106) / 4u][(fg_base + fg_c106) % 4u] = fg_o_y[0u];
                        y[(fg_base + fg_c106 + 1u) / 4u][(fg_base + fg_c106 + 1u) % 4u] = fg_o_y[1u];
                        y[(fg_base + fg_c106 + 2u) / 4u][(fg_base + fg_c106 + 2u) % 4u] = fg_o_y[2u];
                        y[(fg_base + fg_c106 + 3u) / 4u][(fg_base + fg_c106 + 3u) % 4u] = fg_o_y[3u];
                    }
                }
            }
            {
                const fg_k: u32 = 1u;
                let fg_c123: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                var fg_w_gamma: array<f32, 4> = array<f32, 4>();
                if (fg_vec_ok) {
                    let fg_q: vec4<f32> = gamma[(fg_c123) / 4u];
                    fg_w_gamma[0u] = fg_q.x;
                    fg_w_gamma[1u] = fg_q.y;
                    fg_w_gamma[2u] = fg_q.z;
                    fg_w_gamma[3u] = fg_q.w;
                } else {
                    fg_w_gamma[0u] = gamma[(fg_c123) / 4u][(fg_c123) % 4u];
                    fg_w_gamma[1u] = gamma[(fg_c123 + 1u) / 4u][(fg_c123 + 1u) % 4u];
                    fg_w_gamma[2u] = gamma[(fg_c123 + 2u) / 4u][(fg_c123 + 2u) % 4u];
                    fg_w_gamma[3u] = gamma[(fg_c123 + 3u) / 4u][(fg_c123 + 3u) % 4u];
                }
                var fg_w_beta: array<f32, 4> = array<f32, 4>();
                if (fg_vec_ok) {
                    let fg_q: vec4<f32> = beta[(fg_c123) / 4u];
                    fg_w_beta[0u] = fg_q.x;
                    fg_w_beta[1u] = fg_q.y;
                    fg_w_beta[2u] = fg_q.z;
                    fg_w_beta[3u] = fg_q.w;
                } else {
                    fg_w_beta[0u] = beta[(fg_c123) / 4u][(fg_c123) % 4u];
                    fg_w_beta[1u] = beta[(fg_c123 + 1u) / 4u][(fg_c123 + 1u) % 4u];
                    fg_w_beta[2u] = beta[(fg_c123 + 2u) / 4u][(fg_c123 + 2u) % 4u];
                    fg_w_beta[3u] = beta[(fg_c123 + 3u) / 4u][(fg_c123 + 3u) % 4u];
                }
                var fg_o_y: array<f32, 4> = array<f32, 4>();
                {
                    let fg_t124: f32 = (fg_v_x[fg_k * 4u] - fg_t100);  // (x - (row_sum(x) / f32(cols)))
                    let fg_t125: f32 = (fg_t124 * fg_t105);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                    let fg_t126: f32 = (fg_t125 * fg_w_gamma[0u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                    let fg_t127: f32 = (fg_t126 + fg_w_beta[0u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                    fg_o_y[0u] = fg_t127;
                }
                {
                    let fg_t128: f32 = (fg_v_x[fg_k * 4u + 1u] - fg_t100);  // (x - (row_sum(x) / f32(cols)))
                    let fg_t129: f32 = (fg_t128 * fg_t105);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                    let fg_t130: f32 = (fg_t129 * fg_w_gamma[1u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                    let fg_t131: f32 = (fg_t130 + fg_w_beta[1u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                    fg_o_y[1u] = fg_t131;
                }
                {
                    let fg_t132: f32 = (fg_v_x[fg_k * 4u + 2u] - fg_t100);  // (x - (row_sum(x) / f32(cols)))
                    let fg_t133: f32 = (fg_t132 * fg_t105);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                    let fg_t134: f32 = (fg_t133 * fg_w_gamma[2u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                    let fg_t135: f32 = (fg_t134 + fg_w_beta[2u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                    fg_o_y[2u] = fg_t135;
                }
                {
                    let fg_t136: f32 = (fg_v_x[fg_k * 4u + 3u] - fg_t100);  // (x - (row_sum(x) / f32(cols)))
                    let fg_t137: f32 = (fg_t136 * fg_t105);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                    let fg_t138: f32 = (fg_t137 * fg_w_gamma[3u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                    let fg_t139: f32 = (fg_t138 + fg_w_beta[3u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                    fg_o_y[3u] = fg_t139;
                }
                if (fg_active) {
                    if (fg_vec_ok) {
                        y[(fg_base + fg_c123) / 4u] = vec4<f32>(fg_o_y[0u], fg_o_y[1u], fg_o_y[2u], fg_o_y[3u]);
                    } else {
                        y[(fg_base + fg_c123) / 4u][(fg_base + fg_c123) % 4u] = fg_o_y[0u];
                        y[(fg_base + fg_c123 + 1u) / 4u][(fg_base + fg_c123 + 1u) % 4u] = fg_o_y[1u];
                        y[(fg_base + fg_c123 + 2u) / 4u][(fg_base + fg_c123 + 2u) % 4u] = fg_o_y[2u];
                        y[(fg_base + fg_c123 + 3u) / 4u][(fg_base + fg_c123 + 3u) % 4u] = fg_o_y[3u];
                    }
                }
            }
            {
                const fg_k: u32 = 2u;
                let fg_c140: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                var fg_w_gamma: array<f32, 4> = array<f32, 4>();
                if (fg_vec_ok) {
                    let fg_q: vec4<f32> = gamma[(fg_c140) / 4u];
                    fg_w_gamma[0u] = fg_q.x;
                    fg_w_gamma[1u] = fg_q.y;
                    fg_w_gamma[2u] = fg_q.z;
                    fg_w_gamma[3u] = fg_q.w;
                } else {
                    fg_w_gamma[0u] = gamma[(fg_c140) / 4u][(fg_c140) % 4u];
                    fg_w_gamma[1u] = gamma[(fg_c140 + 1u) / 4u][(fg_c140 + 1u) % 4u];
                    fg_w_gamma[2u] = gamma[(fg_c140 + 2u) / 4u][(fg_c140 + 2u) % 4u];
                    fg_w_gamma[3u] = gamma[(fg_c140 + 3u) / 4u][(fg_c140 + 3u) % 4u];
                }
                var fg_w_beta: array<f32, 4> = array<f32, 4>();
                if (fg_vec_ok) {
                    let fg_q: vec4<f32> = beta[(fg_c140) / 4u];
                    fg_w_beta[0u] = fg_q.x;
                    fg_w_beta[1u] = fg_q.y;
                    fg_w_beta[2u] = fg_q.z;
                    fg_w_beta[3u] = fg_q.w;
                } else {
                    fg_w_beta[0u] = beta[(fg_c140) / 4u][(fg_c140) % 4u];
                    fg_w_beta[1u] = beta[(fg_c140 + 1u) / 4u][(fg_c140 + 1u) % 4u];
                    fg_w_beta[2u] = beta[(fg_c140 + 2u) / 4u][(fg_c140 + 2u) % 4u];
                    fg_w_beta[3u] = beta[(fg_c140 + 3u) / 4u][(fg_c140 + 3u) % 4u];
                }
                var fg_o_y: array<f32, 4> = array<f32, 4>();
                {
                    let fg_t141: f32 = (fg_v_x[fg_k * 4u] - fg_t100);  // (x - (row_sum(x) / f32(cols)))
                    let fg_t142: f32 = (fg_t141 * fg_t105);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                    let fg_t143: f32 = (fg_t142 * fg_w_gamma[0u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                    let fg_t144: f32 = (fg_t143 + fg_w_beta[0u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                    fg_o_y[0u] = fg_t144;
                }
                {
                    let fg_t145: f32 = (fg_v_x[fg_k * 4u + 1u] - fg_t100);  // (x - (row_sum(x) / f32(cols)))
                    let fg_t146: f32 = (fg_t145 * fg_t105);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                    let fg_t147: f32 = (fg_t146 * fg_w_gamma[1u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                    let fg_t148: f32 = (fg_t147 + fg_w_beta[1u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                    fg_o_y[1u] = fg_t148;
                }
                {
                    let fg_t149: f32 = (fg_v_x[fg_k * 4u + 2u] - fg_t100);  // (x - (row_sum(x) / f32(cols)))
                    let fg_t150: f32 = (fg_t149 * fg_t105);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                    let fg_t151: f32 = (fg_t150 * fg_w_gamma[2u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                    let fg_t152: f32 = (fg_t151 + fg_w_beta[2u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                    fg_o_y[2u] = fg_t152;
                }
                {
                    let fg_t153: f32 = (fg_v_x[fg_k * 4u + 3u] - fg_t100);  // (x - (row_sum(x) / f32(cols)))
                    let fg_t154: f32 = (fg_t153 * fg_t105);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                    let fg_t155: f32 = (fg_t154 * fg_w_gamma[3u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                    let fg_t156: f32 = (fg_t155 + fg_w_beta[3u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                    fg_o_y[3u] = fg_t156;
                }
                if (fg_active) {
                    if (fg_vec_ok) {
                        y[(fg_base + fg_c140) / 4u] = vec4<f32>(fg_o_y[0u], fg_o_y[1u], fg_o_y[2u], fg_o_y[3u]);
                    } else {
                        y[(fg_base + fg_c140) / 4u][(fg_base + fg_c140) % 4u] = fg_o_y[0u];
                        y[(fg_base + fg_c140 + 1u) / 4u][(fg_base + fg_c140 + 1u) % 4u] = fg_o_y[1u];
                        y[(fg_base + fg_c140 + 2u) / 4u][(fg_base + fg_c140 + 2u) % 4u] = fg_o_y[2u];
                        y[(fg_base + fg_c140 + 3u) / 4u][(fg_base + fg_c140 + 3u) % 4u] = fg_o_y[3u];
                    }
                }
            }
            {
                const fg_k: u32 = 3u;
                let fg_c157: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                var fg_w_gamma: array<f32, 4> = array<f32, 4>();
                if (fg_vec_ok) {
                    let fg_q: vec4<f32> = gamma[(fg_c157) / 4u];
                    fg_w_gamma[0u] = fg_q.x;
                    fg_w_gamma[1u] = fg_q.y;
                    fg_w_gamma[2u] = fg_q.z;
                    fg_w_gamma[3u] = fg_q.w;
                } else {
                    fg_w_gamma[0u] = gamma[(fg_c157) / 4u][(fg_c157) % 4u];
                    fg_w_gamma[1u] = gamma[(fg_c157 + 1u) / 4u][(fg_c157 + 1u) % 4u];
                    fg_w_gamma[2u] = gamma[(fg_c157 + 2u) / 4u][(fg_c157 + 2u) % 4u];
                    fg_w_gamma[3u] = gamma[(fg_c157 + 3u) / 4u][(fg_c157 + 3u) % 4u];
                }
                var fg_w_beta: array<f32, 4> = array<f32, 4>();
                if (fg_vec_ok) {
                    let fg_q: vec4<f32> = beta[(fg_c157) / 4u];
                    fg_w_beta[0u] = fg_q.x;
                    fg_w_beta[1u] = fg_q.y;
                    fg_w_beta[2u] = fg_q.z;
                    fg_w_beta[3u] = fg_q.w;
                } else {
                    fg_w_beta[0u] = beta[(fg_c157) / 4u][(fg_c157) % 4u];
                    fg_w_beta[1u] = beta[(fg_c157 + 1u) / 4u][(fg_c157 + 1u) % 4u];
                    fg_w_beta[2u] = beta[(fg_c157 + 2u) / 4u][(fg_c157 + 2u) % 4u];
                    fg_w_beta[3u] = beta[(fg_c157 + 3u) / 4u][(fg_c157 + 3u) % 4u];
                }
                var fg_o_y: array<f32, 4> = array<f32, 4>();
                {
                    let fg_t158: f32 = (fg_v_x[fg_k * 4u] - fg_t100);  // (x - (row_sum(x) / f32(cols)))
                    let fg_t159: f32 = (fg_t158 * fg_t105);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                    let fg_t160: f32 = (fg_t159 * fg_w_gamma[0u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                    let fg_t161: f32 = (fg_t160 + fg_w_beta[0u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                    fg_o_y[0u] = fg_t161;
                }
                {
                    let fg_t162: f32 = (fg_v_x[fg_k * 4u + 1u] - fg_t100);  // (x - (row_sum(x) / f32(cols)))
                    let fg_t163: f32 = (fg_t162 * fg_t105);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                    let fg_t164: f32 = (fg_t163 * fg_w_gamma[1u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                    let fg_t165: f32 = (fg_t164 + fg_w_beta[1u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                    fg_o_y[1u] = fg_t165;
                }
                {
                    let fg_t166: f32 = (fg_v_x[fg_k * 4u + 2u] - fg_t100);  // (x - (row_sum(x) / f32(cols)))
                    let fg_t167: f32 = (fg_t166 * fg_t105);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                    let fg_t168: f32 = (fg_t167 * fg_w_gamma[2u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                    let fg_t169: f32 = (fg_t168 + fg_w_beta[2u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                    fg_o_y[2u] = fg_t169;
                }
                {
                    let fg_t170: f32 = (fg_v_x[fg_k * 4u + 3u] - fg_t100);  // (x - (row_sum(x) / f32(cols)))
                    let fg_t171: f32 = (fg_t170 * fg_t105);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                    let fg_t172: f32 = (fg_t171 * fg_w_gamma[3u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                    let fg_t173: f32 = (fg_t172 + fg_w_beta[3u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                    fg_o_y[3u] = fg_t173;
                }
                if (fg_active) {
                    if (fg_vec_ok) {
                        y[(fg_base + fg_c157) / 4u] = vec4<f32>(fg_o_y[0u], fg_o_y[1u], fg_o_y[2u], fg_o_y[3u]);
                    } else {
                        y[(fg_base + fg_c157) / 4u][(fg_base + fg_c157) % 4u] = fg_o_y[0u];
                        y[(fg_base + fg_c157 + 1u) / 4u][(fg_base + fg_c157 + 1u) % 4u] = fg_o_y[1u];
                        y[(fg_base + fg_c157 + 2u) / 4u][(fg_base + fg_c157 + 2u) % 4u] = fg_o_y[2u];
                        y[(fg_base + fg_c157 + 3u) / 4u][(fg_base + fg_c157 + 3u) % 4u] = fg_o_y[3u];
                    }
                }
            }
        } else {
            if (fg_p.cols < 4096u) {
                // one pass: the row lives in registers
                var fg_v_x: array<f32, 16> = array<f32, 16>();
                {
                    const fg_k: u32 = 0u;
                    let fg_c174: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                    if (fg_vec_ok && fg_c174 + 4u <= fg_p.cols) {
                        let fg_q: vec4<f32> = x[(fg_base + fg_c174) / 4u];
                        fg_v_x[fg_k * 4u] = fg_q.x;
                        fg_v_x[fg_k * 4u + 1u] = fg_q.y;
                        fg_v_x[fg_k * 4u + 2u] = fg_q.z;
                        fg_v_x[fg_k * 4u + 3u] = fg_q.w;
                    } else {
                        if (fg_c174 < fg_p.cols) { fg_v_x[fg_k * 4u] = x[(fg_base + fg_c174) / 4u][(fg_base + fg_c174) % 4u]; }
                        if (fg_c174 + 1u < fg_p.cols) { fg_v_x[fg_k * 4u + 1u] = x[(fg_base + fg_c174 + 1u) / 4u][(fg_base + fg_c174 + 1u) % 4u]; }
                        if (fg_c174 + 2u < fg_p.cols) { fg_v_x[fg_k * 4u + 2u] = x[(fg_base + fg_c174 + 2u) / 4u][(fg_base + fg_c174 + 2u) % 4u]; }
                        if (fg_c174 + 3u < fg_p.cols) { fg_v_x[fg_k * 4u + 3u] = x[(fg_base + fg_c174 + 3u) / 4u][(fg_base + fg_c174 + 3u) % 4u]; }
                    }
                }
                {
                    const fg_k: u32 = 1u;
                    let fg_c175: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                    if (fg_vec_ok && fg_c175 + 4u <= fg_p.cols) {
                        let fg_q: vec4<f32> = x[(fg_base + fg_c175) / 4u];
                        fg_v_x[fg_k * 4u] = fg_q.x;
                        fg_v_x[fg_k * 4u + 1u] = fg_q.y;
                        fg_v_x[fg_k * 4u + 2u] = fg_q.z;
                        fg_v_x[fg_k * 4u + 3u] = fg_q.w;
                    } else {
                        if (fg_c175 < fg_p.cols) { fg_v_x[fg_k * 4u] = x[(fg_base + fg_c175) / 4u][(fg_base + fg_c175) % 4u]; }
                        if (fg_c175 + 1u < fg_p.cols) { fg_v_x[fg_k * 4u + 1u] = x[(fg_base + fg_c175 + 1u) / 4u][(fg_base + fg_c175 + 1u) % 4u]; }
                        if (fg_c175 + 2u < fg_p.cols) { fg_v_x[fg_k * 4u + 2u] = x[(fg_base + fg_c175 + 2u) / 4u][(fg_base + fg_c175 + 2u) % 4u]; }
                        if (fg_c175 + 3u < fg_p.cols) { fg_v_x[fg_k * 4u + 3u] = x[(fg_base + fg_c175 + 3u) / 4u][(fg_base + fg_c175 + 3u) % 4u]; }
                    }
                }
                {
                    const fg_k: u32 = 2u;
                    let fg_c176: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                    if (fg_vec_ok && fg_c176 + 4u <= fg_p.cols) {
                        let fg_q: vec4<f32> = x[(fg_base + fg_c176) / 4u];
                        fg_v_x[fg_k * 4u] = fg_q.x;
                        fg_v_x[fg_k * 4u + 1u] = fg_q.y;
                        fg_v_x[fg_k * 4u + 2u] = fg_q.z;
                        fg_v_x[fg_k * 4u + 3u] = fg_q.w;
                    } else {
                        if (fg_c176 < fg_p.cols) { fg_v_x[fg_k * 4u] = x[(fg_base + fg_c176) / 4u][(fg_base + fg_c176) % 4u]; }
                        if (fg_c176 + 1u < fg_p.cols) { fg_v_x[fg_k * 4u + 1u] = x[(fg_base + fg_c176 + 1u) / 4u][(fg_base + fg_c176 + 1u) % 4u]; }
                        if (fg_c176 + 2u < fg_p.cols) { fg_v_x[fg_k * 4u + 2u] = x[(fg_base + fg_c176 + 2u) / 4u][(fg_base + fg_c176 + 2u) % 4u]; }
                        if (fg_c176 + 3u < fg_p.cols) { fg_v_x[fg_k * 4u + 3u] = x[(fg_base + fg_c176 + 3u) / 4u][(fg_base + fg_c176 + 3u) % 4u]; }
                    }
                }
                {
                    const fg_k: u32 = 3u;
                    let fg_c177: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                    if (fg_vec_ok && fg_c177 + 4u <= fg_p.cols) {
                        let fg_q: vec4<f32> = x[(fg_base + fg_c177) / 4u];
                        fg_v_x[fg_k * 4u] = fg_q.x;
                        fg_v_x[fg_k * 4u + 1u] = fg_q.y;
                        fg_v_x[fg_k * 4u + 2u] = fg_q.z;
                        fg_v_x[fg_k * 4u + 3u] = fg_q.w;
                    } else {
                        if (fg_c177 < fg_p.cols) { fg_v_x[fg_k * 4u] = x[(fg_base + fg_c177) / 4u][(fg_base + fg_c177) % 4u]; }
                        if (fg_c177 + 1u < fg_p.cols) { fg_v_x[fg_k * 4u + 1u] = x[(fg_base + fg_c177 + 1u) / 4u][(fg_base + fg_c177 + 1u) % 4u]; }
                        if (fg_c177 + 2u < fg_p.cols) { fg_v_x[fg_k * 4u + 2u] = x[(fg_base + fg_c177 + 2u) / 4u][(fg_base + fg_c177 + 2u) % 4u]; }
                        if (fg_c177 + 3u < fg_p.cols) { fg_v_x[fg_k * 4u + 3u] = x[(fg_base + fg_c177 + 3u) / 4u][(fg_base + fg_c177 + 3u) % 4u]; }
                    }
                }
                // row_sum(x) and row_sum(((x - (row_sum(x) / f32(cols))) * (x - (row_sum(x) / f32(cols... as moments: one sweep
                var fg_k178: f32 = 0.0f;
                if (fg_p.cols > 0u) {
                    let fg_at179: f32 = x[(fg_base) / 4u][(fg_base) % 4u];
                    let fg_at180: f32 = x[(fg_base + fg_p.cols / 2u) / 4u][(fg_base + fg_p.cols / 2u) % 4u];
                    let fg_at181: f32 = x[(fg_base + fg_p.cols - 1u) / 4u][(fg_base + fg_p.cols - 1u) % 4u];
                    let fg_b182: u32 = min((firstLeadingBit(fg_p.cols) - firstTrailingBit(fg_p.cols) + 1u), 23u);
                    fg_k178 = bitcast<f32>(bitcast<u32>(max(min(fg_at179, fg_at180), min(max(fg_at179, fg_at180), fg_at181))) & (0xffffffffu << fg_b182));
                }
                var fg_c183: f32 = 0.0f;
                var fg_s184: f32 = 0.0f;
                {
                    const fg_k: u32 = 0u;
                    let fg_c185: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                    if (fg_c185 < fg_p.cols) {
                        fg_c183 = fg_c183 + 1.0f;
                        fg_s184 = fg_s184 + (fg_v_x[fg_k * 4u] - fg_k178);
                    }
                    if (fg_c185 + 1u < fg_p.cols) {
                        fg_c183 = fg_c183 + 1.0f;
                        fg_s184 = fg_s184 + (fg_v_x[fg_k * 4u + 1u] - fg_k178);
                    }
                    if (fg_c185 + 2u < fg_p.cols) {
                        fg_c183 = fg_c183 + 1.0f;
                        fg_s184 = fg_s184 + (fg_v_x[fg_k * 4u + 2u] - fg_k178);
                    }
                    if (fg_c185 + 3u < fg_p.cols) {
                        fg_c183 = fg_c183 + 1.0f;
                        fg_s184 = fg_s184 + (fg_v_x[fg_k * 4u + 3u] - fg_k178);
                    }
                }
                {
                    const fg_k: u32 = 1u;
                    let fg_c186: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                    if (fg_c186 < fg_p.cols) {
                        fg_c183 = fg_c183 + 1.0f;
                        fg_s184 = fg_s184 + (fg_v_x[fg_k * 4u] - fg_k178);
                    }
                    if (fg_c186 + 1u < fg_p.cols) {
                        fg_c183 = fg_c183 + 1.0f;
                        fg_s184 = fg_s184 + (fg_v_x[fg_k * 4u + 1u] - fg_k178);
                    }
                    if (fg_c186 + 2u < fg_p.cols) {
                        fg_c183 = fg_c183 + 1.0f;
                        fg_s184 = fg_s184 + (fg_v_x[fg_k * 4u + 2u] - fg_k178);
                    }
                    if (fg_c186 + 3u < fg_p.cols) {
                        fg_c183 = fg_c183 + 1.0f;
                        fg_s184 = fg_s184 + (fg_v_x[fg_k * 4u + 3u] - fg_k178);
                    }
                }
                {
                    const fg_k: u32 = 2u;
                    let fg_c187: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                    if (fg_c187 < fg_p.cols) {
                        fg_c183 = fg_c183 + 1.0f;
                        fg_s184 = fg_s184 + (fg_v_x[fg_k * 4u] - fg_k178);
                    }
                    if (fg_c187 + 1u < fg_p.cols) {
                        fg_c183 = fg_c183 + 1.0f;
                        fg_s184 = fg_s184 + (fg_v_x[fg_k * 4u + 1u] - fg_k178);
                    }
                    if (fg_c187 + 2u < fg_p.cols) {
                        fg_c183 = fg_c183 + 1.0f;
                        fg_s184 = fg_s184 + (fg_v_x[fg_k * 4u + 2u] - fg_k178);
                    }
                    if (fg_c187 + 3u < fg_p.cols) {
                        fg_c183 = fg_c183 + 1.0f;
                        fg_s184 = fg_s184 + (fg_v_x[fg_k * 4u + 3u] - fg_k178);
                    }
                }
                {
                    const fg_k: u32 = 3u;
                    let fg_c188: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                    if (fg_c188 < fg_p.cols) {
                        fg_c183 = fg_c183 + 1.0f;
                        fg_s184 = fg_s184 + (fg_v_x[fg_k * 4u] - fg_k178);
                    }
                    if (fg_c188 + 1u < fg_p.cols) {
                        fg_c183 = fg_c183 + 1.0f;
                        fg_s184 = fg_s184 + (fg_v_x[fg_k * 4u + 1u] - fg_k178);
                    }
                    if (fg_c188 + 2u < fg_p.cols) {
                        fg_c183 = fg_c183 + 1.0f;
                        fg_s184 = fg_s184 + (fg_v_x[fg_k * 4u + 2u] - fg_k178);
                    }
                    if (fg_c188 + 3u < fg_p.cols) {
                        fg_c183 = fg_c183 + 1.0f;
                        fg_s184 = fg_s184 + (fg_v_x[fg_k * 4u + 3u] - fg_k178);
                    }
                }
                let fg_mean189: f32 = (fg_s184 / max(fg_c183, 1.0f));
                let fg_m190: f32 = (fg_k178 + fg_mean189);
                var fg_q191: f32 = 0.0f;
                {
                    const fg_k: u32 = 0u;
                    let fg_c192: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                    if (fg_c192 < fg_p.cols) {
                        let fg_t193: f32 = (fg_v_x[fg_k * 4u] - fg_m190);
                        fg_q191 = fg_q191 + fg_t193 * fg_t193;
                    }
                    if (fg_c192 + 1u < fg_p.cols) {
                        let fg_t194: f32 = (fg_v_x[fg_k * 4u + 1u] - fg_m190);
                        fg_q191 = fg_q191 + fg_t194 * fg_t194;
                    }
                    if (fg_c192 + 2u < fg_p.cols) {
                        let fg_t195: f32 = (fg_v_x[fg_k * 4u + 2u] - fg_m190);
                        fg_q191 = fg_q191 + fg_t195 * fg_t195;
                    }
                    if (fg_c192 + 3u < fg_p.cols) {
                        let fg_t196: f32 = (fg_v_x[fg_k * 4u + 3u] - fg_m190);
                        fg_q191 = fg_q191 + fg_t196 * fg_t196;
                    }
                }
                {
                    const fg_k: u32 = 1u;
                    let fg_c197: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                    if (fg_c197 < fg_p.cols) {
                        let fg_t198: f32 = (fg_v_x[fg_k * 4u] - fg_m190);
                        fg_q191 = fg_q191 + fg_t198 * fg_t198;
                    }
                    if (fg_c197 + 1u < fg_p.cols) {
                        let fg_t199: f32 = (fg_v_x[fg_k * 4u + 1u] - fg_m190);
                        fg_q191 = fg_q191 + fg_t199 * fg_t199;
                    }
                    if (fg_c197 + 2u < fg_p.cols) {
                        let fg_t200: f32 = (fg_v_x[fg_k * 4u + 2u] - fg_m190);
                        fg_q191 = fg_q191 + fg_t200 * fg_t200;
                    }
                    if (fg_c197 + 3u < fg_p.cols) {
                        let fg_t201: f32 = (fg_v_x[fg_k * 4u + 3u] - fg_m190);
                        fg_q191 = fg_q191 + fg_t201 * fg_t201;
                    }
                }
                {
                    const fg_k: u32 = 2u;
                    let fg_c202: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                    if (fg_c202 < fg_p.cols) {
                        let fg_t203: f32 = (fg_v_x[fg_k * 4u] - fg_m190);
                        fg_q191 = fg_q191 + fg_t203 * fg_t203;
                    }
                    if (fg_c202 + 1u < fg_p.cols) {
                        let fg_t204: f32 = (fg_v_x[fg_k * 4u + 1u] - fg_m190);
                        fg_q191 = fg_q191 + fg_t204 * fg_t204;
                    }
                    if (fg_c202 + 2u < fg_p.cols) {
                        let fg_t205: f32 = (fg_v_x[fg_k * 4u + 2u] - fg_m190);
                        fg_q191 = fg_q191 + fg_t205 * fg_t205;
                    }
                    if (fg_c202 + 3u < fg_p.cols) {
                        let fg_t206: f32 = (fg_v_x[fg_k * 4u + 3u] - fg_m190);
                        fg_q191 = fg_q191 + fg_t206 * fg_t206;
                    }
                }
                {
                    const fg_k: u32 = 3u;
                    let fg_c207: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                    if (fg_c207 < fg_p.cols) {
                        let fg_t208: f32 = (fg_v_x[fg_k * 4u] - fg_m190);
                        fg_q191 = fg_q191 + fg_t208 * fg_t208;
                    }
                    if (fg_c207 + 1u < fg_p.cols) {
                        let fg_t209: f32 = (fg_v_x[fg_k * 4u + 1u] - fg_m190);
                        fg_q191 = fg_q191 + fg_t209 * fg_t209;
                    }
                    if (fg_c207 + 2u < fg_p.cols) {
                        let fg_t210: f32 = (fg_v_x[fg_k * 4u + 2u] - fg_m190);
                        fg_q191 = fg_q191 + fg_t210 * fg_t210;
                    }
                    if (fg_c207 + 3u < fg_p.cols) {
                        let fg_t211: f32 = (fg_v_x[fg_k * 4u + 3u] - fg_m190);
                        fg_q191 = fg_q191 + fg_t211 * fg_t211;
                    }
                }
                let fg_g212: f32 = ((fg_k178 - fg_m190) + fg_mean189);
                let fg_q213: f32 = max((fg_q191 - (fg_c183 * fg_g212) * fg_g212), 0.0f);
                fg_red_f32[0u + fg_ty * 256u + fg_tx] = fg_c183;
                fg_red_f32[256u + fg_ty * 256u + fg_tx] = fg_s184;
                fg_red_f32[512u + fg_ty * 256u + fg_tx] = fg_q213;
                workgroupBarrier();
                if (fg_tx < 128u) {
                    let fg_p214: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx];
                    let fg_p215: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx + 128u];
                    let fg_p216: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx];
                    let fg_p217: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx + 128u];
                    let fg_p218: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx];
                    let fg_p219: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx + 128u];
                    let fg_s220: f32 = (fg_p216 + fg_p217);
                    let fg_n221: f32 = (fg_p214 + fg_p215);
                    let fg_g222: f32 = ((fg_p217 / max(fg_p215, 1.0f)) - (fg_p216 / max(fg_p214, 1.0f)));
                    let fg_q223: f32 = ((fg_p218 + fg_p219) + (fg_g222 * fg_g222) * ((fg_p214 * fg_p215) / max(fg_n221, 1.0f)));
                    fg_red_f32[0u + fg_ty * 256u + fg_tx] = fg_n221;
                    fg_red_f32[256u + fg_ty * 256u + fg_tx] = fg_s220;
                    fg_red_f32[512u + fg_ty * 256u + fg_tx] = fg_q223;
                }
                workgroupBarrier();
                if (fg_tx < 64u) {
                    let fg_p224: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx];
                    let fg_p225: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx + 64u];
                    let fg_p226: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx];
                    let fg_p227: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx + 64u];
                    let fg_p228: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx];
                    let fg_p229: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx + 64u];
                    let fg_s230: f32 = (fg_p226 + fg_p227);
                    let fg_n231: f32 = (fg_p224 + fg_p225);
                    let fg_g232: f32 = ((fg_p227 / max(fg_p225, 1.0f)) - (fg_p226 / max(fg_p224, 1.0f)));
                    let fg_q233: f32 = ((fg_p228 + fg_p229) + (fg_g232 * fg_g232) * ((fg_p224 * fg_p225) / max(fg_n231, 1.0f)));
                    fg_red_f32[0u + fg_ty * 256u + fg_tx] = fg_n231;
                    fg_red_f32[256u + fg_ty * 256u + fg_tx] = fg_s230;
                    fg_red_f32[512u + fg_ty * 256u + fg_tx] = fg_q233;
                }
                workgroupBarrier();
                if (fg_tx < 32u) {
                    let fg_p234: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx];
                    let fg_p235: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx + 32u];
                    let fg_p236: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx];
                    let fg_p237: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx + 32u];
                    let fg_p238: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx];
                    let fg_p239: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx + 32u];
                    let fg_s240: f32 = (fg_p236 + fg_p237);
                    let fg_n241: f32 = (fg_p234 + fg_p235);
                    let fg_g242: f32 = ((fg_p237 / max(fg_p235, 1.0f)) - (fg_p236 / max(fg_p234, 1.0f)));
                    let fg_q243: f32 = ((fg_p238 + fg_p239) + (fg_g242 * fg_g242) * ((fg_p234 * fg_p235) / max(fg_n241, 1.0f)));
                    fg_red_f32[0u + fg_ty * 256u + fg_tx] = fg_n241;
                    fg_red_f32[256u + fg_ty * 256u + fg_tx] = fg_s240;
                    fg_red_f32[512u + fg_ty * 256u + fg_tx] = fg_q243;
                }
                workgroupBarrier();
                if (fg_tx < 16u) {
                    let fg_p244: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx];
                    let fg_p245: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx + 16u];
                    let fg_p246: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx];
                    let fg_p247: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx + 16u];
                    let fg_p248: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx];
                    let fg_p249: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx + 16u];
                    let fg_s250: f32 = (fg_p246 + fg_p247);
                    let fg_n251: f32 = (fg_p244 + fg_p245);
                    let fg_g252: f32 = ((fg_p247 / max(fg_p245, 1.0f)) - (fg_p246 / max(fg_p244, 1.0f)));
                    let fg_q253: f32 = ((fg_p248 + fg_p249) + (fg_g252 * fg_g252) * ((fg_p244 * fg_p245) / max(fg_n251, 1.0f)));
                    fg_red_f32[0u + fg_ty * 256u + fg_tx] = fg_n251;
                    fg_red_f32[256u + fg_ty * 256u + fg_tx] = fg_s250;
                    fg_red_f32[512u + fg_ty * 256u + fg_tx] = fg_q253;
                }
                workgroupBarrier();
                if (fg_tx < 8u) {
                    let fg_p254: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx];
                    let fg_p255: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx + 8u];
                    let fg_p256: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx];
                    let fg_p257: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx + 8u];
                    let fg_p258: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx];
                    let fg_p259: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx + 8u];
                    let fg_s260: f32 = (fg_p256 + fg_p257);
                    let fg_n261: f32 = (fg_p254 + fg_p255);
                    let fg_g262: f32 = ((fg_p257 / max(fg_p255, 1.0f)) - (fg_p256 / max(fg_p254, 1.0f)));
                    let fg_q263: f32 = ((fg_p258 + fg_p259) + (fg_g262 * fg_g262) * ((fg_p254 * fg_p255) / max(fg_n261, 1.0f)));
                    fg_red_f32[0u + fg_ty * 256u + fg_tx] = fg_n261;
                    fg_red_f32[256u + fg_ty * 256u + fg_tx] = fg_s260;
                    fg_red_f32[512u + fg_ty * 256u + fg_tx] = fg_q263;
                }
                workgroupBarrier();
                if (fg_tx < 4u) {
                    let fg_p264: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx];
                    let fg_p265: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx + 4u];
                    let fg_p266: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx];
                    let fg_p267: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx + 4u];
                    let fg_p268: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx];
                    let fg_p269: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx + 4u];
                    let fg_s270: f32 = (fg_p266 + fg_p267);
                    let fg_n271: f32 = (fg_p264 + fg_p265);
                    let fg_g272: f32 = ((fg_p267 / max(fg_p265, 1.0f)) - (fg_p266 / max(fg_p264, 1.0f)));
                    let fg_q273: f32 = ((fg_p268 + fg_p269) + (fg_g272 * fg_g272) * ((fg_p264 * fg_p265) / max(fg_n271, 1.0f)));
                    fg_red_f32[0u + fg_ty * 256u + fg_tx] = fg_n271;
                    fg_red_f32[256u + fg_ty * 256u + fg_tx] = fg_s270;
                    fg_red_f32[512u + fg_ty * 256u + fg_tx] = fg_q273;
                }
                workgroupBarrier();
                if (fg_tx < 2u) {
                    let fg_p274: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx];
                    let fg_p275: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx + 2u];
                    let fg_p276: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx];
                    let fg_p277: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx + 2u];
                    let fg_p278: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx];
                    let fg_p279: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx + 2u];
                    let fg_s280: f32 = (fg_p276 + fg_p277);
                    let fg_n281: f32 = (fg_p274 + fg_p275);
                    let fg_g282: f32 = ((fg_p277 / max(fg_p275, 1.0f)) - (fg_p276 / max(fg_p274, 1.0f)));
                    let fg_q283: f32 = ((fg_p278 + fg_p279) + (fg_g282 * fg_g282) * ((fg_p274 * fg_p275) / max(fg_n281, 1.0f)));
                    fg_red_f32[0u + fg_ty * 256u + fg_tx] = fg_n281;
                    fg_red_f32[256u + fg_ty * 256u + fg_tx] = fg_s280;
                    fg_red_f32[512u + fg_ty * 256u + fg_tx] = fg_q283;
                }
                workgroupBarrier();
                if (fg_tx < 1u) {
                    let fg_p284: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx];
                    let fg_p285: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx + 1u];
                    let fg_p286: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx];
                    let fg_p287: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx + 1u];
                    let fg_p288: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx];
                    let fg_p289: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx + 1u];
                    let fg_s290: f32 = (fg_p286 + fg_p287);
                    let fg_n291: f32 = (fg_p284 + fg_p285);
                    let fg_g292: f32 = ((fg_p287 / max(fg_p285, 1.0f)) - (fg_p286 / max(fg_p284, 1.0f)));
                    let fg_q293: f32 = ((fg_p288 + fg_p289) + (fg_g292 * fg_g292) * ((fg_p284 * fg_p285) / max(fg_n291, 1.0f)));
                    fg_red_f32[0u + fg_ty * 256u + fg_tx] = fg_n291;
                    fg_red_f32[256u + fg_ty * 256u + fg_tx] = fg_s290;
                    fg_red_f32[512u + fg_ty * 256u + fg_tx] = fg_q293;
                }
                workgroupBarrier();
                let fg_r294: f32 = fg_red_f32[256u + fg_ty * 256u + 0u];
                let fg_r295: f32 = fg_red_f32[512u + fg_ty * 256u + 0u];
                let fg_r296: f32 = fg_red_f32[0u + fg_ty * 256u + 0u];
                workgroupBarrier();
                let fg_r297: f32 = (f32(fg_p.cols) * fg_k178 + fg_r294);
                let fg_t298: f32 = (fg_r297 / fg_t1);  // (row_sum(x) / f32(cols))
                let fg_g299: f32 = ((fg_k178 - fg_t298) + (fg_r294 / max(fg_r296, 1.0f)));
                let fg_r300: f32 = select(0.0f, (fg_r295 + (fg_r296 * fg_g299) * fg_g299), fg_r296 > 0.0f);
                let fg_t301: f32 = (fg_r300 / fg_t1);  // (row_sum(((x - (row_sum(x) / f32(cols))) * (x - (row_sum(x) / f32(col...
                let fg_t302: f32 = (fg_t301 + fg_p.eps);  // ((row_sum(((x - (row_sum(x) / f32(cols))) * (x - (row_sum(x) / f32(co...
                let fg_t303: f32 = inverseSqrt(fg_t302);  // rsqrt(((row_sum(((x - (row_sum(x) / f32(cols))) * (x - (row_sum(x) / ...
                {
                    const fg_k: u32 = 0u;
                    let fg_c304: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                    var fg_w_gamma: array<f32, 4> = array<f32, 4>();
                    if (fg_vec_ok && fg_c304 + 4u <= fg_p.cols) {
                        let fg_q: vec4<f32> = gamma[(fg_c304) / 4u];
                        fg_w_gamma[0u] = fg_q.x;
                        fg_w_gamma[1u] = fg_q.y;
                        fg_w_gamma[2u] = fg_q.z;
                        fg_w_gamma[3u] = fg_q.w;
                    } else {
                        if (fg_c304 < fg_p.cols) { fg_w_gamma[0u] = gamma[(fg_c304) / 4u][(fg_c304) % 4u]; }
                        if (fg_c304 + 1u < fg_p.cols) { fg_w_gamma[1u] = gamma[(fg_c304 + 1u) / 4u][(fg_c304 + 1u) % 4u]; }
                        if (fg_c304 + 2u < fg_p.cols) { fg_w_gamma[2u] = gamma[(fg_c304 + 2u) / 4u][(fg_c304 + 2u) % 4u]; }
                        if (fg_c304 + 3u < fg_p.cols) { fg_w_gamma[3u] = gamma[(fg_c304 + 3u) / 4u][(fg_c304 + 3u) % 4u]; }
                    }
                    var fg_w_beta: array<f32, 4> = array<f32, 4>();
                    if (fg_vec_ok && fg_c304 + 4u <= fg_p.cols) {
                        let fg_q: vec4<f32> = beta[(fg_c304) / 4u];
                        fg_w_beta[0u] = fg_q.x;
                        fg_w_beta[1u] = fg_q.y;
                        fg_w_beta[2u] = fg_q.z;
                        fg_w_beta[3u] = fg_q.w;
                    } else {
                        if (fg_c304 < fg_p.cols) { fg_w_beta[0u] = beta[(fg_c304) / 4u][(fg_c304) % 4u]; }
                        if (fg_c304 + 1u < fg_p.cols) { fg_w_beta[1u] = beta[(fg_c304 + 1u) / 4u][(fg_c304 + 1u) % 4u]; }
                        if (fg_c304 + 2u < fg_p.cols) { fg_w_beta[2u] = beta[(fg_c304 + 2u) / 4u][(fg_c304 + 2u) % 4u]; }
                        if (fg_c304 + 3u < fg_p.cols) { fg_w_beta[3u] = beta[(fg_c304 + 3u) / 4u][(fg_c304 + 3u) % 4u]; }
                    }
                    var fg_o_y: array<f32, 4> = array<f32, 4>();
                    if (fg_c304 < fg_p.cols) {
                        let fg_t305: f32 = (fg_v_x[fg_k * 4u] - fg_t298);  // (x - (row_sum(x) / f32(cols)))
                        let fg_t306: f32 = (fg_t305 * fg_t303);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                        let fg_t307: f32 = (fg_t306 * fg_w_gamma[0u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                        let fg_t308: f32 = (fg_t307 + fg_w_beta[0u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                        fg_o_y[0u] = fg_t308;
                    }
                    if (fg_c304 + 1u < fg_p.cols) {
                        let fg_t309: f32 = (fg_v_x[fg_k * 4u + 1u] - fg_t298);  // (x - (row_sum(x) / f32(cols)))
                        let fg_t310: f32 = (fg_t309 * fg_t303);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                        let fg_t311: f32 = (fg_t310 * fg_w_gamma[1u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                        let fg_t312: f32 = (fg_t311 + fg_w_beta[1u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                        fg_o_y[1u] = fg_t312;
                    }
                    if (fg_c304 + 2u < fg_p.cols) {
                        let fg_t313: f32 = (fg_v_x[fg_k * 4u + 2u] - fg_t298);  // (x - (row_sum(x) / f32(cols)))
                        let fg_t314: f32 = (fg_t313 * fg_t303);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                        let fg_t315: f32 = (fg_t314 * fg_w_gamma[2u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                        let fg_t316: f32 = (fg_t315 + fg_w_beta[2u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                        fg_o_y[2u] = fg_t316;
                    }
                    if (fg_c304 + 3u < fg_p.cols) {
                        let fg_t317: f32 = (fg_v_x[fg_k * 4u + 3u] - fg_t298);  // (x - (row_sum(x) / f32(cols)))
                        let fg_t318: f32 = (fg_t317 * fg_t303);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                        let fg_t319: f32 = (fg_t318 * fg_w_gamma[3u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                        let fg_t320: f32 = (fg_t319 + fg_w_beta[3u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                        fg_o_y[3u] = fg_t320;
                    }
                    if (fg_active) {
                        if (fg_vec_ok && fg_c304 + 4u <= fg_p.cols) {
                            y[(fg_base + fg_c304) / 4u] = vec4<f32>(fg_o_y[0u], fg_o_y[1u], fg_o_y[2u], fg_o_y[3u]);
                        } else {
                            if (fg_c304 < fg_p.cols) { y[(fg_base + fg_c304) / 4u][(fg_base + fg_c304) % 4u] = fg_o_y[0u]; }
                            if (fg_c304 + 1u < fg_p.cols) { y[(fg_base + fg_c304 + 1u) / 4u][(fg_base + fg_c304 + 1u) % 4u] = fg_o_y[1u]; }
                            if (fg_c304 + 2u < fg_p.cols) { y[(fg_base + fg_c304 + 2u) / 4u][(fg_base + fg_c304 + 2u) % 4u] = fg_o_y[2u]; }
                            if (fg_c304 + 3u < fg_p.cols) { y[(fg_base + fg_c304 + 3u) / 4u][(fg_base + fg_c304 + 3u) % 4u] = fg_o_y[3u]; }
                        }
                    }
                }
                {
                    const fg_k: u32 = 1u;
                    let fg_c321: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                    var fg_w_gamma: array<f32, 4> = array<f32, 4>();
                    if (fg_vec_ok && fg_c321 + 4u <= fg_p.cols) {
                        let fg_q: vec4<f32> = gamma[(fg_c321) / 4u];
                        fg_w_gamma[0u] = fg_q.x;
                        fg_w_gamma[1u] = fg_q.y;
                        fg_w_gamma[2u] = fg_q.z;
                        fg_w_gamma[3u] = fg_q.w;
                    } else {
                        if (fg_c321 < fg_p.cols) { fg_w_gamma[0u] = gamma[(fg_c321) / 4u][(fg_c321) % 4u]; }
                        if (fg_c321 + 1u < fg_p.cols) { fg_w_gamma[1u] = gamma[(fg_c321 + 1u) / 4u][(fg_c321 + 1u) % 4u]; }
                        if (fg_c321 + 2u < fg_p.cols) { fg_w_gamma[2u] = gamma[(fg_c321 + 2u) / 4u][(fg_c321 + 2u) % 4u]; }
                        if (fg_c321 + 3u < fg_p.cols) { fg_w_gamma[3u] = gamma[(fg_c321 + 3u) / 4u][(fg_c321 + 3u) % 4u]; }
                    }
                    var fg_w_beta: array<f32, 4> = array<f32, 4>();
                    if (fg_vec_ok && fg_c321 + 4u <= fg_p.cols) {
                        let fg_q: vec4<f32> = beta[(fg_c321) / 4u];
                        fg_w_beta[0u] = fg_q.x;
                        fg_w_beta[1u] = fg_q.y;
                        fg_w_beta[2u] = fg_q.z;
                        fg_w_beta[3u] = fg_q.w;
                    } else {
                        if (fg_c321 < fg_p.cols) { fg_w_beta[0u] = beta[(fg_c321) / 4u][(fg_c321) % 4u]; }
                        if (fg_c321 + 1u < fg_p.cols) { fg_w_beta[1u] = beta[(fg_c321 + 1u) / 4u][(fg_c321 + 1u) % 4u]; }
                        if (fg_c321 + 2u < fg_p.cols) { fg_w_beta[2u] = beta[(fg_c321 + 2u) / 4u][(fg_c321 + 2u) % 4u]; }
                        if (fg_c321 + 3u < fg_p.cols) { fg_w_beta[3u] = beta[(fg_c321 + 3u) / 4u][(fg_c321 + 3u) % 4u]; }
                    }
                    var fg_o_y: array<f32, 4> = array<f32, 4>();
                    if (fg_c321 < fg_p.cols) {
                        let fg_t322: f32 = (fg_v_x[fg_k * 4u] - fg_t298);  // (x - (row_sum(x) / f32(cols)))
                        let fg_t323: f32 = (fg_t322 * fg_t303);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                        let fg_t324: f32 = (fg_t323 * fg_w_gamma[0u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                        let fg_t325: f32 = (fg_t324 + fg_w_beta[0u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                        fg_o_y[0u] = fg_t325;
                    }
                    if (fg_c321 + 1u < fg_p.cols) {
                        let fg_t326: f32 = (fg_v_x[fg_k * 4u + 1u] - fg_t298);  // (x - (row_sum(x) / f32(cols)))
                        let fg_t327: f32 = (fg_t326 * fg_t303);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                        let fg_t328: f32 = (fg_t327 * fg_w_gamma[1u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                        let fg_t329: f32 = (fg_t328 + fg_w_beta[1u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                        fg_o_y[1u] = fg_t329;
                    }
                    if (fg_c321 + 2u < fg_p.cols) {
                        let fg_t330: f32 = (fg_v_x[fg_k * 4u + 2u] - fg_t298);  // (x - (row_sum(x) / f32(cols)))
                        let fg_t331: f32 = (fg_t330 * fg_t303);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                        let fg_t332: f32 = (fg_t331 * fg_w_gamma[2u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                        let fg_t333: f32 = (fg_t332 + fg_w_beta[2u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                        fg_o_y[2u] = fg_t333;
                    }
                    if (fg_c321 + 3u < fg_p.cols) {
                        let fg_t334: f32 = (fg_v_x[fg_k * 4u + 3u] - fg_t298);  // (x - (row_sum(x) / f32(cols)))
                        let fg_t335: f32 = (fg_t334 * fg_t303);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                        let fg_t336: f32 = (fg_t335 * fg_w_gamma[3u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                        let fg_t337: f32 = (fg_t336 + fg_w_beta[3u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                        fg_o_y[3u] = fg_t337;
                    }
                    if (fg_active) {
                        if (fg_vec_ok && fg_c321 + 4u <= fg_p.cols) {
                            y[(fg_base + fg_c321) / 4u] = vec4<f32>(fg_o_y[0u], fg_o_y[1u], fg_o_y[2u], fg_o_y[3u]);
                        } else {
                            if (fg_c321 < fg_p.cols) { y[(fg_base + fg_c321) / 4u][(fg_base + fg_c321) % 4u] = fg_o_y[0u]; }
                            if (fg_c321 + 1u < fg_p.cols) { y[(fg_base + fg_c321 + 1u) / 4u][(fg_base + fg_c321 + 1u) % 4u] = fg_o_y[1u]; }
                            if (fg_c321 + 2u < fg_p.cols) { y[(fg_base + fg_c321 + 2u) / 4u][(fg_base + fg_c321 + 2u) % 4u] = fg_o_y[2u]; }
                            if (fg_c321 + 3u < fg_p.cols) { y[(fg_base + fg_c321 + 3u) / 4u][(fg_base + fg_c321 + 3u) % 4u] = fg_o_y[3u]; }
                        }
                    }
                }
                {
                    const fg_k: u32 = 2u;
                    let fg_c338: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                    var fg_w_gamma: array<f32, 4> = array<f32, 4>();
                    if (fg_vec_ok && fg_c338 + 4u <= fg_p.cols) {
                        let fg_q: vec4<f32> = gamma[(fg_c338) / 4u];
                        fg_w_gamma[0u] = fg_q.x;
                        fg_w_gamma[1u] = fg_q.y;
                        fg_w_gamma[2u] = fg_q.z;
                        fg_w_gamma[3u] = fg_q.w;
                    } else {
                        if (fg_c338 < fg_p.cols) { fg_w_gamma[0u] = gamma[(fg_c338) / 4u][(fg_c338) % 4u]; }
                        if (fg_c338 + 1u < fg_p.cols) { fg_w_gamma[1u] = gamma[(fg_c338 + 1u) / 4u][(fg_c338 + 1u) % 4u]; }
                        if (fg_c338 + 2u < fg_p.cols) { fg_w_gamma[2u] = gamma[(fg_c338 + 2u) / 4u][(fg_c338 + 2u) % 4u]; }
                        if (fg_c338 + 3u < fg_p.cols) { fg_w_gamma[3u] = gamma[(fg_c338 + 3u) / 4u][(fg_c338 + 3u) % 4u]; }
                    }
                    var fg_w_beta: array<f32, 4> = array<f32, 4>();
                    if (fg_vec_ok && fg_c338 + 4u <= fg_p.cols) {
                        let fg_q: vec4<f32> = beta[(fg_c338) / 4u];
                        fg_w_beta[0u] = fg_q.x;
                        fg_w_beta[1u] = fg_q.y;
                        fg_w_beta[2u] = fg_q.z;
                        fg_w_beta[3u] = fg_q.w;
                    } else {
                        if (fg_c338 < fg_p.cols) { fg_w_beta[0u] = beta[(fg_c338) / 4u][(fg_c338) % 4u]; }
                        if (fg_c338 + 1u < fg_p.cols) { fg_w_beta[1u] = beta[(fg_c338 + 1u) / 4u][(fg_c338 + 1u) % 4u]; }
                        if (fg_c338 + 2u < fg_p.cols) { fg_w_beta[2u] = beta[(fg_c338 + 2u) / 4u][(fg_c338 + 2u) % 4u]; }
                        if (fg_c338 + 3u < fg_p.cols) { fg_w_beta[3u] = beta[(fg_c338 + 3u) / 4u][(fg_c338 + 3u) % 4u]; }
                    }
                    var fg_o_y: array<f32, 4> = array<f32, 4>();
                    if (fg_c338 < fg_p.cols) {
                        let fg_t339: f32 = (fg_v_x[fg_k * 4u] - fg_t298);  // (x - (row_sum(x) / f32(cols)))
                        let fg_t340: f32 = (fg_t339 * fg_t303);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                        let fg_t341: f32 = (fg_t340 * fg_w_gamma[0u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                        let fg_t342: f32 = (fg_t341 + fg_w_beta[0u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                        fg_o_y[0u] = fg_t342;
                    }
                    if (fg_c338 + 1u < fg_p.cols) {
                        let fg_t343: f32 = (fg_v_x[fg_k * 4u + 1u] - fg_t298);  // (x - (row_sum(x) / f32(cols)))
                        let fg_t344: f32 = (fg_t343 * fg_t303);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                        let fg_t345: f32 = (fg_t344 * fg_w_gamma[1u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                        let fg_t346: f32 = (fg_t345 + fg_w_beta[1u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                        fg_o_y[1u] = fg_t346;
                    }
                    if (fg_c338 + 2u < fg_p.cols) {
                        let fg_t347: f32 = (fg_v_x[fg_k * 4u + 2u] - fg_t298);  // (x - (row_sum(x) / f32(cols)))
                        let fg_t348: f32 = (fg_t347 * fg_t303);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                        let fg_t349: f32 = (fg_t348 * fg_w_gamma[2u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                        let fg_t350: f32 = (fg_t349 + fg_w_beta[2u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                        fg_o_y[2u] = fg_t350;
                    }
                    if (fg_c338 + 3u < fg_p.cols) {
                        let fg_t351: f32 = (fg_v_x[fg_k * 4u + 3u] - fg_t298);  // (x - (row_sum(x) / f32(cols)))
                        let fg_t352: f32 = (fg_t351 * fg_t303);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                        let fg_t353: f32 = (fg_t352 * fg_w_gamma[3u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                        let fg_t354: f32 = (fg_t353 + fg_w_beta[3u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                        fg_o_y[3u] = fg_t354;
                    }
                    if (fg_active) {
                        if (fg_vec_ok && fg_c338 + 4u <= fg_p.cols) {
                            y[(fg_base + fg_c338) / 4u] = vec4<f32>(fg_o_y[0u], fg_o_y[1u], fg_o_y[2u], fg_o_y[3u]);
                        } else {
                            if (fg_c338 < fg_p.cols) { y[(fg_base + fg_c338) / 4u][(fg_base + fg_c338) % 4u] = fg_o_y[0u]; }
                            if (fg_c338 + 1u < fg_p.cols) { y[(fg_base + fg_c338 + 1u) / 4u][(fg_base + fg_c338 + 1u) % 4u] = fg_o_y[1u]; }
                            if (fg_c338 + 2u < fg_p.cols) { y[(fg_base + fg_c338 + 2u) / 4u][(fg_base + fg_c338 + 2u) % 4u] = fg_o_y[2u]; }
                            if (fg_c338 + 3u < fg_p.cols) { y[(fg_base + fg_c338 + 3u) / 4u][(fg_base + fg_c338 + 3u) % 4u] = fg_o_y[3u]; }
                        }
                    }
                }
                {
                    const fg_k: u32 = 3u;
                    let fg_c355: u32 = 0u + (fg_k * 256u + fg_tx) * 4u;
                    var fg_w_gamma: array<f32, 4> = array<f32, 4>();
                    if (fg_vec_ok && fg_c355 + 4u <= fg_p.cols) {
                        let fg_q: vec4<f32> = gamma[(fg_c355) / 4u];
                        fg_w_gamma[0u] = fg_q.x;
                        fg_w_gamma[1u] = fg_q.y;
                        fg_w_gamma[2u] = fg_q.z;
                        fg_w_gamma[3u] = fg_q.w;
                    } else {
                        if (fg_c355 < fg_p.cols) { fg_w_gamma[0u] = gamma[(fg_c355) / 4u][(fg_c355) % 4u]; }
                        if (fg_c355 + 1u < fg_p.cols) { fg_w_gamma[1u] = gamma[(fg_c355 + 1u) / 4u][(fg_c355 + 1u) % 4u]; }
                        if (fg_c355 + 2u < fg_p.cols) { fg_w_gamma[2u] = gamma[(fg_c355 + 2u) / 4u][(fg_c355 + 2u) % 4u]; }
                        if (fg_c355 + 3u < fg_p.cols) { fg_w_gamma[3u] = gamma[(fg_c355 + 3u) / 4u][(fg_c355 + 3u) % 4u]; }
                    }
                    var fg_w_beta: array<f32, 4> = array<f32, 4>();
                    if (fg_vec_ok && fg_c355 + 4u <= fg_p.cols) {
                        let fg_q: vec4<f32> = beta[(fg_c355) / 4u];
                        fg_w_beta[0u] = fg_q.x;
                        fg_w_beta[1u] = fg_q.y;
                        fg_w_beta[2u] = fg_q.z;
                        fg_w_beta[3u] = fg_q.w;
                    } else {
                        if (fg_c355 < fg_p.cols) { fg_w_beta[0u] = beta[(fg_c355) / 4u][(fg_c355) % 4u]; }
                        if (fg_c355 + 1u < fg_p.cols) { fg_w_beta[1u] = beta[(fg_c355 + 1u) / 4u][(fg_c355 + 1u) % 4u]; }
                        if (fg_c355 + 2u < fg_p.cols) { fg_w_beta[2u] = beta[(fg_c355 + 2u) / 4u][(fg_c355 + 2u) % 4u]; }
                        if (fg_c355 + 3u < fg_p.cols) { fg_w_beta[3u] = beta[(fg_c355 + 3u) / 4u][(fg_c355 + 3u) % 4u]; }
                    }
                    var fg_o_y: array<f32, 4> = array<f32, 4>();
                    if (fg_c355 < fg_p.cols) {
                        let fg_t356: f32 = (fg_v_x[fg_k * 4u] - fg_t298);  // (x - (row_sum(x) / f32(cols)))
                        let fg_t357: f32 = (fg_t356 * fg_t303);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                        let fg_t358: f32 = (fg_t357 * fg_w_gamma[0u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                        let fg_t359: f32 = (fg_t358 + fg_w_beta[0u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                        fg_o_y[0u] = fg_t359;
                    }
                    if (fg_c355 + 1u < fg_p.cols) {
                        let fg_t360: f32 = (fg_v_x[fg_k * 4u + 1u] - fg_t298);  // (x - (row_sum(x) / f32(cols)))
                        let fg_t361: f32 = (fg_t360 * fg_t303);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                        let fg_t362: f32 = (fg_t361 * fg_w_gamma[1u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                        let fg_t363: f32 = (fg_t362 + fg_w_beta[1u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                        fg_o_y[1u] = fg_t363;
                    }
                    if (fg_c355 + 2u < fg_p.cols) {
                        let fg_t364: f32 = (fg_v_x[fg_k * 4u + 2u] - fg_t298);  // (x - (row_sum(x) / f32(cols)))
                        let fg_t365: f32 = (fg_t364 * fg_t303);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                        let fg_t366: f32 = (fg_t365 * fg_w_gamma[2u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                        let fg_t367: f32 = (fg_t366 + fg_w_beta[2u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                        fg_o_y[2u] = fg_t367;
                    }
                    if (fg_c355 + 3u < fg_p.cols) {
                        let fg_t368: f32 = (fg_v_x[fg_k * 4u + 3u] - fg_t298);  // (x - (row_sum(x) / f32(cols)))
                        let fg_t369: f32 = (fg_t368 * fg_t303);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                        let fg_t370: f32 = (fg_t369 * fg_w_gamma[3u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                        let fg_t371: f32 = (fg_t370 + fg_w_beta[3u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                        fg_o_y[3u] = fg_t371;
                    }
                    if (fg_active) {
                        if (fg_vec_ok && fg_c355 + 4u <= fg_p.cols) {
                            y[(fg_base + fg_c355) / 4u] = vec4<f32>(fg_o_y[0u], fg_o_y[1u], fg_o_y[2u], fg_o_y[3u]);
                        } else {
                            if (fg_c355 < fg_p.cols) { y[(fg_base + fg_c355) / 4u][(fg_base + fg_c355) % 4u] = fg_o_y[0u]; }
                            if (fg_c355 + 1u < fg_p.cols) { y[(fg_base + fg_c355 + 1u) / 4u][(fg_base + fg_c355 + 1u) % 4u] = fg_o_y[1u]; }
                            if (fg_c355 + 2u < fg_p.cols) { y[(fg_base + fg_c355 + 2u) / 4u][(fg_base + fg_c355 + 2u) % 4u] = fg_o_y[2u]; }
                            if (fg_c355 + 3u < fg_p.cols) { y[(fg_base + fg_c355 + 3u) / 4u][(fg_base + fg_c355 + 3u) % 4u] = fg_o_y[3u]; }
                        }
                    }
                }
            } else {
                // looped: each level sweeps the row again
                // row_sum(x) and row_sum(((x - (row_sum(x) / f32(cols))) * (x - (row_sum(x) / f32(cols... as moments: one sweep
                var fg_k372: f32 = 0.0f;
                if (fg_p.cols > 0u) {
                    let fg_at373: f32 = x[(fg_base) / 4u][(fg_base) % 4u];
                    let fg_at374: f32 = x[(fg_base + fg_p.cols / 2u) / 4u][(fg_base + fg_p.cols / 2u) % 4u];
                    let fg_at375: f32 = x[(fg_base + fg_p.cols - 1u) / 4u][(fg_base + fg_p.cols - 1u) % 4u];
                    let fg_b376: u32 = min((firstLeadingBit(fg_p.cols) - firstTrailingBit(fg_p.cols) + 1u), 23u);
                    fg_k372 = bitcast<f32>(bitcast<u32>(max(min(fg_at373, fg_at374), min(max(fg_at373, fg_at374), fg_at375))) & (0xffffffffu << fg_b376));
                }
                var fg_n377: f32 = 0.0f;
                var fg_s378: f32 = 0.0f;
                var fg_q379: f32 = 0.0f;
                for (var fg_off: u32 = 0u; fg_off < fg_p.cols; fg_off += 4096u) {
                    var fg_v_x: array<f32, 16> = array<f32, 16>();
                    {
                        const fg_k: u32 = 0u;
                        let fg_c380: u32 = fg_off + (fg_k * 256u + fg_tx) * 4u;
                        if (fg_vec_ok && fg_c380 + 4u <= fg_p.cols) {
                            let fg_q: vec4<f32> = x[(fg_base + fg_c380) / 4u];
                            fg_v_x[fg_k * 4u] = fg_q.x;
                            fg_v_x[fg_k * 4u + 1u] = fg_q.y;
                            fg_v_x[fg_k * 4u + 2u] = fg_q.z;
                            fg_v_x[fg_k * 4u + 3u] = fg_q.w;
                        } else {
                            if (fg_c380 < fg_p.cols) { fg_v_x[fg_k * 4u] = x[(fg_base + fg_c380) / 4u][(fg_base + fg_c380) % 4u]; }
                            if (fg_c380 + 1u < fg_p.cols) { fg_v_x[fg_k * 4u + 1u] = x[(fg_base + fg_c380 + 1u) / 4u][(fg_base + fg_c380 + 1u) % 4u]; }
                            if (fg_c380 + 2u < fg_p.cols) { fg_v_x[fg_k * 4u + 2u] = x[(fg_base + fg_c380 + 2u) / 4u][(fg_base + fg_c380 + 2u) % 4u]; }
                            if (fg_c380 + 3u < fg_p.cols) { fg_v_x[fg_k * 4u + 3u] = x[(fg_base + fg_c380 + 3u) / 4u][(fg_base + fg_c380 + 3u) % 4u]; }
                        }
                    }
                    {
                        const fg_k: u32 = 1u;
                        let fg_c381: u32 = fg_off + (fg_k * 256u + fg_tx) * 4u;
                        if (fg_vec_ok && fg_c381 + 4u <= fg_p.cols) {
                            let fg_q: vec4<f32> = x[(fg_base + fg_c381) / 4u];
                            fg_v_x[fg_k * 4u] = fg_q.x;
                            fg_v_x[fg_k * 4u + 1u] = fg_q.y;
                            fg_v_x[fg_k * 4u + 2u] = fg_q.z;
                            fg_v_x[fg_k * 4u + 3u] = fg_q.w;
                        } else {
                            if (fg_c381 < fg_p.cols) { fg_v_x[fg_k * 4u] = x[(fg_base + fg_c381) / 4u][(fg_base + fg_c381) % 4u]; }
                            if (fg_c381 + 1u < fg_p.cols) { fg_v_x[fg_k * 4u + 1u] = x[(fg_base + fg_c381 + 1u) / 4u][(fg_base + fg_c381 + 1u) % 4u]; }
                            if (fg_c381 + 2u < fg_p.cols) { fg_v_x[fg_k * 4u + 2u] = x[(fg_base + fg_c381 + 2u) / 4u][(fg_base + fg_c381 + 2u) % 4u]; }
                            if (fg_c381 + 3u < fg_p.cols) { fg_v_x[fg_k * 4u + 3u] = x[(fg_base + fg_c381 + 3u) / 4u][(fg_base + fg_c381 + 3u) % 4u]; }
                        }
                    }
                    {
                        const fg_k: u32 = 2u;
                        let fg_c382: u32 = fg_off + (fg_k * 256u + fg_tx) * 4u;
                        if (fg_vec_ok && fg_c382 + 4u <= fg_p.cols) {
                            let fg_q: vec4<f32> = x[(fg_base + fg_c382) / 4u];
                            fg_v_x[fg_k * 4u] = fg_q.x;
                            fg_v_x[fg_k * 4u + 1u] = fg_q.y;
                            fg_v_x[fg_k * 4u + 2u] = fg_q.z;
                            fg_v_x[fg_k * 4u + 3u] = fg_q.w;
                        } else {
                            if (fg_c382 < fg_p.cols) { fg_v_x[fg_k * 4u] = x[(fg_base + fg_c382) / 4u][(fg_base + fg_c382) % 4u]; }
                            if (fg_c382 + 1u < fg_p.cols) { fg_v_x[fg_k * 4u + 1u] = x[(fg_base + fg_c382 + 1u) / 4u][(fg_base + fg_c382 + 1u) % 4u]; }
                            if (fg_c382 + 2u < fg_p.cols) { fg_v_x[fg_k * 4u + 2u] = x[(fg_base + fg_c382 + 2u) / 4u][(fg_base + fg_c382 + 2u) % 4u]; }
                            if (fg_c382 + 3u < fg_p.cols) { fg_v_x[fg_k * 4u + 3u] = x[(fg_base + fg_c382 + 3u) / 4u][(fg_base + fg_c382 + 3u) % 4u]; }
                        }
                    }
                    {
                        const fg_k: u32 = 3u;
                        let fg_c383: u32 = fg_off + (fg_k * 256u + fg_tx) * 4u;
                        if (fg_vec_ok && fg_c383 + 4u <= fg_p.cols) {
                            let fg_q: vec4<f32> = x[(fg_base + fg_c383) / 4u];
                            fg_v_x[fg_k * 4u] = fg_q.x;
                            fg_v_x[fg_k * 4u + 1u] = fg_q.y;
                            fg_v_x[fg_k * 4u + 2u] = fg_q.z;
                            fg_v_x[fg_k * 4u + 3u] = fg_q.w;
                        } else {
                            if (fg_c383 < fg_p.cols) { fg_v_x[fg_k * 4u] = x[(fg_base + fg_c383) / 4u][(fg_base + fg_c383) % 4u]; }
                            if (fg_c383 + 1u < fg_p.cols) { fg_v_x[fg_k * 4u + 1u] = x[(fg_base + fg_c383 + 1u) / 4u][(fg_base + fg_c383 + 1u) % 4u]; }
                            if (fg_c383 + 2u < fg_p.cols) { fg_v_x[fg_k * 4u + 2u] = x[(fg_base + fg_c383 + 2u) / 4u][(fg_base + fg_c383 + 2u) % 4u]; }
                            if (fg_c383 + 3u < fg_p.cols) { fg_v_x[fg_k * 4u + 3u] = x[(fg_base + fg_c383 + 3u) / 4u][(fg_base + fg_c383 + 3u) % 4u]; }
                        }
                    }
                    var fg_c384: f32 = 0.0f;
                    var fg_s385: f32 = 0.0f;
                    {
                        const fg_k: u32 = 0u;
                        let fg_c386: u32 = fg_off + (fg_k * 256u + fg_tx) * 4u;
                        if (fg_c386 < fg_p.cols) {
                            fg_c384 = fg_c384 + 1.0f;
                            fg_s385 = fg_s385 + (fg_v_x[fg_k * 4u] - fg_k372);
                        }
                        if (fg_c386 + 1u < fg_p.cols) {
                            fg_c384 = fg_c384 + 1.0f;
                            fg_s385 = fg_s385 + (fg_v_x[fg_k * 4u + 1u] - fg_k372);
                        }
                        if (fg_c386 + 2u < fg_p.cols) {
                            fg_c384 = fg_c384 + 1.0f;
                            fg_s385 = fg_s385 + (fg_v_x[fg_k * 4u + 2u] - fg_k372);
                        }
                        if (fg_c386 + 3u < fg_p.cols) {
                            fg_c384 = fg_c384 + 1.0f;
                            fg_s385 = fg_s385 + (fg_v_x[fg_k * 4u + 3u] - fg_k372);
                        }
                    }
                    {
                        const fg_k: u32 = 1u;
                        let fg_c387: u32 = fg_off + (fg_k * 256u + fg_tx) * 4u;
                        if (fg_c387 < fg_p.cols) {
                            fg_c384 = fg_c384 + 1.0f;
                            fg_s385 = fg_s385 + (fg_v_x[fg_k * 4u] - fg_k372);
                        }
                        if (fg_c387 + 1u < fg_p.cols) {
                            fg_c384 = fg_c384 + 1.0f;
                            fg_s385 = fg_s385 + (fg_v_x[fg_k * 4u + 1u] - fg_k372);
                        }
                        if (fg_c387 + 2u < fg_p.cols) {
                            fg_c384 = fg_c384 + 1.0f;
                            fg_s385 = fg_s385 + (fg_v_x[fg_k * 4u + 2u] - fg_k372);
                        }
                        if (fg_c387 + 3u < fg_p.cols) {
                            fg_c384 = fg_c384 + 1.0f;
                            fg_s385 = fg_s385 + (fg_v_x[fg_k * 4u + 3u] - fg_k372);
                        }
                    }
                    {
                        const fg_k: u32 = 2u;
                        let fg_c388: u32 = fg_off + (fg_k * 256u + fg_tx) * 4u;
                        if (fg_c388 < fg_p.cols) {
                            fg_c384 = fg_c384 + 1.0f;
                            fg_s385 = fg_s385 + (fg_v_x[fg_k * 4u] - fg_k372);
                        }
                        if (fg_c388 + 1u < fg_p.cols) {
                            fg_c384 = fg_c384 + 1.0f;
                            fg_s385 = fg_s385 + (fg_v_x[fg_k * 4u + 1u] - fg_k372);
                        }
                        if (fg_c388 + 2u < fg_p.cols) {
                            fg_c384 = fg_c384 + 1.0f;
                            fg_s385 = fg_s385 + (fg_v_x[fg_k * 4u + 2u] - fg_k372);
                        }
                        if (fg_c388 + 3u < fg_p.cols) {
                            fg_c384 = fg_c384 + 1.0f;
                            fg_s385 = fg_s385 + (fg_v_x[fg_k * 4u + 3u] - fg_k372);
                        }
                    }
                    {
                        const fg_k: u32 = 3u;
                        let fg_c389: u32 = fg_off + (fg_k * 256u + fg_tx) * 4u;
                        if (fg_c389 < fg_p.cols) {
                            fg_c384 = fg_c384 + 1.0f;
                            fg_s385 = fg_s385 + (fg_v_x[fg_k * 4u] - fg_k372);
                        }
                        if (fg_c389 + 1u < fg_p.cols) {
                            fg_c384 = fg_c384 + 1.0f;
                            fg_s385 = fg_s385 + (fg_v_x[fg_k * 4u + 1u] - fg_k372);
                        }
                        if (fg_c389 + 2u < fg_p.cols) {
                            fg_c384 = fg_c384 + 1.0f;
                            fg_s385 = fg_s385 + (fg_v_x[fg_k * 4u + 2u] - fg_k372);
                        }
                        if (fg_c389 + 3u < fg_p.cols) {
                            fg_c384 = fg_c384 + 1.0f;
                            fg_s385 = fg_s385 + (fg_v_x[fg_k * 4u + 3u] - fg_k372);
                        }
                    }
                    let fg_mean390: f32 = (fg_s385 / max(fg_c384, 1.0f));
                    let fg_m391: f32 = (fg_k372 + fg_mean390);
                    var fg_q392: f32 = 0.0f;
                    {
                        const fg_k: u32 = 0u;
                        let fg_c393: u32 = fg_off + (fg_k * 256u + fg_tx) * 4u;
                        if (fg_c393 < fg_p.cols) {
                            let fg_t394: f32 = (fg_v_x[fg_k * 4u] - fg_m391);
                            fg_q392 = fg_q392 + fg_t394 * fg_t394;
                        }
                        if (fg_c393 + 1u < fg_p.cols) {
                            let fg_t395: f32 = (fg_v_x[fg_k * 4u + 1u] - fg_m391);
                            fg_q392 = fg_q392 + fg_t395 * fg_t395;
                        }
                        if (fg_c393 + 2u < fg_p.cols) {
                            let fg_t396: f32 = (fg_v_x[fg_k * 4u + 2u] - fg_m391);
                            fg_q392 = fg_q392 + fg_t396 * fg_t396;
                        }
                        if (fg_c393 + 3u < fg_p.cols) {
                            let fg_t397: f32 = (fg_v_x[fg_k * 4u + 3u] - fg_m391);
                            fg_q392 = fg_q392 + fg_t397 * fg_t397;
                        }
                    }
                    {
                        const fg_k: u32 = 1u;
                        let fg_c398: u32 = fg_off + (fg_k * 256u + fg_tx) * 4u;
                        if (fg_c398 < fg_p.cols) {
                            let fg_t399: f32 = (fg_v_x[fg_k * 4u] - fg_m391);
                            fg_q392 = fg_q392 + fg_t399 * fg_t399;
                        }
                        if (fg_c398 + 1u < fg_p.cols) {
                            let fg_t400: f32 = (fg_v_x[fg_k * 4u + 1u] - fg_m391);
                            fg_q392 = fg_q392 + fg_t400 * fg_t400;
                        }
                        if (fg_c398 + 2u < fg_p.cols) {
                            let fg_t401: f32 = (fg_v_x[fg_k * 4u + 2u] - fg_m391);
                            fg_q392 = fg_q392 + fg_t401 * fg_t401;
                        }
                        if (fg_c398 + 3u < fg_p.cols) {
                            let fg_t402: f32 = (fg_v_x[fg_k * 4u + 3u] - fg_m391);
                            fg_q392 = fg_q392 + fg_t402 * fg_t402;
                        }
                    }
                    {
                        const fg_k: u32 = 2u;
                        let fg_c403: u32 = fg_off + (fg_k * 256u + fg_tx) * 4u;
                        if (fg_c403 < fg_p.cols) {
                            let fg_t404: f32 = (fg_v_x[fg_k * 4u] - fg_m391);
                            fg_q392 = fg_q392 + fg_t404 * fg_t404;
                        }
                        if (fg_c403 + 1u < fg_p.cols) {
                            let fg_t405: f32 = (fg_v_x[fg_k * 4u + 1u] - fg_m391);
                            fg_q392 = fg_q392 + fg_t405 * fg_t405;
                        }
                        if (fg_c403 + 2u < fg_p.cols) {
                            let fg_t406: f32 = (fg_v_x[fg_k * 4u + 2u] - fg_m391);
                            fg_q392 = fg_q392 + fg_t406 * fg_t406;
                        }
                        if (fg_c403 + 3u < fg_p.cols) {
                            let fg_t407: f32 = (fg_v_x[fg_k * 4u + 3u] - fg_m391);
                            fg_q392 = fg_q392 + fg_t407 * fg_t407;
                        }
                    }
                    {
                        const fg_k: u32 = 3u;
                        let fg_c408: u32 = fg_off + (fg_k * 256u + fg_tx) * 4u;
                        if (fg_c408 < fg_p.cols) {
                            let fg_t409: f32 = (fg_v_x[fg_k * 4u] - fg_m391);
                            fg_q392 = fg_q392 + fg_t409 * fg_t409;
                        }
                        if (fg_c408 + 1u < fg_p.cols) {
                            let fg_t410: f32 = (fg_v_x[fg_k * 4u + 1u] - fg_m391);
                            fg_q392 = fg_q392 + fg_t410 * fg_t410;
                        }
                        if (fg_c408 + 2u < fg_p.cols) {
                            let fg_t411: f32 = (fg_v_x[fg_k * 4u + 2u] - fg_m391);
                            fg_q392 = fg_q392 + fg_t411 * fg_t411;
                        }
                        if (fg_c408 + 3u < fg_p.cols) {
                            let fg_t412: f32 = (fg_v_x[fg_k * 4u + 3u] - fg_m391);
                            fg_q392 = fg_q392 + fg_t412 * fg_t412;
                        }
                    }
                    let fg_g413: f32 = ((fg_k372 - fg_m391) + fg_mean390);
                    let fg_q414: f32 = max((fg_q392 - (fg_c384 * fg_g413) * fg_g413), 0.0f);
                    let fg_s415: f32 = (fg_s378 + fg_s385);
                    let fg_n416: f32 = (fg_n377 + fg_c384);
                    let fg_g417: f32 = ((fg_s385 / max(fg_c384, 1.0f)) - (fg_s378 / max(fg_n377, 1.0f)));
                    let fg_q418: f32 = ((fg_q379 + fg_q414) + (fg_g417 * fg_g417) * ((fg_n377 * fg_c384) / max(fg_n416, 1.0f)));
                    fg_n377 = fg_n416;
                    fg_s378 = fg_s415;
                    fg_q379 = fg_q418;
                }
                fg_red_f32[0u + fg_ty * 256u + fg_tx] = fg_n377;
                fg_red_f32[256u + fg_ty * 256u + fg_tx] = fg_s378;
                fg_red_f32[512u + fg_ty * 256u + fg_tx] = fg_q379;
                workgroupBarrier();
                if (fg_tx < 128u) {
                    let fg_p419: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx];
                    let fg_p420: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx + 128u];
                    let fg_p421: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx];
                    let fg_p422: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx + 128u];
                    let fg_p423: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx];
                    let fg_p424: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx + 128u];
                    let fg_s425: f32 = (fg_p421 + fg_p422);
                    let fg_n426: f32 = (fg_p419 + fg_p420);
                    let fg_g427: f32 = ((fg_p422 / max(fg_p420, 1.0f)) - (fg_p421 / max(fg_p419, 1.0f)));
                    let fg_q428: f32 = ((fg_p423 + fg_p424) + (fg_g427 * fg_g427) * ((fg_p419 * fg_p420) / max(fg_n426, 1.0f)));
                    fg_red_f32[0u + fg_ty * 256u + fg_tx] = fg_n426;
                    fg_red_f32[256u + fg_ty * 256u + fg_tx] = fg_s425;
                    fg_red_f32[512u + fg_ty * 256u + fg_tx] = fg_q428;
                }
                workgroupBarrier();
                if (fg_tx < 64u) {
                    let fg_p429: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx];
                    let fg_p430: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx + 64u];
                    let fg_p431: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx];
                    let fg_p432: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx + 64u];
                    let fg_p433: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx];
                    let fg_p434: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx + 64u];
                    let fg_s435: f32 = (fg_p431 + fg_p432);
                    let fg_n436: f32 = (fg_p429 + fg_p430);
                    let fg_g437: f32 = ((fg_p432 / max(fg_p430, 1.0f)) - (fg_p431 / max(fg_p429, 1.0f)));
                    let fg_q438: f32 = ((fg_p433 + fg_p434) + (fg_g437 * fg_g437) * ((fg_p429 * fg_p430) / max(fg_n436, 1.0f)));
                    fg_red_f32[0u + fg_ty * 256u + fg_tx] = fg_n436;
                    fg_red_f32[256u + fg_ty * 256u + fg_tx] = fg_s435;
                    fg_red_f32[512u + fg_ty * 256u + fg_tx] = fg_q438;
                }
                workgroupBarrier();
                if (fg_tx < 32u) {
                    let fg_p439: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx];
                    let fg_p440: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx + 32u];
                    let fg_p441: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx];
                    let fg_p442: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx + 32u];
                    let fg_p443: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx];
                    let fg_p444: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx + 32u];
                    let fg_s445: f32 = (fg_p441 + fg_p442);
                    let fg_n446: f32 = (fg_p439 + fg_p440);
                    let fg_g447: f32 = ((fg_p442 / max(fg_p440, 1.0f)) - (fg_p441 / max(fg_p439, 1.0f)));
                    let fg_q448: f32 = ((fg_p443 + fg_p444) + (fg_g447 * fg_g447) * ((fg_p439 * fg_p440) / max(fg_n446, 1.0f)));
                    fg_red_f32[0u + fg_ty * 256u + fg_tx] = fg_n446;
                    fg_red_f32[256u + fg_ty * 256u + fg_tx] = fg_s445;
                    fg_red_f32[512u + fg_ty * 256u + fg_tx] = fg_q448;
                }
                workgroupBarrier();
                if (fg_tx < 16u) {
                    let fg_p449: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx];
                    let fg_p450: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx + 16u];
                    let fg_p451: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx];
                    let fg_p452: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx + 16u];
                    let fg_p453: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx];
                    let fg_p454: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx + 16u];
                    let fg_s455: f32 = (fg_p451 + fg_p452);
                    let fg_n456: f32 = (fg_p449 + fg_p450);
                    let fg_g457: f32 = ((fg_p452 / max(fg_p450, 1.0f)) - (fg_p451 / max(fg_p449, 1.0f)));
                    let fg_q458: f32 = ((fg_p453 + fg_p454) + (fg_g457 * fg_g457) * ((fg_p449 * fg_p450) / max(fg_n456, 1.0f)));
                    fg_red_f32[0u + fg_ty * 256u + fg_tx] = fg_n456;
                    fg_red_f32[256u + fg_ty * 256u + fg_tx] = fg_s455;
                    fg_red_f32[512u + fg_ty * 256u + fg_tx] = fg_q458;
                }
                workgroupBarrier();
                if (fg_tx < 8u) {
                    let fg_p459: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx];
                    let fg_p460: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx + 8u];
                    let fg_p461: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx];
                    let fg_p462: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx + 8u];
                    let fg_p463: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx];
                    let fg_p464: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx + 8u];
                    let fg_s465: f32 = (fg_p461 + fg_p462);
                    let fg_n466: f32 = (fg_p459 + fg_p460);
                    let fg_g467: f32 = ((fg_p462 / max(fg_p460, 1.0f)) - (fg_p461 / max(fg_p459, 1.0f)));
                    let fg_q468: f32 = ((fg_p463 + fg_p464) + (fg_g467 * fg_g467) * ((fg_p459 * fg_p460) / max(fg_n466, 1.0f)));
                    fg_red_f32[0u + fg_ty * 256u + fg_tx] = fg_n466;
                    fg_red_f32[256u + fg_ty * 256u + fg_tx] = fg_s465;
                    fg_red_f32[512u + fg_ty * 256u + fg_tx] = fg_q468;
                }
                workgroupBarrier();
                if (fg_tx < 4u) {
                    let fg_p469: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx];
                    let fg_p470: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx + 4u];
                    let fg_p471: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx];
                    let fg_p472: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx + 4u];
                    let fg_p473: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx];
                    let fg_p474: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx + 4u];
                    let fg_s475: f32 = (fg_p471 + fg_p472);
                    let fg_n476: f32 = (fg_p469 + fg_p470);
                    let fg_g477: f32 = ((fg_p472 / max(fg_p470, 1.0f)) - (fg_p471 / max(fg_p469, 1.0f)));
                    let fg_q478: f32 = ((fg_p473 + fg_p474) + (fg_g477 * fg_g477) * ((fg_p469 * fg_p470) / max(fg_n476, 1.0f)));
                    fg_red_f32[0u + fg_ty * 256u + fg_tx] = fg_n476;
                    fg_red_f32[256u + fg_ty * 256u + fg_tx] = fg_s475;
                    fg_red_f32[512u + fg_ty * 256u + fg_tx] = fg_q478;
                }
                workgroupBarrier();
                if (fg_tx < 2u) {
                    let fg_p479: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx];
                    let fg_p480: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx + 2u];
                    let fg_p481: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx];
                    let fg_p482: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx + 2u];
                    let fg_p483: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx];
                    let fg_p484: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx + 2u];
                    let fg_s485: f32 = (fg_p481 + fg_p482);
                    let fg_n486: f32 = (fg_p479 + fg_p480);
                    let fg_g487: f32 = ((fg_p482 / max(fg_p480, 1.0f)) - (fg_p481 / max(fg_p479, 1.0f)));
                    let fg_q488: f32 = ((fg_p483 + fg_p484) + (fg_g487 * fg_g487) * ((fg_p479 * fg_p480) / max(fg_n486, 1.0f)));
                    fg_red_f32[0u + fg_ty * 256u + fg_tx] = fg_n486;
                    fg_red_f32[256u + fg_ty * 256u + fg_tx] = fg_s485;
                    fg_red_f32[512u + fg_ty * 256u + fg_tx] = fg_q488;
                }
                workgroupBarrier();
                if (fg_tx < 1u) {
                    let fg_p489: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx];
                    let fg_p490: f32 = fg_red_f32[0u + fg_ty * 256u + fg_tx + 1u];
                    let fg_p491: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx];
                    let fg_p492: f32 = fg_red_f32[256u + fg_ty * 256u + fg_tx + 1u];
                    let fg_p493: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx];
                    let fg_p494: f32 = fg_red_f32[512u + fg_ty * 256u + fg_tx + 1u];
                    let fg_s495: f32 = (fg_p491 + fg_p492);
                    let fg_n496: f32 = (fg_p489 + fg_p490);
                    let fg_g497: f32 = ((fg_p492 / max(fg_p490, 1.0f)) - (fg_p491 / max(fg_p489, 1.0f)));
                    let fg_q498: f32 = ((fg_p493 + fg_p494) + (fg_g497 * fg_g497) * ((fg_p489 * fg_p490) / max(fg_n496, 1.0f)));
                    fg_red_f32[0u + fg_ty * 256u + fg_tx] = fg_n496;
                    fg_red_f32[256u + fg_ty * 256u + fg_tx] = fg_s495;
                    fg_red_f32[512u + fg_ty * 256u + fg_tx] = fg_q498;
                }
                workgroupBarrier();
                let fg_r499: f32 = fg_red_f32[256u + fg_ty * 256u + 0u];
                let fg_r500: f32 = fg_red_f32[512u + fg_ty * 256u + 0u];
                let fg_r501: f32 = fg_red_f32[0u + fg_ty * 256u + 0u];
                workgroupBarrier();
                let fg_r502: f32 = (f32(fg_p.cols) * fg_k372 + fg_r499);
                let fg_t503: f32 = (fg_r502 / fg_t1);  // (row_sum(x) / f32(cols))
                let fg_g504: f32 = ((fg_k372 - fg_t503) + (fg_r499 / max(fg_r501, 1.0f)));
                let fg_r505: f32 = select(0.0f, (fg_r500 + (fg_r501 * fg_g504) * fg_g504), fg_r501 > 0.0f);
                let fg_t506: f32 = (fg_r505 / fg_t1);  // (row_sum(((x - (row_sum(x) / f32(cols))) * (x - (row_sum(x) / f32(col...
                let fg_t507: f32 = (fg_t506 + fg_p.eps);  // ((row_sum(((x - (row_sum(x) / f32(cols))) * (x - (row_sum(x) / f32(co...
                let fg_t508: f32 = inverseSqrt(fg_t507);  // rsqrt(((row_sum(((x - (row_sum(x) / f32(cols))) * (x - (row_sum(x) / ...
                for (var fg_off: u32 = 0u; fg_off < fg_p.cols; fg_off += 4096u) {
                    var fg_v_x: array<f32, 16> = array<f32, 16>();
                    {
                        const fg_k: u32 = 0u;
                        let fg_c509: u32 = fg_off + (fg_k * 256u + fg_tx) * 4u;
                        if (fg_vec_ok && fg_c509 + 4u <= fg_p.cols) {
                            let fg_q: vec4<f32> = x[(fg_base + fg_c509) / 4u];
                            fg_v_x[fg_k * 4u] = fg_q.x;
                            fg_v_x[fg_k * 4u + 1u] = fg_q.y;
                            fg_v_x[fg_k * 4u + 2u] = fg_q.z;
                            fg_v_x[fg_k * 4u + 3u] = fg_q.w;
                        } else {
                            if (fg_c509 < fg_p.cols) { fg_v_x[fg_k * 4u] = x[(fg_base + fg_c509) / 4u][(fg_base + fg_c509) % 4u]; }
                            if (fg_c509 + 1u < fg_p.cols) { fg_v_x[fg_k * 4u + 1u] = x[(fg_base + fg_c509 + 1u) / 4u][(fg_base + fg_c509 + 1u) % 4u]; }
                            if (fg_c509 + 2u < fg_p.cols) { fg_v_x[fg_k * 4u + 2u] = x[(fg_base + fg_c509 + 2u) / 4u][(fg_base + fg_c509 + 2u) % 4u]; }
                            if (fg_c509 + 3u < fg_p.cols) { fg_v_x[fg_k * 4u + 3u] = x[(fg_base + fg_c509 + 3u) / 4u][(fg_base + fg_c509 + 3u) % 4u]; }
                        }
                    }
                    {
                        const fg_k: u32 = 1u;
                        let fg_c510: u32 = fg_off + (fg_k * 256u + fg_tx) * 4u;
                        if (fg_vec_ok && fg_c510 + 4u <= fg_p.cols) {
                            let fg_q: vec4<f32> = x[(fg_base + fg_c510) / 4u];
                            fg_v_x[fg_k * 4u] = fg_q.x;
                            fg_v_x[fg_k * 4u + 1u] = fg_q.y;
                            fg_v_x[fg_k * 4u + 2u] = fg_q.z;
                            fg_v_x[fg_k * 4u + 3u] = fg_q.w;
                        } else {
                            if (fg_c510 < fg_p.cols) { fg_v_x[fg_k * 4u] = x[(fg_base + fg_c510) / 4u][(fg_base + fg_c510) % 4u]; }
                            if (fg_c510 + 1u < fg_p.cols) { fg_v_x[fg_k * 4u + 1u] = x[(fg_base + fg_c510 + 1u) / 4u][(fg_base + fg_c510 + 1u) % 4u]; }
                            if (fg_c510 + 2u < fg_p.cols) { fg_v_x[fg_k * 4u + 2u] = x[(fg_base + fg_c510 + 2u) / 4u][(fg_base + fg_c510 + 2u) % 4u]; }
                            if (fg_c510 + 3u < fg_p.cols) { fg_v_x[fg_k * 4u + 3u] = x[(fg_base + fg_c510 + 3u) / 4u][(fg_base + fg_c510 + 3u) % 4u]; }
                        }
                    }
                    {
                        const fg_k: u32 = 2u;
                        let fg_c511: u32 = fg_off + (fg_k * 256u + fg_tx) * 4u;
                        if (fg_vec_ok && fg_c511 + 4u <= fg_p.cols) {
                            let fg_q: vec4<f32> = x[(fg_base + fg_c511) / 4u];
                            fg_v_x[fg_k * 4u] = fg_q.x;
                            fg_v_x[fg_k * 4u + 1u] = fg_q.y;
                            fg_v_x[fg_k * 4u + 2u] = fg_q.z;
                            fg_v_x[fg_k * 4u + 3u] = fg_q.w;
                        } else {
                            if (fg_c511 < fg_p.cols) { fg_v_x[fg_k * 4u] = x[(fg_base + fg_c511) / 4u][(fg_base + fg_c511) % 4u]; }
                            if (fg_c511 + 1u < fg_p.cols) { fg_v_x[fg_k * 4u + 1u] = x[(fg_base + fg_c511 + 1u) / 4u][(fg_base + fg_c511 + 1u) % 4u]; }
                            if (fg_c511 + 2u < fg_p.cols) { fg_v_x[fg_k * 4u + 2u] = x[(fg_base + fg_c511 + 2u) / 4u][(fg_base + fg_c511 + 2u) % 4u]; }
                            if (fg_c511 + 3u < fg_p.cols) { fg_v_x[fg_k * 4u + 3u] = x[(fg_base + fg_c511 + 3u) / 4u][(fg_base + fg_c511 + 3u) % 4u]; }
                        }
                    }
                    {
                        const fg_k: u32 = 3u;
                        let fg_c512: u32 = fg_off + (fg_k * 256u + fg_tx) * 4u;
                        if (fg_vec_ok && fg_c512 + 4u <= fg_p.cols) {
                            let fg_q: vec4<f32> = x[(fg_base + fg_c512) / 4u];
                            fg_v_x[fg_k * 4u] = fg_q.x;
                            fg_v_x[fg_k * 4u + 1u] = fg_q.y;
                            fg_v_x[fg_k * 4u + 2u] = fg_q.z;
                            fg_v_x[fg_k * 4u + 3u] = fg_q.w;
                        } else {
                            if (fg_c512 < fg_p.cols) { fg_v_x[fg_k * 4u] = x[(fg_base + fg_c512) / 4u][(fg_base + fg_c512) % 4u]; }
                            if (fg_c512 + 1u < fg_p.cols) { fg_v_x[fg_k * 4u + 1u] = x[(fg_base + fg_c512 + 1u) / 4u][(fg_base + fg_c512 + 1u) % 4u]; }
                            if (fg_c512 + 2u < fg_p.cols) { fg_v_x[fg_k * 4u + 2u] = x[(fg_base + fg_c512 + 2u) / 4u][(fg_base + fg_c512 + 2u) % 4u]; }
                            if (fg_c512 + 3u < fg_p.cols) { fg_v_x[fg_k * 4u + 3u] = x[(fg_base + fg_c512 + 3u) / 4u][(fg_base + fg_c512 + 3u) % 4u]; }
                        }
                    }
                    {
                        const fg_k: u32 = 0u;
                        let fg_c513: u32 = fg_off + (fg_k * 256u + fg_tx) * 4u;
                        var fg_w_gamma: array<f32, 4> = array<f32, 4>();
                        if (fg_vec_ok && fg_c513 + 4u <= fg_p.cols) {
                            let fg_q: vec4<f32> = gamma[(fg_c513) / 4u];
                            fg_w_gamma[0u] = fg_q.x;
                            fg_w_gamma[1u] = fg_q.y;
                            fg_w_gamma[2u] = fg_q.z;
                            fg_w_gamma[3u] = fg_q.w;
                        } else {
                            if (fg_c513 < fg_p.cols) { fg_w_gamma[0u] = gamma[(fg_c513) / 4u][(fg_c513) % 4u]; }
                            if (fg_c513 + 1u < fg_p.cols) { fg_w_gamma[1u] = gamma[(fg_c513 + 1u) / 4u][(fg_c513 + 1u) % 4u]; }
                            if (fg_c513 + 2u < fg_p.cols) { fg_w_gamma[2u] = gamma[(fg_c513 + 2u) / 4u][(fg_c513 + 2u) % 4u]; }
                            if (fg_c513 + 3u < fg_p.cols) { fg_w_gamma[3u] = gamma[(fg_c513 + 3u) / 4u][(fg_c513 + 3u) % 4u]; }
                        }
                        var fg_w_beta: array<f32, 4> = array<f32, 4>();
                        if (fg_vec_ok && fg_c513 + 4u <= fg_p.cols) {
                            let fg_q: vec4<f32> = beta[(fg_c513) / 4u];
                            fg_w_beta[0u] = fg_q.x;
                            fg_w_beta[1u] = fg_q.y;
                            fg_w_beta[2u] = fg_q.z;
                            fg_w_beta[3u] = fg_q.w;
                        } else {
                            if (fg_c513 < fg_p.cols) { fg_w_beta[0u] = beta[(fg_c513) / 4u][(fg_c513) % 4u]; }
                            if (fg_c513 + 1u < fg_p.cols) { fg_w_beta[1u] = beta[(fg_c513 + 1u) / 4u][(fg_c513 + 1u) % 4u]; }
                            if (fg_c513 + 2u < fg_p.cols) { fg_w_beta[2u] = beta[(fg_c513 + 2u) / 4u][(fg_c513 + 2u) % 4u]; }
                            if (fg_c513 + 3u < fg_p.cols) { fg_w_beta[3u] = beta[(fg_c513 + 3u) / 4u][(fg_c513 + 3u) % 4u]; }
                        }
                        var fg_o_y: array<f32, 4> = array<f32, 4>();
                        if (fg_c513 < fg_p.cols) {
                            let fg_t514: f32 = (fg_v_x[fg_k * 4u] - fg_t503);  // (x - (row_sum(x) / f32(cols)))
                            let fg_t515: f32 = (fg_t514 * fg_t508);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                            let fg_t516: f32 = (fg_t515 * fg_w_gamma[0u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                            let fg_t517: f32 = (fg_t516 + fg_w_beta[0u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                            fg_o_y[0u] = fg_t517;
                        }
                        if (fg_c513 + 1u < fg_p.cols) {
                            let fg_t518: f32 = (fg_v_x[fg_k * 4u + 1u] - fg_t503);  // (x - (row_sum(x) / f32(cols)))
                            let fg_t519: f32 = (fg_t518 * fg_t508);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                            let fg_t520: f32 = (fg_t519 * fg_w_gamma[1u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                            let fg_t521: f32 = (fg_t520 + fg_w_beta[1u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                            fg_o_y[1u] = fg_t521;
                        }
                        if (fg_c513 + 2u < fg_p.cols) {
                            let fg_t522: f32 = (fg_v_x[fg_k * 4u + 2u] - fg_t503);  // (x - (row_sum(x) / f32(cols)))
                            let fg_t523: f32 = (fg_t522 * fg_t508);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                            let fg_t524: f32 = (fg_t523 * fg_w_gamma[2u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                            let fg_t525: f32 = (fg_t524 + fg_w_beta[2u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                            fg_o_y[2u] = fg_t525;
                        }
                        if (fg_c513 + 3u < fg_p.cols) {
                            let fg_t526: f32 = (fg_v_x[fg_k * 4u + 3u] - fg_t503);  // (x - (row_sum(x) / f32(cols)))
                            let fg_t527: f32 = (fg_t526 * fg_t508);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                            let fg_t528: f32 = (fg_t527 * fg_w_gamma[3u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                            let fg_t529: f32 = (fg_t528 + fg_w_beta[3u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                            fg_o_y[3u] = fg_t529;
                        }
                        if (fg_active) {
                            if (fg_vec_ok && fg_c513 + 4u <= fg_p.cols) {
                                y[(fg_base + fg_c513) / 4u] = vec4<f32>(fg_o_y[0u], fg_o_y[1u], fg_o_y[2u], fg_o_y[3u]);
                            } else {
                                if (fg_c513 < fg_p.cols) { y[(fg_base + fg_c513) / 4u][(fg_base + fg_c513) % 4u] = fg_o_y[0u]; }
                                if (fg_c513 + 1u < fg_p.cols) { y[(fg_base + fg_c513 + 1u) / 4u][(fg_base + fg_c513 + 1u) % 4u] = fg_o_y[1u]; }
                                if (fg_c513 + 2u < fg_p.cols) { y[(fg_base + fg_c513 + 2u) / 4u][(fg_base + fg_c513 + 2u) % 4u] = fg_o_y[2u]; }
                                if (fg_c513 + 3u < fg_p.cols) { y[(fg_base + fg_c513 + 3u) / 4u][(fg_base + fg_c513 + 3u) % 4u] = fg_o_y[3u]; }
                            }
                        }
                    }
                    {
                        const fg_k: u32 = 1u;
                        let fg_c530: u32 = fg_off + (fg_k * 256u + fg_tx) * 4u;
                        var fg_w_gamma: array<f32, 4> = array<f32, 4>();
                        if (fg_vec_ok && fg_c530 + 4u <= fg_p.cols) {
                            let fg_q: vec4<f32> = gamma[(fg_c530) / 4u];
                            fg_w_gamma[0u] = fg_q.x;
                            fg_w_gamma[1u] = fg_q.y;
                            fg_w_gamma[2u] = fg_q.z;
                            fg_w_gamma[3u] = fg_q.w;
                        } else {
                            if (fg_c530 < fg_p.cols) { fg_w_gamma[0u] = gamma[(fg_c530) / 4u][(fg_c530) % 4u]; }
                            if (fg_c530 + 1u < fg_p.cols) { fg_w_gamma[1u] = gamma[(fg_c530 + 1u) / 4u][(fg_c530 + 1u) % 4u]; }
                            if (fg_c530 + 2u < fg_p.cols) { fg_w_gamma[2u] = gamma[(fg_c530 + 2u) / 4u][(fg_c530 + 2u) % 4u]; }
                            if (fg_c530 + 3u < fg_p.cols) { fg_w_gamma[3u] = gamma[(fg_c530 + 3u) / 4u][(fg_c530 + 3u) % 4u]; }
                        }
                        var fg_w_beta: array<f32, 4> = array<f32, 4>();
                        if (fg_vec_ok && fg_c530 + 4u <= fg_p.cols) {
                            let fg_q: vec4<f32> = beta[(fg_c530) / 4u];
                            fg_w_beta[0u] = fg_q.x;
                            fg_w_beta[1u] = fg_q.y;
                            fg_w_beta[2u] = fg_q.z;
                            fg_w_beta[3u] = fg_q.w;
                        } else {
                            if (fg_c530 < fg_p.cols) { fg_w_beta[0u] = beta[(fg_c530) / 4u][(fg_c530) % 4u]; }
                            if (fg_c530 + 1u < fg_p.cols) { fg_w_beta[1u] = beta[(fg_c530 + 1u) / 4u][(fg_c530 + 1u) % 4u]; }
                            if (fg_c530 + 2u < fg_p.cols) { fg_w_beta[2u] = beta[(fg_c530 + 2u) / 4u][(fg_c530 + 2u) % 4u]; }
                            if (fg_c530 + 3u < fg_p.cols) { fg_w_beta[3u] = beta[(fg_c530 + 3u) / 4u][(fg_c530 + 3u) % 4u]; }
                        }
                        var fg_o_y: array<f32, 4> = array<f32, 4>();
                        if (fg_c530 < fg_p.cols) {
                            let fg_t531: f32 = (fg_v_x[fg_k * 4u] - fg_t503);  // (x - (row_sum(x) / f32(cols)))
                            let fg_t532: f32 = (fg_t531 * fg_t508);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                            let fg_t533: f32 = (fg_t532 * fg_w_gamma[0u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                            let fg_t534: f32 = (fg_t533 + fg_w_beta[0u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                            fg_o_y[0u] = fg_t534;
                        }
                        if (fg_c530 + 1u < fg_p.cols) {
                            let fg_t535: f32 = (fg_v_x[fg_k * 4u + 1u] - fg_t503);  // (x - (row_sum(x) / f32(cols)))
                            let fg_t536: f32 = (fg_t535 * fg_t508);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                            let fg_t537: f32 = (fg_t536 * fg_w_gamma[1u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                            let fg_t538: f32 = (fg_t537 + fg_w_beta[1u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                            fg_o_y[1u] = fg_t538;
                        }
                        if (fg_c530 + 2u < fg_p.cols) {
                            let fg_t539: f32 = (fg_v_x[fg_k * 4u + 2u] - fg_t503);  // (x - (row_sum(x) / f32(cols)))
                            let fg_t540: f32 = (fg_t539 * fg_t508);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                            let fg_t541: f32 = (fg_t540 * fg_w_gamma[2u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                            let fg_t542: f32 = (fg_t541 + fg_w_beta[2u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                            fg_o_y[2u] = fg_t542;
                        }
                        if (fg_c530 + 3u < fg_p.cols) {
                            let fg_t543: f32 = (fg_v_x[fg_k * 4u + 3u] - fg_t503);  // (x - (row_sum(x) / f32(cols)))
                            let fg_t544: f32 = (fg_t543 * fg_t508);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                            let fg_t545: f32 = (fg_t544 * fg_w_gamma[3u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                            let fg_t546: f32 = (fg_t545 + fg_w_beta[3u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                            fg_o_y[3u] = fg_t546;
                        }
                        if (fg_active) {
                            if (fg_vec_ok && fg_c530 + 4u <= fg_p.cols) {
                                y[(fg_base + fg_c530) / 4u] = vec4<f32>(fg_o_y[0u], fg_o_y[1u], fg_o_y[2u], fg_o_y[3u]);
                            } else {
                                if (fg_c530 < fg_p.cols) { y[(fg_base + fg_c530) / 4u][(fg_base + fg_c530) % 4u] = fg_o_y[0u]; }
                                if (fg_c530 + 1u < fg_p.cols) { y[(fg_base + fg_c530 + 1u) / 4u][(fg_base + fg_c530 + 1u) % 4u] = fg_o_y[1u]; }
                                if (fg_c530 + 2u < fg_p.cols) { y[(fg_base + fg_c530 + 2u) / 4u][(fg_base + fg_c530 + 2u) % 4u] = fg_o_y[2u]; }
                                if (fg_c530 + 3u < fg_p.cols) { y[(fg_base + fg_c530 + 3u) / 4u][(fg_base + fg_c530 + 3u) % 4u] = fg_o_y[3u]; }
                            }
                        }
                    }
                    {
                        const fg_k: u32 = 2u;
                        let fg_c547: u32 = fg_off + (fg_k * 256u + fg_tx) * 4u;
                        var fg_w_gamma: array<f32, 4> = array<f32, 4>();
                        if (fg_vec_ok && fg_c547 + 4u <= fg_p.cols) {
                            let fg_q: vec4<f32> = gamma[(fg_c547) / 4u];
                            fg_w_gamma[0u] = fg_q.x;
                            fg_w_gamma[1u] = fg_q.y;
                            fg_w_gamma[2u] = fg_q.z;
                            fg_w_gamma[3u] = fg_q.w;
                        } else {
                            if (fg_c547 < fg_p.cols) { fg_w_gamma[0u] = gamma[(fg_c547) / 4u][(fg_c547) % 4u]; }
                            if (fg_c547 + 1u < fg_p.cols) { fg_w_gamma[1u] = gamma[(fg_c547 + 1u) / 4u][(fg_c547 + 1u) % 4u]; }
                            if (fg_c547 + 2u < fg_p.cols) { fg_w_gamma[2u] = gamma[(fg_c547 + 2u) / 4u][(fg_c547 + 2u) % 4u]; }
                            if (fg_c547 + 3u < fg_p.cols) { fg_w_gamma[3u] = gamma[(fg_c547 + 3u) / 4u][(fg_c547 + 3u) % 4u]; }
                        }
                        var fg_w_beta: array<f32, 4> = array<f32, 4>();
                        if (fg_vec_ok && fg_c547 + 4u <= fg_p.cols) {
                            let fg_q: vec4<f32> = beta[(fg_c547) / 4u];
                            fg_w_beta[0u] = fg_q.x;
                            fg_w_beta[1u] = fg_q.y;
                            fg_w_beta[2u] = fg_q.z;
                            fg_w_beta[3u] = fg_q.w;
                        } else {
                            if (fg_c547 < fg_p.cols) { fg_w_beta[0u] = beta[(fg_c547) / 4u][(fg_c547) % 4u]; }
                            if (fg_c547 + 1u < fg_p.cols) { fg_w_beta[1u] = beta[(fg_c547 + 1u) / 4u][(fg_c547 + 1u) % 4u]; }
                            if (fg_c547 + 2u < fg_p.cols) { fg_w_beta[2u] = beta[(fg_c547 + 2u) / 4u][(fg_c547 + 2u) % 4u]; }
                            if (fg_c547 + 3u < fg_p.cols) { fg_w_beta[3u] = beta[(fg_c547 + 3u) / 4u][(fg_c547 + 3u) % 4u]; }
                        }
                        var fg_o_y: array<f32, 4> = array<f32, 4>();
                        if (fg_c547 < fg_p.cols) {
                            let fg_t548: f32 = (fg_v_x[fg_k * 4u] - fg_t503);  // (x - (row_sum(x) / f32(cols)))
                            let fg_t549: f32 = (fg_t548 * fg_t508);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                            let fg_t550: f32 = (fg_t549 * fg_w_gamma[0u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                            let fg_t551: f32 = (fg_t550 + fg_w_beta[0u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                            fg_o_y[0u] = fg_t551;
                        }
                        if (fg_c547 + 1u < fg_p.cols) {
                            let fg_t552: f32 = (fg_v_x[fg_k * 4u + 1u] - fg_t503);  // (x - (row_sum(x) / f32(cols)))
                            let fg_t553: f32 = (fg_t552 * fg_t508);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                            let fg_t554: f32 = (fg_t553 * fg_w_gamma[1u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                            let fg_t555: f32 = (fg_t554 + fg_w_beta[1u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                            fg_o_y[1u] = fg_t555;
                        }
                        if (fg_c547 + 2u < fg_p.cols) {
                            let fg_t556: f32 = (fg_v_x[fg_k * 4u + 2u] - fg_t503);  // (x - (row_sum(x) / f32(cols)))
                            let fg_t557: f32 = (fg_t556 * fg_t508);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                            let fg_t558: f32 = (fg_t557 * fg_w_gamma[2u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                            let fg_t559: f32 = (fg_t558 + fg_w_beta[2u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                            fg_o_y[2u] = fg_t559;
                        }
                        if (fg_c547 + 3u < fg_p.cols) {
                            let fg_t560: f32 = (fg_v_x[fg_k * 4u + 3u] - fg_t503);  // (x - (row_sum(x) / f32(cols)))
                            let fg_t561: f32 = (fg_t560 * fg_t508);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                            let fg_t562: f32 = (fg_t561 * fg_w_gamma[3u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                            let fg_t563: f32 = (fg_t562 + fg_w_beta[3u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                            fg_o_y[3u] = fg_t563;
                        }
                        if (fg_active) {
                            if (fg_vec_ok && fg_c547 + 4u <= fg_p.cols) {
                                y[(fg_base + fg_c547) / 4u] = vec4<f32>(fg_o_y[0u], fg_o_y[1u], fg_o_y[2u], fg_o_y[3u]);
                            } else {
                                if (fg_c547 < fg_p.cols) { y[(fg_base + fg_c547) / 4u][(fg_base + fg_c547) % 4u] = fg_o_y[0u]; }
                                if (fg_c547 + 1u < fg_p.cols) { y[(fg_base + fg_c547 + 1u) / 4u][(fg_base + fg_c547 + 1u) % 4u] = fg_o_y[1u]; }
                                if (fg_c547 + 2u < fg_p.cols) { y[(fg_base + fg_c547 + 2u) / 4u][(fg_base + fg_c547 + 2u) % 4u] = fg_o_y[2u]; }
                                if (fg_c547 + 3u < fg_p.cols) { y[(fg_base + fg_c547 + 3u) / 4u][(fg_base + fg_c547 + 3u) % 4u] = fg_o_y[3u]; }
                            }
                        }
                    }
                    {
                        const fg_k: u32 = 3u;
                        let fg_c564: u32 = fg_off + (fg_k * 256u + fg_tx) * 4u;
                        var fg_w_gamma: array<f32, 4> = array<f32, 4>();
                        if (fg_vec_ok && fg_c564 + 4u <= fg_p.cols) {
                            let fg_q: vec4<f32> = gamma[(fg_c564) / 4u];
                            fg_w_gamma[0u] = fg_q.x;
                            fg_w_gamma[1u] = fg_q.y;
                            fg_w_gamma[2u] = fg_q.z;
                            fg_w_gamma[3u] = fg_q.w;
                        } else {
                            if (fg_c564 < fg_p.cols) { fg_w_gamma[0u] = gamma[(fg_c564) / 4u][(fg_c564) % 4u]; }
                            if (fg_c564 + 1u < fg_p.cols) { fg_w_gamma[1u] = gamma[(fg_c564 + 1u) / 4u][(fg_c564 + 1u) % 4u]; }
                            if (fg_c564 + 2u < fg_p.cols) { fg_w_gamma[2u] = gamma[(fg_c564 + 2u) / 4u][(fg_c564 + 2u) % 4u]; }
                            if (fg_c564 + 3u < fg_p.cols) { fg_w_gamma[3u] = gamma[(fg_c564 + 3u) / 4u][(fg_c564 + 3u) % 4u]; }
                        }
                        var fg_w_beta: array<f32, 4> = array<f32, 4>();
                        if (fg_vec_ok && fg_c564 + 4u <= fg_p.cols) {
                            let fg_q: vec4<f32> = beta[(fg_c564) / 4u];
                            fg_w_beta[0u] = fg_q.x;
                            fg_w_beta[1u] = fg_q.y;
                            fg_w_beta[2u] = fg_q.z;
                            fg_w_beta[3u] = fg_q.w;
                        } else {
                            if (fg_c564 < fg_p.cols) { fg_w_beta[0u] = beta[(fg_c564) / 4u][(fg_c564) % 4u]; }
                            if (fg_c564 + 1u < fg_p.cols) { fg_w_beta[1u] = beta[(fg_c564 + 1u) / 4u][(fg_c564 + 1u) % 4u]; }
                            if (fg_c564 + 2u < fg_p.cols) { fg_w_beta[2u] = beta[(fg_c564 + 2u) / 4u][(fg_c564 + 2u) % 4u]; }
                            if (fg_c564 + 3u < fg_p.cols) { fg_w_beta[3u] = beta[(fg_c564 + 3u) / 4u][(fg_c564 + 3u) % 4u]; }
                        }
                        var fg_o_y: array<f32, 4> = array<f32, 4>();
                        if (fg_c564 < fg_p.cols) {
                            let fg_t565: f32 = (fg_v_x[fg_k * 4u] - fg_t503);  // (x - (row_sum(x) / f32(cols)))
                            let fg_t566: f32 = (fg_t565 * fg_t508);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                            let fg_t567: f32 = (fg_t566 * fg_w_gamma[0u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                            let fg_t568: f32 = (fg_t567 + fg_w_beta[0u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                            fg_o_y[0u] = fg_t568;
                        }
                        if (fg_c564 + 1u < fg_p.cols) {
                            let fg_t569: f32 = (fg_v_x[fg_k * 4u + 1u] - fg_t503);  // (x - (row_sum(x) / f32(cols)))
                            let fg_t570: f32 = (fg_t569 * fg_t508);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                            let fg_t571: f32 = (fg_t570 * fg_w_gamma[1u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                            let fg_t572: f32 = (fg_t571 + fg_w_beta[1u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                            fg_o_y[1u] = fg_t572;
                        }
                        if (fg_c564 + 2u < fg_p.cols) {
                            let fg_t573: f32 = (fg_v_x[fg_k * 4u + 2u] - fg_t503);  // (x - (row_sum(x) / f32(cols)))
                            let fg_t574: f32 = (fg_t573 * fg_t508);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                            let fg_t575: f32 = (fg_t574 * fg_w_gamma[2u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                            let fg_t576: f32 = (fg_t575 + fg_w_beta[2u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                            fg_o_y[2u] = fg_t576;
                        }
                        if (fg_c564 + 3u < fg_p.cols) {
                            let fg_t577: f32 = (fg_v_x[fg_k * 4u + 3u] - fg_t503);  // (x - (row_sum(x) / f32(cols)))
                            let fg_t578: f32 = (fg_t577 * fg_t508);  // ((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) /...
                            let fg_t579: f32 = (fg_t578 * fg_w_gamma[3u]);  // (((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x) ...
                            let fg_t580: f32 = (fg_t579 + fg_w_beta[3u]);  // ((((x - (row_sum(x) / f32(cols))) * rsqrt(((row_sum(((x - (row_sum(x)...
                            fg_o_y[3u] = fg_t580;
                        }
                        if (fg_active) {
                            if (fg_vec_ok && fg_c564 + 4u <= fg_p.cols) {
                                y[(fg_base + fg_c564) / 4u] = vec4<f32>(fg_o_y[0u], fg_o_y[1u], fg_o_y[2u], fg_o_y[3u]);
                            } else {
                                if (fg_c564 < fg_p.cols) { y[(fg_base + fg_c564) / 4u][(fg_base + fg_c564) % 4u] = fg_o_y[0u]; }
                                if (fg_c564 + 1u < fg_p.cols) { y[(fg_base + fg_c564 + 1u) / 4u][(fg_base + fg_c564 + 1u) % 4u] = fg_o_y[1u]; }
                                if (fg_c564 + 2u < fg_p.cols) { y[(fg_base + fg_c564 + 2u) / 4u][(fg_base + fg_c564 + 2u) % 4u] = fg_o_y[2u]; }
                                if (fg_c564 + 3u < fg_p.cols) { y[(fg_base + fg_c564 + 3u) / 4u][(fg_base + fg_c564 + 3u) % 4u] = fg_o_y[3u]; }
                            }
                        }
                    }
                }
            }
        }
    }
}

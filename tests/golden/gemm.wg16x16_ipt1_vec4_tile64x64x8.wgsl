// kernel-forge generated WGSL source (forge.emit, emitter version 5); do not edit
// kernel: gemm v1, entry point gemm_kernel
// semantic hash: f813ba1cd744885a2c6cc2e3f8247d8c71abcb64c1789a64b9e951ef579f7432
// schedule: wg=16x16,ipt=1,vec=4,tile=64x64x8
// pattern: matmul (m=size, n=size, k=size)
// IR:
//   c = alpha * a @ b + beta * c (f32; a row-major, b row-major; c not read when beta == 0)

struct fg_Params {
    alpha: f32,
    beta: f32,
    m: u32,
    n: u32,
    k: u32,
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> fg_p: fg_Params;
var<workgroup> fg_as: array<f32, 512>;
var<workgroup> fg_bs: array<f32, 512>;

@compute @workgroup_size(16, 16, 1)
fn gemm_kernel(@builtin(workgroup_id) fg_wid: vec3<u32>,
        @builtin(num_workgroups) fg_nwg: vec3<u32>,
        @builtin(local_invocation_id) fg_lid3: vec3<u32>,
        @builtin(local_invocation_index) fg_lidx: u32) {
    let fg_tx: u32 = fg_lid3.x;
    let fg_ty: u32 = fg_lid3.y;
    let fg_tiles_n: u32 = (fg_p.n / 64u + select(0u, 1u, fg_p.n % 64u != 0u));
    let fg_tiles: u32 = (fg_p.m / 64u + select(0u, 1u, fg_p.m % 64u != 0u)) * fg_tiles_n;
    // 64x64 block of c per workgroup, 4x4 per invocation, k in steps of 8
    for (var fg_tile: u32 = (fg_wid.y * fg_nwg.x + fg_wid.x); fg_tile < fg_tiles; fg_tile += (fg_nwg.x * fg_nwg.y)) {
        let fg_m0: u32 = fg_tile / fg_tiles_n * 64u;
        let fg_n0: u32 = fg_tile % fg_tiles_n * 64u;
        var fg_acc: array<f32, 16> = array<f32, 16>();
        var fg_ra: array<f32, 4> = array<f32, 4>();
        var fg_rb: array<f32, 4> = array<f32, 4>();
        for (var fg_k0: u32 = 0u; fg_k0 < fg_p.k; fg_k0 += 8u) {
            let fg_s1: u32 = 0u + fg_lidx;
            let fg_go2: u32 = fg_m0 + fg_s1 / 2u;
            let fg_gk3: u32 = fg_k0 + fg_s1 % 2u * 4u;
            fg_ra[0u] = 0.0f;
            fg_ra[1u] = 0.0f;
            fg_ra[2u] = 0.0f;
            fg_ra[3u] = 0.0f;
            if (fg_s1 < 128u && fg_go2 < fg_p.m) {
                if (fg_gk3 + 4u <= fg_p.k) {
                    fg_ra[0u] = a[fg_go2 * fg_p.k + fg_gk3];
                    fg_ra[1u] = a[fg_go2 * fg_p.k + fg_gk3 + 1u];
                    fg_ra[2u] = a[fg_go2 * fg_p.k + fg_gk3 + 2u];
                    fg_ra[3u] = a[fg_go2 * fg_p.k + fg_gk3 + 3u];
                } else {
                    if (fg_gk3 < fg_p.k) { fg_ra[0u] = a[fg_go2 * fg_p.k + fg_gk3]; }
                    if (fg_gk3 + 1u < fg_p.k) { fg_ra[1u] = a[fg_go2 * fg_p.k + fg_gk3 + 1u]; }
                    if (fg_gk3 + 2u < fg_p.k) { fg_ra[2u] = a[fg_go2 * fg_p.k + fg_gk3 + 2u]; }
                    if (fg_gk3 + 3u < fg_p.k) { fg_ra[3u] = a[fg_go2 * fg_p.k + fg_gk3 + 3u]; }
                }
            }
            let fg_s4: u32 = 0u + fg_lidx;
            let fg_go5: u32 = fg_n0 + fg_s4 % 16u * 4u;
            let fg_gk6: u32 = fg_k0 + fg_s4 / 16u;
            fg_rb[0u] = 0.0f;
            fg_rb[1u] = 0.0f;
            fg_rb[2u] = 0.0f;
            fg_rb[3u] = 0.0f;
            if (fg_s4 < 128u && fg_gk6 < fg_p.k) {
                if (fg_go5 + 4u <= fg_p.n) {
                    fg_rb[0u] = b[fg_gk6 * fg_p.n + fg_go5];
                    fg_rb[1u] = b[fg_gk6 * fg_p.n + fg_go5 + 1u];
                    fg_rb[2u] = b[fg_gk6 * fg_p.n + fg_go5 + 2u];
                    fg_rb[3u] = b[fg_gk6 * fg_p.n + fg_go5 + 3u];
                } else {
                    if (fg_go5 < fg_p.n) { fg_rb[0u] = b[fg_gk6 * fg_p.n + fg_go5]; }
                    if (fg_go5 + 1u < fg_p.n) { fg_rb[1u] = b[fg_gk6 * fg_p.n + fg_go5 + 1u]; }
                    if (fg_go5 + 2u < fg_p.n) { fg_rb[2u] = b[fg_gk6 * fg_p.n + fg_go5 + 2u]; }
                    if (fg_go5 + 3u < fg_p.n) { fg_rb[3u] = b[fg_gk6 * fg_p.n + fg_go5 + 3u]; }
                }
            }
            let fg_s7: u32 = 0u + fg_lidx;
            if (fg_s7 < 128u) {
                fg_as[(fg_s7 % 2u * 4u) * 64u + fg_s7 / 2u] = fg_ra[0u];
                fg_as[(fg_s7 % 2u * 4u + 1u) * 64u + fg_s7 / 2u] = fg_ra[1u];
                fg_as[(fg_s7 % 2u * 4u + 2u) * 64u + fg_s7 / 2u] = fg_ra[2u];
                fg_as[(fg_s7 % 2u * 4u + 3u) * 64u + fg_s7 / 2u] = fg_ra[3u];
            }
            let fg_s8: u32 = 0u + fg_lidx;
            if (fg_s8 < 128u) {
                fg_bs[(fg_s8 / 16u) * 64u + fg_s8 % 16u * 4u] = fg_rb[0u];
                fg_bs[(fg_s8 / 16u) * 64u + fg_s8 % 16u * 4u + 1u] = fg_rb[1u];
                fg_bs[(fg_s8 / 16u) * 64u + fg_s8 % 16u * 4u + 2u] = fg_rb[2u];
                fg_bs[(fg_s8 / 16u) * 64u + fg_s8 % 16u * 4u + 3u] = fg_rb[3u];
            }
            workgroupBarrier();
            for (var fg_kk: u32 = 0u; fg_kk < 8u; fg_kk += 1u) {
                var fg_fa: array<f32, 4> = array<f32, 4>();
                var fg_fb: array<f32, 4> = array<f32, 4>();
                for (var fg_i: u32 = 0u; fg_i < 4u; fg_i += 1u) {
                    fg_fa[fg_i] = fg_as[fg_kk * 64u + fg_i / 4u * 64u + fg_ty * 4u + fg_i % 4u];
                }
                for (var fg_j: u32 = 0u; fg_j < 4u; fg_j += 1u) {
                    fg_fb[fg_j] = fg_bs[fg_kk * 64u + fg_j / 4u * 64u + fg_tx * 4u + fg_j % 4u];
                }
                for (var fg_i: u32 = 0u; fg_i < 4u; fg_i += 1u) {
                    for (var fg_j: u32 = 0u; fg_j < 4u; fg_j += 1u) {
                        fg_acc[fg_i * 4u + fg_j] += fg_fa[fg_i] * fg_fb[fg_j];
                    }
                }
            }
            workgroupBarrier();
        }
        // c = alpha * acc + beta * c; c is not read when beta == 0
        for (var fg_i: u32 = 0u; fg_i < 4u; fg_i += 1u) {
            let fg_m: u32 = fg_m0 + fg_i / 4u * 64u + fg_ty * 4u + fg_i % 4u;
            if (fg_m < fg_p.m) {
                for (var fg_g: u32 = 0u; fg_g < 1u; fg_g += 1u) {
                    let fg_n: u32 = fg_n0 + fg_g * 64u + fg_tx * 4u;
                    var fg_out: array<f32, 4> = array<f32, 4>();
                    var fg_old: array<f32, 4> = array<f32, 4>();
                    fg_out[0u] = fg_p.alpha * fg_acc[fg_i * 4u + fg_g * 4u + 0u];
                    fg_out[1u] = fg_p.alpha * fg_acc[fg_i * 4u + fg_g * 4u + 1u];
                    fg_out[2u] = fg_p.alpha * fg_acc[fg_i * 4u + fg_g * 4u + 2u];
                    fg_out[3u] = fg_p.alpha * fg_acc[fg_i * 4u + fg_g * 4u + 3u];
                    if (fg_p.beta != 0.0f) {
                        if (fg_n + 4u <= fg_p.n) {
                            fg_old[0u] = c[fg_m * fg_p.n + fg_n];
                            fg_old[1u] = c[fg_m * fg_p.n + fg_n + 1u];
                            fg_old[2u] = c[fg_m * fg_p.n + fg_n + 2u];
                            fg_old[3u] = c[fg_m * fg_p.n + fg_n + 3u];
                        } else {
                            if (fg_n < fg_p.n) { fg_old[0u] = c[fg_m * fg_p.n + fg_n]; }
                            if (fg_n + 1u < fg_p.n) { fg_old[1u] = c[fg_m * fg_p.n + fg_n + 1u]; }
                            if (fg_n + 2u < fg_p.n) { fg_old[2u] = c[fg_m * fg_p.n + fg_n + 2u]; }
                            if (fg_n + 3u < fg_p.n) { fg_old[3u] = c[fg_m * fg_p.n + fg_n + 3u]; }
                        }
                        fg_out[0u] = fg_out[0u] + fg_p.beta * fg_old[0u];
                        fg_out[1u] = fg_out[1u] + fg_p.beta * fg_old[1u];
                        fg_out[2u] = fg_out[2u] + fg_p.beta * fg_old[2u];
                        fg_out[3u] = fg_out[3u] + fg_p.beta * fg_old[3u];
                    }
                    if (fg_n + 4u <= fg_p.n) {
                        c[fg_m * fg_p.n + fg_n] = fg_out[0u];
                        c[fg_m * fg_p.n + fg_n + 1u] = fg_out[1u];
                        c[fg_m * fg_p.n + fg_n + 2u] = fg_out[2u];
                        c[fg_m * fg_p.n + fg_n + 3u] = fg_out[3u];
                    } else {
                        if (fg_n < fg_p.n) { c[fg_m * fg_p.n + fg_n] = fg_out[0u]; }
                        if (fg_n + 1u < fg_p.n) { c[fg_m * fg_p.n + fg_n + 1u] = fg_out[1u]; }
                        if (fg_n + 2u < fg_p.n) { c[fg_m * fg_p.n + fg_n + 2u] = fg_out[2u]; }
                        if (fg_n + 3u < fg_p.n) { c[fg_m * fg_p.n + fg_n + 3u] = fg_out[3u]; }
                    }
                }
            }
        }
    }
}

// kernel-forge generated WGSL source (forge.emit, emitter version 1); do not edit
// kernel: affine v1, entry point affine_kernel
// semantic hash: 9b19cc26ca8175a2d78aaeedb8090b7175ade8fdf56f4a67a1c644ebc7e514d5
// schedule: wg=256,ipt=2,vec=4,grid=4224
// pattern: map (n=size)
// IR:
//   y = ((a * x) + b)

struct fg_Params {
    a: f32,
    b: f32,
    n: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> fg_p: fg_Params;

@compute @workgroup_size(256, 1, 1)
fn affine_kernel(@builtin(workgroup_id) fg_wid: vec3<u32>,
        @builtin(num_workgroups) fg_nwg: vec3<u32>,
        @builtin(local_invocation_id) fg_lid3: vec3<u32>,
        @builtin(local_invocation_index) fg_lidx: u32) {
    let fg_chunks: u32 = (fg_p.n / 4u + select(0u, 1u, fg_p.n % 4u != 0u));
    // each workgroup takes 512 chunks of 4 per pass; grid-stride over the rest
    for (var fg_first: u32 = (fg_wid.y * fg_nwg.x + fg_wid.x) * 512u; fg_first < fg_chunks; fg_first += (fg_nwg.x * fg_nwg.y) * 512u) {
        var fg_v_x: array<f32, 8> = array<f32, 8>();
        // load every chunk first, then compute and store
        for (var fg_k: u32 = 0u; fg_k < 2u; fg_k += 1u) {
            let fg_j1: u32 = fg_first + fg_k * 256u + fg_lidx;
            if (fg_j1 < fg_chunks) {
                if (fg_j1 * 4u + 4u <= fg_p.n) {
                    fg_v_x[fg_k * 4u] = x[fg_j1 * 4u];
                    fg_v_x[fg_k * 4u + 1u] = x[fg_j1 * 4u + 1u];
                    fg_v_x[fg_k * 4u + 2u] = x[fg_j1 * 4u + 2u];
                    fg_v_x[fg_k * 4u + 3u] = x[fg_j1 * 4u + 3u];
                } else {
                    if (fg_j1 * 4u < fg_p.n) { fg_v_x[fg_k * 4u] = x[fg_j1 * 4u]; }
                    if (fg_j1 * 4u + 1u < fg_p.n) { fg_v_x[fg_k * 4u + 1u] = x[fg_j1 * 4u + 1u]; }
                    if (fg_j1 * 4u + 2u < fg_p.n) { fg_v_x[fg_k * 4u + 2u] = x[fg_j1 * 4u + 2u]; }
                    if (fg_j1 * 4u + 3u < fg_p.n) { fg_v_x[fg_k * 4u + 3u] = x[fg_j1 * 4u + 3u]; }
                }
            }
        }
        for (var fg_k: u32 = 0u; fg_k < 2u; fg_k += 1u) {
            let fg_j2: u32 = fg_first + fg_k * 256u + fg_lidx;
            if (fg_j2 < fg_chunks) {
                var fg_o_y: array<f32, 4> = array<f32, 4>();
                let fg_t3: f32 = (fg_p.a * fg_v_x[fg_k * 4u]);  // (a * x)
                let fg_t4: f32 = (fg_t3 + fg_p.b);  // ((a * x) + b)
                fg_o_y[0u] = fg_t4;
                let fg_t5: f32 = (fg_p.a * fg_v_x[fg_k * 4u + 1u]);  // (a * x)
                let fg_t6: f32 = (fg_t5 + fg_p.b);  // ((a * x) + b)
                fg_o_y[1u] = fg_t6;
                let fg_t7: f32 = (fg_p.a * fg_v_x[fg_k * 4u + 2u]);  // (a * x)
                let fg_t8: f32 = (fg_t7 + fg_p.b);  // ((a * x) + b)
                fg_o_y[2u] = fg_t8;
                let fg_t9: f32 = (fg_p.a * fg_v_x[fg_k * 4u + 3u]);  // (a * x)
                let fg_t10: f32 = (fg_t9 + fg_p.b);  // ((a * x) + b)
                fg_o_y[3u] = fg_t10;
                if (fg_j2 * 4u + 4u <= fg_p.n) {
                    y[fg_j2 * 4u] = fg_o_y[0u];
                    y[fg_j2 * 4u + 1u] = fg_o_y[1u];
                    y[fg_j2 * 4u + 2u] = fg_o_y[2u];
                    y[fg_j2 * 4u + 3u] = fg_o_y[3u];
                } else {
                    if (fg_j2 * 4u < fg_p.n) { y[fg_j2 * 4u] = fg_o_y[0u]; }
                    if (fg_j2 * 4u + 1u < fg_p.n) { y[fg_j2 * 4u + 1u] = fg_o_y[1u]; }
                    if (fg_j2 * 4u + 2u < fg_p.n) { y[fg_j2 * 4u + 2u] = fg_o_y[2u]; }
                    if (fg_j2 * 4u + 3u < fg_p.n) { y[fg_j2 * 4u + 3u] = fg_o_y[3u]; }
                }
            }
        }
    }
}

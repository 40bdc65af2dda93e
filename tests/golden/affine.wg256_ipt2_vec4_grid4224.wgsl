// kernel-forge generated WGSL source (forge.emit, emitter version 5); do not edit
// kernel: affine v1, entry point affine_kernel
// semantic hash: 06ffa8c127aa60b96317540134f2898f1fdc8d10831ca10c03d03e07ee477f84
// schedule: wg=256,ipt=2,vec=4,grid=4224
// pattern: map (n=size)
// IR:
//   y = ((a * x) + b)

struct fg_Params {
    a: f32,
    b: f32,
    n: u32,
}

// x, y: arrays of vectors, bound rounded up to whole vectors; a partial last chunk goes lane by lane
@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> y: array<vec4<f32>>;
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
        {
            const fg_k: u32 = 0u;
            let fg_j1: u32 = fg_first + fg_k * 256u + fg_lidx;
            if (fg_j1 < fg_chunks) {
                if (fg_j1 * 4u + 4u <= fg_p.n) {
                    let fg_q: vec4<f32> = x[fg_j1];
                    fg_v_x[fg_k * 4u] = fg_q.x;
                    fg_v_x[fg_k * 4u + 1u] = fg_q.y;
                    fg_v_x[fg_k * 4u + 2u] = fg_q.z;
                    fg_v_x[fg_k * 4u + 3u] = fg_q.w;
                } else {
                    if (fg_j1 * 4u < fg_p.n) { fg_v_x[fg_k * 4u] = x[fg_j1].x; }
                    if (fg_j1 * 4u + 1u < fg_p.n) { fg_v_x[fg_k * 4u + 1u] = x[fg_j1].y; }
                    if (fg_j1 * 4u + 2u < fg_p.n) { fg_v_x[fg_k * 4u + 2u] = x[fg_j1].z; }
                    if (fg_j1 * 4u + 3u < fg_p.n) { fg_v_x[fg_k * 4u + 3u] = x[fg_j1].w; }
                }
            }
        }
        {
            const fg_k: u32 = 1u;
            let fg_j2: u32 = fg_first + fg_k * 256u + fg_lidx;
            if (fg_j2 < fg_chunks) {
                if (fg_j2 * 4u + 4u <= fg_p.n) {
                    let fg_q: vec4<f32> = x[fg_j2];
                    fg_v_x[fg_k * 4u] = fg_q.x;
                    fg_v_x[fg_k * 4u + 1u] = fg_q.y;
                    fg_v_x[fg_k * 4u + 2u] = fg_q.z;
                    fg_v_x[fg_k * 4u + 3u] = fg_q.w;
                } else {
                    if (fg_j2 * 4u < fg_p.n) { fg_v_x[fg_k * 4u] = x[fg_j2].x; }
                    if (fg_j2 * 4u + 1u < fg_p.n) { fg_v_x[fg_k * 4u + 1u] = x[fg_j2].y; }
                    if (fg_j2 * 4u + 2u < fg_p.n) { fg_v_x[fg_k * 4u + 2u] = x[fg_j2].z; }
                    if (fg_j2 * 4u + 3u < fg_p.n) { fg_v_x[fg_k * 4u + 3u] = x[fg_j2].w; }
                }
            }
        }
        {
            const fg_k: u32 = 0u;
            let fg_j3: u32 = fg_first + fg_k * 256u + fg_lidx;
            if (fg_j3 < fg_chunks) {
                var fg_o_y: array<f32, 4> = array<f32, 4>();
                let fg_t4: f32 = (fg_p.a * fg_v_x[fg_k * 4u]);  // (a * x)
                let fg_t5: f32 = (fg_t4 + fg_p.b);  // ((a * x) + b)
                fg_o_y[0u] = fg_t5;
                let fg_t6: f32 = (fg_p.a * fg_v_x[fg_k * 4u + 1u]);  // (a * x)
                let fg_t7: f32 = (fg_t6 + fg_p.b);  // ((a * x) + b)
                fg_o_y[1u] = fg_t7;
                let fg_t8: f32 = (fg_p.a * fg_v_x[fg_k * 4u + 2u]);  // (a * x)
                let fg_t9: f32 = (fg_t8 + fg_p.b);  // ((a * x) + b)
                fg_o_y[2u] = fg_t9;
                let fg_t10: f32 = (fg_p.a * fg_v_x[fg_k * 4u + 3u]);  // (a * x)
                let fg_t11: f32 = (fg_t10 + fg_p.b);  // ((a * x) + b)
                fg_o_y[3u] = fg_t11;
                if (fg_j3 * 4u + 4u <= fg_p.n) {
                    y[fg_j3] = vec4<f32>(fg_o_y[0u], fg_o_y[1u], fg_o_y[2u], fg_o_y[3u]);
                } else {
                    if (fg_j3 * 4u < fg_p.n) { y[fg_j3].x = fg_o_y[0u]; }
                    if (fg_j3 * 4u + 1u < fg_p.n) { y[fg_j3].y = fg_o_y[1u]; }
                    if (fg_j3 * 4u + 2u < fg_p.n) { y[fg_j3].z = fg_o_y[2u]; }
                    if (fg_j3 * 4u + 3u < fg_p.n) { y[fg_j3].w = fg_o_y[3u]; }
                }
            }
        }
        {
            const fg_k: u32 = 1u;
            let fg_j12: u32 = fg_first + fg_k * 256u + fg_lidx;
            if (fg_j12 < fg_chunks) {
                var fg_o_y: array<f32, 4> = array<f32, 4>();
                let fg_t13: f32 = (fg_p.a * fg_v_x[fg_k * 4u]);  // (a * x)
                let fg_t14: f32 = (fg_t13 + fg_p.b);  // ((a * x) + b)
                fg_o_y[0u] = fg_t14;
                let fg_t15: f32 = (fg_p.a * fg_v_x[fg_k * 4u + 1u]);  // (a * x)
                let fg_t16: f32 = (fg_t15 + fg_p.b);  // ((a * x) + b)
                fg_o_y[1u] = fg_t16;
                let fg_t17: f32 = (fg_p.a * fg_v_x[fg_k * 4u + 2u]);  // (a * x)
                let fg_t18: f32 = (fg_t17 + fg_p.b);  // ((a * x) + b)
                fg_o_y[2u] = fg_t18;
                let fg_t19: f32 = (fg_p.a * fg_v_x[fg_k * 4u + 3u]);  // (a * x)
                let fg_t20: f32 = (fg_t19 + fg_p.b);  // ((a * x) + b)
                fg_o_y[3u] = fg_t20;
                if (fg_j12 * 4u + 4u <= fg_p.n) {
                    y[fg_j12] = vec4<f32>(fg_o_y[0u], fg_o_y[1u], fg_o_y[2u], fg_o_y[3u]);
                } else {
                    if (fg_j12 * 4u < fg_p.n) { y[fg_j12].x = fg_o_y[0u]; }
                    if (fg_j12 * 4u + 1u < fg_p.n) { y[fg_j12].y = fg_o_y[1u]; }
                    if (fg_j12 * 4u + 2u < fg_p.n) { y[fg_j12].z = fg_o_y[2u]; }
                    if (fg_j12 * 4u + 3u < fg_p.n) { y[fg_j12].w = fg_o_y[3u]; }
                }
            }
        }
    }
}

// kernel-forge generated WGSL source (forge.emit, emitter version 5); do not edit
// kernel: transpose v1, entry point transpose_kernel
// semantic hash: 4f5ed4ecfa5aecd1eed66d07eb6651eb08fb214aa84ab5e4eb6c2e0a630cdb71
// schedule: wg=32x8,ipt=1,vec=1,tile=32x32
// pattern: transpose (rows=size, cols=size+3)
// IR:
//   y = transpose(x) (f32)

struct fg_Params {
    rows: u32,
    cols: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> fg_p: fg_Params;
var<workgroup> fg_tile: array<f32, 1056>;

@compute @workgroup_size(32, 8, 1)
fn transpose_kernel(@builtin(workgroup_id) fg_wid: vec3<u32>,
        @builtin(num_workgroups) fg_nwg: vec3<u32>,
        @builtin(local_invocation_id) fg_lid3: vec3<u32>,
        @builtin(local_invocation_index) fg_lidx: u32) {
    let fg_tx: u32 = fg_lid3.x;
    let fg_ty: u32 = fg_lid3.y;
    let fg_tiles_c: u32 = (fg_p.cols / 32u + select(0u, 1u, fg_p.cols % 32u != 0u));
    let fg_tiles: u32 = (fg_p.rows / 32u + select(0u, 1u, fg_p.rows % 32u != 0u)) * fg_tiles_c;
    // 32x32 tiles through shared memory (rows padded to 33)
    for (var fg_t: u32 = (fg_wid.y * fg_nwg.x + fg_wid.x); fg_t < fg_tiles; fg_t += (fg_nwg.x * fg_nwg.y)) {
        let fg_r0: u32 = fg_t / fg_tiles_c * 32u;
        let fg_c0: u32 = fg_t % fg_tiles_c * 32u;
        for (var fg_j: u32 = 0u; fg_j < 32u; fg_j += 8u) {
            let fg_r: u32 = fg_r0 + fg_ty + fg_j;
            let fg_c: u32 = fg_c0 + fg_tx;
            if (fg_r < fg_p.rows && fg_c < fg_p.cols) {
                fg_tile[(fg_ty + fg_j) * 33u + fg_tx] = x[fg_r * fg_p.cols + fg_c];
            }
        }
        workgroupBarrier();
        for (var fg_j: u32 = 0u; fg_j < 32u; fg_j += 8u) {
            let fg_yr: u32 = fg_c0 + fg_ty + fg_j;
            let fg_yc: u32 = fg_r0 + fg_tx;
            if (fg_yr < fg_p.cols && fg_yc < fg_p.rows) {
                y[fg_yr * fg_p.rows + fg_yc] = fg_tile[fg_tx * 33u + fg_ty + fg_j];
            }
        }
        workgroupBarrier();
    }
}

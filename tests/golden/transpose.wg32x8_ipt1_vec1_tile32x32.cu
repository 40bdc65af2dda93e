// kernel-forge generated CUDA C source (forge.emit, emitter version 5); do not edit
// kernel: transpose v1, entry point transpose_kernel
// semantic hash: 4f5ed4ecfa5aecd1eed66d07eb6651eb08fb214aa84ab5e4eb6c2e0a630cdb71
// schedule: wg=32x8,ipt=1,vec=1,tile=32x32
// pattern: transpose (rows=size, cols=size+3)
// IR:
//   y = transpose(x) (f32)

struct __align__(16) fg_Params {
    unsigned int rows;
    unsigned int cols;
};

extern "C" __global__ void __launch_bounds__(256) transpose_kernel(
        const float* __restrict__ x,
        float* __restrict__ y,
        const fg_Params fg_p) {
    const unsigned int fg_lidx = threadIdx.x + 32u * threadIdx.y;
    __shared__ __align__(16) float fg_tile[1056];
    const unsigned int fg_tx = threadIdx.x;
    const unsigned int fg_ty = threadIdx.y;
    const unsigned int fg_tiles_c = (fg_p.cols / 32u + (fg_p.cols % 32u != 0u ? 1u : 0u));
    const unsigned int fg_tiles = (fg_p.rows / 32u + (fg_p.rows % 32u != 0u ? 1u : 0u)) * fg_tiles_c;
    // 32x32 tiles through shared memory (rows padded to 33)
    for (unsigned long long fg_t = (unsigned long long)((blockIdx.y * gridDim.x + blockIdx.x)); fg_t < fg_tiles; fg_t += (unsigned long long)((gridDim.x * gridDim.y))) {
        const unsigned int fg_r0 = (unsigned int)(fg_t) / fg_tiles_c * 32u;
        const unsigned int fg_c0 = (unsigned int)(fg_t) % fg_tiles_c * 32u;
        #pragma unroll
        for (unsigned int fg_j = 0u; fg_j < 32u; fg_j += 8u) {
            const unsigned int fg_r = fg_r0 + fg_ty + fg_j;
            const unsigned int fg_c = fg_c0 + fg_tx;
            if (fg_r < fg_p.rows && fg_c < fg_p.cols) {
                fg_tile[(fg_ty + fg_j) * 33u + fg_tx] = x[(unsigned long long)(fg_r) * fg_p.cols + fg_c];
            }
        }
        __syncthreads();
        #pragma unroll
        for (unsigned int fg_j = 0u; fg_j < 32u; fg_j += 8u) {
            const unsigned int fg_yr = fg_c0 + fg_ty + fg_j;
            const unsigned int fg_yc = fg_r0 + fg_tx;
            if (fg_yr < fg_p.cols && fg_yc < fg_p.rows) {
                y[(unsigned long long)(fg_yr) * fg_p.rows + fg_yc] = fg_tile[fg_tx * 33u + fg_ty + fg_j];
            }
        }
        __syncthreads();
    }
}

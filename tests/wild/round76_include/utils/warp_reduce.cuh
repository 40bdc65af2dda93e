// kernel-forge corpus: PyTorch3D's utils/warp_reduce.cuh (facebookresearch/pytorch3d,
// BSD-style licence), which sample_farthest_points.cu includes and no longer calls;
// written after it, not copied: the last warp of a shared-memory argmin, one lane a
// step, the smaller distance taking its index (volatile: the warp's lanes in lockstep).
#include <float.h>
#include <math.h>
#include <cstdio>

template <typename scalar_t>
__device__ void WarpReduce(
    volatile scalar_t* min_dists,
    volatile int64_t* min_idxs,
    const size_t tid) {
  for (int offset = 32; offset > 0; offset >>= 1) {
    if (min_dists[tid] > min_dists[tid + offset]) {
      min_idxs[tid] = min_idxs[tid + offset];
      min_dists[tid] = min_dists[tid + offset];
    }
  }
}

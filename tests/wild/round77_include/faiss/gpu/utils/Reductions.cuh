// kernel-forge corpus: a stand-in for FAISS's faiss/gpu/utils/Reductions.cuh and
// WarpShuffles.cuh (MIT licence): the butterfly sum every lane ends with.
#pragma once

#include <faiss/gpu/utils/DeviceDefs.cuh>

namespace faiss {
namespace gpu {
template <typename T>
inline __device__ T shfl_xor(const T val, int laneMask, int width = kWarpSize)
{
  return __shfl_xor_sync(0xffffffff, val, laneMask, width);
}

template <typename T>
__device__ inline T warpReduceAllSum(T val)
{
#pragma unroll
  for (int mask = kWarpSize / 2; mask > 0; mask >>= 1) {
    val = val + shfl_xor(val, mask);
  }
  return val;
}
}  // namespace gpu
}  // namespace faiss

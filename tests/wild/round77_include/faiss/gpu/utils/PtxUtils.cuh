// kernel-forge corpus: a stand-in for FAISS's faiss/gpu/utils/PtxUtils.cuh (MIT licence).
#pragma once

namespace faiss {
namespace gpu {
__device__ __forceinline__ int getLaneId()
{
  int laneId;
  asm("mov.u32 %0, %%laneid;" : "=r"(laneId));
  return laneId;
}
}  // namespace gpu
}  // namespace faiss

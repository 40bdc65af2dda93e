// kernel-forge corpus: a stand-in for FAISS's faiss/gpu/utils/DeviceDefs.cuh (MIT licence).
#pragma once

namespace faiss {
namespace gpu {
constexpr int kWarpSize = 32;
}  // namespace gpu
}  // namespace faiss

// kernel-forge corpus: a stand-in for FAISS's faiss/gpu/utils/StaticUtils.h (MIT licence).
#pragma once

namespace faiss {
namespace gpu {
namespace utils {
template <typename U, typename V>
constexpr __host__ __device__ auto divUp(U a, V b) -> decltype(a + b)
{
  return (a + b - 1) / b;
}
}  // namespace utils
}  // namespace gpu
}  // namespace faiss

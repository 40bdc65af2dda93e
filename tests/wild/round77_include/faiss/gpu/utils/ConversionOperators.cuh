// kernel-forge corpus: a stand-in for FAISS's faiss/gpu/utils/ConversionOperators.cuh (MIT
// licence): ConvertTo<float> from float.
#pragma once

namespace faiss {
namespace gpu {
template <typename T>
struct ConvertTo;

template <>
struct ConvertTo<float> {
  static inline __device__ float to(float v) { return v; }
};
}  // namespace gpu
}  // namespace faiss

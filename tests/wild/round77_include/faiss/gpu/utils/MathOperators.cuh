// kernel-forge corpus: a stand-in for FAISS's faiss/gpu/utils/MathOperators.cuh (MIT
// licence): Math<float>, the one instance round 77's kernel uses.
#pragma once

namespace faiss {
namespace gpu {
template <typename T>
struct Math;

template <>
struct Math<float> {
  static inline __device__ float mul(float a, float b) { return a * b; }
  // a vector's lanes summed; a float is its own sum
  static inline __device__ float reduceAdd(float v) { return v; }
};
}  // namespace gpu
}  // namespace faiss

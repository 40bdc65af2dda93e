// kernel-forge corpus: a stand-in for raft's raft/sparse/detail/utils.h (rapidsai/raft,
// Apache 2.0), written after it: the one helper round 77's weak_cc kernel calls.
#pragma once

#include <raft/core/detail/macros.hpp>

namespace raft {
namespace sparse {

// where row `row` of a CSR ends: the next row's start, or nnz after the last row
template <typename T>
__device__ int get_stop_idx(T row, T m, T nnz, const T* ind)
{
  int stop_idx = 0;
  if (row < (m - 1))
    stop_idx = ind[row + 1];
  else
    stop_idx = nnz;
  return stop_idx;
}

}  // namespace sparse
}  // namespace raft

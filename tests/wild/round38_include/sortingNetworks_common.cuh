// kernel-forge test corpus: the device header of NVIDIA's sortingNetworks sample
// (NVIDIA/cuda-samples at 2b3dc333; BSD 3-clause), written for the corpus after it:
// the shared-memory limit a block sorts, the 24-bit multiply macros the kernels index
// with, and the compare-exchange of a key-value pair in the sort's direction.
#ifndef SORTINGNETWORKS_COMMON_CUH
#define SORTINGNETWORKS_COMMON_CUH

#include "sortingNetworks_common.h"

// elements one block sorts in shared memory
#define SHARED_SIZE_LIMIT 1024U

// 24-bit multiply (and multiply-add), single instructions on early GPUs
#define UMUL(a, b) __umul24((a), (b))
#define UMAD(a, b, c) (UMUL((a), (b)) + (c))

// order a pair: swap both key and value when the keys are out of order for `dir`
// (1 ascending, 0 descending); equal keys stay where they are
__device__ inline void Comparator(uint &keyA, uint &valA, uint &keyB, uint &valB, uint dir) {
  if ((keyA > keyB) != dir) return;
  const uint key = keyA;
  keyA = keyB;
  keyB = key;
  const uint val = valA;
  valA = valB;
  valB = val;
}

#endif

// kernel-forge test corpus: the header of cuda-hashing-algos' SHA-256
// (mochimodev/cuda-hashing-algos at 5f80d58c, sha256.cuh; public domain), written for
// the corpus after it: the types through config.h, and the host entry point's
// prototype (a host declaration NVRTC must read past).
#pragma once
#include "config.h"

void mcm_cuda_sha256_hash_batch(BYTE* in, WORD inlen, BYTE* out, WORD n_batch);

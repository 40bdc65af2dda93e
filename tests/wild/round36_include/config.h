// kernel-forge test corpus: the type header cuda-hashing-algos' kernels include
// (mochimodev/cuda-hashing-algos at 5f80d58c, config.h; public domain), written for the
// corpus after it: which hashes are built, the byte, word and long types, and the C
// library headers its sources take in through it.
#pragma once

#define CUDA_HASH 1
#define OCL_HASH 0
#define USE_MD2 1
#define USE_MD5 1
#define USE_SHA1 1
#define USE_SHA256 1

typedef unsigned char BYTE;       // one byte of a message or digest
typedef unsigned int WORD;        // a 32-bit word of the hash state
typedef unsigned long long LONG;  // a message length in bits

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

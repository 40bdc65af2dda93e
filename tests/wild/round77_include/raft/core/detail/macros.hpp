// kernel-forge corpus: a stand-in for raft's raft/core/detail/macros.hpp (rapidsai/raft,
// Apache 2.0), written after it: the macros round 77's kernels use, nothing else.
#pragma once

// device and host-device function qualifiers
#define DI  inline __device__
#define HDI inline __host__ __device__

// kernels with internal linkage, so that two libraries built with raft do not share
// (and clash on) one instance of a kernel template
#define RAFT_KERNEL __global__ static void

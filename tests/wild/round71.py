"""Round 71 of kernels from the wild, merged into ``tests.wild.CORPUS``: CUDA as
libraries and NVIDIA's samples write it since CUDA 11 (warp intrinsics of sm_80,
cooperative groups' ``cg::reduce`` over tiles, CUB's block radix sort, libcu++'s
``cuda::atomic_ref`` with a thread scope and ``__match_any_sync``), each read, not copied
(the project's rule for public code). What is theirs is kept: the ``__global__``
functions' names, template parameters and parameters (names, types, order), the block
sizes and launch geometry of their hosts, the shared memory, the barriers, and the idioms
that make them worth judging; what is ours: the comments, locals' names where theirs
came from headers we do not have, the formatting, and the WebGPU port.

- NVIDIA/cuda-samples at 2b689228, ``Samples/2_Concepts_and_Techniques/reduction/
  reduction_kernel.cu`` (BSD 3-clause), ``reduce7<int, 256, false>``: each thread sums
  a grid stride, ``warpReduceSum`` is ``__reduce_add_sync(mask, x)`` for ``int`` from
  sm_80 (the shuffle loop below it), lane 0 of each warp stores its warp's sum, and the
  first warp sums the ``blockSize / warpSize`` partials under
  ``__ballot_sync(mask, tid < shmem_extent)``, the ballot its mask. The host's
  ``getNumBlocksAndThreads``: 256 threads, ``min(64, ceil(n / 512))`` blocks, one sum a
  block into ``g_odata``; ``(threads / 32 + 1) * 4`` bytes of dynamic shared memory.
  Sizes not a power of two (the host's ``nIsPow2 = false`` instantiation). Ints are
  drawn by the oracle's defaults and summed with int32 wrap-around (the reference
  wraps, as the GPU's adds do). The WebGPU port: ``subgroupAdd`` in place of
  ``__reduce_add_sync`` (WGSL has subgroups, not a fixed warp of 32: the partials are
  ``256 / subgroup_size``, and the first step's strided loop gathers them into one
  subgroup whatever its size).
- The same file, ``cg_reduce<float>``: a ``cg::thread_block`` and its
  ``cg::tiled_partition<32>``, a shared-memory tree with ``cta.sync()`` at the top of
  each level down to 32 values, then ``cg::reduce(tile, v, cg::plus<float>())`` in tile
  0 (``meta_group_rank() == 0``). 256 threads and ``threads * 4`` bytes of shared memory,
  the host's blocks. Float32 inputs, the oracle's default draws, judged within a float32
  sum's rounding bounds. CUDA only: the port of reduce7 is the subgroup idiom's.
- NVIDIA/cub at 47659788, ``examples/block/example_block_radix_sort.cu`` (BSD
  3-clause), ``BlockSortKernel<float, 128, 13>`` (the example's fp32 test): a tile of
  1664 keys a block, ``BlockLoad`` with ``BLOCK_LOAD_WARP_TRANSPOSE`` and
  ``BlockRadixSort`` sharing one ``__shared__`` union, ``__syncthreads()`` between
  them (the union's reuse), ``SortBlockedToStriped`` then ``StoreDirectStriped``, the
  elapsed clocks a scratch output (``clock_t``). The reference sorts as CUB's radix
  sort orders float bits (each key's bits flipped to an unsigned order: -0.0 before
  +0.0, a NaN with its sign bit set before -inf and one without after +inf), not as
  ``np.sort`` does. No WGSL port: WGSL has no block-wide sort primitive (a port would
  be a bitonic network of ours, no idiom of theirs).
- rapidsai/cudf at 7d546ba5, ``cpp/src/groupby/hash/hash_csr_kernels.cuh`` (Apache
  2.0), ``hash_csr_build_kernel`` and ``hash_csr_fill_kernel``: a linearly probed table
  claimed by ``cuda::atomic_ref<size_type, cuda::thread_scope_device>``'s
  ``compare_exchange_strong``, then each warp's rows that landed in one slot grouped by
  ``__match_any_sync(active_mask, slot)``, their leader (``__ffs(peers) - 1``) adding
  ``__popc(peers)`` to the slot's count with one ``fetch_add`` and handing the old
  count out with ``__shfl_sync(peers, first_rank, leader)``, each lane's rank its
  place among its peers (``__popc(peers & ((1u << lane) - 1u))``); the fill scatters
  each row to its slot's offset plus its rank. The host's ``thrust::exclusive_scan`` of
  the counts into offsets is a one-thread kernel of ours between the two. cuDF's
  ``Equal`` and ``Hasher`` are row comparators over a table; here they are functors of
  ours over one ``int`` key column, the hash the key itself and the table twice the
  keys' range (no two keys probe the same slot, so which key holds which slot, and so
  the groups' order, is the same whatever order the CASes run in). No WGSL port:
  WGSL has no ``match_any`` (round 36's port emulates ``labeled_partition`` one label
  at a time) and no thread scopes.

What they showed: tests/test_wild_round71.py.
"""

# ruff: noqa: E501  (the CUDA and WGSL keep their sources' long lines)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import Wild

# -- 1. cuda-samples reduce7: __reduce_add_sync and a ballot's mask ------------------------

_REDUCE7_CUDA = r"""// kernel-forge corpus: cuda-samples' reduction kernel 7 (reduction_kernel.cu), read,
// not copied: warp sums by __reduce_add_sync on sm_80 and later, a ballot for the last step.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

// dynamic shared memory typed by the template (an extern array per type would clash)
template <class T>
struct SharedMemory {
  __device__ inline operator T *() {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
  __device__ inline operator const T *() const {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
};

template <class T>
__device__ __forceinline__ T warpReduceSum(unsigned int mask, T mySum) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) {
    mySum += __shfl_down_sync(mask, mySum, offset);
  }
  return mySum;
}

#if __CUDA_ARCH__ >= 800
// ints on sm_80 and later: one redux.sync instead of five shuffles
template <>
__device__ __forceinline__ int warpReduceSum<int>(unsigned int mask, int mySum) {
  mySum = __reduce_add_sync(mask, mySum);
  return mySum;
}
#endif

template <typename T, unsigned int blockSize, bool nIsPow2>
__global__ void reduce7(const T *__restrict__ g_idata, T *__restrict__ g_odata,
                        unsigned int n) {
  T *sdata = SharedMemory<T>();

  unsigned int tid = threadIdx.x;
  unsigned int gridSize = blockSize * gridDim.x;
  // a block smaller than a warp: only its lanes in the mask
  unsigned int maskLength = (blockSize & 31);
  maskLength = (maskLength > 0) ? (32 - maskLength) : maskLength;
  const unsigned int mask = (0xffffffff) >> maskLength;

  T mySum = 0;

  if (nIsPow2) {
    unsigned int i = blockIdx.x * blockSize * 2 + threadIdx.x;
    gridSize = gridSize << 1;
    while (i < n) {
      mySum += g_idata[i];
      if ((i + blockSize) < n) {
        mySum += g_idata[i + blockSize];
      }
      i += gridSize;
    }
  } else {
    unsigned int i = blockIdx.x * blockSize + threadIdx.x;
    while (i < n) {
      mySum += g_idata[i];
      i += gridSize;
    }
  }

  mySum = warpReduceSum<T>(mask, mySum);

  // lane 0 of each warp keeps its warp's sum
  if ((tid % warpSize) == 0) {
    sdata[tid / warpSize] = mySum;
  }

  __syncthreads();

  const unsigned int shmem_extent =
      (blockSize / warpSize) > 0 ? (blockSize / warpSize) : 1;
  const unsigned int ballot_result = __ballot_sync(mask, tid < shmem_extent);
  if (tid < shmem_extent) {
    mySum = sdata[tid];
    mySum = warpReduceSum<T>(ballot_result, mySum);
  }

  if (tid == 0) {
    g_odata[blockIdx.x] = mySum;
  }
}

template __global__ void reduce7<int, 256, false>(const int *__restrict__, int *__restrict__, unsigned int);
"""

_REDUCE7_WGSL = """// cuda-samples' reduce7 as a WebGPU port: subgroupAdd where CUDA has
// __reduce_add_sync, one partial a subgroup, the first subgroup summing them.
enable subgroups;

struct Params {
    n: u32,
}

@group(0) @binding(0) var<storage, read> g_idata: array<i32>;
@group(0) @binding(1) var<storage, read_write> g_odata: array<i32>;
@group(0) @binding(2) var<uniform> params: Params;

const blockSize: u32 = 256u;
// one partial a subgroup: 256 of them at most (a subgroup of one)
var<workgroup> sdata: array<i32, 256>;

@compute @workgroup_size(256)
fn reduce7(@builtin(local_invocation_index) tid: u32,
           @builtin(workgroup_id) wid: vec3<u32>,
           @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(subgroup_invocation_id) lane: u32,
           @builtin(subgroup_size) width: u32) {
    let gridSize = blockSize * nwg.x;
    var mySum = 0;
    var i = wid.x * blockSize + tid;
    while (i < params.n) {
        mySum += g_idata[i];
        i += gridSize;
    }
    mySum = subgroupAdd(mySum);
    // the subgroup's first lane keeps its sum (subgroups are runs of local indices)
    if (lane == 0u) {
        sdata[tid / width] = mySum;
    }
    workgroupBarrier();
    let shmem_extent = max(blockSize / width, 1u);
    // every subgroup gathers the partials a lane's stride apart and sums them
    var total = 0;
    for (var k = lane; k < shmem_extent; k += width) {
        total += sdata[k];
    }
    total = subgroupAdd(total);
    if (tid == 0u) {
        g_odata[wid.x] = total;
    }
}
"""

_R7_THREADS = 256


def _r7_blocks(n: int) -> int:
    # getNumBlocksAndThreads for kernel 7: blocks of 256 threads, each counted for two
    # elements, at most 64
    return min(64, ceil_div(int(n), 2 * _R7_THREADS))


def _reduce7_reference(g_idata, g_odata, n):
    blocks = g_odata.size
    x = g_idata.astype(np.int64)
    owner = (np.arange(x.size) // _R7_THREADS) % blocks
    sums = np.zeros(blocks, np.int64)
    np.add.at(sums, owner, x)
    # int32 adds wrap, on the GPU and in the port
    return {"g_odata": sums.astype(np.uint64).astype(np.uint32).view(np.int32)}


def _reduce7_kernel(target: str) -> KernelSpec:
    return KernelSpec(
        id="wild_r71_cuda_samples_reduce7_reduce_add_sync"
        + ("" if target == "cuda" else "_webgpu_port"),
        entry_point="reduce7<int, 256, false>" if target == "cuda" else "reduce7",
        sources={"cuda": _REDUCE7_CUDA} if target == "cuda" else {"wgsl": _REDUCE7_WGSL},
        buffers=(
            BufferSpec(0, "i32", "read", name="g_idata"),
            BufferSpec(1, "i32", "read_write", name="g_odata", count=_r7_blocks),
            BufferSpec.uniform(2, (("n", "u32"),), name="params"),
        ),
        reference=_reduce7_reference,
        params=lambda n: {"n": int(n)},
        grid=lambda sch, n: (_r7_blocks(n), 1, 1),
        # reduce7's host: (threads / 32 + 1) ints of dynamic shared memory
        shared_bytes=(_R7_THREADS // 32 + 1) * 4 if target == "cuda" else None,
        schedules=(Schedule(_R7_THREADS),),
        # not powers of two (the nIsPow2 = false instantiation); 40000 runs 64 blocks
        # over more than one stride
        test_sizes=(40001, 1000, 777),
    )


REDUCE7_CUDA = Wild(
    _reduce7_kernel("cuda"),
    {
        "the last warp's partial left out of the ballot": (
            "cuda",
            "const unsigned int ballot_result = __ballot_sync(mask, tid < shmem_extent);\n  if (tid < shmem_extent) {",
            "const unsigned int ballot_result = __ballot_sync(mask, tid < shmem_extent - 1);\n  if (tid < shmem_extent - 1) {",
        ),
        # (storing by lane 1 was a mutant until the H100 ran it: __reduce_add_sync hands
        # every lane the sum, so any lane's store is right)
        "warp sums stored at the lane's index": (
            "cuda",
            "sdata[tid / warpSize] = mySum;",
            "sdata[tid % warpSize] = mySum;",
        ),
    },
)

REDUCE7_WGSL = Wild(
    _reduce7_kernel("wgsl"),
    {
        "the last subgroup's partial left out": (
            "wgsl",
            "for (var k = lane; k < shmem_extent; k += width) {",
            "for (var k = lane; k < shmem_extent - 1u; k += width) {",
        ),
        "the grid stride one block": (
            "wgsl",
            "i += gridSize;",
            "i += blockSize;",
        ),
    },
)


# -- 2. cuda-samples cg_reduce: a shared tree to 32, then cg::reduce over a tile --------

_CG_REDUCE_CUDA = r"""// kernel-forge corpus: cuda-samples' cg_reduce (reduction_kernel.cu), read, not
// copied: a block's shared tree down to one warp's worth, then cg::reduce in tile 0.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

template <class T>
struct SharedMemory {
  __device__ inline operator T *() {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
  __device__ inline operator const T *() const {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
};

template <typename T, typename Group>
__device__ T cg_reduce_n(T in, Group &threads) {
  return cg::reduce(threads, in, cg::plus<T>());
}

template <class T>
__global__ void cg_reduce(T *g_idata, T *g_odata, unsigned int n) {
  T *sdata = SharedMemory<T>();
  cg::thread_block cta = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cta);

  unsigned int ctaSize = cta.size();
  unsigned int numCtas = gridDim.x;
  unsigned int threadRank = cta.thread_rank();
  unsigned int threadIndex = (blockIdx.x * ctaSize) + threadRank;

  // each thread's grid-stride sum
  T threadVal = 0;
  {
    unsigned int i = threadIndex;
    unsigned int indexStride = (numCtas * ctaSize);
    while (i < n) {
      threadVal += g_idata[i];
      i += indexStride;
    }
    sdata[threadRank] = threadVal;
  }

  // the upper half onto the lower, a barrier before each level, until 32 remain
  {
    unsigned int ctaSteps = tile.meta_group_size();
    unsigned int ctaIndex = ctaSize >> 1;
    while (ctaIndex >= 32) {
      cta.sync();
      if (threadRank < ctaIndex) {
        threadVal += sdata[threadRank + ctaIndex];
        sdata[threadRank] = threadVal;
      }
      ctaSteps >>= 1;
      ctaIndex >>= 1;
    }
  }

  // the last 32 by the first tile's shuffles
  {
    cta.sync();
    if (tile.meta_group_rank() == 0) {
      threadVal = cg_reduce_n(threadVal, tile);
    }
  }

  if (threadRank == 0) g_odata[blockIdx.x] = threadVal;
}

template __global__ void cg_reduce<float>(float *, float *, unsigned int);
"""


def _cg_reduce_reference(g_idata, g_odata, n):
    blocks = g_odata.size
    owner = (np.arange(g_idata.size) // _R7_THREADS) % blocks
    sums = np.zeros(blocks, np.float32)
    np.add.at(sums, owner, g_idata.astype(np.float32))
    return {"g_odata": sums}


CG_REDUCE = Wild(
    KernelSpec(
        id="wild_r71_cuda_samples_cg_reduce_tiled_partition",
        entry_point="cg_reduce<float>",
        sources={"cuda": _CG_REDUCE_CUDA},
        buffers=(
            BufferSpec(0, "f32", "read", name="g_idata"),
            BufferSpec(1, "f32", "read_write", name="g_odata", count=_r7_blocks),
            BufferSpec.uniform(2, (("n", "u32"),), name="params"),
        ),
        reference=_cg_reduce_reference,
        params=lambda n: {"n": int(n)},
        grid=lambda sch, n: (_r7_blocks(n), 1, 1),
        shared_bytes=_R7_THREADS * 4,
        schedules=(Schedule(_R7_THREADS),),
        test_sizes=(40001, 1000, 777),
    ),
    {
        "the tile reduce over a partition of 16": (
            "cuda",
            "cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cta);",
            "cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cta);",
        ),
        "the tree stops at 64": (
            "cuda",
            "while (ctaIndex >= 32) {",
            "while (ctaIndex >= 64) {",
        ),
    },
)


# -- 3. CUB's block radix sort example: BlockLoad, BlockRadixSort, a shared union --------

_BLOCK_SORT_CUDA = r"""// kernel-forge corpus: CUB's example_block_radix_sort.cu (BlockSortKernel), read, not
// copied: one tile of BLOCK_THREADS * ITEMS_PER_THREAD keys sorted by each block.
#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>
#include <cub/block/block_radix_sort.cuh>

using namespace cub;

template <typename Key, int BLOCK_THREADS, int ITEMS_PER_THREAD>
__launch_bounds__(BLOCK_THREADS)
__global__ void BlockSortKernel(Key *d_in, Key *d_out, clock_t *d_elapsed)
{
    enum { TILE_SIZE = BLOCK_THREADS * ITEMS_PER_THREAD };

    // warp-striped loads, transposed in shared memory into a blocked arrangement
    typedef BlockLoad<Key, BLOCK_THREADS, ITEMS_PER_THREAD, BLOCK_LOAD_WARP_TRANSPOSE> BlockLoadT;
    typedef BlockRadixSort<Key, BLOCK_THREADS, ITEMS_PER_THREAD> BlockRadixSortT;

    // the load's and the sort's scratch share one allocation
    __shared__ union
    {
        typename BlockLoadT::TempStorage load;
        typename BlockRadixSortT::TempStorage sort;
    } temp_storage;

    Key items[ITEMS_PER_THREAD];
    int block_offset = blockIdx.x * TILE_SIZE;

    BlockLoadT(temp_storage.load).Load(d_in + block_offset, items);

    // the union is reused: every load done before the sort writes it
    __syncthreads();

    clock_t start = clock();
    BlockRadixSortT(temp_storage.sort).SortBlockedToStriped(items);
    clock_t stop = clock();

    StoreDirectStriped<BLOCK_THREADS>(threadIdx.x, d_out + block_offset, items);

    if (threadIdx.x == 0)
    {
        d_elapsed[blockIdx.x] = (start > stop) ? start - stop : stop - start;
    }
}

template __global__ void BlockSortKernel<float, 128, 13>(float *, float *, clock_t *);
"""

_SORT_TILE = 128 * 13


def _radix_order(keys: np.ndarray) -> np.ndarray:
    """CUB's radix sort order of float32 keys: the bits made unsigned-comparable (a
    negative key's bits all flipped, a positive key's sign bit set), so -0.0 sorts
    before +0.0 and a NaN by its bits (sign set: before -inf; clear: after +inf)."""
    bits = keys.view(np.uint32)
    twiddled = np.where(bits >> 31 == 1, ~bits, bits | np.uint32(0x80000000))
    return keys[np.argsort(twiddled, kind="stable")]


def _block_sort_reference(d_in, d_out):
    tiles = d_in.reshape(-1, _SORT_TILE)
    return {"d_out": np.concatenate([_radix_order(t) for t in tiles])}


CUB_BLOCK_SORT = Wild(
    KernelSpec(
        id="wild_r71_cub_block_radix_sort_fp32",
        entry_point="BlockSortKernel<float, 128, 13>",
        sources={"cuda": _BLOCK_SORT_CUDA},
        dims=("tiles",),
        buffers=(
            BufferSpec(0, "f32", "read", name="d_in", count=f"tiles*{_SORT_TILE}"),
            BufferSpec(1, "f32", "read_write", name="d_out", count=f"tiles*{_SORT_TILE}"),
            # clock_t is a long: the elapsed cycles, timing only
            BufferSpec(2, "i64", "read_write", name="d_elapsed", count="tiles", scratch=True),
        ),
        reference=_block_sort_reference,
        grid=lambda sch, s: (int(s.tiles), 1, 1),
        schedules=(Schedule(128),),
        # the example's --grid-size: one tile, and several
        test_sizes=("3", "1"),
    ),
    {
        "a blocked store after a striped sort": (
            "cuda",
            "StoreDirectStriped<BLOCK_THREADS>(threadIdx.x, d_out + block_offset, items);",
            "StoreDirectBlocked(threadIdx.x, d_out + block_offset, items);",
        ),
        "the sort's bits stop at 24": (
            "cuda",
            "SortBlockedToStriped(items);",
            "SortBlockedToStriped(items, 0, 24);",
        ),
        "no barrier before the union's reuse": (
            "cuda",
            "    __syncthreads();\n\n    clock_t start",
            "\n    clock_t start",
        ),
    },
    races=frozenset({"no barrier before the union's reuse"}),
)


# -- 4. cuDF's hash CSR groupby build: match_any, a leader's fetch_add, a shuffle --------

_HASH_CSR_CUDA = r"""// kernel-forge corpus: cuDF's hash_csr_build_kernel and hash_csr_fill_kernel
// (cpp/src/groupby/hash/hash_csr_kernels.cuh), read, not copied. cuDF's row comparator
// and row hasher are functors of ours over one int key column here.
#include <cuda/atomic>
#include <cuda/std/cstdint>
#include <cuda/std/limits>

using size_type = int32_t;
using bitmask_type = uint32_t;
using hash_value_type = uint32_t;
using hash_table_entry_type = size_type;

constexpr int warp_size = 32;
constexpr size_type CUDF_SIZE_TYPE_SENTINEL = -1;

// cuco::pair<uint32_t, size_type>: the row's slot and its rank among the slot's rows
struct alignas(8) build_position_type {
  cuda::std::uint32_t first;
  size_type second;
};

constexpr cuda::std::uint32_t hash_csr_no_slot =
  cuda::std::numeric_limits<cuda::std::uint32_t>::max();

__device__ inline bool bit_is_set(bitmask_type const* bitmask, size_type bit_index)
{
  return bitmask[bit_index / 32] & (bitmask_type{1} << (bit_index % 32));
}

// grid_1d's helpers: 64-bit thread ids
__device__ inline int64_t global_thread_id() { return int64_t{threadIdx.x} + int64_t{blockIdx.x} * blockDim.x; }
__device__ inline int64_t grid_stride() { return int64_t{blockDim.x} * gridDim.x; }

// the key column, copied in by the host (cudaMemcpyToSymbol): cuDF's comparator and
// hasher hold a device view of the table instead
#define MAX_ROWS 8192
__device__ int keys[MAX_ROWS];

// the rows' keys compared, and hashed to themselves
struct key_equal {
  __device__ bool operator()(size_type a, size_type b) const { return keys[a] == keys[b]; }
};
struct key_hasher {
  __device__ hash_value_type operator()(size_type row) const { return static_cast<hash_value_type>(keys[row]); }
};

// a linearly probed open-addressed table: each slot the first row that claimed it
struct hash_csr_table_ref {
  hash_table_entry_type* entries;
  cuda::std::uint32_t capacity;

  template <typename Equal>
  __device__ cuda::std::uint32_t insert_or_find(size_type row, hash_value_type hash, Equal const& equal) const
  {
    auto slot = static_cast<cuda::std::uint32_t>(hash % capacity);
    for (cuda::std::uint32_t step = 0; step < capacity; ++step) {
      auto entry_ref = cuda::atomic_ref<hash_table_entry_type, cuda::thread_scope_device>{entries[slot]};
      auto current = entry_ref.load(cuda::memory_order_relaxed);
      // read first: most rows find their key's slot taken, and only empty slots are CASed
      if (current == CUDF_SIZE_TYPE_SENTINEL &&
          entry_ref.compare_exchange_strong(current, row, cuda::memory_order_relaxed)) {
        return slot;
      }
      if (equal(row, current)) { return slot; }
      slot = slot + 1 == capacity ? 0 : slot + 1;
    }
    return capacity;
  }
};

// every valid row into the table; its slot and its rank within the slot into positions,
// one fetch_add a slot a warp
template <typename Equal, typename Hasher>
__global__ void hash_csr_build_kernel(size_type num_rows,
                                      bitmask_type const* valid_rows,
                                      build_position_type* positions,
                                      size_type* slot_counts,
                                      hash_csr_table_ref table,
                                      Equal equal,
                                      Hasher hasher)
{
  auto const lane = static_cast<cuda::std::uint32_t>(threadIdx.x % warp_size);
  auto const stride = grid_stride();
  // a warp's lanes run the same iterations, so the match and the shuffle see all 32
  for (auto first_row = global_thread_id() - lane; first_row < num_rows; first_row += stride) {
    auto const row = first_row + lane;
    auto const is_active =
      row < num_rows && (valid_rows == nullptr || bit_is_set(valid_rows, static_cast<size_type>(row)));
    auto slot = hash_csr_no_slot;
    if (is_active) {
      auto const index = static_cast<size_type>(row);
      slot = table.insert_or_find(index, hasher(index), equal);
    }
    if (positions == nullptr) { continue; }

    auto const active_mask = __ballot_sync(0xffff'ffffu, is_active);
    if (is_active) {
      auto const peers = __match_any_sync(active_mask, slot);
      auto const leader = __ffs(static_cast<int>(peers)) - 1;
      size_type first_rank{};
      if (lane == static_cast<cuda::std::uint32_t>(leader)) {
        first_rank = cuda::atomic_ref<size_type, cuda::thread_scope_device>{slot_counts[slot]}.fetch_add(
          static_cast<size_type>(__popc(static_cast<int>(peers))), cuda::memory_order_relaxed);
      }
      first_rank = __shfl_sync(peers, first_rank, leader);
      auto const rank_in_warp = static_cast<size_type>(__popc(static_cast<int>(peers & ((1u << lane) - 1u))));
      positions[row] = {slot, first_rank + rank_in_warp};
    } else if (row < num_rows) {
      positions[row] = {hash_csr_no_slot, CUDF_SIZE_TYPE_SENTINEL};
    }
  }
}

// the host's thrust::exclusive_scan of the counts (ours: one thread)
__global__ void exclusive_scan_counts(size_type const* slot_counts, size_type* slot_offsets, cuda::std::uint32_t capacity)
{
  if (threadIdx.x != 0 || blockIdx.x != 0) { return; }
  size_type running = 0;
  for (cuda::std::uint32_t s = 0; s < capacity; ++s) {
    slot_offsets[s] = running;
    running += slot_counts[s];
  }
}

// each valid row to its slot's offset plus its rank
__global__ void hash_csr_fill_kernel(size_type num_rows,
                                     build_position_type const* positions,
                                     size_type const* slot_offsets,
                                     size_type* grouped_rows)
{
  auto const stride = grid_stride();
  for (auto row = global_thread_id(); row < num_rows; row += stride) {
    auto const position = positions[row];
    if (position.first == hash_csr_no_slot) { continue; }
    grouped_rows[slot_offsets[position.first] + position.second] = static_cast<size_type>(row);
  }
}

template __global__ void hash_csr_build_kernel<key_equal, key_hasher>(size_type, bitmask_type const*, build_position_type*, size_type*, hash_csr_table_ref, key_equal, key_hasher);
"""

#: distinct keys, and the table's slots (cuDF sizes its table for every row; twice the
#: keys' range here, so the identity hash puts each key in a slot of its own)
_KEYS = 40
_CAPACITY = 2 * _KEYS


def _group_keys(rng, count, size):
    """Keys in [0, 40), a few hot (a groupby's skew: one key a quarter of the rows,
    another an eighth), the rest uniform; cuDF's keys are any row, the identity hash
    here needs them within the table."""
    keys = rng.integers(0, _KEYS, count)
    hot = rng.random(count)
    keys[hot < 0.25] = 7
    keys[(hot >= 0.25) & (hot < 0.375)] = 31
    return keys.astype(np.int32)


def _validity(rng, count, size):
    """cuDF's null mask: bit i of word i / 32 set where row i is valid; about one row in
    eight null (the default draws' words would make any share null)."""
    rows = int(size)
    bits = (rng.random(count * 32) >= 0.125).astype(np.uint64)
    bits[rows:] = 0
    words = (bits.reshape(-1, 32) << np.arange(32, dtype=np.uint64)).sum(axis=1)
    return words.astype(np.uint32)


def _valid_mask(valid_rows, n):
    bits = (valid_rows[:, None].astype(np.uint64) >> np.arange(32, dtype=np.uint64)) & 1
    return bits.reshape(-1)[:n].astype(bool)


def _hash_csr_reference(keys, valid_rows, num_rows):
    n = int(num_rows)
    valid = _valid_mask(valid_rows, n)
    counts = np.bincount(keys[:n][valid], minlength=_CAPACITY).astype(np.int32)
    offsets = (np.cumsum(counts) - counts).astype(np.int32)
    grouped = np.full(n, -1, np.int32)
    rows = np.flatnonzero(valid)
    order = rows[np.argsort(keys[rows], kind="stable")]
    grouped[: order.size] = order
    return {"slot_counts": counts, "slot_offsets": offsets, "grouped_rows": grouped}


def _csr_grid(sch, n):
    return (ceil_div(int(n), 256), 1, 1)


HASH_CSR = Wild(
    KernelSpec(
        id="wild_r71_cudf_hash_csr_match_any_atomic_ref",
        entry_point="hash_csr_build_kernel<key_equal, key_hasher>",
        sources={"cuda": _HASH_CSR_CUDA},
        buffers=(
            BufferSpec(0, "i32", "read", name="keys", fill=_group_keys),
            BufferSpec(
                1,
                "u32",
                "read",
                name="valid_rows",
                count=lambda n: ceil_div(int(n), 32),
                fill=_validity,
            ),
            # build_position_type: (slot, rank) a row; its ranks hang on the atomics' order
            BufferSpec(2, "i32", "read_write", name="positions", count="2*n", scratch=True),
            BufferSpec(3, "i32", "read_write", name="slot_counts", count=_CAPACITY, initial=0),
            BufferSpec(
                4, "i32", "read_write", name="entries", count=_CAPACITY, initial=-1, scratch=True
            ),
            BufferSpec(5, "i32", "read_write", name="slot_offsets", count=_CAPACITY),
            # the rows grouped by key: which of a key's rows comes first hangs on the
            # atomics, so the whole output is judged as a multiset (the valid rows, then
            # the sentinel the host leaves)
            BufferSpec(6, "i32", "read_write", name="grouped_rows", initial=-1, unordered=True),
            BufferSpec.uniform(7, (("entries", "u64"), ("capacity", "u32")), name="table"),
        ),
        reference=_hash_csr_reference,
        params=lambda n: {"num_rows": int(n), "capacity": _CAPACITY},
        # the functors are empty: their one byte each
        defaults={"equal": b"\0", "hasher": b"\0"},
        launches=(
            Dispatch(
                "hash_csr_build_kernel<key_equal, key_hasher>",
                grid=_csr_grid,
                arguments=(
                    "num_rows",
                    "valid_rows",
                    "positions",
                    "slot_counts",
                    "table",
                    "equal",
                    "hasher",
                ),
            ),
            Dispatch(
                "exclusive_scan_counts",
                grid=(1, 1, 1),
                arguments=("slot_counts", "slot_offsets", "capacity"),
            ),
            Dispatch(
                "hash_csr_fill_kernel",
                grid=_csr_grid,
                arguments=("num_rows", "positions", "slot_offsets", "grouped_rows"),
            ),
        ),
        schedules=(Schedule(256),),
        # a partial last warp and block; one warp's worth (at most MAX_ROWS)
        test_sizes=(5000, 1000, 45),
    ),
    {
        "the leader adds its own row only": (
            "cuda",
            "static_cast<size_type>(__popc(static_cast<int>(peers))), cuda::memory_order_relaxed);",
            "size_type{1}, cuda::memory_order_relaxed);",
        ),
        "the leader one lane past the first peer": (
            "cuda",
            "auto const leader = __ffs(static_cast<int>(peers)) - 1;",
            "auto const leader = __ffs(static_cast<int>(peers));",
        ),
        # (a rank counting the peers after the lane, not before, was a mutant until the
        # H100 ran it: it only permutes a slot's rows, and the rows are declared a multiset)
        "the rank counts the lane itself": (
            "cuda",
            "peers & ((1u << lane) - 1u)",
            "peers & ((2u << lane) - 1u)",
        ),
        "the count's atomic_ref at block scope": (
            "cuda",
            "cuda::atomic_ref<size_type, cuda::thread_scope_device>{slot_counts[slot]}",
            "cuda::atomic_ref<size_type, cuda::thread_scope_block>{slot_counts[slot]}",
        ),
    },
    invisible={
        ("the count's atomic_ref at block scope", "cuda"): (
            "a block-scoped fetch_add on global memory (atom.add.cta) is still one "
            "read-modify-write at L2 on NVIDIA's GPUs: the memory model allows another "
            "block to lose an add, no GPU is known to; no value shows it, and "
            "compute-sanitizer checks no scope"
        ),
    },
)


ROUND71 = {
    w.kernel.id: w for w in (REDUCE7_CUDA, REDUCE7_WGSL, CG_REDUCE, CUB_BLOCK_SORT, HASH_CSR)
}

"""Round 65 of kernels from the wild, merged into ``tests.wild.CORPUS``: LLM serving
kernels from vLLM (vllm-project/vllm, Apache-2.0, ``csrc/``) whose outputs are integers
chosen by float comparisons (a mixture-of-experts router's top-k experts), integers
sorted through atomics (the tokens grouped by expert, padded to the GEMM's block) or
buffers updated in place (a residual stream, a paged KV cache whose other slots must
keep what they hold). Each CUDA kernel is written for this corpus after the public file
named below: read, not copied (the project's rule for public code). What is theirs is
kept: the ``__global__`` functions' names and parameters (names, types, order), the
template instances the host's dispatch makes for float and int32 ids, the block sizes
and grids the host code launches, the shared memory and its barriers, the idioms
(``AlignedArray`` loads, ``VLLM_SHFL_XOR_SYNC_WIDTH`` butterflies, ``cub::BlockScan``
and ``cub::BlockReduce`` over 1024 threads, ``atomicAdd`` ranks) and the numerics
(``expf`` of the difference from the row's maximum, a reciprocal of the sum, ``>``
within a thread and the lower expert on equal maxima across threads, ``rsqrtf`` of the
mean square). What is ours: the comments, the formatting, and the WebGPU ports.

- The MoE router's fused top-k gating softmax, ``vllm::moe::topkGatingSoftmax``
  (``csrc/moe/topk_softmax_kernels.cu``, after TensorRT-LLM's ``moe_kernels.cu``): the
  instance the host's ``LAUNCH_SOFTMAX(16, 4, 16)`` makes for 16 experts,
  ``topkGatingSoftmax<4, 16, 4, 16, 32, int>`` (4 floats a thread loaded as one
  16-byte ``AlignedArray``, 4 threads a row, 8 rows a warp, blocks of (32, 4) for 32
  rows, ``finished`` null, experts 0 to 16 on this node). A row's softmax is reduced
  by ``__shfl_xor_sync`` butterflies of width 4; each of the k rounds takes a thread's
  best with ``>`` over its columns in order, then the group's with the lower expert on
  equal values, writes the value, the expert and ``source_rows = k_idx * num_rows +
  row``, and the winner's thread blanks it with -10000. Rows past ``num_rows`` return
  before the butterflies (upstream's; every lane of a row's group leaves together).
  The gating logits are drawn on a grid of 1/16, so that equal logits (and so equal
  probabilities on every device) are common, and a third of the rows repeat their
  largest logit at another expert: the tie rule (the lower expert) is judged, and the
  reference follows it (numpy's ``argmax``, the first of equal maxima). Distinct
  logits differ by 1/16 or more, far beyond any rounding of ``expf``. The port: a
  workgroup of (32, 4) too, the butterflies through workgroup memory between barriers.
- The MoE token sort, ``vllm::moe::moe_align_block_size_kernel<int32_t>`` then
  ``count_and_sort_expert_tokens_kernel<int32_t>`` (``csrc/moe/moe_align_sum_kernels.cu``,
  the path the host takes for 1024 ids or more, or more than 64 experts; round 50 has
  the small-batch kernel): two blocks of 1024, the second filling
  ``sorted_token_ids`` with ``numel``, the first counting ids per expert into
  ``extern __shared__`` counts a warp's 32 experts at a time by ``atomicAdd``, the
  counts rounded up to ``block_size`` and scanned with ``cub::BlockScan<int32_t,
  1024>::ExclusiveSum`` into ``cumsum`` and ``total_tokens_post_pad``, then
  ``expert_ids`` a block of ``block_size`` slots each and 0 after; then blocks of 256
  over ``(1, ceil(numel / 256))`` give each id its slot by ``atomicAdd`` on its
  expert's ``cumsum``. ``expert_map`` is null and ``has_expert_map`` false, as the host
  passes an empty map. Which slot of its expert's run an id gets hangs on the order of
  the atomics: ``sorted_token_ids`` is declared ``unordered`` and shaped in rows of
  ``block_size`` with ``numel`` as its sentinel ``initial``, so each row (one GEMM
  block, one expert's) is a multiset of its own, its ids first and the padding after.
  That judges an expert's ids only where they fit one row: the draws keep every
  expert at or under ``block_size`` ids (an expert that spans two rows may split its
  ids between them otherwise than the reference does; tests/test_wild_round65.py
  pins it). The port: workgroups of 256 (WebGPU's default limit, 128 experts or
  fewer), the scan a Hillis-Steele one in workgroup memory.
- The residual add and RMSNorm in place, ``vllm::fused_add_rms_norm_kernel<float, 0>``
  (``csrc/layernorm_kernels.cu``, the generic path every float input takes, with
  ``input_stride``; round 26 has the version before the stride): one block a token of
  ``min(hidden_size, 1024)`` threads (fewer than 256 tokens), ``residual += input``
  written back, the sum of squares by ``cub::BlockReduce<float, 1024>`` over
  ``blockDim.x`` items, ``rsqrtf(variance / hidden_size + epsilon)`` and ``input =
  (float)(x * s_variance) * weight``. The input is a view of rows of ``input_stride``
  floats (a slice of a wider projection): the floats past ``hidden_size`` in each row
  must keep theirs (``inout``). The port: 256 invocations, a tree in workgroup memory.
- The paged KV cache write, ``vllm::reshape_and_cache_flash_kernel<float, float,
  Fp8KVCacheDataType::kAuto>`` (``csrc/cache_kernels.cu``, the FlashAttention layout
  ``[num_blocks, block_size, num_heads, head_size]``, with the int ``block_stride``,
  ``key_stride``, ``value_stride`` and the scales by value of an earlier revision of
  the file; later ones take int64 page and head strides and scale pointers; round 29
  has the paged-attention layout's ``reshape_and_cache_kernel``): a block a token of
  ``min(num_heads * head_size, 512)`` threads, ``int64_t`` slots with -1 for a
  padding token (skipped), key and value strided views of a fused projection. Both
  caches are ``inout``: drawn, and every slot no token maps to must keep what it held.
  The port reads the int64 slots as ``vec2<i32>`` (WGSL has no i64).

What they showed: tests/test_wild_round65.py.
"""

# ruff: noqa: E501  (the CUDA and WGSL keep their sources' long lines)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import Wild

_F = np.float32

# -- 1. vLLM: the MoE router's fused top-k gating softmax ---------------------------------

_TOPK_CUDA = r"""// kernel-forge corpus: vLLM's topkGatingSoftmax (read, not copied).
#include <cuda_runtime.h>
#include <cstdint>

#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define VLLM_SHFL_XOR_SYNC_WIDTH(var, lane_mask, width) __shfl_xor_sync(uint32_t(-1), var, lane_mask, width)

namespace vllm {
namespace moe {

// N floats moved as one aligned load
template <typename T, int N, int Alignment = sizeof(T) * N>
class alignas(Alignment) AlignedArray {
  float data[N];
};

// one row of NUM_EXPERTS gating logits a group of THREADS_PER_ROW lanes: softmax, then k
// rounds of argmax, each winner blanked for the next
template <int VPT, int NUM_EXPERTS, int WARPS_PER_CTA, int BYTES_PER_LDG, int WARP_SIZE_PARAM, typename IndType>
__launch_bounds__(WARPS_PER_CTA * WARP_SIZE_PARAM) __global__
    void topkGatingSoftmax(const float* input, const bool* finished, float* output, const int num_rows, IndType* indices,
        int* source_rows, const int k, const int start_expert, const int end_expert) {
  static_assert(BYTES_PER_LDG == (BYTES_PER_LDG & -BYTES_PER_LDG), "BYTES_PER_LDG must be a power of 2");
  static_assert(BYTES_PER_LDG <= 16, "BYTES_PER_LDG must be at most 16");

  static constexpr int ELTS_PER_LDG = BYTES_PER_LDG / sizeof(float);
  static constexpr int ELTS_PER_ROW = NUM_EXPERTS;
  static constexpr int THREADS_PER_ROW = ELTS_PER_ROW / VPT;
  static constexpr int LDG_PER_THREAD = VPT / ELTS_PER_LDG;
  static_assert(VPT % ELTS_PER_LDG == 0, "");
  static_assert(WARP_SIZE_PARAM % THREADS_PER_ROW == 0, "");
  static_assert(THREADS_PER_ROW == (THREADS_PER_ROW & -THREADS_PER_ROW), "");
  static_assert(THREADS_PER_ROW <= WARP_SIZE_PARAM, "");

  static constexpr int ELTS_PER_WARP = WARP_SIZE_PARAM * VPT;
  static constexpr int ROWS_PER_WARP = ELTS_PER_WARP / ELTS_PER_ROW;
  static constexpr int ROWS_PER_CTA = WARPS_PER_CTA * ROWS_PER_WARP;
  static_assert(ELTS_PER_WARP % ELTS_PER_ROW == 0, "");

  // this thread's row: the block's rows, the warp's, then the lane group's
  const int cta_base_row = blockIdx.x * ROWS_PER_CTA;
  const int warp_base_row = cta_base_row + threadIdx.y * ROWS_PER_WARP;
  const int thread_row_in_warp = threadIdx.x / THREADS_PER_ROW;
  const int thread_row = warp_base_row + thread_row_in_warp;
  if (thread_row >= num_rows) {
    return;
  }
  const bool row_is_active = finished ? !finished[thread_row] : true;

  const float* thread_row_ptr = input + thread_row * ELTS_PER_ROW;
  const int thread_group_idx = threadIdx.x % THREADS_PER_ROW;
  const int first_elt_read_by_thread = thread_group_idx * ELTS_PER_LDG;
  const float* thread_read_ptr = thread_row_ptr + first_elt_read_by_thread;

  using AccessType = AlignedArray<float, ELTS_PER_LDG>;
  float row_chunk[VPT];
  AccessType* row_chunk_vec_ptr = reinterpret_cast<AccessType*>(&row_chunk);
  const AccessType* vec_thread_read_ptr = reinterpret_cast<const AccessType*>(thread_read_ptr);
#pragma unroll
  for (int ii = 0; ii < LDG_PER_THREAD; ++ii) {
    row_chunk_vec_ptr[ii] = vec_thread_read_ptr[ii * THREADS_PER_ROW];
  }

  // the row's maximum: the thread's, then the group's by butterfly
  float thread_max = row_chunk[0];
#pragma unroll
  for (int ii = 1; ii < VPT; ++ii) {
    thread_max = max(thread_max, row_chunk[ii]);
  }
#pragma unroll
  for (int mask = THREADS_PER_ROW / 2; mask > 0; mask /= 2) {
    thread_max = max(thread_max, VLLM_SHFL_XOR_SYNC_WIDTH(thread_max, mask, THREADS_PER_ROW));
  }

  float row_sum = 0;
#pragma unroll
  for (int ii = 0; ii < VPT; ++ii) {
    row_chunk[ii] = expf(row_chunk[ii] - thread_max);
    row_sum += row_chunk[ii];
  }
#pragma unroll
  for (int mask = THREADS_PER_ROW / 2; mask > 0; mask /= 2) {
    row_sum += VLLM_SHFL_XOR_SYNC_WIDTH(row_sum, mask, THREADS_PER_ROW);
  }

  const float reciprocal_row_sum = 1.f / row_sum;
#pragma unroll
  for (int ii = 0; ii < VPT; ++ii) {
    row_chunk[ii] = row_chunk[ii] * reciprocal_row_sum;
  }

  int start_col = first_elt_read_by_thread;
  static constexpr int COLS_PER_GROUP_LDG = ELTS_PER_LDG * THREADS_PER_ROW;

  for (int k_idx = 0; k_idx < k; ++k_idx) {
    // the thread's best: columns in increasing order, replaced only by a larger value
    float max_val = row_chunk[0];
    int expert = start_col;
#pragma unroll
    for (int ldg = 0, col = start_col; ldg < LDG_PER_THREAD; ++ldg, col += COLS_PER_GROUP_LDG) {
#pragma unroll
      for (int ii = 0; ii < ELTS_PER_LDG; ++ii) {
        float val = row_chunk[ldg * ELTS_PER_LDG + ii];
        if (val > max_val) {
          max_val = val;
          expert = col + ii;
        }
      }
    }

    // the group's best, every lane agreeing: the lower expert on equal values
#pragma unroll
    for (int mask = THREADS_PER_ROW / 2; mask > 0; mask /= 2) {
      float other_max = VLLM_SHFL_XOR_SYNC_WIDTH(max_val, mask, THREADS_PER_ROW);
      int other_expert = VLLM_SHFL_XOR_SYNC_WIDTH(expert, mask, THREADS_PER_ROW);
      if (other_max > max_val || (other_max == max_val && other_expert < expert)) {
        max_val = other_max;
        expert = other_expert;
      }
    }

    if (thread_group_idx == 0) {
      const bool node_uses_expert = expert >= start_expert && expert < end_expert;
      const bool should_process_row = row_is_active && node_uses_expert;
      const int idx = k * thread_row + k_idx;
      output[idx] = max_val;
      indices[idx] = should_process_row ? (expert - start_expert) : NUM_EXPERTS;
      source_rows[idx] = k_idx * num_rows + thread_row;
    }

    // the winner's thread blanks it for the next round (probabilities are >= 0)
    if (k_idx + 1 < k) {
      const int ldg_group_for_expert = expert / COLS_PER_GROUP_LDG;
      const int thread_to_clear_in_group = (expert / ELTS_PER_LDG) % THREADS_PER_ROW;
      if (thread_group_idx == thread_to_clear_in_group) {
        const int offset_for_expert = expert % ELTS_PER_LDG;
        row_chunk[ldg_group_for_expert * ELTS_PER_LDG + offset_for_expert] = -10000.f;
      }
    }
  }
}

template __global__ void topkGatingSoftmax<4, 16, 4, 16, 32, int>(const float*, const bool*, float*, const int, int*, int*, const int, const int, const int);

}  // namespace moe
}  // namespace vllm
"""

_TOPK_WGSL = """// vLLM's topkGatingSoftmax for 16 experts as a WebGPU port: a workgroup of (32, 4),
// 4 invocations a row, their butterflies through workgroup memory.
struct Params {
    num_rows: i32,
    k: i32,
    start_expert: i32,
    end_expert: i32,
}

@group(0) @binding(0) var<storage, read> input: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;
@group(0) @binding(2) var<storage, read_write> indices: array<i32>;
@group(0) @binding(3) var<storage, read_write> source_rows: array<i32>;
@group(0) @binding(4) var<uniform> p: Params;

const NUM_EXPERTS = 16;
const VPT = 4;
const THREADS_PER_ROW = 4u;
const ROWS_PER_WARP = 8;
const ROWS_PER_CTA = 32;

var<workgroup> lanes_f: array<f32, 128>;
var<workgroup> lanes_i: array<i32, 128>;

// the value of the invocation whose lane differs from this one's in mask
fn xor_f(slot: u32, v: f32, mask: u32) -> f32 {
    lanes_f[slot] = v;
    workgroupBarrier();
    let other = lanes_f[slot ^ mask];
    workgroupBarrier();
    return other;
}

fn xor_i(slot: u32, v: i32, mask: u32) -> i32 {
    lanes_i[slot] = v;
    workgroupBarrier();
    let other = lanes_i[slot ^ mask];
    workgroupBarrier();
    return other;
}

@compute @workgroup_size(32, 4)
fn topkGatingSoftmax(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let slot = lid.y * 32u + lid.x;
    let thread_row = i32(wg.x) * ROWS_PER_CTA + i32(lid.y) * ROWS_PER_WARP + i32(lid.x / THREADS_PER_ROW);
    // rows past the end run along (the barriers need every invocation) and write nothing
    let live = thread_row < p.num_rows;
    let group_idx = lid.x % THREADS_PER_ROW;
    let start_col = i32(group_idx) * VPT;

    var chunk = vec4<f32>(0.0);
    if (live) {
        chunk = input[thread_row * (NUM_EXPERTS / VPT) + i32(group_idx)];
    }
    var thread_max = max(max(chunk.x, chunk.y), max(chunk.z, chunk.w));
    for (var mask = THREADS_PER_ROW / 2u; mask > 0u; mask = mask / 2u) {
        thread_max = max(thread_max, xor_f(slot, thread_max, mask));
    }
    chunk = exp(chunk - vec4<f32>(thread_max));
    var row_sum = ((chunk.x + chunk.y) + chunk.z) + chunk.w;
    for (var mask = THREADS_PER_ROW / 2u; mask > 0u; mask = mask / 2u) {
        row_sum += xor_f(slot, row_sum, mask);
    }
    let reciprocal_row_sum = 1.0 / row_sum;
    chunk = chunk * reciprocal_row_sum;

    for (var k_idx = 0; k_idx < p.k; k_idx++) {
        var max_val = chunk[0];
        var expert = start_col;
        for (var ii = 1; ii < VPT; ii++) {
            let val = chunk[ii];
            if (val > max_val) {
                max_val = val;
                expert = start_col + ii;
            }
        }
        for (var mask = THREADS_PER_ROW / 2u; mask > 0u; mask = mask / 2u) {
            let other_max = xor_f(slot, max_val, mask);
            let other_expert = xor_i(slot, expert, mask);
            if (other_max > max_val || (other_max == max_val && other_expert < expert)) {
                max_val = other_max;
                expert = other_expert;
            }
        }
        if (live && group_idx == 0u) {
            let node_uses_expert = expert >= p.start_expert && expert < p.end_expert;
            let idx = p.k * thread_row + k_idx;
            output[idx] = max_val;
            indices[idx] = select(NUM_EXPERTS, expert - p.start_expert, node_uses_expert);
            source_rows[idx] = k_idx * p.num_rows + thread_row;
        }
        if (k_idx + 1 < p.k) {
            let thread_to_clear_in_group = (expert / VPT) % i32(THREADS_PER_ROW);
            if (i32(group_idx) == thread_to_clear_in_group) {
                chunk[expert % VPT] = -10000.0;
            }
        }
    }
}
"""

_TOPK_EXPERTS = 16


def _gating_logits(rng, count, size):
    """Router logits on a grid of 1/16 in [-3, 3]: equal logits are common (16 experts
    among 97 values), and a third of the rows repeat their largest at another expert,
    so that the top-k's first choice is a tie; distinct logits differ by 1/16 or more."""
    rows = int(size.T)
    logits = rng.integers(-48, 49, (rows, _TOPK_EXPERTS)).astype(_F) / _F(16)
    for row in np.flatnonzero(rng.random(rows) < 1 / 3):
        top = int(np.argmax(logits[row]))
        other = int(rng.choice([e for e in range(_TOPK_EXPERTS) if e != top]))
        logits[row, other] = logits[row, top]
    return logits.reshape(-1)[:count]


def _topk_reference(input, p):
    """The kernel's arithmetic in float32: ``expf`` of the difference from the row's
    maximum, the group's sum ((s0 + s2) + (s1 + s3), each thread's four in order), its
    reciprocal times each; then k rounds of the first of equal maxima (the lower expert),
    the winner blanked with -10000."""
    rows, k = int(p["num_rows"]), int(p["k"])
    x = input.reshape(rows, _TOPK_EXPERTS)
    e = np.exp(x - x.max(axis=1, keepdims=True)).astype(_F)
    part = e.reshape(rows, 4, 4)
    s = ((part[:, :, 0] + part[:, :, 1]) + part[:, :, 2]) + part[:, :, 3]
    row_sum = (s[:, 0] + s[:, 2]) + (s[:, 1] + s[:, 3])
    probs = e * (_F(1) / row_sum)[:, None]
    weights = np.zeros((rows, k), _F)
    indices = np.zeros((rows, k), np.int32)
    for kk in range(k):
        best = np.argmax(probs, axis=1)
        weights[:, kk] = probs[np.arange(rows), best]
        indices[:, kk] = best
        probs[np.arange(rows), best] = _F(-10000)
    source_rows = (np.arange(k)[None, :] * rows + np.arange(rows)[:, None]).astype(np.int32)
    return {
        "output": weights.reshape(-1),
        "indices": indices.reshape(-1),
        "source_rows": source_rows.reshape(-1),
    }


TOPK_SOFTMAX = Wild(
    KernelSpec(
        id="wild_r65_vllm_topk_gating_softmax_16_experts",
        entry_point="vllm::moe::topkGatingSoftmax<4, 16, 4, 16, 32, int>",
        entry_points={"wgsl": "topkGatingSoftmax"},
        sources={"cuda": _TOPK_CUDA, "wgsl": _TOPK_WGSL},
        dims=("T", "K"),
        buffers=(
            BufferSpec(0, "f32", "read", name="input", count="T*16", fill=_gating_logits),
            BufferSpec(1, "f32", "read_write", name="output", count="T*K"),
            BufferSpec(2, "i32", "read_write", name="indices", count="T*K"),
            BufferSpec(3, "i32", "read_write", name="source_rows", count="T*K"),
            BufferSpec.uniform(
                4,
                (("num_rows", "i32"), ("k", "i32"), ("start_expert", "i32"), ("end_expert", "i32")),
                name="p",
            ),
        ),
        reference=_topk_reference,
        params=lambda s: {"num_rows": s.T, "k": s.K},
        defaults={"start_expert": 0, "end_expert": _TOPK_EXPERTS},
        arguments=(
            "input",
            "nullptr",
            "output",
            "num_rows",
            "indices",
            "source_rows",
            "k",
            "start_expert",
            "end_expert",
        ),
        # ROWS_PER_CTA = 4 warps of 8 rows
        grid=lambda sch, s: (ceil_div(int(s.T), 32), 1, 1),
        schedules=(Schedule((32, 4)),),
        # 45 tokens: a second block of 13 rows, its last warps idle; top-4 of 16 (a
        # tie at the first choice in a third of the rows); 8 tokens, top-2 as Mixtral
        test_sizes=("45x4", "8x2"),
    ),
    {
        "CUDA: the group lets the higher expert win ties": (
            "cuda",
            "(other_max == max_val && other_expert < expert)",
            "(other_max == max_val && other_expert > expert)",
        ),
        "CUDA: the winner not blanked for the next round": (
            "cuda",
            "row_chunk[ldg_group_for_expert * ELTS_PER_LDG + offset_for_expert] = -10000.f;",
            "",
        ),
        "CUDA: source rows token-major": (
            "cuda",
            "source_rows[idx] = k_idx * num_rows + thread_row;",
            "source_rows[idx] = thread_row * k + k_idx;",
        ),
        "the group lets the higher expert win ties": (
            "wgsl",
            "(other_max == max_val && other_expert < expert)",
            "(other_max == max_val && other_expert > expert)",
        ),
        "a thread's own ties go to its last column": (
            "wgsl",
            "if (val > max_val) {",
            "if (val >= max_val) {",
        ),
        # (dropping the barrier between an exchange's write and read passes on both CPU
        # adapters: a row's 4 invocations run in one SIMD vector there, in lockstep)
        "the sum's butterfly one level short": (
            "wgsl",
            "mask > 0u; mask = mask / 2u) {\n        row_sum",
            "mask > 1u; mask = mask / 2u) {\n        row_sum",
        ),
    },
    races=frozenset(),
)


# -- 2. vLLM: moe_align_block_size, the large-batch kernels -------------------------------

_ALIGN_CUDA = r"""// kernel-forge corpus: vLLM's moe_align_block_size and count_and_sort_expert_tokens
// (read, not copied).
#include <cuda_runtime.h>
#include <cstdint>
// vLLM includes <cub/cub.cuh>, which CCCL refuses under NVRTC: the scan's own header
#include <cub/block/block_scan.cuh>

#define CEILDIV(x, y) (((x) + (y) - 1) / (y))
#define WARP_SIZE 32

namespace vllm {
namespace moe {

// block 1 pads sorted_token_ids with numel; block 0 counts the ids of each expert, rounds
// each count up to block_size, scans them into cumsum and writes each GEMM block's expert
template <typename scalar_t>
__global__ void moe_align_block_size_kernel(
    const scalar_t* __restrict__ topk_ids, int32_t* __restrict__ sorted_token_ids,
    int32_t* __restrict__ expert_ids, int32_t* __restrict__ total_tokens_post_pad,
    int32_t* __restrict__ expert_map, int32_t num_experts, int32_t padded_num_experts,
    int32_t experts_per_warp, int32_t block_size, size_t numel, int32_t* __restrict__ cumsum,
    int32_t max_num_tokens_padded, int32_t topk_num, bool has_expert_map) {
  extern __shared__ int32_t shared_counts[];

  if (blockIdx.x % 2) {
    for (size_t it = threadIdx.x; it < max_num_tokens_padded; it += blockDim.x) {
      sorted_token_ids[it] = numel;
    }
    return;
  }

  const int warp_id = threadIdx.x / WARP_SIZE;
  const int my_expert_start = warp_id * experts_per_warp;
  for (int i = 0; i < experts_per_warp; ++i) {
    if (my_expert_start + i < padded_num_experts) {
      shared_counts[warp_id * experts_per_warp + i] = 0;
    }
  }
  __syncthreads();

  const size_t tid = threadIdx.x;
  const size_t stride = blockDim.x;
  for (size_t i = tid; i < numel; i += stride) {
    int expert_id = static_cast<int>(topk_ids[i]);
    if (expert_id >= num_experts) {
      continue;
    }
    if (has_expert_map) {
      expert_id = expert_map[expert_id];
      if (expert_id == -1) {
        continue;
      }
    }
    int warp_idx = expert_id / experts_per_warp;
    int expert_offset = expert_id % experts_per_warp;
    atomicAdd(&shared_counts[warp_idx * experts_per_warp + expert_offset], 1);
  }
  __syncthreads();

  // a thread an expert: its count padded to whole GEMM blocks, scanned over the block
  using BlockScan = cub::BlockScan<int32_t, 1024>;
  __shared__ typename BlockScan::TempStorage temp_storage;

  int expert_count = 0;
  int expert_id = threadIdx.x;
  if (expert_id < num_experts) {
    int warp_idx = expert_id / experts_per_warp;
    int expert_offset = expert_id % experts_per_warp;
    expert_count = shared_counts[warp_idx * experts_per_warp + expert_offset];
    expert_count = CEILDIV(expert_count, block_size) * block_size;
  }

  int cumsum_val;
  BlockScan(temp_storage).ExclusiveSum(expert_count, cumsum_val);
  if (expert_id <= num_experts) {
    cumsum[expert_id] = cumsum_val;
  }
  if (expert_id == num_experts) {
    *total_tokens_post_pad = cumsum_val;
  }
  __syncthreads();

  if (threadIdx.x < num_experts) {
    for (int i = cumsum[threadIdx.x]; i < cumsum[threadIdx.x + 1]; i += block_size) {
      expert_ids[i / block_size] = threadIdx.x;
    }
  }

  // the GEMM blocks past the last expert's: expert 0
  const size_t fill_start_idx = cumsum[num_experts] / block_size + threadIdx.x;
  const size_t expert_ids_size = CEILDIV(max_num_tokens_padded, block_size);
  for (size_t i = fill_start_idx; i < expert_ids_size; i += blockDim.x) {
    expert_ids[i] = 0;
  }
}

// each id its slot in its expert's run, in whatever order the atomics give
template <typename scalar_t>
__global__ void count_and_sort_expert_tokens_kernel(
    const scalar_t* __restrict__ topk_ids, int32_t* __restrict__ sorted_token_ids,
    int32_t* __restrict__ cumsum_buffer, int32_t* __restrict__ expert_map, size_t numel,
    int32_t num_experts, int32_t max_num_tokens_padded, int32_t topk_num, bool has_expert_map) {
  const size_t tid = blockIdx.y * blockDim.x + threadIdx.x;
  const size_t stride = blockDim.x * gridDim.y;

  for (size_t i = tid; i < numel; i += stride) {
    int32_t expert_id = static_cast<int32_t>(topk_ids[i]);
    if (expert_id >= num_experts) {
      continue;
    }
    if (has_expert_map) {
      expert_id = expert_map[expert_id];
      if (expert_id == -1) {
        continue;
      }
    }
    int32_t rank_post_pad = atomicAdd(&cumsum_buffer[expert_id], 1);
    sorted_token_ids[rank_post_pad] = i;
  }
}

template __global__ void moe_align_block_size_kernel<int32_t>(const int32_t*, int32_t*, int32_t*, int32_t*, int32_t*, int32_t, int32_t, int32_t, int32_t, size_t, int32_t*, int32_t, int32_t, bool);
template __global__ void count_and_sort_expert_tokens_kernel<int32_t>(const int32_t*, int32_t*, int32_t*, int32_t*, size_t, int32_t, int32_t, int32_t, bool);

}  // namespace moe
}  // namespace vllm
"""

_ALIGN_WGSL = """// vLLM's moe_align_block_size and count_and_sort_expert_tokens as a WebGPU port:
// workgroups of 256 (128 experts or fewer), the scan a Hillis-Steele one.
struct Params {
    num_experts: i32,
    block_size: i32,
    numel: i32,
    max_num_tokens_padded: i32,
}

@group(0) @binding(0) var<storage, read> topk_ids: array<i32>;
@group(0) @binding(1) var<storage, read_write> sorted_token_ids: array<i32>;
@group(0) @binding(2) var<storage, read_write> expert_ids: array<i32>;
@group(0) @binding(3) var<storage, read_write> total_tokens_post_pad: array<i32>;
@group(0) @binding(4) var<storage, read_write> cumsum: array<atomic<i32>>;
@group(0) @binding(5) var<uniform> p: Params;

const THREADS = 256u;
var<workgroup> shared_counts: array<atomic<i32>, 256>;
var<workgroup> scan: array<i32, 256>;

@compute @workgroup_size(256)
fn moe_align_block_size(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (wg.x % 2u == 1u) {
        for (var it = i32(lid); it < p.max_num_tokens_padded; it += i32(THREADS)) {
            sorted_token_ids[it] = p.numel;
        }
        return;
    }
    atomicStore(&shared_counts[lid], 0);
    workgroupBarrier();
    for (var i = i32(lid); i < p.numel; i += i32(THREADS)) {
        let expert_id = topk_ids[i];
        if (expert_id >= p.num_experts) {
            continue;
        }
        atomicAdd(&shared_counts[expert_id], 1);
    }
    workgroupBarrier();

    let expert_id = i32(lid);
    var expert_count = 0;
    if (expert_id < p.num_experts) {
        expert_count = atomicLoad(&shared_counts[lid]);
        expert_count = (expert_count + p.block_size - 1) / p.block_size * p.block_size;
    }
    // inclusive scan of the padded counts
    scan[lid] = expert_count;
    workgroupBarrier();
    for (var offset = 1u; offset < THREADS; offset = offset * 2u) {
        var v = scan[lid];
        if (lid >= offset) {
            v += scan[lid - offset];
        }
        workgroupBarrier();
        scan[lid] = v;
        workgroupBarrier();
    }
    let cumsum_val = scan[lid] - expert_count;
    if (expert_id <= p.num_experts) {
        atomicStore(&cumsum[lid], cumsum_val);
    }
    if (expert_id == p.num_experts) {
        total_tokens_post_pad[0] = cumsum_val;
    }

    if (expert_id < p.num_experts) {
        for (var i = cumsum_val; i < scan[lid]; i += p.block_size) {
            expert_ids[i / p.block_size] = expert_id;
        }
    }
    let total = scan[p.num_experts - 1];
    let expert_ids_size = (p.max_num_tokens_padded + p.block_size - 1) / p.block_size;
    for (var i = total / p.block_size + i32(lid); i < expert_ids_size; i += i32(THREADS)) {
        expert_ids[i] = 0;
    }
}

@compute @workgroup_size(256)
fn count_and_sort_expert_tokens(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let tid = i32(wg.y * THREADS + lid);
    let stride = i32(THREADS * groups.y);
    for (var i = tid; i < p.numel; i += stride) {
        let expert_id = topk_ids[i];
        if (expert_id >= p.num_experts) {
            continue;
        }
        let rank_post_pad = atomicAdd(&cumsum[expert_id], 1);
        sorted_token_ids[rank_post_pad] = i;
    }
}
"""


def _topk_ids(rng, count, size):
    """A router's choices: each token's K distinct experts, the popular ones more often
    (weights falling as 1 / (1 + e / 8)), redrawn until no expert has more than BS ids
    (so each expert's ids fill one GEMM block: see the module's docstring)."""
    t, k, e, bs = int(size.T), int(size.K), int(size.E), int(size.BS)
    weight = 1.0 / (1.0 + np.arange(e) / 8.0)
    weight /= weight.sum()
    while True:
        ids = np.stack([rng.choice(e, k, replace=False, p=weight) for _ in range(t)])
        if np.bincount(ids.reshape(-1), minlength=e).max() <= bs:
            return ids.reshape(-1).astype(np.int32)[:count]


def _align_reference(topk_ids, T, K, E, BS):
    """Each expert's ids in token order, its run padded with numel to whole blocks of BS;
    each block's expert, 0 past the last; the padded total."""
    numel, e, bs = int(T) * int(K), int(E), int(BS)
    padded = numel + e * (bs - 1)
    sorted_ids = np.full(padded, numel, np.int32)
    expert_ids = np.zeros(ceil_div(padded, bs), np.int32)
    at = 0
    for expert in range(e):
        ids = np.flatnonzero(topk_ids == expert)
        sorted_ids[at : at + len(ids)] = ids
        run = ceil_div(len(ids), bs) * bs
        expert_ids[at // bs : (at + run) // bs] = expert
        at += run
    return {
        "sorted_token_ids": sorted_ids.reshape(-1, bs),
        "expert_ids": expert_ids,
        "total_tokens_post_pad": np.array([at], np.int32),
    }


def _align_blocks(s) -> int:
    """The GEMM blocks ``max_num_tokens_padded`` makes, ``numel + E * (BS - 1)`` over BS."""
    return ceil_div(int(s.T) * int(s.K) + int(s.E) * (int(s.BS) - 1), int(s.BS))


def _align_buffers(uniform: tuple = ()) -> tuple:
    return (
        BufferSpec(0, "i32", "read", name="topk_ids", count="T*K", fill=_topk_ids),
        # rows of one GEMM block: a multiset each, the ids first, numel after
        BufferSpec(
            1,
            "i32",
            "read_write",
            name="sorted_token_ids",
            count="T*K+E*(BS-1)",
            shape=(_align_blocks, "BS"),
            initial=lambda s: int(s.T) * int(s.K),
            unordered=True,
        ),
        BufferSpec(2, "i32", "read_write", name="expert_ids", count=_align_blocks, initial=-1),
        BufferSpec(3, "i32", "read_write", name="total_tokens_post_pad", count=1, initial=-1),
        BufferSpec(4, "i32", "read_write", name="cumsum", count="E+1", scratch=True, initial=0),
        *uniform,
    )


_ALIGN_SIZES = (
    # 128 experts (DeepSeek's count is 256): the big kernel though numel is under 1024;
    # 40 tokens of 8, blocks of 16
    "40x8x128x16",
    # 1280 ids over 64 experts in blocks of 64, five sort blocks
    "160x8x64x64",
)

ALIGN_CUDA = Wild(
    KernelSpec(
        id="wild_r65_vllm_moe_align_block_size_cub_scan_and_atomic_sort",
        entry_point="vllm::moe::moe_align_block_size_kernel<int32_t>",
        sources={"cuda": _ALIGN_CUDA},
        dims=("T", "K", "E", "BS"),
        buffers=_align_buffers(),
        reference=_align_reference,
        params=lambda s: {
            "num_experts": s.E,
            "padded_num_experts": ceil_div(int(s.E), 32) * 32,
            "experts_per_warp": 32,
            "block_size": s.BS,
            "numel": int(s.T) * int(s.K),
            "max_num_tokens_padded": int(s.T) * int(s.K) + int(s.E) * (int(s.BS) - 1),
            "topk_num": s.K,
            "has_expert_map": False,
        },
        launches=(
            Dispatch(
                "vllm::moe::moe_align_block_size_kernel<int32_t>",
                grid=(2, 1, 1),
                schedule=Schedule(1024),
                shared_bytes=lambda sch, s: ceil_div(int(s.E), 32) * 32 * 4,
                arguments=(
                    "topk_ids",
                    "sorted_token_ids",
                    "expert_ids",
                    "total_tokens_post_pad",
                    "nullptr",
                    "num_experts",
                    "padded_num_experts",
                    "experts_per_warp",
                    "block_size",
                    "numel",
                    "cumsum",
                    "max_num_tokens_padded",
                    "topk_num",
                    "has_expert_map",
                ),
            ),
            Dispatch(
                "vllm::moe::count_and_sort_expert_tokens_kernel<int32_t>",
                grid=lambda sch, s: (1, min(ceil_div(int(s.T) * int(s.K), 256), 65535), 1),
                schedule=Schedule(256),
                arguments=(
                    "topk_ids",
                    "sorted_token_ids",
                    "cumsum",
                    "nullptr",
                    "numel",
                    "num_experts",
                    "max_num_tokens_padded",
                    "topk_num",
                    "has_expert_map",
                ),
            ),
        ),
        schedules=(Schedule(1024),),
        test_sizes=_ALIGN_SIZES,
    ),
    {
        "padding rounded down": (
            "cuda",
            "expert_count = CEILDIV(expert_count, block_size) * block_size;",
            "expert_count = expert_count / block_size * block_size;",
        ),
        "no barrier after the counts": (
            "cuda",
            "    atomicAdd(&shared_counts[warp_idx * experts_per_warp + expert_offset], 1);\n  }\n  __syncthreads();\n",
            "    atomicAdd(&shared_counts[warp_idx * experts_per_warp + expert_offset], 1);\n  }\n",
        ),
        "the rank taken one past": (
            "cuda",
            "sorted_token_ids[rank_post_pad] = i;",
            "sorted_token_ids[rank_post_pad + 1] = i;",
        ),
    },
    # neither the values nor compute-sanitizer show it on an H100 (2026-12-07, T=40,
    # K=8): racecheck tracks no shared-memory atomic against a later plain read, and
    # the 320 atomicAdds land before any thread of the block reads a count
    invisible_on={
        ("no barrier after the counts", "cuda", "NVIDIA"): "the block's 320 shared-memory "
        "atomicAdds land before any thread reads a count, and racecheck does not track "
        "atomics against plain reads (H100, 2026-12-07)"
    },
)

ALIGN_WGSL = Wild(
    KernelSpec(
        id="wild_r65_vllm_moe_align_block_size_webgpu_port",
        entry_point="moe_align_block_size",
        sources={"wgsl": _ALIGN_WGSL},
        dims=("T", "K", "E", "BS"),
        buffers=_align_buffers(
            (
                BufferSpec.uniform(
                    5,
                    (
                        ("num_experts", "i32"),
                        ("block_size", "i32"),
                        ("numel", "i32"),
                        ("max_num_tokens_padded", "i32"),
                    ),
                    name="p",
                ),
            )
        ),
        reference=_align_reference,
        params=lambda s: {
            "num_experts": s.E,
            "block_size": s.BS,
            "numel": int(s.T) * int(s.K),
            "max_num_tokens_padded": int(s.T) * int(s.K) + int(s.E) * (int(s.BS) - 1),
        },
        launches=(
            Dispatch("moe_align_block_size", grid=(2, 1, 1)),
            Dispatch(
                "count_and_sort_expert_tokens",
                grid=lambda sch, s: (1, ceil_div(int(s.T) * int(s.K), 256), 1),
            ),
        ),
        schedules=(Schedule(256),),
        test_sizes=_ALIGN_SIZES,
    ),
    {
        "padding rounded down": (
            "wgsl",
            "expert_count = (expert_count + p.block_size - 1) / p.block_size * p.block_size;",
            "expert_count = expert_count / p.block_size * p.block_size;",
        ),
        "the scan reads before its neighbour wrote": (
            "wgsl",
            "        workgroupBarrier();\n        scan[lid] = v;\n",
            "        scan[lid] = v;\n",
        ),
        "the rank taken one past": (
            "wgsl",
            "sorted_token_ids[rank_post_pad] = i;",
            "sorted_token_ids[rank_post_pad + 1] = i;",
        ),
        "an expert's last block not marked": (
            "wgsl",
            "for (var i = cumsum_val; i < scan[lid]; i += p.block_size)",
            "for (var i = cumsum_val; i + p.block_size < scan[lid]; i += p.block_size)",
        ),
    },
    invisible_on={
        ("the scan reads before its neighbour wrote", "wgsl", "NVIDIA"): "NVIDIA's Vulkan "
        "driver ran the Hillis-Steele step's reads after its neighbours' writes without "
        "the barrier (H100, 2026-12-07); lavapipe and SwiftShader show it"
    },
)


# -- 3. vLLM: fused_add_rms_norm, the generic path with input_stride ----------------------

_RMS_CUDA = r"""// kernel-forge corpus: vLLM's fused_add_rms_norm_kernel, the generic path (read, not copied).
#include <cuda_runtime.h>
#include <cstdint>
#include <type_traits>
// vLLM includes <cub/cub.cuh>, which CCCL refuses under NVRTC: the reduction's own header
#include <cub/block/block_reduce.cuh>
#include <cuda/std/functional>

// vLLM's cub_helpers.h: CCCL 3 has no cub::Sum
using CubAddOp = cuda::std::plus<>;

namespace vllm {

// the half and bfloat16 converters the vectorised path needs; float has none
template <typename scalar_t>
struct _typeConvert {
  static constexpr bool exists = false;
};

// one token a block: residual += input (written back), then input = RMSNorm(residual) * weight
template <typename scalar_t, int width>
__global__ std::enable_if_t<(width == 0) || !_typeConvert<scalar_t>::exists> fused_add_rms_norm_kernel(
    scalar_t* __restrict__ input,          // [..., hidden_size], rows input_stride apart
    const int64_t input_stride,
    scalar_t* __restrict__ residual,       // [..., hidden_size]
    const scalar_t* __restrict__ weight,   // [hidden_size]
    const float epsilon, const int num_tokens, const int hidden_size) {
  __shared__ float s_variance;
  float variance = 0.0f;

  for (int idx = threadIdx.x; idx < hidden_size; idx += blockDim.x) {
    scalar_t z = input[blockIdx.x * input_stride + idx];
    z += residual[blockIdx.x * hidden_size + idx];
    float x = (float)z;
    variance += x * x;
    residual[blockIdx.x * hidden_size + idx] = z;
  }

  using BlockReduce = cub::BlockReduce<float, 1024>;
  __shared__ typename BlockReduce::TempStorage reduceStore;
  variance = BlockReduce(reduceStore).Reduce(variance, CubAddOp{}, blockDim.x);

  if (threadIdx.x == 0) {
    s_variance = rsqrtf(variance / hidden_size + epsilon);
  }
  __syncthreads();

  for (int idx = threadIdx.x; idx < hidden_size; idx += blockDim.x) {
    float x = (float)residual[blockIdx.x * hidden_size + idx];
    input[blockIdx.x * input_stride + idx] = ((scalar_t)(x * s_variance)) * weight[idx];
  }
}

template __global__ void fused_add_rms_norm_kernel<float, 0>(float*, const int64_t, float*, const float*, const float, const int, const int);

}  // namespace vllm
"""

_RMS_WGSL = """// vLLM's fused_add_rms_norm_kernel as a WebGPU port: a workgroup a token of 256, the
// sum of squares a tree in workgroup memory.
struct Params {
    input_stride: u32,
    epsilon: f32,
    num_tokens: u32,
    hidden_size: u32,
}

@group(0) @binding(0) var<storage, read_write> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> residual: array<f32>;
@group(0) @binding(2) var<storage, read> weight: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

var<workgroup> partial: array<f32, 256>;
var<workgroup> s_variance: f32;

@compute @workgroup_size(256)
fn fused_add_rms_norm_kernel(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let in_row = wg.x * p.input_stride;
    let res_row = wg.x * p.hidden_size;
    var variance = 0.0;
    for (var idx = lid; idx < p.hidden_size; idx += 256u) {
        let z = input[in_row + idx] + residual[res_row + idx];
        variance += z * z;
        residual[res_row + idx] = z;
    }
    partial[lid] = variance;
    workgroupBarrier();
    for (var half_width = 128u; half_width > 0u; half_width = half_width / 2u) {
        if (lid < half_width) {
            partial[lid] += partial[lid + half_width];
        }
        workgroupBarrier();
    }
    if (lid == 0u) {
        s_variance = inverseSqrt(partial[0] / f32(p.hidden_size) + p.epsilon);
    }
    workgroupBarrier();
    for (var idx = lid; idx < p.hidden_size; idx += 256u) {
        let x = residual[res_row + idx];
        input[in_row + idx] = (x * s_variance) * weight[idx];
    }
}
"""


def _rms_reference(input, residual, weight, params):
    """residual <- input + residual in float32; input's first hidden_size floats of each
    row <- (float32(x * rsqrt(mean(x^2) + eps))) * weight, the rest of the row kept."""
    t, h, stride = (
        int(params["num_tokens"]),
        int(params["hidden_size"]),
        int(params["input_stride"]),
    )
    rows = input.reshape(t, stride).copy()
    z = rows[:, :h] + residual.reshape(t, h)
    wide = z.astype(np.float64)
    scale = 1.0 / np.sqrt((wide * wide).mean(axis=1, keepdims=True) + float(params["epsilon"]))
    rows[:, :h] = (wide * scale).astype(_F) * weight
    return {"input": rows.reshape(-1), "residual": z.reshape(-1)}


RMS_NORM = Wild(
    KernelSpec(
        id="wild_r65_vllm_fused_add_rms_norm_strided_input",
        entry_point="vllm::fused_add_rms_norm_kernel<float, 0>",
        entry_points={"wgsl": "fused_add_rms_norm_kernel"},
        sources={"cuda": _RMS_CUDA, "wgsl": _RMS_WGSL},
        dims=("T", "H", "S"),
        buffers=(
            BufferSpec(0, "f32", "read_write", name="input", count="T*S", inout=True),
            BufferSpec(1, "f32", "read_write", name="residual", count="T*H", inout=True),
            BufferSpec(2, "f32", "read", name="weight", count="H"),
            BufferSpec.uniform(
                3,
                (
                    ("input_stride", "u32"),
                    ("epsilon", "f32"),
                    ("num_tokens", "u32"),
                    ("hidden_size", "u32"),
                ),
                name="p",
            ),
        ),
        reference=_rms_reference,
        params=lambda s: {"input_stride": s.S, "num_tokens": s.T, "hidden_size": s.H},
        defaults={"epsilon": 1e-6},
        # the host's block for fewer than 256 tokens: min(hidden_size, 1024)
        grid=lambda sch, s: (int(s.T), 1, 1),
        schedules=(Schedule(256),),
        launches=(
            Dispatch(
                "vllm::fused_add_rms_norm_kernel<float, 0>",
                grid=lambda sch, s: (int(s.T), 1, 1),
                schedule={"cuda": lambda sch, s: Schedule(min(int(s.H), 1024))},
            ),
        ),
        domain={"input": (-4.0, 4.0), "residual": (-4.0, 4.0), "weight": (0.5, 1.5)},
        nonfinite_inputs=False,
        # the input a slice of a wider projection (rows of 1536, of which 1000 or 2048...)
        test_sizes=("5x1000x1536", "3x2048x3072", "2x100x100"),
    ),
    {
        "CUDA: the residual not written back": (
            "cuda",
            "    residual[blockIdx.x * hidden_size + idx] = z;\n",
            "",
        ),
        "CUDA: input rows at hidden_size": (
            "cuda",
            "input[blockIdx.x * input_stride + idx] = ((scalar_t)",
            "input[blockIdx.x * hidden_size + idx] = ((scalar_t)",
        ),
        "CUDA: no barrier after s_variance": (
            "cuda",
            "s_variance = rsqrtf(variance / hidden_size + epsilon);\n  }\n  __syncthreads();",
            "s_variance = rsqrtf(variance / hidden_size + epsilon);\n  }",
        ),
        "the residual not written back": (
            "wgsl",
            "        residual[res_row + idx] = z;\n",
            "",
        ),
        "input rows at hidden_size": (
            "wgsl",
            "let in_row = wg.x * p.input_stride;",
            "let in_row = wg.x * p.hidden_size;",
        ),
        "the tree's first level skipped": (
            "wgsl",
            "half_width = 128u; half_width > 0u",
            "half_width = 64u; half_width > 0u",
        ),
    },
    races=frozenset({"CUDA: no barrier after s_variance"}),
)


# -- 4. vLLM: reshape_and_cache_flash, the paged KV cache write ---------------------------

_CACHE_CUDA = r"""// kernel-forge corpus: vLLM's reshape_and_cache_flash_kernel (read, not copied).
#include <cuda_runtime.h>
#include <cstdint>

namespace vllm {

enum class Fp8KVCacheDataType {
  kAuto = 0,
  kFp8E4M3 = 1,
  kFp8E5M2 = 2,
};

// one token a block: its keys and values to slot slot_mapping[token] of the paged caches
// ([num_blocks, block_size, num_heads, head_size]); a slot of -1 is a padding token
template <typename scalar_t, typename cache_t, Fp8KVCacheDataType kv_dt>
__global__ void reshape_and_cache_flash_kernel(
    const scalar_t* __restrict__ key,    // [num_tokens, num_heads, head_size]
    const scalar_t* __restrict__ value,  // [num_tokens, num_heads, head_size]
    cache_t* __restrict__ key_cache,     // [num_blocks, block_size, num_heads, head_size]
    cache_t* __restrict__ value_cache,   // [num_blocks, block_size, num_heads, head_size]
    const int64_t* __restrict__ slot_mapping,  // [num_tokens]
    const int block_stride, const int key_stride, const int value_stride,
    const int num_heads, const int head_size, const int block_size,
    const float k_scale, const float v_scale) {
  const int64_t token_idx = blockIdx.x;
  const int64_t slot_idx = slot_mapping[token_idx];
  // a padded token has no slot
  if (slot_idx < 0) {
    return;
  }
  const int64_t block_idx = slot_idx / block_size;
  const int64_t block_offset = slot_idx % block_size;
  const int n = num_heads * head_size;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const int64_t src_key_idx = token_idx * key_stride + i;
    const int64_t src_value_idx = token_idx * value_stride + i;
    const int head_idx = i / head_size;
    const int head_offset = i % head_size;
    const int64_t tgt_key_value_idx = block_idx * block_stride +
                                      block_offset * num_heads * head_size +
                                      head_idx * head_size + head_offset;
    scalar_t tgt_key = key[src_key_idx];
    scalar_t tgt_value = value[src_value_idx];
    if constexpr (kv_dt == Fp8KVCacheDataType::kAuto) {
      key_cache[tgt_key_value_idx] = tgt_key;
      value_cache[tgt_key_value_idx] = tgt_value;
    }
  }
}

template __global__ void reshape_and_cache_flash_kernel<float, float, Fp8KVCacheDataType::kAuto>(const float*, const float*, float*, float*, const int64_t*, const int, const int, const int, const int, const int, const int, const float, const float);

}  // namespace vllm
"""

_CACHE_WGSL = """// vLLM's reshape_and_cache_flash_kernel as a WebGPU port: a workgroup a token, the
// int64 slots read as two i32 words (WGSL has no i64; the high word is the sign's).
struct Params {
    block_stride: i32,
    key_stride: i32,
    value_stride: i32,
    num_heads: i32,
    head_size: i32,
    block_size: i32,
}

@group(0) @binding(0) var<storage, read> key: array<f32>;
@group(0) @binding(1) var<storage, read> value: array<f32>;
@group(0) @binding(2) var<storage, read_write> key_cache: array<f32>;
@group(0) @binding(3) var<storage, read_write> value_cache: array<f32>;
@group(0) @binding(4) var<storage, read> slot_mapping: array<vec2<i32>>;
@group(0) @binding(5) var<uniform> p: Params;

@compute @workgroup_size(128)
fn reshape_and_cache_flash_kernel(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let token_idx = i32(wg.x);
    let slot = slot_mapping[token_idx];
    if (slot.y < 0) {
        return;
    }
    let block_idx = slot.x / p.block_size;
    let block_offset = slot.x % p.block_size;
    let n = p.num_heads * p.head_size;
    for (var i = i32(lid); i < n; i += 128) {
        let head_idx = i / p.head_size;
        let head_offset = i % p.head_size;
        let tgt = block_idx * p.block_stride + block_offset * n + head_idx * p.head_size + head_offset;
        key_cache[tgt] = key[token_idx * p.key_stride + i];
        value_cache[tgt] = value[token_idx * p.value_stride + i];
    }
}
"""

_PAGES = 5
_PAGE_SLOTS = 16


def _slots(rng, count, size):
    """A batch's slots: distinct slots anywhere in the 5 pages of 16 (a sequence's pages
    are scattered), a quarter of the tokens padding (-1), the first always a real slot
    and the last always padding."""
    slots = rng.permutation(_PAGES * _PAGE_SLOTS)[:count].astype(np.int64)
    slots[rng.random(count) < 0.25] = -1
    slots[0] = abs(slots[0]) if slots[0] >= 0 else rng.integers(0, _PAGES * _PAGE_SLOTS)
    if count > 1:
        slots[-1] = -1
    return slots


def _cache_reference(key, value, key_cache, value_cache, slot_mapping, p):
    nh, hs = int(p["num_heads"]), int(p["head_size"])
    kc = key_cache.reshape(_PAGES * _PAGE_SLOTS, nh * hs).copy()
    vc = value_cache.reshape(_PAGES * _PAGE_SLOTS, nh * hs).copy()
    for t, slot in enumerate(slot_mapping):
        if slot < 0:
            continue
        kc[slot] = key[t * int(p["key_stride"]) :][: nh * hs]
        vc[slot] = value[t * int(p["value_stride"]) :][: nh * hs]
    return {"key_cache": kc.reshape(-1), "value_cache": vc.reshape(-1)}


_CACHE_SLOTS_COUNT = _PAGES * _PAGE_SLOTS

RESHAPE_AND_CACHE_FLASH = Wild(
    KernelSpec(
        id="wild_r65_vllm_reshape_and_cache_flash_padding_slots_kept",
        entry_point="vllm::reshape_and_cache_flash_kernel<float, float, vllm::Fp8KVCacheDataType::kAuto>",
        entry_points={"wgsl": "reshape_and_cache_flash_kernel"},
        sources={"cuda": _CACHE_CUDA, "wgsl": _CACHE_WGSL},
        dims=("T", "NH", "HS"),
        buffers=(
            # key and value are views of a [T, 3, NH, HS] qkv projection: stride 3 NH HS
            BufferSpec(0, "f32", "read", name="key", count="T*3*NH*HS"),
            BufferSpec(1, "f32", "read", name="value", count="T*3*NH*HS"),
            BufferSpec(
                2,
                "f32",
                "read_write",
                name="key_cache",
                count=lambda s: _CACHE_SLOTS_COUNT * int(s.NH) * int(s.HS),
                inout=True,
            ),
            BufferSpec(
                3,
                "f32",
                "read_write",
                name="value_cache",
                count=lambda s: _CACHE_SLOTS_COUNT * int(s.NH) * int(s.HS),
                inout=True,
            ),
            BufferSpec(4, "i64", "read", name="slot_mapping", count="T", fill=_slots),
            BufferSpec.uniform(
                5,
                (
                    ("block_stride", "i32"),
                    ("key_stride", "i32"),
                    ("value_stride", "i32"),
                    ("num_heads", "i32"),
                    ("head_size", "i32"),
                    ("block_size", "i32"),
                ),
                name="p",
            ),
        ),
        reference=_cache_reference,
        params=lambda s: {
            "block_stride": _PAGE_SLOTS * int(s.NH) * int(s.HS),
            "key_stride": 3 * int(s.NH) * int(s.HS),
            "value_stride": 3 * int(s.NH) * int(s.HS),
            "num_heads": s.NH,
            "head_size": s.HS,
        },
        defaults={"block_size": _PAGE_SLOTS, "k_scale": 1.0, "v_scale": 1.0},
        arguments=(
            "key",
            "value",
            "key_cache",
            "value_cache",
            "slot_mapping",
            "block_stride",
            "key_stride",
            "value_stride",
            "num_heads",
            "head_size",
            "block_size",
            "k_scale",
            "v_scale",
        ),
        grid=lambda sch, s: (int(s.T), 1, 1),
        schedules=(Schedule(128),),
        launches=(
            Dispatch(
                "vllm::reshape_and_cache_flash_kernel<float, float, vllm::Fp8KVCacheDataType::kAuto>",
                grid=lambda sch, s: (int(s.T), 1, 1),
                # the host's block: min(num_heads * head_size, 512)
                schedule={"cuda": lambda sch, s: Schedule(min(int(s.NH) * int(s.HS), 512))},
            ),
        ),
        # 37 tokens of 4 kv heads of 64 (two passes of 128 in the port, one of 256 on
        # CUDA); 9 of 2 heads of 80 (160: a partial second pass)
        test_sizes=("37x4x64", "9x2x80"),
    ),
    {
        "CUDA: padding tokens not skipped (written before the caches)": (
            "cuda",
            "  if (slot_idx < 0) {\n    return;\n  }\n",
            "",
        ),
        "CUDA: page offset at head_size": (
            "cuda",
            "block_offset * num_heads * head_size +",
            "block_offset * head_size +",
        ),
        "CUDA: source rows at the cache's stride": (
            "cuda",
            "const int64_t src_value_idx = token_idx * value_stride + i;",
            "const int64_t src_value_idx = token_idx * (num_heads * head_size) + i;",
        ),
        # (a port that does not skip padding computes slot -1's row as -1 of page 0 and
        # writes before the caches' start: WGSL's robust access drops it, and it passes)
        "the int64 slots read as i32 words at the token": (
            "wgsl",
            "let slot = slot_mapping[token_idx];",
            "let word = slot_mapping[token_idx / 2][token_idx % 2];\n    let slot = vec2<i32>(word, word);",
        ),
        "page offset at head_size": (
            "wgsl",
            "block_offset * n + head_idx",
            "block_offset * p.head_size + head_idx",
        ),
        "source rows at the cache's stride": (
            "wgsl",
            "value[token_idx * p.value_stride + i]",
            "value[token_idx * n + i]",
        ),
    },
)

ROUND65: dict[str, Wild] = {
    wild.kernel.id: wild
    for wild in (
        TOPK_SOFTMAX,
        ALIGN_CUDA,
        ALIGN_WGSL,
        RMS_NORM,
        RESHAPE_AND_CACHE_FLASH,
    )
}

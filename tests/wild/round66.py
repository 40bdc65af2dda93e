"""Round 66 of kernels from the wild, merged into ``tests.wild.CORPUS``: dynamic
programming and log-space recurrences, kernels whose outputs come from a recurrence
along time or along an anti-diagonal wavefront, with a barrier (or a launch) between
steps, where the order of operations, ``-inf`` in log space and the tie rule of a
maximum of three decide the result. Each kernel is written for this corpus after the
public file named below: read, not copied (the project's rule for public code). What is
theirs is kept: the entry points' names and parameters (names, types, order) where the
spec can pass them, the template instances the host's dispatch makes for float, the
block sizes, grids and launch sequences the host code makes, the barriers where they
stand, and the numerics (log-sum-exp with the maximum taken by ``>`` and an all-``-inf``
maximum replaced by 0, a numba kernel's float64 arithmetic on float32 arrays, a Viterbi
step's ``>`` comparisons whose ties go where upstream sends them). What is ours: the
comments, the formatting, and the WebGPU ports.

- PyTorch's CTC loss forward, ``at::native::ctc_loss_log_alpha_gpu_kernel<float,
  int64_t>`` (pytorch/pytorch, BSD 3-clause, ``aten/src/ATen/native/cuda/LossCTC.cu``):
  log-alpha over time, a thread per position ``s`` of the blank-interleaved target (its
  ``current_char`` and ``have_three`` cached before the time loop), ``__syncthreads()``
  at the top of each time step, the three predecessors' log-sum-exp with ``lamax``
  replaced by 0 where all three are ``-inf``, the positions past ``2 * target_length``
  and the steps past ``input_length`` written ``-inf``, the loss from the last two
  positions. The host's block: ``threads_target`` halved from 1024 while its half still
  covers ``2 * max_target_length + 1``, ``threads_batch = min(1024 / threads_target,
  batch_size)``, ``grid(1, ceil(batch_size / threads_batch))``; targets padded to
  ``(batch, max_target_length)`` (int64, ``tg_batch_offsets`` their rows). Upstream's
  anonymous namespace is left out (the spec names the entry point). The inputs are
  log-probabilities (a log-softmax of drawn logits, the CTC domain), the labels drawn
  from 1 to C - 1 (0 is the blank) with a third repeating the one before (where the
  skip over a blank is not allowed), and the lengths fixed by the size: a batch item
  with an empty target, one whose input is too short for its target (its loss is
  ``+inf``), shorter inputs than the tensor's. The WebGPU port: one workgroup of 64 a
  batch item, upstream's ``block_s`` loop (a target of 40 is two passes of 64), and
  ``-inf`` as WGSL allows it: a sentinel, the lowest float, written where the original
  writes ``-inf`` (its reference maps ``-inf`` and ``+inf`` to it and its negation).
- Soft-DTW (Maghoumi/pytorch-softdtw-cuda, MIT, ``soft_dtw_cuda.py``): the numba
  kernel ``compute_softdtw_cuda(D, gamma, bandwidth, seq_len, n_passes, R)`` written
  as CUDA C the way numba compiles it: ``gamma`` and ``bandwidth`` are Python floats
  (double), ``seq_len`` and ``n_passes`` Python ints (int64), ``D`` and ``R`` float32
  tensors, so ``-R[...] * inv_gamma``, the soft minimum's ``exp`` and ``log`` are
  float64 and each cell is rounded to float32 when stored. A block a pair of
  sequences, ``seq_len`` threads, ``2 * seq_len - 1`` anti-diagonal passes each ending
  in ``cuda.syncthreads()``, ``J`` clamped into range and a cell computed where ``I + J
  == p`` and inside the Sakoe-Chiba band (``abs(i - j) > bandwidth > 0`` skips).
  ``R`` is the host's ``(B, N + 2, N + 2)`` of ``+inf`` with ``R[:, 0, 0] = 0``: an
  ``inout`` buffer whose padding row and column must stay ``+inf``. ``D`` is what the
  module's ``_calc_distance_matrix`` gives: squared distances of two batches of
  ``torch.rand`` sequences of 3 features, drawn so (the domain: D >= 0). ``gamma`` is
  1 or 1/16 (exact in float32, so that the port, which takes it as f32, takes the same
  value). The WebGPU port computes in f32 (WGSL has no f64) in workgroups of 256, its
  anti-diagonals ordered by ``storageBarrier``, and its host fills ``R`` with 1e30 for
  ``+inf`` (WGSL's non-finite arithmetic is indeterminate, and SwiftShader's is: the
  padding's +inf left every run there inconclusive).
- torchaudio's forced alignment on the GPU, ``falign_cuda_step_kernel<float, int>``
  (pytorch/audio, BSD 2-clause, ``src/libtorchaudio/forced_align/gpu/compute.cu``): a
  Viterbi step a launch, one block of 1024, the host's window ``[start, end)`` of
  positions still able to reach (or be reached from) the target, two frames of alphas
  (``t % 2``), the backpointer an ``int8_t`` chosen by ``x2 > x1 && x2 > x0`` then
  ``x1 > x0 && x1 > x2`` and else 0: a tie between the skip and the step that beats
  staying keeps the stay, upstream's rule, which the reference follows. Each step's
  alphas are normalised by their maximum, ``cub::BlockReduce<float, 1024>`` (upstream's
  ``thrust::maximum`` for CUDA 12.9 is ``cuda::maximum<>`` here: NVRTC has no thrust).
  The accessors (``PackedTensorAccessor32``) are raw pointers here, indexed as the
  accessors index (batch 0, contiguous). The launches are the host's: ``t`` from 0 to
  T - 1 with ``start`` and ``end`` moved as ``forced_align_impl`` moves them and
  ``backPtrBufferLen = t`` (T under 100, one buffer). The host computes the window from
  the targets, so the targets are fixed by the size (a label sequence with repeats);
  the emissions are drawn on a grid of 1/4 in [-8, 0], where every path's sum is exact
  in float32: equal alphas are equal on every device, and the tie rule is judged. The
  WebGPU port: workgroups of 256, a maximum tree in workgroup memory, ``i32``
  backpointers (WGSL has no 8-bit stores), each step's values a uniform the host
  writes before its dispatch.

What they showed: tests/test_wild_round66.py.
"""

# ruff: noqa: E501  (the CUDA and WGSL keep their sources' long lines)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import Wild

_F = np.float32

# -- 1. PyTorch: CTC loss forward, log-alpha over time ------------------------------------

_CTC_CUDA = r"""// kernel-forge corpus: PyTorch's ctc_loss_log_alpha_gpu_kernel (read, not copied).
#include <cuda_runtime.h>
#include <cstdint>
#include <cmath>

namespace at {
namespace native {

// position idx of the blank-interleaved target l' = BLANK l_0 BLANK l_1 ... BLANK
template <typename target_t>
__device__ static inline int64_t get_target_prime(const target_t* __restrict__ target, int64_t offset, int64_t stride, int64_t idx, int64_t BLANK) {
  if (idx % 2 == 0) {
    return BLANK;
  } else {
    return target[offset + stride * (idx / 2)];
  }
}

// log alpha (Graves et al., eq. 6 and 7) in log space: a thread per target position s,
// the time steps in order with a barrier before each; then the loss (eq. 8)
template <typename scalar_t, typename target_t>
__global__ void ctc_loss_log_alpha_gpu_kernel(scalar_t* __restrict__ log_alpha_data,
    const scalar_t* log_probs_data, const int64_t* __restrict__ input_lengths, int64_t max_input_length,
    const target_t* __restrict__ targets_data, const int64_t* __restrict__ target_lengths, int64_t max_target_length,
    scalar_t* __restrict__ neg_log_likelihood_data,
    int64_t lp_input_stride, int64_t lp_batch_stride, int64_t lp_char_stride,
    int64_t la_batch_stride, int64_t la_input_stride, int64_t la_target_stride,
    const int64_t* __restrict__ tg_batch_offsets, int64_t tg_target_stride,
    int64_t batch_size, int64_t BLANK) {
  constexpr scalar_t neginf = -INFINITY;

  int64_t b = threadIdx.y + blockIdx.y * blockDim.y;
  int64_t input_length = input_lengths[b];
  int64_t target_length = target_lengths[b];
  int64_t lp_batch_offset = b * lp_batch_stride;
  int64_t la_batch_offset = b * la_batch_stride;
  int64_t tg_batch_offset = tg_batch_offsets[b];

  if (b >= batch_size)
    return;

  // t = 0: the blank, the first label, and -inf after
  for (int64_t block_s = 0; block_s < 2 * max_target_length + 1; block_s += blockDim.x) {
    int64_t s = threadIdx.x + block_s;
    scalar_t la;
    switch (s) {
      case 0:
        la = log_probs_data[lp_batch_offset + lp_char_stride * BLANK];
        break;
      case 1:
        la = target_length == 0 ? neginf : log_probs_data[lp_batch_offset + lp_char_stride * get_target_prime(targets_data, tg_batch_offset, tg_target_stride, 1, BLANK)];
        break;
      default:
        la = neginf;
    }
    if (s < 2 * max_target_length + 1)
      log_alpha_data[la_batch_offset + la_target_stride * s] = la;
  }

  for (int64_t block_s = 0; block_s < 2 * max_target_length + 1; block_s += blockDim.x) {
    int64_t s = threadIdx.x + block_s;

    // s's label and whether the skip from s - 2 is allowed: fixed over time
    int64_t current_char;
    bool have_three;
    if (s < 2 * target_length + 1 && target_length > 0) {
      current_char = get_target_prime(targets_data, tg_batch_offset, tg_target_stride, s, BLANK);
      have_three = ((s > 1) && (get_target_prime(targets_data, tg_batch_offset, tg_target_stride, s - 2, BLANK) != current_char));
    } else {
      current_char = BLANK;
      have_three = false;
    }
    for (int64_t t = 1; t < max_input_length; t++) {
      __syncthreads();  // the previous step's alphas, written by the other threads
      if ((t < input_length) && (s < 2 * target_length + 1)) {
        scalar_t la1 = log_alpha_data[la_batch_offset + la_input_stride * (t - 1) + la_target_stride * s];
        scalar_t lamax = la1;
        scalar_t la2, la3;
        if (s > 0) {
          la2 = log_alpha_data[la_batch_offset + la_input_stride * (t - 1) + la_target_stride * (s - 1)];
          if (la2 > lamax)
            lamax = la2;
        } else {
          la2 = neginf;
        }
        if (have_three) {
          la3 = log_alpha_data[la_batch_offset + la_input_stride * (t - 1) + la_target_stride * (s - 2)];
          if (la3 > lamax)
            lamax = la3;
        } else {
          la3 = neginf;
        }
        if (lamax == neginf)  // all three -inf: so is the sum, whatever the shift
          lamax = 0;

        log_alpha_data[la_batch_offset + la_input_stride * t + la_target_stride * s] = std::log(std::exp(la1 - lamax) + std::exp(la2 - lamax) + std::exp(la3 - lamax)) + lamax
            + log_probs_data[lp_batch_offset + t * lp_input_stride + lp_char_stride * current_char];
      } else {
        if (s < 2 * max_target_length + 1)
          log_alpha_data[la_batch_offset + la_input_stride * t + la_target_stride * s] = neginf;
      }
    }
  }
  __syncthreads();

  // the loss: the last blank and the last label at the last step
  if (threadIdx.x == 0) {
    scalar_t l1 = log_alpha_data[la_batch_offset + la_input_stride * (input_length - 1) + la_target_stride * (target_length * 2)];
    scalar_t l2 = target_length > 0 ? log_alpha_data[la_batch_offset + la_input_stride * (input_length - 1) + la_target_stride * (target_length * 2 - 1)] : neginf;
    scalar_t m = ((l1 > l2) ? l1 : l2);
    m = ((m == neginf) ? 0 : m);
    scalar_t log_likelihood = std::log(std::exp(l1 - m) + std::exp(l2 - m)) + m;
    neg_log_likelihood_data[b] = -log_likelihood;
  }
}

template __global__ void ctc_loss_log_alpha_gpu_kernel<float, int64_t>(float*, const float*, const int64_t*, int64_t, const int64_t*, const int64_t*, int64_t, float*, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, const int64_t*, int64_t, int64_t, int64_t);

}  // namespace native
}  // namespace at
"""

_CTC_WGSL = """// PyTorch's ctc_loss_log_alpha_gpu_kernel as a WebGPU port: a workgroup of 64 a batch
// item over upstream's blocks of s; WGSL has no infinity, so -inf is the lowest float.
struct Params {
    max_input_length: i32,
    max_target_length: i32,
    lp_input_stride: i32,
    lp_batch_stride: i32,
    la_batch_stride: i32,
    la_input_stride: i32,
    batch_size: i32,
    BLANK: i32,
}

@group(0) @binding(0) var<storage, read_write> log_alpha_data: array<f32>;
@group(0) @binding(1) var<storage, read> log_probs_data: array<f32>;
@group(0) @binding(2) var<storage, read> input_lengths: array<vec2<i32>>;
@group(0) @binding(3) var<storage, read> targets_data: array<vec2<i32>>;
@group(0) @binding(4) var<storage, read> target_lengths: array<vec2<i32>>;
@group(0) @binding(5) var<storage, read_write> neg_log_likelihood_data: array<f32>;
@group(0) @binding(6) var<storage, read> tg_batch_offsets: array<vec2<i32>>;
@group(0) @binding(7) var<uniform> p: Params;

const NEG_INF: f32 = -0x1.fffffep+127f;
const THREADS: i32 = 64;

fn get_target_prime(offset: i32, idx: i32) -> i32 {
    if (idx % 2 == 0) {
        return p.BLANK;
    }
    return targets_data[offset + idx / 2].x;
}

@compute @workgroup_size(64, 1)
fn ctc_loss_log_alpha(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let b = i32(wg.y);
    let tx = i32(lid.x);
    let input_length = input_lengths[b].x;
    let target_length = target_lengths[b].x;
    let lp_batch_offset = b * p.lp_batch_stride;
    let la_batch_offset = b * p.la_batch_stride;
    let tg_batch_offset = tg_batch_offsets[b].x;
    let width = 2 * p.max_target_length + 1;

    for (var block_s = 0; block_s < width; block_s += THREADS) {
        let s = tx + block_s;
        var la = NEG_INF;
        if (s == 0) {
            la = log_probs_data[lp_batch_offset + p.BLANK];
        } else if (s == 1 && target_length > 0) {
            la = log_probs_data[lp_batch_offset + get_target_prime(tg_batch_offset, 1)];
        }
        if (s < width) {
            log_alpha_data[la_batch_offset + s] = la;
        }
    }

    for (var block_s = 0; block_s < width; block_s += THREADS) {
        let s = tx + block_s;
        var current_char = p.BLANK;
        var have_three = false;
        if (s < 2 * target_length + 1 && target_length > 0) {
            current_char = get_target_prime(tg_batch_offset, s);
            have_three = s > 1 && get_target_prime(tg_batch_offset, s - 2) != current_char;
        }
        for (var t = 1; t < p.max_input_length; t++) {
            storageBarrier();  // log alpha is storage memory
            let prev = la_batch_offset + p.la_input_stride * (t - 1);
            let here = la_batch_offset + p.la_input_stride * t + s;
            if (t < input_length && s < 2 * target_length + 1) {
                let la1 = log_alpha_data[prev + s];
                var lamax = la1;
                var la2 = NEG_INF;
                var la3 = NEG_INF;
                if (s > 0) {
                    la2 = log_alpha_data[prev + s - 1];
                    if (la2 > lamax) {
                        lamax = la2;
                    }
                }
                if (have_three) {
                    la3 = log_alpha_data[prev + s - 2];
                    if (la3 > lamax) {
                        lamax = la3;
                    }
                }
                if (lamax == NEG_INF) {
                    log_alpha_data[here] = NEG_INF;
                } else {
                    log_alpha_data[here] = log(exp(la1 - lamax) + exp(la2 - lamax) + exp(la3 - lamax)) + lamax
                        + log_probs_data[lp_batch_offset + t * p.lp_input_stride + current_char];
                }
            } else if (s < width) {
                log_alpha_data[here] = NEG_INF;
            }
        }
    }
    storageBarrier();

    if (tx == 0) {
        let last = la_batch_offset + p.la_input_stride * (input_length - 1);
        let l1 = log_alpha_data[last + target_length * 2];
        var l2 = NEG_INF;
        if (target_length > 0) {
            l2 = log_alpha_data[last + target_length * 2 - 1];
        }
        let m = max(l1, l2);
        if (m == NEG_INF) {
            neg_log_likelihood_data[b] = -NEG_INF;
        } else {
            neg_log_likelihood_data[b] = -(log(exp(l1 - m) + exp(l2 - m)) + m);
        }
    }
}
"""

_NEG_SENTINEL = np.finfo(_F).min


def _ctc_lengths(size):
    """The batch's lengths, fixed by the size: item 0 the whole input and the longest
    target; item 1 an empty target; item 2 an input one step shorter than its target
    (no alignment: its loss is +inf); the rest shorter inputs and targets."""
    t, b, lmax = int(size.T), int(size.B), int(size.L)
    inputs = np.array([t - (k % 5) * 2 for k in range(b)], np.int64)
    targets = np.array([1 + (lmax * (k + 1)) // (b + 1) for k in range(b)], np.int64)
    targets[0] = lmax
    if b > 1:
        inputs[1], targets[1] = (2 * t) // 3, 0
    if b > 2:
        inputs[2], targets[2] = lmax - 1, lmax
    return inputs, targets


def _ctc_log_probs(rng, count, size):
    """log_probs (T, B, C): a log-softmax over the classes of logits drawn from
    N(0, 2^2): log-probabilities, the loss's domain."""
    t, b, c = int(size.T), int(size.B), int(size.C)
    logits = rng.normal(0.0, 2.0, (t, b, c))
    shifted = logits - logits.max(axis=2, keepdims=True)
    lp = shifted - np.log(np.exp(shifted).sum(axis=2, keepdims=True))
    return lp.astype(_F).reshape(-1)[:count]


def _ctc_targets(rng, count, size):
    """Targets (B, L) in 1 to C - 1 (0 is the blank), a third repeating the label before."""
    b, lmax, c = int(size.B), int(size.L), int(size.C)
    labels = rng.integers(1, c, (b, lmax))
    repeat = rng.random((b, lmax)) < 1 / 3
    for k in range(1, lmax):
        labels[:, k] = np.where(repeat[:, k], labels[:, k - 1], labels[:, k])
    return labels.astype(np.int64).reshape(-1)[:count]


def _ctc_alpha(log_probs, targets, T, B, C, L):
    """log alpha (B, T, 2L + 1) and the loss (B) as the kernel computes them, in
    float32: each step's log-sum-exp shifted by the largest of its (two or three)
    predecessors, 0 where all are -inf."""
    t_all, b_all, lmax = int(T), int(B), int(L)
    width = 2 * lmax + 1
    lp = log_probs.reshape(t_all, b_all, int(C))
    tg = targets.reshape(b_all, lmax)
    inputs, lengths = _ctc_lengths(
        type("S", (), {"T": t_all, "B": b_all, "L": lmax})()  # the size's dimensions
    )
    alpha = np.full((b_all, t_all, width), -np.inf, _F)
    loss = np.zeros(b_all, _F)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for b in range(b_all):
            n, tl = int(inputs[b]), int(lengths[b])
            prime = np.zeros(2 * tl + 1, np.int64)
            prime[1::2] = tg[b, :tl]
            alpha[b, 0, 0] = lp[0, b, 0]
            if tl > 0:
                alpha[b, 0, 1] = lp[0, b, prime[1]]
            three = np.zeros(2 * tl + 1, bool)
            three[2:] = prime[2:] != prime[:-2]
            if tl == 0:
                three[:] = False
            for t in range(1, n):
                prev = alpha[b, t - 1, : 2 * tl + 1]
                la1 = prev
                la2 = np.concatenate(([-np.inf], prev))[:-1].astype(_F)
                la3 = np.concatenate(([-np.inf, -np.inf], prev))[:-2]
                la3 = np.where(three, la3, -np.inf).astype(_F)
                lamax = np.maximum(np.maximum(la1, la2), la3)
                lamax = np.where(lamax == -np.inf, _F(0), lamax).astype(_F)
                total = np.exp(la1 - lamax) + np.exp(la2 - lamax) + np.exp(la3 - lamax)
                alpha[b, t, : 2 * tl + 1] = np.log(total) + lamax + lp[t, b, prime]
            l1 = alpha[b, n - 1, 2 * tl]
            l2 = alpha[b, n - 1, 2 * tl - 1] if tl > 0 else _F(-np.inf)
            m = max(l1, l2)
            m = _F(0) if m == -np.inf else m
            loss[b] = -(np.log(np.exp(l1 - m) + np.exp(l2 - m)) + m)
    return alpha.reshape(-1), loss


def _ctc_reference(log_probs_data, targets_data, T, B, C, L):
    alpha, loss = _ctc_alpha(log_probs_data, targets_data, T, B, C, L)
    return {"log_alpha_data": alpha, "neg_log_likelihood_data": loss}


def _ctc_port_reference(log_probs_data, targets_data, T, B, C, L):
    """The original's values with -inf as the port's sentinel (the lowest float) and
    +inf as its negation."""
    alpha, loss = _ctc_alpha(log_probs_data, targets_data, T, B, C, L)
    alpha = np.where(alpha == -np.inf, _NEG_SENTINEL, alpha).astype(_F)
    loss = np.where(loss == np.inf, -_NEG_SENTINEL, loss).astype(_F)
    return {"log_alpha_data": alpha, "neg_log_likelihood_data": loss}


def _ctc_threads(s) -> tuple[int, int]:
    """The host's block: (threads_target, threads_batch)."""
    threads_target = 1024
    while threads_target // 2 >= 2 * int(s.L) + 1:
        threads_target //= 2
    return threads_target, min(1024 // threads_target, int(s.B))


def _ctc_params(s) -> dict:
    t, b, c, lmax = int(s.T), int(s.B), int(s.C), int(s.L)
    width = 2 * lmax + 1
    return {
        "max_input_length": t,
        "max_target_length": lmax,
        "lp_input_stride": b * c,
        "lp_batch_stride": c,
        "lp_char_stride": 1,
        "la_batch_stride": t * width,
        "la_input_stride": width,
        "la_target_stride": 1,
        "tg_target_stride": 1,
        "batch_size": b,
        "BLANK": 0,
    }


def _ctc_buffers(uniform: tuple = ()) -> tuple:
    return (
        BufferSpec(0, "f32", "read_write", name="log_alpha_data", count="B*T*(2*L+1)"),
        BufferSpec(1, "f32", "read", name="log_probs_data", count="T*B*C", fill=_ctc_log_probs),
        BufferSpec(
            2,
            "i64",
            "read",
            name="input_lengths",
            count="B",
            fill=lambda rng, count, s: _ctc_lengths(s)[0],
        ),
        BufferSpec(3, "i64", "read", name="targets_data", count="B*L", fill=_ctc_targets),
        BufferSpec(
            4,
            "i64",
            "read",
            name="target_lengths",
            count="B",
            fill=lambda rng, count, s: _ctc_lengths(s)[1],
        ),
        BufferSpec(5, "f32", "read_write", name="neg_log_likelihood_data", count="B"),
        BufferSpec(
            6,
            "i64",
            "read",
            name="tg_batch_offsets",
            count="B",
            fill=lambda rng, count, s: np.arange(int(s.B), dtype=np.int64) * int(s.L),
        ),
        *uniform,
    )


_CTC_ENTRY = "at::native::ctc_loss_log_alpha_gpu_kernel<float, int64_t>"
# T x B x C x L: a target of 12 (a block of 32 by 5 batch items); a target of 40 (128
# threads, four warps; two passes of 64 in the port)
_CTC_SIZES = ("50x5x20x12", "90x4x30x40")

CTC = Wild(
    KernelSpec(
        id="wild_r66_pytorch_ctc_loss_log_alpha",
        entry_point=_CTC_ENTRY,
        sources={"cuda": _CTC_CUDA},
        dims=("T", "B", "C", "L"),
        buffers=_ctc_buffers(),
        reference=_ctc_reference,
        params=_ctc_params,
        arguments=(
            "log_alpha_data",
            "log_probs_data",
            "input_lengths",
            "max_input_length",
            "targets_data",
            "target_lengths",
            "max_target_length",
            "neg_log_likelihood_data",
            "lp_input_stride",
            "lp_batch_stride",
            "lp_char_stride",
            "la_batch_stride",
            "la_input_stride",
            "la_target_stride",
            "tg_batch_offsets",
            "tg_target_stride",
            "batch_size",
            "BLANK",
        ),
        launches=(
            Dispatch(
                _CTC_ENTRY,
                grid=lambda sch, s: (1, ceil_div(int(s.B), _ctc_threads(s)[1]), 1),
                schedule=lambda sch, s: Schedule(_ctc_threads(s)),
            ),
        ),
        schedules=(Schedule((32, 5)),),
        nonfinite_inputs=False,
        test_sizes=_CTC_SIZES,
    ),
    {
        "CUDA: all -inf predecessors shifted by -inf": (
            "cuda",
            "        if (lamax == neginf)  // all three -inf: so is the sum, whatever the shift\n          lamax = 0;\n",
            "",
        ),
        "CUDA: the skip allowed between repeated labels": (
            "cuda",
            "have_three = ((s > 1) && (get_target_prime(targets_data, tg_batch_offset, tg_target_stride, s - 2, BLANK) != current_char));",
            "have_three = (s > 1);",
        ),
        "CUDA: the loss from the last blank alone": (
            "cuda",
            "scalar_t l2 = target_length > 0 ?",
            "scalar_t l2 = target_length < 0 ?",
        ),
        "CUDA: no barrier between time steps": (
            "cuda",
            "      __syncthreads();  // the previous step's alphas, written by the other threads\n",
            "",
        ),
    },
    races=frozenset({"CUDA: no barrier between time steps"}),
)

CTC_WGSL = Wild(
    KernelSpec(
        id="wild_r66_pytorch_ctc_loss_log_alpha_webgpu_port",
        entry_point="ctc_loss_log_alpha",
        sources={"wgsl": _CTC_WGSL},
        dims=("T", "B", "C", "L"),
        buffers=_ctc_buffers(
            (
                BufferSpec.uniform(
                    7,
                    (
                        ("max_input_length", "i32"),
                        ("max_target_length", "i32"),
                        ("lp_input_stride", "i32"),
                        ("lp_batch_stride", "i32"),
                        ("la_batch_stride", "i32"),
                        ("la_input_stride", "i32"),
                        ("batch_size", "i32"),
                        ("BLANK", "i32"),
                    ),
                    name="p",
                ),
            )
        ),
        reference=_ctc_port_reference,
        params=lambda s: {
            k: v
            for k, v in _ctc_params(s).items()
            if k not in ("lp_char_stride", "la_target_stride", "tg_target_stride")
        },
        grid=lambda sch, s: (1, int(s.B), 1),
        schedules=(Schedule((64, 1)),),
        nonfinite_inputs=False,
        test_sizes=_CTC_SIZES,
    ),
    {
        "the skip allowed between repeated labels": (
            "wgsl",
            "have_three = s > 1 && get_target_prime(tg_batch_offset, s - 2) != current_char;",
            "have_three = s > 1;",
        ),
        "the last blank never computed": (
            "wgsl",
            "if (t < input_length && s < 2 * target_length + 1) {",
            "if (t < input_length && s < 2 * target_length) {",
        ),
        "no barrier between time steps": (
            "wgsl",
            "            storageBarrier();  // log alpha is storage memory\n            let prev",
            "            let prev",
        ),
        "the loss read at the tensor's last step": (
            "wgsl",
            "let last = la_batch_offset + p.la_input_stride * (input_length - 1);",
            "let last = la_batch_offset + p.la_input_stride * (p.max_input_length - 1);",
        ),
    },
)


# -- 2. Maghoumi's soft-DTW: compute_softdtw_cuda, a numba kernel as CUDA C ----------------

_SOFTDTW_CUDA = r"""// kernel-forge corpus: Maghoumi's compute_softdtw_cuda (pytorch-softdtw-cuda), a numba.cuda
// kernel written as CUDA C the way numba compiles it (read, not copied): gamma and
// bandwidth are Python floats (double), seq_len and n_passes Python ints (int64), D and R
// float32 arrays of (B, seq_len, seq_len) and (B, seq_len + 2, seq_len + 2).
#include <cuda_runtime.h>
#include <cstdint>
#include <cmath>

extern "C" __global__ void compute_softdtw_cuda(const float* D, double gamma, double bandwidth, int64_t seq_len, int64_t n_passes, float* R) {
  // a block a pair of sequences
  const int64_t b = blockIdx.x;
  // a thread a row: the longest anti-diagonal has seq_len cells
  const int64_t tid = threadIdx.x;
  const int64_t I = tid;
  const int64_t w = seq_len + 2;
  const double inv_gamma = 1.0 / gamma;

  for (int64_t p = 0; p < n_passes; p++) {
    // the column on anti-diagonal p, forced into range
    const int64_t J = max((int64_t)0, min(p - tid, seq_len - 1));
    const int64_t i = I + 1;
    const int64_t j = J + 1;

    if (I + J == p) {
      // outside the Sakoe-Chiba band: skipped
      if (!(llabs(i - j) > bandwidth && bandwidth > 0)) {
        const double r0 = -R[(b * w + i - 1) * w + j - 1] * inv_gamma;
        const double r1 = -R[(b * w + i - 1) * w + j] * inv_gamma;
        const double r2 = -R[(b * w + i) * w + j - 1] * inv_gamma;
        const double rmax = max(max(r0, r1), r2);
        const double rsum = exp(r0 - rmax) + exp(r1 - rmax) + exp(r2 - rmax);
        const double softmin = -gamma * (log(rsum) + rmax);
        R[(b * w + i) * w + j] = D[(b * seq_len + i - 1) * seq_len + j - 1] + softmin;
      }
    }

    // every cell of this anti-diagonal before the next one reads it
    __syncthreads();
  }
}
"""

_SOFTDTW_WGSL = """// Maghoumi's compute_softdtw_cuda as a WebGPU port: a workgroup of 256 a pair, the
// anti-diagonals in order with a storage barrier after each, in f32.
struct Params {
    gamma: f32,
    bandwidth: f32,
    seq_len: i32,
    n_passes: i32,
}

@group(0) @binding(0) var<storage, read> D: array<f32>;
@group(0) @binding(1) var<storage, read_write> R: array<f32>;
@group(0) @binding(2) var<uniform> u: Params;

@compute @workgroup_size(256)
fn compute_softdtw(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) tid: u32) {
    let b = i32(wg.x);
    let I = i32(tid);
    let n = u.seq_len;
    let w = n + 2;
    let inv_gamma = 1.0 / u.gamma;
    for (var p = 0; p < u.n_passes; p++) {
        let J = max(0, min(p - I, n - 1));
        let i = I + 1;
        let j = J + 1;
        if (I < n && I + J == p) {
            if (!(f32(abs(i - j)) > u.bandwidth && u.bandwidth > 0.0)) {
                let r0 = -R[(b * w + i - 1) * w + j - 1] * inv_gamma;
                let r1 = -R[(b * w + i - 1) * w + j] * inv_gamma;
                let r2 = -R[(b * w + i) * w + j - 1] * inv_gamma;
                let rmax = max(max(r0, r1), r2);
                let rsum = exp(r0 - rmax) + exp(r1 - rmax) + exp(r2 - rmax);
                let softmin = -u.gamma * (log(rsum) + rmax);
                R[(b * w + i) * w + j] = D[(b * n + i - 1) * n + j - 1] + softmin;
            }
        }
        // R is storage memory: the barrier that orders it is storageBarrier
        storageBarrier();
    }
}
"""


def _softdtw_distances(rng, count, size):
    """D as ``SoftDTW._calc_distance_matrix`` gives it: squared distances between the
    steps of two batches of ``torch.rand`` sequences of 3 features (D >= 0)."""
    b, n = int(size.B), int(size.N)
    x = rng.random((b, n, 3), dtype=np.float32)
    y = rng.random((b, n, 3), dtype=np.float32)
    d = ((x[:, :, None, :] - y[:, None, :, :]) ** 2).sum(axis=3, dtype=np.float32)
    return d.astype(_F).reshape(-1)[:count]


def _softdtw_initial(rng, count, size):
    """R as the host makes it: +inf, and 0 at each pair's (0, 0)."""
    b, n = int(size.B), int(size.N)
    r = np.full((b, n + 2, n + 2), np.inf, _F)
    r[:, 0, 0] = 0
    return r.reshape(-1)[:count]


#: The port's stand-in for the host's +inf (WGSL's non-finite arithmetic is
#: indeterminate): large enough that exp(-BIG / gamma - rmax) is 0, small enough that
#: BIG / gamma (gamma 1/16) stays finite.
_SOFTDTW_BIG = 1e30


def _softdtw_initial_finite(rng, count, size):
    """R as a WebGPU host would make it for the port: ``_SOFTDTW_BIG`` for +inf."""
    r = _softdtw_initial(rng, count, size)
    return np.where(np.isinf(r), _F(_SOFTDTW_BIG), r).astype(_F)


def _softdtw_reference(D, R, gamma, bandwidth, B, N):
    """The numba kernel's arithmetic: each cell's soft minimum in float64 from the
    float32 R, the cell rounded to float32; anti-diagonal by anti-diagonal."""
    b, n = int(B), int(N)
    d = D.reshape(b, n, n)
    r = R.reshape(b, n + 2, n + 2).copy()
    gamma, band = float(gamma), float(bandwidth)
    inv_gamma = 1.0 / gamma
    with np.errstate(invalid="ignore", over="ignore"):
        for p in range(2 * n - 1):
            rows = np.arange(max(0, p - n + 1), min(p, n - 1) + 1)
            cols = p - rows
            i, j = rows + 1, cols + 1
            keep = ~((np.abs(i - j) > band) & (band > 0))
            rows, cols, i, j = rows[keep], cols[keep], i[keep], j[keep]
            if not len(rows):
                continue
            r0 = -r[:, i - 1, j - 1].astype(np.float64) * inv_gamma
            r1 = -r[:, i - 1, j].astype(np.float64) * inv_gamma
            r2 = -r[:, i, j - 1].astype(np.float64) * inv_gamma
            rmax = np.maximum(np.maximum(r0, r1), r2)
            rsum = np.exp(r0 - rmax) + np.exp(r1 - rmax) + np.exp(r2 - rmax)
            softmin = -gamma * (np.log(rsum) + rmax)
            r[:, i, j] = (d[:, rows, cols].astype(np.float64) + softmin).astype(_F)
    return r.reshape(-1)


def _softdtw_params(s) -> dict:
    return {
        "gamma": 1.0 / int(s.G),
        "bandwidth": float(s.BW),
        "seq_len": int(s.N),
        "n_passes": 2 * int(s.N) - 1,
    }


def _softdtw_buffers(uniform: tuple = (), initial=_softdtw_initial) -> tuple:
    return (
        BufferSpec(0, "f32", "read", name="D", count="B*N*N", fill=_softdtw_distances),
        BufferSpec(
            1,
            "f32",
            "read_write",
            name="R",
            count="B*(N+2)*(N+2)",
            inout=True,
            fill=initial,
        ),
        *uniform,
    )


# B x N x BW x G: no band (bandwidth 0), gamma 1, 100 steps (four warps); a band of 5
# and gamma 1/16 at 37 steps
_SOFTDTW_SIZES = ("4x100x0x1", "3x37x5x16")

SOFTDTW = Wild(
    KernelSpec(
        id="wild_r66_maghoumi_softdtw_cuda_antidiagonal",
        entry_point="compute_softdtw_cuda",
        sources={"cuda": _SOFTDTW_CUDA},
        dims=("B", "N", "BW", "G"),
        buffers=_softdtw_buffers(),
        reference=_softdtw_reference,
        params=_softdtw_params,
        arguments=("D", "gamma", "bandwidth", "seq_len", "n_passes", "R"),
        launches=(
            Dispatch(
                "compute_softdtw_cuda",
                grid=lambda sch, s: (int(s.B), 1, 1),
                # the host's block: seq_len threads
                schedule=lambda sch, s: Schedule(int(s.N)),
            ),
        ),
        schedules=(Schedule(128),),
        nonfinite_inputs=False,
        test_sizes=_SOFTDTW_SIZES,
    ),
    {
        "CUDA: the band's bandwidth > 0 test dropped": (
            "cuda",
            "if (!(llabs(i - j) > bandwidth && bandwidth > 0)) {",
            "if (!(llabs(i - j) > bandwidth)) {",
        ),
        "CUDA: J clamped one past the last column": (
            "cuda",
            "min(p - tid, seq_len - 1)",
            "min(p - tid, seq_len)",
        ),
        "CUDA: no barrier between anti-diagonals": (
            "cuda",
            "    __syncthreads();\n",
            "",
        ),
    },
    races=frozenset({"CUDA: no barrier between anti-diagonals"}),
)

SOFTDTW_WGSL = Wild(
    KernelSpec(
        id="wild_r66_maghoumi_softdtw_webgpu_port",
        entry_point="compute_softdtw",
        sources={"wgsl": _SOFTDTW_WGSL},
        dims=("B", "N", "BW", "G"),
        buffers=_softdtw_buffers(
            (
                BufferSpec.uniform(
                    2,
                    (
                        ("gamma", "f32"),
                        ("bandwidth", "f32"),
                        ("seq_len", "i32"),
                        ("n_passes", "i32"),
                    ),
                    name="u",
                ),
            ),
            initial=_softdtw_initial_finite,
        ),
        reference=_softdtw_reference,
        params=_softdtw_params,
        grid=lambda sch, s: (int(s.B), 1, 1),
        schedules=(Schedule(256),),
        nonfinite_inputs=False,
        test_sizes=_SOFTDTW_SIZES,
    ),
    {
        "the band's bandwidth > 0 test dropped": (
            "wgsl",
            "if (!(f32(abs(i - j)) > u.bandwidth && u.bandwidth > 0.0)) {",
            "if (!(f32(abs(i - j)) > u.bandwidth)) {",
        ),
        "invocations past seq_len not held back": (
            "wgsl",
            "if (I < n && I + J == p) {",
            "if (I + J == p) {",
        ),
        "no barrier between anti-diagonals": (
            "wgsl",
            "        storageBarrier();\n",
            "",
        ),
        "the cost read at the cell, not the one before": (
            "wgsl",
            "D[(b * n + i - 1) * n + j - 1] + softmin",
            "D[(b * n + i - 1) * n + j] + softmin",
        ),
    },
)

# -- 3. torchaudio: forced alignment, a Viterbi step a launch ------------------------------

_FALIGN_CUDA = r"""// kernel-forge corpus: torchaudio's falign_cuda_step_kernel (read, not copied); the
// PackedTensorAccessor32s are raw pointers indexed as the accessors index them (batch 0,
// contiguous).
#include <cuda_runtime.h>
#include <cstdint>
#include <cub/block/block_reduce.cuh>
#include <cuda/functional>
#include <cmath>

namespace {
constexpr int kNumThreads = 1024;  // one block, the host's
}  // namespace

namespace torchaudio {
namespace alignment {
namespace gpu {

// frame t of the Viterbi recursion over the blank-interleaved target: positions in
// [start, end) take the best of staying (x0), stepping (x1) and skipping a blank (x2),
// its backpointer in frame t's row; the frame is then shifted by its maximum
template <typename scalar_t, typename target_t>
__global__ void falign_cuda_step_kernel(
    const scalar_t* logProbs_a,  // [1][T][N]
    const target_t* targets_a,   // [1][L]
    const int T,
    const int L,
    const int N,
    const int R,
    const int t,
    const int64_t blank,
    int start,
    int end,
    int backPtrBufferLen,
    scalar_t* alphas_a,          // [2][S]
    int8_t* backPtrBuffer_a) {   // [T][S]
  scalar_t kNegInfinity = -INFINITY;
  const int batchIndex = 0;  // upstream aligns one utterance
  int S = 2 * L + 1;
  int curIdxOffset = (t % 2);
  int prevIdxOffset = ((t - 1) % 2);
  // this frame's alphas and backpointers start unset
  for (unsigned int i = threadIdx.x; i < S; i += blockDim.x) {
    alphas_a[curIdxOffset * S + i] = kNegInfinity;
    backPtrBuffer_a[backPtrBufferLen * S + i] = -1;
  }
  __syncthreads();
  if (t == 0) {
    for (unsigned int i = start + threadIdx.x; i < end; i += blockDim.x) {
      int labelIdx = (i % 2 == 0) ? blank : targets_a[batchIndex * L + i / 2];
      alphas_a[curIdxOffset * S + i] = logProbs_a[(batchIndex * T + 0) * N + labelIdx];
    }
    return;
  }
  using BlockReduce = cub::BlockReduce<scalar_t, kNumThreads>;
  __shared__ typename BlockReduce::TempStorage tempStorage;
  __shared__ scalar_t maxValue;
  scalar_t threadMax;
  int startloop = start;
  threadMax = kNegInfinity;
  if (start == 0 && threadIdx.x == 0) {
    alphas_a[curIdxOffset * S + 0] = alphas_a[prevIdxOffset * S + 0] + logProbs_a[(batchIndex * T + t) * N + blank];
    threadMax = max(threadMax, alphas_a[curIdxOffset * S + 0]);
    backPtrBuffer_a[backPtrBufferLen * S + 0] = 0;
  }
  if (start == 0) {
    startloop += 1;
  }
  for (unsigned int i = startloop + threadIdx.x; i < end; i += blockDim.x) {
    scalar_t x0 = alphas_a[prevIdxOffset * S + i];
    scalar_t x1 = alphas_a[prevIdxOffset * S + i - 1];
    scalar_t x2 = kNegInfinity;
    int labelIdx = (i % 2 == 0) ? blank : targets_a[batchIndex * L + i / 2];
    // the skip over a blank, where the labels on either side differ
    if (i % 2 != 0 && i != 1 && targets_a[batchIndex * L + i / 2] != targets_a[batchIndex * L + i / 2 - 1]) {
      x2 = alphas_a[prevIdxOffset * S + i - 2];
    }
    scalar_t result = 0.0;
    if (x2 > x1 && x2 > x0) {
      result = x2;
      backPtrBuffer_a[backPtrBufferLen * S + i] = 2;
    } else if (x1 > x0 && x1 > x2) {
      result = x1;
      backPtrBuffer_a[backPtrBufferLen * S + i] = 1;
    } else {
      result = x0;
      backPtrBuffer_a[backPtrBufferLen * S + i] = 0;
    }
    alphas_a[curIdxOffset * S + i] = result + logProbs_a[(batchIndex * T + t) * N + labelIdx];
    threadMax = max(threadMax, alphas_a[curIdxOffset * S + i]);
  }
  scalar_t maxResult = BlockReduce(tempStorage).Reduce(threadMax, cuda::maximum<scalar_t>());
  if (threadIdx.x == 0) {
    maxValue = maxResult;
  }
  __syncthreads();
  // shifted by the frame's maximum, so that a long input does not run to -inf
  for (unsigned int i = threadIdx.x; i < S; i += blockDim.x) {
    alphas_a[curIdxOffset * S + i] -= maxValue;
  }
}

template __global__ void falign_cuda_step_kernel<float, int>(const float*, const int*, const int, const int, const int, const int, const int, const int64_t, int, int, int, float*, int8_t*);

}  // namespace gpu
}  // namespace alignment
}  // namespace torchaudio
"""

_FALIGN_WGSL = """// torchaudio's falign_cuda_step_kernel as a WebGPU port: a workgroup of 256, the
// frame's maximum a tree in workgroup memory, i32 backpointers; the host writes each
// step's t, start and end into the uniform before its dispatch.
struct Params {
    T: i32,
    L: i32,
    N: i32,
    blank: i32,
    t: i32,
    start: i32,
    end: i32,
    backPtrBufferLen: i32,
}

@group(0) @binding(0) var<storage, read> logProbs: array<f32>;
@group(0) @binding(1) var<storage, read> targets: array<i32>;
@group(0) @binding(2) var<storage, read_write> alphas: array<f32>;
@group(0) @binding(3) var<storage, read_write> backPtrBuffer: array<i32>;
@group(0) @binding(4) var<uniform> p: Params;

const THREADS: u32 = 256u;
const NEG_INF: f32 = -0x1.fffffep+127f;

var<workgroup> partial: array<f32, 256>;

@compute @workgroup_size(256)
fn falign_step(@builtin(local_invocation_index) tid: u32) {
    let S = 2 * p.L + 1;
    let cur = (p.t % 2) * S;
    let prev = ((p.t + 1) % 2) * S;
    let row = p.backPtrBufferLen * S;
    for (var i = i32(tid); i < S; i += i32(THREADS)) {
        alphas[cur + i] = NEG_INF;
        backPtrBuffer[row + i] = -1;
    }
    storageBarrier();
    if (p.t == 0) {
        for (var i = p.start + i32(tid); i < p.end; i += i32(THREADS)) {
            var label = p.blank;
            if (i % 2 != 0) {
                label = targets[i / 2];
            }
            alphas[cur + i] = logProbs[label];
        }
        return;
    }
    var thread_max = NEG_INF;
    var startloop = p.start;
    if (p.start == 0) {
        if (tid == 0u) {
            alphas[cur] = alphas[prev] + logProbs[p.t * p.N + p.blank];
            thread_max = max(thread_max, alphas[cur]);
            backPtrBuffer[row] = 0;
        }
        startloop += 1;
    }
    for (var i = startloop + i32(tid); i < p.end; i += i32(THREADS)) {
        let x0 = alphas[prev + i];
        let x1 = alphas[prev + i - 1];
        var x2 = NEG_INF;
        var label = p.blank;
        if (i % 2 != 0) {
            label = targets[i / 2];
            if (i != 1 && targets[i / 2] != targets[i / 2 - 1]) {
                x2 = alphas[prev + i - 2];
            }
        }
        var result = x0;
        var back = 0;
        if (x2 > x1 && x2 > x0) {
            result = x2;
            back = 2;
        } else if (x1 > x0 && x1 > x2) {
            result = x1;
            back = 1;
        }
        backPtrBuffer[row + i] = back;
        alphas[cur + i] = result + logProbs[p.t * p.N + label];
        thread_max = max(thread_max, alphas[cur + i]);
    }
    partial[tid] = thread_max;
    workgroupBarrier();
    for (var half_width = THREADS / 2u; half_width > 0u; half_width = half_width / 2u) {
        if (tid < half_width) {
            partial[tid] = max(partial[tid], partial[tid + half_width]);
        }
        workgroupBarrier();
    }
    let max_value = partial[0];
    storageBarrier();
    for (var i = i32(tid); i < S; i += i32(THREADS)) {
        if (alphas[cur + i] != NEG_INF) {
            alphas[cur + i] -= max_value;
        }
    }
}
"""


def _falign_targets_of(size) -> np.ndarray:
    """The label sequence for L (fixed by the size: the host computes each step's window
    from it): labels 1 to N - 1 cycling by 7, every fourth repeating the one before."""
    lmax, n = int(size.L), int(size.N)
    labels = 1 + (np.arange(lmax) * 7) % (n - 1)
    for k in range(3, lmax, 4):
        labels[k] = labels[k - 1]
    return labels.astype(np.int32)


def _falign_windows(targets: np.ndarray, t_all: int) -> list[tuple[int, int]]:
    """``forced_align_impl``'s ``start`` and ``end`` for each step."""
    lmax = len(targets)
    s = 2 * lmax + 1
    repeats = int((targets[1:] == targets[:-1]).sum())
    start = 0 if t_all - (lmax + repeats) > 0 else 1
    end = 1 if s == 1 else 2
    out = []
    for t in range(t_all):
        if t > 0:
            if t_all - t <= lmax + repeats:
                if start % 2 == 1 and targets[start // 2] != targets[start // 2 + 1]:
                    start += 1
                start += 1
            if t <= lmax + repeats:
                if end % 2 == 0 and end < 2 * lmax and targets[end // 2 - 1] != targets[end // 2]:
                    end += 1
                end += 1
        out.append((start, end))
    return out


def _falign_emissions(rng, count, size):
    """Emissions (1, T, N) on a grid of 1/4 in [-8, 0]: every path's sum is exact in
    float32, so equal alphas are equal on every device and the tie rule decides."""
    return (rng.integers(-32, 1, count) / 4).astype(_F)


def _falign_reference(logProbs, T, L, N):
    """The host's launches in order, each step as the kernel computes it in float32:
    the skip (2) only where it beats both, the step (1) only where it beats both, else
    the stay (0); the frame shifted by its maximum."""
    t_all, lmax, n = int(T), int(L), int(N)
    lp = logProbs.reshape(t_all, n)
    targets = _falign_targets_of(type("S", (), {"L": lmax, "N": n})())
    s = 2 * lmax + 1
    label = np.full(s, 0, np.int64)
    label[1::2] = targets
    skip = np.zeros(s, bool)
    for i in range(3, s, 2):
        skip[i] = targets[i // 2] != targets[i // 2 - 1]
    alphas = np.full((2, s), -np.inf, _F)
    back = np.full((t_all, s), -1, np.int64)
    with np.errstate(invalid="ignore"):
        for t, (start, end) in enumerate(_falign_windows(targets, t_all)):
            cur, prev = t % 2, (t - 1) % 2
            alphas[cur] = -np.inf
            if t == 0:
                alphas[cur, start:end] = lp[0, label[start:end]]
                continue
            if start == 0:
                alphas[cur, 0] = alphas[prev, 0] + lp[t, 0]
                back[t, 0] = 0
            i = np.arange(max(start, 1), end)
            x0, x1 = alphas[prev, i], alphas[prev, i - 1]
            x2 = np.where(skip[i], alphas[prev, np.maximum(i - 2, 0)], -np.inf).astype(_F)
            two = (x2 > x1) & (x2 > x0)
            one = ~two & (x1 > x0) & (x1 > x2)
            back[t, i] = np.where(two, 2, np.where(one, 1, 0))
            alphas[cur, i] = np.where(two, x2, np.where(one, x1, x0)) + lp[t, label[i]]
            alphas[cur] -= alphas[cur, : max(end, 1)].max()
    return alphas.reshape(-1), back.reshape(-1)


def _falign_cuda_reference(logProbs_a, T, L, N):
    alphas, back = _falign_reference(logProbs_a, T, L, N)
    return {"alphas_a": alphas, "backPtrBuffer_a": back.astype(np.int8)}


def _falign_port_reference(logProbs, T, L, N):
    alphas, back = _falign_reference(logProbs, T, L, N)
    alphas = np.where(alphas == -np.inf, _NEG_SENTINEL, alphas).astype(_F)
    return {"alphas": alphas, "backPtrBuffer": back.astype(np.int32)}


def _falign_launches(entry: str):
    def launches(size):
        targets = _falign_targets_of(size)
        return tuple(
            Dispatch(
                entry,
                grid=(1, 1, 1),
                overrides={"t": t, "start": start, "end": end, "backPtrBufferLen": t},
            )
            for t, (start, end) in enumerate(_falign_windows(targets, int(size.T)))
        )

    return launches


# T x L x N: 48 frames of a 20-label target over 30 classes; 30 frames of 12 (fewer
# spare frames: the window's start moves early)
_FALIGN_SIZES = ("48x20x30", "30x12x16")
_FALIGN_ENTRY = "torchaudio::alignment::gpu::falign_cuda_step_kernel<float, int>"

FALIGN = Wild(
    KernelSpec(
        id="wild_r66_torchaudio_forced_align_viterbi_step",
        entry_point=_FALIGN_ENTRY,
        sources={"cuda": _FALIGN_CUDA},
        dims=("T", "L", "N"),
        buffers=(
            BufferSpec(0, "f32", "read", name="logProbs_a", count="T*N", fill=_falign_emissions),
            BufferSpec(
                1,
                "i32",
                "read",
                name="targets_a",
                count="L",
                fill=lambda rng, count, s: _falign_targets_of(s),
            ),
            # the host fills both with -inf and -1 before the first step
            BufferSpec(2, "f32", "read_write", name="alphas_a", count="2*(2*L+1)", initial=-np.inf),
            BufferSpec(
                3, "i8", "read_write", name="backPtrBuffer_a", count="T*(2*L+1)", initial=-1
            ),
        ),
        reference=_falign_cuda_reference,
        params=lambda s: {
            "T": s.T,
            "L": s.L,
            "N": s.N,
            # the host's count of repeated labels (passed, unused by the step)
            "R": int((np.diff(_falign_targets_of(s)) == 0).sum()),
            "blank": 0,
        },
        arguments=(
            "logProbs_a",
            "targets_a",
            "T",
            "L",
            "N",
            "R",
            "t",
            "blank",
            "start",
            "end",
            "backPtrBufferLen",
            "alphas_a",
            "backPtrBuffer_a",
        ),
        launches=_falign_launches(_FALIGN_ENTRY),
        schedules=(Schedule(1024),),
        nonfinite_inputs=False,
        test_sizes=_FALIGN_SIZES,
    ),
    {
        "CUDA: the skip wins its ties with the step": (
            "cuda",
            "if (x2 > x1 && x2 > x0) {",
            "if (x2 >= x1 && x2 > x0) {",
        ),
        "CUDA: the step wins its ties with the stay": (
            "cuda",
            "} else if (x1 > x0 && x1 > x2) {",
            "} else if (x1 >= x0 && x1 > x2) {",
        ),
        "CUDA: the skip allowed between repeated labels": (
            "cuda",
            "if (i % 2 != 0 && i != 1 && targets_a[batchIndex * L + i / 2] != targets_a[batchIndex * L + i / 2 - 1]) {",
            "if (i % 2 != 0 && i != 1) {",
        ),
        "CUDA: no barrier before the maximum is read": (
            "cuda",
            "    maxValue = maxResult;\n  }\n  __syncthreads();\n",
            "    maxValue = maxResult;\n  }\n",
        ),
    },
    races=frozenset({"CUDA: no barrier before the maximum is read"}),
)

FALIGN_WGSL = Wild(
    KernelSpec(
        id="wild_r66_torchaudio_forced_align_viterbi_step_webgpu_port",
        entry_point="falign_step",
        sources={"wgsl": _FALIGN_WGSL},
        dims=("T", "L", "N"),
        buffers=(
            BufferSpec(0, "f32", "read", name="logProbs", count="T*N", fill=_falign_emissions),
            BufferSpec(
                1,
                "i32",
                "read",
                name="targets",
                count="L",
                fill=lambda rng, count, s: _falign_targets_of(s),
            ),
            BufferSpec(
                2,
                "f32",
                "read_write",
                name="alphas",
                count="2*(2*L+1)",
                initial=float(_NEG_SENTINEL),
            ),
            BufferSpec(3, "i32", "read_write", name="backPtrBuffer", count="T*(2*L+1)", initial=-1),
            BufferSpec.uniform(
                4,
                (
                    ("T", "i32"),
                    ("L", "i32"),
                    ("N", "i32"),
                    ("blank", "i32"),
                    ("t", "i32"),
                    ("start", "i32"),
                    ("end", "i32"),
                    ("backPtrBufferLen", "i32"),
                ),
                name="p",
            ),
        ),
        reference=_falign_port_reference,
        params=lambda s: {"T": s.T, "L": s.L, "N": s.N, "blank": 0},
        # each launch's own values (its overrides); the record's before any
        defaults={"t": 0, "start": 0, "end": 0, "backPtrBufferLen": 0},
        launches=_falign_launches("falign_step"),
        schedules=(Schedule(256),),
        nonfinite_inputs=False,
        test_sizes=_FALIGN_SIZES,
    ),
    {
        "the skip wins its ties with the step": (
            "wgsl",
            "if (x2 > x1 && x2 > x0) {",
            "if (x2 >= x1 && x2 > x0) {",
        ),
        "the step wins its ties with the stay": (
            "wgsl",
            "} else if (x1 > x0 && x1 > x2) {",
            "} else if (x1 >= x0 && x1 > x2) {",
        ),
        "the maximum read before the tree is done": (
            "wgsl",
            "            partial[tid] = max(partial[tid], partial[tid + half_width]);\n        }\n        workgroupBarrier();\n",
            "            partial[tid] = max(partial[tid], partial[tid + half_width]);\n        }\n",
        ),
        "the window's end taken as the last position": (
            "wgsl",
            "for (var i = startloop + i32(tid); i < p.end; i += i32(THREADS)) {",
            "for (var i = startloop + i32(tid); i < S; i += i32(THREADS)) {",
        ),
    },
)

ROUND66: dict[str, Wild] = {
    wild.kernel.id: wild
    for wild in (
        CTC,
        CTC_WGSL,
        SOFTDTW,
        SOFTDTW_WGSL,
        FALIGN,
        FALIGN_WGSL,
    )
}

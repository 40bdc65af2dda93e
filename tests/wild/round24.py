"""Round 24 of kernels from the wild, merged into ``tests.wild.CORPUS``: training losses,
masked reductions, bit tricks, resampling and FP8 bytes, several as a CUDA kernel and
its WGSL port in one ``KernelSpec`` so that the port is judged by the same reference.

Public code is read, not copied (the project's rule). Most of this round was written
by the project itself after what PyTorch, torchvision, Megatron and ATen compute (no
upstream file it copies: the cross-entropy, the FP8 dequantizer and quantizer, the
log-sum-exp, the focal loss, the argmax and the bias-GELU stay as they were). Two
sources were first taken closer to their text and are written for this corpus after
them (rewritten on 2026-12-06):

- Karras' ``expandBits`` and ``morton3D`` (Tero Karras, "Thinking Parallel, Part III:
  Tree Construction on the GPU", NVIDIA Developer Blog, 2012; a snippet under the
  blog's terms), the CUDA side of the Morton entry, and the shift-and-xor
  ``part1by2`` of the WGSL side (as Fabian Giesen's "Decoding Morton Codes", 2009,
  writes it). Theirs and kept: the entry ``morton3d(points, codes, long n)``, the
  multipliers and masks of the four multiply-and-mask steps and the shifts and masks
  of the four shift-and-xor steps, the clamp of ``x * 1024`` to [0, 1023] before a
  truncation, and x's bit highest in each triple (``xx * 4 + yy * 2 + zz``). Ours:
  the comments, the helpers' names, the multiply-and-mask steps as a loop over two
  constant tables, ``fminf``/``fmaxf`` for C++'s ``min``/``max``, the formatting.
- ATen's ``upsample_bilinear2d`` (pytorch/pytorch at fe03cf69, BSD 3-clause,
  ``aten/src/ATen/native/cuda/UpSampleBilinear2d.cu`` and
  ``area_pixel_compute_source_index`` in ``UpSample.h``), ported to WGSL. Theirs and
  kept: the source index ``ratio * (dst + 0.5) - 0.5`` clamped at 0, the ratio
  ``in / out``, the truncated first tap, the second tap one further unless on the last
  row or column, the weights and the order of the interpolation's products. Ours: the
  names (ATen's ``h1r``, ``h1p``, ``h1lambda``... are not kept), the comments, the row
  offsets computed once, the formatting.

- PyTorch's ``F.cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.1,
  reduction="none")`` as a fused row kernel (one workgroup or block a row, max, sum of
  exp and sum of logits reduced in shared memory): ``lse - (1 - eps) x[y] - eps / C
  sum(x)``, 0 where the label is ``ignore_index``. CUDA with ``float smoothing, int
  ignore_index`` by value, WGSL with a uniform holding an ``i32``; labels drawn with
  about one in five rows ignored.
- Block-scaled FP8 dequantization: ``__nv_fp8_e5m2`` codes times one f32 scale per 32
  elements; the WGSL port reads the bytes four to a u32 word and widens each as the high
  byte of an f16 (E5M2 is an f16 with its low byte dropped) through
  ``unpack2x16float``. CUDA takes ``size_t n``.
- 30-bit 3-D Morton codes of points in the unit cube, after Karras' "Thinking Parallel,
  Part III" ``expandBits`` by multiplications in CUDA (``long n`` fed from the u32 uniform
  field the port reads), the shift-and-xor ``part1by2`` in WGSL, both clamping
  ``x * 1024`` to [0, 1023]; points drawn a little outside the cube.
- PyTorch's ``upsample_bilinear2d`` with ``align_corners=False``: source index
  ``scale * (dst + 0.5) - 0.5`` clamped at 0, the second tap clamped to the last row or
  column, on planes of NCHW data (WGSL).
- ``torch.logsumexp`` over rows of attention scores with masked entries at ``-inf``,
  some rows entirely masked: PyTorch replaces an infinite row maximum by 0, so a fully
  masked row gives ``-inf``, not NaN (CUDA: a warp a row with ``__shfl_xor_sync``;
  WGSL: a workgroup a row).
- torchvision's ``sigmoid_focal_loss`` (``reduction="none"``), elementwise, with
  ``alpha`` and ``gamma`` as CUDA scalars by value given by ``defaults`` and taken by
  name by the reference; the WGSL port has them as ``override`` constants with the same
  defaults.
- ``torch.argmax`` over rows, one invocation or thread a row, as ATen's combine writes
  it: greater or NaN wins, the first of equal maxima kept (``np.argmax`` agrees).
- Megatron's fused ``bias_gelu`` (tanh form) on f16 with the math in f32: WGSL with
  ``enable f16;`` (lavapipe offers shader-f16; SwiftShader is reported UNSUPPORTED,
  naming f16), CUDA with ``__half``.
- f32 to FP8 E5M2 in WGSL: ``pack2x16float``, then round to nearest even on the
  dropped low byte, four codes packed a u32 word, into an ``f8e5m2`` output.

What they showed (lavapipe and SwiftShader, 2026-12-05; tests/test_wild_round24.py pins
each gap as a strict xfail):

- An argmax that ignores NaN (``v > best`` alone) passes against ``np.argmax``: the
  oracle accepts "NaN inputs taken as missing" (maxNum, meant for WGSL's ``max`` and
  ``fmaxf``) though the kernel calls no max or min. Left failing here.
- A ``defaults`` value named like a WGSL ``override`` (the focal loss's ``alpha``)
  reaches the CUDA twin and the reference but never the override: a bare MISMATCH.
- An FP8 output's poison is the bytes of 0x7FBADBAD, three of them ordinary E5M2 codes
  (-0.078125, -224, -0.75 at elements 4k, 4k + 1, 4k + 2): a code one step off (inside
  the tolerance) that equals one is "never written": the right E5M2 quantizer here fails
  so at seed 1 (element 7170, 0xBA, one step off through f16's double rounding; the
  harness checks seed 0 alone, where it passes). The E5M2 quantizer's rounding
  mutants fail only through this; on their values they pass, because every FP8 element
  is allowed one step: a truncating quantizer (49% of codes a step toward zero; the
  original, through f16's double rounding: 0.2%) passes on positive inputs.
- The masked log-sum-exp's all ``-inf`` rows cannot be judged on SwiftShader (its
  non-finite results are indeterminate): INCONCLUSIVE, which is right, but the corpus
  harness has no way to expect it, so the original fails there.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from forge import BufferSpec, KernelSpec, Schedule, ceil_div

from . import Wild

# -- F.cross_entropy with label smoothing and ignore_index -----------------------------------

_CE_WGSL = """
struct Params { rows: u32, classes: u32, smoothing: f32, ignore_index: i32 }
@group(0) @binding(0) var<storage, read> logits: array<f32>;
@group(0) @binding(1) var<storage, read> labels: array<i32>;
@group(0) @binding(2) var<storage, read_write> loss: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

var<workgroup> red: array<f32, 256>;

fn reduce_max(t: u32) -> f32 {
    for (var s = 128u; s > 0u; s >>= 1u) {
        if (t < s) { red[t] = max(red[t], red[t + s]); }
        workgroupBarrier();
    }
    let r = red[0];
    workgroupBarrier();
    return r;
}

fn reduce_sum(t: u32) -> f32 {
    for (var s = 128u; s > 0u; s >>= 1u) {
        if (t < s) { red[t] = red[t] + red[t + s]; }
        workgroupBarrier();
    }
    let r = red[0];
    workgroupBarrier();
    return r;
}

@compute @workgroup_size(256)
fn cross_entropy_fwd(@builtin(workgroup_id) wg: vec3<u32>,
                     @builtin(local_invocation_id) lid: vec3<u32>) {
    let row = wg.x;
    let t = lid.x;
    let base = row * p.classes;

    var m = -3.402823466e+38;
    for (var c = t; c < p.classes; c += 256u) { m = max(m, logits[base + c]); }
    red[t] = m;
    workgroupBarrier();
    let row_max = reduce_max(t);

    var se = 0.0;
    var sx = 0.0;
    for (var c = t; c < p.classes; c += 256u) {
        let x = logits[base + c];
        se += exp(x - row_max);
        sx += x;
    }
    red[t] = se;
    workgroupBarrier();
    let sum_exp = reduce_sum(t);
    red[t] = sx;
    workgroupBarrier();
    let sum_x = reduce_sum(t);

    if (t == 0u) {
        let label = labels[row];
        if (label == p.ignore_index) {
            loss[row] = 0.0;
            return;
        }
        let lse = row_max + log(sum_exp);
        let eps = p.smoothing;
        loss[row] = lse - (1.0 - eps) * logits[base + u32(label)] - eps / f32(p.classes) * sum_x;
    }
}
"""

_CE_CUDA = r"""
#include <cfloat>

__device__ __forceinline__ float warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
    return v;
}
__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
    return v;
}

template <int BLOCK>
__device__ float block_reduce(float v, bool is_max) {
    __shared__ float smem[BLOCK / 32];
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    v = is_max ? warp_max(v) : warp_sum(v);
    if (lane == 0) smem[wid] = v;
    __syncthreads();
    v = (threadIdx.x < BLOCK / 32) ? smem[lane] : (is_max ? -FLT_MAX : 0.f);
    if (wid == 0) v = is_max ? warp_max(v) : warp_sum(v);
    if (threadIdx.x == 0) smem[0] = v;
    __syncthreads();
    v = smem[0];
    __syncthreads();
    return v;
}

// one block per row: loss[row] = lse - (1 - eps) * x[y] - eps / C * sum(x), 0 if ignored
__global__ void __launch_bounds__(256) cross_entropy_fwd(const float* __restrict__ logits,
                                                         const int* __restrict__ labels,
                                                         float* __restrict__ loss,
                                                         int rows, int classes,
                                                         float smoothing, int ignore_index) {
    const int row = blockIdx.x;
    const float* x = logits + (long long)row * classes;
    float m = -FLT_MAX;
    for (int c = threadIdx.x; c < classes; c += blockDim.x) m = fmaxf(m, x[c]);
    const float row_max = block_reduce<256>(m, true);
    float se = 0.f, sx = 0.f;
    for (int c = threadIdx.x; c < classes; c += blockDim.x) {
        se += __expf(x[c] - row_max);
        sx += x[c];
    }
    const float sum_exp = block_reduce<256>(se, false);
    const float sum_x = block_reduce<256>(sx, false);
    if (threadIdx.x == 0) {
        const int y = labels[row];
        if (y == ignore_index) {
            loss[row] = 0.f;
            return;
        }
        const float lse = row_max + logf(sum_exp);
        loss[row] = lse - (1.f - smoothing) * x[y] - smoothing / classes * sum_x;
    }
}
"""


def _ce_labels(rng, count, size):
    labels = rng.integers(0, size.classes, count).astype(np.int32)
    labels[rng.random(count) < 0.2] = -100
    return labels


def _cross_entropy_reference(logits, labels, loss, p):
    # F.cross_entropy(x, y, ignore_index=-100, label_smoothing=eps, reduction="none")
    x = logits.astype(np.float64)
    eps, C = float(p["smoothing"]), x.shape[1]
    m = x.max(axis=1, keepdims=True)
    logp = x - m - np.log(np.exp(x - m).sum(axis=1, keepdims=True))
    keep = labels != p["ignore_index"]
    y = np.where(keep, labels, 0)
    nll = -logp[np.arange(len(y)), y]
    smooth = -logp.sum(axis=1) / C
    return np.where(keep, (1 - eps) * nll + eps * smooth, 0.0).astype(np.float32)


CROSS_ENTROPY = Wild(
    KernelSpec(
        id="wild_r24_cross_entropy_label_smoothing_ignore_index",
        entry_point="cross_entropy_fwd",
        sources={"wgsl": _CE_WGSL, "cuda": _CE_CUDA},
        dims=("rows", "classes"),
        buffers=(
            BufferSpec(
                0, "f32", "read", name="logits", count="rows*classes", shape=("rows", "classes")
            ),
            BufferSpec(1, "i32", "read", name="labels", count="rows", fill=_ce_labels),
            BufferSpec(2, "f32", "read_write", name="loss", count="rows"),
            BufferSpec.uniform(
                3,
                (
                    ("rows", "u32"),
                    ("classes", "u32"),
                    ("smoothing", "f32"),
                    ("ignore_index", "i32"),
                ),
            ),
        ),
        reference=_cross_entropy_reference,
        params=lambda size: {"rows": size.rows, "classes": size.classes},
        defaults={"smoothing": 0.1, "ignore_index": -100},
        grid=lambda s, size: (size.rows, 1, 1),
        schedules=(Schedule(256),),
        domain={"logits": (-12.0, 12.0)},
        nonfinite_inputs=False,
        test_sizes=("rows=64,classes=1000", "rows=3,classes=1", "rows=17,classes=50257"),
    ),
    {
        "CUDA: target logit read without the row offset": (
            "cuda",
            "(1.f - smoothing) * x[y]",
            "(1.f - smoothing) * logits[y]",
        ),
        "smoothing spread over the other C - 1 classes": (
            "wgsl",
            "eps / f32(p.classes) * sum_x",
            "eps / f32(p.classes - 1u) * sum_x",
        ),
        "ignored rows not skipped": (
            "wgsl",
            "if (label == p.ignore_index) {",
            "if (label == -1) {",
        ),
        "smoothing applied to the target term twice": (
            "wgsl",
            "lse - (1.0 - eps) * logits",
            "lse - (1.0 - 2.0 * eps) * logits",
        ),
        "no barrier after the sum of exp is read": (
            "wgsl",
            "let sum_exp = reduce_sum(t);\n    red[t] = sx;\n    workgroupBarrier();",
            "let sum_exp = reduce_sum(t);\n    red[t] = sx;",
        ),
    },
    invisible={
        (
            "no barrier after the sum of exp is read",
            "wgsl",
        ): "reduce_sum ends with a barrier after reading red[0], so the store that follows "
        "cannot race with it: a refactor that is right (kept as a control)",
    },
)


# -- block-scaled FP8 E5M2 dequantization: the bytes as the high half of an f16 ---------------

_FP8_DEQ_WGSL = """
@group(0) @binding(0) var<storage, read> q: array<u32>;       // e5m2 codes, four a word
@group(0) @binding(1) var<storage, read> scales: array<f32>;  // one per 32 elements
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn dequant_fp8_e5m2(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&out)) { return; }
    let code = (q[i >> 2u] >> ((i & 3u) * 8u)) & 0xffu;
    // e5m2 is an f16 without its low 8 mantissa bits
    let v = unpack2x16float(code << 8u).x;
    out[i] = v * scales[i / 32u];
}
"""

_FP8_DEQ_CUDA = r"""
#include <cuda_fp8.h>

__global__ void dequant_fp8_e5m2(const __nv_fp8_e5m2* __restrict__ q,
                                 const float* __restrict__ scales,
                                 float* __restrict__ out, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = static_cast<float>(q[i]) * scales[i / 32];
}
"""


def _fp8_dequant_reference(q, scales, out):
    return q.astype(np.float32) * np.repeat(scales, 32)[: q.size]


FP8_E5M2_DEQUANT = Wild(
    KernelSpec(
        id="wild_r24_fp8_e5m2_block_dequant_bytes_as_f16",
        entry_point="dequant_fp8_e5m2",
        sources={"wgsl": _FP8_DEQ_WGSL, "cuda": _FP8_DEQ_CUDA},
        buffers=(
            BufferSpec(0, "f8e5m2", "read", name="q"),
            BufferSpec(1, "f32", "read", name="scales", count=lambda n: ceil_div(n, 32)),
            BufferSpec(2, "f32", "read_write", name="out"),
        ),
        reference=_fp8_dequant_reference,
        grid=lambda s, n: (ceil_div(n, 256), 1, 1),
        schedules=(Schedule(256),),
        domain={"scales": (0.001, 4.0)},
        test_sizes=(10007, 1, 4096),
    ),
    {
        "CUDA: scale blocks of 16": ("cuda", "scales[i / 32]", "scales[i / 16]"),
        "bytes taken from the top of the word": (
            "wgsl",
            "((i & 3u) * 8u)",
            "((3u - (i & 3u)) * 8u)",
        ),
        "code widened as e4m3 would be": ("wgsl", "code << 8u", "code << 7u"),
        "scale indexed by word": ("wgsl", "scales[i / 32u]", "scales[(i >> 2u) / 32u]"),
    },
)


# -- 3-D Morton codes: Karras' expandBits (CUDA) and part1by2 (WGSL) --------------------------

_MORTON_WGSL = """
struct Params { n: u32 }
@group(0) @binding(0) var<storage, read> points: array<f32>;  // x, y, z
@group(0) @binding(1) var<storage, read_write> codes: array<u32>;
@group(0) @binding(2) var<uniform> p: Params;

// bit k of the low ten bits moves to bit 3 k, by shifts, xors and masks
fn spread_bits(v: u32) -> u32 {
    var s = v & 0x000003ffu;
    s = (s ^ (s << 16u)) & 0xff0000ffu;
    s = (s ^ (s << 8u)) & 0x0300f00fu;
    s = (s ^ (s << 4u)) & 0x030c30c3u;
    s = (s ^ (s << 2u)) & 0x09249249u;
    return s;
}

// a unit-cube coordinate to one of 1024 cells, truncated, points outside clamped in
fn cell(c: f32) -> u32 {
    return u32(clamp(c * 1024.0, 0.0, 1023.0));
}

@compute @workgroup_size(64)
fn morton3d(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.n) { return; }
    let at = 3u * i;
    let xx = spread_bits(cell(points[at]));
    let yy = spread_bits(cell(points[at + 1u]));
    let zz = spread_bits(cell(points[at + 2u]));
    codes[i] = (xx << 2u) | (yy << 1u) | zz;  // x's bit highest in each triple
}
"""

_MORTON_CUDA = r"""
// bit k of the low ten bits moves to bit 3 k: four multiply-and-mask steps, each
// multiplication making shifted copies that the mask then thins out
__device__ unsigned int spread3(unsigned int v)
{
    const unsigned int times[4] = {0x00010001u, 0x00000101u, 0x00000011u, 0x00000005u};
    const unsigned int keep[4] = {0xFF0000FFu, 0x0F00F00Fu, 0xC30C30C3u, 0x49249249u};
#pragma unroll
    for (int k = 0; k < 4; ++k) v = (v * times[k]) & keep[k];
    return v;
}

// a unit-cube coordinate to one of 1024 cells: scaled, clamped to [0, 1023], truncated
__device__ unsigned int cell(float c)
{
    return (unsigned int)fminf(fmaxf(c * 1024.0f, 0.0f), 1023.0f);
}

__global__ void morton3d(const float* points, unsigned int* codes, long n)
{
    const long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float* pt = points + 3 * i;
    const unsigned int xx = spread3(cell(pt[0]));
    const unsigned int yy = spread3(cell(pt[1]));
    const unsigned int zz = spread3(cell(pt[2]));
    codes[i] = xx * 4 + yy * 2 + zz;
}
"""


def _morton_reference(points, codes, p):
    q = np.clip(np.floor(points.reshape(-1, 3).astype(np.float64) * 1024), 0, 1023).astype(
        np.uint32
    )
    out = np.zeros(len(q), np.uint32)
    for bit in range(10):
        for axis, shift in ((0, 2), (1, 1), (2, 0)):
            out |= ((q[:, axis] >> bit) & 1) << (3 * bit + shift)
    return out


MORTON = Wild(
    KernelSpec(
        id="wild_r24_morton3d_karras_expand_bits_and_part1by2",
        entry_point="morton3d",
        sources={"wgsl": _MORTON_WGSL, "cuda": _MORTON_CUDA},
        buffers=(
            BufferSpec(0, "f32", "read", name="points", count="3*n"),
            BufferSpec(1, "u32", "read_write", name="codes"),
            BufferSpec.uniform(2, (("n", "u32"),)),
        ),
        reference=_morton_reference,
        params=lambda n: {"n": n},
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        schedules=(Schedule(64),),
        domain={"points": (-0.05, 1.05)},
        nonfinite_inputs=False,
        test_sizes=(10007, 1, 64),
    ),
    {
        "CUDA: x and z interleaved the other way": (
            "cuda",
            "codes[i] = xx * 4 + yy * 2 + zz;",
            "codes[i] = xx + yy * 2 + zz * 4;",
        ),
        "x and z interleaved the other way": (
            "wgsl",
            "(xx << 2u) | (yy << 1u) | zz",
            "(zz << 2u) | (yy << 1u) | xx",
        ),
        "clamped to 1024": (
            "wgsl",
            "clamp(c * 1024.0, 0.0, 1023.0)",
            "clamp(c * 1024.0, 0.0, 1024.0)",
        ),
        "second step's mask from the 2-D version": ("wgsl", "& 0x0300f00fu", "& 0x00ff00ffu"),
        "rounded, not truncated": ("wgsl", "u32(clamp(c * 1024.0", "u32(round(c * 1024.0)); //"),
    },
)


# -- upsample_bilinear2d, align_corners=False -------------------------------------------------

_BILINEAR_WGSL = """
struct Params { in_h: u32, in_w: u32, out_h: u32, out_w: u32 }
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

// where output index o samples the input along one axis (align_corners=false): the
// output pixel's centre taken back by the input/output ratio, never below 0
fn back_project(ratio: f32, o: u32) -> f32 {
    let s = ratio * (f32(o) + 0.5) - 0.5;
    return max(s, 0.0);
}

@compute @workgroup_size(16, 16)
fn upsample_bilinear2d(@builtin(global_invocation_id) gid: vec3<u32>) {
    let col = gid.x;
    let row = gid.y;
    if (col >= p.out_w || row >= p.out_h) { return; }
    let plane = gid.z;
    let ratio_y = f32(p.in_h) / f32(p.out_h);
    let ratio_x = f32(p.in_w) / f32(p.out_w);

    // each axis: the first tap, the step to the second (none at the last row or
    // column) and the two taps' weights
    let sy = back_project(ratio_y, row);
    let y0 = u32(sy);
    let dy = select(0u, 1u, y0 < p.in_h - 1u);
    let wy1 = sy - f32(y0);
    let wy0 = 1.0 - wy1;

    let sx = back_project(ratio_x, col);
    let x0 = u32(sx);
    let dx = select(0u, 1u, x0 < p.in_w - 1u);
    let wx1 = sx - f32(x0);
    let wx0 = 1.0 - wx1;

    let plane_base = plane * p.in_h * p.in_w;
    let upper = plane_base + y0 * p.in_w;
    let lower = plane_base + (y0 + dy) * p.in_w;
    let a = src[upper + x0];
    let b = src[upper + x0 + dx];
    let c = src[lower + x0];
    let d = src[lower + x0 + dx];
    dst[(plane * p.out_h + row) * p.out_w + col] =
        wy0 * (wx0 * a + wx1 * b) + wy1 * (wx0 * c + wx1 * d);
}
"""


def _bilinear_reference(src, dst, p):
    # F.interpolate(x, size=(out_h, out_w), mode="bilinear", align_corners=False)
    in_h, in_w, out_h, out_w = (int(p[k]) for k in ("in_h", "in_w", "out_h", "out_w"))
    x = src.reshape(-1, in_h, in_w).astype(np.float64)

    def taps(n_in, n_out):
        s = np.maximum((np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5, 0.0)
        i0 = np.floor(s).astype(np.int64)
        i1 = np.minimum(i0 + 1, n_in - 1)
        return i0, i1, s - i0

    h0, h1, lh = taps(in_h, out_h)
    w0, w1, lw = taps(in_w, out_w)
    lh, lw = lh[:, None], lw[None, :]
    top = x[:, h0][:, :, w0] * (1 - lw) + x[:, h0][:, :, w1] * lw
    bottom = x[:, h1][:, :, w0] * (1 - lw) + x[:, h1][:, :, w1] * lw
    return ((1 - lh) * top + lh * bottom).astype(np.float32).ravel()


BILINEAR = Wild(
    KernelSpec(
        id="wild_r24_upsample_bilinear2d_align_corners_false",
        entry_point="upsample_bilinear2d",
        sources={"wgsl": _BILINEAR_WGSL},
        dims=("planes", "in_h", "in_w", "out_h", "out_w"),
        buffers=(
            BufferSpec(0, "f32", "read", name="src", count="planes*in_h*in_w"),
            BufferSpec(1, "f32", "read_write", name="dst", count="planes*out_h*out_w"),
            BufferSpec.uniform(
                2, (("in_h", "u32"), ("in_w", "u32"), ("out_h", "u32"), ("out_w", "u32"))
            ),
        ),
        reference=_bilinear_reference,
        params=lambda size: {
            "in_h": size.in_h,
            "in_w": size.in_w,
            "out_h": size.out_h,
            "out_w": size.out_w,
        },
        grid=lambda s, size: (ceil_div(size.out_w, 16), ceil_div(size.out_h, 16), size.planes),
        schedules=(Schedule((16, 16)),),
        nonfinite_inputs=False,
        test_sizes=(
            "planes=6,in_h=17,in_w=23,out_h=40,out_w=37",
            "planes=2,in_h=64,in_w=48,out_h=21,out_w=30",
            "planes=1,in_h=1,in_w=5,out_h=3,out_w=11",
        ),
    ),
    {
        "source index not clamped at 0": ("wgsl", "return max(s, 0.0);", "return s;"),
        "align_corners=True's scale": (
            "wgsl",
            "let ratio_y = f32(p.in_h) / f32(p.out_h);",
            "let ratio_y = f32(p.in_h - 1u) / f32(p.out_h - 1u);",
        ),
        "second tap not clamped to the last column": (
            "wgsl",
            "let dx = select(0u, 1u, x0 < p.in_w - 1u);",
            "let dx = 1u;",
        ),
        "half-pixel offset left out": (
            "wgsl",
            "ratio * (f32(o) + 0.5) - 0.5",
            "ratio * f32(o)",
        ),
    },
)


# -- torch.logsumexp over masked rows: an all -inf row gives -inf ------------------------------

_LSE_WGSL = """
struct Params { rows: u32, cols: u32 }
@group(0) @binding(0) var<storage, read> scores: array<f32>;
@group(0) @binding(1) var<storage, read_write> lse: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;
var<workgroup> red: array<f32, 32>;

@compute @workgroup_size(32)
fn row_logsumexp(@builtin(workgroup_id) wg: vec3<u32>,
                 @builtin(local_invocation_id) lid: vec3<u32>) {
    let row = wg.x;
    let t = lid.x;
    let base = row * p.cols;
    var m = scores[base];  // a row has at least one column
    for (var c = t; c < p.cols; c += 32u) { m = max(m, scores[base + c]); }
    red[t] = m;
    workgroupBarrier();
    for (var s = 16u; s > 0u; s >>= 1u) {
        if (t < s) { red[t] = max(red[t], red[t + s]); }
        workgroupBarrier();
    }
    var row_max = red[0];
    // as at::logsumexp: an infinite maximum (a fully masked row) is replaced by 0;
    // WGSL has no isinf, and only -inf is below -FLT_MAX
    if (row_max < -3.402823466e+38) { row_max = 0.0; }
    workgroupBarrier();
    var s = 0.0;
    for (var c = t; c < p.cols; c += 32u) { s += exp(scores[base + c] - row_max); }
    red[t] = s;
    workgroupBarrier();
    for (var k = 16u; k > 0u; k >>= 1u) {
        if (t < k) { red[t] = red[t] + red[t + k]; }
        workgroupBarrier();
    }
    if (t == 0u) { lse[row] = log(red[0]) + row_max; }
}
"""

_LSE_CUDA = r"""
#include <cmath>

// one warp per row
__global__ void row_logsumexp(const float* __restrict__ scores, float* __restrict__ lse,
                              int rows, int cols) {
    const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (row >= rows) return;
    const float* x = scores + (size_t)row * cols;
    float m = -INFINITY;
    for (int c = lane; c < cols; c += 32) m = fmaxf(m, x[c]);
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));
    if (isinf(m)) m = 0.f;
    float s = 0.f;
    for (int c = lane; c < cols; c += 32) s += expf(x[c] - m);
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffff, s, o);
    if (lane == 0) lse[row] = logf(s) + m;
}
"""


def _masked_scores(rng, count, size):
    x = rng.uniform(-10.0, 10.0, (size.rows, size.cols)).astype(np.float32)
    x[rng.random(x.shape) < 0.3] = -np.inf  # masked positions
    x[rng.random(size.rows) < 0.25] = -np.inf  # padding rows: everything masked
    # causal-style rows: the first j columns visible
    return x.ravel()


def _lse_reference(scores, lse, p):
    # torch.logsumexp(scores, dim=-1)
    x = scores.reshape(int(p["rows"]), int(p["cols"])).astype(np.float64)
    m = x.max(axis=1, keepdims=True)
    m[np.isinf(m)] = 0.0
    with np.errstate(divide="ignore"):
        return (np.log(np.exp(x - m).sum(axis=1)) + m[:, 0]).astype(np.float32)


LOGSUMEXP_MASKED = Wild(
    KernelSpec(
        id="wild_r24_logsumexp_masked_rows_all_neg_inf",
        entry_point="row_logsumexp",
        sources={"wgsl": _LSE_WGSL, "cuda": _LSE_CUDA},
        dims=("rows", "cols"),
        buffers=(
            BufferSpec(0, "f32", "read", name="scores", count="rows*cols", fill=_masked_scores),
            BufferSpec(1, "f32", "read_write", name="lse", count="rows"),
            BufferSpec.uniform(2, (("rows", "u32"), ("cols", "u32"))),
        ),
        reference=_lse_reference,
        params=lambda size: {"rows": size.rows, "cols": size.cols},
        # CUDA: one warp a row, launched with a warp a block; WGSL: a 32-wide workgroup a row
        grid=lambda s, size: (size.rows, 1, 1),
        schedules=(Schedule(32),),
        test_sizes=("rows=64,cols=77", "rows=1,cols=1", "rows=33,cols=1024"),
    ),
    {
        "CUDA: infinite maximum kept": ("cuda", "if (isinf(m)) m = 0.f;", ""),
        "infinite maximum kept (NaN for a masked row)": (
            "wgsl",
            "if (row_max < -3.402823466e+38) { row_max = 0.0; }",
            "",
        ),
        "maximum taken from the first lane's columns only": (
            "wgsl",
            "var row_max = red[0];",
            "var row_max = m;",
        ),
    },
    nonfinite_only=frozenset(
        {"infinite maximum kept (NaN for a masked row)", "CUDA: infinite maximum kept"}
    ),
)


# -- torchvision.ops.sigmoid_focal_loss, reduction="none" ------------------------------------

_FOCAL_CUDA = r"""
// torchvision.ops.sigmoid_focal_loss(inputs, targets, alpha, gamma, reduction="none")
__global__ void sigmoid_focal_loss(const float* __restrict__ inputs,
                                   const float* __restrict__ targets,
                                   float* __restrict__ loss, int n,
                                   float alpha, float gamma) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = inputs[i], t = targets[i];
    float p = 1.f / (1.f + expf(-x));
    // binary_cross_entropy_with_logits, the stable form
    float ce = fmaxf(x, 0.f) - x * t + log1pf(expf(-fabsf(x)));
    float p_t = p * t + (1.f - p) * (1.f - t);
    float l = ce * powf(1.f - p_t, gamma);
    if (alpha >= 0.f) {
        float alpha_t = alpha * t + (1.f - alpha) * (1.f - t);
        l = alpha_t * l;
    }
    loss[i] = l;
}
"""

_FOCAL_WGSL = """
override alpha: f32 = 0.25;
override gamma: f32 = 2.0;
@group(0) @binding(0) var<storage, read> inputs: array<f32>;
@group(0) @binding(1) var<storage, read> targets: array<f32>;
@group(0) @binding(2) var<storage, read_write> loss: array<f32>;

@compute @workgroup_size(256)
fn sigmoid_focal_loss(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&loss)) { return; }
    let x = inputs[i];
    let t = targets[i];
    let p = 1.0 / (1.0 + exp(-x));
    let ce = max(x, 0.0) - x * t + log(1.0 + exp(-abs(x)));
    let p_t = p * t + (1.0 - p) * (1.0 - t);
    var l = ce * pow(1.0 - p_t, gamma);
    if (alpha >= 0.0) {
        let alpha_t = alpha * t + (1.0 - alpha) * (1.0 - t);
        l = alpha_t * l;
    }
    loss[i] = l;
}
"""


def _binary_targets(rng, count, size):
    return (rng.random(count) < 0.3).astype(np.float32)


def _focal_reference(inputs, targets, loss, alpha, gamma):
    x, t = inputs.astype(np.float64), targets.astype(np.float64)
    p = 1 / (1 + np.exp(-x))
    ce = np.maximum(x, 0) - x * t + np.log1p(np.exp(-np.abs(x)))
    p_t = p * t + (1 - p) * (1 - t)
    out = ce * (1 - p_t) ** gamma
    if alpha >= 0:
        out = (alpha * t + (1 - alpha) * (1 - t)) * out
    return out.astype(np.float32)


FOCAL_LOSS = Wild(
    KernelSpec(
        id="wild_r24_torchvision_sigmoid_focal_loss_scalars_by_name",
        entry_point="sigmoid_focal_loss",
        sources={"cuda": _FOCAL_CUDA, "wgsl": _FOCAL_WGSL},
        buffers=(
            BufferSpec(0, "f32", "read", name="inputs"),
            BufferSpec(1, "f32", "read", name="targets", fill=_binary_targets),
            BufferSpec(2, "f32", "read_write", name="loss"),
        ),
        reference=_focal_reference,
        defaults={"alpha": 0.25, "gamma": 2.0},
        grid=lambda s, n: (ceil_div(n, 256), 1, 1),
        schedules=(Schedule(256),),
        domain={"inputs": (-12.0, 12.0)},
        nonfinite_inputs=False,
        test_sizes=(10007, 1, 4096),
    ),
    {
        "CUDA: modulating factor of p_t": ("cuda", "powf(1.f - p_t, gamma)", "powf(p_t, gamma)"),
        "modulating factor of p_t, not 1 - p_t": (
            "wgsl",
            "pow(1.0 - p_t, gamma)",
            "pow(p_t, gamma)",
        ),
        "alpha weights the negatives": (
            "wgsl",
            "alpha * t + (1.0 - alpha) * (1.0 - t)",
            "(1.0 - alpha) * t + alpha * (1.0 - t)",
        ),
        "sigmoid of -x": (
            "wgsl",
            "let p = 1.0 / (1.0 + exp(-x));",
            "let p = 1.0 / (1.0 + exp(x));",
        ),
    },
)


# -- torch.argmax over rows: NaN is the maximum, the first of equal maxima wins ---------------

_ARGMAX_WGSL = """
struct Params { rows: u32, cols: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> idx: array<u32>;
@group(0) @binding(2) var<uniform> p: Params;

// one invocation a row, as torch.argmax: NaN propagates, ties go to the lowest index
@compute @workgroup_size(64)
fn row_argmax(@builtin(global_invocation_id) gid: vec3<u32>) {
    let row = gid.x;
    if (row >= p.rows) { return; }
    let base = row * p.cols;
    var best = x[base];
    var best_i = 0u;
    for (var c = 1u; c < p.cols; c++) {
        let v = x[base + c];
        if (best != best) { break; }       // a NaN already won
        if (v > best || v != v) {
            best = v;
            best_i = c;
        }
    }
    idx[row] = best_i;
}
"""

_ARGMAX_CUDA = r"""
// one thread a row; greater-or-NaN, as ATen's argmax combine (lower index on ties)
__global__ void row_argmax(const float* __restrict__ x, unsigned int* __restrict__ idx,
                           int rows, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const float* r = x + (size_t)row * cols;
    float best = r[0];
    unsigned int best_i = 0;
    for (int c = 1; c < cols && !isnan(best); ++c) {
        float v = r[c];
        if (v > best || isnan(v)) {
            best = v;
            best_i = c;
        }
    }
    idx[row] = best_i;
}
"""


def _argmax_reference(x, idx, p):
    # torch.argmax(x, dim=1); numpy's argmax also returns the first NaN, else the first max
    return np.argmax(x.reshape(int(p["rows"]), int(p["cols"])), axis=1).astype(np.uint32)


ARGMAX_NAN = Wild(
    KernelSpec(
        id="wild_r24_row_argmax_nan_wins_first_tie",
        entry_point="row_argmax",
        sources={"wgsl": _ARGMAX_WGSL, "cuda": _ARGMAX_CUDA},
        dims=("rows", "cols"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="rows*cols"),
            BufferSpec(1, "u32", "read_write", name="idx", count="rows"),
            BufferSpec.uniform(2, (("rows", "u32"), ("cols", "u32"))),
        ),
        reference=_argmax_reference,
        params=lambda size: {"rows": size.rows, "cols": size.cols},
        grid=lambda s, size: (ceil_div(size.rows, 64), 1, 1),
        schedules=(Schedule(64),),
        test_sizes=("rows=256,cols=33", "rows=1,cols=1", "rows=100,cols=1000"),
        # torch.argmax's NaN wins: declared on CUDA, where isnan holds, so an argmax
        # that drops NaN (which the oracle otherwise accepts, as fmaxf and WGSL's max
        # drop it, issue 11) fails there
        tolerance={"backend:cuda": {"u32": {"nan": "propagate"}}},
    ),
    {
        "CUDA: NaN ignored": ("cuda", "if (v > best || isnan(v)) {", "if (v > best) {"),
        "last of equal maxima": ("wgsl", "if (v > best || v != v) {", "if (v >= best || v != v) {"),
        "NaN ignored": ("wgsl", "if (v > best || v != v) {", "if (v > best) {"),
        "first column never a candidate": ("wgsl", "var best_i = 0u;", "var best_i = 1u;"),
    },
    nonfinite_only=frozenset({"NaN ignored", "CUDA: NaN ignored"}),
    invisible={
        ("NaN ignored", "wgsl"): "WGSL lets an implementation assume no NaN (lavapipe folds "
        "`v != v` to false, so the original ignores NaN too), and on WGSL the oracle takes "
        "NaN inputs as missing (issue 11); on CUDA, where isnan holds, the kernel declares "
        'nan="propagate" and its NaN-ignoring twin fails'
    },
)


# -- Megatron's fused bias-GELU on f16, the math in f32 (``enable f16;``) -----------------------

_BIAS_GELU_WGSL = """
enable f16;
struct Params { hidden: u32 }
@group(0) @binding(0) var<storage, read> input: array<f16>;
@group(0) @binding(1) var<storage, read> bias: array<f16>;
@group(0) @binding(2) var<storage, read_write> output: array<f16>;
@group(0) @binding(3) var<uniform> p: Params;

@compute @workgroup_size(256)
fn bias_gelu(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&output)) { return; }
    let x = f32(input[i]) + f32(bias[i % p.hidden]);
    let y = x * 0.5 * (1.0 + tanh(0.79788456 * x * (1.0 + 0.044715 * x * x)));
    output[i] = f16(y);
}
"""

_BIAS_GELU_CUDA = r"""
#include <cuda_fp16.h>

__global__ void bias_gelu(const __half* __restrict__ input, const __half* __restrict__ bias,
                          __half* __restrict__ output, int tokens, int hidden) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= tokens * hidden) return;
    float x = __half2float(input[i]) + __half2float(bias[i % hidden]);
    float y = x * 0.5f * (1.0f + tanhf(0.79788456f * x * (1.0f + 0.044715f * x * x)));
    output[i] = __float2half(y);
}
"""


def _bias_gelu_reference(input, bias, output, p):
    # megatron/model/fused_bias_gelu.py: bias_gelu(bias, y), in float32 from the halves
    x = input.astype(np.float64).reshape(-1, int(p["hidden"])) + bias.astype(np.float64)
    y = x * 0.5 * (1.0 + np.tanh(0.79788456 * x * (1 + 0.044715 * x * x)))
    return y.astype(np.float16).ravel()


BIAS_GELU_F16 = Wild(
    KernelSpec(
        id="wild_r24_megatron_bias_gelu_f16_f32_math",
        entry_point="bias_gelu",
        sources={"wgsl": _BIAS_GELU_WGSL, "cuda": _BIAS_GELU_CUDA},
        dims=("tokens", "hidden"),
        buffers=(
            BufferSpec(0, "f16", "read", name="input", count="tokens*hidden"),
            BufferSpec(1, "f16", "read", name="bias", count="hidden"),
            BufferSpec(2, "f16", "read_write", name="output", count="tokens*hidden"),
            BufferSpec.uniform(3, (("hidden", "u32"),)),
        ),
        reference=_bias_gelu_reference,
        params=lambda size: {"hidden": size.hidden},
        grid=lambda s, size: (ceil_div(size.tokens * size.hidden, 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=("tokens=16,hidden=1024", "tokens=1,hidden=1", "tokens=7,hidden=333"),
    ),
    {
        "CUDA: bias indexed by row": ("cuda", "bias[i % hidden]", "bias[i / hidden]"),
        "bias indexed by row": ("wgsl", "bias[i % p.hidden]", "bias[i / p.hidden]"),
        "cubic term squared only": (
            "wgsl",
            "(1.0 + 0.044715 * x * x)",
            "(1.0 + 0.044715 * x)",
        ),
        "bias left out": (
            "wgsl",
            "let x = f32(input[i]) + f32(bias[i % p.hidden]);",
            "let x = f32(input[i]);",
        ),
    },
)


# -- f32 to FP8 E5M2 in WGSL: through f16, round to nearest even on the dropped byte ----------

_E5M2_QUANT_WGSL = """
struct Params { n: u32, inv_scale: f32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> q: array<u32>;  // e5m2 codes, four a word
@group(0) @binding(2) var<uniform> p: Params;

// e5m2 is the high byte of an f16: round the low byte away, to nearest even
fn to_e5m2(v: f32) -> u32 {
    let h = pack2x16float(vec2<f32>(v, 0.0)) & 0xffffu;
    if ((h & 0x7c00u) == 0x7c00u) { return h >> 8u; }  // inf and NaN as they are
    return (h + 0x7fu + ((h >> 8u) & 1u)) >> 8u;
}

@compute @workgroup_size(64)
fn quantize_e5m2(@builtin(global_invocation_id) gid: vec3<u32>) {
    let w = gid.x;
    let base = 4u * w;
    if (base >= p.n) { return; }
    var word = 0u;
    for (var k = 0u; k < 4u; k++) {
        if (base + k < p.n) {
            word |= to_e5m2(x[base + k] * p.inv_scale) << (8u * k);
        }
    }
    q[w] = word;
}
"""


def _e5m2_quant_reference(x, q, p):
    # (x * inv_scale).to(torch.float8_e5m2): round to nearest even
    return (x * np.float32(p["inv_scale"])).astype(ml_dtypes.float8_e5m2)


E5M2_QUANT = Wild(
    KernelSpec(
        id="wild_r24_fp8_e5m2_quantize_wgsl_via_f16_rne",
        entry_point="quantize_e5m2",
        sources={"wgsl": _E5M2_QUANT_WGSL},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f8e5m2", "read_write", name="q"),
            BufferSpec.uniform(2, (("n", "u32"), ("inv_scale", "f32"))),
        ),
        reference=_e5m2_quant_reference,
        params=lambda n: {"n": n},
        defaults={"inv_scale": 0.125},
        grid=lambda s, n: (ceil_div(ceil_div(n, 4), 64), 1, 1),
        schedules=(Schedule(64),),
        domain={"x": (-2000.0, 2000.0)},
        # it rounds twice (to f16, then the f16's low byte to nearest even), which lands
        # one E5M2 step from a single rounding where the f16 is a tie (0.1 to 0.2% of
        # codes): its author accepts that, so it declares one step
        tolerance={"f8e5m2": {"ulp": 1}},
        test_sizes=(10007, 1, 4096),
    ),
    {
        "truncated, not rounded": (
            "wgsl",
            "return (h + 0x7fu + ((h >> 8u) & 1u)) >> 8u;",
            "return h >> 8u;",
        ),
        "ties rounded away from zero": (
            "wgsl",
            "return (h + 0x7fu + ((h >> 8u) & 1u)) >> 8u;",
            "return (h + 0x80u) >> 8u;",
        ),
        "bytes packed from the top": ("wgsl", "<< (8u * k);", "<< (24u - 8u * k);"),
    },
    invisible={
        (name, "wgsl"): "the kernel declares one E5M2 step (its double rounding), so a "
        "conversion one step off is within it; judged by its rounding, as an FP8 output "
        "is by default, it fails (tests/test_wild_round24.py)"
        for name in ("truncated, not rounded", "ties rounded away from zero")
    },
)


ROUND24 = {
    w.kernel.id: w
    for w in (
        CROSS_ENTROPY,
        FP8_E5M2_DEQUANT,
        MORTON,
        BILINEAR,
        LOGSUMEXP_MASKED,
        FOCAL_LOSS,
        ARGMAX_NAN,
        BIAS_GELU_F16,
        E5M2_QUANT,
    )
}

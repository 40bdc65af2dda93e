"""Round 49 of kernels from the wild, merged into ``tests.wild.CORPUS``: the WGSL of a
WebGPU inference runtime the corpus had met twice (round 17's WKV, round 41's f16
matrix-vector product) in the parts it had not: its 4-bit NF4 weights (the quantiser
and the matrix-vector product that reads them) and its normalisations, modules of
several entry points sharing workgroup declarations; and onnxruntime's WebGPU execution
provider's Hadamard transform (2026), a domain the corpus lacked. The first five follow
cryscan/web-rwkv (MIT or Apache-2.0, dual-licensed), the last microsoft/onnxruntime
(MIT), read, not copied (the project's rule for public code). Of web-rwkv's, what is
theirs is kept: the entry points, the bindings (group, binding, name, type,
access, order), the bare ``vec4<u32>`` shape uniforms and the ``View`` structs, the NF4
code table as a uniform ``array<vec4<f32>, 4>``, the builtins taken in a struct
(``fn quantize(in: Input)``, ``dot(in.uid, ...)`` over ``num_workgroups``), the
workgroup sizes, the launches as the host (``src/tensor/ops.rs``, ``TensorOp``) makes
them where they are sound, the helpers' shapes (``reduce_step``/``reduce_sum`` with
their barrier inside, the unrolled calls), and the numerics, quirks included: the
variance as ``E[x^2] - mean^2 + EPS``, the nearest code the last of equal distances
(``<=``), an accumulator declared without an initialiser. What is ours: the comments,
the locals' names where theirs say nothing, the order of equivalent statements and the
formatting; the host's macros written as WGSL: ``BLOCK_SIZE``, ``NF4_BLOCK_SIZE`` as
constants of the values the host gives them, and where one module's entry points take
different values (layer_norm.wgsl) or the host passes a number (``EPS``), as an
``override`` each pipeline sets.

- ``quant_mat_nf4.wgsl`` (web-rwkv at 5f9dca1): ``compute_absmax`` (one invocation a
  block of 64 halves: eight ``vec4<u32>`` words, a running ``max(abs(.))``) then
  ``quantize`` (invocation 0 copies the code table into workgroup memory, a barrier;
  one invocation a word of eight halves scaled by ``1 / absmax``, each matched to the
  nearest of 16 codes by a linear scan, eight 4-bit indices packed low nibble first).
  No bound in either pass; the host's launch at this commit has four times the
  invocations it needs and writes past the end (``HOST_LAUNCHES_5F9DCA1``), so the
  corpus launches one invocation a block, then a word, at sizes of whole workgroups.
  The file from 44697ab on bounds it with an early return before the barrier, which
  Tint refuses: that is a mutant here, refused.
- ``matmul_vec_nf4.wgsl`` (web-rwkv at 07473b25): the product of those weights with a
  vector of halves, one workgroup of 128 for four matrix rows of one token; each u32 of
  the matrix is eight nibbles, looked up in the code table two bit pairs at a time
  (``quant[hi][lo]``) into two ``mat4x4`` sub-blocks, scaled by the block's absmax
  (two f16 a word, this version's layout), ``transpose(m) * x`` and a tree.
- ``layer_norm.wgsl`` (web-rwkv at 143bc30c): ``layer_norm`` (BLOCK_SIZE 128, its tree
  from 64) and RWKV-5's per-head ``group_norm`` (BLOCK_SIZE 32, its tree from 16) over
  one set of workgroup arrays, two pipelines of one module: two kernels here. Sums and
  sums of squares accumulate straight into the zero-initialised workgroup arrays; EPS
  the model's LN_EPS (1e-5) and GN_EPS (64e-5). The group norm's own file
  (group_norm.wgsl) had no epsilon from 3270fb6 (2023-09-28) until 57c4de2
  (2023-11-16): a mutant here.
- ``rms_norm.wgsl`` (web-rwkv at 62c346c8), its f32, no-stats form: ``recenter``
  (subtract the row's mean in place) and ``rms_norm`` (scale by ``inverseSqrt(mean
  square + EPS)``, then ``fma`` with f16 weight and bias) sharing one ``sketch`` array,
  launched in turn: a layer norm, as the file's own test runs them.
- onnxruntime at 58be46a7, ``contrib_ops/webgpu/bert/hadamard_transform.wgsl.template``
  with its ``_common`` butterfly, as ``HadamardTransformProgram`` renders them (four
  components, f32): one workgroup a (batch, token, head) slice staged in workgroup
  memory, log2(D) butterfly passes with a barrier after each, the orthonormal scale
  ``1 / sqrt(D)``; ShaderHelper's type aliases, ``$MAIN``'s builtins and
  ``workgroup_idx``, the early return on a slice past the end (uniform: Tint takes
  it). Theirs: the template's names, passes, loops and numerics; ours: the comments,
  the pair's index written in one line, the uniforms struct cut to what it reads.

What they showed is pinned in tests/test_wild_round49.py and summed up there.
"""

# ruff: noqa: E501  (long lines of WGSL, and the mutants')

from __future__ import annotations

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import Wild

# QLoRA's NormalFloat4 codes, as web-rwkv's host uploads them (f32, ascending)
NF4_CODES = np.array(
    [
        -1.0,
        -0.6961928009986877,
        -0.5250730514526367,
        -0.39491748809814453,
        -0.28444138169288635,
        -0.18477343022823334,
        -0.09105003625154495,
        0.0,
        0.07958029955625534,
        0.16093020141124725,
        0.24611230194568634,
        0.33791524171829224,
        0.44070982933044434,
        0.5626170039176941,
        0.7229568362236023,
        1.0,
    ],
    np.float32,
)


def _nf4_table(rng, count, size):
    """The code table the host uploads: the 16 codes, four to a vec4."""
    return NF4_CODES.reshape(4, 4).copy()


_VIEW = (("stride", "vec4<u32>"), ("offset", "vec4<u32>"), ("shape", "vec4<u32>"))


def _view(first: str):
    """A whole tensor's view (stride and shape its shape, no offset), ``first`` its
    leading dimension, T and B the others."""

    def fill(rng, count, size):
        out = np.zeros(1, BufferSpec(0, _VIEW, "read").dtype)
        whole = (getattr(size, first), size.T, size.B, 1)
        out["stride"], out["shape"] = whole, whole
        return out

    return fill


# -- 1. quant_mat_nf4: absmax per block of 64, then nibbles of the nearest code ---------------

_QUANT_NF4 = """// kernel-forge corpus: web-rwkv's NF4 quantiser (read, not copied). Pass one
// finds each block's largest magnitude, pass two maps each half, scaled into [-1, 1],
// to the index of its nearest NormalFloat4 code, eight 4-bit indices to a word; its
// workgroup first copies the code table out of the uniform.

struct Input {
    @builtin(global_invocation_id) uid: vec3<u32>,
    @builtin(local_invocation_index) index: u32,
    @builtin(num_workgroups) b: vec3<u32>,
};

@group(0) @binding(0) var<uniform> shape: vec4<u32>;                        // [C / S, R]. [C / 2, R]
@group(0) @binding(1) var<uniform> quant: array<vec4<f32>, 4>;

@group(0) @binding(2) var<storage, read> input: array<vec4<u32>>;           // (R, C) halves

@group(0) @binding(3) var<storage, read_write> absmax: array<f32>;          // (R, C / S)
@group(0) @binding(4) var<storage, read_write> output: array<u32>;          // (R, C / 8)

var<workgroup> q: array<vec4<f32>, 4u>;

const BLOCK_SIZE: u32 = 128u;
const NF4_BLOCK_SIZE: u32 = 64u;
const NF4_BLOCK_STEP: u32 = NF4_BLOCK_SIZE / 8u;  // a block's vec4<u32> words

// four halves from two words, low half first
fn unpack4x16float(w: vec2<u32>) -> vec4<f32> {
    return vec4<f32>(unpack2x16float(w.x), unpack2x16float(w.y));
}

@compute @workgroup_size(BLOCK_SIZE, 1, 1)
fn compute_absmax(in: Input) {
    let bti = dot(in.uid, vec3<u32>(1u, BLOCK_SIZE * in.b.x, BLOCK_SIZE * in.b.x * in.b.y));

    var peak = vec4<f32>(0.0);
    for (var k = 0u; k < NF4_BLOCK_STEP; k += 1u) {
        let word = input[bti * NF4_BLOCK_STEP + k];
        let lo = unpack4x16float(word.xy);
        let hi = unpack4x16float(word.zw);
        peak = max(abs(lo), peak);
        peak = max(abs(hi), peak);
    }
    absmax[bti] = max(max(peak[0], peak[1]), max(peak[2], peak[3]));
}

@compute @workgroup_size(BLOCK_SIZE, 1, 1)
fn quantize(in: Input) {
    let bti = dot(in.uid, vec3<u32>(1u, BLOCK_SIZE * in.b.x, BLOCK_SIZE * in.b.x * in.b.y));

    if in.index == 0u {
        q = quant;
    }
    workgroupBarrier();

    let scale = 1.0 / absmax[bti / NF4_BLOCK_STEP];
    let word = input[bti];
    var v: array<vec4<f32>, 2>;
    v[0] = unpack4x16float(word.xy) * scale;
    v[1] = unpack4x16float(word.zw) * scale;

    var packed = 0u;
    for (var e = 0u; e < 8u; e += 1u) {
        let value = v[e >> 2u][e & 3u];
        var best = 1.0;
        var code = 0u;
        for (var j = 0u; j < 16u; j += 1u) {
            let level = q[j >> 2u][j & 3u];
            // <=: of two codes as near, the later one
            if abs(level - value) <= best {
                best = abs(level - value);
                code = j;
            }
        }
        packed |= code << (e * 4u);
    }
    output[bti] = packed;
}
"""


def _quant_nf4_reference(shape, quant, input, absmax, output):
    codes = np.asarray(quant, np.float32).reshape(16)
    halves = input.astype(np.float32).reshape(-1, 64)
    peak = np.abs(halves).max(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.float32(1.0) / peak
        scaled = (halves * scale[:, None]).reshape(-1, 8)
    dist = np.abs(codes[None, None, :] - scaled[:, :, None])
    # the last code at the smallest distance; a NaN compares false: code 0
    rev = dist[:, :, ::-1]
    best = np.where(np.isnan(rev), np.inf, rev)
    last = 15 - np.argmin(best, axis=2)
    last = np.where(np.isnan(scaled), 0, last).astype(np.uint32)
    packed = np.zeros(last.shape[0], np.uint32)
    for e in range(8):
        packed |= last[:, e] << np.uint32(4 * e)
    return {"absmax": peak, "output": packed}


# TensorOp::quantize_mat_nf4 at 5f9dca1 (src/tensor/ops.rs): compute_absmax over
# [ceil((C / 64) / 128), R, 1] workgroups and quantize over [ceil((C / 2) / 128), R, 1],
# the output's shape counted in bytes (C / 2 a row) while an invocation packs a u32:
# four times the invocations there are words, each past the end reading and writing
# there (and compute_absmax's rows 128 blocks apart wherever C < 8192). WGSL's robust
# access keeps those writes inside the buffers, onto elements it may choose.
HOST_LAUNCHES_5F9DCA1 = (
    Dispatch("compute_absmax", grid=lambda s, z: (ceil_div(z.C // 64, 128), z.R, 1)),
    Dispatch("quantize", grid=lambda s, z: (ceil_div(z.C // 2, 128), z.R, 1)),
)

QUANT_NF4 = Wild(
    KernelSpec(
        id="wild_r49_web_rwkv_quant_mat_nf4",
        entry_point="compute_absmax",
        sources={"wgsl": _QUANT_NF4},
        dims=("R", "C"),
        buffers=(
            BufferSpec.uniform(0, (("shape", "vec4<u32>"),), name="shape"),
            # a second uniform: declared as a read buffer of its type, filled with the codes
            BufferSpec(1, "vec4<f32>", "read", name="quant", count=4, fill=_nf4_table),
            BufferSpec(2, "f16", "read", name="input", count="R*C", shape=("R", "C")),
            BufferSpec(3, "f32", "read_write", name="absmax", count=lambda z: z.R * z.C // 64),
            BufferSpec(4, "u32", "read_write", name="output", count=lambda z: z.R * z.C // 8),
        ),
        reference=_quant_nf4_reference,
        params=lambda s: {"shape": (s.C // 64, s.R, 1, 1)},
        # one invocation a block, then one a word, 1-D (see HOST_LAUNCHES_5F9DCA1 for
        # the host's own launch at this commit, which writes past the end)
        launches=(
            Dispatch("compute_absmax", grid=lambda s, z: (ceil_div(z.R * z.C // 64, 128), 1, 1)),
            Dispatch("quantize", grid=lambda s, z: (ceil_div(z.R * z.C // 8, 128), 1, 1)),
        ),
        schedules=(Schedule(128),),
        # no bound in either pass: sizes of whole workgroups of blocks and of words
        # (128 and 384 blocks)
        test_sizes=("R=8,C=1024", "R=16,C=1536"),
    ),
    {
        "the block's largest value, not magnitude": (
            "wgsl",
            "peak = max(abs(lo), peak);",
            "peak = max(lo, peak);",
        ),
        "a word's block indexed in halves": (
            "wgsl",
            "let scale = 1.0 / absmax[bti / NF4_BLOCK_STEP];",
            "let scale = 1.0 / absmax[bti / NF4_BLOCK_SIZE];",
        ),
        # the file from 44697ab (2024-12-06) on: a bound before the copy, which makes the
        # barrier one that the invocations past it never reach
        "an early return before the barrier (the file from 44697ab on)": (
            "wgsl",
            "    if in.index == 0u {\n        q = quant;",
            "    if bti >= shape.x {\n        return;\n    }\n\n    if in.index == 0u {\n        q = quant;",
        ),
        "no barrier after the table's copy": (
            "wgsl",
            "        q = quant;\n    }\n    workgroupBarrier();",
            "        q = quant;\n    }",
        ),
    },
    # (lavapipe ran invocation 0's SIMD group first and hid this race until the
    # oracle's rerun reversed each workgroup's invocations, 2026-12-06: it fails now)
    refused={
        # Tint refuses it ("'workgroupBarrier' must only be called from uniform control
        # flow"), naga compiles it: the wgpu backend's check refuses it as Tint does
        ("an early return before the barrier (the file from 44697ab on)", "wgsl"): (
            "must only be called from uniform control flow"
        ),
    },
)


# -- 2. matmul_vec_nf4: NF4 weights times a vector of halves --------------------------------

_MATMUL_VEC_NF4 = """// kernel-forge corpus: web-rwkv's NF4 matrix-vector product (read, not copied).
// A workgroup of 128 makes four outputs, four matrix rows against one token's
// input: each u32 of a row holds eight 4-bit codes, looked up in the code table and
// scaled by their block's absmax; the partial vec4s fold in a tree.

struct View {
    stride: vec4<u32>,
    offset: vec4<u32>,
    shape: vec4<u32>,
};

@group(0) @binding(1) var<uniform> source: View;                            // [C, T, B]
@group(0) @binding(2) var<uniform> destination: View;                       // [R, T, B]
@group(0) @binding(3) var<uniform> quant: array<vec4<f32>, 4>;

@group(0) @binding(4) var<storage, read> matrix: array<u32>;                // (R, C) nibbles
@group(0) @binding(5) var<storage, read> absmax: array<u32>;                // f16 pairs

@group(0) @binding(6) var<storage, read> input: array<vec4<u32>>;           // (B, T, C) halves
@group(0) @binding(7) var<storage, read_write> output: array<vec4<f32>>;    // (B, T, R)

const BLOCK_SIZE: u32 = 128u;
const NF4_BLOCK_SIZE: u32 = 64u;

var<workgroup> sketch: array<vec4<f32>, BLOCK_SIZE>;

// element `index` (in units of `step` scalars) of a token's row in a view
fn compute_index(view: View, batch: u32, token: u32, index: u32, step: u32) -> u32 {
    let row_len = view.stride.x / step;
    let skip = view.offset.x / step;
    return ((view.offset.z + batch) * view.stride.y + view.offset.y + token) * row_len + skip + index;
}

fn unpack4x16float(w: vec2<u32>) -> vec4<f32> {
    return vec4<f32>(unpack2x16float(w.x), unpack2x16float(w.y));
}

// the absmax of the block holding matrix word `index` (a block is 64 / 8 words)
fn unpack_absmax(index: u32) -> f32 {
    let block = index / (NF4_BLOCK_SIZE / 8u);
    return unpack2x16float(absmax[block >> 1u])[block & 1u];
}

// codes 0..3 of a word (bits 0..15): each nibble's high bit pair picks the table's
// vec4, its low pair the lane
fn unpack_matrix_0(p: u32) -> vec4<f32> {
    var r: vec4<f32>;
    r[0] = quant[(p >> (2u)) & 3u][(p >> (0u)) & 3u];
    r[1] = quant[(p >> (6u)) & 3u][(p >> (4u)) & 3u];
    r[2] = quant[(p >> (10u)) & 3u][(p >> (8u)) & 3u];
    r[3] = quant[(p >> (14u)) & 3u][(p >> (12u)) & 3u];
    return r;
}

// codes 4..7 (bits 16..31)
fn unpack_matrix_1(p: u32) -> vec4<f32> {
    var r: vec4<f32>;
    r[0] = quant[(p >> (18u)) & 3u][(p >> (16u)) & 3u];
    r[1] = quant[(p >> (22u)) & 3u][(p >> (20u)) & 3u];
    r[2] = quant[(p >> (26u)) & 3u][(p >> (24u)) & 3u];
    r[3] = quant[(p >> (30u)) & 3u][(p >> (28u)) & 3u];
    return r;
}

fn reduce_sum(index: u32, stride: u32) {
    if index < stride {
        sketch[index] += sketch[index + stride];
    }
    workgroupBarrier();
}

@compute @workgroup_size(128, 1, 1)
fn matmul(@builtin(global_invocation_id) invocation_id: vec3<u32>) {
    let stride = source.stride.x / 8u;              // words a matrix row, vec4<u32> an input row
    let index = invocation_id.x % BLOCK_SIZE;
    let channel = invocation_id.x / BLOCK_SIZE;     // four matrix rows
    let token = invocation_id.y;
    let batch = invocation_id.z;

    let bb = compute_index(source, batch, token, 0u, 8u);
    let cb = channel * 4u * stride;

    var acc = vec4<f32>(0.0);
    for (var i = index; i < stride; i += BLOCK_SIZE) {
        var ci = cb + i;
        // four rows' words: codes 0..3 of each into m, 4..7 into n, a row a column
        var w: u32;
        var a: vec4<f32>;
        var m: mat4x4<f32>;
        var n: mat4x4<f32>;
        w = matrix[ci]; a[0] = unpack_absmax(ci); m[0] = unpack_matrix_0(w); n[0] = unpack_matrix_1(w); ci += stride;
        w = matrix[ci]; a[1] = unpack_absmax(ci); m[1] = unpack_matrix_0(w); n[1] = unpack_matrix_1(w); ci += stride;
        w = matrix[ci]; a[2] = unpack_absmax(ci); m[2] = unpack_matrix_0(w); n[2] = unpack_matrix_1(w); ci += stride;
        w = matrix[ci]; a[3] = unpack_absmax(ci); m[3] = unpack_matrix_0(w); n[3] = unpack_matrix_1(w);

        // the token's eight halves beside them
        let halves = input[bb + i];
        let x = unpack4x16float(halves.xy);
        let y = unpack4x16float(halves.zw);

        acc += a * (transpose(m) * x + transpose(n) * y);
    }
    sketch[index] = acc;
    workgroupBarrier();

    reduce_sum(index, 64u);
    reduce_sum(index, 32u);
    reduce_sum(index, 16u);
    reduce_sum(index, 8u);
    reduce_sum(index, 4u);
    reduce_sum(index, 2u);
    reduce_sum(index, 1u);

    if index == 0u {
        output[compute_index(destination, batch, token, channel, 4u)] = sketch[0];
    }
}
"""


def _nf4_words(rng, count, size):
    """The matrix: every nibble a code, uniformly."""
    return rng.integers(0, 2**32, count, dtype=np.uint64).astype(np.uint32)


def _nf4_absmax(rng, count, size):
    """Each block's largest magnitude, as the quantiser leaves it (then stored as f16):
    positive, 2**-6 to 4."""
    return np.exp2(rng.uniform(-6.0, 2.0, count)).astype(np.float16)


def _matmul_vec_nf4_reference(source, destination, quant, matrix, absmax, input, output):
    codes = np.asarray(quant["quant"], np.float64).reshape(16)
    nibbles = (matrix[:, None] >> (4 * np.arange(8, dtype=np.uint32))[None, :]) & 15
    c = source["stride"][0][0]
    w = codes[nibbles.reshape(-1)]  # (R * C,)
    scale = absmax.astype(np.float64)[np.arange(w.size) // 64]
    weights = (w * scale).reshape(-1, c)  # (R, C)
    x = input.astype(np.float64).reshape(-1, c)  # (B * T, C)
    return (x @ weights.T).astype(np.float32).reshape(-1)


MATMUL_VEC_NF4 = Wild(
    KernelSpec(
        id="wild_r49_web_rwkv_matmul_vec_nf4",
        entry_point="matmul",
        sources={"wgsl": _MATMUL_VEC_NF4},
        dims=("C", "R", "T", "B"),
        buffers=(
            BufferSpec(1, _VIEW, "read", name="source", count=1, fill=_view("C")),
            BufferSpec(2, _VIEW, "read", name="destination", count=1, fill=_view("R")),
            BufferSpec.uniform(3, (("quant", "array<vec4<f32>, 4>"),), name="quant"),
            BufferSpec(
                4, "u32", "read", name="matrix", count=lambda z: z.R * z.C // 8, fill=_nf4_words
            ),
            BufferSpec(
                5, "f16", "read", name="absmax", count=lambda z: z.R * z.C // 64, fill=_nf4_absmax
            ),
            BufferSpec(6, "f16", "read", name="input", count="B*T*C", shape=("B", "T", "C")),
            BufferSpec(7, "f32", "read_write", name="output", count="B*T*R"),
        ),
        reference=_matmul_vec_nf4_reference,
        defaults={"quant": NF4_CODES.reshape(4, 4)},
        # TensorOp::matmul_vec_nf4: [R / 4, T, B] workgroups of 128
        grid=lambda sched, s: (s.R // 4, s.T, s.B),
        schedules=(Schedule(128),),
        # C = 1152: 144 words a row, the loop's second pass 16 of 128; 18 blocks a row
        test_sizes=("C=1152,R=8,T=2,B=2", "C=128,R=4,T=1,B=1"),
    ),
    {
        "a code's bit pairs swapped": (
            "wgsl",
            "r[0] = quant[(p >> (2u)) & 3u][(p >> (0u)) & 3u];",
            "r[0] = quant[(p >> (0u)) & 3u][(p >> (2u)) & 3u];",
        ),
        "the block's absmax always the pair's low half": (
            "wgsl",
            "return unpack2x16float(absmax[block >> 1u])[block & 1u];",
            "return unpack2x16float(absmax[block >> 1u])[0];",
        ),
        "a block taken as 64 words": (
            "wgsl",
            "let block = index / (NF4_BLOCK_SIZE / 8u);",
            "let block = index / NF4_BLOCK_SIZE;",
        ),
        "the sub-blocks not transposed": (
            "wgsl",
            "acc += a * (transpose(m) * x + transpose(n) * y);",
            "acc += a * (m * x + transpose(n) * y);",
        ),
    },
)


# -- 3. layer_norm.wgsl: layer_norm and group_norm, one module, BLOCK_SIZE per pipeline ------

_NORMS = """// kernel-forge corpus: web-rwkv's layer_norm.wgsl (read, not copied): a layer
// norm over each token's row and RWKV-5's per-head group norm, two entry points over
// one set of workgroup declarations, each a pipeline of its own with its own
// BLOCK_SIZE (128 for layer_norm, whose tree starts at 64; 32 for group_norm, whose
// tree starts at 16). Sums and sums of squares accumulate straight into the
// zero-initialised workgroup arrays; the variance is E[x^2] - mean^2 + EPS.

@group(0) @binding(0) var<uniform> shape: vec4<u32>;                        // [C, T, B] or [S, H, A]

@group(0) @binding(1) var<storage, read> w: array<vec2<u32>>;               // (C) or (S, H) halves
@group(0) @binding(2) var<storage, read> b: array<vec2<u32>>;               // (C) or (S, H) halves
@group(0) @binding(3) var<storage, read_write> x: array<vec4<f32>>;         // (B, T, C) or (A, H, S)

override BLOCK_SIZE: u32;
override EPS: f32;

var<workgroup> sum: array<vec4<f32>, BLOCK_SIZE>;
var<workgroup> sum_squared: array<vec4<f32>, BLOCK_SIZE>;
var<workgroup> mean: f32;
var<workgroup> deviation: f32;

fn unpack4x16float(v: vec2<u32>) -> vec4<f32> {
    return vec4<f32>(unpack2x16float(v.x), unpack2x16float(v.y));
}

fn reduce_step(index: u32, stride: u32) {
    if index < stride {
        sum[index] += sum[index + stride];
        sum_squared[index] += sum_squared[index + stride];
    }
    workgroupBarrier();
}

@compute @workgroup_size(BLOCK_SIZE, 1, 1)
fn layer_norm(@builtin(global_invocation_id) invocation_id: vec3<u32>) {
    let stride = shape[0] / 4u;
    let index = invocation_id.x;
    let token = invocation_id.y;
    let batch = invocation_id.z;

    let bb = (batch * shape[1] + token) * stride;

    for (var i = index; i < stride; i += BLOCK_SIZE) {
        let value = x[bb + i];
        sum[index] += value;
        sum_squared[index] += value * value;
    }
    workgroupBarrier();

    reduce_step(index, 64u);
    reduce_step(index, 32u);
    reduce_step(index, 16u);
    reduce_step(index, 8u);
    reduce_step(index, 4u);
    reduce_step(index, 2u);
    reduce_step(index, 1u);

    if index == 0u {
        mean = dot(sum[0], vec4<f32>(1.0)) / f32(shape[0]);
        deviation = inverseSqrt(dot(sum_squared[0], vec4<f32>(1.0)) / f32(shape[0]) - mean * mean + EPS);
    }
    workgroupBarrier();

    for (var i = index; i < stride; i += BLOCK_SIZE) {
        let value = (x[bb + i] - mean) * deviation;
        x[bb + i] = fma(value, unpack4x16float(w[i]), unpack4x16float(b[i]));
    }
}

@compute @workgroup_size(BLOCK_SIZE, 1, 1)
fn group_norm(@builtin(global_invocation_id) invocation_id: vec3<u32>) {
    let stride = shape[0] / 4u;  // a head's channels in vec4s
    let index = invocation_id.x;
    let head = invocation_id.y;
    let token = invocation_id.z;

    let h = head * stride;
    let th = (token * shape[1] + head) * stride;

    for (var i = index; i < stride; i += BLOCK_SIZE) {
        let value = x[th + i];
        sum[index] += value;
        sum_squared[index] += value * value;
    }
    workgroupBarrier();

    reduce_step(index, 16u);
    reduce_step(index, 8u);
    reduce_step(index, 4u);
    reduce_step(index, 2u);
    reduce_step(index, 1u);

    if index == 0u {
        mean = dot(sum[0], vec4<f32>(1.0)) / f32(shape[0]);
        deviation = inverseSqrt(dot(sum_squared[0], vec4<f32>(1.0)) / f32(shape[0]) - mean * mean + EPS);
    }
    workgroupBarrier();

    for (var i = index; i < stride; i += BLOCK_SIZE) {
        let value = (x[th + i] - mean) * deviation;
        x[th + i] = fma(value, unpack4x16float(w[h + i]), unpack4x16float(b[h + i]));
    }
}
"""


def _norm_rows(x, w, b, eps):
    """Each row of x's last axis normalised (biased variance, eps inside the root),
    times w plus b, w and b broadcast over the leading axes."""
    v = x.astype(np.float64)
    mean = v.mean(axis=-1, keepdims=True)
    var = ((v - mean) ** 2).mean(axis=-1, keepdims=True)
    y = (v - mean) / np.sqrt(var + eps)
    return (y * w.astype(np.float64) + b.astype(np.float64)).astype(np.float32)


def _layer_norm_reference(shape, w, b, x):
    return _norm_rows(x, w, b, 1e-5)


def _group_norm_reference(shape, w, b, x):
    return _norm_rows(x, w, b, 64e-5)


LAYER_NORM = Wild(
    KernelSpec(
        id="wild_r49_web_rwkv_layer_norm",
        entry_point="layer_norm",
        sources={"wgsl": _NORMS},
        dims=("C", "T", "B"),
        buffers=(
            BufferSpec.uniform(0, (("shape", "vec4<u32>"),), name="shape"),
            BufferSpec(1, "f16", "read", name="w", count="C"),
            BufferSpec(2, "f16", "read", name="b", count="C"),
            BufferSpec(
                3, "f32", "read_write", name="x", count="B*T*C", shape=("B", "T", "C"), inout=True
            ),
        ),
        reference=_layer_norm_reference,
        params=lambda s: {"shape": (s.C, s.T, s.B, 1)},
        overrides={"BLOCK_SIZE": 128, "EPS": 1e-5},
        # TensorOp::layer_norm: [1, T, B] workgroups of BLOCK_SIZE = 128
        grid=lambda sched, s: (1, s.T, s.B),
        schedules=(Schedule(128),),
        # C = 1280: 320 vec4 a row, 64 invocations take a third
        test_sizes=("C=1280,T=3,B=2", "C=64,T=2,B=1", "C=4,T=1,B=1"),
    ),
    {
        "epsilon outside the root": (
            "wgsl",
            "- mean * mean + EPS);\n    }\n    workgroupBarrier();\n\n    for (var i = index; i < stride; i += BLOCK_SIZE) {\n        let value = (x[bb + i] - mean) * deviation;",
            "- mean * mean) + EPS;\n    }\n    workgroupBarrier();\n\n    for (var i = index; i < stride; i += BLOCK_SIZE) {\n        let value = (x[bb + i] - mean) * deviation;",
        ),
        "the tree's first step left out": ("wgsl", "    reduce_step(index, 64u);\n", ""),
        "the variance with + mean^2": (
            "wgsl",
            "/ f32(shape[0]) - mean * mean + EPS);",
            "/ f32(shape[0]) + mean * mean + EPS);",
        ),
        "no barrier after the statistics": (
            "wgsl",
            "* mean + EPS);\n    }\n    workgroupBarrier();",
            "* mean + EPS);\n    }",
        ),
    },
    # (both CPU adapters, and NVIDIA's Vulkan, ran invocation 0's SIMD group to the end
    # before the others read the mean: the race passed everywhere until the oracle's
    # rerun reversed each workgroup's invocations, 2026-12-06; it fails on both now)
)

GROUP_NORM = Wild(
    KernelSpec(
        id="wild_r49_web_rwkv_group_norm",
        entry_point="group_norm",
        sources={"wgsl": _NORMS},
        dims=("S", "H", "T"),
        buffers=(
            BufferSpec.uniform(0, (("shape", "vec4<u32>"),), name="shape"),
            BufferSpec(1, "f16", "read", name="w", count="S*H", shape=("H", "S")),
            BufferSpec(2, "f16", "read", name="b", count="S*H", shape=("H", "S")),
            BufferSpec(
                3, "f32", "read_write", name="x", count="S*H*T", shape=("T", "H", "S"), inout=True
            ),
        ),
        reference=_group_norm_reference,
        params=lambda s: {"shape": (s.S, s.H, s.T, 1)},
        # the same module, another pipeline: BLOCK_SIZE = 32 for the tree from 16
        # and the model's GN_EPS (64e-5; LN_EPS is 1e-5)
        overrides={"BLOCK_SIZE": 32, "EPS": 64e-5},
        # TensorOp::group_norm: [1, H, T]
        grid=lambda sched, s: (1, s.H, s.T),
        schedules=(Schedule(32),),
        # S = 144: 36 vec4 a head, 4 invocations take a second
        test_sizes=("S=64,H=4,T=3", "S=144,H=3,T=2", "S=4,H=1,T=1"),
    ),
    {
        "no epsilon (group_norm.wgsl from 3270fb6 to 57c4de2)": (
            "wgsl",
            "(shape[0]) - mean * mean + EPS);\n    }\n    workgroupBarrier();\n\n    for (var i = index; i < stride; i += BLOCK_SIZE) {\n        let value = (x[th + i]",
            "(shape[0]) - mean * mean);\n    }\n    workgroupBarrier();\n\n    for (var i = index; i < stride; i += BLOCK_SIZE) {\n        let value = (x[th + i]",
        ),
        "every head with head 0's weight": (
            "wgsl",
            "fma(value, unpack4x16float(w[h + i])",
            "fma(value, unpack4x16float(w[i])",
        ),
        "a token's heads laid out as the tokens": (
            "wgsl",
            "let th = (token * shape[1] + head) * stride;",
            "let th = (head * shape[1] + token) * stride;",
        ),
    },
)


# -- 4. rms_norm.wgsl: recenter, then rms_norm: a layer norm of two entry points ------------

_RECENTER_RMS = """// kernel-forge corpus: web-rwkv's recenter and rms_norm (read, not copied), the
// f32 form. One workgroup a token; both entry points fold vec4 partial sums through
// the one `sketch` array. recenter subtracts the row's mean in place; rms_norm scales
// by 1 / sqrt(mean square + EPS) and applies weight and bias: in that order, a layer norm.

@group(0) @binding(0) var<uniform> shape: vec4<u32>;                        // [C, T, B]

@group(0) @binding(1) var<storage, read> w: array<vec2<u32>>;               // (C) halves
@group(0) @binding(2) var<storage, read> b: array<vec2<u32>>;               // (C) halves
@group(0) @binding(3) var<storage, read_write> x: array<vec4<f32>>;         // (B, T, C)

override EPS: f32 = 1.0e-5;
const BLOCK_SIZE: u32 = 128u;

var<workgroup> sketch: array<vec4<f32>, BLOCK_SIZE>;
var<workgroup> mean: f32;
var<workgroup> rms: f32;

fn unpack4x16float(v: vec2<u32>) -> vec4<f32> {
    return vec4<f32>(unpack2x16float(v.x), unpack2x16float(v.y));
}

fn reduce_sum(index: u32, stride: u32) {
    if index < stride {
        sketch[index] += sketch[index + stride];
    }
    workgroupBarrier();
}

@compute @workgroup_size(BLOCK_SIZE, 1, 1)
fn recenter(@builtin(global_invocation_id) invocation_id: vec3<u32>) {
    let stride = shape[0] / 4u;
    let index = invocation_id.x;
    let token = invocation_id.y;
    let batch = invocation_id.z;

    let bb = (batch * shape[1] + token) * stride;

    var part: vec4<f32>;  // no initialiser: a function var starts at zero
    for (var i = index; i < stride; i += BLOCK_SIZE) {
        part += x[bb + i];
    }
    sketch[index] = part;
    workgroupBarrier();

    reduce_sum(index, 64u);
    reduce_sum(index, 32u);
    reduce_sum(index, 16u);
    reduce_sum(index, 8u);
    reduce_sum(index, 4u);
    reduce_sum(index, 2u);
    reduce_sum(index, 1u);

    if index == 0u {
        mean = dot(sketch[0], vec4<f32>(1.0)) / f32(shape[0]);
    }
    workgroupBarrier();

    for (var i = index; i < stride; i += BLOCK_SIZE) {
        x[bb + i] = x[bb + i] - mean;
    }
}

@compute @workgroup_size(BLOCK_SIZE, 1, 1)
fn rms_norm(@builtin(global_invocation_id) invocation_id: vec3<u32>) {
    let stride = shape[0] / 4u;
    let index = invocation_id.x;
    let token = invocation_id.y;
    let batch = invocation_id.z;

    let bb = (batch * shape[1] + token) * stride;

    var part: vec4<f32>;
    for (var i = index; i < stride; i += BLOCK_SIZE) {
        let value = x[bb + i];
        part += value * value;
    }
    sketch[index] = part;
    workgroupBarrier();

    reduce_sum(index, 64u);
    reduce_sum(index, 32u);
    reduce_sum(index, 16u);
    reduce_sum(index, 8u);
    reduce_sum(index, 4u);
    reduce_sum(index, 2u);
    reduce_sum(index, 1u);

    if index == 0u {
        rms = inverseSqrt(dot(sketch[0], vec4<f32>(1.0)) / f32(shape[0]) + EPS);
    }
    workgroupBarrier();

    for (var i = index; i < stride; i += BLOCK_SIZE) {
        let value = x[bb + i] * rms;
        x[bb + i] = fma(value, unpack4x16float(w[i]), unpack4x16float(b[i]));
    }
}
"""


def _recenter_rms_reference(shape, w, b, x):
    v = x.astype(np.float64)
    centred = v - v.mean(axis=-1, keepdims=True)
    rms = 1.0 / np.sqrt((centred * centred).mean(axis=-1, keepdims=True) + 1e-5)
    return (centred * rms * w.astype(np.float64) + b.astype(np.float64)).astype(np.float32)


RECENTER_RMS_NORM = Wild(
    KernelSpec(
        id="wild_r49_web_rwkv_recenter_rms_norm",
        entry_point="recenter",
        sources={"wgsl": _RECENTER_RMS},
        dims=("C", "T", "B"),
        buffers=(
            BufferSpec.uniform(0, (("shape", "vec4<u32>"),), name="shape"),
            BufferSpec(1, "f16", "read", name="w", count="C"),
            BufferSpec(2, "f16", "read", name="b", count="C"),
            BufferSpec(
                3, "f32", "read_write", name="x", count="B*T*C", shape=("B", "T", "C"), inout=True
            ),
        ),
        reference=_recenter_rms_reference,
        params=lambda s: {"shape": (s.C, s.T, s.B, 1)},
        overrides={"EPS": 1e-5},
        # TensorOp::recenter then TensorOp::rms_norm: [1, T, B] each
        launches=(
            Dispatch("recenter", grid=lambda sched, s: (1, s.T, s.B)),
            Dispatch("rms_norm", grid=lambda sched, s: (1, s.T, s.B)),
        ),
        schedules=(Schedule(128),),
        # C = 768: 192 vec4 a row, 64 invocations take a second
        test_sizes=("C=768,T=3,B=2", "C=64,T=2,B=1", "C=4,T=1,B=1"),
    ),
    {
        "epsilon outside the root": (
            "wgsl",
            "rms = inverseSqrt(dot(sketch[0], vec4<f32>(1.0)) / f32(shape[0]) + EPS);",
            "rms = inverseSqrt(dot(sketch[0], vec4<f32>(1.0)) / f32(shape[0])) + EPS;",
        ),
        "the mean over the vec4 count": (
            "wgsl",
            "mean = dot(sketch[0], vec4<f32>(1.0)) / f32(shape[0]);",
            "mean = dot(sketch[0], vec4<f32>(1.0)) / f32(stride);",
        ),
        "the bias read from the weights": (
            "wgsl",
            "unpack4x16float(w[i]), unpack4x16float(b[i])",
            "unpack4x16float(w[i]), unpack4x16float(w[i])",
        ),
        "recenter's tree one step short": ("wgsl", "    reduce_sum(index, 1u);\n", ""),
    },
)


# -- 6. onnxruntime's WebGPU EP: HadamardTransform, one slice a workgroup ---------------------
# After microsoft/onnxruntime at 58be46a7 (MIT): contrib_ops/webgpu/bert/
# hadamard_transform.wgsl.template and hadamard_transform_common.wgsl.template as
# HadamardTransformProgram renders them (hadamard_transform.cc) with components 4 and f32
# tensors: ShaderHelper's value and element aliases, input and output bindings,
# getByOffset/setByOffset as plain indexing, the Uniforms struct of the program's three
# values (ShaderHelper also appends the tensors' shapes and strides, which this shader
# never reads: left out here), and $MAIN's builtins and workgroup_idx. The host
# dispatches num_slices = B * S * N workgroups of min(head_size / 2, 64).

_HADAMARD = """// kernel-forge corpus: onnxruntime WebGPU's HadamardTransform (read, not copied).
// A workgroup per (batch, token, head) slice: the slice is staged in workgroup memory
// as f32, transformed in place by log2(HEAD_SIZE) butterfly passes (a barrier after
// each), then scaled by 1 / sqrt(HEAD_SIZE) on the way out.

alias input_value_t = vec4<f32>;
alias input_element_t = f32;
alias output_value_t = vec4<f32>;
alias output_element_t = f32;

struct Uniforms {
  batch_size: u32,
  seq_length: u32,
  num_heads: u32,
};

@group(0) @binding(0) var<storage, read> input: array<input_value_t>;
@group(0) @binding(1) var<storage, read_write> output: array<output_value_t>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;

const head_size_log2: u32 = {{LOG2_HEAD}}u;
const components: u32 = 4u;
const HEAD_SIZE: u32 = 1u << head_size_log2;
const HEAD_SIZE_VEC: u32 = HEAD_SIZE / components;

var<workgroup> shared_data: array<f32, HEAD_SIZE>;

// pass `step` pairs element ii with ii + 2^step inside blocks of 2^(step + 1); the
// workgroup's invocations share the HEAD_SIZE / 2 pairs of each pass
fn wht_butterfly(lid: u32, wg_size: u32) {
  for (var step = 0u; step < head_size_log2; step++) {
    let half_block = 1u << step;
    let block_size = half_block << 1u;
    for (var pair = lid; pair < HEAD_SIZE / 2u; pair += wg_size) {
      let ii = (pair / half_block) * block_size + pair % half_block;
      let jj = ii + half_block;
      let a = shared_data[ii];
      let b = shared_data[jj];
      shared_data[ii] = a + b;
      shared_data[jj] = a - b;
    }
    workgroupBarrier();
  }
}

const workgroup_size_x: u32 = {{wg_x}}u;
const workgroup_size_y: u32 = 1u;
const workgroup_size_z: u32 = 1u;

@compute @workgroup_size(workgroup_size_x, workgroup_size_y, workgroup_size_z)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>,
        @builtin(workgroup_id) workgroup_id: vec3<u32>,
        @builtin(local_invocation_index) local_idx: u32,
        @builtin(local_invocation_id) local_id: vec3<u32>,
        @builtin(num_workgroups) num_workgroups: vec3<u32>) {
  let workgroup_idx = workgroup_id.z * num_workgroups[0] * num_workgroups[1] + workgroup_id.y * num_workgroups[0] + workgroup_id.x;
  let global_idx = workgroup_idx * (workgroup_size_x * workgroup_size_y * workgroup_size_z) + local_idx;

  let slice_idx = workgroup_idx;
  let num_slices = uniforms.batch_size * uniforms.seq_length * uniforms.num_heads;
  if (slice_idx >= num_slices) {
    return;
  }

  let base_offset = slice_idx * HEAD_SIZE_VEC;

  // stage the slice, a vec4 at a time, as f32
  for (var i = local_idx; i < HEAD_SIZE_VEC; i += workgroup_size_x) {
    let val = input[base_offset + i];
    shared_data[i * 4u + 0u] = f32(val[0]);
    shared_data[i * 4u + 1u] = f32(val[1]);
    shared_data[i * 4u + 2u] = f32(val[2]);
    shared_data[i * 4u + 3u] = f32(val[3]);
  }
  workgroupBarrier();

  wht_butterfly(local_idx, workgroup_size_x);

  // orthonormal: scale by 1 / sqrt(HEAD_SIZE)
  let norm = 1.0f / sqrt(f32(HEAD_SIZE));

  for (var i = local_idx; i < HEAD_SIZE_VEC; i += workgroup_size_x) {
    let v0 = output_element_t(shared_data[i * 4u + 0u] * norm);
    let v1 = output_element_t(shared_data[i * 4u + 1u] * norm);
    let v2 = output_element_t(shared_data[i * 4u + 2u] * norm);
    let v3 = output_element_t(shared_data[i * 4u + 3u] * norm);
    output[base_offset + i] = output_value_t(v0, v1, v2, v3);
  }
}
"""


def _hadamard_reference(input, output, uniforms):
    """Each slice of D times Sylvester's Hadamard matrix of order D, over sqrt(D)."""
    d = input.shape[-1]
    y = input.astype(np.float64).reshape(-1, d).copy()
    h = 1
    while h < d:  # the same butterflies, exact in f64
        y = y.reshape(-1, d // (2 * h), 2, h)
        a, b = y[:, :, 0, :].copy(), y[:, :, 1, :].copy()
        y[:, :, 0, :], y[:, :, 1, :] = a + b, a - b
        y = y.reshape(-1, d)
        h *= 2
    return (y / np.sqrt(d)).astype(np.float32).reshape(-1)


HADAMARD = Wild(
    KernelSpec(
        id="wild_r49_onnxruntime_webgpu_hadamard_transform",
        entry_point="main",
        sources={"wgsl": _HADAMARD},
        dims=("B", "S", "N", "D"),
        buffers=(
            BufferSpec(0, "f32", "read", name="input", count="B*S*N*D", shape=("B", "S", "N", "D")),
            BufferSpec(1, "f32", "read_write", name="output", count="B*S*N*D"),
            BufferSpec.uniform(
                2,
                (("batch_size", "u32"), ("seq_length", "u32"), ("num_heads", "u32")),
                name="uniforms",
            ),
        ),
        reference=_hadamard_reference,
        params=lambda s: {"batch_size": s.B, "seq_length": s.S, "num_heads": s.N},
        constants={"LOG2_HEAD": lambda sched, s: int(s.D).bit_length() - 1},
        # SetDispatchGroupSize(num_slices), workgroups of min(head_size / 2, 64)
        grid=lambda sched, s: (s.B * s.S * s.N, 1, 1),
        schedules=(Schedule(64),),
        # head sizes of 128 (a pair an invocation a pass) and 256 (two)
        test_sizes=("B=1,S=3,N=2,D=128", "B=2,S=1,N=3,D=256", "B=1,S=1,N=1,D=128"),
    ),
    {
        "the partner a whole block away": (
            "wgsl",
            "let jj = ii + half_block;",
            "let jj = ii + block_size;",
        ),
        "no barrier between the passes": ("wgsl", "    workgroupBarrier();\n  }\n}", "  }\n}"),
        "scaled by 1 / HEAD_SIZE": (
            "wgsl",
            "let norm = 1.0f / sqrt(f32(HEAD_SIZE));",
            "let norm = 1.0f / f32(HEAD_SIZE);",
        ),
        "a slice's offset counted in floats": (
            "wgsl",
            "let base_offset = slice_idx * HEAD_SIZE_VEC;",
            "let base_offset = slice_idx * HEAD_SIZE;",
        ),
    },
)


ROUND49: dict[str, Wild] = {
    w.kernel.id: w
    for w in (QUANT_NF4, MATMUL_VEC_NF4, LAYER_NORM, GROUP_NORM, RECENTER_RMS_NORM, HADAMARD)
}

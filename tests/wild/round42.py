"""Round 42 of kernels from the wild, merged into ``tests.wild.CORPUS``: WGSL compute
from the WebGPU samples, taken as written.

- The Vision Transformer sample's ``layerNorm.wgsl`` (webgpu/webgpu-samples at
  e1b2fd3d, BSD 3-clause, ``sample/visionTransformer/shaders/``): one workgroup of 256
  a token, invocation 0 sums the row serially into two ``var<workgroup>`` scalars (the
  mean and the inverse deviation, the variance as E[x^2] - mean^2), one barrier, then
  every invocation normalises with gamma and beta.
- Its ``attnSoftmax.wgsl`` (same commit): an invocation a row of (numHeads, N, N)
  scores, the max from -1e30, the row exponentiated in place in ``scoreBuf``, then
  normalised and copied into a readback buffer of every layer's weights at
  ``layerIdx``'s offset (a buffer WebGPU creates zeroed).
- webgpu-samples' ``gameOfLife/compute.wgsl`` (at 183838cf, BSD 3-clause): the board's
  size a bare ``var<storage, read> size: vec2<u32>``, ``override blockSize = 8`` (an
  abstract int) as the workgroup size in two dimensions, and a torus wrapped through
  u32 underflow (``x - 1`` at 0 is 2^32 - 1, whose ``% w`` is w - 1 for the sample's
  power-of-two boards).

What they showed (lavapipe and SwiftShader; not run on a GPU; pinned in
tests/test_wild_round42.py):

- No false pass and no false alarm: every original passed on reference, wgpu and the
  browser, every mutant failed on both adapters, with no change to forge/ or oracle/.
  Probed and not kept, each failed on lavapipe: the variance with Bessel's correction,
  eps outside the root, gamma indexed by the row, the softmax's max from -1e4 or -100
  and the softmax without its max.
- Expressible as written: a bare ``vec2<u32>`` storage binding (``count=1``), an
  ``override`` abstract int as a two-dimensional workgroup size, a readback buffer
  written at one layer's offset (``initial=0.0``: the other layer stays zero).
- The Game of Life is right only on the sample's power-of-two boards: 2^32 - 1 is not
  -1 modulo 24, and the oracle reports a board 24 wide against a true torus.
- Not a finding: the layer norm's E[x^2] - mean^2 loses the variance of a row whose
  mean is far larger than its spread (f32 cancellation); the oracle's input sets hold
  no such row and the original passes, as it should for the sample's activations.
"""

# ruff: noqa: E501, W291  (the WGSL keeps its authors' long lines and trailing spaces)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, KernelSpec, Schedule, ceil_div

from . import Wild

# -- 1. webgpu-samples visionTransformer: layerNorm.wgsl ---------------------------------
# webgpu/webgpu-samples at e1b2fd3d (BSD 3-clause), sample/visionTransformer/shaders/
# layerNorm.wgsl as written. The sample dispatches N workgroups (one a token, D = 192).

_VIT_LAYER_NORM = """// Layer normalization: stabilizes training and inference by normalizing
// each token's activations to zero mean and unit variance, then applying
// learned scale (gamma) and shift (beta) parameters.
//
// Without normalization, activations can drift to extreme values as they
// pass through many layers, causing numerical instability. Layer norm is
// applied before attention and before the MLP in each transformer block.
//
// Each workgroup processes one token (row). Thread 0 computes mean/variance
// serially (D=192 is small enough), then all threads normalize in parallel.

struct Params {
  N: u32,       // number of rows (tokens)
  D: u32,       // dimension per row
  eps: f32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<f32>;
@group(0) @binding(2) var<storage, read> gamma: array<f32>;
@group(0) @binding(3) var<storage, read> beta: array<f32>;
@group(0) @binding(4) var<storage, read_write> output: array<f32>;

var<workgroup> shared_mean: f32;
var<workgroup> shared_inv_std: f32;

@compute @workgroup_size(256)
fn main(
  @builtin(workgroup_id) wg_id: vec3u,
  @builtin(local_invocation_id) local_id: vec3u,
) {
  let row = wg_id.x;
  let tid = local_id.x;
  let D = params.D;
  let base = row * D;

  // Thread 0 computes mean and variance
  if (tid == 0u) {
    var sum = 0.0;
    var sq_sum = 0.0;
    for (var i = 0u; i < D; i++) {
      let val = input[base + i];
      sum += val;
      sq_sum += val * val;
    }
    let mean = sum / f32(D);
    let variance = sq_sum / f32(D) - mean * mean;
    shared_mean = mean;
    shared_inv_std = 1.0 / sqrt(variance + params.eps);
  }
  workgroupBarrier();

  let mean = shared_mean;
  let inv_std = shared_inv_std;

  // All threads normalize and apply affine transform in parallel
  for (var i = tid; i < D; i += 256u) {
    let val = input[base + i];
    output[base + i] = (val - mean) * inv_std * gamma[i] + beta[i];
  }
}
"""


def _layer_norm_reference(params, input, gamma, beta, output):
    x = input.astype(np.float64)
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    y = (x - mean) / np.sqrt(var + float(params["eps"])) * gamma + beta
    return y.astype(np.float32).reshape(-1)


VIT_LAYER_NORM = Wild(
    KernelSpec(
        id="wild_r42_webgpu_samples_vit_layer_norm",
        entry_point="main",
        sources={"wgsl": _VIT_LAYER_NORM},
        dims=("N", "D"),
        buffers=(
            BufferSpec.uniform(0, (("N", "u32"), ("D", "u32"), ("eps", "f32")), name="params"),
            BufferSpec(1, "f32", "read", name="input", count="N*D", shape=("N", "D")),
            BufferSpec(2, "f32", "read", name="gamma", count="D"),
            BufferSpec(3, "f32", "read", name="beta", count="D"),
            BufferSpec(4, "f32", "read_write", name="output", count="N*D"),
        ),
        reference=_layer_norm_reference,
        defaults={"eps": 1e-6},
        grid=lambda s, size: (size.N, 1, 1),
        schedules=(Schedule(256),),
        # 300: the second pass of the normalising loop for 44 of 256 invocations
        test_sizes=("N=3,D=300", "N=1,D=1", "N=5,D=192"),
    ),
    {
        "no barrier after invocation 0's sums": (
            "wgsl",
            "  }\n  workgroupBarrier();\n\n  let mean = shared_mean;",
            "  }\n\n  let mean = shared_mean;",
        ),
        "the variance without the mean's square": (
            "wgsl",
            "sq_sum / f32(D) - mean * mean;",
            "sq_sum / f32(D);",
        ),
        "beta indexed by the row's element": (
            "wgsl",
            "gamma[i] + beta[i];",
            "gamma[i] + beta[base + i];",
        ),
        "the row's last element left out": (
            "wgsl",
            "for (var i = 0u; i < D; i++) {\n      let val = input[base + i];\n      sum",
            "for (var i = 1u; i < D; i++) {\n      let val = input[base + i];\n      sum",
        ),
    },
)

# -- 2. webgpu-samples visionTransformer: attnSoftmax.wgsl -------------------------------
# Same commit, sample/visionTransformer/shaders/attnSoftmax.wgsl as written. The sample
# dispatches ceil(numHeads * N / 256) workgroups; attnWeights holds every layer's
# (numHeads, N, N) weights for the visualisation, created zeroed; here layer 1 of 2.

_VIT_ATTN_SOFTMAX = """// Softmax normalization of attention scores.
//
// Converts raw attention scores into a probability distribution: for each
// query token, the attention weights over all key tokens sum to 1.0.
// Uses the numerically stable form: subtract the row maximum before
// exponentiating to prevent overflow.
//
// The resulting attention weights are also stored to a readback buffer
// for visualization \u2014 they show which image patches the model attends to.

struct Params {
  N: u32,
  numHeads: u32,
  layerIdx: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> scoreBuf: array<f32>;    // (numHeads, N, N)
@group(0) @binding(2) var<storage, read_write> attnWeights: array<f32>; // (numLayers, numHeads, N, N)

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let idx = gid.x;
  let N = params.N;
  let numHeads = params.numHeads;
  let totalRows = numHeads * N;

  if (idx >= totalRows) { return; }

  let base = idx * N;

  // Find max for numerical stability
  var m = -1e30;
  for (var i = 0u; i < N; i++) {
    m = max(m, scoreBuf[base + i]);
  }

  // Exp and sum
  var s = 0.0;
  for (var i = 0u; i < N; i++) {
    let e = exp(scoreBuf[base + i] - m);
    scoreBuf[base + i] = e;
    s += e;
  }

  // Normalize and store
  let layerOffset = params.layerIdx * numHeads * N * N;
  for (var i = 0u; i < N; i++) {
    let val = scoreBuf[base + i] / s;
    scoreBuf[base + i] = val;
    attnWeights[layerOffset + idx * N + i] = val;
  }
}
"""

_LAYERS, _LAYER = 2, 1


def _attn_softmax_reference(params, scoreBuf, attnWeights):
    h, n = int(params["numHeads"]), int(params["N"])
    x = scoreBuf.astype(np.float64).reshape(h * n, n)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    p = (e / e.sum(axis=1, keepdims=True)).reshape(-1)
    weights = np.zeros((_LAYERS, h * n * n))
    weights[_LAYER] = p
    return p.astype(np.float32), weights.astype(np.float32).reshape(-1)


VIT_ATTN_SOFTMAX = Wild(
    KernelSpec(
        id="wild_r42_webgpu_samples_vit_attn_softmax",
        entry_point="main",
        sources={"wgsl": _VIT_ATTN_SOFTMAX},
        dims=("H", "N"),
        buffers=(
            BufferSpec.uniform(
                0, (("N", "u32"), ("numHeads", "u32"), ("layerIdx", "u32")), name="params"
            ),
            BufferSpec(1, "f32", "read_write", name="scoreBuf", count="H*N*N", inout=True),
            BufferSpec(
                2, "f32", "read_write", name="attnWeights", count=f"{_LAYERS}*H*N*N", initial=0.0
            ),
        ),
        reference=_attn_softmax_reference,
        params=lambda size: {"N": size.N, "numHeads": size.H, "layerIdx": _LAYER},
        grid=lambda s, size: (ceil_div(size.H * size.N, 256), 1, 1),
        schedules=(Schedule(256),),
        # 3 heads of 99 tokens: 297 rows, two workgroups, the second with 41 rows
        test_sizes=("H=3,N=99", "H=1,N=1", "H=2,N=17"),
    ),
    {
        "the max from zero": ("wgsl", "var m = -1e30;", "var m = 0.0;"),
        "the weights at layer 0": (
            "wgsl",
            "let layerOffset = params.layerIdx * numHeads * N * N;",
            "let layerOffset = 0u;",
        ),
        "the last row left out": ("wgsl", "if (idx >= totalRows)", "if (idx + 1u >= totalRows)"),
        "the unnormalised value kept in the scores": (
            "wgsl",
            "    scoreBuf[base + i] = val;\n",
            "",
        ),
    },
)

# -- 3. webgpu-samples gameOfLife: compute.wgsl ------------------------------------------
# webgpu/webgpu-samples at 183838cf (BSD 3-clause), sample/gameOfLife/compute.wgsl as
# written (its two trailing spaces kept). main.ts writes the board's width and height
# into a storage buffer, cells 0 or 1 (Math.random() < 0.25), and dispatches
# (width / blockSize, height / blockSize); its boards are 16 to 1024, powers of two.

_GAME_OF_LIFE = """@binding(0) @group(0) var<storage, read> size: vec2<u32>;
@binding(1) @group(0) var<storage, read> current: array<u32>;
@binding(2) @group(0) var<storage, read_write> next: array<u32>;

override blockSize = 8;

fn getIndex(x: u32, y: u32) -> u32 {
  let h = size.y;
  let w = size.x;

  return (y % h) * w + (x % w);
}

fn getCell(x: u32, y: u32) -> u32 {
  return current[getIndex(x, y)];
}

fn countNeighbors(x: u32, y: u32) -> u32 {
  return getCell(x - 1, y - 1) + getCell(x, y - 1) + getCell(x + 1, y - 1) + 
         getCell(x - 1, y) +                         getCell(x + 1, y) + 
         getCell(x - 1, y + 1) + getCell(x, y + 1) + getCell(x + 1, y + 1);
}

@compute @workgroup_size(blockSize, blockSize)
fn main(@builtin(global_invocation_id) grid: vec3<u32>) {
  let x = grid.x;
  let y = grid.y;
  let n = countNeighbors(x, y);
  next[getIndex(x, y)] = select(u32(n == 3u), u32(n == 2u || n == 3u), getCell(x, y) == 1u); 
} 
"""


def _cells(rng, count, size):
    return (rng.random(count) < 0.25).astype(np.uint32)


def _life_reference(size, current, next):
    w, h = (int(v) for v in np.asarray(size).reshape(-1))
    board = current.reshape(h, w).astype(np.int64)
    n = sum(
        np.roll(np.roll(board, dy, axis=0), dx, axis=1)
        for dy in (-1, 0, 1)
        for dx in (-1, 0, 1)
        if (dy, dx) != (0, 0)
    )
    alive = (n == 3) | ((board == 1) & (n == 2))
    return alive.astype(np.uint32).reshape(-1)


GAME_OF_LIFE = Wild(
    KernelSpec(
        id="wild_r42_webgpu_samples_game_of_life",
        entry_point="main",
        sources={"wgsl": _GAME_OF_LIFE},
        dims=("W", "H"),
        buffers=(
            BufferSpec(
                0,
                "vec2<u32>",
                "read",
                name="size",
                count=1,
                fill=lambda r, c, s: np.array([[s.W, s.H]], np.uint32),
            ),
            BufferSpec(1, "u32", "read", name="current", count="W*H", fill=_cells),
            BufferSpec(2, "u32", "read_write", name="next", count="W*H"),
        ),
        reference=_life_reference,
        grid=lambda s, size: (size.W // 8, size.H // 8, 1),
        schedules=(Schedule((8, 8, 1)),),
        test_sizes=("W=32,H=16", "W=8,H=8", "W=16,H=64"),
    ),
    {
        "a birth on two neighbours": (
            "wgsl",
            "select(u32(n == 3u),",
            "select(u32(n == 2u || n == 3u),",
        ),
        "the row wrapped by the width": ("wgsl", "return (y % h) * w", "return (y % w) * w"),
        "a missing neighbour": (
            "wgsl",
            "getCell(x - 1, y) +                         getCell(x + 1, y)",
            "getCell(x - 1, y) +                         getCell(x, y)",
        ),
        "the cell itself counted": (
            "wgsl",
            "getCell(x - 1, y) +                         getCell(x + 1, y)",
            "getCell(x - 1, y) + getCell(x, y) +         getCell(x + 1, y)",
        ),
    },
)

ROUND42: dict[str, Wild] = {
    w.kernel.id: w for w in (VIT_LAYER_NORM, VIT_ATTN_SOFTMAX, GAME_OF_LIFE)
}

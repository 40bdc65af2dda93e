"""Round 42 of kernels from the wild, merged into ``tests.wild.CORPUS``: WGSL compute
after the WebGPU samples.

The kernels are written for this corpus after the sources named below: read, not
copied (the project's rule for public code: round 42 first took them verbatim, and
they were rewritten on 2026-12-06). What is theirs is kept: the entry points, the
bindings (group, binding, name, type, access, order), the uniform structs' fields,
``override blockSize = 8`` and the workgroup sizes, the two workgroup scalars, the
barrier, the launch geometry, the algorithms and their numerics (the one-pass
variance, the softmax's max from -1e30, the u32 torus wrap). What is ours: the
helpers' and locals' names, the comments, the order of equivalent statements and the
formatting; the Game of Life counts its neighbours a row of the board at a time.

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
  browser, every mutant failed on both adapters but one, with no change to forge/ or oracle/.
  The layer norm without its barrier passes on lavapipe, which runs invocation 0's
  lanes first where no barrier parts them (``invisible_on``; found when the rewrite ran
  every mutant on both adapters, and so for the original too); SwiftShader shows it.
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

# ruff: noqa: E501  (the WGSL's long lines)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, KernelSpec, Schedule, ceil_div

from . import Wild

# -- 1. webgpu-samples visionTransformer: layerNorm.wgsl ---------------------------------
# After webgpu/webgpu-samples at e1b2fd3d (BSD 3-clause), sample/visionTransformer/
# shaders/layerNorm.wgsl: read, not copied. The sample dispatches N workgroups (one a
# token, D = 192).

_VIT_LAYER_NORM = """// kernel-forge corpus: a layer norm after webgpu-samples' Vision Transformer
// sample (read, not copied). A workgroup owns one token; its first invocation
// reduces the row by itself and publishes two scalars, the others wait at the
// barrier and then share the affine pass.

struct Params {
  N: u32,
  D: u32,
  eps: f32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<f32>;
@group(0) @binding(2) var<storage, read> gamma: array<f32>;
@group(0) @binding(3) var<storage, read> beta: array<f32>;
@group(0) @binding(4) var<storage, read_write> output: array<f32>;

var<workgroup> wg_mean: f32;
var<workgroup> wg_rstd: f32;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u) {
  let width = params.D;
  let first = wid.x * width;

  if (lid.x == 0u) {
    // one pass: E[x] and E[x^2] together
    var s1 = 0.0;
    var s2 = 0.0;
    for (var k = 0u; k < width; k++) {
      let x = input[first + k];
      s1 += x;
      s2 += x * x;
    }
    let mu = s1 / f32(width);
    let sigma2 = s2 / f32(width) - mu * mu;
    wg_mean = mu;
    wg_rstd = 1.0 / sqrt(sigma2 + params.eps);
  }
  workgroupBarrier();

  let mu = wg_mean;
  let rstd = wg_rstd;
  var k = lid.x;
  loop {
    if (k >= width) { break; }
    output[first + k] = (input[first + k] - mu) * rstd * gamma[k] + beta[k];
    k += 256u;
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
            "  }\n  workgroupBarrier();\n",
            "  }\n",
        ),
        "the variance without the mean's square": (
            "wgsl",
            "s2 / f32(width) - mu * mu;",
            "s2 / f32(width);",
        ),
        "beta indexed by the row's element": (
            "wgsl",
            "gamma[k] + beta[k];",
            "gamma[k] + beta[first + k];",
        ),
        "the row's last element left out": (
            "wgsl",
            "for (var k = 0u; k < width; k++)",
            "for (var k = 1u; k < width; k++)",
        ),
    },
    # (lavapipe ran invocation 0 first and hid this race until the oracle's rerun
    # reversed each workgroup's invocations, 2026-12-06: it fails there now)
)

# -- 2. webgpu-samples visionTransformer: attnSoftmax.wgsl -------------------------------
# After the same commit's sample/visionTransformer/shaders/attnSoftmax.wgsl: read, not
# copied. The sample
# dispatches ceil(numHeads * N / 256) workgroups; attnWeights holds every layer's
# (numHeads, N, N) weights for the visualisation, created zeroed; here layer 1 of 2.

_VIT_ATTN_SOFTMAX = """// kernel-forge corpus: the attention softmax of webgpu-samples' Vision
// Transformer (read, not copied). Each invocation takes one row of the
// (numHeads, N, N) scores, turns it into probabilities where it lies, and copies
// them into the slice of attnWeights that belongs to layer layerIdx.

struct Params {
  N: u32,
  numHeads: u32,
  layerIdx: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> scoreBuf: array<f32>;
@group(0) @binding(2) var<storage, read_write> attnWeights: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let n = params.N;
  let rows = params.numHeads * n;
  let row = gid.x;
  if (row >= rows) { return; }
  let start = row * n;

  var m = -1e30;
  for (var j = 0u; j < n; j++) {
    m = max(m, scoreBuf[start + j]);
  }

  // shift by the max so no exp overflows; keep the exps for the last pass
  var denom = 0.0;
  for (var j = 0u; j < n; j++) {
    let e = exp(scoreBuf[start + j] - m);
    denom += e;
    scoreBuf[start + j] = e;
  }

  let dst = params.layerIdx * rows * n + start;
  for (var j = 0u; j < n; j++) {
    let p = scoreBuf[start + j] / denom;
    attnWeights[dst + j] = p;
    scoreBuf[start + j] = p;
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
            "let dst = params.layerIdx * rows * n + start;",
            "let dst = start;",
        ),
        "the last row left out": ("wgsl", "if (row >= rows)", "if (row + 1u >= rows)"),
        "the unnormalised value kept in the scores": (
            "wgsl",
            "    scoreBuf[start + j] = p;\n",
            "",
        ),
    },
)

# -- 3. webgpu-samples gameOfLife: compute.wgsl ------------------------------------------
# After webgpu/webgpu-samples at 183838cf (BSD 3-clause), sample/gameOfLife/compute.wgsl:
# read, not copied. main.ts writes the board's width and height
# into a storage buffer, cells 0 or 1 (Math.random() < 0.25), and dispatches
# (width / blockSize, height / blockSize); its boards are 16 to 1024, powers of two.

_GAME_OF_LIFE = """// kernel-forge corpus: webgpu-samples' Game of Life step (read, not copied).
// One invocation a cell. The board is a torus whose edges wrap in u32: at
// x = 0, x - 1u is 2^32 - 1, and % width lands on width - 1 only when the width
// divides 2^32 (the sample's boards are powers of two).

@group(0) @binding(0) var<storage, read> size: vec2<u32>;
@group(0) @binding(1) var<storage, read> current: array<u32>;
@group(0) @binding(2) var<storage, read_write> next: array<u32>;

override blockSize = 8;

fn cellAt(x: u32, y: u32) -> u32 {
  return (y % size.y) * size.x + x % size.x;
}

fn alive(x: u32, y: u32) -> u32 {
  return current[cellAt(x, y)];
}

fn liveNeighbours(x: u32, y: u32) -> u32 {
  let above = alive(x - 1u, y - 1u) + alive(x, y - 1u) + alive(x + 1u, y - 1u);
  let level = alive(x - 1u, y) + alive(x + 1u, y);
  let below = alive(x - 1u, y + 1u) + alive(x, y + 1u) + alive(x + 1u, y + 1u);
  return above + level + below;
}

@compute @workgroup_size(blockSize, blockSize)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let n = liveNeighbours(gid.x, gid.y);
  let wasAlive = alive(gid.x, gid.y) == 1u;
  // born with exactly three neighbours, survives with two or three
  next[cellAt(gid.x, gid.y)] = select(u32(n == 3u), u32(n == 2u || n == 3u), wasAlive);
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
        "the row wrapped by the width": ("wgsl", "(y % size.y) * size.x", "(y % size.x) * size.x"),
        "a missing neighbour": (
            "wgsl",
            "let level = alive(x - 1u, y) + alive(x + 1u, y);",
            "let level = alive(x - 1u, y) + alive(x, y);",
        ),
        "the cell itself counted": (
            "wgsl",
            "let level = alive(x - 1u, y) + alive(x + 1u, y);",
            "let level = alive(x - 1u, y) + alive(x, y) + alive(x + 1u, y);",
        ),
    },
)

ROUND42: dict[str, Wild] = {
    w.kernel.id: w for w in (VIT_LAYER_NORM, VIT_ATTN_SOFTMAX, GAME_OF_LIFE)
}

"""Round 9 of kernels from the wild, merged into ``tests.wild.CORPUS``: machine-learning
operators as WebGPU inference runtimes write them (TensorFlow.js's webgpu backend, ONNX
Runtime Web's JSEP WGSL, Transformers.js, burn-wgpu, WebLLM/TVM-generated WGSL).

Each is written the way such a runtime writes it (BatchNormalization with running
statistics, InstanceNormalization in a workgroup of 64 with a folded scale and shift,
a depthwise conv2d NHWC with dilation, ConvTranspose2d in gather form, bilinear resize
with align_corners, GridSample with zeros padding, AveragePool with
count_include_pad=0, a global average pool through an unrolled tree, an inner-axis sum
with vec4 loads and a scalar tail, CumSum with exclusive and reverse, a top-4 by
insertion, OneHot, ScatterND with atomic adds, Expand with shapes in uniform
``array<vec4<u32>, 2>``, Transpose with a perm in a uniform, a layer norm with
E[x^2] - E[x]^2, quick GELU, softmax over rows longer than the workgroup, causal
attention with 1/sqrt(d) in a uniform, and an int8 GEMM with f16 scales read through
``unpack2x16float``), with a numpy reference written the natural way and mutants that
each hold one plausible bug.

Most of these are the project's own WGSL in the style of the runtimes named (their
uniform and binding conventions, the operators' ONNX or TF.js semantics): no upstream
file is copied into them. Five followed a runtime's generated shader text closely and
are now written for this corpus after it: read, not copied (the project's rule for
public code: round 9 first took their bodies nearly line for line, and they were
rewritten on 2026-12-06). What is theirs is kept: the entry points (``_start``,
``grid_sample``, ``softmax``, ``cumsum``), the bindings and the uniform structs with
TF.js' field names (``inDims``, ``outDims``, ``pad``, ``stride``, ``dilation``,
``filterDims``, ``channels``, ``batch``; ``xShape``, ``outShape``, ``alignCorners``),
the workgroup sizes, the launch geometry and the numerics: the depthwise sum over
dilated taps that skips the padding, rows outer and columns inner; the bilinear step
``(in - 1) / (out - 1)`` under alignCorners where the output axis is longer than 1, the
source position truncated for the floor and ``min(in - 1, ceil(...))`` for the ceiling,
blended along the columns first; GridSample's unnormalisation ``((g + 1) * size - 1) /
2``, its zeros padding tap by tap and its blend ``(1 - dy) * ((1 - dx) * p11 + dx * p12)
+ dy * (...)``; the softmax's workgroup of 64 over rows longer than it, two workgroup
scalars and 64 partials, lane 0 folding them alone between barriers, the max from
-3.402823e+38; CumSum's span from the axis position to one end, shortened at the right
end when exclusive. What is ours: the comments, the helpers' and locals' names
(``texel``, ``axis_step``, ``unnormalize``, ``fetch``, ``partials``, ``row_max``...),
the order of equivalent statements and the formatting; the bilinear step is one helper
per axis.

- TF.js's WebGPU backend (tensorflow/tfjs, Apache-2.0):
  ``tfjs-backend-webgpu/src/depthwise_conv2d_webgpu.ts`` at 3b9bf713 and
  ``resize_bilinear_webgpu.ts`` at 93355e5b (the WebGL program
  ``resize_bilinear_gpu.ts`` has the same body), one invocation an NHWC output element.
- ONNX Runtime Web's JSEP operators (microsoft/onnxruntime, MIT):
  ``js/web/lib/wasm/jsep/webgpu/ops/softmax.ts`` at db4f6e23 and ``cumsum.ts`` at
  8cb5931f; its native WebGPU provider's GridSample
  (``onnxruntime/core/providers/webgpu/tensor/grid_sample.cc`` at 28e8f655).

What they found, fixed since with a test: the oracle's ``normal`` input family drew
values around 0 and clipped them into the kernel's domain, so a domain away from the
origin gave one value everywhere: x in (20, 28) was 20.0 in every element (and
(0.001, 0.05) almost only its two ends). The layer norm whose variance is E[x^2] -
E[x]^2 passed on such rows whatever its cancellation did. The family now draws across
such a domain; on rows drawn from (100, 104) that layer norm is a MISMATCH against
float64 (1e-2 relative and more), a two-pass variance in float32 passes, and on rows
around 0 (the domain here) both pass. And a vector buffer with a ``shape`` (the grid of
GridSample, the rows of the layer norm) made the reference's reshape raise instead of
giving a verdict (found by round 10 too, and fixed there: the lanes are trailing axes).

Fixed in the oracle: the depthwise reference pads with zeros and multiplies, so an
infinite weight gives NaN (0 * inf) where the kernel, which skips the padded taps,
stays finite (the weights were drawn finite until the reference with zeros
annihilating became one more NaN alternative, 2026-12-02). ScatterND's
load-then-store mutant lost no update on lavapipe with 9 columns (its 8-wide SIMD
chunks never held two updates of one element); a size with one column shows it.
"""

from __future__ import annotations

import numpy as np

from forge import BufferSpec, KernelSpec, Schedule, ceil_div

from . import Wild

# -- ORT BatchNormalization, inference: running mean and variance, NCHW ---------------------

_BATCHNORM = """
struct Uniforms { output_size: u32, C: u32, HW: u32, epsilon: f32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> scale: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read> input_mean: array<f32>;
@group(0) @binding(4) var<storage, read> input_var: array<f32>;
@group(0) @binding(5) var<storage, read_write> y: array<f32>;
@group(0) @binding(6) var<uniform> uniforms: Uniforms;

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
  let global_idx = global_id.x;
  if (global_idx >= uniforms.output_size) { return; }
  let c = (global_idx / uniforms.HW) % uniforms.C;
  let value = (x[global_idx] - input_mean[c]) * inverseSqrt(input_var[c] + uniforms.epsilon);
  y[global_idx] = value * scale[c] + bias[c];
}
"""


def _batchnorm_reference(x, scale, bias, input_mean, input_var, y, uniforms):
    eps = uniforms["epsilon"]
    inv = 1.0 / np.sqrt(input_var + eps)
    y[:] = (x - input_mean[:, None]) * inv[:, None] * scale[:, None] + bias[:, None]


BATCHNORM = Wild(
    KernelSpec(
        id="wild_r9_ort_batchnorm_running_stats",
        entry_point="main",
        sources={"wgsl": _BATCHNORM},
        dims=("N", "C", "HW"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="N*C*HW", shape=("N", "C", "HW")),
            BufferSpec(1, "f32", "read", name="scale", count="C"),
            BufferSpec(2, "f32", "read", name="bias", count="C"),
            BufferSpec(3, "f32", "read", name="input_mean", count="C"),
            BufferSpec(4, "f32", "read", name="input_var", count="C"),
            BufferSpec(5, "f32", "read_write", name="y", count="N*C*HW", shape=("N", "C", "HW")),
            BufferSpec.uniform(
                6,
                (("output_size", "u32"), ("C", "u32"), ("HW", "u32"), ("epsilon", "f32")),
                name="uniforms",
            ),
        ),
        reference=_batchnorm_reference,
        params=lambda s: {"output_size": s.N * s.C * s.HW, "C": s.C, "HW": s.HW},
        defaults={"epsilon": 1e-5},
        grid=lambda s, size: (ceil_div(size.N * size.C * size.HW, 64), 1, 1),
        # a running variance is a variance: not negative (NaN or Inf in x still drawn)
        domain={"input_var": (0.0, 4.0)},
        test_sizes=("N=2,C=5,HW=49", "N=1,C=1,HW=1"),
    ),
    {
        "epsilon outside the root": (
            "wgsl",
            "inverseSqrt(input_var[c] + uniforms.epsilon)",
            "(1.0 / (sqrt(input_var[c]) + uniforms.epsilon))",
        ),
        "channel of the flat index": (
            "wgsl",
            "(global_idx / uniforms.HW) % uniforms.C",
            "global_idx % uniforms.C",
        ),
        "scale and bias swapped": (
            "wgsl",
            "value * scale[c] + bias[c]",
            "value * bias[c] + scale[c]",
        ),
    },
)

# -- ORT InstanceNormalization: a workgroup of 64 per (n, c), two tree reductions ------------
# (mean, then the centred second moment), then a per-channel scale and shift as ORT's
# shader folds them: y = x * a + (bias - mean * a).

_INSTANCE_NORM = """
struct Params { HW: u32, C: u32, epsilon: f32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> scale: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@group(0) @binding(4) var<uniform> params: Params;

const WG: u32 = 64u;
var<workgroup> partial: array<f32, WG>;

fn tree_sum(lid: u32) -> f32 {
  for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
    if (lid < stride) { partial[lid] = partial[lid] + partial[lid + stride]; }
    workgroupBarrier();
  }
  return partial[0];
}

@compute @workgroup_size(64)
fn instance_norm(@builtin(workgroup_id) wg: vec3<u32>,
                 @builtin(local_invocation_id) local_id: vec3<u32>) {
  let lid = local_id.x;
  let instance = wg.x;  // n * C + c
  let c = instance % params.C;
  let base = instance * params.HW;
  var s = 0.0;
  for (var i = lid; i < params.HW; i += WG) { s += x[base + i]; }
  partial[lid] = s;
  workgroupBarrier();
  let mean = tree_sum(lid) / f32(params.HW);
  workgroupBarrier();
  var sq = 0.0;
  for (var i = lid; i < params.HW; i += WG) {
    let d = x[base + i] - mean;
    sq += d * d;
  }
  partial[lid] = sq;
  workgroupBarrier();
  let variance = tree_sum(lid) / f32(params.HW);
  let a = scale[c] * inverseSqrt(variance + params.epsilon);
  let b = bias[c] - mean * a;
  for (var i = lid; i < params.HW; i += WG) { y[base + i] = x[base + i] * a + b; }
}
"""


def _instance_norm_reference(x, scale, bias, params):
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=2, keepdims=True)
    var = x64.var(axis=2, keepdims=True)
    y = (x64 - mean) / np.sqrt(var + params["epsilon"]) * scale[:, None] + bias[:, None]
    return y.astype(np.float32)


INSTANCE_NORM = Wild(
    KernelSpec(
        id="wild_r9_ort_instance_norm_workgroup",
        entry_point="instance_norm",
        sources={"wgsl": _INSTANCE_NORM},
        dims=("N", "C", "HW"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="N*C*HW", shape=("N", "C", "HW")),
            BufferSpec(1, "f32", "read", name="scale", count="C"),
            BufferSpec(2, "f32", "read", name="bias", count="C"),
            BufferSpec(3, "f32", "read_write", name="y", count="N*C*HW", shape=("N", "C", "HW")),
            BufferSpec.uniform(4, (("HW", "u32"), ("C", "u32"), ("epsilon", "f32"))),
        ),
        reference=_instance_norm_reference,
        params=lambda s: {"HW": s.HW, "C": s.C},
        defaults={"epsilon": 1e-5},
        grid=lambda s, size: (size.N * size.C, 1, 1),
        schedules=(Schedule(64),),
        domain={"x": (-8.0, 8.0), "scale": (-2.0, 2.0), "bias": (-2.0, 2.0)},
        test_sizes=("N=2,C=3,HW=200", "N=1,C=1,HW=1"),
    ),
    {
        "unbiased variance": (
            "wgsl",
            "let variance = tree_sum(lid) / f32(params.HW);",
            "let variance = tree_sum(lid) / f32(max(params.HW, 2u) - 1u);",
        ),
        "tree starts at a quarter": ("wgsl", "var stride = WG / 2u;", "var stride = WG / 4u;"),
        "mean over the workgroup": (
            "wgsl",
            "let mean = tree_sum(lid) / f32(params.HW);",
            "let mean = tree_sum(lid) / f32(WG);",
        ),
    },
)

# -- TF.js DepthwiseConv2D, NHWC, channel multiplier 1, dilation 2, stride (1, 2), pad 2 -----
# After tensorflow/tfjs (Apache-2.0), tfjs-backend-webgpu/src/depthwise_conv2d_webgpu.ts: read,
# not copied.

_DEPTHWISE = """// kernel-forge corpus: a depthwise conv2d after TF.js's WebGPU backend (read, not
// copied). An invocation owns one NHWC output element and walks its channel's
// filter with the dilation; a tap that lands in the padding adds nothing.
struct Uniforms {
  inDims: vec2<i32>, outDims: vec2<i32>, pad: vec2<i32>, stride: vec2<i32>,
  dilation: vec2<i32>, filterDims: vec2<i32>, channels: i32, batch: i32,
}
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> W: array<f32>;
@group(0) @binding(2) var<storage, read_write> result: array<f32>;
@group(0) @binding(3) var<uniform> uniforms: Uniforms;

@compute @workgroup_size(64, 1, 1)
fn _start(@builtin(global_invocation_id) globalId: vec3<u32>) {
  let flat = i32(globalId.x);
  let total = uniforms.batch * uniforms.outDims.x * uniforms.outDims.y * uniforms.channels;
  if (flat >= total) { return; }

  // channel fastest, then column, row and image
  let ch = flat % uniforms.channels;
  let pixel = flat / uniforms.channels;
  let outC = pixel % uniforms.outDims.y;
  let outR = (pixel / uniforms.outDims.y) % uniforms.outDims.x;
  let img = pixel / (uniforms.outDims.y * uniforms.outDims.x);

  // the input position under the filter's first tap
  let top = outR * uniforms.stride.x - uniforms.pad.x;
  let left = outC * uniforms.stride.y - uniforms.pad.y;

  var sum = 0.0;
  for (var tr = 0; tr < uniforms.filterDims.x; tr++) {
    let inR = top + tr * uniforms.dilation.x;
    if (inR < 0 || inR >= uniforms.inDims.x) { continue; }
    let rowStart = (img * uniforms.inDims.x + inR) * uniforms.inDims.y;
    for (var tc = 0; tc < uniforms.filterDims.y; tc++) {
      let inC = left + tc * uniforms.dilation.y;
      if (inC < 0 || inC >= uniforms.inDims.y) { continue; }
      let tap = W[(tr * uniforms.filterDims.y + tc) * uniforms.channels + ch];
      sum += x[(rowStart + inC) * uniforms.channels + ch] * tap;
    }
  }
  result[flat] = sum;
}
"""


def _depthwise_out(s):
    return s.H, (s.W - 1) // 2 + 1


def _depthwise_params(s):
    oh, ow = _depthwise_out(s)
    return {
        "inDims": [s.H, s.W],
        "outDims": [oh, ow],
        "pad": [2, 2],
        "stride": [1, 2],
        "dilation": [2, 2],
        "filterDims": [3, 3],
        "channels": s.C,
        "batch": s.N,
    }


def _depthwise_reference(x, W, result, uniforms):
    N, H, Wd, C = x.shape
    OH, OW = result.shape[1:3]
    xp = np.pad(x, ((0, 0), (2, 2), (2, 2), (0, 0)))
    out = np.zeros((N, OH, OW, C), np.float32)
    for i in range(3):
        for j in range(3):
            out += xp[:, 2 * i : 2 * i + OH, 2 * j : 2 * j + 2 * OW : 2, :] * W[i, j]
    result[:] = out


DEPTHWISE = Wild(
    KernelSpec(
        id="wild_r9_tfjs_depthwise_conv2d_nhwc_dilation",
        entry_point="_start",
        sources={"wgsl": _DEPTHWISE},
        dims=("N", "H", "W", "C"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="N*H*W*C", shape=("N", "H", "W", "C")),
            BufferSpec(1, "f32", "read", name="W", count="9*C", shape=(3, 3, "C")),
            BufferSpec(
                2,
                "f32",
                "read_write",
                name="result",
                count="N*H*((W-1)//2+1)*C",
                shape=("N", "H", "(W-1)//2+1", "C"),
            ),
            BufferSpec.uniform(
                3,
                (
                    ("inDims", "vec2<i32>"),
                    ("outDims", "vec2<i32>"),
                    ("pad", "vec2<i32>"),
                    ("stride", "vec2<i32>"),
                    ("dilation", "vec2<i32>"),
                    ("filterDims", "vec2<i32>"),
                    ("channels", "i32"),
                    ("batch", "i32"),
                ),
                name="uniforms",
            ),
        ),
        reference=_depthwise_reference,
        params=_depthwise_params,
        grid=lambda s, size: (
            ceil_div(size.N * int(np.prod(_depthwise_out(size))) * size.C, 64),
            1,
            1,
        ),
        test_sizes=("N=2,H=9,W=12,C=5", "N=1,H=1,W=1,C=1"),
    ),
    {
        "dilation ignored on columns": (
            "wgsl",
            "left + tc * uniforms.dilation.y",
            "left + tc",
        ),
        "row and column strides swapped": (
            "wgsl",
            "outR * uniforms.stride.x",
            "outR * uniforms.stride.y",
        ),
        "upper row bound off by one": (
            "wgsl",
            "inR >= uniforms.inDims.x",
            "inR > uniforms.inDims.x",
        ),
    },
)

# -- ConvTranspose2d, gather form (each output pulls its inputs): stride 2, pad 1, kernel 3,
# output_padding 1, so the output is twice the input; weight (Cin, Cout, 3, 3) and a bias.

_CONV_T = """
struct Params { N: u32, Cin: u32, Cout: u32, H: u32, W: u32, OH: u32, OW: u32 }
@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read> weight: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> output: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

const STRIDE: i32 = 2;
const PAD: i32 = 1;
const K: i32 = 3;

@compute @workgroup_size(8, 8, 1)
fn conv_transpose2d(@builtin(global_invocation_id) gid: vec3<u32>) {
  let ox = i32(gid.x);
  let oy = i32(gid.y);
  let n = gid.z / p.Cout;
  let co = gid.z % p.Cout;
  if (ox >= i32(p.OW) || oy >= i32(p.OH) || n >= p.N) { return; }
  var acc = bias[co];
  for (var ci = 0u; ci < p.Cin; ci++) {
    for (var kh = 0; kh < K; kh++) {
      let ty = oy + PAD - kh;
      if (ty < 0 || ty % STRIDE != 0) { continue; }
      let iy = ty / STRIDE;
      if (iy >= i32(p.H)) { continue; }
      for (var kw = 0; kw < K; kw++) {
        let tx = ox + PAD - kw;
        if (tx < 0 || tx % STRIDE != 0) { continue; }
        let ix = tx / STRIDE;
        if (ix >= i32(p.W)) { continue; }
        let xv = input[((n * p.Cin + ci) * p.H + u32(iy)) * p.W + u32(ix)];
        let wv = weight[((ci * p.Cout + co) * 3u + u32(kh)) * 3u + u32(kw)];
        acc += xv * wv;
      }
    }
  }
  output[((n * p.Cout + co) * p.OH + u32(oy)) * p.OW + u32(ox)] = acc;
}
"""


def _conv_t_reference(input, weight, bias, params):
    # col2im: every input pixel scatters its 3x3 patch onto a canvas, then the pad is cut
    N, _, H, W = input.shape
    Cout = weight.shape[1]
    canvas = np.zeros((N, Cout, 2 * H + 2, 2 * W + 2), np.float64)
    for kh in range(3):
        for kw in range(3):
            patch = np.einsum("nchw,co->nohw", input.astype(np.float64), weight[:, :, kh, kw])
            canvas[:, :, kh : kh + 2 * H : 2, kw : kw + 2 * W : 2] += patch
    out = canvas[:, :, 1 : 1 + 2 * H, 1 : 1 + 2 * W] + bias[None, :, None, None]
    return out.astype(np.float32)


CONV_T = Wild(
    KernelSpec(
        id="wild_r9_conv_transpose2d_gather_stride2",
        entry_point="conv_transpose2d",
        sources={"wgsl": _CONV_T},
        dims=("N", "Cin", "Cout", "H", "W"),
        buffers=(
            BufferSpec(
                0, "f32", "read", name="input", count="N*Cin*H*W", shape=("N", "Cin", "H", "W")
            ),
            BufferSpec(
                1, "f32", "read", name="weight", count="Cin*Cout*9", shape=("Cin", "Cout", 3, 3)
            ),
            BufferSpec(2, "f32", "read", name="bias", count="Cout"),
            BufferSpec(
                3,
                "f32",
                "read_write",
                name="output",
                count="N*Cout*4*H*W",
                shape=("N", "Cout", "2*H", "2*W"),
            ),
            BufferSpec.uniform(
                4,
                tuple((k, "u32") for k in ("N", "Cin", "Cout", "H", "W", "OH", "OW")),
            ),
        ),
        reference=_conv_t_reference,
        params=lambda s: {
            "N": s.N,
            "Cin": s.Cin,
            "Cout": s.Cout,
            "H": s.H,
            "W": s.W,
            "OH": 2 * s.H,
            "OW": 2 * s.W,
        },
        grid=lambda s, size: (ceil_div(2 * size.W, 8), ceil_div(2 * size.H, 8), size.N * size.Cout),
        schedules=(Schedule((8, 8, 1)),),
        domain={"input": (-2.0, 2.0), "weight": (-2.0, 2.0), "bias": (-2.0, 2.0)},
        test_sizes=("N=2,Cin=3,Cout=4,H=5,W=7", "N=1,Cin=1,Cout=1,H=1,W=1"),
    ),
    {
        "stride parity not checked": (
            "wgsl",
            "if (tx < 0 || tx % STRIDE != 0) { continue; }",
            "if (tx < 0) { continue; }",
        ),
        "kernel flipped": (
            "wgsl",
            "* 3u + u32(kh)) * 3u + u32(kw)]",
            "* 3u + u32(2 - kh)) * 3u + u32(2 - kw)]",
        ),
        "weight laid out (Cout, Cin)": (
            "wgsl",
            "weight[((ci * p.Cout + co)",
            "weight[((co * p.Cin + ci)",
        ),
    },
)

# -- TF.js ResizeBilinear, alignCorners = true, halfPixelCenters = false, NHWC ---------------
# After tensorflow/tfjs (Apache-2.0), tfjs-backend-webgpu/src/resize_bilinear_webgpu.ts: read,
# not copied.

_RESIZE_BILINEAR = """// kernel-forge corpus: a bilinear resize after TF.js's WebGPU
// backend (read, not copied). NHWC, one invocation an output element. With
// alignCorners an axis longer than 1 maps its ends onto the input's ends: the
// step is (in - 1) / (out - 1).
struct Uniforms { xShape: vec4<i32>, outShape: vec4<i32>, alignCorners: i32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> result: array<f32>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;

fn texel(img: i32, row: i32, col: i32, ch: i32) -> f32 {
  let dims = uniforms.xShape;
  return x[((img * dims.y + row) * dims.z + col) * dims.w + ch];
}

// input positions per output position along one axis
fn axis_step(inLen: f32, outLen: f32, align: bool) -> f32 {
  let ends = align && outLen > 1.0;
  return select(inLen, inLen - 1.0, ends) / select(outLen, outLen - 1.0, ends);
}

@compute @workgroup_size(64, 1, 1)
fn _start(@builtin(global_invocation_id) globalId: vec3<u32>) {
  let flat = i32(globalId.x);
  let o = uniforms.outShape;
  if (flat >= o.x * o.y * o.z * o.w) { return; }
  let ch = flat % o.w;
  let col = (flat / o.w) % o.z;
  let row = (flat / (o.w * o.z)) % o.y;
  let img = flat / (o.w * o.z * o.y);

  let align = uniforms.alignCorners != 0;
  let inSize = vec2<f32>(uniforms.xShape.yz);
  let steps = vec2<f32>(axis_step(inSize.x, f32(o.y), align),
                        axis_step(inSize.y, f32(o.z), align));
  let src = vec2<f32>(f32(row), f32(col)) * steps;
  let lo = vec2<i32>(src);
  let hi = vec2<i32>(min(inSize - 1.0, ceil(src)));
  let frac = src - vec2<f32>(lo);

  // blend across the columns in the upper and the lower row, then between rows
  let upL = texel(img, lo.x, lo.y, ch);
  let upR = texel(img, lo.x, hi.y, ch);
  let downL = texel(img, hi.x, lo.y, ch);
  let downR = texel(img, hi.x, hi.y, ch);
  let up = upL + (upR - upL) * frac.y;
  let down = downL + (downR - downL) * frac.y;
  result[flat] = up + (down - up) * frac.x;
}
"""


def _resize_bilinear_out(s):
    return 2 * s.H + 1, 3 * s.W


def _resize_bilinear_params(s):
    oh, ow = _resize_bilinear_out(s)
    return {"xShape": [s.N, s.H, s.W, s.C], "outShape": [s.N, oh, ow, s.C]}


def _lerp_axis(n_in, n_out):
    # align_corners=True: the corners of input and output coincide
    src = np.linspace(0.0, n_in - 1, n_out) if n_out > 1 else np.zeros(1)
    lo = np.floor(src).astype(int)
    hi = np.minimum(lo + 1, n_in - 1)
    return lo, hi, src - lo


def _resize_bilinear_reference(x, result, uniforms):
    N, H, W, C = x.shape
    r0, r1, fr = _lerp_axis(H, result.shape[1])
    c0, c1, fc = _lerp_axis(W, result.shape[2])
    x = x.astype(np.float64)
    fc = fc[None, None, :, None]
    top = x[:, r0][:, :, c0] * (1 - fc) + x[:, r0][:, :, c1] * fc
    bottom = x[:, r1][:, :, c0] * (1 - fc) + x[:, r1][:, :, c1] * fc
    fr = fr[None, :, None, None]
    result[:] = top * (1 - fr) + bottom * fr


RESIZE_BILINEAR = Wild(
    KernelSpec(
        id="wild_r9_tfjs_resize_bilinear_align_corners",
        entry_point="_start",
        sources={"wgsl": _RESIZE_BILINEAR},
        dims=("N", "H", "W", "C"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="N*H*W*C", shape=("N", "H", "W", "C")),
            BufferSpec(
                1,
                "f32",
                "read_write",
                name="result",
                count="N*(2*H+1)*(3*W)*C",
                shape=("N", "2*H+1", "3*W", "C"),
            ),
            BufferSpec.uniform(
                2,
                (("xShape", "vec4<i32>"), ("outShape", "vec4<i32>"), ("alignCorners", "i32")),
                name="uniforms",
            ),
        ),
        reference=_resize_bilinear_reference,
        params=_resize_bilinear_params,
        defaults={"alignCorners": 1},
        grid=lambda s, size: (
            ceil_div(size.N * int(np.prod(_resize_bilinear_out(size))) * size.C, 64),
            1,
            1,
        ),
        domain={"x": (-10.0, 10.0)},
        test_sizes=("N=2,H=5,W=7,C=3", "N=1,H=1,W=1,C=1"),
    ),
    {
        "align_corners mixed up": (
            "wgsl",
            "let align = uniforms.alignCorners != 0;",
            "let align = uniforms.alignCorners == 0;",
        ),
        "row and column fractions swapped": (
            "wgsl",
            "let frac = src - vec2<f32>(lo);",
            "let frac = (src - vec2<f32>(lo)).yx;",
        ),
        "bottom row from the floor": (
            "wgsl",
            "let downL = texel(img, hi.x, lo.y, ch);",
            "let downL = texel(img, lo.x, lo.y, ch);",
        ),
    },
)

# -- ORT GridSample: bilinear, padding_mode zeros, align_corners = 0 (PyTorch's default) ----
# After microsoft/onnxruntime (MIT), onnxruntime/core/providers/webgpu/tensor/grid_sample.cc:
# read, not copied.

_GRID_SAMPLE = """// kernel-forge corpus: GridSample after ONNX Runtime's WebGPU provider (read, not
// copied). Bilinear with zeros padding and align_corners = 0: grid coordinates
// -1 and 1 are the outer edges of the first and last pixel.
struct Params { N: u32, C: u32, H: u32, W: u32, OH: u32, OW: u32 }
@group(0) @binding(0) var<storage, read> X: array<f32>;      // (N, C, H, W)
@group(0) @binding(1) var<storage, read> grid: array<vec2<f32>>;  // (N, OH, OW) of (x, y)
@group(0) @binding(2) var<storage, read_write> Y: array<f32>;  // (N, C, OH, OW)
@group(0) @binding(3) var<uniform> p: Params;

fn unnormalize(g: f32, size: u32) -> f32 {
  return ((g + 1.0) * f32(size) - 1.0) / 2.0;
}

fn fetch(n: u32, c: u32, row: i32, col: i32) -> f32 {
  // a tap off the image reads zero
  if (col < 0 || col >= i32(p.W) || row < 0 || row >= i32(p.H)) { return 0.0; }
  return X[((n * p.C + c) * p.H + u32(row)) * p.W + u32(col)];
}

@compute @workgroup_size(64)
fn grid_sample(@builtin(global_invocation_id) gid: vec3<u32>) {
  let flat = gid.x;
  if (flat >= p.N * p.C * p.OH * p.OW) { return; }
  let plane = p.OH * p.OW;
  let ox = flat % p.OW;
  let oy = (flat / p.OW) % p.OH;
  let c = (flat / plane) % p.C;
  let n = flat / (plane * p.C);

  let g = grid[(n * p.OH + oy) * p.OW + ox];
  let sx = unnormalize(g.x, p.W);
  let sy = unnormalize(g.y, p.H);
  let fx = floor(sx);
  let fy = floor(sy);
  let wx = sx - fx;
  let wy = sy - fy;
  let col = i32(fx);
  let row = i32(fy);
  let upper = (1.0 - wx) * fetch(n, c, row, col) + wx * fetch(n, c, row, col + 1);
  let lower = (1.0 - wx) * fetch(n, c, row + 1, col) + wx * fetch(n, c, row + 1, col + 1);
  Y[flat] = (1.0 - wy) * upper + wy * lower;
}
"""


def _grid_points(rng, count, size):
    return rng.uniform(-1.15, 1.15, (count, 2)).astype(np.float32)


def _grid_sample_reference(X, grid):
    N, C, H, W = X.shape
    g = grid.astype(np.float64).reshape(N, -1, 2)
    x = ((g[..., 0] + 1) * W - 1) / 2
    y = ((g[..., 1] + 1) * H - 1) / 2
    x0, y0 = np.floor(x).astype(int), np.floor(y).astype(int)
    out = np.zeros((N, C, g.shape[1]))
    for yy, wy in ((y0, y0 + 1 - y), (y0 + 1, y - y0)):
        for xx, wx in ((x0, x0 + 1 - x), (x0 + 1, x - x0)):
            inside = (xx >= 0) & (xx < W) & (yy >= 0) & (yy < H)
            for n in range(N):
                v = X[n][:, np.clip(yy[n], 0, H - 1), np.clip(xx[n], 0, W - 1)]
                out[n] += np.where(inside[n], v * (wx[n] * wy[n]), 0.0)
    return out.reshape(N, C, *grid.shape[1:3]).astype(np.float32)


GRID_SAMPLE = Wild(
    KernelSpec(
        id="wild_r9_ort_grid_sample_bilinear_zeros",
        entry_point="grid_sample",
        sources={"wgsl": _GRID_SAMPLE},
        dims=("N", "C", "H", "W", "OH", "OW"),
        buffers=(
            BufferSpec(0, "f32", "read", name="X", count="N*C*H*W", shape=("N", "C", "H", "W")),
            BufferSpec(
                1,
                "vec2<f32>",
                "read",
                name="grid",
                count="N*OH*OW",
                shape=("N", "OH", "OW"),
                fill=_grid_points,
            ),
            BufferSpec(
                2, "f32", "read_write", name="Y", count="N*C*OH*OW", shape=("N", "C", "OH", "OW")
            ),
            BufferSpec.uniform(3, tuple((k, "u32") for k in ("N", "C", "H", "W", "OH", "OW"))),
        ),
        reference=_grid_sample_reference,
        params=lambda s: dict(s.dims),
        grid=lambda s, size: (ceil_div(size.N * size.C * size.OH * size.OW, 64), 1, 1),
        domain={"X": (-4.0, 4.0)},
        test_sizes=("N=2,C=3,H=6,W=9,OH=5,OW=11", "N=1,C=1,H=1,W=1,OH=1,OW=1"),
    ),
    {
        "border padding instead of zeros": (
            "wgsl",
            "  if (col < 0 || col >= i32(p.W) || row < 0 || row >= i32(p.H)) { return 0.0; }\n"
            "  return X[((n * p.C + c) * p.H + u32(row)) * p.W + u32(col)];",
            "  let cc = u32(clamp(col, 0, i32(p.W) - 1));\n"
            "  let cr = u32(clamp(row, 0, i32(p.H) - 1));\n"
            "  return X[((n * p.C + c) * p.H + cr) * p.W + cc];",
        ),
        "align_corners=1 unnormalisation": (
            "wgsl",
            "return ((g + 1.0) * f32(size) - 1.0) / 2.0;",
            "return (g + 1.0) / 2.0 * (f32(size) - 1.0);",
        ),
        "grid x and y swapped": (
            "wgsl",
            "let sx = unnormalize(g.x, p.W);\n  let sy = unnormalize(g.y, p.H);",
            "let sx = unnormalize(g.y, p.W);\n  let sy = unnormalize(g.x, p.H);",
        ),
    },
)

# -- ORT AveragePool 3x3, stride 2, pads 1, count_include_pad = 0, NCHW ----------------------

_AVGPOOL = """
struct Params { NC: u32, H: u32, W: u32, OH: u32, OW: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(64)
fn average_pool(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x;
  if (i >= p.NC * p.OH * p.OW) { return; }
  let ow = i32(i % p.OW);
  let oh = i32((i / p.OW) % p.OH);
  let nc = i / (p.OW * p.OH);
  var hstart = oh * 2 - 1;
  var wstart = ow * 2 - 1;
  let hend = min(hstart + 3, i32(p.H));
  let wend = min(wstart + 3, i32(p.W));
  hstart = max(hstart, 0);
  wstart = max(wstart, 0);
  var value = 0.0;
  for (var h = hstart; h < hend; h++) {
    for (var w = wstart; w < wend; w++) {
      value += x[(nc * p.H + u32(h)) * p.W + u32(w)];
    }
  }
  let count = (hend - hstart) * (wend - wstart);
  y[i] = value / f32(count);
}
"""


def _avgpool_reference(x, y, p):
    NC, H, W = x.shape
    OH, OW = y.shape[1:]
    for oh in range(OH):
        for ow in range(OW):
            h0, w0 = max(2 * oh - 1, 0), max(2 * ow - 1, 0)
            window = x[:, h0 : 2 * oh + 2, w0 : 2 * ow + 2]
            y[:, oh, ow] = window.mean(axis=(1, 2))


AVGPOOL = Wild(
    KernelSpec(
        id="wild_r9_ort_avgpool_exclude_pad",
        entry_point="average_pool",
        sources={"wgsl": _AVGPOOL},
        dims=("NC", "H", "W"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="NC*H*W", shape=("NC", "H", "W")),
            BufferSpec(
                1,
                "f32",
                "read_write",
                name="y",
                count="NC*((H-1)//2+1)*((W-1)//2+1)",
                shape=("NC", "(H-1)//2+1", "(W-1)//2+1"),
            ),
            BufferSpec.uniform(2, tuple((k, "u32") for k in ("NC", "H", "W", "OH", "OW"))),
        ),
        reference=_avgpool_reference,
        params=lambda s: {
            "NC": s.NC,
            "H": s.H,
            "W": s.W,
            "OH": (s.H - 1) // 2 + 1,
            "OW": (s.W - 1) // 2 + 1,
        },
        grid=lambda s, size: (
            ceil_div(size.NC * ((size.H - 1) // 2 + 1) * ((size.W - 1) // 2 + 1), 64),
            1,
            1,
        ),
        test_sizes=("NC=6,H=11,W=14", "NC=1,H=1,W=1"),
    ),
    {
        "count includes the pad": ("wgsl", "y[i] = value / f32(count);", "y[i] = value / 9.0;"),
        "count from the unclipped start": (
            "wgsl",
            "let count = (hend - hstart) * (wend - wstart);",
            "let count = (hend - (oh * 2 - 1)) * (wend - (ow * 2 - 1));",
        ),
        "window one wider": ("wgsl", "min(wstart + 3, i32(p.W))", "min(wstart + 4, i32(p.W))"),
    },
)

# -- GlobalAveragePool: one workgroup of 64 per (n, c), a strided load then a tree ----------

_GAP = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;  // (N, C, 1, 1)
@group(0) @binding(2) var<uniform> hw: u32;

var<workgroup> sums: array<f32, 64>;

@compute @workgroup_size(64)
fn global_average_pool(@builtin(workgroup_id) wid: vec3<u32>,
                       @builtin(local_invocation_index) tid: u32) {
  let plane = wid.x + wid.y * 65535u;
  if (plane >= arrayLength(&y)) { return; }
  var acc = 0.0;
  var k = tid;
  loop {
    if (k >= hw) { break; }
    acc += x[plane * hw + k];
    k += 64u;
  }
  sums[tid] = acc;
  workgroupBarrier();
  if (tid < 32u) { sums[tid] += sums[tid + 32u]; }
  workgroupBarrier();
  if (tid < 16u) { sums[tid] += sums[tid + 16u]; }
  workgroupBarrier();
  if (tid < 8u) { sums[tid] += sums[tid + 8u]; }
  workgroupBarrier();
  if (tid < 4u) { sums[tid] += sums[tid + 4u]; }
  workgroupBarrier();
  if (tid < 2u) { sums[tid] += sums[tid + 2u]; }
  workgroupBarrier();
  if (tid == 0u) { y[plane] = (sums[0] + sums[1]) / f32(hw); }
}
"""

GAP = Wild(
    KernelSpec(
        id="wild_r9_global_avgpool_unrolled_tree",
        entry_point="global_average_pool",
        sources={"wgsl": _GAP},
        dims=("NC", "HW"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="NC*HW", shape=("NC", "HW")),
            BufferSpec(1, "f32", "read_write", name="y", count="NC", shape=("NC", 1, 1)),
            BufferSpec.uniform(2, (("hw", "u32"),), name="hw"),
        ),
        reference=lambda x, y, hw: x.mean(axis=1, dtype=np.float32)[:, None, None],
        params=lambda s: {"hw": s.HW},
        grid=lambda s, size: (size.NC, 1, 1),
        schedules=(Schedule(64),),
        test_sizes=("NC=7,HW=300", "NC=1,HW=1", "NC=3,HW=64"),
    ),
    {
        "a tree step skipped": (
            "wgsl",
            "  if (tid < 8u) { sums[tid] += sums[tid + 8u]; }\n  workgroupBarrier();\n",
            "",
        ),
        "divides by the workgroup": ("wgsl", "/ f32(hw); }", "/ 64.0; }"),
        "loads overlap by one": ("wgsl", "k += 64u;", "k += 63u;"),
    },
)

# -- reduce-sum over the inner axis: vec4 loads of four scalars, then a scalar tail ----------

_REDUCE_INNER = """
struct Params { rows: u32, K: u32 }
@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(64)
fn reduce_sum_inner(@builtin(global_invocation_id) gid: vec3<u32>) {
  let row = gid.x;
  if (row >= params.rows) { return; }
  let base = row * params.K;
  let K4 = params.K / 4u * 4u;
  var acc4 = vec4<f32>(0.0);
  for (var j = 0u; j < K4; j += 4u) {
    acc4 += vec4<f32>(input[base + j], input[base + j + 1u], input[base + j + 2u],
                      input[base + j + 3u]);
  }
  var acc = acc4.x + acc4.y + acc4.z + acc4.w;
  for (var j = K4; j < params.K; j++) {
    acc += input[base + j];
  }
  output[row] = acc;
}
"""


def _reduce_inner_reference(input, output, params):
    output[:] = input.sum(axis=-1)


REDUCE_INNER = Wild(
    KernelSpec(
        id="wild_r9_reduce_sum_inner_vec4_tail",
        entry_point="reduce_sum_inner",
        sources={"wgsl": _REDUCE_INNER},
        dims=("rows", "K"),
        buffers=(
            BufferSpec(0, "f32", "read", name="input", count="rows*K", shape=("rows", "K")),
            BufferSpec(1, "f32", "read_write", name="output", count="rows"),
            BufferSpec.uniform(2, (("rows", "u32"), ("K", "u32"))),
        ),
        reference=_reduce_inner_reference,
        params=lambda s: {"rows": s.rows, "K": s.K},
        grid=lambda s, size: (ceil_div(size.rows, 64), 1, 1),
        test_sizes=("rows=70,K=103", "rows=1,K=3", "rows=5,K=4"),
    ),
    {
        "tail dropped": (
            "wgsl",
            "for (var j = K4; j < params.K; j++)",
            "for (var j = K4; j < K4; j++)",
        ),
        "tail restarts the row": (
            "wgsl",
            "for (var j = K4; j < params.K; j++)",
            "for (var j = 0u; j < params.K - K4; j++)",
        ),
        "vec4 lanes summed twice": (
            "wgsl",
            "var acc = acc4.x + acc4.y + acc4.z + acc4.w;",
            "var acc = acc4.x + acc4.y + acc4.z + acc4.z;",
        ),
    },
)

# -- ORT CumSum along axis 1 of (outer, L, inner), exclusive and reverse in the uniform ------
# After microsoft/onnxruntime (MIT), js/web/lib/wasm/jsep/webgpu/ops/cumsum.ts: read, not
# copied.

_CUMSUM = """// kernel-forge corpus: CumSum after ONNX Runtime Web's WebGPU operator (read, not
// copied). Each output sums its own span of the axis, [0, at] forward and
// [at, L - 1] reversed, leaving out the element itself when exclusive.
struct Uniforms { outer: u32, axis_size: u32, inner: u32, exclusive: u32, reverse: u32 }
@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;

@compute @workgroup_size(64)
fn cumsum(@builtin(global_invocation_id) gid: vec3<u32>) {
  let flat = gid.x;
  if (flat >= uniforms.outer * uniforms.axis_size * uniforms.inner) { return; }
  let ip = flat % uniforms.inner;
  let at = i32((flat / uniforms.inner) % uniforms.axis_size);
  let slab = flat / (uniforms.inner * uniforms.axis_size);

  let rev = uniforms.reverse == 1u;
  var lo = select(0, at, rev);
  var hi = select(at, i32(uniforms.axis_size) - 1, rev);
  if (uniforms.exclusive == 1u) {
    if (rev) { lo += 1; } else { hi -= 1; }
  }
  var acc = 0.0;
  for (var j = lo; j <= hi; j++) {
    acc += input[(slab * uniforms.axis_size + u32(j)) * uniforms.inner + ip];
  }
  output[flat] = acc;
}
"""


def _cumsum_reference(input, uniforms):
    x = input.astype(np.float64)
    if uniforms["reverse"]:
        x = x[:, ::-1]
    out = np.cumsum(x, axis=1)
    if uniforms["exclusive"]:
        out = np.concatenate([np.zeros_like(out[:, :1]), out[:, :-1]], axis=1)
    if uniforms["reverse"]:
        out = out[:, ::-1]
    return out.astype(np.float32)


CUMSUM = Wild(
    KernelSpec(
        id="wild_r9_ort_cumsum_exclusive_reverse",
        entry_point="cumsum",
        sources={"wgsl": _CUMSUM},
        dims=("O", "L", "I"),
        buffers=(
            BufferSpec(0, "f32", "read", name="input", count="O*L*I", shape=("O", "L", "I")),
            BufferSpec(1, "f32", "read_write", name="output", count="O*L*I", shape=("O", "L", "I")),
            BufferSpec.uniform(
                2,
                tuple((k, "u32") for k in ("outer", "axis_size", "inner", "exclusive", "reverse")),
                name="uniforms",
            ),
        ),
        reference=_cumsum_reference,
        params=lambda s: {"outer": s.O, "axis_size": s.L, "inner": s.I},
        defaults={"exclusive": 1, "reverse": 1},
        grid=lambda s, size: (ceil_div(size.O * size.L * size.I, 64), 1, 1),
        test_sizes=("O=3,L=40,I=5", "O=1,L=1,I=1"),
    ),
    {
        "exclusive flag ignored": (
            "wgsl",
            "if (uniforms.exclusive == 1u) {",
            "if (uniforms.exclusive == 2u) {",
        ),
        "exclusive drops the wrong end": (
            "wgsl",
            "if (rev) { lo += 1; } else { hi -= 1; }",
            "if (rev) { hi -= 1; } else { lo += 1; }",
        ),
        "axis stride of one": (
            "wgsl",
            "input[(slab * uniforms.axis_size + u32(j)) * uniforms.inner + ip]",
            "input[(slab * uniforms.axis_size) * uniforms.inner + u32(j) + ip]",
        ),
    },
)

# -- TopK, k = 4, per row, by insertion into a register array (ties keep the lower index) ----

_TOPK = """
struct Params { rows: u32, cols: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> values: array<f32>;   // (rows, K)
@group(0) @binding(2) var<storage, read_write> indices: array<i32>;  // (rows, K)
@group(0) @binding(3) var<uniform> p: Params;

const K: u32 = 4u;

@compute @workgroup_size(64)
fn topk(@builtin(global_invocation_id) gid: vec3<u32>) {
  let row = gid.x;
  if (row >= p.rows) { return; }
  var best_v: array<f32, K>;
  var best_i: array<i32, K>;
  for (var k = 0u; k < K; k++) {
    best_v[k] = -3.402823466e+38;
    best_i[k] = -1;
  }
  for (var j = 0u; j < p.cols; j++) {
    let v = x[row * p.cols + j];
    if (v > best_v[K - 1u]) {
      var pos = K - 1u;
      while (pos > 0u && v > best_v[pos - 1u]) {
        best_v[pos] = best_v[pos - 1u];
        best_i[pos] = best_i[pos - 1u];
        pos--;
      }
      best_v[pos] = v;
      best_i[pos] = i32(j);
    }
  }
  for (var k = 0u; k < K; k++) {
    values[row * K + k] = best_v[k];
    indices[row * K + k] = best_i[k];
  }
}
"""


def _half_steps(rng, count, size):
    """Scores on a grid of 1/2: rows with tied values."""
    return (rng.integers(-8, 8, count) * 0.5).astype(np.float32)


def _topk_reference(x):
    order = np.argsort(-x, axis=1, kind="stable")[:, :4]
    return np.take_along_axis(x, order, axis=1), order.astype(np.int32)


TOPK = Wild(
    KernelSpec(
        id="wild_r9_topk4_insertion_ties_low_index",
        entry_point="topk",
        sources={"wgsl": _TOPK},
        dims=("rows", "cols"),
        buffers=(
            BufferSpec(
                0,
                "f32",
                "read",
                name="x",
                count="rows*cols",
                shape=("rows", "cols"),
                fill=_half_steps,
            ),
            BufferSpec(1, "f32", "read_write", name="values", count="rows*4", shape=("rows", 4)),
            BufferSpec(2, "i32", "read_write", name="indices", count="rows*4", shape=("rows", 4)),
            BufferSpec.uniform(3, (("rows", "u32"), ("cols", "u32"))),
        ),
        reference=_topk_reference,
        params=lambda s: {"rows": s.rows, "cols": s.cols},
        grid=lambda s, size: (ceil_div(size.rows, 64), 1, 1),
        test_sizes=("rows=80,cols=37", "rows=3,cols=4"),
    ),
    {
        "ties displace the earlier": (
            "wgsl",
            "while (pos > 0u && v > best_v[pos - 1u])",
            "while (pos > 0u && v >= best_v[pos - 1u])",
        ),
        "the first place never displaced": ("wgsl", "while (pos > 0u &&", "while (pos > 1u &&"),
        "best values start at zero": ("wgsl", "best_v[k] = -3.402823466e+38;", "best_v[k] = 0.0;"),
    },
)

# -- ORT OneHot, axis -1: negative indices count from the end, out of range is all off -------

_ONEHOT = """
struct Uniforms { depth: i32, output_size: u32 }
@group(0) @binding(0) var<storage, read> indices: array<i32>;
@group(0) @binding(1) var<storage, read> values: array<f32>;  // [off_value, on_value]
@group(0) @binding(2) var<storage, read_write> output: array<f32>;
@group(0) @binding(3) var<uniform> uniforms: Uniforms;

@compute @workgroup_size(64)
fn one_hot(@builtin(global_invocation_id) gid: vec3<u32>) {
  let global_idx = gid.x;
  if (global_idx >= uniforms.output_size) { return; }
  let depth = u32(uniforms.depth);
  let j = i32(global_idx % depth);
  var idx = indices[global_idx / depth];
  if (idx < 0) { idx += uniforms.depth; }
  output[global_idx] = select(values[0], values[1], idx == j);
}
"""


def _onehot_indices(rng, count, size):
    return rng.integers(-size.D - 2, size.D + 2, count).astype(np.int32)


def _onehot_reference(indices, values, output, uniforms):
    depth = output.shape[1]
    output[:] = values[0]
    for n, i in enumerate(indices):
        if -depth <= i < depth:
            output[n, i % depth] = values[1]


ONEHOT = Wild(
    KernelSpec(
        id="wild_r9_ort_onehot_negative_indices",
        entry_point="one_hot",
        sources={"wgsl": _ONEHOT},
        dims=("N", "D"),
        buffers=(
            BufferSpec(0, "i32", "read", name="indices", count="N", fill=_onehot_indices),
            BufferSpec(1, "f32", "read", name="values", count=2),
            BufferSpec(2, "f32", "read_write", name="output", count="N*D", shape=("N", "D")),
            BufferSpec.uniform(3, (("depth", "i32"), ("output_size", "u32")), name="uniforms"),
        ),
        reference=_onehot_reference,
        params=lambda s: {"depth": s.D, "output_size": s.N * s.D},
        grid=lambda s, size: (ceil_div(size.N * size.D, 64), 1, 1),
        test_sizes=("N=50,D=11", "N=1,D=1"),
    ),
    {
        "negative indices not wrapped": ("wgsl", "  if (idx < 0) { idx += uniforms.depth; }\n", ""),
        "on and off swapped": (
            "wgsl",
            "select(values[0], values[1], idx == j)",
            "select(values[1], values[0], idx == j)",
        ),
    },
)

# -- ScatterND, reduction = add, one index per row, through atomicAdd on i32 ----------------

_SCATTER_ND = """
struct Params { num_updates: u32, row: u32, rows: u32 }
@group(0) @binding(0) var<storage, read_write> output: array<atomic<i32>>;  // data, in place
@group(0) @binding(1) var<storage, read> indices: array<i32>;
@group(0) @binding(2) var<storage, read> updates: array<i32>;
@group(0) @binding(3) var<uniform> p: Params;

@compute @workgroup_size(64)
fn scatter_nd_add(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x;
  if (i >= p.num_updates * p.row) { return; }
  let u = i / p.row;
  let d = i % p.row;
  var r = indices[u];
  if (r < 0) { r += i32(p.rows); }
  atomicAdd(&output[u32(r) * p.row + d], updates[i]);
}
"""


def _scatter_rows(rng, count, size):
    return rng.integers(-size.M, size.M, count).astype(np.int32)


def _scatter_nd_reference(output, indices, updates, params):
    rows = output.shape[0]
    np.add.at(output, np.where(indices < 0, indices + rows, indices), updates)


SCATTER_ND = Wild(
    KernelSpec(
        id="wild_r9_ort_scatternd_add_atomic_i32",
        entry_point="scatter_nd_add",
        sources={"wgsl": _SCATTER_ND},
        dims=("M", "U", "D"),
        buffers=(
            BufferSpec(
                0, "i32", "read_write", name="output", count="M*D", shape=("M", "D"), inout=True
            ),
            BufferSpec(1, "i32", "read", name="indices", count="U", fill=_scatter_rows),
            BufferSpec(2, "i32", "read", name="updates", count="U*D", shape=("U", "D")),
            BufferSpec.uniform(3, (("num_updates", "u32"), ("row", "u32"), ("rows", "u32"))),
        ),
        reference=_scatter_nd_reference,
        params=lambda s: {"num_updates": s.U, "row": s.D, "rows": s.M},
        grid=lambda s, size: (ceil_div(size.U * size.D, 64), 1, 1),
        domain={"updates": (-1000, 1000)},
        test_sizes=("M=6,U=40,D=9", "M=4,U=200,D=1", "M=1,U=1,D=1"),
    ),
    {
        "load then store: duplicates lost": (
            "wgsl",
            "atomicAdd(&output[u32(r) * p.row + d], updates[i]);",
            "let at = u32(r) * p.row + d;\n"
            "  atomicStore(&output[at], atomicLoad(&output[at]) + updates[i]);",
        ),
        "negative indices not wrapped": ("wgsl", "  if (r < 0) { r += i32(p.rows); }\n", ""),
        "row stride of the updates": (
            "wgsl",
            "&output[u32(r) * p.row + d]",
            "&output[u32(r) * p.num_updates + d]",
        ),
    },
)

# -- ORT Expand (rank 6): shapes and strides in uniform arrays of vec4<u32>, as ORT packs them

_EXPAND = """
struct Uniforms {
  output_size: u32,
  output_shape: array<vec4<u32>, 2>,
  output_strides: array<vec4<u32>, 2>,
  input_shape: array<vec4<u32>, 2>,
  input_strides: array<vec4<u32>, 2>,
}
@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
  let global_idx = global_id.x;
  if (global_idx >= uniforms.output_size) { return; }
  var remaining = global_idx;
  var input_offset = 0u;
  for (var i = 0u; i < 6u; i++) {
    let coord = remaining / uniforms.output_strides[i / 4u][i % 4u];
    remaining = remaining % uniforms.output_strides[i / 4u][i % 4u];
    let in_dim = uniforms.input_shape[i / 4u][i % 4u];
    input_offset += (coord % in_dim) * uniforms.input_strides[i / 4u][i % 4u];
  }
  output[global_idx] = input[input_offset];
}
"""


def _shape_in(s):
    return (s.A, 1, s.C, 1, 1, 2)


def _shape_out(s):
    return (s.A, s.B, s.C, 2, 3, 2)


def _packed(values):
    """Six values as ORT packs them: two vec4<u32>, the last two lanes unused."""
    return np.array([*values, 0, 0], np.uint32).reshape(2, 4)


def _strides(shape):
    return [int(np.prod(shape[k + 1 :])) for k in range(len(shape))]


def _expand_params(s):
    out, inp = _shape_out(s), _shape_in(s)
    return {
        "output_size": int(np.prod(out)),
        "output_shape": _packed(out),
        "output_strides": _packed(_strides(out)),
        "input_shape": _packed(inp),
        "input_strides": _packed(_strides(inp)),
    }


def _expand_reference(input, output, uniforms):
    shape = tuple(int(v) for v in uniforms["output_shape"].reshape(-1)[:6])
    return np.broadcast_to(input, shape).reshape(output.shape).copy()


EXPAND = Wild(
    KernelSpec(
        id="wild_r9_ort_expand_rank6_vec4_array_uniform",
        entry_point="main",
        sources={"wgsl": _EXPAND},
        dims=("A", "B", "C"),
        buffers=(
            BufferSpec(0, "f32", "read", name="input", count="A*C*2", shape=("A", 1, "C", 1, 1, 2)),
            BufferSpec(1, "f32", "read_write", name="output", count="A*B*C*12"),
            BufferSpec.uniform(
                2,
                (
                    ("output_size", "u32"),
                    ("output_shape", "array<vec4<u32>, 2>"),
                    ("output_strides", "array<vec4<u32>, 2>"),
                    ("input_shape", "array<vec4<u32>, 2>"),
                    ("input_strides", "array<vec4<u32>, 2>"),
                ),
                name="uniforms",
            ),
        ),
        reference=_expand_reference,
        params=_expand_params,
        grid=lambda s, size: (ceil_div(size.A * size.B * size.C * 12, 64), 1, 1),
        test_sizes=("A=3,B=4,C=5", "A=1,B=1,C=1"),
    ),
    {
        "broadcast axes not wrapped": (
            "wgsl",
            "input_offset += (coord % in_dim)",
            "input_offset += (coord)",
        ),
        "the second vec4 read as the first": (
            "wgsl",
            "let coord = remaining / uniforms.output_strides[i / 4u][i % 4u];\n"
            "    remaining = remaining % uniforms.output_strides[i / 4u][i % 4u];",
            "let coord = remaining / uniforms.output_strides[0][i % 4u];\n"
            "    remaining = remaining % uniforms.output_strides[0][i % 4u];",
        ),
        "rank 4 loop": ("wgsl", "for (var i = 0u; i < 6u; i++)", "for (var i = 0u; i < 4u; i++)"),
    },
)

# -- ORT Transpose: perm, output shape and input strides in vec4<u32> uniforms (NCHW->NHWC) --

_TRANSPOSE_PERM = """
struct Uniforms {
  output_size: u32,
  perm: vec4<u32>,
  output_shape: vec4<u32>,
  input_strides: vec4<u32>,
}
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;

fn perm_offset(output_index: u32) -> u32 {
  var rem = output_index;
  var offset = 0u;
  for (var d = 3; d >= 0; d--) {
    let c = rem % uniforms.output_shape[d];
    rem = rem / uniforms.output_shape[d];
    offset += c * uniforms.input_strides[uniforms.perm[d]];
  }
  return offset;
}

@compute @workgroup_size(64)
fn transpose(@builtin(global_invocation_id) gid: vec3<u32>) {
  if (gid.x >= uniforms.output_size) { return; }
  output[gid.x] = a[perm_offset(gid.x)];
}
"""

_PERM = (0, 2, 3, 1)


def _transpose_params(s):
    shape = (s.N, s.C, s.H, s.W)
    return {
        "output_size": s.N * s.C * s.H * s.W,
        "perm": list(_PERM),
        "output_shape": [shape[k] for k in _PERM],
        "input_strides": _strides(shape),
    }


def _transpose_perm_reference(a, output, uniforms):
    output[:] = np.transpose(a, tuple(uniforms["perm"]))


TRANSPOSE_PERM = Wild(
    KernelSpec(
        id="wild_r9_ort_transpose_perm_uniform",
        entry_point="transpose",
        sources={"wgsl": _TRANSPOSE_PERM},
        dims=("N", "C", "H", "W"),
        buffers=(
            BufferSpec(0, "f32", "read", name="a", count="N*C*H*W", shape=("N", "C", "H", "W")),
            BufferSpec(
                1, "f32", "read_write", name="output", count="N*C*H*W", shape=("N", "H", "W", "C")
            ),
            BufferSpec.uniform(
                2,
                (
                    ("output_size", "u32"),
                    ("perm", "vec4<u32>"),
                    ("output_shape", "vec4<u32>"),
                    ("input_strides", "vec4<u32>"),
                ),
                name="uniforms",
            ),
        ),
        reference=_transpose_perm_reference,
        params=_transpose_params,
        grid=lambda s, size: (ceil_div(size.N * size.C * size.H * size.W, 64), 1, 1),
        test_sizes=("N=2,C=3,H=5,W=7", "N=1,C=1,H=1,W=1"),
    ),
    {
        "strides not permuted": (
            "wgsl",
            "uniforms.input_strides[uniforms.perm[d]]",
            "uniforms.input_strides[d]",
        ),
        "coordinates peeled from the front": (
            "wgsl",
            "for (var d = 3; d >= 0; d--)",
            "for (var d = 0; d <= 3; d++)",
        ),
    },
)

# -- LayerNorm, one invocation per row, vec4 loads, variance as E[x^2] - E[x]^2 -------------
# (burn-wgpu / naive TF.js style: one pass for both moments). Judged against float64.

_LAYERNORM_2M = """
struct Params { rows: u32, C4: u32, epsilon: f32 }
@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> gamma: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> beta: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> y: array<vec4<f32>>;
@group(0) @binding(4) var<uniform> p: Params;

@compute @workgroup_size(64)
fn layer_norm(@builtin(global_invocation_id) gid: vec3<u32>) {
  let row = gid.x;
  if (row >= p.rows) { return; }
  let base = row * p.C4;
  var s = vec4<f32>(0.0);
  var sq = vec4<f32>(0.0);
  for (var j = 0u; j < p.C4; j++) {
    let v = x[base + j];
    s += v;
    sq += v * v;
  }
  let C = f32(p.C4 * 4u);
  let mean = dot(s, vec4<f32>(1.0)) / C;
  let variance = max(dot(sq, vec4<f32>(1.0)) / C - mean * mean, 0.0);
  let inv_std = inverseSqrt(variance + p.epsilon);
  for (var j = 0u; j < p.C4; j++) {
    y[base + j] = (x[base + j] - mean) * inv_std * gamma[j] + beta[j];
  }
}
"""


def _layernorm_2m_reference(x, gamma, beta, p):
    rows = x.shape[0]
    x64 = x.reshape(rows, -1).astype(np.float64)
    mu = x64.mean(axis=1, keepdims=True)
    var = x64.var(axis=1, keepdims=True)
    y = (x64 - mu) / np.sqrt(var + p["epsilon"]) * gamma.reshape(-1) + beta.reshape(-1)
    return y.astype(np.float32).reshape(x.shape)


LAYERNORM_2M = Wild(
    KernelSpec(
        id="wild_r9_layernorm_vec4_two_moment",
        entry_point="layer_norm",
        sources={"wgsl": _LAYERNORM_2M},
        dims=("rows", "C4"),
        buffers=(
            BufferSpec(0, "vec4<f32>", "read", name="x", count="rows*C4", shape=("rows", "C4")),
            BufferSpec(1, "vec4<f32>", "read", name="gamma", count="C4"),
            BufferSpec(2, "vec4<f32>", "read", name="beta", count="C4"),
            BufferSpec(
                3, "vec4<f32>", "read_write", name="y", count="rows*C4", shape=("rows", "C4")
            ),
            BufferSpec.uniform(4, (("rows", "u32"), ("C4", "u32"), ("epsilon", "f32"))),
        ),
        reference=_layernorm_2m_reference,
        params=lambda s: {"rows": s.rows, "C4": s.C4},
        defaults={"epsilon": 1e-5},
        grid=lambda s, size: (ceil_div(size.rows, 64), 1, 1),
        domain={"x": (-8.0, 8.0), "gamma": (-2.0, 2.0), "beta": (-2.0, 2.0)},
        test_sizes=("rows=40,C4=48", "rows=1,C4=1"),
    ),
    {
        "mean over the vec4 count": (
            "wgsl",
            "let mean = dot(s, vec4<f32>(1.0)) / C;",
            "let mean = dot(s, vec4<f32>(1.0)) / f32(p.C4);",
        ),
        "gamma and beta swapped": ("wgsl", "* gamma[j] + beta[j]", "* beta[j] + gamma[j]"),
        "epsilon after the root": (
            "wgsl",
            "inverseSqrt(variance + p.epsilon)",
            "1.0 / (sqrt(variance) + p.epsilon)",
        ),
    },
)

# -- quick GELU (CLIP's x * sigmoid(1.702 x)), vec4, as Transformers.js models run it ---------

_QUICK_GELU = """
@group(0) @binding(0) var<storage, read> input: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> output: array<vec4<f32>>;

@compute @workgroup_size(64)
fn quick_gelu(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x;
  if (i >= arrayLength(&output)) { return; }
  let x = input[i];
  output[i] = x * (1.0 / (1.0 + exp(-1.702 * x)));
}
"""


def _quick_gelu_reference(input):
    with np.errstate(over="ignore"):
        return input * (1 / (1 + np.exp(np.float32(-1.702) * input)))


QUICK_GELU = Wild(
    KernelSpec(
        id="wild_r9_quick_gelu_vec4",
        entry_point="quick_gelu",
        sources={"wgsl": _QUICK_GELU},
        buffers=(
            BufferSpec(0, "vec4<f32>", "read", name="input"),
            BufferSpec(1, "vec4<f32>", "read_write", name="output"),
        ),
        reference=_quick_gelu_reference,
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        test_sizes=(2000, 1),
    ),
    {
        "1.72 for 1.702": ("wgsl", "exp(-1.702 * x)", "exp(-1.72 * x)"),
        "sigmoid of -x": ("wgsl", "exp(-1.702 * x)", "exp(1.702 * x)"),
    },
)

# -- ORT Softmax over the last axis: a workgroup of 64 per row, rows longer than it, lane 0 --
# reducing the 64 partial maxima and sums (as ORT's JSEP shader did before subgroups).
# After microsoft/onnxruntime (MIT), js/web/lib/wasm/jsep/webgpu/ops/softmax.ts: read, not
# copied.

_SOFTMAX64 = """// kernel-forge corpus: a row softmax after ONNX Runtime Web's WebGPU Softmax
// (read, not copied). A workgroup of 64 owns a row of any length: each lane
// strides over the row, lane 0 folds the 64 partials alone, and the row's max
// and sum reach every lane through two workgroup scalars.
struct Params { rows: u32, cols: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> result: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

const WG = 64u;
var<workgroup> row_max: f32;
var<workgroup> row_sum: f32;
var<workgroup> partials: array<f32, WG>;

@compute @workgroup_size(WG, 1, 1)
fn softmax(@builtin(workgroup_id) workgroup_id: vec3<u32>,
           @builtin(local_invocation_id) local_id: vec3<u32>) {
  let lane = local_id.x;
  let n = params.cols;
  let start = workgroup_id.x * n;

  // pass 1: the row's maximum
  var lane_max = -3.402823e+38f;
  for (var col = lane; col < n; col += WG) {
    lane_max = max(lane_max, x[start + col]);
  }
  partials[lane] = lane_max;
  workgroupBarrier();
  if (lane == 0u) {
    var m = partials[0];
    for (var k = 1u; k < WG; k++) { m = max(m, partials[k]); }
    row_max = m;
  }
  workgroupBarrier();

  // pass 2: the sum of the shifted exponentials
  var lane_sum = 0.0;
  for (var col = lane; col < n; col += WG) {
    lane_sum += exp(x[start + col] - row_max);
  }
  partials[lane] = lane_sum;
  workgroupBarrier();
  if (lane == 0u) {
    var total = 0.0;
    for (var k = 0u; k < WG; k++) { total += partials[k]; }
    row_sum = total;
  }
  workgroupBarrier();

  // pass 3: normalise
  for (var col = lane; col < n; col += WG) {
    result[start + col] = exp(x[start + col] - row_max) / row_sum;
  }
}
"""


def _softmax64_reference(x, result, params):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    result[:] = e / e.sum(axis=-1, keepdims=True)


SOFTMAX64 = Wild(
    KernelSpec(
        id="wild_r9_ort_softmax_wg64_long_rows",
        entry_point="softmax",
        sources={"wgsl": _SOFTMAX64},
        dims=("rows", "cols"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="rows*cols", shape=("rows", "cols")),
            BufferSpec(
                1, "f32", "read_write", name="result", count="rows*cols", shape=("rows", "cols")
            ),
            BufferSpec.uniform(2, (("rows", "u32"), ("cols", "u32"))),
        ),
        reference=_softmax64_reference,
        params=lambda s: {"rows": s.rows, "cols": s.cols},
        grid=lambda s, size: (size.rows, 1, 1),
        schedules=(Schedule(64),),
        domain={"x": (-30.0, 30.0)},
        test_sizes=("rows=6,cols=333", "rows=1,cols=1"),
    ),
    {
        "sum misses the last lane": (
            "wgsl",
            "for (var k = 0u; k < WG; k++) { total",
            "for (var k = 0u; k < WG - 1u; k++) { total",
        ),
        "threads stride by half the workgroup": (
            "wgsl",
            "col += WG) {\n    lane_sum",
            "col += WG / 2u) {\n    lane_sum",
        ),
        "output not shifted by the maximum": (
            "wgsl",
            "result[start + col] = exp(x[start + col] - row_max) / row_sum;",
            "result[start + col] = exp(x[start + col]) / row_sum;",
        ),
    },
)

# -- causal self-attention, one head, 1/sqrt(d) in the uniform (WebLLM's naive fallback) ----

_ATTENTION = """
struct Params { T: u32, D: u32, scale: f32 }
@group(0) @binding(0) var<storage, read> q: array<f32>;
@group(0) @binding(1) var<storage, read> k: array<f32>;
@group(0) @binding(2) var<storage, read> v: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

fn score(t: u32, j: u32) -> f32 {
  var s = 0.0;
  for (var d = 0u; d < p.D; d++) { s += q[t * p.D + d] * k[j * p.D + d]; }
  return s * p.scale;
}

@compute @workgroup_size(8, 8)
fn causal_attention(@builtin(global_invocation_id) gid: vec3<u32>) {
  let d = gid.x;
  let t = gid.y;
  if (d >= p.D || t >= p.T) { return; }
  var m = -3.402823e+38f;
  for (var j = 0u; j <= t; j++) { m = max(m, score(t, j)); }
  var denom = 0.0;
  var acc = 0.0;
  for (var j = 0u; j <= t; j++) {
    let w = exp(score(t, j) - m);
    denom += w;
    acc += w * v[j * p.D + d];
  }
  out[t * p.D + d] = acc / denom;
}
"""


def _attention_reference(q, k, v, p):
    T = q.shape[0]
    s = np.einsum("td,sd->ts", q.astype(np.float64), k) * p["scale"]
    s[np.triu_indices(T, 1)] = -np.inf
    w = np.exp(s - s.max(axis=1, keepdims=True))
    return ((w / w.sum(axis=1, keepdims=True)) @ v).astype(np.float32)


ATTENTION = Wild(
    KernelSpec(
        id="wild_r9_causal_attention_scale_uniform",
        entry_point="causal_attention",
        sources={"wgsl": _ATTENTION},
        dims=("T", "D"),
        buffers=(
            BufferSpec(0, "f32", "read", name="q", count="T*D", shape=("T", "D")),
            BufferSpec(1, "f32", "read", name="k", count="T*D", shape=("T", "D")),
            BufferSpec(2, "f32", "read", name="v", count="T*D", shape=("T", "D")),
            BufferSpec(3, "f32", "read_write", name="out", count="T*D", shape=("T", "D")),
            BufferSpec.uniform(4, (("T", "u32"), ("D", "u32"), ("scale", "f32"))),
        ),
        reference=_attention_reference,
        params=lambda s: {"T": s.T, "D": s.D, "scale": float(1 / np.sqrt(s.D))},
        grid=lambda s, size: (ceil_div(size.D, 8), ceil_div(size.T, 8), 1),
        schedules=(Schedule((8, 8)),),
        domain={"q": (-2.0, 2.0), "k": (-2.0, 2.0), "v": (-2.0, 2.0)},
        test_sizes=("T=37,D=16", "T=1,D=1"),
    ),
    {
        "mask lets the next key in": (
            "wgsl",
            "  for (var j = 0u; j <= t; j++) {\n    let w",
            "  for (var j = 0u; j <= min(t + 1u, p.T - 1u); j++) {\n    let w",
        ),
        "values of the query row": (
            "wgsl",
            "acc += w * v[j * p.D + d];",
            "acc += w * v[t * p.D + d];",
        ),
        "scale divides": ("wgsl", "return s * p.scale;", "return s / p.scale;"),
    },
)

# -- int8 weights times f32 activations, a f16 scale per 32 weights read through
# unpack2x16float (two scales to a u32), unpack4xI8 for the weights (a GGUF Q8_0-like GEMM)

_DEQUANT_MATMUL = """
struct Params { M: u32, N: u32, K: u32 }
@group(0) @binding(0) var<storage, read> a: array<f32>;        // (M, K)
@group(0) @binding(1) var<storage, read> b_q: array<u32>;      // (N, K) int8, four to a word
@group(0) @binding(2) var<storage, read> scales: array<u32>;   // (N, K / 32) f16, two to a word
@group(0) @binding(3) var<storage, read_write> c: array<f32>;  // (M, N)
@group(0) @binding(4) var<uniform> p: Params;

const BLOCK: u32 = 32u;

@compute @workgroup_size(8, 8, 1)
fn dequant_matmul(@builtin(global_invocation_id) gid: vec3<u32>) {
  let n = gid.x;
  let m = gid.y;
  if (m >= p.M || n >= p.N) { return; }
  let blocks = p.K / BLOCK;
  var acc = 0.0;
  for (var blk = 0u; blk < blocks; blk++) {
    let si = n * blocks + blk;
    let scale = unpack2x16float(scales[si / 2u])[si % 2u];
    var part = 0.0;
    for (var w = 0u; w < BLOCK / 4u; w++) {
      let kk = blk * BLOCK + w * 4u;
      let qw = vec4<f32>(unpack4xI8(b_q[(n * p.K + kk) / 4u]));
      let av = vec4<f32>(a[m * p.K + kk], a[m * p.K + kk + 1u], a[m * p.K + kk + 2u],
                         a[m * p.K + kk + 3u]);
      part += dot(qw, av);
    }
    acc += scale * part;
  }
  c[m * p.N + n] = acc;
}
"""


def _int8_words(rng, count, size):
    return rng.integers(0, 2**32, count, dtype=np.uint64).astype(np.uint32)


def _f16_scales(rng, count, size):
    return rng.uniform(0.001, 0.05, 2 * count).astype(np.float16).view(np.uint32)


def _dequant_matmul_reference(a, b_q, scales, c, p):
    N, K = c.shape[1], a.shape[1]
    q = b_q.view(np.int8).reshape(N, K).astype(np.float64)
    s = scales.view(np.float16)[: N * K // 32].reshape(N, K // 32).astype(np.float64)
    w = (q.reshape(N, -1, 32) * s[:, :, None]).reshape(N, K)
    c[:] = a.astype(np.float64) @ w.T


DEQUANT_MATMUL = Wild(
    KernelSpec(
        id="wild_r9_dequant_matmul_f16_scales_unpack2x16float",
        entry_point="dequant_matmul",
        sources={"wgsl": _DEQUANT_MATMUL},
        dims=("M", "N", "K"),
        buffers=(
            BufferSpec(0, "f32", "read", name="a", count="M*K", shape=("M", "K")),
            BufferSpec(1, "u32", "read", name="b_q", count="N*K//4", fill=_int8_words),
            BufferSpec(2, "u32", "read", name="scales", count="(N*K//32+1)//2", fill=_f16_scales),
            BufferSpec(3, "f32", "read_write", name="c", count="M*N", shape=("M", "N")),
            BufferSpec.uniform(4, (("M", "u32"), ("N", "u32"), ("K", "u32"))),
        ),
        reference=_dequant_matmul_reference,
        params=lambda s: {"M": s.M, "N": s.N, "K": s.K},
        grid=lambda s, size: (ceil_div(size.N, 8), ceil_div(size.M, 8), 1),
        schedules=(Schedule((8, 8, 1)),),
        domain={"a": (-4.0, 4.0)},
        test_sizes=("M=5,N=13,K=96", "M=1,N=1,K=32"),
    ),
    {
        "the other half of the word": (
            "wgsl",
            "unpack2x16float(scales[si / 2u])[si % 2u]",
            "unpack2x16float(scales[si / 2u])[1u - si % 2u]",
        ),
        "int8 read unsigned": ("wgsl", "unpack4xI8(", "unpack4xU8("),
        "a scale per 16": ("wgsl", "const BLOCK: u32 = 32u;", "const BLOCK: u32 = 16u;"),
    },
)

ROUND9 = {
    w.kernel.id: w
    for w in (
        BATCHNORM,
        INSTANCE_NORM,
        DEPTHWISE,
        CONV_T,
        RESIZE_BILINEAR,
        GRID_SAMPLE,
        AVGPOOL,
        GAP,
        REDUCE_INNER,
        CUMSUM,
        TOPK,
        ONEHOT,
        SCATTER_ND,
        EXPAND,
        TRANSPOSE_PERM,
        LAYERNORM_2M,
        QUICK_GELU,
        SOFTMAX64,
        ATTENTION,
        DEQUANT_MATMUL,
    )
}

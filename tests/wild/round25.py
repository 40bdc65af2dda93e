"""Round 25 of kernels from the wild, merged into ``tests.wild.CORPUS``: WGSL as web ML
runtimes (TensorFlow.js, ONNX Runtime Web, WebLLM's TVM output) and WebGPU demos write
it, each judged against the op as its library defines it.

- TensorFlow.js's depthwise conv2d (``DepthwiseConv2DProgram``) on NHWC with padding
  "SAME" and stride 2, channel multiplier 2: TF's split of the padding (the odd one at
  the bottom and right, so 16 rows pad 0 on top and 17 pad 1), a fast path taken when
  the window lies inside the image, and i32 uniforms as TF.js emits them.
- PyTorch's ``max_pool2d(3, stride=2, padding=1, dilation=2, ceil_mode=True)``: ATen's
  output size (the last window must start inside the input or the left padding), the
  window clipped at the bottom and right edges, started at -FLT_MAX.
- ONNX GatherElements on axis 1 with negative indices wrapped by the axis size, in
  ONNX Runtime Web's shape (offset to indices through ``vec3<u32>`` strides in a
  uniform), the indices' axis longer than the data's at one size.
- ONNX Where with three inputs of ranks 3, 2 and 1 broadcast together (ORT Web's
  ``broadcastIndicesToOffset`` by ``%``), the bool condition as bytes read out of
  u32 words, four outputs a ``vec4<f32>`` per invocation.
- Rotary embedding with Llama 3.1's frequency scaling (transformers' rope_type
  "llama3": factor 8, low 1, high 4, 8192 original positions, base 500000), the
  frequencies and cos/sin computed in the kernel, GPT-NeoX halves, positions from an
  offset as a decode step has them.
- AWQ's int4 GEMV: eight nibbles a u32 in AWQ's interleaved order (columns [0, 2, 4,
  6, 1, 3, 5, 7]), packed zero points in the same order, one f32 scale per group of
  128 along K; the reference unpacks as AutoAWQ's ``unpack_awq`` and
  ``reverse_awq_order`` do.
- Blelloch's work-efficient exclusive scan (GPU Gems 3, ch. 39) of up to 512 floats in
  one workgroup, ``arrayLength`` bounding the loads and stores.
- Marching squares' case index (corners clockwise from top-left as bits 8, 4, 2, 1,
  "above" the iso level), on a field drawn in quarter steps so that corners sit on the
  iso level.
- MLC-LLM's ``apply_penalty_inplace`` as TVM emits it for WebLLM (``PODArgs``,
  ``blockIdx``/``threadIdx`` names, ``v__2`` temporaries): presence and frequency
  subtracted, then the repetition penalty multiplying a negative logit and dividing a
  positive one, rows through ``seq_ids``.
- TensorFlow's local response normalization as TF.js writes it (``pow(bias + alpha *
  sum, -beta)`` over a depth window of radius 2), with AlexNet's alpha 2e-5: TF does
  not divide alpha by the window, ONNX and PyTorch do.
- ONNX Pad in "reflect" mode on H and W as ORT Web's snippet writes it (fold by ``%``
  over the period 2(n - 1)), four different pads.

What they showed (lavapipe and SwiftShader, 2026-12-05):

- Every original passed on reference, wgpu and browser, and every mutant failed on
  both adapters but one: a dropped barrier in the scan's down-sweep. Each level there
  reads only pairs written by lower invocations, and both CPU adapters run a
  workgroup's invocations in order between barriers, so the values are right on both
  (``invisible_on``); the up-sweep's dropped barrier, whose reads reach higher
  invocations, fails on both.
- The max pool's -inf start was first written ``bitcast<f32>(0xff800000u)``: wgpu
  (naga) compiled and passed it, Chromium's Tint refused it ("value -inf cannot be
  represented as 'f32'"), as WGSL says of a const-expression f32 cannot hold. The port
  now starts at -FLT_MAX (its inputs are finite). Fixed: wgpu refuses such a
  const-expression too, naming it (tests/test_wild_round25.py).
- A -1e5 sentinel for -inf passes at the two smaller sizes and fails at the largest,
  whose edge-case inputs hold windows below -1e5: the harness runs the sizes in turn.
- RoPE at positions near 100000 (angles of 1e5 radians) passes on lavapipe, judged with
  sin and cos's 2**-11 bound carried through, though WGSL bounds their error only on
  [-pi, pi]; an adapter with a looser range reduction there could fail it. Not seen
  here; the corpus keeps positions below 1200.
"""

# ruff: noqa: E501  (the WGSL keeps its projects' long lines, TVM's above all)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, KernelSpec, Schedule, ceil_div

from . import Wild

# -- TF.js depthwise conv2d, NHWC, padding "SAME", stride 2, channel multiplier 2 -----------

_DW_WGSL = """
struct Uniforms {
  padTop: i32, padLeft: i32, strideH: i32, strideW: i32,
  dilationH: i32, dilationW: i32, filterHeight: i32, filterWidth: i32,
  inH: i32, inW: i32, inChannels: i32, channelMul: i32,
  outH: i32, outW: i32, outC: i32, size: i32,
}
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> W: array<f32>;
@group(0) @binding(2) var<storage, read_write> result: array<f32>;
@group(0) @binding(3) var<uniform> uniforms: Uniforms;

fn getX(batch: i32, row: i32, col: i32, chan: i32) -> f32 {
  return x[((batch * uniforms.inH + row) * uniforms.inW + col) * uniforms.inChannels + chan];
}

fn getW(row: i32, col: i32, d1: i32, q: i32) -> f32 {
  return W[((row * uniforms.filterWidth + col) * uniforms.inChannels + d1) * uniforms.channelMul + q];
}

fn getOutputCoords(index: i32) -> vec4<i32> {
  var rem = index;
  let d0 = rem / (uniforms.outH * uniforms.outW * uniforms.outC);
  rem = rem - d0 * (uniforms.outH * uniforms.outW * uniforms.outC);
  let d1 = rem / (uniforms.outW * uniforms.outC);
  rem = rem - d1 * (uniforms.outW * uniforms.outC);
  let d2 = rem / uniforms.outC;
  let d3 = rem - d2 * uniforms.outC;
  return vec4<i32>(d0, d1, d2, d3);
}

@compute @workgroup_size(64, 1, 1)
fn _start(@builtin(global_invocation_id) globalId: vec3<u32>) {
  let index = i32(globalId.x);
  if (index >= uniforms.size) { return; }
  let coords = getOutputCoords(index);
  let batch = coords[0];
  let xRCCorner = vec2<i32>(coords.y * uniforms.strideH, coords.z * uniforms.strideW) - vec2<i32>(uniforms.padTop, uniforms.padLeft);
  let d2 = coords[3];
  let channelMul = uniforms.channelMul;
  let d1 = d2 / channelMul;
  let q = d2 % channelMul;

  let inputRowStart = xRCCorner.x;
  let inputColStart = xRCCorner.y;
  let inputRowEnd = inputRowStart + uniforms.filterHeight * uniforms.dilationH;
  let inputColEnd = inputColStart + uniforms.filterWidth * uniforms.dilationW;

  var value = 0.0;
  // Extract if checking out of for loop for performance.
  if (inputRowStart >= 0 && inputColStart >= 0 && inputRowEnd < uniforms.inH && inputColEnd < uniforms.inW) {
    for (var wR = 0; wR < uniforms.filterHeight; wR = wR + 1) {
      let xR = inputRowStart + wR * uniforms.dilationH;
      for (var wC = 0; wC < uniforms.filterWidth; wC = wC + 1) {
        let xC = inputColStart + wC * uniforms.dilationW;
        let xVal = getX(batch, xR, xC, d1);
        let wVal = getW(wR, wC, d1, q);
        value += xVal * wVal;
      }
    }
  } else {
    for (var wR = 0; wR < uniforms.filterHeight; wR = wR + 1) {
      let xR = inputRowStart + wR * uniforms.dilationH;
      if (xR < 0 || xR >= uniforms.inH) { continue; }
      for (var wC = 0; wC < uniforms.filterWidth; wC = wC + 1) {
        let xC = inputColStart + wC * uniforms.dilationW;
        if (xC < 0 || xC >= uniforms.inW) { continue; }
        let xVal = getX(batch, xR, xC, d1);
        let wVal = getW(wR, wC, d1, q);
        value += xVal * wVal;
      }
    }
  }
  result[index] = value;
}
"""

_DW_MUL, _DW_K, _DW_S = 2, 3, 2


def _same_pads(n, k, s):
    """TF's padding="SAME": out = ceil(n / s), the total padding split with the odd
    one at the end (bottom, right)."""
    out = -(-n // s)
    total = max((out - 1) * s + k - n, 0)
    return out, total // 2, total - total // 2


def _dw_params(size):
    oh, top, _ = _same_pads(size.H, _DW_K, _DW_S)
    ow, left, _ = _same_pads(size.W, _DW_K, _DW_S)
    oc = size.C * _DW_MUL
    return {
        "padTop": top, "padLeft": left, "strideH": _DW_S, "strideW": _DW_S,
        "dilationH": 1, "dilationW": 1, "filterHeight": _DW_K, "filterWidth": _DW_K,
        "inH": size.H, "inW": size.W, "inChannels": size.C, "channelMul": _DW_MUL,
        "outH": oh, "outW": ow, "outC": oc, "size": size.N * oh * ow * oc,
    }  # fmt: skip


def _dw_out_count(size):
    return size.N * ceil_div(size.H, _DW_S) * ceil_div(size.W, _DW_S) * size.C * _DW_MUL


def _dw_reference(x, W, result, uniforms):
    # tf.nn.depthwise_conv2d(x, W, strides=[1, 2, 2, 1], padding="SAME"): output channel
    # c * multiplier + q of input channel c and filter W[:, :, c, q]
    n, h, w, c = x.shape
    k = W.shape[0]
    oh, top, bottom = _same_pads(h, k, _DW_S)
    ow, left, right = _same_pads(w, k, _DW_S)
    xp = np.pad(x.astype(np.float64), ((0, 0), (top, bottom), (left, right), (0, 0)))
    out = np.zeros((n, oh, ow, c, _DW_MUL))
    for i in range(k):
        for j in range(k):
            patch = xp[:, i : i + _DW_S * oh : _DW_S, j : j + _DW_S * ow : _DW_S, :]
            out += patch[..., None] * W[i, j].astype(np.float64)[None, None, None]
    return out.reshape(-1).astype(np.float32)


_DW_FIELDS = tuple(
    (f, "i32")
    for f in (
        "padTop padLeft strideH strideW dilationH dilationW filterHeight filterWidth "
        "inH inW inChannels channelMul outH outW outC size"
    ).split()
)

TFJS_DEPTHWISE_SAME = Wild(
    KernelSpec(
        id="wild_r25_tfjs_depthwise_conv2d_same_stride2_nhwc",
        entry_point="_start",
        sources={"wgsl": _DW_WGSL},
        dims=("N", "H", "W", "C"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="N*H*W*C", shape=("N", "H", "W", "C")),
            BufferSpec(1, "f32", "read", name="W", count="9*C*2", shape=(3, 3, "C", 2)),
            BufferSpec(2, "f32", "read_write", name="result", count=_dw_out_count),
            BufferSpec.uniform(3, _DW_FIELDS, name="uniforms"),
        ),
        reference=_dw_reference,
        params=_dw_params,
        grid=lambda s, size: (ceil_div(_dw_out_count(size), 64), 1, 1),
        schedules=(Schedule(64),),
        test_sizes=("N=2,H=17,W=13,C=8", "N=1,H=16,W=16,C=3", "N=1,H=1,W=2,C=1"),
    ),
    {
        "fast path taken at the top-left padding": (
            "wgsl",
            "if (inputRowStart >= 0 && inputColStart >= 0 && inputRowEnd",
            "if (inputRowEnd",
        ),
        "input channel d2 % channelMul": (
            "wgsl",
            "let d1 = d2 / channelMul;\n  let q = d2 % channelMul;",
            "let d1 = d2 % channelMul;\n  let q = d2 / channelMul;",
        ),
        "padding added to the corner": (
            "wgsl",
            "- vec2<i32>(uniforms.padTop, uniforms.padLeft)",
            "+ vec2<i32>(uniforms.padTop, uniforms.padLeft)",
        ),
        "filter read [wR][wC][q][d1]": (
            "wgsl",
            "* uniforms.inChannels + d1) * uniforms.channelMul + q]",
            "* uniforms.channelMul + q) * uniforms.inChannels + d1]",
        ),
        "bottom edge bound inclusive": (
            "wgsl",
            "if (xR < 0 || xR >= uniforms.inH)",
            "if (xR < 0 || xR > uniforms.inH)",
        ),
    },
)

# -- torch max_pool2d(kernel 3, stride 2, padding 1, dilation 2, ceil_mode=True) ------------

_MAXPOOL_WGSL = """
struct PoolParams {
  H: u32, W: u32, OH: u32, OW: u32,
  kernel: i32, stride: i32, pad: i32, dilation: i32,
}
@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;
@group(0) @binding(2) var<uniform> params: PoolParams;

@compute @workgroup_size(8, 8, 1)
fn max_pool2d(@builtin(global_invocation_id) gid: vec3<u32>) {
  let ow = gid.x;
  let oh = gid.y;
  let plane = gid.z;  // n * C + c
  if (ow >= params.OW || oh >= params.OH) { return; }
  let hstart = i32(oh) * params.stride - params.pad;
  let wstart = i32(ow) * params.stride - params.pad;
  let base = plane * params.H * params.W;
  var maxval = -3.402823466e+38;  // -FLT_MAX: WGSL has no -inf constant
  for (var kh = 0; kh < params.kernel; kh++) {
    let h = hstart + kh * params.dilation;
    if (h < 0 || h >= i32(params.H)) { continue; }
    for (var kw = 0; kw < params.kernel; kw++) {
      let w = wstart + kw * params.dilation;
      if (w < 0 || w >= i32(params.W)) { continue; }
      let val = input[base + u32(h) * params.W + u32(w)];
      if (val > maxval) { maxval = val; }
    }
  }
  output[(plane * params.OH + oh) * params.OW + ow] = maxval;
}
"""

_MP_K, _MP_S, _MP_P, _MP_D = 3, 2, 1, 2


def _pool_out(n, k=_MP_K, s=_MP_S, p=_MP_P, d=_MP_D):
    """ATen's pooling_output_shape with ceil_mode=True: the last window must start
    inside the input or the left padding."""
    out = (n + 2 * p - d * (k - 1) - 1 + (s - 1)) // s + 1
    if (out - 1) * s >= n + p:
        out -= 1
    return out


def _maxpool_params(size):
    return {
        "H": size.H, "W": size.W, "OH": _pool_out(size.H), "OW": _pool_out(size.W),
        "kernel": _MP_K, "stride": _MP_S, "pad": _MP_P, "dilation": _MP_D,
    }  # fmt: skip


def _maxpool_reference(input, output, params):
    # F.max_pool2d(x, 3, stride=2, padding=1, dilation=2, ceil_mode=True): padding is
    # -inf, and a window running past the bottom or right edge is clipped
    nc, h, w = input.shape
    oh, ow = _pool_out(h), _pool_out(w)
    span = _MP_D * (_MP_K - 1) + 1
    ph = max((oh - 1) * _MP_S + span - h - _MP_P, 0)
    pw = max((ow - 1) * _MP_S + span - w - _MP_P, 0)
    xp = np.pad(input, ((0, 0), (_MP_P, ph), (_MP_P, pw)), constant_values=-np.inf)
    out = np.full((nc, oh, ow), -np.inf, dtype=np.float32)
    for i in range(_MP_K):
        for j in range(_MP_K):
            a, b = i * _MP_D, j * _MP_D
            out = np.maximum(out, xp[:, a : a + _MP_S * oh : _MP_S, b : b + _MP_S * ow : _MP_S])
    return out.reshape(-1)


def _maxpool_count(size):
    return size.NC * _pool_out(size.H) * _pool_out(size.W)


TORCH_MAXPOOL_CEIL = Wild(
    KernelSpec(
        id="wild_r25_torch_max_pool2d_ceil_mode_dilation2",
        entry_point="max_pool2d",
        sources={"wgsl": _MAXPOOL_WGSL},
        dims=("NC", "H", "W"),
        buffers=(
            BufferSpec(0, "f32", "read", name="input", count="NC*H*W", shape=("NC", "H", "W")),
            BufferSpec(1, "f32", "read_write", name="output", count=_maxpool_count),
            BufferSpec.uniform(
                2,
                tuple((f, "u32") for f in ("H", "W", "OH", "OW"))
                + tuple((f, "i32") for f in ("kernel", "stride", "pad", "dilation")),
            ),
        ),
        reference=_maxpool_reference,
        params=_maxpool_params,
        grid=lambda s, size: (
            ceil_div(_pool_out(size.W), 8),
            ceil_div(_pool_out(size.H), 8),
            size.NC,
        ),
        schedules=(Schedule((8, 8, 1)),),
        nonfinite_inputs=False,  # ATen's `val > maxval || isnan(val)`; this port has no NaN arm
        test_sizes=("NC=6,H=17,W=10", "NC=1,H=3,W=5", "NC=3,H=32,W=33"),
    ),
    {
        "starts from 0 (a ReLU net's habit)": (
            "wgsl",
            "var maxval = -3.402823466e+38;",
            "var maxval = 0.0;",
        ),
        "a -1e5 sentinel for -inf": (
            "wgsl",
            "var maxval = -3.402823466e+38;",
            "var maxval = -1e5;",
        ),
        "dilation ignored": (
            "wgsl",
            "let h = hstart + kh * params.dilation;",
            "let h = hstart + kh;",
        ),
        "right edge not clipped": (
            "wgsl",
            "if (w < 0 || w >= i32(params.W))",
            "if (w < 0 || w > i32(params.W))",
        ),
        "window not shifted by the padding": (
            "wgsl",
            "let wstart = i32(ow) * params.stride - params.pad;",
            "let wstart = i32(ow) * params.stride;",
        ),
    },
)

# -- ONNX GatherElements, axis 1, negative indices (ONNX Runtime Web) -----------------------

_GATHER_EL_WGSL = """
struct Uniforms {
  output_size: u32,
  axisDimLimit: i32,
  input_shape: vec3<u32>,
  input_strides: vec3<u32>,
  output_shape: vec3<u32>,
  output_strides: vec3<u32>,
};
@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read> indices_data: array<i32>;
@group(0) @binding(2) var<storage, read_write> output: array<f32>;
@group(0) @binding(3) var<uniform> uniforms: Uniforms;

fn o2i_output(offset: u32) -> vec3<u32> {
  var indices: vec3<u32>;
  var current = offset;
  let q0 = current / uniforms.output_strides[0];
  let r0 = current % uniforms.output_strides[0];
  indices[0] = q0;
  current = r0;
  let q1 = current / uniforms.output_strides[1];
  let r1 = current % uniforms.output_strides[1];
  indices[1] = q1;
  current = r1;
  indices[2] = current;
  return indices;
}

fn i2o_input(indices: vec3<u32>) -> u32 {
  return uniforms.input_strides[0] * indices[0] + uniforms.input_strides[1] * indices[1] + indices[2];
}

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
  let global_idx = global_id.x;
  if (global_idx >= uniforms.output_size) { return; }

  let output_indices = o2i_output(global_idx);

  var idx = indices_data[global_idx];
  if (idx < 0) {
    idx = idx + uniforms.axisDimLimit;
  }
  var input_indices = vec3<u32>(output_indices);
  input_indices[1] = u32(idx);
  let value = input[i2o_input(input_indices)];
  output[global_idx] = value;
}
"""


def _gather_el_indices(rng, count, size):
    return rng.integers(-size.B, size.B, count, dtype=np.int32)


def _gather_el_params(size):
    return {
        "output_size": size.A * size.I * size.C,
        "axisDimLimit": size.B,
        "input_shape": (size.A, size.B, size.C),
        "input_strides": (size.B * size.C, size.C, 1),
        "output_shape": (size.A, size.I, size.C),
        "output_strides": (size.I * size.C, size.C, 1),
    }


def _gather_el_reference(input, indices_data, output, uniforms):
    # onnx.reference's GatherElements: np.take_along_axis after wrapping negatives
    b = input.shape[1]
    idx = np.where(indices_data < 0, indices_data + b, indices_data)
    return np.take_along_axis(input, idx.astype(np.int64), axis=1)


ORT_GATHER_ELEMENTS = Wild(
    KernelSpec(
        id="wild_r25_ort_gather_elements_axis1_negative",
        entry_point="main",
        sources={"wgsl": _GATHER_EL_WGSL},
        dims=("A", "B", "I", "C"),
        buffers=(
            BufferSpec(0, "f32", "read", name="input", count="A*B*C", shape=("A", "B", "C")),
            BufferSpec(
                1,
                "i32",
                "read",
                name="indices_data",
                count="A*I*C",
                shape=("A", "I", "C"),
                fill=_gather_el_indices,
            ),
            BufferSpec(2, "f32", "read_write", name="output", count="A*I*C", shape=("A", "I", "C")),
            BufferSpec.uniform(
                3,
                (
                    ("output_size", "u32"),
                    ("axisDimLimit", "i32"),
                    ("input_shape", "vec3<u32>"),
                    ("input_strides", "vec3<u32>"),
                    ("output_shape", "vec3<u32>"),
                    ("output_strides", "vec3<u32>"),
                ),
                name="uniforms",
            ),
        ),
        reference=_gather_el_reference,
        params=_gather_el_params,
        grid=lambda s, size: (ceil_div(size.A * size.I * size.C, 64), 1, 1),
        schedules=(Schedule(64),),
        test_sizes=("A=3,B=7,I=5,C=11", "A=1,B=1,I=1,C=1", "A=4,B=33,I=40,C=16"),
    ),
    {
        "negative indices not wrapped": (
            "wgsl",
            "if (idx < 0) {\n    idx = idx + uniforms.axisDimLimit;\n  }",
            "",
        ),
        "wrapped by the output's axis size": (
            "wgsl",
            "idx = idx + uniforms.axisDimLimit;",
            "idx = idx + i32(uniforms.output_shape[1]);",
        ),
        "input offset with the output's strides": (
            "wgsl",
            "return uniforms.input_strides[0] * indices[0] + uniforms.input_strides[1]",
            "return uniforms.output_strides[0] * indices[0] + uniforms.output_strides[1]",
        ),
        "Gather's semantics (index picks the row of axis 0)": (
            "wgsl",
            "input_indices[1] = u32(idx);",
            "input_indices[0] = u32(idx) % uniforms.input_shape[0];",
        ),
    },
)

# -- ONNX Where, three inputs broadcast from ranks 3, 2 and 1 (ONNX Runtime Web) --------------

_WHERE_BC_WGSL = """
struct Uniforms { vec_size: u32, output_shape: vec3<u32>, a_shape: vec2<u32>, b_shape: u32, c_shape: vec3<u32> };
@group(0) @binding(0) var<storage, read> c_data: array<u32>;
@group(0) @binding(1) var<storage, read> a_data: array<f32>;
@group(0) @binding(2) var<storage, read> b_data: array<f32>;
@group(0) @binding(3) var<storage, read_write> output_data: array<vec4<f32>>;
@group(0) @binding(4) var<uniform> uniforms: Uniforms;

fn o2i_output(offset: u32) -> vec3<u32> {
  let s2 = uniforms.output_shape[2];
  let s12 = uniforms.output_shape[1] * s2;
  return vec3<u32>(offset / s12, (offset % s12) / s2, offset % s2);
}

// a: rank 2 [D1, 1], aligned with the output's last two dims
fn broadcastIndicesToOffsetA(outputIndices: vec3<u32>) -> u32 {
  let i0 = outputIndices[1] % uniforms.a_shape[0];
  let i1 = outputIndices[2] % uniforms.a_shape[1];
  return i0 * uniforms.a_shape[1] + i1;
}

// b: rank 1 [D2]
fn broadcastIndicesToOffsetB(outputIndices: vec3<u32>) -> u32 {
  return outputIndices[2] % uniforms.b_shape;
}

// c: rank 3 [D0, 1, D2]
fn broadcastIndicesToOffsetC(outputIndices: vec3<u32>) -> u32 {
  let i0 = outputIndices[0] % uniforms.c_shape[0];
  let i1 = outputIndices[1] % uniforms.c_shape[1];
  let i2 = outputIndices[2] % uniforms.c_shape[2];
  return (i0 * uniforms.c_shape[1] + i1) * uniforms.c_shape[2] + i2;
}

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
  let global_idx = global_id.x;
  if (global_idx >= uniforms.vec_size) { return; }
  var output_vec: vec4<f32>;
  for (var x = 0u; x < 4u; x++) {
    let output_indices = o2i_output(global_idx * 4u + x);
    let offset_a = broadcastIndicesToOffsetA(output_indices);
    let offset_b = broadcastIndicesToOffsetB(output_indices);
    let offset_c = broadcastIndicesToOffsetC(output_indices);
    let index_c = offset_c / 4u;
    let component_c = offset_c % 4u;
    let cond = bool(c_data[index_c] & (0xffu << (component_c * 8u)));
    output_vec[x] = select(b_data[offset_b], a_data[offset_a], cond);
  }
  output_data[global_idx] = output_vec;
}
"""


def _where_bc_params(size):
    return {
        "vec_size": size.D0 * size.D1 * size.D2 // 4,
        "output_shape": (size.D0, size.D1, size.D2),
        "a_shape": (size.D1, 1),
        "b_shape": size.D2,
        "c_shape": (size.D0, 1, size.D2),
    }


def _where_bc_reference(c_data, a_data, b_data, output_data, uniforms):
    # numpy broadcasting is ONNX's multidirectional broadcasting
    return np.where(c_data != 0, a_data, b_data).reshape(-1)


def _bools(rng, count, size):
    return rng.integers(0, 2, count, dtype=np.uint8)


ORT_WHERE_BROADCAST = Wild(
    KernelSpec(
        id="wild_r25_ort_where_broadcast_ranks_3_2_1",
        entry_point="main",
        sources={"wgsl": _WHERE_BC_WGSL},
        dims=("D0", "D1", "D2"),
        buffers=(
            BufferSpec(
                0, "u8", "read", name="c_data", count="D0*D2", shape=("D0", 1, "D2"), fill=_bools
            ),
            BufferSpec(1, "f32", "read", name="a_data", count="D1", shape=("D1", 1)),
            BufferSpec(2, "f32", "read", name="b_data", count="D2", shape=("D2",)),
            BufferSpec(3, "f32", "read_write", name="output_data", count="D0*D1*D2"),
            BufferSpec.uniform(
                4,
                (
                    ("vec_size", "u32"),
                    ("output_shape", "vec3<u32>"),
                    ("a_shape", "vec2<u32>"),
                    ("b_shape", "u32"),
                    ("c_shape", "vec3<u32>"),
                ),
                name="uniforms",
            ),
        ),
        reference=_where_bc_reference,
        params=_where_bc_params,
        grid=lambda s, size: (ceil_div(size.D0 * size.D1 * size.D2 // 4, 64), 1, 1),
        schedules=(Schedule(64),),
        test_sizes=("D0=3,D1=5,D2=8", "D0=1,D1=1,D2=4", "D0=7,D1=33,D2=12"),
    ),
    {
        "operands swapped": (
            "wgsl",
            "select(b_data[offset_b], a_data[offset_a], cond)",
            "select(a_data[offset_a], b_data[offset_b], cond)",
        ),
        "a aligned left (with dims 0 and 1)": (
            "wgsl",
            "let i0 = outputIndices[1] % uniforms.a_shape[0];\n  let i1 = outputIndices[2]",
            "let i0 = outputIndices[0] % uniforms.a_shape[0];\n  let i1 = outputIndices[1]",
        ),
        "broadcast dim of c not reduced": (
            "wgsl",
            "let i1 = outputIndices[1] % uniforms.c_shape[1];",
            "let i1 = outputIndices[1];",
        ),
        "condition byte shifted by bits": (
            "wgsl",
            "(0xffu << (component_c * 8u))",
            "(0xffu << component_c)",
        ),
    },
)

# -- RoPE with Llama 3.1's frequency scaling, GPT-NeoX halves, cos/sin in the kernel ------

_ROPE_L3_WGSL = """
struct RopeParams {
  seq_len: u32, num_heads: u32, head_dim: u32, position_offset: u32,
  theta: f32, factor: f32, low_freq_factor: f32, high_freq_factor: f32,
  original_max_position: f32,
}
@group(0) @binding(0) var<storage, read> qk: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> rope: RopeParams;

const PI: f32 = 3.141592653589793;

fn llama3_inv_freq(i: u32) -> f32 {
  let inv_freq = 1.0 / pow(rope.theta, f32(2u * i) / f32(rope.head_dim));
  let low_freq_wavelen = rope.original_max_position / rope.low_freq_factor;
  let high_freq_wavelen = rope.original_max_position / rope.high_freq_factor;
  let wavelen = 2.0 * PI / inv_freq;
  if (wavelen < high_freq_wavelen) { return inv_freq; }
  if (wavelen > low_freq_wavelen) { return inv_freq / rope.factor; }
  let smooth_factor = (rope.original_max_position / wavelen - rope.low_freq_factor)
      / (rope.high_freq_factor - rope.low_freq_factor);
  return (1.0 - smooth_factor) * inv_freq / rope.factor + smooth_factor * inv_freq;
}

@compute @workgroup_size(64)
fn rope_llama3(@builtin(global_invocation_id) gid: vec3<u32>) {
  let half_dim = rope.head_dim / 2u;
  let idx = gid.x;
  if (idx >= rope.seq_len * rope.num_heads * half_dim) { return; }
  let i = idx % half_dim;
  let row = idx / half_dim;  // (token, head)
  let t = row / rope.num_heads;
  let pos = f32(t + rope.position_offset);
  let freq = pos * llama3_inv_freq(i);
  let c = cos(freq);
  let s = sin(freq);
  let base = row * rope.head_dim;
  let x1 = qk[base + i];
  let x2 = qk[base + i + half_dim];
  out[base + i] = x1 * c - x2 * s;
  out[base + i + half_dim] = x2 * c + x1 * s;
}
"""

_L3 = {
    "theta": 500000.0,
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position": 8192.0,
}


def _llama3_inv_freq(dim, theta, factor, low_freq_factor, high_freq_factor, original_max_position):
    # transformers' _compute_llama3_parameters, in float32 as it runs
    f32 = np.float32
    inv_freq = f32(1.0) / (f32(theta) ** (np.arange(0, dim, 2).astype(f32) / f32(dim)))
    low_freq_wavelen = f32(original_max_position / low_freq_factor)
    high_freq_wavelen = f32(original_max_position / high_freq_factor)
    wavelen = f32(2 * np.pi) / inv_freq
    inv_freq_llama = np.where(wavelen > low_freq_wavelen, inv_freq / f32(factor), inv_freq)
    smooth_factor = (f32(original_max_position) / wavelen - f32(low_freq_factor)) / f32(
        high_freq_factor - low_freq_factor
    )
    smoothed = (1 - smooth_factor) * inv_freq_llama / f32(factor) + smooth_factor * inv_freq_llama
    is_medium = ~(wavelen < high_freq_wavelen) & ~(wavelen > low_freq_wavelen)
    return np.where(is_medium, smoothed, inv_freq_llama).astype(f32)


def _rope_l3_reference(qk, out, rope):
    # LlamaRotaryEmbedding (rope_type "llama3") + apply_rotary_pos_emb (rotate_half)
    t, h, d = qk.shape
    inv_freq = _llama3_inv_freq(d, **{k: float(rope[k]) for k in _L3})
    pos = (np.arange(t) + int(rope["position_offset"])).astype(np.float32)
    freqs = np.outer(pos, inv_freq).astype(np.float32)
    emb = np.concatenate([freqs, freqs], axis=-1)
    cos, sin = np.cos(emb)[:, None, :], np.sin(emb)[:, None, :]
    x1, x2 = qk[..., : d // 2], qk[..., d // 2 :]
    rotated = np.concatenate([-x2, x1], axis=-1)
    return qk * cos + rotated * sin


ROPE_LLAMA3 = Wild(
    KernelSpec(
        id="wild_r25_rope_llama3_scaled_freqs_neox_halves",
        entry_point="rope_llama3",
        sources={"wgsl": _ROPE_L3_WGSL},
        dims=("T", "H", "D"),
        buffers=(
            BufferSpec(0, "f32", "read", name="qk", count="T*H*D", shape=("T", "H", "D")),
            BufferSpec(1, "f32", "read_write", name="out", count="T*H*D", shape=("T", "H", "D")),
            BufferSpec.uniform(
                2,
                tuple((f, "u32") for f in ("seq_len", "num_heads", "head_dim", "position_offset"))
                + tuple((f, "f32") for f in _L3),
                name="rope",
            ),
        ),
        reference=_rope_l3_reference,
        params=lambda s: {
            "seq_len": s.T,
            "num_heads": s.H,
            "head_dim": s.D,
            "position_offset": 3 * s.T,
            **_L3,
        },
        grid=lambda s, size: (ceil_div(size.T * size.H * size.D // 2, 64), 1, 1),
        schedules=(Schedule(64),),
        domain={"qk": (-4.0, 4.0)},
        nonfinite_inputs=False,
        test_sizes=("T=37,H=4,D=128", "T=1,H=1,D=64", "T=300,H=2,D=128"),
    ),
    {
        "blend of the medium band reversed": (
            "wgsl",
            "return (1.0 - smooth_factor) * inv_freq / rope.factor + smooth_factor * inv_freq;",
            "return smooth_factor * inv_freq / rope.factor + (1.0 - smooth_factor) * inv_freq;",
        ),
        "high frequencies scaled down too": (
            "wgsl",
            "if (wavelen < high_freq_wavelen) { return inv_freq; }\n",
            "",
        ),
        "GPT-J pairs (2i, 2i+1) instead of halves": (
            "wgsl",
            "let x1 = qk[base + i];\n  let x2 = qk[base + i + half_dim];",
            "let x1 = qk[base + 2u * i];\n  let x2 = qk[base + 2u * i + 1u];",
        ),
        "position offset ignored": ("wgsl", "f32(t + rope.position_offset)", "f32(t)"),
        "head index taken as the position": (
            "wgsl",
            "let t = row / rope.num_heads;",
            "let t = row % rope.num_heads;",
        ),
    },
)

# -- AWQ int4 GEMV: 8 nibbles a u32 in AWQ's interleaved order, per-group scale and zero ------

_AWQ_WGSL = """
struct Params { K: u32, N: u32, group_size: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> qweight: array<u32>;
@group(0) @binding(2) var<storage, read> qzeros: array<u32>;
@group(0) @binding(3) var<storage, read> scales: array<f32>;
@group(0) @binding(4) var<storage, read_write> y: array<f32>;
@group(0) @binding(5) var<uniform> p: Params;

// AWQ packs columns [0, 2, 4, 6, 1, 3, 5, 7] into nibbles 0..7: column c sits at
// nibble AWQ_REVERSE_ORDER[c] = [0, 4, 1, 5, 2, 6, 3, 7]
const AWQ_SHIFT = array<u32, 8>(0u, 16u, 4u, 20u, 8u, 24u, 12u, 28u);

@compute @workgroup_size(64)
fn awq_gemv(@builtin(global_invocation_id) gid: vec3<u32>) {
  let j = gid.x;  // one packed column: outputs 8j .. 8j + 7
  let packed_n = p.N / 8u;
  if (j >= packed_n) { return; }
  var acc = array<f32, 8>(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
  for (var k = 0u; k < p.K; k++) {
    let g = k / p.group_size;
    let qw = qweight[k * packed_n + j];
    let zw = qzeros[g * packed_n + j];
    let xk = x[k];
    for (var c = 0u; c < 8u; c++) {
      let q = (qw >> AWQ_SHIFT[c]) & 0xFu;
      let z = (zw >> AWQ_SHIFT[c]) & 0xFu;
      let s = scales[g * p.N + 8u * j + c];
      acc[c] += xk * ((f32(q) - f32(z)) * s);
    }
  }
  for (var c = 0u; c < 8u; c++) {
    y[8u * j + c] = acc[c];
  }
}
"""

_AWQ_REVERSE_ORDER = [0, 4, 1, 5, 2, 6, 3, 7]
_AWQ_GROUP = 128


def _awq_unpack(packed):
    """AutoAWQ's unpack_awq and reverse_awq_order: int32 [rows, N / 8] to [rows, N]."""
    shifts = np.arange(0, 32, 4, dtype=np.uint32)
    nib = (packed[:, :, None] >> shifts[None, None, :]) & 0xF  # nibble s of word j
    nib = nib.reshape(packed.shape[0], -1)
    order = np.arange(nib.shape[1]).reshape(-1, 8)[:, _AWQ_REVERSE_ORDER].reshape(-1)
    return nib[:, order].astype(np.float64)


def _awq_reference(x, qweight, qzeros, scales, y, p):
    # WQLinear_GEMV / dequantize_gemm: W = (iweight - izeros) * scales, y = x @ W
    K = x.shape[0]
    iw, iz = _awq_unpack(qweight), _awq_unpack(qzeros)
    g = np.arange(K) // _AWQ_GROUP
    w = (iw - iz[g]) * scales.astype(np.float64)[g]
    return (x.astype(np.float64) @ w).astype(np.float32)


def _u32_words(rng, count, size):
    return rng.integers(0, 2**32, count, dtype=np.uint64).astype(np.uint32)


AWQ_GEMV = Wild(
    KernelSpec(
        id="wild_r25_awq_int4_gemv_interleaved_nibbles_zeros",
        entry_point="awq_gemv",
        sources={"wgsl": _AWQ_WGSL},
        dims=("K", "N"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="K"),
            BufferSpec(
                1,
                "u32",
                "read",
                name="qweight",
                count=lambda s: s.K * s.N // 8,
                shape=("K", "N/8"),
                fill=_u32_words,
            ),
            BufferSpec(
                2,
                "u32",
                "read",
                name="qzeros",
                count=lambda s: s.K // 128 * s.N // 8,
                shape=("K/128", "N/8"),
                fill=_u32_words,
            ),
            BufferSpec(
                3,
                "f32",
                "read",
                name="scales",
                count=lambda s: s.K // 128 * s.N,
                shape=("K/128", "N"),
                fill=(0.001, 0.02),
            ),
            BufferSpec(4, "f32", "read_write", name="y", count="N"),
            BufferSpec.uniform(5, (("K", "u32"), ("N", "u32"), ("group_size", "u32")), name="p"),
        ),
        reference=_awq_reference,
        params=lambda s: {"K": s.K, "N": s.N, "group_size": _AWQ_GROUP},
        grid=lambda s, size: (ceil_div(size.N // 8, 64), 1, 1),
        schedules=(Schedule(64),),
        domain={"x": (-2.0, 2.0)},
        test_sizes=("K=640,N=200", "K=128,N=8", "K=1024,N=1024"),
    ),
    {
        "natural nibble order": (
            "wgsl",
            "array<u32, 8>(0u, 16u, 4u, 20u, 8u, 24u, 12u, 28u)",
            "array<u32, 8>(0u, 4u, 8u, 12u, 16u, 20u, 24u, 28u)",
        ),
        "zeros unpacked in natural order": (
            "wgsl",
            "let z = (zw >> AWQ_SHIFT[c]) & 0xFu;",
            "let z = (zw >> (4u * c)) & 0xFu;",
        ),
        "symmetric zero point 8 (GPTQ's sym habit)": (
            "wgsl",
            "(f32(q) - f32(z)) * s",
            "(f32(q) - 8.0) * s",
        ),
        "scale of the packed column": (
            "wgsl",
            "let s = scales[g * p.N + 8u * j + c];",
            "let s = scales[g * p.N + j];",
        ),
        "nibble minus zero in u32 (wraps below zero)": (
            "wgsl",
            "(f32(q) - f32(z)) * s",
            "f32(q - z) * s",
        ),
    },
)

# -- Blelloch's work-efficient exclusive scan in one workgroup (GPU Gems 3, ch. 39) ---------

_BLELLOCH_WGSL = """
const N: u32 = 512u;  // two elements an invocation
@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;
var<workgroup> temp: array<f32, 512>;

@compute @workgroup_size(256)
fn prescan(@builtin(local_invocation_id) lid: vec3<u32>) {
  let n = arrayLength(&input);
  let thid = lid.x;
  let ai = 2u * thid;
  let bi = 2u * thid + 1u;
  temp[ai] = 0.0;
  temp[bi] = 0.0;
  if (ai < n) { temp[ai] = input[ai]; }
  if (bi < n) { temp[bi] = input[bi]; }
  var offset = 1u;
  // up-sweep: build the sum in place up the tree
  for (var d = N >> 1u; d > 0u; d >>= 1u) {
    workgroupBarrier();
    if (thid < d) {
      let a = offset * (2u * thid + 1u) - 1u;
      let b = offset * (2u * thid + 2u) - 1u;
      temp[b] += temp[a];
    }
    offset *= 2u;
  }
  // clear the last element
  if (thid == 0u) { temp[N - 1u] = 0.0; }
  // down-sweep: traverse down the tree and build the scan
  for (var d = 1u; d < N; d *= 2u) {
    offset >>= 1u;
    workgroupBarrier();
    if (thid < d) {
      let a = offset * (2u * thid + 1u) - 1u;
      let b = offset * (2u * thid + 2u) - 1u;
      let t = temp[a];
      temp[a] = temp[b];
      temp[b] += t;
    }
  }
  workgroupBarrier();
  if (ai < n) { output[ai] = temp[ai]; }
  if (bi < n) { output[bi] = temp[bi]; }
}
"""


#: Each down-sweep level reads only what lower invocations wrote at the level above
#: (invocation t reads the pair thread t / 2 wrote), and the CPU adapters run a
#: workgroup's invocations in order, a SIMD batch at a time, up to the next barrier.
_DOWN_SWEEP_RACE_HIDDEN = (
    "lavapipe (LLVM 15) and SwiftShader (Chromium, 2026-12-05) run a workgroup's "
    "invocations in order between barriers, and a down-sweep level reads only pairs "
    "written by lower invocations: passed at 512, 1, 300 and 511 on both; the up-sweep's "
    "dropped barrier (reads from higher invocations) fails on both"
)


def _blelloch_reference(input, output):
    out = np.zeros(len(input), dtype=np.float64)
    out[1:] = np.cumsum(input.astype(np.float64))[:-1]
    return out.astype(np.float32)


BLELLOCH_SCAN = Wild(
    KernelSpec(
        id="wild_r25_blelloch_exclusive_scan_one_workgroup_wgsl",
        entry_point="prescan",
        sources={"wgsl": _BLELLOCH_WGSL},
        buffers=(
            BufferSpec(0, "f32", "read", name="input"),
            BufferSpec(1, "f32", "read_write", name="output"),
        ),
        reference=_blelloch_reference,
        grid=(1, 1, 1),
        schedules=(Schedule(256),),
        test_sizes=(512, 1, 300, 511),
    ),
    {
        "no barrier in the up-sweep": (
            "wgsl",
            "for (var d = N >> 1u; d > 0u; d >>= 1u) {\n    workgroupBarrier();",
            "for (var d = N >> 1u; d > 0u; d >>= 1u) {",
        ),
        "no barrier in the down-sweep": (
            "wgsl",
            "offset >>= 1u;\n    workgroupBarrier();",
            "offset >>= 1u;",
        ),
        "root not cleared": ("wgsl", "if (thid == 0u) { temp[N - 1u] = 0.0; }", ""),
        "down-sweep adds without the swap": (
            "wgsl",
            "      temp[a] = temp[b];\n",
            "",
        ),
        "up-sweep pairs off by one": (
            "wgsl",
            "let a = offset * (2u * thid + 1u) - 1u;\n      let b = offset * (2u * thid + 2u) - 1u;\n      temp[b] += temp[a];",
            "let a = offset * (2u * thid + 1u);\n      let b = offset * (2u * thid + 2u) - 1u;\n      temp[b] += temp[a];",
        ),
    },
    invisible_on={
        ("no barrier in the down-sweep", "wgsl", part): _DOWN_SWEEP_RACE_HIDDEN
        for part in ("llvmpipe", "swiftshader")
    },
)

# -- marching squares: a cell's case index from its four corners against the iso level ---------

_MSQ_WGSL = """
struct Params { width: u32, height: u32, iso: f32 }
@group(0) @binding(0) var<storage, read> field: array<f32>;
@group(0) @binding(1) var<storage, read_write> cases: array<u32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(8, 8)
fn classify(@builtin(global_invocation_id) id: vec3<u32>) {
  let cells_x = params.width - 1u;
  let cells_y = params.height - 1u;
  if (id.x >= cells_x || id.y >= cells_y) { return; }
  let i = id.y * params.width + id.x;
  let tl = field[i];
  let tr = field[i + 1u];
  let br = field[i + params.width + 1u];
  let bl = field[i + params.width];
  var c = 0u;
  if (tl > params.iso) { c |= 8u; }
  if (tr > params.iso) { c |= 4u; }
  if (br > params.iso) { c |= 2u; }
  if (bl > params.iso) { c |= 1u; }
  cases[id.y * cells_x + id.x] = c;
}
"""


def _msq_field(rng, count, size):
    # a density sampled on quarter steps: many corners sit exactly on the iso level
    return (rng.integers(0, 9, count) / 4.0).astype(np.float32)


def _msq_reference(field, cases, params):
    # Wikipedia's marching squares: 1 where the value is above the iso level, the corners
    # clockwise from top-left as bits 8, 4, 2, 1
    above = (field > np.float32(params["iso"])).astype(np.uint32)
    return (8 * above[:-1, :-1] + 4 * above[:-1, 1:] + 2 * above[1:, 1:] + above[1:, :-1]).reshape(
        -1
    )


MARCHING_SQUARES = Wild(
    KernelSpec(
        id="wild_r25_marching_squares_case_index_iso_ties",
        entry_point="classify",
        sources={"wgsl": _MSQ_WGSL},
        dims=("H", "W"),
        buffers=(
            BufferSpec(
                0, "f32", "read", name="field", count="H*W", shape=("H", "W"), fill=_msq_field
            ),
            BufferSpec(1, "u32", "read_write", name="cases", count="(H-1)*(W-1)"),
            BufferSpec.uniform(2, (("width", "u32"), ("height", "u32"), ("iso", "f32"))),
        ),
        reference=_msq_reference,
        params=lambda s: {"width": s.W, "height": s.H, "iso": 1.0},
        grid=lambda s, size: (ceil_div(size.W - 1, 8), ceil_div(size.H - 1, 8), 1),
        schedules=(Schedule((8, 8)),),
        test_sizes=("H=37,W=29", "H=2,W=2", "H=128,W=130"),
    ),
    {
        "at the iso level counts as above": (
            "wgsl",
            "if (tl > params.iso) { c |= 8u; }\n  if (tr > params.iso)",
            "if (tl >= params.iso) { c |= 8u; }\n  if (tr >= params.iso)",
        ),
        "cells stored with the grid's row stride": (
            "wgsl",
            "cases[id.y * cells_x + id.x] = c;",
            "cases[id.y * params.width + id.x] = c;",
        ),
        "bottom corners swapped": (
            "wgsl",
            "let br = field[i + params.width + 1u];\n  let bl = field[i + params.width];",
            "let br = field[i + params.width];\n  let bl = field[i + params.width + 1u];",
        ),
        "last column of cells skipped": (
            "wgsl",
            "if (id.x >= cells_x || id.y >= cells_y)",
            "if (id.x + 1u >= cells_x || id.y >= cells_y)",
        ),
    },
)

# -- MLC-LLM / WebLLM's apply_penalty_inplace (TVM-generated WGSL) ----------------------------

_PENALTY_WGSL = """
struct PODArgs {
  vocab_size: i32,
  num_token: i32,
  num_seq: i32,
  packGridDimX: u32
}
@group(0) @binding(0) var<storage, read_write> logits : array<f32>;
@group(0) @binding(1) var<storage, read> seq_ids : array<i32>;
@group(0) @binding(2) var<storage, read> pos2seq_id : array<i32>;
@group(0) @binding(3) var<storage, read> token_ids : array<i32>;
@group(0) @binding(4) var<storage, read> token_cnt : array<i32>;
@group(0) @binding(5) var<storage, read> penalties : array<f32>;
@group(0) @binding(6) var<uniform> podArgs : PODArgs;

@compute @workgroup_size(256, 1, 1)
fn apply_penalty_inplace_kernel(
  @builtin(workgroup_id) blockIdx : vec3<u32>,
  @builtin(num_workgroups) gridDim : vec3<u32>,
  @builtin(local_invocation_id) threadIdx : vec3<u32>
) {
  if (blockIdx.z * gridDim.x + blockIdx.x > podArgs.packGridDimX) { return; }
  let v__1 : i32 = i32(blockIdx.z * gridDim.x + blockIdx.x);
  if (((v__1 * 256i) + i32(threadIdx.x)) < podArgs.num_token) {
    let v_ = (v__1 * 256i) + i32(threadIdx.x);
    let v__2 : i32 = ((seq_ids[pos2seq_id[v_]] * podArgs.vocab_size) + token_ids[v_]);
    logits[v__2] = (logits[v__2] - (penalties[(pos2seq_id[v_] * 3i)] + (f32(token_cnt[v_]) * penalties[((pos2seq_id[v_] * 3i) + 1i)])));
    logits[v__2] = select((logits[v__2] / penalties[((pos2seq_id[v_] * 3i) + 2i)]), (logits[v__2] * penalties[((pos2seq_id[v_] * 3i) + 2i)]), (logits[v__2] < 0f));
  }
}
"""


def _seq_ids(rng, count, size):
    return rng.permutation(size.S).astype(np.int32)  # a sequence's row in the logits


def _pos2seq(rng, count, size):
    return np.repeat(np.arange(size.S, dtype=np.int32), size.P)


def _token_ids(rng, count, size):
    return np.concatenate(
        [rng.choice(size.V, size.P, replace=False) for _ in range(size.S)]
    ).astype(np.int32)


def _token_cnt(rng, count, size):
    return rng.integers(1, 6, count, dtype=np.int32)


def _penalties(rng, count, size):
    presence = rng.uniform(0.0, 1.0, size.S)
    frequency = rng.uniform(0.0, 0.5, size.S)
    repetition = rng.uniform(1.0, 2.0, size.S)
    return np.stack([presence, frequency, repetition], axis=1).reshape(-1).astype(np.float32)


def _penalty_reference(logits, seq_ids, pos2seq_id, token_ids, token_cnt, penalties, podArgs):
    # mlc_llm's _apply_penalty_inplace: presence + count * frequency subtracted, then
    # the repetition penalty multiplies a negative logit and divides a positive one
    out = logits.astype(np.float64).reshape(len(seq_ids), -1)
    pen = penalties.astype(np.float64).reshape(-1, 3)
    for vp in range(len(token_ids)):
        s = pos2seq_id[vp]
        row, tok = seq_ids[s], token_ids[vp]
        v = out[row, tok] - (pen[s, 0] + token_cnt[vp] * pen[s, 1])
        out[row, tok] = v * pen[s, 2] if v < 0 else v / pen[s, 2]
    logits[:] = out.reshape(-1)


WEBLLM_PENALTY = Wild(
    KernelSpec(
        id="wild_r25_webllm_apply_penalty_inplace_tvm_wgsl",
        entry_point="apply_penalty_inplace_kernel",
        sources={"wgsl": _PENALTY_WGSL},
        dims=("S", "V", "P"),
        buffers=(
            BufferSpec(
                0, "f32", "read_write", name="logits", count="S*V", inout=True, fill=(-8.0, 8.0)
            ),
            BufferSpec(1, "i32", "read", name="seq_ids", count="S", fill=_seq_ids),
            BufferSpec(2, "i32", "read", name="pos2seq_id", count="S*P", fill=_pos2seq),
            BufferSpec(3, "i32", "read", name="token_ids", count="S*P", fill=_token_ids),
            BufferSpec(4, "i32", "read", name="token_cnt", count="S*P", fill=_token_cnt),
            BufferSpec(5, "f32", "read", name="penalties", count="S*3", fill=_penalties),
            BufferSpec.uniform(
                6,
                (
                    ("vocab_size", "i32"),
                    ("num_token", "i32"),
                    ("num_seq", "i32"),
                    ("packGridDimX", "u32"),
                ),
                name="podArgs",
            ),
        ),
        reference=_penalty_reference,
        params=lambda s: {
            "vocab_size": s.V,
            "num_token": s.S * s.P,
            "num_seq": s.S,
            "packGridDimX": ceil_div(s.S * s.P, 256),
        },
        grid=lambda s, size: (ceil_div(size.S * size.P, 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=("S=4,V=32000,P=300", "S=1,V=8,P=1", "S=7,V=1000,P=97"),
    ),
    {
        "repetition sign test flipped": ("wgsl", "(logits[v__2] < 0f)", "(logits[v__2] > 0f)"),
        "repetition applied before presence and frequency": (
            "wgsl",
            "    logits[v__2] = (logits[v__2] - (penalties[(pos2seq_id[v_] * 3i)] + (f32(token_cnt[v_]) * penalties[((pos2seq_id[v_] * 3i) + 1i)])));\n"
            "    logits[v__2] = select((logits[v__2] / penalties[((pos2seq_id[v_] * 3i) + 2i)]), (logits[v__2] * penalties[((pos2seq_id[v_] * 3i) + 2i)]), (logits[v__2] < 0f));\n",
            "    logits[v__2] = select((logits[v__2] / penalties[((pos2seq_id[v_] * 3i) + 2i)]), (logits[v__2] * penalties[((pos2seq_id[v_] * 3i) + 2i)]), (logits[v__2] < 0f));\n"
            "    logits[v__2] = (logits[v__2] - (penalties[(pos2seq_id[v_] * 3i)] + (f32(token_cnt[v_]) * penalties[((pos2seq_id[v_] * 3i) + 1i)])));\n",
        ),
        "row of the batch slot (seq_ids skipped)": (
            "wgsl",
            "((seq_ids[pos2seq_id[v_]] * podArgs.vocab_size)",
            "((pos2seq_id[v_] * podArgs.vocab_size)",
        ),
        "count not weighted by the frequency penalty": (
            "wgsl",
            "(f32(token_cnt[v_]) * penalties[((pos2seq_id[v_] * 3i) + 1i)])",
            "(f32(token_cnt[v_]) + penalties[((pos2seq_id[v_] * 3i) + 1i)])",
        ),
    },
)

# -- TF.js local response normalization (tf.nn.local_response_normalization), NHWC ------------

_LRN_WGSL = """
struct Uniforms { radius: i32, bias: f32, alpha: f32, beta: f32, depth: i32, size: i32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> result: array<f32>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;

@compute @workgroup_size(64, 1, 1)
fn _start(@builtin(global_invocation_id) globalId: vec3<u32>) {
  let index = i32(globalId.x);
  if (index >= uniforms.size) { return; }
  let d = index % uniforms.depth;
  let pixel = index - d;
  let maxD = uniforms.depth - 1;
  var sum = 0.0;
  for (var j = -uniforms.radius; j <= uniforms.radius; j++) {
    let idx = d + j;
    if (idx >= 0 && idx <= maxD) {
      let z = x[pixel + idx];
      sum += z * z;
    }
  }
  let val = x[index] * pow(uniforms.bias + uniforms.alpha * sum, -uniforms.beta);
  result[index] = val;
}
"""

_LRN = {"radius": 2, "bias": 1.0, "alpha": 2e-05, "beta": 0.75}  # AlexNet's tf.nn.lrn


def _lrn_reference(x, result, uniforms):
    # TensorFlow's LRN: sqr_sum[..., d] = sum(x[..., d - r : d + r + 1] ** 2), alpha NOT
    # divided by the window size (PyTorch's and ONNX's LRN divide it)
    r = int(uniforms["radius"])
    x64 = x.astype(np.float64)
    sq = np.pad(x64 * x64, ((0, 0), (r, r)))
    sqr_sum = sum(sq[:, j : j + x.shape[1]] for j in range(2 * r + 1))
    beta = float(uniforms["beta"])
    out = x64 * (float(uniforms["bias"]) + float(uniforms["alpha"]) * sqr_sum) ** -beta
    return out.astype(np.float32)


TFJS_LRN = Wild(
    KernelSpec(
        id="wild_r25_tfjs_lrn_depth_radius_pow_beta",
        entry_point="_start",
        sources={"wgsl": _LRN_WGSL},
        dims=("P", "D"),  # pixels (batch * height * width) and depth
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="P*D", shape=("P", "D")),
            BufferSpec(1, "f32", "read_write", name="result", count="P*D", shape=("P", "D")),
            BufferSpec.uniform(
                2,
                (
                    ("radius", "i32"),
                    ("bias", "f32"),
                    ("alpha", "f32"),
                    ("beta", "f32"),
                    ("depth", "i32"),
                    ("size", "i32"),
                ),
                name="uniforms",
            ),
        ),
        reference=_lrn_reference,
        params=lambda s: {**_LRN, "depth": s.D, "size": s.P * s.D},
        grid=lambda s, size: (ceil_div(size.P * size.D, 64), 1, 1),
        schedules=(Schedule(64),),
        domain={"x": (-3.0, 3.0)},
        nonfinite_inputs=False,
        test_sizes=("P=70,D=13", "P=1,D=1", "P=256,D=64"),
    ),
    {
        "alpha divided by the window (ONNX's definition)": (
            "wgsl",
            "uniforms.bias + uniforms.alpha * sum",
            "uniforms.bias + uniforms.alpha / f32(2 * uniforms.radius + 1) * sum",
        ),
        "window one short on the right": (
            "wgsl",
            "j <= uniforms.radius; j++",
            "j < uniforms.radius; j++",
        ),
        "last channel left out of the window": (
            "wgsl",
            "if (idx >= 0 && idx <= maxD)",
            "if (idx >= 0 && idx < maxD)",
        ),
        "sum of |x| instead of x squared": ("wgsl", "sum += z * z;", "sum += abs(z);"),
    },
)

# -- ONNX Pad, mode "reflect" (ONNX Runtime Web's reflect snippet), pads on H and W ------------

_PAD_WGSL = """
struct Uniforms {
  output_size: u32,
  x_shape: vec3<u32>,
  x_strides: vec3<u32>,
  output_shape: vec3<u32>,
  pads: vec4<i32>,  // top, left, bottom, right
};
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;

fn getOriginalCoord(outCoord: u32, pad: i32, dim: u32) -> i32 {
  var k = i32(outCoord) - pad;
  if (k < 0) {
    k = -k;
  }
  {
    let _2n_1 = 2 * (i32(dim) - 1);
    k = k % _2n_1;
    if (k >= i32(dim)) {
      k = _2n_1 - k;
    }
  }
  return k;
}

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
  let global_idx = global_id.x;
  if (global_idx >= uniforms.output_size) { return; }
  let ow = global_idx % uniforms.output_shape[2];
  let oh = (global_idx / uniforms.output_shape[2]) % uniforms.output_shape[1];
  let c = global_idx / (uniforms.output_shape[2] * uniforms.output_shape[1]);
  let h = getOriginalCoord(oh, uniforms.pads[0], uniforms.x_shape[1]);
  let w = getOriginalCoord(ow, uniforms.pads[1], uniforms.x_shape[2]);
  let offset = i32(c * uniforms.x_strides[0]) + h * i32(uniforms.x_strides[1]) + w;
  output[global_idx] = x[offset];
}
"""

_PADS = (2, 3, 1, 2)  # top, left, bottom, right


def _pad_params(size):
    oh, ow = size.H + _PADS[0] + _PADS[2], size.W + _PADS[1] + _PADS[3]
    return {
        "output_size": size.C * oh * ow,
        "x_shape": (size.C, size.H, size.W),
        "x_strides": (size.H * size.W, size.W, 1),
        "output_shape": (size.C, oh, ow),
        "pads": _PADS,
    }


def _pad_reference(x, output, uniforms):
    # onnx.reference's Pad with mode "reflect" is np.pad(mode="reflect")
    top, left, bottom, right = _PADS
    return np.pad(x, ((0, 0), (top, bottom), (left, right)), mode="reflect").reshape(-1)


def _pad_count(size):
    return size.C * (size.H + _PADS[0] + _PADS[2]) * (size.W + _PADS[1] + _PADS[3])


ORT_PAD_REFLECT = Wild(
    KernelSpec(
        id="wild_r25_ort_pad_reflect_hw_modulo",
        entry_point="main",
        sources={"wgsl": _PAD_WGSL},
        dims=("C", "H", "W"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="C*H*W", shape=("C", "H", "W")),
            BufferSpec(1, "f32", "read_write", name="output", count=_pad_count),
            BufferSpec.uniform(
                2,
                (
                    ("output_size", "u32"),
                    ("x_shape", "vec3<u32>"),
                    ("x_strides", "vec3<u32>"),
                    ("output_shape", "vec3<u32>"),
                    ("pads", "vec4<i32>"),
                ),
                name="uniforms",
            ),
        ),
        reference=_pad_reference,
        params=_pad_params,
        grid=lambda s, size: (ceil_div(_pad_count(size), 64), 1, 1),
        schedules=(Schedule(64),),
        test_sizes=("C=3,H=7,W=9", "C=1,H=4,W=4", "C=5,H=33,W=17"),
    ),
    {
        "symmetric on the leading edge (edge repeated)": (
            "wgsl",
            "if (k < 0) {\n    k = -k;\n  }",
            "if (k < 0) {\n    k = -k - 1;\n  }",
        ),
        "period 2n instead of 2(n - 1)": (
            "wgsl",
            "let _2n_1 = 2 * (i32(dim) - 1);",
            "let _2n_1 = 2 * i32(dim);",
        ),
        "left pad used for the rows": (
            "wgsl",
            "getOriginalCoord(oh, uniforms.pads[0]",
            "getOriginalCoord(oh, uniforms.pads[1]",
        ),
        "row offset with the output's width": (
            "wgsl",
            "h * i32(uniforms.x_strides[1]) + w",
            "h * i32(uniforms.output_shape[2]) + w",
        ),
    },
)


ROUND25 = {
    k.kernel.id: k
    for k in (
        TFJS_DEPTHWISE_SAME,
        TORCH_MAXPOOL_CEIL,
        ORT_GATHER_ELEMENTS,
        ORT_WHERE_BROADCAST,
        ROPE_LLAMA3,
        AWQ_GEMV,
        BLELLOCH_SCAN,
        MARCHING_SQUARES,
        WEBLLM_PENALTY,
        TFJS_LRN,
        ORT_PAD_REFLECT,
    )
}

"""Round 5 of kernels from the wild, WGSL only, merged into ``tests.wild.CORPUS``: written
the way web ML runtimes and WebGPU projects generate or hand-write them. onnxruntime-web's
broadcast add (a uniforms struct of ``vec4<u32>`` shapes and strides, an offset-to-indices
helper, ``global_idx`` linearised from ``workgroup_id`` and ``num_workgroups`` for a
dispatch that spills into y) and its HardSigmoid over ``array<vec4<f32>>`` with ``alpha``
and ``beta`` uniforms and a tensor whose length is not a multiple of 4; TensorFlow.js's
pad (``_start``, ``getCoordsFromIndex``, ``setOutputAtIndex``, ``vec2<i32>`` shapes, a
``NAN`` uniform); a TVM / web-llm matrix-vector product (``red_buf0``, an unrolled
workgroup tree with ``workgroupBarrier``, ``@workgroup_size(256, 1, 1)``, i32 loops);
gpu.cpp's GELU (``{{precision}}`` and ``{{workgroupSize}}`` templates); burn's binary op
(an ``info: array<u32>`` of rank, strides and shapes, ``{{ elem }}`` with spaces, a 2-D
dispatch); the WebGPU samples' boids step (``array<Particle>`` with ``vec2f`` members);
bit tricks (fast inverse square root with ``bitcast``, an ordered-bits float
``atomicMax``, signed ``firstLeadingBit`` / ``extractBits`` / ``reverseBits``);
``pack4x8unorm`` tone mapping; an ``enable f16;`` row norm; a 2-D roll with i32 modulo by a
uniform; a workgroup argmax whose ties go to the first index; web-llm's softmax with a
temperature; onnxruntime-web's Exp over a [tokens, hidden] tensor; stream compaction by
atomic append; and a uniform struct with ``@size`` padding.

The kernels are written for this corpus after the sources named below: read, not
copied (the project's rule for public code: round 5 first took three of them verbatim,
gpu.cpp's GELU, burn's binary op and the boids step, and wrote the rest in the shape of
generated or typical code, and all were rewritten on 2026-12-06). What is theirs is
kept: the entry points (``main``, ``_start``, ``fused_NT_matmul_kernel``,
``softmax_with_temperature_kernel``, ``tonemap``, ``scatter_max`` and ``decode``,
``roll_cols``, ``argmax_rows``, ``compact``, ``apply_gain``), the bindings (group,
binding, name, type, access, order, the boids' ``@binding`` before ``@group``), the
uniform structs field for field (TensorFlow.js's ``NAN`` and ``INFINITY`` words, the
``@size(8)`` count), the built-in parameters' names, the template placeholders as each
project spells them, the workgroup sizes and workgroup arrays, TensorFlow.js's
built-ins stashed in private variables and its ``getCoordsFromIndex`` /
``setOutputAtIndex`` / ``main(index)`` shape, TVM's ``packGridDimX`` early return,
one-element local accumulator, i32 loops and the tree unrolled to eight steps with a
barrier after each, burn's ``info`` layout and inclusive rank loop, the boids' three
rules, the speed cap and the wrap, and every constant and order of floating-point
operations (GELU's 0.7978845608028654 and 0.044715 with ``select`` above 10, the magic
0x5f3759df and one Newton step, Reinhard's curve, the max from -3.402823e+38). What is
ours: the comments, the helpers' and locals' names, the order of equivalent statements
(early returns for guarded blocks, the distance of the boids taken once) and the
formatting; onnxruntime-web's workgroup number nested rather than summed, TensorFlow.js's
pad test written as ``all`` of the inside bounds and its 2-D index helper a
row-major read.

- gpu.cpp's GELU (AnswerDotAI/gpu.cpp at 0735132b, Apache-2.0,
  ``examples/hello_world/run.cpp``, ``kGelu``).
- burn's binary elementwise template before CubeCL (tracel-ai/burn at 5341c026, MIT or
  Apache-2.0, ``burn-wgpu/src/template/binary_elemwise.wgsl``).
- The WebGPU samples' boids (webgpu/webgpu-samples at 6b19c62e, BSD 3-clause,
  ``sample/computeBoids/updateSprites.wgsl``, itself after austinEng's
  Project6-Vulkan-Flocking).
- Written by the project in the shape of generated code, no upstream file copied:
  onnxruntime-web's binary and unary ops (microsoft/onnxruntime at 543a4538, MIT,
  ``js/web/lib/wasm/jsep/webgpu/ops/binary-op.ts`` and ``unary-op.ts`` generate them),
  TensorFlow.js's pad (tensorflow/tfjs at b38b5b95, Apache-2.0,
  ``tfjs-backend-webgpu/src/pad_webgpu.ts`` with ``webgpu_program.ts``'s preamble), TVM's
  WebGPU output for web-llm (apache/tvm, Apache-2.0: ``red_buf0``, ``podArgs``); the fast
  inverse square root is Quake III's algorithm and constant (id Software), not its code;
  the other kernels are the project's own.
What they found, each fixed since with a test: wild_ort_exp_2d's "log2(e) to five
digits" passed when the size had two dimensions (the sensitivity bound took the rows'
length for an elementwise kernel); wild_atomic_append_compaction failed whenever
invocations reached the atomic out of order (``kept`` is now declared ``unordered``);
wild_bitcast_fast_rsqrt failed on the browser (a subnormal intermediate flushed, which
WGSL allows, judged against a reference that flushed only its inputs); wild_gpucpp_gelu's
text constants were refused and wild_uniform_size_attribute's ``@size`` was skipped by the
uniform check (now taken, with a padding field). wild_gpucpp_gelu fails on the browser
for the kernel's own reason, named in ``Wild.platform``: gpu.cpp's GELU guards tanh for
x > 10 only, and SwiftShader's tanh of a large negative argument is NaN, which WGSL
allows (tanh's accuracy is sinh(x) / cosh(x)'s); the report says so and how to clamp.
"""

from __future__ import annotations

import math

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import RACE_HIDDEN, Wild

# -- onnxruntime-web: broadcast Add, vec4<u32> shapes, global_idx from num_workgroups --------

_ORT_ADD = """
struct Uniforms {
  output_size: u32,
  output_shape: vec4<u32>,
  output_strides: vec4<u32>,
  b_shape: vec4<u32>,
  b_strides: vec4<u32>,
};
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> output: array<f32>;
@group(0) @binding(3) var<uniform> uniforms: Uniforms;

// kernel-forge corpus: a broadcast add shaped like onnxruntime-web's generated WGSL.
// A flat output offset becomes four coordinates by the output's strides, outermost
// first; the last coordinate is what remains.
fn output_coords(flat: u32) -> vec4<u32> {
  var coords: vec4<u32>;
  var rest = flat;
  for (var d = 0u; d < 3u; d++) {
    let stride = uniforms.output_strides[d];
    coords[d] = rest / stride;
    rest = rest % stride;
  }
  coords[3] = rest;
  return coords;
}

// b's element for output coordinates: an extent of 1 in b is read at coordinate 0
fn b_offset(coords: vec4<u32>) -> u32 {
  var at = 0u;
  for (var d = 0u; d < 4u; d++) {
    let c = select(coords[d], 0u, uniforms.b_shape[d] == 1u);
    at += c * uniforms.b_strides[d];
  }
  return at;
}

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) global_id : vec3<u32>,
        @builtin(workgroup_id) workgroup_id : vec3<u32>,
        @builtin(local_invocation_index) local_idx : u32,
        @builtin(num_workgroups) num_workgroups : vec3<u32>) {
  // past 65535 workgroups the dispatch spills into y (and z): number the groups flat
  let flat_group = workgroup_id.x +
      num_workgroups[0] * (workgroup_id.y + num_workgroups[1] * workgroup_id.z);
  let global_idx = flat_group * 64u + local_idx;
  if (global_idx < uniforms.output_size) {
    output[global_idx] = a[global_idx] + b[b_offset(output_coords(global_idx))];
  }
}
"""


def _ort_add_params(s):
    shape = (s.N0, s.N1, s.N2, s.N3)
    strides = (s.N1 * s.N2 * s.N3, s.N2 * s.N3, s.N3, 1)
    return {
        "output_size": int(s),
        "output_shape": shape,
        "output_strides": strides,
        "b_shape": (1, s.N1, 1, s.N3),
        "b_strides": (0, s.N3, 0, 1),
    }


ORT_ADD = Wild(
    KernelSpec(
        id="wild_ort_broadcast_add",
        entry_point="main",
        sources={"wgsl": _ORT_ADD},
        dims=("N0", "N1", "N2", "N3"),
        buffers=(
            BufferSpec(0, "f32", "read", name="a", shape=("N0", "N1", "N2", "N3")),
            BufferSpec(1, "f32", "read", name="b", count="N1*N3", shape=(1, "N1", 1, "N3")),
            BufferSpec(2, "f32", "read_write", name="output", shape=("N0", "N1", "N2", "N3")),
            BufferSpec.uniform(
                3,
                (
                    ("output_size", "u32"),
                    ("output_shape", "vec4<u32>"),
                    ("output_strides", "vec4<u32>"),
                    ("b_shape", "vec4<u32>"),
                    ("b_strides", "vec4<u32>"),
                ),
                name="uniforms",
            ),
        ),
        reference=lambda a, b: a + b,
        params=_ort_add_params,
        schedules=(Schedule(64),),
        # the last is 4,259,840 elements: 66,560 workgroups of 64, past 65,535 in x
        test_sizes=("2x3x5x7", "1x1x1x1", "4x64x128x130"),
    ),
    {
        "global_idx from x alone": (
            "wgsl",
            "let global_idx = flat_group * 64u + local_idx;",
            "let global_idx = global_id.x;",
        ),
        "broadcast select arms swapped": (
            "wgsl",
            "select(coords[d], 0u, uniforms.b_shape[d] == 1u)",
            "select(0u, coords[d], uniforms.b_shape[d] == 1u)",
        ),
        "b indexed with the output's strides": (
            "wgsl",
            "at += c * uniforms.b_strides[d];",
            "at += c * uniforms.output_strides[d];",
        ),
    },
)

# -- onnxruntime-web: HardSigmoid over vec4 storage, alpha and beta uniforms, n % 4 != 0 ----

_ORT_HARDSIGMOID = """
struct Uniforms { vec_size: u32, alpha: f32, beta: f32 };
@group(0) @binding(0) var<storage, read> input: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> output: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;

// kernel-forge corpus: HardSigmoid four lanes at a time, as onnxruntime-web emits
// elementwise ops; the last vector may hold past-the-end lanes of the tensor.
@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
  let q = global_id.x;
  if (q < uniforms.vec_size) {
    let line = uniforms.alpha * input[q] + vec4<f32>(uniforms.beta);
    output[q] = max(vec4<f32>(0.0), min(vec4<f32>(1.0), line));
  }
}
"""


def _hardsigmoid_reference(input, output, uniforms):
    output[:] = np.clip(uniforms.alpha * input + uniforms.beta, 0.0, 1.0)


ORT_HARDSIGMOID = Wild(
    KernelSpec(
        id="wild_ort_hardsigmoid_vec4",
        entry_point="main",
        sources={"wgsl": _ORT_HARDSIGMOID},
        buffers=(
            BufferSpec(0, "f32", "read", name="input"),
            BufferSpec(1, "f32", "read_write", name="output"),
            BufferSpec.uniform(
                2, (("vec_size", "u32"), ("alpha", "f32"), ("beta", "f32")), name="uniforms"
            ),
        ),
        reference=_hardsigmoid_reference,
        params=lambda n: {"vec_size": ceil_div(n, 4)},
        defaults={"alpha": 0.2, "beta": 0.5},
        grid=lambda s, n: (ceil_div(ceil_div(n, 4), 64), 1, 1),
        test_sizes=(4096, 4098, 1, 257),
    ),
    {
        "beta dropped": (
            "wgsl",
            "uniforms.alpha * input[q] + vec4<f32>(uniforms.beta)",
            "uniforms.alpha * input[q]",
        ),
        "upper clamp at 6": ("wgsl", "min(vec4<f32>(1.0),", "min(vec4<f32>(6.0),"),
        "misses the last vector": (
            "wgsl",
            "q < uniforms.vec_size",
            "q + 1u < uniforms.vec_size",
        ),
    },
)

# -- TensorFlow.js: pad, getCoordsFromIndex / setOutputAtIndex, i32 vec2 shapes -------------

_TFJS_PAD = """
struct Uniforms {
  NAN : f32, INFINITY : f32, xShape : vec2<i32>, outShape : vec2<i32>,
  outShapeStrides : i32, size : i32, constantValue : f32, pad0 : vec2<i32>, pad1 : vec2<i32>,
};
@group(0) @binding(0) var<storage, read_write> result : array<f32>;
@group(0) @binding(1) var<storage, read> x : array<f32>;
@group(0) @binding(2) var<uniform> uniforms : Uniforms;

// kernel-forge corpus: a 2-D constant pad shaped like TensorFlow.js's WebGPU
// programs. The entry point stashes its built-ins in private variables and calls
// main with one flat index; main works in output coordinates.
const workgroupSizeX = 64u;
var<private> inv_local : vec3<u32>;
var<private> inv_group : vec3<u32>;
var<private> inv_groups : vec3<u32>;

fn getGlobalIndex() -> i32 {
  let group_flat = (inv_group.z * inv_groups.y + inv_group.y) * inv_groups.x + inv_group.x;
  return i32(group_flat * workgroupSizeX + inv_local.x);
}

fn getCoordsFromIndex(index : i32) -> vec2<i32> {
  let row = index / uniforms.outShapeStrides;
  return vec2<i32>(row, index - row * uniforms.outShapeStrides);
}

// x is dense and row-major: a row is xShape.y long
fn readX(rc : vec2<i32>) -> f32 {
  return x[rc.x * uniforms.xShape.y + rc.y];
}

fn setOutputAtIndex(flatIndex : i32, value : f32) {
  result[flatIndex] = value;
}

@compute @workgroup_size(workgroupSizeX, 1, 1)
fn _start(@builtin(local_invocation_id) LocalId : vec3<u32>,
          @builtin(workgroup_id) WorkgroupId : vec3<u32>,
          @builtin(num_workgroups) NumWorkgroups : vec3<u32>) {
  inv_groups = NumWorkgroups;
  inv_group = WorkgroupId;
  inv_local = LocalId;
  main(getGlobalIndex());
}

fn main(index : i32) {
  if (index >= uniforms.size) {
    return;
  }
  let outC = getCoordsFromIndex(index);
  // inside [pad0, pad0 + xShape) the output copies x; the border is the constant
  let lo = uniforms.pad0;
  let hi = uniforms.pad0 + uniforms.xShape;
  var value = uniforms.constantValue;
  if (all(outC >= lo) && all(outC < hi)) {
    value = readX(outC - lo);
  }
  setOutputAtIndex(index, value);
}
"""


def _tfjs_pad_params(s):
    out = (s.R + 3, s.C + 2)
    return {
        "xShape": (s.R, s.C),
        "outShape": out,
        "outShapeStrides": out[1],
        "size": out[0] * out[1],
    }


TFJS_PAD = Wild(
    KernelSpec(
        id="wild_tfjs_pad",
        entry_point="_start",
        sources={"wgsl": _TFJS_PAD},
        dims=("R", "C"),
        buffers=(
            BufferSpec(
                0, "f32", "read_write", name="result", count="(R+3)*(C+2)", shape=("R+3", "C+2")
            ),
            BufferSpec(1, "f32", "read", name="x", count="R*C", shape=("R", "C")),
            BufferSpec.uniform(
                2,
                (
                    ("NAN", "f32"),
                    ("INFINITY", "f32"),
                    ("xShape", "vec2<i32>"),
                    ("outShape", "vec2<i32>"),
                    ("outShapeStrides", "i32"),
                    ("size", "i32"),
                    ("constantValue", "f32"),
                    ("pad0", "vec2<i32>"),
                    ("pad1", "vec2<i32>"),
                ),
                name="uniforms",
            ),
        ),
        reference=lambda x: np.pad(x, ((1, 2), (2, 0)), constant_values=np.float32(-0.5)),
        params=_tfjs_pad_params,
        defaults={
            "NAN": float("nan"),
            "INFINITY": float("inf"),
            "constantValue": -0.5,
            "pad0": (1, 2),
            "pad1": (2, 0),
        },
        grid=lambda s, size: (ceil_div((size.R + 3) * (size.C + 2), 64), 1, 1),
        schedules=(Schedule(64),),
        test_sizes=("R=5,C=7", "R=1,C=1", "R=60,C=67"),
    ),
    {
        "end bound off by one": ("wgsl", "all(outC < hi)", "all(outC <= hi)"),
        "offset by the trailing pad": (
            "wgsl",
            "readX(outC - lo)",
            "readX(outC - uniforms.pad1)",
        ),
        "row stride from the output": (
            "wgsl",
            "rc.x * uniforms.xShape.y",
            "rc.x * uniforms.outShape.y",
        ),
    },
)

# -- TVM / web-llm: NT_matmul gemv, red_buf0, unrolled workgroup tree ------------------------

_TVM_GEMV = """
struct PODArgs { n: i32, k: i32, packGridDimX: u32 }
@group(0) @binding(0) var<storage, read_write> lv1 : array<f32>;
@group(0) @binding(1) var<storage, read_write> lv2 : array<f32>;
@group(0) @binding(2) var<storage, read_write> var_NT_matmul_intermediate : array<f32>;
@group(0) @binding(3) var<uniform> podArgs : PODArgs;

var<workgroup> red_buf0 : array<f32, 256>;

// kernel-forge corpus: a matrix-vector product (weights times a vector) shaped like
// TVM's WebGPU output for web-llm. A workgroup owns one output row: 256 strided
// partial dot products, then a halving tree in red_buf0 written out step by step.
@compute @workgroup_size(256, 1, 1)
fn fused_NT_matmul_kernel(@builtin(workgroup_id) blockIdx : vec3<u32>,
                          @builtin(num_workgroups) gridDim : vec3<u32>,
                          @builtin(local_invocation_id) threadIdx : vec3<u32>) {
  let packed_row : u32 = blockIdx.z * gridDim.x + blockIdx.x;
  if (packed_row > podArgs.packGridDimX) {
    return;
  }
  let row : i32 = i32(packed_row);
  let lane : i32 = i32(threadIdx.x);
  var partial : array<f32, 1>;
  partial[0] = 0.000000e+00f;
  for (var chunk : i32 = 0; chunk < ((podArgs.k + 255) >> 8u); chunk++) {
    let col : i32 = chunk * 256 + lane;
    if (col < podArgs.k) {
      partial[0] = partial[0] + lv2[col] * lv1[row * podArgs.k + col];
    }
  }
  let tid = threadIdx.x;
  red_buf0[tid] = partial[0];
  workgroupBarrier();
  if (tid < 128u) { red_buf0[tid] = red_buf0[tid] + red_buf0[tid + 128u]; }
  workgroupBarrier();
  if (tid < 64u) { red_buf0[tid] = red_buf0[tid] + red_buf0[tid + 64u]; }
  workgroupBarrier();
  if (tid < 32u) { red_buf0[tid] = red_buf0[tid] + red_buf0[tid + 32u]; }
  workgroupBarrier();
  if (tid < 16u) { red_buf0[tid] = red_buf0[tid] + red_buf0[tid + 16u]; }
  workgroupBarrier();
  if (tid < 8u) { red_buf0[tid] = red_buf0[tid] + red_buf0[tid + 8u]; }
  workgroupBarrier();
  if (tid < 4u) { red_buf0[tid] = red_buf0[tid] + red_buf0[tid + 4u]; }
  workgroupBarrier();
  if (tid < 2u) { red_buf0[tid] = red_buf0[tid] + red_buf0[tid + 2u]; }
  workgroupBarrier();
  if (tid < 1u) { red_buf0[tid] = red_buf0[tid] + red_buf0[tid + 1u]; }
  workgroupBarrier();
  if (tid == 0u) {
    var_NT_matmul_intermediate[row] = red_buf0[0];
  }
}
"""


def _gemv_reference(lv1, lv2):
    return (lv1.astype(np.float64) @ lv2.astype(np.float64)).astype(np.float32)


TVM_GEMV = Wild(
    KernelSpec(
        id="wild_tvm_nt_matmul_gemv",
        entry_point="fused_NT_matmul_kernel",
        sources={"wgsl": _TVM_GEMV},
        dims=("N", "K"),
        buffers=(
            BufferSpec(0, "f32", "read", name="lv1", count="N*K", shape=("N", "K")),
            BufferSpec(1, "f32", "read", name="lv2", count="K"),
            BufferSpec(2, "f32", "read_write", name="var_NT_matmul_intermediate", count="N"),
            BufferSpec.uniform(
                3, (("n", "i32"), ("k", "i32"), ("packGridDimX", "u32")), name="podArgs"
            ),
        ),
        reference=_gemv_reference,
        params=lambda s: {"n": s.N, "k": s.K, "packGridDimX": s.N - 1},
        grid=lambda s, size: (size.N, 1, 1),
        schedules=(Schedule(256),),
        test_sizes=("N=7,K=1000", "N=1,K=1", "N=64,K=4096"),
    ),
    {
        "first barrier dropped": (
            "wgsl",
            "red_buf0[tid] = partial[0];\n  workgroupBarrier();",
            "red_buf0[tid] = partial[0];",
        ),
        "last tree step dropped": (
            "wgsl",
            "if (tid < 1u) {",
            "if (tid < 0u) {",
        ),
        "weight row stride from n": (
            "wgsl",
            "lv1[row * podArgs.k + col]",
            "lv1[row * podArgs.n + col]",
        ),
        "k loop one block short": (
            "wgsl",
            "chunk < ((podArgs.k + 255) >> 8u)",
            "chunk < (podArgs.k >> 8u)",
        ),
    },
)

# -- gpu.cpp (AnswerDotAI): GELU with {{precision}} and {{workgroupSize}} -------------------

_GPUCPP_GELU = """
// kernel-forge corpus: gpu.cpp's tanh-form GELU (read, not copied); above 10 the
// input passes through and tanh is not consulted
const SQRT_2_OVER_PI: f32 = 0.7978845608028654;

@group(0) @binding(0) var<storage, read_write> inp: array<{{precision}}>;
@group(0) @binding(1) var<storage, read_write> out: array<{{precision}}>;

@compute @workgroup_size({{workgroupSize}})
fn main(@builtin(global_invocation_id) GlobalInvocationID: vec3<u32>) {
  let n: u32 = GlobalInvocationID.x;
  if (n >= arrayLength(&inp)) {
    return;
  }
  let v: f32 = inp[n];
  let curve = 0.5 * v * (1.0 + tanh(SQRT_2_OVER_PI * (v + 0.044715 * v * v * v)));
  out[n] = select(curve, v, v > 10.0);
}
"""


def _gpucpp_gelu_reference(inp):
    x = inp.astype(np.float64)
    gelu = 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))
    return np.where(x > 10.0, x, gelu).astype(np.float32)


GPUCPP_GELU = Wild(
    KernelSpec(
        id="wild_gpucpp_gelu",
        entry_point="main",
        sources={"wgsl": _GPUCPP_GELU},
        buffers=(
            BufferSpec(0, "f32", "read", name="inp"),
            BufferSpec(1, "f32", "read_write", name="out"),
        ),
        reference=_gpucpp_gelu_reference,
        # as gpu.cpp fills them: text (a str constant that is no expression of the
        # kernel's names is filled in as written). MISMATCH on SwiftShader, rightly:
        # tanh(-huge) is NaN there, as WGSL allows; the guard covers x > 10 only
        constants={"precision": "f32", "workgroupSize": "256, 1, 1"},
        grid=lambda s, n: (ceil_div(n, 256), 1, 1),
        schedules=(Schedule(256),),
        tolerance={"f32": {"atol": 1e-6, "rtol": 1e-5, "ulp": 8}},
        test_sizes=(10000, 1, 257),
    ),
    {
        "cube coefficient mistyped": ("wgsl", "0.044715 * v * v * v", "0.04715 * v * v * v"),
        "identity from 1 instead of 10": ("wgsl", "v, v > 10.0)", "v, v > 1.0)"),
        "last element unwritten": (
            "wgsl",
            "if (n >= arrayLength(&inp))",
            "if (n + 1u >= arrayLength(&inp))",
        ),
    },
    platform={
        ("browser", "swiftshader", "out"): (
            "gpu.cpp's GELU guards tanh only above x = 10, and WGSL's tanh is as accurate "
            "as sinh(x) / cosh(x), which SwiftShader overflows to NaN below about -89: the "
            "MISMATCH is right, the kernel's own portability bug (the report says how to "
            "clamp)"
        )
    },
)

# -- burn (pre-cubecl): binary mul with an info: array<u32> of rank, strides, shapes --------

_BURN_MUL = """
@group(0) @binding(0) var<storage, read> lhs: array<{{ elem }}>;
@group(0) @binding(1) var<storage, read> rhs: array<{{ elem }}>;
@group(0) @binding(2) var<storage, read_write> output: array<{{ elem }}>;
@group(0) @binding(3) var<storage, read> info: array<u32>;

// kernel-forge corpus: burn's strided binary op (read, not copied). info holds the
// rank, then lhs's, rhs's and the output's strides, then lhs's and rhs's shapes.
const WORKGROUP_SIZE_X = {{ workgroup_size_x }}u;

@compute
@workgroup_size({{ workgroup_size_x }}, {{ workgroup_size_y }}, 1)
fn main(
    @builtin(global_invocation_id) global_id: vec3<u32>,
    @builtin(num_workgroups) num_workgroups: vec3<u32>,
) {
    // the grid is two-dimensional: a row of it is num_workgroups.x groups wide
    let row_width = num_workgroups.x * WORKGROUP_SIZE_X;
    let id = global_id.y * row_width + global_id.x;
    if (id < arrayLength(&output)) {
        let rank = info[0];
        var at_lhs = 0u;
        var at_rhs = 0u;
        for (var d = 1u; d <= rank; d++) {
            let coord = id / info[d + 2u * rank];
            at_lhs += coord % info[d + 3u * rank] * info[d];
            at_rhs += coord % info[d + 4u * rank] * info[d + rank];
        }
        output[id] = lhs[at_lhs] * rhs[at_rhs];
    }
}
"""


def _burn_info(rng, count, size):
    b, m, n = size.B, size.M, size.N
    lhs_strides, rhs_strides, out_strides = (m * n, n, 1), (m, 1, 1), (m * n, n, 1)
    return np.array(
        (3, *lhs_strides, *rhs_strides, *out_strides, b, m, n, 1, m, 1), dtype=np.uint32
    )


def _burn_grid(schedule, size):
    workgroups = ceil_div(int(size), 16 * 16)
    x = math.ceil(math.sqrt(workgroups))
    return (x, ceil_div(workgroups, x), 1)


BURN_MUL = Wild(
    KernelSpec(
        id="wild_burn_info_mul",
        entry_point="main",
        sources={"wgsl": _BURN_MUL},
        dims=("B", "M", "N"),
        buffers=(
            BufferSpec(0, "f32", "read", name="lhs", shape=("B", "M", "N")),
            BufferSpec(1, "f32", "read", name="rhs", count="M", shape=(1, "M", 1)),
            BufferSpec(2, "f32", "read_write", name="output", shape=("B", "M", "N")),
            BufferSpec(3, "u32", "read", name="info", count=16, fill=_burn_info),
        ),
        reference=lambda lhs, rhs: lhs * rhs,
        constants={"elem": "f32", "workgroup_size_x": 16, "workgroup_size_y": 16},
        grid=_burn_grid,
        schedules=(Schedule((16, 16)),),
        test_sizes=("2x3x5", "1x1x1", "3x100x257"),
    ),
    {
        "last dimension skipped": ("wgsl", "d <= rank; d++", "d < rank; d++"),
        "rhs shape read from lhs's": (
            "wgsl",
            "coord % info[d + 4u * rank]",
            "coord % info[d + 3u * rank]",
        ),
        "row length without the workgroup width": (
            "wgsl",
            "let row_width = num_workgroups.x * WORKGROUP_SIZE_X;",
            "let row_width = num_workgroups.x;",
        ),
    },
)

# -- WebGPU samples: the boids update step, array<Particle> of vec2f -----------------------

_BOIDS = """
struct Particle {
  pos : vec2f,
  vel : vec2f,
}
struct SimParams {
  deltaT : f32,
  rule1Distance : f32,
  rule2Distance : f32,
  rule3Distance : f32,
  rule1Scale : f32,
  rule2Scale : f32,
  rule3Scale : f32,
}
struct Particles {
  particles : array<Particle>,
}
@binding(0) @group(0) var<uniform> params : SimParams;
@binding(1) @group(0) var<storage, read> particlesA : Particles;
@binding(2) @group(0) var<storage, read_write> particlesB : Particles;

// kernel-forge corpus: one step of the WebGPU samples' boids (read, not copied).
// Each invocation moves one boid by Reynolds' three rules over every other boid:
// toward the centre of those within rule1Distance, away from those within
// rule2Distance, along the mean heading of those within rule3Distance.
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) GlobalInvocationID : vec3u) {
  let me = GlobalInvocationID.x;
  let here = particlesA.particles[me].pos;
  var v = particlesA.particles[me].vel;

  var centre = vec2(0.0);
  var away = vec2(0.0);
  var heading = vec2(0.0);
  var nCentre = 0u;
  var nHeading = 0u;
  let flock = arrayLength(&particlesA.particles);
  for (var j = 0u; j < flock; j++) {
    if (j == me) { continue; }
    let other = particlesA.particles[j];
    let d = distance(other.pos, here);
    if (d < params.rule1Distance) {
      centre += other.pos;
      nCentre++;
    }
    if (d < params.rule2Distance) {
      away -= other.pos - here;
    }
    if (d < params.rule3Distance) {
      heading += other.vel;
      nHeading++;
    }
  }
  if (nCentre > 0u) {
    centre = (centre / vec2(f32(nCentre))) - here;
  }
  if (nHeading > 0u) {
    heading /= f32(nHeading);
  }
  v += (centre * params.rule1Scale) + (away * params.rule2Scale) + (heading * params.rule3Scale);

  // keep the direction, cap the speed at 0.1
  v = normalize(v) * clamp(length(v), 0.0, 0.1);
  var p = here + (v * params.deltaT);
  // the world is [-1, 1] squared: leaving by one edge enters by the opposite one
  if (p.x < -1.0) { p.x = 1.0; }
  if (p.x > 1.0) { p.x = -1.0; }
  if (p.y < -1.0) { p.y = 1.0; }
  if (p.y > 1.0) { p.y = -1.0; }
  particlesB.particles[me].pos = p;
  particlesB.particles[me].vel = v;
}
"""


def _boids_reference(params, particlesA, particlesB):
    pos = particlesA["pos"].astype(np.float32)
    vel = particlesA["vel"].astype(np.float32)
    n = len(pos)
    d = np.sqrt(((pos[None, :, :] - pos[:, None, :]) ** 2).sum(axis=2))
    others = ~np.eye(n, dtype=bool)
    near1 = (d < params["rule1Distance"]) & others
    near2 = (d < params["rule2Distance"]) & others
    near3 = (d < params["rule3Distance"]) & others
    count1 = near1.sum(axis=1)
    count3 = near3.sum(axis=1)
    c_mass = near1.astype(np.float32) @ pos
    c_mass = np.where(
        count1[:, None] > 0, c_mass / np.maximum(count1, 1)[:, None].astype(np.float32) - pos, 0
    )
    col_vel = -(near2.astype(np.float32) @ pos - near2.sum(axis=1)[:, None] * pos)
    c_vel = near3.astype(np.float32) @ vel
    c_vel = np.where(count3[:, None] > 0, c_vel / np.maximum(count3, 1)[:, None], 0)
    v = (
        vel
        + c_mass * params["rule1Scale"]
        + col_vel * params["rule2Scale"]
        + c_vel * params["rule3Scale"]
    ).astype(np.float32)
    speed = np.sqrt((v * v).sum(axis=1, keepdims=True))
    v = (v / speed * np.clip(speed, 0.0, 0.1)).astype(np.float32)
    p = (pos + v * params["deltaT"]).astype(np.float32)
    p = np.where(p < -1.0, 1.0, np.where(p > 1.0, -1.0, p)).astype(np.float32)
    particlesB["pos"] = p
    particlesB["vel"] = v


BOIDS = Wild(
    KernelSpec(
        id="wild_boids_step",
        entry_point="main",
        sources={"wgsl": _BOIDS},
        buffers=(
            BufferSpec.uniform(
                0,
                tuple(
                    (name, "f32")
                    for name in (
                        "deltaT",
                        "rule1Distance",
                        "rule2Distance",
                        "rule3Distance",
                        "rule1Scale",
                        "rule2Scale",
                        "rule3Scale",
                    )
                ),
            ),
            BufferSpec(
                1,
                (("pos", "vec2<f32>"), ("vel", "vec2<f32>")),
                "read",
                name="particlesA",
                fill=(-1.0, 1.0),
            ),
            BufferSpec(
                2, (("pos", "vec2<f32>"), ("vel", "vec2<f32>")), "read_write", name="particlesB"
            ),
        ),
        reference=_boids_reference,
        defaults={
            "deltaT": 0.04,
            "rule1Distance": 0.1,
            "rule2Distance": 0.025,
            "rule3Distance": 0.025,
            "rule1Scale": 0.02,
            "rule2Scale": 0.05,
            "rule3Scale": 0.005,
        },
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        schedules=(Schedule(64),),
        nonfinite_inputs=False,
        # the sample dispatches exactly numParticles / 64 workgroups: no bounds check
        test_sizes=(1536, 64, 512),
    ),
    {
        "counts itself": ("wgsl", "if (j == me) { continue; }", ""),
        "aligns with positions": ("wgsl", "heading += other.vel;", "heading += other.pos;"),
        "speed clamped at 1": (
            "wgsl",
            "clamp(length(v), 0.0, 0.1)",
            "clamp(length(v), 0.0, 1.0)",
        ),
        "velocity not written back": ("wgsl", "particlesB.particles[me].vel = v;", ""),
    },
)

# -- bitcast: fast inverse square root and abs by the sign bit -----------------------------

_FAST_RSQRT = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> magnitude: array<f32>;
@group(0) @binding(2) var<storage, read_write> rsqrt: array<f32>;

// The bit-level inverse square root known from Quake III: halving the exponent is a
// shift of the word, subtracted from the magic constant; one Newton step refines it.
fn approx_rsqrt(m: f32) -> f32 {
  let half_m = m * 0.5;
  let guess = bitcast<f32>(0x5f3759dfu - (bitcast<u32>(m) >> 1u));
  return guess * (1.5 - (half_m * guess * guess));
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let n = gid.x;
  if (n < arrayLength(&x)) {
    // |x|: the word with its sign bit cleared
    let m = bitcast<f32>(bitcast<u32>(x[n]) & 0x7fffffffu);
    magnitude[n] = m;
    rsqrt[n] = approx_rsqrt(m);
  }
}
"""


def _fast_rsqrt_reference(x):
    m = (x.view(np.uint32) & np.uint32(0x7FFFFFFF)).view(np.float32)
    x2 = m * np.float32(0.5)
    i = np.uint32(0x5F3759DF) - (m.view(np.uint32) >> np.uint32(1))
    y = i.view(np.float32)
    y = y * (np.float32(1.5) - (x2 * y * y))
    return m, y


FAST_RSQRT = Wild(
    KernelSpec(
        id="wild_bitcast_fast_rsqrt",
        entry_point="main",
        sources={"wgsl": _FAST_RSQRT},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="magnitude"),
            BufferSpec(2, "f32", "read_write", name="rsqrt"),
        ),
        reference=_fast_rsqrt_reference,
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        test_sizes=(4099, 1, 64),
    ),
    {
        "sign bit kept": ("wgsl", "& 0x7fffffffu)", "& 0xffffffffu)"),
        "exponent halved twice": ("wgsl", "(bitcast<u32>(m) >> 1u)", "(bitcast<u32>(m) >> 2u)"),
        "no Newton step": (
            "wgsl",
            "return guess * (1.5 - (half_m * guess * guess));",
            "return guess;",
        ),
    },
)

# -- pack4x8unorm: Reinhard tone mapping to RGBA8 -------------------------------------------

_TONEMAP = """
struct Params { exposure: f32, count: u32 }
@group(0) @binding(0) var<storage, read> hdr: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> ldr: array<u32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(64)
fn tonemap(@builtin(global_invocation_id) id: vec3<u32>) {
  let px = id.x;
  if (px < params.count) {
    // Reinhard's c / (1 + c) after exposure; alpha is opaque; pack4x8unorm rounds
    let c = hdr[px] * params.exposure;
    let mapped = c / (vec4<f32>(1.0) + c);
    ldr[px] = pack4x8unorm(vec4<f32>(mapped.rgb, 1.0));
  }
}
"""


def _tonemap_reference(hdr, ldr, params):
    c = hdr * np.float32(params["exposure"])
    mapped = c / (np.float32(1) + c)
    mapped[:, 3] = 1.0
    q = np.floor(np.float32(0.5) + np.float32(255) * np.clip(mapped, 0, 1)).astype(np.uint32)
    ldr[:] = q[:, 0] | (q[:, 1] << 8) | (q[:, 2] << 16) | (q[:, 3] << 24)


TONEMAP = Wild(
    KernelSpec(
        id="wild_tonemap_pack4x8unorm",
        entry_point="tonemap",
        sources={"wgsl": _TONEMAP},
        buffers=(
            BufferSpec(0, "vec4<f32>", "read", name="hdr", fill=(0.0, 20.0)),
            BufferSpec(1, "u32", "read_write", name="ldr"),
            BufferSpec.uniform(2, (("exposure", "f32"), ("count", "u32"))),
        ),
        reference=_tonemap_reference,
        params=lambda n: {"count": n},
        defaults={"exposure": 0.75},
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        nonfinite_inputs=False,
        test_sizes=(4099, 1, 64),
    ),
    {
        "channels in BGR order": (
            "wgsl",
            "vec4<f32>(mapped.rgb, 1.0)",
            "vec4<f32>(mapped.bgr, 1.0)",
        ),
        "no tone curve": ("wgsl", "vec4<f32>(mapped.rgb, 1.0)", "vec4<f32>(c.rgb, 1.0)"),
        "exposure ignored": ("wgsl", "hdr[px] * params.exposure", "hdr[px]"),
        "truncates instead of rounding": (
            "wgsl",
            "ldr[px] = pack4x8unorm(vec4<f32>(mapped.rgb, 1.0));",
            "let q = vec4<u32>(clamp(vec4<f32>(mapped.rgb, 1.0), vec4<f32>(0.0),"
            " vec4<f32>(1.0)) * 255.0);\n"
            "    ldr[px] = q.x | (q.y << 8u) | (q.z << 16u) | (q.w << 24u);",
        ),
    },
)

# -- signed bit builtins: firstLeadingBit, countOneBits, reverseBits, extractBits on i32 ---

_BITS_I32 = """
@group(0) @binding(0) var<storage, read> v: array<i32>;
@group(0) @binding(1) var<storage, read_write> bits: array<vec4<i32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let n = gid.x;
  if (n < arrayLength(&v)) {
    // each built-in on the signed word: i32 rules for the leading bit and the field's sign
    let w = v[n];
    bits[n] = vec4<i32>(firstLeadingBit(w), countOneBits(w),
                        reverseBits(w), extractBits(w, 4u, 8u));
  }
}
"""


def _bits_reference(v):
    u = v.view(np.uint32).astype(np.uint64)
    out = np.empty((len(v), 4), np.int32)
    # firstLeadingBit(i32): the highest bit that differs from the sign bit, -1 for 0 and -1
    t = np.where(v < 0, ~u & 0xFFFFFFFF, u)
    lead = np.full(len(v), -1, np.int64)
    for b in range(32):
        lead = np.where((t >> np.uint64(b)) & np.uint64(1), b, lead)
    out[:, 0] = lead
    out[:, 1] = [bin(int(w)).count("1") for w in u]
    out[:, 2] = np.array([int(f"{int(w):032b}"[::-1], 2) for w in u], np.uint32).view(np.int32)
    field = ((u >> np.uint64(4)) & np.uint64(0xFF)).astype(np.int64)
    out[:, 3] = np.where(field >= 128, field - 256, field)
    return out


BITS_I32 = Wild(
    KernelSpec(
        id="wild_signed_bit_builtins",
        entry_point="main",
        sources={"wgsl": _BITS_I32},
        buffers=(
            BufferSpec(0, "i32", "read", name="v"),
            BufferSpec(1, "vec4<i32>", "read_write", name="bits"),
        ),
        reference=_bits_reference,
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        test_sizes=(4099, 1, 64),
    ),
    {
        "leading bit of the unsigned word": (
            "wgsl",
            "firstLeadingBit(w), ",
            "i32(firstLeadingBit(u32(w))), ",
        ),
        "field zero-extended": (
            "wgsl",
            "extractBits(w, 4u, 8u)",
            "i32(extractBits(u32(w), 4u, 8u))",
        ),
        "field one bit narrow": ("wgsl", "extractBits(w, 4u, 8u)", "extractBits(w, 4u, 7u)"),
    },
)

# -- float atomicMax through order-preserving bits, then a decode pass ---------------------

_ATOMIC_FMAX = """
@group(0) @binding(0) var<storage, read> values: array<f32>;
@group(0) @binding(1) var<storage, read> segment: array<u32>;
@group(0) @binding(2) var<storage, read_write> keys: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> seg_max: array<f32>;

// f32 to a u32 key whose unsigned order is the floats' order: a positive float gets
// its sign bit set, a negative one is inverted whole; from_key undoes it.
fn to_key(f: f32) -> u32 {
  let w = bitcast<u32>(f);
  let negative = (w & 0x80000000u) != 0u;
  return select(w | 0x80000000u, ~w, negative);
}

fn from_key(k: u32) -> f32 {
  let from_positive = (k & 0x80000000u) != 0u;
  return bitcast<f32>(select(~k, k & 0x7fffffffu, from_positive));
}

@compute @workgroup_size(256)
fn scatter_max(@builtin(global_invocation_id) gid: vec3<u32>) {
  let n = gid.x;
  if (n >= arrayLength(&values)) {
    return;
  }
  atomicMax(&keys[segment[n]], to_key(values[n]));
}

@compute @workgroup_size(64)
fn decode(@builtin(global_invocation_id) gid: vec3<u32>) {
  let seg = gid.x;
  if (seg >= arrayLength(&seg_max)) {
    return;
  }
  seg_max[seg] = from_key(atomicLoad(&keys[seg]));
}
"""


def _segments(rng, count, size):
    return (rng.permutation(count) % 16).astype(np.uint32)


def _segment_max_reference(values, segment):
    out = np.full(16, -np.inf, np.float32)
    np.maximum.at(out, segment, values)
    return out


ATOMIC_FMAX = Wild(
    KernelSpec(
        id="wild_ordered_bits_atomic_fmax",
        entry_point="scatter_max",
        sources={"wgsl": _ATOMIC_FMAX},
        buffers=(
            BufferSpec(0, "f32", "read", name="values"),
            BufferSpec(1, "u32", "read", name="segment", fill=_segments),
            BufferSpec(2, "u32", "read_write", name="keys", count=16, initial=0, scratch=True),
            BufferSpec(3, "f32", "read_write", name="seg_max", count=16),
        ),
        reference=_segment_max_reference,
        launches=(
            Dispatch("scatter_max", grid=lambda s, n: (ceil_div(n, 256), 1, 1)),
            Dispatch("decode", grid=(1, 1, 1), schedule=Schedule(64)),
        ),
        schedules=(Schedule(256),),
        test_sizes=(1000, 16, 4099),
    ),
    {
        "negatives ordered by magnitude": (
            "wgsl",
            "select(w | 0x80000000u, ~w,",
            "select(w | 0x80000000u, w | 0x80000000u,",
        ),
        "decode forgets to flip negatives": (
            "wgsl",
            "select(~k, k & 0x7fffffffu",
            "select(k, k & 0x7fffffffu",
        ),
        "atomicMin": ("wgsl", "atomicMax(&keys", "atomicMin(&keys"),
    },
)

# -- enable f16: row L2 norm over vec4<f16>, f32 accumulation ------------------------------

_F16_ROWNORM = """
enable f16;

struct Uniforms { rows: u32, cols_vec4: u32 }
@group(0) @binding(0) var<storage, read> x: array<vec4<f16>>;
@group(0) @binding(1) var<storage, read_write> norms: array<f16>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
  let r = global_id.x;
  if (r < uniforms.rows) {
    // halves are widened before squaring: the sum of squares is kept in f32
    let base = r * uniforms.cols_vec4;
    var sum_sq: f32 = 0.0;
    for (var q = 0u; q < uniforms.cols_vec4; q++) {
      let h = vec4<f32>(x[base + q]);
      sum_sq += dot(h, h);
    }
    norms[r] = f16(sqrt(sum_sq));
  }
}
"""


def _f16_rownorm_reference(x):
    return np.sqrt(np.square(x.astype(np.float32)).sum(axis=1)).astype(np.float16)


F16_ROWNORM = Wild(
    KernelSpec(
        id="wild_f16_row_l2norm",
        entry_point="main",
        sources={"wgsl": _F16_ROWNORM},
        dims=("rows", "cols"),
        buffers=(
            BufferSpec(0, "f16", "read", name="x", count="rows*cols", shape=("rows", "cols")),
            BufferSpec(1, "f16", "read_write", name="norms", count="rows"),
            BufferSpec.uniform(2, (("rows", "u32"), ("cols_vec4", "u32")), name="uniforms"),
        ),
        reference=_f16_rownorm_reference,
        params=lambda s: {"rows": s.rows, "cols_vec4": s.cols // 4},
        grid=lambda s, size: (ceil_div(size.rows, 64), 1, 1),
        domain={"x": (-8.0, 8.0)},
        test_sizes=("rows=33,cols=64", "rows=1,cols=4", "rows=100,cols=256"),
    ),
    {
        "last vector of the row skipped": (
            "wgsl",
            "q < uniforms.cols_vec4; q++",
            "q + 1u < uniforms.cols_vec4; q++",
        ),
        "sum, not sum of squares": (
            "wgsl",
            "sum_sq += dot(h, h);",
            "sum_sq += dot(h, vec4<f32>(1.0));",
        ),
    },
)

# -- a 2-D roll along the columns: i32 division and modulo by uniforms ----------------------

_ROLL = """
struct Params { rows: i32, cols: i32, shift: i32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(64)
fn roll_cols(@builtin(global_invocation_id) gid: vec3<u32>) {
  let flat = i32(gid.x);
  let w = params.cols;
  if (flat < params.rows * w) {
    let row = flat / w;
    let col = flat % w;
    // i32 % takes the dividend's sign: add w and reduce again so a column left of 0 wraps
    let src_col = ((col - params.shift) % w + w) % w;
    y[flat] = x[row * w + src_col];
  }
}
"""

ROLL = Wild(
    KernelSpec(
        id="wild_roll_cols_i32_modulo",
        entry_point="roll_cols",
        sources={"wgsl": _ROLL},
        dims=("rows", "cols"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="rows*cols", shape=("rows", "cols")),
            BufferSpec(1, "f32", "read_write", name="y", count="rows*cols", shape=("rows", "cols")),
            BufferSpec.uniform(2, (("rows", "i32"), ("cols", "i32"), ("shift", "i32"))),
        ),
        reference=lambda x, params: np.roll(x, int(params["shift"]), axis=1),
        params=lambda s: {"rows": s.rows, "cols": s.cols},
        defaults={"shift": 5},
        grid=lambda s, size: (ceil_div(int(size), 64), 1, 1),
        test_sizes=("rows=3,cols=17", "rows=1,cols=1", "rows=40,cols=100", "rows=2,cols=3"),
    ),
    {
        "negative remainder kept": (
            "wgsl",
            "((col - params.shift) % w + w) % w",
            "(col - params.shift) % w",
        ),
        "rolled the other way": ("wgsl", "(col - params.shift)", "(col + params.shift)"),
        "row from the row count": ("wgsl", "let row = flat / w;", "let row = flat / params.rows;"),
    },
    platform={
        ("wgpu", "NVIDIA", "y"): (
            "NVIDIA's Vulkan driver (580.159.04, H200, 2026-12-01) computes WGSL's i32 `%` "
            "of a negative dividend as the unsigned remainder, so the double remainder "
            "that makes a negative shift positive breaks there (tests.wild.more's probe)"
        )
    },
)

# -- argmax per row in workgroup memory, ties to the first index ---------------------------

_ARGMAX = """
struct Params { cols: u32 }
@group(0) @binding(0) var<storage, read> logits: array<f32>;
@group(0) @binding(1) var<storage, read_write> best: array<u32>;
@group(0) @binding(2) var<uniform> params: Params;

var<workgroup> best_val: array<f32, 128>;
var<workgroup> best_idx: array<u32, 128>;

const NO_INDEX = 0xffffffffu;

@compute @workgroup_size(128)
fn argmax_rows(@builtin(workgroup_id) wg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
  let base = wg.x * params.cols;
  // a strided scan of the row; the first element seen is taken whatever its value
  var top = -3.402823e+38f;
  var at = NO_INDEX;
  for (var c = lid; c < params.cols; c += 128u) {
    let candidate = logits[base + c];
    if (candidate > top || at == NO_INDEX) {
      top = candidate;
      at = c;
    }
  }
  best_val[lid] = top;
  best_idx[lid] = at;
  workgroupBarrier();
  // halving tree over the 128 pairs; equal values go to the smaller index
  for (var span = 64u; span > 0u; span >>= 1u) {
    if (lid < span) {
      let other_val = best_val[lid + span];
      let other_idx = best_idx[lid + span];
      let mine = best_val[lid];
      if (other_val > mine || (other_val == mine && other_idx < best_idx[lid])) {
        best_val[lid] = other_val;
        best_idx[lid] = other_idx;
      }
    }
    workgroupBarrier();
  }
  if (lid == 0u) {
    best[wg.x] = best_idx[0];
  }
}
"""


def _small_integers(rng, count, size):
    return rng.integers(-3, 4, count).astype(np.float32)


ARGMAX = Wild(
    KernelSpec(
        id="wild_workgroup_argmax_first_tie",
        entry_point="argmax_rows",
        sources={"wgsl": _ARGMAX},
        dims=("rows", "cols"),
        buffers=(
            BufferSpec(
                0,
                "f32",
                "read",
                name="logits",
                count="rows*cols",
                shape=("rows", "cols"),
                fill=_small_integers,
            ),
            BufferSpec(1, "u32", "read_write", name="best", count="rows"),
            BufferSpec.uniform(2, (("cols", "u32"),)),
        ),
        reference=lambda logits: np.argmax(logits, axis=1).astype(np.uint32),
        params=lambda s: {"cols": s.cols},
        grid=lambda s, size: (size.rows, 1, 1),
        schedules=(Schedule(128),),
        test_sizes=("rows=5,cols=1000", "rows=3,cols=7", "rows=64,cols=128", "rows=1,cols=1"),
    ),
    {
        "ties to the last index": (
            "wgsl",
            "other_idx < best_idx[lid]",
            "other_idx > best_idx[lid]",
        ),
        "strided ties to the last": (
            "wgsl",
            "if (candidate > top || at",
            "if (candidate >= top || at",
        ),
        "tree barrier dropped": (
            "wgsl",
            "      }\n    }\n    workgroupBarrier();\n  }",
            "      }\n    }\n  }",
        ),
    },
    invisible_on={("tree barrier dropped", "wgsl", "NVIDIA"): RACE_HIDDEN},
)

# -- web-llm: softmax with temperature over a vocabulary row, red_buf reductions -------------

_TVM_SOFTMAX = """
struct PODArgs { vocab_size: i32, temperature: f32 }
@group(0) @binding(0) var<storage, read_write> A : array<f32>;
@group(0) @binding(1) var<storage, read_write> T_softmax_norm : array<f32>;
@group(0) @binding(2) var<uniform> podArgs : PODArgs;

var<workgroup> red_buf0 : array<f32, 256>;
var<workgroup> red_buf1 : array<f32, 256>;

// kernel-forge corpus: web-llm's sampling softmax, shaped like TVM's WebGPU output.
// One workgroup a row: the max of the scaled logits, the denominator, then the
// probabilities, each pass a 256-strided loop and the first two a workgroup tree.
@compute @workgroup_size(256, 1, 1)
fn softmax_with_temperature_kernel(@builtin(workgroup_id) blockIdx : vec3<u32>,
                                   @builtin(local_invocation_id) threadIdx : vec3<u32>) {
  let n : i32 = podArgs.vocab_size;
  let base : i32 = i32(blockIdx.x) * n;
  let t : i32 = i32(threadIdx.x);

  var m : f32 = -3.402823e+38f;
  for (var j : i32 = t; j < n; j += 256) {
    m = max(m, A[base + j] / podArgs.temperature);
  }
  red_buf0[t] = m;
  workgroupBarrier();
  for (var s : i32 = 128; s > 0; s >>= 1u) {
    if (t < s) { red_buf0[t] = max(red_buf0[t], red_buf0[t + s]); }
    workgroupBarrier();
  }
  let row_max = red_buf0[0];

  var total : f32 = 0.0f;
  for (var j : i32 = t; j < n; j += 256) {
    total += exp(A[base + j] / podArgs.temperature - row_max);
  }
  red_buf1[t] = total;
  workgroupBarrier();
  for (var s : i32 = 128; s > 0; s >>= 1u) {
    if (t < s) { red_buf1[t] = red_buf1[t] + red_buf1[t + s]; }
    workgroupBarrier();
  }
  let denom = red_buf1[0];

  for (var j : i32 = t; j < n; j += 256) {
    T_softmax_norm[base + j] = exp(A[base + j] / podArgs.temperature - row_max) / denom;
  }
}
"""


def _softmax_temperature_reference(A, podArgs):
    z = A.astype(np.float64) / podArgs["temperature"]
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


TVM_SOFTMAX = Wild(
    KernelSpec(
        id="wild_webllm_softmax_temperature",
        entry_point="softmax_with_temperature_kernel",
        sources={"wgsl": _TVM_SOFTMAX},
        dims=("rows", "vocab"),
        buffers=(
            BufferSpec(0, "f32", "read", name="A", count="rows*vocab", shape=("rows", "vocab")),
            BufferSpec(
                1,
                "f32",
                "read_write",
                name="T_softmax_norm",
                count="rows*vocab",
                shape=("rows", "vocab"),
            ),
            BufferSpec.uniform(2, (("vocab_size", "i32"), ("temperature", "f32")), name="podArgs"),
        ),
        reference=_softmax_temperature_reference,
        params=lambda s: {"vocab_size": s.vocab},
        defaults={"temperature": 0.7},
        grid=lambda s, size: (size.rows, 1, 1),
        schedules=(Schedule(256),),
        nonfinite_inputs=False,
        domain={"A": (-10.0, 10.0)},
        test_sizes=("rows=2,vocab=32000", "rows=3,vocab=1000", "rows=1,vocab=1"),
    ),
    {
        "denominator misses the last 64 logits": (
            "wgsl",
            "for (var j : i32 = t; j < n; j += 256) {\n    total",
            "for (var j : i32 = t; j < n - 64; j += 256) {\n    total",
        ),
        "temperature ignored in the sum": (
            "wgsl",
            "total += exp(A[base + j] / podArgs.temperature - row_max);",
            "total += exp(A[base + j] - row_max);",
        ),
        # (a race in the max tree is no bug in the values: softmax is shift-invariant)
        "sum tree barrier dropped": (
            "wgsl",
            "if (t < s) { red_buf1[t] = red_buf1[t] + red_buf1[t + s]; }\n    workgroupBarrier();",
            "if (t < s) { red_buf1[t] = red_buf1[t] + red_buf1[t + s]; }",
        ),
    },
    invisible_on={("sum tree barrier dropped", "wgsl", "NVIDIA"): RACE_HIDDEN},
)

# -- onnxruntime-web: Exp over a [tokens, hidden] activation, vec4 storage -------------------

_ORT_EXP = """
struct Uniforms { vec_size: u32 };
@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> y: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;

// kernel-forge corpus: onnxruntime-web's unary Exp, four lanes an invocation
@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
  let q = global_id.x;
  if (q < uniforms.vec_size) {
    y[q] = exp(x[q]);
  }
}
"""

ORT_EXP = Wild(
    KernelSpec(
        id="wild_ort_exp_2d",
        entry_point="main",
        sources={"wgsl": _ORT_EXP},
        dims=("tokens", "hidden"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="tokens*hidden"),
            BufferSpec(1, "f32", "read_write", name="y", count="tokens*hidden"),
            BufferSpec.uniform(2, (("vec_size", "u32"),), name="uniforms"),
        ),
        reference=lambda x: np.exp(x.astype(np.float64)).astype(np.float32),
        params=lambda s: {"vec_size": ceil_div(int(s), 4)},
        grid=lambda s, size: (ceil_div(ceil_div(int(size), 4), 64), 1, 1),
        domain={"x": (-10.0, 10.0)},
        test_sizes=("tokens=8,hidden=4096", "tokens=1,hidden=4", "tokens=3,hidden=768"),
    ),
    {
        # exp through exp2 with log2(e) to five digits: 3.5e-6 * |x| relative, some 550
        # ulp at |x| = 10; caught when the same 32768 values are declared dims=("n",)
        "log2(e) to five digits": ("wgsl", "exp(x[q])", "exp2(x[q] * 1.4427)"),
        "exp of the negation": ("wgsl", "exp(x[q])", "exp(-x[q])"),
    },
)

# -- stream compaction by atomic append (culling / particle emit style) ---------------------
# Right, but the order of the kept indices is whatever order the invocations reach the
# atomic: the reference can only give one order, so ``kept`` is declared unordered
# (compared as a multiset; it was a MISMATCH before the spec could say so).

_APPEND = """
struct Counter { count: atomic<u32> }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> counter: Counter;
@group(0) @binding(2) var<storage, read_write> kept: array<u32>;

@compute @workgroup_size(64)
fn compact(@builtin(global_invocation_id) gid: vec3<u32>) {
  let n = gid.x;
  if (n >= arrayLength(&x)) {
    return;
  }
  if (x[n] > 0.5) {
    // take the next free slot and store this element's index in it
    let slot = atomicAdd(&counter.count, 1u);
    kept[slot] = n;
  }
}
"""


def _append_reference(x):
    idx = np.flatnonzero(x > 0.5).astype(np.uint32)
    kept = np.full(len(x), 0xFFFFFFFF, np.uint32)
    kept[: len(idx)] = idx
    return np.array([len(idx)], np.uint32), kept


APPEND = Wild(
    KernelSpec(
        id="wild_atomic_append_compaction",
        entry_point="compact",
        sources={"wgsl": _APPEND},
        buffers=(
            BufferSpec(0, "f32", "read", name="x", fill=(0.0, 1.0)),
            BufferSpec(1, "u32", "read_write", name="counter", count=1, initial=0),
            BufferSpec(2, "u32", "read_write", name="kept", initial=0xFFFFFFFF, unordered=True),
        ),
        reference=_append_reference,
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        schedules=(Schedule(64),),
        test_sizes=(100, 4099, 100000),
    ),
    {
        "keeps the rejected": ("wgsl", "x[n] > 0.5", "x[n] <= 0.5"),
        "stores the slot, not the index": ("wgsl", "kept[slot] = n;", "kept[slot] = slot;"),
        "slot one past the counter": (
            "wgsl",
            "atomicAdd(&counter.count, 1u);",
            "atomicAdd(&counter.count, 1u) + 1u;",
        ),
    },
)

# -- a uniform struct mirroring a #[repr(C)] host struct with @size padding ----------------

_SIZED_UNIFORM = """
struct Params {
  @size(8) count: u32,  // 8 bytes: the host struct's count and its pad word
  gain: f32,
}
@group(0) @binding(0) var<storage, read> samples: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(64)
fn apply_gain(@builtin(global_invocation_id) gid: vec3<u32>) {
  let n = gid.x;
  if (n < params.count) {
    out[n] = samples[n] * params.gain;
  }
}
"""

SIZED_UNIFORM = Wild(
    KernelSpec(
        id="wild_uniform_size_attribute",
        entry_point="apply_gain",
        sources={"wgsl": _SIZED_UNIFORM},
        buffers=(
            BufferSpec(0, "f32", "read", name="samples"),
            BufferSpec(1, "f32", "read_write", name="out"),
            # the host struct's pad word as a padding field (it holds 0); without it
            # the layout check refuses the spec, saying to add ("_pad0", "u32")
            BufferSpec.uniform(2, (("count", "u32"), ("_pad0", "u32"), ("gain", "f32"))),
        ),
        reference=lambda samples, params: samples * np.float32(params["gain"]),
        params=lambda n: {"count": n},
        defaults={"gain": 0.5},
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        test_sizes=(1000, 1, 4099),
    ),
    {
        "gain squared": (
            "wgsl",
            "samples[n] * params.gain;",
            "samples[n] * params.gain * params.gain;",
        ),
        "misses the last sample": ("wgsl", "n < params.count", "n + 1u < params.count"),
    },
)

ROUND5_WGSL = {
    w.kernel.id: w
    for w in (
        ORT_ADD,
        ORT_HARDSIGMOID,
        TFJS_PAD,
        TVM_GEMV,
        GPUCPP_GELU,
        BURN_MUL,
        BOIDS,
        FAST_RSQRT,
        TONEMAP,
        BITS_I32,
        ATOMIC_FMAX,
        F16_ROWNORM,
        ROLL,
        ARGMAX,
        TVM_SOFTMAX,
        ORT_EXP,
        APPEND,
        SIZED_UNIFORM,
    )
}

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

fn o2i_output(offset: u32) -> vec4<u32> {
  var indices: vec4<u32>;
  var current = offset;
  for (var i = 0u; i < 3u; i++) {
    let q = current / uniforms.output_strides[i];
    let r = current % uniforms.output_strides[i];
    indices[i] = q;
    current = r;
  }
  indices[3] = current;
  return indices;
}

fn broadcastIndicesToOffset_b(outputIndices: vec4<u32>) -> u32 {
  var offset: u32 = 0u;
  for (var i = 0u; i < 4u; i++) {
    let idx = select(outputIndices[i], 0u, uniforms.b_shape[i] == 1u);
    offset += idx * uniforms.b_strides[i];
  }
  return offset;
}

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) global_id : vec3<u32>,
        @builtin(workgroup_id) workgroup_id : vec3<u32>,
        @builtin(local_invocation_index) local_idx : u32,
        @builtin(num_workgroups) num_workgroups : vec3<u32>) {
  let global_idx = (workgroup_id.z * num_workgroups[0] * num_workgroups[1] +
                    workgroup_id.y * num_workgroups[0] + workgroup_id.x) * 64u + local_idx;
  if (global_idx >= uniforms.output_size) { return; }
  let outputIndices = o2i_output(global_idx);
  output[global_idx] = a[global_idx] + b[broadcastIndicesToOffset_b(outputIndices)];
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
            "let global_idx = (workgroup_id.z",
            "let global_idx = global_id.x; let unused = (workgroup_id.z",
        ),
        "broadcast select arms swapped": (
            "wgsl",
            "select(outputIndices[i], 0u, uniforms.b_shape[i] == 1u)",
            "select(0u, outputIndices[i], uniforms.b_shape[i] == 1u)",
        ),
        "b indexed with the output's strides": (
            "wgsl",
            "offset += idx * uniforms.b_strides[i];",
            "offset += idx * uniforms.output_strides[i];",
        ),
    },
)

# -- onnxruntime-web: HardSigmoid over vec4 storage, alpha and beta uniforms, n % 4 != 0 ----

_ORT_HARDSIGMOID = """
struct Uniforms { vec_size: u32, alpha: f32, beta: f32 };
@group(0) @binding(0) var<storage, read> input: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> output: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
  let global_idx = global_id.x;
  if (global_idx >= uniforms.vec_size) { return; }
  let a = input[global_idx];
  output[global_idx] = max(vec4<f32>(0.0), min(vec4<f32>(1.0),
      uniforms.alpha * a + vec4<f32>(uniforms.beta)));
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
            "uniforms.alpha * a + vec4<f32>(uniforms.beta)",
            "uniforms.alpha * a",
        ),
        "upper clamp at 6": ("wgsl", "min(vec4<f32>(1.0),", "min(vec4<f32>(6.0),"),
        "misses the last vector": (
            "wgsl",
            "global_idx >= uniforms.vec_size",
            "global_idx + 1u >= uniforms.vec_size",
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

const workgroupSizeX = 64u;
var<private> localId : vec3<u32>;
var<private> workgroupId : vec3<u32>;
var<private> numWorkgroups : vec3<u32>;

fn getGlobalIndex() -> i32 {
  let workgroupIndex = workgroupId.z * numWorkgroups.x * numWorkgroups.y +
      workgroupId.y * numWorkgroups.x + workgroupId.x;
  return i32(workgroupIndex * workgroupSizeX + localId.x);
}

fn getCoordsFromIndex(index : i32) -> vec2<i32> {
  var index2 = index;
  let d0 = index2 / uniforms.outShapeStrides;
  let d1 = index2 - d0 * uniforms.outShapeStrides;
  return vec2<i32>(d0, d1);
}

fn getIndexFromCoords2D(coords : vec2<i32>, shape : vec2<i32>) -> i32 {
  return dot(coords, vec2<i32>(shape.y, 1));
}

fn getX(d0 : i32, d1 : i32) -> f32 {
  return f32(x[getIndexFromCoords2D(vec2<i32>(d0, d1), uniforms.xShape)]);
}

fn setOutputAtIndex(flatIndex : i32, value : f32) {
  result[flatIndex] = f32(value);
}

@compute @workgroup_size(workgroupSizeX, 1, 1)
fn _start(@builtin(local_invocation_id) LocalId : vec3<u32>,
          @builtin(workgroup_id) WorkgroupId : vec3<u32>,
          @builtin(num_workgroups) NumWorkgroups : vec3<u32>) {
  localId = LocalId;
  workgroupId = WorkgroupId;
  numWorkgroups = NumWorkgroups;
  main(getGlobalIndex());
}

fn main(index : i32) {
  if (index < uniforms.size) {
    let start = uniforms.pad0;
    let end = uniforms.pad0 + uniforms.xShape;
    let outC = getCoordsFromIndex(index);
    if (any(outC < start) || any(outC >= end)) {
      setOutputAtIndex(index, uniforms.constantValue);
    } else {
      let rc = outC - start;
      setOutputAtIndex(index, getX(rc.x, rc.y));
    }
  }
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
        "end bound off by one": ("wgsl", "any(outC >= end)", "any(outC > end)"),
        "offset by the trailing pad": (
            "wgsl",
            "let rc = outC - start;",
            "let rc = outC - uniforms.pad1;",
        ),
        "row stride from the output": (
            "wgsl",
            "vec2<i32>(d0, d1), uniforms.xShape)",
            "vec2<i32>(d0, d1), uniforms.outShape)",
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

@compute @workgroup_size(256, 1, 1)
fn fused_NT_matmul_kernel(@builtin(workgroup_id) blockIdx : vec3<u32>,
                          @builtin(num_workgroups) gridDim : vec3<u32>,
                          @builtin(local_invocation_id) threadIdx : vec3<u32>) {
  if (blockIdx.z * gridDim.x + blockIdx.x > podArgs.packGridDimX) { return; }
  let v__1 : i32 = i32(blockIdx.z * gridDim.x + blockIdx.x);
  var in_thread_NT_matmul_intermediate_local : array<f32, 1>;
  in_thread_NT_matmul_intermediate_local[0] = 0.000000e+00f;
  for (var ax1_fused_0 : i32 = 0; ax1_fused_0 < ((podArgs.k + 255) >> 8u); ax1_fused_0++) {
    let k_idx : i32 = ((ax1_fused_0 * 256) + i32(threadIdx.x));
    if (k_idx < podArgs.k) {
      in_thread_NT_matmul_intermediate_local[0] = (in_thread_NT_matmul_intermediate_local[0]
          + (lv2[k_idx] * lv1[((v__1 * podArgs.k) + k_idx)]));
    }
  }
  red_buf0[threadIdx.x] = in_thread_NT_matmul_intermediate_local[0];
  workgroupBarrier();
  if (threadIdx.x < 128u) {
    red_buf0[threadIdx.x] = (red_buf0[threadIdx.x] + red_buf0[(threadIdx.x + 128u)]);
  }
  workgroupBarrier();
  if (threadIdx.x < 64u) {
    red_buf0[threadIdx.x] = (red_buf0[threadIdx.x] + red_buf0[(threadIdx.x + 64u)]);
  }
  workgroupBarrier();
  if (threadIdx.x < 32u) {
    red_buf0[threadIdx.x] = (red_buf0[threadIdx.x] + red_buf0[(threadIdx.x + 32u)]);
  }
  workgroupBarrier();
  if (threadIdx.x < 16u) {
    red_buf0[threadIdx.x] = (red_buf0[threadIdx.x] + red_buf0[(threadIdx.x + 16u)]);
  }
  workgroupBarrier();
  if (threadIdx.x < 8u) {
    red_buf0[threadIdx.x] = (red_buf0[threadIdx.x] + red_buf0[(threadIdx.x + 8u)]);
  }
  workgroupBarrier();
  if (threadIdx.x < 4u) {
    red_buf0[threadIdx.x] = (red_buf0[threadIdx.x] + red_buf0[(threadIdx.x + 4u)]);
  }
  workgroupBarrier();
  if (threadIdx.x < 2u) {
    red_buf0[threadIdx.x] = (red_buf0[threadIdx.x] + red_buf0[(threadIdx.x + 2u)]);
  }
  workgroupBarrier();
  if (threadIdx.x < 1u) {
    red_buf0[threadIdx.x] = (red_buf0[threadIdx.x] + red_buf0[(threadIdx.x + 1u)]);
  }
  workgroupBarrier();
  if (threadIdx.x == 0u) {
    var_NT_matmul_intermediate[v__1] = red_buf0[0];
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
            "red_buf0[threadIdx.x] = in_thread_NT_matmul_intermediate_local[0];\n"
            "  workgroupBarrier();",
            "red_buf0[threadIdx.x] = in_thread_NT_matmul_intermediate_local[0];",
        ),
        "last tree step dropped": (
            "wgsl",
            "if (threadIdx.x < 1u) {",
            "if (threadIdx.x < 0u) {",
        ),
        "weight row stride from n": (
            "wgsl",
            "lv1[((v__1 * podArgs.k) + k_idx)]",
            "lv1[((v__1 * podArgs.n) + k_idx)]",
        ),
        "k loop one block short": (
            "wgsl",
            "ax1_fused_0 < ((podArgs.k + 255) >> 8u)",
            "ax1_fused_0 < (podArgs.k >> 8u)",
        ),
    },
)

# -- gpu.cpp (AnswerDotAI): GELU with {{precision}} and {{workgroupSize}} -------------------

_GPUCPP_GELU = """
const GELU_SCALING_FACTOR: f32 = 0.7978845608028654; // sqrt(2.0 / PI)
@group(0) @binding(0) var<storage, read_write> inp: array<{{precision}}>;
@group(0) @binding(1) var<storage, read_write> out: array<{{precision}}>;
@compute @workgroup_size({{workgroupSize}})
fn main(
    @builtin(global_invocation_id) GlobalInvocationID: vec3<u32>) {
    let i: u32 = GlobalInvocationID.x;
    if (i < arrayLength(&inp)) {
        let x: f32 = inp[i];
        out[i] = select(0.5 * x * (1.0 + tanh(GELU_SCALING_FACTOR
                 * (x + .044715 * x * x * x))), x, x > 10.0);
    }
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
        "cube coefficient mistyped": ("wgsl", ".044715 * x * x * x", ".04715 * x * x * x"),
        "identity from 1 instead of 10": ("wgsl", "x, x > 10.0)", "x, x > 1.0)"),
        "last element unwritten": (
            "wgsl",
            "if (i < arrayLength(&inp))",
            "if (i + 1u < arrayLength(&inp))",
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

const WORKGROUP_SIZE_X = {{ workgroup_size_x }}u;

@compute
@workgroup_size({{ workgroup_size_x }}, {{ workgroup_size_y }}, 1)
fn main(
    @builtin(global_invocation_id) global_id: vec3<u32>,
    @builtin(num_workgroups) num_workgroups: vec3<u32>,
) {
    let id = global_id.y * (num_workgroups.x * WORKGROUP_SIZE_X) + global_id.x;
    if (id >= arrayLength(&output)) {
        return;
    }
    let dim: u32 = info[0];
    var index_lhs: u32 = 0u;
    var index_rhs: u32 = 0u;

    for (var i: u32 = 1u; i <= dim; i++) {
        let stride_lhs = info[i];
        let stride_rhs = info[i + dim];
        let stride_output = info[i + 2u * dim];
        let shape_lhs = info[i + 3u * dim];
        let shape_rhs = info[i + 4u * dim];

        index_lhs += id / stride_output % shape_lhs * stride_lhs;
        index_rhs += id / stride_output % shape_rhs * stride_rhs;
    }

    output[id] = lhs[index_lhs] * rhs[index_rhs];
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
        "last dimension skipped": ("wgsl", "i <= dim; i++", "i < dim; i++"),
        "rhs shape read from lhs's": (
            "wgsl",
            "let shape_rhs = info[i + 4u * dim];",
            "let shape_rhs = info[i + 3u * dim];",
        ),
        "row length without the workgroup width": (
            "wgsl",
            "global_id.y * (num_workgroups.x * WORKGROUP_SIZE_X)",
            "global_id.y * num_workgroups.x",
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

// https://github.com/austinEng/Project6-Vulkan-Flocking/blob/master/data/shaders/computeparticles/particle.comp
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) GlobalInvocationID : vec3u) {
  var index = GlobalInvocationID.x;

  var vPos = particlesA.particles[index].pos;
  var vVel = particlesA.particles[index].vel;
  var cMass = vec2(0.0);
  var cVel = vec2(0.0);
  var colVel = vec2(0.0);
  var cMassCount = 0u;
  var cVelCount = 0u;
  var pos : vec2f;
  var vel : vec2f;

  for (var i = 0u; i < arrayLength(&particlesA.particles); i++) {
    if (i == index) {
      continue;
    }

    pos = particlesA.particles[i].pos.xy;
    vel = particlesA.particles[i].vel.xy;
    if (distance(pos, vPos) < params.rule1Distance) {
      cMass += pos;
      cMassCount++;
    }
    if (distance(pos, vPos) < params.rule2Distance) {
      colVel -= pos - vPos;
    }
    if (distance(pos, vPos) < params.rule3Distance) {
      cVel += vel;
      cVelCount++;
    }
  }
  if (cMassCount > 0) {
    cMass = (cMass / vec2(f32(cMassCount))) - vPos;
  }
  if (cVelCount > 0) {
    cVel /= f32(cVelCount);
  }
  vVel += (cMass * params.rule1Scale) + (colVel * params.rule2Scale) +
      (cVel * params.rule3Scale);

  // clamp velocity for a more pleasing simulation
  vVel = normalize(vVel) * clamp(length(vVel), 0.0, 0.1);
  // kinematic update
  vPos = vPos + (vVel * params.deltaT);
  // Wrap around boundary
  if (vPos.x < -1.0) {
    vPos.x = 1.0;
  }
  if (vPos.x > 1.0) {
    vPos.x = -1.0;
  }
  if (vPos.y < -1.0) {
    vPos.y = 1.0;
  }
  if (vPos.y > 1.0) {
    vPos.y = -1.0;
  }
  // Write back
  particlesB.particles[index].pos = vPos;
  particlesB.particles[index].vel = vVel;
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
        "counts itself": ("wgsl", "if (i == index) {\n      continue;\n    }", ""),
        "aligns with positions": ("wgsl", "cVel += vel;", "cVel += pos;"),
        "speed clamped at 1": (
            "wgsl",
            "clamp(length(vVel), 0.0, 0.1)",
            "clamp(length(vVel), 0.0, 1.0)",
        ),
        "velocity not written back": ("wgsl", "particlesB.particles[index].vel = vVel;", ""),
    },
)

# -- bitcast: fast inverse square root and abs by the sign bit -----------------------------

_FAST_RSQRT = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> magnitude: array<f32>;
@group(0) @binding(2) var<storage, read_write> rsqrt: array<f32>;

fn q_rsqrt(number: f32) -> f32 {
  let x2 = number * 0.5;
  var i = bitcast<u32>(number);
  i = 0x5f3759dfu - (i >> 1u);
  var y = bitcast<f32>(i);
  y = y * (1.5 - (x2 * y * y));
  return y;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x;
  if (i >= arrayLength(&x)) { return; }
  let m = bitcast<f32>(bitcast<u32>(x[i]) & 0x7fffffffu);
  magnitude[i] = m;
  rsqrt[i] = q_rsqrt(m);
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
        "exponent halved twice": ("wgsl", "(i >> 1u)", "(i >> 2u)"),
        "no Newton step": ("wgsl", "y = y * (1.5 - (x2 * y * y));", ""),
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
  if (id.x >= params.count) { return; }
  let c = hdr[id.x] * params.exposure;
  let mapped = c / (vec4<f32>(1.0) + c);
  ldr[id.x] = pack4x8unorm(vec4<f32>(mapped.rgb, 1.0));
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
        "exposure ignored": ("wgsl", "hdr[id.x] * params.exposure", "hdr[id.x]"),
        "truncates instead of rounding": (
            "wgsl",
            "ldr[id.x] = pack4x8unorm(vec4<f32>(mapped.rgb, 1.0));",
            "let q = vec4<u32>(clamp(vec4<f32>(mapped.rgb, 1.0), vec4<f32>(0.0),"
            " vec4<f32>(1.0)) * 255.0);\n"
            "  ldr[id.x] = q.x | (q.y << 8u) | (q.z << 16u) | (q.w << 24u);",
        ),
    },
)

# -- signed bit builtins: firstLeadingBit, countOneBits, reverseBits, extractBits on i32 ---

_BITS_I32 = """
@group(0) @binding(0) var<storage, read> v: array<i32>;
@group(0) @binding(1) var<storage, read_write> bits: array<vec4<i32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x;
  if (i >= arrayLength(&v)) { return; }
  let x = v[i];
  bits[i] = vec4<i32>(firstLeadingBit(x), countOneBits(x), reverseBits(x), extractBits(x, 4u, 8u));
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
            "firstLeadingBit(x), ",
            "i32(firstLeadingBit(u32(x))), ",
        ),
        "field zero-extended": (
            "wgsl",
            "extractBits(x, 4u, 8u)",
            "i32(extractBits(u32(x), 4u, 8u))",
        ),
        "field one bit narrow": ("wgsl", "extractBits(x, 4u, 8u)", "extractBits(x, 4u, 7u)"),
    },
)

# -- float atomicMax through order-preserving bits, then a decode pass ---------------------

_ATOMIC_FMAX = """
@group(0) @binding(0) var<storage, read> values: array<f32>;
@group(0) @binding(1) var<storage, read> segment: array<u32>;
@group(0) @binding(2) var<storage, read_write> keys: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> seg_max: array<f32>;

fn float_to_ordered(f: f32) -> u32 {
  let b = bitcast<u32>(f);
  return select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
}

fn ordered_to_float(k: u32) -> f32 {
  return bitcast<f32>(select(~k, k & 0x7fffffffu, (k & 0x80000000u) != 0u));
}

@compute @workgroup_size(256)
fn scatter_max(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x;
  if (i < arrayLength(&values)) {
    atomicMax(&keys[segment[i]], float_to_ordered(values[i]));
  }
}

@compute @workgroup_size(64)
fn decode(@builtin(global_invocation_id) gid: vec3<u32>) {
  let s = gid.x;
  if (s < arrayLength(&seg_max)) {
    seg_max[s] = ordered_to_float(atomicLoad(&keys[s]));
  }
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
            "select(b | 0x80000000u, ~b,",
            "select(b | 0x80000000u, b | 0x80000000u,",
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
  let row = global_id.x;
  if (row >= uniforms.rows) { return; }
  var acc: f32 = 0.0;
  for (var c = 0u; c < uniforms.cols_vec4; c++) {
    let v = vec4<f32>(x[row * uniforms.cols_vec4 + c]);
    acc += dot(v, v);
  }
  norms[row] = f16(sqrt(acc));
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
            "c < uniforms.cols_vec4; c++",
            "c + 1u < uniforms.cols_vec4; c++",
        ),
        "sum, not sum of squares": ("wgsl", "acc += dot(v, v);", "acc += dot(v, vec4<f32>(1.0));"),
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
  let i = i32(gid.x);
  if (i >= params.rows * params.cols) { return; }
  let r = i / params.cols;
  let c = i % params.cols;
  let src = ((c - params.shift) % params.cols + params.cols) % params.cols;
  y[i] = x[r * params.cols + src];
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
            "((c - params.shift) % params.cols + params.cols) % params.cols",
            "(c - params.shift) % params.cols",
        ),
        "rolled the other way": ("wgsl", "(c - params.shift)", "(c + params.shift)"),
        "row from the row count": ("wgsl", "let r = i / params.cols;", "let r = i / params.rows;"),
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

@compute @workgroup_size(128)
fn argmax_rows(@builtin(workgroup_id) wg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
  let row = wg.x;
  var v = -3.402823e+38f;  // the first element replaces it whatever it is
  var idx = 0xffffffffu;
  for (var c = lid; c < params.cols; c += 128u) {
    let x = logits[row * params.cols + c];
    if (x > v || idx == 0xffffffffu) {
      v = x;
      idx = c;
    }
  }
  best_val[lid] = v;
  best_idx[lid] = idx;
  workgroupBarrier();
  for (var s = 64u; s > 0u; s >>= 1u) {
    if (lid < s) {
      let ov = best_val[lid + s];
      let oi = best_idx[lid + s];
      if (ov > best_val[lid] || (ov == best_val[lid] && oi < best_idx[lid])) {
        best_val[lid] = ov;
        best_idx[lid] = oi;
      }
    }
    workgroupBarrier();
  }
  if (lid == 0u) {
    best[row] = best_idx[0];
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
            "oi < best_idx[lid]",
            "oi > best_idx[lid]",
        ),
        "strided ties to the last": ("wgsl", "if (x > v || idx", "if (x >= v || idx"),
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

@compute @workgroup_size(256, 1, 1)
fn softmax_with_temperature_kernel(@builtin(workgroup_id) blockIdx : vec3<u32>,
                                   @builtin(local_invocation_id) threadIdx : vec3<u32>) {
  let row : i32 = i32(blockIdx.x);
  let tx : i32 = i32(threadIdx.x);
  var local_max : f32 = -3.402823e+38f;
  for (var k : i32 = tx; k < podArgs.vocab_size; k += 256) {
    local_max = max(local_max, A[row * podArgs.vocab_size + k] / podArgs.temperature);
  }
  red_buf0[tx] = local_max;
  workgroupBarrier();
  for (var s : i32 = 128; s > 0; s >>= 1u) {
    if (tx < s) { red_buf0[tx] = max(red_buf0[tx], red_buf0[tx + s]); }
    workgroupBarrier();
  }
  let row_max = red_buf0[0];
  var local_sum : f32 = 0.0f;
  for (var k : i32 = tx; k < podArgs.vocab_size; k += 256) {
    local_sum += exp(A[row * podArgs.vocab_size + k] / podArgs.temperature - row_max);
  }
  red_buf1[tx] = local_sum;
  workgroupBarrier();
  for (var s : i32 = 128; s > 0; s >>= 1u) {
    if (tx < s) { red_buf1[tx] = red_buf1[tx] + red_buf1[tx + s]; }
    workgroupBarrier();
  }
  let row_sum = red_buf1[0];
  for (var k : i32 = tx; k < podArgs.vocab_size; k += 256) {
    let i = row * podArgs.vocab_size + k;
    T_softmax_norm[i] = exp(A[i] / podArgs.temperature - row_max) / row_sum;
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
            "for (var k : i32 = tx; k < podArgs.vocab_size; k += 256) {\n    local_sum",
            "for (var k : i32 = tx; k < podArgs.vocab_size - 64; k += 256) {\n    local_sum",
        ),
        "temperature ignored in the sum": (
            "wgsl",
            "local_sum += exp(A[row * podArgs.vocab_size + k] / podArgs.temperature - row_max);",
            "local_sum += exp(A[row * podArgs.vocab_size + k] - row_max);",
        ),
        # (a race in the max tree is no bug in the values: softmax is shift-invariant)
        "sum tree barrier dropped": (
            "wgsl",
            "if (tx < s) { red_buf1[tx] = red_buf1[tx] + red_buf1[tx + s]; }\n"
            "    workgroupBarrier();",
            "if (tx < s) { red_buf1[tx] = red_buf1[tx] + red_buf1[tx + s]; }",
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

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
  let global_idx = global_id.x;
  if (global_idx >= uniforms.vec_size) { return; }
  let a = x[global_idx];
  y[global_idx] = exp(a);
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
        "log2(e) to five digits": ("wgsl", "exp(a)", "exp2(a * 1.4427)"),
        "exp of the negation": ("wgsl", "exp(a)", "exp(-a)"),
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
  let i = gid.x;
  if (i < arrayLength(&x) && x[i] > 0.5) {
    let slot = atomicAdd(&counter.count, 1u);
    kept[slot] = i;
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
        "keeps the rejected": ("wgsl", "x[i] > 0.5", "x[i] <= 0.5"),
        "stores the slot, not the index": ("wgsl", "kept[slot] = i;", "kept[slot] = slot;"),
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
  @size(8) count: u32,   // host: count: u32, _pad: u32
  gain: f32,
}
@group(0) @binding(0) var<storage, read> samples: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(64)
fn apply_gain(@builtin(global_invocation_id) gid: vec3<u32>) {
  if (gid.x >= params.count) { return; }
  out[gid.x] = samples[gid.x] * params.gain;
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
            "samples[gid.x] * params.gain;",
            "samples[gid.x] * params.gain * params.gain;",
        ),
        "misses the last sample": ("wgsl", "gid.x >= params.count", "gid.x + 1u >= params.count"),
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

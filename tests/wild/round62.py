"""Round 62 of kernels from the wild, merged into ``tests.wild.CORPUS``: WGSL subgroup
operations as web ML runtimes and WebGPU projects write them. Each is written for this
corpus after the public source named below: read, not copied (the project's rule for
public code). What is theirs is kept: the entry points, the bindings (groups, binding
numbers, access, types), the workgroup sizes and workgroup memory, the subgroup
built-ins and functions where they stand (the lane a value is broadcast from, the
guard on the lane that writes a subgroup's slot, the barriers between the levels),
the launch geometry the host gives, the numerics, and every real bug of the original
(named with each). What is ours: the comments, the locals' and helpers' names, the
order of equivalent statements and the formatting, and the values the host computes
that are not in the shader (said where).

The subgroups here, measured (2026-12-06, the probe in ``backends._probe`` and a kernel
writing ``subgroup_size``, ``subgroup_invocation_id`` and ``subgroupBroadcastFirst`` of
the local index): lavapipe runs subgroups of 8 lanes (wgpu-native reports no width for
it: the probe measures it), SwiftShader of 4 (reported as 4 to 4), each subgroup a
consecutive run of ``local_invocation_index`` (lane = index % width), with
``subgroup_id`` and ``num_subgroups`` on both; NVIDIA's Vulkan driver runs 32. WebGPU
lets a subgroup be 4 to 128 lanes wide, so a kernel written for one width is wrong at
another by WebGPU's rules: the mutants that assume NVIDIA's 32 fail on both CPU
adapters and may pass on NVIDIA, where they are right (``invisible_on``). A kernel
right only at some widths declares them, ``requires={"subgroup_size>=8"}`` (ORT-web's
host dispatches its Intel subgroup matmul only there), and is unsupported, saying why,
on SwiftShader.

- web-rwkv's subgroup softmax (cryscan/web-rwkv at 5eb930a1, MIT or Apache-2.0,
  ``src/shaders/subgroup/softmax.wgsl``, its FP32 variant): in place over rows of
  ``array<vec4<f32>>``, one workgroup of 128 a row (``invocation_id.y`` the token,
  ``.z`` the batch), the row's maximum by ``subgroupMax``, one vec4 a subgroup in
  ``sketch[subgroup_id]`` written by lane 0, a tree over ``num_subgroups`` slots, the
  scalar maximum kept in a ``var<workgroup>`` by invocation 0, read by each
  subgroup's lane 0 and ``subgroupBroadcast`` from it; the sum the same way with
  ``subgroupAdd``. Ours: ``BLOCK_SIZE`` 128 and ``MIN_SUBGROUP_SIZE`` 4 (WebGPU's
  least width; web-rwkv's host passes the adapter's) as constants.
- CubeCL's plane reduction (tracel-ai/cubecl at 94ae8f1c, MIT or Apache-2.0,
  ``crates/cubecl-reduce/src/plane.rs``, ``ReducePlaneInstruction for ArgMax``, with
  ``choose_argmax`` of ``instructions/argmax.rs`` at 0b209c77) as its WGSL compiler
  lowers it: one output row a plane (a subgroup; ``PLANE_DIM`` is
  ``subgroup_size``), the plane's global index ``CUBE_POS * cube_dim / PLANE_DIM +
  UNIT_POS / PLANE_DIM``, the row read in strides of ``PLANE_DIM`` with ``f32::MIN``
  for lanes past its end, each chunk's maximum by ``subgroupMax`` and its lowest
  coordinate holding it by ``subgroupMin`` of ``select(u32::MAX, coordinate, ...)``,
  kept against the accumulator with ties to the lower coordinate, lane 0 writing the
  u32 index under the compiler's bounds check. Ours: the metadata (``info``, the
  shapes and strides of a contiguous 2-D input as a flat ``array<u32>``), and the grid,
  ``ceil(rows * 32 / 256)`` cubes of 256 as a host taking 32-lane planes computes it
  (narrower subgroups leave planes with no row, which the checks skip).
- jowens' webgpu-benchmarking reduce (jowens/webgpu-benchmarking at 04ce2135, licence
  not stated in the repository, ``reduce.mjs``, ``ReduceDLDF``'s
  ``noAtomicPKReduceIntoPartials`` with ``binop.mjs``'s ``BinOpAddU32``): a
  persistent-kernel u32 sum, each invocation a grid-stride loop, ``subgroupAdd``, the
  subgroup's total in ``wgTemp[lid / sgsz]`` under ``subgroupElect()``, a barrier,
  then the first subgroup (``lid < sgsz``) reads the ``numSubgroups`` totals with
  ``select`` and adds them with ``subgroupAdd`` again; the first of its two launches,
  into one partial a workgroup (the second runs the same kernel, one workgroup, over
  the partials: three buffers moved between two variables, which the backends cannot
  bind yet, since each also binds every buffer at its own slot and Dawn refuses the
  writable alias). Its real bug, the TODO in its
  source ("what if there are more threads than subgroup_size * subgroup_size?"): the
  first subgroup reads as many totals as it has lanes, so a workgroup of 64 needs
  subgroups of 8 lanes or more (on SwiftShader's 4 it sums 4 of 16 totals): the entry
  declares ``requires={"subgroups", "subgroup_size>=8"}``; undeclared, its MISMATCH on
  SwiftShader is the right verdict and says the width (tests/test_wild_round62.py).
  Ours: workgroups of 64 and at most 32 of them (its parameter ranges hold both).
- ONNX Runtime Web's Intel subgroup matmul (microsoft/onnxruntime at 032af79f, MIT,
  ``onnxruntime/core/providers/webgpu/vendor/intel/math/gemm_subgroup.cc``,
  ``MakeMatMulSubgroupSource``) as it generates WGSL for a plain f32 ``A @ B`` (no
  batch, no transposes, ``is_vec4`` false, 4 elements a thread in x and 4 in y as on
  Xe-LPG): workgroups of 256 seen as 32 x 8, a 32 x 128 tile of B in workgroup memory,
  each lane reading its own column of A (``aCol = kStart + tileCol % sg_size``) and
  every lane's value handed round by ``subgroupBroadcast(a_val_i, lane)`` with a
  literal lane, one branch written out per width 32, 16 and 8 (``simd_map``); at
  another width no branch runs and the output is zeros. ORT's host dispatches it only
  on Intel (``CanApplySubgroup``), whose subgroups are 8 to 32 wide: the entry
  declares ``requires={"subgroups", "subgroup_size>=8"}``. Ours: ORT's
  ``mm_readA``, ``mm_readB`` and ``mm_write`` and its uniforms for this case written
  as the program's shader helper writes them (bounds-checked reads that give 0, a
  bounds-checked write), and the 1-D dispatch's workgroup count.
- web-rwkv's subgroup RMS norm (cryscan/web-rwkv at 62c346c8, MIT or Apache-2.0,
  ``src/shaders/subgroup/rms_norm.wgsl``, ``rms_norm`` in FP32): the squares by
  ``subgroupAdd`` into ``sketch[subgroup_id]``, the generic tree over
  ``num_subgroups`` (web-rwkv compiles in two fixed levels, ``reduce_sum(index, 2u)``
  and ``(index, 1u)``, where its host sees 32-lane subgroups: a mutant here), the scale
  ``inverseSqrt(mean + EPS)`` kept by invocation 0, then ``fma`` with the f16 weight
  and bias read as ``vec2<u32>``. Ours: ``EPS`` 1e-5 and the constants as in entry 1.
- Austin Eng's webgpu-kernels (austinEng/webgpu-kernels at d24a02c5, licence not
  stated in the repository, ``data/matVecMul_5.wgsl``): a matrix-vector product over
  vec4s, a block of four rows an invocation, one loop a subgroup width (4, 8, 16, 32)
  written out by its generator, each lane loading one vector element and every lane's
  broadcast in turn (a literal lane), no bound on the rows or columns (its sizes are
  whole workgroups and whole subgroups of columns), and ``enable
  chromium_experimental_subgroups;``, Chrome's origin-trial name for ``subgroups``. A
  width it has no loop for leaves zeros: it declares ``subgroup_size<=32``.

What they showed (tests/test_wild_round62.py): every original passes on the reference,
lavapipe and SwiftShader where it runs (the two that need 8 lanes are unsupported on
SwiftShader, naming its 4), and every mutant fails on both CPU adapters but those
whose branch or assumption does not run at that width (``invisible_on``, each saying
so). Found and fixed on the way: lavapipe's width was unknown (the probe measures it);
a kernel could not declare the widths it is written for (``subgroup_size>=N``); naga
refused ``subgroupElect()`` and a bare literal lane (the wgpu backend spells them as
naga takes them); the origin trial's extension name was unsupported; and a module
using subgroups had no reversed rerun, so the RMS norm with the barrier after its
scale dropped passed on both CPU adapters (the rerun now reverses whole subgroups).
Not fixed: jowens' reduce runs its first launch only, since three buffers moved
between two variables cannot be bound (both backends also bind every buffer at its
own slot; Dawn refuses the writable alias).

On NVIDIA (32 lanes) the mutants written for 32 lanes pass (``invisible_on``), and
Austin Eng's 8- and 4-lane mutants do not run; the dropped barriers may hide there as
they do on the CPU adapters without the reversed rerun.
"""

# ruff: noqa: E501  (the WGSL keeps its sources' long lines)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, KernelSpec, Schedule, ceil_div

from . import Wild

#: Why a mutant that assumes NVIDIA's 32 lanes may pass there (``Wild.invisible_on``).
RIGHT_AT_32 = (
    "written for subgroups of 32 lanes, which NVIDIA's Vulkan driver runs: right there, "
    "wrong at lavapipe's 8 and SwiftShader's 4 (WebGPU allows 4 to 128)"
)

# -- 1. web-rwkv: a softmax whose reductions go through subgroups ------------------------

_RWKV_SOFTMAX = """enable subgroups;

@group(0) @binding(0) var<uniform> shape: vec4<u32>;                        // [C, T, B]
@group(0) @binding(1) var<storage, read_write> x: array<vec4<f32>>;         // (B, T, C)

const BLOCK_SIZE: u32 = 128u;
const MIN_SUBGROUP_SIZE: u32 = 4u;
// one slot a subgroup, for the narrowest subgroups the workgroup can have
const NUM_SUBGROUPS: u32 = BLOCK_SIZE / MIN_SUBGROUP_SIZE;

var<workgroup> sketch: array<vec4<f32>, NUM_SUBGROUPS>;
var<workgroup> sum: f32;
var<workgroup> maximum: f32;

@compute @workgroup_size(BLOCK_SIZE, 1, 1)
fn softmax(
    @builtin(global_invocation_id) invocation_id: vec3<u32>,
    @builtin(num_subgroups) num_subgroups: u32,
    @builtin(subgroup_id) subgroup_id: u32,
    @builtin(subgroup_size) subgroup_size: u32,
    @builtin(subgroup_invocation_id) subgroup_invocation_id: u32
) {
    let stride = shape[0] / 4u;
    let index = invocation_id.x;
    let token = invocation_id.y;
    let batch = invocation_id.z;
    let row = (batch * shape[1] + token) * stride;

    // each invocation's columns, then its subgroup's, then one slot a subgroup
    var peak = vec4<f32>(-1.0e30);
    for (var i = index; i < stride; i += BLOCK_SIZE) {
        peak = max(peak, x[row + i]);
    }
    peak = subgroupMax(peak);
    if subgroup_invocation_id == 0u {
        sketch[subgroup_id] = peak;
    }
    workgroupBarrier();

    for (var step = num_subgroups >> 1u; step > 0u; step >>= 1u) {
        if index < step {
            sketch[index] = max(sketch[index], sketch[index + step]);
        }
        workgroupBarrier();
    }

    var row_max: f32;
    if index == 0u {
        peak = sketch[0];
        row_max = max(max(peak.x, peak.y), max(peak.z, peak.w));
        maximum = row_max;
    }
    workgroupBarrier();

    // lane 0 of each subgroup reads it, and hands it to its lanes
    if subgroup_invocation_id == 0u {
        row_max = maximum;
    }
    row_max = subgroupBroadcast(row_max, 0u);

    var total: vec4<f32>;
    for (var i = index; i < stride; i += BLOCK_SIZE) {
        total += exp(x[row + i] - row_max);
    }
    total = subgroupAdd(total);
    if subgroup_invocation_id == 0u {
        sketch[subgroup_id] = total;
    }
    workgroupBarrier();

    for (var step = num_subgroups >> 1u; step > 0u; step >>= 1u) {
        if index < step {
            sketch[index] += sketch[index + step];
        }
        workgroupBarrier();
    }

    var row_sum: f32;
    if index == 0u {
        row_sum = dot(sketch[0], vec4<f32>(1.0));
        sum = row_sum;
    }
    workgroupBarrier();

    if subgroup_invocation_id == 0u {
        row_sum = sum;
    }
    row_sum = subgroupBroadcast(row_sum, 0u);

    for (var i = index; i < stride; i += BLOCK_SIZE) {
        x[row + i] = exp(x[row + i] - row_max) / row_sum;
    }
}
"""


def _rwkv_softmax_reference(x):
    rows = x.astype(np.float64)
    e = np.exp(rows - rows.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)


RWKV_SOFTMAX = Wild(
    KernelSpec(
        id="wild_r62_web_rwkv_subgroup_softmax",
        entry_point="softmax",
        sources={"wgsl": _RWKV_SOFTMAX},
        dims=("B", "T", "C"),
        buffers=(
            BufferSpec.uniform(0, (("shape", "vec4<u32>"),), name="shape"),
            BufferSpec(
                1, "f32", "read_write", name="x", count="B*T*C", shape=("B", "T", "C"), inout=True
            ),
        ),
        reference=_rwkv_softmax_reference,
        params=lambda s: {"shape": (int(s.C), int(s.T), int(s.B), 1)},
        grid=lambda sched, s: (1, int(s.T), int(s.B)),
        schedules=(Schedule(128),),
        # 516 columns: 129 vec4s, one invocation with two; 20 columns: most idle
        test_sizes=("1x6x516", "1x3x20"),
    ),
    {
        "the maximum not broadcast from lane 0": (
            "wgsl",
            "    row_max = subgroupBroadcast(row_max, 0u);\n",
            "",
        ),
        "the sum's tree over four slots, as 32-lane subgroups leave": (
            "wgsl",
            "step = num_subgroups >> 1u; step > 0u; step >>= 1u) {\n        if index < step {\n            sketch[index] +=",
            "step = 2u; step > 0u; step >>= 1u) {\n        if index < step {\n            sketch[index] +=",
        ),
        "no barrier after the sums' slots": (
            "wgsl",
            "        sketch[subgroup_id] = total;\n    }\n    workgroupBarrier();\n",
            "        sketch[subgroup_id] = total;\n    }\n",
        ),
    },
    invisible_on={
        (
            "the sum's tree over four slots, as 32-lane subgroups leave",
            "wgsl",
            "NVIDIA",
        ): RIGHT_AT_32,
    },
)

# -- 2. CubeCL: an argmax a row, one row a plane -----------------------------------------

_CUBECL_ARGMAX = """enable subgroups;

@group(0) @binding(0) var<storage, read_write> input_0_global: array<f32>;
@group(0) @binding(1) var<storage, read_write> output_0_global: array<u32>;
// [input stride 0, input stride 1, input shape 0, input shape 1, output stride 0, output shape 0]
@group(0) @binding(2) var<storage, read> info: array<u32>;

const WORKGROUP_SIZE_X = 256u;
const WORKGROUP_SIZE_Y = 1u;
const WORKGROUP_SIZE_Z = 1u;

@compute
@workgroup_size(256, 1, 1)
fn reduce_kernel(
    @builtin(local_invocation_index) local_idx: u32,
    @builtin(workgroup_id) workgroup_id: vec3<u32>,
    @builtin(subgroup_size) subgroup_size: u32,
    @builtin(subgroup_invocation_id) subgroup_invocation_id: u32,
) {
    let cube_pos = workgroup_id.x;
    // this plane's output row
    let plane_id_global = cube_pos * 256u / subgroup_size + local_idx / subgroup_size;

    var best = -3.4028234663852886e38f;
    var best_at = 0u;

    // the row's first input element, from the output's coordinate
    let out_coord = (plane_id_global / info[4u]) % info[5u];
    let offset = out_coord * info[0u];

    let shape_reduce = info[3u];
    let items_per_unit = (shape_reduce + subgroup_size - 1u) / subgroup_size;
    for (var i = 0u; i < items_per_unit; i++) {
        let coordinate = i * subgroup_size + subgroup_invocation_id;
        let index = offset + coordinate * info[1u];
        var item = -3.4028234663852886e38f;
        if coordinate < shape_reduce {
            item = input_0_global[index];
        }
        // the chunk's maximum, and the lowest coordinate that holds it
        let candidate = subgroupMax(item);
        let candidate_at = subgroupMin(select(4294967295u, coordinate, item == candidate));
        // keep the candidate where it beats the accumulator, or ties it lower
        let keep = select(candidate > best, candidate_at < best_at, candidate == best);
        best = select(best, candidate, keep);
        best_at = select(best_at, candidate_at, keep);
    }

    if subgroup_invocation_id == 0u {
        if plane_id_global < arrayLength(&output_0_global) {
            output_0_global[plane_id_global] = best_at;
        }
    }
}
"""


def _cubecl_info(rng, count, size):
    rows, cols = int(size.R), int(size.C)
    return np.array([cols, 1, rows, cols, 1, rows], np.uint32)


def _cubecl_argmax_reference(input_0_global):
    return np.argmax(input_0_global, axis=1).astype(np.uint32)


CUBECL_ARGMAX = Wild(
    KernelSpec(
        id="wild_r62_cubecl_reduce_plane_argmax",
        entry_point="reduce_kernel",
        sources={"wgsl": _CUBECL_ARGMAX},
        dims=("R", "C"),
        buffers=(
            BufferSpec(0, "f32", "read", name="input_0_global", count="R*C", shape=("R", "C")),
            BufferSpec(1, "u32", "read_write", name="output_0_global", count="R"),
            BufferSpec(2, "u32", "read", name="info", count=6, fill=_cubecl_info),
        ),
        reference=_cubecl_argmax_reference,
        # cubes of 256 for 32-lane planes: 8 rows a cube
        grid=lambda sched, s: (ceil_div(int(s.R) * 32, 256), 1, 1),
        schedules=(Schedule(256),),
        # 41 columns: the last chunk partly past the row at 4 and 8 lanes alike
        test_sizes=("67x41", "3x5"),
    ),
    {
        "the row read in strides of 32 lanes": (
            "wgsl",
            "let coordinate = i * subgroup_size + subgroup_invocation_id;",
            "let coordinate = i * 32u + subgroup_invocation_id;",
        ),
        "lanes past the row padded with 0": (
            "wgsl",
            "var item = -3.4028234663852886e38f;",
            "var item = 0.0f;",
        ),
        "the row's end bound inclusive": (
            "wgsl",
            "if coordinate < shape_reduce {",
            "if coordinate <= shape_reduce {",
        ),
    },
    invisible_on={
        ("the row read in strides of 32 lanes", "wgsl", "NVIDIA"): RIGHT_AT_32,
    },
)

# -- 3. webgpu-benchmarking: a persistent u32 sum, the subgroups' totals by the first ----

_PK_REDUCE = """enable subgroups;
// output
@group(0) @binding(0) var<storage, read_write> outBuffer: array<u32>;
// input
@group(0) @binding(1) var<storage, read> inBuffer: array<u32>;

// TODO (theirs): 32 slots should be workgroupSize / subgroupSize
var<workgroup> wgTemp: array<u32, 32>; // zeroed, as WGSL's workgroup memory starts

fn binop(a : u32, b : u32) -> u32 {return a+b;}

fn roundUpDivU32(a : u32, b : u32) -> u32 {
  return (a + b - 1) / b;
}

@compute @workgroup_size(64) fn noAtomicPKReduceIntoPartials(
  @builtin(global_invocation_id) id: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(workgroup_id) wgid: vec3u,
  @builtin(local_invocation_index) lid: u32,
  @builtin(subgroup_size) sgsz: u32,
  @builtin(subgroup_invocation_id) sgid: u32) {
    // the TODO of theirs: more invocations than sgsz * sgsz are not handled
    var acc: u32 = 0;
    var numSubgroups = roundUpDivU32(64, sgsz);
    // a grid-stride loop: each pass takes one element an invocation
    for (var i = id.x;
      i < arrayLength(&inBuffer);
      i += nwg.x * 64) {
        acc = binop(acc, inBuffer[i]);
    }
    workgroupBarrier();
    // each subgroup's total, kept by one of its lanes
    acc = subgroupAdd(acc);
    var mySubgroupID = lid / sgsz;
    if (subgroupElect()) {
      wgTemp[mySubgroupID] = acc;
    }
    workgroupBarrier(); // every total written
    if (lid < sgsz) {
      // the first subgroup reads the totals, a lane each
      acc = select(0, wgTemp[lid], lid < numSubgroups);
    }
    // every subgroup adds, invocation 0's sum is the one kept
    acc = subgroupAdd(acc);
    if (lid == 0) {
      outBuffer[wgid.x] = acc;
    }
}
"""

_PK_GROUPS = 32  # maxGSLWorkgroupCount


def _pk_workgroups(size) -> int:
    return min(ceil_div(int(size), 64), _PK_GROUPS)


def _pk_reduce_reference(inBuffer, outBuffer):
    n = inBuffer.shape[0]
    groups = outBuffer.shape[0]
    owner = (np.arange(n) // 64) % groups  # the workgroup whose stride takes each
    sums = np.zeros(groups, np.uint64)
    np.add.at(sums, owner, inBuffer.astype(np.uint64))
    return (sums % 2**32).astype(np.uint32)


PK_REDUCE = Wild(
    KernelSpec(
        id="wild_r62_jowens_no_atomic_pk_reduce_subgroup_elect",
        entry_point="noAtomicPKReduceIntoPartials",
        sources={"wgsl": _PK_REDUCE},
        buffers=(
            BufferSpec(0, "u32", "read_write", name="outBuffer", count=_pk_workgroups),
            BufferSpec(1, "u32", "read", name="inBuffer"),
        ),
        reference=_pk_reduce_reference,
        requires={"subgroups", "subgroup_size>=8"},
        grid=lambda s, size: (_pk_workgroups(size), 1, 1),
        schedules=(Schedule(64),),
        # 32 workgroups and a grid stride of five laps and a part; one partial workgroup
        test_sizes=(10007, 37),
    ),
    {
        "the totals counted for 32-lane subgroups": (
            "wgsl",
            "var numSubgroups = roundUpDivU32(64, sgsz);",
            "var numSubgroups = roundUpDivU32(64, 32);",
        ),
        "the grid stride one workgroup": ("wgsl", "i += nwg.x * 64) {", "i += 64) {"),
        "no barrier before the first subgroup reads the totals": (
            "wgsl",
            "    workgroupBarrier(); // every total written\n",
            "",
        ),
    },
    invisible_on={
        ("the totals counted for 32-lane subgroups", "wgsl", "NVIDIA"): RIGHT_AT_32,
    },
)

# -- 4. ONNX Runtime Web: Intel's subgroup matmul, A's values broadcast across lanes ------

_ORT_EPT_Y = 4  # elements a thread along the rows (ElementsPerThreadY on Xe-LPG)
_ORT_TILE_A = 8 * _ORT_EPT_Y  # rows of a workgroup's tile
_ORT_TILE_B = 32 * 4  # columns of a workgroup's tile


def _ort_accumulate() -> str:
    """``CalculateAccStr``: a branch a subgroup width ORT handles, each reading A a
    column a lane, then every lane's value broadcast, literal lane by literal lane,
    against a row of the B tile gathered into a vec4."""
    lines = []
    for width, offsets in ((32, (0,)), (16, (0, 16)), (8, (0, 8, 16, 24))):
        lines.append(f"    if (sg_size == {width}) {{")
        for offset in offsets:
            lines += [
                f"      a_val_{r} = mm_readA(batch, globalRowStart + {r}, aCol);"
                for r in range(_ORT_EPT_Y)
            ]
            lines.append(f"      aCol += {width};")
            for lane in range(width):
                at = lane + offset
                lines.append(
                    f"      BCache = vec4<f32>(mm_Bsub[{at}][tileCol], mm_Bsub[{at}][tileCol + 32], "
                    f"mm_Bsub[{at}][tileCol + 64], mm_Bsub[{at}][tileCol + 96]);"
                )
                lines += [
                    f"      acc_{r} += subgroupBroadcast(a_val_{r}, {lane}) * BCache;"
                    for r in range(_ORT_EPT_Y)
                ]
        lines.append("    }")
    return "\n".join(lines)


_ORT_SUBGROUP_MATMUL = (
    """enable subgroups;

struct Uniforms {
  dim_a_outer: i32,
  dim_b_outer: i32,
  dim_inner: i32,
};
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> output: array<f32>;
@group(0) @binding(3) var<uniform> uniforms: Uniforms;

// out-of-range reads give 0, out-of-range writes are dropped (ORT's helpers)
fn mm_readA(batch: i32, row: i32, colIn: i32) -> f32 {
  var value = f32(0);
  let col = colIn;
  if (row < uniforms.dim_a_outer && col < uniforms.dim_inner) {
    value = a[u32(row * uniforms.dim_inner + col)];
  }
  return value;
}

fn mm_readB(batch: i32, row: i32, colIn: i32) -> f32 {
  var value = f32(0);
  let col = colIn;
  if (row < uniforms.dim_inner && col < uniforms.dim_b_outer) {
    value = b[u32(row * uniforms.dim_b_outer + col)];
  }
  return value;
}

fn mm_write(batch: i32, row: i32, colIn: i32, valueIn: f32) {
  let col = colIn;
  if (row < uniforms.dim_a_outer && col < uniforms.dim_b_outer) {
    output[u32(row * uniforms.dim_b_outer + col)] = valueIn;
  }
}

var<workgroup> mm_Bsub: array<array<f32, 128>, 32>;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_id) local_id: vec3<u32>,
        @builtin(workgroup_id) workgroup_id: vec3<u32>,
        @builtin(subgroup_size) sg_size: u32) {
  let workgroup_idx = workgroup_id.x;
  let workgroupIdXStride = (uniforms.dim_b_outer - 1) / 128 + 1;
  let workgroupIdYStride = (uniforms.dim_a_outer - 1) / 32 + 1;
  let batch = i32(workgroup_idx / u32(workgroupIdXStride * workgroupIdYStride));
  let workgroupIdXY = workgroup_idx % u32(workgroupIdXStride * workgroupIdYStride);
  let workgroupIdX = workgroupIdXY % u32(workgroupIdXStride);
  let workgroupIdY = workgroupIdXY / u32(workgroupIdXStride);
  let tileRow = i32(local_id.x / 32) * 4;
  let tileCol = i32(local_id.x % 32);
  let localRow = i32(local_id.x / 32);
  let globalRowStart = i32(workgroupIdY) * 32 + tileRow;
  let globalColStart = i32(workgroupIdX) * 128 + tileCol;
  let numTiles = (uniforms.dim_inner - 1) / 32 + 1;
  var kStart = 0;
  var aCol = 0;
  var BCache: vec4<f32>;
  var acc_0 = vec4<f32>(0);
  var a_val_0 = f32(0);
  var acc_1 = vec4<f32>(0);
  var a_val_1 = f32(0);
  var acc_2 = vec4<f32>(0);
  var a_val_2 = f32(0);
  var acc_3 = vec4<f32>(0);
  var a_val_3 = f32(0);
  for (var t = 0; t < i32(numTiles); t++) {
    // 32 rows of B, four a row of the workgroup's eight, four columns 32 apart
    let loadRowsPerThread = 4;
    for (var innerRow = 0; innerRow < loadRowsPerThread; innerRow++) {
      let inputRow = loadRowsPerThread * localRow + innerRow;
      let inputCol = tileCol;
      mm_Bsub[inputRow][inputCol + 0] = mm_readB(batch, kStart + inputRow, globalColStart + 0);
      mm_Bsub[inputRow][inputCol + 32] = mm_readB(batch, kStart + inputRow, globalColStart + 32);
      mm_Bsub[inputRow][inputCol + 64] = mm_readB(batch, kStart + inputRow, globalColStart + 64);
      mm_Bsub[inputRow][inputCol + 96] = mm_readB(batch, kStart + inputRow, globalColStart + 96);
    }
    workgroupBarrier();
    aCol = kStart + tileCol % i32(sg_size);
"""
    + _ort_accumulate()
    + """
    kStart = kStart + 32;
    workgroupBarrier();
  }
"""
    + "".join(
        f"  mm_write(batch, globalRowStart + {r}, globalColStart + {32 * j}, acc_{r}[{j}]);\n"
        for r in range(_ORT_EPT_Y)
        for j in range(4)
    )
    + "}\n"
)


def _ort_matmul_reference(a, b):
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)


ORT_SUBGROUP_MATMUL = Wild(
    KernelSpec(
        id="wild_r62_ort_intel_subgroup_matmul_broadcast",
        entry_point="main",
        sources={"wgsl": _ORT_SUBGROUP_MATMUL},
        dims=("M", "K", "N"),
        buffers=(
            BufferSpec(0, "f32", "read", name="a", count="M*K", shape=("M", "K")),
            BufferSpec(1, "f32", "read", name="b", count="K*N", shape=("K", "N")),
            BufferSpec(2, "f32", "read_write", name="output", count="M*N", shape=("M", "N")),
            BufferSpec.uniform(
                3, (("dim_a_outer", "i32"), ("dim_b_outer", "i32"), ("dim_inner", "i32"))
            ),
        ),
        reference=_ort_matmul_reference,
        requires={"subgroups", "subgroup_size>=8"},
        params=lambda s: {
            "dim_a_outer": int(s.M),
            "dim_b_outer": int(s.N),
            "dim_inner": int(s.K),
        },
        grid=lambda sched, s: (
            ceil_div(int(s.M), _ORT_TILE_A) * ceil_div(int(s.N), _ORT_TILE_B),
            1,
            1,
        ),
        schedules=(Schedule(256),),
        # three row tiles, two column tiles, two k tiles, none whole
        test_sizes=("67x41x133", "5x3x7"),
    ),
    {
        "A's column from the lane of a 32-wide subgroup": (
            "wgsl",
            "aCol = kStart + tileCol % i32(sg_size);",
            "aCol = kStart + tileCol % 32;",
        ),
        "the B tile's last row of four not loaded": (
            "wgsl",
            "innerRow < loadRowsPerThread; innerRow++",
            "innerRow < loadRowsPerThread - 1; innerRow++",
        ),
        "no barrier before the next tile of B is loaded": (
            "wgsl",
            "    kStart = kStart + 32;\n    workgroupBarrier();\n",
            "    kStart = kStart + 32;\n",
        ),
    },
    invisible_on={
        ("A's column from the lane of a 32-wide subgroup", "wgsl", "NVIDIA"): RIGHT_AT_32,
    },
)


# -- 5. web-rwkv: an RMS norm whose sums go through subgroups -----------------------------

_RWKV_RMS_NORM = """enable subgroups;

@group(0) @binding(0) var<uniform> shape: vec4<u32>;                        // [C, T, B]

@group(0) @binding(1) var<storage, read> w: array<vec2<u32>>;               // (C)
@group(0) @binding(2) var<storage, read> b: array<vec2<u32>>;               // (C)
@group(0) @binding(3) var<storage, read_write> x: array<vec4<f32>>;         // (B, T, C)

const BLOCK_SIZE: u32 = 128u;
const MIN_SUBGROUP_SIZE: u32 = 4u;
const NUM_SUBGROUPS: u32 = BLOCK_SIZE / MIN_SUBGROUP_SIZE;
const EPS: f32 = 1.0e-5;

var<workgroup> sketch: array<vec4<f32>, NUM_SUBGROUPS>;
var<workgroup> rms: f32;

fn unpack4x16float(x: vec2<u32>) -> vec4<f32> {
    return vec4<f32>(unpack2x16float(x.x), unpack2x16float(x.y));
}

fn reduce_sum(index: u32, stride: u32) {
    if index < stride {
        sketch[index] += sketch[index + stride];
    }
    workgroupBarrier();
}

@compute @workgroup_size(BLOCK_SIZE, 1, 1)
fn rms_norm(
    @builtin(global_invocation_id) invocation_id: vec3<u32>,
    @builtin(num_subgroups) num_subgroups: u32,
    @builtin(subgroup_id) subgroup_id: u32,
    @builtin(subgroup_size) subgroup_size: u32,
    @builtin(subgroup_invocation_id) subgroup_invocation_id: u32
) {
    let stride = shape[0] / 4u;
    let index = invocation_id.x;
    let token = invocation_id.y;
    let batch = invocation_id.z;
    let row = (batch * shape[1] + token) * stride;

    // the squares, an invocation's columns, then its subgroup's, one slot a subgroup
    var squares: vec4<f32>;
    for (var i = index; i < stride; i += BLOCK_SIZE) {
        let value = x[row + i];
        squares += value * value;
    }
    squares = subgroupAdd(squares);
    if subgroup_invocation_id == 0u { sketch[subgroup_id] = squares; }
    workgroupBarrier();

    // (web-rwkv compiles two levels in where the adapter's subgroups are 32 wide)
    for (var step = num_subgroups >> 1u; step > 0u; step >>= 1u) {
        if index < step {
            sketch[index] += sketch[index + step];
        }
        workgroupBarrier();
    }

    if index == 0u {
        rms = inverseSqrt(dot(sketch[0], vec4<f32>(1.0)) / f32(shape[0]) + EPS);
    }
    workgroupBarrier();

    for (var i = index; i < stride; i += BLOCK_SIZE) {
        let value = x[row + i] * rms;
        x[row + i] = fma(value, unpack4x16float(w[i]), unpack4x16float(b[i]));
    }
}
"""


def _rwkv_rms_norm_reference(w, b, x):
    rows = x.astype(np.float64)
    scale = 1.0 / np.sqrt((rows * rows).mean(axis=-1, keepdims=True) + 1e-5)
    return (rows * scale * w.astype(np.float64) + b.astype(np.float64)).astype(np.float32)


RWKV_RMS_NORM = Wild(
    KernelSpec(
        id="wild_r62_web_rwkv_subgroup_rms_norm",
        entry_point="rms_norm",
        sources={"wgsl": _RWKV_RMS_NORM},
        dims=("B", "T", "C"),
        buffers=(
            BufferSpec.uniform(0, (("shape", "vec4<u32>"),), name="shape"),
            BufferSpec(1, "f16", "read", name="w", count="C"),
            BufferSpec(2, "f16", "read", name="b", count="C"),
            BufferSpec(
                3, "f32", "read_write", name="x", count="B*T*C", shape=("B", "T", "C"), inout=True
            ),
        ),
        reference=_rwkv_rms_norm_reference,
        params=lambda s: {"shape": (int(s.C), int(s.T), int(s.B), 1)},
        grid=lambda sched, s: (1, int(s.T), int(s.B)),
        schedules=(Schedule(128),),
        test_sizes=("1x6x516", "1x3x20"),
    ),
    {
        "the tree's two levels for 32-lane subgroups": (
            "wgsl",
            "    for (var step = num_subgroups >> 1u; step > 0u; step >>= 1u) {\n        if index < step {\n            sketch[index] += sketch[index + step];\n        }\n        workgroupBarrier();\n    }\n",
            "    reduce_sum(index, 2u);\n    reduce_sum(index, 1u);\n",
        ),
        "the values summed, not their squares": (
            "wgsl",
            "squares += value * value;",
            "squares += value;",
        ),
        "the weight and the bias swapped": (
            "wgsl",
            "fma(value, unpack4x16float(w[i]), unpack4x16float(b[i]))",
            "fma(value, unpack4x16float(b[i]), unpack4x16float(w[i]))",
        ),
        "no barrier after the scale is kept": (
            "wgsl",
            "+ EPS);\n    }\n    workgroupBarrier();\n",
            "+ EPS);\n    }\n",
        ),
    },
    invisible_on={
        ("the tree's two levels for 32-lane subgroups", "wgsl", "NVIDIA"): RIGHT_AT_32,
    },
)


# -- 6. Austin Eng's webgpu-kernels: a matrix-vector product, a branch a subgroup width --

_ENG_WIDTHS = (4, 8, 16, 32)


def _eng_branch(width: int) -> str:
    """One width's loop as the page's generator writes it out: a vector element a lane,
    each lane's broadcast in turn (a literal lane) against four rows of the block."""
    lines = [
        f"          for (var col = 0u; col < uniforms.packedCols; col = col + {width}u) {{",
        "            let shared_v = vector.values[col + sg_id];",
    ]
    for lane in range(width):
        lines += [
            f"            v = subgroupBroadcast(shared_v, {lane}u);",
            "      sum += vec4<f32>(",
        ]
        lines += [
            f"        dot(matrix.values[4u * (global_id.x * uniforms.packedCols + col + {lane}u) + {r}u], v),"
            for r in range(4)
        ]
        lines.append("      );")
    lines.append("          }")
    return "\n".join(lines)


_ENG_MATVEC = (
    """enable chromium_experimental_subgroups;

struct Uniforms {
  rows : u32,
  packedCols : u32,
}
struct Matrix {
  values: array<vec4<f32>>
}
struct Vector {
  values: array<vec4<f32>>
}
@group(0) @binding(0) var<storage, read> matrix : Matrix;
@group(0) @binding(1) var<storage, read> vector : Vector;
@group(0) @binding(2) var<storage, read_write> result : Vector;
@group(0) @binding(3) var<uniform> uniforms : Uniforms;
      // four rows an invocation, stored a block of four rows a packed column
      @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) global_id  : vec3u,
                                      @builtin(subgroup_size) sg_size : u32,
                                      @builtin(subgroup_invocation_id) sg_id : u32) {
          var sum : vec4<f32>;
          var v : vec4<f32>;
"""
    + "\n".join(
        ("          if" if i == 0 else "        } else if")
        + f" (sg_size == {w}u) {{\n"
        + _eng_branch(w)
        for i, w in enumerate(_ENG_WIDTHS)
    )
    + """
        }
          result.values[global_id.x] = sum;

      }
"""
)


def _eng_matvec_reference(matrix, vector):
    # matrix (R / 4, P, 4, 4): a block of four rows, a packed column, a row, four columns
    m = matrix.astype(np.float64)
    return np.einsum("bcrk,ck->br", m, vector.astype(np.float64)).astype(np.float32)


ENG_MATVEC = Wild(
    KernelSpec(
        id="wild_r62_austin_eng_matvec_subgroup_broadcast",
        entry_point="main",
        sources={"wgsl": _ENG_MATVEC},
        dims=("R", "P"),
        buffers=(
            BufferSpec(
                0, "f32", "read", name="matrix", count="R*P*4", shape=("R/4", "P", "4", "4")
            ),
            BufferSpec(1, "f32", "read", name="vector", count="P*4", shape=("P", "4")),
            BufferSpec(2, "f32", "read_write", name="result", count="R", shape=("R/4", "4")),
            BufferSpec.uniform(3, (("rows", "u32"), ("packedCols", "u32"))),
        ),
        reference=_eng_matvec_reference,
        requires={"subgroups", "subgroup_size<=32"},
        params=lambda s: {"rows": int(s.R), "packedCols": int(s.P)},
        # 64 invocations of four rows a workgroup; the page's sizes are whole workgroups
        # and whole subgroups of columns, which the kernel takes without a bound check
        grid=lambda sched, s: (int(s.R) // 256, 1, 1),
        schedules=(Schedule(64),),
        test_sizes=("R=256,P=64",),
    ),
    {
        "the 8-lane loop steps by four columns": (
            "wgsl",
            "col < uniforms.packedCols; col = col + 8u) {",
            "col < uniforms.packedCols; col = col + 4u) {",
        ),
        "the 4-lane branch broadcasts lane 0 for lane 1": (
            "wgsl",
            "v = subgroupBroadcast(shared_v, 1u);",
            "v = subgroupBroadcast(shared_v, 0u);",
        ),
    },
    invisible_on={
        ("the 8-lane loop steps by four columns", "wgsl", "swiftshader"): (
            "the 8-lane branch does not run at SwiftShader's 4 lanes"
        ),
        ("the 8-lane loop steps by four columns", "wgsl", "NVIDIA"): (
            "the 8-lane branch does not run at NVIDIA's 32 lanes"
        ),
        ("the 4-lane branch broadcasts lane 0 for lane 1", "wgsl", "llvmpipe"): (
            "the 4-lane branch does not run at lavapipe's 8 lanes"
        ),
        ("the 4-lane branch broadcasts lane 0 for lane 1", "wgsl", "NVIDIA"): (
            "the 4-lane branch does not run at NVIDIA's 32 lanes"
        ),
    },
)


ROUND62: dict[str, Wild] = {
    wild.kernel.id: wild
    for wild in (
        RWKV_SOFTMAX,
        CUBECL_ARGMAX,
        PK_REDUCE,
        ORT_SUBGROUP_MATMUL,
        RWKV_RMS_NORM,
        ENG_MATVEC,
    )
}

"""Round 59 of kernels from the wild, merged into ``tests.wild.CORPUS``: WGSL compute as
native Rust wgpu projects write it, where the host sets a dispatch's values through push
constants, runs an algorithm as a sequence of dispatches, and binds ``override``
constants per pipeline. Each is written for this corpus after the public source named
below: read, not copied (the project's rule for public code). What is theirs is kept:
the entry points, the bindings (groups, binding numbers, access, the push-constant
variable and its type, a bare ``u32`` or a struct), the workgroup sizes, the launch
sequence and geometry the host code gives (its push constants per dispatch, its
``override`` values), the idioms and the numerics, and every real bug of the original
(named with each). What is ours: the comments, the locals' and helpers' names, the
order of equivalent statements and the formatting, and any value the host computes
that is not in the shader (said where).

- Bevy's meshlet renderer (bevyengine/bevy at 6f4d7ddf, MIT or Apache-2.0,
  ``crates/bevy_pbr/src/meshlet/fill_cluster_buffers.wgsl`` with the
  ``MESHLET_FILL_CLUSTER_BUFFERS_PASS`` bindings of ``meshlet_bindings.wgsl`` and the
  host's ``fill_cluster_buffers_pass`` in ``visibility_buffer_raster_node.rs``): one
  invocation per cluster of the scene, workgroups of 128 dispatched as a cube of
  ``ceil(cbrt(ceil(clusters / 128)))`` on each side, the cluster's index folded from
  ``workgroup_id`` by ``dot`` with ``(n * n, n, 1)``, the cluster count a bare
  ``var<push_constant> cluster_count: u32`` (the host pushes its four bytes), and a
  binary search over the exclusive prefix sum of the instances' meshlet counts for the
  instance a cluster belongs to (the rightmost with a start at or below it, so an
  instance with no meshlets is skipped), the meshlet then found from the instance's
  slice start. The counts are ours: a scene's instances drawn with some of them empty.
- wgpu's own timestamp normalisation (gfx-rs/wgpu at 79773d78, MIT or Apache-2.0,
  ``wgpu-core/src/timestamp_normalization/timestamp_normalization.wgsl`` with
  ``common.wgsl`` prepended as ``mod.rs`` does, at 05b34e8c): each u64 timestamp,
  a ``struct Uint64 { low, high }`` in a read_write storage array, multiplied by a u32
  with sixteen-bit long multiplication into a ``Uint96`` and shifted right, the
  multiplier and the shift the pipeline's ``override`` constants
  ``TIMESTAMP_PERIOD_MULTIPLY`` and ``TIMESTAMP_PERIOD_SHIFT`` (from
  ``compute_timestamp_period``), the range a ``var<push_constant> pc: PushConstants {
  timestamp_offset, timestamp_count }`` that ``normalize`` pushes before each
  dispatch of ``ceil(count / 64)`` workgroups of 64. Ours: the period, 52.083332 ns
  (a 19.2 MHz clock: multiplier 3495253, shift 26, as ``compute_timestamp_period``
  gives them), and two resolves into one buffer, each its own dispatch with its own
  push constants, with timestamps between and after them that neither touches.
- Hugging Face's ratchet (huggingface/ratchet at c5145d37, MIT,
  ``crates/ratchet-core/kernel-handwritten/softmax_vec4.wgsl``): a softmax in place over
  the last axis of ``X: array<vec4<f32>>``, one workgroup of 128 a row (``workgroup_id.x``
  the row, ``.y`` the batch), the row's length in vec4s (``ND4``) read from a ``Meta``
  uniform in group 1, the max and the sum each a tree in ``var<workgroup> smem:
  array<vec4<f32>, 128>`` through helpers that end in a barrier, the max's slots
  starting at ``-3.402823e+38`` (not -Inf), then folded across the vector's lanes by
  one invocation into a ``var<workgroup>`` scalar, ``exp(x - max) / sum`` stored over
  the input.
- wgpu's emulation of ``multi_draw_indirect_count`` (gfx-rs/wgpu at b8f53976, MIT or
  Apache-2.0, ``wgpu-core/src/multi_draw_emulation/multi_draw_count_emulation.wgsl``):
  the parameters as ``var<immediate> params: Params { max_count, stride, src_offset,
  count_offset }`` (naga's newer spelling of a push constant), workgroups of 64 a draw
  an invocation, the count the GPU wrote clamped to the host's maximum, the first
  ``count`` draws' ``stride`` words copied and the rest up to ``max_count`` zeroed.
  Ours: the offsets (7 words into the source, the count at word 2 of its buffer) and
  the count, a third of the draws short of the maximum.

What they showed (tests/test_wild_round59.py): every original passes on the reference,
lavapipe and SwiftShader and every mutant fails on both. wgpu's ``u32_from_u16s`` as
written, ``low(w1) << 16 | low(w0)``, is no WGSL (a shift's operands are unary
expressions; Tint refuses it, naga takes it): the wgpu backend refuses it too, naming the
parentheses, and the copy here has them. A push constant holding an array of stride 4,
which naga takes, could not run (it was rebound as a uniform, where an array's stride
must be a multiple of 16): fixed, such a push constant is bound read-only storage.
Ratchet's softmax with its max tree's first level dropped passed at 2 x 3 rows (few rows
of large values, their maxima where the kept slots hold them): pinned as a strict xfail,
and the entry's size has 2 x 7 rows, where it fails. Bevy's search made strict (``<
cluster_id``) is not among the mutants: at cluster 0 its upper end wraps below 0 and the
loop does not end (SwiftShader timed out after 60 s).
"""

# ruff: noqa: E501  (the WGSL keeps its sources' long lines)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import Wild

# -- 1. Bevy: a cluster's instance found by binary search, its count pushed -------------

_BEVY_FILL_CLUSTERS = """// Bevy meshlets: each cluster of the scene learns which instance and meshlet it is.
var<push_constant> cluster_count: u32;
@group(0) @binding(0) var<storage, read> meshlet_instance_meshlet_counts_prefix_sum: array<u32>; // per instance
@group(0) @binding(1) var<storage, read> meshlet_instance_meshlet_slice_starts: array<u32>; // per instance
@group(0) @binding(2) var<storage, read_write> meshlet_cluster_instance_ids: array<u32>; // per cluster
@group(0) @binding(3) var<storage, read_write> meshlet_cluster_meshlet_ids: array<u32>; // per cluster

@compute
@workgroup_size(128, 1, 1) // a cluster an invocation
fn fill_cluster_buffers(
    @builtin(workgroup_id) workgroup_id: vec3<u32>,
    @builtin(num_workgroups) num_workgroups: vec3<u32>,
    @builtin(local_invocation_index) local_invocation_index: u32,
) {
    // the host dispatches a cube of workgroups; fold its position into one index
    let cluster_id = local_invocation_index + 128u * dot(workgroup_id, vec3(num_workgroups.x * num_workgroups.x, num_workgroups.x, 1u));
    if cluster_id >= cluster_count { return; }

    // the last instance whose first cluster is at or before this one
    var lo = 0u;
    var hi = arrayLength(&meshlet_instance_meshlet_counts_prefix_sum) - 1u;
    while lo <= hi {
        let probe = (lo + hi) / 2u;
        if meshlet_instance_meshlet_counts_prefix_sum[probe] <= cluster_id {
            lo = probe + 1u;
        } else {
            hi = probe - 1u;
        }
    }
    let instance_id = hi;

    // its place among the instance's meshlets, then among all the scene's meshlets
    let within_instance = cluster_id - meshlet_instance_meshlet_counts_prefix_sum[instance_id];
    let meshlet_id = within_instance + meshlet_instance_meshlet_slice_starts[instance_id];

    meshlet_cluster_instance_ids[cluster_id] = instance_id;
    meshlet_cluster_meshlet_ids[cluster_id] = meshlet_id;
}
"""


def _bevy_counts_prefix_sum(rng, count, size):
    """The instances' first clusters: an exclusive sum of meshlet counts that add up to
    the scene's clusters, about a fifth of the instances empty where there are enough."""
    clusters = int(size.C)
    weights = rng.dirichlet(np.ones(count))
    weights[rng.random(count) < 0.2] = 0.0
    if not weights.any():
        weights[:] = 1.0
    counts = rng.multinomial(clusters, weights / weights.sum())
    return np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.uint32)


def _bevy_slice_starts(rng, count, size):
    """Where each instance's mesh starts in the scene's meshlet buffer (instances of
    one mesh share it)."""
    meshes = rng.integers(0, 1 << 18, max(1, count // 3))
    return meshes[rng.integers(0, len(meshes), count)].astype(np.uint32)


def _bevy_fill_clusters_reference(
    meshlet_instance_meshlet_counts_prefix_sum, meshlet_instance_meshlet_slice_starts, C
):
    first = meshlet_instance_meshlet_counts_prefix_sum.astype(np.int64)
    clusters = np.arange(int(C))
    instance = np.searchsorted(first, clusters, side="right") - 1
    meshlet = clusters - first[instance] + meshlet_instance_meshlet_slice_starts[instance]
    return instance.astype(np.uint32), meshlet.astype(np.uint32)


def _bevy_cube_side(size) -> int:
    """``thread_per_cluster_workgroups``: the cube root of the workgroups needed, up."""
    groups = ceil_div(int(size.C), 128)
    side = round(groups ** (1 / 3))
    return side if side**3 >= groups else side + 1


BEVY_FILL_CLUSTERS = Wild(
    KernelSpec(
        id="wild_r59_bevy_meshlet_fill_cluster_buffers",
        entry_point="fill_cluster_buffers",
        sources={"wgsl": _BEVY_FILL_CLUSTERS},
        dims=("I", "C"),
        buffers=(
            BufferSpec(
                0,
                "u32",
                "read",
                name="meshlet_instance_meshlet_counts_prefix_sum",
                count="I",
                fill=_bevy_counts_prefix_sum,
            ),
            BufferSpec(
                1,
                "u32",
                "read",
                name="meshlet_instance_meshlet_slice_starts",
                count="I",
                fill=_bevy_slice_starts,
            ),
            BufferSpec(2, "u32", "read_write", name="meshlet_cluster_instance_ids", count="C"),
            BufferSpec(3, "u32", "read_write", name="meshlet_cluster_meshlet_ids", count="C"),
            # the push constant, bound as the kernel's uniform block
            BufferSpec.uniform(4, (("cluster_count", "u32"),), name="push"),
        ),
        reference=_bevy_fill_clusters_reference,
        params=lambda size: {"cluster_count": int(size.C)},
        grid=lambda s, size: (_bevy_cube_side(size),) * 3,
        schedules=(Schedule(128),),
        # 3001 clusters: 24 workgroups, a cube of 3 a side (27); one instance of five
        test_sizes=("37x3001", "1x5"),
    ),
    {
        "the search stops before its last probe": ("wgsl", "while lo <= hi {", "while lo < hi {"),
        # (not ``<= cluster_id`` made ``<``: at cluster 0 the search's upper end wraps
        # below 0 and the loop runs on; SwiftShader timed out after 60 s)
        "the search's answer taken from its lower end": (
            "wgsl",
            "let instance_id = hi;",
            "let instance_id = lo;",
        ),
        "the cube folded with the wrong stride": (
            "wgsl",
            "vec3(num_workgroups.x * num_workgroups.x, num_workgroups.x, 1u)",
            "vec3(num_workgroups.x, num_workgroups.x, 1u)",
        ),
    },
)


# -- 2. wgpu: timestamps normalised to nanoseconds, the range pushed ----------------------

_WGPU_TIMESTAMPS = """// wgpu-core's timestamp normalisation: common.wgsl, then the entry point, as mod.rs joins them.

// A u64 as two words, low first: shaders have no 64-bit integers.
struct Uint64 {
    low: u32,
    high: u32,
}

// A u96 as three words, low first.
struct Uint96 {
    low: u32,
    mid: u32,
    high: u32,
}

// The low 64 bits of a u96.
fn truncate_u96_to_u64(x: Uint96) -> Uint64 {
    return Uint64(x.low, x.mid);
}

fn low(a: u32) -> u32 {
    return a & 0xFFFF;
}

fn high(a: u32) -> u32 {
    return a >> 16;
}

// Two 16-bit halves into one word: hi above, lo below (the bits above 16 dropped).
fn u32_from_u16s(hi: u32, lo: u32) -> u32 {
    return (low(hi) << 16) | low(lo);
}

// u64 * u32 = u96 by long multiplication in 16-bit digits, every product fitting a u32:
// four digits of a times two of b make eight partial products, summed column by
// column, each column's high half carried into the next.
fn u64_mul_u32(a: Uint64, b: u32) -> Uint96 {
    let a0 = low(a.low);
    let a1 = high(a.low);
    let a2 = low(a.high);
    let a3 = high(a.high);
    let b0 = low(b);
    let b1 = high(b);

    // by b's low digit, then by its high digit (one column further left)
    let p00 = a0 * b0;
    let p10 = a1 * b0;
    let p20 = a2 * b0;
    let p30 = a3 * b0;
    let p01 = a0 * b1;
    let p11 = a1 * b1;
    let p21 = a2 * b1;
    let p31 = a3 * b1;

    let c0 = low(p00);
    let c1 = high(p00) + low(p10) + low(p01) + high(c0);
    let c2 = high(p10) + low(p20) + high(p01) + low(p11) + high(c1);
    let c3 = high(p20) + low(p30) + high(p11) + low(p21) + high(c2);
    let c4 = high(p30) + high(p21) + low(p31) + high(c3);
    let c5 = high(p31) + high(c4);
    // nothing carries out of c5

    return Uint96(u32_from_u16s(c1, c0), u32_from_u16s(c3, c2), u32_from_u16s(c5, c4));
}

// x >> shift for shift in [0, 32]; a u32 shift by 32 would wrap to 0, so both ends are
// their own cases.
fn shift_right_96(x: Uint96, shift: u32) -> Uint96 {
    if (shift == 0) {
        return x;
    }
    if (shift == 32) {
        return Uint96(x.mid, x.high, 0);
    }

    let back = 32 - shift;
    let from_high = x.high << back;
    let from_mid = x.mid << back;

    var shifted: Uint96;
    shifted.high = x.high >> shift;
    shifted.mid = (x.mid >> shift) | from_high;
    shifted.low = (x.low >> shift) | from_mid;
    return shifted;
}

// The period as a fraction whose denominator is a power of two: ticks * MULTIPLY >> SHIFT.
override TIMESTAMP_PERIOD_MULTIPLY: u32 = 1;
override TIMESTAMP_PERIOD_SHIFT: u32 = 0;

@group(0) @binding(0)
var<storage, read_write> timestamps: array<Uint64>;

struct PushConstants {
    timestamp_offset: u32,
    timestamp_count: u32,
}

var<push_constant> pc: PushConstants;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3u) {
    if id.x >= pc.timestamp_count {
        return;
    }

    let slot = id.x + pc.timestamp_offset;
    let ticks = timestamps[slot];

    let scaled = u64_mul_u32(ticks, TIMESTAMP_PERIOD_MULTIPLY);
    let nanoseconds = shift_right_96(scaled, TIMESTAMP_PERIOD_SHIFT);

    timestamps[slot] = truncate_u96_to_u64(nanoseconds);
}
"""

# compute_timestamp_period(52.083332): ceil(log2 52.08) = 6, shift 32 - 6, multiplier
# round(52.083332 * 2^26)
_TS_SHIFT = 26
_TS_MULTIPLY = round(float(np.float32(52.083332)) * 2**_TS_SHIFT)


def _wgpu_timestamp_ranges(size) -> tuple[tuple[int, int], tuple[int, int]]:
    """Two resolves into one buffer of ``size`` timestamps: the first half from 0, then
    from three past it to one before the end; the three between and the last are left."""
    n = int(size)
    first = (0, n // 2)
    second_start = n // 2 + 3
    return first, (second_start, n - 1 - second_start)


def _wgpu_timestamp_launches(size):
    return tuple(
        Dispatch(
            "main",
            grid=(ceil_div(count, 64), 1, 1),
            overrides={"timestamp_offset": offset, "timestamp_count": count},
        )
        for offset, count in _wgpu_timestamp_ranges(size)
    )


def _wgpu_timestamps_reference(timestamps):
    words = timestamps.reshape(-1, 2).astype(np.uint64)
    out = words.copy()
    for offset, count in _wgpu_timestamp_ranges(len(words)):
        for i in range(offset, offset + count):
            ticks = int(words[i, 0]) | int(words[i, 1]) << 32
            ns = (ticks * _TS_MULTIPLY >> _TS_SHIFT) & (2**64 - 1)
            out[i] = (ns & 0xFFFFFFFF, ns >> 32)
    return out.astype(np.uint32).reshape(timestamps.shape)


WGPU_TIMESTAMPS = Wild(
    KernelSpec(
        id="wild_r59_wgpu_timestamp_normalization",
        entry_point="main",
        sources={"wgsl": _WGPU_TIMESTAMPS},
        buffers=(
            BufferSpec(
                0, "vec2<u32>", "read_write", name="timestamps", count=lambda n: int(n), inout=True
            ),
            BufferSpec.uniform(
                1, (("timestamp_offset", "u32"), ("timestamp_count", "u32")), name="pc"
            ),
        ),
        reference=_wgpu_timestamps_reference,
        defaults={"timestamp_offset": 0, "timestamp_count": 0},
        overrides={
            "TIMESTAMP_PERIOD_MULTIPLY": _TS_MULTIPLY,
            "TIMESTAMP_PERIOD_SHIFT": _TS_SHIFT,
        },
        launches=_wgpu_timestamp_launches,
        schedules=(Schedule(64),),
        test_sizes=(301, 9),
    ),
    {
        "a column's carry dropped": (
            "wgsl",
            "high(p01) + low(p11) + high(c1);",
            "high(p01) + low(p11);",
        ),
        "one timestamp past the range": (
            "wgsl",
            "if id.x >= pc.timestamp_count {",
            "if id.x > pc.timestamp_count {",
        ),
        "the offset read from the count's push constant": (
            "wgsl",
            "let slot = id.x + pc.timestamp_offset;",
            "let slot = id.x + pc.timestamp_count;",
        ),
        "the carries into the low words swapped": (
            "wgsl",
            "shifted.low = (x.low >> shift) | from_mid;",
            "shifted.low = (x.low >> shift) | from_high;",
        ),
    },
)


# -- 4. ratchet: a softmax over vec4 rows in place ----------------------------------------

_RATCHET_SOFTMAX = """// ratchet's softmax over the last axis, in place, four columns a vec4, a workgroup a row.
@group(0) @binding(0)
var<storage, read_write> X: array<vec4<f32>>;

struct Meta {
    M: u32,
    N: u32,
    ND2: u32,
    ND4: u32,
}

@group(1) @binding(0)
var<uniform> metadata: Meta;

var<workgroup> smem: array<vec4<f32>, 128>;
var<workgroup> maximum: f32;
var<workgroup> sum: f32;

const BLOCK_SIZE = 128u;
const minFloat: f32 = -3.402823e+38f;

// one level of the tree: the lower half takes the upper's, then everyone waits
fn block_sum(index: u32, stride: u32) {
    if index < stride {
        smem[index] += smem[index + stride];
    }
    workgroupBarrier();
}

fn block_max(index: u32, stride: u32) {
    if index < stride {
        smem[index] = max(smem[index], smem[index + stride]);
    }
    workgroupBarrier();
}

@compute @workgroup_size(128, 1, 1)
fn main(
        @builtin(local_invocation_id) local_id: vec3<u32>,
        @builtin(workgroup_id) group_id: vec3<u32>,
) {
    let batch_base = group_id.y * metadata.M * metadata.ND4;
    let row_base = batch_base + group_id.x * metadata.ND4;
    let index = local_id.x;

    // each invocation's running max over its strided vec4s
    smem[index] = vec4<f32>(minFloat);
    for (var i: u32 = index; i < metadata.ND4; i += BLOCK_SIZE) {
        smem[index] = max(smem[index], X[row_base + i]);
    }
    workgroupBarrier();

    block_max(index, 64u);
    block_max(index, 32u);
    block_max(index, 16u);
    block_max(index, 8u);
    block_max(index, 4u);
    block_max(index, 2u);
    block_max(index, 1u);

    if index == 0u {
        maximum = max(smem[0].x, max(smem[0].y, max(smem[0].z, smem[0].w)));
    }
    workgroupBarrier(); // the max is read by all below

    smem[index] = vec4<f32>(0.0);
    for (var i: u32 = index; i < metadata.ND4; i += BLOCK_SIZE) {
        smem[index] += exp(X[row_base + i] - maximum);
    }

    workgroupBarrier();
    block_sum(index, 64u);
    block_sum(index, 32u);
    block_sum(index, 16u);
    block_sum(index, 8u);
    block_sum(index, 4u);
    block_sum(index, 2u);
    block_sum(index, 1u);

    if index == 0u {
        sum = dot(smem[0], vec4<f32>(1.0));
    }
    workgroupBarrier(); // and the sum

    for (var i: u32 = index; i < metadata.ND4; i += BLOCK_SIZE) {
        let v = X[row_base + i];
        X[row_base + i] = exp(v - maximum) / sum;
    }
}
"""


def _ratchet_softmax_reference(X):
    x = X.astype(np.float64)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


RATCHET_SOFTMAX = Wild(
    KernelSpec(
        id="wild_r59_ratchet_softmax_vec4",
        entry_point="main",
        sources={"wgsl": _RATCHET_SOFTMAX},
        dims=("B", "M", "N"),
        buffers=(
            BufferSpec(
                0, "f32", "read_write", name="X", count="B*M*N", shape=("B", "M", "N"), inout=True
            ),
            BufferSpec.uniform(
                0, (("M", "u32"), ("N", "u32"), ("ND2", "u32"), ("ND4", "u32")), group=1
            ),
        ),
        reference=_ratchet_softmax_reference,
        params=lambda size: {
            "M": int(size.M),
            "N": int(size.N),
            "ND2": int(size.N) // 2,
            "ND4": int(size.N) // 4,
        },
        grid=lambda s, size: (int(size.M), int(size.B), 1),
        schedules=(Schedule(128),),
        # 1028 columns: 257 vec4s, one invocation with three; 20 columns: most idle. At 2 x 3
        # rows the dropped max level passed (tests/test_wild_round59.py)
        test_sizes=("2x7x1028", "3x5x20"),
    ),
    {
        "the max tree's first level dropped": ("wgsl", "    block_max(index, 64u);\n", ""),
        "the sum's fourth lane left out": (
            "wgsl",
            "sum = dot(smem[0], vec4<f32>(1.0));",
            "sum = dot(smem[0], vec4<f32>(1.0, 1.0, 1.0, 0.0));",
        ),
        "no barrier before the max is read": (
            "wgsl",
            "workgroupBarrier(); // the max is read by all below",
            "",
        ),
        "rows strided in scalars": (
            "wgsl",
            "let row_base = batch_base + group_id.x * metadata.ND4;",
            "let row_base = batch_base + group_id.x * metadata.N;",
        ),
    },
)


# -- 5. wgpu: multi-draw-indirect-count emulated, its parameters as immediates ------------

_WGPU_MULTI_DRAW_COUNT = """// wgpu-core's emulation of multi_draw_indirect_count: copy the first `count` draws'
// arguments and zero the rest up to max_count, so a plain multi-draw draws nothing there.
struct Params {
    max_count: u32,
    stride: u32,
    src_offset: u32,
    count_offset: u32,
}

var<immediate> params: Params;

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<storage, read> count_buf: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
    // a draw an invocation; the count the GPU wrote, never past the host's maximum
    let count = min(count_buf[params.count_offset], params.max_count);
    let src_at = params.src_offset + gid.x * params.stride;
    let dst_at = gid.x * params.stride;

    if (gid.x < count) {
        for (var w = 0u; w < params.stride; w = w + 1u) {
            dst[dst_at + w] = src[src_at + w];
        }
    } else if (gid.x < params.max_count) {
        for (var w = 0u; w < params.stride; w = w + 1u) {
            dst[dst_at + w] = 0u;
        }
    }
}
"""

# Ours: where the draws and the count lie in their buffers (the host's byte offsets / 4)
_MDC_SRC_OFFSET = 7
_MDC_COUNT_OFFSET = 2


def _mdc_count_buf(rng, count, size):
    """The count the GPU wrote, at its offset: a third of the draws short of the
    maximum; the words around it hold other counts."""
    words = rng.integers(0, 1 << 20, count).astype(np.uint32)
    words[_MDC_COUNT_OFFSET] = int(size.D) - int(size.D) // 3 - 1
    return words


def _mdc_reference(src, count_buf, D, S):
    draws, stride = int(D), int(S)
    count = min(int(count_buf[_MDC_COUNT_OFFSET]), draws)
    out = np.zeros(draws * stride, np.uint32)
    out[: count * stride] = src[_MDC_SRC_OFFSET : _MDC_SRC_OFFSET + count * stride]
    return out


WGPU_MULTI_DRAW_COUNT = Wild(
    KernelSpec(
        id="wild_r59_wgpu_multi_draw_count_emulation",
        entry_point="main",
        sources={"wgsl": _WGPU_MULTI_DRAW_COUNT},
        dims=("D", "S"),
        buffers=(
            BufferSpec(
                0,
                "u32",
                "read",
                name="src",
                count=lambda size: _MDC_SRC_OFFSET + size.D * size.S + 3,
            ),
            BufferSpec(1, "u32", "read_write", name="dst", count="D*S"),
            BufferSpec(2, "u32", "read", name="count_buf", count=4, fill=_mdc_count_buf),
            BufferSpec.uniform(
                3,
                (
                    ("max_count", "u32"),
                    ("stride", "u32"),
                    ("src_offset", "u32"),
                    ("count_offset", "u32"),
                ),
                name="params",
            ),
        ),
        reference=_mdc_reference,
        params=lambda size: {
            "max_count": int(size.D),
            "stride": int(size.S),
            "src_offset": _MDC_SRC_OFFSET,
            "count_offset": _MDC_COUNT_OFFSET,
        },
        grid=lambda s, size: (ceil_div(size.D, 64), 1, 1),
        schedules=(Schedule(64),),
        # indexed draws (five words) and plain ones (four)
        test_sizes=("131x5", "10x4"),
    ),
    {
        "the draws past the count left as they were": (
            "wgsl",
            "} else if (gid.x < params.max_count) {",
            "} else if (gid.x < count) {",
        ),
        "one draw past the count copied": ("wgsl", "if (gid.x < count) {", "if (gid.x <= count) {"),
        "the source offset read from the count's immediate": (
            "wgsl",
            "let src_at = params.src_offset + gid.x * params.stride;",
            "let src_at = params.count_offset + gid.x * params.stride;",
        ),
    },
)


ROUND59: dict[str, Wild] = {
    wild.kernel.id: wild
    for wild in (
        BEVY_FILL_CLUSTERS,
        WGPU_TIMESTAMPS,
        RATCHET_SOFTMAX,
        WGPU_MULTI_DRAW_COUNT,
    )
}

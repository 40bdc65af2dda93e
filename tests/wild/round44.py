"""Round 44 of kernels from the wild, merged into ``tests.wild.CORPUS``: WGSL compute
in the idioms of four projects not yet in the corpus.

These are not the projects' text. The public sources were read (where each is cited),
and each kernel here is written anew to the same algorithm, bindings, constants,
workgroup shape and launch sequence, keeping the idiom that makes it worth judging;
the copies of public repositories this round could read may not be committed, so no
line is the author's own (the changes that matter are named below).

- ratchet's row softmax over ``vec4`` lanes (huggingface/ratchet at dba8e888, MIT,
  ``crates/ratchet-core/kernels/softmax_vec4.wgsl``): in place on one ``read_write``
  ``array<vec4<f32>>``, the shape in a uniform ``Meta { M, N, ND4 }`` bound in
  ``@group(1)``, a workgroup of 128 a row (the grid (M, batch)), a running maximum
  kept per lane in ``var<workgroup> smem: array<vec4<f32>, 128>`` from -3.402823e38,
  folded by seven calls of a helper that ends in ``workgroupBarrier()``, then the
  lanes' maximum and (``dot`` with ones) sum in two workgroup scalars.
- compute-shader-101's radix sort, its counting and reducing passes
  (googlefonts/compute-shader-101 at 00a3079a, Apache-2.0 or MIT,
  ``compute-shader-hello/src/shader.wgsl``): a uniform ``Config`` of seven u32s,
  ``var<storage>`` with no access mode, ``const BIN_COUNT = 1u << BITS_PER_PASS``,
  4-bit digits counted in ``var<workgroup> histogram: array<atomic<u32>, 16>`` over
  blocks of 1024 keys split unevenly over the workgroups (the last
  ``num_wgs_with_additional_blocks`` take one block more), the counts bin-major
  (``counts[bin * num_wgs + wg]``), then a second entry point sums each bin's counts by
  a tree of eight halvings with the barrier at the top of each. The host's split is
  fixed here at no more than 3 workgroups, so that sizes of a few thousand keys
  already give some workgroups an extra block. As written, the pass zeroes the
  histogram with ``histogram[local_id.x] = 0u`` and reads it back with ``=
  histogram[local_id.x]``: a plain store and load of an atomic, which WGSL has not
  (only ``atomicStore``/``atomicLoad``); here with the builtins, as written it is
  pinned (tests/test_wild_round44.py).
- Futhark's float atomic add for WebGPU (diku-dk/futhark at 061bcaa1, ISC,
  ``rts/wgsl/atomics.wgsl``): with no float atomics, a bin of f32 bits in an
  ``atomic<i32>`` gets ``x`` by two exchanges, the bin's value out (0 left behind)
  and the sum put back, looping while what the second exchange displaced is not 0
  (another invocation's partial sum, then carried on). Used here in a weighted
  histogram: a workgroup's 64 bins in ``var<workgroup>`` atomics, then each bin
  flushed into the global one by the same loop. Futhark passes the atomic as a
  ``ptr<workgroup, atomic<i32>>`` parameter, which needs WGSL's
  ``unrestricted_pointer_parameters`` (naga lacks it: kforge says so and skips
  wgpu); here the helper takes the bin's index instead.
- wgpu's hello_synchronization example (gfx-rs/wgpu at efc6d903, MIT or Apache-2.0,
  ``examples/src/hello_synchronization/shaders.wgsl``): a workgroup of 16 adds 1 to a
  ``var<workgroup> count: atomic<u32>`` (zeroed by WGSL's rule, never by the code),
  and invocation 0 stores its ``atomicLoad`` after a barrier; the module holds the
  example's second entry point, ``hasty_main``, without the barrier, which the kernel
  does not run (its text is the first mutant).

What they showed (lavapipe and SwiftShader; not run on a GPU; pinned in
tests/test_wild_round44.py):

- A false pass, fixed: the softmax with its maximum started at 0 instead of
  -3.402823e38, and with one fold of the maximum's tree dropped (the rows' maximum then
  that of half the lanes), passed. A softmax is shift-invariant until ``exp``
  overflows or every term underflows, which needs a row wholly below -88 or spanning
  more than 88; the one-sign input sets hold such rows, but the oracle runs them only
  for a kernel it sees keeping a running extremum, and it recognised ``m = max(m, x)``
  with a bare name only, not ``smem[index] = max(smem[index], x)`` (web-rwkv's softmax
  writes it so too). It does now (oracle/_builtins.py), and both mutants fail.
- A false pass, fixed: naga compiles a plain store to, or load of, an atomic; Chrome's
  Tint refuses both ("cannot assign 'u32' to 'atomic<u32>'"), so the radix count as
  written passed on wgpu and would not run in a browser. wgpu now refuses it too,
  naming the access and the builtins to use (forge/sources.py,
  backends/wgpu/_device.py), as it does for round 29's and round 25's Tint errors.
- A false pass, fixed: the barrier moved into the reporting branch (``if
  (local_id.x == 0u) { workgroupBarrier(); ... }``) is a shader-creation error by
  WGSL's uniformity analysis, which Tint enforces; naga compiled it and lavapipe ran it
  to the right counts, so it passed. wgpu now refuses a barrier under control flow
  that varies by invocation (``forge.sources.wgsl_barrier_in_nonuniform_flow``: a
  part of the analysis, which judged 16 cases as Tint did and flags nothing in the
  corpus, its mutants, the tests' WGSL or the library's emitted WGSL).
- Not fixed, named: NaN weights in the histogram. naga compiles WGSL's ``!=`` on floats
  as an ordered comparison (kforge's probe records it: ``nan_is_not_equal``), so on
  lavapipe the flush's ``if (old != 0)`` is false for a NaN bin, which is never
  flushed, and numpy's NaN bins come back finite: MISMATCH on the ``all`` set, which
  the report says passes the finite set. WGSL lets an implementation assume no NaN, so
  the kernel is declared for finite weights (``nonfinite_inputs=False``), as the report
  advises; the MISMATCH with NaN weights is pinned.
- Not visible on a CPU adapter (kept out of the mutants; for the GPU run): the softmax
  without the barrier between invocation 0 writing ``sum`` and every invocation
  reading it. lavapipe and SwiftShader run a workgroup's invocations a SIMD group at a
  time from the lowest, so invocation 0 has written ``sum`` before any other reads it.
"""

# ruff: noqa: E501  (the WGSL keeps its projects' long lines)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import Wild

# -- 1. ratchet: softmax_vec4, in place, the shape's uniform in group 1 ------------------

_RATCHET_SOFTMAX = """// Row softmax over vec4 lanes, in place; a workgroup of 128 a row.
@group(0) @binding(0) var<storage, read_write> X: array<vec4<f32>>;

struct Meta {
    M: u32,
    N: u32,
    ND4: u32,
}

@group(1) @binding(0) var<uniform> metadata: Meta;

const BLOCK_SIZE = 128u;
const minFloat: f32 = -3.402823e+38f;

var<workgroup> smem: array<vec4<f32>, BLOCK_SIZE>;
var<workgroup> maximum: f32;
var<workgroup> sum: f32;

fn fold_max(index: u32, stride: u32) {
    if index < stride {
        smem[index] = max(smem[index], smem[index + stride]);
    }
    workgroupBarrier();
}

fn fold_sum(index: u32, stride: u32) {
    if index < stride {
        smem[index] += smem[index + stride];
    }
    workgroupBarrier();
}

@compute @workgroup_size(128, 1, 1)
fn main(@builtin(local_invocation_id) local_id: vec3<u32>,
        @builtin(workgroup_id) group_id: vec3<u32>) {
    let row_start = (group_id.y * metadata.M + group_id.x) * metadata.ND4;
    let index = local_id.x;

    smem[index] = vec4<f32>(minFloat);
    for (var i = index; i < metadata.ND4; i += BLOCK_SIZE) {
        smem[index] = max(smem[index], X[row_start + i]);
    }
    workgroupBarrier();
    fold_max(index, 64u);
    fold_max(index, 32u);
    fold_max(index, 16u);
    fold_max(index, 8u);
    fold_max(index, 4u);
    fold_max(index, 2u);
    fold_max(index, 1u);
    if index == 0u {
        let m = smem[0];
        maximum = max(max(m.x, m.y), max(m.z, m.w));
    }
    workgroupBarrier();

    smem[index] = vec4<f32>(0.0);
    for (var i = index; i < metadata.ND4; i += BLOCK_SIZE) {
        smem[index] += exp(X[row_start + i] - maximum);
    }
    workgroupBarrier();
    fold_sum(index, 64u);
    fold_sum(index, 32u);
    fold_sum(index, 16u);
    fold_sum(index, 8u);
    fold_sum(index, 4u);
    fold_sum(index, 2u);
    fold_sum(index, 1u);
    if index == 0u {
        sum = dot(smem[0], vec4<f32>(1.0));
    }
    workgroupBarrier();

    for (var i = index; i < metadata.ND4; i += BLOCK_SIZE) {
        X[row_start + i] = exp(X[row_start + i] - maximum) / sum;
    }
}
"""


def _softmax_reference(X, metadata):
    x = X.astype(np.float64)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)


RATCHET_SOFTMAX = Wild(
    KernelSpec(
        id="wild_r44_ratchet_softmax_vec4",
        entry_point="main",
        sources={"wgsl": _RATCHET_SOFTMAX},
        dims=("B", "M", "N"),
        buffers=(
            BufferSpec(
                0, "f32", "read_write", name="X", count="B*M*N", shape=("B", "M", "N"), inout=True
            ),
            BufferSpec.uniform(
                0, (("M", "u32"), ("N", "u32"), ("ND4", "u32")), group=1, name="metadata"
            ),
        ),
        reference=_softmax_reference,
        params=lambda size: {"M": size.M, "N": size.N, "ND4": size.N // 4},
        grid=lambda s, size: (size.M, size.B, 1),
        schedules=(Schedule(128),),
        # 264: 66 vec4s a row, lanes 0 and 1 take two (one size: CI time; the pins in
        # tests/test_wild_round44.py run a row of one vec4 and one of 65)
        test_sizes=("B=2,M=2,N=264",),
    ),
    {
        "maximum started at zero": (
            "wgsl",
            "smem[index] = vec4<f32>(minFloat);",
            "smem[index] = vec4<f32>(0.0);",
        ),
        "one fold of the maximum dropped": ("wgsl", "    fold_max(index, 64u);\n", ""),
        "sum of three lanes": (
            "wgsl",
            "dot(smem[0], vec4<f32>(1.0))",
            "dot(smem[0], vec4<f32>(1.0, 1.0, 1.0, 0.0))",
        ),
        "last vec4 of a row left": (
            "wgsl",
            "for (var i = index; i < metadata.ND4; i += BLOCK_SIZE) {\n        X[",
            "for (var i = index; i + 1u < metadata.ND4; i += BLOCK_SIZE) {\n        X[",
        ),
    },
)

# -- 2. compute-shader-101: a radix sort's count and reduce, two entry points -----------

_RADIX_COUNT_REDUCE = """struct Config {
    num_keys: u32,
    num_blocks_per_wg: u32,
    num_wgs: u32,
    num_wgs_with_additional_blocks: u32,
    num_reduce_wg_per_bin: u32,
    num_scan_values: u32,
    shift: u32,
}

@group(0) @binding(0) var<uniform> config: Config;
@group(0) @binding(1) var<storage> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> counts: array<u32>;
@group(0) @binding(3) var<storage, read_write> reduced: array<u32>;

const WG = 256u;
const BITS_PER_PASS = 4u;
const BIN_COUNT = 1u << BITS_PER_PASS;
const ELEMENTS_PER_THREAD = 4u;
const BLOCK_SIZE = WG * ELEMENTS_PER_THREAD;

var<workgroup> histogram: array<atomic<u32>, BIN_COUNT>;

@compute @workgroup_size(WG)
fn count(@builtin(local_invocation_id) local_id: vec3<u32>,
         @builtin(workgroup_id) group_id: vec3<u32>) {
    if local_id.x < BIN_COUNT {
        atomicStore(&histogram[local_id.x], 0u);
    }
    workgroupBarrier();
    var num_blocks = config.num_blocks_per_wg;
    var wg_block_start = BLOCK_SIZE * num_blocks * group_id.x;
    let num_not_additional = config.num_wgs - config.num_wgs_with_additional_blocks;
    if group_id.x >= num_not_additional {
        wg_block_start += (group_id.x - num_not_additional) * BLOCK_SIZE;
        num_blocks += 1u;
    }
    var block_index = wg_block_start + local_id.x;
    for (var block_count = 0u; block_count < num_blocks; block_count++) {
        var data_index = block_index;
        for (var i = 0u; i < ELEMENTS_PER_THREAD; i++) {
            if data_index < config.num_keys {
                let digit = (src[data_index] >> config.shift) & 0xfu;
                atomicAdd(&histogram[digit], 1u);
            }
            data_index += WG;
        }
        block_index += BLOCK_SIZE;
    }
    workgroupBarrier();
    if local_id.x < BIN_COUNT {
        counts[local_id.x * config.num_wgs + group_id.x] = atomicLoad(&histogram[local_id.x]);
    }
}

var<workgroup> sums: array<u32, WG>;

@compute @workgroup_size(WG)
fn reduce(@builtin(local_invocation_id) local_id: vec3<u32>,
          @builtin(workgroup_id) group_id: vec3<u32>) {
    let bin_id = group_id.x / config.num_reduce_wg_per_bin;
    let bin_offset = bin_id * config.num_wgs;
    let base_index = (group_id.x % config.num_reduce_wg_per_bin) * BLOCK_SIZE;
    var sum = 0u;
    for (var i = 0u; i < ELEMENTS_PER_THREAD; i++) {
        let data_index = base_index + i * WG + local_id.x;
        if data_index < config.num_wgs {
            sum += counts[bin_offset + data_index];
        }
    }
    sums[local_id.x] = sum;
    for (var i = 0u; i < 8u; i++) {
        workgroupBarrier();
        if local_id.x < ((WG / 2u) >> i) {
            sum += sums[local_id.x + ((WG / 2u) >> i)];
            sums[local_id.x] = sum;
        }
    }
    if local_id.x == 0u {
        reduced[group_id.x] = sum;
    }
}
"""

_BINS, _BLOCK, _MOST_WORKGROUPS = 16, 1024, 3


def _radix_split(n: int) -> tuple[int, int]:
    """(blocks of 1024 keys, workgroups): the host's split, here at most 3 workgroups."""
    blocks = ceil_div(n, _BLOCK)
    return blocks, min(blocks, _MOST_WORKGROUPS)


def _radix_config(n: int) -> dict:
    blocks, workgroups = _radix_split(n)
    per_bin = ceil_div(workgroups, _BLOCK)
    return {
        "num_keys": n,
        "num_blocks_per_wg": blocks // workgroups,
        "num_wgs": workgroups,
        "num_wgs_with_additional_blocks": blocks % workgroups,
        "num_reduce_wg_per_bin": per_bin,
        "num_scan_values": _BINS * per_bin,
    }


def _radix_reference(config, src, counts, reduced):
    n, workgroups = int(config["num_keys"]), int(config["num_wgs"])
    plain = workgroups - int(config["num_wgs_with_additional_blocks"])
    digits = (src >> np.uint32(config["shift"])) & np.uint32(0xF)
    start = 0
    for w in range(workgroups):
        stop = start + (int(config["num_blocks_per_wg"]) + (w >= plain)) * _BLOCK
        counts[np.arange(_BINS) * workgroups + w] = np.bincount(
            digits[start : min(stop, n)], minlength=_BINS
        )
        start = stop
    reduced[:] = counts.reshape(_BINS, workgroups).sum(axis=1)


def _u32_keys(rng, count, size):
    return rng.integers(0, 2**32, count, dtype=np.uint64).astype(np.uint32)


RADIX_COUNT_REDUCE = Wild(
    KernelSpec(
        id="wild_r44_compute_shader_101_radix_count_reduce",
        entry_point="count",
        sources={"wgsl": _RADIX_COUNT_REDUCE},
        buffers=(
            BufferSpec.uniform(
                0,
                (
                    ("num_keys", "u32"),
                    ("num_blocks_per_wg", "u32"),
                    ("num_wgs", "u32"),
                    ("num_wgs_with_additional_blocks", "u32"),
                    ("num_reduce_wg_per_bin", "u32"),
                    ("num_scan_values", "u32"),
                    ("shift", "u32"),
                ),
                name="config",
            ),
            BufferSpec(1, "u32", "read", name="src", fill=_u32_keys),
            BufferSpec(
                2, "u32", "read_write", name="counts", count=lambda n: _BINS * _radix_split(n)[1]
            ),
            BufferSpec(3, "u32", "read_write", name="reduced", count=_BINS),
        ),
        reference=_radix_reference,
        params=_radix_config,
        defaults={"shift": 4},  # the second pass: digits 4 to 7
        launches=(
            Dispatch("count", grid=lambda s, n: (_radix_split(n)[1], 1, 1)),
            Dispatch("reduce", grid=lambda s, n: (_BINS, 1, 1)),
        ),
        # 5000: 5 blocks over 3 workgroups, the last two a block more, the last partial
        test_sizes=(5000,),
    ),
    {
        "digit of three bits": ("wgsl", "& 0xfu;", "& 0x7u;"),
        "extra blocks start where the plain ones do": (
            "wgsl",
            "        wg_block_start += (group_id.x - num_not_additional) * BLOCK_SIZE;\n",
            "",
        ),
        "counts written before every key is counted": (
            "wgsl",
            "    workgroupBarrier();\n    if local_id.x < BIN_COUNT {\n        counts",
            "    if local_id.x < BIN_COUNT {\n        counts",
        ),
        "one halving short": ("wgsl", "i < 8u", "i < 7u"),
    },
)

# -- 3. Futhark's float add by two exchanges, in a weighted histogram -------------------

_FUTHARK_FADD_HISTOGRAM = """// A weighted histogram of f32s with no float atomics: each add is two exchanges,
// taking the bin's value out (leaving 0) and putting the sum back, until what was put
// back displaced nothing (another invocation's sum is carried on instead).
struct Params {
    n: u32,
    _pad: u32,
}

@group(0) @binding(0) var<storage, read> keys: array<u32>;
@group(0) @binding(1) var<storage, read> weights: array<f32>;
@group(0) @binding(2) var<storage, read_write> hist: array<atomic<i32>>;
@group(0) @binding(3) var<uniform> params: Params;

const BINS: u32 = 64u;
var<workgroup> local_hist: array<atomic<i32>, BINS>;

fn atomic_fadd_f32_shared(bin: u32, x: f32) -> f32 {
    var old: f32 = x;
    var ret: f32;
    loop {
        ret = bitcast<f32>(atomicExchange(&local_hist[bin], 0)) + old;
        old = bitcast<f32>(atomicExchange(&local_hist[bin], bitcast<i32>(ret)));
        if (old == 0) { break; }
    }
    return ret;
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
    let i = gid.x;
    if (i < params.n) {
        atomic_fadd_f32_shared(keys[i] % BINS, weights[i]);
    }
    workgroupBarrier();
    if (lid.x < BINS) {
        var old = bitcast<f32>(atomicLoad(&local_hist[lid.x]));
        if (old != 0) {
            loop {
                let ret = bitcast<f32>(atomicExchange(&hist[lid.x], 0)) + old;
                old = bitcast<f32>(atomicExchange(&hist[lid.x], bitcast<i32>(ret)));
                if (old == 0) { break; }
            }
        }
    }
}
"""


def _fadd_histogram_reference(keys, weights, hist, params):
    bins = hist.astype(np.float64)
    np.add.at(bins, keys % 64, weights.astype(np.float64))
    hist[:] = bins.astype(np.float32)


def _histogram_keys(rng, count, size):
    return rng.integers(0, 1000, count, dtype=np.uint32)


FUTHARK_FADD_HISTOGRAM = Wild(
    KernelSpec(
        id="wild_r44_futhark_exchange_fadd_histogram",
        entry_point="main",
        sources={"wgsl": _FUTHARK_FADD_HISTOGRAM},
        buffers=(
            BufferSpec(0, "u32", "read", name="keys", fill=_histogram_keys),
            BufferSpec(1, "f32", "read", name="weights"),
            # f32 bits in atomic<i32>s, which start at +0.0 (the bins WebGPU zeroes)
            BufferSpec(2, "f32", "read_write", name="hist", count=64, initial=0.0),
            BufferSpec.uniform(3, (("n", "u32"), ("_pad", "u32")), name="params"),
        ),
        reference=_fadd_histogram_reference,
        params=lambda n: {"n": n},
        grid=lambda s, n: (ceil_div(n, 256), 1, 1),
        schedules=(Schedule(256),),
        # NaN weights: naga's `!=` is ordered, a NaN bin is never flushed (the docstring)
        nonfinite_inputs=False,
        test_sizes=(3000,),
    ),
    {
        "stops after one exchange": (
            "wgsl",
            "        if (old == 0) { break; }\n    }\n    return ret;",
            "        break;\n    }\n    return ret;",
        ),
        "flushed before every add is done": (
            "wgsl",
            "    workgroupBarrier();\n    if (lid.x < BINS)",
            "    if (lid.x < BINS)",
        ),
        "last weight left out": ("wgsl", "if (i < params.n)", "if (i + 1u < params.n)"),
        # (a flush that puts its bin back without adding what it took out never ends
        # where two workgroups swap their partial sums: not a mutant for CI)
        "negative bins never flushed": ("wgsl", "if (old != 0) {", "if (old > 0) {"),
    },
)

# -- 4. wgpu's hello_synchronization: a workgroup atomic counted, then reported ---------

_HELLO_SYNCHRONIZATION = """// Each workgroup counts its invocations into a workgroup atomic and one of them
// reports the count; `hasty_main` reports without waiting for the others.
@group(0) @binding(0) var<storage, read_write> output: array<u32>;

var<workgroup> count: atomic<u32>;

@compute @workgroup_size(16)
fn patient_main(@builtin(local_invocation_id) local_id: vec3<u32>,
                @builtin(workgroup_id) workgroup_id: vec3<u32>) {
    atomicAdd(&count, 1u);
    workgroupBarrier();
    if (local_id.x == 0u) {
        output[workgroup_id.x] = atomicLoad(&count);
    }
}

@compute @workgroup_size(16)
fn hasty_main(@builtin(local_invocation_id) local_id: vec3<u32>,
              @builtin(workgroup_id) workgroup_id: vec3<u32>) {
    atomicAdd(&count, 1u);
    if (local_id.x == 0u) {
        output[workgroup_id.x] = atomicLoad(&count);
    }
}
"""

HELLO_SYNCHRONIZATION = Wild(
    KernelSpec(
        id="wild_r44_wgpu_hello_synchronization",
        entry_point="patient_main",
        sources={"wgsl": _HELLO_SYNCHRONIZATION},
        buffers=(BufferSpec(0, "u32", "read_write", name="output"),),
        reference=lambda output: np.full(output.shape, 16, np.uint32),
        grid=lambda s, n: (n, 1, 1),  # a workgroup an output, as the example dispatches
        schedules=(Schedule(16),),
        test_sizes=(40,),
    ),
    {
        # the example's own hasty_main: lavapipe and SwiftShader report 8 or 4 of 16
        "no barrier before the report": ("wgsl", "    workgroupBarrier();\n    if", "    if"),
        "barrier moved into the reporting branch": (
            "wgsl",
            "    workgroupBarrier();\n    if (local_id.x == 0u) {\n",
            "    if (local_id.x == 0u) {\n        workgroupBarrier();\n",
        ),
    },
    # WGSL's uniformity analysis: Tint refuses it, and wgpu now too (naga compiled it and
    # lavapipe ran it to the right counts)
    refused={("barrier moved into the reporting branch", "wgsl"): "uniform control flow"},
)

ROUND44: dict[str, Wild] = {
    w.kernel.id: w
    for w in (RATCHET_SOFTMAX, RADIX_COUNT_REDUCE, FUTHARK_FADD_HISTOGRAM, HELLO_SYNCHRONIZATION)
}

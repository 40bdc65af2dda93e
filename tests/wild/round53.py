"""Round 53 of kernels from the wild, merged into ``tests.wild.CORPUS``: WGSL compute as
WebGPU applications and web ML runtimes ship it, in regimes the corpus lacked. Each is
written for this corpus after the public source named below: read, not copied (the
project's rule for public code). What is theirs is kept: the entry points, bindings
(groups, binding numbers, access, texture kinds and formats), ``override`` constants
and workgroup sizes, the workgroup memory, the barriers where they stand, the launch
sequence and the numerics (the order of every sum, the constants), and every real bug
of the original (each named below). What is ours: the comments, the locals' and
helpers' names where the source's say nothing, the order of equivalent statements and
the formatting, and each adaptation named below.

- kishimisu/WebGPU-Radix-Sort at 0af17c8f (MIT), ``src/shaders/radix_sort.js``,
  ``src/shaders/prefix_sum.js``, ``src/shaders/radix_sort_reorder.js`` with the host
  code of ``src/kernels/RadixSortKernel.js`` and ``src/kernels/PrefixSumKernel.js``:
  a key-value LSD radix sort two bits a pass after "Fast 4-way parallel radix sorting
  on GPUs". Each pass: ``radix_sort`` (one workgroup of ``WORKGROUP_SIZE_X x
  WORKGROUP_SIZE_Y`` invocations per ``THREADS_PER_WORKGROUP`` keys: four
  Hillis-Steele scans of the digit's mask in a double-buffered workgroup array, each
  key's rank among its digit stored, each workgroup's four digit counts stored digit
  major), the Blelloch scan of those counts (``reduce_downsweep`` two items an
  invocation, recursively on the block sums while there is more than one block, then
  ``add_block_sums``), and ``reorder`` (each key and value to its digit's base plus its
  rank); keys and values ping-pong with a second pair of buffers, so after an even
  number of passes they are back where they started. The host's ``bit_count`` is 8
  (keys below 256: four passes; 32 by default, sixteen passes of 34 pipelines). Every constant is a pipeline
  ``override`` the host sets per pipeline (``CURRENT_BIT`` per pass), and the workgroup
  arrays are sized by them. Adaptations: the three modules are joined into one, one
  declaration per buffer (the reorder's six bindings in group 0, the block-sum pass
  reading its keys through ``inputKeys``, its own module's ``input``, and writing the
  ranks and counts the reorder reads as ``local_prefix_sum`` and ``prefix_block_sum``,
  so those two are read_write; the scan's two in group 1), and the 4 x 4 workgroup the
  host may pick (``workgroup_size:
  {x: 4, y: 4}``; 16 x 16 by default). The original's real bug, kept: no invocation
  past the end returns early (the barriers), and the scan reads and writes two items
  an invocation over a whole block, so wherever ``ELEMENT_COUNT`` is not a multiple of
  the workgroup, or a scan's count not a multiple of its block of ``2 *
  THREADS_PER_WORKGROUP``, invocations past the end read and write out of bounds,
  which WGSL lets land on any element of the buffer or drop: where a device lands them
  on the last element, the last key's rank and the last digit's base are overwritten
  with wrong values. On both CPU adapters (naga's checks on lavapipe, Tint on
  SwiftShader) the sorted keys come out right at 4000 keys too, and the oracle fails
  the 24 writes past ``block_sums``' end, named (tests/test_wild_round53.py);
  the test size is one where nothing is out of bounds (4096 keys, 16 a workgroup: 32
  full scan blocks and one above them; 128 keys, one block, pass too), which a GPU that
  clamps cannot fail either. Also an adaptation of the
  oracle's: the joined module has one bind group layout for all its launches, so every
  launch binds all eight buffers, and each moves them as a permutation (no buffer
  writable twice in one dispatch, which WebGPU refuses); the original binds each
  module's own three, two or six.
- andrewdr0st/webgpu-image-processing at 6493ff4a (no licence file; public source read
  for its behaviour), ``shaders/sobel.wgsl`` with ``main.js``'s layouts and
  ``effectPipeline.js``'s dispatch: a Sobel edge filter from one
  ``texture_storage_2d<rgba8unorm, read>`` into another (``write``), the kernels as
  ``mat3x3f`` constants indexed ``[x + 1][y + 1]``, neighbours clamped to the edge, the
  red channel's magnitude stored as grey, workgroups of 8 x 8 and ``ceil(width / 8) x
  ceil(height / 8)`` of them; the values uniform (group 1) every effect's pipeline binds,
  unread. The original's real bug, kept: ``ix > max_x || iy > max_y`` lets the column
  and the row one past the image through, whose stores land outside it (dropped by
  WGSL's rules for ``textureStore``, so right on every device).
- tensorflow/tfjs at 029ec8fb (Apache-2.0), ``tfjs-backend-webgpu/src/softmax_webgpu.ts``
  with ``webgpu_program.ts``'s preamble (at 0029622b) for its rank-2 input and output (the private
  built-ins, the flat ``getGlobalIndex``, the ``Uniforms`` struct with ``NAN``,
  ``INFINITY``, ``logitsShape``, ``outShape`` and ``outShapeStrides``, ``getLogits``,
  ``setOutputAtCoords``, ``_start`` calling ``main(index)``): one workgroup of 64 per
  row (256 from 4096 columns, not run here), a strided max, a tree over ``min(cols,
  64)`` slots mended by ``max(buf[0], buf[reduceSize - 1])``, the exps' sum by a tree
  over all 64, then ``exp(x - max) / sum``. The original's real bug, kept: where the
  columns are fewer than 64 and no power of two, the max's tree leaves slots out (at
  10 columns, slot 4), so a row whose largest logit lies there far above the rest gets
  ``exp`` of a huge difference, Inf, and NaN; the test sizes are 200 columns and 32,
  and tests/test_wild_round53.py holds the oracle failing the original at 10.
- microsoft/onnxruntime at 05c37844 (MIT), ``js/web/lib/wasm/jsep/webgpu/ops/layer-norm.ts``
  with ``common.ts``'s ``mainStart`` of that time (``@workgroup_size(64, 1, 1)``,
  ``global_idx`` the global x): LayerNormalization over the last axis with scale and
  bias, one invocation a row, the shape templated into the source (``normSize``, the
  output size) as the JSEP host writes it, the mean and the mean square summed in one
  pass and ``sqrt(meanSquare / n - mean * mean + epsilon)``, epsilon 1e-5, ``Math.ceil(rows
  / 64)`` workgroups. The reference computes the moments the same way, in float64; the
  one-pass variance's cancellation is the kernel's rounding, which the oracle's bound for
  each numpy operation's rounding carries.
- kokutoupan/webgpu-raytracer at 1083c2c1 (MIT), ``src/shader.wgsl`` with ``src/main.ts``'s
  host: a "Ray Tracing in One Weekend" path tracer in one compute pass of 8 x 8, a PCG
  hash per pixel seeded by ``pixel_idx * 719393 + frame_count * 51234`` (its xorshift's
  count taken from the state before the step, as written), a jittered camera ray, two
  spheres (the ball and the ground) hit by the quadratic's half-b form with ``t_min``
  0.001, up to 10 Lambertian bounces (normal plus a random unit vector by ``cos`` and
  ``sin`` of a random angle, not normalised) each halving the throughput, the sky's
  gradient, the sample added into an ``array<vec4<f32>>`` accumulation buffer (restarted
  at frame 1, w counting frames) and the mean's square root stored to the rgba8unorm
  canvas; the host's camera (viewport 2 high, 2 W / H wide, focal length 1) and frame
  counter, three frames (three launches, each with its ``frame_count``). The reference
  traces the same RNG stream in float64 with numpy's ``cos`` and ``sin`` (the oracle
  carries WGSL's error for them), judged in f32 as any other float output.
- w9/zsplat at 31f0b88b (MIT, its package.json), ``src/shaders/radixSort.wgsl`` with
  ``src/core/StableRadixSort.ts``'s host: a Gaussian-splat renderer's stable radix sort
  of 32-bit keys, 8 bits a pass, four passes ping-ponging A and B, each the path the
  host takes (``useSeparatedScatter`` is always set): ``stableBlockSum`` (a workgroup
  of 256 per tile of 4096 keys, in waves of 256: each key's rank among the earlier keys
  of its digit, counted from the digits published in workgroup memory four at a time,
  plus the digit's count of the earlier waves in workgroup atomics; the tile's counts
  digit major), ``prefixSum`` (one workgroup: a Blelloch scan over all the counts, 256
  at a time, each tile's total carried), ``stableReorder`` (a key an invocation: its
  digit's base for its tile, ``i / TILE_SIZE``, plus its rank); the per-pass uniform
  (``bitOffset``, ``isFirstPass``, where the first pass sorts the indices themselves as
  the values). The module's ``histogram`` entry is kept; its unstable ``scatter`` and
  fused ``stableScatter`` are left out (the host's separated path binds neither), as is
  ``radixSortSubgroup.wgsl``'s subgroup-chunked scatter, which only the fused path, off
  at that commit, would pick where the device has ``subgroups``.

Mutants: an off-by-one bound, a wrong constant, a swapped index, a channel, an epsilon
outside the root, a running max started at zero, a tree started a level late. Left out
as invisible here: a barrier dropped from the radix sort's scans (its workgroups of 16
run in step on both CPU adapters, and the down-sweep's first level is one invocation's).
"""

# ruff: noqa: E501  (long lines of WGSL, and the mutants')

from __future__ import annotations

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule

from . import Wild

# -- 1. kishimisu's WebGPU-Radix-Sort: block sums, Blelloch scan, reorder ----------------

_RADIX_WGSL = """
override WORKGROUP_COUNT: u32;
override THREADS_PER_WORKGROUP: u32;
override WORKGROUP_SIZE_X: u32;
override WORKGROUP_SIZE_Y: u32;
override CURRENT_BIT: u32;
override ELEMENT_COUNT: u32;
override ITEMS_PER_WORKGROUP: u32;

// One declaration per buffer (the reorder's layout, group 0; the scan's, group 1): the
// block-sum pass reads its keys through inputKeys (its own module's "input") and
// writes the ranks and counts the reorder reads (its "local_prefix_sum" and
// "prefix_block_sum").
@group(0) @binding(0) var<storage, read> inputKeys: array<u32>;
@group(0) @binding(1) var<storage, read> inputValues: array<u32>;
@group(0) @binding(2) var<storage, read_write> local_prefix_sums: array<u32>;
@group(0) @binding(3) var<storage, read_write> block_sums: array<u32>;
@group(0) @binding(4) var<storage, read_write> outputKeys: array<u32>;
@group(0) @binding(5) var<storage, read_write> outputValues: array<u32>;
@group(1) @binding(0) var<storage, read_write> items: array<u32>;
@group(1) @binding(1) var<storage, read_write> blockSums: array<u32>;

// ---- radix_sort.js: each key's rank among its workgroup's keys of the same digit -----

// two halves of THREADS_PER_WORKGROUP + 1 (a leading zero each) the scan flips between
var<workgroup> s_prefix_sum: array<u32, 2 * (THREADS_PER_WORKGROUP + 1)>;

@compute @workgroup_size(WORKGROUP_SIZE_X, WORKGROUP_SIZE_Y, 1)
fn radix_sort(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) TID: u32,
) {
    let WID = wid.x * THREADS_PER_WORKGROUP;
    let GID = WID + TID;

    // the pass's two-bit digit of this invocation's key (read past the end too)
    let key = inputKeys[GID];
    let digit: u32 = (key >> CURRENT_BIT) & 0x3;

    var ranks = array<u32, 4>(0, 0, 0, 0);

    // the workgroup's last real key (the last workgroup may be partly empty)
    let LAST_THREAD = min(THREADS_PER_WORKGROUP, ELEMENT_COUNT - WID) - 1;

    let span = THREADS_PER_WORKGROUP + 1;
    var flip: u32 = 0;
    var src: u32 = TID;
    var dst: u32 = TID + span;

    for (var b: u32 = 0; b < 4; b++) {
        // an exclusive scan of "my digit is b": the mask shifted one slot right
        let mask = select(0u, 1u, digit == b);
        s_prefix_sum[src + 1] = mask;
        workgroupBarrier();

        for (var stride: u32 = 1; stride < THREADS_PER_WORKGROUP; stride *= 2) {
            if (TID >= stride) {
                s_prefix_sum[dst] = s_prefix_sum[src] + s_prefix_sum[src - stride];
            } else {
                s_prefix_sum[dst] = s_prefix_sum[src];
            }

            dst = src;
            flip = span - flip;
            src = TID + flip;

            workgroupBarrier();
        }

        let before = s_prefix_sum[src];
        ranks[b] = before;

        if (TID == LAST_THREAD) {
            // how many keys of digit b this workgroup holds, stored digit major
            block_sums[b * WORKGROUP_COUNT + wid.x] = before + mask;
        }

        dst = src;
        flip = span - flip;
        src = TID + flip;
    }

    local_prefix_sums[GID] = ranks[digit];
}

// ---- prefix_sum.js: Blelloch's work-efficient exclusive scan, two items a thread ------

var<workgroup> temp: array<u32, ITEMS_PER_WORKGROUP * 2>;

@compute @workgroup_size(WORKGROUP_SIZE_X, WORKGROUP_SIZE_Y, 1)
fn reduce_downsweep(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) TID: u32,
) {
    let GID = wid.x * THREADS_PER_WORKGROUP + TID;
    let pair = TID * 2;
    let global_pair = GID * 2;

    temp[pair] = items[global_pair];
    temp[pair + 1] = items[global_pair + 1];

    var offset: u32 = 1;

    // up-sweep: partial sums up a balanced tree, in place
    for (var d: u32 = ITEMS_PER_WORKGROUP >> 1; d > 0; d >>= 1) {
        workgroupBarrier();

        if (TID < d) {
            let left = offset * (pair + 1) - 1;
            let right = offset * (pair + 2) - 1;
            temp[right] += temp[left];
        }

        offset *= 2;
    }

    // the block's total to blockSums, and the root cleared for the down-sweep
    if (TID == 0) {
        let root = ITEMS_PER_WORKGROUP - 1;
        blockSums[wid.x] = temp[root];
        temp[root] = 0;
    }

    // down-sweep: each node passes its value left and the sum right
    for (var d: u32 = 1; d < ITEMS_PER_WORKGROUP; d *= 2) {
        offset >>= 1;
        workgroupBarrier();

        if (TID < d) {
            let left = offset * (pair + 1) - 1;
            let right = offset * (pair + 2) - 1;
            let carried = temp[left];
            temp[left] = temp[right];
            temp[right] += carried;
        }
    }
    workgroupBarrier();

    items[global_pair] = temp[pair];
    items[global_pair + 1] = temp[pair + 1];
}

@compute @workgroup_size(WORKGROUP_SIZE_X, WORKGROUP_SIZE_Y, 1)
fn add_block_sums(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) TID: u32,
) {
    let GID = wid.x * THREADS_PER_WORKGROUP + TID;
    let at = GID * 2;
    let carry = blockSums[wid.x];

    items[at] += carry;
    items[at + 1] += carry;
}

// ---- radix_sort_reorder.js: every key and value to its place in the pass's order ------

@compute @workgroup_size(WORKGROUP_SIZE_X, WORKGROUP_SIZE_Y, 1)
fn radix_sort_reorder(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) TID: u32,
) {
    let GID = TID + wid.x * THREADS_PER_WORKGROUP;

    if (GID >= ELEMENT_COUNT) {
        return;
    }

    let k = inputKeys[GID];
    let v = inputValues[GID];

    let rank = local_prefix_sums[GID];

    // digit-major block sums: every workgroup's keys of a lower digit come first
    let digit = (k >> CURRENT_BIT) & 0x3;
    let slot = digit * WORKGROUP_COUNT + wid.x;
    let sorted_position = block_sums[slot] + rank;

    outputKeys[sorted_position] = k;
    outputValues[sorted_position] = v;
}
"""

_WG = (4, 4)  # the host's workgroup_size {x: 4, y: 4}
_THREADS = _WG[0] * _WG[1]
_ITEMS = 2 * _THREADS
_BITS = 8  # the host's bit_count: 8-bit keys, four passes


def _radix_groups(n: int) -> int:
    return -(-n // _THREADS)


def _scan_levels(count: int) -> list[int]:
    """PrefixSumKernel's recursion: the block counts of each level, outermost first."""
    levels = []
    while True:
        blocks = -(-count // _ITEMS)
        levels.append(blocks)
        if blocks <= 1:
            return levels
        count = blocks


def _radix_launches(size):
    """RadixSortKernel.dispatch: per two bits, the block sums, the scan's levels, the
    reorder. Every launch binds all eight buffers (one layout for the joined module), so
    each moves them as a permutation: no buffer writable twice in one dispatch."""
    n = int(size)
    groups = _radix_groups(n)
    levels = _scan_levels(4 * groups)
    if len(levels) > 2:
        raise ValueError(f"{n} keys need {len(levels)} scan levels; the spec binds two")
    odd = {
        "inputKeys": "tmpKeys",
        "inputValues": "tmpValues",
        "outputKeys": "keys",
        "outputValues": "values",
    }
    level = [
        {"items": "block_sums", "blockSums": "level1", "block_sums": "level2"},
        {"items": "level1", "blockSums": "level2"},
    ]
    steps = []
    for bit in range(0, _BITS, 2):
        swap = {} if bit % 4 == 0 else odd
        steps.append(
            Dispatch(
                "radix_sort", grid=(groups, 1, 1), overrides={"CURRENT_BIT": bit}, bindings=swap
            )
        )
        # PrefixSumKernel: each level's scan, then, innermost first, each level's add
        scans = [
            Dispatch("reduce_downsweep", grid=(blocks, 1, 1), bindings=level[depth])
            for depth, blocks in enumerate(levels)
        ]
        adds = [
            Dispatch("add_block_sums", grid=(blocks, 1, 1), bindings=level[depth])
            for depth, blocks in enumerate(levels)
            if blocks > 1
        ]
        steps += _interleave(scans, adds)
        steps.append(
            Dispatch(
                "radix_sort_reorder",
                grid=(groups, 1, 1),
                overrides={"CURRENT_BIT": bit},
                bindings=swap,
            )
        )
    return tuple(steps)


def _interleave(scans, adds):
    """create_pass_recursive's order: a level's scan, the levels below it, then the
    level's add (when it has more than one block)."""
    if not scans:
        return []
    head, rest = scans[0], scans[1:]
    return [head, *_interleave(rest, adds[1:]), *adds[:1]]


def _radix_reference(keys, values, **_):
    order = np.argsort(keys, kind="stable")
    return {"keys": keys[order], "values": values[order]}


_RADIX_OVERRIDES = {
    "WORKGROUP_COUNT": lambda schedule, size: _radix_groups(int(size)),
    "THREADS_PER_WORKGROUP": _THREADS,
    "WORKGROUP_SIZE_X": _WG[0],
    "WORKGROUP_SIZE_Y": _WG[1],
    "CURRENT_BIT": 0,
    "ELEMENT_COUNT": lambda schedule, size: int(size),
    "ITEMS_PER_WORKGROUP": _ITEMS,
}


def _keys(rng, count, size):
    # bit_count 8: keys below 256, each about 16 times over (ties show a scatter that is
    # not stable), a quarter of them below 8
    keys = rng.integers(0, 2**_BITS, count, dtype=np.uint32)
    keys[: count // 4] = rng.integers(0, 8, count // 4, dtype=np.uint32)
    return rng.permutation(keys)


def _values(rng, count, size):
    return np.arange(count, dtype=np.uint32)


def _level1(size):
    return max(1, _scan_levels(4 * _radix_groups(int(size)))[0])


RADIX_SORT = Wild(
    KernelSpec(
        id="wild_r53_kishimisu_webgpu_radix_sort",
        entry_point="radix_sort",
        sources={"wgsl": _RADIX_WGSL},
        buffers=(
            BufferSpec(0, "u32", "read_write", name="keys", fill=_keys, inout=True),
            BufferSpec(1, "u32", "read_write", name="values", fill=_values, inout=True),
            BufferSpec(2, "u32", "read_write", name="local_prefix_sums", scratch=True),
            BufferSpec(
                3,
                "u32",
                "read_write",
                name="block_sums",
                count=lambda s: 4 * _radix_groups(int(s)),
                scratch=True,
            ),
            BufferSpec(4, "u32", "read_write", name="tmpKeys", scratch=True),
            BufferSpec(5, "u32", "read_write", name="tmpValues", scratch=True),
            BufferSpec(0, "u32", "read_write", group=1, name="level2", count=1, scratch=True),
            BufferSpec(1, "u32", "read_write", group=1, name="level1", count=_level1, scratch=True),
        ),
        reference=_radix_reference,
        overrides=_RADIX_OVERRIDES,
        launches=_radix_launches,
        schedules=(Schedule(_WG),),
        # 32 full scan blocks and one above them (128 keys, one block, pass too: by hand)
        test_sizes=(4096,),
    ),
    {
        "the workgroup's count taken one key early": (
            "wgsl",
            "block_sums[b * WORKGROUP_COUNT + wid.x] = before + mask;",
            "block_sums[b * WORKGROUP_COUNT + wid.x] = before;",
        ),
        "the scan's last step skipped": (
            "wgsl",
            "stride < THREADS_PER_WORKGROUP; stride *= 2",
            "stride < THREADS_PER_WORKGROUP / 2u; stride *= 2",
        ),
        "three bits a digit's mask": (
            "wgsl",
            "let digit: u32 = (key >> CURRENT_BIT) & 0x3;",
            "let digit: u32 = (key >> CURRENT_BIT) & 0x7;",
        ),
        "the block sums read workgroup-major": (
            "wgsl",
            "let slot = digit * WORKGROUP_COUNT + wid.x;",
            "let slot = wid.x * 4u + digit;",
        ),
    },
)


# -- 2. andrewdr0st's webgpu-image-processing: Sobel between two rgba8unorm storage textures --

_SOBEL_WGSL = """
// the two 3 x 3 kernels, column by column (m[column][row])
const sobel_x = mat3x3f(1, 2, 1, 0, 0, 0, -1, -2, -1);
const sobel_y = mat3x3f(1, 0, -1, 2, 0, -2, 1, 0, -1);

struct valueStruct {
    amount: f32,
    dx: f32,
    dy: f32
}

@group(0) @binding(0) var img_in: texture_storage_2d<rgba8unorm, read>;
@group(0) @binding(1) var img_out: texture_storage_2d<rgba8unorm, write>;
// every effect's pipeline binds the values group; the edge filter reads none of it
@group(1) @binding(0) var<uniform> values: valueStruct;

@compute @workgroup_size(8, 8, 1) fn sobel(@builtin(global_invocation_id) id: vec3u) {
    let max_x = i32(textureDimensions(img_in).x);
    let max_y = i32(textureDimensions(img_in).y);
    let ix = i32(id.x);
    let iy = i32(id.y);
    // (lets the column and row one past the image through: their stores land outside)
    if (ix > max_x || iy > max_y) {
        return;
    }

    var sx: f32 = 0;
    var sy: f32 = 0;
    var x: i32;
    var y: i32;

    // the red channel's gradients, neighbours clamped to the image's edge
    for (x = -1; x <= 1; x++) {
        for (y = -1; y <= 1; y++) {
            let p = vec2i(clamp(ix + x, 0, max_x - 1), clamp(iy + y, 0, max_y - 1));
            let c = textureLoad(img_in, p);
            sx += (c * sobel_x[x + 1][y + 1]).r;
            sy += (c * sobel_y[x + 1][y + 1]).r;
        }
    }

    let out = sqrt(sx * sx + sy * sy);
    let finalc = vec4f(out, out, out, 1.0);
    textureStore(img_out, id.xy, finalc);
}
"""


def _sobel_reference(img_in, img_out, **_):
    """The red channel's Sobel magnitude with clamp-to-edge neighbours, the taps summed
    in the kernel's order (column offset outer, row offset inner), as grey with alpha
    1: the floats the kernel stores (the device converts them to bytes)."""
    red = img_in[..., 0].astype(np.float64)
    height, width = red.shape
    rows, cols = np.arange(height), np.arange(width)
    weight_x = {-1: (1, 2, 1), 0: (0, 0, 0), 1: (-1, -2, -1)}  # sobel_x[x + 1][y + 1]
    weight_y = {-1: (1, 0, -1), 0: (2, 0, -2), 1: (1, 0, -1)}
    sx = np.zeros((height, width))
    sy = np.zeros((height, width))
    for x in (-1, 0, 1):
        for y in (-1, 0, 1):
            at = red[np.clip(rows + y, 0, height - 1)][:, np.clip(cols + x, 0, width - 1)]
            sx = sx + at * weight_x[x][y + 1]
            sy = sy + at * weight_y[x][y + 1]
    out = np.sqrt(sx * sx + sy * sy)
    return np.stack([out, out, out, np.ones_like(out)], axis=-1).astype(np.float32)


SOBEL = Wild(
    KernelSpec(
        id="wild_r53_andrewdr0st_sobel_storage_textures",
        entry_point="sobel",
        sources={"wgsl": _SOBEL_WGSL},
        dims=("H", "W"),
        buffers=(
            BufferSpec(0, access="read", name="img_in", texture="rgba8unorm", shape=("H", "W")),
            BufferSpec(
                1, access="read_write", name="img_out", texture="rgba8unorm", shape=("H", "W")
            ),
            BufferSpec.uniform(
                0, (("amount", "f32"), ("dx", "f32"), ("dy", "f32")), group=1, name="values"
            ),
        ),
        reference=_sobel_reference,
        defaults={"amount": 1.0, "dx": 0.0, "dy": 0.0},
        # EffectPipeline.run: ceil(width / 8) x ceil(height / 8) workgroups
        grid=lambda s, size: (-(-size.W // 8), -(-size.H // 8), 1),
        schedules=(Schedule((8, 8, 1)),),
        test_sizes=("H=13,W=21", "H=8,W=8"),
    ),
    {
        "the x kernel read transposed": (
            "wgsl",
            "sx += (c * sobel_x[x + 1][y + 1]).r;",
            "sx += (c * sobel_x[y + 1][x + 1]).r;",
        ),
        "the bottom row clamped one short": (
            "wgsl",
            "clamp(iy + y, 0, max_y - 1)",
            "clamp(iy + y, 0, max_y - 2)",
        ),
        "the y gradient from green": (
            "wgsl",
            "sy += (c * sobel_y[x + 1][y + 1]).r;",
            "sy += (c * sobel_y[x + 1][y + 1]).g;",
        ),
        "the magnitude without its root": (
            "wgsl",
            "let out = sqrt(sx * sx + sy * sy);",
            "let out = sx * sx + sy * sy;",
        ),
    },
)


# -- 3. TensorFlow.js's WebGPU backend: SoftmaxProgram, one workgroup a row -----------------

_TFJS_SOFTMAX_WGSL = """
// webgpu_program.ts's preamble for one input "logits" of rank 2, output of rank 2
var<private> localId: vec3<u32>;
var<private> localIndex: u32;
var<private> globalId: vec3<u32>;
var<private> numWorkgroups: vec3<u32>;
var<private> workgroupId: vec3<u32>;

// a flat dispatch (y and z of one): the index is the global x
fn getGlobalIndex() -> i32 {
  return i32(globalId.x);
}

struct Uniforms { NAN : f32, INFINITY : f32, logitsShape : vec2<i32>, outShape : vec2<i32>,
  outShapeStrides: i32, };

@group(0) @binding(0) var<storage, read_write> result: array<f32>;
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<uniform> uniforms: Uniforms;

fn getIndexFromCoords2D(coords : vec2<i32>, shape : vec2<i32>) -> i32 {
  return dot(coords, vec2<i32>(shape.y, 1));
}

fn getOutputIndexFromCoords(coords : vec2<i32>) -> i32 {
  return dot(coords, vec2<i32>(uniforms.outShapeStrides, 1));
}

fn setOutputAtIndex(flatIndex : i32, value : f32) {
  result[flatIndex] = f32(value);
}

fn setOutputAtCoords(d0 : i32, d1 : i32, value : f32) {
  let flatIndex = getOutputIndexFromCoords(vec2<i32>(d0, d1));
  setOutputAtIndex(flatIndex, value);
}

fn getLogits(d0 : i32, d1 : i32) -> f32 {
  return f32(logits[getIndexFromCoords2D(vec2<i32>(d0, d1), uniforms.logitsShape)]);
}

// SoftmaxProgram.getUserCode: one workgroup per row (the host dispatches rows x 1 x 1);
// a strided max, a tree, a strided sum of exps, a tree, then the quotients
var<workgroup> buf : array<f32, 64>;
var<workgroup> rowMaxShared : f32;
var<workgroup> rowSumShared : f32;
const blockSize = 64;
fn main(index : i32) {
  let row = index / blockSize;
  let tid = i32(localId.x);
  let cols = uniforms.outShape[1];

  var threadMax = -3.402823e+38f;
  for (var col = tid; col < cols; col += blockSize) {
    let value = getLogits(row, col);
    threadMax = max(threadMax, value);
  }
  if (tid < cols) {
    buf[tid] = threadMax;
  }
  workgroupBarrier();

  // (a tree over min(cols, 64) slots: a count that is no power of two leaves slots out,
  // which the last slot's max only partly mends)
  let reduceSize = min(cols, blockSize);
  for (var currSize = reduceSize >> 1; currSize > 0; currSize = currSize >> 1) {
    if (tid < currSize) {
      buf[tid] = max(buf[tid], buf[tid + currSize]);
    }
    workgroupBarrier();
  }

  if (tid == 0) {
    rowMaxShared = max(buf[0], buf[reduceSize - 1]);
  }
  workgroupBarrier();

  var threadSum = 0.0;
  for (var col = tid; col < cols; col += blockSize) {
    let subExp = exp(getLogits(row, col) - rowMaxShared);
    threadSum += subExp;
  }
  buf[tid] = threadSum;
  workgroupBarrier();

  for (var currSize = blockSize >> 1; currSize > 0; currSize = currSize >> 1) {
    if (tid < currSize) {
      buf[tid] = buf[tid] + buf[tid + currSize];
    }
    workgroupBarrier();
  }

  if (tid == 0) {
    rowSumShared = buf[0];
  }
  workgroupBarrier();

  for (var col = tid; col < cols; col += blockSize) {
    let value = exp(getLogits(row, col) - rowMaxShared) / rowSumShared;
    setOutputAtCoords(row, col, value);
  }
}

@compute @workgroup_size(64, 1, 1)
fn _start(@builtin(local_invocation_id) LocalId : vec3<u32>,
          @builtin(global_invocation_id) GlobalId : vec3<u32>,
          @builtin(local_invocation_index) LocalIndex: u32,
          @builtin(workgroup_id) WorkgroupId : vec3<u32>,
          @builtin(num_workgroups) NumWorkgroups : vec3<u32>) {
  localId = LocalId;
  localIndex = LocalIndex;
  globalId = GlobalId;
  numWorkgroups = NumWorkgroups;
  workgroupId = WorkgroupId;
  main(getGlobalIndex());
}
"""


def _softmax_reference(result, logits, **_):
    x = logits.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


def _softmax_params(size):
    shape = (int(size.rows), int(size.cols))
    return {"logitsShape": shape, "outShape": shape, "outShapeStrides": shape[1]}


TFJS_SOFTMAX = Wild(
    KernelSpec(
        id="wild_r53_tfjs_webgpu_softmax_program",
        entry_point="_start",
        sources={"wgsl": _TFJS_SOFTMAX_WGSL},
        dims=("rows", "cols"),
        buffers=(
            BufferSpec(
                0, "f32", "read_write", name="result", count="rows*cols", shape=("rows", "cols")
            ),
            BufferSpec(1, "f32", "read", name="logits", count="rows*cols", shape=("rows", "cols")),
            BufferSpec.uniform(
                2,
                (
                    ("NAN", "f32"),
                    ("INFINITY", "f32"),
                    ("logitsShape", "vec2<i32>"),
                    ("outShape", "vec2<i32>"),
                    ("outShapeStrides", "i32"),
                ),
                name="uniforms",
            ),
        ),
        reference=_softmax_reference,
        params=_softmax_params,
        defaults={"NAN": float("nan"), "INFINITY": float("inf")},
        grid=lambda s, size: (size.rows, 1, 1),
        schedules=(Schedule(64),),
        # the columns at least a workgroup (the max's tree is whole), or a power of two
        test_sizes=("rows=9,cols=200", "rows=6,cols=32"),
    ),
    {
        "the running max started at zero": (
            "wgsl",
            "var threadMax = -3.402823e+38f;",
            "var threadMax = 0.0;",
        ),
        "the max's strided loop one column short": (
            "wgsl",
            "for (var col = tid; col < cols; col += blockSize) {\n    let value = getLogits(row, col);",
            "for (var col = tid; col < cols - 1; col += blockSize) {\n    let value = getLogits(row, col);",
        ),
        "the sum's tree from a quarter": (
            "wgsl",
            "for (var currSize = blockSize >> 1; currSize > 0;",
            "for (var currSize = blockSize >> 2; currSize > 0;",
        ),
        "the output strided by the logits' rows": (
            "wgsl",
            "return dot(coords, vec2<i32>(uniforms.outShapeStrides, 1));",
            "return dot(coords, vec2<i32>(uniforms.outShapeStrides + 1, 1));",
        ),
    },
)


# -- 4. ONNX Runtime Web (JSEP): LayerNormalization, one invocation a row --------------------

_NORM = 96  # the normalised axis' size, templated into the shader as the host does


def _ort_layer_norm_wgsl(norm_size: int, epsilon: float, output_size: int) -> str:
    return f"""
const normSize: u32 = {norm_size};
const normSizeTyped: f32 = {norm_size};
const epsilon: f32 = {epsilon};

@group(0) @binding(0) var<storage, read> x : array<f32>;
@group(0) @binding(1) var<storage, read> scale : array<f32>;
@group(0) @binding(2) var<storage, read> bias : array<f32>;
@group(0) @binding(3) var<storage, read_write> output : array<f32>;

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) global_id : vec3<u32>,
    @builtin(local_invocation_id) local_id : vec3<u32>) {{
    let global_idx = global_id.x;

    // one row of normSize a thread; the moments in one pass (the root holds
    // sqrt(E[x^2] - mean^2 + epsilon), the standard deviation, though named for the
    // mean square)
    let offset = global_idx * normSize;
    if (offset >= {output_size}) {{ return; }}
    var mean: f32 = 0;
    var meanSquare: f32 = 0;

    for (var h: u32 = 0u; h < normSize; h++) {{
      mean = mean + x[h + offset];
      meanSquare = meanSquare + x[h + offset] * x[h + offset];
    }}
    mean = mean / normSizeTyped;
    meanSquare = sqrt(meanSquare / normSizeTyped - mean * mean + epsilon);

    for (var j: u32 = 0; j < normSize; j++) {{
      output[j + offset] = (x[j + offset] - mean) / meanSquare * scale[j] + bias[j];
    }}
}}
"""


_ORT_LN_WGSL = _ort_layer_norm_wgsl(_NORM, 1e-5, 17 * _NORM).replace(
    f"if (offset >= {17 * _NORM})", "if (offset >= {{outputSize}})"
)


def _ort_layer_norm_reference(x, scale, bias, output, **_):
    """LayerNormalization over the last axis as the kernel computes it: the mean and the
    mean square in one pass, the biased variance as their difference, epsilon inside
    the root, then (x - mean) / std * scale + bias."""
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    square = (x64 * x64).mean(axis=1, keepdims=True)
    std = np.sqrt(square - mean * mean + 1e-5)
    return ((x64 - mean) / std * scale + bias).astype(np.float32)


ORT_LAYER_NORM = Wild(
    KernelSpec(
        id="wild_r53_onnxruntime_web_layer_norm",
        entry_point="main",
        sources={"wgsl": _ORT_LN_WGSL},
        dims=("rows", "cols"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="rows*cols", shape=("rows", "cols")),
            BufferSpec(1, "f32", "read", name="scale", count="cols"),
            BufferSpec(2, "f32", "read", name="bias", count="cols"),
            BufferSpec(
                3, "f32", "read_write", name="output", count="rows*cols", shape=("rows", "cols")
            ),
        ),
        reference=_ort_layer_norm_reference,
        constants={"outputSize": lambda s, size: int(size.rows) * int(size.cols)},
        # Math.ceil(normCount / 64) workgroups
        grid=lambda s, size: (-(-int(size.rows) // 64), 1, 1),
        schedules=(Schedule(64),),
        test_sizes=(f"rows=70,cols={_NORM}", f"rows=3,cols={_NORM}"),
    ),
    {
        "epsilon outside the root": (
            "wgsl",
            "sqrt(meanSquare / normSizeTyped - mean * mean + epsilon)",
            "(sqrt(meanSquare / normSizeTyped - mean * mean) + epsilon)",
        ),
        "the variance without the mean's square": (
            "wgsl",
            "meanSquare / normSizeTyped - mean * mean + epsilon",
            "meanSquare / normSizeTyped + epsilon",
        ),
        "the bias indexed by the row's offset": (
            "wgsl",
            "* scale[j] + bias[j];",
            "* scale[j] + bias[j + offset];",
        ),
    },
)


# -- 5. kokutoupan's webgpu-raytracer: a path tracer accumulating frames in a storage buffer --

_PATH_TRACER_WGSL = """
@group(0) @binding(0) var outputTex: texture_storage_2d<rgba8unorm, write>;

// the running sum of every frame's sample (linear), its w counting the frames
@group(0) @binding(1) var<storage, read_write> accumulateBuffer: array<vec4<f32>>;

struct FrameInfo {
    frame_count: u32,
}
@group(0) @binding(2) var<uniform> frame: FrameInfo;

// the host's fixed pinhole camera: four vec3s, each padded to 16 bytes
struct Camera {
    origin: vec3<f32>,
    lower_left_corner: vec3<f32>,
    horizontal: vec3<f32>,
    vertical: vec3<f32>,
}
@group(0) @binding(3) var<uniform> camera: Camera;

const PI = 3.141592653589793;

struct Ray {
    origin: vec3<f32>,
    direction: vec3<f32>,
}

struct Sphere {
    center: vec3<f32>,
    radius: f32,
}

struct HitRecord {
    p: vec3<f32>,
    normal: vec3<f32>,
    t: f32,
    front_face: bool,
}

struct RandomGenerator {
    state: u32,
}

// a PCG step (LCG, then an xorshift by a count from the top bits, a multiply and a
// final xorshift), the count taken from the state before the step; as a float in [0, 1]
fn rand_pcg(rng: ptr<function, RandomGenerator>) -> f32 {
    let before = (*rng).state;
    (*rng).state = before * 747796405u + 2891336453u;
    let word = ((*rng).state >> ((before >> 28u) + 4u)) ^ (*rng).state;
    let mixed = word * 277803737u;
    let hashed = (mixed >> 22u) ^ mixed;
    return f32(hashed) / 4294967295.0;
}

// a direction on the unit sphere: z uniform in [-1, 1], the angle around it uniform
fn random_unit_vector(rng: ptr<function, RandomGenerator>) -> vec3<f32> {
    let z = rand_pcg(rng) * 2.0 - 1.0;
    let angle = rand_pcg(rng) * 2.0 * PI;
    let ring = sqrt(max(0.0, 1.0 - z * z));
    return vec3<f32>(ring * cos(angle), ring * sin(angle), z);
}

fn ray_at(r: Ray, t: f32) -> vec3<f32> {
    return r.origin + t * r.direction;
}

// the nearer root in (t_min, t_max), else the farther one, else no hit; the normal
// turned against the ray
fn hit_sphere(s: Sphere, r: Ray, t_min: f32, t_max: f32, rec: ptr<function, HitRecord>) -> bool {
    let oc = r.origin - s.center;
    let a = dot(r.direction, r.direction);
    let h = dot(r.direction, oc);
    let c = dot(oc, oc) - s.radius * s.radius;
    let discriminant = h * h - a * c;

    if (discriminant < 0.0) { return false; }

    let sqrtd = sqrt(discriminant);
    var root = (-h - sqrtd) / a;
    if (root <= t_min || t_max <= root) {
        root = (-h + sqrtd) / a;
        if (root <= t_min || t_max <= root) {
            return false;
        }
    }

    (*rec).t = root;
    (*rec).p = ray_at(r, root);
    let outward_normal = ((*rec).p - s.center) / s.radius;
    (*rec).front_face = dot(r.direction, outward_normal) < 0.0;
    (*rec).normal = select(-outward_normal, outward_normal, (*rec).front_face);

    return true;
}

// up to 10 diffuse bounces, each halving the throughput, until a ray escapes to the sky
fn ray_color(r_in: Ray, rng: ptr<function, RandomGenerator>) -> vec3<f32> {
    var spheres = array<Sphere, 2>(
        Sphere(vec3<f32>(0.0, 0.0, -1.0), 0.5),
        Sphere(vec3<f32>(0.0, -100.5, -1.0), 100.0)
    );

    var ray = r_in;
    var color = vec3<f32>(0.0);
    var throughput = vec3<f32>(1.0);

    for (var depth = 0u; depth < 10u; depth++) {
        var rec: HitRecord;
        var hit_anything = false;
        var closest_so_far = 9999999.0;
        let t_min = 0.001;

        for (var i = 0u; i < 2u; i++) {
            if (hit_sphere(spheres[i], ray, t_min, closest_so_far, &rec)) {
                hit_anything = true;
                closest_so_far = rec.t;
            }
        }

        if (hit_anything) {
            // Lambertian: the normal plus a random unit vector, not normalised
            let new_dir = rec.normal + random_unit_vector(rng);
            ray = Ray(rec.p, new_dir);
            throughput *= 0.5;
            if (length(throughput) < 0.001) { break; }
        } else {
            let unit_direction = normalize(ray.direction);
            let t = 0.5 * (unit_direction.y + 1.0);
            let sky_color = mix(vec3<f32>(1.0), vec3<f32>(0.5, 0.7, 1.0), t);
            color += throughput * sky_color;
            break;
        }
    }
    return color;
}

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let dims = textureDimensions(outputTex);
    if (id.x >= dims.x || id.y >= dims.y) { return; }

    let pixel_idx = id.y * dims.x + id.x;

    // seeded by the pixel and the frame
    var rng = RandomGenerator(pixel_idx * 719393u + frame.frame_count * 51234u);

    // a jittered sample in the pixel, rows counted from the top
    let u_offset = rand_pcg(&rng);
    let v_offset = rand_pcg(&rng);
    let u = (f32(id.x) + u_offset) / f32(dims.x);
    let v = 1.0 - ((f32(id.y) + v_offset) / f32(dims.y));

    let direction = camera.lower_left_corner
                  + (u * camera.horizontal)
                  + (v * camera.vertical)
                  - camera.origin;

    let r = Ray(camera.origin, direction);

    let pixel_color_linear = ray_color(r, &rng);

    // frame 1 starts the sum afresh; later frames add to it
    var accumulated = vec4<f32>(0.0);
    if (frame.frame_count > 1u) {
        accumulated = accumulateBuffer[pixel_idx];
    }

    let new_accumulated = accumulated + vec4<f32>(pixel_color_linear, 1.0);
    accumulateBuffer[pixel_idx] = new_accumulated;

    // the mean so far, gamma 2 by a square root, for the canvas
    let frame_f32 = f32(frame.frame_count);
    var final_color = new_accumulated.rgb / frame_f32;

    final_color = sqrt(final_color);
    final_color = clamp(final_color, vec3<f32>(0.0), vec3<f32>(1.0));

    textureStore(outputTex, vec2<i32>(id.xy), vec4<f32>(final_color, 1.0));
}
"""

_FRAMES = 3
_MASK = np.uint64(0xFFFFFFFF)


def _camera(rng, count, size):
    """main.ts's camera for a canvas of W x H: the eye at the origin, a viewport 2 high
    and 2 W / H wide one unit down -z, as four vec3s padded to vec4s."""
    width = 2.0 * int(size.W) / int(size.H)
    rows = [
        (0.0, 0.0, 0.0, 0.0),
        (-width / 2.0, -1.0, -1.0, 0.0),
        (width, 0.0, 0.0, 0.0),
        (0.0, 2.0, 0.0, 0.0),
    ]
    return np.array(rows, np.float32).reshape(count, 4)


def _pcg(state, live):
    """rand_pcg on each live pixel's state (uint64 holding u32s): the new states and the
    floats (the hash as float32, over 2**32 as WGSL's literal rounds to float32)."""
    before = state
    after = (before * np.uint64(747796405) + np.uint64(2891336453)) & _MASK
    word = (after >> ((before >> np.uint64(28)) + np.uint64(4))) ^ after
    mixed = (word * np.uint64(277803737)) & _MASK
    hashed = (mixed >> np.uint64(22)) ^ mixed
    value = hashed.astype(np.float32).astype(np.float64) / 4294967296.0
    return np.where(live, after, state), value


def _hit_sphere(center, radius, origin, direction, t_max):
    oc = origin - center
    a = np.sum(direction * direction, axis=-1)
    h = np.sum(direction * oc, axis=-1)
    c = np.sum(oc * oc, axis=-1) - radius * radius
    disc = h * h - a * c
    root_d = np.sqrt(np.maximum(disc, 0.0))
    near = (-h - root_d) / a
    far = (-h + root_d) / a
    near_ok = (near > 0.001) & (near < t_max)
    far_ok = (far > 0.001) & (far < t_max)
    root = np.where(near_ok, near, far)
    hit = (disc >= 0.0) & (near_ok | far_ok)
    p = origin + root[:, None] * direction
    outward = (p - center) / radius
    front = np.sum(direction * outward, axis=-1) < 0.0
    normal = np.where(front[:, None], outward, -outward)
    return hit, root, p, normal


def _path_trace_frame(width, height, camera, frame):
    count = width * height
    index = np.arange(count, dtype=np.uint64)
    x, y = (
        (index % np.uint64(width)).astype(np.float64),
        (index // np.uint64(width)).astype(np.float64),
    )
    state = (index * np.uint64(719393) + np.uint64(frame * 51234)) & _MASK
    everyone = np.ones(count, bool)
    state, du = _pcg(state, everyone)
    state, dv = _pcg(state, everyone)
    u = (x + du) / width
    v = 1.0 - (y + dv) / height
    origin0, corner, across, up = (camera[i, :3].astype(np.float64) for i in range(4))
    direction = corner + u[:, None] * across + v[:, None] * up - origin0
    origin = np.broadcast_to(origin0, direction.shape).copy()
    spheres = ((np.array([0.0, 0.0, -1.0]), 0.5), (np.array([0.0, -100.5, -1.0]), 100.0))
    color = np.zeros((count, 3))
    throughput = np.ones((count, 3))
    live = everyone.copy()
    for _ in range(10):
        closest = np.full(count, 9999999.0)
        hit_any = np.zeros(count, bool)
        p = np.zeros((count, 3))
        normal = np.zeros((count, 3))
        for center, radius in spheres:
            hit, root, at, n = _hit_sphere(center, radius, origin, direction, closest)
            hit &= live
            closest = np.where(hit, root, closest)
            p = np.where(hit[:, None], at, p)
            normal = np.where(hit[:, None], n, normal)
            hit_any |= hit
        escaped = live & ~hit_any
        unit_y = direction[:, 1] / np.sqrt(np.sum(direction * direction, axis=-1))
        t = 0.5 * (unit_y + 1.0)
        sky = (1.0 - t)[:, None] * 1.0 + t[:, None] * np.array([0.5, 0.7, 1.0])
        color = np.where(escaped[:, None], color + throughput * sky, color)
        bounce = live & hit_any
        state, r1 = _pcg(state, bounce)
        state, r2 = _pcg(state, bounce)
        z = r1 * 2.0 - 1.0
        angle = r2 * 2.0 * np.pi
        ring = np.sqrt(np.maximum(0.0, 1.0 - z * z))
        scatter = np.stack([ring * np.cos(angle), ring * np.sin(angle), z], axis=-1)
        origin = np.where(bounce[:, None], p, origin)
        direction = np.where(bounce[:, None], normal + scatter, direction)
        throughput = np.where(bounce[:, None], throughput * 0.5, throughput)
        live = bounce
        if not live.any():  # every path has reached the sky (or its tenth bounce)
            break
    return color


def _path_tracer_reference(outputTex, accumulateBuffer, camera, H, W, **_):
    """Frames 1 to 3 of the host's loop, each pixel's path traced in float64 with the
    kernel's RNG stream; the sum (w counting the frames) and the last frame's canvas,
    the floats the kernel stores there."""
    total = np.zeros((H * W, 4))
    for frame in range(1, _FRAMES + 1):
        total[:, :3] = total[:, :3] + _path_trace_frame(W, H, camera, frame)
        total[:, 3] = total[:, 3] + 1.0
    mean = np.clip(np.sqrt(total[:, :3] / _FRAMES), 0.0, 1.0)
    canvas = np.ones((H * W, 4))
    canvas[:, :3] = mean
    return {
        "accumulateBuffer": total.astype(np.float32),
        "outputTex": canvas.reshape(H, W, 4).astype(np.float32),
    }


PATH_TRACER = Wild(
    KernelSpec(
        id="wild_r53_kokutoupan_webgpu_path_tracer_accumulation",
        entry_point="main",
        sources={"wgsl": _PATH_TRACER_WGSL},
        dims=("H", "W"),
        buffers=(
            BufferSpec(
                0, access="read_write", name="outputTex", texture="rgba8unorm", shape=("H", "W")
            ),
            BufferSpec(1, "vec4<f32>", "read_write", name="accumulateBuffer", count="H*W"),
            BufferSpec.uniform(2, (("frame_count", "u32"),), name="frame"),
            BufferSpec(3, "vec4<f32>", "read", name="camera", count=4, fill=_camera),
        ),
        reference=_path_tracer_reference,
        defaults={"frame_count": 1},
        # renderFrame: frameCount++ then one dispatch of ceil(W / 8) x ceil(H / 8)
        launches=tuple(
            Dispatch(
                "main",
                grid=lambda s, size: (-(-size.W // 8), -(-size.H // 8), 1),
                overrides={"frame_count": frame},
            )
            for frame in range(1, _FRAMES + 1)
        ),
        schedules=(Schedule((8, 8)),),
        test_sizes=("H=12,W=20",),
    ),
    {
        "the sum restarted at the second frame too": (
            "wgsl",
            "if (frame.frame_count > 1u) {",
            "if (frame.frame_count > 2u) {",
        ),
        "no t_min: bounces hit their own surface (shadow acne)": (
            "wgsl",
            "let t_min = 0.001;",
            "let t_min = 0.0;",
        ),
        "the PCG's shift counted from the top five bits": (
            "wgsl",
            "((before >> 28u) + 4u)",
            "((before >> 27u) + 4u)",
        ),
    },
)


# -- 6. w9/zsplat: StableRadixSort's separated path (block sums, one-workgroup scan, reorder) --

_ZSPLAT_WGSL = """
// 8-bit digits of 32-bit keys, four passes; a workgroup of 256 takes a tile of 4096 keys
const WG_SIZE: u32 = 256u;
const RADIX: u32 = 256u;
const ELEMENTS_PER_THREAD: u32 = 16u;
const TILE_SIZE: u32 = 4096u;

struct SortUniforms {
  numElements:  u32,
  bitOffset:    u32,
  numWGs:       u32,
  isFirstPass:  u32,
};

@group(0) @binding(0) var<uniform> su: SortUniforms;
@group(0) @binding(1) var<storage, read>       keysIn:   array<u32>;
@group(0) @binding(2) var<storage, read>       valsIn:   array<u32>;
@group(0) @binding(3) var<storage, read_write> keysOut:  array<u32>;
@group(0) @binding(4) var<storage, read_write> valsOut:  array<u32>;
@group(0) @binding(5) var<storage, read_write> histBuf:  array<u32>;
@group(0) @binding(6) var<storage, read_write> localPrefixBuf: array<u32>;

var<workgroup> localHist: array<atomic<u32>, 256>;

// each workgroup's digit counts, digit major (histBuf[digit * numWGs + workgroup])
@compute @workgroup_size(256)
fn histogram(
  @builtin(global_invocation_id)  gid: vec3<u32>,
  @builtin(workgroup_id)          wgid: vec3<u32>,
  @builtin(local_invocation_id)   lid: vec3<u32>,
) {
  atomicStore(&localHist[lid.x], 0u);
  workgroupBarrier();

  let first = wgid.x * TILE_SIZE;
  for (var t = 0u; t < ELEMENTS_PER_THREAD; t++) {
    let at = first + lid.x * ELEMENTS_PER_THREAD + t;
    if (at < su.numElements) {
      let digit = (keysIn[at] >> su.bitOffset) & 0xFFu;
      atomicAdd(&localHist[digit], 1u);
    }
  }

  workgroupBarrier();
  histBuf[lid.x * su.numWGs + wgid.x] = atomicLoad(&localHist[lid.x]);
}

// one workgroup: an exclusive Blelloch scan over all RADIX * numWGs counts, a tile of 256
// at a time, each tile's total carried into the next
var<workgroup> prefixShared: array<u32, 256>;

@compute @workgroup_size(256)
fn prefixSum(
  @builtin(local_invocation_id) lid: vec3<u32>,
) {
  let totalElements = RADIX * su.numWGs;
  var runningSum = 0u;
  let numTiles = (totalElements + WG_SIZE - 1u) / WG_SIZE;

  for (var tile = 0u; tile < numTiles; tile++) {
    let idx = tile * WG_SIZE + lid.x;

    var count = 0u;
    if (idx < totalElements) {
      count = histBuf[idx];
    }
    prefixShared[lid.x] = count;
    workgroupBarrier();

    // up-sweep
    for (var d = 1u; d < WG_SIZE; d = d << 1u) {
      let right = (lid.x + 1u) * (d << 1u) - 1u;
      if (right < WG_SIZE) {
        prefixShared[right] += prefixShared[right - d];
      }
      workgroupBarrier();
    }

    var blockTotal = 0u;
    if (lid.x == 0u) {
      blockTotal = prefixShared[WG_SIZE - 1u];
      prefixShared[WG_SIZE - 1u] = 0u;
    }
    workgroupBarrier();

    // down-sweep
    for (var d = WG_SIZE >> 1u; d >= 1u; d = d >> 1u) {
      let right = (lid.x + 1u) * (d << 1u) - 1u;
      if (right < WG_SIZE) {
        let left = prefixShared[right - d];
        prefixShared[right - d] = prefixShared[right];
        prefixShared[right] += left;
      }
      workgroupBarrier();
    }

    if (idx < totalElements) {
      histBuf[idx] = prefixShared[lid.x] + runningSum;
    }
    workgroupBarrier();

    // invocation 0 holds the tile's total: hand it to everyone through slot 0
    if (lid.x == 0u) {
      prefixShared[0] = blockTotal;
    }
    workgroupBarrier();
    runningSum += prefixShared[0];
    workgroupBarrier();
  }
}

var<workgroup> sharedDigits: array<u32, 256>;

// each key's rank among the earlier keys of its digit in its tile (in waves of 256,
// one key an invocation, input order kept: the sort is stable), and the tile's counts
@compute @workgroup_size(256)
fn stableBlockSum(
  @builtin(workgroup_id)          wgid: vec3<u32>,
  @builtin(local_invocation_id)   lid: vec3<u32>,
) {
  atomicStore(&localHist[lid.x], 0u);
  workgroupBarrier();

  let first = wgid.x * TILE_SIZE;

  for (var wave = 0u; wave < ELEMENTS_PER_THREAD; wave++) {
    let i = first + wave * WG_SIZE + lid.x;

    var myDigit = RADIX;  // past the end: no digit
    if (i < su.numElements) {
      myDigit = (keysIn[i] >> su.bitOffset) & 0xFFu;
    }

    sharedDigits[lid.x] = myDigit;
    workgroupBarrier();

    // the lanes below mine with my digit, four at a time, then the rest one by one
    if (myDigit < RADIX) {
      var localRank = 0u;
      let limit = lid.x & ~3u;
      var j = 0u;
      for (; j < limit; j += 4u) {
        let d = vec4<u32>(sharedDigits[j], sharedDigits[j+1u], sharedDigits[j+2u], sharedDigits[j+3u]);
        localRank += select(0u, 1u, d.x == myDigit) + select(0u, 1u, d.y == myDigit)
                   + select(0u, 1u, d.z == myDigit) + select(0u, 1u, d.w == myDigit);
      }
      for (; j < lid.x; j++) { localRank += select(0u, 1u, sharedDigits[j] == myDigit); }

      // plus this digit's keys of the earlier waves
      localRank += atomicLoad(&localHist[myDigit]);
      localPrefixBuf[i] = localRank;
    }

    workgroupBarrier();

    // invocation b counts the wave's keys of digit b
    if (lid.x < RADIX) {
      var count = 0u;
      let bucket = lid.x;
      var k = 0u;
      for (; k + 3u < WG_SIZE; k += 4u) {
        let d = vec4<u32>(sharedDigits[k], sharedDigits[k+1u], sharedDigits[k+2u], sharedDigits[k+3u]);
        count += select(0u, 1u, d.x == bucket) + select(0u, 1u, d.y == bucket)
               + select(0u, 1u, d.z == bucket) + select(0u, 1u, d.w == bucket);
      }
      for (; k < WG_SIZE; k++) { count += select(0u, 1u, sharedDigits[k] == bucket); }
      atomicAdd(&localHist[lid.x], count);
    }

    workgroupBarrier();
  }

  histBuf[lid.x * su.numWGs + wgid.x] = atomicLoad(&localHist[lid.x]);
}

// one invocation a key: its digit's base for its tile, plus its rank (the first pass
// sorts the indices themselves as the values)
@compute @workgroup_size(256)
fn stableReorder(
  @builtin(global_invocation_id)  gid: vec3<u32>,
) {
  let i = gid.x;
  if (i >= su.numElements) { return; }

  let key = keysIn[i];
  let val = select(valsIn[i], i, su.isFirstPass != 0u);
  let digit = (key >> su.bitOffset) & 0xFFu;
  let rank = localPrefixBuf[i];
  // the tile the key was ranked in (not this dispatch's workgroup: 256 keys, not 4096)
  let sourceWG = i / TILE_SIZE;
  let dest = histBuf[digit * su.numWGs + sourceWG] + rank;

  keysOut[dest] = key;
  valsOut[dest] = val;
}
"""

_ZSPLAT_TILE = 4096


def _zsplat_tiles(size) -> int:
    return -(-int(size) // _ZSPLAT_TILE)


def _zsplat_launches(size):
    """StableRadixSort.sort, its separated path: per pass, stableBlockSum over the tiles,
    prefixSum in one workgroup, stableReorder a key an invocation; A to B, then back."""
    n = int(size)
    swap = {"keysIn": "keysB", "valsIn": "valsB", "keysOut": "keysA", "valsOut": "valsA"}
    steps = []
    for sweep in range(4):
        fields = {"bitOffset": 8 * sweep, "isFirstPass": 1 if sweep == 0 else 0}
        moves = swap if sweep % 2 else {}
        steps += [
            Dispatch(
                "stableBlockSum", grid=(_zsplat_tiles(n), 1, 1), overrides=fields, bindings=moves
            ),
            Dispatch("prefixSum", grid=(1, 1, 1), overrides=fields, bindings=moves),
            Dispatch("stableReorder", grid=(-(-n // 256), 1, 1), overrides=fields, bindings=moves),
        ]
    return tuple(steps)


def _zsplat_keys(rng, count, size):
    keys = rng.integers(0, 2**32, count, dtype=np.uint64).astype(np.uint32)
    # ties in every digit: a fifth of the keys from 12 values
    keys[: count // 5] = rng.choice(keys[: max(1, count // 5)], 12)[rng.integers(0, 12, count // 5)]
    return rng.permutation(keys)


def _zsplat_reference(keysA, **_):
    order = np.argsort(keysA, kind="stable")
    return {"keysA": keysA[order], "valsA": order.astype(np.uint32)}


ZSPLAT_RADIX_SORT = Wild(
    KernelSpec(
        id="wild_r53_zsplat_stable_radix_sort_separated",
        entry_point="stableBlockSum",
        sources={"wgsl": _ZSPLAT_WGSL},
        buffers=(
            BufferSpec.uniform(
                0,
                (
                    ("numElements", "u32"),
                    ("bitOffset", "u32"),
                    ("numWGs", "u32"),
                    ("isFirstPass", "u32"),
                ),
                name="su",
            ),
            BufferSpec(1, "u32", "read_write", name="keysA", fill=_zsplat_keys, inout=True),
            BufferSpec(2, "u32", "read_write", name="valsA"),
            BufferSpec(3, "u32", "read_write", name="keysB", scratch=True),
            BufferSpec(4, "u32", "read_write", name="valsB", scratch=True),
            BufferSpec(
                5,
                "u32",
                "read_write",
                name="histBuf",
                count=lambda s: 256 * _zsplat_tiles(s),
                scratch=True,
            ),
            BufferSpec(6, "u32", "read_write", name="localPrefixBuf", scratch=True),
        ),
        reference=_zsplat_reference,
        params=lambda size: {"numElements": int(size), "numWGs": _zsplat_tiles(size)},
        defaults={"bitOffset": 0, "isFirstPass": 1},
        launches=_zsplat_launches,
        schedules=(Schedule(256),),
        # two tiles, the second part full (its prefix sum two tiles of counts); 300 keys,
        # one short tile, pass too (by hand)
        test_sizes=(5000,),
    ),
    {
        "the reorder's tile taken from its own workgroup": (
            "wgsl",
            "let sourceWG = i / TILE_SIZE;",
            "let sourceWG = i / WG_SIZE;",
        ),
        "the down-sweep's last level skipped": (
            "wgsl",
            "for (var d = WG_SIZE >> 1u; d >= 1u; d = d >> 1u) {",
            "for (var d = WG_SIZE >> 1u; d > 1u; d = d >> 1u) {",
        ),
        "the rank counting its own lane": (
            "wgsl",
            "for (; j < lid.x; j++) { localRank +=",
            "for (; j <= lid.x; j++) { localRank +=",
        ),
        "the first pass sorting the values buffer": (
            "wgsl",
            "let val = select(valsIn[i], i, su.isFirstPass != 0u);",
            "let val = select(valsIn[i], i, su.isFirstPass == 0u);",
        ),
    },
)


ROUND53: dict[str, Wild] = {
    wild.kernel.id: wild
    for wild in (
        RADIX_SORT,
        SOBEL,
        TFJS_SOFTMAX,
        ORT_LAYER_NORM,
        PATH_TRACER,
        ZSPLAT_RADIX_SORT,
    )
}

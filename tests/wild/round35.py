"""Round 35 of kernels from the wild, merged into ``tests.wild.CORPUS``: WGSL compute
from WebGPU tutorials and blog posts.

The kernels are written for this corpus after the sources named below: read, not
copied (the project's rule for public code: round 35 first took them as written, and
they were rewritten on 2026-12-06). What is theirs is kept: the entry points (``cs``,
``chunkSum``, ``main``), the bindings (group, binding, name, type, access, order), the
``Dimensions``, ``Ball`` and ``Scene`` structs, ``override stride``, the workgroup sizes,
the 256 workgroup atomics and the one barrier, the launch sequences, and the numerics
(the luminance's saturated dot product binned by truncation, each matmul sum in k
order, the collision's operations in the article's order). What is ours: the helper's,
constants' and locals' names, the comments, the formatting; the two chunk passes
share one template, surfgrad's hand-unrolled 8x8 tile is loops, Surma's walls a loop
over the axes. The mutants keep their names and bugs; three of the matmul's pick
their one element with ``select``. The rewrite passed as the originals did (reference
and wgpu at seeds 0 to 4, the matmul at K = 1024, the balls at 3000), and every
mutant still failed on both CPU adapters except where declared ``invisible_on``.

- webgpufundamentals.org's "Image Histogram" (webgpu/webgpufundamentals at 0c1094e3,
  the runnable ``webgpu-compute-shaders-histogram-*.html``), four of its steps: the
  first GPU version (one invocation loops over every pixel, ``bins[bin] += 1``), one
  invocation a pixel with ``atomicAdd`` (``@workgroup_size(1, 1, 1)``, a 2-D dispatch
  of the image's size), 256x1 chunks counted in ``var<workgroup>`` atomics and then
  summed by one workgroup (two launches), and the same chunks reduced in pairs with a
  stride that doubles each pass (1 + ceil(log2 chunks) launches). The luminance is
  the page's ``saturate(dot(color, kSRGBLuminanceFactors))`` binned by truncation; the
  texels are rgba8 (some pure white and black), as f32 ``vec4f`` texels in two of them
  and as packed words through ``unpack4x8unorm`` in the other two.
- surfgrad's matmul (Zach Nussbaum, "Optimizing a WebGPU Matmul Kernel for 1TFLOP+
  Performance"): 16x16 invocations each computing an 8x8 register tile, unrolled by
  hand, a ``Dimensions`` uniform of M, K, N.
- Surma's "WebGPU — All of the cores, none of the canvas": one step of the ball
  simulation, ``array<Ball>`` of (f32, vec2, vec2) structs, elastic collisions, walls
  from a storage ``Scene`` struct.

What they showed (lavapipe and SwiftShader; not run on a GPU):

- Inexpressible: the histogram's reduce binds one uniform buffer a pass
  (``var<uniform> uni: Uniforms``, ``uni.stride`` 1, 2, 4 ...). A KernelSpec has one
  uniform block for every launch, and a ``Dispatch`` gives only ``override`` values:
  the natural attempt, ``Dispatch(..., overrides={"stride": s})`` beside the uniform
  field, is an ERROR on both adapters ("pipeline-overridable constant 'stride' not
  found in the shader"; the reference backend PASSes it). The corpus kernel reads
  ``override stride: u32`` instead (pinned in tests/test_wild_round35.py).
- Unclear message (fixed): that ERROR came from the driver, reported as "wgpu
  rejected the WGSL" (the browser: "Chromium's WebGPU (Tint) rejected the WGSL"),
  though the WGSL is valid: a ``Dispatch``'s overrides were not checked against the
  WGSL's declarations, as a kernel's own ``overrides`` are. They are now, and one
  named like a uniform field is told that a launch's own value is a WGSL
  ``override``. Pinned.
- Unclear message (fixed): on lavapipe, every failing WGSL kernel with a loop carried
  the note that lavapipe "ends every loop of an invocation after 65535 iterations ...
  what it writes here is cut short", whatever the loops' lengths: the first
  histogram's mutant whose loops run 37 and 23 times, wrong by a dropped write, got
  it. Now only where a loop may run that long (a buffer or a dimension that large, or
  such a count in a loop's condition or the uniform). Pinned.
- False passes an adapter's values cannot show, declared (``invisible_on``), not oracle
  errors: an index past the 256 bins (the bin not clamped, or the last bin index one
  too far) passes on SwiftShader, whose robustness clamps bins[256] to bins[255], the
  right bin; lavapipe drops the write and fails it. The page's own racy increment
  (here ``atomicStore(.., atomicLoad(..) + 1u)``, as the with-race page's
  ``bins[bin] += 1``) passes on both CPU adapters at the test sizes: with one invocation
  a workgroup they seldom interleave two increments (seen only at 256x128, on a loaded
  machine).
- Shaped for the model, as in earlier rounds: the texture is a storage buffer and its
  ``textureDimensions`` a ``vec2u`` uniform (kernel-forge binds no textures); the
  page's two modules, each with an entry point ``cs``, are one module with the chunk
  sum's entry point renamed and its bindings moved (a ``Dispatch`` names an entry
  point, not a module).
- surfgrad's own dispatch is wrong where M and N need different numbers of 128-wide
  tiles (it puts M's tiles along x, which the shader reads as columns): a bug of the
  library, not of the oracle, taken as the mutant "rows from x".
- Every original passed on reference and wgpu at seeds 0 to 4 and on the browser at 0
  and 1, at the default tolerance (and the matmul up to K = 1024, the balls up to
  3000 at seeds 0 to 2); every other mutant failed on both adapters, and seven more
  subtle ones tried (a velocity accumulated over collisions, a sphere's mass, one tile
  element written transposed, the K loop one short ...) failed on lavapipe.
"""

# ruff: noqa: E501  (long lines in the WGSL and the mutants)

from __future__ import annotations

import math

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import Wild

# -- what the histogram articles share -------------------------------------------------------
# webgpufundamentals.org, "WebGPU Compute Shaders - Image Histogram" (webgpu/webgpufundamentals
# at 0c1094e3, webgpu/webgpu-compute-shaders-histogram-*.html). The image is a
# ``texture_2d<f32>`` of rgba8unorm texels read by ``textureLoad``: kernel-forge binds
# buffers only, so the texels are a storage buffer (``array<vec4f>`` of the values
# textureLoad returns, or ``array<u32>`` of the rgba8 bytes through ``unpack4x8unorm``)
# read at ``position.y * size.x + position.x``, and ``textureDimensions(ourTexture, 0)`` is
# a ``vec2u`` uniform beside it. The kernels are written for the corpus after the pages'
# WGSL (read, not copied): the luminance helper is ``luma`` over a ``lumaWeights``
# constant, the locals and comments are ours; the binning (saturated dot product, times
# the bin count in f32, truncated, clamped to the last bin) is theirs.

_LUMA = (0.2126, 0.7152, 0.0722)


def _bins_of(rgb: np.ndarray, num_bins: int) -> np.ndarray:
    """The bin of each texel as the shader computes it: the dot product in float32,
    saturated, times the bin count, truncated, clamped to the last bin."""
    rgb = rgb.astype(np.float32)
    f = np.array(_LUMA, np.float32)
    v = rgb[:, 0] * f[0] + rgb[:, 1] * f[1] + rgb[:, 2] * f[2]
    v = np.clip(v, np.float32(0), np.float32(1))
    return np.minimum((v * np.float32(num_bins)).astype(np.uint32), num_bins - 1)


def _rgba8_words(rng, count, size):
    """A photo's rgba8 texels, four bytes a word (r lowest): random colours with some
    clipped highlights (white) and crushed shadows (black), as real images have."""
    words = rng.integers(0, 2**32, count, dtype=np.uint64).astype(np.uint32)
    pick = rng.random(count)
    words[pick < 0.03] = 0xFFFFFFFF
    words[(pick >= 0.03) & (pick < 0.06)] = 0xFF000000
    return words


def _rgba8_texels(rng, count, size):
    """The same texels as ``textureLoad`` returns them from an rgba8unorm texture: each
    channel k / 255 as an f32, four to a ``vec4f``."""
    words = _rgba8_words(rng, count, size)
    return _unpack_unorm(words).reshape(-1)


def _unpack_unorm(words: np.ndarray) -> np.ndarray:
    channels = np.stack([(words >> (8 * k)) & 0xFF for k in range(4)], axis=1)
    return (channels.astype(np.float32) / np.float32(255)).astype(np.float32)


#: Why an index past the bins passes on SwiftShader (``Wild.invisible_on``).
_CLAMPED_INTO_THE_LAST_BIN = (
    "Dawn's robustness (Tint) clamps an index past the end of the bins to the last one: "
    "bins[256] is bins[255], where min(..., topBin) puts a white pixel, so the "
    "values are the right ones there (WGSL allows it); lavapipe drops the write and "
    "shows it (bins[255] short by every white pixel)"
)

#: Why the article's racy increment passes on the CPU adapters (``Wild.invisible_on``).
_RACE_ON_ONE_INVOCATION_WORKGROUPS = (
    "one invocation a workgroup: the load and the store of one increment run so close "
    "together that two workgroups rarely interleave them on a CPU adapter: never at "
    "37x23 or 64x40 here; at 256x128 lavapipe lost 1 to 4 counts of 8 bins in 2 runs "
    "of 2 on a loaded machine and none in 8 unloaded, SwiftShader 11 counts in 1 run "
    "of 8 (2 CPUs); the page's own screenshots show it on a GPU"
)


def _texture_size(s):
    return {"x": s.W, "y": s.H}


def _texture_size_uniform(binding: int) -> BufferSpec:
    return BufferSpec.uniform(binding, (("x", "u32"), ("y", "u32")), name="ourTextureSize")


# -- 1. the first GPU version: one invocation loops over every pixel ---------------------------
# After webgpu-compute-shaders-histogram-slow.html: the bins' count from
# ``arrayLength(&bins)``, the texels walked row by row, a plain ``+= 1``.

_HIST_SLOW = """// kernel-forge corpus: the first GPU histogram of webgpufundamentals.org's
// image histogram lesson (read, not copied). One invocation walks the whole
// image, row after row, and bumps a bin per texel: no other invocation writes,
// so a plain increment is enough.

@group(0) @binding(0) var<storage, read_write> bins: array<u32>;
@group(0) @binding(1) var<storage, read> ourTexture: array<vec4f>;
@group(0) @binding(2) var<uniform> ourTextureSize: vec2u;

// relative luminance weights of linear sRGB (Rec. 709 primaries)
const lumaWeights = vec3f(0.2126, 0.7152, 0.0722);

fn luma(rgb: vec3f) -> f32 {
  return saturate(dot(rgb, lumaWeights));
}

@compute @workgroup_size(1)
fn cs() {
  let dims = ourTextureSize;
  let binCount = f32(arrayLength(&bins));
  let topBin = u32(binCount - 1.0);
  for (var row = 0u; row < dims.y; row++) {
    let rowStart = row * dims.x;
    for (var col = 0u; col < dims.x; col++) {
      let texel = ourTexture[rowStart + col];
      // truncate into [0, binCount); luma 1.0 would land one past the end
      let slot = min(u32(luma(texel.rgb) * binCount), topBin);
      bins[slot] += 1u;
    }
  }
}
"""


def _hist_slow_reference(bins, ourTexture, ourTextureSize):
    texels = ourTexture.reshape(-1, 4)
    bins += np.bincount(_bins_of(texels[:, :3], len(bins)), minlength=len(bins)).astype(np.uint32)


HIST_SLOW = Wild(
    KernelSpec(
        id="wild_r35_wgpufund_histogram_slow_one_invocation",
        entry_point="cs",
        sources={"wgsl": _HIST_SLOW},
        dims=("W", "H"),
        buffers=(
            BufferSpec(0, "u32", "read_write", name="bins", count=256, initial=0),
            BufferSpec(1, "vec4<f32>", "read", name="ourTexture", count="W*H", fill=_rgba8_texels),
            _texture_size_uniform(2),
        ),
        reference=_hist_slow_reference,
        params=_texture_size,
        grid=lambda s, size: (1, 1, 1),
        schedules=(Schedule(1),),
        nonfinite_inputs=False,
        test_sizes=("W=37,H=23", "W=1,H=1", "W=20,H=45"),
    ),
    {
        "luminance factors in BGR order": (
            "wgsl",
            "vec3f(0.2126, 0.7152, 0.0722)",
            "vec3f(0.0722, 0.7152, 0.2126)",
        ),
        "rows bounded by the width": ("wgsl", "row < dims.y", "row < dims.x"),
        "the last bin one past the end": (
            "wgsl",
            "let topBin = u32(binCount - 1.0);",
            "let topBin = u32(binCount);",
        ),
        "rounds to the nearest bin": (
            "wgsl",
            "min(u32(luma(texel.rgb) * binCount), topBin)",
            "min(u32(round(luma(texel.rgb) * binCount)), topBin)",
        ),
    },
    invisible_on={
        ("the last bin one past the end", "wgsl", "swiftshader"): _CLAMPED_INTO_THE_LAST_BIN,
    },
)


# -- 2. one invocation per pixel, atomicAdd into the bins -----------------------------------
# After webgpu-compute-shaders-histogram-race-fixed.html: workgroup_size(1, 1, 1),
# dispatchWorkgroups(texture.width, texture.height), no bounds check (the dispatch is
# exact). The texels here are the rgba8 words, unpacked with unpack4x8unorm.

_HIST_ATOMIC = """// kernel-forge corpus: the lesson's race-free histogram (read, not copied).
// Every pixel gets a workgroup of its own, and the shared bins are counted
// with atomics. The grid is the image's size exactly, so nothing is guarded.

@group(0) @binding(0) var<storage, read_write> bins: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read> ourTexture: array<u32>;
@group(0) @binding(2) var<uniform> ourTextureSize: vec2u;

const lumaWeights = vec3f(0.2126, 0.7152, 0.0722);

fn luma(rgb: vec3f) -> f32 {
  return saturate(dot(rgb, lumaWeights));
}

@compute @workgroup_size(1, 1, 1)
fn cs(@builtin(global_invocation_id) gid: vec3u) {
  let pixel = gid.xy;
  // an rgba8 texel, red in the low byte
  let rgba = unpack4x8unorm(ourTexture[pixel.y * ourTextureSize.x + pixel.x]);
  let binCount = f32(arrayLength(&bins));
  let topBin = u32(binCount - 1.0);
  let slot = min(u32(luma(rgba.rgb) * binCount), topBin);
  atomicAdd(&bins[slot], 1u);
}
"""


def _hist_atomic_reference(bins, ourTexture, ourTextureSize):
    rgb = _unpack_unorm(ourTexture)[:, :3]
    bins += np.bincount(_bins_of(rgb, len(bins)), minlength=len(bins)).astype(np.uint32)


HIST_ATOMIC = Wild(
    KernelSpec(
        id="wild_r35_wgpufund_histogram_atomic_per_pixel",
        entry_point="cs",
        sources={"wgsl": _HIST_ATOMIC},
        dims=("W", "H"),
        buffers=(
            BufferSpec(0, "u32", "read_write", name="bins", count=256, initial=0),
            BufferSpec(1, "u32", "read", name="ourTexture", count="W*H", fill=_rgba8_words),
            _texture_size_uniform(2),
        ),
        reference=_hist_atomic_reference,
        params=_texture_size,
        grid=lambda s, size: (size.W, size.H, 1),
        schedules=(Schedule((1, 1, 1)),),
        test_sizes=("W=37,H=23", "W=1,H=1", "W=64,H=40"),
    ),
    {
        "the article's racy increment": (
            "wgsl",
            "atomicAdd(&bins[slot], 1u);",
            "atomicStore(&bins[slot], atomicLoad(&bins[slot]) + 1u);",
        ),
        "x and y swapped": (
            "wgsl",
            "let pixel = gid.xy;",
            "let pixel = gid.yx;",
        ),
        "unpacked as snorm": ("wgsl", "unpack4x8unorm(", "unpack4x8snorm("),
        "the bin not clamped": (
            "wgsl",
            "let slot = min(u32(luma(rgba.rgb) * binCount), topBin);",
            "let slot = u32(luma(rgba.rgb) * binCount);",
        ),
    },
    invisible_on={
        ("the article's racy increment", "wgsl", part): _RACE_ON_ONE_INVOCATION_WORKGROUPS
        for part in ("llvmpipe", "swiftshader")
    }
    | {("the bin not clamped", "wgsl", "swiftshader"): _CLAMPED_INTO_THE_LAST_BIN},
)


# -- 3. 256x1 chunks in workgroup bins, then one workgroup sums the chunks -----------------
# After webgpu-compute-shaders-histogram-optimized.html: two modules on the page, each with its
# entry point ``cs``; here one module (a ``Dispatch`` names an entry point, not a module),
# the chunk sum's entry point named ``chunkSum`` and ``chunks`` declared once. The
# constants the page injects are written out (chunks 256 wide, 1 high); the chunk pass is
# one template shared with entry 4 (only the texel read differs).

_HIST_CHUNKS = """
// kernel-forge corpus: the lesson's chunked histogram (read, not copied), the
// page's two modules in one. Pass 1 (cs): a 256x1 workgroup per chunk of the
// image counts into workgroup atomics and stores its own histogram. Pass 2
// (chunkSum): a single workgroup folds every chunk into chunk 0.

const CHUNK_W = 256u;
const CHUNK_H = 1u;
const CHUNK_BINS = CHUNK_W * CHUNK_H;

// this workgroup's private histogram
var<workgroup> tally: array<atomic<u32>, CHUNK_BINS>;

@group(0) @binding(0) var<storage, read_write> chunks: array<array<u32, CHUNK_BINS>>;
@group(0) @binding(1) var<storage, read> ourTexture: array<vec4f>;
@group(0) @binding(2) var<uniform> ourTextureSize: vec2u;

const lumaWeights = vec3f(0.2126, 0.7152, 0.0722);

fn luma(rgb: vec3f) -> f32 {
  return saturate(dot(rgb, lumaWeights));
}

@compute @workgroup_size(CHUNK_W, CHUNK_H, 1)
fn cs(
  @builtin(global_invocation_id) gid: vec3u,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(local_invocation_id) lid: vec3u,
) {
  let dims = ourTextureSize;
  let pixel = gid.xy;
  // the last chunk of a row may hang over the image's right edge
  if (all(pixel < dims)) {
    let rgba = ourTexture[pixel.y * dims.x + pixel.x];
    let slot = min(u32(luma(rgba.rgb) * f32(CHUNK_BINS)), CHUNK_BINS - 1u);
    atomicAdd(&tally[slot], 1u);
  }

  // every pixel of the chunk is counted before any bin is copied out
  workgroupBarrier();

  let chunksPerRow = (dims.x + CHUNK_W - 1u) / CHUNK_W;
  let chunk = wid.y * chunksPerRow + wid.x;
  // one bin per invocation
  let b = lid.y * CHUNK_W + lid.x;
  chunks[chunk][b] = atomicLoad(&tally[b]);
}

@compute @workgroup_size(CHUNK_BINS, 1, 1)
fn chunkSum(@builtin(local_invocation_id) lid: vec3u) {
  let chunkCount = arrayLength(&chunks);
  var total = 0u;
  for (var c = 0u; c < chunkCount; c++) {
    total += chunks[c][lid.x];
  }
  chunks[0][lid.x] = total;
}
"""

_CHUNK = 256


def _chunk_histograms(rgb: np.ndarray, width: int, height: int) -> np.ndarray:
    """Each 256x1 chunk's histogram, chunk ``y * chunksAcross + x``."""
    across = ceil_div(width, _CHUNK)
    bins = _bins_of(rgb, _CHUNK).reshape(height, width)
    out = np.zeros((height * across, _CHUNK), np.uint32)
    for y in range(height):
        for cx in range(across):
            part = bins[y, cx * _CHUNK : (cx + 1) * _CHUNK]
            out[y * across + cx] = np.bincount(part, minlength=_CHUNK)
    return out


def _num_chunks(size) -> int:
    return ceil_div(size.W, _CHUNK) * size.H


def _hist_chunks_reference(chunks, ourTexture, ourTextureSize):
    width, height = int(ourTextureSize["x"]), int(ourTextureSize["y"])
    out = _chunk_histograms(ourTexture.reshape(-1, 4)[:, :3], width, height)
    out[0] = out.sum(axis=0, dtype=np.uint32)
    chunks[...] = out


def _chunk_grid(s, size):
    return (ceil_div(size.W, _CHUNK), size.H, 1)


HIST_CHUNKS = Wild(
    KernelSpec(
        id="wild_r35_wgpufund_histogram_chunks_then_sum",
        entry_point="cs",
        sources={"wgsl": _HIST_CHUNKS},
        dims=("W", "H"),
        buffers=(
            BufferSpec(0, "array<u32, 256>", "read_write", name="chunks", count=_num_chunks),
            BufferSpec(1, "vec4<f32>", "read", name="ourTexture", count="W*H", fill=_rgba8_texels),
            _texture_size_uniform(2),
        ),
        reference=_hist_chunks_reference,
        params=_texture_size,
        schedules=(Schedule((256, 1)),),
        launches=(
            Dispatch("cs", grid=_chunk_grid),
            Dispatch("chunkSum", grid=lambda s, size: (1, 1, 1), schedule=Schedule(256)),
        ),
        nonfinite_inputs=False,
        test_sizes=("W=300,H=5", "W=1,H=1", "W=256,H=3", "W=40,H=7"),
    ),
    {
        "copies before every pixel is counted": ("wgsl", "  workgroupBarrier();\n", ""),
        "chunks across rounded down": (
            "wgsl",
            "let chunksPerRow = (dims.x + CHUNK_W - 1u) / CHUNK_W;",
            "let chunksPerRow = dims.x / CHUNK_W;",
        ),
        "any for all in the edge test": (
            "wgsl",
            "if (all(pixel < dims)) {",
            "if (any(pixel < dims)) {",
        ),
        "the sum skips chunk 0": (
            "wgsl",
            "for (var c = 0u; c < chunkCount; c++) {",
            "for (var c = 1u; c < chunkCount; c++) {",
        ),
    },
)


# -- 4. the same chunks, reduced in pairs with a stride that doubles each pass ---------------
# After webgpu-compute-shaders-histogram-optimized-more.html. The page binds one uniform buffer
# a pass (``struct Uniforms { stride: u32 }``, ``var<uniform> uni``) and dispatches
# floor(chunksLeft / 2) workgroups for stride 1, 2, 4 ... ceil(log2(numChunks)) passes.
# A KernelSpec has one uniform block for every launch: a ``Dispatch`` gives its own
# ``override`` values, not its own uniform (tests/test_wild_round35.py pins it). The
# stride is an ``override`` here, ``uni.stride`` read as ``stride``, and the page's
# binding 1 of ``uni`` (the texture's binding in the chunk module) is gone. The texels
# are the rgba8 words here.

_HIST_REDUCE = """
// kernel-forge corpus: the lesson's chunked histogram with a pairwise reduce
// (read, not copied). Pass 1 (cs) as in the two-pass version; then chunkSum
// runs once per doubling of `stride`, each workgroup adding chunk dst + stride
// into chunk dst, until chunk 0 holds the whole image.

const CHUNK_W = 256u;
const CHUNK_H = 1u;
const CHUNK_BINS = CHUNK_W * CHUNK_H;

// this workgroup's private histogram
var<workgroup> tally: array<atomic<u32>, CHUNK_BINS>;

@group(0) @binding(0) var<storage, read_write> chunks: array<array<u32, CHUNK_BINS>>;
@group(0) @binding(1) var<storage, read> ourTexture: array<u32>;
@group(0) @binding(2) var<uniform> ourTextureSize: vec2u;

const lumaWeights = vec3f(0.2126, 0.7152, 0.0722);

fn luma(rgb: vec3f) -> f32 {
  return saturate(dot(rgb, lumaWeights));
}

@compute @workgroup_size(CHUNK_W, CHUNK_H, 1)
fn cs(
  @builtin(global_invocation_id) gid: vec3u,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(local_invocation_id) lid: vec3u,
) {
  let dims = ourTextureSize;
  let pixel = gid.xy;
  // the last chunk of a row may hang over the image's right edge
  if (all(pixel < dims)) {
    let rgba = unpack4x8unorm(ourTexture[pixel.y * dims.x + pixel.x]);
    let slot = min(u32(luma(rgba.rgb) * f32(CHUNK_BINS)), CHUNK_BINS - 1u);
    atomicAdd(&tally[slot], 1u);
  }

  // every pixel of the chunk is counted before any bin is copied out
  workgroupBarrier();

  let chunksPerRow = (dims.x + CHUNK_W - 1u) / CHUNK_W;
  let chunk = wid.y * chunksPerRow + wid.x;
  // one bin per invocation
  let b = lid.y * CHUNK_W + lid.x;
  chunks[chunk][b] = atomicLoad(&tally[b]);
}

// the distance between partners, set per launch (the page's `uni.stride`)
override stride: u32;

@compute @workgroup_size(CHUNK_BINS, 1, 1)
fn chunkSum(
  @builtin(local_invocation_id) lid: vec3u,
  @builtin(workgroup_id) wid: vec3u,
) {
  let dst = wid.x * stride * 2u;
  let src = dst + stride;
  let b = lid.x;
  chunks[dst][b] = chunks[dst][b] + chunks[src][b];
}
"""


def _reduce_passes(num_chunks: int) -> list[tuple[int, int]]:
    """(stride, workgroups) of each reduce pass, as the page's loop dispatches them."""
    passes = []
    left = num_chunks
    for i in range(math.ceil(math.log2(num_chunks)) if num_chunks > 1 else 0):
        count = left // 2
        left -= count
        passes.append((2**i, count))
    return passes


def _hist_reduce_launches(size):
    return (
        Dispatch("cs", grid=_chunk_grid),
        *(
            Dispatch(
                "chunkSum",
                grid=lambda s, z, count=count: (count, 1, 1),
                schedule=Schedule(256),
                overrides={"stride": stride},
            )
            for stride, count in _reduce_passes(_num_chunks(size))
        ),
    )


def _hist_reduce_reference(chunks, ourTexture, ourTextureSize):
    width, height = int(ourTextureSize["x"]), int(ourTextureSize["y"])
    out = _chunk_histograms(_unpack_unorm(ourTexture)[:, :3], width, height)
    for stride, count in _reduce_passes(len(out)):
        for w in range(count):
            out[w * stride * 2] += out[w * stride * 2 + stride]
    chunks[...] = out


HIST_REDUCE = Wild(
    KernelSpec(
        id="wild_r35_wgpufund_histogram_chunks_reduce_stride",
        entry_point="cs",
        sources={"wgsl": _HIST_REDUCE},
        dims=("W", "H"),
        buffers=(
            BufferSpec(0, "array<u32, 256>", "read_write", name="chunks", count=_num_chunks),
            BufferSpec(1, "u32", "read", name="ourTexture", count="W*H", fill=_rgba8_words),
            _texture_size_uniform(2),
        ),
        reference=_hist_reduce_reference,
        params=_texture_size,
        schedules=(Schedule((256, 1)),),
        launches=_hist_reduce_launches,
        test_sizes=("W=300,H=5", "W=1,H=1", "W=600,H=3", "W=40,H=11"),
    ),
    {
        "pairs not spread by the stride": (
            "wgsl",
            "let dst = wid.x * stride * 2u;",
            "let dst = wid.x * 2u;",
        ),
        "the partner is always the next chunk": (
            "wgsl",
            "let src = dst + stride;",
            "let src = dst + 1u;",
        ),
        "the bin from the global x": (
            "wgsl",
            "let b = lid.y * CHUNK_W + lid.x;",
            "let b = gid.y * CHUNK_W + gid.x;",
        ),
        "chunk index transposed": (
            "wgsl",
            "let chunk = wid.y * chunksPerRow + wid.x;",
            "let chunk = wid.x * chunksPerRow + wid.y;",
        ),
    },
)


# -- 5. surfgrad's matmul: 8x8 register tiles, 16x16 invocations ----------------------------
# Zach Nussbaum, "Optimizing a WebGPU Matmul Kernel for 1TFLOP+ Performance" (2024), the
# kernel his autograd library ships: zanussbaum/surfgrad at 2cbbf5ce,
# src/shaders/matmul.ts, read, not copied: surfgrad unrolls the tile by hand (eight loads
# of a, eight of b and 64 multiply-adds a step of k, 64 guarded stores); here they are
# loops, each element's sum still in k order. Each invocation computes an 8x8 tile of
# the result, row from gid.y and column from gid.x;
# a and b are read without a bound (past the edge WGSL's robust access keeps the read in
# the buffer, and those sums are never written). surfgrad's function.ts dispatches
# (ceil(M / 128), ceil(N / 128)): M's tiles along x, which the shader reads as columns;
# right for the square matrices it benchmarks, short of rows or columns otherwise. The
# grid here is the one the shader reads, (ceil(N / 128), ceil(M / 128)); the mutant
# "rows from x" is surfgrad's dispatch. The one-element mutants of the unrolled tile
# (element (5, 6) times b's column 5, row 3 of a strided by N, row 4 bounded by N) pick
# their element with ``select`` in the loops.

_SURFGRAD_MATMUL = """
// kernel-forge corpus: a register-tiled matmul after surfgrad's (read, not
// copied). A 16x16 workgroup covers a 128x128 block of the result; each
// invocation keeps an 8x8 tile of accumulators, fed by eight values of a column
// of a and eight of a row of b per step of k.

struct Dimensions {
  M: u32,
  K: u32,
  N: u32,
}

@group(0) @binding(0) var<uniform> dimensions: Dimensions;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> result: array<f32>;

const BLOCKSIZE: u32 = 16;
const TILE_M: u32 = 8;
const TILE_N: u32 = 8;

@compute @workgroup_size(BLOCKSIZE, BLOCKSIZE)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let row0 = gid.y * TILE_M;
  let col0 = gid.x * TILE_N;

  // function-scope vars start zeroed
  var acc: array<array<f32, TILE_N>, TILE_M>;
  var aCol: array<f32, TILE_M>;
  var bRow: array<f32, TILE_N>;

  for (var k = 0u; k < dimensions.K; k++) {
    // no bounds here: rows or columns past the edge are summed but never stored
    for (var i = 0u; i < TILE_M; i++) {
      aCol[i] = a[(row0 + i) * dimensions.K + k];
    }
    for (var j = 0u; j < TILE_N; j++) {
      bRow[j] = b[k * dimensions.N + col0 + j];
    }
    for (var i = 0u; i < TILE_M; i++) {
      for (var j = 0u; j < TILE_N; j++) {
        acc[i][j] += aCol[i] * bRow[j];
      }
    }
  }

  for (var i = 0u; i < TILE_M; i++) {
    let r = row0 + i;
    if (r < dimensions.M) {
      for (var j = 0u; j < TILE_N; j++) {
        let c = col0 + j;
        if (c < dimensions.N) {
          result[r * dimensions.N + c] = acc[i][j];
        }
      }
    }
  }
}
"""


def _matmul_reference(dimensions, a, b, result):
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)


SURFGRAD_MATMUL = Wild(
    KernelSpec(
        id="wild_r35_surfgrad_matmul_8x8_register_tiles",
        entry_point="main",
        sources={"wgsl": _SURFGRAD_MATMUL},
        dims=("M", "N", "K"),
        buffers=(
            BufferSpec.uniform(0, (("M", "u32"), ("K", "u32"), ("N", "u32")), name="dimensions"),
            BufferSpec(1, "f32", "read", name="a", count="M*K", shape=("M", "K")),
            BufferSpec(2, "f32", "read", name="b", count="K*N", shape=("K", "N")),
            BufferSpec(3, "f32", "read_write", name="result", count="M*N", shape=("M", "N")),
        ),
        reference=_matmul_reference,
        params=lambda s: {"M": s.M, "K": s.K, "N": s.N},
        grid=lambda s, size: (ceil_div(size.N, 128), ceil_div(size.M, 128), 1),
        schedules=(Schedule((16, 16)),),
        test_sizes=("M=200,N=40,K=33", "M=1,N=1,K=1", "M=67,N=131,K=20"),
    ),
    {
        "rows from x, as surfgrad's dispatch gives them": (
            "wgsl",
            "let row0 = gid.y * TILE_M;\n  let col0 = gid.x * TILE_N;",
            "let row0 = gid.x * TILE_M;\n  let col0 = gid.y * TILE_N;",
        ),
        "a copy-paste slip in the unrolled tile": (
            "wgsl",
            "acc[i][j] += aCol[i] * bRow[j];",
            "acc[i][j] += aCol[i] * bRow[select(j, 5u, i == 5u && j == 6u)];",
        ),
        "a row of a strided by N": (
            "wgsl",
            "aCol[i] = a[(row0 + i) * dimensions.K + k];",
            "aCol[i] = a[(row0 + i) * select(dimensions.K, dimensions.N, i == 3u) + k];",
        ),
        "row 4 bounded by N": (
            "wgsl",
            "if (r < dimensions.M) {",
            "if (r < select(dimensions.M, dimensions.N, i == 4u)) {",
        ),
    },
)


# -- 6. Surma's balls: one simulation step, elastic collisions and walls ---------------------
# Surma, "WebGPU — All of the cores, none of the canvas" (2022), its last step:
# surma/surma.dev at 78fce410, static/things/webgpu/step4/main.js, read, not copied: the
# output ball built in a local and stored once, the four walls a loop over the two axes
# (each axis's low wall, then its high one: the axes do not touch each other). The scene
# is a storage struct (width, height), the balls 6 floats each (radius, padding,
# position, velocity); main.js fills radii in [2, 10], positions over a 500x500 canvas
# and velocities in [-100, 100]. Each collision overwrites the output ball from the
# input one, so the last ball it overlaps decides; then the velocity moves it and the
# four walls reflect it in turn.

_BALLS = """
// kernel-forge corpus: one step of the bouncing-balls simulation from Surma's
// "All of the cores, none of the canvas" (read, not copied). An invocation owns
// one ball: it checks every other ball of the previous state, then moves and
// bounces its ball off the scene's edges.

struct Ball {
  radius: f32,
  position: vec2<f32>,
  velocity: vec2<f32>,
}

struct Scene {
  width: f32,
  height: f32,
}

@group(0) @binding(0) var<storage, read> input: array<Ball>;
@group(0) @binding(1) var<storage, read_write> output: array<Ball>;
@group(0) @binding(2) var<storage, read> scene: Scene;

const PI: f32 = 3.14159;
const TIME_STEP: f32 = 0.016;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let count = arrayLength(&output);
  let me = gid.x;
  if (me >= count) {
    return;
  }
  let ball = input[me];
  var next = ball;

  for (var j = 0u; j < count; j++) {
    if (j == me) {
      continue;
    }
    let other = input[j];
    let d = ball.position - other.position;
    let gap = length(d);
    let reach = ball.radius + other.radius;
    if (gap >= reach) {
      continue;
    }
    // separate: move half the overlap away from the other centre
    let overlap = reach - gap;
    next.position = ball.position + normalize(d) * overlap / 2.0;

    // elastic collision of two discs, masses by area; each hit starts again
    // from the old state, so the last ball touched decides
    let massMe = pow(ball.radius, 2.0) * PI;
    let massOther = pow(other.radius, 2.0) * PI;
    let impulse = 2.0 * dot(d, other.velocity - ball.velocity)
        / (dot(d, d) * (1.0 / massMe + 1.0 / massOther));
    next.velocity = ball.velocity + impulse / massMe * d;
  }

  next.position = next.position + next.velocity * TIME_STEP;

  // walls: clamp inside and reverse the velocity across each axis in turn
  let far = vec2f(scene.width, scene.height);
  for (var axis = 0u; axis < 2u; axis++) {
    if (next.position[axis] - next.radius < 0.0) {
      next.position[axis] = next.radius;
      next.velocity[axis] = -next.velocity[axis];
    }
    if (next.position[axis] + next.radius >= far[axis]) {
      next.position[axis] = far[axis] - next.radius;
      next.velocity[axis] = -next.velocity[axis];
    }
  }

  output[me] = next;
}
"""

_BALL = (("radius", "f32"), ("position", "vec2<f32>"), ("velocity", "vec2<f32>"))
_SCENE = (("width", "f32"), ("height", "f32"))
_CANVAS = 500.0


def _balls(rng, count, size):
    out = np.zeros(count, BufferSpec(0, _BALL, "read").dtype)
    out["radius"] = rng.uniform(2, 10, count)
    out["position"] = rng.uniform(0, _CANVAS, (count, 2))
    out["velocity"] = rng.uniform(-100, 100, (count, 2))
    return out


def _scene(rng, count, size):
    out = np.zeros(count, BufferSpec(0, _SCENE, "read").dtype)
    out["width"] = _CANVAS
    out["height"] = _CANVAS
    return out


def _balls_reference(input, output, scene):
    r = input["radius"].astype(np.float64)
    p = input["position"].astype(np.float64)
    v = input["velocity"].astype(np.float64)
    n = len(r)
    pi = float(np.float32(3.14159))
    dt = float(np.float32(0.016))
    pos, vel = p.copy(), v.copy()
    d = p[:, None, :] - p[None, :, :]  # n[i, j] = src i - other j
    dist = np.sqrt((d**2).sum(axis=-1))
    hit = (dist < r[:, None] + r[None, :]) & ~np.eye(n, dtype=bool)
    for i in np.flatnonzero(hit.any(axis=1)):
        j = np.flatnonzero(hit[i])[-1]  # the last collision overwrites the others
        nij = d[i, j]
        overlap = r[i] + r[j] - dist[i, j]
        pos[i] = p[i] + nij / dist[i, j] * overlap / 2
        src_mass = r[i] ** 2 * pi
        other_mass = r[j] ** 2 * pi
        c = 2 * nij @ (v[j] - v[i]) / ((nij @ nij) * (1 / src_mass + 1 / other_mass))
        vel[i] = v[i] + c / src_mass * nij
    pos = pos + vel * dt
    width, height = float(scene["width"][0]), float(scene["height"][0])
    for axis, wall in ((0, None), (1, None), (0, width), (1, height)):
        if wall is None:
            out = pos[:, axis] - r < 0
            pos[out, axis] = r[out]
        else:
            out = pos[:, axis] + r >= wall
            pos[out, axis] = wall - r[out]
        vel[out, axis] = -vel[out, axis]
    output["radius"] = r
    output["position"] = pos
    output["velocity"] = vel


BALLS = Wild(
    KernelSpec(
        id="wild_r35_surma_balls_collision_step",
        entry_point="main",
        sources={"wgsl": _BALLS},
        buffers=(
            BufferSpec(0, _BALL, "read", name="input", fill=_balls),
            BufferSpec(1, _BALL, "read_write", name="output"),
            BufferSpec(2, _SCENE, "read", name="scene", count=1, fill=_scene),
        ),
        reference=_balls_reference,
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        schedules=(Schedule(64),),
        nonfinite_inputs=False,
        test_sizes=(300, 1, 130),
    ),
    {
        "collides with itself": (
            "wgsl",
            "    if (j == me) {\n      continue;\n    }\n",
            "",
        ),
        "the other's mass from its own radius": (
            "wgsl",
            "let massOther = pow(other.radius, 2.0) * PI;",
            "let massOther = pow(ball.radius, 2.0) * PI;",
        ),
        "pushed into the other ball": (
            "wgsl",
            "ball.position + normalize(d) * overlap / 2.0;",
            "ball.position - normalize(d) * overlap / 2.0;",
        ),
        "the top wall reflects x": (
            "wgsl",
            "next.position[axis] = far[axis] - next.radius;\n      next.velocity[axis] = -next.velocity[axis];",
            "next.position[axis] = far[axis] - next.radius;\n      next.velocity[0] = -next.velocity[0];",
        ),
    },
)


ROUND35: dict = {
    w.kernel.id: w
    for w in (HIST_SLOW, HIST_ATOMIC, HIST_CHUNKS, HIST_REDUCE, SURFGRAD_MATMUL, BALLS)
}

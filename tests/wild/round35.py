"""Round 35 of kernels from the wild, merged into ``tests.wild.CORPUS``: WGSL compute
from WebGPU tutorials and blog posts, taken as written.

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

# ruff: noqa: E501  (the WGSL keeps its authors' long lines)

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
# a ``vec2u`` uniform beside it. Nothing else is changed.

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
    "bins[256] is bins[255], where min(..., lastBinIndex) puts a white pixel, so the "
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
# webgpu-compute-shaders-histogram-slow.html as written (the article's text reads
# ``arrayLength(&histogram)``, a name its runnable example fixes to ``bins``).

_HIST_SLOW = """
@group(0) @binding(0) var<storage, read_write> bins: array<u32>;
@group(0) @binding(1) var<storage, read> ourTexture: array<vec4f>;
@group(0) @binding(2) var<uniform> ourTextureSize: vec2u;

// from: https://www.w3.org/WAI/GL/wiki/Relative_luminance
const kSRGBLuminanceFactors = vec3f(0.2126, 0.7152, 0.0722);
fn srgbLuminance(color: vec3f) -> f32 {
  return saturate(dot(color, kSRGBLuminanceFactors));
}

@compute @workgroup_size(1) fn cs() {
  let size = ourTextureSize;
  let numBins = f32(arrayLength(&bins));
  let lastBinIndex = u32(numBins - 1);
  for (var y = 0u; y < size.y; y++) {
    for (var x = 0u; x < size.x; x++) {
      let position = vec2u(x, y);
      let color = ourTexture[position.y * size.x + position.x];
      let v = srgbLuminance(color.rgb);
      let bin = min(u32(v * numBins), lastBinIndex);
      bins[bin] += 1;
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
        "rows bounded by the width": ("wgsl", "y < size.y", "y < size.x"),
        "the last bin one past the end": (
            "wgsl",
            "let lastBinIndex = u32(numBins - 1);",
            "let lastBinIndex = u32(numBins);",
        ),
        "rounds to the nearest bin": (
            "wgsl",
            "min(u32(v * numBins), lastBinIndex)",
            "min(u32(round(v * numBins)), lastBinIndex)",
        ),
    },
    invisible_on={
        ("the last bin one past the end", "wgsl", "swiftshader"): _CLAMPED_INTO_THE_LAST_BIN,
    },
)


# -- 2. one invocation per pixel, atomicAdd into the bins -----------------------------------
# webgpu-compute-shaders-histogram-race-fixed.html as written: workgroup_size(1, 1, 1),
# dispatchWorkgroups(texture.width, texture.height), no bounds check (the dispatch is
# exact). The texels here are the rgba8 words, unpacked with unpack4x8unorm.

_HIST_ATOMIC = """
@group(0) @binding(0) var<storage, read_write> bins: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read> ourTexture: array<u32>;
@group(0) @binding(2) var<uniform> ourTextureSize: vec2u;

const kSRGBLuminanceFactors = vec3f(0.2126, 0.7152, 0.0722);
fn srgbLuminance(color: vec3f) -> f32 {
  return saturate(dot(color, kSRGBLuminanceFactors));
}

@compute @workgroup_size(1, 1, 1)
fn cs(@builtin(global_invocation_id) global_invocation_id: vec3u) {
  let numBins = f32(arrayLength(&bins));
  let lastBinIndex = u32(numBins - 1);
  let position = global_invocation_id.xy;
  let color = unpack4x8unorm(ourTexture[position.y * ourTextureSize.x + position.x]);
  let v = srgbLuminance(color.rgb);
  let bin = min(u32(v * numBins), lastBinIndex);
  atomicAdd(&bins[bin], 1u);
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
            "atomicAdd(&bins[bin], 1u);",
            "atomicStore(&bins[bin], atomicLoad(&bins[bin]) + 1u);",
        ),
        "x and y swapped": (
            "wgsl",
            "let position = global_invocation_id.xy;",
            "let position = global_invocation_id.yx;",
        ),
        "unpacked as snorm": ("wgsl", "unpack4x8unorm(", "unpack4x8snorm("),
        "the bin not clamped": (
            "wgsl",
            "let bin = min(u32(v * numBins), lastBinIndex);",
            "let bin = u32(v * numBins);",
        ),
    },
    invisible_on={
        ("the article's racy increment", "wgsl", part): _RACE_ON_ONE_INVOCATION_WORKGROUPS
        for part in ("llvmpipe", "swiftshader")
    }
    | {("the bin not clamped", "wgsl", "swiftshader"): _CLAMPED_INTO_THE_LAST_BIN},
)


# -- 3. 256x1 chunks in workgroup bins, then one workgroup sums the chunks -----------------
# webgpu-compute-shaders-histogram-optimized.html: two modules on the page, each with its
# entry point ``cs``; here one module (a ``Dispatch`` names an entry point, not a module),
# the chunk sum's entry point renamed ``chunkSum`` and ``chunks`` declared once. The
# ``${sharedConstants}`` the page injects are written out (chunkWidth 256, chunkHeight 1).

_HIST_CHUNKS = """
const chunkWidth = 256;
const chunkHeight = 1;
const chunkSize = chunkWidth * chunkHeight;
var<workgroup> bins: array<atomic<u32>, chunkSize>;
@group(0) @binding(0) var<storage, read_write> chunks: array<array<u32, chunkSize>>;
@group(0) @binding(1) var<storage, read> ourTexture: array<vec4f>;
@group(0) @binding(2) var<uniform> ourTextureSize: vec2u;

const kSRGBLuminanceFactors = vec3f(0.2126, 0.7152, 0.0722);
fn srgbLuminance(color: vec3f) -> f32 {
  return saturate(dot(color, kSRGBLuminanceFactors));
}

@compute @workgroup_size(chunkWidth, chunkHeight, 1)
fn cs(
  @builtin(global_invocation_id) global_invocation_id: vec3u,
  @builtin(workgroup_id) workgroup_id: vec3u,
  @builtin(local_invocation_id) local_invocation_id: vec3u,
) {
  let size = ourTextureSize;
  let position = global_invocation_id.xy;
  if (all(position < size)) {
    let numBins = f32(chunkSize);
    let lastBinIndex = u32(numBins - 1);
    let color = ourTexture[position.y * size.x + position.x];
    let v = srgbLuminance(color.rgb);
    let bin = min(u32(v * numBins), lastBinIndex);
    atomicAdd(&bins[bin], 1u);
  }

  workgroupBarrier();

  let chunksAcross = (size.x + chunkWidth - 1) / chunkWidth;
  let chunk = workgroup_id.y * chunksAcross + workgroup_id.x;
  let bin = local_invocation_id.y * chunkWidth + local_invocation_id.x;

  chunks[chunk][bin] = atomicLoad(&bins[bin]);
}

@compute @workgroup_size(chunkSize, 1, 1)
fn chunkSum(@builtin(local_invocation_id) local_invocation_id: vec3u) {
  var sum = u32(0);
  let numChunks = arrayLength(&chunks);
  for (var i = 0u; i < numChunks; i++) {
    sum += chunks[i][local_invocation_id.x];
  }
  chunks[0][local_invocation_id.x] = sum;
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
            "let chunksAcross = (size.x + chunkWidth - 1) / chunkWidth;",
            "let chunksAcross = size.x / chunkWidth;",
        ),
        "any for all in the edge test": (
            "wgsl",
            "if (all(position < size)) {",
            "if (any(position < size)) {",
        ),
        "the sum skips chunk 0": (
            "wgsl",
            "for (var i = 0u; i < numChunks; i++) {",
            "for (var i = 1u; i < numChunks; i++) {",
        ),
    },
)


# -- 4. the same chunks, reduced in pairs with a stride that doubles each pass ---------------
# webgpu-compute-shaders-histogram-optimized-more.html. The page binds one uniform buffer
# a pass (``struct Uniforms { stride: u32 }``, ``var<uniform> uni``) and dispatches
# floor(chunksLeft / 2) workgroups for stride 1, 2, 4 ... ceil(log2(numChunks)) passes.
# A KernelSpec has one uniform block for every launch: a ``Dispatch`` gives its own
# ``override`` values, not its own uniform (tests/test_wild_round35.py pins it). The
# stride is an ``override`` here, ``uni.stride`` read as ``stride``, and the page's
# binding 1 of ``uni`` (the texture's binding in the chunk module) is gone. The texels
# are the rgba8 words here.

_HIST_REDUCE = """
const chunkWidth = 256;
const chunkHeight = 1;
const chunkSize = chunkWidth * chunkHeight;
var<workgroup> bins: array<atomic<u32>, chunkSize>;
@group(0) @binding(0) var<storage, read_write> chunks: array<array<u32, chunkSize>>;
@group(0) @binding(1) var<storage, read> ourTexture: array<u32>;
@group(0) @binding(2) var<uniform> ourTextureSize: vec2u;

const kSRGBLuminanceFactors = vec3f(0.2126, 0.7152, 0.0722);
fn srgbLuminance(color: vec3f) -> f32 {
  return saturate(dot(color, kSRGBLuminanceFactors));
}

@compute @workgroup_size(chunkWidth, chunkHeight, 1)
fn cs(
  @builtin(global_invocation_id) global_invocation_id: vec3u,
  @builtin(workgroup_id) workgroup_id: vec3u,
  @builtin(local_invocation_id) local_invocation_id: vec3u,
) {
  let size = ourTextureSize;
  let position = global_invocation_id.xy;
  if (all(position < size)) {
    let numBins = f32(chunkSize);
    let lastBinIndex = u32(numBins - 1);
    let color = unpack4x8unorm(ourTexture[position.y * size.x + position.x]);
    let v = srgbLuminance(color.rgb);
    let bin = min(u32(v * numBins), lastBinIndex);
    atomicAdd(&bins[bin], 1u);
  }

  workgroupBarrier();

  let chunksAcross = (size.x + chunkWidth - 1) / chunkWidth;
  let chunk = workgroup_id.y * chunksAcross + workgroup_id.x;
  let bin = local_invocation_id.y * chunkWidth + local_invocation_id.x;

  chunks[chunk][bin] = atomicLoad(&bins[bin]);
}

// the page's uniform, one buffer a pass: struct Uniforms { stride: u32 }
override stride: u32;

@compute @workgroup_size(chunkSize, 1, 1) fn chunkSum(
  @builtin(local_invocation_id) local_invocation_id: vec3u,
  @builtin(workgroup_id) workgroup_id: vec3u,
) {
  let chunk0 = workgroup_id.x * stride * 2;
  let chunk1 = chunk0 + stride;

  let sum = chunks[chunk0][local_invocation_id.x] +
            chunks[chunk1][local_invocation_id.x];
  chunks[chunk0][local_invocation_id.x] = sum;
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
            "let chunk0 = workgroup_id.x * stride * 2;",
            "let chunk0 = workgroup_id.x * 2;",
        ),
        "the partner is always the next chunk": (
            "wgsl",
            "let chunk1 = chunk0 + stride;",
            "let chunk1 = chunk0 + 1u;",
        ),
        "the bin from the global x": (
            "wgsl",
            "let bin = local_invocation_id.y * chunkWidth + local_invocation_id.x;",
            "let bin = global_invocation_id.y * chunkWidth + global_invocation_id.x;",
        ),
        "chunk index transposed": (
            "wgsl",
            "let chunk = workgroup_id.y * chunksAcross + workgroup_id.x;",
            "let chunk = workgroup_id.x * chunksAcross + workgroup_id.y;",
        ),
    },
)


# -- 5. surfgrad's matmul: 8x8 register tiles, 16x16 invocations, unrolled by hand ----------
# Zach Nussbaum, "Optimizing a WebGPU Matmul Kernel for 1TFLOP+ Performance" (2024), the
# kernel his autograd library ships: zanussbaum/surfgrad at 2cbbf5ce,
# src/shaders/matmul.ts, as written (two trailing spaces dropped). Each invocation
# computes an 8x8 tile of the result, row from global_id.y and column from global_id.x;
# a and b are read without a bound (past the edge WGSL's robust access keeps the read in
# the buffer, and those sums are never written). surfgrad's function.ts dispatches
# (ceil(M / 128), ceil(N / 128)): M's tiles along x, which the shader reads as columns;
# right for the square matrices it benchmarks, short of rows or columns otherwise. The
# grid here is the one the shader reads, (ceil(N / 128), ceil(M / 128)); the mutant
# "rows from x" is surfgrad's dispatch.

_SURFGRAD_MATMUL = """
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
const TILE_M: u32 = 8;  // Tile size in M dimension
const TILE_N: u32 = 8;  // Tile size in N dimension

@compute @workgroup_size(BLOCKSIZE, BLOCKSIZE)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
    let row = global_id.y * TILE_M;
    let col = global_id.x * TILE_N;

    var sums: array<array<f32, TILE_N>, TILE_M>;
    for (var i = 0u; i < TILE_M; i++) {
        for (var j = 0u; j < TILE_N; j++) {
            sums[i][j] = 0.0;
        }
    }

    // Compute the 2D tile
    for (var k = 0u; k < dimensions.K; k++) {
      let a_00 = a[row * dimensions.K + k];
      let a01 = a[(row + 1) * dimensions.K + k];
      let a02 = a[(row + 2) * dimensions.K + k];
      let a03 = a[(row + 3) * dimensions.K + k];
      let a04 = a[(row + 4) * dimensions.K + k];
      let a05 = a[(row + 5) * dimensions.K + k];
      let a06 = a[(row + 6) * dimensions.K + k];
      let a07 = a[(row + 7) * dimensions.K + k];
      let b_00 = b[k * dimensions.N + col];
      let b01 = b[k * dimensions.N + (col + 1)];
      let b02 = b[k * dimensions.N + (col + 2)];
      let b03 = b[k * dimensions.N + (col + 3)];
      let b04 = b[k * dimensions.N + (col + 4)];
      let b05 = b[k * dimensions.N + (col + 5)];
      let b06 = b[k * dimensions.N + (col + 6)];
      let b07 = b[k * dimensions.N + (col + 7)];
      sums[0][0] += a_00 * b_00;
      sums[0][1] += a_00 * b01;
      sums[0][2] += a_00 * b02;
      sums[0][3] += a_00 * b03;
      sums[0][4] += a_00 * b04;
      sums[0][5] += a_00 * b05;
      sums[0][6] += a_00 * b06;
      sums[0][7] += a_00 * b07;
      sums[1][0] += a01 * b_00;
      sums[1][1] += a01 * b01;
      sums[1][2] += a01 * b02;
      sums[1][3] += a01 * b03;
      sums[1][4] += a01 * b04;
      sums[1][5] += a01 * b05;
      sums[1][6] += a01 * b06;
      sums[1][7] += a01 * b07;
      sums[2][0] += a02 * b_00;
      sums[2][1] += a02 * b01;
      sums[2][2] += a02 * b02;
      sums[2][3] += a02 * b03;
      sums[2][4] += a02 * b04;
      sums[2][5] += a02 * b05;
      sums[2][6] += a02 * b06;
      sums[2][7] += a02 * b07;
      sums[3][0] += a03 * b_00;
      sums[3][1] += a03 * b01;
      sums[3][2] += a03 * b02;
      sums[3][3] += a03 * b03;
      sums[3][4] += a03 * b04;
      sums[3][5] += a03 * b05;
      sums[3][6] += a03 * b06;
      sums[3][7] += a03 * b07;
      sums[4][0] += a04 * b_00;
      sums[4][1] += a04 * b01;
      sums[4][2] += a04 * b02;
      sums[4][3] += a04 * b03;
      sums[4][4] += a04 * b04;
      sums[4][5] += a04 * b05;
      sums[4][6] += a04 * b06;
      sums[4][7] += a04 * b07;
      sums[5][0] += a05 * b_00;
      sums[5][1] += a05 * b01;
      sums[5][2] += a05 * b02;
      sums[5][3] += a05 * b03;
      sums[5][4] += a05 * b04;
      sums[5][5] += a05 * b05;
      sums[5][6] += a05 * b06;
      sums[5][7] += a05 * b07;
      sums[6][0] += a06 * b_00;
      sums[6][1] += a06 * b01;
      sums[6][2] += a06 * b02;
      sums[6][3] += a06 * b03;
      sums[6][4] += a06 * b04;
      sums[6][5] += a06 * b05;
      sums[6][6] += a06 * b06;
      sums[6][7] += a06 * b07;
      sums[7][0] += a07 * b_00;
      sums[7][1] += a07 * b01;
      sums[7][2] += a07 * b02;
      sums[7][3] += a07 * b03;
      sums[7][4] += a07 * b04;
      sums[7][5] += a07 * b05;
      sums[7][6] += a07 * b06;
      sums[7][7] += a07 * b07;
    }

    // Row 0
    if (row < dimensions.M) {
        if (col < dimensions.N) {
            result[row * dimensions.N + col] = sums[0][0];
        }
        if (col + 1 < dimensions.N) {
            result[row * dimensions.N + (col + 1)] = sums[0][1];
        }
        if (col + 2 < dimensions.N) {
            result[row * dimensions.N + (col + 2)] = sums[0][2];
        }
        if (col + 3 < dimensions.N) {
            result[row * dimensions.N + (col + 3)] = sums[0][3];
        }
        if (col + 4 < dimensions.N) {
            result[row * dimensions.N + (col + 4)] = sums[0][4];
        }
        if (col + 5 < dimensions.N) {
            result[row * dimensions.N + (col + 5)] = sums[0][5];
        }
        if (col + 6 < dimensions.N) {
            result[row * dimensions.N + (col + 6)] = sums[0][6];
        }
        if (col + 7 < dimensions.N) {
            result[row * dimensions.N + (col + 7)] = sums[0][7];
        }
    }

    // Row 1
    if (row + 1 < dimensions.M) {
        if (col < dimensions.N) {
            result[(row + 1) * dimensions.N + col] = sums[1][0];
        }
        if (col + 1 < dimensions.N) {
            result[(row + 1) * dimensions.N + (col + 1)] = sums[1][1];
        }
        if (col + 2 < dimensions.N) {
            result[(row + 1) * dimensions.N + (col + 2)] = sums[1][2];
        }
        if (col + 3 < dimensions.N) {
            result[(row + 1) * dimensions.N + (col + 3)] = sums[1][3];
        }
        if (col + 4 < dimensions.N) {
            result[(row + 1) * dimensions.N + (col + 4)] = sums[1][4];
        }
        if (col + 5 < dimensions.N) {
            result[(row + 1) * dimensions.N + (col + 5)] = sums[1][5];
        }
        if (col + 6 < dimensions.N) {
            result[(row + 1) * dimensions.N + (col + 6)] = sums[1][6];
        }
        if (col + 7 < dimensions.N) {
            result[(row + 1) * dimensions.N + (col + 7)] = sums[1][7];
        }
    }

    // Row 2
    if (row + 2 < dimensions.M) {
        if (col < dimensions.N) {
            result[(row + 2) * dimensions.N + col] = sums[2][0];
        }
        if (col + 1 < dimensions.N) {
            result[(row + 2) * dimensions.N + (col + 1)] = sums[2][1];
        }
        if (col + 2 < dimensions.N) {
            result[(row + 2) * dimensions.N + (col + 2)] = sums[2][2];
        }
        if (col + 3 < dimensions.N) {
            result[(row + 2) * dimensions.N + (col + 3)] = sums[2][3];
        }
        if (col + 4 < dimensions.N) {
            result[(row + 2) * dimensions.N + (col + 4)] = sums[2][4];
        }
        if (col + 5 < dimensions.N) {
            result[(row + 2) * dimensions.N + (col + 5)] = sums[2][5];
        }
        if (col + 6 < dimensions.N) {
            result[(row + 2) * dimensions.N + (col + 6)] = sums[2][6];
        }
        if (col + 7 < dimensions.N) {
            result[(row + 2) * dimensions.N + (col + 7)] = sums[2][7];
        }
    }

    // Row 3
    if (row + 3 < dimensions.M) {
        if (col < dimensions.N) {
            result[(row + 3) * dimensions.N + col] = sums[3][0];
        }
        if (col + 1 < dimensions.N) {
            result[(row + 3) * dimensions.N + (col + 1)] = sums[3][1];
        }
        if (col + 2 < dimensions.N) {
            result[(row + 3) * dimensions.N + (col + 2)] = sums[3][2];
        }
        if (col + 3 < dimensions.N) {
            result[(row + 3) * dimensions.N + (col + 3)] = sums[3][3];
        }
        if (col + 4 < dimensions.N) {
            result[(row + 3) * dimensions.N + (col + 4)] = sums[3][4];
        }
        if (col + 5 < dimensions.N) {
            result[(row + 3) * dimensions.N + (col + 5)] = sums[3][5];
        }
        if (col + 6 < dimensions.N) {
            result[(row + 3) * dimensions.N + (col + 6)] = sums[3][6];
        }
        if (col + 7 < dimensions.N) {
            result[(row + 3) * dimensions.N + (col + 7)] = sums[3][7];
        }
    }
    if (row + 4 < dimensions.M) {
        if (col < dimensions.N) {
            result[(row + 4) * dimensions.N + col] = sums[4][0];
        }
        if (col + 1 < dimensions.N) {
            result[(row + 4) * dimensions.N + (col + 1)] = sums[4][1];
        }
        if (col + 2 < dimensions.N) {
            result[(row + 4) * dimensions.N + (col + 2)] = sums[4][2];
        }
        if (col + 3 < dimensions.N) {
            result[(row + 4) * dimensions.N + (col + 3)] = sums[4][3];
        }
        if (col + 4 < dimensions.N) {
            result[(row + 4) * dimensions.N + (col + 4)] = sums[4][4];
        }
        if (col + 5 < dimensions.N) {
            result[(row + 4) * dimensions.N + (col + 5)] = sums[4][5];
        }
        if (col + 6 < dimensions.N) {
            result[(row + 4) * dimensions.N + (col + 6)] = sums[4][6];
        }
        if (col + 7 < dimensions.N) {
            result[(row + 4) * dimensions.N + (col + 7)] = sums[4][7];
        }
    }
    if (row + 5 < dimensions.M) {
        if (col < dimensions.N) {
            result[(row + 5) * dimensions.N + col] = sums[5][0];
        }
        if (col + 1 < dimensions.N) {
            result[(row + 5) * dimensions.N + (col + 1)] = sums[5][1];
        }
        if (col + 2 < dimensions.N) {
            result[(row + 5) * dimensions.N + (col + 2)] = sums[5][2];
        }
        if (col + 3 < dimensions.N) {
            result[(row + 5) * dimensions.N + (col + 3)] = sums[5][3];
        }
        if (col + 4 < dimensions.N) {
            result[(row + 5) * dimensions.N + (col + 4)] = sums[5][4];
        }
        if (col + 5 < dimensions.N) {
            result[(row + 5) * dimensions.N + (col + 5)] = sums[5][5];
        }
        if (col + 6 < dimensions.N) {
            result[(row + 5) * dimensions.N + (col + 6)] = sums[5][6];
        }
        if (col + 7 < dimensions.N) {
            result[(row + 5) * dimensions.N + (col + 7)] = sums[5][7];
        }
    }
    if (row + 6 < dimensions.M) {
        if (col < dimensions.N) {
            result[(row + 6) * dimensions.N + col] = sums[6][0];
        }
        if (col + 1 < dimensions.N) {
            result[(row + 6) * dimensions.N + (col + 1)] = sums[6][1];
        }
        if (col + 2 < dimensions.N) {
            result[(row + 6) * dimensions.N + (col + 2)] = sums[6][2];
        }
        if (col + 3 < dimensions.N) {
            result[(row + 6) * dimensions.N + (col + 3)] = sums[6][3];
        }
        if (col + 4 < dimensions.N) {
            result[(row + 6) * dimensions.N + (col + 4)] = sums[6][4];
        }
        if (col + 5 < dimensions.N) {
            result[(row + 6) * dimensions.N + (col + 5)] = sums[6][5];
        }
        if (col + 6 < dimensions.N) {
            result[(row + 6) * dimensions.N + (col + 6)] = sums[6][6];
        }
        if (col + 7 < dimensions.N) {
            result[(row + 6) * dimensions.N + (col + 7)] = sums[6][7];
        }
    }
    if (row + 7 < dimensions.M) {
        if (col < dimensions.N) {
            result[(row + 7) * dimensions.N + col] = sums[7][0];
        }
        if (col + 1 < dimensions.N) {
            result[(row + 7) * dimensions.N + (col + 1)] = sums[7][1];
        }
        if (col + 2 < dimensions.N) {
            result[(row + 7) * dimensions.N + (col + 2)] = sums[7][2];
        }
        if (col + 3 < dimensions.N) {
            result[(row + 7) * dimensions.N + (col + 3)] = sums[7][3];
        }
        if (col + 4 < dimensions.N) {
            result[(row + 7) * dimensions.N + (col + 4)] = sums[7][4];
        }
        if (col + 5 < dimensions.N) {
            result[(row + 7) * dimensions.N + (col + 5)] = sums[7][5];
        }
        if (col + 6 < dimensions.N) {
            result[(row + 7) * dimensions.N + (col + 6)] = sums[7][6];
        }
        if (col + 7 < dimensions.N) {
            result[(row + 7) * dimensions.N + (col + 7)] = sums[7][7];
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
            "let row = global_id.y * TILE_M;\n    let col = global_id.x * TILE_N;",
            "let row = global_id.x * TILE_M;\n    let col = global_id.y * TILE_N;",
        ),
        "a copy-paste slip in the unrolled tile": (
            "wgsl",
            "sums[5][6] += a05 * b06;",
            "sums[5][6] += a05 * b05;",
        ),
        "a row of a strided by N": (
            "wgsl",
            "let a03 = a[(row + 3) * dimensions.K + k];",
            "let a03 = a[(row + 3) * dimensions.N + k];",
        ),
        "row 4 bounded by N": (
            "wgsl",
            "if (row + 4 < dimensions.M) {",
            "if (row + 4 < dimensions.N) {",
        ),
    },
)


# -- 6. Surma's balls: one simulation step, elastic collisions and walls ---------------------
# Surma, "WebGPU — All of the cores, none of the canvas" (2022), its last step:
# surma/surma.dev at 78fce410, static/things/webgpu/step4/main.js, as written. The scene
# is a storage struct (width, height), the balls 6 floats each (radius, padding,
# position, velocity); main.js fills radii in [2, 10], positions over a 500x500 canvas
# and velocities in [-100, 100]. Each collision overwrites the output ball from the
# input one, so the last ball it overlaps decides; then the velocity moves it and the
# four walls reflect it in turn.

_BALLS = """
struct Ball {
  radius: f32,
  position: vec2<f32>,
  velocity: vec2<f32>,
}

@group(0) @binding(0)
var<storage, read> input: array<Ball>;

@group(0) @binding(1)
var<storage, read_write> output: array<Ball>;

struct Scene {
  width: f32,
  height: f32,
}

@group(0) @binding(2)
var<storage, read> scene: Scene;

const PI: f32 = 3.14159;
const TIME_STEP: f32 = 0.016;

@compute @workgroup_size(64)
fn main(
  @builtin(global_invocation_id)
  global_id : vec3<u32>,
) {
  let num_balls = arrayLength(&output);
  if(global_id.x >= num_balls) {
    return;
  }
  var src_ball = input[global_id.x];
  let dst_ball = &output[global_id.x];

  (*dst_ball) = src_ball;

  // Ball/Ball collision
  for(var i = 0u; i < num_balls; i = i + 1u) {
    if(i == global_id.x) {
      continue;
    }
    var other_ball = input[i];
    let n = src_ball.position - other_ball.position;
    let distance = length(n);
    if(distance >= src_ball.radius + other_ball.radius) {
      continue;
    }
    let overlap = src_ball.radius + other_ball.radius - distance;
    (*dst_ball).position = src_ball.position + normalize(n) * overlap/2.;

    // Details on the physics here:
    // https://physics.stackexchange.com/questions/599278/how-can-i-calculate-the-final-velocities-of-two-spheres-after-an-elastic-collisi
    let src_mass = pow(src_ball.radius, 2.0) * PI;
    let other_mass = pow(other_ball.radius, 2.0) * PI;
    let c = 2.*dot(n, (other_ball.velocity - src_ball.velocity)) / (dot(n, n) * (1./src_mass + 1./other_mass));
    (*dst_ball).velocity = src_ball.velocity + c/src_mass * n;
  }

  // Apply velocity
  (*dst_ball).position = (*dst_ball).position + (*dst_ball).velocity * TIME_STEP;

  // Ball/Wall collision
  if((*dst_ball).position.x - (*dst_ball).radius < 0.) {
    (*dst_ball).position.x = (*dst_ball).radius;
    (*dst_ball).velocity.x = -(*dst_ball).velocity.x;
  }
  if((*dst_ball).position.y - (*dst_ball).radius < 0.) {
    (*dst_ball).position.y = (*dst_ball).radius;
    (*dst_ball).velocity.y = -(*dst_ball).velocity.y;
  }
  if((*dst_ball).position.x + (*dst_ball).radius >= scene.width) {
    (*dst_ball).position.x = scene.width - (*dst_ball).radius;
    (*dst_ball).velocity.x = -(*dst_ball).velocity.x;
  }
  if((*dst_ball).position.y + (*dst_ball).radius >= scene.height) {
    (*dst_ball).position.y = scene.height - (*dst_ball).radius;
    (*dst_ball).velocity.y = -(*dst_ball).velocity.y;
  }
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
            "    if(i == global_id.x) {\n      continue;\n    }\n",
            "",
        ),
        "the other's mass from its own radius": (
            "wgsl",
            "let other_mass = pow(other_ball.radius, 2.0) * PI;",
            "let other_mass = pow(src_ball.radius, 2.0) * PI;",
        ),
        "pushed into the other ball": (
            "wgsl",
            "src_ball.position + normalize(n) * overlap/2.;",
            "src_ball.position - normalize(n) * overlap/2.;",
        ),
        "the top wall reflects x": (
            "wgsl",
            "(*dst_ball).position.y = scene.height - (*dst_ball).radius;\n    (*dst_ball).velocity.y = -(*dst_ball).velocity.y;",
            "(*dst_ball).position.y = scene.height - (*dst_ball).radius;\n    (*dst_ball).velocity.x = -(*dst_ball).velocity.x;",
        ),
    },
)


ROUND35: dict = {
    w.kernel.id: w
    for w in (HIST_SLOW, HIST_ATOMIC, HIST_CHUNKS, HIST_REDUCE, SURFGRAD_MATMUL, BALLS)
}

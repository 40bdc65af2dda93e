"""Round 48 of kernels from the wild, merged into ``tests.wild.CORPUS``: WebGPU image
compute passes that bind textures (``BufferSpec(texture=...)``, tests/test_wgsl_textures.py),
which kernel-forge refused before this round. Written for this corpus after the
sources named below: read, not copied (the project's rule for public code). What is
theirs is kept: the bindings (group, binding, texture kinds and formats), entry
points, workgroup sizes, launch geometry, the algorithms and their numerics. What is
ours: the locals' names, the comments, the formatting, and each adaptation named below.

- webgpu/webgpu-samples at 02be18ce (BSD-3-Clause), ``sample/imageBlur/blur.wgsl``:
  the image blur's compute pass. Workgroups of (32, 1, 1), each staging a 128 x 4 tile
  of ``vec3f`` in workgroup memory (four texels a thread in each of four rows), a
  barrier, then a box filter of ``params.filterDim`` taps over the tile's row, each tap
  weighted ``1 / filterDim`` and accumulated in order, written as ``vec4(acc, 1.0)`` to
  a ``texture_storage_2d<rgba8unorm, write>``; a workgroup writes ``blockDim = 128 -
  (filterDim - 1)`` columns and the host dispatches ``ceil(width / blockDim)`` by
  ``ceil(height / 4)`` of them; ``flip`` transposes loads and stores for the vertical
  pass. Adaptation: the sample reads its input through a linear sampler at ``(index +
  0.25) / dims`` (``textureSampleLevel``), which kernel-forge does not bind; this port
  reads the texel itself with ``textureLoad``, its index clamped into the image as the
  sampler's default clamp-to-edge addressing would. The horizontal pass (``flip = 0``)
  is run, its ``flip`` bound as the sample binds it (a second uniform, group 1).
- webgpu/webgpufundamentals at 1386810e (BSD-3-Clause),
  ``webgpu/lessons/webgpu-compute-shaders-histogram.md``: the image histogram's
  "one invocation per pixel" step with atomics: ``bins: array<atomic<u32>>`` at binding
  0 and ``ourTexture: texture_2d<f32>`` at binding 1, ``@workgroup_size(1, 1, 1)`` and a
  dispatch of (width, height), the luminance ``saturate(dot(rgb, (0.2126, 0.7152,
  0.0722)))`` and ``min(u32(v * numBins), lastBinIndex)`` over 256 bins.
- webgpu/webgpufundamentals at 06b000ac (BSD-3-Clause),
  ``webgpu/lessons/webgpu-storage-textures.md``: concentric circles drawn by a compute
  shader into a ``texture_storage_2d<FORMAT, write>`` (the canvas's format; here
  rgba8unorm, the lesson's fallback), ``@workgroup_size(1)`` and a dispatch of (width,
  height), rings of ``distance(texel, size / 2) / 32 % 2``, red and cyan by ``select``.

Mutants: a channel order, an off-by-one edge, a wrong weight, a wrong constant; each
fails on wgpu (lavapipe) and in the browser (SwiftShader). Left out as invisible by
design: a histogram without its ``min`` (with inputs in [0, 1] it differs only at a
luminance of exactly 1, whose bin index past the end WGSL's robust access clamps back
to the last bin), and a blur that writes one window past the tile's last whole one (a
race with the next workgroup's right value: either may land).

The rgba8unorm outputs are judged by ``forge.textures``' conversion rule: the
reference returns the floats the kernel stores (the blur's sums of 15 taps), and a
byte is right when it is one of the two nearest codes a conforming device may store.
"""

from __future__ import annotations

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import Wild

# -- 1. webgpu-samples: imageBlur's compute pass ------------------------------------------

_TILE = 128
_FILTER_DIM = 15
_BLOCK_DIM = _TILE - (_FILTER_DIM - 1)

_BLUR_WGSL = """
struct Params {
  filterDim : i32,
  blockDim : u32,
}

@group(0) @binding(1) var<uniform> params : Params;
@group(1) @binding(1) var inputTex : texture_2d<f32>;
@group(1) @binding(2) var outputTex : texture_storage_2d<rgba8unorm, write>;

struct Flip {
  value : u32,
}
@group(1) @binding(3) var<uniform> flip : Flip;

// One direction of a box blur (flip.value 0: along rows, 1: along columns). The 32
// invocations of a workgroup stage a 128 x 4 tile of colours, four neighbouring texels
// each in every one of the tile's four rows, then each averages filterDim neighbours
// of the tile row for its four texels. A tile holds blockDim = 128 - (filterDim - 1)
// whole windows, so a workgroup writes that many columns (the host dispatches
// ceil(width / blockDim) x ceil(height / 4) workgroups).
var<workgroup> tile : array<array<vec3f, 128>, 4>;

@compute @workgroup_size(32, 1, 1)
fn main(
  @builtin(workgroup_id) group : vec3u,
  @builtin(local_invocation_id) local : vec3u
) {
  let reach = (params.filterDim - 1) / 2;
  let size = vec2i(textureDimensions(inputTex, 0));
  let origin = vec2i(group.xy * vec2(params.blockDim, 4) + local.xy * vec2(4, 1))
               - vec2(reach, 0);

  for (var row = 0; row < 4; row++) {
    for (var col = 0; col < 4; col++) {
      var at = origin + vec2(col, row);
      if (flip.value != 0u) {
        at = at.yx;
      }
      // the texel itself, clamped into the image (a sampler's clamp-to-edge)
      let texel = clamp(at, vec2(0), size - vec2(1));
      tile[row][4 * local.x + u32(col)] = textureLoad(inputTex, texel, 0).rgb;
    }
  }

  workgroupBarrier();

  for (var row = 0; row < 4; row++) {
    for (var col = 0; col < 4; col++) {
      var dst = origin + vec2(col, row);
      if (flip.value != 0) {
        dst = dst.yx;
      }
      let middle = i32(4 * local.x) + col;
      if (middle >= reach && middle < 128 - reach && all(dst < size)) {
        var sum = vec3(0.0, 0.0, 0.0);
        for (var tap = 0; tap < params.filterDim; tap++) {
          let source = middle + tap - reach;
          sum = sum + (1.0 / f32(params.filterDim)) * tile[row][source];
        }
        textureStore(outputTex, dst, vec4(sum, 1.0));
      }
    }
  }
}
"""


def _blur_reference(inputTex, outputTex, filterDim):
    """The horizontal box blur as the pass computes it in float32: each row's colours
    at the clamped neighbours, ``(1 / filterDim) * colour`` added in tap order, alpha
    1. Returns the floats stored (the device converts them to bytes)."""
    rgb = inputTex[..., :3].astype(np.float32)
    height, width = rgb.shape[:2]
    half = (filterDim - 1) // 2
    weight = np.float32(1.0) / np.float32(filterDim)
    columns = np.arange(width)
    total = np.zeros((height, width, 3), np.float32)
    for tap in range(filterDim):
        at = np.clip(columns + tap - half, 0, width - 1)
        total = total + weight * rgb[:, at, :]
    out = np.ones((height, width, 4), np.float32)
    out[..., :3] = total
    return out


IMAGE_BLUR = Wild(
    KernelSpec(
        id="wild_r48_webgpu_samples_image_blur_rgba8",
        entry_point="main",
        sources={"wgsl": _BLUR_WGSL},
        dims=("H", "W"),
        buffers=(
            BufferSpec.uniform(1, (("filterDim", "i32"), ("blockDim", "u32")), name="params"),
            BufferSpec(
                1, access="read", name="inputTex", group=1, texture="rgba8unorm", shape=("H", "W")
            ),
            BufferSpec(
                2,
                access="read_write",
                name="outputTex",
                group=1,
                texture="rgba8unorm",
                shape=("H", "W"),
            ),
            BufferSpec(
                3, "u32", "read", name="flip", group=1, count=1, fill=np.zeros(1, np.uint32)
            ),
        ),
        reference=_blur_reference,
        defaults={"filterDim": _FILTER_DIM, "blockDim": _BLOCK_DIM},
        launches=(
            Dispatch(
                "main",
                grid=lambda s, size: (ceil_div(size.W, _BLOCK_DIM), ceil_div(size.H, 4), 1),
            ),
        ),
        schedules=(Schedule((32, 1, 1)),),
        # one tile and a bit (the seam between two workgroups' columns), and a sliver
        test_sizes=("H=9,W=131", "H=3,W=5"),
    ),
    {
        "channels swapped": (
            "wgsl",
            "textureLoad(inputTex, texel, 0).rgb;",
            "textureLoad(inputTex, texel, 0).bgr;",
        ),
        "skips the tile's first whole window": (
            "wgsl",
            "middle >= reach &&",
            "middle > reach &&",
        ),
        "each tap weighted by one tap fewer": (
            "wgsl",
            "(1.0 / f32(params.filterDim))",
            "(1.0 / f32(params.filterDim - 1))",
        ),
        "the clamp one texel short of the last column": (
            "wgsl",
            "clamp(at, vec2(0), size - vec2(1))",
            "clamp(at, vec2(0), size - vec2(2))",
        ),
        "alpha left at zero": ("wgsl", "vec4(sum, 1.0)", "vec4(sum, 0.0)"),
    },
)


# -- 2. webgpufundamentals: an image histogram, one invocation a pixel ---------------------

_HISTOGRAM_WGSL = """
@group(0) @binding(0) var<storage, read_write> bins: array<atomic<u32>>;
@group(0) @binding(1) var ourTexture: texture_2d<f32>;

// Rec. 709 weights, as the W3C's relative luminance uses them
const kLuminance = vec3f(0.2126, 0.7152, 0.0722);
fn luminance(rgb: vec3f) -> f32 {
  return saturate(dot(rgb, kLuminance));
}

// One invocation per texel (the host dispatches width x height workgroups of one):
// the texel's luminance picks one of arrayLength(&bins) equal bins over [0, 1], the
// last one also taking a luminance of exactly 1.
@compute @workgroup_size(1, 1, 1)
fn cs(@builtin(global_invocation_id) id: vec3u) {
  let count = f32(arrayLength(&bins));
  let last = u32(count - 1);
  let texel = textureLoad(ourTexture, id.xy, 0);
  let bin = min(u32(luminance(texel.rgb) * count), last);
  atomicAdd(&bins[bin], 1u);
}
"""

_BINS = 256


def _histogram_reference(bins, ourTexture):
    """The bins' counts: each texel's luminance in float32 (the dot's products summed
    in order), clamped to [0, 1], times the bin count, truncated, capped at the last."""
    rgb = ourTexture[..., :3].astype(np.float32).reshape(-1, 3)
    weights = np.array([0.2126, 0.7152, 0.0722], np.float32)
    value = rgb[:, 0] * weights[0] + rgb[:, 1] * weights[1] + rgb[:, 2] * weights[2]
    value = np.clip(value, np.float32(0), np.float32(1))
    index = np.minimum((value * np.float32(_BINS)).astype(np.uint32), _BINS - 1)
    return np.bincount(index, minlength=_BINS).astype(np.uint32)


HISTOGRAM = Wild(
    KernelSpec(
        id="wild_r48_webgpufundamentals_histogram_texture",
        entry_point="cs",
        sources={"wgsl": _HISTOGRAM_WGSL},
        dims=("H", "W"),
        buffers=(
            BufferSpec(0, "u32", "read_write", name="bins", count=_BINS, initial=0),
            BufferSpec(1, access="read", name="ourTexture", texture="rgba8unorm", shape=("H", "W")),
        ),
        reference=_histogram_reference,
        grid=lambda s, size: (size.W, size.H, 1),
        schedules=(Schedule((1, 1, 1)),),
        test_sizes=("H=23,W=41", "H=1,W=3"),
    ),
    {
        "channels in BGR order": ("wgsl", "luminance(texel.rgb)", "luminance(texel.bgr)"),
        "green's weight with two digits swapped": ("wgsl", "0.7152", "0.7512"),
        "a bin too many": (
            "wgsl",
            "let count = f32(arrayLength(&bins));",
            "let count = f32(arrayLength(&bins) + 1u);",
        ),
        "the texel one row down": (
            "wgsl",
            "textureLoad(ourTexture, id.xy, 0)",
            "textureLoad(ourTexture, id.xy + vec2u(0u, 1u), 0)",
        ),
    },
)


# -- 3. webgpufundamentals: concentric circles drawn into a storage texture ----------------

_CIRCLES_WGSL = """
@group(0) @binding(0)
var tex: texture_storage_2d<rgba8unorm, write>;

// Rings 32 texels wide around the texture's centre, red and cyan in turn, one
// invocation per texel (the host dispatches width x height workgroups of one).
@compute @workgroup_size(1) fn cs(
  @builtin(global_invocation_id) id : vec3u
) {
  let size = textureDimensions(tex);
  let centre = vec2f(size) / 2.0;
  let texel = id.xy;
  let ring = distance(vec2f(texel), centre) / 32.0 % 2.0;
  let red = vec4f(1, 0, 0, 1);
  let cyan = vec4f(0, 1, 1, 1);
  textureStore(tex, texel, select(red, cyan, ring < 1.0));
}
"""


def _circles_reference(tex, H, W):
    """Cyan where the distance to the centre, over 32, leaves a remainder below 1 after
    dividing by 2 (float32 throughout, as the shader computes it), red elsewhere."""
    y, x = np.mgrid[0:H, 0:W].astype(np.float32)
    dx, dy = x - np.float32(W / 2), y - np.float32(H / 2)
    ring = np.fmod(np.sqrt(dx * dx + dy * dy) / np.float32(32), np.float32(2))
    red = np.array([1, 0, 0, 1], np.float32)
    cyan = np.array([0, 1, 1, 1], np.float32)
    return np.where((ring < 1)[..., None], cyan, red).astype(np.float32)


CIRCLES = Wild(
    KernelSpec(
        id="wild_r48_webgpufundamentals_storage_texture_circles",
        entry_point="cs",
        sources={"wgsl": _CIRCLES_WGSL},
        dims=("H", "W"),
        buffers=(
            BufferSpec(0, access="read_write", name="tex", texture="rgba8unorm", shape=("H", "W")),
        ),
        reference=_circles_reference,
        grid=lambda s, size: (size.W, size.H, 1),
        schedules=(Schedule((1, 1, 1)),),
        # odd sides: the centre is a texel's corner, so no texel is a whole number of
        # ring widths away (a distance the sqrt may round to either side)
        test_sizes=("H=45,W=79", "H=3,W=5"),
    ),
    {
        "red as blue": ("wgsl", "let red = vec4f(1, 0, 0, 1);", "let red = vec4f(0, 0, 1, 1);"),
        "select's arms reversed": (
            "wgsl",
            "select(red, cyan, ring < 1.0)",
            "select(cyan, red, ring < 1.0)",
        ),
        "the centre one texel up and left": (
            "wgsl",
            "let centre = vec2f(size) / 2.0;",
            "let centre = vec2f(size - 1) / 2.0;",
        ),
        "rings half as wide": ("wgsl", "/ 32.0 % 2.0", "/ 16.0 % 2.0"),
    },
)


ROUND48: dict[str, Wild] = {wild.kernel.id: wild for wild in (IMAGE_BLUR, HISTOGRAM, CIRCLES)}

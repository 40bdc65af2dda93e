"""Round 60 of kernels from the wild, merged into ``tests.wild.CORPUS``: image compute
passes that read their texture through a sampler (``KernelSpec(samplers=...)``,
``forge.Sampler``; tests/test_wgsl_samplers.py), which kernel-forge refused as
unsupported before this round. Written for this corpus after the source named below:
read, not copied (the project's rule for public code). What is theirs is kept: the
bindings (group, binding, the sampler, texture kinds and formats), the entry point, the
workgroup size, the launch geometry, the algorithm and its numerics. What is ours: the
locals' names, the comments, the formatting.

- webgpu/webgpu-samples at 02be18cea27b08b19de4c426339590079687cc4e (BSD-3-Clause),
  ``sample/imageBlur/blur.wgsl``, with the host code of ``sample/imageBlur/main.ts``
  (the sampler: ``magFilter: 'linear', minFilter: 'linear'``, the address modes left
  at their default, clamp-to-edge; ``filterSize`` 15, ``blockDim = 128 - (filterSize
  - 1)``, the passes dispatched ``ceil(width / blockDim) x ceil(height / 4)`` with
  ``flip`` 0 and ``ceil(height / blockDim) x ceil(width / 4)`` with ``flip`` 1). The
  sample's own compute pass, as round 48 could only approximate with ``textureLoad``:
  each texel is read with ``textureSampleLevel`` at ``(index + 0.25) / dims``, a
  quarter texel above and left of the texel's centre, so the linear sampler returns
  ``0.75`` of the texel and ``0.25`` of its upper and left neighbours on each axis (a
  small 2 x 2 blend the sample makes whether or not it meant to; kept). The reference
  samples through ``forge.textures.sample`` with the same sampler, so the oracle knows
  the weights (a quarter is exact in NVIDIA's 8 bits of fraction: no filtering error
  is allowed here). Both passes are entries: ``flip`` 0 (along rows) and ``flip`` 1
  (along columns, the loads and stores transposed), each with its ``flip`` bound as
  the sample binds it, a second uniform in group 1.

Mutants of the row pass: the sample point at the texel's centre (no blend), a quarter
texel the other way (a half-texel shift of the blend), the barrier dropped (a race
between the tile's loads and the window reads); of the column pass: its loads left
untransposed (the filter along the wrong dimension). Each fails on wgpu (lavapipe) and
in the browser (SwiftShader); the dropped barrier was not run on NVIDIA's Vulkan yet.
"""

from __future__ import annotations

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Sampler, SamplerSpec, Schedule, ceil_div
from forge.textures import sample

from . import Wild

# -- webgpu-samples: imageBlur's compute pass, through its linear sampler ----------------

_TILE = 128
_FILTER_DIM = 15
_BLOCK_DIM = _TILE - (_FILTER_DIM - 1)
#: the sample's sampler: linear both ways, clamp-to-edge (createSampler's default)
_LINEAR = Sampler(filter="linear", address="clamp")

_BLUR_WGSL = """
struct Params {
  filterDim : i32,
  blockDim : u32,
}

@group(0) @binding(0) var samp : sampler;
@group(0) @binding(1) var<uniform> params : Params;
@group(1) @binding(1) var inputTex : texture_2d<f32>;
@group(1) @binding(2) var outputTex : texture_storage_2d<rgba8unorm, write>;

struct Flip {
  value : u32,
}
@group(1) @binding(3) var<uniform> flip : Flip;

// A box blur along one axis: rows where flip.value is 0, columns where it is 1 (the
// load and store positions transposed). A workgroup's 32 invocations fill a 128 x 4
// tile, each sampling four neighbouring texels in each of the tile's rows, wait for
// one another, then each averages filterDim tile entries around four of its own. Only
// blockDim = 128 - (filterDim - 1) columns of a tile have their whole window there,
// so that is how many a workgroup writes.
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
      // a quarter texel short of the centre: the sampler blends in the neighbours
      let uv = (vec2f(at) + vec2f(0.25, 0.25)) / vec2f(size);
      tile[row][4 * local.x + u32(col)] = textureSampleLevel(inputTex, samp, uv, 0.0).rgb;
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


def _blur(texels: np.ndarray, filter_dim: int, columns: bool) -> np.ndarray:
    """The pass's result in float32: a box of ``filter_dim`` reads along the rows
    (``columns``: along the columns), each weighted ``1 / filter_dim`` and added in tap
    order, alpha 1; each read through the linear sampler (``forge.textures.sample``) a
    quarter texel up and left of its texel's centre, also where the window reaches past
    the image (the sampler's clamp-to-edge decides what that reads)."""
    height, width = texels.shape[:2]
    y, x = np.mgrid[0:height, 0:width]
    half = (filter_dim - 1) // 2
    weight = np.float32(1.0) / np.float32(filter_dim)
    total = np.zeros((height, width, 3), np.float32)
    for tap in range(filter_dim):
        at_x, at_y = (x, y + tap - half) if columns else (x + tap - half, y)
        uv = np.stack([(at_x + 0.25) / width, (at_y + 0.25) / height], axis=-1)
        read = sample(texels, uv, _LINEAR)[..., :3].astype(np.float32)
        total = total + weight * read
    out = np.ones((height, width, 4), np.float32)
    out[..., :3] = total
    return out


def _blur_rows(inputTex, outputTex, filterDim):
    return _blur(inputTex, int(filterDim), columns=False)


def _blur_columns(inputTex, outputTex, filterDim):
    return _blur(inputTex, int(filterDim), columns=True)


def _blur_kernel(kid: str, flip: int, reference, grid, sizes: tuple) -> KernelSpec:
    return KernelSpec(
        id=kid,
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
                3, "u32", "read", name="flip", group=1, count=1, fill=np.full(1, flip, np.uint32)
            ),
        ),
        samplers=(SamplerSpec(0, _LINEAR, name="samp"),),
        reference=reference,
        defaults={"filterDim": _FILTER_DIM, "blockDim": _BLOCK_DIM},
        launches=(Dispatch("main", grid=grid),),
        schedules=(Schedule((32, 1, 1)),),
        test_sizes=sizes,
    )


_MUTANTS = {
    "sampled at the texel's centre (no blend)": (
        "wgsl",
        "vec2f(0.25, 0.25)) / vec2f(size)",
        "vec2f(0.5, 0.5)) / vec2f(size)",
    ),
    "the blend a half texel the other way": (
        "wgsl",
        "vec2f(0.25, 0.25)) / vec2f(size)",
        "vec2f(0.75, 0.75)) / vec2f(size)",
    ),
    "the barrier dropped": ("wgsl", "  workgroupBarrier();\n", "\n"),
}

BLUR_ROWS = Wild(
    _blur_kernel(
        "wild_r60_webgpu_samples_image_blur_sampled_rows",
        0,
        _blur_rows,
        lambda s, size: (ceil_div(size.W, _BLOCK_DIM), ceil_div(size.H, 4), 1),
        # one tile and a bit (the seam between two workgroups' columns), and a sliver
        ("H=9,W=131", "H=3,W=5"),
    ),
    dict(_MUTANTS),
)

BLUR_COLUMNS = Wild(
    _blur_kernel(
        "wild_r60_webgpu_samples_image_blur_sampled_columns",
        1,
        _blur_columns,
        lambda s, size: (ceil_div(size.H, _BLOCK_DIM), ceil_div(size.W, 4), 1),
        ("H=131,W=9", "H=5,W=3"),
    ),
    {
        # the rows' mutants, transposed, show the same; this one only here
        "the vertical pass loads along the rows": (
            "wgsl",
            "      if (flip.value != 0u) {\n        at = at.yx;\n      }\n",
            "",
        ),
    },
)


ROUND60: dict[str, Wild] = {wild.kernel.id: wild for wild in (BLUR_ROWS, BLUR_COLUMNS)}

"""Round 72 of kernels from the wild, merged into ``tests.wild.CORPUS``: GPU-driven
rendering compute in WGSL, as game engines and WebGPU renderers write it: a tile's light
list culled against its depth bounds, indirect draw arguments built per batch, and a
depth pyramid reduced in one pass through workgroup memory. Each is written for this
corpus after the public source named below: read, not copied (the project's rule for
public code). What is theirs is kept: the entry points, the bindings (names, types,
access, the structs' fields in their order), the workgroup sizes and workgroup memory,
the barriers where they stand, the atomics (``atomicMin``/``atomicMax`` on a float's
bits, an ``atomicAdd`` that appends, one that reserves a slot in a batch set), the
launch geometry the host gives and the numerics. What is ours: the comments, the
locals' names where theirs say nothing, the formatting, the scenes the draws make, and
each adaptation named below.

- bcrusco/Forward-Plus-Renderer at ba9b3cd2 (no licence file found in the indexed copy;
  read only), ``Forward-Plus/Forward-Plus/source/shaders/light_culling.comp.glsl``,
  ``main``: Forward+ tiled light culling (Harada et al.; DICE's Battlefield 3 talk), as
  a WebGPU port. A workgroup of 16 x 16 a screen tile: invocation 0 clears the tile's
  ``minDepthInt = 0xFFFFFFFF``, ``maxDepthInt = 0`` and ``visibleLightCount`` and
  stores ``projection * view`` in workgroup memory; each invocation linearises its
  pixel's depth with ``(0.5 * P[3][2]) / (d + 0.5 * P[2][2] - 0.5)`` and folds its
  bits into the tile's bounds with ``atomicMin``/``atomicMax`` (positive floats order
  as their bits); invocation 0 builds the tile's six planes (four sides in clip space
  times ``viewProjection``, row vector times matrix, the near and far ones from the
  bounds times ``view``, each divided by the length of its normal); then the 256
  invocations take the lights 256 at a time, each testing its light's sphere against
  the planes in order (``dot(position, plane) + radius``, out at the first ``<= 0``)
  and appending a visible one's index to the tile's workgroup list with ``atomicAdd``;
  invocation 0 copies the list into the tile's 1024 slots of
  ``visibleLightIndicesBuffer`` and ends it with -1. Adaptations: the depth is read
  with ``textureLoad`` at the pixel, its coordinate clamped into the screen, where the
  GL shader samples ``depthMap`` at ``location / screenSize`` through a
  clamp-to-edge sampler (a tile past the screen's edge reads the edge's texels again,
  which leave a minimum and a maximum as they are); the uniforms are one block; the
  dispatch is a tile per 16 x 16 pixels, rounded up. Which slot each light takes hangs
  on the order of the atomics: the buffer is declared ``unordered`` in rows of 1024, a
  tile a row, with -2 (what the buffer held) as the sentinel after each list, so a
  list must hold the reference's lights and its -1 in its first slots.
- bevyengine/bevy at 08b49e29 (MIT or Apache-2.0),
  ``crates/bevy_pbr/src/render/build_indirect_params.wgsl``, ``main``, with the
  structs of ``mesh_preprocess_types.wgsl`` at the matching revision: the indirect draw
  arguments of the non-indexed meshes (``IndirectParametersNonIndexed``:
  ``vertex_count, instance_count, base_vertex, first_instance``) in the main phase
  (``instance_count = early + late``), as the shader is specialised where
  ``multi_draw_indirect_count`` is supported (``MULTI_DRAW_INDIRECT_COUNT_SUPPORTED``):
  a batch in a batch set reserves its slot with ``atomicAdd`` on the set's
  ``indirect_parameters_count`` from the set's ``indirect_parameters_base``, and one
  with no instances returns before it; a batch in no set (``0xffffffff``) keeps its own
  slot. Workgroups of 64 over ``last_batch_index - first_batch_index``. The draws are
  ours: batch sets of contiguous batches whose base is their first batch (as the CPU
  lays them out), a fifth of the batches empty, some batches in no set; the
  arguments' buffer is cleared to 0xFFFFFFFF first, so the slots a set leaves at its
  end are seen. Which slot of its set a batch takes hangs on the atomics: the
  arguments are declared ``unordered`` with rows of four (one draw each), a multiset of
  whole draws; the sets' counts are judged exactly.
- bevyengine/bevy at 15140a7d (MIT or Apache-2.0),
  ``crates/bevy_pbr/src/meshlet/downsample_depth.wgsl``, ``downsample_depth_first``:
  the depth pyramid for occlusion culling in one pass after AMD FidelityFX SPD, a
  workgroup of 256 a 64 x 64 tile of the depth buffer, mips 1 to 6 (``max_mip_level``
  a push constant, 6 here), ``intermediate_memory: array<array<f32, 16>, 16>`` and a
  barrier before each level, ``remap_for_wave_reduction`` through ``insertBits`` and
  ``extractBits``, the conservative ``min`` of reverse-Z. Adaptations: the depth
  buffer is an r32float ``texture_2d<f32>`` read through ``textureGather(0, ...)``
  (its first component) with a nearest, clamp-to-edge sampler, where Bevy gathers a
  ``texture_depth_2d``; only the first pass is kept (the second, mips 7 to 12 from
  ``mip_6``, reads back what this one wrote), so ``mip_6`` stays ``read_write`` as
  Bevy binds it; and the gather's coordinate is the corner the 2 x 2 block shares,
  ``(tex + 1) / size`` as SPD's own sampled load takes it, where Bevy gathers at
  ``(tex + 0.5) / size``, the centre of the block's first texel: there a gather's
  footprint changes, and which block it reads (from ``tex`` or from ``tex - 1``)
  hangs on how the coordinate rounds. Bevy's coordinate is a mutant: lavapipe reads
  the block one texel over on a non-power-of-two depth buffer (97 x 150); whether
  NVIDIA's fixed-point texel coordinates hide it is for the GPU run to say. The mip
  sizes are ours: each level half the last, rounded down, at least 1. WebGPU's
  default limits allow 4 storage textures a stage and no push constants (Bevy asks
  for more), so the browser reports it unsupported, saying why: it runs on wgpu only.

What they showed: tests/test_wild_round72.py. On the H100 (NVIDIA's Vulkan driver,
2026-12-07) every original passed; the two dropped barriers (the culling's before the
depth bounds are read, the pyramid's before mip 4's reads) and Bevy's gather
coordinate passed too, and are ``invisible_on`` NVIDIA: a scheduling that hides the
race, and texture units that snap the coordinate to the block Bevy means.
"""

# ruff: noqa: E501  (the WGSL keeps its sources' long lines)

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from forge import BufferSpec, KernelSpec, Sampler, SamplerSpec, Schedule, ceil_div

from . import RACE_HIDDEN, Wild

#: Why Bevy's gather coordinate passes on NVIDIA (``Wild.invisible_on``).
_GATHER_SNAPPED = (
    "NVIDIA's texture units take the gather's coordinate in fixed point (8 bits of a "
    "texel), and at the centre of the block's first texel they gather the block Bevy "
    "means, at 97 x 150 too (H100, 2026-12-07); lavapipe reads the block one texel over"
)

_F = np.float32

# -- 1. bcrusco's Forward+ light culling, a tile's lights against its depth bounds ---------

_FPLUS_WGSL = """// Forward+ tiled light culling as a WebGPU port of bcrusco's light_culling.comp.glsl.
struct PointLight {
    color: vec4<f32>,
    position: vec4<f32>,
    paddingAndRadius: vec4<f32>,
}

struct VisibleIndex {
    index: i32,
}

struct Uniforms {
    view: mat4x4<f32>,
    projection: mat4x4<f32>,
    screenSize: vec2<i32>,
    lightCount: i32,
}

@group(0) @binding(0) var<storage, read> lightBuffer: array<PointLight>;
@group(0) @binding(1) var<storage, read_write> visibleLightIndicesBuffer: array<VisibleIndex>;
@group(0) @binding(2) var depthMap: texture_2d<f32>;
@group(0) @binding(3) var<uniform> u: Uniforms;

const TILE_SIZE = 16u;
const MAX_LIGHTS_PER_TILE = 1024u;

// the tile's state, shared by its 256 invocations
var<workgroup> minDepthInt: atomic<u32>;
var<workgroup> maxDepthInt: atomic<u32>;
var<workgroup> visibleLightCount: atomic<u32>;
var<workgroup> frustumPlanes: array<vec4<f32>, 6>;
var<workgroup> visibleLightIndices: array<i32, 1024>;
var<workgroup> viewProjection: mat4x4<f32>;

@compute @workgroup_size(16, 16, 1)
fn main(
    @builtin(global_invocation_id) global_id: vec3<u32>,
    @builtin(workgroup_id) group_id: vec3<u32>,
    @builtin(num_workgroups) group_count: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    let location = vec2<i32>(global_id.xy);
    let tileID = vec2<i32>(group_id.xy);
    let tileNumber = vec2<i32>(group_count.xy);
    let index = u32(tileID.y * tileNumber.x + tileID.x);

    if (local_index == 0u) {
        atomicStore(&minDepthInt, 0xFFFFFFFFu);
        atomicStore(&maxDepthInt, 0u);
        atomicStore(&visibleLightCount, 0u);
        viewProjection = u.projection * u.view;
    }
    workgroupBarrier();

    // step 1: the tile's nearest and farthest linear depth, as the bits of positive floats
    let texel = min(location, u.screenSize - vec2<i32>(1, 1));
    var depth = textureLoad(depthMap, texel, 0).r;
    depth = (0.5 * u.projection[3][2]) / (depth + 0.5 * u.projection[2][2] - 0.5);
    let depthInt = bitcast<u32>(depth);
    atomicMin(&minDepthInt, depthInt);
    atomicMax(&maxDepthInt, depthInt);
    workgroupBarrier();

    // step 2: one invocation builds the tile's planes, inward, in world space
    if (local_index == 0u) {
        let minDepth = bitcast<f32>(atomicLoad(&minDepthInt));
        let maxDepth = bitcast<f32>(atomicLoad(&maxDepthInt));
        let negativeStep = (2.0 * vec2<f32>(tileID)) / vec2<f32>(tileNumber);
        let positiveStep = (2.0 * vec2<f32>(tileID + vec2<i32>(1, 1))) / vec2<f32>(tileNumber);

        frustumPlanes[0] = vec4<f32>(1.0, 0.0, 0.0, 1.0 - negativeStep.x);   // left
        frustumPlanes[1] = vec4<f32>(-1.0, 0.0, 0.0, -1.0 + positiveStep.x); // right
        frustumPlanes[2] = vec4<f32>(0.0, 1.0, 0.0, 1.0 - negativeStep.y);   // bottom
        frustumPlanes[3] = vec4<f32>(0.0, -1.0, 0.0, -1.0 + positiveStep.y); // top
        frustumPlanes[4] = vec4<f32>(0.0, 0.0, -1.0, -minDepth);             // near
        frustumPlanes[5] = vec4<f32>(0.0, 0.0, 1.0, maxDepth);               // far

        for (var i = 0u; i < 4u; i++) {
            frustumPlanes[i] = frustumPlanes[i] * viewProjection;
            frustumPlanes[i] = frustumPlanes[i] / length(frustumPlanes[i].xyz);
        }
        frustumPlanes[4] = frustumPlanes[4] * u.view;
        frustumPlanes[4] = frustumPlanes[4] / length(frustumPlanes[4].xyz);
        frustumPlanes[5] = frustumPlanes[5] * u.view;
        frustumPlanes[5] = frustumPlanes[5] / length(frustumPlanes[5].xyz);
    }
    workgroupBarrier();

    // step 3: the lights, 256 at a time, each against the six planes
    let threadCount = TILE_SIZE * TILE_SIZE;
    let lightCount = u32(u.lightCount);
    let passCount = (lightCount + threadCount - 1u) / threadCount;
    for (var i = 0u; i < passCount; i++) {
        let lightIndex = i * threadCount + local_index;
        if (lightIndex >= lightCount) {
            break;
        }
        let position = lightBuffer[lightIndex].position;
        let radius = lightBuffer[lightIndex].paddingAndRadius.w;

        var distance = 0.0;
        for (var j = 0u; j < 6u; j++) {
            distance = dot(position, frustumPlanes[j]) + radius;
            if (distance <= 0.0) {
                break;
            }
        }
        if (distance > 0.0) {
            let offset = atomicAdd(&visibleLightCount, 1u);
            visibleLightIndices[offset] = i32(lightIndex);
        }
    }
    workgroupBarrier();

    // one invocation writes the tile's list, ended by -1 where it is not full
    if (local_index == 0u) {
        let offset = index * MAX_LIGHTS_PER_TILE;
        let count = atomicLoad(&visibleLightCount);
        for (var i = 0u; i < count; i++) {
            visibleLightIndicesBuffer[offset + i].index = visibleLightIndices[i];
        }
        if (count != MAX_LIGHTS_PER_TILE) {
            visibleLightIndicesBuffer[offset + count].index = -1;
        }
    }
}
"""

_FPLUS_NEAR, _FPLUS_FAR = 0.5, 60.0
_FPLUS_MARGIN = 0.02  # no light's sphere within this of a plane that decides it


def _fplus_screen(size) -> tuple[int, int]:
    """The screen: TX x TY tiles of 16, the last column and row only partly on it."""
    return 16 * int(size.TX) - 7, 16 * int(size.TY) - 5


def _fplus_camera(size):
    """A GL camera: ``lookAt`` from (1, 3, 12) at (0, 0.5, -6), a 60 degree perspective
    at the screen's aspect, near 0.5 and far 60 (column-major, as GL reads them)."""
    w, h = _fplus_screen(size)
    eye, at, up = np.array([1.0, 3.0, 12.0]), np.array([0.0, 0.5, -6.0]), np.array([0, 1.0, 0])
    f = (at - eye) / np.linalg.norm(at - eye)
    s = np.cross(f, up)
    s /= np.linalg.norm(s)
    v = np.cross(s, f)
    view = np.eye(4)
    view[0, :3], view[1, :3], view[2, :3] = s, v, -f
    view[:3, 3] = -view[:3, :3] @ eye
    t = 1 / np.tan(np.radians(30))
    n, fa = _FPLUS_NEAR, _FPLUS_FAR
    proj = np.zeros((4, 4))
    proj[0, 0], proj[1, 1] = t / (w / h), t
    proj[2, 2], proj[2, 3] = -(fa + n) / (fa - n), -2 * fa * n / (fa - n)
    proj[3, 2] = -1
    return view.astype(_F).astype(np.float64), proj.astype(_F).astype(np.float64)


def _fplus_depth_values(size) -> np.ndarray:
    """The depth buffer, fixed at the size: window depths in [0, 1] of a scene whose
    tiles each lie in a band of linear depth (2 to 50), a pixel anywhere in its band."""
    w, h = _fplus_screen(size)
    rng = np.random.default_rng(7201 + w * 131 + h)
    tx, ty = int(size.TX), int(size.TY)
    lo = rng.uniform(2.0, 30.0, (ty, tx))
    hi = lo + rng.uniform(1.0, 20.0, (ty, tx))
    band_lo = np.repeat(np.repeat(lo, 16, 0), 16, 1)[:h, :w]
    band_hi = np.repeat(np.repeat(hi, 16, 0), 16, 1)[:h, :w]
    linear = rng.uniform(band_lo, band_hi)
    n, f = _FPLUS_NEAR, _FPLUS_FAR
    ndc = (f + n) / (f - n) - 2 * f * n / ((f - n) * linear)
    return ((ndc + 1) / 2).astype(_F)


def _fplus_depth(rng, count, size):
    return _fplus_depth_values(size).reshape(-1)[:count]


def _fplus_planes(size, depth: np.ndarray) -> np.ndarray:
    """Each tile's six inward planes, in float64, as the kernel builds them: (T, 6, 4)."""
    view, proj = _fplus_camera(size)
    w, h = _fplus_screen(size)
    tx, ty = int(size.TX), int(size.TY)
    linear = (0.5 * proj[2, 3]) / (depth.astype(np.float64) + 0.5 * proj[2, 2] - 0.5)
    yy = np.minimum(np.arange(ty * 16), h - 1)
    xx = np.minimum(np.arange(tx * 16), w - 1)
    tiles = linear[np.ix_(yy, xx)].reshape(ty, 16, tx, 16)
    lo, hi = tiles.min(axis=(1, 3)), tiles.max(axis=(1, 3))
    vp = proj @ view
    planes = np.zeros((ty * tx, 6, 4))
    for y in range(ty):
        for x in range(tx):
            neg = 2.0 * np.array([x, y]) / np.array([tx, ty])
            pos = 2.0 * np.array([x + 1, y + 1]) / np.array([tx, ty])
            p = np.array(
                [
                    [1, 0, 0, 1 - neg[0]],
                    [-1, 0, 0, -1 + pos[0]],
                    [0, 1, 0, 1 - neg[1]],
                    [0, -1, 0, -1 + pos[1]],
                    [0, 0, -1, -lo[y, x]],
                    [0, 0, 1, hi[y, x]],
                ],
                np.float64,
            )
            # a row vector times the matrix: the plane in the space the matrix maps from
            p[:4] = p[:4] @ vp
            p[4:] = p[4:] @ view
            planes[y * tx + x] = p / np.linalg.norm(p[:, :3], axis=1, keepdims=True)
    return planes


_POINT_LIGHT = (
    ("color", "vec4<f32>"),
    ("position", "vec4<f32>"),
    ("paddingAndRadius", "vec4<f32>"),
)


def _fplus_lights(rng, count, size):
    """Point lights in the camera's view (world space, w = 1), radii 0.3 to 3: each
    redrawn while its sphere lies within ``_FPLUS_MARGIN`` of a plane of some tile, so
    that no float32 rounding of the planes decides whether a tile sees it."""
    view, _ = _fplus_camera(size)
    planes = _fplus_planes(size, _fplus_depth_values(size)).reshape(-1, 4)
    world_from_view = np.linalg.inv(view)
    w, h = _fplus_screen(size)
    out = np.zeros(
        count, [("color", _F, (4,)), ("position", _F, (4,)), ("paddingAndRadius", _F, (4,))]
    )
    for k in range(count):
        while True:
            dist = rng.uniform(1.0, 55.0)
            x, y = rng.uniform(-1.2, 1.2, 2) * dist * np.tan(np.radians(30)) * np.array([w / h, 1])
            p = world_from_view @ np.array([x, y, -dist, 1.0])
            position = np.array([*p[:3], 1.0], _F)
            radius = _F(rng.uniform(0.3, 3.0))
            d = planes @ position.astype(np.float64) + float(radius)
            if np.abs(d).min() > _FPLUS_MARGIN:
                break
        out["position"][k] = position
        out["paddingAndRadius"][k, 3] = radius
        out["color"][k] = (*rng.uniform(0, 1, 3), 1.0)
    return out


def _fplus_reference(lightBuffer, depthMap, u, TX, TY):
    size = SimpleNamespace(TX=int(TX), TY=int(TY))
    count = int(u["lightCount"])
    planes = _fplus_planes(size, np.asarray(depthMap, np.float64))
    position = lightBuffer["position"].astype(np.float64)[:count]
    radius = lightBuffer["paddingAndRadius"][:count, 3].astype(np.float64)
    seen = np.all(np.einsum("tpc,lc->tlp", planes, position) + radius[None, :, None] > 0, axis=2)
    out = np.full((len(planes), 1024), -2, np.int32)
    for t, row in enumerate(seen):
        lights = np.flatnonzero(row)
        out[t, : len(lights)] = lights
        if len(lights) != 1024:
            out[t, len(lights)] = -1
    return {"visibleLightIndicesBuffer": out}


def _fplus_params(size):
    view, proj = _fplus_camera(size)
    return {
        "view": view.T.astype(_F),  # columns first, as WGSL's mat4x4 lies in memory
        "projection": proj.T.astype(_F),
        "screenSize": np.array(_fplus_screen(size), np.int32),
        "lightCount": int(size.L),
    }


FORWARD_PLUS_CULL = Wild(
    KernelSpec(
        id="wild_r72_forward_plus_tile_light_culling_webgpu_port",
        entry_point="main",
        sources={"wgsl": _FPLUS_WGSL},
        dims=("TX", "TY", "L"),
        buffers=(
            BufferSpec(0, _POINT_LIGHT, "read", name="lightBuffer", count="L", fill=_fplus_lights),
            BufferSpec(
                1,
                "i32",
                "read_write",
                name="visibleLightIndicesBuffer",
                count="TX*TY*1024",
                shape=("TX*TY", 1024),
                initial=-2,
                unordered=True,
            ),
            BufferSpec(
                2,
                access="read",
                name="depthMap",
                texture="r32float",
                shape=("16*TY-5", "16*TX-7"),
                fill=_fplus_depth,
            ),
            BufferSpec.uniform(
                3,
                (
                    ("view", "mat4x4<f32>"),
                    ("projection", "mat4x4<f32>"),
                    ("screenSize", "vec2<i32>"),
                    ("lightCount", "i32"),
                ),
                name="u",
            ),
        ),
        reference=_fplus_reference,
        params=_fplus_params,
        grid=lambda s, size: (int(size.TX), int(size.TY), 1),
        schedules=(Schedule((16, 16)),),
        nonfinite_inputs=False,
        # 5 x 3 tiles of a 73 x 43 screen, 300 lights (two passes of 256); 2 x 2, 40
        test_sizes=("5x3x300", "2x2x40"),
    ),
    {
        "the bottom and top planes' signs flipped": (
            "wgsl",
            "frustumPlanes[2] = vec4<f32>(0.0, 1.0, 0.0, 1.0 - negativeStep.y);   // bottom\n"
            "        frustumPlanes[3] = vec4<f32>(0.0, -1.0, 0.0, -1.0 + positiveStep.y); // top",
            "frustumPlanes[2] = vec4<f32>(0.0, -1.0, 0.0, 1.0 - negativeStep.y);   // bottom\n"
            "        frustumPlanes[3] = vec4<f32>(0.0, 1.0, 0.0, -1.0 + positiveStep.y); // top",
        ),
        "the append skips the counter's old value": (
            "wgsl",
            "visibleLightIndices[offset] = i32(lightIndex);",
            "visibleLightIndices[offset + 1u] = i32(lightIndex);",
        ),
        "the depth bounds read before every pixel is folded in": (
            "wgsl",
            "    atomicMax(&maxDepthInt, depthInt);\n    workgroupBarrier();\n",
            "    atomicMax(&maxDepthInt, depthInt);\n",
        ),
        "the near plane at the far bound": (
            "wgsl",
            "frustumPlanes[4] = vec4<f32>(0.0, 0.0, -1.0, -minDepth);",
            "frustumPlanes[4] = vec4<f32>(0.0, 0.0, -1.0, -maxDepth);",
        ),
    },
    invisible_on={
        ("the depth bounds read before every pixel is folded in", "wgsl", "NVIDIA"): RACE_HIDDEN,
    },
)


# -- 2. Bevy: the indirect draw arguments of a batch, a slot reserved in its batch set -----

_BEVY_INDIRECT_WGSL = """// Bevy's build_indirect_params.wgsl, non-indexed meshes, the main phase, as it is
// specialised where multi_draw_indirect_count is supported.
struct MeshInput {
    world_from_local: mat3x4<f32>,
    lightmap_uv_rect: vec2<u32>,
    flags: u32,
    previous_input_index: u32,
    first_vertex_index: u32,
    first_index_index: u32,
    index_count: u32,
    current_skin_index: u32,
    material_and_lightmap_bind_group_slot: u32,
    timestamp: u32,
    tag: u32,
    morph_descriptor_index: u32,
}

struct IndirectParametersNonIndexed {
    vertex_count: u32,
    instance_count: u32,
    base_vertex: u32,
    first_instance: u32,
}

struct IndirectParametersMetadata {
    base_output_index: u32,
    batch_set_index: u32,
    mesh_index: u32,
    early_instance_count: u32,
    late_instance_count: u32,
}

struct IndirectBatchSet {
    indirect_parameters_count: atomic<u32>,
    indirect_parameters_base: u32,
}

// the batches [first, last) this dispatch builds
struct IndirectParametersBuildJob {
    first_batch_index: u32,
    last_batch_index: u32,
    pad_a: u32,
    pad_b: u32,
    pad_c: vec4<u32>,
    pad_d: vec4<u32>,
    pad_e: vec4<u32>,
}

@group(0) @binding(0) var<storage> current_input: array<MeshInput>;
@group(0) @binding(1) var<storage> indirect_parameters_metadata: array<IndirectParametersMetadata>;
@group(0) @binding(3) var<storage, read_write> indirect_batch_sets: array<IndirectBatchSet>;
@group(0) @binding(4) var<uniform> indirect_parameters_build_job: IndirectParametersBuildJob;
@group(0) @binding(5) var<storage, read_write> indirect_parameters: array<IndirectParametersNonIndexed>;

@compute
@workgroup_size(64)
fn main(@builtin(global_invocation_id) global_invocation_id: vec3<u32>) {
    // an invocation a batch
    let instance_index = global_invocation_id.x + indirect_parameters_build_job.first_batch_index;
    if (instance_index >= indirect_parameters_build_job.last_batch_index) {
        return;
    }

    let base_output_index = indirect_parameters_metadata[instance_index].base_output_index;
    let batch_set_index = indirect_parameters_metadata[instance_index].batch_set_index;
    let mesh_index = indirect_parameters_metadata[instance_index].mesh_index;
    let early_instance_count = indirect_parameters_metadata[instance_index].early_instance_count;
    let late_instance_count = indirect_parameters_metadata[instance_index].late_instance_count;

    // the main phase draws the instances of both
    let instance_count = early_instance_count + late_instance_count;

    // a batch in no set keeps its own slot; one in a set takes the set's next one, and
    // an empty one none (multi_draw_indirect_count draws only the set's count)
    var indirect_parameters_index = instance_index;
    if (batch_set_index != 0xffffffffu) {
        if (instance_count == 0u) {
            return;
        }
        let indirect_parameters_base = indirect_batch_sets[batch_set_index].indirect_parameters_base;
        let indirect_parameters_offset = atomicAdd(&indirect_batch_sets[batch_set_index].indirect_parameters_count, 1u);
        indirect_parameters_index = indirect_parameters_base + indirect_parameters_offset;
    }

    indirect_parameters[indirect_parameters_index].instance_count = instance_count;
    indirect_parameters[indirect_parameters_index].first_instance = base_output_index;
    indirect_parameters[indirect_parameters_index].base_vertex = current_input[mesh_index].first_vertex_index;
    indirect_parameters[indirect_parameters_index].vertex_count = current_input[mesh_index].index_count;
}
"""

_MESH_INPUT = (
    ("world_from_local", "mat3x4<f32>"),
    ("lightmap_uv_rect", "vec2<u32>"),
    ("flags", "u32"),
    ("previous_input_index", "u32"),
    ("first_vertex_index", "u32"),
    ("first_index_index", "u32"),
    ("index_count", "u32"),
    ("current_skin_index", "u32"),
    ("material_and_lightmap_bind_group_slot", "u32"),
    ("timestamp", "u32"),
    ("tag", "u32"),
    ("morph_descriptor_index", "u32"),
)
_METADATA = (
    ("base_output_index", "u32"),
    ("batch_set_index", "u32"),
    ("mesh_index", "u32"),
    ("early_instance_count", "u32"),
    ("late_instance_count", "u32"),
)
_BATCH_SET = (("indirect_parameters_count", "u32"), ("indirect_parameters_base", "u32"))
_NO_SET = 0xFFFFFFFF


def _bevy_layout(size):
    """The batches as the CPU lays them out, fixed at the size: runs of 1 to 12
    contiguous batches form the sets (each set's base is its first batch), and some
    batches between them are in no set. Returns each batch's set (or ``_NO_SET``) and
    each set's base."""
    rng = np.random.default_rng(7202 + int(size.B))
    batch_set = np.full(int(size.B), _NO_SET, np.uint32)
    bases, at = [], 0
    while at < int(size.B):
        if rng.random() < 0.2:
            at += 1  # a batch in no set
            continue
        run = min(int(rng.integers(1, 13)), int(size.B) - at)
        batch_set[at : at + run] = len(bases)
        bases.append(at)
        at += run
    return batch_set, np.array(bases or [0], np.uint32)


def _bevy_mesh_inputs(rng, count, size):
    dtype = np.dtype(
        {
            "names": [n for n, _ in _MESH_INPUT],
            "formats": [("<f4", (3, 4)), ("<u4", (2,))] + ["<u4"] * 10,
            "offsets": [0, 48] + [56 + 4 * k for k in range(10)],
            "itemsize": 96,
        }
    )
    out = np.zeros(count, dtype)
    out["world_from_local"] = rng.normal(size=(count, 3, 4))
    for name, _ in _MESH_INPUT[2:]:
        out[name] = rng.integers(0, 1 << 20, count)
    return out


def _bevy_metadata(rng, count, size):
    batch_set, _ = _bevy_layout(size)
    out = np.zeros(count, [(n, np.uint32) for n, _ in _METADATA])
    out["base_output_index"] = rng.integers(0, 1 << 16, count)
    out["batch_set_index"] = batch_set[:count]
    out["mesh_index"] = rng.integers(0, int(size.M), count)
    empty = rng.random(count) < 0.2  # no instance visible: an empty draw
    out["early_instance_count"] = np.where(empty, 0, rng.integers(0, 50, count))
    out["late_instance_count"] = np.where(empty, 0, rng.integers(1, 50, count))
    return out


def _bevy_batch_sets(rng, count, size):
    _, bases = _bevy_layout(size)
    out = np.zeros(count, [(n, np.uint32) for n, _ in _BATCH_SET])
    out["indirect_parameters_base"] = bases[:count]
    return out  # the counts cleared, as the CPU clears them each frame


def _bevy_indirect_reference(
    current_input, indirect_parameters_metadata, indirect_batch_sets, job, indirect_parameters
):
    sets = indirect_batch_sets.copy()
    out = np.array(indirect_parameters, np.uint32).reshape(-1, 4).copy()
    meta = indirect_parameters_metadata
    for b in range(int(job["first_batch_index"]), int(job["last_batch_index"])):
        count = int(meta["early_instance_count"][b]) + int(meta["late_instance_count"][b])
        slot, s = b, int(meta["batch_set_index"][b])
        if s != _NO_SET:
            if count == 0:
                continue
            slot = int(sets["indirect_parameters_base"][s] + sets["indirect_parameters_count"][s])
            sets["indirect_parameters_count"][s] += 1
        mesh = current_input[int(meta["mesh_index"][b])]
        out[slot] = (
            mesh["index_count"],
            count,
            mesh["first_vertex_index"],
            meta["base_output_index"][b],
        )
    return {"indirect_batch_sets": sets, "indirect_parameters": out}


BEVY_INDIRECT_PARAMS = Wild(
    KernelSpec(
        id="wild_r72_bevy_build_indirect_params_multidraw_count",
        entry_point="main",
        sources={"wgsl": _BEVY_INDIRECT_WGSL},
        dims=("B", "M"),
        buffers=(
            BufferSpec(
                0, _MESH_INPUT, "read", name="current_input", count="M", fill=_bevy_mesh_inputs
            ),
            BufferSpec(
                1,
                _METADATA,
                "read",
                name="indirect_parameters_metadata",
                count="B",
                fill=_bevy_metadata,
            ),
            BufferSpec(
                3,
                _BATCH_SET,
                "read_write",
                name="indirect_batch_sets",
                count=lambda size: len(_bevy_layout(size)[1]),
                fill=_bevy_batch_sets,
                inout=True,
            ),
            BufferSpec.uniform(
                4,
                (
                    ("first_batch_index", "u32"),
                    ("last_batch_index", "u32"),
                    ("pad_a", "u32"),
                    ("pad_b", "u32"),
                    ("pad_c", "vec4<u32>"),
                    ("pad_d", "vec4<u32>"),
                    ("pad_e", "vec4<u32>"),
                ),
                name="job",
            ),
            BufferSpec(
                5,
                "u32",
                "read_write",
                name="indirect_parameters",
                count="B*4",
                shape=("B", 4),
                initial=0xFFFFFFFF,
                unordered=True,
            ),
        ),
        reference=_bevy_indirect_reference,
        params=lambda size: {"first_batch_index": 0, "last_batch_index": int(size.B)},
        defaults={
            "pad_a": 0,
            "pad_b": 0,
            "pad_c": np.zeros(4, np.uint32),
            "pad_d": np.zeros(4, np.uint32),
            "pad_e": np.zeros(4, np.uint32),
        },
        grid=lambda s, size: (ceil_div(int(size.B), 64), 1, 1),
        schedules=(Schedule(64),),
        nonfinite_inputs=False,
        # 301 batches over 40 meshes (five workgroups, the last partly idle); 7 over 3
        test_sizes=("301x40", "7x3"),
    ),
    {
        "the append skips the counter's old value": (
            "wgsl",
            "indirect_parameters_index = indirect_parameters_base + indirect_parameters_offset;",
            "indirect_parameters_index = indirect_parameters_base + indirect_parameters_offset + 1u;",
        ),
        "an empty batch in a set still takes a slot": (
            "wgsl",
            "        if (instance_count == 0u) {\n            return;\n        }\n",
            "",
        ),
        "the late phase's count alone": (
            "wgsl",
            "let instance_count = early_instance_count + late_instance_count;",
            "let instance_count = late_instance_count;",
        ),
        "base_vertex and first_instance in wgpu's other order": (
            "wgsl",
            "    base_vertex: u32,\n    first_instance: u32,\n}",
            "    first_instance: u32,\n    base_vertex: u32,\n}",
        ),
    },
)


# -- 3. Bevy: the depth pyramid's first pass, SPD in workgroup memory --------------------

_BEVY_DOWNSAMPLE_WGSL = """// Bevy's downsample_depth.wgsl, its first pass: mips 1 to 6 of a 64 x 64 tile a
// workgroup, after FidelityFX SPD.
@group(0) @binding(0) var mip_0: texture_2d<f32>;
@group(0) @binding(1) var mip_1: texture_storage_2d<r32float, write>;
@group(0) @binding(2) var mip_2: texture_storage_2d<r32float, write>;
@group(0) @binding(3) var mip_3: texture_storage_2d<r32float, write>;
@group(0) @binding(4) var mip_4: texture_storage_2d<r32float, write>;
@group(0) @binding(5) var mip_5: texture_storage_2d<r32float, write>;
@group(0) @binding(6) var mip_6: texture_storage_2d<r32float, read_write>;
@group(0) @binding(13) var samplr: sampler;
var<push_constant> max_mip_level: u32;

var<workgroup> intermediate_memory: array<array<f32, 16>, 16>;

@compute
@workgroup_size(256, 1, 1)
fn downsample_depth_first(
    @builtin(num_workgroups) num_workgroups: vec3u,
    @builtin(workgroup_id) workgroup_id: vec3u,
    @builtin(local_invocation_index) local_invocation_index: u32,
) {
    // four 8 x 8 quadrants of invocations, each in the order a wave reduces in
    let sub_xy = remap_for_wave_reduction(local_invocation_index % 64u);
    let x = sub_xy.x + 8u * ((local_invocation_index >> 6u) % 2u);
    let y = sub_xy.y + 8u * (local_invocation_index >> 7u);

    downsample_mips_0_and_1(x, y, workgroup_id.xy, local_invocation_index);

    downsample_mips_2_to_5(x, y, workgroup_id.xy, local_invocation_index);
}

// each invocation reduces four 2 x 2 blocks of mip 0 into mip 1 (one in each 32 x 32
// quadrant of the tile), then the 64 first fold those into mip 2, quadrant by quadrant
fn downsample_mips_0_and_1(x: u32, y: u32, workgroup_id: vec2u, local_invocation_index: u32) {
    var v: vec4f;

    var tex = vec2(workgroup_id * 64u) + vec2(x * 2u, y * 2u);
    var pix = vec2(workgroup_id * 32u) + vec2(x, y);
    v[0] = reduce_load_mip_0(tex);
    textureStore(mip_1, pix, vec4(v[0]));

    tex = vec2(workgroup_id * 64u) + vec2(x * 2u + 32u, y * 2u);
    pix = vec2(workgroup_id * 32u) + vec2(x + 16u, y);
    v[1] = reduce_load_mip_0(tex);
    textureStore(mip_1, pix, vec4(v[1]));

    tex = vec2(workgroup_id * 64u) + vec2(x * 2u, y * 2u + 32u);
    pix = vec2(workgroup_id * 32u) + vec2(x, y + 16u);
    v[2] = reduce_load_mip_0(tex);
    textureStore(mip_1, pix, vec4(v[2]));

    tex = vec2(workgroup_id * 64u) + vec2(x * 2u + 32u, y * 2u + 32u);
    pix = vec2(workgroup_id * 32u) + vec2(x + 16u, y + 16u);
    v[3] = reduce_load_mip_0(tex);
    textureStore(mip_1, pix, vec4(v[3]));

    if max_mip_level <= 1u { return; }

    for (var i = 0u; i < 4u; i++) {
        intermediate_memory[x][y] = v[i];
        workgroupBarrier();
        if local_invocation_index < 64u {
            v[i] = reduce_4(vec4(
                intermediate_memory[x * 2u + 0u][y * 2u + 0u],
                intermediate_memory[x * 2u + 1u][y * 2u + 0u],
                intermediate_memory[x * 2u + 0u][y * 2u + 1u],
                intermediate_memory[x * 2u + 1u][y * 2u + 1u],
            ));
            pix = (workgroup_id * 16u) + vec2(
                x + (i % 2u) * 8u,
                y + (i / 2u) * 8u,
            );
            textureStore(mip_2, pix, vec4(v[i]));
        }
        workgroupBarrier();
    }

    if local_invocation_index < 64u {
        intermediate_memory[x + 0u][y + 0u] = v[0];
        intermediate_memory[x + 8u][y + 0u] = v[1];
        intermediate_memory[x + 0u][y + 8u] = v[2];
        intermediate_memory[x + 8u][y + 8u] = v[3];
    }
}

fn downsample_mips_2_to_5(x: u32, y: u32, workgroup_id: vec2u, local_invocation_index: u32) {
    if max_mip_level <= 2u { return; }
    workgroupBarrier();
    downsample_mip_2(x, y, workgroup_id, local_invocation_index);

    if max_mip_level <= 3u { return; }
    workgroupBarrier();
    downsample_mip_3(x, y, workgroup_id, local_invocation_index);

    if max_mip_level <= 4u { return; }
    workgroupBarrier();
    downsample_mip_4(x, y, workgroup_id, local_invocation_index);

    if max_mip_level <= 5u { return; }
    workgroupBarrier();
    downsample_mip_5(workgroup_id, local_invocation_index);
}

// each level's results go back into the shared array, spread so that the next level's
// reads land apart
fn downsample_mip_2(x: u32, y: u32, workgroup_id: vec2u, local_invocation_index: u32) {
    if local_invocation_index < 64u {
        let v = reduce_4(vec4(
            intermediate_memory[x * 2u + 0u][y * 2u + 0u],
            intermediate_memory[x * 2u + 1u][y * 2u + 0u],
            intermediate_memory[x * 2u + 0u][y * 2u + 1u],
            intermediate_memory[x * 2u + 1u][y * 2u + 1u],
        ));
        textureStore(mip_3, (workgroup_id * 8u) + vec2(x, y), vec4(v));
        intermediate_memory[x * 2u + y % 2u][y * 2u] = v;
    }
}

fn downsample_mip_3(x: u32, y: u32, workgroup_id: vec2u, local_invocation_index: u32) {
    if local_invocation_index < 16u {
        let v = reduce_4(vec4(
            intermediate_memory[x * 4u + 0u + 0u][y * 4u + 0u],
            intermediate_memory[x * 4u + 2u + 0u][y * 4u + 0u],
            intermediate_memory[x * 4u + 0u + 1u][y * 4u + 2u],
            intermediate_memory[x * 4u + 2u + 1u][y * 4u + 2u],
        ));
        textureStore(mip_4, (workgroup_id * 4u) + vec2(x, y), vec4(v));
        intermediate_memory[x * 4u + y][y * 4u] = v;
    }
}

fn downsample_mip_4(x: u32, y: u32, workgroup_id: vec2u, local_invocation_index: u32) {
    if local_invocation_index < 4u {
        let v = reduce_4(vec4(
            intermediate_memory[x * 8u + 0u + 0u + y * 2u][y * 8u + 0u],
            intermediate_memory[x * 8u + 4u + 0u + y * 2u][y * 8u + 0u],
            intermediate_memory[x * 8u + 0u + 1u + y * 2u][y * 8u + 4u],
            intermediate_memory[x * 8u + 4u + 1u + y * 2u][y * 8u + 4u],
        ));
        textureStore(mip_5, (workgroup_id * 2u) + vec2(x, y), vec4(v));
        intermediate_memory[x + y * 2u][0u] = v;
    }
}

fn downsample_mip_5(workgroup_id: vec2u, local_invocation_index: u32) {
    if local_invocation_index < 1u {
        let v = reduce_4(vec4(
            intermediate_memory[0u][0u],
            intermediate_memory[1u][0u],
            intermediate_memory[2u][0u],
            intermediate_memory[3u][0u],
        ));
        textureStore(mip_6, workgroup_id, vec4(v));
    }
}

fn remap_for_wave_reduction(a: u32) -> vec2u {
    return vec2(
        insertBits(extractBits(a, 2u, 3u), a, 0u, 1u),
        insertBits(extractBits(a, 3u, 3u), extractBits(a, 1u, 2u), 0u, 2u),
    );
}

// the 2 x 2 texels from tex, gathered at the corner they share (clamped at the edge)
fn reduce_load_mip_0(tex: vec2u) -> f32 {
    let uv = (vec2f(tex) + 1.0) / vec2f(textureDimensions(mip_0));
    return reduce_4(textureGather(0, mip_0, samplr, uv));
}

// reverse-Z: the farthest depth is the least, and occlusion tests against it
fn reduce_4(v: vec4f) -> f32 {
    return min(min(v.x, v.y), min(v.z, v.w));
}
"""

_NEAREST = Sampler(filter="nearest", address="clamp")


def _mip_extent(size, level: int) -> tuple[int, int]:
    """Mip ``level``'s (height, width): each level half the last, rounded down, at least 1."""
    return max(1, int(size.H) >> level), max(1, int(size.W) >> level)


def _reverse_z_depth(rng, count, size):
    """A reverse-Z depth buffer in (0, 1]: 1 at the near plane, towards 0 far away, in
    patches of a scene (a few depths each, a quarter of the pixels a farther
    background), so that each 2 x 2 block's minimum is often one pixel of four."""
    h, w = int(size.H), int(size.W)
    patches = rng.uniform(0.02, 1.0, (h // 7 + 1, w // 5 + 1))
    depth = np.repeat(np.repeat(patches, 7, 0), 5, 1)[:h, :w]
    depth = depth * rng.uniform(0.9, 1.0, (h, w))
    depth = np.where(rng.random((h, w)) < 0.25, rng.uniform(0.001, 0.05, (h, w)), depth)
    return depth.astype(_F).reshape(-1)[:count]


def _downsample_reference(mip_0, W, H):
    """Each level the 2 x 2 minimum of the one before, as every workgroup computes it
    over its whole 64 x 64 tile: mip 0 read with its edge texels repeated past the edge
    (the clamping sampler), each level's values past its texture's extent still
    computed (and reduced into the next) though never stored."""
    size = SimpleNamespace(W=int(W), H=int(H))
    h, w = mip_0.shape
    tiles_y, tiles_x = ceil_div(h, 64), ceil_div(w, 64)
    level = np.pad(mip_0, ((0, tiles_y * 64 - h + 1), (0, tiles_x * 64 - w + 1)), mode="edge")
    level = level[: tiles_y * 64, : tiles_x * 64]
    out = {}
    for k in range(1, 7):
        level = np.minimum(
            np.minimum(level[0::2, 0::2], level[0::2, 1::2]),
            np.minimum(level[1::2, 0::2], level[1::2, 1::2]),
        )
        eh, ew = _mip_extent(size, k)
        out[f"mip_{k}"] = level[:eh, :ew].copy()
    return out


def _mip(binding: int, level: int, access: str = "read_write") -> BufferSpec:
    return BufferSpec(
        binding,
        access=access,
        name=f"mip_{level}",
        texture="r32float",
        shape=(f"max(1, H // {2**level})", f"max(1, W // {2**level})"),
    )


BEVY_DOWNSAMPLE_DEPTH = Wild(
    KernelSpec(
        id="wild_r72_bevy_downsample_depth_spd_first_pass",
        entry_point="downsample_depth_first",
        sources={"wgsl": _BEVY_DOWNSAMPLE_WGSL},
        dims=("H", "W"),
        buffers=(
            BufferSpec(
                0,
                access="read",
                name="mip_0",
                texture="r32float",
                shape=("H", "W"),
                fill=_reverse_z_depth,
            ),
            *(_mip(k, k) for k in range(1, 7)),
            # the push constant, bound as the kernel's uniform block
            BufferSpec.uniform(14, (("max_mip_level", "u32"),), name="push"),
        ),
        samplers=(SamplerSpec(13, _NEAREST, name="samplr"),),
        reference=_downsample_reference,
        defaults={"max_mip_level": 6},
        grid=lambda s, size: (ceil_div(int(size.W), 64), ceil_div(int(size.H), 64), 1),
        schedules=(Schedule(256),),
        nonfinite_inputs=False,
        # 97 x 150: 3 x 2 workgroups, odd edges clamped; one whole tile
        test_sizes=("97x150", "64x64"),
    ),
    {
        # Bevy's coordinate as written: the centre of texel tex, where the footprint of
        # a gather changes (the 2 x 2 block from tex, or from tex - 1, as the rounding
        # of (tex + 0.5) / size * size - 0.5 falls)
        "the gather at the first texel's centre, as Bevy writes it": (
            "wgsl",
            "let uv = (vec2f(tex) + 1.0) / vec2f(textureDimensions(mip_0));",
            "let uv = (vec2f(tex) + 0.5) / vec2f(textureDimensions(mip_0));",
        ),
        "forward-Z's max where reverse-Z needs the min": (
            "wgsl",
            "return min(min(v.x, v.y), min(v.z, v.w));",
            "return max(max(v.x, v.y), max(v.z, v.w));",
        ),
        "the barrier before mip 4's reads dropped": (
            "wgsl",
            "    if max_mip_level <= 3u { return; }\n    workgroupBarrier();\n",
            "    if max_mip_level <= 3u { return; }\n",
        ),
        "mip 1's right quadrants read from the tile's middle": (
            "wgsl",
            "tex = vec2(workgroup_id * 64u) + vec2(x * 2u + 32u, y * 2u);",
            "tex = vec2(workgroup_id * 64u) + vec2(x * 2u + 16u, y * 2u);",
        ),
        "mip 2's results stored back without the spread": (
            "wgsl",
            "intermediate_memory[x * 2u + y % 2u][y * 2u] = v;",
            "intermediate_memory[x * 2u][y * 2u] = v;",
        ),
    },
    invisible_on={
        ("the barrier before mip 4's reads dropped", "wgsl", "NVIDIA"): RACE_HIDDEN,
        (
            "the gather at the first texel's centre, as Bevy writes it",
            "wgsl",
            "NVIDIA",
        ): _GATHER_SNAPPED,
    },
)


ROUND72 = {w.kernel.id: w for w in (FORWARD_PLUS_CULL, BEVY_INDIRECT_PARAMS, BEVY_DOWNSAMPLE_DEPTH)}

"""Round 73 of kernels from the wild, merged into ``tests.wild.CORPUS``: neural graphics,
as NeRF, Gaussian splatting and neural-field code publishes its CUDA: a ray's samples
alpha-composited until its transmittance is spent, a tile of pixels blending its
depth-sorted splats through shared-memory batches, and the multiresolution hash
encoding in half precision. Each CUDA kernel is written for this corpus after the
public file named below: read, not copied (the project's rule for public code). What
is theirs is kept: the ``__global__`` functions' names, template parameters and
parameters (names, types, order), the block sizes and launches their hosts make, the
shared memory and its barriers, the idioms (pointers advanced a sample at a time,
``__expf``, ``__syncthreads_count`` as the block's vote, cooperative groups'
``this_thread_block``, an aligned ``__half2`` load and ``__hfma2``) and the numerics
(every threshold: T < 1e-4 after the sample, alpha at most 0.99 and at least 1/255,
``test_T < 0.0001`` before the blend; ``fmaf(scale, x, 0.5)``, the weights' products in
dimension order, the primes and the u32 wrap). What is ours: the comments, the
formatting, an explicit template instantiation a file, the WebGPU ports (each says what
it changes) and the scenes the inputs draw.

- ashawkey/torch-ngp at dd2add6e (MIT), ``raymarching/src/raymarching.cu``:
  ``kernel_composite_rays_train_forward<float>(sigmas, rgbs, deltas, rays, M, N,
  weights_sum, depth, image)``, ``N_THREAD = 128`` a block over the rays. ``rays``
  holds (index, offset, num_steps) in the order ``kernel_march_rays_train``'s threads
  took its two atomic counters, so the offsets pack the rays in a random order and the
  indices are a permutation; a ray with no steps, or whose samples pass the budget
  ``M`` (``offset + num_steps >= M``: the marcher did not store them), is written as
  zeros. The draws are ours, after the marcher: a tenth of the rays empty, the steps
  scaled so the last rays pass the budget, one ray ending exactly on it; densities
  from near zero to ~650, ``dt`` between the marcher's ``dt_min`` and ``dt_max``, the
  marched distance ``deltas[1]`` at least ``dt`` (a fifth of the samples after skipped
  space); no ray's transmittance within 3 % of the stop at 1e-4, where a rounding (the
  GPU's ``__expf``, WGSL's ``exp``) would decide whether a sample counts. The port: a
  workgroup of 128, the pointers as indices, ``M`` and ``N`` in a uniform block.
- graphdeco-inria/diff-gaussian-rasterization (the Gaussian-Splatting License, Inria and
  MPII: non-commercial research use; read only), ``cuda_rasterizer/forward.cu``:
  ``renderCUDA<NUM_CHANNELS>`` with ``config.h``'s ``BLOCK_X = BLOCK_Y = 16``, as it
  stood before the inverse-depth output was added (its parameters end at
  ``out_color``; read at 077706fe, where ``depths`` and ``invdepth`` follow, unused
  when null). A block a 16 x 16 tile, ``__syncthreads_count(done)`` at the top of each
  batch (the block's vote to stop, and the barrier before the batch is overwritten),
  256 splats staged in shared memory by one thread each, ``block.sync()``, then each
  pixel's front-to-back blend; ``final_T``, ``n_contrib`` (the last splat that
  blended, counted over every splat seen) and the planar ``out_color`` plus
  ``T * bg_color``. The inputs are what preprocessCUDA and the sort leave, drawn here:
  H * W / 3 splats over the image and up to 12 px past it, 2-D covariances of 0.7 to
  9 px at an angle with 0.3 px of blur, their conics, opacities from a sigmoid, every
  splat listed in each tile its 3-sigma square touches, sorted by tile then depth,
  ``ranges`` each tile's slice (about 200 to 320 a tile at 45 x 70: two batches).
  Opacities are nudged until no alpha at a pixel lies within 0.2 % of 1/255 and no
  blend within 0.2 % of T = 1e-4 (a rounding would move ``n_contrib`` there). The
  port: a workgroup of 16 x 16; ``__syncthreads_count`` as an ``atomicAdd`` of each
  vote, a barrier, invocation 0 taking the count with ``atomicExchange`` into a plain
  workgroup word and ``workgroupUniformLoad`` giving it to all (so the ``break`` stays
  uniform); ``bg_color`` a ``var<uniform>`` vec4 (WebGPU's default limit is 8 storage
  buffers a stage; the CUDA reads its first three floats).
- NVlabs/tiny-cuda-nn at 2ec562e8 (BSD 3-clause), ``include/tiny-cuda-nn/encodings/
  grid.h``'s ``kernel_grid`` and ``common_device.h``'s helpers (``grid_scale``,
  ``grid_resolution``, ``pos_fract``, ``grid_index``, ``coherent_prime_hash``),
  instantiated as GridEncodingTemplated does for ``__half`` parameters, 3 dimensions
  and 2 features a level (``PARAMS_ALIGNED``: one ``__half2`` a vertex), linear
  interpolation, the hash grid: a thread a point, ``blockIdx.y`` the level,
  ``N_THREADS_HASHGRID = 512``. ``GridOffsetTable`` (129 offsets and a size) and the
  two enums go by value as their bytes; ``max_level_gpu`` and ``dy_dx`` are null, as
  the host passes them for a forward pass without the input gradient. Adaptations: the
  templates' hash type is the default (Prime) and fixed; the positions are a plain
  ``const float*`` read ``[i * 3 + dim]`` where tcnn takes a ``MatrixView`` (the same
  layout); the corner loop's ``fma`` over ``tvec<__half, 2>`` is written as
  ``__hfma2``. The configuration is ours: 4 levels from 8 vertices, a scale of 2 a
  level, 2^12 entries a level (level 0 dense with its far corners wrapping, level 1
  dense and exactly full, 2 and 3 hashed); the parameters in +-1. The port needs
  ``shader-f16`` (``enable f16;``, ``vec2<f16>`` parameters, ``fma`` on them), with
  the offset table and the grid type baked in as constants, a workgroup of 256.
  SwiftShader has no f16: the browser reports it unsupported, naming the feature, and
  lavapipe judges it.

What they showed: tests/test_wild_round73.py (a false alarm at the rasteriser's 1/255
floor on a draw built for it, pinned; the entry's own draw keeps away from it).

For the GPU run to confirm: every original passes on the H100 (the compositing with
``__expf``, the rasteriser with ``__syncthreads_count``, the hash grid through
``__hfma2``, its offset table and enums passed as bytes, its two null pointers); every
CUDA mutant fails there (each has a WGSL twin that fails on lavapipe); the rasteriser's
dropped ``block.sync()`` fails or compute-sanitizer's racecheck reports it; the WGSL
ports pass on NVIDIA's Vulkan driver, the hash grid's with shader-f16, and the
rasteriser's dropped barrier fails there or is declared ``invisible_on``.
"""

# ruff: noqa: E501  (the CUDA and WGSL keep their sources' long lines)

from __future__ import annotations

import functools

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import Wild

_F = np.float32

# -- 1. torch-ngp: composite_rays_train_forward, a ray's samples alpha-composited ----------

_COMPOSITE_CUDA = r"""// kernel-forge corpus: torch-ngp's training-time compositing (read, not copied).
#include <cstdint>

// one thread a ray: its samples front to back, alpha from density times step, until the
// transmittance is spent; rays holds (index, offset, num_steps) as the marcher packed them
template <typename scalar_t>
__global__ void kernel_composite_rays_train_forward(
    const scalar_t * __restrict__ sigmas,
    const scalar_t * __restrict__ rgbs,
    const scalar_t * __restrict__ deltas,
    const int * __restrict__ rays,
    const uint32_t M, const uint32_t N,
    scalar_t * weights_sum,
    scalar_t * depth,
    scalar_t * image
) {
    const uint32_t n = threadIdx.x + blockIdx.x * blockDim.x;
    if (n >= N) return;

    uint32_t index = rays[n * 3];
    uint32_t offset = rays[n * 3 + 1];
    uint32_t num_steps = rays[n * 3 + 2];

    // no samples, or samples the marcher could not store: a black, empty pixel
    if (num_steps == 0 || offset + num_steps >= M) {
        weights_sum[index] = 0;
        depth[index] = 0;
        image[index * 3] = 0;
        image[index * 3 + 1] = 0;
        image[index * 3 + 2] = 0;
        return;
    }

    sigmas += offset;
    rgbs += offset * 3;
    deltas += offset * 2;

    uint32_t step = 0;
    scalar_t T = 1.0f;
    scalar_t r = 0, g = 0, b = 0, ws = 0, t = 0, d = 0;

    while (step < num_steps) {
        const scalar_t alpha = 1.0f - __expf(- sigmas[0] * deltas[0]);
        const scalar_t weight = alpha * T;

        r += weight * rgbs[0];
        g += weight * rgbs[1];
        b += weight * rgbs[2];

        t += deltas[1];  // the distance marched, skipped space included
        d += weight * t;

        ws += weight;

        T *= 1.0f - alpha;

        // what is left behind this sample no longer shows
        if (T < 1e-4f) break;

        sigmas++;
        rgbs += 3;
        deltas += 2;
        step++;
    }

    weights_sum[index] = ws;
    depth[index] = d;
    image[index * 3] = r;
    image[index * 3 + 1] = g;
    image[index * 3 + 2] = b;
}

template __global__ void kernel_composite_rays_train_forward<float>(const float*, const float*, const float*, const int*, const uint32_t, const uint32_t, float*, float*, float*);
"""

_COMPOSITE_WGSL = """// torch-ngp's kernel_composite_rays_train_forward as a WebGPU port: a ray an invocation.
struct Sizes {
    M: u32,
    N: u32,
}

@group(0) @binding(0) var<storage, read> sigmas: array<f32>;
@group(0) @binding(1) var<storage, read> rgbs: array<f32>;
@group(0) @binding(2) var<storage, read> deltas: array<f32>;
@group(0) @binding(3) var<storage, read> rays: array<i32>;
@group(0) @binding(4) var<storage, read_write> weights_sum: array<f32>;
@group(0) @binding(5) var<storage, read_write> depth: array<f32>;
@group(0) @binding(6) var<storage, read_write> image: array<f32>;
@group(0) @binding(7) var<uniform> sizes: Sizes;

@compute @workgroup_size(128)
fn kernel_composite_rays_train_forward(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = gid.x;
    if (n >= sizes.N) { return; }

    let index = u32(rays[n * 3u]);
    let offset = u32(rays[n * 3u + 1u]);
    let num_steps = u32(rays[n * 3u + 2u]);

    if (num_steps == 0u || offset + num_steps >= sizes.M) {
        weights_sum[index] = 0.0;
        depth[index] = 0.0;
        image[index * 3u] = 0.0;
        image[index * 3u + 1u] = 0.0;
        image[index * 3u + 2u] = 0.0;
        return;
    }

    var step = 0u;
    var T = 1.0;
    var r = 0.0;
    var g = 0.0;
    var b = 0.0;
    var ws = 0.0;
    var t = 0.0;
    var d = 0.0;

    while (step < num_steps) {
        let s = offset + step;  // the sample: the source's pointers, as an index
        let alpha = 1.0 - exp(-sigmas[s] * deltas[s * 2u]);
        let weight = alpha * T;

        r += weight * rgbs[s * 3u];
        g += weight * rgbs[s * 3u + 1u];
        b += weight * rgbs[s * 3u + 2u];

        t += deltas[s * 2u + 1u];
        d += weight * t;

        ws += weight;

        T *= 1.0 - alpha;

        if (T < 1e-4) { break; }

        step++;
    }

    weights_sum[index] = ws;
    depth[index] = d;
    image[index * 3u] = r;
    image[index * 3u + 1u] = g;
    image[index * 3u + 2u] = b;
}
"""

_T_STOP = 1e-4
_DT_MIN = 2 * 1.7320508075688772 / 1024  # march_rays_train's dt_min at max_steps 1024
_DT_MAX = 2 * 1.7320508075688772 * 2 / 128  # its dt_max at 2 cascades of 128^3


@functools.cache
def _marched(n: int, m: int, margin: bool = True):
    """What kernel_march_rays_train leaves for ``n`` rays and a budget of ``m`` samples:
    the rays in the order their threads took the counters (index, offset, num_steps), a
    tenth empty, each offset the sum of the steps before; the steps scaled so that the
    last rays pass the budget, and one ray ends exactly at it (the source's ``>=``
    drops that one too). Each sample's (sigma, rgb, dt, t - last_t): sigma from a
    trunc_exp-like density (many near zero, dense stretches where a surface is), dt
    between dt_min and dt_max, the marched distance at least dt (empty space skipped).
    No ray's transmittance comes within 3 % of the stop at 1e-4, where a rounding
    would decide whether a sample counts."""
    rng = np.random.default_rng(7301 + 7 * n + m)
    steps = rng.integers(1, max(2, 12 * m // (5 * n)), n)
    steps[rng.random(n) < 0.1] = 0
    order = rng.permutation(n)
    steps = steps[order]
    total = int(steps.sum())
    # the budget: about nine rays in ten fit; put one ray's end exactly on it
    offsets = np.concatenate([[0], np.cumsum(steps)[:-1]])
    ends = offsets + steps
    fits = np.flatnonzero((ends < m) & (steps > 0))
    if n > 1:
        last = fits[-1] if len(fits) else 0
        steps[last] += m - ends[last] if ends[last] <= m else 0
        offsets = np.concatenate([[0], np.cumsum(steps)[:-1]])
        total = int(steps.sum())
    rays = np.stack([order, offsets, steps], axis=1).astype(np.int32)
    count = max(total, m)
    sigma = np.where(
        rng.random(count) < 0.4,
        rng.exponential(0.5, count),
        np.exp(rng.uniform(-1.0, 6.5, count)),
    )
    rgb = rng.random((count, 3))
    dt = rng.uniform(_DT_MIN, _DT_MAX, count)
    gap = np.where(rng.random(count) < 0.2, rng.uniform(0.0, 0.3, count), 0.0)
    sigma, dt, gap = sigma.astype(_F), dt.astype(_F), gap
    # keep every transmittance away from the stop
    for ray in range(n):
        o, k = int(offsets[ray]), int(steps[ray])
        for _ in range(50 if margin else 0):
            tau = np.cumsum(sigma[o : o + k].astype(np.float64) * dt[o : o + k])
            near = np.flatnonzero(np.abs(-tau / np.log(10) + 4) < 0.013)
            if not len(near):
                break
            sigma[o + near[0]] = _F(sigma[o + near[0]] * 1.1 + 0.5)
    deltas = np.stack([dt, (dt + gap).astype(_F)], axis=1)
    return rays, sigma[:m].copy(), rgb[:m].astype(_F), deltas[:m].copy()


def _composite_rays(rng, count, size):
    return _marched(int(size.N), int(size.M))[0].reshape(-1)[:count]


def _composite_sigmas(rng, count, size):
    return _marched(int(size.N), int(size.M))[1][:count]


def _composite_rgbs(rng, count, size):
    return _marched(int(size.N), int(size.M))[2].reshape(-1)[:count]


def _composite_deltas(rng, count, size):
    return _marched(int(size.N), int(size.M))[3].reshape(-1)[:count]


def _composite_reference(sigmas, rgbs, deltas, rays, M, N):
    """The compositing, ray by ray, in float64: each sample's weight alpha * T, the
    stop after the sample that takes T under 1e-4."""
    n, m = int(N), int(M)
    sig = sigmas.astype(np.float64)
    rgb = rgbs.astype(np.float64).reshape(-1, 3)
    dl = deltas.astype(np.float64).reshape(-1, 2)
    ws, dep, img = np.zeros(n), np.zeros(n), np.zeros((n, 3))
    for index, offset, steps in rays.reshape(-1, 3).astype(np.int64):
        if steps == 0 or offset + steps >= m:
            continue
        s = slice(offset, offset + steps)
        alpha = 1.0 - np.exp(-sig[s] * dl[s, 0])
        trans = np.cumprod(1.0 - alpha)
        stop = np.flatnonzero(trans < _T_STOP)
        k = int(stop[0]) + 1 if len(stop) else int(steps)
        before = np.concatenate([[1.0], trans[: k - 1]])
        w = alpha[:k] * before
        ws[index] = w.sum()
        dep[index] = (w * np.cumsum(dl[s, 1][:k])).sum()
        img[index] = (w[:, None] * rgb[s][:k]).sum(axis=0)
    return {"weights_sum": ws, "depth": dep, "image": img.reshape(-1)}


COMPOSITE_RAYS = Wild(
    KernelSpec(
        id="wild_r73_torch_ngp_composite_rays_train_forward",
        entry_point="kernel_composite_rays_train_forward",
        entry_points={"cuda": "kernel_composite_rays_train_forward<float>"},
        sources={"cuda": _COMPOSITE_CUDA, "wgsl": _COMPOSITE_WGSL},
        dims=("N", "M"),
        buffers=(
            BufferSpec(0, "f32", "read", name="sigmas", count="M", fill=_composite_sigmas),
            BufferSpec(1, "f32", "read", name="rgbs", count="3*M", fill=_composite_rgbs),
            BufferSpec(2, "f32", "read", name="deltas", count="2*M", fill=_composite_deltas),
            BufferSpec(3, "i32", "read", name="rays", count="3*N", fill=_composite_rays),
            BufferSpec(4, "f32", "read_write", name="weights_sum", count="N"),
            BufferSpec(5, "f32", "read_write", name="depth", count="N"),
            BufferSpec(6, "f32", "read_write", name="image", count="3*N"),
            BufferSpec.uniform(7, (("M", "u32"), ("N", "u32")), name="sizes"),
        ),
        reference=_composite_reference,
        params=lambda size: {"M": int(size.M), "N": int(size.N)},
        grid=lambda s, size: (ceil_div(int(size.N), 128), 1, 1),
        schedules=(Schedule(128),),
        nonfinite_inputs=False,
        # 1000 rays over a budget of 24000 samples (8 blocks, the last partly idle); 5 over 90
        test_sizes=("1000x24000", "5x90"),
    ),
    {
        "the stop test reversed": ("wgsl", "if (T < 1e-4) { break; }", "if (T > 1e-4) { break; }"),
        "the transmittance spent before the sample's weight": (
            "wgsl",
            "        let weight = alpha * T;\n",
            "        T *= 1.0 - alpha;\n        let weight = alpha * T;\n",
        ),
        "written at the thread's slot, not the ray's index": (
            "wgsl",
            "    depth[index] = d;\n    image",
            "    depth[n] = d;\n    image",
        ),
        "the budget test lets a ray end on it": (
            "wgsl",
            "offset + num_steps >= sizes.M",
            "offset + num_steps > sizes.M",
        ),
        "CUDA: depth from the step size, not the distance marched": (
            "cuda",
            "t += deltas[1];",
            "t += deltas[0];",
        ),
        "CUDA: the budget test lets a ray end on it": (
            "cuda",
            "offset + num_steps >= M",
            "offset + num_steps > M",
        ),
    },
)


# -- 2. 3D Gaussian splatting: renderCUDA, a tile of pixels against its depth-sorted splats --

_RENDER_CUDA = r"""// kernel-forge corpus: the 3D Gaussian splatting rasteriser's forward pass (read, not copied).
#include <cstdint>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define NUM_CHANNELS 3
#define BLOCK_X 16
#define BLOCK_Y 16
#define BLOCK_SIZE (BLOCK_X * BLOCK_Y)

// a block a 16 x 16 tile, a thread a pixel; the tile's splats, sorted front to back, come
// in batches of 256 that the block stages in shared memory, each pixel blending them
// until its transmittance is spent
template <uint32_t CHANNELS>
__global__ void __launch_bounds__(BLOCK_X * BLOCK_Y)
renderCUDA(
    const uint2* __restrict__ ranges,
    const uint32_t* __restrict__ point_list,
    int W, int H,
    const float2* __restrict__ points_xy_image,
    const float* __restrict__ features,
    const float4* __restrict__ conic_opacity,
    float* __restrict__ final_T,
    uint32_t* __restrict__ n_contrib,
    const float* __restrict__ bg_color,
    float* __restrict__ out_color)
{
    auto block = cg::this_thread_block();
    uint32_t horizontal_blocks = (W + BLOCK_X - 1) / BLOCK_X;
    uint2 pix_min = { block.group_index().x * BLOCK_X, block.group_index().y * BLOCK_Y };
    uint2 pix_max = { min(pix_min.x + BLOCK_X, W), min(pix_min.y + BLOCK_Y , H) };
    uint2 pix = { pix_min.x + block.thread_index().x, pix_min.y + block.thread_index().y };
    uint32_t pix_id = W * pix.y + pix.x;
    float2 pixf = { (float)pix.x, (float)pix.y };

    // a thread past the image's edge only helps to fetch
    bool inside = pix.x < W && pix.y < H;
    bool done = !inside;

    // the tile's slice of the sorted list
    uint2 range = ranges[block.group_index().y * horizontal_blocks + block.group_index().x];
    const int rounds = ((range.y - range.x + BLOCK_SIZE - 1) / BLOCK_SIZE);
    int toDo = range.y - range.x;

    __shared__ int collected_id[BLOCK_SIZE];
    __shared__ float2 collected_xy[BLOCK_SIZE];
    __shared__ float4 collected_conic_opacity[BLOCK_SIZE];

    float T = 1.0f;
    uint32_t contributor = 0;
    uint32_t last_contributor = 0;
    float C[CHANNELS] = { 0 };

    for (int i = 0; i < rounds; i++, toDo -= BLOCK_SIZE)
    {
        // the whole block stops once every pixel is done
        int num_done = __syncthreads_count(done);
        if (num_done == BLOCK_SIZE)
            break;

        // each thread stages one splat of the batch
        int progress = i * BLOCK_SIZE + block.thread_rank();
        if (range.x + progress < range.y)
        {
            int coll_id = point_list[range.x + progress];
            collected_id[block.thread_rank()] = coll_id;
            collected_xy[block.thread_rank()] = points_xy_image[coll_id];
            collected_conic_opacity[block.thread_rank()] = conic_opacity[coll_id];
        }
        block.sync();

        for (int j = 0; !done && j < min(BLOCK_SIZE, toDo); j++)
        {
            contributor++;

            // the splat's falloff at this pixel through its conic (Zwicker et al.'s EWA)
            float2 xy = collected_xy[j];
            float2 d = { xy.x - pixf.x, xy.y - pixf.y };
            float4 con_o = collected_conic_opacity[j];
            float power = -0.5f * (con_o.x * d.x * d.x + con_o.z * d.y * d.y) - con_o.y * d.x * d.y;
            if (power > 0.0f)
                continue;

            // opacity times falloff, at most 0.99; fainter than 1/255 is skipped
            float alpha = min(0.99f, con_o.w * exp(power));
            if (alpha < 1.0f / 255.0f)
                continue;
            float test_T = T * (1 - alpha);
            if (test_T < 0.0001f)
            {
                done = true;
                continue;
            }

            for (int ch = 0; ch < CHANNELS; ch++)
                C[ch] += features[collected_id[j] * CHANNELS + ch] * alpha * T;

            T = test_T;
            last_contributor = contributor;
        }
    }

    if (inside)
    {
        final_T[pix_id] = T;
        n_contrib[pix_id] = last_contributor;
        for (int ch = 0; ch < CHANNELS; ch++)
            out_color[ch * H * W + pix_id] = C[ch] + T * bg_color[ch];
    }
}

template __global__ void renderCUDA<NUM_CHANNELS>(const uint2*, const uint32_t*, int, int, const float2*, const float*, const float4*, float*, uint32_t*, const float*, float*);
"""

_RENDER_WGSL = """// The 3D Gaussian splatting rasteriser's renderCUDA as a WebGPU port: a workgroup a
// 16 x 16 tile, __syncthreads_count through a workgroup counter read uniformly.
struct Image {
    W: u32,
    H: u32,
}

const BLOCK_X = 16u;
const BLOCK_Y = 16u;
const BLOCK_SIZE = 256u;
const CHANNELS = 3u;

@group(0) @binding(0) var<storage, read> ranges: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read> point_list: array<u32>;
@group(0) @binding(2) var<storage, read> points_xy_image: array<vec2<f32>>;
@group(0) @binding(3) var<storage, read> features: array<f32>;
@group(0) @binding(4) var<storage, read> conic_opacity: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> final_T: array<f32>;
@group(0) @binding(6) var<storage, read_write> n_contrib: array<u32>;
@group(0) @binding(7) var<uniform> bg_color: vec4<f32>;
@group(0) @binding(8) var<storage, read_write> out_color: array<f32>;
@group(0) @binding(9) var<uniform> image: Image;

var<workgroup> collected_id: array<u32, BLOCK_SIZE>;
var<workgroup> collected_xy: array<vec2<f32>, BLOCK_SIZE>;
var<workgroup> collected_conic_opacity: array<vec4<f32>, BLOCK_SIZE>;
var<workgroup> done_count: atomic<u32>;
var<workgroup> done_total: u32;

@compute @workgroup_size(16, 16, 1)
fn renderCUDA(@builtin(workgroup_id) group: vec3<u32>,
              @builtin(local_invocation_id) thread: vec3<u32>,
              @builtin(local_invocation_index) rank: u32) {
    let W = image.W;
    let H = image.H;
    let horizontal_blocks = (W + BLOCK_X - 1u) / BLOCK_X;
    let pix_min = vec2<u32>(group.x * BLOCK_X, group.y * BLOCK_Y);
    let pix = pix_min + thread.xy;
    let pix_id = W * pix.y + pix.x;
    let pixf = vec2<f32>(pix);

    let inside = pix.x < W && pix.y < H;
    var done = !inside;

    let range = ranges[group.y * horizontal_blocks + group.x];
    let rounds = i32((range.y - range.x + BLOCK_SIZE - 1u) / BLOCK_SIZE);
    var toDo = i32(range.y - range.x);

    var T = 1.0;
    var contributor = 0u;
    var last_contributor = 0u;
    var C = vec3<f32>(0.0);

    for (var i = 0; i < rounds; i++) {
        // __syncthreads_count(done): every invocation's vote, then one count for all
        if (done) { atomicAdd(&done_count, 1u); }
        workgroupBarrier();
        if (rank == 0u) { done_total = atomicExchange(&done_count, 0u); }
        let num_done = workgroupUniformLoad(&done_total);
        if (num_done == BLOCK_SIZE) { break; }

        let progress = u32(i) * BLOCK_SIZE + rank;
        if (range.x + progress < range.y) {
            let coll_id = point_list[range.x + progress];
            collected_id[rank] = coll_id;
            collected_xy[rank] = points_xy_image[coll_id];
            collected_conic_opacity[rank] = conic_opacity[coll_id];
        }
        workgroupBarrier();

        for (var j = 0; !done && j < min(i32(BLOCK_SIZE), toDo); j++) {
            contributor++;

            let xy = collected_xy[j];
            let d = vec2<f32>(xy.x - pixf.x, xy.y - pixf.y);
            let con_o = collected_conic_opacity[j];
            let power = -0.5 * (con_o.x * d.x * d.x + con_o.z * d.y * d.y) - con_o.y * d.x * d.y;
            if (power > 0.0) { continue; }

            let alpha = min(0.99, con_o.w * exp(power));
            if (alpha < 1.0 / 255.0) { continue; }
            let test_T = T * (1.0 - alpha);
            if (test_T < 0.0001) {
                done = true;
                continue;
            }

            let id = collected_id[j];
            for (var ch = 0u; ch < CHANNELS; ch++) {
                C[ch] += features[id * CHANNELS + ch] * alpha * T;
            }

            T = test_T;
            last_contributor = contributor;
        }
        toDo -= i32(BLOCK_SIZE);
    }

    if (inside) {
        final_T[pix_id] = T;
        n_contrib[pix_id] = last_contributor;
        for (var ch = 0u; ch < CHANNELS; ch++) {
            out_color[ch * H * W + pix_id] = C[ch] + T * bg_color[ch];
        }
    }
}
"""

_ALPHA_MIN, _T_MIN = 1.0 / 255.0, 1e-4


def _raster(ranges, point_list, xy, features, conic, bg, W, H, margin=0.0):
    """renderCUDA in float64, every pixel at once: the k-th step of each pixel takes the
    k-th splat of its tile's slice (a pixel's blend never depends on another's, so the
    block's batches and its early exit change nothing). Returns (final_T, n_contrib,
    out_color, near): with ``margin``, near holds the splats whose alpha at a pixel
    still blending lies within that relative margin of 1/255, or whose blend would take
    T within it of 1e-4, where a rounding decides."""
    tiles_x = ceil_div(W, 16)
    py, px = np.divmod(np.arange(H * W), W)
    tile = (py // 16) * tiles_x + px // 16
    start = ranges[tile, 0].astype(np.int64)
    length = ranges[tile, 1].astype(np.int64) - start
    pxf, pyf = px.astype(np.float64), py.astype(np.float64)
    T, C = np.ones(H * W), np.zeros((H * W, 3))
    done = np.zeros(H * W, bool)
    count = np.zeros(H * W, np.int64)
    last = np.zeros(H * W, np.int64)
    near: set[int] = set()
    for k in range(int(length.max(initial=0))):
        live = ~done & (k < length)
        if not live.any():
            break
        g = point_list[np.where(live, start + k, 0)].astype(np.int64)
        count = count + live
        dx, dy = xy[g, 0] - pxf, xy[g, 1] - pyf
        a, b, c, o = conic[g, 0], conic[g, 1], conic[g, 2], conic[g, 3]
        power = -0.5 * (a * dx * dx + c * dy * dy) - b * dx * dy
        alpha = np.minimum(0.99, o * np.exp(power))
        ok = live & (power <= 0) & (alpha >= _ALPHA_MIN)
        test_T = T * (1 - alpha)
        if margin:
            faint = live & (power <= 0) & (np.abs(alpha / _ALPHA_MIN - 1) < margin)
            tie = ok & (np.abs(test_T / _T_MIN - 1) < margin)
            near.update(int(x) for x in g[faint | tie])
        stop = ok & (test_T < _T_MIN)
        done = done | stop
        blend = ok & ~stop
        C = C + features[g] * np.where(blend, alpha * T, 0.0)[:, None]
        T = np.where(blend, test_T, T)
        last = np.where(blend, count, last)
    return T, last, (C + T[:, None] * bg[None, :3]).T.copy(), near


@functools.cache
def _splats(h: int, w: int, nudge: bool = True):
    """The preprocessing's and the sort's output for a scene of splats over an H x W
    image: P = H * W / 3 splats, their means on the image and up to 12 px past it, each
    a 2-D covariance of scales 0.7 to 9 px at an angle (its conic the inverse, as
    computeCov2D makes it, 0.3 px of blur added), opacity from a sigmoid (many faint,
    some nearly opaque), colours in [0, 1]; each splat listed in every tile its 3-sigma
    square touches (getRect), the list sorted by tile then depth (the 64-bit keys'
    radix sort), ranges each tile's slice. Opacities are nudged until no alpha at a
    pixel comes within 0.2 % of 1/255 and no blend within 0.2 % of T = 1e-4."""
    rng = np.random.default_rng(7302 + 131 * h + w)
    p = max(4, h * w // 3)
    xy = np.stack([rng.uniform(-12, w + 12, p), rng.uniform(-12, h + 12, p)], 1)
    s = np.exp(rng.uniform(np.log(0.7), np.log(9.0), (p, 2)))
    ang = rng.uniform(0, np.pi, p)
    cs, sn = np.cos(ang), np.sin(ang)
    cov_a = cs**2 * s[:, 0] ** 2 + sn**2 * s[:, 1] ** 2 + 0.3
    cov_b = cs * sn * (s[:, 0] ** 2 - s[:, 1] ** 2)
    cov_c = sn**2 * s[:, 0] ** 2 + cs**2 * s[:, 1] ** 2 + 0.3
    det = cov_a * cov_c - cov_b**2
    conic = np.stack([cov_c / det, -cov_b / det, cov_a / det], 1)
    opacity = 1 / (1 + np.exp(-rng.normal(-0.5, 2.0, p)))
    depth = rng.uniform(0.2, 50.0, p)
    features = rng.random((p, 3))
    # the 3-sigma radius from the covariance's larger eigenvalue, as preprocessCUDA
    mid = 0.5 * (cov_a + cov_c)
    radius = np.ceil(3 * np.sqrt(mid + np.sqrt(np.maximum(0.1, mid * mid - det))))
    tiles_x, tiles_y = ceil_div(w, 16), ceil_div(h, 16)
    keys = []
    for g in range(p):
        x0 = int(min(tiles_x, max(0, (xy[g, 0] - radius[g]) // 16)))
        y0 = int(min(tiles_y, max(0, (xy[g, 1] - radius[g]) // 16)))
        x1 = int(min(tiles_x, max(0, (xy[g, 0] + radius[g] + 15) // 16)))
        y1 = int(min(tiles_y, max(0, (xy[g, 1] + radius[g] + 15) // 16)))
        keys += [(y * tiles_x + x, depth[g], g) for y in range(y0, y1) for x in range(x0, x1)]
    keys.sort()
    point_list = np.array([g for _, _, g in keys], np.uint32)
    tile = np.array([t for t, _, _ in keys], np.int64)
    starts = np.searchsorted(tile, np.arange(tiles_x * tiles_y), "left")
    ends = np.searchsorted(tile, np.arange(tiles_x * tiles_y), "right")
    ranges = np.stack([starts, ends], 1).astype(np.uint32)
    xy32, conic32, feat32 = xy.astype(_F), conic.astype(_F), features.astype(_F)
    bg = np.array([0.1, 0.2, 0.3, 0.0], _F)
    for _ in range(40 if nudge else 0):
        packed = np.concatenate([conic32, opacity.astype(_F)[:, None]], 1)
        *_, near = _raster(
            ranges,
            point_list,
            xy32.astype(np.float64),
            feat32,
            packed.astype(np.float64),
            bg.astype(np.float64),
            w,
            h,
            margin=2e-3,
        )
        if not near:
            break
        idx = np.array(sorted(near))
        opacity[idx] = np.minimum(0.999, opacity[idx] * rng.uniform(0.95, 1.05, len(idx)))
    else:
        if nudge:
            raise AssertionError("the splats' thresholds kept a tie")
    packed = np.concatenate([conic32, opacity.astype(_F)[:, None]], 1)
    return ranges, point_list, xy32, feat32, packed.astype(_F), bg


def _splat_part(k: int, nudge: bool = True):
    def fill(rng, count, size):
        return _splats(int(size.H), int(size.W), nudge)[k].reshape(-1)[:count]

    return fill


def _render_reference(ranges, point_list, points_xy_image, features, conic_opacity, bg_color, H, W):
    t, n, c, _ = _raster(
        ranges.reshape(-1, 2),
        point_list,
        points_xy_image.reshape(-1, 2).astype(np.float64),
        features.reshape(-1, 3).astype(np.float64),
        conic_opacity.reshape(-1, 4).astype(np.float64),
        bg_color.astype(np.float64),
        int(W),
        int(H),
    )
    return {"final_T": t, "n_contrib": n.astype(np.uint32), "out_color": c.reshape(-1)}


GAUSSIAN_RENDER = Wild(
    KernelSpec(
        id="wild_r73_gaussian_splatting_render_forward",
        entry_point="renderCUDA",
        entry_points={"cuda": "renderCUDA<3>"},
        sources={"cuda": _RENDER_CUDA, "wgsl": _RENDER_WGSL},
        dims=("H", "W"),
        buffers=(
            BufferSpec(
                0,
                "u32",
                "read",
                name="ranges",
                count=lambda size: _splats(int(size.H), int(size.W))[0].size,
                fill=_splat_part(0),
            ),
            BufferSpec(
                1,
                "u32",
                "read",
                name="point_list",
                count=lambda size: _splats(int(size.H), int(size.W))[1].size,
                fill=_splat_part(1),
            ),
            BufferSpec(
                2,
                "f32",
                "read",
                name="points_xy_image",
                count=lambda size: _splats(int(size.H), int(size.W))[2].size,
                fill=_splat_part(2),
            ),
            BufferSpec(
                3,
                "f32",
                "read",
                name="features",
                count=lambda size: _splats(int(size.H), int(size.W))[3].size,
                fill=_splat_part(3),
            ),
            BufferSpec(
                4,
                "f32",
                "read",
                name="conic_opacity",
                count=lambda size: _splats(int(size.H), int(size.W))[4].size,
                fill=_splat_part(4),
            ),
            BufferSpec(5, "f32", "read_write", name="final_T", count="H*W"),
            BufferSpec(6, "u32", "read_write", name="n_contrib", count="H*W"),
            BufferSpec(7, "f32", "read", name="bg_color", count=4, fill=_splat_part(5)),
            BufferSpec(8, "f32", "read_write", name="out_color", count="3*H*W"),
            BufferSpec.uniform(9, (("W", "u32"), ("H", "u32")), name="image"),
        ),
        reference=_render_reference,
        params=lambda size: {"W": int(size.W), "H": int(size.H)},
        grid=lambda s, size: (ceil_div(int(size.W), 16), ceil_div(int(size.H), 16), 1),
        schedules=(Schedule((16, 16)),),
        nonfinite_inputs=False,
        # 45 x 70: 3 x 5 tiles, the last row and column partly off the image, tiles of
        # up to ~500 splats (two batches); one whole tile
        test_sizes=("16x16", "45x70"),  # one tile first: a mutant stops at its first failing size
    ),
    {
        "the batch read before it is staged": (
            "wgsl",
            "            collected_conic_opacity[rank] = conic_opacity[coll_id];\n        }\n        workgroupBarrier();\n",
            "            collected_conic_opacity[rank] = conic_opacity[coll_id];\n        }\n",
        ),
        "faint splats blended too": (
            "wgsl",
            "if (alpha < 1.0 / 255.0) { continue; }",
            "if (alpha < 0.0) { continue; }",
        ),
        "the stop tested on the transmittance before the blend": (
            "wgsl",
            "if (test_T < 0.0001) {",
            "if (T < 0.0001) {",
        ),
        "the conic's cross term with the wrong sign": (
            "wgsl",
            "- con_o.y * d.x * d.y;",
            "+ con_o.y * d.x * d.y;",
        ),
        "the background not attenuated": (
            "wgsl",
            "C[ch] + T * bg_color[ch]",
            "C[ch] + bg_color[ch]",
        ),
        "CUDA: the staging barrier dropped": ("cuda", "        block.sync();\n", ""),
        "CUDA: the block stops at the first pixel done": (
            "cuda",
            "        int num_done = __syncthreads_count(done);\n        if (num_done == BLOCK_SIZE)\n",
            "        if (__syncthreads_or(done))\n",
        ),
        "CUDA: the colour written interleaved": (
            "cuda",
            "out_color[ch * H * W + pix_id]",
            "out_color[pix_id * CHANNELS + ch]",
        ),
    },
    races=frozenset({"CUDA: the staging barrier dropped"}),
)


# -- 3. tiny-cuda-nn: kernel_grid, the multiresolution hash encoding in half precision ----

_GRID_CUDA = r"""// kernel-forge corpus: tiny-cuda-nn's hash-grid encoding, forward (read, not copied).
#include <cstdint>
#include <cuda_fp16.h>

#define MAX_N_LEVELS 128

struct GridOffsetTable {
    uint32_t data[MAX_N_LEVELS + 1] = {};
    uint32_t size = 0;
};

enum class GridType { Hash, Dense, Tiled };
enum class InterpolationType { Nearest, Linear, Smoothstep };

// the spatial hash: each coordinate times its prime, XORed, in wrapping u32 arithmetic
__device__ inline uint32_t coherent_prime_hash(const uint32_t pos_grid[3]) {
    constexpr uint32_t factors[7] = { 1u, 2654435761u, 805459861u, 3674653429u, 2097192037u, 1434869437u, 2165219737u };
    uint32_t result = 0;
    #pragma unroll
    for (uint32_t i = 0; i < 3; ++i) {
        result ^= pos_grid[i] * factors[i];
    }
    return result;
}

// dense while the level's vertices fit the table (the stride test also stops the
// product from overflowing at fine levels), hashed past that
__device__ inline uint32_t grid_index(const GridType grid_type, const uint32_t hashmap_size, const uint32_t grid_resolution, const uint32_t pos_grid[3]) {
    uint32_t stride = 1;
    uint32_t index = 0;
    #pragma unroll
    for (uint32_t dim = 0; dim < 3 && stride <= hashmap_size; ++dim) {
        index += pos_grid[dim] * stride;
        stride *= grid_resolution;
    }
    if (grid_type == GridType::Hash && hashmap_size < stride) {
        index = coherent_prime_hash(pos_grid);
    }
    return index % hashmap_size;
}

// base_resolution counts vertices, hence the -1
__device__ inline float grid_scale(uint32_t level, float log2_per_level_scale, uint32_t base_resolution) {
    return exp2f(level * log2_per_level_scale) * base_resolution - 1.0f;
}

__device__ inline uint32_t grid_resolution(float scale) {
    return (uint32_t)ceilf(scale) + 1;
}

// the levels staggered by half a cell: the cell's corner and the fraction within it
__device__ inline void pos_fract(const float input, float* pos, uint32_t* pos_grid, float scale) {
    *pos = fmaf(scale, input, 0.5f);
    float tmp = floorf(*pos);
    *pos_grid = (uint32_t)(int)tmp;
    *pos -= (float)tmp;
}

// a thread a point, blockIdx.y the level; the features of a level are two halves, read as
// one aligned __half2 and blended by __hfma2; the output one row a feature
template <uint32_t N_POS_DIMS, uint32_t N_FEATURES_PER_LEVEL>
__global__ void kernel_grid(
    const uint32_t num_elements,
    const uint32_t num_grid_features,
    const GridOffsetTable offset_table,
    const uint32_t base_resolution,
    const float log2_per_level_scale,
    float max_level,
    const float* __restrict__ max_level_gpu,
    const InterpolationType interpolation_type,
    const GridType grid_type,
    const __half* __restrict__ grid,
    const float* __restrict__ positions_in,
    __half* __restrict__ encoded_positions,
    float* __restrict__ dy_dx
) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= num_elements) return;

    const uint32_t level = blockIdx.y;

    if (max_level_gpu) {
        max_level = (max_level_gpu[i] * num_grid_features) / N_FEATURES_PER_LEVEL;
    } else {
        max_level = (max_level * num_grid_features) / N_FEATURES_PER_LEVEL;
    }

    if (level >= max_level + 1e-3f) {
        for (uint32_t f = 0; f < N_FEATURES_PER_LEVEL; ++f) {
            encoded_positions[i + (level * N_FEATURES_PER_LEVEL + f) * num_elements] = (__half)0.0f;
        }
        return;
    }

    grid += offset_table.data[level] * N_FEATURES_PER_LEVEL;
    const uint32_t hashmap_size = offset_table.data[level + 1] - offset_table.data[level];

    const float scale = grid_scale(level, log2_per_level_scale, base_resolution);
    const uint32_t resolution = grid_resolution(scale);

    float pos[N_POS_DIMS];
    uint32_t pos_grid[N_POS_DIMS];

    #pragma unroll
    for (uint32_t dim = 0; dim < N_POS_DIMS; ++dim) {
        pos_fract(positions_in[i * N_POS_DIMS + dim], &pos[dim], &pos_grid[dim], scale);
    }

    auto grid_val = [&](const uint32_t local_pos[N_POS_DIMS]) {
        const uint32_t index = grid_index(grid_type, hashmap_size, resolution, local_pos) * N_FEATURES_PER_LEVEL;
        return *(const __half2*)&grid[index];
    };

    if (interpolation_type == InterpolationType::Nearest) {
        __half2 result = grid_val(pos_grid);
        encoded_positions[i + (level * N_FEATURES_PER_LEVEL + 0) * num_elements] = __low2half(result);
        encoded_positions[i + (level * N_FEATURES_PER_LEVEL + 1) * num_elements] = __high2half(result);
        return;
    }

    // the 2^3 corners, corner idx's bit dim choosing the far side of dimension dim
    __half2 result = __float2half2_rn(0.0f);

    #pragma unroll
    for (uint32_t idx = 0; idx < (1 << N_POS_DIMS); ++idx) {
        float weight = 1;
        uint32_t pos_grid_local[N_POS_DIMS];

        #pragma unroll
        for (uint32_t dim = 0; dim < N_POS_DIMS; ++dim) {
            if ((idx & (1 << dim)) == 0) {
                weight *= 1 - pos[dim];
                pos_grid_local[dim] = pos_grid[dim];
            } else {
                weight *= pos[dim];
                pos_grid_local[dim] = pos_grid[dim] + 1;
            }
        }

        result = __hfma2(__half2half2((__half)weight), grid_val(pos_grid_local), result);
    }

    encoded_positions[i + (level * N_FEATURES_PER_LEVEL + 0) * num_elements] = __low2half(result);
    encoded_positions[i + (level * N_FEATURES_PER_LEVEL + 1) * num_elements] = __high2half(result);
}

template __global__ void kernel_grid<3, 2>(const uint32_t, const uint32_t, const GridOffsetTable, const uint32_t, const float, float, const float*, const InterpolationType, const GridType, const __half*, const float*, __half*, float*);
"""

_GRID_WGSL = """// tiny-cuda-nn's kernel_grid<__half, 3, 2, Prime> as a WebGPU port with shader-f16: the
// host's offset table and the linear hash grid baked in as constants.
enable f16;

struct Encoding {
    num_elements: u32,
    num_grid_features: u32,
    base_resolution: u32,
    log2_per_level_scale: f32,
    max_level: f32,
}

const N_POS_DIMS = 3u;
const N_FEATURES_PER_LEVEL = 2u;
const OFFSETS = array<u32, 5>(0u, 512u, 4608u, 8704u, 12800u);

@group(0) @binding(0) var<storage, read> grid: array<vec2<f16>>;
@group(0) @binding(1) var<storage, read> positions_in: array<f32>;
@group(0) @binding(2) var<storage, read_write> encoded_positions: array<f16>;
@group(0) @binding(3) var<uniform> enc: Encoding;

fn coherent_prime_hash(pos_grid: vec3<u32>) -> u32 {
    return (pos_grid.x * 1u) ^ (pos_grid.y * 2654435761u) ^ (pos_grid.z * 805459861u);
}

fn grid_index(hashmap_size: u32, grid_resolution: u32, pos_grid: vec3<u32>) -> u32 {
    var stride = 1u;
    var index = 0u;
    for (var dim = 0u; dim < N_POS_DIMS && stride <= hashmap_size; dim++) {
        index += pos_grid[dim] * stride;
        stride *= grid_resolution;
    }
    if (hashmap_size < stride) {
        index = coherent_prime_hash(pos_grid);
    }
    return index % hashmap_size;
}

@compute @workgroup_size(256)
fn kernel_grid(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(workgroup_id) wg: vec3<u32>) {
    let i = gid.x;
    if (i >= enc.num_elements) { return; }
    let level = wg.y;

    let max_level = (enc.max_level * f32(enc.num_grid_features)) / f32(N_FEATURES_PER_LEVEL);
    if (f32(level) >= max_level + 1e-3) {
        for (var f = 0u; f < N_FEATURES_PER_LEVEL; f++) {
            encoded_positions[i + (level * N_FEATURES_PER_LEVEL + f) * enc.num_elements] = 0.0h;
        }
        return;
    }

    let base = OFFSETS[level];
    let hashmap_size = OFFSETS[level + 1u] - OFFSETS[level];

    let scale = exp2(f32(level) * enc.log2_per_level_scale) * f32(enc.base_resolution) - 1.0;
    let resolution = u32(ceil(scale)) + 1u;

    var pos: vec3<f32>;
    var pos_grid: vec3<u32>;
    for (var dim = 0u; dim < N_POS_DIMS; dim++) {
        let p = fma(scale, positions_in[i * N_POS_DIMS + dim], 0.5);
        let tmp = floor(p);
        pos_grid[dim] = u32(i32(tmp));
        pos[dim] = p - tmp;
    }

    var result = vec2<f16>(0.0h);
    for (var idx = 0u; idx < (1u << N_POS_DIMS); idx++) {
        var weight = 1.0;
        var pos_grid_local: vec3<u32>;
        for (var dim = 0u; dim < N_POS_DIMS; dim++) {
            if ((idx & (1u << dim)) == 0u) {
                weight *= 1.0 - pos[dim];
                pos_grid_local[dim] = pos_grid[dim];
            } else {
                weight *= pos[dim];
                pos_grid_local[dim] = pos_grid[dim] + 1u;
            }
        }
        let value = grid[base + grid_index(hashmap_size, resolution, pos_grid_local)];
        result = fma(vec2<f16>(f16(weight)), value, result);
    }

    for (var f = 0u; f < N_FEATURES_PER_LEVEL; f++) {
        encoded_positions[i + (level * N_FEATURES_PER_LEVEL + f) * enc.num_elements] = result[f];
    }
}
"""

_GRID_LEVELS, _GRID_BASE, _GRID_LOG2_SCALE, _GRID_LOG2_T = 4, 8, 1.0, 12
_PRIMES = (1, 2654435761, 805459861)


def _grid_offsets() -> np.ndarray:
    """GridEncodingTemplated's offset table: each level's vertices, rounded up to 8, at
    most 2^12 entries (a table of 2^12 for the hashed levels)."""
    offsets = [0]
    for level in range(_GRID_LEVELS):
        scale = 2.0 ** (level * _GRID_LOG2_SCALE) * _GRID_BASE - 1.0
        resolution = int(np.ceil(scale)) + 1
        params = ceil_div(resolution**3, 8) * 8
        offsets.append(offsets[-1] + min(params, 1 << _GRID_LOG2_T))
    return np.array(offsets, np.uint32)


_GRID_OFFSETS = _grid_offsets()  # 0, 512, 4608, 8704, 12800: level 0 dense, 1 dense and full
_OFFSET_TABLE = np.concatenate(
    [_GRID_OFFSETS, np.zeros(129 - len(_GRID_OFFSETS), np.uint32), [len(_GRID_OFFSETS)]]
).astype(np.uint32)


def _grid_params(rng, count, size):
    """The grid's parameters as tiny-cuda-nn initialises them, uniform in +-1e-4, scaled
    up here to +-1 so that the blend's roundings are seen at features' size."""
    return rng.uniform(-1.0, 1.0, count).astype(np.float16)


def _grid_reference(grid, positions_in, num_elements):
    """kernel_grid<__half> in numpy: the position's float32 arithmetic as the kernel's
    (fmaf, floor, the weights' products in dimension order), each weight rounded to half,
    each corner's __hfma2 exact and rounded to half once."""
    n = int(num_elements)
    pos_in = positions_in.reshape(n, 3).astype(np.float32)
    params = grid.reshape(-1, 2)
    out = np.zeros((_GRID_LEVELS * 2, n), np.float16)
    for level in range(_GRID_LEVELS):
        table = params[int(_GRID_OFFSETS[level]) : int(_GRID_OFFSETS[level + 1])]
        size = int(_GRID_OFFSETS[level + 1] - _GRID_OFFSETS[level])
        scale = np.float32(2.0 ** (level * _GRID_LOG2_SCALE) * _GRID_BASE - 1.0)
        resolution = int(np.ceil(scale)) + 1
        p = (pos_in.astype(np.float64) * np.float64(scale) + 0.5).astype(np.float32)
        cell = np.floor(p)
        frac = (p - cell).astype(np.float32)
        cell = cell.astype(np.int64).astype(np.uint64)
        result = np.zeros((n, 2), np.float16)
        for idx in range(8):
            weight = np.ones(n, np.float32)
            corner = cell.copy()
            for dim in range(3):
                if idx & (1 << dim):
                    weight = (weight * frac[:, dim]).astype(np.float32)
                    corner[:, dim] += np.uint64(1)
                else:
                    weight = (weight * (np.float32(1) - frac[:, dim])).astype(np.float32)
            stride, index, dim = 1, np.zeros(n, np.uint64), 0
            while dim < 3 and stride <= size:
                index += corner[:, dim] * np.uint64(stride)
                stride *= resolution
                dim += 1
            if size < stride:
                index = np.zeros(n, np.uint64)
                for d in range(3):
                    index ^= (corner[:, d] * np.uint64(_PRIMES[d])) & np.uint64(0xFFFFFFFF)
            value = table[(index % np.uint64(size)).astype(np.int64)]
            w16 = weight.astype(np.float16).astype(np.float64)
            result = (w16[:, None] * value.astype(np.float64) + result).astype(np.float16)
        out[2 * level] = result[:, 0]
        out[2 * level + 1] = result[:, 1]
    return out.reshape(-1)


TCNN_HASH_GRID = Wild(
    KernelSpec(
        id="wild_r73_tiny_cuda_nn_hash_grid_half",
        entry_point="kernel_grid",
        entry_points={"cuda": "kernel_grid<3, 2>"},
        sources={"cuda": _GRID_CUDA, "wgsl": _GRID_WGSL},
        dims=("n",),
        buffers=(
            BufferSpec(
                0, "f16", "read", name="grid", count=int(_GRID_OFFSETS[-1]) * 2, fill=_grid_params
            ),
            BufferSpec(1, "f32", "read", name="positions_in", count="3*n"),
            BufferSpec(
                2, "f16", "read_write", name="encoded_positions", count=f"{_GRID_LEVELS * 2}*n"
            ),
            BufferSpec.uniform(
                3,
                (
                    ("num_elements", "u32"),
                    ("num_grid_features", "u32"),
                    ("base_resolution", "u32"),
                    ("log2_per_level_scale", "f32"),
                    ("max_level", "f32"),
                ),
                name="enc",
            ),
        ),
        reference=_grid_reference,
        params=lambda size: {"num_elements": int(size)},
        defaults={
            "num_grid_features": _GRID_LEVELS * 2,
            "base_resolution": _GRID_BASE,
            "log2_per_level_scale": _GRID_LOG2_SCALE,
            "max_level": 1000.0,  # GridEncodingTemplated's m_max_level: every level
            "offset_table": _OFFSET_TABLE.tobytes(),
            "interpolation_type": np.uint32(1).tobytes(),  # InterpolationType::Linear
            "grid_type": np.uint32(0).tobytes(),  # GridType::Hash
        },
        domain={"positions_in": (0.0, 1.0)},
        nonfinite_inputs=False,
        launches=(
            Dispatch(
                "kernel_grid",
                grid=lambda s, size: (ceil_div(int(size), s.workgroup_size[0]), _GRID_LEVELS, 1),
                # N_THREADS_HASHGRID = 512 in tiny-cuda-nn; the port's workgroup is 256
                schedule={"cuda": Schedule(512)},
                # the host passes no max_level_gpu and, without the gradient, no dy_dx
                arguments=(
                    "num_elements",
                    "num_grid_features",
                    "offset_table",
                    "base_resolution",
                    "log2_per_level_scale",
                    "max_level",
                    "nullptr",
                    "interpolation_type",
                    "grid_type",
                    "grid",
                    "positions_in",
                    "encoded_positions",
                    "nullptr",
                ),
            ),
        ),
        schedules=(Schedule(256),),
        test_sizes=(1000, 1),
    ),
    {
        "the hash summed, not XORed": (
            "wgsl",
            "(pos_grid.x * 1u) ^ (pos_grid.y * 2654435761u) ^ (pos_grid.z * 805459861u)",
            "(pos_grid.x * 1u) + (pos_grid.y * 2654435761u) + (pos_grid.z * 805459861u)",
        ),
        "the near corner weighted by the far side": (
            "wgsl",
            "weight *= 1.0 - pos[dim];",
            "weight *= pos[dim];",
        ),
        "the half-cell stagger dropped": (
            "wgsl",
            "fma(scale, positions_in[i * N_POS_DIMS + dim], 0.5)",
            "scale * positions_in[i * N_POS_DIMS + dim]",
        ),
        "a level that just fits hashed": (
            "wgsl",
            "if (hashmap_size < stride) {",
            "if (hashmap_size <= stride) {",
        ),
        "CUDA: the scale without the -1": (
            "cuda",
            "exp2f(level * log2_per_level_scale) * base_resolution - 1.0f;",
            "exp2f(level * log2_per_level_scale) * base_resolution;",
        ),
        "CUDA: the second prime on the third axis": (
            "cuda",
            "constexpr uint32_t factors[7] = { 1u, 2654435761u, 805459861u,",
            "constexpr uint32_t factors[7] = { 1u, 805459861u, 2654435761u,",
        ),
    },
)

ROUND73 = {w.kernel.id: w for w in (COMPOSITE_RAYS, GAUSSIAN_RENDER, TCNN_HASH_GRID)}

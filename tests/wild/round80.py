"""Round 80 of the wild kernels: camera and video processing as public GPU code writes
it (the corpus had no JPEG-style quantisation, Bayer demosaicing, optical flow or
stereo block matching before): four kernels, two of them with a separate WebGPU port
(WGSL stores no bytes; its textures bind otherwise), the others with the port beside
the CUDA source in one entry. Each CUDA kernel is read, not copied (the project's
rule for public code): the entry points and parameters (names, types, order), the
block sizes and launch geometry of their hosts, the shared memory and barriers where
they stand, the idioms and the numerics are theirs; the comments, local names and
formatting ours. Each has a WebGPU port of ours, so that its numerics run on this
machine's CPU adapters (the demosaic's on 16 x 16 invocations, WebGPU's default limit
being 256).

- NVIDIA/cuda-samples (BSD 3-clause) at 2e41896e1b2c7e2699b7b7f6689c107900c233bb,
  ``Samples/2_Concepts_and_Techniques/dct8x8/dct8x8_kernel_quantization.cuh``:
  ``CUDAkernelQuantizationFloat(float *SrcDst, int Stride)``, an 8 x 8 block a DCT
  block (``BLOCK_SIZE`` 8), each thread its coefficient divided by the JPEG table's
  ``__constant__ short Q[64]`` entry, ``roundf`` (ties away from zero) and multiplied
  back, in place. The inputs are built for the rounding: a third of the coefficients
  are exact ties ``(k + 1/2) * Q``, of both signs and both parities of ``k``, so that
  rounding half to even, half up or by truncation each fails. The table is symmetric,
  so a coefficient's table entry read transposed (``Q[tx * 8 + ty]``) is the same
  kernel: no mutant of that.
- NVIDIA/cuda-samples (BSD 3-clause) at eddc6fd7e1f18ef436eaf36cefcd67db993fcc24,
  ``Samples/5_Domain_Specific/HSOpticalFlow/solverKernel.cuh``: ``template <int bx,
  int by> JacobiIteration(const float *du0, const float *dv0, const float *Ix, const
  float *Iy, const float *Iz, int w, int h, int s, float alpha, float *du1, float
  *dv1)``, one Jacobi step of Horn-Schunck, launched as ``JacobiIteration<32, 6>`` on
  32 x 6 blocks (``SolveForUpdate``); the tile and a one-pixel halo of ``du`` and
  ``dv`` in ``volatile __shared__`` arrays, the halo's rows loaded by ``threadIdx.y ==
  0`` and its columns by ``threadIdx.y == 1``, coordinates clamped to the image, one
  barrier, then the threads outside the image leave; rows ``s`` floats apart (the
  host's stride, the width rounded up to 32: the padding is never written).
- avionic-design/cuda-debayer (GPL-2.0) at 02e94293d5780cfbba7eebe42c95ba2fe2d4a69d,
  ``src/bayer2rgb.cu``: ``bayer_to_rgb(uint8_t *in, uint8_t *out, uint32_t imgw,
  uint32_t imgh, uint8_t bpp)``, bilinear demosaicing of an RGGB mosaic, a thread a 2 x
  2 square from pixel (1, 1) (so no square needs a branch on its colours), 32 x 32
  blocks over half the image each way, each missing colour the truncated mean of its
  two or four neighbours in ``uint32_t``; a square whose neighbours leave the image is
  not written (the host's output keeps what it held: zeros here), and with ``bpp ==
  4`` the alpha bytes are 255. The byte scalar ``bpp`` is passed by value.

- NVIDIA/cuda-samples (BSD 3-clause) at ca37378cb454b74e3979fa7a14c110045d3c4437
  (``stereoDisparity_kernel.cuh``) and 2e41896e1b2c7e2699b7b7f6689c107900c233bb (its
  host, ``stereoDisparity.cu``), ``Samples/5_Domain_Specific/stereoDisparity/``:
  ``stereoDisparityKernel(unsigned int *g_img0, unsigned int *g_img1, unsigned int
  *g_odata, int w, int h, int minDisparity, int maxDisparity, cudaTextureObject_t
  tex2Dleft, cudaTextureObject_t tex2Dright)``, SAD block matching of RGBX images (a
  u32 a pixel) over a 17 x 17 window (``RAD`` 8) through two textures, 32 x 8 blocks
  (``iDivUp`` of each side), the four bytes' differences by the ``vabsdiff4`` video
  instruction in inline PTX (``__usad4``), the per-pixel costs of the tile and its
  halo in ``__shared__ unsigned int diff[24][48]``, summed along rows in place between
  two barriers and then down columns, the first shift of least cost kept (``cost <
  bestCost``) and stored as ``d + 8`` in an unsigned int (the host's shifts are -16 to
  0, so most are stored wrapped past 2^32); ``g_img0`` and ``g_img1`` are passed and
  never read. The host's textures: ``cudaCreateChannelDesc<unsigned int>()`` over
  pitched memory, point sampling, clamp, unnormalised coordinates: here ``r32uint``
  textures (a 2-D array, which reads the same). The images are drawn with flat
  patches, so that shifts tie at the least cost and the tie rule is judged.

Mutants: see each entry; every CUDA mutant's bug is also written into the port
(tests/test_wild_round80.py ``_CUDA_TWINS``), which must fail on lavapipe.

What they showed (tests/test_wild_round80.py): a missed mutant, fixed. The quantiser
with ``rintf`` (halves to even) passed on a CUDA device that computes what it says (the
simulated driver): the float outputs' rounding bound moved every quotient by WGSL's 2.5
ulp, exact or not, so at a tie the level could be either and a whole step's error was
accepted. A CUDA kernel's exact quotient now stays exact there
(``oracle._builtins.divides_exactly``); on WGSL the tie stays free, as the language's
division allows, and a port that rounds ties otherwise passes there (pinned).

For the GPU run to confirm: each CUDA original passes on the H100 (the quantiser's ties
exact: NVRTC's ``/`` is IEEE's, no fast math is passed), each CUDA mutant fails, the
two dropped barriers by their values or under compute-sanitizer.
"""

# ruff: noqa: E501  (the CUDA and WGSL keep their sources' long lines)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, KernelSpec, Sampler, Schedule, ceil_div

from . import Wild

# -- dct8x8: float quantisation of 8 x 8 DCT blocks ------------------------------------------

#: the sample's JPEG table (quality 0 of 12), row-major; symmetric
_Q = np.array(
    [
        [32, 33, 51, 81, 66, 39, 34, 17],
        [33, 36, 48, 47, 28, 23, 12, 12],
        [51, 48, 47, 28, 23, 12, 12, 12],
        [81, 47, 28, 23, 12, 12, 12, 12],
        [66, 28, 23, 12, 12, 12, 12, 12],
        [39, 23, 12, 12, 12, 12, 12, 12],
        [34, 12, 12, 12, 12, 12, 12, 12],
        [17, 12, 12, 12, 12, 12, 12, 12],
    ],
    np.int16,
)
_Q_TEXT = ",\n    ".join(", ".join(f"{v:3d}" for v in row) for row in _Q)

_QUANT_CUDA = (
    r"""// kernel-forge corpus: cuda-samples' dct8x8, its float quantisation (read, not copied).
#define BLOCK_SIZE 8

// the JPEG luminance table the sample quantises with (its quality 0 of 12)
__constant__ short Q[] = {
    """
    + _Q_TEXT
    + r"""
};

// in place: a block of 8 x 8 threads a DCT block, each its own coefficient rounded to a
// multiple of its table entry (roundf: halves away from zero)
__global__ void CUDAkernelQuantizationFloat(float *SrcDst, int Stride)
{
    int blockCol = blockIdx.x;
    int blockRow = blockIdx.y;
    int u = threadIdx.x;
    int v = threadIdx.y;

    int at = (blockRow * BLOCK_SIZE + v) * Stride + (blockCol * BLOCK_SIZE + u);
    float coef = SrcDst[at];
    float step = (float)Q[v * BLOCK_SIZE + u];

    float level = roundf(coef / step);
    coef = level * step;

    SrcDst[at] = coef;
}
"""
)

_QUANT_WGSL = (
    """
struct Params {
  Stride : i32,
}

@group(0) @binding(0) var<storage, read_write> SrcDst : array<f32>;
@group(0) @binding(1) var<uniform> params : Params;

const BLOCK_SIZE = 8;

// the sample's table, one entry a coefficient of the block
var<private> Q : array<f32, 64> = array<f32, 64>(
    """
    + _Q_TEXT.replace(",", ".0,").replace("\n    ", "\n    ")
    + """.0
);

// C's roundf: halves away from zero (WGSL's round() takes them to even)
fn roundf(x : f32) -> f32 {
  return sign(x) * floor(abs(x) + 0.5);
}

@compute @workgroup_size(8, 8)
fn CUDAkernelQuantizationFloat(@builtin(workgroup_id) wg : vec3u, @builtin(local_invocation_id) lid : vec3u) {
  let u = i32(lid.x);
  let v = i32(lid.y);
  let at = (i32(wg.y) * BLOCK_SIZE + v) * params.Stride + (i32(wg.x) * BLOCK_SIZE + u);
  var coef = SrcDst[at];
  let step = Q[v * BLOCK_SIZE + u];
  let level = roundf(coef / step);
  coef = level * step;
  SrcDst[at] = coef;
}
"""
)


def _dct_planes(rng, count, size):
    """DCT coefficient planes as a JPEG encoder meets them, built for the rounding: a
    third exact ties (k + 1/2) * Q of both signs and both parities of k, a third
    multiples of Q, a third anywhere in (-1024, 1024)."""
    height, width = int(size.H), int(size.W)
    steps = np.tile(_Q, (height // 8, width // 8)).astype(np.float64)
    k = rng.integers(-12, 12, (height, width)).astype(np.float64)
    tie = (k + 0.5) * steps
    multiple = k * steps
    anywhere = rng.uniform(-1024.0, 1024.0, (height, width))
    pick = rng.integers(0, 3, (height, width))
    plane = np.choose(pick, [tie, multiple, anywhere])
    return plane.astype(np.float32).reshape(-1)


def _quantise(SrcDst):
    """Each coefficient rounded to the nearest multiple of its table entry, halves away
    from zero (C's roundf), in float32."""
    height, width = SrcDst.shape
    q = np.tile(_Q, (height // 8, width // 8)).astype(np.float32)
    ratio = SrcDst.astype(np.float32) / q
    level = np.sign(ratio) * np.floor(np.abs(ratio) + np.float32(0.5))
    return (level * q).astype(np.float32)


DCT_QUANT = Wild(
    KernelSpec(
        id="wild_r80_cuda_samples_dct8x8_quantization_float",
        entry_point="CUDAkernelQuantizationFloat",
        sources={"cuda": _QUANT_CUDA, "wgsl": _QUANT_WGSL},
        dims=("H", "W"),
        buffers=(
            BufferSpec(
                0,
                "f32",
                "read_write",
                name="SrcDst",
                shape=("H", "W"),
                inout=True,
                fill=_dct_planes,
            ),
            BufferSpec.uniform(1, (("Stride", "i32"),), name="params"),
        ),
        reference=_quantise,
        params=lambda size: {"Stride": int(size.W)},
        # the host's grid: a block a DCT block (the image a multiple of 8 each way)
        grid=lambda s, size: (int(size.W) // 8, int(size.H) // 8, 1),
        schedules=(Schedule((8, 8)),),
        nonfinite_inputs=False,
        test_sizes=("H=24,W=40", "H=8,W=8"),
    ),
    {
        "the table read a row down": (
            "wgsl",
            "let step = Q[v * BLOCK_SIZE + u];",
            "let step = Q[(v + 1) * BLOCK_SIZE + u];",
        ),
        "rows a block apart, not Stride": (
            "wgsl",
            "(i32(wg.y) * BLOCK_SIZE + v) * params.Stride",
            "(i32(wg.y) * BLOCK_SIZE + v) * BLOCK_SIZE",
        ),
        "the block's column from blockIdx.y": (
            "wgsl",
            "(i32(wg.x) * BLOCK_SIZE + u)",
            "(i32(wg.y) * BLOCK_SIZE + u)",
        ),
        "CUDA: rintf, halves to even": (
            "cuda",
            "float level = roundf(coef / step);",
            "float level = rintf(coef / step);",
        ),
        "CUDA: truncated, not rounded": (
            "cuda",
            "float level = roundf(coef / step);",
            "float level = truncf(coef / step);",
        ),
        "CUDA: the level stored, not dequantised": (
            "cuda",
            "    coef = level * step;\n",
            "    coef = level;\n",
        ),
    },
)


# -- HSOpticalFlow: one Jacobi iteration of Horn-Schunck ------------------------------------

_HS_ALPHA = np.float32(0.2)  # our smoothness weight (the sample's main.cpp sets its own)

_HS_CUDA = r"""// kernel-forge corpus: cuda-samples' HSOpticalFlow, its Jacobi step (read, not copied).
// One Jacobi iteration of Horn-Schunck: each pixel's new (du, dv) from the mean of its four
// neighbours' old ones and the brightness constancy term. A bx x by block keeps its tile
// and a one-pixel halo of the old field in shared memory; coordinates past the image are
// clamped to its edge.
template <int bx, int by>
__global__ void JacobiIteration(const float *du0,
                                const float *dv0,
                                const float *Ix,
                                const float *Iy,
                                const float *Iz,
                                int w,
                                int h,
                                int s,
                                float alpha,
                                float *du1,
                                float *dv1)
{
    volatile __shared__ float du[(bx + 2) * (by + 2)];
    volatile __shared__ float dv[(bx + 2) * (by + 2)];

    const int ix = blockIdx.x * blockDim.x + threadIdx.x;
    const int iy = blockIdx.y * blockDim.y + threadIdx.y;
    // this thread's pixel in the image (clamped) and in the tile (past the halo)
    const int pos = min(ix, w - 1) + min(iy, h - 1) * s;
    const int tilePos = (threadIdx.y + 1) * (bx + 2) + threadIdx.x + 1;

    du[tilePos] = du0[pos];
    dv[tilePos] = dv0[pos];

    const int tileX = blockIdx.x * blockDim.x;
    const int tileY = blockIdx.y * blockDim.y;
    if (threadIdx.y == 0) {
        // the halo's rows: the one before the tile and the one after it
        const int x = min(tileX + (int)threadIdx.x, w - 1);
        int y = max(tileY - 1, 0);
        int at = threadIdx.x + 1;
        du[at] = du0[y * s + x];
        dv[at] = dv0[y * s + x];

        y = min(tileY + by, h - 1);
        at += (by + 1) * (bx + 2);
        du[at] = du0[y * s + x];
        dv[at] = dv0[y * s + x];
    } else if (threadIdx.y == 1) {
        // the halo's columns, a thread a tile row: the one left of the tile and the one right
        const int y = min(tileY + (int)threadIdx.x, h - 1);
        int x = max(tileX - 1, 0);
        int at = (threadIdx.x + 1) * (bx + 2);
        if (threadIdx.x < by) {
            du[at] = du0[y * s + x];
            dv[at] = dv0[y * s + x];

            x = min(tileX + bx, w - 1);
            at += bx + 1;
            du[at] = du0[y * s + x];
            dv[at] = dv0[y * s + x];
        }
    }

    __syncthreads();

    if (ix >= w || iy >= h)
        return;

    const int west = tilePos - 1;
    const int east = tilePos + 1;
    const int north = tilePos + bx + 2;
    const int south = tilePos - bx - 2;

    float meanU = (du[west] + du[east] + du[north] + du[south]) * 0.25f;
    float meanV = (dv[west] + dv[east] + dv[north] + dv[south]) * 0.25f;

    float frac = (Ix[pos] * meanU + Iy[pos] * meanV + Iz[pos]) / (Ix[pos] * Ix[pos] + Iy[pos] * Iy[pos] + alpha);

    du1[pos] = meanU - Ix[pos] * frac;
    dv1[pos] = meanV - Iy[pos] * frac;
}
"""

_HS_WGSL = """
struct Params {
  w : i32,
  h : i32,
  s : i32,
  alpha : f32,
}

@group(0) @binding(0) var<storage, read> du0 : array<f32>;
@group(0) @binding(1) var<storage, read> dv0 : array<f32>;
@group(0) @binding(2) var<storage, read> Ix : array<f32>;
@group(0) @binding(3) var<storage, read> Iy : array<f32>;
@group(0) @binding(4) var<storage, read> Iz : array<f32>;
@group(0) @binding(5) var<storage, read_write> du1 : array<f32>;
@group(0) @binding(6) var<storage, read_write> dv1 : array<f32>;
@group(0) @binding(7) var<uniform> params : Params;

const bx = 32;
const by = 6;
var<workgroup> du : array<f32, 272>;  // (bx + 2) * (by + 2)
var<workgroup> dv : array<f32, 272>;

@compute @workgroup_size(32, 6)
fn JacobiIteration(@builtin(workgroup_id) wg : vec3u, @builtin(local_invocation_id) lid : vec3u) {
  let tx = i32(lid.x);
  let ty = i32(lid.y);
  let ix = i32(wg.x) * bx + tx;
  let iy = i32(wg.y) * by + ty;
  let w = params.w;
  let h = params.h;
  let s = params.s;
  let pos = min(ix, w - 1) + min(iy, h - 1) * s;
  let tilePos = (ty + 1) * (bx + 2) + tx + 1;

  du[tilePos] = du0[pos];
  dv[tilePos] = dv0[pos];

  let tileX = i32(wg.x) * bx;
  let tileY = i32(wg.y) * by;
  if (ty == 0) {
    let x = min(tileX + tx, w - 1);
    var y = max(tileY - 1, 0);
    var at = tx + 1;
    du[at] = du0[y * s + x];
    dv[at] = dv0[y * s + x];
    y = min(tileY + by, h - 1);
    at += (by + 1) * (bx + 2);
    du[at] = du0[y * s + x];
    dv[at] = dv0[y * s + x];
  } else if (ty == 1) {
    let y = min(tileY + tx, h - 1);
    var x = max(tileX - 1, 0);
    var at = (tx + 1) * (bx + 2);
    if (tx < by) {
      du[at] = du0[y * s + x];
      dv[at] = dv0[y * s + x];
      x = min(tileX + bx, w - 1);
      at += bx + 1;
      du[at] = du0[y * s + x];
      dv[at] = dv0[y * s + x];
    }
  }

  workgroupBarrier();

  if (ix >= w || iy >= h) {
    return;
  }

  let west = tilePos - 1;
  let east = tilePos + 1;
  let north = tilePos + bx + 2;
  let south = tilePos - bx - 2;

  let meanU = (du[west] + du[east] + du[north] + du[south]) * 0.25;
  let meanV = (dv[west] + dv[east] + dv[north] + dv[south]) * 0.25;

  let frac = (Ix[pos] * meanU + Iy[pos] * meanV + Iz[pos]) / (Ix[pos] * Ix[pos] + Iy[pos] * Iy[pos] + params.alpha);

  du1[pos] = meanU - Ix[pos] * frac;
  dv1[pos] = meanV - Iy[pos] * frac;
}
"""


def _horn_schunck_step(du0, dv0, Ix, Iy, Iz, du1, dv1, w, h, alpha):
    """One Jacobi step of Horn-Schunck over the w x h image in rows of the stride: the
    mean of the four neighbours (the edge repeated past the image), then the update
    along the gradient. The padding past each row's w is left as it was."""
    h, w = int(h), int(w)

    def image(a):
        return a[:h, :w].astype(np.float64)

    def neighbours_mean(field):
        p = np.pad(field, 1, mode="edge")
        return (p[1:-1, :-2] + p[1:-1, 2:] + p[:-2, 1:-1] + p[2:, 1:-1]) / 4.0

    u_bar = neighbours_mean(image(du0))
    v_bar = neighbours_mean(image(dv0))
    gx, gy, gt = image(Ix), image(Iy), image(Iz)
    frac = (gx * u_bar + gy * v_bar + gt) / (gx**2 + gy**2 + float(alpha))
    du1[:h, :w] = u_bar - gx * frac
    dv1[:h, :w] = v_bar - gy * frac


_HS_FIELD = dict(shape=("h", "s"))

HS_JACOBI = Wild(
    KernelSpec(
        id="wild_r80_cuda_samples_hs_optical_flow_jacobi",
        entry_point="JacobiIteration",
        entry_points={"cuda": "JacobiIteration<32, 6>"},
        sources={"cuda": _HS_CUDA, "wgsl": _HS_WGSL},
        # s: the rows' stride, the host's width rounded up to 32 (iAlignUp)
        dims=("h", "w", "s"),
        buffers=(
            BufferSpec(0, "f32", "read", name="du0", fill=(-2.0, 2.0), **_HS_FIELD),
            BufferSpec(1, "f32", "read", name="dv0", fill=(-2.0, 2.0), **_HS_FIELD),
            BufferSpec(2, "f32", "read", name="Ix", fill=(-1.0, 1.0), **_HS_FIELD),
            BufferSpec(3, "f32", "read", name="Iy", fill=(-1.0, 1.0), **_HS_FIELD),
            BufferSpec(4, "f32", "read", name="Iz", fill=(-1.0, 1.0), **_HS_FIELD),
            BufferSpec(5, "f32", "read_write", name="du1", initial=0.0, **_HS_FIELD),
            BufferSpec(6, "f32", "read_write", name="dv1", initial=0.0, **_HS_FIELD),
            BufferSpec.uniform(
                7, (("w", "i32"), ("h", "i32"), ("s", "i32"), ("alpha", "f32")), name="params"
            ),
        ),
        reference=_horn_schunck_step,
        params=lambda size: {"w": int(size.w), "h": int(size.h), "s": int(size.s)},
        defaults={"alpha": _HS_ALPHA},
        # SolveForUpdate: 32 x 6 blocks, iDivUp(w, 32) x iDivUp(h, 6)
        grid=lambda s, size: (ceil_div(int(size.w), 32), ceil_div(int(size.h), 6), 1),
        schedules=(Schedule((32, 6)),),
        nonfinite_inputs=False,
        test_sizes=("h=13,w=70,s=96", "h=6,w=32,s=32"),
    ),
    {
        "the mean's south neighbour one short": (
            "wgsl",
            "let south = tilePos - bx - 2;",
            "let south = tilePos - bx - 1;",
        ),
        "the update of du along Iy": (
            "wgsl",
            "du1[pos] = meanU - Ix[pos] * frac;",
            "du1[pos] = meanU - Iy[pos] * frac;",
        ),
        "rows w apart, not s": (
            "wgsl",
            "let pos = min(ix, w - 1) + min(iy, h - 1) * s;",
            "let pos = min(ix, w - 1) + min(iy, h - 1) * w;",
        ),
        "CUDA: the barrier dropped": (
            "cuda",
            "    __syncthreads();\n",
            "",
        ),
        "CUDA: alpha left out of the denominator": (
            "cuda",
            "Iy[pos] * Iy[pos] + alpha);",
            "Iy[pos] * Iy[pos]);",
        ),
        "CUDA: the right halo column one left": (
            "cuda",
            "x = min(tileX + bx, w - 1);",
            "x = min(tileX + bx - 1, w - 1);",
        ),
    },
    races=frozenset({"CUDA: the barrier dropped"}),
)


# -- cuda-debayer: bilinear RGGB demosaicing ------------------------------------------------

_BAYER_BPP = 4  # the host's bytes a pixel out (3 or 4; 4 writes alpha)

_BAYER_CUDA = r"""// kernel-forge corpus: avionic-design/cuda-debayer's bayer_to_rgb (read, not copied).
#include <cstdint>

#define AT(x, y, imgw) ((x) + (y) * (imgw))

#define RED 0
#define GREEN 1
#define BLUE 2

// Bilinear demosaicing of an RGGB mosaic. A thread a 2 x 2 square whose top left pixel
// (x, y) is odd in both: blue there, green right of it and below it, red diagonally
// below right, so each of the four pixels knows its colours without a branch. A square
// whose neighbours would leave the image is left out.
__global__ void bayer_to_rgb(uint8_t *in, uint8_t *out, uint32_t imgw,
        uint32_t imgh, uint8_t bpp)
{
    int x = 2 * (blockIdx.x * blockDim.x + threadIdx.x) + 1;
    int y = 2 * (blockIdx.y * blockDim.y + threadIdx.y) + 1;
    int rowBytes = imgw * bpp;

    if ((x + 2) < imgw && (x - 1) >= 0 && (y + 2) < imgh && (y - 1) >= 0) {
        // the red pixel (x + 1, y + 1): green across, blue on the diagonals
        uint8_t *px = out + (y + 1) * rowBytes + (x + 1) * bpp;
        px[RED] = in[AT(x + 1, y + 1, imgw)];
        px[GREEN] = ((uint32_t)in[AT(x + 1, y, imgw)] + in[AT(x + 1, y + 2, imgw)] +
                     in[AT(x, y + 1, imgw)] + in[AT(x + 2, y + 1, imgw)]) / 4;
        px[BLUE] = ((uint32_t)in[AT(x, y, imgw)] + in[AT(x + 2, y, imgw)] +
                    in[AT(x, y + 2, imgw)] + in[AT(x + 2, y + 2, imgw)]) / 4;

        // the green pixel (x, y + 1) on a red row: red left and right, blue above and below
        px = out + (y + 1) * rowBytes + x * bpp;
        px[RED] = ((uint32_t)in[AT(x - 1, y + 1, imgw)] + in[AT(x + 1, y + 1, imgw)]) / 2;
        px[GREEN] = in[AT(x, y + 1, imgw)];
        px[BLUE] = ((uint32_t)in[AT(x, y, imgw)] + in[AT(x, y + 2, imgw)]) / 2;

        // the green pixel (x + 1, y) on a blue row: red above and below, blue left and right
        px = out + y * rowBytes + (x + 1) * bpp;
        px[RED] = ((uint32_t)in[AT(x + 1, y - 1, imgw)] + in[AT(x + 1, y + 1, imgw)]) / 2;
        px[GREEN] = in[AT(x + 1, y, imgw)];
        px[BLUE] = ((uint32_t)in[AT(x, y, imgw)] + in[AT(x + 2, y, imgw)]) / 2;

        // the blue pixel (x, y): red on the diagonals, green across
        px = out + y * rowBytes + x * bpp;
        px[RED] = ((uint32_t)in[AT(x - 1, y - 1, imgw)] + in[AT(x + 1, y - 1, imgw)] +
                   in[AT(x - 1, y + 1, imgw)] + in[AT(x + 1, y + 1, imgw)]) / 4;
        px[GREEN] = ((uint32_t)in[AT(x, y - 1, imgw)] + in[AT(x, y + 1, imgw)] +
                     in[AT(x - 1, y, imgw)] + in[AT(x + 1, y, imgw)]) / 4;
        px[BLUE] = in[AT(x, y, imgw)];

        if (bpp == 4) {
            out[y * rowBytes + x * bpp + 3] = 255;
            out[y * rowBytes + (x + 1) * bpp + 3] = 255;
            out[(y + 1) * rowBytes + x * bpp + 3] = 255;
            out[(y + 1) * rowBytes + (x + 1) * bpp + 3] = 255;
        }
    }
}
"""

# The port: WGSL stores no bytes, so the mosaic and the output hold a byte a u32 word.
_BAYER_WGSL = """
struct Params {
  imgw : u32,
  imgh : u32,
  bpp : u32,
}

@group(0) @binding(0) var<storage, read> inp : array<u32>;
@group(0) @binding(1) var<storage, read_write> out : array<u32>;
@group(0) @binding(2) var<uniform> params : Params;

const RED = 0;
const GREEN = 1;
const BLUE = 2;

fn at(x : i32, y : i32) -> u32 {
  return inp[x + y * i32(params.imgw)];
}

fn put(x : i32, y : i32, channel : i32, value : u32) {
  out[y * i32(params.imgw * params.bpp) + x * i32(params.bpp) + channel] = value;
}

// 16 x 16 invocations (the host's blocks are 32 x 32; WebGPU's default limit is 256)
@compute @workgroup_size(16, 16)
fn bayer_to_rgb(@builtin(global_invocation_id) gid : vec3u) {
  let x = 2 * i32(gid.x) + 1;
  let y = 2 * i32(gid.y) + 1;
  let w = i32(params.imgw);
  let h = i32(params.imgh);
  if ((x + 2) < w && (x - 1) >= 0 && (y + 2) < h && (y - 1) >= 0) {
    // red at (x + 1, y + 1)
    put(x + 1, y + 1, RED, at(x + 1, y + 1));
    put(x + 1, y + 1, GREEN, (at(x + 1, y) + at(x + 1, y + 2) + at(x, y + 1) + at(x + 2, y + 1)) / 4u);
    put(x + 1, y + 1, BLUE, (at(x, y) + at(x + 2, y) + at(x, y + 2) + at(x + 2, y + 2)) / 4u);
    // green at (x, y + 1), a red row
    put(x, y + 1, RED, (at(x - 1, y + 1) + at(x + 1, y + 1)) / 2u);
    put(x, y + 1, GREEN, at(x, y + 1));
    put(x, y + 1, BLUE, (at(x, y) + at(x, y + 2)) / 2u);
    // green at (x + 1, y), a blue row
    put(x + 1, y, RED, (at(x + 1, y - 1) + at(x + 1, y + 1)) / 2u);
    put(x + 1, y, GREEN, at(x + 1, y));
    put(x + 1, y, BLUE, (at(x, y) + at(x + 2, y)) / 2u);
    // blue at (x, y)
    put(x, y, RED, (at(x - 1, y - 1) + at(x + 1, y - 1) + at(x - 1, y + 1) + at(x + 1, y + 1)) / 4u);
    put(x, y, GREEN, (at(x, y - 1) + at(x, y + 1) + at(x - 1, y) + at(x + 1, y)) / 4u);
    put(x, y, BLUE, at(x, y));
    if (params.bpp == 4u) {
      put(x, y, 3, 255u);
      put(x + 1, y, 3, 255u);
      put(x, y + 1, 3, 255u);
      put(x + 1, y + 1, 3, 255u);
    }
  }
}
"""


def _demosaic(mosaic, bpp) -> np.ndarray:
    """Bilinear RGGB demosaicing (red where row and column are even, blue where both are
    odd), each missing colour the truncated mean of the nearest samples of it; only the
    pixels of the 2 x 2 squares from (1, 1) whose neighbours are all inside the image
    are written (the others stay zero), alpha 255 with four bytes a pixel."""
    img = np.asarray(mosaic, np.int64)
    h, w = img.shape
    p = np.pad(img, 1)
    cross = (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:]) // 4
    diagonal = (p[:-2, :-2] + p[:-2, 2:] + p[2:, :-2] + p[2:, 2:]) // 4
    across = (p[1:-1, :-2] + p[1:-1, 2:]) // 2  # left and right
    updown = (p[:-2, 1:-1] + p[2:, 1:-1]) // 2  # above and below

    yy, xx = np.mgrid[0:h, 0:w]
    red_site = (yy % 2 == 0) & (xx % 2 == 0)
    blue_site = (yy % 2 == 1) & (xx % 2 == 1)
    green_red_row = (yy % 2 == 0) & (xx % 2 == 1)
    green_blue_row = (yy % 2 == 1) & (xx % 2 == 0)

    out = np.zeros((h, w, int(bpp)), np.int64)
    out[..., 0] = np.select(
        [red_site, blue_site, green_red_row, green_blue_row], [img, diagonal, across, updown]
    )
    out[..., 1] = np.where(red_site | blue_site, cross, img)
    out[..., 2] = np.select(
        [red_site, blue_site, green_red_row, green_blue_row], [diagonal, img, updown, across]
    )
    if int(bpp) == 4:
        out[..., 3] = 255

    # the squares: top left (x, y) odd with x + 2 < w and y + 2 < h
    squares_x = np.arange(1, w, 2)
    squares_x = squares_x[squares_x + 2 < w]
    squares_y = np.arange(1, h, 2)
    squares_y = squares_y[squares_y + 2 < h]
    written = np.zeros((h, w), bool)
    for sy in squares_y:
        for sx in squares_x:
            written[sy : sy + 2, sx : sx + 2] = True
    out[~written] = 0
    return out


def _bayer_cuda(mosaic, out):
    return _demosaic(mosaic, _BAYER_BPP).astype(np.uint8)


def _bayer_wgsl(inp, out):
    return _demosaic(inp, _BAYER_BPP).astype(np.uint32)


#: an odd width (a square's right neighbour the last column); more than one block
#: each way; a sliver of one square
_BAYER_SIZES = ("imgh=70,imgw=75", "imgh=20,imgw=36", "imgh=4,imgw=5")


def _bayer_grid(s, size):
    # the host's (width / 2 + 31) / 32 x (height / 2 + 31) / 32 blocks of 32 x 32
    return (ceil_div(int(size.imgw) // 2, 32), ceil_div(int(size.imgh) // 2, 32), 1)


BAYER = Wild(
    KernelSpec(
        id="wild_r80_cuda_debayer_bayer_to_rgb",
        entry_point="bayer_to_rgb",
        sources={"cuda": _BAYER_CUDA},
        dims=("imgh", "imgw"),
        buffers=(
            BufferSpec(0, "u8", "read", name="in", shape=("imgh", "imgw")),
            BufferSpec(
                1,
                "u8",
                "read_write",
                name="out",
                count=lambda size: int(size) * _BAYER_BPP,
                shape=("imgh", "imgw", _BAYER_BPP),
                initial=0,
            ),
        ),
        reference=_bayer_cuda,
        params=lambda size: {"imgw": np.uint32(int(size.imgw)), "imgh": np.uint32(int(size.imgh))},
        defaults={"bpp": np.uint8(_BAYER_BPP)},
        grid=_bayer_grid,
        schedules=(Schedule((32, 32)),),
        test_sizes=_BAYER_SIZES,
    ),
    {
        "CUDA: green at red from above twice": (
            "cuda",
            "px[GREEN] = ((uint32_t)in[AT(x + 1, y, imgw)] + in[AT(x + 1, y + 2, imgw)] +",
            "px[GREEN] = ((uint32_t)in[AT(x + 1, y, imgw)] + in[AT(x + 1, y, imgw)] +",
        ),
        "CUDA: red and blue swapped (BGR)": (
            "cuda",
            "#define RED 0\n#define GREEN 1\n#define BLUE 2\n",
            "#define RED 2\n#define GREEN 1\n#define BLUE 0\n",
        ),
        "CUDA: the row's bytes without bpp": (
            "cuda",
            "int rowBytes = imgw * bpp;",
            "int rowBytes = imgw;",
        ),
        "CUDA: the right edge one column further": (
            "cuda",
            "if ((x + 2) < imgw && (x - 1) >= 0",
            "if ((x + 1) < imgw && (x - 1) >= 0",
        ),
    },
)

BAYER_PORT = Wild(
    KernelSpec(
        id="wild_r80_cuda_debayer_bayer_to_rgb_webgpu_port",
        entry_point="bayer_to_rgb",
        sources={"wgsl": _BAYER_WGSL},
        dims=("imgh", "imgw"),
        buffers=(
            BufferSpec(0, "u32", "read", name="inp", shape=("imgh", "imgw"), fill=(0, 255)),
            BufferSpec(
                1,
                "u32",
                "read_write",
                name="out",
                count=lambda size: int(size) * _BAYER_BPP,
                shape=("imgh", "imgw", _BAYER_BPP),
                initial=0,
            ),
            BufferSpec.uniform(
                2, (("imgw", "u32"), ("imgh", "u32"), ("bpp", "u32")), name="params"
            ),
        ),
        reference=_bayer_wgsl,
        params=lambda size: {"imgw": int(size.imgw), "imgh": int(size.imgh)},
        defaults={"bpp": _BAYER_BPP},
        grid=lambda s, size: (
            ceil_div(int(size.imgw) // 2, 16),
            ceil_div(int(size.imgh) // 2, 16),
            1,
        ),
        schedules=(Schedule((16, 16)),),
        test_sizes=_BAYER_SIZES,
    ),
    {
        "blue at blue read from the red": (
            "wgsl",
            "put(x, y, BLUE, at(x, y));",
            "put(x, y, BLUE, at(x + 1, y + 1));",
        ),
        "the diagonal mean over two": (
            "wgsl",
            "put(x, y, RED, (at(x - 1, y - 1) + at(x + 1, y - 1) + at(x - 1, y + 1) + at(x + 1, y + 1)) / 4u);",
            "put(x, y, RED, (at(x - 1, y - 1) + at(x + 1, y + 1)) / 2u);",
        ),
        "the first square at (0, 0)": (
            "wgsl",
            "let x = 2 * i32(gid.x) + 1;",
            "let x = 2 * i32(gid.x);",
        ),
    },
)

# -- stereoDisparity: SAD block matching through two textures ---------------------------------

#: the host's textures: cudaCreateChannelDesc<unsigned int>() over pitched memory, point
#: sampling, clamp on both axes, unnormalised coordinates, read as element type
_STEREO_SAMPLER = Sampler("nearest", "clamp", normalized=False)
_STEREO_MIN, _STEREO_MAX = -16, 0  # the host's minDisp and maxDisp

_STEREO_CUDA = r"""// kernel-forge corpus: cuda-samples' stereoDisparity (read, not copied).
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define blockSize_x 32
#define blockSize_y 8
// the window's radius: a (2 RAD + 1)^2 window a pixel
#define RAD 8
// the shared rows each thread loads: RAD apart, from -RAD
#define STEPS 3

// the four bytes' absolute differences summed, by the video instruction
__device__ unsigned int __usad4(unsigned int A, unsigned int B, unsigned int C = 0)
{
    unsigned int sad;
    asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(sad) : "r"(A), "r"(B), "r"(C));
    return sad;
}

// For each pixel, the horizontal shift d in [minDisparity, maxDisparity] at which the
// window around it in the left image best matches the right image shifted by d (the
// least sum of absolute differences; the first such d), written as d + 8. Per d, the
// block's per-pixel costs over its tile and halo go through shared memory, summed along
// rows and then down columns.
__global__ void stereoDisparityKernel(unsigned int *g_img0, unsigned int *g_img1, unsigned int *g_odata, int w, int h,
                                      int minDisparity, int maxDisparity, cudaTextureObject_t tex2Dleft,
                                      cudaTextureObject_t tex2Dright)
{
    cg::thread_block block = cg::this_thread_block();
    const int px = blockIdx.x * blockDim.x + threadIdx.x;
    const int py = blockIdx.y * blockDim.y + threadIdx.y;
    const unsigned int sx = threadIdx.x + RAD;
    const unsigned int sy = threadIdx.y + RAD;

    __shared__ unsigned int diff[blockSize_y + 2 * RAD][blockSize_x + 2 * RAD];

    unsigned int bestCost = 9999999;
    unsigned int bestDisparity = 0;

    // this thread's left pixels, kept in registers for every d: its own column and the
    // one a block to the right (for the halo), in each of its rows
    unsigned int leftNear[STEPS];
    unsigned int leftFar[STEPS];
    for (int k = 0; k < STEPS; k++) {
        int dy = -RAD + k * RAD;
        leftNear[k] = tex2D<unsigned int>(tex2Dleft, px - RAD, py + dy);
        leftFar[k] = tex2D<unsigned int>(tex2Dleft, px - RAD + blockSize_x, py + dy);
    }

    for (int d = minDisparity; d <= maxDisparity; d++) {
#pragma unroll
        for (int k = 0; k < STEPS; k++) {
            int dy = -RAD + k * RAD;
            unsigned int right = tex2D<unsigned int>(tex2Dright, px - RAD + d, py + dy);
            diff[sy + dy][sx - RAD] = __usad4(leftNear[k], right);
        }
#pragma unroll
        for (int k = 0; k < STEPS; k++) {
            int dy = -RAD + k * RAD;
            if (threadIdx.x < 2 * RAD) {
                unsigned int right = tex2D<unsigned int>(tex2Dright, px - RAD + blockSize_x + d, py + dy);
                diff[sy + dy][sx - RAD + blockSize_x] = __usad4(leftFar[k], right);
            }
        }

        cg::sync(block);

        // along each of this thread's rows, in place
#pragma unroll
        for (int k = 0; k < STEPS; k++) {
            int dy = -RAD + k * RAD;
            unsigned int rowSum = 0;
#pragma unroll
            for (int i = -RAD; i <= RAD; i++) {
                rowSum += diff[sy + dy][sx + i];
            }
            cg::sync(block);
            diff[sy + dy][sx] = rowSum;
            cg::sync(block);
        }

        // then down the column
        unsigned int cost = 0;
#pragma unroll
        for (int i = -RAD; i <= RAD; i++) {
            cost += diff[sy + i][sx];
        }

        if (cost < bestCost) {
            bestCost = cost;
            bestDisparity = d + 8;
        }

        cg::sync(block);
    }

    if (py < h && px < w) {
        g_odata[py * w + px] = bestDisparity;
    }
}
"""

_STEREO_WGSL = """
struct Params {
  w : i32,
  h : i32,
  minDisparity : i32,
  maxDisparity : i32,
}

@group(0) @binding(0) var<storage, read_write> g_odata : array<u32>;
@group(0) @binding(1) var<uniform> params : Params;
@group(0) @binding(2) var tex2Dleft : texture_2d<u32>;
@group(0) @binding(3) var tex2Dright : texture_2d<u32>;

const blockSize_x = 32;
const blockSize_y = 8;
const RAD = 8;
const STEPS = 3;

var<workgroup> diff : array<array<u32, 48>, 24>;  // [blockSize_y + 2 RAD][blockSize_x + 2 RAD]

// tex2D<unsigned int> of the host's textures: a point read in texels, clamped
fn tex2D(which : u32, x : i32, y : i32) -> u32 {
  let last = vec2i(textureDimensions(tex2Dleft, 0)) - 1;
  let at = clamp(vec2i(x, y), vec2i(0), last);
  if (which == 0u) {
    return textureLoad(tex2Dleft, at, 0).r;
  }
  return textureLoad(tex2Dright, at, 0).r;
}

// __usad4: the four bytes' absolute differences, summed
fn usad4(a : u32, b : u32) -> u32 {
  let x = vec4i(unpack4xU8(a));
  let y = vec4i(unpack4xU8(b));
  let d = abs(x - y);
  return u32(d.x + d.y + d.z + d.w);
}

@compute @workgroup_size(32, 8)
fn stereoDisparityKernel(@builtin(workgroup_id) wg : vec3u, @builtin(local_invocation_id) lid : vec3u) {
  let px = i32(wg.x) * blockSize_x + i32(lid.x);
  let py = i32(wg.y) * blockSize_y + i32(lid.y);
  let sx = i32(lid.x) + RAD;
  let sy = i32(lid.y) + RAD;

  var bestCost = 9999999u;
  var bestDisparity = 0u;

  var leftNear : array<u32, 3>;
  var leftFar : array<u32, 3>;
  for (var k = 0; k < STEPS; k++) {
    let dy = -RAD + k * RAD;
    leftNear[k] = tex2D(0u, px - RAD, py + dy);
    leftFar[k] = tex2D(0u, px - RAD + blockSize_x, py + dy);
  }

  for (var d = params.minDisparity; d <= params.maxDisparity; d++) {
    for (var k = 0; k < STEPS; k++) {
      let dy = -RAD + k * RAD;
      diff[sy + dy][sx - RAD] = usad4(leftNear[k], tex2D(1u, px - RAD + d, py + dy));
    }
    for (var k = 0; k < STEPS; k++) {
      let dy = -RAD + k * RAD;
      if (i32(lid.x) < 2 * RAD) {
        diff[sy + dy][sx - RAD + blockSize_x] = usad4(leftFar[k], tex2D(1u, px - RAD + blockSize_x + d, py + dy));
      }
    }

    workgroupBarrier();

    for (var k = 0; k < STEPS; k++) {
      let dy = -RAD + k * RAD;
      var rowSum = 0u;
      for (var i = -RAD; i <= RAD; i++) {
        rowSum += diff[sy + dy][sx + i];
      }
      workgroupBarrier();
      diff[sy + dy][sx] = rowSum;
      workgroupBarrier();
    }

    var cost = 0u;
    for (var i = -RAD; i <= RAD; i++) {
      cost += diff[sy + i][sx];
    }

    if (cost < bestCost) {
      bestCost = cost;
      bestDisparity = u32(d + 8);
    }

    workgroupBarrier();
  }

  if (py < params.h && px < params.w) {
    g_odata[py * params.w + px] = bestDisparity;
  }
}
"""


def _stereo_image(rng, count, size):
    """An RGBX image (a u32 a pixel, red in the low byte, X 0 as sdkLoadPPM4ub leaves it)
    of flat 4 x 4 patches in a few grey levels with coloured texture on a sixth of the
    pixels: textureless stretches, where shifts match as well and the tie rule decides,
    beside textured ones."""
    h, w = int(size.h), int(size.w)
    levels = rng.choice(np.array([16, 96, 176], np.uint32), (ceil_div(h, 4), ceil_div(w, 4)))
    grey = np.kron(levels, np.ones((4, 4), np.uint32))[:h, :w]
    rgb = np.stack([grey] * 3, -1)
    noisy = rng.random((h, w)) < 0.15
    rgb = np.where(noisy[..., None], rng.integers(0, 256, (h, w, 3)).astype(np.uint32), rgb)
    return (rgb[..., 0] | (rgb[..., 1] << 8) | (rgb[..., 2] << 16)).astype(np.uint32).reshape(-1)


def _window_costs(tex2Dleft, tex2Dright, minDisparity, maxDisparity) -> np.ndarray:
    """Per shift d from ``minDisparity`` to ``maxDisparity`` and per pixel, the sum over
    the 17 x 17 window around it of the absolute differences of the four bytes between
    the left image and the right one d columns over (coordinates clamped to each
    image)."""
    left = np.asarray(tex2Dleft, np.uint32)
    right = np.asarray(tex2Dright, np.uint32)
    h, w = left.shape
    rad = 8
    rows = np.clip(np.arange(-rad, h + rad), 0, h - 1)
    cols = np.arange(-rad, w + rad)

    def channels(img, c):
        px = img[np.ix_(rows, np.clip(c, 0, w - 1))]
        return np.stack([(px >> (8 * k)) & 0xFF for k in range(4)], -1).astype(np.int64)

    left_bytes = channels(left, cols)
    costs = []
    for d in range(int(minDisparity), int(maxDisparity) + 1):
        per_pixel = np.abs(left_bytes - channels(right, cols + d)).sum(-1)
        window = np.lib.stride_tricks.sliding_window_view(per_pixel, (2 * rad + 1, 2 * rad + 1))
        costs.append(window.sum(axis=(-1, -2)))
    return np.stack(costs)


def _disparities(tex2Dleft, tex2Dright, minDisparity, maxDisparity):
    """Block matching: the first shift of least window cost (``_window_costs``), stored
    as d + 8 in an unsigned int."""
    best = np.argmin(_window_costs(tex2Dleft, tex2Dright, minDisparity, maxDisparity), axis=0)
    return ((best + int(minDisparity) + 8) & 0xFFFFFFFF).astype(np.uint32)


def _stereo_cuda(g_odata, tex2Dleft, tex2Dright, minDisparity, maxDisparity):
    return _disparities(tex2Dleft, tex2Dright, minDisparity, maxDisparity)


_STEREO_SIZES = ("h=20,w=40", "h=8,w=32")
_STEREO_TEXTURES = tuple(
    BufferSpec(
        binding,
        name=name,
        texture="r32uint",
        shape=("h", "w"),
        sampler=_STEREO_SAMPLER,
        fill=_stereo_image,
    )
    for binding, name in ((3, "tex2Dleft"), (4, "tex2Dright"))
)


def _stereo_grid(s, size):
    # the host's iDivUp(w, blockSize_x) x iDivUp(h, blockSize_y)
    return (ceil_div(int(size.w), 32), ceil_div(int(size.h), 8), 1)


STEREO = Wild(
    KernelSpec(
        id="wild_r80_cuda_samples_stereo_disparity",
        entry_point="stereoDisparityKernel",
        sources={"cuda": _STEREO_CUDA},
        dims=("h", "w"),
        buffers=(
            # the images the host also binds as the textures: the kernel never reads them
            BufferSpec(0, "u32", "read", name="g_img0", shape=("h", "w")),
            BufferSpec(1, "u32", "read", name="g_img1", shape=("h", "w")),
            BufferSpec(2, "u32", "read_write", name="g_odata", shape=("h", "w")),
            *_STEREO_TEXTURES,
        ),
        reference=_stereo_cuda,
        params=lambda size: {"w": int(size.w), "h": int(size.h)},
        defaults={"minDisparity": _STEREO_MIN, "maxDisparity": _STEREO_MAX},
        grid=_stereo_grid,
        schedules=(Schedule((32, 8)),),
        test_sizes=_STEREO_SIZES,
    ),
    {
        "CUDA: the last of equal costs, not the first": (
            "cuda",
            "if (cost < bestCost) {",
            "if (cost <= bestCost) {",
        ),
        "CUDA: the barrier before the row sums are stored dropped": (
            "cuda",
            "            cg::sync(block);\n            diff[sy + dy][sx] = rowSum;\n",
            "            diff[sy + dy][sx] = rowSum;\n",
        ),
        "CUDA: the column sum one row short": (
            "cuda",
            "        for (int i = -RAD; i <= RAD; i++) {\n            cost += diff[sy + i][sx];",
            "        for (int i = -RAD; i < RAD; i++) {\n            cost += diff[sy + i][sx];",
        ),
        "CUDA: the right halo half loaded": (
            "cuda",
            "if (threadIdx.x < 2 * RAD) {",
            "if (threadIdx.x < RAD) {",
        ),
    },
)

STEREO_PORT = Wild(
    KernelSpec(
        id="wild_r80_cuda_samples_stereo_disparity_webgpu_port",
        entry_point="stereoDisparityKernel",
        sources={"wgsl": _STEREO_WGSL},
        dims=("h", "w"),
        buffers=(
            BufferSpec(0, "u32", "read_write", name="g_odata", shape=("h", "w")),
            BufferSpec.uniform(
                1,
                (("w", "i32"), ("h", "i32"), ("minDisparity", "i32"), ("maxDisparity", "i32")),
                name="params",
            ),
            *(
                BufferSpec(b, name=n, texture="r32uint", shape=("h", "w"), fill=_stereo_image)
                for b, n in ((2, "tex2Dleft"), (3, "tex2Dright"))
            ),
        ),
        reference=_stereo_cuda,
        params=lambda size: {"w": int(size.w), "h": int(size.h)},
        defaults={"minDisparity": _STEREO_MIN, "maxDisparity": _STEREO_MAX},
        grid=_stereo_grid,
        schedules=(Schedule((32, 8)),),
        test_sizes=_STEREO_SIZES,
    ),
    {
        "the right image shifted the other way": (
            "wgsl",
            "usad4(leftNear[k], tex2D(1u, px - RAD + d, py + dy))",
            "usad4(leftNear[k], tex2D(1u, px - RAD - d, py + dy))",
        ),
        "blue left out of the SAD": (
            "wgsl",
            "return u32(d.x + d.y + d.z + d.w);",
            "return u32(d.x + d.y + d.w);",
        ),
        "the disparity stored without its + 8": (
            "wgsl",
            "bestDisparity = u32(d + 8);",
            "bestDisparity = u32(d);",
        ),
    },
)


ROUND80: dict[str, Wild] = {
    wild.kernel.id: wild for wild in (DCT_QUANT, HS_JACOBI, BAYER, BAYER_PORT, STEREO, STEREO_PORT)
}

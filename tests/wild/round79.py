"""Round 79 of the wild kernels: CUDA texture objects as NVIDIA's cuda-samples pass them
(``cudaTextureObject_t`` by value, made by the host with ``cudaCreateTextureObject``),
the first in the corpus: before this round a user's texture kernel took a path only
tests/test_cuda_textures.py's own kernels had tried. Each is read, not copied (the
project's rule for public code): the entry points and parameters (names, types,
order), the block sizes and launch geometry of their hosts, the texture reads (the
coordinates each passes to ``tex2D``, the element type it reads) and the numerics are
theirs; the comments, local names and formatting ours. Each texture buffer declares
the ``Sampler`` its host's ``cudaTextureDesc`` sets (tests/test_wild_round79.py checks
the descriptors the backend makes from it against each host's settings).

From NVIDIA/cuda-samples (BSD 3-clause), read at 35a407d5799a3022e4f7340b28a6856bf87d977d
and f5cb14f3aa1aefa07059c287f0e875ada3ecde14:

- ``Samples/0_Introduction/simpleTexture/simpleTexture.cu``: ``transformKernel(float
  *outputData, int width, int height, float theta, cudaTextureObject_t tex)``, 8 x 8
  blocks, ``width / 8`` x ``height / 8`` of them and no bounds test (the host's image
  is 512 x 512), the image rotated by ``theta`` (the host's ``angle``, 0.5) about its
  centre, read with ``tex2D<float>`` at normalised coordinates ``tu + 0.5f``; the
  host's texture: a 32-bit float array, ``normalizedCoords = true``,
  ``cudaFilterModeLinear``, ``cudaAddressModeWrap`` on both axes,
  ``cudaReadModeElementType``. ``Sampler("linear", "repeat", normalized=True)`` over
  ``r32float``.
- ``Samples/2_Concepts_and_Techniques/convolutionTexture/convolutionTexture.cu``:
  ``convolutionRowsKernel`` and ``convolutionColumnsKernel(float *d_Dst, int imageW,
  int imageH, cudaTextureObject_t texSrc)``, 16 x 12 blocks, ``IMAD`` as ``__mul24``,
  the 17 taps unrolled through the recursive template ``convolutionRow<i>`` (so the
  sum runs from tap 0 up, each tap's product added to the rest), the weights in
  ``__constant__ float c_Kernel[17]`` (``cudaMemcpyToSymbol``), every read at a texel
  centre (``ix + 0.5f``). The host's texture (``main.cpp``): a float array,
  ``normalizedCoords = false``, ``cudaFilterModeLinear``, ``cudaAddressModeWrap``. The
  host runs the rows, copies their output into the same array, then runs the columns:
  two entries, each over its own input.
- ``Samples/5_Domain_Specific/SobelFilter/SobelFilter_kernels.cu``: ``SobelTex(Pixel
  *pSobelOriginal, unsigned int Pitch, int w, int h, float fScale,
  cudaTextureObject_t tex)`` (``Pixel`` is ``unsigned char``), a block of 384 threads
  a row striding along it, the nine ``tex2D<unsigned char>`` reads at
  ``(float)i - 1`` .. ``+ 1``, ``ComputeSobel``'s ``short`` sums and its clamp to a
  byte; the host's texture: ``cudaCreateChannelDesc<unsigned char>()``,
  ``normalizedCoords = false``, ``cudaFilterModePoint``, ``cudaAddressModeWrap`` (on
  x only), ``cudaReadModeElementType``; launched ``<<<ih, 384>>>`` with ``Pitch = iw``;
  ``fScale`` the viewer's brightness, 0.75 here.
- ``Samples/2_Concepts_and_Techniques/boxFilter/boxFilter_kernel.cu`` (at
  2e41896e1b2c7e2699b7b7f6689c107900c233bb): ``d_boxfilter_rgba_x(unsigned int *od,
  int w, int h, int r, cudaTextureObject_t rgbaTex)``, a thread a row (``<<<height /
  nthreads, nthreads>>>``, nthreads 64; radius 14, the sample's), the window's float4
  sum kept as it slides (the entering read added, the leaving one taken off),
  ``rgbaFloatToInt``'s ``__saturatef`` and truncation to bytes packed alpha-high; the
  host's ``rgbaTex``: ``cudaCreateChannelDesc(8, 8, 8, 8, Unsigned)`` read as
  ``cudaReadModeNormalizedFloat``, ``normalizedCoords = false``,
  ``cudaFilterModeLinear``, ``cudaAddressModeWrap``. Its reads at integer coordinates
  therefore blend 2 x 2 texels a quarter each (linear filtering reads around ``x -
  0.5``), as the sample does whether or not it meant to (kept). helper_math.h's float4
  operators it uses are written out (NVRTC has none).

Two refusals, closed this round, and two misjudgements, pinned
(tests/test_wild_round79.py says each):

- SobelFilter's texture could not be declared: kernel-forge had no one-byte texture
  format (``rgba8uint`` is four channels), so ``tex2D<unsigned char>`` over the host's
  ``cudaCreateChannelDesc<unsigned char>()`` array had nothing to read. ``r8uint`` is a
  format now (one ``u8`` a texel; CUDA: a one-channel ``UNSIGNED_INT8`` array read as
  integers; WebGPU: a ``texture_2d<u32>``, made without storage usage, which WebGPU's
  core does not allow it).
- Three hosts set ``cudaAddressModeWrap`` with ``normalizedCoords = false``
  (convolutionTexture, SobelFilter, boxFilter). The driver supports only clamp there
  (``cuTexRefSetAddressMode``: "if the flag, CU_TRSF_NORMALIZED_COORDINATES, is not
  set, the only supported address mode is CU_TR_ADDRESS_MODE_CLAMP"), so the entries
  declare ``address="clamp"``, which reads the same; kernel-forge refuses
  ``Sampler("...", "repeat", normalized=False)``, and its message offered
  ``normalized=True``, which would take the kernel's coordinates in texels as
  fractions of the extent: it now names ``address='clamp', normalized=False``.
- A false alarm on lavapipe, fixed: the box filter's port failed there at 887 of 1536
  words. lavapipe blends 8-bit unorm texels in codes (each pair with 8-bit weights,
  rounded half up, along x then y; measured bit for bit,
  ``forge.textures.CODE_FILTERING_ADAPTERS``), which the oracle's filtering bound (the
  weights' 8 bits) did not cover, and the packed words truncated from 29 such reads
  are judged exactly. The oracle now reruns the reference with its reads filtered so
  on such an adapter (``Expected.filtered_runs``), also with float32's roundings of
  what it computes from them, and takes a word one of those runs gives.
- The box's verdict on SwiftShader depended on how its reference spells the window's
  sums: elementwise it passed; in one ``np.add.accumulate`` (the same words) it failed
  4 words. ``forge.textures.sample`` returned plain arrays, so the rounding reruns saw
  none of the arithmetic made of the reads; it now keeps the reruns' arrays, and both
  spellings pass.

WebGPU ports, ours, one a CUDA kernel, so the numerics are checked on this machine's
adapters: ``r32float`` is not filterable in WebGPU's core, so the rotation's and the
convolutions' ports filter by hand (``tex2D``: the four texels around ``p * extent -
0.5`` through ``textureLoad``, wrapped or clamped as the host's texture does); the
box's port reads through a linear sampler (rgba8unorm is filterable) at ``x / w``; the
Sobel port reads ``r8uint`` through ``texture_2d<u32>`` and writes a ``u32`` a pixel
(WGSL stores no bytes), 256 invocations a row (WebGPU's default limit; the host's
384). The references sample through ``forge.textures.sample`` with the declared
sampler, so the oracle knows where NVIDIA's 8-bit filter weights may differ (the
rotation's reads) and where they may not (the convolutions' and the box's, at texel
centres and half texels). Inputs are finite (``nonfinite_inputs=False``): an image,
where a linear filter's zero weight times an infinite neighbour is NaN on one device
and not on another.

Mutants (15 WGSL, 11 CUDA): the recentring ``+ 0.5`` or the texel centre's ``+ 0.5``
dropped (a shift, or a half-texel blend at texel edges), the filter's ``- 0.5``
dropped, the coordinates swapped in ``tex2D``, a normalisation by the width where the
height is meant, a rotation the other way, clamp where the host wraps, the taps
reversed or read along the column, a row pitch of the height, a Sobel weight's sign,
a read transposed or one row down, the byte clamp dropped, a sum rounded where C
truncates, the box's leaving or entering texel misplaced, its first window from 0,
its scale 1 / 2r, red and blue swapped. Each WGSL mutant fails on lavapipe and
SwiftShader; each
CUDA mutant has its bug written into the port (tests/test_wild_round79.py
``_CUDA_TWINS``), which fails on lavapipe (the box's on SwiftShader).

For the GPU run to confirm: each CUDA original passes on the H100 (the rotation's
reads through NVIDIA's 8-bit filter weights within the oracle's filtering bound; the
convolutions' exact at texel centres; Sobel's bytes exactly; the box's words, whose
risk is below), and each CUDA mutant fails: the rotation's ``tv`` normalised by the
width, its ``tex2D`` coordinates swapped; the rows' taps reversed, the rows' row pitch
the height; the columns' ``tex2D`` coordinates swapped, the columns' texel centre
dropped (a half-texel blend); Sobel's ``2 * ml`` added, its read of ``pix01``
transposed, its byte clamp dropped; the box's entering read at ``x``, its scale ``1 /
2r``. The box filter's original is the one at risk of a false alarm there: its words
truncate sums of filtered reads, and where NVIDIA's filter rounds a 2 x 2 blend
otherwise than to the nearest float32 (as lavapipe rounds it to a code), a right
kernel's words move by a code; if it fails, note which words and by how much (the
pins in tests/test_wild_round79.py).

On the H100 (2026-12-07) every CUDA original passed, the box's words included, but the
rotation: 358 of 3072 reads failed, up to 0.03 off. NVIDIA's texture unit rounds each
of the four texels' weights to 8 bits too, after the fractions; the filtering bound now
takes that in (``forge.textures.sample``'s "products" mode), and the 16 reads recorded
there are a test (18 since f84882e). Every CUDA mutant failed there.

What they showed: tests/test_wild_round79.py.
"""

# ruff: noqa: E501  (the CUDA and WGSL keep their sources' long lines)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, KernelSpec, Sampler, SamplerSpec, Schedule, ceil_div
from forge.textures import sample

from . import Wild

# -- simpleTexture: rotate an image through a wrapping, filtering texture --------------------

#: the host's cudaTextureDesc: normalised coordinates, linear filtering, wrap on both axes
_ROTATE_SAMPLER = Sampler("linear", "repeat", normalized=True)
_ANGLE = np.float32(0.5)  # the host's angle, radians

_ROTATE_CUDA = r"""// kernel-forge corpus: cuda-samples' simpleTexture (read, not copied).
__global__ void transformKernel(float *outputData, int width, int height, float theta, cudaTextureObject_t tex)
{
    // one thread a pixel; the host's grid covers the image exactly (no bounds test)
    unsigned int col = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int row = blockIdx.y * blockDim.y + threadIdx.y;

    // the pixel about the image's centre, turned by theta
    float dx = (float)col - (float)width / 2;
    float dy = (float)row - (float)height / 2;
    float rx = dx * cosf(theta) - dy * sinf(theta);
    float ry = dy * cosf(theta) + dx * sinf(theta);

    // normalised to the extent, and back about the texture's centre
    rx /= (float)width;
    ry /= (float)height;

    outputData[row * width + col] = tex2D<float>(tex, rx + 0.5f, ry + 0.5f);
}
"""

_ROTATE_WGSL = """
struct Params {
  width : i32,
  height : i32,
  theta : f32,
}

@group(0) @binding(0) var<storage, read_write> outputData : array<f32>;
@group(0) @binding(1) var<uniform> params : Params;
@group(0) @binding(2) var tex : texture_2d<f32>;

// an index one period outside the texture brought back in (the coordinates here stay
// within one period of it)
fn wrapped(i : i32, n : i32) -> i32 {
  return select(select(i, i - n, i >= n), i + n, i < 0);
}

// tex2D<float> of the host's texture object: normalised coordinates, a linear filter
// over the four texels around p * extent - 0.5, wrapped (r32float is not filterable in
// WebGPU's core, so the filter is written out)
fn tex2D(u : f32, v : f32) -> f32 {
  let size = vec2i(textureDimensions(tex, 0));
  let p = vec2f(u, v) * vec2f(size) - 0.5;
  let base = floor(p);
  let f = p - base;
  let x0 = wrapped(i32(base.x), size.x);
  let x1 = wrapped(i32(base.x) + 1, size.x);
  let y0 = wrapped(i32(base.y), size.y);
  let y1 = wrapped(i32(base.y) + 1, size.y);
  let top = mix(textureLoad(tex, vec2i(x0, y0), 0).r, textureLoad(tex, vec2i(x1, y0), 0).r, f.x);
  let bottom = mix(textureLoad(tex, vec2i(x0, y1), 0).r, textureLoad(tex, vec2i(x1, y1), 0).r, f.x);
  return mix(top, bottom, f.y);
}

@compute @workgroup_size(8, 8)
fn transformKernel(@builtin(global_invocation_id) gid : vec3u) {
  let col = gid.x;
  let row = gid.y;
  let dx = f32(col) - f32(params.width) / 2.0;
  let dy = f32(row) - f32(params.height) / 2.0;
  var rx = dx * cos(params.theta) - dy * sin(params.theta);
  var ry = dy * cos(params.theta) + dx * sin(params.theta);
  rx /= f32(params.width);
  ry /= f32(params.height);
  outputData[row * u32(params.width) + col] = tex2D(rx + 0.5, ry + 0.5);
}
"""


def _rotate(tex, outputData, theta):
    """The image turned by ``theta`` about its centre: each pixel reads the texture
    through the host's sampler at its turned, normalised position."""
    height, width = tex.shape
    row, col = np.mgrid[0:height, 0:width].astype(np.float64)
    angle = float(np.float32(theta))
    dx, dy = col - width / 2.0, row - height / 2.0
    rx = (dx * np.cos(angle) - dy * np.sin(angle)) / width
    ry = (dy * np.cos(angle) + dx * np.sin(angle)) / height
    at = np.stack([rx + 0.5, ry + 0.5], axis=-1)
    return sample(tex, at, _ROTATE_SAMPLER).astype(np.float32)


ROTATE = Wild(
    KernelSpec(
        id="wild_r79_cuda_samples_simple_texture_rotate",
        entry_point="transformKernel",
        sources={"cuda": _ROTATE_CUDA, "wgsl": _ROTATE_WGSL},
        dims=("height", "width"),
        buffers=(
            BufferSpec(0, "f32", "read_write", name="outputData", shape=("height", "width")),
            BufferSpec.uniform(
                1, (("width", "i32"), ("height", "i32"), ("theta", "f32")), name="params"
            ),
            BufferSpec(
                2,
                name="tex",
                texture="r32float",
                shape=("height", "width"),
                sampler=_ROTATE_SAMPLER,
            ),
        ),
        reference=_rotate,
        params=lambda size: {"width": int(size.width), "height": int(size.height)},
        defaults={"theta": _ANGLE},
        grid=lambda s, size: (int(size.width) // 8, int(size.height) // 8, 1),
        schedules=(Schedule((8, 8)),),
        nonfinite_inputs=False,
        # not square, so a normalisation by the wrong side shows; multiples of the block
        test_sizes=("height=48,width=64", "height=40,width=24"),
    ),
    {
        "the recentring + 0.5 dropped": (
            "wgsl",
            "tex2D(rx + 0.5, ry + 0.5)",
            "tex2D(rx, ry)",
        ),
        "turned the other way": (
            "wgsl",
            "var rx = dx * cos(params.theta) - dy * sin(params.theta);\n  var ry = dy * cos(params.theta) + dx * sin(params.theta);",
            "var rx = dx * cos(params.theta) + dy * sin(params.theta);\n  var ry = dy * cos(params.theta) - dx * sin(params.theta);",
        ),
        "clamped where the host wraps": (
            "wgsl",
            "return select(select(i, i - n, i >= n), i + n, i < 0);",
            "return clamp(i, 0, n - 1);",
        ),
        "CUDA: ry normalised by the width": ("cuda", "ry /= (float)height;", "ry /= (float)width;"),
        "CUDA: the coordinates swapped in tex2D": (
            "cuda",
            "tex2D<float>(tex, rx + 0.5f, ry + 0.5f)",
            "tex2D<float>(tex, ry + 0.5f, rx + 0.5f)",
        ),
    },
)

# -- convolutionTexture: a separable filter, one pass a texture object -----------------------

_KERNEL_RADIUS = 8
_KERNEL_LENGTH = 2 * _KERNEL_RADIUS + 1
#: the host's cudaTextureDesc is Wrap with unnormalised coordinates, which the driver
#: supports only as clamp (cuTexRefSetAddressMode); linear, every read at a texel centre
_CONV_SAMPLER = Sampler("linear", "clamp", normalized=False)

_CONV_CUDA = r"""// kernel-forge corpus: cuda-samples' convolutionTexture (read, not copied).
#define KERNEL_RADIUS 8
#define KERNEL_LENGTH (2 * KERNEL_RADIUS + 1)

// a multiply-add the G80 did in one instruction
#define IMAD(a, b, c) (__mul24((a), (b)) + (c))

// the filter's taps, which the host copies in with cudaMemcpyToSymbol
__constant__ float c_Kernel[KERNEL_LENGTH];

// the taps unrolled by recursion: tap i's product added to the sum of taps below it
template <int i>
__device__ float convolutionRow(float x, float y, cudaTextureObject_t texSrc)
{
    return tex2D<float>(texSrc, x + (float)(KERNEL_RADIUS - i), y) * c_Kernel[i] + convolutionRow<i - 1>(x, y, texSrc);
}

template <>
__device__ float convolutionRow<-1>(float x, float y, cudaTextureObject_t texSrc)
{
    return 0;
}

template <int i>
__device__ float convolutionColumn(float x, float y, cudaTextureObject_t texSrc)
{
    return tex2D<float>(texSrc, x, y + (float)(KERNEL_RADIUS - i)) * c_Kernel[i] + convolutionColumn<i - 1>(x, y, texSrc);
}

template <>
__device__ float convolutionColumn<-1>(float x, float y, cudaTextureObject_t texSrc)
{
    return 0;
}

__global__ void convolutionRowsKernel(float *d_Dst, int imageW, int imageH, cudaTextureObject_t texSrc)
{
    const int ix = IMAD(blockDim.x, blockIdx.x, threadIdx.x);
    const int iy = IMAD(blockDim.y, blockIdx.y, threadIdx.y);
    // the texel's centre
    const float x = (float)ix + 0.5f;
    const float y = (float)iy + 0.5f;

    if (ix >= imageW || iy >= imageH) {
        return;
    }

    float sum = convolutionRow<2 * KERNEL_RADIUS>(x, y, texSrc);
    d_Dst[IMAD(iy, imageW, ix)] = sum;
}

__global__ void convolutionColumnsKernel(float *d_Dst, int imageW, int imageH, cudaTextureObject_t texSrc)
{
    const int ix = IMAD(blockDim.x, blockIdx.x, threadIdx.x);
    const int iy = IMAD(blockDim.y, blockIdx.y, threadIdx.y);
    const float x = (float)ix + 0.5f;
    const float y = (float)iy + 0.5f;

    if (ix >= imageW || iy >= imageH) {
        return;
    }

    float sum = convolutionColumn<2 * KERNEL_RADIUS>(x, y, texSrc);
    d_Dst[IMAD(iy, imageW, ix)] = sum;
}
"""

_CONV_WGSL = """
struct Params {
  imageW : i32,
  imageH : i32,
}

const KERNEL_RADIUS : i32 = 8;

@group(0) @binding(0) var<storage, read_write> d_Dst : array<f32>;
@group(0) @binding(1) var<uniform> params : Params;
@group(0) @binding(2) var texSrc : texture_2d<f32>;
@group(0) @binding(3) var<storage, read> c_Kernel : array<f32, 17>;

// tex2D<float> of the host's texture object: coordinates in texels, a linear filter
// over the four texels around p - 0.5, clamped to the edge (written out: r32float is
// not filterable in WebGPU's core)
fn tex2D(x : f32, y : f32) -> f32 {
  let last = vec2i(textureDimensions(texSrc, 0)) - 1;
  let p = vec2f(x, y) - 0.5;
  let base = floor(p);
  let f = p - base;
  let lo = clamp(vec2i(base), vec2i(0), last);
  let hi = clamp(vec2i(base) + 1, vec2i(0), last);
  let top = mix(textureLoad(texSrc, lo, 0).r, textureLoad(texSrc, vec2i(hi.x, lo.y), 0).r, f.x);
  let bottom = mix(textureLoad(texSrc, vec2i(lo.x, hi.y), 0).r, textureLoad(texSrc, hi, 0).r, f.x);
  return mix(top, bottom, f.y);
}

@compute @workgroup_size(16, 12)
fn convolutionRowsKernel(@builtin(global_invocation_id) gid : vec3u) {
  let ix = i32(gid.x);
  let iy = i32(gid.y);
  let x = f32(ix) + 0.5;
  let y = f32(iy) + 0.5;
  if (ix >= params.imageW || iy >= params.imageH) {
    return;
  }
  // tap 0 first, each tap's product added to the taps before it, as the unrolled
  // recursion adds them
  var sum = 0.0;
  for (var i = 0; i <= 2 * KERNEL_RADIUS; i++) {
    sum = tex2D(x + f32(KERNEL_RADIUS - i), y) * c_Kernel[i] + sum;
  }
  d_Dst[iy * params.imageW + ix] = sum;
}

@compute @workgroup_size(16, 12)
fn convolutionColumnsKernel(@builtin(global_invocation_id) gid : vec3u) {
  let ix = i32(gid.x);
  let iy = i32(gid.y);
  let x = f32(ix) + 0.5;
  let y = f32(iy) + 0.5;
  if (ix >= params.imageW || iy >= params.imageH) {
    return;
  }
  var sum = 0.0;
  for (var i = 0; i <= 2 * KERNEL_RADIUS; i++) {
    sum = tex2D(x, y + f32(KERNEL_RADIUS - i)) * c_Kernel[i] + sum;
  }
  d_Dst[iy * params.imageW + ix] = sum;
}
"""


def _convolve(texSrc, c_Kernel, columns: bool):
    """Each pixel's 17 taps along its row (``columns``: its column), tap ``i`` read at
    ``KERNEL_RADIUS - i`` texels from its centre through the host's sampler, weighted
    ``c_Kernel[i]``, added from tap 0 up."""
    height, width = texSrc.shape
    row, col = np.mgrid[0:height, 0:width].astype(np.float64)
    weights = np.asarray(c_Kernel, np.float64)
    total = np.zeros((height, width))
    for i in range(_KERNEL_LENGTH):
        step = float(_KERNEL_RADIUS - i)
        x, y = (col + 0.5, row + 0.5 + step) if columns else (col + 0.5 + step, row + 0.5)
        total = sample(texSrc, np.stack([x, y], axis=-1), _CONV_SAMPLER) * weights[i] + total
    return total.astype(np.float32)


def _conv_rows(texSrc, c_Kernel, d_Dst):
    return _convolve(texSrc, c_Kernel, columns=False)


def _conv_columns(texSrc, c_Kernel, d_Dst):
    return _convolve(texSrc, c_Kernel, columns=True)


def _conv_kernel(kid: str, entry: str, reference) -> KernelSpec:
    return KernelSpec(
        id=kid,
        entry_point=entry,
        sources={"cuda": _CONV_CUDA, "wgsl": _CONV_WGSL},
        dims=("imageH", "imageW"),
        buffers=(
            BufferSpec(0, "f32", "read_write", name="d_Dst", shape=("imageH", "imageW")),
            BufferSpec.uniform(1, (("imageW", "i32"), ("imageH", "i32")), name="params"),
            BufferSpec(
                2,
                name="texSrc",
                texture="r32float",
                shape=("imageH", "imageW"),
                sampler=_CONV_SAMPLER,
            ),
            BufferSpec(3, "f32", "read", name="c_Kernel", count=_KERNEL_LENGTH),
        ),
        reference=reference,
        params=lambda size: {"imageW": int(size.imageW), "imageH": int(size.imageH)},
        grid=lambda s, size: (ceil_div(int(size.imageW), 16), ceil_div(int(size.imageH), 12), 1),
        schedules=(Schedule((16, 12)),),
        nonfinite_inputs=False,
        # blocks cut at both edges and wider than tall; an image smaller than the filter
        test_sizes=("imageH=30,imageW=45", "imageH=5,imageW=3"),
    )


CONV_ROWS = Wild(
    _conv_kernel(
        "wild_r79_cuda_samples_convolution_texture_rows", "convolutionRowsKernel", _conv_rows
    ),
    {
        "the texel centre's + 0.5 dropped": (
            "wgsl",
            "let x = f32(ix) + 0.5;",
            "let x = f32(ix);",
        ),
        "the filter's texel centre - 0.5 dropped": (
            "wgsl",
            "let p = vec2f(x, y) - 0.5;",
            "let p = vec2f(x, y);",
        ),
        "the taps along the column": (
            "wgsl",
            "sum = tex2D(x + f32(KERNEL_RADIUS - i), y) * c_Kernel[i] + sum;",
            "sum = tex2D(x, y + f32(KERNEL_RADIUS - i)) * c_Kernel[i] + sum;",
        ),
        "CUDA: the taps reversed": (
            "cuda",
            "tex2D<float>(texSrc, x + (float)(KERNEL_RADIUS - i), y)",
            "tex2D<float>(texSrc, x + (float)(i - KERNEL_RADIUS), y)",
        ),
        "CUDA: the row pitch the height": (
            "cuda",
            "float sum = convolutionRow<2 * KERNEL_RADIUS>(x, y, texSrc);\n    d_Dst[IMAD(iy, imageW, ix)] = sum;",
            "float sum = convolutionRow<2 * KERNEL_RADIUS>(x, y, texSrc);\n    d_Dst[IMAD(iy, imageH, ix)] = sum;",
        ),
    },
)

CONV_COLUMNS = Wild(
    _conv_kernel(
        "wild_r79_cuda_samples_convolution_texture_columns",
        "convolutionColumnsKernel",
        _conv_columns,
    ),
    {
        "the texel centre's + 0.5 dropped": (
            "wgsl",
            "  let y = f32(iy) + 0.5;\n  if (ix >= params.imageW || iy >= params.imageH) {\n    return;\n  }\n  var sum",
            "  let y = f32(iy);\n  if (ix >= params.imageW || iy >= params.imageH) {\n    return;\n  }\n  var sum",
        ),
        "the coordinates swapped in tex2D": (
            "wgsl",
            "sum = tex2D(x, y + f32(KERNEL_RADIUS - i)) * c_Kernel[i] + sum;",
            "sum = tex2D(y + f32(KERNEL_RADIUS - i), x) * c_Kernel[i] + sum;",
        ),
        "CUDA: the coordinates swapped in tex2D": (
            "cuda",
            "tex2D<float>(texSrc, x, y + (float)(KERNEL_RADIUS - i))",
            "tex2D<float>(texSrc, y + (float)(KERNEL_RADIUS - i), x)",
        ),
        "CUDA: the texel centre's + 0.5 dropped": (
            "cuda",
            "    const float y = (float)iy + 0.5f;\n\n    if (ix >= imageW || iy >= imageH) {\n        return;\n    }\n\n    float sum = convolutionColumn",
            "    const float y = (float)iy;\n\n    if (ix >= imageW || iy >= imageH) {\n        return;\n    }\n\n    float sum = convolutionColumn",
        ),
    },
)

# -- SobelFilter: tex2D<unsigned char> of a one-byte texture ---------------------------------

#: the host's cudaTextureDesc: point reads in texels; Wrap there is clamp (the driver's
#: only mode without normalised coordinates)
_SOBEL_SAMPLER = Sampler("nearest", "clamp", normalized=False)
_SOBEL_SCALE = np.float32(0.75)

_SOBEL_CUDA = r"""// kernel-forge corpus: cuda-samples' SobelFilter, its texture path (read, not copied).
typedef unsigned char Pixel;

// the gradient's two 3 x 3 Sobel sums, their magnitudes added and scaled, as a byte
__device__ unsigned char ComputeSobel(unsigned char ul, unsigned char um, unsigned char ur,
                                      unsigned char ml, unsigned char mm, unsigned char mr,
                                      unsigned char ll, unsigned char lm, unsigned char lr,
                                      float fScale)
{
    short Horz = ur + 2 * mr + lr - ul - 2 * ml - ll;
    short Vert = ul + 2 * um + ur - ll - 2 * lm - lr;
    short Sum = (short)(fScale * (abs((int)Horz) + abs((int)Vert)));

    if (Sum < 0) {
        return 0;
    } else if (Sum > 0xff) {
        return 0xff;
    }
    return (unsigned char)Sum;
}

// a block a row of the image, its threads striding along it
__global__ void SobelTex(Pixel *pSobelOriginal, unsigned int Pitch, int w, int h, float fScale, cudaTextureObject_t tex)
{
    unsigned char *pSobel = (unsigned char *)(((char *)pSobelOriginal) + blockIdx.x * Pitch);

    for (int i = threadIdx.x; i < w; i += blockDim.x) {
        unsigned char pix00 = tex2D<unsigned char>(tex, (float)i - 1, (float)blockIdx.x - 1);
        unsigned char pix01 = tex2D<unsigned char>(tex, (float)i + 0, (float)blockIdx.x - 1);
        unsigned char pix02 = tex2D<unsigned char>(tex, (float)i + 1, (float)blockIdx.x - 1);
        unsigned char pix10 = tex2D<unsigned char>(tex, (float)i - 1, (float)blockIdx.x + 0);
        unsigned char pix11 = tex2D<unsigned char>(tex, (float)i + 0, (float)blockIdx.x + 0);
        unsigned char pix12 = tex2D<unsigned char>(tex, (float)i + 1, (float)blockIdx.x + 0);
        unsigned char pix20 = tex2D<unsigned char>(tex, (float)i - 1, (float)blockIdx.x + 1);
        unsigned char pix21 = tex2D<unsigned char>(tex, (float)i + 0, (float)blockIdx.x + 1);
        unsigned char pix22 = tex2D<unsigned char>(tex, (float)i + 1, (float)blockIdx.x + 1);
        pSobel[i] = ComputeSobel(pix00, pix01, pix02, pix10, pix11, pix12, pix20, pix21, pix22, fScale);
    }
}
"""

_SOBEL_WGSL = """
struct Params {
  Pitch : u32,
  w : i32,
  h : i32,
  fScale : f32,
}

@group(0) @binding(0) var<storage, read_write> pSobelOriginal : array<u32>;
@group(0) @binding(1) var<uniform> params : Params;
@group(0) @binding(2) var tex : texture_2d<u32>;

// tex2D<unsigned char> of the host's texture object: a point read in texels, clamped
fn tex2D(x : f32, y : f32) -> i32 {
  let last = vec2i(textureDimensions(tex, 0)) - 1;
  let at = clamp(vec2i(floor(vec2f(x, y))), vec2i(0), last);
  return i32(textureLoad(tex, at, 0).r);
}

fn ComputeSobel(ul : i32, um : i32, ur : i32, ml : i32, mm : i32, mr : i32,
                ll : i32, lm : i32, lr : i32, fScale : f32) -> u32 {
  let Horz = ur + 2 * mr + lr - ul - 2 * ml - ll;
  let Vert = ul + 2 * um + ur - ll - 2 * lm - lr;
  let Sum = i32(fScale * f32(abs(Horz) + abs(Vert)));
  if (Sum < 0) {
    return 0u;
  } else if (Sum > 0xff) {
    return 0xffu;
  }
  return u32(Sum);
}

// a workgroup a row, its 256 invocations striding along it (the host's block is 384;
// WebGPU's default limit is 256)
@compute @workgroup_size(256)
fn SobelTex(@builtin(workgroup_id) wg : vec3u, @builtin(local_invocation_id) lid : vec3u) {
  let row = f32(wg.x);
  for (var i = i32(lid.x); i < params.w; i += 256) {
    let col = f32(i);
    let pix00 = tex2D(col - 1.0, row - 1.0);
    let pix01 = tex2D(col + 0.0, row - 1.0);
    let pix02 = tex2D(col + 1.0, row - 1.0);
    let pix10 = tex2D(col - 1.0, row + 0.0);
    let pix11 = tex2D(col + 0.0, row + 0.0);
    let pix12 = tex2D(col + 1.0, row + 0.0);
    let pix20 = tex2D(col - 1.0, row + 1.0);
    let pix21 = tex2D(col + 0.0, row + 1.0);
    let pix22 = tex2D(col + 1.0, row + 1.0);
    pSobelOriginal[wg.x * params.Pitch + u32(i)] =
        ComputeSobel(pix00, pix01, pix02, pix10, pix11, pix12, pix20, pix21, pix22, params.fScale);
  }
}
"""


def _sobel_bytes(tex, fScale) -> np.ndarray:
    """``ComputeSobel`` of each pixel's 3 x 3 neighbourhood, read clamped to the edge:
    the two sums in integers, their magnitudes' sum scaled in float32 and truncated,
    clamped to a byte."""
    image = np.pad(np.asarray(tex, np.int32), 1, mode="edge")
    height, width = np.asarray(tex).shape

    def at(dy: int, dx: int) -> np.ndarray:
        return image[1 + dy : 1 + dy + height, 1 + dx : 1 + dx + width]

    ul, um, ur = at(-1, -1), at(-1, 0), at(-1, 1)
    ml, mr = at(0, -1), at(0, 1)
    ll, lm, lr = at(1, -1), at(1, 0), at(1, 1)
    horz = ur + 2 * mr + lr - ul - 2 * ml - ll
    vert = ul + 2 * um + ur - ll - 2 * lm - lr
    scaled = np.float32(fScale) * (np.abs(horz) + np.abs(vert)).astype(np.float32)
    return np.clip(np.trunc(scaled).astype(np.int32), 0, 255)


def _sobel_cuda(tex, pSobelOriginal, fScale):
    return _sobel_bytes(tex, fScale).astype(np.uint8)


def _sobel_wgsl(tex, pSobelOriginal, fScale):
    return _sobel_bytes(tex, fScale).astype(np.uint32)


_SOBEL_SIZES = ("h=37,w=500", "h=3,w=5")  # rows longer than a block's stride; a sliver

SOBEL = Wild(
    KernelSpec(
        id="wild_r79_cuda_samples_sobel_filter_tex",
        entry_point="SobelTex",
        sources={"cuda": _SOBEL_CUDA},
        dims=("h", "w"),
        buffers=(
            BufferSpec(0, "u8", "read_write", name="pSobelOriginal", shape=("h", "w")),
            BufferSpec(1, name="tex", texture="r8uint", shape=("h", "w"), sampler=_SOBEL_SAMPLER),
        ),
        reference=_sobel_cuda,
        # the host's launch: Pitch = iw, a block of 384 threads a row
        params=lambda size: {"Pitch": np.uint32(int(size.w))},
        defaults={"fScale": _SOBEL_SCALE},
        grid=lambda s, size: (int(size.h), 1, 1),
        schedules=(Schedule(384),),
        test_sizes=_SOBEL_SIZES,
    ),
    {
        "CUDA: a Sobel weight's sign": (
            "cuda",
            "short Horz = ur + 2 * mr + lr - ul - 2 * ml - ll;",
            "short Horz = ur + 2 * mr + lr - ul + 2 * ml - ll;",
        ),
        "CUDA: pix01 read transposed": (
            "cuda",
            "tex2D<unsigned char>(tex, (float)i + 0, (float)blockIdx.x - 1)",
            "tex2D<unsigned char>(tex, (float)blockIdx.x - 1, (float)i + 0)",
        ),
        "CUDA: the byte clamp dropped": (
            "cuda",
            "    } else if (Sum > 0xff) {\n        return 0xff;\n    }\n",
            "    }\n",
        ),
    },
)

SOBEL_PORT = Wild(
    KernelSpec(
        id="wild_r79_cuda_samples_sobel_filter_tex_webgpu_port",
        entry_point="SobelTex",
        sources={"wgsl": _SOBEL_WGSL},
        dims=("h", "w"),
        buffers=(
            BufferSpec(0, "u32", "read_write", name="pSobelOriginal", shape=("h", "w")),
            BufferSpec.uniform(
                1, (("Pitch", "u32"), ("w", "i32"), ("h", "i32"), ("fScale", "f32")), name="params"
            ),
            BufferSpec(2, name="tex", texture="r8uint", shape=("h", "w")),
        ),
        reference=_sobel_wgsl,
        params=lambda size: {"Pitch": int(size.w), "w": int(size.w), "h": int(size.h)},
        defaults={"fScale": _SOBEL_SCALE},
        grid=lambda s, size: (int(size.h), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=_SOBEL_SIZES,
    ),
    {
        "a Sobel weight's sign": (
            "wgsl",
            "let Vert = ul + 2 * um + ur - ll - 2 * lm - lr;",
            "let Vert = ul + 2 * um + ur - ll + 2 * lm - lr;",
        ),
        "the row pitch the height": (
            "wgsl",
            "pSobelOriginal[wg.x * params.Pitch + u32(i)]",
            "pSobelOriginal[wg.x * u32(params.h) + u32(i)]",
        ),
        "the neighbourhood read one row down": (
            "wgsl",
            "let at = clamp(vec2i(floor(vec2f(x, y))), vec2i(0), last);",
            "let at = clamp(vec2i(floor(vec2f(x, y + 1.0))), vec2i(0), last);",
        ),
        "the magnitudes' sum rounded, not truncated": (
            "wgsl",
            "let Sum = i32(fScale * f32(abs(Horz) + abs(Vert)));",
            "let Sum = i32(round(fScale * f32(abs(Horz) + abs(Vert))));",
        ),
    },
)


# -- boxFilter: a sliding-window box over uchar4 read as normalised floats -------------------

#: the host's rgbaTex: uchar4 read as normalised floats (cudaReadModeNormalizedFloat),
#: linear, unnormalised coordinates; its Wrap is the driver's clamp there
_BOX_SAMPLER = Sampler("linear", "clamp", normalized=False)
_BOX_THREADS = 64  # boxFilter.cpp's nthreads
_BOX_RADIUS = 14  # boxFilter.cpp's filter_radius

_BOX_CUDA = r"""// kernel-forge corpus: cuda-samples' boxFilter, its RGBA row pass (read, not copied).
// helper_math.h's float4 operators the pass uses, written out (NVRTC has no helper_math.h)
inline __device__ float4 make_float4(float s) { return make_float4(s, s, s, s); }
inline __device__ void operator+=(float4 &a, float4 b) { a.x += b.x; a.y += b.y; a.z += b.z; a.w += b.w; }
inline __device__ void operator-=(float4 &a, float4 b) { a.x -= b.x; a.y -= b.y; a.z -= b.z; a.w -= b.w; }
inline __device__ float4 operator*(float4 a, float s) { return make_float4(a.x * s, a.y * s, a.z * s, a.w * s); }

// a float colour, clamped to [0, 1], as eight bits a channel, truncated (alpha highest)
__device__ unsigned int rgbaFloatToInt(float4 rgba)
{
    rgba.x = __saturatef(rgba.x);
    rgba.y = __saturatef(rgba.y);
    rgba.z = __saturatef(rgba.z);
    rgba.w = __saturatef(rgba.w);
    return ((unsigned int)(rgba.w * 255.0f) << 24) | ((unsigned int)(rgba.z * 255.0f) << 16) |
           ((unsigned int)(rgba.y * 255.0f) << 8) | ((unsigned int)(rgba.x * 255.0f));
}

// a thread a row: the window's sum kept as it slides right, the entering texel added and
// the leaving one taken off; the texture clamps reads past either edge
__global__ void d_boxfilter_rgba_x(unsigned int *od, int w, int h, int r, cudaTextureObject_t rgbaTex)
{
    float scale = 1.0f / (float)((r << 1) + 1);
    unsigned int y = blockIdx.x * blockDim.x + threadIdx.x;

    if (y < h) {
        float4 t = make_float4(0.0f);
        for (int x = -r; x <= r; x++) {
            t += tex2D<float4>(rgbaTex, x, y);
        }
        od[y * w] = rgbaFloatToInt(t * scale);

        for (int x = 1; x < w; x++) {
            t += tex2D<float4>(rgbaTex, x + r, y);
            t -= tex2D<float4>(rgbaTex, x - r - 1, y);
            od[y * w + x] = rgbaFloatToInt(t * scale);
        }
    }
}
"""

_BOX_WGSL = """
struct Params {
  w : i32,
  h : i32,
  r : i32,
}

@group(0) @binding(0) var<storage, read_write> od : array<u32>;
@group(0) @binding(1) var<uniform> params : Params;
@group(0) @binding(2) var rgbaTex : texture_2d<f32>;
@group(0) @binding(3) var samp : sampler;

// tex2D<float4> of the host's texture at (x, y) in texels: the same point through a
// linear sampler, which takes it normalised
fn tex2D(x : i32, y : u32) -> vec4f {
  let size = vec2f(textureDimensions(rgbaTex, 0));
  return textureSampleLevel(rgbaTex, samp, vec2f(f32(x), f32(y)) / size, 0.0);
}

fn rgbaFloatToInt(c : vec4f) -> u32 {
  let v = saturate(c);
  return (u32(v.w * 255.0) << 24u) | (u32(v.z * 255.0) << 16u) |
         (u32(v.y * 255.0) << 8u) | u32(v.x * 255.0);
}

@compute @workgroup_size(64)
fn d_boxfilter_rgba_x(@builtin(global_invocation_id) gid : vec3u) {
  let scale = 1.0 / f32((params.r << 1u) + 1);
  let y = gid.x;
  if (y < u32(params.h)) {
    var t = vec4f(0.0);
    for (var x = -params.r; x <= params.r; x++) {
      t += tex2D(x, y);
    }
    od[y * u32(params.w)] = rgbaFloatToInt(t * scale);
    for (var x = 1; x < params.w; x++) {
      t += tex2D(x + params.r, y);
      t -= tex2D(x - params.r - 1, y);
      od[y * u32(params.w) + u32(x)] = rgbaFloatToInt(t * scale);
    }
  }
}
"""


def _box_rgba_x(rgbaTex, od, r):
    """Each row's sliding window in float32 as the kernel keeps it, every read through
    the host's sampler at integer texel coordinates (a 2 x 2 blend: linear filtering
    reads around ``x - 0.5``), each output packed as the kernel truncates it. The reads
    of every column from ``-r`` to ``w - 1 + r`` are sampled at once."""
    height, width = rgbaTex.shape[:2]
    radius = int(r)
    scale = np.float32(1.0) / np.float32(2 * radius + 1)
    row, col = np.mgrid[0:height, -radius : width + radius].astype(np.float64)
    reads = sample(rgbaTex, np.stack([col, row], axis=-1), _BOX_SAMPLER).astype(np.float32)

    # the window's sum at each column, as the kernel keeps it (float32, in its order:
    # elementwise, so the oracle's reruns see each rounding; np.add.accumulate gives the
    # same sums but hides them from it: tests/test_wild_round79.py)
    t = np.zeros((height, 4), np.float32)
    for x in range(-radius, radius + 1):
        t = t + reads[:, x + radius]
    sums = [t]
    for x in range(1, width):
        t = t + reads[:, x + 2 * radius]
        t = t - reads[:, x - 1]
        sums.append(t)
    # each packed as rgbaFloatToInt truncates it, alpha in the top byte
    scaled = np.stack(sums, axis=1) * scale
    codes = np.trunc((np.clip(scaled, 0.0, 1.0) * np.float32(255.0)).astype(np.float32))
    c = codes.astype(np.uint32)
    return (c[..., 3] << 24) | (c[..., 2] << 16) | (c[..., 1] << 8) | c[..., 0]


BOX_RGBA = Wild(
    KernelSpec(
        id="wild_r79_cuda_samples_box_filter_rgba_x",
        entry_point="d_boxfilter_rgba_x",
        sources={"cuda": _BOX_CUDA, "wgsl": _BOX_WGSL},
        dims=("h", "w"),
        buffers=(
            BufferSpec(0, "u32", "read_write", name="od", shape=("h", "w")),
            BufferSpec.uniform(1, (("w", "i32"), ("h", "i32"), ("r", "i32")), name="params"),
            BufferSpec(
                2, name="rgbaTex", texture="rgba8unorm", shape=("h", "w"), sampler=_BOX_SAMPLER
            ),
        ),
        samplers=(SamplerSpec(3, Sampler("linear", "clamp"), name="samp"),),
        reference=_box_rgba_x,
        params=lambda size: {"w": int(size.w), "h": int(size.h)},
        defaults={"r": _BOX_RADIUS},
        # the host's <<<height / nthreads, nthreads>>>: heights a multiple of 64
        grid=lambda s, size: (int(size.h) // _BOX_THREADS, 1, 1),
        schedules=(Schedule(_BOX_THREADS),),
        test_sizes=("h=64,w=24", "h=128,w=9"),
    ),
    {
        "the leaving texel one short": (
            "wgsl",
            "t -= tex2D(x - params.r - 1, y);",
            "t -= tex2D(x - params.r, y);",
        ),
        "the first window from 0, not -r": (
            "wgsl",
            "for (var x = -params.r; x <= params.r; x++) {",
            "for (var x = 0; x <= params.r; x++) {",
        ),
        "red and blue swapped in the packing": (
            "wgsl",
            "(u32(v.y * 255.0) << 8u) | u32(v.x * 255.0);",
            "(u32(v.y * 255.0) << 8u) | u32(v.z * 255.0);",
        ),
        "CUDA: the entering texel read at x, not x + r": (
            "cuda",
            "t += tex2D<float4>(rgbaTex, x + r, y);",
            "t += tex2D<float4>(rgbaTex, x, y);",
        ),
        "CUDA: the window scaled by 1 / 2r": (
            "cuda",
            "float scale = 1.0f / (float)((r << 1) + 1);",
            "float scale = 1.0f / (float)(r << 1);",
        ),
    },
)

ROUND79: dict[str, Wild] = {
    wild.kernel.id: wild for wild in (ROTATE, CONV_ROWS, CONV_COLUMNS, SOBEL, SOBEL_PORT, BOX_RGBA)
}

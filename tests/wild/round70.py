"""Round 70 of kernels from the wild, merged into ``tests.wild.CORPUS``: CUDA course
homework as students publish it. Udacity's CS344 "Intro to Parallel Programming" has
thousands of public solution repositories; these four follow two of them, read, not
copied (the project's rule for public code). What is theirs is kept: the
``__global__`` functions' names, parameters (names, types, order), the block sizes and
launch sequences of their hosts, the shared memory, the barriers, the idioms (the
``for (s = blockDim.x / 2; s > 0; ...)`` tree, a Hillis-Steele scan in global memory
inside one block, ``isSafe`` comparing an ``int`` with a ``size_t``) and the numerics
(a float sum of 81 taps truncated to a byte, ``(lum - min) / range * numBins``,
``min(255, max(0, (a + b + c) / d))``); what is ours: the comments, locals' names and
formatting, and the WebGPU ports. Where the published solution is wrong, the
original here is right and their bug is a mutant, said so beside it.

- Problem Set 2, the Gaussian blur (shreyansh26/CS344-Parallel-Programming-Solutions
  at 1a1c5fd3, ``Problem Sets/Problem Set 2/student_func.cu``: ``separateChannels``,
  ``gaussian_blur``, ``recombineChannels``; no licence file in the indexed copy, nothing of
  it copied):
  an RGBA image split into three byte channels, each blurred by the course's 9 x 9
  float filter (sigma 2, normalised) with the neighbours clamped to the image, the
  float sum cast to ``unsigned char`` (truncated), and recombined with alpha 255.
  16 x 16 blocks, the host's grid ``numCols / 16 + 1`` by ``numRows / 16 + 1``. The
  image is its own draw: grey plateaus (flat regions, 0 and 255 among them, where
  the sum is the plateau's value times a filter that sums to 1 within a rounding, so
  the truncation is decided by that rounding) with 3 % noise.
- Problem Set 3, the tone map's reduction (ibebrett/CUDA-CS344 at ae362a50, ``Problem
  Sets/Problem Set 3/student_func.cu``, ``reduce_minmax_kernel``; no licence file in the
  indexed copy):
  blocks of 32 threads over ``extern __shared__`` floats, the block's tail padded
  with ``FLT_MAX`` (``-FLT_MAX`` for the max), the tree ``for (s = blockDim.x / 2; s >
  0; s /= 2)`` with its barrier outside the ``if``, passes until one block is left
  (three here, for up to 32768 values). Upstream returns early after the loads on a
  block's threads past the input, before the tree's barriers (a barrier some threads
  of the block never reach): the padding makes that return needless, and it is left
  out here (no value shows it on the CPU adapters; a mutant must fail).
- Problem Set 3, the histogram and its CDF (the same file: ``histogram_kernel``,
  ``scan_kernel``): ``bin = (lum - lum_min) / lum_range * bin_count`` counted with
  ``atomicAdd`` by blocks of 1024, then one block of ``bin_count`` threads scanning in
  global memory, Hillis-Steele (read, barrier, add, barrier). Upstream has two bugs,
  each a mutant here: no clamp at ``bin_count - 1`` (the maximum's bin is one past
  the histogram; shreyansh26's solution has the same line), and the scan is
  inclusive where the course asks for an exclusive CDF. The right original clamps
  and shifts the inclusive sums by one. The log-luminance is its own draw: uniform
  over the ``[lum_min, lum_max]`` the host passes, both ends planted (the host found
  them as the minimum and maximum).
- Problem Set 6, Poisson blending (shreyansh26's, ``Problem Sets/Problem Set
  6/student_func.cu`` at cf4570e7: ``computeMaskInteriorBorder``, ``jacobi``,
  ``separateChannels``): the source's non-white pixels a mask, split into interior
  (every in-bounds neighbour in the mask) and border, then Jacobi iterations of
  ``(a + b + c) / d`` clamped to [0, 255], a launch each, the guesses' two buffers
  swapped between launches (the host's ``std::swap``), 32 x 32 blocks. Upstream writes
  the masks only under the mask, leaving the white pixels' as ``cudaMalloc`` gave
  them, which ``jacobi`` then reads: a mutant here (an unwritten element), the
  original writes them everywhere. The host's 800 iterations are 24 here; its
  ``cudaMemcpy`` of the source channel into the first guess is a third
  ``separateChannels`` into the guess. One channel (red) is blended; the others are
  the same kernel on other bytes.

Each port passes on lavapipe and SwiftShader; what the CUDA entries do is the GPU
run's to confirm (tests/test_wild_round70.py says what the round showed).
"""

# ruff: noqa: E501  (the CUDA and WGSL keep their sources' long lines)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import RACE_HIDDEN, Wild

# -- 1. Problem Set 2: separate, blur each channel, recombine ----------------------------

_BLUR_CUDA = r"""// kernel-forge corpus: CS344 Problem Set 2 (Gaussian blur) as a student solved it
// (shreyansh26/CS344-Parallel-Programming-Solutions), read, not copied.
#include <cuda_runtime.h>

__global__
void gaussian_blur(const unsigned char* const inputChannel,
                   unsigned char* const outputChannel,
                   int numRows, int numCols,
                   const float* const filter, const int filterWidth)
{
  int col = (blockIdx.x * blockDim.x) + threadIdx.x;
  int row = (blockIdx.y * blockDim.y) + threadIdx.y;

  if ((col >= numCols) || (row >= numRows))
    return;

  // every intermediate in float; the neighbours clamped to the image's edges
  float sum = 0.0f;
  for (int fy = 0; fy < filterWidth; fy++) {
    for (int fx = 0; fx < filterWidth; fx++) {
      int x = col + fx - filterWidth / 2;
      int y = row + fy - filterWidth / 2;
      x = min(max(x, 0), numCols - 1);
      y = min(max(y, 0), numRows - 1);
      sum += (filter[fy * filterWidth + fx] * (float)(inputChannel[y * numCols + x]));
    }
  }
  outputChannel[row * numCols + col] = (unsigned char) sum;
}

// one RGBA image into three byte channels
__global__
void separateChannels(const uchar4* const inputImageRGBA,
                      int numRows,
                      int numCols,
                      unsigned char* const redChannel,
                      unsigned char* const greenChannel,
                      unsigned char* const blueChannel)
{
  int col = (blockIdx.x * blockDim.x) + threadIdx.x;
  int row = (blockIdx.y * blockDim.y) + threadIdx.y;

  if ((col >= numCols) || (row >= numRows))
    return;

  int i = row * numCols + col;
  redChannel[i] = (unsigned char)inputImageRGBA[i].x;
  greenChannel[i] = (unsigned char)inputImageRGBA[i].y;
  blueChannel[i] = (unsigned char)inputImageRGBA[i].z;
}

// the three channels back into one image, opaque
__global__
void recombineChannels(const unsigned char* const redChannel,
                       const unsigned char* const greenChannel,
                       const unsigned char* const blueChannel,
                       uchar4* const outputImageRGBA,
                       int numRows,
                       int numCols)
{
  const int2 pos = make_int2(blockIdx.x * blockDim.x + threadIdx.x,
                             blockIdx.y * blockDim.y + threadIdx.y);
  const int i = pos.y * numCols + pos.x;

  if (pos.x >= numCols || pos.y >= numRows)
    return;

  outputImageRGBA[i] = make_uchar4(redChannel[i], greenChannel[i], blueChannel[i], 255);
}
"""

_BLUR_WGSL = """// CS344's Gaussian blur as a WebGPU port: the RGBA image a word per pixel, the three
// colour channels blurred together, the sums truncated to bytes, alpha 255.
struct Params {
    numRows: i32,
    numCols: i32,
    filterWidth: i32,
}

@group(0) @binding(0) var<storage, read> inputImageRGBA: array<u32>;
@group(0) @binding(1) var<storage, read_write> outputImageRGBA: array<u32>;
@group(0) @binding(2) var<storage, read> d_filter: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

fn channels(word: u32) -> vec3<f32> {
    return vec3<f32>(f32(word & 0xffu), f32((word >> 8u) & 0xffu), f32((word >> 16u) & 0xffu));
}

@compute @workgroup_size(16, 16)
fn gaussian_blur(@builtin(global_invocation_id) gid: vec3<u32>) {
    let col = i32(gid.x);
    let row = i32(gid.y);
    if (col >= p.numCols || row >= p.numRows) {
        return;
    }
    let radius = p.filterWidth / 2;
    var sum = vec3<f32>(0.0);
    for (var fy = 0; fy < p.filterWidth; fy++) {
        for (var fx = 0; fx < p.filterWidth; fx++) {
            let x = clamp(col + fx - radius, 0, p.numCols - 1);
            let y = clamp(row + fy - radius, 0, p.numRows - 1);
            sum += d_filter[fy * p.filterWidth + fx] * channels(inputImageRGBA[y * p.numCols + x]);
        }
    }
    let rgb = vec3<u32>(sum);
    outputImageRGBA[row * p.numCols + col] = rgb.x | (rgb.y << 8u) | (rgb.z << 16u) | (255u << 24u);
}
"""

_FILTER_WIDTH = 9


def _course_filter() -> np.ndarray:
    """HW2.cpp's filter: ``expf(-(c*c + r*r) / (2 sigma^2))`` for sigma 2 over 9 x 9,
    each times ``1 / sum`` (float32 throughout, summed in the host's order)."""
    w, sigma = _FILTER_WIDTH, np.float32(2.0)
    taps = np.zeros((w, w), np.float32)
    total = np.float32(0.0)
    for r in range(-(w // 2), w // 2 + 1):
        for c in range(-(w // 2), w // 2 + 1):
            v = np.float32(np.exp(np.float32(-(c * c + r * r)) / (np.float32(2.0) * sigma * sigma)))
            taps[r + w // 2, c + w // 2] = v
            total = np.float32(total + v)
    return (taps * (np.float32(1.0) / total)).astype(np.float32).reshape(-1)


def _plateau_channel(rng, rows: int, cols: int) -> np.ndarray:
    """A channel of grey plateaus (rectangles of levels 0, 25, ..., 250 and 255 painted
    over each other) with 3 % of its pixels any byte."""
    img = np.full((rows, cols), 100, np.int64)
    levels = np.array([*range(0, 251, 25), 255])
    for _ in range(max(4, rows * cols // 120)):
        y0, x0 = rng.integers(0, rows), rng.integers(0, cols)
        h, w = rng.integers(2, max(3, rows // 2)), rng.integers(2, max(3, cols // 2))
        img[y0 : y0 + h, x0 : x0 + w] = rng.choice(levels)
    noise = rng.random((rows, cols)) < 0.03
    img[noise] = rng.integers(0, 256, int(noise.sum()))
    return img.astype(np.uint8)


def _rgba_scene(rng, count, size):
    """An RGBA photograph's stand-in: each colour channel a scene of flat plateaus
    (where the blur's float sum is the plateau's value times a filter that sums to 1
    within a rounding, and its truncation to a byte hangs on that rounding), alpha any
    byte (the blur never reads it). The oracle's default bytes are noise, with no flat
    region."""
    rows, cols = int(size.numRows), int(size.numCols)
    img = np.stack(
        [
            *(_plateau_channel(rng, rows, cols) for _ in range(3)),
            rng.integers(0, 256, (rows, cols)),
        ],
        axis=-1,
    ).astype(np.uint8)
    return img.reshape(-1)[:count]


def _blur_channel(channel: np.ndarray, taps: np.ndarray) -> np.ndarray:
    """``gaussian_blur`` in numpy: the float32 sum over the 81 taps in the kernel's
    order (rows of the filter, then columns), each neighbour clamped to the image,
    then truncated to a byte."""
    rows, cols = channel.shape
    w = _FILTER_WIDTH
    padded = np.pad(channel.astype(np.float32), w // 2, mode="edge")
    total = np.zeros((rows, cols), np.float32)
    for fy in range(w):
        for fx in range(w):
            total = total + taps[fy * w + fx] * padded[fy : fy + rows, fx : fx + cols]
    return total.astype(np.uint8)


def _blur_reference(inputImageRGBA, d_filter, numRows, numCols):  # noqa: N803
    rows, cols = int(numRows), int(numCols)
    img = inputImageRGBA.reshape(rows, cols, 4)
    out = np.empty_like(img)
    for ch in range(3):
        out[..., ch] = _blur_channel(img[..., ch], d_filter)
    out[..., 3] = 255
    return {"outputImageRGBA": out.reshape(-1)}


def _blur_grid(schedule, size):
    # the student's host: numCols / 16 + 1 blocks across, numRows / 16 + 1 down
    return (int(size.numCols) // 16 + 1, int(size.numRows) // 16 + 1, 1)


def _blur_buffers(cuda: bool) -> tuple:
    image = "numRows*numCols*4"
    head = (
        BufferSpec(0, "u8", "read", name="inputImageRGBA", count=image, fill=_rgba_scene),
        BufferSpec(1, "u8", "read_write", name="outputImageRGBA", count=image),
        BufferSpec(
            2, "f32", "read", name="d_filter", count=_FILTER_WIDTH**2, fill=_course_filter()
        ),
    )
    if not cuda:
        return (
            *head,
            BufferSpec.uniform(
                3, (("numRows", "i32"), ("numCols", "i32"), ("filterWidth", "i32")), name="p"
            ),
        )
    channels = tuple(
        BufferSpec(3 + k, "u8", "read_write", name=name, count="numRows*numCols", scratch=True)
        for k, name in enumerate(
            ("red", "green", "blue", "redBlurred", "greenBlurred", "blueBlurred")
        )
    )
    return (*head, *channels)


def _blur_params(s):
    return {"numRows": int(s.numRows), "numCols": int(s.numCols), "filterWidth": _FILTER_WIDTH}


# 37x61: partial blocks both ways, more columns than rows; 50x20: more rows than columns
_BLUR_SIZES = ("37x61", "50x20")

BLUR_CUDA = Wild(
    KernelSpec(
        id="wild_r70_cs344_gaussian_blur",
        entry_point="gaussian_blur",
        sources={"cuda": _BLUR_CUDA},
        dims=("numRows", "numCols"),
        buffers=_blur_buffers(cuda=True),
        reference=_blur_reference,
        params=_blur_params,
        launches=(
            Dispatch(
                "separateChannels",
                grid=_blur_grid,
                arguments=("inputImageRGBA", "numRows", "numCols", "red", "green", "blue"),
            ),
            *(
                Dispatch(
                    "gaussian_blur",
                    grid=_blur_grid,
                    arguments=(ch, f"{ch}Blurred", "numRows", "numCols", "d_filter", "filterWidth"),
                )
                for ch in ("red", "green", "blue")
            ),
            Dispatch(
                "recombineChannels",
                grid=_blur_grid,
                arguments=(
                    "redBlurred",
                    "greenBlurred",
                    "blueBlurred",
                    "outputImageRGBA",
                    "numRows",
                    "numCols",
                ),
            ),
        ),
        schedules=(Schedule((16, 16)),),
        test_sizes=_BLUR_SIZES,
    ),
    {
        "the columns clamped one past the image": (
            "cuda",
            "x = min(max(x, 0), numCols - 1);",
            "x = min(max(x, 0), numCols);",
        ),
        "the rows clamped by the column count": (
            "cuda",
            "y = min(max(y, 0), numRows - 1);",
            "y = min(max(y, 0), numCols - 1);",
        ),
    },
)

BLUR_WGSL = Wild(
    KernelSpec(
        id="wild_r70_cs344_gaussian_blur_webgpu_port",
        entry_point="gaussian_blur",
        sources={"wgsl": _BLUR_WGSL},
        dims=("numRows", "numCols"),
        buffers=_blur_buffers(cuda=False),
        reference=_blur_reference,
        params=_blur_params,
        grid=lambda sch, s: (ceil_div(int(s.numCols), 16), ceil_div(int(s.numRows), 16), 1),
        schedules=(Schedule((16, 16)),),
        test_sizes=_BLUR_SIZES,
    ),
    {
        "the sums rounded to the nearest byte": (
            "wgsl",
            "let rgb = vec3<u32>(sum);",
            "let rgb = vec3<u32>(round(sum));",
        ),
        "the columns clamped by the row count": (
            "wgsl",
            "let x = clamp(col + fx - radius, 0, p.numCols - 1);",
            "let x = clamp(col + fx - radius, 0, p.numRows - 1);",
        ),
    },
)


# -- 2. Problem Set 3: the log-luminance's minimum and maximum ---------------------------

_MINMAX_CUDA = r"""// kernel-forge corpus: CS344 Problem Set 3's min/max reduction as a student solved it
// (ibebrett/CUDA-CS344), read, not copied.
#include <cuda_runtime.h>

// NVRTC has no <float.h>
#ifndef FLT_MAX
#define FLT_MAX 3.402823466e+38F
#endif

// minmax 0: each block's minimum into d_out[blockIdx.x]; 1: its maximum
extern "C" __global__
void reduce_minmax_kernel(const float* const d_in, float* d_out, const size_t size, int minmax) {
    extern __shared__ float shared[];

    int mid = threadIdx.x + blockDim.x * blockIdx.x;
    int tid = threadIdx.x;

    // a block's threads past the input hold the operation's identity
    if (mid < size) {
        shared[tid] = d_in[mid];
    } else {
        if (minmax == 0)
            shared[tid] = FLT_MAX;
        else
            shared[tid] = -FLT_MAX;
    }

    __syncthreads();

    // blockDim.x a power of two: the upper half folded onto the lower, level by level
    for (unsigned int s = blockDim.x / 2; s > 0; s /= 2) {
        if (tid < s) {
            if (minmax == 0) {
                shared[tid] = min(shared[tid], shared[tid + s]);
            } else {
                shared[tid] = max(shared[tid], shared[tid + s]);
            }
        }
        __syncthreads();
    }

    if (tid == 0) {
        d_out[blockIdx.x] = shared[0];
    }
}
"""

_MINMAX_WGSL = """// CS344's min/max reduction as a WebGPU port: workgroups of 256, two entry points
// (the blocks' partial results, then one workgroup over those), the pass's operation an
// override constant; the result [min, max].
override minmax: u32 = 0u;

struct Params {
    size: u32,
    blocks: u32,
}

@group(0) @binding(0) var<storage, read> d_in: array<f32>;
@group(0) @binding(1) var<storage, read_write> partial: array<f32>;
@group(0) @binding(2) var<storage, read_write> d_minmax: array<f32, 2>;
@group(0) @binding(3) var<uniform> p: Params;

const FLT_MAX: f32 = 0x1.fffffep+127f;
var<workgroup> sdata: array<f32, 256>;

fn identity() -> f32 {
    if (minmax == 0u) {
        return FLT_MAX;
    }
    return -FLT_MAX;
}

// the tree over sdata: the upper half folded onto the lower, level by level
fn fold(tid: u32) {
    for (var s = 128u; s > 0u; s >>= 1u) {
        if (tid < s) {
            if (minmax == 0u) {
                sdata[tid] = min(sdata[tid], sdata[tid + s]);
            } else {
                sdata[tid] = max(sdata[tid], sdata[tid + s]);
            }
        }
        workgroupBarrier();
    }
}

@compute @workgroup_size(256)
fn reduce_minmax(@builtin(global_invocation_id) gid: vec3<u32>,
                 @builtin(local_invocation_id) lid: vec3<u32>,
                 @builtin(workgroup_id) wid: vec3<u32>) {
    let tid = lid.x;
    if (gid.x < p.size) {
        sdata[tid] = d_in[gid.x];
    } else {
        sdata[tid] = identity();
    }
    workgroupBarrier();
    fold(tid);
    if (tid == 0u) {
        partial[wid.x] = sdata[0];
    }
}

@compute @workgroup_size(256)
fn reduce_partials(@builtin(local_invocation_id) lid: vec3<u32>) {
    let tid = lid.x;
    if (tid < p.blocks) {
        sdata[tid] = partial[tid];
    } else {
        sdata[tid] = identity();
    }
    workgroupBarrier();
    fold(tid);
    if (tid == 0u) {
        d_minmax[minmax] = sdata[0];
    }
}
"""


def _passes(n: int, block: int, count: int) -> list[int]:
    """The lengths the host's passes reduce: n, then one value a block, ``count`` times."""
    lengths = [n]
    for _ in range(count - 1):
        lengths.append(ceil_div(lengths[-1], block))
    return lengths


def _minmax_launches(entry, block, count, names):
    """For the minimum, then the maximum: ``count`` passes of blocks of ``block``, the
    input into ``names[1]``, that into ``names[2]``..., the last into the result."""

    def launches(size):
        n = int(size)
        lengths = _passes(n, block, count)
        steps = []
        for op, result in ((0, "min_logLum"), (1, "max_logLum")):
            chain = [names[0], *names[1:count], result]
            for k, length in enumerate(lengths):
                steps.append(
                    Dispatch(
                        entry,
                        grid=(ceil_div(length, block), 1, 1),
                        overrides={"size": length, "minmax": op},
                        bindings={"d_in": chain[k], "d_out": chain[k + 1]},
                        shared_bytes=4 * block if entry == "reduce_minmax_kernel" else None,
                    )
                )
        return tuple(steps)

    return launches


def _minmax_reference(d_logLuminance, **_):
    return {
        "min_logLum": np.array([d_logLuminance.min()], np.float32),
        "max_logLum": np.array([d_logLuminance.max()], np.float32),
    }


def _partial_count(block: int, level: int):
    return lambda s: ceil_div(int(s), block**level)


def _minmax_buffers(block: int, count: int) -> tuple:
    partials = tuple(
        BufferSpec(
            2 + k,
            "f32",
            "read_write",
            name=f"partial{k + 1}",
            count=_partial_count(block, k + 1),
            scratch=True,
        )
        for k in range(count - 1)
    )
    return (
        BufferSpec(0, "f32", "read", name="d_logLuminance"),
        BufferSpec(1, "f32", "read_write", name="min_logLum", count=1),
        *partials,
        BufferSpec(2 + len(partials), "f32", "read_write", name="max_logLum", count=1),
    )


# 5000: three passes of 32 (5000, 157, 5) with a tail in every block's last; 1000; 33
_MINMAX_SIZES = (5000, 1000, 33)

MINMAX_CUDA = Wild(
    KernelSpec(
        id="wild_r70_cs344_reduce_minmax",
        entry_point="reduce_minmax_kernel",
        sources={"cuda": _MINMAX_CUDA},
        buffers=_minmax_buffers(32, 3),
        reference=_minmax_reference,
        launches=_minmax_launches(
            "reduce_minmax_kernel", 32, 3, ("d_logLuminance", "partial1", "partial2")
        ),
        schedules=(Schedule((32,)),),
        # a log-luminance, log10(0.0001 + L), is finite; min() of CUDA drops a NaN
        # where numpy's propagates it: the kernel is not defined on NaN
        nonfinite_inputs=False,
        test_sizes=_MINMAX_SIZES,
    ),
    {
        "the tail padded with zeros": (
            "cuda",
            "if (minmax == 0)\n            shared[tid] = FLT_MAX;",
            "if (minmax == 0)\n            shared[tid] = 0.0f;",
        ),
        "the tree stops above its last level": (
            "cuda",
            "for (unsigned int s = blockDim.x / 2; s > 0; s /= 2) {",
            "for (unsigned int s = blockDim.x / 2; s > 1; s /= 2) {",
        ),
    },
)


def _port_minmax_launches(size):
    blocks = ceil_div(int(size), 256)
    return tuple(
        Dispatch(entry, grid=(groups, 1, 1), overrides={"minmax": op})
        for op in (0, 1)
        for entry, groups in (("reduce_minmax", blocks), ("reduce_partials", 1))
    )


def _port_minmax_reference(d_in, **_):
    return {"d_minmax": np.array([d_in.min(), d_in.max()], np.float32)}


MINMAX_WGSL = Wild(
    KernelSpec(
        id="wild_r70_cs344_reduce_minmax_webgpu_port",
        entry_point="reduce_minmax",
        sources={"wgsl": _MINMAX_WGSL},
        buffers=(
            BufferSpec(0, "f32", "read", name="d_in"),
            BufferSpec(
                1,
                "f32",
                "read_write",
                name="partial",
                count=lambda s: ceil_div(int(s), 256),
                scratch=True,
            ),
            BufferSpec(2, "f32", "read_write", name="d_minmax", count=2),
            BufferSpec.uniform(3, (("size", "u32"), ("blocks", "u32")), name="p"),
        ),
        reference=_port_minmax_reference,
        params=lambda s: {"size": int(s), "blocks": ceil_div(int(s), 256)},
        launches=_port_minmax_launches,
        schedules=(Schedule((256,)),),
        nonfinite_inputs=False,
        # 5000: 20 workgroups, the last one's tail padded (one workgroup of partials:
        # the port reduces up to 65536 values)
        test_sizes=(5000, 1000, 33),
    ),
    {
        "the tree started at 64 for a workgroup of 256": (
            "wgsl",
            "for (var s = 128u; s > 0u; s >>= 1u) {",
            "for (var s = 64u; s > 0u; s >>= 1u) {",
        ),
        "the tail padded with zeros": (
            "wgsl",
            "    if (minmax == 0u) {\n        return FLT_MAX;",
            "    if (minmax == 0u) {\n        return 0.0;",
        ),
    },
)


# -- 3. Problem Set 3: the histogram of log-luminance and its CDF ------------------------

_HIST_CUDA = r"""// kernel-forge corpus: CS344 Problem Set 3's histogram and scan as a student wrote
// them (ibebrett/CUDA-CS344), read, not copied; their two bugs fixed (mutants).
#include <cuda_runtime.h>

extern "C" __global__
void histogram_kernel(unsigned int* d_bins, const float* d_in, const int bin_count, const float lum_min, const float lum_max, const int size) {
    int mid = threadIdx.x + blockDim.x * blockIdx.x;
    if (mid >= size)
        return;
    float lum_range = lum_max - lum_min;
    int bin = ((d_in[mid] - lum_min) / lum_range) * bin_count;
    // lum_max itself lands at bin_count: it is counted in the last bin
    bin = min(bin, bin_count - 1);

    atomicAdd(&d_bins[bin], 1);
}

// one block of size threads: Hillis-Steele in place in global memory (each step reads,
// waits, adds, waits), then every bin takes the total before it (an exclusive CDF)
extern "C" __global__
void scan_kernel(unsigned int* d_bins, int size) {
    int mid = threadIdx.x + blockDim.x * blockIdx.x;
    if (mid >= size)
        return;

    for (int s = 1; s <= size; s *= 2) {
        int spot = mid - s;
        unsigned int val = 0;
        if (spot >= 0)
            val = d_bins[spot];
        __syncthreads();
        if (spot >= 0)
            d_bins[mid] += val;
        __syncthreads();
    }

    unsigned int before = 0;
    if (mid > 0)
        before = d_bins[mid - 1];
    __syncthreads();
    d_bins[mid] = before;
}
"""

_HIST_WGSL = """// CS344's histogram and CDF as a WebGPU port: atomic bins, then one workgroup of 256
// scanning them in workgroup memory, double-buffered (Hillis-Steele), exclusive.
struct Params {
    bin_count: u32,
    size: u32,
    lum_min: f32,
    lum_max: f32,
}

@group(0) @binding(0) var<storage, read_write> d_bins: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read> d_in: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;
@group(0) @binding(3) var<storage, read_write> d_cdf: array<u32>;

@compute @workgroup_size(256)
fn histogram(@builtin(global_invocation_id) gid: vec3<u32>) {
    let mid = gid.x;
    if (mid >= p.size) {
        return;
    }
    let lum_range = p.lum_max - p.lum_min;
    let bin = min(u32((d_in[mid] - p.lum_min) / lum_range * f32(p.bin_count)), p.bin_count - 1u);
    atomicAdd(&d_bins[bin], 1u);
}

var<workgroup> temp: array<u32, 512>;

@compute @workgroup_size(256)
fn scan(@builtin(local_invocation_id) lid: vec3<u32>) {
    let i = lid.x;
    // shifted right by one as it loads: the scan of that is the exclusive one
    var first = 0u;
    if (i > 0u) {
        first = atomicLoad(&d_bins[i - 1u]);
    }
    temp[i] = first;
    workgroupBarrier();

    var pout = 0u;
    for (var offset = 1u; offset < p.bin_count; offset <<= 1u) {
        let pin = pout;
        pout = 1u - pout;
        if (i >= offset) {
            temp[pout * 256u + i] = temp[pin * 256u + i] + temp[pin * 256u + i - offset];
        } else {
            temp[pout * 256u + i] = temp[pin * 256u + i];
        }
        workgroupBarrier();
    }
    d_cdf[i] = temp[pout * 256u + i];
}
"""

_LUM_MIN, _LUM_MAX = -4.0, 2.5


def _log_luminance(rng, count, size):
    """Log-luminance uniform over the ``[lum_min, lum_max]`` the host passes, both ends
    planted (the host's reduction found them as the minimum and the maximum: the
    maximum's bin is ``bin_count`` before the clamp)."""
    x = rng.uniform(_LUM_MIN, _LUM_MAX, count).astype(np.float32)
    spots = rng.choice(count, 4, replace=False)
    x[spots[:2]] = _LUM_MIN
    x[spots[2:]] = _LUM_MAX
    return x


def _bins(d_in, bin_count):
    f = np.float32
    lum_range = f(_LUM_MAX) - f(_LUM_MIN)
    scaled = (d_in.astype(f) - f(_LUM_MIN)) / lum_range * f(int(bin_count))
    bins = np.minimum(scaled.astype(np.int64), int(bin_count) - 1)
    return np.bincount(bins, minlength=int(bin_count)).astype(np.uint32)


def _exclusive(hist):
    return np.concatenate([[0], np.cumsum(hist)[:-1]]).astype(np.uint32)


def _hist_cuda_reference(d_in, bins, **_):
    return {"d_bins": _exclusive(_bins(d_in, bins))}


def _hist_wgsl_reference(d_in, bins, **_):
    hist = _bins(d_in, bins)
    return {"d_bins": hist, "d_cdf": _exclusive(hist)}


HIST_CUDA = Wild(
    KernelSpec(
        id="wild_r70_cs344_histogram_and_cdf",
        entry_point="histogram_kernel",
        sources={"cuda": _HIST_CUDA},
        dims=("n", "bins"),
        buffers=(
            # the host's cudaMemset(d_bins, 0): the histogram, then the CDF in place
            BufferSpec(0, "u32", "read_write", name="d_bins", count="bins", initial=0),
            BufferSpec(1, "f32", "read", name="d_in", count="n", fill=_log_luminance),
        ),
        reference=_hist_cuda_reference,
        params=lambda s: {"bin_count": int(s.bins), "size": int(s.n)},
        defaults={"lum_min": _LUM_MIN, "lum_max": _LUM_MAX},
        launches=(
            Dispatch(
                "histogram_kernel",
                grid=lambda sch, s: (ceil_div(int(s.n), 1024), 1, 1),
                schedule=Schedule((1024,)),
            ),
            Dispatch(
                "scan_kernel",
                grid=(1, 1, 1),
                schedule=lambda sch, s: Schedule((int(s.bins),)),
                overrides={"size": lambda sch, s: int(s.bins)},
            ),
        ),
        schedules=(Schedule((1024,)),),
        # the course's 1024 bins; 100 bins as the course's own example uses
        test_sizes=("5000x1024", "3001x100"),
    ),
    {
        # ibebrett's and shreyansh26's line: the maximum counted one past the histogram
        "the top luminance's bin one past the end": (
            "cuda",
            "    bin = min(bin, bin_count - 1);\n",
            "",
        ),
        # ibebrett's scan: the inclusive sums where the course asks for an exclusive CDF
        "an inclusive scan for the CDF": (
            "cuda",
            "    unsigned int before = 0;\n    if (mid > 0)\n        before = d_bins[mid - 1];\n    __syncthreads();\n    d_bins[mid] = before;\n",
            "",
        ),
        "each step's read and add in one": (
            "cuda",
            "        unsigned int val = 0;\n        if (spot >= 0)\n            val = d_bins[spot];\n        __syncthreads();\n        if (spot >= 0)\n            d_bins[mid] += val;",
            "        if (spot >= 0)\n            d_bins[mid] += d_bins[spot];",
        ),
    },
)

HIST_WGSL = Wild(
    KernelSpec(
        id="wild_r70_cs344_histogram_and_cdf_webgpu_port",
        entry_point="histogram",
        sources={"wgsl": _HIST_WGSL},
        dims=("n", "bins"),
        buffers=(
            BufferSpec(0, "u32", "read_write", name="d_bins", count="bins", initial=0),
            BufferSpec(1, "f32", "read", name="d_in", count="n", fill=_log_luminance),
            BufferSpec.uniform(
                2,
                (("bin_count", "u32"), ("size", "u32"), ("lum_min", "f32"), ("lum_max", "f32")),
                name="p",
            ),
            BufferSpec(3, "u32", "read_write", name="d_cdf", count="bins"),
        ),
        reference=_hist_wgsl_reference,
        params=lambda s: {"bin_count": int(s.bins), "size": int(s.n)},
        defaults={"lum_min": _LUM_MIN, "lum_max": _LUM_MAX},
        launches=(
            Dispatch("histogram", grid=lambda sch, s: (ceil_div(int(s.n), 256), 1, 1)),
            Dispatch("scan", grid=(1, 1, 1)),
        ),
        schedules=(Schedule((256,)),),
        # one workgroup scans: 256 bins
        test_sizes=("5000x256", "777x256"),
    ),
    {
        "the top luminance's bin one past the end": (
            "wgsl",
            "let bin = min(u32((d_in[mid] - p.lum_min) / lum_range * f32(p.bin_count)), p.bin_count - 1u);",
            "let bin = u32((d_in[mid] - p.lum_min) / lum_range * f32(p.bin_count));",
        ),
        "an inclusive scan for the CDF": (
            "wgsl",
            "    var first = 0u;\n    if (i > 0u) {\n        first = atomicLoad(&d_bins[i - 1u]);\n    }",
            "    let first = atomicLoad(&d_bins[i]);",
        ),
        "the scan in place, one barrier a step": (
            "wgsl",
            "        if (i >= offset) {\n            temp[pout * 256u + i] = temp[pin * 256u + i] + temp[pin * 256u + i - offset];\n        } else {\n            temp[pout * 256u + i] = temp[pin * 256u + i];\n        }",
            "        pout = pin;\n        if (i >= offset) {\n            temp[pout * 256u + i] += temp[pout * 256u + i - offset];\n        }",
        ),
    },
    invisible_on={
        ("the scan in place, one barrier a step", "wgsl", "NVIDIA"): RACE_HIDDEN,
    },
)


# -- 4. Problem Set 6: Poisson blending by Jacobi iterations -----------------------------

_BLEND_CUDA = r"""// kernel-forge corpus: CS344 Problem Set 6 (seamless cloning) as a student solved it
// (shreyansh26/CS344-Parallel-Programming-Solutions), read, not copied; the masks
// written everywhere (theirs only under the mask: a mutant).
#include <cuda_runtime.h>

// x, y >= 0 needs no test: an int below 0 compared with a size_t is a huge unsigned
__device__ bool isSafe(int x, int y, const size_t numRows, const size_t numCols) {
   return ((x < numCols) && (y < numRows));
}

__device__ int get1DIdx(int x, int y, const size_t numCols) {
   return y * numCols + x;
}

__device__ bool isNotWhite(uchar4 image) {
   return !((image.x == 255) && (image.y == 255) && (image.z == 255));
}

// interior: in the mask with every in-bounds 4-neighbour in it; border: in the mask
// with some neighbour in it and some not
__global__ void computeMaskInteriorBorder(const uchar4* const d_sourceImage,
                                          int *d_interiorMask,
                                          int *d_borderMask,
                                          const size_t numRowsSource,
                                          const size_t numColsSource)
{
   int px = (blockIdx.x * blockDim.x) + threadIdx.x;
   int py = (blockIdx.y * blockDim.y) + threadIdx.y;
   int idx = get1DIdx(px, py, numColsSource);

   if (!isSafe(px, py, numRowsSource, numColsSource))
      return;

   d_interiorMask[idx] = 0;
   d_borderMask[idx] = 0;

   if (isNotWhite(d_sourceImage[idx])) {
      int inbounds = 0;
      int interior = 0;

      for (int dx = -1; dx <= 1; dx += 2) {
         if (isSafe(px + dx, py, numRowsSource, numColsSource)) {
            inbounds++;
            if (isNotWhite(d_sourceImage[get1DIdx(px + dx, py, numColsSource)]))
               interior++;
         }
      }
      for (int dy = -1; dy <= 1; dy += 2) {
         if (isSafe(px, py + dy, numRowsSource, numColsSource)) {
            inbounds++;
            if (isNotWhite(d_sourceImage[get1DIdx(px, py + dy, numColsSource)]))
               interior++;
         }
      }

      if (inbounds == interior)
         d_interiorMask[idx] = 1;
      else if (interior > 0)
         d_borderMask[idx] = 1;
   }
}

// one Jacobi step: an interior pixel becomes (a + b + c) / d, clamped to [0, 255]; a
// sums the interior neighbours' last guesses, b the border neighbours' destination
// values, c the source's differences, d the neighbours in bounds
__global__ void jacobi(float *d_in, float *d_out,
                       int *d_interiorMask,
                       int *d_borderMask,
                       float *d_sourceChannel,
                       float *d_destChannel,
                       const size_t numRowsSource,
                       const size_t numColsSource)
{
   int2 pos = make_int2(blockIdx.x * blockDim.x + threadIdx.x,
                        blockIdx.y * blockDim.y + threadIdx.y);
   int idx = get1DIdx(pos.x, pos.y, numColsSource);

   if (!isSafe(pos.x, pos.y, numRowsSource, numColsSource))
      return;

   int nb;
   if (d_interiorMask[idx] == 1) {
      float a = 0.0f, b = 0.0f, c = 0.0f, d = 0.0f;

      for (int dx = -1; dx <= 1; dx += 2) {
         if (isSafe(pos.x + dx, pos.y, numRowsSource, numColsSource)) {
            d++;
            nb = get1DIdx(pos.x + dx, pos.y, numColsSource);
            if (d_interiorMask[nb] == 1)
               a += d_in[nb];
            else if (d_borderMask[nb] == 1)
               b += d_destChannel[nb];
            c += (d_sourceChannel[idx] - d_sourceChannel[nb]);
         }
      }
      for (int dy = -1; dy <= 1; dy += 2) {
         if (isSafe(pos.x, pos.y + dy, numRowsSource, numColsSource)) {
            d++;
            nb = get1DIdx(pos.x, pos.y + dy, numColsSource);
            if (d_interiorMask[nb] == 1)
               a += d_in[nb];
            else if (d_borderMask[nb] == 1)
               b += d_destChannel[nb];
            c += (d_sourceChannel[idx] - d_sourceChannel[nb]);
         }
      }

      d_out[idx] = min(255.0f, max(0.0f, (a + b + c) / d));
   } else {
      d_out[idx] = d_destChannel[idx];
   }
}

// an RGBA image into three float channels
__global__ void separateChannels(const uchar4* const inputImageRGBA,
                                 int numRows,
                                 int numCols,
                                 float* const redChannel,
                                 float* const greenChannel,
                                 float* const blueChannel)
{
   int px = (blockIdx.x * blockDim.x) + threadIdx.x;
   int py = (blockIdx.y * blockDim.y) + threadIdx.y;

   if ((px >= numCols) || (py >= numRows))
      return;

   int idx = py * numCols + px;
   redChannel[idx] = (float)inputImageRGBA[idx].x;
   greenChannel[idx] = (float)inputImageRGBA[idx].y;
   blueChannel[idx] = (float)inputImageRGBA[idx].z;
}
"""

_BLEND_WGSL = """// CS344's Poisson blending as a WebGPU port, one channel (red): the masks, the
// channels as floats (the first guess the source's), then a dispatch per Jacobi step
// with the two guesses' bindings swapped.
struct Params {
    numRows: i32,
    numCols: i32,
}

@group(0) @binding(0) var<storage, read> sourceImg: array<u32>;
@group(0) @binding(1) var<storage, read> destImg: array<u32>;
@group(0) @binding(2) var<storage, read_write> d_interiorMask: array<i32>;
@group(0) @binding(3) var<storage, read_write> d_borderMask: array<i32>;
@group(0) @binding(4) var<storage, read_write> d_sourceChannel: array<f32>;
@group(0) @binding(5) var<storage, read_write> d_destChannel: array<f32>;
@group(0) @binding(6) var<storage, read_write> d_in: array<f32>;
@group(0) @binding(7) var<storage, read_write> d_out: array<f32>;
@group(0) @binding(8) var<uniform> p: Params;

fn inside(x: i32, y: i32) -> bool {
    return x >= 0 && y >= 0 && x < p.numCols && y < p.numRows;
}

fn isNotWhite(px: u32) -> bool {
    return (px & 0xffffffu) != 0xffffffu;
}

@compute @workgroup_size(16, 16)
fn computeMaskInteriorBorder(@builtin(global_invocation_id) gid: vec3<u32>) {
    let x = i32(gid.x);
    let y = i32(gid.y);
    if (!inside(x, y)) {
        return;
    }
    let idx = y * p.numCols + x;
    var interiorMask = 0;
    var borderMask = 0;
    if (isNotWhite(sourceImg[idx])) {
        var inbounds = 0;
        var interior = 0;
        let offsets = array<vec2<i32>, 4>(vec2(-1, 0), vec2(1, 0), vec2(0, -1), vec2(0, 1));
        for (var k = 0; k < 4; k++) {
            let n = vec2(x, y) + offsets[k];
            if (inside(n.x, n.y)) {
                inbounds++;
                if (isNotWhite(sourceImg[n.y * p.numCols + n.x])) {
                    interior++;
                }
            }
        }
        if (inbounds == interior) {
            interiorMask = 1;
        } else if (interior > 0) {
            borderMask = 1;
        }
    }
    d_interiorMask[idx] = interiorMask;
    d_borderMask[idx] = borderMask;
}

@compute @workgroup_size(16, 16)
fn separateChannels(@builtin(global_invocation_id) gid: vec3<u32>) {
    let x = i32(gid.x);
    let y = i32(gid.y);
    if (!inside(x, y)) {
        return;
    }
    let idx = y * p.numCols + x;
    let red = f32(sourceImg[idx] & 0xffu);
    d_sourceChannel[idx] = red;
    d_destChannel[idx] = f32(destImg[idx] & 0xffu);
    d_in[idx] = red;
}

@compute @workgroup_size(16, 16)
fn jacobi(@builtin(global_invocation_id) gid: vec3<u32>) {
    let x = i32(gid.x);
    let y = i32(gid.y);
    if (!inside(x, y)) {
        return;
    }
    let idx = y * p.numCols + x;
    if (d_interiorMask[idx] != 1) {
        d_out[idx] = d_destChannel[idx];
        return;
    }
    var a = 0.0;
    var b = 0.0;
    var c = 0.0;
    var d = 0.0;
    let offsets = array<vec2<i32>, 4>(vec2(-1, 0), vec2(1, 0), vec2(0, -1), vec2(0, 1));
    for (var k = 0; k < 4; k++) {
        let n = vec2(x, y) + offsets[k];
        if (inside(n.x, n.y)) {
            d += 1.0;
            let nb = n.y * p.numCols + n.x;
            if (d_interiorMask[nb] == 1) {
                a += d_in[nb];
            } else if (d_borderMask[nb] == 1) {
                b += d_destChannel[nb];
            }
            c += d_sourceChannel[idx] - d_sourceChannel[nb];
        }
    }
    d_out[idx] = min(255.0, max(0.0, (a + b + c) / d));
}
"""

_JACOBI_STEPS = 24


def _blob_image(rng, count, size):
    """A source image for cloning: white (255, 255, 255) but for a few ellipses and
    rectangles of any colour, some reaching the image's edges, a few white pixels
    inside them (holes: border pixels within the mask), alpha any byte."""
    rows, cols = int(size.numRows), int(size.numCols)
    img = np.full((rows, cols, 4), 255, np.uint8)
    yy, xx = np.mgrid[0:rows, 0:cols]
    inside = np.zeros((rows, cols), bool)
    for _ in range(3):
        cy, cx = rng.uniform(-0.1, 1.1) * rows, rng.uniform(-0.1, 1.1) * cols
        ry, rx = rng.uniform(0.15, 0.4) * rows, rng.uniform(0.15, 0.4) * cols
        inside |= ((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2 <= 1
    y0, x0 = rng.integers(0, rows // 2), 0
    inside[y0 : y0 + rows // 4, x0 : x0 + cols // 3] = True
    inside &= rng.random((rows, cols)) >= 0.01
    colours = rng.integers(0, 255, (rows, cols, 3)).astype(np.uint8)
    img[..., :3][inside] = colours[inside]
    img[..., 3] = rng.integers(0, 256, (rows, cols))
    return img.reshape(-1)[:count]


def _masks(source, rows, cols):
    img = source.reshape(rows, cols, 4)
    mask = ~((img[..., 0] == 255) & (img[..., 1] == 255) & (img[..., 2] == 255))
    padded_in = np.pad(np.ones((rows, cols), np.int64), 1)
    padded_mask = np.pad(mask.astype(np.int64), 1)
    inbounds = sum(
        padded_in[1 + dy : 1 + dy + rows, 1 + dx : 1 + dx + cols] for dy, dx in _NEIGHBOURS
    )
    interior = sum(
        padded_mask[1 + dy : 1 + dy + rows, 1 + dx : 1 + dx + cols] for dy, dx in _NEIGHBOURS
    )
    inner = mask & (inbounds == interior)
    border = mask & ~inner & (interior > 0)
    return inner, border


# the kernels' order: x - 1, x + 1, then y - 1, y + 1
_NEIGHBOURS = ((0, -1), (0, 1), (-1, 0), (1, 0))


def _jacobi(source, dest, rows, cols, steps):
    """The masks and ``steps`` Jacobi steps in float32, each sum in the kernels' order."""
    f = np.float32
    inner, border = _masks(source, rows, cols)
    src = source.reshape(rows, cols, 4)[..., 0].astype(f)
    dst = dest.reshape(rows, cols, 4)[..., 0].astype(f)
    guesses = [src.copy(), np.zeros_like(src)]
    pad = lambda a, v=0: np.pad(a, 1, constant_values=v)  # noqa: E731
    for step in range(steps):
        cur = guesses[step % 2]
        a = np.zeros_like(src)
        b = np.zeros_like(src)
        c = np.zeros_like(src)
        d = np.zeros_like(src)
        for dy, dx in _NEIGHBOURS:
            sl = (slice(1 + dy, 1 + dy + rows), slice(1 + dx, 1 + dx + cols))
            ok = pad(np.ones((rows, cols), bool), False)[sl]
            n_inner = pad(inner, False)[sl]
            n_border = pad(border, False)[sl]
            d = np.where(ok, d + f(1), d)
            a = np.where(ok & n_inner, a + pad(cur)[sl], a)
            b = np.where(ok & ~n_inner & n_border, b + pad(dst)[sl], b)
            c = np.where(ok, c + (src - pad(src)[sl]), c)
        with np.errstate(divide="ignore", invalid="ignore"):
            blended = np.minimum(f(255), np.maximum(f(0), (a + b + c) / d)).astype(f)
        guesses[(step + 1) % 2] = np.where(inner, blended, dst).astype(f)
    return inner, border, guesses


def _blend_cuda_reference(source, dest, numRows, numCols):  # noqa: N803
    inner, border, guesses = _jacobi(source, dest, int(numRows), int(numCols), _JACOBI_STEPS)
    return {
        "interiorMask": inner.astype(np.int32),
        "borderMask": border.astype(np.int32),
        "guess0": guesses[0],
        "guess1": guesses[1],
    }


def _blend_wgsl_reference(sourceImg, destImg, numRows, numCols):  # noqa: N803
    inner, border, guesses = _jacobi(sourceImg, destImg, int(numRows), int(numCols), _JACOBI_STEPS)
    return {
        "d_interiorMask": inner.astype(np.int32),
        "d_borderMask": border.astype(np.int32),
        "d_in": guesses[0],
        "d_out": guesses[1],
    }


def _blend_grid32(schedule, size):
    # the student's host: get_max_size(n, 32) = ceil(n / 32) + 1 blocks each way
    return (ceil_div(int(size.numCols), 32) + 1, ceil_div(int(size.numRows), 32) + 1, 1)


def _blend_cuda_launches():
    sizes = ("numRowsSource", "numColsSource")
    steps = [
        Dispatch(
            "computeMaskInteriorBorder",
            grid=_blend_grid32,
            arguments=("source", "interiorMask", "borderMask", *sizes),
        ),
        Dispatch(
            "separateChannels",
            grid=_blend_grid32,
            arguments=("source", "numRows", "numCols", "sourceR", "sourceG", "sourceB"),
        ),
        Dispatch(
            "separateChannels",
            grid=_blend_grid32,
            arguments=("dest", "numRows", "numCols", "destR", "destG", "destB"),
        ),
        # the host's cudaMemcpy of the source's channel into the first guess
        Dispatch(
            "separateChannels",
            grid=_blend_grid32,
            arguments=("source", "numRows", "numCols", "guess0", "sourceG", "sourceB"),
        ),
    ]
    for step in range(_JACOBI_STEPS):
        read, write = ("guess0", "guess1") if step % 2 == 0 else ("guess1", "guess0")
        steps.append(
            Dispatch(
                "jacobi",
                grid=_blend_grid32,
                arguments=(read, write, "interiorMask", "borderMask", "sourceR", "destR", *sizes),
            )
        )
    return tuple(steps)


def _blend_params(s):
    rows, cols = int(s.numRows), int(s.numCols)
    return {"numRows": rows, "numCols": cols, "numRowsSource": rows, "numColsSource": cols}


_BLEND_SIZES = ("45x70", "33x20")


def _float_channels(names, start):
    return tuple(
        BufferSpec(start + k, "f32", "read_write", name=name, count="numRows*numCols", scratch=True)
        for k, name in enumerate(names)
    )


BLEND_CUDA = Wild(
    KernelSpec(
        id="wild_r70_cs344_poisson_blending_jacobi",
        entry_point="jacobi",
        sources={"cuda": _BLEND_CUDA},
        dims=("numRows", "numCols"),
        buffers=(
            BufferSpec(0, "u8", "read", name="source", count="numRows*numCols*4", fill=_blob_image),
            BufferSpec(1, "u8", "read", name="dest", count="numRows*numCols*4"),
            BufferSpec(
                2,
                "i32",
                "read_write",
                name="interiorMask",
                count="numRows*numCols",
                shape=("numRows", "numCols"),
            ),
            BufferSpec(
                3,
                "i32",
                "read_write",
                name="borderMask",
                count="numRows*numCols",
                shape=("numRows", "numCols"),
            ),
            BufferSpec(
                4,
                "f32",
                "read_write",
                name="guess0",
                count="numRows*numCols",
                shape=("numRows", "numCols"),
            ),
            BufferSpec(
                5,
                "f32",
                "read_write",
                name="guess1",
                count="numRows*numCols",
                shape=("numRows", "numCols"),
            ),
            *_float_channels(("sourceR", "sourceG", "sourceB", "destR", "destG", "destB"), 6),
        ),
        reference=_blend_cuda_reference,
        params=_blend_params,
        launches=_blend_cuda_launches(),
        schedules=(Schedule((32, 32)),),
        test_sizes=_BLEND_SIZES,
    ),
    {
        # shreyansh26's: the white pixels' masks left as cudaMalloc gave them
        "the masks written only under the mask": (
            "cuda",
            "   d_interiorMask[idx] = 0;\n   d_borderMask[idx] = 0;\n\n   if (isNotWhite(d_sourceImage[idx])) {\n",
            "   if (isNotWhite(d_sourceImage[idx])) {\n      d_interiorMask[idx] = 0;\n      d_borderMask[idx] = 0;\n",
        ),
        "a step that reads the buffer it writes": (
            "cuda",
            "               a += d_in[nb];",
            "               a += d_out[nb];",
        ),
        "the source's difference taken the other way": (
            "cuda",
            "            c += (d_sourceChannel[idx] - d_sourceChannel[nb]);",
            "            c += (d_sourceChannel[nb] - d_sourceChannel[idx]);",
        ),
    },
)


def _blend_wgsl_launches():
    grid = lambda sch, s: (ceil_div(int(s.numCols), 16), ceil_div(int(s.numRows), 16), 1)  # noqa: E731
    steps = [
        Dispatch("computeMaskInteriorBorder", grid=grid),
        Dispatch("separateChannels", grid=grid),
    ]
    keep = {"d_in": "d_in", "d_out": "d_out"}
    swap = {"d_in": "d_out", "d_out": "d_in"}
    for step in range(_JACOBI_STEPS):
        steps.append(Dispatch("jacobi", grid=grid, bindings=keep if step % 2 == 0 else swap))
    return tuple(steps)


BLEND_WGSL = Wild(
    KernelSpec(
        id="wild_r70_cs344_poisson_blending_jacobi_webgpu_port",
        entry_point="jacobi",
        sources={"wgsl": _BLEND_WGSL},
        dims=("numRows", "numCols"),
        buffers=(
            BufferSpec(
                0, "u8", "read", name="sourceImg", count="numRows*numCols*4", fill=_blob_image
            ),
            BufferSpec(1, "u8", "read", name="destImg", count="numRows*numCols*4"),
            BufferSpec(
                2,
                "i32",
                "read_write",
                name="d_interiorMask",
                count="numRows*numCols",
                shape=("numRows", "numCols"),
            ),
            BufferSpec(
                3,
                "i32",
                "read_write",
                name="d_borderMask",
                count="numRows*numCols",
                shape=("numRows", "numCols"),
            ),
            *_float_channels(("d_sourceChannel", "d_destChannel"), 4),
            BufferSpec(
                6,
                "f32",
                "read_write",
                name="d_in",
                count="numRows*numCols",
                shape=("numRows", "numCols"),
            ),
            BufferSpec(
                7,
                "f32",
                "read_write",
                name="d_out",
                count="numRows*numCols",
                shape=("numRows", "numCols"),
            ),
            BufferSpec.uniform(8, (("numRows", "i32"), ("numCols", "i32")), name="p"),
        ),
        reference=_blend_wgsl_reference,
        params=lambda s: {"numRows": int(s.numRows), "numCols": int(s.numCols)},
        launches=_blend_wgsl_launches(),
        schedules=(Schedule((16, 16)),),
        test_sizes=_BLEND_SIZES,
    ),
    {
        "a step that reads the buffer it writes": (
            "wgsl",
            "                a += d_in[nb];",
            "                a += d_out[nb];",
        ),
        "the column before the first taken as in the image": (
            "wgsl",
            "return x >= 0 && y >= 0 && x < p.numCols && y < p.numRows;",
            "return y >= 0 && x < p.numCols && y < p.numRows;",
        ),
    },
)


ROUND70: dict[str, Wild] = {
    wild.kernel.id: wild
    for wild in (
        BLUR_CUDA,
        BLUR_WGSL,
        MINMAX_CUDA,
        MINMAX_WGSL,
        HIST_CUDA,
        HIST_WGSL,
        BLEND_CUDA,
        BLEND_WGSL,
    )
}

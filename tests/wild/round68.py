"""Round 68 of kernels from the wild, merged into ``tests.wild.CORPUS``: image kernels
whose outputs are chosen by comparisons (a non-maximum suppression's ties, a sliding
maximum) or are a labeling (connected components by union-find). Each CUDA kernel is
written for this corpus after the public file named below: read, not copied (the
project's rule for public code). What is theirs is kept: the ``__global__`` functions'
names, parameters (in their order) and launch geometry, the shared memory and its
barriers, the idioms and the numerics; what is ours: the comments, the formatting, and
the WebGPU ports (a storage buffer of the image's bytes packed four to a word, as
``u8`` buffers are bound; atomics where WGSL needs them).

- Oliveira's union-find labeling as YACCLAB benchmarks it, ``LocalMerge``,
  ``GlobalMerge`` and ``PathCompression`` (prittt/YACCLAB at 44052885, BSD 3-clause,
  ``cuda/src/labeling_CUDA_UF.cu``): 16x16 blocks, a tile's trees in ``__shared__ int
  s_buf`` (parent + 1) with ``s_img`` (0xFF past the image), ``Union`` by ``atomicMin``
  linking the larger root under the smaller and retrying where another thread linked
  it first, a barrier between the loads and the unions and one between the unions and
  the finds, 8-connectivity through a background pixel's diagonal pair, then the
  tiles' borders joined in global memory and every pixel pointed at its root.
  OpenCV's ``PtrStepSzb``/``PtrStepSzi`` are flattened into a pointer, its step (bytes
  for the image, ``labels.step`` for the labels, read as upstream reads them) and the
  rows and columns. The rule makes the labels canonical: each component's is 1 + its
  least linear index (a root is never linked under a larger one), 0 on the
  background; the reference spreads the least index over each component. The image
  is drawn binary near 8-connectivity's percolation threshold (its own draw: the
  default bytes are one component).
- OpenCV's CUDA Canny, ``canny::calcMagnitudeKernel<L1>`` and ``canny::calcMapKernel``
  (opencv/opencv_contrib at 1c8ec2d1, BSD 3-clause as its header says,
  ``modules/cudaimgproc/src/cuda/canny.cu``): 16x16 blocks, Sobel sums over the image
  clamped at its edges, the L1 magnitude (the detector's default), then the gradient's
  sector in 15-bit fixed point (TG22 = 13573, so no sector boundary ties for integer
  gradients) and the suppression ``m > behind && m >= ahead`` (of two equal
  neighbours the first is kept), ``1 + (m > high_thresh)``, the border left as the host
  cleared it. Upstream reads the image through an 8-bit texture with clamped
  addressing and the magnitude through a float texture; kernel-forge makes no 8-bit
  2-D texture, so ``texSrc`` clamps a plain read, and ``texMag`` reads inside the image
  only. The image is a scene of grey plateaus on a grid of 25 with 3 % noise (its own
  draw: a step edge gives equal magnitudes on both sides, and magnitudes of exactly 50
  and 100, the thresholds; the default bytes are noise, where nothing ties).
- The van Herk/Gil-Werman dilation of a cupy ``RawModule``
  (lorenzomammana/morphological-operators-cupy at c70637ff, ``morphology.cu``, with the
  host's ``prepare_morph`` in ``morphology_cupy.py`` at 436164c3; the repository holds
  no licence file, and nothing of it is copied): one pass over the flattened image
  whose rows the host padded by (p - 1) / 2 zeros, blocks of (2, n_window) threads, one
  window of p pixels a ``ty``, ``tx`` 0 its suffix maxima and ``tx`` 1 the prefix maxima
  from its last pixel, in ``extern __shared__`` memory of 2 n_window p ints, a barrier,
  then ``dst[j] = max`` of the two for the window centred on j. The CUDA entry launches
  one block as the host does up to 512 windows; the port, workgroups of (2, 64) over
  as many windows as the groups cover, the buffer padded past their reads. Exact
  (min and max of integers); the erosion beside it in the module compiles, unlaunched.

Each port passes on lavapipe and SwiftShader; what the CUDA entries do is the GPU
run's to confirm (tests/test_wild_round68.py says what the round showed).
"""

# ruff: noqa: E501  (the CUDA and WGSL keep their sources' long lines)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import RACE_HIDDEN, Wild

# -- 1. YACCLAB: Oliveira's union-find labeling (UF), three kernels ------------------------

_UF_CUDA = r"""// kernel-forge corpus: YACCLAB's UF labeling (Oliveira's union-find), read, not copied.
#include <cuda_runtime.h>

#define BLOCK_ROWS 16
#define BLOCK_COLS 16

// the root of n's tree: labels hold parent + 1 (0 is the background, never walked)
__device__ unsigned Find(const int *s_buf, unsigned n) {
    unsigned label = s_buf[n];
    while (label - 1 != n) {
        n = label - 1;
        label = s_buf[n];
    }
    return n;
}

// links the trees of a and b, the larger root under the smaller; a root another thread
// linked first is followed and the link tried again
__device__ void Union(int *s_buf, unsigned a, unsigned b) {
    bool done;
    do {
        a = Find(s_buf, a);
        b = Find(s_buf, b);
        if (a < b) {
            int old = atomicMin(s_buf + b, a + 1);
            done = (old == b + 1);
            b = old - 1;
        } else if (b < a) {
            int old = atomicMin(s_buf + a, b + 1);
            done = (old == a + 1);
            a = old - 1;
        } else {
            done = true;
        }
    } while (!done);
}

// phase 1: a block's 16x16 tile labelled in shared memory (8-connectivity, the mask's
// four neighbours), then each pixel's local root written as a global index + 1
extern "C" __global__ void LocalMerge(const unsigned char *img, int img_step, int *labels,
                                      int labels_step, int rows, int cols) {
    unsigned local_row = threadIdx.y;
    unsigned local_col = threadIdx.x;
    unsigned local_index = local_row * BLOCK_COLS + local_col;

    unsigned global_row = blockIdx.y * BLOCK_ROWS + local_row;
    unsigned global_col = blockIdx.x * BLOCK_COLS + local_col;
    unsigned img_index = global_row * img_step + global_col;

    __shared__ int s_buf[BLOCK_ROWS * BLOCK_COLS];
    __shared__ unsigned char s_img[BLOCK_ROWS * BLOCK_COLS];

    bool in_limits = (global_row < rows && global_col < cols);

    s_buf[local_index] = local_index + 1;
    s_img[local_index] = in_limits ? img[img_index] : 0xFF;

    __syncthreads();

    unsigned char v = s_img[local_index];

    if (in_limits) {
        if (v) {
            if (local_col > 0 && s_img[local_index - 1]) {
                Union(s_buf, local_index, local_index - 1);
            }
            if (local_row > 0 && s_img[local_index - BLOCK_COLS]) {
                Union(s_buf, local_index, local_index - BLOCK_COLS);
            }
        } else {
            // a background pixel joins its diagonal neighbours through itself
            if (local_row > 0 && s_img[local_index - BLOCK_COLS]) {
                if (local_col > 0 && s_img[local_index - 1]) {
                    Union(s_buf, local_index - 1, local_index - BLOCK_COLS);
                }
                if (local_col < BLOCK_COLS - 1 && s_img[local_index + 1]) {
                    Union(s_buf, local_index + 1, local_index - BLOCK_COLS);
                }
            }
        }
    }

    __syncthreads();

    if (in_limits) {
        if (v) {
            unsigned f = Find(s_buf, local_index);
            unsigned f_row = f / BLOCK_COLS;
            unsigned f_col = f % BLOCK_COLS;
            unsigned global_f = (blockIdx.y * BLOCK_ROWS + f_row) * (labels_step / sizeof(int)) + (blockIdx.x * BLOCK_COLS + f_col);
            labels[global_row * labels_step / sizeof(int) + global_col] = global_f + 1;
        } else {
            labels[global_row * labels_step / sizeof(int) + global_col] = 0;
        }
    }
}

// phase 2: the tiles' trees joined across the tiles' borders, in global memory
extern "C" __global__ void GlobalMerge(const unsigned char *img, int img_step, int *labels,
                                       int labels_step, int rows, int cols) {
    unsigned local_row = threadIdx.y;
    unsigned local_col = threadIdx.x;

    unsigned global_row = blockIdx.y * BLOCK_ROWS + local_row;
    unsigned global_col = blockIdx.x * BLOCK_COLS + local_col;
    unsigned img_index = global_row * img_step + global_col;
    unsigned labels_index = global_row * (labels_step / sizeof(int)) + global_col;

    bool in_limits = (global_row < rows && global_col < cols);

    if (in_limits) {
        unsigned char v = img[img_index];
        if (v) {
            if (global_col > 0 && local_col == 0 && img[img_index - 1]) {
                Union(labels, labels_index, labels_index - 1);
            }
            if (global_row > 0 && local_row == 0 && img[img_index - img_step]) {
                Union(labels, labels_index, labels_index - labels_step / sizeof(int));
            }
        } else {
            if (global_row > 0 && img[img_index - img_step]) {
                if (global_col > 0 && (local_row == 0 || local_col == 0) && img[img_index - 1]) {
                    Union(labels, labels_index - 1, labels_index - labels_step / sizeof(int));
                }
                if ((global_col < cols - 1) && (local_row == 0 || local_col == BLOCK_COLS - 1) && img[img_index + 1]) {
                    Union(labels, labels_index + 1, labels_index - labels_step / sizeof(int));
                }
            }
        }
    }
}

// phase 3: every foreground pixel points at its root (its label: the root's index + 1)
extern "C" __global__ void PathCompression(const unsigned char *img, int img_step, int *labels,
                                           int labels_step, int rows, int cols) {
    unsigned global_row = blockIdx.y * BLOCK_ROWS + threadIdx.y;
    unsigned global_col = blockIdx.x * BLOCK_COLS + threadIdx.x;
    unsigned labels_index = global_row * (labels_step / sizeof(int)) + global_col;

    if (global_row < rows && global_col < cols) {
        unsigned char val = img[global_row * img_step + global_col];
        if (val) {
            labels[labels_index] = Find(labels, labels_index) + 1;
        }
    }
}
"""

_UF_WGSL = """// YACCLAB's UF labeling as a WebGPU port: the same three passes, the image's bytes
// packed four to a word, the union-find trees in atomics.
struct Params {
    rows: u32,
    cols: u32,
}

@group(0) @binding(0) var<storage, read> img: array<u32>;
@group(0) @binding(1) var<storage, read_write> labels: array<atomic<i32>>;
@group(0) @binding(2) var<uniform> p: Params;

const BLOCK_ROWS = 16u;
const BLOCK_COLS = 16u;

var<workgroup> s_buf: array<atomic<i32>, 256>;
var<workgroup> s_img: array<u32, 256>;

fn pixel(i: u32) -> u32 {
    return (img[i >> 2u] >> ((i & 3u) * 8u)) & 0xffu;
}

fn find_local(start: u32) -> u32 {
    var n = start;
    var label = u32(atomicLoad(&s_buf[n]));
    while (label - 1u != n) {
        n = label - 1u;
        label = u32(atomicLoad(&s_buf[n]));
    }
    return n;
}

fn union_local(a0: u32, b0: u32) {
    var a = a0;
    var b = b0;
    var done = false;
    loop {
        a = find_local(a);
        b = find_local(b);
        if (a < b) {
            let old = u32(atomicMin(&s_buf[b], i32(a + 1u)));
            done = old == b + 1u;
            b = old - 1u;
        } else if (b < a) {
            let old = u32(atomicMin(&s_buf[a], i32(b + 1u)));
            done = old == a + 1u;
            a = old - 1u;
        } else {
            done = true;
        }
        if (done) { break; }
    }
}

fn find_global(start: u32) -> u32 {
    var n = start;
    var label = u32(atomicLoad(&labels[n]));
    while (label - 1u != n) {
        n = label - 1u;
        label = u32(atomicLoad(&labels[n]));
    }
    return n;
}

fn union_global(a0: u32, b0: u32) {
    var a = a0;
    var b = b0;
    var done = false;
    loop {
        a = find_global(a);
        b = find_global(b);
        if (a < b) {
            let old = u32(atomicMin(&labels[b], i32(a + 1u)));
            done = old == b + 1u;
            b = old - 1u;
        } else if (b < a) {
            let old = u32(atomicMin(&labels[a], i32(b + 1u)));
            done = old == a + 1u;
            a = old - 1u;
        } else {
            done = true;
        }
        if (done) { break; }
    }
}

@compute @workgroup_size(16, 16)
fn LocalMerge(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let local_row = lid.y;
    let local_col = lid.x;
    let local_index = local_row * BLOCK_COLS + local_col;
    let global_row = wg.y * BLOCK_ROWS + local_row;
    let global_col = wg.x * BLOCK_COLS + local_col;
    let in_limits = global_row < p.rows && global_col < p.cols;

    atomicStore(&s_buf[local_index], i32(local_index + 1u));
    s_img[local_index] = select(0xffu, pixel(global_row * p.cols + global_col), in_limits);
    workgroupBarrier();

    let v = s_img[local_index];
    if (in_limits) {
        if (v != 0u) {
            if (local_col > 0u && s_img[local_index - 1u] != 0u) {
                union_local(local_index, local_index - 1u);
            }
            if (local_row > 0u && s_img[local_index - BLOCK_COLS] != 0u) {
                union_local(local_index, local_index - BLOCK_COLS);
            }
        } else if (local_row > 0u && s_img[local_index - BLOCK_COLS] != 0u) {
            if (local_col > 0u && s_img[local_index - 1u] != 0u) {
                union_local(local_index - 1u, local_index - BLOCK_COLS);
            }
            if (local_col < BLOCK_COLS - 1u && s_img[local_index + 1u] != 0u) {
                union_local(local_index + 1u, local_index - BLOCK_COLS);
            }
        }
    }
    workgroupBarrier();

    if (in_limits) {
        var label = 0u;
        if (v != 0u) {
            let f = find_local(local_index);
            label = (wg.y * BLOCK_ROWS + f / BLOCK_COLS) * p.cols + wg.x * BLOCK_COLS + f % BLOCK_COLS + 1u;
        }
        atomicStore(&labels[global_row * p.cols + global_col], i32(label));
    }
}

@compute @workgroup_size(16, 16)
fn GlobalMerge(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let local_row = lid.y;
    let local_col = lid.x;
    let global_row = wg.y * BLOCK_ROWS + local_row;
    let global_col = wg.x * BLOCK_COLS + local_col;
    if (global_row >= p.rows || global_col >= p.cols) {
        return;
    }
    let index = global_row * p.cols + global_col;
    if (pixel(index) != 0u) {
        if (global_col > 0u && local_col == 0u && pixel(index - 1u) != 0u) {
            union_global(index, index - 1u);
        }
        if (global_row > 0u && local_row == 0u && pixel(index - p.cols) != 0u) {
            union_global(index, index - p.cols);
        }
    } else if (global_row > 0u && pixel(index - p.cols) != 0u) {
        if (global_col > 0u && (local_row == 0u || local_col == 0u) && pixel(index - 1u) != 0u) {
            union_global(index - 1u, index - p.cols);
        }
        if (global_col < p.cols - 1u && (local_row == 0u || local_col == BLOCK_COLS - 1u) && pixel(index + 1u) != 0u) {
            union_global(index + 1u, index - p.cols);
        }
    }
}

@compute @workgroup_size(16, 16)
fn PathCompression(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.y < p.rows && gid.x < p.cols) {
        let index = gid.y * p.cols + gid.x;
        if (pixel(index) != 0u) {
            atomicStore(&labels[index], i32(find_global(index) + 1u));
        }
    }
}
"""


def _binary_image(rng, count, size):
    """A binary image near 8-connectivity's percolation threshold (a pixel foreground
    with probability 0.4, as any nonzero byte, 1 to 255): components of every size,
    many crossing the 16x16 tiles' borders, some joined only through a diagonal. The
    oracle's default bytes are nonzero 255 times in 256, one component."""
    img = rng.integers(1, 256, count).astype(np.uint8)
    img[rng.random(count) >= 0.4] = 0
    return img


def _uf_reference(img, rows, cols):
    """Each foreground pixel's label is 1 + the least linear index of its 8-connected
    component (the root the kernels' rule leaves: every link points a larger root at a
    smaller one), 0 on the background: the least label over each component, spread."""
    fg = img.reshape(int(rows), int(cols)) != 0
    r, c = fg.shape
    big = np.iinfo(np.int64).max
    lab = np.where(fg, np.arange(r * c, dtype=np.int64).reshape(r, c) + 1, big)
    while True:
        pad = np.pad(lab, 1, constant_values=big)
        best = lab.copy()
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                best = np.minimum(best, pad[1 + dy : 1 + dy + r, 1 + dx : 1 + dx + c])
        best = np.where(fg, best, big)
        if (best == lab).all():
            break
        lab = best
    return np.where(fg, lab, 0).astype(np.int32)


def _uf_buffers(uniform: tuple = ()) -> tuple:
    return (
        BufferSpec(0, "u8", "read", name="img", count="rows*cols", fill=_binary_image),
        BufferSpec(
            1, "i32", "read_write", name="labels", count="rows*cols", shape=("rows", "cols")
        ),
        *uniform,
    )


def _uf_grid(schedule, size):
    return (ceil_div(int(size.cols), 16), ceil_div(int(size.rows), 16), 1)


# 45x70: partial tiles on both axes; one tile exactly; a strip three rows high
_UF_SIZES = ("45x70", "16x16", "3x100")
_UF_PASSES = ("LocalMerge", "GlobalMerge", "PathCompression")

UF_CUDA = Wild(
    KernelSpec(
        id="wild_r68_yacclab_uf_labeling",
        entry_point="LocalMerge",
        sources={"cuda": _UF_CUDA},
        dims=("rows", "cols"),
        buffers=_uf_buffers(),
        reference=_uf_reference,
        params=lambda s: {
            "rows": int(s.rows),
            "cols": int(s.cols),
            "img_step": int(s.cols),
            "labels_step": 4 * int(s.cols),
        },
        launches=tuple(Dispatch(name, grid=_uf_grid) for name in _UF_PASSES),
        schedules=(Schedule((16, 16)),),
        test_sizes=_UF_SIZES,
    ),
    {
        "the finds before every union landed": (
            "cuda",
            "    __syncthreads();\n\n    if (in_limits) {\n        if (v) {\n            unsigned f",
            "    if (in_limits) {\n        if (v) {\n            unsigned f",
        ),
        "the anti-diagonal neighbour missed": (
            "cuda",
            "                if (local_col < BLOCK_COLS - 1 && s_img[local_index + 1]) {\n                    Union(s_buf, local_index + 1, local_index - BLOCK_COLS);\n                }\n",
            "",
        ),
        "the last row left uncompressed": (
            "cuda",
            "if (global_row < rows && global_col < cols) {\n        unsigned char val",
            "if (global_row < rows - 1 && global_col < cols) {\n        unsigned char val",
        ),
    },
    races=frozenset({"the finds before every union landed"}),
)

UF_WGSL = Wild(
    KernelSpec(
        id="wild_r68_yacclab_uf_labeling_webgpu_port",
        entry_point="LocalMerge",
        sources={"wgsl": _UF_WGSL},
        dims=("rows", "cols"),
        buffers=_uf_buffers((BufferSpec.uniform(2, (("rows", "u32"), ("cols", "u32")), name="p"),)),
        reference=_uf_reference,
        params=lambda s: {"rows": int(s.rows), "cols": int(s.cols)},
        launches=tuple(Dispatch(name, grid=_uf_grid) for name in _UF_PASSES),
        schedules=(Schedule((16, 16)),),
        test_sizes=_UF_SIZES,
    ),
    {
        "the finds before every union landed": (
            "wgsl",
            "    workgroupBarrier();\n\n    if (in_limits) {\n        var label",
            "    if (in_limits) {\n        var label",
        ),
        "the anti-diagonal neighbour missed": (
            "wgsl",
            "            if (local_col < BLOCK_COLS - 1u && s_img[local_index + 1u] != 0u) {\n                union_local(local_index + 1u, local_index - BLOCK_COLS);\n            }\n",
            "",
        ),
        "a tile's left neighbour across the border missed": (
            "wgsl",
            "        if (global_col > 0u && local_col == 0u && pixel(index - 1u) != 0u) {\n            union_global(index, index - 1u);\n        }\n",
            "",
        ),
        "the last row left uncompressed": (
            "wgsl",
            "if (gid.y < p.rows && gid.x < p.cols) {",
            "if (gid.y < p.rows - 1u && gid.x < p.cols) {",
        ),
    },
)


# -- 2. OpenCV cudaimgproc: Canny's Sobel magnitude and non-maximum suppression -----------

_CANNY_CUDA = r"""// kernel-forge corpus: OpenCV's CUDA Canny, calcMagnitudeKernel<L1> and calcMapKernel
// (read, not copied).
#include <cuda_runtime.h>

namespace canny {

// the L1 norm, cv::cuda::createCannyEdgeDetector's default (L2gradient = false)
struct L1 {
    __device__ __forceinline__ float operator()(int x, int y) const { return ::abs(x) + ::abs(y); }
};

// upstream reads src through a point-sampled texture with clamped addressing (the
// ROI's TextureOff<uchar>); kernel-forge makes no 8-bit 2-D texture: the same clamp here
__device__ __forceinline__ int texSrcAt(const unsigned char* src, int rows, int cols, int y, int x) {
    y = ::min(::max(y, 0), rows - 1);
    x = ::min(::max(x, 0), cols - 1);
    return src[y * cols + x];
}
#define texSrc(y, x) texSrcAt(src, rows, cols, (y), (x))

template <class Norm>
__global__ void calcMagnitudeKernel(const unsigned char* src, int* dx, int* dy, float* mag, int rows, int cols, const Norm norm) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;

    if (y >= rows || x >= cols)
        return;

    int dxVal = (texSrc(y - 1, x + 1) + 2 * texSrc(y, x + 1) + texSrc(y + 1, x + 1)) - (texSrc(y - 1, x - 1) + 2 * texSrc(y, x - 1) + texSrc(y + 1, x - 1));
    int dyVal = (texSrc(y + 1, x - 1) + 2 * texSrc(y + 1, x) + texSrc(y + 1, x + 1)) - (texSrc(y - 1, x - 1) + 2 * texSrc(y - 1, x) + texSrc(y - 1, x + 1));

    dx[y * cols + x] = dxVal;
    dy[y * cols + x] = dyVal;
    mag[y * cols + x] = norm(dxVal, dyVal);
}

// the magnitude through a float texture upstream (cudev::Texture<float>): every read
// here is inside the image (the border returns first)
#define texMag(y, x) mag[(y) * cols + (x)]

__global__ void calcMapKernel(const float* mag, const int* dx, const int* dy, int* map, int rows, int cols, const float low_thresh, const float high_thresh) {
    const int CANNY_SHIFT = 15;
    const int TG22 = (int)(0.4142135623730950488016887242097 * (1 << CANNY_SHIFT) + 0.5);

    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;

    if (x == 0 || x >= cols - 1 || y == 0 || y >= rows - 1)
        return;

    int dxVal = dx[y * cols + x];
    int dyVal = dy[y * cols + x];

    const int s = (dxVal ^ dyVal) < 0 ? -1 : 1;
    const float m = texMag(y, x);

    dxVal = ::abs(dxVal);
    dyVal = ::abs(dyVal);

    // 0: not an edge, 1: maybe (between the thresholds), 2: an edge
    int edge_type = 0;

    if (m > low_thresh) {
        const int tg22x = dxVal * TG22;
        const int tg67x = tg22x + ((dxVal + dxVal) << CANNY_SHIFT);

        dyVal <<= CANNY_SHIFT;

        // a maximum along the gradient: strictly above the neighbour behind, at least
        // the one ahead, so that of two equal neighbours the first is kept
        if (dyVal < tg22x) {
            if (m > texMag(y, x - 1) && m >= texMag(y, x + 1))
                edge_type = 1 + (int)(m > high_thresh);
        } else if (dyVal > tg67x) {
            if (m > texMag(y - 1, x) && m >= texMag(y + 1, x))
                edge_type = 1 + (int)(m > high_thresh);
        } else {
            if (m > texMag(y - 1, x - s) && m >= texMag(y + 1, x + s))
                edge_type = 1 + (int)(m > high_thresh);
        }
    }

    map[y * cols + x] = edge_type;
}

template __global__ void calcMagnitudeKernel<L1>(const unsigned char*, int*, int*, float*, int, int, const L1);

}  // namespace canny
"""

_CANNY_WGSL = """// OpenCV's CUDA Canny magnitude and non-maximum suppression as a WebGPU port: the
// 8-bit image packed four pixels to a word, the same fixed-point sectors.
struct Params {
    rows: i32,
    cols: i32,
    low_thresh: f32,
    high_thresh: f32,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dx: array<i32>;
@group(0) @binding(2) var<storage, read_write> dy: array<i32>;
@group(0) @binding(3) var<storage, read_write> mag: array<f32>;
@group(0) @binding(4) var<storage, read_write> map: array<i32>;
@group(0) @binding(5) var<uniform> p: Params;

const CANNY_SHIFT = 15u;

// clamp-to-edge, as a texture's address mode would
fn texSrc(y: i32, x: i32) -> i32 {
    let yy = clamp(y, 0, p.rows - 1);
    let xx = clamp(x, 0, p.cols - 1);
    let i = u32(yy * p.cols + xx);
    return i32((src[i >> 2u] >> ((i & 3u) * 8u)) & 0xffu);
}

fn texMag(y: i32, x: i32) -> f32 {
    return mag[y * p.cols + x];
}

@compute @workgroup_size(16, 16)
fn calcMagnitudeKernel(@builtin(global_invocation_id) gid: vec3<u32>) {
    let x = i32(gid.x);
    let y = i32(gid.y);
    if (y >= p.rows || x >= p.cols) {
        return;
    }
    let dxVal = (texSrc(y - 1, x + 1) + 2 * texSrc(y, x + 1) + texSrc(y + 1, x + 1)) - (texSrc(y - 1, x - 1) + 2 * texSrc(y, x - 1) + texSrc(y + 1, x - 1));
    let dyVal = (texSrc(y + 1, x - 1) + 2 * texSrc(y + 1, x) + texSrc(y + 1, x + 1)) - (texSrc(y - 1, x - 1) + 2 * texSrc(y - 1, x) + texSrc(y - 1, x + 1));
    let i = y * p.cols + x;
    dx[i] = dxVal;
    dy[i] = dyVal;
    mag[i] = f32(abs(dxVal) + abs(dyVal));
}

@compute @workgroup_size(16, 16)
fn calcMapKernel(@builtin(global_invocation_id) gid: vec3<u32>) {
    let TG22 = i32(0.4142135623730950488016887242097 * f32(1u << CANNY_SHIFT) + 0.5);
    let x = i32(gid.x);
    let y = i32(gid.y);
    if (x == 0 || x >= p.cols - 1 || y == 0 || y >= p.rows - 1) {
        return;
    }
    var dxVal = dx[y * p.cols + x];
    var dyVal = dy[y * p.cols + x];
    let s = select(1, -1, (dxVal ^ dyVal) < 0);
    let m = texMag(y, x);
    dxVal = abs(dxVal);
    dyVal = abs(dyVal);

    var edge_type = 0;
    if (m > p.low_thresh) {
        let tg22x = dxVal * TG22;
        let tg67x = tg22x + ((dxVal + dxVal) << CANNY_SHIFT);
        dyVal = dyVal << CANNY_SHIFT;
        if (dyVal < tg22x) {
            if (m > texMag(y, x - 1) && m >= texMag(y, x + 1)) {
                edge_type = 1 + i32(m > p.high_thresh);
            }
        } else if (dyVal > tg67x) {
            if (m > texMag(y - 1, x) && m >= texMag(y + 1, x)) {
                edge_type = 1 + i32(m > p.high_thresh);
            }
        } else {
            if (m > texMag(y - 1, x - s) && m >= texMag(y + 1, x + s)) {
                edge_type = 1 + i32(m > p.high_thresh);
            }
        }
    }
    map[y * p.cols + x] = edge_type;
}
"""

_CANNY_LOW, _CANNY_HIGH = 50.0, 100.0


def _plateaus(rng, count, size):
    """A synthetic scene: rectangles of grey levels on a grid of 25 (0 to 250 and 255)
    painted over each other, then 3 % of the pixels any byte. A step edge of one level
    gives two columns (or rows) of equal magnitude, 4 * 25 * k, on either side of it:
    the suppression's tie rule (``>`` behind, ``>=`` ahead) keeps the first; and
    magnitudes of exactly 50 and 100, the thresholds, where ``>`` decides. The
    oracle's default bytes are noise, where no two neighbours tie."""
    rows, cols = int(size.rows), int(size.cols)
    img = np.full((rows, cols), 100, np.int64)
    levels = np.array([*range(0, 251, 25), 255])
    for _ in range(max(4, rows * cols // 150)):
        y0, x0 = rng.integers(0, rows), rng.integers(0, cols)
        h, w = rng.integers(2, max(3, rows // 2)), rng.integers(2, max(3, cols // 2))
        img[y0 : y0 + h, x0 : x0 + w] = rng.choice(levels)
    noise = rng.random((rows, cols)) < 0.03
    img[noise] = rng.integers(0, 256, int(noise.sum()))
    return img.astype(np.uint8).reshape(-1)[:count]


def _canny_reference(src, rows, cols):
    """The kernels' integer arithmetic in numpy: the Sobel sums over the image clamped at
    its edges, the L1 magnitude, and the sector tests in 15-bit fixed point (TG22 =
    13573), ``m > low``, ``>`` behind and ``>=`` ahead, ``m > high``; the border 0."""
    r, c = int(rows), int(cols)
    img = np.pad(src.reshape(r, c).astype(np.int64), 1, mode="edge")

    def at(dy_, dx_):
        return img[1 + dy_ : 1 + dy_ + r, 1 + dx_ : 1 + dx_ + c]

    gx = (at(-1, 1) + 2 * at(0, 1) + at(1, 1)) - (at(-1, -1) + 2 * at(0, -1) + at(1, -1))
    gy = (at(1, -1) + 2 * at(1, 0) + at(1, 1)) - (at(-1, -1) + 2 * at(-1, 0) + at(-1, 1))
    mag = (np.abs(gx) + np.abs(gy)).astype(np.float32)
    edge = np.zeros((r, c), np.int32)
    tg22 = int(0.4142135623730950488016887242097 * (1 << 15) + 0.5)
    for y in range(1, r - 1):
        for x in range(1, c - 1):
            m = mag[y, x]
            if not m > _CANNY_LOW:
                continue
            ax, ay = abs(int(gx[y, x])), abs(int(gy[y, x]))
            s = -1 if (int(gx[y, x]) ^ int(gy[y, x])) < 0 else 1
            tg22x = ax * tg22
            tg67x = tg22x + ((ax + ax) << 15)
            ay <<= 15
            if ay < tg22x:
                behind, ahead = mag[y, x - 1], mag[y, x + 1]
            elif ay > tg67x:
                behind, ahead = mag[y - 1, x], mag[y + 1, x]
            else:
                behind, ahead = mag[y - 1, x - s], mag[y + 1, x + s]
            if m > behind and m >= ahead:
                edge[y, x] = 1 + int(m > _CANNY_HIGH)
    return {
        "dx": gx.astype(np.int32),
        "dy": gy.astype(np.int32),
        "mag": mag,
        "map": edge,
    }


def _canny_buffers(uniform: tuple = ()) -> tuple:
    image = ("rows", "cols")
    return (
        BufferSpec(0, "u8", "read", name="src", count="rows*cols", fill=_plateaus),
        BufferSpec(1, "i32", "read_write", name="dx", count="rows*cols", shape=image),
        BufferSpec(2, "i32", "read_write", name="dy", count="rows*cols", shape=image),
        BufferSpec(3, "f32", "read_write", name="mag", count="rows*cols", shape=image),
        # the host clears the map first (map_.setTo(0)): the border stays 0
        BufferSpec(4, "i32", "read_write", name="map", count="rows*cols", shape=image, initial=0),
        *uniform,
    )


def _image_grid(schedule, size):
    return (ceil_div(int(size.cols), 16), ceil_div(int(size.rows), 16), 1)


# 40x57: partial blocks both ways; 16x16: one block, the border on its edges
_CANNY_SIZES = ("40x57", "16x16")

CANNY_CUDA = Wild(
    KernelSpec(
        id="wild_r68_opencv_canny_magnitude_and_suppression",
        entry_point="canny::calcMagnitudeKernel<canny::L1>",
        sources={"cuda": _CANNY_CUDA},
        dims=("rows", "cols"),
        buffers=_canny_buffers(),
        reference=_canny_reference,
        params=lambda s: {"rows": int(s.rows), "cols": int(s.cols)},
        defaults={"low_thresh": _CANNY_LOW, "high_thresh": _CANNY_HIGH, "norm": b"\0"},
        launches=(
            Dispatch(
                "canny::calcMagnitudeKernel<canny::L1>",
                grid=_image_grid,
                arguments=("src", "dx", "dy", "mag", "rows", "cols", "norm"),
            ),
            Dispatch(
                "canny::calcMapKernel",
                grid=_image_grid,
                arguments=("mag", "dx", "dy", "map", "rows", "cols", "low_thresh", "high_thresh"),
            ),
        ),
        schedules=(Schedule((16, 16)),),
        test_sizes=_CANNY_SIZES,
    ),
    {
        "equal neighbours both suppressed": (
            "cuda",
            "if (m > texMag(y, x - 1) && m >= texMag(y, x + 1))",
            "if (m > texMag(y, x - 1) && m > texMag(y, x + 1))",
        ),
        "the strong threshold reached by equality": (
            "cuda",
            "edge_type = 1 + (int)(m > high_thresh);",
            "edge_type = 1 + (int)(m >= high_thresh);",
        ),
        "the last column judged": (
            "cuda",
            "if (x == 0 || x >= cols - 1 || y == 0 || y >= rows - 1)",
            "if (x == 0 || x >= cols || y == 0 || y >= rows - 1)",
        ),
    },
)

CANNY_WGSL = Wild(
    KernelSpec(
        id="wild_r68_opencv_canny_webgpu_port",
        entry_point="calcMagnitudeKernel",
        sources={"wgsl": _CANNY_WGSL},
        dims=("rows", "cols"),
        buffers=_canny_buffers(
            (
                BufferSpec.uniform(
                    5,
                    (
                        ("rows", "i32"),
                        ("cols", "i32"),
                        ("low_thresh", "f32"),
                        ("high_thresh", "f32"),
                    ),
                    name="p",
                ),
            )
        ),
        reference=_canny_reference,
        params=lambda s: {"rows": int(s.rows), "cols": int(s.cols)},
        defaults={"low_thresh": _CANNY_LOW, "high_thresh": _CANNY_HIGH},
        launches=(
            Dispatch("calcMagnitudeKernel", grid=_image_grid),
            Dispatch("calcMapKernel", grid=_image_grid),
        ),
        schedules=(Schedule((16, 16)),),
        test_sizes=_CANNY_SIZES,
    ),
    {
        "equal neighbours both kept": (
            "wgsl",
            "if (m > texMag(y - 1, x) && m >= texMag(y + 1, x))",
            "if (m >= texMag(y - 1, x) && m >= texMag(y + 1, x))",
        ),
        "the diagonal's sign taken the other way": (
            "wgsl",
            "let s = select(1, -1, (dxVal ^ dyVal) < 0);",
            "let s = select(-1, 1, (dxVal ^ dyVal) < 0);",
        ),
        "the clamp one row past the image": (
            "wgsl",
            "let yy = clamp(y, 0, p.rows - 1);",
            "let yy = clamp(y, 0, p.rows);",
        ),
    },
)


# -- 3. van Herk/Gil-Werman dilation (a cupy RawKernel) -----------------------------------

_VHGW_CUDA = r"""// kernel-forge corpus: the van Herk/Gil-Werman dilation and erosion of
// lorenzomammana/morphological-operators-cupy (read, not copied).
#include <cuda_runtime.h>

// One pass over a flattened image whose rows the host padded with (p - 1) / 2 pad
// values each side: thread (0, ty) keeps the suffix maxima of window ty (p pixels),
// thread (1, ty) the prefix maxima of the p pixels that start at its last one; the
// max of the two at i is the max over p pixels centred on ty * p + i + (p - 1) / 2.
extern "C" __global__ void dilation(int *src, int *dst, int p, int window_size, int n_window, int image_shape) {
    extern __shared__ int smem[];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int bx = blockIdx.x;

    if (tx == 0) {
        for (int i = p - 1; i >= 0; i--) {
            if (i == p - 1)
                smem[ty * p + i] = src[bx * p * n_window + ty * p + i];
            else
                smem[ty * p + i] = max(src[bx * p * n_window + ty * p + i], smem[ty * p + (i + 1)]);
        }
    } else {
        for (int i = 0; i <= p - 1; i++) {
            if (i == 0)
                smem[n_window * p + (ty * p) + i] = src[bx * p * n_window + ty * p + (i + p - 1)];
            else
                smem[n_window * p + (ty * p) + i] = max(src[bx * p * n_window + ty * p + (i + p - 1)], smem[n_window * p + (ty * p) + (i - 1)]);
        }
    }
    __syncthreads();

    if (tx == 0) {
        for (int i = 0; i < p; i++) {
            int original_index = bx * p * n_window + ty * p + i + ((p - 1) / 2);
            if (original_index < image_shape)
                dst[original_index] = max(smem[ty * p + i], smem[n_window * p + (ty * p) + i]);
        }
    }
}

// the same with min, the pad value 255
extern "C" __global__ void erosion(int *src, int *dst, int p, int window_size, int n_window, int image_shape) {
    extern __shared__ int smem[];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int bx = blockIdx.x;

    if (tx == 0) {
        for (int i = p - 1; i >= 0; i--) {
            if (i == p - 1)
                smem[ty * p + i] = src[bx * p * n_window + ty * p + i];
            else
                smem[ty * p + i] = min(src[bx * p * n_window + ty * p + i], smem[ty * p + (i + 1)]);
        }
    } else {
        for (int i = 0; i <= p - 1; i++) {
            if (i == 0)
                smem[n_window * p + (ty * p) + i] = src[bx * p * n_window + ty * p + (i + p - 1)];
            else
                smem[n_window * p + (ty * p) + i] = min(src[bx * p * n_window + ty * p + (i + p - 1)], smem[n_window * p + (ty * p) + (i - 1)]);
        }
    }
    __syncthreads();

    if (tx == 0) {
        for (int i = 0; i < p; i++) {
            int original_index = bx * p * n_window + ty * p + i + ((p - 1) / 2);
            if (original_index < image_shape)
                dst[original_index] = min(smem[ty * p + i], smem[n_window * p + (ty * p) + i]);
        }
    }
}
"""

_VHGW_WGSL = """// The van Herk/Gil-Werman dilation as a WebGPU port: workgroups of (2, 64) windows,
// the suffix and prefix maxima of each in workgroup memory.
struct Params {
    p: i32,
    window_size: i32,
    n_window: i32,
    image_shape: i32,
}

@group(0) @binding(0) var<storage, read> src: array<i32>;
@group(0) @binding(1) var<storage, read_write> dst: array<i32>;
@group(0) @binding(2) var<uniform> params: Params;

const WINDOWS = 64;
const MAX_P = 15;
var<workgroup> suffix: array<i32, 960>;  // WINDOWS * MAX_P
var<workgroup> prefix: array<i32, 960>;

@compute @workgroup_size(2, 64)
fn dilation(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let p = params.p;
    let tx = i32(lid.x);
    let ty = i32(lid.y);
    let base = i32(wg.x) * p * params.n_window + ty * p;

    if (tx == 0) {
        suffix[ty * p + p - 1] = src[base + p - 1];
        for (var i = p - 2; i >= 0; i--) {
            suffix[ty * p + i] = max(src[base + i], suffix[ty * p + i + 1]);
        }
    } else {
        prefix[ty * p] = src[base + p - 1];
        for (var i = 1; i <= p - 1; i++) {
            prefix[ty * p + i] = max(src[base + i + p - 1], prefix[ty * p + i - 1]);
        }
    }
    workgroupBarrier();

    if (tx == 0) {
        for (var i = 0; i < p; i++) {
            let original_index = base + i + (p - 1) / 2;
            if (original_index < params.image_shape) {
                dst[original_index] = max(suffix[ty * p + i], prefix[ty * p + i]);
            }
        }
    }
}
"""


def _vhgw_layout(size, windows_per_block: int | None = None):
    """What the host's ``prepare_morph`` makes of an H x W image and a window of P: the
    rows padded by (P - 1) / 2 each side (L elements in all), ``n_window = L // P``
    windows, the blocks that cover them (one for the CUDA host here, ``n_window`` at
    most 512; the port's workgroups of 64), and the tail padding after L so that the
    last window's reads stay inside: ``2 P - 1`` past the last window's start."""
    h, w, p = int(size.H), int(size.W), int(size.P)
    pad = (p - 1) // 2
    length = h * (w + 2 * pad)
    n_window = length // p
    covered = (
        n_window
        if windows_per_block is None
        else ceil_div(n_window, windows_per_block) * windows_per_block
    )
    return (
        length,
        n_window,
        covered,
        max(length, p * covered + 2 * p - 1)
        if windows_per_block
        else length + max(0, 2 * p - 1 - (length - p * n_window)),
    )


def _padded_rows(per_block):
    def fill(rng, count, size):
        """Grey levels 0 to 255 in rows padded with 0 (dilation's pad value) each side,
        then zeros to the buffer's end: the host's layout, so that a window never
        reaches into the next row."""
        h, w, p = int(size.H), int(size.W), int(size.P)
        pad = (p - 1) // 2
        img = np.zeros((h, w + 2 * pad), np.int32)
        img[:, pad : pad + w] = rng.integers(0, 256, (h, w))
        out = np.zeros(count, np.int32)
        out[: img.size] = img.reshape(-1)
        return out

    return fill


def _vhgw_reference_for(per_block):
    def reference(src, H, W, P):  # noqa: N803  (the dims)
        """``dst[j]`` the max of ``src[j - pad .. j + pad]`` for every j the windows
        cover, ``pad <= j < min(L, covered * P + pad)``; 0 elsewhere (the host's
        ``zeros_like``)."""
        size = type("S", (), {"H": H, "W": W, "P": P})
        length, _, covered, _ = _vhgw_layout(size, per_block)
        p, pad = int(P), (int(P) - 1) // 2
        dst = np.zeros(length, np.int32)
        stop = min(length, covered * p + pad)
        windows = np.lib.stride_tricks.sliding_window_view(src, p)
        dst[pad:stop] = windows[0 : stop - pad].max(axis=1)
        return dst

    return reference


def _vhgw_spec(id, sources, per_block, uniform=(), **extra):
    def layout(s):
        return _vhgw_layout(s, per_block)

    return KernelSpec(
        id=id,
        entry_point="dilation",
        sources=sources,
        dims=("H", "W", "P"),
        buffers=(
            BufferSpec(
                0,
                "i32",
                "read",
                name="src",
                count=lambda s: layout(s)[3],
                fill=_padded_rows(per_block),
            ),
            # the host's out = zeros_like(img): the first pad elements stay 0
            BufferSpec(1, "i32", "read_write", name="dst", count=lambda s: layout(s)[0], initial=0),
            *uniform,
        ),
        reference=_vhgw_reference_for(per_block),
        params=lambda s: {
            "p": int(s.P),
            "window_size": 2 * int(s.P) - 1,
            "n_window": layout(s)[1] if per_block is None else per_block,
            "image_shape": layout(s)[0],
        },
        # 9 rows of 50, a window of 5: 97 windows, the last of which reaches the end
        # (L - 5 * 97 = 1 < pad); 20 rows of 61, a window of 7: 191 windows
        test_sizes=("9x50x5", "20x61x7"),
        **extra,
    )


VHGW_CUDA = Wild(
    _vhgw_spec(
        "wild_r68_cupy_van_herk_gil_werman_dilation",
        {"cuda": _VHGW_CUDA},
        None,
        launches=(
            Dispatch(
                "dilation",
                grid=(1, 1, 1),
                schedule=lambda sch, s: Schedule((2, _vhgw_layout(s)[1])),
                shared_bytes=lambda sch, s: 2 * _vhgw_layout(s)[1] * int(s.P) * 4,
            ),
        ),
        schedules=(Schedule((2, 64)),),
    ),
    {
        "the suffix maxima stop before the window's first pixel": (
            "cuda",
            "for (int i = p - 1; i >= 0; i--) {\n            if (i == p - 1)\n                smem[ty * p + i] = src[bx * p * n_window + ty * p + i];\n            else\n                smem[ty * p + i] = max(",
            "for (int i = p - 1; i > 0; i--) {\n            if (i == p - 1)\n                smem[ty * p + i] = src[bx * p * n_window + ty * p + i];\n            else\n                smem[ty * p + i] = max(",
        ),
        "the centre one pixel right": (
            "cuda",
            "int original_index = bx * p * n_window + ty * p + i + ((p - 1) / 2);\n            if (original_index < image_shape)\n                dst[original_index] = max(",
            "int original_index = bx * p * n_window + ty * p + i + ((p + 1) / 2);\n            if (original_index < image_shape)\n                dst[original_index] = max(",
        ),
        "the last window written one past the image": (
            "cuda",
            "if (original_index < image_shape)\n                dst[original_index] = max(",
            "if (original_index <= image_shape)\n                dst[original_index] = max(",
        ),
    },
)

VHGW_WGSL = Wild(
    _vhgw_spec(
        "wild_r68_cupy_van_herk_gil_werman_dilation_webgpu_port",
        {"wgsl": _VHGW_WGSL},
        64,
        (
            BufferSpec.uniform(
                2,
                (("p", "i32"), ("window_size", "i32"), ("n_window", "i32"), ("image_shape", "i32")),
                name="params",
            ),
        ),
        grid=lambda sch, s: (ceil_div(_vhgw_layout(s)[1], 64), 1, 1),
        schedules=(Schedule((2, 64)),),
    ),
    {
        "the prefix maxima start one pixel late": (
            "wgsl",
            "prefix[ty * p] = src[base + p - 1];",
            "prefix[ty * p] = src[base + p];",
        ),
        "the window's last pixel left out": (
            "wgsl",
            "for (var i = 1; i <= p - 1; i++) {",
            "for (var i = 1; i < p - 1; i++) {",
        ),
        "no barrier between the maxima and their reads": (
            "wgsl",
            "    workgroupBarrier();\n\n    if (tx == 0) {\n        for (var i = 0; i < p; i++) {",
            "\n    if (tx == 0) {\n        for (var i = 0; i < p; i++) {",
        ),
    },
    # a window's two invocations are neighbours, (0, ty) and (1, ty), in one SIMD group
    # of SwiftShader's however the twin orders them: the prefix loop (its else branch)
    # ends before the code after the if runs; lavapipe shows it
    invisible_on={
        ("no barrier between the maxima and their reads", "wgsl", "NVIDIA"): RACE_HIDDEN,
        ("no barrier between the maxima and their reads", "wgsl", "swiftshader"): (
            "a window's two invocations run in one SIMD group of SwiftShader's, in lockstep, "
            "in either order the reversed twin gives them (Chrome's SwiftShader, 2026-12); "
            "lavapipe shows it"
        ),
    },
)


ROUND68: dict[str, Wild] = {
    wild.kernel.id: wild
    for wild in (
        UF_CUDA,
        UF_WGSL,
        CANNY_CUDA,
        CANNY_WGSL,
        VHGW_CUDA,
        VHGW_WGSL,
    )
}

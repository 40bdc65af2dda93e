"""Round 38 of kernels from the wild, merged into ``tests.wild.CORPUS``: CUDA kernels
after public projects (host code left out; each host's launch sequence is the kernel's
``launches``), with WGSL ports as a WebGPU port would write them (they run here on
lavapipe and SwiftShader; the CUDA kernels on the GPU machine).

The CUDA kernels are written for this corpus after the sources named below: read, not
copied (the project's rule for public code: round 38 first took them verbatim, and
they were rewritten on 2026-12-06). What is theirs is kept: each ``__global__``
function's name, qualifiers (``static`` for ggml's), parameter names, types and order
(the spec and the launches bind to them), the includes (``<helper_cuda.h>``, the
sample's two headers with ``uint``, ``SHARED_SIZE_LIMIT``, ``UMAD`` and
``Comparator``, ``<cooperative_groups.h>`` as ``cg``), Rodinia's ``BLOCK_SIZE``,
``HALO``, ``IN_RANGE`` and ``MIN`` macros, ggml's ``GGML_CUDA_CC_HOPPER`` guard around
the programmatic-dependent-launch calls, the shared memory (one ``extern __shared__``
array carved into the query, key and value tiles and the scores; Rodinia's ``prev``
and ``result``; the sample's ``s_key`` and ``s_val``), the barriers (``cg::sync``
before each stride, Rodinia's break before the last copy), the launch geometry and
sequence, and the numerics (the online softmax's order of operations with ``__expf``,
Rodinia's min of three, ggml's ``expf(-logf(max_period) * j / half)`` in float). What
is ours: the comments, the helpers' and locals' names, the order of equivalent
statements and the formatting; the sample's repeated loads, stores and stride loops
are three helpers (``stage_in``, ``stage_out``, ``merge_strides``), Rodinia's unused
macros and C headers are gone. The WGSL ports are ours and unchanged. The sample's two
headers in tests/wild/round38_include are written after its own (BSD 3-clause): the
same guard, `uint`, host prototypes, limit, UMUL/UMAD macros and Comparator (swapping
a pair where `(keyA > keyB) == dir`), our comments and layout.

- tspeterkim/flash-attention-minimal (flash.cu at 05b0309c; Apache-2.0):
  ``forward_kernel``, the four tiles carved out of one ``extern __shared__`` array,
  ``__expf``, the online softmax's l and m set by the host to 0 and -INFINITY.
- Rodinia's pathfinder (yuhc/gpu-rodinia at 31d0ebf5, cuda/pathfinder/pathfinder.cu;
  Rodinia's BSD-style licence): ``dynproc_kernel`` with its IN_RANGE and MIN macros, a
  launch every 20 rows (the pyramid), the result buffers swapped each launch
  (``arguments`` a launch; the port reads the one an ``override`` names).
- NVIDIA/cuda-samples' sortingNetworks (bitonicSort.cu at 2b3dc333, its two headers in
  tests/wild/round38_include; BSD 3-clause): four kernels in one file, ``cg::sync``,
  ``__umul24`` through the UMAD macro, ``uint`` from the sample's header, host
  prototypes in it, ``#include <helper_cuda.h>``; key-value pairs with the sample's
  tied keys, descending; one bitonicSortShared, or bitonicSortShared1 then global and
  shared merges in place, by the array's length.
- llama.cpp's timestep_embedding_f32 (ggml-org/llama.cpp at 614dee04, ggml/src/ggml-
  cuda/tsembd.cu; MIT): ``static __global__``, a row reached through a byte stride,
  ``cudaGridDependencySynchronize()`` and ``cudaTriggerProgrammaticLaunchCompletion()``
  under ``__CUDA_ARCH__ >= GGML_CUDA_CC_HOPPER``.

What they showed (pinned in tests/test_wild_round38.py; not run on a GPU):

- Gap, fixed: ``#include <helper_cuda.h>``, in nearly every cuda-samples .cu file, did
  not compile under NVRTC (the real header is host code NVRTC cannot compile either).
  cuda-samples' Common helpers are served as what device code can take from them.
- Gap, fixed: ``cudaGridDependencySynchronize()`` (ggml's Hopper path) was an undefined
  identifier under NVRTC, which nvcc declares through its implicit <cuda_runtime.h>;
  <cuda_device_runtime_api.h> is pre-included where a source calls it.
- False alarm, fixed: the bitonic sort's values failed on every tie of the sample's
  keys (``rand() % 65536``: tens to hundreds of ties at these sizes): the network is not stable,
  and neither a stable argsort nor a multiset of the whole output is its meaning.
  ``BufferSpec(unordered="d_DstKey")`` now says the values may come in any order among
  equal keys: each run of equal keys (cut at each array's end) is a multiset of its own.
- Gap, fixed: the bitonic port was refused on the browser (SwiftShader's 256
  invocations at most) for the kernel's schedule of 512, which only its CUDA twin runs;
  each WGSL launch runs the 256 its entry point declares, and that is what is checked.
  And a failing run of it said to change the schedule to 256, which would have broken
  the CUDA launches: no longer said where every launch gives its grid.
- No oracle gap in flash attention, pathfinder or the timestep embedding: originals
  passed on reference, wgpu and browser, every WGSL mutant failed, and every CUDA
  original and mutant compiles with NVRTC. Flash attention needs N a multiple of 32 (no
  bounds; the repository's bench.py makes it so), the sizes keep to that.
"""

# ruff: noqa: E501, E741  (the sources' long lines; the references keep the CUDA names: l, O)

from __future__ import annotations

from pathlib import Path

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import Wild

_INCLUDE = str(Path(__file__).with_name("round38_include"))

# -- 1. tspeterkim/flash-attention-minimal: flash.cu's forward_kernel ------------------------
# After 05b0309c (Apache-2.0), read, not copied. One block of Bc = 32 threads a (batch,
# head), a thread a query row; the query, key and value tiles and the scores carved out
# of one ``extern __shared__ float sram[]``; the online
# softmax's running max and sum in l and m, which the host sets to 0 and -INFINITY, and O
# to zeros (``torch::zeros_like``). No bounds: N must be a multiple of 32, as the
# repository's bench.py makes it. ``#include <torch/types.h>`` is the host's (left out
# with the host's ``forward``, as is the backward kernel).

_FLASH_CUDA = r"""// kernel-forge corpus: flash attention's forward pass, after flash-attention-minimal's
// flash.cu forward_kernel (read, not copied). A block of Bc threads serves one (batch,
// head); each thread owns one query row of the current query tile. Key and value tiles
// are walked in the outer loop, query tiles in the inner one, and every row keeps its
// running max in m and its running sum of exponentials in l, rescaling O as it goes.
#include <cuda.h>
#include <cuda_runtime.h>

__global__
void forward_kernel(
    const float* Q,
    const float* K,
    const float* V,
    const int N,
    const int d,
    const int Tc,
    const int Tr,
    const int Bc,
    const int Br,
    const float softmax_scale,
    float* l,
    float* m,
    float* O
) {
    const int row = threadIdx.x;
    const int batch = blockIdx.x;
    const int head = blockIdx.y;
    const int heads = gridDim.y;

    // where this (batch, head) starts in Q, K, V, O and in l, m
    int qkv_offset = (batch * heads * N * d) + (head * N * d);
    int lm_offset = (batch * heads * N) + (head * N);

    // shared memory: the query tile, the key tile, the value tile, then the scores
    extern __shared__ float sram[];
    const int tile = Bc * d;
    float* q_tile = sram;
    float* k_tile = sram + tile;
    float* v_tile = sram + 2 * tile;
    float* scores = sram + 3 * tile;
    float* my_scores = scores + Bc * row;

    for (int kv = 0; kv < Tc; ++kv) {
        const float* k_src = K + qkv_offset + tile * kv + row * d;
        const float* v_src = V + qkv_offset + tile * kv + row * d;
        for (int c = 0; c < d; ++c) {
            k_tile[row * d + c] = k_src[c];
            v_tile[row * d + c] = v_src[c];
        }
        __syncthreads();

        for (int qt = 0; qt < Tr; ++qt) {
            const int q_at = qkv_offset + tile * qt + row * d;
            const int lm_at = lm_offset + Br * qt + row;
            for (int c = 0; c < d; ++c) {
                q_tile[row * d + c] = Q[q_at + c];
            }
            const float m_old = m[lm_at];
            const float l_old = l[lm_at];

            // this row's scaled scores against the key tile, and their maximum
            float tile_max = -INFINITY;
            for (int key = 0; key < Bc; ++key) {
                float sum = 0;
                for (int c = 0; c < d; ++c) {
                    sum += q_tile[row * d + c] * k_tile[key * d + c];
                }
                sum *= softmax_scale;
                my_scores[key] = sum;
                tile_max = sum > tile_max ? sum : tile_max;
            }

            // the scores become weights exp(s - max); their sum
            float tile_sum = 0;
            for (int key = 0; key < Bc; ++key) {
                my_scores[key] = __expf(my_scores[key] - tile_max);
                tile_sum += my_scores[key];
            }

            // merge with what earlier key tiles left for this row
            const float m_new = max(m_old, tile_max);
            const float keep = __expf(m_old - m_new);
            const float take = __expf(tile_max - m_new);
            const float l_new = (keep * l_old) + (take * tile_sum);

            for (int c = 0; c < d; ++c) {
                float pv = 0;
                for (int key = 0; key < Bc; ++key) {
                    pv += my_scores[key] * v_tile[key * d + c];
                }
                float* out = O + q_at + c;
                *out = (1 / l_new) * ((l_old * keep * *out) + (take * pv));
            }
            m[lm_at] = m_new;
            l[lm_at] = l_new;
        }
        // the next key and value tiles overwrite these only when every row is done
        __syncthreads();
    }
}
"""

# A WebGPU port: the same loops, one invocation a query row, the four tiles carved out
# of one workgroup array sized for the head dimension (WGSL has no dynamic workgroup
# memory), the scalars in a uniform block.
_FLASH_WGSL = """
struct Params { N: i32, d: i32, Tc: i32, Tr: i32, Bc: i32, Br: i32, softmax_scale: f32 }
@group(0) @binding(0) var<storage, read> Q: array<f32>;
@group(0) @binding(1) var<storage, read> K: array<f32>;
@group(0) @binding(2) var<storage, read> V: array<f32>;
@group(0) @binding(3) var<storage, read_write> l: array<f32>;
@group(0) @binding(4) var<storage, read_write> m: array<f32>;
@group(0) @binding(5) var<storage, read_write> O: array<f32>;
@group(0) @binding(6) var<uniform> p: Params;

var<workgroup> sram: array<f32, {{SRAM}}>;

@compute @workgroup_size(32)
fn forward_kernel(@builtin(local_invocation_id) lid: vec3<u32>,
                  @builtin(workgroup_id) wid: vec3<u32>,
                  @builtin(num_workgroups) nwg: vec3<u32>) {
    let tx = i32(lid.x);
    let bx = i32(wid.x);
    let by = i32(wid.y);
    let N = p.N;
    let d = p.d;
    let Bc = p.Bc;
    let Br = p.Br;
    let qkv_offset = (bx * i32(nwg.y) * N * d) + (by * N * d);
    let lm_offset = (bx * i32(nwg.y) * N) + (by * N);
    let tile_size = Bc * d;
    let Qi = 0;
    let Kj = tile_size;
    let Vj = tile_size * 2;
    let S = tile_size * 3;

    for (var j = 0; j < p.Tc; j++) {
        for (var x = 0; x < d; x++) {
            sram[Kj + (tx * d) + x] = K[qkv_offset + (tile_size * j) + (tx * d) + x];
            sram[Vj + (tx * d) + x] = V[qkv_offset + (tile_size * j) + (tx * d) + x];
        }
        workgroupBarrier();

        for (var i = 0; i < p.Tr; i++) {
            for (var x = 0; x < d; x++) {
                sram[Qi + (tx * d) + x] = Q[qkv_offset + (tile_size * i) + (tx * d) + x];
            }
            let row_m_prev = m[lm_offset + (Br * i) + tx];
            let row_l_prev = l[lm_offset + (Br * i) + tx];

            var row_m = -3.402823466e+38;
            for (var y = 0; y < Bc; y++) {
                var sum = 0.0;
                for (var x = 0; x < d; x++) {
                    sum += sram[Qi + (tx * d) + x] * sram[Kj + (y * d) + x];
                }
                sum *= p.softmax_scale;
                sram[S + (Bc * tx) + y] = sum;
                if (sum > row_m) { row_m = sum; }
            }

            var row_l = 0.0;
            for (var y = 0; y < Bc; y++) {
                sram[S + (Bc * tx) + y] = exp(sram[S + (Bc * tx) + y] - row_m);
                row_l += sram[S + (Bc * tx) + y];
            }

            let row_m_new = max(row_m_prev, row_m);
            let row_l_new = (exp(row_m_prev - row_m_new) * row_l_prev) + (exp(row_m - row_m_new) * row_l);

            for (var x = 0; x < d; x++) {
                var pv = 0.0;
                for (var y = 0; y < Bc; y++) {
                    pv += sram[S + (Bc * tx) + y] * sram[Vj + (y * d) + x];
                }
                let o = qkv_offset + (tile_size * i) + (tx * d) + x;
                O[o] = (1.0 / row_l_new) * ((row_l_prev * exp(row_m_prev - row_m_new) * O[o]) + (exp(row_m - row_m_new) * pv));
            }
            m[lm_offset + (Br * i) + tx] = row_m_new;
            l[lm_offset + (Br * i) + tx] = row_l_new;
        }
        workgroupBarrier();
    }
}
"""

_FLASH_B = 32  # Bc = Br = 32, the host's


def _flash_params(size):
    t = ceil_div(size.N, _FLASH_B)
    return {
        "N": size.N,
        "d": size.d,
        "Tc": t,
        "Tr": t,
        "Bc": _FLASH_B,
        "Br": _FLASH_B,
        "softmax_scale": 1.0 / np.sqrt(size.d),
    }


def _flash_reference(Q, K, V, l, m, O, p):
    """softmax(Q K^T / sqrt(d)) V per (batch, head), no mask; l and m the row sum of
    exp(s - max) and the row max of the scaled scores, as the online softmax leaves them."""
    s = np.einsum("bhnx,bhkx->bhnk", Q.astype(np.float64), K.astype(np.float64))
    s *= float(p["softmax_scale"])
    row_max = s.max(axis=-1)
    e = np.exp(s - row_max[..., None])
    row_sum = e.sum(axis=-1)
    out = np.einsum("bhnk,bhkx->bhnx", e, V.astype(np.float64)) / row_sum[..., None]
    return row_sum.astype(np.float32), row_max.astype(np.float32), out.astype(np.float32)


_QKV = ("B", "nh", "N", "d")

FLASH = Wild(
    KernelSpec(
        id="wild_r38_flash_attention_minimal_forward_kernel",
        entry_point="forward_kernel",
        sources={"cuda": _FLASH_CUDA, "wgsl": _FLASH_WGSL},
        dims=_QKV,
        buffers=(
            BufferSpec(0, "f32", "read", name="Q", count="B*nh*N*d", shape=_QKV),
            BufferSpec(1, "f32", "read", name="K", count="B*nh*N*d", shape=_QKV),
            BufferSpec(2, "f32", "read", name="V", count="B*nh*N*d", shape=_QKV),
            BufferSpec(
                3, "f32", "read_write", name="l", count="B*nh*N", initial=0.0, shape=_QKV[:3]
            ),
            BufferSpec(
                4, "f32", "read_write", name="m", count="B*nh*N", initial=-np.inf, shape=_QKV[:3]
            ),
            BufferSpec(5, "f32", "read_write", name="O", count="B*nh*N*d", initial=0.0, shape=_QKV),
            BufferSpec.uniform(
                6,
                (
                    ("N", "i32"),
                    ("d", "i32"),
                    ("Tc", "i32"),
                    ("Tr", "i32"),
                    ("Bc", "i32"),
                    ("Br", "i32"),
                    ("softmax_scale", "f32"),
                ),
                name="p",
            ),
        ),
        reference=_flash_reference,
        params=_flash_params,
        grid=lambda s, size: (size.B, size.nh, 1),
        schedules=(Schedule(_FLASH_B),),
        shared_bytes=lambda s, size: (3 * _FLASH_B * size.d + _FLASH_B * _FLASH_B) * 4,
        constants={"SRAM": lambda s, size: 3 * _FLASH_B * size.d + _FLASH_B * _FLASH_B},
        # attention over finite activations (bench.py draws torch.randn)
        domain={"Q": (-3.0, 3.0), "K": (-3.0, 3.0), "V": (-3.0, 3.0)},
        nonfinite_inputs=False,
        test_sizes=("B=2,nh=3,N=64,d=8",),
    ),
    {
        "CUDA: the tile's last key left out of P V": (
            "cuda",
            "for (int key = 0; key < Bc; ++key) {\n                    pv +=",
            "for (int key = 0; key < Bc - 1; ++key) {\n                    pv +=",
        ),
        "CUDA: l and m offset by head only": (
            "cuda",
            "int lm_offset = (batch * heads * N) + (head * N);",
            "int lm_offset = (batch * N) + (head * N);",
        ),
        "CUDA: the old sum not rescaled": (
            "cuda",
            "const float l_new = (keep * l_old)",
            "const float l_new = (l_old)",
        ),
        "CUDA: scores not scaled": ("cuda", "sum *= softmax_scale;", ""),
        "the tile's last key left out of P V": (
            "wgsl",
            "for (var y = 0; y < Bc; y++) {\n                    pv +=",
            "for (var y = 0; y < Bc - 1; y++) {\n                    pv +=",
        ),
        "l and m offset by head only": (
            "wgsl",
            "let lm_offset = (bx * i32(nwg.y) * N) + (by * N);",
            "let lm_offset = (bx * N) + (by * N);",
        ),
        "the old output not rescaled": (
            "wgsl",
            "(row_l_prev * exp(row_m_prev - row_m_new) * O[o])",
            "(row_l_prev * O[o])",
        ),
        "no barrier after the K and V tiles": (
            "wgsl",
            "        }\n        workgroupBarrier();\n\n        for (var i = 0;",
            "        }\n\n        for (var i = 0;",
        ),
    },
)

# -- 2. Rodinia's pathfinder: dynproc_kernel, a pyramid of rows a launch -------------------
# yuhc/gpu-rodinia (Rodinia 3.1) at 31d0ebf5, cuda/pathfinder/pathfinder.cu (Rodinia's
# licence: BSD-style, University of Virginia), read, not copied: the kernel and the
# macros it uses; the host's calc_path is the launch list: a launch every pyramid_height rows
# (20, as Rodinia's ``run`` passes it), the last one shorter, reading gpuResult[src] and
# writing gpuResult[dst], which swap each launch, so the answer lies in whichever the
# last launch wrote.

_PATHFINDER_CUDA = r"""// kernel-forge corpus: Rodinia's pathfinder step, after gpu-rodinia's pathfinder.cu
// dynproc_kernel (read, not copied). A launch advances `iteration` rows at once: each
// block loads BLOCK_SIZE columns of the previous row and, row by row, keeps only the
// columns whose three parents it still has, so a block owns BLOCK_SIZE - 2 * HALO *
// iteration columns by the end (the pyramid), and writes those.
#define BLOCK_SIZE 256
#define HALO 1 // columns lost on each side per row advanced

#define IN_RANGE(x, lo, hi) ((x) >= (lo) && (x) <= (hi))
#define MIN(a, b) ((a) <= (b) ? (a) : (b))

__global__ void dynproc_kernel(
                int iteration,
                int *gpuWall,
                int *gpuSrc,
                int *gpuResults,
                int cols,
                int rows,
                int startStep,
                int border)
{
    __shared__ int prev[BLOCK_SIZE];
    __shared__ int result[BLOCK_SIZE];

    const int tx = threadIdx.x;

    // the block's columns: it starts `border` to the left of the ones it owns
    const int owned = BLOCK_SIZE - iteration * HALO * 2;
    const int first_col = owned * (int)blockIdx.x - border;
    const int last_col = first_col + BLOCK_SIZE - 1;
    const int col = first_col + tx;

    // the threads whose columns lie in the grid, and each thread's neighbours clamped
    // to them
    const int lo = first_col < 0 ? -first_col : 0;
    const int hi = last_col > cols - 1 ? BLOCK_SIZE - 1 - (last_col - cols + 1) : BLOCK_SIZE - 1;
    const int west = tx - 1 < lo ? lo : tx - 1;
    const int east = tx + 1 > hi ? hi : tx + 1;
    const bool inside = IN_RANGE(tx, lo, hi);

    if (IN_RANGE(col, 0, cols - 1)) {
        prev[tx] = gpuSrc[col];
    }
    __syncthreads();

    bool computed = false;
    for (int step = 0; step < iteration; ++step) {
        // a thread still has all three parents while it is step + 1 from either edge
        computed = inside && IN_RANGE(tx, step + 1, BLOCK_SIZE - step - 2);
        if (computed) {
            int cheapest = MIN(prev[west], prev[tx]);
            cheapest = MIN(cheapest, prev[east]);
            result[tx] = cheapest + gpuWall[cols * (startStep + step) + col];
        }
        __syncthreads();
        if (step == iteration - 1) {
            break;
        }
        if (computed) {
            prev[tx] = result[tx];
        }
        __syncthreads();
    }

    // only the threads that computed the last row hold an owned column
    if (computed) {
        gpuResults[col] = result[tx];
    }
}
"""

# A WebGPU port: 256 invocations (BLOCK_SIZE, WebGPU's most), iteration and startStep as
# ``override`` constants a launch (a pipeline each), and the two result buffers bound
# both, ``src`` saying which one the launch reads (WGSL cannot swap bindings in a pass).
_PATHFINDER_WGSL = """
const BLOCK_SIZE: i32 = 256;
const HALO: i32 = 1;
override iteration: i32 = 1;
override startStep: i32 = 0;
override src: u32 = 0u;

struct Params { cols: i32, rows: i32, border: i32 }
@group(0) @binding(0) var<storage, read> gpuWall: array<i32>;
@group(0) @binding(1) var<storage, read_write> gpuResult0: array<i32>;
@group(0) @binding(2) var<storage, read_write> gpuResult1: array<i32>;
@group(0) @binding(3) var<uniform> p: Params;

var<workgroup> prev: array<i32, 256>;
var<workgroup> result: array<i32, 256>;

fn in_range(x: i32, lo: i32, hi: i32) -> bool { return x >= lo && x <= hi; }

@compute @workgroup_size(256)
fn dynproc_kernel(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let bx = i32(wid.x);
    let tx = i32(lid.x);
    let cols = p.cols;
    let small_block_cols = BLOCK_SIZE - iteration * HALO * 2;
    let blkX = small_block_cols * bx - p.border;
    let blkXmax = blkX + BLOCK_SIZE - 1;
    let xidx = blkX + tx;
    let validXmin = select(0, -blkX, blkX < 0);
    let validXmax = select(BLOCK_SIZE - 1, BLOCK_SIZE - 1 - (blkXmax - cols + 1), blkXmax > cols - 1);
    var W = tx - 1;
    var E = tx + 1;
    if (W < validXmin) { W = validXmin; }
    if (E > validXmax) { E = validXmax; }
    let isValid = in_range(tx, validXmin, validXmax);

    if (in_range(xidx, 0, cols - 1)) {
        if (src == 0u) { prev[tx] = gpuResult0[xidx]; } else { prev[tx] = gpuResult1[xidx]; }
    }
    workgroupBarrier();
    var computed = false;
    for (var i = 0; i < iteration; i++) {
        computed = false;
        if (in_range(tx, i + 1, BLOCK_SIZE - i - 2) && isValid) {
            computed = true;
            let left = prev[W];
            let up = prev[tx];
            let right = prev[E];
            var shortest = min(left, up);
            shortest = min(shortest, right);
            let index = cols * (startStep + i) + xidx;
            result[tx] = shortest + gpuWall[index];
        }
        workgroupBarrier();
        if (i == iteration - 1) { break; }
        if (computed) { prev[tx] = result[tx]; }
        workgroupBarrier();
    }
    if (computed) {
        if (src == 0u) { gpuResult1[xidx] = result[tx]; } else { gpuResult0[xidx] = result[tx]; }
    }
}
"""

_PYRAMID = 20  # pyramid_height, as Rodinia's run script passes it (pathfinder 100000 100 20)


def _pathfinder_launches(size):
    """calc_path: ``src`` and ``dst`` swap before each launch, from src = 1, dst = 0."""
    small = 256 - _PYRAMID * 2
    block_cols = size.cols // small + (0 if size.cols % small == 0 else 1)
    launches, src, dst = [], 1, 0
    for t in range(0, size.rows - 1, _PYRAMID):
        src, dst = dst, src
        launches.append(
            Dispatch(
                "dynproc_kernel",
                grid=(block_cols, 1, 1),
                arguments=(
                    "iteration",
                    "gpuWall",
                    f"gpuResult{src}",
                    f"gpuResult{dst}",
                    "cols",
                    "rows",
                    "startStep",
                    "border",
                ),
                overrides={
                    "iteration": min(_PYRAMID, size.rows - t - 1),
                    "startStep": t,
                    "src": src,
                },
            )
        )
    return tuple(launches)


def _pathfinder_reference(gpuWall, gpuResult0, gpuResult1, p):
    """The minimum-cost path down the wall, a step a row (down, or down and one column
    aside), row by row; the launch that wrote last holds the answer, the other buffer
    the rows before that launch."""
    rows, cols = int(p["rows"]), int(p["cols"])
    wall = gpuWall.reshape(rows - 1, cols).astype(np.int64)
    state, before = gpuResult0.astype(np.int64), None
    buffers = [gpuResult0.copy(), None]
    for t in range(0, rows - 1, _PYRAMID):
        before = state
        for r in range(t, min(t + _PYRAMID, rows - 1)):
            q = np.pad(state, 1, mode="edge")
            state = np.minimum(np.minimum(q[:-2], q[1:-1]), q[2:]) + wall[r]
        launch = t // _PYRAMID
        buffers[(launch + 1) % 2] = state.astype(np.int32)
        buffers[launch % 2] = before.astype(np.int32)
    return buffers[0], buffers[1]


def _costs(rng, count, size):
    return rng.integers(0, 10, count).astype(np.int32)  # rand() % 10, as init() draws them


PATHFINDER = Wild(
    KernelSpec(
        id="wild_r38_rodinia_pathfinder_dynproc_pyramid_launches",
        entry_point="dynproc_kernel",
        sources={"cuda": _PATHFINDER_CUDA, "wgsl": _PATHFINDER_WGSL},
        dims=("rows", "cols"),
        buffers=(
            BufferSpec(0, "i32", "read", name="gpuWall", count="(rows-1)*cols", fill=_costs),
            BufferSpec(
                1, "i32", "read_write", name="gpuResult0", count="cols", inout=True, fill=_costs
            ),
            BufferSpec(2, "i32", "read_write", name="gpuResult1", count="cols"),
            BufferSpec.uniform(3, (("cols", "i32"), ("rows", "i32"), ("border", "i32")), name="p"),
        ),
        reference=_pathfinder_reference,
        params=lambda size: {"cols": size.cols, "rows": size.rows, "border": _PYRAMID},
        launches=_pathfinder_launches,
        schedules=(Schedule(256),),
        # three launches over three blocks, the last launch one row; one over one column
        test_sizes=("rows=42,cols=500", "rows=2,cols=1"),
    ),
    {
        "CUDA: small block shrunk by one halo": (
            "cuda",
            "const int owned = BLOCK_SIZE - iteration * HALO * 2;",
            "const int owned = BLOCK_SIZE - iteration * HALO;",
        ),
        "CUDA: the wall's row not advanced in the pyramid": (
            "cuda",
            "gpuWall[cols * (startStep + step) + col]",
            "gpuWall[cols * (startStep) + col]",
        ),
        "CUDA: the left neighbour read from the right": (
            "cuda",
            "MIN(prev[west], prev[tx])",
            "MIN(prev[east], prev[tx])",
        ),
        "small block shrunk by one halo": (
            "wgsl",
            "let small_block_cols = BLOCK_SIZE - iteration * HALO * 2;",
            "let small_block_cols = BLOCK_SIZE - iteration * HALO;",
        ),
        "the wall's row not advanced in the pyramid": (
            "wgsl",
            "let index = cols * (startStep + i) + xidx;",
            "let index = cols * (startStep) + xidx;",
        ),
        "no barrier before the next step": (
            "wgsl",
            "        if (computed) { prev[tx] = result[tx]; }\n        workgroupBarrier();",
            "        if (computed) { prev[tx] = result[tx]; }",
        ),
        "east not clamped at the last column": (
            "wgsl",
            "if (E > validXmax) { E = validXmax; }",
            "",
        ),
    },
)

# -- 3. NVIDIA/cuda-samples: sortingNetworks' bitonic sort of key-value pairs ---------------
# Samples/2_Concepts_and_Techniques/sortingNetworks/bitonicSort.cu at 2b3dc333, with
# sortingNetworks_common.cuh (at 2e41896e) and sortingNetworks_common.h (at ceab6e8b) in
# tests/wild/round38_include (BSD 3-clause); the kernels and headers read, not copied.
# The host's bitonicSort() is the launch list: one bitonicSortShared where an array
# fits in shared memory (1024 keys), else bitonicSortShared1, then for each size bitonicMergeGlobal down to a stride of
# 1024 and one bitonicMergeShared, in place on the output; blocks of
# SHARED_SIZE_LIMIT / 2 = 512 threads, each two keys. main.cpp's data: keys
# ``rand() % 65536`` (ties), values their index, DIR = 0 (descending).

_BITONIC_CUDA = r"""// kernel-forge corpus: a bitonic sort of key-value pairs, after cuda-samples'
// sortingNetworks bitonicSort.cu (read, not copied). Every block holds SHARED_SIZE_LIMIT
// pairs in shared memory with SHARED_SIZE_LIMIT / 2 threads, one comparator each.
// Arrays that fit are sorted by bitonicSortShared alone; longer ones are first sorted
// in blocks of alternating direction (bitonicSortShared1), then merged: strides of a
// block or more by bitonicMergeGlobal, one launch a stride, the rest by
// bitonicMergeShared.

#include <assert.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;
#include <helper_cuda.h>
#include "sortingNetworks_common.h"
#include "sortingNetworks_common.cuh"

// thread t moves slots t and t + SHARED_SIZE_LIMIT / 2 of its block's pairs
__device__ inline void stage_in(uint *s_key, uint *s_val, const uint *keys,
                                const uint *vals) {
  const uint base = blockIdx.x * SHARED_SIZE_LIMIT;
  const uint lo = threadIdx.x;
  const uint hi = threadIdx.x + SHARED_SIZE_LIMIT / 2;
  s_key[lo] = keys[base + lo];
  s_key[hi] = keys[base + hi];
  s_val[lo] = vals[base + lo];
  s_val[hi] = vals[base + hi];
}

__device__ inline void stage_out(uint *keys, uint *vals, const uint *s_key,
                                 const uint *s_val) {
  const uint base = blockIdx.x * SHARED_SIZE_LIMIT;
  const uint lo = threadIdx.x;
  const uint hi = threadIdx.x + SHARED_SIZE_LIMIT / 2;
  keys[base + lo] = s_key[lo];
  keys[base + hi] = s_key[hi];
  vals[base + lo] = s_val[lo];
  vals[base + hi] = s_val[hi];
}

// one merge phase: strides from `widest` down to 1, a barrier before each
__device__ inline void merge_strides(cg::thread_block &cta, uint *s_key, uint *s_val,
                                     uint widest, uint ddd) {
  for (uint stride = widest; stride >= 1; stride /= 2) {
    cg::sync(cta);
    const uint pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
    Comparator(s_key[pos], s_val[pos], s_key[pos + stride], s_val[pos + stride], ddd);
  }
}

// arrays of up to SHARED_SIZE_LIMIT pairs, each sorted whole in `dir`
__global__ void bitonicSortShared(uint *d_DstKey, uint *d_DstVal,
                                  uint *d_SrcKey, uint *d_SrcVal,
                                  uint arrayLength, uint dir) {
  cg::thread_block cta = cg::this_thread_block();
  __shared__ uint s_key[SHARED_SIZE_LIMIT];
  __shared__ uint s_val[SHARED_SIZE_LIMIT];

  stage_in(s_key, s_val, d_SrcKey, d_SrcVal);
  for (uint size = 2; size < arrayLength; size *= 2) {
    // runs of `size` alternate direction, so that each pair of runs is bitonic
    const uint ddd = dir ^ (uint)((threadIdx.x & (size / 2)) != 0);
    merge_strides(cta, s_key, s_val, size / 2, ddd);
  }
  merge_strides(cta, s_key, s_val, arrayLength / 2, dir);
  cg::sync(cta);
  stage_out(d_DstKey, d_DstVal, s_key, s_val);
}

// the first stage for longer arrays: block b sorted ascending when b is even,
// descending when odd, so that neighbouring blocks form bitonic sequences
__global__ void bitonicSortShared1(uint *d_DstKey, uint *d_DstVal,
                                   uint *d_SrcKey, uint *d_SrcVal) {
  cg::thread_block cta = cg::this_thread_block();
  __shared__ uint s_key[SHARED_SIZE_LIMIT];
  __shared__ uint s_val[SHARED_SIZE_LIMIT];

  stage_in(s_key, s_val, d_SrcKey, d_SrcVal);
  for (uint size = 2; size < SHARED_SIZE_LIMIT; size *= 2) {
    merge_strides(cta, s_key, s_val, size / 2, (uint)((threadIdx.x & (size / 2)) != 0));
  }
  const uint ddd = blockIdx.x & 1;
  merge_strides(cta, s_key, s_val, SHARED_SIZE_LIMIT / 2, ddd);
  cg::sync(cta);
  stage_out(d_DstKey, d_DstVal, s_key, s_val);
}

// one merge step at a stride of SHARED_SIZE_LIMIT or more, straight in global memory
__global__ void bitonicMergeGlobal(uint *d_DstKey, uint *d_DstVal,
                                   uint *d_SrcKey, uint *d_SrcVal,
                                   uint arrayLength, uint size, uint stride,
                                   uint dir) {
  const uint gid = blockIdx.x * blockDim.x + threadIdx.x;
  const uint within = gid & (arrayLength / 2 - 1);  // the comparator within its array
  const uint ddd = dir ^ (uint)((within & (size / 2)) != 0);
  const uint pos = 2 * gid - (gid & (stride - 1));

  uint key_lo = d_SrcKey[pos];
  uint key_hi = d_SrcKey[pos + stride];
  uint val_lo = d_SrcVal[pos];
  uint val_hi = d_SrcVal[pos + stride];
  Comparator(key_lo, val_lo, key_hi, val_hi, ddd);
  d_DstKey[pos] = key_lo;
  d_DstKey[pos + stride] = key_hi;
  d_DstVal[pos] = val_lo;
  d_DstVal[pos + stride] = val_hi;
}

// the merge's remaining strides, SHARED_SIZE_LIMIT / 2 down to 1, in shared memory
__global__ void bitonicMergeShared(uint *d_DstKey, uint *d_DstVal,
                                   uint *d_SrcKey, uint *d_SrcVal,
                                   uint arrayLength, uint size, uint dir) {
  cg::thread_block cta = cg::this_thread_block();
  __shared__ uint s_key[SHARED_SIZE_LIMIT];
  __shared__ uint s_val[SHARED_SIZE_LIMIT];

  stage_in(s_key, s_val, d_SrcKey, d_SrcVal);
  const uint within =
      UMAD(blockIdx.x, blockDim.x, threadIdx.x) & ((arrayLength / 2) - 1);
  const uint ddd = dir ^ (uint)((within & (size / 2)) != 0);
  merge_strides(cta, s_key, s_val, SHARED_SIZE_LIMIT / 2, ddd);
  cg::sync(cta);
  stage_out(d_DstKey, d_DstVal, s_key, s_val);
}
"""

# A WebGPU port: SHARED_SIZE_LIMIT keys a workgroup as in the sample, but 256
# invocations (WebGPU's most), each doing the work of two of the sample's 512 threads
# (thread t and t + 256) between barriers; size and stride are a launch's ``override``s.
_BITONIC_WGSL = """
const SHARED_SIZE_LIMIT: u32 = 1024u;
const HALF: u32 = 512u;
override size: u32 = 2u;
override stride: u32 = 1u;

struct Params { arrayLength: u32, dir: u32 }
@group(0) @binding(0) var<storage, read_write> d_DstKey: array<u32>;
@group(0) @binding(1) var<storage, read_write> d_DstVal: array<u32>;
@group(0) @binding(2) var<storage, read> d_SrcKey: array<u32>;
@group(0) @binding(3) var<storage, read> d_SrcVal: array<u32>;
@group(0) @binding(4) var<uniform> p: Params;

var<workgroup> s_key: array<u32, 1024>;
var<workgroup> s_val: array<u32, 1024>;

fn comparator(a: u32, b: u32, dir: u32) {
    if (u32(s_key[a] > s_key[b]) == dir) {
        let k = s_key[a]; s_key[a] = s_key[b]; s_key[b] = k;
        let v = s_val[a]; s_val[a] = s_val[b]; s_val[b] = v;
    }
}

fn load(base: u32, lid: u32, from_src: bool) {
    for (var h = 0u; h < 2u; h++) {
        let t = lid + h * 256u;
        if (from_src) {
            s_key[t] = d_SrcKey[base + t]; s_val[t] = d_SrcVal[base + t];
            s_key[t + HALF] = d_SrcKey[base + t + HALF]; s_val[t + HALF] = d_SrcVal[base + t + HALF];
        } else {
            s_key[t] = d_DstKey[base + t]; s_val[t] = d_DstVal[base + t];
            s_key[t + HALF] = d_DstKey[base + t + HALF]; s_val[t + HALF] = d_DstVal[base + t + HALF];
        }
    }
}

fn store(base: u32, lid: u32) {
    workgroupBarrier();
    for (var h = 0u; h < 2u; h++) {
        let t = lid + h * 256u;
        d_DstKey[base + t] = s_key[t]; d_DstVal[base + t] = s_val[t];
        d_DstKey[base + t + HALF] = s_key[t + HALF]; d_DstVal[base + t + HALF] = s_val[t + HALF];
    }
}

@compute @workgroup_size(256)
fn bitonicSortShared(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let base = wid.x * SHARED_SIZE_LIMIT;
    load(base, lid.x, true);
    for (var sz = 2u; sz < p.arrayLength; sz <<= 1u) {
        for (var st = sz / 2u; st > 0u; st >>= 1u) {
            workgroupBarrier();
            for (var h = 0u; h < 2u; h++) {
                let t = lid.x + h * 256u;
                let ddd = p.dir ^ u32((t & (sz / 2u)) != 0u);
                let pos = 2u * t - (t & (st - 1u));
                comparator(pos, pos + st, ddd);
            }
        }
    }
    for (var st = p.arrayLength / 2u; st > 0u; st >>= 1u) {
        workgroupBarrier();
        for (var h = 0u; h < 2u; h++) {
            let t = lid.x + h * 256u;
            let pos = 2u * t - (t & (st - 1u));
            comparator(pos, pos + st, p.dir);
        }
    }
    store(base, lid.x);
}

@compute @workgroup_size(256)
fn bitonicSortShared1(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let base = wid.x * SHARED_SIZE_LIMIT;
    load(base, lid.x, true);
    for (var sz = 2u; sz < SHARED_SIZE_LIMIT; sz <<= 1u) {
        for (var st = sz / 2u; st > 0u; st >>= 1u) {
            workgroupBarrier();
            for (var h = 0u; h < 2u; h++) {
                let t = lid.x + h * 256u;
                let ddd = u32((t & (sz / 2u)) != 0u);
                let pos = 2u * t - (t & (st - 1u));
                comparator(pos, pos + st, ddd);
            }
        }
    }
    let ddd = wid.x & 1u;
    for (var st = SHARED_SIZE_LIMIT / 2u; st > 0u; st >>= 1u) {
        workgroupBarrier();
        for (var h = 0u; h < 2u; h++) {
            let t = lid.x + h * 256u;
            let pos = 2u * t - (t & (st - 1u));
            comparator(pos, pos + st, ddd);
        }
    }
    store(base, lid.x);
}

@compute @workgroup_size(256)
fn bitonicMergeGlobal(@builtin(global_invocation_id) gid: vec3<u32>) {
    let global_comparatorI = gid.x;
    let comparatorI = global_comparatorI & (p.arrayLength / 2u - 1u);
    let ddd = p.dir ^ u32((comparatorI & (size / 2u)) != 0u);
    let pos = 2u * global_comparatorI - (global_comparatorI & (stride - 1u));
    var keyA = d_DstKey[pos];
    var valA = d_DstVal[pos];
    var keyB = d_DstKey[pos + stride];
    var valB = d_DstVal[pos + stride];
    if (u32(keyA > keyB) == ddd) {
        let k = keyA; keyA = keyB; keyB = k;
        let v = valA; valA = valB; valB = v;
    }
    d_DstKey[pos] = keyA;
    d_DstVal[pos] = valA;
    d_DstKey[pos + stride] = keyB;
    d_DstVal[pos + stride] = valB;
}

@compute @workgroup_size(256)
fn bitonicMergeShared(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let base = wid.x * SHARED_SIZE_LIMIT;
    load(base, lid.x, false);
    for (var st = SHARED_SIZE_LIMIT / 2u; st > 0u; st >>= 1u) {
        workgroupBarrier();
        for (var h = 0u; h < 2u; h++) {
            let t = lid.x + h * 256u;
            let comparatorI = (wid.x * HALF + t) & ((p.arrayLength / 2u) - 1u);
            let ddd = p.dir ^ u32((comparatorI & (size / 2u)) != 0u);
            let pos = 2u * t - (t & (st - 1u));
            comparator(pos, pos + st, ddd);
        }
    }
    store(base, lid.x);
}
"""

_LIMIT = 1024  # SHARED_SIZE_LIMIT
_ARRAYS = ("batch", "L")
_IN_PLACE = ("d_DstKey", "d_DstVal", "d_DstKey", "d_DstVal")


def _bitonic_launches(size):
    """bitonicSort(d_DstKey, d_DstVal, d_SrcKey, d_SrcVal, batch, L, dir), its launches."""
    n = size.batch * size.L
    blocks = (n // _LIMIT, 1, 1)
    if size.L <= _LIMIT:
        return (Dispatch("bitonicSortShared", grid=blocks),)
    launches = [Dispatch("bitonicSortShared1", grid=blocks)]
    merge = ("arrayLength", "size", "stride", "dir")
    for sz in (1 << k for k in range(11, size.L.bit_length())):
        stride = sz // 2
        while stride > 0:
            if stride >= _LIMIT:
                launches.append(
                    Dispatch(
                        "bitonicMergeGlobal",
                        grid=(n // 512, 1, 1),
                        schedule=Schedule(256),
                        arguments=(*_IN_PLACE, *merge),
                        overrides={"size": sz, "stride": stride},
                    )
                )
            else:
                launches.append(
                    Dispatch(
                        "bitonicMergeShared",
                        grid=blocks,
                        arguments=(*_IN_PLACE, "arrayLength", "size", "dir"),
                        overrides={"size": sz},
                    )
                )
                break
            stride //= 2
    return tuple(launches)


def _bitonic_reference(d_DstKey, d_DstVal, d_SrcKey, d_SrcVal, p):
    """Each array of arrayLength keys sorted (DIR 0: descending), its values with them."""
    keys = d_SrcKey.reshape(-1, int(p["arrayLength"]))
    order = np.argsort(keys, axis=1, kind="stable")
    if not int(p["dir"]):
        order = order[:, ::-1]
    return (
        np.take_along_axis(keys, order, axis=1),
        np.take_along_axis(d_SrcVal.reshape(keys.shape), order, axis=1),
    )


BITONIC = Wild(
    KernelSpec(
        id="wild_r38_cuda_samples_bitonic_sort_key_value_launches",
        entry_point="bitonicSortShared",
        sources={"cuda": _BITONIC_CUDA, "wgsl": _BITONIC_WGSL},
        dims=("batch", "L"),
        buffers=(
            BufferSpec(0, "u32", "read_write", name="d_DstKey", count="batch*L", shape=_ARRAYS),
            # the network is not stable: among equal keys, any order of the values is right
            BufferSpec(
                1,
                "u32",
                "read_write",
                name="d_DstVal",
                count="batch*L",
                shape=_ARRAYS,
                unordered="d_DstKey",
            ),
            # main.cpp: h_InputKey[i] = rand() % numValues (65536), h_InputVal[i] = i
            BufferSpec(
                2,
                "u32",
                "read",
                name="d_SrcKey",
                count="batch*L",
                fill=lambda rng, n, size: rng.integers(0, 65536, n).astype(np.uint32),
            ),
            BufferSpec(
                3,
                "u32",
                "read",
                name="d_SrcVal",
                count="batch*L",
                fill=lambda rng, n, size: np.arange(n, dtype=np.uint32),
            ),
            BufferSpec.uniform(4, (("arrayLength", "u32"), ("dir", "u32")), name="p"),
        ),
        reference=_bitonic_reference,
        params=lambda size: {"arrayLength": size.L, "dir": 0},
        launches=_bitonic_launches,
        schedules=(Schedule(_LIMIT // 2),),
        include_dirs=(_INCLUDE,),
        # the global and shared merges over two arrays; a batch of short ones sorted
        # by one bitonicSortShared
        test_sizes=("batch=2,L=4096", "batch=16,L=64"),
    ),
    {
        "CUDA: the global merge's direction inverted": (
            "cuda",
            "Comparator(key_lo, val_lo, key_hi, val_hi, ddd);",
            "Comparator(key_lo, val_lo, key_hi, val_hi, !ddd);",
        ),
        "CUDA: the direction from the whole size, not its half": (
            "cuda",
            "const uint ddd = dir ^ (uint)((threadIdx.x & (size / 2)) != 0);",
            "const uint ddd = dir ^ (uint)((threadIdx.x & size) != 0);",
        ),
        "CUDA: the upper half of the keys not loaded": (
            "cuda",
            "  s_key[hi] = keys[base + hi];\n",
            "",
        ),
        "CUDA: comparators counted across the batch": (
            "cuda",
            "const uint within = gid & (arrayLength / 2 - 1);",
            "const uint within = gid;",
        ),
        "values left behind their keys": (
            "wgsl",
            "let v = s_val[a]; s_val[a] = s_val[b]; s_val[b] = v;",
            "",
        ),
        "the odd arrays sorted the same way": ("wgsl", "let ddd = wid.x & 1u;", "let ddd = 0u;"),
        "the global merge's direction from the stride": (
            "wgsl",
            "let ddd = p.dir ^ u32((comparatorI & (size / 2u)) != 0u);\n    let pos",
            "let ddd = p.dir ^ u32((comparatorI & (stride / 2u)) != 0u);\n    let pos",
        ),
        "no barrier between the merge's strides": (
            "wgsl",
            "            workgroupBarrier();\n            for (var h = 0u; h < 2u; h++) {",
            "            for (var h = 0u; h < 2u; h++) {",
        ),
    },
)

# -- 4. llama.cpp's ggml-cuda/tsembd.cu: timestep_embedding_f32 ------------------------------
# After ggml-org/llama.cpp at 614dee04 (MIT), read, not copied: diffusion timestep embeddings, a row a timestep
# (blockIdx.y), a thread a frequency; the row reached through a byte stride (``(char *)dst
# + i*nb1``); Hopper's programmatic dependent launch calls under ``__CUDA_ARCH__ >=
# GGML_CUDA_CC_HOPPER``. ``#include "tsembd.cuh"`` brings ggml's whole common.cuh; the two
# macros the kernel takes from it are defined in its place. The host launches
# ceil(((dim + 1) / 2) / 256) blocks of 256 along x. Even dims here (1026: three blocks,
# the last partial; and 2): the odd-dim pad is another layout at this commit.

_TSEMBD_CUDA = r"""// kernel-forge corpus: sinusoidal timestep embeddings, after llama.cpp's
// ggml-cuda/tsembd.cu timestep_embedding_f32 (read, not copied). blockIdx.y picks the
// timestep, x the frequency j < dim / 2; row i of dst is found nb1 bytes past row i - 1
// and holds cos(t f_j) in its first half, sin(t f_j) in its second. On Hopper the
// kernel takes part in programmatic dependent launch.
// the two macros the kernel takes from tsembd.cuh and ggml's common.cuh
#define CUDA_TIMESTEP_EMBEDDING_BLOCK_SIZE 256
#define GGML_CUDA_CC_HOPPER 900

static __global__ void timestep_embedding_f32(const float * timesteps, float * dst, const int nb1, const int dim, const int max_period) {
#if !defined(GGML_USE_HIP) && __CUDA_ARCH__ >= GGML_CUDA_CC_HOPPER
    cudaGridDependencySynchronize();  // wait for the grid this launch depends on
#endif
    const int i = blockIdx.y;
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    float * row = (float *)((char *)dst + i * nb1);
    const int half = dim / 2;

    // an odd dim leaves one column past the pairs, zeroed by the thread just past them
    if (dim % 2 != 0 && j == (dim + 1) / 2) {
        row[dim] = 0.f;
    }

    if (j < half) {
        const float freq = expf(-logf((float)max_period) * (float)j / (float)half);
        const float arg = timesteps[i] * freq;
        row[j] = cosf(arg);
        row[j + half] = sinf(arg);
    }
#if !defined(GGML_USE_HIP) && __CUDA_ARCH__ >= GGML_CUDA_CC_HOPPER
    cudaTriggerProgrammaticLaunchCompletion();  // let the next launch start
#endif
}
"""

# A WebGPU port: the byte stride becomes a float stride (nb1 / 4); the rest follows the
# CUDA kernel.
_TSEMBD_WGSL = """
struct Params { nb1: i32, dim: i32, max_period: i32 }
@group(0) @binding(0) var<storage, read> timesteps: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(256)
fn timestep_embedding_f32(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = i32(gid.y);
    let j = i32(gid.x);
    let row = i * (p.nb1 / 4);
    if (p.dim % 2 != 0 && j == ((p.dim + 1) / 2)) {
        dst[row + p.dim] = 0.0;
    }
    let half = p.dim / 2;
    if (j >= half) {
        return;
    }
    let timestep = timesteps[i];
    let freq = exp(-log(f32(p.max_period)) * f32(j) / f32(half));
    let arg = timestep * freq;
    dst[row + j] = cos(arg);
    dst[row + j + half] = sin(arg);
}
"""


def _tsembd_reference(timesteps, dst, p):
    """ggml_timestep_embedding: [cos(t f_j), sin(t f_j)] with f_j = max_period^(-j/half)."""
    half = int(p["dim"]) // 2
    freq = np.exp(-np.log(float(p["max_period"])) * np.arange(half) / half)
    arg = timesteps.astype(np.float64)[:, None] * freq[None, :]
    return np.concatenate([np.cos(arg), np.sin(arg)], axis=1).astype(np.float32)


TSEMBD = Wild(
    KernelSpec(
        id="wild_r38_ggml_timestep_embedding_f32_byte_stride_pdl",
        entry_point="timestep_embedding_f32",
        sources={"cuda": _TSEMBD_CUDA, "wgsl": _TSEMBD_WGSL},
        dims=("n", "dim"),
        buffers=(
            # diffusion timesteps, 0 to 999 (DDPM's 1000 steps)
            BufferSpec(0, "f32", "read", name="timesteps", count="n", fill=(0.0, 999.0)),
            BufferSpec(1, "f32", "read_write", name="dst", count="n*dim", shape=("n", "dim")),
            BufferSpec.uniform(
                2, (("nb1", "i32"), ("dim", "i32"), ("max_period", "i32")), name="p"
            ),
        ),
        reference=_tsembd_reference,
        params=lambda size: {"nb1": size.dim * 4, "dim": size.dim, "max_period": 10000},
        grid=lambda s, size: (ceil_div((size.dim + 1) // 2, 256), size.n, 1),
        schedules=(Schedule(256),),
        test_sizes=("n=3,dim=1026", "n=1,dim=2"),
    ),
    {
        "CUDA: row stride in floats, not bytes": (
            "cuda",
            "float * row = (float *)((char *)dst + i * nb1);",
            "float * row = (float *)(dst + i * nb1);",
        ),
        "CUDA: frequencies over dim, not half": (
            "cuda",
            "(float)j / (float)half);",
            "(float)j / (float)dim);",
        ),
        "CUDA: sin and cos swapped": (
            "cuda",
            "row[j] = cosf(arg);\n        row[j + half] = sinf(arg);",
            "row[j] = sinf(arg);\n        row[j + half] = cosf(arg);",
        ),
        "frequencies over dim, not half": (
            "wgsl",
            "f32(j) / f32(half)",
            "f32(j) / f32(p.dim)",
        ),
        "the last frequency left out": ("wgsl", "if (j >= half) {", "if (j + 1 >= half) {"),
    },
)

ROUND38: dict = {w.kernel.id: w for w in (FLASH, PATHFINDER, BITONIC, TSEMBD)}

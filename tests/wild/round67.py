"""Round 67 of kernels from the wild, merged into ``tests.wild.CORPUS``: kernels as
compilers emit them, which users bring to a verifier straight from their toolchain's
dump. Nobody wrote them by hand: every index is a flattened expression with
``((int)blockIdx.x)`` casts, shapes are baked in as literals, a reduction is an
``rfactor`` buffer, a ``red_buf0`` and a tree of shuffles or barriers, and the tail of
a loop is a predicate the scheduler derived (round 33 has tinygrad's renderer; this
round has TVM's CUDA and WebGPU code generators, and naga's GLSL front end).

Each kernel is written for this corpus after the public output named below: read, not
copied (the project's rule for public code). What is theirs is kept, as what the
entries test: the entry points (``default_function_kernel0``, the three
``default_function_kernel``s of a log-softmax, the WebGPU GEMV's fused name, naga's
``main`` calling ``main_1``), the parameters (names, types, order: TVM's ``compute``
and ``compute_1``, which are different buffers in different kernels), the bindings and
``PODArgs`` with ``packGridDimX``, the launch geometry (blocks of (16, 32), of 32, 16
and 64; workgroups of 64 and of 1), the shapes baked in (1872 x 13, 117 and 1521 as
TVM folded them into its predicates), the idioms (``B_rf`` and ``red_buf0`` of one
element, ``mask[0]`` and ``t0[0]``, ``__shfl_down_sync`` by 8, 4, 2, 1 with width 32
and ``__shfl_sync`` from lane ``threadIdx.y * 16``, a tail loop of ``((m & 15) + 15)
>> 4`` trips, ``-3.402823e+38f`` as the max's start, ``__expf`` and ``__logf``, the
nibble unpack ``((w >> s) & 15u) - 7`` by ``fma``, a ``workgroupBarrier()`` tree on
``red_buf0`` in ``i32`` casts; naga's ``let _eN`` loads, ``var<private>`` built-ins,
``if !(cond) { break; }`` loops and the GLSL's parity through ``f32``) and the numerics
(each sum's order, the zero point 7, the float modulo). What is ours: the comments,
the formatting (spaces, fewer parentheses where the generated ones change nothing),
and the WebGPU ports of the CUDA.

- TVM's cross-thread row sum, the "Reduction" how-to (apache/tvm, Apache-2.0,
  ``gallery/how_to/work_with_schedules/reduction.py``, printed by
  ``fcuda.imported_modules[0].get_source()``): ``B = te.sum(A[i, k], axis=k)`` split
  by 16 with ``rfactor``, rows on ``threadIdx.y`` (32), the factor on ``threadIdx.x``
  (16), two rows a warp reduced in halves by ``__shfl_down_sync`` and broadcast from
  the half's first lane. Two things differ from the tutorial's print, each a fix TVM
  or its schedule needs: the mask is ``__activemask()`` as TVM emits it since
  apache/tvm#17307 (the tutorial's ``65535 << (threadIdx.y * 16)`` shifts past 32 for
  the third row on, the zero mask apache/tvm#15323 fixed), and the store keeps the row
  bound: ``set_store_predicate(tx.var.equal(0))`` replaces the predicate TVM derived,
  so the tutorial's kernel writes a zero past ``B``'s end for every row past ``n`` in
  the last block (it is tested at 128 rows, a multiple of 32): the corpus keeps that
  print as a mutant. ``A`` is a strided view (rows of ``m + 3``), as the buffer's
  ``stride`` allows. The port is TVM's WebGPU output for the same schedule (no warp
  shuffles there: ``red_buf0`` in workgroup memory, a barrier a level).
- TVM's log-softmax as its CUDA codegen prints it for a static (1872, 13) input
  (``topi.nn.log_softmax`` under TVM's CUDA schedule; the dump read is a generated
  ``.cu`` in public repository text whose repository the search index does not name,
  one of several such dumps of other shapes there): three
  kernels, the max over a row (32 threads, a row each, the bound ``(blockIdx.x * 2 +
  (threadIdx.x >> 4)) < 117``, i.e. ``row < 1872`` folded by 16), the sum of
  ``__expf`` (16 threads, no bound: 117 blocks exactly) and the normalisation (64
  threads an element, ``(blockIdx.x * 4 + (threadIdx.x >> 4)) < 1521``: element <
  24336). The port is the same three as WebGPU entry points (TVM's ``packGridDimX``
  guard left out: the three launches would each need their own uniform).
- WebLLM's lm_head GEMV as TVM's WebGPU codegen emits it (MLC's
  ``fused_dequantize*_fused_NT_matmul*_cast*_kernel``, from a public dump of a WebLLM
  model's shaders, ``fused_dequantize5_fused_NT_matmul14_cast2_kernel``, whose
  repository the search index does not name; q4f16_1 there): ``PODArgs { vocab_size, packGridDimX }``, a
  workgroup of 64 an output row, each invocation one ``u32`` of 8 nibbles a step
  (``v__1 * words + threadIdx.x + 64 j``), the group scale at ``threadIdx.x >> 2``
  (32 weights a scale), ``fma`` into ``NT_matmul_rf_local[0i]``, then ``red_buf0``'s
  tree of six levels between barriers. Written here for q4f32_1 (WebLLM ships both:
  ``f32`` where the dump has ``f16``, no cast at the end) and a hidden size of 1024 (two
  steps where the dump has six), so that SwiftShader, which has no f16, runs it too.
- Collatz as naga's GLSL front end translates it (gfx-rs/wgpu, MIT or Apache-2.0,
  ``naga/tests/out/wgsl/glsl-246-collatz.comp.wgsl`` at 34a3d05b, the snapshot of
  naga's GLSL test ``246-collatz.comp``): the buffer a
  struct ``PrimeIndices``, the built-in copied into a ``var<private>``, ``main`` calling
  ``main_1``, loads as ``let _eN``, the loop's ``while`` as ``if !(cond) { break; }``,
  and the GLSL's parity as ``mod(float(n), 2.0) == 0.0``: exact below 2**24, and true
  of every value above it (float32's spacing there is 2 or more, so any rounding of
  ``f32(n)``, WGSL's either neighbour included, is even). A trajectory that climbs
  past 2**24 halves its odd values there; the reference follows the shader, not
  Collatz (the draws hold such starts: 77671 takes 138 steps here, 231 in Collatz).

What they showed: tests/test_wild_round67.py.
"""

# ruff: noqa: E501  (the generated CUDA and WGSL keep their long lines)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import RACE_HIDDEN, Wild

_F = np.float32

# -- 1. TVM: the reduction how-to's cross-thread row sum ----------------------------------

_TVM_SUM_STORE = """  if ((((int)threadIdx.x) == 0) && (((((int)blockIdx.x) * 32) + ((int)threadIdx.y)) < n)) {
    B[(((((int)blockIdx.x) * 32) + ((int)threadIdx.y)) * stride2)] = red_buf0[0];
  }"""

_TVM_SUM_CUDA = (
    r"""// kernel-forge corpus: TVM's row sum with rfactor and a cross-thread reduction, as its
// CUDA codegen prints it (read, not copied; see tests/wild/round67.py).
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ < 700)
#define __shfl_sync(mask, var, lane, width) __shfl((var), (lane), (width))
#define __shfl_down_sync(mask, var, offset, width) __shfl_down((var), (offset), (width))
#define __shfl_up_sync(mask, var, offset, width) __shfl_up((var), (offset), (width))
#endif

#define uint unsigned int
#define uchar unsigned char
#define ushort unsigned short
#define int64_t long long
#define uint64_t unsigned long long

// blockDim (16, 32): threadIdx.y a row of B, threadIdx.x a slice of its k axis
extern "C" __global__ void __launch_bounds__(512) default_function_kernel0(float* __restrict__ A, float* __restrict__ B, int m, int n, int stride, int stride1, int stride2) {
  float B_rf[1];
  float red_buf0[1];
  B_rf[0] = 0.000000e+00f;
  // the whole tiles of 16 along k
  for (int k_outer = 0; k_outer < (m >> 4); ++k_outer) {
    if (((((int)blockIdx.x) * 32) + ((int)threadIdx.y)) < n) {
      B_rf[0] = (B_rf[0] + A[((((((int)blockIdx.x) * 32) + ((int)threadIdx.y)) * stride) + (((k_outer * 16) + ((int)threadIdx.x)) * stride1))]);
    }
  }
  // the tail tile, predicated on k
  for (int k_outer1 = 0; k_outer1 < (((m & 15) + 15) >> 4); ++k_outer1) {
    if (((((int)blockIdx.x) * 32) + ((int)threadIdx.y)) < n) {
      if (((((m >> 4) * 16) + (k_outer1 * 16)) + ((int)threadIdx.x)) < m) {
        B_rf[0] = (B_rf[0] + A[((((((int)blockIdx.x) * 32) + ((int)threadIdx.y)) * stride) + (((((m >> 4) * 16) + (k_outer1 * 16)) + ((int)threadIdx.x)) * stride1))]);
      }
    }
  }
  // each half warp (one row) reduced by shuffles, its first lane's sum broadcast
  uint mask[1];
  float t0[1];
  red_buf0[0] = B_rf[0];
  mask[0] = __activemask();
  t0[0] = __shfl_down_sync(mask[0], red_buf0[0], 8, 32);
  red_buf0[0] = (red_buf0[0] + t0[0]);
  t0[0] = __shfl_down_sync(mask[0], red_buf0[0], 4, 32);
  red_buf0[0] = (red_buf0[0] + t0[0]);
  t0[0] = __shfl_down_sync(mask[0], red_buf0[0], 2, 32);
  red_buf0[0] = (red_buf0[0] + t0[0]);
  t0[0] = __shfl_down_sync(mask[0], red_buf0[0], 1, 32);
  red_buf0[0] = (red_buf0[0] + t0[0]);
  red_buf0[0] = __shfl_sync(mask[0], red_buf0[0], (((int)threadIdx.y) * 16), 32);
"""
    + _TVM_SUM_STORE
    + """
}
"""
)

_TVM_SUM_WGSL = """// TVM's row sum (rfactor by 16, a cross-thread reduction) as its WebGPU codegen emits
// the schedule at WebGPU's 256 invocations (rows split by 16, not 32): no warp
// shuffles, red_buf0 in workgroup memory, a barrier a level.
@group(0) @binding(0) var<storage, read> A : array<f32>;
@group(0) @binding(1) var<storage, read_write> B : array<f32>;

struct PODArgs {
  m: i32,
  n: i32,
  stride: i32,
  stride1: i32,
  stride2: i32,
  packGridDimX: u32
}
@group(0) @binding(2) var<uniform> podArgs : PODArgs;

var<workgroup> red_buf0 : array<f32, 256>;
@compute @workgroup_size(16, 16, 1)
fn default_function_kernel(
  @builtin(workgroup_id) blockIdx : vec3<u32>,
  @builtin(num_workgroups) gridDim : vec3<u32>,
  @builtin(local_invocation_id) threadIdx : vec3<u32>
) {
  if (blockIdx.z * gridDim.x + blockIdx.x > podArgs.packGridDimX) { return; }
  let v__1 : i32 = i32(blockIdx.z * gridDim.x + blockIdx.x);
  var B_rf : array<f32, 1>;
  B_rf[0i] = 0.000000e+00f;
  for (var k_outer : i32 = 0; k_outer < (podArgs.m >> 4u); k_outer++) {
    if (((v__1 * 16i) + i32(threadIdx.y)) < podArgs.n) {
      B_rf[0i] = (B_rf[0i] + A[((((v__1 * 16i) + i32(threadIdx.y)) * podArgs.stride) + (((k_outer * 16i) + i32(threadIdx.x)) * podArgs.stride1))]);
    }
  }
  for (var k_outer_1 : i32 = 0; k_outer_1 < (((podArgs.m & 15i) + 15i) >> 4u); k_outer_1++) {
    if (((v__1 * 16i) + i32(threadIdx.y)) < podArgs.n) {
      if (((((podArgs.m >> 4u) * 16i) + (k_outer_1 * 16i)) + i32(threadIdx.x)) < podArgs.m) {
        B_rf[0i] = (B_rf[0i] + A[((((v__1 * 16i) + i32(threadIdx.y)) * podArgs.stride) + (((((podArgs.m >> 4u) * 16i) + (k_outer_1 * 16i)) + i32(threadIdx.x)) * podArgs.stride1))]);
      }
    }
  }
  workgroupBarrier();
  red_buf0[((i32(threadIdx.y) * 16i) + i32(threadIdx.x))] = B_rf[0i];
  workgroupBarrier();
  if (i32(threadIdx.x) < 8i) {
    red_buf0[((i32(threadIdx.y) * 16i) + i32(threadIdx.x))] = (red_buf0[((i32(threadIdx.y) * 16i) + i32(threadIdx.x))] + red_buf0[(((i32(threadIdx.y) * 16i) + i32(threadIdx.x)) + 8i)]);
  }
  workgroupBarrier();
  if (i32(threadIdx.x) < 4i) {
    red_buf0[((i32(threadIdx.y) * 16i) + i32(threadIdx.x))] = (red_buf0[((i32(threadIdx.y) * 16i) + i32(threadIdx.x))] + red_buf0[(((i32(threadIdx.y) * 16i) + i32(threadIdx.x)) + 4i)]);
  }
  workgroupBarrier();
  if (i32(threadIdx.x) < 2i) {
    red_buf0[((i32(threadIdx.y) * 16i) + i32(threadIdx.x))] = (red_buf0[((i32(threadIdx.y) * 16i) + i32(threadIdx.x))] + red_buf0[(((i32(threadIdx.y) * 16i) + i32(threadIdx.x)) + 2i)]);
  }
  workgroupBarrier();
  if (i32(threadIdx.x) < 1i) {
    red_buf0[((i32(threadIdx.y) * 16i) + i32(threadIdx.x))] = (red_buf0[((i32(threadIdx.y) * 16i) + i32(threadIdx.x))] + red_buf0[(((i32(threadIdx.y) * 16i) + i32(threadIdx.x)) + 1i)]);
  }
  workgroupBarrier();
  if ((i32(threadIdx.x) == 0i) && (((v__1 * 16i) + i32(threadIdx.y)) < podArgs.n)) {
    B[(((v__1 * 16i) + i32(threadIdx.y)) * podArgs.stride2)] = red_buf0[(i32(threadIdx.y) * 16i)];
  }
}
"""

#: A's rows are a view of rows this much wider (the buffer's ``stride``).
_ROW_PAD = 3


def _row_sum_reference(A, B, N, M):
    rows = A.reshape(int(N), int(M) + _ROW_PAD)[:, : int(M)]
    return rows.astype(np.float64).sum(axis=1).astype(_F)


def _row_sum_spec(kernel_id: str, sources: dict, entry: str) -> KernelSpec:
    rows = 32 if "cuda" in sources else 16  # a block's rows: threadIdx.y's extent
    return KernelSpec(
        id=kernel_id,
        entry_point=entry,
        sources=sources,
        dims=("N", "M"),
        buffers=(
            BufferSpec(0, "f32", "read", name="A", count=f"N*(M+{_ROW_PAD})"),
            BufferSpec(1, "f32", "read_write", name="B", count="N"),
            *(
                ()
                if "cuda" in sources
                else (
                    BufferSpec.uniform(
                        2,
                        (
                            ("m", "i32"),
                            ("n", "i32"),
                            ("stride", "i32"),
                            ("stride1", "i32"),
                            ("stride2", "i32"),
                            ("packGridDimX", "u32"),
                        ),
                        name="podArgs",
                    ),
                )
            ),
        ),
        reference=_row_sum_reference,
        params=lambda s: {
            "m": s.M,
            "n": s.N,
            "stride": int(s.M) + _ROW_PAD,
            "stride1": 1,
            "stride2": 1,
            "packGridDimX": ceil_div(int(s.N), rows),
        },
        # s[B].bind(xo, blockIdx.x): 32 rows a block (16 in the port)
        grid=lambda sch, s: (ceil_div(int(s.N), rows), 1, 1),
        schedules=(Schedule((16, rows)),),
        # 45 rows of 100 (six tiles and a tail of 4; a second block of 13 rows); 128 of
        # 128 as the tutorial runs it; 7 rows of 5 (the tail alone)
        test_sizes=("45x100", "128x128", "7x5"),
    )


TVM_ROW_SUM = Wild(
    _row_sum_spec(
        "wild_r67_tvm_rfactor_row_sum_shfl_down_cuda",
        {"cuda": _TVM_SUM_CUDA},
        "default_function_kernel0",
    ),
    {
        # the tutorial's print: set_store_predicate(tx == 0) replaced the row bound
        "the store predicate without the row bound (the tutorial's)": (
            "cuda",
            _TVM_SUM_STORE,
            """  if (((int)threadIdx.x) == 0) {
    B[(((((int)blockIdx.x) * 32) + ((int)threadIdx.y)) * stride2)] = red_buf0[0];
  }""",
        ),
        "the tail tile's loop not emitted": (
            "cuda",
            "k_outer1 < (((m & 15) + 15) >> 4)",
            "k_outer1 < 0",
        ),
        "the shuffle tree one level short": (
            "cuda",
            "  t0[0] = __shfl_down_sync(mask[0], red_buf0[0], 1, 32);\n  red_buf0[0] = (red_buf0[0] + t0[0]);\n",
            "",
        ),
        "the broadcast from the warp's first lane, not the half's": (
            "cuda",
            "red_buf0[0] = __shfl_sync(mask[0], red_buf0[0], (((int)threadIdx.y) * 16), 32);",
            "red_buf0[0] = __shfl_sync(mask[0], red_buf0[0], 0, 32);",
        ),
    },
)

TVM_ROW_SUM_WGSL = Wild(
    _row_sum_spec(
        "wild_r67_tvm_rfactor_row_sum_webgpu_red_buf0",
        {"wgsl": _TVM_SUM_WGSL},
        "default_function_kernel",
    ),
    {
        # the tutorial's print in the port: its three rows past n land past B's end
        "the store predicate without the row bound (the tutorial's)": (
            "wgsl",
            "if ((i32(threadIdx.x) == 0i) && (((v__1 * 16i) + i32(threadIdx.y)) < podArgs.n)) {",
            "if (i32(threadIdx.x) == 0i) {",
        ),
        "the tail tile's loop not emitted": (
            "wgsl",
            "k_outer_1 < (((podArgs.m & 15i) + 15i) >> 4u)",
            "k_outer_1 < 0i",
        ),
        "the tree one level short": (
            "wgsl",
            "  if (i32(threadIdx.x) < 1i) {",
            "  if (i32(threadIdx.x) < 0i) {",
        ),
        "the barrier after the store into red_buf0 dropped": (
            "wgsl",
            "  red_buf0[((i32(threadIdx.y) * 16i) + i32(threadIdx.x))] = B_rf[0i];\n  workgroupBarrier();\n",
            "  red_buf0[((i32(threadIdx.y) * 16i) + i32(threadIdx.x))] = B_rf[0i];\n",
        ),
        "rows read at the column stride": (
            "wgsl",
            "+ i32(threadIdx.y)) * podArgs.stride) + (((k_outer * 16i)",
            "+ i32(threadIdx.y)) * podArgs.m) + (((k_outer * 16i)",
        ),
    },
    invisible_on={
        ("the barrier after the store into red_buf0 dropped", "wgsl", "NVIDIA"): RACE_HIDDEN,
    },
)


# -- 2. TVM: log-softmax over a static (1872, 13), three kernels ---------------------------

_LSM_ROWS = 1872
_LSM_COLS = 13

_LSM_NORM_BOUND = "if (((((int)blockIdx.x) * 4) + (((int)threadIdx.x) >> 4)) < 1521) {"

_LSM_CUDA = (
    r"""// kernel-forge corpus: TVM's log_softmax over (1872, 13) as its CUDA codegen prints it
// (read, not copied; see tests/wild/round67.py). TVM folds row < 1872 into
// (row >> 4) < 117 and element < 24336 into (element >> 4) < 1521.
#define uint unsigned int
#define uchar unsigned char
#define ushort unsigned short
#define int64_t long long
#define uint64_t unsigned long long

extern "C" __global__ void __launch_bounds__(64) default_function_kernel_2(float* __restrict__ T_softmax_maxelem, float* __restrict__ compute, float* __restrict__ compute_1, float* __restrict__ data);
extern "C" __global__ void __launch_bounds__(32) default_function_kernel(float* __restrict__ T_softmax_maxelem, float* __restrict__ data);
extern "C" __global__ void __launch_bounds__(16) default_function_kernel_1(float* __restrict__ T_softmax_maxelem, float* __restrict__ compute, float* __restrict__ data);

// an element a thread: x - max - log(sum); compute_1 is the sum of exponentials here
extern "C" __global__ void __launch_bounds__(64) default_function_kernel_2(float* __restrict__ T_softmax_maxelem, float* __restrict__ compute, float* __restrict__ compute_1, float* __restrict__ data) {
  """
    + _LSM_NORM_BOUND
    + r"""
    compute[((((int)blockIdx.x) * 64) + ((int)threadIdx.x))] = ((data[((((int)blockIdx.x) * 64) + ((int)threadIdx.x))] - T_softmax_maxelem[(((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 13)]) - __logf(compute_1[(((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 13)]));
  }
}

// a row a thread: its maximum
extern "C" __global__ void __launch_bounds__(32) default_function_kernel(float* __restrict__ T_softmax_maxelem, float* __restrict__ data) {
  if (((((int)blockIdx.x) * 2) + (((int)threadIdx.x) >> 4)) < 117) {
    T_softmax_maxelem[((((int)blockIdx.x) * 32) + ((int)threadIdx.x))] = -3.402823e+38f;
  }
  for (int k = 0; k < 13; ++k) {
    if (((((int)blockIdx.x) * 2) + (((int)threadIdx.x) >> 4)) < 117) {
      T_softmax_maxelem[((((int)blockIdx.x) * 32) + ((int)threadIdx.x))] = max(T_softmax_maxelem[((((int)blockIdx.x) * 32) + ((int)threadIdx.x))], data[(((((int)blockIdx.x) * 416) + (((int)threadIdx.x) * 13)) + k)]);
    }
  }
}

// a row a thread: the sum of exponentials (compute is the sum here); 117 blocks exactly
extern "C" __global__ void __launch_bounds__(16) default_function_kernel_1(float* __restrict__ T_softmax_maxelem, float* __restrict__ compute, float* __restrict__ data) {
  compute[((((int)blockIdx.x) * 16) + ((int)threadIdx.x))] = 0.000000e+00f;
  for (int k = 0; k < 13; ++k) {
    compute[((((int)blockIdx.x) * 16) + ((int)threadIdx.x))] = (compute[((((int)blockIdx.x) * 16) + ((int)threadIdx.x))] + __expf((data[(((((int)blockIdx.x) * 208) + (((int)threadIdx.x) * 13)) + k)] - T_softmax_maxelem[((((int)blockIdx.x) * 16) + ((int)threadIdx.x))])));
  }
}
"""
)

_LSM_WGSL = """// TVM's log_softmax over (1872, 13) as three WebGPU entry points: the row maximum,
// the sum of exponentials, the normalisation; the shape baked in as TVM bakes it.
@group(0) @binding(0) var<storage, read> data : array<f32>;
@group(0) @binding(1) var<storage, read_write> T_softmax_maxelem : array<f32>;
@group(0) @binding(2) var<storage, read_write> expsum : array<f32>;
@group(0) @binding(3) var<storage, read_write> compute : array<f32>;

@compute @workgroup_size(32, 1, 1)
fn default_function_kernel(
  @builtin(workgroup_id) blockIdx : vec3<u32>,
  @builtin(local_invocation_id) threadIdx : vec3<u32>
) {
  if (((i32(blockIdx.x) * 2i) + (i32(threadIdx.x) >> 4u)) < 117i) {
    T_softmax_maxelem[((i32(blockIdx.x) * 32i) + i32(threadIdx.x))] = -3.402823e+38f;
  }
  for (var k : i32 = 0; k < 13i; k++) {
    if (((i32(blockIdx.x) * 2i) + (i32(threadIdx.x) >> 4u)) < 117i) {
      T_softmax_maxelem[((i32(blockIdx.x) * 32i) + i32(threadIdx.x))] = max(T_softmax_maxelem[((i32(blockIdx.x) * 32i) + i32(threadIdx.x))], data[(((i32(blockIdx.x) * 416i) + (i32(threadIdx.x) * 13i)) + k)]);
    }
  }
}

@compute @workgroup_size(16, 1, 1)
fn default_function_kernel_1(
  @builtin(workgroup_id) blockIdx : vec3<u32>,
  @builtin(local_invocation_id) threadIdx : vec3<u32>
) {
  expsum[((i32(blockIdx.x) * 16i) + i32(threadIdx.x))] = 0.000000e+00f;
  for (var k : i32 = 0; k < 13i; k++) {
    expsum[((i32(blockIdx.x) * 16i) + i32(threadIdx.x))] = (expsum[((i32(blockIdx.x) * 16i) + i32(threadIdx.x))] + exp((data[(((i32(blockIdx.x) * 208i) + (i32(threadIdx.x) * 13i)) + k)] - T_softmax_maxelem[((i32(blockIdx.x) * 16i) + i32(threadIdx.x))])));
  }
}

@compute @workgroup_size(64, 1, 1)
fn default_function_kernel_2(
  @builtin(workgroup_id) blockIdx : vec3<u32>,
  @builtin(local_invocation_id) threadIdx : vec3<u32>
) {
  if (((i32(blockIdx.x) * 4i) + (i32(threadIdx.x) >> 4u)) < 1521i) {
    compute[((i32(blockIdx.x) * 64i) + i32(threadIdx.x))] = ((data[((i32(blockIdx.x) * 64i) + i32(threadIdx.x))] - T_softmax_maxelem[(((i32(blockIdx.x) * 64i) + i32(threadIdx.x)) / 13i)]) - log(expsum[(((i32(blockIdx.x) * 64i) + i32(threadIdx.x)) / 13i)]));
  }
}
"""


def _log_softmax_reference(data, T_softmax_maxelem, expsum, compute):
    x = data.reshape(_LSM_ROWS, _LSM_COLS).astype(np.float64)
    top = x.max(axis=1, keepdims=True)
    out = x - top - np.log(np.exp(x - top).sum(axis=1, keepdims=True))
    return {"compute": out.reshape(-1).astype(_F)}


def _lsm_spec(kernel_id: str, sources: dict, cuda: bool) -> KernelSpec:
    # on CUDA the sum is each kernel's compute or compute_1; the port names it expsum
    return KernelSpec(
        id=kernel_id,
        entry_point="default_function_kernel",
        sources=sources,
        buffers=(
            BufferSpec(0, "f32", "read", name="data", count=_LSM_ROWS * _LSM_COLS),
            BufferSpec(
                1, "f32", "read_write", name="T_softmax_maxelem", count=_LSM_ROWS, scratch=True
            ),
            BufferSpec(2, "f32", "read_write", name="expsum", count=_LSM_ROWS, scratch=True),
            BufferSpec(3, "f32", "read_write", name="compute", count=_LSM_ROWS * _LSM_COLS),
        ),
        reference=_log_softmax_reference,
        launches=(
            Dispatch(
                "default_function_kernel",
                grid=(ceil_div(_LSM_ROWS, 32), 1, 1),
                schedule=Schedule(32),
                arguments=("T_softmax_maxelem", "data") if cuda else None,
            ),
            Dispatch(
                "default_function_kernel_1",
                grid=(_LSM_ROWS // 16, 1, 1),
                schedule=Schedule(16),
                arguments=("T_softmax_maxelem", "expsum", "data") if cuda else None,
            ),
            Dispatch(
                "default_function_kernel_2",
                grid=(ceil_div(_LSM_ROWS * _LSM_COLS, 64), 1, 1),
                schedule=Schedule(64),
                arguments=("T_softmax_maxelem", "compute", "expsum", "data") if cuda else None,
            ),
        ),
        schedules=(Schedule(64),),
        test_sizes=(_LSM_ROWS * _LSM_COLS,),
    )


TVM_LOG_SOFTMAX = Wild(
    _lsm_spec("wild_r67_tvm_log_softmax_1872x13_three_kernels_cuda", {"cuda": _LSM_CUDA}, True),
    {
        "the normalisation's tail predicate one group short": (
            "cuda",
            _LSM_NORM_BOUND,
            _LSM_NORM_BOUND.replace("< 1521", "< 1520"),
        ),
        "the max's bound folded by 32, not 16": (
            "cuda",
            "  for (int k = 0; k < 13; ++k) {\n    if (((((int)blockIdx.x) * 2) + (((int)threadIdx.x) >> 4)) < 117) {",
            "  for (int k = 0; k < 13; ++k) {\n    if (((((int)blockIdx.x) * 2) + (((int)threadIdx.x) >> 5)) < 117) {",
        ),
        "the normalisation's row at a stride of 16": (
            "cuda",
            "T_softmax_maxelem[(((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 13)]",
            "T_softmax_maxelem[(((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) >> 4)]",
        ),
    },
)

TVM_LOG_SOFTMAX_WGSL = Wild(
    _lsm_spec("wild_r67_tvm_log_softmax_1872x13_webgpu_port", {"wgsl": _LSM_WGSL}, False),
    {
        "the normalisation's tail predicate one group short": (
            "wgsl",
            "(i32(threadIdx.x) >> 4u)) < 1521i",
            "(i32(threadIdx.x) >> 4u)) < 1520i",
        ),
        "the sum's exponent not shifted by the maximum": (
            "wgsl",
            "exp((data[(((i32(blockIdx.x) * 208i) + (i32(threadIdx.x) * 13i)) + k)] - T_softmax_maxelem[((i32(blockIdx.x) * 16i) + i32(threadIdx.x))]))",
            "exp(data[(((i32(blockIdx.x) * 208i) + (i32(threadIdx.x) * 13i)) + k)])",
        ),
        "the max started at 0": (
            "wgsl",
            "= -3.402823e+38f;",
            "= 0.000000e+00f;",
        ),
    },
)


# -- 3. WebLLM / TVM WebGPU: the lm_head's q4f32 dequantise-and-GEMV ------------------------

_GEMV_K = 1024  # the hidden size: 128 words of 8 nibbles a row, 32 scales a row
_GEMV_WORDS = _GEMV_K // 8
_GEMV_SCALES = _GEMV_K // 32


def _gemv_step(j: int) -> str:
    """One of the unrolled steps as TVM prints it: a word of 8 nibbles loaded, then an
    fma of the input for each (the offsets of step j folded into the indices)."""

    def plus(base: str, offset: int) -> str:
        return f"({base} + {offset}i)" if offset else base

    word = plus("((v__1 * 128i) + i32(threadIdx.x))", 64 * j)
    scale = plus("((v__1 * 32i) + (i32(threadIdx.x)>>2u))", 16 * j)
    lines = [f"  lm_head_q_weight_local[0i] = lm_head_q_weight[{word}];"]
    for i in range(8):
        at = plus("(i32(threadIdx.x) * 8i)", 512 * j + i)
        lines.append(
            f"  NT_matmul_rf_local[0i] = fma(rms_norm[{at}], ((f32(((lm_head_q_weight_local[0i]>>{4 * i}u) & 15u)) - 7.000000e+00f) * lm_head_q_scale[{scale}]), NT_matmul_rf_local[0i]);"
        )
    return "\n".join(lines) + "\n"


_GEMV_TREE = "".join(
    f"""  if (i32(threadIdx.x) < {half}i) {{
    red_buf0[i32(threadIdx.x)] = (red_buf0[i32(threadIdx.x)] + red_buf0[(i32(threadIdx.x) + {half}i)]);
  }}
  workgroupBarrier();
"""
    for half in (32, 16, 8, 4, 2, 1)
)

_GEMV_WGSL = (
    """// WebLLM's lm_head (q4f32_1) as TVM's WebGPU codegen emits it: a workgroup of 64 an
// output row, a u32 of 8 nibbles an invocation a step, red_buf0's tree between barriers.
@group(0) @binding(0) var<storage, read_write> compute : array<f32>;
@group(0) @binding(1) var<storage, read> lm_head_q_scale : array<f32>;
@group(0) @binding(2) var<storage, read> lm_head_q_weight : array<u32>;
@group(0) @binding(3) var<storage, read> rms_norm : array<f32>;

struct PODArgs {
  vocab_size: i32,
  packGridDimX: u32
}
@group(0) @binding(4) var<uniform> podArgs : PODArgs;

var<workgroup> red_buf0 : array<f32, 64>;
@compute @workgroup_size(64, 1, 1)
fn fused_dequantize1_fused_NT_matmul5_kernel(
  @builtin(workgroup_id) blockIdx : vec3<u32>,
  @builtin(num_workgroups) gridDim : vec3<u32>,
  @builtin(local_invocation_id) threadIdx : vec3<u32>
) {
  if (blockIdx.z * gridDim.x + blockIdx.x > podArgs.packGridDimX) { return; }
  let v__1 : i32 = i32(blockIdx.z * gridDim.x + blockIdx.x);
  var NT_matmul_rf_local : array<f32, 1>;
  var lm_head_q_weight_local : array<u32, 1>;
  var NT_matmul_rf_local_1 : array<f32, 1>;
  NT_matmul_rf_local[0i] = 0.000000e+00f;
"""
    + _gemv_step(0)
    + _gemv_step(1)
    + """  NT_matmul_rf_local_1[0i] = 0.000000e+00f;
  NT_matmul_rf_local_1[0i] = (NT_matmul_rf_local_1[0i] + NT_matmul_rf_local[0i]);
  workgroupBarrier();
  red_buf0[i32(threadIdx.x)] = NT_matmul_rf_local_1[0i];
  workgroupBarrier();
"""
    + _GEMV_TREE
    + """  if (i32(threadIdx.x) == 0i) {
    compute[v__1] = red_buf0[0i];
  }
}
"""
)


def _q4_weights(rng, count, size):
    """Packed nibbles: any u32 (every nibble 0 to 15, equally likely)."""
    return rng.integers(0, 2**32, count, dtype=np.uint64).astype(np.uint32)


def _gemv_reference(compute, lm_head_q_scale, lm_head_q_weight, rms_norm, podArgs):
    """MLC's group quantisation (q4f32_1): element e of a row is nibble e % 8 of word
    e // 8 (the low nibble first), minus 7, times the scale of its group of 32."""
    rows = int(podArgs["vocab_size"])
    words = lm_head_q_weight.reshape(rows, _GEMV_WORDS).astype(np.int64)
    nibbles = (words[:, :, None] >> (4 * np.arange(8))) & 15
    scale = lm_head_q_scale.reshape(rows, _GEMV_SCALES).astype(np.float64)
    weight = (nibbles.reshape(rows, _GEMV_K) - 7) * np.repeat(scale, 32, axis=1)
    return {"compute": (weight @ rms_norm.astype(np.float64)).astype(_F)}


WEBLLM_Q4F32_LM_HEAD = Wild(
    KernelSpec(
        id="wild_r67_webllm_tvm_q4f32_lm_head_dequantize_gemv",
        entry_point="fused_dequantize1_fused_NT_matmul5_kernel",
        sources={"wgsl": _GEMV_WGSL},
        dims=("V",),
        buffers=(
            BufferSpec(0, "f32", "read_write", name="compute", count="V"),
            # a group's scale is its largest magnitude over 7: positive and small (drawn)
            BufferSpec(
                1,
                "f32",
                "read",
                name="lm_head_q_scale",
                count=f"V*{_GEMV_SCALES}",
                fill=(0.002, 0.05),
            ),
            BufferSpec(
                2,
                "u32",
                "read",
                name="lm_head_q_weight",
                count=f"V*{_GEMV_WORDS}",
                fill=_q4_weights,
            ),
            BufferSpec(3, "f32", "read", name="rms_norm", count=_GEMV_K),
            BufferSpec.uniform(4, (("vocab_size", "i32"), ("packGridDimX", "u32")), name="podArgs"),
        ),
        reference=_gemv_reference,
        params=lambda s: {"vocab_size": s.V, "packGridDimX": int(s.V)},
        grid=lambda sch, s: (int(s.V), 1, 1),
        schedules=(Schedule(64),),
        test_sizes=("V=300", "V=7"),
    ),
    {
        "the tree one level short": (
            "wgsl",
            "  if (i32(threadIdx.x) < 1i) {",
            "  if (i32(threadIdx.x) < 0i) {",
        ),
        "the barrier before the tree's first level dropped": (
            "wgsl",
            "  red_buf0[i32(threadIdx.x)] = NT_matmul_rf_local_1[0i];\n  workgroupBarrier();\n",
            "  red_buf0[i32(threadIdx.x)] = NT_matmul_rf_local_1[0i];\n",
        ),
        "one unrolled nibble with zero point 8 (q4f16_0's) for 7": (
            "wgsl",
            "& 15u)) - 7.000000e+00f) * lm_head_q_scale[(((v__1 * 32i) + (i32(threadIdx.x)>>2u)) + 16i)]",
            "& 15u)) - 8.000000e+00f) * lm_head_q_scale[(((v__1 * 32i) + (i32(threadIdx.x)>>2u)) + 16i)]",
        ),
        "the second step's words at +32, not +64": (
            "wgsl",
            "lm_head_q_weight[(((v__1 * 128i) + i32(threadIdx.x)) + 64i)]",
            "lm_head_q_weight[(((v__1 * 128i) + i32(threadIdx.x)) + 32i)]",
        ),
    },
)


# -- 4. naga's GLSL front end: Collatz (naga's test 246-collatz.comp) ---------------------

_COLLATZ_WGSL = """// Collatz as naga translates the GLSL of its test 246 to WGSL: the GLSL's parity is
// mod(float(n), 2.0) == 0.0, through f32.
struct PrimeIndices {
    indices: array<u32>,
}

@group(0) @binding(0)
var<storage, read_write> global: PrimeIndices;
var<private> gl_GlobalInvocationID_1: vec3<u32>;

fn collatz_iterations(n: u32) -> u32 {
    var n_1: u32;
    var i: u32 = 0u;

    n_1 = n;
    loop {
        let _e4 = n_1;
        if !((_e4 != 1u)) {
            break;
        }
        {
            let _e8 = n_1;
            let _e9 = f32(_e8);
            if ((_e9 - (floor((_e9 / 2f)) * 2f)) == 0f) {
                {
                    let _e17 = n_1;
                    n_1 = (_e17 / 2u);
                }
            } else {
                {
                    let _e20 = n_1;
                    n_1 = ((3u * _e20) + 1u);
                }
            }
            let _e25 = i;
            i = (_e25 + 1u);
        }
    }
    let _e28 = i;
    return _e28;
}

fn main_1() {
    var index: u32;

    let _e3 = gl_GlobalInvocationID_1;
    index = _e3.x;
    let _e6 = index;
    let _e8 = index;
    let _e10 = global.indices[_e8];
    let _e11 = collatz_iterations(_e10);
    global.indices[_e6] = _e11;
    return;
}

@compute @workgroup_size(1, 1, 1)
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
    return;
}
"""

#: Starts whose trajectories climb past 2**24, where the shader's float parity calls
#: every value even, and whose counts therefore differ from Collatz's (77671: 138
#: steps, peak 38 263 750; Collatz: 231 steps, peak 1 570 824 736).
_COLLATZ_HIGH = np.array([28287, 42431, 56575, 60975, 63647, 65307, 67051, 77671], np.uint32)


def _collatz_starts(rng, count, size):
    """Starting values 1 to 2**17 (0 never ends), 1 and 2 among them, and a few whose
    trajectories climb past 2**24."""
    starts = rng.integers(1, 2**17, count, dtype=np.int64).astype(np.uint32)
    starts[: min(count, 2)] = [1, 2][: min(count, 2)]
    picks = (
        rng.choice(count, min(count // 8, len(_COLLATZ_HIGH)), replace=False) if count > 8 else []
    )
    for at, value in zip(picks, _COLLATZ_HIGH):
        starts[at] = value
    return starts


def _f32_is_even(n: int) -> bool:
    """``mod(float(n), 2.0) == 0.0`` of the u32 ``n``: float32 holds every integer below
    2**24 exactly, and above it only even ones (whichever neighbour the conversion
    takes), so the answer is exact integer arithmetic."""
    return n >= 2**24 or n % 2 == 0


def _collatz_reference(indices):
    out = np.empty_like(indices)
    for at, start in enumerate(indices.tolist()):
        n, steps = int(start), 0
        while n != 1:
            n = n // 2 if _f32_is_even(n) else (3 * n + 1) % 2**32
            steps += 1
        out[at] = steps
    return {"indices": out}


NAGA_COLLATZ = Wild(
    KernelSpec(
        id="wild_r67_naga_glsl_collatz_float_parity",
        entry_point="main",
        sources={"wgsl": _COLLATZ_WGSL},
        buffers=(
            BufferSpec(0, "u32", "read_write", name="indices", inout=True, fill=_collatz_starts),
        ),
        reference=_collatz_reference,
        grid=lambda sch, n: (int(n), 1, 1),
        schedules=(Schedule(1),),
        test_sizes=(333, 9, 1),
    ),
    {
        "the loop's exit not negated": (
            "wgsl",
            "if !((_e4 != 1u)) {",
            "if ((_e4 != 1u)) {",
        ),
        "the float modulo without floor": (
            "wgsl",
            "(floor((_e9 / 2f)) * 2f)",
            "((_e9 / 2f) * 2f)",
        ),
        "the step counted on the odd branch only": (
            "wgsl",
            "                    n_1 = ((3u * _e20) + 1u);\n                }\n            }\n            let _e25 = i;\n            i = (_e25 + 1u);\n",
            "                    n_1 = ((3u * _e20) + 1u);\n                    let _e25 = i;\n                    i = (_e25 + 1u);\n                }\n            }\n",
        ),
    },
)

ROUND67: dict[str, Wild] = {
    wild.kernel.id: wild
    for wild in (
        TVM_ROW_SUM,
        TVM_ROW_SUM_WGSL,
        TVM_LOG_SOFTMAX,
        TVM_LOG_SOFTMAX_WGSL,
        WEBLLM_Q4F32_LM_HEAD,
        NAGA_COLLATZ,
    )
}

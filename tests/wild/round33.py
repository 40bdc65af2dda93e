"""Round 33 of kernels from the wild, merged into ``tests.wild.CORPUS``: kernels of
Python GPU frameworks, as their code generators or sources write them. Each is one spec
holding a CUDA source and a WGSL one, judged by one float64 reference: tinygrad's three as
its CUDA and WGSL renderers emit them, candle's CUDA originals with WGSL ports.

Public code is read, not copied (the project's rule). candle's CUDA was first taken
verbatim (comments, links and helper names included) and is now written for this
corpus after its sources (rewritten on 2026-12-06): huggingface/candle
at 2a13b0f3 (Apache-2.0 or MIT), ``candle-kernels/src/cuda_utils.cuh``,
``binary_op_macros.cuh``, ``binary.cu`` and ``reduce.cu``, whose softmax candle adapted
from ggml (ggerganov/llama.cpp at d59bd970, MIT, ``ggml-cuda.cu``). What is theirs is
kept: the entry points and their parameters (``size_t`` counts, ``dims_and_strides``
and ``info`` as dims then strides), the kernel declared through two macro levels
(``BINARY_OP`` -> ``BINARY_OP_OUT``) and through ``SOFTMAX_OP``, the contiguity check
and the strided index walking the dims from the innermost with ``unsigned int``
offsets, the 1024-float shared array, ``-INFINITY`` as the identity, the tree with its
barrier at the head of each step, the (1, 32, 1) block with the warp along
``threadIdx.y``, the width-32 xor butterflies, the exps stored then scaled in place,
``1. / sum`` and the launch geometry. What is ours: the comments, the helpers' and
locals' names (float-only helpers), the four contiguity branches of the binary kernel
folded into one loop that picks each operand's index, ``for`` loops for ``while``s and
the formatting. The WGSL ports of candle's kernels were written by the project (ports,
not copies) and stay. tinygrad's kernels stay as tinygrad 0.14.0's renderers printed
them: they are a code generator's output, which is what these entries test (its names,
literal shapes, ``INFINITY`` uniform and unrolled loads), not text an author wrote.

- tinygrad 0.14.0's ``r_3_4_250_4``: ``Tensor.empty(12, 1000).sum(axis=1)``, four rows a
  block, each thread's row read as 250 ``float4``s (``*((float4*)(data1_12000+...))``);
  the WGSL renderer unrolls the four loads (it has no float4).
- tinygrad's ``r_8_16_6``: ``Tensor.empty(8, 96).max(axis=1)``, the first of the three
  kernels its softmax is scheduled as: GROUPTOP 16, a ``__shared__``/``var<workgroup>``
  ``buf2[16]`` read serially by thread 0 after a barrier, the max started at
  ``-INFINITY`` (CUDA: ``#define INFINITY (__int_as_float(0x7f800000))``; WGSL: a
  ``var<uniform> INFINITY : f32`` at binding 0 that tinygrad's WebGPU runtime fills with
  ``float('inf')``, bound here as a one-element input filled so).
- tinygrad's ``r_5_32_4_4_3_32_4``: ``Tensor.empty(96, 128) @ Tensor.empty(128, 80)``, a
  32 x 4 block, 3 x 4 outputs a thread, ``float4`` loads of both operands and ``float4``
  stores (WGSL: all unrolled). CUDA rendered with ``TC=0``: on its NULL device tinygrad
  picks TF32 tensor cores (``mma.sync...tf32``), which on a real CUDA device it skips
  unless ``ALLOW_TF32=1`` (codegen/opt/postrange.py checks the device name); ``TC=0``
  gives what a CUDA device gets by default.
- candle's ``bmul_f32`` (binary.cu through ``BINARY_OP`` -> ``BINARY_OP_OUT``):
  ``size_t numel, num_dims``, a ``const size_t *dims_and_strides`` of dims, lhs strides
  and rhs strides, here ``x.transpose(1, 2) * w`` with ``w`` broadcast (stride 0), so
  that neither side is contiguous and the strided branch runs.
- candle's ``fast_max_f32`` (reduce.cu): ``x.max(1)`` of a contiguous (A, B, C), the
  ``info`` dims and strides reordered by FastReduce with the reduced dim last,
  ``get_strided_index`` per element, ``-INFINITY`` then a shared-memory tree with the
  barrier at the top of each step; the block is ``min(1024, B).next_power_of_two()`` as
  cuda_backend launches it, capped at 256 here for both targets (WebGPU's default limit;
  the kernel is right for any power of two).
- candle's ``softmax_f32`` (reduce.cu, ggml's): a row a block of (1, 32, 1), the warp
  along ``threadIdx.y``, max and sum by ``__shfl_xor_sync`` butterflies, exps stored
  and scaled in place; the WGSL port reduces through workgroup memory.

What they showed (lavapipe and SwiftShader; NVRTC for sm_90; no GPU this round, and the
GPU machine could not be started: the CUDA originals and CUDA mutants are unrun):

- Inexpressible as written (fixed): candle's ``bmul_f32`` is stamped out by a macro
  whose body invokes the macro that declares the kernel; forge read one level of macro
  (``_expand_kernel_macro``), so the CUDA parameters were unread and the error said "the
  source declares no __global__ function named 'bmul_f32'", which it does. A macro that
  reaches one declaring a kernel is now expanded in turn; the spec needs no
  ``arguments=``.
- False passes of a wrong max identity (0 for -INFINITY), each of which a whole line of
  negatives would show (fixed, pinned in tests/test_wild_round33.py): (1) tinygrad's row
  max with its buffer flat, as tinygrad declares it (``data1_768``): the families never
  make whole rows without ``shape=(8, 96)``; (2) candle's ``fast_max`` over the middle
  axis: the families come in whole rows of the last axis only, so no line along B was
  all negative at any seed; (3) candle's softmax at 6 x 100: with fewer rows than
  families, the families are 10-element blocks inside rows, no row was all large
  negatives, and a softmax whose max starts at 0 (NaN on a row below about -88) passed.
  A kernel that keeps a running maximum or minimum (``running_extremum``: ``m =
  max(m, x)``, an ``if (x > m) m = x``, or a pick of the larger of two by comparing
  them, as tinygrad's ``select(val1,val0,(val1<val0))``) is now also run on two
  one-sign input sets, every input negative, then positive, its second half of large
  magnitudes from a row boundary: all three mutants fail there.
- Unclear message (fixed): tinygrad's max is a compare-and-select
  (``(val1<val0)?val0:val1``) that drops NaN; on a row holding NaN and +inf it gives
  +inf where np.max gives NaN, accepted (round 24's NaN-as-missing) with the note "edge
  inputs make both non-finite; the order and precision of the arithmetic decide which",
  though neither does here; the note now names a max written as a comparison too.
- Inexpressible (known, round 32): tinygrad's default softmax is three kernels whose
  buffers are bound by position in each (``data0`` is each one's output: the max in
  the first, the sum in the second), with a duplicate kernel name and prefix in each
  source; a spec's ``Dispatch`` names an entry point of one module with one binding per
  buffer, so it is taken here as its first kernel alone.
- Helpful: a port of mine started the max at ``-bitcast<f32>(0x7f800000u)``; naga ran it
  and Tint refused it, and kforge's error named the rule (an infinite const-expression is
  a shader-creation error) and the fix (the bits from a ``let``), as the ports now do.
- My own mistake: a WGSL mutant "size-1 dims not skipped by the contiguity check" was
  equivalent (it only turns the fast path off) and passed; dropped.
- Every original passed on reference and wgpu at seeds 0 to 4 and on the browser at 0 and
  1; every WGSL mutant failed on wgpu; every CUDA source compiles with NVRTC and binds
  as candle and tinygrad launch it (``size_t`` parameters from u32 fields, widened).
"""

# ruff: noqa: E501  (generated and project sources keep their long lines, as written)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import Wild

# -- tinygrad 0.14.0's generated kernels ------------------------------------------------
# Rendered by tinygrad 0.14.0 (PyPI) on its NULL device with the CUDA renderer for sm_90
# (``DEV=NULL:CUDA:sm_90``) and the WGSL renderer (``DEV=NULL:WGSL``), default options
# (BEAM off, hand-coded optimisations), and taken as printed (``DEBUG=4``). Each kernel
# is specialised to the shape it was made for: its sizes and strides are literals, its
# buffers named ``data<i>_<count>``, ``data0`` the output. The WGSL renderer declares
# every buffer ``read_write`` and a ``var<uniform> INFINITY : f32`` at binding 0, which
# tinygrad's WebGPU runtime fills with ``float('inf')`` for every launch (WGSL has no
# infinite literal); the CUDA renderer ``#define``s INFINITY from its bits.

_TG_ROW_SUM_CUDA = r"""
typedef unsigned int uint;
#define INFINITY (__int_as_float(0x7f800000))
#define NAN (__int_as_float(0x7fffffff))
template <class T, class F> __device__ __forceinline__ T tg_bitcast(F v) { union U { F f; T t; }; U u; u.f = v; return u.t; }
extern "C" __global__ void __launch_bounds__(4) r_3_4_250_4(float* data0_12, float* data1_12000) {
  float buf0[1];
  int gidx0 = blockIdx.x; /* 3 */
  int lidx0 = threadIdx.x; /* 4 */
  *(buf0+0) = 0.0f;
  for (int Ridx0 = 0; Ridx0 < 250; Ridx0++) {
    float4 val0 = (*((float4*)((data1_12000+((gidx0*4000)+(lidx0*1000)+(Ridx0<<2))))));
    *(buf0+0) = ((*(buf0+0))+val0.x+val0.y+val0.z+val0.w);
  }
  *(data0_12+(lidx0+(gidx0<<2))) = (*(buf0+0));
}
"""

_TG_ROW_SUM_WGSL = """
fn nan() -> f32 { let bits = 0xffffffffu; return bitcast<f32>(bits); }
@group(0) @binding(0)
var<uniform> INFINITY : f32;
@group(0) @binding(1)var<storage,read_write>data0_12:array<f32>;
@group(0) @binding(2)var<storage,read_write>data1_12000:array<f32>;
@compute @workgroup_size(4) fn r_3_4_250_4(@builtin(workgroup_id) gindex: vec3<u32>,@builtin(local_invocation_id) lindex: vec3<u32>) {
  var buf0: array<f32,1>;
  var gidx0 = i32(gindex.x); /* 3 */
  var lidx0 = i32(lindex.x); /* 4 */
  buf0[0] = 0.0f;
  for (var Ridx0 = 0; Ridx0 < 250; Ridx0++) {
    var alu1 = ((gidx0*4000)+(lidx0*1000)+bitcast<i32>((bitcast<u32>(Ridx0)<<2u)));
    var val0 = data1_12000[(alu1+1)];
    var val1 = data1_12000[(alu1+2)];
    var val2 = data1_12000[(alu1+3)];
    var val3 = data1_12000[alu1];
    buf0[0] = (buf0[0]+val3+val0+val1+val2);
  }
  data0_12[(lidx0+bitcast<i32>((bitcast<u32>(gidx0)<<2u)))] = buf0[0];
}
"""

_TG_ROW_MAX_CUDA = r"""
typedef unsigned int uint;
#define INFINITY (__int_as_float(0x7f800000))
#define NAN (__int_as_float(0x7fffffff))
template <class T, class F> __device__ __forceinline__ T tg_bitcast(F v) { union U { F f; T t; }; U u; u.f = v; return u.t; }
extern "C" __global__ void __launch_bounds__(16) r_8_16_6(float* data0_8, float* data1_768) {
  float buf0[1];
  float buf1[1];
  __shared__ __align__(16) float buf2[16];
  int gidx0 = blockIdx.x; /* 8 */
  int lidx0 = threadIdx.x; /* 16 */
  *(buf0+0) = ((float)(-INFINITY));
  for (int Ridx0 = 0; Ridx0 < 6; Ridx0++) {
    float val0 = (*(data1_768+((lidx0*6)+Ridx0+(gidx0*96))));
    float val1 = (*(buf0+0));
    float alu1 = ((val1<val0)?val0:val1);
    *(buf0+0) = alu1;
  }
  *(buf2+lidx0) = (*(buf0+0));
  __syncthreads();
  *(buf1+0) = ((float)(-INFINITY));
  for (int Ridx102 = 0; Ridx102 < 16; Ridx102++) {
    float val2 = (*(buf2+Ridx102));
    float val3 = (*(buf1+0));
    float alu7 = ((val3<val2)?val2:val3);
    *(buf1+0) = alu7;
  }
  if ((lidx0==0)) {
    *(data0_8+gidx0) = (*(buf1+0));
  }
}
"""

_TG_ROW_MAX_WGSL = """
fn nan() -> f32 { let bits = 0xffffffffu; return bitcast<f32>(bits); }
@group(0) @binding(0)
var<uniform> INFINITY : f32;
var<workgroup> buf2: array<f32,16>;
@group(0) @binding(1)var<storage,read_write>data0_8:array<f32>;
@group(0) @binding(2)var<storage,read_write>data1_768:array<f32>;
@compute @workgroup_size(16) fn r_8_16_6(@builtin(workgroup_id) gindex: vec3<u32>,@builtin(local_invocation_id) lindex: vec3<u32>) {
  var buf0: array<f32,1>;
  var buf1: array<f32,1>;
  var gidx0 = i32(gindex.x); /* 8 */
  var lidx0 = i32(lindex.x); /* 16 */
  buf0[0] = (f32(-INFINITY));
  for (var Ridx0 = 0; Ridx0 < 6; Ridx0++) {
    var val0 = data1_768[((lidx0*6)+Ridx0+(gidx0*96))];
    var val1 = buf0[0];
    var alu1 = select(val1,val0,(val1<val0));
    buf0[0] = alu1;
  }
  buf2[lidx0] = buf0[0];
  workgroupBarrier();
  buf1[0] = (f32(-INFINITY));
  for (var Ridx102 = 0; Ridx102 < 16; Ridx102++) {
    var val2 = buf2[Ridx102];
    var val3 = buf1[0];
    var alu7 = select(val3,val2,(val3<val2));
    buf1[0] = alu7;
  }
  if ((lidx0==0)) {
    data0_8[gidx0] = buf1[0];
  }
}
"""

_TG_MATMUL_CUDA = r"""
typedef unsigned int uint;
#define INFINITY (__int_as_float(0x7f800000))
#define NAN (__int_as_float(0x7fffffff))
template <class T, class F> __device__ __forceinline__ T tg_bitcast(F v) { union U { F f; T t; }; U u; u.f = v; return u.t; }
extern "C" __global__ void __launch_bounds__(128) r_5_32_4_4_3_32_4(float* data0_7680, float* data1_12288, float* data2_10240) {
  float buf0[12];
  int gidx0 = blockIdx.x; /* 5 */
  int lidx0 = threadIdx.x; /* 32 */
  int lidx1 = threadIdx.y; /* 4 */
  int alu0 = ((gidx0<<4)+(lidx1<<2));
  *(buf0+0) = 0.0f;
  *(buf0+1) = 0.0f;
  *(buf0+2) = 0.0f;
  *(buf0+3) = 0.0f;
  *(buf0+4) = 0.0f;
  *(buf0+5) = 0.0f;
  *(buf0+6) = 0.0f;
  *(buf0+7) = 0.0f;
  *(buf0+8) = 0.0f;
  *(buf0+9) = 0.0f;
  *(buf0+10) = 0.0f;
  *(buf0+11) = 0.0f;
  for (int Ridx0 = 0; Ridx0 < 32; Ridx0++) {
    int alu13 = ((lidx0*384)+(Ridx0<<2));
    float4 val0 = (*((float4*)((data1_12288+(alu13+128)))));
    float4 val1 = (*((float4*)((data1_12288+(alu13+256)))));
    float4 val2 = (*((float4*)((data1_12288+alu13))));
    int alu14 = (alu0+(Ridx0*320));
    float4 val3 = (*((float4*)((data2_10240+(alu14+80)))));
    float4 val4 = (*((float4*)((data2_10240+(alu14+160)))));
    float4 val5 = (*((float4*)((data2_10240+(alu14+240)))));
    float4 val6 = (*((float4*)((data2_10240+alu14))));
    *(buf0+0) = ((*(buf0+0))+(val2.x*val6.x)+(val2.y*val3.x)+(val2.z*val4.x)+(val2.w*val5.x));
    *(buf0+1) = ((*(buf0+1))+(val0.x*val6.x)+(val0.y*val3.x)+(val0.z*val4.x)+(val0.w*val5.x));
    *(buf0+2) = ((*(buf0+2))+(val1.x*val6.x)+(val1.y*val3.x)+(val1.z*val4.x)+(val1.w*val5.x));
    *(buf0+3) = ((*(buf0+3))+(val2.x*val6.y)+(val2.y*val3.y)+(val2.z*val4.y)+(val2.w*val5.y));
    *(buf0+4) = ((*(buf0+4))+(val0.x*val6.y)+(val0.y*val3.y)+(val0.z*val4.y)+(val0.w*val5.y));
    *(buf0+5) = ((*(buf0+5))+(val1.x*val6.y)+(val1.y*val3.y)+(val1.z*val4.y)+(val1.w*val5.y));
    *(buf0+6) = ((*(buf0+6))+(val2.x*val6.z)+(val2.y*val3.z)+(val2.z*val4.z)+(val2.w*val5.z));
    *(buf0+7) = ((*(buf0+7))+(val0.x*val6.z)+(val0.y*val3.z)+(val0.z*val4.z)+(val0.w*val5.z));
    *(buf0+8) = ((*(buf0+8))+(val1.x*val6.z)+(val1.y*val3.z)+(val1.z*val4.z)+(val1.w*val5.z));
    *(buf0+9) = ((*(buf0+9))+(val2.x*val6.w)+(val2.y*val3.w)+(val2.z*val4.w)+(val2.w*val5.w));
    *(buf0+10) = ((*(buf0+10))+(val0.x*val6.w)+(val0.y*val3.w)+(val0.z*val4.w)+(val0.w*val5.w));
    *(buf0+11) = ((*(buf0+11))+(val1.x*val6.w)+(val1.y*val3.w)+(val1.z*val4.w)+(val1.w*val5.w));
  }
  int alu28 = (alu0+(lidx0*240));
  *((float4*)((data0_7680+(alu28+80)))) = make_float4((*(buf0+1)),(*(buf0+4)),(*(buf0+7)),(*(buf0+10)));
  *((float4*)((data0_7680+(alu28+160)))) = make_float4((*(buf0+2)),(*(buf0+5)),(*(buf0+8)),(*(buf0+11)));
  *((float4*)((data0_7680+alu28))) = make_float4((*(buf0+0)),(*(buf0+3)),(*(buf0+6)),(*(buf0+9)));
}
"""

_TG_MATMUL_WGSL = """
fn nan() -> f32 { let bits = 0xffffffffu; return bitcast<f32>(bits); }
@group(0) @binding(0)
var<uniform> INFINITY : f32;
@group(0) @binding(1)var<storage,read_write>data0_7680:array<f32>;
@group(0) @binding(2)var<storage,read_write>data1_12288:array<f32>;
@group(0) @binding(3)var<storage,read_write>data2_10240:array<f32>;
@compute @workgroup_size(32,4) fn r_5_32_4_4_3_32_4(@builtin(workgroup_id) gindex: vec3<u32>,@builtin(local_invocation_id) lindex: vec3<u32>) {
  var buf0: array<f32,12>;
  var gidx0 = i32(gindex.x); /* 5 */
  var lidx0 = i32(lindex.x); /* 32 */
  var lidx1 = i32(lindex.y); /* 4 */
  var alu0 = (bitcast<i32>((bitcast<u32>(gidx0)<<4u))+bitcast<i32>((bitcast<u32>(lidx1)<<2u)));
  buf0[0] = 0.0f;
  buf0[1] = 0.0f;
  buf0[2] = 0.0f;
  buf0[3] = 0.0f;
  buf0[4] = 0.0f;
  buf0[5] = 0.0f;
  buf0[6] = 0.0f;
  buf0[7] = 0.0f;
  buf0[8] = 0.0f;
  buf0[9] = 0.0f;
  buf0[10] = 0.0f;
  buf0[11] = 0.0f;
  for (var Ridx0 = 0; Ridx0 < 32; Ridx0++) {
    var alu13 = ((lidx0*384)+bitcast<i32>((bitcast<u32>(Ridx0)<<2u)));
    var val0 = data1_12288[(alu13+1)];
    var val1 = data1_12288[(alu13+2)];
    var val2 = data1_12288[(alu13+3)];
    var val3 = data1_12288[(alu13+128)];
    var val4 = data1_12288[(alu13+129)];
    var val5 = data1_12288[(alu13+130)];
    var val6 = data1_12288[(alu13+131)];
    var val7 = data1_12288[(alu13+256)];
    var val8 = data1_12288[(alu13+257)];
    var val9 = data1_12288[(alu13+258)];
    var val10 = data1_12288[(alu13+259)];
    var val11 = data1_12288[alu13];
    var alu14 = (alu0+(Ridx0*320));
    var val12 = data2_10240[alu14];
    var val13 = data2_10240[(alu14+1)];
    var val14 = data2_10240[(alu14+2)];
    var val15 = data2_10240[(alu14+3)];
    var val16 = data2_10240[(alu14+80)];
    var val17 = data2_10240[(alu14+81)];
    var val18 = data2_10240[(alu14+82)];
    var val19 = data2_10240[(alu14+83)];
    var val20 = data2_10240[(alu14+160)];
    var val21 = data2_10240[(alu14+161)];
    var val22 = data2_10240[(alu14+162)];
    var val23 = data2_10240[(alu14+163)];
    var val24 = data2_10240[(alu14+240)];
    var val25 = data2_10240[(alu14+241)];
    var val26 = data2_10240[(alu14+242)];
    var val27 = data2_10240[(alu14+243)];
    buf0[0] = (buf0[0]+(val11*val12)+(val0*val16)+(val1*val20)+(val2*val24));
    buf0[1] = (buf0[1]+(val3*val12)+(val4*val16)+(val5*val20)+(val6*val24));
    buf0[2] = (buf0[2]+(val7*val12)+(val8*val16)+(val9*val20)+(val10*val24));
    buf0[3] = (buf0[3]+(val11*val13)+(val0*val17)+(val1*val21)+(val2*val25));
    buf0[4] = (buf0[4]+(val3*val13)+(val4*val17)+(val5*val21)+(val6*val25));
    buf0[5] = (buf0[5]+(val7*val13)+(val8*val17)+(val9*val21)+(val10*val25));
    buf0[6] = (buf0[6]+(val11*val14)+(val0*val18)+(val1*val22)+(val2*val26));
    buf0[7] = (buf0[7]+(val3*val14)+(val4*val18)+(val5*val22)+(val6*val26));
    buf0[8] = (buf0[8]+(val7*val14)+(val8*val18)+(val9*val22)+(val10*val26));
    buf0[9] = (buf0[9]+(val11*val15)+(val0*val19)+(val1*val23)+(val2*val27));
    buf0[10] = (buf0[10]+(val3*val15)+(val4*val19)+(val5*val23)+(val6*val27));
    buf0[11] = (buf0[11]+(val7*val15)+(val8*val19)+(val9*val23)+(val10*val27));
  }
  var alu28 = (alu0+(lidx0*240));
  data0_7680[alu28] = buf0[0];
  data0_7680[(alu28+1)] = buf0[3];
  data0_7680[(alu28+2)] = buf0[6];
  data0_7680[(alu28+3)] = buf0[9];
  data0_7680[(alu28+80)] = buf0[1];
  data0_7680[(alu28+81)] = buf0[4];
  data0_7680[(alu28+82)] = buf0[7];
  data0_7680[(alu28+83)] = buf0[10];
  data0_7680[(alu28+160)] = buf0[2];
  data0_7680[(alu28+161)] = buf0[5];
  data0_7680[(alu28+162)] = buf0[8];
  data0_7680[(alu28+163)] = buf0[11];
}
"""


def _infinity(rng, count, size):
    # what tinygrad's WebGPU runtime writes to binding 0 before each launch
    return np.full(count, np.inf, np.float32)


def _tg_infinity() -> BufferSpec:
    return BufferSpec(0, "f32", "read", name="INFINITY", count=1, fill=_infinity)


def _tg_row_sum_reference(data1_12000):
    return data1_12000.astype(np.float64).sum(axis=1).astype(np.float32)


TG_ROW_SUM = Wild(
    KernelSpec(
        id="wild_r33_tinygrad_r_3_4_250_4_row_sum_float4",
        entry_point="r_3_4_250_4",
        sources={"cuda": _TG_ROW_SUM_CUDA, "wgsl": _TG_ROW_SUM_WGSL},
        buffers=(
            _tg_infinity(),
            BufferSpec(1, "f32", "read_write", name="data0_12", count=12),
            BufferSpec(2, "f32", "read", name="data1_12000", count=12000, shape=(12, 1000)),
        ),
        reference=_tg_row_sum_reference,
        # Tensor.empty(12, 1000).sum(axis=1): global (3,), local (4,)
        grid=lambda s, n: (3, 1, 1),
        schedules=(Schedule(4),),
        test_sizes=(12000,),
    ),
    {
        "CUDA: float4 loads one past the row": (
            "cuda",
            "(lidx0*1000)+(Ridx0<<2)",
            "(lidx0*1000)+(Ridx0<<2)+1",
        ),
        "CUDA: rows at stride 4000 per thread": (
            "cuda",
            "(gidx0*4000)+(lidx0*1000)",
            "(gidx0*4000)+(lidx0*4000)",
        ),
        "CUDA: last float4 of each row dropped": ("cuda", "Ridx0 < 250", "Ridx0 < 249"),
        "last four of each row dropped": ("wgsl", "Ridx0 < 250", "Ridx0 < 249"),
        "one lane of the unrolled four not added": (
            "wgsl",
            "(buf0[0]+val3+val0+val1+val2)",
            "(buf0[0]+val3+val0+val1)",
        ),
        "output indexed by block alone": (
            "wgsl",
            "data0_12[(lidx0+bitcast<i32>((bitcast<u32>(gidx0)<<2u)))]",
            "data0_12[(lidx0+bitcast<i32>((bitcast<u32>(gidx0)<<1u)))]",
        ),
        "unrolled loads one element past the group": (
            "wgsl",
            "var val2 = data1_12000[(alu1+3)];",
            "var val2 = data1_12000[(alu1+4)];",
        ),
    },
)


def _tg_row_max_reference(data1_768):
    return data1_768.max(axis=1)


TG_ROW_MAX = Wild(
    KernelSpec(
        id="wild_r33_tinygrad_r_8_16_6_row_max_grouptop_infinity_uniform",
        entry_point="r_8_16_6",
        sources={"cuda": _TG_ROW_MAX_CUDA, "wgsl": _TG_ROW_MAX_WGSL},
        buffers=(
            _tg_infinity(),
            BufferSpec(1, "f32", "read_write", name="data0_8", count=8),
            BufferSpec(2, "f32", "read", name="data1_768", count=768, shape=(8, 96)),
        ),
        reference=_tg_row_max_reference,
        # Tensor.empty(8, 96).max(axis=1) (softmax's first kernel): GROUPTOP 16
        grid=lambda s, n: (8, 1, 1),
        schedules=(Schedule(16),),
        test_sizes=(768,),
    ),
    {
        "CUDA: identity 0 for max": (
            "cuda",
            "*(buf0+0) = ((float)(-INFINITY));",
            "*(buf0+0) = 0.0f;",
        ),
        "CUDA: no barrier before the group's reduce": ("cuda", "__syncthreads();", ""),
        "CUDA: group reduce reads 15 of 16": ("cuda", "Ridx102 < 16", "Ridx102 < 15"),
        "identity 0 for max": ("wgsl", "buf0[0] = (f32(-INFINITY));", "buf0[0] = 0.0f;"),
        "identity +INFINITY for max": (
            "wgsl",
            "buf0[0] = (f32(-INFINITY));",
            "buf0[0] = (f32(INFINITY));",
        ),
        "no barrier before the group's reduce": ("wgsl", "workgroupBarrier();", ""),
        "each thread's run drops its last element": ("wgsl", "Ridx0 < 6", "Ridx0 < 5"),
        "min, not max": ("wgsl", "select(val1,val0,(val1<val0))", "select(val0,val1,(val1<val0))"),
    },
)


def _tg_matmul_reference(data1_12288, data2_10240):
    return (data1_12288.astype(np.float64) @ data2_10240.astype(np.float64)).astype(np.float32)


TG_MATMUL = Wild(
    KernelSpec(
        id="wild_r33_tinygrad_r_5_32_4_4_3_32_4_matmul_upcast_float4",
        entry_point="r_5_32_4_4_3_32_4",
        sources={"cuda": _TG_MATMUL_CUDA, "wgsl": _TG_MATMUL_WGSL},
        buffers=(
            _tg_infinity(),
            BufferSpec(1, "f32", "read_write", name="data0_7680", count=7680, shape=(96, 80)),
            BufferSpec(2, "f32", "read", name="data1_12288", count=12288, shape=(96, 128)),
            BufferSpec(3, "f32", "read", name="data2_10240", count=10240, shape=(128, 80)),
        ),
        reference=_tg_matmul_reference,
        # Tensor.empty(96, 128) @ Tensor.empty(128, 80): global (5,), local (32, 4),
        # 3 x 4 outputs a thread; TC=0 for CUDA (see _TG_MATMUL_CUDA's note)
        grid=lambda s, n: (5, 1, 1),
        schedules=(Schedule((32, 4)),),
        test_sizes=(7680,),
    ),
    {
        "CUDA: K loop stops a float4 early": ("cuda", "Ridx0 < 32", "Ridx0 < 31"),
        "CUDA: A's rows a thread at stride 128": ("cuda", "(lidx0*384)", "(lidx0*128)"),
        "CUDA: float4 store of the second row one row late": (
            "cuda",
            "(data0_7680+(alu28+80))",
            "(data0_7680+(alu28+160))",
        ),
        "CUDA: B's row stride 80": ("cuda", "(Ridx0*320)", "(Ridx0*80)"),
        "K loop stops four early": ("wgsl", "Ridx0 < 32", "Ridx0 < 31"),
        "B's lane 1 read from lane 0": (
            "wgsl",
            "buf0[0] = (buf0[0]+(val11*val12)+(val0*val16)",
            "buf0[0] = (buf0[0]+(val11*val12)+(val0*val12)",
        ),
        "outputs stored transposed in the tile": (
            "wgsl",
            "data0_7680[(alu28+1)] = buf0[3];",
            "data0_7680[(alu28+1)] = buf0[1];",
        ),
        "A's rows a thread at stride 128": ("wgsl", "(lidx0*384)", "(lidx0*128)"),
    },
)


# -- HuggingFace candle's CUDA kernels (candle-kernels/src) --------------------------------
# After huggingface/candle at 2a13b0f3 (2026-08-14): read, not copied. Each source is the
# kernel reduced to the one instantiation the spec runs, with what it calls of
# cuda_utils.cuh (candle's ``is_contiguous``, ``get_strided_index``, ``maxg``, ``expg``)
# written in our words beside it, since ``#include "cuda_utils.cuh"`` (and
# compatibility.cuh behind it) is not on NVRTC's path here; the macro's other
# instantiations (f16, bf16, fp8, f64, u8...) left out. The
# arguments are as candle-core's cuda_backend binds them (``barg!`` of ``usize``s, a
# ``dims_and_strides``/``info`` slice of ``usize``s); the WGSL ports take the same
# ``size_t`` array as ``vec2<u32>`` pairs (low word first) and the scalars in a uniform.

_CANDLE_UTILS = r"""
#include <stdint.h>
#include <cmath>

// what these kernels need of candle's cuda_utils.cuh, float only

// a layout is contiguous when every stride is the product of the dims inside it (a dim
// of 1 may have any stride)
__device__ bool layout_is_contiguous(const size_t num_dims, const size_t *dims,
                                     const size_t *strides) {
    size_t expected = 1;
    for (unsigned int k = num_dims; k-- > 0;) {
        if (dims[k] > 1 && expected != strides[k]) return false;
        expected *= dims[k];
    }
    return true;
}

// the offset of the idx-th element (in row-major order of dims) in a strided layout
__device__ unsigned int strided_offset(unsigned int idx, const size_t num_dims,
                                       const size_t *dims, const size_t *strides) {
    unsigned int offset = 0;
    for (unsigned int k = num_dims; k-- > 0;) {
        offset += (idx % dims[k]) * strides[k];
        idx /= dims[k];
    }
    return offset;
}

__device__ __forceinline__ float max_of(float a, float b) { return fmaxf(a, b); }
__device__ __forceinline__ float exp_of(float a) { return expf(a); }
"""

# -- candle binary.cu: bmul_f32 over a transposed lhs and a broadcast rhs ------------------

_CANDLE_BMUL_CUDA = (
    _CANDLE_UTILS
    + r"""
// out = FUNC(x, y) element by element, each operand read through its own strides:
// dims_and_strides holds the dims, then lhs's strides, then rhs's (num_dims each). A
// contiguous operand is read at the element's own index; a null dims_and_strides
// means both are. One macro declares the kernel, another stamps it out per type.
#define BINARY_OP_OUT(TYPENAME, OUT_TYPENAME, FN_NAME, FUNC) \
extern "C" __global__ void FN_NAME( \
    const size_t numel, \
    const size_t num_dims, \
    const size_t *dims_and_strides, \
    const TYPENAME *lhs, \
    const TYPENAME *rhs, \
    OUT_TYPENAME *out \
) { \
    const size_t *dims = dims_and_strides; \
    const size_t *lhs_strides = dims_and_strides + 1 * num_dims; \
    const size_t *rhs_strides = dims_and_strides + 2 * num_dims; \
    const bool lhs_flat = dims_and_strides == nullptr \
        || layout_is_contiguous(num_dims, dims, lhs_strides); \
    const bool rhs_flat = dims_and_strides == nullptr \
        || layout_is_contiguous(num_dims, dims, rhs_strides); \
    const unsigned int step = blockDim.x * gridDim.x; \
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < numel; i += step) { \
        unsigned int at_lhs = i; \
        unsigned int at_rhs = i; \
        if (!(lhs_flat && rhs_flat)) { \
            unsigned int rest = i; \
            unsigned int lo = 0; \
            unsigned int ro = 0; \
            for (int d = num_dims - 1; d >= 0; d--) { \
                const unsigned int i_dim = rest % dims[d]; \
                lo += i_dim * lhs_strides[d]; \
                ro += i_dim * rhs_strides[d]; \
                rest /= dims[d]; \
            } \
            if (!lhs_flat) at_lhs = lo; \
            if (!rhs_flat) at_rhs = ro; \
        } \
        const TYPENAME x = lhs[at_lhs]; \
        const TYPENAME y = rhs[at_rhs]; \
        out[i] = FUNC; \
    } \
}

#define BINARY_OP(TYPENAME, FN_NAME, FUNC) BINARY_OP_OUT(TYPENAME, TYPENAME, FN_NAME, FUNC)

BINARY_OP(float, bmul_f32, x * y)
"""
)

_CANDLE_BMUL_WGSL = """
// a WebGPU port of candle's bmul_f32: the dims_and_strides usizes read as (low, high)
// u32 pairs, one grid-stride loop with the contiguous shortcuts as selects
struct Params { numel: u32, num_dims: u32 }
@group(0) @binding(0) var<storage, read> dims_and_strides: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read> lhs: array<f32>;
@group(0) @binding(2) var<storage, read> rhs: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

fn is_contiguous(strides: u32) -> bool {
    var acc = 1u;
    for (var d = 0u; d < p.num_dims; d++) {
        let dim_idx = p.num_dims - 1u - d;
        let dim = dims_and_strides[dim_idx].x;
        if (dim > 1u && acc != dims_and_strides[strides + dim_idx].x) {
            return false;
        }
        acc *= dim;
    }
    return true;
}

@compute @workgroup_size(256)
fn bmul_f32(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let lhs_strides = 1u * p.num_dims;
    let rhs_strides = 2u * p.num_dims;
    let lhs_cont = is_contiguous(lhs_strides);
    let rhs_cont = is_contiguous(rhs_strides);
    for (var i = gid.x; i < p.numel; i += 256u * nwg.x) {
        var tmp_i = i;
        var lhs_i = 0u;
        var rhs_i = 0u;
        for (var d = i32(p.num_dims) - 1; d >= 0; d--) {
            let dim = dims_and_strides[d].x;
            let i_dim = tmp_i % dim;
            lhs_i += i_dim * dims_and_strides[lhs_strides + u32(d)].x;
            rhs_i += i_dim * dims_and_strides[rhs_strides + u32(d)].x;
            tmp_i /= dim;
        }
        let x = lhs[select(lhs_i, i, lhs_cont)];
        let y = rhs[select(rhs_i, i, rhs_cont)];
        out[i] = x * y;
    }
}
"""


def _bmul_layout(rng, count, size):
    # out = x.transpose(1, 2) * w: x a contiguous (B, C, T), seen as (B, T, C); w a (C,)
    # broadcast over B and T (stride 0), as candle's Layout::broadcast_as gives it
    B, T, C = size.B, size.T, size.C
    return np.array([B, T, C, C * T, 1, T, 0, 0, 1], np.uint64)


def _bmul_reference(lhs, rhs):
    return (lhs.astype(np.float64).transpose(0, 2, 1) * rhs.astype(np.float64)).astype(np.float32)


CANDLE_BMUL = Wild(
    KernelSpec(
        id="wild_r33_candle_bmul_f32_strided_lhs_broadcast_rhs_dims_and_strides",
        entry_point="bmul_f32",
        sources={"cuda": _CANDLE_BMUL_CUDA, "wgsl": _CANDLE_BMUL_WGSL},
        dims=("B", "T", "C"),
        buffers=(
            BufferSpec(0, "u64", "read", name="dims_and_strides", count=9, fill=_bmul_layout),
            BufferSpec(1, "f32", "read", name="lhs", count="B*C*T", shape=("B", "C", "T")),
            BufferSpec(2, "f32", "read", name="rhs", count="C"),
            BufferSpec(3, "f32", "read_write", name="out", count="B*T*C", shape=("B", "T", "C")),
            BufferSpec.uniform(4, (("numel", "u32"), ("num_dims", "u32"))),
        ),
        reference=_bmul_reference,
        params=lambda s: {"numel": s.B * s.T * s.C, "num_dims": 3},
        # cudarc's LaunchConfig::for_num_elems is 1024 threads a block; 256 here, which
        # WebGPU's default limits allow (the grid-stride loop is right for either)
        grid=lambda sch, s: (ceil_div(s.B * s.T * s.C, 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=("2x7x33", "1x1x5", "3x40x24"),
    ),
    {
        "CUDA: rhs strides read from lhs's": (
            "cuda",
            "ro += i_dim * rhs_strides[d];",
            "ro += i_dim * lhs_strides[d];",
        ),
        "CUDA: rhs strides one dimension off": (
            "cuda",
            "const size_t *rhs_strides = dims_and_strides + 2 * num_dims;",
            "const size_t *rhs_strides = dims_and_strides + 2 * num_dims - 1;",
        ),
        "CUDA: strided index walks the dims from the front": (
            "cuda",
            "for (int d = num_dims - 1; d >= 0; d--) {",
            "for (int d = 0; d < num_dims; d++) {",
        ),
        "rhs strides read from lhs's": (
            "wgsl",
            "rhs_i += i_dim * dims_and_strides[rhs_strides + u32(d)].x;",
            "rhs_i += i_dim * dims_and_strides[lhs_strides + u32(d)].x;",
        ),
        "strided index walks the dims from the front": (
            "wgsl",
            "for (var d = i32(p.num_dims) - 1; d >= 0; d--) {",
            "for (var d = 0; d < i32(p.num_dims); d++) {",
        ),
        "index not divided down": ("wgsl", "tmp_i /= dim;", ""),
        "size_t read from its high word": (
            "wgsl",
            "lhs_i += i_dim * dims_and_strides[lhs_strides + u32(d)].x;",
            "lhs_i += i_dim * dims_and_strides[lhs_strides + u32(d)].y;",
        ),
    },
)


# -- candle reduce.cu: fast_max_f32 over a middle dimension (dims and strides in info) ------

_CANDLE_FAST_MAX_CUDA = (
    _CANDLE_UTILS
    + r"""
const int BLOCK_SIZE = 1024;

// one output a block: the max over el_to_sum_per_block consecutive logical elements
// (info's layout has the reduced dims last), each read through the strides, at most
// 1024 threads; then a shared-memory tree, the barrier at the head of each step
template <typename T>
__device__ void fast_max(const size_t src_numel, const size_t el_to_sum_per_block,
                         const size_t num_dims, const size_t *info, const T *src, T *dst) {
  __shared__ T shr[BLOCK_SIZE];
  const size_t *dims = info;
  const size_t *strides = info + num_dims;
  const size_t tid = threadIdx.x;
  const size_t out_at = blockIdx.x;
  const size_t start_idx = out_at * el_to_sum_per_block;
  size_t stop_idx = min(start_idx + el_to_sum_per_block, src_numel);

  shr[tid] = -INFINITY;
  for (size_t idx = start_idx + tid; idx < stop_idx; idx += blockDim.x) {
    shr[tid] = max_of(shr[tid], src[strided_offset(idx, num_dims, dims, strides)]);
  }
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    __syncthreads();
    if (tid < s) shr[tid] = max_of(shr[tid], shr[tid + s]);
  }
  if (tid == 0) dst[out_at] = shr[0];
}

extern "C" __global__ void fast_max_f32(const size_t src_numel,
                                        const size_t el_to_sum_per_block,
                                        const size_t num_dims, const size_t *info,
                                        const float *src, float *dst) {
  fast_max(src_numel, el_to_sum_per_block, num_dims, info, src, dst);
}
"""
)

_CANDLE_FAST_MAX_WGSL = """
// a WebGPU port of candle's fast_max: one workgroup an output, as many invocations as
// candle's block (the next power of two of the reduced length, at most 1024; WebGPU's
// default limits stop at 256, so lengths past 128 take a 256 workgroup and loop)
struct Params { src_numel: u32, el_to_sum_per_block: u32, num_dims: u32 }
@group(0) @binding(0) var<storage, read> info: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

override BLOCK_SIZE: u32;  // the launch's block (its own schedule), set per launch
var<workgroup> shr: array<f32, BLOCK_SIZE>;

fn get_strided_index(i: u32) -> u32 {
    var idx = i;
    var strided_i = 0u;
    for (var d = 0u; d < p.num_dims; d++) {
        let dim_idx = p.num_dims - 1u - d;
        let dim = info[dim_idx].x;
        strided_i += (idx % dim) * info[p.num_dims + dim_idx].x;
        idx /= dim;
    }
    return strided_i;
}

@compute @workgroup_size(BLOCK_SIZE)
fn fast_max_f32(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let tid = lid.x;
    let dst_id = wg.x;
    let neg_inf = 0xff800000u;  // -INFINITY, made at run time (a const one is an error)
    var m = bitcast<f32>(neg_inf);
    let start_idx = dst_id * p.el_to_sum_per_block;
    let stop_idx = min(start_idx + p.el_to_sum_per_block, p.src_numel);
    for (var idx = start_idx + tid; idx < stop_idx; idx += BLOCK_SIZE) {
        m = max(m, src[get_strided_index(idx)]);
    }
    shr[tid] = m;
    for (var s = BLOCK_SIZE / 2u; s > 0u; s >>= 1u) {
        workgroupBarrier();
        if (tid < s) {
            shr[tid] = max(shr[tid], shr[tid + s]);
        }
    }
    if (tid == 0u) {
        dst[dst_id] = shr[0];
    }
}
"""


def _fast_max_info(rng, count, size):
    # x.max(1) of a contiguous (A, B, C): candle's FastReduce puts the kept dims first
    # and the reduced one last, each with its stride: dims (A, C, B), strides (BC, 1, C)
    A, B, C = size.A, size.B, size.C
    return np.array([A, C, B, B * C, 1, C], np.uint64)


def _fast_max_block(schedule, size):
    # min(1024, el_to_sum_per_block).next_power_of_two(), as cuda_backend launches it;
    # WGSL: at most 256 (see the port's note)
    return Schedule(min(256, 1 << max(0, (size.B - 1).bit_length())))


def _fast_max_reference(src):
    return src.max(axis=1)


CANDLE_FAST_MAX = Wild(
    KernelSpec(
        id="wild_r33_candle_fast_max_f32_middle_dim_info_strides",
        entry_point="fast_max_f32",
        sources={"cuda": _CANDLE_FAST_MAX_CUDA, "wgsl": _CANDLE_FAST_MAX_WGSL},
        dims=("A", "B", "C"),
        buffers=(
            BufferSpec(0, "u64", "read", name="info", count=6, fill=_fast_max_info),
            BufferSpec(1, "f32", "read", name="src", count="A*B*C", shape=("A", "B", "C")),
            BufferSpec(2, "f32", "read_write", name="dst", count="A*C", shape=("A", "C")),
            BufferSpec.uniform(
                3, (("src_numel", "u32"), ("el_to_sum_per_block", "u32"), ("num_dims", "u32"))
            ),
        ),
        reference=_fast_max_reference,
        params=lambda s: {"src_numel": s.A * s.B * s.C, "el_to_sum_per_block": s.B, "num_dims": 3},
        launches=(
            Dispatch(
                "fast_max_f32",
                grid=lambda sch, s: (s.A * s.C, 1, 1),
                schedule=_fast_max_block,
                overrides={"BLOCK_SIZE": lambda sch, s: sch.workgroup_size[0]},
            ),
        ),
        test_sizes=("3x37x5", "2x300x3", "4x1x7", "1x64x16"),
    ),
    {
        "CUDA: identity 0 for max": ("cuda", "shr[tid] = -INFINITY;", "shr[tid] = 0;"),
        "CUDA: barrier after the tree step instead of before": (
            "cuda",
            "    __syncthreads();\n    if (tid < s) shr[tid] = max_of(shr[tid], shr[tid + s]);",
            "    if (tid < s) shr[tid] = max_of(shr[tid], shr[tid + s]);\n    __syncthreads();",
        ),
        "CUDA: strides taken from the dims": (
            "cuda",
            "const size_t *strides = info + num_dims;",
            "const size_t *strides = info;",
        ),
        "CUDA: the block's span ends one short": (
            "cuda",
            "size_t stop_idx = min(start_idx + el_to_sum_per_block, src_numel);",
            "size_t stop_idx = min(start_idx + el_to_sum_per_block - 1, src_numel);",
        ),
        "identity 0 for max": ("wgsl", "var m = bitcast<f32>(neg_inf);", "var m = 0.0;"),
        "no barrier in the tree": ("wgsl", "        workgroupBarrier();\n", ""),
        "strides taken from the dims": (
            "wgsl",
            "info[p.num_dims + dim_idx].x",
            "info[dim_idx].x",
        ),
        "the block's span ends one short": (
            "wgsl",
            "min(start_idx + p.el_to_sum_per_block, p.src_numel)",
            "min(start_idx + p.el_to_sum_per_block - 1u, p.src_numel)",
        ),
        "tree starts at a quarter": (
            "wgsl",
            "var s = BLOCK_SIZE / 2u;",
            "var s = BLOCK_SIZE / 4u;",
        ),
    },
)


# -- candle reduce.cu: softmax_f32 (ggml's, a warp a row along threadIdx.y) -----------------

_CANDLE_SOFTMAX_CUDA = (
    _CANDLE_UTILS
    + r"""
// a row a block of (1, 32, 1), candle-nn's launch: the warp runs along threadIdx.y over
// the row's columns; the max and then the sum of exps reduced by xor butterflies over
// the 32 lanes, the exps written out and then scaled in place
template <typename T, typename ACC>
__device__ void softmax(const T * x, T * dst, const int ncols) {
    const int row = blockDim.x*blockIdx.x + threadIdx.x;
    const int block_size = blockDim.y;
    const int tid = threadIdx.y;

    T row_max = -INFINITY;
    for (int c = tid; c < ncols; c += block_size) row_max = max_of(row_max, x[row*ncols + c]);
#pragma unroll
    for (int lane_mask = 16; lane_mask > 0; lane_mask >>= 1)
        row_max = max_of(row_max, __shfl_xor_sync(0xffffffff, row_max, lane_mask, 32));

    ACC sum = 0.;
    for (int c = tid; c < ncols; c += block_size) {
        const T e = exp_of(x[row*ncols + c] - row_max);
        sum += static_cast<ACC>(e);
        dst[row*ncols + c] = e;
    }
#pragma unroll
    for (int lane_mask = 16; lane_mask > 0; lane_mask >>= 1)
        sum += __shfl_xor_sync(0xffffffff, sum, lane_mask, 32);

    const ACC inv_sum = 1. / sum;
    for (int c = tid; c < ncols; c += block_size) dst[row*ncols + c] *= inv_sum;
}

// the kernel is declared by a macro, one instantiation a type
#define SOFTMAX_OP(TYPENAME, ACC_TYPENAME, FN_NAME) \
  extern "C" __global__ void FN_NAME(const TYPENAME *src, TYPENAME *dst, const int n_cols) { \
    softmax<TYPENAME, ACC_TYPENAME>(src, dst, n_cols); \
  }

SOFTMAX_OP(float, float, softmax_f32)
"""
)

_CANDLE_SOFTMAX_WGSL = """
// a WebGPU port of candle's softmax_f32: a workgroup (1, 32) a row, the warp's
// butterflies as a workgroup-memory tree, the exps stored and scaled in place
struct Params { n_cols: i32 }
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

var<workgroup> red: array<f32, 32>;

fn block_reduce(tid: u32, v: f32, is_max: bool) -> f32 {
    red[tid] = v;
    for (var mask = 16u; mask > 0u; mask >>= 1u) {
        workgroupBarrier();
        if (tid < mask) {
            let b = red[tid + mask];
            red[tid] = select(red[tid] + b, max(red[tid], b), is_max);
        }
    }
    workgroupBarrier();
    let r = red[0];
    workgroupBarrier();
    return r;
}

@compute @workgroup_size(1, 32)
fn softmax_f32(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let row = i32(wg.x);
    let block_size = 32;
    let tid = i32(lid.y);
    let ncols = p.n_cols;
    let neg_inf = 0xff800000u;  // -INFINITY, made at run time (a const one is an error)

    var max_val = bitcast<f32>(neg_inf);
    for (var col = tid; col < ncols; col += block_size) {
        max_val = max(max_val, src[row * ncols + col]);
    }
    max_val = block_reduce(lid.y, max_val, true);

    var tmp = 0.0;
    for (var col = tid; col < ncols; col += block_size) {
        let i = row * ncols + col;
        let val = exp(src[i] - max_val);
        tmp += val;
        dst[i] = val;
    }
    tmp = block_reduce(lid.y, tmp, false);

    let inv_tmp = 1.0 / tmp;
    for (var col = tid; col < ncols; col += block_size) {
        let i = row * ncols + col;
        dst[i] *= inv_tmp;
    }
}
"""


def _candle_softmax_reference(src):
    x = src.astype(np.float64)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)


CANDLE_SOFTMAX = Wild(
    KernelSpec(
        id="wild_r33_candle_softmax_f32_ggml_warp_along_y",
        entry_point="softmax_f32",
        sources={"cuda": _CANDLE_SOFTMAX_CUDA, "wgsl": _CANDLE_SOFTMAX_WGSL},
        dims=("R", "C"),
        buffers=(
            BufferSpec(0, "f32", "read", name="src", count="R*C", shape=("R", "C")),
            BufferSpec(1, "f32", "read_write", name="dst", count="R*C", shape=("R", "C")),
            BufferSpec.uniform(2, (("n_cols", "i32"),)),
        ),
        reference=_candle_softmax_reference,
        params=lambda s: {"n_cols": s.C},
        grid=lambda sch, s: (s.R, 1, 1),
        schedules=(Schedule((1, 32)),),
        # rows shorter than the warp, one column, rows of several passes; 32 rows, so
        # that the input families come as whole rows (see the module docstring)
        test_sizes=("32x64", "5x17", "3x1", "4x257"),
    ),
    {
        "CUDA: butterfly over half the warp": (
            "cuda",
            "for (int lane_mask = 16; lane_mask > 0; lane_mask >>= 1)\n        sum +=",
            "for (int lane_mask = 8; lane_mask > 0; lane_mask >>= 1)\n        sum +=",
        ),
        "CUDA: columns stepped by the block's x extent": (
            "cuda",
            "const int block_size = blockDim.y;",
            "const int block_size = blockDim.x;",
        ),
        "CUDA: max not subtracted": (
            "cuda",
            "const T e = exp_of(x[row*ncols + c] - row_max);",
            "const T e = exp_of(x[row*ncols + c]);",
        ),
        "CUDA: identity 0 for max": ("cuda", "T row_max = -INFINITY;", "T row_max = 0;"),
        "max not subtracted": (
            "wgsl",
            "let val = exp(src[i] - max_val);",
            "let val = exp(src[i]);",
        ),
        "identity 0 for max": (
            "wgsl",
            "var max_val = bitcast<f32>(neg_inf);",
            "var max_val = 0.0;",
        ),
        "sum tree stops before the last pair": (
            "wgsl",
            "mask > 0u; mask >>= 1u",
            "mask > 1u; mask >>= 1u",
        ),
        "no barrier between the tree's steps": (
            "wgsl",
            "    for (var mask = 16u; mask > 0u; mask >>= 1u) {\n        workgroupBarrier();\n",
            "    for (var mask = 16u; mask > 0u; mask >>= 1u) {\n",
        ),
        "last column of each pass skipped": (
            "wgsl",
            "        dst[i] *= inv_tmp;",
            "        if (col + 1 < ncols) { dst[i] *= inv_tmp; }",
        ),
    },
)


ROUND33: dict[str, Wild] = {
    w.kernel.id: w
    for w in (TG_ROW_SUM, TG_ROW_MAX, TG_MATMUL, CANDLE_BMUL, CANDLE_FAST_MAX, CANDLE_SOFTMAX)
}

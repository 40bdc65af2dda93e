"""Dense linear algebra IR kernels: gemm (``ir.matmul``) and transpose.

gemm's baselines are the classic 16x16 shared-memory tiling and a 64x64x8 register-
blocked tile; its ``big-gpu`` schedules are 128x128x8 tiles with 8x8 per invocation,
float4 loads, ``a`` stored transposed in shared memory, and register prefetch of the
next tile (docs/PERFORMANCE.md P4); the ``unroll=1`` twins write WGSL's register loops
out (see ``forge/emit/_matmul.py``). All fit WebGPU's 256 invocations and 16 KiB. The
mixed-precision gemm_f16 and gemm_bf16 also have ``mma=1`` schedules, refused on WGSL:
CUDA's tensor cores through WMMA (``forge/emit/_mma.py``), and the fast ones,
``tile=BMxBNxBKxSTAGES``, through mma.sync with ldmatrix and a cp.async pipeline
(``forge/emit/_mma_pipeline.py``); ``kforge tune gemm_f16`` searches the latter.
gemm_tf32 has f32 a and b that it declares TF32 (``input_dtype="tf32"``): every input is
rounded to TF32 (10 mantissa bits, ties away from zero, as ``cvt.rna.tf32.f32``) before
it multiplies, in the reference as in every schedule: the SIMT ones on both targets, and
mma.sync m16n8k8 through the same pipeline on CUDA. gemm_tf32_nt is the same with b
col-major (``x @ w.T``), and gemm_tf32rz_nt that with the inputs truncated to TF32
(``input_dtype="tf32rz"``), as a tensor core reads f32 given to it unconverted (and as
cuBLAS's small TF32 GEMMs compute on the H200; its 4096^3 one rounds), which spares
wgmma the rounding pass.
"""

from __future__ import annotations

import dataclasses
import math

from .. import ir
from ..kernel import KernelSpec
from ..schedule import Schedule

__all__ = [
    "KERNELS",
    "GEMM_SCHEDULES",
    "GEMM_TUNABLES",
    "MMA_SCHEDULES",
    "MMA_PIPELINE_SCHEDULES",
    "MMA_TUNABLES",
    "WGMMA_SCHEDULES",
    "MMA_TF32_SCHEDULES",
    "MMA_TF32_TUNABLES",
    "WGMMA_TF32_SCHEDULES",
    "TRANSPOSE_SCHEDULES",
    "accumulation_tolerance",
    "gemm_tolerance",
    "f32_gemm_tolerance",
]

GEMM_SCHEDULES = (
    Schedule((16, 16), tile=(16, 16, 16)),
    Schedule((16, 16), vector_width=4, tile=(64, 64, 8)),
    Schedule((16, 16), vector_width=4, tile=(128, 128, 8, 2)),
    Schedule((16, 16), vector_width=4, tile=(128, 128, 8)),
    # WGSL with the register loops written out (constant indices): issue 18's 67x gap
    Schedule((16, 16), vector_width=4, tile=(128, 128, 8, 2), unroll=True),
    Schedule((16, 16), vector_width=4, tile=(64, 64, 8), unroll=True),
    # twice the k a barrier: the fastest of 59 unrolled vec4 tiles on the H200's Vulkan
    # (bench.probes wgsl-gemm, 2026-12-03: 33.2 TFLOP/s against 31.2 for 128x128x8x2)
    Schedule((16, 16), vector_width=4, tile=(128, 128, 16), unroll=True),
)
TRANSPOSE_SCHEDULES = (Schedule((32, 8), tile=(32, 32)), Schedule((16, 16), tile=(16, 16)))
#: What ``kforge tune gemm`` searches: workgroup shapes, tiles (BMxBNxBK, with register
#: prefetch as a fourth 2), vector widths and WGSL's written-out register loops; the
#: emitter refuses the combinations it cannot lower, and where unrolling changes nothing
#: (CUDA) the twins compile the same source: the tuner prunes both before running.
GEMM_TUNABLES = {
    "wg": ((8, 8), (16, 8), (8, 16), (16, 16), (32, 8), (8, 32)),
    "tile": (
        (32, 32, 8),
        (64, 64, 8),
        (64, 64, 16),
        (128, 64, 8),
        (64, 128, 8),
        (128, 128, 8),
        (128, 128, 16),
        (64, 64, 8, 2),
        (128, 64, 8, 2),
        (64, 128, 8, 2),
        (128, 128, 8, 2),
    ),
    "vec": (1, 2, 4),
    "unroll": (False, True),
}

GEMM = ir.kernel(
    "gemm",
    ir.matmul("f32"),
    description="c = alpha * a @ b + beta * c, float32, m = n = k = size (c not read when "
    "beta == 0)",
    defaults={"alpha": 1.5, "beta": 0.5},
    schedules=GEMM_SCHEDULES,
    schedule_roles={str(s): "big-gpu" for s in GEMM_SCHEDULES[2:]},
    # k float32 products summed in a different order than the float64 reference: the
    # error scales with sum |a*b| and grows with k (a budget fixed at the test sizes
    # failed every correct schedule of a tune at k = 2048 on the H200).
    domain={"a": (-8.0, 8.0), "b": (-8.0, 8.0), "c": (-8.0, 8.0)},
    tolerance=lambda size: {"f32": f32_gemm_tolerance(int(size), 8.0)},
    nonfinite_inputs=False,
    test_sizes=(67, 1, 130),
    tags=("linalg",),
    # a and b read once, c read and written; the multiply-adds of a @ b (the alpha and
    # beta epilogue, 3*m*n, is not counted, as BLAS benchmarks do not count it).
    bytes_moved="4*(m*k + k*n + 2*m*n)",
    flops="2*m*n*k",
)
GEMM = dataclasses.replace(GEMM, tunables=GEMM_TUNABLES)

TRANSPOSE = ir.kernel(
    "transpose",
    ir.transpose("f32"),
    description="y = x.T for x of rows x cols (rows = size, cols = size + 3)",
    schedules=TRANSPOSE_SCHEDULES,
    tolerance={"f32": {"ulp": 0, "rtol": 0.0, "atol": 0.0}},
    test_sizes=(67, 1, 200),
    tags=("linalg",),
    bytes_moved="8*rows*cols",
    flops=0,
)


def f32_gemm_tolerance(k: int, bound: float, unit_roundoff: float = 2.0**-24) -> dict:
    """The tolerance of a float32 GEMM at this k, inputs uniform in ``[-bound, bound]``:
    ``sqrt(k) * u * sum|a*b|`` with the sum at its mean (``k * bound**2 / 4``), the
    typical size of a k-long float32 sum's rounding error (Higham and Mary with lambda
    = 1). Correct orders of summation err well below it; a GEMM that rounds its inputs
    to TF32 (10 bits) errs about 1/sqrt(3) * 2**-11 * sqrt(k) * rms(a*b), some 4000
    times u, and fails. At least 2e-4 absolute, for the epilogue's roundings where
    ``alpha * acc`` and ``beta * c`` cancel."""
    typical = math.sqrt(k) * unit_roundoff * k * bound * bound / 4
    return {"atol": max(2e-4, typical), "rtol": 1e-4}


def gemm_tolerance(k: int, bound: float) -> dict:
    """``accumulation_tolerance`` at this k (at least the largest test size's k, 130):
    a mixed-precision GEMM's budget at the size it runs, for ``tolerance(size)``."""
    return accumulation_tolerance(max(k, max(_MIXED_SIZES)), bound)


def accumulation_tolerance(k: int, bound: float, unit_roundoff: float = 2.0**-24) -> dict:
    """The output tolerance of a GEMM that sums ``k`` exact products (f16 or bf16 inputs
    in ``[-bound, bound]``) in float32, against the float64 reference.

    Summing k terms in float32 errs by at most ``k * u * sum|a*b|`` and, with
    probability close to 1, by about ``sqrt(k) * u * sum|a*b|`` (Higham and Mary,
    probabilistic rounding error analysis); ``sum|a*b| <= k * bound**2``. The budget is
    four times the probabilistic bound, so it grows with k as k**1.5; ``rtol`` covers
    the epilogue's few float32 roundings (alpha * acc + beta * c)."""
    return {"atol": 4 * math.sqrt(k) * unit_roundoff * k * bound * bound, "rtol": 1e-5}


# Mixed precision: f16/bf16 a and b (their products are exact in f32), f32 accumulation
# and c. Inputs in [-2, 2]; the tolerance is the accumulation bound at the size run
# (at least k = 130: atol 1.4e-3). A GEMM that accumulates in bf16, or drops a k tile, errs
# by 0.1 and more.
_MIXED_SIZES = (67, 1, 130)
_MIXED_BOUND = 2.0


# Tensor cores through WMMA (CUDA; WGSL refuses mma=1): each warp 32x32 of c.
MMA_SCHEDULES = (
    Schedule((32, 4), tile=(64, 64, 32), mma=True),
    Schedule((32, 8), tile=(128, 64, 32), mma=True),
)
# Tensor cores through mma.sync m16n8k16 and a cp.async pipeline (tile=BMxBNxBKxSTAGES):
# 64x64 of c per warp (2x2 warps on 128x128, 2x4 on 128x256, 4x2 on 256x128), 48 KiB of
# static shared memory for the first, dynamic shared memory for the others (the H200
# lets a block have 227 KiB: two 128x128 blocks an SM, one of the 8-warp ones). The
# 8-warp tiles read a third less from L2 per flop than 128x128 (at 500 TFLOP/s, 5.9
# against 7.8 TB/s), which is where a 4096^3 GEMM on mma.sync is expected to be limited.
MMA_PIPELINE_SCHEDULES = (
    Schedule((32, 4), tile=(128, 128, 32, 3), mma=True),  # 48 KiB
    Schedule((32, 4), tile=(128, 128, 64, 3), mma=True),  # 96 KiB
    Schedule((32, 8), tile=(128, 256, 32, 3), mma=True),  # 72 KiB
    Schedule((32, 8), tile=(128, 256, 32, 4), mma=True),  # 96 KiB
    Schedule((32, 8), tile=(128, 256, 64, 3), mma=True),  # 144 KiB
    Schedule((32, 8), tile=(256, 128, 64, 3), mma=True),  # 144 KiB
)
# Hopper's warpgroup MMA (wgmma, sm_90a; forge/emit/_wgmma.py): a 128 x G workgroup of G
# warpgroups, 64 rows of c each, one m64nBNk16 per k16 step, k in 64-half swizzled rows
# through STAGES stages fed by cp.async (loads STAGES - 2 tiles ahead). 128x256 on two
# warpgroups is cuBLAS's shape (0.83 of it at 4096^3 on an H100, 2026-12-02; 193 KiB of
# stages, one block an SM); 128x128 leaves room for two blocks an SM at 3 stages.
WGMMA_SCHEDULES = (
    Schedule((128, 2), tile=(128, 256, 64, 4), mma=True),  # 193 KiB
    Schedule((128, 2), tile=(128, 128, 64, 4), mma=True),  # 129 KiB
    Schedule((128, 2), tile=(128, 128, 64, 3), mma=True),  # 97 KiB
    Schedule((128, 1), tile=(64, 256, 64, 4), mma=True),  # 161 KiB
)
#: What ``kforge tune gemm_bf16`` searches: the pipelined tensor-core
#: path's workgroups (4 or 8 warps), block tiles, k steps and stage counts; the emitter
#: refuses warp tiles over 64x64 (spilled accumulators) and pipelines over the device's
#: shared memory, and the tuner prunes what it refuses.
MMA_TUNABLES = {
    "wg": ((32, 4), (32, 8)),
    "tile": tuple(
        (bm, bn, bk, stages)
        for bm, bn in ((64, 128), (128, 64), (128, 128), (128, 256), (256, 128))
        for bk in (32, 64)
        for stages in (2, 3, 4)
    ),
    "mma": (True,),
}


def _mixed_gemm(inputs: str):
    return ir.kernel(
        f"gemm_{inputs}",
        ir.matmul("f32", input_dtype=inputs),
        description=f"c = alpha * a @ b + beta * c, {inputs} a and b, f32 accumulation "
        "and c, m = n = k = size",
        defaults={"alpha": 1.5, "beta": 0.5},
        schedules=GEMM_SCHEDULES + MMA_SCHEDULES + MMA_PIPELINE_SCHEDULES + WGMMA_SCHEDULES,
        schedule_roles={
            **{str(s): "big-gpu" for s in GEMM_SCHEDULES[2:]},
            **{str(s): "tensor-core" for s in MMA_SCHEDULES + MMA_PIPELINE_SCHEDULES},
            **{str(s): "hopper" for s in WGMMA_SCHEDULES},
        },
        domain={name: (-_MIXED_BOUND, _MIXED_BOUND) for name in ("a", "b", "c")},
        tolerance=lambda size: {"f32": gemm_tolerance(int(size), _MIXED_BOUND)},
        nonfinite_inputs=False,
        # 136 is a multiple of 8 and of no tile: the mma pipeline's cp.async path with
        # partial tiles along m, n and k (67 and 130 take its register path)
        test_sizes=_MIXED_SIZES + (136,),
        tags=("linalg",),
        # 2-byte a and b read once, f32 c read and written
        bytes_moved="2*(m*k + k*n) + 8*m*n",
        flops="2*m*n*k",
    )


# gemm_bf16 runs on CUDA alone (WGSL has no bfloat16), so its tuner searches the
# tensor-core path; gemm_f16 also runs on WGSL, where mma does not exist, so its tuner
# searches its declared schedules (the pipelined ones among them on CUDA).
GEMM_F16 = _mixed_gemm("f16")
GEMM_BF16 = dataclasses.replace(_mixed_gemm("bf16"), tunables=MMA_TUNABLES)


# TF32: f32 a and b in memory, each value rounded to TF32 before it multiplies (in the
# reference too, so it is what tensor cores compute up to the order of the f32 sum, and
# is judged by the same accumulation tolerance as f16 and bf16: a GEMM that skips the
# rounding, truncates instead (what mma.sync does to unrounded f32 bits) or rounds one
# operand only is off by 10 to 40 times it at k = 130). On CUDA's tensor cores through
# the mma.sync pipeline, m16n8k8, 4-byte elements: BK is a multiple of 8 and a stage holds
# (BM + BN) * BK floats. Every fragment register is rounded by cvt.rna.tf32.f32 as it
# leaves shared memory, which costs registers: 64x64 warp tiles (128 accumulators) spill
# a few under ptxas 13.0 where halves do not, 64x32 ones (8 warps on 128x128) use 170 to
# 240; both are here, for the GPU run to compare (``MMA_TF32_TUNABLES`` has more).
MMA_TF32_SCHEDULES = (
    Schedule((32, 8), tile=(128, 128, 16, 3), mma=True),  # 48 KiB, 64x32 a warp
    Schedule((32, 4), tile=(128, 128, 16, 3), mma=True),  # 48 KiB, 64x64 a warp
    Schedule((32, 8), tile=(128, 128, 32, 3), mma=True),  # 96 KiB
)
#: The tf32 twin of ``MMA_TUNABLES`` (k steps of 16 or 32 floats: 64 or 128 bytes a row,
#: as 32 and 64 halves): ``dataclasses.replace(GEMM_TF32, tunables=MMA_TF32_TUNABLES)``
#: tunes the tensor-core path alone. gemm_tf32 itself also runs on WGSL, where mma does
#: not exist, so like gemm_f16 its tuner searches its declared schedules.
MMA_TF32_TUNABLES = {
    "wg": ((32, 4), (32, 8)),
    "tile": tuple(
        (bm, bn, bk, stages)
        for bm, bn in ((64, 128), (128, 64), (128, 128), (128, 256), (256, 128))
        for bk in (16, 32)
        for stages in (2, 3, 4)
    ),
    "mma": (True,),
}
# The SIMT schedules of gemm_tf32: the two baselines and the big-GPU register prefetch
# with WGSL's register loops written out (CUDA compiles it as without; each rounds as it
# stages a tile).
_TF32_SIMT_SCHEDULES = GEMM_SCHEDULES[:2] + GEMM_SCHEDULES[4:5]

#: Hopper's wgmma for TF32 (sm_90a): k in 128-byte rows of 32 floats a stage, rounded in
#: shared memory before wgmma reads them, and an operand that lies along m or n (b
#: row-major) transposed there too, since wgmma reads TF32 only K-major (shared memory
#: per stage as the halves' schedules).
WGMMA_TF32_SCHEDULES = (
    Schedule((128, 2), tile=(128, 256, 32, 4), mma=True),  # 193 KiB
    Schedule((128, 2), tile=(128, 128, 32, 6), mma=True),  # 193 KiB
    Schedule((128, 2), tile=(128, 128, 32, 4), mma=True),  # 129 KiB
    Schedule((128, 1), tile=(64, 256, 32, 4), mma=True),  # 161 KiB
)


_TF32_MEANINGS = {
    "tf32": "rounded to TF32 (10 mantissa bits, ties away from zero)",
    "tf32rz": "truncated to TF32 (the low 13 mantissa bits dropped, as a tensor core reads "
    "f32 given to it unconverted)",
}


def _tf32_gemm(
    id: str, b_layout: str, what: str, inputs: str = "tf32", prepass: bool = False
) -> KernelSpec:
    """A GEMM of f32 a and b declared TF32 (``inputs``: ``"tf32"`` rounds them to
    nearest, ``"tf32rz"`` truncates), with b ``b_layout``-major; ``prepass``: rounded
    once by a first launch into scratch buffers (CUDA only)."""
    passes = (
        ", rounded once by a first launch into the scratch buffers a_tf32 and b_tf32 "
        "(4 * (m * k + k * n) bytes, K-major), which the GEMM multiplies as they are"
        if prepass
        else ""
    )
    simt = _TF32_SIMT_SCHEDULES
    return ir.kernel(
        id,
        ir.matmul("f32", b_layout=b_layout, input_dtype=inputs, prepass=prepass),
        description=f"c = alpha * a @ b + beta * c{what}, f32 a and b "
        f"{_TF32_MEANINGS[inputs]} before they multiply{passes}, f32 accumulation and "
        "c, m = n = k = size",
        defaults={"alpha": 1.5, "beta": 0.5},
        schedules=simt + MMA_TF32_SCHEDULES + WGMMA_TF32_SCHEDULES,
        schedule_roles={
            **{str(s): "big-gpu" for s in simt[2:]},
            **{str(s): "tensor-core" for s in MMA_TF32_SCHEDULES + WGMMA_TF32_SCHEDULES},
        },
        domain={name: (-_MIXED_BOUND, _MIXED_BOUND) for name in ("a", "b", "c")},
        tolerance=lambda size: {"f32": gemm_tolerance(int(size), _MIXED_BOUND)},
        nonfinite_inputs=False,
        # 136 is a multiple of 4 (a 16-byte chunk of floats) and of no tile: the
        # pipelines' cp.async path with partial tiles along m, n and k; 67 and 130 take
        # their register path
        test_sizes=_MIXED_SIZES + (136,),
        tags=("linalg",),
        # f32 a and b read once, c read and written; a prepass writes the rounded a and
        # b, which the GEMM reads once more
        bytes_moved="12*(m*k + k*n) + 8*m*n" if prepass else "4*(m*k + k*n) + 8*m*n",
        flops="2*m*n*k",
    )


GEMM_TF32 = _tf32_gemm("gemm_tf32", "row", "")
_NT = " with b col-major (b's transpose stored, n x k: x @ w.T of a linear layer's weight)"
GEMM_TF32_NT = _tf32_gemm("gemm_tf32_nt", "col", _NT)
# TF32 as the tensor core reads f32 it is given unconverted: the inputs truncated, so
# wgmma reads the landed stages as they are, with no rounding pass (b col-major: both
# operands K-major, as wgmma reads TF32)
GEMM_TF32RZ_NT = _tf32_gemm("gemm_tf32rz_nt", "col", _NT, "tf32rz")

# gemm_tf32 and gemm_tf32_nt in two launches: a and b rounded once into scratch buffers
# (K-major), then the truncating tensor-core GEMM of those, which needs no rounding pass
# over shared memory in every block (issue 18's P9: that pass cost TF32 40 %). Same
# meaning and reference as the one-launch kernels; CUDA only.
GEMM_TF32_2PASS = _tf32_gemm("gemm_tf32_2pass", "row", "", prepass=True)
GEMM_TF32_NT_2PASS = _tf32_gemm("gemm_tf32_nt_2pass", "col", _NT, prepass=True)

KERNELS = (
    GEMM,
    TRANSPOSE,
    GEMM_F16,
    GEMM_BF16,
    GEMM_TF32,
    GEMM_TF32_NT,
    GEMM_TF32RZ_NT,
    GEMM_TF32_2PASS,
    GEMM_TF32_NT_2PASS,
)

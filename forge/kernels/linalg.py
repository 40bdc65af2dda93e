"""Dense linear algebra IR kernels: gemm (``ir.matmul``) and transpose.

gemm's baselines are the classic 16x16 shared-memory tiling and a 64x64x8 register-
blocked tile; its ``big-gpu`` schedules are 128x128x8 tiles with 8x8 per invocation,
float4 loads, ``a`` stored transposed in shared memory, and register prefetch of the
next tile (docs/PERFORMANCE.md P4). All fit WebGPU's 256 invocations and 16 KiB.
"""

from __future__ import annotations

from .. import ir
from ..schedule import Schedule

__all__ = ["KERNELS", "GEMM_SCHEDULES", "TRANSPOSE_SCHEDULES"]

GEMM_SCHEDULES = (
    Schedule((16, 16), tile=(16, 16, 16)),
    Schedule((16, 16), vector_width=4, tile=(64, 64, 8)),
    Schedule((16, 16), vector_width=4, tile=(128, 128, 8, 2)),
    Schedule((16, 16), vector_width=4, tile=(128, 128, 8)),
)
TRANSPOSE_SCHEDULES = (Schedule((32, 8), tile=(32, 32)), Schedule((16, 16), tile=(16, 16)))

GEMM = ir.kernel(
    "gemm", ir.matmul("f32"),
    description="c = alpha * a @ b + beta * c, float32, m = n = k = size (c not read when "
                "beta == 0)",
    defaults={"alpha": 1.5, "beta": 0.5}, schedules=GEMM_SCHEDULES,
    schedule_roles={str(s): "big-gpu" for s in GEMM_SCHEDULES[2:]},
    # k float32 products summed in a different order than the float64 reference; the
    # error scales with sum |a*b|, so inputs stay moderate and the budget is relative.
    domain={"a": (-8.0, 8.0), "b": (-8.0, 8.0), "c": (-8.0, 8.0)},
    tolerance={"f32": {"rtol": 1e-4, "atol": 2e-4}}, nonfinite_inputs=False,
    test_sizes=(67, 1, 130), tags=("linalg",),
    # a and b read once, c read and written; the multiply-adds of a @ b (the alpha and
    # beta epilogue, 3*m*n, is not counted, as BLAS benchmarks do not count it).
    bytes_moved="4*(m*k + k*n + 2*m*n)", flops="2*m*n*k")

TRANSPOSE = ir.kernel(
    "transpose", ir.transpose("f32"),
    description="y = x.T for x of rows x cols (rows = size, cols = size + 3)",
    schedules=TRANSPOSE_SCHEDULES, tolerance={"f32": {"ulp": 0, "rtol": 0.0, "atol": 0.0}},
    test_sizes=(67, 1, 200), tags=("linalg",), bytes_moved="8*rows*cols", flops=0)

KERNELS = (GEMM, TRANSPOSE)

"""Dense linear algebra IR kernels: gemm (``ir.matmul``) and transpose.

gemm's baselines are the classic 16x16 shared-memory tiling and a 64x64x8 register-
blocked tile; its ``big-gpu`` schedules are 128x128x8 tiles with 8x8 per invocation,
float4 loads, ``a`` stored transposed in shared memory, and register prefetch of the
next tile (docs/PERFORMANCE.md P4). All fit WebGPU's 256 invocations and 16 KiB.
"""

from __future__ import annotations

import dataclasses

from .. import ir
from ..schedule import Schedule

__all__ = ["KERNELS", "GEMM_SCHEDULES", "GEMM_TUNABLES", "TRANSPOSE_SCHEDULES"]

GEMM_SCHEDULES = (
    Schedule((16, 16), tile=(16, 16, 16)),
    Schedule((16, 16), vector_width=4, tile=(64, 64, 8)),
    Schedule((16, 16), vector_width=4, tile=(128, 128, 8, 2)),
    Schedule((16, 16), vector_width=4, tile=(128, 128, 8)),
)
TRANSPOSE_SCHEDULES = (Schedule((32, 8), tile=(32, 32)), Schedule((16, 16), tile=(16, 16)))

#: What ``kforge tune gemm`` searches: workgroup shapes, tiles (BMxBNxBK, with register
#: prefetch as a fourth 2) and vector widths; the emitter refuses the combinations it
#: cannot lower (the tuner prunes them before running anything).
GEMM_TUNABLES = {
    "wg": ((8, 8), (16, 8), (8, 16), (16, 16), (32, 8), (8, 32)),
    "tile": ((32, 32, 8), (64, 64, 8), (64, 64, 16), (128, 64, 8), (64, 128, 8),
             (128, 128, 8), (128, 128, 16), (64, 64, 8, 2), (128, 64, 8, 2), (64, 128, 8, 2),
             (128, 128, 8, 2)),
    "vec": (1, 2, 4),
}

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
    test_sizes=(67, 1, 130), tags=("linalg",))
GEMM = dataclasses.replace(GEMM, tunables=GEMM_TUNABLES)

TRANSPOSE = ir.kernel(
    "transpose", ir.transpose("f32"),
    description="y = x.T for x of rows x cols (rows = size, cols = size + 3)",
    schedules=TRANSPOSE_SCHEDULES, tolerance={"f32": {"ulp": 0, "rtol": 0.0, "atol": 0.0}},
    test_sizes=(67, 1, 200), tags=("linalg",))

KERNELS = (GEMM, TRANSPOSE)

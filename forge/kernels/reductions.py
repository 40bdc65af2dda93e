"""Row kernels (``ir.rows``): softmax, log_softmax, rmsnorm, layernorm, row_sum,
row_max and gemv; softmax, rmsnorm and layernorm also of f16 and bf16 rows (``_f16``,
``_bf16``: low precision in memory, f32 inside).

The problem size is the row length (``cols``); the row count is fixed per kernel (37,
not a multiple of any workgroup) and can be changed with ``ir.with_shape(kernel,
rows=...)``. Schedules: two portable baselines that sweep the row in a loop, and
``big-gpu`` schedules whose ``wg * ipt * vec`` columns hold a whole row in registers
(one read and one write per element, docs/PERFORMANCE.md P3) up to 4096 and 8192 columns.
"""

from __future__ import annotations

from .. import ir
from ..kernel import KernelSpec
from ..schedule import Schedule

__all__ = ["KERNELS", "SCHEDULES", "SCHEDULE_ROLES", "HALF_SCHEDULES", "HALF_SCHEDULE_ROLES"]

SCHEDULES = (
    Schedule((64, 1), items_per_invocation=4),
    Schedule((32, 4), items_per_invocation=2),
    Schedule((256, 1), items_per_invocation=4, vector_width=4),
    Schedule((256, 1), items_per_invocation=8, vector_width=4),
)
SCHEDULE_ROLES = {str(s): "big-gpu" for s in SCHEDULES[2:]}
# Rows of 2-byte elements (f16, bf16) on CUDA: 8 elements per chunk are one 16-byte
# access, as 4 floats are (the same 4096 and 8192 columns in registers).
HALF_SCHEDULES = (
    *SCHEDULES,
    Schedule((256, 1), items_per_invocation=2, vector_width=8),
    Schedule((256, 1), items_per_invocation=4, vector_width=8),
)
HALF_SCHEDULE_ROLES = {str(s): "big-gpu" for s in HALF_SCHEDULES[2:]}
GEMV_SCHEDULES = (
    Schedule((32, 4)),
    Schedule((64, 1), items_per_invocation=4),
    Schedule((32, 8), items_per_invocation=4, vector_width=4),
)
# Row lengths: `kforge check` runs every one; `oracle.evaluate`, `cross_check` and the
# tuner default to the last, the largest. 1001 takes the looped path of the baselines
# and the one-pass path of the big-gpu schedules, 4096 exactly fills the first one's
# registers (the path without bounds checks), 4099 is just past them.
_TEST_SIZES = (1001, 1, 100, 4096, 4099)
# Sums over a row of up to 4099 values: float32 partial sums in a different order than
# the float64 reference. Their error scales with the sum of |terms|, which the oracle's
# elementwise tolerance cannot see, so inputs stay in a moderate domain and the
# budgets below cover the observed error with a wide margin.
_SUM_DOMAIN = (-8.0, 8.0)
# Work per run, for the roofline: bytes_moved reads each input and writes each output
# once (f32; per-column weights once per run); flops counts each arithmetic operation
# and transcendental function of the row expression as one.

x = ir.input("x")
cols_f32 = ir.dim("cols", "f32")


def _kernel(id: str, body, description: str, **options) -> KernelSpec:
    options.setdefault("test_sizes", _TEST_SIZES)
    options.setdefault("schedules", SCHEDULES)
    options.setdefault("schedule_roles", SCHEDULE_ROLES)
    return ir.kernel(id, body, description=description, tags=("reduction",), **options)


def _softmax_parts():
    shifted = x - ir.row_max(x)
    return shifted, ir.row_sum(ir.exp(shifted))


_shifted, _total = _softmax_parts()

SOFTMAX = _kernel(
    "softmax",
    ir.rows(y=ir.exp(_shifted) / _total),
    "y = exp(x - max) / sum(exp(x - max)) along each row",
    # WGSL exp: 3 + 2|x - max| ulp; outputs far below 1 are covered by atol.
    tolerance={"f32": {"rtol": 2e-5, "atol": 1e-6}, "backend:wgpu": {"rtol": 1e-4}},
    nonfinite_inputs=False,
    bytes_moved="8*rows*cols",
    flops="5*rows*cols",
)

LOG_SOFTMAX = _kernel(
    "log_softmax",
    ir.rows(y=_shifted - ir.log(_total)),
    "y = x - max - log(sum(exp(x - max))) along each row",
    # log of the row sum (in [1, cols]) is good to an absolute 2^-21 on WGSL.
    tolerance={"f32": {"rtol": 2e-5, "atol": 4e-6}},
    nonfinite_inputs=False,
    bytes_moved="8*rows*cols",
    flops="5*rows*cols + 2*rows",
)

# Per-column weights stay moderate: an output's absolute error scales with them.
_WEIGHT_DOMAIN = (-8.0, 8.0)
_w = ir.input("w", layout="cols")
RMSNORM = _kernel(
    "rmsnorm",
    ir.rows(y=x * ir.rsqrt(ir.row_sum(x * x) / cols_f32 + ir.param("eps")) * _w),
    "y = x / sqrt(mean(x^2) + eps) * w, w one weight per column",
    defaults={"eps": 1e-6},
    domain={"x": (-1e4, 1e4), "w": _WEIGHT_DOMAIN},
    tolerance={"f32": {"rtol": 2e-5, "atol": 1e-6}},
    nonfinite_inputs=False,
    bytes_moved="8*rows*cols + 4*cols",
    flops="4*rows*cols + 3*rows",
)

_mean = ir.row_sum(x) / cols_f32
_centred = x - _mean
_rstd = ir.rsqrt(ir.row_sum(_centred * _centred) / cols_f32 + ir.param("eps"))
LAYERNORM = _kernel(
    "layernorm",
    ir.rows(
        y=_centred * _rstd * ir.input("gamma", layout="cols") + ir.input("beta", layout="cols")
    ),
    "y = (x - mean) / sqrt(var + eps) * gamma + beta along each row (two-pass variance)",
    defaults={"eps": 1e-5},
    domain={"x": (-1e3, 1e3), "gamma": _WEIGHT_DOMAIN, "beta": _WEIGHT_DOMAIN},
    # x - mean cancels for elements near the mean: the mean's float32 error (relative to
    # mean|x|) becomes an absolute error of y in units of one standard deviation. The
    # emitted kernels sum x shifted by one of its values (forge/emit/_rows.py, moments),
    # so their mean is the reference's even where mean|x| dwarfs the deviation.
    tolerance={"f32": {"rtol": 1e-4, "atol": 2e-5}},
    nonfinite_inputs=False,
    bytes_moved="8*rows*cols + 8*cols",
    flops="7*rows*cols + 4*rows",
)

ROW_SUM = _kernel(
    "row_sum",
    ir.rows(total=ir.row_sum(x)),
    "total[r] = sum of row r",
    domain={"x": _SUM_DOMAIN},
    tolerance={"f32": {"rtol": 1e-4, "atol": 2e-4}},
    nonfinite_inputs=False,
    bytes_moved="4*rows*cols + 4*rows",
    flops="rows*cols",
)

ROW_MAX = _kernel(
    "row_max",
    ir.rows(peak=ir.row_max(x)),
    "peak[r] = max of row r (NaN ignored)",
    tolerance={"f32": {"ulp": 0, "rtol": 0.0, "atol": 0.0}},
    bytes_moved="4*rows*cols + 4*rows",
    flops="rows*cols",
)

_a, _v, _y = ir.input("a"), ir.input("x", layout="cols"), ir.input("y", layout="rows")
_alpha, _beta = ir.param("alpha"), ir.param("beta")
_product = _alpha * ir.row_sum(_a * _v)
GEMV = _kernel(
    "gemv",
    ir.rows(y=ir.select(ir.eq(_beta, 0.0), _product, _product + _beta * _y)),
    "y = alpha * a @ x + beta * y (y not used when beta == 0), a of rows x cols",
    inputs=("a", "x"),
    shape={"rows": ir.SIZE, "cols": ir.SIZE},
    defaults={"alpha": 1.5, "beta": 0.5},
    schedules=GEMV_SCHEDULES,
    schedule_roles={str(GEMV_SCHEDULES[2]): "big-gpu"},
    domain={"a": _SUM_DOMAIN, "x": _SUM_DOMAIN, "y": _SUM_DOMAIN},
    tolerance={"f32": {"rtol": 1e-4, "atol": 2e-4}},
    test_sizes=(67, 1, 300),
    nonfinite_inputs=False,
    bytes_moved="4*rows*cols + 4*cols + 8*rows",
    flops="2*rows*cols + 3*rows",
)


# -- low precision in memory, float32 inside (how bf16/f16 row kernels are written) --------
# Each element is loaded from f16/bf16, computed in f32 and rounded once to the output's
# dtype, so a correct kernel is at most one rounding of the output dtype from the
# reference (its f32 error, ~1e-5 relative, can flip that rounding): the default f16 and
# bf16 tolerances (2 ulp of the dtype) hold with a margin. Both dtypes are 2 bytes; the
# bf16 kernels (CUDA only: WGSL has no bf16) also carry the vec=8 schedules, which WGSL
# cannot express, so f16's (which WGSL runs) keep the f32 ones.
def _half_schedules(dtype: str) -> dict:
    if dtype != "bf16":
        return {}
    return {"schedules": HALF_SCHEDULES, "schedule_roles": HALF_SCHEDULE_ROLES}


def _softmax_in(dtype: str) -> KernelSpec:
    wide = ir.cast(ir.input("x", dtype), "f32")
    shifted = wide - ir.row_max(wide)
    return _kernel(
        f"softmax_{dtype}",
        ir.rows(y=ir.cast(ir.exp(shifted) / ir.row_sum(ir.exp(shifted)), dtype)),
        f"softmax of {dtype} rows, computed in f32, rounded once to {dtype}",
        nonfinite_inputs=False,
        bytes_moved="4*rows*cols",
        flops="5*rows*cols",
        **_half_schedules(dtype),
    )


def _rmsnorm_in(dtype: str) -> KernelSpec:
    wide = ir.cast(ir.input("x", dtype), "f32")
    weight = ir.cast(ir.input("w", dtype, layout="cols"), "f32")
    scale = ir.rsqrt(ir.row_sum(wide * wide) / cols_f32 + ir.param("eps"))
    return _kernel(
        f"rmsnorm_{dtype}",
        ir.rows(y=ir.cast(wide * scale * weight, dtype)),
        f"rmsnorm of {dtype} rows and weights, computed in f32, rounded once to {dtype}",
        defaults={"eps": 1e-6},
        domain={"x": (-1e4, 1e4), "w": _WEIGHT_DOMAIN},
        nonfinite_inputs=False,
        bytes_moved="4*rows*cols + 2*cols",
        flops="4*rows*cols + 3*rows",
        **_half_schedules(dtype),
    )


def _layernorm_in(dtype: str) -> KernelSpec:
    # The same two moments as LAYERNORM's, of the f32 values (one moments level in the
    # emitted kernels). The f32 errors that cost more than one rounding of the dtype are
    # absolute, where y is near 0: near a cancelling mean (LAYERNORM's 2e-5 in units of
    # one standard deviation), and where beta cancels centred * rstd * gamma (an f32 ulp
    # of that product, 2 f16 ulp of a y of 1e-4 on lavapipe); both lie far below the
    # dtype's default atol (1e-3 for f16, 8e-3 for bf16), so the defaults hold.
    wide = ir.cast(ir.input("x", dtype), "f32")
    gamma = ir.cast(ir.input("gamma", dtype, layout="cols"), "f32")
    beta = ir.cast(ir.input("beta", dtype, layout="cols"), "f32")
    centred = wide - ir.row_sum(wide) / cols_f32
    rstd = ir.rsqrt(ir.row_sum(centred * centred) / cols_f32 + ir.param("eps"))
    return _kernel(
        f"layernorm_{dtype}",
        ir.rows(y=ir.cast(centred * rstd * gamma + beta, dtype)),
        f"layernorm of {dtype} rows, gamma and beta, computed in f32 (two-pass "
        f"variance), rounded once to {dtype}",
        defaults={"eps": 1e-5},
        domain={"x": (-1e3, 1e3), "gamma": _WEIGHT_DOMAIN, "beta": _WEIGHT_DOMAIN},
        nonfinite_inputs=False,
        bytes_moved="4*rows*cols + 4*cols",
        flops="7*rows*cols + 4*rows",
        **_half_schedules(dtype),
    )


SOFTMAX_BF16, SOFTMAX_F16 = _softmax_in("bf16"), _softmax_in("f16")
RMSNORM_BF16, RMSNORM_F16 = _rmsnorm_in("bf16"), _rmsnorm_in("f16")
LAYERNORM_BF16, LAYERNORM_F16 = _layernorm_in("bf16"), _layernorm_in("f16")

KERNELS = (
    SOFTMAX,
    LOG_SOFTMAX,
    RMSNORM,
    LAYERNORM,
    ROW_SUM,
    ROW_MAX,
    GEMV,
    SOFTMAX_BF16,
    SOFTMAX_F16,
    RMSNORM_BF16,
    RMSNORM_F16,
    LAYERNORM_BF16,
    LAYERNORM_F16,
)

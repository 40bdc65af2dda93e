"""bfloat16 end to end beside f16: the IR evaluates it rounding to the dtype, CUDA C
computes it with cuda_bf16.h (compiled here by NVRTC; run on the GPU machine), WGSL
refuses it with the reason, and the oracle draws, poisons and judges it."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import forge
import oracle
from forge import Schedule, UnsupportedFeature, ir
from oracle._compare import compare, ulp_distance
from oracle._inputs import POISON_INPUT, POISON_OUTPUT, make_case, poison
from oracle._tolerance import default_tolerance
from oracle.pytest_plugin import require_available

BF16 = np.dtype(ml_dtypes.bfloat16)
x = ir.input("x", "bf16")
h = ir.input("x", "f16")


def _evaluate(expr, values):
    return ir.Evaluator(lambda leaf: np.asarray(values, NUMPY[leaf.dtype]))(expr)


NUMPY = {"bf16": BF16, "f16": np.dtype(np.float16), "f32": np.dtype(np.float32)}


def test_bf16_arithmetic_rounds_each_operation_to_8_significant_bits():
    one_and_a_bit = _evaluate(x + ir.const(2.0**-8, "bf16"), [1.0])
    assert one_and_a_bit.dtype == BF16 and float(one_and_a_bit[0]) == 1.0  # a tie: to even
    # 3 * (1 + 2^-7) = 3.0234375 needs 9 bits: halfway between 3.015625 and 3.03125
    assert float(_evaluate(x * 3.0, [1.0 + 2.0**-7])[0]) == 3.03125
    # the range is float32's: 1e30 squared overflows f16 long before, not bf16
    assert np.isfinite(_evaluate(x * x, [1e18]).astype(np.float32)).all()


def test_bf16_functions_round_the_float64_result_once():
    values = np.linspace(-3, 3, 101).astype(BF16)
    got = _evaluate(ir.exp(x), values)
    want = np.exp(values.astype(np.float64)).astype(BF16)
    assert got.dtype == BF16 and np.array_equal(got.view(np.uint16), want.view(np.uint16))


def test_bf16_to_integer_casts_truncate_and_saturate():
    values = np.array([2.75, -2.75, 3e38, -3e38, np.nan], BF16)
    assert _evaluate(ir.cast(x, "i32"), values).tolist() == [2, -2, 2**31 - 1, -(2**31), 0]


def test_a_bf16_kernel_needs_bf16_and_declares_bf16_buffers():
    kernel = ir.kernel("scale_bf16", ir.map(y=x * ir.param("a", "bf16")), defaults={"a": 2.0})
    assert "bf16" in kernel.requires
    assert [b.dtype for b in kernel.buffers[:2]] == [BF16, BF16]
    assert kernel.pack_uniform(10)["a"].dtype == BF16


def test_wgsl_refuses_bf16_saying_why():
    kernel = ir.kernel("neg_bf16", ir.map(y=-x))
    with pytest.raises(
        UnsupportedFeature, match="bf16 is unsupported, because WGSL has no bfloat16 type"
    ):
        kernel.source("wgsl", Schedule(64))


def test_bf16_on_wgpu_is_an_unsupported_verdict_with_the_reason(request):
    require_available(request.config, "wgpu")
    kernel = ir.kernel("neg_bf16", ir.map(y=-x))
    with forge.open_context("wgpu") as ctx:
        ev = oracle.evaluate(ctx, kernel, size=100, samples=1)
    assert ev.verdict == "unsupported", ev.report()
    assert "WGSL has no bfloat16 type" in ev.error


def test_bf16_kernels_pass_on_the_reference_backend():
    kernel = ir.kernel(
        "softmax_bf16_t",
        ir.rows(y=ir.exp(x - ir.row_max(x)) / ir.row_sum(ir.exp(x - ir.row_max(x)))),
        nonfinite_inputs=False,
    )
    with forge.open_context("reference") as ctx:
        ev = oracle.evaluate(ctx, kernel, size=100, samples=1)
    assert ev.passed, ev.report()


@pytest.mark.parametrize(
    "expr",
    [
        pytest.param(
            lambda v: (
                ir.exp(v) * v
                + ir.sqrt(ir.abs(v))
                - ir.tanh(v) / ir.sigmoid(v)
                + ir.erf(v)
                + ir.max(v, ir.const(float("inf"), v.dtype))
                + ir.cast(ir.cast(v, "i32"), v.dtype)
                + ir.select(v < 0.0, -v, v)
            ),
            id="functions",
        ),
        pytest.param(
            lambda v: ir.cast(ir.cast(v, "f32"), v.dtype) + ir.cast(ir.cast(v, "f64"), v.dtype),
            id="casts",
        ),
    ],
)
@pytest.mark.parametrize("value", [x, h], ids=["bf16", "f16"])
def test_half_kernels_compile_to_cuda_with_the_headers_arithmetic(expr, value):
    from backends.cuda import compile_cuda

    kernel = ir.kernel("half_ops", ir.map(y=expr(value)))
    for schedule in kernel.schedules:
        source = kernel.source("cuda", schedule)
        header = "cuda_bf16.h" if value.dtype == "bf16" else "cuda_fp16.h"
        assert f"#include <{header}>" in source and "fg_rh" not in source
        assert compile_cuda(source, kernel.entry_point, arch="sm_90")[:4] == b"\x7fELF"


def test_the_cuda_spelling_of_half_values_is_the_headers_types():
    kernel = ir.kernel("axpy_h", ir.map(y=ir.param("a", "f16") * h + 1.5), defaults={"a": 2.0})
    source = kernel.source("cuda", Schedule(64))
    assert "const __half* __restrict__ x" in source and "__half a;" in source
    assert "(fg_p.a * fg_v_x[fg_k])" in source and "__half(1.5f)" in source


def test_bf16_inputs_hold_every_family_and_the_poison_is_nan():
    kernel = ir.kernel("neg_bf16", ir.map(y=-x))
    case = make_case(kernel, 1000, seed=3)
    values = case.arrays["x"].astype(np.float32)
    assert case.arrays["x"].dtype == BF16
    assert np.isnan(values).any() and np.isinf(values).any() and (values == 0).any()
    assert (np.abs(values[np.isfinite(values)]) >= 1e4).any()  # the large family: f32's range
    subnormal = (values != 0) & (np.abs(values) < float(ml_dtypes.finfo(BF16).tiny))
    assert subnormal.any()
    for pattern in (POISON_OUTPUT, POISON_INPUT):
        assert np.isnan(poison(BF16, 3, pattern).astype(np.float32)).all()
    output, input_ = poison(BF16, 1, POISON_OUTPUT), poison(BF16, 1, POISON_INPUT)
    assert output.view(np.uint16) != input_.view(np.uint16)


def test_bf16_comparisons_count_ulps_and_nonfinite_patterns():
    want = np.array([1.0, 2.0, np.nan, np.inf, 3.0], BF16)
    got = np.array([1.0078125, 2.0, np.nan, np.inf, 3.25], BF16)
    assert ulp_distance(got[:2], want[:2]).tolist() == [1, 0]
    result = compare(got, want)
    assert result.mismatches == 1 and result.first_mismatches[0].index == (4,)
    assert compare(np.array([1.0, 0.0], BF16), np.array([1.0, np.nan], BF16)).mismatches == 1


def test_the_default_bf16_tolerance_is_a_few_of_its_roundings():
    tolerance = default_tolerance(BF16)
    eps = float(ml_dtypes.finfo(BF16).eps)
    assert tolerance.ulp == 2 and eps <= tolerance.rtol <= 2 * eps
    assert compare(np.array([1.0 + eps], BF16), np.array([1.0], BF16)).passed
    assert not compare(np.array([1.0 + 4 * eps], BF16), np.array([1.0], BF16)).passed


def test_a_mixed_precision_matmul_declares_narrow_inputs_and_an_f32_accumulation():
    body = ir.matmul("f32", input_dtype="bf16")
    assert [(b.name, b.dtype) for b in body.buffers()] == [
        ("a", "bf16"),
        ("b", "bf16"),
        ("c", "f32"),
    ]
    assert body.params() == [("alpha", "f32"), ("beta", "f32")]
    assert "bf16 a and b, f32 accumulation and c" in body.summary()[0]
    assert body.describe()["input_dtype"] == "bf16"
    assert "input_dtype" not in ir.matmul("f32").describe()  # f32 GEMM's hash unchanged


@pytest.mark.parametrize(
    "dtype, inputs", [("f64", "f16"), ("f32", "f64"), ("f16", None), ("bf16", None)]
)
def test_a_matmul_accumulates_in_f32_or_f64_and_narrows_only_into_f32(dtype, inputs):
    with pytest.raises(ir.IRTypeError, match="matmul"):
        ir.matmul(dtype, input_dtype=inputs)


def test_the_mixed_gemm_evaluates_exact_products_summed_once():
    kernel = ir.kernel(
        "g", ir.matmul("f32", input_dtype="f16"), defaults={"alpha": 1.0, "beta": 0.0}
    )
    a = np.array([1.0, 2.0**-11, 2.0**-11, 1.0], np.float16)  # 2x2, k = 2
    b = np.array([1.0, 0.0, 1.0, 1.0], np.float16)
    c = np.zeros(4, np.float32)
    kernel.run_reference([a, b, c, kernel.pack_uniform(2)[0]])
    # row 0: 1 + 2^-11 (not representable in f16, exact in f32)
    assert c.tolist() == [1.0 + 2.0**-11, 2.0**-11, 2.0**-11 + 1.0, 1.0]


def test_the_gemm_accumulation_tolerance_grows_with_k():
    from forge.kernels.linalg import GEMM_BF16, accumulation_tolerance

    small, large = (accumulation_tolerance(k, 2.0)["atol"] for k in (100, 400))
    assert large == pytest.approx(8 * small)  # k ** 1.5
    for k in (1, 130):  # the test sizes share the largest one's budget
        assert GEMM_BF16.tolerance_at(k)["f32"] == accumulation_tolerance(130, 2.0)
    assert GEMM_BF16.tolerance_at(2048)["f32"] == accumulation_tolerance(2048, 2.0)
    assert "wg=16x16,ipt=1,vec=4,tile=128x128x8x2" in map(str, GEMM_BF16.schedules)


def test_half_chunks_move_as_one_aligned_access_on_cuda():
    from forge.kernels.reductions import SOFTMAX_BF16

    schedule = Schedule((256, 1), items_per_invocation=4, vector_width=4)
    source = SOFTMAX_BF16.source("cuda", schedule)
    assert "struct __align__(8) fg_bfloat4 { __nv_bfloat16 x, y, z, w; };" in source
    assert "*reinterpret_cast<const fg_bfloat4*>(&x[" in source
    assert "& 7ull) == 0ull" in source  # 8-byte alignment, not float4's 16


def test_f16_map_chunks_move_as_f16_vectors_on_wgsl_and_match_on_wgpu(request):
    require_available(request.config, "wgpu")
    kernel = ir.kernel(
        "hmap",
        ir.map(y=h * 2.0 + ir.input("z", "f16")),
        schedules=(
            Schedule(256, items_per_invocation=4, vector_width=4),
            Schedule(64, vector_width=2),
        ),
    )
    source = kernel.source("wgsl", kernel.schedules[0])
    assert "var<storage, read> x: array<vec4<f16>>;" in source
    with forge.open_context("wgpu") as ctx:
        for schedule in kernel.schedules:
            for size in (1, 3, 1001):  # partial last vectors go lane by lane
                ev = oracle.evaluate(ctx, kernel, schedule, size=size, samples=1)
                assert ev.passed, ev.report()

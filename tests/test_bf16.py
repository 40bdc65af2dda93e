"""bfloat16 end to end beside f16: the IR evaluates it rounding to the dtype, CUDA C
computes it with cuda_bf16.h (compiled here by NVRTC; run on the GPU machine), WGSL
refuses it with the reason, and the oracle draws, poisons and judges it. Rows of 2-byte
elements move 8 at a time under vec=8 on CUDA (16-byte accesses), refused elsewhere."""

from __future__ import annotations

import re

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
    """A chunk of 4 halves moves as one 8-byte access: the row into registers as a
    uint2 (packed two halves to a register), the output from a struct of 4 halves."""
    from forge.kernels.reductions import SOFTMAX_BF16

    schedule = Schedule((256, 1), items_per_invocation=4, vector_width=4)
    source = SOFTMAX_BF16.source("cuda", schedule)
    assert "struct __align__(8) fg_bfloat4 { __nv_bfloat16 x, y, z, w; };" in source
    assert "*reinterpret_cast<const uint2*>(&x[" in source
    assert "*reinterpret_cast<fg_bfloat4*>(&y[" in source
    assert "& 7ull) == 0ull" in source  # 8-byte alignment, not float4's 16


@pytest.mark.parametrize("width, words", [(2, "unsigned int"), (4, "uint2"), (8, "uint4")])
def test_a_half_row_is_held_packed_two_halves_to_a_register_on_cuda(width, words):
    """The row's registers are 32-bit words, each two halves as they lie in memory (the
    even column low): a whole chunk is one unsigned load, a partial one ORs each lane's
    bits into its word (the array zeroed where it is declared), and each value is read
    back from its half. ptxas gives an array of ``__nv_bfloat16`` a register a half."""
    kernel = forge.get_kernel("layernorm_bf16")
    schedule = Schedule((64, 1), items_per_invocation=2, vector_width=width)
    source = kernel.source("cuda", schedule)
    assert f"unsigned int fg_v_x[{width}] = {{}};" in source  # 2 chunks of width halves
    assert "__nv_bfloat16 fg_v_x[" not in source
    assert f"*reinterpret_cast<const {words}*>(&x[" in source
    assert "] |= (unsigned int)__bfloat16_as_ushort(x[" in source  # the low half
    assert "] |= ((unsigned int)__bfloat16_as_ushort(x[" in source  # the high half, << 16
    assert "__ushort_as_bfloat16((unsigned short)(fg_v_x[fg_k * " in source
    assert " & 0xffffu)" in source and " >> 16)" in source
    assert ".entry layernorm_bf16_kernel" in _ptx(kernel, schedule)  # NVRTC takes it
    # f32 rows and vec=1 keep one value a register
    four = Schedule((64, 1), items_per_invocation=2, vector_width=min(width, 4))
    assert "float fg_v_x[" in forge.get_kernel("layernorm").source("cuda", four)
    one = kernel.source("cuda", Schedule((64, 1), items_per_invocation=2))
    assert "__nv_bfloat16 fg_v_x[" in one


@pytest.mark.parametrize("kernel_id", ["layernorm_bf16", "softmax_f16"])
@pytest.mark.parametrize("width", [2, 4, 8])
def test_packed_half_rows_match_the_reference_on_every_path_on_cuda(request, kernel_id, width):
    """Packed rows on the device: a row that fills the registers exactly, one shorter
    and odd (its last chunk lane by lane, and no chunk whole since cols % width != 0),
    and one longer (the looped path, with the same tail)."""
    require_available(request.config, "cuda")
    shaped = ir.with_shape(forge.get_kernel(kernel_id), rows=3)
    schedule = Schedule((64, 1), items_per_invocation=2, vector_width=width)
    cap = 64 * 2 * width
    with forge.open_context("cuda") as ctx:
        for cols in (cap, cap - 3, 2 * cap + 5):
            ev = oracle.evaluate(ctx, shaped, schedule, size=cols, samples=0)
            assert ev.passed, ev.report()


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


# -- vec=8: 16-byte chunks of 2-byte elements (rows, CUDA) -----------------------------------
EIGHT = Schedule((256, 1), items_per_invocation=2, vector_width=8)


def _ptx(kernel, schedule) -> str:
    from backends.cuda import compile_cuda

    source = kernel.source("cuda", schedule)
    return compile_cuda(source, kernel.entry_point, arch="sm_90", output="ptx").decode()


@pytest.mark.parametrize("kernel_id", ["softmax_bf16", "rmsnorm_bf16", "softmax_f16"])
def test_vec8_moves_2_byte_rows_in_16_byte_accesses_on_cuda(kernel_id):
    """Under vec=8 a chunk of 8 halves is one aligned 16-byte struct: one ld.global.v4.u32
    (st.global.v4.u32) per chunk, as a float4 chunk of f32, where vec=4 moved 8 bytes."""
    kernel = forge.get_kernel(kernel_id)
    source = kernel.source("cuda", EIGHT)
    half = "__nv_bfloat16" if kernel_id.endswith("bf16") else "__half"
    vector = "fg_bfloat8" if kernel_id.endswith("bf16") else "fg_half8"
    lanes = ", ".join(f"s{i}" for i in range(8))
    assert f"struct __align__(16) {vector} {{ {half} {lanes}; }};" in source
    assert "*reinterpret_cast<const uint4*>(&x[" in source  # the row, packed
    assert f"*reinterpret_cast<{vector}*>(&y[" in source
    assert "& 15ull) == 0ull" in source and "cols % 8u == 0u" in source
    ptx = _ptx(kernel, EIGHT)
    assert re.search(r"ld\.global(\.nc)?\.v4\.u32", ptx) and "st.global.v4.u32" in ptx
    assert not re.search(r"\.v[24]\.u16", ptx)  # no 4- or 8-byte chunk accesses left
    four = _ptx(kernel, Schedule((256, 1), items_per_invocation=4, vector_width=4))
    assert re.search(r"ld\.global(\.nc)?\.v2\.u32", four) and "v4.u32" not in four
    assert "st.global.v4.u16" in four


def test_vec8_is_among_the_bf16_rows_schedules_and_the_bench_sweeps_it():
    from bench._workload import rows_schedules

    for kernel_id in ("softmax_bf16", "rmsnorm_bf16"):
        kernel = forge.get_kernel(kernel_id)
        eights = [s for s in kernel.schedules if s.vector_width == 8]
        assert eights and all(kernel.schedule_role(s) == "big-gpu" for s in eights)
        swept = rows_schedules(kernel, 32768, cuda=True)
        assert Schedule((512, 1), items_per_invocation=8, vector_width=8) in swept
        assert Schedule((1024, 1), items_per_invocation=4, vector_width=8) in swept
        assert rows_schedules(kernel, 32768, cuda=False) == list(kernel.schedules)
    for kernel_id in ("softmax", "layernorm"):  # f32: vec=4 is already 16 bytes
        swept = rows_schedules(forge.get_kernel(kernel_id), 32768, cuda=True)
        assert all(s.vector_width <= 4 for s in swept)


@pytest.mark.parametrize(
    "kernel_id, schedule, target, reason",
    [
        ("softmax", EIGHT, "cuda", "only for 2-byte elements (f16, bf16), and a rows kernel's x"),
        ("rmsnorm", EIGHT, "cuda", "x is f32, w is f32, y is f32: vec=4 already moves 16"),
        ("softmax_f16", EIGHT, "wgsl", "unsupported, because WGSL has no 8-wide vectors"),
        ("softmax_bf16", EIGHT, "wgsl", "unsupported, because WGSL has no 8-wide vectors"),
        (
            "affine",
            Schedule(256, vector_width=8),
            "cuda",
            "a map kernel's x is f32, y is f32: vec=4 already moves 16 bytes",
        ),
        (
            "gemm",
            Schedule((16, 16), vector_width=8, tile=(128, 128, 8)),
            "cuda",
            "a matmul kernel moves vectors of 1, 2 or 4",
        ),
        ("transpose", Schedule((32, 8), vector_width=8, tile=(32, 32)), "cuda", "vector width and"),
    ],
    ids=["f32-rows", "f32-weights", "wgsl-f16", "wgsl-bf16", "map", "matmul", "transpose"],
)
def test_vec8_is_refused_where_it_moves_no_16_byte_chunk_saying_why(
    kernel_id, schedule, target, reason
):
    with pytest.raises(UnsupportedFeature, match=re.escape(reason)):
        forge.get_kernel(kernel_id).source(target, schedule)


def test_vec8_is_a_schedule_width_and_reads_back_from_its_text():
    assert Schedule.parse("wg=256,ipt=2,vec=8") == EIGHT
    assert str(EIGHT) == "wg=256,ipt=2,vec=8"
    with pytest.raises(forge.InvalidArgument, match="vector width must be one of"):
        Schedule(64, vector_width=16)


@pytest.mark.parametrize("kernel_id", ["softmax_bf16", "softmax_f16", "softmax"])
def test_half_rows_take_the_online_sums_exp_through_ex2_approx_on_cuda(kernel_id):
    """Where every output is f16 or bf16, the online softmax's exp(a - max) is __expf
    (a multiply and one ex2.approx, far within half an ulp of either dtype); f32 keeps
    expf's accurate sequence. The device tests (test_library) run every schedule of
    both against the reference."""
    one_pass = Schedule((1024, 1), items_per_invocation=8, vector_width=4)
    kernel = forge.get_kernel(kernel_id)
    source = kernel.source("cuda", one_pass)
    half = kernel_id != "softmax"
    assert ("__expf(" in source) is half
    # NVRTC 13 spells __expf's ex2 without .ftz, and expf's (inside its range
    # reduction and scaling) with it
    plain = re.findall(r"ex2\.approx\.f32", _ptx(kernel, one_pass))
    assert len(plain) >= (32 if half else 0) and bool(plain) is half


@pytest.mark.parametrize("kernel_id", ["gelu_bf16", "gelu_f16", "gelu"])
def test_half_outputs_take_one_plus_erf_as_erfc(kernel_id):
    """Where every output is f16 or bf16, gelu's ``1 + erf(u)`` is erfc(-u) through
    Numerical Recipes' erfcc (forge/emit/_approx.py; no cancellation near erf = -1, and
    faster than erff on the H200), in CUDA C and in WGSL; f32 keeps erf and the sum.
    NVRTC compiles it (the device tests run it against the reference)."""
    schedule = Schedule((256, 1), items_per_invocation=4, vector_width=4)
    kernel = forge.get_kernel(kernel_id)
    source = kernel.source("cuda", schedule)
    half = kernel_id != "gelu"
    assert ("fg_one_plus_erf(fg_t" in source) is half
    assert ("erff(" in source) is not half
    ptx = _ptx(kernel, schedule)  # the helper's __fdividef and __expf (no .ftz)
    assert ("div.approx.f32" in ptx and "ex2.approx.f32" in ptx) is half
    if kernel_id != "gelu_bf16":  # WGSL has no bf16
        wgsl = kernel.source("wgsl", Schedule(64))
        assert ("fg_one_plus_erf(fg_t" in wgsl) is half
        assert (" = fg_erf_f32(fg_t" in wgsl) is not half


def test_a_users_half_kernel_gets_erfc_in_either_order_and_only_for_one_plus_erf():
    x = ir.cast(ir.input("x", "f16"), "f32")
    kernel = ir.kernel(
        "half_erfs",
        ir.map(
            a=ir.cast(ir.erf(x) + 1.0, "f16"),  # 1 + erf(u), the other order
            b=ir.cast(2.0 + ir.erf(x), "f16"),  # not 1 + erf: left as it is
        ),
    )
    source = kernel.source("cuda", Schedule(64))
    assert source.count("fg_one_plus_erf(fg_t") == 1 and "(2.0f + " in source
    assert "__device__ __forceinline__ float fg_one_plus_erf" in source
    _ptx(kernel, Schedule(64))  # compiles
    wgsl = kernel.source("wgsl", Schedule(64))
    assert wgsl.count("fg_one_plus_erf(fg_t") == 1 and "fn fg_one_plus_erf" in wgsl

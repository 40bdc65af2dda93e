"""Round 23's device-free findings (tests/wild/round23.py): what kernel-forge reads from
a CUDA kernel as LLM inference engines write it, before any GPU runs it. Each
``xfail(strict=True)`` is a gap found in round 23, still open: it fails here today,
and once fixed it passes, which a strict xfail reports, so the mark comes off."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import oracle
from forge import BufferSpec, InvalidArgument, KernelSpec, Schedule, sources
from tests.wild.round23 import RMSNORM_BF16X8, SILU_AND_MUL


def _steps(kernel: KernelSpec, size: str):
    size = kernel.size(size)
    schedule = kernel.schedules[0]
    source = kernel.source("cuda", schedule, size)
    return kernel.steps("cuda", schedule, size, 2**31 - 1, source)


def test_an_entry_point_with_a_namespaced_template_argument_passes_every_parameter():
    """vLLM's ``vllm::act_and_mul_kernel<__nv_bfloat16, vllm::silu_kernel<...>, true>``
    declares (out, input, d): d, a dimension of the size, is passed by value."""
    kernel = SILU_AND_MUL.kernel
    entry = kernel.entry_point
    assert sources.cuda_parameters(kernel.sources["cuda"], entry) is not None
    (step,) = _steps(kernel, "num_tokens=4,d=64")
    assert step.arguments[:2] == (("buffer", 0), ("buffer", 1))
    assert len(step.arguments) == 3 and step.arguments[2][0] == "value"
    name, packed = step.arguments[2][1]
    assert name == "d" and np.frombuffer(packed, np.int32)[0] == 64


_PROTOTYPE_FIRST = r"""
extern "C" __global__ void scale(const float*, float*, int);

extern "C" __global__ void scale(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}
"""


def test_a_kernel_declared_before_its_definition_is_read_from_the_definition():
    kernel = KernelSpec(
        id="r23_prototype_first",
        entry_point="scale",
        sources={"cuda": _PROTOTYPE_FIRST},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
        ),
        reference=lambda x: 2 * x,
        grid=lambda s, n: ((n + 63) // 64, 1, 1),
        schedules=(Schedule(64),),
    )
    (step,) = _steps(kernel, "1000")
    assert len(step.arguments) == 3 and step.arguments[2][1][0] == "n", step.arguments


def test_a_reference_takes_a_by_value_scalar_by_its_name():
    """FT's RMSNorm takes ``const float eps`` by value, its value from ``defaults``; a
    reference written ``def ref(output, input, gamma, eps)`` gets it."""

    def reference(output, input, gamma, eps):
        return RMSNORM_BF16X8.kernel.reference(output, input, gamma, eps)

    kernel = dataclasses.replace(RMSNORM_BF16X8.kernel, reference=reference)
    ev = oracle.evaluate("reference", kernel, size="m=2,n=64", samples=0)
    assert ev.passed, ev.report()


_STRUCT_BY_VALUE = r"""
#include <cstdint>
struct Params {
  int64_t stride;
  int n;
  float scale;
};
extern "C" __global__ void scale_strided(const float* __restrict__ x, float* __restrict__ y,
                                         const __grid_constant__ Params p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n) y[i] = p.scale * x[i * p.stride];
}
"""


def test_a_struct_by_value_whose_fields_the_spec_orders_otherwise_is_refused():
    kernel = KernelSpec(
        id="r23_struct_fields_out_of_order",
        entry_point="scale_strided",
        sources={"cuda": _STRUCT_BY_VALUE},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
            BufferSpec.uniform(2, (("n", "i32"), ("scale", "f32"), ("stride", "i64")), name="p"),
        ),
        reference=lambda x, y, p: x * np.float32(p["scale"]),
        params=lambda n: {"n": n, "stride": 1},
        defaults={"scale": 2.0},
        grid=lambda s, n: ((n + 63) // 64, 1, 1),
        schedules=(Schedule(64),),
    )
    with pytest.raises(InvalidArgument, match="stride"):
        _steps(kernel, "1000")


def test_a_float8_reference_result_for_a_u8_buffer_is_taken_or_told_to_view_its_bytes():
    import ml_dtypes

    from tests.wild.round23 import FP8_QUANT

    def reference(out, input, scale):
        x = input.astype(np.float32)
        s = np.float32(np.abs(x).max()) / np.float32(448.0)
        q = np.fmax(np.float32(-448.0), np.fmin(x * (np.float32(1.0) / s), np.float32(448.0)))
        return q.astype(ml_dtypes.float8_e4m3fn), np.array([s], np.float32)

    kernel = dataclasses.replace(FP8_QUANT.kernel, reference=reference)
    ev = oracle.evaluate("reference", kernel, size="num_tokens=2,hidden=64", samples=0)
    assert ev.passed or ".view(np.uint8)" in ev.report(), ev.report()


_STATELESS_FUNCTOR = r"""
struct Mul {
    __device__ float operator()(float a, float b) const { return a * b; }
};

template <typename T, typename Op>
__global__ void binary_elementwise(const T* __restrict__ a, const T* __restrict__ b,
                                   T* __restrict__ out, int n, Op op) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i] = op(a[i], b[i]);
}
"""


def test_a_stateless_functor_by_value_is_passed_or_explained():
    kernel = KernelSpec(
        id="r23_stateless_functor",
        entry_point="binary_elementwise<float, Mul>",
        sources={"cuda": _STATELESS_FUNCTOR},
        buffers=(
            BufferSpec(0, "f32", "read", name="a"),
            BufferSpec(1, "f32", "read", name="b"),
            BufferSpec(2, "f32", "read_write", name="out"),
        ),
        reference=lambda a, b: a * b,
        grid=lambda s, n: ((n + 255) // 256, 1, 1),
        schedules=(Schedule(256),),
    )
    try:
        (step,) = _steps(kernel, "1000")
    except InvalidArgument as error:
        message = str(error)
        assert '{"op": n}' not in message and "struct" in message, message
    else:
        assert len(step.arguments) == 5, step.arguments

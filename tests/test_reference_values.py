"""A numpy reference takes a by-value scalar by its name (round 23 gap 2): a CUDA kernel
without a uniform block gets ``const float eps`` from ``defaults`` or ``params(size)``,
and its reference, written ``def ref(output, input, gamma, eps)``, gets the same value;
so does a parameter named like a dimension of the size."""

from __future__ import annotations

import numpy as np
import pytest

import oracle
from forge import BufferSpec, KernelSpec, ReferenceFailed, Schedule

_SCALE = r"""
extern "C" __global__ void scale(const float* x, float* y, int n, float alpha) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = alpha * x[i];
}
"""


def _kernel(reference, **fields) -> KernelSpec:
    base = dict(
        id="ref_values",
        entry_point="scale",
        sources={"cuda": _SCALE},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
        ),
        reference=reference,
        defaults={"alpha": 3.0},
        grid=lambda s, n: ((n + 63) // 64, 1, 1),
        schedules=(Schedule(64),),
    )
    base.update(fields)
    return KernelSpec(**base)


def _run(kernel: KernelSpec, size=8):
    x = np.arange(size, dtype=np.float32)
    y = np.zeros(size, np.float32)
    kernel.run_reference([x, y], kernel.size(size))
    return x, y


def test_a_value_from_defaults_reaches_the_reference_by_name():
    x, y = _run(_kernel(lambda x, alpha: alpha * x))
    assert y.tolist() == (3 * x).tolist()


def test_a_value_from_params_and_a_dimension_of_the_size_reach_it_too():
    def reference(x, y, n, alpha):
        y[:n] = alpha * x[:n]

    kernel = _kernel(reference, params=lambda n: {"alpha": 0.5})
    x, y = _run(kernel)
    assert y.tolist() == (0.5 * x).tolist()


def test_the_value_replaces_the_parameters_own_default():
    """A reference kept its own default where the value could not reach it (the round's
    RMSNorm): the kernel's value is the one the kernel is run with."""
    x, y = _run(_kernel(lambda x, alpha=1.0: alpha * x))
    assert y.tolist() == (3 * x).tolist()


def test_a_parameter_named_like_a_buffer_is_still_the_buffer():
    kernel = _kernel(lambda x, alpha: alpha * x, defaults={"alpha": 3.0, "x": 1.0})
    x, y = _run(kernel)
    assert y.tolist() == (3 * x).tolist()


def test_a_reference_that_cannot_be_called_says_which_values_it_may_take():
    kernel = _kernel(lambda x, y, beta: beta * x)  # beta: no buffer, no value
    with pytest.raises(ReferenceFailed, match=r"give \(n, alpha\) gets that value"):
        _run(kernel)


def test_the_oracle_judges_such_a_reference_on_the_reference_backend():
    ev = oracle.evaluate("reference", _kernel(lambda x, alpha: alpha * x), size=100, samples=0)
    assert ev.passed, ev.report()


def test_a_float8_result_for_a_byte_output_is_told_to_view_its_bytes():
    """An FP8 output is declared as a u8 buffer; ml_dtypes' float8 returned for it keeps
    its bits with .view(np.uint8), where .astype(np.uint8) converts 448.0 to 0 (round 23
    gap 8). A float32 result for it is still told to cast."""
    import ml_dtypes

    def quantize(x):
        return x.astype(ml_dtypes.float8_e4m3fn)

    kernel = _kernel(
        quantize,
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "u8", "read_write", name="y"),
        ),
    )
    x, y = np.arange(8, dtype=np.float32), np.zeros(8, np.uint8)
    with pytest.raises(ReferenceFailed, match=r"\.view\(np\.uint8\); \.astype would convert"):
        kernel.run_reference([x, y], kernel.size(8))
    wide = _kernel(lambda x: x * 2, buffers=kernel.buffers)
    with pytest.raises(ReferenceFailed, match=r"cast it: \.astype\(np\.uint8\)"):
        wide.run_reference([x, y], kernel.size(8))


def test_a_wider_result_of_the_same_kind_is_taken_cast():
    """A reference computing in float64 returns float64 for an f32 output (round 28's
    device-variable kernel, ``2.0 * x.astype(np.float64)``): refused until the GPU
    run of 2026-12-05 showed the right kernel never judged. Now it is cast, as are
    integers an integer output holds exactly (``x.sum()`` is int64 for int32 ``x``);
    integers that do not fit, and floats for an integer output, are still refused."""
    x, y = _run(_kernel(lambda x: 3.0 * x.astype(np.float64)))
    assert y.dtype == np.float32 and y.tolist() == (3 * x).tolist()
    ints = (BufferSpec(0, "i32", "read", name="x"), BufferSpec(1, "i32", "read_write", name="y"))
    x = np.arange(-4, 4, dtype=np.int32)
    y = np.zeros(8, np.int32)
    kernel = _kernel(lambda x: x.astype(np.int64) * 3, buffers=ints)
    kernel.run_reference([x, y], kernel.size(8))
    assert y.tolist() == (3 * x).tolist()
    huge = _kernel(lambda x: x.astype(np.int64) + 2**40, buffers=ints)
    with pytest.raises(ReferenceFailed, match=r"dtype int64; the output holds .* int32"):
        huge.run_reference([x, np.zeros(8, np.int32)], huge.size(8))
    rounded = _kernel(lambda x: x * 0.5, buffers=ints)
    with pytest.raises(ReferenceFailed, match=r"cast it: \.astype\(np\.int32\)"):
        rounded.run_reference([x, np.zeros(8, np.int32)], rounded.size(8))


def test_a_reference_whose_parameters_name_only_values_is_told_so_not_an_index_error():
    """A reference named after no buffer but after a value (a misnamed buffer
    parameter, round 66) fell into the value path and died in ours with an IndexError,
    reported as the reference's own out-of-range index."""
    with pytest.raises(ReferenceFailed, match=r"would give a buffer to alpha"):
        _run(_kernel(lambda alpha: None))
    with pytest.raises(ReferenceFailed, match=r"missing 1 required positional argument") as info:
        _run(_kernel(lambda a, b, c, alpha: None))
    assert "IndexError" not in str(info.value)


def test_a_reference_taking_the_buffers_as_star_args_gets_the_value_by_keyword():
    def reference(*arrays, alpha):
        arrays[1][:] = alpha * arrays[0]

    x, y = _run(_kernel(reference))
    assert y.tolist() == (3 * x).tolist()

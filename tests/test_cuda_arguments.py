"""How a raw CUDA kernel's ``__global__`` parameters meet the spec's buffers and
uniform fields: by name when every parameter is named like one; else by position and
kind (pointers take the buffers in binding order, values the uniform's fields, or the
whole uniform for one struct parameter); and an error that names the parameters when
neither fits, instead of a silently guessed order (red-team finding F7c)."""

from __future__ import annotations

import numpy as np
import pytest

import forge
import oracle
from forge import BufferSpec, InvalidArgument, KernelSpec, Schedule
from oracle.pytest_plugin import require_available

_BUFFERS = (
    BufferSpec(0, "f32", "read", name="tokens"),
    BufferSpec(1, "f32", "read_write", name="out"),
    BufferSpec.uniform(2, (("n", "i32"), ("scale", "f32"))),
)


def _arguments(signature: str, buffers=_BUFFERS):
    source = f'extern "C" __global__ void k({signature}) {{ }}'
    kernel = KernelSpec(
        id="k",
        entry_point="k",
        sources={"cuda": source},
        buffers=buffers,
        grid=lambda s, n: (1, 1, 1),
        schedules=(Schedule(32),),
        test_sizes=(4,),
    )
    (step,) = kernel.steps("cuda", Schedule(32), 4)
    return step.arguments


def test_parameters_named_like_the_spec_are_matched_by_name_in_any_order():
    assert _arguments("float scale, const float* tokens, int n, float* out") == (
        ("field", "scale"),
        ("buffer", 0),
        ("field", "n"),
        ("buffer", 1),
    )


def test_parameters_named_otherwise_are_matched_by_position_and_kind():
    assert _arguments("const float* inp, float* y, int count, float s") == (
        ("buffer", 0),
        ("buffer", 1),
        ("field", "n"),
        ("field", "scale"),
    )
    assert _arguments("const float* inp, float* y, const Params p") == (
        ("buffer", 0),
        ("buffer", 1),
        ("uniform", None),
    )


def test_one_struct_parameter_takes_the_whole_uniform_even_of_one_field():
    """The emitters' kernels take ``const Params p``: a struct padded to 16 bytes,
    never the one field alone (the H200's driver refused the 4-byte argument)."""
    one_field = (*_BUFFERS[:2], BufferSpec.uniform(2, (("n", "u32"),)))
    assert _arguments("const float* a, float* b, const Params p", one_field) == (
        ("buffer", 0),
        ("buffer", 1),
        ("uniform", None),
    )
    assert _arguments("const float* a, float* b, unsigned int count", one_field) == (
        ("buffer", 0),
        ("buffer", 1),
        ("field", "n"),
    )


def test_a_parameter_that_fits_nothing_is_named_in_the_error():
    with pytest.raises(InvalidArgument, match=r"\['inp', 'y', 'count'\].*2 pointer and 1 value"):
        _arguments("const float* inp, float* y, int count")
    with pytest.raises(InvalidArgument, match=r"3 pointer and 2 value"):
        _arguments("const float* inp, const float* w, float* y, int count, float s")


def test_a_name_that_contradicts_its_position_is_refused():
    with pytest.raises(
        InvalidArgument,
        match="'out' of k is named like buffer 'out' but sits where buffer 'tokens' goes",
    ):
        _arguments("float* out, float* inp, int n, float s")
    # marked const, the input is told from the output, and the name agrees
    assert _arguments("float* out, const float* inp, int n, float s")[:2] == (
        ("buffer", 1),
        ("buffer", 0),
    )


# -- scalars by value without a uniform block ------------------------------------------
# CUDA code passes sizes and coefficients as plain parameters (``int n, float eps``), and
# people say where their values come from with ``params``/``defaults``, not a uniform.
_TWICE_PLUS = r"""
#include <cuda_fp16.h>
extern "C" __global__ void twice_plus(const float* x, float* y, int n, float shift,
                                      unsigned long long stride, __half h, double d) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i] + shift + (float)stride + __half2float(h) + (float)d;
}
"""


def _twice_plus(**overrides):
    fields = dict(
        id="twice_plus",
        entry_point="twice_plus",
        sources={"cuda": _TWICE_PLUS},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
        ),
        reference=lambda x, y: x * np.float32(2) + np.float32(0.25 + 3 + 0.5 + 0.125),
        grid=lambda s, n: ((n + 63) // 64, 1, 1),
        params=lambda n: {"n": n},
        defaults={"shift": 0.25, "stride": 3, "h": 0.5, "d": 0.125},
        schedules=(Schedule(64),),
        test_sizes=(100, 1, 4099),
        template=False,
    )
    fields.update(overrides)
    return KernelSpec(**fields)


def test_scalar_parameters_take_params_and_defaults_in_their_declared_c_types():
    (step,) = _twice_plus().steps("cuda", Schedule(64), 100)
    assert step.arguments == (
        ("buffer", 0),
        ("buffer", 1),
        ("value", ("n", np.int32(100).tobytes())),
        ("value", ("shift", np.float32(0.25).tobytes())),
        ("value", ("stride", np.uint64(3).tobytes())),
        ("value", ("h", np.float16(0.5).tobytes())),
        ("value", ("d", np.float64(0.125).tobytes())),
    )


def test_a_scalar_value_its_c_type_cannot_hold_is_refused_by_name():
    with pytest.raises(InvalidArgument, match=r"int n cannot hold .*outside int32's range"):
        _twice_plus().steps("cuda", Schedule(64), 3_000_000_000, 2**40)
    with pytest.raises(InvalidArgument, match=r"unsigned long long stride cannot hold 1.5"):
        _twice_plus(defaults={"shift": 0.25, "stride": 1.5, "h": 0.5, "d": 0.125}).steps(
            "cuda", Schedule(64), 100
        )


def test_a_scalar_no_one_gives_a_value_is_named_in_the_error():
    with pytest.raises(InvalidArgument, match=r"\['stride'\]"):
        _twice_plus(defaults={"shift": 0.25, "h": 0.5, "d": 0.125}).steps("cuda", Schedule(64), 1)


@pytest.mark.parametrize("backend", ["reference", "cuda"])
def test_a_kernel_with_scalar_parameters_runs_and_passes(request, backend):
    require_available(request.config, backend)
    with forge.open_context(backend) as ctx:
        for size in (100, 1, 4099):
            ev = oracle.evaluate(ctx, _twice_plus(), size=size)
            assert ev.passed, ev.report()


def test_a_frozen_kernel_keeps_its_scalar_values_for_the_worker():
    """Workers run the kernel frozen at one size (no Python functions): its scalars by
    value must still reach the launch, with the values params(size) gave."""
    kernel = _twice_plus()
    frozen = kernel.frozen("cuda", Schedule(64), 100)
    assert frozen.steps("cuda", Schedule(64), 100) == kernel.steps("cuda", Schedule(64), 100)


def test_a_scalar_named_like_a_dimension_of_the_size_takes_it_with_no_params():
    """``int n`` (or ``int rows, int cols`` for a 2-D size) is the problem size people
    mean; no params or defaults are needed for it, also in the worker's frozen kernel."""
    source = r"""extern "C" __global__ void scale(const float* x, float* y, int rows, int cols) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < rows * cols) y[i] = 2.0f * x[i];
    }"""
    kernel = KernelSpec(
        id="scale",
        entry_point="scale",
        sources={"cuda": source},
        dims=("rows", "cols"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="rows*cols"),
            BufferSpec(1, "f32", "read_write", name="y", count="rows*cols"),
        ),
        reference=lambda x, y: 2 * x,
        grid=lambda s, size: ((size.rows * size.cols + 63) // 64, 1, 1),
        schedules=(Schedule(64),),
        template=False,
    )
    size = kernel.size("3x70")
    (step,) = kernel.steps("cuda", Schedule(64), size)
    assert step.arguments[2:] == (
        ("value", ("rows", np.int32(3).tobytes())),
        ("value", ("cols", np.int32(70).tobytes())),
    )
    frozen = kernel.frozen("cuda", Schedule(64), size)
    assert frozen.steps("cuda", Schedule(64), size) == (step,)


def test_pointers_named_otherwise_go_by_position_and_n_still_takes_the_size():
    """``(const float* in, float* out, int n)`` over buffers named ``input`` and
    ``output``: the pointers match no name, so they take the buffers by position, and
    ``int n`` is the size's dimension by its name (it was refused: "2 pointer and 1
    value parameters do not fit 2 buffers and 0 uniform fields")."""
    buffers = (
        BufferSpec(0, "f32", "read", name="input"),
        BufferSpec(1, "f32", "read_write", name="output"),
    )
    assert _arguments("const float* __restrict__ in, float* __restrict__ out, int n", buffers) == (
        ("buffer", 0),
        ("buffer", 1),
        ("value", ("n", np.int32(4).tobytes())),
    )
    assert _arguments("int n, const float* in, float* out", buffers)[0] == (
        "value",
        ("n", np.int32(4).tobytes()),
    )
    with pytest.raises(InvalidArgument, match="count"):  # a scalar no one gives a value
        _arguments("const float* in, float* out, int count", buffers)


def test_n_takes_the_size_beside_a_uniform_block_shared_with_wgsl():
    """A spec shared by a WGSL and a CUDA source has a uniform block (WGSL reads its
    scalars from one); the CUDA side's ``int n`` that is no field of it is the size, as
    without a block (it was refused: "the parameters ['n'] name no buffer or uniform
    field")."""
    buffers = (
        BufferSpec(0, "f32", "read", name="x"),
        BufferSpec(1, "f32", "read_write", name="y"),
        BufferSpec.uniform(2, (("scale", "f32"),)),
    )
    assert _arguments("const float* x, float* y, float scale, int n", buffers) == (
        ("buffer", 0),
        ("buffer", 1),
        ("field", "scale"),
        ("value", ("n", np.int32(4).tobytes())),
    )


def test_const_pointers_take_the_inputs_when_the_output_comes_first():
    """``(float* d_out, const float* d_in, int n)`` over buffers x (read) and y
    (written): by binding order d_out got the input; the const marks which is which."""
    buffers = (
        BufferSpec(0, "f32", "read", name="x"),
        BufferSpec(1, "f32", "read_write", name="y"),
    )
    assert _arguments("float* d_out, const float* __restrict__ d_in, int n", buffers) == (
        ("buffer", 1),
        ("buffer", 0),
        ("value", ("n", np.int32(4).tobytes())),
    )
    # with no const to tell them apart, binding order stays
    assert _arguments("float* a, float* b, int n", buffers)[:2] == (("buffer", 0), ("buffer", 1))

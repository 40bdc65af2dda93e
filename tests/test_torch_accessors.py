"""PyTorch's packed tensor accessors as CUDA kernel parameters (round 75: PyTorch's own
extension tutorial passes every tensor as a ``torch::PackedTensorAccessor32``): each
takes the buffer of its name, packed as ATen lays the accessor out, from the buffer's
declared shape; NVRTC compiles the device part with a header of ours, and its PTX
declares each parameter the size the backend packs. The packed bytes are checked here;
the kernel reading them is the GPU run's (tests/wild/round75.py)."""

from __future__ import annotations

import numpy as np
import pytest

from forge import BufferSpec, InvalidArgument, KernelSpec, Schedule
from forge.arguments import accessor_bytes, accessor_type
from tests.test_cuda_fake_driver import device_array, fake_driver, ptr  # noqa: F401

_SIZE = "2x5"
_SIGNATURE = (
    "const torch::PackedTensorAccessor32<float,3,torch::RestrictPtrTraits> x, "
    "torch::PackedTensorAccessor64<float,2> y, int scale"
)


def _kernel(signature: str = _SIGNATURE, x_shape=("B", 3, "S"), names=("x", "y")):
    source = (
        "#include <torch/extension.h>\n"
        f"__global__ void k({signature}) {{ y[0][0] = x[0][1][2] * scale; }}\n"
    )
    return KernelSpec(
        id="accessors",
        entry_point="k",
        sources={"cuda": source},
        dims=("B", "S"),
        buffers=(
            BufferSpec(0, "f32", "read", name=names[0], count="B*3*S", shape=x_shape),
            BufferSpec(1, "f32", "read_write", name=names[1], count="B*S", shape=("B", "S")),
        ),
        defaults={"scale": 2},
        grid=lambda s, size: (1, 1, 1),
        schedules=(Schedule(32),),
        test_sizes=("2x5",),
    )


@pytest.mark.parametrize(
    "type_, found",
    [
        ("const torch::PackedTensorAccessor32<float,3,torch::RestrictPtrTraits>", (3, 4)),
        ("torch::PackedTensorAccessor64<double, 2>", (2, 8)),
        ("at::PackedTensorAccessor<float,1,at::DefaultPtrTraits,int64_t>", (1, 8)),
        ("at::GenericPackedTensorAccessor<float, 4, at::RestrictPtrTraits, int32_t>", (4, 4)),
        ("const float*", None),
        ("Params", None),
    ],
)
def test_an_accessor_type_is_read_for_its_dimensions_and_index_width(type_, found):
    assert accessor_type(type_) == found


def test_an_accessor_is_packed_as_aten_lays_it_out():
    # the data pointer, then sizes and C-order strides in the index type, 8-aligned
    raw = accessor_bytes(0x7F0000001000, (2, 3, 5), 4)
    assert len(raw) == 32
    assert int.from_bytes(raw[:8], "little") == 0x7F0000001000
    assert np.frombuffer(raw[8:32], "<i4").tolist() == [2, 3, 5, 15, 5, 1]
    wide = accessor_bytes(16, (7,), 8)
    assert np.frombuffer(wide[8:], "<i8").tolist() == [7, 1] and len(wide) == 24


def test_each_accessor_takes_the_buffer_of_its_name():
    kernel = _kernel()
    (step,) = kernel.steps("cuda", Schedule(32), kernel.size(_SIZE))
    assert step.arguments[:2] == (("accessor", (0, 3, 4)), ("accessor", (1, 2, 8)))


def test_accessors_without_names_take_the_buffers_by_position():
    kernel = _kernel(names=("a", "b"))
    (step,) = kernel.steps("cuda", Schedule(32), kernel.size(_SIZE))
    assert step.arguments[:2] == (("accessor", (0, 3, 4)), ("accessor", (1, 2, 8)))


def test_an_accessor_over_a_buffer_of_other_dimensions_is_refused_naming_the_fix():
    with pytest.raises(InvalidArgument, match=r"3-D PyTorch accessor over buffer x.*shape=\(...\)"):
        kernel = _kernel(x_shape=("B", "3*S"))
        kernel.steps("cuda", Schedule(32), kernel.size(_SIZE))


def test_an_accessor_given_a_value_by_arguments_is_refused():
    kernel = _kernel()
    kernel = KernelSpec(**{**kernel.__dict__, "arguments": ("scale", "y", "scale")})
    with pytest.raises(InvalidArgument, match="name a buffer there"):
        kernel.steps("cuda", Schedule(32), kernel.size(_SIZE))


def test_a_frozen_kernel_keeps_the_shapes_its_accessors_take():
    """A worker runs the kernel frozen at one size, whose buffers are flat: a buffer an
    accessor takes keeps its shape there, and the arguments are the same."""
    kernel = _kernel()
    size, schedule = kernel.size(_SIZE), Schedule(32)
    (step,) = kernel.steps("cuda", schedule, size)
    frozen = kernel.frozen("cuda", schedule, size, 65535)
    (again,) = frozen.steps("cuda", schedule, frozen.size(size))
    assert again.arguments == step.arguments
    assert frozen.buffers[0].shape == (2, 3, 5)


_SCALE_ROWS = """#include <torch/extension.h>
extern "C" __global__ void middle_row(
    const torch::PackedTensorAccessor32<float,3,torch::RestrictPtrTraits> x,
    torch::PackedTensorAccessor32<float,2,torch::RestrictPtrTraits> y) {
  const int n = blockIdx.y, c = threadIdx.x;
  if (c < x.size(2)) y[n][c] = 2.0f * x[n][1][c];
}
"""


def test_the_backend_packs_each_accessor_as_the_kernel_reads_it(fake_driver):
    """On the simulated driver (no GPU), a kernel that reads its arguments through the
    ``void**`` array as ATen's accessor lays them out: the pointers, sizes and strides
    the backend packed, at the sizes NVRTC's PTX declares (32 and 24 bytes)."""
    import forge
    from backends.cuda import CudaComputeContext

    def middle_row(args, grid, block):
        x_sizes, x_strides = np.frombuffer(args[0][8:32], "<i4").reshape(2, 3)
        y_sizes, y_strides = np.frombuffer(args[1][8:24], "<i4").reshape(2, 2)
        assert x_sizes.tolist() == [2, 3, 5] and x_strides.tolist() == [15, 5, 1]
        assert y_sizes.tolist() == [2, 5] and y_strides.tolist() == [5, 1]
        x = device_array(ptr(args[0]), 30, np.float32).reshape(2, 3, 5)
        device_array(ptr(args[1]), 10, np.float32).reshape(2, 5)[:] = 2 * x[:, 1, :]

    fake_driver.kernels["middle_row"] = (middle_row, (32, 24))
    kernel = KernelSpec(
        id="middle_row",
        entry_point="middle_row",
        sources={"cuda": _SCALE_ROWS},
        dims=("B", "S"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="B*3*S", shape=("B", 3, "S")),
            BufferSpec(1, "f32", "read_write", name="y", count="B*S", shape=("B", "S")),
        ),
        grid=lambda s, size: (1, int(size.B), 1),
        schedules=(Schedule(32),),
        test_sizes=(_SIZE,),
    )
    rw = forge.BindingUsage.STORAGE_READ_WRITE
    with CudaComputeContext(1 << 20) as ctx:
        x = np.arange(30, dtype=np.float32)
        views = [ctx.allocate_and_write(x, 0), ctx.allocate_transient(40, 1, usage=rw)]
        ctx.run_kernel(kernel, Schedule(32), views, kernel.size(_SIZE))
        got = ctx.read_buffer_f32(views[1])
    assert got.tolist() == (2 * x.reshape(2, 3, 5)[:, 1, :]).reshape(-1).tolist()


_HALF_MATH = """#include <torch/extension.h>
template <typename scalar_t>
__device__ __forceinline__ scalar_t sigmoid(scalar_t z) { return 1.0 / (1.0 + exp(-z)); }
template <typename scalar_t>
__global__ void mixed(const torch::PackedTensorAccessor32<scalar_t,1,torch::RestrictPtrTraits> x,
                      torch::PackedTensorAccessor32<scalar_t,1,torch::RestrictPtrTraits> y) {
  const int i = threadIdx.x;
  if (i < x.size(0)) {
    scalar_t v = x[i] * 2.0f + x[i];
    v += 1;
    y[i] = (v < x[i]) ? sigmoid(v) : static_cast<scalar_t>(fmaxf(static_cast<float>(v), 0.f)) * 2;
  }
}
"""
_HALF_POINTERS = """template <typename scalar_t>
__global__ void mixed(const scalar_t* x, scalar_t* y) { y[threadIdx.x] = x[threadIdx.x] * 2.0f; }
"""


@pytest.mark.parametrize("source", [_HALF_MATH, _HALF_POINTERS], ids=["accessors", "pointers"])
@pytest.mark.parametrize("scalar", ["float", "at::Half", "c10::BFloat16"])
def test_an_extension_instantiated_for_half_and_bfloat16_compiles(source, scalar):
    """c10's Half and BFloat16 as ATen's device code sees them: arithmetic with floats,
    doubles and ints (PyTorch's extension builds define __CUDA_NO_HALF_CONVERSIONS__,
    so a comparison finds only float's); the header comes with an entry point that
    names them too (``mixed<at::Half>`` over raw pointers)."""
    pytest.importorskip("cuda.bindings")
    from backends.cuda._modules import check_steps, module_build

    element = {"float": "f32", "at::Half": "f16", "c10::BFloat16": "bf16"}[scalar]
    kernel = KernelSpec(
        id="mixed",
        entry_point=f"mixed<{scalar}>",
        sources={"cuda": source},
        buffers=(
            BufferSpec(0, element, "read", name="x"),
            BufferSpec(1, element, "read_write", name="y"),
        ),
        grid=lambda s, n: (1, 1, 1),
        schedules=(Schedule(64),),
        test_sizes=(64,),
    )
    size, schedule = kernel.size(64), kernel.schedules[0]
    text = kernel.source("cuda", schedule, size)
    steps = kernel.steps("cuda", schedule, size, 65535, text)
    image, _, entries = module_build(kernel, steps, text, "sm_90").build()
    assert image
    check_steps(kernel, steps, entries, text)


@pytest.mark.parametrize(
    "declared, type_, found",
    [
        (
            "template <typename T, size_t N>\n"
            "using CudaAcsr = const at::PackedTensorAccessor<T, N, at::RestrictPtrTraits,"
            " int32_t>;",
            "CudaAcsr<float, 3>",
            (3, 4),
        ),
        (
            "using Rows = torch::PackedTensorAccessor64<float, 2, torch::RestrictPtrTraits>;",
            "const Rows",
            (2, 8),
        ),
        ("typedef torch::PackedTensorAccessor32<int, 1> Ids;", "Ids", (1, 4)),
        ("template <typename T> using Vec = T*;", "Vec<float>", None),
    ],
)
def test_an_accessor_named_through_an_alias_of_the_source_is_read(declared, type_, found):
    assert accessor_type(type_, declared + "\n__global__ void k() {}") == found

"""How kernel-forge reads a real CUDA kernel's declaration, and what it does when it
cannot (round 23): the function's name in an entry point whose template arguments hold
``::``, a definition read before its prototype, pointers to arrays; an unreadable
declaration is an error saying what to write, never the old silent "buffers by binding,
the uniform last"; and the safety net behind the reader, device-free: each launch is
compared with what NVRTC's PTX declares of its entry point (the number and sizes of its
parameters, its ``__launch_bounds__``)."""

from __future__ import annotations

import numpy as np
import pytest

from forge import BufferSpec, CompileError, KernelSpec, Schedule, UnsupportedFeature, sources

_XY = (
    BufferSpec(0, "f32", "read", name="x"),
    BufferSpec(1, "f32", "read_write", name="y"),
)


def _kernel(source: str, entry: str = "scale", **fields) -> KernelSpec:
    base = dict(
        id="decl",
        entry_point=entry,
        sources={"cuda": source},
        buffers=_XY,
        reference=lambda x: 2 * x,
        grid=lambda s, n: ((n + 63) // 64, 1, 1),
        schedules=(Schedule(64),),
    )
    base.update(fields)
    return KernelSpec(**base)


def _steps(kernel: KernelSpec, size=1000, schedule=None):
    schedule = schedule or kernel.schedules[0]
    size = kernel.size(size)
    source = kernel.source("cuda", schedule, size)
    return kernel.steps("cuda", schedule, size, 2**31 - 1, source)


# -- the reader ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "entry, name",
    [
        ("scale", "scale"),
        ("ns::scale<float>", "scale"),
        (
            "vllm::act_and_mul_kernel<__nv_bfloat16, vllm::silu_kernel<__nv_bfloat16>, true>",
            "act_and_mul_kernel",
        ),
        ("act_and_mul_kernel<float, ::vllm::silu_kernel<float>, false>", "act_and_mul_kernel"),
        ("vllm::act_and_mul_kernel<float, &vllm::silu_kernel<float>, true>", "act_and_mul_kernel"),
        ("&scale", "scale"),
    ],
)
def test_the_function_name_is_the_last_scope_part_before_the_template_arguments(entry, name):
    assert sources.cuda_function_name(entry) == name


_NAMESPACED = r"""
namespace vllm {
template <typename T> __device__ T silu_kernel(const T& x) { return x; }
template <typename scalar_t, scalar_t (*ACT_FN)(const scalar_t&), bool act_first>
__global__ void act_and_mul_kernel(scalar_t* __restrict__ out, const scalar_t* __restrict__ input,
                                   const int d) {}
}
"""


def test_a_template_argument_holding_a_scope_does_not_hide_the_declaration():
    params = sources.cuda_parameters(
        _NAMESPACED, "vllm::act_and_mul_kernel<float, vllm::silu_kernel<float>, true>"
    )
    assert [(p.name, p.type, p.pointer) for p in params] == [
        ("out", "float* __restrict__", True),
        ("input", "const float* __restrict__", True),
        ("d", "const int", False),
    ]


def test_a_definition_is_read_before_a_prototype_with_unnamed_parameters():
    source = r"""
extern "C" __global__ void scale(const float*, float*, int);
extern "C" __global__ void scale(const float* x, float* y, int n) { }
"""
    assert [p.name for p in sources.cuda_parameters(source, "scale")] == ["x", "y", "n"]
    (step,) = _steps(_kernel(source))
    assert step.arguments == (
        ("buffer", 0),
        ("buffer", 1),
        ("value", ("n", np.int32(1000).tobytes())),
    )


def test_a_prototype_that_names_its_parameters_is_read_when_no_definition_follows():
    source = 'extern "C" __global__ void scale(const float* x, float* y, unsigned n);'
    params = sources.cuda_parameters(source, "scale")
    assert [(p.name, p.type) for p in params] == [
        ("x", "const float*"),
        ("y", "float*"),
        ("n", "unsigned"),
    ]


def test_a_pointer_to_arrays_is_a_pointer_parameter():
    source = (
        "__global__ void tiles(float (*tile)[64], const float (* __restrict__ in)[4][4], int n) {}"
    )
    params = sources.cuda_parameters(source, "tiles")
    assert [(p.name, p.type, p.pointer) for p in params] == [
        ("tile", "float (*)[64]", True),
        ("in", "const float (*)[4][4]", True),
        ("n", "int", False),
    ]


@pytest.mark.parametrize(
    "source, entry, problem",
    [
        (
            "__global__ void scale(const float* x, float* y, int) {}",
            "scale",
            r"takes 3 parameters \(const float\* x, float\* y, int\).*'int' of scale has no name",
        ),
        (
            "__global__ void other(const float* x, float* y, int n) {}",
            "scale",
            "no __global__ function named 'scale'",
        ),
    ],
)
def test_an_unreadable_declaration_is_an_error_saying_what_to_write(source, entry, problem):
    """It was "buffers by binding, the uniform last" without a word: the by-value
    parameters got nothing, and validation said validated."""
    with pytest.raises(CompileError, match=problem) as error:
        _steps(_kernel(source, entry))
    assert "arguments=('x', 'y', ...)" in str(error.value)
    assert sources.cuda_parameters(source, entry) is None


def test_arguments_still_bind_a_declaration_that_cannot_be_read():
    source = "__global__ void scale(const float* x, float* y, int) {}"
    (step,) = _steps(_kernel(source, arguments=("x", "y", "n")))
    assert step.arguments[2] == ("value", ("n", np.int32(1000).tobytes()))


# -- the PTX safety net ------------------------------------------------------------------


def test_the_ptx_gives_each_entry_points_parameter_sizes_and_launch_bounds():
    from backends.cuda._nvrtc import EntryInfo, ptx_entries

    ptx = """
.visible .entry f(
	.param .u64 f_param_0,
	.param .u32 f_param_1,
	.param .align 16 .b8 f_param_2[32],
	.param .u64 .ptr .global .align 4 f_param_3
)
.maxntid 256, 1, 1
{
}
.visible .entry g()
.reqntid 32, 4, 1
.reqnctapercluster 2, 1, 1
{
}
"""
    assert ptx_entries(ptx) == {
        "f": EntryInfo((8, 4, 32, 8), 256, ()),
        "g": EntryInfo((), 0, (32, 4, 1), (2, 1, 1)),
    }


def _checked(kernel: KernelSpec, size=1000, schedule=None) -> None:
    """What compile_ahead and the CUDA context do before a launch: compile with NVRTC
    (no GPU) and compare each step with its PTX."""
    from backends.cuda._modules import check_steps, module_build

    schedule = schedule or kernel.schedules[0]
    size = kernel.size(size)
    source = kernel.source("cuda", schedule, size)
    steps = kernel.steps("cuda", schedule, size, 2**31 - 1, source)
    _, _, entries = module_build(kernel, steps, source, "sm_90").build()
    check_steps(kernel, steps, entries, source)


def test_the_ptx_catches_a_launch_passing_fewer_arguments_than_the_kernel_takes():
    pytest.importorskip("cuda.bindings")
    source = 'extern "C" __global__ void scale(const float* x, float* y, int) {}'
    with pytest.raises(CompileError, match=r"takes 3 parameters \(its PTX declares\).*passes 2"):
        _checked(_kernel(source, arguments=("x", "y")))


def test_the_ptx_catches_an_argument_of_the_wrong_size():
    """An unnamed ``long`` given a Python int by ``arguments=`` (packed as a C int)."""
    pytest.importorskip("cuda.bindings")
    source = 'extern "C" __global__ void scale(const float* x, float* y, long) {}'
    with pytest.raises(CompileError, match=r"parameter 2 of scale is 8 bytes \(its PTX declares\)"):
        _checked(_kernel(source, arguments=("x", "y", "n")))
    _checked(_kernel(source, arguments=("x", "y", "n"), params=lambda n: {"n": np.int64(n)}))


def test_compile_ahead_refuses_a_launch_its_ptx_cannot_take_with_no_gpu():
    pytest.importorskip("cuda.bindings")
    from backends.cuda._modules import compile_ahead

    source = 'extern "C" __global__ void scale(const float* x, float* y, int) {}'
    kernel = _kernel(source, arguments=("x", "y"))
    with pytest.raises(CompileError, match="takes 3 parameters"):
        compile_ahead(kernel, kernel.schedules[0], 1000, "sm_90", 2**31 - 1)


_BOUNDED = r"""
extern "C" __global__ void __launch_bounds__(256) scale(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}
"""


def test_a_block_larger_than_the_launch_bounds_is_refused_before_launch():
    """The driver refuses such a launch with an error that names no cause (round 23
    gap 9)."""
    pytest.importorskip("cuda.bindings")
    _checked(_kernel(_BOUNDED, schedules=(Schedule(256),)))
    with pytest.raises(UnsupportedFeature, match=r"at most 256 threads.*__launch_bounds__.*512"):
        _checked(_kernel(_BOUNDED, schedules=(Schedule(512),)))


def test_a_grid_of_partial_clusters_is_refused_before_launch():
    """The CUDA guide's cluster histogram (``__cluster_dims__(2, 1, 1)``, round 23):
    its PTX's ``.reqnctapercluster 2, 1, 1`` is read, and a grid of an odd number of
    blocks, which the driver refuses with no cause, is refused saying why."""
    pytest.importorskip("cuda.bindings")
    import dataclasses

    from tests.wild.round23 import CLUSTER_HIST

    kernel = CLUSTER_HIST.kernel
    _checked(kernel, size=4099)
    odd = dataclasses.replace(kernel, grid=lambda s, size: (3, 1, 1))
    with pytest.raises(UnsupportedFeature, match=r"clusters of 2x1x1 blocks.*grid of 3x1x1"):
        _checked(odd, size=4099)


def test_a_u32_field_widens_to_a_long_parameter_by_its_own_signedness():
    """llm.c's AdamW declares ``long num_parameters`` (8 bytes) where its spec, shared
    with its WGSL port, has a u32 field: passed widened, as C converts an argument (the
    corpus's CUDA kernels are compared with their PTX in tests/test_wild_kernels.py)."""
    from backends.cuda._modules import widened_field

    assert widened_field(np.dtype(np.uint32), 8) == np.dtype(np.uint64)
    assert widened_field(np.dtype(np.int32), 8) == np.dtype(np.int64)
    assert widened_field(np.dtype(np.float32), 8) == np.dtype(np.float64)
    assert widened_field(np.dtype(np.uint32), 4) is None  # the same size: as it is
    assert widened_field(np.dtype(np.float32), 2) is None  # narrowing is no conversion
    assert widened_field(np.dtype(np.int32), 16) is None


# -- advice ------------------------------------------------------------------------------


def test_a_template_entry_point_without_its_arguments_is_told_to_name_the_instance():
    """nvcc users launch ``scale<<<g, b>>>`` for ``template <int BLOCK = 256>``; NVRTC
    needs the instance (round 23 gap 13)."""
    pytest.importorskip("cuda.bindings")
    from backends.cuda._nvrtc import compile_module

    source = """template <int BLOCK = 256>
__global__ void scale(const float* x, float* y, int n) {
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}"""
    with pytest.raises(CompileError, match=r'function template: .*"scale<>" for its default'):
        compile_module(source, ["scale"], "sm_90")
    assert compile_module(source, ["scale<>"], "sm_90")[1]["scale<>"]


_FUNCTOR = r"""
struct Mul {
    __device__ float operator()(float a, float b) const { return a * b; }
};
template <typename T, typename Op>
__global__ void binary(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ out,
                       int n, Op op) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i] = op(a[i], b[i]);
}
"""
_ABC = (
    BufferSpec(0, "f32", "read", name="a"),
    BufferSpec(1, "f32", "read", name="b"),
    BufferSpec(2, "f32", "read_write", name="out"),
)


def test_a_functor_by_value_is_told_to_take_a_uniform_block_of_its_name():
    """An empty functor (CUB's and PyTorch's ``Op op``) was told to take an int
    (``params=lambda n: {"op": n}``), which cannot fill a struct (round 23 gap 10)."""
    from forge import InvalidArgument

    kernel = _kernel(_FUNCTOR, "binary<float, Mul>", buffers=_ABC, reference=lambda a, b: a * b)
    with pytest.raises(InvalidArgument) as error:
        _steps(kernel)
    message = str(error.value)
    assert '{"op": n}' not in message
    assert "'Mul op' is a struct by value" in message
    assert 'BufferSpec.uniform(3, (("_empty", "u8"),), name="op")' in message
    # what it says works, and its one byte is what the PTX declares
    advised = _kernel(
        _FUNCTOR,
        "binary<float, Mul>",
        buffers=(*_ABC, BufferSpec.uniform(3, (("_empty", "u8"),), name="op")),
        reference=lambda a, b: a * b,
    )
    (step,) = _steps(advised)
    assert step.arguments[3:] == (("value", ("n", np.int32(1000).tobytes())), ("uniform", None))
    pytest.importorskip("cuda.bindings")
    _checked(advised)


def test_kforge_validate_runs_the_same_check_with_no_gpu():
    """``kforge validate`` (``validate_source``) compares each launch with the PTX too:
    a block past ``__launch_bounds__`` is unsupported there, not "validated", and a
    width a parameter cannot take fails."""
    pytest.importorskip("cuda.bindings")
    from forge.types import ValidationLevel
    from kforge._codegen import validate_source

    kernel = _kernel(_BOUNDED, schedules=(Schedule(256), Schedule(512)))
    fits = validate_source(kernel, "cuda", Schedule(256))
    assert fits.level is ValidationLevel.VALIDATED and not fits.failed, fits.message
    past = validate_source(kernel, "cuda", Schedule(512))
    assert past.level is not ValidationLevel.VALIDATED and not past.failed
    assert "unsupported" in past.message and "256" in past.message, past.message

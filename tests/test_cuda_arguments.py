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
from forge import BufferSpec, CompileError, InvalidArgument, KernelSpec, Schedule
from forge.errors import UnsupportedFeature
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


def test_a_texture_object_named_like_a_buffer_is_made_over_it_not_given_its_address():
    """A handle the host makes with ``cudaCreateTextureObject``: given the buffer's
    address, ``tex1Dfetch`` read through a handle that does not exist; now the backend
    makes a texture object over the buffer (backends/cuda/_textures.py)."""
    assert _arguments("cudaTextureObject_t tokens, float* out, int n, float scale") == (
        ("texture", 0),
        ("buffer", 1),
        ("field", "n"),
        ("field", "scale"),
    )
    # named, among parameters matched by position
    assert _arguments("const cudaTextureObject_t tokens, float* y, int count, float s") == (
        ("texture", 0),
        ("buffer", 1),
        ("field", "n"),
        ("field", "scale"),
    )


def test_a_texture_or_surface_object_over_nothing_it_can_be_made_over_is_refused_saying_why():
    with pytest.raises(UnsupportedFeature, match=r"no buffer of the kernel is named 'tex'"):
        _arguments("cudaTextureObject_t tex, float* out, int n, float scale")
    with pytest.raises(UnsupportedFeature, match=r"surface object over a 2-D texture buffer"):
        _arguments("cudaSurfaceObject_t out, const float* tokens, int n, float scale")
    doubles = (BufferSpec(0, "f64", "read", name="tokens"), *_BUFFERS[1:])
    with pytest.raises(UnsupportedFeature, match=r"1, 2 or 4 channels.*vec2<i32>"):
        _arguments("cudaTextureObject_t tokens, float* out, int n, float scale", doubles)


def _image(sampler=None, fmt="r32float", access="read"):
    return (
        BufferSpec(0, access=access, name="img", texture=fmt, shape=(3, 5), sampler=sampler),
        BufferSpec(1, "f32", "read_write", name="out"),
        BufferSpec.uniform(2, (("n", "i32"), ("scale", "f32"))),
    )


def test_a_2d_texture_object_takes_the_declared_sampler_and_refuses_what_cuda_cannot_sample():
    sig = "cudaTextureObject_t img, float* out, int n, float scale"
    linear = forge.Sampler("linear", "clamp", normalized=False)
    assert _arguments(sig, _image(linear))[0] == ("texture", 0)
    with pytest.raises(InvalidArgument, match=r"sampler=Sampler\(filter="):
        _arguments(sig, _image())
    with pytest.raises(UnsupportedFeature, match=r"read as integers"):
        _arguments(sig, _image(linear, "r32uint"))
    # the fix it names is the one the driver applies (clamp), not normalised coordinates
    # (round 79: cuda-samples' SobelFilter and convolutionTexture set Wrap unnormalised)
    with pytest.raises(UnsupportedFeature, match=r"address='clamp', normalized=False\)"):
        _arguments(sig, _image(forge.Sampler("nearest", "repeat", normalized=False)))
    surface = "cudaSurfaceObject_t img, float* out, int n, float scale"
    assert _arguments(surface, _image(None, access="read_write"))[0] == ("surface", 0)


def test_texture_objects_are_planned_and_described_for_the_driver():
    """What ``cuTexObjectCreate`` and ``cuSurfObjectCreate`` get, checked with no GPU."""
    from cuda.bindings import driver

    from backends.cuda._textures import copy_descriptor, descriptors, plan

    kernel = KernelSpec(
        id="t",
        entry_point="k",
        sources={"cuda": 'extern "C" __global__ void k(cudaTextureObject_t img) {}'},
        buffers=(
            BufferSpec(
                0,
                name="img",
                texture="rgba8unorm",
                shape=("H", "W"),
                sampler=forge.Sampler("linear", "mirror"),
            ),
            BufferSpec(1, "f32", "read", name="flat"),
            BufferSpec(2, access="read_write", name="dst", texture="r32float", shape=("H", "W")),
        ),
        dims=("H", "W"),
        grid=lambda s, size: (1, 1, 1),
        schedules=(Schedule(32),),
    )
    size = kernel.size("H=3,W=5")
    limits = {"MAXIMUM_TEXTURE2D_WIDTH": 4, "MAXIMUM_TEXTURE1D_LINEAR_WIDTH": 1 << 27}
    with pytest.raises(UnsupportedFeature, match="at most 4 texels width"):
        plan(kernel, "texture", 0, size, 60, limits)
    image = plan(kernel, "texture", 0, size, 60, {})
    assert (image.format, image.channels, image.width, image.height) == ("UNSIGNED_INT8", 4, 5, 3)
    assert image.row_bytes == 20 and not image.read_as_integer and not image.linear
    resource, texture, array = descriptors(image, 0)
    assert resource.resType == driver.CUresourcetype.CU_RESOURCE_TYPE_ARRAY
    assert (array.Width, array.Height, array.Depth, array.NumChannels, array.Flags) == (
        5,
        3,
        0,
        4,
        0,
    )
    assert texture.filterMode == driver.CUfilter_mode.CU_TR_FILTER_MODE_LINEAR
    assert texture.addressMode[0] == driver.CUaddress_mode.CU_TR_ADDRESS_MODE_MIRROR
    assert texture.flags == driver.CU_TRSF_NORMALIZED_COORDINATES  # read as unorm floats
    with pytest.raises(InvalidArgument, match="need 60 bytes"):
        plan(kernel, "texture", 0, size, 40, {})
    flat = plan(kernel, "texture", 1, size, 64, limits)
    assert flat.linear and (flat.format, flat.channels, flat.width) == ("FLOAT", 1, 16)
    resource, texture, array = descriptors(flat, 4096)
    assert resource.resType == driver.CUresourcetype.CU_RESOURCE_TYPE_LINEAR and array is None
    assert int(resource.res.linear.devPtr) == 4096 and resource.res.linear.sizeInBytes == 64
    assert texture.filterMode == driver.CUfilter_mode.CU_TR_FILTER_MODE_POINT
    assert texture.flags == 0  # floats as stored (integers read as integers)
    surface = plan(kernel, "surface", 2, size, 60, {})
    resource, texture, array = descriptors(surface, 0)
    assert texture is None and array.Flags == driver.CUDA_ARRAY3D_SURFACE_LDST
    back = copy_descriptor(surface, 8192, driver.CUarray(), back=True)
    assert back.dstMemoryType == driver.CUmemorytype.CU_MEMORYTYPE_DEVICE
    assert int(back.dstDevice) == 8192 and back.dstPitch == 20 and back.Height == 3


def test_a_one_byte_texture_is_a_one_channel_byte_array_read_as_integers():
    """r8uint (round 79): what ``cudaCreateChannelDesc<unsigned char>()`` and
    ``cudaReadModeElementType`` make, for ``tex2D<unsigned char>``: a one-channel
    UNSIGNED_INT8 array whose rows are ``W`` bytes, read as integers."""
    from cuda.bindings import driver

    from backends.cuda._textures import descriptors, plan

    point = forge.Sampler("nearest", "clamp", normalized=False)
    kernel = KernelSpec(
        id="t8",
        entry_point="k",
        sources={"cuda": 'extern "C" __global__ void k(cudaTextureObject_t img, float* out) {}'},
        buffers=(
            BufferSpec(0, name="img", texture="r8uint", shape=("H", "W"), sampler=point),
            BufferSpec(1, "f32", "read_write", name="out"),
        ),
        dims=("H", "W"),
        grid=lambda s, size: (1, 1, 1),
        schedules=(Schedule(32),),
    )
    assert kernel.buffers[0].element == "u8" and kernel.buffers[0].shape == ("H", "W")
    image = plan(kernel, "texture", 0, kernel.size("H=3,W=5"), 15, {})
    assert (image.format, image.channels, image.row_bytes, image.size_bytes) == (
        "UNSIGNED_INT8",
        1,
        5,
        15,
    )
    _, texture, array = descriptors(image, 0)
    assert (
        array.NumChannels == 1 and array.Format == driver.CUarray_format.CU_AD_FORMAT_UNSIGNED_INT8
    )
    assert texture.flags == driver.CU_TRSF_READ_AS_INTEGER
    assert texture.filterMode == driver.CUfilter_mode.CU_TR_FILTER_MODE_POINT
    linear = forge.Sampler("linear", "clamp", normalized=False)
    with pytest.raises(UnsupportedFeature, match=r"read as integers"):
        _arguments(
            "cudaTextureObject_t img, float* out, int n, float scale", _image(linear, "r8uint")
        )


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
    # two scalars no one gives a value: which is the size would be a guess
    with pytest.raises(InvalidArgument, match=r"'count', 'stride'\]"):
        _arguments("const float* in, float* out, int count, int stride", buffers)


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


# -- arguments=(...) naming the size or a params value (FINDINGS_R5C F1) ----------------
_TILE_SCAN = r"""
template <int BLOCK_THREADS, int ITEMS_PER_THREAD>
__global__ void tile_sum(const int* d_in, int* d_out, int num_items) {
    int i = blockIdx.x * BLOCK_THREADS + threadIdx.x;
    if (i < num_items) d_out[i] = d_in[i] * ITEMS_PER_THREAD;
}
"""
_INT_BUFFERS = (
    BufferSpec(0, "i32", "read", name="d_in"),
    BufferSpec(1, "i32", "read_write", name="d_out"),
)


def _spec(source, entry="tile_sum<{{wg_x}}, 1>", buffers=_INT_BUFFERS, **fields):
    base = dict(
        id="k",
        entry_point=entry,
        sources={"cuda": source},
        buffers=buffers,
        grid=lambda s, n: (1, 1, 1),
        schedules=(Schedule(32),),
        test_sizes=(4,),
    )
    base.update(fields)
    return KernelSpec(**base)


def test_arguments_can_name_the_size_for_a_parameter_named_otherwise():
    """CUB's example names the size ``int num_items``: ``arguments=`` naming ``n`` binds
    it (it was refused: "name no buffer, uniform field or value params(size)/defaults
    give"), packed in the parameter's declared type."""
    kernel = _spec(_TILE_SCAN, arguments=("d_in", "d_out", "n"))
    (step,) = kernel.steps("cuda", Schedule(32), 4)
    assert step.arguments == (
        ("buffer", 0),
        ("buffer", 1),
        ("value", ("n", np.int32(4).tobytes())),
    )
    # the frozen kernel a worker runs gives the same arguments again
    assert kernel.frozen("cuda", Schedule(32), 4).steps("cuda", Schedule(32), 4) == (step,)


def test_a_dispatch_can_pass_a_params_value_as_another_launchs_n():
    """reduce6's second launch passes the partials' count as the same kernel's ``n``."""
    source = r"""extern "C" __global__ void part(const float* x, float* y, unsigned int n) {
        if (threadIdx.x < n) y[threadIdx.x] = x[threadIdx.x];
    }"""
    kernel = _spec(
        source,
        entry="part",
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="partial", count=64, scratch=True),
            BufferSpec(2, "f32", "read_write", name="total", count=1),
        ),
        params=lambda n: {"nparts": 64},
        launches=(
            forge.Dispatch("part", grid=(1, 1, 1), arguments=("x", "partial", "n")),
            forge.Dispatch("part", grid=(1, 1, 1), arguments=("partial", "total", "nparts")),
        ),
    )
    first, second = kernel.steps("cuda", Schedule(32), 1000)
    assert first.arguments[2] == ("value", ("n", np.uint32(1000).tobytes()))
    assert second.arguments == (
        ("buffer", 1),
        ("buffer", 2),
        ("value", ("nparts", np.uint32(64).tobytes())),
    )


def test_arguments_naming_nothing_known_says_what_is_known():
    kernel = _spec(_TILE_SCAN, arguments=("d_in", "d_out", "count"))
    with pytest.raises(InvalidArgument, match=r"\['count'\].*tile_sum<32, 1>.*n \(the size\)"):
        kernel.steps("cuda", Schedule(32), 4)


def test_arguments_of_another_length_than_the_declaration_are_refused_early():
    kernel = _spec(_TILE_SCAN, arguments=("d_in", "d_out"))
    with pytest.raises(InvalidArgument, match=r"2 arguments.*declares 3 parameters"):
        kernel.steps("cuda", Schedule(32), 4)


def test_the_by_position_error_suggests_what_works_and_renders_the_entry():
    kernel = _spec(_TILE_SCAN.replace("int num_items", "int num_items, int stride"))
    with pytest.raises(InvalidArgument) as caught:
        kernel.steps("cuda", Schedule(32), 4)
    message = str(caught.value)
    assert "tile_sum<32, 1>" in message and "{{" not in message
    for hint in ("params=lambda n:", "dims=", "arguments=("):
        assert hint in message, message


def test_a_lone_integer_parameter_of_a_1d_kernel_takes_the_size():
    """cuda-samples' ``vectorAdd(const float *A, const float *B, float *C, int
    numElements)``: one size dimension, no uniform block, and one integer scalar that
    matches no name: it is the size."""
    source = r"""__global__ void vectorAdd(const float *A, const float *B, float *C,
                                            int numElements) {
        int i = blockDim.x * blockIdx.x + threadIdx.x;
        if (i < numElements) C[i] = A[i] + B[i];
    }"""
    buffers = (
        BufferSpec(0, "f32", "read", name="a"),
        BufferSpec(1, "f32", "read", name="b"),
        BufferSpec(2, "f32", "read_write", name="c"),
    )
    kernel = _spec(source, entry="vectorAdd", buffers=buffers)
    (step,) = kernel.steps("cuda", Schedule(32), 50000)
    assert step.arguments == (
        ("buffer", 0),
        ("buffer", 1),
        ("buffer", 2),
        ("value", ("n", np.int32(50000).tobytes())),
    )
    assert kernel.frozen("cuda", Schedule(32), 7).steps("cuda", Schedule(32), 7) == (
        kernel.steps("cuda", Schedule(32), 7)
    )
    # two integers, or a 2-D size: which one is the size is a guess, so still an error
    two = _spec(source.replace("int numElements)", "int numElements, int s)"), "vectorAdd")
    with pytest.raises(InvalidArgument, match="numElements"):
        two.steps("cuda", Schedule(32), 4)


# -- __constant__ variables the host fills (cudaMemcpyToSymbol) ---------------------------
_ROWS = r"""
#define KERNEL_RADIUS 8
__constant__ float c_Kernel[2 * KERNEL_RADIUS + 1];  // cuda-samples' taps
static __device__ unsigned int launches;
namespace detail { __constant__ float hidden[4]; }
__device__ float tap(int j) { return c_Kernel[KERNEL_RADIUS - j]; }
__global__ void rows(float *d_Dst, const float *d_Src, int n) {
    __shared__ float s[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d_Dst[i] = tap(0) * d_Src[i];
}
"""


def test_the_file_scope_constant_and_device_variables_of_a_source_are_read():
    from forge.sources import cuda_device_variables

    assert cuda_device_variables(_ROWS) == ("c_Kernel", "launches")
    assert cuda_device_variables("__global__ void k(float* y) { y[0] = 1; }") == ()


def test_a_buffer_named_like_a_constant_variable_is_copied_there_not_passed():
    """cuda-samples' separable convolution reads its taps from ``__constant__ float
    c_Kernel[]``, filled by ``cudaMemcpyToSymbol``: a buffer of that name is no
    argument (the pointers take the other buffers), and the step says which variable
    it is copied into; a parameter named like it takes it as a pointer instead."""
    buffers = (
        BufferSpec(0, "f32", "read_write", name="d_Dst"),
        BufferSpec(1, "f32", "read", name="d_Src"),
        BufferSpec(2, "f32", "read", name="c_Kernel", count=17),
    )
    kernel = _spec(_ROWS, entry="rows", buffers=buffers)
    (step,) = kernel.steps("cuda", Schedule(32), 100)
    assert step.arguments == (
        ("buffer", 0),
        ("buffer", 1),
        ("value", ("n", np.int32(100).tobytes())),
    )
    assert step.symbols == ((2, "c_Kernel"),)
    frozen = kernel.frozen("cuda", Schedule(32), 100)  # what a worker process runs
    assert frozen.steps("cuda", Schedule(32), 100) == (step,)
    passed = _ROWS.replace(
        "const float *d_Src, int n", "const float *d_Src, const float *c_Kernel, int n"
    )
    (step,) = _spec(passed, entry="rows", buffers=buffers).steps("cuda", Schedule(32), 100)
    assert step.symbols == () and ("buffer", 2) in step.arguments


_PARTICLES = r"""
struct SimParams { float deltaT; float3 gravity; unsigned int numBodies; };
__constant__ SimParams params;  // cuda-samples' particles: cudaMemcpyToSymbol(params, ...)
__global__ void integrate(float4* pos, float4* vel, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float3 v = make_float3(vel[i].x, vel[i].y, vel[i].z);
    v.x += params.gravity.x * params.deltaT;
    pos[i].x += v.x * params.deltaT;
    vel[i].x = v.x;
}
"""


def test_a_uniform_named_like_a_constant_struct_is_copied_whole_not_passed():
    buffers = (
        BufferSpec(0, "vec4<f32>", "read_write", name="pos", inout=True),
        BufferSpec(1, "vec4<f32>", "read_write", name="vel", inout=True),
        BufferSpec.uniform(
            2, (("deltaT", "f32"), ("gravity", "vec3<f32>"), ("numBodies", "u32")), name="params"
        ),
    )
    kernel = _spec(_PARTICLES, entry="integrate", buffers=buffers)
    (step,) = kernel.steps("cuda", Schedule(32), 100)
    assert step.arguments == (
        ("buffer", 0),
        ("buffer", 1),
        ("value", ("n", np.int32(100).tobytes())),
    )
    assert step.symbols == ((2, "params"),)
    assert kernel.frozen("cuda", Schedule(32), 100).steps("cuda", Schedule(32), 100) == (step,)
    assert kernel.buffers[2].dtype_for("cuda").itemsize == 20  # the C struct it fills
    # passed by value instead where the kernel takes it
    by_value = _PARTICLES.replace("__constant__ SimParams params;", "").replace(
        "int n)", "int n, SimParams params)"
    )
    (step,) = _spec(by_value, entry="integrate", buffers=buffers).steps("cuda", Schedule(32), 100)
    assert step.symbols == () and step.arguments[-1] == ("uniform", None)


def test_a_constant_variable_too_small_for_its_buffer_is_refused_on_the_gpu(request):
    require_available(request.config, "cuda")
    buffers = (
        BufferSpec(0, "f32", "read_write", name="d_Dst"),
        BufferSpec(1, "f32", "read", name="d_Src"),
        BufferSpec(2, "f32", "read", name="c_Kernel", count="n"),  # 17 floats fit, no more
    )
    kernel = _spec(
        _ROWS,
        entry="rows",
        buffers=buffers,
        reference=lambda d_Dst, d_Src, c_Kernel: d_Src * c_Kernel[8],
    )
    with forge.open_context("cuda") as ctx:
        fits = oracle.evaluate(ctx, kernel, size=17, samples=0)
        assert fits.passed, fits.report()
        over = oracle.evaluate(ctx, kernel, size=18, samples=0)
        assert over.verdict == "error", over.report()
        assert "holds 72 bytes at size 18" in over.error and "holds 68" in over.error
        assert oracle.evaluate(ctx, kernel, size=17, samples=0).passed  # still usable


# -- per-launch values: Dispatch.overrides fill CUDA by-value parameters (F2) ---------------
_BITONIC = r"""
__global__ void bitonic_sort_step(float *dev_values, int j, int k) {
    unsigned int i = threadIdx.x + blockDim.x * blockIdx.x, ixj = i ^ j;
    if (ixj > i && ((i & k) == 0) == (dev_values[i] > dev_values[ixj])) {
        float t = dev_values[i]; dev_values[i] = dev_values[ixj]; dev_values[ixj] = t;
    }
}
"""


def _bitonic(**dispatch):
    return _spec(
        _BITONIC,
        entry="bitonic_sort_step",
        buffers=(BufferSpec(0, "f32", "read_write", name="dev_values", inout=True),),
        launches=lambda n: (
            tuple(
                forge.Dispatch("bitonic_sort_step", grid=(1, 1, 1), overrides={"j": j, "k": k})
                for k, j in ((2, 1), (4, 2), (4, 1))
            )
            + (
                (forge.Dispatch("bitonic_sort_step", grid=(1, 1, 1), **dispatch),)
                if dispatch
                else ()
            )
        ),
    )


def test_dispatch_overrides_give_each_cuda_launch_its_own_scalars():
    steps = _bitonic().steps("cuda", Schedule(32), 4)
    assert [s.arguments for s in steps] == [
        (
            ("buffer", 0),
            ("value", ("j", np.int32(j).tobytes())),
            ("value", ("k", np.int32(k).tobytes())),
        )
        for k, j in ((2, 1), (4, 2), (4, 1))
    ]
    frozen = _bitonic().frozen("cuda", Schedule(32), 4)
    assert frozen.steps("cuda", Schedule(32), 4) == steps


def test_an_override_that_names_no_cuda_parameter_is_refused():
    with pytest.raises(InvalidArgument, match=r"overrides.*'jj'.*bitonic_sort_step.*j, k"):
        _bitonic(overrides={"jj": 1, "j": 1, "k": 2}).steps("cuda", Schedule(32), 4)


def test_an_override_value_its_c_type_cannot_hold_is_refused():
    with pytest.raises(InvalidArgument, match=r"int j cannot hold 1.5"):
        _bitonic(overrides={"j": 1.5, "k": 2}).steps("cuda", Schedule(32), 4)


# -- a template type parameter by value (F3) ------------------------------------------------
_SCALE_T = r"""
template <typename scalar_t>
__global__ void scale(const scalar_t* __restrict__ x, scalar_t* __restrict__ y,
                      scalar_t alpha, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = alpha * x[i];
}
"""


@pytest.mark.parametrize(
    "entry, dtype, packed",
    [("scale<float>", "f32", np.float32(2.0)), ("scale<double>", "f64", np.float64(2.0))],
)
def test_a_scalar_t_parameter_takes_the_entry_points_template_argument(entry, dtype, packed):
    buffers = (BufferSpec(0, dtype, "read", name="x"), BufferSpec(1, dtype, "read_write", name="y"))
    kernel = _spec(_SCALE_T, entry=entry, buffers=buffers, defaults={"alpha": 2.0})
    (step,) = kernel.steps("cuda", Schedule(32), 4)
    assert step.arguments[2:] == (
        ("value", ("alpha", packed.tobytes())),
        ("value", ("n", np.int32(4).tobytes())),
    )


def test_template_parameters_are_read_from_the_declaration():
    from forge import sources

    text = "template <class T, unsigned int B = 4, typename U = float>\n" + _SCALE_T.split("\n", 2)[
        2
    ].replace("scalar_t alpha", "U alpha").replace("scalar_t", "T")
    params = sources.cuda_parameters(text, "scale<double, 8>")
    assert [p.type for p in params] == [
        "const double* __restrict__",
        "double* __restrict__",
        "float",
        "int",
    ]


# -- a kernel stamped out by a macro (F6) ----------------------------------------------------
_MACRO = r"""
#define UNARY_KERNEL(name, expr)                                                     \
  __global__ void name(const float* __restrict__ x, float* __restrict__ y, int n) { \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                                 \
    if (i < n) { float v = x[i]; y[i] = (expr); }                                  \
  }
UNARY_KERNEL(relu_kernel, fmaxf(v, 0.0f))
UNARY_KERNEL(neg_kernel, -v)
"""
_XY = (BufferSpec(0, "f32", "read", name="x"), BufferSpec(1, "f32", "read_write", name="y"))


def test_a_kernel_stamped_out_by_a_macro_binds_its_parameters():
    want = (("buffer", 0), ("buffer", 1), ("value", ("n", np.int32(4).tobytes())))
    for entry in ("relu_kernel", "neg_kernel"):
        (step,) = _spec(_MACRO, entry=entry, buffers=_XY).steps("cuda", Schedule(32), 4)
        assert step.arguments == want
    explicit = _spec(_MACRO, entry="relu_kernel", buffers=_XY, arguments=("x", "y", "n"))
    assert explicit.steps("cuda", Schedule(32), 4)[0].arguments == want


def test_an_unreadable_declaration_with_arguments_binds_values_in_their_python_type():
    source = r"""__global__ void opaque(const float* x, float* y, int /* an unnamed n */) { }"""
    kernel = _spec(source, entry="opaque", buffers=_XY, arguments=("x", "y", "n"))
    (step,) = kernel.steps("cuda", Schedule(32), 4)
    assert step.arguments[2] == ("value", ("n", np.int32(4).tobytes()))
    # without arguments=, it is an error naming the parameter and what to write: the
    # old fallback (the buffers by binding) passed the unnamed int nothing (round 23)
    with pytest.raises(CompileError, match=r"takes 3 parameters.*'int'.*arguments=\("):
        _spec(source, entry="opaque", buffers=_XY).steps("cuda", Schedule(32), 4)


def test_a_scalar_of_a_typedefd_type_binds_like_its_type():
    """cuda-samples take ``uint`` (glibc's, or their own ``typedef unsigned int uint``)
    and code bases their own ``using index_t = ...``: such a parameter was refused as
    naming no value, though it named the size."""
    from forge import BufferSpec, KernelSpec
    from forge.arguments import cuda_arguments
    from forge.sources import cuda_parameters, scalar_dtype

    source = """
    typedef unsigned int uint;
    using index_t = long long;
    typedef index_t offset_t;
    __global__ void fill(float *y, uint n, offset_t first, ushort pad) {}
    """
    types = [scalar_dtype(p.type) for p in cuda_parameters(source, "fill")[1:]]
    assert types == [np.dtype("u4"), np.dtype("i8"), np.dtype("u2")]
    kernel = KernelSpec(
        id="fill",
        entry_point="fill",
        sources={"cuda": "typedef unsigned int uint;\n__global__ void fill(float *y, uint n) {}"},
        buffers=(BufferSpec(0, "f32", "read_write", name="y"),),
        reference=lambda y: y.fill(1.0),
    )
    arguments = cuda_arguments(kernel, "fill", None, kernel.sources["cuda"], size=100)
    assert arguments[1] == ("value", ("n", np.uint32(100).tobytes()))


_FLAGGED = r"""
extern "C" __global__ void flagged(const float* x, float* y, int n, bool negate, float2 affine) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = (negate ? -x[i] : x[i]) * affine.x + affine.y;
}
"""


def test_a_bool_takes_true_and_a_vector_type_takes_its_lanes():
    """``bool causal`` and ``float2 scale`` by value are how people write flags and
    pairs: a bool parameter takes True (one byte), a CUDA vector type its lanes in
    order, and a wrong count of lanes is refused by name."""
    kernel = _twice_plus(
        entry_point="flagged",
        sources={"cuda": _FLAGGED},
        defaults={"negate": True, "affine": (2.0, 0.5)},
        reference=lambda x, y: -x * np.float32(2) + np.float32(0.5),
    )
    (step,) = kernel.steps("cuda", Schedule(64), 100)
    assert step.arguments[-2:] == (
        ("value", ("negate", b"\x01")),
        ("value", ("affine", np.array([2.0, 0.5], np.float32).tobytes())),
    )
    wrong = _twice_plus(
        entry_point="flagged", sources={"cuda": _FLAGGED}, defaults={"negate": 0, "affine": 2.0}
    )
    with pytest.raises(InvalidArgument, match=r"float2 affine cannot hold 2.0: it takes 2 values"):
        wrong.steps("cuda", Schedule(64), 100)


def test_a_lone_vector_parameter_still_takes_a_whole_uniform_block():
    source = 'extern "C" __global__ void k(const float* x, float* y, float2 p) { }'
    buffers = (
        BufferSpec(0, "f32", "read", name="x"),
        BufferSpec(1, "f32", "read_write", name="y"),
        BufferSpec.uniform(2, (("sx", "f32"), ("sy", "f32"))),
    )
    assert _arguments(source[len('extern "C" __global__ void k(') : -5], buffers) == (
        ("buffer", 0),
        ("buffer", 1),
        ("uniform", None),
    )


@pytest.mark.parametrize("backend", ["reference", "cuda"])
def test_a_kernel_with_a_bool_and_a_float2_runs_and_passes(request, backend):
    require_available(request.config, backend)
    kernel = _twice_plus(
        entry_point="flagged",
        sources={"cuda": _FLAGGED},
        defaults={"negate": True, "affine": (2.0, 0.5)},
        reference=lambda x, y: -x * np.float32(2) + np.float32(0.5),
    )
    for size in kernel.checked_sizes():
        ev = oracle.evaluate(backend, kernel, size=size, samples=0)
        assert ev.passed, ev.report()


def test_an_fp8_scalar_by_value_is_packed_as_its_code():
    """``__nv_fp8_e4m3 lo`` (cuda_fp8.h's one-byte struct, passed by value like a
    ``__half``) takes the FP8 code of the value ``defaults`` give: 448 is 0x7e in E4M3,
    -0.5 is 0xb8 in E5M2. It was refused as no scalar type kernel-forge can pack."""
    from forge.arguments import cuda_arguments

    source = (
        "#include <cuda_fp8.h>\n"
        "__global__ void clampq(const float* x, float* y, __nv_fp8_e4m3 hi, "
        "__nv_fp8_e5m2 lo, int n) { }\n"
    )
    kernel = KernelSpec(
        id="fp8_scalars",
        entry_point="clampq",
        sources={"cuda": source},
        buffers=_BUFFERS[:2],
        defaults={"hi": 448.0, "lo": -0.5},
        grid=lambda s, n: (1, 1, 1),
        schedules=(Schedule(32),),
    )
    args = cuda_arguments(kernel, "clampq", None, source, kernel.size(4))
    assert args[2] == ("value", ("hi", b"\x7e")) and args[3] == ("value", ("lo", b"\xb8"))
    from backends.cuda import compile_cuda

    assert compile_cuda(source, "clampq", arch="sm_90")  # and NVRTC takes it as written

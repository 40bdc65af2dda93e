"""A uniform block passed by value to a CUDA struct parameter is compared with the
struct the source declares (round 23 gap 4): the spec's fields, laid out as C lays them,
must put each member's bytes where the struct reads them; another order, size or kind
is refused before launch, naming the member and the fields to write. A struct that
cannot be read with confidence (a template, member functions with bodies, a type the
reader does not know) is not checked: a right kernel is never refused."""

from __future__ import annotations

import pytest

from forge import BufferSpec, InvalidArgument, KernelSpec, Schedule, sources


def _kernel(struct: str, fields, parameter: str = "const __grid_constant__ Params p"):
    source = f"""
#include <cstdint>
{struct}
extern "C" __global__ void k(const float* x, float* y, {parameter}) {{ }}
"""
    return KernelSpec(
        id="struct_check",
        entry_point="k",
        sources={"cuda": source},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
            BufferSpec.uniform(2, fields, name="p"),
        ),
        reference=lambda x: x,
        grid=(1, 1, 1),
        schedules=(Schedule(64),),
    )


def _steps(kernel: KernelSpec):
    size = kernel.size(100)
    source = kernel.source("cuda", kernel.schedules[0], size)
    return kernel.steps("cuda", kernel.schedules[0], size, 2**31 - 1, source)


_PARAMS = "struct Params { int64_t stride; int n; float scale; };"


def test_fields_in_the_structs_order_and_sizes_are_taken():
    kernel = _kernel(_PARAMS, (("stride", "i64"), ("n", "i32"), ("scale", "f32")))
    (step,) = _steps(kernel)
    assert step.arguments[2] == ("uniform", None)


def test_fields_in_another_order_are_refused_with_the_fields_to_write():
    kernel = _kernel(_PARAMS, (("n", "i32"), ("scale", "f32"), ("stride", "i64")))
    with pytest.raises(
        InvalidArgument, match=r"order \(stride, n, scale\).*\(n, scale, stride\)"
    ) as error:
        _steps(kernel)
    assert 'fields=(("stride", "i64"), ("n", "i32"), ("scale", "f32"))' in str(error.value)


def test_a_field_of_another_size_is_refused():
    kernel = _kernel(_PARAMS, (("stride", "i32"), ("n", "i32"), ("scale", "f32")))
    with pytest.raises(InvalidArgument, match=r"declares stride \(int64_t, 8 bytes\) at byte 0"):
        _steps(kernel)


def test_a_field_of_another_kind_is_refused():
    kernel = _kernel(_PARAMS, (("stride", "i64"), ("n", "f32"), ("scale", "f32")))
    with pytest.raises(InvalidArgument, match=r"declares n \(int, 4 bytes\).*an integer.*float"):
        _steps(kernel)


def test_fields_named_otherwise_are_compared_by_their_place():
    kernel = _kernel(_PARAMS, (("s", "i64"), ("count", "i32"), ("alpha", "f32")))
    _steps(kernel)
    short = _kernel(_PARAMS, (("s", "i32"), ("count", "i32"), ("alpha", "f32")))
    with pytest.raises(InvalidArgument, match="declares stride"):
        _steps(short)


def test_a_typedef_struct_with_a_vector_member_is_laid_out_as_cuda_does():
    struct = "typedef struct { float a; float2 v; unsigned n; } Params;"
    fields = sources.cuda_struct_fields(struct, "Params")
    assert [(f.name, f.type) for f in fields] == [
        ("a", "float"),
        ("v", "float2"),
        ("n", "unsigned"),
    ]
    # float2 is 8-byte aligned in C, as the spec's C layout aligns vec2<f32>
    _steps(_kernel(struct, (("a", "f32"), ("v", "vec2<f32>"), ("n", "u32")), "Params p"))
    _steps(
        _kernel(
            struct, (("a", "f32"), ("_pad", "u32"), ("v", "vec2<f32>"), ("n", "u32")), "Params p"
        )
    )
    with pytest.raises(InvalidArgument, match=r"declares v \(float2, 8 bytes\) at byte 8"):
        _steps(_kernel(struct, (("a", "f32"), ("v", "f32"), ("n", "u32")), "Params p"))


@pytest.mark.parametrize(
    "struct, parameter",
    [
        ("template <typename T> struct Params { T a; int n; };", "Params<float> p"),
        ("struct Params { float a; __device__ float get() const { return a; } };", "Params p"),
        ("struct Inner { int q; }; struct Params { Inner i; float a; };", "Params p"),
        ("struct Params { unsigned flags : 3; float a; };", "Params p"),
        ("struct Base { int b; }; struct Params : Base { float a; };", "Params p"),
        ("", "Params p"),  # declared in a header it includes
    ],
)
def test_a_struct_that_cannot_be_read_is_not_checked(struct, parameter):
    kernel = _kernel(struct, (("whatever", "f32"), ("else", "i64")), parameter)
    (step,) = _steps(kernel)
    assert step.arguments[2] == ("uniform", None)


def test_static_members_take_no_room():
    struct = "struct Params { static const int K = 4; int n; float scale; };"
    assert [f.name for f in sources.cuda_struct_fields(struct, "Params")] == ["n", "scale"]
    _steps(_kernel(struct, (("n", "i32"), ("scale", "f32"))))

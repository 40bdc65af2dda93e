"""How a raw CUDA kernel's ``__global__`` parameters meet the spec's buffers and
uniform fields: by name when every parameter is named like one; else by position and
kind (pointers take the buffers in binding order, values the uniform's fields, or the
whole uniform for one struct parameter); and an error that names the parameters when
neither fits, instead of a silently guessed order (red-team finding F7c)."""

from __future__ import annotations

import pytest

from forge import BufferSpec, InvalidArgument, KernelSpec, Schedule

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
        _arguments("float* out, const float* inp, int n, float s")

"""WGSL map and rows kernels move whole chunks as vectors: under a schedule of vector width 2 or
4, buffers of 32-bit elements are declared as arrays of ``vec2``/``vec4`` (WGSL cannot
view an ``array<f32>`` as vectors), a full chunk is one vector load or store, and a
partial last chunk is read and written component by component. Tail correctness on the
device (sizes that are not multiples of the width, bytes past ``n`` kept) is proved in
tests/test_emit_bounds.py."""

from __future__ import annotations

import re

import pytest

import forge
from forge import Schedule, ir


def _declarations(source: str) -> dict[str, str]:
    return dict(re.findall(r"var<storage, \w+> (\w+): array<(.+)>;", source))


@pytest.mark.parametrize("width, element", [(1, "f32"), (2, "vec2<f32>"), (4, "vec4<f32>")])
def test_map_buffers_are_declared_as_vectors_of_the_schedule_width(width, element):
    source = forge.get_kernel("add").source(
        "wgsl", Schedule(64, items_per_invocation=2, vector_width=width)
    )
    assert _declarations(source) == {"x": element, "y": element, "z": element}


def test_a_whole_chunk_is_one_vector_access_and_a_tail_goes_by_component():
    source = forge.get_kernel("axpy").source("wgsl", Schedule(64, vector_width=4))
    body = source[source.index("fn axpy_kernel") :]
    assert re.search(r"let fg_q: vec4<f32> = x\[(fg_j\d+)\];", body)
    assert re.search(r"\by\[(fg_j\d+)\] = vec4<f32>\(", body)
    # the tail: one guarded component store per lane, never a whole-vector store
    tail = re.findall(r"if \((fg_j\d+) \* 4u( \+ \du)? < fg_p\.n\) \{ y\[\1\]\.([xyzw]) = ", body)
    assert [lane for *_, lane in tail] == list("xyzw")
    # no scalar indexing of a vector array
    assert not re.search(r"\b[xy]\[fg_j\d+ \* 4u", body)


def test_32_bit_and_f16_buffers_become_vectors_but_not_f64():
    h = ir.input("h", "f16")
    kernel = ir.kernel("half_to_int", ir.map(i=ir.cast(h, "i32"), y=h * 2.0, d=ir.cast(h, "f64")))
    source = kernel.source("wgsl", Schedule(64, vector_width=4))
    assert _declarations(source) == {
        "h": "vec4<f16>",
        "i": "vec4<i32>",
        "y": "vec4<f16>",
        "d": "f64",
    }


def test_rows_declare_the_row_as_vectors_and_cuda_keeps_scalar_declarations():
    rows = forge.get_kernel("softmax").source(
        "wgsl", Schedule((64, 1), items_per_invocation=2, vector_width=4)
    )
    assert _declarations(rows) == {"x": "vec4<f32>", "y": "vec4<f32>"}
    scalar = forge.get_kernel("softmax").source("wgsl", Schedule((64, 1), vector_width=1))
    assert set(_declarations(scalar).values()) == {"f32"}
    cuda = forge.get_kernel("add").source("cuda", Schedule(64, vector_width=4))
    assert "const float* __restrict__ x" in cuda and "float4" in cuda


def test_unrolled_chunks_index_local_arrays_with_constants_on_wgsl():
    source = forge.get_kernel("affine").source(
        "wgsl", Schedule(64, items_per_invocation=3, vector_width=4)
    )
    assert re.findall(r"const fg_k: u32 = (\d)u;", source) == ["0", "1", "2"] * 2
    assert "for (var fg_k" not in source


def test_buffers_declared_as_vectors_are_bound_in_whole_vectors():
    """The contract the vector declarations rely on: where the WGSL declares a buffer
    as array<vec4<f32>> over f32 elements, the oracle binds it rounded up to whole
    vectors (the last, partial vector lies inside the binding); elsewhere bindings are
    exact, so arrayLength counts the elements."""
    kernel = forge.get_kernel("add")
    vec4 = Schedule(256, items_per_invocation=4, vector_width=4)
    source = kernel.source("wgsl", vec4)
    assert kernel.binding_granules("wgsl", source) == (4, 4, 4, 1)
    scalar = kernel.source("wgsl", Schedule(64))
    assert kernel.binding_granules("wgsl", scalar) == (1, 1, 1, 1)
    assert kernel.binding_granules("cuda", kernel.source("cuda", vec4)) == (1, 1, 1, 1)

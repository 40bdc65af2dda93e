"""WGSL map and rows kernels move whole chunks as vectors: under a schedule of vector width 2 or
4, buffers of 32-bit elements are declared as arrays of ``vec2``/``vec4`` (WGSL cannot
view an ``array<f32>`` as vectors), a full chunk is one vector load or store, and a
partial last chunk is read and written component by component. Tail correctness on the
device (sizes that are not multiples of the width, bytes past ``n`` kept) is proved in
tests/test_emit_bounds.py."""

from __future__ import annotations

import re

import numpy as np
import pytest

import forge
from bench._workload import bind_views, output_index
from forge import BindingUsage, Schedule, ir
from oracle.pytest_plugin import require_available


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


def test_a_context_binds_a_view_of_a_partial_vector_in_whole_vectors():
    """Without the oracle: a view's binding is rounded up to whole vectors where the
    shader declares them, within the view's aligned footprint, and left exact where the
    next view could start sooner."""
    from backends._webgpu import binding_size
    from forge.types import BufferView

    def view(length: int) -> BufferView:
        return BufferView(256, length, 0, 0, BindingUsage.STORAGE_READ)

    assert binding_size(view(1188), 16, 256) == 1200  # 297 floats: 75 whole vec4
    assert binding_size(view(1184), 16, 256) == 1184
    assert binding_size(view(1188), 4, 256) == 1188  # declared as f32
    assert binding_size(view(1188), 16, 4) == 1188  # the next view may start at 1188
    assert binding_size(view(6), 8, 256) == 8  # vec4<f16> over 3 halves


@pytest.fixture(params=["wgpu", "browser"])
def webgpu(request):
    require_available(request.config, request.param)
    with forge.open_context(request.param, capacity_bytes=8 << 20) as ctx:
        yield ctx


@pytest.mark.parametrize("kernel_id", ["add", "rmsnorm", "layernorm"])
def test_vector_kernels_on_views_of_partial_vectors_compute_as_scalar_ones(webgpu, kernel_id):
    """``run_kernel`` on views sized exactly (3 x 99 floats): the vec4 schedule's output
    is the scalar schedule's, the last, partial vector included. Dawn clamped the index
    of that vector into the binding and rmsnorm's last row came out wrong (2026-12-04)
    before bindings were rounded up to whole vectors."""
    rows, cols = 3, 99
    kernel = forge.get_kernel(kernel_id)
    if kernel_id != "add":
        kernel = ir.with_shape(kernel, rows=rows)
    size = rows * cols if kernel_id == "add" else cols
    rng = np.random.default_rng(7)
    data = {
        s.name: rng.uniform(
            0.5, 2, rows * cols if s.name == "x" or kernel_id == "add" else cols
        ).astype(np.float32)
        for s in kernel.inputs
    }
    got = []
    for schedule in (Schedule((64, 1)), Schedule((64, 1), items_per_invocation=2, vector_width=4)):
        webgpu.clear_transient_allocations()
        views = bind_views(webgpu, kernel, size, data)
        assert views[output_index(kernel)].length_bytes == rows * cols * 4
        webgpu.run_kernel(kernel, schedule, views, size)
        got.append(webgpu.read_buffer_f32(views[output_index(kernel)]))
    # the schedules sum the row in another order: a few ulps of the largest output
    np.testing.assert_allclose(got[1], got[0], rtol=0, atol=4e-7 * np.abs(got[0]).max())

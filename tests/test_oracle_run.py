"""``oracle.run(ctx, kernel, inputs, size=None)``: a kernel on the user's own arrays,
returning its outputs as numpy arrays; dtypes and sizes checked, never reinterpreted."""

from __future__ import annotations

import numpy as np
import pytest

import forge
import oracle
from forge import InvalidArgument
from tests.wild import CORPUS


class _OnlyDLPack:
    """An array-like that speaks only DLPack (as torch and CuPy tensors do)."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, *args, **kwargs):
        return self._array.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


@pytest.fixture(params=["reference", "wgpu"])
def ctx(request, forge_backend_name=None):
    from oracle.pytest_plugin import require_available

    require_available(request.config, request.param)
    with forge.open_context(request.param) as context:
        yield context


def test_run_returns_outputs_by_name_shaped_as_declared(ctx):
    kernel = CORPUS["wild_transpose"].kernel
    src = np.arange(33 * 70, dtype=np.float32).reshape(33, 70)
    out = oracle.run(ctx, kernel, {"src": src})
    assert list(out) == ["dst"] and out["dst"].shape == (70, 33)
    np.testing.assert_array_equal(out["dst"], src.T)


def test_run_takes_dlpack_arrays_and_infers_a_one_dimension_size(ctx):
    kernel = forge.get_kernel("raw_affine")
    x = np.linspace(-1, 1, 1000, dtype=np.float32)
    out = oracle.run(ctx, kernel, {"x": _OnlyDLPack(x)})
    np.testing.assert_allclose(out["y"], 2 * x + 0.5, rtol=1e-6)


def test_a_float64_array_for_an_f32_buffer_is_refused_never_reinterpreted(ctx):
    kernel = forge.get_kernel("raw_affine")
    with pytest.raises(InvalidArgument, match="float64 for a buffer of float32"):
        oracle.run(ctx, kernel, {"x": np.zeros(10, np.float64)})


def test_a_missing_input_or_a_size_that_does_not_follow_is_an_error(ctx):
    kernel = forge.get_kernel("raw_affine")
    with pytest.raises(InvalidArgument, match="needs inputs"):
        oracle.run(ctx, kernel, {})
    with pytest.raises(InvalidArgument, match="elements"):
        oracle.run(ctx, kernel, {"x": np.zeros(10, np.float32)}, size=11)


def test_evaluate_judges_a_kernel_on_the_user_s_arrays(ctx):
    kernel = forge.get_kernel("raw_affine")
    x = np.full(500, 3.0, np.float32)
    ev = oracle.evaluate(ctx, kernel, size=500, inputs={"x": x}, samples=0)
    assert ev.passed and ev.input_sets[0].startswith("all"), ev.report()
    assert ev.got["y"].tolist() == [6.5] * 500


_SWIZZLE = """
@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> b: array<vec4<f32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < arrayLength(&b)) { b[gid.x] = a[gid.x].wzyx * 2.0; }
}
"""


def test_vector_buffers_take_and_give_the_lanes_as_the_last_axis(ctx):
    """An ``array<vec4<f32>>`` buffer takes an (n, 4) float32 array (or n*4 flat
    values) and its output comes back as (n, 4): each lane its own value, never one
    scalar broadcast over the lanes."""
    kernel = forge.KernelSpec(
        id="swizzle",
        entry_point="main",
        sources={"wgsl": _SWIZZLE},
        buffers=(
            forge.BufferSpec(0, "vec4<f32>", "read", name="a"),
            forge.BufferSpec(1, "vec4<f32>", "read_write", name="b"),
        ),
        reference=lambda a, b: a[:, ::-1] * np.float32(2),
        grid=lambda s, n: (forge.ceil_div(n, 64), 1, 1),
    )
    a = np.arange(4 * 100, dtype=np.float32).reshape(100, 4)
    for given in (a, a.reshape(-1)):
        out = oracle.run(ctx, kernel, {"a": given}, size=100)
        assert out["b"].shape == (100, 4)
        np.testing.assert_array_equal(out["b"], a[:, ::-1] * 2)
    with pytest.raises(InvalidArgument, match="float64 for a buffer of float32 lanes"):
        oracle.run(ctx, kernel, {"a": a.astype(np.float64)}, size=100)
    assert oracle.evaluate(ctx, kernel, size=100).passed

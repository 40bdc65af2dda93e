"""Round 32's findings (tests/wild/round32.py), each pinned by the smallest run that
shows it: a buffer of matrices could not be drawn, filled or judged (a crash), and a
second ``var<uniform>`` could not be bound; both fixed, the corpus kernels now take them
as their projects write them (rend3's ``array<mat4x4<f32>>`` joints, WebGPU-Ocean's
``var<uniform> init_box_size``)."""

from __future__ import annotations

import numpy as np
import pytest

import forge
import oracle
from forge import Access, BufferSpec, KernelSpec, ceil_div
from oracle.pytest_plugin import require_available
from tests.wild.round32 import MPM_G2P, REND3_SKINNING

_MATRICES_OUT = """
@group(0) @binding(0) var<storage, read> p: array<vec4f>;
@group(0) @binding(1) var<storage, read_write> y: array<mat4x4f>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3u) {
    if (g.x >= arrayLength(&y)) { return; }
    let v = p[g.x];
    y[g.x] = mat4x4f(v, 2.0 * v, 3.0 * v, 4.0 * v);
}
"""


def _matrices(source: str, id: str) -> KernelSpec:
    return KernelSpec(
        id=id,
        entry_point="main",
        sources={"wgsl": source},
        buffers=(
            BufferSpec(0, "vec4<f32>", "read", name="p", fill=(-1.0, 1.0)),
            BufferSpec(1, "mat4x4<f32>", "read_write", name="y"),
        ),
        reference=lambda p, y: p[:, None, :] * np.arange(1, 5, dtype=np.float32)[:, None],
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        test_sizes=(100,),
    )


def test_a_matrix_element_is_one_scalar_sub_array():
    """No device needed: numpy keeps ``np.dtype((np.dtype(('<f4', (4,))), (4,)))`` nested,
    and a matrix's logical dtype was that (its ``subdtype`` a sub-array, not a scalar)."""
    from forge.layout import logical_dtype

    assert logical_dtype("mat4x4<f32>") == np.dtype(("<f4", (4, 4)))
    assert logical_dtype("mat3x4<f32>") == np.dtype(("<f4", (3, 4)))  # 3 columns of 4
    assert logical_dtype("array<vec2<f32>, 3>") == np.dtype(("<f4", (3, 2)))
    spec = BufferSpec(0, "mat3x3<f32>", "read", name="m")
    assert spec.dtype_for("wgsl").itemsize == 48  # columns padded to 16 bytes


@pytest.mark.parametrize("backend", ["reference", "wgpu", "browser"])
def test_a_buffer_of_matrices_is_drawn_and_judged(request, backend):
    """rend3's ``array<mat4x4<f32>>`` of joints, Bevy's of model transforms: raised a
    bare ValueError on every backend; a column written twice is still caught."""
    require_available(request.config, backend)
    ev = oracle.evaluate(
        backend, _matrices(_MATRICES_OUT, "r32_matrices_out"), size=100, seed=0, samples=0
    )
    assert ev.passed, ev.report()
    if backend != "reference":  # which runs the reference, not the WGSL
        wrong = _MATRICES_OUT.replace("4.0 * v)", "3.0 * v)")
        ev = oracle.evaluate(
            backend, _matrices(wrong, "r32_matrices_out_wrong"), size=100, seed=0, samples=0
        )
        assert ev.verdict is oracle.Verdict.MISMATCH, ev.report()


def test_an_input_the_wgsl_declares_uniform_is_bound_as_a_uniform():
    """No device needed: WebGPU-Ocean's g2p (tests/wild/round32.py, as written) binds
    ``init_box_size`` as ``var<uniform>`` beside the spec's uniform block: the access the
    shader declares wins, as it does for ``read_write``; CUDA binds the spec's."""
    kernel = MPM_G2P.kernel
    source = kernel.sources["wgsl"]
    assert "var<uniform> init_box_size" in source
    spec = kernel.buffer("init_box_size")
    assert spec.access is Access.READ
    accesses = dict(zip((b.label for b in kernel.buffers), kernel.access_on("wgsl", source)))
    assert accesses["init_box_size"] is Access.UNIFORM
    assert accesses[kernel.uniform.label] is Access.UNIFORM
    assert accesses["cells"] is Access.READ
    assert kernel.access_on("cuda", None)[kernel.buffers.index(spec)] is Access.READ


def test_a_matrix_fill_is_taken_as_columns():
    """rend3's joints filled as (count, 4, 4) float32 columns: the fill was refused
    whatever its dtype ("convert it explicitly, e.g. .astype(np.void128)")."""
    from oracle._inputs import make_case

    kernel = REND3_SKINNING.kernel
    assert kernel.buffer("joint_matrices").element == "mat4x4<f32>"
    size = kernel.checked_sizes()[0]
    case = make_case(kernel, size, 0)
    joints = case.arrays["joint_matrices"]
    assert joints.shape[1:] == (4, 4) and joints.dtype == np.float32
    np.testing.assert_array_equal(joints[:, 3, 3], 1.0)  # the affine's last row, column 3


def test_a_struct_fill_with_its_matrix_as_nested_vectors_is_taken():
    """A struct's ``mat3x4<f32>`` field filled from a dtype that spells it as vectors of
    vectors (``(('<f4', (4,)), (3,))``, what numpy builds from a vec4 dtype repeated, and
    what the logical dtype was before matrices became one sub-array): the same bytes,
    taken as they are (round 30's Bevy culling fills its mesh inputs so)."""
    from oracle._inputs import conform

    spec = BufferSpec(0, (("m", "mat3x4<f32>"), ("flags", "u32")), "read", name="s")
    nested = np.dtype([("m", (np.dtype(("<f4", (4,))), (3,))), ("flags", "<u4")], align=True)
    given = np.zeros(2, nested)
    given["m"][1] = np.arange(12, dtype=np.float32).reshape(3, 4)
    given["flags"] = (7, 9)
    taken = conform(given, spec, 2, "test")
    assert taken.dtype == spec.dtype
    np.testing.assert_array_equal(taken["m"][1], np.arange(12).reshape(3, 4))
    assert taken["flags"].tolist() == [7, 9]
    other = np.zeros(2, [("m", "<f4", (12,)), ("flags", "<u4")])  # 12 flat floats: the same bytes
    assert conform(other, spec, 2, "test").dtype == spec.dtype
    with pytest.raises(forge.InvalidArgument, match="structured array"):
        conform(np.zeros(2, [("m", "<f4", (11,)), ("flags", "<u4")]), spec, 2, "test")

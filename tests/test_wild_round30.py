"""Round 30's finding (tests/wild/round30.py), pinned by the smallest run that shows it:
a storage array wrapped in a struct of its own (wonnx's ``struct ArrayVector { data:
array<Vec4> }``, three.js's ``NodeBuffer_NStruct { value: array<...> }``) is bound by
that array's element, as a bare array is: ``array<vec4<f32>>`` over f32 rounds the
binding up to whole vectors, so ``arrayLength`` counts the last, partial one."""

from __future__ import annotations

import numpy as np
import pytest

import oracle
from forge import BufferSpec, KernelSpec, ceil_div
from oracle import Session, Verdict
from oracle.pytest_plugin import require_available


@pytest.fixture(scope="module")
def session():
    """One worker per backend for this module's evaluations: a fresh worker for each
    is a second of start-up (1.2 s on lavapipe, 2026-12-06)."""
    with Session(timeout_s=60) as shared:
        yield shared


_BARE = """
@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> y: array<vec4<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < arrayLength(&y)) { y[gid.x] = x[gid.x] * 2.0; }
}
"""

_WRAPPED = """
struct ArrayVector { data: array<vec4<f32>> };
@group(0) @binding(0) var<storage, read> x: ArrayVector;
@group(0) @binding(1) var<storage, read_write> y: ArrayVector;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < arrayLength(&y.data)) { y.data[gid.x] = x.data[gid.x] * 2.0; }
}
"""


def _double(source: str, name: str) -> KernelSpec:
    return KernelSpec(
        id=f"r30_{name}_vec4_over_f32",
        entry_point="main",
        sources={"wgsl": source},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
        ),
        reference=lambda x: (x * 2).astype(np.float32),
        grid=lambda s, n: (ceil_div(ceil_div(n, 4), 64), 1, 1),
        nonfinite_inputs=False,
    )


def test_a_struct_wrapped_vec4_array_is_bound_in_whole_vectors():
    """No device needed: the binding granule the backends round up to."""
    wrapped = _double(_WRAPPED, "wrapped")
    assert wrapped.binding_granules("wgsl", _WRAPPED) == (4, 4)
    assert _double(_BARE, "bare").binding_granules("wgsl", _BARE) == (4, 4)


@pytest.mark.parametrize("backend", ["wgpu", "browser"])
def test_a_struct_wrapped_vec4_array_with_a_partial_last_vector_passes(request, backend, session):
    """10 floats as vec4s: the bare array passed and the wrapped one was a MISMATCH,
    its elements 8 and 9 never written (arrayLength 2 of a 40-byte binding)."""
    require_available(request.config, backend)
    for name, source in (("bare", _BARE), ("wrapped", _WRAPPED)):
        ev = oracle.evaluate(
            session.runner(backend), _double(source, name), size=10, seed=0, samples=0
        )
        assert ev.verdict is Verdict.PASS, ev.report()


# wonnx's templates as wonnx writes them, before Tera renders them: the shapes and chunk
# sizes are tuples indexed in the braces, some divided (``{{ o_lens[0] / 4 }}``). Round
# 30 found them left in the text (the compiler's "expected expression, found '{'" all
# one was told); such an expression of known values is now filled in.
_WONNX_RELU = """
struct ArrayVector { data: array<vec4<f32>> };
@group(0) @binding(0) var<storage, read> input_0: ArrayVector;
@group(0) @binding(1) var<storage, read_write> output_0: ArrayVector;
@compute @workgroup_size({{ workgroup_size_x }})
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
    let gidx = global_id.x;
    if (gidx < {{ o_lens[0] / 4 }}u) {
        output_0.data[gidx] = max(input_0.data[gidx], vec4<f32>({{ zero[0] }}));
    }
}
"""


def test_a_template_as_wonnx_writes_it_is_filled_from_tuple_constants(request, session):
    from forge import Schedule

    kernel = KernelSpec(
        id="r30_wonnx_relu_template",
        entry_point="main",
        sources={"wgsl": _WONNX_RELU},
        buffers=(
            BufferSpec(0, "f32", "read", name="input_0"),
            BufferSpec(1, "f32", "read_write", name="output_0"),
        ),
        reference=lambda input_0, output_0: np.maximum(input_0, 0.0),
        grid=lambda s, n: (ceil_div(n // 4, 256), 1, 1),
        schedules=(Schedule(256),),
        constants={
            "workgroup_size_x": 256,
            "o_lens": lambda s, n: (int(n),),
            "zero": ("0.0",),
        },
        test_sizes=(4, 1024, 4004),
    )
    text = kernel.source("wgsl", kernel.schedules[0], kernel.size(1024))
    assert "gidx < 256u" in text and "@workgroup_size(256)" in text and "vec4<f32>(0.0)" in text
    require_available(request.config, "wgpu")
    for size in kernel.checked_sizes():
        ev = oracle.evaluate(session.runner("wgpu"), kernel, size=size, samples=0)
        assert ev.passed, ev.report()

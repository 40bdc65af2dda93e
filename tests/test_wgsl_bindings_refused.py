"""A compute pipeline refused over one of the WGSL's bindings is explained in the user's
terms: a sampler declared as a buffer is an error naming the ``SamplerSpec`` to declare
instead (tests/test_wgsl_samplers.py runs declared ones); a texture binding the kernel
does not bind is UNSUPPORTED, the message saying what kernel-forge binds of textures
(``texture_2d`` read by ``textureLoad`` and ``texture_storage_2d``, declared
``BufferSpec(texture=FORMAT, shape=(H, W))``: tests/test_wgsl_textures.py runs them); a
buffer the kernel's ``buffers`` leave out names the WGSL variable and what to declare.
Both on wgpu (naga's message) and in the browser (Dawn's), with the compiler's log
kept."""

from __future__ import annotations

import numpy as np
import pytest

import oracle
from backends._webgpu import binding_problem
from forge import BufferSpec, KernelSpec, Schedule, Size, ceil_div
from forge.errors import CompileError, UnsupportedFeature
from forge.sources import wgsl_handle_bindings
from oracle import Session, Verdict
from oracle.pytest_plugin import require_available


@pytest.fixture(scope="module")
def session():
    """One worker per backend for this module's evaluations: a fresh worker for each
    is a second of start-up (1.2 s on lavapipe, 2026-12-06)."""
    with Session(timeout_s=60) as shared:
        yield shared


_BLUR = """
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var dst : texture_storage_2d<rgba8unorm, write>;
@group(0) @binding(2) var samp: sampler;

@compute @workgroup_size(8, 8)
fn blur(@builtin(global_invocation_id) gid: vec3<u32>) {
    let size = textureDimensions(src);
    if (gid.x >= size.x || gid.y >= size.y) { return; }
    let c = textureLoad(src, vec2<i32>(gid.xy), 0);
    textureStore(dst, vec2<i32>(gid.xy), c * 0.5);
}
"""

_BIAS = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(2) @binding(3) var<storage, read> bias: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < arrayLength(&y)) { y[gid.x] = x[gid.x] + bias[0]; }
}
"""

_NAGA_MISSING = """Validation Error

Caused by:
  In wgpuDeviceCreateComputePipeline, label = 'k:main'
    Error matching shader requirements against the pipeline
      Shader global ResourceBinding { group: 2, binding: 3 } is not available in the pipeline layout
        Binding is missing from the pipeline layout"""

_DAWN_TEXTURE = (
    "Binding type in the shader (storageTexture) doesn't match the type in the layout "
    "(buffer).\n - While validating that the entry-point's declaration for @group(0) "
    "@binding(1) matches [BindGroupLayoutInternal (unlabeled)]"
)


def test_texture_and_sampler_bindings_are_read_from_the_source():
    found = {(b.group, b.binding): (b.name, b.type) for b in wgsl_handle_bindings(_BLUR)}
    assert found == {
        (0, 0): ("src", "texture_2d<f32>"),
        (0, 1): ("dst", "texture_storage_2d<rgba8unorm, write>"),
        (0, 2): ("samp", "sampler"),
    }
    assert wgsl_handle_bindings(_BIAS) == ()


def test_a_refused_binding_is_named_from_either_compilers_message():
    missing = binding_problem(_BIAS, _NAGA_MISSING, "compiling k")
    assert isinstance(missing, CompileError)
    assert "`bias` (@group(2) @binding(3), var<storage, read>)" in str(missing)
    assert "declare BufferSpec(3, ..., 'read', name='bias', group=2)" in str(missing)
    assert missing.log == _NAGA_MISSING
    texture = binding_problem(_BLUR, _DAWN_TEXTURE, "compiling k")
    assert isinstance(texture, UnsupportedFeature)
    assert "`dst: texture_storage_2d<rgba8unorm, write>` at @group(0) @binding(1)" in str(texture)
    assert "through a `sampler` the kernel declares" in str(texture)
    assert "texture=FORMAT, shape=(height, width)" in str(texture)
    dawn_group = (
        "The entry-point uses bindings in group 2 but [PipelineLayout (unlabeled)] doesn't "
        "have a BindGroupLayout for this index."
    )
    assert "`bias` (@group(2) @binding(3)" in str(binding_problem(_BIAS, dawn_group, "k"))
    assert binding_problem(_BIAS, "error: unknown identifier 'z'", "compiling k") is None


def _kernel(kid: str, source: str, entry: str, buffers: tuple) -> KernelSpec:
    return KernelSpec(
        id=kid,
        entry_point=entry,
        sources={"wgsl": source},
        buffers=buffers,
        reference=lambda *arrays: arrays[0].copy(),
        grid=lambda schedule, n: (ceil_div(n, 64), 1, 1),
    )


@pytest.mark.parametrize("backend", ["wgpu", "browser"])
def test_an_image_kernel_that_declares_its_sampler_as_a_buffer_is_told_what_to_declare(
    request, backend, session
):
    require_available(request.config, backend)
    kernel = _kernel(
        "textured_blur",
        _BLUR,
        "blur",
        (
            BufferSpec(0, "f32", "read", name="src"),
            BufferSpec(1, "f32", "read_write", name="dst"),
            BufferSpec(2, "f32", "read", name="samp"),
        ),
    )
    ev = oracle.evaluate(session.runner(backend), kernel, size=256, samples=0)
    assert ev.verdict is Verdict.ERROR, ev.report()
    assert ev.error_type == "InvalidArgument", ev.report()
    assert "`samp: sampler` at @group(0) @binding(2)" in ev.error, ev.error
    assert "declares as buffer samp" in ev.error, ev.error
    assert "samplers=(SamplerSpec(2, Sampler(filter=" in ev.error, ev.error


@pytest.mark.parametrize("backend", ["wgpu", "browser"])
def test_a_buffer_the_kernel_does_not_declare_is_named_with_what_to_declare(
    request, backend, session
):
    require_available(request.config, backend)
    kernel = _kernel(
        "undeclared_bias",
        _BIAS,
        "main",
        (BufferSpec(0, "f32", "read", name="x"), BufferSpec(1, "f32", "read_write", name="y")),
    )
    ev = oracle.evaluate(session.runner(backend), kernel, size=256, samples=0)
    assert ev.verdict is Verdict.ERROR, ev.report()
    assert ev.error_type == "CompileError", ev.report()
    assert "the WGSL's `bias` (@group(2) @binding(3), var<storage, read>)" in ev.error
    assert "is not among the kernel's buffers" in ev.error
    # declared as the message says, the same kernel passes
    declared = KernelSpec(
        id="declared_bias",
        entry_point="main",
        sources={"wgsl": _BIAS},
        buffers=(
            *kernel.buffers,
            BufferSpec(3, "f32", "read", name="bias", group=2, count=1),
        ),
        reference=lambda x, y, bias: (x + bias[0]).astype(np.float32),
        grid=kernel.grid,
    )
    assert oracle.evaluate(session.runner(backend), declared, size=256, samples=0).passed


@pytest.mark.parametrize("backend", ["wgpu", "browser"])
def test_the_same_image_kernel_without_its_sampler_runs_declared_as_textures(
    request, backend, session
):
    """Textures are bound now (tests/test_wgsl_textures.py): the blur above without its
    sampler, its images declared ``texture=``, is checked."""
    require_available(request.config, backend)
    source = _BLUR.replace("@group(0) @binding(2) var samp: sampler;\n", "")
    kernel = KernelSpec(
        id="textured_half",
        entry_point="blur",
        sources={"wgsl": source},
        buffers=(
            BufferSpec(0, access="read", name="src", texture="rgba8unorm", shape=("H", "W")),
            BufferSpec(1, access="read_write", name="dst", texture="rgba8unorm", shape=("H", "W")),
        ),
        reference=lambda src: src * np.float32(0.5),
        dims=("H", "W"),
        grid=lambda schedule, size: (ceil_div(size.dims["W"], 8), ceil_div(size.dims["H"], 8), 1),
        schedules=(Schedule((8, 8)),),
    )
    ev = oracle.evaluate(session.runner(backend), kernel, size=Size({"H": 9, "W": 23}), samples=0)
    assert ev.verdict is Verdict.PASS, ev.report()

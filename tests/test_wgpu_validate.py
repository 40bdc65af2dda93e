"""naga validation through wgpu (``backends.wgpu.validate_wgsl``) and the adapter probe:
real runs on whatever adapter wgpu finds (lavapipe in CI)."""

from __future__ import annotations

import pytest

import backends.wgpu
import forge
from forge import CompileError
from oracle.pytest_plugin import require_available

GOOD = """\
@group(0) @binding(0) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) { y[g.x] = f32(g.x); }
"""


@pytest.fixture(autouse=True)
def _wgpu(request):
    require_available(request.config, "wgpu")


def test_probe_names_the_adapter_backend_and_type():
    ok, reason = backends.wgpu.entry.availability()
    assert ok
    name, backend, kind = reason.rsplit(", ", 2)
    assert name and backend in ("Vulkan", "Metal", "D3D12", "OpenGL")
    assert kind in ("DiscreteGPU", "IntegratedGPU", "VirtualGPU", "CPU", "Unknown")


def test_valid_wgsl_and_entry_point_pass():
    assert backends.wgpu.validate_wgsl(GOOD) is None
    assert backends.wgpu.validate_wgsl(GOOD, "main") is None


def test_invalid_wgsl_raises_compile_error_with_nagas_log_and_the_source():
    source = GOOD.replace("f32(g.x)", "g.x")  # a u32 stored into an f32 array
    with pytest.raises(CompileError) as info:
        backends.wgpu.validate_wgsl(source)
    error = info.value
    assert error.target == "wgsl" and error.source == source
    assert "u32" in error.log and "f32" in error.log
    assert error.log in str(error)


def test_a_missing_entry_point_is_a_compile_error():
    with pytest.raises(CompileError) as info:
        backends.wgpu.validate_wgsl(GOOD, "not_there")
    assert "not_there" in info.value.log


def test_a_syntax_error_names_the_position():
    with pytest.raises(CompileError) as info:
        backends.wgpu.validate_wgsl("fn broken( {")
    assert "wgsl:1:" in info.value.log


def test_non_text_is_invalid_argument():
    with pytest.raises(forge.InvalidArgument):
        backends.wgpu.validate_wgsl(b"@compute fn main() {}")


_BROWSER_SUBGROUPS = """\
enable f16, subgroups;
@group(0) @binding(0) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) { y[g.x] = subgroupAdd(f32(g.x)); }
"""


def test_a_shader_written_for_a_browser_enables_subgroups_and_compiles_as_written():
    """WebGPU requires ``enable subgroups;``; naga (wgpu-native 29) refuses the directive
    but provides subgroup operations under the device feature, so the directive is taken
    out where the device has it, keeping every line where it was."""
    from backends.wgpu._device import naga_source

    text = naga_source(_BROWSER_SUBGROUPS, {"subgroup", "shader-f16"})
    assert text.splitlines()[0] == "enable f16;"
    assert text.count("\n") == _BROWSER_SUBGROUPS.count("\n")
    assert naga_source(_BROWSER_SUBGROUPS, set()) == _BROWSER_SUBGROUPS
    assert naga_source("enable subgroups;\n", {"subgroup"}).startswith("// enable subgroups;")
    ctx = forge.open_context("wgpu")
    try:
        if not (ctx.constraints.subgroups and ctx.constraints.shader_f16):
            pytest.skip("this adapter offers no subgroups or f16")
    finally:
        ctx.close()
    backends.wgpu.validate_wgsl(_BROWSER_SUBGROUPS, "main")

"""Workgroup memory starts zeroed, as WGSL promises, on every adapter: the probe
measures whether the adapter zeroes it (Mesa 22.3's lavapipe does not, though it
claims to), and where it does not the backend zeroes it in the shader
(``forge.workgroup_zero``), so a histogram that adds into never-cleared
``var<workgroup>`` bins (as the WebGPU samples write it) is judged right."""

from __future__ import annotations

import pytest

import backends.wgpu
import forge
from forge.workgroup_zero import workgroup_variables, zero_workgroup_memory
from oracle.pytest_plugin import require_available

_SHAPES = """
struct In { @builtin(local_invocation_index) li: u32, @builtin(global_invocation_id) g: vec3u }
override WG: u32 = 64;
var<workgroup> tile: array<array<f32, 17>, 16>;  // a padded 2-D tile
var<workgroup> lanes: array<vec4<f32>, WG>;       // sized by an override
var<workgroup> total: atomic<i32>;
/* var<workgroup> commented: f32; */
var<workgroup> flag: f32;
@group(0) @binding(0) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(WG)
fn by_struct(inp: In) {
    y[inp.g.x] = tile[0][0] + lanes[0].x + f32(atomicLoad(&total)) + flag;
}

@compute @workgroup_size(64)
fn no_params() { y[0] = flag; }

@compute @workgroup_size(64)
fn own_index(@builtin(global_invocation_id) g: vec3u,
             @builtin(local_invocation_index) mine: u32,) {
    y[g.x] = tile[mine % 16u][0];
}
"""


def test_every_workgroup_variable_is_found_outside_comments():
    assert [name for name, _ in workgroup_variables(_SHAPES)] == ["tile", "lanes", "total", "flag"]


def test_the_rewrite_zeroes_each_shape_keeps_lines_and_uses_the_entry_points_own_index(request):
    text, why = zero_workgroup_memory(_SHAPES)
    assert why == "" and text.count("\n") == _SHAPES.count("\n")
    assert "if (inp.li == 0u)" in text and "if (mine == 0u)" in text
    assert "fn no_params(@builtin(local_invocation_index) _kforge_lii: u32)" in text
    assert "atomicStore(&total, 0);" in text and "flag = f32();" in text
    require_available(request.config, "wgpu")
    for entry in ("by_struct", "no_params", "own_index"):
        backends.wgpu.validate_wgsl(text, entry)


def test_a_struct_holding_atomics_is_left_as_written_with_the_reason():
    source = (
        "struct Counters { hits: atomic<u32>, misses: atomic<u32> }\n"
        "var<workgroup> counters: Counters;\n"
        "@compute @workgroup_size(1) fn main() { atomicAdd(&counters.hits, 1u); }\n"
    )
    text, why = zero_workgroup_memory(source)
    assert text == source and "counters" in why and "atomics" in why


def test_the_probe_records_whether_workgroup_memory_starts_zeroed(request):
    """Measured, not assumed: the flag is in the constraints every report shows; CUDA
    and the reference promise nothing about shared memory, so they say True."""
    require_available(request.config, "wgpu")
    with forge.open_context("wgpu") as ctx:
        flag = ctx.constraints.zeroes_workgroup_memory
        assert isinstance(flag, bool)
        assert ctx.constraints.as_dict()["zeroes_workgroup_memory"] is flag
        if "llvmpipe" in ctx.adapter.name and "LLVM 15" in ctx.adapter.name:
            assert flag is False  # Mesa 22.3 on Debian 12: measured 2026-11-30


@pytest.mark.parametrize("backend", ["wgpu", "browser"])
def test_a_histogram_relying_on_zeroed_workgroup_memory_passes(request, backend):
    import oracle
    from tests.wild import CORPUS

    require_available(request.config, backend)
    kernel = CORPUS["wild_luma_histogram"].kernel
    for size in (1, 1000, 4099):
        ev = oracle.evaluate(backend, kernel, size=size, samples=2)
        assert ev.passed, ev.report()

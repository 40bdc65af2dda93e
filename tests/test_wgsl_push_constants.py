"""Push constants: WGSL written for wgpu-native sets per-dispatch values through
``var<push_constant> pc: PC;`` (``var<immediate>`` since naga 27), which WebGPU does
not have and wgpu-native 29 no longer parses. kernel-forge binds the variable as the
kernel's uniform block, at that block's binding, so such a kernel is checked as written
on wgpu and in the browser; a kernel that reads the wrong field still fails, and one
that declares no uniform block, or puts it where the WGSL binds something else, gets an
error saying what to declare."""

from __future__ import annotations

import numpy as np
import pytest

import oracle
from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div
from forge.errors import InvalidArgument
from forge.sources import wgsl_bindings, wgsl_push_constants_bound
from oracle import Verdict
from tests._webgpu_contexts import close_webgpu_contexts, ctx  # noqa: F401  (fixtures)

# A wgpu-native style saxpy: the count and the scale pushed, no uniform buffer.
_SAXPY = """
struct PushConstants {{
    n: u32,
    alpha: f32,
}}
var<{space}> pc: PushConstants;   // set with set_push_constants before each dispatch

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{
    let i = gid.x;
    if (i >= pc.n) {{ return; }}
    y[i] = {expr};
}}
"""


def _saxpy(space: str = "push_constant", expr: str = "pc.alpha * x[i] + y[i]", **extra):
    buffers = extra.pop(
        "buffers",
        (
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y", inout=True),
            BufferSpec.uniform(2, (("n", "u32"), ("alpha", "f32"))),
        ),
    )
    return KernelSpec(
        id=f"saxpy_{space}",
        entry_point="main",
        sources={"wgsl": _SAXPY.format(space=space, expr=expr)},
        buffers=buffers,
        params=lambda n: {"n": n},
        defaults={"alpha": 1.75},
        **{"reference": lambda x, y, n, alpha: np.float32(alpha) * x + y, **extra},
    )


def _verdicts(ctx, kernel, sizes=(1, 200)):
    return [
        oracle.evaluate(ctx, kernel, size=size, samples=0, reorder=False).verdict for size in sizes
    ]


@pytest.mark.parametrize("space", ["push_constant", "immediate"])
def test_a_push_constant_kernel_is_checked_as_written(ctx, space):
    assert _verdicts(ctx, _saxpy(space)) == [Verdict.PASS, Verdict.PASS]


def test_a_kernel_reading_the_wrong_push_constant_field_fails(ctx):
    # alpha read as the count's bits: a wrong value, so the verdict must be a failure
    wrong = _saxpy(expr="bitcast<f32>(pc.n) * x[i] + y[i]")
    assert Verdict.PASS not in _verdicts(ctx, wrong)


def test_each_launch_pushes_its_own_values(ctx):
    # a host that pushes a new scale before each of two dispatches, as a multi-pass
    # algorithm pushes its pass index: the launches' overrides of the uniform's fields
    kernel = _saxpy(
        launches=(
            Dispatch("main", overrides={"alpha": 2.0}),
            Dispatch("main", overrides={"alpha": -0.5}),
        ),
        reference=lambda x, y, n, alpha: np.float32(-0.5) * x + (np.float32(2.0) * x + y),
        grid=lambda schedule, n: (ceil_div(n, 64), 1, 1),
        schedules=(Schedule(64),),
    )
    assert _verdicts(ctx, kernel) == [Verdict.PASS, Verdict.PASS]


def test_the_declaration_becomes_a_uniform_at_the_blocks_binding_lines_kept():
    source = _SAXPY.format(space="push_constant", expr="x[i]")
    bound = wgsl_push_constants_bound(source, 1, 5)
    assert bound.count("\n") == source.count("\n")
    assert "push_constant" not in bound.replace("set_push_constants", "")
    uniform = [b for b in wgsl_bindings(bound) if b.access == "uniform"]
    assert [(b.group, b.binding, b.name, b.type) for b in uniform] == [
        (1, 5, "pc", "PushConstants")
    ]


def test_a_push_constant_without_a_uniform_block_names_the_block_to_declare():
    buffers = (
        BufferSpec(0, "f32", "read", name="x"),
        BufferSpec(1, "f32", "read_write", name="y", inout=True),
    )
    with pytest.raises(InvalidArgument) as caught:
        _saxpy(buffers=buffers)
    message = str(caught.value)
    assert "`pc: PushConstants`" in message
    assert "BufferSpec.uniform(2, (('n', 'u32'), ('alpha', 'f32')))" in message


def test_a_uniform_block_where_the_wgsl_binds_a_buffer_is_refused():
    buffers = (
        BufferSpec(0, "f32", "read", name="x"),
        BufferSpec(1, "f32", "read_write", name="y", inout=True),
        BufferSpec.uniform(0, (("n", "u32"), ("alpha", "f32")), group=1),
    )
    _saxpy(buffers=buffers)  # group 1 is free: fine
    clashing = (
        BufferSpec(0, "f32", "read", name="x"),
        BufferSpec.uniform(1, (("n", "u32"), ("alpha", "f32"))),
        BufferSpec(2, "f32", "read_write", name="y", inout=True),
    )
    with pytest.raises(InvalidArgument, match=r"@binding\(1\), where the WGSL declares `y`"):
        _saxpy(buffers=clashing)

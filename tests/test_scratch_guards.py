"""A scratch buffer (an intermediate a kernel keeps, ``BufferSpec(scratch=True)``, whose
values are not judged) written outside its elements fails, as an output written past
its end does (``oracle._judge._scratch_edges``). In the user's program such a write
lands in the next allocation. Found on the H100 (2026-12-07): TVM's three-kernel
log-softmax with one row bound folded by 32, not 16, wrote its last block's 16 rows of
maxima past its scratch buffer and passed, as nothing read them back (round 67's
mutant, for the GPU run)."""

from __future__ import annotations

import numpy as np
import pytest

import forge
import oracle
from forge import BufferSpec, KernelSpec, Schedule, ceil_div
from oracle import Verdict
from oracle.pytest_plugin import require_available

_SOURCE = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<storage, read_write> doubled: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let i = g.x;
    if (i < arrayLength(&y)) {
        doubled[i + SHIFT] = x[i] * 2.0;
        y[i] = doubled[i + SHIFT] + 1.0;
    }
}
"""


def _twice_plus_one(x, y, doubled):
    y[:] = x * np.float32(2) + np.float32(1)


def _kernel(shift: int) -> KernelSpec:
    return KernelSpec(
        id=f"scratch_shifted_{shift}",
        entry_point="main",
        sources={"wgsl": _SOURCE.replace("SHIFT", f"{shift}u")},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
            BufferSpec(2, "f32", "read_write", name="doubled", scratch=True),
        ),
        reference=_twice_plus_one,
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        schedules=(Schedule(64),),
        test_sizes=(1000,),
    )


@pytest.mark.parametrize("backend", ["wgpu", "browser"])
def test_a_scratch_buffer_written_past_its_end_fails(request, backend):
    require_available(request.config, backend)
    with forge.open_context(backend) as ctx:
        right = oracle.evaluate(ctx, _kernel(0), size=1000, samples=0)
        over = oracle.evaluate(ctx, _kernel(3), size=1000, samples=0)
    assert right.verdict is Verdict.PASS, right.report()
    assert over.verdict is Verdict.MISMATCH, over.report()
    assert over.outputs["y"].passed, over.report()  # the judged output is right
    found = [f for f in over.findings if f.check == "past-end" and f.buffer == "doubled"]
    assert len(found) == 1, over.report()
    assert "3 past the end (first at element 1000, the buffer holds 1000)" in found[0].message

"""A minimum over integers that reads one element past its input's end.

The judged run finds the input poison past each input's end, which as an integer is
large and positive (0x7FB0F0F0): a maximum that reads it fails, a minimum does not.
The rerun found 1, 2, 3, ... there (``oracle._plan._reguard_inputs``), and 1 is no
smaller than the smallest value of most lines the families draw, so a minimum over
i32 or u32 with its bound written ``i <= n`` passed at any size above a few dozen
(3001 here). For a kernel that keeps a running minimum or maximum, the rerun now finds
the type's lowest value next to each integer input's data (``Region.lowest``), and the
one-sign positive set draws unsigned inputs of 1 to 1000 and up, so that 0 is below
every value there (it drew the normal set's 0 to 100 before).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import forge
import oracle
from forge import BufferSpec, KernelSpec
from forge.types import BindingUsage, BufferView
from oracle._plan import Region, _reguard_inputs
from oracle.pytest_plugin import require_available

_TOP = {"i32": "2147483647", "u32": "4294967295u"}


def _minimum(dtype: str, bound: str) -> KernelSpec:
    """One workgroup: each invocation a strided minimum, then invocation 0 of them."""
    source = f"""
struct Params {{ n: u32 }}
@group(0) @binding(0) var<storage, read> x: array<{dtype}>;
@group(0) @binding(1) var<storage, read_write> y: array<{dtype}>;
@group(0) @binding(2) var<uniform> p: Params;
var<workgroup> part: array<{dtype}, 64>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_id) l: vec3<u32>) {{
    var m: {dtype} = {_TOP[dtype]};
    for (var i = l.x; i {bound} p.n; i += 64u) {{ m = min(m, x[i]); }}
    part[l.x] = m;
    workgroupBarrier();
    if (l.x == 0u) {{
        var r: {dtype} = {_TOP[dtype]};
        for (var k = 0u; k < 64u; k++) {{ r = min(r, part[k]); }}
        y[0] = r;
    }}
}}
"""
    return KernelSpec(
        id=f"min_{dtype}_{'over' if '=' in bound else 'right'}",
        entry_point="main",
        sources={"wgsl": source},
        buffers=(
            BufferSpec(0, dtype, "read", name="x"),
            BufferSpec(1, dtype, "read_write", name="y", count=lambda n: 1),
            BufferSpec.uniform(2, (("n", "u32"),)),
        ),
        reference=lambda x, y, params: np.array([x.min()], x.dtype),
        grid=lambda schedule, n: (1, 1, 1),
        test_sizes=(3001,),
    )


def test_the_rerun_puts_the_lowest_value_next_to_an_integer_inputs_data():
    """No device: around 5 i16 elements with 3 guard elements each side, the element
    next to the data on each side holds -32768, the others 2 and 3 counted on."""
    data = np.full(16 + 5 * 2 + 6 + 2, 0xEE, np.uint8)  # guards, data, guards, padding
    lowest = np.array([np.iinfo(np.int16).min], np.int16).tobytes()
    region = Region("x", 0, 0, BindingUsage.STORAGE_READ, data, 16, 10, 5, 2, False, lowest=lowest)
    memory = data.copy()

    def write_view(view, payload):
        memory[view.offset : view.offset + len(payload)] = payload

    ctx = SimpleNamespace(
        constraints=SimpleNamespace(min_storage_offset_alignment=4), write_view=write_view
    )
    _reguard_inputs(ctx, SimpleNamespace(regions=(region,)), [BufferView(0, data.size, 0)])
    words = memory.view(np.int16)
    assert list(words[5:8]) == [3, 2, -32768] and list(words[13:16]) == [-32768, 2, 3]


@pytest.mark.parametrize("dtype", ["i32", "u32"])
def test_a_minimum_over_integers_that_reads_past_the_end_fails(request, dtype):
    require_available(request.config, "wgpu")
    with forge.open_context("wgpu") as ctx:  # in this process: no worker to start
        right = oracle.evaluate(ctx, _minimum(dtype, "<"), samples=1)
        wrong = oracle.evaluate(ctx, _minimum(dtype, "<="), samples=1)
    assert right.passed, right.report()
    assert wrong.failing, wrong.report()

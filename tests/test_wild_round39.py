"""Round 39's findings (tests/wild/round39.py), each pinned by the smallest run that
shows it.

- A shader as written that could not run, fixed: GPUPrefixSums' WGSL (written for wgpu
  23 in Rust, whose naga took subgroup built-ins under the device feature alone) calls
  ``subgroupInclusiveAdd`` and reads ``@builtin(subgroup_size)`` with no ``enable
  subgroups;``. lavapipe ran it; the browser's verdict was ERROR ("cannot call built-in
  function 'subgroupInclusiveAdd' without extension 'subgroups'", Tint), and the kernel
  declared no need of subgroups, so an adapter without them would have said ERROR
  rather than UNSUPPORTED. A module that uses subgroups now needs the ``subgroups``
  feature, enabled or not, and the browser backend enables the extension where the
  source leaves it out (``forge.sources.wgsl_with_subgroups_enabled``).
"""

from __future__ import annotations

import numpy as np

import oracle
from forge import BufferSpec, KernelSpec, Schedule, ceil_div
from forge.sources import wgsl_with_subgroups_enabled
from oracle.pytest_plugin import require_available

_SUBGROUP_SUM_NO_ENABLE = """// no enable directive: naga took this under the device feature
@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> y: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3u, @builtin(subgroup_invocation_id) lane: u32) {
    let v = x[g.x];
    y[g.x] = subgroupInclusiveAdd(v) - subgroupExclusiveAdd(v) + subgroupShuffle(v, lane);
}
"""


def _twice(x, y):
    """Each lane's inclusive less its exclusive prefix is its value, as is a shuffle
    from itself: twice the value (mod 2**32), whatever the subgroup size."""
    return (x.astype(np.uint64) * 2 % 2**32).astype(np.uint32)


def _no_enable() -> KernelSpec:
    """Subgroup built-ins called with no ``enable subgroups;``, as naga took them."""
    return KernelSpec(
        id="r39_subgroups_without_enable",
        entry_point="main",
        sources={"wgsl": _SUBGROUP_SUM_NO_ENABLE},
        buffers=(
            BufferSpec(0, "u32", "read", name="x"),
            BufferSpec(1, "u32", "read_write", name="y"),
        ),
        reference=_twice,
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        schedules=(Schedule(64),),
        test_sizes=(64,),
    )


def test_a_module_using_subgroups_without_enable_needs_the_feature():
    """No device: the kernel needs ``subgroups`` as one with the directive does; the
    source Tint gets says ``enable subgroups;`` on its first line (lines keep their
    numbers); a module that enables it, or only names it in a comment, is unchanged."""
    kernel = _no_enable()
    assert "subgroups" in kernel.features("wgsl", _SUBGROUP_SUM_NO_ENABLE)
    enabled = wgsl_with_subgroups_enabled(_SUBGROUP_SUM_NO_ENABLE)
    assert enabled.startswith("enable subgroups; //")
    assert enabled.count("\n") == _SUBGROUP_SUM_NO_ENABLE.count("\n")
    written = "enable subgroups;\n" + _SUBGROUP_SUM_NO_ENABLE
    assert wgsl_with_subgroups_enabled(written) == written
    comment = "// subgroupAdd( would need it\n@compute @workgroup_size(1) fn main() {}\n"
    assert wgsl_with_subgroups_enabled(comment) == comment
    assert "subgroups" not in kernel.features("wgsl", comment)


def test_subgroups_without_enable_run_in_the_browser(request):
    """Browser: ERROR before the fix (Tint: "cannot call built-in function
    'subgroupInclusiveAdd' without extension 'subgroups'"), PASS now."""
    require_available(request.config, "browser")
    kernel = _no_enable()
    ev = oracle.evaluate("browser", kernel, size=64, seed=0, samples=0, warmups=0)
    assert ev.passed, ev.report()

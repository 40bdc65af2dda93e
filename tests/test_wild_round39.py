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
- An output a kernel ORs into without ``initial=0`` declared was reported as never
  written, with no hint of the declaration (fixed: the oracle judges it again with
  such outputs zeroed, and where that passes says to declare ``initial=0``).
- A read of an index input past its end got the oracle's input poison, which as an
  index reads past every buffer (0 there), so arrow-gpu's bitmap take with its tail
  bound dropped passed (once a strict xfail; fixed: the rerun finds 1, 2, 3, ... past
  every input's ends, ``oracle._plan._reguard_inputs``).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import oracle
from forge import BufferSpec, KernelSpec, Schedule, ceil_div
from forge.sources import wgsl_with_subgroups_enabled
from forge.types import BindingUsage
from oracle import Session, Verdict
from oracle.pytest_plugin import require_available
from tests.wild import mutant
from tests.wild.round39 import CAST_U8, TAKE_BOOL

_SUBGROUP_SUM_NO_ENABLE = """// no enable directive: naga took this under the device feature
@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> y: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3u, @builtin(subgroup_invocation_id) lane: u32) {
    let v = x[g.x];
    y[g.x] = subgroupInclusiveAdd(v) - subgroupExclusiveAdd(v) + subgroupShuffle(v, lane);
}
"""


@pytest.fixture(scope="module")
def session():
    with Session(timeout_s=60) as shared:
        yield shared


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


def test_subgroups_without_enable_run_in_the_browser(request, session):
    """Browser: ERROR before the fix (Tint: "cannot call built-in function
    'subgroupInclusiveAdd' without extension 'subgroups'"), PASS now."""
    require_available(request.config, "browser")
    kernel = _no_enable()
    ev = oracle.evaluate(session.runner("browser"), kernel, size=64, seed=0, samples=0, warmups=0)
    assert ev.passed, ev.report()


def _without_initial(kernel: KernelSpec) -> KernelSpec:
    buffers = tuple(dataclasses.replace(b, initial=None) for b in kernel.buffers)
    return dataclasses.replace(kernel, id=f"{kernel.id}_no_initial", buffers=buffers)


def test_an_output_ored_into_without_initial_content_says_to_declare_it(request, session):
    """arrow-gpu's cast ORs each byte into ``new_values``, a buffer its host creates
    (zeroed). Declared without ``initial=0`` the MISMATCH is right, but the report said
    only that elements were never written, where the kernel combined its bytes with the
    poison (once a strict xfail; an attempt to match got against want | poison failed:
    NaN and negative floats convert to 0 under WGSL's saturation, which numpy's
    reference leaves undefined). Now the oracle judges it once more with the failing
    outputs zeroed, and says so where that passes (``_note_outputs_read_first``)."""
    require_available(request.config, "wgpu")
    kernel = _without_initial(CAST_U8.kernel)
    ev = oracle.evaluate(session.runner("wgpu"), kernel, size=1, seed=0, samples=0, warmups=0)
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    assert "initial=0" in ev.report(), ev.report()


def test_a_bitmap_take_reading_its_indexes_past_the_end_fails(request, session):
    """arrow-gpu's take on a bitmap with its loop's tail bound dropped reads
    ``indexes`` past the end for the last word's spare bits: each read is the poison
    0x7FB17FF0 (seen on lavapipe and SwiftShader), whose word 66946951 lies past the
    bitmap, 0 there: the spare bits stay 0, as the reference says; it passed at every
    seed. The rerun reads the indexes 1, 2, 3, ... there, real bits of the bitmap."""
    require_available(request.config, "wgpu")
    broken = dataclasses.replace(
        TAKE_BOOL,
        mutants={
            "the tail bound dropped": (
                "wgsl",
                "(i < 32u) && ((start_index + i) < arrayLength(&indexes))",
                "i < 32u",
            )
        },
    )
    kernel = mutant(broken, "the tail bound dropped")
    ev = oracle.evaluate(session.runner("wgpu"), kernel, size=1, seed=0, samples=0, warmups=0)
    assert ev.verdict is Verdict.MISMATCH, ev.report()


def _accumulating(name: str, body: str) -> KernelSpec:
    return KernelSpec(
        id=f"r39_accumulate_{name}",
        entry_point="main",
        sources={
            "wgsl": "@group(0) @binding(0) var<storage, read> x: array<u32>;\n"
            "@group(0) @binding(1) var<storage, read_write> y: array<u32>;\n"
            "@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {\n"
            f"  if (g.x < arrayLength(&x)) {{ {body} }}\n}}\n"
        },
        buffers=(
            BufferSpec(0, "u32", "read", name="x"),
            BufferSpec(1, "u32", "read_write", name="y"),
        ),
        reference=lambda x, y: y.__setitem__(slice(None), x & 0xFF),
        grid=lambda s, n: (ceil_div(int(n), 64), 1, 1),
        schedules=(Schedule(64),),
        test_sizes=(100,),
    )


def test_the_hint_is_given_only_where_zeroed_outputs_pass(request, session):
    """An output ORed into without ``initial``: the hint names it; a kernel that is wrong
    whatever its output starts from (a mask of 0x7F) gets no such hint."""
    require_available(request.config, "wgpu")
    runner = session.runner("wgpu")
    ored = oracle.evaluate(runner, _accumulating("or", "y[g.x] |= x[g.x] & 0xFFu;"), samples=0)
    assert ored.verdict is Verdict.MISMATCH, ored.report()
    assert any("y: the kernel reads it before writing" in n for n in ored.notes), ored.report()
    wrong = oracle.evaluate(runner, _accumulating("wrong", "y[g.x] |= x[g.x] & 0x7Fu;"), samples=0)
    assert wrong.verdict is Verdict.MISMATCH, wrong.report()
    assert not any("before writing" in n for n in wrong.notes), wrong.report()
    # kforge check's way (a cross-check), and over inputs a user gives
    given = {"x": np.arange(100, dtype=np.uint32) * 7}
    checked = oracle.cross_check(
        _accumulating("or", "y[g.x] |= x[g.x] & 0xFFu;"),
        ["wgpu"],
        samples=0,
        session=session,
        inputs=given,
    ).evaluations["wgpu"]
    assert checked.verdict is Verdict.MISMATCH, checked.report()
    assert any("y: the kernel reads it before writing" in n for n in checked.notes), (
        checked.report()
    )


def test_an_update_in_place_is_told_from_a_plain_write():
    """The cheap test before the second run: compound assignments and atomics on the
    output (WGSL and CUDA spellings), an element assigned from itself; not a plain
    store, not another array's update, not a comparison."""
    from oracle._evaluate import _updated_in_place

    for updated in (
        "y[g.x] |= x[g.x] & 0xFFu;",
        "atomicAdd(&y[i], 1u);",
        "atomicOr(y + i, bits);",
        "y[row * n + col] += acc;",
        "y[i] = y[i] * beta + alpha * x[i];",
    ):
        assert _updated_in_place(updated, {"y"}), updated
    for written in ("y[i] = x[i] + 1.0;", "yy[i] += 1;", "s[t] += s[t + k]; y[i] = s[0];"):
        assert not _updated_in_place(written, {"y"}), written


def test_the_rerun_counts_the_elements_past_each_inputs_ends():
    """No device: what ``_reguard_inputs`` writes around an input of 5 u16 elements with
    3 guard elements before (padded to 16 bytes) and after: 1, 2, 3 counted away from
    the data on both sides, the data itself unchanged; outputs are left alone."""
    from types import SimpleNamespace

    from forge.types import BufferView
    from oracle._plan import Region, _reguard_inputs

    data = np.full(16 + 5 * 2 + 6 + 2, 0xEE, np.uint8)  # guards, data, guards, padding
    region = Region("x", 0, 0, BindingUsage.STORAGE_READ, data, 16, 10, 5, 2, False)
    out = dataclasses.replace(region, label="y", output=True)
    memory = {0: data.copy(), 1: data.copy()}
    writes = []

    def write_view(view, payload):
        writes.append(view.binding)
        memory[view.binding][view.offset : view.offset + len(payload)] = payload

    ctx = SimpleNamespace(
        constraints=SimpleNamespace(min_storage_offset_alignment=4), write_view=write_view
    )
    views = [BufferView(0, data.size, 0), BufferView(0, data.size, 1)]
    _reguard_inputs(ctx, SimpleNamespace(regions=(region, out)), views)
    words = memory[0].view(np.uint16)
    assert list(words[5:8]) == [3, 2, 1] and list(words[8:13]) == [0xEEEE] * 5
    assert list(words[13:17]) == [1, 2, 3, 4]
    assert set(writes) == {0} and np.array_equal(memory[1], data)

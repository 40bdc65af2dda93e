"""Round 62's findings (tests/wild/round62.py: WGSL subgroup operations), each pinned
by the smallest run that shows it.

- lavapipe's subgroup width was unknown to the oracle: wgpu-native reports no
  ``subgroupMinSize``/``subgroupMaxSize`` for it, so ``constraints.subgroup_size`` was
  None and a reference taking ``constraints=`` could not learn the width its kernel
  ran at (fixed: the probe measures it where the adapter does not say, 8 on lavapipe;
  SwiftShader reports its 4).
- A kernel written for some subgroup widths only had no way to say so: ORT-web's
  Intel subgroup matmul writes one branch a width (32, 16, 8) and computes zeros at
  SwiftShader's 4, where ORT never dispatches it; jowens' reduce reads as many
  subgroup totals as its first subgroup has lanes. ``requires={"subgroup_size>=8"}``
  now makes such a kernel UNSUPPORTED where the width is other, naming it; undeclared,
  a kernel wrong at the adapter's width stays a MISMATCH (WebGPU allows 4 to 128
  lanes, so it is wrong by WebGPU's rules) whose report says the width.
- Austin Eng's ``enable chromium_experimental_subgroups;`` (Chrome's origin-trial
  name) was unsupported on both backends (fixed: it needs and enables ``subgroups``).
- naga (wgpu-native 29) refused valid WGSL that Chrome takes: ``subgroupElect()``
  (no such function in naga) and a lane given as a bare integer literal,
  ``subgroupBroadcast(a_val_0, 0)`` ("Operand has invalid type"): ERROR on wgpu for
  right kernels (fixed: the wgpu backend spells them as naga takes them).
- Not fixed: a two-variable shader run into partials and then from them into the
  total, three buffers moved by each launch's bindings, cannot be expressed: both
  backends also bind every buffer at its own (group, binding), declared or not, so the
  partials are bound twice and Dawn refuses the writable alias (the entry runs the
  first launch only). The refusal now says so, where it only told the kernel to give
  each variable a buffer of its own, which it does.
- The reversed rerun did not reorder a module that uses subgroups at all, so a
  barrier dropped between one subgroup's write and another's read passed on both CPU
  adapters (web-rwkv's RMS norm with the barrier after its scale dropped); and a
  module reading ``@builtin(subgroup_id)`` or ``num_subgroups`` but calling no subgroup
  function was not seen as using subgroups, and was reversed invocation by invocation,
  which changes what a right kernel mixing ``subgroup_id`` with the local index reads
  (a false alarm). Now the subgroups' order is reversed, each keeping its lanes, and
  both builtins count as subgroup use.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import oracle
from forge import BufferSpec, KernelSpec, Schedule, ceil_div
from forge.sources import wgsl_uses_subgroups
from forge.types import AdapterConstraints
from oracle import Session, Verdict
from oracle._reorder import reversed_invocations
from oracle.pytest_plugin import require_available
from tests.wild import mutant
from tests.wild.round62 import PK_REDUCE, RWKV_RMS_NORM


@pytest.fixture(scope="module")
def session():
    with Session(timeout_s=60) as shared:
        yield shared


def _constraints(**changes) -> AdapterConstraints:
    base = AdapterConstraints(
        max_workgroup_size=(256, 256, 64),
        max_invocations_per_workgroup=256,
        max_workgroups_per_dimension=(65535, 65535, 65535),
        max_workgroup_storage_bytes=16384,
        max_storage_binding_size=1 << 27,
        max_buffer_size=1 << 28,
    )
    return dataclasses.replace(base, **changes)


def test_a_subgroup_width_bound_holds_for_every_width_the_adapter_may_run():
    """``subgroup_size>=N``, ``<=N`` and ``==N`` against the adapter's least and most
    width; never where it has no subgroups or does not say how wide they are."""
    swiftshader = _constraints(subgroups=True, subgroup_size=(4, 4))
    lavapipe = _constraints(subgroups=True, subgroup_size=(8, 8))
    intel = _constraints(subgroups=True, subgroup_size=(8, 32))
    assert not swiftshader.supports("subgroup_size>=8")
    assert lavapipe.supports("subgroup_size>=8") and intel.supports("subgroup_size >= 8")
    assert not intel.supports("subgroup_size>=16") and intel.supports("subgroup_size<=32")
    assert lavapipe.supports("subgroup_size==8") and not intel.supports("subgroup_size==8")
    assert not _constraints(subgroups=True).supports("subgroup_size>=4")
    assert not _constraints(subgroup_size=(32, 32)).supports("subgroup_size>=4")


@pytest.mark.xdist_group("r62_devices")
def test_lavapipe_says_how_wide_its_subgroups_are(request, session):
    """wgpu-native reports no width for lavapipe: the probe's 8 (None before)."""
    require_available(request.config, "wgpu")
    constraints = session.runner("wgpu").info.constraints
    if "llvmpipe" not in session.runner("wgpu").info.adapter.name:
        pytest.skip("lavapipe's width: another adapter reports its own")
    assert constraints.subgroups and constraints.subgroup_size == (8, 8)


def test_the_origin_trial_name_of_subgroups_needs_and_enables_subgroups():
    """Austin Eng's kernels say ``enable chromium_experimental_subgroups;`` (Chrome 125 to
    127): unsupported on both backends before; now the kernel needs ``subgroups``, which
    the browser enables by that name and naga takes from the device."""
    from backends.wgpu._device import naga_source
    from forge.sources import wgsl_with_subgroups_enabled
    from tests.wild.round62 import ENG_MATVEC

    source = ENG_MATVEC.kernel.sources["wgsl"]
    assert ENG_MATVEC.kernel.features("wgsl", source) == {"subgroups", "subgroup_size<=32"}
    enabled = wgsl_with_subgroups_enabled(source)
    assert enabled.startswith("enable subgroups;\n") and "chromium_experimental" not in enabled
    assert naga_source(source, {"subgroup"}).startswith("// enable chromium_experimental")


def test_naga_takes_subgroup_elect_and_a_literal_lane_as_wgsl_writes_them():
    """The wgpu backend's spelling for naga: ``subgroupElect()`` as the lowest active
    lane's ``subgroupExclusiveAdd(1u) == 0u``, a bare literal lane with its ``u``;
    lines keep their numbers, a typed lane and a computed one stay as written."""
    from backends.wgpu._device import naga_source

    text = (
        "enable subgroups;\nfn f(v: f32, k: u32) -> f32 {\n"
        "  if (subgroupElect()) { return subgroupBroadcast(v, 0); }\n"
        "  return subgroupShuffle(v, 0x1f) + subgroupShuffleXor(v, 2u)\n"
        "    + quadBroadcast(v, k + 1);\n}\n"
    )
    spelled = naga_source(text, {"subgroup"})
    assert "subgroupElect" not in spelled and "(subgroupExclusiveAdd(1u) == 0u)" in spelled
    assert "subgroupBroadcast(v, 0u)" in spelled and "subgroupShuffle(v, 0x1fu)" in spelled
    assert "subgroupShuffleXor(v, 2u)" in spelled and "quadBroadcast(v, k + 1)" in spelled
    assert spelled.count("\n") == text.count("\n")


def test_three_buffers_through_two_variables_are_refused_saying_why():
    """jowens' reduce as its host runs it: into the partials, then, one workgroup, from
    them into the total, three buffers through two variables. Both backends also bind
    every buffer at its own slot, so the partials are bound twice (Dawn refuses the
    writable alias; wgpu-native took it): refused before it runs, and the refusal says
    that the slot is no variable of the shader (before, it only said to give each
    variable a buffer of its own, which the kernel does)."""
    from forge import Dispatch
    from forge.errors import InvalidArgument

    kernel = PK_REDUCE.kernel
    with pytest.raises(InvalidArgument, match=r"\(0, 2\) is no variable of this shader"):
        dataclasses.replace(
            kernel,
            buffers=(*kernel.buffers, BufferSpec(2, "u32", "read_write", name="total", count=1)),
            launches=(
                Dispatch(kernel.entry_point, bindings={"outBuffer": "outBuffer"}),
                Dispatch(
                    kernel.entry_point,
                    grid=(1, 1, 1),
                    bindings={"outBuffer": "total", "inBuffer": "outBuffer"},
                ),
            ),
        )


_SUBGROUP_COUNTS = """enable subgroups;
@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> y: array<u32>;
var<workgroup> counts: array<atomic<u32>, 64>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>,
        @builtin(local_invocation_index) li: u32,
        @builtin(subgroup_id) sid: u32,
        @builtin(num_subgroups) ns: u32) {
    // each subgroup counts its odd elements in its own slot
    if (x[g.x] % 2u == 1u) { atomicAdd(&counts[sid], 1u); }
    workgroupBarrier();
    // each invocation reads its subgroup's count, its subgroup found from its index
    y[g.x] = atomicLoad(&counts[li / (64u / ns)]);
}
"""


def _subgroup_counts_reference(x, y, *, constraints):
    width = constraints.subgroup_size[0]
    odd = (x % 2).reshape(-1, width).sum(axis=1)
    return np.repeat(odd, width).astype(np.uint32)


@pytest.mark.xdist_group("r62_devices")
def test_a_kernel_reading_subgroup_id_alone_is_not_reversed_lane_by_lane(request, session):
    """No subgroup function, only ``subgroup_id`` and ``num_subgroups``: the module uses
    subgroups, and its twin reverses whole subgroups (before: lane by lane, where
    ``counts[sid]`` and ``counts[li / width]`` then name other subgroups, a MISMATCH in
    the rerun on lavapipe)."""
    assert wgsl_uses_subgroups(_SUBGROUP_COUNTS)
    twin = reversed_invocations(_SUBGROUP_COUNTS)
    assert twin is not None and "kf_rev_whole" in twin
    require_available(request.config, "wgpu")
    kernel = KernelSpec(
        id="r62_subgroup_id_counts",
        entry_point="main",
        sources={"wgsl": _SUBGROUP_COUNTS},
        buffers=(
            BufferSpec(0, "u32", "read", name="x"),
            BufferSpec(1, "u32", "read_write", name="y"),
        ),
        reference=_subgroup_counts_reference,
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        schedules=(Schedule(64),),
        test_sizes=(256,),
    )
    ev = oracle.evaluate(session.runner("wgpu"), kernel, size=256, seed=0, samples=0)
    assert ev.passed, ev.report()


@pytest.mark.xdist_group("r62_devices")
def test_a_barrier_dropped_between_subgroups_fails_in_the_reversed_rerun(request, session):
    """web-rwkv's RMS norm with the barrier after its scale dropped: invocation 0's
    subgroup ran first on lavapipe, so every later one read the scale written (PASS
    before, the module rerun as written); with the subgroups reversed it runs last."""
    require_available(request.config, "wgpu")
    if "llvmpipe" not in session.runner("wgpu").info.adapter.name:
        pytest.skip("lavapipe's order of subgroups: the corpus's mutant runs elsewhere")
    broken = mutant(RWKV_RMS_NORM, "no barrier after the scale is kept")
    ev = oracle.evaluate(session.runner("wgpu"), broken, size="1x6x516", seed=0, samples=0)
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    assert "each keeping its lanes" in ev.report(), ev.report()


@pytest.mark.xdist_group("r62_devices")
def test_a_kernel_right_only_on_wider_subgroups_is_told_the_width(request, session):
    """jowens' reduce in workgroups of 128 (its parameter range's largest): its first
    subgroup reads 8 of lavapipe's 16 subgroup totals, a MISMATCH (wrong by WebGPU's
    rules) whose report says 8 lanes; declared ``subgroup_size>=16`` it is UNSUPPORTED
    there, naming the width (SwiftShader's 4 lanes and the entry's ``>=8``: the corpus's
    skip says the same)."""
    require_available(request.config, "wgpu")
    runner = session.runner("wgpu")
    if runner.info.constraints.subgroup_size != (8, 8):
        pytest.skip("lavapipe's 8 lanes: this adapter's are other")
    source = PK_REDUCE.kernel.sources["wgsl"]
    for old, new in (
        ("@workgroup_size(64)", "@workgroup_size(128)"),
        ("roundUpDivU32(64, sgsz)", "roundUpDivU32(128, sgsz)"),
        ("nwg.x * 64)", "nwg.x * 128)"),
    ):
        assert source.count(old) == 1
        source = source.replace(old, new)

    def reference(inBuffer, outBuffer):
        owner = (np.arange(inBuffer.shape[0]) // 128) % outBuffer.shape[0]
        sums = np.zeros(outBuffer.shape[0], np.uint64)
        np.add.at(sums, owner, inBuffer.astype(np.uint64))
        return (sums % 2**32).astype(np.uint32)

    wide = dataclasses.replace(
        PK_REDUCE.kernel,
        id="r62_pk_reduce_wg128",
        sources={"wgsl": source},
        reference=reference,
        requires=frozenset({"subgroups"}),
        buffers=(
            BufferSpec(0, "u32", "read_write", name="outBuffer", count=8),
            BufferSpec(1, "u32", "read", name="inBuffer"),
        ),
        grid=(8, 1, 1),
        schedules=(Schedule(128),),
        test_sizes=(4099,),
    )
    ev = oracle.evaluate(runner, wide, size=4099, seed=0, samples=0, reorder=False)
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    assert "subgroups are 8 lanes wide" in ev.report(), ev.report()
    declared = dataclasses.replace(wide, requires=frozenset({"subgroups", "subgroup_size>=16"}))
    ev = oracle.evaluate(runner, declared, size=4099, seed=0, samples=0)
    assert ev.verdict is Verdict.UNSUPPORTED, ev.report()
    assert "subgroup_size>=16" in ev.report() and "8 lanes wide" in ev.report(), ev.report()

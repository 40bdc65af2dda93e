"""What round 72 of the wild kernels (tests/wild/round72.py: bcrusco's Forward+ tile
light culling as a WebGPU port, Bevy's build_indirect_params with a slot reserved per
batch set, Bevy's single-pass depth pyramid) showed of the oracle, pinned.

Every original passes on the reference and lavapipe, and the light culling and the
indirect arguments on SwiftShader too; every mutant fails on lavapipe, and on
SwiftShader where it runs (``KFORGE_SLOW_TESTS=1``). The depth pyramid binds six
storage textures: SwiftShader's WebGPU allows four a stage, so the browser refuses it
(UNSUPPORTED, naming the limit), and tests/test_wild_kernels.py now skips such a
refusal with its reason as it skips a missing device feature; lavapipe judges it.

- A defect of the source, shown: Bevy's ``reduce_load_mip_0`` gathers at
  ``(tex + 0.5) / size``, the centre of the 2 x 2 block's first texel, which is where a
  gather's footprint changes: the texel pair read is ``tex, tex + 1`` or ``tex - 1,
  tex`` as ``uv * size - 0.5`` rounds. On a depth buffer of a power-of-two size the
  coordinate is exact and the pyramid is right; at 97 x 150 lavapipe reads a block one
  texel over in hundreds of mip 1's texels. The entry gathers at the block's shared
  corner, ``(tex + 1) / size``, as FidelityFX SPD's sampled load does, and Bevy's
  coordinate is a mutant (test below). NVIDIA's fixed-point texel coordinates hide it
  (H100, 2026-12-07): there Bevy's coordinate gathers the block it means.
- A gap, closed by a declaration (test below): an ``unordered`` output of whole rows (draws of
  four u32) is one multiset where the reference's sentinel rows lie between written
  ones. Bevy's batch sets each append their draws from their own base, so a set's
  unused slots lie at its end, before the next set's first: a build whose append skips
  the counter's old value (``base + offset + 1``) moves each set's draws one slot on.
  Where some set has no empty batch, that lands on the next set's first slot and the
  entry's mutant fails; where every set ends with an empty batch, the draws keep their
  multiset and the mutant passes. The per-row rule (a list a row, each appended from
  its own base, round 36) needs rows of one length; a multiset per run of written rows
  and the sentinel rows after it would judge these sets, but not by default: a hash
  table's empty slots lie between its pairs too (round 52), and there a run is no
  list. So it is a declaration: ``unordered="lists"`` judges each run of the
  reference's written rows as a multiset of its own and the free slots where they
  are; the entry as written keeps one multiset of rows.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import forge
import oracle
from oracle import Verdict
from oracle.pytest_plugin import require_available
from tests.wild import CORPUS, mutant
from tests.wild.round72 import _bevy_layout, _bevy_metadata

_PYRAMID = "wild_r72_bevy_downsample_depth_spd_first_pass"
_INDIRECT = "wild_r72_bevy_build_indirect_params_multidraw_count"
_BEVY_COORDINATE = "the gather at the first texel's centre, as Bevy writes it"
_SKIPS = "the append skips the counter's old value"


def test_bevys_gather_coordinate_is_right_only_where_it_is_exact(request):
    """Bevy's coordinate as written: right on a 64 x 64 depth buffer, where every
    ``(tex + 0.5) / 64`` is exact; a block one texel over at 97 x 150."""
    require_available(request.config, "wgpu")
    bevy = mutant(CORPUS[_PYRAMID], _BEVY_COORDINATE)
    with forge.open_context("wgpu") as ctx:
        exact = oracle.evaluate(ctx, bevy, size="64x64", samples=0)
        odd = oracle.evaluate(ctx, bevy, size="97x150", samples=0)
    assert exact.verdict is Verdict.PASS, exact.report()
    hidden = CORPUS[_PYRAMID].invisible_on.items()
    why = [w for (m, _, part), w in hidden if m == _BEVY_COORDINATE and part in odd.adapter.name]
    if why and odd.passed:
        pytest.skip(f"not visible in the values on {odd.adapter.name}: {why[0]}")
    assert odd.verdict is Verdict.MISMATCH, odd.report()
    assert not odd.outputs["mip_1"].passed, odd.report()


def _every_set_ends_empty(rng, count, size):
    """The entry's metadata with the last batch of every batch set empty (no instance
    visible), as culling leaves many: each set then has a free slot at its end."""
    out = _bevy_metadata(rng, count, size)
    batch_set, _ = _bevy_layout(size)
    last = [b for b in range(count) if batch_set[b] != 0xFFFFFFFF][-1:]
    ends = [
        b
        for b in range(count - 1)
        if batch_set[b] != 0xFFFFFFFF and batch_set[b + 1] != batch_set[b]
    ]
    for b in {*ends, *last}:
        out["early_instance_count"][b] = out["late_instance_count"][b] = 0
    return out


def _with_free_set_ends(kernel: forge.KernelSpec) -> forge.KernelSpec:
    buffers = tuple(
        dataclasses.replace(b, fill=_every_set_ends_empty)
        if b.name == "indirect_parameters_metadata"
        else b
        for b in kernel.buffers
    )
    return dataclasses.replace(kernel, id=f"{kernel.id}__free_set_ends", buffers=buffers)


def test_the_draws_with_free_set_ends_pass_the_right_build(request):
    """The draws of the pinned gap are fair: the original passes on them."""
    require_available(request.config, "wgpu")
    right = _with_free_set_ends(CORPUS[_INDIRECT].kernel)
    with forge.open_context("wgpu") as ctx:
        ev = oracle.evaluate(ctx, right, size="301x40", samples=0)
    assert ev.verdict is Verdict.PASS, ev.report()


def _as_lists(kernel: forge.KernelSpec) -> forge.KernelSpec:
    """``kernel`` with its draws declared lists appended from their own bases."""
    buffers = tuple(
        dataclasses.replace(b, unordered="lists") if b.name == "indirect_parameters" else b
        for b in kernel.buffers
    )
    return dataclasses.replace(kernel, buffers=buffers)


def test_a_build_that_skips_the_counters_old_value_fails_where_sets_end_free(request):
    """Gap closed: declared ``unordered="lists"``, each set's draws are a multiset up to
    its free slots, which stay where they are; the entry as written (one multiset of
    rows) passes this mutant where every set ends free."""
    require_available(request.config, "wgpu")
    wrong = _with_free_set_ends(mutant(CORPUS[_INDIRECT], _SKIPS))
    right = _with_free_set_ends(CORPUS[_INDIRECT].kernel)
    with forge.open_context("wgpu") as ctx:
        as_rows = oracle.evaluate(ctx, wrong, size="301x40", samples=0)
        ev = oracle.evaluate(ctx, _as_lists(wrong), size="301x40", samples=0)
        kept = oracle.evaluate(ctx, _as_lists(right), size="301x40", samples=0)
    assert as_rows.verdict is Verdict.PASS, as_rows.report()
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    assert any("declared lists appended from their own bases" in n for n in ev.notes)
    assert kept.verdict is Verdict.PASS, kept.report()


def test_the_free_set_ends_are_where_the_mutant_moves_its_draws():
    """The mutant's draws land where the reference leaves sentinels: each set's first
    slot is free under it and each set's free end slot is taken, so the gap above is the
    multiset's, not the draws'."""
    size = forge.Size({"B": 301, "M": 40})
    meta = _every_set_ends_empty(np.random.default_rng(0), 301, size)
    batch_set, bases = _bevy_layout(size)
    counts = meta["early_instance_count"] + meta["late_instance_count"]
    for s, base in enumerate(bases):
        members = np.flatnonzero(batch_set == s)
        used = int((counts[members] > 0).sum())
        assert used < len(members), (s, used, len(members))  # a free slot at the end
        assert int(base) == int(members[0])

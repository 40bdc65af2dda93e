"""What round 53's kernels (tests/wild/round53.py) showed, pinned: the radix sort's
launches are its host's (every pass's block sums, scan levels and reorder), TensorFlow.js's
softmax as written is caught at a column count that is no power of two and below its
workgroup (the max's tree leaves a slot out, and a row of large negative logits whose
largest lies there gets NaN), the radix sort's out-of-bounds scan fails where it writes
past the end of its block sums (since 2026-12-07: a scratch buffer's guards are read),
and the path tracer's reference draws the
kernel's PCG stream and carries WGSL's error of cos and sin."""

from __future__ import annotations

import numpy as np
import pytest

import oracle
from oracle import Session, Verdict
from oracle._builtins import carries
from oracle.pytest_plugin import require_available
from tests.wild.round53 import (
    PATH_TRACER,
    RADIX_SORT,
    TFJS_SOFTMAX,
    _pcg,
    _radix_launches,
    _scan_levels,
)


@pytest.fixture(scope="module")
def session():
    with Session(timeout_s=60) as shared:
        yield shared


def test_the_radix_sorts_launches_are_its_hosts():
    # 4096 keys, 16 a workgroup: 256 block-sum workgroups, 1024 counts in 32 scan blocks
    # of 32, then their 32 sums in one; per two bits: block sums, two scans, one add,
    # the reorder; four passes (bit_count 8)
    assert _scan_levels(4 * 256) == [32, 1]
    steps = _radix_launches(4096)
    assert len(steps) == 4 * 5
    names = [s.entry_point for s in steps]
    assert names[:5] == [
        "radix_sort",
        "reduce_downsweep",
        "reduce_downsweep",
        "add_block_sums",
        "radix_sort_reorder",
    ]
    bits = [s.overrides["CURRENT_BIT"] for s in steps if s.overrides]
    assert bits[:4] == [0, 0, 2, 2] and bits[-1] == 6
    # odd passes read the second pair and write back into keys and values
    assert steps[5].bindings["inputKeys"] == "tmpKeys"
    assert steps[9].bindings["outputKeys"] == "keys"
    # 128 keys: one scan block, no add
    assert [s.entry_point for s in _radix_launches(128)][:3] == [
        "radix_sort",
        "reduce_downsweep",
        "radix_sort_reorder",
    ]


def test_the_radix_reference_is_a_stable_key_value_sort():
    keys = np.array([3, 1, 3, 0, 1], np.uint32)
    values = np.arange(5, dtype=np.uint32)
    out = RADIX_SORT.kernel.reference(keys=keys, values=values)
    assert out["keys"].tolist() == [0, 1, 1, 3, 3]
    assert out["values"].tolist() == [3, 1, 4, 0, 2]


@pytest.mark.parametrize("backend", ["wgpu", "browser"])
def test_tfjs_softmax_as_written_is_caught_where_its_max_tree_leaves_a_slot_out(
    request, session, backend
):
    # 10 columns: the tree halves 10 -> 5 -> 2 -> 1 slots and never reads slot 4; the
    # mend max(buf[0], buf[9]) does not reach it. In the negative input set a row of
    # large negative logits has its largest at column 4: exp(x - max) overflows to Inf
    # and Inf / Inf is NaN where the reference has 1.0
    require_available(request.config, backend)
    ev = oracle.evaluate(
        session.runner(backend), TFJS_SOFTMAX.kernel, size="rows=6,cols=10", samples=0
    )
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    assert "in the negative input set" in ev.report(), ev.report()
    assert "[54] got nan want 1.0" in ev.report(), ev.report()


@pytest.mark.parametrize("backend", ["wgpu", "browser"])
def test_the_radix_sorts_out_of_bounds_scan_fails_where_it_writes_past_the_end(
    request, session, backend
):
    """4000 keys: 1000 counts, and the last of 32 scan blocks reads and writes 24 slots
    past the end of ``block_sums``, a scratch buffer. The sorted keys and values come
    out right on both CPU adapters, but WGSL lets a device land those writes on the
    last count instead (and CUDA's port would write into the next allocation): since
    2026-12-07 a scratch buffer's guards are read as an output's are, and the overrun
    fails, named. The corpus runs 4096 and 128 keys, where nothing is out of bounds."""
    require_available(request.config, backend)
    ev = oracle.evaluate(session.runner(backend), RADIX_SORT.kernel, size=4000, samples=0)
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    assert all(check.passed for check in ev.outputs.values()), ev.report()
    found = [f.message for f in ev.findings if f.check == "past-end"]
    assert found == [
        "block_sums: scratch buffer written outside its elements: 24 past the end "
        "(first at element 1000, the buffer holds 1000)"
    ], ev.report()


def _pcg_step(state: int) -> tuple[int, int]:
    """rand_pcg in plain integers: the new state and the hash."""
    after = (state * 747796405 + 2891336453) & 0xFFFFFFFF
    word = (after >> ((state >> 28) + 4)) ^ after
    mixed = (word * 277803737) & 0xFFFFFFFF
    return after, (mixed >> 22) ^ mixed


def test_the_path_tracers_reference_draws_the_kernels_pcg_stream():
    states = np.array([0, 1, 719393 * 77 + 51234, 0xFFFFFFFF], np.uint64)
    after, value = _pcg(states, np.ones(4, bool))
    for state, got_state, got_value in zip(states.tolist(), after.tolist(), value.tolist()):
        want_state, hashed = _pcg_step(state)
        assert got_state == want_state
        assert got_value == float(np.float32(hashed)) / 2.0**32


def test_the_path_tracers_reference_carries_wgsl_trig_error():
    # the bounce directions come from np.cos and np.sin of a random angle: the oracle
    # draws them off by WGSL's 2**-11 (Expected.trig_bound), and the accumulated
    # colours passed on lavapipe and SwiftShader within 8 ulp, no path taking another
    # sphere or the sky
    assert carries(PATH_TRACER.kernel.reference, frozenset({"sin", "cos"}))


def test_a_case_whose_inputs_are_all_fixed_is_judged_in_one_input_set(session):
    # the path tracer's only input is its camera (fixed content): the one-sign sets its
    # running minimum (the closest hit) asks for hold the same bytes, and judging them
    # again tripled its cost (9 s on SwiftShader); the softmax's logits are drawn, and
    # still get them
    fixed = oracle.evaluate(
        session.runner("reference"), PATH_TRACER.kernel, size="H=12,W=20", samples=0
    )
    assert fixed.passed and len(fixed.input_sets) == 1, fixed.input_sets
    drawn = oracle.evaluate(
        session.runner("reference"), TFJS_SOFTMAX.kernel, size="rows=6,cols=32", samples=0
    )
    assert drawn.passed and any(s.startswith("negative") for s in drawn.input_sets)


_TWO_MODULES = """
@group(0) @binding(0) var<storage, read_write> counts: array<u32>;
@group(0) @binding(1) var<storage, read_write> items: array<u32>;

// module 1: one count a workgroup of 64 keys
@compute @workgroup_size(64)
fn count(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x == 0u) { counts[0] = 64u; }
}

// module 2: a scan in place over whatever buffer the host binds as items
@compute @workgroup_size(64)
fn scan(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x == 0u) { items[0] = items[0] + 1u; }
}
"""


@pytest.mark.parametrize("backend", ["wgpu", "browser"])
def test_a_launch_binds_only_its_entry_points_variables(request, session, backend):
    # kishimisu's radix sort joined into one module: the counts buffer is one module's
    # variable and the other's `items`. A host makes each entry point's pipeline with
    # its own layout (or layout: "auto") and binds only what that entry point uses, so
    # `scan` binds counts once, as items, and `count` leaves `items` unbound
    require_available(request.config, backend)
    from forge import BufferSpec, Dispatch, KernelSpec

    kernel = KernelSpec(
        id="r53_two_modules_one_buffer",
        entry_point="count",
        sources={"wgsl": _TWO_MODULES},
        buffers=(
            BufferSpec(0, "u32", "read_write", name="counts", count=1),
            BufferSpec(1, "u32", "read_write", name="spare", count=1, scratch=True),
        ),
        reference=lambda counts, **_: np.array([65], np.uint32),
        launches=(
            Dispatch("count", grid=(1, 1, 1)),
            Dispatch("scan", grid=(1, 1, 1), bindings={"items": "counts"}),
        ),
        test_sizes=(1,),
    )
    ev = oracle.evaluate(session.runner(backend), kernel, size=1, samples=0)
    assert ev.passed, ev.report()

"""SlabAllocator: unit cases and property-based tests against a simple model."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from forge import AllocationError, BindingUsage, InvalidArgument, MemoryTopology, SlabAllocator

RW = BindingUsage.STORAGE_READ_WRITE


def test_capacity_is_floored_to_the_alignment():
    assert SlabAllocator(1000, alignment=256).capacity == 768


def test_start_offsets_are_aligned():
    alloc = SlabAllocator(4096, alignment=256)
    offsets = [alloc.allocate_transient(size, 0).offset for size in (10, 300, 1, 256)]
    assert offsets == [0, 256, 768, 1024]


def test_wrap_pads_the_tail_and_restarts_at_zero():
    alloc = SlabAllocator(1024, alignment=4)
    first = alloc.allocate_transient(400, 0)
    alloc.allocate_transient(500, 0)  # 400..900 stays live
    alloc.advance_read_head(first.end)
    third = alloc.allocate_transient(300, 0)  # 900 + 300 > 1024: wraps
    assert third.offset == 0
    assert alloc.used_bytes() == (1024 - 900) + 500 + 300  # the padded tail counts as used


def test_an_empty_ring_does_not_count_the_wrap_padding():
    # Seen in CI: a 17 MB request on an empty 26.8 MB slab whose write head stood
    # past its middle was refused, as if the padding to the end held data.
    alloc = SlabAllocator(1024, alignment=4)
    first = alloc.allocate_transient(700, 0)
    alloc.advance_read_head(first.end)
    second = alloc.allocate_transient(1000, 0)
    assert second.offset == 0
    assert alloc.used_bytes() == 1000
    # Requests that add up to the capacity fit once the ring is empty, wherever its
    # write head stood (here 1000 bytes in: 512 + 512 would otherwise lap).
    alloc.clear([0])
    halves = [alloc.allocate_transient(512, 0) for _ in range(2)]
    assert [v.offset for v in halves] == [0, 512]
    alloc.clear([0])
    second = alloc.allocate_transient(1000, 0)
    checkpoint = alloc.write_checkpoint()
    alloc.allocate_transient(24, 0)
    alloc.restore_checkpoint(checkpoint)
    assert alloc.used_bytes() == 1000


def test_request_over_capacity_is_refused():
    alloc = SlabAllocator(1024)
    with pytest.raises(AllocationError, match="exceed the capacity"):
        alloc.allocate_transient(1025, 0)


def test_lapping_the_read_head_is_refused_and_changes_nothing():
    alloc = SlabAllocator(1024, alignment=256)
    views = [alloc.allocate_transient(256, 0) for _ in range(4)]
    with pytest.raises(AllocationError, match="lap the read head"):
        alloc.allocate_transient(1, 0)
    assert alloc.used_bytes() == 1024
    for view in views:
        alloc.check_live(view)


def test_zero_and_negative_sizes_are_invalid_arguments():
    alloc = SlabAllocator(1024)
    for size in (0, -4):
        with pytest.raises(InvalidArgument, match="non-empty"):
            alloc.allocate_transient(size, 0)
    with pytest.raises(InvalidArgument, match="int"):
        alloc.allocate_transient(4.0, 0)


def test_clear_releases_views_and_stale_views_are_refused():
    alloc = SlabAllocator(4096)
    view = alloc.allocate_transient(64, 0)
    alloc.clear()
    with pytest.raises(AllocationError, match="no longer live"):
        alloc.check_live(view)
    assert alloc.used_bytes() == 0


def test_views_of_another_allocator_or_forged_views_are_refused():
    a, b = SlabAllocator(4096), SlabAllocator(4096)
    view = a.allocate_transient(64, 0)
    with pytest.raises(AllocationError, match="not allocated by this context"):
        b.check_live(view)
    from dataclasses import replace

    with pytest.raises(AllocationError, match="does not match"):
        a.check_live(replace(view, length_bytes=128))


def test_restore_checkpoint_undoes_later_allocations_only():
    alloc = SlabAllocator(4096, alignment=256)
    kept = alloc.allocate_transient(100, 0)
    mark = alloc.write_checkpoint()
    undone = alloc.allocate_transient(100, 1)
    alloc.restore_checkpoint(mark)
    alloc.check_live(kept)
    with pytest.raises(AllocationError):
        alloc.check_live(undone)
    again = alloc.allocate_transient(100, 1)
    assert again.offset == undone.offset


def test_a_view_undone_by_restore_checkpoint_stays_dead_when_its_position_is_reused():
    alloc = SlabAllocator(4096, alignment=256)
    mark = alloc.write_checkpoint()
    stale = alloc.allocate_transient(100, 0)
    alloc.restore_checkpoint(mark)
    live = alloc.allocate_transient(100, 0)
    assert (live.offset, live.position, live.length_bytes) == (
        stale.offset,
        stale.position,
        stale.length_bytes,
    )
    assert live.generation != stale.generation
    alloc.check_live(live)
    with pytest.raises(AllocationError, match="no longer live"):
        alloc.check_live(stale)


@pytest.mark.parametrize("checkpoint", [1.0, 1.5, "1", None, True])
def test_a_checkpoint_that_is_not_an_int_is_refused_and_changes_nothing(checkpoint):
    alloc = SlabAllocator(4096, alignment=256)
    alloc.allocate_transient(100, 0)
    kept = alloc.allocate_transient(100, 0)
    with pytest.raises(InvalidArgument, match="checkpoint must be an int"):
        alloc.restore_checkpoint(checkpoint)
    assert alloc.write_checkpoint() == 2
    alloc.check_live(kept)


@pytest.mark.parametrize("offset", [256.0, "256", None, True])
def test_a_read_head_offset_that_is_not_an_int_is_refused_and_changes_nothing(offset):
    alloc = SlabAllocator(4096, alignment=256)
    view = alloc.allocate_transient(256, 0)
    with pytest.raises(InvalidArgument, match="offset must be an int"):
        alloc.advance_read_head(offset)
    alloc.check_live(view)
    assert alloc.used_bytes() == 256


def test_numpy_integers_are_accepted_wherever_ints_are():
    alloc = SlabAllocator(np.int64(4096), alignment=np.uint32(256))
    view = alloc.allocate_transient(np.int32(100), np.int64(1), np.uint8(0))
    mark = alloc.write_checkpoint()
    alloc.allocate_transient(np.uint64(8), 0)
    alloc.restore_checkpoint(np.int64(mark))
    assert alloc.write_checkpoint() == 1
    alloc.advance_read_head(np.int16(view.end), slab=np.int64(0))
    assert alloc.live_views() == 0


@pytest.mark.parametrize("binding, group", [("a", 0), (None, 0), (1.0, 0), (True, 0), (0, "0")])
def test_bindings_and_groups_must_be_ints(binding, group):
    alloc = SlabAllocator(4096)
    with pytest.raises(InvalidArgument, match="(binding|group) must be an int"):
        alloc.allocate_transient(16, binding, group)
    assert alloc.write_checkpoint() == 0


@pytest.mark.parametrize(
    "capacity, alignment, message",
    [
        (1.5e6, 256, "capacity_bytes must be an int"),
        (0, 256, "capacity_bytes must be >= 1"),
        (4096, 24, "power of two"),
        (4096, 256.0, "alignment must be an int"),
    ],
)
def test_malformed_allocator_settings_are_refused(capacity, alignment, message):
    with pytest.raises(InvalidArgument, match=message):
        SlabAllocator(capacity, alignment)


def test_restore_checkpoint_refuses_released_or_future_checkpoints():
    alloc = SlabAllocator(4096)
    mark = alloc.write_checkpoint()
    alloc.allocate_transient(100, 0)
    alloc.clear()
    with pytest.raises(AllocationError, match="cannot be restored"):
        alloc.restore_checkpoint(mark)
    with pytest.raises(AllocationError, match="cannot be restored"):
        alloc.restore_checkpoint(alloc.write_checkpoint() + 1)


def test_advance_read_head_releases_through_an_offset():
    alloc = SlabAllocator(4096, alignment=256)
    a = alloc.allocate_transient(256, 0)
    b = alloc.allocate_transient(256, 0)
    alloc.advance_read_head(a.end)
    with pytest.raises(AllocationError):
        alloc.check_live(a)
    alloc.check_live(b)
    with pytest.raises(AllocationError, match="not inside the live region"):
        alloc.advance_read_head(2048)


def test_release_reports_the_highest_fence_of_what_it_frees():
    alloc = SlabAllocator(4096, alignment=256)
    a = alloc.allocate_transient(256, 0)
    b = alloc.allocate_transient(256, 0)
    alloc.mark_used(a, 3)
    alloc.mark_used(b, 7)
    assert alloc.advance_read_head(a.end) == 3
    assert alloc.clear() == 7


def test_split_topology_routes_usages_to_their_slabs():
    alloc = SlabAllocator(5 * 1024, alignment=256, topology=MemoryTopology.split_by_usage())
    read = alloc.allocate_transient(64, 0, usage=BindingUsage.STORAGE_READ)
    uniform = alloc.allocate_transient(16, 1, usage=BindingUsage.UNIFORM)
    rw = alloc.allocate_transient(64, 2, usage=RW)
    resident = alloc.allocate_transient(64, 3, usage=BindingUsage.STORAGE_READ_RESIDENT)
    assert read.slab == uniform.slab != rw.slab != resident.slab
    alloc.clear()
    alloc.check_live(resident)  # the resident slab is not recycled by clear
    with pytest.raises(AllocationError):
        alloc.check_live(rw)
    alloc.clear([resident.slab])
    with pytest.raises(AllocationError):
        alloc.check_live(resident)


def test_topology_must_back_every_usage_once():
    from forge import SlabLayout

    with pytest.raises(ValueError, match="no slab backs"):
        MemoryTopology((SlabLayout("only", frozenset({BindingUsage.UNIFORM})),))


class RingModel(RuleBasedStateMachine):
    """Drives the allocator with random requests and releases, and checks it against a
    model of the ring: absolute read and write heads, and the live views in order."""

    def __init__(self) -> None:
        super().__init__()
        self.alignment = 64
        self.alloc = SlabAllocator(4096 + 100, alignment=self.alignment)
        self.capacity = self.alloc.capacity
        self.read = self.write = 0
        self.live = []  # views in allocation order
        self.dead = []  # every view released so far: none may ever be live again

    def _model_place(self, size):
        if not self.live:  # an empty ring restarts both heads at offset 0
            start = -(-self.write // self.capacity) * self.capacity
            return start, start + size, start
        start = -(-self.write // self.alignment) * self.alignment
        if start % self.capacity + size > self.capacity:
            start = -(-start // self.capacity) * self.capacity
        return start, start + size, self.read

    # Sizes shared with checkpoint_roundtrip, so that a view it undoes is often
    # followed by a live one of the same position and length.
    @rule(size=st.one_of(st.integers(1, 1500), st.sampled_from([32, 64])))
    def allocate(self, size):
        start, end, read = self._model_place(size)
        if end - read > self.capacity:
            with pytest.raises(AllocationError):
                self.alloc.allocate_transient(size, 0)
            return
        view = self.alloc.allocate_transient(size, 0)
        assert view.offset == start % self.capacity
        self.read, self.write = read, end
        self.live.append(view)

    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def release_prefix(self, data):
        k = data.draw(st.integers(1, len(self.live)))
        last = self.live[k - 1]
        self.alloc.advance_read_head(last.end)
        self.read = last.position + last.length_bytes
        released, self.live = self.live[:k], self.live[k:]
        self.dead += released

    @rule(size=st.sampled_from([32, 64]))
    def checkpoint_roundtrip(self, size):
        mark = self.alloc.write_checkpoint()
        start, end, read = self._model_place(size)
        if end - read <= self.capacity:
            view = self.alloc.allocate_transient(size, 0)
            self.alloc.restore_checkpoint(mark)
            self.dead.append(view)
            if read == start:  # the ring was empty: both heads moved to the start
                self.read = self.write = start
        assert self.alloc.write_checkpoint() == mark

    @rule()
    def clear(self):
        self.alloc.clear()
        self.read = self.write
        self.dead += self.live
        self.live = []

    @invariant()
    def live_views_are_aligned_inside_the_slab_and_disjoint(self):
        spans = sorted((v.offset, v.end) for v in self.live)
        for start, end in spans:
            assert start % self.alignment == 0
            assert 0 <= start < end <= self.capacity
        for (_, end), (start, _) in zip(spans, spans[1:]):
            assert end <= start
        for view in self.live:
            self.alloc.check_live(view)
        assert self.alloc.used_bytes() == self.write - self.read <= self.capacity

    @invariant()
    def released_views_stay_dead_even_where_their_position_was_reused(self):
        for view in self.dead[-50:]:
            with pytest.raises(AllocationError):
                self.alloc.check_live(view)


TestRingModel = RingModel.TestCase
TestRingModel.settings = settings(max_examples=200, stateful_step_count=60, deadline=None)


def test_sustained_run_with_a_few_allocations_in_flight_never_fails():
    alloc = SlabAllocator(1 << 20, alignment=256)
    rng = random.Random(1234)
    in_flight = []
    for _ in range(100_000):
        view = alloc.allocate_transient(rng.randint(1, 64 << 10), 0)
        in_flight.append(view)
        if len(in_flight) > 4:
            done = in_flight.pop(0)
            alloc.advance_read_head(done.end)
    assert alloc.write_checkpoint() == 100_000
    assert alloc.live_views() == 4

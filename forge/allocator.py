"""``SlabAllocator``: the ring allocator behind every context.

Each slab of the topology is a ring addressed by absolute positions that only grow:
the live region is ``[read, write)`` and a position's slab offset is ``position %
capacity``. An allocation aligns its start, wraps to offset 0 when it would not fit
before the end of the slab (the tail becomes padding), and is refused when it would
reach past ``read + capacity``, i.e. lap data not yet released.

Every live allocation keeps a record: its checkpoint index (for
``restore_checkpoint``), its generation (a number no other allocation of this
allocator ever gets, also carried by its view), and the fence of the last device work
that used it, so the owning context can wait for exactly that work before the range is
handed out again. A view is live only while a record of its generation is: a released
view stays dead even once its position is handed out anew.
"""

from __future__ import annotations

import itertools
from collections import deque
from dataclasses import dataclass

from . import _checks
from .errors import AllocationError, InvalidArgument
from .types import BindingUsage, BufferView, MemoryTopology

__all__ = ["SlabAllocator"]

_owner_ids = itertools.count(1)


@dataclass
class _Record:
    index: int  # the allocation's number, the unit of checkpoints
    start: int  # absolute ring position of the first byte
    end: int  # absolute position one past the last byte
    write_before: int  # the ring's write head before this allocation
    generation: int  # unique among this allocator's allocations; the view has it too
    fence: int = 0  # last device submission that used the range (0: none)


class _Ring:
    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.read = 0
        self.write = 0
        self.records: deque[_Record] = deque()
        self.live: dict[int, _Record] = {}

    def release_before(self, position: int) -> tuple[int, int]:
        """Drop records that end at or before ``position`` and move the read head
        there (never past a record still live). Returns the max fence and the max
        checkpoint index among the dropped records (-1 when none)."""
        fence, index = 0, -1
        while self.records and self.records[0].end <= position:
            record = self.records.popleft()
            del self.live[record.start]
            fence, index = max(fence, record.fence), max(index, record.index)
        self.read = min(position, self.records[0].start) if self.records else position
        return fence, index


def _align_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


class SlabAllocator:
    """Ring allocator over the slabs of a ``MemoryTopology``.

    ``capacity_bytes`` is shared among the slabs by their ``share``; each slab's
    capacity is floored to ``alignment``. Methods that release ranges return the
    highest device fence recorded on them (0 when none), for the context to wait on.
    """

    def __init__(
        self, capacity_bytes: int, alignment: int = 256, topology: MemoryTopology | None = None
    ) -> None:
        capacity_bytes = _checks.integer(capacity_bytes, "capacity_bytes", minimum=1)
        alignment = _checks.integer(alignment, "alignment", minimum=1)
        if alignment & (alignment - 1):
            raise InvalidArgument(f"alignment must be a power of two, got {alignment}")
        self.topology = topology or MemoryTopology.unified()
        self.alignment = alignment
        self.owner = next(_owner_ids)
        self._generations = itertools.count(1)  # 0 is left to views never issued
        total_share = sum(s.share for s in self.topology.slabs)
        self._rings = []
        for slab in self.topology.slabs:
            cap = capacity_bytes * slab.share // total_share // alignment * alignment
            if cap <= 0:
                raise AllocationError(
                    f"capacity {capacity_bytes} bytes leaves slab {slab.name!r} empty "
                    f"at alignment {alignment}"
                )
            self._rings.append(_Ring(cap))
        self._count = 0  # allocations made; write_checkpoint() returns it
        self._floor = 0  # checkpoints below this index were released and cannot return

    # -- sizes ---------------------------------------------------------------------
    @property
    def capacity(self) -> int:
        """Total bytes over all slabs, after flooring to the alignment."""
        return sum(r.capacity for r in self._rings)

    def slab_capacity(self, slab: int = 0) -> int:
        return self._ring(slab).capacity

    def used_bytes(self, slab: int = 0) -> int:
        """Bytes between the read and write heads of ``slab`` (padding included)."""
        ring = self._ring(slab)
        return ring.write - ring.read

    def live_views(self, slab: int = 0) -> int:
        return len(self._ring(slab).records)

    # -- allocation ----------------------------------------------------------------
    def allocate_transient(
        self,
        size_bytes: int,
        binding: int,
        group: int = 0,
        usage: BindingUsage = BindingUsage.STORAGE_READ,
    ) -> BufferView:
        """Take ``size_bytes`` from the slab that backs ``usage``."""
        size_bytes = _checks.integer(size_bytes, "size_bytes")
        if size_bytes <= 0:
            raise InvalidArgument(f"cannot allocate {size_bytes} bytes: views must be non-empty")
        if not isinstance(usage, BindingUsage):
            raise InvalidArgument(f"usage must be a BindingUsage, got {_checks.shown(usage)}")
        binding = _checks.integer(binding, "binding", minimum=0)
        group = _checks.integer(group, "group", minimum=0)
        slab = self.topology.slab_index(usage)
        ring = self._rings[slab]
        if size_bytes > ring.capacity:
            raise AllocationError(
                f"{size_bytes} bytes exceed the capacity of slab "
                f"{self.topology.slabs[slab].name!r} ({ring.capacity} bytes)"
            )
        if not ring.records:
            # Nothing live: restart at offset 0, so that requests adding up to the
            # capacity fit whatever the write head's position was.
            start = _align_up(ring.write, ring.capacity)
            ring.read = ring.write = start
        else:
            start = _align_up(ring.write, self.alignment)
            if start % ring.capacity + size_bytes > ring.capacity:
                start = _align_up(start, ring.capacity)  # wrap: the tail becomes padding
        end = start + size_bytes
        if end - ring.read > ring.capacity:
            raise AllocationError(
                f"{size_bytes} bytes would lap the read head of slab "
                f"{self.topology.slabs[slab].name!r}: {ring.write - ring.read} of "
                f"{ring.capacity} bytes are still live; release some first"
            )
        record = _Record(self._count, start, end, ring.write, next(self._generations))
        ring.records.append(record)
        ring.live[start] = record
        ring.write = end
        self._count += 1
        return BufferView(
            start % ring.capacity,
            size_bytes,
            binding,
            group,
            usage,
            slab=slab,
            owner=self.owner,
            position=start,
            generation=record.generation,
        )

    def check_live(self, view: BufferView) -> None:
        """Raise ``AllocationError`` unless ``view`` is a live allocation of this
        allocator, exactly as it was issued."""
        if not isinstance(view, BufferView):
            raise InvalidArgument(f"expected a BufferView, got {type(view).__name__}")
        if view.owner != self.owner:
            raise AllocationError(f"{view} was not allocated by this context")
        record = self._lookup(view)
        if record is None:
            raise AllocationError(
                f"{view} is no longer live: it was released (clear_transient_allocations, "
                "advance_read_head or restore_checkpoint) and its bytes may be reused"
            )
        start = view.position % self._rings[view.slab].capacity
        length = record.end - record.start
        if view.span:  # a window: inside the allocation it was taken of
            if view.span != length or not (start <= view.offset and view.end <= start + length):
                raise AllocationError(f"{view} is not a window of the allocation at its position")
        elif start != view.offset or length != view.length_bytes:
            raise AllocationError(f"{view} does not match the allocation at its position")
        if record.generation != view.generation:
            raise AllocationError(
                f"{view} is no longer live: it was released and its bytes now belong to a "
                "newer allocation at the same position"
            )

    def mark_used(self, view: BufferView, fence: int) -> None:
        """Record that device submission ``fence`` uses ``view``."""
        record = self._lookup(view)
        if record is not None and fence > record.fence:
            record.fence = fence

    def _lookup(self, view: BufferView) -> _Record | None:
        if not 0 <= view.slab < len(self._rings):
            return None
        return self._rings[view.slab].live.get(view.position)

    def _ring(self, slab: int) -> _Ring:
        slab = _checks.integer(slab, "slab")
        if not 0 <= slab < len(self._rings):
            raise InvalidArgument(f"no slab {slab}; this topology has {len(self._rings)}")
        return self._rings[slab]

    # -- release -------------------------------------------------------------------
    def advance_read_head(self, offset: int, slab: int = 0) -> int:
        """Release every allocation of ``slab`` that ends at or before slab offset
        ``offset`` on the ring (``view.end`` of the last view you are done with).
        Returns the highest fence recorded on what was released."""
        ring = self._ring(slab)
        offset = _checks.integer(offset, "offset")
        if not 0 <= offset <= ring.capacity:
            raise AllocationError(f"offset {offset} is outside slab {slab} (0..{ring.capacity})")
        # The first absolute position after the read head that maps to `offset`.
        target = ring.read + (offset - ring.read) % ring.capacity
        if target == ring.read and offset == ring.capacity and ring.write > ring.read:
            target += ring.capacity
        if target > ring.write:
            raise AllocationError(f"offset {offset} is not inside the live region of slab {slab}")
        fence, index = ring.release_before(target)
        self._floor = max(self._floor, index + 1)
        return fence

    def clear(self, slabs: list[int] | None = None) -> int:
        """Release every allocation of the recycled slabs (or of ``slabs``)."""
        indices = (
            [i for i, s in enumerate(self.topology.slabs) if s.recycled] if slabs is None else slabs
        )
        fence = 0
        for i in indices:
            ring = self._ring(i)
            ring_fence, index = ring.release_before(ring.write)
            fence = max(fence, ring_fence)
            self._floor = max(self._floor, index + 1)
        return fence

    # -- checkpoints ---------------------------------------------------------------
    def write_checkpoint(self) -> int:
        """The number of allocations made so far; ``restore_checkpoint`` returns here."""
        return self._count

    def restore_checkpoint(self, write_count: int) -> int:
        """Undo every allocation made after ``write_checkpoint()`` returned
        ``write_count``; earlier allocations keep their bytes. Returns the highest
        fence recorded on what was undone."""
        write_count = _checks.integer(write_count, "a checkpoint")
        if not self._floor <= write_count <= self._count:
            raise AllocationError(
                f"checkpoint {write_count} cannot be restored: valid checkpoints are "
                f"{self._floor}..{self._count} (older ones were released)"
            )
        fence = 0
        for ring in self._rings:
            while ring.records and ring.records[-1].index >= write_count:
                record = ring.records.pop()
                del ring.live[record.start]
                ring.write = record.write_before
                fence = max(fence, record.fence)
        self._count = write_count
        return fence

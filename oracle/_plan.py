"""A device run, planned on the driver's side and executed wherever the context lives.

``build_plan`` turns a case into what a backend must do: for each buffer a *region*
of bytes laid out for the backend's target (guard elements before and after, the data,
padding the binding rounds up to), of which only the data (and padding) is bound, so a
shader's ``arrayLength`` is exact while writes past either end still land where the
oracle looks. The kernel travels frozen (``KernelSpec.frozen``): source text and
numbers, nothing that needs its defining module, so a ``Plan`` pickles.

``execute(ctx, plan)`` is the one place device work of an evaluation happens, in this
process or in a worker: upload, fill the scratch memory a kernel may read unwritten
with a poison (``SCRATCH_POISON``, where the context has such memory), run once, read
every region back, run the timed samples (each from the initial contents where the
kernel changes what it starts from), run once more from the initial contents over the
other poison (so accumulating kernels, races and unwritten reads can be judged again),
read the outputs back. It returns an ``Outcome`` of raw bytes;
judging happens on the driver's side (``oracle._judge``). A plan with ``energy_s``
also reads the device's energy counter around repeated runs (``_measure_energy``).
"""

from __future__ import annotations

import dataclasses
import inspect
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from forge.contract import OracleContext
from forge.errors import (
    CompileError,
    DeviceLost,
    ForgeError,
    InvalidArgument,
    KernelTimeout,
    UnsupportedFeature,
)
from forge.kernel import Access, KernelSpec
from forge.schedule import Schedule
from forge.types import AdapterConstraints, AdapterIdentity, BindingUsage

from ._builtins import running_extremum
from ._inputs import POISON_INPUT, POISON_OUTPUT, Case, buffer_label, poison
from ._reorder import reverses_subgroups, serializes

__all__ = [
    "BackendInfo",
    "Region",
    "Plan",
    "Outcome",
    "ErrorInfo",
    "build_plan",
    "execute",
    "NO_ENERGY",
]

#: Why a context without an energy counter reads no energy.
NO_ENERGY = (
    "this backend does not measure energy (it is read through NVML on NVIDIA GPUs, "
    "by the cuda backend)"
)


@dataclass(frozen=True)
class BackendInfo:
    """What the driver knows of a backend's context without holding it: its name,
    target, adapter, constraints and timing source (a worker reports these when it
    opens its context)."""

    name: str
    target: str | None
    adapter: AdapterIdentity
    constraints: AdapterConstraints
    timing_source: str
    #: Per binding usage (its value): the bytes of the slab that backs it, and the
    #: context's whole capacity; empty when the context does not say.
    capacity: tuple[tuple[str, int, int], ...] = ()
    #: "" when the context can read the device's energy, else why not.
    energy: str = ""

    @classmethod
    def of(cls, ctx: OracleContext) -> BackendInfo:
        allocator = getattr(ctx, "allocator", None)
        capacity: tuple = ()
        if allocator is not None:
            topology = allocator.topology
            capacity = tuple(
                (
                    usage.value,
                    allocator.slab_capacity(topology.slab_index(usage)),
                    allocator.capacity,
                )
                for usage in BindingUsage
            )
        support = getattr(ctx, "energy_support", None)
        energy = support() if callable(support) else NO_ENERGY
        return cls(
            ctx.backend_name,
            getattr(ctx, "target", None),
            ctx.adapter,
            ctx.constraints,
            ctx.timing_source,
            capacity,
            energy,
        )

    def capacity_needed(self, plan: Plan) -> int | None:
        """The whole capacity a context needs to hold ``plan``'s buffers (slab by slab,
        as this context splits it), or None when it holds them already."""
        if not self.capacity:
            return None
        need: dict[str, int] = {}
        for region in plan.regions:
            need[region.usage.value] = need.get(region.usage.value, 0) + region.data.nbytes + 4096
        grow = [
            need.get(usage, 0) * total // max(slab, 1)
            for usage, slab, total in self.capacity
            if need.get(usage, 0) > slab
        ]
        return max(grow) if grow else None


@dataclass(frozen=True)
class Region:
    """One buffer as uploaded: ``data`` (raw bytes: guards, the bound window, guards),
    the window ``[start, start + length)`` a kernel is given, and how to read it:
    ``count`` data elements of ``itemsize`` bytes at ``start``, then padding up to the
    window's end. ``restore``: the region's initial contents are uploaded again before
    the run after the timed samples (an accumulating output or an inout buffer)."""

    label: str
    binding: int
    group: int
    usage: BindingUsage
    data: np.ndarray
    start: int
    length: int
    count: int
    itemsize: int
    output: bool
    uniform: bool = False
    restore: bool = False
    padding: int = 0  # elements the binding rounds the data up to (whole vectors, 4 bytes)
    # the bytes of the element type's lowest value (an integer input of a kernel that
    # keeps a running minimum or maximum), which the rerun puts next to the data in
    # place of the counted guard's first element (``_reguard_inputs``); empty: none
    lowest: bytes = b""

    @property
    def windowed(self) -> bool:
        return self.start != 0 or self.length != self.data.nbytes


@dataclass(frozen=True)
class Plan:
    """Everything ``execute`` needs; picklable."""

    kernel: KernelSpec
    schedule: Schedule
    size: Any
    regions: tuple[Region, ...]
    warmups: int = 1
    samples: int = 5
    timeout_s: Any = "context"  # seconds, None (unbounded), or "context" (its own bound)
    rerun: bool = True
    energy_s: float = 0.0  # seconds of repeated runs to read the energy over (0: none)
    # poison the context's scratch memory before the judged run and the rerun
    # (``SCRATCH_POISON``); off under compute-sanitizer, whose runs judge no values
    poison_scratch: bool = True
    # load the kernel's module afresh before the judged run: a CUDA kernel that keeps
    # state in it (``forge.sources.cuda_module_state``), so that the judged run is the
    # module's first launch and the rerun its second, as in a new program
    fresh_module: bool = False
    # the kernel with each workgroup's invocations reversed (WGSL) or each block's warps
    # mirrored (CUDA), which the rerun runs instead of ``kernel`` (``oracle._reorder``:
    # a missing barrier shows)
    reversed: KernelSpec | None = None


@dataclass(frozen=True)
class ErrorInfo:
    """A ``ForgeError`` raised while executing, as data (it crosses processes)."""

    type: str
    message: str
    lost: bool = False
    timeout: bool = False
    unsupported: bool = False
    compile: bool = False

    @classmethod
    def of(cls, exc: BaseException) -> ErrorInfo:
        return cls(
            type(exc).__name__,
            str(exc),
            isinstance(exc, DeviceLost),
            isinstance(exc, KernelTimeout),
            isinstance(exc, UnsupportedFeature),
            isinstance(exc, CompileError),
        )

    def as_exception(self) -> ForgeError:
        """The typed ``ForgeError`` this describes (a plain ``ForgeError`` naming the
        type when it is not one of forge's)."""
        import forge.errors as errors

        cls = getattr(errors, self.type, None)
        if isinstance(cls, type) and issubclass(cls, ForgeError):
            try:
                return cls(self.message)
            except TypeError:
                pass
        return ForgeError(f"{self.type}: {self.message}")


@dataclass
class Outcome:
    """What a device run gave back: each region's bytes after the judged run
    (``first``), the outputs' bytes after the run that followed the timed samples
    (``later``, None for inputs), the samples' nanoseconds, and the error if one was
    raised (``ran``: the judged run completed before it)."""

    first: list[np.ndarray] = field(default_factory=list)
    later: list[np.ndarray | None] = field(default_factory=list)
    samples_ns: list[int] = field(default_factory=list)
    timing_source: str = ""
    error: ErrorInfo | None = None
    ran: bool = False
    energy_j: list[float] = field(default_factory=list)  # joules per run, per window
    energy_note: str = ""  # why energy was not read
    notes: list[str] = field(default_factory=list)  # what the runner did (a retry)
    # where ``later`` is a reordered twin's (``Plan.reversed``), what it did (a note)
    later_reordered: str = ""


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def _pattern_bytes(nbytes: int, dtype: np.dtype, pattern) -> np.ndarray:
    """``nbytes`` of poison, element-aligned to the end (guards before the data) or
    the start (guards after it)."""
    elements = poison(dtype, -(-nbytes // dtype.itemsize), pattern)
    whole = np.ascontiguousarray(elements).reshape(-1).view(np.uint8)
    return whole[:nbytes]


def _region(
    kernel: KernelSpec,
    spec,
    access: Access,
    granule: int,
    case: Case,
    target: str | None,
    guard: int,
    alignment: int,
    length_read: bool,
    extremum: bool = False,
) -> Region:
    label = buffer_label(spec)
    if spec.access is Access.UNIFORM:
        assert case.uniform is not None  # a kernel with a uniform block has its record
        raw = kernel.buffer_bytes(spec, case.uniform, target).view(np.uint8).reshape(-1)
        raw = np.concatenate([raw, np.zeros(-raw.size % 4, np.uint8)])
        return Region(
            label,
            spec.binding,
            spec.group,
            BindingUsage.UNIFORM,
            raw,
            0,
            raw.size,
            1,
            raw.size,
            False,
            uniform=True,
        )
    count = spec.element_count(case.size)
    dtype = spec.dtype_for(target)
    output = spec.access is Access.READ_WRITE
    pattern = POISON_OUTPUT if output else POISON_INPUT
    values = case.arrays.get(label)
    body = (
        poison(dtype, count, pattern)
        if values is None
        else kernel.buffer_bytes(spec, values, target, poison(dtype, count, pattern))
    )
    if access is Access.UNIFORM:
        # a uniform binding starts on the device's uniform offset alignment (256 bytes,
        # not the storage one), and its accesses are checked against the type the shader
        # declares, not the binding: no guards around it
        guard = 0
    bound = max(4, _round_up(_round_up(count, granule) * dtype.itemsize, 4))
    before = _round_up(guard * dtype.itemsize, alignment) if guard else 0
    after = guard * dtype.itemsize + (-(before + bound + guard * dtype.itemsize) % 4)
    data = np.concatenate(
        [
            _pattern_bytes(before, dtype, pattern),
            np.ascontiguousarray(body).reshape(-1).view(np.uint8),
            _pattern_bytes(bound - count * dtype.itemsize + after, dtype, pattern),
        ]
    )
    usage = {
        Access.READ_WRITE: BindingUsage.STORAGE_READ_WRITE,
        Access.UNIFORM: BindingUsage.UNIFORM,  # an input the WGSL declares var<uniform>
    }.get(access, BindingUsage.STORAGE_READ)
    padding = (bound - count * dtype.itemsize) // dtype.itemsize
    if target == "wgsl" and not length_read:
        # WGSL's robust access would clamp or drop an access past the binding: bind the
        # guard elements too, where the kernel cannot tell (it never reads the length).
        bound = data.size - before
    return Region(
        label,
        spec.binding,
        spec.group,
        usage,
        data,
        before,
        bound,
        count,
        dtype.itemsize,
        output and not spec.scratch,
        restore=output and (spec.inout or spec.initial is not None),
        padding=padding,
        lowest=_lowest(dtype) if extremum and not output else b"",
    )


def _lowest(dtype: np.dtype) -> bytes:
    """The bytes of an integer scalar type's lowest value (``INT_MIN``, or 0 unsigned);
    none for other types (a float's counted guard is a positive subnormal, below every
    value of the one-sign positive set that such a kernel also runs)."""
    if dtype.kind not in "iu" or dtype.subdtype is not None:
        return b""
    return np.array([np.iinfo(dtype).min], dtype).tobytes()


def build_plan(
    kernel: KernelSpec,
    case: Case,
    info: BackendInfo,
    schedule: Schedule,
    *,
    guard: int,
    warmups: int,
    samples: int,
    timeout_s: Any = "context",
    energy_s: float = 0.0,
    reorder: bool = True,
) -> Plan:
    """The plan for running ``case`` on the backend ``info`` describes (raises the
    ``ForgeError`` that stops it before any device work: no source, a missing feature,
    a schedule or size the adapter refuses); ``reorder=False``: no reversed twin."""
    target = info.target
    size = case.size
    if target is not None:
        source = kernel.source(target, schedule, size)
        kernel.check_uniform_layout(target, source)
        accesses = kernel.access_on(target, source, size)
        granules = kernel.binding_granules(target, source, size)
        length_read = kernel.length_read(target, source, size)
        frozen = kernel.frozen(
            target, schedule, size, info.constraints.max_workgroups_per_dimension[0]
        )
    else:
        accesses = tuple(spec.access for spec in kernel.buffers)
        granules = (1,) * len(kernel.buffers)
        length_read = (False,) * len(kernel.buffers)
        frozen = kernel
    alignment = max(16, info.constraints.min_storage_offset_alignment)
    extremum = running_extremum(kernel)
    regions = tuple(
        _region(kernel, spec, access, granule, case, target, guard, alignment, read, extremum)
        for spec, access, granule, read in zip(kernel.buffers, accesses, granules, length_read)
    )
    fresh = target == "cuda" and _keeps_module_state(kernel, source)
    return Plan(
        frozen,
        schedule,
        size,
        regions,
        warmups,
        samples,
        timeout_s,
        energy_s=energy_s if samples else 0.0,
        fresh_module=fresh,
        # hand-written sources only: emitted ones are the library's, written by forge.emit
        # to one pattern per role and checked by its own tests, and a tune would compile
        # each of its variants twice
        reversed=None
        if fresh or not reorder or getattr(kernel.body, "emitted", False)
        else _reversed(frozen, target, schedule, size, info),
    )


def _reversed(
    frozen: KernelSpec, target: str | None, schedule: Schedule, size: Any, info: BackendInfo
) -> KernelSpec | None:
    """``frozen`` (one source, resolved) with each workgroup's (block's) invocations in
    reverse order, where that means something and cannot change what a right kernel
    computes (``oracle._reorder``); else None. Not for a CUDA module that keeps state
    (``Plan.fresh_module``): its rerun must be the same module's second launch."""
    from ._reorder import reversed_invocations, reversed_warps

    source = frozen.sources.get(target or "", "")
    if target == "wgsl":
        twin = reversed_invocations(source)
    elif target == "cuda" and source:
        limit = info.constraints.max_workgroups_per_dimension[0]
        try:
            blocks = [s.block for s in frozen.steps(target, schedule, size, limit, source)]
        except ForgeError:  # the run says why; no twin
            return None
        twin = reversed_warps(source, blocks)
    else:
        return None
    return None if twin is None else dataclasses.replace(frozen, sources={target: twin})


def _keeps_module_state(kernel: KernelSpec, source: str) -> bool:
    """Whether the CUDA ``source`` has a writable file-scope ``__device__`` variable
    that no buffer is copied into (a buffer named like it is, before each launch):
    state its module keeps from one launch to the next (threadFenceReduction's
    retirement counter)."""
    from forge.sources import cuda_module_state

    names = {spec.name for spec in kernel.buffers}
    return any(name not in names for name in cuda_module_state(source))


def _read(ctx: OracleContext, view) -> np.ndarray:
    words = np.empty(view.length_bytes // 4, np.uint32)
    ctx.read_buffer_u32_into(view, words)
    return words.view(np.uint8)


#: What the judged run and the rerun find in on-chip scratch memory no thread of theirs
#: wrote (``OracleContext.poison_scratch_memory``; CUDA's ``__shared__``): as float32 a
#: huge positive then a huge negative finite value, as int32 +2.1e9 then -1.7e7, so that
#: a max hides the first and a min the second, never both (the runs are judged apart).
SCRATCH_POISON = (0x7F7F7F7F, 0xFEFEFEFE)


def _poison_scratch(ctx: OracleContext, plan: Plan, word: int) -> None:
    if not plan.poison_scratch:
        return
    poison_scratch = getattr(ctx, "poison_scratch_memory", None)  # a context of the contract
    if callable(poison_scratch):
        poison_scratch(word)


def execute(ctx: OracleContext, plan: Plan) -> Outcome:
    """Run ``plan`` on ``ctx`` (see the module docstring). A ``ForgeError`` ends the run
    and is returned in the outcome; every transient allocation is released after."""
    outcome = Outcome()
    views, bound = [], []
    run = ctx.run_kernel
    kwargs = (
        {"timeout_s": plan.timeout_s}
        if plan.timeout_s != _USE_CONTEXT and _takes_timeout(ctx)
        else {}
    )
    try:
        for region in plan.regions:
            view = ctx.allocate_and_write(region.data, region.binding, region.group, region.usage)
            views.append(view)
            bound.append(view.window(region.start, region.length) if region.windowed else view)
        with np.errstate(all="ignore"):  # a host backend meets the edge cases too
            if plan.fresh_module:
                forget = getattr(ctx, "forget_compiled", None)  # a context of the contract
                if callable(forget):
                    forget(plan.kernel)
            _poison_scratch(ctx, plan, SCRATCH_POISON[0])
            run(plan.kernel, plan.schedule, bound, plan.size, 0, 1, **kwargs)
            outcome.ran = True
            outcome.first = [_read(ctx, view) for view in views]
            if plan.samples:
                outcome.samples_ns = _timed(ctx, plan, views, bound, kwargs)
                outcome.timing_source = ctx.timing_source
                if plan.energy_s:
                    _measure_energy(ctx, plan, bound, kwargs, outcome)
            if plan.rerun:
                _rerun(ctx, plan, views, bound, kwargs, outcome)
    except ForgeError as exc:
        outcome.error = ErrorInfo.of(exc)
    finally:
        try:
            ctx.clear_transient_allocations()
        except ForgeError:
            pass  # a lost or closed context has nothing left to release; the verdict says why
    return outcome


#: Energy is read over this many windows, so that their spread shows the noise.
ENERGY_WINDOWS = 3


def _measure_energy(ctx: OracleContext, plan: Plan, bound, kwargs, outcome: Outcome) -> None:
    """Joules per run, read from the device's cumulative energy counter (millijoules,
    ``ctx.energy_counter()``) around enough repeated runs that each of
    ``ENERGY_WINDOWS`` windows lasts ``plan.energy_s / ENERGY_WINDOWS`` seconds: NVML's
    counter advances in steps, so a single short run reads as nothing."""
    counter = getattr(ctx, "energy_counter", None)
    if not callable(counter):
        outcome.energy_note = NO_ENERGY
        return
    median_ns = sorted(outcome.samples_ns)[len(outcome.samples_ns) // 2]
    runs = max(1, math.ceil(plan.energy_s / ENERGY_WINDOWS * 1e9 / max(median_ns, 1)))
    try:
        for _ in range(ENERGY_WINDOWS):
            before = counter()
            ctx.run_kernel(plan.kernel, plan.schedule, bound, plan.size, 0, runs, **kwargs)
            spent = counter() - before
            if spent <= 0:
                outcome.energy_note = (
                    f"the energy counter did not advance over {runs} runs; "
                    "read it over longer windows (--energy-seconds)"
                )
                outcome.energy_j = []
                return
            outcome.energy_j.append(spent / 1000.0 / runs)
    except UnsupportedFeature as exc:
        outcome.energy_j, outcome.energy_note = [], str(exc)


# What the rerun finds past each input's end and before its start, where the judged
# run found the input poison (a NaN as a float, 0x7FB0F0F0 as a u32): the elements 1,
# 2, 3, ... counted away from the data (in each element's first bytes, little-endian).
# An index read past the end of an index input is an index past every buffer under
# the poison, where WebGPU's robust access reads zeros, which a gather of bits or a sum
# over zeroed rows does not show (arrow-gpu's bitmap take with its tail bound dropped
# passed so); small indexes, each other, read real elements of any buffer. As floats
# they are subnormals, which the judged run's NaN covers. For an integer input of a
# kernel that keeps a running minimum or maximum, the element next to the data holds
# the type's lowest value instead (``Region.lowest``): the judged run's poison is a
# large positive integer, which a maximum read one past the end shows and a minimum
# does not, and 1 is above the smallest value of most lines drawn, so a minimum over
# integers that read one element too many passed both runs.
def _counted_guard(count: int, itemsize: int, lowest: bytes = b"") -> np.ndarray:
    """``count`` elements of ``itemsize`` bytes holding 1, 2, 3, ... as raw bytes (the
    first ``lowest`` instead, where given)."""
    ordinals = np.arange(1, count + 1, dtype=np.uint64)
    width = next(w for w in (8, 4, 2, 1) if itemsize % w == 0)
    words = ordinals.astype({8: np.uint64, 4: np.uint32, 2: np.uint16, 1: np.uint8}[width])
    elements = np.zeros((count, itemsize), np.uint8)
    elements[:, :width] = words.view(np.uint8).reshape(count, width)
    if lowest and count:
        elements[0] = np.frombuffer(lowest, np.uint8)
    return elements.reshape(-1)


def _reguard_inputs(ctx, plan: Plan, views) -> None:
    """Write the counted guard over the guards (and padding) of every input region: the
    bytes before the data (counted back from it), and those after it (from the last
    offset before its end that a window may start at: a few of the data's own bytes go
    again, unchanged)."""
    aligned = max(16, ctx.constraints.min_storage_offset_alignment)
    for region, view in zip(plan.regions, views):
        if region.output or region.uniform or region.usage is BindingUsage.UNIFORM:
            continue
        data, size, start = region.data, region.itemsize, region.start
        end = start + region.count * size
        if start:  # element j before the data holds j + 1: the counted elements reversed
            before = start // size
            head = data[:start].copy()
            head[start - before * size :] = (
                _counted_guard(before, size, region.lowest).reshape(before, size)[::-1].reshape(-1)
            )
            ctx.write_view(view.window(0, start), head)
        tail = end - end % aligned
        if tail < data.size:  # only the guard's bytes and the few before it: no copy of the data
            after = (data.size - end) // size
            rest = data[tail:].copy()
            rest[end - tail : end - tail + after * size] = _counted_guard(
                after, size, region.lowest
            )
            ctx.write_view(view.window(tail, data.size - tail), rest)


def _restore(ctx, plan: Plan, views) -> bool:
    """Upload again the initial contents of the regions the kernel starts from and
    changes (``Region.restore``); whether there were any."""
    restored = [i for i, r in enumerate(plan.regions) if r.restore]
    for i in restored:
        ctx.write_view(views[i], plan.regions[i].data)
    return bool(restored)


def _timed(ctx, plan: Plan, views, bound, kwargs) -> list[int]:
    """The timed samples' nanoseconds, after the warmups. Where the kernel starts from
    contents it changes (an inout buffer, a buffer with initial contents: an
    accumulator, a ticket counter), each warmup and sample runs alone from those
    contents uploaded again, so that every timed run does the work of the judged one
    (a ticket counter left used made a scan look 500 times faster on lavapipe); the
    uploads are not timed. Otherwise one call runs them all back to back."""
    if not any(r.restore for r in plan.regions):
        return [
            int(t)
            for t in ctx.run_kernel(
                plan.kernel, plan.schedule, bound, plan.size, plan.warmups, plan.samples, **kwargs
            )
        ]
    times: list[int] = []
    for k in range(plan.warmups + plan.samples):
        _restore(ctx, plan, views)
        ran = ctx.run_kernel(plan.kernel, plan.schedule, bound, plan.size, 0, 1, **kwargs)
        if k >= plan.warmups:
            times.extend(int(t) for t in ran)
    return times


def _rerun(ctx, plan: Plan, views, bound, kwargs, outcome: Outcome) -> None:
    """After the timed samples: restore what the kernel starts from, run once (the
    reversed twin where there is one, ``Plan.reversed``; else only where something was
    restored or nothing timed: the last timed run left what a rerun would), read the
    outputs (a race that shows only sometimes, or state left over, differs now; so does
    a read past an input's end or of shared memory no thread wrote, which find other
    values now: ``_reguard_inputs``, ``SCRATCH_POISON``)."""
    if _restore(ctx, plan, views) or not plan.samples or plan.reversed is not None:
        _reguard_inputs(ctx, plan, views)
        _poison_scratch(ctx, plan, SCRATCH_POISON[1])

        def run(kernel: KernelSpec) -> None:
            ctx.run_kernel(kernel, plan.schedule, bound, plan.size, 0, 1, **kwargs)

        if plan.reversed is not None:
            try:  # the twin with its invocations reordered: a race shows in one order
                run(plan.reversed)
                twin = plan.reversed.sources.get("wgsl", "")
                outcome.later_reordered = (
                    SERIALIZED_NOTE
                    if serializes(twin)
                    else REVERSED_SUBGROUPS_NOTE
                    if reverses_subgroups(twin)
                    else REVERSED_NOTE
                )
            except (CompileError, InvalidArgument, UnsupportedFeature) as exc:
                # refused before it ran (a compiler that judges the twin's uniformity
                # otherwise): the kernel as written reruns, and the verdict says so
                outcome.notes.append(f"{REVERSED_REFUSED}: {' '.join(str(exc).split())[:300]}")
        if not outcome.later_reordered:
            run(plan.kernel)
    outcome.later = [
        _read(ctx, view) if region.output else None for region, view in zip(plan.regions, views)
    ]


#: What a verdict notes where the reversed twin's run (``Plan.reversed``) failed.
REVERSED_NOTE = (
    "the run after the timed runs gave each workgroup's invocations the builtins of "
    "the reverse order (local_invocation_index i ran as n - 1 - i): a right kernel "
    "computes the same, a barrier missing between one invocation's write and another's "
    "read shows"
)

#: ... where the twin reversed the order of whole subgroups (a WGSL module using them).
REVERSED_SUBGROUPS_NOTE = (
    "the run after the timed runs gave each workgroup's subgroups the builtins of the "
    "reverse order, each keeping its lanes (subgroup s of S ran as S - 1 - s): a right "
    "kernel computes the same, a barrier missing between one subgroup's write and "
    "another's read shows"
)

#: ... where the twin ran a small workgroup's invocations one at a time between its
#: barriers (a WGSL module whose workgroups have at most ``SERIAL_LIMIT`` invocations).
SERIALIZED_NOTE = (
    "the run after the timed runs ran each workgroup's invocations one at a time between "
    "its barriers, in bit-reversed order of local_invocation_index (0, 4, 2, 6, 1, ... "
    "of 8): a right kernel computes the same; one that reads another invocation's write "
    "with no barrier between (a dropped barrier, or code that counts on a SIMD group's "
    "lanes running in lockstep, which WGSL does not promise) does not"
)

#: What a verdict notes where the reversed twin was refused (and not run).
REVERSED_REFUSED = "the rerun with each workgroup's invocations reversed did not run"

#: A plan whose ``timeout_s`` is this leaves the context's own bound in place.
_USE_CONTEXT: Any = "context"


def _takes_timeout(ctx: OracleContext) -> bool:
    """Whether ``ctx.run_kernel`` takes ``timeout_s`` (every ``SlabContext`` does; a
    third-party context may not, and then its own bound applies)."""
    try:
        parameters = inspect.signature(ctx.run_kernel).parameters
    except (TypeError, ValueError):
        return False
    return "timeout_s" in parameters or any(p.kind is p.VAR_KEYWORD for p in parameters.values())


def check_plan_size(plan: Plan, capacity_bytes: int | None) -> None:
    """Refuse a plan whose regions cannot fit a context of ``capacity_bytes``."""
    need = sum(r.data.nbytes for r in plan.regions)
    if capacity_bytes is not None and need > capacity_bytes:
        raise InvalidArgument(
            f"the buffers of {plan.kernel.id} at size {plan.size} need "
            f"{need} bytes with their guards, more than the context's "
            f"{capacity_bytes}; open it with more (--capacity-mib)"
        )

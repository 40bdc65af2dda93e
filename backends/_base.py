"""``SlabContext``: the machinery every slab-backed backend shares.

It implements the whole ``OracleContext`` contract (argument checks, the slab
allocator, view liveness, the pipeline cache, fences, closed and lost states) on top
of a handful of primitives a backend provides:

- ``_write(view, data)`` / ``_read_into(view, out)``: copy bytes to or from a view;
- ``_compile(launch, source)``: build what ``_launch`` runs for ``launch``'s steps
  (cached here by source, entry points, override values and compile options);
- ``_launch(compiled, launch, warmups, samples)``: run and time on the device;
- ``_enqueue(compiled, launch)``: one untimed dispatch, not waited for;
- ``_signal(fence)`` / ``_wait(fence)``: mark and wait for completion of device work
  (``_wait`` gets only fences that were handed out: ``wait`` checks them);
- ``_release()``: free native resources (called once by ``close()``).

A primitive that sees the device die raises ``DeviceLost``; the context then marks
itself lost and every later call raises ``DeviceLost`` too.

Threads: a context may be shared between threads. Every public call takes the
context's lock (re-entrant) for its whole duration, so calls from several threads run
one after the other, never interleaved: each sees the context as the last call left
it, and gets the result or the typed error it would get alone. ``close()`` takes the
lock too, so it is safe from any thread: it waits for the call in progress to return
(or to time out, under ``timeout_s``), then every later call raises ``ContextClosed``.
Serialised, not parallel: a second thread gains nothing but safety. What the lock does
not cover: views and kernels are immutable values; the raw escape hatches some
backends offer (a wgpu device, CUDA handles) and ``allocator`` are used at the
caller's risk.

Interrupts: a call stopped by ``KeyboardInterrupt`` (or any other ``BaseException``
that is not an ``Exception``, such as ``SystemExit``) may have stopped anywhere: with
device work submitted that nothing will wait for, or bookkeeping half updated. The
context then marks itself lost, like after a ``KernelTimeout``, and lets go of the
device without waiting for it (``_abandon``): closing it, dropping it and exiting the
interpreter stay prompt, and nothing the device may still call back into is freed.
The interrupt itself propagates unchanged.
"""

from __future__ import annotations

import abc
import collections
import dataclasses
import functools
import hashlib
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from forge import _checks
from forge.allocator import SlabAllocator
from forge.contract import OracleContext
from forge.errors import (
    ContextClosed,
    DeviceLost,
    InvalidArgument,
    KernelTimeout,
    UnsupportedFeature,
)
from forge.kernel import Access, KernelSpec, Step
from forge.schedule import Schedule
from forge.size import Size
from forge.types import AdapterConstraints, AdapterIdentity, BindingUsage, BufferView

__all__ = ["SlabContext", "Launch", "FenceQueue", "as_bytes", "poll_until", "MAX_RUNS"]

#: The most warm-ups, and the most samples, one ``run_kernel`` takes: more is a slip,
#: not a measurement, and some backends record a run's dispatches before submitting
#: them (wgpu encodes all warm-ups into one pass: 10**9 of them exhausted memory).
MAX_RUNS = 1_000_000


class Submitted(Protocol):
    """What a submission ran on: a ``Launch``, or a backend's captured graph."""

    @property
    def views(self) -> tuple[BufferView, ...]: ...


@dataclass(frozen=True)
class Launch:
    """One checked run of a kernel: what to run, on which views, at which size, as
    which launches (``steps``: one, or several for a kernel made of ``launches``), with
    each buffer bound for which access (the source's declaration wins), and the source
    text compiled for it (None for a backend that compiles none)."""

    kernel: KernelSpec
    schedule: Schedule
    views: tuple[BufferView, ...]
    size: Size
    steps: tuple[Step, ...]
    accesses: tuple[Access, ...]
    source: str | None = None

    @property
    def element_count(self) -> int:
        return int(self.size)

    @property
    def workgroups(self) -> tuple[int, int, int]:
        """The first launch's workgroups."""
        return self.steps[0].workgroups


def as_bytes(data: Any) -> memoryview:
    """``data`` (bytes-like or numpy array) as a flat, C-contiguous byte memoryview."""
    return _checks.byte_payload(data)


def poll_until(done: Callable[[], bool], timeout_s: float, what: str) -> None:
    """Poll ``done()`` until it is true, sleeping a little longer each time (20 us up to
    1 ms, so short waits stay short); past ``timeout_s`` raise ``KernelTimeout``. For
    backends whose blocking waits cannot be bounded."""
    deadline = time.monotonic() + timeout_s
    pause = 20e-6
    while not done():
        if time.monotonic() >= deadline:
            raise KernelTimeout(
                f"{what} did not finish within timeout_s={timeout_s:g} s; "
                "the device may still be running it, so the context is lost"
            )
        time.sleep(pause)
        pause = min(pause * 2, 1e-3)


class FenceQueue:
    """The fences whose device work may still be running, oldest first, each with
    what the backend waits on for it (a CUDA event, a wgpu submission index), and the
    newest fence known complete (``done``). Work completes in submission order, so a
    fence that completed took every earlier one with it."""

    __slots__ = ("_pending", "done")

    def __init__(self) -> None:
        self._pending: collections.deque = collections.deque()  # (fence, token)
        self.done = 0

    def __len__(self) -> int:
        return len(self._pending)

    def push(self, fence: int, token: Any) -> None:
        """Fence ``fence`` completes when ``token`` does."""
        self._pending.append((fence, token))

    def oldest(self) -> tuple[int, Any] | None:
        """(fence, token) of the oldest pending fence, or None."""
        return self._pending[0] if self._pending else None

    def pop_oldest(self) -> Any:
        """Forget the oldest pending fence, which completed; its token."""
        fence, token = self._pending.popleft()
        self.complete(fence)
        return token

    def take_through(self, fence: int) -> list:
        """Forget the pending fences up to ``fence``; their tokens, oldest first (the
        caller waits for the last, then calls ``complete``)."""
        tokens = []
        while self._pending and self._pending[0][0] <= fence:
            tokens.append(self._pending.popleft()[1])
        return tokens

    def drain(self) -> list:
        """Forget every pending fence (the host saw all of it complete); their tokens."""
        tokens = [token for _, token in self._pending]
        self._pending.clear()
        return tokens

    def complete(self, fence: int) -> None:
        """Fence ``fence`` (and so every earlier one) is known complete."""
        self.done = max(self.done, int(fence))


#: ``run_kernel(timeout_s=...)`` left out: the context's ``timeout_s`` bounds the waits.
_CONTEXT_BOUND: Any = object()


def _widths(sizes: tuple[int, int]) -> str:
    """``(4, 4)`` as ``4``, ``(8, 32)`` as ``8 to 32``."""
    low, high = sizes
    return str(low) if low == high else f"{low} to {high}"


def _api(method):
    """A public call: serialised by the context's lock, refused on a closed or lost
    context; a DeviceLost (a KernelTimeout...) or an interrupt makes it lost."""

    @functools.wraps(method)
    def wrapper(self: SlabContext, *args, **kwargs):
        with self._lock:
            self._check_usable()
            try:
                return method(self, *args, **kwargs)
            except DeviceLost as exc:
                self._mark_lost(str(exc), exc, still_running=isinstance(exc, KernelTimeout))
                raise
            except Exception:
                raise  # a typed error, raised where the call chose to: still usable
            except BaseException as exc:  # KeyboardInterrupt, SystemExit: stopped anywhere
                self._mark_lost(
                    f"{method.__name__} was interrupted by {type(exc).__name__}, "
                    "so the device may still be running work nothing waits "
                    "for",
                    None,
                    still_running=True,
                )
                raise

    return wrapper


class SlabContext(OracleContext):
    """Base of the built-in backends; see the module docstring for the primitives."""

    #: The ``KernelSpec.sources`` target this backend compiles (None: no source).
    target: str | None = None
    #: Whether ``_launch`` and ``_enqueue`` give a launch the uniform fields of its own
    #: (``Step.fields``); a backend that does not refuses such a kernel, naming them.
    sets_launch_fields: bool = False

    def __init__(self, allocator: SlabAllocator) -> None:
        self._allocator = allocator
        self._lock = threading.RLock()  # held by every public call; see the docstring
        self._closed = False
        self._lost: str | None = None
        self._lost_error: DeviceLost | None = None  # what lost it (a KernelTimeout...)
        self._abandoned = False  # lost while the device may still run our work
        self._pipelines: dict[tuple, Any] = {}
        # kernel -> {(schedule, size): (launch parts, compiled)}, so that a repeated
        # dispatch finds its pipeline without generating and hashing its source again
        # (kernels compare by identity).
        self._by_kernel: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._fence = 0  # last fence handed out; fences count submissions
        self._fences = FenceQueue()  # what each pending fence waits on, for ``_wait``
        self._call_bound: Any = _CONTEXT_BOUND  # the running call's own timeout_s
        self.compile_count = 0  # pipeline-cache misses, for tests and benchmarks

    # -- primitives ----------------------------------------------------------------
    @abc.abstractmethod
    def _write(self, view: BufferView, data: memoryview) -> None: ...

    @abc.abstractmethod
    def _read_into(self, view: BufferView, out: memoryview) -> None: ...

    @abc.abstractmethod
    def _compile(self, launch: Launch, source: str | None) -> Any: ...

    @abc.abstractmethod
    def _launch(self, compiled: Any, launch: Launch, warmups: int, samples: int) -> list[int]: ...

    @abc.abstractmethod
    def _enqueue(self, compiled: Any, launch: Launch) -> None: ...

    @abc.abstractmethod
    def _signal(self, fence: int) -> None: ...

    @abc.abstractmethod
    def _wait(self, fence: int) -> None: ...

    @abc.abstractmethod
    def _release(self) -> None: ...

    @staticmethod
    def _checked_capacity(capacity_bytes: Any) -> int:
        """``capacity_bytes`` checked before a backend opens anything (the allocator
        checks it again, later)."""
        return _checks.integer(capacity_bytes, "capacity_bytes", minimum=1)

    def _abandon(self) -> None:
        """Called once when the context is lost while the device may still be running
        its work (a ``KernelTimeout``, an interrupted call): from here on nothing may
        wait for the device, neither ``close()`` nor a finalizer nor the interpreter's
        exit, and nothing the device may still use or call back into may be freed. A
        device backend hands its native objects over to be kept, unreleased, for the
        rest of the process; a host backend has nothing to do (this default)."""

    # -- identity ------------------------------------------------------------------
    # A backend sets ``_adapter`` and ``_constraints`` when it opens, and says how it
    # times samples through ``timing_source``.
    _adapter: AdapterIdentity
    _constraints: AdapterConstraints

    #: What the float semantics probe saw on this adapter (``backends._probe``).
    float_semantics: Any = None

    def _declare_measured_semantics(self) -> None:
        """Replace the constraints' float semantics by what the probe measures on this
        adapter (cached per adapter and driver): a backend calls it once it is open."""
        from ._probe import probe_float_semantics

        seen = probe_float_semantics(self)
        self.float_semantics = seen
        self._constraints = dataclasses.replace(
            self._constraints,
            subnormals_may_flush=seen.subnormals_may_flush,
            nonfinite_indeterminate=seen.nonfinite_indeterminate,
            float_departures=seen.departures,
            zeroes_workgroup_memory=seen.workgroup_memory_zeroed,
        )
        if self._constraints.subgroups and self._constraints.subgroup_size is None:
            # the adapter did not say (wgpu-native on lavapipe): the width the probe saw
            self._constraints = dataclasses.replace(
                self._constraints, subgroup_size=seen.subgroup_size
            )

    @property
    def adapter(self) -> AdapterIdentity:
        return self._adapter

    @property
    def constraints(self) -> AdapterConstraints:
        return self._constraints

    @property
    def timestamp_supported(self) -> bool:
        return self.timing_source != "host-wall-clock"

    # -- state ---------------------------------------------------------------------
    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def lost(self) -> str | None:
        """Why the device was lost, or None."""
        return self._lost

    @property
    def allocator(self) -> SlabAllocator:
        return self._allocator

    def _check_usable(self) -> None:
        if self._closed:
            raise ContextClosed(f"{type(self).__name__} is closed")
        if self._lost is not None:
            raise DeviceLost(
                f"{type(self).__name__} lost its device: {self._lost}; open a new context"
            )

    def _mark_lost(self, reason: str, error: DeviceLost | None, still_running: bool) -> None:
        """Enter the lost state (the first reason stays); abandon the device when it
        may still be running our work."""
        if self._lost is None:
            self._lost, self._lost_error = reason, error
        if still_running and not self._abandoned:
            self._abandoned = True
            self._abandon()

    @_api
    def forget_compiled(self, kernel: KernelSpec) -> None:
        """Forget what this context compiled and loaded for kernels with ``kernel``'s
        id, so that the next run compiles it (from the disk cache) and loads it afresh:
        what the oracle asks before judging a CUDA kernel that keeps state in its
        module (``oracle._plan.Plan.fresh_module``), as a new program would load it.
        What was loaded stays until the context closes."""
        for known in [k for k in self._by_kernel if k.id == kernel.id]:
            del self._by_kernel[known]
        for key, compiled in list(self._pipelines.items()):
            if getattr(getattr(compiled, "kernel", None), "id", None) == kernel.id:
                del self._pipelines[key]

    def close(self) -> None:
        """Release the device resources; idempotent, and safe from any thread (it waits
        for a call in progress on another thread to return)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._pipelines.clear()
            self._by_kernel.clear()
            self._release()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "lost" if self._lost else "open"
        return f"<{type(self).__name__} {self.backend_name} {state}>"

    # -- memory --------------------------------------------------------------------
    @_api
    def allocate_transient(
        self,
        size_bytes: int,
        binding: int,
        group: int = 0,
        usage: BindingUsage = BindingUsage.STORAGE_READ,
    ) -> BufferView:
        return self._allocator.allocate_transient(size_bytes, binding, group, usage)

    @_api
    def allocate_and_write(
        self, data, binding: int, group: int = 0, usage: BindingUsage = BindingUsage.STORAGE_READ
    ) -> BufferView:
        payload = as_bytes(data)
        view = self._allocator.allocate_transient(payload.nbytes, binding, group, usage)
        self._write(view, payload)
        return view

    @_api
    def write_view(self, view: BufferView, data) -> None:
        payload = self._checked_payload(view, data)
        self._write(view, payload)

    def _checked_payload(self, view: BufferView, data) -> memoryview:
        self._allocator.check_live(view)
        payload = as_bytes(data)
        if payload.nbytes > view.length_bytes:
            raise InvalidArgument(
                f"{payload.nbytes} bytes do not fit in a view of {view.length_bytes} bytes"
            )
        return payload

    @_api
    def read_buffer_f32(self, view: BufferView) -> np.ndarray:
        return self._read_as(view, np.float32)

    @_api
    def read_buffer_f64(self, view: BufferView) -> np.ndarray:
        return self._read_as(view, np.float64)

    @_api
    def read_buffer_u32(self, view: BufferView) -> np.ndarray:
        return self._read_as(view, np.uint32)

    def _read_as(self, view: BufferView, dtype) -> np.ndarray:
        self._allocator.check_live(view)
        itemsize = np.dtype(dtype).itemsize
        if view.length_bytes % itemsize:
            raise InvalidArgument(
                f"a view of {view.length_bytes} bytes is not a whole "
                f"number of {np.dtype(dtype).name} elements"
            )
        out = np.empty(view.length_bytes // itemsize, dtype)
        self._read_into(view, out.data.cast("B"))
        return out

    @_api
    def read_buffer_u32_into(self, view: BufferView, out: np.ndarray) -> None:
        self._allocator.check_live(view)
        if not isinstance(out, np.ndarray) or out.dtype != np.uint32:
            raise InvalidArgument(
                f"out must be a numpy uint32 array, got {getattr(out, 'dtype', type(out).__name__)}"
            )
        if not (out.flags.c_contiguous and out.flags.writeable):
            raise InvalidArgument(
                f"out must be C-contiguous and writable, got "
                f"C-contiguous={out.flags.c_contiguous}, "
                f"writable={out.flags.writeable}"
            )
        if out.nbytes > view.length_bytes:
            raise InvalidArgument(
                f"out holds {out.nbytes} bytes, the view only {view.length_bytes}"
            )
        self._read_into(view, out.data.cast("B"))

    @_api
    def clear_transient_allocations(self) -> None:
        self._wait(self._allocator.clear())

    @_api
    def advance_read_head(self, offset: int, slab: int = 0) -> None:
        """Release the views of ``slab`` that end at or before ``offset`` (waiting
        for the device work that still uses them)."""
        self._wait(self._allocator.advance_read_head(offset, slab))

    @_api
    def clear_resident(self) -> None:
        """Release every resident view (those ``clear_transient_allocations`` keeps),
        after the device work that used them completed. Nothing, on a topology without
        resident slabs."""
        kept = [i for i, s in enumerate(self._allocator.topology.slabs) if not s.recycled]
        self._wait(self._allocator.clear(kept))

    @_api
    def write_checkpoint(self) -> int:
        """The allocation count; ``restore_checkpoint`` rolls back to it."""
        return self._allocator.write_checkpoint()

    @_api
    def restore_checkpoint(self, write_count: int) -> None:
        """Undo the allocations made after ``write_checkpoint()`` returned
        ``write_count``; views allocated before it keep their bytes."""
        self._wait(self._allocator.restore_checkpoint(write_count))

    # -- kernels -------------------------------------------------------------------
    @_api
    def run_kernel(
        self,
        kernel: KernelSpec,
        schedule: Schedule,
        buffers: Sequence[BufferView],
        element_count: int,
        warmups: int = 0,
        samples: int = 1,
        *,
        timeout_s: Any = _CONTEXT_BOUND,
    ) -> list[int]:
        """See ``OracleContext.run_kernel``. ``timeout_s`` bounds this call's waits
        instead of the context's ``timeout_s`` (None: unbounded)."""
        warmups = _checks.integer(warmups, "warmups", minimum=0, maximum=MAX_RUNS)
        samples = _checks.integer(samples, "samples", minimum=1, maximum=MAX_RUNS)
        launch, compiled = self._prepare(kernel, schedule, buffers, element_count)
        previous = self._call_bound
        if timeout_s is not _CONTEXT_BOUND:
            self._call_bound = _checks.timeout(timeout_s)
        try:
            times = self._launch(compiled, launch, warmups, samples)
        finally:
            self._call_bound = previous
        self._after_submit(launch)
        return times

    @property
    def _wait_bound(self) -> float | None:
        """Seconds any one wait may take now: the running call's ``timeout_s`` when it
        gave one, else the context's."""
        return self.timeout_s if self._call_bound is _CONTEXT_BOUND else self._call_bound

    @_api
    def dispatch(
        self,
        kernel: KernelSpec,
        schedule: Schedule,
        buffers: Sequence[BufferView],
        element_count: int,
    ) -> int:
        """Enqueue one untimed dispatch and return its fence without waiting. The
        views stay in use until that fence completes; releasing them waits for it."""
        launch, compiled = self._prepare(kernel, schedule, buffers, element_count)
        self._enqueue(compiled, launch)
        return self._after_submit(launch)

    @_api
    def wait(self, fence: int | None = None) -> None:
        """Block until the work of ``fence`` (default: all submitted work) completed."""
        fence = self._fence if fence is None else _checks.integer(fence, "a fence", minimum=0)
        if fence > self._fence:
            raise InvalidArgument(f"fence {fence} was never handed out (the last is {self._fence})")
        self._wait(fence)

    def _after_submit(self, launch: Submitted) -> int:
        self._fence += 1
        self._signal(self._fence)
        for view in launch.views:
            self._allocator.mark_used(view, self._fence)
        return self._fence

    def _prepare(
        self,
        kernel: KernelSpec,
        schedule: Schedule,
        buffers: Sequence[BufferView],
        element_count: Any,
    ) -> tuple[Launch, Any]:
        """Every check that can be made before the device sees the dispatch, and the
        compiled pipeline (from the cache when this kernel ran here before)."""
        if not isinstance(kernel, KernelSpec):
            raise InvalidArgument(f"expected a KernelSpec, got {type(kernel).__name__}")
        if not isinstance(schedule, Schedule):
            raise InvalidArgument(f"expected a Schedule, got {type(schedule).__name__}")
        if not isinstance(element_count, Size):
            element_count = _checks.integer(element_count, "element_count")
        size = kernel.size(element_count)
        views = _checks.sequence(buffers, "buffers")
        steps, accesses, source, compiled = self._known(kernel, schedule, size)
        kernel.check_buffers(views, size, self.target, accesses)
        constraints = self.constraints
        for view, spec in zip(views, kernel.buffers):
            self._allocator.check_live(view)
            limit = constraints.binding_limit(spec.access is Access.UNIFORM)
            if limit is not None and view.length_bytes > limit:
                raise UnsupportedFeature(
                    f"kernel {kernel.id} binding {spec.binding}: a view of "
                    f"{view.length_bytes} bytes exceeds the binding limit of {limit}"
                )
        return Launch(kernel, schedule, views, size, steps, accesses, source), compiled

    @_api
    def compiled(self, kernel: KernelSpec, schedule: Schedule, size: Any = None) -> Any:
        """What this context compiled for ``kernel`` under ``schedule`` (at ``size``, for
        a source that depends on it), compiling it now if it has not: the backend's
        own object (CUDA: a ``LoadedKernel`` with its functions; wgpu: its pipelines)."""
        size = kernel.size(size if size is not None else kernel.largest_size())
        return self._known(kernel, schedule, size)[3]

    def _known(self, kernel: KernelSpec, schedule: Schedule, size: Size) -> tuple:
        """``_resolve``'s answer, remembered per kernel object, schedule and size."""
        known = self._by_kernel.get(kernel)
        entry = None if known is None else known.get((schedule, size))
        if entry is None:
            entry = self._resolve(kernel, schedule, size)
            self._by_kernel.setdefault(kernel, {})[(schedule, size)] = entry
        return entry

    def _resolve(self, kernel: KernelSpec, schedule: Schedule, size: Size) -> tuple:
        """(steps, accesses, source, compiled) of ``kernel`` under ``schedule`` at
        ``size``: checked against this adapter, then compiled (or found compiled)."""
        constraints = self.constraints
        source = self.kernel_source(kernel, schedule, size)
        target = self.target
        missing = sorted(f for f in kernel.features(target, source) if not constraints.supports(f))
        if missing:
            widths = constraints.subgroup_size
            said = (
                f" (its subgroups are {_widths(widths)} lanes wide)"
                if widths and any(f.startswith("subgroup_size") for f in missing)
                else ""
            )
            raise UnsupportedFeature(
                f"kernel {kernel.id} requires {', '.join(missing)}, which "
                f"{self.adapter.name} does not offer{said}"
            )
        if target is None:  # a host backend runs the CPU meaning whatever the pattern says
            schedule.check(constraints)
        else:
            kernel.check_schedule(schedule, constraints, target)
        steps = kernel.steps(
            target,
            schedule,
            size,
            constraints.max_workgroups_per_dimension[0],
            source if target else None,
        )
        for step in steps:
            if step.fields and not self.sets_launch_fields:
                raise UnsupportedFeature(
                    f"kernel {kernel.id}: the launch of {step.entry_point} sets uniform "
                    f"fields {[name for name, _ in step.fields]} of its own, which the "
                    f"{type(self).__name__} backend cannot bind per launch"
                )
            Schedule(step.block).check(constraints)
            for axis, (count, limit) in enumerate(
                zip(step.workgroups, constraints.max_workgroups_per_dimension)
            ):
                if count > limit:
                    raise UnsupportedFeature(
                        f"kernel {kernel.id} at size {size} needs {count} workgroups in "
                        f"{'xyz'[axis]} for {step.entry_point}, over the limit of {limit}"
                    )
            if step.shared_bytes > constraints.max_workgroup_storage_bytes:
                raise UnsupportedFeature(
                    f"kernel {kernel.id} asks {step.shared_bytes} bytes of dynamic shared "
                    f"memory for {step.entry_point}; the device allows "
                    f"{constraints.max_workgroup_storage_bytes}"
                )
        accesses = kernel.access_on(target, source, size)
        launch = Launch(kernel, schedule, (), size, steps, accesses, source if target else None)
        options = kernel.compile_options(target) if target else ()
        key = (
            None if source is None else hashlib.sha256(source.encode()).hexdigest(),
            tuple(s.entry_point for s in steps),
            tuple(s.overrides for s in steps),
            options,
            accesses,
            tuple(b.texture for b in kernel.buffers),  # a texture binding's layout and format
            kernel.samplers,  # the WGSL samplers made with the pipeline, and their state
        )
        compiled = self._pipelines.get(key)
        if compiled is None:
            compiled = self._compile(launch, self._as_compiled(source))
            self.compile_count += 1
            self._pipelines[key] = compiled
        return steps, accesses, launch.source, compiled

    def _as_compiled(self, source: str | None) -> str | None:
        """The text handed to the compiler: the kernel's, with workgroup memory zeroed
        in the shader where the probe saw this adapter leave it dirty (WGSL promises
        zeroed memory; ``forge.workgroup_zero``)."""
        if source is None or self.target != "wgsl" or self._constraints.zeroes_workgroup_memory:
            return source
        from forge.workgroup_zero import zero_workgroup_memory

        return zero_workgroup_memory(source)[0]

    def kernel_source(self, kernel: KernelSpec, schedule: Schedule, size: Any = None) -> str:
        """The text this backend compiles for ``kernel`` under ``schedule`` (at ``size``,
        for sources that depend on it)."""
        if self.target is None:
            raise UnsupportedFeature(f"the {self.backend_name} backend compiles no source")
        return kernel.source(self.target, schedule, size)

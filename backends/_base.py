"""``SlabContext``: the machinery every slab-backed backend shares.

It implements the whole ``OracleContext`` contract (argument checks, the slab
allocator, view liveness, the pipeline cache, fences, closed and lost states) on top
of a handful of primitives a backend provides:

- ``_write(view, data)`` / ``_read_into(view, out)``: copy bytes to or from a view;
- ``_compile(kernel, schedule, source)``: build what ``_launch`` runs (cached here);
- ``_launch(compiled, launch, warmups, samples)``: run and time on the device;
- ``_enqueue(compiled, launch)``: one untimed dispatch, not waited for;
- ``_signal(fence)`` / ``_wait(fence)``: mark and wait for completion of device work
  (``_wait`` gets only fences that were handed out: ``wait`` checks them);
- ``_release()``: free native resources (called once by ``close()``).

A primitive that sees the device die raises ``DeviceLost``; the context then marks
itself lost and every later call raises ``DeviceLost`` too.
"""

from __future__ import annotations

import abc
import functools
import hashlib
import time
import weakref
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from forge.allocator import SlabAllocator
from forge.errors import (ContextClosed, DeviceLost, InvalidArgument, KernelTimeout,
                          UnsupportedFeature)
from forge.kernel import Access, KernelSpec
from forge.schedule import Schedule
from forge.types import AdapterConstraints, AdapterIdentity, BindingUsage, BufferView
from forge.contract import OracleContext

__all__ = ["SlabContext", "Launch", "as_bytes", "poll_until"]


@dataclass(frozen=True)
class Launch:
    """One checked dispatch: what to run, on which views, over how many workgroups."""

    kernel: KernelSpec
    schedule: Schedule
    views: tuple[BufferView, ...]
    element_count: int
    workgroups: tuple[int, int, int]


def as_bytes(data: Any) -> memoryview:
    """``data`` (bytes-like or numpy array) as a flat, C-contiguous byte memoryview."""
    if isinstance(data, np.ndarray):
        array = np.ascontiguousarray(data)
        return memoryview(array.reshape(-1).view(np.uint8))
    try:
        view = memoryview(data)
    except TypeError:
        raise InvalidArgument(
            f"expected bytes-like data or a numpy array, got {type(data).__name__}") from None
    if not view.c_contiguous:
        raise InvalidArgument(f"data must be C-contiguous, got shape {view.shape} with "
                              f"strides {view.strides}")
    return view.cast("B") if view.format != "B" or view.ndim != 1 else view


def poll_until(done: Callable[[], bool], timeout_s: float, what: str) -> None:
    """Poll ``done()`` until it is true, sleeping a little longer each time (20 us up to
    1 ms, so short waits stay short); past ``timeout_s`` raise ``KernelTimeout``. For
    backends whose blocking waits cannot be bounded."""
    deadline = time.monotonic() + timeout_s
    pause = 20e-6
    while not done():
        if time.monotonic() >= deadline:
            raise KernelTimeout(f"{what} did not finish within timeout_s={timeout_s:g} s; "
                                "the device may still be running it, so the context is lost")
        time.sleep(pause)
        pause = min(pause * 2, 1e-3)


def _api(method):
    """Refuse calls on a closed or lost context; turn a DeviceLost into the lost state."""

    @functools.wraps(method)
    def wrapper(self: "SlabContext", *args, **kwargs):
        self._check_usable()
        try:
            return method(self, *args, **kwargs)
        except DeviceLost as exc:
            if self._lost is None:
                self._lost, self._lost_error = str(exc), exc
            raise
    return wrapper


class SlabContext(OracleContext):
    """Base of the built-in backends; see the module docstring for the primitives."""

    #: The ``KernelSpec.sources`` target this backend compiles (None: no source).
    target: str | None = None

    def __init__(self, allocator: SlabAllocator) -> None:
        self._allocator = allocator
        self._closed = False
        self._lost: str | None = None
        self._lost_error: DeviceLost | None = None  # what lost it (a KernelTimeout...)
        self._pipelines: dict[tuple[str, str], Any] = {}
        # kernel -> {schedule: compiled}, so that a repeated dispatch finds its pipeline
        # without generating and hashing its source again (kernels compare by identity).
        self._by_kernel: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._fence = 0          # last fence handed out; fences count submissions
        self.compile_count = 0   # pipeline-cache misses, for tests and benchmarks

    # -- primitives ----------------------------------------------------------------
    @abc.abstractmethod
    def _write(self, view: BufferView, data: memoryview) -> None: ...

    @abc.abstractmethod
    def _read_into(self, view: BufferView, out: memoryview) -> None: ...

    @abc.abstractmethod
    def _compile(self, kernel: KernelSpec, schedule: Schedule, source: str) -> Any: ...

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

    # -- identity ------------------------------------------------------------------
    # A backend sets ``_adapter`` and ``_constraints`` when it opens, and says how it
    # times samples through ``timing_source``.
    _adapter: AdapterIdentity
    _constraints: AdapterConstraints

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
            raise DeviceLost(f"{type(self).__name__} lost its device: {self._lost}; "
                             "open a new context")

    def close(self) -> None:
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
    def allocate_transient(self, size_bytes: int, binding: int, group: int = 0,
                           usage: BindingUsage = BindingUsage.STORAGE_READ) -> BufferView:
        return self._allocator.allocate_transient(size_bytes, binding, group, usage)

    @_api
    def allocate_and_write(self, data, binding: int, group: int = 0,
                           usage: BindingUsage = BindingUsage.STORAGE_READ) -> BufferView:
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
            raise InvalidArgument(f"{payload.nbytes} bytes do not fit in a view of "
                                  f"{view.length_bytes} bytes")
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
            raise InvalidArgument(f"a view of {view.length_bytes} bytes is not a whole "
                                  f"number of {np.dtype(dtype).name} elements")
        out = np.empty(view.length_bytes // itemsize, dtype)
        self._read_into(view, memoryview(out).cast("B"))
        return out

    @_api
    def read_buffer_u32_into(self, view: BufferView, out: np.ndarray) -> None:
        self._allocator.check_live(view)
        if not isinstance(out, np.ndarray) or out.dtype != np.uint32:
            raise InvalidArgument(f"out must be a numpy uint32 array, got "
                                  f"{getattr(out, 'dtype', type(out).__name__)}")
        if not (out.flags.c_contiguous and out.flags.writeable):
            raise InvalidArgument(f"out must be C-contiguous and writable, got "
                                  f"C-contiguous={out.flags.c_contiguous}, "
                                  f"writable={out.flags.writeable}")
        if out.nbytes > view.length_bytes:
            raise InvalidArgument(f"out holds {out.nbytes} bytes, the view only "
                                  f"{view.length_bytes}")
        self._read_into(view, memoryview(out).cast("B"))

    @_api
    def clear_transient_allocations(self) -> None:
        self._wait(self._allocator.clear())

    @_api
    def advance_read_head(self, offset: int, slab: int = 0) -> None:
        """Release the views of ``slab`` that end at or before ``offset`` (waiting
        for the device work that still uses them)."""
        self._wait(self._allocator.advance_read_head(offset, slab))

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
    def run_kernel(self, kernel: KernelSpec, schedule: Schedule,
                   buffers: Sequence[BufferView], element_count: int,
                   warmups: int = 0, samples: int = 1) -> list[int]:
        if warmups < 0 or samples < 1:
            raise InvalidArgument(f"need warmups >= 0 and samples >= 1, got {warmups}, {samples}")
        launch = self._prepare(kernel, schedule, buffers, element_count)
        compiled = self._pipeline(kernel, schedule)
        times = self._launch(compiled, launch, warmups, samples)
        self._after_submit(launch)
        return times

    @_api
    def dispatch(self, kernel: KernelSpec, schedule: Schedule,
                 buffers: Sequence[BufferView], element_count: int) -> int:
        """Enqueue one untimed dispatch and return its fence without waiting. The
        views stay in use until that fence completes; releasing them waits for it."""
        launch = self._prepare(kernel, schedule, buffers, element_count)
        compiled = self._pipeline(kernel, schedule)
        self._enqueue(compiled, launch)
        return self._after_submit(launch)

    @_api
    def wait(self, fence: int | None = None) -> None:
        """Block until the work of ``fence`` (default: all submitted work) completed."""
        if fence is None:
            fence = self._fence
        elif not isinstance(fence, (int, np.integer)) or isinstance(fence, bool):
            raise InvalidArgument(f"a fence is an int, got {fence!r}")
        elif fence > self._fence:
            raise InvalidArgument(f"fence {fence} was never handed out (the last is {self._fence})")
        self._wait(fence)

    def _after_submit(self, launch: Launch) -> int:
        self._fence += 1
        self._signal(self._fence)
        for view in launch.views:
            self._allocator.mark_used(view, self._fence)
        return self._fence

    def _prepare(self, kernel: KernelSpec, schedule: Schedule,
                 buffers: Sequence[BufferView], element_count: int) -> Launch:
        """Every check that can be made before the device sees the dispatch."""
        if not isinstance(kernel, KernelSpec):
            raise InvalidArgument(f"expected a KernelSpec, got {type(kernel).__name__}")
        if not isinstance(schedule, Schedule):
            raise InvalidArgument(f"expected a Schedule, got {type(schedule).__name__}")
        if not isinstance(element_count, (int, np.integer)) or isinstance(element_count, bool):
            raise InvalidArgument(f"element_count must be an int, got {element_count!r}")
        element_count = int(element_count)
        views = tuple(buffers)
        kernel.check_buffers(views, element_count)
        constraints = self.constraints
        for feature in sorted(kernel.requires):
            if not constraints.supports(feature):
                raise UnsupportedFeature(f"kernel {kernel.id} requires {feature}, which "
                                         f"{self.adapter.name} does not offer")
        schedule.check(constraints)
        for view, spec in zip(views, kernel.buffers):
            self._allocator.check_live(view)
            limit = constraints.binding_limit(spec.access is Access.UNIFORM)
            if limit is not None and view.length_bytes > limit:
                raise UnsupportedFeature(
                    f"kernel {kernel.id} binding {spec.binding}: a view of "
                    f"{view.length_bytes} bytes exceeds the binding limit of {limit}")
        workgroups = kernel.workgroups(schedule, element_count,
                                       constraints.max_workgroups_per_dimension[0])
        if min(workgroups) < 0:  # a kernel's own grid function got it wrong
            raise InvalidArgument(f"kernel {kernel.id} asks for {workgroups} workgroups; "
                                  "each count must be >= 0")
        for axis, (count, limit) in enumerate(
                zip(workgroups, constraints.max_workgroups_per_dimension)):
            if count > limit:
                raise UnsupportedFeature(
                    f"kernel {kernel.id} at {element_count} elements needs {count} "
                    f"workgroups in {'xyz'[axis]}, over the limit of {limit}")
        return Launch(kernel, schedule, views, element_count, workgroups)

    def kernel_source(self, kernel: KernelSpec, schedule: Schedule) -> str:
        """The text this backend compiles for ``kernel`` under ``schedule``."""
        if self.target is None:
            raise UnsupportedFeature(f"the {self.backend_name} backend compiles no source")
        return kernel.source(self.target, schedule)

    def _pipeline(self, kernel: KernelSpec, schedule: Schedule) -> Any:
        """The compiled kernel, from the cache keyed by (source hash, entry point)."""
        known = self._by_kernel.get(kernel)
        if known is not None and schedule in known:
            return known[schedule]
        source = self.kernel_source(kernel, schedule)
        key = (hashlib.sha256(source.encode()).hexdigest(), kernel.entry_point)
        compiled = self._pipelines.get(key)
        if compiled is None:
            compiled = self._compile(kernel, schedule, source)
            self.compile_count += 1
            self._pipelines[key] = compiled
        self._by_kernel.setdefault(kernel, {})[schedule] = compiled
        return compiled


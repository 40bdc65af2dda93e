"""``OracleContext``: the one hardware surface the generic oracle drives
(docs/DESIGN.md section 2).

Every backend implements it; the oracle, the tuner and the CLI reach a device only
through these members. An incomplete backend fails at construction (abstract base).
"""

from __future__ import annotations

import abc
from collections.abc import Sequence

import numpy as np

from forge import _checks
from forge.kernel import KernelSpec
from forge.schedule import Schedule
from forge.types import AdapterConstraints, AdapterIdentity, BindingUsage, BufferView

__all__ = ["OracleContext", "TIMING_SOURCES"]

TIMING_SOURCES = ("gpu-timestamp", "cuda-event", "host-wall-clock")


class OracleContext(abc.ABC):
    """A device (or the host) that can hold buffers and run kernels.

    Memory comes from slabs carved by a ``forge.SlabAllocator``; views are transient
    until ``clear_transient_allocations`` releases them. All failures are
    ``forge.ForgeError`` subclasses; after ``close()`` every call raises
    ``ContextClosed``, after a device loss ``DeviceLost``.
    """

    #: Registry name of the backend (``"cuda"``, ``"wgpu"``, ``"reference"``...).
    backend_name: str = ""

    _timeout_s: float | None = None

    @property
    def timeout_s(self) -> float | None:
        """Bound in seconds on any one wait for device work (None: wait as long as it
        takes). A wait past it raises ``forge.KernelTimeout`` and the context is lost.
        Backends that run kernels on the calling thread (the numpy reference) cannot
        interrupt them and ignore it. Set it to None or a finite number > 0; anything
        else is an ``InvalidArgument`` at once, not a failure inside a later wait."""
        return self._timeout_s

    @timeout_s.setter
    def timeout_s(self, value: float | None) -> None:
        self._timeout_s = _checks.timeout(value)

    # -- memory --------------------------------------------------------------------
    @abc.abstractmethod
    def allocate_and_write(
        self, data, binding: int, group: int = 0, usage: BindingUsage = BindingUsage.STORAGE_READ
    ) -> BufferView:
        """Take a transient range of the slab backing ``usage`` and upload ``data``
        (bytes-like or numpy array) into it."""

    @abc.abstractmethod
    def allocate_transient(
        self,
        size_bytes: int,
        binding: int,
        group: int = 0,
        usage: BindingUsage = BindingUsage.STORAGE_READ,
    ) -> BufferView:
        """Take an uninitialised transient range of ``size_bytes``."""

    @abc.abstractmethod
    def write_view(self, view: BufferView, data) -> None:
        """Overwrite the start of an existing view with ``data`` (at most its length)."""

    @abc.abstractmethod
    def read_buffer_f32(self, view: BufferView) -> np.ndarray:
        """The view's bytes as a new float32 array (waits for device work on it)."""

    @abc.abstractmethod
    def read_buffer_f64(self, view: BufferView) -> np.ndarray:
        """The view's bytes as a new float64 array."""

    @abc.abstractmethod
    def read_buffer_u32_into(self, view: BufferView, out: np.ndarray) -> None:
        """Copy the first ``out.size`` u32 words of the view into ``out`` (a writable,
        contiguous uint32 array), allocating nothing."""

    @abc.abstractmethod
    def clear_transient_allocations(self) -> None:
        """Release every transient range, after the device work on them completed."""

    # -- kernels -------------------------------------------------------------------
    @abc.abstractmethod
    def run_kernel(
        self,
        kernel: KernelSpec,
        schedule: Schedule,
        buffers: Sequence[BufferView],
        element_count,
        warmups: int = 0,
        samples: int = 1,
        **options,
    ) -> list[int]:
        """Compile ``kernel`` for this backend (cached), dispatch it ``warmups`` times
        untimed then ``samples`` times timed; return each sample's nanoseconds, after
        the work completed. ``element_count`` is the problem size (an int, or a
        ``forge.Size`` for a kernel with several dimensions). A backend that can bound
        its waits takes ``timeout_s=`` (seconds, or None) for this call alone."""

    def kernel_source(self, kernel: KernelSpec, schedule: Schedule, size=None) -> str:
        """The text this backend compiles for ``kernel`` under ``schedule`` (at ``size``,
        for a source whose template uses the size): its hash goes into certificates, and
        schedules with identical text are one tuning candidate. Raises
        ``UnsupportedFeature`` when the kernel has nothing for this backend. A backend
        that compiles nothing describes what it runs instead (this default)."""
        return f"{kernel.semantic_hash} {schedule}"

    def compile_ahead(  # noqa: B027 - optional: most backends prepare nothing ahead
        self, kernel: KernelSpec, schedule: Schedule, size=None
    ) -> None:
        """Optional: do now the costly preparation ``run_kernel`` would do first for
        ``kernel`` under ``schedule`` at ``size`` that needs no device (CUDA: the NVRTC
        compile, into its on-disk cache), so that the run later only loads the result.
        The tuner calls it for the candidates it will measure next, on other threads,
        while this context runs kernels: an implementation must not take the context's
        lock, nor touch the device, nor change what any run does or reports. It may
        raise (a source that does not compile): the caller ignores it, and the run
        reports the error as it would have. Default: nothing."""

    def poison_scratch_memory(self, word: int) -> bool:  # noqa: B027 - optional
        """Optional: fill the on-chip memory a kernel may read before any of its threads
        wrote it (CUDA's ``__shared__``) with the 32-bit pattern ``word``, so that the
        kernel run next on this context reads it there rather than whatever an earlier
        kernel left, often zeros, which hides the read (a reduction summing a slot no
        thread filled). The oracle calls it before the runs it judges, never before timed
        ones. Returns whether it did; the default does nothing and returns False (WGSL
        defines workgroup memory as zeroed, the host has none)."""
        return False

    # -- identity ------------------------------------------------------------------
    @property
    @abc.abstractmethod
    def adapter(self) -> AdapterIdentity:
        """Name, vendor, device, driver and backend of the device."""

    @property
    @abc.abstractmethod
    def constraints(self) -> AdapterConstraints:
        """Limits and capabilities read from the device."""

    @property
    @abc.abstractmethod
    def timestamp_supported(self) -> bool:
        """Whether samples are timed on the device rather than on the host clock."""

    @property
    @abc.abstractmethod
    def timing_source(self) -> str:
        """One of ``TIMING_SOURCES``; recorded with every result."""

    # -- lifetime ------------------------------------------------------------------
    @abc.abstractmethod
    def close(self) -> None:
        """Release the device resources; idempotent."""

    @property
    @abc.abstractmethod
    def closed(self) -> bool:
        """Whether ``close()`` has been called."""

    def __enter__(self) -> OracleContext:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

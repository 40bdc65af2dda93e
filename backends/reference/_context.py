"""``ReferenceContext``: the contract on host memory, running each kernel's numpy
meaning. It is the CPU oracle every other backend is compared with, and runs
everywhere."""

from __future__ import annotations

import platform
import time
from typing import Any

import numpy as np

from forge.allocator import SlabAllocator
from forge.errors import AllocationError, UnsupportedFeature
from forge.kernel import Access, KernelSpec
from forge.layout import as_elements
from forge.schedule import Schedule
from forge.types import AdapterConstraints, AdapterIdentity, BufferView, MemoryTopology

from .._base import Launch, SlabContext

__all__ = ["ReferenceContext"]

_HOST_LIMIT = 2**62


class ReferenceContext(SlabContext):
    """Host-memory slab, same allocator, same contract; ``run_kernel`` evaluates the
    kernel's numpy reference over the views and times it on the host clock."""

    backend_name = "reference"
    target = None

    def __init__(self, capacity_bytes: int = 64 << 20, alignment: int = 256) -> None:
        super().__init__(SlabAllocator(capacity_bytes, alignment, MemoryTopology.unified()))
        try:
            self._memory = np.zeros(self._allocator.capacity, np.uint8)
        except (MemoryError, ValueError) as exc:  # numpy: too big for memory, or at all
            raise AllocationError(
                f"cannot allocate a host slab of {self._allocator.capacity} bytes: {exc}"
            ) from None
        self._adapter = AdapterIdentity(
            name=f"numpy {np.__version__} on {platform.processor() or platform.machine()}",
            vendor_id=0,
            device_id=0,
            device_type="cpu",
            backend="reference",
            driver=f"numpy {np.__version__}",
            driver_info=f"Python {platform.python_version()}",
            architecture=platform.machine(),
        )
        self._constraints = AdapterConstraints(
            max_workgroup_size=(1024, 1024, 64),
            max_invocations_per_workgroup=1024,
            max_workgroups_per_dimension=(_HOST_LIMIT,) * 3,
            max_workgroup_storage_bytes=_HOST_LIMIT,
            max_storage_binding_size=_HOST_LIMIT,
            max_buffer_size=_HOST_LIMIT,
            min_storage_offset_alignment=alignment,
            min_uniform_offset_alignment=alignment,
            shader_f16=True,
            shader_f64=True,
        )

    @property
    def timing_source(self) -> str:
        return "host-wall-clock"

    # -- primitives ----------------------------------------------------------------
    def _bytes(self, view: BufferView) -> np.ndarray:
        return self._memory[view.offset : view.end]

    def _write(self, view: BufferView, data: memoryview) -> None:
        self._bytes(view)[: data.nbytes] = np.frombuffer(data, np.uint8)

    def _read_into(self, view: BufferView, out: memoryview) -> None:
        np.frombuffer(out, np.uint8)[:] = self._bytes(view)[: out.nbytes]

    def kernel_source(self, kernel: KernelSpec, schedule: Schedule, size: Any = None) -> str:
        # The reference runs the kernel's CPU meaning, whatever the schedule.
        return kernel.semantic_hash

    def _compile(self, launch: Launch, source: str | None) -> Any:
        if not launch.kernel.has_reference:
            raise UnsupportedFeature(
                f"kernel {launch.kernel.id} has no CPU reference, which is "
                "what the reference backend runs"
            )
        return launch.kernel

    def _arrays(self, launch: Launch) -> list:
        arrays = []
        for view, spec in zip(launch.views, launch.kernel.buffers):
            count = spec.element_count(launch.size)
            array = as_elements(self._bytes(view), spec.dtype, count)
            arrays.append(array[:1] if spec.access is Access.UNIFORM else array)
        return arrays

    def _run(self, launch: Launch, arrays: list) -> None:
        launch.kernel.run_reference(arrays, launch.size, self._constraints)

    def _launch(
        self, compiled: KernelSpec, launch: Launch, warmups: int, samples: int
    ) -> list[int]:
        arrays = self._arrays(launch)
        for _ in range(warmups):
            self._run(launch, arrays)
        times = []
        for _ in range(samples):
            start = time.perf_counter_ns()
            self._run(launch, arrays)
            times.append(max(1, time.perf_counter_ns() - start))
        return times

    def _enqueue(self, compiled: KernelSpec, launch: Launch) -> None:
        self._run(launch, self._arrays(launch))

    def _signal(self, fence: int) -> None:
        pass  # host work is complete when the call returns

    def _wait(self, fence: int) -> None:
        pass

    def _release(self) -> None:
        self._memory = np.zeros(0, np.uint8)

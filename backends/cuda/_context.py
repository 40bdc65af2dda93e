"""``CudaComputeContext``: the OracleContext contract and the whole seed API
(docs/DESIGN.md section 2) on the CUDA driver through cuda-python, built
on ``SlabContext``.

One device slab (one ``cuMemAlloc``) is carved by the slab allocator; one non-blocking
compute stream runs copies and kernels in order; a second stream, created on the first
``write_view_prefetch``, uploads while the compute stream works, and ``join_prefetch``
orders the compute stream after it through an event. Fences are events recorded on the
compute stream, so releasing views waits for exactly the work that used them. Kernels
compile with NVRTC for the device's own architecture and load once per context (the
``SlabContext`` pipeline cache is the module cache). Samples are timed with CUDA events,
one per sample boundary; a launch timed a second time replays a cached CUDA graph of its
samples (see ``launch_path``). Calls from several threads take turns (see ``SlabContext``).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import types
import weakref
from typing import Any, NamedTuple

import numpy as np

from forge import _checks, layout
from forge import sources as _sources
from forge._bindings import pointer_fields, uniform_field_bytes
from forge.allocator import SlabAllocator
from forge.arguments import accessor_bytes
from forge.errors import (
    AllocationError,
    CompileError,
    DeviceLost,
    InvalidArgument,
    UnsupportedFeature,
)
from forge.kernel import Access, KernelSpec, Step
from forge.schedule import Schedule
from forge.types import (
    AdapterConstraints,
    AdapterIdentity,
    BindingUsage,
    BufferView,
    MemoryTopology,
)

from .._base import Launch, SlabContext, _api, poll_until
from ._driver import (
    DeviceInfo,
    call,
    check,
    device_info,
    driver,
    error_for,
    kernel_driver_version,
    pci_device_id,
)
from ._energy import EnergyCounter, energy_support
from ._graphs import Capture, CapturedCudaGraph, SampleGraphs
from ._memory import Staging, pinned_empty
from ._modules import (
    TARGET,
    check_sizes,
    check_steps,
    compile_ahead,
    module_build,
    widened_field,
)
from ._nvrtc import nvrtc_version
from ._resources import Resources
from ._textures import TextureObjects

__all__ = ["CudaComputeContext", "CapturedCudaGraph", "LoadedKernel"]

_RELAXED = driver.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED
_NOT_READY = driver.CUresult.CUDA_ERROR_NOT_READY
_NVIDIA = 0x10DE
_PARAM_SPACE = 4096  # kernel parameter bytes every architecture and driver accepts
_STATIC_SHARED = 48 << 10  # dynamic shared memory a launch may use without opting in
_POLL_AFTER = 64  # pending fence events before completed ones are collected
_GRAPH_SAMPLES = 4096  # samples per timed chunk (one graph); more run chunk by chunk
# (the launch_path docstring quotes it, and _graphs._TIMED_CACHE)
_LAUNCH_PATHS = ("graph", "direct")
# stores through a volatile pointer, so that NVRTC keeps them though nothing reads them
_POISON_SOURCE = r"""
extern "C" __global__ void kforge_poison_shared(unsigned int word, unsigned int words) {
  extern __shared__ unsigned int kforge_scratch[];
  volatile unsigned int* slot = kforge_scratch;
  for (unsigned int i = threadIdx.x; i < words; i += blockDim.x) slot[i] = word;
}
"""


def under_compute_sanitizer() -> bool:
    """Whether this process runs under NVIDIA's compute-sanitizer, which injects itself
    through ``NV_SANITIZER_INJECTION_*`` variables (seen under memcheck and racecheck,
    compute-sanitizer 2025.x with CUDA 13)."""
    return any(name.startswith("NV_SANITIZER_INJECTION") for name in os.environ)


class LoadedKernel(NamedTuple):
    """A module-cache entry: the seed's (CudaFunction, CudaModule, KernelSpec), plus
    which image was loaded (``"cubin sm_90"``, or ``"ptx compute_90"`` when NVRTC cannot
    emit SASS for the device and the driver JIT-compiles PTX). ``functions`` holds one
    function per launch of the kernel (one, unless it is made of several)."""

    functions: tuple
    module: Any
    kernel: KernelSpec
    image: str
    param_sizes: tuple = ()  # per function, each parameter's size in bytes (when known)
    # (buffer index, device address, bytes, name) of each ``__constant__`` variable a
    # buffer is copied into before the launches (``forge.arguments.symbol_buffers``)
    variables: tuple = ()
    # per function, whether it waits for its whole grid (``grid.sync()``): launched with
    # cuLaunchCooperativeKernel, every block resident at once (``_cooperative_fit``)
    cooperative: tuple = ()

    @property
    def function(self) -> Any:
        """The (first) launch's function."""
        return self.functions[0]


def _identity(info: DeviceInfo) -> AdapterIdentity:
    import cuda.bindings

    major, minor = info.driver_version
    kernel_driver = kernel_driver_version()
    nvrtc = ".".join(map(str, nvrtc_version()))
    return AdapterIdentity(
        name=info.name,
        vendor_id=_NVIDIA,
        device_id=pci_device_id(info),
        device_type="integrated-gpu" if info.attributes["INTEGRATED"] else "discrete-gpu",
        backend="cuda",
        driver=f"NVIDIA {kernel_driver}" if kernel_driver else f"CUDA driver {major}.{minor}",
        driver_info=(
            f"CUDA driver API {major}.{minor}; PCI {info.pci_bus_id}; "
            f"UUID {info.uuid or 'unknown'}; cuda-bindings "
            f"{getattr(cuda.bindings, '__version__', '?')}; NVRTC {nvrtc}"
        ),
        architecture=info.arch,
    )


def _constraints(info: DeviceInfo, capacity: int, alignment: int) -> AdapterConstraints:
    a = info.attributes
    warp = a["WARP_SIZE"]
    return AdapterConstraints(
        max_workgroup_size=(a["MAX_BLOCK_DIM_X"], a["MAX_BLOCK_DIM_Y"], a["MAX_BLOCK_DIM_Z"]),
        max_invocations_per_workgroup=a["MAX_THREADS_PER_BLOCK"],
        max_workgroups_per_dimension=(
            a["MAX_GRID_DIM_X"],
            a["MAX_GRID_DIM_Y"],
            a["MAX_GRID_DIM_Z"],
        ),
        # What one block may use with dynamic shared memory opted in (static
        # __shared__ arrays stay under the 48 KiB the IR emitters plan for).
        max_workgroup_storage_bytes=max(
            a["MAX_SHARED_MEMORY_PER_BLOCK"], a["MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"]
        ),
        max_storage_binding_size=capacity,
        max_buffer_size=capacity,
        min_storage_offset_alignment=alignment,
        min_uniform_offset_alignment=alignment,
        max_uniform_binding_size=_PARAM_SPACE,
        subgroups=True,
        subgroup_size=(warp, warp),
        warp_size=warp,
        shader_f16=True,
        shader_f64=True,
        cooperative_matrix=info.compute_capability >= (7, 0),
        warpgroup_mma=info.compute_capability == (9, 0),
        timestamp_query=True,
        multiprocessor_count=a["MULTIPROCESSOR_COUNT"],
        l2_cache_bytes=a["L2_CACHE_SIZE"],
        total_memory_bytes=info.total_memory,
    )


class CudaComputeContext(SlabContext):
    """CUDA compute on device ``device``; see the module docstring.

    ``capacity_bytes`` is the size of the one device slab. Host copies of pageable
    memory go through ``staging_buffers`` pinned buffers of ``staging_chunk_bytes``,
    filled by ``staging_threads`` host threads (default: one per core, up to 8);
    arrays from ``pinned_empty`` skip them. ``launch_path`` (``"graph"`` or ``"direct"``)
    picks how ``run_kernel`` launches its timed samples; the property says what each does.
    """

    backend_name = "cuda"
    target = "cuda"
    sets_launch_fields = True

    def __init__(
        self,
        capacity_bytes: int = 256 << 20,
        device: int = 0,
        *,
        alignment: int = 256,
        staging_chunk_bytes: int = 16 << 20,
        staging_buffers: int = 4,
        staging_threads: int | None = None,
        launch_path: str = "graph",
    ) -> None:
        capacity_bytes = self._checked_capacity(capacity_bytes)
        device = _checks.integer(device, "device (an ordinal)", minimum=0)
        staging_chunk_bytes = _checks.integer(staging_chunk_bytes, "staging_chunk_bytes")
        staging_buffers = _checks.integer(staging_buffers, "staging_buffers")
        if staging_chunk_bytes < 4096 or staging_buffers < 2:
            raise InvalidArgument(
                f"staging needs at least 2 buffers of at least 4096 bytes, "
                f"got staging_buffers={staging_buffers!r} of "
                f"staging_chunk_bytes={staging_chunk_bytes!r}"
            )
        if staging_threads is not None:
            staging_threads = _checks.integer(staging_threads, "staging_threads", minimum=1)
        if not isinstance(launch_path, str) or launch_path not in _LAUNCH_PATHS:
            raise InvalidArgument(
                f"launch_path must be one of {_LAUNCH_PATHS}, got {launch_path!r}"
            )
        super().__init__(SlabAllocator(capacity_bytes, alignment, MemoryTopology.unified()))
        self._info = device_info(device)
        capacity = self._allocator.capacity
        if capacity > self._info.total_memory:
            raise AllocationError(
                f"cannot allocate a device slab of {capacity} bytes on "
                f"{self._info.name}: it has {self._info.total_memory} in all"
            )
        res = self._res = Resources(device)
        self._finalizer = weakref.finalize(self, res.release)
        try:
            res.primary.make_current()
            try:
                try:
                    res.slab = int(call(driver.cuMemAlloc, capacity))
                except DeviceLost as exc:  # an earlier kernel's sticky fault, still held
                    raise DeviceLost(
                        f"cannot open a CUDA context on {self._info.name}: a kernel faulted "
                        f"earlier in this process ({exc}) and its context is still held, by "
                        "a pinned array (pinned_empty) or a context not closed yet; CUDA "
                        "gives this process a clean context only once all of them are "
                        "released, so close them, or work in a new process (the oracle's "
                        "default worker isolation does)"
                    ) from None
            except AllocationError as exc:
                raise AllocationError(
                    f"cannot allocate a device slab of {capacity} bytes on {self._info.name}: {exc}"
                ) from None
            res.stream_compute = res.stream()
            res.staging = Staging(
                device, min(staging_chunk_bytes, capacity), staging_buffers, staging_threads
            )
            self._write_done = res.event()  # after the last compute-stream upload
            self._adapter = _identity(self._info)
        except BaseException:
            self._finalizer()
            raise
        self._constraints = _constraints(self._info, capacity, alignment)
        self._prefetch = None
        self._prefetch_done = None
        self._prefetch_unjoined = False  # the compute stream has not waited for it yet
        self._prefetch_busy = False  # the host has not seen it complete yet
        self._spare_events: list = []
        self._timing_events: list = []  # one per sample boundary of a chunk, reused
        self._launch_path = launch_path
        self._timed = SampleGraphs(res)  # timed launches, with their samples' graphs
        self._textures = TextureObjects(res)
        self.sample_graph_replays = 0  # timed-sample graphs replayed (tests, benchmarks)
        self._dirty = False  # compute-stream work since the host last waited
        self._capture: Capture | None = None
        self._uniforms: dict[int, tuple[BufferView, bytearray]] = {}
        self.module_loads = 0  # cuModuleLoadData calls, for tests and benchmarks
        self._shared_allowed: dict[int, int] = {}  # function -> dynamic shared bytes opted in
        self._poison: tuple[Any, int] | None = None  # poison_scratch_memory's (function, bytes)
        self._poison_word: int | None = None  # the word the next launch's poison stores
        # (function, threads, dynamic shared bytes) -> blocks one SM holds at once
        self._occupancy: dict[tuple[int, int, int], int] = {}
        self._declare_measured_semantics()

    @property
    def sample_graph_captures(self) -> int:
        """Timed-sample graphs built so far (for tests and benchmarks)."""
        return self._timed.captures

    # -- identity ------------------------------------------------------------------
    @property
    def timing_source(self) -> str:
        return "cuda-event"

    @property
    def device_info(self) -> DeviceInfo:
        return self._info

    # -- energy (NVML) ---------------------------------------------------------------
    def energy_support(self) -> str:
        """ "" when this context can read its GPU's energy (``energy_counter``), else why not."""
        return energy_support()

    def energy_counter(self) -> float:
        """The GPU's cumulative energy in millijoules, through NVML (raises
        ``UnsupportedFeature`` when NVML cannot say)."""
        if getattr(self, "_energy", None) is None:
            self._energy = EnergyCounter(self._info.pci_bus_id)
        return self._energy()

    # -- shared memory poison (the oracle's judged runs) ------------------------------
    @_api
    def poison_scratch_memory(self, word: int) -> bool:
        """Fill every SM's shared memory with ``word`` before the next launch
        (``OracleContext``): two launches of a kernel whose threads store ``word`` over
        all the dynamic shared memory their block has, first blocks of the most a block
        may opt in to (two an SM), then blocks of 48 KiB (eight an SM). Shared memory
        keeps its bytes from one kernel to the next in a context, so the kernel launched
        next reads ``word`` where it reads a slot none of its threads wrote (a fresh
        context holds zeros there, the value a reduction's right kernel writes, so such a
        read passed). Measured on the H100 (2026-12-06), reading 4 and 48 KiB of static
        shared memory unwritten in 8 blocks an SM: after the first launch alone 6% of
        the reads still found zeros (the blocks' slices of the SM fall otherwise), after
        both none.

        The two launches are made with the next kernel's, one after the other with no
        host work between (``_poison_calls``), so that no other process's context runs
        between them where this context's queue would run dry. Launched at once and the
        kernel after the uploads, with 14 test processes on the H100 (2026-12-06), every
        read found zeros where a probe alone on the GPU found the word: what the GPU
        ran between had replaced it.

        Under compute-sanitizer (``under_compute_sanitizer``) nothing is poisoned and
        False is returned: racecheck tracks every shared store, and the poison's 28
        million a launch grew the process's host memory by about 2 GB a second until
        the kernel killed it (H100, 2026-12-06); the sanitizer's own checks stand in."""
        word = _checks.integer(word, "word (a 32-bit pattern)", minimum=0)
        if word >> 32:
            raise InvalidArgument(f"word must fit 32 bits, got {word:#x}")
        self._refuse_during_capture("poison_scratch_memory")
        if under_compute_sanitizer():
            return False
        if self._poison is None:
            self._poison = self._load_poison()
        self._poison_word = word
        return True

    def _poison_calls(self) -> tuple[list, list]:
        """The pending poison's two launches (``poison_scratch_memory``), and the
        arguments they point to (alive until they are made), or nothing pending."""
        if self._capture is not None:  # kept for the first launch after the capture
            return [], []
        word, self._poison_word = self._poison_word, None
        if word is None or self._poison is None:
            return [], []
        function, most = self._poison
        sms = self._info.attributes["MULTIPROCESSOR_COUNT"]
        stream = self._res.stream_compute
        held, calls = [], []
        for blocks, shared in ((2 * sms, most), (8 * sms, min(most, _STATIC_SHARED))):
            values = (ctypes.c_uint32(word), ctypes.c_uint32(shared // 4))
            params = (ctypes.c_void_p * 2)(*[ctypes.addressof(v) for v in values])
            held.append((values, params))
            launch = (function, blocks, 1, 1, 1024, 1, 1, shared, stream, ctypes.addressof(params))
            calls.append((False, (*launch, 0)))
        return calls, held

    def _load_poison(self) -> tuple[Any, int]:
        """The poison kernel's function, opted in to the most shared memory a block may
        have on this device, and that many bytes."""
        from ._nvrtc import compile_own

        image = compile_own(_POISON_SOURCE, "kforge_poison_shared", self._info.arch)
        with self._unsafe_calls_allowed():
            module = call(driver.cuModuleLoadData, image)
        self._res.modules.append(module)
        function = call(driver.cuModuleGetFunction, module, b"kforge_poison_shared")
        shared = max(
            self._info.attributes["MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"],
            self._info.attributes["MAX_SHARED_MEMORY_PER_BLOCK"],
        )
        if shared > _STATIC_SHARED:
            call(
                driver.cuFuncSetAttribute,
                function,
                driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                shared,
            )
        return function, shared

    # -- the seed's fields -----------------------------------------------------------
    @property
    def ctx(self):
        """The device's primary ``CUcontext`` (shared with other users of the device)."""
        self._check_usable()
        return self._res.primary.handle

    @property
    def stream(self):
        """The compute ``CUstream``."""
        self._check_usable()
        return self._res.stream_compute

    @property
    def prefetch_stream(self):
        """The prefetch ``CUstream``, or None until the first ``write_view_prefetch``."""
        self._check_usable()
        return self._prefetch

    @property
    def slab(self) -> int:
        """The device address of the slab; a view lives at ``slab + view.offset``."""
        self._check_usable()
        return self._res.slab

    @property
    def staging_settings(self) -> dict:
        """How pageable host memory is staged: chunk bytes, pinned buffers, copy threads."""
        staging = self._res.staging
        assert staging is not None  # made when the context opened
        return {
            "chunk_bytes": staging.chunk,
            "buffers": staging.count,
            "threads": staging.copier.threads,
        }

    @property
    def module_cache(self):
        """Loaded kernels by (source sha256, entry points, override values, compile
        options, binding accesses), read-only."""
        return types.MappingProxyType(self._pipelines)

    # -- host memory ---------------------------------------------------------------
    @_api
    def pinned_empty(self, shape, dtype=np.float32) -> np.ndarray:
        """An uninitialised array in pinned host memory. Writes from it and reads into
        it are DMA'd directly, skipping staging; a write is asynchronous, so leave the
        array unchanged until the device has consumed it (a read, ``synchronize()``)."""
        return pinned_empty(self._info.ordinal, shape, dtype)

    # -- synchronisation -----------------------------------------------------------
    @_api
    def synchronize(self) -> None:
        """Block until everything enqueued on both streams (copies included) is done."""
        self._refuse_during_capture("synchronize")
        self._synchronize()

    def _synchronize(self) -> None:
        self._res.primary.make_current()
        for stream in (self._res.stream_compute, self._prefetch):
            if stream is None:
                continue
            if self._wait_bound is None:
                call(driver.cuStreamSynchronize, stream)
            else:
                call(driver.cuEventRecord, self._res.waiter, stream)
                self._block_on(self._res.waiter, "waiting for the device")
        self._prefetch_busy = False
        self._all_complete()

    def _all_complete(self, fence: int | None = None) -> None:
        """Record that all compute-stream work up to now is done (the host waited)."""
        self._spare_events.extend(self._fences.drain())
        self._fences.complete(self._fence if fence is None else fence)
        self._dirty = False

    def _signal(self, fence: int) -> None:
        if self._capture is not None or not self._dirty:
            # Nothing of this fence is running: captured work runs only when its graph
            # is launched, and a stream the host just waited for has finished.
            self._all_complete(fence)
            return
        event = self._spare_events.pop() if self._spare_events else self._res.event()
        call(driver.cuEventRecord, event, self._res.stream_compute)
        self._fences.push(fence, event)
        if len(self._fences) > _POLL_AFTER:
            self._collect_completed()

    def _collect_completed(self) -> None:
        while (oldest := self._fences.oldest()) is not None:
            result = driver.cuEventQuery(oldest[1])
            if result[0] == _NOT_READY:
                return
            check(result, "cuEventQuery")
            self._spare_events.append(self._fences.pop_oldest())

    def _wait(self, fence: int) -> None:
        self._forget_released()
        self._res.primary.make_current()
        if self._prefetch_busy:
            self._block_on(self._prefetch_done, "waiting for the prefetch stream")
            self._prefetch_busy = False
        if fence <= self._fences.done:
            return
        reached = self._fences.take_through(fence)
        if reached:
            self._block_on(reached[-1], f"waiting for fence {fence}")  # in-order: all earlier too
            self._spare_events.extend(reached)
        self._fences.complete(fence)

    def _block_on(self, event, what: str) -> None:
        """Wait for ``event``: blocking, or polled and bounded by ``timeout_s`` (the
        driver's own waits cannot be bounded)."""
        if self._wait_bound is None:
            call(driver.cuEventSynchronize, event)
            return

        def done() -> bool:
            result = driver.cuEventQuery(event)
            if result[0] == _NOT_READY:
                return False
            check(result, "cuEventQuery")
            return True

        poll_until(done, self._wait_bound, what)

    def _refuse_during_capture(self, what: str) -> None:
        if self._capture is not None:
            raise InvalidArgument(
                f"{what} is not possible during a graph capture (it copies or waits, which "
                "a capture cannot hold); only dispatch() is captured. Call "
                "end_graph_capture() first"
            )

    # -- bytes ---------------------------------------------------------------------
    @_api
    def allocate_and_write(
        self, data, binding: int, group: int = 0, usage: BindingUsage = BindingUsage.STORAGE_READ
    ) -> BufferView:
        self._refuse_during_capture("allocate_and_write")  # before the allocation is made
        return super().allocate_and_write(data, binding, group, usage)

    def _write(self, view: BufferView, data: memoryview) -> None:
        self._refuse_during_capture("writing a view")
        res = self._res
        res.primary.make_current()
        self._join_prefetch()  # a prefetch into the same bytes must land first
        assert res.staging is not None  # made when the context opened
        res.staging.upload(res.slab + view.offset, data, res.stream_compute)
        call(driver.cuEventRecord, self._write_done, res.stream_compute)
        self._dirty = True
        self._remember_uniform(view, data)

    @_api
    def write_view_prefetch(self, view: BufferView, data) -> None:
        """Overwrite the start of ``view`` with ``data`` on the prefetch stream, which
        overlaps with compute on the compute stream. Call ``join_prefetch`` before
        launching a kernel that reads it (reads and writes join on their own)."""
        self._refuse_during_capture("write_view_prefetch")
        payload = self._checked_payload(view, data)
        res = self._res
        res.primary.make_current()
        if self._prefetch is None:
            self._prefetch_done = res.event()
            self._prefetch = res.stream()
        # After earlier compute-stream uploads (the view's first contents, say), but not
        # after the kernels enqueued since: that is the overlap this stream is for.
        call(driver.cuStreamWaitEvent, self._prefetch, self._write_done, 0)
        assert res.staging is not None  # made when the context opened
        res.staging.upload(res.slab + view.offset, payload, self._prefetch)
        call(driver.cuEventRecord, self._prefetch_done, self._prefetch)
        self._prefetch_unjoined = self._prefetch_busy = True
        self._remember_uniform(view, payload)

    @_api
    def join_prefetch(self) -> None:
        """Make the compute stream wait for all prefetch-stream work so far, on the
        device (the host does not wait)."""
        self._res.primary.make_current()
        self._join_prefetch()

    def _join_prefetch(self) -> None:
        if self._prefetch_unjoined:
            call(driver.cuStreamWaitEvent, self._res.stream_compute, self._prefetch_done, 0)
            self._prefetch_unjoined = False

    def _read_into(self, view: BufferView, out: memoryview) -> None:
        self._refuse_during_capture("reading a view")
        res = self._res
        res.primary.make_current()
        self._join_prefetch()
        if self._wait_bound is not None and self._dirty:
            # The download below blocks in the driver: first wait, bounded, for the
            # work it would queue behind.
            call(driver.cuEventRecord, res.waiter, res.stream_compute)
            self._block_on(res.waiter, f"reading {view}")
        assert res.staging is not None  # made when the context opened
        res.staging.download(out, res.slab + view.offset, res.stream_compute)
        self._all_complete()  # the download waited for everything before it

    def _remember_uniform(self, view: BufferView, data: memoryview) -> None:
        """Keep the host copy of a uniform view's bytes: kernels take them by value."""
        if view.usage is not BindingUsage.UNIFORM:
            return
        entry = self._uniforms.get(view.position)
        if entry is None or entry[0] != view:
            if data.nbytes < view.length_bytes:
                self._uniforms.pop(view.position, None)  # the rest is only on the device
                return
            entry = (view, bytearray(view.length_bytes))
            self._uniforms[view.position] = entry
        entry[1][: data.nbytes] = data

    def _uniform_bytes(self, view: BufferView) -> bytearray:
        entry = self._uniforms.get(view.position)
        if entry is None or entry[0] != view:
            raw = bytearray(view.length_bytes)
            self._read_into(view, memoryview(raw))
            entry = self._uniforms[view.position] = (view, raw)
        return entry[1]

    def _forget_released(self) -> None:
        """Drop what refers to released views: host copies of uniforms, and timed
        launches with their graphs (so no graph outlives the memory it names)."""
        for position, (view, _) in list(self._uniforms.items()):
            if not self._live(view):
                del self._uniforms[position]
        self._timed.forget_released(self._live)

    def _live(self, view: BufferView) -> bool:
        try:
            self._allocator.check_live(view)
        except AllocationError:
            return False
        return True

    # -- kernels -------------------------------------------------------------------
    def _compile(self, launch: Launch, source: str | None) -> LoadedKernel:
        """One NVRTC module holding every launch's entry point (found by its lowered
        name, so C++ and template kernels work), loaded once; each function's
        parameters are checked against the arguments its launch will pass."""
        kernel = launch.kernel
        build = module_build(kernel, launch.steps, source or "", self._info.arch, self._info.name)
        image, symbols, entries = build.build()
        check_steps(kernel, launch.steps, entries, source or "")
        res = self._res
        res.primary.make_current()
        with self._unsafe_calls_allowed():
            try:
                module = call(driver.cuModuleLoadData, image)
            except CompileError as exc:
                raise CompileError(
                    f"kernel {kernel.id}: {exc}",
                    source=source or "",
                    target="cuda",
                    options=(f"--gpu-architecture={build.arch}", *build.options),
                    log=str(exc),
                ) from None
            res.modules.append(module)
            self.module_loads += 1
            functions = tuple(
                call(driver.cuModuleGetFunction, module, symbols[step.entry_point].encode())
                for step in launch.steps
            )
            sizes = tuple(
                # where the driver cannot say, the PTX's (a u32 field widened to a long)
                _check_parameters(kernel, function, step, source or "")
                or (entries[step.entry_point].param_sizes if step.entry_point in entries else ())
                for step, function in zip(launch.steps, functions)
            )
            cooperative = tuple(
                _sources.cuda_grid_sync(source or "", step.entry_point) for step in launch.steps
            )
            variables = []
            for index, name in dict(s for step in launch.steps for s in step.symbols).items():
                address, capacity = call(
                    driver.cuModuleGetGlobal, module, symbols[f"&{name}"].encode()
                )
                variables.append((index, int(address), int(capacity), name))
        return LoadedKernel(
            functions,
            module,
            kernel,
            f"{build.output} {build.arch}",
            sizes,
            tuple(variables),
            cooperative,
        )

    def compile_ahead(self, kernel: KernelSpec, schedule: Schedule, size: Any = None) -> None:
        """Compile now, into NVRTC's disk cache, the module ``run_kernel`` will load for
        ``kernel`` under ``schedule`` at ``size`` (``OracleContext.compile_ahead``): the
        same source, entry points, options and target as ``_compile`` (both go through
        ``module_build``), so the run only loads a cached image. Needs neither the device
        nor this context's lock: it may run on other threads while the context runs
        kernels, and after it closed. Raises what the compile raises."""
        size = kernel.size(size if size is not None else kernel.largest_size())
        compile_ahead(
            kernel,
            schedule,
            size,
            self._info.arch,
            self._constraints.max_workgroups_per_dimension[0],
            self._as_compiled(self.kernel_source(kernel, schedule, size)),
        )

    @contextlib.contextmanager
    def _unsafe_calls_allowed(self):
        """Let this thread make calls a thread-local capture forbids (a module load)."""
        if self._capture is None:
            yield
            return
        mode = call(driver.cuThreadExchangeStreamCaptureMode, _RELAXED)
        try:
            yield
        finally:
            call(driver.cuThreadExchangeStreamCaptureMode, mode)

    def _arguments(
        self, launch: Launch, step: Step, sizes: tuple[int, ...] = (), textures: dict | None = None
    ) -> tuple[int, bytes, tuple]:
        """The ``void**`` arguments of one launch, packed once: in the order the kernel
        function declares them, a buffer as its device pointer, a uniform field as the
        scalar it holds, the uniform block as its C struct, by value. Returns its
        address, the argument bytes it points at, and the objects that must outlive
        the launch call."""
        holders: list[Any] = []
        addressed = pointer_fields(launch.kernel)  # uniform fields holding buffer addresses
        for kind, key in step.arguments:
            if kind == "buffer":
                if addressed and launch.kernel.buffers[key].access is Access.UNIFORM:
                    raise UnsupportedFeature(
                        f"kernel {launch.kernel.id}: uniform {launch.kernel.buffers[key].label} "
                        f"holds device pointers ({', '.join(addressed)}), which the CUDA backend "
                        f"writes only into a struct passed by value; {step.entry_point} takes "
                        "it through a pointer"
                    )
                holders.append(ctypes.c_uint64(self._address(launch, key)))
                continue
            if kind == "accessor":  # PyTorch's accessor (FAISS's tensor): address, shape
                index, _, index_bytes, *layout = key
                shape = launch.kernel.buffers[index].shape_at(launch.size)  # flat: (count,)
                packed = accessor_bytes(self._address(launch, index), shape, index_bytes, layout)
                holders.append((ctypes.c_char * len(packed)).from_buffer_copy(packed))
                continue
            if kind in ("texture", "surface"):  # an object made over the buffer, by value
                holders.append(ctypes.c_uint64((textures or {})[(kind, key)]))
                continue
            if kind == "offset":  # a buffer passed at an offset (``d_data + blockSize``)
                holders.append(ctypes.c_uint64(self._address(launch, key[0]) + key[1]))
                continue
            if kind in ("value", "default"):  # a scalar by value, packed in the kernel's C type
                holders.append((ctypes.c_char * len(key[1])).from_buffer_copy(key[1]))
                continue
            spec = launch.kernel.uniform
            assert spec is not None  # only a kernel with a uniform block has these arguments
            index = launch.kernel.buffers.index(spec)
            raw = self._uniform_bytes(launch.views[index])
            if step.fields:  # the launch's own values of some fields (a pass's stride)
                raw = bytearray(raw)
                for offset, data in uniform_field_bytes(launch.kernel, step.fields, self.target):
                    raw[offset : offset + len(data)] = data
            known = sizes[len(holders)] if len(sizes) > len(holders) else None
            if kind == "uniform" and addressed:  # the buffers' addresses, as the struct holds
                raw = bytearray(raw)
                for name, buffer in addressed.items():
                    offset = _field_slot(spec, name)[0]
                    raw[offset : offset + 8] = self._address(launch, buffer).to_bytes(8, "little")
            if kind == "field" and key in addressed:
                raw = bytearray(self._address(launch, addressed[key]).to_bytes(8, "little"))
            elif kind == "field":
                offset, dtype = _field_slot(spec, key)
                raw = raw[offset : offset + dtype.itemsize]
                wider = widened_field(dtype, known) if known else None
                if wider is not None:  # u32 to a long parameter: converted as C converts
                    raw = bytearray(np.frombuffer(bytes(raw), dtype).astype(wider).tobytes())
            want = known or len(raw)
            padded = bytes(raw[:want]).ljust(want, b"\0")  # a struct __align__(16) is padded
            holders.append((ctypes.c_char * len(padded)).from_buffer_copy(padded))
        pointers = (ctypes.c_void_p * max(1, len(holders)))(*[ctypes.addressof(h) for h in holders])
        return ctypes.addressof(pointers), b"".join(map(bytes, holders)), (pointers, holders)

    def _address(self, launch: Launch, index: int) -> int:
        """The device address of buffer ``index`` of ``launch``."""
        return self._res.slab + launch.views[index].offset

    def _launch_arguments(
        self, compiled: LoadedKernel, launch: Launch
    ) -> tuple[list[tuple], tuple, tuple]:
        """``cuLaunchKernel``'s arguments for each launch, packed once, each with whether
        it is a cooperative launch (``cuLaunchCooperativeKernel``, whose arguments are
        the same less the last); the run's identity (functions, argument bytes, grids,
        blocks, shared memory, stream: everything a graph of it holds); and what must
        stay alive while it runs."""
        res = self._res
        res.primary.make_current()
        self._join_prefetch()
        calls, identity, keep = [], [], []
        self._fill_variables(compiled, launch)
        textures = self._texture_arguments(launch, fill=True)
        sizes = compiled.param_sizes or ((),) * len(compiled.functions)
        cooperative = compiled.cooperative or (False,) * len(compiled.functions)
        for step, function, param_sizes, grid_sync in zip(
            launch.steps, compiled.functions, sizes, cooperative
        ):
            if 0 in step.workgroups:
                raise InvalidArgument(
                    f"kernel {launch.kernel.id} at size {launch.size} "
                    f"dispatches no workgroups ({step.workgroups}) for "
                    f"{step.entry_point}"
                )
            self._allow_shared(function, step)
            if grid_sync:
                self._cooperative_fit(launch.kernel, function, step)
            params, data, held = self._arguments(launch, step, param_sizes, textures)
            args = (
                function,
                *step.workgroups,
                *step.block,
                step.shared_bytes,
                res.stream_compute,
                params,
            )
            calls.append((grid_sync, args if grid_sync else (*args, 0)))
            identity.append((int(function), data, step.workgroups, step.block, step.shared_bytes))
            keep.append(held)
        return calls, (tuple(identity), int(res.stream_compute)), tuple(keep)

    def _fill_variables(self, compiled: LoadedKernel, launch: Launch) -> None:
        """Copy each buffer a ``__constant__`` or ``__device__`` variable takes into it,
        on the compute stream (so before the launches), as ``cudaMemcpyToSymbol`` would
        have."""
        for index, _, capacity, name in compiled.variables:
            spec = launch.kernel.buffers[index]
            need = spec.element_count(launch.size) * spec.dtype_for(TARGET).itemsize
            if need > capacity:
                raise InvalidArgument(
                    f"kernel {launch.kernel.id}: buffer {name!r} holds {need} bytes at size "
                    f"{launch.size}, but the variable {name} it is copied into holds "
                    f"{capacity}; declare it larger in the source, or give the buffer a "
                    "count that fits"
                )
        self._copy_variables(compiled, launch, back=False)

    def _drain_variables(self, compiled: LoadedKernel, launch: Launch) -> None:
        """Copy each writable buffer's ``__device__`` variable back into it, on the
        compute stream (so after the launches), as ``cudaMemcpyFromSymbol`` would have:
        a kernel whose output is a file-scope ``__device__`` array (cuda-samples'
        binomialOptions, ``d_CallValue``; round 28) was judged on the buffer it never
        wrote."""
        self._copy_variables(compiled, launch, back=True)
        self._texture_arguments(launch, drain=True)

    def _texture_arguments(self, launch: Launch, fill: bool = False, drain: bool = False) -> dict:
        """The texture and surface objects ``launch``'s steps take, by (kind, buffer
        index), made once per buffer and state (``_textures.TextureObjects``); with
        ``fill``, each array filled from its buffer on the compute stream (before the
        launches), with ``drain`` each surface's copied back into it (after them)."""
        made: dict = {}
        for step in launch.steps:
            for kind, key in step.arguments:
                if kind not in ("texture", "surface") or (kind, key) in made:
                    continue
                address, view = self._address(launch, key), launch.views[key]
                with self._unsafe_calls_allowed():  # arrays made inside a capture too
                    found = self._textures.handle(
                        launch.kernel,
                        kind,
                        key,
                        launch.size,
                        address,
                        view.length_bytes,
                        idle=self._capture is None,
                    )
                if fill:
                    self._textures.fill(address, found, self._res.stream_compute)
                if drain:
                    self._textures.drain(address, found, self._res.stream_compute)
                handle = found[0]
                made[(kind, key)] = handle
        return made

    def _copy_variables(self, compiled: LoadedKernel, launch: Launch, back: bool) -> None:
        """Each buffer into its variable, or ``back`` each writable one out of it."""
        for index, address, capacity, _ in compiled.variables:
            spec, view = launch.kernel.buffers[index], launch.views[index]
            if back and spec.access in (Access.READ, Access.UNIFORM):
                continue
            buffer = self._address(launch, index)
            call(
                driver.cuMemcpyDtoDAsync,
                *((buffer, address) if back else (address, buffer)),
                min(view.length_bytes, capacity),
                self._res.stream_compute,
            )

    def _cooperative_fit(self, kernel: KernelSpec, function, step: Step) -> None:
        """Refuse a grid that cannot be resident all at once, as a cooperative launch
        needs (the driver's CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE says no more): the
        blocks one SM holds of this function at this block and shared memory size
        (``cuOccupancyMaxActiveBlocksPerMultiprocessor``), times the SMs. Asked once
        per function, block and shared memory size."""
        threads = step.block[0] * step.block[1] * step.block[2]
        key = (int(function), threads, step.shared_bytes)
        per_sm = self._occupancy.get(key)
        if per_sm is None:
            per_sm = int(
                call(
                    driver.cuOccupancyMaxActiveBlocksPerMultiprocessor,
                    function,
                    threads,
                    step.shared_bytes,
                )
            )
            self._occupancy[key] = per_sm
        sms = int(self._info.attributes["MULTIPROCESSOR_COUNT"])
        blocks = step.workgroups[0] * step.workgroups[1] * step.workgroups[2]
        shared = f" and {step.shared_bytes} bytes of dynamic shared memory"
        shared *= bool(step.shared_bytes)
        if blocks > per_sm * sms:
            raise UnsupportedFeature(
                f"kernel {kernel.id}: {step.entry_point} waits for its whole grid "
                "(cooperative groups' grid.sync()), so it is launched cooperatively, which "
                f"needs every block resident at once: on {self._info.name} at most "
                f"{per_sm * sms} blocks of {threads} threads"
                f"{shared} fit ({per_sm} per SM x {sms} SMs), and the grid has {blocks} "
                f"({'x'.join(map(str, step.workgroups))}); give it a grid of at most "
                f"{per_sm * sms} blocks (a grid-stride loop covers the rest)"
            )

    def _allow_shared(self, function, step: Step) -> None:
        """Opt a function in to more than 48 KiB of dynamic shared memory (the driver
        refuses such a launch otherwise), once per function and size."""
        if (
            step.shared_bytes <= _STATIC_SHARED
            or self._shared_allowed.get(int(function), 0) >= step.shared_bytes
        ):
            return
        call(
            driver.cuFuncSetAttribute,
            function,
            driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            step.shared_bytes,
        )
        self._shared_allowed[int(function)] = step.shared_bytes

    @property
    def launch_path(self) -> str:
        """How ``run_kernel`` launches its timed samples. ``"graph"`` (the default): the
        first time a launch is timed, one ``cuLaunchKernel`` and one ``cuEventRecord``
        per sample; from its second time on (same kernel, argument bytes, grid, block
        and sample count), one replay of a CUDA graph of exactly those launches and
        records. The second call captures and instantiates that graph, so it costs more
        than the first; the graph is kept until one of its views is released, or until
        it is no longer among the eight launches timed last. Samples of more than 4096
        run as chunks of at most 4096, each its own launch as far as this goes.
        ``"direct"``: always one launch and one record per sample."""
        return self._launch_path

    def _launch(
        self, compiled: LoadedKernel, launch: Launch, warmups: int, samples: int
    ) -> list[int]:
        """Warm-ups as plain launches, then the samples in chunks of at most
        ``_GRAPH_SAMPLES``. Every sample is one launch between two events."""
        self._refuse_during_capture("run_kernel (it waits to time its samples)")
        calls, identity, keep = self._launch_arguments(compiled, launch)
        what = _describe_launch(launch)
        self._dirty = True
        poison, held = self._poison_calls()
        if poison and samples:
            self._events_for(min(samples, _GRAPH_SAMPLES) + 1)  # made before, not between
        self._launch_direct(poison, 1, "kforge_poison_shared")
        self._launch_direct(calls, warmups, what)
        del held
        times: list[int] = []
        while len(times) < samples:
            count = min(samples - len(times), _GRAPH_SAMPLES)
            # right after a poison, no graph capture before the launch (milliseconds)
            direct = bool(poison) and not warmups and not times
            times += self._timed_chunk(
                calls, (*identity, count), launch.views, count, what, direct=direct
            )
        self._drain_variables(compiled, launch)
        del keep
        self._all_complete()
        return times

    def _timed_chunk(
        self, args: list, key: tuple, views: tuple, count: int, what: str, direct: bool = False
    ) -> list[int]:
        """``count`` samples, directly or by replaying their graph (docs/PERFORMANCE.md P5:
        a replay is one host call where direct samples are two each); then their times."""
        events = self._events_for(count + 1)
        executable = None if direct else self._sample_graph(args, key, views, count, what)
        if executable is None:
            self._enqueue_samples(args, events, count, what, driver.cuEventRecord)
        else:
            call(driver.cuGraphLaunch, executable, self._res.stream_compute)
            self.sample_graph_replays += 1
        return self._elapsed_ns(events, count)

    def _sample_graph(self, args: list, key: tuple, views: tuple, count: int, what: str):
        """The executable graph of ``key``'s samples, or None to launch them directly:
        on the direct path, and the first time a launch is timed (``SampleGraphs``)."""
        if self._launch_path != "graph" or any(grid_sync for grid_sync, _ in args):
            # a cooperative launch is timed directly: whether a captured one keeps its
            # co-residency guarantee is the driver's to say, and no GPU here could tell
            return None
        return self._timed.executable(
            key,
            views,
            lambda record: self._enqueue_samples(args, self._timing_events, count, what, record),
        )

    def _enqueue_samples(self, calls: list, events: list, count: int, what: str, record) -> None:
        """Record event 0, then per sample the kernel's launches and one ``record`` of
        the next event: sample i is the time between events i and i + 1."""
        launch, stream = driver.cuLaunchKernel, self._res.stream_compute
        cooperative = driver.cuLaunchCooperativeKernel if any(c for c, _ in calls) else launch
        (err,) = record(events[0], stream)
        if err:
            raise error_for(err, "cuEventRecord")
        for event in events[1 : count + 1]:
            for grid_sync, args in calls:
                (err,) = (cooperative if grid_sync else launch)(*args)
                if err:
                    raise error_for(err, what)
            (err,) = record(event, stream)
            if err:
                raise error_for(err, "cuEventRecord")

    @staticmethod
    def _launch_direct(calls: list, count: int, what: str) -> None:
        """Each launch ``count`` times: ``cuLaunchKernel``, or for a kernel that waits
        for its whole grid ``cuLaunchCooperativeKernel``."""
        launch = driver.cuLaunchKernel
        cooperative = driver.cuLaunchCooperativeKernel if any(c for c, _ in calls) else launch
        for _ in range(count):
            for grid_sync, args in calls:
                (err,) = (cooperative if grid_sync else launch)(*args)
                if err:
                    raise error_for(err, what)

    def _elapsed_ns(self, events: list, count: int) -> list[int]:
        """Each of ``count`` samples in nanoseconds, read as soon as it has completed, so
        the reads overlap the samples still running (the event clock ticks every ~0.5
        us; no sample is reported shorter than 1 ns). The last read waited for the run."""
        elapsed, query = driver.cuEventElapsedTime, driver.cuEventQuery
        times = []
        for start, end in zip(events, events[1 : count + 1]):
            # Ask whether the sample is done before reading its time: reading an event
            # that has not completed is an API error compute-sanitizer counts.
            result = query(end)
            if result[0] == _NOT_READY:
                self._block_on(end, "waiting for a timed sample")  # and ``start`` before it
            elif result[0]:
                raise error_for(result[0], "cuEventQuery")
            err, ms = elapsed(start, end)
            if err:
                raise error_for(err, "cuEventElapsedTime")
            times.append(max(1, round(ms * 1e6)))
        return times

    def _events_for(self, count: int) -> list:
        """At least ``count`` timing events."""
        while len(self._timing_events) < count:
            self._timing_events.append(self._res.event(timing=True))
        return self._timing_events

    def _enqueue(self, compiled: LoadedKernel, launch: Launch) -> None:
        calls, _, keep = self._launch_arguments(compiled, launch)
        poison, held = self._poison_calls()
        self._launch_direct(poison + calls, 1, _describe_launch(launch))
        del held
        self._drain_variables(compiled, launch)
        del keep
        if self._capture is not None:
            self._capture.views.extend(launch.views)
            self._capture.launches += 1
        else:
            self._dirty = True

    # -- graphs --------------------------------------------------------------------
    @_api
    def begin_graph_capture(self) -> None:
        """Begin thread-local capture on the compute stream: until
        ``end_graph_capture``, ``dispatch`` records launches into a graph instead of
        running them. Waits for the work already enqueued first."""
        if self._capture is not None:
            raise InvalidArgument("a graph capture is already in progress on this context")
        self._synchronize()
        self._res.begin_capture(self._res.stream_compute)
        self._capture = Capture()

    @_api
    def end_graph_capture(self) -> CapturedCudaGraph:
        """Finish the capture, instantiate and upload the graph."""
        if self._capture is None:
            raise InvalidArgument(
                "no graph capture is in progress; call begin_graph_capture() first"
            )
        capture, self._capture = self._capture, None
        self._res.primary.make_current()
        captured = CapturedCudaGraph(self, self._res.end_capture(), capture)
        self._dirty = True
        return captured

    @_api
    def launch_graph(self, graph: CapturedCudaGraph) -> int:
        """Enqueue one replay of ``graph``; returns its fence, like ``dispatch``."""
        if not isinstance(graph, CapturedCudaGraph):
            raise InvalidArgument(f"expected a CapturedCudaGraph, got {type(graph).__name__}")
        if graph._owner() is not self:
            raise InvalidArgument("this graph was captured on another context")
        if graph.closed:
            raise InvalidArgument("this graph was closed")
        self._refuse_during_capture("launch_graph")
        for view in graph.views:
            try:
                self._allocator.check_live(view)
            except AllocationError as exc:
                raise AllocationError(
                    f"the graph uses a view released since its capture, "
                    f"so replaying it would overwrite reused memory: {exc}"
                ) from None
        self._res.primary.make_current()
        self._join_prefetch()
        call(driver.cuGraphLaunch, graph._exec, graph._stream)
        self._dirty = True
        return self._after_submit(graph)  # it needs only the views, which graphs have

    # -- lifetime ------------------------------------------------------------------
    def _abandon(self) -> None:
        # The device may still be running the kernel: waiting for streams or freeing
        # memory (at close, or in the finalizer when the context is dropped unclosed)
        # could block for as long, so the handles stay with the process (pinned staging
        # and the context's retain included: their own finalizers would wait at exit).
        self._finalizer.detach()
        self._res.abandon()

    def _release(self) -> None:
        if self._abandoned:
            return
        self._capture = None
        self._uniforms.clear()
        self._fences.drain()
        self._spare_events, self._timing_events = [], []
        self._timed.clear()
        self._finalizer()


def _describe_launch(launch: Launch) -> str:
    source = launch.source or ""
    return ", ".join(
        f"cuLaunch{'Cooperative' * _sources.cuda_grid_sync(source, s.entry_point)}"
        f"Kernel({launch.kernel.id}:{s.entry_point}, grid={s.workgroups}, block={s.block})"
        for s in launch.steps
    )


def _field_slot(spec, name: str) -> tuple[int, np.dtype]:
    """(offset, dtype) of uniform field ``name`` in its C layout."""
    fields = layout.target_dtype(spec.fields, "c").fields
    assert fields is not None  # a uniform block is a struct
    sub, offset = fields[name][:2]
    return offset, sub


def _check_parameters(kernel: KernelSpec, function, step: Step, source: str) -> tuple[int, ...]:
    """Refuse an entry point whose parameters cannot take the arguments its launch
    passes (a wrong count or size would read garbage on the device), where the driver
    can tell (``check_sizes``). Returns each parameter's size (empty when the driver
    cannot say)."""
    try:
        result = driver.cuFuncGetParamCount(function)
    except Exception:  # an older binding or driver without the query
        return ()
    if result[0]:
        return ()
    count = int(result[1])
    sizes = []
    for index in range(count):
        if index >= len(step.arguments):
            break  # the count alone is wrong: check_sizes says so
        info = driver.cuFuncGetParamInfo(function, index)
        if info[0]:
            return ()
        sizes.append(int(info[2]))
    if count != len(step.arguments):
        sizes += [0] * (count - len(sizes))
    check_sizes(kernel, step, sizes, source, "the driver says")
    return tuple(sizes)

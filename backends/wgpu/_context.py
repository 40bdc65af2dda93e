"""``WgpuComputeContext``: the OracleContext contract on wgpu-py (WebGPU on Vulkan,
Metal or D3D12), built on ``SlabContext``.

Each slab of the topology is one device buffer. By default read-only storage and
uniform views share one, read-write views have another and resident views a third,
because WebGPU forbids binding one buffer as writable storage and as anything else in
the same dispatch. Samples are timed with compute-pass timestamp writes when the
device has ``timestamp-query`` (ticks scaled by the queue's timestamp period), else on
the host clock. Submissions are tracked by wgpu-native's submission index, so a fence
waits for exactly the work it names.

A kernel's texture bindings (``BufferSpec(texture=...)``, ``backends._webgpu.
texture_slots``) are textures made per (buffer, extent) and filled from their views by
copies submitted before the launches; a writable storage texture is copied back into
its view after them. Neither copy lies inside a timed pass: samples time the
dispatches alone.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import wgpu

from forge import _checks
from forge.allocator import SlabAllocator
from forge.errors import DeviceLost, GpuValidation, InvalidArgument
from forge.kernel import KernelSpec
from forge.types import AdapterConstraints, AdapterIdentity, BufferView, MemoryTopology

from .._base import Launch, SlabContext, poll_until
from .._webgpu import (
    align4,
    binding_granules,
    binding_size,
    check_options,
    check_view,
    constraints_from_limits,
    durations_ns,
    entry_point_said,
    launch_field_patch,
    layout_groups,
    override_value,
    private_buffers,
    sampler_bindings,
    sampler_descriptor,
    sampler_layout_type,
    slab_sizes,
    slot_accesses,
    step_slots,
    step_unused,
    texture_copies,
    texture_extent,
    texture_slots,
    texture_writers,
    with_sampler_groups,
)
from . import _native
from ._device import (
    adapter_summary,
    check_portable,
    compile_error,
    destroyed_reason,
    lost_error,
    naga_source,
    optional_features,
    request_device,
    select_adapter,
    translate_errors,
)

__all__ = ["WgpuComputeContext"]

_MAX_BATCH = 256  # timed samples per readback (two queries each)
_SUBMIT_EVERY = 16  # timed passes per submit
_STAGING_CAP = 64 << 20  # largest readback chunk, bytes
_BIND_GROUP_CACHE = 64  # bind-group sets kept per pipeline
_SLAB_USAGE = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST
_MAP_USAGE = wgpu.BufferUsage.MAP_READ | wgpu.BufferUsage.COPY_DST


@dataclass
class _Pipeline:
    """A compiled kernel: a pipeline per launch, each launch's explicit bind group
    layouts (one per group index; launches that bind the same variables share them),
    and the bind groups made for the view sets it has run on."""

    pipelines: tuple
    layouts: tuple  # per launch, its bind group layouts
    bindings: tuple[tuple[int, int], ...]  # (group, binding) per buffer, in view order
    granules: tuple[int, ...]  # bytes of the element each binding is declared as
    # the access each (group, binding) is laid out with (``slot_accesses``)
    slots: tuple = ()
    bind_groups: dict = field(default_factory=dict)
    # (buffer index, bytes): the buffer of its own a ping-pong buffer is bound through
    private: dict = field(default_factory=dict)
    # per buffer, the texture it is bound as (``texture_slots``; None: a buffer)
    textures: tuple = ()
    # (buffer index, width, height): the texture made for it and its view
    texture_objects: dict = field(default_factory=dict)
    # ((group, binding), GPUSampler) of each sampler the kernel declares
    samplers: tuple = ()
    # per launch, the (group, binding)s it leaves out (``step_unused``)
    unused: tuple = ()


@dataclass
class _Timestamps:
    """Timestamp queries for ``_MAX_BATCH`` passes, where they resolve to, the mapped
    buffer they are read through, the host array they land in, and each pass's
    ``timestamp_writes`` (built once: they are the same for every run)."""

    query_set: Any
    resolve: Any
    staging: Any
    ticks: np.ndarray
    writes: tuple[dict, ...]


#: the values of ``WgpuComputeContext(shader_checks=...)`` that are strings
_SHADER_CHECKS = ("auto", *_native.RUNTIME_CHECKS)


class WgpuComputeContext(SlabContext):
    """WebGPU compute through wgpu-py; see the module docstring.

    ``power_preference`` or ``adapter_index`` (into ``wgpu.gpu.enumerate_adapters``)
    picks the adapter; ``timestamps=False`` forces host-clock timing; ``topology``
    overrides the usage split (``MemoryTopology.split_by_usage()`` by default).

    ``shader_checks`` says which of naga's runtime checks go into shader modules. The
    default, ``"auto"``, keeps every check (index clamps and a counter bounding each
    loop) in modules of hand-written WGSL, which is what a verifier of unknown kernels
    wants, and keeps only the index clamps in modules of WGSL that ``forge.emit`` wrote
    (``KernelBody.emitted``: its loops are counted loops that end). On the H200 through
    Vulkan the loop-bounding option, not the clamps, held the one-pass row kernels to a
    third of their speed, and it did so with no loop left in their WGSL (``bench.probes
    wgsl-checks`` and ``wgsl-rows``, BENCHMARKS.md 2026-12-04); why is not known.
    ``True`` keeps every check in every module; ``"bounds"`` or ``"loops"`` keeps that
    one check in every module; ``False`` none (wgpu-native's trusted path,
    ``_native.create_unchecked_shader_module``): what a kernel computes within bounds is
    the same, an index out of range is then undefined behaviour instead of a clamped
    access. ``False`` is for timing kernels that have passed the oracle the way
    production code built on wgpu-native would run them (P10 measures both).
    """

    backend_name = "wgpu"
    target = "wgsl"
    sets_launch_fields = True

    def __init__(
        self,
        capacity_bytes: int = 64 << 20,
        *,
        power_preference: str = "high-performance",
        adapter_index: int | None = None,
        timestamps: bool = True,
        topology: MemoryTopology | None = None,
        shader_checks: bool | str = "auto",
    ) -> None:
        capacity_bytes = self._checked_capacity(capacity_bytes)
        check_options(power_preference, timestamps, topology)
        if not (
            isinstance(shader_checks, (bool, np.bool_))
            or (isinstance(shader_checks, str) and shader_checks in _SHADER_CHECKS)
        ):
            raise InvalidArgument(
                "shader_checks must be 'auto', True, False, 'bounds' or 'loops', got "
                f"{_checks.shown(shader_checks)}"
            )
        adapter = select_adapter(power_preference, adapter_index)
        features = optional_features(adapter, timestamps=bool(timestamps))
        device = request_device(adapter, features)
        limits = device.limits
        alignment = max(
            4,
            limits["min-storage-buffer-offset-alignment"],
            limits["min-uniform-buffer-offset-alignment"],
        )
        super().__init__(
            SlabAllocator(capacity_bytes, alignment, topology or MemoryTopology.split_by_usage())
        )
        self._device = device
        self._shader_checks = (
            shader_checks if isinstance(shader_checks, str) else bool(shader_checks)
        )
        self._queue = device.queue
        self._adapter = self._identity(adapter, self._shader_checks)
        self._constraints = self._read_constraints(adapter, device)
        self._timestamps = "timestamp-query" in device.features
        self._period_ns = _native.timestamp_period_ns(self._queue)
        self._last_index = 0  # wgpu-native submission index of our last submit
        self._completed_index = 0  # every submission up to here is known complete
        self._staging = None
        self._slabs = self._create_slabs()
        self._ts = self._create_timestamp_resources() if self._timestamps else None
        self._declare_measured_semantics()

    # -- identity ------------------------------------------------------------------
    @staticmethod
    def _identity(adapter, shader_checks: bool | str = "auto") -> AdapterIdentity:
        info = adapter.info
        native = _native.native_version()
        # a figure taken without the checks says so wherever the adapter is shown
        checks = {
            "auto": "; forge-emitted shader modules with naga's index clamps but no loop counters",
            True: "",
            False: "; shader modules without naga's runtime checks",
            "bounds": "; shader modules with naga's index clamps but no loop counters",
            "loops": "; shader modules with naga's loop counters but no index clamps",
        }[shader_checks]
        return AdapterIdentity(
            name=info.get("device") or adapter_summary(adapter),
            vendor_id=int(info.get("vendor_id", 0)),
            device_id=int(info.get("device_id", 0)),
            device_type=str(info.get("adapter_type", "unknown")),
            backend=str(info.get("backend_type", "unknown")),
            driver=info.get("vendor") or "unknown",
            driver_info=f"{info.get('description') or 'no driver info'}; wgpu-native "
            f"{native}; wgpu-py {wgpu.__version__}{checks}",
            architecture=info.get("architecture") or "",
        )

    @staticmethod
    def _read_constraints(adapter, device) -> AdapterConstraints:
        features = set(device.features)
        return constraints_from_limits(
            device.limits,
            subgroups="subgroup" in features,
            subgroup_size=_native.subgroup_sizes(adapter) if "subgroup" in features else None,
            shader_f16="shader-f16" in features,
            shader_f64="shader-f64" in features,
            cooperative_matrix="cooperative-matrix" in features,
            timestamp_query="timestamp-query" in features,
        )

    @property
    def shader_checks(self) -> bool | str:
        """Which of naga's runtime checks are in this context's shader modules:
        ``"auto"`` (all, but no loop counters in forge-emitted WGSL), True (all), False
        (none), ``"bounds"`` or ``"loops"`` (that one only)."""
        return self._shader_checks

    def _checks_for(self, kernel) -> bool | str:
        """The checks of ``kernel``'s shader module: as ``shader_checks`` says, with
        ``"auto"`` resolved by who wrote the WGSL."""
        if self._shader_checks == "auto":
            return "bounds" if kernel.body.emitted else True
        return self._shader_checks

    @property
    def timing_source(self) -> str:
        return "gpu-timestamp" if self._timestamps else "host-wall-clock"

    @property
    def timestamp_period_ns(self) -> float:
        """Nanoseconds per timestamp tick, as the queue reports it."""
        return self._period_ns

    @property
    def device(self):
        """The raw ``wgpu.GPUDevice``, for interop and fault-injection tests."""
        if self._closed:
            self._check_usable()
        return self._device

    def slab_buffer(self, slab: int):
        """The ``wgpu.GPUBuffer`` backing slab ``slab`` (views carry their slab index)."""
        self._check_usable()
        if not 0 <= slab < len(self._slabs):
            raise InvalidArgument(f"no slab {slab}; this context has {len(self._slabs)}")
        return self._slabs[slab]

    def _check_usable(self) -> None:
        # A device destroyed under the context (device.destroy()) fails no call until
        # one reaches it: ask the one place that knows.
        if self._lost is None and not self._closed:
            self._lost = destroyed_reason(self._device)
        super()._check_usable()

    # -- resources -----------------------------------------------------------------
    def _create_slabs(self) -> list:
        slabs = []
        for i, (size, uniform) in enumerate(
            slab_sizes(self._allocator, self._constraints.max_buffer_size)
        ):
            name = self._allocator.topology.slabs[i].name
            usage = _SLAB_USAGE | (wgpu.BufferUsage.UNIFORM if uniform else 0)
            with translate_errors(f"creating slab {name!r} of {size} bytes"):
                slabs.append(
                    self._device.create_buffer(label=f"kforge-{name}", size=size, usage=usage)
                )
        return slabs

    def _create_timestamp_resources(self) -> _Timestamps:
        count = 2 * _MAX_BATCH
        with translate_errors("creating timestamp queries"):
            query_set = self._device.create_query_set(type="timestamp", count=count)
            resolve = self._device.create_buffer(
                size=8 * count, usage=wgpu.BufferUsage.QUERY_RESOLVE | wgpu.BufferUsage.COPY_SRC
            )
            staging = self._device.create_buffer(size=8 * count, usage=_MAP_USAGE)
        writes = tuple(
            {
                "query_set": query_set,
                "beginning_of_pass_write_index": 2 * i,
                "end_of_pass_write_index": 2 * i + 1,
            }
            for i in range(_MAX_BATCH)
        )
        return _Timestamps(query_set, resolve, staging, np.zeros(count, np.uint64), writes)

    def _staging_for(self, span: int):
        """A persistent MAP_READ buffer of at least ``span`` bytes (grown on demand)."""
        if self._staging is None or self._staging.size < span:
            if self._staging is not None:
                self._staging.destroy()
                self._staging = None
            size = max(span, min(1 << 20, _STAGING_CAP))
            self._staging = self._device.create_buffer(
                label="kforge-staging", size=size, usage=_MAP_USAGE
            )
        return self._staging

    def _abandon(self) -> None:
        objects = [*self._slabs, self._staging, self._ts, *self._pipelines.values()]
        _native.abandon(self._device, objects)
        self._device = self._queue = self._staging = self._ts = None
        self._slabs = []

    def _release(self) -> None:
        if self._abandoned:
            return  # _abandon kept it all, and nothing may wait for the device
        buffers = [*self._slabs, self._staging]
        if self._ts is not None:
            buffers += [self._ts.resolve, self._ts.staging]
        self._device = self._queue = self._staging = self._ts = None
        self._slabs = []
        self._fences.drain()
        for buffer in filter(None, buffers):
            try:
                buffer.destroy()  # free device memory now rather than at GC
            except wgpu.GPUError:
                pass  # already gone with its device; nothing left to free

    # -- submission tracking -------------------------------------------------------
    def _submit(self, command_buffer) -> None:
        self._last_index = _native.submit(self._queue, command_buffer)

    def _complete_through(self, index: int) -> None:
        """Block until submission ``index`` (and every earlier one) has completed. Under
        ``timeout_s`` the device is polled without blocking until its queue is empty
        (wgpu-native's blocking poll cannot be bounded), which covers ``index``."""
        if index <= self._completed_index:
            return
        timeout_s = self._wait_bound
        with translate_errors("waiting for the device"):
            if timeout_s is None:
                _native.wait_for_submission(self._device, index)
            else:
                self._poll_until_idle(f"submission {index}", timeout_s)
        self._completed_index = index

    def _poll_until_idle(self, what: str, timeout_s: float) -> None:
        """Poll, without blocking, until all work submitted so far is done (its
        work-done callback fired), giving up after ``timeout_s``."""
        wait = _native.WorkDoneWait(self._device, self._queue)
        try:
            poll_until(wait.poll, timeout_s, what)
            status, succeeded = wait.status, wait.succeeded
        finally:
            wait.forget()
        if not succeeded:
            raise DeviceLost(f"{what}: the queue reported work-done status {status}")

    def _signal(self, fence: int) -> None:
        self._fences.push(fence, self._last_index)

    def _wait(self, fence: int) -> None:
        if fence <= self._fences.done:
            return
        indices = self._fences.take_through(fence)
        self._complete_through(indices[-1] if indices else 0)
        self._fences.complete(fence)

    # -- bytes ---------------------------------------------------------------------
    def _write(self, view: BufferView, data: memoryview) -> None:
        buffer = self._checked_slab(view)
        size = data.nbytes
        body = size & ~3  # queue writes move whole 4-byte words
        with translate_errors(f"writing {size} bytes to {view}"):
            if body:
                self._queue.write_buffer(buffer, view.offset, data, 0, body)
            if size > body:
                word = bytearray(4)
                if view.offset + size < view.end:  # keep the view's bytes after the data
                    self._copy_out(buffer, view.offset + body, memoryview(word))
                word[: size - body] = data[body:]
                self._queue.write_buffer(buffer, view.offset + body, word, 0, 4)

    def _read_into(self, view: BufferView, out: memoryview) -> None:
        buffer = self._checked_slab(view)
        with translate_errors(f"reading {out.nbytes} bytes of {view}"):
            for start in range(0, out.nbytes, _STAGING_CAP):
                chunk = out[start : start + _STAGING_CAP]
                self._copy_out(buffer, view.offset + start, chunk)

    def _copy_out(self, buffer, offset: int, sink: memoryview) -> None:
        """Copy ``sink.nbytes`` bytes at ``offset`` of ``buffer`` into ``sink`` through
        the persistent staging buffer (the copy is queued after all earlier work)."""
        span = align4(sink.nbytes)
        staging = self._staging_for(span)
        encoder = self._device.create_command_encoder()
        encoder.copy_buffer_to_buffer(buffer, offset, staging, 0, span)
        self._submit(encoder.finish())
        self._map_into(staging, span, sink)

    def _map_into(self, staging, span: int, sink: memoryview) -> None:
        if self._wait_bound is not None:
            self._complete_through(self._last_index)  # mapping blocks without a bound
        # The copy into ``staging`` was just submitted, so wgpu-py's plain "READ"
        # mode would only add an empty submit (its guard for mapping before any).
        mapping = _native.map_read_nosync(staging, 0, span)
        try:
            mapping.sync_wait()
        except RuntimeError as exc:  # wgpu-py reports a failed map as RuntimeError
            what = "mapping a readback buffer"
            raise lost_error(what, exc) or GpuValidation(f"{what}: {exc}") from exc
        except BaseException:  # interrupted: wgpu-native may still call its callback
            _native.keep_forever(mapping)
            raise
        try:
            sink[:] = staging.read_mapped(0, span, copy=False)[: sink.nbytes]
        finally:
            staging.unmap()
        self._completed_index = max(self._completed_index, self._last_index)

    def _checked_slab(self, view: BufferView):
        """The slab buffer of ``view``, after checks that keep out-of-range, misaligned
        or zero-size ranges from ever reaching wgpu (a zero-size binding aborts the
        process in wgpu-py 0.32)."""
        check_view(
            view, self._allocator.topology, self._constraints, [slab.size for slab in self._slabs]
        )
        buffer = self._slabs[view.slab]
        return buffer

    # -- kernels -------------------------------------------------------------------
    def _compile(self, launch: Launch, source: str | None) -> _Pipeline:
        """One shader module, an explicit bind group layout per group (each binding
        typed by the access the shader declares), and a pipeline per launch (its entry
        point and ``override`` constants); the launches share the layout, so one set of
        bind groups serves them all, except that a launch of a module of several entry
        points leaves out the variables only others use (``step_unused``): its layouts
        and bind groups are those of its entry point."""
        kernel = launch.kernel
        entries = [step.entry_point for step in launch.steps]
        textures = texture_slots(kernel, source, entries)
        samplers = sampler_bindings(kernel, source, entries)
        slots = slot_accesses(kernel, source, launch.steps, launch.size)
        groups = with_sampler_groups(
            self._group_entries(kernel, slots, textures),
            samplers,
            lambda spec: {
                "binding": spec.binding,
                "visibility": wgpu.ShaderStage.COMPUTE,
                "sampler": {"type": sampler_layout_type(spec)},
            },
        )
        what = f"compiling kernel {kernel.id} under {launch.schedule}"
        check_portable(source or "", what)
        try:
            code = naga_source(source or "", self._device.features)
            checks = self._checks_for(kernel)
            if checks is True:
                module = self._device.create_shader_module(label=kernel.id, code=code)
            else:
                module = _native.create_unchecked_shader_module(
                    self._device, kernel.id, code, checks or None
                )
            unused = step_unused(source, launch.steps)
            made_layouts = {
                skip: tuple(
                    self._device.create_bind_group_layout(
                        entries=[e for e in group if (index, e["binding"]) not in skip]
                    )
                    for index, group in enumerate(groups)
                )
                for skip in dict.fromkeys(unused)
            }
            layouts = tuple(made_layouts[skip] for skip in unused)
            pipeline_layouts = {
                skip: self._device.create_pipeline_layout(bind_group_layouts=made)
                for skip, made in made_layouts.items()
            }
            made_pipelines = []
            module_what = what
            for step, skip in zip(launch.steps, unused):
                what = module_what + entry_point_said(source, step)
                made_pipelines.append(
                    self._device.create_compute_pipeline(
                        label=f"{kernel.id}:{step.entry_point}",
                        layout=pipeline_layouts[skip],
                        compute=self._stage(module, step),
                    )
                )
            what = module_what
            pipelines = tuple(made_pipelines)
            made = tuple(
                (
                    (spec.group, spec.binding),
                    self._device.create_sampler(
                        label=f"{kernel.id}:{spec.label}",
                        **{_snake(k): v for k, v in sampler_descriptor(spec).items()},
                    ),
                )
                for spec in samplers
            )
        except wgpu.GPUError as exc:
            raise lost_error(what, exc) or compile_error(exc, source or "", what) from exc
        return _Pipeline(
            pipelines,
            layouts,
            tuple((b.group, b.binding) for b in kernel.buffers),
            binding_granules(kernel, source, launch.size),
            slots,
            textures=textures,
            samplers=made,
            unused=unused,
        )

    @staticmethod
    def _stage(module, step) -> dict:
        stage = {"module": module, "entry_point": step.entry_point}
        if step.overrides:
            stage["constants"] = {name: override_value(value) for name, value in step.overrides}
        return stage

    def _group_entries(self, kernel: KernelSpec, accesses, textures=()) -> list[list[dict]]:
        """Explicit bind group layout entries by access (a texture binding's by its
        ``TextureSlot``), one list per group index; refuses layouts over the device's
        limits before wgpu sees them."""
        groups = layout_groups(kernel, self._device.limits, accesses)
        textures = textures or (None,) * len(kernel.buffers)
        by_slot = {(spec.group, spec.binding): slot for spec, slot in zip(kernel.buffers, textures)}
        return [
            [
                {
                    "binding": binding,
                    "visibility": wgpu.ShaderStage.COMPUTE,
                    **self._layout_entry(kind, by_slot.get((index, binding))),
                }
                for binding, kind in group
            ]
            for index, group in enumerate(groups)
        ]

    @staticmethod
    def _layout_entry(kind: str, texture) -> dict:
        """A layout entry's resource part: a buffer of ``kind``, or the texture."""
        if texture is None:
            return {"buffer": {"type": kind}}
        if texture.storage:
            return {
                "storage_texture": {
                    "access": texture.access,
                    "format": texture.format.name,
                    "view_dimension": "2d",
                }
            }
        return {
            "texture": {
                "sample_type": texture.format.sample_type,
                "view_dimension": "2d",
                "multisampled": False,
            }
        }

    def _textures_in(self, compiled: _Pipeline, launch: Launch) -> tuple[dict, list]:
        """The textures of ``launch``'s texture bindings, by buffer index, each filled
        from its view by copies submitted now, before the run (outside any timed
        pass); and the copies back into the views of those the kernel writes, for
        after it (``_copy_back``). A texture is made once per (buffer, extent)."""
        kernel = launch.kernel
        made: dict[int, Any] = {}
        back: list = []
        if not any(compiled.textures):
            return made, back
        encoder = self._device.create_command_encoder()
        writers = texture_writers(launch.steps, compiled.textures)
        for i, (spec, slot, view) in enumerate(
            zip(kernel.buffers, compiled.textures, launch.views)
        ):
            if slot is None:
                continue
            width, height = texture_extent(
                kernel, spec, slot, view, launch.size, self._device.limits
            )
            key = (i, width, height)
            entry = compiled.texture_objects.get(key)
            if entry is None:
                # both bindings: a launch may bind it where another kind is declared
                # (``Step.bindings``), where the format is a storage format (not r8uint)
                usage = (
                    wgpu.TextureUsage.COPY_DST
                    | wgpu.TextureUsage.COPY_SRC
                    | wgpu.TextureUsage.TEXTURE_BINDING
                )
                if slot.format.storage:
                    usage |= wgpu.TextureUsage.STORAGE_BINDING
                with translate_errors(f"making texture {spec.label} ({width} x {height})"):
                    texture = self._device.create_texture(
                        label=f"kforge-{spec.label}",
                        size=(width, height, 1),
                        format=slot.format.name,
                        usage=usage,
                        dimension="2d",
                    )
                    entry = compiled.texture_objects[key] = (texture, texture.create_view())
            texture = entry[0]
            slab = self._checked_slab(view)
            for offset, row_bytes, row, rows in texture_copies(
                view.offset, width, height, slot.format.texel_bytes
            ):
                encoder.copy_buffer_to_texture(
                    {"buffer": slab, "offset": offset, "bytes_per_row": row_bytes},
                    {"texture": texture, "origin": (0, row, 0)},
                    (width, rows, 1),
                )
            if i in writers:
                back.append(("texture", texture, slab, view.offset, width, height, slot))
            made[i] = entry[1]
        with translate_errors(f"copying kernel {kernel.id}'s textures in"):
            self._submit(encoder.finish())
        return made, back

    def _bind_groups(
        self,
        compiled: _Pipeline,
        views: tuple[BufferView, ...],
        textures: dict | None = None,
        number: int = 0,
    ) -> tuple:
        """The bind groups of launch ``number`` for ``views`` (cached per pipeline: the
        slabs never move; launches that bind the same variables share them). Each
        binding is exactly its view, rounded up to whole 4-byte words as WebGPU
        requires (and to whole vectors where the shader declares them:
        ``binding_size``), so a shader's ``arrayLength`` counts the view's elements."""
        textures = textures or {}
        skip = compiled.unused[number]
        key = (
            tuple((v.slab, v.offset, v.length_bytes) for v in views),
            tuple(map(id, textures.values())),
            skip,
        )
        groups = compiled.bind_groups.get(key)
        if groups is not None:
            return groups
        with translate_errors("creating bind groups"):
            groups = tuple(
                self._device.create_bind_group(
                    layout=layout,
                    entries=[
                        e
                        for e in self._group_entries_for(compiled, views, index, textures)
                        if (index, e["binding"]) not in skip
                    ],
                )
                for index, layout in enumerate(compiled.layouts[number])
            )
        if len(compiled.bind_groups) >= _BIND_GROUP_CACHE:
            compiled.bind_groups.pop(next(iter(compiled.bind_groups)))
        compiled.bind_groups[key] = groups
        return groups

    def _step_groups(self, compiled: _Pipeline, launch: Launch) -> tuple[list[tuple], list]:
        """The bind groups of each launch, and the copies to make after the run. Each
        launch binds the views' own groups, except that a launch that sets uniform
        fields of its own (``Step.fields``) binds its own uniform buffer, filled from
        the uniform view and its fields (``launch_field_patch``), and that the launches
        of a kernel that moves buffers between variables (``Step.bindings``) bind each
        buffer where they say, a buffer bound read-only in one and writable in another
        through a buffer of its own (``private_buffers``), filled from its view. Those
        copies are submitted here, before the run; the copies back into the views,
        (source, destination, offset, bytes), are returned for after it."""
        textures, back = self._textures_in(compiled, launch)
        shared: dict = {}  # the views' own groups, per set of variables left out
        groups = []
        for number, skip in enumerate(compiled.unused):
            if skip not in shared:
                shared[skip] = self._bind_groups(compiled, launch.views, textures, number)
            groups.append(shared[skip])
        moved = any(step.bindings for step in launch.steps)
        if not moved and not any(step.fields for step in launch.steps):
            return groups, back
        kernel = launch.kernel
        alignment = self._allocator.alignment
        resources: list = [
            textures[i]
            if i in textures
            else (self._checked_slab(view), view.offset, binding_size(view, granule, alignment))
            for i, (view, granule) in enumerate(zip(launch.views, compiled.granules))
        ]
        encoder = self._device.create_command_encoder()
        for i in private_buffers(launch.steps, launch.accesses, compiled.slots):
            slab, offset, size = resources[i]
            own = compiled.private.get((i, size))
            if own is None:
                with translate_errors(f"binding buffer {kernel.buffers[i].label} of its own"):
                    own = compiled.private[(i, size)] = self._device.create_buffer(
                        label=f"kforge-{kernel.buffers[i].label}", size=size, usage=_SLAB_USAGE
                    )
            encoder.copy_buffer_to_buffer(slab, offset, own, 0, size)
            back.append((own, slab, offset, size))
            resources[i] = (own, 0, size)
        views_key = tuple((v.slab, v.offset, v.length_bytes) for v in launch.views)
        out = []
        for number, step in enumerate(launch.steps):
            if not moved and not step.fields:
                out.append(groups[number])
                continue
            key = (
                "step",
                views_key,
                number,
                step.bindings,
                step.fields,
                tuple(map(id, textures.values())),
            )
            made = compiled.bind_groups.get(key)
            if made is None:
                made = self._launch_groups(compiled, launch, number, resources)
                if len(compiled.bind_groups) >= _BIND_GROUP_CACHE:
                    compiled.bind_groups.pop(next(iter(compiled.bind_groups)))
                compiled.bind_groups[key] = made
            step_groups, own, patch, ranges = made
            if own is not None:
                uniform = launch.views[kernel.buffers.index(kernel.uniform)]
                bound = own.size
                encoder.copy_buffer_to_buffer(
                    self._checked_slab(uniform), uniform.offset, own, 0, bound
                )
                for offset, length in ranges:
                    encoder.copy_buffer_to_buffer(patch, offset, own, offset, length)
            out.append(step_groups)
        with translate_errors(f"copying the bindings of kernel {kernel.id}'s launches"):
            self._submit(encoder.finish())
        return out, back

    def _launch_groups(
        self, compiled: _Pipeline, launch: Launch, number: int, resources: list
    ) -> tuple:
        """(bind groups, own uniform buffer, patch buffer, patch ranges) of launch
        ``number`` over ``resources``, (buffer, offset, bytes) per kernel buffer; the
        three last None where the launch sets no uniform field."""
        kernel, step = launch.kernel, launch.steps[number]
        skip = compiled.unused[number]
        chosen = [resources[i] for i in step_slots(step, len(kernel.buffers))]
        own = patch = None
        ranges: tuple = ()
        with translate_errors("creating a launch's bind groups"):
            if step.fields:
                assert kernel.uniform is not None  # only a uniform block has fields
                index = kernel.buffers.index(kernel.uniform)
                bound = chosen[index][2]
                data, ranges = launch_field_patch(kernel, step, bound)
                own = self._device.create_buffer(
                    size=bound,
                    usage=wgpu.BufferUsage.UNIFORM
                    | wgpu.BufferUsage.STORAGE  # a push constant bound as storage
                    | wgpu.BufferUsage.COPY_DST,
                )
                patch = self._device.create_buffer_with_data(
                    data=data, usage=wgpu.BufferUsage.COPY_SRC
                )
                chosen[index] = (own, 0, bound)
            step_groups = tuple(
                self._device.create_bind_group(
                    layout=layout,
                    entries=[
                        {"binding": binding, "resource": self._resource(resource)}
                        for resource, (at, binding) in zip(chosen, compiled.bindings)
                        if at == group and (at, binding) not in skip
                    ]
                    + _sampler_entries(compiled, group, skip),
                )
                for group, layout in enumerate(compiled.layouts[number])
            )
        return step_groups, own, patch, ranges

    @staticmethod
    def _resource(resource) -> Any:
        """A bind group entry's resource: a texture view as it is, a (buffer, offset,
        bytes) range as a buffer binding."""
        if not isinstance(resource, tuple):
            return resource
        buffer, offset, size = resource
        return {"buffer": buffer, "offset": offset, "size": size}

    def _copy_back(self, back: list) -> None:
        """Copy each private binding, and each texture the kernel writes, back into
        its view (``_step_groups``, ``_textures_in``)."""
        if not back:
            return
        encoder = self._device.create_command_encoder()
        for copy in back:
            if copy[0] == "texture":
                _, texture, slab, offset, width, height, slot = copy
                for start, row_bytes, row, rows in texture_copies(
                    offset, width, height, slot.format.texel_bytes
                ):
                    encoder.copy_texture_to_buffer(
                        {"texture": texture, "origin": (0, row, 0)},
                        {"buffer": slab, "offset": start, "bytes_per_row": row_bytes},
                        (width, rows, 1),
                    )
                continue
            own, slab, offset, size = copy
            encoder.copy_buffer_to_buffer(own, 0, slab, offset, size)
        self._submit(encoder.finish())

    def _group_entries_for(
        self, compiled: _Pipeline, views: tuple[BufferView, ...], group: int, textures: dict
    ) -> list[dict]:
        """The entries of bind group ``group`` over ``views`` (a texture binding's
        view in ``textures``, by buffer index)."""
        alignment = self._allocator.alignment
        return [
            {
                "binding": binding,
                "resource": textures[i]
                if i in textures
                else {
                    "buffer": self._checked_slab(view),
                    "offset": view.offset,
                    "size": binding_size(view, granule, alignment),
                },
            }
            for i, (view, (at, binding), granule) in enumerate(
                zip(views, compiled.bindings, compiled.granules)
            )
            if at == group
        ] + _sampler_entries(compiled, group)

    @staticmethod
    def _encode(
        encoder,
        compiled: _Pipeline,
        groups: list[tuple],
        steps,
        repeat: int = 1,
        timestamp_writes: dict | None = None,
    ) -> None:
        """One compute pass running the kernel's launches in order, ``repeat`` times
        (WebGPU orders dispatches of a pass: each sees the writes of the ones before),
        each with its bind groups (``_step_groups``)."""
        compute = encoder.begin_compute_pass(timestamp_writes=timestamp_writes)
        current = None
        for _ in range(repeat):
            for pipeline, step, step_groups in zip(compiled.pipelines, steps, groups):
                if step_groups is not current:
                    for index, group in enumerate(step_groups):
                        compute.set_bind_group(index, group)
                    current = step_groups
                compute.set_pipeline(pipeline)
                compute.dispatch_workgroups(*step.workgroups)
        compute.end()

    def _enqueue(self, compiled: _Pipeline, launch: Launch) -> None:
        groups, back = self._step_groups(compiled, launch)
        with translate_errors(f"dispatching kernel {launch.kernel.id}"):
            encoder = self._device.create_command_encoder()
            self._encode(encoder, compiled, groups, launch.steps)
            self._submit(encoder.finish())
            self._copy_back(back)

    def _launch(self, compiled: _Pipeline, launch: Launch, warmups: int, samples: int) -> list[int]:
        groups, back = self._step_groups(compiled, launch)
        with translate_errors(f"running kernel {launch.kernel.id}"):
            if self._timestamps:
                times = self._timed_on_device(compiled, groups, launch.steps, warmups, samples)
            else:
                times = self._timed_on_host(compiled, groups, launch.steps, warmups, samples)
            self._copy_back(back)
            return times

    def _timed_on_device(self, compiled, groups, steps, warmups, samples) -> list[int]:
        """Warmups in one untimed pass, then one timestamped pass per sample. Passes go
        out ``_SUBMIT_EVERY`` at a time so the device runs while the host encodes; the
        ticks of up to ``_MAX_BATCH`` samples are resolved and read back at once."""
        ts = self._ts
        assert ts is not None  # made when the device has timestamp queries (self._timestamps)
        times: list[int] = []
        encoder = self._device.create_command_encoder()
        if warmups:
            self._encode(encoder, compiled, groups, steps, repeat=warmups)
        while len(times) < samples:
            batch = min(samples - len(times), _MAX_BATCH)
            for i in range(batch):
                self._encode(encoder, compiled, groups, steps, timestamp_writes=ts.writes[i])
                if i % _SUBMIT_EVERY == _SUBMIT_EVERY - 1 and i != batch - 1:
                    self._submit(encoder.finish())
                    encoder = self._device.create_command_encoder()
            encoder.resolve_query_set(ts.query_set, 0, 2 * batch, ts.resolve, 0)
            encoder.copy_buffer_to_buffer(ts.resolve, 0, ts.staging, 0, 16 * batch)
            self._submit(encoder.finish())
            ticks = ts.ticks[: 2 * batch]
            self._map_into(ts.staging, 16 * batch, ticks.data.cast("B"))
            times.extend(self._ticks_to_ns(ticks))
            if len(times) < samples:
                encoder = self._device.create_command_encoder()
        return times

    def _ticks_to_ns(self, ticks: np.ndarray) -> list[int]:
        """Per-pass nanoseconds from (begin, end) tick pairs."""
        return durations_ns(ticks[0::2], ticks[1::2], self._period_ns)

    def _timed_on_host(self, compiled, groups, steps, warmups, samples) -> list[int]:
        """Host clock around encode, submit and completion of each sample."""
        if warmups:
            encoder = self._device.create_command_encoder()
            self._encode(encoder, compiled, groups, steps, repeat=warmups)
            self._submit(encoder.finish())
            self._complete_through(self._last_index)
        times = []
        for _ in range(samples):
            start = time.perf_counter_ns()
            encoder = self._device.create_command_encoder()
            self._encode(encoder, compiled, groups, steps)
            self._submit(encoder.finish())
            self._complete_through(self._last_index)
            times.append(max(1, time.perf_counter_ns() - start))
        return times


def _sampler_entries(compiled: _Pipeline, group: int, skip: frozenset = frozenset()) -> list[dict]:
    """The bind group entries of the samplers in group ``group`` (made at compile),
    less those at the (group, binding)s in ``skip``."""
    return [
        {"binding": binding, "resource": sampler}
        for (at, binding), sampler in compiled.samplers
        if at == group and (at, binding) not in skip
    ]


def _snake(name: str) -> str:
    """A WebGPU descriptor field's name as wgpu-py spells it (``addressModeU``:
    ``address_mode_u``)."""
    return re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), name)

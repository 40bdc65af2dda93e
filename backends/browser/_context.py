"""``BrowserComputeContext``: the OracleContext contract on WebGPU inside headless
Chromium (Dawn runs the device, Tint compiles the WGSL), built on ``SlabContext``.

It mirrors the wgpu backend, and shares its rules (``backends._webgpu``): each slab of
the topology is one GPU buffer (read-only and uniform views in one, read-write views in
another, resident views in a third); bind groups bind explicit (offset, size) ranges
through explicit layouts whose binding types follow each buffer's access; samples are
timed with compute-pass timestamp writes when the device has ``timestamp-query`` and
its timestamps are not quantized, else on the host clock (in the page, around submit
and completion). All of it is decided here: the page (``kforge.js``) only carries out
WebGPU primitives (``_page.Page``). Texture bindings (``BufferSpec(texture=...)``) are
textures made on the page and filled from their views by copies in the run's encoder
before its passes (a writable storage texture copied back after them), as on wgpu:
timed samples are the passes alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import metadata
from itertools import count
from typing import Any

from forge.allocator import SlabAllocator
from forge.errors import ForgeError
from forge.sources import wgsl_with_subgroups_enabled
from forge.types import AdapterConstraints, AdapterIdentity, BufferView, MemoryTopology

from .._base import Launch, SlabContext
from .._webgpu import (
    TextureSlot,
    align4,
    binding_granules,
    binding_size,
    check_options,
    check_view,
    constraints_from_limits,
    durations_ns,
    entry_point_said,
    kebab_limits,
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
from ._chromium import in_browser
from ._page import INLINE_LIMIT, PART, Command, Page

__all__ = ["BrowserComputeContext"]

_FEATURES = ("shader-f16", "subgroups", "timestamp-query")
_MAX_BATCH = 256  # timed samples per readback (two queries each)
_SUBMIT_EVERY = 16  # timed passes per submit
_BIND_GROUP_CACHE = 64  # bind-group sets kept per pipeline
_SLAB_USAGE = ("storage", "copy-src", "copy-dst")
# Timestamps all on multiples of this many nanoseconds are taken as quantized.
_QUANTUM_NS = 1024


@dataclass
class _Pipeline:
    """A compiled kernel on the page: its pipelines' ids (one per launch, with layouts
    made from one descriptor, so one set of bind groups serves them all, less the
    variables only other entry points of the module use: ``unused``), the (group,
    binding) of each buffer in view order, and the ids of the bind groups made for the
    view sets it ran on."""

    ids: tuple[str, ...]
    bindings: tuple[tuple[int, int], ...]
    groups: int
    granules: tuple[int, ...]  # bytes of the element each binding is declared as
    # the access each (group, binding) is laid out with (``slot_accesses``)
    slots: tuple = ()
    bind_groups: dict = field(default_factory=dict)
    # (buffer index, bytes): the buffer of its own a ping-pong buffer is bound through
    private: dict = field(default_factory=dict)
    # a launch's own uniform buffer (``Step.fields``): its bind group ids, the buffer,
    # the buffer its fields are copied from, and their (offset, length) ranges
    launch_fields: dict = field(default_factory=dict)
    # per buffer, the texture it is bound as (``texture_slots``; None: a buffer)
    textures: tuple = ()
    # ((group, binding), id) of each sampler the kernel declares, made at compile
    samplers: tuple = ()
    # (buffer index, width, height): the id of the texture made for it
    texture_objects: dict = field(default_factory=dict)
    # per launch, the (group, binding)s it leaves out (``step_unused``)
    unused: tuple = ()


class BrowserComputeContext(SlabContext):
    """WebGPU compute in headless Chromium; see the module docstring.

    ``power_preference`` goes to ``requestAdapter``; ``timestamps=False`` forces
    host-clock timing; ``topology`` overrides the usage split
    (``MemoryTopology.split_by_usage()`` by default).
    """

    backend_name = "browser"
    target = "wgsl"
    sets_launch_fields = True

    def __init__(
        self,
        capacity_bytes: int = 64 << 20,
        *,
        power_preference: str = "high-performance",
        timestamps: bool = True,
        topology: MemoryTopology | None = None,
    ) -> None:
        capacity_bytes = self._checked_capacity(capacity_bytes)
        check_options(power_preference, timestamps, topology)
        features = [f for f in _FEATURES if timestamps or f != "timestamp-query"]
        self._page = Page({"powerPreference": power_preference, "features": features})
        # Each reply is awaited as long as the running call's bound allows (its own
        # timeout_s, else the context's), like every other backend's waits.
        self._page.bound = lambda: self._wait_bound
        try:
            info = self._page.info
            self._limits = kebab_limits(info["limits"])
            alignment = max(
                4,
                self._limits["min-storage-buffer-offset-alignment"],
                self._limits["min-uniform-buffer-offset-alignment"],
            )
            super().__init__(
                SlabAllocator(
                    capacity_bytes, alignment, topology or MemoryTopology.split_by_usage()
                )
            )
            self._adapter = self._identity(info, self._page.browser_version)
            self._constraints = self._read_constraints(info)
            self._ids = count()
            self._settled = True  # every submission so far is known complete
            self._staging: tuple[str, int] | None = None
            self._slabs = self._create_slabs()
            self._timestamps = self._create_timestamp_resources()
            self._page.flush()  # the buffers exist (or their errors are raised) from here
            self._declare_measured_semantics()
        except BaseException:
            self._page.close()
            raise

    # -- identity ------------------------------------------------------------------
    @staticmethod
    def _identity(info: dict, browser_version: str) -> AdapterIdentity:
        adapter = info["info"]
        name = (
            adapter.get("device")
            or adapter.get("description")
            or f"{adapter.get('vendor', '')} {adapter.get('architecture', '')}".strip()
            or "unknown"
        )
        return AdapterIdentity(
            name=name,
            vendor_id=0,
            device_id=0,
            device_type="CPU" if adapter.get("isFallbackAdapter") else "GPU",
            backend="WebGPU (Dawn)",
            driver=adapter.get("vendor") or "unknown",
            driver_info=f"{adapter.get('description') or 'no driver info'}; Chromium "
            f"{browser_version}; Playwright {metadata.version('playwright')}",
            architecture=adapter.get("architecture") or "",
        )

    def _read_constraints(self, info: dict) -> AdapterConstraints:
        features = set(info["features"])
        low, high = info["info"].get("subgroupMinSize"), info["info"].get("subgroupMaxSize")
        return constraints_from_limits(
            self._limits,
            subgroups="subgroups" in features,
            subgroup_size=(low, high) if low and high and 0 < low <= high else None,
            shader_f16="shader-f16" in features,
            shader_f64=False,
            cooperative_matrix=False,
            timestamp_query="timestamp-query" in features,
        )

    @property
    def timing_source(self) -> str:
        return "gpu-timestamp" if self._timestamps is not None else "host-wall-clock"

    def in_page(self, function):
        """``function(page)`` on the Playwright page the device lives in (on Playwright's
        thread), for fault-injection tests: ``ctx.in_page(lambda p: p.evaluate(js))``;
        the page's script is ``window.kforge`` (its device: ``kforge.device``)."""
        self._check_usable()
        tab = self._page.tab
        return in_browser(function, tab)

    # -- resources -----------------------------------------------------------------
    def _new_id(self, kind: str) -> str:
        return f"{kind}{next(self._ids)}"

    def _buffer(self, size: int, usage, what: str) -> str:
        """A new GPU buffer's id; created with the next message (its errors come then)."""
        buffer = self._new_id("buffer")
        self._page.defer(
            Command(
                "createBuffer",
                {"id": buffer, "size": size, "usage": list(usage)},
                f"creating {what} of {size} bytes",
            )
        )
        return buffer

    def _create_slabs(self) -> list[tuple[str, int]]:
        """(id, size) of each slab's buffer."""
        slabs = []
        for i, (size, uniform) in enumerate(
            slab_sizes(self._allocator, self._constraints.max_buffer_size)
        ):
            usage = _SLAB_USAGE + (("uniform",) if uniform else ())
            name = self._allocator.topology.slabs[i].name
            slabs.append((self._buffer(size, usage, f"slab {name!r}"), size))
        return slabs

    def _create_timestamp_resources(self) -> dict | None:
        """The query set, resolve and readback buffers of timed runs, or None where the
        device has no timestamp queries or quantizes them."""
        if not self._constraints.timestamp_query:
            return None
        queries = self._new_id("queries")
        self._page.defer(
            Command(
                "createQuerySet",
                {"id": queries, "count": 2 * _MAX_BATCH},
                "creating timestamp queries",
            )
        )
        timestamps = {
            "queries": queries,
            "submitEvery": _SUBMIT_EVERY,
            "resolve": self._buffer(
                16 * _MAX_BATCH, ("query-resolve", "copy-src"), "a timestamp resolve buffer"
            ),
            "staging": self._buffer(
                16 * _MAX_BATCH, ("map-read", "copy-dst"), "a timestamp readback buffer"
            ),
        }
        begin, end = self._timed_run(timestamps, [], 0, 8)
        if all(t % _QUANTUM_NS == 0 for t in (*begin, *end)):
            return None  # quantized: the host clock is the better timer
        return timestamps

    def _staging_for(self, span: int) -> str:
        """A MAP_READ buffer of at least ``span`` bytes (grown on demand)."""
        if self._staging is None or self._staging[1] < span:
            if self._staging is not None:
                self._page.defer(
                    Command("release", {"ids": [self._staging[0]]}, "releasing staging")
                )
            size = max(span, 1 << 20)
            buffer = self._buffer(size, ("map-read", "copy-dst"), "a readback buffer")
            self._staging = (buffer, size)
        return self._staging[0]

    def _release(self) -> None:
        self._page.close(reuse_tab=self._lost is None)

    # -- completion ----------------------------------------------------------------
    def _signal(self, fence: int) -> None:
        if self._settled:
            self._fences.complete(fence)

    def _wait(self, fence: int) -> None:
        if fence <= self._fences.done:
            return
        self._page.call(Command("wait", {}, "waiting for the device"))
        self._completed()

    def _completed(self) -> None:
        """Everything submitted so far is known to be complete."""
        self._fences.complete(self._fence)
        self._settled = True

    # -- bytes ---------------------------------------------------------------------
    def _checked_slab(self, view: BufferView) -> str:
        check_view(
            view, self._allocator.topology, self._constraints, [size for _, size in self._slabs]
        )
        return self._slabs[view.slab][0]

    def _write(self, view: BufferView, data: memoryview) -> None:
        buffer, size = self._checked_slab(view), data.nbytes
        keep_tail = bool(size % 4) and view.offset + size < view.end
        command = Command(
            "write",
            {
                "buffer": buffer,
                "offset": view.offset,
                "size": size,
                "keepTail": keep_tail,
                "staging": self._staging_for(4) if keep_tail else None,
            },
            f"writing {size} bytes to {view}",
            payload=data,
        )
        if size > INLINE_LIMIT:
            self._page.call(command)  # fetched from the server before this returns
        else:  # rides along with the next message
            command.payload = memoryview(bytes(data))  # the caller may reuse its buffer
            self._page.defer(command)

    def _read_into(self, view: BufferView, out: memoryview) -> None:
        buffer = self._checked_slab(view)
        # Inline readbacks are one part, those over HTTP parts of PART bytes.
        staging = self._staging_for(align4(min(out.nbytes, max(INLINE_LIMIT, PART))))
        self._page.call(
            Command(
                "read",
                {"buffer": buffer, "offset": view.offset, "size": out.nbytes, "staging": staging},
                f"reading {out.nbytes} bytes of {view}",
                sink=out,
            )
        )
        self._completed()  # the readback was queued after every submission

    # -- kernels -------------------------------------------------------------------
    def _compile(self, launch: Launch, source: str | None) -> _Pipeline:
        """A pipeline per launch (its entry point and override constants), each with
        the explicit layouts of the access the shader declares, less the variables
        only other entry points of the module use (``step_unused``)."""
        kernel = launch.kernel
        entries = [step.entry_point for step in launch.steps]
        textures = texture_slots(kernel, source, entries)
        slots = slot_accesses(kernel, source, launch.steps, launch.size)
        groups: list[list[Any]] = [
            [list(entry) for entry in group] for group in layout_groups(kernel, self._limits, slots)
        ]
        for spec, slot in zip(kernel.buffers, textures):
            if slot is not None:  # the layout entry of a texture binding, as JS spells it
                for entry in groups[spec.group]:
                    if entry[0] == spec.binding:
                        entry[1] = _texture_layout(slot)
        samplers = sampler_bindings(kernel, source, entries)
        groups = with_sampler_groups(
            groups,
            samplers,
            lambda spec: [spec.binding, {"sampler": {"type": sampler_layout_type(spec)}}],
        )
        made = []
        for sampler in samplers:
            made.append(((sampler.group, sampler.binding), self._new_id("sampler")))
            self._page.call(
                Command(
                    "createSampler",
                    {"id": made[-1][1], "descriptor": sampler_descriptor(sampler)},
                    f"making kernel {kernel.id}'s sampler {sampler.label}",
                )
            )
        ids = []
        unused = step_unused(source, launch.steps)
        for step, skip in zip(launch.steps, unused):
            ids.append(self._new_id("pipeline"))
            constants = {name: override_value(value) for name, value in step.overrides}
            self._page.call(
                Command(
                    "compile",
                    {
                        "id": ids[-1],
                        "label": f"{kernel.id}:{step.entry_point}",
                        "code": wgsl_with_subgroups_enabled(source or ""),
                        "entryPoint": step.entry_point,
                        "layouts": [
                            [e for e in group if (index, e[0]) not in skip]
                            for index, group in enumerate(groups)
                        ],
                        "constants": constants or None,
                    },
                    f"compiling kernel {kernel.id} under {launch.schedule}"
                    + entry_point_said(source, step),
                    source=source or "",
                )
            )
        return _Pipeline(
            tuple(ids),
            tuple((b.group, b.binding) for b in kernel.buffers),
            len(groups),
            binding_granules(kernel, source, launch.size),
            slots,
            textures=textures,
            samplers=tuple(made),
            unused=unused,
        )

    def _textures(self, compiled: _Pipeline, launch: Launch, copies: list, after: list) -> dict:
        """The ids of ``launch``'s textures, by buffer index (made once per buffer and
        extent, with the next message), with the copies that fill each from its view
        appended to ``copies`` (made before the passes, outside any timed one) and
        those back into the views of the textures the kernel writes to ``after``."""
        made: dict[int, str] = {}
        kernel = launch.kernel
        writers = texture_writers(launch.steps, compiled.textures)
        for i, (spec, slot, view) in enumerate(
            zip(kernel.buffers, compiled.textures, launch.views)
        ):
            if slot is None:
                continue
            width, height = texture_extent(kernel, spec, slot, view, launch.size, self._limits)
            texture = compiled.texture_objects.get((i, width, height))
            if texture is None:
                texture = compiled.texture_objects[(i, width, height)] = self._new_id("texture")
                # both bindings: a launch may bind it where another kind is declared,
                # where the format is a storage format (not r8uint)
                usage = ["copy-src", "copy-dst", "texture-binding"]
                if slot.format.storage:
                    usage.append("storage-binding")
                self._page.defer(
                    Command(
                        "createTexture",
                        {
                            "id": texture,
                            "width": width,
                            "height": height,
                            "format": slot.format.name,
                            "usage": usage,
                        },
                        f"making texture {spec.label} ({width} x {height} {slot.format.name})",
                    )
                )
            slab = self._checked_slab(view)
            for offset, row_bytes, row, rows in texture_copies(
                view.offset, width, height, slot.format.texel_bytes
            ):
                copy = [slab, offset, row_bytes, texture, row, width, rows]
                copies.append(["texture-in", *copy])
                if i in writers:
                    after.append(["texture-out", *copy])
            made[i] = texture
        return made

    def _bind_groups(
        self,
        compiled: _Pipeline,
        views: tuple[BufferView, ...],
        textures: dict | None = None,
        number: int = 0,
    ) -> list[str]:
        """The bind groups of launch ``number`` for ``views`` (cached per pipeline: the
        slabs never move; launches that bind the same variables share them), a texture
        binding's texture from ``textures``; new ones are made with the next message,
        the dispatch that uses them."""
        textures = textures or {}
        skip = compiled.unused[number]
        key = (
            tuple((v.slab, v.offset, v.length_bytes) for v in views),
            tuple(textures.values()),
            skip,
        )
        ids = compiled.bind_groups.get(key)
        if ids is not None:
            return ids
        entries = self._entries(compiled, views, textures, skip)
        ids = [self._bind_group_at(compiled, g, group, number) for g, group in enumerate(entries)]
        if len(compiled.bind_groups) >= _BIND_GROUP_CACHE:
            evicted = compiled.bind_groups.pop(next(iter(compiled.bind_groups)))
            self._page.defer(Command("release", {"ids": evicted}, "releasing bind groups"))
        compiled.bind_groups[key] = ids
        return ids

    def _entries(
        self,
        compiled: _Pipeline,
        views: tuple[BufferView, ...],
        textures: dict,
        skip: frozenset = frozenset(),
    ) -> list[list]:
        """Per group index, its entries over ``views``: [binding, buffer, offset, size],
        or [binding, texture] for a texture binding; none at the (group, binding)s in
        ``skip``."""
        entries: list[list] = [[] for _ in range(compiled.groups)]
        alignment = self._allocator.alignment
        for i, (view, (group, binding), granule) in enumerate(
            zip(views, compiled.bindings, compiled.granules)
        ):
            if (group, binding) in skip:
                continue
            if i in textures:
                entries[group].append([binding, textures[i]])
                continue
            buffer = self._checked_slab(view)
            size = binding_size(view, granule, alignment)
            entries[group].append([binding, buffer, view.offset, size])
        return _with_samplers(compiled, entries, skip)

    def _bind_group_at(
        self, compiled: _Pipeline, group: int, entries: list, number: int = 0
    ) -> str:
        """A new bind group ``group`` of launch ``number``'s layout over ``entries``
        (made with the next message)."""
        bind_group = self._new_id("group")
        pipeline = compiled.ids[number]
        self._page.defer(
            Command(
                "bindGroup",
                {"id": bind_group, "pipeline": pipeline, "group": group, "entries": entries},
                f"creating bind group {group} of {pipeline}",
            )
        )
        return bind_group

    def _items(self, compiled: _Pipeline, launch: Launch) -> tuple[list, list, list]:
        """The dispatch list of one run, [pipeline, bind groups, workgroups] per launch,
        the copies ([from, offset, to, offset, bytes]) the run makes first, and those it
        makes after. A launch that sets uniform fields of its own (``Step.fields``)
        binds its own uniform buffer, filled from the uniform view and then its fields
        (``launch_field_patch``); the launches of a kernel that moves buffers between
        variables (``Step.bindings``) bind each buffer where they say, one bound
        read-only in one launch and writable in another through a buffer of its own
        (``private_buffers``), filled from its view first and copied back after."""
        copies: list[list] = []
        after: list[list] = []
        textures = self._textures(compiled, launch, copies, after)
        shared: dict = {}  # the views' own groups, per set of variables left out
        for number, skip in enumerate(compiled.unused):
            if skip not in shared:
                shared[skip] = self._bind_groups(compiled, launch.views, textures, number)
        moved = any(step.bindings for step in launch.steps)
        resources: list[list] = []
        if moved or any(step.fields for step in launch.steps):
            resources = self._resources(compiled, launch, copies, after)
            for i, texture in textures.items():
                resources[i] = [texture]
        items = []
        for number, (pipeline, step) in enumerate(zip(compiled.ids, launch.steps)):
            step_groups = shared[compiled.unused[number]]
            if moved:
                step_groups = self._moved_groups(compiled, launch, number, resources)
            if step.fields:
                step_groups = self._field_groups(
                    compiled, launch, number, step_groups, copies, resources
                )
            items.append([pipeline, step_groups, list(step.workgroups)])
        return items, copies, after

    def _resources(
        self, compiled: _Pipeline, launch: Launch, copies: list, after: list
    ) -> list[list]:
        """[buffer, offset, bytes] bound for each kernel buffer: its view's range, or
        for a buffer ``private_buffers`` names, a buffer of its own, with the copies
        that fill it appended to ``copies`` and those back to ``after``."""
        alignment = self._allocator.alignment
        resources: list[list] = [
            [self._checked_slab(view), view.offset, binding_size(view, granule, alignment)]
            for view, granule in zip(launch.views, compiled.granules)
        ]
        for i in private_buffers(launch.steps, launch.accesses, compiled.slots):
            slab, offset, size = resources[i]
            assert isinstance(size, int)
            own = compiled.private.get((i, size))
            if own is None:
                label = launch.kernel.buffers[i].label
                own = compiled.private[(i, size)] = self._buffer(
                    size, _SLAB_USAGE, f"buffer {label}'s own binding"
                )
            copies.append([slab, offset, own, 0, size])
            after.append([own, 0, slab, offset, size])
            resources[i] = [own, 0, size]
        return resources

    def _slot_entries(
        self, compiled: _Pipeline, chosen: list[list], skip: frozenset = frozenset()
    ) -> list[list]:
        """Per group index, its entries [binding, buffer, offset, size] over ``chosen``,
        the [buffer, offset, bytes] bound at each kernel buffer's (group, binding),
        less those in ``skip``."""
        entries: list[list] = [[] for _ in range(compiled.groups)]
        for resource, (group, binding) in zip(chosen, compiled.bindings):
            if (group, binding) not in skip:
                entries[group].append([binding, *resource])  # [texture] for a texture
        return _with_samplers(compiled, entries, skip)

    def _moved_groups(
        self, compiled: _Pipeline, launch: Launch, number: int, resources: list[list]
    ) -> list[str]:
        """The bind groups of launch ``number`` of a kernel whose launches move buffers
        between variables (``Step.bindings``), over ``resources``."""
        step, skip = launch.steps[number], compiled.unused[number]
        chosen = [resources[i] for i in step_slots(step, len(resources))]
        key = ("moved", tuple(map(tuple, chosen)), skip)
        ids = compiled.bind_groups.get(key)
        if ids is None:
            entries = self._slot_entries(compiled, chosen, skip)
            ids = [
                self._bind_group_at(compiled, g, group, number) for g, group in enumerate(entries)
            ]
            if len(compiled.bind_groups) >= _BIND_GROUP_CACHE:
                evicted = compiled.bind_groups.pop(next(iter(compiled.bind_groups)))
                self._page.defer(Command("release", {"ids": evicted}, "releasing bind groups"))
            compiled.bind_groups[key] = ids
        return ids

    def _field_groups(
        self,
        compiled: _Pipeline,
        launch: Launch,
        number: int,
        groups: list[str],
        copies: list,
        resources: list[list],
    ) -> list[str]:
        """The bind groups of launch ``number``, which sets uniform fields of its own;
        appends the copies that fill its uniform buffer to ``copies``."""
        kernel, step = launch.kernel, launch.steps[number]
        assert kernel.uniform is not None  # only a uniform block has fields
        index = kernel.buffers.index(kernel.uniform)
        view, (group, binding) = launch.views[index], compiled.bindings[index]
        bound = binding_size(view, compiled.granules[index], self._allocator.alignment)
        chosen = [resources[i] for i in step_slots(step, len(resources))]
        key = (tuple(map(tuple, chosen)), number, step.fields)
        made = compiled.launch_fields.get(key)
        if made is None:
            data, ranges = launch_field_patch(kernel, step, bound)
            own = self._buffer(
                bound, ("uniform", "storage", "copy-dst"), "a launch's uniform block"
            )
            patch = self._buffer(bound, ("copy-src", "copy-dst"), "a launch's uniform fields")
            self._page.defer(
                Command(
                    "write",
                    {"buffer": patch, "offset": 0, "size": bound, "keepTail": False},
                    f"writing the uniform fields of {step.entry_point}",
                    payload=memoryview(data),
                )
            )
            entries = self._slot_entries(compiled, chosen, compiled.unused[number])[group]
            entries = [[binding, own, 0, bound] if e[0] == binding else e for e in entries]
            replaced = self._bind_group_at(compiled, group, entries, number)
            if len(compiled.launch_fields) >= _BIND_GROUP_CACHE:
                old = compiled.launch_fields.pop(next(iter(compiled.launch_fields)))
                self._page.defer(Command("release", {"ids": list(old[:3])}, "releasing buffers"))
            made = compiled.launch_fields[key] = (replaced, own, patch, ranges)
        replaced, own, patch, ranges = made
        copies.append([self._checked_slab(view), view.offset, own, 0, bound])
        copies.extend([patch, offset, own, offset, length] for offset, length in ranges)
        return groups[:group] + [replaced] + groups[group + 1 :]

    def _enqueue(self, compiled: _Pipeline, launch: Launch) -> None:
        items, copies, after = self._items(compiled, launch)
        self._settled = False
        self._page.call(
            Command(
                "run",
                {"items": items, "copies": copies, "after": after, "repeat": 1, "samples": 0},
                f"dispatching kernel {launch.kernel.id}",
            )
        )

    def _launch(self, compiled: _Pipeline, launch: Launch, warmups: int, samples: int) -> list[int]:
        items, copies, after = self._items(compiled, launch)
        what = f"running kernel {launch.kernel.id}"
        self._settled = False
        if self._timestamps is None:
            result = self._page.call(
                Command(
                    "run",
                    {
                        "items": items,
                        "copies": copies,
                        "after": after,
                        "repeat": warmups,
                        "samples": samples,
                        "timing": "host",
                    },
                    what,
                )
            )
            times = [max(1, round(ms * 1e6)) for ms in result["host"]]
        else:
            times = []
            while len(times) < samples:
                batch = min(samples - len(times), _MAX_BATCH)
                begin, end = self._timed_run(
                    self._timestamps, items, 0 if times else warmups, batch, what, copies, after
                )
                times += durations_ns(begin, end, 1.0)  # WebGPU timestamps are in ns
        self._completed()
        return times

    def _timed_run(
        self,
        timestamps: dict,
        items: list,
        warmups: int,
        samples: int,
        what: str = "timing an empty pass",
        copies: list | None = None,
        after: list | None = None,
    ) -> tuple[list[int], list[int]]:
        """Raw begin and end timestamps of ``samples`` timed passes of ``items`` (after
        ``copies`` and before ``after``: ``_items``)."""
        result = self._page.call(
            Command(
                "run",
                {
                    "items": items,
                    "copies": copies or [],
                    "after": after or [],
                    "repeat": warmups,
                    "samples": samples,
                    "timing": "device",
                    **timestamps,
                },
                what,
            )
        )
        return result["begin"], result["end"]


def _with_samplers(
    compiled: _Pipeline, entries: list[list], skip: frozenset = frozenset()
) -> list[list]:
    """``entries`` with [binding, sampler] of each sampler the kernel declares, but
    those at the (group, binding)s in ``skip``."""
    for (group, binding), sampler in compiled.samplers:
        if (group, binding) not in skip:
            entries[group].append([binding, sampler])
    return entries


def _texture_layout(slot: TextureSlot) -> dict:
    """A texture binding's bind group layout entry, as kforge.js's ``compile`` takes it
    (WebGPU's JavaScript spelling)."""
    if slot.storage:
        return {
            "storageTexture": {
                "access": slot.access,
                "format": slot.format.name,
                "viewDimension": "2d",
            }
        }
    return {"texture": {"sampleType": slot.format.sample_type, "viewDimension": "2d"}}


def probe() -> tuple[bool, str]:
    """Whether a page of the shared Chromium gets a WebGPU device, and which (for the
    registry's availability question)."""
    try:
        page = Page({"powerPreference": "high-performance", "features": []})
    except ForgeError as exc:
        return False, str(exc)
    try:
        identity = BrowserComputeContext._identity(page.info, page.browser_version)
    finally:
        page.close(reuse_tab=True)  # the first context opens faster on it
    return (
        True,
        f"{identity.name}, {identity.backend}, {identity.device_type}, "
        f"Chromium {page.browser_version}",
    )

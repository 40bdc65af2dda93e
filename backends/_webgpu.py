"""WebGPU's rules, shared by the backends that speak it: ``wgpu`` (wgpu-py, naga) and
``browser`` (Chromium, Dawn and Tint).

Pure Python over plain values (limit names, view ranges, timestamp pairs): nothing
here imports wgpu or playwright. Each backend turns what these functions decide into
its own API calls, so that a rule (which binding type an access gets, how many bytes a
view binds, which view ranges are refused) changes in one place for both.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from forge import _checks
from forge._bindings import uniform_field_bytes
from forge.allocator import SlabAllocator
from forge.errors import (
    AllocationError,
    CompileError,
    GpuValidation,
    InvalidArgument,
    UnsupportedFeature,
)
from forge.kernel import Access, KernelSpec, Step
from forge.sources import (
    WgslBinding,
    strip_comments,
    wgsl_bindings,
    wgsl_entry_points,
    wgsl_handle_bindings,
    wgsl_static_uses,
    wgsl_unused_bindings,
)
from forge.textures import FORMATS, SamplerSpec, TextureFormat
from forge.types import AdapterConstraints, BindingUsage, BufferView, MemoryTopology

__all__ = [
    "BINDING_TYPES",
    "kebab_limits",
    "constraints_from_limits",
    "layout_groups",
    "slab_sizes",
    "binding_granules",
    "binding_size",
    "check_view",
    "durations_ns",
    "align4",
    "override_value",
    "check_options",
    "binding_problem",
    "launch_field_patch",
    "slot_accesses",
    "step_slots",
    "step_unused",
    "entry_point_said",
    "private_buffers",
    "TextureSlot",
    "texture_slots",
    "sampler_bindings",
    "sampler_descriptor",
    "sampler_layout_type",
    "with_sampler_groups",
    "TEXTURES_SUPPORTED",
    "texture_copies",
    "texture_extent",
    "texture_writers",
]

#: The bind group layout's buffer binding type for each access of a kernel buffer.
BINDING_TYPES = {
    Access.READ: "read-only-storage",
    Access.READ_WRITE: "storage",
    Access.UNIFORM: "uniform",
}


def align4(n: int) -> int:
    """``n`` rounded up to whole 4-byte words (WebGPU copies and bindings move words)."""
    return (n + 3) & ~3


def override_value(value: object) -> float:
    """A pipeline-overridable constant as WebGPU takes it (a double; bools as 0/1)."""
    if isinstance(value, (bool, np.bool_)):
        return float(bool(value))
    if not isinstance(value, (int, float, np.integer, np.floating)):
        raise InvalidArgument(f"an override constant is a number or a bool, got {value!r}")
    return float(value)


def check_options(power_preference: object, timestamps: object, topology: object) -> None:
    """Refuse a WebGPU context's options before anything is opened: the adapter's
    ``power_preference``, ``timestamps`` (a bool) and ``topology`` (None or a
    ``MemoryTopology``)."""
    if not isinstance(power_preference, str) or power_preference not in (
        "high-performance",
        "low-power",
    ):
        raise InvalidArgument(
            f"power_preference must be 'high-performance' or 'low-power', got {power_preference!r}"
        )
    if not isinstance(timestamps, (bool, np.bool_)):
        raise InvalidArgument(f"timestamps must be True or False, got {_checks.shown(timestamps)}")
    if topology is not None and not isinstance(topology, MemoryTopology):
        raise InvalidArgument(f"topology must be a MemoryTopology, got {_checks.shown(topology)}")


def kebab_limits(limits: Mapping[str, int]) -> dict[str, int]:
    """The JavaScript spelling of limit names (``maxBufferSize``) in the spelling
    wgpu-py uses (``max-buffer-size``), so that one reader serves both."""
    return {
        re.sub(r"[A-Z]", lambda m: "-" + m.group(0).lower(), name): value
        for name, value in limits.items()
    }


def constraints_from_limits(
    limits: Mapping[str, int],
    *,
    subgroups: bool,
    subgroup_size: tuple[int, int] | None,
    shader_f16: bool,
    shader_f64: bool,
    cooperative_matrix: bool,
    timestamp_query: bool,
) -> AdapterConstraints:
    """``AdapterConstraints`` from a WebGPU device's limits (wgpu-py's kebab-case
    names) and the optional features it was given."""
    return AdapterConstraints(
        max_workgroup_size=(
            limits["max-compute-workgroup-size-x"],
            limits["max-compute-workgroup-size-y"],
            limits["max-compute-workgroup-size-z"],
        ),
        max_invocations_per_workgroup=limits["max-compute-invocations-per-workgroup"],
        max_workgroups_per_dimension=(limits["max-compute-workgroups-per-dimension"],) * 3,
        max_workgroup_storage_bytes=limits["max-compute-workgroup-storage-size"],
        max_storage_binding_size=limits["max-storage-buffer-binding-size"],
        max_buffer_size=limits["max-buffer-size"],
        min_storage_offset_alignment=limits["min-storage-buffer-offset-alignment"],
        min_uniform_offset_alignment=limits["min-uniform-buffer-offset-alignment"],
        max_uniform_binding_size=limits["max-uniform-buffer-binding-size"],
        max_bindings_per_group=limits["max-bindings-per-bind-group"],
        subgroups=subgroups,
        subgroup_size=subgroup_size if subgroups else None,
        shader_f16=shader_f16,
        shader_f64=shader_f64,
        cooperative_matrix=cooperative_matrix,
        timestamp_query=timestamp_query,
        # WGSL spec, 15.7.2 "Differences from IEEE-754"
        # (https://www.w3.org/TR/WGSL/#differences-from-ieee754): inputs and outputs
        # of float operations may be flushed to zero, and implementations may assume
        # overflow, infinities and NaNs are not present (the result is then an
        # indeterminate value). Declared until the context's probe has measured what
        # this adapter does (backends/_probe.py): lavapipe does neither.
        subnormals_may_flush=True,
        nonfinite_indeterminate=True,
    )


def layout_groups(
    kernel: KernelSpec, limits: Mapping[str, int], accesses: Sequence[Access] | None = None
) -> list[list[tuple[int, str]]]:
    """The explicit bind group layouts of ``kernel``: per group index, its (binding,
    binding type) entries, each buffer typed by ``accesses`` (what the shader declares;
    default the spec's). Refuses layouts over the device's limits (kebab-case names)
    before the device sees them."""
    count = max((b.group for b in kernel.buffers), default=-1) + 1
    if count > limits["max-bind-groups"]:
        raise UnsupportedFeature(
            f"kernel {kernel.id} uses {count} bind groups; the "
            f"device allows {limits['max-bind-groups']}"
        )
    uniforms = sum(b.access is Access.UNIFORM for b in kernel.buffers)
    textures = sum(b.texture is not None for b in kernel.buffers)
    storage = len(kernel.buffers) - uniforms - textures
    if storage > limits["max-storage-buffers-per-shader-stage"]:
        raise UnsupportedFeature(
            f"kernel {kernel.id} binds {storage} storage buffers; the device allows "
            f"{limits['max-storage-buffers-per-shader-stage']} per shader stage"
        )
    for storage_texture, limit in (
        (False, "max-sampled-textures-per-shader-stage"),
        (True, "max-storage-textures-per-shader-stage"),
    ):
        found = sum(
            b.texture is not None and (b.access is Access.READ_WRITE) is storage_texture
            for b in kernel.buffers
        )
        if limit in limits and found > limits[limit]:
            raise UnsupportedFeature(
                f"kernel {kernel.id} binds {found} {'storage' if storage_texture else 'sampled'} "
                f"textures (counting each writable one as storage); the device allows "
                f"{limits[limit]} per shader stage"
            )
    groups: list[list[tuple[int, str]]] = [[] for _ in range(count)]
    for spec, access in zip(kernel.buffers, accesses or [b.access for b in kernel.buffers]):
        kind = "read-only-storage" if spec.storage_layout else BINDING_TYPES[access]
        groups[spec.group].append((spec.binding, kind))
    return groups


def slab_sizes(allocator: SlabAllocator, max_buffer_size: int) -> list[tuple[int, bool]]:
    """(bytes, whether it backs uniform views) of each slab's buffer, refusing a slab
    over the adapter's largest buffer before anything is created."""
    sizes = []
    for i, layout in enumerate(allocator.topology.slabs):
        size = allocator.slab_capacity(i)
        if size > max_buffer_size:
            raise AllocationError(
                f"slab {layout.name!r} needs {size} bytes, over the adapter's "
                f"max_buffer_size of {max_buffer_size}; ask for a smaller capacity"
            )
        sizes.append((size, BindingUsage.UNIFORM in layout.usages))
    return sizes


def binding_size(view: BufferView, granule: int = 4, alignment: int = 4) -> int:
    """Bytes bound for ``view``: exactly its bytes, rounded up to whole 4-byte words as
    WebGPU requires, so that a shader's ``arrayLength`` counts the view's elements.
    Where the shader declares the buffer as an array of wider elements than its own
    (``array<vec4<f32>>`` over f32: a ``granule`` of 16 bytes), rounded up to whole
    ones, so that the last, partial vector lies inside the binding: Dawn and naga
    without robust buffer access clamp an index into the binding, and a kernel's
    component access to that vector would read and write the last whole one instead
    (the browser backend did, 2026-12-04). It stays inside the view's own footprint:
    every view starts on ``alignment``, so the bytes up to the next multiple of it are
    no other view's. (The oracle gives such buffers whole vectors already:
    ``KernelSpec.binding_granules``.)"""
    exact = align4(view.length_bytes)
    whole = -(-view.length_bytes // granule) * granule
    footprint = -(-view.length_bytes // alignment) * alignment
    return whole if exact < whole <= footprint else exact


def launch_field_patch(
    kernel: KernelSpec, step: Step, bound: int
) -> tuple[bytes, tuple[tuple[int, int], ...]]:
    """How a launch that sets uniform fields of its own (``Step.fields``) gets them:
    its own uniform buffer of ``bound`` bytes, a copy of the kernel's uniform view
    made before the run, then the ``(offset, length)`` ranges of the returned bytes
    copied over it (WebGPU copies whole words: a field of 2 bytes is refused)."""
    data = bytearray(bound)
    ranges = []
    for (name, _), (offset, raw) in zip(
        step.fields, uniform_field_bytes(kernel, step.fields, "wgsl")
    ):
        if offset % 4 or len(raw) % 4:
            raise UnsupportedFeature(
                f"kernel {kernel.id}: the launch of {step.entry_point} sets uniform field "
                f"{name} of {len(raw)} bytes at offset {offset}; WebGPU copies whole 4-byte "
                "words, so a launch sets only fields of whole words"
            )
        data[offset : offset + len(raw)] = raw
        ranges.append((offset, len(raw)))
    return bytes(data), tuple(ranges)


def slot_accesses(kernel: KernelSpec, source: str | None, steps: Sequence[Step], size: Any):
    """The access each (group, binding) of ``kernel``'s bind group layouts has: where
    its launches bind buffers to other variables than their own (``Step.bindings``),
    what the shader declares there, whichever buffer a launch binds; else each buffer's
    access as bound (``KernelSpec.access_on``)."""
    moved = any(step.bindings for step in steps)
    return kernel.access_on("wgsl", source, size, slots=moved)


def step_slots(step: Step, count: int) -> tuple[int, ...]:
    """Per (group, binding) of the kernel's ``count`` buffers, the index of the buffer
    ``step`` binds there."""
    return step.bindings or tuple(range(count))


def step_unused(source: str | None, steps: Sequence[Step]) -> tuple[frozenset, ...]:
    """Per launch, the (group, binding)s its pipeline's bind group layouts and bind
    groups leave out: those where the module declares a variable another of its entry
    points statically accesses and the launch's does not
    (``forge.sources.wgsl_unused_bindings``), as a host that makes each entry point's
    pipeline with ``layout: "auto"``, or a layout of its own, binds only what that
    entry point uses. Empty for every launch of a module of one entry point."""
    if source is None:
        return (frozenset(),) * len(steps)
    return tuple(wgsl_unused_bindings(source, step.entry_point) for step in steps)


def entry_point_said(source: str | None, step: Step) -> str:
    """`` (entry point add)``, said after what a pipeline of ``step`` was being made
    for where the module has several entry points, so that an error about a binding
    names the one whose variables it is about; else ""."""
    if source is None or len(wgsl_entry_points(source)) < 2:
        return ""
    return f" (entry point {step.entry_point})"


def private_buffers(
    steps: Sequence[Step], accesses: Sequence[Access], slots: Sequence[Access]
) -> tuple[int, ...]:
    """The buffers that a kernel's launches bind read-only in one launch and writable
    in another (WGSL ping-pong, ``Step.bindings``), by index. The views of writable
    buffers share one slab, and WebGPU refuses a dispatch that binds one GPU buffer
    both writable and read-only, so each of these is bound through a buffer of its
    own, copied from its view before the launches and back into it after them (the
    copies lie outside the timed passes)."""
    if not any(step.bindings for step in steps):
        return ()
    count = len(accesses)
    found = {
        i
        for step in steps
        for j, i in enumerate(step_slots(step, count))
        if accesses[i] is Access.READ_WRITE and slots[j] is not Access.READ_WRITE
    }
    return tuple(sorted(found))


def binding_granules(kernel, source: str | None, size: Any = None) -> tuple[int, ...]:
    """Per buffer of ``kernel``, in bytes, the element its WGSL ``source`` declares the
    binding as (``binding_size``'s ``granule``; of every variable a launch binds it to)."""
    granules = kernel.binding_granules("wgsl", source, size)
    return tuple(
        count * spec.dtype_for("wgsl").itemsize for count, spec in zip(granules, kernel.buffers)
    )


def view_alignment(view: BufferView, constraints: AdapterConstraints) -> int:
    """The offset alignment the device requires of a binding of ``view``'s usage."""
    return max(
        4,
        constraints.min_uniform_offset_alignment
        if view.usage is BindingUsage.UNIFORM
        else constraints.min_storage_offset_alignment,
    )


def check_view(
    view: BufferView,
    topology: MemoryTopology,
    constraints: AdapterConstraints,
    slab_sizes: Sequence[int],
) -> None:
    """Refuse a view range that must never reach the device: of another slab than its
    usage's, empty (a zero-size binding aborts the process in wgpu-py 0.32),
    misaligned for the device's binding offsets, or reaching past the end of its slab."""
    alignment = view_alignment(view, constraints)
    if not 0 <= view.slab < len(slab_sizes) or topology.slab_index(view.usage) != view.slab:
        raise AllocationError(f"{view} does not belong to a slab of this context")
    if view.length_bytes <= 0:
        raise InvalidArgument(f"{view} is empty; WebGPU cannot bind or copy zero bytes")
    if view.offset % alignment or view.offset < 0:
        raise AllocationError(
            f"{view} is not aligned to {alignment} bytes, as the device "
            "requires of a binding's offset"
        )
    if view.offset + align4(view.length_bytes) > slab_sizes[view.slab]:
        raise AllocationError(
            f"{view} reaches past the end of its slab ({slab_sizes[view.slab]} bytes)"
        )


def durations_ns(
    begin: np.ndarray | Sequence[int], end: np.ndarray | Sequence[int], period_ns: float
) -> list[int]:
    """Per-pass nanoseconds from the begin and end timestamps (in ticks of
    ``period_ns``) of each pass. A pass at or below the timer's resolution reads as one
    tick: a zero would claim it took no time."""
    elapsed = np.asarray(end, np.int64) - np.asarray(begin, np.int64)
    if elapsed.min() < 0:
        raise GpuValidation(
            f"the device's timestamps ran backwards within a pass "
            f"({elapsed.min()} ticks); its timings cannot be trusted"
        )
    resolution = max(1, round(period_ns))
    return [max(resolution, round(t * period_ns)) for t in elapsed.tolist()]


# -- a pipeline refused over a binding ------------------------------------------------

#: Where naga/wgpu (``ResourceBinding { group: 0, binding: 2 }``) and Dawn (``the
#: entry-point's declaration for @group(0) @binding(2)``) name the binding a compute
#: pipeline was refused over, and where Dawn names only its group (``uses bindings in
#: group 2 but [PipelineLayout] doesn't have a BindGroupLayout``).
_REFUSED_BINDING = re.compile(
    r"ResourceBinding \{ group: (\d+), binding: (\d+) \}"
    r"|declaration for @group\((\d+)\) @binding\((\d+)\)"
)
_REFUSED_GROUP = re.compile(r"uses bindings in group (\d+) but .* doesn't have a BindGroupLayout")
#: How each says the pipeline layout has nothing at that binding.
_NOT_IN_LAYOUT = ("Binding is missing from the pipeline layout", "Binding doesn't exist")


def binding_problem(source: str, log: str, what: str) -> CompileError | UnsupportedFeature | None:
    """The error to raise, in the user's terms, where a compute pipeline was refused
    because of one of the WGSL's bindings (``log`` is the compiler's or validator's
    message; None where it is about something else):

    - a texture, storage texture or sampler: ``UnsupportedFeature``, saying what
      kernel-forge binds of them (``TEXTURES_SUPPORTED``; ``texture_slots`` refuses
      most such kernels before a pipeline is made);
    - a buffer the kernel's ``buffers`` do not declare (or declare otherwise): a
      ``CompileError`` naming the WGSL variable and what to declare, the log kept.
    """
    handles, buffers = wgsl_handle_bindings(source), wgsl_bindings(source)
    found, group = _REFUSED_BINDING.search(log), _REFUSED_GROUP.search(log)
    if found is not None:
        numbers = [int(n) for n in found.groups() if n is not None]
        at = (numbers[0], numbers[1])
        handles = tuple(b for b in handles if (b.group, b.binding) == at)
        buffers = tuple(b for b in buffers if (b.group, b.binding) == at)
        missing = any(phrase in log for phrase in _NOT_IN_LAYOUT)
    elif group is not None:  # none of the kernel's buffers is in that group
        handles = tuple(b for b in handles if b.group == int(group.group(1)))
        buffers = tuple(b for b in buffers if b.group == int(group.group(1)))
        missing = True
    else:
        return None
    if handles:
        named = "; ".join(
            f"`{b.name}: {b.type}` at @group({b.group}) @binding({b.binding})" for b in handles
        )
        return UnsupportedFeature(f"{what}: the WGSL binds {named}; {TEXTURES_SUPPORTED}")
    if not buffers:
        return None
    if missing:
        declare = ", ".join(
            f"BufferSpec({b.binding}, ..., {b.access!r}, name={b.name!r}"
            + (f", group={b.group})" if b.group else ")")
            for b in buffers
        )
        remedy = f"not among the kernel's buffers: declare {declare}"
    else:
        remedy = "not bound as the kernel's BufferSpec there declares (see the log)"
    named = ", ".join(f"`{b.name}` ({_declaration(b)})" for b in buffers)
    return CompileError(
        f"{what}: the WGSL's {named} {'is' if len(buffers) == 1 else 'are'} {remedy}",
        source=source,
        target="wgsl",
        log=log,
    )


# -- texture bindings -------------------------------------------------------------------

#: What kernel-forge binds of WGSL's textures, for the errors that refuse the rest.
TEXTURES_SUPPORTED = (
    "kernel-forge binds a 2D texture held in a buffer, BufferSpec(binding, access, "
    "name=..., texture=FORMAT, shape=(height, width)) with FORMAT one of "
    f"{', '.join(FORMATS)}: a `texture_2d<f32>` or `texture_2d<u32>` read with "
    "textureLoad and textureDimensions, and through a `sampler` the kernel declares "
    "(KernelSpec(samplers=(SamplerSpec(binding, Sampler(filter=..., address=...), "
    "name=...),)); a linear one only over the filterable rgba8unorm and rgba16float), "
    "and a `texture_storage_2d<FORMAT, write>` (also `read` and `read_write` where the "
    "adapter allows that format so); comparison samplers, depth, multisampled, external, "
    "1D, 3D, cube and array textures are not supported"
)

_SAMPLED = re.compile(r"^texture_2d\s*<\s*(\w+)\s*>$")
_STORAGE = re.compile(r"^texture_storage_2d\s*<\s*(\w+)\s*,\s*(\w+)\s*>$")
_STORAGE_ACCESS = {"write": "write-only", "read": "read-only", "read_write": "read-write"}
_SAMPLED_TYPES = {"f32": "f32", "u32": "u32"}
#: The formats WebGPU's core lets a storage texture be read_write (of those bound here).
_READ_WRITE_FORMATS = ("r32float", "r32uint")


@dataclasses.dataclass(frozen=True)
class TextureSlot:
    """How a texture binding is bound: ``storage`` (a ``texture_storage_2d``, its
    ``access`` as WebGPU spells it: ``write-only``, ``read-only``, ``read-write``) or
    sampled (``texture_2d<T>``, ``access`` None), of ``format``."""

    format: TextureFormat
    storage: bool
    access: str | None = None

    @property
    def writes(self) -> bool:
        """Whether the kernel may write it (copied back into its buffer after)."""
        return self.access in ("write-only", "read-write")


def _unaccessed(source: str, entries: Sequence[str] | None) -> frozenset[tuple[int, int]]:
    """The (group, binding)s of ``source``'s variables that none of the entry points
    ``entries`` (a kernel's launches') statically accesses (``wgsl_static_uses``): a
    host binds nothing there, so nothing need be declared. Empty where ``entries`` is
    None or one of them is not found."""
    if entries is None:
        return frozenset()
    uses: set[str] = set()
    for entry in entries:
        names = wgsl_static_uses(source, entry)
        if names is None:
            return frozenset()
        uses |= names
    return frozenset(
        (b.group, b.binding)
        for b in wgsl_bindings(source) + wgsl_handle_bindings(source)
        if b.name not in uses
    )


def texture_slots(
    kernel: KernelSpec, source: str | None, entries: Sequence[str] | None = None
) -> tuple[TextureSlot | None, ...]:
    """Per buffer of ``kernel``, the texture its WGSL binds there (None for a buffer),
    refusing what cannot be bound with a typed error that names it: a sampler or a kind
    of texture kernel-forge does not bind (``UnsupportedFeature``), a texture binding
    the WGSL declares otherwise, a texture the spec declares as a buffer, a format or
    access that differs (``InvalidArgument``). A texture or sampler the kernel does not
    declare and none of the launches' entry points ``entries`` statically accesses is
    no error: its host leaves it unbound, as does the backend."""
    if source is None:
        return (None,) * len(kernel.buffers)
    sampler_bindings(kernel, source, entries)
    unaccessed = _unaccessed(source, entries)
    handles = {
        (b.group, b.binding): b
        for b in wgsl_handle_bindings(source)
        if not b.type.startswith("sampler")
    }
    variables = {(b.group, b.binding): b for b in wgsl_bindings(source)}
    unbound = [
        b
        for at, b in handles.items()
        if not any((s.group, s.binding) == at for s in kernel.buffers) and at not in unaccessed
    ]
    for b in unbound:
        where = f"`{b.name}: {b.type}` at @group({b.group}) @binding({b.binding})"
        if b.type.startswith("sampler") or not b.type.startswith("texture_"):
            raise UnsupportedFeature(
                f"kernel {kernel.id}: the WGSL binds {where}; {TEXTURES_SUPPORTED}"
            )
        storage = _STORAGE.match(b.type)
        raise InvalidArgument(
            f"kernel {kernel.id}: the WGSL binds {where}, which is not among the kernel's "
            f"buffers: declare BufferSpec({b.binding}, "
            f"{'read' if storage is None or storage.group(2) == 'read' else 'read_write'!r}, "
            f"name={b.name!r}, texture={storage.group(1) if storage else 'rgba8unorm'!r}, "
            f"shape=(height, width){f', group={b.group}' if b.group else ''})"
        )
    slots: list[TextureSlot | None] = []
    for spec in kernel.buffers:
        at = (spec.group, spec.binding)
        handle, fmt = handles.get(at), spec.texture_format
        what = f"kernel {kernel.id}: buffer {spec.label} at @group({at[0]}) @binding({at[1]})"
        if handle is None:
            if fmt is not None:
                declared = variables.get(at)
                found = (
                    f"declares `{declared.name}` there as {_declaration(declared)}"
                    if declared is not None
                    else "declares nothing there"
                )
                raise InvalidArgument(
                    f"{what} is a {fmt.name} texture, but the WGSL {found}: declare it "
                    f"`texture_2d<{fmt.sampled}>` or `texture_storage_2d<{fmt.name}, ...>`, "
                    "or leave texture= out for a storage buffer"
                )
            slots.append(None)
            continue
        sampled, storage = _SAMPLED.match(handle.type), _STORAGE.match(handle.type)
        if sampled is None and storage is None:
            raise UnsupportedFeature(
                f"{what}: the WGSL binds `{handle.name}: {handle.type}`; {TEXTURES_SUPPORTED}"
            )
        if fmt is None:
            example = storage.group(1) if storage is not None else "rgba8unorm"
            access = "read" if storage is None or storage.group(2) == "read" else "read_write"
            raise InvalidArgument(
                f"{what}: the WGSL binds `{handle.name}: {handle.type}`, a texture, where the "
                f"kernel declares a buffer: declare BufferSpec({spec.binding}, {access!r}, "
                f"name={spec.name or handle.name!r}, texture={example!r}, shape=(height, "
                "width))"
            )
        if sampled is not None:
            if _SAMPLED_TYPES.get(sampled.group(1)) != fmt.sampled:
                raise InvalidArgument(
                    f"{what}: the WGSL reads `{handle.name}: {handle.type}`, but a {fmt.name} "
                    f"texture is read as texture_2d<{fmt.sampled}>"
                )
            if spec.access is not Access.READ:
                raise InvalidArgument(
                    f"{what}: a texture_2d is read-only; declare it access='read'"
                )
            slots.append(TextureSlot(fmt, False))
            continue
        assert storage is not None
        declared_format, access = storage.group(1), storage.group(2)
        if not fmt.storage:
            raise UnsupportedFeature(
                f"{what}: the WGSL declares `{handle.name}: {handle.type}`, but WebGPU's "
                f"core makes no storage texture of {fmt.name}: read it through a "
                f"texture_2d<{fmt.sampled}>"
            )
        if declared_format != fmt.name:
            raise InvalidArgument(
                f"{what}: the WGSL declares `{handle.name}: {handle.type}`, of format "
                f"{declared_format}, but the kernel's texture is {fmt.name}"
            )
        if access not in _STORAGE_ACCESS:
            raise InvalidArgument(f"{what}: unknown storage texture access {access!r}")
        if access == "read_write" and fmt.name not in _READ_WRITE_FORMATS:
            raise UnsupportedFeature(
                f"{what}: the WGSL declares `{handle.name}: {handle.type}`; a read_write "
                f"storage texture of {fmt.name} is unsupported, because WebGPU allows "
                f"read_write access only to {', '.join(_READ_WRITE_FORMATS)} (its "
                "texture format capabilities table; kernel-forge asks for no adapter-"
                "specific format features): read it through a texture_2d and write "
                "another texture"
            )
        want = Access.READ if access == "read" else Access.READ_WRITE
        if spec.access is not want:
            raise InvalidArgument(
                f"{what}: the WGSL's `{handle.name}` is a storage texture of access {access}; "
                f"declare it access={want.value!r}"
            )
        slots.append(TextureSlot(fmt, True, _STORAGE_ACCESS[access]))
    return tuple(slots)


#: A texture read through a sampler: ``textureSample*(t, s, ...)`` and
#: ``textureGather*([component,] t, s, ...)``: the first three arguments' words.
_SAMPLE_CALL = re.compile(
    r"\btexture(?:Sample|Gather)\w*\s*\(\s*([\w.]+)\s*,\s*([\w.]+)\s*,\s*([\w.]+)"
)


def sampler_bindings(
    kernel: KernelSpec, source: str | None, entries: Sequence[str] | None = None
) -> tuple[SamplerSpec, ...]:
    """The kernel's samplers (``KernelSpec.samplers``), checked against the WGSL: each
    ``var s: sampler`` it binds must be declared (an ``InvalidArgument`` naming the
    binding and the declaration to add; no default state is guessed), each declared one
    must be a sampler there, with normalised coordinates (WGSL's samplers take no
    others); a comparison sampler, and a linear sampler over a texture WebGPU's core
    does not filter (r32float, rgba32float: ``float32-filterable``), are
    ``UnsupportedFeature``. A sampler the kernel does not declare that none of the
    launches' entry points ``entries`` statically accesses is left unbound, as its
    host leaves it."""
    if source is None:
        return ()
    handles = wgsl_handle_bindings(source)
    declared = {(s.group, s.binding): s for s in kernel.samplers}
    unaccessed = _unaccessed(source, entries)
    found: dict[str, SamplerSpec] = {}
    for b in handles:
        if not b.type.startswith("sampler"):
            continue
        at = (b.group, b.binding)
        buffer = next((x for x in kernel.buffers if (x.group, x.binding) == at), None)
        if at in unaccessed and at not in declared and buffer is None:
            continue  # its host leaves it unbound, and so do the backends
        where = f"`{b.name}: {b.type}` at @group({b.group}) @binding({b.binding})"
        if b.type != "sampler":
            raise UnsupportedFeature(
                f"kernel {kernel.id}: the WGSL binds {where}; {TEXTURES_SUPPORTED}"
            )
        spec = declared.get(at)
        declaration = (
            f"samplers=(SamplerSpec({b.binding}, Sampler(filter='nearest' or 'linear', "
            f"address='clamp', 'repeat' or 'mirror'), name={b.name!r}"
            f"{f', group={b.group}' if b.group else ''}),) to its KernelSpec"
        )
        if spec is None and buffer is not None:
            raise InvalidArgument(
                f"kernel {kernel.id}: the WGSL binds {where}, which the kernel declares as "
                f"buffer {buffer.label}: a sampler holds no data; drop that BufferSpec and "
                f"add {declaration}"
            )
        if spec is None:
            raise InvalidArgument(
                f"kernel {kernel.id}: the WGSL binds {where}, a sampler the kernel does not "
                f"declare: add {declaration}, with the state its host code creates the "
                "sampler with"
            )
        found[b.name] = spec
    bound = {(h.group, h.binding): h for h in handles}
    for spec in kernel.samplers:
        at = (spec.group, spec.binding)
        what = f"kernel {kernel.id}: sampler {spec.label} at @group({at[0]}) @binding({at[1]})"
        handle = bound.get(at)
        if handle is None or handle.type != "sampler":
            there = f"`{handle.name}: {handle.type}`" if handle is not None else "nothing"
            raise InvalidArgument(f"{what}: the WGSL binds {there} there, not a `sampler`")
        if not spec.sampler.normalized:
            raise InvalidArgument(
                f"{what}: a WGSL sampler takes normalised coordinates; "
                "Sampler(normalized=False) is for a CUDA texture object"
            )
    textures = {
        h.name: b
        for h in handles
        for b in kernel.buffers
        if (b.group, b.binding) == (h.group, h.binding) and b.texture is not None
    }
    for first, second, third in _SAMPLE_CALL.findall(strip_comments(source)):
        texture, sampler = (first, second) if first in textures else (second, third)
        spec, buffer = found.get(sampler), textures.get(texture)
        fmt = buffer.texture_format if buffer is not None else None
        if spec is not None and fmt is not None and spec.sampler.linear and not fmt.filterable:
            raise UnsupportedFeature(
                f"kernel {kernel.id}: the WGSL samples `{texture}` ({fmt.name}) through the "
                f"linear sampler `{sampler}`, but WebGPU's core does not filter {fmt.name} "
                "(that needs the float32-filterable feature, which kernel-forge does not "
                "ask for): sample it with Sampler(filter='nearest'), or hold the image as "
                "rgba8unorm or rgba16float"
            )
    return tuple(kernel.samplers)


#: WebGPU's names of ``Sampler.address``.
_ADDRESS_MODES = {"clamp": "clamp-to-edge", "repeat": "repeat", "mirror": "mirror-repeat"}


def sampler_descriptor(spec: SamplerSpec) -> dict:
    """The sampler's ``GPUSamplerDescriptor`` fields, by their WebGPU (camelCase) names:
    the same address mode on every axis, one filter for magnification and
    minification, and no mipmaps."""
    mode, filter_ = _ADDRESS_MODES[spec.sampler.address], spec.sampler.filter
    return {
        "addressModeU": mode,
        "addressModeV": mode,
        "addressModeW": mode,
        "magFilter": filter_,
        "minFilter": filter_,
        "mipmapFilter": "nearest",
    }


def sampler_layout_type(spec: SamplerSpec) -> str:
    """The bind group layout's sampler binding type: a linear sampler ``filtering``, a
    nearest one ``non-filtering`` (which may read any float texture)."""
    return "filtering" if spec.sampler.linear else "non-filtering"


def with_sampler_groups(groups: list, samplers: Sequence[SamplerSpec], entry: Any) -> list:
    """``groups`` (per group index, its layout entries) with ``entry(spec)`` of each
    sampler appended to its group (groups added up to it)."""
    groups = [list(g) for g in groups]
    for spec in samplers:
        while len(groups) <= spec.group:
            groups.append([])
        groups[spec.group].append(entry(spec))
    return groups


def texture_extent(
    kernel: KernelSpec,
    spec,
    slot: TextureSlot,
    view: BufferView,
    size: Any,
    limits: Mapping[str, int],
) -> tuple[int, int]:
    """(width, height) of texture binding ``spec`` at ``size``, refused past the
    device's ``maxTextureDimension2D`` (kebab-case limit names), at zero, and where
    its ``view`` holds fewer bytes than its texels."""
    width, height = spec.texture_extent(size)
    need = width * height * slot.format.texel_bytes
    if view.length_bytes < need:
        raise InvalidArgument(
            f"kernel {kernel.id}: texture {spec.label} of {width} x {height} "
            f"{slot.format.name} texels needs {need} bytes, its view has {view.length_bytes}"
        )
    # wgpu-py's spelling, and ``kebab_limits``' of the browser's maxTextureDimension2D
    largest = limits.get("max-texture-dimension-2d", limits.get("max-texture-dimension2-d"))
    if largest is not None and max(width, height) > largest:
        raise UnsupportedFeature(
            f"texture {spec.label} is {width} x {height} texels; the device's textures are "
            f"at most {largest} texels a side (maxTextureDimension2D)"
        )
    return width, height


def texture_writers(steps: Sequence[Step], textures: Sequence[TextureSlot | None]) -> set[int]:
    """The buffers, by index, that some launch binds to a writable storage texture (at
    their own binding, or moved to another by ``Step.bindings``): copied back after."""
    count = len(textures)
    return {
        i
        for step in steps
        for j, i in enumerate(step_slots(step, count))
        if textures[j] is not None and textures[j].writes  # type: ignore[union-attr]
    }


def texture_copies(
    offset: int, width: int, height: int, texel_bytes: int
) -> list[tuple[int, int, int, int]]:
    """The copies between a buffer at ``offset`` holding ``height`` rows of ``width``
    tightly packed texels and a texture, as (buffer offset, bytes per row, first row,
    rows): one copy where a row is a multiple of 256 bytes, as WebGPU requires of
    ``bytesPerRow``, else one per row (a one-row copy's ``bytesPerRow`` need only be a
    multiple of 256 at least as long as the row; the row itself is read tightly)."""
    row = width * texel_bytes
    if row % 256 == 0:
        return [(offset, row, 0, height)]
    padded = -(-row // 256) * 256
    return [(offset + y * row, padded, y, 1) for y in range(height)]


def _declaration(binding: WgslBinding) -> str:
    space = "uniform" if binding.space == "uniform" else f"{binding.space}, {binding.access}"
    return f"@group({binding.group}) @binding({binding.binding}), var<{space}>"

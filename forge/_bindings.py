"""Bindings: how each of a kernel's buffers is bound on a target, what its bytes hold,
and the values of its uniform block and scalar parameters.

On a target, a buffer's binding follows what the source declares (WGSL: the access, an
``arrayLength`` read, an array of wider vectors than the element), its bytes follow the
target's layout (``forge.layout``: logical values in, the target's bytes out, and back),
and a view offered for it must sit at its (group, binding) with a fitting usage and
enough bytes. The uniform record and the scalars CUDA takes by value come from
``defaults``, ``params(size)`` and the size's dimensions. ``KernelSpec``'s methods of
the same names call these functions.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import layout as _layout
from . import sources as _sources
from . import textures as _textures
from .buffers import Access, BufferSpec, _field_problem
from .errors import ForgeError, InvalidArgument
from .expressions import resolve
from .types import BufferView

if TYPE_CHECKING:  # forge.kernel calls this module, never the other way round
    from .kernel import KernelSpec

__all__ = [
    "pointer_fields",
    "access_on",
    "length_read",
    "binding_granules",
    "scalar_values",
    "pack_uniform",
    "uniform_field_bytes",
    "launch_entry",
    "launch_slots",
    "bound_slots",
    "cuda_aliases",
    "buffer_bytes",
    "buffer_values",
    "check_buffers",
    "check_uniform_layout",
]


def access_on(
    kernel: KernelSpec,
    target: str | None,
    source: str | None,
    size: Any = None,
    slots: bool = False,
) -> tuple[Access, ...]:
    """Each buffer's access as bound on ``target``: what the WGSL source declares
    (an input declared ``read_write`` is bound writable; one declared ``var<uniform>``,
    a second uniform beside the spec's block, as WebGPU-Ocean's ``init_box_size`` and
    3D Gaussian splatting's camera matrices are bound, is bound as a uniform buffer),
    else the spec's. Where a launch binds buffers to other variables than their own
    (``Dispatch.bindings``: ping-pong), a buffer is bound writable where any launch
    binds it to a ``read_write`` variable, and ``slots=True`` gives instead the access
    of each buffer's own (group, binding), as the shader declares it: what the bind
    group layout says there, whichever buffer a launch binds."""
    accesses = [spec.access for spec in kernel.buffers]
    if target != "wgsl" or source is None:
        return tuple(accesses)
    declared = {(b.group, b.binding): b.access for b in _sources.wgsl_bindings(source)}
    shader = {"read": Access.READ, "read_write": Access.READ_WRITE, "uniform": Access.UNIFORM}
    bound = bound_slots(kernel, target, source, size)
    if bound is None:
        for i, spec in enumerate(kernel.buffers):
            found = shader.get(declared.get((spec.group, spec.binding), ""))
            if spec.access is Access.READ and found not in (None, Access.READ):
                accesses[i] = found
        return tuple(accesses)
    # launches that move buffers: each (group, binding) is what the shader declares
    declared_at = tuple(
        shader.get(declared.get((s.group, s.binding), ""), s.access) for s in kernel.buffers
    )
    if slots:
        return declared_at
    for i, spec in enumerate(kernel.buffers):
        if spec.access is Access.READ and declared_at[i] is Access.UNIFORM:
            accesses[i] = Access.UNIFORM  # an input declared var<uniform> (never moved)
        elif spec.access is Access.READ and any(
            declared_at[j] is Access.READ_WRITE for j in bound[i]
        ):
            accesses[i] = Access.READ_WRITE
    return tuple(accesses)


def length_read(
    kernel: KernelSpec, target: str | None, source: str | None, size: Any = None
) -> tuple[bool, ...]:
    """Per buffer, whether the kernel can read its binding's length (WGSL
    ``arrayLength``; a CUDA pointer carries none), through any variable a launch binds
    it to. A binding whose length the kernel cannot read may extend past the data into
    guard elements: it computes the same either way, and a write past the end lands
    where it can be seen."""
    if target != "wgsl" or source is None:
        return (False,) * len(kernel.buffers)
    names = {(b.group, b.binding): b.name for b in _sources.wgsl_bindings(source)}
    used = _sources.wgsl_array_lengths(source)
    at = tuple(names.get((s.group, s.binding)) in used for s in kernel.buffers)
    bound = bound_slots(kernel, target, source, size)
    if bound is None:
        return at
    return tuple(any(at[j] for j in slots) for slots in bound)


def binding_granules(
    kernel: KernelSpec, target: str | None, source: str | None, size: Any = None
) -> tuple[int, ...]:
    """Per buffer, how many elements the binding is rounded up to: more than one
    where a WGSL source declares the buffer as an array of a wider type than its
    element (``array<vec4<f32>>`` over ``f32``: 4), so that the last, partial
    vector lies inside the binding; the same where a struct wraps that array alone
    (``struct ArrayVector { data: array<vec4<f32>> }``, as wonnx and three.js's
    generated WGSL bind their buffers). A buffer that launches bind to several
    variables is rounded up to whole elements of each."""
    granules = [1] * len(kernel.buffers)
    if target != "wgsl" or source is None:
        return tuple(granules)
    declared = {(b.group, b.binding): b.type for b in _sources.wgsl_bindings(source)}
    structs = _sources.wgsl_structs(source)
    bound = bound_slots(kernel, target, source, size)
    for i, spec in enumerate(kernel.buffers):
        for j in bound[i] if bound is not None else (i,):
            slot = kernel.buffers[j]
            text = declared.get((slot.group, slot.binding), "")
            granules[i] = math.lcm(granules[i], _granule(spec, text, structs))
    return tuple(granules)


def _granule(
    spec: BufferSpec, text: str, structs: Mapping[str, tuple[_sources.WgslMember, ...]]
) -> int:
    """How many of ``spec``'s elements one element of the WGSL type ``text`` holds
    (1 unless it is an array of wider elements)."""
    if len(structs.get(text, ())) == 1:  # a struct that wraps the array alone
        text = structs[text][0].type
    match = re.match(r"^array\s*<\s*(.+?)\s*(?:,\s*\d+u?\s*)?>$", text)
    if spec.access is Access.UNIFORM or match is None:
        return 1
    inner = match.group(1)
    if inner.startswith("atomic"):
        inner = re.sub(r"^atomic\s*<\s*(\w+)\s*>$", r"\1", inner)
    try:
        wide = _layout.size_align(inner, "wgsl-storage")[0]
    except ForgeError:
        return 1
    own = spec.dtype_for("wgsl").itemsize
    return wide // own if wide > own and wide % own == 0 else 1


def launch_slots(
    kernel: KernelSpec, dispatch: Any, target: str | None, source: str | None
) -> tuple[int, ...]:
    """Per buffer of ``kernel`` (its (group, binding): the WGSL variable declared
    there), the index of the buffer ``dispatch`` binds there on ``target``: its
    ``bindings`` map WGSL variable names to buffer names, and a variable they leave out
    holds the buffer of its own (group, binding). () where the launch declares no
    bindings, and on targets other than WGSL. Raises ``InvalidArgument`` naming the fix
    for a variable the WGSL does not declare, a buffer the kernel does not have, a
    uniform moved, and a buffer bound twice where one of its variables is writable
    (WebGPU refuses that dispatch), counting only the variables the launch binds: those
    its entry point statically accesses and those no entry point of the module does
    (``forge.sources.wgsl_unused_bindings``)."""
    moves = getattr(dispatch, "bindings", None)
    if not moves or target != "wgsl":
        return ()
    where = f"kernel {kernel.id}: the launch of {launch_entry(kernel, dispatch, target)}"
    if source is None:
        return ()
    declared = {b.name: b for b in _sources.wgsl_bindings(source)}
    slot_of = {(s.group, s.binding): j for j, s in enumerate(kernel.buffers)}
    names = {s.name: i for i, s in enumerate(kernel.buffers) if s.name}
    chosen = list(range(len(kernel.buffers)))
    for variable, buffer in moves.items():
        found = declared.get(variable)
        if found is None:
            raise InvalidArgument(
                f"{where} binds the WGSL variable {variable!r}, which the source does not "
                f"declare; its buffer variables are {sorted(declared)}: bindings map a WGSL "
                "variable's name to the name of the kernel buffer it holds in that launch"
            )
        if buffer not in names:
            raise InvalidArgument(
                f"{where} binds {variable} to {buffer!r}, which is no buffer of the kernel; "
                f"its buffers are {sorted(names)} (name each BufferSpec a launch binds)"
            )
        j = slot_of.get((found.group, found.binding))
        if j is None:
            raise InvalidArgument(
                f"{where} binds {variable}, at @group({found.group}) @binding"
                f"({found.binding}), where the kernel declares no buffer: declare a "
                "BufferSpec there (the buffer a launch that does not move it binds)"
            )
        i = names[buffer]
        if found.access == "uniform" or kernel.buffers[i].access is Access.UNIFORM:
            raise InvalidArgument(
                f"{where} binds {variable} to {buffer}: bindings move storage buffers "
                "only; a uniform block stays at its own binding (a launch sets its fields "
                "through overrides)"
            )
        own = kernel.buffers[i]
        if declared_access(source, own) == "uniform":
            raise InvalidArgument(
                f"{where} binds {variable} to {buffer}, which the WGSL declares "
                "var<uniform> at its own binding; bindings move storage buffers only"
            )
        chosen[j] = i
    access = {(b.group, b.binding): b.access for b in declared.values()}
    # only the variables the launch's entry point uses are bound (a module joined from
    # several: each entry point's own layout), so a buffer another entry point's
    # variable holds meanwhile is bound once
    unused = _sources.wgsl_unused_bindings(source, launch_entry(kernel, dispatch, target))
    for i in sorted(set(chosen)):
        at = [j for j, k in enumerate(chosen) if k == i and _slot(kernel, j) not in unused]
        writable = [j for j in at if access.get(_slot(kernel, j)) == "read_write"]
        if len(at) > 1 and writable:
            variables = [_variable(declared, kernel, j) for j in at]
            strays = [str(_slot(kernel, j)) for j in at if _slot(kernel, j) not in access]
            why = (
                f"; {' and '.join(strays)} is no variable of this shader, but the backends "
                "bind every buffer at its own (group, binding) too, so a buffer moved onto "
                "a variable is bound twice there: declare it at the binding of a variable "
                "that holds another buffer in this launch (more buffers than variables, "
                "partials written by one launch and read by the next through the same "
                "two variables, cannot be bound yet)"
                if strays
                else ""
            )
            raise InvalidArgument(
                f"{where} binds buffer {kernel.buffers[i].label} to {' and '.join(variables)}"
                f", and {_variable(declared, kernel, writable[0])} is read_write: WebGPU "
                "refuses a dispatch that binds one buffer writable and bound again; give "
                "each of those variables a buffer of its own in the launch's bindings "
                f"(a variable the bindings leave out holds the buffer of its own binding){why}"
            )
    return tuple(chosen)


def cuda_aliases(
    kernel: KernelSpec, dispatch: Any, wgsl: str | None, size: Any = None
) -> dict[str, int]:
    """The names a CUDA launch's pointer parameters may take buffers by besides the
    buffers' own, where the kernel's launches declare ``bindings``: each WGSL storage
    variable's name for the buffer this launch binds to it (its own where the bindings
    leave it out), so that a CUDA twin named like the WGSL (``float* src``) follows the
    same swaps; without WGSL, the launch's bindings themselves (parameter name to
    buffer name). {} for kernels whose launches declare none."""
    if not declares_bindings(kernel, size, dispatch):
        return {}
    names = {s.name: i for i, s in enumerate(kernel.buffers) if s.name}
    if wgsl is None:
        moves = dict(getattr(dispatch, "bindings", None) or {})
        unknown = sorted(b for b in moves.values() if b not in names)
        if unknown:
            raise InvalidArgument(
                f"kernel {kernel.id}: the launch of {launch_entry(kernel, dispatch, 'cuda')} "
                f"binds {unknown}, which name no buffer of the kernel; its buffers are "
                f"{sorted(names)}"
            )
        return {parameter: names[buffer] for parameter, buffer in moves.items()}
    chosen = launch_slots(kernel, dispatch, "wgsl", wgsl) or tuple(range(len(kernel.buffers)))
    slot_of = {(s.group, s.binding): j for j, s in enumerate(kernel.buffers)}
    return {
        b.name: chosen[slot_of[(b.group, b.binding)]]
        for b in _sources.wgsl_bindings(wgsl)
        if b.access != "uniform" and (b.group, b.binding) in slot_of
    }


def declares_bindings(kernel: KernelSpec, size: Any = None, dispatch: Any = None) -> bool:
    """Whether any launch of ``kernel`` (at ``size``, for ``launches`` given as a
    function; without a size, ``dispatch``) declares ``bindings``."""
    if callable(kernel.launches):
        launches = kernel.launches_at(size) if size is not None else (dispatch,)
    else:
        launches = kernel.launches or ()
    return any(getattr(d, "bindings", None) for d in launches)


def _slot(kernel: KernelSpec, j: int) -> tuple[int, int]:
    return (kernel.buffers[j].group, kernel.buffers[j].binding)


def _variable(declared: Mapping[str, Any], kernel: KernelSpec, j: int) -> str:
    """The name of the WGSL variable at buffer ``j``'s (group, binding)."""
    slot = _slot(kernel, j)
    return next((n for n, b in declared.items() if (b.group, b.binding) == slot), str(slot))


def declared_access(source: str, spec: BufferSpec) -> str | None:
    """What the WGSL declares at ``spec``'s (group, binding): "read", "read_write",
    "uniform", or None."""
    return next(
        (
            b.access
            for b in _sources.wgsl_bindings(source)
            if (b.group, b.binding) == (spec.group, spec.binding)
        ),
        None,
    )


def bound_slots(
    kernel: KernelSpec, target: str | None, source: str | None, size: Any = None
) -> tuple[frozenset[int], ...] | None:
    """Per buffer, the buffers' (group, binding)s, as indexes, that the kernel's
    launches bind it to (``launch_slots``); None where no launch declares bindings
    (each buffer is bound at its own). ``launches`` given as a function of the size
    are asked at ``size`` (without one: none of theirs is known)."""
    if target != "wgsl" or source is None or not kernel.launches:
        return None
    if callable(kernel.launches):
        if size is None:
            return None
        launches = kernel.launches_at(size)
    else:
        launches = kernel.launches
    if not any(getattr(d, "bindings", None) for d in launches):
        return None
    count = len(kernel.buffers)
    found: list[set[int]] = [set() for _ in range(count)]
    for dispatch in launches:
        chosen = launch_slots(kernel, dispatch, target, source) or tuple(range(count))
        for j, i in enumerate(chosen):
            found[i].add(j)
    unbound = [kernel.buffers[i].label for i, slots in enumerate(found) if not slots]
    if unbound:
        raise InvalidArgument(
            f"kernel {kernel.id}: no launch binds buffer {', '.join(unbound)}: each binds "
            "another buffer at its (group, binding); bind it to a variable in some "
            "launch's bindings, or declare the buffer the launches bind there instead"
        )
    return tuple(frozenset(f) for f in found)


def check_uniform_layout(kernel: KernelSpec, target: str | None, source: str | None) -> None:
    """Raise ``InvalidArgument`` where the uniform block's values, laid out by WGSL's
    rules as the spec declares them, do not sit where the WGSL source reads them (a
    field declared ``i64`` that the struct reads as ``u32`` moves every later field; a
    member the shader gives ``@size(8)`` or ``@align(16)`` sits past bytes the spec
    fills): the kernel would read other bytes than the ones written, silently. Compared
    scalar by scalar (offset, size, float or integer), so two u32 fields may be read as
    one ``vec2<u32>``, and a pointer field (``pointer_fields``: a CUDA struct's pointer,
    a ``u64`` field named like its buffer) as two 32-bit integers, as a WGSL port, which
    has no 64-bit integer, reads it (``vec2<u32>``), and so a ``u64`` or ``i64`` field
    that the struct declares as a ``vec2`` of 32-bit integers under the field's own name
    (a CUDA kernel's ``size_t numel`` read as ``numel: vec2<u32>``, low word first, as
    vLLM's MoE alignment's port reads it: round 50); bytes only one side declares are not
    compared, but a record smaller than the shader's struct is refused (the binding
    would be too short). Where padding fields can match the shader's layout, the error
    spells the spec to write."""
    uniform = kernel.uniform
    if target != "wgsl" or source is None or uniform is None:
        return
    declared = [
        b
        for b in _sources.wgsl_bindings(source)
        if (b.group, b.binding) == (uniform.group, uniform.binding)
    ]
    if not declared:
        return
    binding = declared[0]
    structs = _sources.wgsl_structs(source)
    try:
        ours_type = _layout.parse_type(uniform.fields)
        if binding.type in structs:
            theirs_type = _shader_type(binding.type, structs)
        else:
            theirs_type = _layout.TypeSpec(
                "struct", fields=((binding.name, _shader_type(binding.type, structs)),)
            )
        rules = uniform.layout_rules("wgsl") or "wgsl-uniform"
        ours = _layout.scalar_lanes(ours_type, rules)
        theirs = _layout.scalar_lanes(theirs_type, rules)
        our_size = _layout.size_align(ours_type, rules)[0]
        # WGSL lays a struct out one way in every address space; the uniform rules
        # above only round it up to 16 bytes (what a valid shader's layout is anyway),
        # and a push constant bound as storage is laid out by the storage rules
        their_size = _layout.size_align(theirs_type, "wgsl-storage")[0]
    except ForgeError:  # a type this check cannot lay out: nothing to compare
        return
    what = f"kernel {kernel.id}: uniform {uniform.label}"
    source_text = f"the WGSL source ({binding.name}: {binding.type})"
    attributes = _attributes(binding.type, structs)
    remedy = _padding_remedy(uniform, ours_type, theirs_type, their_size)
    at = {lane[0]: lane for lane in ours}
    end = max((lane[0] + lane[1] for lane in ours), default=0)
    pointers = pointer_fields(kernel)
    for index, read in enumerate(theirs):
        mine = at.get(read[0])
        if mine is not None and mine[:3] == read[:3]:
            continue
        if read[0] >= end and all(lane[3] != read[3] for lane in ours):
            continue  # past what the spec declares: only the record's size is checked
        if any(
            lane[3] in pointers and read[1:3] == (4, "i") and read[0] - lane[0] in (0, 4)
            for lane in ours
        ):
            continue  # a word of a pointer field: the same bytes
        if any(
            lane[1:3] == (8, "i")
            and read[1:3] == (4, "i")
            and (read[0] - lane[0], read[3]) in ((0, f"{lane[3]}.x"), (4, f"{lane[3]}.y"))
            for lane in ours
        ):
            continue  # a word of a 64-bit integer the shader reads as a vec2 of its name
        # what the spec put there instead: the value covering that byte, else the field
        # of the same name, else the one in the same place in order
        mine = next(
            (lane for lane in ours if lane[0] <= read[0] < lane[0] + lane[1]),
            next((lane for lane in ours if lane[3] == read[3]), None)
            or (ours[index] if index < len(ours) else None),
        )
        kinds = {"f": "float", "i": "integer"}
        declares = (
            f"'s {mine[3]} is a {mine[1] * 8}-bit {kinds[mine[2]]} at byte {mine[0]} as the "
            "spec declares it"
            if mine is not None
            else f" declares nothing at byte {read[0]}"
        )
        raise InvalidArgument(
            f"{what}{declares}, but {source_text} reads {read[3]}, a {read[1] * 8}-bit "
            f"{kinds[read[2]]} at byte {read[0]}{attributes}; "
            + (remedy or "declare the spec's fields with the types the shader reads, in its order")
        )
    if our_size < their_size:
        raise InvalidArgument(
            f"{what}'s record is {our_size} bytes as the spec declares it, but {source_text} "
            f"reads {their_size} bytes{attributes}, so the binding would be too short; "
            + (
                remedy
                or "declare every field the shader's struct has, with padding fields "
                '(("_pad0", "u32"), ...) where it leaves a gap'
            )
        )


def _shader_type(text: str, structs: Mapping[str, tuple[_sources.WgslMember, ...]]) -> Any:
    """A WGSL type as ``forge.layout`` lays it out: nested structs with their members'
    ``@size`` and ``@align``."""
    if text not in structs:
        return _layout.parse_type(text)
    members = structs[text]
    attrs = tuple((m.size, m.align) for m in members)
    return _layout.TypeSpec(
        "struct",
        fields=tuple((m.name, _shader_type(m.type, structs)) for m in members),
        attrs=attrs if any(a != (None, None) for a in attrs) else (),
    )


def _attributes(text: str, structs: Mapping[str, tuple[_sources.WgslMember, ...]]) -> str:
    """`` (struct Params sets @size(8) on count)``: the layout attributes of the
    shader's struct and those it nests, or ""."""
    said: list[str] = []
    seen: set[str] = set()

    def visit(name: str) -> None:
        if name not in structs or name in seen:
            return
        seen.add(name)
        parts = [
            " ".join(
                f"@{attr}({value})"
                for attr, value in (("size", m.size), ("align", m.align))
                if value is not None
            )
            + f" on {m.name}"
            for m in structs[name]
            if m.size is not None or m.align is not None
        ]
        if parts:
            said.append(f"struct {name} sets {', '.join(parts)}")
        for m in structs[name]:
            visit(m.type)

    visit(text)
    return f" ({'; '.join(said)})" if said else ""


def _padding_remedy(uniform: BufferSpec, ours: Any, theirs: Any, their_size: int) -> str | None:
    """What to write so the spec's record lays out as the shader's struct: the padding
    fields to add (when the spec names the shader's members, in order) and the whole
    ``BufferSpec.uniform`` call; None where u32 padding fields cannot match it."""
    taken = {name for name, _ in theirs.fields}
    names = (n for n in (f"_pad{i}" for i in range(1 << 16)) if n not in taken)
    pads: list[str] = []

    def pad() -> str:
        pads.append(next(names))
        return pads[-1]

    try:
        padded = _padded(theirs, pad)
        if padded is None:
            return None
        while _layout.size_align(padded, "wgsl-uniform")[0] < their_size:
            padded = padded + [(pad(), "u32")]
        lanes = _layout.scalar_lanes(_layout.parse_type(padded), "wgsl-uniform")
        if [lane[:3] for lane in lanes if lane[3].split(".")[-1] not in pads] != [
            lane[:3] for lane in _layout.scalar_lanes(theirs, "wgsl-uniform")
        ]:
            return None
    except ForgeError:
        return None
    call = f"BufferSpec.uniform({uniform.binding}, {_pairs(padded)}"
    call += f", name={uniform.name!r})" if uniform.name != "params" else ")"
    spec_fields = [(n, _layout.parse_type(t)) for n, t in uniform.fields if not n.startswith("_")]
    if spec_fields == [(n, _layout.parse_type(t)) for n, t in padded if n not in pads]:
        previous = ""
        groups: dict[str, list[str]] = {}
        for name, type_ in padded:
            if name in pads:
                groups.setdefault(previous, []).append(f'("{name}", "{type_}")')
            else:
                previous = name
        adds = [
            f"{', '.join(group)} {f'after {after}' if after else 'first'}"
            for after, group in groups.items()
        ]
        return (
            f"add padding fields to the spec: {'; '.join(adds)} (a field whose name starts "
            f"with an underscore holds 0 unless given), i.e. {call}"
        )
    return f"declare the fields as the shader lays them out, padding included: {call}"


def _padded(theirs: Any, pad: Callable[[], str]) -> list | None:
    """The members of struct ``theirs`` as spec fields (nested structs as their own
    lists), with ``u32`` padding fields where its ``@size``/``@align`` leave gaps the
    spec's natural layout would not; None where a gap is no whole number of u32s."""
    fields: list = []
    offsets = _layout._struct_offsets(theirs, "wgsl-uniform")[0]
    for (name, field), want in zip(theirs.fields, offsets):
        if field.kind == "struct":
            inner = _padded(field, pad)
            if inner is None:
                return None
            spelled: Any = inner
        else:
            spelled = _layout.type_text(field)
        for _ in range(want // 4 + 1):
            at = _layout._struct_offsets(
                _layout.parse_type(fields + [(name, spelled)]), "wgsl-uniform"
            )[0][-1]
            if at >= want:
                break
            fields.append((pad(), "u32"))
        if at != want:
            return None
        fields.append((name, spelled))
    return fields


def _pairs(fields: Any) -> str:
    """Spec fields as Python source: ``(("count", "u32"), ("_pad0", "u32"))``."""
    if isinstance(fields, str):
        return repr(fields).replace("'", '"')
    inner = ", ".join(f'("{name}", {_pairs(t)})' for name, t in fields)
    return f"({inner},)" if len(fields) == 1 else f"({inner})"


def scalar_values(kernel: KernelSpec, size: Any) -> dict[str, Any]:
    """``defaults``, then the values ``params(size)`` derives: the fields of the
    uniform block, or, for a CUDA kernel without one, its scalar parameters by name."""
    merged = dict(kernel.defaults)
    if kernel.params is not None:
        derived = resolve(kernel.params, None, size, f"kernel {kernel.id}'s params", False)
        if not isinstance(derived, Mapping):
            raise InvalidArgument(
                f"kernel {kernel.id}: params(size) must return a mapping "
                f"of field values, got {type(derived).__name__}"
            )
        merged.update(derived)
    return merged


def pointer_fields(kernel: KernelSpec) -> dict[str, int]:
    """The uniform block's fields that hold a device pointer: a ``u64`` field named like
    one of the kernel's other buffers (a CUDA ``struct Params { const float* x; float*
    y; int n; }`` passed by value, as FlashAttention's and CUTLASS's kernels take their
    arguments, is ``fields=(("x", "u64"), ("y", "u64"), ("n", "i32"))``). Each maps to
    that buffer's index; the CUDA backend writes the buffer's address there at launch,
    and every other backend sees 0."""
    spec = kernel.uniform
    if spec is None:
        return {}
    buffers = {b.label: i for i, b in enumerate(kernel.buffers) if b is not spec}
    return {
        name: buffers[name]
        for name, t in spec.fields
        if isinstance(t, str) and t == "u64" and name in buffers
    }


def launch_entry(kernel: KernelSpec, dispatch: Any, target: str | None) -> str:
    """The entry point ``dispatch`` names on ``target`` (its template values unfilled):
    its name for that target where it maps targets to names; the kernel's
    ``entry_points[target]`` where it names the kernel's own ``entry_point``; else its
    name (round 34: SGEMM_CUDA's runner launches ``sgemm2DBlocktiling<{{BM}}, ...>``,
    whose WGSL port was asked for that name). Here, not in ``forge._launch``, which
    imports this module: ``_cuda_scalar_names`` needs it too."""
    name = dispatch.entry_point
    if isinstance(name, Mapping):
        if target is not None and target in name:
            return str(name[target])
        if target is None and name:
            return str(next(iter(name.values())))
        raise InvalidArgument(
            f"kernel {kernel.id}: a launch names its entry point for {sorted(name)} only, "
            f"not for {target}"
        )
    if target is not None and name == kernel.entry_point:
        return kernel.entry_points.get(target, name)
    return name


def _cuda_scalar_names(kernel: KernelSpec) -> set[str]:
    """The names of the by-value parameters of the kernel's CUDA entry points (those
    of every launch), and the names ``arguments=`` lists."""
    source = kernel.sources.get("cuda")
    if not isinstance(source, str):
        return set()
    launches = () if callable(kernel.launches) else kernel.launches or ()
    entries = {kernel.entry_points.get("cuda", kernel.entry_point)}
    entries |= {launch_entry(kernel, d, "cuda") for d in launches}
    names = set(kernel.arguments or ())
    names.update(name for d in launches for name in d.arguments or ())
    for entry in entries:
        for param in _sources.cuda_parameters(source, entry, kernel.include_dirs) or ():
            if not param.pointer:
                names.add(param.name)
    return names


def pack_uniform(kernel: KernelSpec, size: Any, **values: Any) -> np.ndarray:
    """The uniform record for a problem of ``size``: ``defaults``, then the fields
    ``params(size)`` derives, then ``values``; a field named like a dimension of the
    size (``n``, ``rows``) that none of them gives holds that dimension, and one whose
    name starts with an underscore (a padding field such as ``_pad0``) holds zero.
    Returns a one-element record array of the logical layout (``buffer_bytes`` lays it out for
    a target)."""
    spec = kernel.uniform
    if spec is None:
        raise InvalidArgument(f"kernel {kernel.id} has no uniform block to pack")
    merged = {**scalar_values(kernel, size), **values}
    names = [n for n, _ in spec.fields]
    # a value for a CUDA parameter by value beside the struct (ggml's rope_neox: its
    # corr_dims struct among nine scalars) is no field, and no mistake
    unknown = set(merged) - set(names) - _cuda_scalar_names(kernel)
    if unknown:
        raise InvalidArgument(
            f"kernel {kernel.id}: unknown uniform fields {sorted(unknown)}; fields are {names}"
        )
    dims = kernel.size(size).dims if size is not None else {}
    merged.update({n: dims[n] for n in names if n not in merged and n in dims})
    # a padding field (``_pad0``, as a #[repr(C)] host struct names it) holds zero, and
    # so does a device pointer until the CUDA backend writes it (``pointer_fields``)
    pointers = pointer_fields(kernel)
    merged.update({n: 0 for n in names if n not in merged and (n.startswith("_") or n in pointers)})
    missing = [n for n in names if n not in merged]
    if missing:
        raise InvalidArgument(
            f"kernel {kernel.id}: uniform fields {missing} have no value; give them "
            "defaults={...} or params=lambda size: {...}"
        )
    merged = {n: v for n, v in merged.items() if n in names}
    record = np.zeros(1, spec.record_dtype)
    for name in names:
        problem = _field_problem(merged[name], spec.record_dtype[name])
        if problem:
            raise InvalidArgument(
                f"kernel {kernel.id}: uniform field {name} cannot hold {merged[name]!r}: {problem}"
            )
        try:
            record[name] = merged[name]
        except (TypeError, ValueError, OverflowError) as exc:
            raise InvalidArgument(
                f"kernel {kernel.id}: uniform field {name} cannot hold {merged[name]!r}: {exc}"
            ) from None
    return record


def uniform_field_bytes(
    kernel: KernelSpec, values: Sequence[tuple[str, Any]], target: str
) -> tuple[tuple[int, bytes], ...]:
    """(offset, bytes) of each uniform field a launch gives a value of its own
    (``Step.fields``), laid out as ``target`` reads the uniform block: the backends
    bind a copy of the block with these bytes in place for that launch only."""
    spec = kernel.uniform
    if spec is None or not values:
        return ()
    record = np.zeros(1, spec.record_dtype)
    for name, value in values:
        problem = _field_problem(value, spec.record_dtype[name])
        if not problem:
            try:
                record[name] = value
            except (TypeError, ValueError, OverflowError) as exc:
                problem = str(exc)
        if problem:
            raise InvalidArgument(
                f"kernel {kernel.id}: a launch sets uniform field {name} to {value!r}: {problem}"
            )
    raw = buffer_bytes(spec, record, target).view(np.uint8).reshape(-1).tobytes()
    laid = _layout.target_dtype(spec.fields, spec.layout_rules(target)).fields
    assert laid is not None  # a uniform block is a struct
    return tuple(
        (laid[name][1], raw[laid[name][1] : laid[name][1] + laid[name][0].itemsize])
        for name, _ in values
    )


def buffer_bytes(
    spec: BufferSpec,
    values: np.ndarray,
    target: str | None,
    fill: np.ndarray | None = None,
) -> np.ndarray:
    """``values`` (logical) of buffer ``spec`` laid out for ``target``."""
    if target is not None and spec.unorm:
        return _textures.unorm8_bytes(values).reshape(-1)
    if target is None:  # host memory: the logical dtype (a vector keeps its lanes)
        values = np.asarray(values)
        dtype = spec.dtype
        return values.astype(dtype.base if dtype.subdtype else dtype, copy=False)
    return _layout.encode(values, spec.type, spec.layout_rules(target), fill)


def buffer_values(spec: BufferSpec, raw: np.ndarray, target: str | None) -> np.ndarray:
    """The logical values held by ``raw`` (of ``spec.dtype_for(target)``)."""
    if target is None:
        return raw
    if spec.unorm:
        return _textures.unorm8_values(raw)
    return _layout.decode(raw, spec.type, spec.layout_rules(target))


def check_buffers(
    kernel: KernelSpec,
    views: Sequence[BufferView],
    size: Any,
    target: str | None = None,
    accesses: Sequence[Access] | None = None,
) -> None:
    """Raise ``InvalidArgument`` unless ``views`` can be bound to ``kernel`` for a
    problem of ``size``: one view per buffer in (group, binding) order, with a
    matching binding, group and usage, and enough bytes."""
    if int(size) < 0:
        raise InvalidArgument(f"element count must be >= 0, got {size}")
    if len(views) != len(kernel.buffers):
        raise InvalidArgument(
            f"kernel {kernel.id} binds {len(kernel.buffers)} buffers, got {len(views)} views"
        )
    accesses = accesses or [spec.access for spec in kernel.buffers]
    for view, spec, access in zip(views, kernel.buffers, accesses):
        if not isinstance(view, BufferView):
            raise InvalidArgument(
                f"kernel {kernel.id}: expected BufferView for binding "
                f"{spec.binding}, got {type(view).__name__}"
            )
        label = f"kernel {kernel.id} buffer {spec.label}"
        if (view.group, view.binding) != (spec.group, spec.binding):
            raise InvalidArgument(
                f"{label} is at group {spec.group} binding {spec.binding}, but the "
                f"view is at group {view.group} binding {view.binding}"
            )
        if not access.accepts(view.usage):
            raise InvalidArgument(
                f"{label} is {access.value}; a view of usage {view.usage.name} "
                f"cannot be bound there (use {access.default_usage.name})"
            )
        need = spec.byte_size(size, target)
        if view.length_bytes < need:
            raise InvalidArgument(
                f"{label} needs {need} bytes at size {size}, the view has {view.length_bytes}"
            )

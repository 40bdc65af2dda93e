"""Launches: what a backend runs for one target, schedule and size.

A kernel launches once (its entry point, ``grid`` or the body's geometry, its
``shared_bytes``, ``arguments`` and ``overrides``) or several times (``launches``: a
tuple of ``Dispatch``, or a function of the size returning them). Each launch resolves
into a ``Step``: the entry point with its template values filled, the workgroup counts,
the block, the dynamic shared memory, the CUDA arguments (``forge.arguments``), the
WGSL ``override`` values, and the buffer each WGSL binding holds (``Dispatch.bindings``:
ping-pong). ``KernelSpec.steps``, ``workgroups`` and ``launches_at`` call
these functions; ``Dispatch`` and ``Step`` are re-exported by ``forge.kernel``.

Every value a launch declares may be a constant, an expression over the schedule, the
size's dimensions and the kernel's parameter values, or a function of (schedule, size)
(``forge.expressions.resolve``); what it resolves to is checked here, and a wrong one is
an ``InvalidArgument`` naming the kernel, the launch and the value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _bindings, _templates
from . import arguments as _arguments
from . import sources as _sources
from . import tunables as _tunables
from ._bindings import launch_entry
from ._digest import _callable_digest, _value_digest
from .errors import InvalidArgument, UnsupportedFeature
from .expressions import resolve
from .schedule import Schedule
from .size import is_int

if TYPE_CHECKING:  # forge.kernel calls this module, never the other way round
    from .kernel import KernelSpec

__all__ = ["Dispatch", "Step", "steps", "workgroups", "launches_at", "launch_entry"]


@dataclass(frozen=True)
class Dispatch:
    """One launch of a kernel made of several (a three-kernel layernorm, a two-pass
    reduction): its entry point, geometry (``grid(schedule, size)``; None: 1-D over the
    size), its own schedule (a ``Schedule``, or ``schedule(kernel_schedule, size)``;
    None: the kernel's; or a mapping of target to either, where a target it leaves out
    runs as without: a CUDA host's ``min(1024, ncols)`` block beside a port that
    declares its ``@workgroup_size``), dynamic shared memory, CUDA argument order, and
    ``overrides`` of its own (over the kernel's; each a value or a function of
    (schedule, size)), as a bitonic sort's passes each set their ``k`` and ``j``: WGSL
    ``override`` constants, or on CUDA the by-value parameters of those names (``int
    j, int k``). An override the CUDA kernel takes no parameter of, and its WGSL twin
    declares no ``override`` of, is an error. The entry point is one name, which the
    kernel's ``entry_points`` maps per target where it is the kernel's own
    ``entry_point`` (a CUDA template instance whose WGSL port is a plain function), or
    a mapping of target to name (``{"cuda": "scan<256>", "wgsl": "scan"}``).

    ``bindings`` map a WGSL buffer variable's name to the name of the kernel buffer it
    holds in this launch (``{"src": "b", "dst": "a"}``), as a page that ping-pongs two
    buffers swaps bind groups between launches; a variable they leave out holds the
    buffer declared at its own (group, binding). On CUDA a pointer parameter named like
    a WGSL variable takes the buffer the launch binds to that variable (a CUDA twin
    written with the WGSL's names follows the same swaps); without WGSL, bindings map
    CUDA parameter names to buffer names; ``arguments`` still give any order."""

    entry_point: str | Mapping[str, str]
    grid: Any = None
    schedule: Any = None
    shared_bytes: Any = None
    arguments: tuple[str, ...] | None = None
    overrides: Any = None
    bindings: Mapping[str, str] | None = None

    def __post_init__(self) -> None:
        if self.bindings is None:
            return
        if not isinstance(self.bindings, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in self.bindings.items()
        ):
            raise InvalidArgument(
                f"launch {self.entry_point}: bindings map a WGSL variable's name to a "
                f"buffer's name ({{'src': 'b', 'dst': 'a'}}), got {self.bindings!r}"
            )
        object.__setattr__(self, "bindings", dict(self.bindings) or None)

    def describe(self) -> dict:
        return {
            "entry_point": self.entry_point,
            "grid": _callable_digest(self.grid),
            "schedule": {str(t): _schedule_digest(v) for t, v in self.schedule.items()}
            if isinstance(self.schedule, Mapping)
            else _schedule_digest(self.schedule),
            "shared_bytes": _callable_digest(self.shared_bytes),
            "arguments": list(self.arguments) if self.arguments else None,
            "overrides": _value_digest(dict(self.overrides)) if self.overrides else None,
            **({"bindings": dict(self.bindings)} if self.bindings else {}),
        }


def _schedule_digest(schedule: Any) -> Any:
    return str(schedule) if isinstance(schedule, Schedule) else _callable_digest(schedule)


@dataclass(frozen=True)
class Step:
    """One launch resolved for a target, schedule and size: what a backend runs.
    ``arguments`` (CUDA) lists each parameter as ``("buffer", index)``,
    ``("field", name)``, ``("uniform", None)``, ``("value", (name, bytes))`` (a
    scalar ``params(size)`` gives a kernel without a uniform block), ``("offset",
    (index, bytes))`` (a buffer's address that many bytes on), ``("accessor", (index,
    dims, index_bytes))`` (PyTorch's packed tensor accessor over a buffer) or
    ``("default", (name, bytes))`` (a parameter left to its declared default, packed)."""

    entry_point: str
    workgroups: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_bytes: int = 0
    arguments: tuple[tuple[str, Any], ...] = ()
    overrides: tuple[tuple[str, Any], ...] = ()
    # (buffer index, variable): buffers the CUDA backend copies into a file-scope
    # ``__constant__``/``__device__`` variable before the launch (``forge.arguments``)
    symbols: tuple[tuple[int, str], ...] = ()
    # (field, value): uniform fields this launch gives values of its own (a Dispatch's
    # overrides named like a field of the uniform block, and on WGSL no ``override``
    # the source declares): the backend binds, or passes, a copy of the block with
    # these values (``forge._bindings.uniform_field_bytes``), as a multi-pass WGSL
    # algorithm binds a uniform buffer a pass
    fields: tuple[tuple[str, Any], ...] = ()
    # per buffer, in the kernel's (group, binding) order, the index of the buffer bound
    # at that buffer's (group, binding) in this launch (``Dispatch.bindings``: WGSL
    # ping-pong); () where the launch declares no bindings: each is bound at its own
    bindings: tuple[int, ...] = ()


def workgroups(
    kernel: KernelSpec, schedule: Schedule, size: Any, max_per_dimension: int = 65535
) -> tuple[int, int, int]:
    """How many workgroups a single-launch kernel's dispatch of ``size`` needs:
    ``grid`` when the kernel has one, else the body's geometry."""
    if kernel.grid is not None:
        return _grid(
            kernel.grid,
            schedule,
            size,
            f"kernel {kernel.id}",
            max_per_dimension,
            kernel.tunable_values(),
        )
    return kernel.body.workgroups(kernel, schedule, size, max_per_dimension)


def steps(
    kernel: KernelSpec,
    target: str | None,
    schedule: Schedule,
    size: Any,
    max_per_dimension: int = 65535,
    source: str | None = None,
) -> tuple[Step, ...]:
    """Each launch ``kernel`` makes on ``target``, resolved (``source``: the text for
    ``target``, made here when not given)."""
    if source is None and target is not None and target in kernel.targets:
        source = kernel.source(target, schedule, size)
    if not kernel.launches:
        return (_single_step(kernel, target, schedule, size, max_per_dimension, source),)
    return tuple(
        _dispatch_step(kernel, dispatch, target, schedule, size, max_per_dimension, source)
        for dispatch in launches_at(kernel, size)
    )


def _single_step(
    kernel: KernelSpec,
    target: str | None,
    schedule: Schedule,
    size: Any,
    max_per_dimension: int,
    source: str | None,
) -> Step:
    """The one launch of a kernel without ``launches``."""
    entry = _entry(
        kernel, kernel.entry_points.get(target or "", kernel.entry_point), schedule, size
    )
    overrides = _overrides(kernel, None, target, schedule, size, source)
    _check_workgroup_size(kernel, entry, schedule, target, source, overrides, None)
    return Step(
        entry,
        workgroups(kernel, schedule, size, max_per_dimension),
        schedule.workgroup_size,
        _shared(kernel, kernel.shared_bytes, schedule, size),
        *_cuda_arguments(kernel, entry, kernel.arguments, target, source, size, overrides),
    )


def _dispatch_step(
    kernel: KernelSpec,
    dispatch: Dispatch,
    target: str | None,
    schedule: Schedule,
    size: Any,
    max_per_dimension: int,
    source: str | None,
) -> Step:
    """One ``Dispatch`` of a kernel made of several, under its own schedule."""
    name = launch_entry(kernel, dispatch, target)
    dispatch = replace(dispatch, entry_point=name, schedule=_target_schedule(dispatch, target))
    own = _dispatch_schedule(kernel, dispatch, schedule, size)
    grid = (
        _grid(
            dispatch.grid,
            own,
            size,
            f"kernel {kernel.id} launch {dispatch.entry_point}",
            max_per_dimension,
            kernel.tunable_values(),
        )
        if dispatch.grid is not None
        else own.dispatch_workgroups(int(size), max_per_dimension)
    )
    entry = _entry(kernel, name, own, size)
    dispatch, fields = _launch_fields(kernel, dispatch, target, own, size, source)
    overrides = _overrides(kernel, dispatch, target, own, size, source)
    _check_workgroup_size(kernel, entry, own, target, source, overrides, dispatch)
    block: tuple[int, int, int] = own.workgroup_size
    if target == "wgsl" and source is not None and dispatch.schedule is None:
        # a launch without a schedule of its own runs what its entry point declares (a
        # module of several entry points, each with its own @workgroup_size)
        block = _sources.wgsl_workgroup_size(source, entry, dict(overrides)) or block
    slots = _bindings.launch_slots(kernel, dispatch, target, source)
    aliases = (
        _bindings.cuda_aliases(kernel, dispatch, _wgsl_of(kernel, schedule, size), size)
        if target == "cuda" and _bindings.declares_bindings(kernel, size, dispatch)
        else {}
    )
    if aliases and "wgsl" not in kernel.targets and source is not None:
        _check_cuda_bindings(kernel, dispatch, entry, source)
    arguments = _cuda_arguments(
        kernel, entry, dispatch.arguments, target, source, size, overrides, aliases
    )
    symbols = dict(arguments[2])
    if fields and kernel.uniform is not None and kernel.buffers.index(kernel.uniform) in symbols:
        raise UnsupportedFeature(
            f"kernel {kernel.id}: the launch of {entry} sets uniform fields "
            f"{[name for name, _ in fields]}, but the block is copied once into the "
            f"variable {symbols[kernel.buffers.index(kernel.uniform)]} for every launch; "
            "pass it by value, or give the launch a by-value parameter of its own"
        )
    return Step(
        entry,
        grid,
        block,
        _shared(kernel, dispatch.shared_bytes, own, size),
        *arguments,
        fields,
        slots,
    )


def _wgsl_of(kernel: KernelSpec, schedule: Schedule, size: Any) -> str | None:
    """The kernel's WGSL at ``schedule`` and ``size`` (None without one): the variables
    a CUDA twin's parameters may be named like (``_bindings.cuda_aliases``)."""
    if "wgsl" not in kernel.targets:
        return None
    return kernel.source("wgsl", schedule, size)


def _check_cuda_bindings(kernel: KernelSpec, dispatch: Dispatch, entry: str, source: str) -> None:
    """Refuse bindings of a kernel without WGSL that name no parameter of its CUDA
    entry point (there they name parameters)."""
    params = _sources.cuda_parameters(source, entry, kernel.include_dirs)
    if params is None or not dispatch.bindings:
        return
    unknown = sorted(set(dispatch.bindings) - {p.name for p in params})
    if unknown:
        raise InvalidArgument(
            f"kernel {kernel.id}: the launch of {entry} binds {unknown}, which name no "
            f"parameter of it ({', '.join(p.name or '?' for p in params)}); without WGSL a "
            "launch's bindings map CUDA parameter names to buffer names"
        )


def _launch_fields(
    kernel: KernelSpec,
    dispatch: Dispatch,
    target: str | None,
    schedule: Schedule,
    size: Any,
    source: str | None,
) -> tuple[Dispatch, tuple[tuple[str, Any], ...]]:
    """Split a launch's overrides into the uniform fields it sets (``Step.fields``)
    and the rest: on CUDA every override named like a field (a by-value parameter
    named like one reads the field; before, the launch's value was dropped without a
    word), on WGSL those the source declares no ``override`` of. Returns the launch
    without those overrides, and the fields with their values resolved and checked."""
    uniform = kernel.uniform
    if target not in ("wgsl", "cuda") or uniform is None or not dispatch.overrides:
        return dispatch, ()
    names = {name for name, _ in uniform.fields}
    declared = (
        _sources.wgsl_override_keys(source)
        if target == "wgsl" and source is not None
        else frozenset()
    )
    chosen = [k for k in dispatch.overrides if str(k) in names and str(k) not in declared]
    if not chosen:
        return dispatch, ()
    where = f"kernel {kernel.id} launch {dispatch.entry_point}"
    fields = tuple(
        (str(k), _resolve(kernel, dispatch.overrides[k], schedule, size, f"{where}'s {k}"))
        for k in chosen
    )
    _bindings.uniform_field_bytes(kernel, fields, target)  # refuses a value the field cannot hold
    rest = {k: v for k, v in dispatch.overrides.items() if k not in chosen}
    return replace(dispatch, overrides=rest or None), fields


def _target_schedule(dispatch: Dispatch, target: str | None) -> Any:
    """The schedule a launch gives on ``target``: its mapping's entry for the target
    (None where it names none: the launch runs as one without a schedule of its own),
    or what it gives every target."""
    own = dispatch.schedule
    if not isinstance(own, Mapping):
        return own
    return own.get(target) if target is not None else None


def _dispatch_schedule(
    kernel: KernelSpec, dispatch: Dispatch, schedule: Schedule, size: Any
) -> Schedule:
    """The schedule a ``Dispatch`` runs under: its own, what its schedule function
    returns, or the kernel's."""
    own = dispatch.schedule
    if own is None:
        return schedule
    if isinstance(own, Schedule):
        return own
    own = _resolve(
        kernel, own, schedule, size, f"kernel {kernel.id} launch {dispatch.entry_point}'s schedule"
    )
    if not isinstance(own, Schedule):
        raise InvalidArgument(
            f"kernel {kernel.id}: launch {dispatch.entry_point}'s "
            f"schedule function returned {own!r}"
        )
    return own


def _resolve(kernel: KernelSpec, value: Any, schedule: Schedule, size: Any, what: str) -> Any:
    """``resolve`` with the kernel's parameter values among an expression's names."""
    return resolve(value, schedule, size, what, names=kernel.tunable_values())


def launches_at(kernel: KernelSpec, size: Any) -> tuple[Dispatch, ...]:
    """The launches at ``size``: ``launches``, or what ``launches(size)`` returns
    (a number of passes that grows with the size)."""
    if not callable(kernel.launches):
        return kernel.launches
    found = resolve(kernel.launches, None, size, f"kernel {kernel.id}'s launches", False)
    found = tuple(found) if isinstance(found, (list, tuple)) else found
    if not (isinstance(found, tuple) and found and all(isinstance(d, Dispatch) for d in found)):
        raise InvalidArgument(
            f"kernel {kernel.id}: launches(size) must return Dispatch objects, got {found!r}"
        )
    return found


def _overrides(
    kernel: KernelSpec,
    dispatch: Dispatch | None,
    target: str | None,
    schedule: Schedule,
    size: Any,
    source: str | None = None,
) -> tuple[tuple[str, Any], ...]:
    """The ``override`` values of one launch: the kernel's, then the launch's own,
    each resolved under the launch's schedule. On WGSL, then the parameters the source
    declares as overrides; an override the source declares without a value, named
    like a dimension of the size (``override n: u32;``), that none of them sets
    holds that dimension; one declared with ``@id(N)`` is set by "N". On CUDA they
    are by-value parameters of that name
    (``_cuda_arguments``); other targets take none."""
    if target not in ("wgsl", "cuda"):
        return ()
    if target == "wgsl" and dispatch is not None and dispatch.overrides:
        _check_launch_overrides(kernel, dispatch, source)
    merged = {**kernel.overrides, **dict((dispatch and dispatch.overrides) or {})}
    found = tuple(
        (k, _resolve(kernel, v, schedule, size, f"kernel {kernel.id} override {k}"))
        for k, v in merged.items()
    )
    if target == "cuda":
        return found
    found += tuple(_tunables.passed(kernel, target, "override").items())
    if source is None or size is None:
        return found
    dims, named = kernel.size(size).dims, {k for k, _ in found}
    unset = _sources.wgsl_overrides_without_default(source) - named
    found += tuple((n, dims[n]) for n in sorted(unset) if n in dims)
    # an override named like a scalar the kernel gives by value (defaults, params(size):
    # a CUDA twin's ``float alpha``, the reference's ``alpha``) holds that value, so the
    # two halves of one spec compute the same thing (round 24: the WGSL kept its own
    # default and only a bare MISMATCH said so)
    named = {k for k, _ in found}
    values = kernel.scalar_values(size)
    found += tuple(
        (n, values[n])
        for n in sorted(_sources.wgsl_overrides(source))
        if n not in named and n in values and _is_number(values[n])
    )
    ids = _sources.wgsl_override_ids(source)  # an @id(N) override is set by "N"
    return tuple((ids.get(k, k), v) for k, v in found)


def _check_workgroup_size(
    kernel: KernelSpec,
    entry: str,
    schedule: Schedule,
    target: str | None,
    source: str | None,
    overrides: tuple[tuple[str, Any], ...],
    dispatch: Dispatch | None,
) -> None:
    """Refuse a launch whose schedule is not the ``@workgroup_size`` its WGSL entry point
    declares (where that is known): the shader runs the size it declares, and the grid,
    the coverage and the report followed the schedule. A launch's own schedule does not
    render the source again: ``{{wg_x}}`` is the kernel's (round 34: dynamicReverse's
    port ran 64 invocations where its launch said 256, and passed at n = 37 only because
    robust access dropped the extra writes)."""
    if target != "wgsl" or source is None or (dispatch is not None and dispatch.schedule is None):
        return  # a launch without a schedule of its own runs what its entry point declares
    declared = _sources.wgsl_workgroup_size(source, entry, dict(overrides))
    if declared is None or tuple(declared) == tuple(schedule.workgroup_size):
        return
    shown = ", ".join(str(d) for d in declared)
    ran = "x".join(str(d) for d in schedule.workgroup_size)
    what = f"launch {dispatch.entry_point}" if dispatch is not None else f"entry point {entry}"
    hint = (
        "; a launch's own schedule does not render the source again ({{wg_x}} and the like "
        "are the kernel's schedule): size the workgroup by a WGSL override the launch sets "
        "(`override wg: u32; @workgroup_size(wg)` with the Dispatch's overrides={'wg': ...})"
        if dispatch is not None
        else "; give the schedule the shader declares (Schedule("
        + ", ".join(map(str, declared))
        + ")), or leave schedules out to take it from the source"
    )
    raise InvalidArgument(
        f"kernel {kernel.id}: the {what} runs under a schedule of {ran} invocations a "
        f"workgroup, but the WGSL declares @workgroup_size({shown}) for {entry}{hint}"
    )


def _check_launch_overrides(kernel: KernelSpec, dispatch: Dispatch, source: str | None) -> None:
    """Refuse a launch's ``overrides`` the WGSL declares no ``override`` of, as the
    kernel's own are refused (``KernelSpec._check_wgsl_declarations``): they reached the
    driver, whose error said the WGSL was rejected (round 35). One named like a field of
    the uniform block is no override but a field the launch sets (``_launch_fields``)."""
    if source is None:
        literal = kernel._literal_wgsl()
        source = literal[0] if literal else None
    if source is None:
        return
    undeclared = _sources.wgsl_undeclared_overrides(source, dispatch.overrides)
    if undeclared:
        raise InvalidArgument(
            f"kernel {kernel.id}: the launch of {dispatch.entry_point} overrides {undeclared}"
        )


def _is_number(value: Any) -> bool:
    """A value an ``override`` can hold: a bool or a real number, numpy's included."""
    return isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating))


def _entry(kernel: KernelSpec, entry: str, schedule: Schedule, size: Any) -> str:
    """An entry point with its template values filled (a C++ instantiation such as
    ``"scale<float, {{wg_x}}>"``)."""
    if kernel.template and "{" in entry:
        return _templates.render(kernel, entry, schedule, size)
    return entry


def _shared(kernel: KernelSpec, value: Any, schedule: Schedule, size: Any) -> int:
    """Dynamic shared memory in bytes (``shared_bytes`` resolved; None: 0)."""
    if value is None:
        return 0
    shared = _resolve(kernel, value, schedule, size, f"kernel {kernel.id} shared_bytes")
    if not is_int(shared) or shared < 0:
        raise InvalidArgument(
            f"kernel {kernel.id}: shared_bytes is {shared!r}; it must be an int >= 0"
        )
    return int(shared)


def _cuda_arguments(
    kernel: KernelSpec,
    entry: str,
    explicit: Sequence[str] | None,
    target: str | None,
    source: str | None,
    size: Any,
    overrides: tuple[tuple[str, Any], ...],
    aliases: Mapping[str, int] | None = None,
) -> tuple[tuple, tuple, tuple]:
    """(what each CUDA parameter receives, ``forge.arguments``; the overrides the step
    keeps; the buffers copied into ``__constant__`` variables). On CUDA the launch's
    overrides are values of by-value parameters by name, and the step keeps those the
    kernel takes (a kernel frozen for a worker gives them again); a WGSL twin's
    overrides are left to it. Other targets: no arguments, and the overrides as given."""
    if target != "cuda":
        return (), overrides, ()
    values = dict(overrides)
    symbols = _arguments.symbol_buffers(kernel, entry, explicit, source)
    arguments = _arguments.cuda_arguments(
        kernel, entry, explicit, source, size, values, symbols, aliases
    )
    used = {key[0] for kind, key in arguments if kind == "value"}
    return arguments, tuple((k, v) for k, v in overrides if k in used), tuple(symbols.items())


def _grid(
    value: Any,
    schedule: Schedule,
    size: Any,
    what: str,
    max_per_dimension: int,
    names: Mapping[str, Any] | None = None,
) -> tuple[int, int, int]:
    """A ``grid`` (1 to 3 counts, an expression or a function of (schedule, size))
    resolved into three workgroup counts within ``max_per_dimension``."""
    dims = (
        resolve(value, schedule, size, f"{what}'s grid", names=names)
        if not isinstance(value, (tuple, list))
        else value
    )
    if is_int(dims):
        dims = (dims,)
    if (
        not isinstance(dims, (tuple, list))
        or not 1 <= len(dims) <= 3
        or not all(is_int(d) for d in dims)
    ):
        raise InvalidArgument(
            f"{what}'s grid must give 1 to 3 workgroup counts (ints), got {dims!r}"
        )
    dims = tuple(int(d) for d in dims) + (1,) * (3 - len(dims))
    if min(dims) < 0:
        raise InvalidArgument(f"{what} asks for {dims} workgroups; each count must be >= 0")
    if any(d > max_per_dimension for d in dims):
        raise UnsupportedFeature(
            f"{what} at size {size} needs {dims} workgroups, over "
            f"max_workgroups_per_dimension={max_per_dimension}"
        )
    return dims  # type: ignore[return-value]

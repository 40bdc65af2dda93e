"""``KernelSpec`` and ``BufferSpec``: the portable description of a compute kernel
(DESIGN.md section 3).

A kernel names its buffers (binding, group, element type, access), an optional uniform
block of named scalar fields, and how each buffer's element count follows from the
problem size. Its body is either an IR ``body`` (``forge.ir``), which ``forge.emit``
lowers to every target and the IR evaluator runs with numpy, or raw sources per target
(templates over the schedule) plus a numpy reference function that writes the outputs
in place.

Calling convention shared by every backend, and by hand-written sources:
- buffers are bound in (group, binding) order; a WGSL source declares them with
  ``@group(g) @binding(b)``; a CUDA source takes storage buffers as pointers and the
  uniform block as a struct by value, in that order;
- a 1-D dispatch linearises the workgroup id as ``y * num_workgroups.x + x``
  (``blockIdx.y * gridDim.x + blockIdx.x``), since one dimension holds at most
  65535 workgroups on WebGPU;
- the source templates may use ``${wg_x}``, ``${wg_y}``, ``${wg_z}``, ``${ipt}``,
  ``${vec}`` and ``${entry}`` (``string.Template``; write ``$$`` for a dollar).
"""

from __future__ import annotations

import enum
import hashlib
import json
import string
import types
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .errors import InvalidArgument, UnsupportedFeature
from .schedule import Schedule
from .types import BindingUsage, BufferView, ScalarType, scalar_type

__all__ = ["Access", "BufferSpec", "KernelSpec", "TARGETS"]

TARGETS = ("wgsl", "cuda")

_UNIFORM_ALIGN = 16  # a WGSL uniform block's size rounds up to 16 bytes


def _code_digest(code: types.CodeType) -> list:
    parts: list = [code.co_name, code.co_code.hex(), list(code.co_names)]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            parts.append(_code_digest(const))
        elif isinstance(const, frozenset):  # its repr order follows the hash seed
            parts.append(sorted(map(repr, const)))
        else:
            parts.append(repr(const))
    return parts


def _value_digest(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    if isinstance(value, (tuple, list)):
        return [_value_digest(v) for v in value]
    if callable(value):
        return _callable_digest(value)
    return type(value).__qualname__  # an object whose repr may carry its address


def _callable_digest(function: Callable | None) -> str | None:
    """A digest of what a Python function computes: its code, constants, defaults and
    captured values, equal in every process of one Python version. Functions are part
    of a kernel's meaning (its numpy reference, its geometry), so they are in its hash."""
    if function is None:
        return None
    code = getattr(function, "__code__", None)
    if code is None:
        return f"{type(function).__module__}.{type(function).__qualname__}"
    cells = [_value_digest(c.cell_contents) for c in (function.__closure__ or ())]
    data = [function.__module__, function.__qualname__, _code_digest(code), cells,
            _value_digest(function.__defaults__)]
    return hashlib.sha256(json.dumps(data).encode()).hexdigest()[:16]


class Access(enum.Enum):
    """How a kernel uses a buffer."""

    READ = "read"
    READ_WRITE = "read_write"
    UNIFORM = "uniform"

    def accepts(self, usage: BindingUsage) -> bool:
        """Whether a view allocated with ``usage`` may be bound for this access."""
        return usage in _ACCEPTED_USAGES[self]

    @property
    def default_usage(self) -> BindingUsage:
        return _ACCEPTED_USAGES[self][0]


_ACCEPTED_USAGES = {
    Access.READ: (BindingUsage.STORAGE_READ, BindingUsage.STORAGE_READ_RESIDENT),
    Access.READ_WRITE: (BindingUsage.STORAGE_READ_WRITE,),
    Access.UNIFORM: (BindingUsage.UNIFORM,),
}


@dataclass(frozen=True)
class BufferSpec:
    """One buffer of a kernel.

    ``count(size)`` gives the element count for a problem of ``size`` (default: the
    size itself). A uniform buffer (``access="uniform"``) lists its named scalar
    ``fields`` instead and holds one record. ``inout`` marks a read-write buffer whose
    initial contents the kernel reads (``C`` in ``C = alpha*A@B + beta*C``): the oracle
    fills it with inputs instead of poison.
    """

    binding: int
    element: str = "f32"
    access: Access = Access.READ
    group: int = 0
    name: str = ""
    count: Callable[[int], int] | None = field(default=None, compare=False)
    fields: tuple[tuple[str, str], ...] = ()
    inout: bool = False

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "access", Access(self.access))
        except ValueError:
            raise InvalidArgument(
                f"buffer {self.binding}: access must be one of "
                f"{[a.value for a in Access]}, got {self.access!r}") from None
        scalar_type(self.element)
        object.__setattr__(self, "fields", tuple((str(n), str(t)) for n, t in self.fields))
        if self.access is Access.UNIFORM:
            if not self.fields:
                raise InvalidArgument(f"uniform buffer {self.binding} needs named scalar fields")
            for _, t in self.fields:
                scalar_type(t)
        elif self.fields:
            raise InvalidArgument(f"buffer {self.binding}: only a uniform buffer has fields")
        if self.inout and self.access is not Access.READ_WRITE:
            raise InvalidArgument(f"buffer {self.binding}: only a read_write buffer is inout")

    @classmethod
    def uniform(cls, binding: int, fields: Sequence[tuple[str, str]], group: int = 0,
                name: str = "params") -> "BufferSpec":
        return cls(binding, "u32", Access.UNIFORM, group, name, None, tuple(fields))

    @property
    def scalar(self) -> ScalarType:
        return scalar_type(self.element)

    @cached_property
    def record_dtype(self) -> np.dtype:
        """The uniform block as a numpy record: natural alignment, padded to 16 bytes."""
        names, formats, offsets, offset = [], [], [], 0
        for name, type_name in self.fields:
            dtype = scalar_type(type_name).numpy
            offset = -(-offset // dtype.itemsize) * dtype.itemsize
            names.append(name)
            formats.append(dtype)
            offsets.append(offset)
            offset += dtype.itemsize
        itemsize = max(_UNIFORM_ALIGN, -(-offset // _UNIFORM_ALIGN) * _UNIFORM_ALIGN)
        return np.dtype({"names": names, "formats": formats, "offsets": offsets,
                         "itemsize": itemsize})

    @property
    def dtype(self) -> np.dtype:
        """The numpy dtype of one element (the record for a uniform)."""
        return self.record_dtype if self.access is Access.UNIFORM else self.scalar.numpy

    def element_count(self, size: int) -> int:
        if self.access is Access.UNIFORM:
            return 1
        return int(self.count(size)) if self.count is not None else int(size)

    def byte_size(self, size: int) -> int:
        return self.element_count(size) * self.dtype.itemsize

    def describe(self) -> dict:
        """A JSON-able description, part of the kernel's semantic hash."""
        return {"binding": self.binding, "group": self.group, "element": self.element,
                "access": self.access.value, "name": self.name, "fields": list(self.fields),
                "inout": self.inout, "count": _callable_digest(self.count)}


@dataclass(frozen=True, eq=False)
class KernelSpec:
    """A compute kernel, described once for every backend.

    ``sources`` maps a target (``"wgsl"``, ``"cuda"``) to a source template;
    ``reference`` is the numpy meaning: called with the buffers as arrays in
    (group, binding) order (a uniform as a numpy record), it writes the outputs in
    place. ``params(size)`` derives uniform fields from the problem size (e.g. the
    element count ``n``) and ``defaults`` gives the rest their usual values.
    ``grid(schedule, size)`` overrides the 1-D dispatch geometry.

    What the oracle needs to judge it: ``domain`` maps an input buffer's name to the
    closed value range the kernel is defined on (inputs are drawn inside it);
    ``nonfinite_inputs`` says whether NaN and +-Inf inputs are in the kernel's contract
    (then a backend must propagate them as numpy does); ``tolerance`` overrides the
    oracle's default tolerances (keys: a dtype name, or ``"backend:NAME"``);
    ``test_sizes`` are the problem sizes checked by default (include one that is not a
    multiple of any tile).

    ``body`` is an IR pattern (build one with ``forge.ir.kernel``); such a kernel has
    source for every target and its CPU meaning for free. ``schedule_roles`` marks some
    ``schedules`` by their text (``str(schedule)``): ``"big-gpu"`` for schedules tuned
    for large devices, the rest are portable ``"baseline"`` schedules.
    """

    id: str
    entry_point: str
    buffers: tuple[BufferSpec, ...]
    sources: Mapping[str, str] = field(default_factory=dict)
    reference: Callable[..., None] | None = None
    version: int = 1
    description: str = ""
    params: Callable[[int], Mapping[str, Any]] | None = None
    defaults: Mapping[str, Any] = field(default_factory=dict)
    grid: Callable[[Schedule, int], tuple[int, int, int]] | None = None
    schedules: tuple[Schedule, ...] = (Schedule(),)
    requires: frozenset[str] = frozenset()
    tags: tuple[str, ...] = ()
    domain: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    nonfinite_inputs: bool = True
    tolerance: Mapping[str, Any] = field(default_factory=dict)
    test_sizes: tuple[int, ...] = (1000, 4099)
    body: Any = None
    schedule_roles: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.body is not None and self.sources:
            raise InvalidArgument(f"kernel {self.id}: give an IR body or raw sources, not both")
        if self.body is not None and self.reference is not None:
            raise InvalidArgument(f"kernel {self.id}: an IR body is its own reference; "
                                  "drop reference=")
        if not self.id or not self.entry_point.isidentifier():
            raise InvalidArgument(f"kernel needs an id and an identifier entry point, "
                                  f"got {self.id!r}, {self.entry_point!r}")
        buffers = tuple(sorted(self.buffers, key=lambda b: (b.group, b.binding)))
        slots = [(b.group, b.binding) for b in buffers]
        if len(set(slots)) != len(slots):
            raise InvalidArgument(f"kernel {self.id}: two buffers share a (group, binding)")
        if sum(b.access is Access.UNIFORM for b in buffers) > 1:
            raise InvalidArgument(f"kernel {self.id}: at most one uniform block")
        unknown = set(self.sources) - set(TARGETS)
        if unknown:
            raise InvalidArgument(f"kernel {self.id}: unknown targets {sorted(unknown)}; "
                                  f"known: {', '.join(TARGETS)}")
        object.__setattr__(self, "buffers", buffers)
        object.__setattr__(self, "sources", dict(self.sources))
        object.__setattr__(self, "schedules", tuple(self.schedules) or (Schedule(),))
        object.__setattr__(self, "requires", frozenset(self.requires))
        object.__setattr__(self, "schedule_roles", dict(self.schedule_roles))
        names = {b.name for b in buffers}
        unknown_domain = set(self.domain) - names
        if unknown_domain:
            raise InvalidArgument(f"kernel {self.id}: domain names unknown buffers "
                                  f"{sorted(unknown_domain)}")

    def __repr__(self) -> str:
        return f"KernelSpec({self.id!r}, v{self.version}, targets={list(self.targets)})"

    # -- description ---------------------------------------------------------------
    @property
    def targets(self) -> tuple[str, ...]:
        """The targets this kernel has source for (every target for an IR kernel)."""
        if self.body is not None:
            return TARGETS
        return tuple(t for t in TARGETS if t in self.sources)

    @property
    def uniform(self) -> BufferSpec | None:
        return next((b for b in self.buffers if b.access is Access.UNIFORM), None)

    @property
    def outputs(self) -> tuple[BufferSpec, ...]:
        return tuple(b for b in self.buffers if b.access is Access.READ_WRITE)

    @property
    def inputs(self) -> tuple[BufferSpec, ...]:
        return tuple(b for b in self.buffers if b.access is Access.READ)

    def describe(self) -> dict:
        """Everything that defines the kernel's meaning, as JSON-able data."""
        described = {"id": self.id, "entry_point": self.entry_point, "version": self.version,
                     "buffers": [b.describe() for b in self.buffers],
                     "sources": {t: self.sources[t] for t in sorted(self.sources)},
                     "defaults": {k: self.defaults[k] for k in sorted(self.defaults)},
                     "requires": sorted(self.requires),
                     "domain": {k: list(self.domain[k]) for k in sorted(self.domain)},
                     "nonfinite_inputs": self.nonfinite_inputs}
        if self.body is not None:
            described["body"] = self.body.describe()
        for name in ("reference", "params", "grid"):
            digest = _callable_digest(getattr(self, name))
            if digest is not None:
                described[name] = digest
        return described

    def schedule_role(self, schedule: Schedule) -> str:
        """``"baseline"`` (portable) unless ``schedule_roles`` says otherwise."""
        return self.schedule_roles.get(str(schedule), "baseline")

    @cached_property
    def semantic_hash(self) -> str:
        """sha256 of ``describe()`` in canonical JSON: equal for equal kernels, in any
        process."""
        text = json.dumps(self.describe(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    # -- lowering ------------------------------------------------------------------
    def source(self, target: str, schedule: Schedule) -> str:
        """The source text for ``target`` under ``schedule`` (emitted, for an IR body)."""
        if self.body is not None:
            from .emit import emit

            return emit(self, schedule, target)
        if target not in self.sources:
            raise UnsupportedFeature(
                f"kernel {self.id} has no {target} source (it has: "
                f"{', '.join(self.targets) or 'none'})")
        x, y, z = schedule.workgroup_size
        try:
            return string.Template(self.sources[target]).substitute(
                wg_x=x, wg_y=y, wg_z=z, ipt=schedule.items_per_invocation,
                vec=schedule.vector_width, entry=self.entry_point)
        except (KeyError, ValueError) as exc:
            raise InvalidArgument(f"kernel {self.id}: bad placeholder in {target} "
                                  f"source template: {exc}") from None

    def workgroups(self, schedule: Schedule, size: int,
                   max_per_dimension: int = 65535) -> tuple[int, int, int]:
        """How many workgroups a dispatch of problem ``size`` needs: ``grid`` when the
        kernel has one, else its IR pattern's geometry, else a 1-D dispatch."""
        if self.grid is not None:
            dims = tuple(int(d) for d in self.grid(schedule, size))
            if any(d > max_per_dimension for d in dims):
                raise UnsupportedFeature(
                    f"kernel {self.id} at size {size} needs {dims} workgroups, over "
                    f"max_workgroups_per_dimension={max_per_dimension}")
            return dims  # type: ignore[return-value]
        if self.body is not None:
            from .emit import workgroups

            return workgroups(self, schedule, size, max_per_dimension)
        return schedule.dispatch_workgroups(size, max_per_dimension)

    def check_schedule(self, schedule: Schedule, constraints: Any = None,
                       target: str | None = None) -> None:
        """Raise ``UnsupportedFeature`` (naming the reason) unless ``schedule`` can run
        this kernel: the adapter's limits when ``constraints`` are given, and for an IR
        kernel the pattern's own rules and its workgroup storage (on ``target``, or on
        every target)."""
        if constraints is not None:
            schedule.check(constraints)
        if self.body is not None:
            from .emit import check

            check(self, schedule, target, constraints)

    @property
    def has_reference(self) -> bool:
        return self.reference is not None or self.body is not None

    def run_reference(self, arrays: Sequence[Any]) -> None:
        """Evaluate the kernel's numpy meaning over ``arrays`` (buffers in (group,
        binding) order, each trimmed to its element count; the uniform as a record)."""
        if self.body is not None:
            if len(arrays) != len(self.buffers):
                raise InvalidArgument(f"kernel {self.id} has {len(self.buffers)} buffers, "
                                      f"got {len(arrays)} arrays")
            named = {spec.name: array for spec, array in zip(self.buffers, arrays)
                     if spec.access is not Access.UNIFORM}
            uniform = arrays[[b.access for b in self.buffers].index(Access.UNIFORM)]
            self.body.evaluate(named, uniform)
            return
        if self.reference is None:
            raise UnsupportedFeature(f"kernel {self.id} has no CPU reference")
        self.reference(*arrays)

    # -- arguments -----------------------------------------------------------------
    def pack_uniform(self, size: int, **values: Any) -> np.ndarray:
        """The uniform record for a problem of ``size``: ``defaults``, then the fields
        ``params(size)`` derives, then ``values``. Returns a one-element record array."""
        spec = self.uniform
        if spec is None:
            raise InvalidArgument(f"kernel {self.id} has no uniform block to pack")
        merged = dict(self.defaults)
        if self.params is not None:
            merged.update(self.params(size))
        merged.update(values)
        names = [n for n, _ in spec.fields]
        unknown = set(merged) - set(names)
        if unknown:
            raise InvalidArgument(f"kernel {self.id}: unknown uniform fields {sorted(unknown)}; "
                                  f"fields are {names}")
        missing = [n for n in names if n not in merged]
        if missing:
            raise InvalidArgument(f"kernel {self.id}: uniform fields {missing} have no value")
        record = np.zeros(1, spec.record_dtype)
        for name in names:
            record[name] = merged[name]
        return record

    def check_buffers(self, views: Sequence[BufferView], size: int) -> None:
        """Raise ``InvalidArgument`` unless ``views`` can be bound to this kernel for a
        problem of ``size``: one view per buffer in (group, binding) order, with a
        matching binding, group and usage, and enough bytes."""
        if size < 0:
            raise InvalidArgument(f"element count must be >= 0, got {size}")
        if len(views) != len(self.buffers):
            raise InvalidArgument(f"kernel {self.id} binds {len(self.buffers)} buffers, "
                                  f"got {len(views)} views")
        for view, spec in zip(views, self.buffers):
            if not isinstance(view, BufferView):
                raise InvalidArgument(f"kernel {self.id}: expected BufferView for binding "
                                      f"{spec.binding}, got {type(view).__name__}")
            label = f"kernel {self.id} buffer {spec.name or spec.binding}"
            if (view.group, view.binding) != (spec.group, spec.binding):
                raise InvalidArgument(
                    f"{label} is at group {spec.group} binding {spec.binding}, but the "
                    f"view is at group {view.group} binding {view.binding}")
            if not spec.access.accepts(view.usage):
                raise InvalidArgument(
                    f"{label} is {spec.access.value}; a view of usage {view.usage.name} "
                    f"cannot be bound there (use {spec.access.default_usage.name})")
            need = spec.byte_size(size)
            if view.length_bytes < need:
                raise InvalidArgument(f"{label} needs {need} bytes at size {size}, "
                                      f"the view has {view.length_bytes}")

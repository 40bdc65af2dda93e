"""``KernelSpec`` and ``BufferSpec``: the portable description of a compute kernel
(docs/DESIGN.md section 3), written so that kernels from other projects fit *as
written*.

A kernel names its buffers (binding, group, element type, access, how many elements
for a problem size), an optional uniform block of named fields, and a *body*: either
raw sources per target with a numpy reference function, or an IR pattern
(``forge.ir``) that is lowered to every target and evaluated with numpy. Both bodies
answer the same questions (``KernelBody``): the source for a target, the dispatch
geometry, whether a schedule may run, the CPU meaning.

This module holds the declaration: ``KernelSpec``'s fields, their normalisation and
checks, the bodies, and the public methods. What a method works out lives beside it,
one concern per module, as plain functions of the kernel that the method calls:
``forge._templates`` (the ``{{NAME}}`` values and rendering), ``forge._launch``
(``Dispatch``, ``Step``, and each launch resolved), ``forge._bindings`` (buffers bound,
laid out and checked on a target; the uniform record), ``forge._reference`` (calling
the numpy reference, storing what it returns; the tolerance at a size),
``forge.tunables`` (parameter values and how they reach the sources),
``forge.arguments`` (what each CUDA parameter receives) and ``forge._frozen`` (a kernel
resolved for one run). None of them imports this module but for type checking.

Calling conventions shared by every backend and by hand-written sources:

- WGSL declares buffers with ``@group(g) @binding(b)``; the access the shader declares
  wins over the spec's (an input declared ``var<storage, read_write>`` is bound
  writable, and the oracle still checks that it came back unchanged). A binding holds
  exactly the buffer's elements, so ``arrayLength`` counts them (rounded up to 4
  bytes, and to whole vectors when the shader declares ``array<vec4<f32>>`` over an
  ``f32`` buffer). ``override`` constants take ``overrides``.
- CUDA takes its parameters in the order the ``__global__`` function declares them,
  matched by name: a buffer is a device pointer, a uniform field a scalar by value,
  the uniform block's name the whole struct by value, a scalar named like a
  dimension of the size or a ``params``/``defaults``/``overrides`` value that value
  (``overrides`` give each launch its own). ``arguments`` gives the order
  explicitly, and may name the size (``n``) for a parameter named otherwise; the
  full rules, by position included, are ``forge.arguments``'s. Without a readable
  declaration, buffers come in (group, binding) order and the uniform block last.
  Dynamic shared memory is ``shared_bytes``; NVRTC options ``options["cuda"]``;
  ``defines`` become ``-D`` options; the entry point may be a C++ name
  (``"ns::kernel<float, 256>"``), found through NVRTC's name expressions.
- A 1-D dispatch of more than ``max_workgroups_per_dimension`` workgroups spills into
  y (WebGPU allows 65535 per dimension): a kernel linearises its workgroup as
  ``wg.y * num_workgroups.x + wg.x`` (``blockIdx.y * gridDim.x + blockIdx.x``), reading
  the x extent it was given. CUDA launches up to 2**31 - 1 in x, so it never spills.
- Sources may use template values, written ``{{NAME}}`` (or ``${NAME}``): ``wg_x``,
  ``wg_y``, ``wg_z``, ``ipt``, ``vec``, ``entry``, the size's dimensions (``{{M}}``),
  and the kernel's ``constants``. Only known names are replaced; an unknown
  ``{{NAME}}`` is an error, and any other ``$`` or brace is left as written.
"""

from __future__ import annotations

import abc
import ast
import dataclasses
import functools
import hashlib
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import _bindings, _frozen, _launch, _reference, _templates
from . import layout as _layout
from . import sources as _sources
from . import tunables as _tunables
from ._digest import _callable_digest, _value_digest
from ._launch import Dispatch, Step
from .buffers import LISTS, Access, BufferSpec
from .errors import ForgeError, InvalidArgument, UnsupportedFeature
from .expressions import ceil_div, expression_names, resolve
from .schedule import Schedule
from .size import Size, parse_size
from .sources import TARGETS
from .textures import SamplerSpec
from .types import BufferView

__all__ = [
    "Access",
    "BufferSpec",
    "KernelSpec",
    "KernelBody",
    "RawBody",
    "Dispatch",
    "Step",
    "TARGETS",
    "ceil_div",
]


# -- bodies -------------------------------------------------------------------------------
class KernelBody(abc.ABC):
    """What a kernel computes and how it is lowered; IR patterns and raw sources both
    implement it, so ``KernelSpec`` never asks which kind it holds."""

    kind: str = ""
    #: True where ``forge.emit`` writes the sources: every loop in them ends, being a
    #: counted loop (``for (i = start; i < stop; i += step)``, a positive step, bounds
    #: from sizes the launch passes, each far below 2**32 so that ``i`` never wraps) or
    #: a halving one (``o > 0u; o = o >> 1u``), which tests/test_emit_counted_loops.py
    #: checks; a backend may leave out checks that only guard against loops that do not
    #: (the wgpu backend's ``shader_checks="auto"``). Hand-written sources: False.
    emitted: bool = False

    @abc.abstractmethod
    def targets(self, kernel: KernelSpec) -> tuple[str, ...]:
        """The targets it has source for."""

    @abc.abstractmethod
    def source(self, kernel: KernelSpec, target: str, schedule: Schedule, size: Any) -> str:
        """The text a backend of ``target`` compiles."""

    @abc.abstractmethod
    def workgroups(
        self, kernel: KernelSpec, schedule: Schedule, size: Any, max_per_dimension: int
    ) -> tuple[int, int, int]:
        """Workgroups of the (first) dispatch at ``size``."""

    def check_schedule(  # noqa: B027 - optional: most bodies accept every schedule
        self,
        kernel: KernelSpec,
        schedule: Schedule,
        target: str | None,
        constraints: Any,
    ) -> None:
        """Raise ``UnsupportedFeature`` unless the body can run under ``schedule``."""

    @property
    def has_reference(self) -> bool:
        return True

    @abc.abstractmethod
    def evaluate(
        self, kernel: KernelSpec, arrays: Sequence[Any], size: Any, constraints: Any = None
    ) -> Any:
        """Run the CPU meaning over ``arrays`` (buffers in order, the uniform as a
        record); returns what the function returned (None: wrote in place)."""

    def size(self, kernel: KernelSpec, value: Any) -> Size:
        return parse_size(value, kernel.dims)

    def named_dims(self, kernel: KernelSpec, size: Size) -> Mapping[str, int]:
        """The dimensions that ``bytes_moved`` and ``flops`` expressions name at
        ``size`` (an IR pattern's: ``rows``, ``cols``, ``m``...)."""
        return size.dims

    @abc.abstractmethod
    def describe(self, kernel: KernelSpec) -> dict:
        """JSON-able data defining the body's meaning."""


class RawBody(KernelBody):
    """Hand-written sources per target plus a numpy ``reference`` function."""

    kind = "raw"

    def __init__(self, sources: Mapping[str, str], reference: Callable | None) -> None:
        self.sources = dict(sources)
        self.reference = reference

    def targets(self, kernel: KernelSpec) -> tuple[str, ...]:
        return tuple(t for t in TARGETS if t in self.sources)

    def source(self, kernel: KernelSpec, target: str, schedule: Schedule, size: Any) -> str:
        if target not in self.sources:
            raise UnsupportedFeature(
                f"kernel {kernel.id} has no {target} source (it has: "
                f"{', '.join(self.targets(kernel)) or 'none'})"
            )
        text = self.sources[target]
        return kernel.render(text, schedule, size) if kernel.template else text

    def workgroups(
        self, kernel: KernelSpec, schedule: Schedule, size: Any, max_per_dimension: int
    ) -> tuple[int, int, int]:
        return schedule.dispatch_workgroups(int(size), max_per_dimension)

    @property
    def has_reference(self) -> bool:
        return self.reference is not None

    def evaluate(
        self, kernel: KernelSpec, arrays: Sequence[Any], size: Any, constraints: Any = None
    ) -> Any:
        if self.reference is None:
            raise UnsupportedFeature(f"kernel {kernel.id} has no CPU reference")
        args, named = _reference.reference_call(self.reference, kernel, arrays, size)
        if constraints is not None and kernel.reference_reads_device:
            named["constraints"] = constraints
        return self.reference(*args, **named)

    def describe(self, kernel: KernelSpec) -> dict:
        described: dict[str, Any] = {"sources": {t: self.sources[t] for t in sorted(self.sources)}}
        digest = _callable_digest(self.reference)
        if digest is not None:
            described["reference"] = digest
        return described


def _implied_dims(kernel: KernelSpec, buffers: tuple) -> tuple[str, ...] | None:
    """The dimensions a kernel that declares none means: the keys of its first test size
    given by name (``{"M": 64, "N": 32, "K": 16}``), else, with no ``params`` to give
    other names, the names its buffers' shapes use (``shape=("M", "K")``), in order of
    first use; None where neither does, or the shapes also use ``n`` or a value the
    kernel gives."""
    for size in kernel.test_sizes or ():
        if isinstance(size, Mapping) and size and all(isinstance(k, str) for k in size):
            return tuple(size)
    if kernel.params is not None:
        return None
    names: list[str] = []
    for spec in buffers:
        entries = spec.shape if isinstance(spec.shape, (tuple, list)) else (spec.shape,)
        for entry in entries:
            if not isinstance(entry, str):
                continue
            try:
                tree = ast.parse(entry, mode="eval")
            except SyntaxError:
                return None
            for node in ast.walk(tree):
                if isinstance(node, ast.Name) and node.id not in names:
                    names.append(node.id)
    # the size's own n, or a value the kernel gives (``defaults``, ``constants``,
    # ``overrides``: ``shape=("n // cols", "cols")``), means no dimensions of its own
    given = {*kernel.defaults, *kernel.constants, *kernel.overrides}
    if not names or "n" in names or any(name in given for name in names):
        return None
    return tuple(names)


def _indexed_input(spec: BufferSpec) -> bool:
    """Whether ``spec`` is an input of scalars an output of indices may point into."""
    return spec.access is Access.READ and spec.is_scalar


def _sortable_output(spec: BufferSpec) -> bool:
    """Whether ``spec`` can hold the keys another output is unordered among."""
    return spec.access is Access.READ_WRITE and not spec.scratch and spec.is_scalar


# -- the kernel ---------------------------------------------------------------------------
# WGSL enable-extensions and the feature each needs from the adapter.
_ENABLE_FEATURES = {
    "f16": "f16",
    "subgroups": "subgroups",
    "subgroups_f16": "subgroups",
    # Chrome's name for subgroups in its origin trial (Chrome 125 to 127), in shaders
    # written then (Austin Eng's webgpu-kernels): the backends enable ``subgroups``
    "chromium_experimental_subgroups": "subgroups",
}


@dataclass(frozen=True, eq=False)
class KernelSpec:
    """A compute kernel, described once for every backend (see the module docstring
    for the calling conventions).

    ``sources`` maps a target (``"wgsl"``, ``"cuda"``) to its source; ``reference`` is
    the numpy meaning: called with the buffers as arrays in (group, binding) order (a
    uniform as a record; a buffer with ``shape`` reshaped), or with those its
    parameters name, or with the inputs alone when it takes fewer
    (``forge._reference.reference_call``),
    it writes the outputs in place or returns them (an array, or a tuple in output
    order). A reference that
    takes a ``constraints`` keyword receives the adapter's (e.g. its subgroup size).
    ``params(size)`` derives uniform fields from the problem size and ``defaults``
    gives the rest their usual values; ``grid(schedule, size)`` overrides the 1-D
    dispatch geometry. ``dims`` names the problem size's dimensions (``("M", "N",
    "K")``; a size is then given as ``M=..,N=..,K=..`` or ``64x64x32``).

    What the oracle needs to judge it: ``domain`` maps an input's name to the closed
    range it is defined on (or use the buffer's ``fill``); ``nonfinite_inputs`` says
    whether NaN and +-Inf inputs are in the kernel's contract; ``tolerance`` overrides
    the default tolerances (keys: a dtype name, or ``"backend:NAME"``; or a function of
    the size returning them, for a budget that grows with a reduction's length); ``test_sizes``
    are the sizes checked by default (None: around the first schedule's workgroup
    multiples, with two seeds).

    Per target: ``constants`` (template values: constants, expressions or callables of
    (schedule, size)), ``overrides`` (WGSL ``override`` values; on CUDA the values of
    by-value parameters of those names), ``defines`` (CUDA ``-D``), ``options``
    (compiler options by target), ``include_dirs`` (CUDA), ``shared_bytes`` (CUDA
    dynamic shared memory), ``arguments`` (CUDA parameter order by name: buffers,
    fields, the size's dimensions, params/defaults values), ``launches`` (several
    ``Dispatch``es run as one kernel), and ``requires`` (device features such as
    ``"subgroups"``; a WGSL ``enable`` adds its own), and ``entry_points`` (the entry
    point's name per target, where the sources name it differently). The numpy
    reference never needs them.

    ``body`` is an IR pattern (build one with ``forge.ir.kernel``); a raw kernel gets a
    ``RawBody`` of its sources and reference. ``schedule_roles`` marks schedules by
    their text: ``"big-gpu"`` for those tuned for large devices.

    ``bytes_moved`` and ``flops`` say how much work one run at a size is (None, an
    int, an expression over the size's dimensions such as ``"2*M*N*K"``, or a callable
    of the size), so that results can be placed under a roofline; ``work(size)``
    resolves them.

    ``tunables`` are what a tuner may choose (``{"BLOCK_M": (32, 64, 128)}``; schedule
    knobs under their keys, ``{"vec": (1, 2, 4)}``), ``restrictions`` the rules they obey
    (expressions or callables), ``tuned`` the parameters' values applied (default: each
    one's first); see ``forge.tunables``.
    """

    id: str
    entry_point: str
    buffers: tuple[BufferSpec, ...]
    sources: Mapping[str, str] = field(default_factory=dict)
    reference: Callable[..., Any] | None = None
    version: int = 1
    description: str = ""
    params: Callable[[Any], Mapping[str, Any]] | None = None
    defaults: Mapping[str, Any] = field(default_factory=dict)
    grid: Any = None
    schedules: tuple[Schedule, ...] = ()  # none: Schedule(), or the WGSL literal's size
    requires: frozenset[str] = frozenset()
    tags: tuple[str, ...] = ()
    domain: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    nonfinite_inputs: bool = True
    tolerance: Mapping[str, Any] | Callable[[Any], Mapping[str, Any]] = field(default_factory=dict)
    test_sizes: tuple[Any, ...] | None = None
    body: Any = None
    schedule_roles: Mapping[str, str] = field(default_factory=dict)
    dims: tuple[str, ...] = ("n",)
    constants: Mapping[str, Any] = field(default_factory=dict)
    overrides: Mapping[str, Any] = field(default_factory=dict)
    defines: Mapping[str, Any] = field(default_factory=dict)
    options: Mapping[str, Sequence[str]] = field(default_factory=dict)
    include_dirs: tuple[str, ...] = ()
    shared_bytes: Any = None
    arguments: tuple[str, ...] | None = None
    launches: Any = ()  # Dispatches, or a function of the size returning them
    template: bool = True
    entry_points: Mapping[str, str] = field(default_factory=dict)
    bytes_moved: Any = None
    flops: Any = None
    tunables: Mapping[str, Any] = field(default_factory=dict)
    restrictions: tuple[Any, ...] = ()
    tuned: Mapping[str, Any] = field(default_factory=dict)
    samplers: tuple[SamplerSpec, ...] = ()

    def __post_init__(self) -> None:
        set_ = functools.partial(object.__setattr__, self)
        if isinstance(self.body, RawBody):  # dataclasses.replace of a raw kernel: rebuild it
            set_("body", None)
        if self.body is not None and (self.sources or self.reference is not None):
            raise InvalidArgument(
                f"kernel {self.id}: give an IR body, or raw sources and a reference, not both"
            )
        buffers = self._checked_buffers()
        self._check_samplers(set_, buffers)
        self._normalise_sources(set_, buffers)
        self._normalise_launch_fields(set_)
        self._check_body_and_domain(set_, buffers)
        for size in self.test_sizes or ():
            self.size(size)  # a float or malformed size is refused here, not mid-check
        self._declare_tunables()

    def _checked_buffers(self) -> tuple[BufferSpec, ...]:
        """The id, the entry point and the buffers checked; the buffers in binding order."""
        if not isinstance(self.id, str) or not self.id:
            raise InvalidArgument(f"kernel needs an id, got {self.id!r}")
        if not isinstance(self.entry_point, str) or not _entry_name(self.entry_point):
            raise InvalidArgument(
                f"kernel {self.id}: the entry point must be a function "
                f"name, got {self.entry_point!r}"
            )
        if not isinstance(self.buffers, (tuple, list)) or not all(
            isinstance(b, BufferSpec) for b in self.buffers
        ):
            raise InvalidArgument(f"kernel {self.id}: buffers must be a sequence of BufferSpec")
        buffers = tuple(sorted(self.buffers, key=lambda b: (b.group, b.binding)))
        slots = [(b.group, b.binding) for b in buffers]
        if len(set(slots)) != len(slots):
            raise InvalidArgument(f"kernel {self.id}: two buffers share a (group, binding)")
        named = [b.name for b in buffers if b.name]
        if len(set(named)) != len(named):
            raise InvalidArgument(f"kernel {self.id}: two buffers share a name")
        if sum(b.access is Access.UNIFORM for b in buffers) > 1:
            raise InvalidArgument(f"kernel {self.id}: at most one uniform block")
        for b in buffers:
            if b.unordered == LISTS:
                if any(k.name == LISTS for k in buffers):
                    raise InvalidArgument(
                        f'kernel {self.id}: buffer {b.label}\'s unordered="lists" declares '
                        "lists appended from their own bases, and a buffer is named "
                        '"lists" too: rename that buffer'
                    )
                continue
            if isinstance(b.unordered, str):
                keys = next((k for k in buffers if k.name == b.unordered), None)
                indexed = (
                    keys is not None
                    and _indexed_input(keys)
                    and b.is_scalar
                    and b.dtype.kind in "iu"
                )
                if indexed:
                    continue
                if keys is None or keys is b or keys.unordered or not _sortable_output(keys):
                    raise InvalidArgument(
                        f"kernel {self.id}: buffer {b.label} is unordered among equal "
                        f"{b.unordered!r}, which must name another output of scalars "
                        "(read_write, not scratch, not itself unordered): the keys it was "
                        "sorted with; or, for an output of integer indices into an "
                        "input's rows (an argsort), that input of scalars"
                    )
        return buffers

    def _check_samplers(self, set_: Callable[[str, Any], None], buffers: tuple) -> None:
        """The WGSL sampler bindings checked: SamplerSpecs at bindings of their own."""
        if not isinstance(self.samplers, (tuple, list)) or not all(
            isinstance(s, SamplerSpec) for s in self.samplers
        ):
            raise InvalidArgument(
                f"kernel {self.id}: samplers must be a sequence of forge.SamplerSpec"
            )
        samplers = tuple(sorted(self.samplers, key=lambda s: (s.group, s.binding)))
        slots = [(b.group, b.binding) for b in buffers] + [(s.group, s.binding) for s in samplers]
        if len(set(slots)) != len(slots):
            raise InvalidArgument(
                f"kernel {self.id}: a sampler shares a (group, binding) with a buffer or another "
                "sampler"
            )
        set_("samplers", samplers)

    def _normalise_sources(self, set_: Callable[[str, Any], None], buffers: tuple) -> None:
        """The targets, dimensions and sources checked and stored normalised."""
        unknown = set(self.sources) - set(TARGETS)
        if unknown:
            raise InvalidArgument(
                f"kernel {self.id}: unknown targets {sorted(unknown)}; known: {', '.join(TARGETS)}"
            )
        if isinstance(self.dims, str):
            set_("dims", (self.dims,))
        if tuple(self.dims) == ("n",):  # the default: the names the sizes or shapes use
            set_("dims", _implied_dims(self, buffers) or ("n",))
        if not self.dims or not all(isinstance(d, str) and d.isidentifier() for d in self.dims):
            raise InvalidArgument(
                f"kernel {self.id}: dims must name the size's dimensions, got {self.dims!r}"
            )
        set_("dims", tuple(self.dims))
        set_("buffers", buffers)
        sources = dict(self.sources)
        set_("sources", sources)
        for target, text in sources.items():
            if not isinstance(text, str) or not text.strip():
                raise InvalidArgument(
                    f"kernel {self.id}: the {target} source must be "
                    f"non-empty text, got {type(text).__name__}"
                )
        if "wgsl" in sources:
            sources["wgsl"], buffers = self._push_constants_bound(sources["wgsl"], buffers)
            set_("buffers", buffers)

    def _push_constants_bound(self, source: str, buffers: tuple) -> tuple[str, tuple]:
        """The WGSL with its push constant (``var<push_constant> pc: PC;``, as kernels
        written for wgpu-native set per-dispatch values) bound as the kernel's uniform
        block, at that block's binding: the same values, read the same way, in the form
        every WebGPU implementation binds. Refused, saying what to declare, where the
        kernel has no uniform block or the WGSL uses its binding for something else."""
        pushed = _sources.wgsl_push_constants(source)
        if not pushed:
            return source, buffers
        names = ", ".join(f"`{name}: {type_}`" for name, type_ in pushed)
        if len({name for name, _ in pushed}) > 1:
            raise InvalidArgument(
                f"kernel {self.id}: the WGSL declares push constants {names}; kernel-forge "
                "binds one, as the kernel's uniform block: give each entry point's module "
                "a kernel of its own"
            )
        uniform = next((b for b in buffers if b.access is Access.UNIFORM), None)
        if uniform is None:
            members = _sources.wgsl_structs(source).get(pushed[0][1])
            fields = (
                "(" + ", ".join(f"({m.name!r}, {m.type!r})" for m in members) + ")"
                if members
                else "(...)"
            )
            taken = {(b.group, b.binding) for b in _sources.wgsl_bindings(source)}
            taken |= {(b.group, b.binding) for b in buffers}
            free = next(n for n in range(len(taken) + 1) if (0, n) not in taken)
            raise InvalidArgument(
                f"kernel {self.id}: the WGSL's push constant {names} is bound as the "
                "kernel's uniform block (the values the host pushes for a dispatch): "
                f"declare BufferSpec.uniform({free}, {fields}) at a binding the WGSL "
                "does not use"
            )
        clash = [
            b
            for b in _sources.wgsl_bindings(source) + _sources.wgsl_handle_bindings(source)
            if (b.group, b.binding) == (uniform.group, uniform.binding)
        ]
        if clash:
            raise InvalidArgument(
                f"kernel {self.id}: the WGSL's push constant {names} is bound as the "
                f"kernel's uniform block, at @group({uniform.group}) "
                f"@binding({uniform.binding}), where the WGSL declares `{clash[0].name}`: "
                "give the uniform block a binding the WGSL does not use"
            )
        # a type that the uniform rules lay out otherwise than WGSL's own (an array of
        # stride 4, a member right after a struct), which naga takes as a push constant and
        # refuses as a uniform: bound read-only storage, its record by the storage rules
        record = _layout.parse_type(uniform.fields)
        storage = _layout.scalar_lanes(record, "wgsl-uniform") != _layout.scalar_lanes(
            record, "wgsl-storage"
        )
        if storage:
            buffers = tuple(
                dataclasses.replace(b, storage_layout=True) if b is uniform else b for b in buffers
            )
        bound = _sources.wgsl_push_constants_bound(
            source, uniform.group, uniform.binding, storage=storage
        )
        return bound, buffers

    def _normalise_launch_fields(self, set_: Callable[[str, Any], None]) -> None:
        """Schedules, features, launches, entry points, options and sizes normalised."""
        set_("schedules", tuple(self.schedules) or (self._default_schedule(),))
        if not all(isinstance(s, Schedule) for s in self.schedules):
            raise InvalidArgument(f"kernel {self.id}: schedules must be Schedule objects")
        self._check_wgsl_declarations()
        self._check_launch_bindings()
        requires = (self.requires,) if isinstance(self.requires, str) else self.requires
        if not all(isinstance(f, str) for f in requires):
            raise InvalidArgument(
                f"kernel {self.id}: requires names device features, got {self.requires!r}"
            )
        set_("requires", frozenset(requires))
        set_("schedule_roles", dict(self.schedule_roles))
        if not callable(self.launches):  # else a function of the size (a pass count)
            set_("launches", tuple(self.launches))
        set_("entry_points", dict(self.entry_points))
        for target, entry in self.entry_points.items():
            if target not in TARGETS or not isinstance(entry, str) or not _entry_name(entry):
                raise InvalidArgument(
                    f"kernel {self.id}: entry_points maps a target "
                    f"({', '.join(TARGETS)}) to a function name, got "
                    f"{target!r}: {entry!r}"
                )
        set_("include_dirs", tuple(self.include_dirs))
        set_("options", {t: tuple(o) for t, o in dict(self.options).items()})
        if self.arguments is not None:
            set_("arguments", tuple(self.arguments))
        if self.test_sizes is not None:
            set_("test_sizes", tuple(self.test_sizes))
        for key in self.options:
            if key not in TARGETS:
                raise InvalidArgument(
                    f"kernel {self.id}: options are keyed by target "
                    f"({', '.join(TARGETS)}), got {key!r}"
                )

    def _literal_wgsl(self) -> tuple[str, str] | None:
        """The raw WGSL source (when it is no template) and its entry point's name."""
        text = self.sources.get("wgsl")
        if text is None or (self.template and ("{{" in text or "${" in text)):
            return None
        return text, self.entry_points.get("wgsl", self.entry_point)

    def _default_schedule(self) -> Schedule:
        """A kernel that declares no schedule runs with the one its WGSL entry point
        declares (``@workgroup_size(256)``: ``Schedule(256)``, so that reports, grids and
        a CUDA port's block agree with it; literals, module-scope ``const`` values and
        ``override`` defaults the kernel does not set), else ``Schedule()``."""
        literal = self._literal_wgsl()
        declared = (
            _sources.wgsl_workgroup_size(*literal, self._override_values()) if literal else None
        )
        return Schedule(declared) if declared else Schedule()

    def _override_values(self) -> Mapping[Any, Any] | None:
        """The ``overrides`` the kernel sets, as ``wgsl_workgroup_size`` takes them."""
        return self.overrides if isinstance(self.overrides, Mapping) else None

    def _check_launch_bindings(self) -> None:
        """Refuse, when the kernel is made, launches' ``bindings`` that name a variable
        its literal WGSL does not declare or a buffer it does not have (a function of
        the size, or a template source, is checked where its launches resolve)."""
        if callable(self.launches) or not any(
            isinstance(d, Dispatch) and d.bindings for d in self.launches
        ):
            return
        literal = self._literal_wgsl()
        for dispatch in self.launches:
            if not isinstance(dispatch, Dispatch) or not dispatch.bindings:
                continue
            if literal is None and "wgsl" in self.sources:
                continue  # a template: checked once rendered
            if "wgsl" not in self.sources:
                _bindings.cuda_aliases(self, dispatch, None)  # refuses unknown buffers
                continue
            assert literal is not None
            _bindings.launch_slots(self, dispatch, "wgsl", literal[0])

    def _check_wgsl_declarations(self) -> None:
        """Refuse what a raw WGSL kernel declares against its own source: ``overrides``
        the source does not declare, and ``Schedule(8, 8)`` (a workgroup of 8 with 8
        items per invocation) beside ``@workgroup_size(8, 8)``."""
        literal = self._literal_wgsl()
        if literal is None:
            return
        text, entry = literal
        undeclared = _sources.wgsl_undeclared_overrides(text, self.overrides)
        if undeclared:
            raise InvalidArgument(f"kernel {self.id}: overrides names {undeclared}")
        size = _sources.wgsl_workgroup_size(text, entry, self._override_values())
        for schedule in self.schedules:
            if (
                size is not None
                and size[1] > 1
                and schedule.workgroup_size == (size[0], 1, 1)
                and schedule.items_per_invocation == size[1]
            ):
                raise InvalidArgument(
                    f"kernel {self.id}: Schedule({size[0]}, {size[1]}) is a workgroup of "
                    f"{size[0]} invocations with {size[1]} items each (its arguments are "
                    "workgroup_size, items_per_invocation), but the WGSL entry point "
                    f"{entry} declares @workgroup_size({size[0]}, {size[1]}): for that "
                    f"workgroup write Schedule(({size[0]}, {size[1]}))"
                )

    def _check_body_and_domain(self, set_: Callable[[str, Any], None], buffers: tuple) -> None:
        """The body (a raw kernel's made from its sources) and the domain's buffer names."""
        if self.body is None:
            set_("body", RawBody(self.sources, self.reference))
        elif not isinstance(self.body, KernelBody):
            raise InvalidArgument(
                f"kernel {self.id}: body must be a KernelBody (an IR "
                f"pattern from forge.ir.kernel), got {type(self.body).__name__}"
            )
        names = {b.name for b in buffers}
        unknown_domain = set(self.domain) - names
        if unknown_domain:
            raise InvalidArgument(
                f"kernel {self.id}: domain names unknown buffers {sorted(unknown_domain)}"
            )
        written = sorted(
            b.name for b in buffers if b.name in self.domain and b.is_output and not b.inout
        )
        if written:
            raise InvalidArgument(
                f"kernel {self.id}: domain names outputs {written}; a domain bounds the "
                "values drawn for inputs (and inout buffers), not what a kernel writes"
            )

    def _declare_tunables(self) -> None:
        """Normalise ``tunables``, ``restrictions`` and ``tuned``, refusing what is wrong
        in itself (the sources are asked later, by ``forge.tunables.check_tunables``)."""
        set_ = functools.partial(object.__setattr__, self)
        set_("tunables", _tunables.declared(self.id, self.tunables))
        restrictions = self.restrictions
        if isinstance(restrictions, str) or callable(restrictions):
            restrictions = (restrictions,)
        set_("restrictions", tuple(restrictions))
        for restriction in self.restrictions:
            if isinstance(restriction, str):
                expression_names(restriction)  # refuses what does not parse
            elif not callable(restriction):
                raise InvalidArgument(
                    f"kernel {self.id}: a restriction is an expression or a "
                    f"callable of the parameters, got {restriction!r}"
                )
        set_("tuned", dict(self.tuned))
        for name, value in self.tuned.items():
            tunable = self.tunables.get(name)
            if tunable is None or name in _tunables.SCHEDULE_KEYS:
                raise InvalidArgument(
                    f"kernel {self.id}: tuned names {name!r}, which is not "
                    "one of its parameters (schedule knobs go into the "
                    "schedule)"
                )
            if not any(value == v and type(value) is type(v) for v in tunable.values):
                raise InvalidArgument(
                    f"kernel {self.id}: {value!r} is not one of {name}'s values {tunable.values}"
                )

    def __repr__(self) -> str:
        return f"KernelSpec({self.id!r}, v{self.version}, targets={list(self.targets)})"

    # -- description ---------------------------------------------------------------
    @property
    def targets(self) -> tuple[str, ...]:
        """The targets this kernel has source for."""
        return self.body.targets(self)

    @property
    def uniform(self) -> BufferSpec | None:
        return next((b for b in self.buffers if b.access is Access.UNIFORM), None)

    @property
    def outputs(self) -> tuple[BufferSpec, ...]:
        """The buffers judged against the reference (read-write, not scratch)."""
        return tuple(b for b in self.buffers if b.is_output)

    @property
    def inputs(self) -> tuple[BufferSpec, ...]:
        return tuple(b for b in self.buffers if b.access is Access.READ)

    def buffer(self, name: str) -> BufferSpec:
        for spec in self.buffers:
            if spec.label == name:
                return spec
        raise InvalidArgument(
            f"kernel {self.id} has no buffer {name!r}; its buffers: "
            f"{', '.join(b.label for b in self.buffers)}"
        )

    def describe(self) -> dict:
        """Everything that defines the kernel's meaning, as JSON-able data."""
        described = {
            "id": self.id,
            "entry_point": self.entry_point,
            "version": self.version,
            "buffers": [b.describe() for b in self.buffers],
            "defaults": {k: _value_digest(self.defaults[k]) for k in sorted(self.defaults)},
            "requires": sorted(self.requires),
            "domain": {k: list(self.domain[k]) for k in sorted(self.domain)},
            "nonfinite_inputs": self.nonfinite_inputs,
            "dims": list(self.dims),
            "body": self.body.describe(self),
        }
        if self.samplers:
            described["samplers"] = [s.describe() for s in self.samplers]
        extras = {
            "constants": self.constants,
            "overrides": self.overrides,
            "entry_points": self.entry_points,
            "defines": self.defines,
            "options": self.options,
            "include_dirs": self.include_dirs,
            "shared_bytes": self.shared_bytes,
            "arguments": self.arguments,
            "params": self.params,
            "grid": self.grid,
        }
        for name, value in extras.items():
            if value:
                described[name] = _value_digest(value)
        if callable(self.launches):
            described["launches"] = _callable_digest(self.launches)
        elif self.launches:
            described["launches"] = [d.describe() for d in self.launches]
        if self.tunable_values():
            described["tuned"] = _value_digest(self.tunable_values())
        return described

    def work(self, size: Any) -> dict[str, int | None]:
        """``bytes_moved`` and ``flops`` at ``size`` (None where not declared); an
        ``InvalidArgument`` names a declaration that does not give a count >= 0."""
        size = self.size(size)
        named = Size(dict(self.body.named_dims(self, size)))
        found: dict[str, int | None] = {}
        for what in ("bytes_moved", "flops"):
            declared = getattr(self, what)
            try:
                value = resolve(
                    declared,
                    None,
                    named if isinstance(declared, str) else size,
                    f"kernel {self.id} {what}",
                    with_schedule=False,
                )
            except InvalidArgument as exc:
                if not isinstance(declared, str):
                    raise  # resolve named the kernel's function already
                raise InvalidArgument(f"kernel {self.id} {what}: {exc}") from None
            if value is not None and (
                isinstance(value, bool)
                or not isinstance(value, (int, float, np.integer, np.floating))
                or not 0 <= value < math.inf
            ):
                raise InvalidArgument(
                    f"kernel {self.id}: {what} at size {size} must be a count >= 0, got {value!r}"
                )
            found[what] = None if value is None else int(value)
        return found

    def declared_work(self, size: Any) -> dict[str, Any]:
        """``work(size)`` for a saved result: never raises; a declaration that fails
        gives None for both and says why under ``work_error``."""
        try:
            return self.work(size)
        except ForgeError as exc:
            return {"bytes_moved": None, "flops": None, "work_error": str(exc)}

    # -- tunables (forge.tunables) -------------------------------------------------
    def tunable_values(self) -> dict[str, Any]:
        """Each parameter (a tunable that is not a schedule knob) with the value it has
        in this kernel: ``tuned``, else its first."""
        return _tunables.parameter_values(self)

    def with_tunables(self, values: Mapping[str, Any] | None = None, **more: Any) -> KernelSpec:
        """This kernel with parameter values applied: an ordinary ``KernelSpec`` whose
        semantic hash covers them (raises ``InvalidArgument`` for an unknown name or a
        value that was not declared)."""
        return _tunables.with_values(self, {**(values or {}), **more})

    @functools.cached_property
    def _channels(self) -> dict[tuple[str, str], str | None]:
        """How each parameter reaches each target's source, made once per kernel (what
        ``forge.tunables.passed`` reads)."""
        return _tunables.channels(self)

    def schedule_role(self, schedule: Schedule) -> str:
        """``"baseline"`` (portable) unless ``schedule_roles`` says otherwise."""
        return self.schedule_roles.get(str(schedule), "baseline")

    @functools.cached_property
    def semantic_hash(self) -> str:
        """sha256 of ``describe()`` in canonical JSON: equal for equal kernels, in any
        process."""
        text = json.dumps(self.describe(), sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(text.encode()).hexdigest()

    # -- sizes ---------------------------------------------------------------------
    def size(self, value: Any) -> Size:
        """``value`` (an int, ``"4096x32768"``, ``"M=..,N=.."``, a mapping, a Size) as
        this kernel's problem size."""
        return self.body.size(self, value)

    def checked_sizes(self) -> tuple[Size, ...]:
        """The sizes checked by default: ``test_sizes``, or around the first schedule's
        workgroup multiples (1, one below, at and one above a multiple, a prime; with
        several dimensions those are square, of a side halved until all of them hold
        at most ``_SQUARE_ELEMENTS``, and the last is primes that all differ, 67 x 41 x
        53...)."""
        if self.test_sizes is not None:
            return tuple(self.size(s) for s in self.test_sizes)
        schedule = self.schedules[0]
        values: tuple[Any, ...]
        if len(self.dims) == 1:
            multiple = 2 * schedule.elements_per_workgroup
            values = (1, multiple - 1, multiple, multiple + 1, 10007)
        else:  # square sizes, then one whose dimensions all differ: a kernel that reads
            # one dimension for another (a GEMM's N for its K) passes every square size
            multiple = 2 * max(schedule.workgroup_size)
            # a side whose power stays a few million elements, where one buffer holds
            # every combination of the dimensions (a (batch, dim1, dim2) tensor): 513^3
            # was 135 million, 45 s to draw and past WebGPU's 128 MiB binding (round 58)
            while multiple > 2 and (multiple + 1) ** len(self.dims) > _SQUARE_ELEMENTS:
                multiple //= 2
            values = (
                1,
                multiple - 1,
                multiple,
                multiple + 1,
                (_UNEQUAL + (1,) * len(self.dims))[: len(self.dims)],
            )
        return tuple(dict.fromkeys(self.size(v) for v in values))

    def checked_seeds(self) -> tuple[int, ...]:
        """Seeds checked by default: two when the sizes are derived, else one."""
        return (0, 1) if self.test_sizes is None else (0,)

    def largest_size(self) -> Size:
        return max(self.checked_sizes(), key=int)

    # -- lowering: templates (forge._templates), launches (forge._launch) ----------
    def template_values(self, schedule: Schedule, size: Any) -> dict[str, Any]:
        """The values ``{{NAME}}`` may use: schedule, size dimensions, constants."""
        return _templates.template_values(self, schedule, size)

    def render(self, text: str, schedule: Schedule, size: Any) -> str:
        """``text`` with every known ``{{NAME}}`` / ``${NAME}`` replaced."""
        return _templates.render(self, text, schedule, size)

    def source(self, target: str, schedule: Schedule, size: Any = None) -> str:
        """The source text for ``target`` under ``schedule`` at ``size`` (a source that
        uses no size dimension does not need one)."""
        if not isinstance(schedule, Schedule):
            raise InvalidArgument(f"expected a Schedule, got {type(schedule).__name__}")
        if target not in TARGETS:
            raise InvalidArgument(f"unknown target {target!r}; known: {', '.join(TARGETS)}")
        return self.body.source(self, target, schedule, size)

    def workgroups(
        self, schedule: Schedule, size: Any, max_per_dimension: int = 65535
    ) -> tuple[int, int, int]:
        """How many workgroups a single-launch kernel's dispatch of ``size`` needs:
        ``grid`` when the kernel has one, else the body's geometry."""
        return _launch.workgroups(self, schedule, size, max_per_dimension)

    def steps(
        self,
        target: str | None,
        schedule: Schedule,
        size: Any,
        max_per_dimension: int = 65535,
        source: str | None = None,
    ) -> tuple[Step, ...]:
        """Each launch this kernel makes on ``target``, resolved (``forge._launch``)."""
        return _launch.steps(self, target, schedule, size, max_per_dimension, source)

    def launches_at(self, size: Any) -> tuple[Dispatch, ...]:
        """The launches at ``size``: ``launches``, or what ``launches(size)`` returns
        (a number of passes that grows with the size)."""
        return _launch.launches_at(self, size)

    def check_schedule(
        self, schedule: Schedule, constraints: Any = None, target: str | None = None
    ) -> None:
        """Raise ``UnsupportedFeature`` (naming the reason) unless ``schedule`` can run
        this kernel: the adapter's limits when ``constraints`` are given, and the
        body's own rules (for an IR kernel: its pattern and workgroup storage). The one
        schedule check the backends, the oracle and the tuner ask. A WGSL kernel of
        ``launches`` is not held to the adapter's limits by its own schedule: each launch
        runs its own schedule or what its entry point declares, and the backend checks
        each launch's workgroup (cuda-samples' bitonic sort: blocks of 512 on CUDA, 256
        in its port, was refused where 256 is the most, round 38)."""
        if not isinstance(schedule, Schedule):
            raise InvalidArgument(f"expected a Schedule, got {type(schedule).__name__}")
        if constraints is not None and not (target == "wgsl" and self.launches):
            schedule.check(constraints)
        self.body.check_schedule(self, schedule, target, constraints)

    def features(self, target: str | None, source: str | None = None) -> frozenset[str]:
        """Device features the kernel needs on ``target`` (none for the numpy
        reference): ``requires`` plus what a WGSL ``enable`` asks for."""
        if target is None:
            return frozenset()
        found = set(self.requires)
        if target == "wgsl" and source is not None:
            found |= {_ENABLE_FEATURES.get(e, e) for e in _sources.wgsl_enables(source)}
            if _sources.wgsl_uses_subgroups(source):  # written for naga, with no ``enable``
                found.add("subgroups")
        # A WGSL source that computes in f16 must say ``enable f16;`` (read above); an
        # f16 buffer it reads as u32 words (``unpack2x16float``) needs no shader-f16.
        wide_only = target == "wgsl" and source is not None
        for spec in self.buffers:
            scalars = _layout.parse_type(spec.type).scalars()
            found |= {s for s in scalars if s == "f64" or (s == "f16" and not wide_only)}
        return frozenset(found)

    def compile_options(self, target: str) -> tuple[str, ...]:
        """Compiler options for ``target``: ``options[target]``, CUDA ``defines`` as
        ``-D``, ``include_dirs`` as ``-I``."""
        options = list(self.options.get(target, ()))
        if target == "cuda":
            options += [f"-D{k}" if v is True else f"-D{k}={v}" for k, v in self.defines.items()]
            defines = _tunables.passed(self, target, "define")
            options += [f"-D{k}={_templates.as_text(v)}" for k, v in defines.items()]
            options += [f"--include-path={d}" for d in self.include_dirs]
        return tuple(options)

    # -- the reference and its tolerance (forge._reference) ------------------------
    @property
    def has_reference(self) -> bool:
        return self.body.has_reference

    @functools.cached_property
    def reference_reads_device(self) -> bool:
        """Whether the numpy reference takes the adapter's ``constraints``."""
        return _reference.reads_device(self)

    def reference_arrays(self, arrays: Sequence[Any], size: Any) -> list[Any]:
        """The arrays the reference sees: each buffer reshaped to its ``shape``, the
        uniform as its record."""
        return _reference.reference_arrays(self, arrays, size)

    def run_reference(
        self, arrays: Sequence[Any], size: Any = None, constraints: Any = None
    ) -> None:
        """Evaluate the kernel's numpy meaning over ``arrays`` (buffers in (group,
        binding) order, the uniform as a record) and leave the outputs in them, written in
        place or returned; ``ReferenceFailed`` says what did not fit (``forge._reference``)."""
        _reference.run_reference(self, arrays, size, constraints)

    def tolerance_at(self, size: Any) -> Mapping[str, Any]:
        """The tolerance table at ``size``: ``tolerance``, or what ``tolerance(size)``
        returns."""
        return _reference.tolerance_at(self, size)

    # -- bindings and buffers (forge._bindings) ------------------------------------
    def access_on(
        self, target: str | None, source: str | None, size: Any = None, slots: bool = False
    ) -> tuple[Access, ...]:
        """Each buffer's access as bound on ``target``: what the WGSL source declares
        (an input declared ``read_write`` is bound writable), else the spec's; one that
        a launch binds to a ``read_write`` variable (``Dispatch.bindings``) is bound
        writable. ``slots=True``: the access each (group, binding) is declared with
        (``launches`` given as a function are asked at ``size``)."""
        return _bindings.access_on(self, target, source, size, slots)

    def length_read(
        self, target: str | None, source: str | None, size: Any = None
    ) -> tuple[bool, ...]:
        """Per buffer, whether the kernel can read its binding's length (WGSL
        ``arrayLength``; a CUDA pointer carries none)."""
        return _bindings.length_read(self, target, source, size)

    def binding_granules(
        self, target: str | None, source: str | None, size: Any = None
    ) -> tuple[int, ...]:
        """Per buffer, how many elements the binding is rounded up to (4 for
        ``array<vec4<f32>>`` over ``f32``)."""
        return _bindings.binding_granules(self, target, source, size)

    def check_uniform_layout(self, target: str | None, source: str | None) -> None:
        """Raise ``InvalidArgument`` where the WGSL source's uniform struct reads its
        fields at other bytes (or as another kind) than the spec lays them out."""
        _bindings.check_uniform_layout(self, target, source)

    def scalar_values(self, size: Any) -> dict[str, Any]:
        """``defaults``, then the values ``params(size)`` derives: the fields of the
        uniform block, or, for a CUDA kernel without one, its scalar parameters by name."""
        return _bindings.scalar_values(self, size)

    def pack_uniform(self, size: Any, **values: Any) -> np.ndarray:
        """The uniform record for a problem of ``size``: ``defaults``, then ``params(size)``,
        then ``values``, then the size's dimensions, as a one-element record array."""
        return _bindings.pack_uniform(self, size, **values)

    def buffer_bytes(
        self,
        spec: BufferSpec,
        values: np.ndarray,
        target: str | None,
        fill: np.ndarray | None = None,
    ) -> np.ndarray:
        """``values`` (logical) of buffer ``spec`` laid out for ``target``."""
        return _bindings.buffer_bytes(spec, values, target, fill)

    def buffer_values(self, spec: BufferSpec, raw: np.ndarray, target: str | None) -> np.ndarray:
        """The logical values held by ``raw`` (of ``spec.dtype_for(target)``)."""
        return _bindings.buffer_values(spec, raw, target)

    def check_buffers(
        self,
        views: Sequence[BufferView],
        size: Any,
        target: str | None = None,
        accesses: Sequence[Access] | None = None,
    ) -> None:
        """Raise ``InvalidArgument`` unless ``views`` can be bound to this kernel for a
        problem of ``size`` (one per buffer, at its binding, of a usage it accepts, with
        enough bytes)."""
        _bindings.check_buffers(self, views, size, target, accesses)

    # -- freezing (forge._frozen) --------------------------------------------------
    def frozen(
        self, target: str | None, schedule: Schedule, size: Any, max_per_dimension: int = 65535
    ) -> KernelSpec:
        """This kernel resolved for one target, schedule and size: raw source text, fixed
        counts, geometry and constants, no Python functions. It pickles, so a worker
        process (which never imports the kernel's own module) can run it; its meaning is
        the original's at exactly this run."""
        return KernelSpec(**_frozen.frozen_fields(self, target, schedule, size, max_per_dimension))


#: The last default size's dimensions where a kernel has several (``checked_sizes``):
#: primes, no two alike, none a multiple of a workgroup; from the fourth on small, so
#: that a batch of 4-D tensors stays a few million elements (1 past the eighth).
_UNEQUAL = (67, 41, 53, 11, 7, 5, 3, 2)

#: The most elements a default square size may hold counted over all its dimensions
#: (``checked_sizes``): its side is halved from twice the workgroup until it fits.
_SQUARE_ELEMENTS = 2**24


def _entry_name(entry: str) -> bool:
    """An identifier, or a C++ name expression for NVRTC (``ns::k<float, 4>``), which
    may name an overload by its parameter types (``apply(float*, unsigned)``)."""
    if entry.isidentifier():
        return True
    return bool(re.match(r"^[A-Za-z_][\w:]*\s*(<.*>)?\s*(\(.*\))?$", entry.strip(), re.S))


def iter_specs(values: Iterable[Any]) -> list[KernelSpec]:
    """The ``KernelSpec`` objects among ``values``, and in the lists, tuples and dicts
    among them (``KERNELS = [a, b]``), each once, in order."""
    seen: dict[int, KernelSpec] = {}
    for value in values:
        inner = value.values() if isinstance(value, dict) else value
        for item in inner if isinstance(value, (list, tuple, dict)) else (value,):
            if isinstance(item, KernelSpec) and id(item) not in seen:
                seen[id(item)] = item
    return list(seen.values())

"""Tunables: the parameters of a kernel a tuner may choose, and the restrictions they
obey (docs/DESIGN.md section 3).

A kernel declares ``tunables={"BLOCK_M": (32, 64, 128), "UNROLL": (1, 2, 4)}`` and
``restrictions=("BLOCK_M * UNROLL <= 256", callable)``. A name is one of two kinds:

- a knob of the schedule, under its short key (``wg``, ``ipt``, ``vec``, ``tile``,
  ``grid``): each value replaces that field of the kernel's first schedule. IR kernels
  are tuned this way, since their emitters read the schedule;
- any other identifier is the kernel's own parameter, with its first value as the
  default. Its value reaches each source one way, decided from the source unless the
  declaration says (``Tunable(values, via="define")``): a WGSL ``override`` declaration
  takes it as an override constant, else a ``{{NAME}}`` in the source is replaced by it
  as text, else CUDA gets ``-DNAME=value``. ``{{NAME}}`` works everywhere (entry
  points included) whatever the way.

``KernelSpec.with_tunables(BLOCK_M=64)`` is the same kernel with that value applied:
an ordinary ``KernelSpec`` whose semantic hash covers the values, judged by the oracle
like any other.

A restriction is an expression (arithmetic, comparisons, ``and``/``or``/``not``, an index
into a tuple: ``tile[0]``) or a callable of one mapping, over the tunables' names, the
schedule's values (``wg_x``, ``wg_y``, ``wg_z``, ``ipt``, ``vec``, ``tile``, ``grid``),
the problem size's dimensions (and ``size``), and the adapter's limits when tuning
(``max_workgroup_storage_bytes``, ``max_invocations_per_workgroup``: every field of
``AdapterConstraints``). A declaration the sources cannot take, or a restriction naming
an unknown parameter, is an ``InvalidArgument`` before anything runs
(``check_tunables``).
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import sources as _sources
from .errors import ForgeError, InvalidArgument
from .expressions import evaluate_expression, expression_names

if TYPE_CHECKING:  # forge.kernel asks this module, never the other way round
    from .kernel import KernelSpec
from .schedule import _KEYS as SCHEDULE_KEYS
from .schedule import Schedule
from .size import Size
from .types import AdapterConstraints

__all__ = [
    "Tunable",
    "SCHEDULE_KEYS",
    "VIA",
    "declared",
    "check_tunables",
    "channel",
    "channels",
    "parameter_values",
    "with_values",
    "passed",
    "parameters",
    "restriction_failure",
    "combinations",
    "apply_knobs",
    "format_value",
    "describe",
]

#: The ways a value reaches a source: template text, a WGSL override, a CUDA -D.
VIA = ("template", "override", "define")
# Names every template already gives a meaning: a tunable may not take them.
_RESERVED = {"wg_x", "wg_y", "wg_z", "ipt", "vec", "entry", "size", "n"}
# Override types and the values each accepts.
_OVERRIDE_TYPES: dict[str, Callable[[Any], bool]] = {
    "u32": lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**32,
    "i32": lambda v: isinstance(v, int) and not isinstance(v, bool) and -(2**31) <= v < 2**31,
    "f32": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "f16": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "bool": lambda v: isinstance(v, bool),
    "": lambda v: isinstance(v, (int, float, bool)),
}


@dataclass(frozen=True)
class Tunable:
    """The values a parameter may take (the first is its default) and, optionally, the
    way it reaches the sources (``via``: one of ``VIA``; None decides from each source)."""

    values: tuple
    via: str | None = None

    def __post_init__(self) -> None:
        values = self.values
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
            values = (values,)
        object.__setattr__(
            self, "values", tuple(tuple(v) if isinstance(v, list) else v for v in values)
        )
        if self.via is not None and self.via not in VIA:
            raise InvalidArgument(
                f"via must be one of {', '.join(VIA)} (or None), got {self.via!r}"
            )

    @property
    def default(self) -> Any:
        return self.values[0]


def format_value(value: Any) -> str:
    """A value as source text and in listings: ``True`` is 1, a tuple ``64x64x8``."""
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, tuple):
        return "x".join(map(str, value))
    return str(value)


def describe(schedule: Schedule, values: Mapping[str, Any]) -> str:
    """A candidate as text: its schedule, then its parameter values (``wg=16x16,ipt=1,
    vec=1 tile_size_x=4,tile_size_y=2``)."""
    if not values:
        return str(schedule)
    return f"{schedule} " + ",".join(f"{k}={format_value(v)}" for k, v in values.items())


def declared(kernel_id: str, tunables: Mapping[str, Any]) -> dict[str, Tunable]:
    """``tunables`` as ``Tunable`` declarations, each checked for its own sake: an
    identifier, at least one value, no value twice, values a schedule knob or a source
    can hold."""
    found: dict[str, Tunable] = {}
    for name, spec in dict(tunables).items():
        tunable = spec if isinstance(spec, Tunable) else Tunable(spec)
        where = f"kernel {kernel_id}: tunable {name!r}"
        if not isinstance(name, str) or not name.isidentifier():
            raise InvalidArgument(
                f"kernel {kernel_id}: a tunable's name must be an identifier, got {name!r}"
            )
        if not tunable.values:
            raise InvalidArgument(f"{where} has no values")
        if len(set(map(repr, tunable.values))) != len(tunable.values):
            raise InvalidArgument(f"{where} lists a value twice: {tunable.values}")
        if name in SCHEDULE_KEYS:
            _check_knob(where, name, tunable)
        else:
            _check_parameter(where, name, tunable)
        found[name] = tunable
    return found


def _check_knob(where: str, name: str, tunable: Tunable) -> None:
    if tunable.via is not None:
        raise InvalidArgument(
            f"{where} is a schedule knob: it reaches the kernel through "
            "the schedule, so it takes no via="
        )
    for value in tunable.values:
        try:
            Schedule().with_(**{SCHEDULE_KEYS[name]: value})
        except (ForgeError, TypeError) as exc:
            raise InvalidArgument(f"{where}: {value!r} is not a schedule's {name}: {exc}") from None


def _check_parameter(where: str, name: str, tunable: Tunable) -> None:
    if name in _RESERVED:
        raise InvalidArgument(f"{where}: {name} is a template value already; choose another name")
    for value in tunable.values:
        if not isinstance(value, (bool, int, float, str)):
            raise InvalidArgument(
                f"{where}: {value!r} is a {type(value).__name__}; a "
                "source takes a number, a bool or a string"
            )
        if isinstance(value, str) and tunable.via == "override":
            raise InvalidArgument(
                f"{where}: a WGSL override takes numbers and bools, not {value!r}"
            )


def _mentions(source: str, name: str) -> tuple[bool, bool]:
    """(the source writes ``{{NAME}}``, the source names NAME at all)."""
    text = _sources.strip_comments(source)
    template = re.search(r"\{\{\s*" + name + r"\s*\}\}|\$\{" + name + r"\}", text) is not None
    return template, template or re.search(r"\b" + name + r"\b", text) is not None


def channel(kernel: KernelSpec, name: str, target: str) -> str | None:
    """How parameter ``name`` reaches ``target``'s source: ``"override"``,
    ``"template"``, ``"define"``, or None when that source does not take it."""
    tunable = kernel.tunables[name]
    source = kernel.body.sources.get(target) if kernel.body.kind == "raw" else None
    if source is None:
        return None
    template, mentioned = _mentions(source, name)
    if target == "wgsl":
        if tunable.via == "define":
            return None
        if name in _sources.wgsl_overrides(source):
            return "override"
        return "template" if template and tunable.via != "override" else None
    if tunable.via == "template" or (tunable.via is None and template):
        return "template"
    return "define" if mentioned or tunable.via is not None else None


def parameter_values(kernel: KernelSpec) -> dict[str, Any]:
    """Each parameter (a tunable that is not a schedule knob) with the value it has in
    ``kernel``: ``tuned``, else its first (``KernelSpec.tunable_values``)."""
    return {
        name: kernel.tuned.get(name, tunable.default)
        for name, tunable in kernel.tunables.items()
        if name not in SCHEDULE_KEYS
    }


def with_values(kernel: KernelSpec, values: Mapping[str, Any]) -> KernelSpec:
    """``kernel`` with parameter ``values`` applied over its ``tuned``: itself when
    nothing changes, else an ordinary ``KernelSpec`` whose semantic hash covers them,
    keeping the ``origin`` a kernel file gave it (``KernelSpec.with_tunables``)."""
    tuned = {**kernel.tuned, **values}
    if tuned == kernel.tuned:
        return kernel
    applied = dataclasses.replace(kernel, tuned=tuned)
    if "origin" in kernel.__dict__:
        object.__setattr__(applied, "origin", kernel.__dict__["origin"])
    return applied


def channels(kernel: KernelSpec) -> dict[tuple[str, str], str | None]:
    """How each parameter reaches each target's source (``channel``), for every pair;
    ``KernelSpec._channels`` keeps it, made once per kernel."""
    return {
        (name, target): channel(kernel, name, target)
        for name in parameter_values(kernel)
        for target in kernel.targets
    }


def passed(kernel: KernelSpec, target: str, way: str) -> dict[str, Any]:
    """The parameters that reach ``target`` as ``way`` ("override", "define"), with
    their values."""
    return {
        name: value
        for name, value in parameter_values(kernel).items()
        if kernel._channels.get((name, target)) == way
    }


def check_tunables(kernel: KernelSpec, size: Any = None) -> None:
    """Raise ``InvalidArgument`` unless every tunable can reach a source and every
    restriction names known parameters: a parameter no source takes, a value a WGSL
    override's type refuses, a ``via`` a source cannot honour, a name that clashes with
    a constant or a dimension, a restriction over an unknown name."""
    names = set(kernel.tunables)
    for name, tunable in kernel.tunables.items():
        if name in SCHEDULE_KEYS:
            continue
        where = f"kernel {kernel.id}: tunable {name!r}"
        clash = {
            "a constant": name in kernel.constants,
            "a dimension": name in kernel.dims,
            "an override": name in kernel.overrides,
            "a define": name in kernel.defines,
        }
        for what, clashes in clash.items():
            if clashes:
                raise InvalidArgument(f"{where} is also {what}; give it one meaning")
        if not kernel.body.kind == "raw":
            raise InvalidArgument(
                f"{where}: an IR kernel is tuned through its schedule "
                f"knobs ({', '.join(SCHEDULE_KEYS)}), not parameters"
            )
        ways = {t: channel(kernel, name, t) for t in kernel.targets}
        if not any(ways.values()):
            raise InvalidArgument(
                f"{where} reaches no source: declare `override {name}` "
                f"in WGSL, write {{{{{name}}}}}, or use {name} in CUDA code"
            )
        if tunable.via == "override" and ways.get("wgsl") != "override":
            raise InvalidArgument(
                f"{where} is via='override', but the WGSL source declares no `override {name}`"
            )
        if ways.get("wgsl") == "override":
            _check_override_values(kernel, where, name, tunable)
    _check_restriction_names(kernel, names, size)


def _check_override_values(kernel: KernelSpec, where: str, name: str, tunable: Tunable) -> None:
    declared_type = _sources.wgsl_overrides(kernel.body.sources["wgsl"]).get(name, "")
    accepts = _OVERRIDE_TYPES.get(declared_type, _OVERRIDE_TYPES[""])
    refused = [v for v in tunable.values if not accepts(v)]
    if refused:
        raise InvalidArgument(
            f"{where}: the WGSL source declares `override {name}: "
            f"{declared_type or '(inferred)'}`, which cannot take "
            f"{', '.join(map(repr, refused))}"
        )


def _known_names(kernel: KernelSpec, size: Any) -> set[str]:
    names = set(kernel.tunables) | set(SCHEDULE_KEYS) | {"wg_x", "wg_y", "wg_z", "size", "n"}
    names |= set(kernel.dims) | {f.name for f in dataclasses.fields(AdapterConstraints)}
    if isinstance(size, Size):
        names |= set(size.names)
    return names


def _check_restriction_names(kernel: KernelSpec, names: set[str], size: Any) -> None:
    known = _known_names(kernel, size)
    for restriction in kernel.restrictions:
        if isinstance(restriction, str):
            unknown = sorted(expression_names(restriction) - known)
            if unknown:
                raise InvalidArgument(
                    f"kernel {kernel.id}: restriction {restriction!r} names "
                    f"{', '.join(unknown)}, which is no tunable, schedule value or "
                    f"dimension (known: {', '.join(sorted(known))})"
                )


def parameters(
    kernel: KernelSpec,
    schedule: Schedule,
    values: Mapping[str, Any],
    size: Any = None,
    constraints: AdapterConstraints | None = None,
) -> dict[str, Any]:
    """What a restriction sees for one candidate: the adapter's limits, the
    schedule's values (``wg`` as the workgroup size, ``wg_x``..., ``ipt``, ``vec``,
    ``tile``, ``grid``), the size's dimensions and the parameters' values."""
    x, y, z = schedule.workgroup_size
    found: dict[str, Any] = {}
    if constraints is not None:
        found.update(
            (f.name, getattr(constraints, f.name)) for f in dataclasses.fields(constraints)
        )
    found.update(
        (key, getattr(schedule, field))
        for key, field in SCHEDULE_KEYS.items()
        if hasattr(schedule, field)
    )
    found.update(wg=x if (y, z) == (1, 1) else schedule.workgroup_size, wg_x=x, wg_y=y, wg_z=z)
    if size is not None:
        size = kernel.size(size)
        found.update(size.dims)
        found.update(size=int(size), n=int(size))
    found.update(values)
    return found


def restriction_failure(
    kernel: KernelSpec,
    schedule: Schedule,
    values: Mapping[str, Any],
    size: Any = None,
    constraints: AdapterConstraints | None = None,
) -> str:
    """ "" when the candidate satisfies every restriction, else which one it breaks.
    Raises ``InvalidArgument`` when a restriction cannot be evaluated (a callable
    asking for an unknown parameter, or raising)."""
    names = parameters(kernel, schedule, values, size, constraints)
    for restriction in kernel.restrictions:
        if isinstance(restriction, str):
            ok = evaluate_expression(restriction, names)
            label = repr(restriction)
        else:
            label = getattr(restriction, "__name__", "a callable restriction")
            try:
                ok = restriction(dict(names))
            except KeyError as exc:
                raise InvalidArgument(
                    f"kernel {kernel.id}: restriction {label} asked for "
                    f"{exc}, which is no tunable, schedule value or "
                    f"dimension (known: {', '.join(sorted(names))})"
                ) from None
            except Exception as exc:
                raise InvalidArgument(
                    f"kernel {kernel.id}: restriction {label} raised {type(exc).__name__}: {exc}"
                ) from exc
        if not ok:
            return f"restriction {label} is false"
    return ""


def apply_knobs(schedule: Schedule, knobs: Mapping[str, Any]) -> Schedule:
    """``schedule`` with schedule-knob values (``{"wg": 128, "vec": 4}``) applied."""
    return schedule.with_(**{SCHEDULE_KEYS[k]: v for k, v in knobs.items()}) if knobs else schedule


def combinations(
    kernel: KernelSpec, schedules: Sequence[Schedule] | None = None
) -> Iterator[tuple[Schedule, dict[str, Any]]]:
    """Every (schedule, parameter values) the declarations span, in declaration order
    (restrictions not applied): schedule knobs applied to the kernel's first schedule,
    or each of ``schedules`` when given, times every combination of the parameters."""
    knobs = {k: t.values for k, t in kernel.tunables.items() if k in SCHEDULE_KEYS}
    params = {k: t.values for k, t in kernel.tunables.items() if k not in SCHEDULE_KEYS}
    if schedules is None:
        schedules = [
            apply_knobs(kernel.schedules[0], dict(zip(knobs, combo)))
            for combo in itertools.product(*knobs.values())
        ]
    for schedule in schedules:
        for combo in itertools.product(*params.values()):
            yield schedule, dict(zip(params, combo))

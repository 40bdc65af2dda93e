"""``ir.kernel``: an IR body plus its metadata, as a ``KernelSpec`` every backend runs.

Bindings follow from the body: inputs first (the ``inputs=`` order, then first use),
then outputs, then the uniform block (user parameters in first-use order, then the
problem dimensions), all in group 0.

The kernel's body is an ``IRBody``: the ``forge.kernel.KernelBody`` of an IR pattern.
Its numpy meaning is the pattern's own; its sources, geometry and schedule rules come
from the emitters, which register themselves here (``set_lowering``) when
``forge.emit`` is imported (``import forge`` does), so that this package never imports
the emitters that import it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from ..errors import UnsupportedFeature
from ..kernel import TARGETS, Access, BufferSpec, Dispatch, KernelBody, KernelSpec
from ..schedule import Schedule
from ..size import Size, parse_size
from ._expr import IRError, _name
from ._patterns import Body, BufferDecl, Map, Matmul, Rows, Transpose

__all__ = ["kernel", "with_shape", "BASELINE_SCHEDULES", "IRBody", "Lowering", "set_lowering"]


class Lowering(Protocol):
    """What the emitters provide for IR kernels (``forge.emit`` implements it)."""

    def emit(self, kernel: KernelSpec, schedule: Schedule, target: str) -> str: ...

    def workgroups(
        self, kernel: KernelSpec, schedule: Schedule, size: Any, max_per_dimension: int = 65535
    ) -> tuple[int, int, int]: ...

    def check(
        self,
        kernel: KernelSpec,
        schedule: Schedule,
        target: str | None = None,
        constraints: Any = None,
    ) -> None: ...

    def dynamic_shared_bytes(self, body: Body, schedule: Schedule) -> int: ...

    def pattern_workgroups(
        self, body: Body, schedule: Schedule, size: Any, max_per_dimension: int = 65535
    ) -> tuple[int, int, int]: ...

    def prepass_workgroups(self, body: Body, size: Any) -> int: ...


_lowering: list[Lowering] = []


def set_lowering(lowering: Lowering) -> None:
    """Register the emitters (called once by ``forge.emit``)."""
    _lowering[:] = [lowering]


def _lowered() -> Lowering:
    if not _lowering:
        raise UnsupportedFeature(
            "no IR emitters are registered; import forge.emit (importing forge does)"
        )
    return _lowering[0]


class IRBody(KernelBody):
    """The ``KernelBody`` of an IR ``pattern``: lowered by the emitters to every
    target, evaluated with numpy."""

    emitted = True

    def __init__(self, pattern: Body) -> None:
        self.pattern = pattern

    @property
    def kind(self) -> str:  # type: ignore[override]
        return self.pattern.kind

    def targets(self, kernel: KernelSpec) -> tuple[str, ...]:
        return TARGETS

    def source(self, kernel: KernelSpec, target: str, schedule: Schedule, size: Any) -> str:
        return _lowered().emit(kernel, schedule, target)

    def workgroups(
        self, kernel: KernelSpec, schedule: Schedule, size: Any, max_per_dimension: int
    ) -> tuple[int, int, int]:
        return _lowered().workgroups(kernel, schedule, size, max_per_dimension)

    def check_schedule(
        self, kernel: KernelSpec, schedule: Schedule, target: str | None, constraints: Any
    ) -> None:
        _lowered().check(kernel, schedule, target, constraints)

    def evaluate(
        self, kernel: KernelSpec, arrays: Sequence[Any], size: Any, constraints: Any = None
    ) -> None:
        named = {
            spec.name: array.reshape(-1)
            for spec, array in zip(kernel.buffers, arrays)
            if spec.access is not Access.UNIFORM
        }
        uniform = next(
            a for spec, a in zip(kernel.buffers, arrays) if spec.access is Access.UNIFORM
        )
        self.pattern.evaluate(named, uniform)

    def size(self, kernel: KernelSpec, value: Any) -> Size:
        """One number (the dimensions follow the shape's rules), or every dimension by
        name or in order (``"4096x32768"`` for rows x cols)."""
        names = self.pattern.dim_names
        if isinstance(value, Size) and set(value.names) == set(names):
            return value
        if isinstance(value, str) and ("x" in value.lower() or "=" in value):
            return parse_size(value, names)
        if isinstance(value, (Mapping, tuple, list)):
            return parse_size(value, names)
        return parse_size(value, ("size",))

    def named_dims(self, kernel: KernelSpec, size: Size) -> dict[str, int]:
        return self.pattern.dims(size)

    def describe(self, kernel: KernelSpec) -> dict:
        return self.pattern.describe()


#: Each pattern's portable schedules (``Body.schedules``), by pattern name.
BASELINE_SCHEDULES: dict[str, tuple[Schedule, ...]] = {
    pattern.kind: pattern.schedules for pattern in (Map, Rows, Matmul, Transpose)
}


class _Dims:
    """``params`` of an IR kernel: the problem dimensions for a size."""

    def __init__(self, body: Body) -> None:
        self.body = body

    def __call__(self, size: int) -> dict[str, int]:
        return self.body.dims(size)


class _DynamicShared:
    """``shared_bytes`` of an IR kernel whose CUDA source may keep memory in dynamic
    shared memory (a tensor-core matmul's deep pipeline): the bytes the emitters
    declare under the schedule, which the launch must ask for; 0 under the others."""

    def __init__(self, body: Body) -> None:
        self.body = body

    def __call__(self, schedule: Schedule, size: Any) -> int:
        return _lowered().dynamic_shared_bytes(self.body, schedule)


class _PatternGrid:
    """The grid of one launch of a kernel made of several: that of ``body``'s own
    lowering under the launch's schedule (a prepass matmul's GEMM launch)."""

    def __init__(self, body: Body) -> None:
        self.body = body

    def __call__(self, schedule: Schedule, size: Any) -> tuple[int, int, int]:
        return _lowered().pattern_workgroups(self.body, schedule, size, 65535)


class _PrepassGrid:
    """The grid of a matmul's rounding prepass: a workgroup per tile of a and of b."""

    def __init__(self, body: Body) -> None:
        self.body = body

    def __call__(self, schedule: Schedule, size: Any) -> int:
        return _lowered().prepass_workgroups(self.body, size)


#: The rounding prepass's workgroup: 32 x 8 threads over a 32 x 32 tile.
PREPASS_SCHEDULE = Schedule((32, 8))


def _launches(body: Body, entry: str) -> tuple[Dispatch, ...]:
    """The launches of a kernel of ``body``: none (one launch, the body's) unless it is
    a matmul with a rounding ``prepass``, which runs ``<entry>_round`` (a and b into
    a_tf32 and b_tf32) and then ``<entry>``, the GEMM of those (``rounded_operands``)."""
    if not (isinstance(body, Matmul) and body.prepass):
        return ()
    gemm = body.rounded_operands
    return (
        Dispatch(
            f"{entry}_round",
            grid=_PrepassGrid(body),
            schedule=PREPASS_SCHEDULE,
            arguments=("a", "b", "a_tf32", "b_tf32", "params"),
        ),
        Dispatch(
            entry,
            grid=_PatternGrid(gemm),
            shared_bytes=_DynamicShared(gemm),
            arguments=("a_tf32", "b_tf32", "c", "params"),
        ),
    )


def _shared_bytes(body: Body) -> _DynamicShared | None:
    """What an IR kernel of ``body`` asks for at launch: only a matmul of f16 or bf16
    inputs (the tensor cores' ``mma=1``) may need dynamic shared memory; the others
    declare none, and their kernels' semantic hashes stay as they were."""
    if isinstance(body, Matmul) and body.input_dtype != body.dtype:
        return _DynamicShared(body)
    return None


class _Count:
    """``BufferSpec.count`` of an IR buffer: its element count for a size."""

    def __init__(self, body: Body, decl: BufferDecl) -> None:
        self.body, self.decl = body, decl

    def __call__(self, size: int) -> int:
        return self.decl.count(self.body.dims(size))


def _buffer_specs(body: Body) -> tuple[BufferSpec, ...]:
    specs = []
    for binding, decl in enumerate(body.buffers()):
        access = Access.READ_WRITE if decl.output else Access.READ
        specs.append(
            BufferSpec(
                binding,
                decl.dtype,
                access,
                name=decl.name,
                count=_Count(body, decl),
                inout=decl.inout,
                scratch=decl.scratch,
            )
        )
    fields = body.params() + [(name, "u32") for name in body.dim_names]
    specs.append(BufferSpec.uniform(len(specs), fields))
    return tuple(specs)


def _checked_defaults(id: str, body: Body, defaults: dict[str, Any]) -> dict[str, Any]:
    """``defaults`` when it gives exactly the body's params a value (a dimension is
    no param: it comes from the size)."""
    params = [name for name, _ in body.params()]
    clash = set(params) & set(body.dim_names)
    if clash:
        raise IRError(f"kernel {id!r}: {sorted(clash)} name both a param and a dimension")
    missing = [name for name in params if name not in defaults]
    if missing:
        raise IRError(
            f"kernel {id!r}: params {missing} have no default; give "
            f"defaults={{{', '.join(repr(m) + ': ...' for m in missing)}}}"
        )
    unknown = sorted(set(defaults) - set(params))
    if unknown:
        raise IRError(
            f"kernel {id!r}: defaults name {unknown}, which are not params of the "
            f"body (its params: {params}; dimensions come from the size)"
        )
    return defaults


def kernel(
    id: str,
    body: Body,
    *,
    entry_point: str | None = None,
    inputs: Sequence[str] | None = None,
    shape: Mapping[str, Any] | None = None,
    defaults: Mapping[str, Any] | None = None,
    description: str = "",
    schedules: Sequence[Schedule] | None = None,
    schedule_roles: Mapping[str, str] | None = None,
    tags: Sequence[str] = (),
    domain: Mapping[str, tuple[float, float]] | None = None,
    nonfinite_inputs: bool = True,
    tolerance: Mapping[str, Any] | Callable[[Any], Mapping[str, Any]] | None = None,
    test_sizes: Sequence[int] | None = None,
    requires: Sequence[str] = (),
    version: int = 1,
    bytes_moved: Any = None,
    flops: Any = None,
) -> KernelSpec:
    """A ``KernelSpec`` with IR ``body``: emitted for WGSL and CUDA C, evaluated with
    numpy by the reference backend.

    ``inputs`` fixes the binding order of input buffers; ``shape`` sets how dimensions
    follow the problem size (``{"rows": 4096, "cols": ir.SIZE}``); ``defaults`` gives
    every user parameter its usual value (the oracle runs with them). ``schedules``
    (default: the pattern's portable baselines) are checked by the oracle;
    ``schedule_roles`` marks some, by their text, e.g. ``{"wg=256,ipt=4,vec=4":
    "big-gpu"}``. The entry point defaults to ``<id>_kernel`` (a kernel named ``exp``
    must not shadow WGSL's ``exp``). The remaining arguments are ``KernelSpec``'s.
    """
    if not isinstance(body, Body):
        raise IRError(
            f"kernel {id!r}: body must be an IR pattern (ir.map, ir.rows, "
            f"ir.matmul, ir.transpose), got {type(body).__name__}"
        )
    if inputs is not None:
        body = body.with_input_order(inputs)
    if shape:
        body = body.with_shape(**shape)
    defaults = _checked_defaults(id, body, dict(defaults or {}))
    needs = {t for t in ("f16", "bf16", "f64") if body.uses(t)} | set(requires)
    # The entry point shares WGSL's namespace with builtins ("exp", "tanh"...).
    entry = _name(entry_point or f"{id}_kernel", "entry point")
    return KernelSpec(
        id=id,
        entry_point=entry,
        buffers=_buffer_specs(body),
        body=IRBody(body),
        version=version,
        description=description,
        params=_Dims(body),
        defaults=defaults,
        schedules=tuple(schedules or body.schedules),
        schedule_roles=dict(schedule_roles or {}),
        requires=frozenset(needs),
        tags=("ir", body.kind, *tags),
        domain=dict(domain or {}),
        nonfinite_inputs=nonfinite_inputs,
        tolerance=tolerance if callable(tolerance) else dict(tolerance or {}),
        test_sizes=tuple(test_sizes) if test_sizes else None,
        bytes_moved=bytes_moved,
        flops=flops,
        shared_bytes=_shared_bytes(body),
        launches=_launches(body, entry),
    )


def with_shape(spec: KernelSpec, **rules: Any) -> KernelSpec:
    """``spec`` with other dimension rules, e.g. ``with_shape(softmax, rows=4096)`` for a
    4096-row benchmark; the semantic hash changes with the shape."""
    if not isinstance(spec.body, IRBody):
        raise IRError(f"kernel {spec.id} has no IR body to reshape")
    body = spec.body.pattern.with_shape(**rules)
    return dataclasses.replace(
        spec,
        body=IRBody(body),
        buffers=_buffer_specs(body),
        params=_Dims(body),
        shared_bytes=_shared_bytes(body),
        launches=_launches(body, spec.entry_point),
    )

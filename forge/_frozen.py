"""Frozen kernels: a kernel resolved for one target, schedule and size, with no Python
functions left in it.

A worker process never imports the module that defined a kernel, so what it runs must
pickle: ``KernelSpec.frozen`` resolves everything that may depend on the run (the
source text, the buffers' element counts, the geometry of each launch, the shared
memory, the CUDA argument order and the scalars passed by value, the WGSL overrides,
the compiler options, the device features) into plain values, held by ``_Fixed`` where
a function was. Its meaning is the original's at exactly that run.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from . import arguments as _arguments
from ._launch import Dispatch, Step
from .schedule import Schedule
from .sources import TARGETS

if TYPE_CHECKING:  # forge.kernel calls this module, never the other way round
    from .kernel import KernelSpec

__all__ = ["frozen_fields"]


class _Fixed:
    """A picklable callable returning one value whatever it is asked (frozen kernels)."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __call__(self, *args: Any) -> Any:
        return self.value

    def __repr__(self) -> str:
        return f"fixed({self.value!r})"


def frozen_fields(
    kernel: KernelSpec,
    target: str | None,
    schedule: Schedule,
    size: Any,
    max_per_dimension: int = 65535,
) -> dict[str, Any]:
    """The fields of ``kernel`` frozen for ``target``, ``schedule`` and ``size``: what
    ``KernelSpec.frozen`` builds its kernel from."""
    size = kernel.size(size)
    source = kernel.source(target, schedule, size) if target in kernel.targets else None
    steps = kernel.steps(target, schedule, size, max_per_dimension, source)
    # a buffer a PyTorch accessor takes keeps its shape, as its sizes and strides
    shaped = {key[0] for s in steps for kind, key in s.arguments if kind == "accessor"}
    buffers = tuple(
        replace(
            b,
            count=b.element_count(size),
            shape=b.shape_at(size) if i in shaped else None,
            fill=None,
            initial=None,
            equally_right=None,
        )
        if b.texture is None
        else replace(b, shape=b.shape_at(size)[:2], fill=None, initial=None)  # its extent
        for i, b in enumerate(kernel.buffers)
    )
    launches = _frozen_launches(kernel, steps, target, size) if kernel.launches else ()
    first = steps[0]
    scalars = {key[0] for s in steps for kind, key in s.arguments if kind == "value"}
    return dict(
        id=kernel.id,
        entry_point=first.entry_point,
        buffers=buffers,
        sources={target: source} if target is not None and source is not None else {},
        description=kernel.description,
        grid=None if kernel.launches else _Fixed(first.workgroups),
        schedules=(schedule,),
        requires=kernel.features(target, source),
        tags=kernel.tags,
        dims=kernel.size(size).names,
        overrides={} if kernel.launches else dict(first.overrides),
        options={target: kernel.compile_options(target)} if target in TARGETS else {},
        shared_bytes=first.shared_bytes if not kernel.launches else None,
        arguments=_arguments.argument_order(kernel, first.arguments)
        if not kernel.launches
        else None,
        launches=launches,
        template=False,
        samplers=kernel.samplers,
        version=kernel.version,
        # scalars by value keep their values (params(size) is a function)
        defaults={k: v for k, v in _arguments.values_by_name(kernel, size).items() if k in scalars}
        if scalars
        else {},
    )


def _frozen_launches(
    kernel: KernelSpec, steps: tuple[Step, ...], target: str | None, size: Any
) -> tuple[Dispatch, ...]:
    """Each resolved launch of a kernel made of several as a ``Dispatch`` of fixed
    values (WGSL: with the buffers it binds to other variables than their own)."""
    moved = [
        d.bindings if target == "wgsl" and s.bindings else None
        for d, s in zip(kernel.launches_at(size), steps)
    ]
    return tuple(
        Dispatch(
            s.entry_point,
            _Fixed(s.workgroups),
            Schedule(s.block),
            s.shared_bytes,
            _arguments.argument_order(kernel, s.arguments),
            {**dict(s.fields), **dict(s.overrides)},  # a launch's uniform fields again
            bindings=bindings,
        )
        for s, bindings in zip(steps, moved)
    )

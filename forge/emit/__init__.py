"""Emitters: IR kernels to WGSL and CUDA C (docs/DESIGN.md section 3).

``forge.emit.emit(kernel, schedule, target)`` is pure and byte-deterministic: the same
kernel, schedule, target and ``EMITTER_VERSION`` give the same text in any process. The
source opens with a header naming the kernel id, semantic hash, schedule and emitter
version, and carries comments back to the IR it came from. A schedule the kernel cannot
be lowered under is refused before anything is emitted (``ScheduleRefused``, with the
reason); ``check`` runs those rules alone, e.g. for a tuner. ``forge.emit`` itself is an
ordinary package, not callable: call ``forge.emit.emit``.
"""

from __future__ import annotations

import functools
import sys

from ..errors import InvalidArgument, UnsupportedFeature
from ..ir._kernel import set_lowering
from ..kernel import TARGETS
from ..schedule import Schedule
from . import _map, _matmul, _mma, _rows, _tf32, _transpose
from ._code import CUDA_STATIC_SHARED, EMITTER_VERSION, Emission, ScheduleRefused, used_ops
from ._dialect import DIALECTS, Unsupported

__all__ = [
    "emit",
    "check",
    "workgroups",
    "pattern_workgroups",
    "prepass_workgroups",
    "workgroup_storage_bytes",
    "dynamic_shared_bytes",
    "EMITTER_VERSION",
    "ScheduleRefused",
    "TARGETS",
    "STORAGE_LIMITS",
    "DYNAMIC_STORAGE_LIMIT",
    "MAX_UNROLLED_ITEMS",
]

#: A lowering per IR pattern: a module with ``PATTERN`` (the pattern's ``kind``) and
#: ``check``, ``storage_bytes``, ``workgroup_count`` and ``lower`` (and ``VECTOR_WIDTHS``
#: where it takes other vector widths than 1, 2 and 4).
_LOWERINGS = {module.PATTERN: module for module in (_map, _rows, _matmul, _transpose)}
#: Workgroup storage a target guarantees without asking: WebGPU's default
#: maxComputeWorkgroupStorageSize, and CUDA's limit on static __shared__ memory (beyond
#: it a source declares dynamic shared memory, up to DYNAMIC_STORAGE_LIMIT).
STORAGE_LIMITS = {"wgsl": 16384, "cuda": CUDA_STATIC_SHARED}
#: Dynamic shared memory a CUDA block may use once its function opts in: the most any
#: device offers (sm_90's 227 KiB; an A100 has 163 KiB, sm_86 and sm_89 99 KiB, which
#: their constraints' ``max_workgroup_storage_bytes`` say). Only the tensor-core matmul's
#: deep pipelines use it (``forge/emit/_mma_pipeline.py``).
DYNAMIC_STORAGE_LIMIT = 227 * 1024
_CUDA_MAX_THREADS = 1024
#: Vector widths a lowering takes unless it names its own (``VECTOR_WIDTHS``).
_VECTOR_WIDTHS = (1, 2, 4)
#: Items one invocation handles (items per invocation x vector width): every lowering
#: unrolls them, so the source grows with them, by about 1 KB of WGSL per item (1024
#: items made 0.8 to 2 MB; 2**20 exhausted the host's memory while emitting). The
#: library and the tuner stay at or below 32; matmul has its own, tighter bound.
MAX_UNROLLED_ITEMS = 256


def _body_of(kernel):
    pattern = getattr(getattr(kernel, "body", None), "pattern", None)
    if pattern is None:
        raise InvalidArgument(
            f"kernel {getattr(kernel, 'id', kernel)!r} has no IR body; "
            "raw-source kernels are not emitted"
        )
    return pattern


def _targets(target: str | None) -> tuple[str, ...]:
    if target is None:
        return TARGETS
    if target not in TARGETS:
        raise InvalidArgument(f"unknown target {target!r}; known: {', '.join(TARGETS)}")
    return (target,)


def workgroup_storage_bytes(kernel, schedule: Schedule, target: str) -> int:
    """Workgroup (shared) memory the kernel's ``target`` source declares."""
    body = _body_of(kernel)
    lowering = _LOWERINGS[body.kind]
    lowering.check(body, schedule, target)
    return lowering.storage_bytes(body, schedule, _targets(target)[0])


def _dynamic_storage(body, schedule: Schedule, target: str) -> int:
    """The part of ``storage_bytes`` a ``target`` source declares as dynamic shared
    memory: a tensor-core matmul's pipeline over the static 48 KiB, nothing else."""
    if target != "cuda" or body.kind != _matmul.PATTERN or not schedule.mma:
        return 0
    return _mma.dynamic_storage_bytes(body.entry_body, schedule)


def dynamic_shared_bytes(body, schedule: Schedule) -> int:
    """Dynamic shared memory (bytes) the CUDA source of IR pattern ``body`` declares
    under ``schedule``, which its launch must ask for (an IR kernel's ``shared_bytes``);
    0 where the source declares none or the schedule cannot be lowered."""
    lowering = _LOWERINGS[body.kind]
    try:
        lowering.check(body, schedule, "cuda")
    except UnsupportedFeature:
        return 0
    return _dynamic_storage(body, schedule, "cuda")


#: What each device feature a lowering may need is, in the words of a refusal.
_FEATURES = {
    "warpgroup_mma": "Hopper's warpgroup MMA (wgmma, compute capability 9.0)",
    "subgroups": "subgroup operations (the WebGPU feature 'subgroups')",
}


def check(kernel, schedule: Schedule, target: str | None = None, constraints=None) -> None:
    """Raise ``ScheduleRefused`` (an ``UnsupportedFeature``) with the reason unless
    ``kernel`` can be lowered under ``schedule`` for ``target`` (default: every target):
    the pattern's rules, the operations the target has, and workgroup storage against
    ``constraints`` (or ``STORAGE_LIMITS``)."""
    if not isinstance(schedule, Schedule):
        raise InvalidArgument(f"expected a Schedule, got {type(schedule).__name__}")
    body = _body_of(kernel)
    lowering = _LOWERINGS[body.kind]
    if schedule.subgroups and not getattr(lowering, "SUBGROUPS", False):
        raise ScheduleRefused(
            f"sg=1 reduces across invocations with subgroup operations, a choice of row "
            f"kernels on WGSL; a {body.kind} kernel has no such reduction"
        )
    lowering.check(body, schedule, None)
    widths = getattr(lowering, "VECTOR_WIDTHS", _VECTOR_WIDTHS)
    if schedule.vector_width not in widths:
        *most, last = map(str, widths)
        raise ScheduleRefused(
            f"a {body.kind} kernel moves vectors of {', '.join(most)} or {last} elements, "
            f"not {schedule.vector_width}: vec=8 (16-byte accesses of 2-byte elements) is "
            "a choice of rows and map kernels, on CUDA"
        )
    items = schedule.items_per_invocation * schedule.vector_width
    if items > MAX_UNROLLED_ITEMS:
        raise ScheduleRefused(
            f"kernel {kernel.id} under {schedule} unrolls {items} items per "
            f"invocation (items per invocation x vector width), over "
            f"{MAX_UNROLLED_ITEMS}: its source would grow without bound"
        )
    for name in _targets(target):
        lowering.check(body, schedule, name)
        try:
            DIALECTS[name].check_types(body.dtypes())
            DIALECTS[name].check_ops(used_ops(body))
        except Unsupported as exc:
            raise UnsupportedFeature(f"kernel {kernel.id}: {exc}") from None
        if name == "cuda" and schedule.invocations > _CUDA_MAX_THREADS:
            raise ScheduleRefused(
                f"a CUDA block holds at most {_CUDA_MAX_THREADS} threads; the "
                f"workgroup {schedule.workgroup_size} has {schedule.invocations}"
            )
        if constraints is not None:
            features = getattr(lowering, "device_features", lambda body, schedule: ())
            for feature in features(body, schedule):
                if not constraints.supports(feature):
                    raise ScheduleRefused(
                        f"kernel {kernel.id} under {schedule} is unsupported, because it "
                        f"needs {_FEATURES.get(feature, feature)}, which this device lacks"
                    )
        dynamic = _dynamic_storage(body, schedule, name)
        limit = DYNAMIC_STORAGE_LIMIT if dynamic else STORAGE_LIMITS[name]
        if constraints is not None:
            limit = min(limit, constraints.max_workgroup_storage_bytes)
        need = lowering.storage_bytes(body, schedule, name)
        if need > limit:
            raise ScheduleRefused(
                f"kernel {kernel.id} under {schedule} needs {need} bytes of "
                f"{'dynamic shared memory' if dynamic else 'workgroup storage'} on {name}, "
                f"over the limit of {limit}"
            )
        if dynamic and getattr(kernel, "shared_bytes", None) is None:
            raise ScheduleRefused(
                f"kernel {kernel.id} under {schedule} keeps {dynamic} bytes in dynamic "
                "shared memory, which the kernel does not ask for at launch: its "
                "shared_bytes is unset (ir.kernel sets it for a mixed-precision matmul)"
            )


def emit(kernel, schedule: Schedule, target: str) -> str:
    """The ``target`` source ("wgsl" or "cuda") of IR kernel ``kernel`` under
    ``schedule``."""
    _targets(target)
    check(kernel, schedule, target)
    return _emit(kernel, schedule, target)


@functools.lru_cache(maxsize=256)
def _emit(kernel, schedule: Schedule, target: str) -> str:
    # Backends ask for the source on every dispatch to find their pipeline; the text
    # depends only on these arguments, so it is made once.
    emission = Emission(kernel, schedule, DIALECTS[target])
    _LOWERINGS[_body_of(kernel).kind].lower(emission)
    return emission.module()


def workgroups(
    kernel, schedule: Schedule, size: int, max_per_dimension: int = 65535
) -> tuple[int, int, int]:
    """The dispatch geometry of ``kernel`` at problem ``size``: the pattern's workgroup
    count, capped by ``schedule.max_workgroups`` (the kernel grid-strides over the rest)
    and spilled into y past ``max_per_dimension``."""
    return pattern_workgroups(_body_of(kernel), schedule, size, max_per_dimension)


def pattern_workgroups(
    body, schedule: Schedule, size: int, max_per_dimension: int = 65535
) -> tuple[int, int, int]:
    """``workgroups`` of IR pattern ``body`` (one launch of a kernel made of several)."""
    lowering = _LOWERINGS[body.kind]
    lowering.check(body, schedule, None)
    if size < 0:
        raise InvalidArgument(f"problem size must be >= 0, got {size}")
    total = lowering.workgroup_count(body, schedule, body.dims(size))
    # A one-invocation schedule with the same cap turns a workgroup count into the
    # capped, spilled geometry Schedule.dispatch_workgroups computes.
    return Schedule(1, max_workgroups=schedule.max_workgroups).dispatch_workgroups(
        total, max_per_dimension
    )


set_lowering(sys.modules[__name__])  # IR kernels lower through this module


def prepass_workgroups(body, size: int) -> int:
    """The workgroups of a matmul's rounding prepass at ``size`` (``_tf32``)."""
    return _tf32.prepass_workgroups(body, size)

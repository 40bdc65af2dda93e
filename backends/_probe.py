"""Float semantics by evidence: what an adapter does with subnormals and non-finite
values (and whether its workgroup memory starts zeroed, and how wide its subgroups are
where it does not say), measured by probe kernels the first time a context meets it,
and cached per adapter and driver under the cache root (``semantics``).

WGSL lets an implementation flush subnormals and treat NaN and infinities as
indeterminate; CUDA does neither unless a kernel asks (``--use_fast_math``). Which an
adapter actually does is a fact to measure: lavapipe follows IEEE-754, the H200
through Vulkan flushes. A context declares exactly what was seen
(``AdapterConstraints.subnormals_may_flush`` / ``nonfinite_indeterminate``), and the
oracle masks only what those allow; an adapter seen to follow IEEE is judged
IEEE-strictly.

Each probe case reads its operands from a buffer (so no compiler can fold it) and
writes one result; the expected bits are IEEE's (for ``min``/``max``, the target's
documented minNum/maxNum: a NaN operand yields the other one).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from forge.cache import cache_root, write_atomically
from forge.errors import ForgeError
from forge.kernel import Access, BufferSpec, KernelSpec
from forge.schedule import Schedule
from forge.types import BindingUsage

__all__ = ["probe_float_semantics", "PROBE_CASES", "Semantics"]

_SUB = np.float32(1e-40)  # a subnormal f32
_TINY = np.float32(1e-20)  # its square is subnormal
_BIG = np.float32(1e30)  # its square overflows
_INF, _NAN = np.float32(np.inf), np.float32(np.nan)

# (name, kind, expression over a and b in WGSL and in CUDA C, a, b, expected)
# kind: "subnormal" cases tell flushing, "nonfinite" cases tell indeterminate results,
# "comparison" cases are recorded only.
PROBE_CASES: tuple[tuple[str, str, str, str, Any, Any, Any], ...] = (
    ("subnormal_times_one", "subnormal", "a * b", "a * b", _SUB, 1.0, _SUB),
    ("subnormal_plus_zero", "subnormal", "a + b", "a + b", _SUB, 0.0, _SUB),
    ("product_underflows", "subnormal", "a * b", "a * b", _TINY, _TINY, np.float32(1e-40)),
    ("inf_plus_one", "nonfinite", "a + b", "a + b", _INF, 1.0, _INF),
    ("nan_times_one", "nonfinite", "a * b", "a * b", _NAN, 1.0, _NAN),
    ("inf_minus_inf", "nonfinite", "a - b", "a - b", _INF, _INF, _NAN),
    ("product_overflows", "nonfinite", "a * b", "a * b", _BIG, _BIG, _INF),
    ("one_over_zero", "nonfinite", "a / b", "a / b", 1.0, 0.0, _INF),
    (
        "nan_compares_false",
        "nonfinite",
        "select(0.0, 1.0, a < b)",
        "(a < b ? 1.0f : 0.0f)",
        _NAN,
        1.0,
        0.0,
    ),
    # Seen on naga: `!=` compiles to an ordered comparison, so NaN != NaN is false. It is
    # recorded (profile-hardware shows it) but does not make every non-finite result
    # indeterminate: a kernel that tests NaN this way is judged by what it computes.
    (
        "nan_is_not_equal",
        "comparison",
        "select(0.0, 1.0, a != a)",
        "(a != a ? 1.0f : 0.0f)",
        _NAN,
        0.0,
        1.0,
    ),
    ("max_with_nan", "nonfinite", "max(a, b)", "fmaxf(a, b)", _NAN, 1.0, 1.0),
    # relu as people write it: a compiler that assumes no NaN makes it max(a, 0) (seen on
    # the H200 through Vulkan), which returns 0 where IEEE's select passes the NaN on.
    ("select_keeps_nan", "nonfinite", "select(a, b, a < b)", "(a < b ? b : a)", _NAN, 0.0, _NAN),
    ("min_with_inf", "nonfinite", "min(a, b)", "fminf(a, b)", -_INF, 1.0, -_INF),
    ("exp_of_inf", "nonfinite", "exp(a) + b", "expf(a) + b", _INF, 0.0, _INF),
    ("exp_of_minus_inf", "nonfinite", "exp(a) + b", "expf(a) + b", -_INF, 0.0, 0.0),
    ("exp_of_nan", "nonfinite", "exp(a) + b", "expf(a) + b", _NAN, 0.0, _NAN),
    ("exp_overflows", "nonfinite", "exp(a) + b", "expf(a) + b", 200.0, 0.0, _INF),
    ("sqrt_of_negative", "nonfinite", "sqrt(a) + b", "sqrtf(a) + b", -1.0, 0.0, _NAN),
    ("log_of_zero", "nonfinite", "log(a) + b", "logf(a) + b", 0.0, 0.0, -_INF),
)
_VERSION = 4  # bump when the cases change: cached measurements are then taken again

# Whether workgroup memory starts zeroed (WGSL requires it): each invocation reads its
# slot before writing a pattern there; dispatched twice over many workgroups, any slot
# read non-zero was left over from another workgroup or dispatch.
_WORKGROUP_PROBE = """
@group(0) @binding(0) var<storage, read_write> seen: array<u32>;
var<workgroup> slots: array<u32, 64>;

@compute @workgroup_size(64)
fn probe(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) w: vec3<u32>) {
    let before = slots[l];
    workgroupBarrier();
    slots[l] = 0x5a5a5a5au + w.x;
    seen[w.x * 64u + l] = before;
}
"""
_WORKGROUPS = 64

# How wide the subgroups are, where the adapter does not say (wgpu-native reports no
# subgroup sizes for lavapipe, whose subgroups are 8 wide; SwiftShader's, 4, are
# reported): each invocation of a few workgroups of 64 writes the width it ran in.
_SUBGROUP_PROBE = """enable subgroups;
@group(0) @binding(0) var<storage, read_write> seen: array<u32>;

@compute @workgroup_size(64)
fn probe(@builtin(global_invocation_id) g: vec3<u32>, @builtin(subgroup_size) width: u32) {
    seen[g.x] = width;
}
"""
_SUBGROUP_WORKGROUPS = 4


def _sources() -> dict[str, str]:
    wgsl_lines = "\n".join(
        f"    {{ let a = x[{2 * i}]; let b = x[{2 * i + 1}]; y[{i}] = {w}; }}"
        for i, (_, _, w, _, _, _, _) in enumerate(PROBE_CASES)
    )
    cuda_lines = "\n".join(
        f"    {{ const float a = x[{2 * i}]; const float b = x[{2 * i + 1}]; y[{i}] = {c}; }}"
        for i, (_, _, _, c, _, _, _) in enumerate(PROBE_CASES)
    )
    wgsl = (
        "@group(0) @binding(0) var<storage, read> x: array<f32>;\n"
        "@group(0) @binding(1) var<storage, read_write> y: array<f32>;\n"
        "@compute @workgroup_size(1)\nfn probe() {\n" + wgsl_lines + "\n}\n"
    )
    cuda = (
        'extern "C" __global__ void probe(const float* x, float* y) {\n'
        "    if (threadIdx.x != 0 || blockIdx.x != 0) return;\n" + cuda_lines + "\n}\n"
    )
    return {"wgsl": wgsl, "cuda": cuda}


def _kernel() -> KernelSpec:
    count = len(PROBE_CASES)
    return KernelSpec(
        id="kforge_float_semantics_probe",
        entry_point="probe",
        sources=_sources(),
        buffers=(
            BufferSpec(0, "f32", Access.READ, name="x", count=2 * count),
            BufferSpec(1, "f32", Access.READ_WRITE, name="y", count=count),
        ),
        grid=(1, 1, 1),
        schedules=(Schedule(1),),
        template=False,
    )


@dataclass(frozen=True)
class Semantics:
    """What a probe saw: the two declarations, and each case that departed from IEEE."""

    subnormals_may_flush: bool
    nonfinite_indeterminate: bool
    departures: tuple[str, ...] = ()
    measured: bool = True
    reason: str = ""
    workgroup_memory_zeroed: bool = True
    #: (least, most) subgroup width the probe saw, where the adapter does not say
    subgroup_size: tuple[int, int] | None = None

    def as_dict(self) -> dict:
        return {
            "subnormals_may_flush": self.subnormals_may_flush,
            "nonfinite_indeterminate": self.nonfinite_indeterminate,
            "departures": list(self.departures),
            "measured": self.measured,
            "reason": self.reason,
            "workgroup_memory_zeroed": self.workgroup_memory_zeroed,
            "subgroup_size": None if self.subgroup_size is None else list(self.subgroup_size),
        }


def _same(got: np.float32, want: Any) -> bool:
    want = np.float32(want)
    if np.isnan(want):
        return bool(np.isnan(got))
    return got.tobytes() == want.tobytes() or (got == want and want != 0)


def _measure(ctx) -> Semantics:
    kernel = _kernel()
    operands = np.array([v for case in PROBE_CASES for v in case[4:6]], np.float32)
    size = len(PROBE_CASES)
    x = ctx.allocate_and_write(operands, 0)
    y = ctx.allocate_transient(4 * size, 1, usage=BindingUsage.STORAGE_READ_WRITE)
    try:
        ctx.run_kernel(kernel, Schedule(1), [x, y], size, 0, 1)
        got = ctx.read_buffer_f32(y)
    finally:
        ctx.clear_transient_allocations()
    departures = tuple(
        case[0] for case, value in zip(PROBE_CASES, got[:size]) if not _same(value, case[6])
    )
    kinds = {case[0]: case[1] for case in PROBE_CASES}
    return Semantics(
        any(kinds[d] == "subnormal" for d in departures),
        any(kinds[d] == "nonfinite" for d in departures),
        departures,
        workgroup_memory_zeroed=_workgroup_memory_zeroed(ctx),
        subgroup_size=_subgroup_size(ctx),
    )


def _workgroup_memory_zeroed(ctx) -> bool:
    """Whether ``ctx``'s workgroup memory starts zeroed (WGSL targets; CUDA promises
    nothing, so the question does not arise there)."""
    if getattr(ctx, "target", None) != "wgsl":
        return True
    kernel = KernelSpec(
        id="kforge_workgroup_zero_probe",
        entry_point="probe",
        sources={"wgsl": _WORKGROUP_PROBE},
        buffers=(BufferSpec(0, "u32", Access.READ_WRITE, name="seen", count=64 * _WORKGROUPS),),
        grid=(_WORKGROUPS, 1, 1),
        schedules=(Schedule(64),),
        template=False,
    )
    seen = ctx.allocate_transient(4 * 64 * _WORKGROUPS, 0, usage=BindingUsage.STORAGE_READ_WRITE)
    try:
        ctx.run_kernel(kernel, Schedule(64), [seen], 64 * _WORKGROUPS, 1, 1)
        got = np.zeros(64 * _WORKGROUPS, np.uint32)
        ctx.read_buffer_u32_into(seen, got)
    finally:
        ctx.clear_transient_allocations()
    return not got.any()


def _subgroup_size(ctx) -> tuple[int, int] | None:
    """The (least, most) subgroup width ``ctx``'s WGSL invocations ran in, where the
    adapter offers subgroups and does not say how wide they are; else None."""
    constraints = getattr(ctx, "constraints", None)
    if getattr(ctx, "target", None) != "wgsl" or constraints is None:
        return None
    if not constraints.subgroups or constraints.subgroup_size is not None:
        return None
    count = 64 * _SUBGROUP_WORKGROUPS
    kernel = KernelSpec(
        id="kforge_subgroup_size_probe",
        entry_point="probe",
        sources={"wgsl": _SUBGROUP_PROBE},
        buffers=(BufferSpec(0, "u32", Access.READ_WRITE, name="seen", count=count),),
        grid=(_SUBGROUP_WORKGROUPS, 1, 1),
        schedules=(Schedule(64),),
        template=False,
    )
    try:
        seen = ctx.allocate_transient(4 * count, 0, usage=BindingUsage.STORAGE_READ_WRITE)
        try:
            ctx.run_kernel(kernel, Schedule(64), [seen], count, 1, 1)
            got = np.zeros(count, np.uint32)
            ctx.read_buffer_u32_into(seen, got)
        finally:
            ctx.clear_transient_allocations()
    except ForgeError:
        return None  # unknown, as before: the float probe's findings still stand
    low, high = int(got.min()), int(got.max())
    return (low, high) if 0 < low <= high <= 128 else None


def _key(ctx) -> str:
    adapter = ctx.adapter
    text = json.dumps(
        {"version": _VERSION, "backend": ctx.backend_name, "adapter": adapter.as_dict()},
        sort_keys=True,
    )
    return hashlib.sha256(text.encode()).hexdigest()[:24]


_MEASURED: dict[str, Semantics] = {}


def _sizes(value: Any) -> tuple[int, int] | None:
    """A cached (least, most) subgroup width, or None; ``ValueError`` for anything that
    is not two whole numbers (a damaged entry, measured again)."""
    if value is None:
        return None
    if not (isinstance(value, list) and len(value) == 2 and all(type(v) is int for v in value)):
        raise ValueError("not a measured subgroup width")
    return (value[0], value[1])


def probe_float_semantics(ctx, cache: bool = True) -> Semantics:
    """The float semantics of ``ctx``'s adapter: from this process's memory, else from
    the cache root, else measured now (and cached). A probe that cannot run declares
    the WGSL allowances (conservative) and says why."""
    key = _key(ctx)
    if key in _MEASURED:
        return _MEASURED[key]
    path = cache_root() / "semantics" / f"{key}.json"
    if cache:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            flags = [data[k] for k in ("subnormals_may_flush", "nonfinite_indeterminate")]
            flags.append(data["workgroup_memory_zeroed"])
            departures = data.get("departures", [])
            # Only what _measure writes: bool("false") is True, and these flags loosen
            # the judgement (a mismatch masked as indeterminate).
            if not all(isinstance(f, bool) for f in flags) or not (
                isinstance(departures, list) and all(isinstance(d, str) for d in departures)
            ):
                raise ValueError("not a measurement")
            found = Semantics(
                flags[0],
                flags[1],
                tuple(departures),
                True,
                "",
                flags[2],
                _sizes(data.get("subgroup_size")),
            )
            _MEASURED[key] = found
            return found
        except (OSError, ValueError, KeyError, TypeError):
            pass  # not measured yet here, or a damaged entry: measure again
    try:
        found = _measure(ctx)
    except ForgeError as exc:
        return Semantics(True, True, (), False, f"the probe could not run: {exc}")
    _MEASURED[key] = found
    if cache:
        try:
            write_atomically(path, json.dumps(found.as_dict(), indent=1, sort_keys=True))
        except OSError:
            pass  # a read-only cache costs a probe per process, nothing more
    return found

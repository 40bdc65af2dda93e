"""``evaluate(ctx, kernel, ...) -> Evaluation``: run a kernel once on a context with
fixed-seed inputs and judge it against the reference backend.

How a run is judged:
- every storage buffer gets ``guard`` extra elements past its end, bound with it:
  past the end of outputs they hold the output poison, past the end of inputs the
  input poison, so a missing bounds guard writes (or reads) somewhere the oracle
  looks, even on devices whose robust buffer access would hide a write past the
  binding;
- outputs are poisoned before the run; an element still holding the poison afterwards
  (where the reference wrote something else) was never written;
- inputs and the uniform block are read back and must be byte-for-byte unchanged;
- outputs are compared with the reference's under the resolved tolerance; after the
  timed runs they are compared again (unless a buffer is ``inout``, whose contents
  legitimately change with every run), which catches races that show up only later;
- a backend whose constraints say subnormals may flush may also match the reference run
  on inputs with subnormals flushed to zero; one whose constraints say non-finite
  results are indeterminate is not judged where the expected value is not finite
  (WGSL allows both); every other backend is judged by IEEE-754.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

import numpy as np

import forge
from forge.errors import (CompileError, DeviceLost, ForgeError, InvalidArgument, KernelTimeout,
                          OracleMismatch, UnsupportedFeature)
from forge.kernel import Access, BufferSpec, KernelSpec
from forge.schedule import Schedule
from forge.types import AdapterIdentity, ValidationLevel

from ._compare import Comparison, compare, flush_subnormals, nonfinite_expected
from ._inputs import POISON_INPUT, POISON_OUTPUT, Case, buffer_label, make_case, poison
from ._tolerance import resolve_tolerance

__all__ = ["evaluate", "Evaluation", "OutputCheck", "Timing", "Expected", "expected_outputs",
           "FloatSemantics", "evaluate_case", "choose_schedule", "format_duration", "REFERENCE_BACKEND", "DEFAULT_GUARD",
           "DEFAULT_TIMEOUT_S"]

#: The backend whose numpy meaning defines what every kernel must compute.
REFERENCE_BACKEND = "reference"
#: Elements bound past the end of each storage buffer to catch out-of-bounds access.
DEFAULT_GUARD = 1024
# Seconds any one wait for the device may take before the verdict is "timeout": far
# beyond any test-sized kernel, short enough that a hung kernel is reported.
DEFAULT_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Timing:
    """Per-sample nanoseconds of the timed runs and where they were measured."""

    samples_ns: tuple[int, ...]
    source: str

    @property
    def count(self) -> int:
        return len(self.samples_ns)

    def _q(self, q: float) -> float:
        return float(np.percentile(self.samples_ns, q)) if self.samples_ns else float("nan")

    @property
    def min(self) -> float:
        return float(min(self.samples_ns)) if self.samples_ns else float("nan")

    @property
    def median(self) -> float:
        return self._q(50)

    @property
    def p95(self) -> float:
        return self._q(95)

    @property
    def iqr(self) -> float:
        """Interquartile range: the spread the tuner takes as measured noise."""
        return self._q(75) - self._q(25)

    def describe(self) -> str:
        return (f"median {format_duration(self.median)}, min {format_duration(self.min)}, "
                f"p95 {format_duration(self.p95)}, {self.count} samples, {self.source}")

    def as_dict(self) -> dict:
        return {"min_ns": self.min, "median_ns": self.median, "p95_ns": self.p95,
                "count": self.count, "source": self.source, "samples_ns": list(self.samples_ns)}


def format_duration(ns: float) -> str:
    """Nanoseconds as a short human figure ("12.3 us"); "-" when not measured."""
    if not np.isfinite(ns):
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.0f} ns"


@dataclass(frozen=True)
class Expected:
    """The reference's outputs for a case, computed once and shared by every backend
    and schedule judged on it."""

    case: Case
    truth: KernelSpec
    outputs: dict[str, np.ndarray]
    reference: str
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def flushed(self) -> dict[str, np.ndarray]:
        """What a device that flushes subnormals computes: the reference run on the
        inputs with subnormals flushed to zero (sign kept), its subnormal results
        flushed too. Computed on first use, then shared like ``outputs``."""
        if "flushed" not in self._cache:
            self._cache["flushed"] = _flushed_outputs(self)
        return self._cache["flushed"]


@dataclass(frozen=True)
class FloatSemantics:
    """The departures from IEEE-754 a backend declares in its ``AdapterConstraints``,
    which the oracle judges by masking, never by wider tolerances."""

    subnormals_may_flush: bool = False
    nonfinite_indeterminate: bool = False

    @classmethod
    def of(cls, constraints) -> "FloatSemantics":
        return cls(bool(getattr(constraints, "subnormals_may_flush", False)),
                   bool(getattr(constraints, "nonfinite_indeterminate", False)))

    def either(self, other: "FloatSemantics") -> "FloatSemantics":
        """What judging two backends against each other must allow."""
        return FloatSemantics(self.subnormals_may_flush or other.subnormals_may_flush,
                              self.nonfinite_indeterminate or other.nonfinite_indeterminate)

    def flushed(self, expected: Expected, label: str) -> np.ndarray | None:
        return expected.flushed()[label] if self.subnormals_may_flush else None

    def indeterminate(self, expected: Expected, label: str) -> np.ndarray | None:
        """The elements of output ``label`` these semantics leave unjudged (or None)."""
        if not self.nonfinite_indeterminate:
            return None
        return nonfinite_expected(expected.outputs[label], self.flushed(expected, label))

    def judging(self, expected: Expected, label: str) -> dict:
        """``compare``'s keyword arguments for output ``label``."""
        return {"flushed": self.flushed(expected, label),
                "indeterminate": self.indeterminate(expected, label)}

    def as_dict(self) -> dict:
        return {"subnormals_may_flush": self.subnormals_may_flush,
                "nonfinite_indeterminate": self.nonfinite_indeterminate}


@dataclass(frozen=True)
class OutputCheck:
    """Everything the oracle found about one output buffer."""

    label: str
    comparison: Comparison
    unwritten: int = 0
    first_unwritten: int = -1
    past_end: int = 0
    first_past_end: int = -1
    later: Comparison | None = None

    @property
    def passed(self) -> bool:
        return (self.comparison.passed and not self.unwritten and not self.past_end
                and (self.later is None or self.later.passed))

    def problems(self, count: int) -> list[str]:
        found = []
        if self.unwritten:
            found.append(f"{self.label}: {self.unwritten} of {count} elements never written "
                         f"(still poisoned; first at element {self.first_unwritten})")
        if self.past_end:
            found.append(f"{self.label}: {self.past_end} elements written past the end "
                         f"(first at element {count + self.first_past_end}, the buffer "
                         f"holds {count})")
        if not self.comparison.passed:
            c = self.comparison
            found.append(f"{self.label}: {c.mismatches} of {count} elements differ from the "
                         f"reference ({c.nonfinite_mismatches} in NaN/Inf/zero-sign pattern; "
                         f"max ulp {c.max_ulp})" if c.reason == "" else
                         f"{self.label}: {c.reason} differs from the reference")
        if self.comparison.passed and self.later is not None and not self.later.passed:
            found.append(f"{self.label}: after the timed runs, {self.later.mismatches} elements "
                         "differ from the reference (a race or leftover state)")
        return found


@dataclass
class Evaluation:
    """The verdict on one kernel, on one context, at one size and seed.

    ``verdict`` is ``"pass"``, ``"mismatch"`` (wrong output, unwritten or out-of-bounds
    elements, modified inputs), ``"error"`` (the backend raised), ``"timeout"`` (a wait
    for the device ran past ``timeout_s``) or ``"unsupported"`` (the kernel cannot run
    there: no source for it, a missing feature, a limit)."""

    kernel: KernelSpec
    backend: str
    adapter: AdapterIdentity | None
    schedule: Schedule
    size: int
    seed: int
    input_hash: str
    reference: str
    verdict: str = "pass"
    level: ValidationLevel = ValidationLevel.NONE
    outputs: dict[str, OutputCheck] = field(default_factory=dict)
    inputs_modified: dict[str, int] = field(default_factory=dict)
    error: str = ""
    error_type: str = ""
    timing: Timing | None = None
    got: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    counts: dict[str, int] = field(default_factory=dict, repr=False)
    semantics: FloatSemantics = field(default_factory=FloatSemantics)
    lost: bool = False  # the context was lost (device loss, timeout): open a new one

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    @property
    def max_ulp(self) -> int | None:
        """The largest ULP distance over every output (None when nothing was compared)."""
        values = [o.comparison.max_ulp for o in self.outputs.values()]
        return max(values) if values else None

    @property
    def max_abs(self) -> float | None:
        values = [o.comparison.max_abs for o in self.outputs.values()]
        return max(values) if values else None

    @property
    def problems(self) -> list[str]:
        """One line per thing found wrong."""
        found = [f"{self.verdict}: {self.error}"] if self.error else []
        for label, check in self.outputs.items():
            found += check.problems(self.counts.get(label, check.comparison.count))
        found += [f"{label}: input modified by the kernel ({n} elements changed)"
                  for label, n in self.inputs_modified.items()]
        return found

    def summary(self) -> str:
        return (f"{self.kernel.id} on {self.backend}"
                f"{f' ({self.adapter.name})' if self.adapter else ''}, schedule {self.schedule}, "
                f"size {self.size}, seed {self.seed}, inputs sha256 {self.input_hash[:16]}")

    def report(self) -> str:
        """A readable account of the verdict and the evidence for it."""
        lines = [self.summary(),
                 f"verdict: {self.verdict.upper()}   level reached: {self.level.name}   "
                 f"reference: {self.reference}"]
        lines += [f"  ! {p}" for p in self.problems]
        for label, check in self.outputs.items():
            lines.append("  " + check.comparison.report(label).replace("\n", "\n  "))
            if check.comparison.passed and check.later is not None and not check.later.passed:
                lines.append("  after the timed runs: " +
                             check.later.report(label).replace("\n", "\n  "))
        if self.timing is not None:
            lines.append(f"  timing: {self.timing.describe()}")
        return "\n".join(lines)

    def raise_for_failure(self) -> "Evaluation":
        """Raise ``OracleMismatch`` carrying the report unless the kernel passed."""
        if not self.passed:
            raise OracleMismatch(self.report(), report=self)
        return self

    def as_dict(self) -> dict:
        return {"kernel": self.kernel.id, "semantic_hash": self.kernel.semantic_hash,
                "backend": self.backend,
                "adapter": self.adapter.as_dict() if self.adapter else None,
                "schedule": str(self.schedule), "size": self.size, "seed": self.seed,
                "input_hash": self.input_hash, "reference": self.reference,
                "verdict": self.verdict, "passed": self.passed, "level": self.level.name,
                "error": self.error, "error_type": self.error_type, "problems": self.problems,
                "max_ulp": self.max_ulp, "max_abs": self.max_abs,
                "outputs": {k: {"comparison": v.comparison.as_dict(), "unwritten": v.unwritten,
                                "past_end": v.past_end,
                                "later": v.later.as_dict() if v.later else None}
                            for k, v in self.outputs.items()},
                "inputs_modified": dict(self.inputs_modified),
                "float_semantics": self.semantics.as_dict(),
                "timing": self.timing.as_dict() if self.timing else None}


# -- buffers -------------------------------------------------------------------------
@dataclass(frozen=True)
class _Slot:
    """One bound buffer: its spec, logical element count, and the bytes uploaded
    (logical data followed by guard elements)."""

    spec: BufferSpec
    label: str
    count: int
    data: np.ndarray

    @property
    def is_output(self) -> bool:
        return self.spec.access is Access.READ_WRITE


def _slots(kernel: KernelSpec, case: Case, guard: int, binding_limit: int | None) -> list[_Slot]:
    slots = []
    for spec in kernel.buffers:
        label = buffer_label(spec)
        if spec.access is Access.UNIFORM:
            slots.append(_Slot(spec, label, 1, case.uniform))
            continue
        count, dtype = spec.element_count(case.size), spec.dtype
        extra = guard
        if binding_limit is not None:
            extra = max(0, min(extra, binding_limit // dtype.itemsize - count))
        while ((count + extra) * dtype.itemsize) % 4 or count + extra == 0:
            extra += 1  # read back as u32 words; views are never empty
        body = case.arrays.get(label)
        if body is None:
            body = poison(dtype, count)
        tail = poison(dtype, extra, POISON_OUTPUT if spec.access is Access.READ_WRITE
                      else POISON_INPUT)
        slots.append(_Slot(spec, label, count, np.concatenate([body.astype(dtype), tail])))
    return slots


def _upload(ctx, slots: Sequence[_Slot]) -> list:
    return [ctx.allocate_and_write(s.data, s.spec.binding, s.spec.group,
                                   s.spec.access.default_usage) for s in slots]


def _read(ctx, view, dtype: np.dtype) -> np.ndarray:
    words = np.empty(view.length_bytes // 4, np.uint32)
    ctx.read_buffer_u32_into(view, words)
    return words.view(dtype)


def _bits(array: np.ndarray) -> np.ndarray:
    return array.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[array.dtype.itemsize])


# -- the reference -------------------------------------------------------------------
def _check_truth(kernel: KernelSpec, truth: KernelSpec) -> None:
    if [b.describe() for b in truth.buffers] != [b.describe() for b in kernel.buffers]:
        raise InvalidArgument(f"truth kernel {truth.id} binds different buffers than "
                              f"{kernel.id}; it must describe the same interface")


def _reference_capacity(slots: Sequence[_Slot]) -> int:
    return max(64 << 20, 2 * sum(s.data.nbytes + 4096 for s in slots))


def expected_outputs(case: Case, truth: KernelSpec | None = None, reference=None) -> Expected:
    """Run ``case`` through the reference backend (``reference``: an open context, or
    None to open one) using ``truth``'s CPU meaning (default: the case's kernel)."""
    truth = truth or case.kernel
    _check_truth(case.kernel, truth)
    slots = _slots(truth, case, 0, None)
    ctx = reference or forge.open_context(REFERENCE_BACKEND,
                                          capacity_bytes=_reference_capacity(slots))
    try:
        views = _upload(ctx, slots)
        with np.errstate(all="ignore"):  # edge-case inputs overflow and make NaNs on purpose
            ctx.run_kernel(truth, choose_schedule(ctx, truth), views, case.size, 0, 1)
        outputs = {s.label: _read(ctx, v, s.spec.dtype)[:s.count].copy()
                   for s, v in zip(slots, views) if s.is_output}
        return Expected(case, truth, outputs, f"{ctx.backend_name} ({ctx.adapter.name})")
    finally:
        if reference is None:
            ctx.close()
        else:
            ctx.clear_transient_allocations()


def _flushed_outputs(expected: Expected) -> dict[str, np.ndarray]:
    case = expected.case
    arrays = {label: flush_subnormals(a) for label, a in case.arrays.items()}
    uniform = None if case.uniform is None else flush_subnormals(case.uniform)
    changed = (any(a is not case.arrays[label] for label, a in arrays.items())
               or (uniform is not None and uniform.tobytes() != case.uniform.tobytes()))
    outputs = expected.outputs
    if changed:  # without subnormal inputs only the results can differ
        flushed_case = replace(case, arrays=arrays, uniform=uniform)
        outputs = expected_outputs(flushed_case, expected.truth).outputs
    return {label: flush_subnormals(out) for label, out in outputs.items()}


# -- judging -------------------------------------------------------------------------
def choose_schedule(ctx, kernel: KernelSpec) -> Schedule:
    """The kernel's first schedule the context's constraints admit (else its first)."""
    for schedule in kernel.schedules:
        try:
            schedule.check(ctx.constraints)
            return schedule
        except UnsupportedFeature:
            continue
    return kernel.schedules[0]


def _check_output(slot: _Slot, raw: np.ndarray, want: np.ndarray, tolerance,
                  judging: dict) -> OutputCheck:
    got, tail = raw[:slot.count], raw[slot.count:]
    comparison = compare(got, want, tolerance, **judging)
    outside = np.flatnonzero(_bits(tail) != _bits(poison(tail.dtype, 1))[0])
    unwritten = np.empty(0, np.int64)
    if not slot.spec.inout:
        marker = _bits(poison(got.dtype, 1))[0]
        unwritten = np.flatnonzero((_bits(got) == marker) & (_bits(want) != marker))
    return OutputCheck(slot.label, comparison, int(unwritten.size),
                       int(unwritten[0]) if unwritten.size else -1, int(outside.size),
                       int(outside[0]) if outside.size else -1)


def _judge(ev: Evaluation, ctx, slots, views, expected: Expected, tolerances) -> None:
    for slot, view in zip(slots, views):
        raw = _read(ctx, view, slot.data.dtype)
        if slot.is_output:
            ev.got[slot.label] = raw[:slot.count].copy()
            ev.counts[slot.label] = slot.count
            ev.outputs[slot.label] = _check_output(slot, raw, expected.outputs[slot.label],
                                                   tolerances[slot.label],
                                                   ev.semantics.judging(expected, slot.label))
        else:
            width = slot.data.dtype.itemsize
            changed = int(np.count_nonzero(
                (raw.view(np.uint8).reshape(-1, width) != slot.data.view(np.uint8).reshape(-1, width)).any(axis=1)))
            if changed:
                ev.inputs_modified[slot.label] = changed


def _recheck(ev: Evaluation, ctx, slots, views, expected: Expected, tolerances) -> None:
    """Compare outputs again after the timed runs (not for kernels with inout buffers,
    whose state legitimately advances with every run)."""
    if any(s.spec.inout for s in slots):
        return
    for slot, view in zip(slots, views):
        if slot.is_output:
            again = _read(ctx, view, slot.data.dtype)[:slot.count]
            check = ev.outputs[slot.label]
            later = compare(again, expected.outputs[slot.label], tolerances[slot.label],
                            **ev.semantics.judging(expected, slot.label))
            ev.outputs[slot.label] = replace(check, later=later)


def _source_level(ctx, kernel: KernelSpec, schedule: Schedule) -> ValidationLevel:
    try:
        ctx.kernel_source(kernel, schedule)
    except ForgeError:
        return ValidationLevel.NONE
    return ValidationLevel.GENERATED


def _fail(ev: Evaluation, ctx, exc: ForgeError) -> None:
    ev.verdict = ("unsupported" if isinstance(exc, UnsupportedFeature) else
                  "timeout" if isinstance(exc, KernelTimeout) else "error")
    ev.lost = isinstance(exc, DeviceLost)
    ev.error_type = type(exc).__name__
    ev.error = f"{ev.error_type}: {exc}"
    if isinstance(exc, CompileError) or ev.level < ValidationLevel.PIPELINE_CREATED:
        ev.level = _source_level(ctx, ev.kernel, ev.schedule)


def evaluate_case(ctx, expected: Expected, schedule: Schedule | None = None, *,
                  warmups: int = 1, samples: int = 5, tolerance: Any = None,
                  guard: int = DEFAULT_GUARD,
                  timeout_s: float | None = DEFAULT_TIMEOUT_S) -> Evaluation:
    """Judge the case's kernel on ``ctx`` against precomputed ``expected`` outputs;
    the building block of evaluate, cross_check and tune. Every transient allocation
    of ``ctx`` is released when it returns. Each wait for the device is bounded by
    ``timeout_s`` (None: unbounded); past it the verdict is ``"timeout"`` and the
    context is lost (``Evaluation.lost``), since the device may still be running."""
    case = expected.case
    kernel = case.kernel
    if warmups < 0 or samples < 0 or guard < 0:
        raise InvalidArgument(f"need warmups, samples and guard >= 0, got {warmups}, "
                              f"{samples}, {guard}")
    schedule = schedule or choose_schedule(ctx, kernel)
    ev = Evaluation(kernel, ctx.backend_name, None, schedule, case.size, case.seed,
                    case.input_hash, expected.reference)
    tolerances = {buffer_label(s): resolve_tolerance(s.dtype, kernel.tolerance,
                                                     ctx.backend_name, tolerance)
                  for s in kernel.outputs}
    previous_timeout, ctx.timeout_s = ctx.timeout_s, timeout_s
    try:
        ev.adapter = ctx.adapter
        ev.semantics = FloatSemantics.of(ctx.constraints)
        slots = _slots(kernel, case, guard, ctx.constraints.max_storage_binding_size)
        views = _upload(ctx, slots)
        with np.errstate(all="ignore"):  # a host backend meets the edge cases too
            ctx.run_kernel(kernel, schedule, views, case.size, 0, 1)
            ev.level = ValidationLevel.PIPELINE_CREATED
            _judge(ev, ctx, slots, views, expected, tolerances)
            if samples:
                times = ctx.run_kernel(kernel, schedule, views, case.size, warmups, samples)
                ev.timing = Timing(tuple(int(t) for t in times), ctx.timing_source)
                _recheck(ev, ctx, slots, views, expected, tolerances)
    except ForgeError as exc:
        _fail(ev, ctx, exc)
        return ev
    finally:
        ctx.timeout_s = previous_timeout
        _release(ctx)
    _settle(ev)
    return ev


def _release(ctx) -> None:
    try:
        ctx.clear_transient_allocations()
    except ForgeError:
        pass  # a lost or closed context has nothing left to release; the verdict says why


def _settle(ev: Evaluation) -> None:
    ok = all(o.passed for o in ev.outputs.values()) and not ev.inputs_modified
    ev.verdict = "pass" if ok else "mismatch"
    if ok:
        ev.level = ValidationLevel.PROFILED if ev.timing else ValidationLevel.ORACLE_VERIFIED


def evaluate(ctx, kernel: KernelSpec, schedule: Schedule | None = None, size: int | None = None,
             seed: int = 0, warmups: int = 1, samples: int = 5, tolerance: Any = None, *,
             reference=None, truth: KernelSpec | None = None,
             uniform: Mapping[str, Any] | None = None, guard: int = DEFAULT_GUARD,
             timeout_s: float | None = DEFAULT_TIMEOUT_S) -> Evaluation:
    """Run ``kernel`` on ``ctx`` and judge it against the reference backend.

    ``size`` defaults to the kernel's largest test size; ``schedule`` to its first
    schedule the context admits. Inputs are drawn from ``seed`` (see ``make_case``);
    ``uniform`` overrides uniform fields. ``tolerance`` (a Tolerance, or fields flat or
    keyed by dtype) is merged over the defaults and the kernel's overrides.
    ``reference`` is an open reference context to reuse; ``truth`` a kernel with the
    same buffers whose CPU meaning defines the expected output (default: ``kernel``).
    ``warmups`` untimed and ``samples`` timed runs follow the judged run (``samples=0``:
    no timing). Errors of the backend become the verdict; the context is left usable
    unless the device was lost. ``timeout_s`` bounds each wait for the device
    (default ``DEFAULT_TIMEOUT_S``; None: unbounded): a kernel that runs longer gets
    the verdict ``"timeout"`` instead of hanging the caller, and the context is lost."""
    if not isinstance(kernel, KernelSpec):
        raise InvalidArgument(f"expected a KernelSpec, got {type(kernel).__name__}")
    size = max(kernel.test_sizes) if size is None else size
    case = make_case(kernel, size, seed, uniform)
    expected = expected_outputs(case, truth, reference)
    return evaluate_case(ctx, expected, schedule, warmups=warmups, samples=samples,
                         tolerance=tolerance, guard=guard, timeout_s=timeout_s)

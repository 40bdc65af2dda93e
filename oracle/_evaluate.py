"""``evaluate(ctx, kernel, ...) -> Evaluation``: run a kernel on a backend with
fixed-seed inputs and judge it against its numpy reference (or, in a port check,
against another backend).

How a run is judged:
- the reference is checked before it judges (``oracle._expected``): a reference that
  leaves an output unwritten, returns the wrong shape or dtype, or raises gives the
  verdict ``reference-error``, never a pass;
- every storage buffer is bound exactly (a shader's ``arrayLength`` counts its
  elements), with guard elements before and after it outside the binding: poison past
  outputs, other poison past inputs, so writes past either end land where the oracle
  looks (on CUDA; WGSL's robust access clamps or drops them, and the report says so);
- outputs are poisoned before the run; an element still holding the poison afterwards
  was never written;
- inputs and the uniform block are read back and must be byte-for-byte unchanged;
- outputs are compared with the reference under the resolved tolerance and the
  context's measured float semantics; after the timed runs the kernel runs once more
  from its initial contents and is compared again (a race that shows only sometimes);
- every element must be judged: where the adapter's non-finite results are
  indeterminate, elements expected non-finite are masked, and the oracle runs further
  input sets (finite-only, then moderate values) until each element was judged in
  one; otherwise the verdict is ``inconclusive``;
- a kernel that takes a root or a power and reads a float buffer of rows, once it
  passes, is run on the ``small`` input set too (every row small values), where a
  statistic over any axis meets its epsilon.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
from collections.abc import Mapping
from typing import Any

import numpy as np

from forge.cache import replaced_atomically
from forge.contract import OracleContext
from forge.errors import ForgeError, InvalidArgument, ReferenceFailed, UnsupportedFeature
from forge.kernel import Access, KernelSpec
from forge.layout import as_elements
from forge.schedule import Schedule
from forge.sources import strip_comments, wgsl_bindings
from forge.types import ValidationLevel, is_float_dtype

from ._builtins import accumulates, builtin_notes, calls_exp, calls_root, running_extremum
from ._expected import NUMPY_REFERENCE, Expected, expected_outputs
from ._inputs import (
    FAR_SET,
    ONE_SIGN_SETS,
    OPPOSITE_SET,
    Case,
    draws_flat_floats,
    draws_floats,
    has_float_rows,
    initial_contents,
    make_case,
    opposite_signs,
    size_from_given,
)
from ._judge import coverage_gaps, endless_loop_finding, judge
from ._plan import BackendInfo, ErrorInfo, build_plan
from ._results import Evaluation, Finding, FloatSemantics, Timing, Verdict
from ._runners import NOT_RUN, InProcessRunner, Runner
from ._session import Session
from ._workers import CRASHED

__all__ = [
    "evaluate",
    "evaluate_case",
    "choose_schedule",
    "REFERENCE_BACKEND",
    "DEFAULT_GUARD",
    "DEFAULT_TIMEOUT_S",
    "expected_from_backend",
    "check_host_memory",
    "as_runner",
    "reference_error",
    "save_failure",
    "backend_info",
]

#: The backend that runs every kernel's numpy meaning (one of the backends under test).
REFERENCE_BACKEND = "reference"
#: Elements kept before and after each storage buffer to catch out-of-bounds access.
DEFAULT_GUARD = 1024


class _DefaultTimeout(float):
    """The type of ``DEFAULT_TIMEOUT_S``: a float, and recognisably the default rather
    than a bound a caller chose (``timeout_s is DEFAULT_TIMEOUT_S``), so that the bound
    of the session a runner came from can stand in for it (``bound_for``)."""

    def __reduce__(self) -> str:
        return "DEFAULT_TIMEOUT_S"  # unpickled as the one default, so ``is`` still holds


# Seconds any one wait for the device may take before the verdict is "timeout": far
# beyond any test-sized kernel, short enough that a hung kernel is reported. Where
# a run goes through a runner of a ``Session`` opened with its own ``timeout_s``, that
# bound applies instead unless the call names one.
DEFAULT_TIMEOUT_S: float = _DefaultTimeout(60.0)


def bound_for(timeout_s: Any, runner: Any) -> Any:
    """The bound of each wait of a run on ``runner``: ``timeout_s`` as the caller gave
    it, except the default, which yields to the bound of the session that opened
    ``runner`` where that session set one (``Runner.timeout_s``)."""
    if timeout_s is DEFAULT_TIMEOUT_S and getattr(runner, "timeout_s", None) is not None:
        return runner.timeout_s
    return timeout_s


# What an output's own check reports (``OutputCheck.findings``).
_OUTPUT_CHECKS = frozenset({"unwritten", "past-end", "before-start", "value", "later"})

# Later input sets, tried in order while some output element was judged in no set.
_EXTRA_SETS = ("finite", "normal")


def choose_schedule(target: Any, kernel: KernelSpec) -> Schedule:
    """The kernel's first schedule the backend admits (else its first): ``target`` is a
    context, a runner or a ``BackendInfo``. Asks the kernel's one schedule check."""
    info = backend_info(target)
    for schedule in kernel.schedules:
        try:
            kernel.check_schedule(schedule, info.constraints, info.target)
            return schedule
        except UnsupportedFeature:
            continue
    return kernel.schedules[0]


def backend_info(target: Any) -> BackendInfo:
    """What ``target`` (a context, a runner, a ``BackendInfo``) says about its backend."""
    if isinstance(target, BackendInfo):
        return target
    if isinstance(target, Runner):
        return target.info
    return BackendInfo.of(target)


def as_runner(target: Any) -> Runner:
    """A runner for ``target``: a runner as is, a context in this process."""
    if isinstance(target, Runner):
        return target
    if isinstance(target, OracleContext) or all(
        hasattr(target, a) for a in ("run_kernel", "allocate_and_write", "constraints")
    ):
        return InProcessRunner(target)
    raise InvalidArgument(
        f"expected an open context (forge.open_context) or a runner, got {type(target).__name__}"
    )


def _fail(ev: Evaluation, error: ErrorInfo) -> None:
    ev.verdict = (
        Verdict.UNSUPPORTED
        if error.unsupported
        else Verdict.TIMEOUT
        if error.timeout
        else Verdict.CRASHED
        if error.type == CRASHED
        else Verdict.NOT_RUN
        if error.type == NOT_RUN
        else Verdict.REFERENCE_ERROR
        if error.type == "ReferenceFailed"
        else Verdict.DEVICE_LOST
        if error.lost
        else Verdict.ERROR
    )
    ev.lost = error.lost
    ev.error_type = error.type
    ev.error = f"{error.type}: {error.message}"


def _run_set(
    ev: Evaluation,
    runner: Runner,
    expected: Expected,
    schedule: Schedule,
    *,
    warmups: int,
    samples: int,
    tolerance: Any,
    guard: int,
    timeout_s: Any,
    covered: dict[str, np.ndarray],
    energy_s: float = 0.0,
    reorder: bool = True,
) -> bool:
    """Plan, run and judge one input set into ``ev``; False when an error ended it."""
    info = runner.info
    try:
        plan = build_plan(
            expected.case.kernel,
            expected.case,
            info,
            schedule,
            guard=guard,
            warmups=warmups,
            samples=samples,
            timeout_s=timeout_s,
            energy_s=energy_s,
            reorder=reorder,
        )
    except ForgeError as exc:
        _fail(ev, ErrorInfo.of(exc))
        return False
    if not _fits(runner, plan, ev):
        return False
    outcome = runner.execute(plan)
    if outcome.ran:
        ev.level = ValidationLevel.PIPELINE_CREATED
        judge(ev, plan, outcome, expected, info, tolerance, covered)
    if outcome.samples_ns:
        ev.timing = Timing(tuple(outcome.samples_ns), outcome.timing_source)
    if plan.energy_s:
        ev.energy_j, ev.energy_note = tuple(outcome.energy_j), outcome.energy_note
    ev.notes += outcome.notes
    if outcome.error is not None:
        _fail(ev, outcome.error)
        if outcome.error.timeout:  # a loop no u32 ends is why a GPU hung, where there is one
            endless_loop_finding(ev, expected.case.kernel, info)
        if not outcome.ran:
            ev.level = _source_level(expected.case.kernel, info, schedule, expected.case.size)
        return False
    return True


def _fits(runner: Runner, plan, ev: Evaluation) -> bool:
    """Whether the runner's context can hold the plan's buffers, growing it (when the
    runner opened it with the default capacity) where it cannot; else the evaluation
    fails with a message naming the option that gives more memory."""
    need = runner.info.capacity_needed(plan)
    if need is None:
        return True
    rounded = -(-int(need * 1.25) // (1 << 20)) << 20
    if runner.grow(rounded) and runner.info.capacity_needed(plan) is None:
        return True
    _fail(
        ev,
        ErrorInfo(
            "AllocationError",
            f"the buffers of {plan.kernel.id} at size "
            f"{plan.size} need a context of about {rounded >> 20} MiB (with the "
            "oracle's guards); open it with more memory (--capacity-mib, or "
            "capacity_bytes=)",
        ),
    )
    return False


def _source_level(
    kernel: KernelSpec, info: BackendInfo, schedule: Schedule, size: Any
) -> ValidationLevel:
    if info.target is None:
        return ValidationLevel.NONE
    try:
        kernel.source(info.target, schedule, size)
    except ForgeError:
        return ValidationLevel.NONE
    return ValidationLevel.GENERATED


def _settle(ev: Evaluation) -> None:
    if ev.verdict != Verdict.PASS:
        return
    ok = (
        all(o.passed for o in ev.outputs.values())
        and not ev.inputs_modified
        and not any(f.check != "coverage" for f in ev.extra)
    )
    ev.verdict = Verdict.PASS if ok else Verdict.MISMATCH


def _complete_coverage(
    ev: Evaluation,
    runner: Runner,
    expected: Expected,
    schedule: Schedule,
    covered: dict[str, np.ndarray],
    options: dict,
) -> None:
    """Run further input sets until every output element was judged in one (needed
    where non-finite results are masked); ``inconclusive`` if some never were. Then,
    for a kernel that takes a root (a normalisation), the ``small`` set, where every
    statistic is near its epsilon (``oracle._inputs.SMALL_SET``); and for one that
    keeps a running maximum or minimum, the one-sign sets (``ONE_SIGN_SETS``), with
    two float inputs or more the ``opposite`` set (``OPPOSITE_SET``), and where no float
    input has rows and it takes an exponential (a softmax over a flat buffer) the
    ``far-negative`` set (``FAR_SET``); for one whose reference takes a running sum or
    product over float inputs (a scan, ``oracle._builtins.accumulates``), the ``normal``
    set, where no large block swallows the elements after it."""
    case = expected.case
    if case.generated and case.input_set == "all" and ev.verdict == Verdict.MISMATCH:
        _diagnose_on_finite_inputs(ev, runner, expected, schedule, options)
    for input_set in _EXTRA_SETS if case.generated else ():
        if not coverage_gaps(covered) or ev.verdict != Verdict.PASS:
            break
        if not _extra_set(ev, runner, expected, schedule, covered, options, input_set):
            break
    _coverage_verdict(ev, covered)
    # the sets of signs and magnitudes redraw the families: where every input is fixed
    # content, they hold the same bytes and would judge the same case again
    other_sets = case.generated and case.drawn
    if (
        other_sets
        and ev.verdict == Verdict.PASS
        and calls_root(case.kernel)
        and has_float_rows(case)
    ):
        _extra_set(ev, runner, expected, schedule, {}, options, "small")
    if (
        other_sets
        and ev.verdict == Verdict.PASS
        and draws_floats(case.kernel)
        and accumulates(case.kernel.reference)
    ):
        _extra_set(ev, runner, expected, schedule, {}, options, "normal")
    if other_sets and ev.verdict == Verdict.PASS and running_extremum(case.kernel):
        opposite = (OPPOSITE_SET,) if opposite_signs(case.kernel) else ()
        far = (FAR_SET,) if calls_exp(case.kernel) and draws_flat_floats(case) else ()
        for input_set in ONE_SIGN_SETS + opposite + far:
            if ev.verdict != Verdict.PASS:
                break
            _extra_set(ev, runner, expected, schedule, {}, options, input_set)


def _extra_set(
    ev: Evaluation,
    runner: Runner,
    expected: Expected,
    schedule: Schedule,
    covered: dict[str, np.ndarray],
    options: dict,
    input_set: str,
) -> bool:
    """Run and judge ``input_set``'s inputs into ``ev`` (its verdict, and the outputs
    that failed there shown as judged there); False when its reference failed."""
    try:
        sub_expected = input_set_expected(expected, input_set)
    except ForgeError as exc:  # the numpy reference failed, or the reference backend
        ev.extra.append(Finding("reference", f"in the {input_set} input set: {exc}"))
        return False
    sub = _judged_set(ev, runner, sub_expected, schedule, covered, options)
    sub_case = sub_expected.case
    figures = f", max ulp {sub.max_ulp}" if sub.max_ulp is not None else ""
    ev.input_sets.append(
        f"{input_set} (inputs sha256 {sub_case.input_hash[:16]}): {sub.verdict}{figures}"
    )
    if sub.max_ulp is not None and sub.max_abs is not None:
        ev.set_figures.append((sub.max_ulp, sub.max_abs))
    if sub.verdict != Verdict.PASS:
        ev.verdict = sub.verdict if sub.failing else ev.verdict
        # an output that failed here is shown as judged here (its mismatches, the
        # inputs at them): the first set had masked what this one judges
        failed = {k for k, c in sub.outputs.items() if not c.passed and k in ev.outputs}
        if sub.failing and not ev.failed_input_set:
            ev.got, ev.failed_input_set = dict(sub.got), input_set
        for label in failed:
            ev.outputs[label] = dataclasses.replace(sub.outputs[label], input_set=input_set)
            if label in sub.inputs_at_mismatch:
                ev.inputs_at_mismatch[label] = sub.inputs_at_mismatch[label]
        ev.extra += [
            Finding(f.check, f"in the {input_set} input set: {f.message}", f.buffer)
            for f in sub.findings
            if f.buffer not in failed or f.check not in _OUTPUT_CHECKS
        ]
        if sub.error:
            ev.error, ev.error_type, ev.lost = sub.error, sub.error_type, sub.lost
    return True


def _judged_set(
    ev: Evaluation,
    runner: Runner,
    expected: Expected,
    schedule: Schedule,
    covered: dict[str, np.ndarray],
    options: dict,
) -> Evaluation:
    """A further input set's case (``expected``) run, untimed, and judged on its own."""
    case = expected.case
    sub = Evaluation(
        case.kernel,
        ev.backend,
        ev.adapter,
        schedule,
        case.size,
        case.seed,
        case.input_hash,
        expected.reference,
        semantics=ev.semantics,
    )
    _run_set(sub, runner, expected, schedule, warmups=0, samples=0, covered=covered, **options)
    _settle(sub)
    return sub


def _diagnose_on_finite_inputs(
    ev: Evaluation, runner: Runner, expected: Expected, schedule: Schedule, options: dict
) -> None:
    """Where the drawn inputs fail a kernel by its values, whether the finite input set
    (no NaN, Inf or large magnitudes) passes it: then the report says the kernel is
    wrong only on those (a histogram that bins a NaN, whose counts no input family can
    be told from). The verdict stands; the finite set's run is not part of it."""
    kernel = expected.case.kernel
    drawn = [s for s in kernel.buffers if s.fill is None and s.access is Access.READ]
    if not any(s.is_scalar and is_float_dtype(np.dtype(s.dtype)) for s in drawn):
        return
    if not any(f.check == "value" for f in ev.findings):
        return
    try:
        finite = input_set_expected(expected, "finite")
    except ForgeError:
        return
    sub = _judged_set(ev, runner, finite, schedule, {}, options)
    if sub.verdict == Verdict.PASS:
        ev.notes.append(
            "it passes the finite input set (no NaN, Inf or magnitudes of 1e4 and more; "
            f"inputs sha256 {finite.case.input_hash[:16]}): it is wrong only where its "
            "inputs hold those; if it is never given them, declare nonfinite_inputs=False "
            "and a domain that leaves them out" + _ordered_not_equal(runner, kernel)
        )


def _ordered_not_equal(runner: Runner, kernel: KernelSpec) -> str:
    """Where the adapter's probe saw ``!=`` compiled as an ordered comparison (naga:
    NaN != x is false, which WGSL allows where it assumes no NaN) and the kernel's WGSL
    branches on ``!=``, why its NaN results may differ (round 44: a histogram's
    ``if (old != 0)`` never flushed a NaN bin on lavapipe)."""
    info = getattr(runner, "info", None)
    departures = getattr(getattr(info, "constraints", None), "float_departures", ())
    source = kernel.sources.get("wgsl") if getattr(info, "target", None) == "wgsl" else None
    if "nan_is_not_equal" not in departures or not isinstance(source, str):
        return ""
    if "!=" not in strip_comments(source):
        return ""
    return (
        "; and this adapter compiles != as an ordered comparison (its probe saw NaN != NaN "
        "false; WGSL allows it where it assumes no NaN), so where the kernel tests a NaN "
        "with != it takes the other branch"
    )


def _coverage_verdict(ev: Evaluation, covered: dict[str, np.ndarray]) -> None:
    """How many elements of each output some input set judged; ``inconclusive`` where
    some were judged in none."""
    for label, check in list(ev.outputs.items()):
        if label in covered:
            ev.outputs[label] = dataclasses.replace(check, covered=int(covered[label].sum()))
    gaps = coverage_gaps(covered)
    if gaps and ev.verdict == Verdict.PASS:
        ev.verdict = Verdict.INCONCLUSIVE
        ev.extra.append(
            Finding(
                "coverage",
                "not every element was judged: "
                + "; ".join(
                    f"{label}: {n} elements masked in every input set" for label, n in gaps.items()
                )
                + " (their expected values are not finite, and this adapter's non-finite results "
                "are indeterminate)",
            )
        )


def evaluate_case(
    target: Any,
    expected: Expected,
    schedule: Schedule | None = None,
    *,
    warmups: int = 1,
    samples: int = 5,
    tolerance: Any = None,
    guard: int = DEFAULT_GUARD,
    timeout_s: Any = DEFAULT_TIMEOUT_S,
    energy_s: float = 0.0,
    reorder: bool = True,
) -> Evaluation:
    """Judge the case's kernel on ``target`` (a context or a runner) against precomputed
    ``expected`` outputs; the building block of evaluate, cross_check and tune. Each
    wait for the device is bounded by ``timeout_s`` (None: unbounded), passed to the
    run itself: past it the verdict is ``timeout`` and the context is lost.
    ``energy_s``: also read the device's energy over about that many seconds of
    repeated runs (``ev.energy_j``, joules per run; ``ev.energy_note`` says why not).
    ``reorder``: the last run is the kernel's twin with each workgroup's invocations
    reversed (``Plan.reversed``: a dropped barrier shows); False reruns the kernel as
    written, one compile instead of two, for a kernel whose races are not in question
    (a variant already failing elsewhere)."""
    runner = as_runner(target)
    timeout_s = bound_for(timeout_s, runner)
    case = expected.case
    kernel = case.kernel
    if any(
        isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0
        for v in (warmups, samples, guard)
    ):
        raise InvalidArgument(
            f"need warmups, samples and guard to be ints >= 0, got {warmups!r}, "
            f"{samples!r}, {guard!r}"
        )
    info = runner.info
    schedule = schedule or choose_schedule(info, kernel)
    ev = Evaluation(
        kernel,
        info.name,
        info.adapter,
        schedule,
        case.size,
        case.seed,
        case.input_hash,
        expected.reference,
        isolated=runner.isolated,
    )
    ev.semantics = FloatSemantics.of(info.constraints, kernel, info.target)
    if expected.semantics_of_reference is not None:
        ev.semantics = ev.semantics.either(expected.semantics_of_reference)
    options = dict(tolerance=tolerance, guard=guard, timeout_s=timeout_s, reorder=reorder)
    covered: dict[str, np.ndarray] = {}
    if _run_set(
        ev,
        runner,
        expected,
        schedule,
        warmups=warmups,
        samples=samples,
        covered=covered,
        energy_s=energy_s,
        **options,
    ):
        ev.input_sets.append(f"{case.input_set} (inputs sha256 {case.input_hash[:16]})")
        _settle(ev)
        _complete_coverage(ev, runner, expected, schedule, covered, options)
    if ev.verdict == Verdict.PASS:
        ev.level = ValidationLevel.PROFILED if ev.timing else ValidationLevel.ORACLE_VERIFIED
    if ev.verdict == Verdict.MISMATCH or (ev.passed and _accepted_apart(ev)):
        _check_reference_determinism(ev, expected, info)
    if (
        ev.verdict == Verdict.MISMATCH
        and info.target == "wgsl"
        and not any(c.past_end or c.before_start for c in ev.outputs.values())
    ):
        ev.notes.append(
            "WGSL clamps or drops out-of-bounds accesses (robust buffer access), "
            "so a write past a buffer's end shows only where it changed an "
            "in-bounds value"
        )
    ev.notes += builtin_notes(ev, kernel, info.target, expected.case.generated)
    if ev.outputs and all(o.count == 0 for o in ev.outputs.values()):
        ev.notes.append(
            f"at size {ev.size} the outputs hold no elements: nothing was judged but that "
            "the kernel ran and wrote nothing past their ends"
        )
    if ev.failing and info.target == "wgsl" and not info.constraints.zeroes_workgroup_memory:
        _note_workgroup_zeroing(ev, kernel, schedule)
    if ev.failing and info.target == "wgsl":
        _note_workgroup_size(ev, kernel, schedule)
    if ev.verdict == Verdict.MISMATCH and info.target == "wgsl":
        _note_subgroup_width(ev, kernel, schedule, info.constraints.subgroup_size)
    ev.repro = _repro(ev)
    return ev


def _accepted_apart(ev: Evaluation) -> bool:
    """Whether an element was accepted other than by matching the reference: by a run
    of it with other roundings, other inputs or other numpy (which a reference that is
    not deterministic would make meaningless)."""
    return any(
        c.comparison.precise
        or c.comparison.bounded
        or c.comparison.nan_input
        or c.comparison.undefined
        or c.comparison.saturated
        or c.comparison.single
        or c.comparison.near
        or c.comparison.flushed
        for c in ev.outputs.values()
    )


def _check_reference_determinism(ev: Evaluation, expected: Expected, info: BackendInfo) -> None:
    """For a mismatch against the numpy reference, or a pass that accepted elements by
    other runs of it, run the reference again on the same inputs: one that gives other
    outputs (unseeded random numbers, a dict's order, a clock) defines no expectation,
    and the verdict is ``reference-error`` rather than a mismatch it would make of any
    kernel, or a pass within bounds its noise inflated."""
    if expected.reference != NUMPY_REFERENCE:
        return
    kernel = expected.case.kernel
    constraints = info.constraints if kernel.reference_reads_device else None
    try:
        again = expected_outputs(expected.case, expected.truth, constraints).outputs
    except ForgeError:
        return  # it failed this time: the mismatch stands, judged on the first run
    differing = []
    for label, first in expected.outputs.items():
        second = again.get(label)
        if second is None or first.shape != second.shape:
            continue
        moved = _moved_between_runs(first, second)
        if moved:
            differing.append(f"{label}: {moved} of {first.size} elements")
    if not differing:
        return
    ev.verdict = Verdict.REFERENCE_ERROR
    ev.error_type = "ReferenceFailed"
    ev.error = (
        f"ReferenceFailed: the reference of kernel {kernel.id} gave other outputs when run "
        f"again on the same inputs ({'; '.join(differing)}), so it defines no expected "
        "result: make it deterministic (draw random numbers from a seeded "
        "np.random.default_rng, or give them to the kernel as an input buffer)"
    )


# How far two runs of a float reference may differ and still be one expectation: a
# BLAS may sum in another order from one call to the next (MKL, by the arrays' alignment,
# unless its reproducible mode is on), by a few ulp; an unseeded random number moves an
# element by its whole size.
_RERUN_RTOL = 1e-4


def _moved_between_runs(first: np.ndarray, second: np.ndarray) -> int:
    """How many elements of two runs of the reference differ: beyond a few ulp for
    floats (``_RERUN_RTOL``, and the dtype's default absolute tolerance), in any bit
    otherwise (integers, records)."""
    from forge.types import is_float_dtype

    from ._tolerance import default_tolerance

    if first.dtype.names is None and is_float_dtype(first.dtype):
        atol = default_tolerance(first.dtype).atol
        with np.errstate(invalid="ignore"):  # a signalling NaN widens with a warning
            a, b = (np.asarray(x, np.float64).reshape(-1) for x in (first, second))
            same = np.isclose(a, b, rtol=_RERUN_RTOL, atol=atol, equal_nan=True)
        return int((~same).sum())
    bytes_ = [np.frombuffer(x.tobytes(), np.uint8) for x in (first, second)]
    changed = bytes_[0] != bytes_[1]
    if not first.size:
        return 0
    return int(changed.reshape(first.size, -1).any(axis=1).sum())


def _note_workgroup_size(ev: Evaluation, kernel: KernelSpec, schedule: Schedule) -> None:
    """Say so where the shader's literal ``@workgroup_size`` is not the schedule's: a
    grid computed from the schedule then dispatches too few invocations (or too many).
    Not for a kernel of launches that each give their grid or a schedule of their own:
    a launch runs its own schedule (checked against its entry point) or what its entry
    point declares, on the grid it gives (cuda-samples' bitonic sort, blocks of 512 on
    CUDA and a port of 256, round 38, was told to change a schedule that would have
    broken its CUDA launches)."""
    from forge.sources import wgsl_workgroup_size

    try:
        source = kernel.source("wgsl", schedule, ev.size)
        launches = kernel.launches_at(ev.size)
    except ForgeError:
        return
    own = [
        d.schedule.get("wgsl") if isinstance(d.schedule, Mapping) else d.schedule for d in launches
    ]
    if launches and all(d.grid is not None or o is not None for d, o in zip(launches, own)):
        return
    entry = kernel.entry_points.get("wgsl", kernel.entry_point)
    declared = wgsl_workgroup_size(source, entry, kernel.overrides)
    if declared is not None and declared != tuple(schedule.workgroup_size):
        ev.notes.append(
            f"the shader declares @workgroup_size{declared} but the schedule says "
            f"wg={'x'.join(map(str, schedule.workgroup_size))}: a grid computed from the "
            "schedule dispatches for the schedule's size; give the kernel "
            f"schedules=(Schedule({declared[0]}),) (or (x, y) for 2-D)"
        )


def _note_subgroup_width(
    ev: Evaluation, kernel: KernelSpec, schedule: Schedule, widths: tuple[int, int] | None
) -> None:
    """Say how wide this adapter's subgroups are where a kernel that uses them
    mismatches: WebGPU lets a subgroup be 4 to 128 lanes wide, and kernels written for
    NVIDIA's 32 (a lane mask of 31, one subgroup reducing the workgroup's subgroup
    totals where there are more of them than lanes) are wrong on lavapipe's 8 and
    SwiftShader's 4 by WebGPU's rules: the mismatch stands, and the note says which
    width it was seen at and how to declare the widths a kernel is written for."""
    from forge.sources import wgsl_uses_subgroups

    try:
        source = kernel.source("wgsl", schedule, ev.size)
    except ForgeError:
        return
    if widths is None or not wgsl_uses_subgroups(source):
        return
    if all(c.comparison.passed for c in ev.outputs.values()):
        return  # only a rerun failed (a race): the width is not what it shows
    low, high = widths
    width = str(low) if low == high else f"{low} to {high}"
    ev.notes.append(
        f"this adapter's subgroups are {width} lanes wide (WebGPU allows 4 to 128): a "
        "kernel right only at other widths (a lane mask of 31 for NVIDIA's 32, one "
        "subgroup reducing more subgroup totals than it has lanes) is wrong here by "
        "WebGPU's rules; where it is written for some widths only, say so, e.g. "
        'requires={"subgroups", "subgroup_size>=16"}, and it is unsupported elsewhere'
    )


def _note_workgroup_zeroing(ev: Evaluation, kernel: KernelSpec, schedule: Schedule) -> None:
    """Say what the backend did about an adapter that leaves workgroup memory dirty."""
    from forge.workgroup_zero import zero_workgroup_memory

    try:
        source = kernel.source("wgsl", schedule, ev.size)
        _, why = zero_workgroup_memory(source)
    except ForgeError:
        return
    if not re.search(r"var\s*<\s*workgroup\s*>", strip_comments(source)):
        return  # nothing to zero: the note would only distract
    ev.notes.append(
        "this adapter does not zero workgroup memory as WGSL requires (the "
        "probe saw it); "
        + (
            why + ", so a kernel relying on zeroed memory cannot be judged here"
            if why
            else "kforge zeroed it in the shader before the run"
        )
    )


def _repro(ev: Evaluation) -> str:
    """The command that reproduces ``ev``."""
    origin = getattr(ev.kernel, "origin", "") or ev.kernel.id
    words = ["kforge", "check", origin]
    if origin != ev.kernel.id:
        words += ["--kernel", ev.kernel.id]
    words += [
        "--backend",
        ev.backend,
        "--schedule",
        str(ev.schedule),
        "--size",
        str(ev.size).replace(",", ",")
        if not hasattr(ev.size, "dims") or len(ev.size) == 1
        else ",".join(f"{k}={v}" for k, v in ev.size.dims.items()),
        "--seed",
        str(ev.seed),
    ]
    return " ".join(shlex.quote(w) for w in words)


def check_host_memory(kernel: KernelSpec, size: Any, copies: int = 6) -> None:
    """Refuse a size whose buffers (with the oracle's copies: inputs, expectations,
    uploads, readbacks) cannot fit in this host's memory, before any input is drawn."""
    need = sum(spec.byte_size(size) for spec in kernel.buffers) * copies
    available = _available_memory()
    if available is not None and need > available:
        raise InvalidArgument(
            f"kernel {kernel.id} at size {size} needs about {need / 2**30:.1f} GiB of host "
            f"memory for its inputs, expectations and readbacks; {available / 2**30:.1f} GiB "
            "are available"
        )


def _available_memory() -> int | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def expected_from_backend(
    case: Case,
    runner: Runner,
    schedule: Schedule | None = None,
    *,
    guard: int = DEFAULT_GUARD,
    timeout_s: Any = DEFAULT_TIMEOUT_S,
) -> Expected:
    """A port check's expectation: the case run on ``runner``'s backend (its outputs,
    decoded). Raises ``ForgeError`` when that run fails."""
    info = runner.info
    schedule = schedule or choose_schedule(info, case.kernel)
    timeout_s = bound_for(timeout_s, runner)
    plan = build_plan(
        case.kernel, case, info, schedule, guard=guard, warmups=0, samples=0, timeout_s=timeout_s
    )
    plan = dataclasses.replace(plan, rerun=False)
    outcome = runner.execute(plan)
    if outcome.error is not None:
        raise ForgeError(
            f"the reference backend {info.name} could not run {case.kernel.id}: "
            f"{outcome.error.type}: {outcome.error.message}"
        )
    outputs = {}
    kernel = case.kernel
    for spec, region, raw in zip(kernel.buffers, plan.regions, outcome.first):
        if region.output:
            data = raw[region.start : region.start + region.count * region.itemsize]
            values = as_elements(
                np.frombuffer(data.tobytes(), np.uint8), spec.dtype_for(info.target), region.count
            )
            outputs[region.label] = kernel.buffer_values(spec, values, info.target).copy()
    return Expected(
        case,
        kernel,
        outputs,
        f"{info.name} ({info.adapter.name})",
        semantics_of_reference=FloatSemantics.of(info.constraints, kernel, info.target),
        reference_backend=info.name,
        recompute=lambda other: expected_from_backend(
            other, runner, schedule, guard=guard, timeout_s=timeout_s
        ),
    )


def evaluate(
    target: Any,
    kernel: KernelSpec,
    schedule: Schedule | None = None,
    size: Any = None,
    seed: int = 0,
    warmups: int = 1,
    samples: int = 5,
    tolerance: Any = None,
    *,
    truth: KernelSpec | None = None,
    uniform: Mapping[str, Any] | None = None,
    guard: int = DEFAULT_GUARD,
    timeout_s: Any = DEFAULT_TIMEOUT_S,
    inputs: Mapping[str, Any] | None = None,
    reference: str | None = None,
    isolate: bool | None = None,
    sanitize: bool = False,
    save: str | os.PathLike | None = None,
    reorder: bool = True,
) -> Evaluation:
    """Run ``kernel`` on ``target`` and judge it.

    ``target`` is an open context (evaluated in this process unless ``isolate=True``)
    or a backend name (evaluated in a worker process when the backend runs device code,
    unless ``isolate=False``). ``size`` (an int, ``"4096x32768"``, ``"M=..,N=.."``)
    defaults to the size the ``inputs`` given fit, else the kernel's largest checked
    size; ``schedule`` to its first the backend admits. Inputs are drawn from
    ``seed``, or taken from ``inputs`` (arrays by buffer name: numpy, or anything with
    ``__dlpack__``); ``uniform`` overrides uniform fields. ``tolerance`` (a Tolerance,
    or fields flat or keyed by dtype) is merged over the defaults and the kernel's
    overrides. ``truth``: a kernel with the same buffers
    whose numpy meaning defines the expectation; ``reference``: a backend name whose
    run defines it instead (a port check, no numpy reference needed). ``warmups``
    untimed and ``samples`` timed runs follow the judged run (``samples=0``: no timing).
    ``timeout_s`` bounds each wait for the device (None: unbounded). ``sanitize``: also
    run it under compute-sanitizer (CUDA). ``save``: a folder where a failing
    evaluation leaves its inputs, expected and actual outputs (``.npz``).
    ``reorder=False``: no reversed twin in the last run (``evaluate_case``).
    Errors of the backend become the verdict."""
    if not isinstance(kernel, KernelSpec):
        raise InvalidArgument(f"expected a KernelSpec, got {type(kernel).__name__}")
    if reference is not None and not isinstance(reference, str):
        raise InvalidArgument(
            f"reference names the backend a port check is judged against "
            f"(e.g. 'cuda'), got {type(reference).__name__}"
        )
    if size is None:
        size = size_from_given(kernel, inputs) if inputs else kernel.largest_size()
    else:
        size = kernel.size(size)
    check_host_memory(kernel, size)
    with _Targets(target, reference, isolate, timeout_s) as (runner, reference_runner):
        timeout_s = bound_for(timeout_s, runner)
        case = make_case(kernel, size, seed, uniform, given=inputs)
        try:
            if reference_runner is not None:
                expected = expected_from_backend(
                    case, reference_runner, guard=guard, timeout_s=timeout_s
                )
            else:
                expected = expected_outputs(
                    case, truth, runner.info.constraints if kernel.reference_reads_device else None
                )
        except ReferenceFailed as exc:
            return reference_error(runner, kernel, case, schedule, exc)
        except ForgeError as exc:
            if reference_runner is None:
                raise
            return reference_error(runner, kernel, case, schedule, exc)
        ev = evaluate_case(
            runner,
            expected,
            schedule,
            warmups=warmups,
            samples=samples,
            tolerance=tolerance,
            guard=guard,
            timeout_s=timeout_s,
            reorder=reorder,
        )
        if ev.verdict is Verdict.MISMATCH:
            note_outputs_read_first(
                ev,
                runner,
                expected,
                schedule,
                truth=truth,
                tolerance=tolerance,
                guard=guard,
                timeout_s=timeout_s,
            )
    if sanitize:
        from ._sanitize import sanitize_evaluation

        sanitize_evaluation(ev, expected, guard=guard, timeout_s=timeout_s)
    if save is not None and ev.failing:
        if ev.failed_input_set:
            expected = input_set_expected(expected, ev.failed_input_set)
        ev.saved = save_failure(ev, expected, save)
    return ev


def note_outputs_read_first(
    ev: Evaluation,
    runner: Runner,
    expected: Expected,
    schedule: Schedule | None,
    *,
    truth: KernelSpec | None = None,
    tolerance: Any = None,
    guard: int = DEFAULT_GUARD,
    timeout_s: Any = DEFAULT_TIMEOUT_S,
) -> None:
    """Where outputs declared without ``initial`` failed, judge the kernel once more
    with them starting at zero; if it passes, say so: the kernel reads them before it
    writes (``out[i] |= byte``, ``+=``, an atomic), relying on its host zeroing them
    (a new WebGPU buffer, ``cudaMemset``), which its spec did not declare. The verdict
    stands (the oracle poisons outputs without ``initial``, so that an element never
    written shows), and without this the report says only "never written". Judged
    against numpy only (a port check's expectation comes from a backend's run)."""
    case = expected.case
    kernel = case.kernel
    target = runner.info.target
    if target is None or expected.reference != NUMPY_REFERENCE:
        return  # no source to read (the host), or no numpy expectation to judge again
    try:
        source = strip_comments(kernel.source(target, ev.schedule, ev.size))
    except ForgeError:
        return
    failed = {
        spec.label: spec
        for spec in kernel.buffers
        if spec.is_output
        and spec.initial is None
        and not spec.inout
        and spec.label in ev.outputs
        and not ev.outputs[spec.label].passed
        and _updated_in_place(source, _source_names(spec, source, target))
    }
    if not failed:
        return
    zeroed = dataclasses.replace(
        kernel,
        buffers=tuple(
            dataclasses.replace(spec, initial=0) if spec.label in failed else spec
            for spec in kernel.buffers
        ),
    )
    try:
        arrays = dict(case.arrays)
        for spec in zeroed.buffers:
            if spec.label in failed:
                count = spec.element_count(case.size)
                arrays[spec.label] = initial_contents(spec, count, case.size, zeroed)
        variant = dataclasses.replace(case, kernel=zeroed, arrays=arrays)
        again = evaluate_case(
            runner,
            expected_outputs(
                variant, truth, runner.info.constraints if kernel.reference_reads_device else None
            ),
            schedule,
            warmups=0,
            samples=0,
            tolerance=tolerance,
            guard=guard,
            timeout_s=timeout_s,
        )
    except ForgeError:
        return  # the hint is a courtesy: a run that cannot be made gives none
    if not again.passed:
        return
    names = ", ".join(sorted(failed))
    ev.notes.append(
        f"{names}: the kernel reads {'it' if len(failed) == 1 else 'them'} before writing "
        f"(it passes when {'it starts' if len(failed) == 1 else 'they start'} at zero): if "
        "its host zeroes them (a new WebGPU buffer, cudaMemset, a harness that hands over "
        "zeroed outputs, as LeetGPU's does), declare "
        "BufferSpec(..., initial=0); an output without initial starts as the oracle's "
        "poison, so that an element never written shows"
    )


def _source_names(spec, source: str, target: str) -> set[str]:
    """What ``source`` may call buffer ``spec``: its name, and in WGSL the variable
    bound at its group and binding."""
    names = {spec.name} if spec.name else set()
    if target == "wgsl":
        try:
            names |= {
                b.name
                for b in wgsl_bindings(source)
                if (b.group, b.binding) == (spec.group, spec.binding)
            }
        except ForgeError:
            pass
    return names


#: A read-modify-write of ``{name}``: a compound assignment to an element of it
#: (``y[i] |= b``, ``y[i] += v``), an atomic on it (``atomicAdd(&y[i], v)``,
#: ``atomicOr(y + i, b)``), or an element assigned from itself (``y[i] = y[i] + v``).
_IN_PLACE = (
    r"\b{name}\s*\[[^;{{}}]*?\]\s*(?:\+|-|\*|/|%|\||&|\^|<<|>>)=",
    r"\batomic\w*\s*\(\s*&?\s*\(?\s*{name}\b",
    r"\b{name}\s*\[([^\];]*)\]\s*=[^=;][^;]*\b{name}\s*\[\s*\1\s*\]",
)


def _updated_in_place(source: str, names: set[str]) -> bool:
    """Whether ``source`` reads one of ``names`` where it writes it (the cheap test
    before ``note_outputs_read_first`` runs a kernel again)."""
    return any(
        re.search(pattern.format(name=re.escape(name)), source)
        for name in names
        for pattern in _IN_PLACE
    )


def reference_error(
    runner: Runner, kernel: KernelSpec, case: Case, schedule: Schedule | None, exc: ForgeError
) -> Evaluation:
    info = runner.info
    ev = Evaluation(
        kernel,
        info.name,
        info.adapter,
        schedule or choose_schedule(info, kernel),
        case.size,
        case.seed,
        case.input_hash,
        NUMPY_REFERENCE,
    )
    ev.verdict = Verdict.REFERENCE_ERROR
    ev.error_type = type(exc).__name__
    ev.error = f"{ev.error_type}: {exc}"
    return ev


class _Targets:
    """The runner of ``target`` and of a port check's ``reference`` backend, closing
    what it opened on exit."""

    def __init__(
        self, target: Any, reference: str | None, isolate: bool | None, timeout_s: Any
    ) -> None:
        self.target, self.reference = target, reference
        self.session = Session(
            isolate=isolate,
            timeout_s=timeout_s
            if isinstance(timeout_s, (int, float)) or timeout_s is None
            else DEFAULT_TIMEOUT_S,
        )
        self.isolate = isolate

    def __enter__(self) -> tuple[Runner, Runner | None]:
        try:
            if isinstance(self.target, str):
                runner = self.session.runner(self.target)
            elif isinstance(self.target, OracleContext) and self.isolate:
                runner = self.session.runner(self.target.backend_name)
            else:
                runner = as_runner(self.target)
            reference = None if self.reference is None else self.session.runner(self.reference)
        except BaseException:
            self.session.close()
            raise
        return runner, reference

    def __exit__(self, *exc_info: Any) -> None:
        self.session.close()


def input_set_expected(expected: Expected, input_set: str) -> Expected:
    """What the same reference expects of the same problem drawn from ``input_set``
    (the uniform kept)."""
    case = expected.case
    sub_case = dataclasses.replace(
        make_case(case.kernel, case.size, case.seed, input_set=input_set), uniform=case.uniform
    )
    if expected.recompute is not None:
        return expected.recompute(sub_case)
    return expected_outputs(sub_case, expected.truth)


def save_failure(ev: Evaluation, expected: Expected, folder: str | os.PathLike) -> str:
    """Write ``ev``'s inputs, expected and actual outputs to ``folder`` as one ``.npz``
    (``expected`` is of the input set that failed: ``ev.failed_input_set``, or the first
    one); returns its path."""
    os.makedirs(folder, exist_ok=True)
    where = f"-{ev.failed_input_set}" if ev.failed_input_set else ""
    name = f"{ev.kernel.id}-{ev.backend}-{str(ev.size).replace(',', '_')}-seed{ev.seed}{where}.npz"
    path = os.path.join(folder, name)
    arrays: dict[str, Any] = {}  # np.savez's stub types **kwds against allow_pickle too
    for label, array in expected.case.arrays.items():
        arrays[f"input.{label}"] = array
    for label, array in expected.outputs.items():
        arrays[f"expected.{label}"] = array
    for label, array in ev.got.items():
        arrays[f"actual.{label}"] = array
    if expected.case.uniform is not None:
        arrays["uniform"] = expected.case.uniform
    # Through a temporary file and a rename: Ctrl-C (or a second run saving the same
    # failure) never leaves a truncated .npz that np.load then refuses.
    with replaced_atomically(path) as handle:
        np.savez(handle, **arrays)
    return path

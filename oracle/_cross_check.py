"""``cross_check(kernel, backends=...)``: the same inputs on every available backend,
each judged against the reference and compared pairwise, naming the backend that
diverges.

The reference is the kernel's numpy meaning, or with ``reference="cuda"`` (any backend
name) that backend's run: a port check of a WGSL kernel against its CUDA original
needs no numpy at all. Backends run in one ``Session``: contexts stay warm across
the evaluations of a run, device code runs in worker processes (``isolate``), and a
kernel that faults costs only its own verdict.

A pair is judged under the float semantics either side declares: elements the
reference expects non-finite are masked when either side's non-finite results are
indeterminate, and where a side may flush subnormals, an element it computed as the
flushed reference does is compared as the reference's own value, so the two agree
when they differ by exactly the documented flush and by nothing else."""

from __future__ import annotations

import collections
import concurrent.futures
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

import forge
from forge.errors import ForgeError, InvalidArgument, ReferenceFailed
from forge.kernel import KernelSpec
from forge.schedule import Schedule

from ._compare import Comparison, compare, element_matches, nan_excused, nonfinite_expected
from ._evaluate import (
    DEFAULT_GUARD,
    DEFAULT_TIMEOUT_S,
    REFERENCE_BACKEND,
    check_host_memory,
    evaluate_case,
    expected_from_backend,
    note_outputs_read_first,
    reference_error,
)
from ._expected import Expected, expected_outputs
from ._inputs import buffer_label, make_case
from ._judge import leaves, unorm_accepted, unorm_exact
from ._results import Evaluation, Verdict
from ._session import Session
from ._tolerance import resolve_tolerance
from ._tuning_cache import find_tuned

if TYPE_CHECKING:
    from ._fleet import Fleet

__all__ = [
    "cross_check",
    "check_many",
    "prepare_while",
    "CheckOptions",
    "CrossCheck",
    "PairCheck",
    "Prepared",
]


@dataclass(frozen=True)
class PairCheck:
    """Two backends' outputs compared with each other (under the looser tolerance)."""

    first: str
    second: str
    comparisons: dict[str, Comparison]

    @property
    def agree(self) -> bool:
        return all(c.passed for c in self.comparisons.values())

    @property
    def max_ulp(self) -> int:
        return max((c.max_ulp for c in self.comparisons.values()), default=0)

    @property
    def masked(self) -> int:
        """Elements not judged: non-finite results indeterminate on either side."""
        return sum(c.masked for c in self.comparisons.values())

    @property
    def flushed(self) -> int:
        """Elements that agree only once a side's subnormal flush is accounted for."""
        return sum(c.flushed for c in self.comparisons.values())

    def describe(self) -> str:
        notes = [f"max ulp {self.max_ulp}"]
        notes += [f"{self.masked} masked (non-finite, indeterminate)"] if self.masked else []
        notes += [f"{self.flushed} differ by a subnormal flush"] if self.flushed else []
        return (
            f"{self.first} vs {self.second}: {'agree' if self.agree else 'DISAGREE'} "
            f"({', '.join(notes)})"
        )


@dataclass
class CrossCheck:
    """Every backend's evaluation on one set of inputs, their pairwise agreement, and
    which backends diverge. ``skipped`` maps backends that could not be opened to why."""

    kernel: KernelSpec
    size: int
    seed: int
    input_hash: str
    evaluations: dict[str, Evaluation] = field(default_factory=dict)
    pairs: list[PairCheck] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)

    reference: str = "numpy"

    @property
    def diverging(self) -> list[str]:
        """Backends whose verdict fails: wrong output, an error, a fault, a timeout, a
        broken reference, elements not judged."""
        return [n for n, e in self.evaluations.items() if e.failing]

    @property
    def passed(self) -> bool:
        """No backend diverged (unsupported ones are reported, not failed), and one
        besides the numpy reference ran the kernel: a cross-check in which only numpy
        ran it (every device backend unsupported or not available) checked nothing, and
        a script that reads ``passed`` is not told otherwise."""
        return not self.diverging and self.checked

    @property
    def checked(self) -> bool:
        """Whether a backend besides the numpy reference ran the kernel and passed."""
        return any(
            e.verdict == Verdict.PASS for n, e in self.evaluations.items() if n != REFERENCE_BACKEND
        )

    def verdict(self) -> str:
        """One sentence naming who diverges, and whether the reference itself is suspect."""
        if not self.diverging:
            ran = [n for n, e in self.evaluations.items() if e.verdict == "pass"]
            others = [n for n, e in self.evaluations.items() if e.verdict != "pass"]
            aside = f" ({', '.join(others)}: {self._aside(others)})" if others else ""
            if not self.checked:
                return f"no backend but the reference ran the kernel{aside}: nothing was checked"
            return (
                f"all {len(ran)} backends that ran agree with the reference: "
                f"{', '.join(ran)}{aside}"
            )
        wrong = self.diverging
        others = [
            n
            for n, e in self.evaluations.items()
            if e.verdict == Verdict.MISMATCH and n != REFERENCE_BACKEND
        ]
        if len(others) >= 2 and self._agree_among(others):
            return (
                f"{', '.join(others)} agree with each other but not with the reference: "
                "suspect the reference meaning (or a shared emitter bug)"
            )
        by_kind: dict[str, list[str]] = {}
        for name in wrong:
            verdict = self.evaluations[name].verdict
            kind = (
                "diverging from the reference"
                if verdict == Verdict.MISMATCH
                else "the reference itself failed"
                if verdict == Verdict.REFERENCE_ERROR
                else f"{verdict}"
            )
            by_kind.setdefault(kind, []).append(name)
        return "; ".join(f"{kind}: {', '.join(names)}" for kind, names in by_kind.items())

    def _aside(self, names: Sequence[str]) -> str:
        """The verdicts of backends that neither passed nor failed (unsupported, or
        nothing to judge), as one phrase."""
        return ", ".join(sorted({str(self.evaluations[n].verdict) for n in names}))

    def _agree_among(self, names: Sequence[str]) -> bool:
        wanted = set(itertools.combinations(sorted(names), 2))
        found = {tuple(sorted((p.first, p.second))): p.agree for p in self.pairs}
        return all(found.get(pair, False) for pair in wanted)

    def report(self) -> str:
        lines = [
            f"cross-check of {self.kernel.id}, size {self.size}, seed {self.seed}, "
            f"inputs sha256 {self.input_hash[:16]}, against {self.reference}",
            self.verdict(),
        ]
        for name, ev in self.evaluations.items():
            ulp = "-" if ev.max_ulp is None else ev.max_ulp
            lines.append(
                f"  {name:<12} {ev.verdict:<11} max ulp {ulp}"
                + (f"  {ev.problems[0]}" if ev.problems else "")
            )
        for name, why in self.skipped.items():
            lines.append(f"  {name:<12} skipped     {why}")
        lines += [f"  {pair.describe()}" for pair in self.pairs]
        return "\n".join(lines)

    def as_dict(self) -> dict:
        return {
            "kernel": self.kernel.id,
            "size": str(self.size),
            "seed": self.seed,
            "reference": self.reference,
            "input_hash": self.input_hash,
            "passed": self.passed,
            "diverging": self.diverging,
            "verdict": self.verdict(),
            "evaluations": {n: e.as_dict() for n, e in self.evaluations.items()},
            "skipped": dict(self.skipped),
            "pairs": [
                {
                    "first": p.first,
                    "second": p.second,
                    "agree": p.agree,
                    "max_ulp": p.max_ulp,
                    "masked": p.masked,
                    "flushed": p.flushed,
                }
                for p in self.pairs
            ],
        }


def _backend_list(backends: Iterable[str] | None) -> tuple[list[str], dict[str, str]]:
    status = forge.available_backends()
    if backends is None:
        names = list(status)
    else:
        names = list(backends)
        unknown = [n for n in names if n not in status]
        if unknown:
            raise InvalidArgument(f"unknown backends {unknown}; installed: {', '.join(status)}")
    return (
        [n for n in names if status[n][0]],
        {n: status[n][1] for n in names if not status[n][0]},
    )


def _as_unflushed(
    ev: Evaluation, want: np.ndarray, flushed: np.ndarray | None, label: str, tol
) -> tuple[np.ndarray, int]:
    """``ev``'s output lane ``label``, with each element that matches only the flushed
    expectation (on a backend that may flush) replaced by the reference's value, and
    how many were replaced."""
    got = ev.got[label]
    if not ev.semantics.subnormals_may_flush or flushed is None:
        return got, 0
    swap = element_matches(got, flushed, tol) & ~element_matches(got, want, tol)
    swap = swap.reshape(got.shape)
    return np.where(swap, want, got), int(swap.sum())


def _pairs(
    kernel: KernelSpec, evaluations: dict[str, Evaluation], tolerance, expected: Expected
) -> list[PairCheck]:
    wants: dict[str, np.ndarray] = {}
    flushed: dict[str, np.ndarray] = {}
    for label, array in expected.outputs.items():
        wants.update(leaves(label, array))
        flushed.update(leaves(label, expected.flushed()[label]))
    ran = [n for n, e in evaluations.items() if set(e.got) == set(wants)]
    unorm = {buffer_label(spec) for spec in kernel.buffers if spec.unorm}
    table = kernel.tolerance_at(expected.case.size)
    pairs = []
    for a, b in itertools.combinations(ran, 2):
        first, second = evaluations[a], evaluations[b]
        semantics = first.semantics.either(second.semantics)
        comparisons = {}
        for label, want in wants.items():
            tol = resolve_tolerance(want.dtype, table, a, tolerance).loosest(
                resolve_tolerance(want.dtype, table, b, tolerance)
            )
            for side in (first, second):  # what each side was judged with (WGSL's floors)
                used = side.outputs.get(label)
                if used is not None:
                    tol = tol.loosest(used.comparison.tolerance)
            got_a, flushed_a = _as_unflushed(first, want, flushed[label], label, tol)
            got_b, flushed_b = _as_unflushed(second, want, flushed[label], label, tol)
            masked = (
                nonfinite_expected(want, flushed[label])
                if semantics.nonfinite_indeterminate
                else None
            )
            masks: dict[str, Any] = {"indeterminate": masked}
            if label in unorm:
                # two devices may store either of the two codes the conversion rule
                # allows (forge.textures): where both sides are allowed, they agree
                exact = unorm_exact(expected, label, want)
                both = unorm_accepted(got_a, want, tol, exact=exact) & unorm_accepted(
                    got_b, want, tol, exact=exact
                )
                got_b = np.where(both.reshape(np.shape(got_b)), got_a, got_b)
            pair = compare(got_a, got_b, tol, **masks)
            bound = expected.rounding_bound().get(label) if not pair.passed else None
            if bound is not None and pair.mismatches > pair.nonfinite_mismatches:
                # each of the two may err by a long sum's rounding, in opposite directions
                masks["bound"] = 2 * bound.reshape(want.shape)
                pair = compare(got_a, got_b, tol, **masks)
            all_set = expected.case.generated and expected.case.input_set == "all"
            alternatives = expected.nan_alternatives().get(label, []) if all_set else []
            if alternatives and not pair.passed:
                # one side may drop NaN inputs (maxNum) where the other propagates them:
                # each side matches the reference, or it with NaN inputs as missing
                sides = [
                    element_matches(got, want, tol)
                    | nan_excused(got, alternatives, tol).reshape(-1)
                    for got in (got_a, got_b)
                ]
                masks["nan_input"] = (sides[0] & sides[1]).reshape(want.shape)
                pair = compare(got_a, got_b, tol, **masks)
            comparisons[label] = replace(pair, flushed=flushed_a + flushed_b)
        pairs.append(PairCheck(a, b, comparisons))
    return pairs


def _expected(
    case,
    kernel: KernelSpec,
    session: Session | Fleet | None,
    reference: str | None,
    guard: int,
    timeout_s: Any,
) -> Expected:
    if reference in (None, "numpy"):
        return expected_outputs(case)
    assert session is not None, "a backend as the reference needs the session"
    return expected_from_backend(case, session.runner(reference), guard=guard, timeout_s=timeout_s)


@dataclass(frozen=True)
class CheckOptions:
    """How every evaluation of a check runs (``cross_check``'s and ``check_many``'s
    keyword arguments of the same names)."""

    schedule: Schedule | None = None
    schedules: dict[str, Schedule] | None = None
    warmups: int = 1
    samples: int = 5
    tolerance: Any = None
    guard: int = DEFAULT_GUARD
    timeout_s: float | None = DEFAULT_TIMEOUT_S
    reference: str | None = None
    tuned: bool = False


def cross_check(
    kernel: KernelSpec,
    backends: Iterable[str] | None = None,
    size: Any = None,
    seed: int = 0,
    *,
    schedule: Schedule | None = None,
    warmups: int = 1,
    samples: int = 5,
    tolerance: Any = None,
    guard: int = DEFAULT_GUARD,
    on_result: Callable[[str, Evaluation], None] | None = None,
    open_options: dict[str, dict] | None = None,
    timeout_s: float | None = DEFAULT_TIMEOUT_S,
    reference: str | None = None,
    isolate: bool | None = None,
    session: Session | None = None,
    inputs: Any = None,
    uniform: Any = None,
    schedules: dict[str, Schedule] | None = None,
    tuned: bool = False,
) -> CrossCheck:
    """Evaluate ``kernel`` on every available backend of ``backends`` (default: all
    installed) with one set of inputs (``size`` defaults to the kernel's largest
    checked size) against one expectation (the numpy reference, or the run of backend
    ``reference``), then compare the backends pairwise. Unavailable backends are listed
    in ``skipped`` with their reason; one that is available but cannot be opened gets
    an ``error`` evaluation saying why. ``session`` (else one made from ``isolate``,
    ``open_options`` and ``timeout_s``, closed before returning) holds the contexts;
    ``schedules`` picks a schedule per backend; ``tuned`` runs, on each backend given no
    schedule, the kernel's tuned schedule saved for its adapter (``kforge tune --save``)
    where there is one. ``on_result(name, evaluation)`` is called as each backend
    finishes (progress)."""
    size = kernel.largest_size() if size is None else kernel.size(size)
    if session is None:
        names, skipped = _backend_list(backends)
    else:  # the session's owner chose the backends; one that cannot open says so below
        names, skipped = list(backends if backends is not None else forge.backend_names()), {}
    options = CheckOptions(
        schedule, schedules, warmups, samples, tolerance, guard, timeout_s, reference, tuned
    )
    owned = session is None
    session = session or Session(isolate=isolate, open_options=open_options, timeout_s=timeout_s)
    try:
        (result,) = check_many(
            [(kernel, size, seed)],
            names,
            session,
            options,
            on_result=on_result,
            inputs=inputs,
            uniform=uniform,
        )
        result.skipped.update(skipped)
        return result
    finally:
        if owned:
            session.close()


def check_many(
    items: Iterable[tuple[KernelSpec, Any, int]],
    backends: Sequence[str],
    session: Session | Fleet,
    options: CheckOptions | None = None,
    *,
    on_result: Callable[[str, Evaluation], None] | None = None,
    inputs: Any = None,
    uniform: Any = None,
    prepared: Sequence[Prepared] = (),
) -> Iterator[CrossCheck]:
    """Cross-check each (kernel, size, seed) of ``items`` on ``backends``, yielding the
    results in order. The backends run concurrently, each through its own runner in
    order (through as many at once as the session has workers for it: a ``Fleet``'s
    ``width``, and one more evaluation waiting for a free one), while this thread draws
    the next cases and runs their references (up to two items ahead, or one more than
    the widest backend has evaluations under way), so a check takes
    about as long as its slowest backend. A broken reference or a backend that cannot
    open becomes that evaluation's verdict. ``prepared``: the first items' cases and
    references made already (``prepare_while``), taken in order instead of making
    them again."""
    options = options or CheckOptions()
    names = [n for n in backends if n != options.reference]
    widths = {name: _lanes(session, name) for name in names}
    lanes = {
        name: concurrent.futures.ThreadPoolExecutor(
            widths[name], thread_name_prefix=f"kforge-{name}"
        )
        for name in names
    }
    ahead = max([_AHEAD, *(w + 1 for w in widths.values())])
    pending: collections.deque = collections.deque()
    try:
        for index, (kernel, size, seed) in enumerate(items):
            try:
                made = (
                    prepared[index].made()
                    if index < len(prepared)
                    else _prepare(kernel, size, seed, session, options, inputs, uniform)
                )
            except ForgeError as exc:  # this item alone: its verdicts, not the run's end
                pending.append(_unmade(kernel, size, seed, names, options, exc))
            else:
                pending.append(_submit(made, names, session, options, lanes))
            while len(pending) > ahead:
                yield _collect(pending.popleft(), options, on_result)
        while pending:
            yield _collect(pending.popleft(), options, on_result)
    except KeyboardInterrupt:
        # Ctrl-C while this thread made a later item's reference: the items before it
        # that every backend has judged already are kept, in order, then it goes on.
        while pending and all(f.done() and not f.cancelled() for f in pending[0][2].values()):
            yield _collect(pending.popleft(), options, on_result)
        raise
    finally:
        for future in (f for job in pending for f in job[2].values()):
            future.cancel()
        for lane in lanes.values():
            lane.shutdown(wait=False, cancel_futures=True)


_AHEAD = 2  # items whose references are computed before the oldest one is collected


def _unmade(kernel: KernelSpec, size, seed: int, names, options: CheckOptions, exc) -> tuple:
    """The job of an item whose case could not be made (a size that needs more host
    memory than there is): an error on every backend."""
    size = kernel.largest_size() if size is None else kernel.size(size)
    result = CrossCheck(kernel, size, seed, "", reference=options.reference or "numpy")
    futures: dict[str, concurrent.futures.Future] = {}
    for name in names:
        ev = Evaluation(
            kernel, name, None, options.schedule or kernel.schedules[0], size, seed, "", "numpy"
        )
        ev.verdict, ev.error_type = Verdict.ERROR, type(exc).__name__
        ev.error = f"kernel {kernel.id} could not be prepared at size {size}: {exc}"
        futures[name] = concurrent.futures.Future()
        futures[name].set_result(ev)
    return result, None, futures


def _lanes(session: Any, name: str) -> int:
    """How many evaluations of backend ``name`` to have under way at once: one per
    runner the session has for it, and one more where it hands out free runners (a
    ``Fleet``): that evaluation's plan waits for a runner while the others' results are
    judged, so a worker does not sit idle while this process judges."""
    width = getattr(session, "width", None)
    return max(1, int(width(name))) + 1 if callable(width) else 1


def _prepare(
    kernel, size, seed, session, options: CheckOptions, inputs, uniform
) -> tuple[Any, Expected | None, ForgeError | None]:
    """An item's case, and its reference's expectation (or why there is none)."""
    size = kernel.largest_size() if size is None else kernel.size(size)
    check_host_memory(kernel, size)
    case = make_case(kernel, size, seed, uniform, given=inputs)
    try:
        expected = _expected(
            case, kernel, session, options.reference, options.guard, options.timeout_s
        )
    except ForgeError as exc:  # a broken reference, or a reference backend that failed
        return case, None, exc
    return case, expected, None


@dataclass(frozen=True)
class Prepared:
    """An item made ahead by ``prepare_while``: ``_prepare``'s answer, or the exception
    it raised (raised again when the check reaches the item, as it would have been)."""

    answer: tuple | None
    raised: BaseException | None = None

    def made(self) -> tuple:
        if self.raised is not None:
            raise self.raised
        assert self.answer is not None
        return self.answer


def prepare_while(
    busy: Callable[[], bool],
    items: Sequence[tuple[KernelSpec, Any, int]],
    options: CheckOptions | None = None,
    *,
    limit_bytes: int = 1 << 30,
) -> list[Prepared]:
    """The first ``items``' cases and numpy references, made in order for as long as
    ``busy()`` (say, while the backends' workers open) and their inputs and
    expectations stay under ``limit_bytes``; give them to ``check_many(prepared=)``.
    With a backend as the reference there is nothing to make without it: none."""
    options = options or CheckOptions()
    made: list[Prepared] = []
    if options.reference not in (None, "numpy"):
        return made
    held = 0
    for kernel, size, seed in items:
        if not busy() or held > limit_bytes:
            break
        try:
            answer = _prepare(kernel, size, seed, None, options, None, None)
        except Exception as exc:  # raised again when the check reaches this item
            made.append(Prepared(None, exc))
            continue
        made.append(Prepared(answer))
        case, expected = answer[0], answer[1]
        held += sum(a.nbytes for a in case.arrays.values()) + (
            sum(a.nbytes for a in expected.outputs.values()) if expected is not None else 0
        )
    return made


def _submit(made: tuple, names, session, options: CheckOptions, lanes) -> tuple:
    case, expected, failure = made
    kernel = case.kernel
    result = CrossCheck(
        kernel, case.size, case.seed, case.input_hash, reference=options.reference or "numpy"
    )
    futures = {
        name: lanes[name].submit(
            _evaluate_one,
            name,
            session,
            kernel,
            case,
            expected,
            failure,
            (options.schedules or {}).get(name, options.schedule),
            options.warmups,
            options.samples,
            options.tolerance,
            options.guard,
            options.timeout_s,
            options.tuned,
        )
        for name in names
    }
    return result, expected, futures


def _collect(
    job: tuple, options: CheckOptions, on_result: Callable[[str, Evaluation], None] | None
) -> CrossCheck:
    result, expected, futures = job
    for name, future in futures.items():
        result.evaluations[name] = future.result()
        if on_result is not None:
            on_result(name, result.evaluations[name])
    if expected is not None:
        result.pairs = _pairs(result.kernel, result.evaluations, options.tolerance, expected)
    return result


def _evaluate_one(
    name: str,
    session: Session | Fleet,
    kernel: KernelSpec,
    case,
    expected,
    failure,
    schedule,
    warmups,
    samples,
    tolerance,
    guard,
    timeout_s,
    tuned: bool = False,
) -> Evaluation:
    try:
        runner = session.runner(name)
    except ForgeError as exc:
        ev = Evaluation(
            kernel,
            name,
            None,
            schedule or kernel.schedules[0],
            case.size,
            case.seed,
            case.input_hash,
            "numpy",
        )
        ev.verdict, ev.error_type = Verdict.ERROR, type(exc).__name__
        ev.error = f"could not open the {name} backend: {exc}"
        return ev
    if expected is None:
        return reference_error(runner, kernel, case, schedule, failure)
    if kernel.reference_reads_device and expected.reference == "numpy":
        try:
            expected = expected_outputs(case, None, runner.info.constraints)
        except ReferenceFailed as exc:
            return reference_error(runner, kernel, case, schedule, exc)
    note = ""
    if tuned and schedule is None:
        found, found_schedule, note = find_tuned(runner.info, kernel)
        if found is not None:
            schedule = found_schedule
            expected = replace(expected, case=replace(expected.case, kernel=found))
    ev = evaluate_case(
        runner,
        expected,
        schedule,
        warmups=warmups,
        samples=samples,
        tolerance=tolerance,
        guard=guard,
        timeout_s=timeout_s,
    )
    if ev.verdict is Verdict.MISMATCH:
        note_outputs_read_first(
            ev, runner, expected, schedule, tolerance=tolerance, guard=guard, timeout_s=timeout_s
        )
    if note:
        ev.notes.append(note)
    return ev

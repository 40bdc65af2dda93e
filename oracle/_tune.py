"""``tune(target, kernel, ...)``: search a kernel's candidates for the fastest correct
one.

A candidate is a schedule and the kernel's parameter values (``forge.tunables``). The
space is first pruned without running anything: candidates a restriction refuses,
schedules the adapter's constraints refuse, sources the kernel refuses to generate,
dispatches over the limits, and candidates whose compiled text and launch are those of
an earlier one (the kernel ignores what differs). A strategy (``oracle._strategies``:
exhaustive, random, successive halving, TPE) then picks candidates to measure within
the budget (candidates measured, or seconds). Every measurement is an oracle
evaluation: a wrong candidate is recorded with why and can never win, a faulting one
costs only its own verdict. Measurements run on the target's workers at once when it
has several (``oracle._fleet``), and stream to the tuning cache
(``oracle._tuning_cache``), from which a resumed or repeated run takes them instead
of measuring again. While a candidate is measured, the next ones are compiled ahead on
threads of their own (``oracle._ahead``, ``Runner.compile_ahead``), so that each
measurement loads a compiled image instead of waiting for its compile. The best
candidates (finalists) are measured again together on one device, and a winner is
declared only when its lead over the runner-up exceeds the measured noise (the larger
interquartile range of the two).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

import forge
from forge import tunables as _tunables
from forge.errors import ForgeError, InvalidArgument, UnsupportedFeature
from forge.kernel import KernelSpec
from forge.schedule import Schedule

from ._ahead import CompileAhead, default_threads
from ._evaluate import DEFAULT_GUARD, DEFAULT_TIMEOUT_S, as_runner, evaluate_case
from ._expected import Expected, expected_outputs
from ._inputs import make_case
from ._results import Evaluation, Timing, format_duration
from ._runners import InProcessRunner, Runner
from ._strategies import FINALISTS, _score, get_strategy
from ._tuning_cache import TuningCache, candidate_source_hash, tuning_key

__all__ = [
    "tune",
    "TuneResult",
    "Candidate",
    "Budget",
    "schedule_space",
    "declare_winner",
    "candidate_space",
    "TUNE_FORMAT",
    "describe_candidate",
]

#: The ``format`` field of ``kforge tune --json`` (and ``TuneResult.as_dict``).
TUNE_FORMAT = "kforge-tune/1"
WORKGROUP_SIZES = (32, 64, 128, 256, 512, 1024)
ITEMS_PER_INVOCATION = (1, 2, 4, 8)
VECTOR_WIDTHS = (1, 2, 4)
#: How many of the best candidates are measured again together, and how much longer.
FINAL_SAMPLES_FACTOR = 4
#: Compile-ahead's window: candidates past the one measured next, per thread.
AHEAD_PER_THREAD = 2
# A candidate's status after a verdict other than pass.
_FAILED_STATUS = {
    "mismatch": "wrong",
    "inconclusive": "wrong",
    "reference-error": "wrong",
    "timeout": "timeout",
    "device-lost": "lost",
    "crashed": "crashed",
}


describe_candidate = _tunables.describe


@dataclass
class Candidate:
    """A schedule and parameter values, and what became of them: ``status`` is
    ``candidate`` (not decided yet, or kept by a dry run), ``pruned`` (never run),
    ``measured`` (ran correctly), ``wrong`` (failed the oracle), ``error`` (the backend
    raised), ``lost`` (the device was lost running it), ``timeout``, ``crashed`` (its
    worker died, twice), ``eliminated`` (slower half in ``round``), ``finalist``, or
    ``winner``. ``energy_j``: joules per run, per measuring window; ``cached``: taken
    from the tuning cache rather than measured now; ``order``: when it was first
    measured (1 is first), 0 never."""

    schedule: Schedule
    values: dict = field(default_factory=dict)
    status: str = "candidate"
    reason: str = ""
    timing: Timing | None = None
    round: int = 0
    evaluation: Evaluation | None = field(default=None, repr=False)
    kernel: KernelSpec | None = field(default=None, repr=False)
    energy_j: tuple[float, ...] = ()
    cached: bool = False
    order: int = 0
    notes: list[str] = field(default_factory=list)
    source_hash: str = field(default="", repr=False)

    @property
    def key(self) -> str:
        return describe_candidate(self.schedule, self.values)

    @property
    def median(self) -> float:
        return self.timing.median if self.timing else math.inf

    @property
    def energy(self) -> float:
        """Median joules per run (inf when not measured)."""
        if not self.energy_j:
            return math.inf
        ordered = sorted(self.energy_j)
        return ordered[len(ordered) // 2]

    def rates(self, work: dict) -> dict[str, float | None]:
        """GB/s, GFLOP/s and GFLOP/s per watt from the kernel's declared work."""
        seconds = self.median / 1e9 if self.timing else None
        bytes_, flops = work.get("bytes_moved"), work.get("flops")
        return {
            "gb_per_s": bytes_ / seconds / 1e9 if bytes_ and seconds else None,
            "gflop_per_s": flops / seconds / 1e9 if flops and seconds else None,
            "gflop_per_s_per_watt": flops / self.energy / 1e9
            if flops and self.energy_j and self.energy > 0
            else None,
        }

    def as_dict(self, work: dict | None = None) -> dict:
        timing = self.timing
        return {
            "candidate": self.key,
            "schedule": str(self.schedule),
            "tunables": dict(self.values),
            "status": self.status,
            "reason": self.reason,
            "round": self.round,
            "order": self.order,
            "cached": self.cached,
            "median_ns": timing.median if timing else None,
            "iqr_ns": timing.iqr if timing else None,
            "samples": timing.count if timing else 0,
            "timing": timing.as_dict() if timing else None,
            "energy_j_per_run": self.energy if self.energy_j else None,
            "notes": list(self.notes),
            **self.rates(work or {}),
        }


def _timing(c: Candidate) -> Timing:
    """The timing of ``c``, a candidate that was measured."""
    assert c.timing is not None, f"{c.key} was not measured"
    return c.timing


def _kernel(c: Candidate) -> KernelSpec:
    """The kernel ``c`` runs (the search gives every candidate its own)."""
    assert c.kernel is not None, f"{c.key} has no kernel"
    return c.kernel


@dataclass(frozen=True)
class Budget:
    """How much a search may measure: ``count`` candidates (pruned ones do not count,
    wrong ones do) and/or ``seconds`` of measuring (device time over the workers)."""

    count: int | None = None
    seconds: float | None = None

    @classmethod
    def parse(cls, text: Any) -> Budget:
        """``20`` (candidates), ``"90s"``, ``"2m"``, ``"1h"`` (time), or None."""
        if text is None or isinstance(text, Budget):
            return text or cls()
        value: float
        if isinstance(text, int) and not isinstance(text, bool):
            value, unit = text, ""
        else:
            match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(s|m|min|h)?\s*", str(text))
            if match is None:
                raise InvalidArgument(
                    f"a budget is a number of candidates (20) or a duration "
                    f"(90s, 2m, 1h), got {text!r}"
                )
            value, unit = float(match.group(1)), match.group(2) or ""
        if value <= 0:
            raise InvalidArgument(f"a budget must be positive, got {text!r}")
        if not unit:
            if value != int(value):
                raise InvalidArgument(f"a budget of candidates is a whole number, got {text!r}")
            return cls(count=int(value))
        return cls(seconds=value * {"s": 1, "m": 60, "min": 60, "h": 3600}[unit])

    def __str__(self) -> str:
        parts = ([f"{self.count} candidates"] if self.count else []) + (
            [f"{self.seconds:g} s"] if self.seconds else []
        )
        return " or ".join(parts) or "unlimited"


@dataclass
class TuneResult:
    """The search: every candidate with its fate, the best measured one, and the
    winner (None when the lead is within noise, or nothing was run)."""

    kernel: KernelSpec
    backend: str
    size: Any
    candidates: list[Candidate]
    dry_run: bool = False
    best: Candidate | None = None
    winner: Candidate | None = None
    conclusion: str = ""
    advice: str = ""
    contexts_opened: int = 0
    strategy: str = "halving"
    budget: Budget = field(default_factory=Budget)
    objective: str = "time"
    adapter: str = ""
    measured: int = 0
    reused: int = 0
    cache_path: str | None = None
    workers: list[str] = field(default_factory=list)
    energy_note: str = ""
    saved: str | None = None

    def by_status(self, status: str) -> list[Candidate]:
        return [c for c in self.candidates if c.status == status]

    @property
    def work(self) -> dict:
        return self.kernel.work(self.size)

    def ranked(self) -> list[Candidate]:
        """Candidates that ran correctly, best first by median (or energy): the
        finalists first, by the runs they made together on one device (the comparison
        the conclusion is drawn from), then the others by their search runs."""
        ran = [
            c
            for c in self.candidates
            if c.timing is not None and c.status in ("measured", "eliminated", "finalist", "winner")
        ]
        return sorted(
            ran, key=lambda c: (c.status not in ("winner", "finalist"), _score(c, self.objective))
        )

    def history(self) -> list[Candidate]:
        """Candidates in the order they were first measured."""
        return sorted((c for c in self.candidates if c.order), key=lambda c: c.order)

    def report(self, top: int = 10) -> str:
        lines = [
            f"tuning {self.kernel.id} on {self.backend} at size {self.size}: "
            f"{len(self.candidates)} candidates, {len(self.by_status('pruned'))} pruned"
            + (
                " (dry run: nothing was run)"
                if self.dry_run
                else f"; strategy {self.strategy}, budget {self.budget}, {self.measured} "
                f"measured now, {self.reused} from the tuning cache"
            ),
            self.conclusion,
        ] + ([self.advice] if self.advice else [])
        for c in self.ranked()[:top]:
            lines.append(
                f"  {c.key:<40} {c.status:<10} median {format_duration(c.median)}"
                f" (iqr {format_duration(_timing(c).iqr)})"
            )
        for c in self.candidates:
            if c.status in ("wrong", "error", "lost", "timeout", "crashed"):
                lines.append(f"  {c.key:<40} {c.status:<10} {c.reason.splitlines()[0][:120]}")
        return "\n".join(lines)

    def as_dict(self, top: int | None = None) -> dict:
        work = self.work
        ranked = self.ranked()
        return {
            "format": TUNE_FORMAT,
            "kernel": self.kernel.id,
            "backend": self.backend,
            "adapter": self.adapter,
            "size": str(self.size),
            "dry_run": self.dry_run,
            "strategy": self.strategy,
            "objective": self.objective,
            "budget": {"count": self.budget.count, "seconds": self.budget.seconds},
            "measured": self.measured,
            "reused": self.reused,
            "cache": self.cache_path,
            "workers": list(self.workers),
            "conclusion": self.conclusion,
            "advice": self.advice,
            "energy": self.energy_note or None,
            "best": self.best.as_dict(work) if self.best else None,
            "winner": self.winner.as_dict(work) if self.winner else None,
            "saved": self.saved,
            "contexts_opened": self.contexts_opened,
            "work": work,
            "noise_ns": _timing(self.best).iqr if self.best else None,
            "top": [c.as_dict(work) for c in (ranked[:top] if top else ranked)],
            "candidates": [c.as_dict(work) for c in self.candidates],
        }


# -- the space ------------------------------------------------------------------------------
def schedule_space(
    kernel: KernelSpec,
    workgroup_sizes: Sequence[int] = WORKGROUP_SIZES,
    items: Sequence[int] = ITEMS_PER_INVOCATION,
    vectors: Sequence[int] = VECTOR_WIDTHS,
) -> list[Schedule]:
    """The schedules tuned when a kernel declares no schedule knobs: its own schedules,
    then every 1-D variant of them over workgroup size, items per invocation and vector
    width (2-D and 3-D workgroups are kept as given: their shape is the kernel's
    tiling, not a free parameter)."""
    space: list[Schedule] = []
    for schedule in kernel.schedules:
        if schedule not in space:
            space.append(schedule)
    for base in kernel.schedules:
        if base.workgroup_size[1:] != (1, 1):
            continue
        for wg in workgroup_sizes:
            for ipt in items:
                for vec in vectors:
                    variant = base.with_(
                        workgroup_size=(wg, 1, 1), items_per_invocation=ipt, vector_width=vec
                    )
                    if variant not in space:
                        space.append(variant)
    return space


def candidate_space(kernel: KernelSpec, space: Iterable[Schedule] | None = None) -> list[Candidate]:
    """Every candidate of ``kernel`` (restrictions not applied yet): ``space``'s
    schedules, else the product of its schedule knobs, else ``schedule_space``; each
    times every combination of its parameters."""
    knobs = any(k in _tunables.SCHEDULE_KEYS for k in kernel.tunables)
    schedules = list(space) if space is not None else None if knobs else schedule_space(kernel)
    return [Candidate(s, values) for s, values in _tunables.combinations(kernel, schedules)]


def _source_text(runner: Runner, kernel: KernelSpec, schedule: Schedule, size: Any) -> str:
    """What a candidate compiles and launches, to find candidates that are the same
    (an in-process context is asked itself: the text it compiles is its own)."""
    info = runner.info
    if isinstance(runner, InProcessRunner):
        return runner.ctx.kernel_source(kernel, schedule, size)
    if info.target is None:
        return kernel.semantic_hash
    return kernel.source(info.target, schedule, size)


def _prune_one(
    runner: Runner, kernel: KernelSpec, c: Candidate, size: Any, missing: list[str]
) -> tuple[Any, tuple] | None:
    """``(what it compiles, its launches)``, or None with the candidate pruned. A
    declaration error (a restriction that cannot be evaluated, a template value no one
    gives) raises ``InvalidArgument``: it is the kernel's, not the candidate's."""
    info = runner.info
    why = _tunables.restriction_failure(kernel, c.schedule, c.values, size, info.constraints)
    if why:
        c.status, c.reason = "pruned", why
        return None
    try:
        if missing:
            raise UnsupportedFeature(f"the adapter lacks {', '.join(missing)}")
        c.kernel = kernel.with_tunables(c.values)
        c.kernel.check_schedule(c.schedule, info.constraints, info.target)
        limit = info.constraints.max_workgroups_per_dimension[0]
        text = (
            _source_text(runner, c.kernel, c.schedule, size),
            c.kernel.compile_options(info.target) if info.target else (),
        )
        steps = c.kernel.steps(
            info.target, c.schedule, size, limit, text[0] if info.target is not None else None
        )
    except InvalidArgument:
        raise
    except ForgeError as exc:
        c.status, c.reason = "pruned", f"{type(exc).__name__}: {exc}"
        return None
    return text + tuple(s.overrides for s in steps), tuple((s.workgroups, s.block) for s in steps)


def _prune(runner: Runner, kernel: KernelSpec, candidates: list[Candidate], size: Any) -> None:
    """Prune what cannot or need not run (see the module docstring)."""
    constraints = runner.info.constraints
    missing = sorted(f for f in kernel.requires if not constraints.supports(f))
    seen: dict[Any, tuple[Candidate, tuple]] = {}
    for c in candidates:
        found = _prune_one(runner, kernel, c, size, missing)
        if found is None:
            continue
        text, launches = found
        if text in seen:
            first, first_launches = seen[text]
            c.status = "pruned"
            c.reason = (
                f"duplicate of {first.key}"
                if launches == first_launches
                else f"unused parameter: same source as {first.key}, another dispatch"
            )
            continue
        seen[text] = (c, launches)


def declare_winner(best: Candidate, runner_up: Candidate | None) -> tuple[bool, str]:
    """Whether ``best`` wins: its median lead over ``runner_up`` must exceed the
    measured noise, the larger interquartile range of the two."""
    if runner_up is None:
        return False, f"only {best.key} ran correctly: nothing to beat, no winner declared"
    lead = runner_up.median - best.median
    noise = max(_timing(best).iqr, _timing(runner_up).iqr)
    text = (
        f"lead of {format_duration(lead)} over {runner_up.key} "
        f"(noise: interquartile range {format_duration(noise)})"
    )
    if lead > noise:
        return True, f"winner {best.key}: {text}"
    return False, (
        f"no winner: {best.key} is the fastest finalist by median but its {text} is within noise"
    )


def _declare_energy_winner(best: Candidate, runner_up: Candidate | None) -> tuple[bool, str]:
    """The energy objective's winner: its lead in joules per run must exceed the spread
    of either one's measuring windows."""
    if runner_up is None:
        return False, f"only {best.key} ran correctly: nothing to beat, no winner declared"
    lead = runner_up.energy - best.energy
    noise = max(max(c.energy_j) - min(c.energy_j) for c in (best, runner_up))
    text = (
        f"lead of {lead:.3g} J per run over {runner_up.key} (noise: spread of the "
        f"measuring windows {noise:.3g} J)"
    )
    if lead > noise:
        return True, f"winner {best.key}: {text}"
    return False, f"no winner: {best.key} uses least energy but its {text} is within noise"


# -- measuring ------------------------------------------------------------------------------
@dataclass
class _Settings:
    """How every candidate is measured."""

    warmups: int
    tolerance: Any
    guard: int
    timeout_s: Any
    energy_s: float
    objective: str


class _Cursor:
    """An iterator over candidates that knows where it is, so that what comes next can
    be looked at without taking it."""

    def __init__(self, items: Sequence[Candidate]) -> None:
        self.items, self.position = items, 0

    def __iter__(self) -> _Cursor:
        return self

    def __next__(self) -> Candidate:
        if self.position >= len(self.items):
            raise StopIteration
        self.position += 1
        return self.items[self.position - 1]

    def upcoming(self, count: int) -> Sequence[Candidate]:
        """The next ``count`` candidates (fewer at the end), not taken."""
        return self.items[self.position : self.position + count]


class _Search:
    """The measuring half of the tuner: one case, judged on the target's runners (at
    once when it has several), each measurement taken from the tuning cache when it
    holds it, else made and appended there, within the budget."""

    def __init__(
        self,
        runner: Runner,
        expected: Expected,
        settings: _Settings,
        cache: TuningCache,
        budget: Budget,
        size: Any,
        on_progress: Callable[[Candidate], None] | None,
        reopen: Callable[[], Any],
        ahead_threads: int = 0,
    ) -> None:
        self.runner, self.expected, self.settings = runner, expected, settings
        self.cache, self.budget, self.size = cache, budget, size
        self.on_progress, self.reopen = on_progress, reopen
        self.concurrency = max(1, int(getattr(runner, "concurrency", 1)))
        # Compile-ahead: the next candidates' device-free preparation (NVRTC compiles)
        # on threads of their own, at most ``ahead_window`` candidates past the one
        # measured next.
        self.ahead = CompileAhead(self._compile_ahead, ahead_threads) if ahead_threads else None
        self.ahead_window = AHEAD_PER_THREAD * ahead_threads + self.concurrency
        self.opened: list[Any] = []
        self.first_measured = 0  # candidates measured (now or earlier): the budget's count
        self.spent_s = 0.0  # device seconds over the workers: the budget's time
        self.new, self.reused = 0, 0
        self._lock = threading.Lock()
        self._runner_lock = threading.Lock()

    # -- budget --
    def exhausted(self) -> bool:
        """Whether the budget is spent: as many candidates measured, or as much time."""
        count = self.budget.count
        return (count is not None and self.first_measured >= count) or self.exhausted_time()

    def exhausted_time(self) -> bool:
        """Whether a time budget is spent (re-measuring is bounded by time only)."""
        seconds = self.budget.seconds
        return seconds is not None and self.spent_s >= seconds

    def _charge(self, c: Candidate, elapsed_s: float) -> None:
        with self._lock:
            self.spent_s += elapsed_s / self.concurrency
            if not c.order:
                self.first_measured += 1
                c.order = self.first_measured

    # -- measuring --
    def measure(
        self,
        candidates: Sequence[Candidate],
        samples: int,
        round_: int = 0,
        phase: str = "search",
        runner: Runner | None = None,
        budgeted: bool = True,
    ) -> list[Candidate]:
        """Measure ``candidates`` (in order, at most ``concurrency`` at once, each new
        one only while the budget lasts when ``budgeted``); returns those that ran
        correctly, in order."""
        todo = _Cursor(candidates)
        running: dict = {}
        with ThreadPoolExecutor(self.concurrency) as pool:
            try:
                while True:
                    while len(running) < self.concurrency:
                        self._offer_ahead(todo, samples, phase, budgeted)
                        new = sum(not c.order for c in running.values())
                        c = self._next(todo, samples, round_, phase, budgeted, new)
                        if c is None:
                            break
                        running[
                            pool.submit(
                                self._measure_one, c, samples, round_, phase, runner or self.runner
                            )
                        ] = c
                    if not running:
                        break
                    finished, _ = wait(running, return_when=FIRST_COMPLETED)
                    for future in finished:
                        running.pop(future)
                        future.result()
            finally:  # what was not started is not needed (the budget), or interrupted
                if self.ahead is not None:
                    self.ahead.cancel_pending()
        return [c for c in candidates if c.round == round_ and c.status == "measured"]

    def _next(
        self,
        todo: Iterator[Candidate],
        samples: int,
        round_: int,
        phase: str,
        budgeted: bool,
        new_in_flight: int,
    ) -> Candidate | None:
        """The next candidate to measure, applying those the cache holds on the way;
        None when there is none left or the budget is spent (counting the new
        candidates being measured)."""
        for c in todo:
            if (
                budgeted
                and not c.order
                and (
                    self.exhausted()
                    or (
                        self.budget.count is not None
                        and self.first_measured + new_in_flight >= self.budget.count
                    )
                )
            ):
                return None
            record = self._held(c, samples, phase)
            if record is None:
                return c
            first = not c.order
            self._apply(c, record, round_, cached=True)
            self._charge(c, record.get("elapsed_s", 0.0))
            self.reused += 1
            if first:
                self._progress(c)
        return None

    def _held(self, c: Candidate, samples: int, phase: str) -> dict | None:
        """The tuning cache's measurement of ``c`` that this search can take, if any."""
        record = self.cache.get(
            c.key, samples, phase, _kernel(c).semantic_hash, self._source_hash(c)
        )
        if record is None or (self.settings.energy_s and record.get("energy_j") is None):
            return None
        return record

    # -- compile-ahead --
    def _offer_ahead(self, todo: _Cursor, samples: int, phase: str, budgeted: bool) -> None:
        """Offer compile-ahead the candidates of the window past ``todo``'s position
        that will be measured: not those the tuning cache holds, nor new ones past a
        count budget, nor any once a time budget is spent."""
        ahead = self.ahead
        if ahead is None or (budgeted and self.exhausted_time()):
            return
        room = None
        if budgeted and self.budget.count is not None:
            room = self.budget.count - self.first_measured
        offered = []
        for c in todo.upcoming(self.ahead_window):
            if not c.order and room is not None:
                if room <= 0:
                    continue
                room -= 1
            if c.key in ahead or self._held(c, samples, phase) is not None:
                continue
            offered.append((c.key, c))
        ahead.offer(offered)

    def _compile_ahead(self, c: Candidate) -> None:
        """The device-free preparation of ``c``'s run, on a compile-ahead thread."""
        self.runner.compile_ahead(_kernel(c), c.schedule, self.size)

    def _source_hash(self, c: Candidate) -> str:
        if not c.source_hash:
            info = self.runner.info
            c.source_hash = candidate_source_hash(
                _kernel(c),
                info.target,
                c.schedule,
                self.size,
                info.constraints.max_workgroups_per_dimension[0],
            )
        return c.source_hash

    def _measure_one(
        self, c: Candidate, samples: int, round_: int, phase: str, runner: Runner
    ) -> None:
        settings = self.settings
        if self.ahead is not None:
            self.ahead.claim(c.key)  # its compile: cancelled if not started, else awaited
        start = time.monotonic()
        ev = evaluate_case(
            runner,
            self._expected_for(_kernel(c)),
            c.schedule,
            warmups=settings.warmups,
            samples=samples,
            tolerance=settings.tolerance,
            guard=settings.guard,
            timeout_s=settings.timeout_s,
            energy_s=settings.energy_s,
        )
        elapsed = time.monotonic() - start
        record = _record(c, ev, samples, phase, elapsed, self._source_hash(c))
        self._apply(c, record, round_, cached=False)
        c.evaluation = ev
        if ev.lost and isinstance(runner, InProcessRunner):
            self._replace(runner)
        if ev.verdict not in ("not-run",):
            self.cache.put(record)
        first = not c.order
        self._charge(c, elapsed)
        with self._lock:
            self.new += 1
        if first:
            self._progress(c)

    def _apply(self, c: Candidate, record: dict, round_: int, cached: bool) -> None:
        """Take a measurement's record into the candidate."""
        c.round = round_
        c.cached = cached if not c.order else (c.cached and cached)
        if record["status"] == "measured":
            c.timing = Timing(tuple(record["samples_ns"]), record["timing_source"])
            c.energy_j = tuple(record.get("energy_j") or ())
            c.status, c.reason = "measured", ""
        else:
            c.status, c.reason, c.timing = record["status"], record["reason"], None
        c.notes = list(record.get("notes", ()))

    def _expected_for(self, kernel: KernelSpec) -> Expected:
        """The case's expectation, judged as ``kernel`` (a candidate of the kernel the
        case was drawn for: same buffers, same meaning)."""
        expected = self.expected
        if kernel is expected.case.kernel:
            return expected
        return dataclasses.replace(expected, case=dataclasses.replace(expected.case, kernel=kernel))

    def _replace(self, runner: InProcessRunner) -> None:
        """A fresh context after an in-process one was lost."""
        with self._runner_lock:
            if runner is self.runner:
                ctx = self.reopen()
                self.opened.append(ctx)
                self.runner = InProcessRunner(ctx)

    def _progress(self, c: Candidate) -> None:
        if self.on_progress is not None:
            with self._lock:
                self.on_progress(c)

    @contextlib.contextmanager
    def one_device(self) -> Iterator[Runner]:
        """One of the target's devices, held for the finalists' measurements."""
        pinned = getattr(self.runner, "pinned", None)
        if pinned is None:
            yield self.runner
        else:
            with pinned() as runner:
                yield runner

    def close(self) -> None:
        if self.ahead is not None:
            self.ahead.close()
        for ctx in self.opened:
            ctx.close()


def _record(
    c: Candidate, ev: Evaluation, samples: int, phase: str, elapsed: float, source_hash: str
) -> dict:
    """A measurement as the tuning cache keeps it."""
    if ev.passed:
        status, reason = "measured", ""
    else:
        status = _FAILED_STATUS.get(str(ev.verdict), "error")
        reason = ev.problems[0] if ev.problems else (ev.error or str(ev.verdict))
    return {
        "candidate": c.key,
        "samples": samples,
        "phase": phase,
        "kernel_hash": _kernel(c).semantic_hash,
        "source_sha256": source_hash,
        "status": status,
        "verdict": str(ev.verdict),
        "reason": reason,
        "samples_ns": list(ev.timing.samples_ns) if ev.timing and ev.passed else [],
        "timing_source": ev.timing.source if ev.timing else "",
        "energy_j": list(ev.energy_j) if getattr(ev, "energy_j", None) else None,
        "notes": list(ev.notes),
        "elapsed_s": round(elapsed, 4),
    }


# -- the search -----------------------------------------------------------------------------
def _finish(search: _Search, result: TuneResult, alive: list[Candidate]) -> None:
    """Measure the best ``FINALISTS`` again, together on one device and
    ``FINAL_SAMPLES_FACTOR`` times longer than their longest run so far, and declare the
    winner from those runs."""
    objective = search.settings.objective
    alive = sorted(alive, key=lambda c: _score(c, objective))
    if not alive:
        ran = [c for c in result.candidates if c.order]
        result.conclusion = (
            "no candidate ran correctly: no winner" if ran else "nothing was measured: no winner"
        )
        return
    top = alive[:FINALISTS]
    longest = max(_timing(c).count for c in top)
    with search.one_device() as runner:
        final = search.measure(
            top,
            longest * FINAL_SAMPLES_FACTOR,
            round_=top[0].round + 1,
            phase="final",
            runner=runner,
            budgeted=False,
        )
    final.sort(key=lambda c: _score(c, objective))
    for c in top:
        if c in final:
            c.status = "finalist"
    if not final:
        result.conclusion = "no finalist ran correctly again: no winner"
        return
    result.best = final[0]
    declare = _declare_energy_winner if objective == "energy" else declare_winner
    won, result.conclusion = declare(final[0], final[1] if len(final) > 1 else None)
    if won:
        final[0].status, result.winner = "winner", final[0]
    elif len(final) > 1:
        result.advice = _advice(final, result)


def _advice(final: list[Candidate], result: TuneResult) -> str:
    """What to do when no winner stands out."""
    spread = max(c.timing.iqr / c.median for c in final if c.timing and c.median)
    return (
        f"the fastest {len(final)} are within the measured noise of each other (spread "
        f"{spread:.1%} of the median): measure longer (--samples "
        f"{max(10, _timing(final[0]).count)}) or at a "
        f"larger size (--size, now {result.size}), where the differences grow; or take "
        "any of them"
    )


def _open_runner(target: Any) -> Runner:
    return target if isinstance(target, Runner) else as_runner(target)


def _prepare(
    runner: Runner, kernel: KernelSpec, size: Any, space: Any, dry_run: bool
) -> list[Candidate]:
    """Check the declarations, build and prune the space; raises ``InvalidArgument``
    before anything runs when it is empty."""
    _tunables.check_tunables(kernel, size)
    candidates = candidate_space(kernel, space)
    if not candidates:
        raise InvalidArgument(f"kernel {kernel.id}: the tuning space is empty")
    _prune(runner, kernel, candidates, size)
    if not dry_run and all(c.status == "pruned" for c in candidates):
        reasons = sorted({c.reason for c in candidates})
        raise InvalidArgument(
            f"kernel {kernel.id} at size {size}: every one of its "
            f"{len(candidates)} candidates is pruned, nothing to tune: "
            + "; ".join(reasons[:4])
            + ("; ..." if len(reasons) > 4 else "")
        )
    return candidates


def _energy_plan(info: Any, objective: str, energy_s: float) -> tuple[str, float]:
    """(why energy is not read here, or ""; the seconds each reading spans: 0 where the
    backend cannot read energy, which the energy objective cannot do without)."""
    if objective == "energy" and info.energy:
        raise UnsupportedFeature(
            f"the energy objective needs energy readings, which "
            f"{info.name} cannot make: {info.energy}"
        )
    return (info.energy if energy_s else ""), (energy_s if not info.energy else 0.0)


def _check_request(samples: int, objective: str, energy_s: float) -> None:
    if samples < 2:
        raise InvalidArgument(f"tuning needs samples >= 2 to measure noise, got {samples}")
    if objective not in ("time", "energy"):
        raise InvalidArgument(f"objective is 'time' or 'energy', got {objective!r}")
    if objective == "energy" and energy_s <= 0:
        raise InvalidArgument("the energy objective needs energy readings: give energy_s > 0")


def _ahead_threads(compile_ahead: Any) -> int:
    """The compile-ahead threads ``tune(compile_ahead=...)`` asks for (0: none)."""
    if isinstance(compile_ahead, bool):
        return default_threads() if compile_ahead else 0
    if isinstance(compile_ahead, int) and compile_ahead >= 0:
        return compile_ahead
    raise InvalidArgument(
        f"compile_ahead is True, False or a number of threads >= 0, got {compile_ahead!r}"
    )


def _open_cache(cache: Any, key: Any) -> TuningCache:
    """The tuning cache ``cache`` names: None the default file for ``key`` under the
    cache root, False none (nothing kept or reused), else that path."""
    path = None if cache is False else (TuningCache.default_path(key) if cache is None else cache)
    return TuningCache(path, key)


def tune(
    target: Any,
    kernel: KernelSpec,
    *,
    size: Any = None,
    space: Iterable[Schedule] | None = None,
    seed: int = 0,
    samples: int = 5,
    warmups: int = 1,
    dry_run: bool = False,
    tolerance: Any = None,
    reopen: Callable[[], Any] | None = None,
    guard: int = DEFAULT_GUARD,
    on_progress: Callable[[Candidate], None] | None = None,
    timeout_s: float | None = DEFAULT_TIMEOUT_S,
    strategy: str = "halving",
    budget: Any = None,
    search_seed: int = 0,
    cache: Any = None,
    objective: str = "time",
    energy_s: float = 0.0,
    on_planned: Callable[[int], None] | None = None,
    compile_ahead: bool | int = True,
) -> TuneResult:
    """Search ``kernel``'s candidates (``space``: schedules to try instead of its own
    knobs) for the fastest correct one on ``target`` (an open context, a runner, or a
    fleet's runner spread over several workers) at ``size`` (default: its largest test
    size), with ``strategy`` (``exhaustive``, ``random``, ``halving``, ``tpe``) within
    ``budget`` (candidates, or ``"90s"``). ``cache``: the tuning cache file (None: the
    default one under the cache root, False: none). ``objective``: ``time`` (median)
    or ``energy`` (joules per run; needs ``energy_s``, the seconds of repeated runs each
    energy reading spans). ``dry_run`` prunes and returns without running anything.
    ``reopen`` opens a fresh context after an in-process one is lost (default:
    ``forge.open_context(ctx.backend_name)``). ``on_planned(n)`` learns how many
    candidates the search will measure at most, ``on_progress(candidate)`` each one
    as it is first measured (or found in the cache). ``compile_ahead``: while a
    candidate is measured, the next ones' device-free preparation (the NVRTC compile of
    a CUDA candidate, into the disk cache its run then loads from) runs on threads of
    its own, one per core but one by default, or on as many threads as an int gives
    (``Runner.compile_ahead``: in this process, and for local worker processes, never
    for Ray actors on other hosts); False (or 0) turns it off. It never changes a
    verdict: a compile that fails ahead fails again, and is reported, in the run."""
    _check_request(samples, objective, energy_s)
    ahead_threads = _ahead_threads(compile_ahead)
    chosen = get_strategy(strategy)  # an unknown or uninstalled strategy says so now
    size = kernel.largest_size() if size is None else kernel.size(size)
    if int(size) < 1:  # nothing to run: every candidate's "time" would be noise alone
        raise InvalidArgument(f"cannot tune {kernel.id} at size {size}: it has no elements")
    runner = _open_runner(target)
    budget = Budget.parse(budget)
    candidates = _prepare(runner, kernel, size, space, dry_run)
    info = runner.info
    energy_note, energy_s = _energy_plan(info, objective, energy_s)
    result = TuneResult(
        kernel,
        info.name,
        size,
        candidates,
        dry_run=dry_run,
        strategy=chosen.name,
        budget=budget,
        objective=objective,
        adapter=info.adapter.name,
        workers=list(getattr(runner, "labels", [info.name])),
        energy_note=energy_note,
    )
    alive = [c for c in candidates if c.status == "candidate"]
    if dry_run:
        result.conclusion = f"{len(alive)} candidates would be measured"
        return result
    tuning_cache = _open_cache(cache, tuning_key(info, kernel, size, seed, warmups))
    result.cache_path = None if tuning_cache.path is None else str(tuning_cache.path)
    constraints = info.constraints if kernel.reference_reads_device else None
    expected = expected_outputs(make_case(kernel, size, seed), None, constraints)
    if on_planned is not None:
        on_planned(min(len(alive), budget.count or len(alive)))
    settings = _Settings(warmups, tolerance, guard, timeout_s, energy_s, objective)
    search = _Search(
        runner,
        expected,
        settings,
        tuning_cache,
        budget,
        size,
        on_progress,
        reopen or (lambda: forge.open_context(info.name)),
        ahead_threads,
    )
    return _run(search, chosen, alive, samples, search_seed, result)


def _run(
    search: _Search, chosen: Any, alive: list, samples: int, seed: int, result: TuneResult
) -> TuneResult:
    """Run strategy ``chosen`` over the candidates ``alive`` and fill ``result``."""
    try:
        survivors = chosen.search(search, alive, samples, seed)
        _finish(search, result, survivors)
    finally:
        result.contexts_opened = len(search.opened)
        result.measured, result.reused = search.new, search.reused
        search.close()
    for c in (c for c in result.candidates if c.status == "candidate" and c.order == 0):
        c.reason = c.reason or "not measured: the budget was spent"
    return result

"""``tune(ctx, kernel, ...)``: search the schedule space of a kernel on one context.

The space (the kernel's schedules and 1-D variants of them) is first pruned without
running anything: schedules the adapter's constraints refuse, sources the kernel
refuses to generate, dispatches over the limits, and schedules whose source is
identical to an earlier candidate's (the kernel ignores what differs). Survivors are
all measured (grid search), then successive halving keeps the faster half by median
and doubles the samples until two remain. Correctness is a hard gate in every round:
a wrong candidate is recorded as wrong and the search goes on; a device loss prunes
the candidate and the search continues on a fresh context. A winner is declared only
when its lead over the runner-up exceeds the measured noise (the larger
interquartile range of the two).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

import forge
from forge.errors import ForgeError, InvalidArgument
from forge.kernel import KernelSpec
from forge.schedule import Schedule

from ._evaluate import DEFAULT_GUARD, DEFAULT_TIMEOUT_S, evaluate_case
from ._expected import expected_outputs
from ._inputs import make_case
from ._results import Evaluation, Timing, format_duration

__all__ = ["tune", "TuneResult", "Candidate", "schedule_space", "declare_winner"]

WORKGROUP_SIZES = (32, 64, 128, 256, 512, 1024)
ITEMS_PER_INVOCATION = (1, 2, 4, 8)
VECTOR_WIDTHS = (1, 2, 4)


@dataclass
class Candidate:
    """One schedule and what became of it: ``status`` is ``candidate`` (not decided
    yet, or kept by a dry run), ``pruned`` (never run), ``wrong`` (failed the oracle),
    ``error`` (the backend raised), ``lost`` (the device was lost running it),
    ``timeout`` (it ran past ``timeout_s``), ``eliminated`` (slower half in ``round``),
    ``finalist``, or ``winner``."""

    schedule: Schedule
    status: str = "candidate"
    reason: str = ""
    timing: Timing | None = None
    round: int = 0
    evaluation: Evaluation | None = field(default=None, repr=False)

    @property
    def median(self) -> float:
        return self.timing.median if self.timing else math.inf

    def as_dict(self) -> dict:
        return {"schedule": str(self.schedule), "status": self.status, "reason": self.reason,
                "round": self.round, "timing": self.timing.as_dict() if self.timing else None}


@dataclass
class TuneResult:
    """The search: every candidate with its fate, the best measured one, and the
    winner (None when the lead is within noise, or nothing was run)."""

    kernel: KernelSpec
    backend: str
    size: int
    candidates: list[Candidate]
    dry_run: bool = False
    best: Candidate | None = None
    winner: Candidate | None = None
    conclusion: str = ""
    contexts_opened: int = 0

    def by_status(self, status: str) -> list[Candidate]:
        return [c for c in self.candidates if c.status == status]

    def report(self) -> str:
        lines = [f"tuning {self.kernel.id} on {self.backend} at size {self.size}: "
                 f"{len(self.candidates)} candidates, {len(self.by_status('pruned'))} pruned"
                 + (" (dry run: nothing was run)" if self.dry_run else ""),
                 self.conclusion]
        for c in self.candidates:
            timing = f"median {format_duration(c.median)}" if c.timing else ""
            lines.append(f"  {str(c.schedule):<28} {c.status:<10} {timing:<18} {c.reason}")
        return "\n".join(lines)

    def as_dict(self) -> dict:
        return {"kernel": self.kernel.id, "backend": self.backend, "size": self.size,
                "dry_run": self.dry_run, "conclusion": self.conclusion,
                "best": str(self.best.schedule) if self.best else None,
                "winner": str(self.winner.schedule) if self.winner else None,
                "contexts_opened": self.contexts_opened,
                "candidates": [c.as_dict() for c in self.candidates]}


def schedule_space(kernel: KernelSpec, workgroup_sizes: Sequence[int] = WORKGROUP_SIZES,
                   items: Sequence[int] = ITEMS_PER_INVOCATION,
                   vectors: Sequence[int] = VECTOR_WIDTHS) -> list[Schedule]:
    """The kernel's own schedules, then every 1-D variant of them over workgroup size,
    items per invocation and vector width (2-D and 3-D workgroups are kept as given:
    their shape is the kernel's tiling, not a free parameter)."""
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
                    variant = base.with_(workgroup_size=(wg, 1, 1), items_per_invocation=ipt,
                                         vector_width=vec)
                    if variant not in space:
                        space.append(variant)
    return space


def _prune(ctx, kernel: KernelSpec, candidates: list[Candidate], size: int) -> None:
    constraints = ctx.constraints
    missing = sorted(f for f in kernel.requires if not constraints.supports(f))
    seen: dict[str, tuple[Candidate, tuple]] = {}
    for c in candidates:
        try:
            if missing:
                raise forge.UnsupportedFeature(f"the adapter lacks {', '.join(missing)}")
            kernel.check_schedule(c.schedule, constraints, getattr(ctx, "target", None))
            dims = kernel.workgroups(c.schedule, size, constraints.max_workgroups_per_dimension[0])
            source = ctx.kernel_source(kernel, c.schedule, size)
        except ForgeError as exc:
            c.status, c.reason = "pruned", f"{type(exc).__name__}: {exc}"
            continue
        if source in seen:
            first, first_dims = seen[source]
            c.status = "pruned"
            c.reason = (f"duplicate of {first.schedule}" if dims == first_dims else
                        f"unused parameter: same source as {first.schedule}, another dispatch")
            continue
        seen[source] = (c, dims)


def declare_winner(best: Candidate, runner_up: Candidate | None) -> tuple[bool, str]:
    """Whether ``best`` wins: its median lead over ``runner_up`` must exceed the
    measured noise, the larger interquartile range of the two."""
    if runner_up is None:
        return False, f"only {best.schedule} ran correctly: nothing to beat, no winner declared"
    lead = runner_up.median - best.median
    noise = max(best.timing.iqr, runner_up.timing.iqr)
    text = (f"lead of {format_duration(lead)} over {runner_up.schedule} "
            f"(noise: interquartile range {format_duration(noise)})")
    if lead > noise:
        return True, f"winner {best.schedule}: {text}"
    return False, f"no winner: {best.schedule} is fastest by median but its {text} is within noise"


class _Search:
    """The measuring half of the tuner: one context (replaced when lost), one case."""

    def __init__(self, ctx, expected, reopen, warmups, tolerance, guard, on_progress,
                 timeout_s):
        self.ctx, self.expected, self.reopen = ctx, expected, reopen
        self.warmups, self.tolerance, self.guard = warmups, tolerance, guard
        self.timeout_s = timeout_s
        self.on_progress = on_progress
        self.opened: list[Any] = []

    def measure(self, alive: list[Candidate], samples: int, round_: int) -> list[Candidate]:
        survivors = []
        for c in alive:
            ev = evaluate_case(self.ctx, self.expected, c.schedule, warmups=self.warmups,
                               samples=samples, tolerance=self.tolerance, guard=self.guard,
                               timeout_s=self.timeout_s)
            c.evaluation, c.round = ev, round_
            if ev.passed:
                c.timing = ev.timing
                survivors.append(c)
            elif ev.lost:
                c.status = "timeout" if ev.verdict == "timeout" else "lost"
                c.reason = f"{ev.error}; continued on a fresh context"
                self._replace_context()
            else:
                c.status = "wrong" if ev.verdict == "mismatch" else "error"
                c.reason = ev.problems[0] if ev.problems else ev.verdict
            if self.on_progress is not None:
                self.on_progress(c)
        return survivors

    def _replace_context(self) -> None:
        self.ctx = self.reopen()
        self.opened.append(self.ctx)

    def close(self) -> None:
        for ctx in self.opened:
            ctx.close()


def tune(ctx, kernel: KernelSpec, *, size: int | None = None,
         space: Iterable[Schedule] | None = None, seed: int = 0, samples: int = 5,
         warmups: int = 1, dry_run: bool = False, tolerance: Any = None,
         reopen: Callable[[], Any] | None = None, guard: int = DEFAULT_GUARD,
         on_progress: Callable[[Candidate], None] | None = None,
         timeout_s: float | None = DEFAULT_TIMEOUT_S) -> TuneResult:
    """Search ``space`` (default ``schedule_space(kernel)``) for the fastest correct
    schedule of ``kernel`` on ``ctx`` at ``size`` (default: its largest test size).
    ``dry_run`` prunes and returns without running anything. ``reopen`` opens a fresh
    context after a device loss (default: ``forge.open_context(ctx.backend_name)``);
    contexts the tuner opened are closed before it returns, ``ctx`` is left open."""
    if samples < 2:
        raise InvalidArgument(f"tuning needs samples >= 2 to measure noise, got {samples}")
    size = kernel.largest_size() if size is None else kernel.size(size)
    candidates = [Candidate(s) for s in (schedule_space(kernel) if space is None else space)]
    result = TuneResult(kernel, ctx.backend_name, size, candidates, dry_run=dry_run)
    _prune(ctx, kernel, candidates, size)
    alive = [c for c in candidates if c.status == "candidate"]
    if dry_run:
        result.conclusion = f"{len(alive)} candidates would be measured"
        return result
    expected = expected_outputs(make_case(kernel, size, seed))
    search = _Search(ctx, expected, reopen or (lambda: forge.open_context(ctx.backend_name)),
                     warmups, tolerance, guard, on_progress, timeout_s)
    try:
        _halve(search, alive, samples, result)
    finally:
        result.contexts_opened = len(search.opened)
        search.close()
    return result


def _halve(search: _Search, alive: list[Candidate], samples: int, result: TuneResult) -> None:
    alive = search.measure(alive, samples, 0)
    round_ = 0
    while len(alive) > 2:
        alive.sort(key=lambda c: c.median)
        keep = math.ceil(len(alive) / 2)
        for c in alive[keep:]:
            c.status, c.reason = "eliminated", f"slower half in round {round_}"
        round_, samples = round_ + 1, samples * 2
        alive = search.measure(alive[:keep], samples, round_)
    if len(alive) == 2 and round_ == 0:  # the grid was the only round: look again, longer
        alive = search.measure(alive, samples * 2, 1)
    alive.sort(key=lambda c: c.median)
    if not alive:
        result.conclusion = "no candidate ran correctly: no winner"
        return
    for c in alive:
        c.status = "finalist"
    result.best = alive[0]
    won, result.conclusion = declare_winner(alive[0], alive[1] if len(alive) > 1 else None)
    if won:
        alive[0].status = "winner"
        result.winner = alive[0]

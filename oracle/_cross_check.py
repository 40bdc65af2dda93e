"""``cross_check(kernel, backends=...)``: the same vectors on every available backend,
each judged against the reference and compared pairwise, naming the backend that
diverges.

A pair is judged under the float semantics either side declares: elements the
reference expects non-finite are masked when either side's non-finite results are
indeterminate, and where a side may flush subnormals, an element it computed as the
flushed reference does is compared as the reference's own value, so the two agree
when they differ by exactly the documented flush and by nothing else."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Sequence

import numpy as np

import forge
from forge.errors import ForgeError, InvalidArgument
from forge.kernel import KernelSpec
from forge.schedule import Schedule

from ._compare import Comparison, compare, element_matches
from ._evaluate import (DEFAULT_GUARD, DEFAULT_TIMEOUT_S, REFERENCE_BACKEND, Evaluation, Expected, evaluate_case,
                        expected_outputs)
from ._inputs import buffer_label, make_case
from ._tolerance import resolve_tolerance

__all__ = ["cross_check", "CrossCheck", "PairCheck"]

_FAILING = ("mismatch", "error", "timeout")


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
        return (f"{self.first} vs {self.second}: {'agree' if self.agree else 'DISAGREE'} "
                f"({', '.join(notes)})")


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

    @property
    def diverging(self) -> list[str]:
        """Backends that did not reproduce the reference: wrong output, an error, or a
        kernel that ran past the timeout."""
        return [n for n, e in self.evaluations.items() if e.verdict in _FAILING]

    @property
    def passed(self) -> bool:
        """No backend diverged (unsupported ones are reported, not failed)."""
        return not self.diverging

    def verdict(self) -> str:
        """One sentence naming who diverges, and whether the reference itself is suspect."""
        if not self.diverging:
            ran = [n for n, e in self.evaluations.items() if e.verdict == "pass"]
            return f"all {len(ran)} backends that ran agree with the reference: {', '.join(ran)}"
        wrong = self.diverging
        others = [n for n, e in self.evaluations.items()
                  if e.verdict == "mismatch" and n != REFERENCE_BACKEND]
        if len(others) >= 2 and self._agree_among(others):
            return (f"{', '.join(others)} agree with each other but not with the reference: "
                    "suspect the reference meaning (or a shared emitter bug)")
        return f"diverging from the reference: {', '.join(wrong)}"

    def _agree_among(self, names: Sequence[str]) -> bool:
        wanted = set(itertools.combinations(sorted(names), 2))
        found = {tuple(sorted((p.first, p.second))): p.agree for p in self.pairs}
        return all(found.get(pair, False) for pair in wanted)

    def report(self) -> str:
        lines = [f"cross-check of {self.kernel.id}, size {self.size}, seed {self.seed}, "
                 f"inputs sha256 {self.input_hash[:16]}", self.verdict()]
        for name, ev in self.evaluations.items():
            ulp = "-" if ev.max_ulp is None else ev.max_ulp
            lines.append(f"  {name:<12} {ev.verdict:<11} max ulp {ulp}"
                         + (f"  {ev.problems[0]}" if ev.problems else ""))
        for name, why in self.skipped.items():
            lines.append(f"  {name:<12} skipped     {why}")
        lines += [f"  {pair.describe()}" for pair in self.pairs]
        return "\n".join(lines)

    def as_dict(self) -> dict:
        return {"kernel": self.kernel.id, "size": self.size, "seed": self.seed,
                "input_hash": self.input_hash, "passed": self.passed,
                "diverging": self.diverging, "verdict": self.verdict(),
                "evaluations": {n: e.as_dict() for n, e in self.evaluations.items()},
                "skipped": dict(self.skipped),
                "pairs": [{"first": p.first, "second": p.second, "agree": p.agree,
                           "max_ulp": p.max_ulp, "masked": p.masked, "flushed": p.flushed}
                          for p in self.pairs]}


def _backend_list(backends: Iterable[str] | None) -> tuple[list[str], dict[str, str]]:
    status = forge.available_backends()
    if backends is None:
        names = list(status)
    else:
        names = list(backends)
        unknown = [n for n in names if n not in status]
        if unknown:
            raise InvalidArgument(f"unknown backends {unknown}; installed: {', '.join(status)}")
    return ([n for n in names if status[n][0]],
            {n: status[n][1] for n in names if not status[n][0]})


def _as_unflushed(ev: Evaluation, expected: Expected, label: str, tol) -> tuple[np.ndarray, int]:
    """``ev``'s output ``label``, with each element that matches only the flushed
    expectation (on a backend that may flush) replaced by the reference's value, and
    how many were replaced."""
    got = ev.got[label]
    if not ev.semantics.subnormals_may_flush:
        return got, 0
    want = expected.outputs[label]
    swap = (element_matches(got, expected.flushed()[label], tol)
            & ~element_matches(got, want, tol)).reshape(got.shape)
    return np.where(swap, want, got), int(swap.sum())


def _pair(a: Evaluation, b: Evaluation, expected: Expected, label: str, tol) -> Comparison:
    semantics = a.semantics.either(b.semantics)
    got, flushed_a = _as_unflushed(a, expected, label, tol)
    want, flushed_b = _as_unflushed(b, expected, label, tol)
    comparison = compare(got, want, tol, indeterminate=semantics.indeterminate(expected, label))
    return replace(comparison, flushed=flushed_a + flushed_b)


def _pairs(kernel: KernelSpec, evaluations: dict[str, Evaluation], tolerance,
           expected: Expected) -> list[PairCheck]:
    labels = {buffer_label(spec): spec for spec in kernel.outputs}
    ran = [n for n, e in evaluations.items() if set(e.got) == set(labels)]
    pairs = []
    for a, b in itertools.combinations(ran, 2):
        comparisons = {}
        for label, spec in labels.items():
            tol = resolve_tolerance(spec.dtype, kernel.tolerance, a, tolerance).loosest(
                resolve_tolerance(spec.dtype, kernel.tolerance, b, tolerance))
            comparisons[label] = _pair(evaluations[a], evaluations[b], expected, label, tol)
        pairs.append(PairCheck(a, b, comparisons))
    return pairs


def cross_check(kernel: KernelSpec, backends: Iterable[str] | None = None,
                size: int | None = None, seed: int = 0, *, schedule: Schedule | None = None,
                warmups: int = 1, samples: int = 5, tolerance: Any = None,
                guard: int = DEFAULT_GUARD, on_result: Callable[[str, Evaluation], None] | None = None,
                open_options: dict[str, dict] | None = None,
                timeout_s: float | None = DEFAULT_TIMEOUT_S) -> CrossCheck:
    """Evaluate ``kernel`` on every available backend of ``backends`` (default: all
    known) with one set of inputs (``size`` defaults to the kernel's largest test size)
    and one reference run, then compare the backends
    pairwise. Unavailable backends are listed in ``skipped`` with their reason.
    ``on_result(name, evaluation)`` is called as each backend finishes (progress)."""
    size = max(kernel.test_sizes) if size is None else size
    names, skipped = _backend_list(backends)
    case = make_case(kernel, size, seed)
    expected = expected_outputs(case)
    result = CrossCheck(kernel, case.size, case.seed, case.input_hash, skipped=skipped)
    for name in names:
        try:
            ctx = forge.open_context(name, **(open_options or {}).get(name, {}))
        except ForgeError as exc:
            result.skipped[name] = f"could not open: {type(exc).__name__}: {exc}"
            continue
        try:
            ev = evaluate_case(ctx, expected, schedule, warmups=warmups, samples=samples,
                               tolerance=tolerance, guard=guard, timeout_s=timeout_s)
        finally:
            ctx.close()
        result.evaluations[name] = ev
        if on_result is not None:
            on_result(name, ev)
    result.pairs = _pairs(kernel, result.evaluations, tolerance, expected)
    return result

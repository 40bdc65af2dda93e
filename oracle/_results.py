"""What the oracle reports: the ``Verdict`` of an evaluation, its timing, what it found
in each output (``OutputCheck``, with every element accounted for), its findings as a
list of named checks, and the ``Evaluation`` that holds them all."""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from forge.kernel import KernelSpec
from forge.schedule import Schedule
from forge.tunables import describe as describe_candidate
from forge.types import AdapterIdentity, ValidationLevel

from ._compare import Comparison

__all__ = [
    "Verdict",
    "Timing",
    "OutputCheck",
    "Finding",
    "Evaluation",
    "format_duration",
    "FloatSemantics",
]


class Verdict(str, enum.Enum):
    """The outcome of one evaluation. Every verdict but ``pass`` and ``unsupported``
    fails (``failing``); ``severity`` orders them, worst first."""

    CRASHED = "crashed"  # the worker process died (in native code)
    DEVICE_LOST = "device-lost"  # the device or its context was lost
    TIMEOUT = "timeout"  # a wait for the device ran past timeout_s
    SANITIZER = "sanitizer"  # compute-sanitizer found errors
    REFERENCE_ERROR = "reference-error"  # the numpy reference is broken
    ERROR = "error"  # the backend raised
    MISMATCH = "mismatch"  # wrong, unwritten or out-of-bounds elements
    INCONCLUSIVE = "inconclusive"  # not every element could be judged
    NOT_RUN = "not-run"  # the context was lost before it could run
    UNSUPPORTED = "unsupported"  # cannot run there (no source, a feature, a limit)
    PASS = "pass"

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    @property
    def failing(self) -> bool:
        return self not in (Verdict.PASS, Verdict.UNSUPPORTED)

    @property
    def severity(self) -> int:
        """0 for the worst verdict; larger is better."""
        return list(Verdict).index(self)

    @classmethod
    def worst(cls, verdicts: list[Verdict]) -> Verdict:
        return min(verdicts, key=lambda v: cls(v).severity) if verdicts else cls.PASS


def format_duration(ns: float | None) -> str:
    """Nanoseconds as a short human figure ("12.3 us"); "-" when not measured."""
    if ns is None or not np.isfinite(ns):
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.0f} ns"


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
        return (
            f"median {format_duration(self.median)}, min {format_duration(self.min)}, "
            f"p95 {format_duration(self.p95)}, {self.count} samples, {self.source}"
        )

    def as_dict(self) -> dict:
        return {
            "min_ns": self.min,
            "median_ns": self.median,
            "p95_ns": self.p95,
            "count": self.count,
            "source": self.source,
            "samples_ns": list(self.samples_ns),
        }


def cuda_fast_math(kernel: KernelSpec) -> bool:
    """Whether ``kernel``'s CUDA compile options hold ``--use_fast_math`` (either
    spelling): fast division, intrinsics for ``expf`` and kin, subnormals flushed."""
    return "use_fast_math" in " ".join(kernel.compile_options("cuda"))


@dataclass(frozen=True)
class FloatSemantics:
    """The departures from IEEE-754 a context declares in its ``AdapterConstraints``
    (measured on its adapter by a probe, ``backends.probe_float_semantics``), made
    stricter or looser by the kernel's own compile options (CUDA's ``--use_fast_math``
    and ``-ftz=true`` flush subnormals). The oracle judges them by masking, never by
    wider tolerances."""

    subnormals_may_flush: bool = False
    nonfinite_indeterminate: bool = False

    @classmethod
    def of(
        cls, constraints: Any, kernel: KernelSpec | None = None, target: str | None = None
    ) -> FloatSemantics:
        flush = bool(getattr(constraints, "subnormals_may_flush", False))
        nonfinite = bool(getattr(constraints, "nonfinite_indeterminate", False))
        if kernel is not None and target == "cuda":
            options = " ".join(kernel.compile_options("cuda"))
            if cuda_fast_math(kernel):
                flush, nonfinite = True, True
            if "-ftz=true" in options or "--ftz=true" in options:
                flush = True
        return cls(flush, nonfinite)

    def either(self, other: FloatSemantics) -> FloatSemantics:
        """What judging two backends against each other must allow."""
        return FloatSemantics(
            self.subnormals_may_flush or other.subnormals_may_flush,
            self.nonfinite_indeterminate or other.nonfinite_indeterminate,
        )

    @property
    def strict(self) -> bool:
        return not (self.subnormals_may_flush or self.nonfinite_indeterminate)

    def as_dict(self) -> dict:
        return {
            "subnormals_may_flush": self.subnormals_may_flush,
            "nonfinite_indeterminate": self.nonfinite_indeterminate,
        }


@dataclass(frozen=True)
class Finding:
    """One thing a named check found wrong (``check``: "unwritten", "past-end",
    "before-start", "value", "input-modified", "coverage", "later", "sanitizer",
    "reference", "backend", "loop")."""

    check: str
    message: str
    buffer: str = ""

    def as_dict(self) -> dict:
        return {"check": self.check, "message": self.message, "buffer": self.buffer}


@dataclass(frozen=True)
class OutputCheck:
    """Everything the oracle found about one output buffer, every element accounted
    for: ``judged`` (compared with the reference; ``flushed`` of them accepted by a
    declared rule, a subnormal flushed to zero), ``masked`` (not judged in this input
    set: the adapter's non-finite results are indeterminate) and ``unwritten`` (still
    the poison). ``covered``: elements judged in at least one input set so far."""

    label: str
    comparison: Comparison
    count: int = 0
    unwritten: int = 0
    first_unwritten: int = -1
    past_end: int = 0
    first_past_end: int = -1
    before_start: int = 0
    padding: int = 0
    later: Comparison | None = None
    covered: int = -1
    padding_written: int = 0  # of the binding's padding (inside the shader's last vector)
    input_set: str = ""  # a further input set this output failed in ("" the first one)

    @property
    def masked(self) -> int:
        return self.comparison.masked

    @property
    def flushed(self) -> int:
        return self.comparison.flushed

    @property
    def judged(self) -> int:
        return self.count - self.masked

    @property
    def unjudged(self) -> int:
        """Elements never judged in any input set."""
        covered = self.judged if self.covered < 0 else self.covered
        return max(0, self.count - covered)

    @property
    def passed(self) -> bool:
        return (
            self.comparison.passed
            and not self.unwritten
            and not self.past_end
            and not self.before_start
            and (self.later is None or self.later.passed)
        )

    def findings(self) -> list[Finding]:
        found = self._findings()
        if not self.input_set:
            return found
        where = f"in the {self.input_set} input set: "
        return [dataclasses.replace(f, message=where + f.message) for f in found]

    def _findings(self) -> list[Finding]:
        found, count = [], self.count
        if self.unwritten:
            found.append(
                Finding(
                    "unwritten",
                    f"{self.label}: {self.unwritten} of {count} "
                    f"elements never written (still poisoned; first at element "
                    f"{self.first_unwritten})",
                    self.label,
                )
            )
        if self.past_end:
            where = count + self.first_past_end
            found.append(
                Finding(
                    "past-end",
                    f"{self.label}: {self.past_end} elements written past "
                    f"the end (first at element {where}, the buffer holds {count}"
                    + (
                        f" and its binding {self.padding} padding element(s) after "
                        "them, rounded up as the shader declares it"
                        if self.padding
                        else ""
                    )
                    + ")",
                    self.label,
                )
            )
        if self.before_start:
            found.append(
                Finding(
                    "before-start",
                    f"{self.label}: {self.before_start} elements "
                    "written before its start (a negative index)",
                    self.label,
                )
            )
        c = self.comparison
        if not c.passed:
            found.append(
                Finding(
                    "value",
                    f"{self.label}: {c.mismatches} of {count} elements "
                    f"differ from the reference ({c.nonfinite_mismatches} in "
                    f"NaN/Inf/zero-sign pattern; max ulp {c.max_ulp})"
                    if c.reason == ""
                    else f"{self.label}: {c.reason} differs from the reference",
                    self.label,
                )
            )
        if c.passed and self.later is not None and not self.later.passed:
            found.append(
                Finding(
                    "later",
                    f"{self.label}: after the timed runs, "
                    f"{self.later.mismatches} elements differ from the reference "
                    "(a race, leftover state, or a read of memory the kernel was not "
                    "given or did not write: the run after finds other values past the "
                    "inputs' ends and in shared memory)",
                    self.label,
                )
            )
        return found

    def accounting(self) -> str:
        where = f" in the {self.input_set} input set" if self.input_set else ""
        text = (
            f"{self.label}{where}: {self.count} elements, {self.judged} judged"
            + (f" ({self.flushed} accepted as a flushed subnormal)" if self.flushed else "")
            + (
                f" ({self.comparison.precise} accepted as closer to the float64 reference)"
                if self.comparison.precise
                else ""
            )
            + (
                f" ({self.comparison.saturated} accepted as a saturated float to integer "
                "conversion)"
                if self.comparison.saturated
                else ""
            )
            + (
                f" ({self.comparison.single} accepted as the reference computed in float32"
                " or with the builtins' allowed error)"
                if self.comparison.single
                else ""
            )
            + (
                f" ({self.comparison.bounded} accepted within {self.comparison.bounded_by})"
                if self.comparison.bounded
                else ""
            )
            + (
                f" ({self.comparison.undefined} accepted where numpy's result is not the"
                " language's: WGSL's atan2(0, 0) and pow of a negative base (any value), an"
                " integer division by zero (CUDA: any value; WGSL: the dividend, 0 for a"
                " remainder))"
                if self.comparison.undefined
                else ""
            )
            + (
                f" ({self.comparison.unstable} accepted as ill-conditioned integers)"
                if self.comparison.unstable
                else ""
            )
            + (
                f" ({self.comparison.near} accepted as an index whose value float32 cannot"
                " tell from the chosen one's)"
                if self.comparison.near
                else ""
            )
            + f", {self.masked} masked, {self.unwritten} unwritten"
        )
        if self.covered >= 0 and self.unjudged:
            text += f"; {self.unjudged} judged in no input set"
        if self.padding_written:
            text += (
                f"; {self.padding_written} of the binding's {self.padding} padding "
                "element(s) written (the rest of the last vector the shader declares)"
            )
        return text

    def as_dict(self) -> dict:
        return {
            "comparison": self.comparison.as_dict(),
            "count": self.count,
            "judged": self.judged,
            "flushed": self.flushed,
            "masked": self.masked,
            "unwritten": self.unwritten,
            "past_end": self.past_end,
            "before_start": self.before_start,
            "padding": self.padding,
            "padding_written": self.padding_written,
            "unjudged": self.unjudged,
            "later": self.later.as_dict() if self.later else None,
            "input_set": self.input_set or None,
        }


@dataclass
class Evaluation:
    """The verdict on one kernel, on one backend, at one size and seed: the findings
    behind it, what each output held, the timing, and how to reproduce it."""

    kernel: KernelSpec
    backend: str
    adapter: AdapterIdentity | None
    schedule: Schedule
    size: Any
    seed: int
    input_hash: str
    reference: str
    verdict: Verdict = Verdict.PASS
    level: ValidationLevel = ValidationLevel.NONE
    outputs: dict[str, OutputCheck] = field(default_factory=dict)
    inputs_modified: dict[str, int] = field(default_factory=dict)
    error: str = ""
    error_type: str = ""
    timing: Timing | None = None
    got: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    # the further input set whose failure made the verdict ("": the first one); ``got``
    # then holds that set's outputs, and a saved failure its inputs
    failed_input_set: str = ""
    # (max ulp, max abs) of each further input set judged, so that the figures cover
    # every set (the first may be all NaN where a weight holds one)
    set_figures: list[tuple[int, float]] = field(default_factory=list, repr=False)
    counts: dict[str, int] = field(default_factory=dict, repr=False)
    semantics: FloatSemantics = field(default_factory=FloatSemantics)
    lost: bool = False  # the context was lost (device loss, timeout): open a new one
    input_sets: list[str] = field(default_factory=list)
    extra: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    inputs_at_mismatch: dict[str, dict] = field(default_factory=dict, repr=False)
    repro: str = ""
    saved: str = ""
    isolated: bool = False
    energy_j: tuple[float, ...] = ()  # joules per run, per measuring window (energy_s)
    energy_note: str = ""  # why no energy was read, when asked for

    @property
    def passed(self) -> bool:
        return self.verdict == Verdict.PASS

    @property
    def schedule_text(self) -> str:
        """The schedule it ran, with the kernel's parameter values when it has any."""
        return describe_candidate(self.schedule, self.kernel.tunable_values())

    @property
    def failing(self) -> bool:
        return Verdict(self.verdict).failing

    @property
    def max_ulp(self) -> int | None:
        """The largest ULP distance over every output and input set judged (None when
        nothing was compared)."""
        values = [o.comparison.max_ulp for o in self.outputs.values()]
        values += [ulp for ulp, _ in self.set_figures]
        return max(values) if values else None

    @property
    def max_abs(self) -> float | None:
        values = [o.comparison.max_abs for o in self.outputs.values()]
        values += [abs_ for _, abs_ in self.set_figures]
        return max(values) if values else None

    @property
    def findings(self) -> list[Finding]:
        """Every named check that found something, in the order they ran."""
        found = list(self.extra)
        if self.error:
            found.insert(
                0,
                Finding(
                    "backend" if self.verdict != Verdict.REFERENCE_ERROR else "reference",
                    f"{self.verdict}: {self.error}",
                ),
            )
        for check in self.outputs.values():
            found += check.findings()
        hint = (
            " (on the reference backend the kernel is its numpy function: one that changes "
            "its input in place, a += b, does; write a + b)"
            if self.backend == "reference"
            else ""
        )
        found += [
            Finding(
                "input-modified",
                f"{label}: input modified by the kernel ({n} elements changed){hint}",
                label,
            )
            for label, n in self.inputs_modified.items()
        ]
        return found

    @property
    def problems(self) -> list[str]:
        """One line per thing found wrong."""
        return [f.message for f in self.findings]

    def summary(self) -> str:
        return (
            f"{self.kernel.id} on {self.backend}"
            f"{f' ({self.adapter.name})' if self.adapter else ''}, "
            f"schedule {self.schedule_text}, "
            f"size {self.size}, seed {self.seed}, inputs sha256 {self.input_hash[:16]}"
        )

    def report(self) -> str:
        """A readable account of the verdict and the evidence for it."""
        lines = [
            self.summary(),
            f"verdict: {str(self.verdict).upper()}   level reached: {self.level.name}   "
            f"reference: {self.reference}",
        ]
        lines += [f"  ! {p}" for p in self.problems]
        lines += [f"  note: {n}" for n in self.notes]
        if self.input_sets:
            lines.append(f"  input sets: {'; '.join(self.input_sets)}")
        for label, check in self.outputs.items():
            lines.append("  " + check.accounting())
            lines.append("  " + check.comparison.report(label).replace("\n", "\n  "))
            if check.comparison.passed and check.later is not None and not check.later.passed:
                lines.append(
                    "  after the timed runs: " + check.later.report(label).replace("\n", "\n  ")
                )
            shown = self.inputs_at_mismatch.get(label)
            if shown:
                lines.append("  inputs at the first mismatches:")
                lines += [f"    [{index}] {values}" for index, values in shown.items()]
        if self.timing is not None:
            lines.append(f"  timing: {self.timing.describe()}")
        if self.energy_j:
            lines.append(
                f"  energy: {sorted(self.energy_j)[len(self.energy_j) // 2]:.4g} J per "
                f"run (windows: {', '.join(f'{e:.4g}' for e in self.energy_j)})"
            )
        elif self.energy_note:
            lines.append(f"  energy: not read: {self.energy_note}")
        if self.saved:
            lines.append(f"  saved inputs, expected and actual outputs: {self.saved}")
        if self.repro and self.failing:
            lines.append(f"  reproduce: {self.repro}")
        return "\n".join(lines)

    def raise_for_failure(self) -> Evaluation:
        """Raise ``forge.OracleMismatch`` carrying the report unless the kernel passed."""
        from forge.errors import OracleMismatch

        if not self.passed:
            raise OracleMismatch(self.report(), report=self)
        return self

    def as_dict(self) -> dict:
        return {
            "kernel": self.kernel.id,
            "semantic_hash": self.kernel.semantic_hash,
            "backend": self.backend,
            "adapter": self.adapter.as_dict() if self.adapter else None,
            "schedule": str(self.schedule),
            "tunables": self.kernel.tunable_values(),
            "size": str(self.size),
            "size_dims": getattr(self.size, "dims", {"n": int(self.size)}),
            "seed": self.seed,
            "input_hash": self.input_hash,
            "reference": self.reference,
            "verdict": str(self.verdict),
            "passed": self.passed,
            "level": self.level.name,
            "error": self.error,
            "error_type": self.error_type,
            "problems": self.problems,
            "findings": [f.as_dict() for f in self.findings],
            "max_ulp": self.max_ulp,
            "max_abs": self.max_abs,
            "outputs": {k: v.as_dict() for k, v in self.outputs.items()},
            "inputs_modified": dict(self.inputs_modified),
            "float_semantics": self.semantics.as_dict(),
            "input_sets": list(self.input_sets),
            "notes": list(self.notes),
            "repro": self.repro,
            "saved": self.saved,
            "isolated": self.isolated,
            "energy_j_per_run": list(self.energy_j),
            "energy_note": self.energy_note,
            "timing": self.timing.as_dict() if self.timing else None,
            **self.kernel.declared_work(self.size),
            "report": self.report(),
        }

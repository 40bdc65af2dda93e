"""What ``kforge report`` reads: the JSON that ``kforge check``, ``certify``, ``tune``,
``profile-hardware --measure`` and the bench (``python -m bench --json``) write, each
checked for its format and shape and turned into plain records for the figures.

Every problem with a file is a ``ResultsFileError`` naming the file and what is wrong
with it (another format or version, truncated JSON, a field of the wrong kind, an empty
run), raised before anything is drawn or written."""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from typing import Any

from forge.errors import ResultsFileError

from ._baseline import load_results

__all__ = [
    "FORMATS",
    "EvalRecord",
    "CertRecord",
    "TuneRecord",
    "Ceilings",
    "Run",
    "ReportData",
    "load_runs",
    "run_from_data",
    "adapter_name",
    "candidate_key",
    "candidate_median",
]

#: Every format ``kforge report`` reads, and the command that writes it.
FORMATS = {
    "kforge-check/1": "kforge check --json (or --results PATH)",
    "kforge-certify/1": "kforge certify --json",
    "kforge-tune/1": "kforge tune --json",
    "kforge-profile/1": "kforge profile-hardware --measure --json (or --results PATH)",
    "kforge-bench/1": "python -m bench --json PATH",
}


def adapter_name(adapter: Any) -> str:
    """The adapter's name from an ``AdapterIdentity.as_dict()`` (or a bare name)."""
    if isinstance(adapter, dict):
        return str(adapter.get("name") or "unknown adapter")
    return str(adapter or "unknown adapter")


def _slug(*parts: Any) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", "-".join(str(p) for p in parts)).strip("-").lower()


@dataclass(frozen=True)
class EvalRecord:
    """One evaluation of a kernel on a backend at a size and seed, as saved."""

    run: str
    kernel: str
    backend: str
    adapter: str
    size: str
    elements: int
    seed: int
    schedule: str
    verdict: str
    timing: dict | None
    outputs: dict
    bytes_moved: int | None
    flops: int | None
    report: str

    @property
    def anchor(self) -> str:
        """The id of the report text of its kernel, backend and adapter in the page."""
        return "report-" + _slug(self.run, self.kernel, self.backend, self.adapter)

    @property
    def median_ns(self) -> float | None:
        value = (self.timing or {}).get("median_ns")
        return float(value) if isinstance(value, (int, float)) and value > 0 else None


@dataclass(frozen=True)
class CertRecord:
    """One row of ``kforge certify``: a kernel on a backend, certified or not, and why."""

    run: str
    kernel: str
    backend: str
    adapter: str
    result: str
    detail: str
    report: str

    @property
    def anchor(self) -> str:
        return "report-" + _slug(self.run, "certify", self.kernel, self.backend, self.adapter)


@dataclass
class TuneRecord:
    """A tune run: the kernel, where, and every candidate in the order measured."""

    run: str
    kernel: str
    backend: str
    adapter: str
    size: str
    strategy: str
    winner: str | None
    best: str | None
    conclusion: str
    candidates: list[dict]
    history: list[dict]
    bytes_moved: int | None = None
    flops: int | None = None

    def chosen(self) -> dict | None:
        """The winner's candidate, else the fastest's (None when none ran correctly)."""
        key = self.winner or self.best
        return next((c for c in self.candidates if candidate_key(c) == key), None)


@dataclass
class Ceilings:
    """An adapter's measured ceilings (``kforge profile-hardware --measure``) by probe."""

    run: str
    backend: str
    adapter: str
    probes: dict[str, dict]

    def value(self, name: str) -> float | None:
        found = self.probes.get(name) or {}
        value = found.get("value")
        return float(value) if isinstance(value, (int, float)) and value > 0 else None


@dataclass
class Run:
    """One input file: its label (for captions), kind and records."""

    label: str
    path: str
    kind: str
    evaluations: list[EvalRecord] = field(default_factory=list)
    certified: list[CertRecord] = field(default_factory=list)
    tune: TuneRecord | None = None
    ceilings: list[Ceilings] = field(default_factory=list)
    bench_rows: list[dict] = field(default_factory=list)
    bench_meta: dict = field(default_factory=dict)


@dataclass
class ReportData:
    """Every run of a report, with the records the figures draw gathered across runs."""

    runs: list[Run]

    @property
    def evaluations(self) -> list[EvalRecord]:
        return [ev for run in self.runs for ev in run.evaluations]

    @property
    def certified(self) -> list[CertRecord]:
        return [c for run in self.runs for c in run.certified]

    @property
    def tunes(self) -> list[TuneRecord]:
        return [run.tune for run in self.runs if run.tune is not None]

    @property
    def ceilings(self) -> list[Ceilings]:
        return [c for run in self.runs for c in run.ceilings]

    @property
    def bench_runs(self) -> list[Run]:
        return [run for run in self.runs if run.bench_rows]


# -- checking fields -----------------------------------------------------------------------
class _Reader:
    """Reads fields of one file, raising ``ResultsFileError`` that names the file and the
    place in it when a field is missing or of the wrong kind."""

    def __init__(self, path: str) -> None:
        self.path = path

    def fail(self, what: str) -> ResultsFileError:
        return ResultsFileError(f"{self.path}: {what}")

    def get(self, obj: Any, key: str, kind: type | tuple, where: str, default: Any = ...) -> Any:
        if not isinstance(obj, dict) or key not in obj:
            if default is not ...:
                return default
            raise self.fail(
                f"{where} has no field {key!r} (a file from another version, or cut short?)"
            )
        value = obj[key]
        if value is None and default is not ...:
            return default
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            names = " or ".join(k.__name__ for k in kinds)
            raise self.fail(f"{where}.{key} should be {names}, found {type(value).__name__}")
        return value


def _number(value: Any) -> int | None:
    """A declared count, or None for anything that is not a finite number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return int(value)


# -- per format ----------------------------------------------------------------------------
def _evaluation(r: _Reader, run: str, kernel: str, backend: str, ev: Any, where: str) -> EvalRecord:
    dims = r.get(ev, "size_dims", dict, where, {})
    elements = 1
    for value in dims.values():
        elements *= int(value) if isinstance(value, (int, float)) else 1
    timing = r.get(ev, "timing", dict, where, None)
    if timing is not None:
        samples = r.get(timing, "samples_ns", list, f"{where}.timing")
        if not all(isinstance(s, (int, float)) and not isinstance(s, bool) for s in samples):
            raise r.fail(f"{where}.timing.samples_ns should hold numbers of nanoseconds")
        r.get(timing, "source", str, f"{where}.timing")
    return EvalRecord(
        run=run,
        kernel=str(r.get(ev, "kernel", str, where, kernel)),
        backend=backend,
        adapter=adapter_name(r.get(ev, "adapter", (dict, str), where, None)),
        size=str(r.get(ev, "size", (str, int), where)),
        elements=elements,
        seed=int(r.get(ev, "seed", int, where, 0)),
        schedule=str(r.get(ev, "schedule", str, where, "")),
        verdict=r.get(ev, "verdict", str, where),
        timing=timing,
        outputs=r.get(ev, "outputs", dict, where, {}),
        bytes_moved=_number(ev.get("bytes_moved")),
        flops=_number(ev.get("flops")),
        report=str(r.get(ev, "report", str, where, "") or _fallback_report(ev)),
    )


def _fallback_report(ev: dict) -> str:
    """The report text of a result saved before evaluations carried it."""
    lines = [
        f"{ev.get('kernel')} on {ev.get('backend')}, schedule {ev.get('schedule')}, "
        f"size {ev.get('size')}, seed {ev.get('seed')}",
        f"verdict: {str(ev.get('verdict')).upper()}",
    ]
    return "\n".join(lines + [f"  ! {p}" for p in ev.get("problems") or []])


def _check_run(r: _Reader, label: str, data: dict) -> Run:
    run = Run(label, r.path, "check")
    for i, result in enumerate(r.get(data, "results", list, "the file")):
        where = f"results[{i}]"
        kernel = r.get(result, "kernel", str, where)
        for backend, ev in r.get(result, "evaluations", dict, where).items():
            run.evaluations.append(
                _evaluation(r, label, kernel, backend, ev, f"{where}.evaluations.{backend}")
            )
    if not run.evaluations:
        raise r.fail(
            "an empty run: it holds no evaluation (no backend could run its kernels, "
            "or it was interrupted before the first)"
        )
    return run


def _certify_run(r: _Reader, label: str, data: dict) -> Run:
    run = Run(label, r.path, "certify")
    for i, row in enumerate(r.get(data, "results", list, "the file")):
        where = f"results[{i}]"
        kernel, backend = r.get(row, "kernel", str, where), r.get(row, "backend", str, where)
        evaluations = [
            _evaluation(r, label, kernel, backend, ev, f"{where}.evaluations[{j}]")
            for j, ev in enumerate(r.get(row, "evaluations", list, where, []))
        ]
        run.evaluations += evaluations
        adapter = adapter_name(
            r.get(row, "adapter", (dict, str), where, None)
            or (evaluations[0].adapter if evaluations else None)
        )
        run.certified.append(
            CertRecord(
                label,
                kernel,
                backend,
                adapter,
                r.get(row, "result", str, where),
                str(r.get(row, "detail", str, where, "")),
                str(r.get(row, "report", str, where, "") or ""),
            )
        )
    if not run.certified:
        raise r.fail("an empty run: it certifies nothing (no kernel on any backend)")
    return run


def candidate_key(candidate: dict) -> str:
    """What names a tune candidate: its ``candidate`` key (schedule and tunable values)
    when the tuner gives one, else its schedule."""
    return str(candidate.get("candidate") or candidate.get("schedule"))


def candidate_median(candidate: dict) -> float | None:
    value = (candidate.get("timing") or {}).get("median_ns") or candidate.get("median_ns")
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


def _tune_history(r: _Reader, data: dict, candidates: list[dict]) -> list[dict]:
    """The measurements in the order they were made: the file's ``history``; else the
    candidates by ``order`` (when each was first measured); else rebuilt from ``round``:
    each counted once in every round up to the last it took part in, in listed order.
    Each with the candidate's last median."""
    history = r.get(data, "history", list, "the file", None)
    if history is not None:
        return [h for h in history if isinstance(h, dict)]
    ordered = sorted(
        (c for c in candidates if isinstance(c.get("order"), int) and c["order"] > 0),
        key=lambda c: c["order"],
    )
    if not ordered:
        measured = [c for c in candidates if c.get("status") != "pruned"]
        ordered = [
            c
            for round_ in sorted({int(c.get("round") or 0) for c in measured})
            for c in measured
            if int(c.get("round") or 0) >= round_
        ]
    return [
        {"candidate": candidate_key(c), "median_ns": candidate_median(c), "status": c.get("status")}
        for c in ordered
    ]


def _chosen(r: _Reader, data: dict, key: str) -> str | None:
    """The winner or best candidate's key: the tuner gives a key or the candidate."""
    value = r.get(data, key, (str, dict), "the file", None)
    return candidate_key(value) if isinstance(value, dict) else value


def _tune_run(r: _Reader, label: str, data: dict) -> Run:
    candidates = r.get(data, "candidates", list, "the file")
    for i, c in enumerate(candidates):
        r.get(c, "schedule", str, f"candidates[{i}]")
        r.get(c, "status", str, f"candidates[{i}]")
    if r.get(data, "dry_run", bool, "the file", False) or not any(
        c.get("status") != "pruned" for c in candidates
    ):
        raise r.fail("an empty run: a dry run or a tune that measured no candidate")
    work = r.get(data, "work", dict, "the file", None) or data
    tune = TuneRecord(
        run=label,
        kernel=r.get(data, "kernel", str, "the file"),
        backend=r.get(data, "backend", str, "the file"),
        adapter=adapter_name(r.get(data, "adapter", (dict, str), "the file", None)),
        size=str(r.get(data, "size", (str, int), "the file")),
        strategy=str(r.get(data, "strategy", str, "the file", "successive-halving")),
        winner=_chosen(r, data, "winner"),
        best=_chosen(r, data, "best"),
        conclusion=str(r.get(data, "conclusion", str, "the file", "")),
        candidates=candidates,
        history=_tune_history(r, data, candidates),
        bytes_moved=_number(work.get("bytes_moved")),
        flops=_number(work.get("flops")),
    )
    return Run(label, r.path, "tune", tune=tune)


def _profile_run(r: _Reader, label: str, data: dict) -> Run:
    run = Run(label, r.path, "profile")
    for backend, profile in r.get(data, "backends", dict, "the file").items():
        probes = r.get(profile, "ceilings", dict, f"backends.{backend}", {})
        if probes:
            run.ceilings.append(
                Ceilings(
                    label,
                    backend,
                    adapter_name(r.get(profile, "adapter", (dict, str), f"backends.{backend}")),
                    probes,
                )
            )
    if not run.ceilings:
        raise r.fail("holds no measured ceilings: write it with kforge profile-hardware --measure")
    return run


def _bench_run(r: _Reader, label: str, data: dict) -> Run:
    rows = r.get(data, "rows", list, "the file")
    for i, row in enumerate(rows):
        r.get(row, "target", str, f"rows[{i}]")
        r.get(row, "what", str, f"rows[{i}]")
    if not rows:
        raise r.fail("an empty run: the bench measured nothing")
    return Run(
        label,
        r.path,
        "bench",
        bench_rows=rows,
        bench_meta=r.get(data, "meta", dict, "the file", {}),
    )


_READERS = {
    "kforge-check/1": _check_run,
    "kforge-certify/1": _certify_run,
    "kforge-tune/1": _tune_run,
    "kforge-profile/1": _profile_run,
    "kforge-bench/1": _bench_run,
}


def run_from_data(data: dict, path: str, label: str | None = None) -> Run:
    """The run held by ``data`` (already read from ``path``, or made by a command that
    writes its report itself)."""
    fmt: Any = data.get("format") if isinstance(data, dict) else None
    reader = _READERS.get(fmt) if isinstance(data, dict) else None
    if reader is None:
        raise ResultsFileError(f"{path}: unknown format {data.get('format')!r}")
    return reader(_Reader(path), label or os.path.basename(path), data)


def load_runs(paths: list[str]) -> ReportData:
    """Every file of ``paths``, checked, as one ``ReportData``."""
    if not paths:
        raise ResultsFileError("no results file given")
    return ReportData([run_from_data(load_results(p, FORMATS), p) for p in paths])

"""The sanitizer level: a CUDA evaluation run again in worker processes started under
compute-sanitizer, one per tool (memcheck: out-of-bounds and misaligned accesses;
racecheck: shared-memory races such as a missing barrier; synccheck: barriers in
divergent code; initcheck: reads of uninitialised device memory). What a tool finds
goes into the evaluation's findings and makes its verdict ``sanitizer``. Where no
sanitizer can run (another backend, or compute-sanitizer not installed) the report
names the check that was not made; the verdict is left as the values judged it.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from forge.errors import ForgeError

from ._expected import Expected
from ._plan import build_plan
from ._results import Evaluation, Finding, Verdict

__all__ = ["sanitize_evaluation", "find_sanitizer", "TOOLS", "parse_log"]

TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
_SUMMARY = re.compile(
    r"(ERROR SUMMARY: (\d+) errors?|RACECHECK SUMMARY: (\d+) hazards? "
    r"displayed \((\d+) errors?, (\d+) warnings?\))"
)


def find_sanitizer() -> str | None:
    """The compute-sanitizer executable, or None."""
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root:
            for candidate in (
                Path(root) / "bin" / "compute-sanitizer",
                Path(root) / "compute-sanitizer" / "compute-sanitizer",
            ):
                if candidate.exists():
                    return str(candidate)
    return None


def parse_log(text: str) -> tuple[int, list[str]]:
    """(errors counted by the tool's summary, the first lines that describe them)."""
    errors = 0
    for match in _SUMMARY.finditer(text):
        errors += int(match.group(2) if match.group(2) is not None else match.group(4))
    lines = [
        line.strip("= ").strip()
        for line in text.splitlines()
        if line.startswith("=========")
        and any(
            word in line
            for word in (
                "Invalid",
                "Race",
                "race",
                "hazard",
                "Barrier",
                "barrier",
                "Uninitialized",
                "Misaligned",
                "Error",
                "error",
            )
        )
        and "SUMMARY" not in line
    ]
    return errors, lines[:6]


def sanitize_evaluation(ev: Evaluation, expected: Expected, *, guard: int, timeout_s: Any) -> None:
    """Run ``ev``'s case again under each sanitizer tool and add what they find."""
    from ._workers import WorkerRunner

    if ev.backend != "cuda":
        ev.notes.append(
            f"sanitizer: not checked: compute-sanitizer checks CUDA only, and this "
            f"is the {ev.backend} backend"
        )
        return
    sanitizer = find_sanitizer()
    if sanitizer is None:
        ev.notes.append(
            "sanitizer: not checked: compute-sanitizer is not installed (it comes "
            "with the CUDA toolkit)"
        )
        return
    for tool in TOOLS:
        log = tempfile.NamedTemporaryFile(prefix=f"kforge-{tool}-", suffix=".log", delete=False)
        log.close()
        prefix = [sanitizer, "--tool", tool, "--log-file", log.name, "--print-limit", "20"]
        try:
            runner = WorkerRunner(
                ev.backend,
                {},
                timeout_s if isinstance(timeout_s, (int, float)) else None,
                prefix=prefix,
            )
            try:
                plan = build_plan(
                    expected.case.kernel,
                    expected.case,
                    runner.info,
                    ev.schedule,
                    guard=guard,
                    warmups=0,
                    samples=0,
                    timeout_s=timeout_s,
                )
                # its values are not judged: no rerun, and no poison (two launches filling every
                # SM's shared memory, which racecheck would track store by store)
                outcome = runner.execute(
                    dataclasses.replace(plan, rerun=False, poison_scratch=False)
                )
            finally:
                runner.close()
            text = Path(log.name).read_text(errors="replace")
        except ForgeError as exc:
            ev.notes.append(f"sanitizer: {tool} could not run: {exc}")
            continue
        finally:
            try:
                os.unlink(log.name)
            except OSError:
                pass
        errors, lines = parse_log(text)
        if outcome.error is not None and not errors:
            ev.notes.append(f"sanitizer: {tool}: the run under it failed: {outcome.error.message}")
        if errors:
            ev.extra.append(
                Finding(
                    "sanitizer",
                    f"{tool}: {errors} error(s): "
                    + "; ".join(lines or ["see compute-sanitizer's log"]),
                )
            )
            ev.verdict = Verdict.worst([ev.verdict, Verdict.SANITIZER])
        else:
            ev.notes.append(f"sanitizer: {tool} clean")

"""``kforge check --junit PATH``: the run as JUnit XML, one test case per kernel, size,
seed and backend (a failing verdict is a failure with the report, an unsupported one a
skip with its reason), for CI systems that show test results."""

from __future__ import annotations

import os
import tempfile
import xml.etree.ElementTree as ET
from typing import Any

from oracle import Verdict

__all__ = ["write_junit"]


def write_junit(path: str, run: Any) -> None:
    suites = ET.Element("testsuites", name="kforge check")
    by_backend: dict[str, list] = {}
    for result in run.results:
        for name, ev in result.evaluations.items():
            by_backend.setdefault(name, []).append(ev)
    for name in list(run.refused):
        by_backend.setdefault(name, [])
    for backend, evaluations in by_backend.items():
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=f"kforge.{backend}",
            tests=str(len(evaluations)),
            failures=str(sum(ev.failing for ev in evaluations)),
            skipped=str(sum(ev.verdict == Verdict.UNSUPPORTED for ev in evaluations)),
        )
        for ev in evaluations:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=f"kforge.{backend}.{ev.kernel.id}",
                name=f"{ev.kernel.id}[size={ev.size},seed={ev.seed}]",
                time=f"{(ev.timing.median / 1e9) if ev.timing else 0:.9f}",
            )
            if ev.failing:
                failure = ET.SubElement(
                    case,
                    "failure",
                    type=str(ev.verdict),
                    message=(ev.problems or [str(ev.verdict)])[0][:500],
                )
                failure.text = ev.report()
            elif ev.verdict == Verdict.UNSUPPORTED:
                ET.SubElement(case, "skipped", message=ev.error[:500])
        if backend in run.refused:
            case = ET.SubElement(suite, "testcase", classname=f"kforge.{backend}", name="open")
            ET.SubElement(case, "error", message=run.refused[backend][:500])
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=".kforge-", suffix=".xml.tmp")
    with os.fdopen(fd, "wb") as handle:
        ET.ElementTree(suites).write(handle, encoding="utf-8", xml_declaration=True)
    os.replace(temporary, path)

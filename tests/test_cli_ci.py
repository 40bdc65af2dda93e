"""kforge check in CI pipelines: JUnit XML, a baseline to compare against, results
files, and Ctrl-C keeping what was judged (exit 130, one line)."""

from __future__ import annotations

import copy
import json
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

from kforge import main
from kforge._baseline import compare_with_baseline, load_results


def _check(capsys, *extra) -> tuple[int, dict]:
    code = main(
        [
            "check",
            "raw_affine",
            "mul",
            "--backend",
            "reference",
            "--samples",
            "3",
            "--seed",
            "0",
            "--json",
            *extra,
        ]
    )
    return code, json.loads(capsys.readouterr().out)


def test_junit_has_a_case_per_evaluation_and_a_failure_per_failing_one(
    capsys, tmp_path, monkeypatch
):
    path = tmp_path / "junit.xml"
    code, data = _check(capsys, "--junit", str(path))
    assert code == 0
    suite = ET.parse(path).getroot().find("testsuite")
    cases = suite.findall("testcase")
    assert suite.get("name") == "kforge.reference" and len(cases) == sum(
        len(r["evaluations"]) for r in data["results"]
    )
    assert not suite.findall(".//failure") and suite.get("failures") == "0"


def test_a_baseline_run_compares_equal_and_a_worse_verdict_fails(capsys, tmp_path):
    saved = tmp_path / "baseline.json"
    code, data = _check(capsys, "--results", str(saved))
    assert code == 0 and load_results(str(saved))["format"] == "kforge-check/1"
    assert compare_with_baseline(str(saved), data) == []
    worse = copy.deepcopy(data)
    ev = worse["results"][0]["evaluations"]["reference"]
    ev["verdict"] = "mismatch"
    lines = compare_with_baseline(str(saved), worse)
    assert len(lines) == 1 and "pass before, mismatch now" in lines[0]


def test_a_slowdown_beyond_the_noise_is_a_regression_and_noise_is_not(capsys, tmp_path):
    saved = tmp_path / "baseline.json"
    _, data = _check(capsys, "--results", str(saved))
    base = json.loads(saved.read_text())
    for result in base["results"]:
        for ev in result["evaluations"].values():
            ev["timing"]["samples_ns"] = [1000, 1000, 1001]
            ev["timing"]["median_ns"] = 1000
    saved.write_text(json.dumps(base))
    slower = copy.deepcopy(base)
    ev = slower["results"][0]["evaluations"]["reference"]
    ev["timing"]["samples_ns"], ev["timing"]["median_ns"] = [2000, 2000, 2001], 2000
    assert len(compare_with_baseline(str(saved), slower)) == 1
    ev["timing"]["samples_ns"], ev["timing"]["median_ns"] = [1001, 1001, 1002], 1001
    assert compare_with_baseline(str(saved), slower) == []


def test_a_baseline_of_another_format_or_truncated_is_a_clear_usage_error(capsys, tmp_path):
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"format": "something-else/9"}))
    truncated = tmp_path / "truncated.json"
    truncated.write_text('{"format": "kforge-check/1", "results": [')
    for path, message in ((other, "something-else/9"), (truncated, "not valid JSON")):
        assert (
            main(
                [
                    "check",
                    "raw_affine",
                    "--backend",
                    "reference",
                    "--samples",
                    "0",
                    "--baseline",
                    str(path),
                ]
            )
            == 2
        )
        assert message in capsys.readouterr().err


def test_ctrl_c_ends_kforge_check_with_one_line_and_exit_130(tmp_path):
    """Interrupted mid-run: the judged evaluations are kept (in --results), the exit code
    is 130, and there is no traceback."""
    results = tmp_path / "partial.json"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kforge",
            "check",
            "--backend",
            "reference",
            "--samples",
            "2000",
            "--results",
            str(results),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # --results is rewritten as the run goes: wait for its first verdict (a fixed sleep
    # of 6 s saw none on a loaded machine); 2000 timed samples each, the run goes on
    deadline = time.monotonic() + 90
    while process.poll() is None and time.monotonic() < deadline:
        if results.exists() and json.loads(results.read_text())["results"]:
            break
        time.sleep(0.1)
    assert process.poll() is None, "the check ended before it could be interrupted"
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err[-2000:]
    assert "Traceback" not in err and "interrupted" in err
    data = json.loads(results.read_text())
    assert data["interrupted"] is True and data["results"], "judged evaluations were lost"

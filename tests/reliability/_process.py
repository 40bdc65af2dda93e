"""Running a piece of Python in a fresh interpreter, for tests whose failure is a
crash (a signal), a hang or a slow exit: any of them would take the test process down
with it, or never let it finish.

The script may call ``mark(name)`` (defined for it) at points of interest; the result
says how long before the process had exited each mark was reached, so a test can
bound the time from, say, a timeout to the end of the process.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

_PRELUDE = """\
import time
def mark(name):
    print(f"MARK {name} {time.monotonic()!r}", flush=True)
"""


@dataclass
class Finished:
    """How a script's process ended."""

    returncode: int
    stdout: str
    stderr: str
    before_exit: dict[str, float]  # mark name -> seconds from the mark to the exit

    def check(self) -> Finished:
        """Fail the test unless the process exited normally with status 0, saying
        which signal killed it otherwise."""
        output = f"{self.stdout[-3000:]}\n{self.stderr[-3000:]}"  # the end says why
        if self.returncode < 0:
            pytest.fail(f"the process died of {signal.Signals(-self.returncode).name}:\n{output}")
        assert self.returncode == 0, f"exit status {self.returncode}:\n{output}"
        return self


def run_python(code: str, timeout: float) -> Finished:
    """Run ``code`` (dedented) with the repository on the path; fail the test if it
    is still running after ``timeout`` seconds (it is killed)."""
    script = _PRELUDE + textwrap.dedent(code)
    try:
        done = subprocess.run(
            [sys.executable, "-c", script],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(
            f"the process hung: still running after {timeout} s; its output:\n"
            f"{exc.stdout}\n{exc.stderr}"
        )
    ended = time.monotonic()  # CLOCK_MONOTONIC: one clock for every process
    marks = {
        name: ended - float(at) for name, at in re.findall(r"^MARK (\S+) (\S+)$", done.stdout, re.M)
    }
    return Finished(done.returncode, done.stdout, done.stderr, marks)

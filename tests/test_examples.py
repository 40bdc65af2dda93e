"""The examples run as a user runs them (``python examples/NAME.py``, ``pytest
examples/ir_kernel``, ``kforge check FILE``), in CI too: CUDA parts compile with NVRTC
and say when they cannot run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ["wgsl_with_numpy.py", "cuda_scalars_shared.py", "port_check.py", "tunable_matmul.py"]


def _run(*argv: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *argv], cwd=cwd, capture_output=True, text=True, timeout=600
    )


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_example_runs(name):
    result = _run(str(ROOT / "examples" / name))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert result.stdout.strip()


def test_the_wgsl_example_is_judged_on_every_backend_it_names():
    result = _run(str(ROOT / "examples" / "wgsl_with_numpy.py"))
    assert "agree with the reference" in result.stdout or "skipped" in result.stdout, result.stdout


def test_the_ir_example_s_pytest_test_passes_through_the_fixture():
    result = _run(
        "-m", "pytest", "-q", "-p", "no:cacheprovider", str(ROOT / "examples" / "ir_kernel")
    )
    assert result.returncode == 0, result.stdout[-3000:]
    assert "passed" in result.stdout


def test_kforge_checks_an_example_file():
    import json

    result = _run(
        "-m",
        "kforge",
        "check",
        str(ROOT / "examples" / "wgsl_with_numpy.py"),
        "--backend",
        "reference",
        "--samples",
        "1",
        "--json",
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    kernels = {r["kernel"] for r in json.loads(result.stdout)["results"]}
    assert kernels == {"example_scale_shift"}

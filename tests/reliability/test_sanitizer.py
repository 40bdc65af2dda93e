"""compute-sanitizer over the CUDA backend (GPU machine): memcheck and racecheck run
clean over the CUDA conformance suite and the built-in kernels, and memcheck catches a
planted out-of-bounds kernel, proving the check can fail."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from oracle.pytest_plugin import require_available

ROOT = Path(__file__).resolve().parents[2]

_PLANTED = r'''
import numpy as np, forge
from forge import Access, BindingUsage, BufferSpec, KernelSpec, Schedule
SOURCE = """
struct Params { unsigned int n; };
extern "C" __global__ void planted_oob(float* y, const Params p) {
    // Writes 64 MiB past its view: beyond the end of the context's slab.
    y[threadIdx.x + p.n + (16u << 20)] = 1.0f;
}
"""
kernel = KernelSpec(id="planted_oob", entry_point="planted_oob",
                    buffers=(BufferSpec(0, "f32", Access.READ_WRITE), BufferSpec.uniform(1, (("n", "u32"),))),
                    sources={"cuda": SOURCE}, reference=lambda y, p: None, params=lambda n: {"n": n})
with forge.open_context("cuda", capacity_bytes=4 << 20) as ctx:
    y = ctx.allocate_transient(256, 0, usage=BindingUsage.STORAGE_READ_WRITE)
    u = ctx.allocate_and_write(kernel.pack_uniform(64), 1, usage=BindingUsage.UNIFORM)
    try:
        ctx.run_kernel(kernel, Schedule(32), [y, u], 64)
    except forge.ForgeError as exc:
        print("forge error:", type(exc).__name__, exc)
'''


def _sanitizer() -> str:
    found = shutil.which("compute-sanitizer") or next(
        (str(p) for p in (Path("/usr/local/cuda/bin/compute-sanitizer"),
                          Path("/usr/local/cuda/compute-sanitizer/compute-sanitizer")) if p.exists()),
        None)
    if found is None:
        pytest.skip("compute-sanitizer is not installed here")
    return found


def _run(tool: str, *args: str, timeout: int = 900) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([_sanitizer(), "--tool", tool, "--error-exitcode", "99",
                           "--target-processes", "all", sys.executable, *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


def test_memcheck_catches_a_planted_out_of_bounds_write(request):
    require_available(request.config, "cuda")
    result = _run("memcheck", "-c", _PLANTED)
    output = result.stdout + result.stderr
    assert result.returncode == 99, output[-4000:]
    assert "Invalid __global__ write" in output and "planted_oob" in output, output[-4000:]


@pytest.mark.parametrize("tool", ["memcheck", "racecheck"])
def test_the_cuda_suites_run_clean_under_the_sanitizer(request, tool):
    require_available(request.config, "cuda")
    result = _run(tool, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x",
                  "tests/conformance", "tests/test_library.py", "-k", "cuda",
                  "--require-backend", "cuda", timeout=540)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    clean = {"memcheck": "ERROR SUMMARY: 0 errors",
             "racecheck": "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"}
    assert clean[tool] in output, output[-6000:]

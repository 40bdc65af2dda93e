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
                    buffers=(BufferSpec(0, "f32", Access.READ_WRITE),
                             BufferSpec.uniform(1, (("n", "u32"),))),
                    sources={"cuda": SOURCE}, reference=lambda y, p: None,
                    params=lambda n: {"n": n})
with forge.open_context("cuda", capacity_bytes=4 << 20) as ctx:
    y = ctx.allocate_transient(256, 0, usage=BindingUsage.STORAGE_READ_WRITE)
    u = ctx.allocate_and_write(kernel.pack_uniform(64), 1, usage=BindingUsage.UNIFORM)
    try:
        ctx.run_kernel(kernel, Schedule(32), [y, u], 64)
    except forge.ForgeError as exc:
        print("forge error:", type(exc).__name__, exc)
'''


def _sanitizer() -> str:
    places = (
        Path("/usr/local/cuda/bin/compute-sanitizer"),
        Path("/usr/local/cuda/compute-sanitizer/compute-sanitizer"),
    )
    found = shutil.which("compute-sanitizer") or next((str(p) for p in places if p.exists()), None)
    if found is None:
        pytest.skip("compute-sanitizer is not installed here")
    return found


def _run(tool: str, *args: str, timeout: int = 900) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run(
        [
            _sanitizer(),
            "--tool",
            tool,
            "--error-exitcode",
            "99",
            "--target-processes",
            "all",
            sys.executable,
            *args,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_memcheck_catches_a_planted_out_of_bounds_write(request):
    require_available(request.config, "cuda")
    result = _run("memcheck", "-c", _PLANTED)
    output = result.stdout + result.stderr
    assert result.returncode == 99, output[-4000:]
    assert "Invalid __global__ write" in output and "planted_oob" in output, output[-4000:]


@pytest.mark.parametrize("tool", ["memcheck", "racecheck"])
def test_the_cuda_suites_run_clean_under_the_sanitizer(request, tool):
    require_available(request.config, "cuda")
    result = _run(
        tool,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-x",
        "tests/conformance",
        "tests/test_library.py",
        "-k",
        "cuda",
        "--require-backend",
        "cuda",
        timeout=540,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    clean = {
        "memcheck": "ERROR SUMMARY: 0 errors",
        "racecheck": "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)",
    }
    assert clean[tool] in output, output[-6000:]


# A tiled matmul as people write it, and the same with the barrier before the tile load
# removed: a race the values usually hide on the H200 (issue 11, observation 5), which
# racecheck finds.
_TILED = r"""
#define TILE 16
extern "C" __global__ void tiled_matmul(const float* A, const float* B, float* C, int n) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (n + TILE - 1) / TILE; ++t) {
        __syncthreads();  // BARRIER BEFORE LOAD
        As[threadIdx.y][threadIdx.x] =
            (row < n && t * TILE + threadIdx.x < n) ? A[row * n + t * TILE + threadIdx.x] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] =
            (col < n && t * TILE + threadIdx.y < n) ? B[(t * TILE + threadIdx.y) * n + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    }
    if (row < n && col < n) C[row * n + col] = acc;
}
"""


def _matmul(a, b, c, params):
    c[...] = a.astype("float64") @ b.astype("float64")


def _tiled(source):
    from forge import BufferSpec, KernelSpec, Schedule, ceil_div

    return KernelSpec(
        id="tiled_matmul" + ("" if "BARRIER BEFORE" in source else "_no_barrier"),
        entry_point="tiled_matmul",
        sources={"cuda": source},
        dims=("n",),
        buffers=(
            BufferSpec(0, "f32", "read", name="A", count="n*n", shape=("n", "n")),
            BufferSpec(1, "f32", "read", name="B", count="n*n", shape=("n", "n")),
            BufferSpec(2, "f32", "read_write", name="C", count="n*n", shape=("n", "n")),
            BufferSpec.uniform(3, (("n", "i32"),)),
        ),
        reference=_matmul,
        params=lambda n: {"n": n},
        grid=lambda s, n: (ceil_div(n, 16), ceil_div(n, 16), 1),
        schedules=(Schedule((16, 16)),),
        domain={"A": (-2.0, 2.0), "B": (-2.0, 2.0)},
        nonfinite_inputs=False,
        tolerance={"f32": {"rtol": 1e-4, "atol": 1e-4}},
        test_sizes=(70,),
    )


def test_the_sanitizer_level_catches_a_dropped_barrier_and_passes_the_correct_kernel(request):
    require_available(request.config, "cuda")
    _sanitizer()
    import oracle

    good = oracle.evaluate("cuda", _tiled(_TILED), size=70, samples=1, sanitize=True)
    assert good.passed and "sanitizer: racecheck clean" in good.report(), good.report()
    broken = _tiled(_TILED.replace("__syncthreads();  // BARRIER BEFORE LOAD", ""))
    ev = oracle.evaluate("cuda", broken, size=70, samples=1, sanitize=True)
    assert ev.verdict == "sanitizer" and "racecheck" in ev.report(), ev.report()


def test_the_sanitizer_level_names_the_check_it_could_not_make():
    import forge
    import oracle

    ev = oracle.evaluate("reference", forge.get_kernel("mul"), size=100, samples=0, sanitize=True)
    assert ev.passed and "sanitizer: not checked" in ev.report()

"""cuRAND's device API (``<curand_kernel.h>``: ``curand_init``, ``curand_uniform``, as
dropout and sampling kernels write them) on NVRTC's path (round 23 gap 7): the
nvidia-curand wheel's folder is added where it is not the runtime headers' own, and
where it is not installed the compile error names the wheel to install."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("cuda.bindings")

from backends.cuda import _headers  # noqa: E402
from forge import CompileError  # noqa: E402

_DROPOUT = r"""
#include <curand_kernel.h>
extern "C" __global__ void dropout(const float* x, float* y, int n, float p,
                                   unsigned long long seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    curandStatePhilox4_32_10_t state;
    curand_init(seed, i, 0, &state);
    float u = curand_uniform(&state);
    y[i] = u < p ? 0.0f : x[i] / (1.0f - p);
}
"""


def test_without_the_curand_wheel_the_error_names_it():
    if _headers.curand_directory() is not None or not _headers.header_directories():
        pytest.skip("nvidia-curand is installed here (or no CUDA headers at all)")
    from backends.cuda._nvrtc import compile_module

    with pytest.raises(CompileError, match=r"curand_kernel\.h.*pip install nvidia-curand"):
        compile_module(_DROPOUT, ["dropout"], "sm_90")


def test_a_curand_wheel_installed_apart_is_put_on_the_path(tmp_path):
    """A wheel laid out as nvidia-curand's (nvidia/cu13/include/curand_kernel.h) in a
    folder of its own on sys.path (pip install --target): its folder is on NVRTC's
    path, after the runtime's and CCCL's. A stand-in header, so no wheel is needed."""
    include = tmp_path / "site" / "nvidia" / "cu13" / "include"
    include.mkdir(parents=True)
    (include / "curand_kernel.h").write_text(
        "#pragma once\n__device__ inline float kf_curand_stand_in() { return 0.25f; }\n"
    )
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.append({str(tmp_path / "site")!r})
        from backends.cuda import _headers
        from backends.cuda._nvrtc import compile_module
        found = _headers.curand_directory()
        if found != {str(include)!r}:
            print("skip: another cuRAND is installed:", found)
            sys.exit(0)
        assert _headers.header_directories()[-1] == found, _headers.header_directories()
        kernel = 'extern "C" __global__ void k(float* y) {{ y[0] = kf_curand_stand_in(); }}'
        compile_module("#include <curand_kernel.h>\\n" + kernel, ["k"], "sm_90")
        print("ok")
        """
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root, FORGE_CACHE_DIR=str(tmp_path / "cache"))
    result = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
    if result.stdout.startswith("skip"):
        pytest.skip(result.stdout.strip())
    assert "ok" in result.stdout, result.stdout + result.stderr

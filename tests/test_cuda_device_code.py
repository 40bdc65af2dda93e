"""A whole .cu file with its host side, as people keep kernels (a PyTorch extension,
KernelBench's ``load_inline`` sources, a sample's ``main``): NVRTC is given its device
part (backends/cuda/_device_code.py), compiles it with no GPU, and on the GPU the
oracle judges the kernel in it."""

from __future__ import annotations

import re

import numpy as np
import pytest

import oracle
from backends.cuda._device_code import device_code
from forge import BufferSpec, KernelSpec, Schedule
from forge.errors import CompileError
from oracle import Verdict
from oracle.pytest_plugin import require_available
from tests.wild import CORPUS

# in the style of a PyTorch C++/CUDA extension (and of KernelBench's inline sources)
EXTENSION = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <vector>

#define HD __host__ __device__
#define CHECK_CUDA(x) TORCH_CHECK(x.device().is_cuda(), #x " must be a CUDA tensor")

namespace {
template <typename T> HD T half_of(T v) { return v * T(0.5); }
constexpr int kBlock = 256;
constexpr int blocks_for(int n) { return (n + kBlock - 1) / kBlock; }
}  // namespace

__device__ __forceinline__ float gelu_tanh(float x) {
    const float c = 0.7978845608f;  // sqrt(2 / pi)
    return half_of(x) * (1.0f + tanhf(c * (x + 0.044715f * x * x * x)));
}

__global__ void gelu_kernel(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = gelu_tanh(x[i]);
    }
}

static void check(cudaError_t err) {
    if (err != cudaSuccess) { throw std::runtime_error(cudaGetErrorString(err)); }
}

torch::Tensor gelu_cuda(torch::Tensor x) {
    CHECK_CUDA(x);
    auto y = torch::empty_like(x);
    const int n = x.numel();
    gelu_kernel<<<blocks_for(n), kBlock>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    check(cudaGetLastError());
    return y;
}

std::vector<torch::Tensor> gelu_all(std::vector<torch::Tensor> xs) {
    for (auto& x : xs) { x = gelu_cuda(x); }
    return xs;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("gelu", &gelu_cuda, "GELU, tanh approximation (CUDA)");
}
"""

# a sample's file: the kernel, then main with its allocations, copies and launch
SAMPLE = r"""
#include <cstdio>
#include <iostream>
#include <cuda_runtime.h>

__global__ void saxpy(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

int main(void) {
    int N = 1 << 20;
    float *x, *y, *d_x, *d_y;
    x = (float*)malloc(N * sizeof(float));
    y = (float*)malloc(N * sizeof(float));
    cudaMalloc(&d_x, N * sizeof(float));
    cudaMalloc(&d_y, N * sizeof(float));
    for (int i = 0; i < N; i++) { x[i] = 1.0f; y[i] = 2.0f; }
    cudaMemcpy(d_x, x, N * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, y, N * sizeof(float), cudaMemcpyHostToDevice);
    saxpy<<<(N + 255) / 256, 256>>>(N, 2.0f, d_x, d_y);
    cudaMemcpy(y, d_y, N * sizeof(float), cudaMemcpyDeviceToHost);
    std::cout << "done" << std::endl;
    return 0;
}
"""


def _gelu(x):
    x = x.astype(np.float64)
    return 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x**3)))


def _gelu_spec(source: str) -> KernelSpec:
    return KernelSpec(
        id="extension_gelu",
        entry_point="gelu_kernel",
        sources={"cuda": source},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
        ),
        reference=_gelu,
        schedules=(Schedule(256),),
        test_sizes=(1000, 1),
    )


def test_the_device_part_keeps_kernels_device_helpers_and_line_numbers():
    text, left_out = device_code(EXTENSION)
    assert left_out == (
        "<torch/extension.h>",
        "<vector>",
        "check",
        "gelu_cuda",
        "gelu_all",
        "PYBIND11_MODULE",
    )
    assert text.count("\n") == EXTENSION.count("\n")
    kept = [line for line in text.splitlines() if line.strip()]
    assert (
        "__global__ void gelu_kernel(const float* __restrict__ x, float* __restrict__ y, int n) {"
        in kept
    )
    # a helper annotated through a macro and the constexpr ones stay; no host code does
    assert any("HD T half_of" in line for line in kept)
    assert any("__host__ __device__ constexpr int blocks_for" in line for line in kept)
    # of PyTorch only the macro's definition is left, which device code never expands
    assert [line for line in kept if "torch" in line.lower()] == [
        line for line in EXTENSION.splitlines() if line.startswith("#define CHECK_CUDA")
    ]
    assert "<<<" not in text and "PYBIND11" not in text and "std::vector" not in text


def test_no_function_of_a_corpus_kernel_is_left_out():
    """What leaves a CUDA source of the wild corpus is its host side only: a host-only
    header (round 46's lecture opens with ``#include <iostream>``) or a host function
    that launches the kernels (round 54's LeetGPU files keep their ``solve``), never an
    entry point or a function the device code calls; where nothing marks a host side
    the source is left as it is."""
    for wild in CORPUS.values():
        source = wild.kernel.sources.get("cuda")
        if not isinstance(source, str):
            continue
        text, left_out = device_code(source)
        functions = [name for name in left_out if not name.startswith("<")]
        for name in functions:
            assert "<<<" in source, (wild.kernel.id, name)  # a launcher, as LeetGPU's
            assert not re.search(rf"\b{re.escape(name)}\s*\(", text), (wild.kernel.id, name)
        assert text.count("\n") == source.count("\n")
        if not left_out:
            assert text == source, wild.kernel.id


def test_nvrtc_compiles_an_extension_and_a_sample_file_as_written():
    from backends.cuda._nvrtc import compile_module

    _, names = compile_module(EXTENSION, ("gelu_kernel",), "sm_90", "ptx")
    assert names["gelu_kernel"].startswith("_Z")  # a C++ name, as the file declares it
    compile_module(SAMPLE, ("saxpy",), "sm_90", "ptx")
    # an error in the device code is NVRTC's, at the file's own line, and says what of
    # the file NVRTC was not given
    broken = EXTENSION.replace("y[i] = gelu_tanh(x[i]);", "y[i] = gelu_tanh(x[i], 1);")
    with pytest.raises(CompileError) as caught:
        compile_module(broken, ("gelu_kernel",), "sm_90", "ptx")
    line = 1 + broken[: broken.index("gelu_tanh(x[i], 1)")].count("\n")
    assert f"({line}):" in caught.value.log
    assert "host side was left out" in str(caught.value) and "gelu_cuda" in str(caught.value)


def test_the_oracle_judges_the_kernel_of_an_extension_file(request):
    """On the GPU: the right kernel passes, one with the cube's coefficient dropped
    fails, each given as the whole extension file."""
    require_available(request.config, "cuda")
    with oracle.Session(timeout_s=60) as session:
        runner = session.runner("cuda")
        ev = oracle.evaluate(runner, _gelu_spec(EXTENSION), samples=0, warmups=0)
        assert ev.verdict is Verdict.PASS, ev.report()
        wrong = EXTENSION.replace("x + 0.044715f * x * x * x", "x + x * x * x")
        ev = oracle.evaluate(runner, _gelu_spec(wrong), samples=0, warmups=0)
        assert ev.verdict is Verdict.MISMATCH, ev.report()

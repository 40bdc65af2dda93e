"""A CUDA kernel that takes its buffers inside a struct passed by value (``struct Params {
const float* x; float* y; int n; float alpha; }``, as FlashAttention's and CUTLASS's
kernels take their arguments): the spec names each pointer member as a ``u64`` field
named like the buffer it points at, and the CUDA backend writes that buffer's device
address there at launch. The launch runs on the simulated driver (its kernel reads the
struct's bytes as the GPU would); NVRTC compiles the source and the declaration check
accepts it with no GPU; the reference sees 0 in those fields."""

from __future__ import annotations

import dataclasses
import gc

import numpy as np
import pytest

import oracle
from forge import BufferSpec, KernelSpec, Schedule, ceil_div
from forge._bindings import pointer_fields
from forge.arguments import cuda_arguments
from tests.test_cuda_fake_driver import device_array, f32, install, ptr, u32

_SOURCE = r"""
struct Params {
    const float* __restrict__ x;
    float* __restrict__ y;
    int n;
    float alpha;
};

__global__ void scale_by_params(const Params p) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) p.y[i] = p.alpha * p.x[i];
}
"""

_SYMBOL = "_Z15scale_by_params6Params"  # a C++ function: NVRTC's lowered name

KERNEL = KernelSpec(
    id="struct_of_pointers_scale",
    entry_point="scale_by_params",
    sources={"cuda": _SOURCE},
    buffers=(
        BufferSpec(0, "f32", "read", name="x"),
        BufferSpec(1, "f32", "read_write", name="y"),
        BufferSpec.uniform(
            2, (("x", "u64"), ("y", "u64"), ("n", "i32"), ("alpha", "f32")), name="p"
        ),
    ),
    reference=lambda x, y, p: y.__setitem__(slice(None), p["alpha"] * x),
    params=lambda n: {"n": n},
    defaults={"alpha": 2.5},
    grid=lambda s, n: (ceil_div(n, 128), 1, 1),
    schedules=(Schedule(128),),
    test_sizes=(1000, 1),
)


def _model(offset: float = 0.0):
    """The kernel as the GPU runs it: the struct's bytes, its pointers followed."""

    def run(args, grid, block):
        struct = args[0]
        n, alpha = u32(struct, 16), f32(struct, 20)
        x = device_array(ptr(struct[0:8]), n, np.float32)
        y = device_array(ptr(struct[8:16]), n, np.float32)
        y[:] = np.float32(alpha) * x + np.float32(offset)

    return run


@pytest.fixture
def struct_driver(monkeypatch, tmp_path):
    from backends.cuda import _driver

    monkeypatch.setenv("FORGE_CACHE_DIR", str(tmp_path / "cache"))
    gc.collect()
    fake = install(monkeypatch)
    fake.kernels[_SYMBOL] = (_model(), (24,))
    yield fake
    gc.collect()
    _driver.default_arch.cache_clear()


def test_the_pointer_fields_are_the_u64_fields_named_like_buffers():
    assert pointer_fields(KERNEL) == {"x": 0, "y": 1}
    record = KERNEL.pack_uniform(1000)
    assert record["x"] == 0 and record["y"] == 0 and record["n"] == 1000


def test_the_struct_is_passed_whole_and_its_declaration_accepted_with_no_gpu():
    from backends.cuda import compile_cuda

    assert compile_cuda(_SOURCE, KERNEL.entry_point, arch="sm_90")
    assert cuda_arguments(KERNEL, KERNEL.entry_point, None, _SOURCE, 1000) == (("uniform", None),)


def test_the_buffers_addresses_reach_the_struct_and_the_kernel_passes(struct_driver):
    from backends.cuda import CudaComputeContext

    with CudaComputeContext(1 << 22) as ctx:
        ev = oracle.evaluate(ctx, KERNEL, size=1000, samples=2)
        assert ev.passed, ev.report()
    struct_driver.kernels[_SYMBOL] = (_model(offset=1e-3), (24,))  # a wrong kernel
    with CudaComputeContext(1 << 22) as ctx:
        assert oracle.evaluate(ctx, KERNEL, size=1000, samples=0).verdict == "mismatch"


def test_the_reference_backend_judges_it_with_the_pointers_left_zero():
    assert oracle.evaluate("reference", KERNEL, size=1000, samples=0).passed


_BY_POINTER = _SOURCE.replace("(const Params p)", "(const Params* __restrict__ p)").replace(
    "p.", "p->"
)


def test_a_struct_of_pointers_passed_through_a_pointer_is_refused(struct_driver):
    """The struct in device memory would need the addresses written there too; said,
    not launched with null pointers."""
    from backends.cuda import CudaComputeContext

    by_pointer = dataclasses.replace(KERNEL, sources={"cuda": _BY_POINTER})
    struct_driver.kernels["_Z15scale_by_paramsPK6Params"] = (_model(), (8,))
    with CudaComputeContext(1 << 22) as ctx:
        ev = oracle.evaluate(ctx, by_pointer, size=1000, samples=0)
    assert ev.verdict == "unsupported" and "holds device pointers" in ev.error, ev.report()


def test_a_uniform_struct_taken_through_a_pointer_gets_its_device_address(struct_driver):
    """``const Params* p`` named like the uniform block: its address, not its first 8
    bytes packed by value (which the kernel would have followed as a pointer)."""
    from backends.cuda import CudaComputeContext

    source = (
        "struct Params { int n; float alpha; };\n"
        "__global__ void scale_by_params(const float* x, float* y, const Params* p) {\n"
        "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < p->n) y[i] = p->alpha * x[i];\n"
        "}\n"
    )
    plain = dataclasses.replace(
        KERNEL,
        sources={"cuda": source},
        buffers=(
            *KERNEL.buffers[:2],
            BufferSpec.uniform(2, (("n", "i32"), ("alpha", "f32")), name="p"),
        ),
    )
    assert cuda_arguments(plain, plain.entry_point, None, source, 1000)[2] == ("buffer", 2)

    def run(args, grid, block):
        struct = device_array(ptr(args[2]), 2, np.uint32).tobytes()
        n, alpha = u32(struct, 0), f32(struct, 4)
        x, y = device_array(ptr(args[0]), n, np.float32), device_array(ptr(args[1]), n, np.float32)
        y[:] = np.float32(alpha) * x

    struct_driver.kernels["_Z15scale_by_paramsPKfPfPK6Params"] = (run, (8, 8, 8))
    with CudaComputeContext(1 << 22) as ctx:
        ev = oracle.evaluate(ctx, plain, size=1000, samples=0)
    assert ev.passed, ev.report()


def test_on_the_gpu_the_struct_of_pointers_kernel_passes_and_a_wrong_one_fails(request):
    """The same on the device (``--require-backend cuda``): the addresses NVRTC's
    kernel follows are the buffers'."""
    from oracle.pytest_plugin import require_available

    require_available(request.config, "cuda")
    for size in KERNEL.checked_sizes():
        ev = oracle.evaluate("cuda", KERNEL, size=size, samples=0)
        assert ev.passed, ev.report()
    wrong = dataclasses.replace(
        KERNEL, sources={"cuda": _SOURCE.replace("p.alpha * p.x[i]", "p.alpha * p.x[i] + 1e-3f")}
    )
    assert oracle.evaluate("cuda", wrong, size=1000, samples=0).verdict == "mismatch"

"""The CUDA backend's driver layer: the one translation point from CUresult and
nvrtcResult to typed errors, availability with its reason, and the seed API's
completeness. None of it needs a GPU."""

from __future__ import annotations

import inspect
import re

import pytest

import forge
from backends.cuda import _driver, _probe
from backends.cuda._driver import check, error_for
from forge import (
    AllocationError,
    CompileError,
    DeviceLost,
    GpuUnavailable,
    GpuValidation,
    UnsupportedFeature,
)

# Every member of the seed API page this context grew from (docs/DESIGN.md section 2):
# its methods and fields, as the page names them.
SEED_MEMBERS = frozenset(
    {
        "adapter",
        "advance_read_head",
        "allocate_and_write",
        "allocate_transient",
        "allocator",
        "begin_graph_capture",
        "clear_transient_allocations",
        "constraints",
        "ctx",
        "end_graph_capture",
        "join_prefetch",
        "launch_graph",
        "module_cache",
        "prefetch_stream",
        "read_buffer_f32",
        "read_buffer_f64",
        "read_buffer_u32_into",
        "restore_checkpoint",
        "run_kernel",
        "slab",
        "stream",
        "timestamp_supported",
        "write_checkpoint",
        "write_view",
        "write_view_prefetch",
    }
)
R = _driver.driver.CUresult


@pytest.mark.parametrize(
    "name, error",
    [
        ("CUDA_ERROR_ILLEGAL_ADDRESS", DeviceLost),
        ("CUDA_ERROR_LAUNCH_FAILED", DeviceLost),
        ("CUDA_ERROR_ILLEGAL_INSTRUCTION", DeviceLost),
        ("CUDA_ERROR_MISALIGNED_ADDRESS", DeviceLost),
        ("CUDA_ERROR_OUT_OF_MEMORY", AllocationError),
        ("CUDA_ERROR_INVALID_VALUE", GpuValidation),
        ("CUDA_ERROR_INVALID_HANDLE", GpuValidation),
        ("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", GpuValidation),
        ("CUDA_ERROR_STREAM_CAPTURE_INVALIDATED", GpuValidation),
        ("CUDA_ERROR_NO_DEVICE", GpuUnavailable),
        ("CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", GpuUnavailable),
        ("CUDA_ERROR_INVALID_IMAGE", CompileError),
        ("CUDA_ERROR_NO_BINARY_FOR_GPU", CompileError),
        ("CUDA_ERROR_UNSUPPORTED_PTX_VERSION", CompileError),
        ("CUDA_ERROR_NOT_SUPPORTED", UnsupportedFeature),
    ],
)
def test_a_failed_curesult_becomes_its_typed_error_naming_the_call(name, error):
    with pytest.raises(error) as info:
        check((getattr(R, name),), "cuSomething(42)")
    assert isinstance(info.value, forge.ForgeError)
    assert name in str(info.value) and "cuSomething(42)" in str(info.value)


def test_sticky_errors_say_the_context_must_be_replaced():
    assert "open a new context" in str(error_for(R.CUDA_ERROR_ILLEGAL_ADDRESS, "x"))


def test_nvrtc_results_become_compile_errors_or_allocation_errors():
    from cuda.bindings import nvrtc

    N = nvrtc.nvrtcResult
    assert isinstance(error_for(N.NVRTC_ERROR_COMPILATION, "c"), CompileError)
    assert isinstance(error_for(N.NVRTC_ERROR_INVALID_OPTION, "c"), CompileError)
    assert isinstance(error_for(N.NVRTC_ERROR_OUT_OF_MEMORY, "c"), AllocationError)
    assert error_for(N.NVRTC_ERROR_COMPILATION, "c").target == "cuda"


def test_success_unwraps_to_none_one_value_or_a_tuple():
    assert check((R.CUDA_SUCCESS,)) is None
    assert check((R.CUDA_SUCCESS, 5)) == 5
    assert check((R.CUDA_SUCCESS, 1, "two")) == (1, "two")


def test_without_a_driver_the_backend_is_unavailable_with_the_reason():
    ok, reason = _probe.probe_device()
    if ok:
        pytest.skip(f"this machine has a CUDA device ({reason}); CI covers the no-driver path")
    assert reason and ("driver" in reason or "device" in reason), reason
    assert forge.available_backends()["cuda"] == (False, reason)
    with pytest.raises(GpuUnavailable, match=re.escape(reason[:40])):
        forge.open_context("cuda")
    from backends.cuda import CudaComputeContext

    with pytest.raises(GpuUnavailable):
        CudaComputeContext(1 << 20)


def test_with_a_device_probe_names_it_and_its_architecture(request):
    ok, reason = _probe.probe_device()
    if not ok:
        from oracle.pytest_plugin import require_available

        require_available(request.config, "cuda")
    assert re.search(r"\(sm_\d+\), CUDA driver \d+\.\d+, NVRTC \d+\.\d+", reason), reason


def test_every_member_of_the_seed_page_exists_on_the_context():
    from backends.cuda import CapturedCudaGraph, CudaComputeContext

    missing = sorted(m for m in SEED_MEMBERS if not hasattr(CudaComputeContext, m))
    assert not missing, f"seed members missing on CudaComputeContext: {missing}"
    assert inspect.isclass(CapturedCudaGraph)
    params = inspect.signature(CudaComputeContext).parameters
    assert list(params)[:2] == ["capacity_bytes", "device"]

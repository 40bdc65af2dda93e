"""Round 38's findings (tests/wild/round38.py), each pinned by the smallest run that
shows it: cuda-samples' ``#include <helper_cuda.h>`` did not compile under NVRTC (fixed:
the samples' host helpers are served as what device code can take from them); ggml's
``cudaGridDependencySynchronize()`` was undefined under NVRTC (fixed: the device runtime
header is pre-included where a source calls it); a key-value sort that is not stable
could not be judged where keys tie (fixed: ``unordered="keys"``, the values a multiset
within each run of equal keys); and a WGSL kernel of launches was held to the adapter's
workgroup limit by a schedule that only its CUDA twin runs (fixed), and told to change
it."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import numpy as np
import pytest

from forge import AdapterConstraints, BufferSpec, KernelSpec
from forge.errors import InvalidArgument, UnsupportedFeature
from tests.wild.round38 import BITONIC

_HELPERS = """
#include <helper_cuda.h>
#include <helper_functions.h>
extern "C" __global__ void clamp_pair(const int* a, const int* b, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = MAX(MIN(a[i], b[i]), 0);
}
"""


def test_cuda_samples_helper_headers_compile_with_nvrtc():
    """No device needed: every cuda-samples .cu file includes <helper_cuda.h> (the
    sortingNetworks kernels do), whose error checks and timers are host code NVRTC
    cannot compile; NVRTC said it cannot open the file. Served as their C headers and
    the MIN/MAX macros device code takes from them."""
    from backends.cuda._nvrtc import compile_module

    image, names = compile_module(_HELPERS, ["clamp_pair"], "sm_90")
    assert image and names == {"clamp_pair": "clamp_pair"}


_PDL = """
#define GGML_CUDA_CC_HOPPER 900
static __global__ void scale(float * x, const int n) {
#if __CUDA_ARCH__ >= GGML_CUDA_CC_HOPPER
    cudaGridDependencySynchronize();
#endif
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
#if __CUDA_ARCH__ >= GGML_CUDA_CC_HOPPER
    cudaTriggerProgrammaticLaunchCompletion();
#endif
}
"""


def test_programmatic_dependent_launch_calls_compile_with_nvrtc():
    """No device needed: ggml's kernels wait on the previous grid with
    ``cudaGridDependencySynchronize()`` on Hopper, which nvcc's implicit
    <cuda_runtime.h> declares and NVRTC's does not ("identifier is undefined")."""
    from backends.cuda._headers import implicit_options
    from backends.cuda._nvrtc import compile_module

    assert "--pre-include=cuda_device_runtime_api.h" in implicit_options(_PDL)
    assert not any("device_runtime" in o for o in implicit_options("__global__ void k() {}"))
    image, _ = compile_module(_PDL, ["scale"], "sm_90")
    assert image


def test_values_unordered_among_equal_keys_are_a_multiset_within_each_tie():
    """No device needed: a bitonic network is not stable, so among equal keys the
    values come in the network's order (cuda-samples' keys are rand() % 65536: ties at
    any size); a stable argsort's reference failed the right kernel on every tie. Each
    run of equal keys is now a multiset of its own, cut at each array's end; a value
    outside its key's run still fails."""
    from oracle._judge import _tied_order

    keys = np.array([[9, 7, 7, 7, 5, 3], [3, 3, 8, 8, 1, 0]], np.uint32)
    want = np.array([[0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11]], np.uint32)
    order = _tied_order(want, keys, row=6)
    assert order is not None and order.parts == [(1, 4), (6, 8), (8, 10)]
    ties_swapped = np.array([[0, 3, 1, 2, 4, 5], [7, 6, 9, 8, 10, 11]], np.uint32)
    assert np.array_equal(order(ties_swapped), order(want))
    for wrong in (
        [[1, 0, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11]],  # across distinct keys
        [[0, 1, 2, 3, 4, 6], [5, 7, 8, 9, 10, 11]],  # key 3 ends one array, starts the next
    ):
        assert not np.array_equal(order(np.array(wrong, np.uint32)), order(want))


def test_unordered_names_another_output_of_scalars():
    """The keys an output is unordered among must be another output of the kernel, or
    an input it holds integer indices into (an argsort's: tests/test_tied_indices.py)."""
    values = BufferSpec(1, "u32", "read_write", name="vals", unordered="keys")
    floats = BufferSpec(1, "f32", "read_write", name="vals", unordered="keys")
    for keys, out in (
        (BufferSpec(0, "u32", "read", name="keys"), floats),
        (BufferSpec(0, "u32", "read_write", name="other"), values),
    ):
        with pytest.raises(InvalidArgument, match="unordered among equal 'keys'"):
            KernelSpec(id="k", entry_point="main", buffers=(keys, out), sources={"wgsl": "x"})
    indices = (BufferSpec(0, "f32", "read", name="keys"), values)
    assert KernelSpec(id="k", entry_point="main", buffers=indices, sources={"wgsl": "x"})
    with pytest.raises(InvalidArgument, match='unordered is True, "lists", the name of the output'):
        BufferSpec(1, "u32", "read_write", name="vals", unordered="")


def _limits(most: int) -> AdapterConstraints:
    """WebGPU's default limits, at most ``most`` invocations a workgroup."""
    return AdapterConstraints(
        max_workgroup_size=(most, most, 64),
        max_invocations_per_workgroup=most,
        max_workgroups_per_dimension=(65535, 65535, 65535),
        max_workgroup_storage_bytes=16384,
        max_storage_binding_size=2**27,
        max_buffer_size=2**28,
    )


def test_a_wgsl_kernel_of_launches_is_held_to_the_limit_by_what_its_launches_run():
    """No device needed: the bitonic sort's schedule is the CUDA block of 512; its port's
    launches each run the 256 their entry points declare. A browser's adapter (256 at
    most) refused the whole kernel by the schedule; the launches' own workgroups are
    what the backend checks. The CUDA target is still held to its schedule."""
    kernel, schedule = BITONIC.kernel, BITONIC.kernel.schedules[0]
    assert schedule.workgroup_size == (512, 1, 1)
    kernel.check_schedule(schedule, _limits(256), "wgsl")
    with pytest.raises(UnsupportedFeature, match="exceeds max_workgroup_size"):
        kernel.check_schedule(schedule, _limits(256), "cuda")
    size = kernel.size("batch=2,L=4096")
    steps = kernel.steps("wgsl", schedule, size, 65535, kernel.source("wgsl", schedule, size))
    assert {s.block for s in steps} == {(256, 1, 1)}


def test_a_kernel_of_launches_with_their_own_grids_is_not_told_to_change_its_schedule():
    """No device needed: a failing WGSL run of a kernel whose launches give their own
    grids said "give the kernel schedules=(Schedule(256),)", which would have broken its
    CUDA launches; a kernel of one launch whose grid follows the schedule still hears it."""
    from oracle._evaluate import _note_workgroup_size

    kernel, schedule = BITONIC.kernel, BITONIC.kernel.schedules[0]
    ev = SimpleNamespace(size=kernel.size("batch=1,L=1024"), notes=[])
    _note_workgroup_size(ev, kernel, schedule)
    assert ev.notes == []
    one = dataclasses.replace(kernel, launches=(), entry_point="bitonicMergeGlobal")
    _note_workgroup_size(ev, one, schedule)
    assert ev.notes and "schedules=(Schedule(256),)" in ev.notes[0]

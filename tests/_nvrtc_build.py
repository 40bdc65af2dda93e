"""NVRTC's build of a CUDA kernel with no GPU, for the tests of rounds that bring CUDA
kernels (tests/test_wild_round76.py and after)."""

from __future__ import annotations

from typing import Any

from forge import KernelSpec


def nvrtc_build(kernel: KernelSpec) -> tuple[Any, dict]:
    """NVRTC's build of ``kernel`` at its largest size, each launch checked against the
    parameters its PTX declares (as tests/test_wild_kernels.py compiles the corpus):
    the launch steps, and the lowered names of the entry points."""
    from backends.cuda._modules import check_steps, module_build

    schedule, size = kernel.schedules[0], kernel.largest_size()
    source = kernel.source("cuda", schedule, size)
    steps = kernel.steps("cuda", schedule, size, 2**31 - 1, source)
    image, names, entries = module_build(kernel, steps, source, "sm_90").build()
    assert image
    check_steps(kernel, steps, entries, source)
    return steps, names

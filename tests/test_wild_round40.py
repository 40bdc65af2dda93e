"""Round 40's findings (tests/wild/round40.py), each pinned by the smallest run that
shows it: a launch's schedule could not be given for CUDA alone (ggml's argmax blocks
of ``min(1024, ncols)`` beside a port of 256: fixed, a mapping of target to schedule);
a default argument left out by the host (``int *partial_sums = NULL``) and a buffer
passed at an offset (``d_data + blockSize``) could not be expressed (fixed:
``arguments=`` takes both); a kernel computing in half mismatched a float reference
with no word of why (fixed: the report names the precision); and the oracle catches
the fp16ScalarProduct sample's own indexing."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import numpy as np
import pytest

import oracle
from forge import Dispatch, Schedule
from forge.errors import InvalidArgument
from oracle import Verdict
from oracle.pytest_plugin import require_available
from tests.wild.round40 import ARGMAX, FP16_INTRINSICS, SHFL_SCAN, fp16_scalar_products


def test_a_launch_gives_its_schedule_for_cuda_alone_and_the_port_runs_what_it_declares():
    """No device needed: ggml's host launches argmax_f32 on blocks of min(1024, ncols
    rounded up to 32); its port declares @workgroup_size(256). A schedule function for
    every target was refused on WGSL ("runs under a schedule of 1024x1x1, but the WGSL
    declares 256"), and the port cannot run 1024 where 256 is the most."""
    kernel, schedule = ARGMAX.kernel, ARGMAX.kernel.schedules[0]
    size = kernel.size("nrows=2,ncols=1500")
    blocks = {
        target: kernel.steps(target, schedule, size, 65535)[0].block for target in ("cuda", "wgsl")
    }
    assert blocks == {"cuda": (1024, 1, 1), "wgsl": (256, 1, 1)}
    function = kernel.launches[0].schedule["cuda"]
    everywhere = dataclasses.replace(
        kernel, launches=(dataclasses.replace(kernel.launches[0], schedule=function),)
    )
    with pytest.raises(InvalidArgument, match="WGSL declares @workgroup_size"):
        everywhere.steps("wgsl", schedule, size, 65535)


def test_a_default_argument_left_out_and_a_buffer_at_an_offset_are_passed_as_written():
    """No device needed: shfl_scan's host scans the partial sums with
    ``shfl_scan_test(d_partial_sums, 32)`` (``partial_sums`` left to its ``= NULL``) and
    adds on ``d_data + blockSize``; ``arguments=`` had to name every parameter, and a
    name with an offset named nothing. Now the default is packed (8 zero bytes) and the
    offset is the buffer's address 256 ints on; an offset past the buffer is refused."""
    kernel, schedule = SHFL_SCAN.kernel, SHFL_SCAN.kernel.schedules[0]
    steps = kernel.steps("cuda", schedule, 8192, 2**31 - 1)
    assert steps[1].arguments[2] == ("default", ("partial_sums", bytes(8)))
    assert steps[2].arguments[0] == ("offset", (0, 256 * 4))
    far = dataclasses.replace(
        kernel,
        launches=(Dispatch("uniform_add", grid=(1, 1, 1), arguments=("data + n + 1", "p", "n")),),
    )
    with pytest.raises(InvalidArgument, match="within the buffer's 8192"):
        far.steps("cuda", schedule, 8192, 2**31 - 1)


def test_a_default_that_is_no_null_pointer_or_number_must_be_named():
    """A left-out parameter whose default kernel-forge cannot pack says so."""
    from forge.arguments import cuda_arguments

    source = SHFL_SCAN.kernel.sources["cuda"].replace("= NULL", "= global_sums")
    kernel = dataclasses.replace(SHFL_SCAN.kernel, sources={"cuda": source})
    with pytest.raises(InvalidArgument, match="default 'global_sums' is no null pointer"):
        cuda_arguments(kernel, "shfl_scan_test", ("partial_sums", "width"), source, 8192)
    number = source.replace("int width, int *partial_sums = global_sums", "int width = 32")
    kernel = dataclasses.replace(kernel, sources={"cuda": number})
    found = cuda_arguments(kernel, "shfl_scan_test", ("data",), number, 8192)
    assert found[1] == ("default", ("width", np.int32(32).tobytes()))


def _mismatch(got: float, want: float) -> SimpleNamespace:
    from oracle._compare import compare
    from oracle._results import OutputCheck

    comparison = compare(np.array([got], np.float32), np.array([want], np.float32))
    check = OutputCheck(label="results", comparison=comparison, count=1)
    return SimpleNamespace(verdict=Verdict.MISMATCH, outputs={"results": check})


def test_a_kernel_computing_in_half_is_told_why_a_float_reference_fails_it():
    """No device needed: fp16ScalarProduct adds its products in half (``__hfma2``,
    ``__hadd2``); against a float64 dot product, 90 of its 128 f32 results were off by 1
    to 3 in 5310 on lavapipe (whole numbers past 2048 round to even in half), and the
    report said nothing of half. It now names the precision and both ways to a pass; an
    error far past half's roundings, or a kernel without half arithmetic, gets no note."""
    from oracle._builtins import _half_arithmetic_note

    kernel = FP16_INTRINSICS.kernel
    for target in ("cuda", "wgsl"):
        (note,) = _half_arithmetic_note(_mismatch(5313.0, 5310.0), kernel, target)
        assert "computes in half" in note and ".astype(np.float16)" in note
    assert not _half_arithmetic_note(_mismatch(2048.0, 4096.0), kernel, "cuda")
    assert not _half_arithmetic_note(_mismatch(5313.0, 5310.0), ARGMAX.kernel, "cuda")


def test_the_oracle_catches_the_fp16_sample_starting_each_block_at_blockdim_plus_blockidx(
    request,
):
    """fp16ScalarProduct's loops start at ``threadIdx.x + blockDim.x + blockIdx.x``
    (``*`` meant): the blocks read overlapping ranges and the first 128 pairs never, and
    the sample's own check compares its two kernels, which share the line. Judged
    against the products it means, its port (the same loop) fails; the corpus judges
    it against what it reads (its original passes there)."""
    require_available(request.config, "wgpu")

    def intended(a, b, results, p):
        results[:] = fp16_scalar_products(a, b, p["size"], intended=True)

    kernel = dataclasses.replace(FP16_INTRINSICS.kernel, reference=intended)
    ev = oracle.evaluate("wgpu", kernel, size=5000, samples=0)
    assert ev.verdict is Verdict.MISMATCH, ev.report()


def test_the_sample_means_schedule_of_the_partial_scan_spans_one_block():
    """The sums' scan runs one block of min(n / 256, 256) threads: the sample's 65536 is
    its most, and smaller sizes keep whole warps of sums (8192: one warp)."""
    launches = SHFL_SCAN.kernel.launches_at(SHFL_SCAN.kernel.size(65536))
    assert launches[1].grid == (1, 1, 1) and launches[1].schedule == {"cuda": Schedule(256)}

"""``mma=1``: a mixed-precision matmul on CUDA's tensor cores through WMMA. NVRTC
compiles it here (the PTX holds the tensor-core instructions); it is judged against the
reference on the GPU machine (``test_library`` runs the library's mma schedules, and
the test below every layout at sizes that fill no tile)."""

from __future__ import annotations

import re

import pytest

import forge
import oracle
from forge import Schedule, UnsupportedFeature, ir
from forge.kernels.linalg import GEMM, GEMM_BF16, GEMM_F16, MMA_SCHEDULES
from oracle.pytest_plugin import require_available

LAYOUTS = [("row", "row"), ("col", "row"), ("row", "col"), ("col", "col")]


def _mixed(inputs: str, a_layout: str, b_layout: str):
    return ir.kernel(
        f"mma_{inputs}_{a_layout}_{b_layout}",
        ir.matmul("f32", a_layout, b_layout, input_dtype=inputs),
        defaults={"alpha": 1.5, "beta": 0.5},
        schedules=MMA_SCHEDULES,
        domain={n: (-2.0, 2.0) for n in "abc"},
        nonfinite_inputs=False,
        tolerance=GEMM_BF16.tolerance,
        test_sizes=(67, 1, 130),
    )


def test_mma_is_part_of_the_schedule_text():
    schedule = Schedule.parse("wg=32x4,tile=64x64x32,mma=1")
    assert schedule.mma and str(schedule) == "wg=32x4,ipt=1,vec=1,tile=64x64x32,mma=1"


@pytest.mark.parametrize("inputs", ["f16", "bf16"])
@pytest.mark.parametrize("a_layout, b_layout", LAYOUTS)
def test_tensor_core_gemms_compile_to_wmma_instructions(inputs, a_layout, b_layout):
    from backends.cuda import compile_cuda

    kernel = _mixed(inputs, a_layout, b_layout)
    for schedule in MMA_SCHEDULES:
        source = kernel.source("cuda", schedule)
        assert "#include <mma.h>" in source
        ptx = compile_cuda(source, kernel.entry_point, arch="sm_90", output="ptx").decode()
        assert re.search(r"wmma\.mma\.sync\.aligned\.row\.row\.m16n16k16\.f32\.", ptx)
        assert forge.emit.workgroup_storage_bytes(kernel, schedule, "cuda") <= 48 * 1024


@pytest.mark.parametrize(
    "kernel, schedule, reason",
    [
        (GEMM_F16, MMA_SCHEDULES[0], None),
        (GEMM, MMA_SCHEDULES[0], "f16 or bf16 inputs into f32"),
        (GEMM_F16, Schedule((32, 2), tile=(64, 64, 32), mma=True), "needs 4 warps"),
        (GEMM_F16, Schedule((64, 2), tile=(64, 64, 32), mma=True), "whole warps"),
        (GEMM_F16, Schedule((32, 4), tile=(64, 64, 24), mma=True), "BK of 16"),
        (GEMM_F16, Schedule((32, 4), tile=(64, 64, 32, 2, 1), mma=True), "BMxBNxBKxSTAGES"),
        (GEMM_F16, Schedule((32, 4), tile=(64, 64, 32, 1), mma=True), "no register prefetch"),
    ],
)
def test_mma_schedules_are_checked_before_emitting(kernel, schedule, reason):
    if reason is None:
        kernel.check_schedule(schedule, target="cuda")
        return
    with pytest.raises(UnsupportedFeature, match=reason):
        kernel.check_schedule(schedule, target="cuda")


def test_wgsl_refuses_mma_saying_why():
    with pytest.raises(UnsupportedFeature, match="unsupported, because WGSL has no matrix"):
        GEMM_F16.source("wgsl", MMA_SCHEDULES[0])


def test_other_patterns_refuse_mma():
    with pytest.raises(UnsupportedFeature, match="mma=1 is a matmul choice"):
        forge.get_kernel("softmax").check_schedule(Schedule((64, 1), mma=True))


@pytest.mark.parametrize("inputs", ["f16", "bf16"])
@pytest.mark.parametrize("a_layout, b_layout", LAYOUTS)
def test_tensor_core_gemms_match_the_reference_on_cuda(request, inputs, a_layout, b_layout):
    require_available(request.config, "cuda")
    kernel = _mixed(inputs, a_layout, b_layout)
    with forge.open_context("cuda") as ctx:
        for schedule in MMA_SCHEDULES:
            for size in kernel.test_sizes:
                ev = oracle.evaluate(ctx, kernel, schedule, size=size, samples=1)
                assert ev.passed, ev.report()

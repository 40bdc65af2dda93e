"""``mma=1`` with ``tile=BMxBNxBKxSTAGES``: the tensor-core GEMM through mma.sync m16n8k16,
ldmatrix and a cp.async pipeline (``forge/emit/_mma_pipeline.py``).

Here, without a GPU: NVRTC compiles every layout for sm_80 and sm_90 (the PTX holds the
instructions the path is about), the schedule rules refuse what cannot work and say
why, and the generated CUDA C itself runs on the CPU (``tests/cuda_emulation.py``: each
CUDA thread a host thread, the PTX primitives emulated from the ISA's descriptions),
which checks its index math, swizzle, fragment layouts, edge tiles, both load paths and
the pipeline's waits against float64 products. On the GPU machine the last test judges
every layout with the oracle, and ``test_library`` the library's schedules."""

from __future__ import annotations

import re

import numpy as np
import pytest

import forge
import oracle
from forge import Schedule, UnsupportedFeature, ir
from forge.kernels.linalg import (
    GEMM_BF16,
    GEMM_F16,
    MMA_PIPELINE_SCHEDULES,
    MMA_TUNABLES,
    accumulation_tolerance,
)
from oracle.pytest_plugin import require_available
from tests.cuda_emulation import compiler, emulate_matmul

LAYOUTS = [("row", "row"), ("col", "row"), ("row", "col"), ("col", "col")]
FIRST = MMA_PIPELINE_SCHEDULES[0]  # 128x128x32, 3 stages, 4 warps: 48 KiB static
DYNAMIC = MMA_PIPELINE_SCHEDULES[4]  # 128x256x64, 3 stages, 8 warps: 144 KiB dynamic


def _mixed(inputs: str, a_layout: str, b_layout: str, sizes=(67, 1, 130, 136, 264)):
    return ir.kernel(
        f"mma_{inputs}_{a_layout}_{b_layout}",
        ir.matmul("f32", a_layout, b_layout, input_dtype=inputs),
        defaults={"alpha": 1.5, "beta": 0.5},
        schedules=MMA_PIPELINE_SCHEDULES,
        domain={n: (-2.0, 2.0) for n in "abc"},
        nonfinite_inputs=False,
        tolerance=GEMM_BF16.tolerance,
        test_sizes=sizes,
    )


# -- compiled by NVRTC -------------------------------------------------------------------
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize(
    "inputs, a_layout, b_layout", [("f16", a, b) for a, b in LAYOUTS] + [("bf16", "row", "row")]
)
def test_pipelined_gemms_compile_to_mma_sync_ldmatrix_and_cp_async(
    arch, inputs, a_layout, b_layout
):
    from backends.cuda import compile_cuda

    kernel = _mixed(inputs, a_layout, b_layout)
    source = kernel.source("cuda", FIRST)
    ptx = compile_cuda(source, kernel.entry_point, arch=arch, output="ptx").decode()
    # 2 k16 steps of a 64x64 warp tile: 2 x 4 x 8 mma; 4 + 4 ldmatrix for each of a
    # block's first k16 step, the second one and the next tile's first
    assert len(re.findall(rf"mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.{inputs}", ptx)) == 64
    plain = len(re.findall(r"ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16", ptx))
    trans = len(re.findall(r"ldmatrix\.sync\.aligned\.m8n8\.x4\.trans\.shared\.b16", ptx))
    # an operand stored along m or n (col-major a, row-major b) is read transposed
    assert trans == 12 * ((a_layout == "col") + (b_layout == "row")) and plain + trans == 24
    assert "cp.async.cg.shared.global" in ptx and "cp.async.wait_group 1;" in ptx
    assert "st.shared.v4.b32" in ptx  # the register path of unaligned operands
    assert ".local" not in ptx  # fragments and accumulators stay in registers


@pytest.mark.parametrize("schedule", MMA_PIPELINE_SCHEDULES, ids=str)
def test_every_library_pipeline_assembles_for_sm_90(schedule):
    from backends.cuda import compile_cuda

    kernel = GEMM_F16 if schedule.tile[0] == 128 else GEMM_BF16
    assert compile_cuda(kernel.source("cuda", schedule), kernel.entry_point, arch="sm_90")


def test_pipelines_over_48_kib_use_dynamic_shared_memory_the_launch_asks_for():
    static = GEMM_F16.source("cuda", FIRST)
    assert "__shared__ __align__(128) unsigned char fg_smem[49152];" in static
    assert GEMM_F16.steps("cuda", FIRST, 4096)[0].shared_bytes == 0
    dynamic = GEMM_F16.source("cuda", DYNAMIC)
    assert "extern __shared__ __align__(128) unsigned char fg_smem[];" in dynamic
    step = GEMM_F16.steps("cuda", DYNAMIC, 4096)[0]
    assert step.shared_bytes == 3 * (128 + 256) * 64 * 2 == 147456
    assert step.workgroups == (32 * 16, 1, 1) and step.block == (32, 8, 1)
    assert forge.emit.dynamic_shared_bytes(GEMM_F16.body.pattern, GEMM_F16.schedules[0]) == 0
    # other IR kernels ask for none, and keep their semantic hashes
    assert forge.get_kernel("gemm").shared_bytes is None
    assert ir.with_shape(GEMM_F16, n=ir.SIZE + 8).steps("cuda", DYNAMIC, 64)[0].shared_bytes


def test_the_tunables_search_the_pipelined_path():
    assert set(MMA_TUNABLES) == {"wg", "tile", "mma"} and GEMM_BF16.tunables
    accepted = 0
    for wg in MMA_TUNABLES["wg"]:
        for tile in MMA_TUNABLES["tile"]:
            try:
                GEMM_BF16.check_schedule(Schedule(wg, tile=tile, mma=True), target="cuda")
                accepted += 1
            except UnsupportedFeature as exc:
                assert "spill" in str(exc) or "over the limit" in str(exc), exc
    assert accepted >= 30


# -- the rules ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "schedule, reason",
    [
        (Schedule((32, 4), tile=(128, 128, 32, 9), mma=True), "2 to 8"),
        (Schedule((32, 4), tile=(128, 128, 24, 2), mma=True), "multiples of 16"),
        (Schedule((32, 4), tile=(128, 72, 32, 2), mma=True), "multiples of 16"),
        (Schedule((32, 4), tile=(16, 16, 16, 2), mma=True), "does not split over 4 warps"),
        (Schedule((32, 2), tile=(128, 128, 32, 2), mma=True), "256 f32 accumulators"),
        (Schedule((32, 8), tile=(256, 128, 64, 5), mma=True), "over the limit of 232448"),
        (Schedule((32, 4), tile=(64, 64, 32, 2), vector_width=4, mma=True), "vec=1"),
        (Schedule((32, 4, 2), tile=(64, 64, 32, 2), mma=True), "32 x W"),
    ],
)
def test_pipelined_schedules_are_checked_before_emitting(schedule, reason):
    with pytest.raises(UnsupportedFeature, match=reason):
        GEMM_F16.check_schedule(schedule, target="cuda")


def test_the_swizzle_needs_rows_of_16_32_or_64k_halves():
    # a col-major a keeps its tile along m: 48 halves a row cannot be swizzled
    kernel = _mixed("f16", "col", "row")
    schedule = Schedule((32, 3), tile=(48, 64, 32, 2), mma=True)
    with pytest.raises(UnsupportedFeature, match="16, 32 or a multiple of 64 halves"):
        kernel.check_schedule(schedule, target="cuda")
    _mixed("f16", "row", "row").check_schedule(schedule, target="cuda")  # along k: fine


def test_a_device_with_less_shared_memory_refuses_the_deep_pipelines():
    class Small:  # an sm_86 device: 99 KiB a block
        max_workgroup_storage_bytes = 99 * 1024

    forge.emit.check(GEMM_F16, MMA_PIPELINE_SCHEDULES[3], "cuda", Small())  # 96 KiB: fits
    with pytest.raises(UnsupportedFeature, match="dynamic shared memory on cuda"):
        forge.emit.check(GEMM_F16, DYNAMIC, "cuda", Small())


def test_a_kernel_that_does_not_ask_for_dynamic_shared_memory_is_refused():
    import dataclasses

    bare = dataclasses.replace(GEMM_F16, shared_bytes=None)
    bare.check_schedule(FIRST, target="cuda")  # static: nothing to ask for
    with pytest.raises(UnsupportedFeature, match="does not ask for at launch"):
        bare.check_schedule(DYNAMIC, target="cuda")


def test_wgsl_refuses_the_pipeline_saying_why():
    with pytest.raises(UnsupportedFeature, match="WGSL has no matrix"):
        GEMM_F16.source("wgsl", FIRST)


# -- run on the CPU --------------------------------------------------------------------------
def _flat(x: np.ndarray, layout: str) -> np.ndarray:
    return (x if layout == "row" else x.T).reshape(-1).copy()


_EMULATED = [
    # (schedule, inputs, layouts, m, n, k, early copies, a/b element offsets)
    (FIRST, "f16", ("row", "row"), 136, 264, 72, False, 0),  # cp.async, partial tiles
    (FIRST, "bf16", ("col", "col"), 136, 264, 72, True, 0),
    (FIRST, "f16", ("row", "col"), 130, 67, 67, False, 0),  # odd sizes: register path
    (FIRST, "bf16", ("col", "row"), 200, 136, 96, False, 1),  # offset views: register path
    (FIRST, "f16", ("col", "row"), 1, 1, 1, True, 0),
    (
        Schedule((32, 4), tile=(64, 256, 32, 2), mma=True),
        "f16",
        ("col", "row"),
        72,
        264,
        40,
        False,
        0,
    ),
    (
        Schedule((32, 4), tile=(32, 32, 16, 4), mma=True),
        "f16",
        ("row", "col"),
        40,
        33,
        37,
        False,
        0,
    ),
    (DYNAMIC, "f16", ("row", "row"), 136, 264, 136, False, 0),  # 3 k steps of 64
    (MMA_PIPELINE_SCHEDULES[5], "bf16", ("col", "col"), 264, 136, 136, True, 0),
]


@pytest.mark.skipif(compiler() is None, reason="no host C++ compiler (g++ or clang++)")
@pytest.mark.parametrize(
    "schedule, inputs, layouts, m, n, k, early, offset",
    _EMULATED,
    ids=[
        f"{'x'.join(map(str, s.tile))}-{i}-{a}-{b}-{m}x{n}x{k}-{'early' if e else 'late'}"
        + ("-offset" if o else "")
        for s, i, (a, b), m, n, k, e, o in _EMULATED
    ],
)
def test_the_generated_cuda_computes_the_product_on_the_cpu(
    schedule, inputs, layouts, m, n, k, early, offset
):
    kernel = _mixed(inputs, *layouts)  # m, n and k are uniforms: any shape runs
    dtype = np.dtype(kernel.buffer("a").dtype)
    rng = np.random.default_rng(m * n + k)
    a = rng.uniform(-2, 2, (m, k)).astype(dtype)
    b = rng.uniform(-2, 2, (k, n)).astype(dtype)
    c = rng.uniform(-2, 2, (m, n)).astype(np.float32)
    got = emulate_matmul(
        kernel,
        schedule,
        _flat(a, layouts[0]),
        _flat(b, layouts[1]),
        c,
        {"m": m, "n": n, "k": k},
        1.5,
        0.5,
        early=early,
        offsets=(offset, offset),
    )
    want = 1.5 * (a.astype(np.float64) @ b.astype(np.float64)) + 0.5 * c
    budget = accumulation_tolerance(k, 2.0)
    error = np.abs(got.c - want)
    assert np.all(error <= budget["atol"] + budget["rtol"] * np.abs(want)), error.max()
    assert got.conflicts == 0, "the swizzle leaves ldmatrix bank conflicts"
    aligned = offset == 0 and (k if layouts[0] == "row" else m) % 8 == 0
    aligned = aligned and (n if layouts[1] == "row" else k) % 8 == 0
    assert (got.async_copies > 0) == aligned and (got.sync_stores > 0) == (not aligned)


@pytest.mark.skipif(compiler() is None, reason="no host C++ compiler (g++ or clang++)")
def test_c_is_not_read_when_beta_is_zero_and_blocks_stride_over_tiles():
    kernel = _mixed("f16", "row", "row")
    rng = np.random.default_rng(3)
    a = rng.uniform(-2, 2, (136, 96)).astype(np.float16)
    b = rng.uniform(-2, 2, (96, 200)).astype(np.float16)
    c = np.full((136, 200), np.nan, np.float32)  # any read of c would show
    schedule = Schedule((32, 4), tile=(64, 64, 32, 3), mma=True)
    dims = {"m": 136, "n": 200, "k": 96}
    got = emulate_matmul(kernel, schedule, a, b, c, dims, 1.0, 0.0, early=False, max_blocks=2)
    want = a.astype(np.float64) @ b.astype(np.float64)
    assert np.abs(got.c - want).max() <= accumulation_tolerance(96, 2.0)["atol"]


_MUTANTS = {
    # each a bug the pipeline could have, and a run that shows it
    "no wait before the barrier": (
        lambda s: s.replace("fg_cp_async_wait_stage();\n", "", 1),
        False,
    ),
    "no barrier after the wait": (
        lambda s: s.replace(
            "fg_cp_async_wait_stage();\n            __syncthreads();",
            "fg_cp_async_wait_stage();",
            1,
        ),
        True,
    ),
    "no wait nor barrier before a block's first fragments": (
        lambda s: s.replace("fg_cp_async_wait_stage();\n        __syncthreads();", "", 1),
        True,
    ),
    "stores unswizzled": (lambda s: s.replace("fg_lidx ^ (", "fg_lidx + 0 * (", 1), True),
    "refills the stage being read": (lambda s: s.replace("fg_next % 3u", "fg_step % 3u", 1), True),
    "a fragment's k step off by one chunk": (
        lambda s: s.replace("((2u + fg_a_chunk)", "((0u + fg_a_chunk)", 1),
        True,
    ),
}


@pytest.mark.skipif(compiler() is None, reason="no host C++ compiler (g++ or clang++)")
@pytest.mark.parametrize("mutant", list(_MUTANTS))
def test_the_cpu_run_finds_a_broken_pipeline(mutant):
    """The twins of the passing runs above, each with one bug: each must fail."""
    mutate, early = _MUTANTS[mutant]
    kernel = _mixed("f16", "row", "row")
    rng = np.random.default_rng(5)
    a = rng.uniform(-2, 2, (136, 72)).astype(np.float16)
    b = rng.uniform(-2, 2, (72, 264)).astype(np.float16)
    c = np.zeros((136, 264), np.float32)
    dims = {"m": 136, "n": 264, "k": 72}
    source = kernel.source("cuda", FIRST)
    assert mutate(source) != source, "the mutation no longer applies"
    try:
        got = emulate_matmul(kernel, FIRST, a, b, c, dims, 1.0, 0.0, early=early, mutate=mutate)
    except AssertionError as exc:  # a race, found whatever the threads' timing
        assert "EMULATION ERROR: race" in str(exc), exc
        return
    want = a.astype(np.float64) @ b.astype(np.float64)
    assert np.abs(got.c - want).max() > 0.1 or got.conflicts > 0


# -- on the GPU --------------------------------------------------------------------------
@pytest.mark.parametrize("inputs", ["f16", "bf16"])
@pytest.mark.parametrize("a_layout, b_layout", LAYOUTS)
def test_pipelined_gemms_match_the_reference_on_cuda(request, inputs, a_layout, b_layout):
    """Every pipelined library schedule at sizes that fill no tile: 67, 1 and 130 (the
    register path), 136 and 264 (cp.async, partial tiles along m, n and k), and a
    non-square 264 x 136 x 200 (m, n and k each different)."""
    require_available(request.config, "cuda")
    kernel = _mixed(inputs, a_layout, b_layout)
    wide = ir.with_shape(kernel, m=ir.SIZE, n=136, k=200)
    with forge.open_context("cuda") as ctx:
        for schedule in MMA_PIPELINE_SCHEDULES:
            for k, size in [(kernel, s) for s in kernel.test_sizes] + [(wide, 264)]:
                ev = oracle.evaluate(ctx, k, schedule, size=size, samples=1)
                assert ev.passed, ev.report()


def test_gemm_f16_stays_tunable_where_there_is_no_mma(request):
    """gemm_f16 runs on WGSL too: its tuner searches its declared schedules, so on wgpu
    the SIMT ones remain (with the tensor-core tunables, every candidate was pruned)."""
    require_available(request.config, "wgpu")
    assert not GEMM_F16.tunables
    with forge.open_context("wgpu") as ctx:
        planned = oracle.tune(ctx, GEMM_F16, size=64, dry_run=True, cache=False)
    assert planned.by_status("candidate"), planned.report()

"""``mma=1`` with ``tile=BMxBNxBKxSTAGES`` for f32 inputs declared TF32: the tensor-core
GEMM through mma.sync m16n8k8, with every fragment register rounded by
``cvt.rna.tf32.f32`` (``forge/emit/_mma_pipeline.py``, "TF32").

Here, without a GPU: NVRTC compiles both ways of reading each operand for sm_90 (a tile
along k through ``ldmatrix``, one along m or n a float at a time), the rules refuse what
cannot work, and the generated CUDA C runs on the CPU (``tests/cuda_emulation.py``,
which emulates m16n8k8 with a tensor core's truncation of unrounded operands, counts the
bank conflicts of the 32-bit loads and finds races), against float64 products of the
inputs rounded as the reference rounds them (``forge.ir.to_tf32``); a twin without the
rounding fails. On the GPU machine the last test judges every layout and library
schedule with the oracle (``test_library`` runs gemm_tf32 too, and
``test_emit_validation`` compiles each of its schedules)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import forge
import oracle
from forge import Schedule, UnsupportedFeature, ir
from forge.ir import to_tf32
from forge.kernels.linalg import (
    GEMM_TF32,
    MMA_TF32_SCHEDULES,
    MMA_TF32_TUNABLES,
    accumulation_tolerance,
)
from oracle.pytest_plugin import require_available
from tests.cuda_emulation import compiler, emulate_matmul

LAYOUTS = [("row", "row"), ("col", "row"), ("row", "col"), ("col", "col")]
WIDE = MMA_TF32_SCHEDULES[0]  # 128x128x16, 3 stages, 8 warps of 64x32: 48 KiB static
SQUARE = MMA_TF32_SCHEDULES[1]  # 128x128x16, 3 stages, 4 warps of 64x64


def _tf32(a_layout: str, b_layout: str, sizes=(67, 1, 130, 136, 264), inputs: str = "tf32"):
    return ir.kernel(
        f"mma_{inputs}_{a_layout}_{b_layout}",
        ir.matmul("f32", a_layout, b_layout, input_dtype=inputs),
        defaults={"alpha": 1.5, "beta": 0.5},
        schedules=MMA_TF32_SCHEDULES,
        domain={n: (-2.0, 2.0) for n in "abc"},
        nonfinite_inputs=False,
        tolerance=GEMM_TF32.tolerance,
        test_sizes=sizes,
    )


# -- compiled by NVRTC -------------------------------------------------------------------
@pytest.mark.parametrize("a_layout, b_layout", [("row", "row"), ("col", "col")])
def test_tf32_pipelines_compile_to_m16n8k8_with_every_fragment_rounded(a_layout, b_layout):
    """Row-major a and col-major b lie along k (ldmatrix); col-major a and row-major b
    along m and n (ld.shared.b32): these two layouts read each operand both ways."""
    from backends.cuda import compile_cuda

    kernel = _tf32(a_layout, b_layout)
    source = kernel.source("cuda", SQUARE)
    ptx = compile_cuda(source, kernel.entry_point, arch="sm_90", output="ptx").decode()
    # 2 k8 steps of a 64x64 warp tile: 2 x 4 x 8 mma; fragments of a block's first k8
    # step, its second and the next tile's first: 3 x 4 16-wide blocks of each operand,
    # one ldmatrix.x4 each along k, 4 ld.shared.b32 each along m or n
    mma = r"mma\.sync\.aligned\.m16n8k8\.row\.col\.f32\.tf32\.tf32\.f32"
    assert len(re.findall(mma, ptx)) == 64
    assert len(re.findall(r"ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16", ptx)) == 12
    assert len(re.findall(r"ld\.shared\.b32", ptx)) == 48
    assert "ldmatrix.sync.aligned.m8n8.x4.trans" not in ptx  # no .trans for 32-bit elements
    assert len(re.findall(r"cvt\.rna\.tf32\.f32", ptx)) == 3 * 8 * 4  # every register
    assert "cp.async.cg.shared.global" in ptx and "cp.async.wait_group 1;" in ptx
    assert "st.shared.v4.b32" in ptx  # the register path of unaligned operands
    assert ".local" not in ptx


def test_tf32_stages_hold_floats_and_ask_for_dynamic_shared_memory_past_48_kib():
    assert "unsigned char fg_smem[49152];" in GEMM_TF32.source("cuda", WIDE)
    step = GEMM_TF32.steps("cuda", MMA_TF32_SCHEDULES[2], 4096)[0]  # 128x128x32x3
    assert step.shared_bytes == 3 * (128 + 128) * 32 * 4
    assert GEMM_TF32.steps("cuda", WIDE, 4096)[0].shared_bytes == 0


def test_the_tf32_tunables_search_the_pipelined_path():
    kernel = GEMM_TF32
    accepted = 0
    for wg in MMA_TF32_TUNABLES["wg"]:
        for tile in MMA_TF32_TUNABLES["tile"]:
            try:
                kernel.check_schedule(Schedule(wg, tile=tile, mma=True), target="cuda")
                accepted += 1
            except UnsupportedFeature as exc:
                assert "spill" in str(exc) or "over the limit" in str(exc), exc
    assert accepted >= 30


# -- the rules ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "layouts, schedule, reason",
    [
        (("row", "row"), Schedule((32, 4), tile=(128, 128, 12, 3), mma=True), "BK of 8"),
        (("row", "row"), Schedule((32, 4), tile=(64, 64, 32), mma=True), "pipeline only"),
        # a col-major a keeps its tile along m: 48 floats a row cannot be swizzled
        (
            ("col", "row"),
            Schedule((32, 3), tile=(48, 64, 16, 2), mma=True),
            "8, 16 or a multiple of 32 floats",
        ),
    ],
)
def test_tf32_schedules_are_checked_before_emitting(layouts, schedule, reason):
    with pytest.raises(UnsupportedFeature, match=reason):
        _tf32(*layouts).check_schedule(schedule, target="cuda")


def test_bk_8_is_a_tf32_pipeline_and_not_a_halves_one():
    schedule = Schedule((32, 4), tile=(64, 64, 8, 2), mma=True)
    _tf32("row", "col").check_schedule(schedule, target="cuda")
    halves = ir.kernel("h", ir.matmul("f32", input_dtype="f16"), defaults=GEMM_TF32.defaults)
    with pytest.raises(UnsupportedFeature, match="multiples of 16"):
        halves.check_schedule(schedule, target="cuda")


# -- run on the CPU ----------------------------------------------------------------------
def _flat(x: np.ndarray, layout: str) -> np.ndarray:
    return (x if layout == "row" else x.T).reshape(-1).copy()


_EMULATED = [
    # (schedule, layouts, m, n, k, early copies, a/b element offsets)
    (SQUARE, ("row", "row"), 136, 72, 40, False, 0),  # cp.async, partial tiles
    (WIDE, ("col", "col"), 72, 136, 40, True, 0),  # 64x32 warp tiles
    # one warp, both operands along m or n, a's rows 16 floats (4 chunks), odd sizes and
    # offset views (4-byte aligned only): the register path
    (Schedule((32, 1), tile=(16, 64, 8, 2), mma=True), ("col", "row"), 40, 67, 37, False, 1),
]


def _emulated(
    schedule, layouts, m, n, k, early=False, offset=0, mutate=None, inputs="tf32", want="rna"
):
    """The emulated kernel of ``inputs`` TF32 and the float64 product of the inputs
    reduced to TF32 by ``want``'s rounding (``to_tf32``)."""
    kernel = _tf32(*layouts, inputs=inputs)
    rng = np.random.default_rng(m * n + k)
    a = rng.uniform(-2, 2, (m, k)).astype(np.float32)
    b = rng.uniform(-2, 2, (k, n)).astype(np.float32)
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
        mutate=mutate,
    )
    rounded = to_tf32(a, want).astype(np.float64) @ to_tf32(b, want).astype(np.float64)
    return got, 1.5 * rounded + 0.5 * c


@pytest.mark.skipif(compiler() is None, reason="no host C++ compiler (g++ or clang++)")
@pytest.mark.parametrize(
    "schedule, layouts, m, n, k, early, offset",
    _EMULATED,
    ids=[
        f"{'x'.join(map(str, s.tile))}-{a}-{b}-{m}x{n}x{k}-{'early' if e else 'late'}"
        + ("-offset" if o else "")
        for s, (a, b), m, n, k, e, o in _EMULATED
    ],
)
def test_the_generated_tf32_cuda_computes_the_rounded_product_on_the_cpu(
    schedule, layouts, m, n, k, early, offset
):
    got, want = _emulated(schedule, layouts, m, n, k, early, offset)
    budget = accumulation_tolerance(k, 2.0)
    error = np.abs(got.c - want)
    assert np.all(error <= budget["atol"] + budget["rtol"] * np.abs(want)), error.max()
    assert got.conflicts == 0, "bank conflicts in the fragment loads"
    along_k = (layouts[0] == "row", layouts[1] == "col")
    assert (got.ldmatrix > 0) == any(along_k) and (got.words > 0) == (not all(along_k))
    aligned = offset == 0 and (k if layouts[0] == "row" else m) % 4 == 0
    aligned = aligned and (n if layouts[1] == "row" else k) % 4 == 0
    assert (got.async_copies > 0) == aligned and (got.sync_stores > 0) == (not aligned)


@pytest.mark.skipif(compiler() is None, reason="no host C++ compiler (g++ or clang++)")
def test_the_cpu_run_finds_fragments_that_skip_the_rounding():
    """Without cvt.rna.tf32.f32, the tensor core reads the f32 bits truncated: about a
    TF32 ulp per input, biased toward zero, many times the accumulation budget (both
    ways of reading an operand lose it: col-major a along m, col-major b along k)."""
    source = _tf32("col", "col").source("cuda", SQUARE)

    def unrounded(text: str) -> str:
        return text.replace("= fg_cvt_tf32(", "= (")

    assert unrounded(source) != source
    got, want = _emulated(SQUARE, ("col", "col"), 72, 72, 40, mutate=unrounded)
    assert np.abs(got.c - want).max() > 10 * accumulation_tolerance(40, 2.0)["atol"]


@pytest.mark.skipif(compiler() is None, reason="no host C++ compiler (g++ or clang++)")
def test_truncated_tf32_fragments_skip_the_cvt_and_compute_the_truncated_product_on_the_cpu():
    """``input_dtype="tf32rz"``: the fragments go to mma.sync as loaded, which truncates
    them, and that is the product the reference makes; the rounded kernel's output is
    many times the budget away from it (the two precisions are told apart both ways)."""
    truncated = _tf32("col", "col", inputs="tf32rz")
    assert "fg_cvt_tf32(" not in truncated.source("cuda", SQUARE).split("__global__")[1]
    budget = accumulation_tolerance(40, 2.0)
    got, want = _emulated(SQUARE, ("col", "col"), 72, 72, 40, inputs="tf32rz", want="rz")
    assert np.all(np.abs(got.c - want) <= budget["atol"] + budget["rtol"] * np.abs(want))
    got, want = _emulated(SQUARE, ("col", "col"), 72, 72, 40, inputs="tf32", want="rz")
    assert np.abs(got.c - want).max() > 10 * budget["atol"]


# -- on the GPU --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "a_layout, b_layout, inputs",
    [(a, b, "tf32") for a, b in LAYOUTS] + [("row", "row", "tf32rz"), ("row", "col", "tf32rz")],
)
def test_tf32_pipelines_match_the_reference_on_cuda(request, a_layout, b_layout, inputs):
    """Every tf32 library schedule at sizes that fill no tile: 67, 1 and 130 (the
    register path), 136 and 264 (cp.async, partial tiles along m, n and k), and a
    non-square 264 x 136 x 200; the reference rounds the inputs to TF32 as
    cvt.rna.tf32.f32 does (``"tf32rz"``: truncates them, as the tensor core reads f32)
    and sums in float64, within the accumulation tolerance."""
    require_available(request.config, "cuda")
    kernel = _tf32(a_layout, b_layout, inputs=inputs)
    wide = ir.with_shape(kernel, m=ir.SIZE, n=136, k=200)
    with forge.open_context("cuda") as ctx:
        for schedule in MMA_TF32_SCHEDULES:
            for k, size in [(kernel, s) for s in kernel.test_sizes] + [(wide, 264)]:
                ev = oracle.evaluate(ctx, k, schedule, size=size, samples=1)
                assert ev.passed, ev.report()

"""``mma=1`` on a ``128 x G`` workgroup: the Hopper GEMM through ``wgmma.mma_async``
(sm_90a), fed by cp.async into 128-byte-swizzled stages (``forge/emit/_wgmma.py``).

Here, without a GPU: NVRTC compiles every layout for sm_90a (the PTX holds one wgmma per
k16 step with the transpose flags of the operands' layouts), the rules refuse what the
path cannot do and say why, and a device without wgmma (anything but compute capability
9.0) refuses the schedules by name. On an H100 or H200 the oracle judges every layout at
sizes that fill no tile, unaligned ones (the register load path) and a non-square
shape; ``test_library`` runs the library's schedules."""

from __future__ import annotations

import dataclasses
import re

import pytest

import forge
import oracle
from forge import Schedule, UnsupportedFeature, ir
from forge.emit import _wgmma
from forge.kernels.linalg import (
    GEMM_BF16,
    GEMM_F16,
    GEMM_TF32,
    GEMM_TF32_NT,
    GEMM_TF32RZ_NT,
    WGMMA_SCHEDULES,
    WGMMA_TF32_SCHEDULES,
)
from oracle.pytest_plugin import require_available

LAYOUTS = [("row", "row"), ("col", "row"), ("row", "col"), ("col", "col")]
BIG = WGMMA_SCHEDULES[0]  # 128x256x64, 4 stages, 2 warpgroups


def _mixed(inputs: str, a_layout: str, b_layout: str, sizes=(67, 1, 130, 136, 264)):
    return ir.kernel(
        f"wgmma_{inputs}_{a_layout}_{b_layout}",
        ir.matmul("f32", a_layout, b_layout, input_dtype=inputs),
        defaults={"alpha": 1.5, "beta": 0.5},
        schedules=WGMMA_SCHEDULES,
        domain={n: (-2.0, 2.0) for n in "abc"},
        nonfinite_inputs=False,
        tolerance=GEMM_BF16.tolerance,
        test_sizes=sizes,
    )


# -- compiled by NVRTC -------------------------------------------------------------------
@pytest.mark.parametrize(
    "inputs, a_layout, b_layout", [("f16", a, b) for a, b in LAYOUTS] + [("bf16", "row", "row")]
)
def test_wgmma_gemms_compile_for_sm_90a_with_the_layouts_transpose_flags(
    inputs, a_layout, b_layout
):
    from backends.cuda import compile_cuda

    kernel = _mixed(inputs, a_layout, b_layout)
    ptx = compile_cuda(
        kernel.source("cuda", BIG), kernel.entry_point, arch="sm_90a", output="ptx"
    ).decode()
    calls = re.findall(
        rf"wgmma\.mma_async\.sync\.aligned\.m64n256k16\.f32\.{inputs}\.{inputs}\s*\{{[^}}]*\}},"
        r"\s*%rd\d+,\s*%rd\d+,\s*p,\s*1,\s*1,\s*(\d),\s*(\d);",
        ptx,
    )
    # K-major operands (row-major a, col-major b) untransposed, MN-major ones transposed
    flags = (str(int(a_layout == "col")), str(int(b_layout == "row")))
    assert calls and set(calls) == {flags}, (calls[:2], flags)
    for needed in ("fence.proxy.async.shared::cta", "wgmma.commit_group", "cp.async.cg"):
        assert needed in ptx
    assert re.search(r"wgmma\.wait_group\.sync\.aligned\s+1;", ptx)


@pytest.mark.parametrize("schedule", WGMMA_SCHEDULES, ids=str)
def test_every_library_wgmma_schedule_assembles_for_sm_90a(schedule):
    from backends.cuda import compile_cuda

    assert compile_cuda(GEMM_F16.source("cuda", schedule), GEMM_F16.entry_point, "sm_90a")[:4] == (
        b"\x7fELF"
    )


def test_tf32_wgmma_is_k8_without_transpose_flags_and_rounds_each_stage():
    """TF32 (gemm_tf32_nt: b col-major, both operands K-major): one m64nNk8 per 32 bytes
    of k, no transpose flags (PTX has none for .tf32), and every chunk rounded in place
    by cvt.rna.tf32.f32 before the fence that shows the stage to wgmma."""
    from backends.cuda import compile_cuda

    schedule = WGMMA_TF32_SCHEDULES[0]
    source = GEMM_TF32_NT.source("cuda", schedule)
    assert source.index("fg_round_tf32_chunk(fg_dst);") < source.index("fg_fence_async_shared();")
    ptx = compile_cuda(source, GEMM_TF32_NT.entry_point, arch="sm_90a", output="ptx").decode()
    calls = re.findall(
        r"wgmma\.mma_async\.sync\.aligned\.m64n256k8\.f32\.tf32\.tf32\s*\{[^}]*\},"
        r"\s*%rd\d+,\s*%rd\d+,\s*p,\s*1,\s*1;",
        ptx,
    )
    assert calls, "no wgmma k8 of TF32 without transpose flags"
    assert "cvt.rna.tf32.f32" in ptx and "st.shared.v4.b32" in ptx
    for each in WGMMA_TF32_SCHEDULES:
        image = compile_cuda(GEMM_TF32_NT.source("cuda", each), GEMM_TF32_NT.entry_point)
        assert image[:4] == b"\x7fELF"


def _tf32(a_layout: str, b_layout: str, inputs: str = "tf32") -> forge.KernelSpec:
    """A TF32 GEMM of the library's (gemm_tf32's) contract in the given layouts
    (``inputs="tf32rz"``: gemm_tf32rz_nt's, the inputs truncated)."""
    return ir.kernel(
        f"wgmma_{inputs}_{a_layout}_{b_layout}",
        ir.matmul("f32", a_layout, b_layout, input_dtype=inputs),
        defaults={"alpha": 1.5, "beta": 0.5},
        schedules=WGMMA_TF32_SCHEDULES,
        domain=GEMM_TF32.domain,
        nonfinite_inputs=False,
        tolerance=GEMM_TF32.tolerance,
        test_sizes=GEMM_TF32.test_sizes,
    )


@pytest.mark.parametrize("a_layout, b_layout", LAYOUTS)
def test_tf32_wgmma_transposes_an_operand_along_m_or_n_in_its_rounding_pass(a_layout, b_layout):
    """wgmma reads TF32 only K-major: an operand that lies along m or n (a col-major, b
    row-major) is copied as it lies and written back K-major by the rounding pass, one
    rounded float per K-major row (st.shared.b32), between two barriers: every copy
    landed before any thread reads another's chunks, every read done before any
    write. Both K-major (a row-major, b col-major): each thread rounds its own chunks,
    no barrier. Every schedule compiles for sm_90a."""
    from backends.cuda import compile_cuda

    kernel = _tf32(a_layout, b_layout)
    source = kernel.source("cuda", WGMMA_TF32_SCHEDULES[0])
    rounding = source[source.index("TF32: the tile rounded") :]
    rounding = rounding[: rounding.index("fg_fence_async_shared();")]
    transposed = [x for x, lies in (("a", a_layout == "col"), ("b", b_layout == "row")) if lies]
    for x in "ab":
        column = f"fg_st_tf32_column(fg_dst, fg_{x}_words[fg_it], fg_kk);" in rounding
        assert column == (x in transposed), x
    assert rounding.count("__syncthreads();") == (2 if transposed else 0)
    ptx = compile_cuda(source, kernel.entry_point, arch="sm_90a", output="ptx").decode()
    assert re.search(r"wgmma\.mma_async\.sync\.aligned\.m64n256k8\.f32\.tf32\.tf32", ptx)
    assert ("st.shared.b32" in ptx) == bool(transposed)
    for each in WGMMA_TF32_SCHEDULES:
        assert compile_cuda(kernel.source("cuda", each), kernel.entry_point)[:4] == b"\x7fELF"


@pytest.mark.parametrize("a_layout, b_layout", LAYOUTS)
def test_truncated_tf32_wgmma_passes_over_a_stage_only_to_transpose_it(a_layout, b_layout):
    """``input_dtype="tf32rz"``: wgmma truncates the f32 bits itself, so with both
    operands K-major (gemm_tf32rz_nt) the landed stage goes to wgmma as it is, with no
    pass and no cvt; an operand along m or n is still written back K-major (between the
    same two barriers), unconverted, and an operand along k is left out of the pass."""
    from backends.cuda import compile_cuda

    kernel = _tf32(a_layout, b_layout, inputs="tf32rz")
    source = kernel.source("cuda", WGMMA_TF32_SCHEDULES[0])
    main = source[source.index("__global__") :]
    transposed = [x for x, lies in (("a", a_layout == "col"), ("b", b_layout == "row")) if lies]
    assert "fg_round_tf32_chunk(" not in main and "TF32: the tile rounded" not in main
    assert ("TF32 truncated by wgmma" in main) == bool(transposed)
    for x in "ab":
        assert (f"fg_{x}_words[" in main) == (x in transposed), x
    ptx = compile_cuda(source, kernel.entry_point, arch="sm_90a", output="ptx").decode()
    assert re.search(r"wgmma\.mma_async\.sync\.aligned\.m64n256k8\.f32\.tf32\.tf32", ptx)
    assert "cvt.rna.tf32.f32" not in ptx
    assert ("st.shared.b32" in ptx) == bool(transposed)
    library = GEMM_TF32RZ_NT.source("cuda", WGMMA_TF32_SCHEDULES[0])
    assert "fg_round_tf32_chunk(fg_dst)" not in library and "fg_a_words[" not in library


def test_tf32_wgmma_refuses_a_halves_k_step_saying_why():
    with pytest.raises(UnsupportedFeature, match=r"BK = 32"):
        GEMM_TF32_NT.source("cuda", BIG)


@pytest.mark.parametrize(
    "schedule, reason",
    [
        (Schedule((128, 2), tile=(128, 256, 32, 4), mma=True), "BK = 64"),
        (Schedule((128, 2), tile=(256, 256, 64, 4), mma=True), "takes BM = 128"),
        (Schedule((128, 2), tile=(128, 96, 64, 4), mma=True), "one of 64, 128, 192, 256"),
        (Schedule((128, 2), tile=(128, 128, 64, 2), mma=True), "3 to 8"),
        (Schedule((128, 2), tile=(128, 128, 64), mma=True), "tile=BMxBNx64xSTAGES"),
        (Schedule((128, 1, 2), tile=(128, 128, 64, 4), mma=True), "128 x G workgroup"),
    ],
    ids=lambda v: v if isinstance(v, str) else str(v),
)
def test_wgmma_schedules_are_checked_before_emitting(schedule, reason):
    with pytest.raises(UnsupportedFeature, match=re.escape(reason)):
        GEMM_F16.source("cuda", schedule)


def test_wgsl_and_f32_inputs_refuse_the_wgmma_path_saying_why():
    with pytest.raises(UnsupportedFeature, match="WGSL has no matrix-multiply"):
        GEMM_F16.source("wgsl", BIG)
    with pytest.raises(UnsupportedFeature, match="f16 or bf16"):
        forge.get_kernel("gemm").source("cuda", BIG)


def test_a_device_without_wgmma_refuses_the_schedules_by_name():
    """An A100 (or a Blackwell) has tensor cores but no wgmma: the check against its
    constraints refuses the warpgroup schedules, the mma.sync ones stay."""
    from forge import emit
    from forge.types import AdapterConstraints

    ampere = AdapterConstraints(
        max_workgroup_size=(1024, 1024, 64),
        max_invocations_per_workgroup=1024,
        max_workgroups_per_dimension=(2**31 - 1, 65535, 65535),
        max_workgroup_storage_bytes=232448,
        max_storage_binding_size=2**36,
        max_buffer_size=2**36,
        cooperative_matrix=True,
    )
    with pytest.raises(UnsupportedFeature, match=r"needs Hopper's warpgroup MMA \(wgmma"):
        emit.check(GEMM_F16, BIG, "cuda", ampere)
    emit.check(GEMM_F16, WGMMA_SCHEDULES[0].with_(workgroup_size=(32, 8)), "cuda", ampere)
    emit.check(GEMM_F16, BIG, "cuda", dataclasses.replace(ampere, warpgroup_mma=True))


def test_the_stages_are_dynamic_shared_memory_with_room_to_align():
    from forge import emit

    # 4 stages of (128 + 256) rows of 128 bytes, and 1024 bytes to align the first
    assert emit.dynamic_shared_bytes(GEMM_F16.body.pattern, BIG) == 4 * 384 * 128 + 1024


# -- on the GPU --------------------------------------------------------------------------
@pytest.mark.parametrize("inputs", ["f16", "bf16"])
@pytest.mark.parametrize("a_layout, b_layout", LAYOUTS)
def test_wgmma_gemms_match_the_reference_on_cuda(request, inputs, a_layout, b_layout):
    """Every wgmma library schedule at sizes that fill no tile: 67, 1 and 130 (the
    register path), 136 and 264 (cp.async, partial tiles along m, n and k), and a
    non-square 264 x 136 x 200."""
    require_available(request.config, "cuda")
    kernel = _mixed(inputs, a_layout, b_layout)
    wide = ir.with_shape(kernel, m=ir.SIZE, n=136, k=200)
    with forge.open_context("cuda") as ctx:
        if not ctx.constraints.warpgroup_mma:
            pytest.skip("wgmma needs compute capability 9.0 (H100, H200)")
        for schedule in WGMMA_SCHEDULES:
            for k, size in [(kernel, s) for s in kernel.test_sizes] + [(wide, 264)]:
                ev = oracle.evaluate(ctx, k, schedule, size=size, samples=1)
                assert ev.passed, ev.report()


_MUTANTS = {
    # the leading- and stride-byte offsets of an MN-major operand swapped (the two
    # strides a hand-written Hopper GEMM most easily confuses)
    "swapped strides": lambda text: text.replace(
        f"{_wgmma._BLOCK_BYTES}u, {_wgmma._GROUP_BYTES}u",
        f"{_wgmma._GROUP_BYTES}u, {_wgmma._BLOCK_BYTES}u",
    ),
    # b's descriptor stays at the tile's first k16 step: a quarter of each k tile's b
    # read four times
    "stuck k step": lambda text: text.replace("fg_j *", "0u *") if "1024u)" in text else text,
}


@pytest.mark.parametrize("mutant", list(_MUTANTS))
def test_the_oracle_fails_a_broken_wgmma_gemm(request, monkeypatch, mutant):
    """The same GEMM with a planted descriptor bug (row-major a and b: b MN-major, as
    P9 runs it) fails at a size of whole tiles and at one of partial tiles."""
    require_available(request.config, "cuda")
    correct = _wgmma._WgmmaLowering._descriptor

    def broken(self, name):
        text = correct(self, name)
        return _MUTANTS[mutant](text) if name == "b" else text

    monkeypatch.setattr(_wgmma._WgmmaLowering, "_descriptor", broken)
    kernel = _mixed("f16", "row", "row", sizes=(256, 136))
    kernel = dataclasses.replace(kernel, id=f"wgmma_mutant_{mutant.replace(' ', '_')}")
    with forge.open_context("cuda") as ctx:
        if not ctx.constraints.warpgroup_mma:
            pytest.skip("wgmma needs compute capability 9.0 (H100, H200)")
        for size in kernel.test_sizes:
            ev = oracle.evaluate(ctx, kernel, BIG, size=size, samples=1)
            assert not ev.passed, f"{mutant} passed at {size}"


@pytest.mark.parametrize(
    "a_layout, b_layout, inputs",
    [(a, b, "tf32") for a, b in LAYOUTS] + [(a, b, "tf32rz") for a, b in LAYOUTS],
)
def test_tf32_wgmma_gemms_match_the_reference_on_cuda(request, a_layout, b_layout, inputs):
    """TF32, rounded and truncated, in every layout under every wgmma schedule at
    gemm_tf32's test sizes (the register path at 67, 1 and 130; cp.async with partial
    tiles at 136) and a non-square shape. Truncated, it is the tensor core's own reading
    of f32 that the reference's ``to_tf32(..., "rz")`` is held to."""
    require_available(request.config, "cuda")
    kernel = _tf32(a_layout, b_layout, inputs=inputs)
    wide = ir.with_shape(kernel, m=ir.SIZE, n=136, k=200)
    with forge.open_context("cuda") as ctx:
        if not ctx.constraints.warpgroup_mma:
            pytest.skip("wgmma needs compute capability 9.0 (H100, H200)")
        for schedule in WGMMA_TF32_SCHEDULES:
            for each, size in [(kernel, s) for s in kernel.test_sizes] + [(wide, 264)]:
                ev = oracle.evaluate(ctx, each, schedule, size=size, samples=1)
                assert ev.passed, f"{schedule} at {size}: {ev.report()}"


def test_the_oracle_fails_a_tf32_transpose_that_ignores_the_swizzle(request, monkeypatch):
    """The transposing pass writing each K-major row's floats where an unswizzled row
    would hold them: wgmma reads the wrong k for most rows, and the oracle says so."""
    require_available(request.config, "cuda")
    unswizzled = _wgmma._ROUND_CHUNK.replace("((kk >> 2) ^ (row & 7u))", "(kk >> 2)")
    assert unswizzled != _wgmma._ROUND_CHUNK
    monkeypatch.setattr(_wgmma, "_ROUND_CHUNK", unswizzled)
    kernel = dataclasses.replace(_tf32("row", "row"), id="wgmma_tf32_unswizzled")
    with forge.open_context("cuda") as ctx:
        if not ctx.constraints.warpgroup_mma:
            pytest.skip("wgmma needs compute capability 9.0 (H100, H200)")
        ev = oracle.evaluate(ctx, kernel, WGMMA_TF32_SCHEDULES[0], size=264, samples=1)
        assert not ev.passed, ev.report()


def test_the_oracle_fails_a_truncated_tf32_wgmma_gemm_that_rounds(request, monkeypatch):
    """gemm_tf32rz_nt given cvt.rna's rounding pass: its contract is the truncation, and
    the oracle tells the two apart this way too."""
    require_available(request.config, "cuda")
    build = _wgmma._WgmmaLowering.__init__

    def rounding(self, em):
        build(self, em)
        self.rounds = True

    monkeypatch.setattr(_wgmma._WgmmaLowering, "__init__", rounding)
    kernel = dataclasses.replace(GEMM_TF32RZ_NT, id="wgmma_tf32rz_rounded")
    assert "fg_round_tf32_chunk(fg_dst);" in kernel.source("cuda", WGMMA_TF32_SCHEDULES[0])
    with forge.open_context("cuda") as ctx:
        if not ctx.constraints.warpgroup_mma:
            pytest.skip("wgmma needs compute capability 9.0 (H100, H200)")
        ev = oracle.evaluate(ctx, kernel, WGMMA_TF32_SCHEDULES[0], size=264, samples=1)
        assert not ev.passed, ev.report()


def test_the_oracle_fails_a_tf32_wgmma_gemm_that_does_not_round(request, monkeypatch):
    """Without the rounding pass wgmma reads the f32 bits as they are (TF32 by
    truncation): the kernel's contract is cvt.rna's rounding, and the oracle says so."""
    require_available(request.config, "cuda")
    monkeypatch.setattr(_wgmma._WgmmaLowering, "_round_stage", lambda self: None)
    kernel = dataclasses.replace(GEMM_TF32_NT, id="wgmma_tf32_unrounded")
    with forge.open_context("cuda") as ctx:
        if not ctx.constraints.warpgroup_mma:
            pytest.skip("wgmma needs compute capability 9.0 (H100, H200)")
        ev = oracle.evaluate(ctx, kernel, WGMMA_TF32_SCHEDULES[0], size=264, samples=1)
        assert not ev.passed, ev.report()

"""TF32 GEMMs with a rounding prepass (``ir.matmul(..., input_dtype="tf32",
prepass=True)``: gemm_tf32_2pass, gemm_tf32_nt_2pass): a first launch rounds a and b
once into the scratch buffers a_tf32 and b_tf32, K-major, and the second multiplies
those as the truncating GEMM of a row-major a and col-major b.

Here, without a GPU: the kernel's launches and buffers, the rule (rounded TF32 only),
the WGSL module's bindings, and NVRTC compiling both launches in every layout with no
rounding left in the GEMM. On wgpu (lavapipe in CI) and CUDA: the oracle judges every
layout at sizes that fill no tile and a non-square shape (on CUDA under the wgmma,
mma.sync and SIMT schedules), and fails a prepass that does not round or does not
transpose."""

from __future__ import annotations

import numpy as np
import pytest

import forge
import oracle
from forge import ir
from forge.emit import _tf32
from forge.kernels.linalg import (
    GEMM_SCHEDULES,
    GEMM_TF32,
    GEMM_TF32_2PASS,
    GEMM_TF32_NT_2PASS,
    MMA_TF32_SCHEDULES,
    WGMMA_TF32_SCHEDULES,
)
from oracle.pytest_plugin import require_available
from tests.cuda_emulation import compiler, emulate_prepass

LAYOUTS = [("row", "row"), ("col", "row"), ("row", "col"), ("col", "col")]
# one of each path: wgmma (Hopper), mma.sync (sm_80 on), the SIMT baseline
PATHS = (WGMMA_TF32_SCHEDULES[0], MMA_TF32_SCHEDULES[0], GEMM_SCHEDULES[1])


def _prepass(a_layout: str, b_layout: str, id: str = ""):
    return ir.kernel(
        id or f"tf32_prepass_{a_layout}_{b_layout}",
        ir.matmul("f32", a_layout, b_layout, input_dtype="tf32", prepass=True),
        defaults={"alpha": 1.5, "beta": 0.5},
        schedules=PATHS + WGMMA_TF32_SCHEDULES[1:],
        domain={n: (-2.0, 2.0) for n in "abc"},
        nonfinite_inputs=False,
        tolerance=GEMM_TF32.tolerance,
        test_sizes=GEMM_TF32.test_sizes,
    )


# -- without a GPU -----------------------------------------------------------------------
def test_a_prepass_gemm_is_two_launches_through_scratch_buffers():
    kernel = GEMM_TF32_2PASS
    names = [b.name for b in kernel.buffers]
    assert names == ["a", "b", "c", "a_tf32", "b_tf32", "params"]
    scratch = {b.name for b in kernel.buffers if b.scratch}
    assert scratch == {"a_tf32", "b_tf32"}
    assert [b.name for b in kernel.outputs] == ["c"]
    dims = {"m": 136, "n": 136, "k": 136}
    assert [kernel.buffer(n).element_count(136) for n in ("a_tf32", "b_tf32")] == [
        dims["m"] * dims["k"],
        dims["k"] * dims["n"],
    ]
    first, second = kernel.steps("cuda", WGMMA_TF32_SCHEDULES[0], 136)
    assert first.entry_point == "gemm_tf32_2pass_kernel_round"
    assert first.workgroups == (2 * 5 * 5, 1, 1) and first.block == (32, 8, 1)
    # a, b in; a_tf32, b_tf32 out; then the GEMM reads a_tf32 and b_tf32 as its a and b
    assert [key for _, key in first.arguments] == [0, 1, 3, 4, None]
    assert second.entry_point == "gemm_tf32_2pass_kernel"
    assert [key for _, key in second.arguments] == [3, 4, 2, None]
    assert second.shared_bytes > 48 * 1024  # the wgmma stages
    assert kernel.semantic_hash != GEMM_TF32.semantic_hash


def test_a_prepass_is_for_inputs_rounded_to_tf32_only():
    for inputs in ("f32", "bf16", "tf32rz"):
        with pytest.raises(ir.IRError, match="prepass=True rounds TF32 inputs once"):
            ir.matmul("f32", input_dtype=inputs, prepass=True)


@pytest.mark.parametrize("a_layout, b_layout", LAYOUTS)
def test_both_launches_compile_in_every_layout_with_no_rounding_left_in_the_gemm(
    a_layout, b_layout
):
    """The prepass transposes an operand stored along m or n (a col-major, b
    row-major) and rounds the others as they lie; the GEMM is always the K-major one,
    which passes over no stage (wgmma) and converts no fragment (mma.sync)."""
    from backends.cuda._nvrtc import compile_module

    kernel = _prepass(a_layout, b_layout)
    for schedule in PATHS[:2]:
        source = kernel.source("cuda", schedule)
        transposed = {"a": a_layout == "col", "b": b_layout == "row"}
        assert f"fg_is_a ? {str(transposed['a']).lower()} : {str(transposed['b']).lower()}" in (
            source
        )
        assert "fg_round_tf32_chunk(fg_dst);" not in source  # wgmma's pass over a stage
        arch = "sm_90a" if schedule.workgroup_size[0] == 128 else "sm_80"
        ptx, names = compile_module(
            source, (kernel.entry_point + "_round", kernel.entry_point), arch, "ptx"
        )
        text = ptx.decode(errors="replace")
        assert f".entry {kernel.entry_point}_round" in text
        assert "cvt.rna.tf32.f32" not in text


def test_the_wgsl_module_binds_the_scratch_buffers_as_the_gemms_a_and_b():
    """One module, two entry points: the GEMM's code reads ``a`` and ``b``, which on
    WGSL are declared at a_tf32's and b_tf32's bindings; the inputs take other names."""
    source = GEMM_TF32_2PASS.source("wgsl", GEMM_SCHEDULES[4])  # vec4, written out
    for binding, declared in (
        (0, "fg_a_in: array<f32>;  // buffer a"),
        (1, "fg_b_in: array<f32>;  // buffer b"),
        (3, "a: array<vec4<f32>>;  // buffer a_tf32"),
        (4, "b: array<vec4<f32>>;  // buffer b_tf32"),
    ):
        assert f"@binding({binding}) var<storage, read" in source
        assert declared in source, declared
    assert "fn gemm_tf32_2pass_kernel_round(" in source
    assert "fn gemm_tf32_2pass_kernel(" in source


def test_the_library_prepass_gemms_pass_on_the_reference():
    with forge.open_context("reference") as ctx:
        for kernel in (GEMM_TF32_2PASS, GEMM_TF32_NT_2PASS):
            ev = oracle.evaluate(ctx, kernel, kernel.schedules[0], size=130, samples=1)
            assert ev.passed, ev.report()


# -- on wgpu and CUDA --------------------------------------------------------------------
#: What each backend runs the prepass GEMMs under here: on wgpu the SIMT baseline and
#: the vec4 tile (whose a and b are arrays of vec4 the prepass writes lane by lane), on
#: CUDA wgmma, mma.sync and the SIMT baseline.
SCHEDULES = {"wgpu": (GEMM_SCHEDULES[1], GEMM_SCHEDULES[4]), "cuda": PATHS}


def _runnable(ctx, schedules) -> list:
    """``schedules`` but the wgmma ones on a device without wgmma (compute capability
    9.0 only; ``test_emit_wgmma`` checks that such a device refuses them by name)."""
    return [
        s
        for s in schedules
        if not (s.mma and s.workgroup_size[0] == 128 and not ctx.constraints.warpgroup_mma)
    ]


@pytest.mark.parametrize("backend", ["wgpu", "cuda"])
@pytest.mark.parametrize("a_layout, b_layout", LAYOUTS)
def test_prepass_tf32_gemms_match_the_reference(request, backend, a_layout, b_layout):
    """Every layout at gemm_tf32's test sizes (partial tiles everywhere; on CUDA 67, 1
    and 130 take the register paths) and a non-square shape whose tiles of a and b
    differ in count; on CUDA under every wgmma schedule, mma.sync and the SIMT one."""
    require_available(request.config, backend)
    kernel = _prepass(a_layout, b_layout)
    wide = ir.with_shape(kernel, m=ir.SIZE, n=136, k=200)
    schedules = SCHEDULES[backend] + (WGMMA_TF32_SCHEDULES[1:] if backend == "cuda" else ())
    with forge.open_context(backend) as ctx:
        for schedule in _runnable(ctx, schedules):
            for each, size in [(kernel, s) for s in kernel.test_sizes] + [(wide, 264)]:
                ev = oracle.evaluate(ctx, each, schedule, size=size, samples=1)
                assert ev.passed, f"{schedule} at {size}: {ev.report()}"


def _mutated(monkeypatch, changes: dict[str, tuple[str, str]]) -> None:
    """The prepass's text with ``changes[target]`` = (old, new) made."""
    build = _tf32.prepass_kernel

    def mutant(entry, body, target, vectors=None):
        text = build(entry, body, target, vectors)
        old, new = changes[target]
        assert old in text
        return text.replace(old, new)

    monkeypatch.setattr(_tf32, "prepass_kernel", mutant)


_UNROUNDED = ("(bits + 0x1000u) & 0xffffe000u", "bits")
#: Broken prepasses, each with its changes to the text by target and the layouts that
#: show it: one that copies the f32 bits (the GEMM then truncates them, off the
#: contract, cvt.rna's rounding, by twice the rounding's error, toward zero), and one
#: that rounds b row-major as it lies (the GEMM reads b where it expects b's transpose).
_MUTANTS = {
    "copies without rounding": ({"cuda": _UNROUNDED, "wgsl": _UNROUNDED}, ("row", "col")),
    "does not transpose": (
        {
            "cuda": ("fg_is_a ? false : true", "fg_is_a ? false : false"),
            "wgsl": ("select(true, false, fg_is_a)", "select(false, false, fg_is_a)"),
        },
        ("row", "row"),
    ),
}


@pytest.mark.parametrize("mutant", list(_MUTANTS))
@pytest.mark.parametrize("backend", ["wgpu", "cuda"])
def test_the_oracle_fails_a_broken_prepass(request, monkeypatch, backend, mutant):
    require_available(request.config, backend)
    changes, layouts = _MUTANTS[mutant]
    _mutated(monkeypatch, changes)
    kernel = _prepass(*layouts, id=f"tf32_prepass_{mutant.replace(' ', '_')}")
    with forge.open_context(backend) as ctx:
        for schedule in _runnable(ctx, SCHEDULES[backend]):
            ev = oracle.evaluate(ctx, kernel, schedule, size=264, samples=1)
            assert not ev.passed, f"{schedule}: {ev.report()}"


@pytest.mark.parametrize("backend", ["wgpu", "cuda"])
def test_a_prepass_grid_smaller_than_its_tiles_strides_over_them(request, monkeypatch, backend):
    """At most ``PREPASS_MAX_WORKGROUPS`` workgroups, each striding over the tiles past
    the grid: capped at 3 here, every workgroup rounds several tiles of a and of b, and
    with b row-major transposes some through workgroup memory it reuses (the barrier
    after each tile)."""
    require_available(request.config, backend)
    monkeypatch.setattr(_tf32, "PREPASS_MAX_WORKGROUPS", 3)
    kernel = _prepass("col", "row", id="tf32_prepass_strided")
    first = kernel.steps(None, SCHEDULES[backend][0], 130)[0]
    assert first.workgroups == (3, 1, 1)
    with forge.open_context(backend) as ctx:
        schedule = _runnable(ctx, SCHEDULES[backend])[0]
        ev = oracle.evaluate(ctx, kernel, schedule, size=130, samples=1)
        assert ev.passed, ev.report()


# -- the CUDA prepass on the host (tests/cuda_emulation.py) -------------------------------
@pytest.mark.skipif(compiler() is None, reason="no host C++ compiler (g++ or clang++)")
@pytest.mark.parametrize("a_layout, b_layout", LAYOUTS)
def test_the_cuda_prepass_rounds_and_transposes_every_element_on_the_host(a_layout, b_layout):
    """The CUDA text itself, a host thread per CUDA thread: every element of a_tf32 and
    b_tf32 is the rounded element of a and b in K-major order, none left unwritten, at a
    size that fills no tile and one with more tiles than the grid has blocks."""
    body = _prepass(a_layout, b_layout).body.pattern
    rng = np.random.default_rng(7)
    for dims, blocks in (({"m": 67, "n": 33, "k": 45}, None), ({"m": 96, "n": 64, "k": 70}, 5)):
        m, n, k = dims["m"], dims["n"], dims["k"]
        # values with low bits at and around a tie, so that rounding and truncating differ
        a = (rng.standard_normal(m * k) * 3).astype(np.float32)
        b = (rng.standard_normal(k * n) * 3).astype(np.float32)
        got_a, got_b = emulate_prepass(body, a, b, dims, blocks)
        a_mk = a.reshape(m, k) if a_layout == "row" else a.reshape(k, m).T
        b_nk = b.reshape(n, k) if b_layout == "col" else b.reshape(k, n).T
        np.testing.assert_array_equal(got_a, ir.to_tf32(a_mk, "rna").reshape(-1))
        np.testing.assert_array_equal(got_b, ir.to_tf32(b_nk, "rna").reshape(-1))

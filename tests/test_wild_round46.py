"""Round 46's findings (tests/wild/round46.py: GPU MODE's lecture kernels), each pinned
by the smallest run that shows it.

- Inexpressible, fixed: lecture 9's reductions open with ``#include <iostream>`` (their
  main() prints with ``std::cout``), which NVRTC could not open, so CoarsenedReduction
  could not go in as written. The stream headers (``iostream``, ``iomanip``,
  ``fstream``, ``sstream``) are now served empty, as the host-only timing headers are
  (tests/test_nvrtc_headers.py pins the headers; the corpus compiles the kernel).
- The oracle catches the lecture's own bug: ``windowSumPrivatized`` stages its block's
  inputs in shared memory and sums only those, so the window stops at the block's edge
  (two elements each side of every multiple of 256 miss their neighbours in the next
  or previous block), and its ``__syncthreads()`` sits inside ``if (idx < n)``. Its
  port fails against the window sum it means and passes against the block-local sum
  it computes.
- False pass, fixed: lecture 12's flash attention starts its running max at ``1e-30f``
  (about 0): a row whose every score ``Q @ K.T`` lies below about -103 underflows
  every exp and is 0 / 0. The oracle runs kernels that keep a running max on its
  one-sign sets, but (1) ``if (m < S[..][jj]) { m = S[..][jj]; }``, the best on the
  left of the comparison, was not recognised as one, and (2) in both one-sign sets
  every product of two inputs is positive, so no score row was negative. Both fixed:
  the running max is recognised so written, and kernels of two float inputs or more
  are also run on an ``opposite`` set (the first float input negative, the next
  positive, and so on), where the mutant fails and the kernel with its max from
  -FLT_MAX passes.
- The lecture's flash attention also has a race: no barrier between a K/V tile's last
  reads (``P_ij * V_j[jj][..]``) and the next tile's loads; lavapipe, which runs a
  workgroup's invocations in turn between barriers, shows it in the first input set.
  The corpus judges the kernel with both bugs fixed, each a mutant.
- Not portable, fixed: the WGSL port first started that max from ``-3.40282347e38``,
  FLT_MAX as C prints it to nine digits, which lies past the largest f32: naga rounds
  it and wgpu passed, Chrome's Tint refused the shader ("cannot be represented as
  'f32'"). wgpu and ``kforge validate`` now refuse a float literal past its type's
  finite range, naming it; and the advice given for ``bitcast<f32>(0xff800000u)``
  recommended that very literal (now ``-3.4028234663852886e+38``).
- A false alarm on the GPU, fixed: NVIDIA's compilers contract the grayscale's ``0.21f
  * r + 0.71f * g + 0.07f * b`` into FMAs (CUDA, and the Vulkan driver for WGSL), and
  0.2% of all 2^24 pixels then truncate one lower (18.999998 for 19.0). The oracle's
  nudged runs of the reference move every such pixel, but it judged a one-step move as
  written (to fail tie bugs), so on the H100 (2026-12-06) pixel 190 at seed 0, (26, 24,
  50), failed on both. Where the reference run in float64 throughout gives the
  kernel's value (25.9999993 truncates to 25), the step is now taken.
- Expressible as written: the mean filter's ``dim3(16, 16, channels)`` block (the
  channel is ``threadIdx.z``) through a CUDA schedule of the size, beside a port that
  puts the channel in the grid's z; bytes in and out of ``unsigned char`` images,
  which the ports read and write (``atomicOr``) as packed words.
- Every original passed on reference, wgpu and the browser (the flash attention with
  its two fixes), every WGSL mutant failed on lavapipe and SwiftShader, and every CUDA
  original and mutant compiles with NVRTC and binds as the source means. The CUDA runs
  are the GPU machine's: the originals and mutants, the two lecture kernels as written
  (expected to fail), and under compute-sanitizer the races (the reduction's dropped
  barrier, the flash attention's missing one) and windowSumPrivatized's barrier
  inside ``if (idx < n)``.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest

import oracle
from oracle import Session, Verdict
from oracle.pytest_plugin import require_available
from tests.wild import mutant
from tests.wild.round46 import (
    FLASH_ATTENTION,
    GRAYSCALE,
    MEAN_FILTER,
    REDUCE_COARSENING,
    WINDOW_SUM_PRIVATIZED,
)


@pytest.fixture(scope="module")
def session():
    with Session(timeout_s=60) as shared:
        yield shared


def _block_window_sum(input, output, windowSize):
    """What windowSumPrivatized computes: each block of 256 sums its own inputs only."""
    half, n = windowSize // 2, input.size
    x = input.astype(np.float64)
    out = np.zeros(n)
    for i in range(n):
        start = max(i - half, i // 256 * 256)
        stop = min(i + half + 1, (i // 256 + 1) * 256, n)
        out[i] = x[start:stop].sum()
    return out.astype(np.float32)


def test_the_privatized_window_sum_stops_at_the_blocks_edge(request, session):
    """300 elements: a block boundary at 256. Against the window sum (the lecture's
    direct kernel's), the privatized port fails; against the block-local window it
    computes, it passes, so the mismatch is the block's edge and nothing else."""
    require_available(request.config, "wgpu")
    runner = session.runner("wgpu")
    kernel = dataclasses.replace(WINDOW_SUM_PRIVATIZED, test_sizes=(300,))
    ev = oracle.evaluate(runner, kernel, size=300, seed=0, samples=0, warmups=0)
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    own = dataclasses.replace(kernel, reference=_block_window_sum)
    ev = oracle.evaluate(runner, own, size=300, seed=0, samples=0, warmups=0)
    assert ev.verdict is Verdict.PASS, ev.report()


def test_the_cuda_privatized_window_sum_fails_as_its_port_does(request):
    """The original on the GPU: the same edge, and a barrier inside ``if (idx < n)``."""
    require_available(request.config, "cuda")
    session = request.getfixturevalue("session")
    ev = oracle.evaluate(
        session.runner("cuda"), WINDOW_SUM_PRIVATIZED, size=300, seed=0, samples=0, warmups=0
    )
    assert ev.verdict is Verdict.MISMATCH, ev.report()


_A, _B, _C = np.float32(0.21), np.float32(0.71), np.float32(0.07)


def _gray(rgb: np.ndarray, fused: bool) -> np.ndarray:
    """The kernel's gray bytes, as written or as NVRTC contracts it (an f32 FMA is the
    exact product plus the addend rounded once: exact in float64 for these operands,
    up to a double rounding no pixel here meets)."""
    r, g, b = rgb.reshape(-1, 3).astype(np.float32).T
    if not fused:
        return ((_A * r + _B * g) + _C * b).astype(np.uint8)
    inner = (np.float64(_B) * g + np.float64(_A * r)).astype(np.float32)
    return (np.float64(_C) * b + inner.astype(np.float64)).astype(np.float32).astype(np.uint8)


def test_pixels_that_fma_contraction_truncates_one_lower_are_accepted():
    """No device needed: of (r, g, b) pixels, those the contracted arithmetic truncates
    to another byte than the written one (r=0, g=24, b=28: 18.999998 against 19.0), 64
    of them as one 8 x 8 image. Each is an element the oracle's nudged runs of the
    reference move, and the contracted byte lies within what they take."""
    axis = np.arange(256, dtype=np.uint8)
    reds = axis[::16]  # a sixteenth of the reds: a million pixels, about 2000 of them moved
    every = np.stack(np.meshgrid(reds, axis, axis, indexing="ij"), axis=-1).reshape(-1)
    plain, fused = _gray(every, False), _gray(every, True)
    differ = np.flatnonzero(plain != fused)
    assert 0.001 < differ.size / plain.size < 0.003
    chosen = np.random.default_rng(0).choice(differ, 64, replace=False)
    image = every.reshape(-1, 3)[chosen].reshape(-1)
    case = oracle.make_case(GRAYSCALE.kernel, "height=8,width=8", given={"input": image})
    expected = oracle.expected_outputs(case)
    assert np.array_equal(expected.outputs["output"], _gray(image, False))
    moved, low, high, *_ = expected.unstable_integers(wgsl=False)["output"]
    contracted = _gray(image, True)
    assert moved.all() and ((low <= contracted) & (contracted <= high)).all()


def test_a_gray_byte_fused_below_the_boundary_passes_and_a_rounded_one_fails(request, session):
    """No device needed, the reference backend running the kernel's arithmetic as the
    H100 did (2026-12-06, CUDA and NVIDIA's Vulkan): ``fma(0.07f, b, fma(0.21f, r, 0.71f
    * g))`` puts pixel 190 of height=19,width=37 at seed 0, (26, 24, 50), at 25.999998
    where float32 without the FMA gives 26.0; the real numbers give 25.9999993, so 25 is
    the reference's own value in float64 and passes. A kernel that rounds where the
    lecture truncates still fails."""
    require_available(request.config, "reference")
    a, b, c = np.float32(0.21), np.float32(0.71), np.float32(0.07)

    def fma(x, y, z):
        return (np.float64(x) * np.asarray(y, np.float64) + np.asarray(z, np.float64)).astype(
            np.float32
        )

    def as_the_h100(output, input):
        red, green, blue = np.asarray(input).reshape(-1, 3).astype(np.float32).T
        return fma(c, blue, fma(a, red, b * green)).astype(np.uint8)

    def rounded(output, input):
        red, green, blue = np.asarray(input).reshape(-1, 3).astype(np.float32).T
        return np.round(a * red + b * green + c * blue).astype(np.uint8)

    runner, size = session.runner("reference"), "height=19,width=37"
    for twin, verdict in ((as_the_h100, Verdict.PASS), (rounded, Verdict.MISMATCH)):
        kernel = dataclasses.replace(GRAYSCALE.kernel, id="gray_as_computed", reference=twin)
        ev = oracle.evaluate(runner, kernel, size=size, seed=0, samples=0, truth=GRAYSCALE.kernel)
        assert ev.verdict is verdict, ev.report()
    assert as_the_h100(None, oracle.make_case(GRAYSCALE.kernel, size, 0).arrays["input"])[190] == 25


def test_the_hosts_blocks_are_the_cuda_launches_and_the_ports_run_what_they_declare():
    """No device needed: the mean filter's ``dim3(16, 16, channels)`` block on CUDA, the
    channels in the port's grid instead; the reduction's 1024-thread blocks over 2048
    elements each on CUDA, the port's 256 over 512."""
    kernel = MEAN_FILTER.kernel
    size = kernel.size("C=3,height=19,width=37")
    cuda, wgsl = (kernel.steps(t, kernel.schedules[0], size, 65535)[0] for t in ("cuda", "wgsl"))
    assert (cuda.workgroups, cuda.block) == ((3, 2, 1), (16, 16, 3))
    assert (wgsl.workgroups, wgsl.block) == ((3, 2, 3), (16, 16, 1))
    kernel = REDUCE_COARSENING.kernel
    cuda, wgsl = (kernel.steps(t, kernel.schedules[0], 10000, 65535)[0] for t in ("cuda", "wgsl"))
    assert (cuda.workgroups, cuda.block) == ((5, 1, 1), (1024, 1, 1))
    assert (wgsl.workgroups, wgsl.block) == ((20, 1, 1), (256, 1, 1))


def test_a_flash_attention_whose_max_starts_at_1e30_fails_in_the_opposite_set(request, session):
    """The lecture's ``m_i[ii] = 1e-30f`` (a max started at about 0) passed every input
    set: its scores are ``Q @ K.T``, positive wherever Q and K share a sign, as in both
    one-sign sets, and the kernel's ``if (m < S[..][jj]) { m = S[..][jj]; }`` did not
    even put it on those. The opposite set (Q negative, K positive, large from the
    middle rows on) has rows of scores far below -103, every exp underflows and the
    row is 0 / 0; the same port with the max from -FLT_MAX passes it."""
    require_available(request.config, "wgpu")
    runner = session.runner("wgpu")
    wrong = mutant(FLASH_ATTENTION, "as the lecture, the max from 1e-30")
    ev = oracle.evaluate(runner, wrong, size="n=8,n_inp=32", seed=0, samples=0, warmups=0)
    assert ev.verdict is Verdict.MISMATCH and ev.failed_input_set == "opposite", ev.report()
    assert [s.split(" ")[0] for s in ev.input_sets][-3:] == ["negative", "positive", "opposite"]
    assert all("pass" in s for s in ev.input_sets[1:-1]), ev.input_sets


def test_the_lectures_flash_attention_as_written_fails_on_the_gpu(request):
    """The original on the GPU: the max from 1e-30f fails in the opposite set whatever
    the missing barrier does (compute-sanitizer's racecheck names that)."""
    require_available(request.config, "cuda")
    session = request.getfixturevalue("session")
    from tests.wild.round46 import _FLASH_CUDA

    kernel = dataclasses.replace(
        FLASH_ATTENTION.kernel, sources={"cuda": _FLASH_CUDA}, id="gpumode_flash_as_written"
    )
    ev = oracle.evaluate(
        session.runner("cuda"), kernel, size="n=8,n_inp=32", seed=0, samples=0, warmups=0
    )
    assert ev.verdict is Verdict.MISMATCH, ev.report()


def test_a_float_literal_past_the_largest_f32_is_found_as_tint_finds_it():
    """No device needed: ``-3.40282347e+38`` (FLT_MAX as C prints it to nine digits,
    which the WGSL port first started its max from) lies past the largest f32; Chrome's
    Tint refused the port ("value -340282346999999984391321947108527833088.0 cannot be
    represented as 'f32'") where naga rounds it and wgpu passed it. And the refusal of
    a ``bitcast<f32>(0xff800000u)`` advised that very literal."""
    from forge.sources import wgsl_unrepresentable_literal as past

    for text in ("m = -3.40282347e38;", "let x = 1e39f;", "let h = 70000.0h;", "x = 3.5e38;"):
        found = past(f"fn f() {{ {text} }}")
        assert found is not None and found[0] in text, text
    for text in (
        "m = -3.4028234663852886e+38;",
        "m = -3.402823466e+38f;",
        "m = -0x1.fffffep+127f;",
        "m = 3.4e38; n = 1e38; h = 65504.0h; i = 127f; j = 2u;",
        "m = 0.0; // not -3.40282347e38",
        "let x1e39 = 1.0;",
    ):
        assert past(f"fn f() {{ {text} }}") is None, text
    device = Path(__file__).parent.parent / "backends" / "wgpu" / "_device.py"
    advice = re.findall(r"start a maximum from (-[\d.e+]+)", device.read_text())
    assert advice and all(past(f"m = {a};") is None for a in advice), advice


def test_wgpu_refuses_the_port_with_its_max_from_minus_3_40282347e38(request, session):
    """The port as first written passed on wgpu; Tint refused it in the browser. wgpu
    refuses it too now, naming the literal and what to write instead."""
    require_available(request.config, "wgpu")
    source = FLASH_ATTENTION.kernel.sources["wgsl"].replace(
        "-3.4028234663852886e+38", "-3.40282347e38"
    )
    kernel = dataclasses.replace(FLASH_ATTENTION.kernel, sources={"wgsl": source}, id="r46_flt")
    ev = oracle.evaluate(
        session.runner("wgpu"), kernel, size="n=8,n_inp=32", seed=0, samples=0, warmups=0
    )
    assert ev.verdict is Verdict.ERROR, ev.report()
    assert "3.40282347e38" in ev.report() and "3.4028234663852886e+38" in ev.report()

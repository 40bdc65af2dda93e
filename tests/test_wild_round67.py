"""What round 67 of the wild kernels (tests/wild/round67.py: kernels as compilers emit
them, TVM's CUDA row sum from its reduction how-to and its log-softmax over a static
shape, each with a WebGPU port, WebLLM's q4f32 lm_head GEMV as TVM's WebGPU codegen
emits it, and naga's GLSL translation of Collatz) showed of the oracle, pinned.

Every original passes on the reference, lavapipe and SwiftShader, every WGSL mutant
fails on both (``KFORGE_SLOW_TESTS=1``), and the CUDA sources compile with NVRTC (their
runs and mutants are the GPU machine's).

- No false alarm and no missed mutant on the CPU adapters: the oracle read the
  generated bindings (TVM's ``compute`` and ``compute_1``, one buffer under two names
  in two kernels, given by each launch's ``arguments``; ``PODArgs`` with
  ``packGridDimX``; naga's array wrapped in ``PrimeIndices``), the launches (three
  kernels of 32, 16 and 64 threads over a baked shape) and the numerics (sums in a
  shuffle or barrier tree, ``fma`` over nibbles, float parity) without an edit.
- The tutorial's own kernel is wrong: TVM's reduction how-to replaces the store's
  predicate with ``threadIdx.x == 0`` (``set_store_predicate``), which drops the row
  bound TVM derived, so for ``n`` not a multiple of the block's rows it writes zeros
  past ``B``'s end (the tutorial runs 128 rows). The corpus keeps the print as a
  mutant of both the CUDA and the port; the port's fails on the CPU adapters as
  writes past the end (pinned below), the CUDA one is for the GPU run.
- The collatz shader's parity goes through ``f32``, so above 2**24 every value is
  "even": the reference follows the shader, and a kernel that computes Collatz as
  mathematics has it (the low bit) fails at the drawn starts that climb that far
  (pinned below). WGSL lets ``f32(u32)`` take either neighbour of a value float32
  cannot hold; both are even there, so the shader's counts are the same on every
  conforming device.
- Not a mutant: the tutorial's warp mask ``65535 << (threadIdx.y * 16)`` (zero from the
  third row on, apache/tvm#15323) is undefined behaviour that NVIDIA's shuffles have
  been seen to compute rightly (the PR says so), and apache/tvm#17307 reports an
  illegal instruction on an H100 with a mask set; which the GPU run sees is not known,
  so the corpus keeps ``__activemask()``.
- For the GPU run to confirm: the CUDA originals pass (the log-softmax's ``__expf`` and
  ``__logf`` have no bounds of their own in the oracle, which judges them by f32's
  default tolerance and the reference's rounding; their errors on these rows, a few
  ulps, are expected within it), and each CUDA mutant fails there (the tutorial's
  store as a write past ``B``'s end, the missed tail tile, the shuffle tree one level
  short, the broadcast from lane 0, and the log-softmax's three).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import forge
import oracle
from oracle import Session, Verdict
from oracle.pytest_plugin import require_available
from tests.wild import CORPUS, mutant
from tests.wild.round67 import _collatz_reference, _collatz_starts

_SUM_PORT = "wild_r67_tvm_rfactor_row_sum_webgpu_red_buf0"
_COLLATZ = "wild_r67_naga_glsl_collatz_float_parity"


@pytest.fixture(scope="module")
def session():
    with Session(timeout_s=60) as shared:
        yield shared


def _collatz_as_mathematics(starts: np.ndarray) -> np.ndarray:
    out = np.empty_like(starts)
    for at, start in enumerate(starts.tolist()):
        n, steps = int(start), 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        out[at] = steps
    return out


def test_the_drawn_starts_climb_where_the_shaders_parity_is_not_collatzs():
    """At the entry's largest size the draws hold starts whose trajectories pass 2**24,
    and there the shader's counts (the reference's) differ from Collatz's."""
    starts = _collatz_starts(np.random.default_rng(0), 333, 333)
    assert starts.min() >= 1
    shader = _collatz_reference(starts)["indices"]
    assert (shader != _collatz_as_mathematics(starts)).sum() >= 5
    # 27 is the classic: 111 steps, its peak 9232 far below 2**24
    assert _collatz_reference(np.array([27], np.uint32))["indices"][0] == 111


def test_a_collatz_by_the_low_bit_is_not_the_shader(request, session):
    """The integer parity a person would write computes Collatz, not the translated
    shader: it fails where the drawn trajectories climb past 2**24."""
    require_available(request.config, "wgpu")
    kernel = CORPUS[_COLLATZ].kernel
    source = kernel.sources["wgsl"]
    old = "if ((_e9 - (floor((_e9 / 2f)) * 2f)) == 0f) {"
    assert source.count(old) == 1
    by_bit = dataclasses.replace(
        kernel,
        id="r67_collatz_low_bit",
        sources={"wgsl": source.replace(old, "if ((_e8 & 1u) == 0u) {")},
    )
    with forge.open_context("wgpu") as ctx:
        ev = oracle.evaluate(ctx, by_bit, size=333, samples=0)
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    assert not ev.outputs["indices"].passed, ev.report()


def test_the_tutorials_store_predicate_writes_past_the_end(request, session):
    """TVM's how-to prints a store guarded by ``threadIdx.x == 0`` alone: the rows of
    the last block past ``n`` write past ``B``'s end, which the oracle names."""
    require_available(request.config, "wgpu")
    wrong = mutant(CORPUS[_SUM_PORT], "the store predicate without the row bound (the tutorial's)")
    with forge.open_context("wgpu") as ctx:
        ev = oracle.evaluate(ctx, wrong, size="45x100", samples=0)
        right = oracle.evaluate(ctx, CORPUS[_SUM_PORT].kernel, size="128x128", samples=0)
        tutorial = oracle.evaluate(ctx, wrong, size="128x128", samples=0)
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    assert "written past the end" in ev.report(), ev.report()
    # at the tutorial's own 128 rows (a multiple of the block's) it is right
    assert right.passed and tutorial.passed, tutorial.report()

"""What round 56 (tests/wild/round56.py: WGSL from tutorials, blog posts and small
WebGPU projects) showed.

- Every original passes on the reference, lavapipe and SwiftShader, and every mutant
  (4 an entry) fails on both CPU adapters (KFORGE_SLOW_TESTS=1, 2026-12-06).
- A false alarm, fixed: Chrome's GPU Compute matrix product keeps each matrix's
  (rows, columns) as the first two floats of its buffer, and its reference reads them
  back (``int(firstMatrix[0])``). The rounding bounds come from the reference run in
  float64 with the float inputs moved (scaled by 0 to 5, taken as magnitudes, squared,
  nudged): each such run moved the header too, so the reference reshaped to sizes the
  data did not have and raised, and with no run there was no bound at all. The
  product was then judged by the default tolerance alone, and at seed 3 a right
  kernel's float32 sum over terms of 1e3 that cancel to 4.69 came out 8.7e-5 (183
  ulp) from float64: MISMATCH on lavapipe. A run the moved inputs make fail is now
  tried again with the leading elements of each moved float input kept as drawn, the
  fewest (up to 8) that let it run (``oracle._expected._float64_run``), once for a
  case; kept elements only move less, so a bound found so is never wider than the
  inputs' own.
- The originals' real bugs, kept and shown: the Game of Life wraps its torus by the u32
  remainder, so ``0u - 1u`` lands on the last column only where the side divides 2^32
  (the codelab's 32 does; at 24 the oracle fails it, below); NervLand's reduction has no
  bound on its loads (right for sizes that are multiples of 512, the sizes it is run
  at); the tint filter's guard ``id.x > max_x`` lets the column past the image through,
  whose stores WebGPU drops (right everywhere).

What only a GPU can show: whether NVIDIA's scheduling hides the reduction's dropped
barrier (the reversed rerun shows it on both CPU adapters), and the products' and the
pressure solve's roundings under the Vulkan driver's FMA contraction (inside the bounds
the judge now finds).
"""

from __future__ import annotations

import numpy as np
import pytest

import oracle
from oracle import Session, Verdict, expected_outputs
from oracle._inputs import make_case
from oracle.pytest_plugin import require_available
from tests.wild.round56 import CHROME_MATMUL, CODELAB_LIFE


@pytest.fixture(scope="module")
def session():
    with Session(timeout_s=60) as shared:
        yield shared


def _evaluate(session, backend, kernel, size, seed=0):
    return oracle.evaluate(
        session.runner(backend), kernel, size=size, seed=seed, samples=0, warmups=0
    )


def test_a_size_header_in_a_float_input_still_gives_the_product_its_rounding_bound():
    """The float64 runs behind the bounds keep the header the reference reads as sizes:
    the product's elements get a bound, as large as the float32 sum's error where its
    terms cancel (the two sizes at the output's head, read as a constant of the kept
    header, get one of about an ulp, inside the default tolerance)."""
    kernel = CHROME_MATMUL.kernel
    expected = expected_outputs(make_case(kernel, kernel.size("M=19,K=23,N=13"), 3))
    bound = expected.rounding_bound().get("resultMatrix")
    assert bound is not None
    assert (bound[2:] > 0).all() and (bound[:2] < 1e-5 * np.array([19, 13])).all()
    # the element a right float32 kernel computed 8.7e-5 away (lavapipe, seed 3)
    assert bound[119] > 8.7e-5
    # the reference's own values are unchanged by it
    first, second = (
        make_case(kernel, kernel.size("M=19,K=23,N=13"), 3).arrays[k]
        for k in ("firstMatrix", "secondMatrix")
    )
    want = first[2:].astype(np.float64).reshape(19, 23) @ second[2:].astype(np.float64).reshape(
        23, 13
    )
    np.testing.assert_allclose(expected.outputs["resultMatrix"][2:], want.ravel(), rtol=1e-6)


def test_the_matrix_product_with_its_size_header_passes_at_the_seed_it_failed(request, session):
    require_available(request.config, "wgpu")
    ev = _evaluate(session, "wgpu", CHROME_MATMUL.kernel, "M=19,K=23,N=13", seed=3)
    assert ev.passed, ev.report()


def test_the_game_of_life_wraps_wrong_where_the_side_is_no_power_of_two(request, session):
    """The codelab's torus wrap (``(x - 1u) % width``) is right at 32 and 16; at 24 the
    left neighbour of column 0 is column 15, not 23, and the oracle fails it."""
    require_available(request.config, "wgpu")
    ev = _evaluate(session, "wgpu", CODELAB_LIFE.kernel, "H=24,W=24")
    assert ev.verdict is Verdict.MISMATCH, ev.report()

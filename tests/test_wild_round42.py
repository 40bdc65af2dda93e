"""Round 42's findings (tests/wild/round42.py), each pinned by the smallest run that
shows it. No false pass or false alarm this round: the oracle judged the three kernels
after the WebGPU samples and failed every mutant, with no change to forge/ or oracle/.

- Expressible as written: the Game of Life's board size is a bare ``var<storage, read>
  size: vec2<u32>`` (one vec2, given as ``count=1``), its workgroup size
  ``override blockSize = 8`` (an abstract int) in two dimensions.
- A limit of the sample the oracle sees, not a false alarm: its torus wraps through u32
  underflow (``x - 1`` at 0 is 2^32 - 1), whose ``% w`` is ``w - 1`` only where ``w``
  divides 2^32; the sample's boards are powers of two, and on a board 24 wide the
  left neighbours of column 0 come from column 2^32 % 24 - 1 = 15, which the oracle
  reports against a true torus.
- A softmax's running max ``m = max(m, x)`` from -100 instead of the sample's -1e30 is
  caught at one row of one score: the negative input set's row lies below it, every
  ``exp`` underflows and the row is 0 / 0.
"""

from __future__ import annotations

import dataclasses

import pytest

import oracle
from oracle import Session, Verdict
from oracle.pytest_plugin import require_available
from tests.wild import mutant
from tests.wild.round42 import GAME_OF_LIFE, VIT_ATTN_SOFTMAX


@pytest.fixture(scope="module")
def session():
    with Session(timeout_s=60) as shared:
        yield shared


def test_the_game_of_life_passes_on_a_power_of_two_board(request, session):
    """The bare ``vec2<u32>`` storage binding and the ``override`` workgroup size run
    as written; 8 x 8 is one workgroup, every cell on the torus's edge."""
    require_available(request.config, "wgpu")
    ev = oracle.evaluate(
        session.runner("wgpu"), GAME_OF_LIFE.kernel, size="W=8,H=8", seed=0, samples=0, warmups=0
    )
    assert ev.verdict is Verdict.PASS, ev.report()


def test_the_game_of_lifes_u32_wrap_is_wrong_on_a_board_24_wide(request, session):
    """2^32 - 1 mod 24 is 15, not 23: column 0 counts column 15's cells as its left
    neighbours, a wrong cell the oracle finds in one board of 24 x 8."""
    require_available(request.config, "wgpu")
    ev = oracle.evaluate(
        session.runner("wgpu"), GAME_OF_LIFE.kernel, size="W=24,H=8", seed=0, samples=0, warmups=0
    )
    assert ev.verdict is Verdict.MISMATCH, ev.report()


def test_an_attention_softmax_whose_max_starts_at_minus_100_fails(request, session):
    """The negative input set's single score lies below -100: exp underflows to 0 and
    the weight is NaN where numpy's is 1."""
    require_available(request.config, "wgpu")
    wild = dataclasses.replace(
        VIT_ATTN_SOFTMAX, mutants={"m": ("wgsl", "var m = -1e30;", "var m = -100.0;")}
    )
    ev = oracle.evaluate(
        session.runner("wgpu"), mutant(wild, "m"), size="H=1,N=1", seed=0, samples=0, warmups=0
    )
    assert ev.verdict is Verdict.MISMATCH, ev.report()

"""Round 44's findings (tests/wild/round44.py), each pinned by the smallest run that
shows it.

- A false pass, fixed: a softmax whose running maximum is an element of workgroup
  memory (ratchet's ``smem[index] = max(smem[index], X[...])``) was not seen keeping
  one, so the one-sign input sets never ran, and its maximum started at 0 or with a
  fold of its tree dropped passed.
"""

from __future__ import annotations

import pytest

import oracle
from oracle import Session, Verdict
from oracle._builtins import running_extremum
from oracle.pytest_plugin import require_available
from tests.wild import mutant
from tests.wild.round44 import RATCHET_SOFTMAX


@pytest.fixture(scope="module")
def session():
    with Session(timeout_s=60) as shared:
        yield shared


def test_a_running_max_kept_in_workgroup_memory_is_seen():
    """``smem[index] = max(smem[index], X[row_start + i])``: the kernel keeps a running
    maximum, so the oracle also runs it on the one-sign input sets."""
    assert running_extremum(RATCHET_SOFTMAX.kernel)


@pytest.mark.parametrize(
    "what, size",
    [
        # the one row of the negative set lies below -88: every exp underflows, 0 / 0
        ("maximum started at zero", "B=1,M=1,N=4"),
        # 65 vec4s: the row's maximum planted at its last element, in lane 64, which
        # the dropped fold leaves out; the positive set's exp overflows past it
        ("one fold of the maximum dropped", "B=1,M=1,N=260"),
    ],
)
def test_a_softmax_with_a_wrong_running_max_fails_on_a_one_sign_set(request, session, what, size):
    require_available(request.config, "wgpu")
    ev = oracle.evaluate(
        session.runner("wgpu"),
        mutant(RATCHET_SOFTMAX, what),
        size=size,
        seed=0,
        samples=0,
        warmups=0,
    )
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    assert "in the negative input set" in ev.report() or "in the positive input set" in (
        ev.report()
    ), ev.report()

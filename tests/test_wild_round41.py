"""Round 41's findings (tests/wild/round41.py), each pinned by the smallest run that
shows it.

- False pass, fixed: ggml-webgpu's argmax keeps its running best in a struct, ``if (val
  > local_pair.value) { local_pair = Pair(val, i); }``, which ``running_extremum`` did
  not read as a running maximum (it took ``if (x > m) { m = x; }`` with ``m`` a bare
  name only), so the kernel was never run on the one-sign input sets. Its identity
  written -1.0, -100 or BERT's -10000 for ggml's -1e9 passed at every size and seed:
  the ``"all"`` set gave these buffers of 1 to 7 rows no row wholly below -1 (negatives
  come by element there, and no row of large magnitudes fit). The best may now be a
  field or an element of what the branch assigns (``oracle._builtins._EXTREMUM_IF``;
  the patterns in tests/test_oracle_inputs.py).
- An identity of a larger magnitude (f16's lowest, -65504, in this f32 kernel) was
  caught only where some row lay wholly beyond it, which the one-sign sets' large rows
  (magnitudes 1e4 to 1e9) left to chance at rows of 36 and more (once a strict xfail;
  fixed: f32's large magnitudes start at 1e5).
"""

from __future__ import annotations

import dataclasses

import pytest

import oracle
from forge import KernelSpec
from oracle import Session, Verdict
from oracle.pytest_plugin import require_available
from tests.wild import mutant
from tests.wild.round41 import GGML_ARGMAX


@pytest.fixture(scope="module")
def session():
    with Session(timeout_s=60) as shared:
        yield shared


def _identity(value: str) -> KernelSpec:
    written = "const FLOAT_MIN: f32 = -1.0e9;"
    wild = dataclasses.replace(
        GGML_ARGMAX, mutants={"identity": ("wgsl", written, f"const FLOAT_MIN: f32 = {value};")}
    )
    return mutant(wild, "identity")


def test_an_argmax_whose_struct_best_starts_at_minus_one_fails(request, session):
    """PASS before the fix at every size and seed (the one-sign sets never ran); now
    MISMATCH on one row of four: the negative set's large half is a row below -1e4."""
    require_available(request.config, "wgpu")
    ev = oracle.evaluate(
        session.runner("wgpu"), _identity("-1.0"), size="rows=1,ne0=4", seed=0, samples=0, warmups=0
    )
    assert ev.verdict is Verdict.MISMATCH, ev.report()


def test_an_argmax_whose_identity_is_f16s_lowest_fails(request, session):
    """f16's lowest (-65504) as an f32 argmax's identity: every row of the one-sign
    negative set holds some element above it, so the kernel's -1 is never written."""
    require_available(request.config, "wgpu")
    ev = oracle.evaluate(
        session.runner("wgpu"),
        _identity("-65504.0"),
        size="rows=7,ne0=36",
        seed=0,
        samples=0,
        warmups=0,
    )
    assert ev.verdict is Verdict.MISMATCH, ev.report()

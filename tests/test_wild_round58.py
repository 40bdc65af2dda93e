"""What round 58 of the wild kernels (tests/wild/round58.py: KernelBench, AI CUDA Engineer
and ParEval solutions) showed of the oracle, pinned.

ParEval's smallest odd number keeps its minimum with ``atomicMin`` into a sentinel the
host set. A completion that marks "not odd" with -1, ``atomicMin(&m, select(-1, v, odd))``,
passed the default input set at 5003 elements: some line of it always holds an odd
number below -1, so the wrong sentinel never won. The one-sign sets, where every value
is positive and the smallest odd number is above -1, were run only for a running
maximum or minimum written as an assignment (``m = min(m, x)``, ``if (x < m) m = x``),
not as an atomic: ``oracle._builtins.running_extremum`` now counts ``atomicMin`` and
``atomicMax`` too, and the mutant fails at that size alone.
"""

from __future__ import annotations

import dataclasses

import pytest

import forge
import oracle
from oracle._builtins import running_extremum
from oracle.pytest_plugin import require_available
from tests.wild import CORPUS, mutant

_ODD = "wild_r58_pareval_smallest_odd_atomic_min"


def test_an_atomic_min_is_a_running_minimum():
    assert running_extremum(CORPUS[_ODD].kernel)


def test_a_sentinel_of_minus_one_fails_where_every_line_holds_a_negative(request):
    require_available(request.config, "wgpu")
    wrong = mutant(CORPUS[_ODD], "no odd number marked -1")
    wrong = dataclasses.replace(wrong, test_sizes=(5003,))
    right = dataclasses.replace(CORPUS[_ODD].kernel, test_sizes=(5003,))
    with forge.open_context("wgpu") as ctx:  # in this process: no worker to start
        ev = oracle.evaluate(ctx, wrong, size=5003, seed=0, samples=0)
        assert ev.failing, ev.report()
        assert oracle.evaluate(ctx, right, size=5003, seed=0, samples=0).passed


@pytest.mark.parametrize("target", ["wgsl", "cuda"])
def test_both_sources_count_as_a_running_minimum(target):
    kernel = CORPUS[_ODD].kernel
    only = dataclasses.replace(kernel, sources={target: kernel.sources[target]})
    assert running_extremum(only)

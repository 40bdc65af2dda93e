"""What round 65 of the wild kernels (tests/wild/round65.py: vLLM's fused top-k gating
softmax, moe_align_block_size with count_and_sort_expert_tokens, fused_add_rms_norm with
a strided input and reshape_and_cache_flash, each in CUDA and as a WebGPU port) showed of
the oracle, pinned.

Every original passes on the reference, lavapipe and SwiftShader, every WGSL mutant
fails on both (``KFORGE_SLOW_TESTS=1``), and the CUDA sources compile with NVRTC (their
runs and mutants are the GPU machine's).

- A gap, fixed: a top-k that takes the higher of two equal experts passed. The gating
  logits are drawn on a grid of 1/16 with the largest repeated in a third of the rows:
  equal logits, so equal probabilities on every device whatever it rounds, and the
  kernel's rule (the lower expert) decides. The oracle accepted all 43 of the
  mutant's differing indices (at 45 tokens, top-4) as ones "float32 cannot tell
  apart": its runs of the reference with each float result moved by a float32
  rounding (``Expected.single``, directions by the bits of an element's index) moved
  two equal probabilities in opposite directions, so that either expert looked like a
  right answer. A device computes one operation on the same operands the same way:
  those runs, and the one-ulp runs behind ``Expected.unstable_integers`` (directions
  at random per element), now move an operation's elements whose operands are equal
  alike (``oracle._builtins._alike``), and the tie mutants (the higher expert across
  threads; the last column within one, 6 of whose 8 differing indices were accepted)
  fail. Operands that differ by one ulp still move apart: round 64's port that sums
  the distance in another order still passes with its near copies' indices accepted.
  Its wrong port (index + m at those near ties) had 3 of its 7 wrong indices accepted
  as chaotic: the reruns moved the copies' equal y and z terms apart and scattered
  them over three values, and any value was taken; all 7 fail now
  (tests/test_wild_round64.py's guard counts the port's wrong indices, not accepted
  ones).
- A gap, fixed: an ``unordered`` output's sentinel given as ``initial(size)`` was not
  one. vLLM's sort pads each expert's run with ``numel``, the count of ids, so the
  sentinel depends on the size; ``_prefix`` read only a scalar ``initial``, and
  ``sorted_token_ids`` shaped in rows of ``block_size`` was judged as a multiset of
  whole rows, each row's order the reference's. The port, right, failed on its second
  run, whose atomics ran in the reversed order. A callable ``initial`` that gives a
  scalar at the size is now that sentinel, and each row is a multiset of its own.
- A limit, now declarable: a multiset a row judges an expert's ids only where they
  fit in one row (one GEMM block). An expert with more ids than ``block_size`` spans
  two rows, and which of its ids land in which row hangs on the atomics: a right sort
  that takes the ids in another order fails row by row. Declared
  ``unordered="expert_ids"`` (a key a row), each expert's run of blocks is one
  multiset, its ids before its padding, and the same sort passes while one whose ranks
  are one past still fails (``oracle._judge._tied_order``). The entry keeps ``True``,
  its draws within one block an expert.
- Not shown on the CPU adapters: a dropped barrier between a row's four invocations'
  exchange in the top-k port passes on both (a row's invocations run in one SIMD vector
  there, in lockstep); a port that does not skip padding slots writes at slot -1's row,
  before the caches' start, which WGSL's robust access drops. Neither is a mutant.
- Not shown on the H100 (2026-12-07): the MoE sort's CUDA mutant without the barrier
  after the shared-memory counts passes in its values and under compute-sanitizer
  (racecheck tracks no atomic against a later plain read), and the port whose scan step
  reads before its neighbour wrote passes through NVIDIA's Vulkan. Both are
  ``invisible_on`` there; the port's still fails on lavapipe and SwiftShader, the CUDA
  one nowhere: a dropped barrier NVIDIA hides, as in earlier rounds.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import forge
import oracle
from oracle import Session, Verdict
from oracle._builtins import nudging_every_operation, rounding_every_operation
from oracle.pytest_plugin import require_available
from tests.wild import CORPUS, mutant
from tests.wild.round65 import _gating_logits, _topk_reference

_TOPK = "wild_r65_vllm_topk_gating_softmax_16_experts"
_ALIGN = "wild_r65_vllm_moe_align_block_size_webgpu_port"


@pytest.fixture(scope="module")
def session():
    with Session(timeout_s=60) as shared:
        yield shared


def test_the_drawn_logits_tie_where_the_kernels_rule_decides():
    """The entry's logits hold exact ties at a row's first choice, and the tie rule
    matters there: the lower expert (numpy's argmax, the kernel's) differs from the
    higher one in some rows."""
    size = forge.Size({"T": 45, "K": 4})
    logits = _gating_logits(np.random.default_rng(0), 45 * 16, size).reshape(45, 16)
    top = logits.max(axis=1, keepdims=True)
    assert ((logits == top).sum(axis=1) >= 2).sum() >= 10
    want = _topk_reference(logits.reshape(-1), {"num_rows": 45, "k": 4})["indices"]
    higher = 15 - np.argmax(logits[:, ::-1], axis=1)
    assert (want.reshape(45, 4)[:, 0] != higher).any()


def _exp(x):
    return np.exp(x)


def _softmax(x):
    e = np.exp(x - x.max())
    return e * (np.float32(1) / e.sum())


@pytest.mark.parametrize(
    "twin",
    [
        lambda r, seed: nudging_every_operation(r, np.random.default_rng(seed)),
        lambda r, seed: rounding_every_operation(
            r, np.random.default_rng(seed), 2.0**-24, correct_quotients=True, alike=True
        ),
    ],
    ids=["nudged", "rounded"],
)
def test_the_oracles_moved_runs_keep_equal_operands_equal(twin):
    """Equal logits give equal probabilities in every run the oracle moves by
    roundings, and different ones, however close, still move on their own."""
    x = np.array([0.5, 1.25, 0.5, 1.25, 1.25, -2.0, 0.5], np.float32)
    for seed in range(8):
        run = twin(_softmax, seed)
        assert run is not None
        got = np.asarray(run(x))
        assert got[0] == got[2] == got[6] and got[1] == got[3] == got[4]
    near = np.array([1.0, np.nextafter(np.float32(1), np.float32(2))] * 8, np.float32)
    spread = {tuple(np.asarray(twin(_exp, s)(near))[:2] - np.exp(near[:2])) for s in range(8)}
    assert len(spread) > 1


def test_a_topk_that_takes_the_higher_of_equal_experts_fails(request, session):
    require_available(request.config, "wgpu")
    wrong = mutant(CORPUS[_TOPK], "the group lets the higher expert win ties")
    with forge.open_context("wgpu") as ctx:
        ev = oracle.evaluate(ctx, wrong, size="45x4", samples=0)
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    indices = ev.outputs["indices"].comparison
    assert not indices.passed and indices.single == 0, ev.report()


def _reversed_sort(id: str, fill=None) -> forge.KernelSpec:
    """The port with each sort workgroup taking its ids last first: a right kernel whose
    ranks within an expert's run come in another order than the reference's."""
    kernel = CORPUS[_ALIGN].kernel
    tail = (
        "        let expert_id = topk_ids[i];\n"
        "        if (expert_id >= p.num_experts) {\n"
        "            continue;\n"
        "        }\n"
        "        let rank_post_pad"
    )
    old = "    for (var i = tid; i < p.numel; i += stride) {\n" + tail
    new = (
        "    for (var j = tid; j < p.numel; j += stride) {\n"
        "        let i = p.numel - 1 - j;\n" + tail
    )
    source = kernel.sources["wgsl"]
    assert source.count(old) == 1
    buffers = kernel.buffers
    if fill is not None:
        buffers = tuple(
            dataclasses.replace(b, fill=fill) if b.name == "topk_ids" else b for b in buffers
        )
    return dataclasses.replace(
        kernel, id=id, sources={"wgsl": source.replace(old, new)}, buffers=buffers
    )


def test_a_sort_whose_atomics_run_in_another_order_passes(request, session):
    """Each row of sorted_token_ids (a GEMM block, an expert's) is a multiset with the
    size's ``numel`` as its sentinel: ids in the reverse order pass."""
    require_available(request.config, "wgpu")
    right = _reversed_sort("r65_moe_align_reversed")
    with forge.open_context("wgpu") as ctx:
        ev = oracle.evaluate(ctx, right, size="40x8x128x16", samples=0)
    assert ev.verdict is Verdict.PASS, ev.report()


def _crowded(rng, count, size):
    """Ids where expert 0 takes every token (40 of them, blocks of 16): its run spans
    three rows."""
    t, k, e = int(size.T), int(size.K), int(size.E)
    ids = np.stack(
        [np.concatenate(([0], 1 + rng.choice(e - 1, k - 1, replace=False))) for _ in range(t)]
    )
    return ids.reshape(-1).astype(np.int32)[:count]


def _by_expert(kernel: forge.KernelSpec) -> forge.KernelSpec:
    """``kernel`` with ``sorted_token_ids`` unordered among equal ``expert_ids``: one key
    a row (a GEMM block), so each expert's run of blocks is one multiset."""
    buffers = tuple(
        dataclasses.replace(b, unordered="expert_ids") if b.name == "sorted_token_ids" else b
        for b in kernel.buffers
    )
    return dataclasses.replace(kernel, buffers=buffers)


def test_a_sort_of_an_expert_spanning_blocks_is_judged_by_its_run(request, session):
    """Expert 0 takes every token, its ids span three blocks: a right sort whose atomics
    run in another order fails row by row, and passes declared unordered among equal
    ``expert_ids`` (a key a row); a sort whose ranks are one past, or whose padding is
    rounded down, still fails so declared."""
    require_available(request.config, "wgpu")
    right = _reversed_sort("r65_moe_align_reversed_crowded", fill=_crowded)
    with forge.open_context("wgpu") as ctx:
        rows = oracle.evaluate(ctx, right, size="40x8x128x16", samples=0)
        runs = oracle.evaluate(ctx, _by_expert(right), size="40x8x128x16", samples=0)
    assert rows.verdict is Verdict.MISMATCH, rows.report()
    assert runs.verdict is Verdict.PASS, runs.report()
    assert any("unordered among equal expert_ids" in n for n in runs.notes), runs.report()
    for what in ("the rank taken one past", "padding rounded down"):
        wrong = _by_expert(mutant(CORPUS[_ALIGN], what))
        with forge.open_context("wgpu") as ctx:
            ev = oracle.evaluate(ctx, wrong, size="40x8x128x16", samples=0)
        assert ev.verdict is not Verdict.PASS, (what, ev.report())


def test_equal_operands_are_grouped_as_numpy_unique_groups_them():
    """``_alike``'s grouping (one sort of the keys' high bits packed with the index)
    gives each element the first element with its key, as ``np.unique``'s indices did,
    also where keys share their high bits but differ."""
    from oracle._builtins import _repeated_keys

    rng = np.random.default_rng(5)
    key = rng.integers(0, 40, 5000).astype(np.uint64) * np.uint64(1 << 40)
    key[::3] |= np.uint64(1)  # same high bits, another key
    members, heads = _repeated_keys(key)
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    want = first[inverse]
    got = np.arange(key.size)
    got[members] = heads
    assert got.tolist() == want.tolist()
    assert _repeated_keys(np.arange(10, dtype=np.uint64))[0].size == 0

"""What round 52's kernels (tests/wild/round52.py) showed, pinned.

- A false pass, fixed: a GPU hash table judged as the set of its (key, value) slots, an
  ``unordered`` output of shape (capacity, 2), was compared as one multiset of scalars,
  so an insert that stored each key as the value and the value as the key (the pair's
  fields swapped) passed: the table held the same numbers. Rows of integers are now
  whole items, compared as a multiset of rows (``oracle._judge._unordered_order``);
  rows of floats stay a multiset of scalars, where a rounding that reorders two
  near-equal first elements would misalign the rest.
- A false pass, fixed: the domino scan's port with its last element loaded as 0. In
  the ``all`` input set every running total after the ``large`` block is about 4e8, and
  the last element (3.8) is below half an ulp of it: the float result was the same. A
  kernel whose reference takes a running sum or product (``np.cumsum``, ``x.cumsum()``,
  ``np.add.accumulate``: ``oracle._builtins.accumulates``) now also runs the ``normal``
  set, moderate values throughout, where it fails; the corpus's 12 other such kernels
  pass there (and at seeds 2 to 4), and their mutants still fail.
- The references are what they claim: the Philox of the flash-attention entry is
  Random123's Philox4x32 (its known answers at ten rounds), run at seven; the xxHash
  one is XXH32 (its known answers); the hash
  table's reference holds exactly the pairs, one per key, each key reachable from its
  home slot without crossing an empty one.

Everything else ran as expected on lavapipe and SwiftShader (2026-12-06): every
original passes (at seeds 0 to 5 and at sizes beyond its test sizes), every WGSL mutant
fails on both adapters, and the CUDA entries compile with NVRTC (they run on the GPU
machine). Not kept as a mutant: the domino scan's port without the barrier before
invocation 0 reads the section's sum, which both adapters ran in an order that hides.
"""

from __future__ import annotations

import numpy as np
import pytest

import oracle
from forge import BufferSpec
from oracle import Session, Verdict
from oracle.pytest_plugin import require_available
from tests.wild import mutant
from tests.wild.round52 import (
    DOMINO_SCAN,
    HASH_INSERT,
    _capacity,
    _hash_table_reference,
    _key_values,
    _murmur_slots,
    philox4x32,
    xxh32,
)


@pytest.fixture(scope="module")
def session():
    with Session(timeout_s=60) as shared:
        yield shared


def test_an_unordered_table_of_integer_rows_is_a_multiset_of_rows():
    """No device needed: a hash table's slots (key, value), empty slots (0, 0) where
    they fall. Another order of the slots passes; the same numbers with each key and
    value swapped passed as a multiset of scalars and fails as a multiset of rows."""
    from oracle._judge import _unordered_order

    spec = BufferSpec(0, "u32", "read_write", initial=0, unordered=True, shape=(6, 2))
    want = np.array([[0, 0], [5, 50], [0, 0], [7, 70], [9, 90], [0, 0]], np.uint32)
    order = _unordered_order(spec, want, False, row=2)
    assert order.unit == 2 and order.prefix is None
    right = np.array([[7, 70], [0, 0], [9, 90], [0, 0], [0, 0], [5, 50]], np.uint32)
    assert np.array_equal(order(right), order(want))
    swapped = want[:, ::-1].copy()
    assert np.array_equal(np.sort(swapped.reshape(-1)), np.sort(want.reshape(-1)))
    assert not np.array_equal(order(swapped), order(want))
    crossed = np.array([[0, 0], [5, 70], [0, 0], [7, 50], [9, 90], [0, 0]], np.uint32)
    assert not np.array_equal(order(crossed), order(want))


def test_rows_of_floats_and_appended_rows_keep_their_rules():
    """Float rows stay a multiset of scalars; integer rows a reference appends (pairs,
    then the sentinel) are rows in each part, the prefix and the rest."""
    from oracle._judge import _unordered_order

    floats = BufferSpec(0, "f32", "read_write", unordered=True, shape=(3, 2))
    points = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
    assert _unordered_order(floats, points, False, row=2).unit == 1
    sentinel = 0xFFFFFFFF
    spec = BufferSpec(0, "u32", "read_write", initial=sentinel, unordered=True, shape=(4, 2))
    want = np.array([[1, 2], [3, 4], [5, 6], [sentinel, sentinel]], np.uint32)
    order = _unordered_order(spec, want, False, row=2)
    assert order.unit == 2 and order.prefix == 6 and order.rows == 0
    right = np.array([[5, 6], [1, 2], [3, 4], [sentinel, sentinel]], np.uint32)
    assert np.array_equal(order(right), order(want))
    one_past = np.array([[sentinel, sentinel], [5, 6], [1, 2], [3, 4]], np.uint32)
    assert not np.array_equal(order(one_past), order(want))


def test_the_philox_reference_gives_random123s_known_answers_at_ten_rounds():
    # Random123's kat_vectors: philox4x32 10, counter and key all zeros, and all ones
    zero = philox4x32(0, np.array([0]), 0, rounds=10)[0]
    assert [int(w) for w in zero] == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]
    ones = philox4x32(2**64 - 1, np.array([2**64 - 1], np.uint64), 2**64 - 1, rounds=10)[0]
    assert [int(w) for w in ones] == [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]


def test_the_xxhash_reference_gives_xxh32s_known_answers():
    # the empty input, a tail of bytes only, and 39 bytes: two stripes, five words, 3 bytes
    for text, want in (
        (b"", 0x02CC5D05),
        (b"abc", 0x32D153FF),
        (b"Nobody inspects the spammish repetition", 0xE2293B2F),
    ):
        row = np.frombuffer(text, np.uint8).reshape(1, len(text))
        assert int(xxh32(row, 0)[0]) == want, text


@pytest.mark.parametrize("n", [1, 300, 3000])
def test_the_hash_table_reference_holds_each_key_once_reachable_from_its_home(n):
    rng = np.random.default_rng(n)
    kvs = _key_values(rng, 2 * n, n)
    table = _hash_table_reference(np.zeros((_capacity(n), 2), np.uint32), kvs)
    pairs = kvs.reshape(-1, 2)
    held = table[table[:, 0] != 0]
    assert dict(map(tuple, held.tolist())) == dict(map(tuple, pairs.tolist()))
    assert len(held) == len(set(pairs[:, 0].tolist()))
    capacity = len(table)
    homes = _murmur_slots(held[:, 0], capacity)
    slots = {int(k): i for i, k in enumerate(table[:, 0]) if k}
    for key, home in zip(held[:, 0].tolist(), homes.tolist()):
        at = home
        while at != slots[key]:
            assert table[at, 0] != 0
            at = (at + 1) & (capacity - 1)


def test_a_hash_table_insert_that_swaps_key_and_value_fails(request, session):
    require_available(request.config, "wgpu")
    broken = mutant(HASH_INSERT, "key and value swapped")
    ev = oracle.evaluate(session.runner("wgpu"), broken, size=300, seed=0, samples=0)
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    assert any("multiset of rows" in note for note in ev.notes), ev.report()


def test_a_reference_that_takes_a_running_sum_is_told_from_one_that_does_not():
    from oracle._builtins import accumulates

    def by_function(X):
        return np.cumsum(X.astype(np.float64))

    def by_method(x):
        return x.astype(np.float64).cumsum(axis=-1)

    def by_ufunc(x):
        return np.add.accumulate(x)

    def total(x):
        return np.sum(x, keepdims=True)

    assert all(accumulates(f) for f in (by_function, by_method, by_ufunc, np.cumsum))
    assert not accumulates(total) and not accumulates(np.sum)


def test_a_scan_that_leaves_out_its_last_element_fails_on_moderate_values(request, session):
    """The domino scan's port loading its last element as 0: in the ``all`` set the
    running total there is about 4e8 (the large block's), the element 3.8, below half an
    ulp, so it passed; a reference that takes a running sum now also runs the ``normal``
    set, where the last total is tens and the element moves it by far more than its
    rounding."""
    require_available(request.config, "wgpu")
    broken = mutant(DOMINO_SCAN, "the last element left out")
    ev = oracle.evaluate(session.runner("wgpu"), broken, size=2500, seed=0, samples=0)
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    assert ev.input_sets[0].startswith("all (") and len(ev.input_sets) == 2, ev.input_sets
    assert ev.input_sets[1].startswith("normal") and "mismatch" in ev.input_sets[1]
    right = oracle.evaluate(session.runner("wgpu"), DOMINO_SCAN.kernel, size=2500, samples=0)
    assert right.passed and any(s.startswith("normal") for s in right.input_sets), right.report()

"""Round 52 (tests/wild/round52.py): a GPU hash table judged as the set of its (key, value)
slots, an ``unordered`` output of shape (capacity, 2), was compared as one multiset of
scalars, so an insert that swapped each key and value passed. Rows of integers are now
whole items, compared as a multiset of rows (``oracle._judge._unordered_order``); rows of
floats stay a multiset of scalars."""

from __future__ import annotations

import numpy as np

from forge import BufferSpec


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

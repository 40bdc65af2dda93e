"""An output of indices into an input's rows declared ``unordered=<input>`` (an argsort
that is not stable, a top-k whose last places tie): an index of an equal value in place
of the reference's is right, each index once a row (``oracle._judge.tied_indices``).
Round 74's ggml argsort, right, failed 1105 of 1200 indices on keys drawn from eight
values before (tests/test_wild_round74.py)."""

from __future__ import annotations

import numpy as np

from oracle._judge import tied_indices

_KEYS = np.array([3.0, 1.0, 3.0, 2.0, 1.0, 3.0], np.float32)  # one row
_WANT = np.array([0, 2, 5, 3, 1, 4], np.int32)  # descending, ties by first index


def test_equal_keys_in_another_order_are_the_reference():
    got = np.array([5, 0, 2, 3, 4, 1], np.int32)
    assert tied_indices(got, _WANT, _KEYS).tolist() == _WANT.tolist()


def test_an_index_of_another_value_stays():
    got = np.array([0, 2, 3, 5, 1, 4], np.int32)  # the 2.0 moved up a place
    moved = tied_indices(got, _WANT, _KEYS)
    assert (moved != _WANT).tolist() == [False, False, True, True, False, False]


def test_an_index_given_twice_stays_wherever_it_is():
    got = np.array([0, 0, 5, 3, 1, 4], np.int32)  # 2 left out, 0 twice
    moved = tied_indices(got, _WANT, _KEYS)
    assert moved[1] != _WANT[1] and moved[0] == 0


def test_rows_are_found_from_a_flat_argsort_and_indices_stay_in_their_row():
    keys = np.concatenate([_KEYS, _KEYS])
    want = np.concatenate([_WANT, _WANT])
    got = np.concatenate([[5, 0, 2, 3, 4, 1], [5, 0, 2, 3, 4, 1]]).astype(np.int32)
    assert tied_indices(got, want, keys).tolist() == want.tolist()
    # the second row's first index pointing at the first row's tie would be a global
    # index; read as local it is the same element of its own row: still right
    bad = got.copy()
    bad[6] = 9  # no such index in a row of 6
    assert tied_indices(bad, want, keys)[6] == 9


def test_a_top_k_whose_last_place_ties_takes_either():
    keys = np.array([[5.0, 3.0, 3.0, 1.0], [0.0, 2.0, 2.0, 2.0]], np.float32)
    want = np.array([[0, 1], [1, 2]], np.int32)
    got = np.array([[0, 2], [3, 1]], np.int32)
    assert tied_indices(got, want, keys.reshape(-1), row=2).tolist() == want.tolist()


def test_nans_are_ties_of_each_other_and_of_nothing_else():
    keys = np.array([np.nan, 1.0, np.nan], np.float32)
    want = np.array([0, 2, 1], np.int32)
    assert tied_indices(np.array([2, 0, 1], np.int32), want, keys).tolist() == [0, 2, 1]
    assert tied_indices(np.array([1, 2, 0], np.int32), want, keys)[0] == 1

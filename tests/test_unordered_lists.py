"""``unordered="lists"``: an output of lists each appended from its own base, a list's
free slots after it holding the declared ``initial`` (round 72's Bevy batch sets). Each
run of the reference's written elements, of whole rows for integers shaped in rows, is
a multiset; the free slots are compared where they are (``oracle._judge._lists_order``)."""

from __future__ import annotations

import numpy as np
import pytest

from forge import BufferSpec, InvalidArgument, KernelSpec
from oracle._judge import _lists_order

_FREE = 0xFFFFFFFF


def _order(want, row=None):
    return _lists_order(np.asarray(want, np.uint32), _FREE, row)


def test_each_list_is_a_multiset_up_to_its_free_slots():
    want = [3, 1, 2, _FREE, 7, 5, _FREE, _FREE]
    order = _order(want)
    assert order.parts == [(0, 3), (4, 6)]
    got = np.array([2, 3, 1, _FREE, 5, 7, _FREE, _FREE], np.uint32)
    assert order(got).tolist() == order(np.asarray(want, np.uint32)).tolist()


def test_a_list_appended_one_past_its_base_differs():
    want = np.array([3, 1, _FREE, 7, _FREE], np.uint32)
    got = np.array([_FREE, 3, 1, _FREE, 7], np.uint32)  # every append one slot on
    order = _order(want)
    assert (order(got) != order(want)).all()


def test_rows_of_integers_stay_whole():
    want = np.array([[1, 2], [3, 4], [_FREE, _FREE], [5, 6]], np.uint32)
    order = _order(want, row=2)
    assert order.parts == [(0, 4)]  # the lone last list has nothing to reorder
    swapped = np.array([[3, 4], [1, 2], [_FREE, _FREE], [5, 6]], np.uint32)
    assert order(swapped).tolist() == order(want).tolist()
    mixed = np.array([[1, 4], [3, 2], [_FREE, _FREE], [5, 6]], np.uint32)
    assert order(mixed).tolist() != order(want).tolist()


def test_a_buffer_named_lists_makes_the_declaration_ambiguous():
    out = BufferSpec(1, "u32", "read_write", name="out", unordered="lists", initial=_FREE)
    other = BufferSpec(0, "u32", "read", name="lists")
    with pytest.raises(InvalidArgument, match='named "lists"'):
        KernelSpec(id="k", entry_point="main", buffers=(other, out), sources={"wgsl": "x"})

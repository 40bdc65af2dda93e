"""An output declared a labeling (``BufferSpec(labels=...)``: a connected component's,
a cluster's, a union-find root's label per element) is judged as the partition its
labels make: any renaming of the groups is right, a split, a merge or a group moved onto
the background is not (round 68: a right labeling numbered in the order its atomics ran
failed, label by label)."""

from __future__ import annotations

import numpy as np
import pytest

from forge import BufferSpec, InvalidArgument
from oracle._expected import POISON_OUTPUT, poisoned
from oracle._judge import relabeled

_WANT = np.array([0, 1, 1, 0, 4, 4, 4, 0, 9], np.int32)


def test_a_renamed_partition_is_the_reference_itself():
    got = np.array([0, 7, 7, 0, 2, 2, 2, 0, 5], np.int32)
    assert relabeled(got, _WANT, (0,)).tolist() == _WANT.tolist()


@pytest.mark.parametrize(
    "got, wrong",
    [
        ([0, 7, 7, 0, 7, 7, 7, 0, 5], [4, 5, 6]),  # two groups merged
        ([0, 7, 7, 0, 2, 3, 2, 0, 5], [5]),  # one split in two
        ([0, 7, 7, 0, 2, 2, 2, 3, 5], [7]),  # the background taken into a group
        ([0, 7, 0, 0, 2, 2, 2, 0, 5], [2]),  # a group's element put on the background
        ([0, 7, 7, 0, 2, 2, 2, 2, 5], [7]),  # the background joined to a group
    ],
)
def test_a_different_partition_mismatches_where_it_differs(got, wrong):
    moved = relabeled(np.array(got, np.int32), _WANT, (0,))
    assert np.flatnonzero(moved != _WANT).tolist() == wrong


def test_without_kept_values_the_background_is_a_group_like_any():
    got = np.array([3, 1, 1, 3, 0, 0, 0, 3, 8], np.int32)  # 0 and 3 swapped roles
    assert relabeled(got, _WANT).tolist() == _WANT.tolist()
    assert (relabeled(got, _WANT, (0,)) != _WANT).sum() == 6


def test_an_unwritten_element_stays_poison():
    got = np.array([0, 7, 7, 0, 2, 2, 2, 0, 5], np.int32)
    got[8] = poisoned(got.dtype, 1, POISON_OUTPUT)[0]
    moved = relabeled(got, _WANT, (0,))
    assert moved[8] == got[8] and moved[:8].tolist() == _WANT[:8].tolist()


def test_labels_is_for_an_output_of_integers():
    assert BufferSpec(1, "u32", "read_write", name="l", labels=[0, 255]).labels == (0, 255)
    assert BufferSpec(1, "i32", "read_write", name="l", labels=True).describe()["labels"]
    for wrong in (
        dict(element="f32", labels=True),
        dict(element="u32", labels="background"),
        dict(element="u32", labels=True, unordered=True),
        dict(element="u32", labels=True, scratch=True),
    ):
        with pytest.raises(InvalidArgument, match="labels"):
            BufferSpec(1, access="read_write", name="l", **wrong)
    with pytest.raises(InvalidArgument, match="labels"):
        BufferSpec(1, "u32", "read", name="l", labels=True)


def test_a_split_group_gets_a_label_the_reference_does_not_use_at_the_dtypes_end():
    top = np.iinfo(np.uint32).max
    want = np.array([top, 3, 3, 0], np.uint32)
    got = np.array([5, 6, 7, 8], np.uint32)  # the group of 3 split in two
    moved = relabeled(got, want)
    assert (moved != want).tolist() == [False, False, True, False]
    assert moved[2] not in want

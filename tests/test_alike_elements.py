"""The rounding runs move equal operands alike (``oracle._builtins._repeated_elements``):
an element whose operands an earlier element has takes that element's direction. The
grouping looks at each operand on its own array where no two operands share an axis
(a pairwise operation of points by edges groups thousands, not millions); it must find
exactly the groups that hashing every element's operands together finds."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle._builtins import _hashed, _repeated_elements, _repeated_keys


def _firsts(found: tuple[np.ndarray, np.ndarray], size: int) -> np.ndarray:
    first = np.arange(size)
    first[found[0]] = found[1]
    return first


@st.composite
def _operands(draw):
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=3)))
    arrays = []
    for _ in range(draw(st.integers(1, 3))):
        own = tuple(d if draw(st.booleans()) else 1 for d in shape)
        own = own[draw(st.integers(0, len(own))) :]  # fewer dimensions broadcast too
        values = draw(st.integers(1, 3))  # few values: repeats are common
        dtype = draw(st.sampled_from([np.float32, np.float64, np.int32, np.uint8]))
        seed = draw(st.integers(0, 2**32 - 1))
        arrays.append(np.random.default_rng(seed).integers(0, values, own).astype(dtype))
    return arrays


@settings(max_examples=300, deadline=None)
@given(_operands())
def test_the_elements_alike_are_those_whose_operands_all_repeat(arrays):
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    size = int(np.prod(shape))
    every_pair = _repeated_keys(_hashed(np.broadcast_arrays(*arrays)))
    assert (_firsts(_repeated_elements(arrays, shape), size) == _firsts(every_pair, size)).all()


def test_points_by_edges_are_grouped_by_their_own_repeats():
    """3 points by 4 edges, points 0 and 2 equal, edges 1 and 3 equal: each pair of
    point 2 is point 0's pair with that edge, and each pair of edge 3 the pair of
    edge 1 (flat indices, 4 edges a row)."""
    points = np.array([[1.0], [2.0], [1.0]])
    edges = np.array([[5.0, 6.0, 7.0, 6.0]])
    later, heads = _repeated_elements([points, edges], (3, 4))
    alike = dict(zip(later.tolist(), heads.tolist()))
    assert alike == {3: 1, 7: 5, 8: 0, 9: 1, 10: 2, 11: 1}

"""What round 69 of the wild kernels (tests/wild/round69.py: ToruNiina/lbvh's Karras
internal nodes, cuda-samples' reorderDataAndFindCellStartD and HeCBench's pnpoly_opt<4>,
each in CUDA and as a WebGPU port) showed of the oracle, pinned.

Every original passes on the reference, lavapipe and SwiftShader, every WGSL mutant
fails on both (``KFORGE_SLOW_TESTS=1``), and the CUDA sources compile with NVRTC (their
runs and mutants are the GPU machine's).

- No gap found in the oracle. The crossing number's decisions near an edge are judged
  tightly: a port whose crossing x is moved by 1e-5 (about a hundred ulps at |x| ~ 1)
  fails on one point of 3001 with every other point accepted, and ports that round
  otherwise (an ``fma``, the slope by a reciprocal, W. R. Franklin's order of the
  operations) pass: the reruns behind ``Expected.unstable_integers`` tell a rounding
  from a shift. A MISMATCH there takes about a minute on lavapipe (those reruns), a
  pass about a second.
- Not shown on the CPU adapters, for the GPU run: the CUDA mutants. Each is emulated
  below on the entry's own draws (the LBVH's in Python, step by step as the CUDA
  writes it; the grid's and the polygon's in numpy) and differs from the reference
  there, so each must fail on the H100; the grid's dropped barrier is a race between
  warps (a warp's first thread reads the hash the previous warp's last wrote), in
  ``Wild.races`` for compute-sanitizer where the values hide it.
- The CUDA LBVH's reference is not the kernel's algorithm: it builds the tree top-down
  (a range split where the highest bit its ends differ in turns to 1); the bottom-up
  emulation of ``determine_range`` and ``find_split`` below agrees with it on every
  draw, so the two are checked against each other.
"""

from __future__ import annotations

import numpy as np
import pytest

import forge
from tests.wild.round69 import (
    _GRID_CELLS,
    _POLYGON,
    _lbvh_reference_64,
    _node_code_64,
    _pnpoly_reference,
    _points,
    _sorted_hashes,
    _sorted_morton,
)

_M64 = (1 << 64) - 1


def _clz64(x: int) -> int:
    return 64 - x.bit_length()


def _emulate_cuda_lbvh(codes: list[int], mutant: str = "") -> np.ndarray:
    """construct_internal_nodes<unsigned long long> as the CUDA writes it, a node at a
    time; ``mutant`` names one of the entry's CUDA mutants."""
    n = len(codes)

    def cub(a: int, b: int) -> int:
        if mutant == "tie":
            return 32 - (((a ^ b) & _M64) >> 32).bit_length()
        return _clz64((a ^ b) & _M64)

    def determine_range(idx: int) -> tuple[int, int]:
        if idx == 0:
            return 0, n - 1
        s = codes[idx]
        ld, rd = cub(s, codes[idx - 1]), cub(s, codes[idx + 1])
        d = (1 if rd < ld else -1) if mutant == "direction" else (1 if rd > ld else -1)
        dmin = min(ld, rd)

        def at(i: int) -> int:
            return cub(s, codes[i]) if 0 <= i < n else -1

        l_max = 2
        while at(idx + d * l_max) > dmin:
            l_max <<= 1
        length, t = 0, l_max >> 1
        while t > 0:
            if at(idx + (length + t) * d) > dmin:
                length += t
            t >>= 1
        j = idx + length * d
        return min(idx, j), max(idx, j)

    def find_split(first: int, last: int) -> int:
        fc, lc = codes[first], codes[last]
        if fc == lc:
            return (first + last) >> 1
        dn = cub(fc, lc)
        split, stride = first, last - first
        while True:
            stride = stride >> 1 if mutant == "stride" else (stride + 1) >> 1
            middle = split + stride
            if middle < last and cub(fc, codes[middle]) > dn:
                split = middle
            if stride <= 1:
                break
        return split

    nodes = np.full((2 * n - 1, 4), 0xFFFFFFFF, np.uint32)
    for idx in range(n - 1):
        first, last = determine_range(idx)
        gamma = find_split(first, last)
        left = gamma + (n - 1 if first == gamma else 0)
        right = gamma + 1 + (n - 1 if last == gamma + 1 else 0)
        if not (0 <= left < 2 * n - 1 and 0 <= right < 2 * n - 1):
            return np.zeros((0, 4), np.uint32)  # out of bounds: an illegal address
        nodes[idx, 1:] = (left, right, 0xFFFFFFFF)
        nodes[left, 0] = idx
        nodes[right, 0] = idx
    return nodes


@pytest.mark.parametrize("n", [1000, 3001, 2])
@pytest.mark.parametrize("seed", [0, 1])
def test_the_cuda_lbvh_emulated_builds_the_reference_tree_and_its_mutants_do_not(n, seed):
    """Bottom-up (the kernel's algorithm) and top-down (the reference's) agree on the
    entry's keys, where codes repeat; each CUDA mutant builds another tree (except at
    two objects, whose one node every variant gets right)."""
    size = forge.Size({"n": n})
    keys = _node_code_64(np.random.default_rng(seed), n, size)
    assert (np.diff(keys.astype(np.uint64)) > 0).all()  # the tie-break makes them unique
    codes = [int(k) for k in keys]
    want = _lbvh_reference_64(keys, n)["nodes"]
    assert np.array_equal(_emulate_cuda_lbvh(codes), want)
    for bug in ("stride", "direction", "tie"):
        got = _emulate_cuda_lbvh(codes, bug)
        assert (n == 2) == (got.shape == want.shape and np.array_equal(got, want)), bug


def test_the_morton_draw_repeats_codes_in_runs():
    """A third of the points on a coarse lattice: runs of equal 30-bit codes, which only
    the index tie-break orders."""
    code, _ = _sorted_morton(np.random.default_rng(0), 3001)
    repeats = int((np.diff(code) == 0).sum())
    assert repeats > 500
    assert code.max() < 2**30


def _cell_ranges(h: np.ndarray, mutant: str = "") -> tuple[np.ndarray, np.ndarray]:
    """reorderDataAndFindCellStartD's cellStart and cellEnd, block by block as the CUDA
    computes them."""
    n = len(h)
    block = min(256, n)
    start = np.full(_GRID_CELLS, 0xFFFFFFFF, np.uint32)
    end = np.full(_GRID_CELLS, 0xFFFFFFFF, np.uint32)
    for index in range(n):
        if index % block == 0 and index > 0:
            before = h[index] if mutant == "first" else h[index - 1]
        else:
            before = h[index - 1] if index > 0 else 0
        if index == 0 or h[index] != before:
            start[h[index]] = index
            if index > 0:
                end[before] = index
        if index == n - 1:
            end[h[index]] = index if mutant == "last" else index + 1
    return start, end


@pytest.mark.parametrize("n", [3001, 1000, 200])
def test_the_grid_draw_shows_the_cuda_mutants(n):
    """Cells start at a block's first particle in the entry's draws (so a block's first
    thread comparing with itself misses them) and the last cell is judged."""
    h = _sorted_hashes(np.random.default_rng(0), n, forge.Size({"n": n})).astype(np.int64)
    start, end = _cell_ranges(h)
    cells, first = np.unique(h, return_index=True)
    assert np.array_equal(start[cells], first)
    assert not np.array_equal(_cell_ranges(h, "last")[1], end)
    if n > 256:
        assert not np.array_equal(_cell_ranges(h, "first")[0], start)


def test_the_polygon_draw_puts_points_level_with_vertices_where_the_rule_decides():
    """A tenth of the points share a vertex's y; there the half-open test with ``>=`` on
    one end answers otherwise for some of them, and nowhere does a rounding decide."""
    n = 3001
    p = _points(np.random.default_rng(0), n, forge.Size({"n": n}))
    level = np.isin(p[:, 1], _POLYGON[:, 1])
    assert level.sum() > 200
    want = _pnpoly_reference(p, _POLYGON)
    v = _POLYGON
    vk = np.roll(v, 1, axis=0)
    py = p[:, 1:2]
    between = (v[None, :, 1] >= py) != (vk[None, :, 1] > py)
    slope = (vk[:, 0] - v[:, 0]) / (vk[:, 1] - v[:, 1])
    cross = p[:, 0:1] < slope[None, :] * (py - v[None, :, 1]) + v[None, :, 0]
    wrong = np.count_nonzero(between & cross, axis=1) % 2
    assert (wrong != want)[level].any() and not (wrong != want)[~level].any()
    # the closing edge left out: the CUDA mutant's polygon
    assert (want != _open_polygon(p)).any()


def _open_polygon(p: np.ndarray) -> np.ndarray:
    """``int k = 0``: the edges (1, 0), (2, 1), ... but not (0, last)."""
    vj, vk = _POLYGON[1:], _POLYGON[:-1]
    py = p[:, 1:2]
    between = (vj[None, :, 1] > py) != (vk[None, :, 1] > py)
    slope = (vk[:, 0] - vj[:, 0]) / (vk[:, 1] - vj[:, 1])
    cross = p[:, 0:1] < slope[None, :] * (py - vj[None, :, 1]) + vj[None, :, 0]
    return (np.count_nonzero(between & cross, axis=1) % 2).astype(np.int32)

"""What round 68 of the wild kernels (tests/wild/round68.py: YACCLAB's union-find
labeling, OpenCV's CUDA Canny magnitude and non-maximum suppression, and a cupy van
Herk/Gil-Werman dilation, each in CUDA and as a WebGPU port) showed of the oracle,
pinned.

Every original passes on the reference, lavapipe and SwiftShader, every WGSL mutant
fails on lavapipe and all but one on SwiftShader too (``KFORGE_SLOW_TESTS=1``), and the
CUDA sources compile with NVRTC (their runs and mutants are the GPU machine's). No
oracle change: where the outputs hang on comparisons the kernels here compare integers
or floats that hold integers (an L1 magnitude, a max of ints), so nothing rounds and
each rule is judged exactly.

- Ties judged, not avoided: the Canny entry's scene of grey plateaus puts equal
  magnitudes on both sides of every step edge and magnitudes exactly at the thresholds,
  so the suppression's ``>`` behind and ``>=`` ahead and ``m > high_thresh`` each decide
  elements of the map (pinned below); ``>=`` on both sides, ``>`` on both, and ``>=`` at
  the strong threshold all fail (the CUDA ones' WGSL twins were run on lavapipe while
  writing the round: 78 of 2280 map elements for the ``>`` one, none accepted as a
  rounding's). The map is an integer the reference decides from floats, and none of
  its differing elements was taken as ill-conditioned: the magnitudes are integers in
  float32, equal ones move alike in the oracle's moved runs.
- A labeling judged by its rule: the union-find links a larger root under a smaller,
  so each component's label is 1 + its least linear index whatever order the atomics
  run in, and an exact comparison with that is honest; the dropped barrier between
  the unions and the finds (a tile's pixel pointed at a root not yet linked under its
  final one), the anti-diagonal union dropped, a tile's left border not joined and the
  last row left uncompressed all fail.
- A gap, fixed: a labeling was compared label by label. A right kernel whose rule
  numbers the components in the order its atomics run (roots numbered by an atomic
  counter, as kernels that compact their labels to 1..K do) gives the same partition
  with other numbers, and failed. An output declared ``BufferSpec(labels=(0,))`` is now
  judged as its partition, 0 kept (``oracle._judge.relabeled``, tests/test_labels.py):
  the renumbering port passes so declared, and the union-find mutants that miss a
  neighbour still fail. Undeclared, it is judged exactly, as before.
- Not shown on SwiftShader (Chrome's): the port of the van Herk/Gil-Werman dilation
  without its barrier between the prefix and suffix maxima and their reads passes
  there: a window's two invocations, ``(0, ty)`` and ``(1, ty)``, are neighbours in one
  SIMD group, in lockstep, in either order the reversed twin gives them; lavapipe shows
  it (``invisible_on``). The oracle's twin reverses the invocations, which keeps
  neighbours together; a twin that strides them apart would show it, and is not built.

For the GPU run to confirm: the three CUDA entries pass as written; their mutants
fail, the union-find's dropped barrier (``Wild.races``) by its values or under
compute-sanitizer; the van Herk/Gil-Werman mutant that writes one past ``image_shape``
shows as a write past the end at 9x50x5 (its last window reaches the image's end).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import forge
import oracle
from oracle import Session, Verdict
from oracle.pytest_plugin import require_available
from tests.wild import CORPUS, mutant
from tests.wild.round68 import (
    _CANNY_HIGH,
    _CANNY_LOW,
    _binary_image,
    _canny_reference,
    _plateaus,
    _uf_reference,
)

_UF_PORT = "wild_r68_yacclab_uf_labeling_webgpu_port"


@pytest.fixture(scope="module")
def session():
    with Session(timeout_s=60) as shared:
        yield shared


def test_the_drawn_scene_ties_where_the_suppressions_rule_decides():
    """The plateau draw gives equal magnitudes on both sides of a step (the rule keeps
    the first: ``>`` behind, ``>=`` ahead) and magnitudes exactly at both thresholds
    (``m > low``, ``m > high``): each rule decides some element of the map."""
    size = forge.Size({"rows": 40, "cols": 57})
    src = _plateaus(np.random.default_rng(0), 40 * 57, size)
    out = _canny_reference(src, 40, 57)
    mag, edge = out["mag"], out["map"]
    inner = mag[1:-1, 1:-1]
    assert (inner == np.float32(_CANNY_HIGH)).sum() >= 5
    assert (inner == np.float32(_CANNY_LOW)).sum() >= 3
    # a tie kept on the first side: an edge whose next neighbour along x holds as much
    ties = (edge[1:-1, 1:-2] > 0) & (mag[1:-1, 1:-2] == mag[1:-1, 2:-1]) & (inner[:, :-1] > 50)
    assert ties.sum() >= 10


def test_the_drawn_images_join_components_across_tiles_and_diagonals():
    """The binary draw near the percolation threshold holds components that cross the
    16x16 tiles' borders and pairs joined only through a diagonal (the mutants that
    drop a border's union or the anti-diagonal one change labels there)."""
    size = forge.Size({"rows": 45, "cols": 70})
    img = _binary_image(np.random.default_rng(0), 45 * 70, size)
    labels = _uf_reference(img, 45, 70)
    tiles = np.arange(45)[:, None] // 16 * 8 + np.arange(70)[None, :] // 16
    crossing = sum(
        len(np.unique(tiles[labels == lab])) > 1 for lab in np.unique(labels[labels > 0])
    )
    assert crossing >= 10
    fg = labels.reshape(45, 70) > 0
    anti = fg[1:, :-1] & fg[:-1, 1:] & ~fg[:-1, :-1] & ~fg[1:, 1:]
    assert anti.sum() >= 10


# a right port whose labels are renumbered 1, 2, 3... in the order its atomics give
# (the roots numbered by an atomic counter, then every pixel its root's number)
_COMPACT = """
@group(0) @binding(3) var<storage, read_write> next_label: array<atomic<i32>>;
@group(0) @binding(4) var<storage, read_write> number: array<i32>;

@compute @workgroup_size(16, 16)
fn NumberRoots(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.y < p.rows && gid.x < p.cols) {
        let index = gid.y * p.cols + gid.x;
        if (pixel(index) != 0u && atomicLoad(&labels[index]) == i32(index + 1u)) {
            number[index] = atomicAdd(&next_label[0], 1) + 1;
        }
    }
}

@compute @workgroup_size(16, 16)
fn Renumber(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.y < p.rows && gid.x < p.cols) {
        let index = gid.y * p.cols + gid.x;
        if (pixel(index) != 0u) {
            atomicStore(&labels[index], number[atomicLoad(&labels[index]) - 1]);
        }
    }
}
"""


def _renumbered(labels):
    """The components numbered 1, 2, 3... in the raster order of their least pixel: one
    numbering of the many a right kernel may give."""
    roots = np.unique(labels[labels > 0])
    table = np.zeros(labels.size + 1, np.int32)
    table[roots] = np.arange(1, len(roots) + 1, dtype=np.int32)
    return table[labels]


def _renumbered_reference(img, rows, cols):
    return _renumbered(_uf_reference(img, rows, cols))


_SIZE = forge.Size({"rows": 45, "cols": 70})


def _fixed_image(rng, count, size):
    """The entry's binary draw at a seed of its own, so that the test knows the image."""
    return _binary_image(np.random.default_rng(68), count, size)


def _renumbering_port() -> forge.KernelSpec:
    kernel = CORPUS[_UF_PORT].kernel
    grid = kernel.launches[0].grid
    return dataclasses.replace(
        kernel,
        id="r68_uf_port_renumbered",
        sources={"wgsl": kernel.sources["wgsl"] + _COMPACT},
        buffers=(
            dataclasses.replace(kernel.buffers[0], fill=_fixed_image),
            *kernel.buffers[1:],
            forge.BufferSpec(
                3, "i32", "read_write", name="next_label", count=1, scratch=True, initial=0
            ),
            forge.BufferSpec(
                4, "i32", "read_write", name="number", count="rows*cols", scratch=True, initial=0
            ),
        ),
        reference=_renumbered_reference,
        launches=(
            *kernel.launches,
            forge.Dispatch("NumberRoots", grid=grid),
            forge.Dispatch("Renumber", grid=grid),
        ),
    )


def _same_partition(got: np.ndarray, want: np.ndarray) -> bool:
    """Whether two labelings are one up to renaming the components (0 the background)."""
    if not np.array_equal(got == 0, want == 0):
        return False
    pairs = np.unique(np.stack([got[want > 0], want[want > 0]]), axis=1)
    return len(np.unique(pairs[0])) == len(np.unique(pairs[1])) == pairs.shape[1]


def test_the_renumbering_port_is_a_right_labeling(request, session):
    """The port with its components renumbered by an atomic counter labels every image
    right (the same partition as the reference's), in an order the reference does not
    give: the tiles' roots are numbered tile by tile."""
    require_available(request.config, "wgpu")
    with forge.open_context("wgpu") as ctx:
        ev = oracle.evaluate(ctx, _renumbering_port(), size="45x70", samples=0, reorder=False)
    got = ev.got["labels"].reshape(-1)
    want = _uf_reference(_fixed_image(None, 45 * 70, _SIZE), 45, 70).reshape(-1)
    assert _same_partition(got, want), ev.report()
    assert not np.array_equal(got, _renumbered(want)), ev.report()


def _as_labeling(kernel: forge.KernelSpec) -> forge.KernelSpec:
    """``kernel`` with its ``labels`` output declared a labeling, 0 the background."""
    buffers = tuple(
        dataclasses.replace(b, labels=(0,)) if b.name == "labels" else b for b in kernel.buffers
    )
    return dataclasses.replace(kernel, buffers=buffers)


def test_a_labeling_numbered_in_the_order_of_its_atomics_passes_declared_so(request, session):
    """Judged label by label, the renumbering port fails; declared a labeling
    (``BufferSpec(labels=(0,))``), it is judged as its partition and passes."""
    require_available(request.config, "wgpu")
    with forge.open_context("wgpu") as ctx:
        exact = oracle.evaluate(ctx, _renumbering_port(), size="45x70", samples=0)
        ev = oracle.evaluate(ctx, _as_labeling(_renumbering_port()), size="45x70", samples=0)
    assert exact.verdict is Verdict.MISMATCH, exact.report()
    assert ev.verdict is Verdict.PASS, ev.report()
    assert any("declared a labeling" in n for n in ev.notes), ev.report()


@pytest.mark.parametrize(
    "what",
    ["the anti-diagonal neighbour missed", "a tile's left neighbour across the border missed"],
)
def test_a_wrong_partition_fails_as_a_labeling_too(request, session, what):
    """A union-find that misses a neighbour splits components: declared a labeling, it
    still fails, at the elements of the split-off groups."""
    require_available(request.config, "wgpu")
    wrong = _as_labeling(mutant(CORPUS[_UF_PORT], what))
    with forge.open_context("wgpu") as ctx:
        ev = oracle.evaluate(ctx, wrong, size="45x70", samples=0)
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    assert ev.outputs["labels"].comparison.mismatches > 0

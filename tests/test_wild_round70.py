"""What round 70 of the wild kernels (tests/wild/round70.py: CUDA course homework as
students publish it, Udacity CS344's Gaussian blur, the tone map's min/max reduction,
its histogram and CDF, and Poisson blending by Jacobi iterations, each in CUDA and as a
WebGPU port) showed of the oracle, pinned.

Every original passes on the reference, lavapipe and SwiftShader, every WGSL mutant
fails on both (``KFORGE_SLOW_TESTS=1``), and the CUDA sources and their mutants compile
with NVRTC (their runs are the GPU machine's). No oracle change: each output here is
either exact (bytes, counts, min and max, masks) or a float32 computation the
reference follows operation by operation, and the oracle judged them exactly.

- Students' bugs kept as mutants of right originals: the histogram's bin without the
  clamp at ``bin_count - 1`` (ibebrett's and shreyansh26's solutions), ibebrett's
  inclusive scan where the course asks for an exclusive CDF, and shreyansh26's masks
  written only under the mask (the white pixels' left as ``cudaMalloc`` gave them,
  which the oracle reports as unwritten, where a fresh allocation's zeros hid it).
- The clamp's bug is invisible in the CUDA entry's values: its CDF is exclusive and
  scanned in place, so the last bin's count never shows, and the maximum counted one
  past the histogram changes no element of the CDF (pinned below). Only the write past
  ``d_bins``' end shows it: for the GPU run to confirm (the ``past-end`` check). The
  port keeps its histogram as an output of its own, where the last bin is one short.
- A draw that decides: the log-luminance plants ``lum_min`` and ``lum_max`` (the
  values the host's reduction found), so the maximum's bin is ``bin_count`` exactly;
  uniform draws alone almost never hold it.
- No false alarm where rounding decides a byte: the blur's plateaus (flat 9 x 9
  neighbourhoods, in the entry's own draw) sum to their value times a filter that
  sums to 1.0000001 in float32, and truncate to that value; a port summing the taps
  in the reverse order passes (pinned).
- Not shown, and why: upstream's reduction returns early, after the loads, on the
  threads of a block past the input, before the tree's barriers; no CPU adapter's
  values show a barrier some threads never reach, so it is no mutant (left out of the
  original; compute-sanitizer's synccheck on the GPU would be the judge).
- Written otherwise, and why: a port of the multi-pass reduction that hands partials
  on through the same two variables (``d_in``, ``d_out``) is refused by the framework
  (every buffer is also bound at its own binding: more buffers than variables); the
  port is two entry points, the blocks' partials and one workgroup over them. The
  port's ``FLT_MAX`` written as C prints it (3.40282347e+38) was refused as past the
  largest f32 (Tint's rule), with the fix named; it is written 0x1.fffffep+127f.

For the GPU run to confirm: the four CUDA entries pass as written (the in-place
Hillis-Steele scan of 1024 bins in one block, the Jacobi steps' IEEE division); the
histogram without the clamp fails by its write past the end; the scan whose steps read
and add at once (``Wild.races``) fails by its values or under compute-sanitizer; the
Jacobi step that reads the buffer it writes fails by its values.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import forge
import oracle
from oracle import Session
from oracle.pytest_plugin import require_available
from tests.wild import CORPUS, mutant
from tests.wild.round70 import (
    _LUM_MAX,
    _LUM_MIN,
    _blob_image,
    _blur_reference,
    _course_filter,
    _exclusive,
    _log_luminance,
    _masks,
    _rgba_scene,
)

_BLUR_PORT = "wild_r70_cs344_gaussian_blur_webgpu_port"


@pytest.fixture(scope="module")
def session():
    with Session(timeout_s=60) as shared:
        yield shared


def test_the_scene_has_plateaus_that_blur_to_themselves():
    """The blur's draw holds flat 9 x 9 neighbourhoods, where the float sum is the
    plateau's value times the filter's sum (1.0000001 in float32, summed in the
    kernel's order): each truncates to the plateau's value, not one below."""
    taps = _course_filter()
    total = np.float32(0)
    for v in taps:
        total = np.float32(total + v)
    assert total == np.float32(1.0000001)
    size = forge.Size({"numRows": 37, "numCols": 61})
    img = _rgba_scene(np.random.default_rng(0), 37 * 61 * 4, size).reshape(37, 61, 4)
    out = _blur_reference(img.reshape(-1), taps, 37, 61)["outputImageRGBA"].reshape(37, 61, 4)
    red = img[..., 0].astype(np.int64)
    windows = np.lib.stride_tricks.sliding_window_view(np.pad(red, 4, mode="edge"), (9, 9))
    flat = windows.max(axis=(2, 3)) == windows.min(axis=(2, 3))
    assert flat.sum() >= 30
    assert (out[..., 0][flat] == red[flat]).all()


def test_a_port_summing_the_taps_in_another_order_passes(request, session):
    """A right port whose sum runs over the taps in the reverse order (columns outer)
    rounds otherwise; it is judged right (no false alarm where truncation decides)."""
    require_available(request.config, "wgpu")
    wild = CORPUS[_BLUR_PORT]
    text = wild.kernel.sources["wgsl"]
    loops = (
        "    for (var fy = 0; fy < p.filterWidth; fy++) {\n"
        "        for (var fx = 0; fx < p.filterWidth; fx++) {"
    )
    assert loops in text
    reversed_loops = (
        "    for (var fx = p.filterWidth - 1; fx >= 0; fx--) {\n"
        "        for (var fy = p.filterWidth - 1; fy >= 0; fy--) {"
    )
    kernel = dataclasses.replace(
        wild.kernel,
        id=f"{_BLUR_PORT}__reversed_taps",
        sources={"wgsl": text.replace(loops, reversed_loops)},
    )
    ev = oracle.evaluate(
        session.runner("wgpu"), kernel, size=kernel.checked_sizes()[0], seed=0, samples=0
    )
    assert ev.passed, ev.report()


def test_the_drawn_maximum_falls_one_past_the_histogram_without_the_clamp():
    """The draw plants ``lum_max``, whose unclamped bin is ``bin_count``: the mutant's
    atomicAdd one past the histogram. In the CUDA entry the CDF is exclusive, so the
    last bin's count never shows: the unclamped histogram's first ``bin_count`` bins
    give the same CDF, and only the write past the end tells them apart."""
    bins = 1024
    x = _log_luminance(np.random.default_rng(0), 5000, None)
    assert x.min() == np.float32(_LUM_MIN) and x.max() == np.float32(_LUM_MAX)
    f = np.float32
    scaled = (x - f(_LUM_MIN)) / (f(_LUM_MAX) - f(_LUM_MIN)) * f(bins)
    raw = scaled.astype(np.int64)
    assert (raw == bins).sum() == 2
    clamped = np.bincount(np.minimum(raw, bins - 1), minlength=bins)
    unclamped = np.bincount(raw, minlength=bins + 1)
    assert clamped[-1] == unclamped[bins - 1] + 2
    assert (_exclusive(clamped) == _exclusive(unclamped[:bins])).all()


def test_the_source_mask_reaches_the_first_column_and_holds_holes():
    """The cloning draw's mask has interior pixels in column 0 (where the port that
    lets column -1 in reads the row above's last pixel) and white holes inside it
    (border pixels within the mask), as well as border pixels on its outline."""
    size = forge.Size({"numRows": 45, "numCols": 70})
    img = _blob_image(np.random.default_rng(0), 45 * 70 * 4, size)
    inner, border = _masks(img, 45, 70)
    assert inner[:, 0].sum() >= 3
    assert border.sum() >= 20
    white = ~inner & ~border
    # a white pixel with mask on both sides along a row: a hole
    holes = white[:, 1:-1] & (inner | border)[:, :-2] & (inner | border)[:, 2:]
    assert holes.sum() >= 3


@pytest.mark.parametrize(
    "name",
    sorted(
        n for n, w in CORPUS.items() if n.startswith("wild_r70_") and "cuda" in w.kernel.sources
    ),
)
def test_every_cuda_mutant_compiles_with_nvrtc(name):
    """The CUDA mutants build as the originals do (NVRTC needs no GPU): on the GPU
    machine each fails by its values or its writes, never by a compile error."""
    from backends.cuda._modules import check_steps, module_build

    wild = CORPUS[name]
    for what in wild.mutants:
        kernel = mutant(wild, what)
        schedule, size = kernel.schedules[0], kernel.largest_size()
        source = kernel.source("cuda", schedule, size)
        steps = kernel.steps("cuda", schedule, size, 2**31 - 1, source)
        image, _, entries = module_build(kernel, steps, source, "sm_90").build()
        assert image, what
        check_steps(kernel, steps, entries, source)

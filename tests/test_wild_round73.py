"""What round 73 of the wild kernels (tests/wild/round73.py: torch-ngp's
composite_rays_train_forward, the 3D Gaussian splatting rasteriser's renderCUDA and
tiny-cuda-nn's half-precision kernel_grid, each in CUDA and as a WebGPU port) showed of
the oracle, pinned.

Every original passes on the reference and lavapipe, and the compositing and the
rasteriser on SwiftShader too; every WGSL mutant fails on lavapipe, and on SwiftShader
where it runs (``KFORGE_SLOW_TESTS=1``: 33 passed). The hash grid's port needs
``shader-f16``, which SwiftShader lacks: the browser reports it unsupported, naming the
feature, so its original and its four WGSL mutants are lavapipe's alone. The CUDA
sources and mutants compile with NVRTC; their runs are the GPU machine's.

- A false alarm, pinned (strict xfail below): the rasteriser's ``alpha < 1.0f / 255.0f``
  is a threshold a rounding decides. On the entry's scene with 24 splats' opacities set
  so that each one's alpha at the pixel nearest its mean is 1/255 in float64 (up to the
  opacity's float32 rounding), splat 136 at pixel 399 has alpha 1/255 * (1 + 2.5e-8) in
  float64 and 1/255 * (1 - 6.0e-8) in float32: the reference blends it, the kernel skips
  it, both rightly. The oracle accepts the jump where it lands in final_T (10 of 3150
  elements "within the rounding bound of a correct float computation") and in 23
  elements of out_color, but fails one: out_color[399] got 0.48922482, want 0.4878883
  (abs 0.00134, rel 0.00274) on lavapipe, MISMATCH 1 of 9450. n_contrib stays exact
  there (the flipped splat is not a pixel's last). The entry's own scene nudges every
  opacity until no alpha lies within 0.2 % of 1/255 and no blend within 0.2 % of
  T = 1e-4, so the corpus does not meet it; without that nudge the entry's draw has one
  such splat within 1e-5 and passed. The compositing's stop (T < 1e-4) without its 3 %
  margin (24 samples within it) passed too.
- A note that misfired, fixed the same day (test below): on lavapipe the rasteriser's port
  gets the note that lavapipe ends a loop after 65535 iterations and that "this kernel
  has a loop that reads an atomic (a retry of a compare-exchange, a probe of a hash
  table, or a wait on other invocations)": its loop over batches holds the block vote
  that stands for ``__syncthreads_count`` (an ``atomicAdd`` of each vote,
  ``atomicExchange`` by invocation 0, ``workgroupUniformLoad``), which waits on nothing.
  The verdict is right (PASS); the note's warning does not apply, and a loop around
  ``workgroupUniformLoad`` (a barrier) is no longer taken for a wait.
- Cost: a MISMATCH of the rasteriser (45 x 70, 4094 splat entries) took 263 s on
  lavapipe while the reference blended tile by tile (about 100,000 numpy calls a run,
  each traced by the oracle's operation-rounding analysis); written as one lockstep
  over all pixels (about 8,000 calls) it takes 42 s, a PASS 2 s.
- Not shown on the CPU adapters, for the GPU run: the CUDA mutants. Each has its bug
  written into the WebGPU port below and that twin fails on lavapipe on the entry's
  draws, so each must fail on the H100; the rasteriser's dropped ``block.sync()`` is
  a race (``Wild.races``) for compute-sanitizer where the values hide it.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import forge
import oracle
from oracle import Verdict
from oracle.pytest_plugin import require_available
from tests.wild import CORPUS
from tests.wild.round73 import _splats

_COMPOSITE = "wild_r73_torch_ngp_composite_rays_train_forward"
_RENDER = "wild_r73_gaussian_splatting_render_forward"
_GRID = "wild_r73_tiny_cuda_nn_hash_grid_half"


def _wgsl_variant(name: str, old: str, new: str, tag: str) -> forge.KernelSpec:
    kernel = CORPUS[name].kernel
    text = kernel.sources["wgsl"]
    assert text.count(old) == 1, (name, old)
    return dataclasses.replace(
        kernel,
        id=f"{kernel.id}__{tag}",
        sources={**kernel.sources, "wgsl": text.replace(old, new)},
    )


# Each CUDA mutant of the round has the same bug written into the WebGPU port here: the
# CPU adapters cannot run CUDA, so these show that the bug is visible in the entry's own
# draws (the GPU run must see the CUDA mutants fail too).
_CUDA_TWINS = {
    "CUDA: depth from the step size, not the distance marched": (
        _COMPOSITE,
        "t += deltas[s * 2u + 1u];",
        "t += deltas[s * 2u];",
    ),
    "CUDA: the budget test lets a ray end on it": (
        _COMPOSITE,
        "offset + num_steps >= sizes.M",
        "offset + num_steps > sizes.M",
    ),
    "CUDA: the colour written interleaved": (
        _RENDER,
        "out_color[ch * H * W + pix_id]",
        "out_color[pix_id * CHANNELS + ch]",
    ),
    "CUDA: the staging barrier dropped": (
        _RENDER,
        "        }\n        workgroupBarrier();\n\n        for (var j = 0;",
        "        }\n\n        for (var j = 0;",
    ),
    "CUDA: the block stops at the first pixel done": (
        _RENDER,
        "if (num_done == BLOCK_SIZE) { break; }",
        "if (num_done > 0u) { break; }",
    ),
    "CUDA: the scale without the -1": (
        _GRID,
        "* f32(enc.base_resolution) - 1.0;",
        "* f32(enc.base_resolution);",
    ),
    "CUDA: the second prime on the third axis": (
        _GRID,
        "(pos_grid.y * 2654435761u) ^ (pos_grid.z * 805459861u)",
        "(pos_grid.y * 805459861u) ^ (pos_grid.z * 2654435761u)",
    ),
}

_SIZES = {_COMPOSITE: "1000x24000", _RENDER: "16x16", _GRID: 1000}


def test_every_cuda_mutant_has_a_twin_here():
    cuda = {
        m
        for w in (CORPUS[_COMPOSITE], CORPUS[_RENDER], CORPUS[_GRID])
        for m, (t, _, _) in w.mutants.items()
        if t == "cuda"
    }
    assert cuda == set(_CUDA_TWINS)


@pytest.mark.parametrize("what", sorted(_CUDA_TWINS))
def test_the_cuda_mutants_bug_fails_in_the_port(request, what):
    require_available(request.config, "wgpu")
    name, old, new = _CUDA_TWINS[what]
    wrong = _wgsl_variant(name, old, new, "twin")
    with forge.open_context("wgpu") as ctx:
        ev = oracle.evaluate(ctx, wrong, size=_TWIN_SIZES.get(what, _SIZES[name]), samples=0)
    assert ev.verdict is Verdict.MISMATCH, ev.report()


#: Twins that one 16 x 16 tile does not show: a block that stops at its first pixel done
#: stops early only where its pixels finish apart (45 x 70, 3 x 5 tiles). The others are
#: judged on one tile, a failing verdict 5 s there against 45 s at 45 x 70 (lavapipe).
_TWIN_SIZES = {"CUDA: the block stops at the first pixel done": "45x70"}


# -- the rasteriser's alpha floor: a splat whose alpha at a pixel sits on 1/255 ---------------

_TIED = 24  # splats given an opacity that puts their alpha at one pixel on 1/255


def _tied_splats(h: int, w: int):
    """The entry's scene with 24 splats' opacities set so that each one's alpha at the
    pixel nearest its mean is 1/255 in float64, up to the opacity's float32 rounding:
    there the kernel's float32 ``power`` and ``exp`` decide, as rightly as the
    reference's float64, whether the splat blends (``alpha < 1.0f / 255.0f``)."""
    ranges, point_list, xy, features, conic, bg = (a.copy() for a in _splats(h, w))
    rng = np.random.default_rng(5)
    for g in rng.choice(len(xy), _TIED, replace=False):
        px = int(np.clip(np.rint(xy[g, 0]), 0, w - 1))
        py = int(np.clip(np.rint(xy[g, 1]), 0, h - 1))
        dx, dy = float(xy[g, 0]) - px, float(xy[g, 1]) - py
        a, b, c, _ = conic[g].astype(np.float64)
        power = -0.5 * (a * dx * dx + c * dy * dy) - b * dx * dy
        conic[g, 3] = np.float32((1.0 / 255.0) / np.exp(power))
    return ranges, point_list, xy, features, conic, bg


def _with_tied_splats() -> forge.KernelSpec:
    kernel = CORPUS[_RENDER].kernel
    names = ["ranges", "point_list", "points_xy_image", "features", "conic_opacity", "bg_color"]

    def part(k: int):
        def fill(rng, count, size):
            return _tied_splats(int(size.H), int(size.W))[k].reshape(-1)[:count]

        return fill

    buffers = tuple(
        dataclasses.replace(b, fill=part(names.index(b.name))) if b.name in names else b
        for b in kernel.buffers
    )
    return dataclasses.replace(kernel, id=f"{kernel.id}__tied", buffers=buffers)


def _tied_run(request) -> oracle.Evaluation:
    require_available(request.config, "wgpu")
    with forge.open_context("wgpu") as ctx:
        return oracle.evaluate(ctx, _with_tied_splats(), size="45x70", samples=0)


def test_the_tied_splats_final_transmittance_is_told_from_a_shift(request):
    """Where a tied splat blends on one side and not on the other, T moves by a factor
    of 1 - 1/255 (0.4 %): the oracle accepts those elements of final_T as a rounding of
    a right computation (10 of 3150 on lavapipe), and n_contrib stays exact."""
    ev = _tied_run(request)
    assert ev.outputs["final_T"].passed, ev.report()
    assert ev.outputs["n_contrib"].passed, ev.report()


@pytest.mark.xfail(
    strict=True,
    reason=(
        "a false alarm: the right rasteriser, on splats whose alpha at a pixel is 1/255 "
        "up to float32 rounding, fails out_color in 1 of 9450 elements (pixel 399's red: "
        "got 0.48922482, want 0.4878883, rel 0.00274) on lavapipe, where the same flip's "
        "final_T (10 elements) and 23 other out_color elements are accepted as a rounding "
        "of a right computation"
    ),
)
def test_the_tied_splats_pass_the_right_rasteriser(request):
    ev = _tied_run(request)
    assert ev.verdict is Verdict.PASS, ev.report()


# -- the port's block vote and the note on loops that read atomics ---------------------------


def test_a_block_vote_is_not_taken_for_a_wait(request):
    """Fixed: a loop around ``workgroupUniformLoad`` (a barrier) is a block's vote, not a
    wait on other invocations (``oracle._builtins._WGSL_WAIT``)."""
    require_available(request.config, "wgpu")
    with forge.open_context("wgpu") as ctx:
        ev = oracle.evaluate(ctx, CORPUS[_RENDER].kernel, size="16x16", samples=0)
    assert ev.passed, ev.report()
    assert not [n for n in ev.notes if "reads an atomic" in n], ev.notes

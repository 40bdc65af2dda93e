"""What round 74 of the wild kernels (tests/wild/round74.py: ggml's im2col as whisper.cpp's
conv1d runs it, in CUDA and as ggml-webgpu's own WGSL; ggml's argsort, the CUDA bitonic
sort of indices padded to a power of two and ggml-webgpu's tile sort with a ``-1e30``
sentinel; and ggml's conv_transpose_1d, the upsampling of its audio decoders, with a
WebGPU port) showed of the oracle, pinned.

Every original passes on the reference, lavapipe and SwiftShader, every WGSL mutant
fails on both (``KFORGE_SLOW_TESTS=1``: 36 passed, the 14 skips CUDA's), and every CUDA
original and mutant compiles with NVRTC for sm_90 (their runs are the GPU machine's).
No oracle change. Each mutant fails at one size at least and passes at another where
the geometry hides it, as it should: im2col's read one past the right edge where
``(OW - 1) * 2 + 2 < IW`` (IW 30: the last tap is column 29) and its batch-stride bug
with one batch; the argsort's dropped barrier and its skipped last merge in a row of 5
(one SIMD group: lavapipe and SwiftShader run it in lockstep); the port's weight
stride bug where ``K == OC`` (8 and 8).

- A gap, closed (752f080): an argsort of tied keys could not be declared. ggml's
  argsort orders equal keys however its network leaves them (its own
  test-backend-ops draws unique values per row "to avoid ties"), and the reference can
  only give one order. ``unordered="keys"`` allowed any order within runs of equal keys
  only where the keys are an output of the kernel (a key-value sort: round 38's fix for
  cuda-samples' bitonic sort); an argsort's keys are its input, which the declaration
  refused. With keys drawn from eight values (lavapipe, seed 0) the right ggml-webgpu
  port mismatched 1105 of 1200 indices at 6 x 200 and 725 of 768 at 3 x 256. Now
  ``unordered="src"`` naming the input accepts an index of an equal key in place of the
  reference's (tests below; ``oracle._judge.tied_indices``). The entries still draw
  distinct keys, as ggml's test does, so that their mutants are judged index by index.
- Works, said: the tie's report. Each of those mismatches is named a tie in the report
  ("the kernel's index holds the same value of src's row as the reference's"), so a
  reader is told the oracle's reference chose one of equal keys (the note
  tests/test_wild_kernels.py pins for a rank argsort, here on ggml's network).
- Not the oracle's, shown: ggml-webgpu's ``-1e30`` sentinel is not below every float.
  A descending row padded to the tile (200 of 256) that holds a ``-inf`` (a masked
  logit) sorts the padding before it, and the port writes a padding index (200 or
  more) where the ``-inf``'s index belongs: one index a row, which the oracle fails
  (6 of 1200); a full tile of 256 has no padding and passes. ggml-cuda's bitonic sort
  tells padding by its index (``>= ncols``) and has no such case. The default draws
  (NaN, infinities, ties) would fail any argsort here for the reasons above; the
  entries' rows are finite and distinct.

For the GPU run to confirm: each CUDA original passes on the H100 (im2col's grid of
``(ceil(IC*3 / 256), OW, N)`` with 1152 threads a column; the argsort's 2048-wide pad
of a 1500-column row with 1024 threads, two columns each, and its 8 KiB of dynamic
shared memory; conv_transpose_1d's Hopper guard, ``cudaGridDependencySynchronize()``
with no programmatic launch); each CUDA mutant fails by its values or by the illegal
address it makes (the im2col whose channel takes the batch's stride reads megabytes
past its input), and the argsort without its stage barrier by its values or under
compute-sanitizer (``Wild.races``).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import oracle
from forge.errors import InvalidArgument
from oracle import Session, Verdict
from oracle.pytest_plugin import require_available
from tests.wild import CORPUS, mutant
from tests.wild.round74 import (
    _conv_t1d_reference,
    _ct_params,
    _im2col_reference,
    _next_pow2,
)

_ARGSORT_WGSL = "wild_r74_ggml_webgpu_argsort_desc_sentinel"


def _tied_keys(rng, count, size):
    """Keys from eight values: every row full of ties, all finite and above -1e30."""
    return rng.integers(0, 8, count).astype(np.float32)


def _one_negative_infinity(rng, count, size):
    """Distinct finite keys, and one -inf a row (a masked logit), nowhere else a tie."""
    rows, cols = int(size.nrows), int(size.ncols)
    keys = ((rng.permutation(count) - count // 2) * 0.25).astype(np.float32)
    keys.reshape(rows, cols)[:, cols // 3] = -np.inf
    return keys


def _port_with_keys(fill, tag: str):
    kernel = CORPUS[_ARGSORT_WGSL].kernel
    src = dataclasses.replace(kernel.buffers[0], fill=fill)
    return dataclasses.replace(kernel, id=f"{kernel.id}__{tag}", buffers=(src, *kernel.buffers[1:]))


def _on_lavapipe(request, kernel, size):
    require_available(request.config, "wgpu")
    with Session(timeout_s=120) as session:
        return oracle.evaluate(session.runner("wgpu"), kernel, size=size, seed=0, samples=0)


def _declared_tied(kernel):
    """``kernel`` with its indices declared unordered among equal keys of its input."""
    dst = dataclasses.replace(kernel.buffers[1], unordered="src")
    return dataclasses.replace(kernel, buffers=(kernel.buffers[0], dst, *kernel.buffers[2:]))


def test_an_argsort_of_tied_keys_declared_so_passes_in_any_order_among_them(request):
    """Gap closed: ``unordered="src"`` naming the input of an output of indices, an
    index of an equal key in place of the reference's is right (it failed 1105 of 1200
    indices at 6 x 200 on lavapipe, rightly sorted)."""
    ev = _on_lavapipe(
        request, _declared_tied(_port_with_keys(_tied_keys, "tied")), "nrows=6,ncols=200"
    )
    assert ev.passed, ev.report()
    assert any("unordered among equal src" in n for n in ev.notes), ev.report()


@pytest.mark.parametrize(
    "what",
    [
        "the direction taken from j, not k",
        "the last merge skipped",
        "the padding's sentinel above every value",
    ],
)
def test_a_wrong_argsort_of_tied_keys_still_fails_when_declared_so(request, what):
    wild = CORPUS[_ARGSORT_WGSL]
    wrong = dataclasses.replace(wild.kernel, buffers=_port_with_keys(_tied_keys, "t").buffers)
    wrong = _declared_tied(mutant(dataclasses.replace(wild, kernel=wrong), what))
    ev = _on_lavapipe(request, wrong, "nrows=6,ncols=200")
    assert ev.verdict is Verdict.MISMATCH, ev.report()


def test_the_tied_argsort_fails_and_its_report_names_the_tie(request):
    """What the gap looks like today: a mismatch in most indices, each named a tie."""
    ev = _on_lavapipe(request, _port_with_keys(_tied_keys, "tied"), "nrows=6,ncols=200")
    assert ev.verdict is Verdict.MISMATCH
    check = ev.outputs["dst"].comparison
    assert check.mismatches > 1000 and check.count == 1200
    assert "a tie, where the reference takes one of the equal values" in ev.report()


def test_keys_unordered_among_an_input_need_an_output_of_integers():
    kernel = CORPUS[_ARGSORT_WGSL].kernel
    dst = dataclasses.replace(kernel.buffers[1], element="f32", unordered="src")
    with pytest.raises(InvalidArgument, match="integer indices into an input"):
        dataclasses.replace(kernel, buffers=(kernel.buffers[0], dst, kernel.buffers[2]))


def test_ggml_webgpus_sentinel_sorts_padding_before_a_negative_infinity(request):
    """The port's bug, not the oracle's: ``-1e30`` is above ``-inf``, so in a padded
    descending tile a padding index takes the ``-inf``'s place, one a row; the oracle
    fails it. A full tile has no padding and passes."""
    kernel = _port_with_keys(_one_negative_infinity, "neg_inf")
    ev = _on_lavapipe(request, kernel, "nrows=6,ncols=200")
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    check = ev.outputs["dst"].comparison
    assert check.mismatches == 6, ev.report()
    assert all(int(m.got) >= 200 and m.index[-1] % 200 == 199 for m in check.first_mismatches)
    full = _on_lavapipe(request, kernel, "nrows=3,ncols=256")
    assert full.passed, full.report()


def test_the_im2col_reference_is_ggmls_loop():
    """dst[n, ow, ic, k] = x[n, ic, ow*2 + k - 1], zero outside, as the kernel indexes it."""
    n, ic, iw = 2, 5, 9
    x = np.arange(n * ic * iw, dtype=np.float32) + 1
    got = _im2col_reference(x, n, ic, iw)["dst"]
    ow = (iw - 1) // 2 + 1
    want = np.zeros((n, ow, ic, 3), np.float32)
    for b in range(n):
        for o in range(ow):
            for c in range(ic):
                for k in range(3):
                    j = o * 2 + k - 1
                    if 0 <= j < iw:
                        want[b, o, c, k] = x[(b * ic + c) * iw + j]
    assert np.array_equal(got, want.reshape(-1))


def test_the_conv_transpose_reference_is_a_transposed_convolution():
    """Each output sample sums w[ic, oc, t] * x[ic, i] over t = pos - 4i in range:
    the gradient of a stride-4 convolution, computed here by scattering."""
    rng = np.random.default_rng(1)
    ic, oc, k, length = 3, 2, 7, 5

    class Size:
        IC, OC, K, L = ic, oc, k, length

    w = rng.standard_normal(ic * oc * k).astype(np.float32)
    x = rng.standard_normal(ic * length).astype(np.float32)
    got = _conv_t1d_reference(w, x, k, oc, ic, length)["dst"].reshape(oc, -1)
    ol = _ct_params(Size)["dst_ne0"]
    want = np.zeros((oc, ol))
    wr, xr = w.reshape(ic, oc, k).astype(np.float64), x.reshape(ic, length)
    for pos in range(ol):
        for i in range(length):
            t = pos - 4 * i
            if 0 <= t < k:
                want[:, pos] += (wr[:, :, t] * xr[:, i, None]).sum(axis=0)
    assert got.shape == (oc, (length - 1) * 4 + k)
    assert np.allclose(got, want, rtol=1e-5, atol=1e-5)


def test_the_cuda_argsort_pads_to_a_power_of_two():
    assert [_next_pow2(n) for n in (1, 37, 64, 1500)] == [1, 64, 64, 2048]


@pytest.mark.parametrize(
    "name",
    sorted(
        n for n, w in CORPUS.items() if n.startswith("wild_r74_") and "cuda" in w.kernel.sources
    ),
)
def test_every_cuda_mutant_compiles_with_nvrtc(name):
    """The CUDA mutants build as the originals do (NVRTC needs no GPU): on the GPU
    machine each fails by its values, never by a compile error."""
    from backends.cuda._modules import check_steps, module_build

    wild = CORPUS[name]
    cuda = [what for what, (target, _, _) in wild.mutants.items() if target == "cuda"]
    assert cuda
    for what in cuda:
        kernel = mutant(wild, what)
        schedule, size = kernel.schedules[0], kernel.largest_size()
        source = kernel.source("cuda", schedule, size)
        assert source != wild.kernel.source("cuda", schedule, size), what
        steps = kernel.steps("cuda", schedule, size, 2**31 - 1, source)
        image, _, entries = module_build(kernel, steps, source, "sm_90").build()
        assert image, what
        check_steps(kernel, steps, entries, source)

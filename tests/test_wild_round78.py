"""What round 78 of the wild kernels (tests/wild/round78.py: Babylon.js's GPU sort of
Gaussian splats, its depth, histogram, scatter and cull passes; PlayCanvas's compaction
flag pass and sort keys) showed of the oracle, pinned.

Every original passes on the reference, lavapipe and SwiftShader, and every mutant fails
on both adapters (tests/test_wild_kernels.py -k wild_r78, KFORGE_SLOW_TESTS=1).

- A false pass, closed by a declaration (tests below): Babylon's scatter gives each
  splat the next place of its bucket through ``atomicAdd``, so within a bucket any order
  is right, and the buckets are not in any output. Declared ``unordered=True``, the
  sorted indices were one multiset, and a scatter that put each slot in another slot's
  bucket (the buckets' counts unchanged) passed. ``BufferSpec(unordered=keys)`` now
  takes a function of the case's buffers giving the keys the output was sorted by; each
  run of equal keys is a multiset of its own.
- A false alarm, fixed: PlayCanvas's sort keys truncate ``base + divider * frac``, where
  one float32 rounding of the splat's distance moves the key by half a step: a right
  kernel is a step off the float64 reference at a few elements in a thousand. The
  oracle's runs of the reference "as float32 computes" accept exactly those, but ran only
  where an input buffer held floats; PlayCanvas's float data is in a struct (the bins'
  weights), the uniform block (the camera) and a texture of float bits, so none ran and
  15 of 4448 keys failed on lavapipe. Float fields of struct inputs and of the uniform
  now count (``oracle._expected._narrow_float_inputs``).
- A gap, closed: PlayCanvas keeps a splat's centre as the bits of three floats in an
  RGBA32U work buffer texture; ``rgba32uint`` is now a texture format
  (``forge.textures``; tests/test_wgsl_textures.py round-trips it).
- Babylon's ``atomicMinFloat`` and ``atomicMaxFloat`` take ``ptr<storage,
  atomic<i32>, read_write>``: WGSL's ``unrestricted_pointer_parameters``, which naga
  lacks. As written the pass is UNSUPPORTED on wgpu, saying so, and passes in the
  browser (test below); the entry passes the word's index instead, so that lavapipe
  judges its mutants too.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import forge
import oracle
from forge.errors import InvalidArgument
from oracle import Verdict
from oracle.pytest_plugin import require_available
from tests.wild import CORPUS, mutant

_SCATTER = "wild_r78_babylon_gsplat_sort_scatter_atomic_bucket_places"
_DEPTH = "wild_r78_babylon_gsplat_sort_depth_range_cas"
_HISTOGRAM = "wild_r78_babylon_gsplat_sort_histogram_back_to_front"
_KEYS = "wild_r78_playcanvas_gsplat_sort_key_rgba32uint_bins"
_MIRROR = "each slot in its mirror slot's bucket"


def _sorted_as(kernel: forge.KernelSpec, unordered) -> forge.KernelSpec:
    buffers = tuple(
        dataclasses.replace(b, unordered=unordered) if b.name == "sortedIndex" else b
        for b in kernel.buffers
    )
    return dataclasses.replace(kernel, buffers=buffers)


def test_a_scatter_into_the_wrong_buckets_passes_as_one_multiset(request):
    """The gap: the mirror slot's bucket keeps every bucket's count (the offsets after
    the pass are right) and the multiset of indices; only where each index lies is
    wrong, which a multiset of the whole output cannot see."""
    require_available(request.config, "wgpu")
    wrong = _sorted_as(mutant(CORPUS[_SCATTER], _MIRROR), True)
    with forge.open_context("wgpu") as ctx:
        ev = oracle.evaluate(ctx, wrong, size=4099, samples=0)
    assert ev.verdict is Verdict.PASS, ev.report()


def test_the_keys_function_judges_each_bucket_as_a_multiset(request):
    """Closed: declared with the keys it sorts by (``unordered=keys``), each bucket's
    run is a multiset of its own: the original passes in whatever order its atomics
    give, the mirror-bucket scatter fails, and the report says how it was judged."""
    require_available(request.config, "wgpu")
    wild = CORPUS[_SCATTER]
    assert callable(wild.kernel.buffers[3].unordered)
    with forge.open_context("wgpu") as ctx:
        right = oracle.evaluate(ctx, wild.kernel, size=4099, samples=0)
        wrong = oracle.evaluate(ctx, mutant(wild, _MIRROR), size=4099, samples=0)
    assert right.verdict is Verdict.PASS, right.report()
    assert any("unordered among equal keys _bucket_of_each_place()" in n for n in right.notes)
    assert wrong.verdict is Verdict.MISMATCH, wrong.report()
    assert not wrong.outputs["sortedIndex"].passed and wrong.outputs["offsets"].passed


def test_unordered_takes_a_function_and_refuses_other_values():
    keys = forge.BufferSpec(0, "f32", "read_write", name="out", unordered=lambda arrays: None)
    assert callable(keys.unordered)
    with pytest.raises(InvalidArgument, match="a function of the case's buffers"):
        forge.BufferSpec(0, "f32", "read_write", name="out", unordered=3)
    # the function is part of the kernel's semantic hash, by its code
    assert "unordered" in keys.describe()


def test_float_data_in_structs_and_the_uniform_gets_the_float32_runs():
    """The false alarm's cause, without a device: PlayCanvas's keys take their floats
    from a struct input, the uniform and float bits in a u32 texture; the reference run
    as float32 computes it now exists for them and moves some keys by a step."""
    wild = CORPUS[_KEYS]
    case = oracle.make_case(wild.kernel, "70x64", 0)
    assert not [a for a in case.arrays.values() if a.dtype.kind == "f" and not a.dtype.names]
    expected = oracle.expected_outputs(case)
    want = expected.outputs["sortKeys"].reshape(-1).astype(np.int64)
    runs = expected.single(0).get("sortKeys", [])
    assert runs, "no float32 run of the reference"
    moved = np.abs(np.asarray(runs[0]).reshape(-1).astype(np.int64) - want)
    assert moved.max() == 1 and 0 < np.count_nonzero(moved) < want.size // 20


def test_playcanvas_sort_keys_pass_within_float32s_step(request):
    """Fixed: the right kernel passes on lavapipe at every test size, the off-by-one keys
    accepted as the reference computed as float32 computes; a kernel that forgets the
    nearest distance is still wrong."""
    require_available(request.config, "wgpu")
    wild = CORPUS[_KEYS]
    with forge.open_context("wgpu") as ctx:
        for size in wild.kernel.checked_sizes():
            ev = oracle.evaluate(ctx, wild.kernel, size=size, samples=0)
            assert ev.verdict is Verdict.PASS, ev.report()
        wrong = oracle.evaluate(ctx, mutant(wild, "the nearest distance not taken off"), samples=0)
    assert wrong.verdict is Verdict.MISMATCH, wrong.report()


_BY_POINTER = {
    "fn atomicMinFloat(slot : u32, value : f32) {": (
        "fn atomicMinFloat(slot : ptr<storage, atomic<i32>, read_write>, value : f32) {"
    ),
    "fn atomicMaxFloat(slot : u32, value : f32) {": (
        "fn atomicMaxFloat(slot : ptr<storage, atomic<i32>, read_write>, value : f32) {"
    ),
    "atomicLoad(&range[slot])": "atomicLoad(slot)",
    "atomicCompareExchangeWeak(&range[slot], held, bits)": (
        "atomicCompareExchangeWeak(slot, held, bits)"
    ),
    "atomicMinFloat(0u, d);": "atomicMinFloat(&range[0], d);",
    "atomicMaxFloat(1u, d);": "atomicMaxFloat(&range[1], d);",
}


def _depth_by_pointer() -> forge.KernelSpec:
    """Babylon's depth pass with its helpers taking the atomic by pointer, as written."""
    kernel = CORPUS[_DEPTH].kernel
    text = kernel.sources["wgsl"]
    for old, new in _BY_POINTER.items():
        assert old in text, old
        text = text.replace(old, new)
    return dataclasses.replace(kernel, id=f"{kernel.id}__by_pointer", sources={"wgsl": text})


@pytest.mark.parametrize("backend", ["wgpu", "browser"])
def test_babylons_pointer_parameters_are_unsupported_where_naga_lacks_them(request, backend):
    require_available(request.config, backend)
    ev = oracle.evaluate(backend, _depth_by_pointer(), size=1000, samples=0)
    if ev.verdict is Verdict.UNSUPPORTED:  # naga: wgpu-native 29 on every adapter
        assert backend == "wgpu", ev.report()
        assert "unrestricted_pointer_parameters" in ev.report(), ev.report()
    else:
        assert ev.passed, ev.report()


# -- what NVIDIA's Vulkan driver computes, emulated on the reference backend ------------


def _nvidia_depth(positions, seed, depth, range, params):
    """The depth pass as the H100 computed it: ``cx * x + cy * y + cz * z + w`` with the
    second and third products fused into the sum (FMAs), then the range's bits."""
    from tests.wild.round78 import _bits

    n = int(params["count"])
    c = np.asarray(params["coeff"], np.float32).reshape(-1)
    p = positions.reshape(-1, 4)[(seed[:n] + 0.5).astype(np.int64)].astype(np.float32)

    def fma(a, b, addend):
        return (np.float64(a) * b.astype(np.float64) + addend.astype(np.float64)).astype(np.float32)

    d = (fma(c[2], p[:, 2], fma(c[1], p[:, 1], c[0] * p[:, 0])) + c[3]).astype(np.float32)
    return {"depth": d, "range": _bits([d.min(), d.max()])}


def _nvidia_histogram(depth, range, bucket, histogram, params):
    """The histogram pass with its quotient as NVIDIA's driver divides: ``x * (1 / y)``,
    one ulp high here (within WGSL's 2.5)."""
    n, buckets = int(params["count"]), int(params["numBuckets"])
    nearest, farthest = range.view(np.float32)
    span = np.float32(farthest - nearest)
    scale = np.float32(buckets - 1) * (np.float32(1.0) / span) * np.float32(1 + 2.0**-23)
    b = np.clip(np.trunc((farthest - depth[:n]) * np.float32(scale)), 0, buckets - 1)
    out = bucket.copy()
    out[:n] = b.astype(np.uint32)
    counts = np.bincount(b.astype(np.int64), minlength=buckets).astype(np.uint32)
    return {"bucket": out, "histogram": histogram + counts}


def _as_nvidia_computes(name: str, reference, size: int) -> oracle.Evaluation:
    kernel = CORPUS[name].kernel
    device = dataclasses.replace(kernel, id=f"{kernel.id}__nvidia", reference=reference)
    with forge.open_context("reference") as ctx:
        return oracle.evaluate(ctx, device, size=size, samples=0, truth=kernel)


def test_a_depth_range_through_fmas_passes():
    """A false alarm on the H100, fixed: its range's minimum was one ulp of the float's
    bits from both the float64 reference and its float32 twin (-1032404430 against
    -1032404431 and -1032404432 at size 4099), as the driver fused the depth's products
    into its sums. The reference's run with its products exact gives those words."""
    ev = _as_nvidia_computes(_DEPTH, _nvidia_depth, 4099)
    assert np.asarray(ev.got["range"]).tolist() == [-1032404430, 1116378275]
    assert ev.verdict is Verdict.PASS, ev.report()
    assert ev.outputs["range"].comparison.single >= 1


def test_a_bucket_from_a_quotient_one_ulp_high_passes():
    """A false alarm on the H100, fixed: the nearest splat's bucket is 1023 there and
    1022 in the reference, by the driver's quotient (``x * (1 / y)``, one ulp off: WGSL
    allows 2.5). The integer judge's reruns moved no quotient computed in float32 (its
    result is a float32 number) and nothing the reference computed in numpy scalars
    (``lo, hi = range``, then ``span`` and ``scale``); an inexact quotient now moves by
    WGSL's error there, and floats taken out of an array stay arrays of the run."""
    ev = _as_nvidia_computes(_HISTOGRAM, _nvidia_histogram, 1000)
    assert np.asarray(ev.got["bucket"])[765] == 1023
    assert ev.verdict is Verdict.PASS, ev.report()

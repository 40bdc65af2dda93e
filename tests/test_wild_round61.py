"""Round 61's findings (tests/wild/round61.py): how the oracle judges tensor-core
results, computed here with no GPU on numpy emulations of each kernel's numerics, and
every source and mutant compiled for the GPUs it is meant for.

- Every original compiles with NVRTC for sm_80 too (none uses a Hopper feature), and
  every mutant for sm_80 and sm_90 (by hand; CI compiles the one that changes a type): a
  mutant that does not compile would be an ERROR on the GPU, not the
  MISMATCH it is meant to be. The blog's GEMM with a half accumulator needs
  ``__half2float`` where it meets the float scalars (``float * __half`` is ambiguous in
  cuda_fp16.h), so that mutant carries the conversion its author would add.
- A tensor core's float accumulation is not IEEE's: each MMA step's products are summed
  wide and the result truncated (Fasi et al., "Numerical behavior of NVIDIA tensor
  cores", PeerJ CS 2021). Emulated so (a sum of each step's products and the
  accumulator, truncated to float32), the half and bf16 GEMMs at K = 272 and 1024 pass
  against their float64 references within the rounding bound of a float32 sum, with
  nothing declared; the same with a K tile dropped, with a half accumulator (the blog's
  mutant) or with B read transposed fails.
- The TF32 GEMM (``wmma::__float_to_tf32``, to nearest with ties away) is off its
  float32 reference by far more than a float32 sum's rounding; the oracle finds the
  TF32 rounding in the source and accepts what rounding the inputs to 10 mantissa
  bits moves (``Expected.input_rounding_bound``), with nothing declared; a dropped K
  step still fails.
- cuda_hgemm's half accumulator is its design: against the natural reference (the
  float64 product rounded once to half) a right kernel fails by tens of half ulps at
  K = 256; against the reference that rounds the accumulator to half after each
  16-deep K step, as the README says to write it, it passes (the tensor core's step
  rounded to nearest), and a dropped K tile fails. A gap, fixed: the report of such a
  mismatch said nothing of half (round 40's note fired on half intrinsics and locals,
  for outputs wider than f16); a half accumulator fragment or an ``mma.sync`` with f16
  C and D now gets a note naming it and the reference to write
  (``oracle._builtins._TENSOR_HALF_ACCUMULATOR``).
- matmul-playground's tensorcore_naive_sgemm takes beta and beta * C in half before a
  float sum stored as half: against its author's plain ``alpha A B + beta C`` it passes
  (within what the oracle allows a half output), and a dropped K tile fails.
- cuda-samples' multistage ``cuda::pipeline`` matmul has two races that its own check,
  on constant matrices (A all 1, B all 0.01: every tile alike), cannot see: a copy one
  tile past its 4 stages ahead and no barrier after the product. The original here is
  fixed; the sample's form is a mutant in ``Wild.races`` (a copy still in flight is
  timing, not values: where its values pass on the GPU, compute-sanitizer must find
  it; whether racecheck sees ``cp.async`` is not yet known).

The two WebGPU ports pass on lavapipe (and the multistage one on SwiftShader; the f16
one is unsupported there, which has no shader-f16) and each of their mutants fails,
among them the ring of stages with no barrier after the product (tests/test_wild_kernels.py).

GPU test ids (none has run on a GPU yet):
``tests/test_wild_kernels.py -k "r61_ and cuda"`` (6 originals, 21 mutants; two of
the pipeline's mutants are races, checked by compute-sanitizer where their values pass),
and ``-k "r61_ and wgpu"`` on NVIDIA's Vulkan (2 ports, 6 mutants).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import oracle
from forge.size import parse_size
from oracle._builtins import accumulates_on_tensor_cores, rounds_to_tf32
from oracle._judge import _compare_leaf, _value_coverage
from oracle._tolerance import resolve_tolerance
from tests.wild import mutant
from tests.wild.round61 import (
    BF16_SIMPLE,
    BLOG_WMMA,
    HGEMM_WMMA_NAIVE,
    PLAYGROUND_NAIVE,
    ROUND61,
    TF32_SIMPLE,
)

#: the mutants that change a declaration's type, which may not compile (``float *
#: __half`` is ambiguous); the others change a bound, an index or a layout tag, and were
#: compiled once by hand for sm_80 and sm_90 (2026-12-06): NVRTC costs about 0.6 s a
#: WMMA module uncached, too much for CI to compile all 21
_RETYPED = {"the products accumulated in half"}


@pytest.mark.parametrize("name", list(ROUND61))
def test_each_original_compiles_for_sm_80_and_a_retyped_mutant_for_sm_90(name):
    """The originals use no Hopper feature (test_wild_kernels.py compiles them for
    sm_90); a mutant must compile where it runs, or the GPU's verdict on it is an ERROR,
    not the MISMATCH it is meant to be."""
    from backends.cuda._modules import check_steps, module_build

    wild = ROUND61[name]
    retyped = [mutant(wild, m) for m in wild.mutants if m in _RETYPED]
    for kernel, arch in [(wild.kernel, "sm_80"), *((k, "sm_90") for k in retyped)]:
        schedule, size = kernel.schedules[0], kernel.checked_sizes()[0]
        source = kernel.source("cuda", schedule, size)
        steps = kernel.steps("cuda", schedule, size, 2**31 - 1, source)
        image, _, entries = module_build(kernel, steps, source, arch).build()
        assert image, kernel.id
        check_steps(kernel, steps, entries, source)


# -- the judge on emulated tensor-core numerics --------------------------------------------


def _toward_zero_f32(exact: np.ndarray) -> np.ndarray:
    """float64 values truncated to float32 (the tensor core's accumulation)."""
    rounded = exact.astype(np.float32)
    over = np.abs(rounded.astype(np.float64)) > np.abs(exact)
    return np.where(over, np.nextafter(rounded, np.float32(0)), rounded).astype(np.float64)


def _tf32(x: np.ndarray) -> np.ndarray:
    """``cvt.rna.tf32.f32``: 10 mantissa bits, to nearest, ties away from zero."""
    bits = x.astype(np.float32).view(np.uint32) + np.uint32(1 << 12)
    return (bits & np.uint32(0xFFFFE000)).view(np.float32)


def _mma(A: np.ndarray, B: np.ndarray, step: int, acc_dtype=np.float32, skip=()) -> np.ndarray:
    """A (m x k) @ B (k x n) as WMMA computes it: K in steps of ``step``, each step's
    products and the accumulator summed exactly, then truncated to float32 (or rounded
    to nearest half for a half accumulator); the steps in ``skip`` left out."""
    acc = np.zeros((A.shape[0], B.shape[1]))
    for s, k0 in enumerate(range(0, A.shape[1], step)):
        if s in skip:
            continue
        exact = acc + A[:, k0 : k0 + step].astype(np.float64) @ B[k0 : k0 + step].astype(np.float64)
        if acc_dtype is np.float16:
            acc = exact.astype(np.float16).astype(np.float64)
        else:
            acc = _toward_zero_f32(exact)
    return acc


def _judged(kernel, size: str, emulate, label: str, one_way: bool = True) -> oracle.Comparison:
    """The judge's comparison (on CUDA) of ``emulate(case)`` for ``label`` (``one_way``
    False: as if the judge did not know the kernel sums on tensor cores)."""
    case = oracle.make_case(kernel, parse_size(size, kernel.dims), 0)
    expected = oracle.expected_outputs(case)
    want = expected.outputs[label]
    tol = resolve_tolerance(want.dtype, kernel.tolerance_at(case.size), "cuda", None)
    got = np.asarray(emulate(case)).astype(want.dtype).reshape(want.shape)
    return _compare_leaf(
        got,
        want,
        tol,
        {},
        _value_coverage(expected),
        expected,
        label,
        label,
        tf32=rounds_to_tf32(kernel, "cuda"),
        tensor_float=one_way and accumulates_on_tensor_cores(kernel, "cuda"),
    )


def _dims(case) -> tuple[int, int, int]:
    return int(case.size.M), int(case.size.N), int(case.size.K)


def _blog(case, **how) -> np.ndarray:
    """wmma_example: column-major A, B, C; C = 2 AB + 2 C in float32 (one FMA)."""
    M, N, K = _dims(case)
    A = case.arrays["a"].reshape(K, M).T
    B = case.arrays["b"].reshape(N, K).T
    if how.pop("b_row_major", False):  # each 16 x 16 tile of B read transposed
        B = B.reshape(K // 16, 16, N // 16, 16).transpose(0, 3, 2, 1).reshape(K, N)
    acc = _mma(A, B, 16, **how)
    C = case.arrays["c"].reshape(N, M).T.astype(np.float64)
    return (2.0 * acc + 2.0 * C).astype(np.float32).T.reshape(-1)


def test_the_blogs_half_gemm_passes_with_a_tensor_cores_float_accumulation():
    comparison = _judged(BLOG_WMMA.kernel, "M=80,N=48,K=272", _blog, "c")
    assert comparison.passed, comparison


@pytest.mark.parametrize(
    "how",
    [{"skip": (16,)}, {"acc_dtype": np.float16}, {"b_row_major": True}],
    ids=["last K tile dropped", "half accumulator", "B read row-major"],
)
def test_the_blogs_half_gemm_fails_where_its_mutants_compute(how):
    comparison = _judged(BLOG_WMMA.kernel, "M=80,N=48,K=272", lambda c: _blog(c, **how), "c")
    assert not comparison.passed


def _row_col(case, operand=lambda x: x, step: int = 16, skip=()) -> np.ndarray:
    """simple_wmma_*gemm: row-major A, column-major B; D = 1.1 AB + 1.2 C in float32."""
    M, N, K = _dims(case)
    A = operand(case.arrays["a"].reshape(M, K))
    B = operand(case.arrays["b"].reshape(N, K)).T
    acc = _mma(A, B, step, skip=skip)
    C = case.arrays["c"].reshape(M, N).astype(np.float64)
    alpha, beta = np.float64(np.float32(1.1)), np.float64(np.float32(1.2))
    return (alpha * acc + beta * C).astype(np.float32).reshape(-1)


def test_a_right_bf16_gemm_passes_over_a_long_k_and_a_dropped_tile_fails():
    kernel = BF16_SIMPLE.kernel
    assert _judged(kernel, "M=16,N=32,K=1024", _row_col, "d").passed
    assert not _judged(kernel, "M=16,N=32,K=1024", lambda c: _row_col(c, skip=(63,)), "d").passed


def test_a_tensor_cores_one_way_float_accumulation_passes_and_a_dropped_tile_still_fails():
    """On the H100 (2026-12-06) the bf16 sample at M=144, N=112, K=2048 was up to 2.9e-5
    below the exact sums (35 of 16128 elements past ``8 sqrt(K)`` float32 roundings):
    the tensor core truncates finer than its 16-deep steps. Emulated as a truncation
    every 4 products, a right kernel fails the bound of a loop's sum and passes the
    one-way bound (``k u M``) that a tensor-core float accumulator gets; a dropped
    K tile still fails that."""
    kernel = BF16_SIMPLE.kernel
    assert accumulates_on_tensor_cores(kernel, "cuda")
    size = "M=144,N=112,K=2048"
    fine = functools.partial(_row_col, step=4)
    assert not _judged(kernel, size, fine, "d", one_way=False).passed
    assert _judged(kernel, size, fine, "d").passed
    assert not _judged(
        kernel, size, lambda c: _row_col(c, step=4, skip=(300, 301, 302, 303)), "d"
    ).passed


def test_a_right_tf32_gemm_passes_by_its_input_rounding_and_a_dropped_step_fails():
    kernel = TF32_SIMPLE.kernel
    assert rounds_to_tf32(kernel, "cuda")
    right = _judged(kernel, "M=80,N=48,K=264", lambda c: _row_col(c, _tf32, 8), "d")
    assert right.passed and right.bounded_by and "TF32" in right.bounded_by, right
    dropped = _judged(kernel, "M=80,N=48,K=264", lambda c: _row_col(c, _tf32, 8, (32,)), "d")
    assert not dropped.passed


def _hgemm(case, skip=()) -> np.ndarray:
    A, B = case.arrays["A"].reshape(-1, int(case.size.K)), case.arrays["B"]
    return _mma(A, B.reshape(-1, int(case.size.K)).T, 16, np.float16, skip).astype(np.float16)


def test_a_half_accumulator_passes_against_the_reference_that_rounds_as_it_does():
    kernel = HGEMM_WMMA_NAIVE.kernel
    assert _judged(kernel, "M=80,N=48,K=256", _hgemm, "C").passed
    assert not _judged(kernel, "M=80,N=48,K=256", lambda c: _hgemm(c, (15,)), "C").passed

    def natural(A, B, C):  # the product rounded to half once: not what the kernel computes
        C[...] = A.astype(np.float64) @ B.astype(np.float64).T

    import dataclasses

    plain = dataclasses.replace(kernel, reference=natural)
    comparison = _judged(plain, "M=80,N=48,K=256", _hgemm, "C")
    assert not comparison.passed


def test_a_half_accumulator_failing_a_float_reference_is_told_how_to_write_its_own():
    """The report of cuda_hgemm's HGEMM against the product rounded once names the half
    accumulator and the reference that sums as it does (the note of round 40 fired only
    for half intrinsics and locals, on outputs wider than f16: this kernel has neither);
    the blog's float accumulator gets no such note, its half-accumulating mutant does."""
    import dataclasses
    from types import SimpleNamespace

    from oracle import Verdict
    from oracle._builtins import _half_arithmetic_note
    from oracle._results import OutputCheck

    def natural(A, B, C):
        C[...] = A.astype(np.float64) @ B.astype(np.float64).T

    plain = dataclasses.replace(HGEMM_WMMA_NAIVE.kernel, reference=natural)
    comparison = _judged(plain, "M=16,N=32,K=256", _hgemm, "C")
    assert not comparison.passed
    check = OutputCheck(label="C", comparison=comparison, count=512)
    ev = SimpleNamespace(verdict=Verdict.MISMATCH, outputs={"C": check})
    (note,) = _half_arithmetic_note(ev, plain, "cuda")
    assert "tensor cores in half" in note and ".astype(np.float16)" in note
    assert not _half_arithmetic_note(ev, BLOG_WMMA.kernel, "cuda")
    half = mutant(BLOG_WMMA, "the products accumulated in half")
    assert _half_arithmetic_note(ev, half, "cuda")


def _playground(case, skip=()) -> np.ndarray:
    """tensorcore_naive_sgemm: a float accumulator, beta and beta * C in half, the sum in
    float, D stored half."""
    A, B, C = (case.arrays[n].reshape(case.arrays[n].shape) for n in "ABC")
    M, N, K = _dims(case)
    acc = _mma(A.reshape(M, K), B.reshape(K, N), 16, skip=skip).astype(np.float32)
    scaled = (np.float16(0.7) * C.reshape(M, N)).astype(np.float32)
    with np.errstate(over="ignore"):  # the large families' sums overflow half, as on the GPU
        return (np.float32(0.3) * acc + scaled).astype(np.float16)


def test_a_half_epilogue_passes_against_the_plain_reference_and_a_dropped_tile_fails():
    kernel = PLAYGROUND_NAIVE.kernel
    assert _judged(kernel, "M=256,N=128,K=64", _playground, "D").passed
    assert not _judged(kernel, "M=256,N=128,K=64", lambda c: _playground(c, (3,)), "D").passed

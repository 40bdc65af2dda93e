"""Round 31's findings (tests/wild/round31.py), each pinned by the smallest run that
shows it: two bugs of the benchmark suites' own that the oracle catches in their
kernels as written, where the specs in the corpus keep to the sizes and grids the
kernels mean."""

from __future__ import annotations

import dataclasses

import pytest

import forge
import oracle
from forge import Dispatch, Schedule, ceil_div
from oracle import Session, Verdict
from oracle.pytest_plugin import require_available
from tests.wild import CORPUS, mutant
from tests.wild.round31 import COVARIANCE, SRAD


@pytest.fixture(scope="module")
def session():
    """One worker per backend for this module's evaluations: a fresh worker for each
    is a second of start-up (1.2 s on lavapipe, 2026-12-06)."""
    with Session(timeout_s=60) as shared:
        yield shared


def test_rodinia_srad_at_one_block_row_reads_past_the_image_and_fails(request, session):
    """srad_cuda_1, as written, fixes its south halo only ``else if ( by == gridDim.y -
    1 )``: with one block row (16 rows, which srad.cu accepts) that row is also ``by ==
    0``, so ``J_cuda[index_s]`` is read past the image's end and S_C's last row, and the
    C and J that use it, come back wrong (NaN: the guard past the end). Two block rows
    pass (the corpus's sizes)."""
    # SwiftShader where it is here: lavapipe's LLVM takes minutes over srad cold
    # (SRAD.slow_on); the browser's robust access gives what lavapipe's does
    backend = "browser" if forge.available_backends().get("browser", (False,))[0] else "wgpu"
    require_available(request.config, backend)
    ev = oracle.evaluate(session.runner(backend), SRAD.kernel, size="16x32", seed=0, samples=0)
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    wrong = {label for label, check in ev.outputs.items() if not check.passed}
    assert "S_C" in wrong and {"E_C", "W_C", "N_C"}.isdisjoint(wrong), ev.report()
    # and the report says where such NaNs come from (it did not)
    assert any("S_C" in n and "past a buffer's end" in n for n in ev.notes), ev.notes
    assert oracle.evaluate(
        session.runner(backend), SRAD.kernel, size="32x32", seed=0, samples=0
    ).passed


def _polybench_host_launches(size):
    """covarianceCuda's grid2 as written: ``N / DIM_THREAD_BLOCK_KERNEL_2_X`` (32) blocks
    of DIM_THREAD_BLOCK_KERNEL_2_Y (8) rows, a quarter of the rows (the other two grids,
    and grid2's x, as the kernels mean them)."""
    return (
        Dispatch("mean_kernel", grid=(ceil_div(size.M, 256), 1, 1), schedule=Schedule(256)),
        Dispatch(
            "reduce_kernel",
            grid=(ceil_div(size.M, 32), ceil_div(size.N, 32), 1),
            schedule=Schedule((32, 8)),
        ),
        Dispatch("covar_kernel", grid=(ceil_div(size.M, 256), 1, 1), schedule=Schedule(256)),
    )


def test_polybench_covariance_centring_a_quarter_of_the_rows_fails_on_finite_inputs(
    request, session
):
    """PolyBench/GPU launches reduce_kernel on N / 32 blocks of 8 rows: rows N / 4 and
    on are never centred. Its mean divides by 3214212.01, so the shift is small on
    rows of normal values (its own 1.05 % check passes), but the oracle's large rows
    make it show, on finite inputs alone (no NaN or Inf column mean needed)."""
    require_available(request.config, "wgpu")
    host = dataclasses.replace(
        COVARIANCE.kernel,
        id=COVARIANCE.kernel.id + "__host_grid2",
        launches=_polybench_host_launches,
        nonfinite_inputs=False,
    )
    ev = oracle.evaluate(session.runner("wgpu"), host, size="M=40,N=56", seed=0, samples=0)
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    assert not ev.outputs["data"].passed, ev.report()
    finite = dataclasses.replace(COVARIANCE.kernel, nonfinite_inputs=False)
    assert oracle.evaluate(
        session.runner("wgpu"), finite, size="M=40,N=56", seed=0, samples=0
    ).passed


def test_a_non_finite_mean_of_data_centred_in_place_is_not_blamed_on_the_reference(
    request, session
):
    """The covariance's data is drawn with -inf in a column and centred in place; a
    kernel that leaves rows uncentred keeps finite values where the reference's are
    -inf. The note that blames a reference for a non-finite result "from finite inputs"
    read no input at all here (the in-place buffer's values were not counted)."""
    require_available(request.config, "wgpu")
    wild = CORPUS["wild_r31_polybench_gpu_covariance_mean_reduce_covar"]
    kernel = mutant(wild, "reduce bounds swapped")
    ev = oracle.evaluate(
        session.runner("wgpu"), kernel, size=kernel.size("M=40,N=56"), seed=0, samples=0
    )
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    assert not [n for n in ev.notes if "from finite inputs" in n], ev.notes


def test_pow_and_log2_on_constants_withhold_no_input_family():
    """No device needed: backprop's port counts its tree's levels with
    ``log2(f32(HEIGHT))`` and ``pow(2.0, f32(i))``; the families WGSL's pow and log2
    have no defined result for were withheld from every input. A pow of an input still
    withholds them."""
    from oracle._builtins import builtin_limits

    wild = CORPUS["wild_r31_rodinia_backprop_layerforward_shared_tree"]
    assert builtin_limits(wild.kernel) == {}
    source = wild.kernel.sources["wgsl"].replace("pow(2.0, f32(i))", "pow(2.0, f32(i) + 0.0 * x)")
    data = dataclasses.replace(wild.kernel, sources={"wgsl": source})
    assert set(builtin_limits(data)) == {"subnormal", "nonfinite"}

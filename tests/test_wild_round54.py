"""What round 54 (tests/wild/round54.py: LeetGPU solutions as their authors publish
them) showed.

- No false alarm and no missed mutant where they run here, after one fix: every
  original passes on the reference, lavapipe and SwiftShader (its WebGPU port), every
  WGSL mutant fails on both, and every CUDA original and mutant compiles with NVRTC,
  host side (``extern "C" void solve`` with its ``<<<...>>>`` launches,
  ``cudaMemset``, ``cudaDeviceSynchronize``) and all. The CUDA runs need the GPU.
- A false pass, fixed: a softmax over the whole buffer (LeetGPU's softmax is one flat
  array) whose maximum starts at 0 instead of -FLT_MAX passed every input set. Such a
  softmax is wrong only where every exp underflows, a buffer wholly below about -88;
  the one-sign sets draw a flat buffer's first half of moderate magnitudes (1e-2 to
  1e2), so its maximum stays near 0, and only buffers of rows had a line wholly far
  below zero. The oracle now runs a ``far-negative`` set (every float input negative
  and of large magnitude throughout) after the one-sign sets, for a kernel that keeps
  a running extremum, takes an exponential and has no float input of rows
  (``oracle._inputs.FAR_SET``, ``draws_flat_floats``, ``oracle._builtins.calls_exp``:
  a maximum started at 0 with no exp after it shows on the one-sign sets already, and
  run for every flat kernel keeping an extremum the set nearly doubled the other
  eleven's time); the other sets draw what they drew. The four other flat kernels of
  the corpus that run it on WebGPU (rounds 13, 26 and 42: attention softmaxes and a
  log-sum-exp merge) pass it on lavapipe and SwiftShader and the reference; the flat
  CUDA ones (round 26's, this round's) run it on the GPU only. jiangdongzi's online
  softmax with its running maximum started at 0 fails only there too.
- The solutions' real bugs, each shown by the oracle at a size inside the challenge's
  constraints (LeetGPU's histogram tests stop at 256 bins): jiangdongzi's online softmax
  folds its block pairs in a second launch of up to four blocks that each write the two
  ``__device__`` results, so past N = 65536 the last block's share wins (its tree from
  ``offset = 256``, past its shared arrays, fails at every size and is the entry's first
  mutant); bluecoffee8's histogram clears and merges only the bins below its block size
  (512; the port's 256), so the upper bins of ``num_bins`` up to 1024 come back 0 (and
  on CUDA count in shared memory nobody cleared); Euler0525's softmax is one block of
  256 threads of 16 elements, so past N = 4096 the rest is never written (the oracle's
  poison shows it, "unwritten").
  bluecoffee8's cross-entropy takes ``__expf`` of the raw logits: right inside the
  challenge's ``-10 <= logits <= 10``, infinite past 88 (the report says it passes the
  finite set).
- Expressed, not changed: an output the solution adds into, relying on the harness's
  zeros (jiangdongzi's dot product clears nothing), is declared ``initial=0``; declared
  without it the oracle's poison fails it, and the report says to declare it (now
  naming a harness that hands over zeroed outputs). An in-place buffer (the reversal,
  the colour inversion) is ``inout=True``; declared a plain output, the reference reads
  the poison and its error said only "wrote nothing ... returned nothing" or "left N
  unwritten": it now names inout=True too.

What only the GPU can show: every CUDA run (the originals' values, the CUDA mutants
failing, the histogram past 512 bins counting into uncleared shared memory);
Euler0525's write-after-read race on ``shared[0]`` (warp 0's first write of the sum
against the other warps' read of the maximum, no barrier between), which NVIDIA's
scheduling almost never shows and compute-sanitizer's racecheck should report; whether
``__expf`` and ``__logf`` (bluecoffee8's cross-entropy: 2 + 1.17|x| ulps for x up to
10) stay inside the rounding bounds the judge allows a float computation; the
far-negative set on the flat CUDA kernels of earlier rounds.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import oracle
from forge.errors import ReferenceFailed
from oracle import Session, Verdict, expected_outputs
from oracle._builtins import calls_exp, running_extremum
from oracle._inputs import FAR_SET, draws_flat_floats, make_case
from oracle.pytest_plugin import require_available
from tests.wild import CORPUS, mutant
from tests.wild.round54 import (
    COLOR_INVERSION,
    CROSS_ENTROPY,
    DOT_PRODUCT,
    HISTOGRAM,
    ONLINE_SOFTMAX,
    REVERSE_ARRAY,
    ROUND54,
    SOFTMAX,
)


@pytest.fixture(scope="module")
def session():
    with Session(timeout_s=60) as shared:
        yield shared


def _evaluate(session, backend, kernel, size):
    return oracle.evaluate(session.runner(backend), kernel, size=size, seed=0, samples=0, warmups=0)


@pytest.mark.parametrize("backend", ["wgpu", "browser"])
def test_a_flat_softmax_whose_maximum_starts_at_zero_fails_in_the_far_negative_set(
    request, session, backend
):
    """Euler0525's softmax port with ``local_max_value = 0.0``: every earlier set
    passes (a flat buffer's maximum is near 0 in each), and the far-negative set, whose
    every element lies below -1e4, makes every exp 0 and the quotient 0 / 0."""
    require_available(request.config, backend)
    ev = _evaluate(session, backend, mutant(SOFTMAX, "the maximum started at zero"), 1001)
    assert ev.verdict is Verdict.MISMATCH and ev.failed_input_set == FAR_SET, ev.report()
    names = [s.split(" ")[0] for s in ev.input_sets]
    assert names[-3:] == ["negative", "positive", FAR_SET], ev.input_sets
    assert all("pass" in s for s in ev.input_sets[1:-1]), ev.input_sets
    right = _evaluate(session, backend, SOFTMAX.kernel, 1001)
    assert right.passed and right.input_sets[-1].startswith(FAR_SET), right.report()


@pytest.mark.parametrize("backend", ["wgpu", "browser"])
def test_an_online_softmax_whose_running_maximum_starts_at_zero_fails_there_too(
    request, session, backend
):
    """jiangdongzi's three launches with the first launch's pair started at (0, 0): the
    merge rescales a sum of 0, so only the maximum is off, by the buffer's own maximum
    near 0 in every earlier set; in the far-negative set every exp underflows."""
    require_available(request.config, backend)
    wrong = mutant(ONLINE_SOFTMAX, "the running maximum started at zero")
    ev = _evaluate(session, backend, wrong, 5000)
    assert ev.verdict is Verdict.MISMATCH and ev.failed_input_set == FAR_SET, ev.report()


def test_the_far_negative_set_draws_flat_floats_wholly_far_below_zero():
    """Every float input of a flat kernel negative and of 1e4 or more throughout; a
    kernel with a float input of rows (the cross-entropy's logits) does not run it,
    and its labels (a ``fill``) are drawn by their fill as in every set."""
    case = make_case(SOFTMAX.kernel, 1001, 0, input_set=FAR_SET)
    x = case.arrays["input"].astype(np.float64)
    assert (x <= -1e4).all() and case.layout["input"] == (("negative", 0, 1001),)
    assert draws_flat_floats(case)
    rows = make_case(CROSS_ENTROPY.kernel, "N=67,C=45", 0, input_set=FAR_SET)
    assert not draws_flat_floats(rows)
    labels = rows.arrays["true_labels"]
    assert ((labels >= 0) & (labels < 45)).all()
    # the one-sign set a flat buffer had: half moderate, the maximum near 0
    half = make_case(SOFTMAX.kernel, 1001, 0, input_set="negative").arrays["input"]
    assert half.max() > -100
    # run where an exp follows the maximum: a flat min/max with none shows a start at
    # 0 on the moderate values already
    assert calls_exp(SOFTMAX.kernel) and calls_exp(ONLINE_SOFTMAX.kernel)
    min_max = CORPUS["wild_r36_del_msh_kernel_MinMax_TPB256_atomicCAS_wgsl"].kernel
    assert running_extremum(min_max) and not calls_exp(min_max)


@pytest.mark.parametrize("backend", ["wgpu", "browser", "cuda"])
def test_the_histogram_as_written_drops_the_bins_past_its_block(request, session, backend):
    """``if (threadIdx.x < num_bins)`` clears and merges a bin a thread: past the block
    (512 threads on CUDA, 256 invocations in the port) the upper bins are never added
    to the output, which the harness left at 0; the challenge allows 1024 bins."""
    require_available(request.config, backend)
    bins = 700 if backend == "cuda" else 300
    block = 512 if backend == "cuda" else 256
    ev = _evaluate(session, backend, HISTOGRAM.kernel, f"N=5003,num_bins={bins}")
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    got = ev.got["output"]
    if backend != "cuda":  # CUDA's upper bins counted in shared memory nobody cleared
        assert (got[block:] == 0).all() and (got[:block] > 0).all(), got


@pytest.mark.parametrize("backend", ["wgpu", "browser", "cuda"])
def test_the_one_block_softmax_as_written_leaves_what_is_past_4096_unwritten(
    request, session, backend
):
    """``softmax_kernel<16><<<1, 256>>>``: past 4096 elements nothing reads or writes
    the rest (the challenge goes to 500,000): the oracle's poison is left there."""
    require_available(request.config, backend)
    ev = _evaluate(session, backend, SOFTMAX.kernel, 5000)
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    unwritten = [f.message for f in ev.findings if f.check == "unwritten"]
    assert unwritten and "904 of 5000" in unwritten[0] and "element 4096" in unwritten[0]


@pytest.mark.parametrize("backend", ["wgpu", "browser", "cuda"])
def test_the_online_softmax_as_written_loses_part_of_the_sum_past_256_blocks(
    request, session, backend
):
    """The second launch's ``min(1024, ceil(blocks / 256))`` blocks each fold a share of
    the block pairs and each write ``g_max_val`` and ``g_sum_val``: at N = 70000 (274
    pairs, two blocks) the last to write wins with its share of the sum, and the
    elements are off (element 0 by 37 times on lavapipe)."""
    require_available(request.config, backend)
    ev = _evaluate(session, backend, ONLINE_SOFTMAX.kernel, 70000)
    assert ev.verdict is Verdict.MISMATCH, ev.report()


def test_the_cross_entropy_without_its_maximum_overflows_past_the_challenges_logits(
    request, session
):
    """``__expf`` of the raw logits: inside the challenge's [-10, 10] (the declared
    domain) it passes; over [-100, 100] the sum of a sample overflows and the loss is
    infinite, and the report says it passes the finite set."""
    require_available(request.config, "wgpu")
    wide = dataclasses.replace(CROSS_ENTROPY.kernel, domain={"logits": (-100.0, 100.0)})
    ev = _evaluate(session, "wgpu", wide, "N=67,C=45")
    assert ev.verdict is Verdict.MISMATCH and np.isinf(ev.got["loss"]).all(), ev.report()
    assert "it passes the finite input set" in ev.report(), ev.report()


def test_an_output_added_into_without_initial_is_told_to_declare_it(request, session):
    """jiangdongzi's dot product adds into ``result`` and clears nothing, relying on the
    harness's zeros; declared without ``initial=0`` it starts as the oracle's poison
    (NaN), the sum is NaN, and the report names the declaration to make."""
    require_available(request.config, "wgpu")
    kernel = DOT_PRODUCT.kernel
    bare = dataclasses.replace(
        kernel,
        buffers=tuple(
            dataclasses.replace(b, initial=None) if b.name == "result" else b
            for b in kernel.buffers
        ),
        reference=lambda A, B: np.array([(A.astype(np.float64) * B).sum()]),
    )
    ev = _evaluate(session, "wgpu", bare, 2500)
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    assert any("result: the kernel reads it before writing" in n for n in ev.notes), ev.notes
    assert any("initial=0" in n and "LeetGPU's" in n for n in ev.notes), ev.notes


@pytest.mark.parametrize(
    "entry, size", [(REVERSE_ARRAY, 1001), (COLOR_INVERSION, "width=37,height=29")]
)
def test_an_in_place_buffer_declared_without_inout_is_told_to_declare_it(entry, size):
    """lzyrapx's reversal and colour inversion work on their one buffer in place; declared
    as a plain output, it starts as the oracle's poison, and the reference, which reads
    it, moves the poison about (all of it for the reversal, the alpha bytes for the
    image): its error names inout=True."""
    kernel = entry.kernel
    plain = dataclasses.replace(
        kernel,
        buffers=tuple(dataclasses.replace(b, inout=False) for b in kernel.buffers),
    )
    with pytest.raises(ReferenceFailed, match="declare it inout=True"):
        expected_outputs(make_case(plain, size, 0))


@pytest.mark.parametrize(
    "name, what",
    [
        (name, what)
        for name, wild in ROUND54.items()
        for what, (target, _, _) in wild.mutants.items()
        if target == "cuda"
    ],
)
def test_the_cuda_mutants_compile_with_nvrtc(name, what):
    """Each CUDA mutant of the round compiles with NVRTC, host side and all, and its
    launch matches the parameters its PTX declares (the originals are
    tests/test_wild_kernels.py's)."""
    from backends.cuda._modules import check_steps, module_build

    kernel = mutant(ROUND54[name], what)
    schedule, size = kernel.schedules[0], kernel.largest_size()
    source = kernel.source("cuda", schedule, size)
    steps = kernel.steps("cuda", schedule, size, 2**31 - 1, source)
    image, names, entries = module_build(kernel, steps, source, "sm_90").build()
    assert image and {n for n in names if not n.startswith("&")} == {s.entry_point for s in steps}
    check_steps(kernel, steps, entries, source)

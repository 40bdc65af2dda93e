"""``oracle.evaluate``: a correct kernel passes on every backend with the evidence
recorded; the judging machinery (poison, guard elements, input read-back, the
second look after the timed runs, tolerances) is proved with numpy functions that
are wrong on purpose, judged against the correct meaning."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

import forge
import oracle
from forge import InvalidArgument, OracleMismatch, Schedule, ValidationLevel
from oracle.pytest_plugin import require_available

AFFINE = forge.get_kernel("raw_affine")


def _twin(function, name: str, **changes):
    """raw_affine with another numpy meaning (its own id, so no cache confuses them)."""
    return dataclasses.replace(AFFINE, id=f"affine_{name}", reference=function, **changes)


_affine = AFFINE.reference


@pytest.fixture
def reference():
    with forge.open_context("reference") as ctx:
        yield ctx


def test_a_correct_kernel_passes_with_its_evidence_recorded(forge_context):
    ctx = forge_context
    ev = oracle.evaluate(ctx, AFFINE, size=4099, seed=5, warmups=1, samples=4)
    assert ev.passed and ev.verdict == "pass", ev.report()
    assert ev.level is ValidationLevel.PROFILED
    assert ev.input_hash == oracle.make_case(AFFINE, 4099, 5).input_hash
    assert ev.max_ulp is not None and ev.max_ulp <= 4
    assert ev.outputs["y"].unwritten == 0 and ev.outputs["y"].past_end == 0
    assert ev.timing.count == 4 and ev.timing.source == ctx.timing_source
    assert 0 < ev.timing.min <= ev.timing.median <= ev.timing.p95
    assert ev.schedule == AFFINE.schedules[0] and ev.adapter == ctx.adapter
    text = ev.report()
    assert "raw_affine" in text and ctx.backend_name in text and "PASS" in text
    json.dumps(ev.as_dict())


def test_without_samples_nothing_is_timed_and_the_level_stops_at_verified(reference):
    ev = oracle.evaluate(reference, AFFINE, samples=0)
    assert ev.passed and ev.timing is None and ev.level is ValidationLevel.ORACLE_VERIFIED


def test_evaluation_releases_its_views_and_leaves_the_context_usable(reference):
    oracle.evaluate(reference, AFFINE, samples=2)
    assert reference.allocator.live_views() == 0
    view = reference.allocate_and_write(np.arange(4, dtype=np.float32), 0)
    assert reference.read_buffer_f32(view).tolist() == [0, 1, 2, 3]


def test_unwritten_elements_are_found_by_their_poison(reference):
    def even_only(x, y, p):
        y[::2] = np.float32(p["a"]) * x[::2] + np.float32(p["b"])

    ev = oracle.evaluate(reference, _twin(even_only, "even"), size=1000, truth=AFFINE, samples=0)
    assert ev.verdict == "mismatch"
    assert ev.outputs["y"].unwritten == 500 and ev.outputs["y"].first_unwritten == 1
    assert any("never written" in p for p in ev.problems)


def test_an_input_changed_by_the_kernel_is_reported(reference):
    def clobber(x, y, p):
        _affine(x, y, p)
        x[10:20] = 123.0

    ev = oracle.evaluate(reference, _twin(clobber, "clobber"), truth=AFFINE, samples=0)
    assert ev.verdict == "mismatch" and ev.inputs_modified == {"x": 10}
    assert ev.outputs["y"].comparison.passed  # the output itself was right


def test_a_kernel_wrong_only_on_later_runs_is_caught_after_the_timed_runs(reference):
    calls = []

    def drifting(x, y, p):
        calls.append(1)
        _affine(x, y, p)
        if len(calls) > 1:
            y[7] += 1.0

    ev = oracle.evaluate(reference, _twin(drifting, "drift"), truth=AFFINE, samples=3)
    check = ev.outputs["y"]
    assert check.comparison.passed and not check.later.passed and not ev.passed
    assert check.later.first_mismatches[0].index == (7,)
    assert any("after the timed runs" in p for p in ev.problems)


def _ticketed(seen: list[int]):
    """raw_affine that first takes a ticket from a scratch counter starting at 0 (as a
    single-pass scan numbers its tiles), recording each ticket it took."""
    ticket = forge.BufferSpec(
        3, "u32", "read_write", name="ticket", count=1, initial=0, scratch=True
    )

    def ticketed(x, y, p, counter):
        seen.append(int(counter[0]))
        counter[0] += 1
        _affine(x, y, p)

    return _twin(ticketed, "ticketed", buffers=(*AFFINE.buffers, ticket))


def test_each_timed_run_starts_from_the_contents_the_judged_run_started_from(reference):
    # a ticket counter left used by the judged run made the timed runs do other work
    # (a scan 500 times faster on lavapipe): each warmup and sample starts from 0 too
    seen: list[int] = []
    ev = oracle.evaluate(reference, _ticketed(seen), size=64, warmups=2, samples=3)
    assert ev.passed, ev.report()
    # the first input set: judged, warmups, samples, the run after them; later input
    # sets are judged untimed
    assert len(seen) >= 1 + 2 + 3 + 1 and set(seen) == {0}, seen
    assert len(ev.timing.samples_ns) == 3


def test_without_contents_to_restore_the_timed_runs_go_back_to_back(reference, monkeypatch):
    calls = []
    run = reference.run_kernel

    def counted(kernel, schedule, views, size, warmups=0, samples=1, **kwargs):
        calls.append((warmups, samples))
        return run(kernel, schedule, views, size, warmups, samples, **kwargs)

    monkeypatch.setattr(reference, "run_kernel", counted)
    assert oracle.evaluate(reference, AFFINE, size=64, warmups=2, samples=3).passed
    # the judged run, then warmups and samples in one call; later input sets untimed
    assert calls[:2] == [(0, 1), (2, 3)] and set(calls[2:]) <= {(0, 1)}, calls


def test_tolerance_comes_from_defaults_kernel_backend_and_caller(reference):
    def sloppy(x, y, p):  # relative error 1e-4: outside the f32 default
        _affine(x, y, p)
        y *= np.float32(1 + 1e-4)

    kernel = _twin(sloppy, "sloppy")
    assert not oracle.evaluate(reference, kernel, truth=AFFINE, samples=0).passed
    assert oracle.evaluate(
        reference, kernel, truth=AFFINE, samples=0, tolerance={"rtol": 1e-3}
    ).passed
    widened = _twin(sloppy, "sloppy_ok", tolerance={"backend:reference": {"rtol": 1e-3}})
    ev = oracle.evaluate(reference, widened, truth=AFFINE, samples=0)
    assert ev.passed and ev.outputs["y"].comparison.tolerance.rtol == 1e-3


def test_raise_for_failure_carries_the_report(reference):
    def zeros(x, y, p):
        y[:] = 0

    with pytest.raises(OracleMismatch, match="MISMATCH") as info:
        oracle.assert_matches_reference(reference, _twin(zeros, "zeros"), truth=AFFINE, samples=0)
    assert isinstance(info.value, AssertionError) and info.value.report.verdict == "mismatch"
    assert oracle.assert_matches_reference(reference, AFFINE, samples=0).passed


def test_a_truth_with_other_buffers_is_refused(reference):
    other = forge.get_kernel("demo_square")
    with pytest.raises(InvalidArgument, match="same interface"):
        oracle.evaluate(reference, AFFINE, truth=other)


def test_backend_failures_become_verdicts_not_exceptions(request):
    require_available(request.config, "wgpu")
    with forge.open_context("wgpu") as ctx:
        cuda_only = dataclasses.replace(
            AFFINE, id="affine_cuda_only", sources={"cuda": AFFINE.sources["cuda"]}
        )
        ev = oracle.evaluate(ctx, cuda_only, samples=0)
        assert ev.verdict == "unsupported" and "no wgsl source" in ev.error
        assert ev.level is ValidationLevel.NONE
        bad = dataclasses.replace(
            AFFINE,
            id="affine_bad_wgsl",
            sources={"wgsl": AFFINE.sources["wgsl"].replace("p.b", "p.q")},
        )
        ev = oracle.evaluate(ctx, bad, samples=0)
        assert ev.verdict == "error" and ev.error_type == "CompileError"
        assert ev.level is ValidationLevel.GENERATED
        too_big = oracle.evaluate(ctx, AFFINE, Schedule(4096), samples=0)
        assert too_big.verdict == "unsupported" and "max_workgroup_size" in too_big.error
        assert oracle.evaluate(ctx, AFFINE, samples=0).passed  # the context still works


def test_a_closed_context_is_an_error_verdict():
    ctx = forge.open_context("reference")
    ctx.close()
    ev = oracle.evaluate(ctx, AFFINE, samples=0)
    assert ev.verdict == "error" and ev.error_type == "ContextClosed"


def test_bad_arguments_are_refused(reference):
    with pytest.raises(InvalidArgument):
        oracle.evaluate(reference, "raw_affine")
    with pytest.raises(InvalidArgument, match="warmups"):
        oracle.evaluate(reference, AFFINE, samples=-1)


_TWICE_I32 = """\
struct Params { n: u32 }
@group(0) @binding(0) var<storage, read> x: array<i32>;
@group(0) @binding(1) var<storage, read_write> y: array<i32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(${wg_x})
fn ${entry}(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let i = (wg.y * groups.x + wg.x) * ${wg_x}u + lid;
    if (i < p.n) { y[i] = x[i] * @FACTOR@; }
}
"""


def _twice(x, y, p):
    y[:] = x * np.int32(2)  # wraps on overflow, as WGSL's i32 does


@pytest.mark.parametrize("factor,passes", [("2", True), ("3", False)])
def test_integer_buffers_are_judged_exactly(request, factor, passes):
    require_available(request.config, "wgpu")
    kernel = forge.KernelSpec(
        id=f"twice_i32_{factor}",
        entry_point="twice",
        buffers=(
            forge.BufferSpec(0, "i32", "read", name="x"),
            forge.BufferSpec(1, "i32", "read_write", name="y"),
            forge.BufferSpec.uniform(2, (("n", "u32"),)),
        ),
        sources={"wgsl": _TWICE_I32.replace("@FACTOR@", factor)},
        reference=_twice,
        params=lambda n: {"n": n},
        test_sizes=(999,),
    )
    with forge.open_context("wgpu") as ctx:
        ev = oracle.evaluate(ctx, kernel, samples=1)
    assert ev.passed is passes, ev.report()
    assert ev.outputs["y"].comparison.tolerance.ulp == 0
    if not passes:  # every nonzero input doubles instead of tripling (zeros agree)
        x = oracle.make_case(kernel, 999, 0).arrays["x"]
        assert ev.outputs["y"].comparison.mismatches == np.count_nonzero(x)


def _row_sums(x, y):
    """Each element of y the sum of a window of x: a polynomial the bounds run on."""
    n = x.shape[0]
    y[:] = np.convolve(np.concatenate([x, x[:7]]), np.ones(8, x.dtype), "valid")[:n]


def test_kernels_judged_on_one_case_share_the_reference_s_float64_runs():
    """The rounding bounds (27 float64 runs of the reference, what a failing kernel
    costs) are made once for every kernel judged on the same case against the same
    reference: a mutant or a tune's variant differs in its source, not in them. Any
    other difference (the reference, the inputs, another field) makes them anew."""
    calls = []

    def counted(x, y):
        calls.append(1)
        _row_sums(x, y)

    first = _twin(counted, "shared_runs")
    # a mutant's source: the same division and builtins (whether its quotients are
    # IEEE's and which fast builtins it calls are part of the bounds' key)
    sources = {target: f"{text}\n// b\n" for target, text in first.sources.items()}
    other_source = dataclasses.replace(first, id="shared_runs_b", sources=sources)
    kernels = {
        "the same case": (other_source, 7),
        "another seed": (other_source, 8),
        "another reference": (dataclasses.replace(first, reference=lambda x, y: counted(x, y)), 7),
        "another field": (dataclasses.replace(first, test_sizes=(99,)), 7),
    }
    bound = oracle.expected_outputs(oracle.make_case(first, 512, 7)).rounding_bound()
    assert bound and all(b.any() for b in bound.values()), "no bound to share"
    made = {}
    for what, (kernel, seed) in kernels.items():
        expected = oracle.expected_outputs(oracle.make_case(kernel, 512, seed))
        before = len(calls)
        again = expected.rounding_bound()
        made[what] = len(calls) - before
        assert again.keys() == bound.keys()
        if what == "the same case":
            assert all(again[k] is bound[k] for k in bound)
    assert made["the same case"] == 0, made
    assert all(made[what] >= 20 for what in made if what != "the same case"), made

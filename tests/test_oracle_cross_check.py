"""``oracle.cross_check``: one set of inputs on every backend, each judged against the
reference and compared pairwise; the report names the backend that diverges."""

from __future__ import annotations

import json

import pytest

import forge
import oracle
from forge import InvalidArgument
from oracle.pytest_plugin import require_available
from tests.oracle_broken import CASES

AFFINE = forge.get_kernel("raw_affine")


def test_every_available_backend_runs_the_same_inputs_and_agrees():
    result = oracle.cross_check(AFFINE, samples=1)
    status = forge.available_backends()
    assert set(result.evaluations) == {n for n, (ok, _) in status.items() if ok}
    assert set(result.skipped) == {n for n, (ok, _) in status.items() if not ok}
    assert {ev.input_hash for ev in result.evaluations.values()} == {result.input_hash}
    assert result.passed and result.diverging == [], result.report()
    n = len(result.evaluations)
    assert len(result.pairs) == n * (n - 1) // 2 and all(p.agree for p in result.pairs)
    assert "agree with the reference" in result.verdict()
    json.dumps(result.as_dict())


def test_the_diverging_backend_is_named(request):
    require_available(request.config, "wgpu")
    broken = CASES["missing_guard"].broken
    seen = []
    result = oracle.cross_check(
        broken, ["reference", "wgpu"], samples=1, on_result=lambda name, ev: seen.append(name)
    )
    assert seen == ["reference", "wgpu"]
    assert result.diverging == ["wgpu"] and not result.passed
    assert result.verdict() == "diverging from the reference: wgpu"
    assert "wgpu" in result.report() and "written past the end" in result.report()


def test_backends_agreeing_against_the_reference_put_the_reference_under_suspicion():
    """Two backends that match each other but not the reference point at the reference
    (or a shared emitter bug), not at the backends; shown with hand-made results."""
    result = oracle.CrossCheck(AFFINE, 10, 0, "hash")
    for name in ("reference", "gpu_a", "gpu_b"):
        ev = oracle.Evaluation(AFFINE, name, None, AFFINE.schedules[0], 10, 0, "hash", "ref")
        ev.verdict = "pass" if name == "reference" else "mismatch"
        result.evaluations[name] = ev
    result.pairs = [
        oracle.PairCheck("gpu_a", "gpu_b", {}),
        oracle.PairCheck("reference", "gpu_a", {"y": oracle.compare([1.0], [2.0])}),
    ]
    assert result.diverging == ["gpu_a", "gpu_b"]
    assert "suspect the reference" in result.verdict()


def test_a_backend_that_timed_out_diverges():
    result = oracle.CrossCheck(AFFINE, 10, 0, "hash")
    for name, verdict in (("reference", "pass"), ("gpu", "timeout")):
        result.evaluations[name] = oracle.Evaluation(
            AFFINE, name, None, AFFINE.schedules[0], 10, 0, "hash", "ref", verdict=verdict
        )
    assert result.diverging == ["gpu"] and not result.passed
    assert result.verdict() == "timeout: gpu"  # not "diverging": it never finished


def test_unknown_backends_are_refused_with_the_installed_list():
    with pytest.raises(InvalidArgument, match="installed"):
        oracle.cross_check(AFFINE, ["reference", "no-such-backend"])


def _plan_of(*ids: str) -> list[tuple]:
    return [(forge.get_kernel(i), s, 0) for i in ids for s in forge.get_kernel(i).checked_sizes()]


def test_items_prepared_while_backends_open_are_judged_as_if_made_in_the_check(monkeypatch):
    """``kforge check`` makes the first items' inputs and references while the workers
    open; the check takes them in order, runs no reference twice, and judges exactly
    as it does with nothing prepared."""
    plan = _plan_of("axpy", "row_sum", "raw_affine")
    options = oracle.CheckOptions(samples=1)
    with oracle.Session(isolate=False) as session:
        plain = list(oracle.check_many(plan, ["reference"], session, options))
    prepared = oracle.prepare_while(lambda: True, plan, options)
    assert len(prepared) == len(plan)
    import oracle._cross_check as cross

    def no_second_reference(*args, **kwargs):
        raise AssertionError("a prepared item's reference ran again")

    monkeypatch.setattr(cross, "expected_outputs", no_second_reference)
    with oracle.Session(isolate=False) as session:
        ahead = list(oracle.check_many(plan, ["reference"], session, options, prepared=prepared))

    def summary(results):
        return [
            (r.kernel.id, r.size, r.input_hash, ev.verdict, ev.max_ulp)
            for r in results
            for ev in r.evaluations.values()
        ]

    assert summary(ahead) == summary(plain) and len(ahead) == len(plan)


def test_preparing_stops_when_the_backends_are_open_or_the_memory_bound_is_reached():
    plan = _plan_of("axpy", "row_sum")
    assert oracle.prepare_while(lambda: False, plan) == []
    assert len(oracle.prepare_while(lambda: True, plan, limit_bytes=0)) == 1
    # a backend as the reference cannot be prepared without it: nothing is made
    with_backend = oracle.CheckOptions(reference="reference")
    assert oracle.prepare_while(lambda: True, plan, with_backend) == []


def test_an_item_that_fails_while_prepared_fails_when_the_check_reaches_it():
    """A bad item made ahead raises where the check would have raised it (the check
    draws two items ahead, so before the first result), with the same error."""
    good = forge.get_kernel("axpy")
    plan = [(good, 100, 0), (good, "-5", 0)]  # a negative size is refused

    def run(prepared):
        seen = []
        with pytest.raises(InvalidArgument) as raised:
            with oracle.Session(isolate=False) as session:
                for result in oracle.check_many(plan, ["reference"], session, prepared=prepared):
                    seen.append(result.size)
        return str(raised.value), seen

    prepared = oracle.prepare_while(lambda: True, plan)
    assert prepared[0].raised is None and prepared[1].raised is not None
    assert run(prepared) == run(()) and "-5" in run(())[0]

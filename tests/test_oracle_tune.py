"""``oracle.tune``: pruning by constraints (dry run shows why), grid then successive
halving, correctness as a hard gate, recovery from a lost device, and a winner only
when its lead exceeds the measured noise. No assertion here depends on which schedule
is faster: timing is for benchmarks."""

from __future__ import annotations

import dataclasses

import pytest

import forge
import oracle
from backends.reference import ReferenceContext
from forge import DeviceLost, InvalidArgument, Schedule
from oracle.pytest_plugin import require_available

AFFINE = forge.get_kernel("raw_affine")


class _ScheduleSensitive(ReferenceContext):
    """A host context that compiles a different 'source' per schedule (so no candidate
    is pruned as a duplicate) and whose device dies on one schedule."""

    backend_name = "reference"

    def __init__(self, lose_on: Schedule | None = None, wrong_on: Schedule | None = None):
        super().__init__()
        self.lose_on, self.wrong_on = lose_on, wrong_on

    def kernel_source(self, kernel, schedule, size=None):
        return f"{kernel.semantic_hash}:{schedule}"

    def _launch(self, compiled, launch, warmups, samples):
        if launch.schedule == self.lose_on:
            raise DeviceLost("injected fault")
        times = super()._launch(compiled, launch, warmups, samples)
        if launch.schedule == self.wrong_on:
            self._arrays(launch)[1][3] += 1.0  # corrupt one output element
        return times


def test_dry_run_prunes_by_constraints_and_duplicates_and_runs_nothing():
    ctx = _ScheduleSensitive()
    space = [Schedule(64), Schedule(64), Schedule(2048), Schedule(128, items_per_invocation=2)]
    result = oracle.tune(ctx, AFFINE, space=space, dry_run=True)
    statuses = [(c.status, c.reason) for c in result.candidates]
    assert statuses[0] == ("candidate", "")
    assert statuses[1] == ("pruned", "duplicate of wg=64,ipt=1,vec=1")
    assert statuses[2][0] == "pruned" and "max_workgroup_size" in statuses[2][1]
    assert statuses[3] == ("candidate", "")
    assert all(c.timing is None for c in result.candidates) and result.dry_run
    assert "2 candidates would be measured" in result.conclusion
    assert "pruned" in result.report()


def test_a_kernel_that_ignores_a_parameter_has_those_variants_pruned(request):
    require_available(request.config, "wgpu")
    with forge.open_context("wgpu") as ctx:
        result = oracle.tune(ctx, AFFINE, dry_run=True)
    vec = [c for c in result.candidates if c.schedule.vector_width > 1]
    # raw_affine's source never mentions the vector width: each such variant compiles
    # the vec=1 source (with another dispatch, or, once one workgroup covers the size,
    # the same dispatch)
    assert vec and all(c.status == "pruned" for c in vec)
    assert all("unused parameter" in c.reason or "duplicate of" in c.reason for c in vec)
    assert any("unused parameter" in c.reason for c in vec)
    assert len(result.by_status("candidate")) >= 8  # workgroup size x items per invocation


def test_wrong_and_lost_candidates_are_recorded_and_the_search_goes_on():
    lose, wrong = Schedule(128), Schedule(256)
    opened = []

    def reopen():
        opened.append(_ScheduleSensitive(lose_on=lose, wrong_on=wrong))
        return opened[-1]

    first = _ScheduleSensitive(lose_on=lose, wrong_on=wrong)
    space = [Schedule(64), lose, wrong, Schedule(32), Schedule(512), Schedule(1024)]
    result = oracle.tune(first, AFFINE, space=space, size=3000, samples=3, reopen=reopen)
    by = {c.schedule: c for c in result.candidates}
    assert by[lose].status == "lost" and "injected fault" in by[lose].reason
    assert by[wrong].status == "wrong" and "differ from the reference" in by[wrong].reason
    assert first.lost and result.contexts_opened == 1 and opened[0].closed
    measured = [c for c in result.candidates if c.status in ("eliminated", "finalist", "winner")]
    assert {c.schedule for c in measured} == {Schedule(64), Schedule(32), Schedule(512), Schedule(1024)}
    assert len([c for c in measured if c.status == "eliminated"]) == 2  # halving 4 -> 2
    finalists = [c for c in measured if c.status != "eliminated"]
    assert all(c.round >= 1 and c.timing.count == 6 for c in finalists)
    assert result.best in finalists
    assert (result.winner is None) == ("no winner" in result.conclusion)


def test_a_lead_within_noise_declares_no_winner():
    def candidate(samples):
        return oracle.Candidate(Schedule(64), timing=oracle.Timing(tuple(samples), "host-wall-clock"))

    clear = oracle.declare_winner(candidate([100, 101, 102, 103]), candidate([200, 201, 202, 203]))
    assert clear[0] and "winner" in clear[1]
    noisy = oracle.declare_winner(candidate([100, 150, 200, 250]), candidate([110, 160, 210, 260]))
    assert not noisy[0] and "within noise" in noisy[1]
    alone = oracle.declare_winner(candidate([100, 101]), None)
    assert not alone[0] and "nothing to beat" in alone[1]


def test_the_generated_space_keeps_the_kernels_own_schedules_first():
    space = oracle.schedule_space(AFFINE)
    assert space[:2] == list(AFFINE.schedules) and len(space) == len(set(space))
    tiled = dataclasses.replace(AFFINE, id="tiled", schedules=(Schedule((16, 16)),))
    assert oracle.schedule_space(tiled) == [Schedule((16, 16))]


def test_too_few_samples_to_measure_noise_are_refused():
    with pytest.raises(InvalidArgument, match="samples"):
        oracle.tune(ReferenceContext(), AFFINE, samples=1)


def test_after_a_device_loss_the_default_reopen_asks_the_registry():
    lose = Schedule(128)
    ctx = _ScheduleSensitive(lose_on=lose)  # backend_name "reference": reopened from the registry
    result = oracle.tune(ctx, AFFINE, space=[Schedule(64), lose, Schedule(32)], size=2000,
                         samples=2)
    by = {c.schedule: c for c in result.candidates}
    assert by[lose].status == "lost" and result.contexts_opened == 1
    assert by[Schedule(32)].timing is not None  # measured on the fresh context

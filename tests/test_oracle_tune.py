"""``oracle.tune``: pruning (restrictions, adapter limits, duplicates; a dry run shows
why), the strategies and the budget, correctness as a hard gate (a wrong candidate is
recorded and never wins), recovery from a lost device, the tuning cache (a resumed run
measures only what was missing, a re-run measures nothing), finalists and a winner only
when its lead exceeds the measured noise, energy readings. Timing-dependent outcomes are
driven by a host context that reports a synthetic landscape of times, so no assertion
depends on which real schedule is faster."""

from __future__ import annotations

import dataclasses
import json
import math
import statistics
import time

import numpy as np
import pytest

import forge
import oracle
from backends.reference import ReferenceContext
from forge import BufferSpec, DeviceLost, InvalidArgument, KernelSpec, Schedule
from oracle.pytest_plugin import require_available

AFFINE = forge.get_kernel("raw_affine")


@pytest.fixture(autouse=True)
def _cache_root(tmp_path, monkeypatch):
    """Each test's tuning cache under its own root."""
    monkeypatch.setenv("FORGE_CACHE_DIR", str(tmp_path / "cache"))


def _scale(x, y):
    y[:] = x * np.float32(3)


# A kernel with parameters of its own: the WGSL text takes them (the reference backend,
# which these tests tune on, runs the numpy meaning whatever the values).
PARAMS = KernelSpec(
    id="params",
    entry_point="main",
    reference=_scale,
    test_sizes=(512,),
    sources={
        "wgsl": "const U = {{UNROLL}}u;\nconst S = {{SPLIT}}u;\n"
        "@compute @workgroup_size(64) fn main() {}"
    },
    buffers=(BufferSpec(0, "f32", "read", name="x"), BufferSpec(1, "f32", "read_write", name="y")),
    tunables={"wg": (32, 64, 128, 256), "UNROLL": (1, 2, 4, 8), "SPLIT": (1, 2, 3)},
    restrictions=("wg_x * UNROLL <= 1024",),
    flops="n",
    bytes_moved="8 * n",
)


def _landscape(schedule: Schedule, values: dict) -> float:
    """Synthetic median nanoseconds: best at wg=128, UNROLL=4, SPLIT=2, and no two
    candidates alike."""

    def cost(ratio: float, below: float, above: float) -> float:
        return -math.log2(ratio) * below if ratio < 1 else math.log2(ratio) * above

    wg = schedule.workgroup_size[0]
    return 1000.0 * (
        1
        + cost(wg / 128, 0.3, 0.4)
        + cost(values.get("UNROLL", 4) / 4, 0.2, 0.25)
        + {1: 0.1, 2: 0.0, 3: 0.17}[values.get("SPLIT", 2)]
    )


class _Synthetic(ReferenceContext):
    """A host context that compiles a different 'source' per candidate (so none is
    pruned as a duplicate), reports times from ``_landscape`` (a little spread so the
    noise is measurable), and can lose its device, compute a wrong result, or read an
    energy counter."""

    backend_name = "reference"

    def __init__(self, lose_on=None, wrong_on=None, energy=False):
        super().__init__()
        self.lose_on, self.wrong_on, self.energy = lose_on, wrong_on, energy
        self.launches: list[tuple[str, int]] = []
        self._millijoules = 0.0

    def kernel_source(self, kernel, schedule, size=None):
        return f"{kernel.semantic_hash}:{schedule}"

    def _launch(self, compiled, launch, warmups, samples):
        key = oracle.Candidate(launch.schedule, compiled.tunable_values()).key
        self.launches.append((key, samples))
        if key == self.lose_on:
            raise DeviceLost("injected fault")
        super()._launch(compiled, launch, 0, 1)
        if key == self.wrong_on:
            self._arrays(launch)[1][3] += 1.0  # corrupt one output element
        base = _landscape(launch.schedule, compiled.tunable_values())
        self._millijoules += samples * base * 1e-6  # joules follow the time
        return [int(base * (1 + 0.002 * (i % 3))) for i in range(samples)]

    def energy_support(self):
        return "" if self.energy else "no counter here"

    def energy_counter(self):
        return self._millijoules


def test_dry_run_prunes_by_constraints_and_duplicates_and_runs_nothing():
    ctx = _Synthetic()
    space = [Schedule(64), Schedule(64), Schedule(2048), Schedule(128, items_per_invocation=2)]
    result = oracle.tune(ctx, AFFINE, space=space, dry_run=True)
    statuses = [(c.status, c.reason) for c in result.candidates]
    assert statuses[0] == ("candidate", "")
    assert statuses[1] == ("pruned", "duplicate of wg=64,ipt=1,vec=1")
    assert statuses[2][0] == "pruned" and "max_workgroup_size" in statuses[2][1]
    assert statuses[3] == ("candidate", "")
    assert all(c.timing is None for c in result.candidates) and result.dry_run
    assert "2 candidates would be measured" in result.conclusion
    assert not ctx.launches


def test_restrictions_prune_before_anything_runs_and_say_which():
    result = oracle.tune(_Synthetic(), PARAMS, dry_run=True)
    assert len(result.candidates) == 4 * 4 * 3
    refused = [c for c in result.candidates if c.status == "pruned"]
    assert {(c.schedule.workgroup_size[0], c.values["UNROLL"]) for c in refused} == {(256, 8)}
    assert all(c.reason == "restriction 'wg_x * UNROLL <= 1024' is false" for c in refused)


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
    lose, wrong = "wg=128,ipt=1,vec=1", "wg=256,ipt=1,vec=1"
    opened = []

    def reopen():
        opened.append(_Synthetic(lose_on=lose, wrong_on=wrong))
        return opened[-1]

    first = _Synthetic(lose_on=lose, wrong_on=wrong)
    space = [Schedule(w) for w in (64, 128, 256, 32, 512, 1024)]
    result = oracle.tune(first, AFFINE, space=space, size=3000, samples=3, reopen=reopen)
    by = {c.key: c for c in result.candidates}
    assert by[lose].status == "lost" and "injected fault" in by[lose].reason
    assert by[wrong].status == "wrong" and "differ from the reference" in by[wrong].reason
    assert first.lost and result.contexts_opened == 1 and opened[0].closed
    ran = [c for c in result.candidates if c.status in ("eliminated", "finalist", "winner")]
    assert {c.key for c in ran} == {f"wg={w},ipt=1,vec=1" for w in (64, 32, 512, 1024)}
    finalists = [c for c in ran if c.status != "eliminated"]
    assert len(finalists) == 2 and all(c.timing.count == 3 * 2 * 4 for c in finalists)
    assert result.winner is result.best and result.best.key == "wg=64,ipt=1,vec=1"


def test_a_wrong_candidate_never_wins_however_fast_it_is():
    best = "wg=128,ipt=1,vec=1 UNROLL=4,SPLIT=2"  # the landscape's fastest
    result = oracle.tune(_Synthetic(wrong_on=best), PARAMS, strategy="exhaustive", samples=3)
    by = {c.key: c for c in result.candidates}
    assert by[best].status == "wrong" and by[best].timing is None
    assert result.winner is not None and result.winner.key != best
    assert best not in [c.key for c in result.ranked()]


def test_a_lead_within_noise_declares_no_winner_and_gives_advice():
    def candidate(samples):
        return oracle.Candidate(
            Schedule(64), timing=oracle.Timing(tuple(samples), "host-wall-clock")
        )

    clear = oracle.declare_winner(candidate([100, 101, 102, 103]), candidate([200, 201, 202, 203]))
    assert clear[0] and "winner" in clear[1]
    noisy = oracle.declare_winner(candidate([100, 150, 200, 250]), candidate([110, 160, 210, 260]))
    assert not noisy[0] and "within noise" in noisy[1]
    alone = oracle.declare_winner(candidate([100, 101]), None)
    assert not alone[0] and "nothing to beat" in alone[1]


def test_no_winner_standing_out_comes_with_advice():
    class Flat(_Synthetic):
        def _launch(self, compiled, launch, warmups, samples):
            super()._launch(compiled, launch, warmups, samples)
            return [1000 + 300 * (i % 4) for i in range(samples)]  # equal and noisy

    result = oracle.tune(
        Flat(),
        PARAMS,
        space=[Schedule(64), Schedule(128)],
        samples=4,
        strategy="exhaustive",
        budget=5,
    )
    assert result.winner is None and "within noise" in result.conclusion
    assert "--samples" in result.advice and "--size" in result.advice


def test_the_generated_space_keeps_the_kernels_own_schedules_first():
    space = oracle.schedule_space(AFFINE)
    assert space[:2] == list(AFFINE.schedules) and len(space) == len(set(space))
    tiled = dataclasses.replace(AFFINE, id="tiled", schedules=(Schedule((16, 16)),))
    assert oracle.schedule_space(tiled) == [Schedule((16, 16))]


def test_too_few_samples_an_unknown_strategy_and_a_bad_budget_are_refused():
    with pytest.raises(InvalidArgument, match="samples"):
        oracle.tune(ReferenceContext(), AFFINE, samples=1)
    with pytest.raises(InvalidArgument, match="unknown strategy 'annealing'"):
        oracle.tune(ReferenceContext(), AFFINE, strategy="annealing")
    with pytest.raises(InvalidArgument, match="a budget is a number of candidates"):
        oracle.tune(ReferenceContext(), AFFINE, budget="soon")


def test_budgets_are_candidates_or_durations():
    assert oracle.Budget.parse(20) == oracle.Budget(count=20)
    assert oracle.Budget.parse("20") == oracle.Budget(count=20)
    assert oracle.Budget.parse("90s") == oracle.Budget(seconds=90)
    assert oracle.Budget.parse("2m").seconds == 120 and oracle.Budget.parse("1h").seconds == 3600
    for bad in ("0", "2.5", "-3s", "fast"):
        with pytest.raises(InvalidArgument):
            oracle.Budget.parse(bad)


def test_an_empty_space_is_an_error_before_anything_runs():
    everything_refused = dataclasses.replace(PARAMS, restrictions=("UNROLL > 100",))
    ctx = _Synthetic()
    with pytest.raises(InvalidArgument, match="every one of its 48 candidates is pruned"):
        oracle.tune(ctx, everything_refused)
    assert not ctx.launches


def test_after_a_device_loss_the_default_reopen_asks_the_registry():
    lose = "wg=128,ipt=1,vec=1"
    ctx = _Synthetic(lose_on=lose)  # backend_name "reference": reopened from the registry
    result = oracle.tune(
        ctx, AFFINE, space=[Schedule(64), Schedule(128), Schedule(32)], size=2000, samples=2
    )
    by = {c.key: c for c in result.candidates}
    assert by[lose].status == "lost" and result.contexts_opened == 1
    assert by["wg=32,ipt=1,vec=1"].timing is not None  # measured on the fresh context


@pytest.mark.parametrize("strategy", ["exhaustive", "random", "halving"])
def test_a_count_budget_measures_that_many_candidates_wrong_ones_included(strategy):
    wrong = "wg=32,ipt=1,vec=1 UNROLL=1,SPLIT=1"  # the space's first candidate
    ctx = _Synthetic(wrong_on=wrong)
    result = oracle.tune(ctx, PARAMS, strategy=strategy, budget=7, samples=2)
    first = result.history()
    assert len(first) == 7 and [c.order for c in first] == list(range(1, 8))
    assert len({key for key, samples in ctx.launches if samples == 2}) == 7
    if strategy == "exhaustive":
        assert first[0].key == wrong and first[0].status == "wrong"
    not_run = [c for c in result.candidates if c.status == "candidate"]
    assert len(not_run) == 48 - 3 - 7 and all("budget" in c.reason for c in not_run)


def test_random_order_follows_the_search_seed():
    def order(seed):
        return [
            c.key
            for c in oracle.tune(
                _Synthetic(),
                PARAMS,
                strategy="random",
                budget=6,
                samples=2,
                search_seed=seed,
                cache=False,
            ).history()
        ]

    assert order(1) == order(1) and order(1) != order(2)


def test_halving_keeps_the_faster_half_with_twice_the_samples():
    result = oracle.tune(_Synthetic(), PARAMS, strategy="halving", samples=2)
    rounds = {c.round for c in result.candidates if c.status == "eliminated"}
    assert rounds == {0, 1, 2, 3}
    assert result.winner.key == "wg=128,ipt=1,vec=1 UNROLL=4,SPLIT=2"


def test_a_resumed_tune_measures_only_what_was_missing():
    interrupted = _Synthetic()
    first = oracle.tune(interrupted, PARAMS, strategy="exhaustive", budget=10, samples=2)
    done = {c.key for c in first.history()}
    resumed = _Synthetic()
    second = oracle.tune(resumed, PARAMS, strategy="exhaustive", samples=2)
    searched_again = {key for key, samples in resumed.launches if samples == 2}
    assert not searched_again & done
    assert len(searched_again) == 45 - 10 and second.reused >= 10
    assert all(c.cached for c in second.history()[:10])
    assert second.winner.key == "wg=128,ipt=1,vec=1 UNROLL=4,SPLIT=2"


@pytest.mark.parametrize("strategy", ["exhaustive", "halving", "random"])
def test_a_rerun_with_nothing_changed_measures_nothing(strategy):
    first = oracle.tune(_Synthetic(), PARAMS, strategy=strategy, budget=12, samples=2)
    again = _Synthetic()
    second = oracle.tune(again, PARAMS, strategy=strategy, budget=12, samples=2)
    assert again.launches == [] and second.measured == 0
    assert [c.key for c in second.history()] == [c.key for c in first.history()]
    assert second.best.key == first.best.key and second.conclusion == first.conclusion


def test_the_cache_skips_a_torn_line_and_a_candidate_whose_kernel_changed(tmp_path):
    path = tmp_path / "tuning.jsonl"
    oracle.tune(_Synthetic(), PARAMS, strategy="exhaustive", budget=4, samples=2, cache=path)
    with open(path, "a") as handle:
        handle.write('{"candidate": "wg=32,ipt=1,vec=1 UNROLL=2,SP')  # killed mid-write
    lines = path.read_text().splitlines()
    record = json.loads(lines[0])
    assert record["status"] == "measured" and len(record["samples_ns"]) == 2
    changed = dataclasses.replace(PARAMS, sources={"wgsl": PARAMS.sources["wgsl"] + "\n"})
    again = _Synthetic()
    result = oracle.tune(again, changed, strategy="exhaustive", budget=4, samples=2, cache=path)
    assert result.reused == 0 and len({k for k, s in again.launches if s == 2}) == 4
    cache = oracle.TuningCache(path, json.loads(json.dumps({"x": 1})))
    assert cache.torn == 1


def test_a_time_budget_stops_the_search():
    class Slow(_Synthetic):
        def _launch(self, compiled, launch, warmups, samples):
            time.sleep(0.05)
            return super()._launch(compiled, launch, warmups, samples)

    result = oracle.tune(Slow(), PARAMS, strategy="exhaustive", budget="1s", samples=2)
    assert 3 <= len(result.history()) <= 12  # about 0.15 s each: three runs of 0.05 s
    assert result.budget.seconds == 1


def test_tpe_reaches_near_the_best_in_a_quarter_of_the_evaluations():
    pytest.importorskip("optuna", reason="the tune extra (optuna) is not installed")
    space = oracle.tune(_Synthetic(), PARAMS, dry_run=True).by_status("candidate")
    best = min(_landscape(c.schedule, c.values) for c in space)
    reached = []
    for seed in range(5):
        result = oracle.tune(
            _Synthetic(),
            PARAMS,
            strategy="tpe",
            budget=len(space) // 4,
            samples=2,
            search_seed=seed,
            cache=False,
        )
        assert len(result.history()) == len(space) // 4
        reached.append(min(_landscape(c.schedule, c.values) for c in result.history()) / best)
    assert statistics.median(reached) <= 1.05


def test_tpe_without_optuna_says_how_to_install_it(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_optuna(name, *args, **kwargs):
        if name == "optuna":
            raise ImportError("no optuna here")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_optuna)
    with pytest.raises(forge.MissingExtra, match=r"pip install 'kernel-forge\[tune\]'"):
        oracle.tune(_Synthetic(), PARAMS, strategy="tpe")


def test_energy_is_read_per_run_and_can_be_the_objective():
    result = oracle.tune(
        _Synthetic(energy=True),
        PARAMS,
        strategy="exhaustive",
        budget=6,
        samples=2,
        energy_s=0.01,
        objective="energy",
    )
    ranked = result.ranked()
    assert all(len(c.energy_j) == 3 for c in ranked)
    # the landscape's joules follow its times: about median ns * 1e-9 J per run
    assert ranked[0].energy == pytest.approx(
        _landscape(ranked[0].schedule, ranked[0].values) * 1e-9, rel=0.05
    )
    rates = ranked[0].rates(result.work)
    assert rates["gflop_per_s_per_watt"] == pytest.approx(512 / ranked[0].energy / 1e9)
    with pytest.raises(forge.UnsupportedFeature, match="no counter here"):
        oracle.tune(_Synthetic(energy=False), PARAMS, energy_s=0.01, objective="energy")


def test_rates_come_from_the_declared_work():
    result = oracle.tune(_Synthetic(), PARAMS, strategy="exhaustive", budget=3, samples=2)
    c = result.ranked()[0]
    rates = c.rates(result.work)
    assert rates["gb_per_s"] == pytest.approx(8 * 512 / (c.median / 1e9) / 1e9)
    assert rates["gflop_per_s"] == pytest.approx(512 / (c.median / 1e9) / 1e9)
    data = result.as_dict()
    assert data["format"] == oracle.TUNE_FORMAT and data["best"]["gflop_per_s"] is not None


def test_a_saved_winner_is_found_for_its_adapter_and_refused_for_a_changed_kernel():
    result = oracle.tune(_Synthetic(), PARAMS, strategy="exhaustive", samples=2)
    info = oracle.BackendInfo.of(_Synthetic())
    oracle.save_tuned(info, PARAMS, result.winner.schedule, result.winner.values, {})
    kernel, schedule, how = oracle.find_tuned(info, PARAMS)
    assert (schedule, kernel.tunable_values()) == (result.winner.schedule, result.winner.values)
    assert how.startswith("tuned 20")
    changed = dataclasses.replace(PARAMS, version=2)
    found, _, why = oracle.find_tuned(info, changed)
    assert found is None and "another version of the kernel" in why


def test_the_planned_total_is_known_before_measuring():
    planned = []
    oracle.tune(
        _Synthetic(), PARAMS, strategy="random", budget=5, samples=2, on_planned=planned.append
    )
    assert planned == [5]
    oracle.tune(
        _Synthetic(),
        PARAMS,
        strategy="exhaustive",
        samples=2,
        cache=False,
        on_planned=planned.append,
    )
    assert planned == [5, 45]

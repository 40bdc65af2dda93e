"""Fan-out over local workers (oracle.Fleet): runners laid out per device and backend,
plans running at once on free workers, a worker killed mid-run replaced and its work
retried once elsewhere with every other result intact, and the same verdicts with and
without fan-out. The workers are the ``demo_faulty`` test backend's (tests/plugins), so
this runs with no GPU."""

from __future__ import annotations

import json
import os
import re
import signal
import threading
import time

import pytest

import kforge
import oracle
from forge import Access, BufferSpec, InvalidArgument, KernelSpec
from oracle import Fleet, Verdict, fan_out
from oracle._fleet import plan_slots
from oracle.pytest_plugin import require_available
from tests.test_isolation import _faulty  # noqa: F401  (autouse: the demo_faulty backend)

BACKEND = "demo_faulty"


def _double(x, y):
    y[:] = x * 2


def _kernel(name: str, *tags: str) -> KernelSpec:
    return KernelSpec(
        id=name,
        entry_point="double",
        reference=_double,
        tags=tags,
        buffers=(
            BufferSpec(0, "f32", Access.READ, name="x"),
            BufferSpec(1, "f32", Access.READ_WRITE, name="y"),
        ),
        test_sizes=(100,),
    )


SLOW = [_kernel(f"slow{i}", "fault:slow") for i in range(4)]


def test_by_default_each_backend_gets_one_runner_per_device():
    assert plan_slots(["cuda", "wgpu", "reference"], None, {"cuda": 2}) == {
        "cuda": [0, 1],
        "wgpu": [0],
        "reference": [0],
    }


def test_workers_caps_the_runners_and_spreads_the_rest_over_devices():
    hosts = ["reference"]
    assert plan_slots(["cuda", "reference"], 2, {"cuda": 2}, hosts) == {
        "cuda": [0],
        "reference": [0],
    }
    assert plan_slots(["cuda", "reference"], 5, {"cuda": 2}, hosts) == {
        "cuda": [0, 1, 0, 1],
        "reference": [0],
    }
    assert plan_slots(["wgpu", "reference"], 4, {}, hosts) == {"wgpu": [0, 0, 0], "reference": [0]}
    assert plan_slots(["reference"], 2, {}, hosts) == {"reference": [0, 0]}
    with pytest.raises(InvalidArgument, match="at least one each"):
        plan_slots(["cuda", "wgpu", "reference"], 2, {})


def _evaluate_all(runner, kernels, threads):
    return dict(
        fan_out(kernels, lambda k: oracle.evaluate(runner, k, size=100, samples=0), threads)
    )


def test_plans_run_at_once_on_the_free_workers():
    with Fleet.local([BACKEND], 2, timeout_s=30) as fleet:
        fleet.start([BACKEND])
        runner = fleet.runner(BACKEND)
        assert runner.concurrency == 2 and runner.labels == ["demo_faulty#0", "demo_faulty#1"]
        _evaluate_all(runner, SLOW[:2], 2)  # both workers warm
        start = time.monotonic()
        _evaluate_all(runner, SLOW[:1], 1)
        one = time.monotonic() - start
        start = time.monotonic()
        results = _evaluate_all(runner, SLOW, 2)
        four = time.monotonic() - start
    assert [results[i].verdict for i in range(4)] == [Verdict.PASS] * 4
    # each evaluation sleeps in 0.25 s launches: four take 4x one after another, 2x on two
    assert four < 3 * one, (four, one)


def _worker_pids(runner) -> list[int]:
    return [slot.runner.session.runner(BACKEND)._worker.process.pid for slot in runner.slots]


def test_a_worker_killed_mid_run_is_replaced_and_its_work_retried_elsewhere():
    with Fleet.local([BACKEND], 2, timeout_s=30) as fleet:
        runner = fleet.runner(BACKEND)
        _evaluate_all(runner, SLOW[:2], 2)
        victim = _worker_pids(runner)[0]

        def kill_soon():
            time.sleep(0.4)
            os.kill(victim, signal.SIGKILL)

        killer = threading.Thread(target=kill_soon)
        killer.start()
        results = _evaluate_all(runner, SLOW, 2)
        killer.join()
        restarts = [slot.runner.session.runner(BACKEND).restarts for slot in runner.slots]
    assert [results[i].verdict for i in range(4)] == [Verdict.PASS] * 4
    retried = [ev for ev in results.values() if any("retried on" in n for n in ev.notes)]
    assert len(retried) == 1
    assert "after the demo_faulty#0 worker died (" in retried[0].notes[0]
    assert "killed by SIGKILL" in retried[0].notes[0]
    assert restarts == [1, 0]


def test_a_kernel_that_kills_every_worker_is_crashed_after_one_retry():
    crash = _kernel("crash", "fault:crash")
    with Fleet.local([BACKEND], 2, timeout_s=30) as fleet:
        runner = fleet.runner(BACKEND)
        results = _evaluate_all(runner, [SLOW[0], crash, SLOW[1]], 2)
    verdicts = [results[i].verdict for i in range(3)]
    assert verdicts == [Verdict.PASS, Verdict.CRASHED, Verdict.PASS]
    (note,) = [n for n in results[1].notes if "retried on" in n]
    first, second = re.search(r"retried on (\S+) after the (\S+) worker died", note).groups()
    assert {first, second} == {"demo_faulty#0", "demo_faulty#1"}  # both workers died of it


def _check_json(capsys, *argv) -> dict:
    code = kforge.main(["check", *argv, "--json", "--samples", "0"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0, data
    return data


def _verdicts(data) -> dict:
    return {
        (r["kernel"], r["size"], r["seed"], name): (e["verdict"], e["max_ulp"], e["input_hash"])
        for r in data["results"]
        for name, e in r["evaluations"].items()
    }


def test_check_gives_the_same_verdicts_with_and_without_fan_out(capsys, request):
    require_available(request.config, "wgpu")
    kernels = ["raw_affine", "softmax", "gemm", "transpose"]
    alone = _check_json(
        capsys, *kernels, "--backend", "reference", "--backend", "wgpu", "--no-isolate"
    )
    spread = _check_json(
        capsys, *kernels, "--backend", "reference", "--backend", "wgpu", "--workers", "3"
    )
    assert _verdicts(spread) == _verdicts(alone)
    assert [r["kernel"] for r in spread["results"]] == [r["kernel"] for r in alone["results"]]

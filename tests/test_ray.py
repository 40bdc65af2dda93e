"""Fan-out on Ray (``--ray``), on a local cluster with CPU workers as CI has them: check
and tune end to end with the reference and wgpu (lavapipe) as actors, the same verdicts
as a single-process run, an actor killed mid-run replaced and its work retried, certify
printing its kernel x adapter matrix, and what is said without Ray or without token
authentication. One cluster serves the module (starting one takes seconds)."""

from __future__ import annotations

import json
import os
import signal
import threading
import time

import pytest

import forge
import kforge
import oracle
from forge import Access, BufferSpec, KernelSpec
from oracle import Fleet, Verdict, fan_out
from oracle.pytest_plugin import require_available

# one xdist group (scripts/test passes --dist loadgroup): its module fixture starts a
# local Ray cluster (4 s), once on one worker rather than on each
pytestmark = pytest.mark.xdist_group("ray")

EXTRA = "forge_demo_plugin:faulty_backend"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A local Ray cluster whose workers see the demo plugin's faulty backend."""
    ray = pytest.importorskip("ray", reason="the ray extra is not installed")
    saved = {k: os.environ.get(k) for k in ("FORGE_EXTRA_BACKENDS", "FORGE_CACHE_DIR")}
    os.environ["FORGE_EXTRA_BACKENDS"] = EXTRA
    os.environ["FORGE_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))
    forge.registry.refresh()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    forge.registry.refresh()


def _json(capsys, *argv) -> tuple[int, dict]:
    code = kforge.main([*argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def _verdicts(data: dict) -> dict:
    return {
        (r["kernel"], r["size"], r["seed"], name): (e["verdict"], e["max_ulp"], e["input_hash"])
        for r in data["results"]
        for name, e in r["evaluations"].items()
    }


def test_check_on_ray_gives_the_single_process_verdicts(cluster, capsys, request):
    require_available(request.config, "wgpu")
    argv = [
        "check",
        "raw_affine",
        "softmax",
        "gemm",
        "--backend",
        "reference",
        "--backend",
        "wgpu",
        "--samples",
        "0",
    ]
    code, alone = _json(capsys, *argv, "--no-isolate")
    assert code == 0
    code, spread = _json(capsys, *argv, "--ray", "--workers", "3")
    assert code == 0
    assert _verdicts(spread) == _verdicts(alone)


def test_tune_on_ray_measures_what_a_single_process_measures(cluster, capsys, request):
    require_available(request.config, "wgpu")
    argv = [
        "tune",
        "examples/tunable_matmul.py",
        "--backend",
        "wgpu",
        "--size",
        "64",
        "--strategy",
        "exhaustive",
        "--budget",
        "6",
        "--samples",
        "2",
        "--no-cache",
    ]
    code, alone = _json(capsys, *argv, "--no-isolate")
    assert code == 0
    code, spread = _json(capsys, *argv, "--ray", "--workers", "2")
    assert code == 0 and len(spread["workers"]) == 2
    assert all(w.startswith("wgpu#") and "@" in w for w in spread["workers"])

    def fates(data):
        return [
            (c["candidate"], c["status"] if c["status"] in ("pruned", "wrong") else "ran")
            for c in data["candidates"]
        ]

    assert fates(spread) == fates(alone)
    assert [c["candidate"] for c in spread["candidates"] if c["order"]] == [
        c["candidate"] for c in alone["candidates"] if c["order"]
    ]


def _slow(i: int) -> KernelSpec:
    return KernelSpec(
        id=f"slow{i}",
        entry_point="double",
        tags=("fault:slow",),
        reference=_double,
        test_sizes=(100,),
        buffers=(
            BufferSpec(0, "f32", Access.READ, name="x"),
            BufferSpec(1, "f32", Access.READ_WRITE, name="y"),
        ),
    )


def _double(x, y):
    y[:] = x * 2


def test_an_actor_killed_mid_run_is_replaced_and_its_work_retried(cluster):
    kernels = [_slow(i) for i in range(4)]
    with Fleet.on_ray(["demo_faulty"], workers=2, timeout_s=30) as fleet:
        fleet.start(["demo_faulty"])
        runner = fleet.runner("demo_faulty")
        victim = runner.slots[0].runner.pid()

        def kill_soon():
            time.sleep(0.4)
            os.kill(victim, signal.SIGKILL)

        killer = threading.Thread(target=kill_soon)
        killer.start()
        results = dict(fan_out(kernels, lambda k: oracle.evaluate(runner, k, samples=0), 2))
        killer.join()
        restarts = [slot.runner.restarts for slot in runner.slots]
    assert [results[i].verdict for i in range(4)] == [Verdict.PASS] * 4
    retried = [n for ev in results.values() for n in ev.notes if "retried on" in n]
    assert len(retried) == 1 and "died running slow" in retried[0]
    assert restarts == [1, 0]


def test_certify_on_ray_prints_a_kernel_by_adapter_matrix(cluster, capsys):
    code = kforge.main(
        ["certify", "raw_affine", "axpy", "--backend", "reference", "--ray", "--samples", "1"]
    )
    out = capsys.readouterr().out
    assert code == 0 and "certified: kernel x adapter" in out
    assert "reference on numpy" in out


def test_joining_a_cluster_with_token_authentication_disabled_is_refused(cluster, monkeypatch):
    from oracle._ray import connect

    class NotStarted:
        """Ray as a driver sees it before ray.init."""

        @staticmethod
        def is_initialized():
            return False

    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    with pytest.raises(forge.InvalidArgument, match="only with Ray's token authentication"):
        connect(NotStarted, "10.0.0.1:6379")


def test_without_ray_the_flag_says_how_to_install_it(capsys, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_ray(name, *args, **kwargs):
        if name == "ray" or name.startswith("ray."):
            raise ImportError("no ray here")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ray)
    code = kforge.main(["check", "raw_affine", "--backend", "reference", "--ray"])
    assert code == 2 and "pip install 'kernel-forge[ray]'" in capsys.readouterr().err

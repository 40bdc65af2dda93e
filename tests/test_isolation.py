"""A faulting kernel costs only its own verdict (issue 11): in worker processes a
kernel that kills its process, loses its device or hangs gets ``crashed``,
``device-lost`` or ``timeout``, and every evaluation before and after it is judged
normally; in this process (``isolate=False``) a lost context turns the backend's
remaining evaluations into ``not-run``, never into a cascade of errors. The faults come
from the ``demo_faulty`` test backend (tests/plugins), so this runs with no GPU; the
CUDA illegal-address version runs on the GPU machine (tests/test_cuda_faults.py)."""

from __future__ import annotations

import time

import pytest

import forge
import oracle
from forge import Access, BufferSpec, KernelSpec
from oracle import Session, Verdict
from oracle.pytest_plugin import require_available

BACKEND = "demo_faulty"


def _double(x, y):
    y[:] = x * 2


def _kernel(tag: str = "") -> KernelSpec:
    return KernelSpec(
        id=f"double_{tag.split(':')[-1] or 'ok'}",
        entry_point="double",
        buffers=(
            BufferSpec(0, "f32", Access.READ, name="x"),
            BufferSpec(1, "f32", Access.READ_WRITE, name="y"),
        ),
        reference=_double,
        tags=(tag,) if tag else (),
        test_sizes=(100,),
    )


GOOD, CRASH, LOSE, HANG = (
    _kernel(),
    _kernel("fault:crash"),
    _kernel("fault:lose"),
    _kernel("fault:hang"),
)


@pytest.fixture(autouse=True)
def _faulty(request, monkeypatch):
    """The demo plugin's fault-injecting backend, registered for these tests only."""
    monkeypatch.setenv("FORGE_EXTRA_BACKENDS", "forge_demo_plugin:faulty_backend")
    forge.registry.refresh()
    require_available(request.config, BACKEND)
    yield
    monkeypatch.undo()
    forge.registry.refresh()


def _verdicts(session, kernels):
    return [
        oracle.evaluate(
            session.runner(BACKEND), k, size=100, samples=1, timeout_s=session.timeout_s
        ).verdict
        for k in kernels
    ]


def test_a_crashing_kernel_gets_crashed_and_the_others_pass():
    with Session(timeout_s=30) as session:
        assert _verdicts(session, [GOOD, CRASH, GOOD, CRASH, GOOD]) == [
            Verdict.PASS,
            Verdict.CRASHED,
            Verdict.PASS,
            Verdict.CRASHED,
            Verdict.PASS,
        ]
        assert session.runner(BACKEND).restarts == 2


def test_the_crash_report_names_the_signal():
    with Session(timeout_s=30) as session:
        ev = oracle.evaluate(session.runner(BACKEND), CRASH, size=100, samples=0)
    assert ev.verdict == Verdict.CRASHED and "SIGABRT" in ev.error, ev.report()


def test_a_lost_device_costs_one_verdict_and_a_fresh_worker_goes_on():
    with Session(timeout_s=30) as session:
        assert _verdicts(session, [LOSE, GOOD]) == [Verdict.DEVICE_LOST, Verdict.PASS]


def test_a_hung_kernel_times_out_promptly_and_the_next_passes():
    with Session(timeout_s=1.0) as session:
        start = time.monotonic()
        verdicts = _verdicts(session, [HANG, GOOD])
        took = time.monotonic() - start
    assert verdicts == [Verdict.TIMEOUT, Verdict.PASS]
    assert took < 60, f"the hang held the run for {took:.0f} s"


def test_in_process_a_lost_context_makes_the_rest_not_run():
    with Session(isolate=False, timeout_s=30) as session:
        verdicts = _verdicts(session, [GOOD, LOSE, GOOD])
    assert verdicts == [Verdict.PASS, Verdict.DEVICE_LOST, Verdict.NOT_RUN]


def test_cross_check_keeps_every_other_backend_and_kernel():
    kernels = [GOOD, CRASH, GOOD]
    with Session(timeout_s=30) as session:
        results = [
            oracle.cross_check(k, [BACKEND, "reference"], size=100, session=session, samples=1)
            for k in kernels
        ]
    assert [r.evaluations[BACKEND].verdict for r in results] == [
        Verdict.PASS,
        Verdict.CRASHED,
        Verdict.PASS,
    ]
    assert all(r.evaluations["reference"].passed for r in results)
    assert results[1].diverging == [BACKEND]


def test_a_kernel_that_cannot_be_pickled_is_an_error_naming_why():
    local = KernelSpec(
        id="local",
        entry_point="local",
        buffers=GOOD.buffers,
        reference=lambda x, y: x * 2,
        test_sizes=(10,),
    )
    with Session(timeout_s=30) as session:
        ev = oracle.evaluate(session.runner(BACKEND), local, size=10, samples=0)
    assert ev.verdict == Verdict.ERROR and "isolate=False" in ev.error, ev.report()


def test_workers_are_gone_after_the_session_closes():
    session = Session(timeout_s=30)
    runner = session.runner(BACKEND)
    assert oracle.evaluate(runner, GOOD, size=10, samples=0).passed
    process = runner._worker.process
    session.close()
    assert process.poll() is not None


# -- workers started before the command line imports the framework -------------------
def _count_spawns(monkeypatch) -> list:
    from oracle import _spawn

    started = []
    spawn = _spawn.spawn

    def counted(prefix, log_path, warm=None):
        started.append(warm)
        return spawn(prefix, log_path, warm)

    monkeypatch.setattr(_spawn, "spawn", counted)
    return started


def test_kforge_check_starts_its_worker_first_and_uses_that_one(request, monkeypatch, capsys):
    """``kforge check --backend wgpu`` starts the wgpu worker before it imports the
    framework (its imports and device start overlap the command line's), then the
    check adopts that worker: one worker started in all, none left over; the host
    backend (reference) gets none."""
    require_available(request.config, "wgpu")
    from kforge import main
    from oracle import _spawn

    started = _count_spawns(monkeypatch)
    argv = ["check", "raw_affine", "--backend", "wgpu", "--backend", "reference"]
    assert main(argv) == 0, capsys.readouterr()
    assert started == ["wgpu"] and not _spawn._EARLY


def test_a_worker_started_early_and_not_used_is_stopped(monkeypatch, capsys):
    """A command that fails before it runs anything (an unknown kernel) leaves no early
    worker running."""
    from kforge import main
    from oracle import _spawn

    started = _count_spawns(monkeypatch)
    processes = []
    start_early = _spawn.start_early

    def recorded(names):
        start_early(names)
        processes.extend(s.process for s in _spawn._EARLY.values())

    monkeypatch.setattr(_spawn, "start_early", recorded)
    assert main(["check", "no_such_kernel", "--backend", "demo_faulty"]) == 2
    assert started == ["demo_faulty"] and not _spawn._EARLY
    assert processes and all(p.poll() is not None for p in processes)
    assert "no_such_kernel" in capsys.readouterr().err

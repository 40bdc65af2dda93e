"""Compile-ahead in the tuner (``tune(compile_ahead=...)``, ``oracle._ahead``): while a
candidate is measured, the next candidates' NVRTC compiles run on threads of their own,
so that each measurement only loads a cached image.

Proven with real NVRTC compiles (no GPU needed) and the CUDA backend on the simulated
driver (tests/test_cuda_fake_driver.py), in this process and in a local worker process
(whose context the parent compiles for, from its ``BackendInfo``): the ahead compile
writes exactly the disk-cache entry the run reads (counted by ``compile_stats``, and
by the cache's files), a candidate that does not compile ends ``error`` with the same
reason either way, and an interrupted search cancels what has not started."""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import backends.cuda as cuda
import forge
import oracle
from backends.reference import ReferenceContext
from forge import BindingUsage, InvalidArgument, Schedule, UnsupportedFeature
from oracle._ahead import CompileAhead

if sys.platform != "linux" and importlib.util.find_spec("cuda") is None:
    pytest.skip(f"the CUDA extra is not installed: {cuda.INSTALL_COMMAND}", allow_module_level=True)

from tests import test_cuda_fake_driver as simulated  # noqa: E402
from tests.test_cuda_fake_driver import fake_driver  # noqa: E402, F401

ROOT = Path(__file__).resolve().parents[1]
AFFINE = forge.get_kernel("raw_affine")
SIZE = 3000
# raw_affine's CUDA source takes items per invocation as text, so its CUDA space is one
# candidate per value; this twin refuses to compile at 4 items per invocation.
BROKEN_AT_4 = dataclasses.replace(
    AFFINE,
    id="raw_affine_broken_at_4",
    sources={
        "cuda": "#if ${ipt} == 4\n#error broken on purpose\n#endif\n" + AFFINE.sources["cuda"]
    },
)
LAUNCH_S = 0.02  # each simulated launch takes this long, as a GPU's would take some


def _slow_affine(args, grid, block):
    time.sleep(LAUNCH_S)
    simulated.KERNELS["raw_affine"][0](args, grid, block)


@pytest.fixture(autouse=True)
def _cache_root(tmp_path, monkeypatch):
    """Each test's tuning and NVRTC caches under its own root."""
    monkeypatch.setenv("FORGE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def fake(fake_driver):  # noqa: F811
    fake_driver.kernels["raw_affine"] = (_slow_affine, simulated.KERNELS["raw_affine"][1])
    return fake_driver


def _delta(before: dict) -> dict:
    after = cuda.compile_stats.snapshot()
    return {k: after[k] - before[k] for k in after}


def _affine_views(ctx, n: int):
    x = np.arange(n, dtype=np.float32)
    return [
        ctx.allocate_and_write(x, 0),
        ctx.allocate_transient(x.nbytes, 1, usage=BindingUsage.STORAGE_READ_WRITE),
        ctx.allocate_and_write(AFFINE.pack_uniform(n, a=2.0, b=1.0), 2, usage=BindingUsage.UNIFORM),
    ]


def _tune(target, kernel=AFFINE, **options):
    return oracle.tune(
        target, kernel, size=SIZE, strategy="exhaustive", cache=False, samples=3, **options
    )


# -- the hooks: the very compile the run makes --------------------------------------------
def test_the_target_follows_the_architecture_as_the_context_picks_it():
    from backends.cuda._nvrtc import supported_archs, target_for

    assert target_for("sm_90") == ("sm_90a", "cubin")  # Hopper's own instructions (wgmma)
    assert target_for("sm_80") == ("sm_80", "cubin")
    newest = max(supported_archs())
    assert target_for(f"sm_{newest + 1000}") == (f"compute_{newest}", "ptx")
    with pytest.raises(UnsupportedFeature, match=r"sm_10 \(Old GPU\) or any architecture below"):
        target_for("sm_10", "Old GPU")
    with pytest.raises(InvalidArgument, match="looks like 'sm_90'"):
        target_for("compute_90")


def test_a_context_compiling_ahead_leaves_its_run_a_disk_cache_hit(fake):
    with cuda.CudaComputeContext(4 << 20) as ctx:
        before = cuda.compile_stats.snapshot()
        ctx.compile_ahead(AFFINE, Schedule(64, items_per_invocation=2), SIZE)
        assert _delta(before) == {"compiles": 1, "disk_hits": 0, "disk_writes": 1, "disk_errors": 0}
        before = cuda.compile_stats.snapshot()
        views = _affine_views(ctx, SIZE)
        ctx.run_kernel(AFFINE, Schedule(64, items_per_invocation=2), views, SIZE)
        assert _delta(before) == {"compiles": 0, "disk_hits": 1, "disk_writes": 0, "disk_errors": 0}
        assert ctx.read_buffer_f32(views[1])[:3].tolist() == [1.0, 3.0, 5.0]


def test_the_backend_entry_compiles_ahead_for_a_context_it_does_not_hold(fake):
    """What a tuner does for a local worker: compile from the context's identity and
    limits alone (``BackendInfo``), then the context's run only loads the image."""
    with cuda.CudaComputeContext(4 << 20) as ctx:
        info = oracle.BackendInfo.of(ctx)
        assert info.adapter.architecture == "sm_90"
        before = cuda.compile_stats.snapshot()
        forge.registry.backend_entries()["cuda"].compile_ahead(
            AFFINE, Schedule(128, items_per_invocation=4), SIZE, info.adapter, info.constraints
        )
        assert _delta(before)["compiles"] == 1
        before = cuda.compile_stats.snapshot()
        ctx.run_kernel(
            AFFINE, Schedule(128, items_per_invocation=4), _affine_views(ctx, SIZE), SIZE
        )
        assert _delta(before) == {"compiles": 0, "disk_hits": 1, "disk_writes": 0, "disk_errors": 0}


# -- the search -----------------------------------------------------------------------------
def test_a_search_compiles_each_candidate_once_ahead_and_runs_load_cached_images(fake):
    with cuda.CudaComputeContext(4 << 20) as ctx:
        before = cuda.compile_stats.snapshot()
        result = _tune(ctx, compile_ahead=1)
    measured = [c for c in result.candidates if c.order]
    assert len(measured) >= 3 and all(c.timing for c in measured), result.report()
    stats = _delta(before)
    # Every candidate compiled exactly once: had the ahead compile used another key than
    # the run, each one it prepared would have been compiled twice.
    assert stats["compiles"] == len(measured), stats
    # ...and ahead of its run, which loaded it from the disk cache: all of them but
    # perhaps the first (its run may start before the compile-ahead thread does).
    assert stats["disk_hits"] >= len(measured) - 1, stats


def test_without_compile_ahead_every_run_compiles_for_itself(fake):
    with cuda.CudaComputeContext(4 << 20) as ctx:
        before = cuda.compile_stats.snapshot()
        result = _tune(ctx, compile_ahead=False)
    measured = [c for c in result.candidates if c.order]
    assert _delta(before)["compiles"] == len(measured) and _delta(before)["disk_hits"] == 0


def test_a_candidate_that_does_not_compile_ends_error_with_the_same_reason_either_way(fake):
    fates = {}
    for ahead in (True, False):
        with cuda.CudaComputeContext(4 << 20) as ctx:
            result = _tune(ctx, BROKEN_AT_4, compile_ahead=ahead)
        fates[ahead] = {c.key: (c.status, c.reason) for c in result.candidates}
    assert fates[True] == fates[False]
    broken = [fate for key, fate in fates[True].items() if "ipt=4" in key and fate[0] != "pruned"]
    assert broken and all(status == "error" for status, _ in broken), broken
    assert all("broken on purpose" in reason for _, reason in broken), broken
    assert any(status in ("winner", "finalist") for status, _ in fates[True].values())


# -- a local worker process: the parent compiles for it -----------------------------------
def _open_simulated(**options):
    """The CUDA backend on the simulated driver, in a worker process."""
    if not isinstance(cuda.driver, simulated.FakeDriver):
        fake = simulated.install(pytest.MonkeyPatch())
        fake.kernels["raw_affine"] = (_slow_affine, simulated.KERNELS["raw_affine"][1])
    return cuda.CudaComputeContext(**options)


#: ``FORGE_EXTRA_BACKENDS=tests.test_tune_ahead:SIMULATED_CUDA``: the CUDA backend's entry
#: (its ``compile_ahead`` included) opening contexts on the simulated driver.
SIMULATED_CUDA = dataclasses.replace(
    cuda.entry,
    name="cuda-simulated",
    open=_open_simulated,
    availability=lambda: (True, ""),
    devices=None,
    device_option=None,
)


def test_a_search_over_a_local_worker_compiles_ahead_in_the_parent(monkeypatch, _cache_root):
    monkeypatch.setenv("FORGE_EXTRA_BACKENDS", "tests.test_tune_ahead:SIMULATED_CUDA")
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    )
    forge.registry.refresh()
    try:
        before = cuda.compile_stats.snapshot()
        with oracle.Fleet.local(
            ["cuda-simulated"], 1, open_options={"cuda-simulated": {"capacity_bytes": 4 << 20}}
        ) as fleet:
            runner = fleet.runner("cuda-simulated")  # its worker opened (and probed)
            assert runner.isolated
            opened = set((_cache_root / "nvrtc").glob("*.cubin"))
            result = _tune(runner, compile_ahead=1)
    finally:
        monkeypatch.undo()
        forge.registry.refresh()
    measured = [c for c in result.candidates if c.order]
    assert len(measured) >= 3 and all(c.timing for c in measured), result.report()
    stats = _delta(before)
    images = set((_cache_root / "nvrtc").glob("*.cubin")) - opened
    # One image per candidate: the worker wrote none of its own beside the parent's
    # (it would have, had its key differed), and the parent compiled all of them but
    # perhaps the first (claimed by its run before compile-ahead started it).
    assert len(images) == len(measured), (len(images), stats)
    assert stats["compiles"] == stats["disk_writes"] >= len(measured) - 1, stats


# -- interruption and the switch ----------------------------------------------------------
class _Prepared(ReferenceContext):
    """A host context whose candidates all differ (none is pruned as a duplicate) and
    whose compile-ahead records what it was asked for, and takes ``ahead_s`` (but for
    the first candidate, which is quick) or fails."""

    backend_name = "reference"

    def __init__(self, ahead_s: float = 0.0, fail: bool = False) -> None:
        super().__init__()
        self.ahead_s, self.fail = ahead_s, fail
        self.ahead: list[str] = []

    def kernel_source(self, kernel, schedule, size=None):
        return f"{kernel.semantic_hash}:{schedule}"

    def compile_ahead(self, kernel, schedule, size=None):
        self.ahead.append(f"{schedule} {kernel.tunable_values()}")
        if len(self.ahead) > 1:
            time.sleep(self.ahead_s)
        if self.fail:
            raise RuntimeError("a compile-ahead that fails")


SCALE = forge.KernelSpec(
    id="ahead_scale",
    entry_point="main",
    reference=lambda x, y: np.multiply(x, np.float32(3), out=y),
    test_sizes=(256,),
    sources={"wgsl": "const U = {{UNROLL}}u;\n@compute @workgroup_size(64) fn main() {}"},
    buffers=(
        forge.BufferSpec(0, "f32", "read", name="x"),
        forge.BufferSpec(1, "f32", "read_write", name="y"),
    ),
    tunables={"wg": (32, 64, 128, 256), "UNROLL": (1, 2, 4, 8)},
)


def test_an_interrupted_search_cancels_pending_compiles_and_returns_at_once():
    """Ctrl-C after the first candidate: the two compiles running then (of a second
    each) are not waited for, those queued behind them never start."""
    ctx = _Prepared(ahead_s=1.0)
    interrupted = []

    def interrupt(candidate):
        interrupted.append(time.monotonic())
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        oracle.tune(
            ctx, SCALE, strategy="exhaustive", cache=False, compile_ahead=2, on_progress=interrupt
        )
    returned = time.monotonic() - interrupted[0]
    started = list(ctx.ahead)
    assert returned < 0.5, f"the interrupted search took {returned:.2f} s to return"
    assert len(started) == 3, started  # the first, and the two running when interrupted
    for thread in threading.enumerate():
        if thread.name.startswith("kforge-compile-ahead"):
            thread.join(timeout=3.0)
            assert not thread.is_alive(), "a compile-ahead thread outlived its work"
    assert ctx.ahead == started, "compiles queued before the interrupt still started"


def test_failing_compiles_ahead_change_nothing_and_the_switch_turns_them_off():
    ran = {}
    for ahead, ctx in ((2, _Prepared(fail=True)), (False, _Prepared())):
        result = oracle.tune(ctx, SCALE, strategy="exhaustive", cache=False, compile_ahead=ahead)
        fates = {c.key: "ran" if c.timing else (c.status, c.reason) for c in result.candidates}
        ran[bool(ahead)] = (fates, ctx.ahead)
    assert ran[True][0] == ran[False][0]
    assert ran[True][1], "compile-ahead was never asked"
    assert ran[False][1] == [], "compile_ahead=False still compiled ahead"
    for wrong in (-1, 1.5, "yes"):
        with pytest.raises(InvalidArgument, match="compile_ahead"):
            oracle.tune(_Prepared(), SCALE, compile_ahead=wrong)


def test_runners_elsewhere_prepare_nothing():
    """Ray's actors may be on other hosts, without this disk: the default hook."""
    from oracle._ray import RayRunner
    from oracle._runners import Runner

    assert RayRunner.compile_ahead is Runner.compile_ahead


# -- CompileAhead itself --------------------------------------------------------------------
def test_a_claim_cancels_what_has_not_started_and_waits_for_what_runs():
    release = threading.Event()
    done: list[str] = []

    def prepare(item):
        if item == "slow":
            release.wait(5)
        done.append(item)

    ahead = CompileAhead(prepare, threads=1)
    try:
        ahead.offer([("slow", "slow"), ("queued", "queued")])
        assert "slow" in ahead and "queued" in ahead
        ahead.claim("queued")  # behind "slow" on the one thread: cancelled, not run
        threading.Timer(0.2, release.set).start()
        start = time.monotonic()
        ahead.claim("slow")  # running: waited for
        assert time.monotonic() - start >= 0.15 and done == ["slow"]
        assert ahead.claimed_running == 1 and ahead.prepared == 1
    finally:
        ahead.close()
    time.sleep(0.1)
    assert done == ["slow"]


def test_closing_does_not_wait_for_a_running_preparation():
    release = threading.Event()
    ahead = CompileAhead(lambda item: release.wait(5), threads=1)
    ahead.offer([(1, 1), (2, 2)])
    time.sleep(0.05)
    start = time.monotonic()
    ahead.close()
    assert time.monotonic() - start < 0.1
    ahead.offer([(3, 3)])  # closed: ignored
    assert 3 not in ahead
    release.set()

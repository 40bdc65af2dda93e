"""The benchmark's sections run end to end and fill their rows: the CUDA ones on the
simulated driver (which runs each IR kernel through its numpy meaning), the wgpu ones
on whatever adapter wgpu has here (lavapipe in CI). This proves the bench's plumbing
(views, sweeps, output checks, baselines, rows), never a speed: the figures are not
asserted on, and the simulated clock is not a GPU's. The real run is ``python -m
bench`` on the GPU machine."""

from __future__ import annotations

import ctypes
import dataclasses
import io
import sys

import numpy as np
import pytest

import forge
from bench._env import Bench, Sizes
from forge import ir
from oracle.pytest_plugin import require_available
from tests.test_cuda_fake_driver import OK, device_array, fake_driver, ptr  # noqa: F401

TINY = Sizes(
    buffer_bytes=1 << 20,
    rows=8,
    cols=2048,
    gemm=64,
    transfer_bytes=8 << 20,
    launch_samples=20,
    warmups=1,
    samples=2,
    rounds=1,
)


def _model(kernel):
    """A simulated-driver kernel running IR ``kernel``'s numpy meaning on the buffers its
    arguments point at (dimensions read from the uniform block passed by value)."""
    body = kernel.body.pattern
    record = kernel.uniform.record_dtype

    def run(args, grid, block):
        uniform = np.frombuffer(args[-1].ljust(record.itemsize, b"\0"), record, 1)[0]
        dims = {name: int(uniform[name]) for name in body.dim_names}
        arrays = [
            device_array(ptr(arg), decl.count(dims), forge.scalar_type(decl.dtype).numpy)
            for arg, decl in zip(args, body.buffers())
        ]
        kernel.run_reference(arrays + [uniform])

    return run, (8,) * len(body.buffers()) + (record.itemsize,)


def _prepass_model(body):
    """A prepass matmul's first launch: a and b rounded to TF32 into a_tf32 (m x k) and
    b_tf32 (n x k), row-major, as ``forge/emit/_tf32.py``'s kernel writes them."""

    def run(args, grid, block):
        dims = dict(zip(("m", "n", "k"), np.frombuffer(args[-1][8:20], np.uint32)))
        m, n, k = (int(dims[d]) for d in ("m", "n", "k"))
        a, b, a_tf32, b_tf32 = (
            device_array(ptr(arg), count, np.float32)
            for arg, count in zip(args, (m * k, k * n, m * k, n * k))
        )
        a_mk = a.reshape(m, k) if body.a_layout == "row" else a.reshape(k, m).T
        b_nk = b.reshape(n, k) if body.b_layout == "col" else b.reshape(k, n).T
        a_tf32[:] = ir.to_tf32(a_mk, "rna").reshape(-1)
        b_tf32[:] = ir.to_tf32(b_nk, "rna").reshape(-1)

    return run, (8, 8, 8, 8, 20)


def _simulate(fake, *names):
    for name in names:
        kernel = forge.get_kernel(name)
        body = kernel.body.pattern
        if getattr(body, "prepass", False):  # two launches: the rounding, then the GEMM
            fake.kernels[kernel.entry_point + "_round"] = _prepass_model(body)
            gemm = ir.kernel(kernel.id, body.entry_body, defaults=kernel.defaults)
            fake.kernels[kernel.entry_point] = _model(gemm)
            continue
        fake.kernels[kernel.entry_point] = _model(kernel)

    def copy_device_to_device(dst, src, size, stream):
        ctypes.memmove(int(dst), int(src), size)
        fake.clock_ns += 1 + size // 1000
        return (OK,)

    fake.cuMemcpyDtoDAsync = copy_device_to_device


@pytest.fixture
def bench(fake_driver):  # noqa: F811
    _simulate(fake_driver, "affine", "add", "softmax", "rmsnorm", "gemm")
    env = Bench(TINY, log=io.StringIO())
    yield env
    env.close()


def _no_errors(rows, allowed=()):
    errors = [(r.what, r.error) for r in rows if r.error and not any(a in r.error for a in allowed)]
    assert not errors, errors


def test_p1_sweeps_checks_and_compares_with_the_copy(bench):
    from bench._cuda import p1

    rows = p1(bench)
    _no_errors(rows)
    assert [r.what.split()[0] for r in rows] == ["affine", "add"]
    for row in rows:
        assert row.baseline_value > 0 and row.ours > 0 and row.met is not None
        assert "output checked" in row.notes
        assert len(row.raw["candidates"]) > len(forge.get_kernel("affine").schedules)


def test_p3_and_p4_run_their_kernels_and_say_when_torch_is_missing(bench):
    from bench._cuda import p3, p4

    rows = p3(bench) + p4(bench)
    _no_errors(rows, allowed=("torch",))
    softmax, rmsnorm = rows[0], rows[1]
    assert softmax.ours > 0 and rmsnorm.ours > 0 and softmax.goal.bound == 0.85
    gemm = rows[-1]
    assert gemm.target == "P4" and gemm.ours > 0
    assert gemm.error == "" or "torch" in gemm.error


def test_p5_and_p7_measure_the_harness_against_bare_driver_calls(bench):
    from bench._harness import p5, p7

    rows = p5(bench) + p7(bench)
    _no_errors(rows)
    launch, graph = rows[0], rows[1]
    assert launch.raw["samples"] == TINY.launch_samples and "cached graph" in launch.notes
    assert len(launch.raw["first_call_us"]) == len(launch.raw["second_call_us"]) == TINY.rounds
    assert graph.goal.on == "ours" and graph.ours > 0
    uploads = [r for r in rows if r.target == "P7" and r.goal is not None]
    assert len(uploads) == 4 and all(r.ours > 0 and r.baseline_value > 0 for r in uploads)
    bound = next(r for r in rows if "host memcpy" in r.what)
    assert set(bound.raw["by_threads"]) >= {1, 2, 4, 8, 16}


def test_p8_finds_nothing_compiled_on_a_second_run_in_the_same_process(bench):
    from bench._compile import _same_process_row

    row = _same_process_row("cuda", bench.cuda())
    assert row.ours == 0 and row.met is True
    assert row.baseline_value >= 2, "the first run compiled (or read the disk cache) and loaded"


def test_a_failing_section_becomes_an_error_row_and_the_run_goes_on(fake_driver):  # noqa: F811
    from bench._cli import run

    env = Bench(TINY, log=io.StringIO())
    try:
        rows = run(env, ["P1", "P4"])  # no simulated models of the kernels: both fail
    finally:
        env.close()
    assert [r.target for r in rows] == ["P1", "P1", "P4"]
    assert all(r.verdict == "error" and "no Python model" in r.error for r in rows)


# -- wgpu --------------------------------------------------------------------------------
def test_p6_and_p8_run_on_the_wgpu_adapter_here(request):
    require_available(request.config, "wgpu")
    from bench._compile import p8
    from bench._wgpu import p6

    env = Bench(TINY, log=io.StringIO())
    try:
        rows = p6(env)
        p8_rows = [r for r in p8(env) if "wgpu" in r.what]
    finally:
        env.close()
    _no_errors(rows + p8_rows)
    assert rows[0].baseline_value > 0 and rows[0].ours > 0
    same, new = p8_rows
    assert same.ours == 0 and same.met is True
    assert new.raw["cold"]["first"]["pipeline_misses"] == 1


def _section_rows(section) -> list:
    """The rows of a bench section run at TINY sizes on the adapters here."""
    env = Bench(TINY, log=io.StringIO())
    try:
        return section(env)
    finally:
        env.close()


def test_p2_runs_on_wgpu_and_says_when_there_is_no_cuda_copy(request):
    require_available(request.config, "wgpu")
    from bench._wgpu import p2

    rows = _section_rows(p2)
    kernels = [r for r in rows if r.goal is not None]
    assert len(kernels) == 2 and all(r.ours > 0 and "output checked" in r.notes for r in kernels)
    for row in rows:
        assert row.baseline_value is not None or "no CUDA copy" in row.error


def test_p14_compares_each_backend_s_check_with_the_reference_and_with_in_process(monkeypatch):
    """The main-job rows, with the subprocess timings replaced by fixed ones (the real
    section runs kforge check eight times per backend on the GPU machine)."""
    import bench._main_job as main_job

    times = {
        ("--backend", "reference"): 2.0,
        ("--backend", "wgpu"): 2.2,
        ("--backend", "wgpu", "--no-isolate"): 2.1,
    }
    monkeypatch.setattr(main_job, "_seconds", lambda *argv: (times[argv], 0))
    monkeypatch.setattr(
        main_job.forge, "available_backends", lambda: {"wgpu": (True, ""), "cuda": (False, "none")}
    )
    rows = main_job.p14(None)
    check, isolation = rows
    assert (check.target, check.ratio, check.met) == ("P14", 1.1, True)
    assert isolation.target == "isolation" and round(isolation.ratio, 3) == round(2.2 / 2.1, 3)


# -- browser -----------------------------------------------------------------------------
def test_b1_measures_the_browser_beside_wgpu(request):
    require_available(request.config, "browser")
    require_available(request.config, "wgpu")
    from bench._browser import b1

    rows = _section_rows(b1)
    _no_errors(rows)
    assert all(r.target == "B1" and r.baseline_value > 0 and r.ours > 0 for r in rows)
    transfers = [r for r in rows if r.unit == "MB/s"]
    assert len(transfers) == 4 and all("checked equal" in r.notes for r in transfers)
    over_http = [r for r in transfers if r.goal is not None]  # 8 MiB: over HTTP
    assert len(over_http) == 2 and all(r.goal.bound == 200 for r in over_http)
    assert rows[0].raw["first_ms"] > 0


def test_p9_and_p11_sweep_and_check_ours_then_need_torch_for_their_peers(fake_driver, monkeypatch):  # noqa: F811
    """With no GPU (the simulated driver runs each kernel's numpy meaning), P9 and P11
    get as far as their peers: the tensor-core schedules and row schedules are swept,
    the outputs read back in their own dtype (P11: every candidate's checked), then
    torch is missing, and each row that needs it says so instead of reporting a figure
    without its baseline; P11's rows against the device copy need no torch."""
    import bench._peers
    from bench._peers import p9, p11

    # torch and Triton missing, as in CI (the GPU machine has them, for the real GPU)
    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.setitem(sys.modules, "triton", None)
    # each row kernel's own schedules and one the bench adds: every NVRTC compile costs
    # CI a second, and the added ones are the same code at other sizes
    every = bench._peers.rows_schedules
    monkeypatch.setattr(
        bench._peers,
        "rows_schedules",
        lambda kernel, cols, cuda: every(kernel, cols, cuda)[: len(kernel.schedules) + 1],
    )
    # and each GEMM's first two tensor-core schedules: its 59 took 57 s of NVRTC in a
    # cold cache (CI's always is; 2026-12-05), the rest the same code at other tiles
    sweep = bench._peers.sweep_best
    monkeypatch.setattr(
        bench._peers,
        "sweep_best",
        lambda kernel, candidates, *rest, **named: sweep(kernel, candidates[:2], *rest, **named),
    )

    _simulate(
        fake_driver,
        "gemm_f16",
        "gemm_bf16",
        "gemm_tf32",
        "gemm_tf32_nt",
        "gemm_tf32rz_nt",
        "gemm_tf32_2pass",
        "gemm_tf32_nt_2pass",
        "softmax",
        "rmsnorm",
        "layernorm",
        "gelu",
        "softmax_bf16",
        "rmsnorm_bf16",
        "layernorm_bf16",
        "gelu_bf16",
    )
    env = Bench(TINY, log=io.StringIO())
    try:
        rows = p9(env) + p11(env)
    finally:
        env.close()
    assert [r.target for r in rows] == ["P9"] * 7 + ["P11"] * 16
    assert rows[3].what.startswith("gemm_tf32_nt") and rows[4].what.startswith("gemm_tf32rz_nt")
    assert rows[5].what.startswith("gemm_tf32_2pass")
    assert rows[6].what.startswith("gemm_tf32_nt_2pass")
    peers, copies = rows[7::2], rows[8::2]
    for row in rows[:7] + peers:
        assert "torch" in row.error, (row.what, row.error)
    assert [r.what.split()[0] for r in copies][-2:] == ["layernorm_bf16", "gelu_bf16"]
    for row in copies:
        assert not row.error and row.what.endswith("CUDA, against the device copy")
        assert row.baseline_value > 0 and row.ours > 0 and row.goal.bound == 0.9
        assert "first 4 and last rows" in row.notes and "0 with a wrong output" in row.notes


# -- P10 ---------------------------------------------------------------------------------
def _p10_checks(rows) -> None:
    f32, unchecked, f16 = rows
    assert [r.target for r in rows] == ["P10"] * 3
    assert unchecked.what == f32.what + ", shader_checks=False"
    for row in (f32, unchecked):
        assert row.goal.bound == 0.8
        assert row.ours > 0 and "every candidate's output checked" in row.notes
        tried = row.raw["candidates"]
        measured = [t for t in tried if "figure" in t]
        assert len(measured) >= 2 and all(t["max_rel_err"] <= 1e-4 for t in measured)
        assert not any("wrong" in t for t in tried)
    if f16.error:
        assert f16.error.startswith("not measured") and "shader-f16" in f16.error
    else:
        assert f16.ours > 0 and all(t["max_rel_err"] <= 1e-4 for t in f16.raw["candidates"])


def test_p10_sweeps_checked_wgsl_gemms_against_our_cuda_gemm(request, bench):
    """wgpu on the adapter here, the CUDA baseline on the simulated driver (P4's sweep,
    shared through the run)."""
    require_available(request.config, "wgpu")
    from bench._wgpu_gemm import p10

    rows = p10(bench)
    _no_errors(rows)
    _p10_checks(rows)
    assert rows[0].baseline_value > 0 and rows[0].raw["cuda_schedule"]
    assert rows[1].baseline_value > 0 and rows[1].raw["cuda_schedule"]
    assert rows[2].error or rows[2].baseline_value == rows[0].baseline_value


def test_p10_says_when_there_is_no_cuda_gemm(request, monkeypatch):
    """The error path, on two schedules of each sweep (the whole sweep is the test
    above's: running it twice was 35 s of CI's worker time, 2026-12-07)."""
    require_available(request.config, "wgpu")
    import bench._wgpu_gemm as gemm

    monkeypatch.setattr(gemm, "WGSL_GEMM_SCHEDULES", gemm.WGSL_GEMM_SCHEDULES[:2])
    monkeypatch.setattr(gemm, "WGSL_GEMM_F16_SCHEDULES", gemm.WGSL_GEMM_F16_SCHEDULES[:2])
    rows = _section_rows(gemm.p10)
    _p10_checks(rows)
    assert rows[0].baseline_value is not None or "no CUDA gemm" in rows[0].error


# -- P9's TF32 precision -----------------------------------------------------------------
class _Tensor:
    """What ``_cublas_tf32`` reads of torch's output: ``.float().cpu().numpy()``."""

    def __init__(self, values: np.ndarray) -> None:
        self.values = values

    def float(self) -> _Tensor:
        return self

    def cpu(self) -> _Tensor:
        return self

    def numpy(self) -> np.ndarray:
        return self.values


@pytest.mark.parametrize("b_col", [False, True])
def test_p9_tells_which_tf32_cublas_computed_from_its_output(b_col):
    """A product of truncated inputs is told from one of rounded inputs by its error
    against each (the P9 rows judge only a kernel of the precision cuBLAS computed)."""
    from bench._peers import _cublas_tf32
    from bench._workload import host_array

    size = 96
    a, b = host_array(size * size, seed=1), host_array(size * size, seed=2)
    for rounding in ("rz", "rna"):
        ta = forge.ir.to_tf32(a, rounding).reshape(size, size).astype(np.float64)
        tb = forge.ir.to_tf32(b, rounding).reshape(size, size).astype(np.float64)
        product = ta @ (tb.T if b_col else tb)
        computed, note = _cublas_tf32(a, b, _Tensor(product.astype(np.float32)), size, b_col)
        assert computed == rounding, note
        assert ("truncated them" if rounding == "rz" else "rounded them") in note


def test_device_seconds_warms_up_for_warm_seconds_of_device_time_before_its_samples():
    """Where ``warmups`` dispatches fill less than ``warm_seconds``, the figure is taken
    again after enough more to fill it (the H200's clocks under Vulkan, bench/probes.py);
    a kernel slow enough, or warm_seconds 0, gets one measurement."""
    from bench._workload import device_seconds

    class Timed:  # 1 ms a dispatch, recording the warm-ups of each run_kernel
        def __init__(self) -> None:
            self.warmups: list[int] = []

        def run_kernel(self, kernel, schedule, views, size, warmups, samples):
            self.warmups.append(warmups)
            return np.full(samples, 1e6)

    ctx = Timed()
    sizes = dataclasses.replace(TINY, warmups=3, samples=4, warm_seconds=0.5)
    assert device_seconds(ctx, None, [], 1, sizes)(forge.Schedule(64)) == pytest.approx(1e-3)
    assert ctx.warmups == [3, 500]
    ctx.warmups.clear()
    device_seconds(ctx, None, [], 1, dataclasses.replace(sizes, warm_seconds=0.0))(
        forge.Schedule(64)
    )
    assert ctx.warmups == [3]

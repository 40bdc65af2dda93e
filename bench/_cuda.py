"""P1, P3, P4: generated kernels on CUDA against baselines measured in the same run
(cuMemcpyDtoD of the same buffers for the memory-bound ones, cuBLAS float32 through
torch for gemm). Each kernel's schedules are swept, the best is re-measured in turn
with its baseline, and its output is checked against the kernel's numpy meaning."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

import numpy as np

import forge
from forge import Schedule, ir

from ._env import Bench
from ._report import (
    Goal,
    Row,
    bandwidth_gbps,
    format_bytes,
    gemm_flops,
    guarded,
    memory_bound_bytes,
    roofline_work,
    rows_bytes,
    tflops,
)
from ._timing import CudaTimer, alternate, median, torch_seconds
from ._workload import (
    TF32_SUSPECT,
    bind_views,
    check_gemm_output,
    check_map_output,
    check_rows_output,
    device_seconds,
    gemm_error,
    gemm_schedules,
    host_array,
    map_schedules,
    output_index,
    rows_schedules,
    sweep_best,
    sweep_note,
)

__all__ = ["p1", "p3", "p4", "copy_gbps", "CudaGemm", "cuda_gemm", "gemm_inputs", "GEMM_PARAMS"]

_MAP_KERNELS = ("affine", "add")
_ROW_KERNELS = ("softmax", "rmsnorm")


def _kernel_gbps(env: Bench, ctx, kernel, views, size: int, moved: int):
    """A function of a schedule: the kernel's bandwidth, moving ``moved`` bytes."""
    seconds = device_seconds(ctx, kernel, views, size, env.sizes)
    return lambda schedule: bandwidth_gbps(moved, seconds(schedule))


def copy_gbps(env: Bench, ctx, timer: CudaTimer, source, target, nbytes: int):
    """A function measuring cuMemcpyDtoDAsync of ``nbytes`` from view ``source`` to
    view ``target`` on the context's stream: bytes read + written per second."""
    from backends.cuda import driver
    from backends.cuda import driver_call as call

    def enqueue() -> None:
        call(
            driver.cuMemcpyDtoDAsync,
            ctx.slab + target.offset,
            ctx.slab + source.offset,
            nbytes,
            ctx.stream,
        )

    def figure() -> float:
        seconds = timer.seconds(enqueue, env.sizes.warmups, env.sizes.samples)
        return bandwidth_gbps(2 * nbytes, median(seconds))

    return figure


def _final(env: Bench, baseline, ours) -> tuple[float, float, dict]:
    """Baseline and ours re-measured in turn; their medians and every value."""
    values = alternate({"baseline": baseline, "ours": ours}, env.sizes.rounds)
    return median(values["baseline"]), median(values["ours"]), values


# -- P1 ---------------------------------------------------------------------------------
def p1(env: Bench) -> list[Row]:
    return [
        row
        for name in _MAP_KERNELS
        for row in guarded("P1", f"{name} on CUDA", functools.partial(_p1_kernel, env, name))
    ]


def _against_copy(
    env: Bench, ctx, kernel, views, size: int, moved: int, schedules
) -> tuple[float, float, dict, str]:
    """Sweep ``schedules`` of a memory-bound kernel, then re-measure the winner in turn
    with a copy of its first input into its output: (copy GB/s, ours GB/s, every
    figure, the sweep's note)."""
    timer = CudaTimer(ctx)
    try:
        source, target = views[0], views[output_index(kernel)]
        copy = copy_gbps(
            env, ctx, timer, source, target, min(source.length_bytes, target.length_bytes)
        )
        ours = _kernel_gbps(env, ctx, kernel, views, size, moved)
        tried, winner, schedule = sweep_best(
            kernel, schedules, ours, ctx.constraints, "cuda", env.progress
        )
        base, mine, values = _final(env, copy, lambda: ours(schedule))
    finally:
        timer.close()
    return (
        base,
        mine,
        {"candidates": tried, "rounds": values, "bytes_counted": moved},
        sweep_note(tried, winner),
    )


def _p1_kernel(env: Bench, name: str) -> Row:
    ctx = env.cuda()
    kernel = forge.get_kernel(name)
    n = env.sizes.buffer_bytes // 4
    data = {spec.name: host_array(n, seed=i) for i, spec in enumerate(kernel.inputs)}
    env.progress(f"P1 {name}: {format_bytes(n * 4)} per buffer")
    views = bind_views(ctx, kernel, n, data)
    base, mine, raw, note = _against_copy(
        env,
        ctx,
        kernel,
        views,
        n,
        memory_bound_bytes(kernel, n),
        map_schedules(kernel, ctx.constraints.multiprocessor_count),
    )
    error = check_map_output(
        kernel, data, ctx.read_buffer_f32(views[output_index(kernel)]), dict(kernel.defaults)
    )
    raw["work"] = roofline_work(kernel, n, "cuda", raw["bytes_counted"] / (mine * 1e9))
    return Row(
        "P1",
        f"{name} {format_bytes(n * 4)}/buffer, CUDA",
        f"cuMemcpyDtoD {format_bytes(n * 4)}",
        base,
        mine,
        "GB/s",
        Goal(">=", 0.92),
        notes=f"{note}; output checked (max rel err {error:.1e})",
        raw=raw,
    )


# -- P3 ---------------------------------------------------------------------------------
def p3(env: Bench) -> list[Row]:
    rows = [
        row
        for name in _ROW_KERNELS
        for row in guarded("P3", f"{name} on CUDA", functools.partial(_p3_kernel, env, name))
    ]
    return rows + guarded("P3", "torch softmax (reference)", lambda: _p3_torch(env))


def _p3_data(env: Bench, kernel) -> dict:
    s = env.sizes
    # x spreads exp() over a wide range; the per-column weights stay moderate.
    return {
        spec.name: host_array(
            spec.element_count(s.cols), 10 + i, *((-4.0, 4.0) if spec.name == "x" else (-1.0, 1.0))
        )
        for i, spec in enumerate(kernel.inputs)
    }


def _p3_kernel(env: Bench, name: str) -> Row:
    ctx = env.cuda()
    s = env.sizes
    kernel = ir.with_shape(forge.get_kernel(name), rows=s.rows)
    data = _p3_data(env, kernel)
    env.progress(f"P3 {name}: {s.rows} x {s.cols} float32")
    views = bind_views(ctx, kernel, s.cols, data)
    base, mine, raw, note = _against_copy(
        env,
        ctx,
        kernel,
        views,
        s.cols,
        rows_bytes(s.rows, s.cols),
        rows_schedules(kernel, s.cols, cuda=True),
    )
    error = check_rows_output(
        lambda r: ir.with_shape(forge.get_kernel(name), rows=r),
        data,
        ctx.read_buffer_f32(views[output_index(kernel)]),
        s.rows,
        s.cols,
        dict(kernel.defaults),
    )
    raw["work"] = roofline_work(kernel, s.cols, "cuda", raw["bytes_counted"] / (mine * 1e9))
    return Row(
        "P3",
        f"{name} {s.rows}x{s.cols} f32, CUDA",
        "cuMemcpyDtoD same bytes",
        base,
        mine,
        "GB/s",
        Goal(">=", 0.85),
        notes=(
            f"{note}; one read + one write per element; output checked (max rel err {error:.1e})"
        ),
        raw=raw,
    )


def _p3_torch(env: Bench) -> Row:
    """torch's softmax on the same shape against the same copy, for reference."""
    torch = env.torch()
    ctx = env.cuda()
    s = env.sizes
    kernel = ir.with_shape(forge.get_kernel("softmax"), rows=s.rows)
    views = bind_views(ctx, kernel, s.cols, _p3_data(env, kernel))
    timer = CudaTimer(ctx)
    try:
        copy = copy_gbps(env, ctx, timer, views[0], views[1], s.rows * s.cols * 4)
        x = torch.empty((s.rows, s.cols), device="cuda").uniform_(-4.0, 4.0)

        def theirs() -> float:
            seconds = torch_seconds(torch, lambda: torch.softmax(x, dim=-1), s.warmups, s.samples)
            return bandwidth_gbps(rows_bytes(s.rows, s.cols), median(seconds))

        base, mine, values = _final(env, copy, theirs)
    finally:
        timer.close()
    return Row(
        "P3",
        f"torch.softmax {s.rows}x{s.cols} f32 (reference)",
        "cuMemcpyDtoD same bytes",
        base,
        mine,
        "GB/s",
        None,
        notes=f"torch {torch.__version__}; docs/PERFORMANCE.md: 0.61",
        raw={"rounds": values},
    )


# -- P4 ---------------------------------------------------------------------------------
def p4(env: Bench) -> list[Row]:
    return guarded("P4", "gemm on CUDA", lambda: _p4(env))


def _torch_fp32(torch) -> str:
    """Turn TF32 off for torch's float32 matmuls; say how it is set."""
    matmul = torch.backends.cuda.matmul
    if hasattr(matmul, "fp32_precision"):  # torch >= 2.9: the old flag is deprecated
        matmul.fp32_precision = "ieee"
        return f"fp32_precision={matmul.fp32_precision!r}"
    matmul.allow_tf32 = False
    return f"allow_tf32={matmul.allow_tf32}"


#: c = a @ b, what torch.matmul computes (P4) and what P10 runs on wgpu
GEMM_PARAMS = {"alpha": 1.0, "beta": 0.0}


def gemm_inputs(size: int) -> dict[str, np.ndarray]:
    """The float32 a, b and c of a ``size``-cubed gemm (P4 and P10 use the same)."""
    return {name: host_array(size * size, seed=20 + i) for i, name in enumerate("abc")}


@dataclasses.dataclass(frozen=True)
class CudaGemm:
    """Our CUDA float32 gemm at the run's size: ``figure()`` measures the winning
    schedule (TFLOP/s) on views bound when this was made; the sweep behind it."""

    figure: Callable[[], float]
    kernel: Any
    schedule: Schedule
    tried: list
    winner: dict
    error: float  # the winner's max relative error against float64
    data: dict
    flops: float


def cuda_gemm(env: Bench) -> CudaGemm:
    """P4's CUDA gemm: the sweep over ``gemm_schedules`` runs once per run (P4 and P10
    share its winner), and each call binds fresh views for the winner's figure."""
    ctx = env.cuda()
    size = env.sizes.gemm
    kernel = forge.get_kernel("gemm")
    data = gemm_inputs(size)
    views = bind_views(ctx, kernel, size, data, **GEMM_PARAMS)
    flops = gemm_flops(size, size, size)
    seconds = device_seconds(ctx, kernel, views, size, env.sizes)

    def ours(schedule) -> float:
        return tflops(flops, seconds(schedule))

    def swept() -> tuple:
        env.progress(f"gemm {size}^3 float32 on CUDA")
        tried, winner, schedule = sweep_best(
            kernel, gemm_schedules(kernel, cuda=True), ours, ctx.constraints, "cuda", env.progress
        )
        got = ctx.read_buffer_f32(views[output_index(kernel)])
        return tried, winner, schedule, check_gemm_output(data["a"], data["b"], got, size)

    tried, winner, schedule, error = env.memo("cuda gemm sweep", swept)
    return CudaGemm(lambda: ours(schedule), kernel, schedule, tried, winner, error, data, flops)


def _p4(env: Bench) -> Row:
    gemm = cuda_gemm(env)
    size, s = env.sizes.gemm, env.sizes
    kernel, flops, tried, winner, error = (
        gemm.kernel,
        gemm.flops,
        gemm.tried,
        gemm.winner,
        gemm.error,
    )
    a, b = gemm.data["a"], gemm.data["b"]
    try:
        torch = env.torch()
    except ImportError as exc:
        mine = median(gemm.figure() for _ in range(s.rounds))
        return Row(
            "P4",
            f"gemm {size}^3 f32, CUDA",
            "torch.matmul f32 (TF32 off)",
            None,
            mine,
            "TFLOP/s",
            Goal(">=", 0.7),
            error=f"no baseline: {exc}",
            notes=sweep_note(tried, winner),
            raw={"candidates": tried},
        )
    setting = _torch_fp32(torch)
    ta = torch.from_numpy(a.reshape(size, size)).cuda()
    tb = torch.from_numpy(b.reshape(size, size)).cuda()
    tc = torch.empty_like(ta)
    torch_error = gemm_error(a, b, torch.matmul(ta, tb).cpu().numpy(), size)
    if torch_error > TF32_SUSPECT:
        raise AssertionError(
            f"torch.matmul ({setting}) has a relative error of "
            f"{torch_error:.1e}: it rounds to TF32, so it is not the float32 "
            "baseline P4 compares with"
        )

    def theirs() -> float:
        seconds = torch_seconds(torch, lambda: torch.matmul(ta, tb, out=tc), s.warmups, s.samples)
        return tflops(flops, median(seconds))

    base, mine, values = _final(env, theirs, gemm.figure)
    return Row(
        "P4",
        f"gemm {size}^3 f32, CUDA",
        "torch.matmul f32 (TF32 off)",
        base,
        mine,
        "TFLOP/s",
        Goal(">=", 0.7),
        notes=(
            f"{sweep_note(tried, winner)}; output checked (max rel err {error:.1e}); "
            f"torch {setting}, its max rel err {torch_error:.1e} (TF32 ~3e-4)"
        ),
        raw={
            "candidates": tried,
            "rounds": values,
            "flops": flops,
            "work": roofline_work(kernel, size, "cuda", flops / (mine * 1e12)),
        },
    )

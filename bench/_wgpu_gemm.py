"""P10: the library's gemm through wgpu (Vulkan on the same GPU) at P4's size, alpha 1
beta 0, timestamp-timed, best of a short list of WGSL schedules, against our CUDA float32
gemm (P4's sweep and winner) re-measured in turn in the same run. Every candidate's
output is checked against float64 dot products (a sample of entries) before its figure
counts, on a ``c`` filled with NaN first, so that a fast wrong or silent schedule never
wins. The first row runs in a default context (``shader_checks="auto"``: the emitted
gemm keeps naga's index clamps, not its loop counters); a second row does the same in a
context with ``shader_checks=False`` (no clamps either). An informative row runs
gemm_f16 (f16 a and b, f32 accumulation) where the adapter has shader-f16."""

from __future__ import annotations

import numpy as np

import forge
from forge import MemoryTopology, Schedule

from ._env import Bench
from ._report import MIB, Goal, Row, gemm_flops, guarded, roofline_work, tflops
from ._timing import alternate, median
from ._wgpu import open_wgpu
from ._workload import (
    best,
    bind_views,
    device_seconds,
    gemm_error,
    output_index,
    sweep,
    sweep_note,
)

__all__ = ["p10", "WGSL_GEMM_SCHEDULES", "WGSL_GEMM_F16_SCHEDULES"]

_TOLERANCE = 1e-4  # as the other sections' output checks


def _unrolled(wg, tile) -> Schedule:
    return Schedule(wg, vector_width=4, tile=tile, unroll=True)


#: What P10 tries on wgpu: ``unroll=1, vec=4`` (named vec4 registers, vec4 tiles and
#: vec4 global loads, forge/emit/_matmul.py) at the micro-tiles that suit a big GPU,
#: then the rolled twin of the best-known CUDA schedule, to show what unrolling buys.
#: 128x128x16x2 needs 32 KiB of workgroup memory: refused where the adapter allows 16.
WGSL_GEMM_SCHEDULES = (
    _unrolled((16, 16), (128, 128, 8, 2)),  # 8x8 per invocation, CUDA's P4 shape
    _unrolled((16, 16), (128, 128, 8)),
    _unrolled((16, 8), (128, 128, 8, 2)),  # 16x8 per invocation
    _unrolled((16, 8), (128, 64, 8, 2)),  # 16x4
    _unrolled((8, 16), (64, 128, 8, 2)),  # 4x16
    _unrolled((16, 16), (64, 64, 8, 2)),  # 4x4
    _unrolled((8, 8), (64, 64, 8)),  # 8x8, 64 invocations
    _unrolled((16, 16), (128, 128, 16, 2)),
    _unrolled((16, 16), (128, 128, 16)),  # the fastest of bench.probes wgsl-gemm's 59
    _unrolled((32, 8), (128, 128, 16)),  # its runner-up
    _unrolled((16, 16), (128, 256, 8, 2)),  # 8x16: CUDA's P4 winner on the H200
    _unrolled((16, 16), (256, 128, 8, 2)),  # 16x8
    Schedule((16, 16), vector_width=4, tile=(128, 128, 8, 2)),  # rolled: register arrays
)
#: f16: the first three, and the f32 row's fastest tile (not yet measured for f16)
WGSL_GEMM_F16_SCHEDULES = WGSL_GEMM_SCHEDULES[:3] + (_unrolled((16, 16), (128, 128, 16)),)


def p10(env: Bench) -> list[Row]:
    nbytes = env.sizes.gemm**2 * 4
    # a and b (and the uniform) in the read slab, c in the read-write one (as P2)
    topology = MemoryTopology.split_by_usage(read=2000, read_write=1000, resident=1)
    capacity = -(-(3 * nbytes + 2 * MIB) * 3001 // 3000)
    size = env.sizes.gemm
    with open_wgpu(capacity, topology=topology) as ctx:
        env.memo("wgpu adapter", ctx.adapter.as_dict)
        f32 = guarded("P10", f"gemm {size}^3 f32, wgpu", lambda: _p10_f32(env, ctx))
        base = f32[0].baseline_value if f32 and not f32[0].error else None
        f16 = guarded("P10", f"gemm {size}^3 f16, wgpu", lambda: _p10_f16(env, ctx, base))
    # the same sweep with modules made without naga's runtime checks (index clamps and
    # loop-bounding counters), as production code on wgpu-native may run them
    what = f"gemm {size}^3 f32, wgpu, shader_checks=False"
    with open_wgpu(capacity, topology=topology, shader_checks=False) as ctx:
        unchecked = guarded("P10", what, lambda: _p10_f32(env, ctx))
    return f32 + unchecked + f16


def _adapter_note(ctx) -> str:
    a = ctx.adapter
    return f"{a.name} ({a.backend}, {a.device_type}), {ctx.timing_source}"


def _checked_sweep(env: Bench, ctx, kernel, schedules, data: dict) -> tuple:
    """Sweep ``schedules`` of ``kernel`` on ``ctx`` at the run's size, each candidate's
    output checked: (every entry, the winner, a function measuring the winner)."""
    size = env.sizes.gemm
    views = bind_views(ctx, kernel, size, data, alpha=1.0, beta=0.0)
    out = views[output_index(kernel)]
    poison = np.full(size * size, np.nan, np.float32)
    a = data["a"].astype(np.float32)
    b = data["b"].astype(np.float32)
    seconds = device_seconds(ctx, kernel, views, size, env.sizes)
    flops = gemm_flops(size, size, size)
    errors: dict[str, float] = {}

    def figure(schedule: Schedule) -> float:
        ctx.write_view(out, poison)
        figure = tflops(flops, seconds(schedule))
        errors[str(schedule)] = gemm_error(a, b, ctx.read_buffer_f32(out), size)
        return figure

    tried = sweep(kernel, schedules, figure, ctx.constraints, "wgsl", env.progress)
    for entry in tried:
        error = errors.get(entry["schedule"])
        if error is None:
            continue
        entry["max_rel_err"] = error
        if not error <= _TOLERANCE:  # NaN too: an element left unwritten
            entry["wrong"] = entry.pop("figure")
            entry["error"] = f"wrong output: max relative error {error:.3g}"
            env.progress(f"  {kernel.id} {entry['schedule']}: {entry['error']}")
    winner = best(tried)
    schedule = Schedule.parse(winner["schedule"])
    return tried, winner, lambda: tflops(flops, seconds(schedule))


def _checks_note(tried: list[dict]) -> str:
    checked = [t for t in tried if "max_rel_err" in t]
    wrong = sum("wrong" in t for t in tried)
    worst = max((t["max_rel_err"] for t in checked if "wrong" not in t), default=0.0)
    return (
        f"every candidate's output checked ({len(checked)}, {wrong} wrong; max rel err {worst:.1e})"
    )


def _p10_f32(env: Bench, ctx) -> Row:
    from ._cuda import cuda_gemm, gemm_inputs

    size, s = env.sizes.gemm, env.sizes
    what = f"gemm {size}^3 f32, wgpu" + ("" if ctx.shader_checks else ", shader_checks=False")
    kernel = forge.get_kernel("gemm")
    data = gemm_inputs(size)
    ctx.clear_transient_allocations()
    env.progress(f"P10 gemm {size}^3 float32 on {_adapter_note(ctx)}")
    tried, winner, ours = _checked_sweep(env, ctx, kernel, WGSL_GEMM_SCHEDULES, data)
    notes = f"{_adapter_note(ctx)}; {sweep_note(tried, winner)}; {_checks_note(tried)}"
    raw: dict = {"candidates": tried, "flops": gemm_flops(size, size, size)}
    try:
        cuda = cuda_gemm(env)
    except Exception as exc:  # noqa: BLE001 - the wgpu figure still stands alone
        alone = [ours() for _ in range(s.rounds)]
        raw["rounds"] = {"ours": alone}
        return Row(
            "P10",
            what,
            "our CUDA gemm f32 (P4's best)",
            None,
            median(alone),
            "TFLOP/s",
            Goal(">=", 0.8),
            error=f"no CUDA gemm to compare with: {type(exc).__name__}: {exc}",
            notes=notes,
            raw=raw,
        )
    values = alternate({"baseline": cuda.figure, "ours": ours}, s.rounds)
    mine = median(values["ours"])
    raw.update(
        rounds=values,
        cuda_schedule=str(cuda.schedule),
        work=roofline_work(kernel, size, "wgpu", raw["flops"] / (mine * 1e12)),
    )
    return Row(
        "P10",
        what,
        "our CUDA gemm f32 (P4's best)",
        median(values["baseline"]),
        mine,
        "TFLOP/s",
        Goal(">=", 0.8),
        notes=f"{notes}; CUDA {cuda.schedule} (max rel err {cuda.error:.1e})",
        raw=raw,
    )


def _p10_f16(env: Bench, ctx, base: float | None) -> Row:
    """gemm_f16 on wgpu (informative), beside the f32 row's CUDA figure when there is
    one (not measured again)."""
    size, s = env.sizes.gemm, env.sizes
    what = f"gemm {size}^3 f16 in, f32 accumulate, wgpu"
    against = "our CUDA gemm f32 (row above)"
    if not ctx.constraints.shader_f16:
        return Row(
            "P10",
            what,
            against,
            error=f"not measured: {ctx.adapter.name} does not offer shader-f16",
        )
    kernel = forge.get_kernel("gemm_f16")
    rng = np.random.default_rng(23)
    data = {name: rng.uniform(-1.0, 1.0, size * size).astype(np.float16) for name in ("a", "b")}
    data["c"] = np.zeros(size * size, np.float32)
    ctx.clear_transient_allocations()
    env.progress(f"P10 gemm_f16 {size}^3 on {_adapter_note(ctx)}")
    tried, winner, ours = _checked_sweep(env, ctx, kernel, WGSL_GEMM_F16_SCHEDULES, data)
    values = [ours() for _ in range(s.rounds)]
    return Row(
        "P10",
        what,
        against,
        base,
        median(values),
        "TFLOP/s",
        None,
        notes=f"{_adapter_note(ctx)}; {sweep_note(tried, winner)}; {_checks_note(tried)}",
        raw={"candidates": tried, "rounds": {"ours": values}},
    )

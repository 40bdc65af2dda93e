"""P11 on wgpu (Vulkan on the same GPU when the bench runs there): softmax, rmsnorm,
layernorm and gelu at rows x cols in f32, and in f16 where the adapter offers
``shader-f16`` (else one row per f16 kernel saying so; WGSL has no bf16). Each kernel
gets two rows, as on CUDA (bench/_peers.py):

- against the better of torch and the tutorial-style Triton kernel on the same GPU for
  the same op and dtype (torch float16 / Triton fp16 for f16), goal 0.97;
- against the wgpu device copy of the same bytes, goal 0.9 (f32) and 0.88 (f16: the
  memory-bound f16 kernels' target). The copy is the faster of a copy shader (an IR map
  ``y = x`` of u32 words, swept over the map schedules, timestamp-timed as the kernels
  are) and ``copy_buffer_to_buffer`` (host-timed over ``_COPIES`` copies per submit, as
  copies carry no pass timestamps), each checked to copy.

The kernel's schedules are swept, with (for rows) ones whose ``wg * ipt * 4`` columns hold
a whole row in registers within the adapter's workgroup limit; every candidate's output
is checked on a few rows against the kernel's numpy meaning and the winner's whole output
against torch, before any figure counts. Without torch or Triton the peer rows say which
is missing and the copy rows still stand; without wgpu every row says why. Registered as
part of P11 in bench/_cli.py (``--only P11`` runs the CUDA rows, then these).
"""

from __future__ import annotations

import functools

import numpy as np

from forge import MemoryTopology, Schedule, ir

from ._env import Bench
from ._peers import (
    COPY_GOAL,
    DeviceCopy,
    P11Work,
    check_peers,
    checked_sweep,
    final_output,
    p11_rows,
    p11_work,
)
from ._report import MIB, Row, bandwidth_gbps, failed_row, guarded
from ._timing import alternate, host_seconds, median
from ._wgpu import open_wgpu
from ._workload import bind_views, device_seconds, map_schedules, sweep_best

__all__ = ["p11_wgpu", "wgsl_rows_schedules", "COPY_GOAL_F16", "WGPU_P11"]

WGPU_P11 = (
    ("softmax", "f32"),
    ("rmsnorm", "f32"),
    ("layernorm", "f32"),
    ("gelu", "f32"),
    ("softmax_f16", "f16"),
    ("rmsnorm_f16", "f16"),
    ("layernorm_f16", "f16"),
    ("gelu_f16", "f16"),
)
#: The f16 memory-bound kernels on wgpu against the wgpu device copy
COPY_GOAL_F16 = 0.88
_COPIES = 10  # copy_buffer_to_buffer calls per host-timed submit
_CHECKED_BYTES = 64 << 10  # bytes of a copy compared at its start and at its end
_POISON = 0xFFFFFFFF  # a NaN in f32 and in both f16 halves: no input holds it

#: y = x over u32 words: the copy shader, the same bytes whatever the dtype
COPY = ir.kernel(
    "wgpu_copy", ir.map(y=ir.input("x", "u32")), description="y = x (u32 words): a copy"
)


def p11_wgpu(env: Bench) -> list[Row]:
    s = env.sizes
    nbytes = s.rows * s.cols * 4  # the f32 rows; f16 moves half
    # x, its weights, the copy's source and the uniforms in the read slab; y and the
    # copy's target in the read-write one
    topology = MemoryTopology.split_by_usage(read=1000, read_write=1000, resident=1)
    capacity = -(-(2 * nbytes + 2 * MIB) * 2001 // 1000)
    try:
        ctx = open_wgpu(capacity, topology=topology)
    except Exception as exc:  # noqa: BLE001 - each row says why there is no figure
        return [
            failed_row("P11", f"{name} {dtype}, wgpu", exc) for name, dtype in env.chosen(WGPU_P11)
        ]
    with ctx:
        env.memo("wgpu adapter", ctx.adapter.as_dict)
        multiprocessors = _multiprocessors(env)
        return [
            row
            for name, dtype in env.chosen(WGPU_P11)
            for row in env.done(
                guarded(
                    "P11",
                    f"{name} {dtype} on wgpu against torch and Triton",
                    functools.partial(_rows, env, ctx, name, dtype, multiprocessors),
                )
            )
        ]


def _multiprocessors(env: Bench) -> int | None:
    """The GPU's SM count, for the grid-stride map schedules (None without CUDA)."""
    try:
        return env.cuda().constraints.multiprocessor_count
    except Exception:  # noqa: BLE001 - the kernel's own schedules still run
        return None


def wgsl_rows_schedules(kernel, cols: int, constraints) -> list[Schedule]:
    """A row kernel's own schedules, plus vec4 ones whose ``wg * ipt * 4`` columns hold
    a whole row of ``cols`` in registers (one read and one write per element) for each
    workgroup of 1024, 512 and 256 invocations the adapter allows, and one that sweeps
    the row twice at the largest of them; where the adapter offers subgroups, each of
    those with one row per workgroup also with its reductions through subgroup
    operations (sg=1)."""
    most = min(constraints.max_invocations_per_workgroup, constraints.max_workgroup_size[0])
    sizes = [wg for wg in (1024, 512, 256) if wg <= most]
    extra = [
        Schedule((wg, 1), items_per_invocation=max(1, cols // (wg * 4)), vector_width=4)
        for wg in sizes
    ]
    if sizes:
        twice = max(1, cols // (2 * sizes[0] * 4))
        extra.append(Schedule((sizes[0], 1), items_per_invocation=twice, vector_width=4))
    every = list(dict.fromkeys([*kernel.schedules, *extra]))
    if constraints.subgroups:
        every += [s.with_(subgroups=True) for s in every if s.workgroup_size[1] == 1]
    return every


def _rows(env: Bench, ctx, name: str, dtype: str, multiprocessors: int | None) -> list[Row]:
    s = env.sizes
    if dtype == "f16" and not ctx.constraints.shader_f16:
        return [
            Row(
                "P11",
                f"{name} {s.rows}x{s.cols} {dtype}, wgpu",
                "best of torch / Triton",
                error=f"unsupported, because the adapter ({ctx.adapter.name}) lacks shader-f16",
            )
        ]
    ctx.clear_transient_allocations()
    work = p11_work(name, dtype, s.rows, s.cols)
    env.progress(f"P11 {name}: {s.rows} x {s.cols} {dtype}, wgpu ({ctx.adapter.name})")
    views = bind_views(ctx, work.kernel, work.size, work.data)
    schedules = (
        map_schedules(work.kernel, multiprocessors)
        if work.elementwise
        else wgsl_rows_schedules(work.kernel, s.cols, ctx.constraints)
    )
    swept = checked_sweep(env, ctx, work, views, schedules, "wgsl")
    peers = check_peers(env, work, final_output(ctx, work, views, swept.schedule))
    copy = _WgpuCopy(env, ctx, work, multiprocessors)
    values = alternate(
        {
            "copy_shader": copy.shader,
            "copy_buffer": copy.buffer,
            **peers.figures(work.moved),
            "ours": swept.figure,
        },
        s.rounds,
    )
    shader, buffer = median(values["copy_shader"]), median(values["copy_buffer"])
    copied = DeviceCopy(
        "wgpu device copy same bytes (the faster of a copy shader and copy_buffer_to_buffer)",
        max(shader, buffer),
        (
            f"{ctx.adapter.name} ({ctx.adapter.backend}), {ctx.timing_source}; copy shader "
            f"{shader:.4g} GB/s ({copy.schedule}), copy_buffer_to_buffer {buffer:.4g} GB/s "
            f"(host-timed, {_COPIES} per submit), both checked"
        ),
        COPY_GOAL_F16 if dtype == "f16" else COPY_GOAL,
    )
    raw = {"copy_candidates": copy.tried, "timing_source": ctx.timing_source}
    return p11_rows(env, work, "wgpu", swept, peers, values, copied, raw)


class _WgpuCopy:
    """The wgpu device copy of ``work``'s x: the same bytes, into a view of their own.
    ``shader()`` and ``buffer()`` measure it in GB/s (bytes read + written); both copies
    were checked to copy (the start and end of the target, poisoned first) here."""

    def __init__(self, env: Bench, ctx, work: P11Work, multiprocessors: int | None) -> None:
        self.env, self.ctx = env, ctx
        words = np.ascontiguousarray(work.data["x"]).view(np.uint32)
        self.words, self.nbytes = words, words.nbytes
        views = bind_views(ctx, COPY, words.size, {"x": words})
        self.source, self.target = views[0], views[1]
        seconds = device_seconds(ctx, COPY, views, words.size, env.sizes)

        def figure(schedule: Schedule) -> float:
            return bandwidth_gbps(2 * self.nbytes, seconds(schedule))

        def swept() -> tuple:
            tried, _, schedule = sweep_best(
                COPY,
                map_schedules(COPY, multiprocessors),
                figure,
                ctx.constraints,
                "wgsl",
                env.progress,
            )
            return tried, schedule

        # one sweep per size and run: the f32 and the f16 rows each copy their own bytes
        self.tried, self.schedule = env.memo(f"wgpu copy sweep {self.nbytes}", swept)
        self.shader = functools.partial(figure, self.schedule)
        self._checked(lambda: ctx.run_kernel(COPY, self.schedule, views, words.size), "shader")
        self._checked(self._copy_buffers, "copy_buffer_to_buffer")

    def _windows(self) -> list[tuple]:
        span = min(_CHECKED_BYTES, self.nbytes)
        starts = sorted({0, self.nbytes - span})
        return [(self.target.window(start, span), start // 4, span // 4) for start in starts]

    def _checked(self, run, what: str) -> None:
        windows = self._windows()
        for window, _, count in windows:
            self.ctx.write_view(window, np.full(count, _POISON, np.uint32))
        run()
        for window, first, count in windows:
            got = self.ctx.read_buffer_u32(window)
            if not np.array_equal(got[:count], self.words[first : first + count]):
                raise AssertionError(f"the wgpu {what} copy did not copy the bytes")

    def _copy_buffers(self, copies: int = 1) -> None:
        from backends.wgpu import wait_idle

        ctx, source, target = self.ctx, self.source, self.target
        device = ctx.device
        encoder = device.create_command_encoder()
        for _ in range(copies):
            encoder.copy_buffer_to_buffer(
                ctx.slab_buffer(source.slab),
                source.offset,
                ctx.slab_buffer(target.slab),
                target.offset,
                self.nbytes,
            )
        device.queue.submit([encoder.finish()])
        wait_idle(device)

    def buffer(self) -> float:
        seconds = median(host_seconds(lambda: self._copy_buffers(_COPIES), self.env.sizes.samples))
        return bandwidth_gbps(2 * self.nbytes * _COPIES, seconds)

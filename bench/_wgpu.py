"""P2 and P6: the wgpu backend (Vulkan on the same GPU). P2: the generated elementwise
kernels at the largest size a storage binding allows (up to P1's), timestamp-timed,
against the CUDA copy bandwidth of the same run; P6: ``run_kernel``'s host cost per
sample against a bare wgpu-py encode + submit loop in the same process."""

from __future__ import annotations

import functools
import time

import forge
from forge import BindingUsage, MemoryTopology, Schedule

from ._env import Bench
from ._report import (
    MIB,
    Goal,
    Row,
    bandwidth_gbps,
    format_bytes,
    guarded,
    memory_bound_bytes,
    roofline_work,
)
from ._timing import CudaTimer, alternate, host_seconds, median
from ._workload import (
    bind_views,
    check_map_output,
    device_seconds,
    host_array,
    host_seconds_per_sample,
    map_schedules,
    output_index,
    sweep_best,
    sweep_note,
)

__all__ = ["p2", "p6", "open_wgpu", "wgpu_buffer_bytes"]

_MAP_KERNELS = ("affine", "add")
_TINY = 1024
_COPIES = 10  # buffer copies per host-timed submit (informative copy bandwidth)


def open_wgpu(capacity_bytes: int = 16 * MIB, **options):
    """A wgpu context through the registry (``GpuUnavailable`` where there is none)."""
    return forge.open_context("wgpu", capacity_bytes=capacity_bytes, **options)


def wgpu_buffer_bytes(wanted: int, max_binding: int, max_buffer: int) -> int:
    """P2's bytes per buffer: ``wanted``, within one storage binding and with two of
    them in one buffer (add's inputs share the read slab), in whole 64 KiB."""
    size = min(wanted, max_binding, (max_buffer - MIB) // 2)
    return size // (64 << 10) * (64 << 10)


def _wait_idle(device) -> None:
    """Block until everything submitted to ``device`` is done (wgpu-py 0.32's
    ``on_submitted_work_done_sync`` fails inside its own cffi call, so the backend
    polls, and says so in ``backends.wgpu.wait_idle``)."""
    from backends.wgpu import wait_idle

    wait_idle(device)


def _adapter_note(ctx) -> str:
    a = ctx.adapter
    return f"{a.name} ({a.backend}, {a.device_type})"


# -- P2 ---------------------------------------------------------------------------------
def p2(env: Bench) -> list[Row]:
    def limits():
        with open_wgpu() as probe:
            c = probe.constraints
            return c.max_storage_binding_size, c.max_buffer_size

    max_binding, max_buffer = env.memo("wgpu limits", limits)
    nbytes = wgpu_buffer_bytes(env.sizes.buffer_bytes, max_binding, max_buffer)
    # Read-only views (two inputs of 'add', and the uniform) share one slab, outputs
    # another; no resident views are made, so that slab gets a token share.
    topology = MemoryTopology.split_by_usage(read=2000, read_write=1000, resident=1)
    capacity = -(-(2 * nbytes + MIB) * 3001 // 2000)
    env.progress(f"P2: {format_bytes(nbytes)} per buffer on wgpu (binding limit {max_binding})")
    baseline, timer = _cuda_copy(env, nbytes)
    try:
        with open_wgpu(capacity, topology=topology) as ctx:
            env.memo("wgpu adapter", ctx.adapter.as_dict)
            rows = [
                row
                for name in _MAP_KERNELS
                for row in guarded(
                    "P2",
                    f"{name} on wgpu",
                    functools.partial(_p2_kernel, env, ctx, name, nbytes, baseline),
                )
            ]
            rows += guarded(
                "P2", "wgpu copy_buffer_to_buffer", lambda: _wgpu_copy(env, ctx, nbytes, baseline)
            )
    finally:
        if timer is not None:
            timer.close()
    return rows


def _cuda_copy(env: Bench, nbytes: int):
    """(a function measuring the CUDA copy of ``nbytes``, or the exception that says
    why there is none; its timer)."""
    from ._cuda import copy_gbps

    try:
        ctx = env.cuda()
        source = ctx.allocate_transient(nbytes, 0)
        target = ctx.allocate_transient(nbytes, 1, usage=BindingUsage.STORAGE_READ_WRITE)
        timer = CudaTimer(ctx)
    except Exception as exc:  # noqa: BLE001 - the wgpu figures still stand alone
        return exc, None
    return copy_gbps(env, ctx, timer, source, target, nbytes), timer


def _with_baseline(env: Bench, baseline, ours) -> tuple:
    """(baseline median or None, ours median, every value, error text)."""
    if isinstance(baseline, Exception):
        values = {"ours": [ours() for _ in range(env.sizes.rounds)]}
        return (
            None,
            median(values["ours"]),
            values,
            f"no CUDA copy to compare with: {type(baseline).__name__}: {baseline}",
        )
    values = alternate({"baseline": baseline, "ours": ours}, env.sizes.rounds)
    return median(values["baseline"]), median(values["ours"]), values, ""


def _p2_kernel(env: Bench, ctx, name: str, nbytes: int, baseline) -> Row:
    ctx.clear_transient_allocations()
    kernel = forge.get_kernel(name)
    n = nbytes // 4
    data = {spec.name: host_array(n, seed=i) for i, spec in enumerate(kernel.inputs)}
    views = bind_views(ctx, kernel, n, data)
    moved = memory_bound_bytes(kernel, n)
    seconds = device_seconds(ctx, kernel, views, n, env.sizes)

    def ours(schedule) -> float:
        return bandwidth_gbps(moved, seconds(schedule))

    multiprocessors = None
    if not isinstance(baseline, Exception):
        multiprocessors = env.cuda().constraints.multiprocessor_count
    tried, winner, schedule = sweep_best(
        kernel, map_schedules(kernel, multiprocessors), ours, ctx.constraints, "wgsl", env.progress
    )
    base, mine, values, error = _with_baseline(env, baseline, lambda: ours(schedule))
    checked = check_map_output(
        kernel, data, ctx.read_buffer_f32(views[output_index(kernel)]), dict(kernel.defaults)
    )
    return Row(
        "P2",
        f"{name} {format_bytes(nbytes)}/buffer, wgpu",
        "CUDA cuMemcpyDtoD same size",
        base,
        mine,
        "GB/s",
        Goal(">=", 0.88),
        error=error,
        notes=(
            f"{_adapter_note(ctx)}, {ctx.timing_source}; {sweep_note(tried, winner)}; "
            f"output checked (max rel err {checked:.1e})"
        ),
        raw={
            "candidates": tried,
            "rounds": values,
            "work": roofline_work(kernel, n, "wgpu", moved / (mine * 1e9)),
        },
    )


def _wgpu_copy(env: Bench, ctx, nbytes: int, baseline) -> Row:
    """copy_buffer_to_buffer between the context's slabs (informative; host-timed over
    ``_COPIES`` copies per submit, as copies cannot carry pass timestamps)."""
    ctx.clear_transient_allocations()
    device = ctx.device
    source, target = ctx.slab_buffer(0), ctx.slab_buffer(1)

    def once() -> None:
        encoder = device.create_command_encoder()
        for _ in range(_COPIES):
            encoder.copy_buffer_to_buffer(source, 0, target, 0, nbytes)
        device.queue.submit([encoder.finish()])
        _wait_idle(device)

    def ours() -> float:
        return bandwidth_gbps(2 * nbytes * _COPIES, median(host_seconds(once, env.sizes.samples)))

    base, mine, values, error = _with_baseline(env, baseline, ours)
    return Row(
        "P2",
        f"wgpu copy_buffer_to_buffer {format_bytes(nbytes)} (reference)",
        "CUDA cuMemcpyDtoD same size",
        base,
        mine,
        "GB/s",
        None,
        error=error,
        notes=f"{_adapter_note(ctx)}; host-timed, {_COPIES} copies per submit",
        raw={"rounds": values},
    )


# -- P6 ---------------------------------------------------------------------------------
def p6(env: Bench) -> list[Row]:
    return guarded("P6", "run_kernel host overhead, wgpu", lambda: _p6(env))


class _BareLoop:
    """The tiny kernel through wgpu-py alone: its own pipeline, buffers and bind group
    on the context's device, and a loop of encode + submit per dispatch."""

    def __init__(self, ctx, kernel, schedule: Schedule, x) -> None:
        import wgpu

        device = self.device = ctx.device
        module = device.create_shader_module(code=ctx.kernel_source(kernel, schedule))
        self.pipeline = device.create_compute_pipeline(
            layout="auto", compute={"module": module, "entry_point": kernel.entry_point}
        )
        usage = wgpu.BufferUsage
        buffers = [
            device.create_buffer_with_data(data=x.tobytes(), usage=usage.STORAGE),
            device.create_buffer(size=x.nbytes, usage=usage.STORAGE),
            device.create_buffer_with_data(
                data=kernel.pack_uniform(_TINY).tobytes(), usage=usage.UNIFORM
            ),
        ]
        self.bind_group = device.create_bind_group(
            layout=self.pipeline.get_bind_group_layout(0),
            entries=[
                {"binding": i, "resource": {"buffer": b, "offset": 0, "size": b.size}}
                for i, b in enumerate(buffers)
            ],
        )
        self.buffers = buffers
        self.workgroups = kernel.workgroups(schedule, _TINY)
        self.timestamps = None
        if "timestamp-query" in device.features:
            self.queries = device.create_query_set(type="timestamp", count=2)
            self.timestamps = {
                "query_set": self.queries,
                "beginning_of_pass_write_index": 0,
                "end_of_pass_write_index": 1,
            }

    def per_dispatch(self, count: int, timed: bool = False) -> float:
        """Host seconds per dispatch of ``count``; ``timed`` adds timestamp writes to
        each pass, as ``run_kernel`` does (never read back: the cost of taking them)."""
        device, pipeline, group, workgroups = (
            self.device,
            self.pipeline,
            self.bind_group,
            self.workgroups,
        )
        writes = self.timestamps if timed else None
        start = time.perf_counter()
        for _ in range(count):
            encoder = device.create_command_encoder()
            compute = encoder.begin_compute_pass(timestamp_writes=writes)
            compute.set_pipeline(pipeline)
            compute.set_bind_group(0, group)
            compute.dispatch_workgroups(*workgroups)
            compute.end()
            device.queue.submit([encoder.finish()])
        _wait_idle(device)
        return (time.perf_counter() - start) / count

    def release(self) -> None:
        for buffer in self.buffers:
            buffer.destroy()
        if self.timestamps is not None:
            self.queries.destroy()


def _p6(env: Bench) -> Row:
    from backends.wgpu import SUBMIT_EVERY

    kernel, schedule = forge.get_kernel("affine"), Schedule(64)
    x = host_array(_TINY, 40)
    count = env.sizes.launch_samples
    with open_wgpu() as ctx:
        env.memo("wgpu adapter", ctx.adapter.as_dict)
        views = bind_views(ctx, kernel, _TINY, {"x": x})
        ctx.run_kernel(kernel, schedule, views, _TINY, warmups=10)
        bare = _BareLoop(ctx, kernel, schedule, x)

        def harness() -> float:
            return host_seconds_per_sample(ctx, kernel, schedule, views, _TINY, count)

        try:
            env.progress(f"P6: {count} dispatches per figure on {_adapter_note(ctx)}")
            figures = {"raw": lambda: bare.per_dispatch(count), "harness": harness}
            if bare.timestamps is not None:
                figures["raw_timed"] = lambda: bare.per_dispatch(count, timed=True)
            values = alternate(figures, env.sizes.rounds)
        finally:
            bare.release()
        adapter, timing = _adapter_note(ctx), ctx.timing_source
    raw, ours = median(values["raw"]) * 1e6, median(values["harness"]) * 1e6
    timed = (
        f"; the bare loop with timestamp writes in each pass: "
        f"{median(values['raw_timed']) * 1e6:.1f} us"
        if "raw_timed" in values
        else ""
    )
    return Row(
        "P6",
        "run_kernel per sample, tiny kernel, wgpu",
        "wgpu-py encode + submit per dispatch",
        raw,
        ours,
        "us",
        Goal("<=", 1.2),
        notes=(
            f"{adapter}, {timing}; run_kernel encodes a timestamped pass per sample "
            f"and submits {SUBMIT_EVERY} at a time{timed}"
        ),
        raw={"rounds_us": {k: [v * 1e6 for v in vs] for k, vs in values.items()}, "samples": count},
    )

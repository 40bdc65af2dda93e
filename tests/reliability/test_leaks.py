"""Leaks: creating and closing many contexts and views leaves no live native objects
and no growth in device memory."""

from __future__ import annotations

import contextlib
import gc
import os
import weakref

import numpy as np

import forge
from forge import BindingUsage, Schedule
from oracle.pytest_plugin import require_available

CONTEXTS = 200
VIEWS = 10_000


def _native_counts(backend: str) -> dict[str, int]:
    """Live native objects of ``backend`` that the process can count."""
    gc.collect()
    if backend == "wgpu":
        from wgpu import diagnostics

        counts = diagnostics.object_counts.get_dict()
        return {name: row["count"] for name, row in counts.items() if name != "total"}
    if backend == "cuda":
        from backends.cuda import _memory, _resources

        objects = gc.get_objects()
        live = [
            o for o in objects if isinstance(o, _resources.Resources) and not o.primary.released
        ]
        # Staging pools grow lazily up to a fixed number of buffers (a bound, not a
        # leak); every other pinned allocation counts.
        pooled = sum(len(res.staging._buffers) for res in live if res.staging is not None)
        pinned = sum(isinstance(o, _memory.PinnedAllocation) for o in objects)
        return {"contexts": len(live), "pinned outside staging pools": pinned - pooled}
    if backend == "browser":
        from backends.browser import _chromium, _server

        # Closed contexts give healthy tabs back to a pool of at most two (a bound).
        return {"tabs": _chromium.live_tabs(), "servers": _server.live_servers()}
    return {}


@contextlib.contextmanager
def _device_memory_probe(backend: str):
    """Yields a function returning the device memory in use (None where the backend
    cannot tell). For CUDA it is this process's own use where NVML can name it (other
    processes on the GPU, such as the suite's other groups, are not counted), else the
    whole GPU's by cuMemGetInfo; it holds a retain of the primary context for the whole
    test, so closing the last forge context does not destroy the context it measures in."""
    if backend != "cuda":
        yield lambda: _device_memory_used(backend)
        return
    from backends.cuda._driver import PrimaryContext, call, driver

    primary = PrimaryContext(0)

    def whole_gpu() -> int:
        primary.make_current()
        free, total = call(driver.cuMemGetInfo)
        return total - free

    try:
        yield _this_process_on_gpu(0) or whole_gpu
    finally:
        primary.release()


def _this_process_on_gpu(index: int):
    """A function giving this process's device memory on GPU ``index`` by NVML, or None
    where NVML is missing or does not list this process (a PID namespace hides it)."""
    try:
        import pynvml

        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByIndex(index)
    except Exception:  # no nvidia-ml-py, or no NVML on this machine
        return None

    def used() -> int | None:
        for proc in pynvml.nvmlDeviceGetComputeRunningProcesses(handle):
            if proc.pid == os.getpid() and proc.usedGpuMemory is not None:
                return int(proc.usedGpuMemory)
        return None

    return used if used() is not None else None


def _device_memory_used(backend: str) -> int | None:
    if backend == "wgpu":
        from wgpu import diagnostics

        return diagnostics.object_counts.get_dict()["total"].get("resource_mem", 0)
    return None


def _use(ctx, kernel, i: int) -> None:
    x = np.full(64, i, np.float32)
    views = [
        ctx.allocate_and_write(x, 0),
        ctx.allocate_transient(x.nbytes, 1, usage=BindingUsage.STORAGE_READ_WRITE),
        ctx.allocate_and_write(kernel.pack_uniform(x.size), 2, usage=BindingUsage.UNIFORM),
    ]
    ctx.run_kernel(kernel, Schedule(64), views, x.size)
    assert ctx.read_buffer_f32(views[1])[0] == 2.0 * i + 0.5


def test_creating_and_closing_contexts_leaks_nothing(request, forge_backend_name):
    require_available(request.config, forge_backend_name)
    kernel = forge.get_kernel("raw_affine")
    with _device_memory_probe(forge_backend_name) as memory_used:
        # One context first: libraries keep process-wide state (adapters, module
        # caches) that the first use creates once.
        with forge.open_context(forge_backend_name, capacity_bytes=1 << 20) as ctx:
            _use(ctx, kernel, 0)
        before_objects = _native_counts(forge_backend_name)
        before_memory = memory_used()
        refs = _open_and_close(forge_backend_name, kernel)
        after_memory = memory_used()
        growth = [] if before_memory is None else [after_memory - before_memory]
        while growth and min(growth) >= 8 << 20 and len(growth) < 3:
            # The whole GPU's count moves with other processes' use: a leak grows again in
            # every round of as many contexts, their noise not in all three.
            start = memory_used()
            refs += _open_and_close(forge_backend_name, kernel)
            growth.append(memory_used() - start)
    assert sum(r() is not None for r in refs) == 0, "closed contexts are kept alive"
    assert _native_counts(forge_backend_name) == before_objects
    if growth:
        # Device memory is allocated in pages; a leak of one 1 MiB slab per context would
        # show as 200 MiB, in each round.
        assert min(growth) < 8 << 20, (before_memory, growth)


def _open_and_close(backend: str, kernel) -> list:
    """CONTEXTS contexts opened and closed (every 20th used); weak references to them."""
    refs = []
    for i in range(CONTEXTS):
        ctx = forge.open_context(backend, capacity_bytes=1 << 20)
        if i % 20 == 0:
            _use(ctx, kernel, i)
        ctx.close()
        refs.append(weakref.ref(ctx))
        del ctx
    gc.collect()
    return refs


def test_ten_thousand_views_leave_nothing_behind(forge_context):
    ctx = forge_context
    backend = ctx.backend_name
    kernel = forge.get_kernel("raw_affine")

    def churn(count: int) -> None:
        for i in range(count):
            view = ctx.allocate_and_write(np.full(16, i, np.float32), 0)
            if i % 1000 == 0:
                assert ctx.read_buffer_f32(view)[0] == i
                _use(ctx, kernel, i)
            ctx.clear_transient_allocations()

    # A first round lets lazily grown pools (readback and staging buffers, pipelines)
    # reach their working size; a leak is growth after that.
    churn(2000)
    before_objects = _native_counts(backend)
    churn(VIEWS)
    assert ctx.allocator.live_views() == 0
    after = _native_counts(backend)
    # Pipelines and bind groups compiled for the kernel are cached on purpose; nothing
    # else may grow with the number of views.
    cached = {"ComputePipeline", "BindGroup", "BindGroupLayout", "PipelineLayout", "ShaderModule"}
    grown = {
        k: (before_objects.get(k, 0), v)
        for k, v in after.items()
        if v > before_objects.get(k, 0) and k not in cached
    }
    assert not grown, f"native objects grew with the number of views: {grown}"

"""The browser backend (WebGPU in headless Chromium) beyond the conformance suite: its
loopback server refuses what lacks the secret and the page loads nothing from
elsewhere; bytes of any length survive both transfer paths; Tint's errors come back
with line and column, validation errors typed; a destroyed device, a crashed renderer
and a crashed GPU process each lose the context and a fresh one works; timing says its
source; a missing Playwright or Chromium is reported with the command that installs it.
"""

from __future__ import annotations

import http.client
import importlib.util
import os
import re
import signal

import numpy as np
import pytest

import forge
from backends.browser import _chromium
from backends.browser._page import INLINE_LIMIT, PART
from backends.browser._server import LoopbackServer
from forge import (
    Access,
    BindingUsage,
    BufferSpec,
    CompileError,
    DeviceLost,
    GpuValidation,
    KernelSpec,
    Schedule,
)
from oracle.pytest_plugin import require_available

RW = BindingUsage.STORAGE_READ_WRITE
UNIFORM = BindingUsage.UNIFORM
N = 256


@pytest.fixture
def ctx(request):
    require_available(request.config, "browser")
    context = forge.open_context("browser")
    try:
        yield context
    finally:
        context.close()


def _get(server: LoopbackServer, path: str, host: str | None = None) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection(server.host, server.port, timeout=10)
    try:
        headers = {"Host": host} if host else {}
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


# -- the loopback server -------------------------------------------------------------
def test_the_server_listens_on_loopback_only_and_refuses_requests_without_the_secret():
    server = LoopbackServer()
    try:
        assert server.host == "127.0.0.1" and server.port > 0
        status, page = _get(server, f"/{server.secret}/")
        assert status == 200 and b"kforge.js" in page
        for path in (
            "/",
            "/kforge.js",
            "/channel",
            f"/{server.secret[:-1]}x/",
            f"/x{server.secret}/kforge.js",
            "/favicon.ico",
        ):
            assert _get(server, path)[0] == 403, path
        # the right secret under another host name (DNS rebinding) is refused too
        assert _get(server, f"/{server.secret}/", host=f"localhost:{server.port}")[0] == 403
    finally:
        server.close()


def test_bulk_transfers_are_served_once_and_only_to_their_own_path():
    server = LoopbackServer()
    try:
        path = server.offer(memoryview(b"0123456789"))
        assert _get(server, path.replace(server.secret, "wrong"))[0] == 403
        assert _get(server, path) == (200, b"0123456789")
        assert _get(server, path)[0] == 404  # used once
    finally:
        server.close()


def test_the_page_loads_nothing_from_anywhere_but_its_server(request):
    require_available(request.config, "browser")
    server = LoopbackServer()
    requested = []

    def load(browser):  # on Playwright's thread
        context = browser.new_context()
        tab = context.new_page()
        tab.on("request", lambda r: requested.append(r.url))
        return context, tab.goto(server.url).headers["content-security-policy"]

    context, policy = _chromium.in_browser(load, _chromium.shared_browser())
    try:
        server.channel(30).close()  # the page connected its channel
        assert "default-src 'none'" in policy and "script-src 'self'" in policy
        origin = f"http://{server.host}:{server.port}/{server.secret}/"
        assert requested and all(url.startswith(origin) for url in requested), requested
    finally:
        _chromium.close_tab(context)
        server.close()


# -- bytes -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "size", [1, 3, 5, 4097, INLINE_LIMIT - 1, INLINE_LIMIT + 3, 3 * INLINE_LIMIT + 1, PART + 5]
)  # the last read in 2 parts
def test_bytes_of_any_length_round_trip_inline_and_over_http(ctx, size):
    data = np.random.default_rng(size).integers(0, 256, size, dtype=np.uint8)
    view = ctx.allocate_and_write(data, 0)
    padded = ctx.allocate_transient(size + 7, 1, usage=RW)
    ctx.write_view(padded, np.full(size + 7, 0xAB, np.uint8))
    ctx.write_view(padded, data)  # a prefix: the 7 bytes after it keep their value
    for target in (view, padded):
        words = np.zeros(-(-target.length_bytes // 4) * 4, np.uint8)
        got = memoryview(words)
        ctx._read_into(target, got[: target.length_bytes])  # any length, not only words
        assert bytes(words[:size]) == data.tobytes()
    assert bytes(words[size : size + 7]) == b"\xab" * 7


def test_deferred_writes_land_before_the_kernel_that_reads_them(ctx):
    kernel = forge.get_kernel("raw_affine")
    x = np.arange(N, dtype=np.float32)
    views = [
        ctx.allocate_and_write(x, 0),
        ctx.allocate_transient(N * 4, 1, usage=RW),
        ctx.allocate_and_write(kernel.pack_uniform(N, a=3.0, b=1.0), 2, usage=UNIFORM),
    ]
    x[:] = -1  # written already: changing the caller's array afterwards changes nothing
    ctx.run_kernel(kernel, Schedule(64), views, N)
    np.testing.assert_array_equal(ctx.read_buffer_f32(views[1]), 3 * np.arange(N) + 1)


# -- errors ----------------------------------------------------------------------------
_FILL = """\
@group(0) @binding(0) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(64)
fn fill(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x < arrayLength(&y)) { y[g.x] = VALUE; }
}
"""


def _fill(value: str, kernel_id: str = "test_browser_fill", fixed: int | None = None) -> KernelSpec:
    source = _FILL.replace("VALUE", value)
    if fixed is not None:
        source = source.replace("array<f32>", f"array<f32, {fixed}>").replace(
            "arrayLength(&y)", f"{fixed}u"
        )
    return KernelSpec(
        id=kernel_id,
        entry_point="fill",
        sources={"wgsl": source},
        buffers=(BufferSpec(0, "f32", Access.READ_WRITE, name="y"),),
    )


def test_tint_errors_are_compile_errors_with_line_and_column(ctx):
    broken = _fill("7u", "test_browser_type_error")  # a u32 stored into an f32 array
    y = ctx.allocate_transient(N * 4, 0, usage=RW)
    with pytest.raises(CompileError) as info:
        ctx.run_kernel(broken, Schedule(64), [y], N)
    error = info.value
    assert error.target == "wgsl" and error.source == broken.sources["wgsl"]
    assert re.search(r"^5:\d+: error: .*u32", error.log, re.M), error.log
    assert "Tint" in str(error)
    ctx.run_kernel(_fill("7.0"), Schedule(64), [y], N)  # the context is still usable
    assert ctx.read_buffer_f32(y).tolist() == [7.0] * N


def test_a_constant_infinity_is_refused_by_tint_though_naga_accepts_it(request, ctx):
    """Where the two WGSL compilers disagree: a const-expression that evaluates to an
    infinity is a shader-creation error in the WGSL spec, which Tint enforces."""
    kernel = _fill("bitcast<f32>(0x7f800000u)", "test_browser_const_inf")
    y = ctx.allocate_transient(N * 4, 0, usage=RW)
    with pytest.raises(CompileError, match="Tint") as info:
        ctx.run_kernel(kernel, Schedule(64), [y], N)
    assert re.search(r"^5:\d+: error: .*inf", info.value.log, re.M), info.value.log
    require_available(request.config, "wgpu")
    from backends.wgpu import validate_wgsl

    # naga alone lets it pass; kernel-forge refuses it on wgpu too (round 25), saying why
    with pytest.raises(CompileError, match="Tint refuses it") as info:
        validate_wgsl(kernel.sources["wgsl"], "fill")
    assert re.search(r"^5:\d+: error: bitcast<f32>\(0x7f800000u\)", info.value.log, re.M)


def test_validation_errors_are_gpu_validation_with_dawns_message(ctx):
    fixed = _fill("7.0", "test_browser_fixed", fixed=1024)  # needs 4096 bytes bound
    y = ctx.allocate_transient(N * 4, 0, usage=RW)
    for call in (ctx.run_kernel, ctx.dispatch):
        with pytest.raises(GpuValidation, match="bound with size 1024 .* at least 4096 bytes"):
            call(fixed, Schedule(64), [y], N)
    ctx.run_kernel(_fill("7.0"), Schedule(64), [y], N)
    assert ctx.read_buffer_f32(y).tolist() == [7.0] * N


def _fault_then_fresh_context_works(ctx, fault) -> None:
    kernel = _fill("7.0")
    y = ctx.allocate_transient(N * 4, 0, usage=RW)
    ctx.run_kernel(kernel, Schedule(64), [y], N)
    fault(ctx)
    with pytest.raises(DeviceLost):
        ctx.run_kernel(kernel, Schedule(64), [y], N)
        ctx.read_buffer_f32(y)
    assert ctx.lost
    for call in (
        lambda: ctx.read_buffer_f32(y),
        lambda: ctx.allocate_transient(16, 0),
        ctx.clear_transient_allocations,
        lambda: ctx.wait(),
    ):
        with pytest.raises(DeviceLost):
            call()
    ctx.close()
    with forge.open_context("browser") as fresh:
        y = fresh.allocate_transient(N * 4, 0, usage=RW)
        fresh.run_kernel(kernel, Schedule(64), [y], N)
        assert fresh.read_buffer_f32(y).tolist() == [7.0] * N


def test_a_destroyed_device_loses_the_context_and_a_fresh_one_works(ctx):
    _fault_then_fresh_context_works(
        ctx,
        lambda c: c.in_page(
            lambda page: page.evaluate(
                "async () => { kforge.device.destroy(); await kforge.device.lost; }"
            )
        ),
    )


def test_a_crashed_renderer_loses_the_context_and_a_fresh_one_works(ctx):
    def crash(c):
        # Killed from outside, as a crash would end it (CDP's Page.crash can leave
        # Playwright waiting for an answer that never comes).
        processes = c.in_page(
            lambda page: page.context.browser.new_browser_cdp_session().send(
                "SystemInfo.getProcessInfo"
            )
        )["processInfo"]
        renderers = [p["id"] for p in processes if p["type"] == "renderer"]
        assert renderers, processes
        for pid in renderers:
            os.kill(pid, signal.SIGKILL)

    _fault_then_fresh_context_works(ctx, crash)


def test_a_crashed_gpu_process_loses_the_context_and_a_fresh_one_works(ctx):
    def crash(c):
        def in_page(page):
            page.context.browser.new_browser_cdp_session().send("Browser.crashGpuProcess")
            page.evaluate("() => kforge.device.lost")  # Chromium reports the loss

        c.in_page(in_page)

    _fault_then_fresh_context_works(ctx, crash)


# -- timing and identity ---------------------------------------------------------------
def test_samples_are_timed_on_the_device_or_honestly_on_the_host(request):
    require_available(request.config, "browser")
    kernel = _fill("7.0")
    for options, source in (({}, None), ({"timestamps": False}, "host-wall-clock")):
        with forge.open_context("browser", **options) as ctx:
            if source is None:  # SwiftShader's timestamps are not quantized
                source = "gpu-timestamp" if ctx.constraints.timestamp_query else "host-wall-clock"
            assert ctx.timing_source == source
            y = ctx.allocate_transient(N * 4, 0, usage=RW)
            times = ctx.run_kernel(kernel, Schedule(64), [y], N, warmups=2, samples=300)
            assert len(times) == 300 and min(times) > 0  # two timestamp batches
            assert ctx.read_buffer_f32(y).tolist() == [7.0] * N


def test_identity_and_limits_come_from_the_adapter(ctx):
    adapter, c = ctx.adapter, ctx.constraints
    assert adapter.backend == "WebGPU (Dawn)" and "Chromium" in adapter.driver_info
    assert adapter.name and adapter.driver
    assert c.max_storage_binding_size >= 128 << 20 and c.max_invocations_per_workgroup >= 256
    assert c.min_storage_offset_alignment in (32, 64, 128, 256)


# -- availability ------------------------------------------------------------------------
def test_a_missing_playwright_or_chromium_is_reported_with_its_install_command(monkeypatch):
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "playwright" else real_find_spec(name, *a),
    )
    assert _chromium.missing() == (
        "Playwright for Python is not installed; install it "
        "with: pip install 'kernel-forge[browser]'"
    )
    # From here Playwright is present (whether or not it is installed here): the
    # Chromium it drives is what is missing.
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: object() if name == "playwright" else real_find_spec(name, *a),
    )
    monkeypatch.setenv("FORGE_CHROMIUM", "/nonexistent/chromium")
    assert "FORGE_CHROMIUM=/nonexistent/chromium" in _chromium.missing()
    monkeypatch.delenv("FORGE_CHROMIUM")
    monkeypatch.setattr(_chromium, "_CANDIDATES", ("/nonexistent/chromium",))
    monkeypatch.setenv("PATH", "/nonexistent")
    assert _chromium.missing() == (
        "no Chromium found; install it with: sudo apt-get install -y chromium"
    )
    ok, reason = forge.registry.backend_entries()["browser"].availability()
    assert not ok and "apt-get install -y chromium" in reason


def test_the_backend_registers_through_its_entry_point_as_a_plugin_would():
    entry = forge.registry.backend_entries()["browser"]
    assert entry.preference == 10 and entry.device_code
    assert entry.origin.startswith("kernel-forge")

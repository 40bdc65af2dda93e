"""One wgpu context and one browser page per test module that asks for them (a page
takes a second to open), shared by the WGSL binding tests. A module imports ``ctx``
(parametrised over both backends, skipped as ``require_available`` says) and
``close_webgpu_contexts`` (autouse: closes what the module opened when it ends), and
calls ``webgpu_context(backend)`` where it needs one backend alone."""

from __future__ import annotations

import pytest

from oracle.pytest_plugin import require_available

_OPENED: dict = {}


def webgpu_context(backend: str):
    """The module's context of ``backend`` ("wgpu" or "browser"), opened on first use."""
    if backend not in _OPENED:
        if backend == "wgpu":
            from backends.wgpu import WgpuComputeContext

            _OPENED[backend] = WgpuComputeContext(16 << 20)
        else:
            from backends.browser import BrowserComputeContext

            _OPENED[backend] = BrowserComputeContext(16 << 20)
    return _OPENED[backend]


@pytest.fixture(scope="module", autouse=True)
def close_webgpu_contexts():
    yield
    while _OPENED:
        _OPENED.popitem()[1].close()


@pytest.fixture(params=["wgpu", "browser"])
def ctx(request):
    require_available(request.config, request.param)
    return webgpu_context(request.param)

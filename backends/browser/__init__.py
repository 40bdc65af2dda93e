"""The browser backend: WebGPU in headless Chromium (Dawn runs the device, Tint
compiles the WGSL), driven through Playwright, so that one WGSL kernel is judged on
the compiler browsers ship beside naga (the wgpu backend).

Importing this package imports neither Playwright nor anything that starts a browser;
``BrowserComputeContext`` and ``INLINE_LIMIT`` (the largest transfer, in bytes, that
rides inside the page's messages; larger ones go over HTTP) are loaded on first use.
Availability says what is missing (Playwright, Chromium) with the command that installs
it, or opens a page and names the adapter it got.
"""

from __future__ import annotations

from forge import _checks
from forge.registry import BackendEntry

__all__ = ["BrowserComputeContext", "INLINE_LIMIT", "entry"]


def _availability() -> tuple[bool, str]:
    from ._chromium import missing

    problem = missing()
    if problem:
        return False, problem
    from ._context import probe

    return probe()


def _open(**options):
    from ._context import BrowserComputeContext

    _checks.options(BrowserComputeContext, options, "the browser backend")
    return BrowserComputeContext(**options)


def __getattr__(name: str):
    if name == "BrowserComputeContext":
        from ._context import BrowserComputeContext

        return BrowserComputeContext
    if name == "INLINE_LIMIT":
        from ._page import INLINE_LIMIT

        return INLINE_LIMIT
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


entry = BackendEntry(
    name="browser",
    open=_open,
    availability=_availability,
    preference=10,
    device_code=True,
    description="WebGPU in headless Chromium (Dawn, Tint) through Playwright",
)

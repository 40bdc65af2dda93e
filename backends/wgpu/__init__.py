"""The wgpu backend (wgpu-py): WebGPU compute on Vulkan, Metal or D3D12.

Importing this package does not import wgpu; ``WgpuComputeContext`` and
``validate_wgsl`` (naga through wgpu, raising ``forge.CompileError``) are loaded on
first use.
"""

from __future__ import annotations

import importlib.util

from forge import _checks
from forge.registry import BackendEntry

__all__ = ["WgpuComputeContext", "validate_wgsl", "entry"]


def _availability() -> tuple[bool, str]:
    if importlib.util.find_spec("wgpu") is None:
        return False, "wgpu-py is not installed (pip install wgpu)"
    from ._device import probe_adapter

    return probe_adapter()


def _open(**options):
    from ._context import WgpuComputeContext

    _checks.options(WgpuComputeContext, options, "the wgpu backend")
    return WgpuComputeContext(**options)


def __getattr__(name: str):
    if name == "WgpuComputeContext":
        from ._context import WgpuComputeContext

        return WgpuComputeContext
    if name == "validate_wgsl":
        from ._device import validate_wgsl

        return validate_wgsl
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


entry = BackendEntry(
    name="wgpu",
    open=_open,
    availability=_availability,
    preference=20,
    description="WebGPU through wgpu-py (Vulkan/Metal/D3D12), timestamp-query timing",
)

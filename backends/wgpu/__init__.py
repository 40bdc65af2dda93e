"""The wgpu backend (wgpu-py): WebGPU compute on Vulkan, Metal or D3D12.

Importing this package does not import wgpu; ``WgpuComputeContext``,
``validate_wgsl`` (naga through wgpu, raising ``forge.CompileError``),
``wait_idle(device)`` (block until everything submitted to a ``wgpu.GPUDevice``, such
as ``WgpuComputeContext.device``, is done) and ``SUBMIT_EVERY`` (the timed passes
``run_kernel`` encodes per submit) are loaded on first use.

Inside: ``_device`` (adapters, devices, and the one point where wgpu's errors become
``ForgeError``s, device loss included), ``_native`` (every use of wgpu-py's private
internals, checked against the wgpu-py versions it was written for) and ``_context``
(the context itself).
"""

from __future__ import annotations

import importlib
import importlib.util

from forge import _checks
from forge.registry import BackendEntry

__all__ = ["WgpuComputeContext", "validate_wgsl", "wait_idle", "SUBMIT_EVERY", "entry"]

# Public name -> (internal module, attribute), imported on first access.
_LAZY = {
    "WgpuComputeContext": ("_context", "WgpuComputeContext"),
    "validate_wgsl": ("_device", "validate_wgsl"),
    "wait_idle": ("_native", "wait_idle"),
    "SUBMIT_EVERY": ("_context", "_SUBMIT_EVERY"),
}


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
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attribute = _LAZY[name]
    return getattr(importlib.import_module(f"{__name__}.{module}"), attribute)


entry = BackendEntry(
    name="wgpu",
    open=_open,
    availability=_availability,
    preference=20,
    description="WebGPU through wgpu-py (Vulkan/Metal/D3D12), timestamp-query timing",
)

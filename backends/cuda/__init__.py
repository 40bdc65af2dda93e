"""The CUDA backend (cuda-python: driver API + NVRTC).

Importing this package does not import cuda; ``CudaComputeContext`` and the NVRTC
compiler are loaded on first use.
"""

from __future__ import annotations

import functools
import importlib.util

from forge.registry import BackendEntry

__all__ = ["CudaComputeContext", "CapturedCudaGraph", "entry"]


@functools.lru_cache(maxsize=None)
def _availability() -> tuple[bool, str]:
    if importlib.util.find_spec("cuda") is None or importlib.util.find_spec("cuda.bindings") is None:
        return False, "cuda-python is not installed (pip install cuda-bindings)"
    from ._driver import probe_device

    return probe_device()


def _open(**options):
    from ._context import CudaComputeContext

    return CudaComputeContext(**options)


def __getattr__(name: str):
    if name in ("CudaComputeContext", "CapturedCudaGraph"):
        from . import _context

        return getattr(_context, name)
    raise AttributeError(name)


entry = BackendEntry(
    name="cuda",
    open=_open,
    availability=_availability,
    description="CUDA driver API + NVRTC through cuda-python, CUDA-event timing",
)

"""The CUDA backend (cuda-python: driver API + NVRTC).

Importing this package does not import cuda; ``CudaComputeContext`` and the NVRTC
compiler (``compile_cuda``, which needs no GPU) are loaded on first use.

Inside: ``_driver`` (the CUresult/nvrtcResult translation point, device probing, the
primary context), ``_nvrtc`` (compiles and their disk cache), ``_modules`` (the one
NVRTC module a kernel's launches compile to, and compiling it ahead with no context:
the entry's ``compile_ahead``), ``_memory`` (pinned memory and staged copies),
``_resources`` (a context's native handles: the slab, streams, events, modules,
graphs, and their release), ``_graphs`` (captured graphs, and the cached graphs that
replay ``run_kernel``'s timed samples), and ``_context``
(the context itself: synchronisation, bytes in and out, compiles and launches). Its
speed is measured by the repository's ``python -m bench`` (docs/PERFORMANCE.md).

For code that measures the backend against bare driver calls (the bench), the package
also exports, on first access: ``driver``, the ``cuda.bindings.driver`` module every
call of the backend goes through (the simulated driver, where a test installs one), and
``driver_call(function, *args)``, which calls it and raises the backend's typed
``ForgeError`` for a failed CUresult (returning None, the one value, or the tuple of
values); ``Copier`` (host-to-host copies on a pool of threads, as staged uploads make
them) and ``host_cores()`` (the cores this process may run on).
"""

from __future__ import annotations

import importlib.util
import os

from forge import _checks
from forge.registry import BackendEntry

from ._headers import INSTALL_HINT

__all__ = [
    "CudaComputeContext",
    "CapturedCudaGraph",
    "compile_cuda",
    "compile_module",
    "ptxas_report",
    "compile_stats",
    "nvrtc_version",
    "driver",
    "driver_call",
    "Copier",
    "host_cores",
    "entry",
]

# Public name -> (internal module, attribute), imported on first access.
_LAZY = {
    "CudaComputeContext": ("_context", "CudaComputeContext"),
    "CapturedCudaGraph": ("_graphs", "CapturedCudaGraph"),
    "compile_cuda": ("_nvrtc", "compile_cuda"),
    "compile_module": ("_nvrtc", "compile_module"),
    "ptxas_report": ("_nvrtc", "ptxas_report"),
    "compile_stats": ("_nvrtc", "STATS"),
    "nvrtc_version": ("_nvrtc", "nvrtc_version"),
    # Read from _driver at each access, so that a simulated driver installed there is seen.
    "driver": ("_driver", "driver"),
    "driver_call": ("_driver", "call"),
    "Copier": ("_memory", "Copier"),
    "host_cores": ("_memory", "host_cores"),
}


#: How to get the CUDA backend: the ``cuda`` extra (cuda-python, NVRTC, CUDA's headers).
INSTALL_COMMAND = INSTALL_HINT


def _availability() -> tuple[bool, str]:
    find_spec = importlib.util.find_spec
    if find_spec("cuda") is None or find_spec("cuda.bindings") is None:
        return False, f"the CUDA extra is not installed (cuda-python is missing): {INSTALL_COMMAND}"
    from ._probe import probe_device

    return probe_device()


def _device_count() -> int:
    """NVIDIA GPUs this process may use, without importing cuda: the entries of
    ``CUDA_VISIBLE_DEVICES`` when it is set, else the driver's ``/proc`` listing (1
    when neither says)."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return len([d for d in visible.split(",") if d.strip() and not d.strip().startswith("-")])
    try:
        return max(1, len(os.listdir("/proc/driver/nvidia/gpus")))
    except OSError:
        return 1


def _open(**options):
    from ._context import CudaComputeContext

    _checks.options(CudaComputeContext, options, "the cuda backend")
    return CudaComputeContext(**options)


def _compile_ahead(kernel, schedule, size, adapter, constraints) -> None:
    """``BackendEntry.compile_ahead``: NVRTC compiles, into the disk cache, what a
    context on a device of ``adapter.architecture`` will load for this run (a local
    worker's context reads the same cache root)."""
    from ._modules import compile_ahead

    compile_ahead(
        kernel, schedule, size, adapter.architecture, constraints.max_workgroups_per_dimension[0]
    )


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attribute = _LAZY[name]
    return getattr(importlib.import_module(f"{__name__}.{module}"), attribute)


entry = BackendEntry(
    name="cuda",
    open=_open,
    availability=_availability,
    preference=30,
    description="CUDA driver API + NVRTC through cuda-python, CUDA-event timing",
    devices=_device_count,
    device_option="device",
    compile_ahead=_compile_ahead,
)

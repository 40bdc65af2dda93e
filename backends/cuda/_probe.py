"""Whether the CUDA backend can run here (the registry's availability check): the
driver, a device and NVRTC, each asked without retaining a context."""

from __future__ import annotations

from forge.errors import CompileError, DeviceLost, GpuUnavailable, GpuValidation

from ._driver import device_info
from ._nvrtc import nvrtc_version

__all__ = ["probe_device"]


def probe_device(ordinal: int = 0) -> tuple[bool, str]:
    """Whether the CUDA backend can run here, with the reason: cuda-python, the driver
    library, ``cuInit``, a device, and NVRTC are all needed. Retains no context."""
    try:
        info = device_info(ordinal)
        nvrtc = nvrtc_version()
    except (GpuUnavailable, GpuValidation, DeviceLost, CompileError) as exc:
        return False, str(exc)
    major, minor = info.driver_version
    return True, (
        f"{info.name} ({info.arch}), CUDA driver {major}.{minor}, NVRTC {nvrtc[0]}.{nvrtc[1]}"
    )

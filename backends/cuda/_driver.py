"""The CUDA driver through ``cuda.bindings``: the one translation point for CUresult and
nvrtcResult (``check``), driver start-up and device probing, a retained primary
context, and the device's identity and limits read from its attributes.

Importing this module does not load ``libcuda``: cuda.bindings loads it on the first
driver call, which is why a missing driver surfaces from ``init_driver`` (as
``GpuUnavailable``) and not at import.
"""

from __future__ import annotations

import functools
import weakref
from dataclasses import dataclass

from forge.errors import (
    AllocationError,
    CompileError,
    DeviceLost,
    GpuUnavailable,
    GpuValidation,
    UnsupportedFeature,
)

try:
    from cuda.bindings import driver
except ImportError as exc:  # the package __init__ checks first; this is a backstop
    raise GpuUnavailable(
        f"cuda-python is not installed ({exc}); pip install cuda-bindings"
    ) from exc

__all__ = [
    "check",
    "call",
    "error_for",
    "init_driver",
    "PrimaryContext",
    "DeviceInfo",
    "device_info",
    "driver",
]

# Errors after which the context is unusable (CUDA calls them sticky): every later call
# in the context fails the same way until the context is destroyed.
_LOST = frozenset(
    {
        "CUDA_ERROR_ILLEGAL_ADDRESS",
        "CUDA_ERROR_LAUNCH_FAILED",
        "CUDA_ERROR_ILLEGAL_INSTRUCTION",
        "CUDA_ERROR_MISALIGNED_ADDRESS",
        "CUDA_ERROR_INVALID_ADDRESS_SPACE",
        "CUDA_ERROR_INVALID_PC",
        "CUDA_ERROR_HARDWARE_STACK_ERROR",
        "CUDA_ERROR_ASSERT",
        "CUDA_ERROR_LAUNCH_TIMEOUT",
        "CUDA_ERROR_ECC_UNCORRECTABLE",
        "CUDA_ERROR_NVLINK_UNCORRECTABLE",
        "CUDA_ERROR_CONTEXT_IS_DESTROYED",
        "CUDA_ERROR_DEVICE_UNAVAILABLE",
        "CUDA_ERROR_CONTAINED",
        "CUDA_ERROR_TENSOR_MEMORY_LEAK",
        "CUDA_ERROR_DEINITIALIZED",
        "CUDA_ERROR_EXTERNAL_DEVICE",
    }
)
_OUT_OF_MEMORY = frozenset({"CUDA_ERROR_OUT_OF_MEMORY", "NVRTC_ERROR_OUT_OF_MEMORY"})
_UNAVAILABLE = frozenset(
    {
        "CUDA_ERROR_NO_DEVICE",
        "CUDA_ERROR_NOT_INITIALIZED",
        "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
        "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
        "CUDA_ERROR_DEVICE_NOT_LICENSED",
        "CUDA_ERROR_INVALID_DEVICE",
        "CUDA_ERROR_STUB_LIBRARY",
        "CUDA_ERROR_SYSTEM_NOT_READY",
        "CUDA_ERROR_OPERATING_SYSTEM",
    }
)
# The driver refused the module image: a compile problem as far as a kernel author cares.
_IMAGE = frozenset(
    {
        "CUDA_ERROR_INVALID_IMAGE",
        "CUDA_ERROR_INVALID_PTX",
        "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
        "CUDA_ERROR_NO_BINARY_FOR_GPU",
        "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
        "CUDA_ERROR_JIT_COMPILATION_DISABLED",
        "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED",
        "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND",
        "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC",
    }
)
_UNSUPPORTED = frozenset({"CUDA_ERROR_NOT_SUPPORTED", "CUDA_ERROR_NOT_PERMITTED"})


def _describe(err) -> str:
    """The driver's own sentence for ``err`` (empty when the driver cannot say)."""
    if type(err).__name__ != "CUresult":
        return ""
    try:
        result = driver.cuGetErrorString(err)
    except Exception:  # no libcuda: the name alone must do
        return ""
    text = result[1] if not result[0] else b""
    return text.decode(errors="replace") if isinstance(text, bytes) else str(text or "")


def error_for(err, what: str = ""):
    """The ``ForgeError`` for a failed CUresult or nvrtcResult ``err`` from call ``what``."""
    name = getattr(err, "name", None) or f"error {int(err)}"
    detail = _describe(err)
    message = f"{what + ': ' if what else ''}{name}{f' ({detail})' if detail else ''}"
    if name in _LOST:
        return DeviceLost(message + "; the CUDA context is unusable, open a new context")
    if name in _OUT_OF_MEMORY:
        return AllocationError(message)
    if name in _UNAVAILABLE:
        return GpuUnavailable(message)
    if name in _IMAGE:
        return CompileError(message + "; the driver cannot load this module image", target="cuda")
    if name.startswith("NVRTC_"):
        return CompileError(message, target="cuda")
    if name in _UNSUPPORTED:
        return UnsupportedFeature(message)
    return GpuValidation(message)


def check(result, what: str = ""):
    """Unwrap a cuda.bindings result tuple ``(err, *values)``: raise the typed error for
    a failure, else return None, the one value, or the tuple of values."""
    err = result[0]
    if err:  # both result enums are ints and 0 is success
        raise error_for(err, what)
    if len(result) == 1:
        return None
    return result[1] if len(result) == 2 else result[1:]


def call(function, *args):
    """``check(function(*args))`` with the function's name in any error message."""
    return check(function(*args), function.__name__)


def init_driver() -> None:
    """``cuInit``; a missing driver library or device becomes ``GpuUnavailable``."""
    try:
        result = driver.cuInit(0)
    except (RuntimeError, OSError) as exc:  # cuda.pathfinder's DynamicLibNotFoundError
        raise GpuUnavailable(
            f"the NVIDIA driver library (libcuda.so) was not found, so "
            f"there is no CUDA device here: {exc}"
        ) from exc
    check(result, "cuInit")


def _attribute(device, name: str) -> int:
    return call(
        driver.cuDeviceGetAttribute,
        getattr(driver.CUdevice_attribute, "CU_DEVICE_ATTRIBUTE_" + name),
        device,
    )


@dataclass(frozen=True)
class DeviceInfo:
    """What the driver says about one device."""

    ordinal: int
    name: str
    compute_capability: tuple[int, int]
    driver_version: tuple[int, int]
    total_memory: int
    attributes: dict
    pci_bus_id: str
    uuid: str

    @property
    def arch(self) -> str:
        """The real architecture NVRTC compiles cubins for, e.g. ``"sm_90"``."""
        major, minor = self.compute_capability
        return f"sm_{major}{minor}"


_ATTRIBUTES = (
    "MAX_THREADS_PER_BLOCK",
    "MAX_BLOCK_DIM_X",
    "MAX_BLOCK_DIM_Y",
    "MAX_BLOCK_DIM_Z",
    "MAX_GRID_DIM_X",
    "MAX_GRID_DIM_Y",
    "MAX_GRID_DIM_Z",
    "MAX_SHARED_MEMORY_PER_BLOCK",
    "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN",
    "WARP_SIZE",
    "MULTIPROCESSOR_COUNT",
    "L2_CACHE_SIZE",
    "PCI_BUS_ID",
    "PCI_DEVICE_ID",
    "PCI_DOMAIN_ID",
    "INTEGRATED",
    "ASYNC_ENGINE_COUNT",
    "COMPUTE_CAPABILITY_MAJOR",
    "COMPUTE_CAPABILITY_MINOR",
)


def device_info(ordinal: int = 0) -> DeviceInfo:
    """Query device ``ordinal`` (``init_driver`` first). Raises ``GpuUnavailable`` when
    there is no such device."""
    init_driver()
    count = call(driver.cuDeviceGetCount)
    if count == 0:
        raise GpuUnavailable("the NVIDIA driver is loaded but reports no CUDA device")
    if not 0 <= ordinal < count:
        raise GpuUnavailable(
            f"no CUDA device {ordinal}: the driver reports {count} (ordinals 0..{count - 1})"
        )
    device = call(driver.cuDeviceGet, ordinal)
    name = call(driver.cuDeviceGetName, 256, device)
    attributes = {a: _attribute(device, a) for a in _ATTRIBUTES}
    version = call(driver.cuDriverGetVersion)
    bus_id = call(driver.cuDeviceGetPCIBusId, 64, device)
    try:
        uuid = bytes(call(driver.cuDeviceGetUuid, device).bytes).hex()
    except Exception:  # cosmetic: the identity does without it
        uuid = ""
    return DeviceInfo(
        ordinal=ordinal,
        name=_text(name),
        compute_capability=(
            attributes["COMPUTE_CAPABILITY_MAJOR"],
            attributes["COMPUTE_CAPABILITY_MINOR"],
        ),
        driver_version=(version // 1000, version % 1000 // 10),
        total_memory=int(call(driver.cuDeviceTotalMem, device)),
        attributes=attributes,
        pci_bus_id=_text(bus_id),
        uuid=uuid,
    )


def _text(value) -> str:
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).split(b"\0", 1)[0].decode(errors="replace")
    return str(value).strip()


def pci_device_id(info: DeviceInfo) -> int:
    """The PCI device id (e.g. 0x2335 for an H200), which the CUDA driver API does not
    report: read from sysfs where it is visible, else 0."""
    path = f"/sys/bus/pci/devices/{info.pci_bus_id.lower()}/device"
    try:
        with open(path) as f:
            return int(f.read().strip(), 16)
    except (OSError, ValueError):
        return 0


def kernel_driver_version() -> str:
    """The NVIDIA kernel driver's version (e.g. ``"580.65.06"``), or ``""``."""
    for path in ("/sys/module/nvidia/version", "/proc/driver/nvidia/version"):
        try:
            with open(path) as f:
                text = f.read()
        except OSError:
            continue
        for word in text.split():
            if word.count(".") >= 1 and word.replace(".", "").isdigit():
                return word
    return ""


@functools.cache
def default_arch() -> str:
    """The architecture of device 0 when there is one, else ``"sm_90"`` (the H200 this
    project is measured on), so compiles work on a machine with no GPU."""
    try:
        return device_info(0).arch
    except Exception:  # no driver, no device: the documented default
        return "sm_90"


def _release_primary(api, device) -> None:
    try:
        api.cuDevicePrimaryCtxRelease(device)
    except Exception:  # interpreter shutdown or a dead driver: nothing left to free
        pass


class PrimaryContext:
    """One retain of a device's primary context, released by ``release()`` (idempotent)
    or, as a backstop, when the object is collected. When the last retain in the
    process is released the driver destroys the context, so a context that hit a sticky
    error is gone and the next retain gets a clean one. Until then the fault is the
    whole process's: on the H200 even ``cuCtxCreate`` returned the sticky error."""

    def __init__(self, ordinal: int = 0) -> None:
        init_driver()
        self.ordinal = ordinal
        self.device = call(driver.cuDeviceGet, ordinal)
        self.handle = call(driver.cuDevicePrimaryCtxRetain, self.device)
        # The driver that made the handle frees it, even from a finalizer that runs after
        # the tests' simulated driver was swapped out (or in): a handle of one given to
        # the other crashed the process on the H200.
        self.api = driver
        self._finalizer = weakref.finalize(self, _release_primary, driver, self.device)

    def make_current(self) -> None:
        """Bind the context to the calling thread (cheap when it already is)."""
        call(self.api.cuCtxSetCurrent, self.handle)

    @property
    def released(self) -> bool:
        return not self._finalizer.alive

    def release(self) -> None:
        """Give the retain back. The driver destroys the context with the last one, so a
        context that hit a sticky fault is gone once nothing holds it any more; it is
        never reset under other holders (pinned arrays, other contexts), whose handles a
        reset would leave dangling (a reset here crashed the H200 run in a finalizer)."""
        self._finalizer()

    def keep_at_exit(self) -> None:
        """Do not release at the interpreter's exit: the device may still run a kernel
        we gave up on, and releasing the last retain would wait for it."""
        self._finalizer.atexit = False

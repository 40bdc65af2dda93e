"""The per-launch driver calls (``cuLaunchKernel``, ``cuEventRecord``,
``cuEventElapsedTime``, ``cuGraphLaunch``), called with their arguments converted once.

A cuda.bindings call converts every argument to its C type on each call, which costs
more than the launch itself on the host (PERFORMANCE.md P5: 8.8 us per sample against
5.3 for a bare cuda.bindings launch loop). ``NativeCalls`` calls the same libcuda
entry points, found through ``cuGetProcAddress``, through ctypes with arguments that
are ctypes objects made once per ``run_kernel``. Every CUresult is still checked, and
a failure becomes the same typed error through ``_driver.error_for``.

``BindingsCalls`` is the same interface over cuda.bindings, used where the driver
cannot hand out the entry points (a driver without ``cuGetProcAddress``, or the
simulated driver of the tests when it declines to).
"""

from __future__ import annotations

import ctypes

from . import _driver

__all__ = ["NativeCalls", "BindingsCalls", "driver_calls"]

_P, _U = ctypes.c_void_p, ctypes.c_uint
# CU_GET_PROC_ADDRESS_LEGACY_STREAM (cuda.h): the entry points that treat stream 0 as
# the legacy default stream, as a plain call does; every stream passed here is explicit.
_LEGACY_STREAM = 1
_PROTOTYPES = {
    # CUresult cuLaunchKernel(CUfunction f, unsigned gridDimX..Z, unsigned blockDimX..Z,
    #     unsigned sharedMemBytes, CUstream hStream, void** kernelParams, void** extra)
    "cuLaunchKernel": ctypes.CFUNCTYPE(ctypes.c_int, _P, _U, _U, _U, _U, _U, _U, _U, _P, _P, _P),
    "cuEventRecord": ctypes.CFUNCTYPE(ctypes.c_int, _P, _P),
    "cuEventElapsedTime": ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_float), _P, _P),
    "cuGraphLaunch": ctypes.CFUNCTYPE(ctypes.c_int, _P, _P),
}


def _fail(code, what: str):
    """The typed error for a failed call (``code``: an int or a CUresult)."""
    return _driver.error_for(_driver.driver.CUresult(int(code)), what)


class NativeCalls:
    """The launch-path entry points of libcuda, called through ctypes."""

    path = "native"

    def __init__(self, pointers: dict[str, int]) -> None:
        self._pointers = pointers
        self.launch = _PROTOTYPES["cuLaunchKernel"](pointers["cuLaunchKernel"])
        self.record = _PROTOTYPES["cuEventRecord"](pointers["cuEventRecord"])
        self._elapsed = _PROTOTYPES["cuEventElapsedTime"](pointers["cuEventElapsedTime"])
        self._graph_launch = _PROTOTYPES["cuGraphLaunch"](pointers["cuGraphLaunch"])
        self._ms = ctypes.c_float()
        self._ms_ref = ctypes.byref(self._ms)

    fail = staticmethod(_fail)

    @staticmethod
    def handle(obj) -> ctypes.c_void_p:
        """A driver handle (CUstream, CUevent, CUfunction...) as these calls take it."""
        return _P(int(obj) or None)

    def launch_args(self, function, grid, block, shared: int, stream, params: int) -> tuple:
        """``launch``'s arguments: converted here, once, not on every call."""
        return (self.handle(function), *(_U(int(g)) for g in grid), *(_U(int(b)) for b in block),
                _U(shared), self.handle(stream), _P(params), _P(None))

    def elapsed_ms(self, start, end) -> float:
        """Milliseconds between two completed events (handles from ``handle``)."""
        code = self._elapsed(self._ms_ref, start, end)
        if code:
            raise _fail(code, "cuEventElapsedTime")
        return self._ms.value

    def graph_launch(self, executable, stream) -> None:
        code = self._graph_launch(self.handle(executable), self.handle(stream))
        if code:
            raise _fail(code, "cuGraphLaunch")


class BindingsCalls:
    """``NativeCalls``' interface over cuda.bindings (each call converts its arguments)."""

    path = "cuda.bindings"

    @staticmethod
    def launch(*args):
        return _driver.driver.cuLaunchKernel(*args)[0]

    @staticmethod
    def record(event, stream):
        return _driver.driver.cuEventRecord(event, stream)[0]

    fail = staticmethod(_fail)

    @staticmethod
    def handle(obj):
        return obj

    @staticmethod
    def launch_args(function, grid, block, shared: int, stream, params: int) -> tuple:
        return (function, *grid, *block, shared, stream, params, 0)

    @staticmethod
    def elapsed_ms(start, end) -> float:
        return _driver.call(_driver.driver.cuEventElapsedTime, start, end)

    @staticmethod
    def graph_launch(executable, stream) -> None:
        _driver.call(_driver.driver.cuGraphLaunch, executable, stream)


def _pointer(driver, name: str, version: int) -> int:
    result = driver.cuGetProcAddress(name.encode(), version, _LEGACY_STREAM)
    err, pfn = result[0], result[1]
    status = result[2] if len(result) > 2 else 0
    if err or int(status) or not pfn:
        raise LookupError(f"cuGetProcAddress({name}) gave {err!r}, status {status!r}")
    return int(pfn)


def driver_calls(version: int) -> "NativeCalls | BindingsCalls":
    """``NativeCalls`` for the driver cuda.bindings uses (``version``: the driver's
    CUDA version, as ``cuDriverGetVersion`` says), else ``BindingsCalls``."""
    driver = _driver.driver
    try:
        return NativeCalls({name: _pointer(driver, name, version) for name in _PROTOTYPES})
    except (AttributeError, LookupError, TypeError, ValueError, RuntimeError, OSError):
        # No cuGetProcAddress, or an entry point it cannot give: the slower path works.
        return BindingsCalls()

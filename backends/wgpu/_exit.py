"""A process that abandoned a running wgpu device ends without the driver's teardown.

NVIDIA's Vulkan driver (580.159, H200, measured 2026-12-02) tears its devices down in
the C library's exit handlers, after Python has finalized, and that teardown waits for
every dispatch still running: a process whose kernel was abandoned after a 0.25 s
timeout spun in ``exit()`` until the 60 s kernel ended, closed, dropped or left to the
interpreter alike. Ending the process with ``_exit`` once Python's own finalization is
done (its atexit handlers ran, its files were flushed and closed) skips those handlers;
the kernel then reclaims the device with the process, in about 4.5 s on that machine.

What is skipped: the C library's exit handlers and shared libraries' destructors, and
the flush of C stdio buffers (Python does not use them for ``sys.stdout``). Only a
process that abandoned a device takes this exit, and the exit status is kept (glibc's
``on_exit`` hands the status to the handler). Where the C library has no ``on_exit``
(not glibc), nothing is registered and the exit may wait for the device.
"""

from __future__ import annotations

import ctypes
import threading

_lock = threading.Lock()
_registered = False


def end_without_driver_teardown() -> bool:
    """Make this process's exit skip the C library's exit handlers (once per process);
    returns whether that is in place. Registered when a device is abandoned, so that it
    runs before the handlers the driver registered when it was loaded (they run last
    registered, first)."""
    global _registered
    with _lock:
        if _registered:
            return True
        try:
            libc = ctypes.CDLL(None)
            on_exit, exit_now = libc.on_exit, libc._exit
        except (OSError, AttributeError):
            return False
        on_exit.argtypes = (ctypes.c_void_p, ctypes.c_void_p)
        on_exit.restype = ctypes.c_int
        # on_exit calls the handler as handler(status, arg): _exit(status), status kept.
        _registered = on_exit(ctypes.cast(exit_now, ctypes.c_void_p), None) == 0
        return _registered

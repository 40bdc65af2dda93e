"""The ForgeError hierarchy (docs/DESIGN.md section 7).

Every failure the project reports is a ``ForgeError``. Each subclass also derives from
the builtin exception a caller would naturally catch (``GpuUnavailable`` is an
``ImportError``, ``AllocationError`` a ``MemoryError``...), so code written against
plain Python exceptions keeps working.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ForgeError",
    "GpuUnavailable",
    "GpuValidation",
    "AllocationError",
    "InvalidArgument",
    "CompileError",
    "DeviceLost",
    "KernelTimeout",
    "UnsupportedFeature",
    "ContextClosed",
    "OracleMismatch",
    "ReferenceFailed",
    "ResultsFileError",
    "MissingExtra",
]


class ForgeError(Exception):
    """Root of every error kernel-forge raises."""


class GpuUnavailable(ForgeError, ImportError):
    """A backend cannot run here: its library, driver or device is missing."""


class GpuValidation(ForgeError, ValueError):
    """The GPU API rejected a call (a wgpu validation error, a bad launch config)."""


class AllocationError(ForgeError, MemoryError):
    """A slab request cannot be served (over capacity, would lap the read head), or a
    view is not a live allocation of this context (stale, foreign, out of the slab)."""


class InvalidArgument(ForgeError, ValueError):
    """An argument does not fit the call: a buffer list that does not match the kernel,
    data of the wrong size, an output array of the wrong dtype."""


class ResultsFileError(InvalidArgument):
    """A saved results file cannot be used: unreadable, not JSON (truncated), another
    format or version, malformed, or an empty run. The message names the file."""


class CompileError(ForgeError):
    """A kernel failed to compile; carries the source, target, options and compiler log."""

    def __init__(
        self,
        message: str,
        *,
        source: str = "",
        target: str = "",
        options: tuple[str, ...] = (),
        log: str = "",
    ) -> None:
        super().__init__(message)
        self.source = source
        self.target = target
        self.options = tuple(options)
        self.log = log

    def __str__(self) -> str:
        text = super().__str__()
        if self.log:
            text += "\n--- compiler log ---\n" + self.log.rstrip()
        return text


class DeviceLost(ForgeError, RuntimeError):
    """The device is gone (destroyed, reset, or a sticky fault); open a new context."""


class KernelTimeout(DeviceLost, TimeoutError):
    """Device work ran past the context's ``timeout_s``. The context is lost: the device
    may still be running the work, so nothing it holds can be trusted or reused."""


class UnsupportedFeature(ForgeError, NotImplementedError):
    """The adapter or backend lacks what was asked for (a limit, a feature, a target)."""


class ContextClosed(ForgeError, ValueError):
    """A context was used after ``close()`` (a ValueError, like I/O on a closed file)."""


class ReferenceFailed(ForgeError, RuntimeError):
    """A kernel's numpy reference raised, or returned something that does not fit its
    outputs (the oracle's verdict is then ``reference-error``, never a pass)."""


class OracleMismatch(ForgeError, AssertionError):
    """A kernel's output disagrees with the reference beyond tolerance."""

    def __init__(self, message: str, *, report: Any = None) -> None:
        super().__init__(message)
        self.report = report


class MissingExtra(ForgeError, ImportError):
    """An optional part of kernel-forge was asked for but its library is not installed
    (optuna for ``--strategy tpe``, Ray for ``--ray``); the message says which extra
    installs it."""

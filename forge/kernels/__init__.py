"""The built-in kernel library, registered the same way plugins are."""

from __future__ import annotations

from ..kernel import KernelSpec
from . import raw

__all__ = ["builtin_kernels"]


def builtin_kernels() -> list[KernelSpec]:
    """Every built-in kernel."""
    return list(raw.KERNELS)

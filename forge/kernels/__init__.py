"""The built-in kernel library, registered the same way plugins are.

``raw`` holds the hand-written example (``raw_affine``); the IR kernels live in
``elementwise`` (map), ``reductions`` (rows) and ``linalg`` (matmul, transpose). Each
kernel's id is its name; ``ir.with_shape`` reshapes one (e.g. for a benchmark).
"""

from __future__ import annotations

from ..kernel import KernelSpec
from . import elementwise, linalg, raw, reductions

__all__ = ["builtin_kernels"]


def builtin_kernels() -> list[KernelSpec]:
    """Every built-in kernel."""
    return [*raw.KERNELS, *elementwise.KERNELS, *reductions.KERNELS, *linalg.KERNELS]

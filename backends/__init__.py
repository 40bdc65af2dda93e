"""Backends: one sub-package per implementation of ``oracle.OracleContext``.

``SlabContext`` is the shared machinery a slab-backed backend builds on; third-party
backends may use it too. Importing this package imports neither cuda nor wgpu.
"""

from ._base import Launch, SlabContext, as_bytes, poll_until

__all__ = ["SlabContext", "Launch", "as_bytes", "poll_until"]

"""The numpy reference backend: the CPU oracle, available everywhere."""

from forge import _checks
from forge.registry import BackendEntry

from ._context import ReferenceContext

__all__ = ["ReferenceContext", "entry"]


def _open(**options) -> ReferenceContext:
    _checks.options(ReferenceContext, options, "the reference backend")
    return ReferenceContext(**options)


entry = BackendEntry(
    name="reference",
    open=_open,
    availability=lambda: (True, "numpy on the host"),
    description="numpy evaluation of each kernel's CPU meaning (host wall clock)",
    preference=-10,
    device_code=False,
)

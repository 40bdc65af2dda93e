"""kernel-forge: describe a compute kernel once, run it on every backend, and get a
verdict you can trust.

``forge`` holds everything that needs no GPU: the value types, schedules, the slab
allocator, kernel descriptions, the kernel IR (``forge.ir``) and its emitters
(``forge.emit``: ``forge.emit.emit(kernel, schedule, target)``), errors, the plugin
registry and the CLI. It imports neither ``backends`` nor ``oracle``, and never ``cuda``
or ``wgpu``.
"""

from . import ir, emit  # isort: skip (ir first: the emitters register themselves with it)
from ._reference import reference_bound, set_reference_bound
from .allocator import SlabAllocator
from .contract import OracleContext
from .errors import (
    AllocationError,
    CompileError,
    ContextClosed,
    DeviceLost,
    ForgeError,
    GpuUnavailable,
    GpuValidation,
    InvalidArgument,
    KernelTimeout,
    MissingExtra,
    OracleMismatch,
    ReferenceFailed,
    UnsupportedFeature,
)
from .kernel import TARGETS, Access, BufferSpec, Dispatch, KernelBody, KernelSpec, ceil_div
from .registry import (
    BACKEND_GROUP,
    KERNEL_GROUP,
    BackendEntry,
    PluginWarning,
    available_backends,
    backend_entries,
    backend_names,
    default_backend,
    get_kernel,
    list_kernels,
    open_context,
    refresh,
)
from .schedule import Schedule
from .size import Size, parse_size
from .textures import Sampler, SamplerSpec
from .tunables import Tunable
from .types import (
    SCALAR_TYPES,
    AdapterConstraints,
    AdapterIdentity,
    BindingUsage,
    BufferView,
    MemoryTopology,
    ScalarType,
    SlabLayout,
    ValidationLevel,
    scalar_type,
)

__version__ = "0.1.0"

__all__ = [
    "Dispatch",
    "KernelBody",
    "OracleContext",
    "ReferenceFailed",
    "Size",
    "ceil_div",
    "parse_size",
    "Access",
    "AdapterConstraints",
    "AdapterIdentity",
    "AllocationError",
    "BackendEntry",
    "BindingUsage",
    "BufferSpec",
    "BufferView",
    "CompileError",
    "ContextClosed",
    "DeviceLost",
    "ForgeError",
    "GpuUnavailable",
    "GpuValidation",
    "InvalidArgument",
    "KernelSpec",
    "KernelTimeout",
    "MemoryTopology",
    "OracleMismatch",
    "PluginWarning",
    "SCALAR_TYPES",
    "ScalarType",
    "Schedule",
    "SlabAllocator",
    "SlabLayout",
    "TARGETS",
    "UnsupportedFeature",
    "ValidationLevel",
    "available_backends",
    "backend_entries",
    "backend_names",
    "default_backend",
    "get_kernel",
    "list_kernels",
    "open_context",
    "refresh",
    "scalar_type",
    "BACKEND_GROUP",
    "KERNEL_GROUP",
    "__version__",
    "emit",
    "ir",
    "Tunable",
    "MissingExtra",
    "Sampler",
    "reference_bound",
    "set_reference_bound",
    "SamplerSpec",
]

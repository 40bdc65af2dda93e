"""Core value types shared by every layer: binding usage, buffer views, memory
topology, and what an adapter is and can do (docs/DESIGN.md section 2)."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field, fields

import ml_dtypes
import numpy as np

from .errors import InvalidArgument

__all__ = [
    "BindingUsage",
    "BufferView",
    "SlabLayout",
    "MemoryTopology",
    "AdapterIdentity",
    "AdapterConstraints",
    "ScalarType",
    "SCALAR_TYPES",
    "BOOL",
    "scalar_type",
    "is_float_dtype",
    "float_info",
    "ValidationLevel",
]


class BindingUsage(enum.Enum):
    """How a kernel binds a view. WebGPU forbids binding one buffer as read-write and
    as anything else in the same dispatch, so backends may keep usages in separate
    slabs; ``STORAGE_READ_RESIDENT`` marks upload-once data that survives
    ``clear_transient_allocations``."""

    STORAGE_READ = "storage_read"
    STORAGE_READ_WRITE = "storage_read_write"
    UNIFORM = "uniform"
    STORAGE_READ_RESIDENT = "storage_read_resident"


class ValidationLevel(enum.IntEnum):
    """How far a kernel's generated code has been proven, in order. No level implies a
    later one: naga accepting WGSL says nothing about whether it computes the right thing."""

    NONE = 0
    GENERATED = 1  # the emitter produced source
    VALIDATED = 2  # naga (WGSL) or NVRTC (CUDA C) accepted it; needs no GPU
    PIPELINE_CREATED = 3  # a device built a pipeline / loaded a module from it
    ORACLE_VERIFIED = 4  # its outputs matched the reference within tolerance
    PROFILED = 5  # timed on a device with a recorded timing source
    CERTIFIED = 6  # a certification manifest records all of the above


@dataclass(frozen=True)
class BufferView:
    """A sub-range of one of a context's slabs.

    ``offset`` and ``length_bytes`` locate it inside slab ``slab``; ``binding`` and
    ``group`` say where a kernel sees it. ``owner``, ``position`` and ``generation``
    identify the allocation (which allocator issued it, where on its ring, and which of
    the allocations ever made at that position), so a context can refuse views that are
    stale, foreign or forged: a released view is never live again, even once its
    position is handed out anew.
    """

    offset: int
    length_bytes: int
    binding: int
    group: int = 0
    usage: BindingUsage = BindingUsage.STORAGE_READ
    slab: int = field(default=0, repr=False)
    owner: int = field(default=0, repr=False)
    position: int = field(default=-1, repr=False)
    #: For a window onto an allocation (``window``): the allocation's length; 0 for a
    #: view that is the whole allocation.
    span: int = field(default=0, repr=False)
    generation: int = field(default=0, repr=False)

    @property
    def end(self) -> int:
        """One past the last byte, as an offset in the slab."""
        return self.offset + self.length_bytes

    def window(self, start: int, length: int) -> BufferView:
        """The view of bytes ``[start, start + length)`` of this allocation, live as long
        as it is: a kernel bound to it sees only those bytes (``arrayLength`` counts
        them), while the rest stays readable through this view (the oracle keeps its
        guard elements there)."""
        if self.span:
            raise InvalidArgument("a window is taken of a whole allocation, not of a window")
        whole = self.length_bytes
        if (
            not (isinstance(start, int) and isinstance(length, int))
            or start < 0
            or length <= 0
            or start + length > whole
        ):
            raise InvalidArgument(
                f"a window [{start}, {start}+{length}) does not fit in a view of {whole} bytes"
            )
        return BufferView(
            self.offset + start,
            length,
            self.binding,
            self.group,
            self.usage,
            self.slab,
            self.owner,
            self.position,
            whole,
            self.generation,
        )


@dataclass(frozen=True)
class SlabLayout:
    """One slab of a topology: the usages it backs, its share of the capacity, and
    whether ``clear`` recycles it (resident slabs are reset only explicitly)."""

    name: str
    usages: frozenset[BindingUsage]
    share: int = 1
    recycled: bool = True


@dataclass(frozen=True)
class MemoryTopology:
    """How a context's capacity is split into slabs by binding usage."""

    slabs: tuple[SlabLayout, ...]

    def __post_init__(self) -> None:
        seen: set[BindingUsage] = set()
        for slab in self.slabs:
            if slab.share <= 0:
                raise InvalidArgument(f"slab {slab.name!r}: share must be positive")
            if seen & slab.usages:
                raise InvalidArgument(
                    f"usage {sorted(u.name for u in seen & slab.usages)} is backed by two slabs"
                )
            seen |= slab.usages
        missing = set(BindingUsage) - seen
        if missing:
            raise InvalidArgument(f"no slab backs {sorted(u.name for u in missing)}")

    def slab_index(self, usage: BindingUsage) -> int:
        """The index of the slab that backs ``usage``."""
        for i, slab in enumerate(self.slabs):
            if usage in slab.usages:
                return i
        raise AssertionError("unreachable: __post_init__ covers every usage")

    @classmethod
    def unified(cls) -> MemoryTopology:
        """One recycled slab backs every usage (CUDA, the reference backend)."""
        return cls((SlabLayout("device", frozenset(BindingUsage)),))

    @classmethod
    def split_by_usage(
        cls, read: int = 2, read_write: int = 2, resident: int = 1
    ) -> MemoryTopology:
        """Read-only and uniform views in one slab, read-write views in another,
        resident views in a third that ``clear`` never recycles (wgpu)."""
        return cls(
            (
                SlabLayout(
                    "read", frozenset({BindingUsage.STORAGE_READ, BindingUsage.UNIFORM}), read
                ),
                SlabLayout("read_write", frozenset({BindingUsage.STORAGE_READ_WRITE}), read_write),
                SlabLayout(
                    "resident",
                    frozenset({BindingUsage.STORAGE_READ_RESIDENT}),
                    resident,
                    recycled=False,
                ),
            )
        )


@dataclass(frozen=True)
class AdapterIdentity:
    """Which device a context runs on, as its driver names it."""

    name: str
    vendor_id: int
    device_id: int
    device_type: str
    backend: str
    driver: str
    driver_info: str
    architecture: str = ""

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class AdapterConstraints:
    """Limits and capabilities read from the real device; schedules are checked
    against them before anything is compiled. ``None`` means the backend cannot tell."""

    max_workgroup_size: tuple[int, int, int]
    max_invocations_per_workgroup: int
    max_workgroups_per_dimension: tuple[int, int, int]
    max_workgroup_storage_bytes: int
    max_storage_binding_size: int
    max_buffer_size: int
    min_storage_offset_alignment: int = 1
    min_uniform_offset_alignment: int = 1
    max_uniform_binding_size: int | None = None
    max_bindings_per_group: int | None = None
    subgroups: bool = False
    subgroup_size: tuple[int, int] | None = None
    warp_size: int | None = None
    shader_f16: bool = False
    shader_f64: bool = False
    cooperative_matrix: bool = False
    #: Hopper's warpgroup matrix-multiply-accumulate (``wgmma``, sm_90a): compute
    #: capability 9.0 exactly (Blackwell replaced it).
    warpgroup_mma: bool = False
    timestamp_query: bool = False
    multiprocessor_count: int | None = None
    l2_cache_bytes: int | None = None
    total_memory_bytes: int | None = None
    #: Float operations may treat subnormal inputs and results as zero of the same sign
    #: (WGSL allows it; CUDA only under ``-ftz``), so a correct kernel may return what
    #: the computation gives on inputs with subnormals flushed.
    subnormals_may_flush: bool = False
    #: Overflow, infinities and NaNs may be assumed absent while the kernel runs, so an
    #: element whose exact result is not finite holds an indeterminate value (WGSL's
    #: finite math assumption); such elements cannot be judged.
    nonfinite_indeterminate: bool = False
    #: Probe cases where the adapter departed from IEEE-754 (``backends._probe``), for
    #: the record: a comparison such as NaN != NaN that compiles to false.
    float_departures: tuple[str, ...] = ()
    #: Workgroup (shared) memory starts zeroed in every workgroup, as WGSL requires;
    #: measured by the probe. Where False (Mesa 22.3's lavapipe), the backend zeroes it
    #: in the shader (``forge.workgroup_zero``). CUDA promises nothing: True there.
    zeroes_workgroup_memory: bool = True

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def binding_limit(self, uniform: bool) -> int | None:
        """The most bytes one binding may span: uniform or storage (None: unknown)."""
        return self.max_uniform_binding_size if uniform else self.max_storage_binding_size

    def supports(self, feature: str) -> bool:
        """Whether a kernel needing ``feature`` can run: a scalar type name (``"f16"``,
        ``"f64"``...), one of ``"subgroups"``, ``"cooperative_matrix"``,
        ``"timestamp_query"``, or a bound on the subgroup width, ``"subgroup_size>=8"``,
        ``"subgroup_size<=64"`` or ``"subgroup_size==32"``: the widths a kernel is
        written for (WebGPU lets a subgroup be 4 to 128 wide; ORT-web dispatches its
        Intel subgroup matmul only where it is 8 to 32), held by every width the adapter
        may run (its least and most; not held where it has no subgroups or does not say
        how wide they are)."""
        bound = _SUBGROUP_BOUND.fullmatch(feature.replace(" ", ""))
        if bound is not None:
            if not self.subgroups or self.subgroup_size is None:
                return False
            low, high = self.subgroup_size
            width, op = int(bound.group(2)), bound.group(1)
            return {">=": low >= width, "<=": high <= width, "==": low == high == width}[op]
        flags = {
            "f16": self.shader_f16,
            "f64": self.shader_f64,
            "subgroups": self.subgroups,
            "cooperative_matrix": self.cooperative_matrix,
            "warpgroup_mma": self.warpgroup_mma,
            "timestamp_query": self.timestamp_query,
        }
        if feature in flags:
            return flags[feature]
        return feature in SCALAR_TYPES


_SUBGROUP_BOUND = re.compile(r"subgroup_size(>=|<=|==)(\d+)")


@dataclass(frozen=True)
class ScalarType:
    """A scalar element type: the one table of dtypes that the IR, the emitters, the
    oracle and the buffers read. ``wgsl`` and ``cuda`` are how each target language
    spells the type (``None``: the target has no such type); ``kind`` is ``"float"``,
    ``"int"`` or ``"bool"``."""

    name: str
    numpy: np.dtype
    wgsl: str | None
    cuda: str
    kind: str = "float"

    @property
    def size(self) -> int:
        return self.numpy.itemsize

    @property
    def is_float(self) -> bool:
        return self.kind == "float"


#: The scalar types a buffer element or a uniform field may have (``forge.layout``
#: builds vectors, arrays and structs of them), by name; the IR computes with some
#: (``forge.ir.DTYPES``).
SCALAR_TYPES: dict[str, ScalarType] = {
    t.name: t
    for t in (
        ScalarType("f16", np.dtype(np.float16), "f16", "__half"),
        # numpy has no bfloat16: ml_dtypes gives it one; WGSL has no bfloat16 type.
        ScalarType("bf16", np.dtype(ml_dtypes.bfloat16), None, "__nv_bfloat16"),
        ScalarType("f32", np.dtype(np.float32), "f32", "float"),
        # FP8 (cuda_fp8.h's __nv_fp8_e4m3 and __nv_fp8_e5m2; OCP's E4M3 has no Inf,
        # its largest finite 448): through ml_dtypes; WGSL has none, though a buffer of
        # them is bytes a WGSL kernel may read as u32 words
        ScalarType("f8e4m3", np.dtype(ml_dtypes.float8_e4m3fn), None, "__nv_fp8_e4m3"),
        ScalarType("f8e5m2", np.dtype(ml_dtypes.float8_e5m2), None, "__nv_fp8_e5m2"),
        ScalarType("f64", np.dtype(np.float64), "f64", "double"),
        # WGSL has no 8- or 16-bit integers; i64/u64 need the adapter's shader-int64.
        ScalarType("i8", np.dtype(np.int8), None, "signed char", "int"),
        ScalarType("u8", np.dtype(np.uint8), None, "unsigned char", "int"),
        ScalarType("i16", np.dtype(np.int16), None, "short", "int"),
        ScalarType("u16", np.dtype(np.uint16), None, "unsigned short", "int"),
        ScalarType("i32", np.dtype(np.int32), "i32", "int", "int"),
        ScalarType("u32", np.dtype(np.uint32), "u32", "unsigned int", "int"),
        ScalarType("i64", np.dtype(np.int64), "i64", "long long", "int"),
        ScalarType("u64", np.dtype(np.uint64), "u64", "unsigned long long", "int"),
    )
}

#: The IR's truth values: a type of expressions, never of a buffer or a uniform field.
BOOL = ScalarType("bool", np.dtype(np.bool_), "bool", "bool", "bool")


_FLOAT_DTYPES = frozenset(t.numpy for t in SCALAR_TYPES.values() if t.is_float)


def is_float_dtype(dtype) -> bool:
    """Whether a numpy dtype is a float, bfloat16 included (numpy calls its kind "V")."""
    dtype = np.dtype(dtype)
    return dtype.kind == "f" or dtype in _FLOAT_DTYPES


def float_info(dtype):
    """``np.finfo`` of a float dtype, bfloat16 included (through ml_dtypes)."""
    return ml_dtypes.finfo(np.dtype(dtype))


def scalar_type(name: str | ScalarType) -> ScalarType:
    """Look up a scalar type by name; raises ``InvalidArgument`` listing the known ones."""
    if isinstance(name, ScalarType):
        return name
    try:
        return SCALAR_TYPES[name]
    except KeyError:
        raise InvalidArgument(
            f"unknown scalar type {name!r}; known: {', '.join(SCALAR_TYPES)}"
        ) from None

"""What a kernel binds: ``BufferSpec`` (an element type, an access, a count that may
depend on the size, a uniform block's fields) and ``Access``. ``forge.kernel`` builds
kernels from them; both names are exported by ``forge``."""

from __future__ import annotations

import enum
import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import layout as _layout
from ._digest import _callable_digest
from .errors import InvalidArgument
from .expressions import resolve
from .size import is_int
from .textures import Sampler, TextureFormat, texture_format
from .types import BindingUsage, ScalarType, scalar_type

__all__ = ["Access", "BufferSpec", "LISTS"]

#: ``BufferSpec(unordered=LISTS)``: an output of lists each appended from its own base.
LISTS = "lists"


class Access(enum.Enum):
    """How a kernel uses a buffer."""

    READ = "read"
    READ_WRITE = "read_write"
    UNIFORM = "uniform"

    def accepts(self, usage: BindingUsage) -> bool:
        """Whether a view allocated with ``usage`` may be bound for this access."""
        return usage in _ACCEPTED_USAGES[self]

    @property
    def default_usage(self) -> BindingUsage:
        return _ACCEPTED_USAGES[self][0]


_ACCEPTED_USAGES = {
    Access.READ: (BindingUsage.STORAGE_READ, BindingUsage.STORAGE_READ_RESIDENT),
    Access.READ_WRITE: (BindingUsage.STORAGE_READ_WRITE,),
    Access.UNIFORM: (BindingUsage.UNIFORM,),
}


@dataclass(frozen=True)
class BufferSpec:
    """One buffer of a kernel.

    ``element`` is a type (``forge.layout``): a scalar name, ``"vec3<f32>"``,
    ``"array<f32, 4>"`` or a struct ``(("pos", "vec3<f32>"), ("mass", "f32"))``; it is
    laid out per target (padding is never judged). ``count`` is the element count for a
    problem size: a callable of the size, an expression over its dimensions
    (``"M*K"``), an int, or None for the size itself. A uniform buffer
    (``access="uniform"``) lists its named ``fields`` instead and holds one record.

    What the buffer holds before the run, in one place:
    - an input's ``fill``: a domain ``(lo, hi)``, a generator ``fill(rng, count,
      size) -> array``, fixed content (an array, or a scalar), or None for the
      oracle's edge-case families;
    - an output's ``initial`` content (a scalar, an array, or ``initial(size)``) for
      kernels that accumulate into it (atomicAdd, split-K): timed repeats start from
      it again, and unwritten elements cannot be told apart, so none are reported;
    - ``inout``: a read-write buffer whose initial contents the kernel reads (``C`` in
      ``C = alpha*A@B + beta*C``), drawn like an input.

    ``shape`` gives the reference the buffer as an array of that shape (ints, dimension
    names or expressions; default flat). ``scratch`` marks a read-write buffer the
    kernel uses for intermediate results: the reference need not write it and it is
    not judged. ``unordered`` marks an output of scalars whose elements the kernel may
    write in any order (a compaction through ``atomicAdd``, a set of found indices):
    it is judged as a multiset, the kernel's and the reference's values both sorted.
    ``unordered="keys"`` names another output instead, the keys this one was sorted
    with: its elements may come in any order only among equal keys (the values of a
    key-value sort that is not stable, whose ties any order of the values sorts), so
    each run of equal elements in the reference's ``keys`` is a multiset of its own;
    where ``keys`` holds one key a row of this output (``shape=(rows, n)``), each run of
    rows with equal keys is (vLLM's ``sorted_token_ids`` among its ``expert_ids``).
    ``unordered=keys`` (a function) gives those keys where the kernel stores none:
    ``keys(arrays)`` of the case's buffers by name (inputs as drawn, outputs as the
    reference computed them, the uniform record under its name) returns one key for
    each element of this output, or for each row; each run of equal keys is a multiset
    of its own (a counting sort's scatter through ``atomicAdd`` within each bucket,
    Babylon.js's splat sort, whose buckets come from an input: round 78).
    ``unordered="lists"`` marks an output of lists each appended from its own base, a
    list's free slots after it holding the declared scalar ``initial`` (Bevy's batch
    sets, a bucket with room to spare): each run of written elements of the reference
    (of whole rows, for an output of integers with a ``shape``) is a multiset of its
    own, and the free slots are compared where they are.
    Where it names an input instead, this output holds indices into that input's rows
    (an argsort, a top-k's indices): an index the kernel gives in place of the
    reference's is right where the input holds an equal value there, each index once
    a row (an argsort that is not stable, a top-k whose last places are tied).
    ``equally_right`` marks an output with many right answers that no order or
    renaming describes (a BFS's parents: any neighbour one level nearer the source is
    a right parent): ``equally_right(got, want, arrays)`` is given the kernel's values
    and the reference's (flat) and ``arrays``, the case's inputs and the reference's
    outputs by name (flat), and returns, per element, whether the kernel's value,
    where it is not the reference's, is as right; those are shown as the reference's
    (and counted in the report). It must hold for any value ``got`` may hold (an
    index out of range, the oracle's poison): those are not right.
    ``labels`` marks an integer output holding a labeling (a connected component's,
    a cluster's, a union-find's root per element), whose label values any renaming
    makes as right: it is judged as the partition its labels make, each of the
    kernel's groups renamed to the reference's label at its first element. ``labels=(0,)``
    (any ints) keeps those values as they are: a background that is not a group.

    ``texture`` (a format: ``"rgba8unorm"``, ``"rgba32float"``, ``"r32float"``,
    ``"r32uint"``, ``"rgba32uint"``, ``"rgba8uint"``, ``"rgba16float"``, ``"r8uint"``, the
    last read-only) marks a buffer the WGSL binds as a ``texture_2d`` (``access="read"``)
    or a ``texture_storage_2d`` (``"read"``, or ``"read_write"`` for ``write`` and
    ``read_write`` access), of ``shape=(height, width)`` texels: the buffer holds the
    texels' bytes row-major and tightly packed, and the element type is the format's
    (``forge.textures`` says what the reference sees of each, and how an rgba8unorm
    output is judged).

    ``sampler`` (a ``forge.Sampler``) on a read-only texture is the sampling state a
    CUDA texture object over it is made with (``tex2D<float>``); WGSL binds its
    sampler as a binding of its own (``KernelSpec(samplers=...)``).
    """

    binding: int
    element: Any = "f32"
    access: Access = Access.READ
    group: int = 0
    name: str = ""
    count: Any = None
    fields: tuple = ()
    inout: bool = False
    shape: Any = None
    fill: Any = None
    initial: Any = None
    scratch: bool = False
    unordered: bool | str = False
    labels: bool | tuple = False
    equally_right: Any = None
    texture: str | None = None
    sampler: Sampler | None = None
    # a uniform block the WGSL binds as ``var<storage, read>``, laid out by WGSL's storage
    # rules: a push constant whose type no uniform can hold (``offsets: array<u32, 4>``,
    # stride 4), as naga takes it; set by ``KernelSpec``, not by hand
    storage_layout: bool = False

    def __post_init__(self) -> None:
        for attribute in ("binding", "group"):
            value = getattr(self, attribute)
            if not is_int(value) or value < 0:
                raise InvalidArgument(
                    f"buffer {self.name or self.binding!r}: {attribute} "
                    f"must be an int >= 0, got {value!r}"
                )
            object.__setattr__(self, attribute, int(value))
        try:
            object.__setattr__(self, "access", Access(self.access))
        except ValueError:
            raise InvalidArgument(
                f"buffer {self.binding}: access must be one of "
                f"{[a.value for a in Access]}, got {self.access!r}"
            ) from None
        if not isinstance(self.name, str):
            raise InvalidArgument(f"buffer {self.binding}: name must be a str, got {self.name!r}")
        if isinstance(self.element, list):
            object.__setattr__(self, "element", tuple(map(tuple, self.element)))
        _layout.parse_type(self.element)
        if not isinstance(self.fields, (tuple, list)) or not all(
            isinstance(f, (tuple, list)) and len(f) == 2 for f in self.fields
        ):
            raise InvalidArgument(
                f"buffer {self.binding}: fields are (name, type) pairs, got {self.fields!r}"
            )
        object.__setattr__(
            self,
            "fields",
            tuple(
                (str(n), t if not isinstance(t, list) else tuple(map(tuple, t)))
                for n, t in self.fields
            ),
        )
        if self.access is Access.UNIFORM:
            if not self.fields:
                raise InvalidArgument(f"uniform buffer {self.binding} needs named scalar fields")
            _layout.parse_type(self.fields)  # checks types and duplicate names
        elif self.fields:
            raise InvalidArgument(f"buffer {self.binding}: only a uniform buffer has fields")
        if self.inout and self.access is not Access.READ_WRITE:
            raise InvalidArgument(f"buffer {self.binding}: only a read_write buffer is inout")
        if (self.initial is not None or self.scratch) and self.access is not Access.READ_WRITE:
            raise InvalidArgument(
                f"buffer {self.binding}: initial content and scratch are for read_write buffers"
            )
        if self.unordered is not False and not (
            self.unordered is True
            or (isinstance(self.unordered, str) and self.unordered)
            or _keys_function(self.unordered)
        ):
            raise InvalidArgument(
                f'buffer {self.name or self.binding}: unordered is True, "lists", the '
                "name of the output of keys this one was sorted with, or a function of "
                f"the case's buffers giving those keys, got {self.unordered!r}"
            )
        if self.unordered and (
            self.access is not Access.READ_WRITE or self.scratch or not self.is_scalar
        ):
            raise InvalidArgument(
                f"buffer {self.name or self.binding}: unordered is for an output of scalars "
                "(read_write, not scratch), whose elements are compared as a multiset"
            )
        self._check_labels()
        if self.equally_right is not None and (
            not callable(self.equally_right)
            or self.access is not Access.READ_WRITE
            or self.scratch
            or self.unordered
            or self.labels is not False
            or not self.is_scalar
        ):
            raise InvalidArgument(
                f"buffer {self.name or self.binding}: equally_right is a callable "
                "(got, want, arrays) -> bool per element, on an output of scalars (read_write, "
                f"not scratch, neither unordered nor labels), got {self.equally_right!r}"
            )
        if self.fill is not None and self.access is not Access.READ and not self.inout:
            raise InvalidArgument(
                f"buffer {self.binding}: fill is for inputs (and inout "
                "buffers); give an output initial= content instead"
            )
        if self.texture is not None:
            self._check_texture()
        if self.sampler is not None and (
            not isinstance(self.sampler, Sampler)
            or self.texture is None
            or self.access is not Access.READ
        ):
            raise InvalidArgument(
                f"buffer {self.name or self.binding}: sampler= is a forge.Sampler on a "
                f"read-only texture (texture=FORMAT, shape=(H, W)), got {self.sampler!r}"
            )
        if self.count is not None and not (
            callable(self.count) or isinstance(self.count, str) or is_int(self.count)
        ):
            raise InvalidArgument(
                f"buffer {self.binding}: count is a callable, an expression "
                f"or an int, got {self.count!r}"
            )

    def _check_labels(self) -> None:
        """``labels``: False, True, or the ints kept as they are (a list taken as a
        tuple), on an output of integer scalars that is not also unordered."""
        label = self.name or str(self.binding)
        value = self.labels
        if isinstance(value, list):
            value = tuple(value)
        if value is not False and value is not True:
            if not isinstance(value, tuple) or not all(is_int(v) for v in value):
                raise InvalidArgument(
                    f"buffer {label}: labels is True, or the ints a labeling keeps as they "
                    f"are (labels=(0,): a background), got {self.labels!r}"
                )
            value = tuple(int(v) for v in value)
        object.__setattr__(self, "labels", value)
        if value is False:
            return
        integer = self.is_scalar and self.dtype.kind in "iu"
        if self.access is not Access.READ_WRITE or self.scratch or self.unordered or not integer:
            raise InvalidArgument(
                f"buffer {label}: labels is for an output of integer scalars (read_write, not "
                "scratch, not unordered), judged as the partition its labels make"
            )

    def _check_texture(self) -> None:
        """A texture binding's format, access and extent; its element type set from the
        format, and a format of four byte channels given them as a last axis of 4."""
        label = self.name or str(self.binding)
        fmt = texture_format(self.texture, label)
        if self.access is Access.UNIFORM or self.fields:
            raise InvalidArgument(f"buffer {label}: a texture is read or read_write, not uniform")
        if self.element not in ("f32", fmt.element):
            raise InvalidArgument(
                f"buffer {label}: a {fmt.name} texture holds {fmt.element} elements (leave "
                f"element out), got {self.element!r}"
            )
        if not isinstance(self.shape, (tuple, list)) or len(self.shape) != 2:
            raise InvalidArgument(
                f"buffer {label}: a texture needs shape=(height, width) (ints or expressions "
                f"of the size), got {self.shape!r}"
            )
        if self.count is not None or self.unordered or self.scratch:
            raise InvalidArgument(
                f"buffer {label}: a texture's count is its shape's, and it is neither "
                "unordered nor scratch"
            )
        object.__setattr__(self, "element", fmt.element)
        shape = tuple(self.shape) + ((fmt.lanes,) if fmt.lanes > 1 else ())
        object.__setattr__(self, "shape", shape)

    @property
    def texture_format(self) -> TextureFormat | None:
        """The format of a texture binding (``forge.textures``), else None."""
        return None if self.texture is None else texture_format(self.texture, self.label)

    @property
    def unorm(self) -> bool:
        """Whether it is a texture of unsigned normalized bytes (rgba8unorm): held as
        bytes on a device, seen as ``k / 255`` by the reference, judged by the
        float-to-unorm rule (``forge.textures``)."""
        fmt = self.texture_format
        return fmt is not None and fmt.unorm

    def texture_extent(self, size: Any) -> tuple[int, int]:
        """(width, height) of a texture binding at ``size``; an extent of zero is
        refused (WebGPU makes no empty texture)."""
        if self.texture is None:
            raise InvalidArgument(f"buffer {self.label} is no texture")
        height, width = self._shape_dims(size)[:2]
        if width < 1 or height < 1:
            raise InvalidArgument(
                f"texture {self.label} at size {size} is {width} x {height} texels; a "
                "texture's width and height are at least 1"
            )
        return width, height

    @classmethod
    def uniform(
        cls, binding: int, fields: Sequence[tuple[str, Any]], group: int = 0, name: str = "params"
    ) -> BufferSpec:
        if not isinstance(fields, (tuple, list)):
            raise InvalidArgument(
                f"uniform buffer {binding}: fields are (name, type) pairs, got {fields!r}"
            )
        return cls(binding, "u32", Access.UNIFORM, group, name, None, tuple(fields))

    @property
    def label(self) -> str:
        """The buffer's name, or ``g<group>b<binding>`` when it has none."""
        return self.name or f"g{self.group}b{self.binding}"

    @property
    def type(self) -> Any:
        """The type of one element (the struct of fields for a uniform)."""
        return self.fields if self.access is Access.UNIFORM else self.element

    @property
    def scalar(self) -> ScalarType:
        return scalar_type(self.element)

    @property
    def is_scalar(self) -> bool:
        return _layout.parse_type(self.type).is_scalar

    @functools.cached_property
    def record_dtype(self) -> np.dtype:
        """The uniform block as the reference sees it: its fields at C's natural
        alignment, padded to 16 bytes. For scalar fields these are also the bytes WGSL
        and CUDA read, so ``pack_uniform``'s record can be uploaded to any backend; with
        vector, array or struct fields, lay it out per target (``buffer_bytes``)."""
        dtype = _layout.logical_dtype(self.type)
        if self.access is not Access.UNIFORM:
            return dtype
        padded = -(-dtype.itemsize // 16) * 16
        return _layout.with_itemsize(dtype, padded)

    @property
    def dtype(self) -> np.dtype:
        """The numpy dtype of one element as the reference sees it."""
        return self.record_dtype

    def dtype_for(self, target: str | None) -> np.dtype:
        """The numpy dtype of one element's bytes on ``target`` (None: host memory)."""
        if target is None:
            return self.dtype
        if self.unorm:
            return np.dtype(np.uint8)  # the bytes; the values are k / 255
        return _layout.target_dtype(self.type, self.layout_rules(target))

    def layout_rules(self, target: str | None) -> str | None:
        """The layout rules of this buffer's bytes on ``target`` (``forge.layout``)."""
        if target == "wgsl" and self.storage_layout:
            return "wgsl-storage"
        return _layout.rules_for(target, self.access is Access.UNIFORM)

    @property
    def is_output(self) -> bool:
        """Judged against the reference: read-write and not scratch."""
        return self.access is Access.READ_WRITE and not self.scratch

    def element_count(self, size: Any) -> int:
        if self.access is Access.UNIFORM:
            return 1
        if self.count is None:  # as many as the shape holds, else the size's
            return math.prod(self._shape_dims(size)) if self.shape is not None else int(size)
        count = resolve(self.count, None, size, f"buffer {self.label}'s count", False)
        if not is_int(count) or count < 0:
            raise InvalidArgument(
                f"buffer {self.label}'s count at size {size} is {count!r}; it must be an int >= 0"
            )
        return int(count)

    def byte_size(self, size: Any, target: str | None = None) -> int:
        return self.element_count(size) * self.dtype_for(target).itemsize

    def shape_at(self, size: Any) -> tuple[int, ...]:
        """The array shape the reference sees at ``size``."""
        count = self.element_count(size)
        if self.shape is None:
            return (count,)
        shape = self._shape_dims(size)
        if math.prod(shape) != count:
            raise InvalidArgument(
                f"buffer {self.label}: shape {shape} holds {math.prod(shape)} "
                f"elements, but its count at size {size} is {count}"
            )
        return shape

    def _shape_dims(self, size: Any) -> tuple[int, ...]:
        """``shape`` resolved at ``size``."""
        dims = resolve(self.shape, None, size, f"buffer {self.label}'s shape", False)
        if isinstance(dims, (int, np.integer, str)):
            dims = (dims,)
        return tuple(
            int(resolve(d, None, size, f"buffer {self.label}'s shape", False)) for d in dims
        )

    def describe(self) -> dict:
        """A JSON-able description, part of the kernel's semantic hash."""
        return {
            "binding": self.binding,
            "group": self.group,
            "element": _layout.type_text(_layout.parse_type(self.element)),
            "access": self.access.value,
            "name": self.name,
            "fields": [[n, _layout.type_text(_layout.parse_type(t))] for n, t in self.fields],
            "inout": self.inout,
            "count": _callable_digest(self.count),
            "shape": _callable_digest(self.shape),
            "fill": _callable_digest(self.fill),
            "initial": _callable_digest(self.initial),
            "scratch": self.scratch,
            **({"unordered": _unordered_digest(self.unordered)} if self.unordered else {}),
            **({"labels": self.labels} if self.labels is not False else {}),
            **(
                {"equally_right": _callable_digest(self.equally_right)}
                if self.equally_right is not None
                else {}
            ),
            **({"texture": self.texture} if self.texture is not None else {}),
            **({"sampler": self.sampler.describe()} if self.sampler is not None else {}),
        }


def _keys_function(unordered: Any) -> bool:
    """Whether ``unordered`` is a function giving an output's sort keys (not a bool,
    not a name)."""
    return callable(unordered) and not isinstance(unordered, (bool, str))


def _unordered_digest(unordered: Any) -> Any:
    """``unordered`` as the semantic hash holds it: a keys function by its digest."""
    return _callable_digest(unordered) if _keys_function(unordered) else unordered


def _field_problem(value: Any, dtype: np.dtype) -> str:
    """Why ``value`` cannot go into a uniform field of ``dtype`` without silently
    becoming something else ("" when it can): a bool anywhere, a non-integral number
    in an integer field (numpy would truncate 1.5 to 1)."""
    try:
        array = np.asarray(value)
    except ValueError:  # a nested struct's value: numpy's own assignment checks it
        return ""
    if array.dtype == bool:
        return "a bool is not a number here (give 0 or 1)"
    base = dtype.base
    if base.kind in "iu" and array.dtype.kind in "fc":
        with np.errstate(invalid="ignore"):
            if not np.all(np.isfinite(array)) or not np.all(np.asarray(array).real % 1 == 0):
                return f"the field holds {base.name} integers, and this is not one"
    if base.kind in "iu" and array.dtype.kind in "iuf" and array.size:
        info = np.iinfo(base)
        if np.any(array < info.min) or np.any(array > info.max):
            return f"it is outside {base.name}'s range ({info.min} to {info.max})"
    return ""


# -- launches -----------------------------------------------------------------------------

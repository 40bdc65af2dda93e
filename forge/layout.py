"""Data types and their memory layout on each target.

A buffer element or a uniform field has a *type*, written in WGSL's spelling whatever
the target: a scalar (``"f32"``, ``"i64"``, ``"f16"``, ``"bf16"``...), a vector
(``"vec3<f32>"``, or WGSL's alias ``"vec3f"``), a matrix (``"mat4x4<f32>"``, columns
of vectors), a fixed array (``"array<f32, 4>"``), or a struct given as a tuple of
``(name, type)`` pairs (nested freely). The same type lays out differently per target:

- ``"wgsl-storage"`` / ``"wgsl-uniform"``: WGSL's rules (https://www.w3.org/TR/WGSL/
  #alignment-and-size): ``vec3<f32>`` aligns to 16 bytes, uniform arrays and structs
  round their alignment up to 16;
- ``"c"``: C / CUDA's natural layout: ``float3`` aligns to 4 bytes, ``float2`` to 8,
  ``float4`` to 16, ``int64_t`` to 8.

``logical_dtype`` is the numpy dtype a reference function sees (C's natural
alignment); ``target_dtype`` the one whose bytes a target reads, with its padding;
``encode`` and ``decode`` move values between the two. Scalars are their own layout
everywhere, so the common case costs nothing.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import InvalidArgument, UnsupportedFeature
from .types import SCALAR_TYPES

__all__ = [
    "RULES",
    "TypeSpec",
    "parse_type",
    "logical_dtype",
    "target_dtype",
    "encode",
    "decode",
    "scalar_dtype",
    "SCALARS",
    "type_text",
    "rules_for",
    "as_elements",
    "scalar_lanes",
]

RULES = ("wgsl-storage", "wgsl-uniform", "c")


#: Scalar type names and their numpy dtypes, from the one dtype table (bf16 through
#: ml_dtypes, a dependency).
SCALARS: dict[str, np.dtype | None] = {name: t.numpy for name, t in SCALAR_TYPES.items()}
# What WGSL can declare at all (the rest is "unsupported, because WGSL has no ...").
_WGSL_SCALARS = {name for name, t in SCALAR_TYPES.items() if t.wgsl is not None}
# Bound packed in storage buffers on WGSL (the shader reads them from u32 words).
_PACKED = {"i8", "u8", "i16", "u16", "bf16", "f8e4m3", "f8e5m2"}


def scalar_dtype(name: str) -> np.dtype:
    """The numpy dtype of scalar type ``name``."""
    if name not in SCALARS:
        raise InvalidArgument(f"unknown scalar type {name!r}; known: {', '.join(SCALARS)}")
    dtype = SCALARS[name]
    if dtype is None:
        raise UnsupportedFeature(f"type {name} needs the ml_dtypes package (pip install ml_dtypes)")
    return dtype


@dataclass(frozen=True)
class TypeSpec:
    """A parsed type: ``kind`` is "scalar", "vec", "array" or "struct"."""

    kind: str
    scalar: str = ""  # scalar, vec: the element scalar
    count: int = 1  # vec: lanes; array: elements
    element: TypeSpec | None = None  # array: its element type
    fields: tuple[tuple[str, TypeSpec], ...] = ()  # struct: its members
    matrix: bool = False  # array: a matCxR, columns of vecR
    # struct: per member, the (size, align) WGSL's @size(N) / @align(N) set (None where
    # one sets none); empty when no member sets either. A spec's fields never set them
    # (padding fields say the same); a shader's struct read by ``forge.sources`` may.
    attrs: tuple[tuple[int | None, int | None], ...] = ()

    @property
    def is_scalar(self) -> bool:
        return self.kind == "scalar"

    def scalars(self) -> set[str]:
        """Every scalar type this type is made of."""
        if self.kind in ("scalar", "vec"):
            return {self.scalar}
        if self.kind == "array":
            return self.element.scalars()  # type: ignore[union-attr]
        return set().union(*(t.scalars() for _, t in self.fields))


_VEC = re.compile(r"^vec([234])\s*<\s*(\w+)\s*>$")
_MAT = re.compile(r"^mat([234])x([234])\s*<\s*(\w+)\s*>$")
_ARRAY = re.compile(r"^array\s*<\s*(.+)\s*,\s*(\d+)u?\s*>$")
# WGSL's predeclared aliases: vec4f, vec3u, vec2i, vec4h, mat4x4f, mat3x3h.
_ALIAS = re.compile(r"^(vec[234]|mat[234]x[234])([fiuh])$")
_ALIASED = {"f": "f32", "i": "i32", "u": "u32", "h": "f16"}


@functools.lru_cache(maxsize=512)
def _parse_text(text: str) -> TypeSpec:
    text = text.strip()
    if text in SCALARS:
        return TypeSpec("scalar", text)
    alias = _ALIAS.match(text)
    if alias:
        text = f"{alias.group(1)}<{_ALIASED[alias.group(2)]}>"
    match = _MAT.match(text)
    if match:
        if match.group(3) not in ("f32", "f16", "f64"):
            raise InvalidArgument(f"a matrix holds floats: {text!r}")
        column = TypeSpec("vec", match.group(3), int(match.group(2)))
        return TypeSpec("array", count=int(match.group(1)), element=column, matrix=True)
    match = _VEC.match(text)
    if match:
        if match.group(2) not in SCALARS:
            raise InvalidArgument(f"unknown vector element type in {text!r}")
        return TypeSpec("vec", match.group(2), int(match.group(1)))
    match = _ARRAY.match(text)
    if match:
        count = int(match.group(2))
        if count < 1:
            raise InvalidArgument(f"array type {text!r} needs at least one element")
        return TypeSpec("array", count=count, element=_parse_text(match.group(1)))
    raise InvalidArgument(
        f"unknown type {text!r}: use a scalar ({', '.join(SCALARS)}), "
        "vecN<T> (or vec4f...), matCxR<T>, array<T, N>, or a struct as "
        "((name, type), ...)"
    )


def parse_type(value: Any) -> TypeSpec:
    """A ``TypeSpec`` from a type name or a struct (a sequence of (name, type) pairs)."""
    if isinstance(value, TypeSpec):
        return value
    if isinstance(value, str):
        return _parse_text(value)
    if isinstance(value, (tuple, list)) and value:
        fields = []
        for item in value:
            if not (
                isinstance(item, (tuple, list))
                and len(item) == 2
                and isinstance(item[0], str)
                and item[0].isidentifier()
            ):
                raise InvalidArgument(f"a struct is a sequence of (name, type) pairs, got {item!r}")
            fields.append((item[0], parse_type(item[1])))
        names = [n for n, _ in fields]
        if len(set(names)) != len(names):
            twice = sorted({n for n in names if names.count(n) > 1})
            raise InvalidArgument(f"struct fields {twice} are declared twice")
        return TypeSpec("struct", fields=tuple(fields))
    raise InvalidArgument(
        f"a type is a name such as 'f32' or 'vec4<f32>', or a struct of "
        f"(name, type) pairs; got {value!r}"
    )


def type_text(t: TypeSpec) -> Any:
    """The JSON-able spelling of a type (a name, or nested pairs for a struct)."""
    if t.kind == "scalar":
        return t.scalar
    if t.kind == "vec":
        return f"vec{t.count}<{t.scalar}>"
    if t.matrix:
        return f"mat{t.count}x{t.element.count}<{t.element.scalar}>"  # type: ignore[union-attr]
    if t.kind == "array":
        inner = type_text(t.element)  # type: ignore[arg-type]
        return f"array<{inner}, {t.count}>" if isinstance(inner, str) else [inner, t.count]
    return [[n, type_text(f)] for n, f in t.fields]


def rules_for(target: str | None, uniform: bool) -> str | None:
    """The layout rules of ``target`` ("wgsl", "cuda", None for host memory)."""
    if target is None:
        return None
    if target == "wgsl":
        return "wgsl-uniform" if uniform else "wgsl-storage"
    return "c"


def _round_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


def _size_align(t: TypeSpec, rules: str) -> tuple[int, int]:
    """(size, alignment) of ``t`` under ``rules``."""
    if rules not in RULES:
        raise InvalidArgument(f"unknown layout rules {rules!r}; known: {', '.join(RULES)}")
    # WGSL has no 8- or 16-bit integers and no bfloat16, but a storage buffer is bytes:
    # a tensor of them is bound packed (a shader declares array<u32> and unpacks four
    # u8 or two bf16 per word, as ONNX Runtime Web and WebLLM do).
    packed = rules == "wgsl-storage" and t.kind == "scalar" and t.scalar in _PACKED
    if rules.startswith("wgsl") and not packed:
        for scalar in t.scalars():
            if scalar not in _WGSL_SCALARS:
                raise UnsupportedFeature(
                    f"type {type_text(t)} is unsupported on WGSL, because WGSL has no "
                    f"{scalar} type"
                    + (
                        " (a storage buffer of them is bound packed: the "
                        "shader declares array<u32>)"
                        if scalar in _PACKED
                        else ""
                    )
                )
    if t.kind == "scalar":
        size = scalar_dtype(t.scalar).itemsize
        return size, size
    if t.kind == "vec":
        lane = scalar_dtype(t.scalar).itemsize
        if rules == "c":
            align = lane * (4 if t.count >= 4 else t.count if t.count == 2 else 1)
            return lane * t.count, min(align, 16)
        return lane * t.count, lane * (2 if t.count == 2 else 4)
    if t.kind == "array":
        size, align = _size_align(t.element, rules)  # type: ignore[arg-type]
        stride = _round_up(size, align)
        if rules == "wgsl-uniform" and not t.matrix:  # a matrix's columns keep their stride
            align = _round_up(align, 16)
            stride = _round_up(stride, 16)
        return stride * t.count, align
    offsets, size, align = _struct_offsets(t, rules)
    return size, align


def _struct_offsets(t: TypeSpec, rules: str) -> tuple[list[int], int, int]:
    offsets, end, align = [], 0, 1
    follow_struct = 0  # uniform: a member after a struct starts at least 16-rounded past it
    for i, (_, field) in enumerate(t.fields):
        size, field_align = _size_align(field, rules)
        if t.attrs:
            size = t.attrs[i][0] or size
            field_align = t.attrs[i][1] or field_align
        offset = max(_round_up(end, field_align), follow_struct)
        offsets.append(offset)
        end = offset + size
        follow_struct = (
            offset + _round_up(size, 16)
            if rules == "wgsl-uniform" and field.kind == "struct"
            else 0
        )
        align = max(align, field_align)
    if rules == "wgsl-uniform":
        align = _round_up(align, 16)
    return offsets, _round_up(max(end, 1), align), align


def scalar_lanes(t: TypeSpec, rules: str, base: int = 0, path: str = "") -> list[tuple]:
    """Every scalar of ``t`` laid out under ``rules``: (byte offset, size, kind: "f"
    float or "i" integer, its path such as ``shape.y`` or ``m[2].x``), in order. Two
    types whose lanes agree hold the same values at the same bytes (two u32 fields and
    one vec2<u32>, say)."""
    if t.kind == "scalar":
        size = scalar_dtype(t.scalar).itemsize
        return [(base, size, _kind(t.scalar), path)]
    if t.kind == "vec":
        lane = scalar_dtype(t.scalar).itemsize
        names = "xyzw"
        return [
            (base + i * lane, lane, _kind(t.scalar), f"{path}.{names[i]}") for i in range(t.count)
        ]
    if t.kind == "array":
        stride = _size_align(t, rules)[0] // max(t.count, 1)
        element = t.element
        assert element is not None
        return [
            lane
            for i in range(t.count)
            for lane in scalar_lanes(element, rules, base + i * stride, f"{path}[{i}]")
        ]
    offsets = _struct_offsets(t, rules)[0]
    return [
        lane
        for (name, field), offset in zip(t.fields, offsets)
        for lane in scalar_lanes(field, rules, base + offset, f"{path}.{name}" if path else name)
    ]


def _kind(scalar: str) -> str:
    return "f" if scalar.startswith(("f", "bf")) else "i"


def size_align(value: Any, rules: str) -> tuple[int, int]:
    """(size, alignment) in bytes of a type under ``rules``."""
    return _size_align(parse_type(value), rules)


@functools.lru_cache(maxsize=512)
def _logical(t: TypeSpec) -> np.dtype:
    if t.kind == "scalar":
        return scalar_dtype(t.scalar)
    if t.kind == "vec":
        return np.dtype((scalar_dtype(t.scalar), (t.count,)))
    if t.kind == "array":
        element = _logical(t.element)
        if element.subdtype is not None:
            # an array of vectors (a matrix's columns): one scalar sub-array, the lanes
            # as trailing axes (numpy keeps a sub-array of sub-arrays nested, and its
            # ``subdtype`` then names a sub-array where a scalar is expected)
            base, shape = element.subdtype
            return np.dtype((base, (t.count, *shape)))
        return np.dtype((element, (t.count,)))
    return np.dtype([(n, _logical(f)) for n, f in t.fields], align=True)


@functools.lru_cache(maxsize=512)
def _target(t: TypeSpec, rules: str) -> np.dtype:
    if t.kind == "scalar":
        return scalar_dtype(t.scalar)
    size, _ = _size_align(t, rules)
    if t.kind == "vec":
        return np.dtype(
            {
                "names": ["v"],
                "formats": [(scalar_dtype(t.scalar), (t.count,))],
                "offsets": [0],
                "itemsize": size,
            }
        )
    if t.kind == "array":
        element = _target(t.element, rules)
        stride = size // t.count
        return np.dtype(
            {
                "names": [f"e{i}" for i in range(t.count)],
                "formats": [element] * t.count,
                "offsets": [i * stride for i in range(t.count)],
                "itemsize": size,
            }
        )
    offsets, size, _ = _struct_offsets(t, rules)
    return np.dtype(
        {
            "names": [n for n, _ in t.fields],
            "formats": [_target(f, rules) for _, f in t.fields],
            "offsets": offsets,
            "itemsize": size,
        }
    )


def logical_dtype(value: Any) -> np.dtype:
    """The numpy dtype of the values (what a reference function reads and writes)."""
    return _logical(parse_type(value))


def target_dtype(value: Any, rules: str | None) -> np.dtype:
    """The numpy dtype of one element as a target reads it in an array (``rules``
    None: the logical one): its size rounded up to its alignment, the array stride
    (a WGSL ``array<vec3<f32>>`` has 16-byte elements)."""
    t = parse_type(value)
    if rules is None:
        return _logical(t)
    dtype = _target(t, rules)
    size, align = _size_align(t, rules)
    stride = _round_up(size, align)
    if stride == dtype.itemsize:
        return dtype
    return with_itemsize(dtype, stride)


def with_itemsize(dtype: np.dtype, itemsize: int) -> np.dtype:
    """The structured ``dtype`` with its fields where they are, ``itemsize`` bytes long."""
    names, fields = dtype.names, dtype.fields
    if names is None or fields is None:
        raise TypeError(f"{dtype} is not a structured dtype")
    return np.dtype(
        {
            "names": list(names),
            "formats": [fields[n][0] for n in names],
            "offsets": [fields[n][1] for n in names],
            "itemsize": itemsize,
        }
    )


def _lane(i: int, element: TypeSpec) -> tuple:
    """Index of element ``i`` of a logical array whose elements have ``element``'s
    logical shape (the array axis comes before the element's own axes)."""
    return (Ellipsis, i) + (slice(None),) * len(_logical(element).shape)


def _copy_in(dst: np.ndarray, src: np.ndarray, t: TypeSpec) -> None:
    if t.kind == "scalar":
        dst[...] = src
    elif t.kind == "vec":
        dst["v"] = src
    elif t.kind == "array":
        for i in range(t.count):
            _copy_in(dst[f"e{i}"], src[_lane(i, t.element)], t.element)  # type: ignore[arg-type]
    else:
        for name, field in t.fields:
            _copy_in(dst[name], src[name], field)


def _copy_out(dst: np.ndarray, src: np.ndarray, t: TypeSpec) -> None:
    if t.kind == "scalar":
        dst[...] = src
    elif t.kind == "vec":
        dst[...] = src["v"]
    elif t.kind == "array":
        for i in range(t.count):
            _copy_out(dst[_lane(i, t.element)], src[f"e{i}"], t.element)  # type: ignore[arg-type]
    else:
        for name, field in t.fields:
            _copy_out(dst[name], src[name], field)


def encode(
    values: np.ndarray, value_type: Any, rules: str | None, fill: np.ndarray | None = None
) -> np.ndarray:
    """``values`` (of ``logical_dtype``) in the layout ``rules`` gives, as an array of
    ``target_dtype``. Padding bytes come from ``fill`` (same shape, target dtype) when
    given, else are zero."""
    t = parse_type(value_type)
    logical = _logical(t)
    values = np.asarray(values)
    if logical.subdtype is not None and values.dtype != logical:
        # A vector or array element: ``values`` has the lanes as trailing axes, and
        # numpy would broadcast each scalar over a sub-array dtype; keep the lanes.
        values = values.astype(logical.base, copy=False)
        if rules is None:
            return values
    elif rules is None or t.is_scalar:
        return np.asarray(values, logical)
    count = values.shape[: values.ndim - len(logical.shape)]
    out = np.zeros(count, _target(t, rules)) if fill is None else fill.copy()
    _copy_in(out, values, t)
    return out


def decode(raw: np.ndarray, value_type: Any, rules: str | None) -> np.ndarray:
    """The values held by ``raw`` (an array of ``target_dtype``), as ``logical_dtype``."""
    t = parse_type(value_type)
    if rules is None or t.is_scalar:
        return raw
    out = np.zeros(raw.shape, _logical(t))
    _copy_out(out, raw, t)
    return out


def as_elements(raw: np.ndarray, dtype: np.dtype, count: int) -> np.ndarray:
    """The first ``count`` elements of ``dtype`` in the bytes ``raw`` (a view where it
    can be): shape ``(count, *lanes)`` for a vector or array element type."""
    raw = raw[: count * dtype.itemsize]
    if dtype.subdtype is not None:
        base, shape = dtype.subdtype
        return raw.view(base).reshape((count, *shape))
    return raw.view(dtype)


def data_mask(value_type: Any, rules: str | None) -> np.ndarray:
    """Per byte of one element in the ``rules`` layout, whether it holds data (True) or
    padding (False)."""
    t = parse_type(value_type)
    dtype = target_dtype(t, rules)
    mask = np.zeros(dtype.itemsize, bool)

    def mark(dt: np.dtype, base: int) -> None:
        fields = dt.fields
        if dt.names is None or fields is None:  # one is None exactly when the other is
            mask[base : base + dt.itemsize] = True
            return
        for name in dt.names:
            sub, offset = fields[name][:2]
            mark(sub, base + offset)

    mark(dtype, 0)
    return mask


def struct_fields(value: Any) -> Sequence[tuple[str, TypeSpec]]:
    t = parse_type(value)
    return t.fields if t.kind == "struct" else ()

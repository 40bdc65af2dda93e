"""``Size``: a kernel's problem size, one or more named dimensions (docs/DESIGN.md
section 9: ``--size 4096x32768`` or ``--size M=512,N=512,K=256``).

A ``Size`` is an ``int`` equal to the product of its dimensions, so the functions a
kernel declares (``count``, ``params``, ``grid``...) that were written for a one-number
size keep working, and a buffer of ``rows * cols`` elements is simply ``count=size``.
Its dimensions are read by name: ``size.rows``, ``size["K"]``, ``dict(size.dims)``.
A kernel names its dimensions (``KernelSpec.dims``, ``("n",)`` by default) and
``KernelSpec.size(value)`` turns what a user gave into a ``Size`` with those names.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TypeGuard

import numpy as np

from .errors import InvalidArgument

__all__ = ["Size", "parse_size", "is_int"]

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def is_int(value: Any) -> TypeGuard[int | np.integer]:
    """A Python or numpy integer, and not a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


class Size(int):
    """A problem size with named dimensions; as an int, their product.

    ``Size(4099)`` has one dimension named ``n``; ``Size({"M": 512, "K": 256})`` two.
    Two sizes are equal when their dimensions are (a one-dimension size also equals
    its plain int). Immutable and picklable."""

    _dims: dict[str, int]

    def __new__(cls, dims: Mapping[str, int] | int | Size, name: str = "n") -> Size:
        if isinstance(dims, Size):
            return dims
        if is_int(dims):
            dims = {name: int(dims)}
        if not isinstance(dims, Mapping) or not dims:
            raise InvalidArgument(
                f"a size is an int >= 0 or a mapping of dimension names to ints >= 0, got {dims!r}"
            )
        checked: dict[str, int] = {}
        for key, value in dims.items():
            if not isinstance(key, str) or not _NAME.match(key):
                raise InvalidArgument(f"size dimension names are identifiers, got {key!r}")
            if not is_int(value) or value < 0:
                raise InvalidArgument(f"size dimension {key} must be an int >= 0, got {value!r}")
            checked[key] = int(value)
        self = super().__new__(cls, math.prod(checked.values()))
        self._dims = checked
        return self

    @property
    def dims(self) -> dict[str, int]:
        """The dimensions by name, in the kernel's order (a copy)."""
        return dict(self._dims)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._dims)

    def __getattr__(self, name: str) -> int:
        dims = self.__dict__.get("_dims", {})
        if name in dims:
            return dims[name]
        raise AttributeError(
            f"size {self} has no dimension {name!r} (it has {', '.join(dims) or 'none'})"
        )

    def __getitem__(self, name: str) -> int:
        try:
            return self._dims[name]
        except KeyError:
            raise KeyError(f"size {self} has no dimension {name!r}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._dims)

    def __len__(self) -> int:
        return len(self._dims)

    def keys(self):
        return self._dims.keys()

    def values(self):
        return self._dims.values()

    def items(self):
        return self._dims.items()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Size):
            return self._dims == other._dims
        if is_int(other) and len(self._dims) == 1:
            return int(self) == int(other)
        return False

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(int(self)) if len(self._dims) == 1 else hash(tuple(self._dims.items()))

    def __reduce__(self):
        return (Size, (self._dims,))

    def __repr__(self) -> str:
        return f"Size({', '.join(f'{k}={v}' for k, v in self._dims.items())})"

    def __str__(self) -> str:
        if len(self._dims) == 1:
            return str(int(self))
        return ",".join(f"{k}={v}" for k, v in self._dims.items())

    def as_dict(self) -> dict[str, int]:
        return dict(self._dims)


def parse_size(value: Any, names: Sequence[str] = ("n",)) -> Size:
    """A ``Size`` with dimensions ``names`` from what a user gave:

    - an int (or its text): every dimension takes that value (``512`` for ``M, N, K``
      is 512 cubed; for a one-dimension kernel it is just the size);
    - a sequence of ints, or text ``"4096x32768"``: the dimensions in order;
    - a mapping, or text ``"M=512,N=512,K=256"``: by name (every name must be given);
    - a ``Size``: its dimensions, checked against ``names``.
    """
    names = tuple(names)
    if isinstance(value, str):
        value = _parse_text(value.strip(), names)
    if isinstance(value, Size):
        value = value.dims if set(value.names) == set(names) or len(value) != 1 else int(value)
    if is_int(value):
        if value < 0:
            raise InvalidArgument(f"a size (element count) must be >= 0, got {value}")
        return Size({name: int(value) for name in names})
    if isinstance(value, Mapping):
        unknown = [k for k in value if k not in names]
        missing = [n for n in names if n not in value]
        if unknown or missing:
            raise InvalidArgument(
                f"size {dict(value)} does not match the dimensions {', '.join(names)}"
                + (f": unknown {unknown}" if unknown else "")
                + (f": missing {missing}" if missing else "")
            )
        return Size({n: value[n] for n in names})
    if isinstance(value, (tuple, list)):
        if len(value) != len(names):
            raise InvalidArgument(
                f"size {tuple(value)} has {len(value)} dimensions; this "
                f"kernel's are {', '.join(names)} ({len(names)})"
            )
        return Size(dict(zip(names, value)))
    raise InvalidArgument(f"a size is an int, 'AxB', 'M=..,N=..' or a mapping, got {value!r}")


def _parse_text(text: str, names: tuple[str, ...]) -> Any:
    def number(part: str) -> int:
        try:
            result = int(part.strip())
        except ValueError:
            raise InvalidArgument(f"bad number {part.strip()!r} in size {text!r}") from None
        return result

    if "=" in text:
        named = {}
        for item in filter(None, (p.strip() for p in text.split(","))):
            key, _, raw = item.partition("=")
            named[key.strip()] = number(raw)
        return named
    if "x" in text.lower():
        parts = tuple(number(p) for p in text.lower().split("x"))
        return parts
    if not text:
        raise InvalidArgument("an empty size")
    return number(text)

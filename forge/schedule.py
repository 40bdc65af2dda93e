"""``Schedule``: how a kernel's work is laid out on the device, and the check that the
adapter can run it (docs/DESIGN.md section 3)."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from . import _checks
from .errors import InvalidArgument, UnsupportedFeature
from .types import AdapterConstraints

__all__ = ["Schedule"]

# 8 only where 8 elements are 16 bytes: rows of 2-byte elements on CUDA (the lowering
# refuses it elsewhere, saying why).
_VECTOR_WIDTHS = (1, 2, 4, 8)
# Short keys of the textual form ("wg=128,ipt=4,vec=4"), used by the CLI and headers.
_KEYS = {
    "wg": "workgroup_size",
    "ipt": "items_per_invocation",
    "vec": "vector_width",
    "tile": "tile",
    "grid": "max_workgroups",
    "unroll": "unroll",
    "mma": "mma",
    "sg": "subgroups",
}

#: The on/off fields (0 or 1 in the textual form).
_FLAGS = ("unroll", "mma", "subgroups")


def _as_dims(value: int | tuple[int, ...]) -> tuple[int, int, int]:
    """A workgroup size (one int, or 1 to 3 of them) as three positive ints."""
    if isinstance(value, (numbers.Number, np.generic)):  # one dimension; checked below
        dims: tuple = (value,)
    elif isinstance(value, str):
        raise InvalidArgument(
            f"workgroup size must be an int or a tuple of ints, got "
            f"{value!r}; Schedule.parse reads the text form"
        )
    else:
        dims = _checks.sequence(value, "workgroup size")
    if not 1 <= len(dims) <= 3:
        raise InvalidArgument(f"workgroup size needs 1 to 3 dimensions, got {value!r}")
    dims = tuple(_checks.integer(d, "workgroup size") for d in dims)
    if min(dims) < 1:
        raise InvalidArgument(f"workgroup size must be positive, got {dims}")
    return dims + (1,) * (3 - len(dims))


@dataclass(frozen=True)
class Schedule:
    """Workgroup size, items per invocation, vector width, tile sizes, an optional
    grid cap (``max_workgroups``: the kernel then strides over the rest), and
    ``unroll``: write the loops over a tiled kernel's register arrays out in full on
    targets without an unroll hint (WGSL), so their indices are constants (a matmul
    choice; CUDA unrolls them by pragma either way); ``mma``: compute a matmul with the
    device's matrix-multiply-accumulate units (CUDA tensor cores through WMMA);
    ``subgroups``: reduce across invocations with the device's subgroup operations
    (a rows choice on WGSL where the adapter offers ``subgroup``; CUDA's row reductions
    always use warp shuffles)."""

    workgroup_size: tuple[int, int, int] = (64, 1, 1)
    items_per_invocation: int = 1
    vector_width: int = 1
    tile: tuple[int, ...] | None = None
    max_workgroups: int | None = None
    unroll: bool = False
    mma: bool = False
    subgroups: bool = False

    if TYPE_CHECKING:
        # What the generated __init__ accepts, as __post_init__ normalises it: a
        # workgroup size of one int or 1 to 3 of them, any sequence of tile sizes.
        def __init__(
            self,
            workgroup_size: int | Sequence[int] = (64, 1, 1),
            items_per_invocation: int = 1,
            vector_width: int = 1,
            tile: Sequence[int] | None = None,
            max_workgroups: int | None = None,
            unroll: bool = False,
            mma: bool = False,
            subgroups: bool = False,
        ) -> None: ...

    def __post_init__(self) -> None:
        # Every field is checked and kept as plain ints, so that equal schedules compare
        # and hash equal however they were spelt (64 or numpy.int64(64)).
        def keep(name: str, value) -> None:
            object.__setattr__(self, name, value)

        keep("workgroup_size", _as_dims(self.workgroup_size))
        keep(
            "items_per_invocation",
            _checks.integer(self.items_per_invocation, "items per invocation", minimum=1),
        )
        keep("vector_width", _checks.integer(self.vector_width, "vector width"))
        if self.vector_width not in _VECTOR_WIDTHS:
            raise InvalidArgument(
                f"vector width must be one of {_VECTOR_WIDTHS}, got {self.vector_width}"
            )
        if self.tile is not None:
            keep(
                "tile",
                tuple(
                    _checks.integer(t, "tile size", minimum=1)
                    for t in _checks.sequence(self.tile, "tile")
                ),
            )
        if self.max_workgroups is not None:
            keep(
                "max_workgroups", _checks.integer(self.max_workgroups, "max_workgroups", minimum=1)
            )
        for flag in _FLAGS:
            if getattr(self, flag) not in (False, True):  # 0 and 1 from the textual form
                key = next(k for k, name in _KEYS.items() if name == flag)
                spelt = flag if key == flag else f"{flag} ({key}=)"
                raise InvalidArgument(f"{spelt} is 0 or 1, got {getattr(self, flag)!r}")
            keep(flag, bool(getattr(self, flag)))

    @property
    def invocations(self) -> int:
        """Invocations (threads) per workgroup."""
        x, y, z = self.workgroup_size
        return x * y * z

    @property
    def elements_per_workgroup(self) -> int:
        """Elements one workgroup covers in a 1-D dispatch."""
        return self.invocations * self.items_per_invocation * self.vector_width

    def dispatch_workgroups(
        self, element_count: int, max_per_dimension: int = 65535
    ) -> tuple[int, int, int]:
        """Workgroups for a 1-D problem of ``element_count`` elements.

        A count over ``max_per_dimension`` spills into y (kernels linearise the
        workgroup id as ``y * num_workgroups.x + x``); ``max_workgroups`` caps the total.
        """
        if element_count < 0:
            raise InvalidArgument(f"element count must be >= 0, got {element_count}")
        total = max(1, -(-element_count // self.elements_per_workgroup))  # exact for any size
        if self.max_workgroups is not None:
            total = min(total, self.max_workgroups)
        if total <= max_per_dimension:
            return (total, 1, 1)
        y = -(-total // max_per_dimension)
        if y > max_per_dimension:
            raise UnsupportedFeature(
                f"{element_count} elements need {total} workgroups, more than "
                f"max_workgroups_per_dimension={max_per_dimension} squared"
            )
        return (-(-total // y), y, 1)

    def check(self, constraints: AdapterConstraints) -> None:
        """Raise ``UnsupportedFeature`` naming the first adapter limit this breaks."""
        limits = constraints.max_workgroup_size
        for axis, (want, limit) in enumerate(zip(self.workgroup_size, limits)):
            if want > limit:
                raise UnsupportedFeature(
                    f"workgroup size {self.workgroup_size} exceeds max_workgroup_size"
                    f"[{'xyz'[axis]}]={limit}"
                )
        if self.invocations > constraints.max_invocations_per_workgroup:
            raise UnsupportedFeature(
                f"workgroup of {self.invocations} invocations exceeds "
                f"max_invocations_per_workgroup={constraints.max_invocations_per_workgroup}"
            )

    def with_(self, **changes) -> Schedule:
        """A copy with some fields changed."""
        return replace(self, **changes)

    def __str__(self) -> str:
        x, y, z = self.workgroup_size
        wg = str(x) if (y, z) == (1, 1) else f"{x}x{y}" if z == 1 else f"{x}x{y}x{z}"
        parts = [f"wg={wg}", f"ipt={self.items_per_invocation}", f"vec={self.vector_width}"]
        if self.tile is not None:
            parts.append("tile=" + "x".join(map(str, self.tile)))
        if self.max_workgroups is not None:
            parts.append(f"grid={self.max_workgroups}")
        on = [key for key, name in _KEYS.items() if name in _FLAGS and getattr(self, name)]
        parts += [f"{key}=1" for key in on]
        return ",".join(parts)

    @classmethod
    def parse(cls, text: str) -> Schedule:
        """Parse the textual form, e.g. ``"wg=128,ipt=4,vec=4"`` or ``"wg=16x16,tile=64x64x8"``."""
        values: dict[str, object] = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            key, sep, raw = part.partition("=")
            if not sep or key.strip() not in _KEYS:
                raise InvalidArgument(
                    f"bad schedule item {part!r} in {text!r}; use keys {', '.join(_KEYS)}"
                )
            try:
                numbers = tuple(int(v) for v in raw.strip().split("x"))
            except ValueError:
                raise InvalidArgument(f"bad number in schedule item {part!r}") from None
            name = _KEYS[key.strip()]
            if name in ("workgroup_size", "tile"):
                values[name] = numbers
            elif len(numbers) != 1:
                raise InvalidArgument(f"schedule item {part!r} takes one number")
            else:
                values[name] = numbers[0]
        return cls(**values)  # type: ignore[arg-type]

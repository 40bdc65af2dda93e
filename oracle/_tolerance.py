"""Tolerances: how far a backend's output may stray from the reference.

A ``Tolerance`` holds absolute, relative and ULP budgets plus the explicit policy for
NaN, signed zeros and subnormals. Defaults are keyed by dtype; a kernel's
``tolerance`` mapping overrides them (keys: a dtype name such as ``"f32"``, or
``"backend:NAME"`` whose value is either a flat override for every dtype or a mapping
keyed by dtype), and a caller's tolerance is merged in last.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from forge.errors import InvalidArgument
from forge.types import SCALAR_TYPES

__all__ = [
    "Tolerance",
    "DEFAULT_TOLERANCES",
    "default_tolerance",
    "resolve_tolerance",
    "dtype_name",
]

_NAN_POLICIES = ("equal", "propagate", "forbid")


@dataclass(frozen=True)
class Tolerance:
    """An element ``got`` matches ``want`` when ``|got - want| <= atol + rtol * |want|``
    or when they are at most ``ulp`` units in the last place apart.

    Policy for values that are not ordinary numbers:
    - ``nan="equal"``: NaN matches NaN whatever its payload; ``"propagate"``: so too, and
      a NaN input must reach the outputs as the reference carries it (the oracle does
      not also accept the reference with NaN inputs taken as missing, as WGSL's ``max``
      and ``fmaxf`` drop them: for a ``torch.argmax`` whose first NaN wins);
      ``"forbid"``: any NaN fails;
    - +Inf and -Inf match only themselves (never subject to atol/rtol);
    - ``signed_zeros=False``: -0.0 matches +0.0; ``True``: the sign must agree;
    - ``flush_subnormals=True``: subnormal values compare as a zero of the same sign,
      because WGSL allows, and CUDA's ``-ftz`` does, flushing them.
    """

    atol: float = 0.0
    rtol: float = 0.0
    ulp: int = 0
    nan: str = "equal"
    signed_zeros: bool = False
    flush_subnormals: bool = True

    def __post_init__(self) -> None:
        for name in ("atol", "rtol"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not value >= 0:
                raise InvalidArgument(f"tolerance {name} must be a number >= 0, got {value!r}")
        ulp = self.ulp
        if not isinstance(ulp, (int, np.integer)) or isinstance(ulp, bool) or ulp < 0:
            raise InvalidArgument(f"tolerance ulp must be an int >= 0, got {self.ulp!r}")
        if self.nan not in _NAN_POLICIES:
            raise InvalidArgument(
                f"tolerance nan policy must be one of {_NAN_POLICIES}, got {self.nan!r}"
            )
        object.__setattr__(self, "atol", float(self.atol))
        object.__setattr__(self, "rtol", float(self.rtol))
        object.__setattr__(self, "ulp", int(self.ulp))

    def merged(self, override: Tolerance | Mapping[str, Any] | None) -> Tolerance:
        """A copy with the fields of ``override`` (a Tolerance replaces everything)."""
        if override is None:
            return self
        if isinstance(override, Tolerance):
            return override
        if not isinstance(override, Mapping):
            raise InvalidArgument(
                f"a tolerance override must be a Tolerance or a mapping of "
                f"its fields, got {type(override).__name__}"
            )
        known = {f.name for f in fields(self)}
        unknown = set(override) - known
        if unknown:
            raise InvalidArgument(
                f"unknown tolerance fields {sorted(unknown)}; fields are {sorted(known)}"
            )
        return replace(self, **dict(override))

    def loosest(self, other: Tolerance) -> Tolerance:
        """The tolerance accepting whatever either accepts (for comparing two backends)."""
        return Tolerance(
            max(self.atol, other.atol),
            max(self.rtol, other.rtol),
            max(self.ulp, other.ulp),
            next(p for p in _NAN_POLICIES if p in (self.nan, other.nan)),
            self.signed_zeros and other.signed_zeros,
            self.flush_subnormals or other.flush_subnormals,
        )

    def describe(self) -> str:
        text = f"atol={self.atol:g} rtol={self.rtol:g} ulp={self.ulp}"
        extras = [f"nan={self.nan}"] if self.nan != "equal" else []
        extras += ["signed zeros"] if self.signed_zeros else []
        extras += [] if self.flush_subnormals else ["subnormals kept"]
        return " ".join([text, *extras])

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


# Budgets a correct kernel meets when it computes each element with a few roundings
# (an FMA contracted or not, a reordered short sum); kernels with long reductions or
# approximate transcendentals widen them through ``KernelSpec.tolerance``.
DEFAULT_TOLERANCES: dict[str, Tolerance] = {
    "f16": Tolerance(atol=1e-3, rtol=1e-3, ulp=2),
    # bfloat16 keeps 8 significant bits (ulp 2^-7 at 1): the same few roundings as f16
    # cost 8 times more, relative and absolute.
    "bf16": Tolerance(atol=8e-3, rtol=8e-3, ulp=2),
    # FP8 keeps 4 (E4M3) or 3 (E5M2) significant bits. Comparing two FP8 arrays, one
    # step is allowed (a rounding near a tie); judging a kernel against its numpy
    # reference, the oracle instead takes the code numpy rounds to, or near a tie the
    # other one (``Expected.fp8_roundings``), unless the kernel declares a tolerance
    # for the dtype: one step everywhere let a quantizer that truncates pass.
    "f8e4m3": Tolerance(atol=2.0**-9, rtol=2.0**-3, ulp=1),
    "f8e5m2": Tolerance(atol=2.0**-16, rtol=2.0**-2, ulp=1),
    "f32": Tolerance(atol=1e-6, rtol=1e-5, ulp=4),
    "f64": Tolerance(atol=1e-12, rtol=1e-10, ulp=4),
    "i32": Tolerance(),
    "u32": Tolerance(),
}

_NUMPY_NAMES = {t.numpy.name: t.name for t in SCALAR_TYPES.values()}


def dtype_name(dtype: Any) -> str:
    """The project's name of a numpy dtype (``float32`` -> ``"f32"``), else numpy's."""
    name = np.dtype(dtype).name
    return _NUMPY_NAMES.get(name, name)


def default_tolerance(dtype: Any) -> Tolerance:
    """The default tolerance of a dtype (exact for anything not in the table)."""
    return DEFAULT_TOLERANCES.get(dtype_name(dtype), Tolerance())


def _per_dtype(value: Any, dtype: str, where: str) -> Any:
    """From an override that is flat or keyed by dtype, the part for ``dtype``."""
    if isinstance(value, Tolerance) or value is None:
        return value
    if not isinstance(value, Mapping):
        raise InvalidArgument(
            f"{where}: expected a Tolerance or a mapping, got {type(value).__name__}"
        )
    if value and all(k in DEFAULT_TOLERANCES for k in value):
        return value.get(dtype)
    return value


def resolve_tolerance(
    dtype: Any,
    kernel_tolerance: Mapping[str, Any] | None = None,
    backend: str | None = None,
    override: Any = None,
) -> Tolerance:
    """The tolerance for outputs of ``dtype``: the dtype's default, then the kernel's
    entry for that dtype, then its ``"backend:NAME"`` entry, then ``override`` (flat or
    keyed by dtype)."""
    name = dtype_name(dtype)
    tolerance = default_tolerance(dtype)
    table = dict(kernel_tolerance or {})
    for key in table:
        if not (key.startswith("backend:") or key in DEFAULT_TOLERANCES):
            raise InvalidArgument(
                f"kernel tolerance key {key!r} is neither a dtype "
                f"({', '.join(DEFAULT_TOLERANCES)}) nor 'backend:NAME'"
            )
    tolerance = tolerance.merged(table.get(name))
    if backend is not None:
        tolerance = tolerance.merged(
            _per_dtype(table.get(f"backend:{backend}"), name, f"tolerance 'backend:{backend}'")
        )
    return tolerance.merged(_per_dtype(override, name, "tolerance override"))

"""The argument checks of the public boundary, in one place.

Every backend (``SlabContext`` and its subclasses), the allocator, ``Schedule`` and the
registry check what a caller hands them with these functions, so the same value is
accepted or refused the same way everywhere, with the same kind of message:

- integers are Python or numpy integers, never ``bool`` (``True`` is an ``int`` to
  Python, but never what a caller meant) nor floats, even integral ones; they come back
  as plain ``int``;
- a timeout is None (no bound) or a finite real number of seconds > 0;
- data is bytes-like or a numpy array of plain values (no Python objects: their bytes
  are pointers), readable and C-contiguous;
- options are keyword arguments a constructor declares.

Each check raises ``InvalidArgument`` naming the argument, what it must be and what it
got, and returns the value in the form the caller should keep.
"""

from __future__ import annotations

import inspect
import math
import numbers
import reprlib
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .errors import InvalidArgument

__all__ = ["shown", "integer", "timeout", "sequence", "byte_payload", "options"]

_repr = reprlib.Repr()
_repr.maxstring = _repr.maxother = 60


def shown(value: Any) -> str:
    """``value`` for an error message: its repr, shortened, and its type."""
    return f"{_repr.repr(value)} ({type(value).__name__})"


def integer(value: Any, name: str, minimum: int | None = None, maximum: int | None = None) -> int:
    """``value`` as an ``int``: a Python or numpy integer (not a bool), at least
    ``minimum`` and at most ``maximum`` when given."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        bound = "" if minimum is None else f" >= {minimum}"
        raise InvalidArgument(f"{name} must be an int{bound}, got {shown(value)}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise InvalidArgument(f"{name} must be >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise InvalidArgument(f"{name} must be <= {maximum}, got {value}")
    return value


def timeout(value: Any, name: str = "timeout_s") -> float | None:
    """``value`` as a timeout in seconds: None (wait as long as it takes) or a finite
    real number > 0 (not a bool), as a ``float``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidArgument(f"{name} must be None or a number of seconds > 0, got {shown(value)}")
    seconds = float(value)
    if not (math.isfinite(seconds) and seconds > 0):
        raise InvalidArgument(
            f"{name} must be None or a finite number of seconds > 0, got {seconds!r}"
        )
    return seconds


def sequence(value: Any, name: str) -> tuple:
    """``value`` (a list, tuple or other iterable, not a string) as a tuple."""
    if isinstance(value, (str, bytes)):
        raise InvalidArgument(f"{name} must be a sequence, got {shown(value)}")
    try:
        return tuple(value)
    except TypeError:
        raise InvalidArgument(f"{name} must be a sequence, got {shown(value)}") from None


def byte_payload(data: Any) -> memoryview:
    """``data`` (bytes-like or a numpy array) as a flat, C-contiguous byte memoryview.
    Arrays holding Python objects are refused: their bytes are object pointers, which
    mean nothing on a device and must never come back as objects."""
    if isinstance(data, np.ndarray):
        if data.dtype.hasobject:
            raise InvalidArgument(
                f"data of dtype {data.dtype} holds Python objects, whose "
                "bytes are pointers; give numbers (e.g. float32, uint32)"
            )
        array = np.ascontiguousarray(data)
        return array.reshape(-1).view(np.uint8).data
    try:
        view = memoryview(data)
    except TypeError:
        raise InvalidArgument(
            f"expected bytes-like data or a numpy array, got {type(data).__name__}"
        ) from None
    except ValueError as exc:  # a released memoryview
        raise InvalidArgument(f"data cannot be read: {exc}") from None
    if not view.c_contiguous:
        raise InvalidArgument(
            f"data must be C-contiguous, got shape {view.shape} with strides {view.strides}"
        )
    if "O" in view.format:
        raise InvalidArgument(
            f"data of format {view.format!r} holds Python objects, whose "
            "bytes are pointers; give numbers"
        )
    return view.cast("B") if view.format != "B" or view.ndim != 1 else view


def options(factory: Callable, given: Mapping[str, Any], what: str) -> None:
    """Refuse keyword options ``factory`` does not declare (a misspelt
    ``capacity=`` would otherwise be a bare TypeError), naming the known ones."""
    parameters = inspect.signature(factory).parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return  # it takes anything: its own checks decide
    known = [
        p.name
        for p in parameters
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name != "self"
    ]
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise InvalidArgument(
            f"{what} has no option {', '.join(map(repr, unknown))}; "
            f"its options are: {', '.join(known) or 'none'}"
        )

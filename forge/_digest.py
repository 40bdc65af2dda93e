"""Digests of what a kernel means: Python functions by their code, constants, defaults
and captured values (equal in every process of one Python version), and the values they
hold. A kernel's semantic hash is built from them."""

from __future__ import annotations

import hashlib
import json
import types
from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["callable_digest", "value_digest"]


def _code_digest(code: types.CodeType) -> list:
    parts: list = [code.co_name, code.co_code.hex(), list(code.co_names)]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            parts.append(_code_digest(const))
        elif isinstance(const, frozenset):  # its repr order follows the hash seed
            parts.append(sorted(map(repr, const)))
        else:
            parts.append(repr(const))
    return parts


def _value_digest(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    if isinstance(value, (tuple, list)):
        return [_value_digest(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _value_digest(v) for k, v in sorted(value.items(), key=str)}
    if isinstance(value, np.ndarray):
        return hashlib.sha256(value.tobytes() + str(value.dtype).encode()).hexdigest()[:16]
    if callable(value):
        return _callable_digest(value)
    return type(value).__qualname__  # an object whose repr may carry its address


def _callable_digest(function: Any) -> str | None:
    """A digest of what a Python function computes: its code, constants, defaults and
    captured values, equal in every process of one Python version. Functions are part
    of a kernel's meaning (its numpy reference, its geometry), so they are in its hash."""
    if function is None:
        return None
    if not callable(function):
        return repr(_value_digest(function))
    code = getattr(function, "__code__", None)
    if code is None:
        state = getattr(function, "__dict__", None)
        return f"{type(function).__module__}.{type(function).__qualname__}" + (
            f":{_value_digest(dict(state))}" if state else ""
        )
    cells = [_value_digest(c.cell_contents) for c in (function.__closure__ or ())]
    data = [
        function.__module__,
        function.__qualname__,
        _code_digest(code),
        cells,
        _value_digest(function.__defaults__),
    ]
    return hashlib.sha256(json.dumps(data).encode()).hexdigest()[:16]


value_digest = _value_digest
callable_digest = _callable_digest

"""Expressions over a problem's named sizes, a schedule's values and a kernel's
parameters: ``"ceil_div(n, 4)"``, ``"M*K"``, ``"BLOCK_M * UNROLL <= 256"``. Kernels
declare grids, work and restrictions with them; only arithmetic, comparisons and a few
functions are allowed, never arbitrary Python."""

from __future__ import annotations

import ast
import functools
import operator
import threading
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .errors import ForgeError, InvalidArgument
from .schedule import Schedule
from .size import Size

__all__ = ["ceil_div", "evaluate_expression", "expression_names", "resolve"]


def ceil_div(a: int, b: int) -> int:
    """``ceil(a / b)`` for non-negative integers (for ``grid`` functions)."""
    return -(-int(a) // int(b))


_OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.Div: operator.truediv,
}
_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "min": min,
    "max": max,
    "ceil_div": ceil_div,
    "int": int,
    "abs": abs,
}


_COMPARISONS = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}


def evaluate_expression(text: str, names: Mapping[str, Any]) -> Any:
    """The value of an arithmetic expression such as ``"M*K"`` or ``"ceil_div(n, 4)"``
    over ``names`` (+ - * // % ** /, min, max, ceil_div, abs, int), and of a condition
    built from them (``"BLOCK_M * UNROLL <= 256 and tile[0] % wg_x == 0"``: comparisons,
    ``and``, ``or``, ``not``, a constant index into a tuple)."""

    def value(node: ast.AST) -> Any:
        if isinstance(node, ast.Expression):
            return value(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.Compare) and all(type(op) in _COMPARISONS for op in node.ops):
            left = value(node.left)
            for op, right_node in zip(node.ops, node.comparators):
                right = value(right_node)
                if not _COMPARISONS[type(op)](left, right):
                    return False
                left = right
            return True
        if isinstance(node, ast.BoolOp):
            values = (value(v) for v in node.values)
            return all(values) if isinstance(node.op, ast.And) else any(values)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return not value(node.operand)
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            return value(node.value)[node.slice.value]
        if isinstance(node, ast.Tuple):
            return tuple(map(value, node.elts))
        if isinstance(node, ast.Name):
            if node.id not in names:
                raise InvalidArgument(
                    f"expression {text!r} names {node.id!r}, which is not "
                    f"one of {', '.join(names) or 'nothing'}"
                )
            return names[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](value(node.left), value(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _FUNCTIONS
            and not node.keywords
        ):
            return _FUNCTIONS[node.func.id](*map(value, node.args))
        raise InvalidArgument(
            f"expression {text!r}: only arithmetic over the size's "
            f"dimensions is allowed, not {ast.dump(node)[:60]}"
        )

    tree = _parse_expression(text)
    try:
        return value(tree)
    except (TypeError, IndexError, ZeroDivisionError) as exc:
        raise InvalidArgument(f"expression {text!r} cannot be evaluated: {exc}") from None


# ast.parse from several threads at once (a tune's concurrent candidates) raised
# "SystemError: AST constructor recursion depth mismatch" on CPython 3.11.7: one parse at
# a time, each expression parsed once (the trees are only read).
_PARSE_LOCK = threading.Lock()


@functools.lru_cache(maxsize=4096)
def _parse_expression(text: str) -> ast.Expression:
    with _PARSE_LOCK:
        try:
            return ast.parse(text, mode="eval")
        except SyntaxError as exc:
            raise InvalidArgument(f"bad expression {text!r}: {exc.msg}") from None


def expression_names(text: str) -> set[str]:
    """The names an expression reads (``"BLOCK_M * UNROLL <= 256"``: BLOCK_M, UNROLL),
    functions excluded; raises ``InvalidArgument`` when it does not parse."""
    tree = _parse_expression(text)
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and id(n) not in called}


# -- values that may depend on the schedule and the size ----------------------------------
def _names(schedule: Schedule | None, size: Any) -> dict[str, Any]:
    names: dict[str, Any] = {}
    if isinstance(size, Size):
        names.update(size.dims)
    if size is not None:
        names.setdefault("size", int(size))
        names.setdefault("n", int(size))
    if schedule is not None:
        x, y, z = schedule.workgroup_size
        names.update(
            wg_x=x, wg_y=y, wg_z=z, ipt=schedule.items_per_invocation, vec=schedule.vector_width
        )
    return names


def resolve(
    value: Any,
    schedule: Schedule | None,
    size: Any,
    what: str,
    with_schedule: bool = True,
    names: Mapping[str, Any] | None = None,
) -> Any:
    """A kernel attribute that may depend on the run: a constant, an expression over
    the size's dimensions and the schedule's (``"M*K"``, ``"wg_x * 4"``) and ``names``
    (a kernel's parameter values), or a callable of ``(schedule, size)`` (of ``(size)``
    alone when ``with_schedule`` is False: counts, shapes, params). An exception raised
    by the callable becomes an ``InvalidArgument`` naming ``what``."""
    if isinstance(value, str):
        return evaluate_expression(value, {**_names(schedule, size), **(names or {})})
    if callable(value) and not isinstance(value, (np.ndarray, Schedule)):
        try:
            return value(schedule, size) if with_schedule else value(size)
        except ForgeError:
            raise
        except Exception as exc:
            raise InvalidArgument(f"{what} raised {type(exc).__name__}: {exc}") from exc
    return value

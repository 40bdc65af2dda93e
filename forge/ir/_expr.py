"""Typed IR expressions: the nodes, their type rules and the builder functions.

An expression is an immutable tree of ``Expr`` nodes, each with an operation, a dtype
(``bool``, ``f16``, ``f32``, ``f64``, ``i32``, ``u32``) and its arguments. Python
operators build nodes (``a * x + b``); Python numbers adopt the dtype of the expression
they meet, and anything else that does not type-check raises ``IRTypeError`` saying what
to write instead. ``==`` is not an IR comparison (expressions are ordinary Python
objects); use ``eq(a, b)`` and ``ne(a, b)``.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from ..errors import InvalidArgument
from ._dtypes import DTYPES, FLOATS, INT_RANGE, INTEGERS, NUMPY_DTYPES
from ._ops import OPERATIONS, REDUCTIONS

__all__ = [
    "Expr",
    "IRError",
    "IRTypeError",
    "DTYPES",
    "FLOATS",
    "INTEGERS",
    "const",
    "param",
    "dim",
    "input",
    "index",
    "row",
    "col",
    "row_sum",
    "row_max",
    "select",
    "min",
    "max",
    "abs",
    "sqrt",
    "rsqrt",
    "exp",
    "log",
    "tanh",
    "erf",
    "sigmoid",
    "cast",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "logical_and",
    "logical_or",
    "logical_not",
    "as_expr",
    "walk",
]

# Scopes, narrowest first: a value the same for the whole dispatch, one per row, one per
# element. A pattern decides which scopes it has.
SCOPES = ("uniform", "row", "element")


class IRError(InvalidArgument):
    """A kernel description that cannot be lowered: an unknown name, an expression in a
    place its pattern does not allow, a missing default."""


class IRTypeError(IRError, TypeError):
    """An ill-typed IR expression (mixed dtypes, a float function of an integer...)."""


@dataclass(frozen=True, eq=False)
class Expr:
    """One IR node. Build expressions with the functions of ``forge.ir`` and Python
    operators rather than by hand."""

    op: str
    dtype: str
    args: tuple[Expr, ...] = ()
    attr: tuple = ()

    @cached_property
    def key(self) -> tuple:
        """Structural identity: equal for equal expressions, in any process."""
        return (self.op, self.dtype, self.attr, tuple(a.key for a in self.args))

    @cached_property
    def scope(self) -> str:
        """The widest scope this expression varies over (see ``SCOPES``)."""
        if self.op == "reduce":
            return "row"
        if self.op in ("index", "col"):
            return "element"
        if self.op == "row":
            return "row"
        if self.op == "load":
            return "row" if self.attr[1] == "rows" else "element"
        return builtins.max((a.scope for a in self.args), key=SCOPES.index, default="uniform")

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        raise IRTypeError(
            "== does not build an IR comparison (and expressions are not "
            "compared as Python objects); use ir.eq(a, b), or .key to compare "
            "structure"
        )

    def __ne__(self, other: object) -> bool:
        raise IRTypeError("!= does not build an IR comparison; use ir.ne(a, b)")

    def __bool__(self) -> bool:
        raise IRTypeError(
            f"the IR expression {self} has no Python truth value: it is "
            "computed on the device; use ir.select(cond, a, b) to choose"
        )

    # -- operators -------------------------------------------------------------------
    def __add__(self, other):
        return _binary("add", self, other)

    def __radd__(self, other):
        return _binary("add", other, self)

    def __sub__(self, other):
        return _binary("sub", self, other)

    def __rsub__(self, other):
        return _binary("sub", other, self)

    def __mul__(self, other):
        return _binary("mul", self, other)

    def __rmul__(self, other):
        return _binary("mul", other, self)

    def __truediv__(self, other):
        return _binary("div", self, other)

    def __rtruediv__(self, other):
        return _binary("div", other, self)

    def __lt__(self, other):
        return _binary("lt", self, other)

    def __le__(self, other):
        return _binary("le", self, other)

    def __gt__(self, other):
        return _binary("gt", self, other)

    def __ge__(self, other):
        return _binary("ge", self, other)

    def __and__(self, other):
        return _binary("and", self, other)

    def __rand__(self, other):
        return _binary("and", other, self)

    def __or__(self, other):
        return _binary("or", self, other)

    def __ror__(self, other):
        return _binary("or", other, self)

    def __invert__(self):
        return logical_not(self)

    def __abs__(self):
        return abs(self)

    def __neg__(self):
        if self.dtype == "bool" or self.dtype == "u32":
            raise IRTypeError(
                f"{self.dtype} has no negation (in -{self}); "
                + ("use ir.logical_not" if self.dtype == "bool" else "cast to i32 or a float first")
            )
        return Expr("neg", self.dtype, (self,))

    def __floordiv__(self, other):
        raise IRTypeError(
            "// is not in the IR: integer division rounds differently in "
            "numpy, WGSL and CUDA C; use / on floats"
        )

    __rfloordiv__ = __mod__ = __rmod__ = __floordiv__

    def __pow__(self, other):
        raise IRTypeError("** is not in the IR; multiply (x * x) or use ir.exp/ir.log")

    # -- printing --------------------------------------------------------------------
    def __str__(self) -> str:
        return _format(self)

    def __repr__(self) -> str:
        return f"<ir {self.dtype}: {_format(self)}>"

    def describe(self) -> list:
        """Canonical JSON-able form, part of the kernel's semantic hash."""
        return [
            self.op,
            self.dtype,
            [_json_attr(a) for a in self.attr],
            [a.describe() for a in self.args],
        ]


def _json_attr(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)  # "nan", "inf", "-inf": JSON has no spelling for them
    return value


def walk(expr: Expr) -> Iterator[Expr]:
    """Every node of ``expr`` once, arguments before the node that uses them."""
    seen: set[tuple] = set()
    stack: list[tuple[Expr, bool]] = [(expr, False)]
    while stack:
        node, expanded = stack.pop()
        if node.key in seen:
            continue
        if expanded:
            seen.add(node.key)
            yield node
        else:
            stack.append((node, True))
            stack.extend((a, False) for a in reversed(node.args))


# -- literals and type rules ---------------------------------------------------------
def _check_dtype(dtype: str) -> str:
    if dtype not in DTYPES:
        raise IRTypeError(f"unknown IR dtype {dtype!r}; known: {', '.join(DTYPES)}")
    return dtype


def const(value: Any, dtype: str = "f32") -> Expr:
    """A constant of ``dtype``. Python numbers in expressions become constants of the
    dtype they meet; call this to give a literal a dtype of its own."""
    _check_dtype(dtype)
    if isinstance(value, Expr):
        raise IRTypeError(f"ir.const takes a Python number, got the expression {value}")
    if dtype == "bool":
        if not isinstance(value, (bool, np.bool_)):
            raise IRTypeError(f"a bool constant must be True or False, got {value!r}")
        return Expr("const", "bool", attr=(bool(value),))
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise IRTypeError(f"cannot make a {dtype} constant from {value!r}")
    if dtype in INTEGERS:
        if isinstance(value, (float, np.floating)) and not float(value).is_integer():
            raise IRTypeError(
                f"the float {value!r} is not an {dtype}; cast explicitly "
                f"with ir.cast(ir.const({value!r}), {dtype!r})"
            )
        low, high = INT_RANGE[dtype]
        if not low <= int(value) <= high:
            raise IRTypeError(f"{value!r} is out of range for {dtype} [{low}, {high}]")
        return Expr("const", dtype, attr=(int(value),))
    # Store the value as the dtype will hold it, so printing and hashing agree.
    stored = float(np.array(value, dtype=NUMPY_DTYPES[dtype]))
    return Expr("const", dtype, attr=(stored,))


def as_expr(value: Any, like: str | None = None) -> Expr:
    """``value`` as an expression; a Python number takes the dtype ``like``."""
    if isinstance(value, Expr):
        return value
    if like is None:
        raise IRTypeError(f"{value!r} needs a dtype: write ir.const({value!r}, 'f32')")
    if isinstance(value, (bool, np.bool_)):
        if like != "bool":
            raise IRTypeError(f"cannot use the Python bool {value!r} as {like}")
        return const(bool(value), "bool")
    if isinstance(value, (float, np.floating)) and like in INTEGERS:
        raise IRTypeError(
            f"cannot mix the float literal {value!r} with an {like} "
            f"expression; cast the expression with ir.cast(e, 'f32')"
        )
    if not isinstance(value, (int, float, np.number)):
        raise IRTypeError(
            f"expected an IR expression or a number, got {type(value).__name__} {value!r}"
        )
    if like == "bool":
        raise IRTypeError(f"cannot use the number {value!r} as a bool")
    return const(value, like)


def _unify(op: str, a: Any, b: Any) -> tuple[Expr, Expr]:
    if not isinstance(a, Expr) and not isinstance(b, Expr):
        raise IRTypeError(f"{op} needs at least one IR expression, got {a!r} and {b!r}")
    like = a.dtype if isinstance(a, Expr) else b.dtype
    a, b = as_expr(a, like), as_expr(b, like)
    if a.dtype != b.dtype:
        raise IRTypeError(
            f"cannot {op} {a.dtype} and {b.dtype} (in {a} and {b}): the IR "
            f"never converts implicitly; cast one side, e.g. "
            f"ir.cast({b}, {a.dtype!r})"
        )
    return a, b


def _binary(op: str, a: Any, b: Any) -> Expr:
    """A binary operation of the table, checked by its type rule (see ``_ops``)."""
    a, b = _unify(op, a, b)
    rule = OPERATIONS[op].rule
    if rule == "logical":
        if a.dtype != "bool":
            raise IRTypeError(
                f"{OPERATIONS[op].symbol} combines bools (comparisons), got {a.dtype}"
            )
        return Expr(op, "bool", (a, b))
    if a.dtype == "bool":
        raise IRTypeError(
            f"{op} does not apply to bool; use ir.select to turn a condition into a number"
        )
    if rule == "division" and a.dtype in INTEGERS:
        raise IRTypeError(
            f"integer division is not in the IR ({a} / {b}): numpy, WGSL "
            "and CUDA C round it differently; cast to a float first"
        )
    return Expr(op, "bool" if rule == "comparison" else a.dtype, (a, b))


def _binary_function(op: str, doc: str):
    def function(a: Any, b: Any) -> Expr:
        return _binary(op, a, b)

    function.__name__ = {"and": "logical_and", "or": "logical_or"}.get(op, op)
    function.__doc__ = doc
    return function


eq = _binary_function("eq", "``a == b`` as an IR comparison (a bool expression).")
ne = _binary_function("ne", "``a != b`` as an IR comparison.")
lt = _binary_function("lt", "``a < b`` (also written ``a < b``).")
le = _binary_function("le", "``a <= b``.")
gt = _binary_function("gt", "``a > b``.")
ge = _binary_function("ge", "``a >= b``.")
logical_and = _binary_function("and", "Both bools (also written ``a & b``).")
logical_or = _binary_function("or", "Either bool (also written ``a | b``).")


def logical_not(a: Expr) -> Expr:
    a = as_expr(a, "bool")
    if a.dtype != "bool":
        raise IRTypeError(f"logical not applies to bool, got {a.dtype} ({a})")
    return Expr("not", "bool", (a,))


def select(cond: Any, if_true: Any, if_false: Any) -> Expr:
    """``if_true`` where ``cond`` holds, else ``if_false`` (both are evaluated)."""
    cond = as_expr(cond, "bool")
    if cond.dtype != "bool":
        raise IRTypeError(
            f"select needs a bool condition (a comparison), got {cond.dtype} "
            f"({cond}); write e.g. ir.ne(x, 0)"
        )
    if_true, if_false = _unify("select between", if_true, if_false)
    return Expr("select", if_true.dtype, (cond, if_true, if_false))


def min(a: Any, b: Any) -> Expr:  # noqa: A001 - the IR's own min
    """The smaller of ``a`` and ``b``; for floats, a NaN operand loses (IEEE minNum,
    numpy ``fmin``, CUDA ``fminf``, WGSL ``min``)."""
    return _binary("min", a, b)


def max(a: Any, b: Any) -> Expr:  # noqa: A001 - the IR's own max
    """The larger of ``a`` and ``b``; for floats, a NaN operand loses (IEEE maxNum)."""
    return _binary("max", a, b)


def abs(a: Expr) -> Expr:  # noqa: A001 - the IR's own abs
    a = _numeric("abs", a)
    return a if a.dtype == "u32" else Expr("abs", a.dtype, (a,))


def _numeric(name: str, a: Any) -> Expr:
    if not isinstance(a, Expr):
        raise IRTypeError(
            f"ir.{name} takes an IR expression, got {a!r}; for a constant "
            f"write ir.{name}(ir.const({a!r}))"
        )
    if a.dtype == "bool":
        raise IRTypeError(f"ir.{name} does not apply to bool ({a})")
    return a


def _float_function(name: str):
    if OPERATIONS[name].rule != "float":
        raise AssertionError(f"{name} is not a float function in the operation table")

    def function(a: Expr) -> Expr:
        a = _numeric(name, a)
        if a.dtype not in FLOATS:
            raise IRTypeError(
                f"ir.{name} takes a float, got {a.dtype} ({a}); cast first: "
                f"ir.{name}(ir.cast({a}, 'f32'))"
            )
        return Expr(name, a.dtype, (a,))

    function.__name__ = name
    function.__doc__ = f"Elementwise {name} of a float expression."
    return function


sqrt = _float_function("sqrt")
rsqrt = _float_function("rsqrt")
exp = _float_function("exp")
log = _float_function("log")
tanh = _float_function("tanh")
erf = _float_function("erf")
sigmoid = _float_function("sigmoid")


def cast(a: Any, dtype: str) -> Expr:
    """``a`` converted to ``dtype``. Float to integer rounds toward zero and saturates
    (NaN becomes 0 in numpy and CUDA C; WGSL leaves a NaN's conversion unspecified, so
    such kernels should not declare non-finite inputs); integer to integer reinterprets
    the 32 bits; bool becomes 0 or 1."""
    _check_dtype(dtype)
    a = as_expr(a, dtype)
    if dtype == "bool":
        raise IRTypeError(f"cast to bool is not in the IR; compare instead: ir.ne({a}, 0)")
    if a.dtype == dtype:
        return a
    return Expr("cast", dtype, (a,), (dtype,))


# -- leaves --------------------------------------------------------------------------
def param(name: str, dtype: str = "f32") -> Expr:
    """A scalar of the kernel's uniform block, set per dispatch (``pack_uniform``)."""
    return Expr("param", _check_dtype(dtype), attr=(_name(name, "param"),))


def dim(name: str, dtype: str = "u32") -> Expr:
    """A size of the problem (``n``; ``rows`` and ``cols``; ``m``, ``n``, ``k``), as u32
    or cast to ``dtype`` (``ir.dim("cols", "f32")`` for a mean)."""
    return cast(Expr("param", "u32", attr=(_name(name, "dim"),)), dtype)


_LAYOUTS = (None, "matrix", "rows", "cols")


def input(name: str, dtype: str = "f32", layout: str | None = None) -> Expr:  # noqa: A001
    """The element of buffer ``name`` at the pattern's current position. In ``rows``,
    ``layout`` says how the buffer is shaped: ``"matrix"`` (rows x cols, the default),
    ``"cols"`` (one value per column, e.g. a norm's weight) or ``"rows"`` (one per row).
    Naming an output reads its old contents (an in-out buffer)."""
    if layout not in _LAYOUTS:
        raise IRError(f"input {name!r}: layout must be one of {_LAYOUTS[1:]}, got {layout!r}")
    _check_dtype(dtype)
    if dtype == "bool":
        raise IRTypeError(f"input {name!r}: buffers hold numbers, not bool")
    return Expr("load", dtype, attr=(_name(name, "buffer"), layout))


def index() -> Expr:
    """The element index (u32) of a ``map``."""
    return Expr("index", "u32")


def row() -> Expr:
    """The row index (u32) in a ``rows`` pattern."""
    return Expr("row", "u32")


def col() -> Expr:
    """The column index (u32) in a ``rows`` pattern."""
    return Expr("col", "u32")


def _reduction(op: str):
    if op not in REDUCTIONS:
        raise AssertionError(f"{op} is not in the reduction table")

    def reduction(a: Any) -> Expr:
        if not isinstance(a, Expr):
            raise IRTypeError(f"ir.row_{op} takes an IR expression, got {a!r}")
        if a.dtype == "bool":
            raise IRTypeError(f"ir.row_{op} of a bool ({a}); use ir.select(cond, 1, 0)")
        return Expr("reduce", a.dtype, (a,), (op,))

    reduction.__name__ = f"row_{op}"
    reduction.__doc__ = (
        f"The {op} of an element expression over the row (one value per "
        "row; a float max ignores NaN like ``max``)."
    )
    return reduction


row_sum = _reduction("sum")
row_max = _reduction("max")

# Generated code reserves the fg_ prefix; the rest keep the builtins and keywords of
# WGSL and CUDA C that a buffer or field name could shadow.
_RESERVED = frozenset(
    """
    alias array atomic bitcast bool break case const continue default discard do else enable
    f16 f32 f64 fallthrough false fn for if i32 let loop mat2x2 override ptr return sampler
    struct switch true u32 var vec2 vec3 vec4 while requires diagnostic asm auto char class
    double enum extern float goto inline int long register short signed sizeof static
    template this typedef union unsigned void volatile namespace new delete operator private
    public protected virtual abs min max exp log sqrt tanh erf select fma dot clamp sign
    floor ceil round trunc pow exp2 log2 inverseSqrt rsqrt sin cos tan main half params
    threadIdx blockIdx blockDim gridDim warpSize
""".split()
)


def _name(name: Any, what: str) -> str:
    if not isinstance(name, str) or not name.isidentifier() or not name.isascii():
        raise IRError(f"{what} name must be an ASCII identifier, got {name!r}")
    if name.startswith(("fg_", "_")) or name in _RESERVED:
        raise IRError(
            f"{what} name {name!r} is reserved in generated code (names starting "
            "with fg_ or _, and WGSL/CUDA keywords and builtins); pick another"
        )
    return name


# -- printing --------------------------------------------------------------------------
def _format(e: Expr) -> str:
    if e.op == "const":
        value = e.attr[0]
        return repr(value) if e.dtype in FLOATS or e.dtype == "bool" else str(value)
    if e.op in ("param", "load"):
        return e.attr[0]
    if e.op in ("index", "row", "col"):
        return f"{e.op}()"
    symbol = OPERATIONS[e.op].symbol if e.op in OPERATIONS else None
    if symbol and len(e.args) == 2:
        return f"({_format(e.args[0])} {symbol} {_format(e.args[1])})"
    if symbol:
        return f"{symbol}{_format(e.args[0])}"
    if e.op == "cast":
        return f"{e.dtype}({_format(e.args[0])})"
    if e.op == "reduce":
        return f"row_{e.attr[0]}({_format(e.args[0])})"
    return f"{e.op}({', '.join(_format(a) for a in e.args)})"

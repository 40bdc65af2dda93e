"""The kernel IR: describe a kernel once, get WGSL, CUDA C and its numpy meaning.

A kernel is a pattern over typed expressions:

>>> from forge import Schedule, ir
>>> x = ir.input("x")
>>> a, b = ir.param("a"), ir.param("b")
>>> affine = ir.kernel("affine", ir.map(y=a * x + b), defaults={"a": 2.0, "b": 0.5})
>>> [b.name for b in affine.buffers]
['x', 'y', 'params']
>>> e = ir.exp(x - ir.row_max(x))
>>> softmax = ir.kernel("softmax", ir.rows(y=e / ir.row_sum(e)))
>>> print(softmax.source("cuda", Schedule((256, 1), items_per_invocation=4)).splitlines()[6])
//   y = (exp((x - row_max(x))) / row_sum(exp((x - row_max(x)))))
>>> x + ir.dim("n")
Traceback (most recent call last):
...
forge.ir._expr.IRTypeError: cannot add f32 and u32 (in x and n): the IR never converts ...

Patterns: ``map`` (elementwise), ``rows`` (row reductions and per-row/per-element
outputs), ``matmul`` and ``transpose``. ``forge.emit`` lowers them under a
``Schedule``; the reference backend evaluates them with numpy (``Evaluator``).
Ill-typed expressions raise ``IRTypeError`` saying what to write instead (above: "cast
one side, e.g. ir.cast(n, 'f32')").
"""

from ._dtypes import DTYPES, FLOATS, INTEGERS, TF32_ROUNDINGS, to_tf32
from ._erf import erf64
from ._eval import Evaluator
from ._expr import (
    Expr,
    IRError,
    IRTypeError,
    abs,
    as_expr,
    cast,
    col,
    const,
    dim,
    eq,
    erf,
    exp,
    ge,
    gt,
    index,
    input,
    le,
    log,
    logical_and,
    logical_not,
    logical_or,
    lt,
    max,
    min,
    ne,
    param,
    row,
    row_max,
    row_sum,
    rsqrt,
    select,
    sigmoid,
    sqrt,
    tanh,
    walk,
)
from ._kernel import BASELINE_SCHEDULES, kernel, with_shape
from ._patterns import (
    SIZE,
    Body,
    BufferDecl,
    Map,
    Matmul,
    Rows,
    SizeRule,
    Transpose,
    map,
    matmul,
    rows,
    transpose,
)

__all__ = [
    "DTYPES",
    "FLOATS",
    "INTEGERS",
    "TF32_ROUNDINGS",
    "to_tf32",
    "Expr",
    "IRError",
    "IRTypeError",
    "Evaluator",
    "erf64",
    "abs",
    "as_expr",
    "cast",
    "col",
    "const",
    "dim",
    "eq",
    "erf",
    "exp",
    "ge",
    "gt",
    "index",
    "input",
    "le",
    "log",
    "logical_and",
    "logical_not",
    "logical_or",
    "lt",
    "max",
    "min",
    "ne",
    "param",
    "row",
    "row_max",
    "row_sum",
    "rsqrt",
    "select",
    "sigmoid",
    "sqrt",
    "tanh",
    "walk",
    "BASELINE_SCHEDULES",
    "kernel",
    "with_shape",
    "SIZE",
    "Body",
    "BufferDecl",
    "Map",
    "Matmul",
    "Rows",
    "SizeRule",
    "Transpose",
    "map",
    "matmul",
    "rows",
    "transpose",
]

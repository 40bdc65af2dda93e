"""The structured patterns an IR body is made of, their shapes and their numpy meaning.

- ``map``: elementwise over ``n`` elements, several inputs and outputs;
- ``rows``: per-row work over a ``rows x cols`` matrix, with row reductions
  (``row_sum``/``row_max``) that element expressions may use (softmax, norms, gemv);
- ``matmul``: ``c = alpha * a @ b + beta * c`` (``c`` is not read when beta is 0);
- ``transpose``: ``y = x.T`` for a ``rows x cols`` matrix ``x``.

A body's problem dimensions follow from the one problem size ``size`` by ``SizeRule``s
(``ir.SIZE``, ``ir.SIZE + 3``, a constant), so element counts, uniform values and the
dispatch geometry all derive from ``size``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np

from ..schedule import Schedule
from ._dtypes import NUMPY_DTYPES, TF32_ROUNDINGS, as_dtype, to_tf32
from ._eval import Evaluator
from ._expr import Expr, IRError, IRTypeError, _name, walk

__all__ = [
    "SizeRule",
    "SIZE",
    "BufferDecl",
    "Body",
    "Map",
    "Rows",
    "Matmul",
    "Transpose",
    "map",
    "rows",
    "matmul",
    "transpose",
]


@dataclass(frozen=True)
class SizeRule:
    """A problem dimension as ``scale * size + offset`` (``scale`` 0: a constant)."""

    scale: int = 1
    offset: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.scale, int) or not isinstance(self.offset, int) or self.scale < 0:
            raise IRError(
                f"a size rule is scale * size + offset with integers, scale >= 0; "
                f"got {self.scale!r}, {self.offset!r}"
            )

    def __call__(self, size: int) -> int:
        return max(0, self.scale * int(size) + self.offset)

    def __add__(self, other: int) -> SizeRule:
        return SizeRule(self.scale, self.offset + _int(other))

    __radd__ = __add__

    def __sub__(self, other: int) -> SizeRule:
        return SizeRule(self.scale, self.offset - _int(other))

    def __mul__(self, other: int) -> SizeRule:
        factor = _int(other)
        return SizeRule(self.scale * factor, self.offset * factor)

    __rmul__ = __mul__

    def __str__(self) -> str:
        if self.scale == 0:
            return str(self.offset)
        text = "size" if self.scale == 1 else f"{self.scale}*size"
        return text if not self.offset else f"{text}{self.offset:+d}"

    def describe(self) -> list[int]:
        return [self.scale, self.offset]


SIZE = SizeRule()


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise IRError(f"size rules combine with integers, got {value!r}")
    return value


def _rule(value: Any, dim: str) -> SizeRule:
    if isinstance(value, SizeRule):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return SizeRule(0, value)
    raise IRError(
        f"dimension {dim!r}: expected ir.SIZE, an expression of it (ir.SIZE + 3) "
        f"or a non-negative int, got {value!r}"
    )


@dataclass(frozen=True)
class BufferDecl:
    """A buffer of an IR body: its name, element dtype, whether the kernel writes it
    (``output``) and reads its old contents (``inout``), and its extent as a product of
    problem dimensions. A ``scratch`` buffer holds what one launch of the kernel leaves
    for the next (a matmul's rounding pass): written, not judged."""

    name: str
    dtype: str
    output: bool
    inout: bool
    extent: tuple[str, ...]
    layout: str = ""
    scratch: bool = False

    def count(self, dims: Mapping[str, int]) -> int:
        # math.prod: exact, and a tenth of np.prod's cost on a few ints (every dispatch
        # checks each buffer's size through this)
        return math.prod(dims[d] for d in self.extent)


@dataclass(frozen=True, eq=False)
class Body:
    """Base of the patterns; see the module docstring. A pattern carries its name
    (``kind``, which also picks its lowering in ``forge.emit``), its portable
    ``schedules`` (<= 256 invocations, <= 16 KiB workgroup storage, used when a kernel
    names none), its one-line ``summary`` for generated sources, and its meaning."""

    shape: tuple[tuple[str, SizeRule], ...] = ()
    input_order: tuple[str, ...] = ()

    kind = "body"
    schedules: ClassVar[tuple[Schedule, ...]] = ()

    # -- shape -----------------------------------------------------------------------
    @property
    def dim_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.shape)

    def dims(self, size: int) -> dict[str, int]:
        """The problem dimensions for problem size ``size``: given by name when
        ``size`` names every dimension (a ``forge.Size`` such as rows=4096,cols=32768),
        else derived from the one number by the shape's rules."""
        named = getattr(size, "dims", None)
        if isinstance(named, dict) and set(named) >= set(self.dim_names):
            return {name: named[name] for name in self.dim_names}
        return {name: rule(int(size)) for name, rule in self.shape}

    def with_shape(self, **rules: Any) -> Body:
        """A copy whose dimensions follow other rules (``rows=4096, cols=ir.SIZE``)."""
        unknown = set(rules) - set(self.dim_names)
        if unknown:
            raise IRError(
                f"{self.kind} has dimensions {list(self.dim_names)}, not {sorted(unknown)}"
            )
        shape = tuple((name, _rule(rules.get(name, rule), name)) for name, rule in self.shape)
        return replace(self, shape=shape)

    def with_input_order(self, names: Sequence[str]) -> Body:
        return replace(self, input_order=tuple(names))

    # -- buffers and parameters ----------------------------------------------------------
    def buffers(self) -> list[BufferDecl]:
        """Inputs (in ``input_order``, then first use), then outputs."""
        raise NotImplementedError

    def params(self) -> list[tuple[str, str]]:
        """User scalar parameters (not dimensions) as (name, dtype), in first-use order."""
        raise NotImplementedError

    def expressions(self) -> list[Expr]:
        return []

    def dtypes(self) -> set[str]:
        """The dtype of every value of the body: buffers, params and expressions."""
        types = {b.dtype for b in self.buffers()} | {t for _, t in self.params()}
        return types | {node.dtype for e in self.expressions() for node in walk(e)}

    def uses(self, dtype: str) -> bool:
        """Whether any value of the body has ``dtype`` (for ``requires``)."""
        return dtype in self.dtypes()

    def describe(self) -> dict:
        """Canonical JSON-able form, part of the kernel's semantic hash."""
        return {
            "pattern": self.kind,
            "shape": [[name, rule.describe()] for name, rule in self.shape],
            "buffers": [
                [b.name, b.dtype, b.output, b.inout, list(b.extent)]
                + (["scratch"] if b.scratch else [])
                for b in self.buffers()
            ],
            "params": [list(p) for p in self.params()],
            **self._describe(),
        }

    def _describe(self) -> dict:
        return {}

    @property
    def entry_body(self) -> Body:
        """What the kernel's entry point computes: the body itself, or for a body of
        several launches the last one's (a prepass matmul's GEMM of the rounded
        operands), which the emitters lower as its entry point."""
        return self

    def summary(self) -> list[str]:
        """The IR a source came from, one line per output, for headers and comments."""
        raise NotImplementedError

    # -- meaning ---------------------------------------------------------------------
    def evaluate(self, arrays: Mapping[str, np.ndarray], uniform: Any) -> None:
        """Write the outputs in ``arrays`` (by buffer name, each trimmed to its count)
        given the uniform record."""
        raise NotImplementedError

    def _ordered(self, loads: Mapping[str, Expr]) -> list[str]:
        unknown = [n for n in self.input_order if n not in loads]
        if unknown:
            raise IRError(
                f"inputs= names {unknown}, which the body never reads; it reads {list(loads)}"
            )
        return list(self.input_order) + [n for n in loads if n not in self.input_order]


def _uniform_value(uniform: Any, name: str, dtype: str) -> np.ndarray:
    return np.asarray(uniform[name]).astype(NUMPY_DTYPES[dtype])


def _collect(
    outputs: Mapping[str, Expr], dims: Sequence[str]
) -> tuple[dict[str, Expr], list[tuple[str, str]]]:
    """The loads (one per buffer name) and user params of ``outputs``, in first-use
    order, checking that each name has one dtype."""
    loads: dict[str, Expr] = {}
    params: dict[str, str] = {}
    for expr in outputs.values():
        for node in walk(expr):
            if node.op == "load":
                seen = loads.setdefault(node.attr[0], node)
                if seen.key != node.key:
                    raise IRTypeError(
                        f"buffer {node.attr[0]!r} is read as {seen.dtype} "
                        f"{seen.attr[1] or ''} and as {node.dtype} "
                        f"{node.attr[1] or ''}; one buffer has one dtype and layout"
                    )
            elif node.op == "param" and node.attr[0] not in dims:
                if params.setdefault(node.attr[0], node.dtype) != node.dtype:
                    raise IRTypeError(
                        f"param {node.attr[0]!r} is used as "
                        f"{params[node.attr[0]]} and as {node.dtype}"
                    )
            elif node.op == "param" and node.dtype != "u32":
                raise IRTypeError(
                    f"dimension {node.attr[0]!r} is u32; use "
                    f"ir.dim({node.attr[0]!r}, {node.dtype!r}) to convert it"
                )
    clash = set(params) & set(loads)
    if clash:
        raise IRError(f"{sorted(clash)} name both a buffer and a param")
    return loads, list(params.items())


def _check_outputs(outputs: Mapping[str, Any], pattern: str) -> dict[str, Expr]:
    if not outputs:
        raise IRError(f"ir.{pattern} needs at least one output: ir.{pattern}(y=...)")
    checked = {}
    for name, expr in outputs.items():
        _name(name, "output")
        if not isinstance(expr, Expr):
            raise IRTypeError(
                f"output {name!r} must be an IR expression, got {expr!r}; "
                f"for a constant write ir.const({expr!r})"
            )
        if expr.dtype == "bool":
            raise IRTypeError(
                f"output {name!r} is a bool ({expr}); buffers hold numbers: "
                "ir.select(cond, 1.0, 0.0)"
            )
        checked[name] = expr
    return checked


def _sorted_outputs(outputs: Mapping[str, Expr]) -> tuple[tuple[str, Expr], ...]:
    return tuple(outputs.items())


# -- patterns of named output expressions ------------------------------------------------
@dataclass(frozen=True, eq=False)
class _Outputs(Body):
    """A pattern whose outputs are named expressions (``map`` and ``rows``)."""

    outputs: tuple[tuple[str, Expr], ...] = ()

    def _check_buffers(self) -> None:
        loads, _ = _collect(dict(self.outputs), self.dim_names)
        self._ordered(loads)
        _check_inout(dict(self.outputs), loads)

    def expressions(self) -> list[Expr]:
        return [e for _, e in self.outputs]

    def loads(self) -> dict[str, Expr]:
        return _collect(dict(self.outputs), self.dim_names)[0]

    def params(self) -> list[tuple[str, str]]:
        return _collect(dict(self.outputs), self.dim_names)[1]

    def _layout_of(self, name: str, load: Expr | None) -> str:
        raise NotImplementedError

    def buffers(self) -> list[BufferDecl]:
        loads = self.loads()
        outs = dict(self.outputs)

        def decl(name: str, dtype: str, output: bool) -> BufferDecl:
            layout = self._layout_of(name, loads.get(name))
            return BufferDecl(
                name, dtype, output, output and name in loads, _EXTENT[layout], layout
            )

        return [decl(n, loads[n].dtype, False) for n in self._ordered(loads) if n not in outs] + [
            decl(n, e.dtype, True) for n, e in self.outputs
        ]

    def _describe(self) -> dict:
        return {"outputs": [[n, e.describe()] for n, e in self.outputs]}

    def summary(self) -> list[str]:
        layouts = dict(getattr(self, "layouts", ()))
        return [
            f"{name}{'[row]' if layouts.get(name) == 'rows' else ''} = {expr}"
            for name, expr in self.outputs
        ]


_EXTENT = {"n": ("n",), "matrix": ("rows", "cols"), "rows": ("rows",), "cols": ("cols",)}


# -- map ---------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Map(_Outputs):
    """Elementwise: ``outputs[name][i] = expr`` at every element ``i < n``."""

    kind = "map"
    schedules = (Schedule(64), Schedule(256, items_per_invocation=4))

    def __post_init__(self) -> None:
        for name, expr in self.outputs:
            for node in walk(expr):
                if node.op in ("row", "col", "reduce"):
                    raise IRError(
                        f"output {name!r} uses {node} in a map; rows, columns and "
                        "row reductions belong to ir.rows"
                    )
                if node.op == "load" and node.attr[1] is not None:
                    raise IRError(
                        f"buffer {node.attr[0]!r}: a map has no layouts "
                        f"(got layout={node.attr[1]!r})"
                    )
        self._check_buffers()

    def _layout_of(self, name: str, load: Expr | None) -> str:
        return "n"

    def evaluate(self, arrays: Mapping[str, np.ndarray], uniform: Any) -> None:
        n = int(uniform["n"])

        def leaf(e: Expr) -> np.ndarray:
            if e.op == "load":
                return arrays[e.attr[0]][:n]
            if e.op == "index":
                return np.arange(n, dtype=np.uint32)
            return _uniform_value(uniform, e.attr[0], e.dtype)

        evaluate = Evaluator(leaf)
        results = {name: evaluate(expr) for name, expr in self.outputs}
        for name, value in results.items():
            arrays[name][:n] = np.broadcast_to(value, (n,))


def _check_inout(outputs: Mapping[str, Expr], loads: Mapping[str, Expr]) -> None:
    for name, expr in outputs.items():
        if name in loads and loads[name].dtype != expr.dtype:
            raise IRTypeError(
                f"output {name!r} is {expr.dtype} but is also read as {loads[name].dtype}"
            )


def map(**outputs: Expr) -> Map:  # noqa: A001 - the IR pattern
    """Elementwise pattern: ``ir.map(y=a * x + b)``; several outputs allowed."""
    return Map(shape=(("n", SIZE),), outputs=_sorted_outputs(_check_outputs(outputs, "map")))


# -- rows --------------------------------------------------------------------------------
def _layout(load: Expr) -> str:
    return load.attr[1] or "matrix"


@dataclass(frozen=True, eq=False)
class Rows(_Outputs):
    """Per-row work on a ``rows x cols`` matrix: each output is either a matrix
    (``out[r, c] = expr``) or one value per row (``out[r] = expr`` of row reductions)."""

    layouts: tuple[tuple[str, str], ...] = ()
    kind = "rows"
    schedules = (
        Schedule((64, 1), items_per_invocation=4),
        Schedule((32, 4), items_per_invocation=2),
    )

    def __post_init__(self) -> None:
        layouts = dict(self.layouts)
        for name, expr in self.outputs:
            for node in walk(expr):
                if node.op == "index":
                    raise IRError(
                        f"output {name!r} uses index() in ir.rows; use ir.row() and ir.col()"
                    )
            layout = layouts.get(name)
            if layout is None:
                if expr.scope == "uniform":
                    raise IRError(
                        f"output {name!r} ({expr}) depends on neither the row nor "
                        f"the column: give its layout, layouts={{{name!r}: 'rows'}} "
                        "or 'matrix'"
                    )
                layout = "matrix" if expr.scope == "element" else "rows"
            if layout not in ("matrix", "rows"):
                raise IRError(f"output {name!r}: layout must be 'matrix' or 'rows', got {layout!r}")
            if layout == "rows" and expr.scope == "element":
                raise IRError(
                    f"output {name!r} is one value per row but {expr} varies along "
                    "the row; reduce it with ir.row_sum or ir.row_max, or make it a "
                    "matrix output"
                )
            layouts[name] = layout
        object.__setattr__(self, "layouts", tuple((n, layouts[n]) for n, _ in self.outputs))
        self._check_buffers()
        loads = self.loads()
        for name, layout in self.layouts:
            if name in loads and _layout(loads[name]) != layout:
                raise IRError(
                    f"output {name!r} is a {layout} buffer but is read with "
                    f"layout={_layout(loads[name])!r}"
                )

    def output_layout(self, name: str) -> str:
        return dict(self.layouts)[name]

    def _layout_of(self, name: str, load: Expr | None) -> str:
        if name in dict(self.outputs):
            return self.output_layout(name)
        assert load is not None, name  # a buffer that is no output is one the body loads
        return _layout(load)

    def reductions(self) -> list[list[Expr]]:
        """The row reductions grouped by level: a level's reductions use only those of
        earlier levels, so each level is one pass over the row."""
        levels: dict[tuple, int] = {}
        order: list[Expr] = []
        for expr in self.expressions():
            for node in walk(expr):
                if node.op == "reduce" and node.key not in levels:
                    inner = [
                        levels[n.key]
                        for n in walk(node.args[0])
                        if n.op == "reduce" and n.key != node.key
                    ]
                    levels[node.key] = 1 + max(inner, default=0)
                    order.append(node)
        depth = max(levels.values(), default=0)
        return [[r for r in order if levels[r.key] == level] for level in range(1, depth + 1)]

    def _describe(self) -> dict:
        return {**super()._describe(), "layouts": [list(item) for item in self.layouts]}

    def evaluate(self, arrays: Mapping[str, np.ndarray], uniform: Any) -> None:
        nrows, ncols = int(uniform["rows"]), int(uniform["cols"])
        shapes = {"matrix": (nrows, ncols), "rows": (nrows, 1), "cols": (1, ncols)}
        views = {}
        for decl in self.buffers():
            extent = shapes[decl.layout]
            views[decl.name] = arrays[decl.name][: extent[0] * extent[1]].reshape(extent)

        def leaf(e: Expr) -> np.ndarray:
            if e.op == "load":
                return views[e.attr[0]]
            if e.op == "row":
                return np.arange(nrows, dtype=np.uint32).reshape(nrows, 1)
            if e.op == "col":
                return np.arange(ncols, dtype=np.uint32).reshape(1, ncols)
            return _uniform_value(uniform, e.attr[0], e.dtype)

        evaluate = Evaluator(leaf, (nrows, ncols))
        results = {name: evaluate(expr) for name, expr in self.outputs}
        for name, value in results.items():
            target = views[name]
            target[...] = np.broadcast_to(value, target.shape)


def rows(layouts: Mapping[str, str] | None = None, **outputs: Expr) -> Rows:
    """Row pattern: ``ir.rows(y=ir.exp(x - m) / s)`` with ``m = ir.row_max(x)``... A
    matrix output varies along the row; a per-row output is made of row reductions
    (``ir.rows(total=ir.row_sum(x))``)."""
    return Rows(
        shape=(("rows", SizeRule(0, 37)), ("cols", SIZE)),
        outputs=_sorted_outputs(_check_outputs(outputs, "rows")),
        layouts=tuple(dict(layouts or {}).items()),
    )


# -- matmul ------------------------------------------------------------------------------
_MATRIX_LAYOUTS = ("row", "col")
#: input precisions a f32 accumulation may declare
_NARROW_INPUTS = ("f16", "bf16", *TF32_ROUNDINGS)
#: Declared input precisions that are no dtype in memory: TF32 inputs are f32 buffers,
#: each element reduced to TF32 (``to_tf32``) before it multiplies.
_ROUNDED_INPUTS = {name: "f32" for name in TF32_ROUNDINGS}


@dataclass(frozen=True, eq=False)
class Matmul(Body):
    """``c = alpha * a @ b + beta * c`` with ``a`` m x k, ``b`` k x n, each stored
    row-major (``"row"``) or column-major (``"col"``). When beta is 0, ``c`` is not
    read (BLAS semantics: NaN in the old ``c`` does not leak).

    ``dtype`` is the accumulation and output precision (``c``, ``alpha``, ``beta``);
    ``input_dtype`` the declared precision of ``a`` and ``b`` (default: ``dtype``):
    f16 or bf16 inputs with f32 accumulation are the mixed-precision GEMM, whose
    products are exact in f32 and whose sum is rounded in f32. ``"tf32"`` declares
    f32 inputs (f32 in memory, ``operand_dtype``) that the GEMM rounds to TF32 before it
    multiplies them, as tensor cores take them (``to_tf32``: cvt.rna.tf32.f32, 10
    mantissa bits, ties away from zero): the same exact products and f32 sum, of the
    rounded values. ``"tf32rz"`` declares the same with the inputs truncated to TF32
    (``to_tf32(..., "rz")``: the low 13 bits dropped), which is what a tensor core reads
    of f32 it is given as it is (cuBLAS's small TF32 GEMMs compute so on the H200; its
    large ones round): no rounding pass, and twice the error of each input's
    rounding, all of it toward zero.

    ``prepass`` (TF32 rounded to nearest only) makes the GEMM two launches: the first
    rounds ``a`` and ``b`` once into the scratch buffers ``a_tf32`` (m x k) and
    ``b_tf32`` (n x k), both K-major as tensor cores read TF32 (an operand stored along
    m or n is transposed on the way), and the second multiplies those as they are
    (``rounded_operands``: the ``"tf32rz"`` GEMM of a row-major a and col-major b, whose
    truncation leaves rounded values as they are). The rounding then costs one pass over
    the inputs at memory speed instead of a pass over shared memory in every block
    that reads a tile, as many times as the other dimension has tiles. Same meaning,
    same reference; 4 * (m * k + n * k) bytes more memory."""

    dtype: str = "f32"
    a_layout: str = "row"
    b_layout: str = "row"
    input_dtype: str = ""
    prepass: bool = False
    kind = "matmul"
    schedules = (
        Schedule((16, 16), tile=(16, 16, 16)),
        Schedule((16, 16), vector_width=4, tile=(64, 64, 8)),
    )

    def __post_init__(self) -> None:
        if self.dtype not in ("f32", "f64"):
            raise IRTypeError(
                f"matmul supports f32 and f64 (its accumulation and output "
                f"dtype), got {self.dtype!r}"
            )
        inputs = self.input_dtype or self.dtype
        if inputs != self.dtype and not (inputs in _NARROW_INPUTS and self.dtype == "f32"):
            raise IRTypeError(
                f"matmul inputs of {inputs!r} with {self.dtype} accumulation: "
                f"inputs are the accumulation dtype, or one of "
                f"{_NARROW_INPUTS} with f32 accumulation"
            )
        object.__setattr__(self, "input_dtype", inputs)
        for which, layout in (("a", self.a_layout), ("b", self.b_layout)):
            if layout not in _MATRIX_LAYOUTS:
                raise IRError(f"matmul {which}_layout must be 'row' or 'col', got {layout!r}")
        if self.prepass and inputs != "tf32":
            raise IRError(
                f"matmul prepass=True rounds TF32 inputs once before the GEMM; the inputs "
                f"are {inputs!r}, which no pass rounds (declare input_dtype='tf32')"
            )

    @property
    def operand_dtype(self) -> str:
        """The dtype ``a`` and ``b`` hold in memory: their declared precision, or f32
        for TF32 inputs (rounded as they are read)."""
        return _ROUNDED_INPUTS.get(self.input_dtype, self.input_dtype)

    @property
    def tf32_rounding(self) -> str | None:
        """How TF32 inputs are reduced to TF32 (``to_tf32``'s ``"rna"`` or ``"rz"``), or
        None for inputs that are not TF32."""
        return TF32_ROUNDINGS.get(self.input_dtype)

    @property
    def rounds_inputs(self) -> bool:
        """Whether the inputs are rounded to their declared precision as they are read
        (TF32), not stored in it."""
        return self.input_dtype in _ROUNDED_INPUTS

    @property
    def rounded_operands(self) -> Matmul:
        """What the second launch of a ``prepass`` GEMM computes: the GEMM of the
        rounded, K-major ``a_tf32`` and ``b_tf32`` (read as ``a`` and ``b``), which
        truncates them to TF32, a no-op on rounded values."""
        return replace(self, a_layout="row", b_layout="col", input_dtype="tf32rz", prepass=False)

    @property
    def entry_body(self) -> Body:
        return self.rounded_operands if self.prepass else self

    def buffers(self) -> list[BufferDecl]:
        own = [
            BufferDecl("a", self.operand_dtype, False, False, ("m", "k"), self.a_layout),
            BufferDecl("b", self.operand_dtype, False, False, ("k", "n"), self.b_layout),
            BufferDecl("c", self.dtype, True, True, ("m", "n"), "row"),
        ]
        if self.prepass:  # K-major: a_tf32 is m x k row-major, b_tf32 n x k row-major
            own += [
                BufferDecl("a_tf32", "f32", True, False, ("m", "k"), "row", scratch=True),
                BufferDecl("b_tf32", "f32", True, False, ("k", "n"), "col", scratch=True),
            ]
        return own

    def params(self) -> list[tuple[str, str]]:
        return [("alpha", self.dtype), ("beta", self.dtype)]

    def _describe(self) -> dict:
        mixed = {"input_dtype": self.input_dtype} if self.input_dtype != self.dtype else {}
        passes = {"prepass": True} if self.prepass else {}
        return {
            "dtype": self.dtype,
            "a_layout": self.a_layout,
            "b_layout": self.b_layout,
            **mixed,
            **passes,
        }

    def summary(self) -> list[str]:
        how = "truncated" if self.tf32_rounding == "rz" else "rounded"
        stored = f" {how} from {self.operand_dtype} in memory" if self.rounds_inputs else ""
        precision = (
            self.dtype
            if self.input_dtype == self.dtype
            else f"{self.input_dtype} a and b{stored}, {self.dtype} accumulation and c"
        )
        passes = (
            "; a and b rounded once into a_tf32 and b_tf32 (K-major) by a first launch"
            if self.prepass
            else ""
        )
        return [
            f"c = alpha * a @ b + beta * c ({precision}; a {self.a_layout}-major, "
            f"b {self.b_layout}-major; c not read when beta == 0{passes})"
        ]

    @staticmethod
    def _operand(array: np.ndarray, outer: int, inner: int, layout: str) -> np.ndarray:
        if layout == "row":
            return array[: outer * inner].reshape(outer, inner)
        return array[: outer * inner].reshape(inner, outer).T

    def evaluate(self, arrays: Mapping[str, np.ndarray], uniform: Any) -> None:
        m, n, k = (int(uniform[d]) for d in ("m", "n", "k"))
        a = self._operand(arrays["a"], m, k, self.a_layout)
        b = self._operand(arrays["b"], k, n, self.b_layout)
        if self.tf32_rounding:  # as the kernel reads them: reduced to TF32
            a, b = to_tf32(a, self.tf32_rounding), to_tf32(b, self.tf32_rounding)
        a, b = a.astype(np.float64), b.astype(np.float64)
        alpha = _uniform_value(uniform, "alpha", self.dtype)
        beta = _uniform_value(uniform, "beta", self.dtype)
        c = arrays["c"][: m * n].reshape(m, n)
        with np.errstate(all="ignore"):
            result = as_dtype(alpha * as_dtype(a @ b, self.dtype), self.dtype)
            if beta != 0:
                result = as_dtype(result + as_dtype(beta * c, self.dtype), self.dtype)
        c[...] = result


def matmul(
    dtype: str = "f32",
    a_layout: str = "row",
    b_layout: str = "row",
    input_dtype: str | None = None,
    prepass: bool = False,
) -> Matmul:
    """GEMM pattern ``c = alpha * a @ b + beta * c``; dims ``m = n = k = size`` unless
    reshaped with ``ir.kernel(..., shape={...})``. ``dtype`` is the accumulation and
    output precision; ``input_dtype`` (e.g. ``"bf16"`` with ``"f32"``) that of a and b
    (``"tf32"``: f32 buffers whose values are rounded to TF32 before they multiply;
    ``"tf32rz"``: truncated to TF32, as a tensor core reads f32 given to it unconverted).
    ``prepass=True`` (with ``"tf32"``): a first launch rounds a and b once into scratch
    buffers, which the GEMM reads (``Matmul``'s docstring)."""
    return Matmul(
        shape=(("m", SIZE), ("n", SIZE), ("k", SIZE)),
        dtype=dtype,
        a_layout=a_layout,
        b_layout=b_layout,
        input_dtype=input_dtype or "",
        prepass=prepass,
    )


# -- transpose ---------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Transpose(Body):
    """``y = x.T`` for ``x`` of ``rows x cols`` (row-major); ``y`` is ``cols x rows``."""

    dtype: str = "f32"
    kind = "transpose"
    schedules = (Schedule((32, 8), tile=(32, 32)), Schedule((16, 16), tile=(16, 16)))

    def __post_init__(self) -> None:
        if self.dtype == "bool" or self.dtype not in NUMPY_DTYPES:
            raise IRTypeError(f"transpose needs a numeric dtype, got {self.dtype!r}")

    def buffers(self) -> list[BufferDecl]:
        return [
            BufferDecl("x", self.dtype, False, False, ("rows", "cols"), "row"),
            BufferDecl("y", self.dtype, True, False, ("cols", "rows"), "row"),
        ]

    def params(self) -> list[tuple[str, str]]:
        return []

    def _describe(self) -> dict:
        return {"dtype": self.dtype}

    def summary(self) -> list[str]:
        return [f"y = transpose(x) ({self.dtype})"]

    def evaluate(self, arrays: Mapping[str, np.ndarray], uniform: Any) -> None:
        nrows, ncols = int(uniform["rows"]), int(uniform["cols"])
        x = arrays["x"][: nrows * ncols].reshape(nrows, ncols)
        arrays["y"][: nrows * ncols].reshape(ncols, nrows)[...] = x.T


def transpose(dtype: str = "f32") -> Transpose:
    """2-D transpose pattern; dims ``rows = size``, ``cols = size + 3`` by default (not
    square, so a swapped index shows)."""
    return Transpose(shape=(("rows", SIZE), ("cols", SIZE + 3)), dtype=dtype)

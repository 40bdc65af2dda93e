"""IR expressions: type rules, literal lifting, and the errors a kernel author sees for
ill-typed expressions and misplaced pattern features."""

from __future__ import annotations

import pytest

from forge import InvalidArgument, ir
from forge.ir import IRError, IRTypeError

x = ir.input("x")
n = ir.dim("n")


def test_python_numbers_take_the_dtype_of_the_expression_they_meet():
    e = 2 * x + 1
    assert e.dtype == "f32"
    assert [a.dtype for a in e.args] == ["f32", "f32"]
    assert (n + 1).dtype == "u32"
    assert ir.select(x < 0.0, 0.0, x).dtype == "f32"


def test_comparisons_and_logic_give_bool():
    cond = (x < 1.0) & (x > -1.0) | ~(x >= 0.0)
    assert cond.dtype == "bool"
    assert ir.eq(x, 0.0).dtype == ir.ne(n, 3).dtype == "bool"


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: x + n, r"cannot add f32 and u32 .*cast one side"),
        (lambda: n + 0.5, r"cannot mix the float literal 0.5 with an u32"),
        (lambda: ir.exp(n), r"ir.exp takes a float, got u32.*ir.cast"),
        (lambda: n / n, r"integer division is not in the IR"),
        (lambda: x // 2, r"// is not in the IR"),
        (lambda: x**2, r"\*\* is not in the IR"),
        (lambda: -n, r"u32 has no negation"),
        (lambda: ir.select(x, 1.0, 0.0), r"select needs a bool condition"),
        (lambda: ir.cast(x, "bool"), r"cast to bool is not in the IR"),
        (lambda: (x < 0.0) + (x < 1.0), r"add does not apply to bool"),
        (lambda: (x < 0.0) & 1, r"cannot use the number 1 as a bool"),
        (lambda: ir.const(3.5, "i32"), r"is not an i32"),
        (lambda: ir.const(-1, "u32"), r"out of range for u32"),
        (lambda: ir.const(1.0, "f8"), r"unknown IR dtype"),
        (lambda: ir.row_sum(x < 0.0), r"row_sum of a bool"),
        (lambda: ir.sqrt(2.0), r"takes an IR expression"),
    ],
)
def test_ill_typed_expressions_say_what_to_write_instead(build, message):
    with pytest.raises(IRTypeError, match=message):
        build()


def test_ir_errors_are_forge_invalid_arguments_and_type_errors():
    with pytest.raises(InvalidArgument):
        x + n
    with pytest.raises(TypeError):
        x + n


def test_python_equality_and_truth_are_refused_with_the_ir_spelling():
    with pytest.raises(IRTypeError, match=r"ir\.eq\(a, b\)"):
        x == 0.0  # noqa: B015 - the comparison itself must raise
    with pytest.raises(IRTypeError, match="no Python truth value"):
        if x < 0.0:
            pass


@pytest.mark.parametrize(
    "name", ["fg_tmp", "_x", "exp", "array", "threadIdx", "params", "1x", "x-y"]
)
def test_reserved_and_malformed_names_are_refused(name):
    with pytest.raises(IRError, match="reserved|identifier"):
        ir.input(name)


def test_structural_keys_identify_equal_expressions():
    assert (2.0 * x + 1.0).key == (2.0 * ir.input("x") + 1.0).key
    assert (2.0 * x).key != (3.0 * x).key
    assert str(ir.exp(x - ir.row_max(x))) == "exp((x - row_max(x)))"


def test_constants_are_stored_as_their_dtype_holds_them():
    assert ir.const(0.1, "f32").attr[0] == float(__import__("numpy").float32(0.1))
    assert ir.const(0.1, "f64").attr[0] == 0.1


# -- patterns -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "build, message",
    [
        (
            lambda: ir.map(y=x + ir.cast(ir.row(), "f32")),
            r"rows, columns and row reductions belong to ir.rows",
        ),
        (lambda: ir.map(y=ir.input("x", layout="cols")), r"a map has no layouts"),
        (lambda: ir.map(), r"needs at least one output"),
        (lambda: ir.map(y=1.0), r"must be an IR expression"),
        (lambda: ir.map(y=x < 0.0), r"is a bool"),
        (lambda: ir.rows(y=x + ir.cast(ir.index(), "f32")), r"use ir.row\(\) and ir.col\(\)"),
        (lambda: ir.rows(layouts={"s": "rows"}, s=x * 2.0), r"varies along the row; reduce it"),
        (lambda: ir.rows(s=ir.param("a") * 2.0), r"depends on neither the row nor the column"),
        (lambda: ir.rows(layouts={"y": "cols"}, y=x), r"layout must be 'matrix' or 'rows'"),
        (
            lambda: ir.rows(y=ir.input("y", layout="cols") + x),
            r"is a matrix buffer but is read with",
        ),
        (lambda: ir.map(y=x + ir.cast(ir.input("x", "f64"), "f32")), r"read as f32"),
        (
            lambda: ir.map(y=ir.cast(ir.input("y", "i32"), "f32")),
            r"output 'y' is f32 but is also read as i32",
        ),
        (lambda: ir.map(x=x * 2.0, y=ir.param("x") * 1.0), r"name both a buffer and a param"),
        (lambda: ir.matmul("i32"), r"matmul supports f32 and f64"),
        (lambda: ir.matmul(a_layout="diagonal"), r"a_layout must be 'row' or 'col'"),
        (lambda: ir.input("x", layout="diagonal"), r"layout must be one of"),
    ],
)
def test_misplaced_pattern_features_are_refused_with_the_reason(build, message):
    with pytest.raises(IRError, match=message):
        build()


def test_dimensions_must_be_used_as_u32_or_converted():
    body = ir.map(y=x * ir.dim("n", "f32"))
    assert body.params() == []
    with pytest.raises(IRTypeError, match=r"ir.dim\('n', 'f32'\)"):
        ir.map(y=x * ir.param("n", "f32"))


def test_rows_infers_layouts_and_groups_reductions_into_levels():
    m = ir.row_max(x)
    s = ir.row_sum(ir.exp(x - m))
    body = ir.rows(y=ir.exp(x - m) / s, top=m)
    assert dict(body.layouts) == {"y": "matrix", "top": "rows"}
    levels = body.reductions()
    assert [[r.key for r in level] for level in levels] == [[m.key], [s.key]]
    assert [(b.name, b.extent, b.output) for b in body.buffers()] == [
        ("x", ("rows", "cols"), False),
        ("y", ("rows", "cols"), True),
        ("top", ("rows",), True),
    ]


def test_every_float_function_of_the_operation_table_is_built_evaluated_and_spelled():
    import numpy as np

    from forge.emit._dialect import CUDA, WGSL
    from forge.ir._ops import OPERATIONS

    functions = [op for op in OPERATIONS.values() if op.rule == "float"]
    assert {op.name for op in functions} == {
        "sqrt",
        "rsqrt",
        "exp",
        "log",
        "tanh",
        "erf",
        "sigmoid",
    }
    for op in functions:
        e = getattr(ir, op.name)(ir.input("x"))
        assert (e.op, e.dtype) == (op.name, "f32")
        value = ir.Evaluator(lambda leaf: np.array([0.25], np.float32))(e)
        assert value.dtype == np.float32 and np.isfinite(value).all()
        assert WGSL().function(op.name, "f32", ["v"]) == f"{op.wgsl}(v)"
        assert CUDA().function(op.name, "f32", ["v"]) == f"{op.cuda[0]}(v)"
        assert CUDA().function(op.name, "f64", ["v"]) == f"{op.cuda[1]}(v)"


def test_the_emitters_spell_the_ir_types_as_the_dtype_table_does():
    from forge.emit._dialect import CUDA, WGSL
    from forge.ir._dtypes import TYPES
    from forge.types import SCALAR_TYPES

    for name, t in TYPES.items():
        assert t is SCALAR_TYPES.get(name, t)  # one table: the IR's rows are its rows
        assert CUDA().scalar(name) == t.cuda
        if t.wgsl is not None:
            assert WGSL().scalar(name) == t.wgsl
    assert SCALAR_TYPES["bf16"].wgsl is None and SCALAR_TYPES["f16"].cuda == "__half"


def test_buffer_layouts_read_the_same_dtype_table():
    from forge import layout
    from forge.types import SCALAR_TYPES

    assert layout.SCALARS == {name: t.numpy for name, t in SCALAR_TYPES.items()}
    assert layout.scalar_dtype("bf16") is SCALAR_TYPES["bf16"].numpy

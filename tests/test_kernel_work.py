"""What a run of a kernel costs, as it declares it (``bytes_moved`` and ``flops``):
resolved at a size, checked, carried into every result for the roofline."""

from __future__ import annotations

import pytest

from forge import (
    Access,
    BufferSpec,
    InvalidArgument,
    KernelSpec,
    get_kernel,
    ir,
    open_context,
    registry,
)
from oracle import evaluate


def _kernel(**work) -> KernelSpec:
    return KernelSpec(
        id="k",
        entry_point="k",
        dims=("M", "N"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
        ),
        sources={"wgsl": "// never compiled here"},
        reference=lambda x, y: None,
        **work,
    )


def test_work_resolves_an_expression_an_int_and_a_callable_of_the_size():
    size = "M=3,N=5"
    assert _kernel(bytes_moved="8*M*N", flops=7).work(size) == {"bytes_moved": 120, "flops": 7}
    assert _kernel(flops=lambda s: s.M + s.N).work(size) == {"bytes_moved": None, "flops": 8}


def test_work_is_unknown_where_nothing_is_declared():
    assert _kernel().work("M=3,N=5") == {"bytes_moved": None, "flops": None}


@pytest.mark.parametrize(
    "flops, why",
    [
        (-1, "count >= 0"),
        ("M*Q", "names 'Q'"),
        (lambda s: "many", "count >= 0"),
        (lambda s: 1 / 0, "raised ZeroDivisionError"),
    ],
)
def test_a_bad_declaration_is_an_invalid_argument_naming_the_kernel(flops, why):
    with pytest.raises(InvalidArgument, match=f"kernel k.*{why}"):
        _kernel(flops=flops).work("M=3,N=5")


def test_ir_expressions_name_the_patterns_dimensions_also_after_a_reshape():
    softmax = get_kernel("softmax")
    assert softmax.work(100) == {"bytes_moved": 8 * 37 * 100, "flops": 5 * 37 * 100}
    taller = ir.with_shape(softmax, rows=4)
    assert taller.work(100)["bytes_moved"] == 8 * 4 * 100
    assert get_kernel("gemm").work("m=64,n=32,k=16")["flops"] == 2 * 64 * 32 * 16


def _buffer_traffic(kernel: KernelSpec, size) -> int:
    """Each storage buffer read once or written once (read and written when inout, and
    when scratch: one launch writes what the next reads)."""
    return sum(
        (2 if b.inout or b.scratch else 1) * b.byte_size(size)
        for b in kernel.buffers
        if b.access is not Access.UNIFORM
    )


@pytest.mark.parametrize(
    "kernel", [k for k in registry.list_kernels() if k.id != "demo_square"], ids=lambda k: k.id
)
def test_every_library_kernel_declares_the_bytes_its_buffers_move(kernel):
    for size in kernel.checked_sizes():
        work = kernel.work(size)
        assert work["bytes_moved"] == _buffer_traffic(kernel, size)
        assert work["flops"] is not None and work["flops"] >= 0


def test_an_evaluation_carries_the_work_at_its_size_and_its_report_text():
    kernel = get_kernel("affine")
    with open_context("reference") as ctx:
        data = evaluate(ctx, kernel, size=1001, samples=1).as_dict()
    assert (data["bytes_moved"], data["flops"]) == (8 * 1001, 2 * 1001)
    assert data["report"].startswith("affine on reference") and "verdict: PASS" in data["report"]

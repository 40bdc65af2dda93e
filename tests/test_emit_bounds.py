"""Bounds guards: at sizes that are not multiples of any tile, vector width or
workgroup, and with the grid capped so kernels grid-stride, generated kernels write
every output element and nothing past the end (sentinels after each output stay
intact). Runs on wgpu (lavapipe in CI) and CUDA (GPU machine)."""

from __future__ import annotations

import pytest

import forge
import oracle
from forge import Schedule, ir
from oracle.pytest_plugin import require_available


def _gemm(a_layout="row", b_layout="row"):
    library = forge.get_kernel("gemm")  # the same inputs' domain and tolerance
    return ir.kernel(
        f"gemm_{a_layout}_{b_layout}",
        ir.matmul(a_layout=a_layout, b_layout=b_layout),
        defaults={"alpha": 1.25, "beta": -0.5},
        domain=library.domain,
        tolerance=library.tolerance,
        nonfinite_inputs=False,
    )


CASES = [
    (
        "affine",
        Schedule(64, items_per_invocation=2, vector_width=4, max_workgroups=3),
        (4097, 4098, 4099),
    ),
    # WGSL declares these buffers as arrays of vec4 (vec2): views of n % 4 != 0 floats
    # are bound rounded up to whole vectors, the tail goes by component
    (
        "add",
        Schedule(64, items_per_invocation=2, vector_width=4, max_workgroups=3),
        (1, 2, 3, 4098),
    ),
    ("axpy", Schedule(64, items_per_invocation=2, vector_width=4), (5, 6, 7)),
    ("axpy", Schedule(32, vector_width=2), (1, 63, 65)),
    # rows: sizes below, at (the path without bounds checks) and past wg_x * ipt * vec
    (
        "softmax",
        Schedule((32, 4), items_per_invocation=2, vector_width=4, max_workgroups=2),
        (250, 256, 257, 1001),
    ),
    (
        "softmax",
        Schedule((128, 2), items_per_invocation=2, vector_width=4, max_workgroups=3),
        (1, 1024, 1500),
    ),
    ("log_softmax", Schedule((64, 1), items_per_invocation=2, vector_width=4), (100, 512, 700)),
    (
        "rmsnorm",
        Schedule((64, 2), items_per_invocation=2, vector_width=4, max_workgroups=2),
        (255, 512, 513),
    ),
    ("layernorm", Schedule((256, 1), items_per_invocation=1, vector_width=2), (300, 512, 1100)),
    ("row_sum", Schedule((16, 3), items_per_invocation=3, vector_width=2), (1, 95, 96, 97)),
    (
        "gemv",
        Schedule((32, 8), items_per_invocation=4, vector_width=4, max_workgroups=2),
        (5, 67, 512),
    ),
    ("gemm", Schedule((16, 16), vector_width=4, tile=(64, 64, 8), max_workgroups=2), (1, 67)),
    ("gemm", Schedule((16, 16), vector_width=4, tile=(128, 128, 8, 2)), (67, 130)),
    ("transpose", Schedule((32, 8), tile=(32, 32), max_workgroups=3), (1, 67)),
]


def _kernels():
    yield from ((forge.get_kernel(name), s, sizes) for name, s, sizes in CASES)
    for layouts in (("col", "row"), ("row", "col"), ("col", "col")):
        yield _gemm(*layouts), Schedule((16, 16), vector_width=4, tile=(64, 64, 8)), (67,)


_ALL = list(_kernels())


@pytest.fixture(scope="module", params=["wgpu", "browser", "cuda"])
def ctx(request):
    require_available(request.config, request.param)
    context = forge.open_context(request.param)
    yield context
    context.close()


@pytest.mark.parametrize("kernel, schedule, sizes", _ALL, ids=[f"{k.id}-{s}" for k, s, _ in _ALL])
def test_outputs_are_complete_and_nothing_is_written_past_them(ctx, kernel, schedule, sizes):
    """The oracle poisons each output and keeps guard elements past its end; a kernel
    that writes every element and nothing else passes, at every size."""
    for size in sizes:
        ev = oracle.evaluate(ctx, kernel, schedule, size=size, warmups=0, samples=0)
        assert ev.passed, ev.report()
        assert not any(o.past_end or o.unwritten for o in ev.outputs.values()), ev.report()

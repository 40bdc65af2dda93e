"""Low-precision GEMMs with planted bugs (``tests/oracle_broken/low_precision.py``): the
oracle's k-dependent tolerance still catches a narrow accumulator and a dropped k tile,
and, for f32 inputs declared TF32, inputs truncated or not rounded at all, and accepts
the correct twin. f16 and TF32 run on wgpu here (lavapipe has shader-f16); bf16 is CUDA
only, compiled here and judged on the GPU machine."""

from __future__ import annotations

import pytest

import forge
import oracle
from oracle.pytest_plugin import require_available
from tests.oracle_broken.low_precision import LOW_PRECISION_CASES, MARGINS


def _assert_value_wrong(ev: oracle.Evaluation, margin: float = 10.0) -> None:
    """The finding is in c's values: judged, and beyond the tolerance (``margin`` times
    its atol)."""
    assert not ev.passed, ev.report()
    c = ev.outputs["c"]
    assert c.comparison is not None and not c.comparison.passed, ev.report()
    assert c.comparison.max_abs > margin * ev.kernel.tolerance["f32"]["atol"], ev.report()


@pytest.mark.parametrize("name", list(LOW_PRECISION_CASES))
@pytest.mark.parametrize("backend", ["wgpu", "cuda"])
def test_low_precision_gemm_bug_is_caught_and_its_twin_passes(request, backend, name):
    require_available(request.config, backend)
    case = LOW_PRECISION_CASES[name]
    with forge.open_context(backend) as ctx:
        good = oracle.evaluate(ctx, case.good, samples=1)
        if good.verdict == "unsupported":
            pytest.skip(f"{name} on {backend}: {good.error}")
        assert good.passed, good.report()
        for size in case.good.test_sizes:
            ev = oracle.evaluate(ctx, case.broken, size=size, samples=1)
            _assert_value_wrong(ev, MARGINS.get(name, 10.0))


@pytest.mark.parametrize("name", list(LOW_PRECISION_CASES))
def test_low_precision_numpy_bug_is_caught_on_the_reference(name):
    case = LOW_PRECISION_CASES[name]
    with forge.open_context("reference") as ctx:
        assert oracle.evaluate(ctx, case.good, samples=1).passed
        ev = oracle.evaluate(ctx, case.broken_reference, truth=case.good, samples=1)
        _assert_value_wrong(ev, MARGINS.get(name, 10.0))


@pytest.mark.parametrize("name", list(LOW_PRECISION_CASES))
def test_low_precision_cuda_sources_compile(name):
    from backends.cuda import compile_cuda

    for kernel in (LOW_PRECISION_CASES[name].good, LOW_PRECISION_CASES[name].broken):
        source = kernel.source("cuda", kernel.schedules[0])
        assert compile_cuda(source, kernel.entry_point, arch="sm_90")[:4] == b"\x7fELF"


def test_the_bf16_cases_have_no_wgsl_and_say_why_on_wgpu(request):
    require_available(request.config, "wgpu")
    case = LOW_PRECISION_CASES["dropped_k_tile_bf16"]
    assert "wgsl" not in case.good.sources
    with forge.open_context("wgpu") as ctx:
        ev = oracle.evaluate(ctx, case.good, samples=1)
    assert ev.verdict == "unsupported", ev.report()

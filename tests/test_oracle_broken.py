"""Proof that the oracle catches wrong kernels (issue 6, item 8), and that it does not
accuse correct ones.

Each defect in ``tests/oracle_broken`` runs next to its correct twin: the twin must
pass (so the kernel, its reference and the harness are right) and the broken one must
fail with the specific finding that names the defect. On a GPU backend the defect is
in the device code; on the reference backend, which runs numpy, it is a broken numpy
function judged against the correct one (a bounds guard and a barrier have no numpy
counterpart, so those two cases are not run there).

Two cases deserve a word on what they prove:
- missing barrier: a data race need not misbehave on every device. The kernel makes
  it observable (the slots read without the barrier are written late, after a spin),
  and on lavapipe, which runs a workgroup subgroup by subgroup up to each barrier, the
  early read always sees stale shared memory. On CUDA the spin makes the stale read
  overwhelmingly likely, not certain; the correct twin, with the barrier, must pass.
- inputs overwritten: the shader declares its input ``read_write`` and writes it; the
  binding follows the shader's declaration (as in real WGSL, where inputs are often
  declared read_write), and the input read-back catches the write on every backend.
"""

from __future__ import annotations

import pytest

import forge
import oracle
from oracle.pytest_plugin import require_available
from tests.oracle_broken import CASES
from tests.test_oracle_float_semantics import WGSL, Declaring

GPU_BACKENDS = ("wgpu", "browser", "cuda")
WEBGPU_BACKENDS = ("wgpu", "browser")


def _assert_found(ev: oracle.Evaluation, finding: str) -> None:
    assert not ev.passed, ev.report()
    y = ev.outputs.get("y")
    if finding == "past_end":
        assert y.past_end > 0, ev.report()
    elif finding == "unwritten":
        assert y.unwritten > 0, ev.report()
    elif finding == "value":
        assert not y.comparison.passed or not y.later.passed, ev.report()
    elif finding == "input":
        assert ev.inputs_modified.get("x", 0) > 0, ev.report()
    else:
        raise AssertionError(f"unknown finding {finding!r}")


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("backend", GPU_BACKENDS)
def test_broken_kernel_is_judged_wrong_and_its_twin_right(request, backend, name):
    require_available(request.config, backend)
    case = CASES[name]
    finding = case.finding
    with forge.open_context(backend) as ctx:
        good = oracle.evaluate(ctx, case.good, samples=2)
        assert good.passed, good.report()
        _assert_found(oracle.evaluate(ctx, case.broken, samples=2), finding)


@pytest.mark.parametrize("semantics", ["ieee", "wgsl"])
@pytest.mark.parametrize("name", [n for n, c in CASES.items() if c.broken_reference is not None])
def test_broken_numpy_meaning_is_judged_wrong_on_the_reference(name, semantics):
    """Also with WGSL's float semantics declared: masking non-finite results and
    accepting flushed subnormals must hide none of these defects."""
    case = CASES[name]
    with forge.open_context("reference") as ctx:
        judged = ctx if semantics == "ieee" else Declaring(ctx, **WGSL)
        assert oracle.evaluate(judged, case.good, samples=2).passed
        ev = oracle.evaluate(judged, case.broken_reference, truth=case.good, samples=2)
        assert ev.semantics.subnormals_may_flush is (semantics == "wgsl")
        _assert_found(ev, case.reference_finding)


@pytest.mark.parametrize("name", list(CASES))
def test_cuda_sources_of_the_broken_kernels_compile(name):
    """NVRTC needs no GPU, so CI proves the CUDA versions are real kernels (a missing
    NVRTC fails here, as in test_nvrtc); that they are caught is proved on the GPU
    machine by the test above."""
    from backends.cuda import compile_cuda

    for kernel in (CASES[name].good, CASES[name].broken):
        source = kernel.source("cuda", kernel.schedules[0])
        assert compile_cuda(source, kernel.entry_point, arch="sm_90")


@pytest.mark.parametrize("kernel_id", [k.id for k in forge.list_kernels()])
def test_no_correct_builtin_kernel_is_judged_wrong(forge_context, kernel_id):
    """Every test size under the default schedule, then every other schedule the adapter
    admits at the largest size. An IR kernel's other schedules are left to test_library,
    which runs every one of them at every test size on each device (on SwiftShader,
    compiling layernorm's widest schedule alone takes two and a half minutes)."""
    kernel = forge.get_kernel(kernel_id)
    default = oracle.choose_schedule(forge_context, kernel)
    runs = [(default, size) for size in kernel.checked_sizes()]
    if kernel.body.kind == "raw":
        runs += [(s, kernel.largest_size()) for s in kernel.schedules if s != default]
    for schedule, size in runs:
        ev = oracle.evaluate(forge_context, kernel, schedule, size=size, warmups=0, samples=1)
        if ev.verdict == "unsupported" and schedule == default:
            pytest.skip(f"{kernel_id} cannot run on {forge_context.backend_name}: {ev.error}")
        assert ev.passed or ev.verdict == "unsupported", ev.report()

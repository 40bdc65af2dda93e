"""Every built-in kernel under each of its schedules emits WGSL that naga accepts (and a
compute pipeline is built from it) and CUDA C that NVRTC compiles (in CI the first and
last schedule of each role: ``_sampled_for_nvrtc``): no GPU needed, so this runs in
CI. IR kernels with f16 and f64 values are checked the same way."""

from __future__ import annotations

import os

import numpy as np
import pytest

import forge
from forge import Schedule, UnsupportedFeature, ValidationLevel, ir
from kforge._codegen import validate_source
from oracle.pytest_plugin import require_available

_JOBS = [(k, s) for k in forge.list_kernels() for s in k.schedules]


@pytest.fixture(autouse=True)
def _private_nvrtc_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FORGE_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def wgpu_validator(request):
    require_available(request.config, "wgpu")
    from backends.wgpu import validate_wgsl

    return validate_wgsl


@pytest.mark.parametrize("kernel, schedule", _JOBS, ids=[f"{k.id}-{s}" for k, s in _JOBS])
def test_naga_accepts_the_wgsl_and_builds_a_pipeline(kernel, schedule, wgpu_validator):
    try:
        source = kernel.source("wgsl", schedule)
    except UnsupportedFeature as exc:  # bf16: WGSL has no such type, a visible skip
        pytest.skip(str(exc))
    wgpu_validator(source, kernel.entry_point)


def _sampled_for_nvrtc(kernel, schedule) -> bool:
    """The first and last schedule of each role (baseline, tensor-core, hopper, ...) of a
    kernel: the GEMMs hold up to 19 schedules of one emitter path differing in tile
    sizes, 2 to 4 s of NVRTC each, 2 minutes of CI's worker time in all (2026-12-06).
    The rest compile (and run) on the GPU machine in tests/test_library.py, and here
    with KFORGE_SLOW_TESTS=1."""
    role = kernel.schedule_role(schedule)
    same = [s for s in kernel.schedules if kernel.schedule_role(s) == role]
    return schedule in (same[0], same[-1])


@pytest.mark.parametrize("kernel, schedule", _JOBS, ids=[f"{k.id}-{s}" for k, s in _JOBS])
def test_nvrtc_compiles_the_cuda_c(kernel, schedule):
    from backends.cuda import compile_cuda

    if not (os.environ.get("KFORGE_SLOW_TESTS") or _sampled_for_nvrtc(kernel, schedule)):
        pytest.skip(
            f"{kernel.id} under {schedule}: CI compiles the first and last schedule of each "
            "role; test_library compiles and runs every one on the GPU machine, and "
            "KFORGE_SLOW_TESTS=1 compiles it here"
        )

    image = compile_cuda(kernel.source("cuda", schedule), kernel.entry_point, output="cubin")
    assert image[:4] == b"\x7fELF"


def _typed_kernels():
    """Kernels over every dtype; float-to-int casts declare no NaN inputs (WGSL leaves
    a NaN's conversion unspecified)."""
    h = ir.input("h", "f16")
    d = ir.input("d", "f64")
    return [
        ir.kernel(
            "half_ops",
            ir.map(
                y=ir.tanh(h) * 2.0 + ir.erf(h) - ir.sigmoid(h) / ir.exp(h),
                i=ir.cast(h, "i32"),
                u=ir.cast(h, "u32"),
            ),
            domain={"h": (-np.inf, np.inf)},
            tolerance={"f16": {"atol": 4e-3, "rtol": 4e-3}},
        ),
        ir.kernel(
            "double_ops",
            ir.map(y=ir.max(d, 0.0) * 2.0 - ir.abs(d), i=ir.cast(d, "i32"), f=ir.cast(d, "f32")),
            domain={"d": (-np.inf, np.inf)},
        ),
        ir.kernel("half_rows", ir.rows(y=h - ir.row_max(h), s=ir.row_sum(h))),
        ir.kernel("double_gemm", ir.matmul("f64"), defaults={"alpha": 1.0, "beta": 0.0}),
        ir.kernel(
            "int_ops",
            ir.map(
                y=ir.select(
                    ir.input("a", "i32") < 0, -ir.input("a", "i32"), ir.min(ir.input("a", "i32"), 7)
                )
                * 3,
                z=ir.cast(ir.input("b", "u32"), "f32") + ir.const(float("inf")),
            ),
        ),
    ]


@pytest.mark.parametrize("kernel", _typed_kernels(), ids=lambda k: k.id)
@pytest.mark.parametrize(
    "schedule", [Schedule(64), Schedule((32, 2), items_per_invocation=2, vector_width=4)], ids=str
)
def test_f16_f64_and_integer_kernels_validate_on_both_targets(kernel, schedule, request):
    if kernel.body.kind == "matmul":
        schedule = Schedule((16, 16), tile=(32, 32, 8))
    elif kernel.body.kind == "map":
        schedule = schedule.with_(workgroup_size=(64, 1, 1))
    require_available(request.config, "wgpu")
    for target in ("wgsl", "cuda"):
        result = validate_source(kernel, target, schedule)
        assert not result.failed, result.message
        assert result.level >= ValidationLevel.VALIDATED


def test_wgsl_has_no_f64_transcendentals_and_says_so_before_emitting():
    kernel = ir.kernel("double_exp", ir.map(y=ir.exp(ir.input("d", "f64"))))
    with pytest.raises(UnsupportedFeature, match="WGSL has no f64 exp"):
        kernel.source("wgsl", Schedule(64))
    assert "exp(" in kernel.source("cuda", Schedule(64))


def test_validate_reports_the_compiler_message_of_a_broken_source(request):
    require_available(request.config, "wgpu")
    broken = forge.KernelSpec(
        "broken",
        "broken",
        forge.get_kernel("raw_affine").buffers,
        sources={
            "wgsl": "@compute @workgroup_size(64) fn broken() { let x: f32 = nope; }",
            "cuda": 'extern "C" __global__ void broken() { int x = nope; }',
        },
    )
    for target, needle in (("wgsl", "nope"), ("cuda", "nope")):
        result = validate_source(broken, target, Schedule(64))
        assert result.failed and result.level is ValidationLevel.GENERATED
        assert needle in result.message

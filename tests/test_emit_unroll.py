"""``unroll=1``, a matmul schedule choice: WGSL has no unroll hint, so the matmul's
loops over its register arrays are written out and every index into them is a constant
(issue 18's WGSL GEMM); the meaning is unchanged and CUDA is unrolled by pragma either
way."""

from __future__ import annotations

import re

import pytest

import forge
from forge import Schedule, UnsupportedFeature
from forge.kernels.linalg import GEMM

ROLLED = Schedule((16, 16), vector_width=4, tile=(128, 128, 8, 2))
UNROLLED = ROLLED.with_(unroll=True)


def test_unroll_is_part_of_the_schedule_text_only_when_set():
    assert str(UNROLLED) == "wg=16x16,ipt=1,vec=4,tile=128x128x8x2,unroll=1"
    assert Schedule.parse(str(UNROLLED)) == UNROLLED
    assert "unroll" not in str(ROLLED)
    with pytest.raises(forge.InvalidArgument, match="unroll is 0 or 1"):
        Schedule.parse("wg=64,unroll=2")


def test_unrolled_wgsl_indexes_register_arrays_by_constants_only():
    """Without float4 tiles (vec=2) the registers stay arrays, indexed by constants."""
    source = GEMM.source("wgsl", UNROLLED.with_(vector_width=2))
    for var in ("fg_kk", "fg_i", "fg_j", "fg_g"):
        assert f"for (var {var}:" not in source
        assert f"const {var}: u32 = " in source
    rolled = GEMM.source("wgsl", ROLLED)
    assert "for (var fg_i: u32 = 0u; fg_i < 8u; fg_i += 1u) {" in rolled
    # every access to the accumulators is inside a block where its indices are constants
    assert len(re.findall(r"fg_acc\[fg_i \* 8u \+ fg_j\] \+=", source)) == 8 * 8 * 8


def test_unrolled_vec4_wgsl_has_no_register_arrays_and_moves_16_bytes():
    """vec=4: named vec4 registers (nothing for naga to clamp or a driver to keep in
    local memory), vec4 tiles read at constant offsets, and a, b, c as vec4 arrays."""
    source = GEMM.source("wgsl", UNROLLED)
    assert "array<f32" not in source and "fg_acc[" not in source
    assert "var<workgroup> fg_as: array<vec4<f32>, 256>;" in source  # 8 x 128 / 4
    for name in ("a", "b", "c"):
        assert re.search(rf"var<storage, read(_write)?> {name}: array<vec4<f32>>;", source)
    assert source.count("var fg_acc") == 8 * 2  # 8 rows x 2 column groups of 4
    # k step 1 reads rows 64..67 + 4ty of the block as one vec4 at a constant offset
    assert "let fg_fa1 = fg_as[48u + fg_ty];" in source
    assert "fg_acc5_1 += fg_fa1.y * fg_fb1;" in source
    assert source.count("fg_acc5_1 += ") == 8  # once per k of the step
    assert "fg_ra0 = a[fg_i" in source and "c[fg_at / 4u] = fg_out;" in source
    assert "var<workgroup> fg_as: array<f32, 1024>;" in GEMM.source("wgsl", ROLLED)


def test_unrolled_cuda_differs_only_in_the_schedule_it_names():
    def body(schedule):
        return [
            line
            for line in GEMM.source("cuda", schedule).splitlines()
            if not line.startswith("// schedule:")
        ]

    assert body(UNROLLED) == body(ROLLED)


@pytest.mark.parametrize(
    "kernel_id, schedule",
    [
        ("affine", Schedule(64, unroll=True)),
        ("softmax", Schedule((64, 1), items_per_invocation=4, unroll=True)),
        ("transpose", Schedule((32, 8), tile=(32, 32), unroll=True)),
    ],
)
def test_other_patterns_refuse_unroll_saying_they_always_unroll(kernel_id, schedule):
    with pytest.raises(UnsupportedFeature, match="always writes its register loops out"):
        forge.get_kernel(kernel_id).check_schedule(schedule)


def test_unrolled_gemm_matches_the_reference_on_wgpu(request):
    from oracle import evaluate
    from oracle.pytest_plugin import require_available

    require_available(request.config, "wgpu")
    with forge.open_context("wgpu") as ctx:
        for schedule in (UNROLLED, UNROLLED.with_(vector_width=2)):
            for size in GEMM.test_sizes:
                ev = evaluate(ctx, GEMM, schedule, size=size, samples=1)
                assert ev.passed, (str(schedule), ev.report())

"""Schedules and layouts a kernel cannot be lowered under are refused before anything is
emitted, with the reason; the ones it can are accepted by ``check`` exactly when
``emit`` succeeds."""

from __future__ import annotations

import pytest

import forge
from forge import AdapterConstraints, Schedule, UnsupportedFeature, ir
from forge.emit import STORAGE_LIMITS, ScheduleRefused, check, emit, workgroup_storage_bytes

x = ir.input("x")
MAP = forge.get_kernel("affine")
ROWS = forge.get_kernel("softmax")
GEMM = forge.get_kernel("gemm")
TRANSPOSE = forge.get_kernel("transpose")
GEMM_COL_A = ir.kernel("gemm_ta", ir.matmul(a_layout="col"), defaults={"alpha": 1.0, "beta": 0.0})
GEMM_COL_B = ir.kernel(
    "gemm_tt", ir.matmul(a_layout="col", b_layout="col"), defaults={"alpha": 1.0, "beta": 0.0}
)

REFUSED = [
    (MAP, Schedule(64, tile=(8,)), None, r"a map takes no tile"),
    (ROWS, Schedule((48, 1)), None, r"wg_x=48 .* power of two"),
    (ROWS, Schedule((32, 2, 2)), None, r"wg_z must be 1"),
    (ROWS, Schedule((32, 1), tile=(64,)), None, r"a rows kernel takes no tile"),
    (GEMM, Schedule((16, 16)), None, r"a matmul needs tile=BMxBNxBK"),
    (GEMM, Schedule((16, 16), tile=(64, 60, 8)), None, r"must split evenly over the 16x16"),
    (GEMM, Schedule((16, 16), tile=(64, 64, 8, 3)), None, r"stages must be 1 or 2"),
    (
        GEMM,
        Schedule((16, 16), items_per_invocation=2, tile=(64, 64, 8)),
        None,
        r"items per invocation must be 1",
    ),
    (
        GEMM,
        Schedule((16, 16), vector_width=4, tile=(32, 32, 8)),
        None,
        r"2x2 micro-tile is read and stored in vectors of 4",
    ),
    (
        GEMM,
        Schedule((16, 16), vector_width=4, tile=(64, 64, 2)),
        None,
        r"a is row-major, so its tile is loaded along k in vectors of 4; that tile extent \(2\)",
    ),
    (
        GEMM_COL_B,
        Schedule((16, 16), vector_width=4, tile=(64, 64, 2)),
        None,
        r"b is col-major, so its tile is loaded along k in vectors of 4",
    ),
    (GEMM, Schedule((4, 4), tile=(128, 128, 8)), None, r"1024 accumulators .* spill"),
    (TRANSPOSE, Schedule((32, 8), tile=(32, 16)), None, r"square tile"),
    (TRANSPOSE, Schedule((16, 8), tile=(32, 32)), None, r"workgroup of 32 x WY"),
    (
        TRANSPOSE,
        Schedule((32, 8), vector_width=2, tile=(32, 32)),
        None,
        r"vector width .* must be 1",
    ),
    (
        TRANSPOSE,
        Schedule((64, 4), tile=(64, 64)),
        "wgsl",
        r"16640 bytes of workgroup storage on wgsl",
    ),
    (MAP, Schedule(2048), "cuda", r"at most 1024 threads"),
    (MAP, Schedule(64, items_per_invocation=257), None, r"unrolls 257 items per invocation"),
    (MAP, Schedule(64, items_per_invocation=128, vector_width=4), None, r"unrolls 512 items"),
    (ROWS, Schedule((32, 1), items_per_invocation=2**20), None, r"unrolls 1048576 items"),
    (MAP, Schedule(256, vector_width=8), "cuda", r"map kernel's .* is f32.*vec=4 already"),
    (forge.get_kernel("gelu_f16"), Schedule(256, vector_width=8), "wgsl", r"no 8-wide vectors"),
    (MAP, Schedule(256, subgroups=True), None, r"a map kernel has no such reduction"),
]


@pytest.mark.parametrize(
    "kernel, schedule, target, message", REFUSED, ids=[f"{k.id}-{s}" for k, s, _, _ in REFUSED]
)
def test_refused_combinations_name_the_reason_before_emission(kernel, schedule, target, message):
    from forge.emit import _emit

    before = _emit.cache_info()
    with pytest.raises(ScheduleRefused, match=message):
        check(kernel, schedule, target)
    for name in [target] if target else ["wgsl", "cuda"]:
        with pytest.raises(ScheduleRefused, match=message):
            emit(kernel, schedule, name)
    after = _emit.cache_info()
    assert (after.hits, after.misses) == (before.hits, before.misses), "the emitter ran"


def test_a_map_of_2_byte_values_moves_16_byte_chunks_on_cuda():
    source = emit(forge.get_kernel("gelu_bf16"), Schedule(256, vector_width=8), "cuda")
    assert "struct __align__(16) fg_bfloat8" in source
    assert "*reinterpret_cast<const fg_bfloat8*>(&x[" in source
    assert "*reinterpret_cast<fg_bfloat8*>(&y[" in source


def test_a_refusal_is_an_unsupported_feature_so_tuners_prune_it():
    assert issubclass(ScheduleRefused, UnsupportedFeature)
    with pytest.raises(UnsupportedFeature):
        GEMM.check_schedule(Schedule(64))
    with pytest.raises(UnsupportedFeature):
        GEMM.workgroups(Schedule(64), 100)


def test_the_same_schedule_is_refused_or_accepted_by_operand_layout():
    thin_k = Schedule((16, 16), vector_width=4, tile=(64, 64, 2))
    with pytest.raises(ScheduleRefused, match="a is row-major"):
        check(GEMM, thin_k)
    check(GEMM_COL_A, thin_k)  # a column-major a is loaded along m, 64 wide
    assert "fg_as" in emit(GEMM_COL_A, thin_k, "cuda")


def test_storage_is_checked_per_target_and_against_the_adapter():
    big = Schedule((64, 4), tile=(64, 64))
    assert workgroup_storage_bytes(TRANSPOSE, big, "cuda") == 64 * 65 * 4
    check(TRANSPOSE, big, "cuda")  # fits CUDA's 48 KiB of static shared memory
    assert STORAGE_LIMITS["wgsl"] == 16384
    small = AdapterConstraints((256, 256, 64), 256, (65535,) * 3, 4096, 1 << 27, 1 << 28)
    with pytest.raises(ScheduleRefused, match="over the limit of 4096"):
        TRANSPOSE.check_schedule(Schedule((32, 8), tile=(32, 32)), small, "wgsl")
    with pytest.raises(UnsupportedFeature, match="exceeds max_workgroup_size"):
        MAP.check_schedule(Schedule(512), small)


def test_every_builtin_schedule_is_accepted_everywhere():
    """Everywhere but where the target lacks the kernel's dtypes or the schedule's
    instructions (WGSL has no bf16 and no mma=1), which say so."""
    from tests.test_emit_determinism import _jobs

    jobs = _jobs()
    for kernel, target, schedule in jobs:
        kernel.check_schedule(schedule, target=target)
    assert {t for _, t, _ in jobs} == {"wgsl", "cuda"} and len(jobs) > 100


def test_unknown_targets_and_raw_kernels_are_not_emitted():
    with pytest.raises(forge.InvalidArgument, match="unknown target 'metal'"):
        emit(MAP, Schedule(64), "metal")
    with pytest.raises(forge.InvalidArgument, match="no IR body"):
        emit(forge.get_kernel("raw_affine"), Schedule(64), "wgsl")

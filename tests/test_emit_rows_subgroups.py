"""sg=1: WGSL's row reductions through subgroup operations (forge/emit/_rows.py).

Each subgroup reduces its invocations' partials (subgroupAdd, subgroupMax, a butterfly
of subgroupShuffleXor for layernorm's moments), stores one result per subgroup, and
every subgroup folds those results again after one barrier. These tests check what is
emitted and refused without a device, and run every row kernel under sg=1 schedules on
the WebGPU backends that offer subgroups (lavapipe and SwiftShader in CI, Vulkan on
NVIDIA on the GPU machine), where planted bugs in the subgroup path must fail.
"""

from __future__ import annotations

import dataclasses

import pytest

import forge
import oracle
from forge import AdapterConstraints, Schedule, ir
from forge import emit as emitter
from forge.emit import ScheduleRefused
from oracle.pytest_plugin import require_available

ROW_KERNELS = ["softmax", "log_softmax", "rmsnorm", "layernorm", "row_sum", "row_max", "gemv"]
# a row in registers exactly and not, looped; one subgroup or part of one (2, 4
# invocations); many subgroups
SCHEDULES = [
    Schedule((64, 1), items_per_invocation=2, vector_width=4, subgroups=True),
    Schedule((256, 1), items_per_invocation=4, vector_width=4, subgroups=True),
    Schedule((4, 1), items_per_invocation=1, subgroups=True),
    Schedule((2, 1), items_per_invocation=2, vector_width=2, subgroups=True),
]


def _constraints(subgroups: bool) -> AdapterConstraints:
    return AdapterConstraints(
        (1024, 1024, 64), 1024, (65535,) * 3, 32768, 1 << 27, 1 << 28, subgroups=subgroups
    )


def test_the_schedule_spells_sg_and_reads_it_back():
    schedule = Schedule.parse("wg=256,ipt=4,vec=4,sg=1")
    assert schedule.subgroups and str(schedule) == "wg=256,ipt=4,vec=4,sg=1"
    assert Schedule.parse(str(schedule)) == schedule
    assert Schedule.parse("wg=256,sg=0") == Schedule((256, 1))
    with pytest.raises(forge.InvalidArgument, match=r"subgroups \(sg=\) is 0 or 1, got 2"):
        Schedule.parse("wg=256,sg=2")


@pytest.mark.parametrize("kernel_id", ["softmax", "rmsnorm", "layernorm"])
def test_wgsl_enables_subgroups_and_reduces_with_them_in_one_barrier_a_level(kernel_id):
    kernel = forge.get_kernel(kernel_id)
    text = kernel.source("wgsl", SCHEDULES[1])
    assert "enable subgroups;" in text
    for builtin in ("subgroup_invocation_id", "subgroup_size", "subgroup_id", "num_subgroups"):
        assert f"@builtin({builtin})" in text
    ops = ("subgroupShuffleXor",) if kernel_id == "layernorm" else ("subgroupAdd",)
    assert all(op in text for op in ops)
    plain = kernel.source("wgsl", SCHEDULES[1].with_(subgroups=False))
    # three code paths (exact, one pass, looped), one barrier per level each: softmax's
    # online pair and layernorm's moments are one level, rmsnorm has one
    assert text.count("workgroupBarrier();") == 3
    assert plain.count("workgroupBarrier();") > 3 * 8  # the tree: log2(256) + 1 a level
    assert "subgroup" not in plain


def test_cuda_and_other_patterns_refuse_sg_saying_why():
    with pytest.raises(ScheduleRefused, match="warp shuffles"):
        emitter.check(forge.get_kernel("softmax"), SCHEDULES[0], "cuda")
    with pytest.raises(ScheduleRefused, match="wg_y = 1"):
        emitter.check(forge.get_kernel("softmax"), Schedule((32, 4), subgroups=True), "wgsl")
    with pytest.raises(ScheduleRefused, match="a map kernel has no such reduction"):
        emitter.check(forge.get_kernel("gelu"), Schedule((64, 1), subgroups=True), "wgsl")
    f64 = ir.kernel("row_sum_f64", ir.rows(y=ir.row_sum(ir.input("x", "f64"))))
    with pytest.raises(ScheduleRefused, match="accumulates in f64"):
        emitter.check(f64, Schedule((64, 1), subgroups=True), "wgsl")


def test_an_adapter_without_subgroups_refuses_sg_and_takes_the_tree():
    kernel = forge.get_kernel("rmsnorm")
    with pytest.raises(ScheduleRefused, match="subgroup operations.*this device lacks"):
        emitter.check(kernel, SCHEDULES[0], "wgsl", _constraints(subgroups=False))
    emitter.check(kernel, SCHEDULES[0], "wgsl", _constraints(subgroups=True))
    emitter.check(kernel, SCHEDULES[0].with_(subgroups=False), "wgsl", _constraints(False))


@pytest.fixture(scope="module", params=["wgpu", "browser"])
def ctx(request):
    require_available(request.config, request.param)
    context = forge.open_context(request.param)
    if not context.constraints.subgroups:
        context.close()
        pytest.skip(f"{request.param}'s adapter offers no subgroups (sg=1 is refused there)")
    yield context
    context.close()


def _runs_here(ctx, kernel, schedule) -> bool:
    try:
        schedule.check(ctx.constraints)
        emitter.check(kernel, schedule, "wgsl", ctx.constraints)
    except forge.UnsupportedFeature:
        return False
    return True


@pytest.mark.parametrize("kernel_id", ROW_KERNELS + ["softmax_f16", "layernorm_f16"])
@pytest.mark.parametrize("schedule", SCHEDULES, ids=str)
def test_row_kernels_pass_the_oracle_under_sg(ctx, kernel_id, schedule):
    kernel = forge.get_kernel(kernel_id)
    if kernel_id.endswith("_f16") and not ctx.constraints.shader_f16:
        pytest.skip(f"{ctx.adapter.name} has no shader-f16")
    assert _runs_here(ctx, kernel, schedule)
    ev = oracle.evaluate(ctx, kernel, schedule, samples=0)
    assert ev.passed, ev.report()


def test_layernorm_under_sg_holds_on_rows_with_a_large_mean_and_a_small_spread(ctx):
    from tests.test_emit_rows import _adversarial_rows

    kernel = forge.get_kernel("layernorm")
    for cols in (100, 1001, 4099):
        data = _adversarial_rows(cols)
        rows = data["x"].size // cols
        ev = oracle.evaluate(
            ctx, ir.with_shape(kernel, rows=rows), SCHEDULES[1], cols, inputs=data, samples=0
        )
        if not ev.passed and ctx.backend_name == "wgpu" and ctx.adapter.vendor_id == 0x10DE:
            # Open (H200, Vulkan, 2026-12-03): under sg=1, as under the tree schedules with
            # several rows a workgroup (test_emit_rows), rows whose mean is 10^3 to 10^4
            # times their spread come out about one float32 ulp of the mean from the
            # reference (errors up to 0.5 relative on outputs near 0). lavapipe and
            # SwiftShader give them to the bit under sg=1; the tree with one row a
            # workgroup is not measured at these sizes there (test_emit_rows runs it at
            # 4096 and 4099), and whether NVIDIA's driver or the subgroup merge makes the
            # difference is not settled. bench.probes row-means (H200, 2026-12-03 05:35):
            # plain row sums and a two-pass variance agree to the bit at 100 columns
            # under the tree and sg=1, so what is left to compare is the layernorm's
            # one-pass moments (the butterfly's merges). Said so, not passed.
            pytest.xfail(f"NVIDIA Vulkan, sg=1, {cols} columns: {ev.report()[:300]}")
        assert ev.passed, ev.report()


# planted bugs in the subgroup path, each in the emitted text
_MUTANTS = {
    # every subgroup folds only the first subgroup's result
    "first subgroup only": lambda text: text.replace("fg_j < fg_nsg", "fg_j < 1u"),
    # no reduction within a subgroup: its result is its first invocation's own
    "no subgroupAdd": lambda text: text.replace("subgroupAdd(", "("),
    # the moments' butterfly merges an invocation's partial with itself
    "shuffle of itself": lambda text: text.replace("subgroupShuffleXor(", "select(fg_o, ").replace(
        ", fg_o);", ", false);"
    ),
}
_MUTATED = {"first subgroup only": "rmsnorm", "no subgroupAdd": "softmax"}


@pytest.mark.parametrize("mutant", list(_MUTANTS))
def test_the_oracle_fails_a_broken_subgroup_reduction(ctx, monkeypatch, mutant):
    kernel_id = _MUTATED.get(mutant, "layernorm")
    correct = emitter._emit

    def broken(kernel, schedule, target):
        text = correct(kernel, schedule, target)
        mutated = _MUTANTS[mutant](text)
        assert mutated != text, f"the mutant {mutant!r} changed nothing"
        return mutated

    monkeypatch.setattr(emitter, "_emit", broken)
    kernel = dataclasses.replace(forge.get_kernel(kernel_id), id=f"sg_mutant_{kernel_id}")
    ev = oracle.evaluate(ctx, kernel, SCHEDULES[1], samples=0)
    assert not ev.passed, f"{mutant} passed:\n{ev.report()}"

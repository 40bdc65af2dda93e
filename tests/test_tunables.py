"""Tunables (forge.tunables): a kernel's own parameters reach each source the way the
source takes them (a WGSL override, template text, a CUDA -D), a kernel with values
applied is an ordinary kernel whose hash covers them, schedule knobs replace schedule
fields, restrictions are expressions or callables, and every bad declaration is a clear
error before anything runs."""

from __future__ import annotations

import pytest

from forge import BufferSpec, InvalidArgument, KernelSpec, Schedule, Tunable, ir, tunables

WGSL = """
override BLOCK: u32;
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    for (var k = 0u; k < {{UNROLL}}u; k++) { y[gid.x] = x[gid.x] * f32(BLOCK); }
}
"""
CUDA = """
extern "C" __global__ void main(const float* x, float* y) {
    for (int k = 0; k < {{UNROLL}}; k++) y[threadIdx.x] = x[threadIdx.x] * BLOCK;
}
"""


def _double(x, y):
    y[:] = x * 2


def _kernel(**changes) -> KernelSpec:
    fields = dict(
        id="tunable",
        entry_point="main",
        sources={"wgsl": WGSL, "cuda": CUDA},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
        ),
        reference=_double,
        tunables={"BLOCK": (32, 64, 128), "UNROLL": (1, 2, 4)},
        restrictions=("BLOCK * UNROLL <= 256",),
    )
    fields.update(changes)
    return KernelSpec(**fields)


def test_each_parameter_reaches_each_source_the_way_it_takes_it():
    kernel = _kernel().with_tunables(BLOCK=64, UNROLL=4)
    schedule = Schedule(64)
    (wgsl_step,) = kernel.steps("wgsl", schedule, 100)
    assert dict(wgsl_step.overrides) == {"BLOCK": 64}  # declared `override BLOCK`
    assert "k < 4u" in kernel.source("wgsl", schedule, 100)  # {{UNROLL}} as text
    assert "-DBLOCK=64" in kernel.compile_options("cuda")  # CUDA names it: a define
    assert "k < 4;" in kernel.source("cuda", schedule, 100)
    assert "-DUNROLL=4" not in kernel.compile_options("cuda")  # the template took it
    (cuda_step,) = kernel.steps("cuda", schedule, 100)
    assert cuda_step.overrides == ()


def test_a_kernel_with_values_applied_is_another_kernel_and_defaults_are_first_values():
    kernel = _kernel()
    assert kernel.tunable_values() == {"BLOCK": 32, "UNROLL": 1}
    tuned = kernel.with_tunables(UNROLL=2)
    assert tuned.tunable_values() == {"BLOCK": 32, "UNROLL": 2}
    assert tuned.semantic_hash != kernel.semantic_hash
    assert kernel.with_tunables(UNROLL=2).semantic_hash == tuned.semantic_hash
    assert kernel.with_tunables(UNROLL=1).semantic_hash == kernel.semantic_hash  # the default
    frozen = tuned.frozen("cuda", Schedule(64), 100)
    assert "-DBLOCK=32" in frozen.compile_options("cuda") and not frozen.tunables


def test_a_value_that_was_not_declared_or_an_unknown_name_is_refused():
    kernel = _kernel()
    with pytest.raises(InvalidArgument, match="3 is not one of UNROLL"):
        kernel.with_tunables(UNROLL=3)
    with pytest.raises(InvalidArgument, match="not one of its parameters"):
        kernel.with_tunables(TILE=8)


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"tunables": {"UNROLL": ()}}, "has no values"),
        ({"tunables": {"UNROLL": (1, 1)}}, "lists a value twice"),
        ({"tunables": {"UNROLL": ([1],)}}, "a source takes a number"),
        ({"tunables": {"wg_x": (1, 2)}}, "template value already"),
        ({"tunables": {"vec": (3,)}}, "not a schedule's vec"),
        ({"tunables": {"vec": Tunable((1, 2), via="define")}}, "takes no via"),
        ({"restrictions": (42,)}, "a restriction is an expression or a callable"),
        ({"restrictions": ("BLOCK <= ",)}, "bad expression"),
    ],
)
def test_declarations_wrong_in_themselves_fail_when_the_kernel_is_made(changes, message):
    with pytest.raises(InvalidArgument, match=message):
        _kernel(**changes)


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"tunables": {"BLOCK": (32, -1)}}, r"override BLOCK: u32`, which cannot take -1"),
        ({"tunables": {"BLOCK": (32, 1.5)}}, "which cannot take 1.5"),
        (
            {
                "tunables": {"BLOCK": (32,), "UNROLL": (1,), "SPLIT": (1, 2)},
                "sources": {"wgsl": WGSL},
            },
            "SPLIT' reaches no source",
        ),
        (
            {"tunables": {"BLOCK": (32,), "UNROLL": Tunable((1, 2), via="override")}},
            "declares no `override UNROLL`",
        ),
        ({"restrictions": ("BLOCK * TILE <= 256",)}, "names TILE, which is no tunable"),
        ({"constants": {"BLOCK": 4}}, "is also a constant"),
    ],
)
def test_declarations_the_sources_cannot_take_fail_before_anything_runs(changes, message):
    with pytest.raises(InvalidArgument, match=message):
        tunables.check_tunables(_kernel(**changes))


def test_an_ir_kernel_is_tuned_through_its_schedule_knobs_not_parameters():
    kernel = ir.kernel("scaled", ir.map(y=ir.input("x") * 2.0))
    knobbed = KernelSpec(**{**_fields(kernel), "tunables": {"vec": (1, 4), "wg": (64, 256)}})
    tunables.check_tunables(knobbed)
    assert [(str(s), values) for s, values in tunables.combinations(knobbed)] == [
        ("wg=64,ipt=1,vec=1", {}),
        ("wg=256,ipt=1,vec=1", {}),
        ("wg=64,ipt=1,vec=4", {}),
        ("wg=256,ipt=1,vec=4", {}),
    ]
    with pytest.raises(InvalidArgument, match="IR kernel is tuned through its schedule knobs"):
        tunables.check_tunables(KernelSpec(**{**_fields(kernel), "tunables": {"BLOCK": (1, 2)}}))


def _fields(kernel: KernelSpec) -> dict:
    import dataclasses

    return {f.name: getattr(kernel, f.name) for f in dataclasses.fields(kernel)}


def test_restrictions_see_parameters_schedule_size_and_adapter_limits():
    from forge.types import AdapterConstraints

    kernel = _kernel(
        restrictions=(
            "BLOCK * UNROLL <= 256",
            lambda p: p["wg_x"] >= p["BLOCK"] // 2,
            "n >= BLOCK and UNROLL * 4 <= max_invocations_per_workgroup",
        )
    )
    limits = AdapterConstraints((256, 256, 64), 8, (65535,) * 3, 16384, 1 << 27, 1 << 28)

    def failure(schedule, block, unroll):
        return tunables.restriction_failure(
            kernel, schedule, {"BLOCK": block, "UNROLL": unroll}, 100, limits
        )

    assert failure(Schedule(64), 128, 4) == "restriction 'BLOCK * UNROLL <= 256' is false"
    assert failure(Schedule(32), 128, 1) == "restriction <lambda> is false"
    assert "n >= BLOCK" in failure(Schedule(64), 128, 1)  # the size: n = 100
    assert "max_invocations_per_workgroup" in failure(Schedule(64), 64, 4)  # the adapter's 8
    assert failure(Schedule(64), 64, 1) == ""


def test_a_callable_restriction_asking_for_an_unknown_parameter_is_a_clear_error():
    kernel = _kernel(restrictions=(lambda p: p["TILE"] > 1,))
    with pytest.raises(InvalidArgument, match="asked for 'TILE'"):
        tunables.restriction_failure(kernel, Schedule(64), {"BLOCK": 32, "UNROLL": 1})


def test_grid_expressions_read_the_parameters_values():
    kernel = _kernel(grid="(ceil_div(n, BLOCK * UNROLL),)", dims=("n",))
    assert kernel.with_tunables(BLOCK=64, UNROLL=2).workgroups(Schedule(64), kernel.size(1000)) == (
        8,
        1,
        1,
    )

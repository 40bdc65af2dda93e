"""How users declare and call kernels (issue 11, round 4 of kernels from the wild): what
a new user writes is taken where its meaning is plain, and refused up front, saying
what to write instead, where it cannot mean what was intended."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import forge
import oracle
from forge import BufferSpec, InvalidArgument, KernelSpec, Schedule, ceil_div
from oracle import Session, Verdict
from oracle.pytest_plugin import require_available


@pytest.fixture(scope="module")
def session():
    """One worker per backend for this module's evaluations: a fresh worker for each
    is a second of start-up (1.2 s on lavapipe, 2026-12-06), spent dozens of times."""
    with Session(timeout_s=60) as shared:
        yield shared


_MINMAX = """
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> lo: array<f32>;
@group(0) @binding(3) var<storage, read_write> hi: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&lo)) { return; }
    lo[i] = min(a[i], b[i]);
    hi[i] = max(a[i], b[i]);
}
"""

_BUFFERS = (
    BufferSpec(0, "f32", "read", name="a"),
    BufferSpec(1, "f32", "read", name="b"),
    BufferSpec(2, "f32", "read_write", name="lo"),
    BufferSpec(3, "f32", "read_write", name="hi"),
)


def _minmax(reference, **fields) -> KernelSpec:
    return KernelSpec(
        id="pair_minmax",
        entry_point="main",
        sources={"wgsl": _MINMAX},
        buffers=_BUFFERS,
        reference=reference,
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        nonfinite_inputs=False,
        **fields,
    )


@pytest.mark.parametrize("backend", ["reference", "wgpu"])
def test_a_reference_may_return_a_dict_keyed_by_output_name(request, backend, session):
    require_available(request.config, backend)
    kernel = _minmax(lambda a, b: {"hi": np.maximum(a, b), "lo": np.minimum(a, b)})
    ev = oracle.evaluate(session.runner(backend), kernel, size=1000, samples=0)
    assert ev.passed, ev.report()
    swapped = _minmax(lambda a, b: {"hi": np.minimum(a, b), "lo": np.maximum(a, b)})
    if backend == "wgpu":  # the dict's keys are honoured, not its order
        ev = oracle.evaluate(session.runner(backend), swapped, size=1000, samples=0)
        assert ev.verdict is Verdict.MISMATCH, ev.report()


def test_a_dict_that_does_not_name_each_output_is_a_reference_error_naming_them(session):
    kernel = _minmax(lambda a, b: {"hi": np.maximum(a, b), "low": np.minimum(a, b)})
    ev = oracle.evaluate(session.runner("reference"), kernel, size=100, samples=0)
    assert ev.verdict is Verdict.REFERENCE_ERROR
    assert "missing lo" in ev.error and "not outputs: low" in ev.error, ev.error


def test_the_size_is_taken_from_the_inputs_given(session):
    kernel = _minmax(lambda a, b: (np.minimum(a, b), np.maximum(a, b)))
    a, b = np.arange(7, dtype=np.float32), np.full(7, 3, np.float32)
    ev = oracle.evaluate(session.runner("reference"), kernel, inputs={"a": a, "b": b}, samples=0)
    assert ev.passed and int(ev.size) == 7, ev.report()
    with pytest.raises(InvalidArgument, match=r"no size fits .* pass size="):
        oracle.evaluate(session.runner("reference"), kernel, inputs={"a": a, "b": b[:5]})


def test_a_two_dimensional_size_is_taken_from_an_input_array_s_shape(session):
    kernel = KernelSpec(
        id="scale_rows",
        entry_point="main",
        sources={},
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="rows*cols", shape=("rows", "cols")),
            BufferSpec(1, "f32", "read_write", name="y", count="rows*cols", shape=("rows", "cols")),
        ),
        reference=lambda x, y: x * 2,
        dims=("rows", "cols"),
    )
    x = np.ones((3, 5), np.float32)
    ev = oracle.evaluate(session.runner("reference"), kernel, inputs={"x": x}, samples=0)
    assert ev.passed and dict(ev.size.dims) == {"rows": 3, "cols": 5}, ev.report()


def test_content_given_for_an_output_the_kernel_only_writes_is_refused(session):
    kernel = _minmax(lambda a, b: (np.minimum(a, b), np.maximum(a, b)))
    with pytest.raises(InvalidArgument, match="lo is an output the kernel writes"):
        oracle.evaluate(
            session.runner("reference"), kernel, size=7, inputs={"lo": np.zeros(7, np.float32)}
        )


def test_a_domain_on_an_output_is_refused_at_declaration():
    with pytest.raises(InvalidArgument, match=r"domain names outputs \['hi'\]"):
        _minmax(lambda a, b: None, domain={"hi": (0, 1)})


_OVERRIDE = """
override SCALE: f32 = 2.0;
@id(7) override SHIFT: f32 = 0.0;
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.y * 64u + gid.x;
    if (i >= arrayLength(&o)) { return; }
    o[i] = a[i] * SCALE + SHIFT;
}
"""


def _override_kernel(**fields) -> KernelSpec:
    return KernelSpec(
        id="scaled",
        entry_point="main",
        sources={"wgsl": _OVERRIDE},
        buffers=(BufferSpec(0, "f32", "read", name="a"), BufferSpec(1, "f32", "read_write")),
        reference=lambda a: a * np.float32(3.0),
        grid=lambda s, n: (8, ceil_div(n, 512), 1),
        **fields,
    )


def test_an_override_the_shader_does_not_declare_is_refused_on_every_backend():
    with pytest.raises(InvalidArgument, match=r"overrides names NOPE.*SCALE, SHIFT"):
        _override_kernel(overrides={"NOPE": 1.0})
    assert _override_kernel(overrides={"SCALE": 3.0, "7": 0.0}).overrides["SCALE"] == 3.0


def test_schedule_8_8_beside_workgroup_size_8_8_says_how_to_write_an_8x8_workgroup():
    with pytest.raises(InvalidArgument, match=r"write Schedule\(\(8, 8\)\)"):
        _override_kernel(schedules=(Schedule(8, 8),))


@pytest.mark.parametrize("backend", ["reference", "wgpu"])
def test_a_kernel_without_schedules_runs_with_its_shader_s_workgroup_size(
    request, backend, session
):
    require_available(request.config, backend)
    kernel = _override_kernel(overrides={"SCALE": 3.0})
    assert kernel.schedules == (Schedule((8, 8)),)
    ev = oracle.evaluate(session.runner(backend), kernel, size=1000, samples=0)
    assert ev.passed and "wg=8x8" in ev.report(), ev.report()
    # a kernel whose workgroup size is no literal keeps the default
    text = _OVERRIDE.replace("@workgroup_size(8, 8)", "@workgroup_size({{wg_x}})")
    templated = dataclasses.replace(kernel, sources={"wgsl": text}, schedules=())
    assert templated.schedules == (Schedule(),)


def test_size_zero_passes_and_says_that_nothing_was_judged(session):
    ev = oracle.evaluate(
        session.runner("reference"), forge.get_kernel("raw_affine"), size=0, samples=0
    )
    assert ev.passed and "nothing was judged" in ev.report(), ev.report()


def test_a_cross_check_names_a_broken_reference_as_such_not_as_diverging():
    kernel = _minmax(lambda a, b: {"hi": np.maximum(a, b)})
    result = oracle.cross_check(kernel, ["reference"], size=100)
    assert result.verdict() == "the reference itself failed: reference", result.report()


_REVERSED = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = arrayLength(&y);
    if (gid.x < n) { y[n - 1u - gid.x] = x[gid.x] * 2.0; }
}
"""


def _reversed(unordered: bool, text: str = _REVERSED) -> KernelSpec:
    return KernelSpec(
        id="any_order",
        entry_point="main",
        sources={"wgsl": text},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y", unordered=unordered),
        ),
        reference=lambda x: 2 * x,
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
    )


@pytest.mark.parametrize("backend", ["wgpu", "browser"])
def test_an_output_declared_unordered_is_judged_as_a_multiset(request, backend, session):
    """An atomic-append compaction writes its values in whatever order invocations reach
    the atomic (round 5 of kernels from the wild: a right one failed at random)."""
    require_available(request.config, backend)
    assert oracle.evaluate(session.runner(backend), _reversed(False), size=1000, samples=0).failing
    ev = oracle.evaluate(session.runner(backend), _reversed(True), size=1000, samples=0)
    assert ev.passed and "compared sorted" in ev.report(), ev.report()
    wrong = _reversed(True, _REVERSED.replace("* 2.0", "* 2.0 + 0.001"))
    assert (
        oracle.evaluate(session.runner(backend), wrong, size=1000, samples=0).verdict
        is Verdict.MISMATCH
    )


def test_unordered_is_for_outputs_of_scalars():
    with pytest.raises(InvalidArgument, match="unordered is for an output of scalars"):
        BufferSpec(0, "f32", "read", unordered=True)
    with pytest.raises(InvalidArgument, match="unordered is for an output of scalars"):
        BufferSpec(0, "vec4<f32>", "read_write", unordered=True)


_APPEND = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> count: atomic<u32>;
@group(0) @binding(2) var<storage, read_write> kept: array<KEPT>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = arrayLength(&x);
    if (gid.x >= n) { return; }
    let i = n - 1u - gid.x;  // the last elements reach the atomic first
    if (x[i] KEEP) {
        let slot = atomicAdd(&count, 1u);
        kept[slot] = VALUE;
    }
}
"""


def _append(kept: str, keep: str, value: str, initial, reference, fill) -> KernelSpec:
    """A stream compaction through an atomic counter, as culling passes write them:
    ``kept`` is declared unordered with ``initial`` content, its reference appends."""
    text = _APPEND.replace("KEPT", kept).replace("KEEP", keep).replace("VALUE", value)

    def appended(x, count, out):
        values = reference(x)
        count[0] = len(values)
        out[: len(values)] = values

    return KernelSpec(
        id=f"append_{kept}",
        entry_point="main",
        sources={"wgsl": text},
        buffers=(
            BufferSpec(0, "f32", "read", name="x", fill=fill),
            BufferSpec(1, "u32", "read_write", name="count", count=1, initial=0),
            BufferSpec(2, kept, "read_write", name="kept", initial=initial, unordered=True),
        ),
        reference=appended,
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
    )


def test_an_append_one_slot_past_the_counter_fails_where_the_reference_fills_a_prefix(
    request, session
):
    """The classic off-by-one of an atomic append, ``atomicAdd(...) + 1``, leaves slot 0
    at its sentinel and writes one past the count: the same multiset over the whole
    buffer, so it passed unless the buffer was full. Where the reference fills a prefix
    and leaves a sentinel after it that is none of its values, each part is compared on
    its own, in any order."""
    require_available(request.config, "wgpu")
    for kept, initial in (("u32", 0xFFFFFFFF), ("i32", -1)):
        right = _append(
            kept, "> 0.5", f"{kept}(i)", initial, lambda x: np.flatnonzero(x > 0.5), (0.0, 1.0)
        )
        text = right.sources["wgsl"]
        one_past = text.replace("atomicAdd(&count, 1u);", "atomicAdd(&count, 1u) + 1u;")
        past = dataclasses.replace(right, id=f"append_{kept}_one_past", sources={"wgsl": one_past})
        for seed in (0, 1, 2):
            ev = oracle.evaluate(session.runner("wgpu"), right, size=1000, seed=seed, samples=0)
            assert ev.passed and "its reference appends" in ev.report(), ev.report()
            wrong = oracle.evaluate(session.runner("wgpu"), past, size=1000, seed=seed, samples=0)
            assert wrong.verdict is Verdict.MISMATCH, wrong.report()
            assert "kept: MISMATCH" in wrong.report(), wrong.report()


def test_an_append_whose_last_value_is_its_zero_initial_is_compared_whole(request, session):
    """A float zero is as likely a value as the sentinel it is declared as: where the
    reference's last appended value is 0.0 the prefix it fills cannot be told from the
    rest, so the buffer is compared as one multiset and a right kernel that appends in
    another order passes."""
    require_available(request.config, "wgpu")

    def fill(rng, count, size):  # values >= 0 are kept; the last of them is 0.0
        x = rng.uniform(-1.0, 1.0, count).astype(np.float32)
        x[-1] = 0.0
        return x

    right = _append("f32", ">= 0.0", "x[i]", 0.0, lambda x: x[x >= 0.0], fill)
    ev = oracle.evaluate(session.runner("wgpu"), right, size=1000, samples=0)
    assert ev.passed, ev.report()
    assert "compared sorted" in ev.report() and "its reference appends" not in ev.report()

"""``WgpuComputeContext(shader_checks=...)``: shader modules made without naga's
runtime checks (index clamps, loop-bounding counters) compute what checked ones do,
refuse bad WGSL with the same typed error, and are refused as an option when not
``"auto"``, a bool or the name of one check (``"bounds"`` or ``"loops"``: that check
only). The default, ``"auto"``, keeps every check in modules of hand-written WGSL and
only the index clamps in those of the WGSL forge emits; the clamps show: an index past
a workgroup array's end reads its last element, where lavapipe without them reads the
next array.

Runs in CI on lavapipe; skips where wgpu has no adapter (fails under
``--require-backend wgpu``)."""

from __future__ import annotations

import numpy as np
import pytest

import forge
from bench._workload import bind_views, output_index
from forge import BindingUsage, BufferSpec, KernelSpec, Schedule
from forge.errors import CompileError, InvalidArgument
from oracle.pytest_plugin import require_available

# one worker for the file: its five contexts are opened once, and the row kernels'
# modules, compiled under each check for the first row length, are reused for the others
# (with the tests spread over two workers both compiled them: layernorm's 31 s twice on
# a CI-like machine, 2026-12-07)
pytestmark = pytest.mark.xdist_group("wgpu_shader_checks")


@pytest.fixture(scope="module")
def contexts(request):
    require_available(request.config, "wgpu")
    opened = {
        checks: forge.open_context("wgpu", capacity_bytes=32 << 20, shader_checks=checks)
        for checks in ("auto", True, False, "bounds", "loops")
    }
    yield opened
    for ctx in opened.values():
        ctx.close()


def _output(ctx, kernel, schedule, size: int, data: dict, **params) -> np.ndarray:
    ctx.clear_transient_allocations()
    views = bind_views(ctx, kernel, size, data, **params)
    out = views[output_index(kernel)]
    ctx.write_view(out, np.full(out.length_bytes // 4, np.nan, np.float32))
    ctx.run_kernel(kernel, schedule, views, size)
    return ctx.read_buffer_f32(out)


def test_the_option_is_reported_and_auto_by_default(contexts):
    assert {key: ctx.shader_checks for key, ctx in contexts.items()} == {
        "auto": "auto",
        True: True,
        False: False,
        "bounds": "bounds",
        "loops": "loops",
    }
    with forge.open_context("wgpu") as ctx:
        assert ctx.shader_checks == "auto"
    said = {key: ctx.adapter.driver_info for key, ctx in contexts.items()}
    assert "naga" not in said[True]
    assert said["auto"].endswith(
        "forge-emitted shader modules with naga's index clamps but no loop counters"
    )
    assert said[False].endswith("shader modules without naga's runtime checks")
    assert said["bounds"].endswith("with naga's index clamps but no loop counters")
    assert said["loops"].endswith("with naga's loop counters but no index clamps")


@pytest.mark.parametrize("value", ["no", 0, None, "Bounds", "Auto", ("bounds", "loops")])
def test_shader_checks_must_be_a_bool_or_a_check(request, value):
    require_available(request.config, "wgpu")
    with pytest.raises(InvalidArgument, match="must be 'auto', True, False, 'bounds' or 'loops'"):
        forge.open_context("wgpu", shader_checks=value)


def _schedules(kernel, constraints) -> list[Schedule]:
    runnable = []
    for schedule in kernel.schedules:
        try:
            forge.emit.check(kernel, schedule, "wgsl", constraints)
        except forge.UnsupportedFeature:
            continue
        runnable.append(schedule)
    return runnable


#: The options compared with every check on emitted kernels: "bounds" is what "auto"
#: makes of a module forge emitted (the driver_info test above), so it is left out of
#: these compiles (a fifth of this file's time on lavapipe)
_COMPARED = ("auto", False, "loops")


def test_gemm_gives_the_same_bits_with_and_without_the_checks(contexts):
    kernel = forge.get_kernel("gemm")
    size = 96  # not a multiple of the tiles: the edge tiles' guards run too
    rng = np.random.default_rng(5)
    data = {n: rng.uniform(-1, 1, size * size).astype(np.float32) for n in ("a", "b", "c")}
    want = data["a"].reshape(size, size).astype(np.float64) @ data["b"].reshape(size, size)
    schedules = _schedules(kernel, contexts[False].constraints)
    assert len(schedules) >= 2
    for schedule in schedules:
        got = {
            checks: _output(contexts[checks], kernel, schedule, size, data, alpha=1.0, beta=0.0)
            for checks in (True, *_COMPARED)
        }
        for checks in _COMPARED:
            np.testing.assert_array_equal(got[checks], got[True], err_msg=f"{schedule} {checks}")
        assert np.abs(got[False] - want.reshape(-1)).max() < 1e-4 * np.abs(want).max()


@pytest.mark.parametrize("name", ["softmax", "layernorm"])
@pytest.mark.parametrize("cols", [100, 4096, 9000])
def test_row_kernels_give_the_same_bits_with_and_without_the_checks(contexts, name, cols):
    kernel = forge.get_kernel(name)
    rows = 3
    rng = np.random.default_rng(cols)
    x = rng.uniform(-4, 4, rows * cols).astype(np.float32)
    data = {
        s.name: x if s.name == "x" else rng.uniform(0.5, 2, cols).astype(np.float32)
        for s in kernel.inputs
    }
    sized = forge.ir.with_shape(kernel, rows=rows)
    for schedule in _schedules(sized, contexts[False].constraints):
        got = {
            checks: _output(contexts[checks], sized, schedule, cols, data)
            for checks in (True, *_COMPARED)
        }
        assert np.isfinite(got[True][: rows * cols]).all(), str(schedule)
        for checks in _COMPARED:
            np.testing.assert_array_equal(got[checks], got[True], err_msg=f"{schedule} {checks}")


_LOCAL = """
@group(0) @binding(0) var<storage, read> i: array<u32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= arrayLength(&y)) { return; }
    var table = array<f32, 4>(1.0, 2.0, 3.0, 4.0);
    var total = 0.0;
    for (var k = 0u; k <= i[gid.x] % 4u; k++) { total += table[k]; }
    y[gid.x] = total + table[i[gid.x]];
}
"""


def _local(source: str = _LOCAL, id: str = "local_table") -> KernelSpec:
    return KernelSpec(
        id=id,
        entry_point="main",
        sources={"wgsl": source},
        buffers=(BufferSpec(0, "u32", "read", name="i"), BufferSpec(1, "f32", "read_write")),
        grid=lambda s, n: (-(-n // 64), 1, 1),
    )


def _run_local(ctx, index: np.ndarray, kernel: KernelSpec | None = None) -> np.ndarray:
    ctx.clear_transient_allocations()
    kernel = kernel or _local()
    views = [
        ctx.allocate_and_write(index, 0),
        ctx.allocate_transient(index.size * 4, 1, 0, BindingUsage.STORAGE_READ_WRITE),
    ]
    ctx.run_kernel(kernel, kernel.schedules[0], views, index.size)
    return ctx.read_buffer_f32(views[1])


def test_a_local_array_and_a_loop_compute_the_same_in_range(contexts):
    index = np.arange(200, dtype=np.uint32) % 4
    want = np.cumsum([1.0, 2.0, 3.0, 4.0])[index] + index + 1
    for ctx in contexts.values():
        np.testing.assert_array_equal(_run_local(ctx, index), want.astype(np.float32))


def test_with_the_checks_an_index_past_a_local_array_reads_its_last_element(contexts):
    # the difference the option makes: naga clamps this index, the unchecked module
    # leaves it undefined (so only the contexts with the clamps are asserted on)
    index = np.full(64, 7, np.uint32)
    for checks in (True, "bounds", "auto"):
        got = _run_local(contexts[checks], index)
        want = np.full(64, 1.0 + 2.0 + 3.0 + 4.0 + 4.0, np.float32)
        np.testing.assert_array_equal(got, want, err_msg=str(checks))


_WORKGROUP = """
@group(0) @binding(0) var<storage, read_write> y: array<f32>;
var<workgroup> a: array<f32, 64>;
var<workgroup> b: array<f32, 64>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
    a[i] = 1.0;
    b[i] = 7.0;
    workgroupBarrier();
    y[i] = a[u32(y[i])];
}
"""


def test_with_the_clamps_an_index_past_a_workgroup_array_reads_its_last_element(contexts):
    # naga clamps a[69] to a[63] (1.0); without the clamps lavapipe reads on into b
    # (7.0), a driver may do anything: only the contexts that keep the clamps (for a
    # hand-written kernel under "auto" too) are asserted on
    kernel = KernelSpec(
        id="workgroup_past_end",
        entry_point="main",
        sources={"wgsl": _WORKGROUP},
        buffers=(BufferSpec(0, "f32", "read_write"),),
        grid=(1, 1, 1),
        schedules=(Schedule((64, 1, 1)),),
    )
    index = np.full(64, 69.0, np.float32)
    index[1] = 3.0  # in range: a[3]
    for checks in (True, "bounds", "auto"):
        ctx = contexts[checks]
        ctx.clear_transient_allocations()
        view = ctx.allocate_and_write(index, 0, usage=BindingUsage.STORAGE_READ_WRITE)
        ctx.run_kernel(kernel, kernel.schedules[0], [view], 64)
        np.testing.assert_array_equal(ctx.read_buffer_f32(view), np.ones(64), str(checks))


def test_auto_leaves_the_loop_counters_out_of_emitted_wgsl_only(contexts, monkeypatch):
    from backends.wgpu import _native

    made: list[tuple[str, object]] = []
    trusted = _native.create_unchecked_shader_module

    def spy(device, label, code, keep=None):
        made.append((label, keep))
        return trusted(device, label, code, keep)

    monkeypatch.setattr(_native, "create_unchecked_shader_module", spy)
    ctx = contexts["auto"]
    emitted = forge.get_kernel("softmax")
    sized = forge.ir.with_shape(emitted, rows=2)
    x = np.linspace(-1, 1, 2 * 40, dtype=np.float32)
    got = _output(ctx, sized, _schedules(sized, ctx.constraints)[0], 40, {"x": x})
    want = np.exp(x.reshape(2, 40)) / np.exp(x.reshape(2, 40)).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(got[:80], want.reshape(-1), rtol=1e-5)
    assert made == [(sized.id, "bounds")]
    made.clear()
    _run_local(ctx, np.arange(8, dtype=np.uint32) % 4, _local(id="local_table_auto"))
    assert made == []  # hand-written: every check, through create_shader_module


def test_bad_wgsl_is_a_compile_error_and_the_context_stays_usable(contexts):
    broken = _local(
        _LOCAL.replace("total += table[k];", "total += table[k] + undeclared;"), "broken_table"
    )
    for ctx in contexts.values():
        with pytest.raises(CompileError, match="undeclared") as raised:
            _run_local(ctx, np.zeros(8, np.uint32), broken)
        assert raised.value.target == "wgsl"
        np.testing.assert_array_equal(_run_local(ctx, np.zeros(8, np.uint32)), np.full(8, 2.0))


def test_kforge_no_shader_checks_opens_wgpu_without_them_and_says_so(request, capsys):
    require_available(request.config, "wgpu")
    import json

    import kforge

    argv = ["check", "softmax", "gemm", "--backend", "reference", "--backend", "wgpu"]
    code = kforge.main([*argv, "--no-isolate", "--samples", "1", "--no-shader-checks", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0, data
    for result in data["results"]:
        info = result["evaluations"]["wgpu"]["adapter"]["driver_info"]
        assert info.endswith("shader modules without naga's runtime checks")
        assert result["evaluations"]["wgpu"]["verdict"] == "pass"
        assert "naga" not in str(result["evaluations"]["reference"].get("adapter", ""))
    kforge.main([*argv, "--no-isolate", "--samples", "0", "--json"])
    auto = json.loads(capsys.readouterr().out)
    assert all(
        r["evaluations"]["wgpu"]["adapter"]["driver_info"].endswith(
            "forge-emitted shader modules with naga's index clamps but no loop counters"
        )
        for r in auto["results"]
    )
    kforge.main([*argv, "--no-isolate", "--samples", "0", "--all-shader-checks", "--json"])
    checked = json.loads(capsys.readouterr().out)
    assert checked["results"]
    assert all(
        "naga" not in r["evaluations"]["wgpu"]["adapter"]["driver_info"] for r in checked["results"]
    )


def test_kforge_shader_checks_only_keeps_the_one_check_and_says_so(request, capsys):
    require_available(request.config, "wgpu")
    import json

    import kforge

    argv = ["check", "softmax", "--backend", "wgpu", "--no-isolate", "--samples", "0", "--json"]
    for kept, said in (
        ("bounds", "with naga's index clamps but no loop counters"),
        ("loops", "with naga's loop counters but no index clamps"),
    ):
        code = kforge.main([*argv, "--shader-checks-only", kept])
        data = json.loads(capsys.readouterr().out)
        assert code == 0, data
        assert data["results"]
        for result in data["results"]:
            assert result["evaluations"]["wgpu"]["adapter"]["driver_info"].endswith(said)
            assert result["evaluations"]["wgpu"]["verdict"] == "pass"
    for other in (["--no-shader-checks"], ["--all-shader-checks"]):
        with pytest.raises(SystemExit):  # one or the other
            kforge.main([*argv, *other, "--shader-checks-only", "loops"])
        assert "not allowed with argument" in capsys.readouterr().err

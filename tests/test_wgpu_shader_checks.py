"""``WgpuComputeContext(shader_checks=False)``: shader modules made without naga's
runtime checks (index clamps, loop-bounding counters) compute what checked ones do,
refuse bad WGSL with the same typed error, and are refused as an option when not a
bool or the name of one check (``"bounds"`` or ``"loops"``: that check only). The
default keeps the checks: an index past a local array's end reads its last element
(naga's clamp), which is what the unchecked module no longer promises, and what
``"bounds"`` keeps.

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


@pytest.fixture(scope="module")
def contexts(request):
    require_available(request.config, "wgpu")
    opened = {
        checks: forge.open_context("wgpu", capacity_bytes=32 << 20, shader_checks=checks)
        for checks in (True, False, "bounds", "loops")
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


def test_the_option_is_reported_and_on_by_default(contexts):
    assert {key: ctx.shader_checks for key, ctx in contexts.items()} == {
        True: True,
        False: False,
        "bounds": "bounds",
        "loops": "loops",
    }
    with forge.open_context("wgpu") as ctx:
        assert ctx.shader_checks is True
    said = {key: ctx.adapter.driver_info for key, ctx in contexts.items()}
    assert "naga" not in said[True]
    assert said[False].endswith("shader modules without naga's runtime checks")
    assert said["bounds"].endswith("with naga's index clamps but no loop counters")
    assert said["loops"].endswith("with naga's loop counters but no index clamps")


@pytest.mark.parametrize("value", ["no", 0, None, "Bounds", ("bounds", "loops")])
def test_shader_checks_must_be_a_bool_or_a_check(request, value):
    require_available(request.config, "wgpu")
    with pytest.raises(InvalidArgument, match="must be True, False, 'bounds' or 'loops'"):
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
            checks: _output(ctx, kernel, schedule, size, data, alpha=1.0, beta=0.0)
            for checks, ctx in contexts.items()
        }
        for checks in (False, "bounds", "loops"):
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
            checks: _output(ctx, sized, schedule, cols, data) for checks, ctx in contexts.items()
        }
        assert np.isfinite(got[True][: rows * cols]).all(), str(schedule)
        for checks in (False, "bounds", "loops"):
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
    for checks in (True, "bounds"):
        got = _run_local(contexts[checks], index)
        want = np.full(64, 1.0 + 2.0 + 3.0 + 4.0 + 4.0, np.float32)
        np.testing.assert_array_equal(got, want, err_msg=str(checks))


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
    checked = json.loads(capsys.readouterr().out)
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
    with pytest.raises(SystemExit):  # one or the other
        kforge.main([*argv, "--no-shader-checks", "--shader-checks-only", "loops"])
    assert "not allowed with argument" in capsys.readouterr().err

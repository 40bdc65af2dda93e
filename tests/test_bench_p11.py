"""P11's wgpu rows (bench/_wgpu_rows.py) on the adapter here (lavapipe in CI), and the
checks every P11 row rests on: a wrong candidate cannot win, the f16 rows say when the
adapter lacks shader-f16, and no wgpu is a row per kernel saying why. Plumbing only, as
tests/test_bench_sections.py: no figure is asserted on; the real run is ``python -m
bench --only P11`` on the GPU machine (the CUDA rows are in
test_bench_sections.py's P9/P11 test, on the simulated driver)."""

from __future__ import annotations

import dataclasses
import io
import math
import re
import sys
from types import SimpleNamespace

import ml_dtypes
import numpy as np
import pytest

import forge
from bench import _peers, _wgpu_rows
from bench._cli import main as bench_main
from bench._env import Bench
from bench._peers import checked_sweep, p11_work
from bench._report import Row
from bench._workload import bind_views
from forge import Schedule, ir
from oracle.pytest_plugin import require_available
from tests.test_bench_sections import TINY


def _limits(most: int, subgroups: bool = False):
    return SimpleNamespace(
        max_invocations_per_workgroup=most,
        max_workgroup_size=(most, most, 64),
        subgroups=subgroups,
    )


def test_the_wgsl_row_schedules_hold_a_whole_row_within_the_adapter_s_workgroups():
    kernel = forge.get_kernel("softmax_f16")
    added = _wgpu_rows.wgsl_rows_schedules(kernel, 32768, _limits(1024))[len(kernel.schedules) :]
    assert [(s.workgroup_size[0], s.items_per_invocation, s.vector_width) for s in added] == [
        (1024, 8, 4),
        (512, 16, 4),
        (256, 32, 4),
        (1024, 4, 4),  # two sweeps of the row
    ]
    small = _wgpu_rows.wgsl_rows_schedules(kernel, 32768, _limits(256))
    assert {s.workgroup_size[0] for s in small} <= {32, 64, 256}
    assert Schedule((256, 1), items_per_invocation=32, vector_width=4) in small


def test_where_the_adapter_offers_subgroups_each_one_row_schedule_also_runs_with_sg():
    kernel = forge.get_kernel("softmax")
    plain = _wgpu_rows.wgsl_rows_schedules(kernel, 32768, _limits(1024))
    both = _wgpu_rows.wgsl_rows_schedules(kernel, 32768, _limits(1024, subgroups=True))
    assert not any(s.subgroups for s in plain)
    assert both[: len(plain)] == plain
    one_row = [s for s in plain if s.workgroup_size[1] == 1]
    assert both[len(plain) :] == [s.with_(subgroups=True) for s in one_row]
    assert Schedule((32, 4), items_per_invocation=2) in plain  # two rows a workgroup: no sg twin


def test_a_candidate_with_a_wrong_output_cannot_win():
    """On the reference backend: layernorm's rows measured with a kernel that copies x
    instead (same buffers): every candidate is marked wrong, and none is the winner."""
    work = p11_work("layernorm", "f32", 8, 256)
    cols = ir.input("gamma", layout="cols") + ir.input("beta", layout="cols")
    wrong = ir.kernel(
        "layernorm",
        ir.rows(y=ir.input("x") + 0.0 * cols + 0.0 * ir.param("eps")),
        defaults={"eps": 1e-5},
        shape={"rows": 8, "cols": ir.SIZE},
    )
    work = dataclasses.replace(work, kernel=wrong)
    env = Bench(TINY, log=io.StringIO())
    with forge.open_context("reference") as ctx:
        views = bind_views(ctx, wrong, work.size, work.data)
        with pytest.raises(LookupError, match="wrong output"):
            checked_sweep(env, ctx, work, views, wrong.schedules[:2], None)


def test_f16_rows_say_so_where_the_adapter_lacks_shader_f16():
    ctx = SimpleNamespace(
        constraints=SimpleNamespace(shader_f16=False), adapter=SimpleNamespace(name="SomeGPU")
    )
    (row,) = _wgpu_rows._rows(Bench(TINY, log=io.StringIO()), ctx, "layernorm_f16", "f16", None)
    assert row.target == "P11" and row.verdict == "error" and row.ours is None
    assert row.error == "unsupported, because the adapter (SomeGPU) lacks shader-f16"


def test_without_wgpu_each_row_says_why(monkeypatch):
    def unavailable(*args, **kwargs):
        raise forge.GpuUnavailable("no Vulkan driver here")

    monkeypatch.setattr(_wgpu_rows, "open_wgpu", unavailable)
    rows = _wgpu_rows.p11_wgpu(Bench(TINY, log=io.StringIO()))
    assert len(rows) == len(_wgpu_rows.WGPU_P11)
    assert all("no Vulkan driver here" in r.error and r.ours is None for r in rows)


def test_kernels_named_on_the_command_line_are_the_only_rows(monkeypatch):
    """``--kernels softmax,gelu_f16`` (a short device call measures the rows it needs):
    the other kernels give no row, on CUDA or wgpu; a name P11 does not have is refused."""
    monkeypatch.setattr(
        _wgpu_rows, "open_wgpu", lambda *a, **k: (_ for _ in ()).throw(OSError("x"))
    )
    env = Bench(TINY, log=io.StringIO(), kernels=frozenset({"softmax", "gelu_f16"}))
    assert [r.what for r in _wgpu_rows.p11_wgpu(env)] == ["softmax f32, wgpu", "gelu_f16 f16, wgpu"]
    assert env.chosen(_peers.P11_KERNELS) == [("softmax", "f32")]
    with pytest.raises(SystemExit):
        bench_main(["--only", "P11", "--kernels", "softmax,nope"])


def test_each_row_is_logged_as_soon_as_it_is_measured(monkeypatch):
    """A run cut short by a time limit prints no table: its log still has the rows."""
    measured = []

    def rows_of(env, ctx, name, dtype, multiprocessors):
        measured.append(name)
        assert sum("row: " in line for line in log.getvalue().splitlines()) == len(measured) - 1
        return [Row("P11", f"{name} {dtype}, wgpu", "best of torch / Triton", error="cut")]

    class Opened:
        adapter = type("A", (), {"as_dict": dict})()

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    monkeypatch.setattr(_wgpu_rows, "open_wgpu", lambda *a, **k: Opened())
    monkeypatch.setattr(_wgpu_rows, "_rows", rows_of)
    monkeypatch.setattr(_wgpu_rows, "_multiprocessors", lambda env: None)
    log = io.StringIO()
    rows = _wgpu_rows.p11_wgpu(Bench(TINY, log=log))
    lines = [line for line in log.getvalue().splitlines() if "row: " in line]
    assert len(rows) == len(lines) == len(_wgpu_rows.WGPU_P11)
    assert all(
        f"{name} {dtype}, wgpu" in line for (name, dtype), line in zip(_wgpu_rows.WGPU_P11, lines)
    )


def test_p11_runs_on_wgpu_here_against_its_copy_and_says_torch_is_missing(request, monkeypatch):
    """A row kernel in f16 and gelu in f32 (the map path), each of their sweeps cut to
    two candidates (pipelines compile slowly on lavapipe); torch and Triton missing."""
    require_available(request.config, "wgpu")
    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.setitem(sys.modules, "triton", None)
    monkeypatch.setattr(_wgpu_rows, "WGPU_P11", (("rmsnorm_f16", "f16"), ("gelu", "f32")))
    every = _wgpu_rows.wgsl_rows_schedules
    monkeypatch.setattr(
        _wgpu_rows, "wgsl_rows_schedules", lambda k, c, limits: every(k, c, limits)[3:5]
    )
    monkeypatch.setattr(_wgpu_rows, "map_schedules", lambda k, sms: list(k.schedules[-2:]))
    env = Bench(TINY, log=io.StringIO())
    try:
        rows = _wgpu_rows.p11_wgpu(env)
    finally:
        env.close()
    assert [r.what for r in rows] == [
        "rmsnorm_f16 8x2048 f16, wgpu",
        "rmsnorm_f16 8x2048 f16, wgpu, against the device copy",
        "gelu 8x2048 f32, wgpu",
        "gelu 8x2048 f32, wgpu, against the device copy",
    ]
    peers, copies = rows[::2], rows[1::2]
    for row in peers:
        assert row.error.startswith("no baseline: torch") and row.ours > 0
        assert row.goal.bound == 0.97 and row.baseline_value is None
    assert [r.goal.bound for r in copies] == [0.88, 0.9]
    for row in copies:
        assert not row.error and row.baseline_value > 0 and row.ours > 0
        assert "copy shader" in row.notes and "both checked" in row.notes
        assert "0 with a wrong output" in row.notes and "first 4 and last rows" in row.notes
    swept = peers[0].raw["candidates"]
    assert [t["schedule"] for t in swept] == ["wg=256,ipt=8,vec=4", "wg=1024,ipt=1,vec=4"]
    assert all(t["max_rel_err"] < 4e-3 for t in swept)
    assert peers[0].raw["work"]["kernel"] == "rmsnorm_f16"


# -- the peers' path, with numpy stand-ins for torch and the Triton kernels ------------------
class _Tensor:
    """The few torch.Tensor methods P11 calls, over a numpy array."""

    def __init__(self, array):
        self.a = np.asarray(array)

    def cuda(self):
        return self

    cpu = cuda

    def to(self, kind):
        return _Tensor(self.a.astype(kind))

    def reshape(self, *shape):
        return _Tensor(self.a.reshape(*shape))

    def float(self):
        return _Tensor(self.a.astype(np.float32))

    def numpy(self):
        return self.a

    @property
    def shape(self):
        return self.a.shape


def _meaning(op, x, weights, eps):
    """What torch and the Triton kernels compute, in float64, rounded to x's dtype."""
    a = x.a.astype(np.float64)
    w = {k: v.a.astype(np.float64) for k, v in weights.items()}
    if op == "softmax":
        e = np.exp(a - a.max(-1, keepdims=True))
        y = e / e.sum(-1, keepdims=True)
    elif op == "rmsnorm":
        y = a / np.sqrt((a * a).mean(-1, keepdims=True) + eps) * w["w"]
    elif op == "layernorm":
        c = a - a.mean(-1, keepdims=True)
        y = c / np.sqrt((c * c).mean(-1, keepdims=True) + eps) * w["gamma"] + w["beta"]
    else:
        y = 0.5 * a * (1 + np.vectorize(math.erf)(a / math.sqrt(2)))
    return y.astype(x.a.dtype)


class _Event:
    def record(self):
        pass

    def synchronize(self):
        pass

    def elapsed_time(self, other):
        return 1.0  # ms: a stand-in, never a figure


def _fake_torch():
    F = SimpleNamespace(
        rms_norm=lambda x, shape, w, eps: _Tensor(_meaning("rmsnorm", x, {"w": w}, eps)),
        layer_norm=lambda x, shape, g, b, eps: _Tensor(
            _meaning("layernorm", x, {"gamma": g, "beta": b}, eps)
        ),
        gelu=lambda x: _Tensor(_meaning("gelu", x, {}, 0.0)),
    )
    return SimpleNamespace(
        __version__="fake",
        float32=np.float32,
        float16=np.float16,
        bfloat16=ml_dtypes.bfloat16,
        from_numpy=_Tensor,
        empty_like=lambda t: _Tensor(np.empty_like(t.a)),
        softmax=lambda x, dim: _Tensor(_meaning("softmax", x, {}, 0.0)),
        nn=SimpleNamespace(functional=F),
        cuda=SimpleNamespace(is_available=lambda: True, Event=lambda enable_timing: _Event()),
    )


def _fake_triton_run(op, x, y, weights, eps):
    y.a[...] = _meaning(op, x, weights, eps)


def test_the_peer_rows_name_the_better_of_torch_and_triton_with_their_outputs_checked(
    request, monkeypatch
):
    require_available(request.config, "wgpu")
    monkeypatch.setitem(sys.modules, "torch", _fake_torch())
    monkeypatch.setitem(sys.modules, "bench._triton_kernels", SimpleNamespace(run=_fake_triton_run))
    monkeypatch.setattr(_wgpu_rows, "WGPU_P11", (("layernorm_f16", "f16"),))
    every = _wgpu_rows.wgsl_rows_schedules
    monkeypatch.setattr(
        _wgpu_rows, "wgsl_rows_schedules", lambda k, c, limits: every(k, c, limits)[3:4]
    )
    monkeypatch.setattr(_wgpu_rows, "map_schedules", lambda k, sms: list(k.schedules[-1:]))
    env = Bench(TINY, log=io.StringIO())
    try:
        peer, copy = _wgpu_rows.p11_wgpu(env)
    finally:
        env.close()
    assert not peer.error and peer.baseline == "best of torch / Triton (torch)"
    assert peer.baseline_value > 0 and peer.ours > 0 and peer.met is not None
    assert "against torch" in peer.notes and "torch fake" in peer.notes
    assert not copy.error and copy.goal.bound == 0.88
    assert set(peer.raw["rounds"]) == {"copy_shader", "copy_buffer", "torch", "triton", "ours"}


def test_emit_sets_a_rows_switch_for_one_run_and_names_what_it_takes(monkeypatch, capsys):
    """``python -m bench --emit NAME=VALUE`` times the emission a switch of
    ``forge.emit._rows`` gives (the packed half rows against the unpacked ones, in two
    runs), records it in the run's command, and puts the switch back; a name that is
    not a switch, or a value of another type, is a usage error naming the switches."""
    from bench import _cli
    from forge.emit import _rows

    assert _cli.emit_settings(["CUDA_PACKED_HALF_ROWS=False", "CUDA_PACKED_ROW_BLOCKS=2"]) == {
        "CUDA_PACKED_HALF_ROWS": False,
        "CUDA_PACKED_ROW_BLOCKS": 2,
    }
    for wrong, says in (
        ("CUDA_PACKED_HALF_ROWS=2", "holds a bool"),
        ("CUDA_PACKED_HALF_ROWS=yes", "holds a bool"),
        ("PATTERN='rows'", "one of ['CUDA_PACKED_HALF_ROWS'"),
        ("CUDA_PACKED_HALF_ROWS", "give NAME=VALUE"),
    ):
        with pytest.raises(ValueError, match=re.escape(says)):
            _cli.emit_settings([wrong])
    schedule = Schedule((64, 1), items_per_invocation=2, vector_width=4)
    kernel = forge.get_kernel("layernorm_bf16")
    kept = kernel.source("cuda", schedule)  # cached by the emitter before the run
    seen = []

    def section(env):
        seen.append(kernel.source("cuda", schedule))
        return []

    monkeypatch.setattr(_cli, "_sections", lambda: {"P11": section})
    assert bench_main(["--only", "P11", "--emit", "CUDA_PACKED_HALF_ROWS=False"]) == 0
    assert "__nv_bfloat16 fg_v_x[" in seen[0] and "unsigned int fg_v_x[" in kept
    assert _rows.CUDA_PACKED_HALF_ROWS is True and kernel.source("cuda", schedule) == kept
    with pytest.raises(SystemExit):
        bench_main(["--only", "P11", "--emit", "NOPE=1"])
    assert "NOPE=1" in capsys.readouterr().err

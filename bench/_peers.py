"""P9 and P11: kernel-forge against the libraries users would pick instead, in the same
run on the same device, every measured output checked.

- P9: the tensor-core GEMMs (``gemm_f16``, ``gemm_bf16`` under their ``mma=1``
  schedules: f16/bf16 inputs, f32 accumulation; WMMA, and mma.sync with a cp.async
  pipeline for the four-number tiles) against ``torch.matmul`` in the same input
  precision (cuBLAS, reduced-precision reductions off). The row names the path of the
  winning schedule.
- P11: softmax, rmsnorm, layernorm and gelu at rows x cols (f32; softmax and rmsnorm
  also in bf16) against the better of torch and a Triton kernel written the way
  Triton's tutorials write it (one program per row holding the whole row, or a 1-D
  block for gelu), with the device copy of the same bytes for scale.
"""

from __future__ import annotations

import functools

import numpy as np

import forge
from forge import ir

from ._env import Bench
from ._report import (
    Goal,
    Row,
    bandwidth_gbps,
    gemm_flops,
    guarded,
    roofline_work,
    rows_bytes,
    tflops,
)
from ._timing import CudaTimer, alternate, median, torch_seconds
from ._workload import (
    bind_views,
    device_seconds,
    gemm_error,
    host_array,
    output_index,
    rows_schedules,
    sweep_best,
    sweep_note,
)

__all__ = ["p9", "p11"]

_GEMM_TOLERANCE = 1e-3  # relative, f32 accumulation of exactly representable products


def _read(ctx, view, dtype: np.dtype, count: int) -> np.ndarray:
    """``count`` elements of ``dtype`` from ``view`` (any element size)."""
    words = np.zeros(-(-view.length_bytes // 4), np.uint32)
    ctx.read_buffer_u32_into(view, words)
    return words.view(np.uint8)[: count * dtype.itemsize].view(dtype)


def _final(env: Bench, baseline, ours) -> tuple[float, float, dict]:
    values = alternate({"baseline": baseline, "ours": ours}, env.sizes.rounds)
    return median(values["baseline"]), median(values["ours"]), values


# -- P9 ---------------------------------------------------------------------------------
def p9(env: Bench) -> list[Row]:
    return [
        row
        for dtype in ("f16", "bf16")
        for row in guarded(
            "P9", f"gemm_{dtype} on CUDA tensor cores", functools.partial(_p9, env, dtype)
        )
    ]


def _p9(env: Bench, dtype: str) -> Row:
    ctx = env.cuda()
    s = env.sizes
    size = s.gemm
    kernel = forge.get_kernel(f"gemm_{dtype}")
    low = kernel.buffer("a").dtype
    a32, b32 = host_array(size * size, seed=30), host_array(size * size, seed=31)
    a, b = a32.astype(low), b32.astype(low)
    env.progress(f"P9 gemm_{dtype} {size}^3 on tensor cores")
    views = bind_views(
        ctx,
        kernel,
        size,
        {"a": a, "b": b, "c": np.zeros(size * size, np.float32)},
        alpha=1.0,
        beta=0.0,
    )
    flops = gemm_flops(size, size, size)
    seconds = device_seconds(ctx, kernel, views, size, s)

    def ours(schedule) -> float:
        return tflops(flops, seconds(schedule))

    tensor_core = [sch for sch in kernel.schedules if sch.mma]
    tried, winner, schedule = sweep_best(
        kernel, tensor_core, ours, ctx.constraints, "cuda", env.progress
    )
    ctx.run_kernel(kernel, schedule, views, size)
    got = ctx.read_buffer_f32(views[output_index(kernel)])
    error = gemm_error(a.astype(np.float32), b.astype(np.float32), got, size)
    if error > _GEMM_TOLERANCE:
        raise AssertionError(
            f"gemm_{dtype} under {schedule} has a relative error of "
            f"{error:.1e} against float64 dot products of its inputs"
        )
    torch = env.torch()
    matmul = torch.backends.cuda.matmul
    matmul.allow_fp16_reduced_precision_reduction = False
    matmul.allow_bf16_reduced_precision_reduction = False
    kind = torch.float16 if dtype == "f16" else torch.bfloat16
    ta = torch.from_numpy(a32.reshape(size, size)).cuda().to(kind)
    tb = torch.from_numpy(b32.reshape(size, size)).cuda().to(kind)
    tc = torch.empty_like(ta)

    def theirs() -> float:
        return tflops(
            flops,
            median(
                torch_seconds(torch, lambda: torch.matmul(ta, tb, out=tc), s.warmups, s.samples)
            ),
        )

    base, mine, values = _final(env, theirs, lambda: ours(schedule))
    return Row(
        "P9",
        f"gemm {size}^3 {dtype} in, f32 accumulate, CUDA tensor cores "
        f"({'mma.sync, cp.async' if len(schedule.tile or ()) == 4 else 'WMMA'})",
        f"torch.matmul {dtype} (cuBLAS)",
        base,
        mine,
        "TFLOP/s",
        Goal(">=", 0.7),
        notes=(
            f"{sweep_note(tried, winner)}; output checked (max rel err "
            f"{error:.1e}); ours writes f32 c, cuBLAS {dtype} c; torch "
            f"{torch.__version__}"
        ),
        raw={
            "candidates": tried,
            "rounds": values,
            "flops": flops,
            "work": roofline_work(kernel, size, "cuda", flops / (mine * 1e12)),
        },
    )


# -- P11 --------------------------------------------------------------------------------
_P11 = (
    ("softmax", "f32"),
    ("rmsnorm", "f32"),
    ("layernorm", "f32"),
    ("gelu", "f32"),
    ("softmax_bf16", "bf16"),
    ("rmsnorm_bf16", "bf16"),
)


def p11(env: Bench) -> list[Row]:
    return [
        row
        for name, dtype in _P11
        for row in guarded(
            "P11", f"{name} against torch and Triton", functools.partial(_p11, env, name, dtype)
        )
    ]


def _inputs(kernel, rows: int, cols: int) -> dict[str, np.ndarray]:
    """x in [-4, 4) over rows x cols; per-column weights in [0.5, 1.5), biases small."""
    data = {}
    for i, spec in enumerate(kernel.inputs):
        count = rows * cols if spec.name == "x" else cols
        low, high = {"x": (-4.0, 4.0), "beta": (-0.1, 0.1)}.get(spec.name, (0.5, 1.5))
        data[spec.name] = host_array(count, seed=40 + i, low=low, high=high).astype(spec.dtype)
    return data


def _error_against(got: np.ndarray, want: np.ndarray, limit: float, what: str) -> float:
    """The largest error of ``got`` relative to the largest ``|want|`` (torch's output);
    an ``AssertionError`` beyond ``limit``: a figure of a wrong kernel is no figure."""
    largest = max(1e-30, float(np.max(np.abs(want))))
    error = float(np.max(np.abs(got.astype(np.float64) - want))) / largest
    if error > limit:
        raise AssertionError(
            f"{what}: max error {error:.1e} of the largest |y| against torch (limit {limit:g})"
        )
    return error


def _p11(env: Bench, name: str, dtype: str) -> Row:
    ctx = env.cuda()
    s = env.sizes
    rows, cols = s.rows, s.cols
    elementwise = name == "gelu"
    kernel = (
        forge.get_kernel(name) if elementwise else ir.with_shape(forge.get_kernel(name), rows=rows)
    )
    size = rows * cols if elementwise else cols
    data = (
        _inputs(kernel, rows, cols)
        if not elementwise
        else {"x": host_array(rows * cols, seed=40, low=-4.0, high=4.0)}
    )
    itemsize = np.dtype(kernel.buffer("x").dtype).itemsize
    moved = rows_bytes(rows, cols, itemsize)
    env.progress(f"P11 {name}: {rows} x {cols} {dtype}")
    views = bind_views(ctx, kernel, size, data)
    out = views[output_index(kernel)]
    figure = device_seconds(ctx, kernel, views, size, s)
    schedules = [*kernel.schedules] if elementwise else rows_schedules(kernel, cols, cuda=True)
    tried, winner, schedule = sweep_best(
        kernel,
        schedules,
        lambda sch: bandwidth_gbps(moved, figure(sch)),
        ctx.constraints,
        "cuda",
        env.progress,
    )
    ctx.run_kernel(kernel, schedule, views, size)
    got = _read(ctx, out, np.dtype(kernel.buffer("y").dtype), rows * cols)
    torch = env.torch()
    peers = _Peers(torch, name.split("_")[0], data, rows, cols, dict(kernel.defaults))
    want = peers.torch_output().float().cpu().numpy().reshape(-1)
    limit = 2e-2 if dtype == "bf16" else 1e-4
    error = _error_against(got, want, limit, f"{name} under {schedule}")
    triton_error = peers.check_triton(want, limit)
    timer = CudaTimer(ctx)
    try:
        from ._cuda import copy_gbps

        copy = copy_gbps(
            env, ctx, timer, views[0], out, min(views[0].length_bytes, out.length_bytes)
        )
        figures = {
            "copy": copy,
            "torch": lambda: bandwidth_gbps(moved, peers.seconds("torch")),
            "triton": lambda: bandwidth_gbps(moved, peers.seconds("triton")),
            "ours": lambda: bandwidth_gbps(moved, figure(schedule)),
        }
        values = alternate(figures, s.rounds)
    finally:
        timer.close()
    medians = {k: median(v) for k, v in values.items()}
    best = max(("torch", "triton"), key=lambda k: medians[k])
    return Row(
        "P11",
        f"{name} {rows}x{cols} {dtype}, CUDA",
        f"best of torch / Triton ({best})",
        medians[best],
        medians["ours"],
        "GB/s",
        Goal(">=", 0.97),
        notes=(
            f"{sweep_note(tried, winner)}; torch {medians['torch']:.0f}, Triton "
            f"{medians['triton']:.0f}, device copy {medians['copy']:.0f} GB/s "
            f"(ours {medians['ours'] / medians['copy']:.2f} of it); one read + one "
            f"write per element; outputs checked against torch (ours {error:.1e}, "
            f"Triton {triton_error:.1e})"
        ),
        raw={
            "candidates": tried,
            "rounds": values,
            "bytes_counted": moved,
            "work": roofline_work(kernel, size, "cuda", moved / (medians["ours"] * 1e9)),
        },
    )


class _Peers:
    """torch's and a tutorial-style Triton kernel's version of one row kernel, on the
    same data (on the device)."""

    def __init__(self, torch, op: str, data: dict, rows: int, cols: int, params: dict):
        self.torch, self.op, self.rows, self.cols = torch, op, rows, cols
        self.eps = float(params.get("eps", 0.0))
        kind = {np.dtype(np.float32): torch.float32}.get(data["x"].dtype, torch.bfloat16)

        def device(array, shape):
            return torch.from_numpy(array.astype(np.float32)).cuda().to(kind).reshape(shape)

        self.x = device(data["x"], (rows, cols))
        self.weights = {k: device(v, (cols,)) for k, v in data.items() if k != "x"}
        self.y = torch.empty_like(self.x)

    def torch_output(self):
        F = self.torch.nn.functional
        x, w = self.x, self.weights
        if self.op == "softmax":
            return self.torch.softmax(x, dim=-1)
        if self.op == "rmsnorm":
            return F.rms_norm(x, (self.cols,), w["w"], self.eps)
        if self.op == "layernorm":
            return F.layer_norm(x, (self.cols,), w["gamma"], w["beta"], self.eps)
        return F.gelu(x)

    def triton_output(self):
        from ._triton_kernels import run

        run(self.op, self.x, self.y, self.weights, self.eps)
        return self.y

    def check_triton(self, want: np.ndarray, limit: float) -> float:
        got = self.triton_output().float().cpu().numpy().reshape(-1)
        return _error_against(got, want, limit, f"the Triton {self.op}")

    def seconds(self, who: str) -> float:
        work = self.torch_output if who == "torch" else self.triton_output
        return median(torch_seconds(self.torch, work, 3, 20))

"""P9 and P11: kernel-forge against the libraries users would pick instead, in the same
run on the same device, every measured output checked.

- P9: the tensor-core GEMMs (``gemm_f16``, ``gemm_bf16``, ``gemm_tf32`` under their
  ``mma=1`` schedules: f16/bf16/TF32 inputs, f32 accumulation; WMMA, mma.sync with a
  cp.async pipeline for the four-number tiles, Hopper's wgmma for 128-thread warpgroups)
  against ``torch.matmul`` in the same input precision (cuBLAS; reduced-precision
  reductions off, TF32 on for the f32 matmul of the TF32 rows). The row names the path
  of the winning schedule. TF32's output is checked against float64 dot products of its
  inputs reduced to TF32 as the kernel reduces them (``forge.ir.to_tf32``: rounded for
  ``gemm_tf32`` and ``gemm_tf32_nt``, truncated for ``gemm_tf32rz_nt``). The TF32 rows
  also measure which of the two cuBLAS computed (its output's error against float64 of
  the truncated and of the rounded inputs: on the H200 its small GEMMs truncate and its
  4096^3 one rounds), and a row whose precision is not cuBLAS's is not judged: P9's goal
  is "in the same precision". ``gemm_tf32_2pass`` and ``gemm_tf32_nt_2pass`` round in a
  launch of their own before the GEMM; a sample times both launches, and the scratch
  buffers they pass the rounded inputs through are allocated with the others.
- P11: softmax, rmsnorm, layernorm and gelu at rows x cols, f32 and bf16, on CUDA,
  each in two rows: against the better of torch and a Triton kernel written the way
  Triton's tutorials write it (one program per row holding the whole row, or a 1-D
  block for gelu), in the same dtype (goal 0.97), and against the device copy of the
  same bytes (goal 0.9). Every candidate schedule's output is checked on a few rows
  against the kernel's numpy meaning, the winner's whole output against torch (and
  Triton's too). The same rows on wgpu (f32, f16) are bench/_wgpu_rows.py's, which
  ``p11_work``, ``checked_sweep``, ``check_peers`` and ``p11_rows`` serve as well.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

import forge
from forge import Schedule, ir
from forge.emit._mma import lowering
from forge.kernel import Access

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
    best,
    bind_views,
    device_seconds,
    gemm_error,
    host_array,
    output_index,
    rows_schedules,
    sweep,
    sweep_best,
    sweep_note,
)

__all__ = [
    "p9",
    "p11",
    "P11Work",
    "p11_work",
    "checked_sweep",
    "final_output",
    "check_peers",
    "p11_rows",
    "DeviceCopy",
    "COPY_GOAL",
    "PEER_GOAL",
]

#: How a P9 row names the tensor-core path its winning schedule took.
_PATHS = {
    "wgmma": "wgmma, cp.async into swizzled stages",
    "mma.sync": "mma.sync, cp.async",
    "wmma": "WMMA",
}
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
#: P9's kernels and their input precision: row-major a and b, and TF32 with b
#: col-major too (x @ w.T: wgmma reads TF32 K-major, so b row-major costs a transpose)
_P9 = (
    ("gemm_f16", "f16"),
    ("gemm_bf16", "bf16"),
    ("gemm_tf32", "tf32"),
    ("gemm_tf32_nt", "tf32"),
    ("gemm_tf32rz_nt", "tf32rz"),
    # TF32 rounded once by a first launch into scratch buffers, then the truncating
    # GEMM of those (both launches timed: the row's time is the pair's)
    ("gemm_tf32_2pass", "tf32"),
    ("gemm_tf32_nt_2pass", "tf32"),
)


def p9(env: Bench) -> list[Row]:
    return [
        row
        for name, dtype in _P9
        for row in guarded(
            "P9", f"{name} on CUDA tensor cores", functools.partial(_p9, env, name, dtype)
        )
    ]


def _cublas_tf32(
    a32: np.ndarray, b32: np.ndarray, tc: Any, size: int, b_col: bool
) -> tuple[str, str]:
    """Which TF32 cuBLAS computed, ``"rz"`` (truncated inputs) or ``"rna"`` (rounded),
    and a note that says why: the relative error of its output ``tc`` (of ``a @ b``, or
    ``a @ w.T`` with ``b32`` holding w when ``b_col``) against float64 dot products of
    the inputs truncated and of the inputs rounded to TF32."""
    got = tc.float().cpu().numpy().reshape(-1)
    errors = {}
    for rounding in ("rz", "rna"):
        a, b = ir.to_tf32(a32, rounding), ir.to_tf32(b32, rounding)
        if b_col:
            b = np.ascontiguousarray(b.reshape(size, size).T)
        errors[rounding] = gemm_error(a, b, got, size)
    computed = min(errors, key=errors.__getitem__)
    return computed, (
        f"cuBLAS's output is {errors['rz']:.1e} from the truncated inputs' product and "
        f"{errors['rna']:.1e} from the rounded ones': it "
        f"{'truncated' if computed == 'rz' else 'rounded'} them"
    )


def _p9(env: Bench, name: str, dtype: str) -> Row:
    ctx = env.cuda()
    s = env.sizes
    size = s.gemm
    kernel = forge.get_kernel(name)
    # b's buffer holds b, or (col-major b) its transpose w: b = w.T, as torch gets it
    b_col = kernel.body.pattern.b_layout == "col"
    a32, b32 = host_array(size * size, seed=30), host_array(size * size, seed=31)
    rounding = ir.TF32_ROUNDINGS.get(dtype)  # TF32: how the kernel reduces its f32 inputs
    if rounding:  # f32 in memory; the kernel rounds as it loads, and so does the check
        a, b = a32, b32
        exact_a, exact_b = ir.to_tf32(a32, rounding), ir.to_tf32(b32, rounding)
    else:
        low = kernel.buffer("a").dtype
        a, b = a32.astype(low), b32.astype(low)
        exact_a, exact_b = a.astype(np.float32), b.astype(np.float32)
    env.progress(f"P9 {name} {size}^3 on tensor cores")
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
    if b_col:
        exact_b = np.ascontiguousarray(exact_b.reshape(size, size).T)
    error = gemm_error(exact_a, exact_b, got, size)
    if error > _GEMM_TOLERANCE:
        raise AssertionError(
            f"{name} under {schedule} has a relative error of "
            f"{error:.1e} against float64 dot products of its inputs"
        )
    torch = env.torch()
    matmul = torch.backends.cuda.matmul
    matmul.allow_fp16_reduced_precision_reduction = False
    matmul.allow_bf16_reduced_precision_reduction = False
    matmul.allow_tf32 = rounding is not None
    kind = {"f16": torch.float16, "bf16": torch.bfloat16}.get(dtype, torch.float32)
    ta = torch.from_numpy(a32.reshape(size, size)).cuda().to(kind)
    tb = torch.from_numpy(b32.reshape(size, size)).cuda().to(kind)
    if b_col:  # torch.matmul(x, w.t()): cuBLAS reads w transposed, as ours does
        tb = tb.t()
    tc = torch.empty_like(ta)

    def theirs() -> float:
        return tflops(
            flops,
            median(
                torch_seconds(torch, lambda: torch.matmul(ta, tb, out=tc), s.warmups, s.samples)
            ),
        )

    base, mine, values = _final(env, theirs, lambda: ours(schedule))
    goal: Goal | None = Goal(">=", 0.7)
    cublas = ""
    if rounding:
        computed, said = _cublas_tf32(a32, b32, tc, size, b_col)
        cublas = f"; {said}"
        if computed != rounding:  # P9 compares in the same precision
            goal = None
            kernel_does = "truncates" if rounding == "rz" else "rounds"
            cublas += f", so not judged: this kernel {kernel_does}"
    return Row(
        "P9",
        f"gemm {size}^3 {dtype} in{', b col-major' if b_col else ''}"
        f"{', rounded once by a first launch' if kernel.body.pattern.prepass else ''}, "
        f"f32 accumulate, CUDA tensor cores ({_PATHS[lowering(schedule)]})",
        f"torch.matmul{'(a, w.t())' if b_col else ''} "
        f"{'f32, allow_tf32' if rounding else dtype} (cuBLAS)",
        base,
        mine,
        "TFLOP/s",
        goal,
        notes=(
            f"{sweep_note(tried, winner)}; output checked (max rel err "
            f"{error:.1e}); ours writes f32 c, cuBLAS {kind} c{cublas}; torch "
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
P11_KERNELS = (
    ("softmax", "f32"),
    ("rmsnorm", "f32"),
    ("layernorm", "f32"),
    ("gelu", "f32"),
    ("softmax_bf16", "bf16"),
    ("rmsnorm_bf16", "bf16"),
    ("layernorm_bf16", "bf16"),
    ("gelu_bf16", "bf16"),
)
#: P11's goals: ours over the best of torch and Triton, and over the device copy of the
#: same bytes (bench/_wgpu_rows.py holds f16 on wgpu to 0.88 of its copy)
PEER_GOAL, COPY_GOAL = 0.97, 0.9
#: The largest error of an output, against torch's or the kernel's own numpy meaning,
#: relative to the largest |y|: f32 rounding, or one rounding of f16 (2^-11 of an
#: element) or bf16 (2^-8) on each side, with a margin
ERROR_LIMITS = {"f32": 1e-4, "f16": 4e-3, "bf16": 2e-2}
#: Rows of every candidate's output checked against the kernel's numpy meaning (these
#: first ones and the last), poisoned with NaN before it runs
_CHECK_ROWS = 4


def p11(env: Bench) -> list[Row]:
    """The CUDA rows; ``p11_wgpu`` (bench/_wgpu_rows.py) adds the wgpu ones."""
    return [
        row
        for name, dtype in env.chosen(P11_KERNELS)
        for row in env.done(
            guarded(
                "P11",
                f"{name} against torch and Triton",
                functools.partial(_p11, env, name, dtype),
            )
        )
    ]


@dataclasses.dataclass(frozen=True)
class P11Work:
    """One P11 kernel at rows x cols: the kernel (a row kernel reshaped to ``rows``), the
    size it runs at, and the host data."""

    name: str
    dtype: str
    kernel: Any
    size: int
    data: dict
    rows: int
    cols: int

    @property
    def elementwise(self) -> bool:
        return self.kernel.body.kind == "map"

    @property
    def out_dtype(self) -> np.dtype:
        return np.dtype(self.kernel.buffer("y").dtype)

    @property
    def moved(self) -> int:
        """One read and one write of each element (weights not counted)."""
        return rows_bytes(self.rows, self.cols, np.dtype(self.kernel.buffer("x").dtype).itemsize)

    @property
    def limit(self) -> float:
        return ERROR_LIMITS[self.dtype]


def p11_work(name: str, dtype: str, rows: int, cols: int) -> P11Work:
    """Library kernel ``name`` at rows x cols, with its inputs (as P11 draws them)."""
    base = forge.get_kernel(name)
    if base.body.kind == "map":  # gelu: rows * cols values
        x = host_array(rows * cols, seed=40, low=-4.0, high=4.0)
        return P11Work(
            name, dtype, base, rows * cols, {"x": x.astype(base.buffer("x").dtype)}, rows, cols
        )
    kernel = ir.with_shape(base, rows=rows)
    return P11Work(name, dtype, kernel, cols, _inputs(kernel, rows, cols), rows, cols)


def _inputs(kernel, rows: int, cols: int) -> dict[str, np.ndarray]:
    """x in [-4, 4) over rows x cols; per-column weights in [0.5, 1.5), biases small."""
    data = {}
    for i, spec in enumerate(kernel.inputs):
        count = rows * cols if spec.name == "x" else cols
        low, high = {"x": (-4.0, 4.0), "beta": (-0.1, 0.1)}.get(spec.name, (0.5, 1.5))
        data[spec.name] = host_array(count, seed=40 + i, low=low, high=high).astype(spec.dtype)
    return data


def _error(got: np.ndarray, want: np.ndarray) -> float:
    """The largest error of ``got`` relative to the largest ``|want|``; inf where ``got``
    holds a NaN (an element left poisoned) or has the wrong length."""
    if got.shape != want.shape:
        return math.inf
    largest = max(1e-30, float(np.max(np.abs(want))))
    error = float(np.max(np.abs(got.astype(np.float64) - want))) / largest
    return error if error == error else math.inf


def _error_against(got: np.ndarray, want: np.ndarray, limit: float, what: str) -> float:
    """``_error``, and an ``AssertionError`` beyond ``limit``: a figure of a wrong
    kernel is no figure."""
    error = _error(got, want)
    if not error <= limit:
        raise AssertionError(
            f"{what}: max error {error:.1e} of the largest |y| against torch (limit {limit:g})"
        )
    return error


def _spans(rows: int) -> list[tuple[int, int]]:
    """(first row, row count) of the rows ``OutputCheck`` reads."""
    if rows <= _CHECK_ROWS + 1:
        return [(0, rows)]
    return [(0, _CHECK_ROWS), (rows - 1, 1)]


def _checked_rows(work: P11Work) -> str:
    """Which rows ``OutputCheck`` reads, in words."""
    return str(work.rows) if len(_spans(work.rows)) == 1 else f"first {_CHECK_ROWS} and last"


def _reference(work: P11Work, x: np.ndarray, rows: int) -> np.ndarray:
    """The kernel's numpy meaning of ``rows`` rows ``x`` (and the run's weights)."""
    base = forge.get_kernel(work.name)
    if work.elementwise:
        kernel, size = base, rows * work.cols
    else:
        kernel, size = ir.with_shape(base, rows=rows), work.cols
    arrays = []
    for spec in kernel.buffers:
        if spec.access is Access.UNIFORM:
            arrays.append(kernel.pack_uniform(size, **dict(kernel.defaults))[0])
        elif spec.access is Access.READ:
            arrays.append(x if spec.name == "x" else work.data[spec.name])
        else:
            arrays.append(np.zeros(spec.element_count(size), spec.dtype))
    kernel.run_reference(arrays)
    return arrays[output_index(kernel)].astype(np.float64)


class OutputCheck:
    """A few rows of one P11 output (``_spans``): poisoned with NaN before a run, read
    back after it and compared with the kernel's numpy meaning (computed once)."""

    def __init__(self, ctx, work: P11Work, out) -> None:
        self.ctx, self.work = ctx, work
        row_bytes = work.cols * work.out_dtype.itemsize
        spans = _spans(work.rows)
        self.windows = [
            (out.window(first * row_bytes, count * row_bytes), count * work.cols)
            for first, count in spans
        ]
        x = work.data["x"].reshape(work.rows, work.cols)
        picked = np.concatenate([x[first : first + count] for first, count in spans])
        self.want = _reference(work, picked.reshape(-1), len(picked))
        self.checked_rows = len(picked)

    def poison(self) -> None:
        for window, count in self.windows:
            self.ctx.write_view(window, np.full(count, np.nan, self.work.out_dtype))

    def error(self) -> float:
        got = np.concatenate(
            [_read(self.ctx, window, self.work.out_dtype, count) for window, count in self.windows]
        )
        return _error(got, self.want)


@dataclasses.dataclass
class CheckedSweep:
    """A sweep whose every candidate's output was checked (``OutputCheck``): the entries
    (a wrong one moved from ``figure`` to ``wrong``), the winner, and ``figure()``
    measuring the winner again."""

    tried: list[dict]
    winner: dict
    schedule: Schedule
    figure: Callable[[], float]
    reference_error: float

    @property
    def note(self) -> str:
        wrong = sum("wrong" in t for t in self.tried)
        return f"{sweep_note(self.tried, self.winner)}; {wrong} with a wrong output"


def checked_sweep(
    env: Bench, ctx, work: P11Work, views: list, schedules, target: str
) -> CheckedSweep:
    """Sweep ``schedules`` of ``work`` on ``ctx`` (GB/s), each candidate's output checked
    against the kernel's numpy meaning on a few rows; a wrong one cannot win."""
    check = OutputCheck(ctx, work, views[output_index(work.kernel)])
    seconds = device_seconds(ctx, work.kernel, views, work.size, env.sizes)
    errors: dict[str, float] = {}

    def figure(schedule: Schedule) -> float:
        check.poison()
        value = bandwidth_gbps(work.moved, seconds(schedule))
        errors[str(schedule)] = check.error()
        return value

    tried = sweep(work.kernel, schedules, figure, ctx.constraints, target, env.progress)
    for entry in tried:
        error = errors.get(entry["schedule"])
        if error is None:
            continue
        entry["max_rel_err"] = error
        if not error <= work.limit:
            entry["wrong"] = entry.pop("figure")
            entry["error"] = f"wrong output: max error {error:.3g} of the largest |y|"
            env.progress(f"  {work.kernel.id} {entry['schedule']}: {entry['error']}")
    winner = best(tried)
    schedule = Schedule.parse(winner["schedule"])
    return CheckedSweep(
        tried,
        winner,
        schedule,
        lambda: bandwidth_gbps(work.moved, seconds(schedule)),
        winner["max_rel_err"],
    )


def final_output(ctx, work: P11Work, views: list, schedule: Schedule) -> np.ndarray:
    """The whole output of one more run of the winner, on an output poisoned first."""
    out = views[output_index(work.kernel)]
    count = work.rows * work.cols
    ctx.write_view(out, np.full(count, np.nan, work.out_dtype))
    ctx.run_kernel(work.kernel, schedule, views, work.size)
    return _read(ctx, out, work.out_dtype, count)


@dataclasses.dataclass
class PeerCheck:
    """torch's and Triton's version of a P11 kernel with their outputs checked against
    ours, or why there are none (``missing``)."""

    peers: _Peers | None = None
    torch_version: str = ""
    ours_error: float = math.nan
    triton_error: float = math.nan
    missing: str = ""

    def figures(self, moved: int) -> dict[str, Callable[[], float]]:
        peers = self.peers
        if peers is None:
            return {}
        return {
            "torch": lambda: bandwidth_gbps(moved, peers.seconds("torch")),
            "triton": lambda: bandwidth_gbps(moved, peers.seconds("triton")),
        }


def check_peers(env: Bench, work: P11Work, got: np.ndarray) -> PeerCheck:
    """torch and Triton on ``work``'s data, on the GPU: our output ``got`` and Triton's
    checked against torch's; ``missing`` says which of them is not there."""
    try:
        torch = env.torch()
    except ImportError as exc:
        return PeerCheck(missing=f"no baseline: {exc}")
    peers = _Peers(
        torch, work.name.split("_")[0], work.data, work.rows, work.cols, dict(work.kernel.defaults)
    )
    want = peers.torch_output().float().cpu().numpy().reshape(-1)
    ours = _error_against(got, want, work.limit, f"{work.name}")
    try:
        triton_error = peers.check_triton(want, work.limit)
    except ImportError as exc:
        return PeerCheck(missing=f"no baseline: Triton is not installed ({exc})")
    return PeerCheck(peers, torch.__version__, ours, triton_error)


@dataclasses.dataclass(frozen=True)
class DeviceCopy:
    """The device copy a P11 row is held to: what it is, its GB/s (bytes read + written
    per second), how it was measured, and the goal on ours over it."""

    label: str
    figure: float
    note: str
    goal: float = COPY_GOAL


def p11_rows(
    env: Bench,
    work: P11Work,
    where: str,
    swept: CheckedSweep,
    peers: PeerCheck,
    values: dict[str, list[float]],
    copy: DeviceCopy,
    raw: dict,
) -> list[Row]:
    """The two rows of one P11 kernel on ``where`` (``"CUDA"``, ``"wgpu"``), from the
    rounds ``values``: ours against the best of torch and Triton (an error row saying
    what is missing where they are not there), and ours against ``copy``."""
    s = env.sizes
    what = f"{work.name} {s.rows}x{s.cols} {work.dtype}, {where}"
    ours = median(values["ours"])
    checks = (
        f"outputs checked: every candidate's {_checked_rows(work)} rows against the "
        f"kernel's numpy meaning (winner {swept.reference_error:.1e} of the largest |y|)"
    )
    if peers.peers is not None:
        checks += (
            f", the winner's whole output against torch ({peers.ours_error:.1e}) as Triton's "
            f"({peers.triton_error:.1e})"
        )
    backend = "cuda" if where == "CUDA" else "wgpu"
    raw = {
        **raw,
        "candidates": swept.tried,
        "rounds": values,
        "bytes_counted": work.moved,
        "work": roofline_work(work.kernel, work.size, backend, work.moved / (ours * 1e9)),
    }
    notes = f"{swept.note}; one read + one write per element; {checks}"
    against_copy = Row(
        "P11",
        f"{what}, against the device copy",
        copy.label,
        copy.figure,
        ours,
        "GB/s",
        Goal(">=", copy.goal),
        notes=f"{copy.note}; {notes}",
        raw={"rounds": values},
    )
    if peers.peers is None:
        return [
            Row(
                "P11",
                what,
                "best of torch / Triton",
                None,
                ours,
                "GB/s",
                Goal(">=", PEER_GOAL),
                error=peers.missing,
                notes=notes,
                raw=raw,
            ),
            against_copy,
        ]
    medians = {k: median(values[k]) for k in ("torch", "triton")}
    best_peer = max(medians, key=lambda k: medians[k])
    return [
        Row(
            "P11",
            what,
            f"best of torch / Triton ({best_peer})",
            medians[best_peer],
            ours,
            "GB/s",
            Goal(">=", PEER_GOAL),
            notes=(
                f"{notes}; torch {medians['torch']:.0f}, Triton {medians['triton']:.0f}, "
                f"device copy {copy.figure:.0f} GB/s (ours {ours / copy.figure:.2f} of it); "
                f"torch {peers.torch_version}"
            ),
            raw=raw,
        ),
        against_copy,
    ]


def _p11(env: Bench, name: str, dtype: str) -> list[Row]:
    ctx = env.cuda()
    s = env.sizes
    work = p11_work(name, dtype, s.rows, s.cols)
    env.progress(f"P11 {name}: {s.rows} x {s.cols} {dtype}, CUDA")
    views = bind_views(ctx, work.kernel, work.size, work.data)
    schedules = (
        [*work.kernel.schedules]
        if work.elementwise
        else rows_schedules(work.kernel, s.cols, cuda=True)
    )
    swept = checked_sweep(env, ctx, work, views, schedules, "cuda")
    peers = check_peers(env, work, final_output(ctx, work, views, swept.schedule))
    timer = CudaTimer(ctx)
    try:
        from ._cuda import copy_gbps

        out = views[output_index(work.kernel)]
        copy = copy_gbps(
            env, ctx, timer, views[0], out, min(views[0].length_bytes, out.length_bytes)
        )
        values = alternate(
            {"copy": copy, **peers.figures(work.moved), "ours": swept.figure}, s.rounds
        )
    finally:
        timer.close()
    copied = DeviceCopy("cuMemcpyDtoD same bytes", median(values["copy"]), "CUDA events")
    return p11_rows(env, work, "CUDA", swept, peers, values, copied, {})


class _Peers:
    """torch's and a tutorial-style Triton kernel's version of one row kernel, on the
    same data (on the device), in the data's dtype (f32, f16 or bf16)."""

    def __init__(self, torch, op: str, data: dict, rows: int, cols: int, params: dict):
        self.torch, self.op, self.rows, self.cols = torch, op, rows, cols
        self.eps = float(params.get("eps", 0.0))
        kinds = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
        kind = kinds[data["x"].dtype.name]

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

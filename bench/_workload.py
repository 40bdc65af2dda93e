"""What the kernel sections run: host inputs, views bound in a kernel's order, the
schedules tried (the kernel's own and ones sized to the device), the sweep over them,
and a check of the winner's output against the kernel's own numpy meaning (a fast
wrong kernel must not count)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence

import numpy as np

from forge import BindingUsage, Schedule
from forge.kernel import Access, KernelSpec

__all__ = [
    "host_array",
    "bind_views",
    "output_index",
    "map_schedules",
    "rows_schedules",
    "gemm_schedules",
    "device_seconds",
    "host_seconds_per_sample",
    "sweep",
    "best",
    "sweep_best",
    "sweep_note",
    "max_relative_error",
    "check_map_output",
    "check_rows_output",
    "gemm_error",
    "check_gemm_output",
    "TF32_SUSPECT",
]

_BLOCK = 1 << 20
# Threads an SM holds at once on sm_80 and later (the H100/H200 this is tuned for);
# AdapterConstraints does not carry it, so grid sizes use this figure.
_THREADS_PER_SM = 2048
_TOLERANCE = 1e-4  # max |got - want| / max |want| accepted as a correct output
#: A float32 gemm at k = 4096 whose ``gemm_error`` is above this rounded its inputs
#: (TF32 shows about 3e-4, float32 about 5e-7).
TF32_SUSPECT = 1e-5


def host_array(count: int, seed: int, low: float = -1.0, high: float = 1.0) -> np.ndarray:
    """``count`` float32 values in [low, high): a random block of 1 Mi values, tiled
    (cheap at 1 GiB, and no cache or compressor can exploit a 4 MiB period)."""
    block = np.random.default_rng(seed).uniform(low, high, min(count, _BLOCK)).astype(np.float32)
    return np.resize(block, count)


def bind_views(ctx, kernel, size: int, data: dict[str, np.ndarray], **params) -> list:
    """One view per buffer of ``kernel`` at problem ``size``, in binding order: inputs
    (and inout outputs) written from ``data`` by name, outputs allocated, the uniform
    block packed with ``params``."""
    views = []
    for spec in kernel.buffers:
        if spec.access is Access.UNIFORM:
            views.append(
                ctx.allocate_and_write(
                    kernel.pack_uniform(size, **params),
                    spec.binding,
                    spec.group,
                    BindingUsage.UNIFORM,
                )
            )
        elif spec.access is Access.READ:
            views.append(ctx.allocate_and_write(data[spec.name], spec.binding, spec.group))
        elif spec.inout:
            views.append(
                ctx.allocate_and_write(
                    data[spec.name], spec.binding, spec.group, BindingUsage.STORAGE_READ_WRITE
                )
            )
        else:
            views.append(
                ctx.allocate_transient(
                    spec.byte_size(size), spec.binding, spec.group, BindingUsage.STORAGE_READ_WRITE
                )
            )
    return views


def output_index(kernel) -> int:
    """Position in ``kernel.buffers`` of its (first) output."""
    return [spec.access for spec in kernel.buffers].index(Access.READ_WRITE)


def _unique(schedules) -> list[Schedule]:
    return list(dict.fromkeys(schedules))


def map_schedules(kernel, multiprocessors: int | None) -> list[Schedule]:
    """An elementwise kernel's own schedules, plus float4 grid-stride ones whose grid
    is 1, 2 or 4 times what ``multiprocessors`` SMs hold at once."""
    extra = []
    if multiprocessors:
        for wg in (256, 512, 1024):
            resident = multiprocessors * (_THREADS_PER_SM // wg)
            for ipt in (2, 4):
                for waves in (1, 2, 4):
                    extra.append(
                        Schedule(
                            wg,
                            items_per_invocation=ipt,
                            vector_width=4,
                            max_workgroups=resident * waves,
                        )
                    )
    return _unique([*kernel.schedules, *extra])


def rows_schedules(kernel, cols: int, cuda: bool) -> list[Schedule]:
    """A row kernel's own schedules, plus (on CUDA, whose blocks hold up to 1024
    threads) 16-byte-vector ones whose ``wg * ipt * vec`` columns hold a whole row of
    ``cols`` in registers, and one that sweeps it in two passes: float4 (``vec=4``), and
    for rows of 2-byte elements (f16, bf16) also ``vec=8``, whose 8 elements are the 16
    bytes that 4 floats are."""
    extra = []
    if cuda:
        for vec in (4, 8) if _two_byte_rows(kernel) else (4,):
            for wg in (1024, 512, 256):
                ipt = max(1, cols // (wg * vec))
                extra.append(Schedule((wg, 1), items_per_invocation=ipt, vector_width=vec))
            ipt = max(1, cols // (2 * 1024 * vec))
            extra.append(Schedule((1024, 1), items_per_invocation=ipt, vector_width=vec))
    return _unique([*kernel.schedules, *extra])


def _two_byte_rows(kernel) -> bool:
    """Whether every buffer a row kernel moves in chunks (not its uniform) has 2-byte
    elements, as vec=8 needs."""
    return all(
        np.dtype(spec.dtype).itemsize == 2
        for spec in kernel.buffers
        if spec.access is not Access.UNIFORM
    )


def gemm_schedules(kernel, cuda: bool) -> list[Schedule]:
    """gemm's own schedules, plus (on CUDA) larger or deeper register-blocked tiles."""
    extra = []
    if cuda:
        extra = [
            Schedule((16, 16), vector_width=4, tile=(128, 128, 16, 2)),
            Schedule((16, 16), vector_width=4, tile=(128, 256, 8, 2)),
            Schedule((16, 8), vector_width=4, tile=(128, 128, 8, 2)),
            Schedule((32, 8), vector_width=4, tile=(128, 128, 8, 2)),
        ]
    return _unique([*kernel.schedules, *extra])


def device_seconds(ctx, kernel, views, size: int, sizes) -> Callable[[Schedule], float]:
    """A function of a schedule: the median device seconds of one dispatch, over
    ``sizes.samples`` samples timed by the backend (CUDA events, wgpu timestamps),
    after ``sizes.warmups`` dispatches and, where those took less, enough more to fill
    ``sizes.warm_seconds`` (at most ``_MOST_WARMUPS``)."""

    def seconds(schedule: Schedule) -> float:
        ns = ctx.run_kernel(
            kernel, schedule, views, size, warmups=sizes.warmups, samples=sizes.samples
        )
        each = float(np.median(ns)) * 1e-9
        more = min(_MOST_WARMUPS, math.ceil(sizes.warm_seconds / max(each, 1e-9)))
        if more > sizes.warmups + sizes.samples:
            ns = ctx.run_kernel(kernel, schedule, views, size, warmups=more, samples=sizes.samples)
        return float(np.median(ns)) * 1e-9

    return seconds


_MOST_WARMUPS = 20_000


def host_seconds_per_sample(ctx, kernel, schedule: Schedule, views, size: int, count: int) -> float:
    """Host seconds per sample of ``run_kernel(..., samples=count)``, everything in:
    what the harness costs around each dispatch (P5, P6)."""
    start = time.perf_counter()
    ctx.run_kernel(kernel, schedule, views, size, samples=count)
    return (time.perf_counter() - start) / count


def sweep_best(
    kernel,
    schedules: Sequence[Schedule],
    figure: Callable[[Schedule], float],
    constraints,
    target: str,
    progress: Callable[[str], None],
) -> tuple[list[dict], dict, Schedule]:
    """``sweep``, then its winner: (every entry, the best one, its schedule)."""
    tried = sweep(kernel, schedules, figure, constraints, target, progress)
    winner = best(tried)
    return tried, winner, Schedule.parse(winner["schedule"])


def sweep_note(tried: list[dict], winner: dict) -> str:
    """What a row's notes say about its sweep."""
    refused = sum("error" in t for t in tried)
    return (
        f"best of {len(tried) - refused} schedules ({refused} refused): "
        f"{winner['schedule']} ({winner['role']})"
    )


def sweep(
    kernel,
    schedules: Sequence[Schedule],
    figure: Callable[[Schedule], float],
    constraints,
    target: str,
    progress: Callable[[str], None],
) -> list[dict]:
    """``figure(schedule)`` for each schedule the kernel and device accept; a refused
    or failing schedule is recorded with its reason and the sweep goes on."""
    from forge.errors import ForgeError

    tried = []
    for schedule in schedules:
        own = schedule in kernel.schedules
        entry = {
            "schedule": str(schedule),
            "role": kernel.schedule_role(schedule) if own else "added by the bench",
        }
        try:
            kernel.check_schedule(schedule, constraints, target)
            entry["figure"] = figure(schedule)
            progress(f"  {kernel.id} {schedule}: {entry['figure']:.4g}")
        except ForgeError as exc:
            entry["error"] = f"{type(exc).__name__}: {exc}"
            progress(f"  {kernel.id} {schedule}: skipped ({entry['error'][:120]})")
        tried.append(entry)
    return tried


def best(tried: list[dict]) -> dict:
    """The entry with the highest figure (``LookupError`` when every one failed)."""
    measured = [t for t in tried if "figure" in t]
    if not measured:
        reasons = "; ".join(t.get("error", "") for t in tried[:3])
        raise LookupError(f"no schedule could run ({len(tried)} tried: {reasons})")
    return max(measured, key=lambda t: t["figure"])


def max_relative_error(got: np.ndarray, want: np.ndarray) -> float:
    """max |got - want| / max |want|: one number that a wrong kernel cannot hide in."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    scale = float(np.max(np.abs(want))) if want.size else 0.0
    return float(np.max(np.abs(got - want))) / (scale or 1.0)


def _verdict(error: float, what: str) -> float:
    if not error <= _TOLERANCE:  # also catches NaN
        raise AssertionError(
            f"{what}: max relative error {error:.3g} over {_TOLERANCE:g}; "
            "the fastest schedule computes the wrong thing"
        )
    return error


def check_map_output(
    kernel, data: dict[str, np.ndarray], got: np.ndarray, params: dict, stride: int = 997
) -> float:
    """Compare every ``stride``-th output of an elementwise kernel with its reference."""
    picked = {name: np.ascontiguousarray(a[::stride]) for name, a in data.items()}
    count = len(next(iter(picked.values())))
    arrays = [
        picked[s.name]
        if s.access is Access.READ
        else (
            kernel.pack_uniform(count, **params)[0]
            if s.access is Access.UNIFORM
            else np.zeros(count, s.dtype)
        )
        for s in kernel.buffers
    ]
    kernel.run_reference(arrays)
    want = arrays[output_index(kernel)]
    return _verdict(max_relative_error(got[::stride][:count], want), f"kernel {kernel.id}")


def check_rows_output(
    kernel_for_rows: Callable[[int], KernelSpec],
    data: dict[str, np.ndarray],
    got: np.ndarray,
    rows: int,
    cols: int,
    params: dict,
    check_rows: int = 4,
) -> float:
    """Compare the first ``check_rows`` rows of a row kernel's output with its
    reference (``kernel_for_rows(n)``: the kernel reshaped to n rows)."""
    kernel = kernel_for_rows(check_rows)
    arrays = []
    for spec in kernel.buffers:
        if spec.access is Access.UNIFORM:
            arrays.append(kernel.pack_uniform(cols, **params)[0])
        elif spec.access is Access.READ:
            source = data[spec.name]
            arrays.append(source[: check_rows * cols] if source.size == rows * cols else source)
        else:
            arrays.append(np.zeros(spec.element_count(cols), spec.dtype))
    kernel.run_reference(arrays)
    want = arrays[output_index(kernel)]
    return _verdict(max_relative_error(got[: want.size], want), f"kernel {kernel.id}")


def gemm_error(
    a: np.ndarray, b: np.ndarray, got: np.ndarray, size: int, samples: int = 64, seed: int = 5
) -> float:
    """``max_relative_error`` of ``samples`` random entries of ``got = a @ b`` against
    float64 dot products: about 5e-7 for float32 at k = 4096, 3e-4 for TF32."""
    rng = np.random.default_rng(seed)
    i, j = rng.integers(0, size, samples), rng.integers(0, size, samples)
    a2, b2, c2 = a.reshape(size, size), b.reshape(size, size), got.reshape(size, size)
    want = np.einsum("sk,ks->s", a2[i].astype(np.float64), b2[:, j].astype(np.float64))
    return max_relative_error(c2[i, j], want)


def check_gemm_output(a: np.ndarray, b: np.ndarray, got: np.ndarray, size: int) -> float:
    """``gemm_error``, refused over the tolerance."""
    return _verdict(gemm_error(a, b, got, size), "kernel gemm")

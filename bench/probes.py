"""``python -m bench.probes NAME``: diagnostics behind the open P9 and P11 gaps, kept so
that a device session can rerun them in a minute. They print figures and comparisons;
they are not bench rows (no goal, no baseline), and BENCHMARKS.md says which entry each
one fed.

- ``wgsl-rows``: row kernels on wgpu at ROWS x COLS f32 (GB/s of one read and one
  write), each schedule as emitted and as hand variants of its WGSL: every
  ``workgroupBarrier()`` deleted (a wrong result, timed only) and the register arrays
  written as scalar variables; where the row fits the schedule's registers, also
  without the looped path (the loops naga bounds with counters, besides the
  grid-stride loop) and, where it fills them exactly, with that path alone; and with
  the path chosen by a pipeline constant (``override fg_cols``) instead of the
  uniform, which leaves the driver the same dead branches to drop. layernorm also
  runs with its moments level emitted as the two levels it fuses (a tree of one sum
  each instead of one merging three values). Each variant's output is compared with
  the kernel's own, as emitted (bit for bit, else the largest difference as a
  fraction of the largest output). A rows kernel without a reduction (``y = 2x``) is
  the floor.
- ``row-means``: the row mean and variance of ``_adversarial_rows`` (rows whose mean
  is far larger than their spread) under the tree and under ``sg=1``, bit for bit
  against the first schedule's and in ulps against float64.
- ``tf32-rounding``: ``gemm_tf32_nt`` at SIZE^3 on CUDA's wgmma, with and without its
  rounding pass, in TFLOP/s (the second is wrong by design: it measures the pass).
- ``wgsl-gemm``: ``gemm`` at SIZE^3 on wgpu under every schedule of ``GEMM_TUNABLES``
  with WGSL's register loops written out and vec4 (the shape P10's best has) that the
  emitter and the adapter take (``--schedule``: those alone), in TFLOP/s, each output's
  first 64 rows (set to NaN before) against float64, fastest last.
- ``wgsl-checks``: what naga's runtime checks cost on wgpu: ``gemm`` at SIZE^3 (each
  output's first 64 rows against float64, and the two outputs compared) and the row
  kernels at ROWS x COLS, each in a context with the checks (a clamp of each array
  index, a counter bounding each loop), with each check alone and with none
  (``--size 0``: the row kernels only).
- ``cuda-half``: softmax and gelu of bf16, f16 and f32 on CUDA at ROWS x COLS (GB/s of
  one read and one write), each schedule as emitted and as twins: softmax with every
  ``expf`` written ``__expf`` (ex2.approx: a few ulp of float32, far under half an ulp
  of bf16 or f16); gelu with its ``1 + erf(u)`` written as the sum with ``erff``, with
  Abramowitz and Stegun's 7.1.26 erf (one reciprocal, one exp, within 1.5e-7 of erf),
  and as ``erfc(-u)`` (no cancellation where erf ~ -1) through CUDA's ``erfcf`` and
  through Numerical Recipes' branch-free erfcc. Each twin's output is compared with
  the emitted kernel's, as a fraction of its largest magnitude, and gelu's first 2^20
  with gelu in float64, in ulps of the dtype at the exact value (``--kernel`` picks
  kernels). It fed the emission of half kernels (``Emission.half_outputs``): their
  online softmax sums are ``__expf`` (the softmax twin differs in the looped path's
  output sweep only) and their ``1 + erf(u)`` is the erfcc (the last gelu twin is the
  emitted half kernel again; the first, the f32 one). The half row kernels, emitted
  with their row packed two halves to a register (``_rows.CUDA_PACKED_HALF_ROWS``),
  have it unpacked as a twin (one half a register, the emission until 2026-12-07);
  layernorm_bf16 and rmsnorm_bf16 also unpacked as float (ptxas spilled the half
  arrays at the one-pass schedules, NVRTC 13.5, 2026-12-04) and packed with two
  blocks a multiprocessor asked for (``_rows.CUDA_PACKED_ROW_BLOCKS``).
- ``wgsl-half``: the same on wgpu for gelu_f16 (where the adapter has ``shader-f16``)
  and gelu: as emitted, with ``1 + erf(u)`` as the sum through the WGSL erf helper
  (``fg_erf_f32``, forge/emit/_approx.py) and as the erfcc.
- ``cuda-resources``: ptxas's registers and spills (through NVRTC, no GPU needed) of the
  half row kernels under the one-pass schedules, as emitted and as the ``cuda-half``
  twins of layernorm_bf16 and rmsnorm_bf16, and of layernorm in f32 beside them.
- ``gemm-stores``: ``gemm`` at SIZE^3 on wgpu (and CUDA where present) under the given
  schedules (P10's and P4's best by default), as emitted and with A's tile loaded
  across 32 rows a warp instead of 8: as emitted, a warp's
  transposed stores of A into workgroup memory land in 8 banks (4-way conflicts).
  Each output's first 64 rows against float64.

Device time is short: each takes well under a minute after the compiles.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import itertools
import os
import re
import sys
import types
from collections.abc import Callable, Sequence

import ml_dtypes
import numpy as np

import forge
from forge import KernelSpec, MemoryTopology, Schedule, ir
from forge.emit._approx import one_plus_erf, wgsl_helper
from forge.ir._erf import erf64, erfc64

from ._workload import bind_views, device_seconds, host_array, output_index

__all__ = ["main", "scalar_registers"]

#: clocks up before a figure counts: on the H200 through Vulkan, after the seconds of host
#: work between two figures (reading an output back, float64 references), gelu on wgpu
#: measured 994 GB/s after 30 warm-up dispatches and 3967 after 0.3 s of them
#: (2026-12-04, ``wgsl-half``); ``--warm-seconds`` sets that time
_WARM = types.SimpleNamespace(warmups=30, warm_seconds=0.3, samples=15)


def scalar_registers(text: str) -> str:
    """``text`` (emitted WGSL) with each local register array written as scalar
    variables: inside the unrolled blocks every index is a constant expression of the
    block's ``fg_k``, which is substituted and evaluated here."""
    lines, depth, blocks = [], 0, []  # blocks: (depth, k) of the enclosing unrolled ones
    for line in text.split("\n"):
        found = re.match(r"\s*const fg_k: u32 = (\d+)u;", line)
        if found:
            blocks.append((depth, int(found.group(1))))
            continue
        if blocks:
            line = re.sub(r"\bfg_k\b", str(blocks[-1][1]), line)
        lines.append(line)
        depth += line.count("{") - line.count("}")
        while blocks and depth < blocks[-1][0]:
            blocks.pop()
    text = "\n".join(lines)
    declared = r"var (fg_\w+): array<(\w+), (\d+)> = array<\w+, \d+>\(\);"
    for name, dtype, count in re.findall(declared, text):

        def scalar(match, name=name) -> str:
            return f"{name}_{eval(match.group(1).replace('u', ''))}"  # noqa: S307 - digits

        text = re.sub(rf"\b{name}\[([0-9u *+]+)\]", scalar, text)
        scalars = " ".join(f"var {name}_{i}: {dtype} = {dtype}();" for i in range(int(count)))
        text = re.sub(
            rf"var {name}: array<{dtype}, {count}> = array<{dtype}, {count}>\(\);", scalars, text
        )
    return text


def without_else(text: str, marker: str) -> str:
    """``text`` with the ``else`` branch whose first line holds ``marker`` removed (the
    ``if`` before it then closes on its own); ``text`` itself where no branch has it."""
    lines = text.splitlines()
    at = next((i for i, line in enumerate(lines) if marker in line), None)
    if at is None or not lines[at - 1].rstrip().endswith("} else {"):
        return text
    depth = 1
    for end in range(at, len(lines)):
        depth += lines[end].count("{") - lines[end].count("}")
        if depth == 0:
            break
    indent = lines[at - 1][: len(lines[at - 1]) - len(lines[at - 1].lstrip())]
    return "\n".join([*lines[: at - 1], f"{indent}}}", *lines[end + 1 :]]) + "\n"


def _emit_with(kernel: KernelSpec, schedule: Schedule, target: str, name: str, value) -> str:
    """The ``target`` source of ``kernel`` emitted with ``forge.emit._rows``'s ``name``
    set to ``value`` for the call (around the emitter's cache)."""
    from forge.emit import _emit, _rows

    kept = getattr(_rows, name)
    setattr(_rows, name, value)
    try:
        return _emit.__wrapped__(kernel, schedule, target)
    finally:
        setattr(_rows, name, kept)


def _emitted_with(kernel: KernelSpec, schedule: Schedule, name: str, value) -> str | None:
    """The WGSL of ``kernel`` emitted with ``_rows``'s ``name`` set to ``value``
    (``_emit_with``); None where that is the text emitted anyway (a kernel the setting
    does not touch)."""
    text = _emit_with(kernel, schedule, "wgsl", name, value)
    return None if text == kernel.source("wgsl", schedule) else text


def _without_moments(kernel: KernelSpec, schedule: Schedule) -> str | None:
    """The WGSL of ``kernel`` with its moments level (layernorm's mean and variance in
    one reduction of (count, sum, squared deviations) partials, see forge/emit/_rows.py)
    emitted as the two levels it fuses: a tree of one sum each instead of one tree
    merging three values with a division; None for a kernel without one."""
    return _emitted_with(kernel, schedule, "_moments", lambda first, second: None)


def _one_pass_two_levels(kernel: KernelSpec, schedule: Schedule) -> str | None:
    """The WGSL of ``kernel`` with its one-pass paths' moments pair reduced as two
    levels, the shifted sum and then the squares about the mean, instead of one level
    of (count, sum, squared deviations) partials (``_rows.WGSL_ONE_PASS_MOMENTS``);
    None for a kernel without one."""
    return _emitted_with(kernel, schedule, "WGSL_ONE_PASS_MOMENTS", False)


def _half_rows(kernel: KernelSpec, schedule: Schedule, packed: bool, blocks: int = 1) -> str:
    """The CUDA C of a half row kernel with its row held ``packed`` two halves to a
    register or not (``_rows.CUDA_PACKED_HALF_ROWS``), ``blocks`` a multiprocessor asked
    for where it is packed (``_rows.CUDA_PACKED_ROW_BLOCKS``)."""
    from forge.emit import _rows

    kept = _rows.CUDA_PACKED_ROW_BLOCKS
    _rows.CUDA_PACKED_ROW_BLOCKS = blocks
    try:
        return _emit_with(kernel, schedule, "cuda", "CUDA_PACKED_HALF_ROWS", packed)
    finally:
        _rows.CUDA_PACKED_ROW_BLOCKS = kept


def _variants(text: str, cols: int, cap: int) -> dict[str, str]:
    """The wgsl-rows variants of a row kernel's ``text`` at ``cols`` columns, under a
    schedule whose registers hold ``cap``: where the row fits, also the kernel without
    the looped path (its loops are the ones naga bounds with counters besides the
    grid-stride loop), and where it fills them exactly, with that path alone."""
    variants = {
        "as emitted": text,
        "no barriers": text.replace("workgroupBarrier();", ""),
        "scalar registers": scalar_registers(text),
    }
    if cols <= cap:
        looped = without_else(text, "// looped: each level sweeps the row again")
        variants["no looped path"] = looped
        if cols == cap:
            exact = without_else(looped, f"if (fg_p.cols < {cap}u) {{")
            variants["exact fill only"] = exact
            # with the grid-stride loop an if too, naga has no loop left to bound
            variants["no loops"] = without_grid_loop(exact)
    # every chunk's `if (fg_vec_ok)` folded (cols is a multiple of 4 here): what the
    # per-chunk branches cost; and the per-column vectors (gamma, beta, w: ones in these
    # probes) not loaded at all: what their loads cost (the outputs stay the same)
    variants["vec known"] = re.sub(
        r"let fg_vec_ok: bool = [^;]*;", "let fg_vec_ok: bool = true;", text, count=1
    )
    variants["no column loads"] = re.sub(
        r"let fg_q: vec4<f32> = \w+\[\(fg_c\d+\) / 4u\];",
        "let fg_q: vec4<f32> = vec4<f32>(1.0f);",
        variants["vec known"],
    )
    # the path chosen by a pipeline constant (a pipeline per row length): the driver
    # sees the branches not taken as dead code, as in the variants above
    chosen = text.replace(f"if (fg_p.cols == {cap}u) {{", f"if (fg_cols == {cap}u) {{")
    chosen = chosen.replace(f"if (fg_p.cols < {cap}u) {{", f"if (fg_cols < {cap}u) {{")
    variants["cols as override"] = chosen.replace(
        "struct fg_Params {", "override fg_cols: u32;\n\nstruct fg_Params {", 1
    )
    variants["override, no grid"] = without_grid_loop(variants["cols as override"])
    return variants


def without_grid_loop(text: str) -> str:
    """``text`` with its grid-stride loop over blocks of rows written as an ``if`` (the
    probes dispatch a workgroup per block, so it never iterates twice)."""
    return re.sub(
        r"for \(var fg_blk: u32 = (.*); fg_blk < (\w+); fg_blk \+= .*\) \{",
        r"let fg_blk: u32 = \1;\n    if (fg_blk < \2) {",
        text,
        count=1,
    )


#: the bench's memory topology: read-only views in one slab, read-write in another
_TOPOLOGY = MemoryTopology.split_by_usage(read=1000, read_write=1000, resident=1)


def _rows_kernels(rows: int, cols: int) -> list[tuple[str, KernelSpec]]:
    x = ir.input("x")
    floor = ir.kernel("rows_scale", ir.rows(y=x * 2.0))
    named = [("y = 2x", floor)] + [
        (n, forge.get_kernel(n)) for n in ("rmsnorm", "softmax", "layernorm")
    ]
    return [(name, ir.with_shape(kernel, rows=rows)) for name, kernel in named]


def _rows_input(rows: int, cols: int) -> np.ndarray:
    return np.random.default_rng(1).uniform(-4, 4, rows * cols).astype(np.float32)


def _rows_context(x: np.ndarray, **options):
    """A wgpu context sized for the row probes' x, y and their per-column vectors."""
    capacity = 4 * x.nbytes + (64 << 20)
    return forge.open_context("wgpu", capacity_bytes=capacity, topology=_TOPOLOGY, **options)


def _bound_rows(ctx, x: np.ndarray, rows: int, cols: int):
    """(name, kernel, views) of each row probe kernel on ``x``, one at a time (each
    kernel's views replace the previous one's); per-column vectors are ones."""
    for name, kernel in _rows_kernels(rows, cols):
        ctx.clear_transient_allocations()
        data = {s.name: x if s.name == "x" else np.ones(cols, np.float32) for s in kernel.inputs}
        yield name, kernel, bind_views(ctx, kernel, cols, data)


def wgsl_rows(
    rows: int, cols: int, schedules: list[Schedule], checks: bool | str, only: Sequence[str] = ()
) -> None:
    x = _rows_input(rows, cols)
    # the variants are hand-written WGSL to the context: "auto" would give them every
    # check, so the probe names the checks it runs them under
    with _rows_context(x, shader_checks=checks) as ctx:
        print(
            f"{ctx.adapter.name}, {rows} x {cols} f32, GB/s of one read + one write, "
            f"shader_checks={checks!r}"
        )
        for name, kernel, views in _bound_rows(ctx, x, rows, cols):
            for schedule in schedules:
                want = None
                cap = (
                    schedule.workgroup_size[0]
                    * schedule.items_per_invocation
                    * schedule.vector_width
                )
                variants = _variants(kernel.source("wgsl", schedule), cols, cap)
                fused = _without_moments(kernel, schedule)
                if fused is not None:
                    variants["two levels"] = fused
                split = _one_pass_two_levels(kernel, schedule)
                if split is not None:
                    variants["one-pass two levels"] = split
                if only:
                    variants = {k: t for k, t in variants.items() if k in only}
                for variant, text in variants.items():
                    raw = KernelSpec(
                        id=f"{kernel.id}_probe",
                        entry_point=kernel.entry_point,
                        buffers=kernel.buffers,
                        sources={"wgsl": text},
                        grid=(rows, 1, 1),
                        schedules=(schedule,),
                        requires=frozenset({"subgroups"} if schedule.subgroups else ()),
                        overrides={"fg_cols": cols} if "override fg_cols" in text else {},
                    )
                    timed = device_seconds(ctx, raw, views, cols, _WARM)(schedule)
                    got = ctx.read_buffer_f32(views[output_index(kernel)])
                    want = got.copy() if want is None else want
                    apart = np.abs(got - want).max() / np.abs(want).max()
                    same = "same output" if apart == 0 else f"differs, {apart:.1e} of max |y|"
                    gbps = 2 * x.nbytes / timed / 1e9
                    print(
                        f"{name:10s} {str(schedule):28s} {variant:17s} {gbps:7.0f}  {same}",
                        flush=True,
                    )


def row_means(backend: str, schedules: list[Schedule]) -> None:
    from tests.test_emit_rows import _adversarial_rows  # the rows the failing test uses

    x = ir.input("x")
    cols_f32 = ir.dim("cols", "f32")
    mean = ir.row_sum(x) / cols_f32
    moments = ir.kernel(
        "moments_probe",
        ir.rows(
            layouts={"m": "rows", "v": "rows"},
            m=mean,
            v=ir.row_sum((x - mean) * (x - mean)) / cols_f32,
        ),
    )
    with forge.open_context(backend) as ctx:
        print(ctx.adapter.name)
        for cols in (100, 1001, 4099):
            data = _adversarial_rows(cols)
            rows = data["x"].size // cols
            kernel = ir.with_shape(moments, rows=rows)
            exact = data["x"].reshape(rows, cols).astype(np.float64).mean(axis=1).astype(np.float32)
            first = None
            for schedule in schedules:
                ctx.clear_transient_allocations()
                views = bind_views(ctx, kernel, cols, {"x": data["x"]})
                ctx.run_kernel(kernel, schedule, views, cols)
                got = np.stack([ctx.read_buffer_f32(views[i])[:rows] for i in (1, 2)])
                first = got if first is None else first
                bits = got.view(np.int32).astype(np.int64)
                apart = np.abs(bits - first.view(np.int32).astype(np.int64))
                off = np.abs(bits[0] - exact.view(np.int32).astype(np.int64))
                print(
                    f"cols {cols:5d} {str(schedule):28s} mean: rows apart from the first "
                    f"{np.nonzero(apart[0])[0].tolist()} (most {apart[0].max()} ulp), from "
                    f"float64 most {off.max()} ulp; variance rows apart "
                    f"{np.count_nonzero(apart[1])}",
                    flush=True,
                )


def tf32_rounding(size: int) -> None:
    from forge.emit import _wgmma
    from forge.kernels.linalg import WGMMA_TF32_SCHEDULES

    kernel = forge.get_kernel("gemm_tf32_nt")
    a, b = host_array(size * size, seed=30), host_array(size * size, seed=31)
    with forge.open_context("cuda") as ctx:
        c = np.zeros(size * size, np.float32)
        views = bind_views(ctx, kernel, size, {"a": a, "b": b, "c": c}, alpha=1.0, beta=0.0)
        rounded = device_seconds(ctx, kernel, views, size, _WARM)
        for schedule in WGMMA_TF32_SCHEDULES:
            print(
                f"rounded   {schedule}  {2 * size**3 / rounded(schedule) / 1e12:6.1f} TFLOP/s",
                flush=True,
            )
        keep = _wgmma._WgmmaLowering._round_stage
        _wgmma._WgmmaLowering._round_stage = lambda self: None  # type: ignore[method-assign]
        try:
            bare = dataclasses.replace(kernel, id="gemm_tf32_nt_unrounded")
            unrounded = device_seconds(ctx, bare, views, size, _WARM)
            for schedule in WGMMA_TF32_SCHEDULES[:2]:
                tflops = 2 * size**3 / unrounded(schedule) / 1e12
                print(f"unrounded {schedule}  {tflops:6.1f} TFLOP/s", flush=True)
        finally:
            _wgmma._WgmmaLowering._round_stage = keep  # type: ignore[method-assign]


_GEMM_ROWS = 64  # rows of c checked against float64 after each timed schedule


def _gemm_problem(size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The probes' a and b (``size`` squared, float32) and the first rows of a @ b."""
    a, b = host_array(size * size, seed=30), host_array(size * size, seed=31)
    a64, b64 = a.reshape(size, size).astype(np.float64), b.reshape(size, size).astype(np.float64)
    return a, b, (a64[:_GEMM_ROWS] @ b64).reshape(-1)


def _gemm_context(backend: str, size: int, **options):
    """A context sized for a, b and c of a ``size``-cubed gemm (a and b in the read slab
    on wgpu, which holds half of the capacity)."""
    capacity = 6 * size * size * 4 + (64 << 20)
    options.update({"topology": _TOPOLOGY} if backend == "wgpu" else {})
    return forge.open_context(backend, capacity_bytes=capacity, **options)


def _gemm_measure(ctx, seconds, out, schedule: Schedule, size: int, want) -> tuple[float, float]:
    """(TFLOP/s, max rel err of the first rows of c against ``want``) of one schedule;
    c is set to NaN first, so a schedule that writes nothing cannot pass."""
    ctx.write_view(out, np.full(size * size, np.nan, np.float32))
    tflops = 2 * size**3 / seconds(schedule) / 1e12
    got = ctx.read_buffer_f32(out)[: _GEMM_ROWS * size]
    return tflops, float(np.abs(got - want).max() / np.abs(want).max())


def wgsl_gemm_schedules(constraints) -> list[Schedule]:
    """Every unrolled schedule of ``GEMM_TUNABLES`` the adapter admits: wgsl-gemm's sweep."""
    from forge.kernels.linalg import GEMM_TUNABLES

    kernel = forge.get_kernel("gemm")
    tiles = [tile for tile in GEMM_TUNABLES["tile"] if isinstance(tile, tuple)]
    found = []
    for wg, tile in itertools.product(GEMM_TUNABLES["wg"], tiles):
        schedule = Schedule(wg, vector_width=4, tile=tile, unroll=True)
        try:
            forge.emit.check(kernel, schedule, "wgsl", constraints)
        except forge.UnsupportedFeature:
            continue
        found.append(schedule)
    return found


def wgsl_gemm(size: int, given: Sequence[Schedule] = ()) -> None:
    """``gemm`` at ``size``^3 on wgpu under each of ``given``, or the whole sweep."""
    kernel = forge.get_kernel("gemm")
    a, b, want = _gemm_problem(size)
    with _gemm_context("wgpu", size) as ctx:
        print(f"{ctx.adapter.name}, gemm {size}^3 f32, TFLOP/s", flush=True)
        c = np.zeros(size * size, np.float32)
        views = bind_views(ctx, kernel, size, {"a": a, "b": b, "c": c}, alpha=1.0, beta=0.0)
        seconds = device_seconds(
            ctx, kernel, views, size, types.SimpleNamespace(warmups=5, warm_seconds=0.0, samples=10)
        )
        found = []
        for schedule in given or wgsl_gemm_schedules(ctx.constraints):
            out = views[output_index(kernel)]
            tflops, error = _gemm_measure(ctx, seconds, out, schedule, size, want)
            found.append((tflops, str(schedule), error))
            print(f"{str(schedule):50s} {tflops:6.1f}  max rel err {error:.1e}", flush=True)
        print("fastest last:")
        for tflops, text, error in sorted(found)[-8:]:
            print(f"{text:50s} {tflops:6.1f}  max rel err {error:.1e}")


def gemm_stores(size: int, schedules: dict[str, list[Schedule]]) -> None:
    from forge.emit import _matmul

    lowering = _matmul._MatmulLowering
    emitted = lowering._slot_coordinates

    def rows_across(self, name: str, slot: str) -> tuple[str, str]:
        # A's (k-contiguous) slots taken along the tile's rows first: a warp loads one
        # 16-byte chunk of 32 rows, and its stores of each lane into the transposed
        # tile fall in 32 banks
        contiguous, outer, _, _ = self._tile(name)
        if contiguous != "k":
            return emitted(self, name, slot)
        return f"{slot} % {outer}u", f"{slot} / {outer}u * {self.v}u"

    kernel = forge.get_kernel("gemm")
    a, b, want = _gemm_problem(size)
    for backend, listed in schedules.items():
        if not forge.available_backends().get(backend, (False, ""))[0]:
            print(f"{backend}: not available here")
            continue
        with _gemm_context(backend, size) as ctx:
            print(f"{backend} ({ctx.adapter.name}), gemm {size}^3 f32, TFLOP/s", flush=True)
            c = np.zeros(size * size, np.float32)
            views = bind_views(ctx, kernel, size, {"a": a, "b": b, "c": c}, alpha=1.0, beta=0.0)
            out = views[output_index(kernel)]
            for variant in ("emitted", "rows-across"):
                across = variant == "rows-across"
                # another id: the compiled pipelines of the two variants are kept apart
                probe = dataclasses.replace(kernel, id="gemm_rows_across") if across else kernel
                if across:
                    lowering._slot_coordinates = rows_across  # type: ignore[method-assign]
                try:
                    seconds = device_seconds(ctx, probe, views, size, _WARM)
                    for schedule in listed:
                        tflops, error = _gemm_measure(ctx, seconds, out, schedule, size, want)
                        print(
                            f"{variant:12s} {str(schedule):50s} {tflops:6.1f}  "
                            f"max rel err {error:.1e}",
                            flush=True,
                        )
                finally:
                    lowering._slot_coordinates = emitted  # type: ignore[method-assign]


#: wgsl-checks' contexts (``WgpuComputeContext``'s ``shader_checks``): every
#: one, naga's clamp of each array index alone, its counter bounding each loop alone, none
_RUNTIME_CHECKS: dict[str, bool | str] = {
    "on": True,
    "bounds": "bounds",
    "loops": "loops",
    "off": False,
}


def _gemm_checks(size: int, gemm: list[Schedule]) -> None:
    kernel = forge.get_kernel("gemm")
    a, b, want = _gemm_problem(size)
    with contextlib.ExitStack() as stack:
        contexts = [
            (stack.enter_context(_gemm_context("wgpu", size, shader_checks=c)), state)
            for state, c in _RUNTIME_CHECKS.items()
        ]
        print(f"{contexts[0][0].adapter.name}, gemm {size}^3 f32, TFLOP/s", flush=True)
        for schedule in gemm:
            first = None
            for ctx, state in contexts:
                c = np.zeros(size * size, np.float32)
                data = {"a": a, "b": b, "c": c}
                views = bind_views(ctx, kernel, size, data, alpha=1.0, beta=0.0)
                out = views[output_index(kernel)]
                seconds = device_seconds(ctx, kernel, views, size, _WARM)
                tflops, error = _gemm_measure(ctx, seconds, out, schedule, size, want)
                got = ctx.read_buffer_f32(out)
                first = got if first is None else first
                same = "same output" if np.array_equal(got, first) else "differs"
                print(
                    f"{str(schedule):48s} checks {state:7s} {tflops:6.1f}  "
                    f"max rel err {error:.1e}  {same}",
                    flush=True,
                )
                ctx.clear_transient_allocations()


def wgsl_checks(size: int, rows: int, cols: int, gemm: list[Schedule], row: list[Schedule]) -> None:
    if size > 0:  # --size 0: the row kernels only
        _gemm_checks(size, gemm)
    x = _rows_input(rows, cols)
    print(f"{rows} x {cols} f32, GB/s of one read + one write", flush=True)
    for state, checks in _RUNTIME_CHECKS.items():
        with _rows_context(x, shader_checks=checks) as ctx:
            for name, kernel, views in _bound_rows(ctx, x, rows, cols):
                for schedule in row:
                    timed = device_seconds(ctx, kernel, views, cols, _WARM)(schedule)
                    gbps = 2 * x.nbytes / timed / 1e9
                    print(
                        f"{name:10s} {str(schedule):28s} checks {state:7s} {gbps:7.0f}", flush=True
                    )


#: Abramowitz and Stegun 7.1.26: erf within 1.5e-7 (absolute) of the true value, with
#: one reciprocal and one exp where CUDA's erff evaluates a polynomial per branch
_ERF_AS = """__device__ __forceinline__ float fg_erf_as(float x) {
    const float a = fabsf(x);
    const float t = __fdividef(1.0f, fmaf(0.3275911f, a, 1.0f));
    float p = fmaf(1.061405429f, t, -1.453152027f);
    p = fmaf(p, t, 1.421413741f);
    p = fmaf(p, t, -0.284496736f);
    p = fmaf(p, t, 0.254829592f);
    return copysignf(1.0f - p * t * __expf(-a * a), x);
}
"""


# gelu's ``1 + erf(u)`` as each target emits it: for f32 outputs the erf, then the sum
# (which cancels where erf ~ -1); for f16 and bf16 outputs one call of fg_one_plus_erf
_ONE_PLUS_ERF = {
    "cuda": re.compile(
        r"const float (fg_t\d+) = erff\((fg_t\d+)\);[^\n]*\n(\s*)"
        r"const float (fg_t\d+) = \(1\.0f \+ \1\);"
        r"|fg_one_plus_erf\((fg_t\d+)\)"
    ),
    "wgsl": re.compile(
        r"let (fg_t\d+): f32 = fg_erf_f32\((fg_t\d+)\);[^\n]*\n(\s*)"
        r"let (fg_t\d+): f32 = \(1\.0f \+ \1\);"
        r"|fg_one_plus_erf\((fg_t\d+)\)"
    ),
}


def _one_plus_erf_as(spell: Callable[[str], str], helper: str = "", target: str = "cuda"):
    """A twin whose gelu writes ``1 + erf(u)`` as ``spell(u)``, with ``helper`` defined."""
    let = "const float {} = {};" if target == "cuda" else "let {}: f32 = {};"

    def replace(found: re.Match) -> str:
        if found.group(5):
            return spell(found.group(5))
        return found.group(3) + let.format(found.group(4), spell(found.group(2)))

    def make(text: str) -> str:
        twin, count = _ONE_PLUS_ERF[target].subn(replace, text)
        assert count, "no 1 + erf(u) found"
        if helper in twin:
            return twin
        if target == "cuda":
            return helper + twin
        head, entry = twin.split("\n@compute", 1)  # WGSL: enable directives come first
        return f"{head}\n{helper}\n@compute{entry}"

    return make


def _fast_exp(text: str) -> str:
    return re.sub(r"(?<![\w])expf\(", "__expf(", text)


#: a half kernel's register array of the row (``fg_v_x``), as CUDA C declares it
_HALF_REGISTERS = re.compile(r"\b(?:__nv_bfloat16|__half) (fg_v_\w+)\[")


def _float_registers(text: str) -> str:
    """The row's register arrays of a half kernel as float (each value converted once
    as it is loaded) instead of ``__nv_bfloat16``/``__half`` (converted in every sweep):
    ptxas (NVRTC 13.5, sm_90) spilled 88/176 bytes of layernorm_bf16 at
    ``wg=512,ipt=16,vec=4`` with the half arrays and none with float ones."""
    twin = _HALF_REGISTERS.sub(r"float \1[", text)
    assert twin != text, "no half register array"
    return twin


_ERFC_NR = one_plus_erf("cuda")  # Numerical Recipes' erfcc, as f16 and bf16 gelu emit it


@dataclasses.dataclass(frozen=True)
class _Setting:
    """A twin emitted by ``_half_rows``, then changed by ``then`` (if given)."""

    packed: bool
    blocks: int = 1
    then: Callable[[str], str] | None = None

    def emit(self, kernel: KernelSpec, schedule: Schedule) -> str:
        text = _half_rows(kernel, schedule, self.packed, self.blocks)
        return self.then(text) if self.then else text


#: the half row kernels' row one half to a register, as ptxas gives an array of
#: halves (the emission until 2026-12-07), and packed with room asked for two blocks
_UNPACKED = ("unpacked", _Setting(False))
_TWO_BLOCKS = ("packed, 2 blocks", _Setting(True, 2))
#: unpacked, the row's register arrays float (each value converted once, as it loads)
_F32_REGISTERS = ("f32 registers", _Setting(False, then=_float_registers))

#: one-pass schedules of a 32768-column row (P11's winners among them)
_ONE_PASS = (
    Schedule((256, 1), items_per_invocation=32, vector_width=4),
    Schedule((512, 1), items_per_invocation=16, vector_width=4),
    Schedule((1024, 1), items_per_invocation=8, vector_width=4),
    Schedule((512, 1), items_per_invocation=8, vector_width=8),
)

#: (kernels, rows-shaped, the twins (name, how the CUDA text is made), default schedules)
_HALF_FAMILIES = (
    (
        ("softmax_bf16", "softmax_f16", "softmax"),
        True,
        (("__expf", _fast_exp), _UNPACKED),
        (
            Schedule((1024, 1), items_per_invocation=8, vector_width=4),
            Schedule((1024, 1), items_per_invocation=4, vector_width=8),
            Schedule((512, 1), items_per_invocation=16, vector_width=4),
            Schedule((256, 1), items_per_invocation=4, vector_width=8),
        ),
    ),
    (
        ("layernorm_bf16", "rmsnorm_bf16"),
        True,
        (_UNPACKED, _F32_REGISTERS, _TWO_BLOCKS),
        _ONE_PASS,
    ),
    (
        ("gelu_bf16", "gelu_f16", "gelu"),
        False,
        (
            ("1 + erff(u)", _one_plus_erf_as(lambda u: f"(1.0f + erff({u}))")),
            ("A&S erf", _one_plus_erf_as(lambda u: f"(1.0f + fg_erf_as({u}))", _ERF_AS)),
            ("erfcf(-u)", _one_plus_erf_as(lambda u: f"erfcf(-{u})")),
            ("NR erfc(-u)", _one_plus_erf_as(lambda u: f"fg_one_plus_erf({u})", _ERFC_NR)),
        ),
        (
            Schedule((256, 1), items_per_invocation=2, vector_width=8, max_workgroups=4224),
            Schedule((256, 1), items_per_invocation=4, vector_width=8),
            Schedule((256, 1), items_per_invocation=4, vector_width=4),
            Schedule((256, 1), items_per_invocation=2, vector_width=4, max_workgroups=4224),
        ),
    ),
)


#: the same for WGSL on wgpu: gelu of f16 (where the adapter has shader-f16) and f32
_WGSL_HALF_FAMILIES = (
    (
        ("gelu_f16", "gelu"),
        False,
        (
            (
                "1 + erf(u)",
                _one_plus_erf_as(lambda u: f"(1.0f + fg_erf_f32({u}))", wgsl_helper("erf"), "wgsl"),
            ),
            (
                "NR erfc(-u)",
                _one_plus_erf_as(lambda u: f"fg_one_plus_erf({u})", one_plus_erf("wgsl"), "wgsl"),
            ),
        ),
        (
            Schedule((256, 1), items_per_invocation=4, vector_width=4),
            Schedule((1024, 1), items_per_invocation=2, vector_width=4, max_workgroups=1056),
        ),
    ),
)


def _values(ctx, view, dtype, count: int) -> np.ndarray:
    """The first ``count`` elements of an output view of ``dtype``, as float64."""
    raw = ctx.read_buffer_f32(view).view(np.uint32)
    return raw.view(dtype)[:count].astype(np.float64)


def _gelu_ulps(x: np.ndarray, dtype) -> Callable[[np.ndarray], float]:
    """A measure of an output ``got`` of gelu of ``x`` (its first elements): its largest
    error from gelu in float64, in ulps of ``dtype`` (``eps * |exact|``) at the exact value."""
    x = x.astype(dtype).astype(np.float64)
    exact = 0.5 * x * np.where(x < 0, erfc64(-x / np.sqrt(2)), 1 + erf64(x / np.sqrt(2)))
    info = ml_dtypes.finfo(dtype)  # numpy's finfo knows no bfloat16
    ulp = np.maximum(np.abs(exact), float(info.smallest_normal)) * float(info.eps)
    return lambda got: float(np.max(np.abs(got[: x.size] - exact) / ulp))


def _half_context(backend: str, elements: int):
    capacity = 6 * elements * 4 + (64 << 20)
    if backend == "cuda":
        from backends.cuda import CudaComputeContext  # the simulated driver's too, in tests

        return CudaComputeContext(capacity)
    return forge.open_context(backend, capacity_bytes=capacity, topology=_TOPOLOGY)


def half_twins(
    backend: str, families, rows: int, cols: int, given: list[Schedule], only: list[str]
) -> None:
    """``cuda-half`` (``families``: ``_HALF_FAMILIES``) and ``wgsl-half`` on ``backend``."""
    twins: dict[str, Callable[[str], str] | _Setting] = {}  # a twin's kernel id: how it is made
    body_type = type(forge.get_kernel("softmax_bf16").body)
    emitted = body_type.source

    def source(self, kernel, target, schedule, size):
        make = twins.get(kernel.id)
        if isinstance(make, _Setting):
            return make.emit(kernel, schedule)
        text = emitted(self, kernel, target, schedule, size)
        return make(text) if make else text

    rng = np.random.default_rng(1)
    x = rng.normal(0, 2, rows * cols)
    body_type.source = source
    try:
        with _half_context(backend, rows * cols) as ctx:
            print(f"{ctx.adapter.name}, {rows} x {cols}, GB/s of one read + one write")
            for names, shaped, made, defaults in families:
                for name in (n for n in names if not only or n in only):
                    kernel = forge.get_kernel(name)
                    kernel = ir.with_shape(kernel, rows=rows) if shaped else kernel
                    size = cols if shaped else rows * cols
                    dtype = kernel.buffers[0].dtype
                    data = {  # per-column weights (layernorm, rmsnorm) are ones
                        b.name: x.astype(dtype) if b.name == "x" else np.ones(cols, b.dtype)
                        for b in kernel.inputs
                    }
                    ulps = _gelu_ulps(x[: 1 << 20], dtype) if name.startswith("gelu") else None
                    ctx.clear_transient_allocations()
                    views = bind_views(ctx, kernel, size, data)
                    out = views[output_index(kernel)]
                    variants = [("as emitted", kernel)]
                    for i, (twin, make) in enumerate(made):
                        variants.append((twin, dataclasses.replace(kernel, id=f"{name}_twin{i}")))
                        twins[variants[-1][1].id] = make
                    for schedule in given or defaults:
                        first = None
                        for variant, probe in variants:
                            try:
                                timed = device_seconds(ctx, probe, views, size, _WARM)(schedule)
                            except forge.UnsupportedFeature as exc:
                                print(f"{name:13s} {str(schedule):34s} refused: {exc}")
                                break
                            got = _values(ctx, out, dtype, rows * cols)
                            first = got if first is None else first
                            apart = np.abs(got - first).max() / np.abs(first).max()
                            gbps = 2 * data["x"].nbytes / timed / 1e9
                            exact = f"{ulps(got):8.3g} ulps from exact, " if ulps else ""
                            print(
                                f"{name:13s} {str(schedule):34s} {variant:16s} {gbps:7.0f}  "
                                f"{exact}{apart:.1e} of the largest |y| from as emitted",
                                flush=True,
                            )
    finally:
        body_type.source = emitted


def cuda_resources(given: list[Schedule], only: list[str]) -> None:
    """ptxas's registers and spills of the half row kernels (and any ``--kernel``) as
    emitted (the row packed two halves to a register), unpacked, unpacked in float
    registers, and packed with two blocks a multiprocessor asked for, through this
    machine's NVRTC (no GPU needed)."""
    # a cubin from the CUDA compute cache comes with no ptxas report (NVRTC 13.0);
    # read when NVRTC first compiles in this process
    os.environ.setdefault("CUDA_CACHE_DISABLE", "1")
    from backends.cuda import nvrtc_version, ptxas_report

    print(f"NVRTC {nvrtc_version()}, sm_90: registers, spill stores/loads in bytes")
    names = only or ["layernorm_bf16", "rmsnorm_bf16", "softmax_bf16", "layernorm"]
    for name in names:
        kernel = forge.get_kernel(name)
        for schedule in given or _ONE_PASS:
            try:
                emitted = kernel.source("cuda", schedule)
            except forge.UnsupportedFeature as exc:
                print(f"{name:15s} {str(schedule):24s} refused: {exc}")
                continue
            texts = [("as emitted", emitted)]
            unpacked = _half_rows(kernel, schedule, packed=False)
            if unpacked != emitted:
                for variant, made in (_UNPACKED, _F32_REGISTERS, _TWO_BLOCKS):
                    texts.append((variant, made.emit(kernel, schedule)))
            for variant, text in texts:
                report = ptxas_report(text, kernel.entry_point)
                used = re.search(r"Used (\d+) registers", report)
                spills = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", report)
                print(
                    f"{name:15s} {str(schedule):24s} {variant:16s} "
                    f"{used[1] if used else '?':>4s} registers, "
                    f"{'/'.join(spills.groups()) if spills else '?'} spilled",
                    flush=True,
                )
                if not used:
                    print("    " + report.strip().splitlines()[-1], flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.probes", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "name",
        choices=(
            "wgsl-rows",
            "row-means",
            "tf32-rounding",
            "wgsl-gemm",
            "gemm-stores",
            "wgsl-checks",
            "cuda-half",
            "wgsl-half",
            "cuda-resources",
        ),
    )
    parser.add_argument("--rows", type=int, default=4096)
    parser.add_argument("--cols", type=int, default=32768)
    parser.add_argument(
        "--size", type=int, default=4096, help="tf32-rounding's and wgsl-gemm's m = n = k"
    )
    parser.add_argument("--backend", default="wgpu", help="row-means' backend")
    parser.add_argument(
        "--checks",
        choices=tuple(_RUNTIME_CHECKS),
        default="on",
        help="wgsl-rows: which of naga's runtime checks every module keeps (default on: all)",
    )
    parser.add_argument("--schedule", action="append", default=[], help="a schedule's text; repeat")
    parser.add_argument(
        "--kernel",
        action="append",
        default=[],
        help="cuda-half, wgsl-half and cuda-resources: this kernel only; repeat",
    )
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        help='wgsl-rows: time this variant only ("as emitted", "two levels", ...); repeat',
    )
    parser.add_argument(
        "--warm-seconds",
        type=float,
        default=0.3,
        help="device seconds of warm-up dispatches before each figure (default 0.3)",
    )
    args = parser.parse_args(argv)
    _WARM.warm_seconds = args.warm_seconds
    given = [Schedule.parse(text) for text in args.schedule]
    if args.name == "wgsl-rows":
        wgsl_rows(
            args.rows,
            args.cols,
            given
            or [
                Schedule((1024, 1), items_per_invocation=8, vector_width=4),
                Schedule((256, 1), items_per_invocation=4, vector_width=4),
                Schedule((256, 1), items_per_invocation=4, vector_width=4, subgroups=True),
            ],
            _RUNTIME_CHECKS[args.checks],
            args.variant,
        )
    elif args.name == "row-means":
        row_means(
            args.backend,
            given
            or [
                Schedule((256, 1), items_per_invocation=4, vector_width=4),
                Schedule((256, 1), items_per_invocation=4, vector_width=4, subgroups=True),
                Schedule((32, 1), items_per_invocation=4, vector_width=4, subgroups=True),
                Schedule((64, 2), items_per_invocation=2, vector_width=4),
            ],
        )
    elif args.name == "wgsl-gemm":
        wgsl_gemm(args.size, given)
    elif args.name == "cuda-half":
        half_twins("cuda", _HALF_FAMILIES, args.rows, args.cols, given, args.kernel)
    elif args.name == "cuda-resources":
        cuda_resources(given, args.kernel)
    elif args.name == "wgsl-half":
        half_twins("wgpu", _WGSL_HALF_FAMILIES, args.rows, args.cols, given, args.kernel)
    elif args.name == "wgsl-checks":
        from bench._wgpu_gemm import WGSL_GEMM_SCHEDULES

        wgsl_checks(
            args.size,
            args.rows,
            args.cols,
            [WGSL_GEMM_SCHEDULES[i] for i in (8, 7, 0)],
            given
            or [
                Schedule((1024, 1), items_per_invocation=8, vector_width=4),
                Schedule((512, 1), items_per_invocation=16, vector_width=4),
                Schedule((256, 1), items_per_invocation=4, vector_width=4),
            ],
        )
    elif args.name == "gemm-stores":
        from bench._wgpu_gemm import WGSL_GEMM_SCHEDULES

        cuda = [
            Schedule((16, 16), vector_width=4, tile=t)
            for t in ((128, 256, 8, 2), (128, 128, 8, 2), (128, 128, 16))
        ]
        gemm_stores(
            args.size, {"wgpu": given or list(WGSL_GEMM_SCHEDULES[7:11]), "cuda": given or cuda}
        )
    else:
        tf32_rounding(args.size)
    return 0


if __name__ == "__main__":
    sys.exit(main())

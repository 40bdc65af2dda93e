"""The figures of ``kforge report`` about speed: a roofline per adapter against its
measured ceilings, the tuning landscape and convergence of ``kforge tune`` runs, and
the bench's rows against their baselines."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from forge.errors import InvalidArgument
from oracle import format_duration

from ._report_data import (
    Ceilings,
    EvalRecord,
    ReportData,
    TuneRecord,
    adapter_name,
    candidate_key,
    candidate_median,
)
from ._report_figures import FigureOut, join_names, new_figure

__all__ = [
    "roofline_figures",
    "tuning_figures",
    "convergence_figures",
    "bench_figures",
    "schedule_params",
]

_FAILED = ("wrong", "error", "lost", "timeout", "crashed")
_STATUS_MARK = {"pruned": "refused"}


# -- roofline ------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Point:
    """A kernel's achieved rates on one backend and adapter at one size."""

    kernel: str
    size: str
    schedule: str
    median_ns: float
    bytes_moved: int
    flops: int
    run: str

    @property
    def gbps(self) -> float:
        return self.bytes_moved / self.median_ns

    @property
    def gflops(self) -> float:
        return self.flops / self.median_ns

    @property
    def intensity(self) -> float:
        return self.flops / self.bytes_moved


def _largest_timed(evs: list[EvalRecord]) -> dict[tuple, EvalRecord]:
    """Per (backend, adapter, kernel), the timed evaluation at the largest size that
    declares its bytes: the one that says most about speed."""
    chosen: dict[tuple, EvalRecord] = {}
    for ev in evs:
        if ev.median_ns is None or not ev.bytes_moved:
            continue
        key = (ev.backend, ev.adapter, ev.kernel)
        if key not in chosen or ev.elements > chosen[key].elements:
            chosen[key] = ev
    return chosen


def _tuned_point(tune: TuneRecord) -> _Point | None:
    best = tune.chosen()
    if not best:
        return None
    median = candidate_median(best)
    if not (median and tune.bytes_moved):
        return None
    return _Point(
        f"{tune.kernel} (tuned)",
        tune.size,
        candidate_key(best),
        median,
        tune.bytes_moved,
        tune.flops or 0,
        tune.run,
    )


def _bench_points(data: ReportData) -> list[tuple[tuple[str, str], _Point]]:
    """Bench rows that say what they timed (``raw["work"]``: kernel, backend, size,
    bytes_moved, flops, median_ns), placed on the adapter the bench names."""
    found = []
    for run in data.bench_runs:
        meta = run.bench_meta
        adapters = {
            "cuda": adapter_name(meta.get("cuda_device")),
            "wgpu": adapter_name(meta.get("wgpu_adapter")),
        }
        for row in run.bench_rows:
            work = (row.get("raw") or {}).get("work")
            if not (isinstance(work, dict) and work.get("median_ns") and work.get("bytes_moved")):
                continue
            backend = str(work.get("backend", "?"))
            found.append(
                (
                    (backend, adapters.get(backend, "unknown adapter")),
                    _Point(
                        f"{work.get('kernel', '?')} ({row.get('target')})",
                        str(work.get("size", "?")),
                        str(work.get("schedule", "")),
                        float(work["median_ns"]),
                        int(work["bytes_moved"]),
                        int(work.get("flops") or 0),
                        run.label,
                    ),
                )
            )
    return found


def _roofline_points(data: ReportData) -> dict[tuple[str, str], list[_Point]]:
    points: dict[tuple[str, str], list[_Point]] = {}
    for (backend, adapter, kernel), ev in _largest_timed(data.evaluations).items():
        median, moved = ev.median_ns, ev.bytes_moved
        assert median is not None and moved is not None  # what _largest_timed keeps
        points.setdefault((backend, adapter), []).append(
            _Point(kernel, ev.size, ev.schedule, median, moved, ev.flops or 0, ev.run)
        )
    for tune in data.tunes:
        point = _tuned_point(tune)
        if point is not None:
            points.setdefault((tune.backend, tune.adapter), []).append(point)
    for key, point in _bench_points(data):
        points.setdefault(key, []).append(point)
    return points


def _roofs(ax, ceilings: Ceilings | None, low: float, high: float) -> list[str]:
    """Draw the measured roofs over intensities [low, high]; return them as text."""
    copy = ceilings.value("copy") if ceilings is not None else None
    if ceilings is None or copy is None:
        return []
    xs = np.logspace(math.log10(low), math.log10(high), 200)
    said = [f"copy {copy:.4g} GB/s"]
    styles = [("fp32-fma", "-", "#212121")] + [
        (n, "--", c)
        for n, c in (
            ("tensor-tf32", "#6a1b9a"),
            ("tensor-bf16", "#00838f"),
            ("tensor-f16", "#ef6c00"),
        )
    ]
    for name, style, colour in styles:
        peak = ceilings.value(name)
        if peak is None:
            continue
        ax.plot(
            xs,
            np.minimum(copy * xs, peak),
            style,
            color=colour,
            linewidth=1.2,
            label=f"{name} {peak:.4g} GFLOP/s",
        )
        said.append(f"{name} {peak:.4g} GFLOP/s")
    if len(said) == 1:
        ax.plot(xs, copy * xs, "-", color="#212121", linewidth=1.2, label=said[0])
    return said


def _roofline_table(points: list[_Point], ceilings: Ceilings | None) -> tuple[list, list]:
    copy = ceilings.value("copy") if ceilings else None
    rows = [
        [
            p.kernel,
            p.size,
            p.schedule,
            format_duration(p.median_ns),
            f"{p.gbps:.4g}",
            f"{p.gflops:.4g}",
            f"{p.intensity:.3g}",
            f"{100 * p.gbps / copy:.1f} %" if copy else "-",
            p.run,
        ]
        for p in points
    ]
    return (
        [
            "kernel",
            "size",
            "schedule",
            "median",
            "GB/s",
            "GFLOP/s",
            "FLOP/byte",
            "of copy bandwidth",
            "run",
        ],
        rows,
    )


def _roofline_figure(
    key: tuple[str, str], points: list[_Point], ceilings: Ceilings | None, index: int
) -> FigureOut:
    backend, adapter = key
    figure = new_figure(13, 5.2)
    left, right = figure.subplots(1, 2, width_ratios=(3, 2))
    flopping = [p for p in points if p.flops > 0]
    intensities = [p.intensity for p in flopping] or [1.0]
    ridge = ((ceilings.value("fp32-fma") or 0) / (ceilings.value("copy") or 1)) if ceilings else 0
    low = min(intensities + [ridge or 1.0]) / 8
    high = max(intensities + [ridge or 1.0]) * 8
    roofs = _roofs(left, ceilings, low, high)
    for p in flopping:
        left.scatter(p.intensity, p.gflops, s=22, zorder=3, color="#1565c0")
        left.annotate(
            p.kernel, (p.intensity, p.gflops), fontsize=7, xytext=(3, 3), textcoords="offset points"
        )
    left.set_xscale("log")
    left.set_yscale("log")
    left.set_xlabel("arithmetic intensity (declared flops / declared bytes)")
    left.set_ylabel("achieved GFLOP/s")
    if roofs:
        left.legend(fontsize=7, loc="lower right")
    ordered = sorted(points, key=lambda p: p.gbps)
    bars = right.barh(range(len(ordered)), [p.gbps for p in ordered], color="#1565c0")
    right.bar_label(bars, fmt="%.3g", fontsize=7, padding=2)
    right.set_yticks(range(len(ordered)), [f"{p.kernel} @ {p.size}" for p in ordered], fontsize=7)
    right.set_xlabel("achieved GB/s (declared bytes / median time)")
    if ceilings and ceilings.value("copy"):
        right.axvline(
            ceilings.value("copy"),
            color="#c62828",
            linestyle="--",
            label=f"measured copy {ceilings.value('copy'):.4g} GB/s",
        )
        right.legend(fontsize=7, loc="lower right")
    figure.suptitle(f"roofline: {backend} on {adapter}", fontsize=10, x=0.01, ha="left")
    measured = (
        f"Roofs measured by kforge profile-hardware --measure (run {ceilings.run}): "
        f"{', '.join(roofs)}."
        if roofs and ceilings is not None
        else "No measured ceilings for this adapter: run kforge profile-hardware --measure "
        "--results PROFILE.json on it and pass PROFILE.json to kforge report."
    )
    caption = (
        f"Roofline of {backend} on {adapter}: each kernel at the largest size timed, "
        f"achieved GFLOP/s against arithmetic intensity (left; kernels that declare "
        f"flops) and achieved GB/s (right), from the bytes and flops each kernel "
        f"declares and its median time. {measured} {len(points)} kernels from run "
        f"{join_names(p.run for p in points)}."
    )
    return FigureOut(
        f"roofline-{index}",
        "roofline",
        f"Roofline: {backend} on {adapter}",
        caption,
        figure,
        table=_roofline_table(points, ceilings),
    )


def roofline_figures(data: ReportData) -> list[FigureOut]:
    ceilings = {(c.backend, c.adapter): c for c in data.ceilings}
    return [
        _roofline_figure(key, points, ceilings.get(key), i)
        for i, (key, points) in enumerate(sorted(_roofline_points(data).items()))
    ]


# -- tuning --------------------------------------------------------------------------------
def schedule_params(candidate: dict) -> dict[str, str]:
    """A candidate's parameters: the fields of its schedule text (``wg=64,ipt=4,vec=1``
    -> wg, ipt, vec) and the kernel's own tunables the tuner gives (``tunables``, or
    ``params``)."""
    fields = (part.split("=", 1) for part in str(candidate.get("schedule", "")).split(","))
    params = {f[0]: f[1] for f in fields if len(f) == 2}
    for key in ("tunables", "params"):
        own = candidate.get(key)
        if isinstance(own, dict):
            params.update({str(k): str(v) for k, v in own.items()})
    return params


def _order(values: set[str]) -> list[str]:
    return sorted(values, key=lambda v: ([int(n) for n in re.findall(r"\d+", v)], v))


def _landscape_axes(tune: TuneRecord, chosen: tuple[str, str] | None) -> tuple[str, str | None]:
    """The heat map's axes: ``chosen`` (``kforge report --tune-axes``), else the two
    parameters with the most distinct values."""
    values: dict[str, set[str]] = {}
    for c in tune.candidates:
        for name, value in schedule_params(c).items():
            values.setdefault(name, set()).add(value)
    if chosen:
        unknown = [name for name in chosen if name not in values]
        if unknown:
            raise InvalidArgument(
                f"--tune-axes names {', '.join(unknown)}, which the "
                f"candidates of {tune.run} do not have (they have "
                f"{', '.join(values) or 'none'})"
            )
        return chosen
    ranked = sorted((n for n in values if len(values[n]) > 1), key=lambda n: -len(values[n]))
    ranked = ranked or list(values)[:1] or ["schedule"]
    return ranked[0], (ranked[1] if len(ranked) > 1 else None)


def _cell_of(c: dict, x: str, y: str | None) -> tuple[str, str]:
    params = schedule_params(c)
    return params.get(x, candidate_key(c)), (params.get(y, "-") if y else "-")


def _landscape_cells(tune: TuneRecord, x: str, y: str | None):
    """Per (x value, y value): the best median of the candidates measured correct
    there, and the statuses of the others."""
    medians: dict[tuple, float] = {}
    statuses: dict[tuple, set[str]] = {}
    for c in tune.candidates:
        cell = _cell_of(c, x, y)
        median = candidate_median(c)
        if median and c.get("status") not in _FAILED:
            medians[cell] = min(medians.get(cell, math.inf), median)
        else:
            statuses.setdefault(cell, set()).add(str(c.get("status")))
    return medians, statuses


def _draw_landscape(ax, tune: TuneRecord, x: str, y: str | None) -> None:
    medians, statuses = _landscape_cells(tune, x, y)
    xs = _order({cell[0] for cell in (*medians, *statuses)})
    ys = _order({cell[1] for cell in (*medians, *statuses)})
    grid = np.full((len(ys), len(xs)), np.nan)
    for (vx, vy), median in medians.items():
        grid[ys.index(vy), xs.index(vx)] = math.log10(median / 1e3)
    image = ax.imshow(grid, cmap="viridis_r", aspect="auto")
    colorbar = ax.figure.colorbar(image, ax=ax)
    colorbar.set_label("log10 of the best median (us)")
    for (vx, vy), median in medians.items():
        ax.text(
            xs.index(vx),
            ys.index(vy),
            format_duration(median),
            ha="center",
            va="center",
            fontsize=7,
            bbox={"facecolor": "white", "alpha": 0.7, "linewidth": 0},
        )
    for (vx, vy), found in statuses.items():
        if (vx, vy) in medians:
            continue
        mark = "/".join(sorted(_STATUS_MARK.get(s, s) for s in found))
        ax.text(
            xs.index(vx),
            ys.index(vy),
            f"x {mark}",
            ha="center",
            va="center",
            fontsize=7,
            color="#c62828" if found & set(_FAILED) else "#616161",
        )
    chosen = tune.chosen()
    if chosen is not None:
        vx, vy = _cell_of(chosen, x, y)
        ax.scatter(
            xs.index(vx),
            ys.index(vy) - 0.3,
            marker="*" if tune.winner else "o",
            s=180,
            facecolor="gold" if tune.winner else "none",
            edgecolor="#c62828",
            zorder=4,
        )
    ax.set_xticks(range(len(xs)), xs, fontsize=7)
    ax.set_yticks(range(len(ys)), ys, fontsize=7)
    ax.set_xlabel(x)
    ax.set_ylabel(y or "")


def _tuning_figure(tune: TuneRecord, index: int, axes: tuple[str, str] | None) -> FigureOut:
    x, y = _landscape_axes(tune, axes)
    figure = new_figure(11, 5.5)
    ax = figure.add_subplot()
    _draw_landscape(ax, tune, x, y)
    ax.set_title(
        f"tune {tune.kernel} on {tune.backend} ({tune.adapter}), size {tune.size}, {tune.strategy}",
        fontsize=10,
        loc="left",
    )
    counts: dict[str, int] = {}
    for c in tune.candidates:
        counts[c.get("status", "?")] = counts.get(c.get("status", "?"), 0) + 1
    chosen = tune.chosen()
    median = candidate_median(chosen) if chosen else None
    star = (
        f"winner {tune.winner} (gold star), median {format_duration(median)}"
        if tune.winner
        else f"no winner; fastest {tune.best} (circle), median {format_duration(median)}"
        if tune.best
        else "no candidate ran correctly"
    )
    caption = (
        f"Tuning landscape of {tune.kernel} on {tune.backend} ({tune.adapter}) at size "
        f"{tune.size}, strategy {tune.strategy}: the best median time of the correct "
        f"candidates in each cell of {x} x {y or 'nothing'} (other parameters: their "
        f"best), "
        f"{star}; cells marked x held only candidates that were wrong, failed or were "
        f"refused before running (why: table below). Candidates: "
        f"{', '.join(f'{n} {s}' for s, n in sorted(counts.items()))}. {tune.conclusion} "
        f"Run: {tune.run}."
    )
    rejected = [
        [candidate_key(c), c.get("status", "?"), str(c.get("reason", ""))[:300]]
        for c in tune.candidates
        if c.get("status") in (*_FAILED, "pruned")
    ]
    return FigureOut(
        f"tuning-{index}-{tune.kernel}",
        "tuning",
        f"Tuning: {tune.kernel}",
        caption,
        figure,
        table=(["schedule", "status", "why"], rejected),
    )


def tuning_figures(data: ReportData, axes: tuple[str, str] | None = None) -> list[FigureOut]:
    """A landscape per tune run, over ``axes`` when given (else chosen per run)."""
    return [_tuning_figure(t, i, axes) for i, t in enumerate(data.tunes)]


def _best_so_far(tune: TuneRecord) -> list[float]:
    best, curve = math.inf, []
    for entry in tune.history:
        median = entry.get("median_ns")
        if median and entry.get("status") not in _FAILED:
            best = min(best, float(median))
        curve.append(best / 1e3)
    return curve


def convergence_figures(data: ReportData) -> list[FigureOut]:
    """Best-so-far median against evaluations, one line per tune run (strategy), one
    figure per kernel, backend, adapter and size."""
    groups: dict[tuple, list[TuneRecord]] = {}
    for tune in data.tunes:
        groups.setdefault((tune.kernel, tune.backend, tune.adapter, tune.size), []).append(tune)
    out = []
    for index, ((kernel, backend, adapter, size), tunes) in enumerate(groups.items()):
        figure = new_figure(8, 4)
        ax = figure.add_subplot()
        said = []
        for tune in tunes:
            curve = _best_so_far(tune)
            ax.step(
                range(1, len(curve) + 1), curve, where="post", label=f"{tune.strategy} ({tune.run})"
            )
            finite = [v for v in curve if math.isfinite(v)]
            said.append(
                f"{tune.strategy}: best {format_duration(finite[-1] * 1e3)} after "
                f"{len(curve)} evaluations"
                if finite
                else f"{tune.strategy}: none correct"
            )
        ax.set_yscale("log")
        ax.set_xlabel("evaluations (candidates measured, in order)")
        ax.set_ylabel("best median so far (us)")
        ax.legend(fontsize=7)
        caption = (
            f"Convergence of the search for {kernel} on {backend} ({adapter}) at size "
            f"{size}: the best median time found after each evaluation, per strategy. "
            f"{'; '.join(said)}. Run: {join_names(t.run for t in tunes)}."
        )
        out.append(
            FigureOut(
                f"convergence-{index}-{kernel}",
                "tuning",
                f"Convergence: {kernel} on {backend}",
                caption,
                figure,
            )
        )
    return out


# -- bench ---------------------------------------------------------------------------------
def _bench_figure(run, index: int) -> FigureOut:
    rows = [r for r in run.bench_rows if isinstance(r.get("ratio"), (int, float))]
    figure = new_figure(12, 1.2 + 0.32 * max(len(rows), 1))
    ax = figure.add_subplot()
    colours = {True: "#2e7d32", False: "#c62828", None: "#9e9e9e"}
    for i, row in enumerate(rows):
        ax.barh(i, row["ratio"], color=colours.get(row.get("met"), "#9e9e9e"))
        goal = row.get("goal") or {}
        if goal.get("on") == "ratio" and isinstance(goal.get("bound"), (int, float)):
            ax.plot([goal["bound"]] * 2, [i - 0.4, i + 0.4], color="#212121", linewidth=2)
    ax.set_yticks(range(len(rows)), [f"{r['target']} {r['what'][:60]}" for r in rows], fontsize=7)
    ax.axvline(1.0, color="#616161", linestyle=":")
    ax.invert_yaxis()
    ax.set_xlabel("ours / baseline (bar; green: goal met, red: missed), goal (black tick)")
    meta = run.bench_meta
    device = adapter_name(meta.get("cuda_device")) if meta.get("cuda_device") else "no CUDA device"
    caption = (
        f"The bench ({meta.get('command', 'python -m bench')}, {meta.get('date', '?')}) on "
        f"{device} and wgpu adapter {adapter_name(meta.get('wgpu_adapter'))}: each "
        f"measured row as the ratio of ours to its baseline measured in the same run. "
        f"{len(rows)} rows with a ratio of {len(run.bench_rows)}; figures in the table "
        f"below. Run: {run.label}."
    )
    table = (
        ["target", "what", "baseline", "baseline figure", "ours", "unit", "ratio", "met"],
        [
            [
                str(r.get("target")),
                str(r.get("what")),
                str(r.get("baseline", "")),
                _figure(r.get("baseline_value")),
                _figure(r.get("ours")),
                str(r.get("unit", "")),
                _figure(r.get("ratio")),
                str(r.get("verdict", "")),
            ]
            for r in run.bench_rows
        ],
    )
    return FigureOut(f"bench-{index}", "bench", f"Bench: {run.label}", caption, figure, table=table)


def _figure(value) -> str:
    return f"{value:.4g}" if isinstance(value, (int, float)) else ""


def bench_figures(data: ReportData) -> list[FigureOut]:
    return [_bench_figure(run, i) for i, run in enumerate(data.bench_runs)]

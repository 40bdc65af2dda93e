"""The figures of ``kforge report`` about judgement: the verdict matrix, the timing
distributions and the error picture, drawn with matplotlib (the Agg renderer, no
display: ``matplotlib.figure.Figure`` is used directly, never pyplot's global state).

Each figure is a ``FigureOut``: the matplotlib figure, a caption that says what is
plotted, on which adapter and from which run (with the numbers that matter), and how
it is embedded (PNG, or SVG where its cells link to report text)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from oracle import Verdict, format_duration

from ._report_data import CertRecord, EvalRecord, ReportData

__all__ = [
    "FigureOut",
    "new_figure",
    "verdict_matrices",
    "timing_figures",
    "error_figures",
    "VERDICT_COLOURS",
    "join_names",
]

DPI = 100
VERDICT_COLOURS = {
    "pass": "#2e7d32",
    "certified": "#2e7d32",
    "reused": "#66bb6a",
    "unsupported": "#9e9e9e",
    "not-run": "#bdbdbd",
    "inconclusive": "#f9a825",
    "mismatch": "#c62828",
    "failed": "#c62828",
    "error": "#ef6c00",
    "timeout": "#6a1b9a",
    "device-lost": "#4a148c",
    "crashed": "#212121",
    "sanitizer": "#ad1457",
    "reference-error": "#795548",
}
_CERTIFY_ORDER = ("failed", "unsupported", "reused", "certified")


@dataclass
class FigureOut:
    """A drawn figure and what the page says about it. ``vector``: embed as SVG (its
    links work); otherwise as a PNG of ``pixels`` (width, height)."""

    id: str
    section: str
    title: str
    caption: str
    figure: Any
    vector: bool = False
    table: tuple[list[str], list[list[str]]] | None = None
    links: list[str] = field(default_factory=list)

    @property
    def pixels(self) -> tuple[int, int]:
        width, height = self.figure.get_size_inches()
        return int(round(width * DPI)), int(round(height * DPI))


def new_figure(width: float, height: float):
    """A figure of ``width`` x ``height`` inches with no display attached."""
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=DPI, layout="constrained")


def join_names(names: Iterable[str]) -> str:
    return ", ".join(dict.fromkeys(str(n) for n in names))


def _column(record: Any, several_adapters: set[str]) -> str:
    """A matrix column: the backend, and its adapter when it ran on several."""
    return (
        f"{record.backend}\n{record.adapter}"
        if record.backend in several_adapters
        else record.backend
    )


def _certify_rank(result: str) -> int:
    """0 for the worst certify result; a result this version does not know is worst."""
    return _CERTIFY_ORDER.index(result) if result in _CERTIFY_ORDER else -1


def _several_adapters(records: Iterable[Any]) -> set[str]:
    """Backends seen on more than one adapter (a fleet run): their columns name it."""
    seen: dict[str, set[str]] = {}
    for r in records:
        seen.setdefault(r.backend, set()).add(r.adapter)
    return {b for b, adapters in seen.items() if len(adapters) > 1}


# -- verdict matrix ------------------------------------------------------------------------
def _draw_matrix(cells: dict[tuple[str, str], tuple[str, str, str]], title: str):
    """Kernels down, columns across; each cell coloured by its verdict, showing it and
    a count, and linking (in SVG) to the report text it summarises."""
    from matplotlib.patches import Rectangle

    kernels = list(dict.fromkeys(k for k, _ in cells))
    columns = list(dict.fromkeys(c for _, c in cells))
    width = 1.6 + 1.7 * len(columns)
    figure = new_figure(max(4.0, width), 1.2 + 0.34 * len(kernels))
    ax = figure.add_subplot()
    for (kernel, column), (verdict, text, link) in cells.items():
        x, y = columns.index(column), kernels.index(kernel)
        cell = Rectangle(
            (x, y),
            1,
            1,
            facecolor=VERDICT_COLOURS.get(verdict.lower(), "#e0e0e0"),
            edgecolor="white",
            linewidth=2,
            url=f"#{link}",
        )
        ax.add_patch(cell)
        ax.text(
            x + 0.5,
            y + 0.5,
            text,
            ha="center",
            va="center",
            fontsize=8,
            color="white",
            url=f"#{link}",
        )
    ax.set_xlim(0, len(columns))
    ax.set_ylim(len(kernels), 0)
    ax.set_xticks([i + 0.5 for i in range(len(columns))], columns, fontsize=8)
    ax.set_yticks([i + 0.5 for i in range(len(kernels))], kernels, fontsize=8)
    ax.xaxis.tick_top()
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.set_title(title, fontsize=10, loc="left")
    return figure


def _matrix_figure(
    id: str, title: str, what: str, cells: dict, records: list, several: set[str], runs: str
) -> FigureOut:
    """A matrix of ``cells`` ((kernel, column) -> (colour key, text, link)) with its
    caption: ``what`` it shows, how many cells of each kind, the adapters, the run."""
    counts: dict[str, int] = {}
    for key, _, _ in cells.values():
        counts[key] = counts.get(key, 0) + 1
    columns = "columns, with the adapter where a backend ran on several" if several else "columns"
    caption = (
        f"Each kernel (rows) on each backend ({columns}): {what}; each cell links to "
        f"its report text below. Cells: "
        f"{', '.join(f'{n} {k}' for k, n in sorted(counts.items()))}. Adapters: "
        f"{join_names(f'{r.backend} on {r.adapter}' for r in records)}. Run: {runs}."
    )
    figure = _draw_matrix(cells, f"kernels x backends: {title.lower()}")
    return FigureOut(
        id,
        "verdicts",
        title,
        caption,
        figure,
        vector=True,
        links=sorted({c[2] for c in cells.values()}),
    )


def _check_matrix(evaluations: list[EvalRecord], runs: str) -> FigureOut:
    several = _several_adapters(evaluations)
    grouped: dict[tuple[str, str], list[EvalRecord]] = {}
    for ev in evaluations:
        grouped.setdefault((ev.kernel, _column(ev, several)), []).append(ev)
    cells = {}
    for key, evs in grouped.items():
        worst = min(evs, key=lambda e: _severity(e.verdict))
        passed = sum(e.verdict in ("pass", "unsupported") for e in evs)
        cells[key] = (worst.verdict, f"{worst.verdict}\n{passed}/{len(evs)}", worst.anchor)
    return _matrix_figure(
        "verdicts",
        "Verdict matrix",
        "the worst verdict of kforge check over "
        "every size and seed, and how many of them passed or were unsupported",
        cells,
        evaluations,
        several,
        runs,
    )


def _severity(verdict: str) -> int:
    try:
        return Verdict(verdict).severity
    except ValueError:
        return -1  # a verdict this version does not know: show it as the worst


def _certify_matrix(rows: list[CertRecord], runs: str) -> FigureOut:
    several = _several_adapters(rows)
    cells: dict[tuple[str, str], tuple[str, str, str]] = {}
    for row in rows:
        result, key = row.result.lower(), (row.kernel, _column(row, several))
        old = cells.get(key)
        if old is None or _certify_rank(result) < _certify_rank(old[0]):
            cells[key] = (result, result, row.anchor)
    return _matrix_figure(
        "certify",
        "Certification matrix",
        "kforge certify's result: "
        "certified (a new manifest), reused (a matching manifest), failed or "
        "unsupported",
        cells,
        rows,
        several,
        runs,
    )


def verdict_matrices(data: ReportData) -> list[FigureOut]:
    """The check runs' matrix of verdicts and the certify runs' matrix of results."""
    out = []
    checked = [ev for run in data.runs if run.kind == "check" for ev in run.evaluations]
    if checked:
        out.append(_check_matrix(checked, join_names(ev.run for ev in checked)))
    if data.certified:
        out.append(_certify_matrix(data.certified, join_names(c.run for c in data.certified)))
    return out


# -- timing distributions ------------------------------------------------------------------
def _timing(ev: EvalRecord) -> dict:
    """The timing of ``ev``, a timed evaluation (the only ones a timing figure shows)."""
    assert ev.timing is not None
    return ev.timing


def _timing_groups(evs: list[EvalRecord]) -> list[tuple[str, list[float], EvalRecord]]:
    """(label, samples in microseconds, an evaluation) per backend, adapter and size, in
    backend then size order; seeds of one size are pooled."""
    groups: dict[tuple, list[EvalRecord]] = {}
    for ev in evs:
        if ev.timing and ev.timing.get("samples_ns"):
            groups.setdefault((ev.backend, ev.adapter, ev.elements, ev.size), []).append(ev)
    out = []
    for (backend, _adapter, _, size), members in sorted(
        groups.items(), key=lambda kv: (kv[0][0], kv[0][2])
    ):
        samples = [s / 1e3 for ev in members for s in _timing(ev)["samples_ns"]]
        label = f"{backend}\n{size}\n{_timing(members[0]).get('source', '?')}"
        out.append((label, samples, members[0]))
    return out


def _timing_figure(kernel: str, evs: list[EvalRecord], index: int) -> FigureOut | None:
    groups = _timing_groups(evs)
    if not groups:
        return None
    figure = new_figure(max(6.0, 1.0 + 0.9 * len(groups)), 4.2)
    ax = figure.add_subplot()
    ax.boxplot(
        [g[1] for g in groups], widths=0.55, showfliers=False, medianprops={"color": "#c62828"}
    )
    rng = np.random.default_rng(0)
    for i, (_, samples, _) in enumerate(groups, start=1):
        ax.scatter(
            i + rng.uniform(-0.18, 0.18, len(samples)),
            samples,
            s=9,
            alpha=0.6,
            color="#1565c0",
            zorder=3,
        )
    ax.set_xticks(range(1, len(groups) + 1), [g[0] for g in groups], fontsize=7)
    values = [s for g in groups for s in g[1]]
    if max(values) > 20 * max(min(values), 1e-3):
        ax.set_yscale("log")
    ax.set_ylabel("time per run (us)")
    ax.set_title(f"{kernel}: every timed sample per backend and size", fontsize=10, loc="left")
    largest = {}
    for _label, samples, ev in groups:
        largest[ev.backend] = (ev, float(np.median(samples)))
    medians = "; ".join(
        f"{b} at size {ev.size}: median {format_duration(m * 1e3)}"
        for b, (ev, m) in largest.items()
    )
    sources = join_names(f"{ev.backend} {_timing(ev)['source']}" for _, _, ev in groups)
    caption = (
        f"Timing of {kernel}: every timed sample (dots) of each backend at each size, "
        f"seeds pooled, with box plots (box: quartiles, red line: median, whiskers: 1.5 "
        f"interquartile ranges); under each box its backend, size and timing source. "
        f"{len(values)} samples. Timing sources: {sources}. "
        f"Largest size per backend: {medians}. Adapters: "
        f"{join_names(f'{g[2].backend} on {g[2].adapter}' for g in groups)}. "
        f"Run: {join_names(ev.run for ev in evs)}."
    )
    return FigureOut(f"timing-{index}-{kernel}", "timings", f"Timing: {kernel}", caption, figure)


def timing_figures(data: ReportData) -> list[FigureOut]:
    by_kernel: dict[str, list[EvalRecord]] = {}
    for ev in data.evaluations:
        by_kernel.setdefault(ev.kernel, []).append(ev)
    figures = (_timing_figure(k, evs, i) for i, (k, evs) in enumerate(by_kernel.items()))
    return [f for f in figures if f is not None]


# -- error picture -------------------------------------------------------------------------
def _bins(histogram: list) -> dict[float, int]:
    """A saved histogram as {log2 of the lower edge (-inf: exact zeros, inf): count}."""
    found: dict[float, int] = {}
    for edge, count in histogram or []:
        key = math.inf if edge == "inf" else (-math.inf if edge == 0 else math.log2(edge))
        found[key] = found.get(key, 0) + int(count)
    return found


def _merged(evs: list[EvalRecord], label: str, which: str) -> dict[float, int]:
    total: dict[float, int] = {}
    for ev in evs:
        hist = ((ev.outputs.get(label) or {}).get("comparison") or {}).get("histogram") or {}
        for key, count in _bins(hist.get(which, [])).items():
            total[key] = total.get(key, 0) + count
    return total


def _histogram_axes(ax, per_backend: dict[str, dict[float, int]], what: str) -> None:
    """Counts by power-of-two bin, one line per backend; exact zeros at the left and
    infinities at the right of the finite bins."""
    finite = [k for bins in per_backend.values() for k in bins if math.isfinite(k)] or [0.0]
    first, last = min(finite), max(finite)
    gap = max(2.0, (last - first) / 10)  # room apart for the zero and infinity bins
    low, high = first - gap, last + gap
    for backend, bins in per_backend.items():
        keys = sorted(bins)
        xs = [low if k == -math.inf else high if k == math.inf else k for k in keys]
        ax.plot(xs, [bins[k] for k in keys], marker="o", markersize=3, label=backend)
    inner = sorted({int(round(x)) for x in np.linspace(first, last, 5 if last > first else 1)})
    ax.set_xticks([low, *inner, high], ["0", *(f"2^{t}" for t in inner), "inf"], fontsize=7)
    ax.set_xlabel(what, fontsize=8)
    ax.set_ylabel("elements", fontsize=8)
    if any(per_backend.values()):
        ax.set_yscale("log")
        ax.legend(fontsize=7)
    else:
        ax.text(
            0.5,
            0.5,
            "no distribution saved with these results",
            ha="center",
            va="center",
            transform=ax.transAxes,
            fontsize=8,
        )


def _element_counts(outputs: list[dict]) -> dict[str, int]:
    """An output's elements over several evaluations, each in one part: within
    tolerance, mismatched (written but wrong), accepted as a flushed subnormal, masked
    (not judgeable), unwritten (still the poison)."""
    total = sum(int(o.get("count") or 0) for o in outputs)
    counts = {
        part: sum(int(o.get(part) or 0) for o in outputs)
        for part in ("flushed", "masked", "unwritten")
    }
    mismatches = sum(int((o.get("comparison") or {}).get("mismatches") or 0) for o in outputs)
    counts["mismatched"] = max(0, mismatches - counts["unwritten"])
    counts = {"within tolerance": max(0, total - sum(counts.values())), **counts}
    return counts


_PART_COLOURS = {
    "within tolerance": "#2e7d32",
    "mismatched": "#c62828",
    "flushed": "#9ccc65",
    "masked": "#fbc02d",
    "unwritten": "#212121",
}


def _accounting_axes(ax, evs_by_backend: dict[str, list[EvalRecord]], label: str) -> str:
    """Per backend, a stacked bar of the output's elements in their parts (summed over
    its evaluations); returns the numbers as text."""
    texts = []
    for row, (backend, evs) in enumerate(evs_by_backend.items()):
        counts = _element_counts([ev.outputs.get(label) or {} for ev in evs])
        left = 0
        for part, colour in _PART_COLOURS.items():
            ax.barh(row, counts[part], left=left, color=colour, label=part if row == 0 else None)
            left += counts[part]
        text = (
            f"{counts['mismatched']} mismatched, {counts['masked']} masked, "
            f"{counts['unwritten']} unwritten of {left}"
        )
        ax.text(left, row, f" {text}", va="center", fontsize=7)
        texts.append(f"{backend}: {text}")
    ax.set_yticks(range(len(evs_by_backend)), list(evs_by_backend), fontsize=7)
    ax.set_xlabel("elements (all sizes and seeds)", fontsize=8)
    ax.set_xlim(0, ax.get_xlim()[1] * 1.9)  # room for the numbers
    ax.legend(fontsize=6, ncol=5, loc="upper center", bbox_to_anchor=(0.5, -0.3))
    return "; ".join(texts)


def _error_figure(kernel: str, evs: list[EvalRecord], index: int) -> FigureOut | None:
    labels = list(dict.fromkeys(label for ev in evs for label in ev.outputs))
    if not labels:
        return None
    by_backend: dict[str, list[EvalRecord]] = {}
    for ev in evs:
        by_backend.setdefault(ev.backend, []).append(ev)
    figure = new_figure(14, 2.9 * len(labels))
    grid = figure.subplots(len(labels), 3, squeeze=False)
    notes = []
    for row, label in enumerate(labels):
        for col, which, what in ((0, "ulp", "ULP distance"), (1, "rel", "relative error")):
            _histogram_axes(
                grid[row][col], {b: _merged(e, label, which) for b, e in by_backend.items()}, what
            )
            grid[row][col].set_title(f"{label}: {what}", fontsize=9, loc="left")
        notes.append(f"{label}: " + _accounting_axes(grid[row][2], by_backend, label))
        grid[row][2].set_title(f"{label}: every element accounted for", fontsize=9, loc="left")
    worst = {b: max((_max(ev, "max_ulp") for ev in e), default=0) for b, e in by_backend.items()}
    caption = (
        f"Error of {kernel} per output: how many elements lie at each ULP distance and "
        f"relative error from the reference (power-of-two bins, summed over every size "
        f"and seed; exact results at 0, unbounded relative errors at inf), and every "
        f"element accounted for as judged, accepted as a flushed subnormal, masked "
        f"(not judgeable) or unwritten. {'; '.join(notes)}. Max ULP: "
        f"{', '.join(f'{b} {u}' for b, u in worst.items())}. Adapters: "
        f"{join_names(f'{e.backend} on {e.adapter}' for e in evs)}. "
        f"Run: {join_names(e.run for e in evs)}."
    )
    return FigureOut(f"errors-{index}-{kernel}", "errors", f"Errors: {kernel}", caption, figure)


def _max(ev: EvalRecord, key: str) -> int:
    return max(
        (int((o.get("comparison") or {}).get(key) or 0) for o in ev.outputs.values()), default=0
    )


def _mismatch_figure(ev: EvalRecord, label: str, index: int) -> FigureOut:
    """Where the first mismatches and the largest errors of a failed output lie."""
    comparison = ev.outputs[label]["comparison"]
    shape = (comparison.get("shape") or [[0]])[1] or [0]
    count = int(np.prod(shape)) if shape else 0
    figure = new_figure(9, 3.6)
    ax = figure.add_subplot()
    for key, marker, colour in (("first_mismatches", "x", "#c62828"), ("largest", "o", "#1565c0")):
        points = comparison.get(key) or []
        flat = [
            int(np.ravel_multi_index(p["index"], shape))
            if len(p["index"]) == len(shape)
            else int(p["index"][0])
            for p in points
        ]
        errors = [
            p["abs_error"]
            if isinstance(p.get("abs_error"), (int, float)) and math.isfinite(p["abs_error"])
            else 0
            for p in points
        ]
        ax.scatter(
            flat,
            [max(e, 1e-45) for e in errors],
            marker=marker,
            color=colour,
            label=key.replace("_", " "),
            zorder=3,
        )
    ax.set_xlim(-0.02 * max(count, 1), 1.02 * max(count, 1))
    low, high = ax.get_ylim()
    if low > 0 and high / low > 100:
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)
        ax.ticklabel_format(axis="y", useOffset=False)
    ax.set_xlabel(f"element (flat index of {label}, shape {' x '.join(map(str, shape))})")
    ax.set_ylabel("absolute error (non-finite: floor)")
    ax.legend(fontsize=8)
    first = "; ".join(
        f"[{','.join(map(str, m['index']))}] got {m['got']} want {m['want']}"
        for m in (comparison.get("first_mismatches") or [])[:4]
    )
    caption = (
        f"Where {label} of {ev.kernel} differs on {ev.backend} ({ev.adapter}) at size "
        f"{ev.size}, seed {ev.seed}, schedule {ev.schedule}: verdict {ev.verdict}, "
        f"{comparison.get('mismatches', 0)} of {count} elements wrong; positions of the "
        f"first mismatches (x) and of the largest errors (o) along the output. First: "
        f"{first or 'none listed'}. Run: {ev.run}."
    )
    return FigureOut(
        f"mismatch-{index}-{ev.kernel}-{ev.backend}-{label}",
        "errors",
        f"Mismatches: {ev.kernel} on {ev.backend}",
        caption,
        figure,
        links=[ev.anchor],
    )


def error_figures(data: ReportData) -> list[FigureOut]:
    by_kernel: dict[str, list[EvalRecord]] = {}
    for ev in data.evaluations:
        by_kernel.setdefault(ev.kernel, []).append(ev)
    out = [
        f
        for f in (_error_figure(k, evs, i) for i, (k, evs) in enumerate(by_kernel.items()))
        if f is not None
    ]
    failed = [
        (ev, label)
        for ev in data.evaluations
        for label, o in ev.outputs.items()
        if (o.get("comparison") or {}).get("first_mismatches")
    ]
    return out + [_mismatch_figure(ev, label, i) for i, (ev, label) in enumerate(failed[:24])]

"""Rows of the benchmark table, the arithmetic on them (ratios, goals, byte and flop
counts), and the table in text, Markdown and JSON. Pure: nothing here times anything,
so tests/test_bench_report.py checks it in CI."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = [
    "Goal",
    "Row",
    "failed_row",
    "guarded",
    "ratio",
    "bandwidth_gbps",
    "tflops",
    "memory_bound_bytes",
    "rows_bytes",
    "gemm_flops",
    "roofline_work",
    "format_bytes",
    "format_value",
    "text_table",
    "markdown_table",
    "markdown_section",
    "to_json",
    "summary",
    "GIB",
    "MIB",
]

MIB = 1 << 20
GIB = 1 << 30


@dataclass(frozen=True)
class Goal:
    """A target of docs/PERFORMANCE.md: ``on`` the ``"ratio"`` (ours / baseline) or on
    ``"ours"`` itself, compared with ``op`` (``">="``, ``"<="`` or ``"=="``) to
    ``bound``."""

    op: str
    bound: float
    on: str = "ratio"

    def __post_init__(self) -> None:
        if self.op not in (">=", "<=", "=="):
            raise ValueError(f"a goal compares with >=, <= or ==, not {self.op!r}")
        if self.on not in ("ratio", "ours"):
            raise ValueError(f"a goal is on the ratio or on ours, not {self.on!r}")

    def met(self, value: float | None) -> bool | None:
        """Whether ``value`` meets the goal; None when there is no value to judge."""
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return None
        if self.op == ">=":
            return value >= self.bound
        if self.op == "<=":
            return value <= self.bound
        return value == self.bound

    def __str__(self) -> str:
        return f"{self.on} {self.op} {self.bound:g}"


@dataclass
class Row:
    """One line of the table: target id, what was measured, the baseline measured in
    the same run and its figure, ours, and the goal. ``unit`` is shared by the two
    figures; ``notes`` says how (which schedule won, what bounds it); ``raw`` keeps
    every number behind the row for the JSON; ``error`` is set when the measurement
    failed, and says why."""

    target: str
    what: str
    baseline: str = ""
    baseline_value: float | None = None
    ours: float | None = None
    unit: str = ""
    goal: Goal | None = None
    notes: str = ""
    error: str = ""
    raw: dict = field(default_factory=dict)

    @property
    def ratio(self) -> float | None:
        return ratio(self.ours, self.baseline_value)

    @property
    def met(self) -> bool | None:
        """Whether the goal is met; None without a goal, a figure, or after an error."""
        if self.goal is None or self.error:
            return None
        return self.goal.met(self.ratio if self.goal.on == "ratio" else self.ours)

    @property
    def verdict(self) -> str:
        if self.error:
            return "error"
        if self.goal is None:
            return "-"
        return {True: "yes", False: "NO", None: "?"}[self.met]

    def cells(self) -> list[str]:
        """The table's cells for this row, formatted."""
        r = self.ratio
        return [
            self.target,
            self.what,
            self.baseline,
            format_value(self.baseline_value, self.unit),
            format_value(self.ours, self.unit),
            "" if r is None else f"{r:.2f}",
            "" if self.goal is None else str(self.goal),
            self.verdict,
            _one_line(f"{self.error} {self.notes}".strip() if self.error else self.notes),
        ]

    def as_dict(self) -> dict:
        data = asdict(self)
        data["goal"] = None if self.goal is None else asdict(self.goal)
        data.update(ratio=self.ratio, met=self.met, verdict=self.verdict)
        return data


def failed_row(target: str, what: str, exc: BaseException) -> Row:
    """The row for a section or measurement that raised ``exc``."""
    return Row(target, what, error=f"{type(exc).__name__}: {exc}")


def guarded(target: str, what: str, measure: Callable[[], Row | list[Row]]) -> list[Row]:
    """The rows ``measure()`` returns, or one row saying why it failed, so that the
    other measurements go on."""
    try:
        result = measure()
    except Exception as exc:  # noqa: BLE001 - recorded in the row
        return [failed_row(target, what, exc)]
    return [result] if isinstance(result, Row) else list(result)


def _one_line(text: str) -> str:
    return " ".join(text.split())


# -- arithmetic ------------------------------------------------------------------------
def ratio(ours: float | None, baseline: float | None) -> float | None:
    """ours / baseline, or None when either is missing or the baseline is zero."""
    if ours is None or baseline is None or baseline == 0:
        return None
    return ours / baseline


def bandwidth_gbps(bytes_moved: int, seconds: float) -> float:
    """Bytes per second in GB/s (10^9), the unit of docs/PERFORMANCE.md."""
    if seconds <= 0:
        raise ValueError(f"a duration must be positive, got {seconds}")
    return bytes_moved / seconds / 1e9


def tflops(flops: float, seconds: float) -> float:
    if seconds <= 0:
        raise ValueError(f"a duration must be positive, got {seconds}")
    return flops / seconds / 1e12


def memory_bound_bytes(kernel, size: int) -> int:
    """Bytes a memory-bound kernel must move at problem ``size``: each storage buffer
    read once (inputs) or written once (outputs; read too when ``inout``); the uniform
    block does not count."""
    from forge.kernel import Access

    total = 0
    for spec in kernel.buffers:
        if spec.access is Access.UNIFORM:
            continue
        passes = 2 if spec.inout else 1
        total += passes * spec.byte_size(size)
    return total


def rows_bytes(rows: int, cols: int, itemsize: int = 4) -> int:
    """A row kernel's floor as docs/PERFORMANCE.md P3 counts it: one read and one write of
    each element (per-column weights are not counted)."""
    return 2 * rows * cols * itemsize


def roofline_work(kernel, size, backend: str, seconds: float) -> dict:
    """``raw["work"]`` of a row that timed one kernel: what ``kforge report`` needs to
    place it under the roofline of its adapter (the bytes and flops the kernel declares
    at ``size``, and the time of one run)."""
    return {
        "kernel": kernel.id,
        "backend": backend,
        "size": str(size),
        **kernel.declared_work(size),
        "median_ns": seconds * 1e9,
    }


def gemm_flops(m: int, n: int, k: int) -> float:
    """Multiply-adds of ``m x k @ k x n``, two flops each."""
    return 2.0 * m * n * k


# -- output ----------------------------------------------------------------------------
_HEADER = ["target", "what", "baseline", "baseline figure", "ours", "ratio", "goal", "met", "notes"]


def format_bytes(nbytes: int) -> str:
    """``1 GiB``, ``256 MiB``, ``0.5 MiB``: the unit docs/PERFORMANCE.md sizes are given in."""
    if nbytes >= GIB:
        return f"{nbytes / GIB:.4g} GiB"
    return f"{nbytes / MIB:.4g} MiB"


def format_value(value: float | None, unit: str) -> str:
    """``4271 GB/s``, ``5.25 us``, ``51.5 TFLOP/s``: three significant digits."""
    if value is None:
        return ""
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    if value == int(value) and abs(value) < 1e6 and unit in ("compiles", "loads", ""):
        text = str(int(value))
    elif abs(value) >= 100:
        text = f"{value:.0f}"
    else:
        text = f"{value:.3g}"
    return f"{text} {unit}".strip()


def text_table(rows: Sequence[Row], notes_width: int = 70) -> str:
    """A fixed-width table for a terminal; long notes are cut to ``notes_width``."""
    table = [_HEADER] + [r.cells() for r in rows]
    for line in table[1:]:
        if len(line[-1]) > notes_width:
            line[-1] = line[-1][: notes_width - 3] + "..."
    widths = [max(len(line[i]) for line in table) for i in range(len(_HEADER))]
    out = []
    for i, line in enumerate(table):
        out.append("  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip())
        if i == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def markdown_table(rows: Sequence[Row]) -> str:
    """The table for BENCHMARKS.md, notes in full."""

    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    lines = ["| " + " | ".join(_HEADER) + " |", "|" + "---|" * len(_HEADER)]
    lines += ["| " + " | ".join(cell(c) for c in r.cells()) + " |" for r in rows]
    return "\n".join(lines)


def summary(rows: Sequence[Row]) -> str:
    """One line: how many goals were met, missed, could not be judged, and errors."""
    counts = {"yes": 0, "NO": 0, "?": 0, "error": 0}
    for row in rows:
        if row.verdict in counts:
            counts[row.verdict] += 1
    return (
        f"{counts['yes']} goals met, {counts['NO']} missed, {counts['?']} not judged, "
        f"{counts['error']} errors, of {len(rows)} rows"
    )


#: The ``format`` field of the bench's JSON (``kforge report`` reads it).
BENCH_FORMAT = "kforge-bench/1"


def to_json(meta: dict, rows: Sequence[Row]) -> str:
    return json.dumps(
        {"format": BENCH_FORMAT, "meta": meta, "rows": [r.as_dict() for r in rows]},
        indent=2,
        default=_jsonable,
    )


def _jsonable(value: Any):
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    return str(value)


def markdown_section(meta: dict, rows: Sequence[Row]) -> str:
    """A BENCHMARKS.md section for one run: when, on what, the table, a summary line,
    and the raw JSON folded away."""
    gpu = meta.get("cuda_device", {}) or {}
    wgpu_adapter = meta.get("wgpu_adapter", {}) or {}
    versions = ", ".join(f"{k} {v}" for k, v in (meta.get("versions") or {}).items())
    lines = [
        f"## {meta.get('date', '?')}: {gpu.get('name') or 'no CUDA device'}",
        "",
        f"- GPU: {gpu.get('name', '-')} ({gpu.get('architecture', '-')}); "
        f"driver: {gpu.get('driver', '-')}; {gpu.get('driver_info', '')}".rstrip("; "),
        f"- wgpu adapter: {wgpu_adapter.get('name', '-')} "
        f"({wgpu_adapter.get('backend', '-')}, {wgpu_adapter.get('driver_info', '-')})",
        f"- Host: {meta.get('host', '-')}, {meta.get('cpus', '-')} CPUs; Python "
        f"{meta.get('python', '-')}",
        f"- Libraries: {versions or '-'}",
        f"- Command: `{meta.get('command', 'python -m bench')}` ({meta.get('seconds', 0):.0f} s)",
        f"- Result: {summary(rows)}",
        "",
        markdown_table(rows),
        "",
        "<details><summary>raw JSON</summary>",
        "",
        "```json",
        to_json(meta, rows),
        "```",
        "",
        "</details>",
        "",
    ]
    return "\n".join(lines)

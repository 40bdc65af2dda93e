"""``kforge report RESULTS... -o report.html [--png DIR]`` and ``--report PATH`` on
``check``, ``tune`` and ``certify``: one self-contained HTML page of figures built
from the JSON those commands (and ``profile-hardware --measure`` and the bench) write,
so that a report can be made later, or on another machine.

The page opens offline: no script, no stylesheet or font from elsewhere; every figure
is inline (PNG as a data URI, the verdict matrices as SVG whose cells link to the
report text the page includes). Files are written atomically: a bad input stops
everything before anything is written (exit 2, naming the file and what is wrong)."""

from __future__ import annotations

import argparse
import base64
import html
import io
import sys
from pathlib import Path

from forge.cache import write_atomically
from forge.errors import UnsupportedFeature

from ._output import output_file_arg
from ._report_data import ReportData, load_runs, run_from_data

__all__ = [
    "register",
    "add_report_flag",
    "require_report_extra",
    "write_report",
    "report_of",
    "draw",
]

SECTIONS = (
    ("verdicts", "Verdicts"),
    ("roofline", "Roofline"),
    ("timings", "Timing distributions"),
    ("tuning", "Tuning"),
    ("errors", "Errors"),
    ("bench", "Bench"),
)

_STYLE = """
body { font-family: sans-serif; margin: 1.5em auto; max-width: 1400px; color: #212121; }
figure { margin: 1.5em 0; border-top: 1px solid #e0e0e0; padding-top: 0.8em; }
figure img, figure svg { max-width: 100%; height: auto; }
figcaption { font-size: 0.9em; line-height: 1.4; max-width: 1200px; }
table { border-collapse: collapse; font-size: 0.8em; margin: 0.5em 0; }
td, th { border: 1px solid #e0e0e0; padding: 2px 6px; text-align: left; vertical-align: top; }
pre { background: #f5f5f5; padding: 0.6em; overflow-x: auto; font-size: 0.8em; }
.report:target { outline: 3px solid #1565c0; }
svg text { pointer-events: none; }  /* a click on a cell's text reaches the cell's link */
"""


def add_report_flag(parser) -> None:
    parser.add_argument(
        "--report",
        metavar="PATH",
        type=output_file_arg,
        help="also write an HTML report of this run (figures inline; needs "
        "matplotlib: pip install 'kernel-forge[report]')",
    )


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "report", help="one self-contained HTML page of figures from saved results"
    )
    parser.add_argument(
        "results",
        nargs="+",
        metavar="RESULTS",
        help="JSON of kforge check, certify, tune, profile-hardware --measure "
        "or python -m bench (one or more)",
    )
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="HTML",
        type=output_file_arg,
        help="the page to write",
    )
    parser.add_argument("--png", metavar="DIR", help="also write each figure as a PNG here")
    parser.add_argument(
        "--tune-axes",
        type=_axes_arg,
        metavar="X,Y",
        help="the two tuned parameters of the tuning heat maps, e.g. wg,ipt "
        "(default: the two with the most distinct values)",
    )
    parser.set_defaults(run=_report)


def _axes_arg(text: str) -> tuple[str, str]:
    names = tuple(part.strip() for part in text.split(","))
    if len(names) != 2 or not all(names) or names[0] == names[1]:
        raise argparse.ArgumentTypeError(f"give two different parameter names as X,Y, got {text!r}")
    return names


def require_report_extra() -> None:
    """Raise ``UnsupportedFeature`` saying how to install matplotlib when it is missing
    (called before a run whose report would need it)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UnsupportedFeature(
            "reports are drawn with matplotlib, which is not installed: "
            "pip install 'kernel-forge[report]'"
        ) from None


def _report(args) -> int:
    data = load_runs(args.results)
    figures = write_report(data, args.output, args.png, args.tune_axes)
    print(
        f"kforge report: wrote {args.output} ({len(figures)} figures from "
        f"{len(data.runs)} files)" + (f" and {len(figures)} PNGs in {args.png}" if args.png else "")
    )
    return 0


def report_of(data: dict, path: str, label: str) -> None:
    """Write the report of one run a command just made (``data``: its JSON) to
    ``path``; ``label`` names the run in captions."""
    figures = write_report(ReportData([run_from_data(data, label, label)]), path)
    print(f"report written to {path} ({len(figures)} figures)", file=sys.stderr)


def draw(data: ReportData, tune_axes: tuple[str, str] | None = None) -> list:
    """Every figure ``data`` can give, section by section (the tuning heat maps over
    ``tune_axes`` when given)."""
    from ._report_figures import error_figures, timing_figures, verdict_matrices
    from ._report_perf import bench_figures, convergence_figures, roofline_figures, tuning_figures

    return [
        *verdict_matrices(data),
        *roofline_figures(data),
        *timing_figures(data),
        *tuning_figures(data, tune_axes),
        *convergence_figures(data),
        *error_figures(data),
        *bench_figures(data),
    ]


def write_report(
    data: ReportData,
    output: str,
    png_dir: str | None = None,
    tune_axes: tuple[str, str] | None = None,
) -> list:
    """Draw ``data``, then write the page to ``output`` (and each figure as
    ``png_dir/ID.png``); every file is written whole or not at all."""
    require_report_extra()
    figures = draw(data, tune_axes)
    pngs = {f.id: _png(f.figure) for f in figures}
    page = _page(data, figures, pngs)
    if png_dir:
        for figure in figures:
            write_atomically(Path(png_dir) / f"{figure.id}.png", pngs[figure.id])
    write_atomically(output, page)
    return figures


def _png(figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def _svg(figure) -> str:
    """The figure as inline SVG, text kept as text, links opening in this page."""
    from matplotlib import rc_context

    buffer = io.StringIO()
    with rc_context({"svg.fonttype": "none"}):
        figure.savefig(buffer, format="svg")
    text = buffer.getvalue()
    text = text[text.index("<svg") :]
    return text.replace(' target="_blank"', "").replace("<a xlink:href=", "<a href=")


# -- the page ------------------------------------------------------------------------------
def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _table(columns: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{_e(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _figure_html(figure, png: bytes) -> str:
    width, height = figure.pixels
    if figure.vector:
        image = _svg(figure.figure)
    else:
        data = base64.b64encode(png).decode("ascii")
        image = (
            f'<img src="data:image/png;base64,{data}" width="{width}" height="{height}" '
            f'alt="{_e(figure.title)}">'
        )
    table = _table(*figure.table) if figure.table and figure.table[1] else ""
    return (
        f'<figure id="{_e(figure.id)}" class="figure" data-width="{width}" '
        f'data-height="{height}">{image}<figcaption><b>{_e(figure.title)}.</b> '
        f"{_e(figure.caption)} <i>({figure.id}.png, {width} x {height} px)</i>"
        f"</figcaption>{table}</figure>"
    )


def _runs_html(data: ReportData) -> str:
    rows = []
    for run in data.runs:
        content = {
            "check": f"{len(run.evaluations)} evaluations",
            "certify": f"{len(run.certified)} kernel x backend results",
            "tune": (
                f"{run.tune.kernel} on {run.tune.backend}, {len(run.tune.candidates)} candidates"
                if run.tune
                else ""
            ),
            "profile": ", ".join(f"{c.backend} on {c.adapter}" for c in run.ceilings),
            "bench": f"{len(run.bench_rows)} rows",
        }[run.kind]
        rows.append([run.label, run.kind, content, run.path])
    return _table(["run", "kind", "holds", "file"], rows)


def _reports_html(data: ReportData) -> str:
    """The report text every matrix cell and mismatch figure links to."""
    blocks: dict[str, list[str]] = {}
    titles: dict[str, str] = {}
    for ev in data.evaluations:
        titles.setdefault(ev.anchor, f"{ev.kernel} on {ev.backend} ({ev.adapter}), run {ev.run}")
        blocks.setdefault(ev.anchor, []).append(ev.report)
    for row in data.certified:
        titles.setdefault(
            row.anchor,
            f"certify {row.kernel} on {row.backend} ({row.adapter}): {row.result}, run {row.run}",
        )
        blocks.setdefault(row.anchor, []).append(row.report or row.detail or row.result)
    return "".join(
        f'<div class="report" id="{_e(a)}"><h3>{_e(titles[a])}</h3>'
        + "".join(f"<pre>{_e(text)}</pre>" for text in texts)
        + "</div>"
        for a, texts in blocks.items()
    )


def _page(data: ReportData, figures: list, pngs: dict[str, bytes]) -> str:
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<link rel="icon" href="data:,">',
        "<title>kernel-forge report</title>",
        f"<style>{_STYLE}</style></head><body>",
        "<h1>kernel-forge report</h1>",
        f"<p>Made by kforge report from {len(data.runs)} file(s):</p>",
        _runs_html(data),
    ]
    present = [(key, title) for key, title in SECTIONS if any(f.section == key for f in figures)]
    links = [f'<a href="#section-{k}">{_e(t)}</a>' for k, t in present]
    links.append('<a href="#section-reports">Report text</a>')
    parts.append(f"<nav>{' | '.join(links)}</nav>")
    for key, title in present:
        parts.append(f'<section id="section-{key}"><h2>{_e(title)}</h2>')
        parts += [_figure_html(f, pngs[f.id]) for f in figures if f.section == key]
        parts.append("</section>")
    parts.append(
        f'<section id="section-reports"><h2>Report text</h2>{_reports_html(data)}'
        "</section></body></html>"
    )
    return "\n".join(parts) + "\n"

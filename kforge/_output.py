"""What every CLI command shares: rich tables for people, JSON for machines, a progress
bar, and schedule arguments."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from forge.errors import ForgeError
from forge.schedule import Schedule

__all__ = [
    "print_json",
    "json_stdout",
    "print_table",
    "add_json_flag",
    "console",
    "progress",
    "schedule_arg",
    "count_arg",
    "positive_arg",
    "seconds_arg",
    "write_json",
    "output_file_arg",
    "output_dir_arg",
]


def console(stderr: bool = False) -> Console:
    # A wide fallback so piped output is not folded into an unreadable column.
    return Console(stderr=stderr, width=None if sys.stdout.isatty() else 160)


def add_json_flag(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON for machines")


#: The file descriptor ``print_json`` writes to while ``json_stdout`` holds stdout.
_JSON_FD: int | None = None


def print_json(data: Any) -> None:
    text = json.dumps(data, indent=2, sort_keys=True, default=str) + "\n"
    if _JSON_FD is None:
        sys.stdout.write(text)
        return
    view = memoryview(text.encode())
    while view:
        view = view[os.write(_JSON_FD, view) :]


@contextlib.contextmanager
def json_stdout(enabled: bool) -> Iterator[None]:
    """While a ``--json`` command runs, keep standard output for its JSON alone: what
    anything else writes there goes to standard error instead, both Python's prints
    (a reference function's debug print) and what C code writes to file descriptor 1
    (the CUDA driver's copy of a kernel's device ``printf``, in a kernel run in this
    process, ``--no-isolate``). Nothing changes where stdout is not descriptor 1 (a
    test's captured stream)."""
    global _JSON_FD
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, io.UnsupportedOperation):
        fd = None
    if not enabled or fd != 1 or _JSON_FD is not None:
        yield
        return
    sys.stdout.flush()
    _JSON_FD = os.dup(1)
    os.dup2(2, 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(_JSON_FD, 1)
        os.close(_JSON_FD)
        _JSON_FD = None


def print_table(
    title: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    caption: str | None = None,
    whole: int = 1,
) -> None:
    """A table of text cells. The first ``whole`` columns hold names (kernel ids,
    backends) that people read and grep: they are never folded, however long the
    other cells are; the rest fold to fit the width."""
    # Cells are text, not rich markup: "pip install 'kernel-forge[cuda]'" keeps its [cuda].
    cells = [["" if cell is None else str(cell) for cell in row] for row in rows]
    table = Table(title=escape(title), caption=caption and escape(caption), title_justify="left")
    for i, column in enumerate(columns):
        if i < whole:
            widest = max((len(row[i]) for row in cells), default=0)
            table.add_column(escape(column), no_wrap=True, min_width=max(widest, len(column)))
        else:
            table.add_column(escape(column), overflow="fold")
    for row in cells:
        table.add_row(*(escape(cell) for cell in row))
    console().print(table)


@contextlib.contextmanager
def progress(total: int | None, quiet: bool) -> Iterator:
    """A progress bar on stderr with the total known (nothing when ``quiet``); yields
    ``advance(text)``, which also takes ``total=`` alone to set a total learnt later."""
    if quiet:
        yield lambda text="", total=None: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task("starting", total=total)

        def advance(text: str = "", total: int | None = None) -> None:
            if total is not None:
                bar.update(task, total=total)
            else:
                bar.update(task, advance=1, description=text)

        yield advance


def _int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} must be an integer, got {text!r}") from None


def count_arg(text: str) -> int:
    """An integer >= 0 (seeds, samples)."""
    value = _int(text, "the value")
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def positive_arg(text: str) -> int:
    """An integer >= 1 (capacities, worker counts)."""
    value = _int(text, "the value")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def seconds_arg(text: str) -> float:
    """A finite number of seconds > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seconds must be a number, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds > 0, got {text}")
    return value


def _writable_below(path: Path, text: str) -> None:
    """Fail unless the nearest existing folder above ``path`` is a folder: a file there
    (a typo, a path one level too deep) would make the write fail after the run."""
    for parent in path.absolute().parents:
        if parent.exists():
            if not parent.is_dir():
                raise argparse.ArgumentTypeError(f"{text}: {parent} is a file, not a folder")
            return


def output_file_arg(text: str) -> str:
    """A file the command writes when it ends (--results, --junit, --report): refused
    now, before anything runs, where it could not be written then (the run's verdicts
    were lost to a traceback)."""
    path = Path(text)
    if not text or path.is_dir():
        raise argparse.ArgumentTypeError(f"{text or 'an empty path'} is a folder: give a file")
    _writable_below(path, text)
    return text


def output_dir_arg(text: str) -> str:
    """A folder the command writes into as it runs (--save-failures), checked the same way."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a file: give a folder")
    _writable_below(path, text)
    return text


def write_json(path: str, data: Any) -> None:
    """Write ``data`` as JSON to ``path`` atomically (nothing half-written is left)."""
    from forge.cache import write_atomically

    write_atomically(path, json.dumps(data, indent=2, sort_keys=True, default=str) + "\n")


def schedule_arg(text: str) -> Schedule:
    """``Schedule.parse`` as an argparse type that keeps the reason for a bad schedule."""
    try:
        return Schedule.parse(text)
    except ForgeError as exc:  # argparse would replace the reason with "invalid value"
        raise argparse.ArgumentTypeError(str(exc)) from None

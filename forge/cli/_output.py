"""Printing for the CLI: rich tables for people, JSON for machines."""

from __future__ import annotations

import json
import sys
from typing import Any, Sequence

from rich.console import Console
from rich.table import Table

__all__ = ["print_json", "print_table", "add_json_flag", "console"]


def console(stderr: bool = False) -> Console:
    # A wide fallback so piped output is not folded into an unreadable column.
    return Console(stderr=stderr, width=None if sys.stdout.isatty() else 160)


def add_json_flag(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON for machines")


def print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, sort_keys=True, default=str))


def print_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]],
                caption: str | None = None) -> None:
    table = Table(title=title, caption=caption, title_justify="left")
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*("" if cell is None else str(cell) for cell in row))
    console().print(table)

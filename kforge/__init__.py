"""``kforge``: the command line (docs/DESIGN.md section 6), above everything it drives.

Each group of commands lives in its own module with a ``register(subparsers)``
function. Human tables by default, ``--json`` for machines. Exit codes: 0 all passed,
1 a failing verdict or an evaluation that did not run, 2 a usage or input error, 130
interrupted (what was judged is kept).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import forge
from forge.errors import ForgeError

from . import _cache, _check, _codegen, _listing, _oracle, _report, _tune

__all__ = ["main", "build_parser"]

_COMMAND_MODULES = (_listing, _check, _oracle, _tune, _codegen, _cache, _report)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kforge",
        description="Run GPU kernels on every backend, judge them against a reference, "
        "tune and certify them.",
    )
    parser.add_argument("--version", action="version", version=f"kforge {forge.__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for module in _COMMAND_MODULES:
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        print(f"kforge {args.command}: interrupted", file=sys.stderr)
        return 130
    except ForgeError as exc:
        print(f"kforge {args.command}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2

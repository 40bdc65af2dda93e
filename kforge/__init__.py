"""``kforge``: the command line (DESIGN.md section 6).

Each group of commands lives in its own module with a ``register(subparsers)``
function. Human tables by default, ``--json`` for machines. Commands that drive the
oracle import it when they run, so ``import forge`` stays free of it.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from forge.errors import ForgeError
from . import _codegen, _listing, _oracle

__all__ = ["main", "build_parser"]

_COMMAND_MODULES = (_listing, _oracle, _codegen)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kforge",
        description="Run GPU kernels on every backend, cross-check them against a numpy "
                    "reference, tune and certify them.")
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
    except ForgeError as exc:
        print(f"kforge {args.command}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2

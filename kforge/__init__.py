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

__all__ = ["main", "build_parser"]

# Commands that run device backends in worker processes, and flags with which they do
# not (in-process, under a sanitizer, on a Ray cluster) or run nothing (help, report).
_WORKER_COMMANDS = frozenset({"check", "certify", "tune"})
_NO_EARLY_WORKERS = frozenset({"--no-isolate", "--sanitize", "--ray", "-h", "--help", "--report"})
_HOST_BACKENDS = frozenset({"reference"})  # run in this process: no worker to start


def build_parser() -> argparse.ArgumentParser:
    import forge

    from . import _cache, _check, _codegen, _listing, _oracle, _report, _tune

    parser = argparse.ArgumentParser(
        prog="kforge",
        description="Run GPU kernels on every backend, judge them against a reference, "
        "tune and certify them.",
    )
    parser.add_argument("--version", action="version", version=f"kforge {forge.__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for module in (_listing, _check, _oracle, _tune, _codegen, _cache, _report):
        module.register(subparsers)
    return parser


def _start_workers_early(argv: Sequence[str]) -> None:
    """For ``check``, ``certify`` and ``tune`` with backends named by ``--backend``: start
    their worker processes now, before this process imports the framework, so that the
    workers' imports and device start overlap this process's (``oracle._spawn``)."""
    if not argv or argv[0] not in _WORKER_COMMANDS or _NO_EARLY_WORKERS & set(argv):
        return
    named = [
        value for flag, value in zip(argv, argv[1:]) if flag in ("--backend", "--reference-backend")
    ]
    named += [
        a.split("=", 1)[1] for a in argv if a.startswith(("--backend=", "--reference-backend="))
    ]
    from oracle import _spawn  # the standard library alone

    _spawn.start_early(dict.fromkeys(n for n in named if n not in _HOST_BACKENDS))


def main(argv: Sequence[str] | None = None) -> int:
    from oracle import _spawn

    _start_workers_early(list(sys.argv[1:] if argv is None else argv))
    try:
        from forge.errors import ForgeError

        from ._output import json_stdout

        parser = build_parser()
        args = parser.parse_args(argv)
        try:
            with json_stdout(bool(getattr(args, "json", False))):
                return int(args.run(args) or 0)
        except KeyboardInterrupt:
            print(f"kforge {args.command}: interrupted", file=sys.stderr)
            return 130
        except ForgeError as exc:
            print(f"kforge {args.command}: {type(exc).__name__}: {exc}", file=sys.stderr)
            return 2
    finally:
        _spawn.discard_early()  # those the command did not use

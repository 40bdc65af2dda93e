"""``kforge``: the command line (docs/DESIGN.md section 6), above everything it drives.

Each group of commands lives in its own module with a ``register(subparsers)``
function. Human tables by default, ``--json`` for machines. Exit codes: 0 all passed,
1 a failing verdict or an evaluation that did not run, 2 a usage or input error, 130
interrupted by Ctrl-C, 143 stopped by SIGTERM (what was judged is kept either way).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

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


# SIGTERM arrived during this command. It raises KeyboardInterrupt in the main thread,
# so that every path that keeps what was judged on Ctrl-C keeps it on a polite kill too.
_TERMINATED: list[int] = []


def _on_sigterm(signum: int, _frame: object) -> None:
    _TERMINATED.append(signum)
    raise KeyboardInterrupt(signum)


def _catch_sigterm() -> Callable[[], None]:
    """Route SIGTERM through ``_on_sigterm`` while a command runs (the main thread
    only: elsewhere Python cannot set handlers); returns what puts it back."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    _TERMINATED.clear()
    previous = signal.signal(signal.SIGTERM, _on_sigterm)

    def restore() -> None:
        signal.signal(signal.SIGTERM, previous)

    return restore


def _command_of(argv: Sequence[str]) -> str:
    return next((f"kforge {a}" for a in argv if not a.startswith("-")), "kforge")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command ``argv`` names; its exit code. Ctrl-C (or SIGTERM) anywhere, the
    imports included, ends it with one line and 130 (143): no traceback."""
    from oracle import _spawn

    arguments = list(sys.argv[1:] if argv is None else argv)
    restore = _catch_sigterm()
    try:
        try:
            _start_workers_early(arguments)
            from forge.errors import ForgeError

            from ._output import json_stdout

            parser = build_parser()
            args = parser.parse_args(argv)
            if getattr(args, "reference_timeout", None) is not None:
                from forge import set_reference_bound

                set_reference_bound(args.reference_timeout)
            try:
                with json_stdout(bool(getattr(args, "json", False))):
                    code = int(args.run(args) or 0)
            except ForgeError as exc:
                print(f"kforge {args.command}: {type(exc).__name__}: {exc}", file=sys.stderr)
                return 2
        finally:
            _spawn.discard_early()  # those the command did not use
    except KeyboardInterrupt:
        stopped = bool(_TERMINATED)
        why = "terminated (SIGTERM)" if stopped else "interrupted"
        print(f"{_command_of(arguments)}: {why}", file=sys.stderr)
        return 143 if stopped else 130
    finally:
        restore()
    # A command that kept what it judged when stopped returns 130: say which signal.
    return 143 if code == 130 and _TERMINATED else code

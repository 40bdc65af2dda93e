"""``python -m oracle._worker REQUESTS_FD RESULTS_FD [BACKEND]``: a worker process
holding one warm context (see ``oracle._workers``). Given a backend, it imports it and
probes its device before its first request (``oracle._spawn.start_early``). It
answers ``("open", backend, options, timeout_s)`` with ``("ready", BackendInfo)`` or
``("error", ErrorInfo)``, ``("run", Plan)`` with ``("outcome", Outcome)``, and exits on
``("close",)`` or when the driver goes away."""

from __future__ import annotations

import os
import signal
import sys
from multiprocessing.connection import Connection
from typing import Any


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the driver stops us on Ctrl-C
    requests = Connection(int(argv[1]), writable=False)
    results = Connection(int(argv[2]), readable=False)

    from forge import registry
    from forge.errors import ForgeError

    if len(argv) > 3:  # warm up: what open_context would do first, done while the driver starts
        registry.availability(argv[3])

    from ._plan import BackendInfo, ErrorInfo, Outcome, execute

    ctx: Any = None  # the OracleContext once "open" succeeded
    while True:
        try:
            message = requests.recv()
        except (EOFError, OSError):
            break
        kind = message[0]
        if kind == "open":
            _, name, options, timeout_s = message
            try:
                ctx = registry.open_context(name, **options)
                ctx.timeout_s = timeout_s
                results.send(("ready", BackendInfo.of(ctx)))
            except ForgeError as exc:
                results.send(("error", ErrorInfo.of(exc)))
        elif kind == "run":
            try:
                outcome = execute(ctx, message[1])
            except Exception as exc:  # a bug, not the kernel: report it, stay alive
                outcome = Outcome(error=ErrorInfo(type(exc).__name__, f"the worker failed: {exc}"))
            results.send(("outcome", outcome))
        elif kind == "close":
            break
    if ctx is not None:
        try:
            ctx.close()
        except ForgeError:
            pass
    return 0


if __name__ == "__main__":
    code = main(sys.argv)
    # The context is closed: what is left is the interpreter's own teardown (every
    # module's objects, one by one), which the driver waits for in close(); the
    # operating system reclaims it at once.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)

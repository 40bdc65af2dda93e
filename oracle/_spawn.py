"""Starting a worker process (``python -m oracle._worker``) with the standard library
alone, so that a command line can start the workers its arguments ask for before it
imports anything else: the worker's own imports and device start then run while the
command line imports and plans (``start_early``); ``oracle._workers`` adopts such a
worker when it needs one for that backend (``take_early``), else starts its own.

A worker started with a backend's name warms it up (imports it and probes its device)
before it reads its first request; it still opens its context only when asked, with
the options the driver gives then. Workers started early and never adopted are stopped
when the command ends (``discard_early``, also at exit)."""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import IO

__all__ = [
    "Spawned",
    "worker_command",
    "spawn",
    "new_log",
    "start_early",
    "take_early",
    "discard_early",
]


def worker_command() -> list[str]:
    return [sys.executable, "-m", "oracle._worker"]


@dataclass
class Spawned:
    """A worker process, the driver's ends of its two pipes and its stderr log."""

    process: subprocess.Popen
    send: Connection
    recv: Connection
    stderr: IO[bytes]
    log_path: str


def spawn(prefix: Sequence[str], log_path: str, warm: str | None = None) -> Spawned:
    """Start ``python -m oracle._worker`` (under the command ``prefix``, such as
    compute-sanitizer), its stderr to ``log_path``; ``warm``: a backend it prepares
    before its first request."""
    to_worker_r, to_worker_w = os.pipe()
    from_worker_r, from_worker_w = os.pipe()
    env = dict(os.environ)
    env.setdefault("XDG_RUNTIME_DIR", tempfile.gettempdir())
    stderr = open(log_path, "wb")
    try:
        process = subprocess.Popen(
            [*prefix, *worker_command(), str(to_worker_r), str(from_worker_w)]
            + ([warm] if warm else []),
            pass_fds=(to_worker_r, from_worker_w),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            env=env,
        )
    except BaseException:
        stderr.close()
        os.close(to_worker_w)
        os.close(from_worker_r)
        raise
    finally:
        os.close(to_worker_r)
        os.close(from_worker_w)
    return Spawned(
        process,
        Connection(to_worker_w, readable=False),
        Connection(from_worker_r, writable=False),
        stderr,
        log_path,
    )


def new_log(name: str) -> str:
    """A fresh file for the stderr of a ``name`` worker."""
    log = tempfile.NamedTemporaryFile(prefix=f"kforge-{name}-worker-", suffix=".log", delete=False)
    log.close()
    return log.name


_EARLY: dict[str, Spawned] = {}


def start_early(backends: Iterable[str]) -> None:
    """Start one warming worker for each of ``backends`` that has none waiting yet."""
    for name in backends:
        if name not in _EARLY:
            if not _EARLY:
                atexit.register(discard_early)
            _EARLY[name] = spawn((), new_log(name), warm=name)


def take_early(name: str) -> Spawned | None:
    """The worker started early for backend ``name``, now the caller's; None if none."""
    return _EARLY.pop(name, None)


def stop(spawned: Spawned) -> None:
    """Close the pipes and kill the process (if it still runs), waiting for it."""
    for connection in (spawned.send, spawned.recv):
        try:
            connection.close()
        except OSError:
            pass
    if spawned.process.poll() is None:
        spawned.process.kill()
        try:
            spawned.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
    spawned.stderr.close()


def discard_early() -> None:
    """Stop the workers started early that nothing adopted, and remove their logs."""
    while _EARLY:
        _, spawned = _EARLY.popitem()
        stop(spawned)
        try:
            os.unlink(spawned.log_path)
        except OSError:
            pass

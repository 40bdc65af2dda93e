"""The ``Session``: one runner per backend for a whole run (a ``kforge check``, a
cross-check, a pytest session), in this process or in worker processes (see
``oracle._runners`` and ``oracle._workers``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from forge import registry
from forge.contract import OracleContext
from forge.errors import ForgeError, GpuUnavailable, InvalidArgument

from ._runners import InProcessRunner, Runner
from ._workers import WorkerRunner

__all__ = ["Session"]


class Session:
    """One runner per backend for a whole run (a ``kforge check``, a cross-check, a
    pytest session), opened on first use and kept warm: contexts and their compiled
    pipelines serve every evaluation. ``isolate``: True or False for every backend,
    None for each backend's default (workers for device code). ``timeout_s`` bounds
    each wait for the device in the contexts the session opens, and is the bound of
    every evaluation run through its runners that names none (``evaluate``,
    ``cross_check``, ``tune``... ``timeout_s=None`` there: unbounded); ``open_options`` maps
    a backend name to the options it is opened with; ``sanitize`` runs CUDA under
    compute-sanitizer. Close it (or use it as a context manager) to stop its workers."""

    def __init__(
        self,
        *,
        isolate: bool | None = None,
        open_options: Mapping[str, Mapping[str, Any]] | None = None,
        timeout_s: float | None = None,
    ) -> None:
        self.isolate = isolate
        self.open_options = {k: dict(v) for k, v in (open_options or {}).items()}
        self.timeout_s = timeout_s
        self._runners: dict[str, Runner] = {}
        self._failed: dict[str, str] = {}
        self.closed = False

    def isolated(self, name: str) -> bool:
        """Whether backend ``name`` runs in a worker: never a host backend (it runs no
        device code, and its kernels need not pickle), else ``isolate``, else yes."""
        entries = registry.backend_entries()
        device_code = entries[name].device_code if name in entries else True
        if not device_code:
            return False
        return True if self.isolate is None else self.isolate

    def runner(self, name: str) -> Runner:
        """The runner of backend ``name``, opened on first use (raises the
        ``ForgeError`` that stopped it, every time it is asked again)."""
        if self.closed:
            raise InvalidArgument("this session is closed")
        if name in self._runners:
            return self._runners[name]
        if name in self._failed:
            raise GpuUnavailable(self._failed[name])
        options = self.open_options.get(name, {})
        try:
            if self.isolated(name):
                runner: Runner = WorkerRunner(name, options, self.timeout_s)
            else:
                runner = InProcessRunner(
                    self._open(name, options),
                    owned=True,
                    reopen=None
                    if "capacity_bytes" in options
                    else lambda capacity: self._open(name, {**options, "capacity_bytes": capacity}),
                )
        except ForgeError as exc:
            self._failed[name] = f"{type(exc).__name__}: {exc}"
            raise
        runner.timeout_s = self.timeout_s  # evaluations through it default to this bound
        self._runners[name] = runner
        return runner

    def _open(self, name: str, options: Mapping[str, Any]) -> OracleContext:
        ctx = registry.open_context(name, **options)
        ctx.timeout_s = self.timeout_s
        return ctx

    def start(self, names: Iterable[str]) -> None:
        """Start the workers of backends ``names`` now, all at once, so their imports
        and context opening overlap each other and the caller's own work; in-process
        backends open on first use. A backend that cannot start says so when its runner
        is asked for."""
        for name in names:
            if name not in self._runners and name not in self._failed and self.isolated(name):
                try:
                    self.runner(name)
                except ForgeError:
                    pass  # remembered in _failed; runner() raises it again when asked

    def opened(self, name: str) -> tuple[bool, str]:
        """Whether backend ``name`` opened here (its worker reported ready), and why not."""
        try:
            _ = self.runner(name).info  # opens the worker, or raises why it cannot
        except ForgeError as exc:
            self._runners.pop(name, None)
            self._failed.setdefault(name, f"{type(exc).__name__}: {exc}")
            return False, self._failed[name]
        return True, ""

    def runners(self) -> Iterable[Runner]:
        return list(self._runners.values())

    def close(self) -> None:
        """Stop every worker and close every context the session opened."""
        self.closed = True
        runners, self._runners = list(self._runners.values()), {}
        for runner in runners:
            try:
                runner.close()
            except ForgeError:
                pass  # a lost context has nothing left to release

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

"""Worker processes: a backend's context held warm in a process of its own, so that a
kernel which faults, hangs or kills its process costs only its own verdict.

The driver starts ``python -m oracle._worker`` (optionally under a command prefix such
as ``compute-sanitizer --tool memcheck``), talks to it over two pipes with pickled
messages (``multiprocessing.connection``), and replaces it after a fault:

- the worker died (a signal, an abort in native code): verdict ``crashed``, with the
  signal and the tail of the worker's stderr;
- the device or context was lost: verdict ``device-lost``;
- a wait ran past ``timeout_s`` inside the worker, or the worker did not answer within
  the driver's own deadline: verdict ``timeout``; the worker is killed, so whatever
  the device still runs ends with its process.

Workers ignore Ctrl-C (the terminal sends it to the whole process group): the driver
stops them when it stops.
"""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

from forge import registry
from forge.errors import ForgeError, GpuUnavailable
from forge.kernel import KernelSpec
from forge.schedule import Schedule

from . import _spawn
from ._plan import BackendInfo, ErrorInfo, Outcome, Plan
from ._runners import Runner

__all__ = ["WorkerRunner", "CRASHED"]

#: ``ErrorInfo.type`` of an evaluation whose worker process died.
CRASHED = "WorkerCrashed"
_START_TIMEOUT = 120.0  # seconds a worker may take to import and open its context
_DEADLINE_WAITS = 3  # a plan's bounded waits: the judged run, the samples, the rerun
_DEADLINE_MARGIN = 20.0  # beyond them: uploads, compiles, reads


class _Worker:
    """One worker process and its two pipe ends (``oracle._spawn.Spawned``)."""

    def __init__(self, spawned: _spawn.Spawned) -> None:
        self.process, self.send, self.recv = spawned.process, spawned.send, spawned.recv
        self._finalizer = weakref.finalize(self, _spawn.stop, spawned)

    def request(self, message: Any, deadline: float | None) -> Any:
        """Send ``message`` and return the answer; raises ``EOFError`` when the worker
        died, ``TimeoutError`` when it did not answer within ``deadline`` seconds."""
        return self.request_bytes(pickle.dumps(message), deadline)

    def request_bytes(self, message: bytes, deadline: float | None) -> Any:
        """``request`` of a message pickled already."""
        try:
            self.send.send_bytes(message)
            answered = self.recv.poll(deadline)
            if answered:
                return self.recv.recv()
        except (BrokenPipeError, ConnectionResetError, OSError) as exc:
            raise EOFError(str(exc)) from exc
        raise TimeoutError(f"no answer within {deadline} s")

    def died(self) -> str:
        """Why the process ended (its signal or exit status), after it did."""
        try:
            code = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "it stopped answering"
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exited with status {code}"

    def stop(self) -> None:
        self._finalizer()


class WorkerRunner(Runner):
    """Plans of backend ``name`` run in a worker process holding one context opened
    with ``options`` (its waits bounded by ``timeout_s``); replaced after a fault.
    ``prefix`` is a command the worker runs under (compute-sanitizer)."""

    _starting: _Worker | None  # started by _launch, waited for by _ready

    isolated = True

    def __init__(
        self,
        name: str,
        options: Mapping[str, Any] | None = None,
        timeout_s: float | None = None,
        prefix: Sequence[str] = (),
    ) -> None:
        self.name, self.options, self.timeout_s = name, dict(options or {}), timeout_s
        self.fixed_options = dict(self.options)  # what the caller chose (growth leaves them)
        self.prefix = list(prefix)
        self._log_path = ""  # the worker's stderr, once one was started
        self._worker: _Worker | None = None
        self._info: BackendInfo | None = None
        self.restarts = 0
        self._launch()

    @property
    def info(self) -> BackendInfo:
        """The backend's identity, once its worker has opened the context (waits for it
        the first time; raises the ``ForgeError`` that stopped it)."""
        if self._info is None:
            self._ready()
        assert self._info is not None
        return self._info

    @property
    def log_path(self) -> str:
        return self._log_path

    def _launch(self) -> _Worker:
        """Start a worker and ask it to open its context, without waiting: the driver
        goes on with its own work while the worker imports and opens."""
        early = None if self.prefix else _spawn.take_early(self.name)
        if early is not None:  # started by the command line before it imported all this
            self._log_path = early.log_path
        elif not self._log_path:
            self._log_path = _spawn.new_log(self.name)
        worker = _Worker(early or _spawn.spawn(self.prefix, self._log_path))
        try:
            worker.send.send(("open", self.name, self.options, self.timeout_s))
        except OSError:
            pass  # it died already: _ready says why
        self._starting = worker
        return worker

    def _ready(self) -> None:
        """Wait for the worker started by ``_launch`` to open its context."""
        worker, self._starting = self._starting, None
        if worker is None:
            worker = self._launch()
            self._starting = None
        try:
            if not worker.recv.poll(_START_TIMEOUT):
                raise TimeoutError
            answer = worker.recv.recv()
        except (EOFError, OSError, TimeoutError):
            why = worker.died()
            worker.stop()
            raise GpuUnavailable(
                f"the {self.name} worker process did not start ({why}): {self._stderr_tail()}"
            ) from None
        if answer[0] != "ready":
            worker.stop()
            raise answer[1].as_exception()
        self._worker, self._info = worker, answer[1]

    def _stderr_tail(self, limit: int = 1500) -> str:
        try:
            with open(self._log_path, "rb") as f:
                f.seek(0, os.SEEK_END)
                f.seek(max(0, f.tell() - limit))
                return f.read().decode(errors="replace").strip() or "(no output)"
        except OSError:
            return "(no output)"

    def _deadline(self, plan: Plan) -> float | None:
        bound = plan.timeout_s if isinstance(plan.timeout_s, (int, float)) else self.timeout_s
        if bound is None:
            return None
        return _DEADLINE_WAITS * float(bound) + _DEADLINE_MARGIN

    def execute(self, plan: Plan) -> Outcome:
        if self._worker is None:
            try:
                replacing = self._info is not None
                self._ready()
                self.restarts += replacing
            except ForgeError as exc:
                return Outcome(
                    error=ErrorInfo(
                        type(exc).__name__,
                        f"the {self.name} worker could not be replaced: {exc}",
                        lost=True,
                    )
                )
        worker = self._worker
        assert worker is not None
        try:
            message = pickle.dumps(("run", plan))
        except (pickle.PicklingError, AttributeError, TypeError) as exc:
            return Outcome(
                error=ErrorInfo(
                    "InvalidArgument",
                    f"kernel {plan.kernel.id} cannot be "
                    f"sent to a worker process ({exc}): the {self.name} "
                    "backend runs its numpy meaning there, so its "
                    "functions must be importable module-level ones; or "
                    "run in this process (isolate=False, --no-isolate)",
                )
            )
        try:
            answer = worker.request_bytes(message, self._deadline(plan))
        except TimeoutError:
            self._replace()
            return Outcome(
                error=ErrorInfo(
                    "KernelTimeout",
                    f"the {self.name} worker did not "
                    f"answer within {self._deadline(plan):g} s; it was "
                    "killed (and the device work with it)",
                    lost=True,
                    timeout=True,
                )
            )
        except EOFError:
            why = worker.died()
            tail = self._stderr_tail()
            self._replace()
            return Outcome(
                error=ErrorInfo(
                    CRASHED,
                    f"the {self.name} worker process died "
                    f"({why}) running {plan.kernel.id}; its last output: "
                    f"{tail}",
                    lost=True,
                )
            )
        outcome: Outcome = answer[1]
        if outcome.error is not None and outcome.error.lost:
            self._replace()  # a lost device, or a timeout with work still running
        return outcome

    def compile_ahead(self, kernel: KernelSpec, schedule: Schedule, size: Any) -> None:
        """The backend entry's ``compile_ahead``, made here for the worker's context (as
        its ``BackendInfo`` describes it): the worker runs on this host with this
        process's environment, so it reads the cache this fills (CUDA: NVRTC's, under
        the cache root). Nothing before the worker first opened."""
        info = self._info
        entry = registry.backend_entries().get(self.name)
        hook = getattr(entry, "compile_ahead", None)
        if info is not None and callable(hook):
            hook(kernel, schedule, size, info.adapter, info.constraints)

    def grow(self, capacity_bytes: int) -> bool:
        """Restart the worker with ``capacity_bytes`` (unless the caller chose one)."""
        if "capacity_bytes" in self.fixed_options:
            return False
        self.options["capacity_bytes"] = int(capacity_bytes)
        if self._worker is not None:
            self._worker.stop()
            self._worker = None
        starting, self._starting = self._starting, None
        if starting is not None:
            starting.stop()
        self._launch()
        self._info = None
        self._ready()
        return True

    def _replace(self) -> None:
        """Stop the worker and start its replacement at once (it opens meanwhile)."""
        if self._worker is not None:
            self._worker.stop()
            self._worker = None
        self._launch()

    def close(self) -> None:
        worker, self._worker = self._worker, None
        starting, self._starting = getattr(self, "_starting", None), None
        if starting is not None:
            starting.stop()
        if worker is not None:
            try:
                worker.send.send(("close",))
                worker.process.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired, ValueError):
                pass
            worker.stop()
        if self._log_path:
            try:
                os.unlink(self._log_path)
            except OSError:
                pass

"""Where plans run: in this process on a context (``InProcessRunner``), or in a worker
process that holds its own warm context (``oracle._workers.WorkerRunner``), and the
``Session`` (``oracle._session``) that keeps one runner per backend for a whole run.

A kernel that faults (an illegal address, a lost device, a hang, the process dying in
native code) costs only its own verdict: in a worker, the worker is replaced and the
next evaluation runs on a fresh context; in-process, a context that was lost turns
the backend's remaining evaluations into the verdict ``not-run`` with the reason,
never into a cascade of unrelated errors. Backends that run device code are isolated
in workers by default (``BackendEntry.device_code``); ``isolate=False`` runs them in
this process.
"""

from __future__ import annotations

import abc
from typing import Any

from forge.contract import OracleContext
from forge.kernel import KernelSpec
from forge.schedule import Schedule

from ._plan import BackendInfo, ErrorInfo, Outcome, Plan, execute

__all__ = ["Runner", "InProcessRunner", "NOT_RUN"]

#: ``ErrorInfo.type`` of an evaluation a runner did not run because its context was lost.
NOT_RUN = "NotRun"


class Runner(abc.ABC):
    """Runs plans for one backend and says what that backend is (``info``)."""

    name: str
    isolated: bool = False
    #: the bound on each wait for the device that the ``Session`` which opened this
    #: runner was given (None: none given; an evaluation's own default applies)
    timeout_s: float | None = None

    @property
    @abc.abstractmethod
    def info(self) -> BackendInfo: ...

    @abc.abstractmethod
    def execute(self, plan: Plan) -> Outcome: ...

    def grow(self, capacity_bytes: int) -> bool:
        """Reopen with at least ``capacity_bytes`` of memory, when this runner opened its
        context itself with the backend's default capacity; False when it cannot (a
        context the caller gave, or a capacity the caller chose)."""
        return False

    def compile_ahead(  # noqa: B027 - optional: a runner may have nothing to prepare
        self, kernel: KernelSpec, schedule: Schedule, size: Any
    ) -> None:
        """Do now, on the caller's thread, the device-free preparation of a run of
        ``kernel`` under ``schedule`` at ``size`` that this runner will make later
        (``OracleContext.compile_ahead``; CUDA: the NVRTC compile into its disk cache),
        where this process can reach what the run will read. The tuner calls it on
        threads of its own for the candidates it measures next. It may raise (the run
        reports the error as it would have): callers ignore it. Default: nothing (so a
        runner on another host, Ray's, prepares nothing)."""

    def close(self) -> None:  # noqa: B027 - optional: a runner may hold nothing
        """Release what the runner holds (idempotent)."""


class InProcessRunner(Runner):
    """Plans run on ``ctx`` in this process. When ``owned`` (a session opened it), a
    context that was lost ends the backend: later plans are not run."""

    def __init__(self, ctx: OracleContext, owned: bool = False, reopen: Any = None) -> None:
        # Any object with the contract's members will do (tests wrap contexts).
        self.ctx, self.owned, self.name = ctx, owned, ctx.backend_name
        self._info = BackendInfo.of(ctx)
        self._lost: str | None = None
        self._reopen = reopen  # (capacity_bytes) -> a new context, for grow()

    def grow(self, capacity_bytes: int) -> bool:
        if self._reopen is None or self._lost is not None:
            return False
        self.ctx.close()
        self.ctx = self._reopen(capacity_bytes)
        self._info = BackendInfo.of(self.ctx)
        return True

    @property
    def info(self) -> BackendInfo:
        return self._info

    def execute(self, plan: Plan) -> Outcome:
        if self._lost is not None:
            return Outcome(
                error=ErrorInfo(
                    NOT_RUN,
                    f"not run: the {self.name} context was lost earlier in this run ({self._lost})",
                )
            )
        outcome = execute(self.ctx, plan)
        if outcome.error is not None and outcome.error.lost and self.owned:
            self._lost = outcome.error.message.split("\n")[0][:200]
        return outcome

    def compile_ahead(self, kernel: KernelSpec, schedule: Schedule, size: Any) -> None:
        """The context's own ``compile_ahead`` (none after it was lost)."""
        hook = getattr(self.ctx, "compile_ahead", None)
        if self._lost is None and callable(hook):
            hook(kernel, schedule, size)

    def close(self) -> None:
        if self.owned:
            self.ctx.close()

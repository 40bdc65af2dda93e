"""Fleets: several runners per backend, spread over the machine's GPUs (worker
processes, ``Fleet.local``) or over a Ray cluster (actors, ``Fleet.on_ray``), behind
one runner per backend (``PooledRunner``) that runs each plan on whichever of its
runners is free.

A ``Fleet`` answers what a ``Session`` answers (``runner``, ``start``, ``opened``,
``close``), so the commands drive one the way they drive a session; ``concurrency``
says how many plans may run at once, and ``fan_out`` runs a command's work items on
that many threads, results coming back to the one caller that keeps the table, the
progress bar, the manifests and the tuning cache.

Faults: a worker that dies (a crash, a kill, a Ray actor or node lost) is replaced by
its runner, and the plan it was running is retried once on another runner of the same
backend (on the replacement when there is no other); the evaluation notes the retry.
A kernel that kills every worker it runs on gets its ``crashed`` verdict after that one
retry.

Medians are compared only within one adapter model: a backend whose runners report
different adapters (a heterogeneous Ray cluster) gets one ``PooledRunner`` per adapter
model (``groups``), and ``runner(name)`` is the largest of them.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import Any

from forge import registry
from forge.errors import ForgeError, GpuUnavailable, InvalidArgument
from forge.kernel import KernelSpec
from forge.schedule import Schedule

from ._plan import BackendInfo, Outcome, Plan
from ._ray import ray_slots
from ._runners import Runner
from ._session import Session
from ._slots import Slot, plan_slots
from ._workers import CRASHED

__all__ = ["Fleet", "PooledRunner", "Slot", "fan_out", "plan_slots", "adapter_model"]


def adapter_model(info: BackendInfo) -> str:
    """The adapter model a runner's medians may be compared within."""
    adapter = info.adapter
    return f"{adapter.name} [{adapter.vendor_id:#x}:{adapter.device_id:#x}]"


class PooledRunner(Runner):
    """The runners of one backend on one adapter model, as one runner: each plan runs
    on a free one (waiting for one when all are busy); ``concurrency`` plans at once."""

    def __init__(self, name: str, slots: Sequence[Slot]) -> None:
        if not slots:
            raise InvalidArgument(f"a pooled runner of {name} needs at least one runner")
        self.name, self.slots = name, list(slots)
        self.isolated = self.slots[0].runner.isolated
        self._free = threading.Condition()

    @property
    def info(self) -> BackendInfo:
        return self.slots[0].runner.info

    @property
    def concurrency(self) -> int:
        return len(self.slots)

    @property
    def labels(self) -> list[str]:
        return [slot.label for slot in self.slots]

    def _acquire(self, avoid: Slot | None = None) -> Slot:
        """A free slot, other than ``avoid`` when there is another."""
        with self._free:
            while True:
                alive = [s for s in self.slots if not getattr(s.runner, "dead", False)]
                free = [s for s in alive or self.slots if not s.busy]
                others = [s for s in free if s is not avoid]
                if others or (free and len(alive or self.slots) == 1):
                    slot = (others or free)[0]
                    slot.busy = True
                    return slot
                self._free.wait()

    def _release(self, slot: Slot) -> None:
        with self._free:
            slot.busy = False
            self._free.notify_all()

    def _run_on(self, slot: Slot, plan: Plan) -> Outcome:
        try:
            return slot.runner.execute(plan)
        finally:
            self._release(slot)

    def execute(self, plan: Plan) -> Outcome:
        slot = self._acquire()
        outcome = self._run_on(slot, plan)
        if outcome.error is None or outcome.error.type != CRASHED:
            return outcome
        first_error = outcome.error.message.split("\n")[0][:300]
        retry = self._acquire(avoid=slot)
        outcome = self._run_on(retry, plan)
        outcome.notes.append(
            f"retried on {retry.label} after the {slot.label} worker died ({first_error})"
        )
        return outcome

    @contextlib.contextmanager
    def pinned(self) -> Iterator[Runner]:
        """One of the runners, held (not shared) while the caller measures on it, so
        that what it compares was measured on one device."""
        slot = self._acquire()
        try:
            yield slot.runner
        finally:
            self._release(slot)

    def compile_ahead(self, kernel: KernelSpec, schedule: Schedule, size: Any) -> None:
        """Its first runner's (every runner here is on one adapter model, so what one
        prepares serves them all where they share a disk; Ray's prepare nothing). Never
        waits for a free runner."""
        self.slots[0].runner.compile_ahead(kernel, schedule, size)

    def grow(self, capacity_bytes: int) -> bool:
        """Grow every runner (each waits until it is free)."""
        grown = True
        for slot in list(self.slots):
            with self._free:
                while slot.busy:
                    self._free.wait()
                slot.busy = True
            try:
                grown = slot.runner.grow(capacity_bytes) and grown
            finally:
                self._release(slot)
        return grown

    def close(self) -> None:
        for slot in self.slots:
            try:
                slot.runner.close()
            except ForgeError:
                pass


def _device_counts(names: Iterable[str]) -> dict[str, int]:
    counts = {}
    for name in names:
        entry = registry.backend_entries().get(name)
        counter = getattr(entry, "devices", None)
        try:
            counts[name] = max(1, int(counter())) if callable(counter) else 1
        except Exception:  # a plugin's count that fails: one device
            counts[name] = 1
    return counts


class Fleet:
    """Runners spread over devices and backends, as one ``PooledRunner`` per backend
    and adapter model (see the module docstring)."""

    def __init__(
        self,
        slots: Mapping[str, Sequence[Slot]],
        owners: Sequence[Any] = (),
        on_close: Callable[[], None] | None = None,
    ) -> None:
        self._slots = {name: list(s) for name, s in slots.items()}
        self._owners = list(owners)
        self._groups: dict[str, list[PooledRunner]] = {}
        self._failed: dict[str, str] = {}
        self._on_close = on_close
        self._lock = threading.Lock()
        self.closed = False

    # -- building --
    @classmethod
    def local(
        cls,
        names: Sequence[str],
        workers: int | None = None,
        *,
        isolate: bool | None = None,
        open_options: Mapping[str, Mapping[str, Any]] | None = None,
        timeout_s: float | None = None,
    ) -> Fleet:
        """Worker processes (or, for host backends and ``isolate=False``, contexts in
        this process) spread over this machine's devices; see ``plan_slots``."""
        names = list(dict.fromkeys(names))
        entries = registry.backend_entries()
        hosts = [n for n in names if n in entries and not entries[n].device_code]
        layout = plan_slots(names, workers, _device_counts(names), hosts)
        sessions: list[Session] = []
        slots: dict[str, list[Slot]] = {name: [] for name in names}
        for name, devices in layout.items():
            entry = registry.backend_entries().get(name)
            option = getattr(entry, "device_option", None)
            for index, device in enumerate(devices):
                options = dict((open_options or {}).get(name, {}))
                if option and (len(set(devices)) > 1 or device):
                    options[option] = device
                while len(sessions) <= index:
                    sessions.append(Session(isolate=isolate, timeout_s=timeout_s))
                sessions[index].open_options[name] = options
                label = (
                    f"{name}:{device}"
                    if option
                    else (name if len(devices) == 1 else f"{name}#{index}")
                )
                slots[name].append(Slot(label, _LazyRunner(sessions[index], name)))
        return cls(slots, owners=sessions)

    @classmethod
    def on_ray(
        cls,
        names: Sequence[str],
        address: str | None = None,
        workers: int | None = None,
        *,
        open_options: Mapping[str, Mapping[str, Any]] | None = None,
        timeout_s: float | None = None,
    ) -> Fleet:
        """Ray actors, one warm context each, spread over a Ray cluster's GPUs (and its
        nodes, for backends that run on CPUs); see ``oracle._ray``."""

        slots, shutdown = ray_slots(
            list(dict.fromkeys(names)), address, workers, open_options or {}, timeout_s
        )
        return cls(slots, on_close=shutdown)

    # -- what a Session answers --
    def start(self, names: Iterable[str]) -> None:
        """Start every runner of ``names`` now, all at once."""
        for name in names:
            for slot in self._slots.get(name, ()):
                start = getattr(slot.runner, "start", None)
                if start is not None:
                    start()

    def groups(self, name: str) -> list[PooledRunner]:
        """The backend's runners that opened, one ``PooledRunner`` per adapter model,
        largest first (raises ``GpuUnavailable`` when none opened)."""
        if self.closed:
            raise InvalidArgument("this fleet is closed")
        with self._lock:
            if name not in self._groups and name not in self._failed:
                self._open(name)
        if name in self._failed:
            raise GpuUnavailable(self._failed[name])
        return self._groups[name]

    def _open(self, name: str) -> None:
        slots = self._slots.get(name)
        if not slots:
            self._failed[name] = f"backend {name!r} is not part of this fleet"
            return
        opened, why = [], ""
        for slot in slots:
            try:
                _ = slot.runner.info  # opens the slot's runner, or raises why it cannot
                opened.append(slot)
            except ForgeError as exc:
                why = why or f"{type(exc).__name__}: {exc}"
                continue
            where = getattr(slot.runner, "where", "")
            if where:  # an actor says where it runs once it has opened
                slot.label = f"{slot.label.split('@')[0]}@{where}"
        if not opened:
            self._failed[name] = why
            return
        models: dict[str, list[Slot]] = {}
        for slot in opened:
            models.setdefault(adapter_model(slot.runner.info), []).append(slot)
        self._groups[name] = sorted(
            (PooledRunner(name, group) for group in models.values()), key=lambda r: -r.concurrency
        )

    def runner(self, name: str) -> PooledRunner:
        return self.groups(name)[0]

    def opened(self, name: str) -> tuple[bool, str]:
        try:
            self.groups(name)
        except ForgeError as exc:
            return False, str(exc)
        return True, ""

    def runners(self) -> list[Runner]:
        return [r for groups in self._groups.values() for r in groups]

    @property
    def concurrency(self) -> int:
        """How many plans may run at once over every backend."""
        return sum(len(slots) for slots in self._slots.values()) or 1

    def width(self, name: str) -> int:
        """How many plans of backend ``name`` may run at once."""
        return max(1, len(self._slots.get(name, ())))

    def close(self) -> None:
        self.closed = True
        for slots in self._slots.values():
            for slot in slots:
                try:
                    slot.runner.close()
                except ForgeError:
                    pass
        for owner in self._owners:
            owner.close()
        if self._on_close is not None:
            self._on_close()

    def __enter__(self) -> Fleet:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()


class _LazyRunner(Runner):
    """A session's runner of one backend, asked for on first use (so that the
    session's failure handling and worker start-up apply)."""

    def __init__(self, session: Session, name: str) -> None:
        self.session, self.name = session, name

    @property
    def _runner(self) -> Runner:
        return self.session.runner(self.name)

    @property
    def isolated(self) -> bool:  # type: ignore[override]
        return self.session.isolated(self.name)

    def start(self) -> None:
        self.session.start([self.name])

    @property
    def info(self) -> BackendInfo:
        return self._runner.info

    def execute(self, plan: Plan) -> Outcome:
        return self._runner.execute(plan)

    def grow(self, capacity_bytes: int) -> bool:
        return self._runner.grow(capacity_bytes)

    def compile_ahead(self, kernel: KernelSpec, schedule: Schedule, size: Any) -> None:
        self._runner.compile_ahead(kernel, schedule, size)

    def close(self) -> None:
        """The session closes its runners."""


def fan_out(
    items: Sequence[Any], work: Callable[[Any], Any], threads: int
) -> Iterator[tuple[int, Any]]:
    """``(index, work(item))`` for each of ``items`` as it finishes, ``threads`` at a
    time. On Ctrl-C (or any exception in the caller) work not started is cancelled;
    what runs finishes or fails with its runners when the caller closes them."""
    if threads <= 1:
        for index, item in enumerate(items):
            yield index, work(item)
        return
    pool = ThreadPoolExecutor(max_workers=threads)
    futures: dict = {}
    try:
        pending = iter(enumerate(items))
        for index, item in pending:
            futures[pool.submit(work, item)] = index
            if len(futures) >= threads:
                break
        while futures:
            done, _ = wait(futures, return_when=FIRST_COMPLETED)
            for future in done:
                index = futures.pop(future)
                yield index, future.result()
                for next_index, item in pending:
                    futures[pool.submit(work, item)] = next_index
                    break
    finally:
        for future in futures:
            future.cancel()
        pool.shutdown(wait=False, cancel_futures=True)

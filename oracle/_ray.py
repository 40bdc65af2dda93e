"""Ray actors as workers (``kforge ... --ray [ADDRESS]``): each actor holds one warm
context, on one GPU (``num_gpus``) or of one CPU backend, and executes plans exactly
as a worker process does (``oracle._plan.execute``); the driver keeps judging, the
progress bar, the table, manifests and the tuning cache.

- ``ray.init()`` without an address starts a local cluster (Ray's own default, token
  authentication included); with an address it joins that cluster with Ray's token
  authentication on (``RAY_AUTH_MODE=token``; a driver that has it disabled is refused,
  never the other way round). The token comes from ``RAY_AUTH_TOKEN``,
  ``RAY_AUTH_TOKEN_PATH`` or ``~/.ray/auth_token``, as Ray reads it.
- Layout: one actor per GPU per device backend (a placement group of one-GPU
  bundles, each bundle shared by one actor of each device backend), one per node for
  a device backend on a cluster without GPUs (wgpu on lavapipe), one per host backend;
  ``--workers N`` caps them as for local workers (``oracle._fleet.plan_slots``).
- Faults: an actor that dies (killed, crashed in native code, its node gone) gives the
  plan it ran the verdict ``crashed``, and the pooled runner retries it once on another
  actor; the dead actor is replaced in its place, and a place that cannot be filled
  again (its node is gone) is left out of the pool. A plan past its deadline kills its
  actor (``timeout``).

Only ``ray``, ``ray.exceptions`` and ``ray.util`` (placement groups, scheduling
strategies) are used: nothing of what the GPU machine's trimmed Ray leaves out (jars,
rllib, data, serve; DEVELOPERS.md, "Running on the GPU machine").
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from forge import registry
from forge.errors import ForgeError, GpuUnavailable, InvalidArgument, MissingExtra

from ._plan import BackendInfo, ErrorInfo, Outcome, Plan, execute
from ._runners import Runner
from ._slots import Slot, plan_slots
from ._workers import _DEADLINE_MARGIN, _DEADLINE_WAITS, _START_TIMEOUT, CRASHED

__all__ = ["ray_slots", "import_ray", "connect", "PlanActor", "RayRunner"]


def import_ray():
    try:
        import ray
    except ImportError:
        raise MissingExtra(
            "--ray runs work on Ray actors, and Ray is not installed: pip install "
            "'kernel-forge[ray]' (or pip install ray)"
        ) from None
    return ray


def connect(ray, address: str | None) -> bool:
    """Start a local Ray cluster, or join the one at ``address`` with token
    authentication; True when this call started Ray (and its caller stops it)."""
    if ray.is_initialized():
        return False
    if not address:
        ray.init(include_dashboard=False, log_to_driver=False)
        return True
    if os.environ.get("RAY_AUTH_MODE", "").lower() == "disabled":
        raise InvalidArgument(
            "--ray ADDRESS joins a cluster only with Ray's token "
            "authentication, and RAY_AUTH_MODE=disabled is set here: unset it "
            "and give the cluster's token (RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH "
            "or ~/.ray/auth_token)"
        )
    os.environ.setdefault("RAY_AUTH_MODE", "token")
    try:
        ray.init(address=address, log_to_driver=False)
    except ray.exceptions.AuthenticationError as exc:
        raise GpuUnavailable(f"the Ray cluster at {address} refused this driver: {exc}") from None
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise GpuUnavailable(f"could not join the Ray cluster at {address}: {exc}") from None
    return True


class PlanActor:
    """The body of a Ray actor: one context of one backend, opened by ``open``; plans
    run with ``execute`` as in a worker process."""

    def __init__(self) -> None:
        self.ctx: Any = None  # the OracleContext once open succeeded

    def open(self, name: str, options: Mapping[str, Any], timeout_s: float | None) -> tuple:
        """``("ready", BackendInfo, where)`` or ``("error", ErrorInfo, where)``."""
        import ray

        context = ray.get_runtime_context()
        gpus = ",".join(str(g) for g in ray.get_gpu_ids())
        where = context.get_node_id()[:8] + (f"/gpu{gpus}" if gpus else "")
        try:
            self.ctx = registry.open_context(name, **dict(options))
            self.ctx.timeout_s = timeout_s
            return "ready", BackendInfo.of(self.ctx), where
        except ForgeError as exc:
            return "error", ErrorInfo.of(exc), where

    def execute(self, plan: Plan) -> Outcome:
        try:
            return execute(self.ctx, plan)
        except Exception as exc:  # a bug, not the kernel: report it, stay alive
            return Outcome(error=ErrorInfo(type(exc).__name__, f"the actor failed: {exc}"))

    def pid(self) -> int:
        return os.getpid()

    def close(self) -> None:
        if self.ctx is not None:
            try:
                self.ctx.close()
            except ForgeError:
                pass


class RayRunner(Runner):
    """Plans of backend ``name`` on a Ray actor placed by ``placement`` (actor options:
    resources and scheduling); the actor is replaced after it dies."""

    isolated = True

    def __init__(
        self,
        ray,
        name: str,
        options: Mapping[str, Any],
        timeout_s: float | None,
        placement: Mapping[str, Any],
        label: str,
    ) -> None:
        self.ray, self.name, self.options, self.timeout_s = ray, name, dict(options), timeout_s
        self.placement, self.label = dict(placement), label
        self._actor_class = _remote_class(ray)
        self._actor: Any = None  # a Ray actor handle
        self._info: BackendInfo | None = None
        self.where = ""
        self.dead = False
        self.restarts = 0
        self._lock = threading.Lock()

    def start(self) -> None:
        """Create the actor and ask it to open its context, without waiting."""
        if self._actor is None:
            self._actor = self._actor_class.options(**self.placement).remote()
            self._opening = self._actor.open.remote(self.name, self.options, self.timeout_s)

    @property
    def info(self) -> BackendInfo:
        if self._info is None:
            self._ready()
        assert self._info is not None
        return self._info

    def _ready(self) -> None:
        ray = self.ray
        self.start()
        try:
            answer = ray.get(self._opening, timeout=_START_TIMEOUT)
        except (ray.exceptions.GetTimeoutError, ray.exceptions.RayActorError) as exc:
            self._kill()
            raise GpuUnavailable(f"the {self.name} actor did not start: {exc}") from None
        kind, detail, self.where = answer
        if kind != "ready":
            self._kill()
            raise detail.as_exception()
        self._info = detail

    def pid(self) -> int:
        """The actor's process id (for tests that kill it)."""
        return self.ray.get(self._actor.pid.remote())

    def _deadline(self, plan: Plan) -> float | None:
        bound = plan.timeout_s if isinstance(plan.timeout_s, (int, float)) else self.timeout_s
        return None if bound is None else _DEADLINE_WAITS * float(bound) + _DEADLINE_MARGIN

    def execute(self, plan: Plan) -> Outcome:
        ray = self.ray
        try:
            _ = self.info  # starts the actor, or raises why it cannot
        except ForgeError as exc:
            self.dead = True
            return Outcome(
                error=ErrorInfo(
                    CRASHED,
                    f"the {self.name} actor at {self.label} could not be replaced: {exc}",
                    lost=True,
                )
            )
        try:
            return ray.get(self._actor.execute.remote(plan), timeout=self._deadline(plan))
        except ray.exceptions.GetTimeoutError:
            self._replace()
            return Outcome(
                error=ErrorInfo(
                    "KernelTimeout",
                    f"the {self.name} actor did not "
                    f"answer within {self._deadline(plan):g} s; it was "
                    "killed (and the device work with it)",
                    lost=True,
                    timeout=True,
                )
            )
        except ray.exceptions.RayActorError as exc:
            self._replace()
            why = str(exc).strip().split("\n")[0][:300]
            return Outcome(
                error=ErrorInfo(
                    CRASHED,
                    f"the {self.name} actor at {self.where} died running {plan.kernel.id}: {why}",
                    lost=True,
                )
            )

    def _replace(self) -> None:
        self._kill()
        self._info = None
        self.restarts += 1
        self.start()

    def _kill(self) -> None:
        actor, self._actor = self._actor, None
        if actor is not None:
            try:
                self.ray.kill(actor)
            except Exception:  # already gone with its node
                pass

    def close(self) -> None:
        actor = self._actor
        if actor is not None:
            try:
                self.ray.get(actor.close.remote(), timeout=10)
            except Exception:
                pass
        self._kill()


_REMOTE: list = []


def _remote_class(ray):
    """``PlanActor`` as a Ray actor class, made once."""
    if not _REMOTE:
        _REMOTE.append(ray.remote(PlanActor))
    return _REMOTE[0]


def _layout(ray, names: Sequence[str], workers: int | None):
    """(the slots' device indexes per backend, GPUs in the cluster, alive node ids)."""

    entries = registry.backend_entries()
    gpus = int(ray.cluster_resources().get("GPU", 0))
    nodes = [n["NodeID"] for n in ray.nodes() if n.get("Alive")]
    device = [n for n in names if n in entries and entries[n].device_code]
    counts = {n: (gpus or len(nodes)) if n in device else 1 for n in names}
    return (
        plan_slots(names, workers, counts, [n for n in names if n not in device]),
        gpus,
        nodes,
        device,
    )


def ray_slots(
    names: Sequence[str],
    address: str | None,
    workers: int | None,
    open_options: Mapping[str, Mapping[str, Any]],
    timeout_s: float | None,
):
    """The fleet's slots on Ray, and the function that releases what was made."""
    ray = import_ray()
    from ray.util.placement_group import placement_group, remove_placement_group
    from ray.util.scheduling_strategies import (
        NodeAffinitySchedulingStrategy,
        PlacementGroupSchedulingStrategy,
    )

    started = connect(ray, address)
    layout, gpus, nodes, device = _layout(ray, names, workers)
    group = None
    if gpus and device:
        group = placement_group([{"GPU": 1}] * gpus)
        ray.get(group.ready(), timeout=_START_TIMEOUT)
    sharing = [
        sum(devices.count(i) for n, devices in layout.items() if n in device)
        for i in range(max(gpus, 1))
    ]
    slots: dict[str, list] = {}
    for name, devices in layout.items():
        for index, where in enumerate(devices):
            if group is not None and name in device:
                placement = {
                    "num_gpus": 1 / sharing[where],
                    "num_cpus": 0,
                    "scheduling_strategy": PlacementGroupSchedulingStrategy(
                        group, placement_group_bundle_index=where
                    ),
                }
            elif name in device:
                placement = {
                    "num_cpus": 0,
                    "scheduling_strategy": NodeAffinitySchedulingStrategy(
                        nodes[where % len(nodes)], soft=False
                    ),
                }
            else:
                placement = {"num_cpus": 0}
            label = f"{name}#{index}"
            runner = RayRunner(ray, name, open_options.get(name, {}), timeout_s, placement, label)
            slots.setdefault(name, []).append(Slot(label, runner))

    def release() -> None:
        if group is not None:
            try:
                remove_placement_group(group)
            except Exception:
                pass
        if started:
            ray.shutdown()

    return slots, release

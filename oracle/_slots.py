"""Where a fleet's runners go: ``plan_slots`` decides which device each runner of each
backend uses, and a ``Slot`` is one runner placed so (a worker process, a Ray actor, this
process). Shared by the local fleet (``oracle._fleet``) and Ray (``oracle._ray``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from forge.errors import InvalidArgument

from ._runners import Runner

__all__ = ["Slot", "plan_slots"]


@dataclass
class Slot:
    """One runner of a fleet (a worker process, an actor, this process) and where it
    runs (``label``: ``cuda:1``, ``wgpu@node-2``)."""

    label: str
    runner: Runner
    busy: bool = False


def plan_slots(
    names: Sequence[str], workers: int | None, devices: Mapping[str, int], hosts: Iterable[str] = ()
) -> dict[str, list[int]]:
    """Which device each runner of each backend uses: by default one runner per device
    of each backend (``devices``: 1 when not given); with ``workers``, at most that many
    in all, at least one per backend, the rest spread round-robin over the device
    backends' devices (several on one device once each has one), or over the ``hosts``
    (backends that run no device code) when there is no other."""
    default = {name: list(range(max(1, devices.get(name, 1)))) for name in names}
    if workers is None:
        return default
    if workers < len(names):
        raise InvalidArgument(
            f"--workers {workers} cannot serve {len(names)} backends "
            f"({', '.join(names)}): give at least one each"
        )
    slots = {name: [0] for name in names}
    spread = [n for n in names if n not in set(hosts)] or list(names)
    extra, turn = workers - len(names), 0
    while extra > 0:
        name = spread[turn % len(spread)]
        count = max(1, devices.get(name, 1))
        slots[name].append(len(slots[name]) % count)
        extra, turn = extra - 1, turn + 1
    return slots

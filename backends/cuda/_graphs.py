"""CUDA graphs of a context: the captures a user makes (``CapturedCudaGraph``,
through ``begin_graph_capture`` / ``end_graph_capture`` / ``launch_graph``), and the
graphs ``run_kernel`` replays for the timed samples of a launch it timed before
(``SampleGraphs``; ``CudaComputeContext.launch_path`` says when). Every graph is
instantiated and owned by the context's ``Resources``, which frees those left.
"""

from __future__ import annotations

import collections
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from forge.errors import InvalidArgument
from forge.types import BufferView

from ._driver import call, driver
from ._resources import Resources

if TYPE_CHECKING:
    from ._context import CudaComputeContext

__all__ = ["CapturedCudaGraph", "Capture", "SampleGraphs", "record_node"]

# Records an event record node when captured (a plain record in a capture only orders
# streams, and its event can be neither waited for nor timed).
_EXTERNAL = driver.CUevent_record_flags.CU_EVENT_RECORD_EXTERNAL
_TIMED_CACHE = 8  # timed launches remembered, each with its graph once it repeats
# (CudaComputeContext.launch_path's docstring quotes this number)


@dataclass
class Capture:
    """What a graph capture in progress has recorded."""

    views: list = field(default_factory=list)
    launches: int = 0


@dataclass
class _TimedLaunch:
    """A launch ``run_kernel`` has timed, keyed by everything the launch passes to the
    driver: the views it was made with, and from its second timing on the graph of
    its samples (``graph``: the key in ``Resources.graphs``)."""

    views: tuple
    graph: int | None = None
    executable: Any = None


class CapturedCudaGraph:
    """The dispatches made between ``begin_graph_capture`` and ``end_graph_capture``,
    instantiated and uploaded; ``ctx.launch_graph(graph)`` replays them on the stream
    they were captured on. Uniform blocks are captured by value, as they were then.
    ``close()`` frees it (closing its context does too)."""

    def __init__(self, ctx: CudaComputeContext, graph, capture: Capture) -> None:
        res = ctx._res
        key, self._exec = res.instantiate(graph, res.stream_compute)
        self._owner = weakref.ref(ctx)
        self._stream = res.stream_compute
        self._graph = graph
        self.views: tuple[BufferView, ...] = tuple(dict.fromkeys(capture.views))
        self.launches = capture.launches
        self._finalizer = weakref.finalize(self, res.destroy_graph, key)

    @property
    def closed(self) -> bool:
        return not self._finalizer.alive

    @property
    def node_count(self) -> int:
        """Nodes in the captured graph (one per captured launch)."""
        if self.closed:
            raise InvalidArgument("this graph was closed")
        return int(call(driver.cuGraphGetNodes, self._graph)[-1])

    def close(self) -> None:
        self._finalizer()

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"{self.launches} launches"
        return f"<CapturedCudaGraph {state}>"


def record_node(event, stream):
    """Record ``event`` in a capture of ``stream`` as an event record node."""
    return driver.cuEventRecordWithFlags(event, stream, _EXTERNAL)


class SampleGraphs:
    """The launches ``run_kernel`` timed last (at most ``_TIMED_CACHE``, the least
    recently timed dropped first), each keyed by everything it passes to the driver,
    with the graph of its samples from its second timing on (owned by ``res``)."""

    def __init__(self, res: Resources) -> None:
        self._res = res
        self._timed: collections.OrderedDict[tuple, _TimedLaunch] = collections.OrderedDict()
        self.captures = 0  # sample graphs built (for tests and benchmarks)

    def __len__(self) -> int:
        return len(self._timed)

    def entries(self) -> list:
        """The launches remembered, least recently timed first (for tests)."""
        return list(self._timed.values())

    def executable(self, key: tuple, views: tuple, enqueue: Callable[[Callable], None]):
        """The executable graph of ``key``'s samples, or None the first time ``key`` is
        timed (the oracle and the tuner time most launches once, on views they then
        release, where capturing would cost without ever paying back). ``enqueue(record)``
        enqueues the samples, recording their events with ``record``; it is called,
        inside a capture of the compute stream, when the graph is built."""
        entry = self._timed.get(key)
        if entry is None:
            self._timed[key] = _TimedLaunch(views)
            if len(self._timed) > _TIMED_CACHE:
                self._forget(next(iter(self._timed)))
            return None
        self._timed.move_to_end(key)
        if entry.executable is None:
            entry.graph, entry.executable = self._capture(enqueue)
            self.captures += 1
        return entry.executable

    def _capture(self, enqueue: Callable[[Callable], None]) -> tuple[int, Any]:
        """Capture what ``enqueue`` records, with event record nodes where a direct run
        records events, into a graph; instantiated and uploaded, owned by the
        resources."""
        res = self._res
        stream = res.stream_compute
        res.begin_capture(stream)
        try:
            enqueue(record_node)
            graph = res.end_capture()
        except BaseException:
            res.abort_capture()  # the stream must not stay in capture mode
            raise
        return res.instantiate(graph, stream)

    def forget_released(self, live: Callable[[BufferView], bool]) -> None:
        """Drop the launches made with a view no longer ``live``, with their graphs (so
        no graph outlives the memory it names)."""
        for key, entry in list(self._timed.items()):
            if not all(map(live, entry.views)):
                self._forget(key)

    def _forget(self, key: tuple) -> None:
        entry = self._timed.pop(key)
        if entry.graph is not None:
            self._res.destroy_graph(entry.graph)

    def clear(self) -> None:
        """Forget every launch (their graphs go with the context's other handles)."""
        self._timed.clear()

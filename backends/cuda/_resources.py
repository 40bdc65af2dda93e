"""The native handles of one CUDA context, owned and freed in one place.

``Resources`` holds the device slab (one ``cuMemAlloc``), the streams, events, loaded
modules, instantiated graphs and the pinned staging buffers (``_memory.Staging``) of a
``CudaComputeContext``, creates them, and releases them all: through ``close()``, or
through a finalizer when a context is dropped unclosed. It also begins and ends stream
captures, so that a capture a failure interrupted is always ended before release.
"""

from __future__ import annotations

import itertools
from typing import Any

from forge.errors import ForgeError

from ._driver import PrimaryContext, call, driver
from ._memory import Staging

__all__ = ["Resources", "quietly"]

_NON_BLOCKING = driver.CUstream_flags.CU_STREAM_NON_BLOCKING
_TIMING = driver.CUevent_flags.CU_EVENT_DEFAULT
_NO_TIMING = driver.CUevent_flags.CU_EVENT_DISABLE_TIMING
_THREAD_LOCAL = driver.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
_graph_keys = itertools.count(1)


def quietly(function, *args):
    """Call a driver function during teardown, where failures are expected (a context
    that hit a sticky error fails every call) and nothing can be done about them."""
    try:
        return function(*args)
    except Exception:
        return None


_abandoned: list[tuple[Resources, Any]] = []  # set aside by abandon(), with their event


def reap_abandoned() -> None:
    """Free the handles of abandoned contexts whose work has ended (their event
    completed, or the context faulted); never waits."""
    for item in list(_abandoned):
        res, done = item
        if done is not None:
            status = res.primary.api.cuEventQuery(done)[0]
            if getattr(status, "name", "") == "CUDA_ERROR_NOT_READY":
                continue
        _abandoned.remove(item)
        res.release()


class Resources:
    """Every native handle of one context, freed in one place: by ``close()``, or by a
    finalizer when a context is dropped unclosed."""

    def __init__(self, ordinal: int) -> None:
        reap_abandoned()
        self.primary = PrimaryContext(ordinal)
        self.slab = 0
        self.streams: list = []
        self.events: list = []
        self.modules: list = []
        self.graphs: dict[int, tuple] = {}
        # (handle, "texture", "surface" or "memory", CUarray or None):
        # backends.cuda._textures, released by ``destroy_textures``
        self.textures: list[tuple] = []
        self.staging: Staging | None = None
        self.stream_compute: Any = None  # a CUstream once the context opened
        self._waiter: Any = None  # an event for bounded waits, made on first use
        self.capturing: Any = None  # the stream being captured, if any

    def stream(self):
        self.streams.append(call(driver.cuStreamCreate, _NON_BLOCKING))
        return self.streams[-1]

    @property
    def waiter(self):
        """An event to record on a stream and poll, for waits bounded by a timeout."""
        if self._waiter is None:
            self._waiter = self.event()
        return self._waiter

    def event(self, timing: bool = False):
        self.events.append(call(driver.cuEventCreate, _TIMING if timing else _NO_TIMING))
        return self.events[-1]

    def begin_capture(self, stream) -> None:
        """Begin a thread-local capture of ``stream`` (remembered, so that a failure or
        ``release`` can end it)."""
        call(driver.cuStreamBeginCapture, stream, _THREAD_LOCAL)
        self.capturing = stream

    def end_capture(self):
        """End the capture in progress: the captured graph, which the caller owns."""
        stream, self.capturing = self.capturing, None
        return call(driver.cuStreamEndCapture, stream)

    def abort_capture(self) -> None:
        """End the capture in progress, if any, and drop what it recorded."""
        stream, self.capturing = self.capturing, None
        if stream is not None:
            ended = quietly(self.primary.api.cuStreamEndCapture, stream)
            if ended is not None and not ended[0]:
                quietly(self.primary.api.cuGraphDestroy, ended[1])

    def instantiate(self, graph, stream) -> tuple[int, Any]:
        """Instantiate ``graph`` and upload it for ``stream``; from here on it is owned
        here. Returns its key in ``graphs`` (for ``destroy_graph``) and the executable."""
        try:
            executable = call(driver.cuGraphInstantiate, graph, 0)
        except BaseException:
            quietly(driver.cuGraphDestroy, graph)
            raise
        key = next(_graph_keys)
        self.graphs[key] = (graph, executable)
        try:
            call(driver.cuGraphUpload, executable, stream)
        except BaseException:
            self.destroy_graph(key)
            raise
        return key, executable

    def abandon(self) -> None:
        """Set these handles aside while the device may still run a kernel we gave up
        on: freeing them (streams, memory, pinned staging, the context's retain) would
        wait for it, at close, in a finalizer or at the interpreter's exit. An event
        after the work tells when it is over; ``reap_abandoned`` then frees them, so the
        context's retain does not keep a faulted primary context alive for ever."""
        done = None
        if self.stream_compute is not None:
            try:
                done = self.event()  # destroyed with the rest by release()
                call(self.primary.api.cuEventRecord, done, self.stream_compute)
            except ForgeError:  # faulted: nothing of ours runs any more
                done = None
        if self.staging is not None:
            self.staging.keep_at_exit()
        self.primary.keep_at_exit()
        _abandoned.append((self, done))

    def destroy_graph(self, key: int) -> None:
        api = self.primary.api  # the driver that made the handles (see PrimaryContext)
        handles = self.graphs.pop(key, None)
        if handles is not None and not self.primary.released:
            quietly(api.cuCtxSetCurrent, self.primary.handle)
            quietly(api.cuGraphExecDestroy, handles[1])
            quietly(api.cuGraphDestroy, handles[0])

    def release(self) -> None:
        if self.primary.released:
            return
        api = self.primary.api
        quietly(api.cuCtxSetCurrent, self.primary.handle)
        self.abort_capture()
        for stream in self.streams:
            quietly(api.cuStreamSynchronize, stream)
        for key in list(self.graphs):
            self.destroy_graph(key)
        destroy_textures(self.textures, api)
        self.textures = []
        for module in self.modules:
            quietly(api.cuModuleUnload, module)
        for event in self.events:
            quietly(api.cuEventDestroy, event)
        if self.staging is not None:
            self.staging.release()
        for stream in self.streams:
            quietly(api.cuStreamDestroy, stream)
        if self.slab:
            quietly(api.cuMemFree, self.slab)
        self.streams, self.events, self.modules = [], [], []
        self.primary.release()


def destroy_textures(handles: list, api: Any) -> None:
    """Destroy each (handle, kind, array) of ``handles`` (``Resources.textures``)
    through ``api`` (the driver that made them), quietly: texture and surface objects
    and their arrays, and ``"memory"``, a linear texture's aligned copy, freed."""
    for handle, kind, array in handles:
        if kind == "memory":
            quietly(api.cuMemFree, handle)
            continue
        quietly(api.cuSurfObjectDestroy if kind == "surface" else api.cuTexObjectDestroy, handle)
        if array is not None:
            quietly(api.cuArrayDestroy, array)

"""``Page``: one context's page in the shared Chromium, and the round trips to it.

A context owns a ``Page``: an incognito browser context with one tab showing the page
its ``LoopbackServer`` serves, the WebSocket ``Channel`` that page opened, and the
messages sent over it. Small writes are deferred and ride along with the next message
(so a run of uploads before a kernel costs no round trip of its own); bulk bytes go
over HTTP instead of the channel. The page's errors come back typed: Tint's messages
as ``CompileError``, error scopes as ``GpuValidation`` / ``AllocationError``, a lost
device or a closed channel as ``DeviceLost``, a reply later than ``timeout_s`` as
``KernelTimeout``.
"""

from __future__ import annotations

import queue
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

from forge.errors import (
    AllocationError,
    CompileError,
    DeviceLost,
    ForgeError,
    GpuUnavailable,
    GpuValidation,
    KernelTimeout,
)

from .._webgpu import binding_problem
from ._channel import Channel
from ._chromium import close_tab, give_back_tab, open_tab
from ._server import LoopbackServer

__all__ = ["Page", "Command", "INLINE_LIMIT", "PART", "compile_log"]

#: Bytes moved inside a channel message at most; larger transfers go over HTTP, which
#: moved more from 1 MiB up on CI's machine (``python -m bench --only B1`` measures both).
INLINE_LIMIT = 256 << 10
#: Readbacks over HTTP are posted in parts of this size, so that the page maps one part
#: while it posts the one before (about 700 and 400 MB/s on CI's machine): 164 against
#: 136 MB/s at 128 MiB. Uploads go in one part (the page's primitive takes several):
#: parts of 16 MiB moved 165 against 235 MB/s, each request costing a few ms.
PART = 16 << 20
_DEFERRED_LIMIT = 8 << 20  # deferred bytes that force a round trip
_CONNECT_S = 30.0  # for the page to load and open its channel


@dataclass
class Command:
    """One primitive for the page (``op`` and its JSON arguments), with the bytes it
    carries to the page (``payload``) or the buffer its reply's bytes go to (``sink``),
    and what it does in words, for errors."""

    op: str
    args: dict[str, Any]
    what: str
    payload: memoryview | None = None
    sink: memoryview | None = None
    source: str = field(default="", repr=False)  # WGSL, for compile errors


def compile_log(messages: list[dict]) -> str:
    """Tint's messages as ``line:column: type: message`` lines."""
    return "\n".join(f"{m['line']}:{m['column']}: {m['type']}: {m['message']}" for m in messages)


class Page:
    """See the module docstring. Opens on the shared Chromium (relaunched once if it
    gives no adapter, e.g. after its GPU process died too often)."""

    def __init__(self, init: dict) -> None:
        for relaunch in (False, True):
            self._open(relaunch)
            try:
                self.info = self.call(Command("init", init, "requesting a WebGPU device"))
                return
            except GpuUnavailable:
                self.close()
                if relaunch:
                    raise
            except BaseException:
                self.close()
                raise

    def _open(self, relaunch: bool) -> None:
        self._deferred: list[Command] = []
        self._deferred_bytes = 0
        self._channel = self._context = None
        self.timeout_s: float | None = None
        self.bound: Callable[[], float | None] = lambda: self.timeout_s
        self.server = LoopbackServer()
        try:
            self._context, self.tab, self.browser_version = open_tab(self.server.url, relaunch)
            self._channel = Channel(self.server.channel(_CONNECT_S))
        except queue.Empty:
            self.close()
            raise GpuUnavailable(
                f"the page at {self.server.url.split('/', 3)[2]} did not "
                f"open its channel within {_CONNECT_S:g} s"
            ) from None
        except Exception as exc:
            self.close()
            if isinstance(exc, ForgeError):
                raise
            raise GpuUnavailable(
                f"Chromium could not open the page: {type(exc).__name__}: {exc}"
            ) from exc

    def close(self, reuse_tab: bool = False) -> None:
        """Close the channel and the server, and the tab unless ``reuse_tab`` (a healthy
        page: the next context's page replaces it); never waits for the device."""
        channel, self._channel = self._channel, None
        context, self._context = self._context, None
        if channel is not None:
            channel.close()  # the page destroys its device when its channel closes
        try:
            if context is not None and reuse_tab:
                give_back_tab(context, self.tab)
            elif context is not None:
                close_tab(context)
        finally:
            self.server.close()

    # -- round trips ---------------------------------------------------------------
    def defer(self, command: Command) -> None:
        """Send ``command`` with the next message (its payload must not change)."""
        self._deferred.append(command)
        self._deferred_bytes += command.payload.nbytes if command.payload is not None else 0
        if self._deferred_bytes > _DEFERRED_LIMIT:
            self.flush()

    def flush(self) -> None:
        if self._deferred:
            self.call_all([])

    def call(self, command: Command) -> dict:
        """Run ``command`` (after the deferred ones) and return its result."""
        return self.call_all([command])[-1]

    def call_all(self, commands: list[Command]) -> list[dict]:
        """Run the deferred commands and then ``commands`` in one message; the results
        of all of them, in order."""
        commands, self._deferred, self._deferred_bytes = self._deferred + commands, [], 0
        wire, payloads, paths = self._encode(commands)
        timeout_s = self.bound()
        try:
            channel = self._channel
            assert channel is not None  # open until close(), and a closed page is not called
            channel.settimeout(timeout_s)
            channel.send({"commands": wire}, payloads)
            # a result comes back inline only for a command with a sink
            reply = channel.receive(
                lambda header: cast(
                    list[memoryview],
                    [c.sink for c, r in zip(commands, header["results"]) if r.get("inline")],
                )
            )
        except TimeoutError:
            raise KernelTimeout(
                f"{commands[-1].what} did not finish within timeout_s="
                f"{timeout_s:g} s; the device may still be running "
                "it, so the context is lost"
            ) from None
        except (ConnectionError, OSError) as exc:
            raise DeviceLost(f"{commands[-1].what}: {exc}") from exc
        finally:
            for path in paths:
                self.server.withdraw(path)
        if reply.get("error"):
            failed = commands[reply["error"]["index"]]
            raise _error(failed, reply["error"])
        return reply["results"]

    @staticmethod
    def _parts(view: memoryview, register, part: int) -> list[list]:
        """[path, start, size] of each ``part`` bytes of ``view``, registered with the
        server (``offer`` for the page to fetch, ``expect`` for it to post)."""
        return [
            [register(view[start : start + part]), start, min(part, view.nbytes - start)]
            for start in range(0, view.nbytes, part)
        ]

    def _encode(self, commands: list[Command]):
        """The JSON of ``commands``, the payloads sent inline, and the HTTP paths
        registered for the others."""
        wire, payloads, paths = [], [], []
        for command in commands:
            args = dict(command.args, op=command.op)
            if command.payload is not None and command.payload.nbytes <= INLINE_LIMIT:
                args["inline"] = command.payload.nbytes
                payloads.append(command.payload)
            elif command.payload is not None:
                args["gets"] = self._parts(
                    command.payload, self.server.offer, command.payload.nbytes
                )
                paths += [url for url, _, _ in args["gets"]]
            elif command.sink is not None and command.sink.nbytes > INLINE_LIMIT:
                args["posts"] = self._parts(command.sink, self.server.expect, PART)
                paths += [url for url, _, _ in args["posts"]]
            wire.append(args)
        return wire, payloads, paths


def _error(command: Command, error: dict) -> ForgeError:
    """The ForgeError for a failure the page reported while running ``command``."""
    kind, message = error["kind"], error["message"]
    if kind == "compile" or (kind == "validation" and command.op == "compile"):
        log = compile_log(error["messages"]) if "messages" in error else message
        problem = binding_problem(command.source or "", log, command.what)
        if problem is not None:
            return problem
        return CompileError(
            f"{command.what}: Chromium's WebGPU (Tint) rejected the WGSL",
            source=command.source,
            target="wgsl",
            log=log,
        )
    if kind == "lost":
        return DeviceLost(f"{command.what}: {message}")
    if kind == "out-of-memory":
        return AllocationError(f"{command.what}: the device is out of memory: {message}")
    if kind == "unavailable":
        return GpuUnavailable(f"{command.what}: {message}")
    return GpuValidation(f"{command.what}: Chromium's WebGPU rejected it ({kind}): {message}")

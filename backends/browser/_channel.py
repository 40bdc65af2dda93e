"""``Channel``: the server side of the page's WebSocket (RFC 6455), on the calling
thread, carrying one message each way per round trip.

A message to the page is one unmasked binary frame: a u32 (little-endian) length, a
JSON header, then raw bytes. A reply from the page is one binary message (which the
browser may split into several masked frames) of the same shape; its raw bytes are
read straight into the buffers the caller names, unmasked in place, so a readback
allocates nothing in proportion to its size.

A wait past its bound raises ``socket.timeout`` (``TimeoutError``); the page closing
the connection (a crashed renderer, a closed page) raises ``ConnectionError``. The
caller turns both into ForgeErrors.
"""

from __future__ import annotations

import json
import socket
import struct
from collections.abc import Callable, Sequence

import numpy as np

__all__ = ["Channel"]

_BINARY, _CLOSE, _PING, _PONG, _CONTINUATION = 0x2, 0x8, 0x9, 0xA, 0x0


class Channel:
    """See the module docstring. ``sock`` is the upgraded connection."""

    def __init__(self, sock: socket.socket) -> None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._sock = sock
        self._left = 0  # bytes left in the current frame
        self._final = True  # the current frame ends its message
        self._mask = b"\0" * 4  # the current frame's masking key...
        self._phase = 0  # ...and the position in it of the next byte
        self._small = bytearray(14)

    def settimeout(self, seconds: float | None) -> None:
        """Bound every later wait for the page's bytes (None: wait as long as it takes)."""
        self._sock.settimeout(seconds)

    def close(self) -> None:
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # the page closed it first
        self._sock.close()

    # -- sending -------------------------------------------------------------------
    def send(self, header: dict, payloads: Sequence[memoryview] = ()) -> None:
        """One message: the JSON ``header`` and then ``payloads``, without copying them."""
        text = json.dumps(header, separators=(",", ":")).encode()
        size = 4 + len(text) + sum(p.nbytes for p in payloads)
        if size < 126:
            frame = struct.pack("!BB", 0x80 | _BINARY, size)
        elif size < 1 << 16:
            frame = struct.pack("!BBH", 0x80 | _BINARY, 126, size)
        else:
            frame = struct.pack("!BBQ", 0x80 | _BINARY, 127, size)
        parts = [memoryview(frame + struct.pack("<I", len(text)) + text), *payloads]
        while parts:
            sent = self._sock.sendmsg(parts)
            while parts and sent >= parts[0].nbytes:
                sent -= parts[0].nbytes
                parts.pop(0)
            if parts:
                parts[0] = parts[0][sent:]

    # -- receiving -----------------------------------------------------------------
    def receive(self, sinks: Callable[[dict], Sequence[memoryview]]) -> dict:
        """The next message's JSON header; its raw bytes go into ``sinks(header)``, in
        order, which must account for all of them."""
        length = bytearray(4)
        self._read_message(memoryview(length), first=True)
        text = bytearray(struct.unpack("<I", length)[0])
        self._read_message(memoryview(text))
        header = json.loads(text)
        for sink in sinks(header):
            self._read_message(sink)
        if self._left or not self._final:
            raise ConnectionError(
                f"the page's reply carried {self._left} bytes more than its header announced"
            )
        return header

    def _read_message(self, view: memoryview, first: bool = False) -> None:
        """Fill ``view`` from the current message's frames (``first``: from a new
        message), unmasking in place."""
        if first:
            self._next_frame(first=True)
        while view.nbytes:
            while not self._left:
                if self._final:
                    raise ConnectionError("the page's reply ended early")
                self._next_frame(first=False)
            chunk = view[: min(self._left, view.nbytes)]
            self._fill(chunk)
            self._unmask(chunk)
            self._left -= chunk.nbytes
            view = view[chunk.nbytes :]

    def _next_frame(self, first: bool) -> None:
        """Read a frame header (answering pings on the way); a data frame must start
        a message when ``first`` and continue one otherwise."""
        while True:
            head = memoryview(self._small)
            self._fill(head[:2])
            opcode, length = self._small[0] & 0x0F, self._small[1] & 0x7F
            extra = {126: 2, 127: 8}.get(length, 0)
            self._fill(head[2 : 2 + extra + 4])
            if extra:
                length = int.from_bytes(head[2 : 2 + extra], "big")
            self._mask, self._phase = bytes(head[2 + extra : 6 + extra]), 0
            self._final, self._left = bool(self._small[0] & 0x80), length
            if opcode in (_PING, _PONG, _CLOSE):
                payload = bytearray(length)
                self._read_control(memoryview(payload))
                if opcode == _CLOSE:
                    raise ConnectionError("the page closed its channel")
                if opcode == _PING:
                    self._sock.sendall(struct.pack("!BB", 0x80 | _PONG, length) + payload)
                continue
            if (opcode == _CONTINUATION) == first:
                raise ConnectionError(f"unexpected WebSocket frame (opcode {opcode})")
            return

    def _read_control(self, view: memoryview) -> None:
        self._fill(view)
        self._unmask(view)
        self._left = 0

    def _fill(self, view: memoryview) -> None:
        while view.nbytes:
            count = self._sock.recv_into(view)
            if not count:
                raise ConnectionError(
                    "the page closed its channel (the renderer exited or crashed)"
                )
            view = view[count:]

    def _unmask(self, view: memoryview) -> None:
        """XOR ``view`` with the frame's masking key, continuing at ``_phase``."""
        mask, phase, size = self._mask, self._phase, view.nbytes
        if mask == b"\0" * 4 or not size:
            self._phase = (phase + size) % 4
            return
        head = min(size, (4 - phase) % 4)
        for i in range(head):
            view[i] ^= mask[(phase + i) % 4]
        words = (size - head) // 8
        if words:
            body = np.frombuffer(view[head : head + 8 * words], np.uint64)
            np.bitwise_xor(body, np.frombuffer(mask * 2, np.uint64)[0], out=body)
        for i in range(head + 8 * words, size):
            view[i] ^= mask[(i - head) % 4]
        self._phase = (phase + size) % 4

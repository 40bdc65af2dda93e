"""``LoopbackServer``: the only way in and out of the page, for one context.

It listens on 127.0.0.1 only, on a port the system picks, and answers only requests
whose path starts with a secret made for this server (``/<secret>/``) and whose Host
header names this address; anything else gets 403 and nothing else. Under the secret it
serves the page and its script (with a Content-Security-Policy that lets the page load
nothing from anywhere else), upgrades one request to the WebSocket that carries
commands (``/<secret>/channel``), and moves bulk bytes: ``GET /<secret>/data/<id>``
sends bytes Python registered for the page, ``POST /<secret>/data/<id>`` receives bytes
into a buffer Python registered (each id is random and used once).

Each connection is served by a thread; nothing here holds a reference to the context.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.server
import queue
import secrets
import socket
import threading
from importlib import resources

__all__ = ["LoopbackServer", "live_servers"]

_WEBSOCKET_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455, section 1.3
_IDLE_S = 600.0  # a keep-alive connection idle this long is dropped

_open_servers = 0  # servers started and not yet closed, for leak tests
_count_lock = threading.Lock()

_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>kernel-forge</title>
<script type="module" src="kforge.js"></script></head><body></body></html>
"""


def live_servers() -> int:
    """Servers started and not yet closed in this process."""
    return _open_servers


class LoopbackServer:
    """See the module docstring. ``url`` is the page's address (secret included);
    ``channel()`` waits for the page's WebSocket and returns its socket."""

    def __init__(self) -> None:
        self.secret = secrets.token_urlsafe(32)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.host, self.port = self._listener.getsockname()[:2]
        self.url = f"http://{self.host}:{self.port}/{self.secret}/"
        self._script = resources.files(__package__).joinpath("kforge.js").read_bytes()
        self._lock = threading.Lock()
        self._outgoing: dict[str, memoryview] = {}
        self._sinks: dict[str, memoryview] = {}
        self._channels: queue.Queue[socket.socket] = queue.Queue()
        self._channel_taken = False
        self._connections: set[socket.socket] = set()
        self._thread = threading.Thread(
            target=self._accept, name=f"kforge-server-{self.port}", daemon=True
        )
        self._thread.start()
        self._closed = False
        self._count(+1)

    @staticmethod
    def _count(change: int) -> None:
        global _open_servers
        with _count_lock:
            _open_servers += change

    # -- what the context uses -----------------------------------------------------
    def channel(self, timeout_s: float) -> socket.socket:
        """The page's WebSocket, once it connected (``queue.Empty`` after
        ``timeout_s``)."""
        return self._channels.get(timeout=timeout_s)

    def offer(self, data: memoryview) -> str:
        """Register ``data`` for the page to fetch once; returns its path."""
        return self._register(self._outgoing, data)

    def expect(self, sink: memoryview) -> str:
        """Register ``sink`` for the page to post exactly ``sink.nbytes`` bytes into
        once; returns its path."""
        return self._register(self._sinks, sink)

    def withdraw(self, path: str) -> None:
        """Forget a registration the page did not use."""
        key = path.rsplit("/", 1)[-1]
        with self._lock:
            self._outgoing.pop(key, None)
            self._sinks.pop(key, None)

    def _register(self, table: dict, view: memoryview) -> str:
        key = secrets.token_hex(16)
        with self._lock:
            table[key] = view
        return f"/{self.secret}/data/{key}"

    def close(self) -> None:
        """Stop listening and drop every connection (the threads then end)."""
        if self._closed:
            return
        self._closed = True
        self._count(-1)
        try:
            self._listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # not connected: closing is enough
        self._listener.close()
        with self._lock:
            connections, self._connections = self._connections, set()
            self._outgoing.clear()
            self._sinks.clear()
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already closed by the page
        self._thread.join(timeout=5)

    # -- serving -------------------------------------------------------------------
    def _accept(self) -> None:
        while True:
            try:
                connection, address = self._listener.accept()
            except OSError:
                return  # closed
            with self._lock:
                self._connections.add(connection)
            threading.Thread(
                target=self._serve,
                args=(connection, address),
                name=f"kforge-connection-{self.port}",
                daemon=True,
            ).start()

    def _serve(self, connection: socket.socket, address) -> None:
        connection.settimeout(_IDLE_S)
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            # the handler reaches the server only through _route: no BaseServer needed
            _Handler(connection, address, self)  # type: ignore[arg-type]
        except OSError:
            pass  # the page went away mid-request
        finally:
            with self._lock:
                upgraded = connection not in self._connections
                self._connections.discard(connection)
            if not upgraded:
                connection.close()

    def _route(self, handler: _Handler) -> None:
        """Answer one request (see the module docstring)."""
        prefix = f"/{self.secret}/"
        if not (
            hmac.compare_digest(handler.path[: len(prefix)].encode(), prefix.encode())
            and handler.headers.get("Host") == f"{self.host}:{self.port}"
        ):
            handler.refuse(403, "forbidden")
            return
        rest = handler.path[len(prefix) :]
        if handler.command == "GET" and rest == "":
            handler.reply(_PAGE.encode(), "text/html; charset=utf-8", self._policy())
        elif handler.command == "GET" and rest == "kforge.js":
            handler.reply(self._script, "text/javascript; charset=utf-8", self._policy())
        elif handler.command == "GET" and rest == "channel":
            self._upgrade(handler)
        elif rest.startswith("data/") and handler.command in ("GET", "POST"):
            self._data(handler, rest[len("data/") :])
        else:
            handler.refuse(404, "not found")

    def _policy(self) -> dict[str, str]:
        """Headers that keep the page to this server, and isolate it so that its clock
        (performance.now) has full resolution."""
        return {
            "Content-Security-Policy": f"default-src 'none'; script-src 'self'; "
            f"connect-src 'self' ws://{self.host}:{self.port}",
            "Cross-Origin-Opener-Policy": "same-origin",
            "Cross-Origin-Embedder-Policy": "require-corp",
            "Cache-Control": "no-store",
        }

    def _upgrade(self, handler: _Handler) -> None:
        key = handler.headers.get("Sec-WebSocket-Key")
        with self._lock:
            taken, self._channel_taken = self._channel_taken, True
        if taken or key is None or handler.headers.get("Upgrade", "").lower() != "websocket":
            handler.refuse(400, "one WebSocket channel per page")
            return
        accept = base64.b64encode(hashlib.sha1(key.encode() + _WEBSOCKET_GUID).digest())
        handler.send_response(101)
        handler.send_header("Upgrade", "websocket")
        handler.send_header("Connection", "Upgrade")
        handler.send_header("Sec-WebSocket-Accept", accept.decode())
        handler.end_headers()
        handler.wfile.flush()
        handler.close_connection = True
        connection = handler.connection
        connection.settimeout(None)
        with self._lock:
            self._connections.discard(connection)  # the context owns it from here
        self._channels.put(connection)

    def _data(self, handler: _Handler, key: str) -> None:
        table = self._outgoing if handler.command == "GET" else self._sinks
        with self._lock:
            view = table.pop(key, None)
        if view is None:
            handler.refuse(404, "no such transfer")
        elif handler.command == "GET":
            handler.reply(view, "application/octet-stream")
        elif int(handler.headers.get("Content-Length", -1)) != view.nbytes:
            handler.refuse(400, f"expected exactly {view.nbytes} bytes")
        else:
            handler.receive_into(view)
            handler.reply(b"", "text/plain")


class _Handler(http.server.BaseHTTPRequestHandler):
    """One connection's requests, routed by the server (keep-alive, HTTP/1.1)."""

    protocol_version = "HTTP/1.1"
    server: LoopbackServer  # type: ignore[assignment]  # no BaseServer (see _serve)

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self.server._route(self)

    do_POST = do_GET

    def reply(self, body, content_type: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def refuse(self, status: int, reason: str) -> None:
        body = reason.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True

    def receive_into(self, view: memoryview) -> None:
        """The request body, straight into ``view`` (no copy, no allocation)."""
        received = 0
        while received < view.nbytes:
            count = self.rfile.readinto(view[received:])
            if not count:
                raise ConnectionError(f"the page sent {received} of {view.nbytes} bytes")
            received += count

    def log_message(self, format, *args) -> None:  # noqa: A002 - http.server's signature
        pass  # requests are not logged: the page makes many

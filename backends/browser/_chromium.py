"""Finding and launching Chromium for the browser backend.

``missing()`` answers, without importing Playwright or starting anything, what is
absent (Playwright for Python, a Chromium executable) with the command that installs
it. Everything else runs on one thread per process that Playwright has to itself
(``in_browser``; see ``_PlaywrightThread`` for why): the process's Chromium, launched
on first use and kept for the contexts that follow, so launching (about a second) is
paid once, and launched again when it died; and the tabs contexts get (``open_tab``):
one a closed context gave back (``give_back_tab``), navigated to the new page, or a new
incognito one (starting a renderer costs about a quarter of a second).
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import queue
import shutil
import threading
from collections.abc import Callable
from pathlib import Path

from forge.errors import GpuUnavailable

__all__ = [
    "CHROMIUM_FLAGS",
    "INSTALL_PLAYWRIGHT",
    "INSTALL_CHROMIUM",
    "chromium_path",
    "missing",
    "in_browser",
    "shared_browser",
    "open_tab",
    "give_back_tab",
    "close_tab",
    "live_tabs",
]

#: Chromium's command line. WebGPU needs --enable-unsafe-webgpu on Linux and the Vulkan
#: feature (with no GPU, Dawn then runs on its built-in SwiftShader). The Dawn toggle
#: timestamp_quantization would round timestamp queries to a coarse grid; it is turned
#: off so that passes are timed to the nanosecond (the context checks the result). The
#: rest keep a headless browser from talking to the network (background services,
#: component updates, sync, first-run pages); Playwright adds a fresh user data dir.
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--enable-unsafe-webgpu",
    "--enable-features=Vulkan",
    "--disable-dawn-features=timestamp_quantization",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)

INSTALL_PLAYWRIGHT = "pip install 'kernel-forge[browser]'"
INSTALL_CHROMIUM = "sudo apt-get install -y chromium"

# Debian's /usr/bin/chromium is a shell script that execs this binary with flags of its
# own: the binary itself is launched, with ours alone.
_CANDIDATES = (
    "/usr/lib/chromium/chromium",
    "chromium",
    "chromium-browser",
    "google-chrome-stable",
    "google-chrome",
)


def chromium_path() -> str | None:
    """The Chromium executable: ``$FORGE_CHROMIUM`` when set, else the first of
    ``_CANDIDATES`` found."""
    chosen = os.environ.get("FORGE_CHROMIUM")
    if chosen:
        return chosen if Path(chosen).is_file() and os.access(chosen, os.X_OK) else None
    for candidate in _CANDIDATES:
        found = candidate if Path(candidate).is_file() else shutil.which(candidate)
        if found and os.access(found, os.X_OK):
            return found
    return None


def missing() -> str | None:
    """What keeps the backend from running here, with the command that installs it;
    None when Playwright and a Chromium are both present."""
    if importlib.util.find_spec("playwright") is None:
        return f"Playwright for Python is not installed; install it with: {INSTALL_PLAYWRIGHT}"
    if chromium_path() is None:
        where = os.environ.get("FORGE_CHROMIUM")
        if where:
            return f"FORGE_CHROMIUM={where} is not an executable file"
        return f"no Chromium found; install it with: {INSTALL_CHROMIUM}"
    return None


class _Session:
    """One Playwright driver, the Chromium it launched, and its idle tabs."""

    def __init__(self) -> None:
        from playwright.sync_api import sync_playwright

        executable = chromium_path()
        self.playwright = sync_playwright().start()
        self.idle: list = []  # (browser context, page) pairs a closed context gave back
        try:
            self.browser = self.playwright.chromium.launch(
                executable_path=executable, args=list(CHROMIUM_FLAGS), headless=True
            )
        except Exception:
            self.playwright.stop()
            raise

    def alive(self) -> bool:
        return self.browser.is_connected()

    def close(self) -> None:
        try:
            self.browser.close()
        finally:
            self.playwright.stop()


class _PlaywrightThread:
    """The thread Playwright lives in, one per process, running the calls handed to it
    in order. Playwright's synchronous API may not be shared between threads, marks its
    thread's asyncio loop as running between calls (wgpu-py then queues its callbacks on
    that loop, where they wait for the next Playwright call, and ``asyncio.run`` fails),
    and keeps the frame of its last call (and all its callers hold) alive: in a thread
    of its own, none of that reaches the caller's."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.session: _Session | None = None  # touched only on the thread
        self._calls: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name="kforge-playwright", daemon=True)
        self._thread.start()

    def run(self, function: Callable, *args):
        if threading.current_thread() is self._thread:
            return function(*args)
        reply: queue.SimpleQueue = queue.SimpleQueue()
        self._calls.put((function, args, reply))
        ok, value = reply.get()
        if ok:
            return value
        raise value

    def _serve(self) -> None:
        while True:
            function, args, reply = self._calls.get()
            if function is None:
                return
            try:
                reply.put((True, function(*args)))
            except BaseException as exc:  # noqa: BLE001 - raised again in the caller
                reply.put((False, exc))
            del function, args, reply  # hold nothing of a finished call

    def stop(self) -> None:
        """Close the browser and end the thread (at exit)."""

        def close() -> None:
            session, self.session = self.session, None
            if session is not None:
                _close_quietly(session)

        self.run(close)
        self._calls.put((None, (), None))
        self._thread.join(timeout=10)


_thread: _PlaywrightThread | None = None
_lock = threading.Lock()
_IDLE_TABS = 2  # tabs kept for the next contexts: a new tab starts a renderer (~0.25 s)


def _playwright_thread() -> _PlaywrightThread:
    """The Playwright thread, for functions that run on it (so it was started)."""
    assert _thread is not None
    return _thread


def in_browser(function: Callable, *args):
    """``function(*args)`` run on the Playwright thread (started on first use); every
    use of a Playwright object goes through here. Raises what it raises."""
    global _thread
    with _lock:
        if _thread is None or _thread.pid != os.getpid():  # a forked child starts its own
            _thread = _PlaywrightThread()
        thread = _thread
    return thread.run(function, *args)


def _session(relaunch: bool = False) -> _Session:
    """The Playwright thread's session, launched when there is none, it died, or
    ``relaunch``. Raises ``GpuUnavailable`` when Chromium cannot start."""
    problem = missing()
    if problem:
        raise GpuUnavailable(problem)
    holder = _playwright_thread()
    session = holder.session
    if session is not None and (relaunch or not session.alive()):
        holder.session = None
        _close_quietly(session)
        session = None
    if session is None:
        try:
            session = holder.session = _Session()
        except Exception as exc:
            raise GpuUnavailable(
                f"Chromium ({chromium_path()}) did not start through "
                f"Playwright: {type(exc).__name__}: {exc}"
            ) from exc
    return session


def shared_browser(relaunch: bool = False):
    """The process's Chromium (a ``playwright.sync_api.Browser``, to be used only in
    ``in_browser``); see ``_session``."""
    return in_browser(lambda: _session(relaunch).browser)


def open_tab(url: str, relaunch: bool = False):
    """(browser context, page, Chromium's version) showing ``url``: an idle tab
    (navigating unloads what it showed), else a new incognito one."""
    return in_browser(_open_tab, url, relaunch)


def _open_tab(url: str, relaunch: bool):
    session = _session(relaunch)
    while session.idle:
        context, page = session.idle.pop()
        if not page.is_closed():
            break
        _close_context(context)
    else:
        context = session.browser.new_context()
        page = context.new_page()
    try:
        page.goto(url, wait_until="commit")
    except BaseException:
        _close_context(context)
        raise
    return context, page, session.browser.version


def give_back_tab(context, page) -> None:
    """Keep a healthy tab for the next context, or close it."""

    def give_back() -> None:
        session = _playwright_thread().session
        if (
            session is not None
            and session.alive()
            and len(session.idle) < _IDLE_TABS
            and not page.is_closed()
            and page.context is context
        ):
            session.idle.append((context, page))
        else:
            _close_context(context)

    in_browser(give_back)


def close_tab(context) -> None:
    """Close a tab's browser context (and its page), whatever state it is in."""
    in_browser(_close_context, context)


def live_tabs() -> int:
    """Tabs of the process's Chromium, idle ones included (for leak tests)."""

    def count() -> int:
        session = _playwright_thread().session
        if session is None or not session.alive():
            return 0
        return sum(len(context.pages) for context in session.browser.contexts)

    return in_browser(count)


def _close_context(context) -> None:
    try:
        context.close()
    except Exception:  # noqa: BLE001 - a crashed page or browser has nothing to close
        pass


def _close_quietly(session: _Session) -> None:
    try:
        session.close()
    except Exception:  # noqa: BLE001 - a dead browser or driver has nothing left to free
        pass


@atexit.register
def _close_all() -> None:
    """Close the browser at exit."""
    if _thread is not None and _thread.pid == os.getpid():
        _thread.stop()

"""Finding and launching Chromium for the browser backend.

``missing()`` answers, without importing Playwright or starting anything, what is
absent (Playwright for Python, a Chromium executable) with the command that installs
it. ``shared_browser()`` is the process's Chromium, launched through Playwright on
first use and kept for the contexts that follow, so launching (about a second) is paid
once; a browser that died is launched again. ``open_tab()`` gives a context its tab:
one a closed context gave back (``give_back_tab``), navigated to the new page, or a new
incognito one (starting a renderer costs about a quarter of a second). All of it
belongs to the thread and process that launched it, as Playwright's synchronous API
requires.
"""

from __future__ import annotations

import atexit
import functools
import importlib.util
import os
import shutil
import threading
from pathlib import Path

from forge.errors import GpuUnavailable

__all__ = ["CHROMIUM_FLAGS", "INSTALL_PLAYWRIGHT", "INSTALL_CHROMIUM", "chromium_path",
           "missing", "shared_browser", "open_tab", "give_back_tab", "close_tab", "live_tabs"]

#: Chromium's command line. WebGPU needs --enable-unsafe-webgpu on Linux and the Vulkan
#: feature (with no GPU, Dawn then runs on its built-in SwiftShader). The Dawn toggle
#: timestamp_quantization would round timestamp queries to a coarse grid; it is turned
#: off so that passes are timed to the nanosecond (the context checks the result). The
#: rest keep a headless browser from talking to the network (background services,
#: component updates, sync, first-run pages); Playwright adds a fresh user data dir.
CHROMIUM_FLAGS = (
    "--headless=new", "--no-sandbox", "--enable-unsafe-webgpu", "--enable-features=Vulkan",
    "--disable-dawn-features=timestamp_quantization",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--no-first-run",
)

INSTALL_PLAYWRIGHT = "pip install 'kernel-forge[browser]'"
INSTALL_CHROMIUM = "sudo apt-get install -y chromium"

# Debian's /usr/bin/chromium is a shell script that execs this binary with flags of its
# own: the binary itself is launched, with ours alone.
_CANDIDATES = ("/usr/lib/chromium/chromium", "chromium", "chromium-browser",
               "google-chrome-stable", "google-chrome")


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
        self.idle: list = []   # (browser context, page) pairs a closed context gave back
        try:
            self.browser = self.playwright.chromium.launch(
                executable_path=executable, args=list(CHROMIUM_FLAGS), headless=True)
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


_sessions: dict[tuple[int, int], _Session] = {}
_lock = threading.Lock()
_IDLE_TABS = 2  # tabs kept for the next contexts: a new tab starts a renderer (~0.25 s)


def _session(relaunch: bool = False) -> _Session:
    """This thread's session, launched when there is none, it died, or ``relaunch``.
    Raises ``GpuUnavailable`` when Chromium cannot start."""
    problem = missing()
    if problem:
        raise GpuUnavailable(problem)
    key = (os.getpid(), threading.get_ident())  # a forked child never uses its parent's
    with _lock:
        session = _sessions.get(key)
    if session is not None and (relaunch or not session.alive()):
        _close_quietly(session)
        session = None
    if session is None:
        try:
            session = _Session()
        except Exception as exc:
            raise GpuUnavailable(f"Chromium ({chromium_path()}) did not start through "
                                 f"Playwright: {type(exc).__name__}: {exc}") from exc
        with _lock:
            _sessions[key] = session
    return session


def shared_browser(relaunch: bool = False):
    """This thread's Chromium (a ``playwright.sync_api.Browser``); see ``_session``."""
    return _session(relaunch).browser


def _detached(function):
    """``function`` run in a greenlet of its own. Playwright keeps the frame that made
    its last call (and so all that its callers hold, a context among them) until its
    next call; a call made in a fresh greenlet shows it a frame that holds nothing but
    the call's own arguments, so a closed context is freed at once."""
    @functools.wraps(function)
    def run(*args):
        import greenlet  # Playwright's own dependency, loaded with it

        return greenlet.greenlet(function).switch(*args)
    return run


@_detached
def open_tab(url: str, relaunch: bool = False):
    """(browser context, page) showing ``url``: an idle tab of this thread's Chromium
    (navigating unloads what it showed), else a new incognito one."""
    session = _session(relaunch)
    while session.idle:
        context, page = session.idle.pop()
        if not page.is_closed():
            break
        close_tab(context)
    else:
        context = session.browser.new_context()
        page = context.new_page()
    try:
        page.goto(url, wait_until="commit")
    except BaseException:
        close_tab(context)
        raise
    return context, page


def give_back_tab(context, page) -> None:
    """Keep a healthy tab for the next context, or close it."""
    with _lock:
        session = _sessions.get((os.getpid(), threading.get_ident()))
    if (session is not None and session.alive() and len(session.idle) < _IDLE_TABS
            and not page.is_closed() and page.context is context):
        session.idle.append((context, page))
    else:
        close_tab(context)


def live_tabs() -> int:
    """Tabs of this thread's Chromium, idle ones included (for leak tests)."""
    with _lock:
        session = _sessions.get((os.getpid(), threading.get_ident()))
    if session is None or not session.alive():
        return 0
    return sum(len(context.pages) for context in session.browser.contexts)


@_detached
def close_tab(context) -> None:
    """Close a tab's browser context (and its page), whatever state it is in."""
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
    """Close this thread's browser at exit (others end with the Playwright driver)."""
    with _lock:
        mine = _sessions.pop((os.getpid(), threading.get_ident()), None)
    if mine is not None:
        _close_quietly(mine)

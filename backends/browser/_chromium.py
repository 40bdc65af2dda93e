"""Finding and launching Chromium for the browser backend.

``missing()`` answers, without importing Playwright or starting anything, what is
absent (Playwright for Python, a Chromium executable) with the command that installs
it. ``shared_browser()`` is the process's Chromium, launched through Playwright on
first use and kept for the contexts that follow (each context gets its own incognito
browser context and page, so launching, about a second, is paid once); a browser that
died is launched again. It belongs to the thread and process that launched it, as
Playwright's synchronous API requires.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import shutil
import threading
from pathlib import Path

from forge.errors import GpuUnavailable

__all__ = ["CHROMIUM_FLAGS", "INSTALL_PLAYWRIGHT", "INSTALL_CHROMIUM", "chromium_path",
           "missing", "shared_browser", "live_browsers"]

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
    """One Playwright driver and the Chromium it launched."""

    def __init__(self) -> None:
        from playwright.sync_api import sync_playwright

        executable = chromium_path()
        self.playwright = sync_playwright().start()
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


def shared_browser(relaunch: bool = False):
    """This thread's Chromium (a ``playwright.sync_api.Browser``), launched when there
    is none, it died, or ``relaunch``. Raises ``GpuUnavailable`` when it cannot start."""
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
    return session.browser


def live_browsers() -> int:
    """Chromium processes this process holds (for leak tests)."""
    with _lock:
        return sum(1 for (pid, _), s in _sessions.items() if pid == os.getpid() and s.alive())


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

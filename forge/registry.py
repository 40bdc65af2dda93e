"""The plugin registry: backends and kernel libraries (docs/DESIGN.md section 5).

Every backend and kernel library, the built-in ones included, is found through the
entry-point groups ``forge.backends`` and ``forge.kernels`` (the project's own are
declared in its ``pyproject.toml``, so it must be installed, at least editable): this
module names none of them. Discovery runs once and is cached (``refresh()`` starts
over, availability included); a plugin that fails to load warns and is skipped; an
unknown name raises and lists what is installed. A backend's entry is cheap: asking
whether it is available should not import its heavy library when that can be avoided.

``FORGE_EXTRA_BACKENDS`` (``module:attribute`` entries, comma-separated) adds backend
entries that are not installed as a distribution, for a plugin under development (and
for the suite's fault-injecting test backend); worker processes inherit it.
"""

from __future__ import annotations

import functools
import importlib
import os
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from importlib import metadata
from typing import Any

from . import _checks
from .contract import OracleContext
from .errors import GpuUnavailable, InvalidArgument
from .kernel import KernelSpec

__all__ = [
    "BackendEntry",
    "PluginWarning",
    "backend_entries",
    "backend_names",
    "available_backends",
    "availability",
    "default_backend",
    "open_context",
    "get_kernel",
    "list_kernels",
    "refresh",
    "BACKEND_GROUP",
    "KERNEL_GROUP",
]

BACKEND_GROUP = "forge.backends"
KERNEL_GROUP = "forge.kernels"


class PluginWarning(UserWarning):
    """A plugin could not be loaded and was skipped."""


@dataclass(frozen=True)
class BackendEntry:
    """What the registry knows of a backend without opening it.

    ``availability()`` returns ``(ok, reason)``: when not ok, the reason says what is
    missing. ``open(**options)`` returns an ``OracleContext``. ``preference`` ranks
    backends for ``default_backend`` (the highest available one wins) and orders
    listings (lowest first). ``device_code``: the backend runs kernels as device code
    that can fault or hang (the oracle then runs it in worker processes by default);
    False for host backends such as the numpy reference. ``devices()`` cheaply counts
    the devices of this machine the backend can open one by one, and ``device_option``
    names the open option that picks one by index (``device=1``), so that work can be
    spread over them; None: one device, the backend's default.

    ``compile_ahead(kernel, schedule, size, adapter, constraints)``, optional: what
    ``OracleContext.compile_ahead`` does, for a context this process does not hold but
    which shares this host's disk (a local worker process's), described by its
    ``AdapterIdentity`` and ``AdapterConstraints``: the device-free preparation of that
    run, into a cache the context reads (CUDA: the NVRTC compile for
    ``adapter.architecture``). It may raise; callers ignore it. None: nothing to do.
    """

    name: str
    open: Callable[..., OracleContext]
    availability: Callable[[], tuple[bool, str]]
    description: str = ""
    origin: str = ""
    preference: int = 0
    device_code: bool = True
    devices: Callable[[], int] | None = None
    device_option: str | None = None
    compile_ahead: Callable[..., None] | None = None


def _entry_points(group: str) -> list[metadata.EntryPoint]:
    return sorted(metadata.entry_points(group=group), key=lambda ep: ep.name)


def _origin(ep: metadata.EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    return f"{dist.name} {dist.version}" if dist is not None else ep.value


def _as_backend_entry(obj: Any, name: str, origin: str) -> BackendEntry:
    if isinstance(obj, BackendEntry):
        return replace(obj, origin=origin)
    missing = [a for a in ("open", "availability") if not callable(getattr(obj, a, None))]
    if missing:
        raise TypeError(f"backend entry {name!r} lacks callable {', '.join(missing)}")
    return BackendEntry(
        getattr(obj, "name", name),
        obj.open,
        obj.availability,
        getattr(obj, "description", ""),
        origin,
        int(getattr(obj, "preference", 0)),
        bool(getattr(obj, "device_code", True)),
        getattr(obj, "devices", None),
        getattr(obj, "device_option", None),
        getattr(obj, "compile_ahead", None),
    )


def _add_backend(
    entries: dict[str, BackendEntry],
    name: str | None,
    load: Callable[[], Any],
    value: str,
    origin: str,
) -> None:
    """Load one backend entry into ``entries`` (keyed by ``name``, else by its own
    name); a broken or shadowed one warns and is skipped."""
    try:
        loaded = load()
        key: str = name if name else getattr(loaded, "name", value)
        if key in entries:
            warnings.warn(
                f"backend plugin {key!r} from {origin} is shadowed by a backend of "
                "the same name and was skipped",
                PluginWarning,
                stacklevel=3,
            )
            return
        entries[key] = _as_backend_entry(loaded, key, origin)
    except Exception as exc:  # a broken plugin must not break the tool
        warnings.warn(
            f"backend plugin {name or value!r} ({value}) failed to load and was "
            f"skipped: {type(exc).__name__}: {exc}",
            PluginWarning,
            stacklevel=3,
        )


@functools.cache
def backend_entries() -> dict[str, BackendEntry]:
    """Every installed backend by name, lowest ``preference`` first (then by name)."""
    entries: dict[str, BackendEntry] = {}
    extra = [
        value.strip()
        for value in os.environ.get("FORGE_EXTRA_BACKENDS", "").split(",")
        if value.strip()
    ]
    for ep in _entry_points(BACKEND_GROUP):
        _add_backend(entries, ep.name, ep.load, ep.value, _origin(ep))
    for value in extra:
        module, _, attribute = value.partition(":")

        def load(module: str = module, attribute: str = attribute) -> Any:
            return getattr(importlib.import_module(module), attribute)

        _add_backend(entries, None, load, value, "FORGE_EXTRA_BACKENDS")
    return dict(sorted(entries.items(), key=lambda item: (item[1].preference, item[0])))


def backend_names() -> list[str]:
    return list(backend_entries())


def _entry(name: str) -> BackendEntry:
    entries = backend_entries()
    if name not in entries:
        raise InvalidArgument(f"unknown backend {name!r}; installed: {', '.join(entries)}")
    return entries[name]


@functools.cache
def _availability(name: str) -> tuple[bool, str]:
    try:
        ok, reason = _entry(name).availability()
    except Exception as exc:
        return False, f"availability check failed: {type(exc).__name__}: {exc}"
    return bool(ok), str(reason)


def availability(name: str) -> tuple[bool, str]:
    """``(ok, reason)`` for backend ``name`` (cached; see ``refresh``); a backend not
    installed is not ok, and the reason says so."""
    try:
        _entry(name)
    except InvalidArgument as exc:
        return False, str(exc)
    return _availability(name)


def available_backends() -> dict[str, tuple[bool, str]]:
    """``{name: (ok, reason)}`` for every known backend (cached; see ``refresh``)."""
    return {name: _availability(name) for name in backend_entries()}


def default_backend() -> str:
    """``FORGE_BACKEND`` when set, else the available backend of highest preference."""
    chosen = os.environ.get("FORGE_BACKEND")
    if chosen:
        if chosen not in backend_entries():
            raise InvalidArgument(
                f"FORGE_BACKEND names an unknown backend {chosen!r}; "
                f"installed: {', '.join(backend_entries())}"
            )
        return chosen
    ranked = sorted(backend_entries().values(), key=lambda e: -e.preference)
    for entry in ranked:
        if _availability(entry.name)[0]:
            return entry.name
    raise GpuUnavailable(
        "no backend is available: "
        + "; ".join(f"{e.name}: {_availability(e.name)[1]}" for e in ranked)
    )


def open_context(name: str | None = None, **options: Any) -> OracleContext:
    """Open a context of backend ``name`` (default: ``default_backend()``)."""
    name = name or default_backend()
    entry = _entry(name)
    ok, reason = _availability(name)
    if not ok:
        raise GpuUnavailable(f"backend {name!r} is not available: {reason}")
    _checks.options(entry.open, options, f"the {name} backend")  # when it lists them
    try:
        return entry.open(**options)
    except TypeError as exc:  # an open(**options) that passes them on unchecked
        if options and "keyword argument" in str(exc):
            raise InvalidArgument(
                f"the {name} backend refused the options {sorted(options)}: {exc}"
            ) from exc
        raise


def _kernels_from(obj: Any) -> Iterable[KernelSpec]:
    kernels = obj() if callable(obj) else obj
    for kernel in kernels:
        if not isinstance(kernel, KernelSpec):
            raise TypeError(f"expected KernelSpec, got {type(kernel).__name__}")
        yield kernel


@functools.cache
def _kernel_table() -> dict[str, KernelSpec]:
    table: dict[str, KernelSpec] = {}
    for ep in _entry_points(KERNEL_GROUP):
        try:
            found = list(_kernels_from(ep.load()))
        except Exception as exc:
            warnings.warn(
                f"kernel plugin {ep.name!r} ({ep.value}) failed to load and was "
                f"skipped: {type(exc).__name__}: {exc}",
                PluginWarning,
                stacklevel=2,
            )
            continue
        for kernel in found:
            if kernel.id in table:
                warnings.warn(
                    f"kernel {kernel.id!r} from plugin {ep.name!r} is shadowed "
                    "by a kernel of the same id and was skipped",
                    PluginWarning,
                    stacklevel=2,
                )
            else:
                table[kernel.id] = kernel
    return table


def list_kernels() -> list[KernelSpec]:
    """Every known kernel, sorted by id."""
    return [table_kernel for _, table_kernel in sorted(_kernel_table().items())]


def get_kernel(name: str) -> KernelSpec:
    table = _kernel_table()
    if name not in table:
        raise InvalidArgument(f"unknown kernel {name!r}; known: {', '.join(sorted(table))}")
    return table[name]


def refresh() -> None:
    """Forget what discovery found; the next call looks again."""
    backend_entries.cache_clear()
    _availability.cache_clear()
    _kernel_table.cache_clear()

"""The plugin registry: built-ins, entry points, broken plugins, defaults."""

from __future__ import annotations

import importlib.metadata as metadata
import warnings

import pytest

import forge
from forge import GpuUnavailable, InvalidArgument, PluginWarning, registry


@pytest.fixture(autouse=True)
def _fresh_registry():
    registry.refresh()
    yield
    registry.refresh()


def test_builtin_backends_are_registered_through_entry_points_like_plugins():
    entries = registry.backend_entries()
    assert {"reference", "browser", "wgpu", "cuda"} <= set(entries)
    for name in ("reference", "browser", "wgpu", "cuda"):
        assert entries[name].origin.startswith("kernel-forge "), entries[name]
    names = list(entries)  # listed by preference: the reference first, CUDA last
    assert (
        names.index("reference")
        < names.index("browser")
        < names.index("wgpu")
        < names.index("cuda")
    )
    assert not entries["reference"].device_code and entries["cuda"].device_code


def test_every_backend_reports_availability_with_a_reason():
    status = forge.available_backends()
    assert status["reference"] == (True, "numpy on the host")
    for name, (ok, reason) in status.items():
        assert isinstance(ok, bool) and reason, name


def test_unknown_backend_raises_and_lists_what_is_installed():
    with pytest.raises(
        InvalidArgument, match=r"unknown backend 'nope'; installed: reference, .*wgpu, cuda"
    ):
        forge.open_context("nope")


def test_unknown_kernel_raises_and_lists_the_known_ones():
    with pytest.raises(InvalidArgument, match="raw_affine"):
        forge.get_kernel("nope")


def test_forge_backend_picks_the_default(monkeypatch):
    monkeypatch.setenv("FORGE_BACKEND", "reference")
    assert forge.default_backend() == "reference"
    with forge.open_context() as ctx:
        assert ctx.backend_name == "reference"
    monkeypatch.setenv("FORGE_BACKEND", "nope")
    with pytest.raises(InvalidArgument, match="unknown backend"):
        forge.default_backend()


def test_without_any_available_backend_the_default_says_why_for_each(monkeypatch):
    monkeypatch.delenv("FORGE_BACKEND", raising=False)
    monkeypatch.setattr(registry, "_availability", lambda name: (False, f"no {name} here"))
    with pytest.raises(GpuUnavailable, match="cuda: no cuda here; wgpu: no wgpu here"):
        forge.default_backend()


def test_unavailable_backend_raises_gpu_unavailable_with_the_reason(monkeypatch):
    entry = registry.BackendEntry("ghost", lambda **o: None, lambda: (False, "no ghost device"))
    monkeypatch.setitem(registry.backend_entries(), "ghost", entry)
    with pytest.raises(GpuUnavailable, match="no ghost device"):
        forge.open_context("ghost")


def test_plugin_distribution_adds_a_backend_and_a_kernel():
    # tests/plugins/forge_demo_plugin is installed by ./scripts/test into .test-plugins;
    # this must fail, not skip, when it is missing.
    dists = {ep.dist.name for ep in metadata.entry_points(group="forge.backends") if ep.dist}
    assert "forge-demo-plugin" in dists, "run ./scripts/test: it installs the demo plugin"
    assert registry.backend_entries()["demo"].origin.startswith("forge-demo-plugin")
    kernel = forge.get_kernel("demo_square")
    assert kernel in forge.list_kernels()
    with forge.open_context("demo") as ctx:
        assert ctx.backend_name == "demo"


def test_the_test_plugin_stays_out_of_the_users_environment():
    """./scripts/test puts the demo plugin on the tests' path only: the project's own
    interpreter, without it, lists no demo backend or kernel (./scripts/kforge)."""
    import os
    import subprocess
    import sys

    plugins = os.path.join(os.path.dirname(os.path.dirname(__file__)), ".test-plugins")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p
        for p in env.get("PYTHONPATH", "").split(os.pathsep)
        if p and os.path.abspath(p) != plugins
    )
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import forge; print(forge.backend_names(), [k.id for k in forge.list_kernels()])",
        ],
        env=env,
        cwd="/",
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "demo" not in out, "the demo plugin is installed in the project's environment"


def test_broken_plugin_warns_and_is_skipped(monkeypatch):
    real = registry._entry_points

    def with_broken(group):
        broken = metadata.EntryPoint("broken", "forge_no_such_module:entry", group)
        return real(group) + [broken]

    monkeypatch.setattr(registry, "_entry_points", with_broken)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        names = registry.backend_names()
        kernels = forge.list_kernels()
    assert "broken" not in names and "reference" in names
    assert kernels, "built-in kernels still load"
    messages = [str(w.message) for w in caught if issubclass(w.category, PluginWarning)]
    assert any("backend plugin 'broken'" in m and "ModuleNotFoundError" in m for m in messages)
    assert any("kernel plugin 'broken'" in m for m in messages)


def test_discovery_is_cached_until_refresh(monkeypatch):
    calls = []
    real = registry._entry_points
    monkeypatch.setattr(registry, "_entry_points", lambda g: calls.append(g) or real(g))
    registry.backend_names()
    registry.backend_names()
    assert calls.count("forge.backends") == 1
    registry.refresh()
    registry.backend_names()
    assert calls.count("forge.backends") == 2

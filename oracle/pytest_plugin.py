"""The kernel-forge pytest plugin (entry point ``pytest11``).

- ``--require-backend NAME`` (repeatable): a missing backend NAME fails the tests
  that need it instead of skipping them (used on the GPU machine).
- ``forge_backend_name``: a test taking it runs once per known backend, installed or
  not; ``forge_context`` opens that backend, and an unavailable one is SKIPPED with its
  reason, never passed.
"""

from __future__ import annotations

import pytest

from forge import registry

__all__ = ["pytest_addoption", "pytest_generate_tests", "forge_context"]


def pytest_addoption(parser) -> None:
    group = parser.getgroup("kernel-forge")
    group.addoption("--require-backend", action="append", default=[], metavar="NAME",
                    help="fail, rather than skip, tests of backend NAME when it is not "
                         "available (repeatable)")


def pytest_generate_tests(metafunc) -> None:
    if "forge_backend_name" in metafunc.fixturenames:
        names = registry.backend_names()
        metafunc.parametrize("forge_backend_name", names, ids=names)


def require_available(config, name: str) -> None:
    """Skip (or, under ``--require-backend``, fail) unless backend ``name`` is available."""
    required = config.getoption("--require-backend")
    unknown = set(required) - set(registry.backend_names())
    if unknown:
        pytest.fail(f"--require-backend names unknown backends {sorted(unknown)}; "
                    f"known: {registry.backend_names()}")
    ok, reason = registry.available_backends()[name]
    if ok:
        return
    message = f"backend {name!r} unavailable: {reason}"
    if name in required:
        pytest.fail(message + " (required by --require-backend)")
    pytest.skip(message)


@pytest.fixture
def forge_context(request, forge_backend_name):
    """An open context of the parametrised backend, closed after the test."""
    require_available(request.config, forge_backend_name)
    ctx = registry.open_context(forge_backend_name)
    try:
        yield ctx
    finally:
        ctx.close()

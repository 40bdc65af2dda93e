"""The kernel-forge pytest plugin (entry point ``pytest11``), for this project and for
users testing their own kernels.

- ``--require-backend NAME`` (repeatable): a missing backend NAME fails the tests
  that need it instead of skipping them (used on the GPU machine).
- ``forge_backend_name``: a test taking it runs once per known backend, installed or
  not; ``forge_context`` opens that backend, and an unavailable one is SKIPPED with its
  reason, never passed.
- ``forge_oracle``: a callable ``forge_oracle(kernel, **options)`` that runs the oracle
  (``oracle.evaluate`` on ``forge_context``, same options) and fails the test with the
  full mismatch report when the kernel is wrong. A kernel the backend cannot run (no
  source for it, a missing feature) is skipped with the reason, or fails under
  ``--require-backend``. It returns the ``oracle.Evaluation``.
- ``assert_kernel_matches(ctx, kernel, **options)``: the same check for any open
  context, usable without the fixtures.

Example, in a user's test file (the plugin is active once kernel-forge is installed)::

    def test_my_kernel(forge_oracle):
        evaluation = forge_oracle(MY_KERNEL, size=4099)
        assert evaluation.max_ulp <= 2
"""

from __future__ import annotations

import pytest

from forge import registry

from ._evaluate import evaluate

__all__ = ["pytest_addoption", "pytest_generate_tests", "forge_context", "forge_oracle",
           "require_available", "assert_kernel_matches"]


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


def assert_kernel_matches(ctx, kernel, *, config=None, **options):
    """Run ``oracle.evaluate(ctx, kernel, **options)``; fail the test with its report
    unless the kernel passed. An ``unsupported`` verdict skips with the reason (fails
    when ``config`` is given and the backend is named by ``--require-backend``)."""
    evaluation = evaluate(ctx, kernel, **options)
    if evaluation.verdict == "unsupported":
        message = f"{kernel.id} cannot run on {ctx.backend_name}: {evaluation.error}"
        required = config.getoption("--require-backend") if config is not None else []
        if ctx.backend_name in required:
            pytest.fail(message + " (required by --require-backend)", pytrace=False)
        pytest.skip(message)
    if not evaluation.passed:
        pytest.fail(evaluation.report(), pytrace=False)
    return evaluation


@pytest.fixture
def forge_oracle(request, forge_context):
    """``check(kernel, **options)``: the oracle on this test's backend; see the module
    docstring."""

    def check(kernel, **options):
        return assert_kernel_matches(forge_context, kernel, config=request.config, **options)

    return check

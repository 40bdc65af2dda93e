"""The kernel-forge pytest plugin (entry point ``pytest11``), for this project and for
users testing their own kernels.

- ``--require-backend NAME`` (repeatable): a missing backend NAME fails the tests
  that need it instead of skipping them (used on the GPU machine).
- ``forge_backend_name``: a test taking it runs once per known backend, installed or
  not; ``forge_context`` opens that backend, and an unavailable one is SKIPPED with its
  reason, never passed.
- ``forge_oracle``: a callable ``forge_oracle(kernel, **options)`` that runs the oracle
  (``oracle.evaluate``, same options) on the parametrised backend and fails the test
  with the full report when the kernel is wrong. Backends that run device code do so
  in worker processes shared by the whole test session (``forge_session``), so a
  kernel that faults fails its own test and no other; ``--forge-no-isolate`` runs them
  in the test process. A kernel the backend cannot run (no source for it, a missing
  feature) is skipped with the reason, or fails under ``--require-backend``. It
  returns the ``oracle.Evaluation``.
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

from ._evaluate import DEFAULT_TIMEOUT_S, evaluate
from ._results import Verdict
from ._session import Session

__all__ = [
    "pytest_addoption",
    "pytest_generate_tests",
    "forge_context",
    "forge_oracle",
    "forge_session",
    "require_available",
    "assert_kernel_matches",
]


def pytest_addoption(parser) -> None:
    group = parser.getgroup("kernel-forge")
    group.addoption(
        "--require-backend",
        action="append",
        default=[],
        metavar="NAME",
        help="fail, rather than skip, tests of backend NAME when it is not available (repeatable)",
    )
    group.addoption(
        "--forge-no-isolate",
        action="store_true",
        default=False,
        help="run forge_oracle's device backends in the test process instead of worker processes",
    )


def pytest_generate_tests(metafunc) -> None:
    if "forge_backend_name" in metafunc.fixturenames:
        names = registry.backend_names()
        metafunc.parametrize("forge_backend_name", names, ids=names)


_UNAVAILABLE = "backend {name!r} unavailable: "


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Skips for an unavailable backend all carry this module as their location, so
    the summary (``-rs``) shows each backend's reason once, with its count, instead of
    once per test file and line."""
    outcome = yield
    report = outcome.get_result()
    longrepr = report.longrepr
    if (
        report.skipped
        and isinstance(longrepr, tuple)
        and len(longrepr) == 3
        and str(longrepr[2]).startswith("Skipped: backend '")
        and "' unavailable: " in str(longrepr[2])
    ):
        report.longrepr = (__file__, require_available.__code__.co_firstlineno, longrepr[2])


def require_available(config, name: str) -> None:
    """Skip (or, under ``--require-backend``, fail) unless backend ``name`` is available."""
    required = config.getoption("--require-backend")
    unknown = set(required) - set(registry.backend_names())
    if unknown:
        pytest.fail(
            f"--require-backend names unknown backends {sorted(unknown)}; "
            f"known: {registry.backend_names()}"
        )
    ok, reason = registry.available_backends()[name]
    if ok:
        return
    message = _UNAVAILABLE.format(name=name) + reason
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


def assert_kernel_matches(target, kernel, *, config=None, **options):
    """Run ``oracle.evaluate(target, kernel, **options)`` (an open context or a runner);
    fail the test with its report unless the kernel passed. An ``unsupported`` verdict
    skips with the reason (fails when ``config`` is given and the backend is named by
    ``--require-backend``)."""
    evaluation = evaluate(target, kernel, **options)
    if evaluation.verdict == Verdict.UNSUPPORTED:
        message = f"{kernel.id} cannot run on {evaluation.backend}: {evaluation.error}"
        required = config.getoption("--require-backend") if config is not None else []
        if evaluation.backend in required:
            pytest.fail(message + " (required by --require-backend)", pytrace=False)
        pytest.skip(message)
    if not evaluation.passed:
        pytest.fail(evaluation.report(), pytrace=False)
    return evaluation


@pytest.fixture(scope="session")
def forge_session(request):
    """The ``oracle.Session`` every ``forge_oracle`` of the test session shares: one
    warm worker process per device backend (in the test process under
    ``--forge-no-isolate``)."""
    isolate = False if request.config.getoption("--forge-no-isolate") else None
    session = Session(isolate=isolate, timeout_s=DEFAULT_TIMEOUT_S)
    yield session
    session.close()


@pytest.fixture
def forge_oracle(request, forge_backend_name, forge_session):
    """``check(kernel, **options)``: the oracle on this test's backend; see the module
    docstring."""
    require_available(request.config, forge_backend_name)

    def check(kernel, **options):
        runner = forge_session.runner(forge_backend_name)
        return assert_kernel_matches(runner, kernel, config=request.config, **options)

    return check

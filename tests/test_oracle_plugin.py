"""The pytest plugin as a user meets it: ``forge_oracle`` passes a correct kernel,
fails a wrong one with the mismatch report, and skips (or, under
``--require-backend``, fails) a kernel the backend cannot run."""

from __future__ import annotations

import pytest

from oracle.pytest_plugin import require_available

pytest_plugins = ["pytester"]

USER_TESTS = """
import dataclasses
import numpy as np
import forge

AFFINE = forge.get_kernel("raw_affine")


def _clobber(x, y, p):
    y[:] = np.float32(p["a"]) * x + np.float32(p["b"])
    x[:5] = 0


CLOBBER = dataclasses.replace(AFFINE, id="user_clobber", reference=_clobber)
CUDA_ONLY = dataclasses.replace(AFFINE, id="user_cuda_only",
                                sources={"cuda": AFFINE.sources["cuda"]})


def test_right(forge_oracle):
    evaluation = forge_oracle(AFFINE, size=999, samples=1)
    assert evaluation.max_ulp <= 4


def test_wrong(forge_oracle):
    forge_oracle(CLOBBER, samples=0)


def test_unsupported(forge_oracle):
    forge_oracle(CUDA_ONLY, samples=0)
"""


def test_forge_oracle_passes_right_kernels_and_fails_wrong_ones_with_the_report(pytester):
    pytester.makepyfile(test_user=USER_TESTS)
    result = pytester.runpytest_inprocess("-k", "reference", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*test_wrong*reference*", "*input modified by the kernel*"])


def test_a_kernel_the_backend_cannot_run_is_skipped_or_required(pytester, request):
    require_available(request.config, "wgpu")
    pytester.makepyfile(test_user=USER_TESTS)
    # in a subprocess: wgpu-py cannot be imported a second time in one process, which
    # is what pytester's in-process runs (restoring sys.modules after each) would do
    result = pytester.runpytest_subprocess(
        "-k", "wgpu and unsupported", "-rs", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*user_cuda_only cannot run on wgpu*no wgsl source*"])
    required = pytester.runpytest_subprocess(
        "-k", "wgpu and unsupported", "--require-backend", "wgpu", "-p", "no:cacheprovider"
    )
    required.assert_outcomes(failed=1)


def test_assert_kernel_matches_works_on_any_open_context():
    import forge
    from oracle.pytest_plugin import assert_kernel_matches

    with forge.open_context("reference") as ctx:
        evaluation = assert_kernel_matches(ctx, forge.get_kernel("raw_affine"), samples=0)
        assert evaluation.passed
        with pytest.raises(pytest.fail.Exception, match="MISMATCH"):
            assert_kernel_matches(
                ctx, forge.get_kernel("raw_affine"), samples=0, tolerance={"nan": "forbid"}
            )


def test_an_unavailable_backend_is_one_line_of_the_skip_summary(pytester):
    """Tests in several files skipping for the same missing backend: the summary gives
    its reason once, with the count, not once per file and line."""
    # Patched through monkeypatch, so undone after each test: pytester runs in this
    # process, and a bare assignment left the reference "missing" for every later test.
    pytester.makeconftest("""
import pytest
import oracle.pytest_plugin as plugin

@pytest.fixture(autouse=True)
def _reference_missing(monkeypatch):
    real = plugin.registry.available_backends
    def fake():
        found = dict(real())
        found["reference"] = (False, "pretend it is missing")
        return found
    monkeypatch.setattr(plugin.registry, "available_backends", fake)
""")
    body = """
from oracle.pytest_plugin import require_available
def test_one(request):
    require_available(request.config, "reference")
def test_two(request):
    require_available(request.config, "reference")
"""
    pytester.makepyfile(test_a=body, test_b=body)
    result = pytester.runpytest_inprocess("-rs", "-p", "no:cacheprovider")
    result.assert_outcomes(skipped=4)
    lines = [line for line in result.outlines if "pretend it is missing" in line]
    assert len(lines) == 1 and "SKIPPED [4]" in lines[0], result.outlines

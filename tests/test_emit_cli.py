"""``kforge generate`` and ``kforge validate``."""

from __future__ import annotations

import json

import pytest

import forge
from forge import Schedule
from kforge import main
from oracle.pytest_plugin import require_available


@pytest.fixture(autouse=True)
def _private_nvrtc_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FORGE_CACHE_DIR", str(tmp_path / "cache"))


def test_generate_prints_the_source_for_the_schedule(capsys):
    args = ["generate", "softmax", "--target", "wgsl", "--schedule", "wg=128,ipt=4,vec=4"]
    assert main(args) == 0
    out = capsys.readouterr().out
    kernel = forge.get_kernel("softmax")
    assert out == kernel.source("wgsl", Schedule(128, items_per_invocation=4, vector_width=4))
    assert "// schedule: wg=128,ipt=4,vec=4" in out


def test_generate_defaults_to_the_first_schedule_and_serves_raw_kernels(capsys):
    assert main(["generate", "raw_affine", "--target", "cuda"]) == 0
    raw = forge.get_kernel("raw_affine")
    assert capsys.readouterr().out == raw.source("cuda", raw.schedules[0])


@pytest.mark.parametrize(
    "argv, message",
    [
        (["generate", "nope", "--target", "wgsl"], "unknown kernel 'nope'"),
        (["generate", "gemm", "--target", "cuda", "--schedule", "wg=64"], "a matmul needs tile="),
    ],
)
def test_generate_explains_what_is_wrong(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_a_malformed_schedule_is_a_usage_error_with_the_reason(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["generate", "affine", "--target", "cuda", "--schedule", "wg=64,foo=2"])
    assert exit_info.value.code == 2
    assert "bad schedule item 'foo=2'" in capsys.readouterr().err


def test_validate_reports_nvrtc_levels_as_json(capsys):
    assert main(["validate", "gemm", "relu", "--target", "cuda", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    rows = report["results"]
    assert report["passed"] and len(rows) == len(forge.get_kernel("gemm").schedules) + 4
    assert {r["level"] for r in rows} == {"VALIDATED"}
    assert {r["role"] for r in rows if r["kernel"] == "gemm"} == {"baseline", "big-gpu"}


def test_validate_builds_wgsl_pipelines(capsys, request):
    require_available(request.config, "wgpu")
    assert main(["validate", "transpose", "--target", "wgsl", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["results"]
    assert [r["level"] for r in rows] == ["PIPELINE_CREATED"] * 2


def test_validate_fails_with_the_reason_for_a_refused_schedule(capsys):
    args = ["validate", "transpose", "--target", "cuda", "--schedule", "wg=32x8,tile=32x16"]
    assert main(args) == 1
    out = capsys.readouterr().out
    assert "FAILED" in out and "square tile" in out

"""``kforge tune`` as users run it: a kernel file with its own tunables, a strategy and a
budget, the table sorted by median with GB/s and GFLOP/s, ``--json`` with its format,
``--save`` and then ``check --tuned`` / ``certify --tuned`` running the saved schedule,
and a run killed or interrupted midway that resumes from the tuning cache."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import kforge
import oracle

ROOT = Path(__file__).resolve().parents[1]

KERNEL_FILE = textwrap.dedent('''
    import time
    import numpy as np
    from forge import BufferSpec, KernelSpec

    def scale(x, y):
        time.sleep(float(__import__("os").environ.get("SLOW_REFERENCE", "0")))
        y[:] = x * np.float32(3)

    SCALE = KernelSpec(
        id="scale3", entry_point="main", reference=scale, test_sizes=(4096,),
        sources={"wgsl": """
            @group(0) @binding(0) var<storage, read> x: array<f32>;
            @group(0) @binding(1) var<storage, read_write> y: array<f32>;
            @compute @workgroup_size({{wg_x}})
            fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
                for (var k = 0u; k < {{UNROLL}}u; k++) {
                    let i = gid.x * {{UNROLL}}u + k;
                    if (i < arrayLength(&y)) { y[i] = x[i] * 3.0; }
                }
            }"""},
        buffers=(BufferSpec(0, "f32", "read", name="x"),
                 BufferSpec(1, "f32", "read_write", name="y")),
        grid="(ceil_div(n, wg_x * UNROLL),)",
        tunables={"wg": (32, 64, 128), "UNROLL": (1, 2, 4)},
        restrictions=("wg_x * UNROLL <= 256",), flops="n", bytes_moved="8 * n")
''')


@pytest.fixture
def kernel_file(tmp_path, monkeypatch):
    monkeypatch.setenv("FORGE_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "scale3.py"
    path.write_text(KERNEL_FILE)
    return path


def _tune_json(capsys, *argv) -> tuple[int, dict]:
    code = kforge.main(["tune", *map(str, argv), "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_tune_reports_the_candidates_by_median_with_rates(capsys, kernel_file):
    code, data = _tune_json(
        capsys,
        kernel_file,
        "--backend",
        "reference",
        "--strategy",
        "exhaustive",
        "--samples",
        "3",
        "--top",
        "4",
    )
    assert code == 0 and data["format"] == oracle.TUNE_FORMAT == "kforge-tune/1"
    assert data["strategy"] == "exhaustive" and data["size"] == "4096"
    medians = [c["median_ns"] for c in data["top"]]
    assert len(medians) == 3 and medians == sorted(medians)  # UNROLL 1, 2, 4 on numpy
    best = data["top"][0]
    assert best["gflop_per_s"] == pytest.approx(4096 / best["median_ns"])
    assert best["gb_per_s"] == pytest.approx(8 * 4096 / best["median_ns"])
    pruned = [c for c in data["candidates"] if c["status"] == "pruned"]
    # the reference backend runs numpy whatever the workgroup: those are duplicates
    assert any("unused parameter" in c["reason"] for c in pruned)
    assert any(c["reason"] == "restriction 'wg_x * UNROLL <= 256' is false" for c in pruned)


def test_no_compile_ahead_turns_it_off(capsys, kernel_file, monkeypatch):
    import kforge._tune

    asked = []

    def tune(*args, **options):
        asked.append(options["compile_ahead"])
        return oracle.tune(*args, **options)

    monkeypatch.setattr(kforge._tune, "tune", tune)
    for flags in ([], ["--no-compile-ahead"]):
        code, _ = _tune_json(
            capsys, kernel_file, "--backend", "reference", "--samples", "2", *flags
        )
        assert code == 0
    assert asked == [True, False]


def test_the_table_shows_median_noise_and_rates(capsys, kernel_file):
    code = kforge.main(
        [
            "tune",
            str(kernel_file),
            "--backend",
            "reference",
            "--strategy",
            "random",
            "--budget",
            "2",
            "--samples",
            "3",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    for column in ("median", "noise (iqr)", "GB/s", "GFLOP/s", "samples"):
        assert column in out
    assert "random, budget 2 candidates" in out and "tuning cache:" in out


def _save_for_reference(kernel_file: Path, schedule: str, values: dict) -> None:
    """A tuned schedule saved for the reference backend's adapter, as --save keeps one."""
    from backends.reference import ReferenceContext
    from forge import Schedule
    from kforge._kernels import load_file
    from oracle import BackendInfo

    (kernel,) = load_file(kernel_file)
    with ReferenceContext() as ctx:
        oracle.save_tuned(
            BackendInfo.of(ctx), kernel, Schedule.parse(schedule), values, {"size": "4096"}
        )


def test_check_and_certify_run_the_saved_tuned_schedule_only_with_tuned(capsys, kernel_file):
    _save_for_reference(kernel_file, "wg=32", {"UNROLL": 4})
    tuned = "wg=32,ipt=1,vec=1 UNROLL=4"
    code = kforge.main(
        ["check", str(kernel_file), "--backend", "reference", "--samples", "1", "--json"]
    )
    plain = json.loads(capsys.readouterr().out)["results"][0]["evaluations"]["reference"]
    assert code == 0 and (plain["schedule"], plain["tunables"]) == (
        "wg=64,ipt=1,vec=1",
        {"UNROLL": 1},
    )
    code = kforge.main(
        ["check", str(kernel_file), "--backend", "reference", "--samples", "1", "--tuned"]
    )
    out = capsys.readouterr().out
    assert code == 0 and tuned in out
    code = kforge.main(
        [
            "certify",
            str(kernel_file),
            "--backend",
            "reference",
            "--tuned",
            "--samples",
            "1",
            "--json",
        ]
    )
    certified = json.loads(capsys.readouterr().out)["results"][0]
    assert code == 0 and certified["schedule"] == tuned and certified["result"] == "certified"
    assert certified["detail"].startswith("tuned 20")


def test_save_keeps_only_a_winner_that_stands_out(capsys, kernel_file):
    code, data = _tune_json(
        capsys,
        kernel_file,
        "--backend",
        "reference",
        "--strategy",
        "exhaustive",
        "--samples",
        "2",
        "--save",
    )
    assert code == 0
    if data["winner"] is None:  # numpy's run does not depend on UNROLL: usually no winner
        assert data["saved"] is None and "nothing saved" in " ".join(data["notes"])
    else:
        assert Path(data["saved"]).is_file()


def test_without_tuned_check_runs_the_kernels_own_schedule_and_says_which(capsys, kernel_file):
    code = kforge.main(["check", str(kernel_file), "--backend", "reference", "--samples", "1"])
    out = capsys.readouterr().out
    assert code == 0 and "wg=64,ipt=1,vec=1 UNROLL=1" in out


def test_an_unknown_restriction_name_is_a_usage_error_before_anything_runs(
    capsys, tmp_path, monkeypatch
):
    monkeypatch.setenv("FORGE_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "bad.py"
    path.write_text(KERNEL_FILE.replace('"wg_x * UNROLL <= 256"', '"wg_x * UNROL <= 256"'))
    code = kforge.main(["tune", str(path), "--backend", "reference"])
    err = capsys.readouterr().err
    assert code == 2 and "restriction 'wg_x * UNROL <= 256' names UNROL" in err
    assert not (tmp_path / "cache" / "tuning").exists()


def _run_tune(kernel_file: Path, env: dict) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kforge",
            "tune",
            str(kernel_file),
            "--backend",
            "reference",
            "--strategy",
            "exhaustive",
            "--samples",
            "2",
            "--json",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for_lines(cache: Path, count: int, timeout: float = 120) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        files = list(cache.rglob("*.jsonl"))
        lines = len(files[0].read_text().splitlines()) if files else 0
        if lines >= count:
            return lines
        time.sleep(0.05)
    raise AssertionError(f"the tuning cache never reached {count} lines")


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGINT])
def test_a_run_killed_or_interrupted_midway_resumes_from_the_cache(kernel_file, tmp_path, stop):
    env = dict(os.environ, FORGE_CACHE_DIR=str(tmp_path / "cache"), SLOW_REFERENCE="0.1")
    process = _run_tune(kernel_file, env)
    _wait_for_lines(tmp_path / "cache", 2)
    process.send_signal(stop)
    process.wait(timeout=60)
    if stop == signal.SIGINT:
        assert process.returncode == 130
    kept = len(list((tmp_path / "cache").rglob("*.jsonl"))[0].read_text().splitlines())
    env["SLOW_REFERENCE"] = "0"
    resumed = _run_tune(kernel_file, env)
    out, err = resumed.communicate(timeout=300)
    data = json.loads(out)
    assert resumed.returncode == 0, err
    assert data["reused"] >= kept >= 2
    assert len([c for c in data["candidates"] if c["order"]]) == 3  # every UNROLL measured

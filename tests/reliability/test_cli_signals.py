"""``kforge`` stopped by a signal, as a careless or unlucky user stops it: Ctrl-C before
the command has even started (its imports take a second), and SIGTERM (``timeout``, a
CI job cancelled, ``docker stop``) mid-run. Either ends it with one line and the
conventional exit code (130, 143), no traceback, and what was judged is kept in
``--results`` (test_cli_ci.py has Ctrl-C in the timed samples)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import kforge

from ._process import ROOT

# The reference of its second size, made in the main thread while the first size is
# judged on a lane's thread, says so and then takes a minute: the signal comes then.
# (On the lane, the reference backend runs the same function as the kernel: no wait.)
_KERNEL_FILE = textwrap.dedent('''
    import os, threading, time
    import numpy as np
    from forge import BufferSpec, KernelSpec, ceil_div

    def half(x, y):
        in_main = threading.current_thread() is threading.main_thread()
        if x.size == 128 and in_main:
            open(os.environ["KF_READY"], "w").close()
            time.sleep(60)
        if in_main:  # the backend opens meanwhile: size 128 is not made ahead of the run
            time.sleep(0.5)
        return x * np.float32(0.5)

    HALF = KernelSpec(
        id="half", entry_point="main", reference=half, test_sizes=(64, 128),
        sources={"wgsl": """
            @group(0) @binding(0) var<storage, read> x: array<f32>;
            @group(0) @binding(1) var<storage, read_write> y: array<f32>;
            @compute @workgroup_size(64)
            fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
                if (gid.x < arrayLength(&y)) { y[gid.x] = x[gid.x] * 0.5; }
            }"""},
        buffers=(BufferSpec(0, "f32", "read", name="x"),
                 BufferSpec(1, "f32", "read_write", name="y")),
        grid=lambda s, n: (ceil_div(n, 64), 1, 1))
''')


def test_ctrl_c_while_kforge_starts_is_one_line_and_130_not_a_traceback(monkeypatch, capsys):
    """The imports and the parser run before the command: a KeyboardInterrupt there
    escaped ``main`` as a traceback (the first second of every run)."""

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(kforge, "build_parser", interrupted)
    try:
        code = kforge.main(["check", "--backend", "reference"])
    except KeyboardInterrupt:  # caught here: it would stop the whole test run
        pytest.fail("the KeyboardInterrupt escaped kforge.main: a traceback for the user")
    assert code == 130
    assert capsys.readouterr().err == "kforge check: interrupted\n"


def _check_until_ready(tmp_path, kernel_file: str, stdout=subprocess.PIPE):
    """``kforge check`` of ``kernel_file`` on the reference backend with ``--results``,
    in a child process, returned once a reference in it has written ``KF_READY`` (and
    then sleeps): (the process, the results path)."""
    path = tmp_path / "kernels.py"
    path.write_text(kernel_file)
    ready, results = tmp_path / "ready", tmp_path / "results.json"
    env = dict(os.environ, KF_READY=str(ready), FORGE_CACHE_DIR=str(tmp_path / "cache"))
    process = subprocess.Popen(
        [sys.executable, "-m", "kforge", "check", str(path), "--backend", "reference"]
        + ["--samples", "1", "--results", str(results)],
        cwd=ROOT,
        env=env,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not ready.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    if not ready.exists():
        process.kill()
        pytest.fail(process.communicate()[1][-2000:])
    return process, results


def test_sigterm_mid_check_exits_143_keeping_what_was_judged(tmp_path):
    """SIGTERM killed kforge outright (no --results at all); and Ctrl-C or SIGTERM while
    the main thread made a later item's reference lost the items judged before it."""
    process, results = _check_until_ready(tmp_path, _KERNEL_FILE)
    try:
        time.sleep(1.0)  # size 64's evaluation (one sample) ends on its lane meanwhile
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 143, err[-2000:]
    assert "Traceback" not in err and "interrupted" in err
    data = json.loads(results.read_text())
    assert data["interrupted"] is True
    judged = [(r["size"], r["evaluations"]["reference"]["verdict"]) for r in data["results"]]
    assert judged == [("64", "pass")], data


def test_a_check_killed_outright_leaves_results_of_what_it_had_judged(tmp_path):
    """SIGKILL (the out-of-memory killer, a CI runner's hard stop, a reference calling
    ``os._exit``) gives no chance to write anything at the end: ``--results`` was
    written only then, so a run of hours left nothing. It is kept up to date as the run
    goes, marked incomplete."""
    process, results = _check_until_ready(
        tmp_path,
        _KERNEL_FILE.replace("test_sizes=(64, 128)", "test_sizes=(64,)")
        + textwrap.dedent(
            """
            import dataclasses

            def hangs(x, y):
                if threading.current_thread() is threading.main_thread():
                    open(os.environ["KF_READY"], "w").close()
                    time.sleep(60)
                return x * np.float32(0.5)

            B, C, D, E, F, G, H = (dataclasses.replace(HALF, id=i) for i in "bcdefgh")
            HANGS = dataclasses.replace(HALF, id="hangs", reference=hangs)
            """
        ),
        stdout=subprocess.DEVNULL,
    )
    try:
        time.sleep(0.5)
        process.kill()
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    data = json.loads(results.read_text())
    assert data["complete"] is False and data["passed"] is False, data
    judged = {r["kernel"]: r["evaluations"]["reference"]["verdict"] for r in data["results"]}
    # the main thread makes a few items' references ahead of the oldest one judged (two,
    # or one more than a backend's lanes): by the ninth kernel's, four were saved
    assert {"half": "pass", "b": "pass", "c": "pass", "d": "pass"}.items() <= judged.items()
    assert "hangs" not in judged


def test_ctrl_c_before_the_first_verdict_still_writes_results_saying_so(
    tmp_path, monkeypatch, capsys
):
    """A Ctrl-C while the backends opened (before any verdict) wrote no --results file
    at all, so a script reading it could not tell an interrupted run from one that
    never started."""
    from kforge import _check

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(_check, "_open_while_preparing", interrupted)
    path = tmp_path / "half.py"
    path.write_text(_KERNEL_FILE)
    results = tmp_path / "results.json"
    code = kforge.main(["check", str(path), "--backend", "reference", "--results", str(results)])
    assert code == 130
    data = json.loads(results.read_text())
    assert data["interrupted"] is True and data["complete"] is False and data["results"] == []
    assert "interrupted; 0 evaluations were judged" in capsys.readouterr().err

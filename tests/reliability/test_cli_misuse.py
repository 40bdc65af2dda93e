"""A careless user's kernel files and arguments: each gets a typed error naming what was
wrong, and the other kernels of the run are judged as if alone."""

from __future__ import annotations

import contextlib
import random
import textwrap
import time

import numpy as np
import pytest

import forge
import oracle
from forge import InvalidArgument
from kforge import main

_HEADER = textwrap.dedent('''
    import sys
    import numpy as np
    from forge import BufferSpec, KernelSpec, ceil_div

    WGSL = """
    @group(0) @binding(0) var<storage, read> x: array<f32>;
    @group(0) @binding(1) var<storage, read_write> y: array<f32>;
    @compute @workgroup_size(64)
    fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
        if (gid.x < arrayLength(&y)) { y[gid.x] = x[gid.x] * 0.5; }
    }"""

    def spec(id, reference, sizes=(100,)):
        return KernelSpec(
            id=id, entry_point="main", sources={"wgsl": WGSL}, reference=reference,
            buffers=(BufferSpec(0, "f32", "read", name="x"),
                     BufferSpec(1, "f32", "read_write", name="y")),
            grid=lambda s, n: (ceil_div(n, 64), 1, 1), test_sizes=sizes)

    def half(x, y):
        return x * np.float32(0.5)

    def quarter(x, y):
        return x * np.float32(0.25)
''')


def _check(tmp_path, body: str, capsys) -> tuple[int, str, str]:
    path = tmp_path / "kernels.py"
    path.write_text(_HEADER + textwrap.dedent(body))
    code = main(["check", str(path), "--backend", "reference", "--samples", "0"])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_reference_calling_sys_exit_fails_its_kernel_not_the_run(tmp_path, capsys):
    """SystemExit is no Exception: it ended kforge at once, with the reference's exit
    status and not a word, and no other kernel was judged."""
    code, out, err = _check(
        tmp_path,
        """
        def leaves(x, y):
            sys.exit(3)

        FIRST = spec("first", half)
        LEAVES = spec("leaves", leaves)
        LAST = spec("last", half)
        """,
        capsys,
    )
    assert code == 1, err
    assert "raised SystemExit: 3" in err
    rows = {line.split("│")[1].strip(): line for line in out.splitlines() if "│ reference" in line}
    assert " pass " in rows["first"] and " pass " in rows["last"], out


def test_a_reference_that_never_returns_is_stopped_and_the_run_goes_on(tmp_path, capsys):
    """A reference in a loop that does not end held the whole check for ever: --timeout
    bounds the device, not the numpy function. It is stopped at --reference-timeout,
    even one that catches every Exception, and the kernels after it are judged."""
    path = tmp_path / "kernels.py"
    path.write_text(
        _HEADER
        + textwrap.dedent(
            """
            def spins(x, y):
                while True:
                    try:
                        sum(range(1000))
                    except Exception:
                        pass

            FIRST = spec("first", half)
            SPINS = spec("spins", spins)
            LAST = spec("last", half)
            """
        )
    )
    before = forge.reference_bound()
    try:
        code = main(
            ["check", str(path), "--backend", "reference", "--samples", "0"]
            + ["--reference-timeout", "0.5"]
        )
    finally:
        forge.set_reference_bound(before)
    out, err = capsys.readouterr()
    assert code == 1, err
    assert "(spins) ran past 0.5 s and was stopped" in err
    rows = {line.split("│")[1].strip(): line for line in out.splitlines() if "│ reference" in line}
    assert " pass " in rows["first"] and " pass " in rows["last"], out
    assert " pass " not in rows["spins"], out


def test_a_reference_bound_stops_only_the_call_it_watches():
    """The bound's raise never lands after the reference returned: calls on either side
    of the bound (some stopped, some not) keep their results when they return, and
    nothing is raised later."""
    draw = random.Random(0)

    def busy(x, y):
        end = time.perf_counter() + draw.uniform(0, 0.02)
        while time.perf_counter() < end:
            pass
        return x * np.float32(0.5)

    kernel = forge.KernelSpec(
        id="busy",
        entry_point="main",
        sources={"wgsl": "@compute @workgroup_size(1) fn main() {}"},
        reference=busy,
        buffers=(
            forge.BufferSpec(0, "f32", "read", name="x"),
            forge.BufferSpec(1, "f32", "read_write", name="y"),
        ),
        grid=lambda s, n: (1, 1, 1),
    )
    stopped = 0
    before = forge.set_reference_bound(0.005)
    try:
        for _ in range(120):
            x, y = np.arange(4, dtype=np.float32), np.zeros(4, np.float32)
            try:
                kernel.run_reference([x, y], 4)
            except forge.ReferenceFailed as exc:
                assert (
                    "(test_a_reference_bound_stops_only_the_call_it_watches.<locals>.busy) ran past"
                    in str(exc)
                )
                stopped += 1
                continue
            assert (y == x * 0.5).all()
        time.sleep(0.05)  # a raise left pending would land here, failing the test
    finally:
        forge.set_reference_bound(before)
    assert 0 < stopped < 120


def test_a_reference_bound_must_be_positive():
    with pytest.raises(InvalidArgument, match="positive seconds"):
        forge.set_reference_bound(0)


def test_two_different_kernels_with_one_id_are_refused_naming_it(tmp_path, capsys):
    """Both ran, and the table merged their verdicts into one row (a copy-pasted kernel
    whose id was not changed): one's mismatch hid the other's pass, or the reverse."""
    code, _, err = _check(
        tmp_path,
        """
        HALF = spec("scale", half)
        QUARTER = spec("scale", quarter)
        """,
        capsys,
    )
    assert code == 2
    assert "two different kernels have the id 'scale'" in err


def test_the_same_kernel_bound_twice_is_checked_once(tmp_path, capsys):
    code, out, err = _check(
        tmp_path,
        """
        HALF = spec("half", half)
        AGAIN = spec("half", half)
        """,
        capsys,
    )
    assert code == 0, err
    assert "all 1 evaluations passed" in out


@pytest.mark.parametrize("size", [0, "m=4,n=0,k=4"])
def test_tuning_at_a_size_without_elements_is_refused(size):
    """``check --size 0`` was refused; ``tune --size 0`` measured empty dispatches and
    ranked candidates by their noise (and --save could keep the 'winner')."""
    kernel = forge.get_kernel("gemm" if isinstance(size, str) else "mul")
    with forge.open_context("reference") as ctx:
        with pytest.raises(InvalidArgument, match="has no elements"):
            oracle.tune(ctx, kernel, size=size, samples=2, cache=False)


def test_a_kernel_file_and_one_importing_it_share_its_kernel_without_complaint(tmp_path, capsys):
    """One file imported twice (given, and imported by its sibling) makes two objects of
    one kernel whose function digests name two modules: the same kernel, checked once."""
    (tmp_path / "first.py").write_text(_HEADER + 'HALF = spec("half", half)\n')
    (tmp_path / "second.py").write_text("from first import HALF\n")
    files = [str(tmp_path / "first.py"), str(tmp_path / "second.py")]
    assert main(["check", *files, "--backend", "reference", "--samples", "0"]) == 0
    assert "all 1 evaluations passed" in capsys.readouterr().out


@pytest.mark.parametrize("flag", ["--results", "--junit", "--report", "--save-failures"])
@pytest.mark.parametrize("where", ["folder", "below a file"])
def test_an_output_path_that_cannot_be_written_is_refused_before_the_run(
    tmp_path, capsys, flag, where
):
    """A folder given for --results (or a path below a file) was found only when the run
    had ended: a traceback, and the verdicts, never printed, were lost."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    path = {
        "folder": tmp_path if flag != "--save-failures" else blocker,
        "below a file": blocker / "out",
    }[where]
    with pytest.raises(SystemExit) as exited:
        main(["check", "mul", "--backend", "reference", "--samples", "0", flag, str(path)])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {flag}: " in err and ("folder" in err or "file" in err), err


def test_a_kernel_too_large_for_host_memory_is_its_own_error_not_the_runs(tmp_path, capsys):
    """A test size needing more host memory than there is ended the whole check with
    exit 2 before any kernel was judged."""
    code, out, err = _check(
        tmp_path,
        """
        FIRST = spec("first", half)
        HUGE = spec("huge", half, sizes=(10**13,))
        LAST = spec("last", half)
        """,
        capsys,
    )
    assert code == 1, err
    assert "could not be prepared at size 10000000000000" in err and "host memory" in err
    rows = {line.split("│")[1].strip(): line for line in out.splitlines() if "│ reference" in line}
    assert " pass " in rows["first"] and " pass " in rows["last"] and "ERROR" in rows["huge"]


def test_a_kernels_own_empty_size_is_named_as_its_own_not_as_a_size_flag(tmp_path, capsys):
    path = tmp_path / "kernels.py"
    path.write_text(_HEADER + 'EMPTY = spec("empty", half, sizes=(0,))\n')
    assert main(["check", str(path), "--backend", "reference"]) == 2
    assert "kernel empty's size 0: a size must be at least 1" in capsys.readouterr().err


def test_ctrl_c_while_a_failure_is_saved_leaves_no_truncated_npz(tmp_path, capsys, monkeypatch):
    """np.savez wrote straight to the final name: Ctrl-C midway (or two runs saving one
    failure) left a .npz that np.load refuses."""
    import numpy as np

    path = tmp_path / "kernels.py"
    # On the reference backend the kernel is its reference: one that changes its input
    # fails there (the input was modified), so there is a failure to save.
    path.write_text(
        _HEADER
        + "def mutates(x, y):\n    x[:] = 7\n    return x * np.float32(0.5)\n"
        + 'MUTATES = spec("mutates", mutates)\n'
    )
    saved = tmp_path / "failures"

    def interrupted(file, **arrays):
        with open(file, "wb") if isinstance(file, str) else contextlib.nullcontext(file) as f:
            f.write(b"PK\x03\x04 half of a zip")
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez", interrupted)
    argv = ["check", str(path), "--backend", "reference", "--samples", "0"]
    assert main([*argv, "--save-failures", str(saved)]) == 130
    assert list(saved.iterdir()) == []
    monkeypatch.undo()
    assert main([*argv, "--save-failures", str(saved)]) == 1
    (npz,) = saved.iterdir()
    assert "input.x" in np.load(npz).files

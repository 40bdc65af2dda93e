"""The kforge command line."""

from __future__ import annotations

import json
import subprocess
import sys

from kforge import main


def test_list_backends_json_names_every_backend_with_availability(capsys):
    assert main(["list-backends", "--json"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert {"reference", "browser", "wgpu", "cuda"} <= set(rows)
    assert rows["reference"]["available"] is True
    assert all(row["reason"] for row in rows.values())


def test_list_backends_table_shows_reasons():
    out = subprocess.run(
        [sys.executable, "-m", "forge", "list-backends"], capture_output=True, text=True, check=True
    ).stdout
    for name in ("reference", "browser", "wgpu", "cuda"):
        assert name in out
    assert "numpy on the host" in out


def test_no_mesa_window_system_message_reaches_the_terminal():
    """Mesa prints "XDG_RUNTIME_DIR is invalid or not set" when a Vulkan instance is
    made without it (servers, containers, CI); the wgpu backend gives its process a
    private directory first."""
    import os

    env = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"}
    result = subprocess.run(
        [sys.executable, "-m", "kforge", "list-backends"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert "wgpu" in result.stdout
    assert "XDG_RUNTIME_DIR" not in result.stderr + result.stdout


def test_list_kernels_lists_builtin_kernels(capsys):
    assert main(["list-kernels", "--json"]) == 0
    rows = {row["id"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["raw_affine"]["targets"] == ["wgsl", "cuda"]
    assert len(rows["raw_affine"]["semantic_hash"]) == 64


def test_unknown_command_exits_with_usage_error():
    result = subprocess.run(
        [sys.executable, "-m", "forge", "bogus"], capture_output=True, text=True
    )
    assert result.returncode == 2 and "invalid choice" in result.stderr


def test_table_cells_are_text_not_markup(capsys):
    """An install hint such as pip install 'kernel-forge[cuda]' keeps its brackets
    (rich would read [cuda] as a style and drop it)."""
    from kforge._output import print_table

    print_table("reasons", ["reason"], [["pip install 'kernel-forge[cuda]'"]])
    assert "kernel-forge[cuda]" in capsys.readouterr().out


def test_names_stay_whole_however_long_the_other_cells(capsys):
    """Piped output is 160 columns wide; a long note must fold itself, not the kernel
    id and backend a user greps for (seen on the H200: 'layernorm_b' / 'f16')."""
    from kforge._output import print_table

    columns = ["kernel", "backend", "verdict", "sizes", "max ulp", "max abs err"]
    columns += ["elements", "median", "timing", "schedule", "note"]
    row = ["layernorm_bf16_with_a_long_name", "cuda-secondary", "pass", "67, 1, 130, 4096"]
    row += ["1.2e+03", "3.0e-05", "123456/123456", "1.23 ms", "gpu-timestamp"]
    row += ["wg=256,ipt=32,vec=4,grid=4224", "a long note " * 10]
    print_table("t", columns, [row], whole=2)
    lines = capsys.readouterr().out.splitlines()
    assert any("layernorm_bf16_with_a_long_name" in line for line in lines)
    assert any("cuda-secondary" in line for line in lines)
    assert all(len(line) <= 160 for line in lines)


_PRINTS_BESIDE_JSON = """
import os, sys
from kforge._output import json_stdout, print_json
with json_stdout(True):
    os.write(1, b"device printf: block 0 says hi\\n")  # as the CUDA driver writes it
    print("a reference's debug print")
    print_json({"passed": True})
print("after the command")
"""


def test_json_output_keeps_stdout_for_the_json_alone():
    """Under ``--json`` what a kernel run in this process prints (a device ``printf``,
    which the CUDA driver writes to descriptor 1) or a reference function prints goes
    to stderr: stdout parses as the JSON, and nothing printed is lost."""
    result = subprocess.run(
        [sys.executable, "-c", _PRINTS_BESIDE_JSON], capture_output=True, text=True, check=True
    )
    head, _, tail = result.stdout.partition("}\n")
    assert json.loads(head + "}") == {"passed": True} and tail == "after the command\n"
    assert "block 0 says hi" in result.stderr and "debug print" in result.stderr


_CHATTY_CHECK = """
import dataclasses, sys
import forge
import forge.registry as registry
import kforge

base = forge.get_kernel("raw_affine")


def chatty(*arrays):
    print("the reference says hi")
    return base.reference(*arrays)


registry._kernel_table()["chatty_affine"] = dataclasses.replace(
    base, id="chatty_affine", reference=chatty
)
argv = ["check", "chatty_affine", "--backend", "reference", "--json", "--no-isolate"]
sys.exit(kforge.main(argv + ["--samples", "0"]))
"""


def test_check_json_parses_though_the_kernels_reference_prints():
    """``kforge check --json`` of a kernel whose numpy reference prints (a debug print
    left in): the prints reach stderr, and stdout is the check's JSON, whole."""
    result = subprocess.run(
        [sys.executable, "-c", _CHATTY_CHECK], capture_output=True, text=True, check=True
    )
    data = json.loads(result.stdout)
    assert data["passed"] is True and data["format"].startswith("kforge-check/")
    assert "the reference says hi" in result.stderr

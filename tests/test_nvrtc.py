"""NVRTC compiles through ``backends.cuda.compile_cuda``: they need no GPU, so they run
in CI (the scripts install the ``cuda`` extra on Linux, so there a missing NVRTC fails
here; elsewhere, without the extra, the module is skipped with the install command).
Every test points the disk cache at its own directory."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import backends.cuda as cuda
import forge
from forge import CompileError, InvalidArgument, Schedule, UnsupportedFeature

if sys.platform != "linux" and importlib.util.find_spec("cuda") is None:
    pytest.skip(f"the CUDA extra is not installed: {cuda.INSTALL_COMMAND}", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[1]
AFFINE = forge.get_kernel("raw_affine").source("cuda", Schedule(64))
BROKEN = 'extern "C" __global__ void broken(float* y) { y[0] = no_such_name; }\n'


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("FORGE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "nvrtc"


def _delta(before: dict) -> dict:
    after = cuda.compile_stats.snapshot()
    return {k: after[k] - before[k] for k in after}


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_cubin_for_a_named_arch_is_an_elf_holding_the_entry_point(arch):
    image = cuda.compile_cuda(AFFINE, "raw_affine", arch=arch)
    assert image[:4] == b"\x7fELF", f"not an ELF image: {image[:16]!r}"
    assert b".text.raw_affine\0" in image


def test_cubins_for_different_archs_differ():
    assert cuda.compile_cuda(AFFINE, "raw_affine", "sm_80") != cuda.compile_cuda(
        AFFINE, "raw_affine", "sm_90"
    )


@pytest.mark.parametrize("arch", ["sm_80", "compute_90"])
def test_ptx_names_its_target_and_entry_and_ends_with_nul(arch):
    ptx = cuda.compile_cuda(AFFINE, "raw_affine", arch=arch, output="ptx")
    assert ptx.endswith(b"\0")
    text = ptx.rstrip(b"\0").decode()
    assert f".target sm_{arch.split('_')[1]}" in text
    assert ".entry raw_affine(" in text


def test_every_builtin_and_plugin_cuda_source_compiles_under_its_schedules():
    compiled = 0
    for kernel in forge.list_kernels():
        if "cuda" not in kernel.sources:
            continue
        for schedule in kernel.schedules:
            image = cuda.compile_cuda(kernel.source("cuda", schedule), kernel.entry_point)
            assert image[:4] == b"\x7fELF", f"{kernel.id} under {schedule}"
            compiled += 1
    assert compiled >= 2, "expected at least raw_affine's two schedules"


@pytest.mark.parametrize("kernel_id", ["raw_affine", "layernorm_bf16"])
def test_ptxas_report_gives_registers_and_spills_with_no_gpu(kernel_id):
    """A half kernel needs the backend's include options (cuda_bf16.h): the report comes
    through them, and only once the cubin was asked for (NVRTC 13.0)."""
    import re

    kernel = forge.get_kernel(kernel_id)
    schedule = Schedule((512, 1), items_per_invocation=16, vector_width=4)
    source = kernel.source("cuda", schedule if kernel_id != "raw_affine" else Schedule(64))
    report = cuda.ptxas_report(source, kernel.entry_point)
    registers = re.search(r"Used (\d+) registers", report)
    assert registers and 0 < int(registers[1]) <= 255, report
    assert re.search(r"\d+ bytes spill stores, \d+ bytes spill loads", report), report
    with pytest.raises(CompileError, match="no_such_name"):
        cuda.ptxas_report(BROKEN, "broken")
    with pytest.raises(InvalidArgument):
        cuda.ptxas_report("  ", "broken")


def test_a_report_the_compute_cache_kept_from_ptxas_is_made_in_a_child_without_it(
    monkeypatch,
):
    """A second run on the H100 (2026-12-06) got no report for 13 kernels: NVRTC took
    their cubins from ~/.nv/ComputeCache, so ptxas did not run. Such a log (faked here)
    sends the compile to a child process with CUDA_CACHE_DISABLE=1."""
    import re

    from backends.cuda import _nvrtc

    real = _nvrtc._run_nvrtc
    monkeypatch.setattr(_nvrtc, "_run_nvrtc", lambda *a: (*real(*a)[:2], "from the cache"))
    monkeypatch.delenv("CUDA_CACHE_DISABLE", raising=False)
    kernel = forge.get_kernel("raw_affine")
    report = cuda.ptxas_report(kernel.source("cuda", Schedule(64)), kernel.entry_point)
    assert re.search(r"Used (\d+) registers", report), report
    assert "from the cache" not in report


def test_a_broken_kernel_raises_compile_error_with_log_source_and_options():
    with pytest.raises(CompileError) as info:
        cuda.compile_cuda(BROKEN, "broken", arch="sm_90", options=("-lineinfo",))
    error = info.value
    assert "no_such_name" in error.log and "error" in error.log
    assert error.source == BROKEN
    assert error.target == "cuda"
    assert "--gpu-architecture=sm_90" in error.options and "-lineinfo" in error.options
    assert "no_such_name" in str(error), "the message should carry the first log error"


def test_a_bad_option_is_a_compile_error_naming_nvrtcs_complaint():
    with pytest.raises(CompileError) as info:
        cuda.compile_cuda(AFFINE, "raw_affine", options=("--no-such-option",))
    assert "--no-such-option" in info.value.options
    assert "NVRTC_ERROR" in str(info.value)


def test_cpp_and_template_entry_points_are_found_by_their_lowered_names():
    """Kernels as people write them are often not extern "C": NVRTC's name expressions
    find a C++ function, a namespaced one and a template instantiation."""
    from backends.cuda._nvrtc import compile_module

    source = (
        "__global__ void plain(float* y) { y[0] = 1.0f; }\n"
        "namespace ops { __global__ void scale(float* y, int n) { y[0] = n; } }\n"
        "template <int B> __global__ void block(float* y) { y[0] = B; }\n"
    )
    image, names = compile_module(source, ("plain", "ops::scale", "block<128>"), arch="sm_90")
    assert names["plain"].startswith("_Z") and "plain" in names["plain"]
    assert "scale" in names["ops::scale"] and "128" in names["block<128>"]
    assert all(name.encode() in image for name in names.values())


def test_constant_variables_are_found_by_their_lowered_names():
    """``__constant__`` and ``__device__`` variables a buffer is copied into are named
    to NVRTC as ``&name`` and come back keyed so, for ``cuModuleGetGlobal``."""
    from backends.cuda._nvrtc import compile_module

    source = (
        "__constant__ float c_Kernel[17];\n"
        "__device__ unsigned int counter;\n"
        "__global__ void rows(float* y) { y[0] = c_Kernel[3]; counter = 1; }\n"
    )
    image, names = compile_module(source, ("rows",), arch="sm_90", variables=("c_Kernel",))
    assert names["&c_Kernel"] == "c_Kernel" and b"c_Kernel" in image
    assert "&counter" not in names
    with pytest.raises(forge.InvalidArgument, match="identifiers"):
        compile_module(source, ("rows",), arch="sm_90", variables=("c_Kernel[0]",))


def test_an_entry_point_that_is_not_a_kernel_is_a_compile_error():
    source = "__device__ float helper(float x) { return x; }\n"
    with pytest.raises(CompileError, match="helper"):
        cuda.compile_cuda(source, "helper")


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"arch": "sm90"}, InvalidArgument),
        ({"arch": "compute_90", "output": "cubin"}, InvalidArgument),
        ({"arch": "sm_10"}, UnsupportedFeature),
        ({"output": "fatbin"}, InvalidArgument),
        ({"options": "-lineinfo"}, InvalidArgument),
    ],
)
def test_bad_arguments_are_refused_before_compiling(kwargs, error):
    before = cuda.compile_stats.snapshot()
    with pytest.raises(error):
        cuda.compile_cuda(AFFINE, "raw_affine", **kwargs)
    assert _delta(before)["compiles"] == 0


def test_empty_source_and_bad_entry_point_are_refused():
    with pytest.raises(InvalidArgument):
        cuda.compile_cuda("  ", "f")
    with pytest.raises(InvalidArgument):
        cuda.compile_cuda(AFFINE, "not an identifier")


def test_second_compile_is_a_disk_hit_with_identical_bytes(cache):
    before = cuda.compile_stats.snapshot()
    first = cuda.compile_cuda(AFFINE, "raw_affine", "sm_90")
    second = cuda.compile_cuda(AFFINE, "raw_affine", "sm_90")
    assert first == second
    assert _delta(before) == {"compiles": 1, "disk_hits": 1, "disk_writes": 1, "disk_errors": 0}


def test_the_cache_key_covers_source_arch_output_and_options():
    cuda.compile_cuda(AFFINE, "raw_affine", "sm_90")
    before = cuda.compile_stats.snapshot()
    cuda.compile_cuda(AFFINE, "raw_affine", "sm_80")
    cuda.compile_cuda(AFFINE, "raw_affine", "sm_90", output="ptx")
    cuda.compile_cuda(AFFINE, "raw_affine", "sm_90", options=("-lineinfo",))
    cuda.compile_cuda(AFFINE + "\n// changed\n", "raw_affine", "sm_90")
    assert _delta(before)["compiles"] == 4 and _delta(before)["disk_hits"] == 0


def test_entries_are_written_whole_and_a_corrupt_entry_is_a_miss(cache):
    image = cuda.compile_cuda(AFFINE, "raw_affine", "sm_90")
    files = sorted(cache.iterdir())
    assert len(files) == 1 and files[0].suffix == ".cubin", f"stray files: {files}"
    blob = files[0].read_bytes()
    files[0].write_bytes(blob[: len(blob) // 2])  # a torn write, as a crash would leave
    before = cuda.compile_stats.snapshot()
    again = cuda.compile_cuda(AFFINE, "raw_affine", "sm_90")
    assert again == image
    assert _delta(before) == {"compiles": 1, "disk_hits": 0, "disk_writes": 1, "disk_errors": 1}
    assert files[0].read_bytes() == blob, "the recompile should restore the entry"


def test_an_unwritable_cache_directory_still_compiles(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("FORGE_CACHE_DIR", str(blocker))
    before = cuda.compile_stats.snapshot()
    image = cuda.compile_cuda(AFFINE, "raw_affine", "sm_90")
    assert image[:4] == b"\x7fELF"
    assert _delta(before)["disk_errors"] >= 1 and _delta(before)["disk_writes"] == 0


_CHILD = """
import hashlib, json, sys
import backends.cuda as cuda
source = sys.stdin.read()
image = cuda.compile_cuda(source, "raw_affine", "sm_90")
print(json.dumps({"stats": cuda.compile_stats.snapshot(),
                  "sha": hashlib.sha256(image).hexdigest()}))
"""


def _child(cache_root: Path) -> dict:
    env = dict(os.environ, FORGE_CACHE_DIR=str(cache_root), PYTHONPATH=str(ROOT))
    result = subprocess.run(
        [sys.executable, "-c", _CHILD],
        input=AFFINE,
        env=env,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_a_new_process_finds_the_compile_on_disk(cache):
    first, second = _child(cache.parent), _child(cache.parent)
    assert first["stats"]["compiles"] == 1 and first["stats"]["disk_hits"] == 0
    assert second["stats"]["compiles"] == 0 and second["stats"]["disk_hits"] == 1, (
        f"the second process compiled again: {second['stats']}"
    )
    assert first["sha"] == second["sha"]
    assert (
        hashlib.sha256(cuda.compile_cuda(AFFINE, "raw_affine", "sm_90")).hexdigest() == first["sha"]
    )


def test_the_default_arch_is_the_backends_target_for_the_device_or_sm_90_without_one():
    """A cubin by default is built for what the CUDA backend builds for the device (or
    sm_90 with none): the architecture-specific target from sm_90 on, so kernels using
    wgmma compile; PTX by default targets the plain architecture."""
    from backends.cuda._nvrtc import target_for

    ok, _ = forge.available_backends()["cuda"]
    device = "sm_90"
    if ok:
        from backends.cuda._driver import device_info

        device = device_info(0).arch
    expected, _ = target_for(device)
    assert cuda.compile_cuda(AFFINE, "raw_affine") == cuda.compile_cuda(
        AFFINE, "raw_affine", arch=expected
    )
    if expected != device:  # the default is not the plain architecture's cubin
        assert cuda.compile_cuda(AFFINE, "raw_affine") != cuda.compile_cuda(
            AFFINE, "raw_affine", arch=device
        )
    assert cuda.compile_cuda(AFFINE, "raw_affine", output="ptx") == cuda.compile_cuda(
        AFFINE, "raw_affine", arch=device, output="ptx"
    )


def test_compile_cuda_is_exported_lazily_by_the_package():
    from backends.cuda import _nvrtc

    assert "compile_cuda" in cuda.__all__
    assert cuda.compile_cuda is _nvrtc.compile_cuda
    with pytest.raises(AttributeError):
        cuda.no_such_name  # noqa: B018

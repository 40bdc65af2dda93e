"""``python -m bench.probes``: the diagnostics stay runnable (a device session reruns them
in a minute) and their hand variants stay the kernels they say they are."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import forge
from bench import probes
from forge import Schedule, get_kernel
from oracle.pytest_plugin import require_available
from tests.test_cuda_fake_driver import fake_driver  # noqa: F401

ONE_PASS = Schedule((64, 1), items_per_invocation=2, vector_width=4)


def _probe(args: list[str]) -> None:
    """A probe's main without the warm-up by device time: these tests read what it prints,
    not speed (test_bench_sections checks the warm-up)."""
    probes.main([*args, "--warm-seconds", "0"])


def test_scalar_registers_leave_no_local_array_and_index_by_constants():
    text = get_kernel("softmax").source("wgsl", ONE_PASS)
    assert re.search(r"var fg_v_x: array<f32, 8>", text)
    scalar = probes.scalar_registers(text)
    assert not re.search(r"var fg_\w+: array<", scalar)
    assert "fg_v_x_7" in scalar and "fg_v_x[" not in scalar


def test_without_else_drops_the_looped_path_and_leaves_valid_wgsl(request):
    require_available(request.config, "wgpu")
    from backends.wgpu import validate_wgsl

    text = get_kernel("layernorm").source("wgsl", ONE_PASS)
    variants = probes._variants(text, 512, 512)
    longer = {
        "as emitted",
        "no barriers",
        "scalar registers",
        "vec known",
        "no column loads",
        "cols as override",
        "override, no grid",
    }
    assert probes._variants(text, 513, 512).keys() == longer
    assert "override fg_cols: u32;" in variants["cols as override"]
    assert variants["cols as override"].count("if (fg_cols ") == 2
    assert text.count("for (") == 3  # the grid-stride loop and the looped path's two levels
    looped, exact = variants["no looped path"], variants["exact fill only"]
    assert looped.count("for (") == exact.count("for (") == 1
    assert "// looped" not in looped and "// one pass: the row lives" in looped
    assert "// one pass: the row lives" not in exact and "exactly fills" in exact
    no_loops, no_grid = variants["no loops"], variants["override, no grid"]
    assert no_loops.count("for (") == 0 and no_grid.count("for (") == 2
    assert "let fg_blk: u32 = " in no_loops and "if (fg_blk < fg_blocks) {" in no_loops
    assert "fg_vec_ok: bool = true;" in variants["vec known"]
    # the whole-vector loads of the per-column buffers go (their lane-by-lane twins stay,
    # in branches that vec known leaves dead)
    assert re.search(r"vec4<f32> = (gamma|beta)\[", text)
    assert not re.search(r"vec4<f32> = (gamma|beta)\[", variants["no column loads"])
    others = (variants["vec known"], variants["no column loads"])
    for source in (looped, exact, no_loops, *others):  # naga takes them (CompileError otherwise)
        validate_wgsl(source, "layernorm_kernel")
    for source in (variants["cols as override"], no_grid):
        validate_wgsl(source, "layernorm_kernel", {"fg_cols": 512})
    assert probes.without_else(text, "no such marker") == text


def _same_or_a_rounding(line: str) -> bool:
    """A wgsl-rows variant's output is the emitted one's, or (with gamma, beta and w
    known to be ones, which a driver may fold into the arithmetic differently: NVIDIA's
    Vulkan on the H100, 2026-12-07, 8.6e-8 of the largest |y| for layernorm) a
    rounding from it."""
    if line.endswith("same output"):
        return True
    apart = re.search(r"differs, (\S+) of max", line)
    return "no column loads" in line and apart is not None and float(apart[1]) < 1e-6


def test_wgsl_rows_variants_run_and_the_scalar_one_computes_the_same(request, capsys):
    require_available(request.config, "wgpu")
    argv = ["wgsl-rows", "--rows", "3", "--cols", "512", "--schedule", str(ONE_PASS)]
    _probe([*argv, "--checks", "bounds"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("shader_checks='bounds'")
    variants = ("scalar registers", "no looped path", "exact fill only", "no loops")
    for variant in (
        *variants,
        "vec known",
        "no column loads",
        "cols as override",
        "override, no grid",
    ):
        found = [line for line in lines if variant in line]  # cols fill the registers
        assert len(found) == 4 and all(_same_or_a_rounding(line) for line in found), found
    # without its barriers a reduction reads partials not yet written
    assert any("no barriers" in line and "differs" in line for line in lines)
    # layernorm's moments level as the two levels it fuses: a rounding apart
    (two,) = [line for line in lines if "two levels" in line and "one-pass" not in line]
    assert two.startswith("layernorm") and float(re.search(r"differs, (\S+)", two)[1]) < 1e-5
    # and as two levels with the sum shifted (WGSL_ONE_PASS_MOMENTS off)
    (split,) = [line for line in lines if "one-pass two levels" in line]
    apart = re.search(r"differs, (\S+)", split)
    assert split.startswith("layernorm") and (apart is None or float(apart[1]) < 1e-5), split


def test_row_means_compare_the_schedules_bit_for_bit(request, capsys):
    require_available(request.config, "wgpu")
    _probe(["row-means", "--schedule", str(ONE_PASS), "--schedule", "wg=64,ipt=2,vec=4"])
    lines = capsys.readouterr().out.splitlines()
    # the same schedule twice: no row apart
    assert sum("rows apart from the first [] (most 0 ulp)" in line for line in lines) == 6


def test_wgsl_gemm_sweeps_the_unrolled_tiles_and_checks_each_output(request, capsys):
    """The sweep holds every unrolled tile the adapter admits; two of them run (the
    whole sweep compiled 87 s of unrolled modules on a CI-like machine, 2026-12-06)."""
    require_available(request.config, "wgpu")
    from bench.probes import wgsl_gemm_schedules

    with forge.open_context("wgpu") as ctx:
        sweep = wgsl_gemm_schedules(ctx.constraints)
    assert len(sweep) >= 8 and all(s.unroll for s in sweep)
    smallest = sorted(sweep, key=lambda s: s.tile[0] * s.tile[1])[:2]
    _probe(["wgsl-gemm", "--size", "128"] + [a for s in smallest for a in ("--schedule", str(s))])
    lines = capsys.readouterr().out.splitlines()
    errors = [float(line.rsplit("max rel err ", 1)[1]) for line in lines if "max rel err" in line]
    ran = lines[1 : lines.index("fastest last:")]
    assert [line.split()[0] for line in ran] == [str(s) for s in smallest]
    # every output (set to NaN before each schedule) is the product: NaN fails this too
    assert len(errors) == 4 and all(error < 1e-5 for error in errors)


def test_gemm_stores_times_both_mappings_and_both_compute_the_product(request, capsys):
    require_available(request.config, "wgpu")
    schedule = "wg=16x16,vec=4,tile=128x128x16,unroll=1"
    _probe(["gemm-stores", "--size", "128", "--schedule", schedule])
    lines = [line for line in capsys.readouterr().out.splitlines() if "max rel err" in line]
    variants = [line.split()[0] for line in lines if "unroll=1" in line]
    assert variants[:2] == ["emitted", "rows-across"]
    errors = [float(line.rsplit("max rel err ", 1)[1]) for line in lines]
    assert errors and all(error < 1e-5 for error in errors)  # NaN (c unwritten) fails too


def test_wgsl_checks_times_both_contexts_and_their_outputs_agree(request, capsys):
    require_available(request.config, "wgpu")
    _probe(
        ["wgsl-checks", "--size", "128", "--rows", "3", "--cols", "512"]
        + ["--schedule", "wg=64,ipt=4,vec=4", "--warm-seconds", "0"]
    )
    lines = capsys.readouterr().out.splitlines()
    gemm = [line for line in lines if "max rel err" in line]
    assert [line.split()[2] for line in gemm] == ["on", "bounds", "loops", "off"] * 3
    assert all(line.endswith("same output") for line in gemm)
    errors = [float(line.split("max rel err ")[1].split()[0]) for line in gemm]
    assert all(error < 1e-5 for error in errors)  # NaN (c unwritten) fails too
    rows = [line for line in lines if re.match(r"(y = 2x|rmsnorm|softmax|layernorm) ", line)]
    # 4 kernels, under every check, each check alone, and none
    modes = [re.search(r"checks (\w+)", line)[1] for line in rows]
    assert sorted(set(modes)) == ["bounds", "loops", "off", "on"]
    assert all(modes.count(mode) == 4 for mode in set(modes)), modes


def test_cuda_half_times_each_twin_within_a_rounding_of_a_half(request, capsys):
    require_available(request.config, "cuda")
    _probe(["cuda-half", "--rows", "3", "--cols", "4096", "--schedule", "wg=256,ipt=4,vec=4"])
    lines = [line for line in capsys.readouterr().out.splitlines() if "from as emitted" in line]
    twins = {"softmax": 3, "layernorm": 4, "rmsnorm": 4, "gelu": 5}  # as emitted, then twins
    names = ("softmax_bf16", "softmax_f16", "softmax", "layernorm_bf16", "rmsnorm_bf16")
    names += ("gelu_bf16", "gelu_f16", "gelu")
    want = [n for n in names for _ in range(twins[n.split("_")[0]])]
    assert [line.split()[0] for line in lines] == want
    apart, ulps = {}, {}
    for name, line in zip(want, lines):
        apart.setdefault(name, []).append(float(re.search(r"(\S+) of the largest", line)[1]))
        exact = re.search(r"(\S+) ulps from exact", line)
        assert (exact is not None) == name.startswith("gelu"), line  # gelu's measure only
        ulps.setdefault(name, []).append(float(exact[1]) if exact else None)
    for name, found in apart.items():
        assert found[0] == 0.0
        # each half twin within two roundings of its dtype; the f32 ones are timed only
        bound = {"bf16": 2**-7, "f16": 2**-10}.get(name.rsplit("_", 1)[-1])
        assert bound is None or max(found) <= bound, (name, found)
    # the emitted half gelu (1 + erf(u) as erfc(-u)) is within an ulp of exact GELU; the
    # sum with erff is not in bf16 (its cancellation), nor is the f32 gelu as emitted
    for name in ("gelu_bf16", "gelu_f16"):
        assert ulps[name][0] <= 1.0 and ulps[name][-1] == ulps[name][0], (name, ulps[name])
    assert ulps["gelu_bf16"][1] > 8 and ulps["gelu"][0] > 1e3, ulps


def test_wgsl_half_measures_gelu_as_emitted_and_its_twins_against_exact_gelu(request, capsys):
    require_available(request.config, "wgpu")
    _probe(["wgsl-half", "--rows", "3", "--cols", "4096", "--schedule", "wg=64,ipt=4,vec=4"])
    out = capsys.readouterr().out.splitlines()
    lines = [line for line in out if "from as emitted" in line]
    ulps: dict[str, list[float]] = {}
    for line in lines:
        found = float(re.search(r"(\S+) ulps from exact", line)[1])
        ulps.setdefault(line.split()[0], []).append(found)
    assert len(ulps["gelu"]) == 3
    # f32 gelu as emitted (the sum) loses the tail; the erfcc twin keeps it
    assert ulps["gelu"][0] > 1e3 and ulps["gelu"][2] < 100, ulps
    if "gelu_f16" in ulps:  # the adapter has shader-f16 (lavapipe has)
        assert ulps["gelu_f16"][0] <= 1.0 and ulps["gelu_f16"][2] == ulps["gelu_f16"][0]
    else:
        assert any(line.startswith("gelu_f16") and "refused" in line for line in out), out


def test_cuda_half_runs_end_to_end_on_the_simulated_driver(fake_driver, capsys):
    from tests.test_bench_sections import _simulate

    names = ("softmax_bf16", "softmax_f16", "softmax", "layernorm_bf16", "rmsnorm_bf16")
    _simulate(fake_driver, *names, "gelu_bf16", "gelu_f16", "gelu")
    _probe(["cuda-half", "--rows", "3", "--cols", "64", "--schedule", "wg=32,ipt=2,vec=1"])
    lines = [line for line in capsys.readouterr().out.splitlines() if "from as emitted" in line]
    assert len(lines) == 3 * 3 + 2 * 4 + 3 * 5
    assert all("0.0e+00 of the largest" in line for line in lines)


def _probe_process(args: list[str]) -> list[str]:
    """A probe run in a new process, as a user runs it, its printed lines."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.probes", *args, "--warm-seconds", "0"],
        cwd=Path(__file__).resolve().parents[1],
        env={**os.environ, "CUDA_CACHE_DISABLE": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.splitlines()


def test_cuda_resources_reports_registers_and_spills_of_each_variant_with_no_gpu():
    """In a new process with the CUDA compute cache off, as on the GPU machine it was
    measured to work (2026-12-05): NVRTC 13.0 there took cubins a test before had built
    from that cache, with no ptxas report. The probe turns the cache off itself before
    its first compile, and says why a row has no figures."""
    # one process, two given schedules: layernorm_bf16 compiles both, as emitted (its
    # row packed) and three variants each; layernorm (f32) has no half row to pack or
    # to hold in float, and refuses vec=8
    lines = _probe_process(
        [
            "cuda-resources",
            *("--kernel", "layernorm_bf16", "--kernel", "layernorm"),
            *("--schedule", "wg=512,ipt=16,vec=4", "--schedule", "wg=512,ipt=8,vec=8"),
        ]
    )
    found = [re.search(r"(\d+) registers, (\d+)/(\d+) spilled", line) for line in lines]
    rows = [line for line, match in zip(lines, found) if match]
    others = [line for line, match in zip(lines, found) if not match]  # shown on failure
    assert len(rows) == 2 * 4 + 1, others
    assert sum("refused: vec=8" in line for line in lines) == 1
    assert all(0 < int(m[1]) <= 255 for m in found if m)
    variants = ("as emitted", "unpacked", "f32 registers", "packed, 2 blocks")
    assert all(variant in row for variant, row in zip(variants * 2, rows[:8])), rows
    # the two blocks asked for cap the registers at 65536 / (2 x 512)
    assert int(found[lines.index(rows[7])][1]) <= 64, rows[7]
    assert rows[-1].startswith("layernorm ") and "as emitted" in rows[-1]

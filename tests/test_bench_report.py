"""The benchmark suite's own arithmetic and bookkeeping (bench/): ratios and goals,
byte and flop counts, the tables, target selection, the schedules it tries and the
output checks that keep a fast wrong kernel from counting. Nothing here times
anything; the measurements themselves run on the GPU machine (``python -m bench``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import forge
from bench._cli import select
from bench._report import (
    GIB,
    Goal,
    Row,
    bandwidth_gbps,
    format_value,
    gemm_flops,
    guarded,
    markdown_section,
    markdown_table,
    memory_bound_bytes,
    ratio,
    roofline_work,
    rows_bytes,
    summary,
    text_table,
    tflops,
    to_json,
)
from bench._wgpu import wgpu_buffer_bytes
from bench._workload import (
    best,
    check_map_output,
    check_rows_output,
    gemm_error,
    host_array,
    map_schedules,
    max_relative_error,
    rows_schedules,
)
from forge import Schedule, ir


# -- goals and ratios --------------------------------------------------------------------
def test_ratio_is_ours_over_baseline_and_none_without_both():
    assert ratio(3940.0, 4271.0) == pytest.approx(0.9225, abs=1e-4)
    assert ratio(None, 4271.0) is None
    assert ratio(1.0, None) is None
    assert ratio(1.0, 0.0) is None


@pytest.mark.parametrize(
    "goal, value, met",
    [
        (Goal(">=", 0.92), 0.92, True),
        (Goal(">=", 0.92), 0.919, False),
        (Goal("<=", 1.2), 1.2, True),
        (Goal("<=", 1.2), 1.21, False),
        (Goal("==", 0, on="ours"), 0, True),
        (Goal("==", 0, on="ours"), 1, False),
        (Goal(">=", 0.8), None, None),
        (Goal(">=", 0.8), float("nan"), None),
    ],
)
def test_a_goal_judges_its_value(goal, value, met):
    assert goal.met(value) is met


def test_a_goal_refuses_unknown_comparisons():
    with pytest.raises(ValueError):
        Goal(">", 1.0)
    with pytest.raises(ValueError):
        Goal(">=", 1.0, on="baseline")


def test_a_row_judges_the_ratio_or_ours_as_its_goal_says():
    p1 = Row("P1", "affine", "copy", 4000.0, 3800.0, "GB/s", Goal(">=", 0.92))
    assert p1.ratio == pytest.approx(0.95) and p1.met is True and p1.verdict == "yes"
    p5 = Row("P5", "graph", "raw", 0.5, 1.04, "us", Goal("<=", 1.0, on="ours"))
    assert p5.met is False and p5.verdict == "NO", "the goal is on ours, not on the ratio"
    info = Row("P3", "torch", "copy", 4000.0, 2600.0, "GB/s")
    assert info.met is None and info.verdict == "-"
    broken = Row("P4", "gemm", "torch", None, 30.0, "TFLOP/s", Goal(">=", 0.7), error="no torch")
    assert broken.met is None and broken.verdict == "error"


def test_guarded_turns_an_exception_into_a_row_that_says_why():
    def fails():
        raise forge.GpuUnavailable("no device here")

    (row,) = guarded("P1", "affine on CUDA", fails)
    assert row.verdict == "error" and row.error == "GpuUnavailable: no device here"
    assert row.target == "P1" and row.what == "affine on CUDA"
    single = Row("P2", "x")
    assert guarded("P2", "x", lambda: single) == [single]
    assert guarded("P2", "x", lambda: [single, single]) == [single, single]


# -- counts ------------------------------------------------------------------------------
def test_bandwidth_and_flop_rates():
    assert bandwidth_gbps(2 * GIB, 0.5) == pytest.approx(4.294967296)
    assert tflops(gemm_flops(4096, 4096, 4096), 1.0) == pytest.approx(0.137438953472)
    with pytest.raises(ValueError):
        bandwidth_gbps(1, 0.0)


def test_memory_bound_bytes_count_each_buffer_once_and_inout_twice():
    n = 1 << 20
    assert memory_bound_bytes(forge.get_kernel("affine"), n) == 8 * n  # x read, y written
    assert memory_bound_bytes(forge.get_kernel("add"), n) == 12 * n  # x, y read, z written
    assert memory_bound_bytes(forge.get_kernel("axpy"), n) == 12 * n  # y read and written
    size = 64
    assert memory_bound_bytes(forge.get_kernel("gemm"), size) == 4 * size * size * 4


def test_p3_counts_one_read_and_one_write_per_element():
    assert rows_bytes(4096, 32768) == GIB
    assert gemm_flops(2, 3, 4) == 48.0


# -- output ------------------------------------------------------------------------------
def test_values_are_formatted_to_three_significant_digits():
    assert format_value(4271.3, "GB/s") == "4271 GB/s"
    assert format_value(5.254, "us") == "5.25 us"
    assert format_value(0.861, "us") == "0.861 us"
    assert format_value(0, "compiles") == "0 compiles"
    assert format_value(None, "GB/s") == ""


def _rows():
    return [
        Row(
            "P1",
            "affine",
            "copy",
            4000.0,
            3800.0,
            "GB/s",
            Goal(">=", 0.92),
            notes="best of 22 | grid " + "x" * 200,
        ),
        Row("P5", "graph", "raw", 0.8, 1.04, "us", Goal("<=", 1.0, on="ours")),
        Row("P3", "torch", "copy", 4000.0, 2600.0, "GB/s"),
        Row("P4", "gemm", error="GpuUnavailable: none"),
    ]


def test_the_text_table_aligns_columns_and_cuts_long_notes():
    lines = text_table(_rows(), notes_width=40).splitlines()
    assert len(lines) == 2 + 4
    assert lines[0].split()[:3] == ["target", "what", "baseline"]
    starts = {line.index("GB/s") for line in lines[2:] if "GB/s" in line}
    assert len(starts) == 1, "the baseline figure column starts at the same place"
    assert lines[2].endswith("...") and len(lines[2].split("  ")[-1].strip()) <= 40


def test_the_markdown_table_escapes_pipes_and_keeps_notes_whole():
    table = markdown_table(_rows())
    lines = table.splitlines()
    assert len(lines) == 2 + 4
    assert "best of 22 \\| grid" in lines[2] and "x" * 200 in lines[2]
    assert all(line.count(" | ") == 8 for line in lines[2:] if "\\|" not in line)


def test_the_summary_counts_each_verdict():
    assert summary(_rows()) == "1 goals met, 1 missed, 0 not judged, 1 errors, of 4 rows"


def test_the_json_keeps_every_figure_and_the_verdicts():
    data = json.loads(to_json({"date": "today"}, _rows()))
    assert data["format"] == "kforge-bench/1" and data["meta"] == {"date": "today"}
    first = data["rows"][0]
    assert first["ratio"] == pytest.approx(0.95) and first["met"] is True
    assert first["goal"] == {"op": ">=", "bound": 0.92, "on": "ratio"}
    assert data["rows"][3]["verdict"] == "error"


def test_a_benchmarks_section_holds_the_run_facts_table_and_raw_json():
    meta = {
        "date": "2026-12-01 10:00 UTC",
        "cuda_device": {"name": "NVIDIA H200"},
        "versions": {"numpy": "2.5"},
        "seconds": 200.0,
    }
    text = markdown_section(meta, _rows())
    assert text.startswith("## 2026-12-01 10:00 UTC: NVIDIA H200")
    assert "numpy 2.5" in text and markdown_table(_rows()) in text
    raw = text.split("```json\n", 1)[1].split("\n```", 1)[0]
    assert json.loads(raw)["meta"]["date"] == meta["date"]


# -- selection and sizes -----------------------------------------------------------------
def test_only_selects_targets_in_run_order_in_any_case():
    assert select("p3, P1") == ["P1", "P3"]
    assert select(None) == [
        "P1",
        "P2",
        "P3",
        "P4",
        "P5",
        "P6",
        "P7",
        "P8",
        "P9",
        "P10",
        "P11",
        "P12",
        "P13",
        "P14",
        "B1",
    ]
    assert select("b1") == ["B1"]
    assert select("p10") == ["P10"]
    # P11's halves run alone when named, in P11's place
    assert select("p12,P11-wgpu,p1") == ["P1", "P11-WGPU", "P12"]
    assert select("P11-WGPU,P11-CUDA") == ["P11-CUDA", "P11-WGPU"]
    with pytest.raises(ValueError, match="P15"):
        select("P1,P15")


def test_p2_size_fits_one_binding_and_two_buffers_in_one_slab():
    mib = 1 << 20
    assert wgpu_buffer_bytes(GIB, 2**31 - 1, 2**40) == GIB
    assert wgpu_buffer_bytes(GIB, 128 * mib, 2**31 - 1) == 128 * mib
    assert wgpu_buffer_bytes(GIB, 2**32 - 1, GIB) == (GIB - mib) // 2 // (64 << 10) * (64 << 10)
    assert wgpu_buffer_bytes(GIB, (512 * mib) + 5, 2**40) == 512 * mib


# -- schedules and checks ----------------------------------------------------------------
def test_map_schedules_add_grid_stride_variants_sized_to_the_device():
    affine = forge.get_kernel("affine")
    assert map_schedules(affine, None) == list(affine.schedules)
    tried = map_schedules(affine, 132)
    assert tried[: len(affine.schedules)] == list(affine.schedules)
    grids = {s.max_workgroups for s in tried if s.workgroup_size[0] == 256 and s.max_workgroups}
    assert {132 * 8, 132 * 16, 132 * 32} <= grids
    assert all(s.vector_width == 4 for s in tried[len(affine.schedules) :])
    assert len(tried) == len(set(tried))


def test_rows_schedules_on_cuda_hold_a_whole_row_in_registers():
    softmax = forge.get_kernel("softmax")
    tried = rows_schedules(softmax, 32768, cuda=True)
    assert Schedule((1024, 1), items_per_invocation=8, vector_width=4) in tried
    assert any(
        s.invocations * s.items_per_invocation * s.vector_width == 32768 and s.invocations == 256
        for s in tried
    )
    assert rows_schedules(softmax, 32768, cuda=False) == list(softmax.schedules)


def test_best_picks_the_highest_figure_and_says_when_none_ran():
    tried = [
        {"schedule": "a", "figure": 1.0},
        {"schedule": "b", "error": "refused"},
        {"schedule": "c", "figure": 3.0},
    ]
    assert best(tried)["schedule"] == "c"
    with pytest.raises(LookupError, match="refused"):
        best([{"schedule": "b", "error": "refused"}])


def test_host_arrays_are_deterministic_float32_in_range():
    a = host_array(3 << 20, seed=4, low=-4.0, high=4.0)
    assert a.dtype == np.float32 and a.size == 3 << 20
    assert -4.0 <= a.min() and a.max() < 4.0
    np.testing.assert_array_equal(a, host_array(3 << 20, seed=4, low=-4.0, high=4.0))


def test_max_relative_error_is_scaled_by_the_largest_expected_value():
    assert max_relative_error(np.array([1.0, 2.0]), np.array([1.0, 2.0])) == 0.0
    assert max_relative_error(np.array([1.0, 2.5]), np.array([1.0, 2.0])) == 0.25
    assert np.isnan(max_relative_error(np.array([np.nan]), np.array([1.0])))


def test_the_map_check_accepts_the_right_output_and_refuses_a_wrong_one():
    affine = forge.get_kernel("affine")
    x = host_array(10000, seed=1)
    right = (np.float32(2.0) * x + np.float32(0.5)).astype(np.float32)
    assert check_map_output(affine, {"x": x}, right, dict(affine.defaults)) < 1e-6
    wrong = right.copy()
    wrong[997 * 3] += 1.0
    with pytest.raises(AssertionError, match="wrong thing"):
        check_map_output(affine, {"x": x}, wrong, dict(affine.defaults))
    with pytest.raises(AssertionError):
        check_map_output(affine, {"x": x}, np.full_like(right, np.nan), dict(affine.defaults))


def test_the_rows_check_compares_the_first_rows_with_the_reference():
    rows, cols = 6, 256
    shaped = lambda r: ir.with_shape(forge.get_kernel("softmax"), rows=r)  # noqa: E731
    x = host_array(rows * cols, seed=2, low=-4.0, high=4.0)
    m = x.reshape(rows, cols).astype(np.float64)
    e = np.exp(m - m.max(axis=1, keepdims=True))
    right = (e / e.sum(axis=1, keepdims=True)).astype(np.float32).ravel()
    assert check_rows_output(shaped, {"x": x}, right, rows, cols, {}) < 1e-5
    with pytest.raises(AssertionError):
        check_rows_output(shaped, {"x": x}, right[::-1].copy(), rows, cols, {})


def test_the_gemm_error_separates_float32_from_tf32():
    size = 256
    a, b = host_array(size * size, seed=3), host_array(size * size, seed=4)
    exact = (a.reshape(size, size).astype(np.float64) @ b.reshape(size, size)).astype(np.float32)
    assert gemm_error(a, b, exact.ravel(), size) < 1e-6
    rounded = lambda v: (v.view(np.uint32) + 0x1000 & 0xFFFFE000).view(np.float32)  # noqa: E731
    tf32 = rounded(a).reshape(size, size).astype(np.float64) @ rounded(b).reshape(size, size)
    assert gemm_error(a, b, tf32.astype(np.float32).ravel(), size) > 1e-5


def test_a_row_says_what_it_timed_for_the_roofline_of_kforge_report():
    work = roofline_work(forge.get_kernel("gemm"), 64, "cuda", 2e-3)
    assert work == {
        "kernel": "gemm",
        "backend": "cuda",
        "size": "64",
        "median_ns": 2e6,
        "bytes_moved": 4 * (3 * 64 * 64 + 64 * 64),
        "flops": 2 * 64**3,
    }

"""Row reductions: a ``row_max`` level followed by ``row_sum(exp(x - row_max(x)))`` is
reduced online in one level (one sweep, one exp per element on the one-pass path), and
a ``row_sum(x)`` level followed by ``row_sum((x - m)^2)`` (layernorm's mean and
variance) is one moments level (one sweep, one reduction across the row); a CUDA level
costs one ``__syncthreads``, and the results keep the reference's meaning: on the
device at sizes below, at and past what the registers hold
(tests/test_emit_bounds.py), for look-alikes that must not be fused, for masked rows
(-inf entries) where the backend computes with IEEE infinities, and for rows whose mean
is far larger than their spread."""

from __future__ import annotations

import re

import numpy as np
import pytest

import forge
import oracle
from forge import BindingUsage, Schedule, ir
from forge.emit._rows import _levels, _Moments, _Online
from tests.test_emit_bounds import ctx  # noqa: F401 - the fixture: a wgpu, then a CUDA context

x = ir.input("x")
# exp(2x - max) is not exp(a - max(a)): its sum cannot be rescaled from x's maximum
NOT_ONLINE = ir.kernel(
    "exp_twice",
    ir.rows(y=ir.exp(x * 2.0 - ir.row_max(x)) / ir.row_sum(ir.exp(x * 2.0 - ir.row_max(x)))),
    domain={"x": (-3.0, 3.0)},
    tolerance={"f32": {"rtol": 2e-5, "atol": 1e-6}},
    nonfinite_inputs=False,
)


@pytest.mark.parametrize(
    "kernel_id, shapes",
    [
        ("softmax", ["online"]),
        ("log_softmax", ["online"]),
        ("rmsnorm", ["plain"]),
        ("layernorm", ["moments"]),
        ("row_max", ["plain"]),
    ],
)
def test_max_then_sum_of_exp_is_one_online_level(kernel_id, shapes):
    levels = _levels(forge.get_kernel(kernel_id).body.pattern)
    kinds = {_Online: "online", _Moments: "moments"}
    assert [kinds.get(type(level[0]), "plain") for level in levels] == shapes


def test_a_sum_of_a_different_exp_stays_two_levels():
    assert [len(level) for level in _levels(NOT_ONLINE.body.pattern)] == [1, 1]
    assert not any(
        isinstance(item, _Online) for level in _levels(NOT_ONLINE.body.pattern) for item in level
    )


_cols = ir.dim("cols", "f32")
_mean = ir.row_sum(x) / _cols
# squared deviations from a centre other than the mean (the moments level corrects for
# it), and the row's sum beside them
OFF_CENTRE = ir.kernel(
    "off_centre",
    ir.rows(
        total=ir.row_sum(x),
        spread=ir.row_sum((x - (_mean + 0.5)) * (x - (_mean + 0.5))),
    ),
    domain={"x": (-3.0, 3.0)},
    tolerance={"f32": {"rtol": 1e-4, "atol": 1e-4}},
    nonfinite_inputs=False,
)


@pytest.mark.parametrize(
    "kernel, levels",
    [
        (OFF_CENTRE, ["moments"]),
        # two different factors: no square
        (ir.kernel("cross", ir.rows(y=ir.row_sum((x - _mean) * (x + _mean)) + x)), [1, 1]),
        # deviations of another value than the one summed
        (ir.kernel("other", ir.rows(y=ir.row_sum((x * 2 - _mean) * (x * 2 - _mean)) + x)), [1, 1]),
        # a centre that varies along the row
        (ir.kernel("along", ir.rows(y=ir.row_sum((x - _mean * x) * (x - _mean * x)) + x)), [1, 1]),
    ],
    ids=["off-centre", "cross", "other", "along"],
)
def test_only_a_sum_and_the_squares_of_its_deviations_are_one_moments_level(kernel, levels):
    found = _levels(kernel.body.pattern)
    if levels == ["moments"]:
        assert len(found) == 1 and isinstance(found[0][0], _Moments)
    else:
        assert [len(level) for level in found] == levels
        assert not any(isinstance(item, _Moments) for level in found for item in level)


def test_layernorm_reads_its_row_once_and_reduces_it_once():
    """Mean and variance come from one sweep of the registers and one reduction across
    the row (one barrier per path on CUDA, one shared-memory tree on WGSL, where two
    reductions took two); a row longer than the registers is read twice (statistics,
    then outputs), not three times."""
    kernel = forge.get_kernel("layernorm")
    wide = Schedule((256, 1), items_per_invocation=2, vector_width=4)
    cuda = kernel.source("cuda", wide)
    assert cuda.count("__syncthreads();") == 3  # the row exactly in registers, shorter, longer
    exact, short, looped = (
        cuda[cuda.index(a) : cuda.index(b)] if b else cuda[cuda.index(a) :]
        for a, b in (
            ("no bounds checks", "the row lives in registers"),
            ("the row lives in registers", "looped"),
            ("looped", None),
        )
    )
    row_read = "reinterpret_cast<const float4*>(&x["
    assert (exact.count(row_read), short.count(row_read), looped.count(row_read)) == (1, 1, 2)
    wgsl = kernel.source("wgsl", wide)
    # one tree of log2(256) levels, with a barrier before it and after reading it
    assert wgsl.count("workgroupBarrier();") == 3 * (8 + 2)


@pytest.mark.parametrize(
    "kernel_id, columns", [("layernorm", ["gamma", "beta"]), ("rmsnorm", ["w"]), ("gemv", ["x"])]
)
def test_per_column_values_move_as_vectors_on_cuda(kernel_id, columns):
    """A per-column buffer is read a chunk at a time like the row (one float4 where
    there were four scalar loads of every fourth float), when it is aligned as well."""
    kernel = forge.get_kernel(kernel_id)
    source = kernel.source("cuda", Schedule((64, 2), items_per_invocation=2, vector_width=4))
    (check,) = [line for line in source.splitlines() if "fg_vec_ok" in line and "15ull" in line]
    for name in columns:
        assert f"(unsigned long long){name}" in check
        assert f"*reinterpret_cast<const float4*>(&{name}[" in source
        # the arithmetic reads the chunk's registers, not memory
        assert not re.search(rf"const float fg_t\d+ = .*[ (]{name}\[", source)


@pytest.mark.parametrize(
    "kernel_id, matrix, columns",
    [
        ("layernorm", ["x", "y"], ["gamma", "beta"]),
        ("rmsnorm", ["x", "y"], ["w"]),
        ("gemv", ["a"], ["x"]),
    ],
)
def test_rows_move_as_vectors_on_wgsl(kernel_id, matrix, columns):
    """WGSL declares the row's matrix and per-column buffers as arrays of vec4 and moves
    a chunk as one vec4 where rows start on a vector (``cols % 4 == 0``); otherwise each
    lane is a component of its vector, so no scalar ``array<f32>`` read is left."""
    kernel = forge.get_kernel(kernel_id)
    source = kernel.source("wgsl", Schedule((64, 2), items_per_invocation=2, vector_width=4))
    assert "let fg_vec_ok: bool = fg_p.cols % 4u == 0u;" in source
    for name in matrix + columns:
        assert re.search(rf"var<storage, read(_write)?> {name}: array<vec4<f32>>;", source), name
    for name in columns:
        assert re.search(rf"let fg_q: vec4<f32> = {name}\[\(fg_c\d+\) / 4u\];", source)
        assert f"fg_w_{name}" in source
        # the arithmetic reads the chunk's registers, not memory
        assert not re.search(rf"let fg_t\d+: f32 = .*[ (]{name}\[", source)
    assert re.search(
        r"\[\(fg_base \+ fg_c\d+ \+ 3u\) / 4u\]\[\(fg_base \+ fg_c\d+ \+ 3u\) % 4u\]", source
    )


def _adversarial_rows(cols: int) -> dict[str, np.ndarray]:
    """Rows whose mean is far larger than their spread (where a float32 sum's error
    exceeds the spread), one whose first value is an outlier, constant rows, and a mix
    of ordinary rows, with per-column weights."""
    rng = np.random.default_rng(cols)
    groups = [
        1000.0 + rng.standard_normal((4, cols)),
        1e4 + rng.standard_normal((3, cols)),
        -2000.0 + 0.05 * rng.standard_normal((3, cols)),
        100.0 + 0.01 * rng.standard_normal((3, cols)),
        500.0 + rng.standard_normal((2, cols)),
        np.full((2, cols), 3.25),
        rng.uniform(-1e3, 1e3, (3, cols)),
    ]
    groups[4][:, 0] = 1e6
    rows = np.concatenate(groups).astype(np.float32)
    return {
        "x": rows.ravel(),
        "gamma": rng.uniform(-8.0, 8.0, cols).astype(np.float32),
        "beta": rng.uniform(-8.0, 8.0, cols).astype(np.float32),
    }


# under the register capacity, at it, past it (looped); 1001 and 4099 divide unevenly
_ADVERSARIAL = [
    (Schedule((64, 2), items_per_invocation=2, vector_width=4), (100, 512, 1001)),
    (Schedule((32, 4), items_per_invocation=1), (2, 3, 32, 100)),
    (Schedule((256, 1), items_per_invocation=4, vector_width=4), (4096, 4099)),
]


@pytest.fixture(params=["moments", "two levels"])
def wgsl_one_pass(request, monkeypatch):
    """How WGSL's one-pass rows reduce layernorm's moments pair: as one level of moments
    partials (the emission), or as two levels, the shifted sum and then the squares about
    the mean (``_rows.WGSL_ONE_PASS_MOMENTS`` off, timed against it by ``bench.probes
    wgsl-rows``), emitted afresh and forgotten after."""
    from forge.emit import _emit, _rows

    if request.param == "two levels":
        monkeypatch.setattr(_rows, "WGSL_ONE_PASS_MOMENTS", False)
        _emit.cache_clear()
    yield request.param
    _emit.cache_clear()


@pytest.mark.parametrize("schedule, sizes", _ADVERSARIAL, ids=[str(s) for s, _ in _ADVERSARIAL])
def test_layernorm_holds_on_rows_with_a_large_mean_and_a_small_spread(
    ctx, schedule, sizes, wgsl_one_pass
):
    """A float32 sum of such a row is off by more than the row's spread, which the
    outputs magnify by 1 / spread: the shifted sums give the reference's mean to the
    bit, as moments partials and as two levels (an unshifted float32 sum, the first
    two-level emission, failed most of these)."""
    kernel = forge.get_kernel("layernorm")
    if wgsl_one_pass == "two levels":
        if ctx.backend_name == "cuda":
            pytest.skip("two levels on the one-pass path are WGSL's only (CUDA merges moments)")
        # the exact and the shorter one-pass paths; the looped one keeps the moments
        assert kernel.source("wgsl", schedule).count("shifted, then") == 2
    for cols in sizes:
        data = _adversarial_rows(cols)
        rows = data["x"].size // cols
        ev = oracle.evaluate(ctx, ir.with_shape(kernel, rows=rows), schedule, cols, inputs=data)
        if not ev.passed and ctx.backend_name == "wgpu" and ctx.adapter.vendor_id == 0x10DE:
            # Known and open (H200, Vulkan, 2026-12-01): under the two schedules with
            # several rows per workgroup, NVIDIA's driver leaves the mean of such rows
            # one float32 ulp from the reference's (errors up to 0.5 relative, on rows
            # whose condition is |mean| / spread = 40000); lavapipe, SwiftShader and
            # CUDA on the same GPU give it to the bit. Said so, not passed.
            pytest.xfail(f"NVIDIA Vulkan, {schedule}, {cols} columns: {ev.report()[:300]}")
        assert ev.passed, ev.report()


@pytest.mark.parametrize("schedule", [s for s, _ in _ADVERSARIAL], ids=str)
def test_squared_deviations_from_any_centre_and_the_sum_match_the_reference(ctx, schedule):
    for cols in (1, 5, 300, 1030):
        ev = oracle.evaluate(ctx, ir.with_shape(OFF_CENTRE, rows=7), schedule, cols, samples=0)
        assert ev.passed, ev.report()


@pytest.mark.parametrize("kernel_id", ["softmax", "log_softmax", "rmsnorm", "layernorm", "gemv"])
def test_a_cuda_reduction_level_costs_one_barrier_per_path(kernel_id):
    kernel = forge.get_kernel(kernel_id)
    wide = Schedule((256, 1), items_per_invocation=2, vector_width=4)
    source = kernel.source("cuda", wide)
    paths = 3  # the row exactly in registers, shorter, longer (looped)
    assert source.count("__syncthreads();") == paths * len(_levels(kernel.body.pattern))
    narrow = Schedule((32, 8), items_per_invocation=2)  # a row is one warp: shuffles only
    assert "__syncthreads" not in kernel.source("cuda", narrow)


def test_the_one_pass_softmax_divides_once_per_invocation_not_per_element():
    source = forge.get_kernel("softmax").source("cuda", Schedule((256, 1), vector_width=4))
    exact = source[source.index("no bounds checks") : source.index("the row lives in registers")]
    # exp(m - M) / S once, then a multiply per element (other divisions are integer)
    assert len(re.findall(r" / fg_\w+\)", exact)) == 1
    assert exact.count("expf(") == 4 + 3  # one per lane of the chunk; three per invocation


def _run(ctx, kernel, schedule, data: np.ndarray) -> np.ndarray:
    rows, cols = data.shape
    k = ir.with_shape(kernel, rows=rows)
    x_view = ctx.allocate_and_write(data.ravel(), 0)
    y_view = ctx.allocate_transient(data.nbytes, 1, usage=BindingUsage.STORAGE_READ_WRITE)
    uniform = ctx.allocate_and_write(k.pack_uniform(cols), 2, usage=BindingUsage.UNIFORM)
    ctx.run_kernel(k, schedule, [x_view, y_view, uniform], cols)
    return ctx.read_buffer_f32(y_view).reshape(rows, cols)


def _want(kernel, data: np.ndarray) -> np.ndarray:
    rows, cols = data.shape
    k = ir.with_shape(kernel, rows=rows)
    arrays = [data.ravel().copy(), np.zeros(data.size, np.float32), k.pack_uniform(cols)[0]]
    k.run_reference(arrays)
    return arrays[1].reshape(rows, cols)


# one pass with the row exactly in registers, shorter, and the looped path
SCHEDULES = [
    Schedule((64, 2), items_per_invocation=2, vector_width=4),
    Schedule((32, 4), items_per_invocation=1),
]


@pytest.mark.parametrize("cols", [512, 300])
@pytest.mark.parametrize("schedule", SCHEDULES, ids=str)
def test_an_exp_that_is_not_online_keeps_its_meaning(ctx, schedule, cols):
    data = np.random.default_rng(3).uniform(-3, 3, (5, cols)).astype(np.float32)
    np.testing.assert_allclose(
        _run(ctx, NOT_ONLINE, schedule, data), _want(NOT_ONLINE, data), rtol=1e-4, atol=1e-6
    )


@pytest.mark.parametrize("kernel_id", ["softmax", "log_softmax"])
@pytest.mark.parametrize("cols", [512, 300])
@pytest.mark.parametrize("schedule", SCHEDULES, ids=str)
def test_masked_rows_match_the_reference(ctx, kernel_id, schedule, cols):
    """-inf entries (a mask), a fully masked row, a row whose first half (whole
    invocations' worth) is masked, and huge negative values, as the reference computes
    them (a fully masked row is NaN there: -inf - -inf)."""
    if ctx.constraints.nonfinite_indeterminate:
        pytest.skip(
            f"{ctx.backend_name} may assume no infinities (WGSL 15.7.2), so masked "
            "rows have no defined result there"
        )
    data = np.random.default_rng(5).uniform(-3, 3, (5, cols)).astype(np.float32)
    data[0, ::3] = -np.inf
    data[1, :] = -np.inf
    data[2, : cols // 2] = -np.inf
    data[3, :] = -1e30
    kernel = forge.get_kernel(kernel_id)
    np.testing.assert_allclose(
        _run(ctx, kernel, schedule, data), _want(kernel, data), rtol=1e-5, atol=1e-6, equal_nan=True
    )


def _nvrtc_version() -> str:
    from cuda.bindings import nvrtc

    return ".".join(map(str, nvrtc.nvrtcVersion()[1:]))


_BIG_ROWS = [
    (k, s)
    for k in ("softmax", "log_softmax", "rmsnorm", "layernorm", "row_sum", "row_max")
    for s in forge.get_kernel(k).schedules
    if forge.get_kernel(k).schedule_role(s) == "big-gpu"
] + [
    # P11's winner on the H200 (2026-11-30): 64 floats of the row per thread, at the
    # 128 registers 512 threads leave each
    ("layernorm", Schedule((512, 1), items_per_invocation=16, vector_width=4)),
]


@pytest.mark.parametrize("kernel_id, schedule", _BIG_ROWS, ids=[f"{k}-{s}" for k, s in _BIG_ROWS])
def test_big_gpu_row_schedules_keep_the_row_in_registers_without_spills(kernel_id, schedule):
    kernel = forge.get_kernel(kernel_id)
    from backends.cuda import ptxas_report

    report = ptxas_report(kernel.source("cuda", schedule), kernel.entry_point)
    spills = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", report)
    assert spills is not None, f"NVRTC {_nvrtc_version()} reported no ptxas info:\n{report}"
    # NVRTC 13.5 spills nothing here; 13.0 (the H200's toolkit, 2026-12-01) spills 12
    # bytes stores and 28 loads of layernorm at P11's schedule. What this guards
    # against is the row leaving registers: the first moments emission spilled 196.
    assert max(int(b) for b in spills.groups()) <= 32, (
        f"{kernel_id} under {schedule} spills:\n{report}"
    )

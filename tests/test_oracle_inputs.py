"""The oracle's test vectors: reproducible from the seed, edge-case families in blocks,
always inside the kernel's domain, non-finite values only where the kernel allows."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import numpy as np
import pytest

import forge
import oracle
from forge import Access, BufferSpec, InvalidArgument, KernelSpec
from oracle import Verdict, make_case
from oracle.pytest_plugin import require_available

AFFINE = forge.get_kernel("raw_affine")


def _kernel(**changes) -> KernelSpec:
    base = dict(
        id="inputs_probe",
        entry_point="probe",
        buffers=(
            BufferSpec(0, "f32", Access.READ, name="x"),
            BufferSpec(1, "f64", Access.READ, name="w"),
            BufferSpec(2, "i32", Access.READ, name="k"),
            BufferSpec(3, "f32", Access.READ_WRITE, name="c", inout=True),
            BufferSpec(4, "f32", Access.READ_WRITE, name="out"),
        ),
        reference=lambda *a: None,
    )
    base.update(changes)
    return KernelSpec(**base)


def _families(case, label):
    """Each family's values (a family may have several blocks: normal at both ends)."""
    found: dict[str, list] = {}
    for family, start, stop in case.layout[label]:
        found.setdefault(family, []).append(case.arrays[label][start:stop])
    return {family: np.concatenate(parts) for family, parts in found.items()}


def test_same_seed_same_bytes_and_hash_different_seed_different():
    a, b, c = make_case(AFFINE, 4099, 7), make_case(AFFINE, 4099, 7), make_case(AFFINE, 4099, 8)
    assert a.input_hash == b.input_hash and a.arrays["x"].tobytes() == b.arrays["x"].tobytes()
    assert c.input_hash != a.input_hash


def test_inputs_are_identical_in_another_process():
    code = (
        "import forge, oracle; print(oracle.make_case(forge.get_kernel('raw_affine'), "
        "4099, 3).input_hash)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "123", "PATH": ""},
    )
    assert out.stdout.strip() == make_case(AFFINE, 4099, 3).input_hash


def test_every_family_appears_as_a_block_of_the_right_kind():
    case = make_case(AFFINE, 10_000, 0)
    fam = _families(case, "x")
    assert set(fam) == {
        "normal",
        "zeros",
        "negatives",
        "large",
        "tiny",
        "subnormal",
        "nonfinite",
        "mixed",
    }
    assert np.all(fam["zeros"] == 0) and np.signbit(fam["zeros"]).any()
    assert np.all(fam["negatives"] < 0)
    assert np.all(np.abs(fam["large"]) >= 1e4)
    tiny = np.finfo(np.float32).tiny
    assert np.all((np.abs(fam["tiny"]) >= tiny) & (np.abs(fam["tiny"]) < 1e-30))
    assert np.all((np.abs(fam["subnormal"]) < tiny) & (fam["subnormal"] != 0))
    assert np.isnan(fam["nonfinite"]).any() and np.isposinf(fam["nonfinite"]).any()
    assert np.isneginf(fam["nonfinite"]).any()
    assert len(fam["normal"]) >= 5000 and np.all(np.abs(fam["normal"]) <= 4)


def test_each_buffer_gets_its_own_values_and_type():
    case = make_case(_kernel(), 2000, 0)
    assert set(case.arrays) == {"x", "w", "k", "c"}  # outputs are poisoned, not filled
    assert case.arrays["w"].dtype == np.float64 and case.arrays["k"].dtype == np.int32
    assert not np.array_equal(case.arrays["x"], case.arrays["c"])
    assert np.all(np.abs(_families(case, "k")["large"]) >= 2**20)


def test_values_stay_inside_the_domain_and_families_outside_it_are_left_out():
    kernel = _kernel(domain={"x": (0.5, 8.0), "w": (-1.0, 0.0), "k": (0, 9)})
    case = make_case(kernel, 5000, 1)
    x, w, k = case.arrays["x"], case.arrays["w"], case.arrays["k"]
    assert x.min() >= 0.5 and x.max() <= 8.0 and not np.isnan(x).any()
    assert w.min() >= -1.0 and w.max() <= 0.0
    assert k.min() >= 0 and k.max() <= 9
    assert {f for f, _, _ in case.layout["x"]} == {"normal", "mixed"}
    assert "negatives" in {f for f, _, _ in case.layout["w"]}


def test_non_finite_inputs_only_where_the_kernel_allows_them():
    case = make_case(_kernel(nonfinite_inputs=False), 5000, 0)
    for label in ("x", "w", "c"):
        assert np.isfinite(case.arrays[label]).all(), label
    bounded = make_case(_kernel(domain={"x": (-1.0, np.inf)}), 5000, 0)
    x = bounded.arrays["x"]
    # a declared domain holds +inf but no NaN (NaN lies inside no range)
    assert not np.isnan(x).any() and np.isposinf(x).any() and not np.isneginf(x).any()
    assert np.isnan(bounded.arrays["w"]).any()  # w declares no domain


def test_tiny_problems_still_get_inputs():
    for size in (0, 1, 3, 17):
        case = make_case(AFFINE, size, 0)
        assert case.arrays["x"].shape == (size,)


def test_uniform_block_comes_from_the_kernel_and_can_be_overridden():
    case = make_case(AFFINE, 100, 0, uniform={"a": -3.0})
    assert case.uniform["a"][0] == -3.0 and case.uniform["n"][0] == 100
    assert case.input_hash != make_case(AFFINE, 100, 0).input_hash
    with pytest.raises(InvalidArgument, match="unknown uniform fields"):
        make_case(AFFINE, 100, 0, uniform={"z": 1})


def test_bad_sizes_seeds_and_domains_are_refused():
    with pytest.raises(InvalidArgument, match="size"):
        make_case(AFFINE, -1)
    with pytest.raises(InvalidArgument, match="seed"):
        make_case(AFFINE, 10, seed=-2)
    with pytest.raises(InvalidArgument, match="empty"):
        make_case(dataclasses.replace(AFFINE, id="empty_domain", domain={"x": (1.0, 0.0)}), 10)


def _elementwise(name: str, sources: dict, **more) -> KernelSpec:
    return KernelSpec(
        id=name,
        entry_point="main",
        sources=sources,
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
        ),
        reference=lambda x: np.sin(x),
        **more,
    )


_WGSL_SIN = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < arrayLength(&y)) { y[gid.x] = sin(x[gid.x]); }
}
"""
_CUDA = 'extern "C" __global__ void main(const float* x, float* y, int n) {{ {} }}'


def test_a_kernel_calling_sin_cos_or_tan_gets_no_large_magnitudes():
    """WGSL bounds sin's error only on [-pi, pi] (lavapipe gives sin(9.9e8) = -1.0), as
    CUDA does for __sinf and for sinf under --use_fast_math: such kernels are drawn no
    large magnitudes; others still are, and so is CUDA's accurate sinf."""
    from oracle._builtins import builtin_limits

    def range_limited(kernel):
        return "large" in builtin_limits(kernel)

    sin_wgsl = _elementwise("sin_wgsl", {"wgsl": _WGSL_SIN})
    fast = _elementwise("fast", {"cuda": _CUDA.format("y[0] = __sinf(x[0]);")})
    fast_math = _elementwise(
        "fast_math",
        {"cuda": _CUDA.format("y[0] = sinf(x[0]);")},
        options={"cuda": ("--use_fast_math",)},
    )
    accurate = _elementwise("accurate", {"cuda": _CUDA.format("y[0] = sinf(x[0]);")})
    plain = _elementwise("plain", {"wgsl": _WGSL_SIN.replace("sin(x[gid.x])", "x[gid.x] * 2.0")})
    assert range_limited(sin_wgsl) and range_limited(fast) and range_limited(fast_math)
    assert not range_limited(accurate) and not range_limited(plain)

    def largest(kernel):
        x = make_case(kernel, 4099, 0).arrays["x"]
        return np.abs(x[np.isfinite(x)]).max()

    assert largest(sin_wgsl) < 1e3 and largest(fast) < 1e3
    assert largest(plain) > 1e4 and largest(accurate) > 1e4


def test_only_wgsl_gets_the_trig_tolerance_and_only_atol_and_rtol_change():
    """The blanket floor is for float outputs of a reference the oracle cannot carry
    WGSL's sin error through (no np.sin: here a math.sin per element); one that calls
    np.sin gets the error carried to the elements it reaches instead (round 22: the
    blanket passed an output no sine reaches, off by 2500 ulp), and an integer output
    is never widened (it passed an index off by 7)."""
    import dataclasses
    import math

    from oracle._builtins import WGSL_TRIG_ERROR, builtin_floor
    from oracle._tolerance import Tolerance

    carried = _elementwise("sin_wgsl", {"wgsl": _WGSL_SIN})
    opaque = dataclasses.replace(
        carried, reference=lambda x: np.array([math.sin(v) for v in x], np.float32)
    )
    strict = Tolerance(atol=1e-6, rtol=1e-5, ulp=4, nan="forbid", signed_zeros=True)
    wide = builtin_floor(strict, opaque, "wgsl")
    assert (wide.atol, wide.rtol) == (WGSL_TRIG_ERROR, WGSL_TRIG_ERROR)
    assert (wide.ulp, wide.nan, wide.signed_zeros) == (4, "forbid", True)
    assert builtin_floor(strict, carried, "wgsl") is strict
    assert builtin_floor(strict, opaque, "wgsl", np.uint32) is strict
    assert builtin_floor(strict, opaque, "cuda") is strict
    assert builtin_floor(strict, _elementwise("plain", {"wgsl": "fn main() {}"}), "wgsl") is strict


@pytest.mark.parametrize(
    "call, ulp", [("atan2(v, 2.0)", 4096), ("acos(v)", 4096), ("asinh(v)", 4), ("v * 2.0", 4)]
)
def test_wgsl_inverse_trig_gets_its_4096_ulp(call, ulp):
    """Where the reference names no np.arctan2 and kin (here np.sin): the 4096 ulp as a
    floor; where it does, carried instead (``Expected.inverse_trig_bound``)."""
    import dataclasses

    from oracle._builtins import builtin_floor
    from oracle._tolerance import Tolerance

    kernel = _elementwise("t", {"wgsl": _WGSL_SIN.replace("sin(x[gid.x])", call)})
    assert builtin_floor(Tolerance(1e-6, 1e-5, 4), kernel, "wgsl").ulp == ulp
    named = dataclasses.replace(kernel, reference=lambda x: np.arctan2(x, 2.0))
    assert builtin_floor(Tolerance(1e-6, 1e-5, 4), named, "wgsl").ulp == 4


@pytest.mark.parametrize(
    "call, left_out",
    [
        ("log(x[gid.x])", {"subnormal"}),
        ("pow(x[gid.x], 2.2)", {"subnormal", "nonfinite"}),
        ("sqrt(x[gid.x])", set()),
        ("exp(x[gid.x])", set()),
    ],
)
def test_wgsl_log_and_pow_are_not_drawn_where_wgsl_leaves_them_undefined(call, left_out):
    """lavapipe's log of a subnormal is -88 (it is -90 to -103) and its pow(NaN, y) is
    0: WGSL specifies log and pow for normal inputs, and pow as exp2(y * log2(x))."""
    from oracle._builtins import builtin_limits

    kernel = _elementwise("w", {"wgsl": _WGSL_SIN.replace("sin(x[gid.x])", call)})
    assert set(builtin_limits(kernel)) == left_out
    case = make_case(kernel, 4099, 0)
    kinds = {family for family, _, _ in case.layout["x"]}
    assert not kinds & left_out and ("subnormal" in kinds) == ("subnormal" not in left_out)
    x = case.arrays["x"]
    assert np.isfinite(x).all() == ("nonfinite" in left_out)


def test_a_buffer_of_rows_gets_whole_rows_of_zeros_and_of_tiny_values():
    """A normalisation that forgot its epsilon differs only on a row of zeros or of
    tiny values; with the families laid out by element a few long rows (8 x 768) never
    had one, and such a mutant passed. In a buffer with a shape (or of a size's
    rows x cols) the families take whole rows."""
    for shape in (("rows", "cols"), None):
        kernel = KernelSpec(
            id="rows",
            entry_point="main",
            sources={},
            dims=("rows", "cols"),
            buffers=(
                BufferSpec(0, "f32", "read", name="x", count="rows*cols", shape=shape),
                BufferSpec(1, "f32", "read_write", name="y", count="rows*cols", shape=shape),
            ),
            reference=lambda x, y: x,
        )
        for size in ("8x768", "5x257", "64x32"):
            x = make_case(kernel, size, 0).arrays["x"]
            rows = x.reshape(int(size.split("x")[0]), -1)
            assert (rows == 0).all(axis=1).any(), (shape, size)
            tiny = (np.abs(rows) < 1e-30) & (rows != 0)
            assert tiny.all(axis=1).any(), (shape, size)


def test_a_buffer_of_rows_gets_rows_of_small_values_at_the_scale_of_an_epsilon():
    """An RMSNorm with eps outside the root (``x / (sqrt(ms) + eps)``) differs from the
    right one only on a row whose mean square is near eps: not on normal rows, not on
    zeros, not on tiny ones (their squares underflow). Such mutants passed. Rows of the
    small family take one band of magnitudes each (1e-4 to 1e-2, then 1e-6 to 1e-4, then
    1e-8 to 1e-6); a buffer without rows is not drawn it."""
    kernel = KernelSpec(
        id="small_rows",
        entry_point="main",
        sources={},
        dims=("rows", "cols"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="rows*cols", shape=("rows", "cols")),
            BufferSpec(1, "f32", "read", name="w", count="cols"),
            BufferSpec(2, "f32", "read_write", name="y", count="rows*cols"),
        ),
        reference=lambda x, w, y: x * w,
    )
    bands = ((1e-4, 1e-2), (1e-6, 1e-4), (1e-8, 1e-6))
    for size, expected in (("rows=8,cols=768", bands[:1]), ("rows=64,cols=32", bands)):
        case = make_case(kernel, size, 0)
        rows = np.abs(case.arrays["x"].reshape(int(size.split(",")[0][5:]), -1))
        found = {b for b in bands for r in rows if ((r >= b[0]) & (r <= b[1])).all()}
        assert found == set(expected), (size, found)
        assert "small" not in {f for f, _, _ in case.layout["w"]}
        ms = np.mean(rows.astype(np.float64) ** 2, axis=1)
        assert ((ms > 1e-6) & (ms < 1e-4)).any()  # eps = 1e-5 is of this row's size
    assert "small" not in {f for f, _, _ in make_case(AFFINE, 10_000, 0).layout["x"]}
    # in float16 the lower bands are subnormal: its small rows stay normal numbers
    x16 = BufferSpec(0, "f16", "read", name="x", count="rows*cols", shape=("rows", "cols"))
    half = make_case(dataclasses.replace(kernel, buffers=(x16, *kernel.buffers[1:])), "64x32", 0)
    small = np.abs(_families(half, "x")["small"].astype(np.float64))
    assert small.size and (small >= np.finfo(np.float16).tiny).all() and (small <= 1.01e-2).all()


def test_the_small_input_set_makes_every_buffer_of_rows_small_and_the_rest_normal():
    """``input_set="small"``: a statistic over any axis of a buffer of rows (a BatchNorm
    over N and HW, a column, a plane of several rows) is near eps or below it, since
    every row is small values (one band a row); inputs without rows (gamma, beta) stay
    normal, as does a buffer whose domain has no small values."""
    from tests.wild.round19 import BN_TRAIN_WGSL

    kernel = BN_TRAIN_WGSL.kernel
    case = make_case(kernel, "N=4,C=6,HW=49", 0, input_set="small")
    x = case.arrays["x"].reshape(4, 6, 49).astype(np.float64)
    assert case.layout["x"] == (("small", 0, x.size),)
    assert ((np.abs(x) >= 1e-8) & (np.abs(x) <= 1e-2)).all()
    assert (x.var(axis=(0, 2)) < 1e-4).all()  # every channel's variance near eps or under
    for name in ("weight", "bias"):
        assert "small" not in {f for f, _, _ in case.layout[name]}
        assert np.abs(case.arrays[name]).max() > 0.1
    assert make_case(kernel, "N=4,C=6,HW=49", 0).input_hash != case.input_hash
    away = dataclasses.replace(kernel, domain={**kernel.domain, "x": (1.0, 8.0)})
    assert np.abs(make_case(away, "N=4,C=6,HW=49", 0, input_set="small").arrays["x"]).min() >= 1


def test_a_kernel_that_takes_a_root_is_also_judged_on_small_inputs(request):
    """The small set runs after the first passes, for a kernel whose source takes a
    square root or its inverse (a normalisation), and only then: an RMSNorm with eps
    outside the root that every row of the first set lets pass (5 x 257) fails there,
    and the report says which set it failed in; the right kernel passes both."""
    require_available(request.config, "wgpu")
    from oracle._builtins import calls_root
    from tests.wild import CORPUS, mutant

    wild = CORPUS["wild_rmsnorm_workgroup"]
    assert calls_root(wild.kernel) and not calls_root(AFFINE)
    with forge.open_context("wgpu") as ctx:
        right = oracle.evaluate(ctx, wild.kernel, size="5x257", samples=0)
        wrong = oracle.evaluate(ctx, mutant(wild, "eps outside the root"), size="5x257", samples=0)
    assert right.passed and any(s.startswith("small (") and "pass" in s for s in right.input_sets)
    assert not wrong.passed and wrong.failed_input_set == "small", wrong.report()
    assert wrong.input_sets[0].startswith("all (")
    assert "small" in wrong.report()
    # elementwise (no buffer of rows): the set would draw normal values only, and is not run
    adamw = CORPUS["wild_llmc_adamw"].kernel
    assert calls_root(adamw)
    with forge.open_context("wgpu") as ctx:
        plain = oracle.evaluate(ctx, adamw, size=1000, samples=0)
    assert plain.passed and not any(s.startswith("small") for s in plain.input_sets)


def test_the_one_sign_input_sets_make_every_line_of_one_sign():
    """``input_set="negative"`` (``"positive"``): every float and signed integer input of
    one sign, so that a line along any axis is (a max over the middle axis of a 3-D
    tensor, few rows, a flat buffer); from a row boundary at the middle on, large
    magnitudes (a softmax whose max starts at 0 is wrong where every exp underflows).
    A domain of the other sign only, or an unsigned input, keeps normal values."""
    kernel = _kernel()
    for name, sign in (("negative", -1), ("positive", 1)):
        case = make_case(kernel, 1000, 3, input_set=name)
        for label in ("x", "w", "c"):
            values = case.arrays[label].astype(np.float64)
            assert (np.sign(values) == sign).all(), (name, label)
            assert np.abs(values[:500]).max() <= 100 and np.abs(values[500:]).min() > 100
        assert (np.sign(case.arrays["k"]) == sign).all()
    away = _kernel(domain={"x": (0.5, 2.0)})
    kept = make_case(away, 1000, 3, input_set="negative")
    assert "negative" not in {f for f, _, _ in kept.layout["x"]}
    assert (kept.arrays["x"] >= 0.5).all() and "negative" in kept.layout["w"][0]
    rows = _kernel(
        buffers=(
            BufferSpec(0, "f32", "read", name="x", shape=(7, 9)),
            BufferSpec(1, "f32", "read_write", name="out"),
        )
    )
    x = make_case(rows, 63, 0, input_set="negative").arrays["x"].reshape(7, 9)
    large = np.abs(x).min(axis=1) > 100
    assert large.tolist() == [False] * 3 + [True] * 4  # whole rows, from row 3 on


def test_the_normal_input_set_draws_no_exact_zero():
    """The normal set is where results non-finite in the first sets are judged: an exact
    0 there (a value near 0 on the grid of 1/16) made a broadcast division's column
    infinite in every set, and Burn's right ``div`` INCONCLUSIVE on SwiftShader at
    seeds 2 and 3. The first set still draws zeros."""
    for seed in range(6):
        case = make_case(AFFINE, 20000, seed, input_set="normal")
        for label, values in case.arrays.items():
            if values.dtype.kind == "f":
                assert (values != 0).all(), (seed, label)
    assert any((a == 0).any() for a in make_case(AFFINE, 20000, 0).arrays.values())


def test_running_extrema_are_recognised_as_people_write_them():
    """What puts a kernel on the one-sign sets: a running max or min however written,
    and not an elementwise max of an input and a constant."""
    from oracle._builtins import running_extremum

    def kernel(body: str) -> KernelSpec:
        return _kernel(sources={"wgsl": f"fn f() {{ {body} }}"})

    for body in (
        "m = max(m, x[i]);",
        "acc = fmaxf(x[i], acc);",
        "if (v > best) { best = v; }",
        "let alu1 = select(val1, val0, (val1 < val0));",
        "float alu1 = ((val1<val0)?val0:val1);",
        "lo = min(lo, v);",
        # the best a struct's field or an element (ggml-webgpu's argmax, round 41)
        "if (val > local_pair.value) { local_pair = Pair(val, i32(col)); }",
        "if (v > best.v) { best.v = v; best.i = i; }",
        "if (d < nearest[q].dist) { nearest[q] = Hit(d, i); }",
        # the running value an element of workgroup memory (ratchet's softmax, round 44)
        "smem[index] = max(smem[index], X[row_start + i]);",
        "sketch[ index ] = max(sketch[index], value);",
        "s.lo = min(v, s.lo);",
        # the best on the left of the comparison (GPU MODE's flash attention, round 46)
        "if (m < S[ii * bdy + tid_y][jj]) {\n m = S[ii * bdy + tid_y][jj];\n }",
        "if (maxval < val) { maxval = val; argmax = col; }",
    ):
        assert running_extremum(kernel(body)), body
    for body in (
        "y[i] = max(x[i], 0.0);",
        "let s = select(a, b, c);",
        "z = x < y;",
        "if (i < p.n) { out[i] = 1.0; }",
        "if (b.value > a.value) { shared_max[lid.x] = b; }",
        "if (x == best.v) { best.v == x; }",
        "out[i] = max(a[i], b[i]);",
        "o[i] = select(x[i], y[i], x[i] < y[i]);",
        "t[i] = max(t[i + 1u], 0.0);",
        "if (x < 0.0) { x = -x; }",
        "if (i < n) { i = 0; }",
    ):
        assert not running_extremum(kernel(body)), body


def test_the_opposite_set_draws_float_inputs_of_alternating_signs():
    """Attention's scores ``Q @ K.T`` are products of two inputs: in both one-sign sets
    every score is positive, so GPU MODE's flash attention, whose running max starts at
    ``1e-30f``, passed them (round 46). The ``opposite`` set draws the first float input
    negative, the second positive, the third negative, each as the one-sign set of its
    sign draws it (large magnitudes from the middle on), so that ``Q @ K.T`` has rows of
    large negative scores, where every exp underflows. Integers are drawn as in the
    negative set; the set runs for kernels of two float inputs or more."""
    from oracle._inputs import opposite_signs

    kernel = _kernel()
    case = make_case(kernel, 1000, 3, input_set="opposite")
    for label, sign in (("x", -1), ("w", 1), ("c", -1), ("k", -1)):
        values = case.arrays[label].astype(np.float64)
        assert (np.sign(values) == sign).all(), label
    assert np.abs(case.arrays["w"][500:]).min() > 100
    assert opposite_signs(kernel)
    assert not opposite_signs(_kernel(buffers=(BufferSpec(0, "f32", Access.READ, name="x"),)))


def test_rows_of_large_values_have_one_sign_each_and_integer_ranges_their_ends():
    """A softmax whose running max starts at 0 is wrong only on a row far below zero (a
    masked attention row); large rows mixed signs, so none was drawn and the mutant
    passed. And token ids in a declared range reached its last id only by chance."""
    kernel = KernelSpec(
        id="rows_and_ids",
        entry_point="main",
        sources={},
        dims=("rows", "cols"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="rows*cols", shape=("rows", "cols")),
            BufferSpec(1, "i32", "read", name="ids", count="rows*cols"),
            BufferSpec(2, "f32", "read_write", name="y", count="rows*cols"),
        ),
        reference=lambda x, ids, y: x,
        domain={"ids": (0, 49)},
    )
    case = make_case(kernel, "rows=8,cols=768", 0)
    rows = case.arrays["x"].reshape(8, -1)
    large = [r for r in rows if np.all(np.abs(r) >= 1e4)]
    assert large and all((r < 0).all() or (r > 0).all() for r in large)
    assert any((r < -100).all() for r in rows)
    assert {0, 49} <= set(np.unique(case.arrays["ids"]).tolist())


def test_the_last_elements_and_the_last_row_are_of_normal_magnitude():
    """A loop that stops one element (or one vector) short loses the buffer's last
    elements; a sum that drops them differs only if they are not zero or tiny. The
    families were laid out last, so they nearly always were, and such mutants passed."""
    flat = dataclasses.replace(_elementwise("flat", {}), reference=lambda x: 2 * x)
    for size in (65, 1000, 4099, 10007):
        x = make_case(flat, size, 0).arrays["x"]
        tail = x[-min(16, size // 8) :]
        assert np.all((np.abs(tail) >= 1) & (np.abs(tail) <= 4)), (size, tail)
    rows = KernelSpec(
        id="rows",
        entry_point="main",
        sources={},
        dims=("rows", "cols"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="rows*cols", shape=("rows", "cols")),
            BufferSpec(1, "f32", "read_write", name="y", count="rows*cols", shape=("rows", "cols")),
        ),
        reference=lambda x, y: x,
    )
    for size in ("8x768", "64x32"):
        last = make_case(rows, size, 0).arrays["x"].reshape(int(size.split("x")[0]), -1)[-1]
        assert np.all(np.isfinite(last)) and np.abs(last).max() <= 4, (size, last)
        assert np.count_nonzero(np.abs(last) > 1e-3) > last.size // 2, (size, last)


@pytest.mark.parametrize("backend", ["wgpu", "browser"])
def test_a_sum_that_stops_one_element_short_fails_at_every_size_and_seed(request, backend):
    """Round 5 of kernels from the wild: a grid-stride sum of squares whose loop stops
    at ``i + 1 < n`` passed at 65 and 5000 elements (11 of 15 sizes and seeds)."""
    require_available(request.config, backend)
    from tests.wild import CORPUS, mutant

    wild = CORPUS["wild_sum_of_squares"]
    short = mutant(wild, "the loop stops one element short")
    with oracle.Session() as session:  # one warm context for the nine
        for size in (65, 1000, 4099):  # at 10007 only a large last term is past the bound
            for seed in (0, 1, 2):
                ev = oracle.evaluate(
                    session.runner(backend), short, size=size, seed=seed, samples=0
                )
                assert ev.verdict is Verdict.MISMATCH, ev.report()


def test_a_domain_reaching_far_past_the_normal_draw_gets_its_far_ends_drawn():
    """A domain of (-100, 100): the normal draw stops at 4 and the large magnitudes
    start at 1e4, so without its own far ends no key of an RWKV kernel would pass 88,
    where an exp without a running maximum overflows (tests/wild/round17.py)."""
    kernel = _kernel(domain={"x": (-100.0, 100.0), "w": (-8.0, 8.0)}, nonfinite_inputs=False)
    case = make_case(kernel, 5000, 2)
    large = _families(case, "x")["large"]
    assert np.all((np.abs(large) >= 4.0) & (np.abs(large) <= 100.0))
    assert large.max() > 88.0 and large.min() < -88.0
    # nearer ends (8 is within 4 times the normal draw's reach) keep no large block
    assert "large" not in {f for f, _, _ in case.layout["w"]}


@pytest.mark.parametrize(
    "text, takes",
    [
        ("y[i] = x[i] * rsqrtf(ms + eps);", True),
        ("float s = sqrtf (v);", True),
        ("out = __frsqrt_rn(v + 1e-5f);", True),
        ("h = hrsqrt(v); g = h2rsqrt(w);", True),
        ("let s = inverseSqrt(v + p.eps);", True),
        ("let n = sqrt(dot(v, v));", True),
        ("float r = powf(var + eps, -0.5f);", True),
        ("// x / sqrt(ms) in a comment only\ny[i] = x[i];", False),
        ("let sqrtish = x; y[i] = my_sqrt_table[i];", False),
    ],
)
def test_which_kernels_take_a_root(text, takes):
    """The kernels run on the small input set too: a square root or its inverse called
    in code (CUDA's and WGSL's spellings, halves too), not in a comment or a name."""
    from oracle._builtins import calls_root

    target = "wgsl" if "let " in text else "cuda"
    kernel = dataclasses.replace(AFFINE, sources={target: text})
    assert calls_root(kernel) is takes


def test_normal_values_past_their_reach_are_folded_back_not_piled_on_its_ends():
    """Clipped, about one normal value in 130 was +-4 exactly: every row of 1000 had its
    maximum several times over, and an argmax that breaks ties otherwise than numpy's
    first index failed on ties the inputs made. Folded back, a normal row's maximum is
    one value (the grid of 1/16 still gives exact halves and quarters)."""
    from tests.wild import CORPUS

    case = make_case(CORPUS["wild_row_argmax"].kernel, "7x1000", 0)
    x = case.arrays["x"].reshape(7, 1000)
    normal = [r for r in range(7) if _row_family(case, "x", r, 1000) == "normal"]
    assert normal
    for r in normal:
        row = x[r]
        assert np.abs(row).max() <= 4.0
        assert np.count_nonzero(row == row.max()) == 1, (r, np.sort(row)[-4:])
    many = make_case(AFFINE, 200_000, 0).arrays["x"]
    assert np.count_nonzero(np.abs(many) == 4.0) < 20  # 0.76 % (1500) when clipped


def _first_row(case, label: str, row: int, cols: int) -> int:
    """The first row of ``case``'s block holding all of row ``row``."""
    for _, start, stop in case.layout[label]:
        if start <= row * cols and (row + 1) * cols <= stop:
            return -(-start // cols)
    raise AssertionError(f"row {row} of {label} lies in several blocks")


def _row_family(case, label: str, row: int, cols: int) -> str:
    """The family of ``case``'s block holding all of row ``row``, else "mixed rows"."""
    for family, start, stop in case.layout[label]:
        if start <= row * cols and (row + 1) * cols <= stop:
            return family
    return "mixed rows"


_BLOCKS = (32, 64, 128, 256, 512, 1024)


def _ends_hold(values: np.ndarray, turned: bool = False) -> bool:
    """Whether ``values`` holds its maximum last and its minimum first (the other way
    round where ``turned``)."""
    values = values.astype(np.float64)
    top, bottom = (values[0], values[-1]) if turned else (values[-1], values[0])
    return bool(top == values.max() and bottom == values.min())


def test_aligned_blocks_hold_their_maximum_last_and_their_minimum_first():
    """A min/max that leaves out each block's last element (del-msh's bounding box,
    ``is + 1u < ns``) or its first is wrong only where that element is the extreme, one
    draw in the block's length. Blocks of 32 to 1024 elements aligned from the buffer's
    start (a warp's, a workgroup's, a tile's) hold their maximum last and their minimum
    first, in float and integer inputs: the larger than a region (the largest size the
    buffer holds 4 of) all, the others in every other region; the regions between are
    as drawn, with maxima inside blocks (where an argmax that skips its second element
    is wrong). The buffer's last element is the largest of the normal values there."""
    kernel = _kernel()
    for size, region in ((1000, 128), (4099, 1024), (10007, 1024)):
        case = make_case(kernel, size, 0)
        for label in ("x", "w", "k", "c"):
            values, (_, _, stop) = case.arrays[label], case.layout[label][0]
            inside = 0
            for block in _BLOCKS:
                for start in range(0, stop - block + 1, block):
                    chunk = values[start : start + block]
                    if block > region or start // region % 2 == 0:
                        assert _ends_hold(chunk), (size, label, block, start, chunk)
                    elif block == 32:
                        inside += 0 < np.argmax(chunk) < 31
            assert inside >= 3, (size, label)
            tail = case.layout[label][-1]
            assert tail[0] == "normal" and tail[2] == size, (size, label, tail)
            assert values[-1] == values[tail[1] :].max(), (size, label)


def test_rows_hold_their_extremes_at_their_ends_in_two_of_every_four():
    """A row reduction (an argmax, a softmax's maximum) that leaves out a row's last
    element, or its first, passed unless that element was the row's extreme. Rows 0 and
    1 of every 4 (from a family's first row) hold their maximum last and their minimum
    first (row 1 the other way round), and so do the blocks of 32 to 1024 aligned from
    the row's start, in rows of every family (a family's one row of large values, of
    one sign, too); rows 2 and 3 are as drawn, their maxima anywhere."""
    kernel = KernelSpec(
        id="rows",
        entry_point="main",
        sources={},
        dims=("rows", "cols"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="rows*cols", shape=("rows", "cols")),
            BufferSpec(1, "f32", "read_write", name="y", count="rows*cols"),
        ),
        reference=lambda x, y: x,
        nonfinite_inputs=False,
    )
    for size in ("16x1000", "5x257", "64x32", "3x3000", "100x37"):
        rows, cols = map(int, size.split("x"))
        case = make_case(kernel, size, 0)
        x = case.arrays["x"].reshape(rows, cols)
        whole = [r for r in range(rows) if _row_family(case, "x", r, cols) != "mixed rows"]
        assert len(whole) >= rows // 2, size
        nth = {r: r - _first_row(case, "x", r, cols) for r in whole}
        inside = 0
        for r in whole:
            if nth[r] % 4 >= 2:
                inside += 0 < np.argmax(x[r]) < cols - 1
                continue
            turned = nth[r] % 4 == 1
            assert _ends_hold(x[r], turned), (size, r)
            for block in (b for b in _BLOCKS if b < cols):
                for start in range(0, cols - block + 1, block):
                    assert _ends_hold(x[r, start : start + block], turned), (size, r, start)
        assert inside >= 3 or rows < 16, size
        families = {_row_family(case, "x", r, cols) for r in whole if nth[r] % 4 < 2}
        assert "large" in families or rows < 16, (size, families)


def test_the_one_sign_sets_put_the_largest_magnitude_of_a_buffer_last():
    """Where a flat buffer's maximum or minimum is taken over all of it (a bounding box
    merged by atomics), the element a loop leaves out is the last: in the positive set
    it holds the buffer's maximum, in the negative set its minimum (the largest
    magnitude either way), and the first element the smallest magnitude."""
    kernel = _kernel()
    for size in (100, 1000, 10007):
        for name in ("positive", "negative"):
            for label in ("x", "w", "k", "c"):
                values = make_case(kernel, size, 1, input_set=name).arrays[label]
                magnitude = np.abs(values.astype(np.float64))
                assert magnitude[-1] == magnitude.max(), (size, name, label)
                assert magnitude[0] == magnitude.min(), (size, name, label)


def test_extremes_move_only_within_a_family_and_a_row(monkeypatch):
    """Planting the extremes permutes what was drawn within each family's block (and,
    in a buffer of rows, within each row): every family keeps its values and its place,
    every row its values, every value its domain; the draw is the same bytes in another
    process (``test_inputs_are_identical_in_another_process``)."""
    import oracle._inputs as inputs

    rows = _kernel(
        buffers=(
            BufferSpec(0, "f32", "read", name="x", shape=(40, 50)),
            BufferSpec(1, "i32", "read", name="k"),
            BufferSpec(2, "f32", "read_write", name="out"),
        ),
        domain={"k": (0, 9)},
    )
    kernels = ((_kernel(), 10007), (rows, 2000))
    planted = [make_case(kernel, size, 4) for kernel, size in kernels]
    monkeypatch.setattr(inputs, "_extremes_at_ends", lambda values, *args, **kw: values)
    for (kernel, size), case in zip(kernels, planted):
        drawn = make_case(kernel, size, 4)
        assert drawn.layout == case.layout
        for label, values in case.arrays.items():
            assert not np.array_equal(values, drawn.arrays[label], equal_nan=True), label
            pieces = [(start, stop) for _, start, stop in case.layout[label]]
            if label == "x" and kernel is rows:
                pieces = [(r * 50, r * 50 + 50) for r in range(40)]
            for start, stop in pieces:
                assert np.array_equal(
                    np.sort(values[start:stop]),
                    np.sort(drawn.arrays[label][start:stop]),
                    equal_nan=True,
                ), (label, start, stop)
    assert set(np.unique(planted[1].arrays["k"])) <= set(range(10))


def test_a_row_argmax_that_stops_one_column_short_fails(request):
    """A row argmax whose loop ends at ``c + 1u < cols`` differs only on a row whose
    maximum is its last element: 7 rows of 1000 had one in 0.7% of draws, and it passed.
    Every even row holds its maximum last."""
    require_available(request.config, "wgpu")
    from tests.wild import CORPUS

    wild = CORPUS["wild_row_argmax"]
    source = wild.kernel.sources["wgsl"].replace("c < p.cols;", "c + 1u < p.cols;")
    assert source != wild.kernel.sources["wgsl"]
    short = dataclasses.replace(wild.kernel, id="row_argmax_short", sources={"wgsl": source})
    ev = oracle.evaluate("wgpu", short, size="7x1000", samples=0)
    assert ev.verdict is Verdict.MISMATCH, ev.report()  # the kernel as written: the corpus


def test_the_second_half_of_a_large_draw_lies_past_the_finite_lowest_identities():
    """Round 41: an argmax started at -65504 (or -1e4) keeps -1 only on a row wholly
    below it; the large family's second half (whole rows, in a buffer of rows) starts
    at 1e5, its first half keeps the band from 1e4 where float32 distances cancel."""
    from oracle._inputs import _float_family

    rng = np.random.default_rng(0)
    values = np.abs(
        _float_family(rng, "large", 1000, np.dtype(np.float32), (-np.inf, np.inf), False)
    )
    assert np.all(values[500:] >= 1e5) and np.any(values[:500] < 1e5)
    wide = np.abs(_float_family(rng, "large", 1000, np.dtype(np.float64), (-np.inf, np.inf), False))
    assert np.all(wide >= 1e8)  # f64's large family starts past 1e5 already
    half = np.abs(_float_family(rng, "large", 1000, np.dtype(np.float16), (-np.inf, np.inf), False))
    assert np.all(half <= 65504)  # f16's own range: no split

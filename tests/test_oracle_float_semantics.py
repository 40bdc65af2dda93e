"""The oracle judges a backend by the float semantics it declares.

WGSL lets a device flush subnormal inputs and results to zero and assume overflow,
infinities and NaNs never occur (the result is then indeterminate). An NVIDIA H200
through Vulkan does both, so its ``mul``, ``fma`` and ``relu`` differ from numpy's on
such elements. Here a reference context that declares WGSL's semantics runs numpy
functions that behave as that device does, on inputs planted with the patterns seen
there: they must pass with the declaration, fail without it, and any other wrong
element must still fail with it.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import forge
import oracle
from oracle import MASKED_NONFINITE, FloatSemantics, flush_subnormals
from oracle._cross_check import _pairs
from oracle.pytest_plugin import require_available

F32 = np.float32
SUB = 1e-39  # a subnormal f32
GARBAGE = F32(12345.0)  # an indeterminate value a finite-math device may leave
WGSL = {"subnormals_may_flush": True, "nonfinite_indeterminate": True}


class Declaring:
    """A context that runs like ``ctx`` but declares other float semantics in its
    constraints (as wgpu's does), so the oracle's masking runs without a GPU."""

    def __init__(self, ctx, **flags):
        self._ctx = ctx
        self._constraints = dataclasses.replace(ctx.constraints, **flags)

    @property
    def constraints(self):
        return self._constraints

    def __getattr__(self, name):
        return getattr(self._ctx, name)


def _ftz(a):
    return flush_subnormals(np.asarray(a, F32))


def _device_like(op, defects=None):
    """A numpy meaning that computes ``op`` as a flushing, finite-math device does:
    subnormal inputs and results flushed, a result that overflows from finite
    operands left indeterminate; then ``defects`` (index: value) planted on top."""

    def run(*buffers):
        *inputs, out, _params = buffers
        flushed = [_ftz(a) for a in inputs]
        with np.errstate(all="ignore"):
            result = _ftz(op(*flushed))
        overflowed = np.isinf(result) & np.logical_and.reduce([np.isfinite(a) for a in flushed])
        out[:] = np.where(overflowed, GARBAGE, result)
        for index, value in (defects or {}).items():
            out[index] = value

    return run


def _mul(x, y):
    return x * y


def _fma(x, y, z):
    return _ftz(x * y) + z


def _relu(x):
    return np.fmax(x, F32(0))  # max(NaN, 0) is 0 there, where numpy's select keeps NaN


# kernel id: (device op, planted inputs, the index of a normal element with want 6.0)
PATTERNS = {
    # -1e-39 * 6.49e7: -6.49e-32 in numpy, -0.0 there; 1e-39 * 3e38: 0.3 vs 0.0;
    # 1e-39 * inf: inf vs 0 * inf = NaN; 1e30 * 1e30 overflows.
    "mul": (_mul, {"x": [-SUB, SUB, SUB, 1e30, 2.0], "y": [6.49e7, 3e38, np.inf, 1e30, 3.0]}, 4),
    # a subnormal a*b flushed leaves c; an overflowing product.
    "fma": (_fma, {"x": [SUB, 1e30, 2.0], "y": [3e38, 1e30, 2.0], "z": [0.25, 1.0, 2.0]}, 2),
    # max(NaN, 0) gives 0; a negative subnormal compares as -0.0.
    "relu": (_relu, {"x": [np.nan, -np.inf, np.inf, -SUB, SUB, 6.0]}, 5),
}


def _twin(name: str, defects=None) -> forge.KernelSpec:
    op = PATTERNS[name][0]
    suffix = "_defect" if defects else ""
    return dataclasses.replace(
        forge.get_kernel(name),
        id=f"{name}_h200_like{suffix}",
        body=None,
        reference=_device_like(op, defects),
    )


def _planted(kernel: forge.KernelSpec, size: int = 1001) -> oracle.Expected:
    """The kernel's usual fixed-seed inputs with the H200 patterns written first, and
    the reference's expectation for them."""
    case = oracle.make_case(kernel, size, 0)
    arrays = {label: array.copy() for label, array in case.arrays.items()}
    for label, values in PATTERNS[kernel.id.split("_h200")[0]][1].items():
        arrays[label][: len(values)] = np.asarray(values, F32)
    truth = forge.get_kernel(kernel.id.split("_h200")[0])
    return oracle.expected_outputs(dataclasses.replace(case, arrays=arrays), truth)


@pytest.fixture
def reference():
    with forge.open_context("reference") as ctx:
        yield ctx


@pytest.mark.parametrize("name", list(PATTERNS))
def test_h200_patterns_pass_when_wgsl_semantics_are_declared(reference, name):
    ev = oracle.evaluate_case(Declaring(reference, **WGSL), _planted(_twin(name)), samples=2)
    assert ev.passed, ev.report()
    assert ev.semantics == FloatSemantics(True, True)
    (check,) = ev.outputs.values()
    assert check.comparison.masked > 0 and check.later.passed, ev.report()
    assert f"masked: {MASKED_NONFINITE}" in ev.report()
    if name != "relu":  # relu's flushed elements are zeros either way
        assert check.comparison.flushed > 0, ev.report()
    assert ev.as_dict()["float_semantics"] == WGSL


_PARTIAL = {
    "ieee": {},
    "flush only": {"subnormals_may_flush": True},
    "indeterminate only": {"nonfinite_indeterminate": True},
}


# relu's only departure is max(NaN, 0) = 0: IEEE maxNum, right under any declaration
# (``test_a_max_that_drops_nan_passes_and_a_wrong_value_there_fails``), so it is left
# out here rather than expected to fail.
@pytest.mark.parametrize(
    "name,flags",
    [
        pytest.param(name, flags, id=f"{name}-{label}")
        for name in PATTERNS
        for label, flags in _PARTIAL.items()
        if name != "relu"
    ],
)
def test_h200_patterns_fail_without_the_declaration_that_explains_them(reference, name, flags):
    ev = oracle.evaluate_case(Declaring(reference, **flags), _planted(_twin(name)), samples=0)
    assert ev.verdict == "mismatch", ev.report()
    first = next(iter(ev.outputs.values())).comparison.first_mismatches[0]
    assert first.index[0] < len(next(iter(PATTERNS[name][1].values())))  # a planted element


def test_the_same_kernels_stay_ieee_strict_on_the_reference(reference):
    assert FloatSemantics.of(reference.constraints) == FloatSemantics()
    ev = oracle.evaluate_case(reference, _planted(_twin("mul")), samples=0)
    assert ev.verdict == "mismatch" and ev.outputs["z"].comparison.masked == 0


@pytest.mark.parametrize(
    "defect",
    [
        pytest.param(lambda want: want * (1 + 1000 * 2.0**-23), id="1000 ulp on a normal element"),
        pytest.param(lambda want: want + 1, id="another finite value"),
        pytest.param(lambda want: np.nan, id="NaN where the expected is finite"),
        pytest.param(lambda want: np.inf, id="inf where the expected is finite"),
    ],
)
@pytest.mark.parametrize("name", list(PATTERNS))
def test_a_wrong_element_still_fails_with_wgsl_semantics(reference, name, defect):
    index = PATTERNS[name][2]
    wrong = F32(defect(F32(6.0)))
    expected = _planted(_twin(name, {index: wrong}))
    assert expected.outputs[next(iter(expected.outputs))][index] == 6.0
    ev = oracle.evaluate_case(Declaring(reference, **WGSL), expected, samples=0)
    assert ev.verdict == "mismatch", ev.report()
    (check,) = ev.outputs.values()
    assert [m.index for m in check.comparison.first_mismatches] == [(index,)], ev.report()


def test_a_wrong_value_on_a_flushed_element_still_fails(reference):
    # 1e-39 * 3e38 is 0.3, or 0 where the subnormal is flushed; 0.5 is neither.
    ev = oracle.evaluate_case(
        Declaring(reference, **WGSL), _planted(_twin("mul", {1: 0.5})), samples=0
    )
    assert ev.verdict == "mismatch"
    assert [m.index for m in ev.outputs["z"].comparison.first_mismatches] == [(1,)]


def test_the_flushed_expectation_runs_the_reference_on_flushed_inputs(reference):
    kernel = forge.get_kernel("mul")
    case = oracle.make_case(kernel, 16, 0)
    x, y = case.arrays["x"].copy(), case.arrays["y"].copy()
    x[:4], y[:4] = [-SUB, SUB, 1e-20, 2.0], [2.0, 3e38, 1e-20, 3.0]
    expected = oracle.expected_outputs(dataclasses.replace(case, arrays={"x": x, "y": y}))
    flushed = expected.flushed()["z"]
    assert flushed[0] == 0 and np.signbit(flushed[0])  # sign-preserving zero input
    assert flushed[1] == 0 and expected.outputs["z"][1] == F32(SUB) * F32(3e38)
    assert expected.outputs["z"][2] != 0 and flushed[2] == 0 and not np.signbit(flushed[2])
    assert flushed[3] == 6.0  # subnormal result flushed
    np.testing.assert_array_equal(flushed, flush_subnormals(_ftz(x) * _ftz(y)))
    assert expected.flushed() is expected.flushed()  # computed once, then shared


# -- pairwise comparison in cross_check -----------------------------------------------------
def _ran(name: str, expected: oracle.Expected, got, semantics: FloatSemantics) -> oracle.Evaluation:
    case = expected.case
    ev = oracle.Evaluation(
        case.kernel,
        name,
        None,
        case.kernel.schedules[0],
        case.size,
        case.seed,
        case.input_hash,
        expected.reference,
    )
    ev.got, ev.semantics = {"z": np.asarray(got, F32)}, semantics
    return ev


def _device_output(reference, defects=None) -> tuple[oracle.Expected, np.ndarray]:
    expected = _planted(_twin("mul", defects))
    ev = oracle.evaluate_case(Declaring(reference, **WGSL), expected, samples=0)
    return expected, ev.got["z"]


def test_a_pair_agrees_when_it_differs_only_as_wgsl_allows(reference):
    expected, device = _device_output(reference)
    ieee = expected.outputs["z"]
    wgsl, strict = FloatSemantics(True, True), FloatSemantics()
    for first, second in (
        ((device, wgsl), (ieee, strict)),
        ((ieee, strict), (device, wgsl)),
        ((device, wgsl), (device, wgsl)),
    ):
        evaluations = {"a": _ran("a", expected, *first), "b": _ran("b", expected, *second)}
        (pair,) = _pairs(expected.case.kernel, evaluations, None, expected)
        assert pair.agree, pair.comparisons["z"].report()
    (pair,) = _pairs(
        expected.case.kernel,
        {"gpu": _ran("gpu", expected, device, wgsl), "cuda": _ran("cuda", expected, ieee, strict)},
        None,
        expected,
    )
    assert pair.masked > 0 and pair.flushed > 0
    assert "masked" in pair.describe() and "subnormal flush" in pair.describe()


def test_a_pair_of_ieee_backends_stays_strict(reference):
    expected, device = _device_output(reference)
    strict = FloatSemantics()
    evaluations = {
        "a": _ran("a", expected, device, strict),
        "b": _ran("b", expected, expected.outputs["z"], strict),
    }
    (pair,) = _pairs(expected.case.kernel, evaluations, None, expected)
    assert not pair.agree and pair.masked == 0 and pair.flushed == 0
    assert "DISAGREE" in pair.describe()


def test_a_pair_with_a_wrong_element_disagrees_under_wgsl_semantics(reference):
    expected, device = _device_output(reference, {4: 7.0})
    evaluations = {
        "gpu": _ran("gpu", expected, device, FloatSemantics(True, True)),
        "cuda": _ran("cuda", expected, expected.outputs["z"], FloatSemantics()),
    }
    (pair,) = _pairs(expected.case.kernel, evaluations, None, expected)
    assert not pair.agree
    assert [m.index for m in pair.comparisons["z"].first_mismatches] == [(4,)]


# -- what each backend declares -------------------------------------------------------------
def test_wgpu_declares_what_the_probe_measures_on_its_adapter(request):
    """Semantics by evidence, not by backend name: the constraints say what the probe
    saw, the result is cached per adapter, and on lavapipe (IEEE arithmetic) nothing
    is masked."""
    from backends._probe import probe_float_semantics

    require_available(request.config, "wgpu")
    with forge.open_context("wgpu") as ctx:
        seen = probe_float_semantics(ctx)
        assert seen.measured and ctx.float_semantics == seen
        assert ctx.constraints.subnormals_may_flush == seen.subnormals_may_flush
        assert ctx.constraints.nonfinite_indeterminate == seen.nonfinite_indeterminate
        if "llvmpipe" in ctx.adapter.name:
            assert not seen.subnormals_may_flush and not seen.nonfinite_indeterminate


def test_kernels_pass_on_a_device_that_flushes_and_has_indeterminate_nonfinite(request):
    require_available(request.config, "wgpu")
    with forge.open_context("wgpu") as real:
        ctx = Declaring(real, subnormals_may_flush=True, nonfinite_indeterminate=True)
        for name in PATTERNS:  # the real IR kernels, on the planted H200 patterns
            kernel = forge.get_kernel(name)
            case = _planted(_twin(name)).case
            expected = oracle.expected_outputs(dataclasses.replace(case, kernel=kernel))
            ev = oracle.evaluate_case(ctx, expected, samples=1)
            assert ev.passed and ev.semantics == FloatSemantics(True, True), ev.report()


def test_cuda_constraints_keep_ieee_semantics():
    """NVRTC compiles without -ftz or fast math, so CUDA keeps subnormals and
    propagates Inf and NaN; its constraints must not claim otherwise (cuda-python is a
    dependency: no GPU is needed, and a missing one fails here)."""
    from backends.cuda._context import _constraints
    from backends.cuda._driver import DeviceInfo

    class Attributes(dict):
        def __missing__(self, key):
            return 32

    info = DeviceInfo(0, "fake", (9, 0), (12, 0), 1 << 30, Attributes(), "0000:00:00.0", "")
    constraints = _constraints(info, 1 << 20, 256)
    assert not constraints.subnormals_may_flush and not constraints.nonfinite_indeterminate


def test_a_max_that_drops_nan_passes_and_a_wrong_value_there_fails(reference):
    """max(NaN, 0) = 0 (IEEE 754-2008 maxNum, C's fmaxf, WGSL's max) where numpy's
    maximum gives NaN: right, on an IEEE-strict backend too, and said (the element
    matches the reference with its NaN input taken as missing); a relu that gives 1.0
    there matches neither and fails."""
    ev = oracle.evaluate_case(Declaring(reference), _planted(_twin("relu")), samples=0)
    assert ev.passed, ev.report()
    (check,) = ev.outputs.values()
    assert check.comparison.nan_input >= 1 and "NaN inputs taken as missing" in ev.report()
    wrong = oracle.evaluate_case(
        Declaring(reference), _planted(_twin("relu", defects={0: 1.0})), samples=0
    )
    assert wrong.verdict == "mismatch", wrong.report()
    first = next(iter(wrong.outputs.values())).comparison.first_mismatches[0]
    assert first.index[0] == 0  # the planted NaN input

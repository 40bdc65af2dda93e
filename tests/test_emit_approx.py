"""The WGSL tanh and erf approximations and CUDA's ``1 + erf(u)`` for half outputs
(forge/emit/_approx.py): their float32 error, their non-finite behaviour, what a real
WGSL implementation computes with them, and the float literals every emitter prints."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import forge
from forge import Schedule, ir
from forge.emit._approx import ERFCC, f32_literal, float32_model, one_plus_erf, wgsl_helper
from forge.emit._dialect import CUDA, WGSL
from forge.ir import erf64
from forge.ir._erf import erfc64
from oracle.pytest_plugin import require_available

TRUTH = {"tanh": np.tanh, "erf": erf64}
GRID = np.concatenate(
    [
        np.linspace(-12, 12, 400_001),
        np.geomspace(1e-30, 12, 20_001),
        -np.geomspace(1e-30, 12, 20_001),
    ]
).astype(np.float32)


def _ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Distance in units of the float32 spacing at the true value."""
    spacing = np.spacing(np.abs(want.astype(np.float32))).astype(np.float64)
    return np.abs(got.astype(np.float64) - want) / spacing


@pytest.mark.parametrize("name", ["tanh", "erf"])
def test_the_approximation_is_within_two_ulp_with_an_exact_exp(name):
    want = TRUTH[name](GRID.astype(np.float64))
    assert _ulps(float32_model(name, GRID), want).max() <= 2.0


@pytest.mark.parametrize("name", ["tanh", "erf"])
def test_the_approximation_saturates_and_propagates_nan(name):
    out = float32_model(
        name, np.array([np.inf, -np.inf, 1e30, -1e30, np.nan, 0.0, -0.0], np.float32)
    )
    assert out[:4].tolist() == [1.0, -1.0, 1.0, -1.0]
    assert np.isnan(out[4]) and out[5] == 0.0 and out[6] == 0.0


def test_the_helpers_are_only_emitted_where_used():
    plain = forge.emit.emit(ir.kernel("p", ir.map(y=ir.input("x") * 2.0)), Schedule(64), "wgsl")
    assert "fg_tanh_f32" not in plain and "fg_erf_f32" not in plain
    both = forge.emit.emit(
        ir.kernel("q", ir.map(y=ir.tanh(ir.input("x")) + ir.erf(ir.input("x")))),
        Schedule(64),
        "wgsl",
    )
    assert wgsl_helper("tanh") in both and wgsl_helper("erf") in both
    assert "tanhf(" in forge.emit.emit(forge.get_kernel("tanh"), Schedule(64), "cuda")


def test_on_a_real_wgsl_implementation_the_error_stays_small(request):
    """On the adapter at hand (lavapipe in CI), tanh and erf through the emitted helpers:
    their own <= 2 ulp plus what the device's exp adds."""
    require_available(request.config, "wgpu")
    x = ir.input("x")
    kernel = ir.kernel("approx_probe", ir.map(t=ir.tanh(x), e=ir.erf(x)))
    size = GRID.size
    with forge.open_context("wgpu", capacity_bytes=64 << 20) as ctx:
        rw, uniform = forge.BindingUsage.STORAGE_READ_WRITE, forge.BindingUsage.UNIFORM
        views = [
            ctx.allocate_and_write(GRID, 0),
            ctx.allocate_transient(GRID.nbytes, 1, usage=rw),
            ctx.allocate_transient(GRID.nbytes, 2, usage=rw),
            ctx.allocate_and_write(kernel.pack_uniform(size), 3, usage=uniform),
        ]
        ctx.run_kernel(kernel, Schedule(256, items_per_invocation=4), views, size)
        got = {"tanh": ctx.read_buffer_f32(views[1]), "erf": ctx.read_buffer_f32(views[2])}
    for name, values in got.items():
        worst = _ulps(values, TRUTH[name](GRID.astype(np.float64))).max()
        assert worst <= 8, f"{name}: {worst} ulp on {ctx.adapter.name}"


_FLOATS = st.floats(width=32, allow_nan=False, allow_infinity=False)


@settings(max_examples=400, deadline=None)
@given(_FLOATS)
def test_float32_literals_round_trip(value):
    text = f32_literal(value)
    assert text.endswith("f")
    assert np.float32(float(text[:-1])) == np.float32(value)
    assert WGSL().literal(value, "f32") == CUDA().literal(value, "f32") == text


@settings(max_examples=200, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_float64_and_float16_literals_round_trip(value):
    wgsl64 = WGSL().literal(value, "f64")
    assert wgsl64.endswith("lf") and float(wgsl64[:-2]) == value
    assert float(CUDA().literal(value, "f64")) == value
    with np.errstate(over="ignore"):
        half = np.float16(value)
    if np.isfinite(half):
        assert np.float16(float(WGSL().literal(value, "f16")[:-1])) == half


def test_non_finite_and_extreme_integer_literals_are_spelled_without_literals():
    # Through a function: a bitcast of a constant to inf is a const-expression, which
    # WGSL makes a shader-creation error (Tint refuses it; naga does not).
    assert WGSL().literal(float("inf"), "f32") == "fg_f32_from_bits(0x7f800000u)"
    helpers = WGSL().helpers(set(), "x = fg_f32_from_bits(0u);")
    assert "fn fg_f32_from_bits(bits: u32) -> f32" in helpers
    assert "fg_f32_from_bits" not in WGSL().helpers(set(), "x = 1.0f;")
    assert CUDA().literal(float("-inf"), "f32") == "__int_as_float((int)0xff800000u)"
    assert WGSL().literal(-(2**31), "i32") == "(-2147483647i - 1i)"
    # the largest float32, spelled so that its decimal is not beyond it (Tint refuses
    # 3.4028235e+38f), and reading back exactly
    largest = WGSL().literal(float(np.finfo(np.float32).max), "f32")
    assert largest == "3.4028234663852886e+38f"
    assert np.float32(float(largest[:-1])) == np.finfo(np.float32).max
    assert CUDA().literal(-(2**31), "i32") == "(-2147483647 - 1)"


def _one_plus_erf_model(u: np.ndarray, target: str) -> np.ndarray:
    """``fg_one_plus_erf`` as ``one_plus_erf(target)`` spells it, in float32 with an
    exact exp and each CUDA fmaf rounded once (WGSL's multiply and add twice), with the
    coefficients read from the text in the order it applies them."""
    f32 = np.float32
    text = one_plus_erf(target)
    if target == "cuda":
        found = re.findall(r"(?:float p = |fmaf\(t, p, )(\S+?)f[;)]", text)
    else:  # c0 + t * (c1 + t * (... c9)), read outermost first, applied innermost first
        horner = text.split("exp(")[1].split(" - z * z")[0]
        found = re.findall(r"(-?\d[\d.]*(?:e[-+]?\d+)?)f", horner)[::-1]
    coefficients = [f32(v) for v in found]
    assert len(coefficients) == len(ERFCC)
    z = np.abs(u).astype(f32)
    t = (f32(1) / (f32(0.5) * z + f32(1))).astype(f32)
    p = np.full_like(z, coefficients[0])
    for c in coefficients[1:]:
        product = t.astype(np.float64) * p
        p = (product if target == "cuda" else product.astype(f32)) + c
        p = p.astype(f32)
    with np.errstate(invalid="ignore", over="ignore"):
        square = z.astype(np.float64) * z
        square = square if target == "cuda" else square.astype(f32)
        argument = (p - square).astype(f32)
        r = (t * np.exp(argument.astype(np.float64)).astype(f32)).astype(f32)
        return np.where(u <= 0, r, f32(2) - r)


@pytest.mark.parametrize("target", ["cuda", "wgsl"])
def test_one_plus_erf_is_numerical_recipes_erfcc_without_the_cancellation(target):
    """The helper half kernels' ``1 + erf(u)`` goes through: its coefficients give erfc
    within 1.3e-7 (relative) in float64, and in float32 it stays within 2e-5 of 1 +
    erf(u) relative to that value even where it is 1e-37, far within half an ulp of f16
    (2.4e-4) and bf16 (2e-3), where the sum with erf loses every digit past u = -4."""
    z = np.linspace(0, 10, 200_001)
    t = 1 / (1 + 0.5 * z)
    p = np.full_like(z, ERFCC[-1])
    for c in reversed(ERFCC[:-1]):
        p = t * p + c
    assert (np.abs(t * np.exp(-z * z + p) / erfc64(z) - 1)).max() < 1.35e-7
    u = np.linspace(-9, 9, 400_001).astype(np.float32)
    wide = u.astype(np.float64)
    exact = np.where(wide <= 0, erfc64(-wide), 1 + erf64(wide))
    assert (np.abs(_one_plus_erf_model(u, target) / exact - 1)).max() < 2e-5
    summed = 1 + erf64(wide).astype(np.float32)  # erf rounded to float32, then the sum
    assert (np.abs(summed / exact - 1)).max() >= 1  # 0 where the exact value is 1e-37
    special = np.array([-np.inf, np.inf, np.nan], dtype=np.float32)
    special = _one_plus_erf_model(special, target)
    assert special[0] == 0 and special[1] == 2 and np.isnan(special[2])

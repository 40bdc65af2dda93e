"""Documented float32 approximations of ``tanh`` and ``erf`` for WGSL, and of
``1 + erf(u)`` for kernels (CUDA and WGSL) whose outputs are all f16 or bf16.

WGSL has no ``erf``, and its ``tanh`` may be computed as ``sinh/cosh`` (NaN past
|x| ~ 89 on some drivers, poor relative accuracy near 0), so generated WGSL calls these
helpers instead:

- ``tanh``: ``x + x*s*P(s)`` with ``s = x*x`` below |x| = 0.55 (P of degree 4), else
  ``sign(x) * (1 - 2/(exp(2*min(|x|, 10)) + 1))`` (tanh(10) rounds to 1 in float32);
- ``erf``: ``x + x*R(s)`` up to |x| = 1 (R of degree 6), else
  ``sign(x) * (1 - exp(Q(min(|x|, 4))))`` with Q of degree 9 fitted to ``log(erfc)``
  (erfc(4) is below half an ulp of 1).

Both propagate NaN through the polynomial branch, which a NaN takes because it fails the
branch comparison (an explicit ``x != x`` test is unreliable: WGSL implementations may
assume there are no NaNs and fold it away). Evaluated in float32 with an exact ``exp``
their error is at most 2 ulp (``tests/test_emit_approx.py`` measures it); WGSL's own
``exp`` may add up to ``3 + 2*|arg|`` ulp of its result, which the oracle's tolerance for
these kernels on wgpu allows for. CUDA C uses ``tanhf``/``erff`` (2 ulp, CUDA C
Programming Guide).

The coefficients are least-squares fits on Chebyshev nodes against the float64
evaluator; ``python -m forge.emit._approx`` fits and prints them again.

``1 + erf(u)`` (``one_plus_erf``): GELU's ``1 + erf(u)`` cancels where erf
is near -1, so with ``erff`` the emitted gelu_bf16 was up to 128 ulps of bf16 from the
exact GELU for x < -3 (an absolute error far below the oracle's atol, but a wrong
digit where torch's answer is also wrong). Written ``erfc(-u)`` it does not cancel.
CUDA's ``erfcf`` costs a third of the bandwidth (2004 against 2941 GB/s, gelu_bf16 at
4096 x 32768 on an H200, 2026-12-04, ``bench.probes cuda-half``); Numerical Recipes'
``erfcc`` (Press et al., 2nd ed., section 6.2: ``t * exp(-z^2 + P(t))``, ``t = 1/(1 +
z/2)``, P of degree 9 in Horner form, relative error under 1.2e-7 everywhere in exact
arithmetic) with ``__expf`` is faster than ``erff`` (3016 GB/s) and put every output
within half an ulp of bf16 and f16 from the exact GELU (0.49 and 0.50 ulps, against 128
and 2.2 with ``erff``). ``__expf``'s ``2 + 1.17|arg|`` ulps of float32 at an argument
as large as z^2 makes that helper up to about 50 float32 ulps from exact, which is why
only kernels whose outputs are all f16 or bf16 (2^-9 and 2^-12 relative) get it. WGSL
spells the same erfcc with the target's ``exp`` (gelu_f16 on wgpu 2985 against 2407 GB/s
through the erf helper's sum, 0.50 against 1.69 ulps of f16, 2026-12-04).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "TANH_SMALL",
    "ERF_SMALL",
    "ERF_LARGE",
    "wgsl_helper",
    "float32_model",
    "fit_coefficients",
    "f32_literal",
    "ERFCC",
    "one_plus_erf",
]

TANH_SPLIT, TANH_CLAMP = 0.55, 10.0
ERF_SPLIT, ERF_CLAMP = 1.0, 4.0

TANH_SMALL = (
    -0.3333333134651184,
    0.1333310604095459,
    -0.05390826612710953,
    0.021303756162524223,
    -0.006601401139050722,
)
ERF_SMALL = (
    0.12837916612625122,
    -0.37612617015838623,
    0.11283545941114426,
    -0.026853196322917938,
    0.005188486538827419,
    -0.0008020204259082675,
    7.908991392469034e-05,
)
ERF_LARGE = (
    0.0004004828224424273,
    -1.1306043863296509,
    -0.6310889720916748,
    -0.11090728640556335,
    0.026999417692422867,
    -0.0050210123881697655,
    0.0006733291083946824,
    -6.006742114550434e-05,
    3.095077317993855e-06,
    -6.582346401273753e-08,
)

#: Numerical Recipes' erfcc: ``erfc(z) ~ t * exp(-z^2 + sum(ERFCC[i] * t^i))``, z >= 0
ERFCC = (
    -1.26551223,
    1.00002368,
    0.37409196,
    0.09678418,
    -0.18628806,
    0.27886807,
    -1.13520398,
    1.48851587,
    -0.82215223,
    0.17087277,
)


def one_plus_erf(target: str) -> str:
    """Source of ``fg_one_plus_erf(u)`` in ``target`` ("cuda" or "wgsl"): ``1 + erf(u)``
    as ``erfc(-u)`` through ``ERFCC``, for f32 ``u`` (see the module's docstring; NaN
    gives NaN, -inf 0, +inf 2)."""
    head = (
        "// 1 + erf(u) = erfc(-u), without erf's cancellation near -1: Numerical Recipes'\n"
        "// erfcc (relative error < 1.2e-7), see forge/emit/_approx.py\n"
    )
    if target == "wgsl":  # no fma in WGSL that is sure to be one; exp as the target has it
        return (
            head + "fn fg_one_plus_erf(u: f32) -> f32 {\n"
            "    let z = abs(u);\n"
            "    let t = 1.0f / (0.5f * z + 1.0f);\n"
            f"    let r = t * exp({_horner('t', ERFCC)} - z * z);  // erfc(|u|)\n"
            "    return select(2.0f - r, r, u <= 0.0f);\n"
            "}\n"
        )
    lines = [f"    float p = {f32_literal(ERFCC[-1])};"]
    lines += [f"    p = fmaf(t, p, {f32_literal(c)});" for c in reversed(ERFCC[:-1])]
    return (
        head + "__device__ __forceinline__ float fg_one_plus_erf(float u) {\n"
        "    const float z = fabsf(u);\n"
        "    const float t = __fdividef(1.0f, fmaf(0.5f, z, 1.0f));\n"
        + "\n".join(lines)
        + "\n    const float r = t * __expf(fmaf(-z, z, p));  // erfc(|u|)\n"
        "    return u <= 0.0f ? r : 2.0f - r;\n"
        "}\n"
    )


_F32_MAX = float(np.finfo(np.float32).max)


def f32_literal(value: float) -> str:
    """The shortest decimal that round-trips to the float32 ``value``, with an ``f``.
    Near the largest float32 that decimal (``3.4028235e+38``) lies beyond it, which
    WGSL makes a shader-creation error (Tint refuses it, naga rounds it); there the
    float64 spelling, which reads back as exactly the float32 value, is used."""
    text = np.format_float_scientific(np.float32(value), unique=True, trim="0", exp_digits=2)
    if abs(float(text)) > _F32_MAX:
        text = repr(float(np.float32(value)))
    mantissa, _, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return f"{mantissa}e{exponent}f" if int(exponent) else f"{mantissa}f"


def _horner(var: str, coefficients: tuple[float, ...]) -> str:
    text = f32_literal(coefficients[-1])
    for c in reversed(coefficients[:-1]):
        text = f"{f32_literal(c)} + {var} * ({text})"
    return text


def wgsl_helper(name: str) -> str:
    """WGSL source of helper ``name`` (``tanh``, ``erf`` or ``sigmoid``) for f32."""
    if name == "tanh":
        return (
            "// tanh, float32: odd polynomial below |x| = 0.55, exp form above (see\n"
            "// forge/emit/_approx.py); WGSL's tanh may overflow to NaN for large |x|.\n"
            "fn fg_tanh_f32(x: f32) -> f32 {\n"
            "    let s = x * x;\n"
            f"    let small = x + x * s * ({_horner('s', TANH_SMALL)});\n"
            f"    let e = exp(2.0f * min(abs(x), {f32_literal(TANH_CLAMP)}));\n"
            "    let large = sign(x) * (1.0f - 2.0f / (e + 1.0f));\n"
            "    // NaN fails the comparison and takes the polynomial, which propagates it\n"
            "    // (WGSL implementations may fold x != x to false).\n"
            f"    return select(small, large, abs(x) >= {f32_literal(TANH_SPLIT)});\n"
            "}\n"
        )
    if name == "erf":
        return (
            "// erf, float32 (WGSL has none): x + x*R(x^2) up to |x| = 1, else\n"
            "// 1 - exp(Q(|x|)) with Q fitted to log(erfc); see forge/emit/_approx.py.\n"
            "fn fg_erf_f32(x: f32) -> f32 {\n"
            "    let s = x * x;\n"
            f"    let small = x + x * ({_horner('s', ERF_SMALL)});\n"
            f"    let t = min(abs(x), {f32_literal(ERF_CLAMP)});\n"
            f"    let large = sign(x) * (1.0f - exp({_horner('t', ERF_LARGE)}));\n"
            f"    return select(small, large, abs(x) > {f32_literal(ERF_SPLIT)});\n"
            "}\n"
        )
    if name == "sigmoid":
        return "fn fg_sigmoid_f32(x: f32) -> f32 {\n    return 1.0f / (1.0f + exp(-x));\n}\n"
    raise KeyError(name)


def _horner32(coefficients: tuple[float, ...], t: np.ndarray) -> np.ndarray:
    result = np.full_like(t, np.float32(coefficients[-1]))
    for c in reversed(coefficients[:-1]):
        result = result * t + np.float32(c)
    return result


def float32_model(name: str, x: np.ndarray) -> np.ndarray:
    """The WGSL helper ``name`` evaluated in numpy float32 (numpy's exp standing in for
    the device's), to measure the approximation itself."""
    x = np.asarray(x, np.float32)
    a = np.abs(x)
    with np.errstate(all="ignore"):
        s = x * x
        if name == "tanh":
            small = x + x * s * _horner32(TANH_SMALL, s)
            e = np.exp(np.float32(2) * np.minimum(a, np.float32(TANH_CLAMP)))
            large = np.sign(x) * (np.float32(1) - np.float32(2) / (e + np.float32(1)))
            result = np.where(a >= np.float32(TANH_SPLIT), large, small)
        else:
            small = x + x * _horner32(ERF_SMALL, s)
            t = np.minimum(a, np.float32(ERF_CLAMP))
            large = np.sign(x) * (np.float32(1) - np.exp(_horner32(ERF_LARGE, t)))
            result = np.where(a > np.float32(ERF_SPLIT), large, small)
    return result.astype(np.float32)


def _fit(target, low: float, high: float, degree: int, relative: bool) -> tuple[float, ...]:
    nodes = np.cos(np.linspace(0.0, np.pi, 4000)) * (high - low) / 2 + (high + low) / 2
    values = target(nodes)
    weights = 1.0 / np.abs(values) if relative else np.ones_like(values)
    basis = np.vander(nodes, degree + 1, increasing=True)
    coefficients, *_ = np.linalg.lstsq(basis * weights[:, None], values * weights, rcond=None)
    return tuple(float(np.float32(c)) for c in coefficients)


def fit_coefficients() -> dict[str, tuple[float, ...]]:
    """Fit the three coefficient sets again from the float64 evaluator."""
    from ..ir._erf import erf64, erfc64

    def over_x(function, s):
        x = np.sqrt(s)
        safe = np.where(x > 0, x, 1.0)
        return function(safe) / safe

    def tanh_small(s):
        return (over_x(np.tanh, s) - 1.0) / np.where(s > 0, s, 1.0)

    nodes_floor = 1e-6  # the series' own limit at s -> 0 is met by the fit's smoothness
    return {
        "TANH_SMALL": _fit(
            lambda s: tanh_small(np.maximum(s, nodes_floor)), 0.0, TANH_SPLIT**2, 4, relative=True
        ),
        "ERF_SMALL": _fit(
            lambda s: over_x(erf64, np.maximum(s, nodes_floor)) - 1.0,
            0.0,
            ERF_SPLIT**2,
            6,
            relative=True,
        ),
        "ERF_LARGE": _fit(lambda t: np.log(erfc64(t)), ERF_SPLIT, ERF_CLAMP, 9, relative=False),
    }


if __name__ == "__main__":
    for key, values in fit_coefficients().items():
        print(f"{key} = {values!r}")

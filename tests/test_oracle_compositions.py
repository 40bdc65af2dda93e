"""Expectations of kernels that compose what the oracle bounds one by one, as real
kernels do: long dot products carried through ``exp`` (attention's scores, then their
softmax), and products with zero padding that a kernel skips (a convolution).

A right float32 attention rounds each score by up to ``k * u * sum|q_i k_i|``, and
``exp`` turns that into a relative error of the weights: a split-KV decode on lavapipe
was off by 780 ulp of its output, which a bound of single roundings did not cover. A
right convolution skips the padded taps, where the reference (``np.pad``) multiplies
zeros in and makes 0 * Inf = NaN at an infinite weight.
"""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pytest

import oracle
from forge import BufferSpec, KernelSpec, Schedule, ceil_div
from oracle.pytest_plugin import require_available

HEADS, T, H = 4, 96, 64
SCALE = 1.0 / math.sqrt(H)


def _attention_reference(q, k, v, o):
    qq = q.reshape(HEADS, H).astype(np.float64)
    kk = k.reshape(T, H).astype(np.float64)
    vv = v.reshape(T, H).astype(np.float64)
    scores = np.einsum("nh,th->nt", qq, kk) * SCALE
    w = np.exp(scores - scores.max(axis=1, keepdims=True))
    w /= w.sum(axis=1, keepdims=True)
    o[:] = (w @ vv).reshape(-1)


def _attention(reference=_attention_reference) -> KernelSpec:
    return KernelSpec(
        id="attention_decode",
        entry_point="main",
        sources={},
        buffers=(
            BufferSpec(0, "f32", "read", name="q", count=HEADS * H),
            BufferSpec(1, "f32", "read", name="k", count=T * H),
            BufferSpec(2, "f32", "read", name="v", count=T * H),
            BufferSpec(3, "f32", "read_write", name="o", count=HEADS * H),
        ),
        reference=reference,
        nonfinite_inputs=False,
        domain={"q": (-6.0, 6.0), "k": (-6.0, 6.0), "v": (-50.0, 50.0)},
    )


def _float32_attention(q, k, v, scale=SCALE, keys=T):
    """What a right float32 kernel computes: each score a sequential float32 sum, the
    running maximum, exp and the weighted sum in float32 (one online-softmax pass)."""
    f = np.float32
    q, k, v = q.reshape(HEADS, H), k.reshape(T, H), v.reshape(T, H)
    out = np.empty((HEADS, H), f)
    for n in range(HEADS):
        s = np.zeros(keys, f)
        for i in range(H):  # one term at a time, rounded as the kernel's loop rounds
            s = (s + q[n, i] * k[:keys, i]).astype(f)
        s = (s * f(scale)).astype(f)
        m, total, acc = f(-np.inf), f(0), np.zeros(H, f)
        for t in range(keys):
            m_new = max(m, s[t])
            correction, w = np.exp(f(m - m_new)), np.exp(f(s[t] - m_new))
            total = f(total * correction + w)
            acc = (acc * correction + w * v[t]).astype(f)
            m = m_new
        out[n] = acc / total
    return out.reshape(-1)


def test_a_right_float32_attention_is_inside_the_bound_and_a_wrong_one_is_not():
    """The float32 emulation of a right kernel differs from the float64 reference by
    up to thousands of ulp (the scores' rounding through exp), past the plain tolerance
    at some seeds (7 of 0 to 7 since the drawn inputs hold bf16 and f16 ties, round 57;
    0 to 2 held one before), and by no more than the rounding bound at all; a kernel
    that drops the last key, or scales by 1/H, is outside it."""
    needed = 0
    for seed in (0, 1, 7):
        case = oracle.make_case(_attention(), 1, seed)
        expected = oracle.expected_outputs(case)
        want, bound = expected.outputs["o"], expected.rounding_bound()["o"]
        q, k, v = (case.arrays[n] for n in ("q", "k", "v"))
        right = oracle.compare(_float32_attention(q, k, v), want, bound=bound)
        assert right.passed, right
        needed += not oracle.compare(_float32_attention(q, k, v), want).passed
        for wrong in (
            _float32_attention(q, k, v, keys=T - 1),
            _float32_attention(q, k, v, scale=1.0 / H),
        ):
            assert not oracle.compare(wrong, want, bound=bound).passed
    assert needed, "the bound was not needed here: the test would show nothing"


def test_a_sum_inside_the_reference_moves_as_a_float32_sum_may():
    """``rounding_every_operation`` moves a sum (``einsum``, ``@``, ``.sum()``) by the
    rounding of its terms, not by one rounding of its result, and keeps the arrays it
    returns rounding (``einsum`` returns plain arrays)."""
    from oracle._builtins import RoundingPattern, rounding_every_operation

    x = np.linspace(0.5, 1.5, 1000)
    u = 2.0**-24

    def norm(x):
        return np.sqrt(np.einsum("i,i->", x, x))

    moved = rounding_every_operation(norm, RoundingPattern(None), u)(x)
    squares = float(np.sum(x * x))
    # 1000 terms: min(max(8 * sqrt(1000), 256), 1000) = 256 roundings of the sum's
    # size (its terms are positive), then sqrt's own rounding of its result
    assert moved == pytest.approx(np.sqrt(squares * (1 + 256 * u)) * (1 + u), rel=1e-12)
    by_method = rounding_every_operation(lambda x: x.sum(), RoundingPattern(None), u)(x)
    assert by_method - x.sum() == pytest.approx(256 * u * np.abs(x).sum(), rel=1e-6)
    steps = rounding_every_operation(lambda x: np.cumsum(x), RoundingPattern(None), u)(x)
    # the first partial sums are short: k terms of nearly equal size move by k * u * M
    assert steps[3] - x[:4].sum() == pytest.approx(4 * u * x[:4].sum(), rel=1e-2)


# -- a zero-padded convolution that skips the padded taps --------------------------------

_CONV1D = """
struct Params { len: u32, taps: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = i32(gid.x);
  if (i >= i32(p.len)) { return; }
  let half = i32(p.taps) / 2;
  var acc = 0.0;
  for (var t = 0; t < i32(p.taps); t++) {
    let j = i + t - half;
    if (j < 0 || j >= i32(p.len)) { continue; }  // zero padding: nothing to add
    acc += x[j] * w[t];
  }
  y[i] = acc;
}
"""

_TAPS = 5


def _conv_by_products(x, w, y, p):
    xp = np.pad(x, (_TAPS // 2, _TAPS // 2))
    out = np.zeros(len(x))
    for t in range(_TAPS):
        out += xp[t : t + len(x)] * w[t]
    y[:] = out


def _conv_by_einsum(x, w, y, p):
    xp = np.pad(x, (_TAPS // 2, _TAPS // 2))
    windows = np.lib.stride_tricks.sliding_window_view(xp, _TAPS)
    y[:] = np.einsum("lt,t->l", windows, w)


def _conv(reference, source=_CONV1D) -> KernelSpec:
    return KernelSpec(
        id="conv1d_same_skip_padding",
        entry_point="main",
        sources={"wgsl": textwrap.dedent(source)},
        dims=("L",),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="L"),
            BufferSpec(1, "f32", "read", name="w", count=_TAPS),
            BufferSpec(2, "f32", "read_write", name="y", count="L"),
            BufferSpec.uniform(3, (("len", "u32"), ("taps", "u32"))),
        ),
        reference=reference,
        params=lambda s: {"len": s.L, "taps": _TAPS},
        grid=lambda s, size: (ceil_div(size.L, 64), 1, 1),
        schedules=(Schedule(64),),
        test_sizes=("L=1", "L=2", "L=37"),
    )


def test_the_reference_with_zeros_annihilating_skips_what_padding_meets():
    """``zeros_annihilating``: where an infinite weight meets only padding, the twin is
    the sum of the other taps; where it meets data, it stays infinite (or NaN)."""
    from oracle._builtins import zeros_annihilating

    x = np.array([1.0, 2.0, 3.0], np.float32)
    w = np.array([np.inf, 1.0, 1.0, 1.0, np.nan], np.float32)
    for reference in (_conv_by_products, _conv_by_einsum):
        y = np.zeros(3, np.float32)
        with np.errstate(invalid="ignore"):
            reference(x, w, y, None)
        assert np.isnan(y).all()  # every output meets a padded inf or NaN in numpy
        twin = np.zeros(3, np.float32)
        zeros_annihilating(reference)(x, w, twin, None)
        # y[0]: the inf tap meets padding, the NaN tap x[2]; y[1]: both meet padding;
        # y[2]: the inf tap meets x[0], the NaN tap padding
        assert np.isnan(twin[0]) and twin[1] == 6.0 and np.isposinf(twin[2])
    x = np.array([1.0], np.float32)  # one element: every tap but the middle meets padding
    for reference in (_conv_by_products, _conv_by_einsum):
        twin = np.zeros(1, np.float32)
        zeros_annihilating(reference)(x, w, twin, None)
        assert twin[0] == 1.0


@pytest.mark.parametrize("reference", [_conv_by_products, _conv_by_einsum])
def test_a_convolution_that_skips_its_padding_passes_and_one_that_drops_a_tap_fails(
    request, reference
):
    """With non-finite weights drawn (nothing declared), the kernel that skips the
    padded taps passes against a reference that pads with zeros; one that skips the
    last real tap fails."""
    backend = "wgpu"
    require_available(request.config, backend)
    kernel = _conv(reference)
    for size in kernel.checked_sizes():
        ev = oracle.evaluate(backend, kernel, size=size, samples=0)
        assert ev.passed, ev.report()
    broken = _conv(reference, _CONV1D.replace("j >= i32(p.len))", "j >= i32(p.len) - 1)"))
    ev = oracle.evaluate(backend, broken, size="L=37", samples=0)  # its last tap is real
    assert ev.failing, ev.report()


# -- tensor-core TF32: inputs rounded to 10 mantissa bits before they multiply -----------

_WMMA_TF32 = """
#include <mma.h>
using namespace nvcuda;
extern "C" __global__ void gemm(const float* a, const float* b, float* c, int M, int N, int K) {
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
    for (int t = 0; t < fa.num_elements; t++) fa.x[t] = wmma::__float_to_tf32(fa.x[t]);
}
"""


def _tf32(x: np.ndarray, truncate: bool) -> np.ndarray:
    """float32 ``x`` with 10 mantissa bits: truncated, or rounded to nearest (ties away)."""
    bits = x.astype(np.float32).view(np.uint32)
    if not truncate:
        bits = bits + np.uint32(1 << 12)
    return (bits & np.uint32(0xFFFFE000)).view(np.float32)


def test_tf32_kernels_are_found_by_their_source():
    from oracle._builtins import rounds_to_tf32

    def kernel(source):
        return KernelSpec(
            id="g", entry_point="gemm", sources={"cuda": source}, buffers=_attention().buffers
        )

    assert rounds_to_tf32(kernel(_WMMA_TF32), "cuda")
    asm = 'asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, ...");'
    assert rounds_to_tf32(kernel(asm), "cuda")
    assert not rounds_to_tf32(kernel(_WMMA_TF32), "wgsl")
    plain = _WMMA_TF32.replace("wmma::precision::tf32", "half").replace("wmma::__float_to_tf32", "")
    assert not rounds_to_tf32(kernel(plain), "cuda")
    assert not rounds_to_tf32(kernel("// no .tf32 here: a comment\n" + plain), "cuda")


@pytest.mark.parametrize("truncate", [False, True])
def test_a_tf32_gemm_is_inside_the_bound_of_its_input_rounding_and_a_dropped_tile_is_not(
    truncate,
):
    """A right TF32 GEMM (inputs rounded or truncated to 10 mantissa bits, products
    summed in float32) is off the float32 reference by far more than a float32 sum's
    rounding, and inside the input-rounding bound; one that drops a K tile of 8 is not,
    and neither is a float32 GEMM that reads B in the wrong order."""
    from oracle._builtins import TF32_UNIT

    m = n = 32
    k = 256

    def gemm(a, b, c):
        c[:] = (a.reshape(m, k).astype(np.float64) @ b.reshape(k, n)).reshape(-1)

    kernel = KernelSpec(
        id="tf32_gemm",
        entry_point="gemm",
        sources={},
        buffers=(
            BufferSpec(0, "f32", "read", name="a", count=m * k),
            BufferSpec(1, "f32", "read", name="b", count=k * n),
            BufferSpec(2, "f32", "read_write", name="c", count=m * n),
        ),
        reference=gemm,
        nonfinite_inputs=False,
        domain={"a": (-2.0, 2.0), "b": (0.0, 2.0)},
    )
    case = oracle.make_case(kernel, 1, 0)
    expected = oracle.expected_outputs(case)
    want = expected.outputs["c"]
    summed = expected.rounding_bound()["c"]
    bound = np.maximum(summed, expected.input_rounding_bound(TF32_UNIT)["c"])
    a = case.arrays["a"].reshape(m, k)
    b = case.arrays["b"].reshape(k, n)
    ta, tb = _tf32(a, truncate), _tf32(b, truncate)
    right = np.zeros((m, n), np.float32)
    for kk in range(0, k, 8):  # the K steps of an m16n8k8 loop, summed in float32
        right = (right + ta[:, kk : kk + 8].astype(np.float32) @ tb[kk : kk + 8]).astype(np.float32)
    assert not oracle.compare(right.reshape(-1), want, bound=summed).passed
    assert oracle.compare(right.reshape(-1), want, bound=bound).passed
    dropped = right - (ta[:, 64:72] @ tb[64:72]).astype(np.float32)
    assert not oracle.compare(dropped.reshape(-1), want, bound=bound).passed
    scrambled = (a @ b.T.reshape(k, n)).astype(np.float32)  # B read in the wrong order
    assert not oracle.compare(scrambled.reshape(-1), want, bound=bound).passed

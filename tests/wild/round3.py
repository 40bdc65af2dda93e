"""Round 3 of kernels from the wild, merged into ``tests.wild.CORPUS``: GELU in its erf
form (CUDA ``erff``, WGSL a polynomial erf), a row log-sum-exp with the max trick, rotary
position embeddings (trig of position * theta), int8 quantization with round-half-even,
f32 <-> f16 packing with ``pack2x16float``/``unpack2x16float``, ``frexp`` with two
outputs of different dtypes, an in-place kernel, a workgroup cumulative product, a
batched matmul on a 3-D grid, LayerNorm backward, softmax cross-entropy backward, a CSR
sparse matvec with ``workgroupUniformLoad``, a 3-D 7-point stencil, and CUDA's
``float2`` complex multiply with a struct by value and ``__launch_bounds__``,
``atomicMax`` on ints, ``__half2`` math and a ``static_cast`` template. Entries that
exposed a wrong verdict of the oracle (issue 11) say so beside them.

The round is the project's own: kernels written for the corpus in the style of what
public code does (Abramowitz and Stegun's erf 7.1.26 as people paste it into WGSL, the
max trick, rotary embeddings, quantization, packing, Hillis-Steele scans, a CSR
matvec, a stencil, CUDA's vector types, atomics, ``__half2`` and templates), with no
upstream file they copy; they stay as written. Two entries follow llm.c and were
close to its text; they are now written for this corpus after it: read, not copied
(the project's rule for public code: round 3 first took llm.c's names and layout, and
the two were rewritten on 2026-12-06). What is theirs is kept: the algorithms and
their numerics (the backward pass's two row means, each divided by the row length
after its loop, the input gradient ``(g - mean(g) - xhat * mean(g * xhat)) * rstd``
in that order, the normalised input recomputed in the second loop; the softmax
cross-entropy gradient ``(p - onehot) * dloss`` added into ``dlogits``), the CUDA
kernel's parameter names and order (``dlogits, dlosses, probs, targets``). What is
ours: the WGSL ports as a whole (entry points, bindings, one invocation a row or an
element), the locals' names, the comments, the order of equivalent statements and the
formatting.

- llm.c's ``layernorm_backward`` (karpathy/llm.c at db2454f8, MIT,
  ``train_gpt2.c``), the input gradient only.
- llm.c's ``crossentropy_softmax_backward_kernel1`` (karpathy/llm.c at 14d9cd67, MIT,
  ``dev/cuda/crossentropy_softmax_backward.cu``), with the time axis folded into the
  rows.
"""

from __future__ import annotations

import math

import numpy as np

from forge import BufferSpec, KernelSpec, Schedule, ceil_div

from . import RACE_HIDDEN, Wild

# -- GELU, erf form ------------------------------------------------------------------------

# WGSL has no erf: Abramowitz & Stegun 7.1.26 (|error| <= 1.5e-7), as people paste it.
_GELU_ERF_WGSL = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

fn erf_approx(v: f32) -> f32 {
    let s = sign(v);
    let a = abs(v);
    let t = 1.0 / (1.0 + 0.3275911 * a);
    let poly = ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t
        + 0.254829592) * t;
    return s * (1.0 - poly * exp(-a * a));
}

@compute @workgroup_size(256)
fn gelu(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&y)) { return; }
    let v = x[i];
    y[i] = 0.5 * v * (1.0 + erf_approx(v * 0.70710678));
}
"""
_GELU_ERF_CUDA = r"""
__global__ void gelu(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
    }
}
"""

_erf = np.vectorize(math.erf, otypes=[np.float64])


def _gelu_erf_reference(x):
    x64 = x.astype(np.float64)
    return (0.5 * x64 * (1.0 + _erf(x64 / np.sqrt(2.0)))).astype(np.float32)


GELU_ERF = Wild(
    KernelSpec(
        id="wild_gelu_erf",
        entry_point="gelu",
        sources={"wgsl": _GELU_ERF_WGSL, "cuda": _GELU_ERF_CUDA},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
        ),
        reference=_gelu_erf_reference,
        # the polynomial erf is 1.5e-7 off absolutely: 0.5 |x| 1.5e-7 in y
        tolerance={
            "backend:wgpu": {"f32": {"atol": 2e-6, "rtol": 1e-5}},
            "backend:browser": {"f32": {"atol": 2e-6, "rtol": 1e-5}},
        },
        grid=lambda s, n: (ceil_div(n, 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=(10007, 1, 4099),
    ),
    {
        "sqrt(2) instead of 1/sqrt(2)": ("wgsl", "v * 0.70710678", "v * 1.41421356"),
        "erf loses its sign": ("wgsl", "return s * (1.0 - poly", "return (1.0 - poly"),
        "cuda: half missing": ("cuda", "0.5f * v * (1.0f", "v * (1.0f"),
    },
)

# -- log-sum-exp per row, max trick ----------------------------------------------------------

_LSE = """
struct Params { rows: u32, cols: u32 }
@group(0) @binding(0) var<storage, read> logits: array<f32>;
@group(0) @binding(1) var<storage, read_write> lse: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(64)
fn logsumexp(@builtin(global_invocation_id) gid: vec3<u32>) {
    let r = gid.x;
    if (r >= p.rows) { return; }
    let base = r * p.cols;
    var m = logits[base];
    for (var c = 1u; c < p.cols; c++) { m = max(m, logits[base + c]); }
    var s = 0.0;
    for (var c = 0u; c < p.cols; c++) { s += exp(logits[base + c] - m); }
    lse[r] = m + log(s);
}
"""


def _lse_reference(logits, lse, p):
    m = logits.max(axis=1)
    return m + np.log(np.exp(logits - m[:, None]).sum(axis=1))


LSE = Wild(
    KernelSpec(
        id="wild_logsumexp_rows",
        entry_point="logsumexp",
        sources={"wgsl": _LSE},
        dims=("rows", "cols"),
        buffers=(
            BufferSpec(0, "f32", "read", name="logits", count="rows*cols", shape=("rows", "cols")),
            BufferSpec(1, "f32", "read_write", name="lse", count="rows"),
            BufferSpec.uniform(2, (("rows", "u32"), ("cols", "u32"))),
        ),
        reference=_lse_reference,
        grid=lambda s, size: (ceil_div(size.rows, 64), 1, 1),
        test_sizes=("rows=70,cols=33", "rows=1,cols=1", "rows=8,cols=1000"),
    ),
    {
        "max not added back": ("wgsl", "lse[r] = m + log(s);", "lse[r] = log(s);"),
        "no max trick": (
            "wgsl",
            "s += exp(logits[base + c] - m); }\n    lse[r] = m + log(s);",
            "s += exp(logits[base + c]); }\n    lse[r] = log(s);",
        ),
        "first column skipped in the sum": (
            "wgsl",
            "for (var c = 0u; c < p.cols; c++) { s +=",
            "for (var c = 1u; c < p.cols; c++) { s +=",
        ),
    },
)

# -- rotary position embedding -----------------------------------------------------------------

# x is (T, D) for one head; pair (2i, 2i+1) of token t rotates by t * 10000^(-2i/D).
_ROPE_WGSL = """
struct Params { T: u32, D: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(64)
fn rope(@builtin(global_invocation_id) gid: vec3<u32>) {
    let half = p.D / 2u;
    let idx = gid.x;
    if (idx >= p.T * half) { return; }
    let t = idx / half;
    let i = idx % half;
    let freq = 1.0 / pow(10000.0, f32(2u * i) / f32(p.D));
    let angle = f32(t) * freq;
    let c = cos(angle);
    let s = sin(angle);
    let x0 = x[t * p.D + 2u * i];
    let x1 = x[t * p.D + 2u * i + 1u];
    out[t * p.D + 2u * i] = x0 * c - x1 * s;
    out[t * p.D + 2u * i + 1u] = x0 * s + x1 * c;
}
"""
_ROPE_CUDA = r"""
__global__ void rope(const float* __restrict__ x, float* __restrict__ out, int T, int D) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int half = D / 2;
    if (idx >= T * half) return;
    int t = idx / half, i = idx % half;
    float freq = 1.0f / powf(10000.0f, (float)(2 * i) / (float)D);
    float s, c;
    sincosf((float)t * freq, &s, &c);
    float x0 = x[t * D + 2 * i], x1 = x[t * D + 2 * i + 1];
    out[t * D + 2 * i] = x0 * c - x1 * s;
    out[t * D + 2 * i + 1] = x0 * s + x1 * c;
}
"""


def _rope_reference(x, out, p):
    T, D = x.shape
    freq = 1.0 / 10000.0 ** (np.arange(0, D, 2) / D)
    angle = np.outer(np.arange(T), freq)
    c, s = np.cos(angle), np.sin(angle)
    x0, x1 = x[:, 0::2].astype(np.float64), x[:, 1::2].astype(np.float64)
    y = np.empty((T, D))
    y[:, 0::2] = x0 * c - x1 * s
    y[:, 1::2] = x0 * s + x1 * c
    return y.astype(np.float32)


# Was a false MISMATCH on the browser (SwiftShader) at T=128,D=64 while WGSL's 2**-11
# sin/cos bound was only a flat atol on the outputs, ignoring the factor x; the bound is
# now carried through the reference (Expected.trig_bound).
ROPE = Wild(
    KernelSpec(
        id="wild_rope",
        entry_point="rope",
        sources={"wgsl": _ROPE_WGSL, "cuda": _ROPE_CUDA},
        dims=("T", "D"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="T*D", shape=("T", "D")),
            BufferSpec(1, "f32", "read_write", name="out", count="T*D", shape=("T", "D")),
            BufferSpec.uniform(2, (("T", "u32"), ("D", "u32"))),
        ),
        reference=_rope_reference,
        grid=lambda s, size: (ceil_div(size.T * size.D // 2, 64), 1, 1),
        test_sizes=("T=128,D=64", "T=1,D=2", "T=33,D=16"),
    ),
    {
        "rotation sign swapped": ("wgsl", "x0 * c - x1 * s", "x0 * c + x1 * s"),
        "theta exponent i/D": ("wgsl", "f32(2u * i) / f32(p.D)", "f32(i) / f32(p.D)"),
        "cuda: cos and sin swapped": (
            "cuda",
            "sincosf((float)t * freq, &s, &c)",
            "sincosf((float)t * freq, &c, &s)",
        ),
    },
)

# -- int8 quantization ----------------------------------------------------------------------

# q = clamp(round(x / scale), -128, 127); WGSL's round is half-to-even, as numpy's.
_QUANT_WGSL = """
struct Params { scale: f32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> q: array<i32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(64)
fn quantize(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&q)) { return; }
    q[i] = i32(clamp(round(x[i] / p.scale), -128.0, 127.0));
}
"""
_QUANT_CUDA = r"""
#include <cstdint>
__global__ void quantize(const float* x, int8_t* q, float scale, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int v = __float2int_rn(x[i] / scale);
        q[i] = (int8_t)max(-128, min(127, v));
    }
}
"""


def _quant_reference(x, q, p):
    return np.clip(np.round(x / p["scale"]), -128, 127).astype(q.dtype)


_QUANT_WGSL_SPEC = dict(
    entry_point="quantize",
    reference=_quant_reference,
    defaults={"scale": 0.25},
    nonfinite_inputs=False,  # NaN has no int8
    grid=lambda s, n: (ceil_div(n, 64), 1, 1),
    test_sizes=(10007, 1, 4099),
)

# The round-half-up mutant passed silently while no exact tie (x / scale = k + 0.5) was
# drawn; an eighth of the normal family now lies on a grid of 1/16.
QUANT_I8 = Wild(
    KernelSpec(
        id="wild_quantize_int8",
        sources={"wgsl": _QUANT_WGSL},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "i32", "read_write", name="q"),
            BufferSpec.uniform(2, (("scale", "f32"),)),
        ),
        **_QUANT_WGSL_SPEC,
    ),
    {
        "round half up (floor(v + 0.5))": (
            "wgsl",
            "round(x[i] / p.scale)",
            "floor(x[i] / p.scale + 0.5)",
        ),
        "truncates": ("wgsl", "round(x[i] / p.scale)", "trunc(x[i] / p.scale)"),
        "no clamp": (
            "wgsl",
            "i32(clamp(round(x[i] / p.scale), -128.0, 127.0))",
            "i32(round(x[i] / p.scale))",
        ),
    },
)

# Was a false REFERENCE-ERROR: a saturated 127 at position 3 mod 4 equals the i8 output
# poison byte (0x7F of 0x7FBADBAD); the reference now runs again over a second poison
# before an element is called unwritten.
QUANT_I8_CUDA = Wild(
    KernelSpec(
        id="wild_quantize_int8_cuda",
        sources={"cuda": _QUANT_CUDA},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "i8", "read_write", name="q"),
            BufferSpec.uniform(2, (("scale", "f32"),)),
        ),
        **_QUANT_WGSL_SPEC,
    ),
    {
        "cuda: roundf (half away from zero)": (
            "cuda",
            "__float2int_rn(x[i] / scale)",
            "(int)roundf(x[i] / scale)",
        ),
        "cuda: clamp after the narrowing": (
            "cuda",
            "q[i] = (int8_t)max(-128, min(127, v));",
            "q[i] = max(-128, min(127, (int8_t)v));",
        ),
    },
)

# -- f32 <-> f16 packing ---------------------------------------------------------------------

_PACK_F16 = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> packed: array<u32>;

@compute @workgroup_size(64)
fn pack_f16(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&packed)) { return; }
    packed[i] = pack2x16float(vec2<f32>(x[2u * i], x[2u * i + 1u]));
}
"""


def _pack_reference(x, packed):
    return x.astype(np.float16).view(np.uint32)


# Was a false MISMATCH on the browser: inputs beyond f16's range were drawn, where WGSL's
# pack2x16float is indeterminate; such a kernel is drawn no large values, NaN or Inf.
PACK_F16 = Wild(
    KernelSpec(
        id="wild_pack2x16float",
        entry_point="pack_f16",
        sources={"wgsl": _PACK_F16},
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="2*n"),
            BufferSpec(1, "u32", "read_write", name="packed"),
        ),
        reference=_pack_reference,
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        test_sizes=(10007, 1, 4099),
    ),
    {
        "halves swapped": (
            "wgsl",
            "vec2<f32>(x[2u * i], x[2u * i + 1u])",
            "vec2<f32>(x[2u * i + 1u], x[2u * i])",
        ),
        "only the first half": (
            "wgsl",
            "vec2<f32>(x[2u * i], x[2u * i + 1u])",
            "vec2<f32>(x[2u * i], 0.0)",
        ),
    },
)

_UNPACK_F16 = """
@group(0) @binding(0) var<storage, read> packed: array<u32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(64)
fn unpack_f16(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&packed)) { return; }
    let v = unpack2x16float(packed[i]);
    y[2u * i] = v.x;
    y[2u * i + 1u] = v.y;
}
"""


def _unpack_reference(packed, y):
    return packed.view(np.float16).astype(np.float32)


UNPACK_F16 = Wild(
    KernelSpec(
        id="wild_unpack2x16float",
        entry_point="unpack_f16",
        sources={"wgsl": _UNPACK_F16},
        buffers=(
            BufferSpec(0, "u32", "read", name="packed"),
            BufferSpec(1, "f32", "read_write", name="y", count="2*n"),
        ),
        reference=_unpack_reference,
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        test_sizes=(10007, 1, 4099),
    ),
    {
        "halves swapped": ("wgsl", "y[2u * i] = v.x;", "y[2u * i] = v.y;"),
    },
)

# -- frexp: two outputs of different dtypes ----------------------------------------------------

_FREXP = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> mant: array<f32>;
@group(0) @binding(2) var<storage, read_write> expo: array<i32>;

@compute @workgroup_size(64)
fn split(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&x)) { return; }
    let r = frexp(x[i]);
    mant[i] = r.fract;
    expo[i] = r.exp;
}
"""


def _frexp_reference(x):
    m, e = np.frexp(x)
    return m, e.astype(np.int32)


# The exponent of frexp(+-Inf or NaN) is unspecified (C; SwiftShader gives 129, numpy 0):
# a kernel calling frexp is drawn no NaN or Inf (oracle._builtins). On lavapipe frexp of a
# subnormal is wrong in both outputs: a driver defect, named below.
FREXP = Wild(
    KernelSpec(
        id="wild_frexp_two_outputs",
        entry_point="split",
        sources={"wgsl": _FREXP},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="mant"),
            BufferSpec(2, "i32", "read_write", name="expo"),
        ),
        reference=_frexp_reference,
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        test_sizes=(10007, 1, 4099),
    ),
    {
        "exponent off by one": ("wgsl", "expo[i] = r.exp;", "expo[i] = r.exp - 1;"),
        "mantissa doubled": ("wgsl", "mant[i] = r.fract;", "mant[i] = 2.0 * r.fract;"),
    },
    platform={
        ("wgpu", "llvmpipe", "mant+expo"): (
            "lavapipe (Mesa 22.3.6) splits a subnormal as if it were normal: frexp(1e-42) is "
            "(0.50004, -126), neither (0.714, -139) nor a flushed (0, 0)"
        )
    },
)

# -- in place: one read_write buffer read and written ----------------------------------------

_INPLACE_WGSL = """
struct Params { alpha: f32, n: u32 }
@group(0) @binding(0) var<storage, read_write> data: array<f32>;
@group(0) @binding(1) var<uniform> p: Params;

@compute @workgroup_size(64)
fn leaky_relu_inplace(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.n) { return; }
    let v = data[i];
    data[i] = select(p.alpha * v, v, v > 0.0);
}
"""
_INPLACE_CUDA = r"""
__global__ void leaky_relu_inplace(float* data, float alpha, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = data[i];
        data[i] = v > 0.0f ? v : alpha * v;
    }
}
"""


def _inplace_reference(data, p):
    data[:] = np.where(data > 0, data, p["alpha"] * data)


INPLACE = Wild(
    KernelSpec(
        id="wild_leaky_relu_inplace",
        entry_point="leaky_relu_inplace",
        sources={"wgsl": _INPLACE_WGSL, "cuda": _INPLACE_CUDA},
        buffers=(
            BufferSpec(0, "f32", "read_write", name="data", inout=True),
            BufferSpec.uniform(1, (("alpha", "f32"), ("n", "u32"))),
        ),
        reference=_inplace_reference,
        defaults={"alpha": 0.01},
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        test_sizes=(10007, 1, 4099),
    ),
    {
        "negatives left unscaled": (
            "wgsl",
            "data[i] = select(p.alpha * v, v, v > 0.0);",
            "if (v > 0.0) { data[i] = v; }",
        ),
        "reads its neighbour (in place)": (
            "wgsl",
            "let v = data[i];",
            "let v = data[min(i + 1u, p.n - 1u)];",
        ),
        "cuda: alpha on the positives": (
            "cuda",
            "v > 0.0f ? v : alpha * v",
            "v > 0.0f ? alpha * v : v",
        ),
    },
)

# -- cumulative product in a workgroup (Hillis-Steele, double buffered) ----------------------

_CUMPROD = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
var<workgroup> buf: array<array<f32, 256>, 2>;

@compute @workgroup_size(256)
fn cumprod(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let i = wg.x * 256u + lid.x;
    let t = lid.x;
    var src = 0u;
    buf[0][t] = x[i];
    workgroupBarrier();
    for (var offset = 1u; offset < 256u; offset *= 2u) {
        let dst = 1u - src;
        if (t >= offset) {
            buf[dst][t] = buf[src][t] * buf[src][t - offset];
        } else {
            buf[dst][t] = buf[src][t];
        }
        workgroupBarrier();
        src = dst;
    }
    y[i] = buf[src][t];
}
"""


def _cumprod_reference(x, y):
    return np.cumprod(x, axis=1)


CUMPROD = Wild(
    KernelSpec(
        id="wild_cumprod_rows_256",
        entry_point="cumprod",
        sources={"wgsl": _CUMPROD},
        dims=("rows",),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="rows*256", shape=("rows", 256)),
            BufferSpec(1, "f32", "read_write", name="y", count="rows*256", shape=("rows", 256)),
        ),
        reference=_cumprod_reference,
        domain={"x": (0.5, 2.0)},  # a product of 256 draws stays finite
        grid=lambda s, size: (size.rows, 1, 1),
        schedules=(Schedule(256),),
        test_sizes=("rows=16", "rows=1"),
    ),
    {
        "no barrier": (
            "wgsl",
            "        workgroupBarrier();\n        src = dst;",
            "        src = dst;",
        ),
        "exclusive, not inclusive": (
            "wgsl",
            "y[i] = buf[src][t];",
            "y[i] = select(1.0, buf[src][t - 1u], t > 0u);",
        ),
    },
    invisible_on={("no barrier", "wgsl", "NVIDIA"): RACE_HIDDEN},
)

# -- batched matmul on a 3-D grid ------------------------------------------------------------------

_BMM = """
struct Dims { M: u32, N: u32, K: u32 }
@group(0) @binding(0) var<storage, read> A: array<f32>;
@group(0) @binding(1) var<storage, read> B: array<f32>;
@group(0) @binding(2) var<storage, read_write> C: array<f32>;
@group(0) @binding(3) var<uniform> d: Dims;

@compute @workgroup_size(8, 8, 1)
fn bmm(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = gid.x;
    let m = gid.y;
    let b = gid.z;
    if (m >= d.M || n >= d.N) { return; }
    let a0 = b * d.M * d.K;
    let b0 = b * d.K * d.N;
    var acc = 0.0;
    for (var k = 0u; k < d.K; k++) {
        acc += A[a0 + m * d.K + k] * B[b0 + k * d.N + n];
    }
    C[b * d.M * d.N + m * d.N + n] = acc;
}
"""


def _bmm_reference(A, B, C, d):
    return A @ B


BMM = Wild(
    KernelSpec(
        id="wild_bmm_3d_grid",
        entry_point="bmm",
        sources={"wgsl": _BMM},
        dims=("batch", "M", "N", "K"),
        buffers=(
            BufferSpec(0, "f32", "read", name="A", count="batch*M*K", shape=("batch", "M", "K")),
            BufferSpec(1, "f32", "read", name="B", count="batch*K*N", shape=("batch", "K", "N")),
            BufferSpec(
                2, "f32", "read_write", name="C", count="batch*M*N", shape=("batch", "M", "N")
            ),
            BufferSpec.uniform(3, (("M", "u32"), ("N", "u32"), ("K", "u32")), name="d"),
        ),
        reference=_bmm_reference,
        grid=lambda s, size: (ceil_div(size.N, 8), ceil_div(size.M, 8), size.batch),
        schedules=(Schedule((8, 8)),),
        test_sizes=("batch=3,M=17,N=9,K=33", "batch=1,M=1,N=1,K=1", "batch=4,M=64,N=32,K=128"),
    ),
    {
        "B's batch stride M*K": ("wgsl", "let b0 = b * d.K * d.N;", "let b0 = b * d.M * d.K;"),
        "batch ignored in C": ("wgsl", "C[b * d.M * d.N + m * d.N + n]", "C[m * d.N + n]"),
    },
)

# -- LayerNorm backward (llm.c's layernorm_backward, dx only) -----------------------------------

_LN_BWD = """
struct Params { rows: u32, cols: u32 }
@group(0) @binding(0) var<storage, read> dout: array<f32>;
@group(0) @binding(1) var<storage, read> inp: array<f32>;
@group(0) @binding(2) var<storage, read> weight: array<f32>;
@group(0) @binding(3) var<storage, read> mean: array<f32>;
@group(0) @binding(4) var<storage, read> rstd: array<f32>;
@group(0) @binding(5) var<storage, read_write> dinp: array<f32>;
@group(0) @binding(6) var<uniform> p: Params;

@compute @workgroup_size(64)
fn layernorm_backward(@builtin(global_invocation_id) gid: vec3<u32>) {
    let row = gid.x;
    if (row >= p.rows) { return; }
    let first = row * p.cols;
    let mu = mean[row];
    let inv_std = rstd[row];
    // two means over the row: of g = weight * dout, and of g times the normalised input
    var g_mean = 0.0;
    var gx_mean = 0.0;
    for (var c = 0u; c < p.cols; c++) {
        let xhat = (inp[first + c] - mu) * inv_std;
        let g = weight[c] * dout[first + c];
        g_mean += g;
        gx_mean += g * xhat;
    }
    g_mean = g_mean / f32(p.cols);
    gx_mean = gx_mean / f32(p.cols);
    // then dx = (g - mean(g) - xhat * mean(g * xhat)) * rstd, element by element
    for (var c = 0u; c < p.cols; c++) {
        let xhat = (inp[first + c] - mu) * inv_std;
        let g = weight[c] * dout[first + c];
        dinp[first + c] = (g - g_mean - xhat * gx_mean) * inv_std;
    }
}
"""


def _ln_bwd_reference(dout, inp, weight, mean, rstd, dinp, p):
    norm = (inp - mean[:, None]) * rstd[:, None]
    dnorm = weight * dout
    dnorm_mean = dnorm.mean(axis=1, keepdims=True)
    dnorm_norm_mean = (dnorm * norm).mean(axis=1, keepdims=True)
    return (dnorm - dnorm_mean - norm * dnorm_norm_mean) * rstd[:, None]


# Passes rightly, but at 8x768 every expected value of the 'all' set is NaN (weight holds
# a NaN), so the reported max ulp is 0: a further input set that passes shows no figures.
LN_BACKWARD = Wild(
    KernelSpec(
        id="wild_layernorm_backward_dx",
        entry_point="layernorm_backward",
        sources={"wgsl": _LN_BWD},
        dims=("rows", "cols"),
        buffers=(
            BufferSpec(0, "f32", "read", name="dout", count="rows*cols", shape=("rows", "cols")),
            BufferSpec(1, "f32", "read", name="inp", count="rows*cols", shape=("rows", "cols")),
            BufferSpec(2, "f32", "read", name="weight", count="cols"),
            BufferSpec(3, "f32", "read", name="mean", count="rows"),
            BufferSpec(4, "f32", "read", name="rstd", count="rows"),
            BufferSpec(
                5, "f32", "read_write", name="dinp", count="rows*cols", shape=("rows", "cols")
            ),
            BufferSpec.uniform(6, (("rows", "u32"), ("cols", "u32"))),
        ),
        reference=_ln_bwd_reference,
        domain={"rstd": (0.1, 10.0)},
        grid=lambda s, size: (ceil_div(size.rows, 64), 1, 1),
        test_sizes=("rows=70,cols=33", "rows=1,cols=1", "rows=8,cols=768"),
    ),
    {
        "norm term dropped": (
            "wgsl",
            "g - g_mean - xhat * gx_mean",
            "g - g_mean",
        ),
        "sum, not mean": ("wgsl", "g_mean = g_mean / f32(p.cols);", ""),
        "rstd not applied at the end": (
            "wgsl",
            "(g - g_mean - xhat * gx_mean) * inv_std;",
            "(g - g_mean - xhat * gx_mean);",
        ),
    },
)

# -- softmax cross-entropy backward (llm.c's crossentropy_softmax_backward) -------------------

_CE_BWD_WGSL = """
struct Params { B: u32, V: u32 }
@group(0) @binding(0) var<storage, read> probs: array<f32>;
@group(0) @binding(1) var<storage, read> targets: array<i32>;
@group(0) @binding(2) var<storage, read> dlosses: array<f32>;
@group(0) @binding(3) var<storage, read_write> dlogits: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

@compute @workgroup_size(64)
fn ce_backward(@builtin(global_invocation_id) gid: vec3<u32>) {
    let idx = gid.x;
    if (idx >= p.B * p.V) { return; }
    let b = idx / p.V;
    let v = idx % p.V;
    // d(loss)/d(logit) of softmax + cross-entropy: p - onehot(target), times dloss
    let one_hot = select(0.0, 1.0, i32(v) == targets[b]);
    dlogits[idx] += (probs[idx] - one_hot) * dlosses[b];
}
"""
_CE_BWD_CUDA = r"""
__global__ void ce_backward(float* dlogits, const float* dlosses, const float* probs,
                            const int* targets, int B, int V) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * V) return;
    const int b = idx / V;  // the row; idx - b * V is its class
    const float one_hot = (idx - b * V == targets[b]) ? 1.0f : 0.0f;
    dlogits[idx] += (probs[idx] - one_hot) * dlosses[b];
}
"""


def _ce_targets(rng, count, size):
    return rng.integers(0, size.V, count, dtype=np.int32)


def _ce_bwd_reference(probs, targets, dlosses, dlogits, p):
    onehot = np.zeros_like(probs)
    onehot[np.arange(len(targets)), targets] = 1.0
    dlogits += (probs - onehot) * dlosses[:, None]


CE_BACKWARD = Wild(
    KernelSpec(
        id="wild_crossentropy_backward",
        entry_point="ce_backward",
        sources={"wgsl": _CE_BWD_WGSL, "cuda": _CE_BWD_CUDA},
        dims=("B", "V"),
        buffers=(
            BufferSpec(
                0, "f32", "read", name="probs", count="B*V", shape=("B", "V"), fill=(0.0, 1.0)
            ),
            BufferSpec(1, "i32", "read", name="targets", count="B", fill=_ce_targets),
            BufferSpec(2, "f32", "read", name="dlosses", count="B"),
            BufferSpec(
                3, "f32", "read_write", name="dlogits", count="B*V", shape=("B", "V"), inout=True
            ),
            BufferSpec.uniform(4, (("B", "u32"), ("V", "u32"))),
        ),
        reference=_ce_bwd_reference,
        grid=lambda s, size: (ceil_div(size.B * size.V, 64), 1, 1),
        test_sizes=("B=8,V=1000", "B=1,V=1", "B=33,V=65"),
    ),
    {
        "indicator one column late": ("wgsl", "i32(v) == targets[b]", "i32(v) == targets[b] + 1"),
        "overwrites instead of accumulating": ("wgsl", "dlogits[idx] +=", "dlogits[idx] ="),
        "cuda: dloss dropped": (
            "cuda",
            "(probs[idx] - one_hot) * dlosses[b]",
            "(probs[idx] - one_hot)",
        ),
    },
)

# -- CSR sparse matvec, one workgroup per row, workgroupUniformLoad --------------------------

_SPMV = """
@group(0) @binding(0) var<storage, read> row_ptr: array<u32>;
@group(0) @binding(1) var<storage, read> col_idx: array<u32>;
@group(0) @binding(2) var<storage, read> values: array<f32>;
@group(0) @binding(3) var<storage, read> x: array<f32>;
@group(0) @binding(4) var<storage, read_write> y: array<f32>;

var<workgroup> row_len: u32;
var<workgroup> partial: array<f32, 64>;

@compute @workgroup_size(64)
fn spmv(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let row = wg.x;
    let start = row_ptr[row];
    if (lid.x == 0u) { row_len = row_ptr[row + 1u] - start; }
    let len = workgroupUniformLoad(&row_len);
    var sum = 0.0;
    for (var j = lid.x; j < len; j += 64u) {
        sum += values[start + j] * x[col_idx[start + j]];
    }
    partial[lid.x] = sum;
    workgroupBarrier();
    for (var s = 32u; s > 0u; s >>= 1u) {
        if (lid.x < s) { partial[lid.x] += partial[lid.x + s]; }
        workgroupBarrier();
    }
    if (lid.x == 0u) { y[row] = partial[0]; }
}
"""


def _row_lengths(rows):
    return [(r * 37) % 101 for r in range(rows)]  # 0..100 nonzeros, some rows empty


def _nnz(size):
    return max(1, sum(_row_lengths(size.rows)))


def _row_ptr(rng, count, size):
    return np.concatenate([[0], np.cumsum(_row_lengths(size.rows))]).astype(np.uint32)


def _col_idx(rng, count, size):
    return rng.integers(0, size.cols, count, dtype=np.uint32)


def _spmv_reference(row_ptr, col_idx, values, x, y):
    for r in range(len(y)):
        s, e = row_ptr[r], row_ptr[r + 1]
        y[r] = np.dot(values[s:e], x[col_idx[s:e]])


SPMV = Wild(
    KernelSpec(
        id="wild_csr_spmv_uniform_load",
        entry_point="spmv",
        sources={"wgsl": _SPMV},
        dims=("rows", "cols"),
        buffers=(
            BufferSpec(0, "u32", "read", name="row_ptr", count="rows+1", fill=_row_ptr),
            BufferSpec(1, "u32", "read", name="col_idx", count=_nnz, fill=_col_idx),
            BufferSpec(2, "f32", "read", name="values", count=_nnz),
            BufferSpec(3, "f32", "read", name="x", count="cols"),
            BufferSpec(4, "f32", "read_write", name="y", count="rows"),
        ),
        reference=_spmv_reference,
        grid=lambda s, size: (size.rows, 1, 1),
        test_sizes=("rows=50,cols=300", "rows=1,cols=1", "rows=200,cols=64"),
    ),
    {
        "last nonzero of each row dropped": (
            "wgsl",
            "row_len = row_ptr[row + 1u] - start;",
            "row_len = max(row_ptr[row + 1u] - start, 1u) - 1u;",
        ),
        "tree stops one level short": ("wgsl", "s > 0u; s >>= 1u", "s > 1u; s >>= 1u"),
    },
)

# -- 3-D 7-point Laplacian over a volume, zero outside ------------------------------------------

_LAPLACE3D = """
struct Vol { D: u32, H: u32, W: u32 }
@group(0) @binding(0) var<storage, read> u: array<f32>;
@group(0) @binding(1) var<storage, read_write> lap: array<f32>;
@group(0) @binding(2) var<uniform> vol: Vol;

fn at(z: i32, y: i32, x: i32) -> f32 {
    if (z < 0 || y < 0 || x < 0 || z >= i32(vol.D) || y >= i32(vol.H) || x >= i32(vol.W)) {
        return 0.0;
    }
    return u[(u32(z) * vol.H + u32(y)) * vol.W + u32(x)];
}

@compute @workgroup_size(4, 4, 4)
fn laplace(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= vol.W || gid.y >= vol.H || gid.z >= vol.D) { return; }
    let x = i32(gid.x);
    let y = i32(gid.y);
    let z = i32(gid.z);
    let s = at(z - 1, y, x) + at(z + 1, y, x) + at(z, y - 1, x) + at(z, y + 1, x)
        + at(z, y, x - 1) + at(z, y, x + 1);
    lap[(gid.z * vol.H + gid.y) * vol.W + gid.x] = s - 6.0 * at(z, y, x);
}
"""


def _laplace_reference(u, lap, vol):
    p = np.pad(u.astype(np.float64), 1)
    c = p[1:-1, 1:-1, 1:-1]
    s = p[:-2, 1:-1, 1:-1] + p[2:, 1:-1, 1:-1] + p[1:-1, :-2, 1:-1] + p[1:-1, 2:, 1:-1]
    s = s + p[1:-1, 1:-1, :-2] + p[1:-1, 1:-1, 2:]
    return (s - 6.0 * c).astype(np.float32)


LAPLACE3D = Wild(
    KernelSpec(
        id="wild_laplace_3d_volume",
        entry_point="laplace",
        sources={"wgsl": _LAPLACE3D},
        dims=("D", "H", "W"),
        buffers=(
            BufferSpec(0, "f32", "read", name="u", count="D*H*W", shape=("D", "H", "W")),
            BufferSpec(1, "f32", "read_write", name="lap", count="D*H*W", shape=("D", "H", "W")),
            BufferSpec.uniform(2, (("D", "u32"), ("H", "u32"), ("W", "u32")), name="vol"),
        ),
        reference=_laplace_reference,
        grid=lambda s, size: (ceil_div(size.W, 4), ceil_div(size.H, 4), ceil_div(size.D, 4)),
        schedules=(Schedule((4, 4, 4)),),
        test_sizes=("D=5,H=6,W=7", "D=1,H=1,W=1", "D=16,H=9,W=20"),
    ),
    {
        "z neighbour wraps instead of zero": ("wgsl", "z >= i32(vol.D) ||", ""),
        "H and W swapped in the index": (
            "wgsl",
            "lap[(gid.z * vol.H + gid.y) * vol.W + gid.x]",
            "lap[(gid.z * vol.W + gid.y) * vol.H + gid.x]",
        ),
    },
)

# -- CUDA: float2 complex multiply, a struct by value, __launch_bounds__ ------------------------

_CMUL_CUDA = r"""
struct CmulParams {
    float scale;
    int n;
};

__global__ void __launch_bounds__(256) cmul(const float2* __restrict__ a,
                                            const float2* __restrict__ b,
                                            float2* __restrict__ c, CmulParams params) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= params.n) return;
    float2 x = a[i], y = b[i];
    c[i] = make_float2(params.scale * (x.x * y.x - x.y * y.y),
                       params.scale * (x.x * y.y + x.y * y.x));
}
"""


def _cmul_reference(a, b, c, params):
    z = (a[:, 0] + 1j * a[:, 1].astype(np.float64)) * (b[:, 0] + 1j * b[:, 1].astype(np.float64))
    z = z * params["scale"]
    return np.stack([z.real, z.imag], axis=1).astype(np.float32)


CMUL = Wild(
    KernelSpec(
        id="wild_cuda_complex_mul_struct",
        entry_point="cmul",
        sources={"cuda": _CMUL_CUDA},
        buffers=(
            BufferSpec(0, "vec2<f32>", "read", name="a"),
            BufferSpec(1, "vec2<f32>", "read", name="b"),
            BufferSpec(2, "vec2<f32>", "read_write", name="c"),
            BufferSpec.uniform(3, (("scale", "f32"), ("n", "i32")), name="params"),
        ),
        reference=_cmul_reference,
        defaults={"scale": 0.5},
        grid=lambda s, n: (ceil_div(n, 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=(10007, 1, 4099),
    ),
    {
        "cuda: conjugate product": ("cuda", "x.x * y.x - x.y * y.y", "x.x * y.x + x.y * y.y"),
    },
)

# -- CUDA: atomicMax on ints, a segment max ----------------------------------------------------

_SEGMAX_CUDA = r"""
__global__ void segment_max(const int* __restrict__ values, const int* __restrict__ seg,
                            int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicMax(&out[seg[i]], values[i]);
}
"""


def _seg_ids(rng, count, size):
    return rng.integers(0, 64, count, dtype=np.int32)


def _segmax_reference(values, seg, out):
    np.maximum.at(out, seg, values)


SEGMAX = Wild(
    KernelSpec(
        id="wild_cuda_atomicmax_segments",
        entry_point="segment_max",
        sources={"cuda": _SEGMAX_CUDA},
        buffers=(
            BufferSpec(0, "i32", "read", name="values"),
            BufferSpec(1, "i32", "read", name="seg", fill=_seg_ids),
            BufferSpec(
                2, "i32", "read_write", name="out", count=64, initial=np.iinfo(np.int32).min
            ),
        ),
        reference=_segmax_reference,
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        test_sizes=(10007, 1, 4099),
    ),
    {
        "cuda: atomicMin": ("cuda", "atomicMax(&out[seg[i]]", "atomicMin(&out[seg[i]]"),
        "cuda: plain store race": (
            "cuda",
            "atomicMax(&out[seg[i]], values[i]);",
            "out[seg[i]] = max(out[seg[i]], values[i]);",
        ),
    },
)

# -- CUDA: __half2 arithmetic ---------------------------------------------------------------------

_H2_CUDA = r"""
#include <cuda_fp16.h>
__global__ void h2_axpy(const __half2* __restrict__ x, __half2* __restrict__ y, float a,
                        int n2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n2) y[i] = __hfma2(__float2half2_rn(a), x[i], y[i]);
}
"""


def _h2_reference(x, y, p):
    return (p["a"] * x.astype(np.float64) + y.astype(np.float64)).astype(np.float16)


H2_AXPY = Wild(
    KernelSpec(
        id="wild_cuda_half2_axpy",
        entry_point="h2_axpy",
        sources={"cuda": _H2_CUDA},
        dims=("n2",),
        buffers=(
            BufferSpec(0, "f16", "read", name="x", count="2*n2", fill=(-2.0, 2.0)),
            BufferSpec(
                1, "f16", "read_write", name="y", count="2*n2", inout=True, fill=(-2.0, 2.0)
            ),
            BufferSpec.uniform(2, (("a", "f32"), ("n2", "i32"))),
        ),
        reference=_h2_reference,
        defaults={"a": 0.75},
        grid=lambda s, size: (ceil_div(size.n2, 64), 1, 1),
        test_sizes=("n2=5003", "n2=1", "n2=2048"),
    ),
    {
        "cuda: a applied to y": (
            "cuda",
            "__hfma2(__float2half2_rn(a), x[i], y[i])",
            "__hfma2(__float2half2_rn(a), y[i], x[i])",
        ),
    },
)

# -- CUDA: a template over the input type, const __restrict__, static_cast ----------------------

_CAST_CUDA = r"""
template <typename T>
__global__ void scale_to_float(const T* __restrict__ in, float* __restrict__ out, float s,
                               int n) {
    const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n) out[i] = static_cast<float>(in[i]) * s;
}
template __global__ void scale_to_float<int>(const int*, float*, float, int);
"""


def _cast_reference(inp, out, p):
    return (inp.astype(np.float32) * np.float32(p["s"])).astype(np.float32)


CAST_TEMPLATE = Wild(
    KernelSpec(
        id="wild_cuda_template_static_cast",
        entry_point="scale_to_float<int>",
        sources={"cuda": _CAST_CUDA},
        buffers=(
            BufferSpec(0, "i32", "read", name="inp"),
            BufferSpec(1, "f32", "read_write", name="out"),
            BufferSpec.uniform(2, (("s", "f32"),)),
        ),
        reference=_cast_reference,
        defaults={"s": 1.0 / 128.0},
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        test_sizes=(10007, 1, 4099),
    ),
    {
        "cuda: integer divide before the cast": (
            "cuda",
            "static_cast<float>(in[i]) * s",
            "static_cast<float>(in[i] / 128)",
        ),
    },
)

# -- row sums with a float64 reference, and an exclusive f32 scan -----------------------------

# A workgroup tree reduction per row; the reference accumulates in float64 and casts, as
# people write it to get "the exact answer".
_ROWSUM = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> sums: array<f32>;
var<workgroup> part: array<f32, 128>;

@compute @workgroup_size(128)
fn row_sum(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let cols = {{cols}}u;
    let base = wg.x * cols;
    var acc = 0.0;
    for (var c = lid.x; c < cols; c += 128u) { acc += x[base + c]; }
    part[lid.x] = acc;
    workgroupBarrier();
    for (var s = 64u; s > 0u; s >>= 1u) {
        if (lid.x < s) { part[lid.x] += part[lid.x + s]; }
        workgroupBarrier();
    }
    if (lid.x == 0u) { sums[wg.x] = part[0]; }
}
"""


def _rowsum_reference(x, sums):
    return np.sum(x, axis=1, dtype=np.float64).astype(np.float32)


ROWSUM_F64 = Wild(
    KernelSpec(
        id="wild_row_sum_f64_reference",
        entry_point="row_sum",
        sources={"wgsl": _ROWSUM},
        dims=("rows", "cols"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="rows*cols", shape=("rows", "cols")),
            BufferSpec(1, "f32", "read_write", name="sums", count="rows"),
        ),
        reference=_rowsum_reference,
        grid=lambda s, size: (size.rows, 1, 1),
        schedules=(Schedule(128),),
        test_sizes=("rows=70,cols=33", "rows=1,cols=1", "rows=8,cols=8192"),
    ),
    {
        "stride of one": ("wgsl", "c += 128u", "c += 1u"),
        "tree starts at 32": ("wgsl", "var s = 64u;", "var s = 32u;"),
    },
)

# Exclusive prefix sum of f32 in one workgroup of 256 (Hillis-Steele, double buffered),
# against numpy's cumsum shifted by one.
_XSCAN = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
var<workgroup> buf: array<array<f32, 256>, 2>;

@compute @workgroup_size(256)
fn exclusive_scan(@builtin(workgroup_id) wg: vec3<u32>,
                  @builtin(local_invocation_id) lid: vec3<u32>) {
    let i = wg.x * 256u + lid.x;
    let t = lid.x;
    var src = 0u;
    buf[0][t] = select(0.0, x[i - 1u], t > 0u);
    workgroupBarrier();
    for (var offset = 1u; offset < 256u; offset *= 2u) {
        let dst = 1u - src;
        if (t >= offset) {
            buf[dst][t] = buf[src][t] + buf[src][t - offset];
        } else {
            buf[dst][t] = buf[src][t];
        }
        workgroupBarrier();
        src = dst;
    }
    y[i] = buf[src][t];
}
"""


def _xscan_reference(x, y):
    out = np.zeros_like(x)
    out[:, 1:] = np.cumsum(x, axis=1)[:, :-1]
    return out


XSCAN = Wild(
    KernelSpec(
        id="wild_exclusive_scan_f32_256",
        entry_point="exclusive_scan",
        sources={"wgsl": _XSCAN},
        dims=("rows",),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="rows*256", shape=("rows", 256)),
            BufferSpec(1, "f32", "read_write", name="y", count="rows*256", shape=("rows", 256)),
        ),
        reference=_xscan_reference,
        grid=lambda s, size: (size.rows, 1, 1),
        schedules=(Schedule(256),),
        test_sizes=("rows=16", "rows=1"),
    ),
    {
        "inclusive, not exclusive": ("wgsl", "select(0.0, x[i - 1u], t > 0u)", "x[i]"),
        "offset doubles too early": (
            "wgsl",
            "offset < 256u; offset *= 2u",
            "offset < 128u; offset *= 2u",
        ),
    },
)

# Softplus, the numerically stable form people write: max(x, 0) + log(1 + exp(-|x|)).
_SOFTPLUS = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(64)
fn softplus(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&y)) { return; }
    let v = x[i];
    y[i] = max(v, 0.0) + log(1.0 + exp(-abs(v)));
}
"""


def _softplus_reference(x):
    return np.logaddexp(np.float32(0), x)


SOFTPLUS = Wild(
    KernelSpec(
        id="wild_softplus_stable",
        entry_point="softplus",
        sources={"wgsl": _SOFTPLUS},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
        ),
        reference=_softplus_reference,
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        test_sizes=(10007, 1, 4099),
    ),
    {
        "naive log(1 + exp(x))": (
            "wgsl",
            "max(v, 0.0) + log(1.0 + exp(-abs(v)))",
            "log(1.0 + exp(v))",
        ),
        "abs dropped": ("wgsl", "exp(-abs(v))", "exp(-v)"),
    },
)

ROUND3 = {
    w.kernel.id: w
    for w in (
        GELU_ERF,
        LSE,
        ROPE,
        QUANT_I8,
        QUANT_I8_CUDA,
        PACK_F16,
        UNPACK_F16,
        FREXP,
        INPLACE,
        CUMPROD,
        BMM,
        LN_BACKWARD,
        CE_BACKWARD,
        SPMV,
        LAPLACE3D,
        CMUL,
        SEGMAX,
        H2_AXPY,
        CAST_TEMPLATE,
        ROWSUM_F64,
        XSCAN,
        SOFTPLUS,
    )
}

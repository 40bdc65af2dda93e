"""Round 6 of kernels from the wild, merged into ``tests.wild.CORPUS``: numerics. Each
kernel is written the way a public project writes it (a GELU in its sigmoid form, a
log-cumsum-exp with a running max, a Welford variance merged across a workgroup, a
cosine similarity and an L2 normalisation with ``inverseSqrt``, a sigmoid, a Kahan row
sum, Cephes' ``expf`` in Horner form, a radix-2 FFT stage, scaled attention scores, a
3x3 inverse by the adjugate, a bilinear resize and a distance matrix through
``|a|^2 + |b|^2 - 2ab``), with a numpy reference written the natural way and mutants
whose error is beyond what a correct float32 computation makes.

What they found, fixed since with a test: the FFT stage's twiddles from
``np.exp(-1j * theta)`` got no WGSL sin/cos bound (a false alarm on SwiftShader), and the
bilinear resize's sample coordinate, rounded in float32 by the kernel and derived from no
input, had no bound either (a false alarm on lavapipe and SwiftShader: now every
operation of the reference is rounded at random, Monte Carlo arithmetic). Two mutants the
oracle cannot see, each said in ``Wild.invisible``: a sigmoid cancelling by one ulp of 1.0
(inside the default f32 atol) and a distance matrix without its clamp at zero (NaN only
for coinciding points).

Where the kernels come from: the project's own, written for this corpus in the way
public code writes these computations (read on 2026-12-06: no kernel copies an upstream
file, and none was rewritten but the expf). The published pieces they keep are numbers
and algorithms, cited where they are used: the tanh GELU's 0.044715 and sqrt(2 / pi)
(Hendrycks and Gimpel), Chan, Golub and LeVeque's pairwise merge of Welford's running
moments, Kahan's compensated sum, torch's epsilons (1e-8 for cosine_similarity, 1e-12
for normalize), the parabolic sine of a game-engine forum post (a mutant's helper, said
in its comment), Quake III's 0x5f3759df (a mutant's helper) and Cephes' expf: Cody and
Waite's split of ln 2 (0.693359375 and -2.12194440e-4), LOG2E and the five coefficients
of its polynomial. The expf, whose first text kept the names of the SSE port of Cephes
(``fx``), was rewritten on 2026-12-06 with the project's names and comments; its
constants, clamp, rounding and order of operations are Cephes', unchanged.
"""

from __future__ import annotations

import numpy as np

from forge import BufferSpec, KernelSpec, Schedule, ceil_div

from . import Wild

# What NVIDIA's Vulkan driver made of an f16 round trip (H200, 2026-12-01).
_F16_ROUND_TRIP_KEPT = (
    "unpack2x16float(pack2x16float(v)) kept more than f16's precision on NVIDIA's Vulkan "
    "driver (580.159.04, H200, 2026-12-01): the mutant passed there; lavapipe and "
    "SwiftShader round to f16 as WGSL says, and it fails on both"
)

# -- GELU, tanh approximation in its sigmoid form (x * sigmoid(2z)) -------------------------
# The form fast GELU kernels use: 0.5 x (1 + tanh(z)) == x / (1 + exp(-2z)).

_GELU_SIGMOID = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

const K0: f32 = 1.5957691216057308;  // 2 * sqrt(2 / pi)
const K1: f32 = 0.044715;

@compute @workgroup_size(256)
fn gelu_fast(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&y)) { return; }
    let v = x[i];
    y[i] = v / (1.0 + exp(-K0 * (v + K1 * v * v * v)));
}
"""


def _gelu_tanh_reference(x):
    with np.errstate(over="ignore", invalid="ignore"):
        inner = np.float32(0.7978845608028654) * (x + np.float32(0.044715) * x**3)
        return np.float32(0.5) * x * (np.float32(1.0) + np.tanh(inner))


GELU_SIGMOID = Wild(
    KernelSpec(
        id="wild_r6_gelu_sigmoid_form",
        entry_point="gelu_fast",
        sources={"wgsl": _GELU_SIGMOID},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
        ),
        reference=_gelu_tanh_reference,
        grid=lambda s, n: (ceil_div(n, 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=(10007, 1, 256),
    ),
    {
        "sqrt(2/pi) of the tanh form in the sigmoid form": (
            "wgsl",
            "K0: f32 = 1.5957691216057308",
            "K0: f32 = 0.7978845608028654",
        ),
        "cubic coefficient with three digits": ("wgsl", "K1: f32 = 0.044715;", "K1: f32 = 0.0447;"),
        "cubic term's sign": ("wgsl", "(v + K1 * v * v * v)", "(v - K1 * v * v * v)"),
        "2*sqrt(2/pi) with three digits": (
            "wgsl",
            "K0: f32 = 1.5957691216057308",
            "K0: f32 = 1.596",
        ),
    },
)

# -- log-cumsum-exp along rows with a running max (torch.logcumsumexp) ----------------------

_LOGCUMSUMEXP = """
struct Params { rows: u32, cols: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(64)
fn logcumsumexp(@builtin(global_invocation_id) gid: vec3<u32>) {
    let r = gid.x;
    if (r >= p.rows) { return; }
    let base = r * p.cols;
    var m = -3.402823466e+38;  // -FLT_MAX
    var s = 0.0;
    for (var c = 0u; c < p.cols; c++) {
        let v = x[base + c];
        if (v > m) {
            s = s * exp(m - v) + 1.0;
            m = v;
        } else {
            s = s + exp(v - m);
        }
        y[base + c] = m + log(s);
    }
}
"""


def _logcumsumexp_reference(x):
    return np.logaddexp.accumulate(x.astype(np.float64), axis=1).astype(np.float32)


LOGCUMSUMEXP = Wild(
    KernelSpec(
        id="wild_r6_logcumsumexp_rows",
        entry_point="logcumsumexp",
        sources={"wgsl": _LOGCUMSUMEXP},
        dims=("rows", "cols"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="rows*cols", shape=("rows", "cols")),
            BufferSpec(1, "f32", "read_write", name="y", count="rows*cols", shape=("rows", "cols")),
            BufferSpec.uniform(2, (("rows", "u32"), ("cols", "u32"))),
        ),
        reference=_logcumsumexp_reference,
        grid=lambda s, size: (ceil_div(size.rows, 64), 1, 1),
        nonfinite_inputs=False,  # logits
        test_sizes=("rows=70,cols=33", "rows=1,cols=1", "rows=8,cols=1000"),
    ),
    {
        "old sum rescaled by exp(v - m)": (
            "wgsl",
            "s = s * exp(m - v) + 1.0;",
            "s = s * exp(v - m) + 1.0;",
        ),
        "old sum dropped at a new max": ("wgsl", "s = s * exp(m - v) + 1.0;", "s = 1.0;"),
        "no max subtraction": (
            "wgsl",
            "y[base + c] = m + log(s);",
            "y[base + c] = log(s * exp(m));",
        ),
    },
)

# -- Welford mean and variance of a whole buffer, merged across a workgroup (Chan et al.) ---

_WELFORD = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> stats: array<f32>;  // mean, variance

var<workgroup> wn: array<f32, 256>;
var<workgroup> wmean: array<f32, 256>;
var<workgroup> wm2: array<f32, 256>;

@compute @workgroup_size(256)
fn welford(@builtin(local_invocation_id) lid: vec3<u32>) {
    let t = lid.x;
    var n = 0.0;
    var mean = 0.0;
    var m2 = 0.0;
    for (var i = t; i < arrayLength(&x); i += 256u) {
        let v = x[i];
        n = n + 1.0;
        let delta = v - mean;
        mean = mean + delta / n;
        m2 = m2 + delta * (v - mean);
    }
    wn[t] = n;
    wmean[t] = mean;
    wm2[t] = m2;
    workgroupBarrier();
    for (var stride = 128u; stride > 0u; stride >>= 1u) {
        if (t < stride) {
            let na = wn[t];
            let nb = wn[t + stride];
            let nab = na + nb;
            if (nb > 0.0) {
                let delta = wmean[t + stride] - wmean[t];
                wmean[t] = wmean[t] + delta * (nb / nab);
                wm2[t] = wm2[t] + wm2[t + stride] + delta * delta * (na * nb / nab);
                wn[t] = nab;
            }
        }
        workgroupBarrier();
    }
    if (t == 0u) {
        stats[0] = wmean[0];
        stats[1] = wm2[0] / wn[0];
    }
}
"""


def _welford_reference(x, stats):
    x64 = x.astype(np.float64)
    stats[0] = x64.mean()
    stats[1] = x64.var()


WELFORD = Wild(
    KernelSpec(
        id="wild_r6_welford_buffer_variance",
        entry_point="welford",
        sources={"wgsl": _WELFORD},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="stats", count=2),
        ),
        reference=_welford_reference,
        grid=(1, 1, 1),
        schedules=(Schedule(256),),
        nonfinite_inputs=False,
        test_sizes=(10007, 1, 300, 4096),
    ),
    {
        "count starts at one": ("wgsl", "var n = 0.0;", "var n = 1.0;"),
        "merge drops the between-group term": (
            "wgsl",
            " + delta * delta * (na * nb / nab);",
            ";",
        ),
        "merge weights the wrong side": ("wgsl", "delta * (nb / nab);", "delta * (na / nab);"),
        "M2 updated with the old mean": (
            "wgsl",
            "m2 = m2 + delta * (v - mean);",
            "m2 = m2 + delta * delta;",
        ),
    },
)

# -- cosine similarity of row pairs (torch.nn.functional.cosine_similarity, eps 1e-8) -------

_COSINE = """
struct Params { rows: u32, cols: u32 }
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> sim: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

@compute @workgroup_size(64)
fn cosine(@builtin(global_invocation_id) gid: vec3<u32>) {
    let r = gid.x;
    if (r >= p.rows) { return; }
    var dot = 0.0;
    var na = 0.0;
    var nb = 0.0;
    for (var c = 0u; c < p.cols; c++) {
        let u = a[r * p.cols + c];
        let v = b[r * p.cols + c];
        dot += u * v;
        na += u * u;
        nb += v * v;
    }
    sim[r] = dot / max(sqrt(na) * sqrt(nb), 1e-8);
}
"""


def _cosine_reference(a, b):
    with np.errstate(over="ignore", invalid="ignore"):
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        num = (a64 * b64).sum(axis=1)
        den = np.linalg.norm(a64, axis=1) * np.linalg.norm(b64, axis=1)
        return (num / np.maximum(den, 1e-8)).astype(np.float32)


COSINE = Wild(
    KernelSpec(
        id="wild_r6_cosine_similarity_rows",
        entry_point="cosine",
        sources={"wgsl": _COSINE},
        dims=("rows", "cols"),
        buffers=(
            BufferSpec(0, "f32", "read", name="a", count="rows*cols", shape=("rows", "cols")),
            BufferSpec(1, "f32", "read", name="b", count="rows*cols", shape=("rows", "cols")),
            BufferSpec(2, "f32", "read_write", name="sim", count="rows"),
            BufferSpec.uniform(3, (("rows", "u32"), ("cols", "u32"))),
        ),
        reference=_cosine_reference,
        grid=lambda s, size: (ceil_div(size.rows, 64), 1, 1),
        nonfinite_inputs=False,
        test_sizes=("rows=100,cols=64", "rows=1,cols=1", "rows=16,cols=768"),
    ),
    {
        "no epsilon": ("wgsl", "max(sqrt(na) * sqrt(nb), 1e-8)", "(sqrt(na) * sqrt(nb))"),
        "one square root of the product (overflows)": (
            "wgsl",
            "max(sqrt(na) * sqrt(nb), 1e-8)",
            "max(sqrt(na * nb), 1e-8)",
        ),
        "epsilon as large as 1e-3 on the squared norms": (
            "wgsl",
            "max(sqrt(na) * sqrt(nb), 1e-8)",
            "sqrt(max(na * nb, 1e-3))",
        ),
    },
)

# -- L2-normalise rows with inverseSqrt (torch.nn.functional.normalize, eps 1e-12) -----------

_L2NORM = """
struct Params { cols: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;
var<workgroup> partial: array<f32, 64>;

fn fast_rsqrt(v: f32) -> f32 {
    let y0 = bitcast<f32>(0x5f3759dfu - (bitcast<u32>(v) >> 1u));
    return y0 * (1.5 - 0.5 * v * y0 * y0);
}

@compute @workgroup_size(64)
fn l2_normalize(@builtin(workgroup_id) wg: vec3<u32>,
                @builtin(local_invocation_id) lid: vec3<u32>) {
    let base = wg.x * p.cols;
    var ss = 0.0;
    for (var c = lid.x; c < p.cols; c += 64u) {
        let v = x[base + c];
        ss += v * v;
    }
    partial[lid.x] = ss;
    workgroupBarrier();
    for (var stride = 32u; stride > 0u; stride >>= 1u) {
        if (lid.x < stride) { partial[lid.x] += partial[lid.x + stride]; }
        workgroupBarrier();
    }
    let inv = inverseSqrt(max(partial[0], 1e-24));
    for (var c = lid.x; c < p.cols; c += 64u) {
        y[base + c] = x[base + c] * inv;
    }
}
"""


def _l2norm_reference(x):
    norm = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.maximum(norm, np.float32(1e-12))


L2NORM = Wild(
    KernelSpec(
        id="wild_r6_l2_normalize_rows_rsqrt",
        entry_point="l2_normalize",
        sources={"wgsl": _L2NORM},
        dims=("rows", "cols"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="rows*cols", shape=("rows", "cols")),
            BufferSpec(1, "f32", "read_write", name="y", count="rows*cols", shape=("rows", "cols")),
            BufferSpec.uniform(2, (("cols", "u32"),)),
        ),
        reference=_l2norm_reference,
        grid=lambda s, size: (size.rows, 1, 1),
        schedules=(Schedule(64),),
        nonfinite_inputs=False,
        test_sizes=("rows=40,cols=100", "rows=1,cols=1", "rows=8,cols=768"),
    ),
    {
        "no epsilon": ("wgsl", "inverseSqrt(max(partial[0], 1e-24))", "inverseSqrt(partial[0])"),
        "Quake's fast inverse square root, one Newton step": (
            "wgsl",
            "inverseSqrt(max(partial[0], 1e-24))",
            "fast_rsqrt(max(partial[0], 1e-24))",
        ),
    },
)

# -- sigmoid through exp, and a CUDA twin ---------------------------------------------------

_SIGMOID_WGSL = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(64)
fn sigmoid(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < arrayLength(&y)) {
        y[i] = 1.0 / (1.0 + exp(-x[i]));
    }
}
"""
_SIGMOID_CUDA = r"""
__global__ void sigmoid(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 1.0f / (1.0f + expf(-x[i]));
}
"""


def _sigmoid_reference(x):
    with np.errstate(over="ignore"):
        return np.float32(1) / (np.float32(1) + np.exp(-x))


SIGMOID = Wild(
    KernelSpec(
        id="wild_r6_sigmoid_exp",
        entry_point="sigmoid",
        sources={"wgsl": _SIGMOID_WGSL, "cuda": _SIGMOID_CUDA},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
        ),
        reference=_sigmoid_reference,
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        test_sizes=(10007, 1, 64),
    ),
    {
        "exp(x) / (1 + exp(x)) overflows": (
            "wgsl",
            "1.0 / (1.0 + exp(-x[i]))",
            "exp(x[i]) / (1.0 + exp(x[i]))",
        ),
        "1 - sigmoid(-x) cancels below zero": (
            "wgsl",
            "1.0 / (1.0 + exp(-x[i]))",
            "1.0 - 1.0 / (1.0 + exp(x[i]))",
        ),
        "Schraudolph's bit-trick exp": (
            "wgsl",
            "exp(-x[i])",
            "bitcast<f32>(i32(clamp(-12102203.0 * x[i], -1.0e9, 1.0e9)) + 1064866805)",
        ),
    },
    invisible={
        ("1 - sigmoid(-x) cancels below zero", "wgsl"): (
            "its error is one ulp of 1.0 (6e-8) on values below 1e-3, inside the default "
            "f32 atol of 1e-6 (a known gap: the default absolute tolerance does not scale "
            "with an output's magnitude); declared with atol=0 the original passes and "
            "this mutant fails (test_a_cancelling_sigmoid_fails_under_atol_0)"
        )
    },
)

# -- Kahan-compensated row sums, judged against numpy's float32 (pairwise) sum --------------

_KAHAN = """
struct Params { rows: u32, cols: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> total: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(64)
fn kahan_rows(@builtin(global_invocation_id) gid: vec3<u32>) {
    let r = gid.x;
    if (r >= p.rows) { return; }
    var s = 0.0;
    var c = 0.0;
    for (var j = 0u; j < p.cols; j++) {
        let y = x[r * p.cols + j] - c;
        let t = s + y;
        c = (t - s) - y;
        s = t;
    }
    total[r] = s;
}
"""


def _kahan_reference(x):
    return x.sum(axis=1, dtype=np.float32)


KAHAN = Wild(
    KernelSpec(
        id="wild_r6_kahan_row_sum",
        entry_point="kahan_rows",
        sources={"wgsl": _KAHAN},
        dims=("rows", "cols"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="rows*cols", shape=("rows", "cols")),
            BufferSpec(1, "f32", "read_write", name="total", count="rows"),
            BufferSpec.uniform(2, (("rows", "u32"), ("cols", "u32"))),
        ),
        reference=_kahan_reference,
        grid=lambda s, size: (ceil_div(size.rows, 64), 1, 1),
        nonfinite_inputs=False,
        test_sizes=("rows=100,cols=50", "rows=1,cols=1", "rows=8,cols=8192"),
    ),
    {
        "compensation's sign flipped": ("wgsl", "c = (t - s) - y;", "c = (t - s) + y;"),
        "compensated sum in f16-sized steps": (
            "wgsl",
            "s = t;",
            "s = unpack2x16float(pack2x16float(vec2<f32>(t, 0.0))).x;",
        ),
    },
    invisible_on={("compensated sum in f16-sized steps", "wgsl", "NVIDIA"): _F16_ROUND_TRIP_KEPT},
)

# -- Cephes expf: Cody-Waite reduction, Horner polynomial, ldexp ----------------------------
# After Cephes' expf.c (Stephen L. Moshier's Cephes Math Library, in netlib's cephes):
# its constants, reduction and polynomial, read, not copied. Cephes documents a peak
# relative error of 2.3e-7 on [-87.3, 88.7]; the user holds it to that (and WGSL's ldexp
# and floor are exact).

_CEPHES_EXPF = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

// e^v = 2^n e^r: n is v / ln 2 rounded to nearest, r is v - n ln 2 with ln 2 split in
// a short high part and a correction (Cody and Waite), e^r is 1 + r + r^2 P(r) with
// Cephes' degree-5 P in Horner form, and ldexp puts the 2^n back exactly
@compute @workgroup_size(64)
fn expf(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&y)) { return; }
    let v = clamp(x[i], -87.0, 88.0);
    let n = floor(v * 1.44269504088896341 + 0.5);
    var r = v - n * 0.693359375;
    r = r - n * -2.12194440e-4;
    let r2 = r * r;
    var poly = 1.9875691500e-4;
    poly = poly * r + 1.3981999507e-3;
    poly = poly * r + 8.3334519073e-3;
    poly = poly * r + 4.1665795894e-2;
    poly = poly * r + 1.6666665459e-1;
    poly = poly * r + 5.0000001201e-1;
    poly = poly * r2 + r + 1.0;
    y[i] = ldexp(poly, i32(n));
}
"""


def _expf_reference(x):
    return np.exp(x.astype(np.float64)).astype(np.float32)


CEPHES_EXPF = Wild(
    KernelSpec(
        id="wild_r6_cephes_expf_horner",
        entry_point="expf",
        sources={"wgsl": _CEPHES_EXPF},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
        ),
        reference=_expf_reference,
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        domain={"x": (-87.0, 88.0)},
        nonfinite_inputs=False,
        tolerance={"f32": {"rtol": 2.4e-7, "atol": 0.0, "ulp": 2}},
        test_sizes=(10007, 1, 64),
    ),
    {
        "Cody-Waite low part dropped": ("wgsl", "    r = r - n * -2.12194440e-4;\n", ""),
        "a Horner coefficient ten times too large": ("wgsl", "1.3981999507e-3", "1.3981999507e-2"),
        "n rounded down instead of to nearest": (
            "wgsl",
            "floor(v * 1.44269504088896341 + 0.5)",
            "floor(v * 1.44269504088896341)",
        ),
    },
)

# -- one radix-2 FFT stage (decimation in time), twiddles from cos and sin -------------------

_FFT_STAGE = """
struct Params { n: u32, half: u32 }
@group(0) @binding(0) var<storage, read> src: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec2<f32>>;
@group(0) @binding(2) var<uniform> p: Params;

const PI: f32 = 3.14159265358979;

// the parabolic sine of game engines (devmaster.net, Nick): max error 0.001 on [-pi, pi]
fn psin(t: f32) -> f32 {
    let y = 1.2732395 * t - 0.40528473 * t * abs(t);
    return 0.225 * (y * abs(y) - y) + y;
}

fn cmul(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

@compute @workgroup_size(64)
fn butterfly(@builtin(global_invocation_id) gid: vec3<u32>) {
    let j = gid.x;
    if (j >= p.n / 2u) { return; }
    let group = j / p.half;
    let k = j % p.half;
    let i0 = group * 2u * p.half + k;
    let i1 = i0 + p.half;
    let ang = -PI * f32(k) / f32(p.half);
    let w = vec2<f32>(cos(ang), sin(ang));
    let a = src[i0];
    let b = cmul(w, src[i1]);
    dst[i0] = a + b;
    dst[i1] = a - b;
}
"""


def _fft_stage_reference(src, dst, p):
    z = src[:, 0].astype(np.float64) + 1j * src[:, 1].astype(np.float64)
    half = int(p["half"])
    z = z.reshape(-1, 2, half)
    w = np.exp(-1j * np.pi * np.arange(half) / half)
    a, b = z[:, 0, :], w * z[:, 1, :]
    out = np.stack([a + b, a - b], axis=1).reshape(-1)
    dst[:, 0] = out.real
    dst[:, 1] = out.imag


FFT_STAGE = Wild(
    KernelSpec(
        id="wild_r6_fft_radix2_stage",
        entry_point="butterfly",
        sources={"wgsl": _FFT_STAGE},
        buffers=(
            BufferSpec(0, "vec2<f32>", "read", name="src"),
            BufferSpec(1, "vec2<f32>", "read_write", name="dst"),
            BufferSpec.uniform(2, (("n", "u32"), ("half", "u32"))),
        ),
        reference=_fft_stage_reference,
        params=lambda n: {"n": n, "half": max(1, n // 2)},
        grid=lambda s, n: (ceil_div(max(1, n // 2), 64), 1, 1),
        nonfinite_inputs=False,
        test_sizes=(1024, 2, 4096),
    ),
    {
        "twiddles from the parabolic sine": (
            "wgsl",
            "vec2<f32>(cos(ang), sin(ang))",
            "vec2<f32>(psin(ang + 1.5707964), psin(ang))",
        ),
        "conjugated twiddle": (
            "wgsl",
            "vec2<f32>(cos(ang), sin(ang))",
            "vec2<f32>(cos(ang), -sin(ang))",
        ),
        "pi as 3.14": ("wgsl", "const PI: f32 = 3.14159265358979;", "const PI: f32 = 3.14;"),
    },
)

# -- attention scores Q K^T / sqrt(d), d = 80 -------------------------------------------------

_SCORES = """
struct Params { M: u32, N: u32 }
const D: u32 = 80u;
@group(0) @binding(0) var<storage, read> q: array<f32>;
@group(0) @binding(1) var<storage, read> k: array<f32>;
@group(0) @binding(2) var<storage, read_write> scores: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

@compute @workgroup_size(8, 8)
fn scores_main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let j = gid.x;
    let i = gid.y;
    if (i >= p.M || j >= p.N) { return; }
    let scale = inverseSqrt(f32(D));
    var acc = 0.0;
    for (var d = 0u; d < D; d++) {
        acc += q[i * D + d] * k[j * D + d];
    }
    scores[i * p.N + j] = acc * scale;
}
"""


def _scores_reference(q, k):
    return (q @ k.T) / np.float32(np.sqrt(80.0))


SCORES = Wild(
    KernelSpec(
        id="wild_r6_attention_scores_scaled",
        entry_point="scores_main",
        sources={"wgsl": _SCORES},
        dims=("M", "N"),
        buffers=(
            BufferSpec(0, "f32", "read", name="q", count="M*80", shape=("M", 80)),
            BufferSpec(1, "f32", "read", name="k", count="N*80", shape=("N", 80)),
            BufferSpec(2, "f32", "read_write", name="scores", count="M*N", shape=("M", "N")),
            BufferSpec.uniform(3, (("M", "u32"), ("N", "u32"))),
        ),
        reference=_scores_reference,
        grid=lambda s, size: (ceil_div(size.N, 8), ceil_div(size.M, 8), 1),
        schedules=(Schedule((8, 8)),),
        nonfinite_inputs=False,
        test_sizes=("M=33,N=47", "M=1,N=1", "M=64,N=64"),
    ),
    {
        "scaled by 1/d": ("wgsl", "inverseSqrt(f32(D))", "(1.0 / f32(D))"),
        "scale with two digits": ("wgsl", "inverseSqrt(f32(D))", "0.11"),
        "last dimension skipped": ("wgsl", "d < D; d++", "d < D - 1u; d++"),
    },
)

# -- 3x3 inverse by the adjugate, per element (well-conditioned matrices: the contract) ------

_INV3 = """
@group(0) @binding(0) var<storage, read> m: array<f32>;
@group(0) @binding(1) var<storage, read_write> inv: array<f32>;

@compute @workgroup_size(64)
fn inverse3(@builtin(global_invocation_id) gid: vec3<u32>) {
    let e = gid.x;
    if (e * 9u >= arrayLength(&m)) { return; }
    let o = e * 9u;
    let a = m[o + 0u]; let b = m[o + 1u]; let c = m[o + 2u];
    let d = m[o + 3u]; let f = m[o + 4u]; let g = m[o + 5u];
    let h = m[o + 6u]; let k = m[o + 7u]; let l = m[o + 8u];
    let c00 = f * l - g * k;
    let c01 = g * h - d * l;
    let c02 = d * k - f * h;
    let det = a * c00 + b * c01 + c * c02;
    let s = 1.0 / det;
    inv[o + 0u] = c00 * s;
    inv[o + 1u] = (c * k - b * l) * s;
    inv[o + 2u] = (b * g - c * f) * s;
    inv[o + 3u] = c01 * s;
    inv[o + 4u] = (a * l - c * h) * s;
    inv[o + 5u] = (c * d - a * g) * s;
    inv[o + 6u] = c02 * s;
    inv[o + 7u] = (b * h - a * k) * s;
    inv[o + 8u] = (a * f - b * d) * s;
}
"""


def _well_conditioned(rng, count, size):
    mats = rng.uniform(-1.0, 1.0, (count // 9, 3, 3)) + 3.0 * np.eye(3)
    return mats.reshape(-1).astype(np.float32)


def _inv3_reference(m):
    return np.linalg.inv(m.reshape(-1, 3, 3).astype(np.float64)).reshape(-1).astype(np.float32)


INV3 = Wild(
    KernelSpec(
        id="wild_r6_inverse3x3_adjugate",
        entry_point="inverse3",
        sources={"wgsl": _INV3},
        buffers=(
            BufferSpec(0, "f32", "read", name="m", count=lambda n: 9 * n, fill=_well_conditioned),
            BufferSpec(1, "f32", "read_write", name="inv", count=lambda n: 9 * n),
        ),
        reference=_inv3_reference,
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        test_sizes=(1000, 1, 64),
    ),
    {
        "a cofactor's sign": ("wgsl", "let c01 = g * h - d * l;", "let c01 = d * l - g * h;"),
        "cofactor transposed": (
            "wgsl",
            "inv[o + 1u] = (c * k - b * l) * s;",
            "inv[o + 1u] = c01 * s;",
        ),
    },
)

# -- bilinear resize, half-pixel centres (align_corners=False), 3/2 up ----------------------

_BILINEAR = """
struct Params { H: u32, W: u32, OH: u32, OW: u32 }
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(8, 8)
fn resize(@builtin(global_invocation_id) gid: vec3<u32>) {
    let ox = gid.x;
    let oy = gid.y;
    if (ox >= p.OW || oy >= p.OH) { return; }
    let sx = max((f32(ox) + 0.5) * f32(p.W) / f32(p.OW) - 0.5, 0.0);
    let sy = max((f32(oy) + 0.5) * f32(p.H) / f32(p.OH) - 0.5, 0.0);
    let x0 = min(u32(floor(sx)), p.W - 1u);
    let y0 = min(u32(floor(sy)), p.H - 1u);
    let x1 = min(x0 + 1u, p.W - 1u);
    let y1 = min(y0 + 1u, p.H - 1u);
    let fx = sx - f32(x0);
    let fy = sy - f32(y0);
    let top = mix(src[y0 * p.W + x0], src[y0 * p.W + x1], fx);
    let bottom = mix(src[y1 * p.W + x0], src[y1 * p.W + x1], fx);
    dst[oy * p.OW + ox] = mix(top, bottom, fy);
}
"""


def _bilinear_reference(src, dst, p):
    H, W, OH, OW = (int(p[k]) for k in ("H", "W", "OH", "OW"))
    img = src.reshape(H, W).astype(np.float64)
    sy = np.maximum((np.arange(OH) + 0.5) * H / OH - 0.5, 0.0)
    sx = np.maximum((np.arange(OW) + 0.5) * W / OW - 0.5, 0.0)
    y0 = np.minimum(np.floor(sy).astype(int), H - 1)
    x0 = np.minimum(np.floor(sx).astype(int), W - 1)
    y1, x1 = np.minimum(y0 + 1, H - 1), np.minimum(x0 + 1, W - 1)
    fy, fx = (sy - y0)[:, None], (sx - x0)[None, :]
    top = img[y0][:, x0] * (1 - fx) + img[y0][:, x1] * fx
    bottom = img[y1][:, x0] * (1 - fx) + img[y1][:, x1] * fx
    dst[:] = (top * (1 - fy) + bottom * fy).reshape(-1).astype(np.float32)


def _out(n):
    return 3 * n // 2


BILINEAR = Wild(
    KernelSpec(
        id="wild_r6_bilinear_resize_half_pixel",
        entry_point="resize",
        sources={"wgsl": _BILINEAR},
        dims=("H", "W"),
        buffers=(
            BufferSpec(0, "f32", "read", name="src", count="H*W"),
            BufferSpec(1, "f32", "read_write", name="dst", count=lambda s: _out(s.H) * _out(s.W)),
            BufferSpec.uniform(2, (("H", "u32"), ("W", "u32"), ("OH", "u32"), ("OW", "u32"))),
        ),
        reference=_bilinear_reference,
        params=lambda s: {"H": s.H, "W": s.W, "OH": _out(s.H), "OW": _out(s.W)},
        grid=lambda s, size: (ceil_div(_out(size.W), 8), ceil_div(_out(size.H), 8), 1),
        schedules=(Schedule((8, 8)),),
        nonfinite_inputs=False,
        test_sizes=("H=37,W=53", "H=2,W=2", "H=64,W=64"),
    ),
    {
        "no half-pixel offset": ("wgsl", "f32(p.W) / f32(p.OW) - 0.5", "f32(p.W) / f32(p.OW)"),
        "row weight reversed": ("wgsl", "mix(top, bottom, fy)", "mix(bottom, top, fy)"),
    },
)

# -- pairwise Euclidean distances through |a|^2 + |b|^2 - 2 a.b (FAISS, sklearn) ------------

_PDIST = """
struct Params { M: u32, N: u32 }
const D: u32 = 32u;
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> dist: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

@compute @workgroup_size(8, 8)
fn pdist(@builtin(global_invocation_id) gid: vec3<u32>) {
    let j = gid.x;
    let i = gid.y;
    if (i >= p.M || j >= p.N) { return; }
    var aa = 0.0;
    var bb = 0.0;
    var ab = 0.0;
    for (var d = 0u; d < D; d++) {
        let u = a[i * D + d];
        let v = b[j * D + d];
        aa += u * u;
        bb += v * v;
        ab += u * v;
    }
    dist[i * p.N + j] = sqrt(max(aa + bb - 2.0 * ab, 0.0));
}
"""


def _pdist_reference(a, b):
    diff = a[:, None, :].astype(np.float64) - b[None, :, :].astype(np.float64)
    return np.sqrt((diff**2).sum(axis=-1)).astype(np.float32)


PDIST = Wild(
    KernelSpec(
        id="wild_r6_distance_matrix_expanded",
        entry_point="pdist",
        sources={"wgsl": _PDIST},
        dims=("M", "N"),
        buffers=(
            BufferSpec(0, "f32", "read", name="a", count="M*32", shape=("M", 32)),
            BufferSpec(1, "f32", "read", name="b", count="N*32", shape=("N", 32)),
            BufferSpec(2, "f32", "read_write", name="dist", count="M*N", shape=("M", "N")),
            BufferSpec.uniform(3, (("M", "u32"), ("N", "u32"))),
        ),
        reference=_pdist_reference,
        grid=lambda s, size: (ceil_div(size.N, 8), ceil_div(size.M, 8), 1),
        schedules=(Schedule((8, 8)),),
        nonfinite_inputs=False,
        test_sizes=("M=33,N=47", "M=1,N=1", "M=64,N=64"),
    ),
    {
        "no clamp at zero": (
            "wgsl",
            "sqrt(max(aa + bb - 2.0 * ab, 0.0))",
            "sqrt(aa + bb - 2.0 * ab)",
        ),
        "cross term without its 2": ("wgsl", "aa + bb - 2.0 * ab, 0.0", "aa + bb - ab, 0.0"),
        "cross term in half precision": (
            "wgsl",
            "ab += u * v;",
            "ab = unpack2x16float(pack2x16float(vec2<f32>(ab + u * v, 0.0))).x;",
        ),
    },
    invisible_on={("cross term in half precision", "wgsl", "NVIDIA"): _F16_ROUND_TRIP_KEPT},
    invisible={
        ("no clamp at zero", "wgsl"): (
            "without the clamp sqrt takes a negative only where two points (nearly) "
            "coincide; drawn inputs put none so, and near such a pair the expanded "
            "formula is itself inaccurate, so a right kernel would fail there too"
        )
    },
)

ROUND6 = {
    w.kernel.id: w
    for w in (
        GELU_SIGMOID,
        LOGCUMSUMEXP,
        WELFORD,
        COSINE,
        L2NORM,
        SIGMOID,
        KAHAN,
        CEPHES_EXPF,
        FFT_STAGE,
        SCORES,
        INV3,
        BILINEAR,
        PDIST,
    )
}

"""Round 4 of kernels from the wild, merged into ``tests.wild.CORPUS``: the kernels are
simple on purpose; what varies is how people *declare* them. Two outputs in bind group 1
with a reference returning a tuple and an input count given as a callable; a 2-D kernel
with ``dims``, ``shape=``, a uniform record indexed like a dict and ``np.float32``
constants; an accumulating ``y += a * x`` with ``inout=True`` and a reference writing in
place; a full reduction to a one-element output (``keepdims``); two entry points in one
WGSL module with an ``override`` from the schedule and several schedules; a batched
bilinear form with an ``np.einsum`` reference in float64; a clamp with CUDA ``defines``
and ``template=False`` (braces and ``$`` in the source); a run-start flag kernel with a
Python-loop reference and an integer ``domain``. What the oracle did wrong with the
declarations around them (issue 11) is tested beside the oracle's own tests.

The round's kernels are the project's own, written for the corpus (a min and max of
pairs, a column scale, an accumulating axpy, a tree sum of squares, two entry points
with overrides, a bilinear form, a hardtanh, run starts): they copy no upstream file,
and were read again against the rule for public code (read, not copied) on 2026-12-06
and left as written.
"""

from __future__ import annotations

import numpy as np

from forge import BufferSpec, KernelSpec, Schedule, ceil_div

from . import Wild

# -- pairwise min/max: two outputs in group 1, a tuple returned ------------------------------

_MINMAX = """
@group(0) @binding(0) var<storage, read> pairs: array<f32>;
@group(1) @binding(0) var<storage, read_write> lo: array<f32>;
@group(1) @binding(1) var<storage, read_write> hi: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&lo)) { return; }
    let a = pairs[2u * i];
    let b = pairs[2u * i + 1u];
    lo[i] = min(a, b);
    hi[i] = max(a, b);
}
"""


def _minmax_reference(pairs):
    p = pairs.reshape(-1, 2)
    return p.min(axis=1), p.max(axis=1)


MINMAX = Wild(
    KernelSpec(
        id="wild_pair_minmax",
        entry_point="main",
        sources={"wgsl": _MINMAX},
        buffers=(
            BufferSpec(0, "f32", "read", name="pairs", count=lambda n: 2 * n),
            BufferSpec(0, "f32", "read_write", group=1, name="lo"),
            BufferSpec(1, "f32", "read_write", group=1, name="hi"),
        ),
        reference=_minmax_reference,
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        test_sizes=(1, 63, 1000),
    ),
    {
        "hi takes the min": ("wgsl", "hi[i] = max(a, b);", "hi[i] = min(a, b);"),
        "second of the pair read from the first": (
            "wgsl",
            "pairs[2u * i + 1u]",
            "pairs[2u * i]",
        ),
    },
)

# -- 2-D scale by a column vector: dims, shape, a uniform record indexed like a dict -------

_COLSCALE = """
struct Params { rows: u32, cols: u32, alpha: f32, beta: f32 };
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let c = gid.x;
    let r = gid.y;
    if (r >= p.rows || c >= p.cols) { return; }
    y[r * p.cols + c] = p.alpha * x[r * p.cols + c] * w[c] + p.beta;
}
"""


def _colscale_reference(x, w, y, p):
    y[:] = np.float32(p["alpha"]) * x * w[None, :] + np.float32(p["beta"])


COLSCALE = Wild(
    KernelSpec(
        id="wild_colscale_record",
        entry_point="main",
        sources={"wgsl": _COLSCALE},
        dims=("rows", "cols"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="rows*cols", shape=("rows", "cols")),
            BufferSpec(1, "f32", "read", name="w", count="cols"),
            BufferSpec(2, "f32", "read_write", name="y", count="rows*cols", shape=("rows", "cols")),
            BufferSpec.uniform(
                3, (("rows", "u32"), ("cols", "u32"), ("alpha", "f32"), ("beta", "f32")), name="p"
            ),
        ),
        reference=_colscale_reference,
        params=lambda s: {"rows": s.rows, "cols": s.cols},
        defaults={"alpha": 2.0, "beta": 0.5},
        grid=lambda s, size: (ceil_div(size.cols, 8), ceil_div(size.rows, 8), 1),
        schedules=(Schedule((8, 8)),),
        test_sizes=("3x5", "rows=17,cols=33", "rows=1,cols=1"),
    ),
    {
        "w indexed by row": ("wgsl", "* w[c]", "* w[r]"),
        "beta dropped": ("wgsl", "* w[c] + p.beta;", "* w[c];"),
    },
)

# -- y += a * x, accumulating: inout, a reference writing in place ---------------------------

_AXPY_ACC = """
struct Params { a: f32 };
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(128)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < arrayLength(&y)) {
        y[i] = y[i] + params.a * x[i];
    }
}
"""


def _axpy_acc_reference(x, y, params):
    y += np.float32(params["a"]) * x


AXPY_ACC = Wild(
    KernelSpec(
        id="wild_axpy_accumulate",
        entry_point="main",
        sources={"wgsl": _AXPY_ACC},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y", inout=True),
            BufferSpec.uniform(2, (("a", "f32"),)),
        ),
        reference=_axpy_acc_reference,
        defaults={"a": -0.75},
        grid=lambda s, n: (ceil_div(n, 128), 1, 1),
        schedules=(Schedule(128),),
        test_sizes=(1, 127, 4099),
    ),
    {
        "overwrites instead of accumulating": ("wgsl", "y[i] = y[i] + params.a", "y[i] = params.a"),
        "sign of a lost": ("wgsl", "y[i] + params.a * x[i]", "y[i] + abs(params.a) * x[i]"),
    },
)

# -- a full reduction to one element: count=1, keepdims ------------------------------------

_SUMSQ = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> total: array<f32>;

var<workgroup> partial: array<f32, 64>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_id) lid: vec3<u32>) {
    var s = 0.0;
    for (var i = lid.x; i < arrayLength(&x); i += 64u) {
        s += x[i] * x[i];
    }
    partial[lid.x] = s;
    workgroupBarrier();
    for (var stride = 32u; stride > 0u; stride >>= 1u) {
        if (lid.x < stride) {
            partial[lid.x] += partial[lid.x + stride];
        }
        workgroupBarrier();
    }
    if (lid.x == 0u) {
        total[0] = partial[0];
    }
}
"""


def _sumsq_reference(x):
    return np.square(x, dtype=np.float32).sum(keepdims=True)


SUMSQ = Wild(
    KernelSpec(
        id="wild_sum_of_squares",
        entry_point="main",
        sources={"wgsl": _SUMSQ},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="total", count=1),
        ),
        reference=_sumsq_reference,
        grid=(1, 1, 1),
        nonfinite_inputs=False,
        domain={"x": (-4.0, 4.0)},
        test_sizes=(1, 65, 5000),
    ),
    {
        "last tree step dropped": ("wgsl", "stride > 0u;", "stride > 1u;"),
        "sum of x, not x squared": ("wgsl", "s += x[i] * x[i];", "s += x[i];"),
        "the loop stops one element short": (
            "wgsl",
            "i < arrayLength(&x); i += 64u",
            "i + 1u < arrayLength(&x); i += 64u",
        ),
    },
)

# -- two entry points in one module, an override from the schedule --------------------------

_SCALES = """
override WG: u32 = 64u;
override FACTOR: f32 = 1.0;
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(WG)
fn scale_by_two(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < arrayLength(&y)) { y[gid.x] = 2.0 * x[gid.x]; }
}

@compute @workgroup_size(WG)
fn scale_by_factor(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < arrayLength(&y)) { y[gid.x] = FACTOR * x[gid.x]; }
}
"""

SCALES = Wild(
    KernelSpec(
        id="wild_second_entry_override",
        entry_point="scale_by_factor",
        sources={"wgsl": _SCALES},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
        ),
        reference=lambda x: x * np.float32(-3.0),
        overrides={"WG": lambda s, n: s.workgroup_size[0], "FACTOR": -3.0},
        grid=lambda s, n: (ceil_div(n, s.workgroup_size[0]), 1, 1),
        schedules=(Schedule(64), Schedule(256), Schedule(32)),
        test_sizes=(1, 255, 1000),
    ),
    {
        "factor entry writes a constant 2": (
            "wgsl",
            "y[gid.x] = FACTOR * x[gid.x];",
            "y[gid.x] = 2.0 * x[gid.x];",
        ),
        "local id for the global one": (
            "wgsl",
            "fn scale_by_factor(@builtin(global_invocation_id)",
            "fn scale_by_factor(@builtin(local_invocation_id)",
        ),
    },
)

# -- batched bilinear form x^T A x: an einsum reference in float64 --------------------------

_BILINEAR = """
struct Dims { batch: u32, d: u32 };
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read_write> q: array<f32>;
@group(0) @binding(3) var<uniform> dims: Dims;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let b = gid.x;
    if (b >= dims.batch) { return; }
    let d = dims.d;
    var acc = 0.0;
    for (var i = 0u; i < d; i++) {
        var row = 0.0;
        for (var j = 0u; j < d; j++) {
            row += a[i * d + j] * x[b * d + j];
        }
        acc += x[b * d + i] * row;
    }
    q[b] = acc;
}
"""


def _bilinear_reference(x, a, q, dims):
    x64 = x.astype(np.float64)
    return np.einsum("bi,ij,bj->b", x64, a.astype(np.float64), x64).astype(np.float32)


BILINEAR = Wild(
    KernelSpec(
        id="wild_bilinear_einsum",
        entry_point="main",
        sources={"wgsl": _BILINEAR},
        dims=("batch", "d"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="batch*d", shape=("batch", "d")),
            BufferSpec(1, "f32", "read", name="a", count="d*d", shape=("d", "d")),
            BufferSpec(2, "f32", "read_write", name="q", count="batch"),
            BufferSpec.uniform(3, (("batch", "u32"), ("d", "u32")), name="dims"),
        ),
        reference=_bilinear_reference,
        params=lambda s: {"batch": s.batch, "d": s.d},
        grid=lambda s, size: (ceil_div(size.batch, 32), 1, 1),
        schedules=(Schedule(32),),
        nonfinite_inputs=False,
        domain={"x": (-2.0, 2.0), "a": (-2.0, 2.0)},
        test_sizes=("batch=40,d=7", "batch=1,d=1", "batch=100,d=16"),
    ),
    {
        # (A transposed is no bug here: x^T A x == x^T A^T x)
        "outer factor read from batch 0": (
            "wgsl",
            "acc += x[b * d + i] * row;",
            "acc += x[i] * row;",
        ),
        "last column of A skipped": (
            "wgsl",
            "for (var j = 0u; j < d; j++)",
            "for (var j = 0u; j + 1u < d; j++)",
        ),
    },
)

# -- clamp with CUDA defines, template=False (braces and $ in the source) -------------------

_CLAMP_CUDA = r"""
// ${not a template}: the source is taken as written, {{ and }} included
#ifndef LO
#define LO -1.0f
#endif
#ifndef HI
#define HI 1.0f
#endif
__global__ void hardtanh(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { y[i] = fminf(fmaxf(x[i], LO), HI); }
}
"""
_CLAMP_WGSL = """
// ${not a template}: the source is taken as written, {{ and }} included
const LO: f32 = -0.5;
const HI: f32 = 2.0;
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64)
fn hardtanh(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < arrayLength(&y)) { y[gid.x] = clamp(x[gid.x], LO, HI); }
}
"""

CLAMP = Wild(
    KernelSpec(
        id="wild_hardtanh_defines",
        entry_point="hardtanh",
        sources={"wgsl": _CLAMP_WGSL, "cuda": _CLAMP_CUDA},
        template=False,
        defines={"LO": "-0.5f", "HI": "2.0f"},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
        ),
        reference=lambda x: np.clip(x, np.float32(-0.5), np.float32(2.0)),
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        test_sizes=(1, 64, 4099),
    ),
    {
        "bounds swapped": ("wgsl", "clamp(x[gid.x], LO, HI)", "clamp(x[gid.x], -HI, -LO)"),
        "cuda: upper bound missing": ("cuda", "fminf(fmaxf(x[i], LO), HI)", "fmaxf(x[i], LO)"),
    },
)

# -- run starts: a Python-loop reference, an integer domain ---------------------------------

_RUNSTART = """
@group(0) @binding(0) var<storage, read> labels: array<i32>;
@group(0) @binding(1) var<storage, read_write> starts: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&starts)) { return; }
    if (i == 0u) {
        starts[i] = 1u;
    } else {
        starts[i] = select(0u, 1u, labels[i] != labels[i - 1u]);
    }
}
"""


def _runstart_reference(labels):
    out = []
    previous = None
    for value in labels.tolist():
        out.append(1 if value != previous else 0)
        previous = value
    return np.array(out, dtype=np.uint32)


RUNSTART = Wild(
    KernelSpec(
        id="wild_run_starts_loop",
        entry_point="main",
        sources={"wgsl": _RUNSTART},
        buffers=(
            BufferSpec(0, "i32", "read", name="labels"),
            BufferSpec(1, "u32", "read_write", name="starts"),
        ),
        reference=_runstart_reference,
        domain={"labels": (0, 2)},
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        test_sizes=(1, 2, 1000),
    ),
    {
        "compares with the next": (
            "wgsl",
            "labels[i] != labels[i - 1u]",
            "labels[i] != labels[i + 1u]",
        ),
        "first not a start": ("wgsl", "starts[i] = 1u;", "starts[i] = 0u;"),
    },
)

ROUND4 = {
    w.kernel.id: w for w in (MINMAX, COLSCALE, AXPY_ACC, SUMSQ, SCALES, BILINEAR, CLAMP, RUNSTART)
}

"""Minimal reproductions of the wrong verdicts listed in FINDINGS.md (wild-more branch).

Run: cd /work/wt-wild && PYTHONPATH=. /work/main/.venv/bin/python tests/wild/findings_repro.py
Each prints the verdict seen; FINDINGS.md says which one is expected and why.
"""

from __future__ import annotations

import dataclasses

import numpy as np

import oracle
from forge import BufferSpec, KernelSpec, ceil_div

# F1: C = alpha*A@B + beta*C (BLAS sgemm), right, judged MISMATCH: the sum-of-products
# rounding bound applies only to references homogeneous in their float inputs.
_GEMM = """
struct P { M: u32, N: u32, K: u32, alpha: f32, beta: f32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> A: array<f32>;
@group(0) @binding(2) var<storage, read> B: array<f32>;
@group(0) @binding(3) var<storage, read_write> C: array<f32>;
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.y >= p.M || g.x >= p.N) { return; }
    var acc = 0.0;
    for (var k = 0u; k < p.K; k++) { acc = fma(A[g.y * p.K + k], B[k * p.N + g.x], acc); }
    C[g.y * p.N + g.x] = p.alpha * acc + p.beta * C[g.y * p.N + g.x];
}
"""


def _gemm_ref(p, A, B, C):
    C[...] = p["alpha"] * (A @ B) + p["beta"] * C


F1 = KernelSpec(
    id="f1_gemm_beta",
    entry_point="main",
    sources={"wgsl": _GEMM},
    dims=("M", "N", "K"),
    buffers=(
        BufferSpec.uniform(
            0, (("M", "u32"), ("N", "u32"), ("K", "u32"), ("alpha", "f32"), ("beta", "f32"))
        ),
        BufferSpec(1, "f32", "read", name="A", count="M*K", shape=("M", "K")),
        BufferSpec(2, "f32", "read", name="B", count="K*N", shape=("K", "N")),
        BufferSpec(3, "f32", "read_write", name="C", count="M*N", shape=("M", "N"), inout=True),
    ),
    reference=_gemm_ref,
    defaults={"alpha": 1.0, "beta": -0.5},
    grid=lambda s, z: (ceil_div(z.N, 8), ceil_div(z.M, 8), 1),
)

# F2: a NaN the kernel makes itself (inf + -inf) and a max that drops it: right
# (WGSL max / CUDA fmaxf), judged MISMATCH; the NaN-as-missing rule covers NaN inputs only.
_RELU = """
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x < arrayLength(&y)) { y[g.x] = max(a[g.x] + b[g.x], 0.0); }
}
"""
F2 = KernelSpec(
    id="f2_add_relu",
    entry_point="main",
    sources={"wgsl": _RELU},
    buffers=(
        BufferSpec(0, "f32", "read", name="a"),
        BufferSpec(1, "f32", "read", name="b"),
        BufferSpec(2, "f32", "read_write", name="y"),
    ),
    reference=lambda a, b: np.maximum(a + b, 0),
    grid=lambda s, n: (ceil_div(n, 64), 1, 1),
)

# F3: RMSNorm without its epsilon passes at row-shaped sizes (8x768): no whole row of
# zeros or tiny values is ever drawn when 6% of the elements is less than a row.
_RMS = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> cols: u32;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let row = g.x;
    if (row >= arrayLength(&y) / cols) { return; }
    var ss = 0.0;
    for (var c = 0u; c < cols; c++) { let v = x[row * cols + c]; ss += v * v; }
    let r = inverseSqrt(ss / f32(cols) + 1e-5);
    for (var c = 0u; c < cols; c++) { y[row * cols + c] = x[row * cols + c] * r; }
}
"""
F3 = KernelSpec(
    id="f3_rmsnorm",
    entry_point="main",
    sources={"wgsl": _RMS},
    dims=("rows", "cols"),
    buffers=(
        BufferSpec(0, "f32", "read", name="x", count="rows*cols", shape=("rows", "cols")),
        BufferSpec(1, "f32", "read_write", name="y", count="rows*cols", shape=("rows", "cols")),
        BufferSpec.uniform(2, (("cols", "u32"),)),
    ),
    reference=lambda x: x / np.sqrt(np.mean(x * x, axis=1, keepdims=True) + np.float32(1e-5)),
    grid=lambda s, z: (ceil_div(z.rows, 64), 1, 1),
)
F3_NO_EPS = dataclasses.replace(
    F3, id="f3_rmsnorm_no_eps", sources={"wgsl": _RMS.replace(" + 1e-5", "")}
)

# F4: a reference whose parameters name some buffers but not all (the buffer is named
# "in", a Python keyword) is silently called with the inputs alone, positionally.
F4 = dataclasses.replace(
    F2,
    id="f4_partial_names",
    buffers=(
        BufferSpec(0, "f32", "read", name="in"),
        BufferSpec(1, "f32", "read", name="b"),
        BufferSpec(2, "f32", "read_write", name="y"),
        BufferSpec.uniform(3, (("n", "u32"),)),
    ),
    reference=lambda y, inp, b: np.maximum(inp + b, 0),
)

# F5: the uniform declared i64 where the WGSL struct says u32: every later field is
# read 4 bytes off, silently; the verdict is a value MISMATCH, no layout error.
_SCALE = """
struct P { n: u32, scale: f32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: P;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x < p.n) { y[g.x] = x[g.x] * p.scale; }
}
"""
F5 = KernelSpec(
    id="f5_uniform_layout",
    entry_point="main",
    sources={"wgsl": _SCALE},
    buffers=(
        BufferSpec(0, "f32", "read", name="x"),
        BufferSpec(1, "f32", "read_write", name="y"),
        BufferSpec.uniform(2, (("n", "i64"), ("scale", "f32"))),
    ),
    reference=lambda x, y, params: x * params["scale"],
    defaults={"scale": 3.0},
    grid=lambda s, n: (ceil_div(n, 64), 1, 1),
)


def main() -> None:
    ev = oracle.evaluate("wgpu", F1, size="M=64,N=64,K=64", seed=0, samples=0)
    print("F1 gemm beta:", ev.verdict.value, "| max_ulp", ev.max_ulp, "|", ev.problems)
    ev = oracle.evaluate("wgpu", F2, size=4099, seed=0, samples=0)
    print("F2 add+relu:", ev.verdict.value, "|", ev.problems)
    for k in (F3, F3_NO_EPS):
        for size in ("8x768", "64x32"):
            ev = oracle.evaluate("wgpu", k, size=size, seed=0, samples=0)
            print("F3", k.id, size, ev.verdict.value)
    ev = oracle.evaluate("reference", F4, size=100, seed=0, samples=0)
    print("F4 partial names:", ev.verdict.value, "|", ev.problems)
    ev = oracle.evaluate("wgpu", F5, size=100, seed=0, samples=0)
    print("F5 uniform layout:", ev.verdict.value, "|", ev.problems)


if __name__ == "__main__":
    main()

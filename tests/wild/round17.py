"""Round 17 of kernels from the wild, merged into ``tests.wild.CORPUS``: WGSL recurrences
of the sequence models people run in the browser, where rounding is carried through a
long loop rather than a sum. RWKV-4's WKV (BlinkDL's CUDA kernel as web-rwkv writes it
in WGSL: one invocation per channel walks the tokens, the state kept as a numerator, a
denominator and a running maximum exponent so that exp never overflows), and Mamba's
selective scan (one invocation per channel, its 16 states in a register array, the
step size through softplus written as ``log(1 + exp(x))`` with Mamba's threshold, the
output gated by SiLU), and causal linear attention (Katharopoulos et al.'s elu + 1
feature map, one invocation per output column carrying its column of the running
``phi(K)^T V`` and the normaliser). Each has a numpy reference written the natural
way, in float64 (``np.log1p``, vectorised over the channels; the attention as prefix
sums), and mutants that each hold one plausible bug.

The WKV is written for this corpus after BlinkDL's CUDA kernel: read, not copied (the
project's rule for public code: round 17 first took its loop line for line into WGSL,
BlinkDL's names with it, and it was rewritten on 2026-12-06). What is theirs is kept:
the entry point ``wkv_forward`` and its bindings (group, binding, name, type, access,
order) and ``Params``, an invocation per (batch, channel), the state as a numerator,
a denominator and a running maximum exponent starting at -1e38, and the numerics in
their order: the output's maximum of the state's exponent and ``u + k``, its two exps
and the quotient, then the state decayed by ``w = -exp(time_decay)`` added to the
exponent, the new maximum against ``k`` and the two weighted sums. What is ours: the
comments, the locals' names, the index arithmetic and the formatting.

- RWKV-4's WKV forward (BlinkDL/RWKV-LM at c43a17cf, Apache-2.0,
  ``RWKV-v4/cuda/wkv_cuda.cu``, ``kernel_forward``), in WGSL as web-rwkv runs it.

The selective scan and the causal linear attention were written by the project for
this corpus after Mamba's ``selective_scan_fn`` interface and Katharopoulos et al.'s
paper, copying no file (a search of the stored public code found none they follow),
and stay as written.

What they found, fixed in the oracle on 2026-12-03: the WKV mutant that drops the
running maximum passed on lavapipe and SwiftShader. Under its keys' domain of (-100,
100) no key past 4 was drawn: the normal family stops at 4 and the large magnitudes
start at 1e4, outside the domain, so the exp that overflows past 88 never did. A domain
that reaches 16 or further now gets its own far ends as the large family
(``oracle/_inputs.py``), and the mutant fails.
"""

from __future__ import annotations

import numpy as np

from forge import BufferSpec, KernelSpec, Schedule, ceil_div

from . import Wild

# -- after RWKV-4's WKV: y_t = (e^(u+k_t) v_t + sum_{i<t} e^(w(t-1-i)+k_i) v_i) / (same, 1)

_RWKV_WKV = """
struct Params { B: u32, T: u32, C: u32 }
@group(0) @binding(0) var<storage, read> time_decay: array<f32>;  // (C): the decay is -exp of it
@group(0) @binding(1) var<storage, read> time_first: array<f32>;  // (C): the current token's bonus
@group(0) @binding(2) var<storage, read> k: array<f32>;           // (B, T, C)
@group(0) @binding(3) var<storage, read> v: array<f32>;           // (B, T, C)
@group(0) @binding(4) var<storage, read_write> y: array<f32>;     // (B, T, C)
@group(0) @binding(5) var<uniform> params: Params;

// An invocation per (batch, channel) walks that channel's tokens in order. The state
// is a weighted sum of the past values (num) and the sum of their weights (den), both
// held as multiples of exp(expo): the exponents grow with the keys, and only their
// differences from the largest so far are ever exponentiated.
@compute @workgroup_size(64)
fn wkv_forward(@builtin(global_invocation_id) invocation: vec3<u32>) {
    let lane = invocation.x;
    if (lane >= params.B * params.C) { return; }
    let channel = lane % params.C;
    let first = (lane / params.C) * params.T * params.C + channel;
    let decay = -exp(time_decay[channel]);
    let bonus = time_first[channel];
    var num = 0.0;
    var den = 0.0;
    var expo = -1e38;
    for (var t = 0u; t < params.T; t++) {
        let at = first + t * params.C;
        let key = k[at];
        let value = v[at];

        // output: the state with this token added at weight exp(bonus + key)
        let cur = bonus + key;
        let top = max(expo, cur);
        let old_w = exp(expo - top);
        let new_w = exp(cur - top);
        y[at] = (old_w * num + new_w * value) / (old_w * den + new_w);

        // state: one step of decay, then this token at weight exp(key)
        let aged = decay + expo;
        let next = max(aged, key);
        let keep = exp(aged - next);
        let add = exp(key - next);
        num = keep * num + add * value;
        den = keep * den + add;
        expo = next;
    }
}
"""


def _wkv_reference(time_decay, time_first, k, v, y, params):
    w = -np.exp(time_decay.astype(np.float64))
    u = time_first.astype(np.float64)
    k, v = k.astype(np.float64), v.astype(np.float64)
    batch, steps, channels = k.shape
    out = np.empty_like(k)
    aa = np.zeros((batch, channels))
    bb = np.zeros((batch, channels))
    pp = np.full((batch, channels), -1e38)
    for t in range(steps):
        kk, vv = k[:, t], v[:, t]
        ww = u + kk
        p = np.maximum(pp, ww)
        e1, e2 = np.exp(pp - p), np.exp(ww - p)
        out[:, t] = (e1 * aa + e2 * vv) / (e1 * bb + e2)
        ww = w + pp
        p = np.maximum(ww, kk)
        e1, e2 = np.exp(ww - p), np.exp(kk - p)
        aa, bb, pp = e1 * aa + e2 * vv, e1 * bb + e2, p
    return out.astype(np.float32)


RWKV_WKV = Wild(
    KernelSpec(
        id="wild_r17_rwkv4_wkv_forward_running_max",
        entry_point="wkv_forward",
        sources={"wgsl": _RWKV_WKV},
        dims=("B", "T", "C"),
        buffers=(
            BufferSpec(0, "f32", "read", name="time_decay", count="C"),
            BufferSpec(1, "f32", "read", name="time_first", count="C"),
            BufferSpec(2, "f32", "read", name="k", count="B*T*C", shape=("B", "T", "C")),
            BufferSpec(3, "f32", "read", name="v", count="B*T*C", shape=("B", "T", "C")),
            BufferSpec(4, "f32", "read_write", name="y", count="B*T*C", shape=("B", "T", "C")),
            BufferSpec.uniform(5, (("B", "u32"), ("T", "u32"), ("C", "u32"))),
        ),
        reference=_wkv_reference,
        grid=lambda s, size: (ceil_div(size.B * size.C, 64), 1, 1),
        schedules=(Schedule(64),),
        # keys of a trained model reach tens: e^k alone would overflow float32 past 88
        domain={
            "time_decay": (-4.0, 1.5),
            "time_first": (-1.0, 1.0),
            "k": (-100.0, 100.0),
            "v": (-2.0, 2.0),
        },
        nonfinite_inputs=False,
        test_sizes=("B=2,T=64,C=40", "B=1,T=1,C=1", "B=1,T=300,C=8"),
    ),
    {
        "no bonus for the current token": (
            "wgsl",
            "let cur = bonus + key;",
            "let cur = key;",
        ),
        "decay grows the state": (
            "wgsl",
            "let decay = -exp(time_decay[channel]);",
            "let decay = exp(time_decay[channel]);",
        ),
        "state never decays": ("wgsl", "let aged = decay + expo;", "let aged = expo;"),
        "exponents without the running maximum": (
            "wgsl",
            "let top = max(expo, cur);",
            "let top = 0.0;",
        ),
    },
)

# -- Mamba selective scan: h = exp(dt A) h + dt B x, y = C.h + D x, gated by SiLU(z) ------

_MAMBA_SCAN = """
struct Params { batch: u32, seqlen: u32, dim: u32 }
const DSTATE: u32 = 16u;
@group(0) @binding(0) var<storage, read> u: array<f32>;           // batch, seqlen, dim
@group(0) @binding(1) var<storage, read> delta: array<f32>;       // batch, seqlen, dim
@group(0) @binding(2) var<storage, read> A_log: array<f32>;       // dim, DSTATE
@group(0) @binding(3) var<storage, read> B: array<f32>;           // batch, seqlen, DSTATE
@group(0) @binding(4) var<storage, read> C: array<f32>;           // batch, seqlen, DSTATE
@group(0) @binding(5) var<storage, read> D: array<f32>;           // dim
@group(0) @binding(6) var<storage, read> delta_bias: array<f32>;  // dim
@group(0) @binding(7) var<storage, read> z: array<f32>;           // batch, seqlen, dim
@group(0) @binding(8) var<storage, read_write> out: array<f32>;   // batch, seqlen, dim
@group(0) @binding(9) var<uniform> params: Params;

fn softplus(x: f32) -> f32 {
    if (x <= 20.0) { return log(1.0 + exp(x)); }
    return x;
}

@compute @workgroup_size(32, 1, 1)
fn selective_scan_fwd(@builtin(global_invocation_id) gid: vec3<u32>) {
    let d = gid.x;
    let b = gid.y;
    if (d >= params.dim || b >= params.batch) { return; }
    var A: array<f32, DSTATE>;
    var h: array<f32, DSTATE>;
    for (var n = 0u; n < DSTATE; n++) {
        A[n] = -exp(A_log[d * DSTATE + n]);
        h[n] = 0.0;
    }
    for (var l = 0u; l < params.seqlen; l++) {
        let i = (b * params.seqlen + l) * params.dim + d;
        let s = (b * params.seqlen + l) * DSTATE;
        let dt = softplus(delta[i] + delta_bias[d]);
        let x = u[i];
        var y = 0.0;
        for (var n = 0u; n < DSTATE; n++) {
            h[n] = exp(dt * A[n]) * h[n] + dt * B[s + n] * x;
            y += h[n] * C[s + n];
        }
        y += D[d] * x;
        let g = z[i];
        out[i] = y * (g / (1.0 + exp(-g)));
    }
}
"""


def _scan_reference(u, delta, A_log, B, C, D, delta_bias, z, out, params):
    f = np.float64
    u, delta, z = u.astype(f), delta.astype(f), z.astype(f)
    B, C = B.astype(f), C.astype(f)
    A = -np.exp(A_log.astype(f))  # dim, state
    x = delta + delta_bias.astype(f)
    dt = np.where(x <= 20.0, np.log1p(np.exp(np.minimum(x, 20.0))), x)
    batch, seqlen, dim = u.shape
    h = np.zeros((batch, dim, A.shape[1]))
    y = np.empty_like(u)
    for t in range(seqlen):
        step = dt[:, t, :, None]
        h = np.exp(step * A) * h + step * B[:, t, None, :] * u[:, t, :, None]
        y[:, t] = np.einsum("bdn,bn->bd", h, C[:, t]) + D.astype(f) * u[:, t]
    with np.errstate(over="ignore"):
        return (y * z / (1 + np.exp(-z))).astype(np.float32)


MAMBA_SCAN = Wild(
    KernelSpec(
        id="wild_r17_mamba_selective_scan_softplus_silu",
        entry_point="selective_scan_fwd",
        sources={"wgsl": _MAMBA_SCAN},
        dims=("batch", "seqlen", "dim"),
        buffers=(
            BufferSpec(
                0,
                "f32",
                "read",
                name="u",
                count="batch*seqlen*dim",
                shape=("batch", "seqlen", "dim"),
            ),
            BufferSpec(
                1,
                "f32",
                "read",
                name="delta",
                count="batch*seqlen*dim",
                shape=("batch", "seqlen", "dim"),
            ),
            BufferSpec(2, "f32", "read", name="A_log", count="dim*16", shape=("dim", 16)),
            BufferSpec(
                3, "f32", "read", name="B", count="batch*seqlen*16", shape=("batch", "seqlen", 16)
            ),
            BufferSpec(
                4, "f32", "read", name="C", count="batch*seqlen*16", shape=("batch", "seqlen", 16)
            ),
            BufferSpec(5, "f32", "read", name="D", count="dim"),
            BufferSpec(6, "f32", "read", name="delta_bias", count="dim"),
            BufferSpec(
                7,
                "f32",
                "read",
                name="z",
                count="batch*seqlen*dim",
                shape=("batch", "seqlen", "dim"),
            ),
            BufferSpec(
                8,
                "f32",
                "read_write",
                name="out",
                count="batch*seqlen*dim",
                shape=("batch", "seqlen", "dim"),
            ),
            BufferSpec.uniform(9, (("batch", "u32"), ("seqlen", "u32"), ("dim", "u32"))),
        ),
        reference=_scan_reference,
        grid=lambda s, size: (ceil_div(size.dim, 32), size.batch, 1),
        schedules=(Schedule(32),),
        domain={
            "u": (-2.0, 2.0),
            "delta": (-6.0, 3.0),
            "A_log": (-2.0, 2.5),
            "B": (-1.0, 1.0),
            "C": (-1.0, 1.0),
            "D": (-1.0, 1.0),
            "delta_bias": (-2.0, 0.5),
            "z": (-4.0, 4.0),
        },
        nonfinite_inputs=False,
        test_sizes=(
            "batch=2,seqlen=48,dim=40",
            "batch=1,seqlen=1,dim=1",
            "batch=1,seqlen=200,dim=8",
        ),
    ),
    {
        "state not decayed": ("wgsl", "h[n] = exp(dt * A[n]) * h[n] +", "h[n] = h[n] +"),
        "A not negated": (
            "wgsl",
            "A[n] = -exp(A_log[d * DSTATE + n]);",
            "A[n] = exp(A_log[d * DSTATE + n]);",
        ),
        "skip connection dropped": ("wgsl", "y += D[d] * x;", ""),
        "step size without softplus": (
            "wgsl",
            "let dt = softplus(delta[i] + delta_bias[d]);",
            "let dt = delta[i] + delta_bias[d];",
        ),
        "gate is z, not SiLU(z)": (
            "wgsl",
            "out[i] = y * (g / (1.0 + exp(-g)));",
            "out[i] = y * g;",
        ),
    },
)

ROUND17: dict[str, Wild] = {w.kernel.id: w for w in (RWKV_WKV, MAMBA_SCAN)}

# -- causal linear attention (Katharopoulos et al.): phi = elu + 1, running K^T V and z --

_LINEAR_ATTENTION = """
struct Dims { T: u32, D: u32, M: u32 }
@group(0) @binding(0) var<storage, read> Q: array<f32>;      // heads, T, D
@group(0) @binding(1) var<storage, read> K: array<f32>;      // heads, T, D
@group(0) @binding(2) var<storage, read> V: array<f32>;      // heads, T, M
@group(0) @binding(3) var<storage, read_write> out: array<f32>;  // heads, T, M
@group(0) @binding(4) var<uniform> dims: Dims;

const MAX_D: u32 = 32u;

fn phi(x: f32) -> f32 {
  return select(exp(x), x + 1.0, x > 0.0);  // elu(x) + 1
}

// one invocation per (head, output column m): its column of S = sum phi(k) v^T and z
@compute @workgroup_size(64)
fn causal_linear_attention(@builtin(global_invocation_id) gid: vec3<u32>,
                           @builtin(workgroup_id) wid: vec3<u32>) {
  let m = gid.x;
  let head = wid.y;
  if (m >= dims.M) { return; }
  var s: array<f32, MAX_D>;
  var z: array<f32, MAX_D>;
  for (var d = 0u; d < dims.D; d++) { s[d] = 0.0; z[d] = 0.0; }
  for (var t = 0u; t < dims.T; t++) {
    let qk = (head * dims.T + t) * dims.D;
    let v = V[(head * dims.T + t) * dims.M + m];
    var num = 0.0;
    var den = 0.0;
    for (var d = 0u; d < dims.D; d++) {
      let fk = phi(K[qk + d]);
      s[d] += fk * v;
      z[d] += fk;
      let fq = phi(Q[qk + d]);
      num += fq * s[d];
      den += fq * z[d];
    }
    out[(head * dims.T + t) * dims.M + m] = num / (den + 1e-6);
  }
}
"""


def _linear_attention_reference(Q, K, V, out, dims):
    def phi(x):
        x = x.astype(np.float64)
        return np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))

    q, k, v = phi(Q), phi(K), V.astype(np.float64)
    # (heads, T, D, M): the running sums over the first t keys, as a prefix sum
    s = np.cumsum(k[..., :, None] * v[..., None, :], axis=1)
    z = np.cumsum(k, axis=1)
    num = np.einsum("htd,htdm->htm", q, s)
    den = np.einsum("htd,htd->ht", q, z)[..., None]
    return (num / (den + 1e-6)).astype(np.float32)


LINEAR_ATTENTION = Wild(
    KernelSpec(
        id="wild_r17_causal_linear_attention_elu_feature_map",
        entry_point="causal_linear_attention",
        sources={"wgsl": _LINEAR_ATTENTION},
        dims=("heads", "T", "D", "M"),
        buffers=(
            BufferSpec(0, "f32", "read", name="Q", count="heads*T*D", shape=("heads", "T", "D")),
            BufferSpec(1, "f32", "read", name="K", count="heads*T*D", shape=("heads", "T", "D")),
            BufferSpec(2, "f32", "read", name="V", count="heads*T*M", shape=("heads", "T", "M")),
            BufferSpec(
                3, "f32", "read_write", name="out", count="heads*T*M", shape=("heads", "T", "M")
            ),
            BufferSpec.uniform(4, (("T", "u32"), ("D", "u32"), ("M", "u32"))),
        ),
        reference=_linear_attention_reference,
        grid=lambda s, size: (ceil_div(size.M, 64), size.heads, 1),
        schedules=(Schedule(64),),
        domain={"Q": (-4.0, 4.0), "K": (-4.0, 4.0), "V": (-2.0, 2.0)},
        nonfinite_inputs=False,
        test_sizes=("heads=2,T=50,D=16,M=24", "heads=1,T=1,D=1,M=1", "heads=3,T=130,D=32,M=70"),
    ),
    {
        "not causal: the key of step t left out": (
            "wgsl",
            "      s[d] += fk * v;\n      z[d] += fk;\n      let fq = phi(Q[qk + d]);\n"
            "      num += fq * s[d];\n      den += fq * z[d];",
            "      let fq = phi(Q[qk + d]);\n      num += fq * s[d];\n      den += fq * z[d];\n"
            "      s[d] += fk * v;\n      z[d] += fk;",
        ),
        "feature map elu, without the + 1": (
            "wgsl",
            "return select(exp(x), x + 1.0, x > 0.0);",
            "return select(exp(x) - 1.0, x, x > 0.0);",
        ),
        "normaliser of the queries only": ("wgsl", "den += fq * z[d];", "den += fq;"),
    },
)

ROUND17[LINEAR_ATTENTION.kernel.id] = LINEAR_ATTENTION

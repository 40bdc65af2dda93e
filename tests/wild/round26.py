"""Round 26 of kernels from the wild, merged into ``tests.wild.CORPUS``: LLM training
and inference kernels as llm.c, ggml / llama.cpp and vLLM write them, most with a WGSL
port in the same ``KernelSpec`` so that the port runs here (lavapipe, SwiftShader) and
the CUDA original on the GPU machine, both judged by one float64 reference.

- llm.c's ``encoder_forward_kernel2`` (``wte[inp[b, t]] + wpe[t]``, no pointer const,
  ``int B, T, C`` by value) and ``crossentropy_forward_kernel1`` over a vocabulary
  padded to ``Vp`` (50257 -> 50304), probs drawn in (1e-6, 1].
- llm.c's ``adamw_kernel2``: ``lerp`` as two ``fma``, bias corrections computed on the
  host (step 10) and passed by value with ``long num_parameters``, against
  ``torch.optim.AdamW``; gradients and moments drawn over eight decades (|m| below
  sqrt(v)) so that eps matters somewhere.
- llm.c's ``gelu_backward_kernel`` (tanh form, ``sech`` from ``coshf``).
- A causal attention softmax over (B, NH, T, T) scores, one warp a row with
  ``__shfl_down_sync`` and a lane-0 broadcast (``__launch_bounds__(128)``); the WGSL
  port gives each row 32 invocations of a 128-wide workgroup.
- ggml's ``dequantize_block_q4_0<float>`` (``static __global__``, 18-byte
  ``block_q4_0`` with a ``half`` scale and its ``static_assert``, 8 blocks of 32 a CUDA
  block) and ``dequantize_block<QK8_0, QR8_0, dequantize_q8_0, float>`` (a
  function-pointer template parameter, macros in the entry point's template
  arguments, ``int8_t`` quants, ``int64_t k``); the WGSL ports read the blocks byte by
  byte from u32 words and sign-extend by shifts.
- ggml's ``rms_norm_f32<WARP_SIZE>`` (``__shfl_xor_sync`` butterfly; the port's
  butterfly goes through workgroup memory).
- ggml's ``rope_neox<true, true, float>`` with YaRN (``ext_factor`` 1, ``freq_scale``
  0.25, the ramp in ``const rope_corr_dims corr_dims``, a struct of ``float v[2]`` by
  value among nine scalars), ``freq_factors`` and partial rotary (n_dims half the
  head), 2-D blocks (1, 256, 1) (CUDA only).
- ggml's ``soft_max_f32<true, 0, 0, half>``: a ``half`` KQ mask holding ALiBi distances
  (``-|i - j|``, ``-inf`` in the future), per-head slopes from ``m0``/``m1``/
  ``n_head_log2`` (12 heads take the ``m1`` branch), dynamic shared memory of ``32 +
  ncols`` floats (CUDA only).
- vLLM's ``fused_add_rms_norm_kernel<float>`` in ``namespace vllm``: residual add and
  RMSNorm in place (two inout outputs) with ``cub::BlockReduce<float, 1024>`` over a
  256-thread block.

What they showed (lavapipe and SwiftShader here, NVRTC 13 for sm_90, 2026-12-05; no
GPU: the CUDA originals and their mutants run on the H200 later):

- Every CUDA declaration binds as the source means (checked with ``cuda_arguments``
  at each test size and ``kforge validate``'s NVRTC compile and PTX check): the
  macro-spelt entry points (``QK8_0``, ``WARP_SIZE``), the function-pointer template,
  ``long``/``int64_t``/``uint32_t`` scalars, the ``half`` mask, the struct by value.
- A struct by value beside scalars by value (ggml's rope) could not be described: any
  ``defaults``/``params`` value that was no field of the uniform block was refused
  ("unknown uniform fields"), so the scalars go as CUDA ``overrides`` here. Fixed (a
  value named like a CUDA parameter by value is no mistake);
  tests/test_wild_round26.py states it.
- vLLM's ``#include <cub/cub.cuh>`` is refused by CCCL itself under NVRTC (an
  ``#error`` naming the fix), and ``cub::Sum`` is gone from CCCL 3: the source includes
  ``<cub/block/block_reduce.cuh>`` and uses vLLM's ``CubAddOp``, as vLLM does now.
- AdamW with moments drawn independently (|m| up to 1e-2 beside v down to 1e-14) failed
  the right kernel on lavapipe by 1e-5 (m's rounding divided by a tiny sqrt(v)): those
  inputs are not Adam's, whose |m| stays below sqrt(v); drawn so, it passes, and eps
  inside the square root fails (with a uniform draw of v it passed: eps never mattered).
- Invisible, as measured: the dropped barrier after ``s_variance`` in the WGSL port
  (invocation 0 runs first on both CPU adapters) and, by shift-invariance, future
  scores in the softmax's max.
"""

# ruff: noqa: E501  (the CUDA sources keep their projects' long lines, as written)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, KernelSpec, Schedule, ceil_div

from . import Wild

# -- llm.c encoder_forward: token + position embedding -----------------------------------

_ENCODER_CUDA = r"""
// llm.c (train_gpt2_fp32.cu): out[b,t,:] = wte[inp[b,t],:] + wpe[t,:]
__global__ void encoder_forward_kernel2(float* out,
                               int* inp, float* wte, float* wpe,
                               int B, int T, int C) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int N = B * T * C;

    if (idx < N) {
        int bt = idx / C;
        int b = bt / T;
        int t = bt % T;
        int c = idx % C;

        int ix = inp[b * T + t];

        float* out_btc = out + b * T * C + t * C + c;
        float* wte_ix = wte + ix * C + c;
        float* wpe_tc = wpe + t * C + c;
        *out_btc = *wte_ix + *wpe_tc;
    }
}
"""

_ENCODER_WGSL = """
struct Params { B: u32, T: u32, C: u32 }
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> inp: array<i32>;
@group(0) @binding(2) var<storage, read> wte: array<f32>;
@group(0) @binding(3) var<storage, read> wpe: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

@compute @workgroup_size(256)
fn encoder_forward_kernel2(@builtin(global_invocation_id) gid: vec3<u32>) {
    let idx = gid.x;
    if (idx >= p.B * p.T * p.C) { return; }
    let bt = idx / p.C;
    let b = bt / p.T;
    let t = bt % p.T;
    let c = idx % p.C;
    let ix = u32(inp[b * p.T + t]);
    out[b * p.T * p.C + t * p.C + c] = wte[ix * p.C + c] + wpe[t * p.C + c];
}
"""

_VOCAB = 1000


def _tokens(rng, count, size):
    return rng.integers(0, _VOCAB, count).astype(np.int32)


def _encoder_reference(out, inp, wte, wpe, p):
    B, T, C = int(p["B"]), int(p["T"]), int(p["C"])
    emb = wte.reshape(_VOCAB, C).astype(np.float64)[inp.reshape(B, T)]
    return (emb + wpe.reshape(T, C).astype(np.float64)[None]).astype(np.float32).ravel()


ENCODER = Wild(
    KernelSpec(
        id="wild_r26_llmc_encoder_forward_wte_plus_wpe",
        entry_point="encoder_forward_kernel2",
        sources={"cuda": _ENCODER_CUDA, "wgsl": _ENCODER_WGSL},
        dims=("B", "T", "C"),
        buffers=(
            BufferSpec(0, "f32", "read_write", name="out", count="B*T*C"),
            BufferSpec(1, "i32", "read", name="inp", count="B*T", fill=_tokens),
            BufferSpec(2, "f32", "read", name="wte", count=lambda size: _VOCAB * size.C),
            BufferSpec(3, "f32", "read", name="wpe", count="T*C"),
            BufferSpec.uniform(4, (("B", "u32"), ("T", "u32"), ("C", "u32"))),
        ),
        reference=_encoder_reference,
        params=lambda size: dict(size.dims),
        grid=lambda s, size: (ceil_div(size.B * size.T * size.C, 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=("B=4,T=64,C=768", "B=1,T=1,C=1", "B=3,T=17,C=33"),
    ),
    {
        "CUDA: token read without the batch offset": (
            "cuda",
            "int ix = inp[b * T + t];",
            "int ix = inp[t];",
        ),
        "token read without the batch offset": (
            "wgsl",
            "let ix = u32(inp[b * p.T + t]);",
            "let ix = u32(inp[t]);",
        ),
        "token row strided by T": ("wgsl", "wte[ix * p.C + c]", "wte[ix * p.T + c]"),
        "position row of the batch, not the time step": (
            "wgsl",
            "wpe[t * p.C + c]",
            "wpe[b * p.C + c]",
        ),
    },
)


# -- llm.c crossentropy_forward over a padded vocabulary ---------------------------------

_CE_CUDA = r"""
// llm.c: probs are (B, T, Vp), Vp the vocabulary padded to a multiple of 64
__global__ void crossentropy_forward_kernel1(float* losses,
                            const float* probs, const int* targets,
                            int B, int T, int Vp) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < B * T) {
        int b = i / T;
        int t = i % T;
        const float* probs_bt = probs + b * T * Vp + t * Vp;
        int ix = targets[b * T + t];
        losses[b * T + t] = -logf(probs_bt[ix]);
    }
}
"""

_CE_WGSL = """
struct Params { B: u32, T: u32, Vp: u32 }
@group(0) @binding(0) var<storage, read_write> losses: array<f32>;
@group(0) @binding(1) var<storage, read> probs: array<f32>;
@group(0) @binding(2) var<storage, read> targets: array<i32>;
@group(0) @binding(3) var<uniform> p: Params;

@compute @workgroup_size(128)
fn crossentropy_forward_kernel1(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < p.B * p.T) {
        let b = i / p.T;
        let t = i % p.T;
        let base = b * p.T * p.Vp + t * p.Vp;
        let ix = u32(targets[b * p.T + t]);
        losses[b * p.T + t] = -log(probs[base + ix]);
    }
}
"""


def _padded(V):
    return ceil_div(V, 64) * 64


def _targets(rng, count, size):
    return rng.integers(0, size.V, count).astype(np.int32)


def _ce_reference(losses, probs, targets, p):
    Vp = int(p["Vp"])
    rows = probs.reshape(-1, Vp).astype(np.float64)
    return (-np.log(rows[np.arange(len(targets)), targets])).astype(np.float32)


CROSSENTROPY = Wild(
    KernelSpec(
        id="wild_r26_llmc_crossentropy_forward_padded_vocab",
        entry_point="crossentropy_forward_kernel1",
        sources={"cuda": _CE_CUDA, "wgsl": _CE_WGSL},
        dims=("B", "T", "V"),
        buffers=(
            BufferSpec(0, "f32", "read_write", name="losses", count="B*T"),
            BufferSpec(
                1,
                "f32",
                "read",
                name="probs",
                count=lambda size: size.B * size.T * _padded(size.V),
            ),
            BufferSpec(2, "i32", "read", name="targets", count="B*T", fill=_targets),
            BufferSpec.uniform(3, (("B", "u32"), ("T", "u32"), ("Vp", "u32"))),
        ),
        reference=_ce_reference,
        params=lambda size: {"B": size.B, "T": size.T, "Vp": _padded(size.V)},
        grid=lambda s, size: (ceil_div(size.B * size.T, 128), 1, 1),
        schedules=(Schedule(128),),
        domain={"probs": (1e-6, 1.0)},
        nonfinite_inputs=False,
        test_sizes=("B=2,T=16,V=50257", "B=1,T=1,V=1", "B=3,T=7,V=1000"),
    ),
    {
        "CUDA: rows strided by the unpadded vocabulary": (
            "cuda",
            "probs + b * T * Vp + t * Vp;",
            "probs + b * T * Vp + t * (Vp - 64);",
        ),
        "rows strided by the time step's batch": (
            "wgsl",
            "let base = b * p.T * p.Vp + t * p.Vp;",
            "let base = b * p.Vp + t * p.Vp;",
        ),
        "log of the complement": (
            "wgsl",
            "-log(probs[base + ix])",
            "-log(1.0 - probs[base + ix])",
        ),
        "target of the first batch row": (
            "wgsl",
            "let ix = u32(targets[b * p.T + t]);",
            "let ix = u32(targets[t]);",
        ),
    },
)


# -- llm.c adamw_kernel2: AdamW with bias correction ---------------------------------------

_ADAMW_CUDA = r"""
// llm.c (train_gpt2_fp32.cu)
__device__ inline float lerp(float start, float end, float weight) {
    return fma(weight, end, fma(-weight, start, start));
}

__global__ void adamw_kernel2(float* params_memory, float* grads_memory, float* m_memory, float* v_memory, long num_parameters,
                              float learning_rate, float beta1, float beta2, float beta1_correction, float beta2_correction, float eps, float weight_decay) {
   int i = blockIdx.x * blockDim.x + threadIdx.x;
   if (i >= num_parameters) return;  // guard
   float grad = grads_memory[i];
   float m = m_memory[i];
   float v = v_memory[i];
   // update the first moment (momentum)
   m = lerp(grad, m, beta1);
   m_memory[i] = m;
   // update the second moment (RMSprop)
   v = lerp(grad * grad, v, beta2);
   v_memory[i] = v;
   m /= beta1_correction;  // m_hat
   v /= beta2_correction;  // v_hat
   params_memory[i] -= learning_rate * (m / (sqrtf(v) + eps) + weight_decay * params_memory[i]);
}
"""

_ADAMW_WGSL = """
struct Params {
    num_parameters: u32,
    learning_rate: f32,
    beta1: f32,
    beta2: f32,
    beta1_correction: f32,
    beta2_correction: f32,
    eps: f32,
    weight_decay: f32,
}
@group(0) @binding(0) var<storage, read_write> params_memory: array<f32>;
@group(0) @binding(1) var<storage, read> grads_memory: array<f32>;
@group(0) @binding(2) var<storage, read_write> m_memory: array<f32>;
@group(0) @binding(3) var<storage, read_write> v_memory: array<f32>;
@group(0) @binding(4) var<uniform> u: Params;

fn lerp(start: f32, end: f32, weight: f32) -> f32 {
    return fma(weight, end, fma(-weight, start, start));
}

@compute @workgroup_size(256)
fn adamw_kernel2(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= u.num_parameters) { return; }
    let grad = grads_memory[i];
    var m = m_memory[i];
    var v = v_memory[i];
    m = lerp(grad, m, u.beta1);
    m_memory[i] = m;
    v = lerp(grad * grad, v, u.beta2);
    v_memory[i] = v;
    m /= u.beta1_correction;
    v /= u.beta2_correction;
    let p = params_memory[i];
    params_memory[i] = p - u.learning_rate * (m / (sqrt(v) + u.eps) + u.weight_decay * p);
}
"""

_ADAM_STEP = 10  # the bias corrections the host computes for step t
_ADAM = {"learning_rate": 1e-3, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weight_decay": 0.1}


def _magnitude(count):
    # one magnitude an element, 1e-9 to 1e-1 (a golden-ratio sequence over the index, so
    # the three fills agree), as real gradients and moments span decades; a uniform draw
    # is 1e-3 almost everywhere, where eps never matters
    return 10.0 ** (-1.0 - 8.0 * ((np.arange(count) * 0.6180339887498949) % 1.0))


def _signed(rng, count):
    return np.where(rng.random(count) < 0.5, -1.0, 1.0)


def _adam_grads(rng, count, size):
    return (_magnitude(count) * _signed(rng, count) * rng.uniform(0.1, 1, count)).astype(np.float32)


def _adam_m(rng, count, size):
    # |m| below sqrt(v), as an average of the gradients is below their root mean square
    return (_magnitude(count) * _signed(rng, count) * rng.uniform(0, 1, count)).astype(np.float32)


def _adam_v(rng, count, size):
    return (_magnitude(count) ** 2 * rng.uniform(1, 4, count)).astype(np.float32)


def _adamw_reference(params_memory, grads_memory, m_memory, v_memory):
    # torch.optim.AdamW at step t: decoupled weight decay, bias-corrected moments
    lr, b1, b2 = _ADAM["learning_rate"], _ADAM["beta1"], _ADAM["beta2"]
    p, g = params_memory.astype(np.float64), grads_memory.astype(np.float64)
    m = b1 * m_memory.astype(np.float64) + (1 - b1) * g
    v = b2 * v_memory.astype(np.float64) + (1 - b2) * g * g
    m_hat, v_hat = m / (1 - b1**_ADAM_STEP), v / (1 - b2**_ADAM_STEP)
    p = p - lr * _ADAM["weight_decay"] * p - lr * m_hat / (np.sqrt(v_hat) + _ADAM["eps"])
    return p.astype(np.float32), m.astype(np.float32), v.astype(np.float32)


ADAMW = Wild(
    KernelSpec(
        id="wild_r26_llmc_adamw_bias_correction_lerp",
        entry_point="adamw_kernel2",
        sources={"cuda": _ADAMW_CUDA, "wgsl": _ADAMW_WGSL},
        buffers=(
            BufferSpec(0, "f32", "read_write", name="params_memory", inout=True),
            BufferSpec(1, "f32", "read", name="grads_memory", fill=_adam_grads),
            BufferSpec(2, "f32", "read_write", name="m_memory", inout=True, fill=_adam_m),
            BufferSpec(3, "f32", "read_write", name="v_memory", inout=True, fill=_adam_v),
            BufferSpec.uniform(
                4,
                (
                    ("num_parameters", "u32"),
                    ("learning_rate", "f32"),
                    ("beta1", "f32"),
                    ("beta2", "f32"),
                    ("beta1_correction", "f32"),
                    ("beta2_correction", "f32"),
                    ("eps", "f32"),
                    ("weight_decay", "f32"),
                ),
                name="u",
            ),
        ),
        reference=_adamw_reference,
        params=lambda n: {
            "num_parameters": n,
            "beta1_correction": 1 - _ADAM["beta1"] ** _ADAM_STEP,
            "beta2_correction": 1 - _ADAM["beta2"] ** _ADAM_STEP,
        },
        defaults=dict(_ADAM),
        grid=lambda s, n: (ceil_div(n, 256), 1, 1),
        schedules=(Schedule(256),),  # llm.c launches 512; WebGPU's default limit is 256
        domain={"params_memory": (-1.0, 1.0)},
        nonfinite_inputs=False,
        test_sizes=(124_439, 1, 4096),
    ),
    {
        "CUDA: second moment not bias-corrected": ("cuda", "v /= beta2_correction;", ""),
        "second moment not bias-corrected": ("wgsl", "v /= u.beta2_correction;", ""),
        "lerp weights swapped": (
            "wgsl",
            "m = lerp(grad, m, u.beta1);",
            "m = lerp(m, grad, u.beta1);",
        ),
        "weight decay folded into the gradient (Adam with L2)": (
            "wgsl",
            "let grad = grads_memory[i];",
            "let grad = grads_memory[i] + u.weight_decay * params_memory[i];",
        ),
        "eps inside the square root": ("wgsl", "(sqrt(v) + u.eps)", "sqrt(v + u.eps)"),
    },
)


# -- llm.c gelu_backward (tanh approximation) -----------------------------------------------

_GELU_BW_CUDA = r"""
#define GELU_SCALING_FACTOR sqrtf(2.0f / M_PI)

__global__ void gelu_backward_kernel(float* dinp, const float* inp, const float* dout, const int N) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        float x = inp[i];
        float cube = 0.044715f * x * x * x;
        float tanh_arg = GELU_SCALING_FACTOR * (x + cube);
        float tanh_out = tanhf(tanh_arg);
        float coshf_out = coshf(tanh_arg);
        float sech_out = 1.0f / (coshf_out * coshf_out);
        float local_grad = 0.5f * (1.0f + tanh_out) + x * 0.5f * sech_out * GELU_SCALING_FACTOR * (1.0f + 3.0f * 0.044715f * x * x);
        dinp[i] = local_grad * dout[i];
    }
}
"""

_GELU_BW_WGSL = """
const GELU_SCALING_FACTOR: f32 = 0.7978845608028654;  // sqrt(2 / pi)
@group(0) @binding(0) var<storage, read_write> dinp: array<f32>;
@group(0) @binding(1) var<storage, read> inp: array<f32>;
@group(0) @binding(2) var<storage, read> dout: array<f32>;

@compute @workgroup_size(128)
fn gelu_backward_kernel(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < arrayLength(&dinp)) {
        let x = inp[i];
        let cube = 0.044715 * x * x * x;
        let tanh_arg = GELU_SCALING_FACTOR * (x + cube);
        let tanh_out = tanh(tanh_arg);
        let coshf_out = cosh(tanh_arg);
        let sech_out = 1.0 / (coshf_out * coshf_out);
        let local_grad = 0.5 * (1.0 + tanh_out) + x * 0.5 * sech_out * GELU_SCALING_FACTOR * (1.0 + 3.0 * 0.044715 * x * x);
        dinp[i] = local_grad * dout[i];
    }
}
"""


def _gelu_backward_reference(dinp, inp, dout):
    # d/dx of 0.5 x (1 + tanh(k (x + 0.044715 x^3))), as torch's gelu(approximate="tanh")
    x = inp.astype(np.float64)
    k = np.sqrt(2 / np.pi)
    u = k * (x + 0.044715 * x**3)
    th = np.tanh(u)
    grad = 0.5 * (1 + th) + 0.5 * x * (1 - th * th) * k * (1 + 3 * 0.044715 * x * x)
    return (grad * dout).astype(np.float32)


GELU_BACKWARD = Wild(
    KernelSpec(
        id="wild_r26_llmc_gelu_backward_tanh_cosh",
        entry_point="gelu_backward_kernel",
        sources={"cuda": _GELU_BW_CUDA, "wgsl": _GELU_BW_WGSL},
        buffers=(
            BufferSpec(0, "f32", "read_write", name="dinp"),
            BufferSpec(1, "f32", "read", name="inp"),
            BufferSpec(2, "f32", "read", name="dout"),
        ),
        reference=_gelu_backward_reference,
        params=lambda n: {"N": n},
        grid=lambda s, n: (ceil_div(n, 128), 1, 1),
        schedules=(Schedule(128),),
        # |x| past ~1e12 makes the cube overflow: x * sech^2 * (1 + 3c x^2) is 0 * inf
        domain={"inp": (-8.0, 8.0), "dout": (-2.0, 2.0)},
        nonfinite_inputs=False,
        test_sizes=(100_003, 1, 4096),
    ),
    {
        "CUDA: sech not squared": (
            "cuda",
            "1.0f / (coshf_out * coshf_out)",
            "1.0f / coshf_out",
        ),
        "sech not squared": ("wgsl", "1.0 / (coshf_out * coshf_out)", "1.0 / coshf_out"),
        "derivative of the cube without its 3": (
            "wgsl",
            "(1.0 + 3.0 * 0.044715 * x * x)",
            "(1.0 + 0.044715 * x * x)",
        ),
        "tanh term not halved": ("wgsl", "0.5 * (1.0 + tanh_out)", "(1.0 + tanh_out)"),
    },
)


# -- causal attention softmax: a warp a row (CUDA), 32 invocations a row (WGSL) -------------

_ATT_SOFTMAX_CUDA = r"""
#include <cfloat>

// llm.c-style attention softmax: preatt and att are (B, NH, T, T); row (b, h, t) keeps
// t2 <= t (causal) and writes zeros past it. One warp per row, four rows a block.
__global__ void __launch_bounds__(128) attention_softmax_causal(float* att, const float* preatt,
                                                                int B, int NH, int T, float scale) {
    const int lane = threadIdx.x % 32;
    const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= B * NH * T) return;
    const int t = row % T;
    const float* x = preatt + (size_t)row * T;
    float* y = att + (size_t)row * T;

    float maxval = -FLT_MAX;
    for (int t2 = lane; t2 <= t; t2 += 32) maxval = fmaxf(maxval, x[t2]);
    for (int offset = 16; offset > 0; offset /= 2)
        maxval = fmaxf(maxval, __shfl_down_sync(0xffffffff, maxval, offset));
    maxval = __shfl_sync(0xffffffff, maxval, 0);

    float sum = 0.0f;
    for (int t2 = lane; t2 <= t; t2 += 32) sum += expf(scale * (x[t2] - maxval));
    for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_down_sync(0xffffffff, sum, offset);
    sum = __shfl_sync(0xffffffff, sum, 0);

    const float inv = 1.0f / sum;
    for (int t2 = lane; t2 < T; t2 += 32)
        y[t2] = t2 <= t ? expf(scale * (x[t2] - maxval)) * inv : 0.0f;
}
"""

_ATT_SOFTMAX_WGSL = """
struct Params { B: u32, NH: u32, T: u32, scale: f32 }
@group(0) @binding(0) var<storage, read_write> att: array<f32>;
@group(0) @binding(1) var<storage, read> preatt: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

var<workgroup> red: array<f32, 128>;

// a port of the warp-per-row CUDA kernel: 32 invocations a row, four rows a workgroup
@compute @workgroup_size(128)
fn attention_softmax_causal(@builtin(workgroup_id) wg: vec3<u32>,
                            @builtin(local_invocation_id) lid: vec3<u32>) {
    let lane = lid.x % 32u;
    let seg = lid.x - lane;
    let row = wg.x * 4u + lid.x / 32u;
    let live = row < p.B * p.NH * p.T;
    let t = row % p.T;
    let base = row * p.T;

    var maxval = -3.402823466e+38;
    if (live) {
        for (var t2 = lane; t2 <= t; t2 += 32u) { maxval = max(maxval, preatt[base + t2]); }
    }
    red[lid.x] = maxval;
    workgroupBarrier();
    for (var s = 16u; s > 0u; s >>= 1u) {
        if (lane < s) { red[lid.x] = max(red[lid.x], red[lid.x + s]); }
        workgroupBarrier();
    }
    maxval = red[seg];
    workgroupBarrier();

    var sum = 0.0;
    if (live) {
        for (var t2 = lane; t2 <= t; t2 += 32u) { sum += exp(p.scale * (preatt[base + t2] - maxval)); }
    }
    red[lid.x] = sum;
    workgroupBarrier();
    for (var s = 16u; s > 0u; s >>= 1u) {
        if (lane < s) { red[lid.x] = red[lid.x] + red[lid.x + s]; }
        workgroupBarrier();
    }
    sum = red[seg];

    if (live) {
        let inv = 1.0 / sum;
        for (var t2 = lane; t2 < p.T; t2 += 32u) {
            var y = 0.0;
            if (t2 <= t) { y = exp(p.scale * (preatt[base + t2] - maxval)) * inv; }
            att[base + t2] = y;
        }
    }
}
"""


def _att_softmax_reference(att, preatt, p):
    T, scale = int(p["T"]), float(p["scale"])
    x = preatt.reshape(-1, T, T).astype(np.float64) * scale
    future = np.triu(np.ones((T, T), bool), 1)
    x = np.where(future, -np.inf, x)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).astype(np.float32).ravel()


ATTENTION_SOFTMAX = Wild(
    KernelSpec(
        id="wild_r26_attention_softmax_causal_warp_per_row",
        entry_point="attention_softmax_causal",
        sources={"cuda": _ATT_SOFTMAX_CUDA, "wgsl": _ATT_SOFTMAX_WGSL},
        dims=("B", "NH", "T"),
        buffers=(
            BufferSpec(0, "f32", "read_write", name="att", count="B*NH*T*T"),
            BufferSpec(1, "f32", "read", name="preatt", count="B*NH*T*T"),
            BufferSpec.uniform(2, (("B", "u32"), ("NH", "u32"), ("T", "u32"), ("scale", "f32"))),
        ),
        reference=_att_softmax_reference,
        params=lambda size: {**size.dims, "scale": 0.125},  # 1 / sqrt(head size 64)
        grid=lambda s, size: (ceil_div(size.B * size.NH * size.T, 4), 1, 1),
        schedules=(Schedule(128),),
        domain={"preatt": (-30.0, 30.0)},
        nonfinite_inputs=False,
        test_sizes=("B=2,NH=4,T=64", "B=1,NH=1,T=1", "B=1,NH=3,T=37"),
    ),
    {
        "CUDA: max not broadcast from lane 0": (
            "cuda",
            "maxval = __shfl_sync(0xffffffff, maxval, 0);",
            "",
        ),
        "CUDA: diagonal masked": ("cuda", "t2 <= t; t2 += 32) sum", "t2 < t; t2 += 32) sum"),
        "diagonal left out of the sum": (
            "wgsl",
            "for (var t2 = lane; t2 <= t; t2 += 32u) { sum +=",
            "for (var t2 = lane; t2 < t; t2 += 32u) { sum +=",
        ),
        "future scores in the sum": (
            "wgsl",
            "for (var t2 = lane; t2 <= t; t2 += 32u) { sum +=",
            "for (var t2 = lane; t2 < p.T; t2 += 32u) { sum +=",
        ),
        "future scores in the max": (
            "wgsl",
            "for (var t2 = lane; t2 <= t; t2 += 32u) { maxval =",
            "for (var t2 = lane; t2 < p.T; t2 += 32u) { maxval =",
        ),
        "segment reduced across rows": (
            "wgsl",
            "if (lane < s) { red[lid.x] = red[lid.x] + red[lid.x + s]; }",
            "if (lid.x < s) { red[lid.x] = red[lid.x] + red[lid.x + s]; }",
        ),
    },
    invisible={
        (
            "future scores in the max",
            "wgsl",
        ): "softmax is shift-invariant: a larger shift changes nothing until exp underflows "
        "(scores 87 / scale = 700 apart), far outside attention scores' range (+-30 here)",
    },
)


# -- ggml dequantize_block_q4_0: 18-byte blocks, a half scale, nibbles ------------------------

_Q4_0_CUDA = r"""
#include <cuda_fp16.h>
#include <cstdint>

#define QK4_0 32
typedef struct {
    half    d;              // delta
    uint8_t qs[QK4_0 / 2];  // nibbles / quants
} block_q4_0;
static_assert(sizeof(block_q4_0) == sizeof(half) + QK4_0 / 2, "wrong q4_0 block size/padding");

// ggml-cuda/convert.cu: 32 threads a block, each 8 outputs of one of 8 q4_0 blocks
template<typename dst_t>
static __global__ void dequantize_block_q4_0(const void * __restrict__ vx, dst_t * __restrict__ yy, int nb32) {

    const int64_t i = blockIdx.x;

    // assume 32 threads
    const int tid = threadIdx.x;
    const int il  = tid/8;
    const int ir  = tid%8;
    const int64_t ib = 8*i + ir;
    if (ib >= nb32) {
        return;
    }

    dst_t * y = yy + 256*i + 32*ir + 4*il;

    const block_q4_0 * x = (const block_q4_0 *)vx + ib;
    const float d = __half2float(x->d);
    const float dm = -8*d;

    const uint8_t * q = x->qs + 4*il;

    for (int l = 0; l < 4; ++l) {
        y[l+ 0] = d * (q[l] & 0xF) + dm;
        y[l+16] = d * (q[l] >>  4) + dm;
    }
}
"""

_Q4_0_WGSL = """
// a port of ggml's dequantize_block_q4_0: the blocks (f16 d, 16 bytes of nibbles: 18
// bytes) read from u32 words, byte by byte
struct Params { nb32: u32 }
@group(0) @binding(0) var<storage, read> vx: array<u32>;
@group(0) @binding(1) var<storage, read_write> yy: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

fn byte_at(o: u32) -> u32 { return (vx[o >> 2u] >> ((o & 3u) * 8u)) & 0xffu; }

@compute @workgroup_size(32)
fn dequantize_block_q4_0(@builtin(workgroup_id) wg: vec3<u32>,
                         @builtin(local_invocation_id) lid: vec3<u32>) {
    let i = wg.x;
    let tid = lid.x;
    let il = tid / 8u;
    let ir = tid % 8u;
    let ib = 8u * i + ir;
    if (ib >= p.nb32) { return; }
    let y = 256u * i + 32u * ir + 4u * il;
    let x = ib * 18u;
    let d = unpack2x16float(byte_at(x) | (byte_at(x + 1u) << 8u)).x;
    let dm = -8.0 * d;
    for (var l = 0u; l < 4u; l++) {
        let q = byte_at(x + 2u + 4u * il + l);
        yy[y + l] = d * f32(q & 0xfu) + dm;
        yy[y + l + 16u] = d * f32(q >> 4u) + dm;
    }
}
"""

_Q4_0 = np.dtype([("d", "<f2"), ("qs", "u1", 16)])
_Q8_0 = np.dtype([("d", "<f2"), ("qs", "i1", 32)])


def _scales(rng, count):
    # |d| of real weights: absmax / 8 (q4_0) or / 127 (q8_0) of rows of ~N(0, 0.02)
    sign = np.where(rng.random(count) < 0.5, -1.0, 1.0)
    return (sign * rng.uniform(1e-4, 0.05, count)).astype(np.float16)


def _q4_0_blocks(rng, count, size):
    blocks = np.zeros(count // _Q4_0.itemsize, _Q4_0)
    blocks["d"] = _scales(rng, len(blocks))
    blocks["qs"] = rng.integers(0, 256, (len(blocks), 16))
    return blocks.view(np.uint8)


def _q4_0_reference(vx, yy):
    # ggml's dequantize_row_q4_0: y[j] = (lo nibble - 8) d, y[j + 16] = (hi nibble - 8) d
    blocks = vx.view(_Q4_0)
    d = blocks["d"].astype(np.float64)[:, None]
    lo = (blocks["qs"] & 0xF).astype(np.float64) - 8
    hi = (blocks["qs"] >> 4).astype(np.float64) - 8
    return (np.concatenate([lo, hi], axis=1) * d).astype(np.float32).ravel()


Q4_0 = Wild(
    KernelSpec(
        id="wild_r26_ggml_dequantize_block_q4_0_half_scale",
        entry_point="dequantize_block_q4_0<float>",
        entry_points={"wgsl": "dequantize_block_q4_0"},
        sources={"cuda": _Q4_0_CUDA, "wgsl": _Q4_0_WGSL},
        buffers=(
            BufferSpec(0, "u8", "read", name="vx", count=lambda n: n // 32 * 18, fill=_q4_0_blocks),
            BufferSpec(1, "f32", "read_write", name="yy"),
            BufferSpec.uniform(2, (("nb32", "u32"),)),
        ),
        reference=_q4_0_reference,
        params=lambda n: {"nb32": n // 32},
        grid=lambda s, n: (ceil_div(n // 32, 8), 1, 1),
        schedules=(Schedule(32),),
        # n a multiple of QK4_0; 37 and 4097 blocks leave the last CUDA block part-empty
        test_sizes=(32 * 4097, 32, 32 * 37),
    ),
    {
        "CUDA: block's outputs indexed with il and ir swapped": (
            "cuda",
            "dst_t * y = yy + 256*i + 32*ir + 4*il;",
            "dst_t * y = yy + 256*i + 32*il + 4*ir;",
        ),
        "CUDA: nibbles interleaved": (
            "cuda",
            "y[l+ 0] = d * (q[l] & 0xF) + dm;\n        y[l+16]",
            "y[2*l+ 0] = d * (q[l] & 0xF) + dm;\n        y[2*l+1]",
        ),
        "nibbles interleaved": (
            "wgsl",
            "yy[y + l] = d * f32(q & 0xfu) + dm;\n        yy[y + l + 16u]",
            "yy[y + 2u * l] = d * f32(q & 0xfu) + dm;\n        yy[y + 2u * l + 1u]",
        ),
        "blocks taken as 16 bytes after the scale": (
            "wgsl",
            "let x = ib * 18u;",
            "let x = ib * 16u;",
        ),
        "offset -8 dropped": ("wgsl", "let dm = -8.0 * d;", "let dm = 0.0;"),
        "scale read from the second byte pair": (
            "wgsl",
            "unpack2x16float(byte_at(x) | (byte_at(x + 1u) << 8u)).x",
            "unpack2x16float(byte_at(x + 2u) | (byte_at(x + 3u) << 8u)).x",
        ),
    },
)


# -- ggml dequantize_block<QK8_0, QR8_0, dequantize_q8_0>: a function-pointer template ------

_Q8_0_CUDA = r"""
#include <cuda_fp16.h>
#include <cstdint>

#define QK8_0 32
#define QR8_0 1
typedef struct {
    half    d;              // delta
    int8_t  qs[QK8_0];      // quants
} block_q8_0;

typedef float dfloat;  // dequantize float
typedef float2 dfloat2;

typedef void (*dequantize_kernel_t)(const void * vx, const int64_t ib, const int iqs, dfloat2 & v);

static __device__ __forceinline__ void dequantize_q8_0(const void * vx, const int64_t ib, const int iqs, dfloat2 & v){
    const block_q8_0 * x = (const block_q8_0 *) vx;

    const dfloat d = x[ib].d;

    v.x = x[ib].qs[iqs + 0];
    v.y = x[ib].qs[iqs + 1];

    v.x *= d;
    v.y *= d;
}

template <int qk, int qr, dequantize_kernel_t dequantize_kernel, typename dst_t>
static __global__ void dequantize_block(const void * __restrict__ vx, dst_t * __restrict__ y, const int64_t k) {
    const int64_t i = (int64_t)2*(blockDim.x*blockIdx.x + threadIdx.x);

    if (i >= k) {
        return;
    }

    const int64_t ib = i/qk; // block index
    const int64_t iqs = (i%qk)/qr; // quant index
    const int64_t iybs = i - i%qk; // y block start index
    const int64_t y_offset = qr == 1 ? 1 : qk/2;

    // dequantize
    dfloat2 v;
    dequantize_kernel(vx, ib, iqs, v);

    y[iybs + iqs + 0]        = v.x;
    y[iybs + iqs + y_offset] = v.y;
}
"""

_Q8_0_WGSL = """
// a port of ggml's dequantize_block for q8_0 (f16 d, 32 int8 quants: 34 bytes a block),
// two outputs an invocation
struct Params { k: u32 }
@group(0) @binding(0) var<storage, read> vx: array<u32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

fn byte_at(o: u32) -> u32 { return (vx[o >> 2u] >> ((o & 3u) * 8u)) & 0xffu; }
fn int8_at(o: u32) -> i32 { return bitcast<i32>(byte_at(o) << 24u) >> 24u; }

@compute @workgroup_size(256)
fn dequantize_block(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = 2u * gid.x;
    if (i >= p.k) { return; }
    let ib = i / 32u;
    let iqs = i % 32u;
    let iybs = i - i % 32u;
    let x = ib * 34u;
    let d = unpack2x16float(byte_at(x) | (byte_at(x + 1u) << 8u)).x;
    y[iybs + iqs] = f32(int8_at(x + 2u + iqs)) * d;
    y[iybs + iqs + 1u] = f32(int8_at(x + 2u + iqs + 1u)) * d;
}
"""


def _q8_0_blocks(rng, count, size):
    blocks = np.zeros(count // _Q8_0.itemsize, _Q8_0)
    blocks["d"] = _scales(rng, len(blocks))
    blocks["qs"] = rng.integers(-128, 128, (len(blocks), 32))
    return blocks.view(np.uint8)


def _q8_0_reference(vx, y):
    blocks = vx.view(_Q8_0)
    values = blocks["qs"].astype(np.float64) * blocks["d"].astype(np.float64)[:, None]
    return values.astype(np.float32).ravel()


Q8_0 = Wild(
    KernelSpec(
        id="wild_r26_ggml_dequantize_block_q8_0_fn_pointer_template",
        entry_point="dequantize_block<QK8_0, QR8_0, dequantize_q8_0, float>",
        entry_points={"wgsl": "dequantize_block"},
        sources={"cuda": _Q8_0_CUDA, "wgsl": _Q8_0_WGSL},
        buffers=(
            BufferSpec(0, "u8", "read", name="vx", count=lambda n: n // 32 * 34, fill=_q8_0_blocks),
            BufferSpec(1, "f32", "read_write", name="y"),
            BufferSpec.uniform(2, (("k", "u32"),)),
        ),
        reference=_q8_0_reference,
        params=lambda n: {"k": n},
        grid=lambda s, n: (ceil_div(n // 2, 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=(32 * 4099, 32, 32 * 37),
    ),
    {
        "CUDA: quants declared unsigned": (
            "cuda",
            "    int8_t  qs[QK8_0];",
            "    uint8_t qs[QK8_0];",
        ),
        "CUDA: second value written half a block away": (
            "cuda",
            "const int64_t y_offset = qr == 1 ? 1 : qk/2;",
            "const int64_t y_offset = qk/2;",
        ),
        "quants not sign-extended": (
            "wgsl",
            "return bitcast<i32>(byte_at(o) << 24u) >> 24u;",
            "return i32(byte_at(o));",
        ),
        "blocks strided by 36 bytes (scale padded to 4)": (
            "wgsl",
            "let x = ib * 34u;",
            "let x = ib * 36u;",
        ),
        "quants read over the scale (header not skipped)": (
            "wgsl",
            "y[iybs + iqs] = f32(int8_at(x + 2u + iqs)) * d;",
            "y[iybs + iqs] = f32(int8_at(x + iqs)) * d;",
        ),
    },
)


# -- ggml rms_norm_f32: warp-shuffle reduce ------------------------------------------------

_RMS_NORM_CUDA = r"""
#define WARP_SIZE 32

static __device__ __forceinline__ float warp_reduce_sum(float x) {
#pragma unroll
    for (int mask = 16; mask > 0; mask >>= 1) {
        x += __shfl_xor_sync(0xffffffff, x, mask, 32);
    }
    return x;
}

// ggml-cuda/norm.cu: one row a block; block_size WARP_SIZE for ncols < 1024, else 1024
template <int block_size>
static __global__ void rms_norm_f32(const float * x, float * dst, const int ncols, const float eps) {
    const int row = blockIdx.x*blockDim.y + threadIdx.y;
    const int tid = threadIdx.x;

    float tmp = 0.0f; // partial sum for thread in warp

    for (int col = tid; col < ncols; col += block_size) {
        const float xi = x[row*ncols + col];
        tmp += xi * xi;
    }

    // sum up partial sums
    tmp = warp_reduce_sum(tmp);
    if (block_size > WARP_SIZE) {
        __shared__ float s_sum[32];
        int warp_id = threadIdx.x / WARP_SIZE;
        int lane_id = threadIdx.x % WARP_SIZE;
        if (lane_id == 0) {
            s_sum[warp_id] = tmp;
        }
        __syncthreads();
        tmp = s_sum[lane_id];
        tmp = warp_reduce_sum(tmp);
    }

    const float mean = tmp / ncols;
    const float scale = rsqrtf(mean + eps);

    for (int col = tid; col < ncols; col += block_size) {
        dst[row*ncols + col] = scale * x[row*ncols + col];
    }
}
"""

_RMS_NORM_WGSL = """
// a port of ggml's rms_norm_f32<WARP_SIZE>: 32 invocations a row, the warp's xor
// shuffle as a butterfly through workgroup memory
struct Params { ncols: u32, eps: f32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

var<workgroup> lanes: array<f32, 32>;

@compute @workgroup_size(32)
fn rms_norm_f32(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let row = wg.x;
    let tid = lid.x;
    var tmp = 0.0;
    for (var col = tid; col < p.ncols; col += 32u) {
        let xi = x[row * p.ncols + col];
        tmp += xi * xi;
    }
    for (var mask = 16u; mask > 0u; mask >>= 1u) {
        lanes[tid] = tmp;
        workgroupBarrier();
        tmp += lanes[tid ^ mask];
        workgroupBarrier();
    }
    let mean = tmp / f32(p.ncols);
    let scale = inverseSqrt(mean + p.eps);
    for (var col = tid; col < p.ncols; col += 32u) {
        dst[row * p.ncols + col] = scale * x[row * p.ncols + col];
    }
}
"""


def _rms_norm_reference(x, dst, p):
    # ggml_rms_norm: x / sqrt(mean(x^2) + eps) over each row (no weight)
    rows = x.reshape(-1, int(p["ncols"])).astype(np.float64)
    scale = 1.0 / np.sqrt((rows * rows).mean(axis=1, keepdims=True) + float(p["eps"]))
    return (rows * scale).astype(np.float32).ravel()


RMS_NORM = Wild(
    KernelSpec(
        id="wild_r26_ggml_rms_norm_f32_warp_shuffle_xor",
        entry_point="rms_norm_f32<WARP_SIZE>",
        entry_points={"wgsl": "rms_norm_f32"},
        sources={"cuda": _RMS_NORM_CUDA, "wgsl": _RMS_NORM_WGSL},
        dims=("rows", "ncols"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="rows*ncols", shape=("rows", "ncols")),
            BufferSpec(1, "f32", "read_write", name="dst", count="rows*ncols"),
            BufferSpec.uniform(2, (("ncols", "u32"), ("eps", "f32"))),
        ),
        reference=_rms_norm_reference,
        params=lambda size: {"ncols": size.ncols},
        defaults={"eps": 1e-6},
        grid=lambda s, size: (size.rows, 1, 1),
        schedules=(Schedule(32),),
        domain={"x": (-4.0, 4.0)},
        nonfinite_inputs=False,
        test_sizes=("rows=64,ncols=896", "rows=1,ncols=1", "rows=7,ncols=1000"),
    ),
    {
        "CUDA: shuffle butterfly from mask 8": (
            "cuda",
            "for (int mask = 16; mask > 0; mask >>= 1)",
            "for (int mask = 8; mask > 0; mask >>= 1)",
        ),
        "CUDA: eps outside the square root": (
            "cuda",
            "rsqrtf(mean + eps)",
            "rsqrtf(mean) + eps",
        ),
        "butterfly from mask 8": (
            "wgsl",
            "for (var mask = 16u; mask > 0u;",
            "for (var mask = 8u; mask > 0u;",
        ),
        "no barrier between the butterfly's read and the next write": (
            "wgsl",
            "tmp += lanes[tid ^ mask];\n        workgroupBarrier();",
            "tmp += lanes[tid ^ mask];",
        ),
        "mean over the 32 lanes, not the columns": (
            "wgsl",
            "let mean = tmp / f32(p.ncols);",
            "let mean = tmp / 32.0;",
        ),
    },
)


# -- ggml rope_neox with YaRN: rope_corr_dims by value, freq_factors ----------------------

_ROPE_NEOX_CUDA = r"""
#include <cstdint>

struct rope_corr_dims {
    float v[2];
};

static __device__ float rope_yarn_ramp(const float low, const float high, const int i0) {
    const float y = (i0 / 2 - low) / max(0.001f, high - low);
    return 1.0f - min(1.0f, max(0.0f, y));
}

// YaRN algorithm based on LlamaYaRNScaledRotaryEmbedding.py from https://github.com/jquesnelle/yarn
// MIT licensed. Copyright (c) 2023 Jeffrey Quesnelle and Bowen Peng.
template<bool forward>
static __device__ void rope_yarn(
        const float theta_extrap, const float freq_scale, const rope_corr_dims corr_dims, const int64_t i0, const float ext_factor,
        float mscale, float & cos_theta, float & sin_theta) {
    // Get n-d rotational scaling corrected for extrapolation
    float theta_interp = freq_scale * theta_extrap;
    float theta = theta_interp;
    if (ext_factor != 0.0f) {
        float ramp_mix = rope_yarn_ramp(corr_dims.v[0], corr_dims.v[1], i0) * ext_factor;
        theta = theta_interp * (1 - ramp_mix) + theta_extrap * ramp_mix;

        // Get n-d magnitude scaling corrected for interpolation
        mscale *= 1.0f + 0.1f * logf(1.0f / freq_scale);
    }
    cos_theta = cosf(theta) * mscale;
    sin_theta = sinf(theta) * mscale;
    if (!forward) {
        sin_theta *= -1.0f;
    }
}

template<bool forward, bool has_ff, typename T>
static __global__ void rope_neox(
        const T * x, T * dst, const int ne0, const int ne1, const int s1, const int s2, const int n_dims,
        const int32_t * pos, const float freq_scale, const float ext_factor, const float attn_factor,
        const rope_corr_dims corr_dims, const float theta_scale, const float * freq_factors) {
    const int i0 = 2*(blockDim.y*blockIdx.y + threadIdx.y);

    if (i0 >= ne0) {
        return;
    }

    const int row_dst = blockDim.x*blockIdx.x + threadIdx.x;

    if (i0 >= n_dims) {
        const int i = row_dst*ne0 + i0;

        dst[i + 0] = x[i + 0];
        dst[i + 1] = x[i + 1];

        return;
    }

    const int row_x     = row_dst % ne1;
    const int channel_x = row_dst / ne1;

    const int idst = row_dst*ne0 + i0/2;
    const int ix   = channel_x*s2 + row_x*s1 + i0/2;

    const float theta_base = pos[channel_x]*powf(theta_scale, i0/2.0f);

    const float freq_factor = has_ff ? freq_factors[i0/2] : 1.0f;

    float cos_theta;
    float sin_theta;

    rope_yarn<forward>(theta_base/freq_factor, freq_scale, corr_dims, i0, ext_factor, attn_factor, cos_theta, sin_theta);

    const float x0 = x[ix + 0];
    const float x1 = x[ix + n_dims/2];

    dst[idst + 0]        = x0*cos_theta - x1*sin_theta;
    dst[idst + n_dims/2] = x0*sin_theta + x1*cos_theta;
}
"""

_ROPE = {"freq_scale": 0.25, "ext_factor": 1.0, "attn_factor": 1.0, "freq_base": 10000.0}
_ROPE_MAX_POS = 64


def _n_dims(ne0):
    return 2 * (ne0 // 4)  # partial rotary: half the head


# The nine scalars go by value beside the struct; params(size) cannot give them (its
# values must be fields of the uniform block, which is the struct: see
# tests/test_wild_round26.py), so they are CUDA overrides, resolved per size.
_ROPE_SCALARS = {
    "ne0": "ne0",
    "ne1": "ne1",
    "s1": "ne0",
    "s2": "ne0*ne1",
    "n_dims": lambda s, size: _n_dims(size.ne0),
    "theta_scale": lambda s, size: _ROPE["freq_base"] ** (-2.0 / _n_dims(size.ne0)),
    "freq_scale": _ROPE["freq_scale"],
    "ext_factor": _ROPE["ext_factor"],
    "attn_factor": _ROPE["attn_factor"],
}


def _rope_neox_reference(x, dst, pos, freq_factors, corr_dims):
    # ggml_rope_ext (mode NEOX) with YaRN: pairs (i, i + n_dims/2) of the first n_dims
    # of each head rotated by pos * theta_scale^i / freq_factors[i], the rest copied
    tokens, heads, ne0 = x.shape
    n_dims = _n_dims(ne0)
    theta_scale = _ROPE["freq_base"] ** (-2.0 / n_dims)
    out = x.astype(np.float64).copy()
    half = n_dims // 2
    if half:
        i = np.arange(half, dtype=np.float64)
        extrap = pos.astype(np.float64)[:, None] * float(theta_scale) ** i / freq_factors[:half]
        fs, ext = _ROPE["freq_scale"], _ROPE["ext_factor"]
        low, high = (float(v) for v in corr_dims["v"].ravel())
        ramp = (1 - np.clip((i - low) / max(0.001, high - low), 0, 1)) * ext
        theta = fs * extrap * (1 - ramp) + extrap * ramp
        mscale = _ROPE["attn_factor"] * (1 + 0.1 * np.log(1 / fs))
        cos, sin = (np.cos(theta) * mscale)[:, None], (np.sin(theta) * mscale)[:, None]
        x0, x1 = out[..., :half].copy(), out[..., half:n_dims].copy()
        out[..., :half] = x0 * cos - x1 * sin
        out[..., half:n_dims] = x0 * sin + x1 * cos
    return out.astype(np.float32).ravel()


ROPE_NEOX = Wild(
    KernelSpec(
        id="wild_r26_ggml_rope_neox_yarn_corr_dims_struct_by_value",
        entry_point="rope_neox<true, true, float>",
        sources={"cuda": _ROPE_NEOX_CUDA},
        dims=("ne0", "ne1", "ne2"),  # head size, heads, tokens
        buffers=(
            BufferSpec(
                0, "f32", "read", name="x", count="ne0*ne1*ne2", shape=("ne2", "ne1", "ne0")
            ),
            BufferSpec(1, "f32", "read_write", name="dst", count="ne0*ne1*ne2"),
            BufferSpec(2, "i32", "read", name="pos", count="ne2"),
            BufferSpec(3, "f32", "read", name="freq_factors", count="ne0 // 2"),
            BufferSpec.uniform(4, (("v", "array<f32, 2>"),), name="corr_dims"),
        ),
        reference=_rope_neox_reference,
        defaults={"v": (2.0, 8.0)},  # the YaRN ramp: extrapolate below pair 2, none past 8
        overrides=_ROPE_SCALARS,
        grid=lambda s, size: (size.ne1 * size.ne2, ceil_div(size.ne0, 2 * 256), 1),
        schedules=(Schedule((1, 256, 1)),),
        # positions of a short prompt: theta = pos * theta_scale^i in f32 is off by
        # pos * 2^-23 radians, which the sine and cosine carry to the output
        domain={"x": (-2.0, 2.0), "pos": (0, _ROPE_MAX_POS - 1), "freq_factors": (1.0, 8.0)},
        nonfinite_inputs=False,
        tolerance={"f32": {"atol": 5e-5, "rtol": 1e-5}},
        test_sizes=("ne0=128,ne1=8,ne2=16", "ne0=4,ne1=1,ne2=1", "ne0=80,ne1=3,ne2=5"),
    ),
    {
        "CUDA: GPT-J pairs (i0, i0 + 1) for a NeoX model": (
            "cuda",
            "const float x1 = x[ix + n_dims/2];",
            "const float x1 = x[ix + 1];",
        ),
        "CUDA: freq factor of the dimension, not the pair": (
            "cuda",
            "has_ff ? freq_factors[i0/2] : 1.0f",
            "has_ff ? freq_factors[i0] : 1.0f",
        ),
        "CUDA: YaRN ramp on the wrong end": (
            "cuda",
            "theta = theta_interp * (1 - ramp_mix) + theta_extrap * ramp_mix;",
            "theta = theta_extrap * (1 - ramp_mix) + theta_interp * ramp_mix;",
        ),
        "CUDA: pass-through tail not copied": ("cuda", "dst[i + 1] = x[i + 1];", ""),
    },
)


# -- ggml soft_max_f32: a half mask holding ALiBi distances, slopes per head ---------------

_SOFT_MAX_CUDA = r"""
#include <cuda_fp16.h>
#include <cstdint>

#define WARP_SIZE 32

static __device__ __forceinline__ float t2f32(half  val) { return __half2float(val); }

static __device__ __forceinline__ float warp_reduce_sum(float x) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        x += __shfl_xor_sync(0xffffffff, x, offset, 32);
    }
    return x;
}

static __device__ __forceinline__ float warp_reduce_max(float x) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        x = fmaxf(x, __shfl_xor_sync(0xffffffff, x, offset, 32));
    }
    return x;
}

static __device__ __forceinline__ float get_alibi_slope(
    const float max_bias, const uint32_t h, const uint32_t n_head_log2, const float m0, const float m1
) {
    if (max_bias <= 0.0f) {
        return 1.0f;
    }
    const float base = h < n_head_log2 ? m0 : m1;
    const int   exph = h < n_head_log2 ? h + 1 : 2*(h - n_head_log2) + 1;

    return powf(base, exph);
}

// ggml-cuda/softmax.cu: one row a block, vals cached in dynamic shared memory
template <bool use_shared, int ncols_template, int block_size_template, typename T>
static __global__ void soft_max_f32(
        const float * x, const T * mask, float * dst, const int ncols_par, const int nrows_y,
        const float scale, const float max_bias, const float m0, const float m1, uint32_t n_head_log2) {
    const int ncols = ncols_template == 0 ? ncols_par : ncols_template;

    const int tid  = threadIdx.x;
    const int rowx = blockIdx.x;
    const int rowy = rowx % nrows_y; // broadcast the mask in the row dimension

    const int block_size = block_size_template == 0 ? blockDim.x : block_size_template;

    const int warp_id = threadIdx.x / WARP_SIZE;
    const int lane_id = threadIdx.x % WARP_SIZE;

    const float slope = get_alibi_slope(max_bias, rowx/nrows_y, n_head_log2, m0, m1);

    extern __shared__ float data_soft_max_f32[];
    float * buf_iw = data_soft_max_f32; // shared memory buffer for inter-warp communication
    // shared memory buffer to cache values between iterations:
    float * vals = use_shared ? buf_iw + WARP_SIZE : dst + (int64_t)rowx*ncols;

    float max_val = -INFINITY;

#pragma unroll
    for (int col0 = 0; col0 < ncols; col0 += block_size) {
        const int col = col0 + tid;

        if (ncols_template == 0 && col >= ncols) {
            break;
        }

        const int64_t ix = (int64_t)rowx*ncols + col;
        const int64_t iy = (int64_t)rowy*ncols + col;

        const float val = x[ix]*scale + (mask ? slope*t2f32(mask[iy]) : 0.0f);

        vals[col] = val;
        max_val = max(max_val, val);
    }

    // find the max value in the block
    max_val = warp_reduce_max(max_val);
    if (block_size > WARP_SIZE) {
        if (warp_id == 0) {
            buf_iw[lane_id] = -INFINITY;
        }
        __syncthreads();

        if (lane_id == 0) {
            buf_iw[warp_id] = max_val;
        }
        __syncthreads();

        max_val = buf_iw[lane_id];
        max_val = warp_reduce_max(max_val);
    }

    float tmp = 0.0f; // partial sum

#pragma unroll
    for (int col0 = 0; col0 < ncols; col0 += block_size) {
        const int col = col0 + tid;

        if (ncols_template == 0 && col >= ncols) {
            break;
        }

        const float val = expf(vals[col] - max_val);
        tmp += val;
        vals[col] = val;
    }

    // find the sum of exps in the block
    tmp = warp_reduce_sum(tmp);
    if (block_size > WARP_SIZE) {
        __syncthreads();
        if (warp_id == 0) {
            buf_iw[lane_id] = 0.0f;
        }
        __syncthreads();

        if (lane_id == 0) {
            buf_iw[warp_id] = tmp;
        }
        __syncthreads();

        tmp = buf_iw[lane_id];
        tmp = warp_reduce_sum(tmp);
    }

    const float inv_sum = 1.0f / tmp;

#pragma unroll
    for (int col0 = 0; col0 < ncols; col0 += block_size) {
        const int col = col0 + tid;

        if (ncols_template == 0 && col >= ncols) {
            return;
        }

        const int64_t idst = (int64_t)rowx*ncols + col;
        dst[idst] = vals[col] * inv_sum;
    }
}
"""

_MAX_BIAS = 8.0


def _alibi_params(size):
    n_head_log2 = 1 << int(np.floor(np.log2(size.heads)))
    return {
        "ncols_par": size.cols,
        "nrows_y": size.rows,
        "n_head_log2": n_head_log2,
        "m0": 2.0 ** (-_MAX_BIAS / n_head_log2),
        "m1": 2.0 ** (-(_MAX_BIAS / 2.0) / n_head_log2),
    }


def _kq_mask(rng, count, size):
    # llama.cpp's KQ mask with ALiBi: -|p_i - p_j| where key j is visible to query i (its
    # position cols - rows + i), -inf in the future
    i = np.arange(size.rows)[:, None] + (size.cols - size.rows)
    j = np.arange(size.cols)[None, :]
    return np.where(j <= i, -np.abs(i - j), -np.inf).astype(np.float16).ravel()


def _soft_max_reference(x, mask, dst, scale, max_bias, nrows_y):
    # ggml_soft_max_ext(x, mask, scale, max_bias): softmax(x * scale + slope_h * mask)
    heads, rows, cols = x.shape
    n_head_log2 = 1 << int(np.floor(np.log2(heads)))
    m0, m1 = 2.0 ** (-max_bias / n_head_log2), 2.0 ** (-max_bias / 2 / n_head_log2)
    h = np.arange(heads)
    slope = np.where(h < n_head_log2, m0 ** (h + 1), m1 ** (2 * (h - n_head_log2) + 1))
    v = x.astype(np.float64) * scale + slope[:, None, None] * mask.reshape(rows, cols)
    e = np.exp(v - v.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).astype(np.float32).ravel()


SOFT_MAX_ALIBI = Wild(
    KernelSpec(
        id="wild_r26_ggml_soft_max_f32_half_mask_alibi_shared",
        entry_point="soft_max_f32<true, 0, 0, half>",
        sources={"cuda": _SOFT_MAX_CUDA},
        dims=("heads", "rows", "cols"),
        buffers=(
            BufferSpec(
                0, "f32", "read", name="x", count="heads*rows*cols", shape=("heads", "rows", "cols")
            ),
            BufferSpec(1, "f16", "read", name="mask", count="rows*cols", fill=_kq_mask),
            BufferSpec(2, "f32", "read_write", name="dst", count="heads*rows*cols"),
        ),
        reference=_soft_max_reference,
        params=_alibi_params,
        defaults={"scale": 0.125, "max_bias": _MAX_BIAS},
        grid=lambda s, size: (size.heads * size.rows, 1, 1),
        schedules=(Schedule(256),),
        shared_bytes=lambda s, size: (32 + size.cols) * 4,
        domain={"x": (-30.0, 30.0)},
        nonfinite_inputs=False,
        test_sizes=("heads=8,rows=32,cols=32", "heads=1,rows=1,cols=1", "heads=12,rows=7,cols=300"),
    ),
    {
        "CUDA: slope exponent h, not h + 1": (
            "cuda",
            "const int   exph = h < n_head_log2 ? h + 1 : 2*(h - n_head_log2) + 1;",
            "const int   exph = h < n_head_log2 ? h : 2*(h - n_head_log2) + 1;",
        ),
        "CUDA: mask broadcast by head, not by row": (
            "cuda",
            "const int rowy = rowx % nrows_y;",
            "const int rowy = rowx / nrows_y;",
        ),
        "CUDA: max reduce skips the last shuffle": (
            "cuda",
            "for (int offset = 16; offset > 0; offset >>= 1) {\n        x = fmaxf",
            "for (int offset = 16; offset > 1; offset >>= 1) {\n        x = fmaxf",
        ),
        "CUDA: inter-warp sums not reset": (
            "cuda",
            "buf_iw[lane_id] = 0.0f;",
            "",
        ),
        "CUDA: max taken before the mask is added": (
            "cuda",
            "vals[col] = val;\n        max_val = max(max_val, val);",
            "vals[col] = val;\n        max_val = max(max_val, x[ix]*scale);",
        ),
    },
    invisible={
        ("CUDA: max taken before the mask is added", "cuda"): "softmax does not change when "
        "every logit moves by one amount: a max that leaves the mask out changes the "
        "values only where exp underflows, a masked logit some 87 above every visible one, "
        "which no drawn row is (the H100 passed it, 2026-12-05)"
    },
)


# -- vLLM fused_add_rms_norm: residual add and RMSNorm in place, cub::BlockReduce ------------

_FUSED_ADD_RMS_CUDA = r"""
// vLLM includes <cub/cub.cuh>, which CCCL refuses under NVRTC (#error: include the
// specific device header instead)
#include <cub/block/block_reduce.cuh>
#include <cuda/std/functional>

// csrc/cub_helpers.h: cub::Sum is gone from CCCL 3 (CUDA 13)
#if CUB_VERSION >= 200800
using CubAddOp = cuda::std::plus<>;
#else
using CubAddOp = cub::Sum;
#endif

namespace vllm {

// csrc/layernorm_kernels.cu (the generic, unvectorized kernel)
template <typename scalar_t>
__global__ void fused_add_rms_norm_kernel(
    scalar_t* __restrict__ input,         // [..., hidden_size]
    scalar_t* __restrict__ residual,      // [..., hidden_size]
    const scalar_t* __restrict__ weight,  // [hidden_size]
    const float epsilon, const int num_tokens, const int hidden_size) {
  __shared__ float s_variance;
  float variance = 0.0f;

  for (int idx = threadIdx.x; idx < hidden_size; idx += blockDim.x) {
    scalar_t z = input[blockIdx.x * hidden_size + idx];
    z += residual[blockIdx.x * hidden_size + idx];
    float x = (float)z;
    variance += x * x;
    residual[blockIdx.x * hidden_size + idx] = z;
  }

  using BlockReduce = cub::BlockReduce<float, 1024>;
  __shared__ typename BlockReduce::TempStorage reduceStore;
  variance = BlockReduce(reduceStore).Reduce(variance, CubAddOp{}, blockDim.x);

  if (threadIdx.x == 0) {
    s_variance = rsqrtf(variance / hidden_size + epsilon);
  }
  __syncthreads();

  for (int idx = threadIdx.x; idx < hidden_size; idx += blockDim.x) {
    float x = (float)residual[blockIdx.x * hidden_size + idx];
    input[blockIdx.x * hidden_size + idx] =
        ((scalar_t)(x * s_variance)) * weight[idx];
  }
}

}  // namespace vllm
"""

_FUSED_ADD_RMS_WGSL = """
struct Params { epsilon: f32, num_tokens: u32, hidden_size: u32 }
@group(0) @binding(0) var<storage, read_write> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> residual: array<f32>;
@group(0) @binding(2) var<storage, read> weight: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

var<workgroup> red: array<f32, 256>;
var<workgroup> s_variance: f32;

@compute @workgroup_size(256)
fn fused_add_rms_norm_kernel(@builtin(workgroup_id) wg: vec3<u32>,
                             @builtin(local_invocation_id) lid: vec3<u32>) {
    let base = wg.x * p.hidden_size;
    var variance = 0.0;
    for (var idx = lid.x; idx < p.hidden_size; idx += 256u) {
        let z = input[base + idx] + residual[base + idx];
        variance += z * z;
        residual[base + idx] = z;
    }
    red[lid.x] = variance;
    workgroupBarrier();
    for (var s = 128u; s > 0u; s >>= 1u) {
        if (lid.x < s) { red[lid.x] += red[lid.x + s]; }
        workgroupBarrier();
    }
    if (lid.x == 0u) {
        s_variance = inverseSqrt(red[0] / f32(p.hidden_size) + p.epsilon);
    }
    workgroupBarrier();
    for (var idx = lid.x; idx < p.hidden_size; idx += 256u) {
        input[base + idx] = residual[base + idx] * s_variance * weight[idx];
    }
}
"""


def _fused_add_rms_reference(input, residual, weight, epsilon):
    # vLLM's fused_add_rms_norm(input, residual, weight, eps): residual <- input + residual,
    # input <- RMSNorm(residual) * weight
    z = input.astype(np.float64) + residual
    z32 = z.astype(np.float32)  # what residual holds; the kernel normalises these values
    zz = z32.astype(np.float64)
    scale = 1.0 / np.sqrt((zz * zz).mean(axis=1, keepdims=True) + epsilon)
    return (zz * scale * weight).astype(np.float32), z32


FUSED_ADD_RMS_NORM = Wild(
    KernelSpec(
        id="wild_r26_vllm_fused_add_rms_norm_in_place_cub",
        entry_point="vllm::fused_add_rms_norm_kernel<float>",
        entry_points={"wgsl": "fused_add_rms_norm_kernel"},
        sources={"cuda": _FUSED_ADD_RMS_CUDA, "wgsl": _FUSED_ADD_RMS_WGSL},
        dims=("num_tokens", "hidden_size"),
        buffers=(
            BufferSpec(
                0,
                "f32",
                "read_write",
                name="input",
                count="num_tokens*hidden_size",
                shape=("num_tokens", "hidden_size"),
                inout=True,
            ),
            BufferSpec(
                1,
                "f32",
                "read_write",
                name="residual",
                count="num_tokens*hidden_size",
                shape=("num_tokens", "hidden_size"),
                inout=True,
            ),
            BufferSpec(2, "f32", "read", name="weight", count="hidden_size"),
            BufferSpec.uniform(
                3, (("epsilon", "f32"), ("num_tokens", "u32"), ("hidden_size", "u32"))
            ),
        ),
        reference=_fused_add_rms_reference,
        params=lambda size: dict(size.dims),
        defaults={"epsilon": 1e-6},
        grid=lambda s, size: (size.num_tokens, 1, 1),
        schedules=(Schedule(256),),
        domain={"input": (-4.0, 4.0), "residual": (-4.0, 4.0), "weight": (0.5, 1.5)},
        nonfinite_inputs=False,
        test_sizes=(
            "num_tokens=16,hidden_size=4096",
            "num_tokens=1,hidden_size=1",
            "num_tokens=5,hidden_size=1000",
        ),
    ),
    {
        "CUDA: normalises the input, not the sum": (
            "cuda",
            "float x = (float)residual[blockIdx.x * hidden_size + idx];",
            "float x = (float)input[blockIdx.x * hidden_size + idx];",
        ),
        "CUDA: no barrier after s_variance": (
            "cuda",
            "s_variance = rsqrtf(variance / hidden_size + epsilon);\n  }\n  __syncthreads();",
            "s_variance = rsqrtf(variance / hidden_size + epsilon);\n  }",
        ),
        "residual not written back": ("wgsl", "residual[base + idx] = z;", ""),
        "variance over the workgroup, not the hidden size": (
            "wgsl",
            "red[0] / f32(p.hidden_size)",
            "red[0] / 256.0",
        ),
        "no barrier after s_variance": (
            "wgsl",
            "+ p.epsilon);\n    }\n    workgroupBarrier();",
            "+ p.epsilon);\n    }",
        ),
    },
    invisible_on={
        ("no barrier after s_variance", "wgsl", part): (
            "invocation 0 (which writes s_variance) runs its part of the workgroup before "
            "the others read it on the CPU adapters: passed on lavapipe and SwiftShader "
            "(2026-12-05, every size); a GPU's warps need not"
        )
        for part in ("llvmpipe", "swiftshader")
    },
)


ROUND26 = {
    k.kernel.id: k
    for k in (
        ENCODER,
        CROSSENTROPY,
        ADAMW,
        GELU_BACKWARD,
        ATTENTION_SOFTMAX,
        Q4_0,
        Q8_0,
        RMS_NORM,
        ROPE_NEOX,
        SOFT_MAX_ALIBI,
        FUSED_ADD_RMS_NORM,
    )
}

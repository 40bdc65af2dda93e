"""Round 26 of kernels from the wild, merged into ``tests.wild.CORPUS``: LLM training
and inference kernels as llm.c, ggml / llama.cpp and vLLM write them, most with a WGSL
port in the same ``KernelSpec`` so that the port runs here (lavapipe, SwiftShader) and
the CUDA original on the GPU machine, both judged by one float64 reference.

The CUDA kernels are written for this corpus after the sources named below: read, not
copied (the project's rule for public code: round 26 first took them verbatim, their
comments and YaRN's licence line included, and they were rewritten on 2026-12-06).
What is theirs is kept: the entry points and their template instantiations
(``dequantize_block_q4_0<float>``, ``dequantize_block<QK8_0, QR8_0, dequantize_q8_0,
float>``, ``rms_norm_f32<WARP_SIZE>``, ``rope_neox<true, true, float>``,
``soft_max_f32<true, 0, 0, half>``, ``vllm::fused_add_rms_norm_kernel<float>``), every
parameter's name, type and order (``long num_parameters``, ``int64_t k``, the pointers
without const in llm.c's encoder, ``const rope_corr_dims corr_dims`` by value), the
macros the entry points spell (``QK4_0``, ``QK8_0``, ``QR8_0``, ``WARP_SIZE``), the
block structs with ``half`` scales and q4_0's ``static_assert``, the function-pointer
template parameter, the shared memory (``s_sum``'s 32 floats, renamed, the dynamic
``32 + ncols`` floats, ``s_variance``, cub's ``BlockReduce<float, 1024>`` storage),
the barriers and their places, the warp shuffles (``__shfl_xor_sync`` butterflies from
16), the thread-to-data mapping of each launch, CCCL's ``CubAddOp`` fix, and the
numerics: lerp as two ``fma``, ``-logf``, ``sqrtf(v) + eps``, the tanh-form derivative
with ``coshf``, ``d * q + (-8 d)``, q8_0's quant times scale, ``rsqrtf(mean + eps)``,
YaRN's ramp and ``mscale``, the softmax's masked max, ``expf`` and ``1 / sum``, and
vLLM's cast of the normalised value before the weight. What is ours: the comments,
the helpers' names (``blend``, ``warp_sum``, ``warp_max``, ``yarn_ramp``,
``yarn_cos_sin``, ``alibi_slope``, ``mask_value``), the locals' names, the order of
equivalent statements and the formatting; ggml's ``dfloat``/``dfloat2`` typedefs are
plain ``float``/``float2``, q8_0's dequantizer multiplies as it reads, the row
pointers of rms_norm and vLLM's kernel are taken once. The WGSL ports are the
project's own (as is the causal attention softmax, CUDA and WGSL, written for the
corpus after llm.c's shape with no upstream file); they are renamed to follow the
CUDA, with their bindings, workgroup sizes, workgroup memory and barriers unchanged.

- llm.c's ``encoder_forward_kernel2`` (``wte[inp[b, t]] + wpe[t]``, no pointer const,
  ``int B, T, C`` by value) and ``crossentropy_forward_kernel1`` over a vocabulary
  padded to ``Vp`` (50257 -> 50304), probs drawn in (1e-6, 1] (karpathy/llm.c at
  ed4c50dd, MIT, ``train_gpt2_fp32.cu``).
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
  byte from u32 words and sign-extend by shifts (ggml-org/llama.cpp at 1ebe58d8, MIT,
  ``ggml/src/ggml-cuda/convert.cu``, ``dequantize.cuh``).
- ggml's ``rms_norm_f32<WARP_SIZE>`` (``__shfl_xor_sync`` butterfly; the port's
  butterfly goes through workgroup memory; ``ggml/src/ggml-cuda/norm.cu``).
- ggml's ``rope_neox<true, true, float>`` with YaRN (``ext_factor`` 1, ``freq_scale``
  0.25, the ramp in ``const rope_corr_dims corr_dims``, a struct of ``float v[2]`` by
  value among nine scalars), ``freq_factors`` and partial rotary (n_dims half the
  head), 2-D blocks (1, 256, 1) (CUDA only; ``ggml/src/ggml-cuda/rope.cu``, whose YaRN
  follows jquesnelle/yarn's ``LlamaYaRNScaledRotaryEmbedding``, MIT).
- ggml's ``soft_max_f32<true, 0, 0, half>``: a ``half`` KQ mask holding ALiBi distances
  (``-|i - j|``, ``-inf`` in the future), per-head slopes from ``m0``/``m1``/
  ``n_head_log2`` (12 heads take the ``m1`` branch), dynamic shared memory of ``32 +
  ncols`` floats (CUDA only; ``ggml/src/ggml-cuda/softmax.cu``).
- vLLM's ``fused_add_rms_norm_kernel<float>`` in ``namespace vllm``: residual add and
  RMSNorm in place (two inout outputs) with ``cub::BlockReduce<float, 1024>`` over a
  256-thread block (vllm-project/vllm at c6691785, Apache-2.0,
  ``csrc/layernorm_kernels.cu`` and ``csrc/cub_helpers.h``).

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

# ruff: noqa: E501  (the kernels' long lines, the CUDA signatures' above all)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, KernelSpec, Schedule, ceil_div

from . import Wild

# -- llm.c encoder_forward: token + position embedding -----------------------------------

_ENCODER_CUDA = r"""
// a thread an element of out (B, T, C): the token's embedding row plus the position's
__global__ void encoder_forward_kernel2(float* out,
                                        int* inp, float* wte, float* wpe,
                                        int B, int T, int C) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= B * T * C) return;
    int c = e % C;
    int t = (e / C) % T;
    int b = (e / C) / T;
    int tok = inp[b * T + t];
    out[(b * T + t) * C + c] = wte[tok * C + c] + wpe[t * C + c];
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
    let e = gid.x;
    if (e >= p.B * p.T * p.C) { return; }
    let c = e % p.C;
    let t = (e / p.C) % p.T;
    let b = (e / p.C) / p.T;
    let tok = u32(inp[b * p.T + t]);
    out[(b * p.T + t) * p.C + c] = wte[tok * p.C + c] + wpe[t * p.C + c];
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
            "int tok = inp[b * T + t];",
            "int tok = inp[t];",
        ),
        "token read without the batch offset": (
            "wgsl",
            "let tok = u32(inp[b * p.T + t]);",
            "let tok = u32(inp[t]);",
        ),
        "token row strided by T": ("wgsl", "wte[tok * p.C + c]", "wte[tok * p.T + c]"),
        "position row of the batch, not the time step": (
            "wgsl",
            "wpe[t * p.C + c]",
            "wpe[b * p.C + c]",
        ),
    },
)


# -- llm.c crossentropy_forward over a padded vocabulary ---------------------------------

_CE_CUDA = r"""
// a thread a (b, t): the loss is -log of the target's probability; a row of probs
// is Vp wide, the vocabulary padded up to a multiple of 64
__global__ void crossentropy_forward_kernel1(float* losses,
                                             const float* probs, const int* targets,
                                             int B, int T, int Vp) {
    int bt = blockIdx.x * blockDim.x + threadIdx.x;
    if (bt >= B * T) return;
    int b = bt / T;
    int t = bt % T;
    const float* row = probs + b * T * Vp + t * Vp;
    losses[b * T + t] = -logf(row[targets[b * T + t]]);
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
    let bt = gid.x;
    if (bt >= p.B * p.T) { return; }
    let b = bt / p.T;
    let t = bt % p.T;
    let row = b * p.T * p.Vp + t * p.Vp;
    let tgt = u32(targets[b * p.T + t]);
    losses[b * p.T + t] = -log(probs[row + tgt]);
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
            "let row = b * p.T * p.Vp + t * p.Vp;",
            "let row = b * p.Vp + t * p.Vp;",
        ),
        "log of the complement": (
            "wgsl",
            "-log(probs[row + tgt])",
            "-log(1.0 - probs[row + tgt])",
        ),
        "target of the first batch row": (
            "wgsl",
            "let tgt = u32(targets[b * p.T + t]);",
            "let tgt = u32(targets[t]);",
        ),
    },
)


# -- llm.c adamw_kernel2: AdamW with bias correction ---------------------------------------

_ADAMW_CUDA = r"""
// start + weight * (end - start), through two fmas as llm.c rounds it
__device__ inline float blend(float start, float end, float weight) {
    return fma(weight, end, fma(-weight, start, start));
}

// one parameter a thread; the host folds the step into the two bias corrections
__global__ void adamw_kernel2(float* params_memory, float* grads_memory, float* m_memory, float* v_memory, long num_parameters,
                              float learning_rate, float beta1, float beta2, float beta1_correction, float beta2_correction, float eps, float weight_decay) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= num_parameters) return;
    float g = grads_memory[i];
    // running means of the gradient and of its square, stored back uncorrected
    float m = blend(g, m_memory[i], beta1);
    float v = blend(g * g, v_memory[i], beta2);
    m_memory[i] = m;
    v_memory[i] = v;
    m /= beta1_correction;
    v /= beta2_correction;
    // the Adam step with the weight decay beside it, not in the gradient
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

fn blend(start: f32, end: f32, weight: f32) -> f32 {
    return fma(weight, end, fma(-weight, start, start));
}

@compute @workgroup_size(256)
fn adamw_kernel2(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= u.num_parameters) { return; }
    let g = grads_memory[i];
    var m = blend(g, m_memory[i], u.beta1);
    var v = blend(g * g, v_memory[i], u.beta2);
    m_memory[i] = m;
    v_memory[i] = v;
    m /= u.beta1_correction;
    v /= u.beta2_correction;
    let w = params_memory[i];
    params_memory[i] = w - u.learning_rate * (m / (sqrt(v) + u.eps) + u.weight_decay * w);
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
            "var m = blend(g, m_memory[i], u.beta1);",
            "var m = blend(m_memory[i], g, u.beta1);",
        ),
        "weight decay folded into the gradient (Adam with L2)": (
            "wgsl",
            "let g = grads_memory[i];",
            "let g = grads_memory[i] + u.weight_decay * params_memory[i];",
        ),
        "eps inside the square root": ("wgsl", "(sqrt(v) + u.eps)", "sqrt(v + u.eps)"),
    },
)


# -- llm.c gelu_backward (tanh approximation) -----------------------------------------------

_GELU_BW_CUDA = r"""
#define GELU_K sqrtf(2.0f / M_PI)

// gelu(x) = 0.5 x (1 + tanh(u)), u = K (x + 0.044715 x^3): its derivative times the
// incoming gradient, the squared sech of u taken from coshf
__global__ void gelu_backward_kernel(float* dinp, const float* inp, const float* dout, const int N) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    float x = inp[i];
    float u = GELU_K * (x + 0.044715f * x * x * x);
    float th = tanhf(u);
    float ch = coshf(u);
    float sech2 = 1.0f / (ch * ch);
    float slope = 0.5f * (1.0f + th) + x * 0.5f * sech2 * GELU_K * (1.0f + 3.0f * 0.044715f * x * x);
    dinp[i] = slope * dout[i];
}
"""

_GELU_BW_WGSL = """
const GELU_K: f32 = 0.7978845608028654;  // sqrt(2 / pi)
@group(0) @binding(0) var<storage, read_write> dinp: array<f32>;
@group(0) @binding(1) var<storage, read> inp: array<f32>;
@group(0) @binding(2) var<storage, read> dout: array<f32>;

@compute @workgroup_size(128)
fn gelu_backward_kernel(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&dinp)) { return; }
    let x = inp[i];
    let u = GELU_K * (x + 0.044715 * x * x * x);
    let th = tanh(u);
    let ch = cosh(u);
    let sech2 = 1.0 / (ch * ch);
    let slope = 0.5 * (1.0 + th) + x * 0.5 * sech2 * GELU_K * (1.0 + 3.0 * 0.044715 * x * x);
    dinp[i] = slope * dout[i];
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
            "1.0f / (ch * ch)",
            "1.0f / ch",
        ),
        "sech not squared": ("wgsl", "1.0 / (ch * ch)", "1.0 / ch"),
        "derivative of the cube without its 3": (
            "wgsl",
            "(1.0 + 3.0 * 0.044715 * x * x)",
            "(1.0 + 0.044715 * x * x)",
        ),
        "tanh term not halved": ("wgsl", "0.5 * (1.0 + th)", "(1.0 + th)"),
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
    half    d;              // the scale
    uint8_t qs[QK4_0 / 2];  // 32 quants, two a byte
} block_q4_0;
static_assert(sizeof(block_q4_0) == sizeof(half) + QK4_0 / 2, "block_q4_0 is 18 bytes, unpadded");

// 32 threads a CUDA block, 8 q4_0 blocks (256 outputs) a CUDA block: thread t takes
// q4_0 block t % 8 of them and its bytes 4 (t / 8) to 4 (t / 8) + 3
template<typename dst_t>
static __global__ void dequantize_block_q4_0(const void * __restrict__ vx, dst_t * __restrict__ yy, int nb32) {
    const int64_t group = blockIdx.x;
    const int part = threadIdx.x / 8;
    const int sub  = threadIdx.x % 8;
    const int64_t ib = 8*group + sub;
    if (ib >= nb32) {
        return;
    }
    const block_q4_0 * blk = (const block_q4_0 *) vx + ib;
    const float d = __half2float(blk->d);
    const float shift = -8*d;  // a quant q stands for d (q - 8)
    const uint8_t * bytes = blk->qs + 4*part;
    dst_t * out = yy + 256*group + 32*sub + 4*part;
    // a byte's low nibble is output j of the block, its high nibble output j + 16
    for (int l = 0; l < 4; ++l) {
        out[l]      = d * (bytes[l] & 0xF) + shift;
        out[l + 16] = d * (bytes[l] >> 4) + shift;
    }
}
"""

_Q4_0_WGSL = """
// the port: 18-byte blocks (an f16 scale, 16 bytes of nibbles) read a byte at a time
// out of u32 words
struct Params { nb32: u32 }
@group(0) @binding(0) var<storage, read> vx: array<u32>;
@group(0) @binding(1) var<storage, read_write> yy: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

fn u8_at(o: u32) -> u32 { return (vx[o >> 2u] >> ((o & 3u) * 8u)) & 0xffu; }

@compute @workgroup_size(32)
fn dequantize_block_q4_0(@builtin(workgroup_id) wg: vec3<u32>,
                         @builtin(local_invocation_id) lid: vec3<u32>) {
    let group = wg.x;
    let part = lid.x / 8u;
    let sub = lid.x % 8u;
    let ib = 8u * group + sub;
    if (ib >= p.nb32) { return; }
    let blk = ib * 18u;
    let d = unpack2x16float(u8_at(blk) | (u8_at(blk + 1u) << 8u)).x;
    let shift = -8.0 * d;
    let out = 256u * group + 32u * sub + 4u * part;
    for (var l = 0u; l < 4u; l++) {
        let q = u8_at(blk + 2u + 4u * part + l);
        yy[out + l] = d * f32(q & 0xfu) + shift;
        yy[out + l + 16u] = d * f32(q >> 4u) + shift;
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
        "CUDA: block's outputs with the byte group and the block swapped": (
            "cuda",
            "dst_t * out = yy + 256*group + 32*sub + 4*part;",
            "dst_t * out = yy + 256*group + 32*part + 4*sub;",
        ),
        "CUDA: nibbles interleaved": (
            "cuda",
            "out[l]      = d * (bytes[l] & 0xF) + shift;\n        out[l + 16]",
            "out[2*l]    = d * (bytes[l] & 0xF) + shift;\n        out[2*l + 1]",
        ),
        "nibbles interleaved": (
            "wgsl",
            "yy[out + l] = d * f32(q & 0xfu) + shift;\n        yy[out + l + 16u]",
            "yy[out + 2u * l] = d * f32(q & 0xfu) + shift;\n        yy[out + 2u * l + 1u]",
        ),
        "blocks taken as 16 bytes after the scale": (
            "wgsl",
            "let blk = ib * 18u;",
            "let blk = ib * 16u;",
        ),
        "offset -8 dropped": ("wgsl", "let shift = -8.0 * d;", "let shift = 0.0;"),
        "scale read from the second byte pair": (
            "wgsl",
            "unpack2x16float(u8_at(blk) | (u8_at(blk + 1u) << 8u)).x",
            "unpack2x16float(u8_at(blk + 2u) | (u8_at(blk + 3u) << 8u)).x",
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
    half   d;          // the scale
    int8_t qs[QK8_0];  // signed quants: value d * q
} block_q8_0;

// a dequantizer hands back two values of block ib, quants iqs and iqs + 1
typedef void (*dequantize_kernel_t)(const void * vx, const int64_t ib, const int iqs, float2 & v);

static __device__ __forceinline__ void dequantize_q8_0(const void * vx, const int64_t ib, const int iqs, float2 & v) {
    const block_q8_0 & blk = ((const block_q8_0 *) vx)[ib];
    const float d = blk.d;
    v.x = blk.qs[iqs + 0] * d;
    v.y = blk.qs[iqs + 1] * d;
}

// two outputs a thread, through the dequantizer the template names; with qr == 1 the
// pair lands side by side, otherwise half a block apart
template <int qk, int qr, dequantize_kernel_t dequantize_kernel, typename dst_t>
static __global__ void dequantize_block(const void * __restrict__ vx, dst_t * __restrict__ y, const int64_t k) {
    const int64_t first = (int64_t)2*(blockDim.x*blockIdx.x + threadIdx.x);
    if (first >= k) {
        return;
    }
    const int64_t ib    = first/qk;
    const int64_t iqs   = (first%qk)/qr;
    const int64_t start = first - first%qk;  // the block's first output
    const int64_t step = qr == 1 ? 1 : qk/2;
    float2 v;
    dequantize_kernel(vx, ib, iqs, v);
    y[start + iqs]        = v.x;
    y[start + iqs + step] = v.y;
}
"""

_Q8_0_WGSL = """
// the port: 34-byte blocks (an f16 scale, 32 int8 quants), two outputs an invocation
struct Params { k: u32 }
@group(0) @binding(0) var<storage, read> vx: array<u32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

fn u8_at(o: u32) -> u32 { return (vx[o >> 2u] >> ((o & 3u) * 8u)) & 0xffu; }
fn i8_at(o: u32) -> i32 { return bitcast<i32>(u8_at(o) << 24u) >> 24u; }

@compute @workgroup_size(256)
fn dequantize_block(@builtin(global_invocation_id) gid: vec3<u32>) {
    let first = 2u * gid.x;
    if (first >= p.k) { return; }
    let iqs = first % 32u;
    let start = first - iqs;
    let blk = (first / 32u) * 34u;
    let d = unpack2x16float(u8_at(blk) | (u8_at(blk + 1u) << 8u)).x;
    y[start + iqs] = f32(i8_at(blk + 2u + iqs)) * d;
    y[start + iqs + 1u] = f32(i8_at(blk + 2u + iqs + 1u)) * d;
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
            "    int8_t qs[QK8_0];",
            "    uint8_t qs[QK8_0];",
        ),
        "CUDA: second value written half a block away": (
            "cuda",
            "const int64_t step = qr == 1 ? 1 : qk/2;",
            "const int64_t step = qk/2;",
        ),
        "quants not sign-extended": (
            "wgsl",
            "return bitcast<i32>(u8_at(o) << 24u) >> 24u;",
            "return i32(u8_at(o));",
        ),
        "blocks strided by 36 bytes (scale padded to 4)": (
            "wgsl",
            "let blk = (first / 32u) * 34u;",
            "let blk = (first / 32u) * 36u;",
        ),
        "quants read over the scale (header not skipped)": (
            "wgsl",
            "y[start + iqs] = f32(i8_at(blk + 2u + iqs)) * d;",
            "y[start + iqs] = f32(i8_at(blk + iqs)) * d;",
        ),
    },
)


# -- ggml rms_norm_f32: warp-shuffle reduce ------------------------------------------------

_RMS_NORM_CUDA = r"""
#define WARP_SIZE 32

// a butterfly over the warp: every lane ends with the sum
static __device__ __forceinline__ float warp_sum(float acc) {
#pragma unroll
    for (int lane_mask = 16; lane_mask > 0; lane_mask >>= 1) {
        acc += __shfl_xor_sync(0xffffffff, acc, lane_mask, 32);
    }
    return acc;
}

// one row a CUDA block of block_size threads: dst = x / sqrt(mean(x^2) + eps); ggml
// launches WARP_SIZE threads below 1024 columns and 1024 from there
template <int block_size>
static __global__ void rms_norm_f32(const float * x, float * dst, const int ncols, const float eps) {
    const int row = blockIdx.x*blockDim.y + threadIdx.y;
    const float * src = x + row*ncols;
    float * out = dst + row*ncols;

    float sq = 0.0f;
    for (int col = threadIdx.x; col < ncols; col += block_size) {
        const float v = src[col];
        sq += v * v;
    }
    sq = warp_sum(sq);
    if (block_size > WARP_SIZE) {
        // several warps: lane 0 of each posts its sum, and the posts are summed alike
        __shared__ float partial[32];
        const int warp = threadIdx.x / WARP_SIZE;
        const int lane = threadIdx.x % WARP_SIZE;
        if (lane == 0) {
            partial[warp] = sq;
        }
        __syncthreads();
        sq = warp_sum(partial[lane]);
    }

    const float scale = rsqrtf(sq / ncols + eps);
    for (int col = threadIdx.x; col < ncols; col += block_size) {
        out[col] = scale * src[col];
    }
}
"""

_RMS_NORM_WGSL = """
// the port: 32 invocations a row, the warp's xor butterfly through workgroup memory
struct Params { ncols: u32, eps: f32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

var<workgroup> swap: array<f32, 32>;

@compute @workgroup_size(32)
fn rms_norm_f32(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let first = wg.x * p.ncols;
    let lane = lid.x;
    var sq = 0.0;
    for (var col = lane; col < p.ncols; col += 32u) {
        let v = x[first + col];
        sq += v * v;
    }
    for (var lane_mask = 16u; lane_mask > 0u; lane_mask >>= 1u) {
        swap[lane] = sq;
        workgroupBarrier();
        sq += swap[lane ^ lane_mask];
        workgroupBarrier();
    }
    let mean = sq / f32(p.ncols);
    let scale = inverseSqrt(mean + p.eps);
    for (var col = lane; col < p.ncols; col += 32u) {
        dst[first + col] = scale * x[first + col];
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
            "for (int lane_mask = 16; lane_mask > 0; lane_mask >>= 1)",
            "for (int lane_mask = 8; lane_mask > 0; lane_mask >>= 1)",
        ),
        "CUDA: eps outside the square root": (
            "cuda",
            "rsqrtf(sq / ncols + eps)",
            "rsqrtf(sq / ncols) + eps",
        ),
        "butterfly from mask 8": (
            "wgsl",
            "for (var lane_mask = 16u; lane_mask > 0u;",
            "for (var lane_mask = 8u; lane_mask > 0u;",
        ),
        "no barrier between the butterfly's read and the next write": (
            "wgsl",
            "sq += swap[lane ^ lane_mask];\n        workgroupBarrier();",
            "sq += swap[lane ^ lane_mask];",
        ),
        "mean over the 32 lanes, not the columns": (
            "wgsl",
            "let mean = sq / f32(p.ncols);",
            "let mean = sq / 32.0;",
        ),
    },
)


# -- ggml rope_neox with YaRN: rope_corr_dims by value, freq_factors ----------------------

_ROPE_NEOX_CUDA = r"""
#include <cstdint>

struct rope_corr_dims {
    float v[2];
};

// YaRN's ramp over the rotary pairs: 1 up to pair lo, 0 from pair hi, linear between
static __device__ float yarn_ramp(const float lo, const float hi, const int i0) {
    const float t = (i0 / 2 - lo) / max(0.001f, hi - lo);
    return 1.0f - min(1.0f, max(0.0f, t));
}

// the angle YaRN gives pair i0, as a cosine and sine scaled by mscale
template<bool forward>
static __device__ void yarn_cos_sin(
        const float theta_extrap, const float freq_scale, const rope_corr_dims corr_dims, const int64_t i0, const float ext_factor,
        float mscale, float & c, float & s) {
    const float theta_interp = freq_scale * theta_extrap;
    float theta = theta_interp;
    if (ext_factor != 0.0f) {
        // extrapolated where the ramp is 1, interpolated where it is 0; the magnitude
        // grows with the context's stretch
        const float mix = yarn_ramp(corr_dims.v[0], corr_dims.v[1], i0) * ext_factor;
        theta = theta_interp * (1 - mix) + theta_extrap * mix;
        mscale *= 1.0f + 0.1f * logf(1.0f / freq_scale);
    }
    c = cosf(theta) * mscale;
    s = sinf(theta) * mscale;
    if (!forward) {
        s = -s;
    }
}

// NeoX's rotation: pair i0 / 2 turns elements i0 / 2 and i0 / 2 + n_dims / 2 of a
// row, and the dimensions from n_dims on are copied; threads run along x over the
// rows (head, token) and along y over the pairs
template<bool forward, bool has_ff, typename T>
static __global__ void rope_neox(
        const T * x, T * dst, const int ne0, const int ne1, const int s1, const int s2, const int n_dims,
        const int32_t * pos, const float freq_scale, const float ext_factor, const float attn_factor,
        const rope_corr_dims corr_dims, const float theta_scale, const float * freq_factors) {
    const int i0 = 2*(blockDim.y*blockIdx.y + threadIdx.y);
    if (i0 >= ne0) {
        return;
    }
    const int row = blockDim.x*blockIdx.x + threadIdx.x;

    if (i0 >= n_dims) {
        const int at = row*ne0 + i0;
        dst[at + 0] = x[at + 0];
        dst[at + 1] = x[at + 1];
        return;
    }

    const int head  = row % ne1;
    const int token = row / ne1;
    const int half_dims = n_dims/2;
    const int dst_at = row*ne0 + i0/2;
    const int src_at = token*s2 + head*s1 + i0/2;

    const float ff = has_ff ? freq_factors[i0/2] : 1.0f;
    const float theta_base = pos[token]*powf(theta_scale, i0/2.0f);
    float c;
    float s;
    yarn_cos_sin<forward>(theta_base/ff, freq_scale, corr_dims, i0, ext_factor, attn_factor, c, s);

    const float a = x[src_at];
    const float b = x[src_at + half_dims];
    dst[dst_at]             = a*c - b*s;
    dst[dst_at + half_dims] = a*s + b*c;
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
            "const float b = x[src_at + half_dims];",
            "const float b = x[src_at + 1];",
        ),
        "CUDA: freq factor of the dimension, not the pair": (
            "cuda",
            "has_ff ? freq_factors[i0/2] : 1.0f",
            "has_ff ? freq_factors[i0] : 1.0f",
        ),
        "CUDA: YaRN ramp on the wrong end": (
            "cuda",
            "theta = theta_interp * (1 - mix) + theta_extrap * mix;",
            "theta = theta_extrap * (1 - mix) + theta_interp * mix;",
        ),
        "CUDA: pass-through tail not copied": ("cuda", "dst[at + 1] = x[at + 1];", ""),
    },
)


# -- ggml soft_max_f32: a half mask holding ALiBi distances, slopes per head ---------------

_SOFT_MAX_CUDA = r"""
#include <cuda_fp16.h>
#include <cstdint>

#define WARP_SIZE 32

static __device__ __forceinline__ float mask_value(half m) { return __half2float(m); }

static __device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int lane_mask = 16; lane_mask > 0; lane_mask >>= 1) {
        v += __shfl_xor_sync(0xffffffff, v, lane_mask, 32);
    }
    return v;
}

static __device__ __forceinline__ float warp_max(float v) {
#pragma unroll
    for (int lane_mask = 16; lane_mask > 0; lane_mask >>= 1) {
        v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, lane_mask, 32));
    }
    return v;
}

// ALiBi: head h weighs the mask by m0^(h + 1) for the first n_head_log2 heads and by
// odd powers of m1 after them; without a max bias, by 1
static __device__ __forceinline__ float alibi_slope(
    const float max_bias, const uint32_t h, const uint32_t n_head_log2, const float m0, const float m1
) {
    if (max_bias <= 0.0f) {
        return 1.0f;
    }
    const bool  early = h < n_head_log2;
    const float base  = early ? m0 : m1;
    const int   power = early ? h + 1 : 2*(h - n_head_log2) + 1;
    return powf(base, power);
}

// one row of x a CUDA block: x * scale plus the head's slope times the mask row (rows
// of x past nrows_y reuse the mask's), then its softmax; the dynamic shared memory is
// WARP_SIZE floats the warps reduce through, then (use_shared) the row's values
template <bool use_shared, int ncols_template, int block_size_template, typename T>
static __global__ void soft_max_f32(
        const float * x, const T * mask, float * dst, const int ncols_par, const int nrows_y,
        const float scale, const float max_bias, const float m0, const float m1, uint32_t n_head_log2) {
    const int ncols = ncols_template == 0 ? ncols_par : ncols_template;
    const int block_size = block_size_template == 0 ? blockDim.x : block_size_template;
    const int row  = blockIdx.x;
    const int mrow = row % nrows_y;
    const int warp = threadIdx.x / WARP_SIZE;
    const int lane = threadIdx.x % WARP_SIZE;
    const float slope = alibi_slope(max_bias, row/nrows_y, n_head_log2, m0, m1);

    extern __shared__ float smem[];
    float * across = smem;  // a float a warp
    float * vals = use_shared ? smem + WARP_SIZE : dst + (int64_t)row*ncols;

    // the logits, kept, and their max
    float max_val = -INFINITY;
    for (int col0 = 0; col0 < ncols; col0 += block_size) {
        const int col = col0 + threadIdx.x;
        if (ncols_template == 0 && col >= ncols) {
            break;
        }
        const int64_t ix = (int64_t)row*ncols + col;
        const int64_t iy = (int64_t)mrow*ncols + col;
        const float val = x[ix]*scale + (mask ? slope*mask_value(mask[iy]) : 0.0f);
        vals[col] = val;
        max_val = max(max_val, val);
    }
    max_val = warp_max(max_val);
    if (block_size > WARP_SIZE) {
        if (warp == 0) {
            across[lane] = -INFINITY;
        }
        __syncthreads();
        if (lane == 0) {
            across[warp] = max_val;
        }
        __syncthreads();
        max_val = warp_max(across[lane]);
    }

    // their exponentials, kept, and the sum
    float sum = 0.0f;
    for (int col0 = 0; col0 < ncols; col0 += block_size) {
        const int col = col0 + threadIdx.x;
        if (ncols_template == 0 && col >= ncols) {
            break;
        }
        const float e = expf(vals[col] - max_val);
        sum += e;
        vals[col] = e;
    }
    sum = warp_sum(sum);
    if (block_size > WARP_SIZE) {
        __syncthreads();
        if (warp == 0) {
            across[lane] = 0.0f;
        }
        __syncthreads();
        if (lane == 0) {
            across[warp] = sum;
        }
        __syncthreads();
        sum = warp_sum(across[lane]);
    }

    const float inv_sum = 1.0f / sum;
    for (int col0 = 0; col0 < ncols; col0 += block_size) {
        const int col = col0 + threadIdx.x;
        if (ncols_template == 0 && col >= ncols) {
            return;
        }
        dst[(int64_t)row*ncols + col] = vals[col] * inv_sum;
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
            "const int   power = early ? h + 1 : 2*(h - n_head_log2) + 1;",
            "const int   power = early ? h : 2*(h - n_head_log2) + 1;",
        ),
        "CUDA: mask broadcast by head, not by row": (
            "cuda",
            "const int mrow = row % nrows_y;",
            "const int mrow = row / nrows_y;",
        ),
        "CUDA: max reduce skips the last shuffle": (
            "cuda",
            "for (int lane_mask = 16; lane_mask > 0; lane_mask >>= 1) {\n        v = fmaxf",
            "for (int lane_mask = 16; lane_mask > 1; lane_mask >>= 1) {\n        v = fmaxf",
        ),
        "CUDA: inter-warp sums not reset": (
            "cuda",
            "across[lane] = 0.0f;",
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
// vLLM's file includes <cub/cub.cuh>, which CCCL refuses under NVRTC with an #error
// naming the narrower header
#include <cub/block/block_reduce.cuh>
#include <cuda/std/functional>

// CUDA 13's CCCL 3 has no cub::Sum: vLLM names the sum CubAddOp either way
#if CUB_VERSION >= 200800
using CubAddOp = cuda::std::plus<>;
#else
using CubAddOp = cub::Sum;
#endif

namespace vllm {

// one token a CUDA block: residual += input, then input = RMSNorm(residual) * weight
template <typename scalar_t>
__global__ void fused_add_rms_norm_kernel(
    scalar_t* __restrict__ input,
    scalar_t* __restrict__ residual,
    const scalar_t* __restrict__ weight,
    const float epsilon, const int num_tokens, const int hidden_size) {
  __shared__ float s_variance;
  scalar_t* in_row = input + blockIdx.x * hidden_size;
  scalar_t* res_row = residual + blockIdx.x * hidden_size;

  float sum_sq = 0.0f;
  for (int i = threadIdx.x; i < hidden_size; i += blockDim.x) {
    scalar_t z = in_row[i];
    z += res_row[i];
    res_row[i] = z;
    const float f = (float)z;
    sum_sq += f * f;
  }

  using BlockReduce = cub::BlockReduce<float, 1024>;
  __shared__ typename BlockReduce::TempStorage reduce_tmp;
  sum_sq = BlockReduce(reduce_tmp).Reduce(sum_sq, CubAddOp{}, blockDim.x);

  if (threadIdx.x == 0) {
    s_variance = rsqrtf(sum_sq / hidden_size + epsilon);
  }
  __syncthreads();

  for (int i = threadIdx.x; i < hidden_size; i += blockDim.x) {
    const float f = (float)res_row[i];
    in_row[i] = ((scalar_t)(f * s_variance)) * weight[i];
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

var<workgroup> partial: array<f32, 256>;
var<workgroup> s_variance: f32;

@compute @workgroup_size(256)
fn fused_add_rms_norm_kernel(@builtin(workgroup_id) wg: vec3<u32>,
                             @builtin(local_invocation_id) lid: vec3<u32>) {
    let first = wg.x * p.hidden_size;
    let me = lid.x;
    var sum_sq = 0.0;
    for (var i = me; i < p.hidden_size; i += 256u) {
        let z = input[first + i] + residual[first + i];
        residual[first + i] = z;
        sum_sq += z * z;
    }
    // a tree sum over the workgroup
    partial[me] = sum_sq;
    workgroupBarrier();
    for (var half_width = 128u; half_width > 0u; half_width >>= 1u) {
        if (me < half_width) { partial[me] += partial[me + half_width]; }
        workgroupBarrier();
    }
    if (me == 0u) {
        s_variance = inverseSqrt(partial[0] / f32(p.hidden_size) + p.epsilon);
    }
    workgroupBarrier();
    for (var i = me; i < p.hidden_size; i += 256u) {
        input[first + i] = residual[first + i] * s_variance * weight[i];
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
            "const float f = (float)res_row[i];",
            "const float f = (float)in_row[i];",
        ),
        "CUDA: no barrier after s_variance": (
            "cuda",
            "s_variance = rsqrtf(sum_sq / hidden_size + epsilon);\n  }\n  __syncthreads();",
            "s_variance = rsqrtf(sum_sq / hidden_size + epsilon);\n  }",
        ),
        "residual not written back": ("wgsl", "residual[first + i] = z;", ""),
        "variance over the workgroup, not the hidden size": (
            "wgsl",
            "partial[0] / f32(p.hidden_size)",
            "partial[0] / 256.0",
        ),
        "no barrier after s_variance": (
            "wgsl",
            "+ p.epsilon);\n    }\n    workgroupBarrier();",
            "+ p.epsilon);\n    }",
        ),
    },
    # (invocation 0, which writes s_variance, ran its part of the workgroup before the
    # others read it on both CPU adapters, and the race passed there until the oracle's
    # rerun reversed each workgroup's invocations, 2026-12-06: it fails on both now)
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

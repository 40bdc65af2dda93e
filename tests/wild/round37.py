"""Round 37 of kernels from the wild, merged into ``tests.wild.CORPUS``: WGSL compute
from scientific, signal and crypto code as public WebGPU projects write it, taken as
written.

- sha256-gpu (MarcoCiaramella/sha256-gpu at d815afcc, ``shader.wgsl``): SHA-256 of
  many 32-bit aligned messages, one invocation a message, the padding written by the
  kernel into the messages buffer it then hashes (``read_write``), the message count a
  bare ``var<storage, read> num_messages: u32``; judged exactly against ``hashlib``.
- webgpu_dpmm's Box-Muller (limarta/webgpu_dpmm at 1211ecee,
  ``src/shaders/rng/boxmuller.wgsl``): normal samples from pairs of u32 random words,
  ``sqrt(-2 log r) cos(theta)`` and ``sin`` by the sample's parity, ``r`` and ``theta``
  from ``f32(u) / f32(0xFFFFFFFF)``, a bare ``var<uniform> N: u32``.
- signalforge's FM discriminator and FIR filter (WispAyr/signalforge at 1fb57cf0,
  ``packages/client/src/gpu/demod.wgsl`` and ``filter.wgsl``): ``atan2`` of
  ``s[n] conj(s[n-1])``, and a causal convolution with the taps, one output a sample.
- webgpu-lbm (Anatta336/webgpu-lbm at 8ddb9279, ``src/fluid/shaders/simulate.wgsl``
  with ``lbm_common.wgsl`` inlined where its ``#include`` stands): the D2Q9 BGK
  collision and the streaming with bounce-back walls, 12 floats a cell (f0..f8, rho,
  vx, vy); the page ping-pongs two buffers by swapping bind groups: each entry point
  as a kernel of its own (src read, dst written), and the page's own sequence, two
  steps of collision (A to B) then streaming (B to A), as one kernel whose launches
  bind the buffers as the page does (``Dispatch.bindings``, added in round 45).

What they showed (lavapipe and SwiftShader; not run on a GPU; pinned in
tests/test_wild_round37.py):

- A false alarm, fixed: the FM discriminator failed on lavapipe at finite inputs. A
  product of two small samples (-0.0127 * -6.5e-38, or 1.5e-41 * 1.9e-38) is a
  subnormal or 0 in float32, of either sign after ``-0 - -0``, and ``atan2`` turns
  that into -pi/2 for -1.5654, or +pi for -pi; the rounding bound moved the float64
  reference's results by a fraction of themselves only. Results below float32's
  smallest normal are now flushed to a zero of a drawn sign in the bound's runs.
- A platform defect, declared (``Wild.platform``): SwiftShader's ``atan2(-0.0, 1.0)``
  is pi and ``atan2(-0.0, -1.0)`` is 0, which no reading of WGSL allows; the
  discriminator mismatches there wherever ``im`` is -0.
- The discriminator's contract is finite samples (``nonfinite_inputs=False``): with
  NaN inputs lavapipe's ``atan2`` returns 0 where numpy's is NaN, and the report said
  so and how to declare it.
- webgpu-lbm's streaming pulls each direction from ``x + e_i`` (its "source" is
  ``x - e[opposite[i]]``), against its velocity: a bug of the demo, not of the oracle;
  the reference computes what the kernel says. The collision judged on drawn
  distributions (densities near its ``rho < 0.0001`` switch) passed too, as did
  Box-Muller on drawn words (``log`` of 0 and of 1, ``cos`` and ``sin`` of [0, 2 pi]).
- Every original passed on reference and wgpu at seeds 0 to 2 (the discriminator at 0
  to 5) and on the browser at 0, and every mutant failed on both adapters.
"""

# ruff: noqa: E501  (the WGSL keeps its authors' long lines)

from __future__ import annotations

import dataclasses
import hashlib

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import Wild

# -- 1. sha256-gpu: SHA-256 of 32-bit aligned messages, padded by the kernel ------------------
# MarcoCiaramella/sha256-gpu at d815afcc, shader.wgsl as written. index.js pads nothing
# itself: it copies each message into a zeroed array of message_sizes[1] words and
# passes [message words, padded words]; the kernel writes 0x80, the zeros and the bit
# length, then hashes. The dispatch is ceil(messages / 256) workgroups.

_SHA256 = """
// SHA-256 for 32-bit aligned messages

fn swap_endianess32(val: u32) -> u32 {
    return ((val>>24u) & 0xffu) | ((val>>8u) & 0xff00u) | ((val<<8u) & 0xff0000u) | ((val<<24u) & 0xff000000u);
}

fn shw(x: u32, n: u32) -> u32 {
    return (x << (n & 31u)) & 0xffffffffu;
}

fn r(x: u32, n: u32) -> u32 {
    return (x >> n) | shw(x, 32u - n);
}

fn g0(x: u32) -> u32 {
    return r(x, 7u) ^ r(x, 18u) ^ (x >> 3u);
}

fn g1(x: u32) -> u32 {
    return r(x, 17u) ^ r(x, 19u) ^ (x >> 10u);
}

fn s0(x: u32) -> u32 {
    return r(x, 2u) ^ r(x, 13u) ^ r(x, 22u);
}

fn s1(x: u32) -> u32 {
    return r(x, 6u) ^ r(x, 11u) ^ r(x, 25u);
}

fn maj(a: u32, b: u32, c: u32) -> u32 {
    return (a & b) ^ (a & c) ^ (b & c);
}

fn ch(e: u32, f: u32, g: u32) -> u32 {
    return (e & f) ^ ((~e) & g);
}

@group(0) @binding(0) var<storage, read_write> messages: array<u32>;
@group(0) @binding(1) var<storage, read> num_messages: u32;
@group(0) @binding(2) var<storage, read> message_sizes: array<u32>;
@group(0) @binding(3) var<storage, read_write> hash: array<u32>;

@compute @workgroup_size(256)
fn sha256(@builtin(global_invocation_id) global_id: vec3<u32>) {

    let index = global_id.x;
    if (index >= num_messages) {
        return;
    }
    let message_base_index = index * message_sizes[1];
    let hash_base_index = index * (256u / 32u);

    // == padding == //

    messages[message_base_index + message_sizes[0]] = 0x00000080u;
    for (var i = message_sizes[0] + 1; i < message_sizes[1] - 2; i++){
        messages[message_base_index + i] = 0x00000000u;
    }
    messages[message_base_index + message_sizes[1] - 2] = 0;
    messages[message_base_index + message_sizes[1] - 1] = swap_endianess32(message_sizes[0] * 32u);

    // == processing == //

    hash[hash_base_index] = 0x6a09e667u;
    hash[hash_base_index + 1] = 0xbb67ae85u;
    hash[hash_base_index + 2] = 0x3c6ef372u;
    hash[hash_base_index + 3] = 0xa54ff53au;
    hash[hash_base_index + 4] = 0x510e527fu;
    hash[hash_base_index + 5] = 0x9b05688cu;
    hash[hash_base_index + 6] = 0x1f83d9abu;
    hash[hash_base_index + 7] = 0x5be0cd19u;

    let k = array<u32,64>(
        0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
        0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
        0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
        0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
        0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
        0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
        0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
        0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u
    );

    let num_chunks = (message_sizes[1] * 32u) / 512u;
    for (var i = 0u; i < num_chunks; i++){
        let chunk_index = i * (512u/32u);
        var w = array<u32,64>();
        for (var j = 0u; j < 16u; j++){
            w[j] = swap_endianess32(messages[message_base_index + chunk_index + j]);
        }
        for (var j = 16u; j < 64u; j++){
            w[j] = w[j - 16u] + g0(w[j - 15u]) + w[j - 7u] + g1(w[j - 2u]);
        }
        var a = hash[hash_base_index];
        var b = hash[hash_base_index + 1];
        var c = hash[hash_base_index + 2];
        var d = hash[hash_base_index + 3];
        var e = hash[hash_base_index + 4];
        var f = hash[hash_base_index + 5];
        var g = hash[hash_base_index + 6];
        var h = hash[hash_base_index + 7];
        for (var j = 0u; j < 64u; j++){
            let t2 = s0(a) + maj(a, b, c);
            let t1 = h + s1(e) + ch(e, f, g) + k[j] + w[j];
            h = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        hash[hash_base_index] += a;
        hash[hash_base_index + 1] += b;
        hash[hash_base_index + 2] += c;
        hash[hash_base_index + 3] += d;
        hash[hash_base_index + 4] += e;
        hash[hash_base_index + 5] += f;
        hash[hash_base_index + 6] += g;
        hash[hash_base_index + 7] += h;
    }
    hash[hash_base_index] = swap_endianess32(hash[hash_base_index]);
    hash[hash_base_index + 1] = swap_endianess32(hash[hash_base_index + 1]);
    hash[hash_base_index + 2] = swap_endianess32(hash[hash_base_index + 2]);
    hash[hash_base_index + 3] = swap_endianess32(hash[hash_base_index + 3]);
    hash[hash_base_index + 4] = swap_endianess32(hash[hash_base_index + 4]);
    hash[hash_base_index + 5] = swap_endianess32(hash[hash_base_index + 5]);
    hash[hash_base_index + 6] = swap_endianess32(hash[hash_base_index + 6]);
    hash[hash_base_index + 7] = swap_endianess32(hash[hash_base_index + 7]);
}
"""


def _padded_words(words: int) -> int:
    """index.js's getMessageSizes: the message, a 1 bit, zeros and a 64-bit length,
    a multiple of 512 bits, in words."""
    bits = words * 32
    return (bits + 1 + (512 - (bits + 1 + 64) % 512) + 64) // 32


def _sha_messages(rng, count, size):
    """index.js's padMessage: each message's words, then zeros to the padded size."""
    padded = _padded_words(size.L)
    out = np.zeros((size.N, padded), np.uint32)
    out[:, : size.L] = rng.integers(0, 2**32, (size.N, size.L), dtype=np.uint64)
    return out.reshape(-1)


def _sha256_reference(messages, num_messages, message_sizes, hash):
    words, padded = int(message_sizes[0]), int(message_sizes[1])
    rows = messages.reshape(-1, padded)
    digests = [hashlib.sha256(row[:words].astype("<u4").tobytes()).digest() for row in rows]
    # the padding the kernel writes into the messages: 0x80 after the message (little-
    # endian words, so the byte after it), zeros, and the bit length byte-swapped
    rows[:, words] = 0x80
    rows[:, words + 1 :] = 0
    rows[:, -1] = int.from_bytes((words * 32).to_bytes(4, "big"), "little")
    hash[...] = np.frombuffer(b"".join(digests), "<u4")


SHA256 = Wild(
    KernelSpec(
        id="wild_r37_sha256_gpu_messages_padded_in_place",
        entry_point="sha256",
        sources={"wgsl": _SHA256},
        dims=("N", "L"),
        buffers=(
            BufferSpec(
                0,
                "u32",
                "read_write",
                name="messages",
                count=lambda s: s.N * _padded_words(s.L),
                inout=True,
                fill=_sha_messages,
            ),
            BufferSpec(
                1,
                "u32",
                "read",
                name="num_messages",
                count=1,
                fill=lambda r, c, s: np.array([s.N], np.uint32),
            ),
            BufferSpec(
                2,
                "u32",
                "read",
                name="message_sizes",
                count=2,
                fill=lambda r, c, s: np.array([s.L, _padded_words(s.L)], np.uint32),
            ),
            BufferSpec(3, "u32", "read_write", name="hash", count="N*8"),
        ),
        reference=_sha256_reference,
        grid=lambda s, size: (ceil_div(size.N, 256), 1, 1),
        schedules=(Schedule(256),),
        # 13 words pad into one block, 14 need two
        test_sizes=("N=300,L=14", "N=1,L=1", "N=65,L=13", "N=3,L=40"),
    ),
    {
        "sigma0 rotates by 17": (
            "wgsl",
            "return r(x, 7u) ^ r(x, 18u) ^ (x >> 3u);",
            "return r(x, 7u) ^ r(x, 17u) ^ (x >> 3u);",
        ),
        "the length in bytes": (
            "wgsl",
            "swap_endianess32(message_sizes[0] * 32u);",
            "swap_endianess32(message_sizes[0] * 4u);",
        ),
        "the zeros overwrite the 0x80": (
            "wgsl",
            "for (var i = message_sizes[0] + 1; i < message_sizes[1] - 2; i++){",
            "for (var i = message_sizes[0]; i < message_sizes[1] - 2; i++){",
        ),
        "ch picks f where e is clear": (
            "wgsl",
            "return (e & f) ^ ((~e) & g);",
            "return (e & f) ^ ((~e) & f);",
        ),
        "the last chunk left out": (
            "wgsl",
            "let num_chunks = (message_sizes[1] * 32u) / 512u;",
            "let num_chunks = (message_sizes[1] * 32u - 1u) / 512u;",
        ),
    },
)


# -- 2. webgpu_dpmm: Box-Muller normals from pairs of u32 words --------------------------------
# limarta/webgpu_dpmm at 1211ecee, src/shaders/rng/boxmuller.wgsl as written: rng holds
# threefry's output words, one vec2u for each two samples; even samples take the cosine,
# odd ones the sine, of the same pair.

_BOXMULLER = """
@group(0) @binding(0) var<uniform> N: u32;
@group(0) @binding(1) var<storage> rng: array<vec2u>;
@group(0) @binding(2) var<storage, read_write> samples: array<f32>;

override nTPB: u32 = 16;
const MAX: u32 = 0xFFFFFFFF;

@compute @workgroup_size(nTPB, 1, 1)
fn boxmuller(
    @builtin(global_invocation_id) global_invocation_id: vec3<u32>
) {
    let idx: u32 = global_invocation_id.x;
    if (idx >= N) {
        return;
    }

    let index = idx >> 1;

    let u_0: u32 = rng[index].x;
    let u_1: u32 = rng[index].y;

    // Box-Muller transform
    let r: f32 = f32(u_0) / f32(MAX);
    let theta: f32 = f32(u_1) / f32(MAX) * 2.0 * 3.1415926535897932384626433832795;

    if ((idx & 1) == 0) {
        samples[idx] = sqrt(-2.0 * log(r)) * cos(theta);
    } else {
        samples[idx] = sqrt(-2.0 * log(r)) * sin(theta);
    }
}
"""

_U32_MAX = 0xFFFFFFFF


def _boxmuller_reference(N, rng, samples):
    """The Box-Muller transform of each pair: r = u0 / MAX, theta = 2 pi u1 / MAX."""
    pairs = rng.reshape(-1, 2).astype(np.float64)
    r = pairs[:, 0] / _U32_MAX
    theta = pairs[:, 1] / _U32_MAX * 2.0 * np.pi
    radius = np.sqrt(-2.0 * np.log(r))
    out = np.empty(2 * len(pairs))
    out[0::2] = radius * np.cos(theta)
    out[1::2] = radius * np.sin(theta)
    samples[...] = out[: len(samples)]


BOXMULLER = Wild(
    KernelSpec(
        id="wild_r37_webgpu_dpmm_box_muller_u32_pairs",
        entry_point="boxmuller",
        sources={"wgsl": _BOXMULLER},
        buffers=(
            BufferSpec.uniform(0, (("N", "u32"),), name="N"),
            BufferSpec(1, "vec2<u32>", "read", name="rng", count=lambda n: ceil_div(int(n), 2)),
            BufferSpec(2, "f32", "read_write", name="samples"),
        ),
        reference=_boxmuller_reference,
        params=lambda n: {"N": int(n)},
        overrides={"nTPB": 16},
        grid=lambda s, n: (ceil_div(n, 16), 1, 1),
        schedules=(Schedule(16),),
        test_sizes=(4099, 1, 64),
    ),
    {
        "cosine and sine swapped": ("wgsl", "if ((idx & 1) == 0) {", "if ((idx & 1) == 1) {"),
        "log base 2": (
            "wgsl",
            "sqrt(-2.0 * log(r)) * cos(theta);",
            "sqrt(-2.0 * log2(r)) * cos(theta);",
        ),
        "theta over half a turn": (
            "wgsl",
            "f32(u_1) / f32(MAX) * 2.0 * 3.1415926535897932384626433832795;",
            "f32(u_1) / f32(MAX) * 3.1415926535897932384626433832795;",
        ),
    },
)


# -- 3. signalforge: the FM discriminator and the FIR filter -----------------------------------
# WispAyr/signalforge at 1fb57cf0, packages/client/src/gpu/demod.wgsl and filter.wgsl as
# written; demod.ts and filter.ts dispatch ceil(n / 256) workgroups.

_FM_DEMOD = """
// FM Demodulator compute shader — atan2-based phase difference discriminator

struct DemodParams {
  num_samples: u32,
  _pad0: u32,
  _pad1: u32,
  _pad2: u32,
}

@group(0) @binding(0) var<storage, read> i_data: array<f32>;
@group(0) @binding(1) var<storage, read> q_data: array<f32>;
@group(0) @binding(2) var<storage, read_write> output: array<f32>;
@group(0) @binding(3) var<uniform> params: DemodParams;

@compute @workgroup_size(256)
fn fm_demod(@builtin(global_invocation_id) gid: vec3u) {
  let n = gid.x;
  if (n >= params.num_samples) { return; }

  if (n == 0u) {
    output[0] = 0.0;
    return;
  }

  // Conjugate multiply: s[n] * conj(s[n-1])
  let re = i_data[n] * i_data[n - 1u] + q_data[n] * q_data[n - 1u];
  let im = q_data[n] * i_data[n - 1u] - i_data[n] * q_data[n - 1u];

  output[n] = atan2(im, re);
}
"""

_PADDED_COUNT = (("_pad0", "u32"), ("_pad1", "u32"), ("_pad2", "u32"))

#: Why the discriminator mismatches on SwiftShader (``Wild.platform``).
SWIFTSHADER_ATAN2_OF_MINUS_ZERO = (
    "SwiftShader (Chromium's, 2026-12) computes atan2(-0.0, 1.0) as pi and atan2(-0.0, -1.0) "
    "as 0 (IEEE and lavapipe: -0 and -pi; WGSL may ignore a zero's sign, which allows +0 "
    "and +pi, not these): im is -0 wherever q is 0 beside a sample of the other sign "
    "(an ADC's exact zeros), and the discriminator spikes by pi there"
)


def _fm_demod_reference(i_data, q_data, output, params):
    i, q = i_data.astype(np.float64), q_data.astype(np.float64)
    re = i[1:] * i[:-1] + q[1:] * q[:-1]
    im = q[1:] * i[:-1] - i[1:] * q[:-1]
    output[0] = 0.0
    output[1:] = np.arctan2(im, re)


FM_DEMOD = Wild(
    KernelSpec(
        id="wild_r37_signalforge_fm_demod_atan2",
        entry_point="fm_demod",
        sources={"wgsl": _FM_DEMOD},
        buffers=(
            BufferSpec(0, "f32", "read", name="i_data"),
            BufferSpec(1, "f32", "read", name="q_data"),
            BufferSpec(2, "f32", "read_write", name="output"),
            BufferSpec.uniform(3, (("num_samples", "u32"), *_PADDED_COUNT)),
        ),
        reference=_fm_demod_reference,
        params=lambda n: {"num_samples": int(n)},
        grid=lambda s, n: (ceil_div(n, 256), 1, 1),
        schedules=(Schedule(256),),
        nonfinite_inputs=False,  # IQ samples from a receiver
        test_sizes=(10007, 1, 257),
    ),
    {
        "the conjugate on the wrong sample": (
            "wgsl",
            "let im = q_data[n] * i_data[n - 1u] - i_data[n] * q_data[n - 1u];",
            "let im = i_data[n] * q_data[n - 1u] - q_data[n] * i_data[n - 1u];",
        ),
        "atan of the ratio": ("wgsl", "output[n] = atan2(im, re);", "output[n] = atan(im / re);"),
        "sample 0 not zeroed": ("wgsl", "output[0] = 0.0;\n    return;", "return;"),
    },
    platform={("browser", "swiftshader", "output"): SWIFTSHADER_ATAN2_OF_MINUS_ZERO},
)

_FIR = """
// FIR Filter compute shader — convolution-based

struct FilterParams {
  input_len: u32,
  num_taps: u32,
  _pad0: u32,
  _pad1: u32,
}

@group(0) @binding(0) var<storage, read> input_data: array<f32>;
@group(0) @binding(1) var<storage, read> taps: array<f32>;
@group(0) @binding(2) var<storage, read_write> output_data: array<f32>;
@group(0) @binding(3) var<uniform> params: FilterParams;

@compute @workgroup_size(256)
fn fir_filter(@builtin(global_invocation_id) gid: vec3u) {
  let i = gid.x;
  if (i >= params.input_len) { return; }

  var sum: f32 = 0.0;
  for (var j: u32 = 0u; j < params.num_taps; j = j + 1u) {
    if (i >= j) {
      sum = sum + input_data[i - j] * taps[j];
    }
  }
  output_data[i] = sum;
}
"""

_FIR_TAPS = 63


def _fir_reference(input_data, taps, output_data, params):
    x, h = input_data.astype(np.float64), taps.astype(np.float64)
    output_data[...] = np.convolve(x, h)[: len(x)]


FIR = Wild(
    KernelSpec(
        id="wild_r37_signalforge_fir_causal",
        entry_point="fir_filter",
        sources={"wgsl": _FIR},
        buffers=(
            BufferSpec(0, "f32", "read", name="input_data"),
            BufferSpec(1, "f32", "read", name="taps", count=_FIR_TAPS),
            BufferSpec(2, "f32", "read_write", name="output_data"),
            BufferSpec.uniform(
                3, (("input_len", "u32"), ("num_taps", "u32"), ("_pad0", "u32"), ("_pad1", "u32"))
            ),
        ),
        reference=_fir_reference,
        params=lambda n: {"input_len": int(n), "num_taps": _FIR_TAPS},
        grid=lambda s, n: (ceil_div(n, 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=(4099, 1, 40),
    ),
    {
        "the first taps' warm-up dropped": ("wgsl", "if (i >= j) {", "if (i > j) {"),
        "one tap short": (
            "wgsl",
            "j < params.num_taps; j = j + 1u",
            "j + 1u < params.num_taps; j = j + 1u",
        ),
        "correlation for convolution": (
            "wgsl",
            "sum = sum + input_data[i - j] * taps[j];",
            "sum = sum + input_data[i - j] * taps[params.num_taps - 1u - j];",
        ),
    },
)


# -- 4. webgpu-lbm: D2Q9 collision and streaming, 12 floats a cell -----------------------------
# Anatta336/webgpu-lbm at 8ddb9279, src/fluid/shaders/simulate.wgsl with lbm_common.wgsl
# inlined at its ``#include``. simulatePipeline.ts binds (params, A, B) for the
# collision and (params, B, A) for the streaming and dispatches ceil(W / 16) x
# ceil(H / 16); simParams.ts sets omega = 1 / (3 viscosity + 0.5) for viscosity 0.1.

_LBM_COMMON = """
// Common LBM structures and functions.

// Simulation parameters structure
struct SimParams {
    width:     u32,
    height:    u32,
    time:      f32,
    omega:     f32,
    viscosity: f32,
    reserved:  f32,
}

// D2Q9 lattice directions
// 6 2 5
// 3 0 1
// 7 4 8
const e = array<vec2<f32>, 9>(
    vec2<f32>(0.0, 0.0),   // Center (0)
    vec2<f32>(1.0, 0.0),   // East (1)
    vec2<f32>(0.0, 1.0),   // North (2)
    vec2<f32>(-1.0, 0.0),  // West (3)
    vec2<f32>(0.0, -1.0),  // South (4)
    vec2<f32>(1.0, 1.0),   // North-East (5)
    vec2<f32>(-1.0, 1.0),  // North-West (6)
    vec2<f32>(-1.0, -1.0), // South-West (7)
    vec2<f32>(1.0, -1.0)   // South-East (8)
);

// Weights for D2Q9 model
const w = array<f32, 9>(
    4.0 / 9.0,  // Center (0)
    1.0 / 9.0,  // East (1)
    1.0 / 9.0,  // North (2)
    1.0 / 9.0,  // West (3)
    1.0 / 9.0,  // South (4)
    1.0 / 36.0, // North-East (5)
    1.0 / 36.0, // North-West (6)
    1.0 / 36.0, // South-West (7)
    1.0 / 36.0  // South-East (8)
);

// Opposite directions for bounce-back boundary conditions
const opposite = array<u32, 9>(
    0u, // Center (0) -> Center (0)
    3u, // East (1) -> West (3)
    4u, // North (2) -> South (4)
    1u, // West (3) -> East (1)
    2u, // South (4) -> North (2)
    7u, // North-East (5) -> South-West (7)
    8u, // North-West (6) -> South-East (8)
    5u, // South-West (7) -> North-East (5)
    6u  // South-East (8) -> North-West (6)
);

// Helper to compute buffer index for the cell at (x, y)
fn computeIndex(params: SimParams, x: u32, y: u32) -> u32 {
    return (y * params.width + x) * 12u;
}

// Helper function to compute equilibrium distribution
fn computeEquilibrium(rho: f32, velocity: vec2<f32>, i: u32) -> f32 {
    let vel_dot_e = dot(velocity, e[i]);
    let vel_squared = dot(velocity, velocity);

    // Standard equilibrium formula for D2Q9:
    // f_eq = rho * w_i * (1 + 3(e_i·u) + 9/2(e_i·u)² - 3/2|u|²)
    return rho * w[i] * (
        1.0 +
        3.0 * vel_dot_e +
        4.5 * vel_dot_e * vel_dot_e -
        1.5 * vel_squared
    );
}
"""

_LBM_SIMULATE = """
@group(0) @binding(0) var<uniform> params: SimParams;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;


// Check if a cell is solid (boundary)
fn isSolid(x: u32, y: u32) -> bool {
    // Walls on the borders.
    return x == 0u || y == 0u || x == params.width - 1u || y == params.height - 1u;

    // Could add more complex boundary conditions here.
}

// Collision step (compute new distributions after collision)
@compute @workgroup_size(16, 16)
fn collision(@builtin(global_invocation_id) global_id: vec3<u32>) {
    let x = global_id.x;
    let y = global_id.y;

    if (x >= params.width || y >= params.height) {
        return;
    }

    let baseIndex = computeIndex(params, x, y);

    // Check if this is a solid cell
    if (isSolid(x, y)) {
        // For solid cells, we'll handle bounce-back in the streaming step
        // Just copy the original values to the destination buffer
        for (var i = 0u; i < 12u; i++) {
            dst[baseIndex + i] = src[baseIndex + i];
        }
        return;
    }

    // Load current distributions f[i]
    var f: array<f32, 9>;
    for (var i = 0u; i < 9u; i++) {
        f[i] = src[baseIndex + i];
    }

    // Compute macroscopic quantities: density and velocity
    var rho = 0.0;
    var momentum = vec2<f32>(0.0, 0.0);

    for (var i = 0u; i < 9u; i++) {
        rho += f[i];
        momentum += f[i] * e[i];
    }

    let velocity = select(momentum / rho, vec2<f32>(0.0, 0.0), rho < 0.0001);

    // Save macroscopic quantities for visualization and next steps
    dst[baseIndex + 9] = rho;
    dst[baseIndex + 10] = velocity.x;
    dst[baseIndex + 11] = velocity.y;

    // Compute equilibrium distributions
    var f_eq: array<f32, 9>;
    for (var i = 0u; i < 9u; i++) {
        f_eq[i] = computeEquilibrium(rho, velocity, i);
    }

    // Perform collision step using BGK approximation
    // f_i = f_i + omega * (f_eq_i - f_i)
    for (var i = 0u; i < 9u; i++) {
        // Calculate the post-collision distribution
        let f_coll = f[i] + params.omega * (f_eq[i] - f[i]);
        dst[baseIndex + i] = f_coll;
    }
}

// Streaming step (move distributions to neighboring cells)
@compute @workgroup_size(16, 16)
fn streaming(@builtin(global_invocation_id) global_id: vec3<u32>) {
    let x = global_id.x;
    let y = global_id.y;

    if (x >= params.width || y >= params.height) {
        return;
    }

    let dstIndex = computeIndex(params, x, y);

    // Handle bounce-back boundary conditions for solid cells
    if (isSolid(x, y)) {
        // For solid cells, perform bounce-back
        // Distributions bounce back in the opposite direction
        for (var i = 1u; i < 9u; i++) { // Skip center direction (0)
            let oppositeDir = opposite[i];

            // Get the distribution from the opposite direction
            let srcValue = src[dstIndex + i];

            // Reflect it back
            dst[dstIndex + oppositeDir] = srcValue;
        }
        return;
    }

    // For fluid cells, handle streaming from neighboring cells
    for (var i = 0u; i < 9u; i++) {
        // Find the source cell for this direction (move in the opposite direction to trace back)
        let srcDir = opposite[i];
        let srcVec = e[srcDir];

        // Calculate coordinates of the source cell
        let srcX = u32(i32(x) - i32(srcVec.x));
        let srcY = u32(i32(y) - i32(srcVec.y));

        // Check if the source cell is within bounds
        if (srcX < params.width && srcY < params.height) {
            let srcCellIndex = computeIndex(params, srcX, srcY);

            // If source is a solid cell, handle bounce-back
            if (isSolid(srcX, srcY)) {
                // The distribution bounces back from the solid boundary
                dst[dstIndex + i] = src[dstIndex + srcDir];
            } else {
                // Regular streaming: pull the distribution from the source cell
                dst[dstIndex + i] = src[srcCellIndex + i];
            }
        }
    }

    // Copy the macroscopic quantities (rho, vx, vy) from collision step
    dst[dstIndex + 9] = src[dstIndex + 9];   // rho
    dst[dstIndex + 10] = src[dstIndex + 10]; // vx
    dst[dstIndex + 11] = src[dstIndex + 11]; // vy
}
"""

_LBM = _LBM_COMMON + _LBM_SIMULATE

_E = np.array([(0, 0), (1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1)])
_W = np.array([4 / 9] + [1 / 9] * 4 + [1 / 36] * 4)
_OPPOSITE = np.array([0, 3, 4, 1, 2, 7, 8, 5, 6])
_VISCOSITY = 0.1


def _lbm_cells(rng, count, size):
    """A flow the demo could be in: each cell's f near the equilibrium of a density
    about 1 and a velocity up to 0.1 lattice units (Mach 0.17), moved off it by a few
    percent; rho, vx and vy as the last collision left them."""
    cells = count // 12
    rho = rng.uniform(0.95, 1.05, cells)
    u = rng.uniform(-0.07, 0.07, (cells, 2))
    f = _equilibrium(rho, u) * rng.uniform(0.97, 1.03, (cells, 9))
    out = np.empty((cells, 12))
    out[:, :9] = f
    out[:, 9] = f.sum(axis=1)
    out[:, 10:] = (f @ _E) / out[:, 9:10]
    return out.astype(np.float32).reshape(-1)


def _equilibrium(rho, u):
    eu = u @ _E.T
    uu = (u * u).sum(axis=1, keepdims=True)
    return rho[:, None] * _W * (1 + 3 * eu + 4.5 * eu**2 - 1.5 * uu)


def _walls(width: int, height: int) -> np.ndarray:
    solid = np.zeros((height, width), bool)
    solid[0, :] = solid[-1, :] = solid[:, 0] = solid[:, -1] = True
    return solid


def _lbm_collision_reference(params, src, dst):
    """BGK: f + omega (f_eq(rho, u) - f) in the fluid, with rho and u = momentum / rho
    (0 below rho 1e-4) stored after f; the walls copied as they are."""
    width, height = int(params["width"]), int(params["height"])
    omega = float(params["omega"])
    cells = src.reshape(height, width, 12).astype(np.float64)
    f = cells[..., :9].reshape(-1, 9)
    rho = f.sum(axis=1)
    momentum = f @ _E
    u = np.where((rho < 1e-4)[:, None], 0.0, momentum / rho[:, None])
    out = np.empty((height * width, 12))
    out[:, :9] = f + omega * (_equilibrium(rho, u) - f)
    out[:, 9] = rho
    out[:, 10:] = u
    out = out.reshape(height, width, 12)
    solid = _walls(width, height)
    out[solid] = cells[solid]
    dst[...] = out.reshape(-1)


def _lbm_streaming_reference(params, src, dst):
    """Pull streaming as the demo writes it: a fluid cell's f_i comes from the cell at
    x + e_i (the demo's "source" is x - e[opposite[i]]: against the direction f_i
    travels), or, where that cell is a wall, from its own f_opposite(i); a wall cell
    reflects its own f_i into f_opposite(i) and keeps what dst held for f0, rho and u."""
    width, height = int(params["width"]), int(params["height"])
    cells = src.reshape(height, width, 12)
    out = dst.reshape(height, width, 12)
    solid = _walls(width, height)
    for y in range(height):
        for x in range(width):
            if solid[y, x]:
                for i in range(1, 9):
                    out[y, x, _OPPOSITE[i]] = cells[y, x, i]
                continue
            for i in range(9):
                sx, sy = x + _E[i, 0], y + _E[i, 1]
                if 0 <= sx < width and 0 <= sy < height:
                    if solid[sy, sx]:
                        out[y, x, i] = cells[y, x, _OPPOSITE[i]]
                    else:
                        out[y, x, i] = cells[sy, sx, i]
            out[y, x, 9:] = cells[y, x, 9:]


def _lbm_kernel(id: str, entry_point: str, reference, sizes) -> KernelSpec:
    return KernelSpec(
        id=id,
        entry_point=entry_point,
        sources={"wgsl": _LBM},
        dims=("W", "H"),
        buffers=(
            BufferSpec.uniform(
                0,
                (
                    ("width", "u32"),
                    ("height", "u32"),
                    ("time", "f32"),
                    ("omega", "f32"),
                    ("viscosity", "f32"),
                    ("reserved", "f32"),
                ),
            ),
            BufferSpec(1, "f32", "read", name="src", count="W*H*12", fill=_lbm_cells),
            BufferSpec(
                2,
                "f32",
                "read_write",
                name="dst",
                count="W*H*12",
                inout=entry_point == "streaming",
                fill=_lbm_cells if entry_point == "streaming" else None,
            ),
        ),
        reference=reference,
        params=lambda s: {"width": s.W, "height": s.H},
        defaults={
            "time": 0.5,
            "omega": 1.0 / (3.0 * _VISCOSITY + 0.5),
            "viscosity": _VISCOSITY,
            "reserved": 0.0,
        },
        grid=lambda s, size: (ceil_div(size.W, 16), ceil_div(size.H, 16), 1),
        schedules=(Schedule((16, 16)),),
        nonfinite_inputs=False,
        test_sizes=sizes,
    )


LBM_COLLISION = Wild(
    _lbm_kernel(
        "wild_r37_webgpu_lbm_d2q9_bgk_collision",
        "collision",
        _lbm_collision_reference,
        ("W=37,H=21", "W=3,H=3", "W=16,H=17"),
    ),
    {
        "the quadratic term linear": (
            "wgsl",
            "4.5 * vel_dot_e * vel_dot_e -",
            "4.5 * vel_dot_e -",
        ),
        "relaxes toward f": (
            "wgsl",
            "let f_coll = f[i] + params.omega * (f_eq[i] - f[i]);",
            "let f_coll = f[i] + params.omega * (f[i] - f_eq[i]);",
        ),
        "no top wall": (
            "wgsl",
            "x == params.width - 1u || y == params.height - 1u;",
            "x == params.width - 1u || y == params.height;",
        ),
        "a diagonal weight of 1/9": (
            "wgsl",
            "1.0 / 36.0, // South-West (7)",
            "1.0 / 9.0, // South-West (7)",
        ),
    },
)

LBM_STREAMING = Wild(
    _lbm_kernel(
        "wild_r37_webgpu_lbm_d2q9_streaming_bounce_back",
        "streaming",
        _lbm_streaming_reference,
        ("W=37,H=21", "W=3,H=3", "W=16,H=17"),
    ),
    {
        "bounces back unreversed": (
            "wgsl",
            "dst[dstIndex + i] = src[dstIndex + srcDir];",
            "dst[dstIndex + i] = src[dstIndex + i];",
        ),
        "north-east and north-west opposite swapped": (
            "wgsl",
            "    7u, // North-East (5) -> South-West (7)\n    8u, // North-West (6) -> South-East (8)",
            "    8u, // North-East (5) -> South-West (7)\n    7u, // North-West (6) -> South-East (8)",
        ),
        "source row from x": (
            "wgsl",
            "let srcY = u32(i32(y) - i32(srcVec.y));",
            "let srcY = u32(i32(y) - i32(srcVec.x));",
        ),
    },
)


# The page's sequence: simulatePipeline.ts binds (params, A, B) for the collision and
# (params, B, A) for the streaming, a step a frame; two steps here, so the second
# collision reads what the first streaming wrote.
_LBM_STEPS = 2


def _lbm_steps_reference(params, a, b):
    """Two steps of the page: the collision of a into b, then the streaming of b back
    into a, whose wall cells keep what a held before the collision in f0, rho and u."""
    a = a.astype(np.float64)
    b = np.empty_like(a)
    for _ in range(_LBM_STEPS):
        _lbm_collision_reference(params, a, b)
        _lbm_streaming_reference(params, b, a)
    return {"a": a, "b": b}


def _lbm_grid(schedule, size):
    return (ceil_div(size.W, 16), ceil_div(size.H, 16), 1)


_LBM_PAGE = (
    Dispatch("collision", grid=_lbm_grid),  # (params, A, B): a in src, b in dst
    Dispatch("streaming", grid=_lbm_grid, bindings={"src": "b", "dst": "a"}),
) * _LBM_STEPS

LBM_PAGE = Wild(
    dataclasses.replace(
        _lbm_kernel(
            "wild_r37_webgpu_lbm_d2q9_collide_and_stream",
            "collision",
            _lbm_steps_reference,
            ("W=37,H=21", "W=3,H=3", "W=16,H=17"),
        ),
        buffers=(
            LBM_COLLISION.kernel.buffers[0],
            BufferSpec(
                1, "f32", "read_write", name="a", count="W*H*12", inout=True, fill=_lbm_cells
            ),
            BufferSpec(2, "f32", "read_write", name="b", count="W*H*12"),
        ),
        launches=_LBM_PAGE,
    ),
    {
        "relaxes toward f": LBM_COLLISION.mutants["relaxes toward f"],
        "bounces back unreversed": LBM_STREAMING.mutants["bounces back unreversed"],
    },
)


ROUND37: dict = {
    w.kernel.id: w
    for w in (SHA256, BOXMULLER, FM_DEMOD, FIR, LBM_COLLISION, LBM_STREAMING, LBM_PAGE)
}

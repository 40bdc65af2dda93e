"""Round 37 of kernels from the wild, merged into ``tests.wild.CORPUS``: WGSL compute
from scientific, signal and crypto code, after what public WebGPU projects write.

The kernels are written for this corpus after the sources named below: read, not
copied (the project's rule for public code: round 37 first took them verbatim, and
they were rewritten on 2026-12-06). What is theirs is kept: the entry points, the
bindings (group, binding, name, type, access, order: the bare ``num_messages`` and
``N``, ``rng`` with no access mode, sha256-gpu's ``read_write`` messages), the uniform
structs' fields and layouts (``DemodParams`` and ``FilterParams`` with their pads,
``SimParams``), the ``nTPB`` override, the workgroup sizes, the launch geometry and
sequence (the LBM page's ping-pong through ``Dispatch.bindings``), and the numerics:
SHA-256 (FIPS 180-4's constants) with the padding written into the messages and the
state kept in ``hash``, Box-Muller's ``f32(u) / f32(0xFFFFFFFF)`` words and its
cosine for even samples, the discriminator's products in their order and ``atan2``,
the FIR's skipped warm-up taps, the D2Q9 tables, the equilibrium's order of terms, the
``rho < 0.0001`` switch, and the streaming that pulls from ``x - e[opposite[i]]`` (the
demo's bug the round pins). What is ours: the comments, the helpers' and locals'
names, the order of equivalent statements and the formatting; sha256-gpu's eight
initial, added and swapped state words are loops over arrays, its separate zero of the
second-last word part of the zero loop, the lattice tables one row a group of
directions, the collision's three loops two, the copies of rho and velocity a loop.

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

# ruff: noqa: E501  (the WGSL's long lines)

from __future__ import annotations

import dataclasses
import hashlib

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import Wild

# -- 1. sha256-gpu: SHA-256 of 32-bit aligned messages, padded by the kernel ------------------
# After MarcoCiaramella/sha256-gpu at d815afcc, shader.wgsl (read, not copied). index.js
# pads nothing itself: it copies each message into a zeroed array of message_sizes[1] words and
# passes [message words, padded words]; the kernel writes 0x80, the zeros and the bit
# length, then hashes. The dispatch is ceil(messages / 256) workgroups.

_SHA256 = """
// kernel-forge corpus: SHA-256 of many messages of whole u32 words, after sha256-gpu's
// shader.wgsl (read, not copied). One invocation a message: it first pads its own
// message in place (0x80 after the words, zeros, the length in bits big-endian in the
// last word), then hashes the padded 512-bit blocks, keeping the running state in
// `hash`. Words are read as little-endian bytes, hence the byte swaps.

fn bswap(v: u32) -> u32 {
    return (v << 24u) | ((v << 8u) & 0x00ff0000u) | ((v >> 8u) & 0x0000ff00u) | (v >> 24u);
}

fn rotr(v: u32, n: u32) -> u32 {
    return (v >> n) | (v << (32u - n));
}

// FIPS 180-4's four sigma functions, choose and majority
fn small_sigma0(v: u32) -> u32 {
    return rotr(v, 7u) ^ rotr(v, 18u) ^ (v >> 3u);
}

fn small_sigma1(v: u32) -> u32 {
    return rotr(v, 17u) ^ rotr(v, 19u) ^ (v >> 10u);
}

fn big_sigma0(v: u32) -> u32 {
    return rotr(v, 2u) ^ rotr(v, 13u) ^ rotr(v, 22u);
}

fn big_sigma1(v: u32) -> u32 {
    return rotr(v, 6u) ^ rotr(v, 11u) ^ rotr(v, 25u);
}

fn choose(e: u32, f: u32, g: u32) -> u32 {
    return (e & f) ^ (~e & g);
}

fn majority(a: u32, b: u32, c: u32) -> u32 {
    return (a & b) ^ (a & c) ^ (b & c);
}

@group(0) @binding(0) var<storage, read_write> messages: array<u32>;
@group(0) @binding(1) var<storage, read> num_messages: u32;
@group(0) @binding(2) var<storage, read> message_sizes: array<u32>;  // [words, padded words]
@group(0) @binding(3) var<storage, read_write> hash: array<u32>;

@compute @workgroup_size(256)
fn sha256(@builtin(global_invocation_id) global_id: vec3<u32>) {
    let msg = global_id.x;
    if (msg >= num_messages) {
        return;
    }
    let words = message_sizes[0];
    let padded = message_sizes[1];
    let base = msg * padded;
    let out = msg * 8u;

    messages[base + words] = 0x00000080u;
    for (var i = words + 1u; i < padded - 1u; i++) {
        messages[base + i] = 0u;
    }
    messages[base + padded - 1u] = bswap(words * 32u);

    // the initial state and the round constants, as FIPS 180-4 gives them
    let iv = array<u32, 8>(
        0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
        0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u);
    let k = array<u32, 64>(
        0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
        0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
        0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
        0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
        0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
        0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
        0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
        0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u);

    for (var q = 0u; q < 8u; q++) {
        hash[out + q] = iv[q];
    }

    let blocks = (padded * 32u) / 512u;
    for (var blk = 0u; blk < blocks; blk++) {
        // the message schedule: 16 words of the block, 48 derived
        var w = array<u32, 64>();
        let first = base + blk * 16u;
        for (var t = 0u; t < 16u; t++) {
            w[t] = bswap(messages[first + t]);
        }
        for (var t = 16u; t < 64u; t++) {
            w[t] = w[t - 16u] + small_sigma0(w[t - 15u]) + w[t - 7u] + small_sigma1(w[t - 2u]);
        }

        var a = hash[out];
        var b = hash[out + 1u];
        var c = hash[out + 2u];
        var d = hash[out + 3u];
        var e = hash[out + 4u];
        var f = hash[out + 5u];
        var g = hash[out + 6u];
        var h = hash[out + 7u];
        for (var t = 0u; t < 64u; t++) {
            let mixed = h + big_sigma1(e) + choose(e, f, g) + k[t] + w[t];
            let mixed_a = big_sigma0(a) + majority(a, b, c);
            h = g;
            g = f;
            f = e;
            e = d + mixed;
            d = c;
            c = b;
            b = a;
            a = mixed + mixed_a;
        }
        let state = array<u32, 8>(a, b, c, d, e, f, g, h);
        for (var q = 0u; q < 8u; q++) {
            hash[out + q] += state[q];
        }
    }

    // the digest's words as bytes in order
    for (var q = 0u; q < 8u; q++) {
        hash[out + q] = bswap(hash[out + q]);
    }
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
            "return rotr(v, 7u) ^ rotr(v, 18u) ^ (v >> 3u);",
            "return rotr(v, 7u) ^ rotr(v, 17u) ^ (v >> 3u);",
        ),
        "the length in bytes": (
            "wgsl",
            "bswap(words * 32u);",
            "bswap(words * 4u);",
        ),
        "the zeros overwrite the 0x80": (
            "wgsl",
            "for (var i = words + 1u; i < padded - 1u; i++) {",
            "for (var i = words; i < padded - 1u; i++) {",
        ),
        "ch picks f where e is clear": (
            "wgsl",
            "return (e & f) ^ (~e & g);",
            "return (e & f) ^ (~e & f);",
        ),
        "the last chunk left out": (
            "wgsl",
            "let blocks = (padded * 32u) / 512u;",
            "let blocks = (padded * 32u - 1u) / 512u;",
        ),
    },
)


# -- 2. webgpu_dpmm: Box-Muller normals from pairs of u32 words --------------------------------
# After limarta/webgpu_dpmm at 1211ecee, src/shaders/rng/boxmuller.wgsl (read, not
# copied): rng holds threefry's output words, one vec2u for each two samples; even
# samples take the cosine, odd ones the sine, of the same pair.

_BOXMULLER = """
// kernel-forge corpus: normal samples by the Box-Muller transform, after webgpu_dpmm's
// rng/boxmuller.wgsl (read, not copied). Samples 2p and 2p + 1 share the random words
// rng[p]: the first word gives the radius, the second the angle; the even sample takes
// the cosine, the odd one the sine.
@group(0) @binding(0) var<uniform> N: u32;
@group(0) @binding(1) var<storage> rng: array<vec2u>;
@group(0) @binding(2) var<storage, read_write> samples: array<f32>;

override nTPB: u32 = 16;
const WORD_MAX: u32 = 0xFFFFFFFF;
const PI = 3.1415926535897932384626433832795;

@compute @workgroup_size(nTPB, 1, 1)
fn boxmuller(@builtin(global_invocation_id) gid: vec3<u32>) {
    let s = gid.x;
    if (s < N) {
        let words = rng[s >> 1u];
        let u = f32(words.x) / f32(WORD_MAX);
        let angle = f32(words.y) / f32(WORD_MAX) * 2.0 * PI;
        let radius = sqrt(-2.0 * log(u));
        if ((s & 1u) == 0u) {
            samples[s] = radius * cos(angle);
        } else {
            samples[s] = radius * sin(angle);
        }
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
        "cosine and sine swapped": ("wgsl", "if ((s & 1u) == 0u) {", "if ((s & 1u) == 1u) {"),
        "log base 2": (
            "wgsl",
            "sqrt(-2.0 * log(u));",
            "sqrt(-2.0 * log2(u));",
        ),
        "theta over half a turn": (
            "wgsl",
            "f32(words.y) / f32(WORD_MAX) * 2.0 * PI;",
            "f32(words.y) / f32(WORD_MAX) * PI;",
        ),
    },
)


# -- 3. signalforge: the FM discriminator and the FIR filter -----------------------------------
# After WispAyr/signalforge at 1fb57cf0, packages/client/src/gpu/demod.wgsl and
# filter.wgsl (read, not copied); demod.ts and filter.ts dispatch ceil(n / 256) workgroups.

_FM_DEMOD = """
// kernel-forge corpus: an FM discriminator, after signalforge's demod.wgsl (read, not
// copied): each output is the phase step from the previous IQ sample to this one, the
// angle of s[n] conj(s[n-1]); the first output, with no previous sample, is 0.

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
    if (n >= params.num_samples) {
        return;
    }
    if (n == 0u) {
        output[0] = 0.0;
        return;
    }
    let cur = vec2f(i_data[n], q_data[n]);
    let prev = vec2f(i_data[n - 1u], q_data[n - 1u]);
    let re = cur.x * prev.x + cur.y * prev.y;
    let im = cur.y * prev.x - cur.x * prev.y;
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
            "let im = cur.y * prev.x - cur.x * prev.y;",
            "let im = cur.x * prev.y - cur.y * prev.x;",
        ),
        "atan of the ratio": ("wgsl", "output[n] = atan2(im, re);", "output[n] = atan(im / re);"),
        "sample 0 not zeroed": ("wgsl", "output[0] = 0.0;\n        return;", "return;"),
    },
    platform={("browser", "swiftshader", "output"): SWIFTSHADER_ATAN2_OF_MINUS_ZERO},
)

_FIR = """
// kernel-forge corpus: a causal FIR filter, after signalforge's filter.wgsl (read, not
// copied): output i is the sum over taps t of input[i - t] * taps[t], the taps that
// would reach before the first sample left out.

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
    if (i >= params.input_len) {
        return;
    }
    var acc: f32 = 0.0;
    for (var t = 0u; t < params.num_taps; t++) {
        if (t <= i) {
            acc += input_data[i - t] * taps[t];
        }
    }
    output_data[i] = acc;
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
        "the first taps' warm-up dropped": ("wgsl", "if (t <= i) {", "if (t < i) {"),
        "one tap short": (
            "wgsl",
            "t < params.num_taps; t++",
            "t + 1u < params.num_taps; t++",
        ),
        "correlation for convolution": (
            "wgsl",
            "acc += input_data[i - t] * taps[t];",
            "acc += input_data[i - t] * taps[params.num_taps - 1u - t];",
        ),
    },
)


# -- 4. webgpu-lbm: D2Q9 collision and streaming, 12 floats a cell -----------------------------
# After Anatta336/webgpu-lbm at 8ddb9279, src/fluid/shaders/simulate.wgsl and
# lbm_common.wgsl (its ``#include``, here the first part of the module): read, not copied. simulatePipeline.ts binds (params, A, B) for the
# collision and (params, B, A) for the streaming and dispatches ceil(W / 16) x
# ceil(H / 16); simParams.ts sets omega = 1 / (3 viscosity + 0.5) for viscosity 0.1.

_LBM_COMMON = """
// kernel-forge corpus: a D2Q9 lattice Boltzmann fluid, after webgpu-lbm's
// lbm_common.wgsl and simulate.wgsl (read, not copied). A cell is 12 floats: the nine
// distributions f0..f8, then rho, vx, vy. The border cells are walls.

struct SimParams {
    width: u32,
    height: u32,
    time: f32,
    omega: f32,
    viscosity: f32,
    reserved: f32,
}

// rest, the axes (E, N, W, S), the diagonals (NE, NW, SW, SE)
const lattice = array<vec2<f32>, 9>(
    vec2<f32>(0.0, 0.0),
    vec2<f32>(1.0, 0.0), vec2<f32>(0.0, 1.0), vec2<f32>(-1.0, 0.0), vec2<f32>(0.0, -1.0),
    vec2<f32>(1.0, 1.0), vec2<f32>(-1.0, 1.0), vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0));

const weight = array<f32, 9>(
    4.0 / 9.0,
    1.0 / 9.0, 1.0 / 9.0, 1.0 / 9.0, 1.0 / 9.0,
    1.0 / 36.0, 1.0 / 36.0, 1.0 / 36.0, 1.0 / 36.0);

// the direction pointing back along each one
const bounce = array<u32, 9>(0u, 3u, 4u, 1u, 2u, 7u, 8u, 5u, 6u);

fn cell_base(x: u32, y: u32) -> u32 {
    return 12u * (x + y * params.width);
}

// the second-order equilibrium of direction i for density rho and velocity u
fn equilibrium(rho: f32, u: vec2<f32>, i: u32) -> f32 {
    let eu = dot(u, lattice[i]);
    let uu = dot(u, u);
    return rho * weight[i] * (1.0 + 3.0 * eu + 4.5 * eu * eu - 1.5 * uu);
}
"""

_LBM_SIMULATE = """

@group(0) @binding(0) var<uniform> params: SimParams;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;

fn is_wall(x: u32, y: u32) -> bool {
    return x == 0u || y == 0u || x + 1u == params.width || y + 1u == params.height;
}

// BGK collision: each distribution relaxes toward its equilibrium by omega; the cell's
// rho and velocity are stored after them. Walls pass through unchanged.
@compute @workgroup_size(16, 16)
fn collision(@builtin(global_invocation_id) global_id: vec3<u32>) {
    let x = global_id.x;
    let y = global_id.y;
    if (x >= params.width || y >= params.height) {
        return;
    }
    let here = cell_base(x, y);

    if (is_wall(x, y)) {
        for (var k = 0u; k < 12u; k++) {
            dst[here + k] = src[here + k];
        }
        return;
    }

    var f: array<f32, 9>;
    var rho = 0.0;
    var momentum = vec2<f32>(0.0);
    for (var i = 0u; i < 9u; i++) {
        f[i] = src[here + i];
        rho += f[i];
        momentum += f[i] * lattice[i];
    }
    // a near-empty cell is taken as at rest
    let u = select(momentum / rho, vec2<f32>(0.0), rho < 0.0001);
    dst[here + 9u] = rho;
    dst[here + 10u] = u.x;
    dst[here + 11u] = u.y;

    for (var i = 0u; i < 9u; i++) {
        let feq = equilibrium(rho, u, i);
        dst[here + i] = f[i] + params.omega * (feq - f[i]);
    }
}

// Streaming by pull: a fluid cell takes f_i from the neighbour at x - e[bounce[i]]
// (which is x + e_i), or from its own opposite direction where that neighbour is a
// wall; a wall cell turns each of its moving distributions around. rho and velocity
// carry over.
@compute @workgroup_size(16, 16)
fn streaming(@builtin(global_invocation_id) global_id: vec3<u32>) {
    let x = global_id.x;
    let y = global_id.y;
    if (x >= params.width || y >= params.height) {
        return;
    }
    let here = cell_base(x, y);

    if (is_wall(x, y)) {
        for (var i = 1u; i < 9u; i++) {
            dst[here + bounce[i]] = src[here + i];
        }
        return;
    }

    for (var i = 0u; i < 9u; i++) {
        let back = bounce[i];
        let step = vec2<i32>(lattice[back]);
        let sx = u32(i32(x) - step.x);
        let sy = u32(i32(y) - step.y);
        if (sx >= params.width || sy >= params.height) {
            continue;
        }
        if (is_wall(sx, sy)) {
            dst[here + i] = src[here + back];
        } else {
            dst[here + i] = src[cell_base(sx, sy) + i];
        }
    }
    for (var k = 9u; k < 12u; k++) {
        dst[here + k] = src[here + k];
    }
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
            "4.5 * eu * eu -",
            "4.5 * eu -",
        ),
        "relaxes toward f": (
            "wgsl",
            "f[i] + params.omega * (feq - f[i]);",
            "f[i] + params.omega * (f[i] - feq);",
        ),
        "no top wall": (
            "wgsl",
            "y + 1u == params.height;",
            "y == params.height;",
        ),
        "a diagonal weight of 1/9": (
            "wgsl",
            "1.0 / 36.0, 1.0 / 36.0, 1.0 / 36.0, 1.0 / 36.0);",
            "1.0 / 36.0, 1.0 / 36.0, 1.0 / 9.0, 1.0 / 36.0);",
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
            "dst[here + i] = src[here + back];",
            "dst[here + i] = src[here + i];",
        ),
        "north-east and north-west opposite swapped": (
            "wgsl",
            "2u, 7u, 8u, 5u",
            "2u, 8u, 7u, 5u",
        ),
        "source row from x": (
            "wgsl",
            "let sy = u32(i32(y) - step.y);",
            "let sy = u32(i32(y) - step.x);",
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

"""Round 82 of the wild kernels: counter-based random numbers and Monte Carlo as public
GPU code writes them (the corpus had flash-attention's Philox4x32-7, a PCG hash and
webgpu_dpmm's Box-Muller on given words; not a Threefry, a Philox4x32-10 with its float
conversions, a Tausworthe hybrid or a Monte Carlo count reduced in shared memory).
Each is written for this corpus after the public source named below: read, not copied
(the project's rule for public code). What is theirs is kept: the entry points and
parameters (names, types, order), the bindings and uniform structs, the workgroup and
block sizes, the shared memory and barriers where they stand, the idioms (a key
schedule by ``switch``, a user function named ``mix`` over WGSL's builtin, a 32 x 32
high product from 16-bit halves, ``__umulhi``, a 64-bit ``long`` LCG, a warp-synchronous
``volatile`` tail) and the numerics (every constant, rotation, round count and float
conversion, which end of (0, 1) is open). What is ours: the comments, the helpers' and
locals' names, the formatting, the harness around a device library (said where it is)
and the WebGPU ports.

- limarta/webgpu_dpmm (no licence file in the copy read) at
  aa3d0f818d56be783c0cf3afc0af1ff2dc2831e7, ``src/shaders/rng/threefry.wgsl``:
  ``threefry``, Threefry-4x32 with 12 rounds, one invocation a counter ``(0, 0, 0, id +
  1)``, the key a bare ``var<storage> key: vec4<u32>``, the count a bare ``var<uniform>
  N: u32``, ``override nTPB = 32``; the key injected before every fourth round from a
  schedule of the four words and ``C20 ^ k0 ^ k1 ^ k2 ^ k3`` (``C20 = 0xA9FC1A22``: the
  low half of Skein's 64-bit parity constant, where Random123's Threefry-4x32 takes
  ``0x1BD11BDA``, the high half), the last word plus the injection's number; each
  round's two adds, rotations by Random123's 4x32 table (by ``switch``) and xors, then
  the words permuted ``.xwzy``; no injection after the last round. Judged bit for bit.
- ml-rust/numr (Apache-2.0) at 76f2fd2ad1a4168bccabc7ef699e399b6ff48646,
  ``src/runtime/wgpu/shaders/advanced_random/philox.rs``, ``PHILOX_RANDN_WGSL``:
  ``philox_randn_f32``, "Philox4x32-10" on WebGPU, 256 invocations, two normals an
  invocation from a draw at counter ``(counter_lo + gid.x, counter_hi, 0, 0)`` with key
  ``(key_lo, key_hi)``: Box-Muller with ``u1`` floored at ``1e-10``, ``PI =
  3.14159265359``, each word over ``4294967296.0`` (so [0, 1], both ends closed where
  ``f32`` rounds up), the cosine first. Its ``mulhi`` forms the high word from 16-bit
  halves and drops the carries (the cross sum's 2**32 and the low product's carry into
  the middle), so its draws are not Philox4x32-10's; the reference computes what the
  kernel says (tests/test_wild_round82.py shows it apart from the Random123 answers).
- NVIDIA/Fuser (BSD-3-Clause) at 967065c0a516599e841351ece073d6f337464d59,
  ``runtime/random_numbers.cu``: nvFuser's Philox4x32-10 (``mulhilo32`` by ``__umulhi``,
  ``single_round``, ``philox(seed, subsequence, offset)`` with the offset in the
  counter's low words), ``raw_uniform_float`` in (0, 1] (``x * 2**-32 + 2**-33``) folded
  to [0, 1) by ``uniformf`` (``result == 1.0f ? 0.0f : result``), ``normalf``'s
  Box-Muller on a pair of words (``6.2831855f``, ``sinf`` for even components and
  ``cosf`` for odd ones), ``rng_uniformf`` and ``rng_normal_standardf``. Its ``Array``
  is a minimal one of ours, and the harness is ours, after the way nvFuser's generated
  kernels index a draw: element ``i`` takes component ``i % 4`` of the draw at
  subsequence ``i / 4`` and offset ``philox_offset / 4``. The seed is chosen so that a
  word of the first draws is within 128 of 2**32, where ``raw_uniform_float`` is 1.0
  and the fold gives 0.0 (an angle's word, so that the normals stay finite). The WebGPU
  port beside it forms ``__umulhi`` from 16-bit halves with the carries.
- babrodtk/ParallelPi (GPL-3.0) at 9950b8de0499f972862e0209529321a020dbd741,
  ``src/ComputingPiCuda.cu``: ``computePiKernel5(unsigned int* output, unsigned int
  seed, unsigned int iters_per_thread)``, 512 threads a block, ``extern __shared__ int
  inside[]`` of 512, each thread's points drawn from a ``long`` LCG (Stroustrup's
  ``1103515245``, ``12345``, the low 31 bits over ``2147483648.0``) started at ``seed +
  tid * spacing``, ``spacing`` the largest ``unsigned long`` over the threads (64 bits
  with NVRTC on Linux; the sample's Visual Studio project had a 32-bit ``long``), the
  count of ``sqrt(x*x + y*y) <= 1.0f``, then a tree in shared memory with barriers down
  to 64 and a warp-synchronous ``volatile`` tail without them, one count a block. The
  WebGPU port (256 invocations, WebGPU's default limit; the 64-bit LCG in two words,
  the spacing by long division; barriers at every step, WGSL having no warps) is
  judged against the same count for 256 threads a block.

Mutants: see each entry. The CUDA kernels' bugs are written into their WebGPU ports too
(tests/test_wild_round82.py pairs them), which run here.

What they showed (lavapipe and SwiftShader; not run on a GPU; pinned in
tests/test_wild_round82.py): no false alarm and no missed mutant of the round; nothing
in ``oracle/`` changed. Every original passes on the reference and both CPU adapters,
every WGSL mutant fails on both, every CUDA original and mutant compiles with NVRTC
for sm_90 with the arguments its PTX declares. Of the kernels themselves: numr's
"Philox4x32-10" is not Philox4x32-10 (its ``mulhi`` loses both carries); webgpu_dpmm's
Threefry has Random123's rounds but not its key schedule; nvFuser's [0, 1) fold lets
``normalf`` take the log of 0, one word in 2**25, an infinite normal (judged on
lavapipe, masked as indeterminate on SwiftShader: INCONCLUSIVE, not a pass).

A gap found beside the round, left open (a strict xfail there): f32's default absolute
tolerance (1e-6) accepts nvFuser's uniform without its half step (``x * 2**-32``, as an
earlier copy of the runtime had it) where a word is small: 8192 ulp off at a uniform of
2e-7, where the right port is bit-exact. An automatic sweep of the ports' operators and
constants on lavapipe left only equivalent mutants besides (ParallelPi's points take
the LCG state's low 31 bits, which its low word alone decides, so the port's high-word
arithmetic never reaches the counts; reduction steps past the last one read) and this
one; it also showed the nvFuser entry's first offset (8) left the offset's high word
unjudged, so the offset is ``5 * 2**32 + 8``.
"""

# ruff: noqa: E501  (the CUDA and WGSL keep their sources' long lines)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, KernelSpec, Schedule, ceil_div

from . import Wild

_M32 = np.uint64(0xFFFFFFFF)
_U32 = np.uint64(32)


def _rotl32(x: np.ndarray, r: int) -> np.ndarray:
    return ((x << np.uint64(r)) | (x >> np.uint64(32 - r))) & _M32


# -- 1. webgpu_dpmm: Threefry-4x32, 12 rounds ----------------------------------------------------

_THREEFRY = """
// kernel-forge corpus: webgpu_dpmm's Threefry (read, not copied). Threefry-4x32 after
// Salmon et al. (SC'11): invocation id encrypts the counter (0, 0, 0, id + 1) under key
// in 12 rounds, the key injected before every fourth.
@group(0) @binding(0) var<storage> key: vec4<u32>;
@group(0) @binding(1) var<uniform> N: u32;
@group(0) @binding(2) var<storage, read_write> rng: array<vec4u>;

override nTPB: u32 = 32;
const N_WORDS: u32 = 4;
const PARITY: u32 = 0xA9FC1A22;
const ROUNDS: u32 = 12;

@compute @workgroup_size(nTPB, 1, 1)
fn threefry(@builtin(global_invocation_id) gid: vec3<u32>) {
    let id = gid.x;
    if (id < N) {
        let extra = PARITY ^ key[0] ^ key[1] ^ key[2] ^ key[3];
        var block: vec4<u32> = vec4(0, 0, 0, id + 1);
        for (var d: u32 = 0; d < ROUNDS; d++) {
            var mixed: vec4u = block;
            if (d % 4 == 0) {
                mixed = injection(key, extra, d >> 2) + block;
            }
            block = mix(mixed, d).xwzy;
        }
        rng[id] = block;
    }
}

// the s-th injection: words s .. s + 3 of (k0, k1, k2, k3, extra), cyclically, with s
// added to the last
fn injection(k: vec4<u32>, extra: u32, s: u32) -> vec4u {
    return vec4(schedule_word(k, extra, s), schedule_word(k, extra, s + 1),
                schedule_word(k, extra, s + 2), schedule_word(k, extra, s + 3) + s);
}

fn schedule_word(k: vec4<u32>, extra: u32, at: u32) -> u32 {
    let slot: u32 = at % (N_WORDS + 1);
    switch slot {
        case 0, 1, 2, 3: {
            return k[slot];
        }
        case 4: {
            return extra;
        }
        default: {
            return 0;
        }
    }
}

// one round (this module's mix, not WGSL's builtin): both pairs added, the second word
// of each rotated and xored with the sum
fn mix(x: vec4<u32>, d: u32) -> vec4<u32> {
    let a = x[0] + x[1];
    let c = x[2] + x[3];
    let b = rotl(x[1], rotation(d, 0)) ^ a;
    let e = rotl(x[3], rotation(d, 1)) ^ c;
    return vec4(a, b, c, e);
}

fn rotl(x: u32, r: u32) -> u32 {
    return (x << r) | (x >> (32 - r));
}

// Random123's rotation table for Threefry-4x32, round d mod 8, pair j
fn rotation(d: u32, j: u32) -> u32 {
    switch 2 * (d & 7) + j {
        case 0: { return 10; }
        case 1: { return 26; }
        case 2: { return 11; }
        case 3: { return 21; }
        case 4: { return 13; }
        case 5: { return 27; }
        case 6: { return 23; }
        case 7: { return 5; }
        case 8: { return 6; }
        case 9: { return 20; }
        case 10: { return 17; }
        case 11: { return 11; }
        case 12: { return 25; }
        case 13: { return 10; }
        case 14: { return 18; }
        case 15: { return 20; }
        default: { return 0; }
    }
}
"""

#: Random123's Threefry-4x32 rotations, (round mod 8) x pair
THREEFRY_ROTATIONS = (
    (10, 26),
    (11, 21),
    (13, 27),
    (23, 5),
    (6, 20),
    (17, 11),
    (25, 10),
    (18, 20),
)


def threefry4x32(
    key,
    counters: np.ndarray,
    rounds: int = 12,
    parity: int = 0xA9FC1A22,
    final_injection: bool = False,
) -> np.ndarray:
    """Threefry-4x32 of each row of ``counters`` (n x 4 words) under the four-word
    ``key``: before each round d with d % 4 == 0 the key injection d / 4 (key words and
    the parity word, cyclically, the injection's number added to the last), then the
    two add-rotate-xor pairs and the words permuted (0, 3, 2, 1); with
    ``final_injection``, Random123's one after the last round too."""
    ks = [np.uint64(int(k)) for k in key]
    ks.append(np.uint64(int(parity)) ^ ks[0] ^ ks[1] ^ ks[2] ^ ks[3])
    x = [np.asarray(counters[:, j], np.uint64) for j in range(4)]

    def inject(s: int):
        for j in range(4):
            x[j] = (x[j] + ks[(s + j) % 5]) & _M32
        x[3] = (x[3] + np.uint64(s)) & _M32

    for d in range(rounds):
        if d % 4 == 0:
            inject(d // 4)
        r0, r1 = THREEFRY_ROTATIONS[d % 8]
        a = (x[0] + x[1]) & _M32
        c = (x[2] + x[3]) & _M32
        b = _rotl32(x[1], r0) ^ a
        e = _rotl32(x[3], r1) ^ c
        x = [a, e, c, b]
    if final_injection and rounds % 4 == 0:
        inject(rounds // 4)
    return np.stack(x, axis=-1).astype(np.uint32)


def _threefry_reference(key, N, rng):
    n = int(N["N"])
    counters = np.zeros((n, 4), np.uint64)
    counters[:, 3] = np.arange(1, n + 1, dtype=np.uint64)
    rng[:n] = threefry4x32(np.asarray(key).reshape(-1)[:4], counters)


def _threefry_key(rng, count, size):
    return rng.integers(0, 2**32, 4, dtype=np.uint64).astype(np.uint32)


THREEFRY = Wild(
    KernelSpec(
        id="wild_r82_webgpu_dpmm_threefry4x32_12",
        entry_point="threefry",
        sources={"wgsl": _THREEFRY},
        buffers=(
            BufferSpec(0, "vec4<u32>", "read", name="key", count=1, fill=_threefry_key),
            BufferSpec.uniform(1, (("N", "u32"),), name="N"),
            BufferSpec(2, "vec4<u32>", "read_write", name="rng", initial=0),
        ),
        reference=_threefry_reference,
        params=lambda n: {"N": int(n)},
        overrides={"nTPB": 32},
        grid=lambda s, n: (ceil_div(int(n), 32), 1, 1),
        schedules=(Schedule(32),),
        test_sizes=(1000, 1, 33),
    ),
    {
        "the words not permuted after a round": (
            "wgsl",
            "block = mix(mixed, d).xwzy;",
            "block = mix(mixed, d).xyzw;",
        ),
        "a rotation one short": ("wgsl", "case 1: { return 26; }", "case 1: { return 25; }"),
        "every invocation the same counter": (
            "wgsl",
            "vec4(0, 0, 0, id + 1);",
            "vec4(0, 0, 0, 1);",
        ),
        "the injection's number not added": (
            "wgsl",
            "schedule_word(k, extra, s + 3) + s);",
            "schedule_word(k, extra, s + 3));",
        ),
        "Random123's parity word": (
            "wgsl",
            "const PARITY: u32 = 0xA9FC1A22;",
            "const PARITY: u32 = 0x1BD11BDA;",
        ),
    },
)


# -- 2. numr: "Philox4x32-10" with a carry-dropping mulhi, Box-Muller normals --------------------

_NUMR_RANDN = """
// kernel-forge corpus: numr's philox_randn_f32 (read, not copied). Two standard normals an
// invocation, by Box-Muller from the first two words of a Philox-style draw.
const PHILOX_M2X32_0: u32 = 0xD2511F53u;
const PHILOX_M2X32_1: u32 = 0xCD9E8D57u;
const PHILOX_W32_0: u32 = 0x9E3779B9u;
const PHILOX_W32_1: u32 = 0xBB67AE85u;
const PI: f32 = 3.14159265359;

struct PhiloxParams {
    numel: u32,
    key_lo: u32,
    key_hi: u32,
    counter_lo: u32,
    counter_hi: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read_write> output: array<f32>;
@group(0) @binding(1) var<uniform> params: PhiloxParams;

// the high word of a * b from 16-bit halves, as numr forms it: the cross terms' sum wraps
// and no carry comes up from the low product
fn mulhi(a: u32, b: u32) -> u32 {
    let a0 = a & 0xFFFFu;
    let a1 = a >> 16u;
    let b0 = b & 0xFFFFu;
    let b1 = b >> 16u;
    let middle = a0 * b1 + a1 * b0;
    return a1 * b1 + (middle >> 16u);
}

fn philox_round(ctr: ptr<function, vec4<u32>>, key: ptr<function, vec2<u32>>) {
    let lo0 = (*ctr).x * PHILOX_M2X32_0;
    let hi0 = mulhi((*ctr).x, PHILOX_M2X32_0);
    let lo1 = (*ctr).z * PHILOX_M2X32_1;
    let hi1 = mulhi((*ctr).z, PHILOX_M2X32_1);
    *ctr = vec4<u32>(hi1 ^ (*ctr).y ^ (*key).x, lo1, hi0 ^ (*ctr).w ^ (*key).y, lo0);
}

fn philox4x32_10(counter: vec4<u32>, key: vec2<u32>) -> vec4<u32> {
    var state = counter;
    var k = key;
    for (var r = 0u; r < 10u; r++) {
        philox_round(&state, &k);
        k.x = k.x + PHILOX_W32_0;
        k.y = k.y + PHILOX_W32_1;
    }
    return state;
}

// (r cos t, r sin t) with u1 kept off zero
fn box_muller(u1: f32, u2: f32) -> vec2<f32> {
    let radius = sqrt(-2.0 * log(max(u1, 1e-10)));
    let angle = 2.0 * PI * u2;
    return vec2<f32>(radius * cos(angle), radius * sin(angle));
}

@compute @workgroup_size(256)
fn philox_randn_f32(@builtin(global_invocation_id) gid: vec3<u32>) {
    let first = gid.x * 2u;
    if (first >= params.numel) { return; }
    let counter = vec4<u32>(params.counter_lo + gid.x, params.counter_hi, 0u, 0u);
    let words = philox4x32_10(counter, vec2<u32>(params.key_lo, params.key_hi));
    let u1 = f32(words[0]) / 4294967296.0;
    let u2 = f32(words[1]) / 4294967296.0;
    let pair = box_muller(u1, u2);
    if (first < params.numel) { output[first] = pair.x; }
    if (first + 1u < params.numel) { output[first + 1u] = pair.y; }
}
"""


def numr_mulhi(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """numr's ``mulhi``: ``a1 b1 + ((a0 b1 + a1 b0) mod 2**32 >> 16)`` mod 2**32, the
    16-bit halves' cross sum wrapped and the low product's carry left out."""
    a = np.asarray(a, np.uint64)
    b = np.asarray(b, np.uint64)
    a0, a1 = a & np.uint64(0xFFFF), a >> np.uint64(16)
    b0, b1 = b & np.uint64(0xFFFF), b >> np.uint64(16)
    middle = (a0 * b1 + a1 * b0) & _M32
    return (a1 * b1 + (middle >> np.uint64(16))) & _M32


def exact_mulhi(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The high word of the 64-bit product (``__umulhi``)."""
    return (np.asarray(a, np.uint64) * np.asarray(b, np.uint64)) >> _U32


def philox4x32_10(counters: np.ndarray, key, mulhi=exact_mulhi) -> np.ndarray:
    """Philox4x32-10 of each row of ``counters`` (n x 4 words) under the two-word
    ``key``, the high products by ``mulhi``: ten rounds, the key bumped by the golden
    ratio and sqrt(3) - 1 after each (the last bump unused)."""
    c = [np.asarray(counters[:, j], np.uint64) for j in range(4)]
    k0, k1 = np.uint64(int(key[0])), np.uint64(int(key[1]))
    ma, mb = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
    for _ in range(10):
        hi0, lo0 = mulhi(c[0], ma), (c[0] * ma) & _M32
        hi1, lo1 = mulhi(c[2], mb), (c[2] * mb) & _M32
        c = [hi1 ^ c[1] ^ k0, lo1, hi0 ^ c[3] ^ k1, lo0]
        k0 = (k0 + np.uint64(0x9E3779B9)) & _M32
        k1 = (k1 + np.uint64(0xBB67AE85)) & _M32
    return np.stack(c, axis=-1).astype(np.uint32)


def _numr_randn_reference(output, params):
    n = int(params["numel"])
    pairs = ceil_div(n, 2)
    counters = np.zeros((pairs, 4), np.uint64)
    counters[:, 0] = (
        np.uint64(int(params["counter_lo"])) + np.arange(pairs, dtype=np.uint64)
    ) & _M32
    counters[:, 1] = int(params["counter_hi"])
    words = philox4x32_10(counters, (params["key_lo"], params["key_hi"]), mulhi=numr_mulhi)
    # each word to f32 (rounded to nearest) over 2**32, exact: [0, 1], both ends closed
    u1 = words[:, 0].astype(np.float32) / np.float32(4294967296.0)
    u2 = words[:, 1].astype(np.float32) / np.float32(4294967296.0)
    radius = np.sqrt(-2.0 * np.log(np.maximum(u1, np.float32(1e-10)).astype(np.float64)))
    angle = 2.0 * float(np.float32(3.14159265359)) * u2.astype(np.float64)
    out = np.empty(2 * pairs)
    out[0::2] = radius * np.cos(angle)
    out[1::2] = radius * np.sin(angle)
    output[:n] = out[:n]


NUMR_RANDN = Wild(
    KernelSpec(
        id="wild_r82_numr_philox_randn_f32",
        entry_point="philox_randn_f32",
        sources={"wgsl": _NUMR_RANDN},
        buffers=(
            BufferSpec(0, "f32", "read_write", name="output"),
            BufferSpec.uniform(
                1,
                (
                    ("numel", "u32"),
                    ("key_lo", "u32"),
                    ("key_hi", "u32"),
                    ("counter_lo", "u32"),
                    ("counter_hi", "u32"),
                    ("_pad0", "u32"),
                    ("_pad1", "u32"),
                    ("_pad2", "u32"),
                ),
                name="params",
            ),
        ),
        reference=_numr_randn_reference,
        params=lambda n: {"numel": int(n)},
        # both key words and both counter words in use; the counter's low word wraps
        # within the first size's draws
        defaults={
            "key_lo": 0x2545F491,
            "key_hi": 0x9E3779B9,
            "counter_lo": 0xFFFFFF00,
            "counter_hi": 7,
        },
        # numr's launch: workgroup_count((numel + 1) / 2) of 256
        grid=lambda s, n: (ceil_div(ceil_div(int(n), 2), 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=(1000, 1, 7),
    ),
    {
        "sine first, cosine second": (
            "wgsl",
            "return vec2<f32>(radius * cos(angle), radius * sin(angle));",
            "return vec2<f32>(radius * sin(angle), radius * cos(angle));",
        ),
        "the second key word bumped by the first's constant": (
            "wgsl",
            "k.y = k.y + PHILOX_W32_1;",
            "k.y = k.y + PHILOX_W32_0;",
        ),
        "the counter not advanced per invocation": (
            "wgsl",
            "vec4<u32>(params.counter_lo + gid.x, params.counter_hi, 0u, 0u);",
            "vec4<u32>(params.counter_lo, params.counter_hi, 0u, 0u);",
        ),
        "nine rounds": ("wgsl", "for (var r = 0u; r < 10u; r++)", "for (var r = 0u; r < 9u; r++)"),
        "the high and low products swapped": (
            "wgsl",
            "*ctr = vec4<u32>(hi1 ^ (*ctr).y ^ (*key).x, lo1, hi0 ^ (*ctr).w ^ (*key).y, lo0);",
            "*ctr = vec4<u32>(lo1 ^ (*ctr).y ^ (*key).x, hi1, lo0 ^ (*ctr).w ^ (*key).y, hi0);",
        ),
    },
)


# -- 3. nvFuser: Philox4x32-10, uniforms in [0, 1) and Box-Muller normals ------------------------

_NVFUSER_CUDA = r"""// kernel-forge corpus: nvFuser's runtime random numbers (read, not copied), in a harness of ours.
#include <cstdint>

// nvFuser's register array (runtime/array.cu), as much of it as the draws use: ours
template <typename T, int N>
struct Array {
    T array[N];
    __device__ T &operator[](const unsigned int i) { return array[i]; }
    __device__ const T &operator[](const unsigned int i) const { return array[i]; }
};

// a * b: the low word returned, the high one stored
__device__ unsigned int mulhilo32(unsigned int a, unsigned int b, unsigned int *result_high) {
    *result_high = __umulhi(a, b);
    return a * b;
}

__device__ Array<uint32_t, 4> single_round(Array<uint32_t, 4> ctr, Array<uint32_t, 2> key) {
    constexpr unsigned long kPhiloxSA = 0xD2511F53;
    constexpr unsigned long kPhiloxSB = 0xCD9E8D57;
    unsigned int hi0;
    unsigned int hi1;
    unsigned int lo0 = mulhilo32(kPhiloxSA, ctr[0], &hi0);
    unsigned int lo1 = mulhilo32(kPhiloxSB, ctr[2], &hi1);
    Array<uint32_t, 4> next = {hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0};
    return next;
}

// Philox4x32-10: the seed is the key, (offset, subsequence) the counter, low words first;
// nine rounds with the key bumped after each, and the tenth
__device__ Array<uint32_t, 4> philox(unsigned long long seed, unsigned long long subsequence,
                                     unsigned long long offset) {
    constexpr unsigned long kPhilox10A = 0x9E3779B9;
    constexpr unsigned long kPhilox10B = 0xBB67AE85;
    Array<uint32_t, 2> key;
    key[0] = (unsigned int)seed;
    key[1] = (unsigned int)(seed >> 32);
    Array<uint32_t, 4> counter;
    counter[0] = (unsigned int)(offset);
    counter[1] = (unsigned int)(offset >> 32);
    counter[2] = (unsigned int)(subsequence);
    counter[3] = (unsigned int)(subsequence >> 32);

    Array<uint32_t, 2> round_key = key;
    Array<uint32_t, 4> state = counter;
    for (int i = 0; i < 9; i++) {
        state = single_round(state, round_key);
        round_key[0] += (kPhilox10A);
        round_key[1] += (kPhilox10B);
    }
    return single_round(state, round_key);
}

// a word as a float in (0, 1]: its value times 2^-32, plus half a step
__device__ float raw_uniform_float(unsigned int x) {
    constexpr float scale = (float)(1.0 / (double)(1ll << 32));
    return (float)x * scale + 0.5f * scale;
}

// [0, 1): the words that round to 1.0 taken to 0.0
__device__ float uniformf(unsigned int x) {
    float result = raw_uniform_float(x);
    return result == 1.0f ? 0.0f : result;
}

__device__ float rng_uniformf(const Array<uint32_t, 4> &rng_result, int rng_component) {
    return uniformf(rng_result[rng_component]);
}

// Box-Muller on the pair (x, y): the radius from x, the angle from y; even components the
// sine, odd ones the cosine
__device__ float normalf(unsigned int x, unsigned int y, int rng_component) {
    float u = uniformf(x);
    float v = uniformf(y) * 6.2831855f;

    if (rng_component % 2 == 0) {
        return sqrtf(-2.0f * logf(u)) * sinf(v);
    } else {
        return sqrtf(-2.0f * logf(u)) * cosf(v);
    }
}

__device__ float rng_normal_standardf(const Array<uint32_t, 4> &rng_result, int rng_component) {
    return normalf(rng_result[rng_component / 2 * 2], rng_result[1 + rng_component / 2 * 2], rng_component);
}

// The harness (ours), as nvFuser's generated pointwise kernels draw: element i takes
// component i % 4 of the draw at subsequence i / 4 and offset philox_offset / 4; T1 the
// uniform, T2 the normal.
extern "C" __global__ void nvfuser_rand_randn(float *T1, float *T2, int numel, unsigned long long seed,
                                              unsigned long long philox_offset) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= numel) {
        return;
    }
    const int rng_subseq = i / 4;
    const int rng_component = i % 4;
    const unsigned long long rng_offset = philox_offset / 4;
    const Array<uint32_t, 4> rng_result = philox(seed, rng_subseq, rng_offset);
    T1[i] = rng_uniformf(rng_result, rng_component);
    T2[i] = rng_normal_standardf(rng_result, rng_component);
}
"""

# The port: WGSL has no 64-bit integers, so the seed and the offset arrive as vec2<u32>
# (low word first) and __umulhi is summed from 16-bit columns, carries and all.
_NVFUSER_WGSL = """
struct Params {
    numel: i32,
    seed: vec2<u32>,
    philox_offset: vec2<u32>,
}
@group(0) @binding(0) var<storage, read_write> T1: array<f32>;
@group(0) @binding(1) var<storage, read_write> T2: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

const kPhiloxSA = 0xD2511F53u;
const kPhiloxSB = 0xCD9E8D57u;
const kPhilox10A = 0x9E3779B9u;
const kPhilox10B = 0xBB67AE85u;
const SCALE: f32 = 2.3283064365386963e-10;  // 2^-32

// (low, high) words of a * b
fn mulhilo32(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let middle = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    return vec2<u32>(a * b, a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (middle >> 16u));
}

fn single_round(ctr: vec4<u32>, key: vec2<u32>) -> vec4<u32> {
    let p0 = mulhilo32(kPhiloxSA, ctr.x);
    let p1 = mulhilo32(kPhiloxSB, ctr.z);
    return vec4<u32>(p1.y ^ ctr.y ^ key.x, p1.x, p0.y ^ ctr.w ^ key.y, p0.x);
}

fn philox(seed: vec2<u32>, subsequence: u32, offset: vec2<u32>) -> vec4<u32> {
    var key = seed;
    var state = vec4<u32>(offset.x, offset.y, subsequence, 0u);
    for (var i = 0; i < 9; i++) {
        state = single_round(state, key);
        key.x += kPhilox10A;
        key.y += kPhilox10B;
    }
    return single_round(state, key);
}

fn uniformf(x: u32) -> f32 {
    let result = f32(x) * SCALE + 0.5 * SCALE;
    return select(result, 0.0, result == 1.0);
}

fn normalf(x: u32, y: u32, rng_component: u32) -> f32 {
    let u = uniformf(x);
    let v = uniformf(y) * 6.2831855;
    if (rng_component % 2u == 0u) {
        return sqrt(-2.0 * log(u)) * sin(v);
    } else {
        return sqrt(-2.0 * log(u)) * cos(v);
    }
}

@compute @workgroup_size(128)
fn nvfuser_rand_randn(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i32(i) >= params.numel) {
        return;
    }
    let rng_subseq = i / 4u;
    let rng_component = i % 4u;
    // the 64-bit offset over 4
    let o = params.philox_offset;
    let rng_offset = vec2<u32>((o.x >> 2u) | (o.y << 30u), o.y >> 2u);
    let rng_result = philox(params.seed, rng_subseq, rng_offset);
    T1[i] = uniformf(rng_result[rng_component]);
    let pair = rng_component / 2u * 2u;
    T2[i] = normalf(rng_result[pair], rng_result[pair + 1u], rng_component);
}
"""


def nvfuser_uniformf(words: np.ndarray) -> np.ndarray:
    """nvFuser's ``uniformf``: ``(float)x * 2**-32 + 2**-33`` in float32 (in (0, 1]),
    1.0 taken to 0.0."""
    scale = np.float32(2.0**-32)
    raw = words.astype(np.float32) * scale + np.float32(0.5) * scale
    return np.where(raw == np.float32(1.0), np.float32(0.0), raw).astype(np.float32)


def _nvfuser_reference(T1, T2, numel, seed, philox_offset):
    n = int(numel)
    draws = ceil_div(n, 4)
    offset = int(philox_offset) // 4
    counters = np.zeros((draws, 4), np.uint64)
    counters[:, 0] = offset & 0xFFFFFFFF
    counters[:, 1] = offset >> 32
    counters[:, 2] = np.arange(draws, dtype=np.uint64)
    seed = int(seed)
    words = philox4x32_10(counters, (seed & 0xFFFFFFFF, seed >> 32))
    element = np.arange(n)
    component = element % 4
    mine = words[element // 4, component]
    first = words[element // 4, component // 2 * 2]
    second = words[element // 4, component // 2 * 2 + 1]
    u = nvfuser_uniformf(first).astype(np.float64)
    v = (nvfuser_uniformf(second) * np.float32(6.2831855)).astype(np.float64)
    with np.errstate(divide="ignore"):
        radius = np.sqrt(-2.0 * np.log(u))
    normal = radius * np.where(component % 2 == 0, np.sin(v), np.cos(v))
    return {"T1": nvfuser_uniformf(mine), "T2": normal}


#: Both words of the seed and of the offset in use (the offset's high word, so that the
#: port's 64-bit offset over 4 is judged), the seed chosen so that word 1 of the draw at
#: subsequence 82 (element 329, an angle's word) is within 128 of 2**32:
#: raw_uniform_float gives 1.0 there and uniformf 0.0 (tests/test_wild_round82.py)
NVFUSER_SEED = 0x5EED0000_0000245F
NVFUSER_OFFSET = 0x00000005_00000008

NVFUSER = Wild(
    KernelSpec(
        id="wild_r82_nvfuser_philox_uniform_normal",
        entry_point="nvfuser_rand_randn",
        sources={"cuda": _NVFUSER_CUDA, "wgsl": _NVFUSER_WGSL},
        buffers=(
            BufferSpec(0, "f32", "read_write", name="T1"),
            BufferSpec(1, "f32", "read_write", name="T2"),
            BufferSpec.uniform(
                2, (("numel", "i32"), ("seed", "u64"), ("philox_offset", "u64")), name="params"
            ),
        ),
        reference=_nvfuser_reference,
        params=lambda n: {"numel": int(n)},
        defaults={"seed": NVFUSER_SEED, "philox_offset": NVFUSER_OFFSET},
        grid=lambda s, n: (ceil_div(int(n), 128), 1, 1),
        schedules=(Schedule(128),),
        test_sizes=(1000, 6),
    ),
    {
        "CUDA: the fold of 1.0 dropped": (
            "cuda",
            "return result == 1.0f ? 0.0f : result;",
            "return result;",
        ),
        "the fold of 1.0 dropped": (
            "wgsl",
            "return select(result, 0.0, result == 1.0);",
            "return result;",
        ),
        "CUDA: the sine for odd components": (
            "cuda",
            "if (rng_component % 2 == 0) {",
            "if (rng_component % 2 == 1) {",
        ),
        "the sine for odd components": (
            "wgsl",
            "if (rng_component % 2u == 0u) {",
            "if (rng_component % 2u == 1u) {",
        ),
        "CUDA: the high and low products swapped": (
            "cuda",
            "Array<uint32_t, 4> next = {hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0};",
            "Array<uint32_t, 4> next = {lo1 ^ ctr[1] ^ key[0], hi1, lo0 ^ ctr[3] ^ key[1], hi0};",
        ),
        "the high and low products swapped": (
            "wgsl",
            "return vec4<u32>(p1.y ^ ctr.y ^ key.x, p1.x, p0.y ^ ctr.w ^ key.y, p0.x);",
            "return vec4<u32>(p1.x ^ ctr.y ^ key.x, p1.y, p0.x ^ ctr.w ^ key.y, p0.y);",
        ),
        "a draw an element, not a component": (
            "wgsl",
            "let rng_subseq = i / 4u;",
            "let rng_subseq = i;",
        ),
    },
)


# -- 4. ParallelPi: a Monte Carlo count of pi, an LCG a thread, a tree in shared memory ----------

_PI_CUDA = r"""// kernel-forge corpus: ParallelPi's computePiKernel5 (read, not copied).

// Stroustrup's LCG on a long: the next state, and its low 31 bits as a float in [0, 1)
__device__ float generateRandomNumber(long &last_draw) {
    last_draw = last_draw * 1103515245 + 12345;
    long low_bits = last_draw & 0x7fffffff;
    return low_bits / 2147483648.0;
}

// 512 threads a block, each drawing iters_per_thread points of the unit square from its
// own stretch of the LCG's sequence and counting those inside the quarter circle; the
// block's counts summed in shared memory, the block's total written by thread 0.
__global__ void computePiKernel5(unsigned int *output, unsigned int seed, unsigned int iters_per_thread) {
    unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
    long spacing = 18446744073709551615ul / static_cast<unsigned long>(blockDim.x * gridDim.x);
    long last_draw = seed + tid * spacing;
    int n_inside = 0;

    extern __shared__ int inside[];

    for (unsigned int i = 0; i < iters_per_thread; ++i) {
        float x = generateRandomNumber(last_draw);
        float y = generateRandomNumber(last_draw);
        float r = sqrt(x * x + y * y);
        if (r <= 1.0f) {
            ++n_inside;
        }
    }

    inside[threadIdx.x] = n_inside;

    __syncthreads();
    if (threadIdx.x < 256) { inside[threadIdx.x] = inside[threadIdx.x] + inside[threadIdx.x + 256]; }
    __syncthreads();
    if (threadIdx.x < 128) { inside[threadIdx.x] = inside[threadIdx.x] + inside[threadIdx.x + 128]; }
    __syncthreads();
    if (threadIdx.x < 64) { inside[threadIdx.x] = inside[threadIdx.x] + inside[threadIdx.x + 64]; }
    __syncthreads();

    // the last 64 by the first warp alone, no barriers: volatile so that each step reads
    // what the last one stored
    volatile int *p = &inside[0];
    if (threadIdx.x < 32) {
        p[threadIdx.x] = p[threadIdx.x] + p[threadIdx.x + 32];
        p[threadIdx.x] = p[threadIdx.x] + p[threadIdx.x + 16];
        p[threadIdx.x] = p[threadIdx.x] + p[threadIdx.x + 8];
        p[threadIdx.x] = p[threadIdx.x] + p[threadIdx.x + 4];
        p[threadIdx.x] = p[threadIdx.x] + p[threadIdx.x + 2];
        p[threadIdx.x] = p[threadIdx.x] + p[threadIdx.x + 1];
    }

    if (threadIdx.x == 0) {
        output[blockIdx.x] = inside[threadIdx.x];
    }
}
"""

# The port: 256 invocations (WebGPU's default limit); the long as (low, high) words; the
# spacing by long division of 2^64 - 1; a barrier after every step, WGSL having no warps.
_PI_WGSL = """
struct Params {
    seed: u32,
    iters_per_thread: u32,
}
@group(0) @binding(0) var<storage, read_write> output: array<u32>;
@group(0) @binding(1) var<uniform> params: Params;
var<workgroup> inside: array<i32, 256>;

fn mulhi(a: u32, b: u32) -> u32 {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let middle = ((a0 * b0) >> 16u) + ((a0 * b1) & 0xffffu) + ((a1 * b0) & 0xffffu);
    return a1 * b1 + ((a0 * b1) >> 16u) + ((a1 * b0) >> 16u) + (middle >> 16u);
}

// a * m + c mod 2^64, a as (low, high)
fn mul_add(a: vec2<u32>, m: u32, c: u32) -> vec2<u32> {
    let low = a.x * m;
    let sum = low + c;
    return vec2<u32>(sum, a.y * m + mulhi(a.x, m) + select(0u, 1u, sum < low));
}

var<private> last_draw: vec2<u32>;

fn generateRandomNumber() -> f32 {
    last_draw = mul_add(last_draw, 1103515245u, 12345u);
    let low_bits = last_draw.x & 0x7fffffffu;
    return f32(low_bits) / 2147483648.0;
}

@compute @workgroup_size(256)
fn computePiKernel5(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
                    @builtin(local_invocation_index) lid: u32) {
    let tid = wg.x * 256u + lid;
    // (2^64 - 1) / threads, the high word then the low one bit by bit
    let threads = 256u * groups.x;
    var rest = 0xffffffffu % threads;
    var spacing = vec2<u32>(0u, 0xffffffffu / threads);
    for (var bit = 0; bit < 32; bit++) {
        rest = rest * 2u + 1u;
        spacing.x = spacing.x << 1u;
        if (rest >= threads) {
            rest -= threads;
            spacing.x |= 1u;
        }
    }
    last_draw = mul_add(vec2<u32>(spacing.x, spacing.y), tid, params.seed);
    var n_inside = 0;
    for (var i = 0u; i < params.iters_per_thread; i++) {
        let x = generateRandomNumber();
        let y = generateRandomNumber();
        let r = sqrt(x * x + y * y);
        if (r <= 1.0) {
            n_inside++;
        }
    }

    inside[lid] = n_inside;
    workgroupBarrier();
    if (lid < 128u) { inside[lid] = inside[lid] + inside[lid + 128u]; }
    workgroupBarrier();
    if (lid < 64u) { inside[lid] = inside[lid] + inside[lid + 64u]; }
    workgroupBarrier();
    if (lid < 32u) { inside[lid] = inside[lid] + inside[lid + 32u]; }
    workgroupBarrier();
    if (lid < 16u) { inside[lid] = inside[lid] + inside[lid + 16u]; }
    workgroupBarrier();
    if (lid < 8u) { inside[lid] = inside[lid] + inside[lid + 8u]; }
    workgroupBarrier();
    if (lid < 4u) { inside[lid] = inside[lid] + inside[lid + 4u]; }
    workgroupBarrier();
    if (lid < 2u) { inside[lid] = inside[lid] + inside[lid + 2u]; }
    workgroupBarrier();
    if (lid < 1u) { inside[lid] = inside[lid] + inside[lid + 1u]; }

    if (lid == 0u) {
        output[wg.x] = u32(inside[lid]);
    }
}
"""


def parallel_pi_counts(blocks: int, threads: int, seed: int, iters: int) -> np.ndarray:
    """Each block's count of points inside the quarter circle: thread t of ``blocks x
    threads`` starts a 64-bit LCG (``* 1103515245 + 12345``, wrapping) at ``seed + t *
    spacing`` with ``spacing = (2**64 - 1) // (blocks * threads)``; each of ``iters``
    points takes two draws, each the state's low 31 bits over 2**31 rounded to float32,
    and counts where ``sqrt(x*x + y*y) <= 1`` in float32."""
    total = blocks * threads
    spacing = np.uint64((2**64 - 1) // total)
    tid = np.arange(total, dtype=np.uint64)
    state = np.uint64(seed) + tid * spacing
    mult, inc = np.uint64(1103515245), np.uint64(12345)

    def draw(state):
        state = state * mult + inc
        low = (state & np.uint64(0x7FFFFFFF)).astype(np.float64)
        return state, (low / 2147483648.0).astype(np.float32)

    inside = np.zeros(total, np.int64)
    with np.errstate(over="ignore"):
        for _ in range(int(iters)):
            state, x = draw(state)
            state, y = draw(state)
            r = np.sqrt(x * x + y * y)
            inside += r <= np.float32(1.0)
    return inside.reshape(blocks, threads).sum(axis=1).astype(np.uint32)


def _pi_reference(output, seed, iters_per_thread):
    return parallel_pi_counts(len(output), 512, int(seed), int(iters_per_thread))


def _pi_port_reference(output, params):
    return parallel_pi_counts(
        len(output), 256, int(params["seed"]), int(params["iters_per_thread"])
    )


#: any u32 (the host's is the time in milliseconds); 8 points a thread (the host's 1000)
_PI_DEFAULTS = {"seed": 1765112345, "iters_per_thread": 8}

PARALLEL_PI = Wild(
    KernelSpec(
        id="wild_r82_parallelpi_compute_pi_kernel5",
        entry_point="computePiKernel5",
        sources={"cuda": _PI_CUDA},
        buffers=(BufferSpec(0, "u32", "read_write", name="output", initial=0),),
        reference=_pi_reference,
        defaults={"seed": np.uint32(_PI_DEFAULTS["seed"]), "iters_per_thread": np.uint32(8)},
        # the host's grid: one block a 512 x 1000 points; here the size is the blocks
        grid=lambda s, n: (int(n), 1, 1),
        schedules=(Schedule(512),),
        shared_bytes=512 * 4,
        test_sizes=(3, 1),
    ),
    {
        "CUDA: the LCG's increment dropped": (
            "cuda",
            "last_draw = last_draw * 1103515245 + 12345;",
            "last_draw = last_draw * 1103515245;",
        ),
        "CUDA: the sign bit kept": (
            "cuda",
            "long low_bits = last_draw & 0x7fffffff;",
            "long low_bits = last_draw & 0xffffffff;",
        ),
        "CUDA: the spacing over a block's threads": (
            "cuda",
            "static_cast<unsigned long>(blockDim.x * gridDim.x);",
            "static_cast<unsigned long>(blockDim.x);",
        ),
        "CUDA: the barrier after the counts are stored dropped": (
            "cuda",
            "    inside[threadIdx.x] = n_inside;\n\n    __syncthreads();\n",
            "    inside[threadIdx.x] = n_inside;\n\n",
        ),
        "CUDA: the warp's first step left out": (
            "cuda",
            "        p[threadIdx.x] = p[threadIdx.x] + p[threadIdx.x + 32];\n",
            "",
        ),
    },
    races=frozenset({"CUDA: the barrier after the counts are stored dropped"}),
)

PARALLEL_PI_PORT = Wild(
    KernelSpec(
        id="wild_r82_parallelpi_compute_pi_kernel5_webgpu_port",
        entry_point="computePiKernel5",
        sources={"wgsl": _PI_WGSL},
        buffers=(
            BufferSpec(0, "u32", "read_write", name="output", initial=0),
            BufferSpec.uniform(1, (("seed", "u32"), ("iters_per_thread", "u32")), name="params"),
        ),
        reference=_pi_port_reference,
        defaults=_PI_DEFAULTS,
        grid=lambda s, n: (int(n), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=(3, 1),
    ),
    {
        "the LCG's increment dropped": (
            "wgsl",
            "last_draw = mul_add(last_draw, 1103515245u, 12345u);",
            "last_draw = mul_add(last_draw, 1103515245u, 0u);",
        ),
        "the sign bit kept": (
            "wgsl",
            "let low_bits = last_draw.x & 0x7fffffffu;",
            "let low_bits = last_draw.x & 0xffffffffu;",
        ),
        "the spacing over a block's threads": (
            "wgsl",
            "let threads = 256u * groups.x;",
            "let threads = 256u;",
        ),
        "the barrier after the counts are stored dropped": (
            "wgsl",
            "    inside[lid] = n_inside;\n    workgroupBarrier();\n",
            "    inside[lid] = n_inside;\n",
        ),
        "the warp's first step left out": (
            "wgsl",
            "    if (lid < 32u) { inside[lid] = inside[lid] + inside[lid + 32u]; }\n",
            "",
        ),
    },
)


ROUND82: dict[str, Wild] = {
    wild.kernel.id: wild for wild in (THREEFRY, NUMR_RANDN, NVFUSER, PARALLEL_PI, PARALLEL_PI_PORT)
}

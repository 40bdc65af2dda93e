"""Round 81 of the wild kernels: cryptographic hashing and ciphers as public GPU code
writes them (the corpus had SHA-256, MurmurHash3 and xxHash, and no Keccak, MD5, SHA-512
or ChaCha20 before): integer-exact outputs of rotates, byte orders, 64-bit words held in
32-bit halves with their carries, padding and length fields, messages of several
blocks, and a block counter running across the states. Four kernels: three CUDA kernels,
each with a WebGPU port of ours beside it in one entry (WGSL has no bytes and no u64:
the ports read and write the same byte buffers packed four to a word, and hold Keccak's
lanes as ``vec2<u32>``), and one WGSL kernel whose 64-bit words are pairs of u32. Each
is read, not copied (the project's rule for public code): the entry points and
parameters (names, types, order), the block and workgroup sizes and the launch geometry
of their hosts, the shared memory and barriers where they stand, the idioms and the
numerics (round constants, rotation amounts, padding, the order of the steps) are
theirs; the comments, helpers' and locals' names and formatting ours, and the constant
tables are generated here from their definitions (MD5's from sines, Keccak's from its
LFSR and its rho walk, SHA-512's from the primes' roots).

- mochimodev/cuda-hashing-algos (public domain, README.md) at
  5f80d58c10dbf9d3fcd502fee8118e49fddc593a, ``keccak.cu``: ``kernel_keccak_hash(BYTE*
  indata, WORD inlen, BYTE* outdata, WORD n_batch, WORD KECCAK_BLOCK_SIZE)``, a thread
  a message of ``inlen`` bytes, 256 threads a block (``mcm_cuda_keccak_hash_batch``),
  original Keccak (``sha3_flag`` 0: the pad byte 0x01, not SHA-3's 0x06) with a
  ``KECCAK_BLOCK_SIZE``-byte digest and the rate ``1600 - 2 * 8 * KECCAK_BLOCK_SIZE``
  bits; a context in the thread's local memory (25 ``int64_t`` lanes and a byte
  queue, ``memcpy`` and ``memset`` in device code), whole blocks absorbed straight from
  the message and the rest through the queue, Keccak-f[1600] with each step unrolled
  over the lanes (theta by columns, the rho-pi chain walked back from lane 1, chi by
  rows, iota from ``__constant__ LONG CUDA_KECCAK_CONSTS[24]``), ``ROTL64(a, b) = (a <<
  b) | (a >> (64 - b))`` (never with ``b`` 0 or 64), the pad's partial lane masked by
  ``(1L << partial) - 1``. Here Keccak-256: 32 bytes (the host's ``n_outbit`` 256).
- mochimodev/cuda-hashing-algos (public domain) at the same commit, ``md5.cu``:
  ``kernel_md5_hash(BYTE* indata, WORD inlen, BYTE* outdata, WORD n_batch)`` after
  Brad Conte's public-domain C: a 64-byte buffer a context, bytes appended one by one
  and a block transformed at 64, the 0x80 and the 64-bit length little-endian
  (``bitlen`` an ``unsigned long long``), a block of its own for the length when the
  message leaves less than 8 bytes, the words little-endian, the 64 steps unrolled
  through the ``FF`` to ``II`` macros, ``ROTLEFT(a, b) = (a << b) | (a >> (32 - b))``.
- DPBayes/jax-chacha-prng (Apache-2.0) at 6c20635a751a275bf55c1590a870192f972777c2,
  ``lib/gpu_kernel.cpp.cu`` with ``lib/defs.hpp``: ``chacha20_block(uint32_t*
  out_state, const uint32_t* in_state)``, ChaCha20's block function of many 16-word
  states, launched ``<<<num_states, 4>>>``: four threads a state, each its column's
  quarter round and then its diagonal's (``get_diagonal_index(i, d) = i * 4 + (i + d) %
  4``) through ``__shared__ uint32_t tmp_state[16]``, a ``__syncthreads()`` after each,
  the first double round reading the input state from global memory, ten in all,
  ``rotate_left`` with ``^`` for ``|``, and the input added back a column a thread;
  ``ChaChaStateSizeInBytes`` 16 (it counts words) the states' stride. The commit is
  upstream's fix of its batching ("Final addition did not properly offset into input
  state buffer"): the bug it fixed is one of the mutants. The inputs are one key's
  keystream blocks, the 64-bit counter in words 12 and 13 counting up a state and
  carrying out of its low word halfway.
- Dcfgvy/SHA512-WebGPU (MIT) at 9f738a4e5044fb7dd8e893df2d92e2fbe5085b5f,
  ``src/sha512.wgsl``: SHA-512 of one message of ``input_size[0]`` bits (any number of
  bits, not only bytes: the last word's bits past the size masked off and the 1 bit
  put after them), big-endian words, one invocation (``@workgroup_size(1)``),
  ``input_size`` a bare ``array<u32, 1>`` in storage and ``result`` an ``array<u32,
  16>`` assigned whole; each 64-bit word a ``struct u64_pair { high, low }``, the
  addition modulo 2^64 with its carry ``u32(low_sum < a.low)``, rotations by more than
  32 written as left rotations by 64 minus them, the block count ``(bits + 1152) /
  1024``, the length in the last word only (the one before it 0).

Mutants: see each entry; each CUDA mutant's bug but one is also written into the port
(tests/test_wild_round81.py ``_CUDA_TWINS``), which fails on lavapipe.

What they showed (tests/test_wild_round81.py): each original passes on the reference,
lavapipe and SwiftShader, judged exactly; each WGSL mutant fails on both; each CUDA
source, original and mutant, compiles with NVRTC for sm_90 with the arguments its PTX
declares (mochimo's ``WORD`` scalars by value between the byte pointers). The numpy
references (vectorised over the messages and states) agree with ``hashlib``'s MD5,
SHA-512 and, with SHA-3's pad byte, SHA3-256, and with RFC 7539's ChaCha20 block. A
port's 64-bit rotation by 32 or more that forgets to take 32 off after swapping the
halves is the same kernel in WGSL, whose shifts take their amount modulo 32 (pinned:
it passes); in C++ it would be undefined.

A gap this round found, closed since: the ChaCha port without the barrier between its
column and diagonal rounds, the CUDA race mutant's twin, passed on both CPU adapters.
Its workgroup of four invocations is one SIMD group on lavapipe (8 lanes) and
SwiftShader (4), run in lockstep, so every column's writes land before any diagonal
read; the oracle's reversed-invocation twin reordered SIMD groups, not the lanes of
one. A workgroup of at most 32 invocations is now rerun one invocation at a time
between its barriers (``oracle._reorder``), and the port fails. The CUDA mutant is a
race within one warp: on the H100 (2026-12-07) its block of four threads ran in step,
its values passed, and compute-sanitizer's racecheck, which reports hazards between
warps only, found nothing (``tests/wild/nvidia.py``). Its twin in the port is what
catches it.

The GPU run (H100, 2026-12-07): each CUDA original passes and each other CUDA mutant
fails there.
"""

# ruff: noqa: E501  (the CUDA and WGSL keep their sources' long lines)

from __future__ import annotations

import math

import numpy as np

from forge import BufferSpec, KernelSpec, Schedule, ceil_div

from . import Wild

_M32 = 0xFFFFFFFF
_M64 = (1 << 64) - 1


# -- the constants, from their definitions ------------------------------------------------


def _keccak_round_constants() -> list[int]:
    """Keccak's iota constants, from its LFSR x^8 + x^6 + x^5 + x^4 + 1."""
    state, out = 1, []
    for _ in range(24):
        rc = 0
        for j in range(7):
            if state & 1:
                rc |= 1 << ((1 << j) - 1)
            state = ((state << 1) ^ 0x71) & 0xFF if state & 0x80 else state << 1
        out.append(rc)
    return out


def _keccak_rho_pi() -> list[tuple[int, int]]:
    """The rho-pi chain from lane 1: (the lane moved to, its rotation), 24 steps."""
    x, y, steps = 1, 0, []
    for t in range(24):
        x, y = y, (2 * x + 3 * y) % 5
        steps.append((x + 5 * y, ((t + 1) * (t + 2) // 2) % 64))
    return steps


_KECCAK_RC = _keccak_round_constants()
_KECCAK_CHAIN = _keccak_rho_pi()
_MD5_K = [int(abs(math.sin(i + 1)) * 2**32) & _M32 for i in range(64)]
_MD5_S = [(7, 12, 17, 22), (5, 9, 14, 20), (4, 11, 16, 23), (6, 10, 15, 21)]


def _md5_word(step: int) -> int:
    """Which message word MD5's step reads."""
    r, i = divmod(step, 16)
    return (i, 5 * i + 1, 3 * i + 5, 7 * i)[r] % 16


# -- mochimo's keccak.cu: Keccak-256 a thread a message -----------------------------------


def _rho_pi_backwards() -> list[tuple[int, int, int]]:
    """keccak.cu's rho-pi: from lane 1 back along the chain, each lane given the lane
    that moves into it, rotated by that one's amount: (to, from, rotation)."""
    moves = {}  # the lane each moves to, with its rotation
    src = 1
    for dst, rot in _KECCAK_CHAIN:
        moves[dst] = (src, rot)
        src = dst
    out, lane = [], 1
    for _ in range(24):
        src, rot = moves[lane]
        out.append((lane, src, rot))
        lane = src
    return out


def _keccak_cuda_rho_pi() -> str:
    steps = _rho_pi_backwards()
    first_rot = steps[-1][2]  # lane 1's own rotation, taken before lane 1 is overwritten
    lines = [f"        int64_t carried = ROTL64(st[1], {first_rot});"]
    for to, src, rot in steps[:-1]:
        lines.append(f"        st[{to}] = ROTL64(st[{src}], {rot});")
    lines.append(f"        st[{steps[-1][0]}] = carried;")
    return "\n".join(lines)


_KECCAK_RC_TEXT = ",\n    ".join(
    ", ".join(f"0x{c:016x}" for c in _KECCAK_RC[i : i + 4]) for i in range(0, 24, 4)
)

_KECCAK_CUDA = (
    r"""// kernel-forge corpus: mochimodev/cuda-hashing-algos' keccak.cu (read, not copied).
#include <cstdint>

typedef unsigned char BYTE;
typedef unsigned int WORD;
typedef unsigned long long LONG;

#define KECCAK_ROUND 24
#define KECCAK_STATE_SIZE 25
#define KECCAK_Q_SIZE 192

// iota's constants, a round each
__constant__ LONG CUDA_KECCAK_CONSTS[24] = {
    """
    + _KECCAK_RC_TEXT
    + r"""
};

// One message's sponge: 25 lanes of state and the bytes not yet absorbed.
typedef struct {
    BYTE sha3_flag;
    WORD digestbitlen;
    LONG rate_bits;
    LONG rate_BYTEs;
    LONG absorb_round;

    int64_t state[KECCAK_STATE_SIZE];
    BYTE q[KECCAK_Q_SIZE];

    LONG bits_in_queue;
} cuda_keccak_ctx_t;

// eight bytes as a little-endian lane
__device__ LONG lane_at(void *from)
{
    LONG v;
    memcpy(&v, from, 8);
    return v;
}

__device__ int64_t smaller(int64_t x, int64_t y) { return x > y ? y : x; }
__device__ LONG smaller_u(LONG x, LONG y) { return x > y ? y : x; }

// the rate's lanes out to the queue, as bytes
__device__ void squeeze_lanes(cuda_keccak_ctx_t *ctx)
{
    LONG lanes = ctx->rate_bits >> 6;
    for (int k = 0; k < lanes; k++) {
        int64_t v = lane_at(&ctx->state[k]);
        memcpy(ctx->q + k * sizeof(LONG), &v, sizeof(LONG));
    }
}

// b is never 0 or 64 here: both would shift by the width
__device__ __forceinline__ LONG ROTL64(LONG a, LONG b)
{
    return (a << b) | (a >> (64 - b));
}

// Keccak-f[1600], each step unrolled over the lanes (lane x + 5 y)
__device__ void keccak_f(cuda_keccak_ctx_t *ctx)
{
    int64_t *st = ctx->state;
    for (int round = 0; round < KECCAK_ROUND; round++) {
        // theta: each column's parity, and each lane xored with its neighbours'
        int64_t p0 = st[0] ^ st[5] ^ st[10] ^ st[15] ^ st[20];
        int64_t p1 = st[1] ^ st[6] ^ st[11] ^ st[16] ^ st[21];
        int64_t p2 = st[2] ^ st[7] ^ st[12] ^ st[17] ^ st[22];
        int64_t p3 = st[3] ^ st[8] ^ st[13] ^ st[18] ^ st[23];
        int64_t p4 = st[4] ^ st[9] ^ st[14] ^ st[19] ^ st[24];

        int64_t t0 = ROTL64(p1, 1) ^ p4;
        int64_t t1 = ROTL64(p2, 1) ^ p0;
        int64_t t2 = ROTL64(p3, 1) ^ p1;
        int64_t t3 = ROTL64(p4, 1) ^ p2;
        int64_t t4 = ROTL64(p0, 1) ^ p3;
        for (int row = 0; row < 25; row += 5) {
            st[row] ^= t0;
            st[row + 1] ^= t1;
            st[row + 2] ^= t2;
            st[row + 3] ^= t3;
            st[row + 4] ^= t4;
        }

        // rho and pi: along the chain from lane 1, each lane takes the next one rotated
"""
    + _keccak_cuda_rho_pi()
    + r"""

        // chi, a row at a time
        for (int row = 0; row < 25; row += 5) {
            int64_t x0 = st[row] ^ (~st[row + 1] & st[row + 2]);
            int64_t x1 = st[row + 1] ^ (~st[row + 2] & st[row + 3]);
            st[row + 2] ^= ~st[row + 3] & st[row + 4];
            st[row + 3] ^= ~st[row + 4] & st[row];
            st[row + 4] ^= ~st[row] & st[row + 1];
            st[row] = x0;
            st[row + 1] = x1;
        }

        // iota
        st[0] ^= CUDA_KECCAK_CONSTS[round];
    }
}

__device__ void absorb_block(cuda_keccak_ctx_t *ctx, BYTE *from)
{
    for (LONG k = 0; k < ctx->absorb_round; ++k) {
        ctx->state[k] ^= lane_at(from + 8 * k);
    }
    keccak_f(ctx);
}

// the domain bit after the queued bytes, the last bit of the rate, and the squeeze
__device__ void pad_and_permute(cuda_keccak_ctx_t *ctx)
{
    ctx->q[ctx->bits_in_queue >> 3] |= (1L << (ctx->bits_in_queue & 7));

    if (++(ctx->bits_in_queue) == ctx->rate_bits) {
        absorb_block(ctx, ctx->q);
        ctx->bits_in_queue = 0;
    }

    LONG whole = ctx->bits_in_queue >> 6;
    LONG rest = ctx->bits_in_queue & 63;
    for (int k = 0; k < whole; ++k) {
        ctx->state[k] ^= lane_at(ctx->q + 8 * k);
    }
    if (rest > 0) {
        LONG keep = (1L << rest) - 1;
        ctx->state[whole] ^= lane_at(ctx->q + 8 * whole) & keep;
    }

    ctx->state[(ctx->rate_bits - 1) >> 6] ^= 9223372036854775808ULL;  // bit 63

    keccak_f(ctx);
    squeeze_lanes(ctx);
    ctx->bits_in_queue = ctx->rate_bits;
}

// digestbitlen one of 128, 224, 256, 288, 384, 512
__device__ void start(cuda_keccak_ctx_t *ctx, WORD digestbitlen)
{
    memset(ctx, 0, sizeof(cuda_keccak_ctx_t));
    ctx->sha3_flag = 0;
    ctx->digestbitlen = digestbitlen;
    ctx->rate_bits = 1600 - ((ctx->digestbitlen) << 1);
    ctx->rate_BYTEs = ctx->rate_bits >> 3;
    ctx->absorb_round = ctx->rate_bits >> 6;
    ctx->bits_in_queue = 0;
}

// whole blocks straight from the message, what is left through the queue
__device__ void feed(cuda_keccak_ctx_t *ctx, BYTE *in, LONG inlen)
{
    int64_t queued = ctx->bits_in_queue >> 3;
    int64_t done = 0;
    while (done < inlen) {
        if (queued == 0 && done <= ((int64_t)(inlen - ctx->rate_BYTEs))) {
            do {
                absorb_block(ctx, in + done);
                done += ctx->rate_BYTEs;
            } while (done <= ((int64_t)(inlen - ctx->rate_BYTEs)));
        } else {
            int64_t part = smaller(ctx->rate_BYTEs - queued, inlen - done);
            memcpy(ctx->q + queued, in + done, part);
            queued += part;
            done += part;
            if (queued == ctx->rate_BYTEs) {
                absorb_block(ctx, ctx->q);
                queued = 0;
            }
        }
    }
    ctx->bits_in_queue = queued << 3;
}

__device__ void finish(cuda_keccak_ctx_t *ctx, BYTE *out)
{
    if (ctx->sha3_flag) {
        // SHA-3's two domain bits, 01, before the pad
        int two = (1 << 2) - 1;
        ctx->q[ctx->bits_in_queue >> 3] = (BYTE)(0x02 & two);
        ctx->bits_in_queue += 2;
    }

    pad_and_permute(ctx);

    LONG written = 0;
    while (written < ctx->digestbitlen) {
        if (ctx->bits_in_queue == 0) {
            keccak_f(ctx);
            squeeze_lanes(ctx);
            ctx->bits_in_queue = ctx->rate_bits;
        }
        LONG bits = smaller_u(ctx->bits_in_queue, ctx->digestbitlen - written);
        memcpy(out + (written >> 3), ctx->q + (ctx->rate_BYTEs - (ctx->bits_in_queue >> 3)), bits >> 3);
        ctx->bits_in_queue -= bits;
        written += bits;
    }
}

// a thread a message of inlen bytes, its digest KECCAK_BLOCK_SIZE bytes
__global__ void kernel_keccak_hash(BYTE* indata, WORD inlen, BYTE* outdata, WORD n_batch, WORD KECCAK_BLOCK_SIZE)
{
    WORD message = blockIdx.x * blockDim.x + threadIdx.x;
    if (message >= n_batch)
    {
        return;
    }
    BYTE* in = indata + message * inlen;
    BYTE* out = outdata + message * KECCAK_BLOCK_SIZE;
    cuda_keccak_ctx_t ctx;
    start(&ctx, KECCAK_BLOCK_SIZE << 3);
    feed(&ctx, in, inlen);
    finish(&ctx, out);
}
"""
)


def _u32_list(values, per_line: int = 4) -> str:
    return ",\n  ".join(
        ", ".join(f"0x{v:08x}u" for v in values[i : i + per_line])
        for i in range(0, len(values), per_line)
    )


_KECCAK_WGSL = (
    """
// The port: WGSL has no bytes and no u64. The messages and digests are the same byte
// buffers, read and written four bytes a word (little-endian); a lane is a vec2u of its
// low and high words.
struct Params {
  inlen : u32,
  n_batch : u32,
  KECCAK_BLOCK_SIZE : u32,
}

@group(0) @binding(0) var<storage, read> indata : array<u32>;
@group(0) @binding(1) var<storage, read_write> outdata : array<u32>;
@group(0) @binding(2) var<uniform> params : Params;

const PAD = 0x01u;  // Keccak's domain bit (SHA-3 pads 0x06)

var<private> RC : array<vec2u, 24> = array<vec2u, 24>(
  """
    + ",\n  ".join(f"vec2u(0x{c & _M32:08x}u, 0x{c >> 32:08x}u)" for c in _KECCAK_RC)
    + """
);

// rho and pi as one walk from lane 1: where each step's lane goes, and by how much it turns
var<private> CHAIN_LANE : array<u32, 24> = array<u32, 24>("""
    + ", ".join(f"{d}u" for d, _ in _KECCAK_CHAIN)
    + """);
var<private> CHAIN_ROT : array<u32, 24> = array<u32, 24>("""
    + ", ".join(f"{r}u" for _, r in _KECCAK_CHAIN)
    + """);

var<private> st : array<vec2u, 25>;

fn rotl64(v : vec2u, n : u32) -> vec2u {
  var w = v;
  var s = n;
  if (s >= 32u) {
    w = w.yx;  // a turn by 32 swaps the halves
    s = s - 32u;
  }
  if (s == 0u) {
    return w;
  }
  return vec2u((w.x << s) | (w.y >> (32u - s)), (w.y << s) | (w.x >> (32u - s)));
}

fn in_byte(at : u32) -> u32 {
  return (indata[at >> 2u] >> ((at & 3u) << 3u)) & 0xffu;
}

fn keccak_f() {
  for (var round = 0u; round < 24u; round++) {
    var parity : array<vec2u, 5>;
    for (var x = 0u; x < 5u; x++) {
      parity[x] = st[x] ^ st[x + 5u] ^ st[x + 10u] ^ st[x + 15u] ^ st[x + 20u];
    }
    for (var x = 0u; x < 5u; x++) {
      let t = parity[(x + 4u) % 5u] ^ rotl64(parity[(x + 1u) % 5u], 1u);
      for (var y = 0u; y < 25u; y += 5u) {
        st[y + x] ^= t;
      }
    }
    var carried = st[1];
    for (var i = 0u; i < 24u; i++) {
      let lane = CHAIN_LANE[i];
      let next = st[lane];
      st[lane] = rotl64(carried, CHAIN_ROT[i]);
      carried = next;
    }
    for (var y = 0u; y < 25u; y += 5u) {
      var row : array<vec2u, 5>;
      for (var x = 0u; x < 5u; x++) {
        row[x] = st[y + x];
      }
      for (var x = 0u; x < 5u; x++) {
        st[y + x] = row[x] ^ (~row[(x + 1u) % 5u] & row[(x + 2u) % 5u]);
      }
    }
    st[0] ^= RC[round];
  }
}

@compute @workgroup_size(256)
fn kernel_keccak_hash(@builtin(global_invocation_id) gid : vec3u) {
  let message = gid.x;
  if (message >= params.n_batch) {
    return;
  }
  let inlen = params.inlen;
  let base = message * inlen;
  let rate = 200u - 2u * params.KECCAK_BLOCK_SIZE;  // in bytes
  let blocks = inlen / rate + 1u;
  for (var i = 0u; i < 25u; i++) {
    st[i] = vec2u(0u);
  }
  for (var b = 0u; b < blocks; b++) {
    for (var lane = 0u; lane < rate / 8u; lane++) {
      var half = vec2u(0u);
      for (var k = 0u; k < 8u; k++) {
        let at = b * rate + lane * 8u + k;
        var octet = 0u;
        if (at < inlen) {
          octet = in_byte(base + at);
        }
        if (at == inlen) {
          octet = PAD;
        }
        if (at == blocks * rate - 1u) {
          octet |= 0x80u;
        }
        if (k < 4u) {
          half.x |= octet << (k * 8u);
        } else {
          half.y |= octet << ((k - 4u) * 8u);
        }
      }
      st[lane] ^= half;
    }
    keccak_f();
  }
  let words = params.KECCAK_BLOCK_SIZE / 4u;
  for (var w = 0u; w < words; w++) {
    let lane = st[w / 2u];
    outdata[message * words + w] = select(lane.x, lane.y, (w & 1u) == 1u);
  }
}
"""
)


def _rotl64(v: np.ndarray, n: int) -> np.ndarray:
    n %= 64
    if n == 0:
        return v
    return (v << np.uint64(n)) | (v >> np.uint64(64 - n))


def _keccak_permute(state: np.ndarray) -> np.ndarray:
    """Keccak-f[1600] of each row of ``state`` (messages x 25 lanes, lane x + 5 y), by
    the definition: theta, rho, pi, chi, iota."""
    a = state.reshape(-1, 5, 5).copy()  # [message, y, x]
    rho = np.zeros((5, 5), int)  # [y, x]
    x, y = 1, 0
    for t in range(24):
        rho[y, x] = ((t + 1) * (t + 2) // 2) % 64
        x, y = y, (2 * x + 3 * y) % 5
    for rc in _KECCAK_RC:
        column = np.bitwise_xor.reduce(a, axis=1)  # [message, x]
        turned = _rotl64(np.roll(column, -1, axis=1), 1)
        a ^= (np.roll(column, 1, axis=1) ^ turned)[:, None, :]
        b = np.empty_like(a)
        for y in range(5):
            for x in range(5):
                # pi: the lane at (x, y) goes to (y, 2x + 3y)
                b[:, (2 * x + 3 * y) % 5, y] = _rotl64(a[:, y, x], int(rho[y, x]))
        a = b ^ (~np.roll(b, -1, axis=2) & np.roll(b, -2, axis=2))
        a[:, 0, 0] ^= np.uint64(rc)
    return a.reshape(-1, 25)


def _keccak_digests(messages: np.ndarray, digest_bytes: int, pad: int = 0x01) -> np.ndarray:
    """The sponge over each row of ``messages`` (bytes): the rate 200 - 2 * digest bytes,
    the pad byte after the message and 0x80 in the rate's last byte, the digest the
    first bytes of the state."""
    count, length = messages.shape
    rate = 200 - 2 * digest_bytes
    blocks = length // rate + 1
    padded = np.zeros((count, blocks * rate), np.uint8)
    padded[:, :length] = messages
    padded[:, length] ^= np.uint8(pad)
    padded[:, -1] ^= np.uint8(0x80)
    lanes = padded.reshape(count, blocks, rate // 8, 8).copy().view("<u8")[..., 0]
    state = np.zeros((count, 25), np.uint64)
    for b in range(blocks):
        state[:, : rate // 8] ^= lanes[:, b]
        state = _keccak_permute(state)
    return state.astype("<u8").view(np.uint8)[:, :digest_bytes]


def _keccak_reference(indata, outdata, KECCAK_BLOCK_SIZE):
    digests = _keccak_digests(np.asarray(indata, np.uint8), int(KECCAK_BLOCK_SIZE))
    outdata[...] = digests.reshape(outdata.shape)


_KECCAK_DIGEST = 32  # the host's n_outbit 256: Keccak-256


def _keccak_grid(s, size):
    # the host's (n_batch + 255) / 256 blocks of 256
    return (ceil_div(int(size.n_batch), 256), 1, 1)


KECCAK = Wild(
    KernelSpec(
        id="wild_r81_mochimo_keccak256_a_thread_a_message",
        entry_point="kernel_keccak_hash",
        sources={"cuda": _KECCAK_CUDA, "wgsl": _KECCAK_WGSL},
        dims=("n_batch", "inlen"),
        buffers=(
            BufferSpec(0, "u8", "read", name="indata", shape=("n_batch", "inlen")),
            BufferSpec(
                1,
                "u8",
                "read_write",
                name="outdata",
                count=lambda size: int(size.n_batch) * _KECCAK_DIGEST,
                shape=("n_batch", _KECCAK_DIGEST),
            ),
            BufferSpec.uniform(
                2,
                (("inlen", "u32"), ("n_batch", "u32"), ("KECCAK_BLOCK_SIZE", "u32")),
                name="params",
            ),
        ),
        reference=_keccak_reference,
        params=lambda size: {
            "inlen": np.uint32(int(size.inlen)),
            "n_batch": np.uint32(int(size.n_batch)),
        },
        defaults={"KECCAK_BLOCK_SIZE": np.uint32(_KECCAK_DIGEST)},
        grid=_keccak_grid,
        schedules=(Schedule(256),),
        # two blocks; the pad bit and 0x80 in one byte (135 = 136 - 1); a block of
        # message then one of padding alone
        test_sizes=("n_batch=70,inlen=200", "n_batch=5,inlen=135", "n_batch=3,inlen=136"),
    ),
    {
        "SHA-3's pad byte": ("wgsl", "const PAD = 0x01u;", "const PAD = 0x06u;"),
        "iota's high word left out": ("wgsl", "st[0] ^= RC[round];", "st[0].x ^= RC[round].x;"),
        "the halves not swapped past 32": ("wgsl", "w = w.yx;  // a turn", "w = w;  // a turn"),
        "the 0x80 in the first block": (
            "wgsl",
            "if (at == blocks * rate - 1u) {",
            "if (at == rate - 1u) {",
        ),
        "CUDA: lane 6 turned by 43": (
            "cuda",
            "st[1] = ROTL64(st[6], 44);",
            "st[1] = ROTL64(st[6], 43);",
        ),
        "CUDA: SHA-3's domain bits": ("cuda", "ctx->sha3_flag = 0;", "ctx->sha3_flag = 1;"),
    },
)


# -- mochimo's md5.cu: MD5 a thread a message --------------------------------------------------

#: each step's registers, as the four calls of a round name them
_MD5_ROLES = ("a,b,c,d", "d,a,b,c", "c,d,a,b", "b,c,d,a")


def _md5_cuda_steps() -> str:
    lines = []
    for step in range(64):
        r, i = divmod(step, 16)
        if i == 0 and step:
            lines.append("")
        macro = "FF GG HH II".split()[r]
        lines.append(
            f"    {macro}({_MD5_ROLES[step % 4]},m[{_md5_word(step)}],{_MD5_S[r][step % 4]},0x{_MD5_K[step]:08x});"
        )
    return "\n".join(lines)


_MD5_CUDA = (
    r"""// kernel-forge corpus: mochimodev/cuda-hashing-algos' md5.cu (read, not copied), after
// Brad Conte's public-domain C.
#define MD5_BLOCK_SIZE 16  // the digest's bytes

typedef unsigned char BYTE;
typedef unsigned int WORD;

// a message's running state: the block being filled, and the bits already hashed
typedef struct {
    BYTE data[64];
    WORD datalen;
    unsigned long long bitlen;
    WORD state[4];
} CUDA_MD5_CTX;

#ifndef ROTLEFT
#define ROTLEFT(a,b) ((a << b) | (a >> (32-b)))
#endif

#define F(x,y,z) ((x & y) | (~x & z))
#define G(x,y,z) ((x & z) | (y & ~z))
#define H(x,y,z) (x ^ y ^ z)
#define I(x,y,z) (y ^ (x | ~z))

#define FF(a,b,c,d,m,s,t) { a += F(b,c,d) + m + t; a = b + ROTLEFT(a,s); }
#define GG(a,b,c,d,m,s,t) { a += G(b,c,d) + m + t; a = b + ROTLEFT(a,s); }
#define HH(a,b,c,d,m,s,t) { a += H(b,c,d) + m + t; a = b + ROTLEFT(a,s); }
#define II(a,b,c,d,m,s,t) { a += I(b,c,d) + m + t; a = b + ROTLEFT(a,s); }

// one 64-byte block into the state: its words little-endian, 64 steps
__device__ void md5_block(CUDA_MD5_CTX *ctx, const BYTE data[])
{
    WORD a, b, c, d, m[16], w, at;

    for (w = 0, at = 0; w < 16; ++w, at += 4)
        m[w] = (data[at]) + (data[at + 1] << 8) + (data[at + 2] << 16) + (data[at + 3] << 24);

    a = ctx->state[0];
    b = ctx->state[1];
    c = ctx->state[2];
    d = ctx->state[3];

"""
    + _md5_cuda_steps()
    + r"""

    ctx->state[0] += a;
    ctx->state[1] += b;
    ctx->state[2] += c;
    ctx->state[3] += d;
}

__device__ void md5_start(CUDA_MD5_CTX *ctx)
{
    ctx->datalen = 0;
    ctx->bitlen = 0;
    ctx->state[0] = 0x67452301;
    ctx->state[1] = 0xEFCDAB89;
    ctx->state[2] = 0x98BADCFE;
    ctx->state[3] = 0x10325476;
}

// a byte at a time into the block, hashed whenever it fills
__device__ void md5_feed(CUDA_MD5_CTX *ctx, const BYTE data[], size_t len)
{
    for (size_t k = 0; k < len; ++k) {
        ctx->data[ctx->datalen] = data[k];
        ctx->datalen++;
        if (ctx->datalen == 64) {
            md5_block(ctx, ctx->data);
            ctx->bitlen += 512;
            ctx->datalen = 0;
        }
    }
}

__device__ void md5_finish(CUDA_MD5_CTX *ctx, BYTE hash[])
{
    size_t k = ctx->datalen;

    // 0x80 then zeros up to the length; a block of its own for the length where the
    // message leaves less than 8 bytes
    if (ctx->datalen < 56) {
        ctx->data[k++] = 0x80;
        while (k < 56)
            ctx->data[k++] = 0x00;
    }
    else if (ctx->datalen >= 56) {
        ctx->data[k++] = 0x80;
        while (k < 64)
            ctx->data[k++] = 0x00;
        md5_block(ctx, ctx->data);
        memset(ctx->data, 0, 56);
    }

    // the message's length in bits, little-endian in the last 8 bytes
    ctx->bitlen += ctx->datalen * 8;
    ctx->data[56] = ctx->bitlen;
    ctx->data[57] = ctx->bitlen >> 8;
    ctx->data[58] = ctx->bitlen >> 16;
    ctx->data[59] = ctx->bitlen >> 24;
    ctx->data[60] = ctx->bitlen >> 32;
    ctx->data[61] = ctx->bitlen >> 40;
    ctx->data[62] = ctx->bitlen >> 48;
    ctx->data[63] = ctx->bitlen >> 56;
    md5_block(ctx, ctx->data);

    // the state words out little-endian
    for (k = 0; k < 4; ++k) {
        hash[k]      = (ctx->state[0] >> (k * 8)) & 0x000000ff;
        hash[k + 4]  = (ctx->state[1] >> (k * 8)) & 0x000000ff;
        hash[k + 8]  = (ctx->state[2] >> (k * 8)) & 0x000000ff;
        hash[k + 12] = (ctx->state[3] >> (k * 8)) & 0x000000ff;
    }
}

// a thread a message of inlen bytes
__global__ void kernel_md5_hash(BYTE* indata, WORD inlen, BYTE* outdata, WORD n_batch)
{
    WORD message = blockIdx.x * blockDim.x + threadIdx.x;
    if (message >= n_batch)
    {
        return;
    }
    BYTE* in = indata + message * inlen;
    BYTE* out = outdata + message * MD5_BLOCK_SIZE;
    CUDA_MD5_CTX ctx;
    md5_start(&ctx);
    md5_feed(&ctx, in, inlen);
    md5_finish(&ctx, out);
}
"""
)

_MD5_WGSL = (
    """
// The port: the same byte buffers read and written four bytes a word; each message's
// padded blocks built on the fly, the 64 steps a loop over MD5's tables.
struct Params {
  inlen : u32,
  n_batch : u32,
}

@group(0) @binding(0) var<storage, read> indata : array<u32>;
@group(0) @binding(1) var<storage, read_write> outdata : array<u32>;
@group(0) @binding(2) var<uniform> params : Params;

// floor(|sin(i + 1)| 2^32), a step each
var<private> K : array<u32, 64> = array<u32, 64>(
  """
    + _u32_list(_MD5_K)
    + """
);
// each round's four rotations
var<private> S : array<u32, 16> = array<u32, 16>("""
    + ", ".join(f"{v}u" for row in _MD5_S for v in row)
    + """);

fn in_byte(at : u32) -> u32 {
  return (indata[at >> 2u] >> ((at & 3u) << 3u)) & 0xffu;
}

fn rotl(x : u32, s : u32) -> u32 {
  return (x << s) | (x >> (32u - s));
}

// the byte at position at of the padded message (blocks of them in all)
fn padded_byte(base : u32, at : u32, blocks : u32) -> u32 {
  let inlen = params.inlen;
  if (at < inlen) {
    return in_byte(base + at);
  }
  if (at == inlen) {
    return 0x80u;
  }
  let tail = blocks * 64u - 8u;  // the 64-bit length in bits, little-endian
  if (at >= tail) {
    let k = at - tail;
    let bits = vec2u(inlen << 3u, inlen >> 29u);
    return (bits[k / 4u] >> ((k % 4u) * 8u)) & 0xffu;
  }
  return 0u;
}

@compute @workgroup_size(256)
fn kernel_md5_hash(@builtin(global_invocation_id) gid : vec3u) {
  let message = gid.x;
  if (message >= params.n_batch) {
    return;
  }
  let base = message * params.inlen;
  let blocks = (params.inlen + 8u) / 64u + 1u;
  var h = vec4u(0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u);
  for (var b = 0u; b < blocks; b++) {
    var m : array<u32, 16>;
    for (var w = 0u; w < 16u; w++) {
      var word = 0u;
      for (var k = 0u; k < 4u; k++) {
        word |= padded_byte(base, b * 64u + w * 4u + k, blocks) << (k * 8u);
      }
      m[w] = word;
    }
    var a = h.x;
    var bb = h.y;
    var c = h.z;
    var d = h.w;
    for (var i = 0u; i < 64u; i++) {
      let round = i / 16u;
      var f : u32;
      var g : u32;
      switch round {
        case 0u: {
          f = (bb & c) | (~bb & d);
          g = i;
        }
        case 1u: {
          f = (bb & d) | (c & ~d);
          g = 5u * i + 1u;
        }
        case 2u: {
          f = bb ^ c ^ d;
          g = 3u * i + 5u;
        }
        default: {
          f = c ^ (bb | ~d);
          g = 7u * i;
        }
      }
      let turned = bb + rotl(a + f + m[g % 16u] + K[i], S[round * 4u + i % 4u]);
      a = d;
      d = c;
      c = bb;
      bb = turned;
    }
    h += vec4u(a, bb, c, d);
  }
  // little-endian words: the digest's bytes as they stand
  for (var k = 0u; k < 4u; k++) {
    outdata[message * 4u + k] = h[k];
  }
}
"""
)


def _md5_digests(messages: np.ndarray) -> np.ndarray:
    """MD5 (RFC 1321) of each row of ``messages`` (bytes), vectorised over the rows."""
    count, length = messages.shape
    blocks = (length + 8) // 64 + 1
    padded = np.zeros((count, blocks * 64), np.uint8)
    padded[:, :length] = messages
    padded[:, length] = 0x80
    padded[:, -8:] = np.frombuffer((length * 8).to_bytes(8, "little"), np.uint8)
    words = padded.view("<u4").reshape(count, blocks, 16).astype(np.uint32)
    h = [np.full(count, v, np.uint32) for v in (0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476)]
    with np.errstate(over="ignore"):
        for b in range(blocks):
            a, bb, c, d = h
            for step in range(64):
                r = step // 16
                if r == 0:
                    f = (bb & c) | (~bb & d)
                elif r == 1:
                    f = (bb & d) | (c & ~d)
                elif r == 2:
                    f = bb ^ c ^ d
                else:
                    f = c ^ (bb | ~d)
                s = np.uint32(_MD5_S[r][step % 4])
                x = a + f + words[:, b, _md5_word(step)] + np.uint32(_MD5_K[step])
                a, d, c, bb = d, c, bb, bb + ((x << s) | (x >> (np.uint32(32) - s)))
            h = [h[0] + a, h[1] + bb, h[2] + c, h[3] + d]
    return np.stack(h, axis=1).astype("<u4").view(np.uint8)


def _md5_reference(indata, outdata):
    outdata[...] = _md5_digests(np.asarray(indata, np.uint8)).reshape(outdata.shape)


MD5 = Wild(
    KernelSpec(
        id="wild_r81_mochimo_md5_a_thread_a_message",
        entry_point="kernel_md5_hash",
        sources={"cuda": _MD5_CUDA, "wgsl": _MD5_WGSL},
        dims=("n_batch", "inlen"),
        buffers=(
            BufferSpec(0, "u8", "read", name="indata", shape=("n_batch", "inlen")),
            BufferSpec(
                1,
                "u8",
                "read_write",
                name="outdata",
                count=lambda size: int(size.n_batch) * 16,
                shape=("n_batch", 16),
            ),
            BufferSpec.uniform(2, (("inlen", "u32"), ("n_batch", "u32")), name="params"),
        ),
        reference=_md5_reference,
        params=lambda size: {
            "inlen": np.uint32(int(size.inlen)),
            "n_batch": np.uint32(int(size.n_batch)),
        },
        grid=_keccak_grid,
        schedules=(Schedule(256),),
        # 60 bytes leave too little room for the length (a second block); 55 the most
        # that fit one; three blocks
        test_sizes=("n_batch=260,inlen=60", "n_batch=7,inlen=55", "n_batch=3,inlen=130"),
    ),
    {
        "the length in bytes": ("wgsl", "vec2u(inlen << 3u, inlen >> 29u)", "vec2u(inlen, 0u)"),
        "a first-round rotation 13": (
            "wgsl",
            "array<u32, 16>(7u, 12u,",
            "array<u32, 16>(7u, 13u,",
        ),
        "the words big-endian": (
            "wgsl",
            "word |= padded_byte(base, b * 64u + w * 4u + k, blocks) << (k * 8u);",
            "word |= padded_byte(base, b * 64u + w * 4u + k, blocks) << ((3u - k) * 8u);",
        ),
        "no block of its own for the length": (
            "wgsl",
            "let blocks = (params.inlen + 8u) / 64u + 1u;",
            "let blocks = params.inlen / 64u + 1u;",
        ),
        "CUDA: the 0x80 dropped before a length block": (
            "cuda",
            "    else if (ctx->datalen >= 56) {\n        ctx->data[k++] = 0x80;",
            "    else if (ctx->datalen >= 56) {\n        ctx->data[k++] = 0x00;",
        ),
        "CUDA: the last block's bytes left out of the length": (
            "cuda",
            "    ctx->bitlen += ctx->datalen * 8;\n",
            "",
        ),
    },
)


# -- SHA512-WebGPU: SHA-512 of one message of any number of bits, in u32 pairs ----------------


def _primes(count: int) -> list[int]:
    found: list[int] = []
    n = 2
    while len(found) < count:
        if all(n % p for p in found):
            found.append(n)
        n += 1
    return found


def _iroot(n: int, k: int) -> int:
    """The integer k-th root of n (floor)."""
    x = 1 << ((n.bit_length() + k - 1) // k)
    while True:
        y = ((k - 1) * x + n // x ** (k - 1)) // k
        if y >= x:
            return x
        x = y


#: FIPS 180-4's constants: 64 bits of the fractional parts of the cube roots of the first
#: 80 primes, and of the square roots of the first 8
_SHA512_K = [_iroot(p << 192, 3) & _M64 for p in _primes(80)]
_SHA512_H0 = [_iroot(p << 128, 2) & _M64 for p in _primes(8)]


def _pairs(values, per_line: int) -> str:
    return ",\n  ".join(
        ", ".join(
            f"u64_pair(0x{v >> 32:08x}u, 0x{v & _M32:08x}u)" for v in values[i : i + per_line]
        )
        for i in range(0, len(values), per_line)
    )


_SHA512_WGSL = (
    """
// kernel-forge corpus: Dcfgvy/SHA512-WebGPU's sha512.wgsl (read, not copied).
// SHA-512 of one message of input_size[0] bits, big-endian words; each 64-bit word a
// pair of u32.

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read> input_size: array<u32, 1>;  // in bits
@group(0) @binding(2) var<storage, read_write> result: array<u32, 16>;

struct u64_pair {
  high: u32,
  low: u32,
}

const SCHEDULE = 80u;

const K: array<u64_pair, 80> = array<u64_pair, 80>(
  """
    + _pairs(_SHA512_K, 4)
    + """,
);

fn not64(a: u64_pair) -> u64_pair { return u64_pair(~a.high, ~a.low); }
fn and64(a: u64_pair, b: u64_pair) -> u64_pair { return u64_pair(a.high & b.high, a.low & b.low); }
fn xor64(a: u64_pair, b: u64_pair) -> u64_pair { return u64_pair(a.high ^ b.high, a.low ^ b.low); }

// by 0 < n < 32 only; a turn by more is the other way by 64 - n
fn rotr64(x: u64_pair, n: u32) -> u64_pair {
  return u64_pair((x.high >> n) | (x.low << (32u - n)), (x.low >> n) | (x.high << (32u - n)));
}
fn rotl64(x: u64_pair, n: u32) -> u64_pair {
  return u64_pair((x.high << n) | (x.low >> (32u - n)), (x.low << n) | (x.high >> (32u - n)));
}
fn shr64(x: u64_pair, n: u32) -> u64_pair {
  return u64_pair(x.high >> n, (x.low >> n) | (x.high << (32u - n)));
}

fn ch(x: u64_pair, y: u64_pair, z: u64_pair) -> u64_pair { return xor64(and64(x, y), and64(not64(x), z)); }
fn maj(x: u64_pair, y: u64_pair, z: u64_pair) -> u64_pair { return xor64(xor64(and64(x, y), and64(x, z)), and64(y, z)); }

// FIPS 180-4 (4.10) to (4.13): turns by 34, 39 and 41 as left turns by 30, 25 and 23
fn big_sigma0(x: u64_pair) -> u64_pair { return xor64(xor64(rotr64(x, 28u), rotl64(x, 30u)), rotl64(x, 25u)); }
fn big_sigma1(x: u64_pair) -> u64_pair { return xor64(xor64(rotr64(x, 14u), rotr64(x, 18u)), rotl64(x, 23u)); }
fn small_sigma0(x: u64_pair) -> u64_pair { return xor64(xor64(rotr64(x, 1u), rotr64(x, 8u)), shr64(x, 7u)); }
fn small_sigma1(x: u64_pair) -> u64_pair { return xor64(xor64(rotr64(x, 19u), rotl64(x, 3u)), shr64(x, 6u)); }

// modulo 2^64: the low words' carry into the high ones
fn add64(a: u64_pair, b: u64_pair) -> u64_pair {
  let lo: u32 = a.low + b.low;
  let carry = u32(lo < a.low);
  let hi: u32 = a.high + b.high + carry;
  return u64_pair(hi, lo);
}

// the message word whose first bit is bit `first` of the padded message
fn padded_word(first: u32, bits: u32, words: u32) -> u32 {
  if (first >= bits) {
    // past the message: the 1 bit if it falls at the word's start
    return select(0u, 0x80000000u >> (bits - first), bits == first);
  }
  let at = first / 32u;
  if (at >= words) { return 0u; }
  if (first + 32u <= bits) {
    return input[at];
  }
  // the message ends inside this word: its bits kept, then the 1 bit
  let kept = bits - first;
  let mask = 0xFFFFFFFFu << (32u - kept);
  return (input[at] & mask) | (0x80000000u >> kept);
}

fn block_words(bits: u32, block: u32, blocks: u32, words: u32) -> array<u64_pair, SCHEDULE> {
  var w: array<u64_pair, SCHEDULE>;
  let start = block * 1024u;
  let last = (block == blocks - 1u);
  for (var i = 0u; i < 16u; i++) {
    var hi: u32;
    var lo: u32;
    if (last && i >= 14u) {
      // the length: 128 bits, of which only the lowest word can be nonzero
      hi = 0u;
      lo = select(bits, 0u, i == 14u);
    } else {
      let first = start + i * 64u;
      hi = padded_word(first, bits, words);
      lo = padded_word(first + 32u, bits, words);
    }
    w[i] = u64_pair(hi, lo);
  }
  return w;
}

@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
  let bits: u32 = input_size[0];
  let words: u32 = (bits + 31u) / 32u;
  // the blocks the message, its 1 bit and the 128-bit length take
  let blocks: u32 = (bits + 1152u) / 1024u;

  var h: array<u64_pair, 8> = array<u64_pair, 8>(
    """
    + _pairs(_SHA512_H0, 2).replace("\n  ", "\n    ")
    + """
  );

  for (var block: u32 = 0u; block < blocks; block++) {
    var w: array<u64_pair, SCHEDULE> = block_words(bits, block, blocks, words);
    for (var t: u32 = 16u; t < SCHEDULE; t++) {
      w[t] = add64(add64(add64(small_sigma1(w[t - 2]), w[t - 7]), small_sigma0(w[t - 15])), w[t - 16]);
    }

    var a = h[0];
    var b = h[1];
    var c = h[2];
    var d = h[3];
    var e = h[4];
    var f = h[5];
    var g = h[6];
    var hh = h[7];
    for (var t: u32 = 0u; t < SCHEDULE; t++) {
      let t1 = add64(add64(add64(add64(hh, big_sigma1(e)), ch(e, f, g)), K[t]), w[t]);
      let t2 = add64(big_sigma0(a), maj(a, b, c));
      hh = g;
      g = f;
      f = e;
      e = add64(d, t1);
      d = c;
      c = b;
      b = a;
      a = add64(t1, t2);
    }

    h[0] = add64(h[0], a);
    h[1] = add64(h[1], b);
    h[2] = add64(h[2], c);
    h[3] = add64(h[3], d);
    h[4] = add64(h[4], e);
    h[5] = add64(h[5], f);
    h[6] = add64(h[6], g);
    h[7] = add64(h[7], hh);
  }

  // the digest, each word high half first
  result = array<u32, 16>(
    h[0].high, h[0].low, h[1].high, h[1].low,
    h[2].high, h[2].low, h[3].high, h[3].low,
    h[4].high, h[4].low, h[5].high, h[5].low,
    h[6].high, h[6].low, h[7].high, h[7].low,
  );
}
"""
)


def _sha512_bits(words: np.ndarray, bits: int) -> bytes:
    """The message's first ``bits`` bits of big-endian ``words``, padded by FIPS 180-4
    (5.1.2): a 1 bit, zeros, the length in 128 bits; as bytes."""
    value = int.from_bytes(np.asarray(words, np.uint32).astype(">u4").tobytes(), "big")
    value >>= 32 * len(words) - bits
    blocks = (bits + 1 + 128 + 1023) // 1024
    total = blocks * 1024
    padded = (((value << 1) | 1) << (total - bits - 1)) | bits
    return padded.to_bytes(total // 8, "big")


def _sha512(padded: bytes) -> list[int]:
    """SHA-512's compression over the padded message: eight 64-bit words."""
    w64 = np.frombuffer(padded, ">u8").astype(np.uint64).reshape(-1, 16)

    def rotr(x, n):
        return (x >> np.uint64(n)) | (x << np.uint64(64 - n))

    k = np.array(_SHA512_K, np.uint64)
    h = np.array(_SHA512_H0, np.uint64)
    with np.errstate(over="ignore"):
        for block in w64:
            w = np.zeros(80, np.uint64)
            w[:16] = block
            for t in range(16, 80):
                s0 = rotr(w[t - 15], 1) ^ rotr(w[t - 15], 8) ^ (w[t - 15] >> np.uint64(7))
                s1 = rotr(w[t - 2], 19) ^ rotr(w[t - 2], 61) ^ (w[t - 2] >> np.uint64(6))
                w[t] = w[t - 16] + s0 + w[t - 7] + s1
            a, b, c, d, e, f, g, hh = h
            for t in range(80):
                t1 = (
                    hh
                    + (rotr(e, 14) ^ rotr(e, 18) ^ rotr(e, 41))
                    + ((e & f) ^ (~e & g))
                    + k[t]
                    + w[t]
                )
                t2 = (rotr(a, 28) ^ rotr(a, 34) ^ rotr(a, 39)) + ((a & b) ^ (a & c) ^ (b & c))
                a, b, c, d, e, f, g, hh = t1 + t2, a, b, c, d + t1, e, f, g
            h = h + np.array([a, b, c, d, e, f, g, hh], np.uint64)
    return [int(v) for v in h]


def _sha512_reference(input, input_size, result):
    digest = _sha512(_sha512_bits(input, int(input_size[0])))
    result[...] = np.array([half for v in digest for half in (v >> 32, v & _M32)], np.uint32)


SHA512 = Wild(
    KernelSpec(
        id="wild_r81_sha512_webgpu_u64_pairs",
        entry_point="main",
        sources={"wgsl": _SHA512_WGSL},
        buffers=(
            # the message's bits (the size) in big-endian words, the last one's bits past
            # it whatever they are: the kernel masks them
            BufferSpec(
                0,
                "u32",
                "read",
                name="input",
                count=lambda size: ceil_div(int(size), 32),
                fill=lambda rng, count, size: rng.integers(0, 2**32, count, dtype=np.uint64).astype(
                    np.uint32
                ),
            ),
            BufferSpec(
                1,
                "u32",
                "read",
                name="input_size",
                count=1,
                fill=lambda rng, count, size: np.array([int(size)], np.uint32),
            ),
            BufferSpec(2, "u32", "read_write", name="result", count=16),
        ),
        reference=_sha512_reference,
        grid=lambda s, size: (1, 1, 1),
        schedules=(Schedule(1),),
        # 1000 bits: a partial word, and too few left in the block for the length (two
        # blocks); 24: one; 2048: whole blocks, then one of padding alone
        test_sizes=(1000, 24, 2048),
    ),
    {
        "the carry dropped": (
            "wgsl",
            "let hi: u32 = a.high + b.high + carry;",
            "let hi: u32 = a.high + b.high;",
        ),
        "Sigma1's third turn by 22": (
            "wgsl",
            "rotr64(x, 18u)), rotl64(x, 23u)); }",
            "rotr64(x, 18u)), rotl64(x, 22u)); }",
        ),
        "the shift loses the high word's bits": (
            "wgsl",
            "return u64_pair(x.high >> n, (x.low >> n) | (x.high << (32u - n)));",
            "return u64_pair(x.high >> n, x.low >> n);",
        ),
        "the length in the word before": (
            "wgsl",
            "lo = select(bits, 0u, i == 14u);",
            "lo = select(0u, bits, i == 14u);",
        ),
        "a block short": (
            "wgsl",
            "let blocks: u32 = (bits + 1152u) / 1024u;",
            "let blocks: u32 = (bits + 1024u) / 1024u;",
        ),
        "the 1 bit a bit late": (
            "wgsl",
            "return (input[at] & mask) | (0x80000000u >> kept);",
            "return (input[at] & mask) | (0x80000000u >> (kept + 1u));",
        ),
    },
)


# -- jax-chacha-prng: a ChaCha20 block a CUDA block of four threads ------------------------------

_CHACHA_CUDA = r"""// kernel-forge corpus: DPBayes/jax-chacha-prng's gpu_kernel.cpp.cu (read, not copied).
#include <stdint.h>

typedef unsigned int uint;

constexpr uint ChaChaDoubleRoundCount = 10;
constexpr uint ChaChaStateSizeInBytes = 16;  // the project's name; it counts words

__device__ __inline__
uint32_t rotate_left(uint32_t value, uint num_bits)
{
    return (value << num_bits) ^ (value >> (32 - num_bits));
}

// one quarter round over the four words at `at`, from `src` into `dst` (either may be
// the shared state)
__device__
void quarterround(
    uint32_t dst[ChaChaStateSizeInBytes],
    const uint32_t src[ChaChaStateSizeInBytes],
    const uint at[4])
{
    uint32_t a = src[at[0]];
    uint32_t b = src[at[1]];
    uint32_t c = src[at[2]];
    uint32_t d = src[at[3]];

    a += b; d ^= a; d = rotate_left(d, 16);
    c += d; b ^= c; b = rotate_left(b, 12);
    a += b; d ^= a; d = rotate_left(d, 8);
    c += d; b ^= c; b = rotate_left(b, 7);

    dst[at[0]] = a;
    dst[at[1]] = b;
    dst[at[2]] = c;
    dst[at[3]] = d;
}

// row i's word on diagonal `diagonal` of the 4 x 4 state
__device__ __inline__
uint get_diagonal_index(uint i, uint diagonal)
{
    return i * 4 + (i + diagonal) % 4;
}

// four threads a state: each its column, then its diagonal, a barrier after each
__device__
void double_round(uint32_t dst[ChaChaStateSizeInBytes], const uint32_t src[ChaChaStateSizeInBytes])
{
    uint lane = threadIdx.x;

    uint column[4] = { 0 + lane, 4 + lane, 8 + lane, 12 + lane };
    quarterround(dst, src, column);
    __syncthreads();

    uint diagonal[4] = {
        get_diagonal_index(0, lane),
        get_diagonal_index(1, lane),
        get_diagonal_index(2, lane),
        get_diagonal_index(3, lane)
    };
    quarterround(dst, dst, diagonal);
    __syncthreads();
}

// out = x + y word by word, each thread its column of the row-major state
__device__
void add_states(
    uint32_t out[ChaChaStateSizeInBytes],
    const uint32_t x[ChaChaStateSizeInBytes],
    const uint32_t y[ChaChaStateSizeInBytes])
{
    int lane = threadIdx.x;
    for (int row = 0; row < 4; ++row)
    {
        int at = 4 * row + lane;
        out[at] = x[at] + y[at];
    }
}

// a block of 4 threads a state: ten double rounds in shared memory, then the input added
__global__
void chacha20_block(uint32_t* out_state, const uint32_t* in_state)
{
    uint offset = blockIdx.x * ChaChaStateSizeInBytes;

    __shared__ uint32_t tmp_state[16];
    double_round(tmp_state, in_state + offset);
    for (uint round = 0; round < ChaChaDoubleRoundCount - 1; ++round)
    {
        double_round(tmp_state, tmp_state);
    }
    add_states(out_state + offset, in_state + offset, tmp_state);
}
"""

_CHACHA_WGSL = """
// The port: a workgroup of four invocations a state, the state between the rounds in
// workgroup memory, the barriers where the CUDA kernel has them.
@group(0) @binding(0) var<storage, read_write> out_state : array<u32>;
@group(0) @binding(1) var<storage, read> in_state : array<u32>;

const DOUBLE_ROUNDS = 10u;

var<workgroup> tmp_state : array<u32, 16>;

fn rotate_left(value : u32, bits : u32) -> u32 {
  return (value << bits) ^ (value >> (32u - bits));
}

// the quarter round over the words at `at` of the shared state; the first reads the
// input state at `offset` instead
fn quarterround(at : vec4u, from_input : bool, offset : u32) {
  var q : vec4u;
  for (var k = 0u; k < 4u; k++) {
    q[k] = select(tmp_state[at[k]], in_state[offset + at[k]], from_input);
  }
  q.x += q.y; q.w ^= q.x; q.w = rotate_left(q.w, 16u);
  q.z += q.w; q.y ^= q.z; q.y = rotate_left(q.y, 12u);
  q.x += q.y; q.w ^= q.x; q.w = rotate_left(q.w, 8u);
  q.z += q.w; q.y ^= q.z; q.y = rotate_left(q.y, 7u);
  for (var k = 0u; k < 4u; k++) {
    tmp_state[at[k]] = q[k];
  }
}

fn get_diagonal_index(i : u32, diagonal : u32) -> u32 {
  return i * 4u + (i + diagonal) % 4u;
}

@compute @workgroup_size(4)
fn chacha20_block(@builtin(workgroup_id) wg : vec3u, @builtin(local_invocation_id) lid : vec3u) {
  let lane = lid.x;
  let offset = wg.x * 16u;
  for (var round = 0u; round < DOUBLE_ROUNDS; round++) {
    quarterround(vec4u(0u, 4u, 8u, 12u) + lane, round == 0u, offset);
    workgroupBarrier();
    let diagonal = vec4u(
      get_diagonal_index(0u, lane),
      get_diagonal_index(1u, lane),
      get_diagonal_index(2u, lane),
      get_diagonal_index(3u, lane));
    quarterround(diagonal, false, offset);
    workgroupBarrier();
  }
  for (var row = 0u; row < 4u; row++) {
    let at = 4u * row + lane;
    out_state[offset + at] = in_state[offset + at] + tmp_state[at];
  }
}
"""

#: "expand 32-byte k", ChaCha's first row
_CHACHA_SIGMA = np.frombuffer(b"expand 32-byte k", "<u4")


def _chacha_states(rng, count, size):
    """The input states as a keystream asks for them: the constants, one random key,
    the block counter counting up from a random start (its low word wrapping within
    the states, the high word of a 64-bit counter in word 13 carrying: the original
    ChaCha's layout) and one nonce."""
    n = int(size)
    key = rng.integers(0, 2**32, 8, dtype=np.uint64).astype(np.uint32)
    nonce = rng.integers(0, 2**32, 2, dtype=np.uint64).astype(np.uint32)
    start = (1 << 32) - n // 2  # the low word wraps halfway through
    counter = np.arange(start, start + n, dtype=np.uint64)
    states = np.empty((n, 16), np.uint32)
    states[:, :4] = _CHACHA_SIGMA
    states[:, 4:12] = key
    states[:, 12] = (counter & _M32).astype(np.uint32)
    states[:, 13] = (counter >> np.uint64(32)).astype(np.uint32)
    states[:, 14:] = nonce
    return states.reshape(-1)


def _chacha20_blocks(states: np.ndarray) -> np.ndarray:
    """ChaCha20's block function (RFC 7539, 2.3) of each row of ``states`` (16 words):
    ten column-and-diagonal double rounds, then the input added."""
    x = np.asarray(states, np.uint32).reshape(-1, 16).copy()
    x0 = x.copy()

    def rotl(v, n):
        return (v << np.uint32(n)) | (v >> np.uint32(32 - n))

    def quarter(a, b, c, d):
        x[:, a] += x[:, b]
        x[:, d] = rotl(x[:, d] ^ x[:, a], 16)
        x[:, c] += x[:, d]
        x[:, b] = rotl(x[:, b] ^ x[:, c], 12)
        x[:, a] += x[:, b]
        x[:, d] = rotl(x[:, d] ^ x[:, a], 8)
        x[:, c] += x[:, d]
        x[:, b] = rotl(x[:, b] ^ x[:, c], 7)

    with np.errstate(over="ignore"):
        for _ in range(10):
            for col in range(4):
                quarter(col, col + 4, col + 8, col + 12)
            for diag in range(4):
                quarter(diag, 4 + (diag + 1) % 4, 8 + (diag + 2) % 4, 12 + (diag + 3) % 4)
        return x + x0


def _chacha_reference(out_state, in_state):
    out_state[...] = _chacha20_blocks(in_state).reshape(out_state.shape)


CHACHA = Wild(
    KernelSpec(
        id="wild_r81_jax_chacha_prng_block_four_threads",
        entry_point="chacha20_block",
        sources={"cuda": _CHACHA_CUDA, "wgsl": _CHACHA_WGSL},
        buffers=(
            BufferSpec(0, "u32", "read_write", name="out_state", count=lambda n: 16 * int(n)),
            BufferSpec(
                1, "u32", "read", name="in_state", count=lambda n: 16 * int(n), fill=_chacha_states
            ),
        ),
        reference=_chacha_reference,
        # the host's chacha20_block<<<num_states, 4>>>
        grid=lambda s, n: (int(n), 1, 1),
        schedules=(Schedule(4),),
        test_sizes=(67, 1, 4),
    ),
    {
        "the second turn by 13": (
            "wgsl",
            "q.y = rotate_left(q.y, 12u);",
            "q.y = rotate_left(q.y, 13u);",
        ),
        "the diagonal the other way": (
            "wgsl",
            "return i * 4u + (i + diagonal) % 4u;",
            "return i * 4u + (4u + diagonal - i) % 4u;",
        ),
        "nine double rounds": (
            "wgsl",
            "const DOUBLE_ROUNDS = 10u;",
            "const DOUBLE_ROUNDS = 9u;",
        ),
        "the input xored, not added": (
            "wgsl",
            "in_state[offset + at] + tmp_state[at];",
            "in_state[offset + at] ^ tmp_state[at];",
        ),
        "CUDA: the input state not offset for the addition (upstream's bug, fixed in 6c20635)": (
            "cuda",
            "add_states(out_state + offset, in_state + offset, tmp_state);",
            "add_states(out_state + offset, in_state, tmp_state);",
        ),
        "CUDA: the barrier between the columns and the diagonals dropped": (
            "cuda",
            "    quarterround(dst, src, column);\n    __syncthreads();\n",
            "    quarterround(dst, src, column);\n",
        ),
    },
)


ROUND81: dict[str, Wild] = {wild.kernel.id: wild for wild in (KECCAK, MD5, SHA512, CHACHA)}

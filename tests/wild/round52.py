"""Round 52 of kernels from the wild, merged into ``tests.wild.CORPUS``: CUDA as Python
and C++ users write it, in regimes the corpus lacked, each with a WebGPU port: an
inline counter-based PRNG judged bit for bit, a GPU hash table judged as the set of
its key/value pairs, a multiresolution hash-grid encoding, a CuPy ``RawKernel`` with a
grid-stride loop over a grid of fixed size, a single-pass scan whose blocks wait on
each other through flags, and a 32-bit hash of wide keys with rotations.

Each is written for this corpus after the public source named below (read, not
copied: the project's rule for public code). What is theirs is kept: the
``__global__`` functions' names, parameters (names, types, order) and device helpers,
the constants, the block sizes and launch geometry, and the numerics (the order of
every float operation, the integer wrap-arounds, the rounds). What is ours: the
comments, the locals' names where the source's say nothing, the order of equivalent
statements, the formatting, the test harness around a device function (said where it
is), and the WebGPU ports.

- Flash-attention's inline Philox (Dao-AILab/flash-attention at d9cbcfb4,
  BSD-3-Clause, ``csrc/flash_attn/src/philox.cuh``): ``mulhilo32`` by inline PTX
  (``mul.wide.u32``, the 64-bit product read back as a ``uint2``),
  ``philox_single_round`` with its ``unsigned long`` constants, and ``philox(seed,
  subsequence, offset)``: the seed's two words are the key, the counter is the
  offset's two words then the subsequence's (through a ``ull2`` over the ``uint4``),
  six rounds with the key bumped after each and a seventh without (Philox4x32-7, not
  Random123's ten: what flash-attention draws). The harness is ours, after the way its
  dropout reads the draw (``csrc/flash_attn/src/dropout.h``): one draw a thread (the
  subsequence its index), its four words stored, and its 16 bytes keeping 16
  elements where a byte is at most ``p_dropout_in_uint8_t``, scaled by ``rp_dropout``.
  WGSL has no u64: the port takes the seed and the offset as ``vec2<u32>`` (low word
  first) and forms the 64-bit product's high word from 16-bit halves.
- SimpleGPUHashTable's insert (nosferalatu/SimpleGPUHashTable at 333ce8c8, BSD-3-Clause,
  ``src/linearprobing.cu``; round 22 ported a later form of it to WGSL and judged its
  lookups): ``struct KeyValue { key, value }``, murmur3's 32-bit finaliser masked to
  ``kHashTableCapacity``, ``atomicCAS(&hashtable[slot].key, 0, key)`` (0 is the empty
  key: the table is zeroed with ``cudaMemset``), the value stored where the key was
  claimed or found, the probe ``(slot + 1) & (capacity - 1)``. The capacity is a
  constant there (``linearprobing.h``); here the smallest power of two at least twice
  the pairs. Which slot a key takes depends on the order the inserts ran, so the
  table is judged as the host's ``iterate_hashtable`` reads it: a multiset of
  (key, value) rows, declared ``unordered`` with the shape (capacity, 2). Repeated
  keys carry one value each (a repeated key keeps whichever store came last).
- torch-ngp's hash-grid encoding, forward with the input gradient (ashawkey/torch-ngp at
  213b0b7e, MIT, ``gridencoder/src/gridencoder.cu``, after instant-ngp's): ``kernel_grid<float,
  3, 2>``, one thread a point and a level (grid (B / 512, L)), ``fast_hash`` with the primes
  1, 2654435761 and 805459861, ``get_grid_index`` (dense while the level's stride fits,
  its loop bounded by ``stride <= hashmap_size``, else the hash; then ``% hashmap_size``),
  ``scale = exp2f(level * S) * H - 1``, ``pos = x * scale + 0.5``, the trilinear weights as
  products in dimension order, points outside [0, 1] given zeros. The levels (4, base 16,
  per-level scale 2, 2**13 entries, sizes rounded up to 8) follow ``gridencoder/grid.py``'s
  offsets; level 0 is dense, the others hashed. The port: a workgroup of 256 (WebGPU's
  default limit, where the CUDA block is 512), the gradient's switch an ``override``.
- cuSignal's Lomb-Scargle periodogram as a CuPy ``RawKernel`` (rapidsai/cusignal at
  0665e44b, Apache-2.0, ``python/cusignal/spectral_analysis/_spectral_cuda.py``): a
  ``string.Template`` whose ``${datatype}`` is filled with ``float``, an ``extern "C"``
  block, C++ brace initialisers, a grid-stride loop launched as ``kernel(grid, block,
  args)`` with ``threadsperblock = 256`` and ``blockspergrid = numSM * 20`` whatever the
  size (here 2 blocks, so that 700 frequencies go round the loop: CI time),
  ``y_dot[0] == 0`` taken as "not normalised" (the host's ``y_dot`` is 0 here where the
  count of frequencies is odd, so that the two test sizes take both branches), and every
  sum and product in the source's order.
- A domino-style single-pass scan (ryan-story/pmpp at 44411c27, no licence file in the copy
  read, ``chapter-11/code/hierarchical_scan.cu``'s
  ``hierarchical_kogge_stone_domino``, after Programming Massively Parallel Processors'
  stream-based scan): section numbers from ``atomicAdd(blockCounter, 1)`` in the order
  blocks start (so a block waits only on one that runs), a Kogge-Stone scan in
  ``extern __shared__`` memory, thread 0 spinning on ``atomicAdd(&flags[bid], 0)``,
  then reading the previous running sum with a plain load, storing its own,
  ``__threadfence()`` and ``atomicAdd(&flags[bid + 1], 1)``. One change, marked in the
  source: a ``__syncthreads()`` before thread 0 reads the section's sum, which the source
  reads right after the scan's last write by another warp (a race; the mutant that
  drops it is the source as written). The source's section is 1024 threads; here 256
  on both targets (WebGPU's limit), so that the flags are the same array. The port
  folds the flag into the published word (WGSL has no fence between workgroups and
  relaxed atomics only), still bumping the flags after it. The flags and the ticket
  counter are judged (each section signalled once); the running sums are scratch.
  Without the added barrier the port passed on lavapipe and on SwiftShader (each ran
  the last invocation's write before invocation 0 read it), so that WGSL mutant is left
  out; the CUDA one is a race for compute-sanitizer on the GPU (``Wild.races``), and the
  CUDA mutant without ``__threadfence()`` is declared invisible in the values. Kept as
  the source has it, for the GPU run to watch: the previous sum is read with a plain
  load after the spin (no ``volatile``, no fence on the reader's side), which an SM that
  had cached that line for an earlier section could serve stale; at 10 sections on a
  GPU of 132 SMs no SM runs two.
- cuCollections' ``XXHash_32`` (NVIDIA/cuCollections at 00e5b54e, Apache-2.0, after
  Yann Collet's xxHash, BSD-2-Clause; ``include/cuco/detail/hash_functions/xxhash.cuh``):
  ``sizeof(Key)`` decides at compile time which phases run (``if constexpr``), 16-byte
  stripes into four lanes (``rotl`` by 13), the lanes merged by rotations of 1, 7, 12
  and 18, the length added, the rest a word at a time (``rotl`` by 17), bytes never here,
  and the avalanche; the key read through ``reinterpret_cast`` to words (the source's
  own TODO asks about alignment: a key of no multiple of 4 bytes in an array would be
  read misaligned). The harness is ours: a 20-byte key of five u32 columns, one thread
  a key, a seed by value. The port unrolls what ``sizeof`` decides.

What they showed is pinned in tests/test_wild_round52.py and summed up there: two false
passes fixed (a hash table's key and value swapped, judged as scalars; a scan's last
element dropped, swallowed by the rounding of the large block's running total). Left
out as mutants, since the table is judged as a set: a probe stepping by 2 and a home
slot taken modulo capacity - 1, which build another table of the same pairs (a lookup
that probes as the insert did finds them all; round 22 judges the lookups).
"""

# ruff: noqa: E501  (long lines of CUDA and WGSL, and the mutants')

from __future__ import annotations

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import Wild

_M32 = np.uint64(0xFFFFFFFF)

# -- 1. flash-attention: Philox4x32-7 inline, and its dropout bytes -----------------------

_PHILOX_CUDA = r"""// kernel-forge corpus: flash-attention's inline Philox (read, not copied), in a dropout harness.
#include <cstdint>

namespace flash {

struct ull2 {
    unsigned long long x;
    unsigned long long y;
};

// a * b in 64 bits, read back as (low word, high word)
inline __device__ uint2 mulhilo32(const unsigned int a, const unsigned int b) {
    unsigned long long wide;
    asm("mul.wide.u32 %0, %1, %2;\n\t" : "=l"(wide) : "r"(a), "r"(b));
    return *reinterpret_cast<uint2 *>(&wide);
}

inline __device__ uint4 philox_single_round(const uint4 ctr, const uint2 key) {
    constexpr unsigned long kPhiloxSA = 0xD2511F53;
    constexpr unsigned long kPhiloxSB = 0xCD9E8D57;
    const uint2 prod0 = mulhilo32(kPhiloxSA, ctr.x);
    const uint2 prod1 = mulhilo32(kPhiloxSB, ctr.z);
    uint4 next = {prod1.y ^ ctr.y ^ key.x, prod1.x, prod0.y ^ ctr.w ^ key.y, prod0.x};
    return next;
}

inline __device__ uint4 philox(unsigned long long seed, unsigned long long subsequence,
                               unsigned long long offset) {
    constexpr unsigned long kPhilox10A = 0x9E3779B9;
    constexpr unsigned long kPhilox10B = 0xBB67AE85;
    uint2 key = reinterpret_cast<uint2 &>(seed);
    uint4 counter;
    ull2 *halves = reinterpret_cast<ull2 *>(&counter);  // (offset, subsequence) as four words
    halves->x = offset;
    halves->y = subsequence;
#pragma unroll
    for (int round = 0; round < 6; round++) {
        counter = philox_single_round(counter, key);
        key.x += (kPhilox10A);
        key.y += (kPhilox10B);
    }
    return philox_single_round(counter, key);  // the seventh: no bump after it
}

}  // namespace flash

// one draw a thread, its subsequence the thread's index: the four words kept, and
// each of its 16 bytes keeping one element of x where it is at most the threshold
extern "C" __global__ void philox_dropout(const float *__restrict__ x, float *__restrict__ y,
                                          uint32_t *__restrict__ rnd, unsigned long long seed,
                                          unsigned long long offset, uint32_t n_threads,
                                          uint32_t p_dropout_in_uint8_t, float rp_dropout) {
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n_threads) {
        return;
    }
    const uint4 draw = flash::philox(seed, t, offset);
    reinterpret_cast<uint4 *>(rnd)[t] = draw;
    const uint8_t *rnd_8 = reinterpret_cast<const uint8_t *>(&draw);
#pragma unroll
    for (int j = 0; j < 16; j++) {
        const float v = x[16 * t + j];
        y[16 * t + j] = rnd_8[j] <= p_dropout_in_uint8_t ? v * rp_dropout : 0.0f;
    }
}
"""

# The port: WGSL has no u64, so the seed and the offset arrive as vec2<u32> (low word
# first), and mulhilo32's high word is summed from 16-bit halves.
_PHILOX_WGSL = """
struct Params {
    seed: vec2<u32>,
    offset: vec2<u32>,
    n_threads: u32,
    p_dropout_in_uint8_t: u32,
    rp_dropout: f32,
}
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<storage, read_write> rnd: array<u32>;
@group(0) @binding(3) var<uniform> p: Params;

const kPhiloxSA = 0xD2511F53u;
const kPhiloxSB = 0xCD9E8D57u;
const kPhilox10A = 0x9E3779B9u;
const kPhilox10B = 0xBB67AE85u;

// (low, high) words of a * b: the low word wraps, the high one from 16-bit columns
fn mulhilo32(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let middle = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    let high = a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (middle >> 16u);
    return vec2<u32>(a * b, high);
}

fn philox_single_round(ctr: vec4<u32>, key: vec2<u32>) -> vec4<u32> {
    let prod0 = mulhilo32(kPhiloxSA, ctr.x);
    let prod1 = mulhilo32(kPhiloxSB, ctr.z);
    return vec4<u32>(prod1.y ^ ctr.y ^ key.x, prod1.x, prod0.y ^ ctr.w ^ key.y, prod0.x);
}

fn philox(seed: vec2<u32>, subsequence: u32, offset: vec2<u32>) -> vec4<u32> {
    var key = seed;
    var counter = vec4<u32>(offset.x, offset.y, subsequence, 0u);
    for (var i = 0; i < 6; i++) {
        counter = philox_single_round(counter, key);
        key.x += kPhilox10A;
        key.y += kPhilox10B;
    }
    return philox_single_round(counter, key);
}

@compute @workgroup_size(256)
fn philox_dropout(@builtin(global_invocation_id) gid: vec3<u32>) {
    let t = gid.x;
    if (t >= p.n_threads) {
        return;
    }
    let draw = philox(p.seed, t, p.offset);
    for (var w = 0u; w < 4u; w++) {
        rnd[4u * t + w] = draw[w];
    }
    for (var j = 0u; j < 16u; j++) {
        let rnd_8 = (draw[j / 4u] >> (8u * (j % 4u))) & 0xffu;
        let v = x[16u * t + j];
        y[16u * t + j] = select(0.0, v * p.rp_dropout, rnd_8 <= p.p_dropout_in_uint8_t);
    }
}
"""


def philox4x32(seed: int, subsequence: np.ndarray, offset: int, rounds: int = 7) -> np.ndarray:
    """Philox4x32 with ``rounds`` rounds (the key bumped between rounds, not after the
    last), the counter (offset's low and high words, the subsequence's), as four u32
    words a draw: flash-attention's with 7, Random123's with 10."""
    sub = np.asarray(subsequence, np.uint64)
    c0 = np.full(sub.shape, offset & 0xFFFFFFFF, np.uint64)
    c1 = np.full(sub.shape, (offset >> 32) & 0xFFFFFFFF, np.uint64)
    c2, c3 = sub & _M32, sub >> np.uint64(32)
    k0, k1 = np.uint64(seed & 0xFFFFFFFF), np.uint64((seed >> 32) & 0xFFFFFFFF)
    for r in range(rounds):
        p0 = np.uint64(0xD2511F53) * c0
        p1 = np.uint64(0xCD9E8D57) * c2
        c0, c1, c2, c3 = (
            (p1 >> np.uint64(32)) ^ c1 ^ k0,
            p1 & _M32,
            (p0 >> np.uint64(32)) ^ c3 ^ k1,
            p0 & _M32,
        )
        if r + 1 < rounds:
            k0 = (k0 + np.uint64(0x9E3779B9)) & _M32
            k1 = (k1 + np.uint64(0xBB67AE85)) & _M32
    return np.stack([c0, c1, c2, c3], axis=-1).astype(np.uint32)


def _philox_reference(x, y, rnd, seed, offset, n_threads, p_dropout_in_uint8_t, rp_dropout):
    draws = philox4x32(int(seed), np.arange(int(n_threads)), int(offset))
    keep = draws.view(np.uint8).reshape(-1) <= int(p_dropout_in_uint8_t)
    kept = x * np.float32(rp_dropout)
    return {"y": np.where(keep, kept, np.float32(0.0)), "rnd": draws.reshape(-1)}


_KEEP = 0.9

PHILOX = Wild(
    KernelSpec(
        id="wild_r52_flash_attention_philox_dropout",
        entry_point="philox_dropout",
        sources={"cuda": _PHILOX_CUDA, "wgsl": _PHILOX_WGSL},
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="16*n"),
            BufferSpec(1, "f32", "read_write", name="y", count="16*n"),
            BufferSpec(2, "u32", "read_write", name="rnd", count="4*n"),
            BufferSpec.uniform(
                3,
                (
                    ("seed", "u64"),
                    ("offset", "u64"),
                    ("n_threads", "u32"),
                    ("p_dropout_in_uint8_t", "u32"),
                    ("rp_dropout", "f32"),
                ),
                name="p",
            ),
        ),
        reference=_philox_reference,
        params=lambda n: {"n_threads": int(n)},
        # both words of the seed and of the offset in use; flash-attention's threshold
        # for a keep probability p is floor(p * 255) and its scale 1 / p
        defaults={
            "seed": 0xDEADBEEF0000002A,
            "offset": 0x0000000300000010,
            "p_dropout_in_uint8_t": int(np.floor(_KEEP * 255.0)),
            "rp_dropout": float(np.float32(1.0 / _KEEP)),
        },
        grid=lambda s, n: (ceil_div(int(n), 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=(1000,),
    ),
    {
        "CUDA: the counter's halves swapped": (
            "cuda",
            "halves->x = offset;\n    halves->y = subsequence;",
            "halves->x = subsequence;\n    halves->y = offset;",
        ),
        "CUDA: five rounds and the last": (
            "cuda",
            "round < 6; round++",
            "round < 5; round++",
        ),
        "CUDA: the product's words swapped": (
            "cuda",
            "{prod1.y ^ ctr.y ^ key.x, prod1.x, prod0.y ^ ctr.w ^ key.y, prod0.x}",
            "{prod1.x ^ ctr.y ^ key.x, prod1.y, prod0.x ^ ctr.w ^ key.y, prod0.y}",
        ),
        "CUDA: kept only below the threshold": (
            "cuda",
            "rnd_8[j] <= p_dropout_in_uint8_t",
            "rnd_8[j] < p_dropout_in_uint8_t",
        ),
        "the middle column's carry dropped": (
            "wgsl",
            "let high = a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (middle >> 16u);",
            "let high = a1 * b1 + (p01 >> 16u) + (p10 >> 16u);",
        ),
        "five rounds and the last": ("wgsl", "i < 6; i++", "i < 5; i++"),
        "the second key word bumped by a misspelt constant": (
            "wgsl",
            "const kPhilox10B = 0xBB67AE85u;",
            "const kPhilox10B = 0xBB67AE58u;",
        ),
        "kept only below the threshold": (
            "wgsl",
            "rnd_8 <= p.p_dropout_in_uint8_t",
            "rnd_8 < p.p_dropout_in_uint8_t",
        ),
    },
)

# -- 2. SimpleGPUHashTable: insert by atomicCAS and linear probing -----------------------

_HASH_INSERT_CUDA = r"""// kernel-forge corpus: SimpleGPUHashTable's insert (read, not copied).
#include <cstdint>

struct KeyValue {
    uint32_t key;
    uint32_t value;
};

const uint32_t kHashTableCapacity = {{CAPACITY}};  // a power of two

// murmur3's 32-bit finaliser, masked to the table
__device__ uint32_t hash(uint32_t k) {
    k ^= k >> 16;
    k *= 0x85ebca6b;
    k ^= k >> 13;
    k *= 0xc2b2ae35;
    k ^= k >> 16;
    return k & (kHashTableCapacity - 1);
}

// each thread inserts one pair: claim the first empty slot from the key's own (0 is
// the empty key), or find the key already there, and store the value in that slot
__global__ void gpu_hashtable_insert(KeyValue *hashtable, const KeyValue *kvs, unsigned int numkvs) {
    unsigned int threadid = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadid < numkvs) {
        uint32_t key = kvs[threadid].key;
        uint32_t value = kvs[threadid].value;
        uint32_t slot = hash(key);

        while (true) {
            uint32_t prev = atomicCAS(&hashtable[slot].key, 0, key);
            if (prev == 0 || prev == key) {
                hashtable[slot].value = value;
                break;
            }
            slot = (slot + 1) & (kHashTableCapacity - 1);
        }
    }
}
"""

# The port: the table's key is an atomic in a struct; a weak exchange may fail on an
# empty slot without another key in it, which is tried again rather than passed.
_HASH_INSERT_WGSL = """
struct KeyValue {
    key: u32,
    value: u32,
}
struct Slot {
    key: atomic<u32>,
    value: u32,
}
struct Params {
    numkvs: u32,
}
@group(0) @binding(0) var<storage, read_write> hashtable: array<Slot>;
@group(0) @binding(1) var<storage, read> kvs: array<KeyValue>;
@group(0) @binding(2) var<uniform> p: Params;

const kHashTableCapacity = {{CAPACITY}}u;

fn hash(key: u32) -> u32 {
    var k = key;
    k ^= k >> 16u;
    k *= 0x85ebca6bu;
    k ^= k >> 13u;
    k *= 0xc2b2ae35u;
    k ^= k >> 16u;
    return k & (kHashTableCapacity - 1u);
}

@compute @workgroup_size(256)
fn gpu_hashtable_insert(@builtin(global_invocation_id) gid: vec3<u32>) {
    let threadid = gid.x;
    if (threadid < p.numkvs) {
        let key = kvs[threadid].key;
        let value = kvs[threadid].value;
        var slot = hash(key);
        loop {
            let prev = atomicCompareExchangeWeak(&hashtable[slot].key, 0u, key);
            if (prev.exchanged || prev.old_value == key) {
                hashtable[slot].value = value;
                break;
            }
            if (prev.old_value != 0u) {
                slot = (slot + 1u) & (kHashTableCapacity - 1u);
            }
        }
    }
}
"""


def _capacity(n) -> int:
    """The table's slots: the smallest power of two at least twice the pairs (16 or
    more), so that it is at most half full."""
    return max(16, 1 << (2 * int(n) - 1).bit_length())


def _murmur_slots(keys: np.ndarray, capacity: int) -> np.ndarray:
    k = keys.astype(np.uint64)
    k ^= k >> np.uint64(16)
    k = (k * np.uint64(0x85EBCA6B)) & _M32
    k ^= k >> np.uint64(13)
    k = (k * np.uint64(0xC2B2AE35)) & _M32
    k ^= k >> np.uint64(16)
    return (k & np.uint64(capacity - 1)).astype(np.int64)


def _key_values(rng, count, size):
    """(key, value) pairs: keys from 1 to 2n, some repeated, never 0 (the empty key);
    each key's value a function of it, so that a repeated key stores one value
    whichever insert comes last."""
    n = int(size)
    keys = rng.integers(1, 2 * n + 1, n, dtype=np.uint64)
    values = (keys * np.uint64(0x9E3779B1) + np.uint64(7)) & _M32
    values[values == 0] = 1
    return np.stack([keys, values], axis=1).astype(np.uint32).reshape(-1)


def _hash_table_reference(hashtable, kvs):
    """The table the inserts make run one after another: which slot each key takes
    is one of the orders a device may run them in, judged as a multiset of rows."""
    capacity = hashtable.shape[0]
    pairs = kvs.reshape(-1, 2)
    keys = [0] * capacity
    values = [0] * capacity
    slots = _murmur_slots(pairs[:, 0], capacity).tolist()
    for (key, value), slot in zip(pairs.tolist(), slots):
        while keys[slot] not in (0, key):
            slot = (slot + 1) & (capacity - 1)
        keys[slot], values[slot] = key, value
    return np.stack([keys, values], axis=1).astype(np.uint32)


HASH_INSERT = Wild(
    KernelSpec(
        id="wild_r52_simple_gpu_hash_table_insert_pairs",
        entry_point="gpu_hashtable_insert",
        sources={"cuda": _HASH_INSERT_CUDA, "wgsl": _HASH_INSERT_WGSL},
        buffers=(
            BufferSpec(
                0,
                "u32",
                "read_write",
                name="hashtable",
                count=lambda n: 2 * _capacity(n),
                shape=lambda n: (_capacity(n), 2),
                initial=0,
                unordered=True,
            ),
            BufferSpec(1, "u32", "read", name="kvs", count="2*n", shape=("n", 2), fill=_key_values),
            BufferSpec.uniform(2, (("numkvs", "u32"),), name="p"),
        ),
        reference=_hash_table_reference,
        params=lambda n: {"numkvs": int(n)},
        constants={"CAPACITY": lambda s, n: _capacity(n)},
        # the host asks cudaOccupancyMaxPotentialBlockSize; 256 here, on both targets
        grid=lambda s, n: (ceil_div(int(n), 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=(1000,),
    ),
    {
        "CUDA: key and value swapped": (
            "cuda",
            "uint32_t key = kvs[threadid].key;\n        uint32_t value = kvs[threadid].value;",
            "uint32_t key = kvs[threadid].value;\n        uint32_t value = kvs[threadid].key;",
        ),
        "CUDA: a repeated key inserted again": (
            "cuda",
            "if (prev == 0 || prev == key) {",
            "if (prev == 0) {",
        ),
        "CUDA: the value stored in the key's own slot": (
            "cuda",
            "hashtable[slot].value = value;",
            "hashtable[hash(key)].value = value;",
        ),
        "key and value swapped": (
            "wgsl",
            "let key = kvs[threadid].key;\n        let value = kvs[threadid].value;",
            "let key = kvs[threadid].value;\n        let value = kvs[threadid].key;",
        ),
        "a repeated key inserted again": (
            "wgsl",
            "if (prev.exchanged || prev.old_value == key) {",
            "if (prev.exchanged) {",
        ),
        "the value stored in the key's own slot": (
            "wgsl",
            "hashtable[slot].value = value;",
            "hashtable[hash(key)].value = value;",
        ),
    },
)

# -- 3. torch-ngp: the multiresolution hash-grid encoding, forward and input gradient ------

_GRID_CUDA = r"""// kernel-forge corpus: torch-ngp's hash-grid encoding (read, not copied).
#include <cstdint>

template <uint32_t D>
__device__ uint32_t fast_hash(const uint32_t pos_grid[D]) {
    static_assert(D <= 7, "fast_hash can only hash up to 7 dimensions.");
    // 1 is no prime, but it keeps neighbouring x in neighbouring slots
    constexpr uint32_t primes[7] = {1, 2654435761, 805459861, 3674653429, 2097192037, 1434869437, 2165219737};
    uint32_t result = 0;
#pragma unroll
    for (uint32_t i = 0; i < D; ++i) {
        result ^= pos_grid[i] * primes[i];
    }
    return result;
}

// a corner's slot: dense while the level's grid fits its table, else hashed
template <uint32_t D, uint32_t C>
__device__ uint32_t get_grid_index(const uint32_t gridtype, const uint32_t ch, const uint32_t hashmap_size,
                                   const uint32_t resolution, const uint32_t pos_grid[D]) {
    uint32_t stride = 1;
    uint32_t index = 0;
#pragma unroll
    for (uint32_t d = 0; d < D && stride <= hashmap_size; d++) {
        index += pos_grid[d] * stride;
        stride *= (resolution + 1);
    }
    if (gridtype == 0 && stride > hashmap_size) {  // 0: hash, 1: tiled
        index = fast_hash<D>(pos_grid);
    }
    return (index % hashmap_size) * C + ch;
}

// one thread a point (x) and a level (y): the trilinear blend of the cell's corners,
// and where asked, the blend's derivative along each input dimension
template <typename scalar_t, uint32_t D, uint32_t C>
__global__ void kernel_grid(const scalar_t *__restrict__ inputs, const scalar_t *__restrict__ grid,
                            const int *__restrict__ offsets, scalar_t *__restrict__ outputs, const uint32_t B,
                            const uint32_t L, const float S, const uint32_t H, const bool calc_grad_inputs,
                            scalar_t *__restrict__ dy_dx, const uint32_t gridtype) {
    const uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= B) return;
    const uint32_t level = blockIdx.y;

    grid += (uint32_t)offsets[level] * C;
    inputs += b * D;
    outputs += level * B * C + b * C;

    // a point outside [0, 1] encodes as zeros
    bool flag_oob = false;
#pragma unroll
    for (uint32_t d = 0; d < D; d++) {
        if (inputs[d] < 0 || inputs[d] > 1) {
            flag_oob = true;
        }
    }
    if (flag_oob) {
#pragma unroll
        for (uint32_t ch = 0; ch < C; ch++) {
            outputs[ch] = 0;
        }
        if (calc_grad_inputs) {
            dy_dx += b * D * L * C + level * D * C;  // B L D C
#pragma unroll
            for (uint32_t d = 0; d < D; d++) {
#pragma unroll
                for (uint32_t ch = 0; ch < C; ch++) {
                    dy_dx[d * C + ch] = 0;
                }
            }
        }
        return;
    }

    const uint32_t hashmap_size = offsets[level + 1] - offsets[level];
    const float scale = exp2f(level * S) * H - 1.0f;
    const uint32_t resolution = (uint32_t)ceil(scale) + 1;

    float pos[D];
    uint32_t pos_grid[D];
#pragma unroll
    for (uint32_t d = 0; d < D; d++) {
        pos[d] = (float)inputs[d] * scale + 0.5f;
        pos_grid[d] = floorf(pos[d]);
        pos[d] -= (float)pos_grid[d];
    }

    scalar_t results[C] = {0};
#pragma unroll
    for (uint32_t idx = 0; idx < (1 << D); idx++) {
        float w = 1;
        uint32_t corner[D];
#pragma unroll
        for (uint32_t d = 0; d < D; d++) {
            if ((idx & (1 << d)) == 0) {
                w *= 1 - pos[d];
                corner[d] = pos_grid[d];
            } else {
                w *= pos[d];
                corner[d] = pos_grid[d] + 1;
            }
        }
        uint32_t index = get_grid_index<D, C>(gridtype, 0, hashmap_size, resolution, corner);
#pragma unroll
        for (uint32_t ch = 0; ch < C; ch++) {
            results[ch] += w * grid[index + ch];
        }
    }
#pragma unroll
    for (uint32_t ch = 0; ch < C; ch++) {
        outputs[ch] = results[ch];
    }

    if (calc_grad_inputs) {
        dy_dx += b * D * L * C + level * D * C;  // B L D C
#pragma unroll
        for (uint32_t gd = 0; gd < D; gd++) {
            scalar_t results_grad[C] = {0};
#pragma unroll
            for (uint32_t idx = 0; idx < (1 << (D - 1)); idx++) {
                float w = scale;
                uint32_t corner[D];
#pragma unroll
                for (uint32_t nd = 0; nd < D - 1; nd++) {
                    const uint32_t d = (nd >= gd) ? (nd + 1) : nd;  // the other dimensions
                    if ((idx & (1 << nd)) == 0) {
                        w *= 1 - pos[d];
                        corner[d] = pos_grid[d];
                    } else {
                        w *= pos[d];
                        corner[d] = pos_grid[d] + 1;
                    }
                }
                corner[gd] = pos_grid[gd];
                uint32_t index_left = get_grid_index<D, C>(gridtype, 0, hashmap_size, resolution, corner);
                corner[gd] = pos_grid[gd] + 1;
                uint32_t index_right = get_grid_index<D, C>(gridtype, 0, hashmap_size, resolution, corner);
#pragma unroll
                for (uint32_t ch = 0; ch < C; ch++) {
                    results_grad[ch] += w * (grid[index_right + ch] - grid[index_left + ch]);
                }
            }
#pragma unroll
            for (uint32_t ch = 0; ch < C; ch++) {
                dy_dx[gd * C + ch] = results_grad[ch];
            }
        }
    }
}
"""

_GRID_WGSL = """
struct Params {
    B: u32,
    L: u32,
    S: f32,
    H: u32,
    gridtype: u32,
}
override calc_grad_inputs: bool = true;

@group(0) @binding(0) var<storage, read> inputs: array<f32>;
@group(0) @binding(1) var<storage, read> grid: array<f32>;
@group(0) @binding(2) var<storage, read> offsets: array<i32>;
@group(0) @binding(3) var<storage, read_write> outputs: array<f32>;
@group(0) @binding(4) var<storage, read_write> dy_dx: array<f32>;
@group(0) @binding(5) var<uniform> p: Params;

const D = 3u;
const C = 2u;

fn fast_hash(pos_grid: array<u32, 3>) -> u32 {
    return (pos_grid[0] * 1u) ^ (pos_grid[1] * 2654435761u) ^ (pos_grid[2] * 805459861u);
}

fn get_grid_index(ch: u32, hashmap_size: u32, resolution: u32, pos_grid: array<u32, 3>) -> u32 {
    var stride = 1u;
    var index = 0u;
    for (var d = 0u; d < D && stride <= hashmap_size; d++) {
        index += pos_grid[d] * stride;
        stride *= (resolution + 1u);
    }
    if (p.gridtype == 0u && stride > hashmap_size) {
        index = fast_hash(pos_grid);
    }
    return (index % hashmap_size) * C + ch;
}

@compute @workgroup_size(256)
fn kernel_grid(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(workgroup_id) wg: vec3<u32>) {
    let b = gid.x;
    if (b >= p.B) {
        return;
    }
    let level = wg.y;
    let base = u32(offsets[level]) * C;
    let at = b * D;
    let out_at = level * p.B * C + b * C;
    let grad_at = b * D * p.L * C + level * D * C;

    var flag_oob = false;
    for (var d = 0u; d < D; d++) {
        if (inputs[at + d] < 0.0 || inputs[at + d] > 1.0) {
            flag_oob = true;
        }
    }
    if (flag_oob) {
        for (var ch = 0u; ch < C; ch++) {
            outputs[out_at + ch] = 0.0;
        }
        if (calc_grad_inputs) {
            for (var k = 0u; k < D * C; k++) {
                dy_dx[grad_at + k] = 0.0;
            }
        }
        return;
    }

    let hashmap_size = u32(offsets[level + 1u] - offsets[level]);
    let scale = exp2(f32(level) * p.S) * f32(p.H) - 1.0;
    let resolution = u32(ceil(scale)) + 1u;

    var pos: array<f32, 3>;
    var pos_grid: array<u32, 3>;
    for (var d = 0u; d < D; d++) {
        pos[d] = inputs[at + d] * scale + 0.5;
        pos_grid[d] = u32(floor(pos[d]));
        pos[d] -= f32(pos_grid[d]);
    }

    var results = array<f32, 2>(0.0, 0.0);
    for (var idx = 0u; idx < (1u << D); idx++) {
        var w = 1.0;
        var corner: array<u32, 3>;
        for (var d = 0u; d < D; d++) {
            if ((idx & (1u << d)) == 0u) {
                w *= 1.0 - pos[d];
                corner[d] = pos_grid[d];
            } else {
                w *= pos[d];
                corner[d] = pos_grid[d] + 1u;
            }
        }
        let index = get_grid_index(0u, hashmap_size, resolution, corner);
        for (var ch = 0u; ch < C; ch++) {
            results[ch] += w * grid[base + index + ch];
        }
    }
    for (var ch = 0u; ch < C; ch++) {
        outputs[out_at + ch] = results[ch];
    }

    if (calc_grad_inputs) {
        for (var gd = 0u; gd < D; gd++) {
            var results_grad = array<f32, 2>(0.0, 0.0);
            for (var idx = 0u; idx < (1u << (D - 1u)); idx++) {
                var w = scale;
                var corner: array<u32, 3>;
                for (var nd = 0u; nd < D - 1u; nd++) {
                    let d = select(nd, nd + 1u, nd >= gd);
                    if ((idx & (1u << nd)) == 0u) {
                        w *= 1.0 - pos[d];
                        corner[d] = pos_grid[d];
                    } else {
                        w *= pos[d];
                        corner[d] = pos_grid[d] + 1u;
                    }
                }
                corner[gd] = pos_grid[gd];
                let index_left = get_grid_index(0u, hashmap_size, resolution, corner);
                corner[gd] = pos_grid[gd] + 1u;
                let index_right = get_grid_index(0u, hashmap_size, resolution, corner);
                for (var ch = 0u; ch < C; ch++) {
                    results_grad[ch] += w * (grid[base + index_right + ch] - grid[base + index_left + ch]);
                }
            }
            for (var ch = 0u; ch < C; ch++) {
                dy_dx[grad_at + gd * C + ch] = results_grad[ch];
            }
        }
    }
}
"""

_LEVELS, _CHANNELS, _DIMS = 4, 2, 3
_BASE_RESOLUTION, _LOG2_SCALE, _LOG2_HASHMAP = 16, 1.0, 13
_PRIMES = (1, 2654435761, 805459861)


def _grid_offsets() -> np.ndarray:
    """Each level's first entry, as grid.py lays them out: the level's (resolution +
    1) ** 3 corners, at most 2**13, rounded up to a multiple of 8."""
    offsets, offset = [], 0
    for level in range(_LEVELS):
        resolution = int(np.ceil(_BASE_RESOLUTION * 2.0 ** (level * _LOG2_SCALE)))
        entries = min(2**_LOG2_HASHMAP, (resolution + 1) ** _DIMS)
        offsets.append(offset)
        offset += -(-entries // 8) * 8
    return np.array([*offsets, offset], np.int32)


_OFFSETS = _grid_offsets()


def _grid_index(corner: np.ndarray, hashmap_size: int, resolution: int) -> np.ndarray:
    """get_grid_index's entry (before ``* C``) for each row of corners."""
    corner = corner.astype(np.uint64)
    stride, index, d = 1, np.zeros(len(corner), np.uint64), 0
    while d < _DIMS and stride <= hashmap_size:
        index += corner[:, d] * np.uint64(stride)
        stride *= resolution + 1
        d += 1
    if stride > hashmap_size:
        index = np.zeros(len(corner), np.uint64)
        for dim, prime in enumerate(_PRIMES):
            index ^= (corner[:, dim] * np.uint64(prime)) & _M32
    return (index % np.uint64(hashmap_size)).astype(np.int64)


def _grid_reference(inputs, grid, offsets, outputs, dy_dx):
    x = inputs.reshape(-1, _DIMS)
    table = grid.reshape(-1, _CHANNELS).astype(np.float64)
    n = len(x)
    out = np.zeros((_LEVELS, n, _CHANNELS))
    grad = np.zeros((n, _LEVELS, _DIMS, _CHANNELS))
    inside = ~((x < 0) | (x > 1)).any(axis=1)
    xs = x[inside]
    for level in range(_LEVELS):
        rows = table[int(offsets[level]) :]
        hashmap_size = int(offsets[level + 1] - offsets[level])
        scale = np.float32(
            np.float32(np.exp2(np.float32(level * _LOG2_SCALE))) * np.float32(_BASE_RESOLUTION)
            - np.float32(1.0)
        )
        resolution = int(np.ceil(scale)) + 1
        pos = xs * scale + np.float32(0.5)  # float32, as the kernel rounds it
        cell = np.floor(pos)
        frac = (pos - cell).astype(np.float64)
        cell = cell.astype(np.int64)
        blend = np.zeros((len(xs), _CHANNELS))
        for idx in range(1 << _DIMS):
            w = np.ones(len(xs))
            corner = cell.copy()
            for d in range(_DIMS):
                if idx & (1 << d):
                    w = w * frac[:, d]
                    corner[:, d] += 1
                else:
                    w = w * (1 - frac[:, d])
            blend += w[:, None] * rows[_grid_index(corner, hashmap_size, resolution)]
        out[level, inside] = blend
        for gd in range(_DIMS):
            slope = np.zeros((len(xs), _CHANNELS))
            others = [d for d in range(_DIMS) if d != gd]
            for idx in range(1 << (_DIMS - 1)):
                w = np.full(len(xs), float(scale))
                corner = cell.copy()
                for nd, d in enumerate(others):
                    if idx & (1 << nd):
                        w = w * frac[:, d]
                        corner[:, d] += 1
                    else:
                        w = w * (1 - frac[:, d])
                left = _grid_index(corner, hashmap_size, resolution)
                corner[:, gd] += 1
                right = _grid_index(corner, hashmap_size, resolution)
                slope += w[:, None] * (rows[right] - rows[left])
            grad[inside, level, gd] = slope
    return {"outputs": out.reshape(-1), "dy_dx": grad.reshape(-1)}


def _offsets_fill(rng, count, size):
    return _OFFSETS.copy()


HASH_GRID = Wild(
    KernelSpec(
        id="wild_r52_torch_ngp_hash_grid_encoding",
        entry_point="kernel_grid",
        entry_points={"cuda": "kernel_grid<float, 3, 2>"},
        sources={"cuda": _GRID_CUDA, "wgsl": _GRID_WGSL},
        dims=("B",),
        buffers=(
            BufferSpec(0, "f32", "read", name="inputs", count="3*B"),
            BufferSpec(1, "f32", "read", name="grid", count=int(_OFFSETS[-1]) * _CHANNELS),
            BufferSpec(2, "i32", "read", name="offsets", count=_LEVELS + 1, fill=_offsets_fill),
            BufferSpec(3, "f32", "read_write", name="outputs", count=f"{_LEVELS * _CHANNELS}*B"),
            BufferSpec(
                4, "f32", "read_write", name="dy_dx", count=f"{_LEVELS * _DIMS * _CHANNELS}*B"
            ),
            BufferSpec.uniform(
                5,
                (("B", "u32"), ("L", "u32"), ("S", "f32"), ("H", "u32"), ("gridtype", "u32")),
                name="p",
            ),
        ),
        reference=_grid_reference,
        params=lambda size: {"B": int(size)},
        defaults={
            "L": _LEVELS,
            "S": _LOG2_SCALE,
            "H": _BASE_RESOLUTION,
            "gridtype": 0,
            "calc_grad_inputs": True,
        },
        # points a little outside the unit cube too (encoded as zeros)
        domain={"inputs": (-0.125, 1.125), "grid": (-1.0, 1.0)},
        launches=(
            Dispatch(
                "kernel_grid",
                grid=lambda s, size: (ceil_div(int(size), s.workgroup_size[0]), _LEVELS, 1),
                # N_THREAD = 512 in the wrapper; the port's workgroup is 256
                schedule={"cuda": Schedule(512)},
            ),
        ),
        schedules=(Schedule(256),),
        test_sizes=(300,),
    ),
    {
        "CUDA: the second prime misspelt": (
            "cuda",
            "constexpr uint32_t primes[7] = {1, 2654435761,",
            "constexpr uint32_t primes[7] = {1, 2654435769,",
        ),
        "CUDA: the dense stride one short": (
            "cuda",
            "stride *= (resolution + 1);",
            "stride *= resolution;",
        ),
        # (not a mutant: "the far corner weighted by the near one's weight", the test
        # `== 0` made `!= 0`, moves the corner with its weight, so each term is the
        # complementary corner's and the sum is the same; it passed on the H100,
        # 2026-12-06, within a sum's reordering)
        "CUDA: the gradient's left and right corners swapped": (
            "cuda",
            "w * (grid[index_right + ch] - grid[index_left + ch])",
            "w * (grid[index_left + ch] - grid[index_right + ch])",
        ),
        "the second prime misspelt": (
            "wgsl",
            "(pos_grid[1] * 2654435761u)",
            "(pos_grid[1] * 2654435769u)",
        ),
        "the dense stride one short": (
            "wgsl",
            "stride *= (resolution + 1u);",
            "stride *= resolution;",
        ),
        "the other dimensions picked past the wrong one": (
            "wgsl",
            "let d = select(nd, nd + 1u, nd >= gd);",
            "let d = select(nd, nd + 1u, nd > gd);",
        ),
    },
)

# -- 4. cuSignal: Lomb-Scargle as a CuPy RawKernel, grid-stride over a fixed grid ---------

_LOMBSCARGLE_CUDA = r"""
${header}

extern "C" {
    // kernel-forge corpus: cuSignal's Lomb-Scargle RawKernel (read, not copied).
    __global__ void _cupy_lombscargle(
            const int x_shape,
            const int freqs_shape,
            const ${datatype} * __restrict__ x,
            const ${datatype} * __restrict__ y,
            const ${datatype} * __restrict__ freqs,
            ${datatype} * __restrict__ pgram,
            const ${datatype} * __restrict__ y_dot
            ) {

        const int tx { static_cast<int>( blockIdx.x * blockDim.x + threadIdx.x ) };
        const int stride { static_cast<int>( blockDim.x * gridDim.x ) };

        // normalised by the data's power, unless the host passed 0
        ${datatype} yD {};
        if ( y_dot[0] == 0 ) {
            yD = 1.0f;
        } else {
            yD = 2.0f / y_dot[0];
        }

        for ( int tid = tx; tid < freqs_shape; tid += stride ) {
            ${datatype} freq { freqs[tid] };

            ${datatype} xc {};
            ${datatype} xs {};
            ${datatype} cc {};
            ${datatype} ss {};
            ${datatype} cs {};
            ${datatype} c {};
            ${datatype} s {};

            for ( int j = 0; j < x_shape; j++ ) {
                c = cos( freq * x[j] );
                s = sin( freq * x[j] );
                xc += y[j] * c;
                xs += y[j] * s;
                cc += c * c;
                ss += s * s;
                cs += c * s;
            }

            // the time shift that makes the sine and cosine terms orthogonal
            ${datatype} tau { atan2( 2.0f * cs, cc - ss ) / ( 2.0f * freq ) };
            ${datatype} c_tau { cos( freq * tau ) };
            ${datatype} s_tau { sin( freq * tau ) };
            ${datatype} c_tau2 { c_tau * c_tau };
            ${datatype} s_tau2 { s_tau * s_tau };
            ${datatype} cs_tau { 2.0f * c_tau * s_tau };

            pgram[tid] = (
                0.5f * (
                    (
                        ( c_tau * xc + s_tau * xs )
                        * ( c_tau * xc + s_tau * xs )
                        / ( c_tau2 * cc + cs_tau * cs + s_tau2 * ss )
                    )
                    + (
                        ( c_tau * xs - s_tau * xc )
                        * ( c_tau * xs - s_tau * xc )
                        / ( c_tau2 * ss - cs_tau * cs + s_tau2 * cc )
                    )
                )
            ) * yD;
        }
    }
}
"""

_LOMBSCARGLE_WGSL = """
struct Params {
    x_shape: i32,
    freqs_shape: i32,
}
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> y: array<f32>;
@group(0) @binding(2) var<storage, read> freqs: array<f32>;
@group(0) @binding(3) var<storage, read_write> pgram: array<f32>;
@group(0) @binding(4) var<storage, read> y_dot: array<f32>;
@group(0) @binding(5) var<uniform> p: Params;

@compute @workgroup_size(256)
fn _cupy_lombscargle(@builtin(global_invocation_id) gid: vec3<u32>,
                     @builtin(num_workgroups) groups: vec3<u32>) {
    let tx = i32(gid.x);
    let stride = i32(256u * groups.x);
    var yD = 0.0;
    if (y_dot[0] == 0.0) {
        yD = 1.0;
    } else {
        yD = 2.0 / y_dot[0];
    }
    for (var tid = tx; tid < p.freqs_shape; tid += stride) {
        let freq = freqs[tid];
        var xc = 0.0;
        var xs = 0.0;
        var cc = 0.0;
        var ss = 0.0;
        var cs = 0.0;
        for (var j = 0; j < p.x_shape; j++) {
            let c = cos(freq * x[j]);
            let s = sin(freq * x[j]);
            xc += y[j] * c;
            xs += y[j] * s;
            cc += c * c;
            ss += s * s;
            cs += c * s;
        }
        let tau = atan2(2.0 * cs, cc - ss) / (2.0 * freq);
        let c_tau = cos(freq * tau);
        let s_tau = sin(freq * tau);
        let c_tau2 = c_tau * c_tau;
        let s_tau2 = s_tau * s_tau;
        let cs_tau = 2.0 * c_tau * s_tau;
        let even = (c_tau * xc + s_tau * xs) * (c_tau * xc + s_tau * xs) / (c_tau2 * cc + cs_tau * cs + s_tau2 * ss);
        let odd = (c_tau * xs - s_tau * xc) * (c_tau * xs - s_tau * xc) / (c_tau2 * ss - cs_tau * cs + s_tau2 * cc);
        pgram[tid] = (0.5 * (even + odd)) * yD;
    }
}
"""

_BLOCKS = 2  # blockspergrid = numSM * 20 on the GPU; 2 here, so that 700 go round
_LS_BLOCK = 256


def _lombscargle_reference(x, y, freqs, y_dot):
    t = x.astype(np.float64)
    v = y.astype(np.float64)
    f = freqs.astype(np.float64)
    arg = f[:, None] * t[None, :]
    c, s = np.cos(arg), np.sin(arg)
    xc, xs = c @ v, s @ v
    cc, ss, cs = (c * c).sum(axis=1), (s * s).sum(axis=1), (c * s).sum(axis=1)
    tau = np.arctan2(2.0 * cs, cc - ss) / (2.0 * f)
    c_tau, s_tau = np.cos(f * tau), np.sin(f * tau)
    c_tau2, s_tau2, cs_tau = c_tau * c_tau, s_tau * s_tau, 2.0 * c_tau * s_tau
    even = (c_tau * xc + s_tau * xs) ** 2 / (c_tau2 * cc + cs_tau * cs + s_tau2 * ss)
    odd = (c_tau * xs - s_tau * xc) ** 2 / (c_tau2 * ss - cs_tau * cs + s_tau2 * cc)
    y_d = float(y_dot[0])
    return 0.5 * (even + odd) * (1.0 if y_d == 0 else 2.0 / y_d)


def _sample_times(rng, count, size):
    """Uneven sampling times over [0, 8): what a periodogram of this kind is for."""
    return np.sort(rng.uniform(0.0, 8.0, count)).astype(np.float32)


def _frequencies(rng, count, size):
    """Angular frequencies, from 0.5 up to 4 (arguments of the sines up to 32)."""
    return rng.uniform(0.5, 4.0, count).astype(np.float32)


def _power(rng, count, size):
    """The host's normalisation, about dot(y, y), or 0 (none) where the count of
    frequencies is odd: the test sizes take both."""
    return np.array([0.0 if size.nf % 2 else 0.9 * size.nx], np.float32)


LOMBSCARGLE = Wild(
    KernelSpec(
        id="wild_r52_cusignal_lombscargle_cupy_rawkernel",
        entry_point="_cupy_lombscargle",
        sources={"cuda": _LOMBSCARGLE_CUDA, "wgsl": _LOMBSCARGLE_WGSL},
        dims=("nx", "nf"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="nx", fill=_sample_times),
            BufferSpec(1, "f32", "read", name="y", count="nx"),
            BufferSpec(2, "f32", "read", name="freqs", count="nf", fill=_frequencies),
            BufferSpec(3, "f32", "read_write", name="pgram", count="nf"),
            BufferSpec(4, "f32", "read", name="y_dot", count=1, fill=_power),
            BufferSpec.uniform(5, (("x_shape", "i32"), ("freqs_shape", "i32")), name="p"),
        ),
        reference=_lombscargle_reference,
        params=lambda size: {"x_shape": size.nx, "freqs_shape": size.nf},
        constants={"datatype": "float", "header": "// (the header CuPy's template takes)"},
        grid=lambda s, size: (_BLOCKS, 1, 1),
        schedules=(Schedule(_LS_BLOCK),),
        domain={"y": (-4.0, 4.0)},
        nonfinite_inputs=False,
        test_sizes=("nx=48,nf=700", "nx=9,nf=33"),
    ),
    {
        "CUDA: tau over the frequency, not twice it": (
            "cuda",
            "/ ( 2.0f * freq ) };",
            "/ freq };",
        ),
        "CUDA: the cross term's 2 dropped": (
            "cuda",
            "cs_tau { 2.0f * c_tau * s_tau };",
            "cs_tau { c_tau * s_tau };",
        ),
        "CUDA: normalised by the power once, not twice": (
            "cuda",
            "yD = 2.0f / y_dot[0];",
            "yD = 1.0f / y_dot[0];",
        ),
        "tau over the frequency, not twice it": (
            "wgsl",
            "/ (2.0 * freq);",
            "/ freq;",
        ),
        "the odd denominator's cross term with the even one's sign": (
            "wgsl",
            "(c_tau2 * ss - cs_tau * cs + s_tau2 * cc)",
            "(c_tau2 * ss + cs_tau * cs + s_tau2 * cc)",
        ),
        "the unnormalised periodogram doubled": (
            "wgsl",
            "        yD = 1.0;\n",
            "        yD = 2.0;\n",
        ),
        "the last sample left out": (
            "wgsl",
            "for (var j = 0; j < p.x_shape; j++) {",
            "for (var j = 0; j < p.x_shape - 1; j++) {",
        ),
    },
)

# -- 5. PMPP's domino-style single-pass scan: tickets, flags, a fence ----------------------

_DOMINO_CUDA = r"""// kernel-forge corpus: a domino-style single-pass scan after PMPP (read, not copied).
// One block a section: its Kogge-Stone scan, then thread 0 waits for the previous
// section's running sum, passes its own on (sum, fence, flag) and the block adds it.
__global__ void hierarchical_kogge_stone_domino(float *X, float *Y, float *scan_value, int *flags,
                                                int *blockCounter, unsigned int N) {
    extern __shared__ float buffer[];
    __shared__ unsigned int bid_s;
    __shared__ float previous_sum;

    const unsigned int tid = threadIdx.x;

    // sections numbered in the order blocks start: a block only waits for one running
    if (tid == 0) {
        bid_s = atomicAdd(blockCounter, 1);
    }
    __syncthreads();
    const unsigned int bid = bid_s;
    const unsigned int gid = bid * blockDim.x + tid;

    buffer[tid] = gid < N ? X[gid] : 0.0f;
    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        __syncthreads();
        float temp = buffer[tid];
        if (tid >= stride) {
            temp += buffer[tid - stride];
        }
        __syncthreads();
        buffer[tid] = temp;
    }
    if (gid < N) {
        Y[gid] = buffer[tid];
    }
    __syncthreads();  // (not in the source: its last thread's write raced this read)
    const float local_sum = buffer[blockDim.x - 1];

    if (tid == 0) {
        if (bid > 0) {
            while (atomicAdd(&flags[bid], 0) == 0) {
            }
            previous_sum = scan_value[bid];
            const float total_sum = previous_sum + local_sum;
            scan_value[bid + 1] = total_sum;
            __threadfence();  // the sum is visible before the flag says so
            atomicAdd(&flags[bid + 1], 1);
        } else {
            scan_value[1] = local_sum;
            __threadfence();
            atomicAdd(&flags[1], 1);
        }
    }
    __syncthreads();

    if (bid > 0 && gid < N) {
        Y[gid] += previous_sum;
    }
}
"""

# The port: WGSL has no fence between workgroups and its atomics are relaxed, so the
# running sum is published in one atomic word that is its own flag (its f32 bits; the
# bits 0xFFFFFFFF, a NaN no finite sum makes, mean "not yet"), and the flag array is
# still bumped after it, as the CUDA does.
_DOMINO_WGSL = """
struct Params {
    N: u32,
}
@group(0) @binding(0) var<storage, read> X: array<f32>;
@group(0) @binding(1) var<storage, read_write> Y: array<f32>;
@group(0) @binding(2) var<storage, read_write> scan_value: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> flags: array<atomic<i32>>;
@group(0) @binding(4) var<storage, read_write> blockCounter: array<atomic<i32>>;
@group(0) @binding(5) var<uniform> p: Params;

const BLOCK = 256u;
const NOT_READY = 0xffffffffu;

var<workgroup> buffer: array<f32, BLOCK>;
var<workgroup> bid_s: u32;
var<workgroup> previous_sum: f32;

@compute @workgroup_size(256)
fn hierarchical_kogge_stone_domino(@builtin(local_invocation_id) lid: vec3<u32>) {
    let tid = lid.x;
    if (tid == 0u) {
        bid_s = u32(atomicAdd(&blockCounter[0], 1));
    }
    workgroupBarrier();
    let bid = bid_s;
    let gid = bid * BLOCK + tid;

    buffer[tid] = select(0.0, X[min(gid, p.N - 1u)], gid < p.N);
    for (var stride = 1u; stride < BLOCK; stride *= 2u) {
        workgroupBarrier();
        var temp = buffer[tid];
        if (tid >= stride) {
            temp += buffer[tid - stride];
        }
        workgroupBarrier();
        buffer[tid] = temp;
    }
    if (gid < p.N) {
        Y[gid] = buffer[tid];
    }
    workgroupBarrier();
    let local_sum = buffer[BLOCK - 1u];

    if (tid == 0u) {
        if (bid > 0u) {
            var bits = NOT_READY;
            loop {
                bits = atomicLoad(&scan_value[bid]);
                if (bits != NOT_READY) {
                    break;
                }
            }
            previous_sum = bitcast<f32>(bits);
            let total_sum = previous_sum + local_sum;
            atomicStore(&scan_value[bid + 1u], bitcast<u32>(total_sum));
            atomicAdd(&flags[bid + 1u], 1);
        } else {
            atomicStore(&scan_value[1], bitcast<u32>(local_sum));
            atomicAdd(&flags[1], 1);
        }
    }
    workgroupBarrier();

    if (bid > 0u && gid < p.N) {
        Y[gid] += previous_sum;
    }
}
"""

_DOMINO_BLOCK = 256  # SECTION_SIZE is 1024 in the source: 256 here on both targets


def _sections(n) -> int:
    return ceil_div(int(n), _DOMINO_BLOCK)


def _domino_reference(X, Y, flags, blockCounter):
    signals = np.ones(len(flags), np.int32)
    signals[0] = 0  # every section but the first is signalled once; past the last too
    return {
        "Y": np.cumsum(X.astype(np.float64)),
        "flags": signals,
        "blockCounter": np.array([_sections(len(X))], np.int32),
    }


DOMINO_SCAN = Wild(
    KernelSpec(
        id="wild_r52_pmpp_domino_single_pass_scan",
        entry_point="hierarchical_kogge_stone_domino",
        sources={"cuda": _DOMINO_CUDA, "wgsl": _DOMINO_WGSL},
        buffers=(
            BufferSpec(0, "f32", "read", name="X"),
            BufferSpec(1, "f32", "read_write", name="Y"),
            # running sums: scratch, their bits "not yet" until published
            BufferSpec(
                2,
                "u32",
                "read_write",
                name="scan_value",
                count=lambda n: _sections(n) + 1,
                initial=0xFFFFFFFF,
                scratch=True,
            ),
            BufferSpec(
                3, "i32", "read_write", name="flags", count=lambda n: _sections(n) + 1, initial=0
            ),
            BufferSpec(4, "i32", "read_write", name="blockCounter", count=1, initial=0),
            BufferSpec.uniform(5, (("N", "u32"),), name="p"),
        ),
        reference=_domino_reference,
        params=lambda n: {"N": int(n)},
        grid=lambda s, n: (_sections(n), 1, 1),
        schedules=(Schedule(_DOMINO_BLOCK),),
        shared_bytes=_DOMINO_BLOCK * 4,
        # NaN and Inf stay out: a NaN sum's bits would read as "not yet" to the port
        nonfinite_inputs=False,
        test_sizes=(2500,),
    ),
    {
        "CUDA: no fence before the flag": (
            "cuda",
            "            __threadfence();  // the sum",
            "            // the sum",
        ),
        "CUDA: the block's sum read before the scan's last write": (
            "cuda",
            "    __syncthreads();  // (not in the source: its last thread's write raced this read)\n",
            "",
        ),
        "CUDA: the last element left out": (
            "cuda",
            "buffer[tid] = gid < N ? X[gid] : 0.0f;",
            "buffer[tid] = gid + 1 < N ? X[gid] : 0.0f;",
        ),
        "CUDA: the running sum passed on without the block's own": (
            "cuda",
            "const float total_sum = previous_sum + local_sum;",
            "const float total_sum = previous_sum;",
        ),
        "the last element left out": (
            "wgsl",
            "X[min(gid, p.N - 1u)], gid < p.N);",
            "X[min(gid, p.N - 1u)], gid + 1u < p.N);",
        ),
        "the section's sum read from the lane before the last": (
            "wgsl",
            "let local_sum = buffer[BLOCK - 1u];",
            "let local_sum = buffer[BLOCK - 2u];",
        ),
        "the running sum passed on without the block's own": (
            "wgsl",
            "let total_sum = previous_sum + local_sum;",
            "let total_sum = previous_sum;",
        ),
        "the scan one stride short": (
            "wgsl",
            "stride < BLOCK; stride *= 2u",
            "stride < BLOCK / 2u; stride *= 2u",
        ),
    },
    invisible={
        ("CUDA: no fence before the flag", "cuda"): (
            "a store overtaking the flag's atomic shows only where another SM reads the sum "
            "between the two, which one launch on an idle GPU does not arrange, and "
            "racecheck watches shared memory only: not visible in the values"
        ),
    },
    races=frozenset({"CUDA: the block's sum read before the scan's last write"}),
    platform={
        ("wgpu", "llvmpipe", "Y"): (
            "lavapipe ends every loop after 65535 iterations, and a workgroup's first "
            "invocation spins on the previous workgroup's sum: on a loaded machine (the "
            "CI-like run, 2026-12-06) the previous workgroup had not published it by then, "
            "the spin ended with NOT_READY's NaN, and the scan carried it (the oracle's "
            "note says so); alone it passes"
        ),
    },
)

# -- 6. cuCollections: XXHash_32 of a 20-byte key, 16-byte stripes then 4-byte words ------

_XXHASH_CUDA = r"""// kernel-forge corpus: cuCollections' XXHash_32 (read, not copied), hashing 20-byte keys.
#include <cstddef>
#include <cstdint>

namespace cuco::detail {

template <typename Key>
struct XXHash_32 {
   private:
    static constexpr std::uint32_t prime1 = 0x9e3779b1u;
    static constexpr std::uint32_t prime2 = 0x85ebca77u;
    static constexpr std::uint32_t prime3 = 0xc2b2ae3du;
    static constexpr std::uint32_t prime4 = 0x27d4eb2fu;
    static constexpr std::uint32_t prime5 = 0x165667b1u;

   public:
    using argument_type = Key;
    using result_type = std::uint32_t;

    __host__ __device__ constexpr XXHash_32(std::uint32_t seed = 0) : seed_{seed} {}

    constexpr result_type __host__ __device__ operator()(Key const &key) const noexcept {
        constexpr auto nbytes = sizeof(Key);
        auto const bytes = reinterpret_cast<char const *>(&key);             // a byte at a time
        auto const blocks = reinterpret_cast<std::uint32_t const *>(&key);  // a word at a time

        std::size_t offset = 0;
        std::uint32_t h32;

        // 16-byte stripes into four lanes
        if constexpr (nbytes >= 16) {
            constexpr auto limit = nbytes - 16;
            std::uint32_t v1 = seed_ + prime1 + prime2;
            std::uint32_t v2 = seed_ + prime2;
            std::uint32_t v3 = seed_;
            std::uint32_t v4 = seed_ - prime1;
            do {
                auto const word = offset / 4;
                v1 += blocks[word] * prime2;
                v1 = rotl(v1, 13);
                v1 *= prime1;
                v2 += blocks[word + 1] * prime2;
                v2 = rotl(v2, 13);
                v2 *= prime1;
                v3 += blocks[word + 2] * prime2;
                v3 = rotl(v3, 13);
                v3 *= prime1;
                v4 += blocks[word + 3] * prime2;
                v4 = rotl(v4, 13);
                v4 *= prime1;
                offset += 16;
            } while (offset <= limit);
            h32 = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
        } else {
            h32 = seed_ + prime5;
        }

        h32 += nbytes;

        // what is left, a word at a time
        if constexpr ((nbytes % 16) >= 4) {
            for (; offset <= nbytes - 4; offset += 4) {
                h32 += blocks[offset / 4] * prime3;
                h32 = rotl(h32, 17) * prime4;
            }
        }

        // and a byte at a time, for a key whose size is no multiple of 4
        if constexpr (nbytes % 4) {
            while (offset < nbytes) {
                h32 += (bytes[offset] & 255) * prime5;
                h32 = rotl(h32, 11) * prime1;
                ++offset;
            }
        }

        return finalize(h32);
    }

   private:
    constexpr __host__ __device__ std::uint32_t rotl(std::uint32_t h, std::int8_t r) const noexcept {
        return ((h << r) | (h >> (32 - r)));
    }

    // the avalanche
    constexpr __host__ __device__ std::uint32_t finalize(std::uint32_t h) const noexcept {
        h ^= h >> 15;
        h *= prime2;
        h ^= h >> 13;
        h *= prime3;
        h ^= h >> 16;
        return h;
    }

    std::uint32_t seed_;
};

}  // namespace cuco::detail

// a key of five words, as a row of a table of five u32 columns is hashed
struct Key20 {
    std::uint32_t w[5];
};

// one thread a key
__global__ void hash_keys(const Key20 *keys, std::uint32_t *hashes, std::uint32_t seed, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        hashes[i] = cuco::detail::XXHash_32<Key20>{seed}(keys[i]);
    }
}
"""

# The port: the same arithmetic on the key's five words, the stripe loop and the word
# loop as the 20-byte key unrolls them (WGSL has no sizeof; the byte loop never runs).
_XXHASH_WGSL = """
struct Params {
    seed: u32,
    n: i32,
}
@group(0) @binding(0) var<storage, read> keys: array<u32>;
@group(0) @binding(1) var<storage, read_write> hashes: array<u32>;
@group(0) @binding(2) var<uniform> p: Params;

const prime1 = 0x9e3779b1u;
const prime2 = 0x85ebca77u;
const prime3 = 0xc2b2ae3du;
const prime4 = 0x27d4eb2fu;
const prime5 = 0x165667b1u;
const NBYTES = 20u;

fn rotl(h: u32, r: u32) -> u32 {
    return (h << r) | (h >> (32u - r));
}

fn finalize(hin: u32) -> u32 {
    var h = hin;
    h ^= h >> 15u;
    h *= prime2;
    h ^= h >> 13u;
    h *= prime3;
    h ^= h >> 16u;
    return h;
}

@compute @workgroup_size(256)
fn hash_keys(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = i32(gid.x);
    if (i >= p.n) {
        return;
    }
    let base = u32(i) * 5u;
    var offset = 0u;
    var v1 = p.seed + prime1 + prime2;
    var v2 = p.seed + prime2;
    var v3 = p.seed;
    var v4 = p.seed - prime1;
    loop {
        let word = base + offset / 4u;
        v1 += keys[word] * prime2;
        v1 = rotl(v1, 13u);
        v1 *= prime1;
        v2 += keys[word + 1u] * prime2;
        v2 = rotl(v2, 13u);
        v2 *= prime1;
        v3 += keys[word + 2u] * prime2;
        v3 = rotl(v3, 13u);
        v3 *= prime1;
        v4 += keys[word + 3u] * prime2;
        v4 = rotl(v4, 13u);
        v4 *= prime1;
        offset += 16u;
        if (offset > NBYTES - 16u) {
            break;
        }
    }
    var h32 = rotl(v1, 1u) + rotl(v2, 7u) + rotl(v3, 12u) + rotl(v4, 18u);
    h32 += NBYTES;
    for (; offset <= NBYTES - 4u; offset += 4u) {
        h32 += keys[base + offset / 4u] * prime3;
        h32 = rotl(h32, 17u) * prime4;
    }
    hashes[i] = finalize(h32);
}
"""

_P1, _P2, _P3, _P4, _P5 = 0x9E3779B1, 0x85EBCA77, 0xC2B2AE3D, 0x27D4EB2F, 0x165667B1


def _rotl(h: np.ndarray, r: int) -> np.ndarray:
    return ((h << np.uint64(r)) | (h >> np.uint64(32 - r))) & _M32


def xxh32(data: np.ndarray, seed: int) -> np.ndarray:
    """XXH32 of each row of ``data`` (uint8, one key a row), as Yann Collet's xxHash
    defines it: 16-byte stripes into four lanes, then words, then bytes, then the
    avalanche."""
    rows = np.ascontiguousarray(data, np.uint8)
    n, nbytes = rows.shape
    words = rows[:, : nbytes // 4 * 4].copy().view("<u4").astype(np.uint64)

    def mul(a, b):
        return (a * np.uint64(b)) & _M32

    seed64 = np.uint64(seed)
    offset = 0
    if nbytes >= 16:
        lanes = [
            np.full(n, (seed + _P1 + _P2) & 0xFFFFFFFF, np.uint64),
            np.full(n, (seed + _P2) & 0xFFFFFFFF, np.uint64),
            np.full(n, seed64, np.uint64),
            np.full(n, (seed - _P1) & 0xFFFFFFFF, np.uint64),
        ]
        while offset <= nbytes - 16:
            for lane in range(4):
                v = (lanes[lane] + mul(words[:, offset // 4 + lane], _P2)) & _M32
                lanes[lane] = mul(_rotl(v, 13), _P1)
            offset += 16
        h = (
            _rotl(lanes[0], 1) + _rotl(lanes[1], 7) + _rotl(lanes[2], 12) + _rotl(lanes[3], 18)
        ) & _M32
    else:
        h = np.full(n, (seed + _P5) & 0xFFFFFFFF, np.uint64)
    h = (h + np.uint64(nbytes)) & _M32
    while offset + 4 <= nbytes:
        h = mul(_rotl((h + mul(words[:, offset // 4], _P3)) & _M32, 17), _P4)
        offset += 4
    while offset < nbytes:
        h = mul(_rotl((h + mul(rows[:, offset].astype(np.uint64), _P5)) & _M32, 11), _P1)
        offset += 1
    h ^= h >> np.uint64(15)
    h = mul(h, _P2)
    h ^= h >> np.uint64(13)
    h = mul(h, _P3)
    h ^= h >> np.uint64(16)
    return h.astype(np.uint32)


def _xxhash_reference(keys, hashes, seed):
    return xxh32(keys.reshape(-1, 5).view(np.uint8), int(seed))


def _key_words(rng, count, size):
    """Five words a key: random, with some keys repeated and some all zeros."""
    words = rng.integers(0, 2**32, count, dtype=np.uint64).astype(np.uint32).reshape(-1, 5)
    words[::7] = 0
    words[1::5] = words[::5][: len(words[1::5])]
    return words.reshape(-1)


XXHASH = Wild(
    KernelSpec(
        id="wild_r52_cucollections_xxhash32_key20",
        entry_point="hash_keys",
        sources={"cuda": _XXHASH_CUDA, "wgsl": _XXHASH_WGSL},
        buffers=(
            BufferSpec(0, "u32", "read", name="keys", count="5*n", fill=_key_words),
            BufferSpec(1, "u32", "read_write", name="hashes"),
            BufferSpec.uniform(2, (("seed", "u32"), ("n", "i32")), name="p"),
        ),
        reference=_xxhash_reference,
        params=lambda n: {"n": int(n)},
        defaults={"seed": 0x9747B28C},
        grid=lambda s, n: (ceil_div(int(n), 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=(1000,),
    ),
    {
        "CUDA: the fourth lane started at the seed plus prime1": (
            "cuda",
            "std::uint32_t v4 = seed_ - prime1;",
            "std::uint32_t v4 = seed_ + prime1;",
        ),
        "CUDA: the key's length left out": ("cuda", "        h32 += nbytes;\n", ""),
        "CUDA: the word loop stops a word short": (
            "cuda",
            "for (; offset <= nbytes - 4; offset += 4) {",
            "for (; offset < nbytes - 4; offset += 4) {",
        ),
        "the stripe rotated by 31, as XXH64's": (
            "wgsl",
            "v3 = rotl(v3, 13u);",
            "v3 = rotl(v3, 31u);",
        ),
        "the word's prime and the stripes' swapped": (
            "wgsl",
            "h32 += keys[base + offset / 4u] * prime3;",
            "h32 += keys[base + offset / 4u] * prime2;",
        ),
        "the avalanche's middle shift misspelt": ("wgsl", "h ^= h >> 13u;", "h ^= h >> 12u;"),
    },
)


ROUND52: dict[str, Wild] = {
    w.kernel.id: w for w in (PHILOX, HASH_INSERT, HASH_GRID, LOMBSCARGLE, DOMINO_SCAN, XXHASH)
}

"""Round 36 of kernels from the wild, merged into ``tests.wild.CORPUS``: CUDA kernels
with integer, bit and atomic idioms as public projects write them, each taken as
written with a WGSL port as a WebGPU port would write it (the port runs here, on
lavapipe and SwiftShader, the original on the GPU machine), both judged by one exact
integer (or float64) reference.

FINDINGS
"""

# ruff: noqa: E501, W191, W291, W293  (the CUDA sources keep their authors' long lines, tabs and
# trailing blanks, as written)

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from forge import BufferSpec, KernelSpec, Schedule, ceil_div

from . import Wild

_INCLUDE = str(Path(__file__).with_name("round36_include"))

# -- mochimodev/cuda-hashing-algos: sha256.cu, one message a thread ------------------------

_SHA256_CUDA = """/*
 * sha256.cu Implementation of SHA256 Hashing    
 *
 * Date: 12 June 2019
 * Revision: 1
 * *
 * Based on the public domain Reference Implementation in C, by
 * Brad Conte, original code here:
 *
 * https://github.com/B-Con/crypto-algorithms
 *
 * This file is released into the Public Domain.
 */

 
/*************************** HEADER FILES ***************************/
#include <stdlib.h>
#include <memory.h>
extern "C" {
#include "sha256.cuh"
}
/****************************** MACROS ******************************/
#define SHA256_BLOCK_SIZE 32            // SHA256 outputs a 32 byte digest

/**************************** DATA TYPES ****************************/

typedef struct {
\tBYTE data[64];
\tWORD datalen;
\tunsigned long long bitlen;
\tWORD state[8];
} CUDA_SHA256_CTX;

/****************************** MACROS ******************************/
#ifndef ROTLEFT
#define ROTLEFT(a,b) (((a) << (b)) | ((a) >> (32-(b))))
#endif

#define ROTRIGHT(a,b) (((a) >> (b)) | ((a) << (32-(b))))

#define CH(x,y,z) (((x) & (y)) ^ (~(x) & (z)))
#define MAJ(x,y,z) (((x) & (y)) ^ ((x) & (z)) ^ ((y) & (z)))
#define EP0(x) (ROTRIGHT(x,2) ^ ROTRIGHT(x,13) ^ ROTRIGHT(x,22))
#define EP1(x) (ROTRIGHT(x,6) ^ ROTRIGHT(x,11) ^ ROTRIGHT(x,25))
#define SIG0(x) (ROTRIGHT(x,7) ^ ROTRIGHT(x,18) ^ ((x) >> 3))
#define SIG1(x) (ROTRIGHT(x,17) ^ ROTRIGHT(x,19) ^ ((x) >> 10))

/**************************** VARIABLES *****************************/
__constant__ WORD k[64] = {
\t0x428a2f98,0x71374491,0xb5c0fbcf,0xe9b5dba5,0x3956c25b,0x59f111f1,0x923f82a4,0xab1c5ed5,
\t0xd807aa98,0x12835b01,0x243185be,0x550c7dc3,0x72be5d74,0x80deb1fe,0x9bdc06a7,0xc19bf174,
\t0xe49b69c1,0xefbe4786,0x0fc19dc6,0x240ca1cc,0x2de92c6f,0x4a7484aa,0x5cb0a9dc,0x76f988da,
\t0x983e5152,0xa831c66d,0xb00327c8,0xbf597fc7,0xc6e00bf3,0xd5a79147,0x06ca6351,0x14292967,
\t0x27b70a85,0x2e1b2138,0x4d2c6dfc,0x53380d13,0x650a7354,0x766a0abb,0x81c2c92e,0x92722c85,
\t0xa2bfe8a1,0xa81a664b,0xc24b8b70,0xc76c51a3,0xd192e819,0xd6990624,0xf40e3585,0x106aa070,
\t0x19a4c116,0x1e376c08,0x2748774c,0x34b0bcb5,0x391c0cb3,0x4ed8aa4a,0x5b9cca4f,0x682e6ff3,
\t0x748f82ee,0x78a5636f,0x84c87814,0x8cc70208,0x90befffa,0xa4506ceb,0xbef9a3f7,0xc67178f2
};

/*********************** FUNCTION DEFINITIONS ***********************/
__device__  __forceinline__ void cuda_sha256_transform(CUDA_SHA256_CTX *ctx, const BYTE data[])
{
\tWORD a, b, c, d, e, f, g, h, i, j, t1, t2, m[64];

\tfor (i = 0, j = 0; i < 16; ++i, j += 4)
\t\tm[i] = (data[j] << 24) | (data[j + 1] << 16) | (data[j + 2] << 8) | (data[j + 3]);
\tfor ( ; i < 64; ++i)
\t\tm[i] = SIG1(m[i - 2]) + m[i - 7] + SIG0(m[i - 15]) + m[i - 16];

\ta = ctx->state[0];
\tb = ctx->state[1];
\tc = ctx->state[2];
\td = ctx->state[3];
\te = ctx->state[4];
\tf = ctx->state[5];
\tg = ctx->state[6];
\th = ctx->state[7];

\tfor (i = 0; i < 64; ++i) {
\t\tt1 = h + EP1(e) + CH(e,f,g) + k[i] + m[i];
\t\tt2 = EP0(a) + MAJ(a,b,c);
\t\th = g;
\t\tg = f;
\t\tf = e;
\t\te = d + t1;
\t\td = c;
\t\tc = b;
\t\tb = a;
\t\ta = t1 + t2;
\t}

\tctx->state[0] += a;
\tctx->state[1] += b;
\tctx->state[2] += c;
\tctx->state[3] += d;
\tctx->state[4] += e;
\tctx->state[5] += f;
\tctx->state[6] += g;
\tctx->state[7] += h;
}

__device__ void cuda_sha256_init(CUDA_SHA256_CTX *ctx)
{
\tctx->datalen = 0;
\tctx->bitlen = 0;
\tctx->state[0] = 0x6a09e667;
\tctx->state[1] = 0xbb67ae85;
\tctx->state[2] = 0x3c6ef372;
\tctx->state[3] = 0xa54ff53a;
\tctx->state[4] = 0x510e527f;
\tctx->state[5] = 0x9b05688c;
\tctx->state[6] = 0x1f83d9ab;
\tctx->state[7] = 0x5be0cd19;
}

__device__ void cuda_sha256_update(CUDA_SHA256_CTX *ctx, const BYTE data[], size_t len)
{
\tWORD i;

\tfor (i = 0; i < len; ++i) {
\t\tctx->data[ctx->datalen] = data[i];
\t\tctx->datalen++;
\t\tif (ctx->datalen == 64) {
\t\t\tcuda_sha256_transform(ctx, ctx->data);
\t\t\tctx->bitlen += 512;
\t\t\tctx->datalen = 0;
\t\t}
\t}
}

__device__ void cuda_sha256_final(CUDA_SHA256_CTX *ctx, BYTE hash[])
{
\tWORD i;

\ti = ctx->datalen;

\t// Pad whatever data is left in the buffer.
\tif (ctx->datalen < 56) {
\t\tctx->data[i++] = 0x80;
\t\twhile (i < 56)
\t\t\tctx->data[i++] = 0x00;
\t}
\telse {
\t\tctx->data[i++] = 0x80;
\t\twhile (i < 64)
\t\t\tctx->data[i++] = 0x00;
\t\tcuda_sha256_transform(ctx, ctx->data);
\t\tmemset(ctx->data, 0, 56);
\t}

\t// Append to the padding the total message's length in bits and transform.
\tctx->bitlen += ctx->datalen * 8;
\tctx->data[63] = ctx->bitlen;
\tctx->data[62] = ctx->bitlen >> 8;
\tctx->data[61] = ctx->bitlen >> 16;
\tctx->data[60] = ctx->bitlen >> 24;
\tctx->data[59] = ctx->bitlen >> 32;
\tctx->data[58] = ctx->bitlen >> 40;
\tctx->data[57] = ctx->bitlen >> 48;
\tctx->data[56] = ctx->bitlen >> 56;
\tcuda_sha256_transform(ctx, ctx->data);

\t// Since this implementation uses little endian byte ordering and SHA uses big endian,
\t// reverse all the bytes when copying the final state to the output hash.
\tfor (i = 0; i < 4; ++i) {
\t\thash[i]      = (ctx->state[0] >> (24 - i * 8)) & 0x000000ff;
\t\thash[i + 4]  = (ctx->state[1] >> (24 - i * 8)) & 0x000000ff;
\t\thash[i + 8]  = (ctx->state[2] >> (24 - i * 8)) & 0x000000ff;
\t\thash[i + 12] = (ctx->state[3] >> (24 - i * 8)) & 0x000000ff;
\t\thash[i + 16] = (ctx->state[4] >> (24 - i * 8)) & 0x000000ff;
\t\thash[i + 20] = (ctx->state[5] >> (24 - i * 8)) & 0x000000ff;
\t\thash[i + 24] = (ctx->state[6] >> (24 - i * 8)) & 0x000000ff;
\t\thash[i + 28] = (ctx->state[7] >> (24 - i * 8)) & 0x000000ff;
\t}
}

__global__ void kernel_sha256_hash(BYTE* indata, WORD inlen, BYTE* outdata, WORD n_batch)
{
\tWORD thread = blockIdx.x * blockDim.x + threadIdx.x;
\tif (thread >= n_batch)
\t{
\t\treturn;
\t}
\tBYTE* in = indata  + thread * inlen;
\tBYTE* out = outdata  + thread * SHA256_BLOCK_SIZE;
\tCUDA_SHA256_CTX ctx;
\tcuda_sha256_init(&ctx);
\tcuda_sha256_update(&ctx, in, inlen);
\tcuda_sha256_final(&ctx, out);
}

// (the file's host function, mcm_cuda_sha256_hash_batch, follows here: cudaMalloc,
// cudaMemcpy, kernel_sha256_hash << < block, thread >> > with thread = 256 and block =
// (n_batch + thread - 1) / thread; NVRTC compiles device code only, so it is left out)
"""

_SHA256_WGSL = """
// a WebGPU port of mochimodev/cuda-hashing-algos' kernel_sha256_hash (Brad Conte's
// sha256.c): one message of inlen bytes an invocation. WGSL has no bytes: the messages
// are read out of u32 words (little-endian, as the bytes lie in memory) and each digest
// written as 8 words whose bytes, in memory, are the digest's
struct Params { inlen: u32, n_batch: u32 }

@group(0) @binding(0) var<storage, read> indata: array<u32>;
@group(0) @binding(1) var<storage, read_write> outdata: array<u32>;
@group(0) @binding(2) var<uniform> p: Params;

const k = array<u32, 64>(
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
    0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
    0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
    0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
    0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
    0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
    0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u
);

fn rotr(a: u32, b: u32) -> u32 { return (a >> b) | (a << (32u - b)); }
fn ch(x: u32, y: u32, z: u32) -> u32 { return (x & y) ^ (~x & z); }
fn maj(x: u32, y: u32, z: u32) -> u32 { return (x & y) ^ (x & z) ^ (y & z); }
fn ep0(x: u32) -> u32 { return rotr(x, 2u) ^ rotr(x, 13u) ^ rotr(x, 22u); }
fn ep1(x: u32) -> u32 { return rotr(x, 6u) ^ rotr(x, 11u) ^ rotr(x, 25u); }
fn sig0(x: u32) -> u32 { return rotr(x, 7u) ^ rotr(x, 18u) ^ (x >> 3u); }
fn sig1(x: u32) -> u32 { return rotr(x, 17u) ^ rotr(x, 19u) ^ (x >> 10u); }

// the context: data as one byte a u32 element
var<private> data: array<u32, 64>;
var<private> datalen: u32;
var<private> bitlen: vec2<u32>;  // (low, high) words: WGSL has no 64-bit integers
var<private> state: array<u32, 8>;

fn transform() {
    var m: array<u32, 64>;
    for (var i = 0u; i < 16u; i++) {
        let j = i * 4u;
        m[i] = (data[j] << 24u) | (data[j + 1u] << 16u) | (data[j + 2u] << 8u) | data[j + 3u];
    }
    for (var i = 16u; i < 64u; i++) {
        m[i] = sig1(m[i - 2u]) + m[i - 7u] + sig0(m[i - 15u]) + m[i - 16u];
    }
    var a = state[0]; var b = state[1]; var c = state[2]; var d = state[3];
    var e = state[4]; var f = state[5]; var g = state[6]; var h = state[7];
    for (var i = 0u; i < 64u; i++) {
        let t1 = h + ep1(e) + ch(e, f, g) + k[i] + m[i];
        let t2 = ep0(a) + maj(a, b, c);
        h = g; g = f; f = e; e = d + t1;
        d = c; c = b; b = a; a = t1 + t2;
    }
    state[0] += a; state[1] += b; state[2] += c; state[3] += d;
    state[4] += e; state[5] += f; state[6] += g; state[7] += h;
}

fn add_bits(n: u32) {
    let low = bitlen.x + n;
    bitlen = vec2<u32>(low, bitlen.y + select(0u, 1u, low < n));
}

fn byte_at(i: u32) -> u32 {
    return (indata[i / 4u] >> ((i % 4u) * 8u)) & 0xffu;
}

@compute @workgroup_size(256)
fn kernel_sha256_hash(@builtin(global_invocation_id) gid: vec3<u32>) {
    let thread = gid.x;
    if (thread >= p.n_batch) {
        return;
    }
    // init
    datalen = 0u;
    bitlen = vec2<u32>(0u, 0u);
    state = array<u32, 8>(0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
                          0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u);
    // update
    let base = thread * p.inlen;
    for (var i = 0u; i < p.inlen; i++) {
        data[datalen] = byte_at(base + i);
        datalen++;
        if (datalen == 64u) {
            transform();
            add_bits(512u);
            datalen = 0u;
        }
    }
    // final: pad whatever data is left in the buffer
    var i = datalen;
    if (datalen < 56u) {
        data[i] = 0x80u;
        i++;
        while (i < 56u) { data[i] = 0u; i++; }
    } else {
        data[i] = 0x80u;
        i++;
        while (i < 64u) { data[i] = 0u; i++; }
        transform();
        for (var z = 0u; z < 56u; z++) { data[z] = 0u; }
    }
    // append the total message's length in bits, big-endian, and transform
    add_bits(datalen * 8u);
    for (var b = 0u; b < 4u; b++) {
        data[63u - b] = (bitlen.x >> (b * 8u)) & 0xffu;
        data[59u - b] = (bitlen.y >> (b * 8u)) & 0xffu;
    }
    transform();
    // the digest is the state big-endian: byte-swap each word into memory order
    for (var w = 0u; w < 8u; w++) {
        let s = state[w];
        outdata[thread * 8u + w] = (s >> 24u) | ((s >> 8u) & 0xff00u) | ((s << 8u) & 0xff0000u) | (s << 24u);
    }
}
"""


def _sha256_reference(indata, outdata, inlen, n_batch):
    messages = indata.reshape(n_batch, inlen)
    for t in range(n_batch):
        outdata[t * 32 : (t + 1) * 32] = np.frombuffer(
            hashlib.sha256(messages[t].tobytes()).digest(), np.uint8
        )


SHA256 = Wild(
    KernelSpec(
        id="wild_r36_mochimo_sha256_one_message_a_thread",
        entry_point="kernel_sha256_hash",
        sources={"cuda": _SHA256_CUDA, "wgsl": _SHA256_WGSL},
        dims=("n_batch", "inlen"),
        buffers=(
            BufferSpec(0, "u8", "read", name="indata", count="n_batch*inlen"),
            BufferSpec(1, "u8", "read_write", name="outdata", count="n_batch*32"),
            BufferSpec.uniform(2, (("inlen", "u32"), ("n_batch", "u32"))),
        ),
        reference=_sha256_reference,
        params=lambda size: dict(size.dims),
        include_dirs=(_INCLUDE,),
        grid=lambda s, size: (ceil_div(size.n_batch, 256), 1, 1),
        schedules=(Schedule(256),),
        # padding in the message's last block (55 bytes), in a block of its own (56), two
        # blocks and a tail past 56 (121 = 64 + 57); a partial block of threads each
        test_sizes=("n_batch=300,inlen=55", "n_batch=37,inlen=56", "n_batch=3,inlen=121"),
    ),
    {
        "CUDA: EP1 rotates by 12, not 11": (
            "cuda",
            "#define EP1(x) (ROTRIGHT(x,6) ^ ROTRIGHT(x,11) ^ ROTRIGHT(x,25))",
            "#define EP1(x) (ROTRIGHT(x,6) ^ ROTRIGHT(x,12) ^ ROTRIGHT(x,25))",
        ),
        "CUDA: a 56-byte tail padded in its own block": (
            "cuda",
            "if (ctx->datalen < 56) {",
            "if (ctx->datalen <= 56) {",
        ),
        "CUDA: the length counted in bytes": (
            "cuda",
            "ctx->bitlen += ctx->datalen * 8;",
            "ctx->bitlen += ctx->datalen;",
        ),
        "EP1 rotates by 12, not 11": (
            "wgsl",
            "rotr(x, 6u) ^ rotr(x, 11u) ^ rotr(x, 25u)",
            "rotr(x, 6u) ^ rotr(x, 12u) ^ rotr(x, 25u)",
        ),
        "a 56-byte tail padded in its own block": (
            "wgsl",
            "if (datalen < 56u) {",
            "if (datalen <= 56u) {",
        ),
        "message bytes read big-endian": (
            "wgsl",
            "return (indata[i / 4u] >> ((i % 4u) * 8u)) & 0xffu;",
            "return (indata[i / 4u] >> ((3u - i % 4u) * 8u)) & 0xffu;",
        ),
        "digest words not byte-swapped": (
            "wgsl",
            "outdata[thread * 8u + w] = (s >> 24u) | ((s >> 8u) & 0xff00u) | ((s << 8u) & 0xff0000u) | (s << 24u);",
            "outdata[thread * 8u + w] = s;",
        ),
    },
)


ROUND36: dict[str, Wild] = {w.kernel.id: w for w in (SHA256,)}

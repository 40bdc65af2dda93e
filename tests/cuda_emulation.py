"""Runs the generated CUDA C of a tensor-core matmul (``mma=1`` with cp.async stages) on
the CPU, so that its index math, swizzle, fragment layouts and pipeline are checked on
machines without a GPU.

The kernel's own text is compiled by the host C++ compiler (g++ or clang++) with every
CUDA thread a host thread: ``__syncthreads`` is a barrier of the block's threads, and
the PTX primitives (the ``fg_*`` device functions the emitter writes, see
``forge/emit/_mma_pipeline.py``) are replaced by emulations written from the PTX ISA's
descriptions:

- ``ldmatrix.x4[.trans]``: the 32 lanes give one row address each (matrix ``lane / 8``,
  row ``lane % 8``); lane ``l`` receives, of matrix ``j``, elements ``(l / 4, 2(l % 4))``
  and ``(l / 4, 2(l % 4) + 1)``, transposed with ``.trans``;
- ``mma.sync.m16n8k16.row.col``: a0..a3 hold A rows g, g+8 and columns 2t, 2t+8 (+1);
  b0, b1 hold B rows 2t, 2t+8 (+1) of column g; c0..c3 rows g, g+8, columns 2t, 2t+1
  (g = lane / 4, t = lane % 4);
- ``mma.sync.m16n8k8.row.col...tf32`` (f32 inputs declared TF32): a0..a3 hold A (g, t),
  (g+8, t), (g, t+4), (g+8, t+4); b0, b1 hold B (t, g), (t+4, g); c as above. A tensor
  core reads 10 of an operand's 23 mantissa bits: the emulation truncates the low 13,
  so a fragment that skipped ``cvt.rna.tf32.f32`` (emulated bit for bit: half a TF32 ulp
  added, the low 13 bits cleared, Inf and NaN kept) shows;
- ``ld.shared.b32``: one float a lane, its bank conflicts counted as ``ldmatrix``'s
  (two lanes reading different words of one bank);
- ``cp.async.cg`` 16 bytes with a source size (the rest zero-filled), in commit groups:
  either done at issue (``early``, as fast hardware may) or only when a
  ``cp.async.wait_group`` retires its group (``late``), which finds a tile read before
  its wait.

Every shared-memory access is checked against the declared array, every cp.async source
against the 16-byte alignment it needs, and every copy must have been waited for when a
thread ends. Races are errors too: a 16-byte chunk of shared memory written by one
thread (a copy when it lands, a store) and read or written by another with no
``__syncthreads`` between them, in whichever order the host threads ran them.
``ldmatrix`` phases whose 8 rows share a bank are counted (the swizzle should leave
none). The program is built with AddressSanitizer where the compiler has it, so a load
past an operand's end is an error, not a silent read.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["compiler", "Emulated", "emulate_matmul"]

_CACHE = Path(tempfile.gettempdir()) / "kernel-forge-cuda-emulation"

_PRELUDE = r"""
#include <barrier>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(n)
#define __align__(n) __attribute__((aligned(n)))
#define __shared__ static

struct fg_dim3 { unsigned int x, y, z; };
static thread_local fg_dim3 threadIdx;
static fg_dim3 blockIdx, gridDim;
struct __half { uint16_t bits; };
struct __nv_bfloat16 { uint16_t bits; };
struct __attribute__((aligned(8))) float2 { float x, y; };
static inline float2 make_float2(float x, float y) { return float2{x, y}; }

static std::barrier<>* fg_block;
static thread_local unsigned int fg_generation;  // barriers this thread has passed
static inline void __syncthreads() {
    fg_block->arrive_and_wait();
    fg_generation += 1;
}

static void fg_fail(const char* what, unsigned long long value) {
    std::fprintf(stderr, "EMULATION ERROR: %s (%llu)\n", what, value);
    std::fflush(stderr);
    std::_Exit(3);
}

// -- the block's shared memory and the operands' extents -----------------------------
static unsigned char* fg_shared_base;
static const unsigned char* fg_extent_lo[2];
static const unsigned char* fg_extent_hi[2];
static inline unsigned char* fg_shared_at(unsigned int address, unsigned int bytes) {
    if (address % 16u) fg_fail("shared access not 16-byte aligned", address);
    if ((unsigned long long)address + bytes > FG_SMEM_BYTES)
        fg_fail("shared access past the array", address);
    return fg_shared_base + address;
}

// Races: two threads' accesses to one 16-byte chunk, one a write, with no barrier
// between them (the same barrier generation), whatever the order they happened in.
struct fg_Chunk {
    unsigned int write_generation, read_generation;
    int writer, reader;  // threads; reader -2: several
};
static std::mutex fg_race_lock;
static std::vector<fg_Chunk> fg_chunks;
static thread_local unsigned int fg_thread;

static inline void fg_forget_accesses() {
    fg_chunks.assign(FG_SMEM_BYTES / 16, fg_Chunk{~0u, ~0u, -1, -1});
}

static inline void fg_note_read(unsigned int address) {
    std::lock_guard<std::mutex> hold(fg_race_lock);
    fg_Chunk& c = fg_chunks[address / 16];
    const int me = (int)fg_thread;
    if (c.write_generation == fg_generation && c.writer != me)
        fg_fail("race: a read of shared memory another thread wrote since the last barrier",
                address);
    if (c.read_generation != fg_generation) {
        c.read_generation = fg_generation;
        c.reader = me;
    } else if (c.reader != me) {
        c.reader = -2;
    }
}

static inline void fg_note_write(unsigned int address) {
    std::lock_guard<std::mutex> hold(fg_race_lock);
    fg_Chunk& c = fg_chunks[address / 16];
    const int me = (int)fg_thread;
    if (c.read_generation == fg_generation && c.reader != me)
        fg_fail("race: a write to shared memory another thread read since the last barrier",
                address);
    if (c.write_generation == fg_generation && c.writer != me)
        fg_fail("race: two threads wrote shared memory since the last barrier", address);
    c.write_generation = fg_generation;
    c.writer = me;
}
static inline void fg_check_source(const void* src, unsigned int bytes) {
    const unsigned char* p = (const unsigned char*)src;
    if ((uintptr_t)p % 16u) fg_fail("cp.async source not 16-byte aligned", (uintptr_t)p % 16u);
    if (bytes > 16u) fg_fail("cp.async source size over 16", bytes);
    for (int i = 0; i < 2; ++i)
        if (p >= fg_extent_lo[i] && p < fg_extent_hi[i]) {
            if (p + bytes > fg_extent_hi[i]) fg_fail("cp.async reads past an operand", bytes);
            return;
        }
    fg_fail("cp.async source outside the operands", 0);
}

// -- warps ------------------------------------------------------------------------------
struct fg_Warp {
    std::barrier<> bar{32};
    unsigned int addr[32];
    unsigned int ra[32][4];
    unsigned int rb[32][2];
};
static fg_Warp* fg_warps;
static std::atomic<unsigned long long> fg_conflicts{0}, fg_ldmatrix{0}, fg_async{0}, fg_sync{0},
    fg_words{0};

static inline uint16_t fg_half_at(unsigned int row_address, unsigned int element) {
    uint16_t h;
    std::memcpy(&h, fg_shared_at(row_address, 16) + 2 * element, 2);
    return h;
}

static inline void fg_ldmatrix_any(unsigned int* r, unsigned int src, bool trans) {
    fg_Warp& w = fg_warps[fg_thread / 32];
    const unsigned int lane = fg_thread % 32;
    fg_shared_at(src, 16);
    fg_note_read(src);
    w.addr[lane] = src;
    w.bar.arrive_and_wait();
    const unsigned int g = lane / 4, t = lane % 4;
    for (int j = 0; j < 4; ++j) {
        uint16_t lo, hi;
        if (!trans) {
            lo = fg_half_at(w.addr[8 * j + g], 2 * t);
            hi = fg_half_at(w.addr[8 * j + g], 2 * t + 1);
        } else {
            lo = fg_half_at(w.addr[8 * j + 2 * t], g);
            hi = fg_half_at(w.addr[8 * j + 2 * t + 1], g);
        }
        r[j] = (unsigned int)lo | (unsigned int)hi << 16;
    }
    if (lane == 0) {
        fg_ldmatrix += 1;
        for (int j = 0; j < 4; ++j) {
            unsigned int seen = 0;
            for (int i = 0; i < 8; ++i) {
                const unsigned int group = w.addr[8 * j + i] / 16u % 8u;
                if (seen & (1u << group)) { fg_conflicts += 1; break; }
                seen |= 1u << group;
            }
        }
    }
    w.bar.arrive_and_wait();
}

static inline void fg_ldmatrix_x4(unsigned int* r, unsigned int src) {
    fg_ldmatrix_any(r, src, false);
}

// ld.shared.b32: warp-wide, so that its bank conflicts are counted
static inline unsigned int fg_ld_shared32(unsigned int src) {
    fg_Warp& w = fg_warps[fg_thread / 32];
    const unsigned int lane = fg_thread % 32;
    if (src % 4u) fg_fail("ld.shared.b32 not 4-byte aligned", src);
    fg_shared_at(src - src % 16u, 16);
    fg_note_read(src - src % 16u);
    w.addr[lane] = src;
    w.bar.arrive_and_wait();
    if (lane == 0) {
        fg_words += 1;
        unsigned int word[32];
        bool busy[32] = {};
        for (int i = 0; i < 32; ++i) {
            const unsigned int bank = w.addr[i] / 4u % 32u;
            if (busy[bank] && word[bank] != w.addr[i]) { fg_conflicts += 1; break; }
            busy[bank] = true;
            word[bank] = w.addr[i];
        }
    }
    unsigned int value;
    std::memcpy(&value, fg_shared_base + src, 4);
    w.bar.arrive_and_wait();
    return value;
}

static inline unsigned int fg_cvt_tf32(unsigned int bits) {
    if ((bits & 0x7f800000u) == 0x7f800000u) return bits;
    return (bits + 0x1000u) & 0xffffe000u;
}
static inline void fg_ldmatrix_x4_trans(unsigned int* r, unsigned int src) {
    fg_ldmatrix_any(r, src, true);
}

static inline float fg_value(uint16_t h) {
#if FG_BF16
    const uint32_t bits = (uint32_t)h << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
#else
    _Float16 f;
    std::memcpy(&f, &h, 2);
    return (float)f;
#endif
}

static inline float fg_a_at(const fg_Warp& w, unsigned int row, unsigned int k) {
    const unsigned int lane = (row % 8) * 4 + (k % 8) / 2;
    const unsigned int reg = (row >= 8 ? 1 : 0) + (k >= 8 ? 2 : 0);
    return fg_value((uint16_t)(w.ra[lane][reg] >> (16 * (k % 2))));
}

static inline float fg_b_at(const fg_Warp& w, unsigned int k, unsigned int col) {
    const unsigned int lane = col * 4 + (k % 8) / 2;
    const unsigned int reg = k >= 8 ? 1 : 0;
    return fg_value((uint16_t)(w.rb[lane][reg] >> (16 * (k % 2))));
}

static inline void fg_mma_16816(float* d, const unsigned int* a, const unsigned int* b) {
    fg_Warp& w = fg_warps[fg_thread / 32];
    const unsigned int lane = fg_thread % 32;
    for (int i = 0; i < 4; ++i) w.ra[lane][i] = a[i];
    for (int i = 0; i < 2; ++i) w.rb[lane][i] = b[i];
    w.bar.arrive_and_wait();
    const unsigned int g = lane / 4, t = lane % 4;
    for (int i = 0; i < 4; ++i) {
        const unsigned int row = g + 8 * (i / 2), col = 2 * t + i % 2;
        double sum = 0.0;
        for (unsigned int k = 0; k < 16; ++k)
            sum += (double)fg_a_at(w, row, k) * fg_b_at(w, k, col);
        d[i] = (float)((double)d[i] + sum);
    }
    w.bar.arrive_and_wait();
}

static inline float fg_tf32_operand(unsigned int bits) {
    bits &= 0xffffe000u;  // the 10 mantissa bits a tensor core reads
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

static inline void fg_mma_1688(float* d, const unsigned int* a, const unsigned int* b) {
    fg_Warp& w = fg_warps[fg_thread / 32];
    const unsigned int lane = fg_thread % 32;
    for (int i = 0; i < 4; ++i) w.ra[lane][i] = a[i];
    for (int i = 0; i < 2; ++i) w.rb[lane][i] = b[i];
    w.bar.arrive_and_wait();
    const unsigned int g = lane / 4, t = lane % 4;
    for (int i = 0; i < 4; ++i) {
        const unsigned int row = g + 8 * (i / 2), col = 2 * t + i % 2;
        double sum = 0.0;
        for (unsigned int k = 0; k < 8; ++k) {
            const unsigned int a_reg = (row >= 8 ? 1 : 0) + (k >= 4 ? 2 : 0);
            const unsigned int a_bits = w.ra[(row % 8) * 4 + k % 4][a_reg];
            const unsigned int b_bits = w.rb[col * 4 + k % 4][k >= 4 ? 1 : 0];
            sum += (double)fg_tf32_operand(a_bits) * fg_tf32_operand(b_bits);
        }
        d[i] = (float)((double)d[i] + sum);
    }
    w.bar.arrive_and_wait();
}

// -- cp.async ----------------------------------------------------------------------------
struct fg_Copy { unsigned int dst; const void* src; unsigned int bytes; };
static thread_local std::vector<fg_Copy> fg_open;
static thread_local std::deque<std::vector<fg_Copy>> fg_groups;

static inline void fg_land(const fg_Copy& c) {
    fg_note_write(c.dst);
    unsigned char* to = fg_shared_at(c.dst, 16);
    std::memset(to, 0, 16);
    if (c.bytes) std::memcpy(to, c.src, c.bytes);
}

static inline void fg_cp_async16(unsigned int dst, const void* src, unsigned int bytes) {
    fg_shared_at(dst, 16);
    fg_check_source(src, bytes);
    fg_async += 1;
    const fg_Copy c{dst, src, bytes};
    if (FG_EARLY) fg_land(c); else fg_open.push_back(c);
}

static inline void fg_cp_async_commit() {
    fg_groups.push_back(fg_open);
    fg_open.clear();
}

static inline void fg_retire(size_t pending) {
    while (fg_groups.size() > pending) {
        for (const fg_Copy& c : fg_groups.front()) fg_land(c);
        fg_groups.pop_front();
    }
}

static inline void fg_cp_async_wait_stage() { fg_retire(FG_PENDING); }
static inline void fg_cp_async_wait_all() { fg_cp_async_commit(); fg_retire(0); }

static inline void fg_st_shared16(
        unsigned int dst, unsigned int x, unsigned int y, unsigned int z, unsigned int w) {
    const unsigned int words[4] = {x, y, z, w};
    fg_note_write(dst);
    std::memcpy(fg_shared_at(dst, 16), words, 16);
    fg_sync += 1;
}

static inline unsigned int fg_shared_address(const void* pointer) {
    fg_shared_base = (unsigned char*)pointer;
    return 0u;
}
"""

_DRIVER = r"""
template <typename T>
static T* fg_read(const char* path, size_t count, size_t offset) {
    T* data = new (std::align_val_t(64)) T[count + offset];
    FILE* f = std::fopen(path, "rb");
    if (!f || std::fread(data + offset, sizeof(T), count, f) != count)
        fg_fail("cannot read input", count);
    std::fclose(f);
    return data;
}

int main(int argc, char** argv) {
    if (argc != 13) fg_fail("usage", argc);
    const std::string dir = argv[1];
    fg_Params p{};
    p.alpha = std::strtof(argv[2], nullptr);
    p.beta = std::strtof(argv[3], nullptr);
    p.m = std::strtoul(argv[4], nullptr, 10);
    p.n = std::strtoul(argv[5], nullptr, 10);
    p.k = std::strtoul(argv[6], nullptr, 10);
    const unsigned int blocks = std::strtoul(argv[7], nullptr, 10);
    const unsigned int threads = std::strtoul(argv[8], nullptr, 10);
    const size_t a_offset = std::strtoul(argv[9], nullptr, 10);
    const size_t b_offset = std::strtoul(argv[10], nullptr, 10);
    const size_t a_count = (size_t)p.m * p.k, b_count = (size_t)p.k * p.n;
    const size_t c_count = (size_t)p.m * p.n;
    (void)argv[11]; (void)argv[12];
    FG_ELEMENT* a = fg_read<FG_ELEMENT>((dir + "/a.bin").c_str(), a_count, a_offset);
    FG_ELEMENT* b = fg_read<FG_ELEMENT>((dir + "/b.bin").c_str(), b_count, b_offset);
    float* c = fg_read<float>((dir + "/c.bin").c_str(), c_count, 0);
    fg_extent_lo[0] = (const unsigned char*)(a + a_offset);
    fg_extent_hi[0] = (const unsigned char*)(a + a_offset + a_count);
    fg_extent_lo[1] = (const unsigned char*)(b + b_offset);
    fg_extent_hi[1] = (const unsigned char*)(b + b_offset + b_count);
    gridDim = fg_dim3{blocks, 1, 1};
    for (unsigned int block = 0; block < blocks; ++block) {
        blockIdx = fg_dim3{block, 0, 0};
        fg_forget_accesses();
        std::barrier<> barrier(threads);
        fg_block = &barrier;
        std::vector<fg_Warp> warps(threads / 32);
        fg_warps = warps.data();
        std::vector<std::thread> pool;
        for (unsigned int t = 0; t < threads; ++t)
            pool.emplace_back([=]() {
                threadIdx = fg_dim3{t % 32u, t / 32u, 0u};
                fg_thread = t;
                FG_ENTRY((const FG_HALF*)(a + a_offset), (const FG_HALF*)(b + b_offset), c, p);
                if (!fg_open.empty() || !fg_groups.empty()) fg_fail("cp.async never waited for", t);
            });
        for (std::thread& t : pool) t.join();
    }
    FILE* f = std::fopen((dir + "/out.bin").c_str(), "wb");
    std::fwrite(c, sizeof(float), c_count, f);
    std::fclose(f);
    std::printf("ldmatrix %llu conflicts %llu async %llu sync %llu words %llu\n",
        (unsigned long long)fg_ldmatrix, (unsigned long long)fg_conflicts,
        (unsigned long long)fg_async, (unsigned long long)fg_sync,
        (unsigned long long)fg_words);
    return 0;
}
"""

_PRIMITIVE = re.compile(
    r"^__device__ __forceinline__ [^{]*?\bfg_\w+\([^)]*\) \{\n.*?^\}\n", re.M | re.S
)


@functools.cache
def compiler() -> str | None:
    """A host C++20 compiler, or None."""
    for name in (os.environ.get("CXX"), "g++", "clang++"):
        if name and shutil.which(name):
            return name
    return None


@functools.cache
def _sanitizer_flags(cxx: str) -> tuple[str, ...]:
    """AddressSanitizer's flags where the compiler can link it, else none."""
    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "probe.cpp"
        probe.write_text("int main() { return 0; }\n")
        flags = ("-fsanitize=address", "-fno-omit-frame-pointer")
        result = subprocess.run(
            [cxx, *flags, str(probe), "-o", str(Path(tmp) / "probe")], capture_output=True
        )
        return flags if result.returncode == 0 else ()


@dataclass(frozen=True)
class Emulated:
    """What the emulated kernel wrote to ``c`` and what it did."""

    c: np.ndarray
    ldmatrix: int
    # ldmatrix matrices whose 8 rows did not fall in 8 bank groups, and ld.shared.b32
    # whose 32 lanes read two words of one bank
    conflicts: int
    async_copies: int
    sync_stores: int
    words: int = 0  # warp-wide ld.shared.b32 (tf32 fragments of a tile along m or n)


def _program(source: str, entry: str, inputs: str, pending: int, early: bool, smem: int) -> Path:
    body = re.sub(r"^#include <cuda_\w+\.h>\n", "", source, flags=re.M)
    body = re.sub(  # dynamic shared memory: the launch's bytes, here a static array
        r"extern __shared__ (__align__\(\d+\)) unsigned char fg_smem\[\];",
        r"__shared__ \1 unsigned char fg_smem[FG_SMEM_BYTES];",
        body,
    )
    body, count = _PRIMITIVE.subn("", body)
    assert count >= 9, "the kernel's PTX primitives were not found"
    tf32 = inputs in ("tf32", "tf32rz")  # f32 in memory, rounded or truncated
    half = "float" if tf32 else {"bf16": "__nv_bfloat16"}.get(inputs, "__half")
    defines = (
        f"#define FG_SMEM_BYTES {smem}ull\n#define FG_PENDING {pending}\n"
        f"#define FG_EARLY {int(early)}\n#define FG_BF16 {int(inputs == 'bf16')}\n"
        f"#define FG_HALF {half}\n"
        f"#define FG_ELEMENT {'uint32_t' if tf32 else 'uint16_t'}\n"
        f"#define FG_ENTRY {entry}\n#include <string>\n"
    )
    return _built(defines + _PRELUDE + body + _DRIVER, "mma")


def _built(text: str, prefix: str) -> Path:
    """The host program of C++ ``text``, compiled once (cached by its text, flags and
    compiler) with AddressSanitizer where the compiler has it."""
    cxx = compiler()
    assert cxx is not None
    flags = ("-std=c++20", "-O1", "-pthread", *_sanitizer_flags(cxx))
    key = hashlib.sha256((text + " ".join(flags) + cxx).encode()).hexdigest()[:24]
    binary = _CACHE / f"{prefix}-{key}"
    if binary.exists():
        return binary
    _CACHE.mkdir(parents=True, exist_ok=True)
    cpp = _CACHE / f"{prefix}-{key}.cpp"
    cpp.write_text(text)
    partial = binary.with_suffix(f".{os.getpid()}.tmp")
    result = subprocess.run(
        [cxx, *flags, str(cpp), "-o", str(partial)], capture_output=True, text=True
    )
    if result.returncode:
        raise AssertionError(f"the emulation did not compile:\n{result.stderr[-4000:]}")
    partial.replace(binary)
    return binary


def emulate_matmul(
    kernel,
    schedule,
    a: np.ndarray,
    b: np.ndarray,
    c: np.ndarray,
    dims: dict[str, int],
    alpha: float,
    beta: float,
    *,
    early: bool,
    offsets: tuple[int, int] = (0, 0),
    max_blocks: int | None = None,
    mutate=None,
) -> Emulated:
    """Run ``kernel`` (a mixed-precision ``ir.matmul`` under a pipelined ``mma=1``
    schedule) on the flat buffers ``a``, ``b`` (f16 or bf16, or f32 for TF32 inputs,
    each laid out as the kernel says) and ``c`` (f32, m x n). ``offsets`` moves a and b
    that many elements past a 64-byte boundary (1: only 2- or 4-byte aligned, so the
    kernel must not use cp.async); ``max_blocks`` caps the grid (the kernel then strides
    over the rest); ``mutate`` changes the source first (a broken twin, to prove a
    check)."""
    import forge

    body = kernel.body.pattern
    geometry = forge.emit._mma_pipeline.geometry(schedule, body)
    source = kernel.source("cuda", schedule)
    if mutate is not None:
        source = mutate(source)
    m, n, k = dims["m"], dims["n"], dims["k"]
    tiles = -(-m // geometry.bm) * -(-n // geometry.bn)
    blocks = max(1, min(tiles, max_blocks or tiles))
    program = _program(
        source,
        kernel.entry_point,
        body.input_dtype,
        geometry.stages - 2,
        early,
        geometry.shared_bytes,
    )
    with tempfile.TemporaryDirectory() as tmp:
        for name, array in (("a", a), ("b", b)):
            word = np.uint32 if np.dtype(array.dtype).itemsize == 4 else np.uint16
            np.ascontiguousarray(array).view(word).tofile(f"{tmp}/{name}.bin")
        np.ascontiguousarray(c, dtype=np.float32).tofile(f"{tmp}/c.bin")
        args = [str(program), tmp, repr(float(alpha)), repr(float(beta)), str(m), str(n), str(k)]
        args += [str(blocks), str(geometry.threads), str(offsets[0]), str(offsets[1]), "0", "0"]
        env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
        result = subprocess.run(args, capture_output=True, text=True, env=env, timeout=600)
        if result.returncode:
            raise AssertionError(
                f"the emulated kernel failed ({result.returncode}):\n{result.stderr[-4000:]}"
            )
        out = np.fromfile(f"{tmp}/out.bin", np.float32).reshape(m, n)
    counts = dict(zip(*[iter(result.stdout.split())] * 2))
    return Emulated(
        out,
        int(counts["ldmatrix"]),
        int(counts["conflicts"]),
        int(counts["async"]),
        int(counts["sync"]),
        int(counts["words"]),
    )


# -- a TF32 matmul's rounding prepass (forge/emit/_tf32.py) ------------------------------
_PREPASS_PRELUDE = r"""
#include <barrier>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(n)
#define __restrict__
#define __shared__ static

struct fg_dim3 { unsigned int x, y, z; };
static thread_local fg_dim3 threadIdx;
static fg_dim3 blockIdx, gridDim;
static std::barrier<>* fg_block;
static inline void __syncthreads() { fg_block->arrive_and_wait(); }
static inline unsigned int __float_as_uint(float x) {
    unsigned int u;
    std::memcpy(&u, &x, 4);
    return u;
}
static inline float __uint_as_float(unsigned int u) {
    float x;
    std::memcpy(&x, &u, 4);
    return x;
}

struct fg_Params { float alpha; float beta; unsigned int m; unsigned int n; unsigned int k; };
"""

_PREPASS_DRIVER = r"""
static std::vector<float> fg_load(const std::string& path, size_t count) {
    std::vector<float> data(count);
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f || std::fread(data.data(), 4, count, f) != count) std::exit(3);
    std::fclose(f);
    return data;
}

int main(int argc, char** argv) {
    if (argc != 6) return 2;
    const std::string dir = argv[1];
    fg_Params p{1.0f, 0.0f, (unsigned)std::strtoul(argv[2], nullptr, 10),
                (unsigned)std::strtoul(argv[3], nullptr, 10),
                (unsigned)std::strtoul(argv[4], nullptr, 10)};
    const unsigned int blocks = std::strtoul(argv[5], nullptr, 10);
    const size_t a_count = (size_t)p.m * p.k, b_count = (size_t)p.k * p.n;
    std::vector<float> a = fg_load(dir + "/a.bin", a_count), b = fg_load(dir + "/b.bin", b_count);
    // NaN where the prepass writes nothing: an element it leaves out shows
    std::vector<float> a_tf32(a_count, __uint_as_float(0x7fc00001u));
    std::vector<float> b_tf32(b_count, __uint_as_float(0x7fc00001u));
    gridDim = fg_dim3{blocks, 1, 1};
    for (unsigned int block = 0; block < blocks; ++block) {
        blockIdx = fg_dim3{block, 0, 0};
        std::barrier<> barrier(256);
        fg_block = &barrier;
        std::vector<std::thread> pool;
        for (unsigned int t = 0; t < 256; ++t)
            pool.emplace_back([&, t]() {
                threadIdx = fg_dim3{t % 32u, t / 32u, 0u};
                FG_ENTRY(a.data(), b.data(), a_tf32.data(), b_tf32.data(), p);
            });
        for (std::thread& t : pool) t.join();
    }
    FILE* out = std::fopen((dir + "/out.bin").c_str(), "wb");
    std::fwrite(a_tf32.data(), 4, a_count, out);
    std::fwrite(b_tf32.data(), 4, b_count, out);
    std::fclose(out);
    return 0;
}
"""


def emulate_prepass(
    body, a: np.ndarray, b: np.ndarray, dims: dict[str, int], blocks: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Run the CUDA text of ``body``'s rounding prepass (a TF32 ``ir.matmul`` with
    ``prepass=True``) on the host, a host thread per CUDA thread and ``__syncthreads``
    a barrier of the block's, over ``blocks`` blocks (default: the launch's grid, which
    strides over the tiles past it). Returns (a_tf32, b_tf32) as written, NaN (payload
    1) where nothing was."""
    import forge
    from forge.emit import _tf32

    m, n, k = dims["m"], dims["n"], dims["k"]
    blocks = blocks or _tf32.prepass_workgroups(body, forge.Size({"m": m, "n": n, "k": k}))
    binary = _built(
        "#define FG_ENTRY fg_emulated_round\n"
        + _PREPASS_PRELUDE
        + _tf32.prepass_kernel("fg_emulated", body, "cuda").replace('extern "C" ', "")
        + _PREPASS_DRIVER,
        "prepass",
    )
    with tempfile.TemporaryDirectory() as tmp:
        np.ascontiguousarray(a, np.float32).tofile(f"{tmp}/a.bin")
        np.ascontiguousarray(b, np.float32).tofile(f"{tmp}/b.bin")
        env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
        result = subprocess.run(
            [str(binary), tmp, str(m), str(n), str(k), str(blocks)],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
        )
        if result.returncode:
            raise AssertionError(
                f"the emulated prepass failed ({result.returncode}):\n{result.stderr[-4000:]}"
            )
        out = np.fromfile(f"{tmp}/out.bin", np.float32)
    return out[: m * k], out[m * k :]

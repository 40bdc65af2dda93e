"""Lowering of a mixed-precision ``matmul`` (f16, bf16 or TF32 a and b, f32
accumulation) onto Hopper's warpgroup tensor-core instruction, ``wgmma.mma_async``
(sm_90a), under ``mma=1`` on a workgroup of ``128 x G``: G warpgroups of four warps,
with ``tile = (BM, BN, 64, STAGES)`` (``BK = 32`` for TF32). (A workgroup of ``32 x W``
is the mma.sync and WMMA paths, ``_mma.py``.)

TF32. A stage row is still 128 bytes (32 floats), a k8 step 32 bytes along it, so the
layouts below are the halves' with 4-byte elements. wgmma takes the f32 bits as they
are, which would truncate them to TF32: the kernel's contract is ``cvt.rna``'s rounding
(``_tf32.py``), so each stage is rounded in shared memory after its copies land and
before the fence that shows it to wgmma. wgmma also reads TF32 only K-major (PTX has no
transpose flag for it). Where both operands lie along k (a row-major, b col-major:
``x @ w.T``) each thread rounds the chunks it copied, in place. An operand that lies
along m or n (b row-major, a col-major) is copied as it lies, a ``[32 k][outer]`` tile
whose 16-byte chunks are swizzled within each 8 by the k row, and the rounding pass
writes it back K-major: after a barrier (every copy landed), each warp reads 32 k rows
of one 4-wide column of chunks, and after another (every read done) each lane writes
its 4 rounded floats into 4 K-major rows, one 4-byte store each, the 32 lanes on 32
different banks. Measured on the H200 (2026-12-03): 195 TFLOP/s with b row-major
against 219 with b col-major; the mma.sync path gave 114 on b row-major.

Work. The workgroup computes a BM x BN block of ``c``, BM = 64 G: warpgroup w owns rows
64 w to 64 w + 63 and all BN columns, one ``wgmma.m64n{BN}k16`` per k16 step, whose
accumulators (BN / 2 floats per thread) stay in registers for the whole k loop. Blocks
of ``c`` are visited in bands of 8 block rows, as in the mma.sync pipeline.

Shared memory. wgmma reads both operands from shared memory through 64-bit matrix
descriptors, in the layouts PTX calls the 128-byte swizzle: rows of 128 bytes (64
halves), 16-byte chunk ``c`` of row ``r`` stored at chunk ``c ^ (r % 8)``, groups of 8
rows 1024 bytes apart (the stride-byte offset), each stage 1024-byte aligned. An
operand that lies along k in memory (row-major a, col-major b: "K-major") is kept as its
``[BM or BN][64]`` tile, one 128-byte row per row of a (or column of b); a k16 step
starts 32 bytes further along the rows. An operand that lies along m or n ("MN-major":
col-major a, row-major b) is kept as ``outer / 64`` blocks of ``[64 k][64 outer]``,
8192 bytes apart (the leading-byte offset), and the instruction's transpose flag for it
is set; a k16 step starts 16 rows (2048 bytes) further on. BK is therefore 64 halves,
one 128-byte row. Stages: STAGES * (BM + BN) * 128 bytes of dynamic shared memory, plus
1024 for the alignment.

Pipeline. Every thread loads (``cp.async`` of 16-byte chunks, zero-filled outside the
matrices; 8 guarded 2-byte loads and one 16-byte store where an operand's chunks are
not 16-byte aligned, as in ``_mma_pipeline``), STAGES - 2 k tiles ahead. Per k tile: wait
for its copies, ``fence.proxy.async`` (the copies are generic-proxy writes that the
asynchronous proxy, which wgmma reads through, must see), the step's one barrier, issue
the load of tile t + STAGES - 2 into the stage of tile t - 2, then the four wgmma of the
tile in one commit group, and ``wgmma.wait_group 1``: tile t - 1's products are done, so
after the next barrier no warpgroup still reads the stage the next step refills. One
tile of wgmma stays in flight across the barrier and the loads. Measured on the H200
(2026-12-02, prototype): loads issued before the wgmma, 0.76 of cuBLAS; after, 0.66;
STAGES = 3 (one tile ahead) makes ptxas serialise the wgmma (warning C7515), 0.63.

Epilogue. After ``wgmma.wait_group 0``, each thread writes its accumulators as the
m64nN f32 fragment lays them out (PTX: thread t of warp v of the warpgroup holds rows
16 v + t / 4 and + 8, columns 8 i + 2 (t % 4) and + 1, in registers 4 i to 4 i + 3):
``alpha * acc + beta * c``, as the mma.sync pipeline's epilogue does.

Only a device of compute capability 9.0 runs it (sm_90a: Blackwell has no wgmma), which
``device_features`` tells ``forge.emit.check``; NVRTC compiles a cubin for ``sm_90a``
on such a device (``backends.cuda._nvrtc.target_for``).
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass

from . import _mma_pipeline
from ._code import Emission, ScheduleRefused

__all__ = [
    "WARPGROUP",
    "check",
    "device_features",
    "storage_bytes",
    "dynamic_storage_bytes",
    "lower",
    "store_pair",
]

WARPGROUP = 128  # threads
_ROWS = 64  # rows of c per warpgroup (wgmma's m)
_BK = 64  # halves along k per stage: one 128-byte swizzled row (32 for TF32)
_ROW_BYTES = 128
_GROUP_BYTES = 8 * _ROW_BYTES  # 8 rows: the stride-byte offset
_BLOCK_BYTES = _BK * _ROW_BYTES  # an MN-major operand's [64 k][64 outer] block
_ALIGN = 1024  # the 128-byte swizzle repeats every 1024 bytes
_N_SIZES = (64, 128, 192, 256)  # BN: whole 64-wide blocks (MN-major b), n <= 256
_MAX_STAGES = 8
_BAND = 8
_STEP_BYTES = 32  # one k step of wgmma along a K-major row: k16 of halves, k8 of TF32


def _element_bytes(body) -> int:
    return 4 if body.tf32_rounding else 2


def _row_elements(body) -> int:
    """BK: the elements along k of one 128-byte swizzled row."""
    return _ROW_BYTES // _element_bytes(body)


@dataclass(frozen=True)
class _Geometry:
    bm: int
    bn: int
    stages: int

    @property
    def warpgroups(self) -> int:
        return self.bm // _ROWS

    @property
    def threads(self) -> int:
        return self.warpgroups * WARPGROUP

    @property
    def a_bytes(self) -> int:
        return self.bm * _ROW_BYTES

    @property
    def stage_bytes(self) -> int:
        return (self.bm + self.bn) * _ROW_BYTES

    @property
    def shared_bytes(self) -> int:
        return self.stages * self.stage_bytes + _ALIGN


def _geometry(schedule) -> _Geometry:
    bm, bn, _, stages = schedule.tile
    return _Geometry(bm, bn, stages)


def check(body, schedule) -> None:
    """The rules of the wgmma path (``_mma.check`` has checked the common ones)."""
    tile = "x".join(map(str, schedule.tile or ()))
    x, groups, z = schedule.workgroup_size
    if z != 1:
        raise ScheduleRefused(
            f"mma=1 on warpgroups runs on a 128 x G workgroup, got {schedule.workgroup_size}"
        )
    if not (body.input_dtype in ("f16", "bf16") or body.tf32_rounding):
        raise ScheduleRefused(
            f"mma=1 on warpgroups (wgmma) multiplies f16, bf16 or TF32 inputs; this matmul "
            f"has {body.input_dtype} inputs"
        )
    if schedule.tile is None or len(schedule.tile) != 4:
        raise ScheduleRefused(
            f"mma=1 on a {x} x {groups} workgroup (wgmma, one warpgroup of 128 threads per "
            f"64 rows of c) takes tile=BMxBNx64xSTAGES, e.g. tile=128x256x64x4 on 128x2"
        )
    bm, bn, bk, stages = schedule.tile
    row = _row_elements(body)
    if bm != _ROWS * groups:
        raise ScheduleRefused(
            f"each warpgroup computes 64 rows of c, so a {x} x {groups} workgroup takes "
            f"BM = {_ROWS * groups}; got tile={tile}"
        )
    if bn not in _N_SIZES:
        raise ScheduleRefused(
            f"wgmma's n is the whole BN here: one of {', '.join(map(str, _N_SIZES))} "
            f"(64-wide swizzled blocks, at most 256); got tile={tile}"
        )
    if bk != row:
        raise ScheduleRefused(
            f"the wgmma path stages k in 128-byte rows (the 128-byte swizzle) of "
            f"{_ROW_BYTES // row}-byte {body.input_dtype} elements: BK = {row}, got tile={tile}"
        )
    if not 3 <= stages <= _MAX_STAGES:
        raise ScheduleRefused(
            f"the wgmma path keeps STAGES shared-memory stages, 3 to {_MAX_STAGES} (loads "
            f"run STAGES - 2 k tiles ahead); got tile={tile}"
        )


def device_features(body, schedule) -> tuple[str, ...]:
    """What the device must have: Hopper's warpgroup MMA."""
    return ("warpgroup_mma",)


def storage_bytes(body, schedule) -> int:
    return _geometry(schedule).shared_bytes


def dynamic_storage_bytes(body, schedule) -> int:
    """All stages are dynamic shared memory (1024-byte aligned inside it)."""
    return _geometry(schedule).shared_bytes


def _wgmma_call(n: int, ptx_type: str, trans_a: int, trans_b: int) -> str:
    """The device function of one ``wgmma.mma_async.m64n{n}k16`` (k8 for TF32) into
    ``n / 2`` accumulators (operands %0..), descriptors for a and b; scale-d 1
    (accumulate). TF32 takes no transpose flags: both operands are K-major in the stage."""
    count = n // 2
    outputs = ", ".join(f"%{i}" for i in range(count))
    constraints = ", ".join(f'"+f"(d[{i}])' for i in range(count))
    k = 8 if ptx_type == "tf32" else 16
    flags = "" if ptx_type == "tf32" else f", {trans_a}, {trans_b}"
    return (
        f"__device__ __forceinline__ void fg_wgmma(float (&d)[{count}], "
        "unsigned long long da, unsigned long long db) {\n"
        '    asm volatile("{\\n.reg .pred p;\\nsetp.ne.b32 p, %'
        f'{count + 2}, 0;\\n"\n'
        f'        "wgmma.mma_async.sync.aligned.m64n{n}k{k}.f32.{ptx_type}.{ptx_type} "\n'
        f'        "{{{outputs}}}, %{count}, %{count + 1}, p, 1, 1{flags};\\n}}\\n"\n'
        f"        : {constraints}\n"
        '        : "l"(da), "l"(db), "r"(1));\n'
        "}\n"
    )


#: Descriptors, fences and wgmma's commit and wait (sm_90a).
_PRIMITIVES = """\
__device__ __forceinline__ unsigned long long fg_descriptor(
        unsigned int address, unsigned int leading, unsigned int stride) {
    // start address, leading- and stride-byte offsets in 16-byte units; 128-byte swizzle
    return (unsigned long long)((address & 0x3FFFFu) >> 4)
        | ((unsigned long long)(leading >> 4) << 16)
        | ((unsigned long long)(stride >> 4) << 32) | (1ull << 62);
}

__device__ __forceinline__ void fg_fence_async_shared() {
    asm volatile("fence.proxy.async.shared::cta;\\n" ::: "memory");
}

__device__ __forceinline__ void fg_wgmma_fence() {
    asm volatile("wgmma.fence.sync.aligned;\\n" ::: "memory");
}

__device__ __forceinline__ void fg_wgmma_commit() {
    asm volatile("wgmma.commit_group.sync.aligned;\\n" ::: "memory");
}

template <int N>
__device__ __forceinline__ void fg_wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;\\n" :: "n"(N) : "memory");
}
"""


#: TF32's rounding pass (wgmma reads the f32 bits as they are, and would truncate them):
#: 16-byte chunks read, and written back rounded as cvt.rna.tf32.f32 rounds, in place or
#: transposed into K-major rows; ``fg_round_tf32_chunk`` does one chunk in place.
#: ``{cvt}`` is ``fg_cvt_tf32``, or nothing for truncated TF32 (``"tf32rz"``), whose pass
#: only transposes.
_ROUND_CHUNK = """
__device__ __forceinline__ uint4 fg_ld_shared16(unsigned int address) {
    uint4 w;
    asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\\n"
        : "=r"(w.x), "=r"(w.y), "=r"(w.z), "=r"(w.w) : "r"(address));
    return w;
}

__device__ __forceinline__ void fg_st_tf32_chunk(unsigned int address, uint4 w) {
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\\n"
        :: "r"(address), "r"({cvt}(w.x)), "r"({cvt}(w.y)), "r"({cvt}(w.z)),
           "r"({cvt}(w.w)) : "memory");
}

// 4 elements of k row kk along m or n (w), rounded, into K-major rows row..row + 3 of
// the tile at address: float kk of each 128-byte row, its chunk swizzled by the row
__device__ __forceinline__ void fg_st_tf32_column(unsigned int address, uint4 w,
                                                  unsigned int kk) {
    const unsigned int word[4] = {w.x, w.y, w.z, w.w};
    #pragma unroll
    for (unsigned int j = 0u; j < 4u; ++j) {
        const unsigned int row = (address >> 7) + j;  // 128-byte rows from 1024-aligned
        const unsigned int at = (address & ~127u) + j * 128u
            + (((kk >> 2) ^ (row & 7u)) << 4) + ((kk & 3u) << 2);
        asm volatile("st.shared.b32 [%0], %1;\\n" :: "r"(at), "r"({cvt}(word[j])) : "memory");
    }
}

__device__ __forceinline__ void fg_round_tf32_chunk(unsigned int address) {
    unsigned int w0, w1, w2, w3;
    asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\\n"
        : "=r"(w0), "=r"(w1), "=r"(w2), "=r"(w3) : "r"(address));
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\\n"
        :: "r"(address), "r"({cvt}(w0)), "r"({cvt}(w1)), "r"({cvt}(w2)),
           "r"({cvt}(w3)) : "memory");
}
"""


class _Operand:
    """One operand's tile in a stage: which chunk goes where, and its descriptors."""

    def __init__(self, lowering: _WgmmaLowering, name: str) -> None:
        body, g = lowering.body, lowering.g
        self.name = name
        layout = body.a_layout if name == "a" else body.b_layout
        self.along_k = layout == ("row" if name == "a" else "col")
        self.outer = g.bm if name == "a" else g.bn
        self.offset = 0 if name == "a" else g.a_bytes
        m, n, k = lowering.m, lowering.n, lowering.k
        self.outer_origin, self.outer_limit = ("fg_m0", m) if name == "a" else ("fg_n0", n)
        self.k_limit = k
        self.ld = k if self.along_k else self.outer_limit  # elements between rows
        # TF32 along m or n: wgmma reads TF32 only K-major, so the tile is copied as it
        # lies (a "raw" [32 k][outer] tile, outer / 4 chunks a k row, swizzled within
        # each 8 chunks) and the rounding pass writes it back transposed, K-major
        self.transposed = lowering.tf32 and not self.along_k
        # a K-major tile is [outer][64] (8 chunks a row), an MN-major one [outer / 64]
        # blocks of [64 k][64 outer] (outer / 8 chunks a k row, 8 in each block)
        self.row_limit, self.pos_limit = (
            (self.outer_limit, k) if self.along_k else (k, self.outer_limit)
        )
        self.per_row = 8 if self.along_k else self.outer // (4 if self.transposed else 8)
        self.row_bytes = self.outer * 4 if self.transposed else _ROW_BYTES
        self.total = self.outer * 8  # 16-byte chunks a stage: 8 a 128-byte row
        self.iterations = -(-self.total // g.threads)
        # Thread t's chunks are t, t + threads, ...: when ``threads`` is a whole number
        # of rows, and of 8 rows (the swizzle's period), each next chunk of a thread is
        # ``pass_rows`` rows on at the same column and swizzle.
        self.pass_rows = g.threads // self.per_row
        self.strided = g.threads % self.per_row == 0 and self.pass_rows % 8 == 0

    @property
    def k_major(self) -> bool:
        """Whether wgmma reads the tile K-major: it lies along k, or is transposed."""
        return self.along_k or self.transposed

    def place(self, row: str, chunk: str) -> str:
        """The byte offset in the operand's tile of chunk ``chunk`` of row ``row``."""
        if self.along_k:
            return f"{row} * {_ROW_BYTES}u + (({chunk} ^ ({row} & 7u)) * 16u)"
        if self.transposed:
            return (
                f"{row} * {self.row_bytes}u + ((({chunk} & ~7u) | (({chunk} ^ {row}) & 7u)) * 16u)"
            )
        return (
            f"{chunk} / 8u * {_BLOCK_BYTES}u + {row} * {_ROW_BYTES}u + "
            f"((({chunk} % 8u) ^ ({row} & 7u)) * 16u)"
        )


class _WgmmaLowering:
    def __init__(self, em: Emission) -> None:
        self.em, self.d, self.code = em, em.d, em.code
        self.body = em.body
        self.g = _geometry(em.schedule)
        self.m, self.n, self.k = (em.uniform(name) for name in ("m", "n", "k"))
        self.tf32 = self.body.tf32_rounding is not None
        # TF32 rounded to nearest ("tf32") passes over every stage with cvt.rna; truncated
        # ("tf32rz") gives wgmma the f32 bits, which it truncates itself, so only an
        # operand along m or n needs the pass (to be written back K-major, as it is)
        self.rounds = self.body.tf32_rounding == "rna"
        self.bk = _row_elements(self.body)  # elements along k a stage
        self.chunk = 16 // _element_bytes(self.body)  # elements a 16-byte chunk
        self.bits = "unsigned int" if self.tf32 else "unsigned short"
        self.ops = {name: _Operand(self, name) for name in ("a", "b")}
        # TF32 with an operand along m or n: the pass writes it back K-major
        self.transposes = any(op.transposed for op in self.ops.values())

    def lower(self) -> None:
        em, d, code, g = self.em, self.d, self.code, self.g
        ptx_type = "tf32" if self.tf32 else self.body.input_dtype  # as PTX spells them
        trans = [0 if self.ops[x].k_major else 1 for x in ("a", "b")]
        primitives = _mma_pipeline.TF32_PRIMITIVES if self.tf32 else _mma_pipeline.PRIMITIVES
        em.definitions.append(
            primitives.replace("{pending}", str(g.stages - 3)).replace("{type}", ptx_type)
        )
        rounding = _ROUND_CHUNK.replace("{cvt}", "fg_cvt_tf32" if self.rounds else "")
        em.definitions.append(_PRIMITIVES + (rounding if self.tf32 else ""))
        em.definitions.append(_wgmma_call(g.bn, ptx_type, *trans))
        em.declare_shared(
            f"extern __shared__ __align__(1024) unsigned char fg_smem[];  "
            f"// {g.shared_bytes} bytes of dynamic shared memory"
        )
        code.comment(
            f"{g.bm}x{g.bn} block of c per workgroup: {g.warpgroups} warpgroups of 64 rows, "
            f"one wgmma m64n{g.bn}k{32 // _element_bytes(self.body)} per 32 bytes of k; k "
            f"in steps of {self.bk} through {g.stages} "
            f"stages of {g.stage_bytes} bytes, loads {g.stages - 2} k tiles ahead"
        )
        em.let("fg_wg", "u32", f"fg_lidx / {WARPGROUP}u")
        em.let("fg_lane", "u32", "fg_lidx % 32u")
        em.let("fg_wv", "u32", f"fg_lidx % {WARPGROUP}u / 32u")
        em.let("fg_sbase", "u32", f"(fg_shared_address(fg_smem) + {_ALIGN - 1}u) & ~{_ALIGN - 1}u")
        for op in self.ops.values():
            aligned = (
                f"((unsigned long long){op.name} & 15ull) == 0ull && {op.ld} % {self.chunk}u == 0u"
            )
            em.let(f"fg_async_{op.name}", "bool", aligned)
            code.line(
                f"const {self.bits}* const fg_{op.name}_bits = "
                f"reinterpret_cast<const {self.bits}*>({op.name});"
            )
        tiles_n = em.let("fg_tiles_n", "u32", em.ceil_div(self.n, g.bn))
        tiles_m = em.let("fg_tiles_m", "u32", em.ceil_div(self.m, g.bm))
        tiles = em.let("fg_tiles", "u32", f"{tiles_m} * {tiles_n}")
        em.let("fg_band", "u32", f"{_BAND}u * {tiles_n}")
        em.let("fg_steps", "u32", em.ceil_div(self.k, self.bk))
        em.let("fg_c2", "bool", f"((unsigned long long)c & 7ull) == 0ull && {self.n} % 2u == 0u")
        with code.block(
            d.loop("fg_tile", d.widen(d.group_linear), tiles, d.widen(d.group_count), wide=True)
        ):
            self._tile_origin(tiles_m)
            self._chunk_origins()
            code.line(f"float fg_acc[{g.bn // 2}];")
            with code.block(d.loop("fg_i", "0u", f"{g.bn // 2}u", "1u", unroll=True)):
                code.line("fg_acc[fg_i] = 0.0f;")
            self._main_loop()
            self._epilogue()

    def _tile_origin(self, tiles_m: str) -> None:
        em, g = self.em, self.g
        em.let("fg_t", "u32", self.d.narrow("fg_tile"))
        em.let("fg_first", "u32", f"fg_t / fg_band * {_BAND}u")
        em.let(
            "fg_rows",
            "u32",
            f"({tiles_m} - fg_first < {_BAND}u ? {tiles_m} - fg_first : {_BAND}u)",
        )
        em.let("fg_in_band", "u32", "fg_t % fg_band")
        em.let("fg_m0", "u32", f"(fg_first + fg_in_band % fg_rows) * {g.bm}u")
        em.let("fg_n0", "u32", f"fg_in_band / fg_rows * {g.bn}u")

    def _stage(self, index: str) -> str:
        g = self.g
        return f"fg_sbase + {index} % {g.stages}u * {g.stage_bytes}u"

    def _main_loop(self) -> None:
        code, d, g = self.code, self.d, self.g
        ahead = g.stages - 2
        code.comment(f"prologue: the first {ahead} k tiles in flight, one group each")
        with code.block(d.loop("fg_s", "0u", f"{ahead}u", "1u", unroll=True)):
            with code.block("if (fg_s < fg_steps) {"):
                self._load("fg_s", self._stage("fg_s"))
            code.line("fg_cp_async_commit();")
        with code.block(d.loop("fg_step", "0u", "fg_steps", "1u")):
            code.comment(
                "k tile fg_step has landed; the fence makes the copies visible to wgmma, "
                "the barrier to every warpgroup, and every warpgroup is done with tile "
                "fg_step - 2's stage (wgmma.wait_group 1 before it)"
            )
            code.line("fg_cp_async_wait_stage();")
            if self.rounds or self.transposes:
                self._round_stage()
            code.line("fg_fence_async_shared();")
            code.line(d.barrier)
            self.em.let("fg_next", "u32", f"fg_step + {ahead}u")
            with code.block("if (fg_next < fg_steps) {"):
                self._load("fg_next", self._stage("fg_next"))
            code.line("fg_cp_async_commit();")
            self.em.let("fg_sa", "u32", self._stage("fg_step"))
            code.line("fg_wgmma_fence();")
            with code.block(
                d.loop("fg_j", "0u", f"{_ROW_BYTES // _STEP_BYTES}u", "1u", unroll=True)
            ):
                code.line(f"fg_wgmma(fg_acc, {self._descriptor('a')}, {self._descriptor('b')});")
            code.line("fg_wgmma_commit();")
            code.line("fg_wgmma_wait<1>();")
        code.line("fg_wgmma_wait<0>();")
        code.comment("every copy landed and every warpgroup is done with the stages")
        code.line("fg_cp_async_wait_all();")
        code.line(d.barrier)

    def _round_stage(self) -> None:
        """TF32: round k tile ``fg_step`` to TF32 before the fence that shows it to wgmma.
        With both operands K-major each thread rounds the chunks it copied (its own
        copies, landed: no barrier needed first) in place. A transposed operand's raw
        tile is read by another mapping (``_transposed_chunk``), so a barrier first lets
        every thread's copies land, and another lets every read finish before any
        thread writes the tile back K-major. Truncated TF32 (``"tf32rz"``) comes here
        only with a transposed operand, which the pass writes back as it is."""
        code, d = self.code, self.d
        code.comment(
            "TF32: the tile rounded (cvt.rna) in shared memory"
            if self.rounds
            else "TF32 truncated by wgmma: the tile along m or n written back K-major"
        )
        with code.block("{"):
            self.em.let("fg_k0", "u32", f"fg_step * {self.bk}u")
            self.em.let("fg_stage", "u32", self._stage("fg_step"))
            if not self.transposes:
                for op in self.ops.values():
                    with code.block(d.loop("fg_it", "0u", f"{op.iterations}u", "1u", unroll=True)):
                        self._each_chunk(op, lambda op: code.line("fg_round_tf32_chunk(fg_dst);"))
                return
            code.line(d.barrier)
            # truncated TF32 leaves an operand along k as it landed
            passed = [op for op in self.ops.values() if op.transposed or self.rounds]
            for op in passed:
                code.line(f"uint4 fg_{op.name}_words[{op.iterations}];")
                self._each_word(
                    op,
                    "fg_{x}_words[fg_it] = fg_ld_shared16(fg_dst);",
                    "fg_{x}_words[fg_it] = fg_ld_shared16(fg_src);",
                )
            code.line(d.barrier)
            for op in passed:
                self._each_word(
                    op,
                    "fg_st_tf32_chunk(fg_dst, fg_{x}_words[fg_it]);",
                    "fg_st_tf32_column(fg_dst, fg_{x}_words[fg_it], fg_kk);",
                )

    def _each_word(self, op: _Operand, own: str, transposed: str) -> None:
        """For each of this thread's chunks of ``op`` in the rounding pass: ``own`` (its
        own copy, at ``fg_dst``), or for a transposed operand ``transposed``
        (``_transposed_chunk``); ``{x}`` is the operand's name."""
        with self.code.block(self.d.loop("fg_it", "0u", f"{op.iterations}u", "1u", unroll=True)):
            if op.transposed:
                self._transposed_chunk(op, transposed.format(x=op.name))
            else:
                line = own.format(x=op.name)
                self._each_chunk(op, lambda op: self.code.line(line))

    def _transposed_chunk(self, op: _Operand, line: str) -> None:
        """``line`` for this thread's chunk ``fg_it`` of a transposed operand's raw tile,
        by the mapping of the rounding pass: chunk ``e`` is k row ``e % 32`` (``fg_kk``)
        at 4 elements ``e / 32`` of the outer dimension (``fg_oc``), so the 32 lanes of
        a warp read one column of chunks (8 in a row of 16-byte reads hit 8 different
        swizzled chunks) and write one 128-byte K-major row each (32 different banks).
        ``fg_src``: its raw place; ``fg_dst``: its K-major row's place for element
        0 (``fg_st_tf32_column`` adds a row per element)."""
        em, g = self.em, self.g
        guard = op.iterations * g.threads > op.total
        em.let("fg_e", "u32", f"fg_lidx + fg_it * {g.threads}u")
        with self.code.block(f"if (fg_e < {op.total}u) {{") if guard else nullcontext():
            em.let("fg_kk", "u32", "fg_e % 32u")
            em.let("fg_oc", "u32", "fg_e / 32u")
            base = f"fg_stage + {op.offset}u"
            em.let("fg_src", "u32", f"{base} + {op.place('fg_kk', 'fg_oc')}")
            em.let("fg_dst", "u32", f"{base} + fg_oc * {4 * _ROW_BYTES}u")
            self.code.line(line)

    def _descriptor(self, name: str) -> str:
        """Operand ``name``'s descriptor at k16 step ``fg_j`` of the stage at ``fg_sa``."""
        op = self.ops[name]
        base = f"fg_sa + {op.offset}u"
        if name == "a":  # this warpgroup's 64 rows
            base += f" + fg_wg * {_ROWS * _ROW_BYTES if op.k_major else _BLOCK_BYTES}u"
        if op.k_major:
            return f"fg_descriptor({base} + fg_j * {_STEP_BYTES}u, 16u, {_GROUP_BYTES}u)"
        step = 16 * _ROW_BYTES
        return f"fg_descriptor({base} + fg_j * {step}u, {_BLOCK_BYTES}u, {_GROUP_BYTES}u)"

    def _chunk_origins(self) -> None:
        """Each thread's first chunk of each operand, once per block of c: its row in
        memory (``fg_x_r0``: along m or n for a K-major operand, along k from the tile's
        start for an MN-major one), first element along the row (``fg_x_q0``), element
        index (``fg_x_at0``, at k = 0) and swizzled offset in the stage (``fg_x_dst0``).
        Where the thread's next chunks lie ``pass_rows`` rows further on at the same
        column and swizzle (``strided``), the loads only add constants to these."""
        em, d = self.em, self.d
        for op in self.ops.values():
            x = op.name
            em.let(f"fg_{x}_o0", "u32", f"fg_lidx / {op.per_row}u")
            em.let(f"fg_{x}_c0", "u32", f"fg_lidx % {op.per_row}u")
            if op.along_k:
                em.let(f"fg_{x}_r0", "u32", f"{op.outer_origin} + fg_{x}_o0")
                em.let(f"fg_{x}_q0", "u32", f"fg_{x}_c0 * {self.chunk}u")
            else:
                em.let(f"fg_{x}_r0", "u32", f"fg_{x}_o0")
                em.let(f"fg_{x}_q0", "u32", f"{op.outer_origin} + fg_{x}_c0 * {self.chunk}u")
            em.wide(f"fg_{x}_at0", f"{d.widen(f'fg_{x}_r0')} * {op.ld} + fg_{x}_q0")
            em.let(f"fg_{x}_dst0", "u32", op.place(f"fg_{x}_o0", f"fg_{x}_c0"))

    def _load(self, tile: str, stage: str) -> None:
        """Issue the loads of k tile ``tile`` into the stage at shared address ``stage``:
        chunk ``e`` of an operand's tile is thread ``e % threads``'s, so 8 consecutive
        threads write the 8 chunks of one 128-byte row (8 different bank groups).

        An operand tile wholly inside its matrix, with aligned chunks (every tile of a
        GEMM whose sizes are multiples of the tile's, most of any other), takes
        unguarded cp.async: the bounds checks and the zero-fill select cost a fifth of
        the throughput at 4096^3 when every chunk pays them (H100, 2026-12-02: 500
        against 630 TFLOP/s). The others check each chunk."""
        em, code, d = self.em, self.code, self.d
        em.let("fg_k0", "u32", f"{tile} * {self.bk}u")
        em.let("fg_stage", "u32", stage)
        em.let("fg_k_inside", "bool", f"fg_k0 + {self.bk}u <= {self.k}")
        for op in self.ops.values():
            x = op.name
            inside = (
                f"fg_async_{x} && fg_k_inside && "
                f"{op.outer_origin} + {op.outer}u <= {op.outer_limit}"
            )
            with code.block(f"if ({inside}) {{"):
                with code.block(d.loop("fg_it", "0u", f"{op.iterations}u", "1u", unroll=True)):
                    self._each_chunk(
                        op,
                        lambda op: code.line(f"fg_cp_async16(fg_dst, {op.name} + fg_at, 16u);"),
                    )
                code.otherwise()
                with code.block(d.loop("fg_it", "0u", f"{op.iterations}u", "1u", unroll=True)):
                    self._each_chunk(op, self._checked_chunk)

    def _each_chunk(self, op: _Operand, chunk) -> None:
        """``chunk(op)`` for this thread's chunk ``fg_it`` of ``op``'s tile, placed."""
        g, em = self.g, self.em
        guard = op.iterations * g.threads > op.total
        if guard or not op.strided:
            em.let("fg_e", "u32", f"fg_lidx + fg_it * {g.threads}u")
        with self.code.block(f"if (fg_e < {op.total}u) {{") if guard else nullcontext():
            self._chunk_place(op)
            chunk(op)

    def _checked_chunk(self, op: _Operand) -> None:
        """By cp.async where the operand's chunks are aligned, zero-filled outside the
        matrix (a source size of 0, from the matrix's first element); else through
        registers."""
        em, code = self.em, self.code
        with code.block(f"if (fg_async_{op.name}) {{"):
            em.let("fg_in", "bool", f"fg_r < {op.row_limit} && fg_q < {op.pos_limit}")
            code.line(
                f"fg_cp_async16(fg_dst, fg_in ? (const void*)({op.name} + fg_at) "
                f": (const void*){op.name}, fg_in ? 16u : 0u);"
            )
            code.otherwise()
            self._register_chunk(op)

    def _chunk_place(self, op: _Operand) -> None:
        """For this thread's chunk ``fg_it``: ``fg_r`` (its row in memory: along m or n
        for a K-major operand, along k for an MN-major one), ``fg_q`` (its first element
        along the row), ``fg_at`` (that element's index) and ``fg_dst`` (its swizzled
        shared address)."""
        em, d, x = self.em, self.d, op.name
        if op.strided:
            step = f"fg_it * {op.pass_rows}u"
            if op.along_k:
                em.let("fg_r", "u32", f"fg_{x}_r0 + {step}")
                em.let("fg_q", "u32", f"fg_k0 + fg_{x}_q0")
                em.wide("fg_at", f"fg_{x}_at0 + fg_k0 + {d.widen(step)} * {op.ld}")
            else:
                em.let("fg_r", "u32", f"fg_k0 + fg_{x}_r0 + {step}")
                em.let("fg_q", "u32", f"fg_{x}_q0")
                em.wide("fg_at", f"fg_{x}_at0 + {d.widen(f'fg_k0 + {step}')} * {op.ld}")
            em.let(
                "fg_dst",
                "u32",
                f"fg_stage + {op.offset}u + fg_{x}_dst0 + fg_it * {op.pass_rows * op.row_bytes}u",
            )
            return
        em.let("fg_o", "u32", f"fg_e / {op.per_row}u")
        em.let("fg_ch", "u32", f"fg_e % {op.per_row}u")
        if op.along_k:
            em.let("fg_r", "u32", f"{op.outer_origin} + fg_o")
            em.let("fg_q", "u32", f"fg_k0 + fg_ch * {self.chunk}u")
        else:
            em.let("fg_r", "u32", "fg_k0 + fg_o")
            em.let("fg_q", "u32", f"{op.outer_origin} + fg_ch * {self.chunk}u")
        em.wide("fg_at", f"{d.widen('fg_r')} * {op.ld} + fg_q")
        em.let("fg_dst", "u32", f"fg_stage + {op.offset}u + {op.place('fg_o', 'fg_ch')}")

    def _register_chunk(self, op: _Operand) -> None:
        """8 guarded 2-byte loads (4 of 4 bytes for TF32; 0 outside the matrix), one
        16-byte shared store."""
        em, code, n = self.em, self.code, self.chunk
        em.let("fg_row_in", "bool", f"fg_r < {op.row_limit}")
        code.line(f"unsigned int fg_h[{n}];")
        with code.block(self.d.loop("fg_i", "0u", f"{n}u", "1u", unroll=True)):
            code.line(
                f"fg_h[fg_i] = (fg_row_in && fg_q + fg_i < {op.pos_limit}) ? "
                f"(unsigned int)fg_{op.name}_bits[fg_at + fg_i] : 0u;"
            )
        words = (
            [f"fg_h[{i}]" for i in range(4)]
            if n == 4
            else [f"fg_h[{2 * i}] | fg_h[{2 * i + 1}] << 16" for i in range(4)]
        )
        code.line(f"fg_st_shared16(fg_dst, {', '.join(words)});")

    def _epilogue(self) -> None:
        em, code, g, d = self.em, self.code, self.g, self.d
        alpha = em.uniform("alpha")
        code.comment(
            "c = alpha * acc + beta * c: registers 4i..4i+3 hold rows 16 v + lane / 4 "
            "and + 8, columns 8 i + 2 (lane % 4) and + 1; c is not read when beta == 0"
        )
        with code.block(d.loop("fg_h", "0u", "2u", "1u", unroll=True)):
            em.let("fg_m", "u32", "fg_m0 + fg_wg * 64u + fg_wv * 16u + fg_h * 8u + fg_lane / 4u")
            with code.block(f"if (fg_m < {self.m}) {{"):
                with code.block(d.loop("fg_i", "0u", f"{g.bn // 8}u", "1u", unroll=True)):
                    em.let("fg_n", "u32", "fg_n0 + fg_i * 8u + fg_lane % 4u * 2u")
                    em.wide("fg_at", f"{d.widen('fg_m')} * {self.n} + fg_n")
                    code.line(f"float fg_x = {alpha} * fg_acc[fg_i * 4u + fg_h * 2u];")
                    code.line(f"float fg_y = {alpha} * fg_acc[fg_i * 4u + fg_h * 2u + 1u];")
                    store_pair(em, self.n, "fg_at", "fg_n")


def store_pair(em: Emission, n: str, at: str, col: str) -> None:
    """Write ``fg_x`` and ``fg_y`` to ``c[at]`` and ``c[at + 1]`` (columns ``col`` and
    ``col + 1`` of a row of ``n``) as ``value + beta * c`` (``c`` not read when beta is
    0): one float2 where ``fg_c2`` says c is 8-byte aligned with n even, else each of
    the two that lies inside the row."""
    code, beta = em.code, em.uniform("beta")
    with code.block(f"if (fg_c2 && {col} + 1u < {n}) {{"):
        with code.block(f"if ({beta} != 0.0f) {{"):
            code.line(f"const float2 fg_old = *reinterpret_cast<const float2*>(&c[{at}]);")
            code.line(f"fg_x = fg_x + {beta} * fg_old.x;")
            code.line(f"fg_y = fg_y + {beta} * fg_old.y;")
        code.line(f"*reinterpret_cast<float2*>(&c[{at}]) = make_float2(fg_x, fg_y);")
        code.otherwise()
        for value, offset in (("fg_x", ""), ("fg_y", " + 1ull")):
            with code.block(f"if ({col}{' + 1u' if offset else ''} < {n}) {{"):
                with code.block(f"if ({beta} != 0.0f) {{"):
                    code.line(f"{value} = {value} + {beta} * c[{at}{offset}];")
                code.line(f"c[{at}{offset}] = {value};")


def lower(em: Emission) -> None:
    _WgmmaLowering(em).lower()

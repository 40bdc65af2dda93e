"""Lowering of a mixed-precision ``matmul`` onto CUDA's tensor cores through
``mma.sync.m16n8k16`` with ``ldmatrix`` and a ``cp.async`` pipeline, under ``mma=1`` with
``tile = (BM, BN, BK, STAGES)`` (the three-number tile is the WMMA path, ``_mma.py``).

Work. A workgroup of ``32 x W`` computes a BM x BN block of ``c``; its W warps form a
``WM x WN`` grid (the most square warp tiles: ``_warp_grid``) and each warp computes a
``BM/WM x BN/WN`` warp tile held in registers as ``(BM/WM/16) x (BN/WN/8)`` f32
accumulator fragments of 16 x 8 (64 x 64 per warp: 4 x 8 fragments, 128 floats per
thread). Blocks of ``c`` are visited in bands of 8 block rows (down a band, then across),
so the blocks running at once share their rows of ``a`` and columns of ``b`` in L2.

Shared memory. Per step of BK along k, the BM x BK tile of ``a`` and the BK x BN tile of
``b`` land in one of STAGES stage buffers, each operand kept the way it lies in global
memory (rows along its contiguous dimension: ``a`` row-major as ``[BM][BK]``, col-major
as ``[BK][BM]``; ``b`` row-major as ``[BK][BN]``, col-major as ``[BN][BK]``), in 16-byte
chunks of 8 halves. Chunk ``c`` of tile row ``r`` is stored at chunk ``c ^ s(r)`` of that
row (``_swizzle``): the 8 rows an ``ldmatrix`` phase reads, and the 8 chunks a quarter
warp writes, then fall in 8 different groups of 4 banks, with no padding. The buffers
are one ``__shared__`` array of STAGES * (BM*BK + BK*BN) halves: static up to 48 KiB,
dynamic shared memory beyond (up to the device's opt-in limit, 227 KiB on sm_90), which
the launch asks for (an IR kernel's ``shared_bytes``, ``forge.emit.dynamic_shared_bytes``).

Loads. Each thread moves whole chunks: ``cp.async.cg`` of 16 bytes, a chunk outside the
matrix zero-filled by a source size of 0 (its address then the matrix's first element,
never past it). That needs 16-byte aligned chunks: the operand's pointer aligned to 16
bytes and its row length (the contiguous extent: k, m or n) a multiple of 8 halves, so
that a chunk starting inside a row lies wholly inside it. Where an operand is not (odd
sizes, an offset view), its chunks go through registers instead: 8 guarded 2-byte loads,
zero outside the matrix, then one 16-byte shared store; the choice is made once per
operand and is the same for the whole workgroup. STAGES - 1 k tiles are in flight, one
commit group each: a k tile's step first refills the stage of the tile before it with
the tile STAGES - 1 ahead, and its last k16 step waits for the next tile
(``cp.async.wait_group STAGES-2``) and passes the step's one barrier (that tile's data
is then visible to all, and every warp is done reading this tile's stage, which the
next step refills).

Compute. A warp loads its fragments with ``ldmatrix.x4`` (``.trans`` for an operand
stored along m or n, which gives the fragment the transposed tile) and issues
``mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}`` per fragment pair; the fragment
layouts are PTX's (a: a0..a3 at rows g, g+8 and k 2t, 2t+8; b: b0, b1 at k 2t, 2t+8 and
column g; c: c0..c3 at rows g, g+8 and columns 2t, 2t+1; g = lane / 4, t = lane % 4).
Fragments are double-buffered in registers: each k16 step loads the next one's (after
the last step's barrier, the next tile's first) before its own mma.sync.

Epilogue. Each thread writes its accumulators straight from registers: ``alpha * acc +
beta * c`` (``c`` not read when beta is 0) as float2 where ``c`` is 8-byte aligned and
``n`` even, else element by element, rows and columns outside ``c`` skipped.

TF32. A matmul of f32 inputs declared TF32 (``input_dtype="tf32"``) runs the same
pipeline on 4-byte elements (``Geometry.element``): a chunk is 4 floats (row lengths a
multiple of 4 for cp.async, 4 guarded loads otherwise), BK a multiple of 8, and the
mma is ``m16n8k8.row.col.f32.tf32.tf32.f32`` per k8 step (a: a0..a3 at (g, t), (g+8, t),
(g, t+4), (g+8, t+4); b: b0, b1 at k t, t+4 and column g; c as above). An operand along
k is read by the same ``ldmatrix.x4`` (each 8 x 8 matrix of halves is 8 rows of 4
floats, lane l getting float l % 4 of row l / 4: exactly a0..a3, or b0, b1 of two
fragments). ``ldmatrix .trans`` moves 16-bit elements only, so an operand along m or n
(col-major ``a``, row-major ``b``) is read a float at a time (``ld.shared.b32``): each
register of the warp reads 8 consecutive floats of 4 rows, which ``_swizzle_words``
spreads over all 32 banks. Every fragment register is rounded by ``cvt.rna.tf32.f32`` as
it is loaded, before any mma.sync takes it, so the products are those of the rounded
inputs, as the reference's (``forge.ir.to_tf32``); a tensor core given unrounded f32 bits
truncates them instead, which is what a matmul declaring ``"tf32rz"`` asks for: its
fragments skip the cvt.
"""

from __future__ import annotations

import math
from contextlib import nullcontext
from dataclasses import dataclass

from ._code import CUDA_STATIC_SHARED, Emission, ScheduleRefused

__all__ = [
    "Geometry",
    "geometry",
    "check",
    "storage_bytes",
    "dynamic_storage_bytes",
    "lower",
    "PRIMITIVES",
    "TF32_PRIMITIVES",
]

_WARP = 32
_CHUNK_BYTES = 16  # what one cp.async, one ldmatrix row and one swizzle slot move
_MAX_ACCUMULATORS = 128  # floats per thread: a 64 x 64 warp tile
_MAX_STAGES = 8
_BAND = 8  # block rows per band of the raster order


@dataclass(frozen=True)
class Geometry:
    """The tile, the pipeline depth and the warp grid of a checked schedule."""

    bm: int
    bn: int
    bk: int
    stages: int
    warps_m: int
    warps_n: int
    element: int = 2  # bytes of an a or b element: 2 (f16, bf16) or 4 (tf32 inputs, f32)

    @property
    def warps(self) -> int:
        return self.warps_m * self.warps_n

    @property
    def threads(self) -> int:
        return self.warps * _WARP

    @property
    def wtm(self) -> int:
        """Rows of ``c`` per warp."""
        return self.bm // self.warps_m

    @property
    def wtn(self) -> int:
        """Columns of ``c`` per warp."""
        return self.bn // self.warps_n

    @property
    def chunk(self) -> int:
        """Elements in a 16-byte chunk: 8 halves, or 4 floats."""
        return _CHUNK_BYTES // self.element

    @property
    def k_step(self) -> int:
        """k per mma.sync: m16n8k16 for halves, m16n8k8 for tf32."""
        return 16 if self.element == 2 else 8

    @property
    def a_bytes(self) -> int:
        return self.bm * self.bk * self.element

    @property
    def stage_bytes(self) -> int:
        return (self.bm + self.bn) * self.bk * self.element

    @property
    def shared_bytes(self) -> int:
        return self.stages * self.stage_bytes


def _warp_grid(bm: int, bn: int, warps: int) -> tuple[int, int] | None:
    """(WM, WN) with WM * WN = ``warps`` whose warp tiles have sides that are multiples of
    16, the most square of them (the taller one on a tie); None when there is none."""
    best: tuple[tuple[float, int], tuple[int, int]] | None = None
    for wm in range(1, warps + 1):
        if warps % wm:
            continue
        wn = warps // wm
        if bm % wm or bn % wn or (bm // wm) % 16 or (bn // wn) % 16:
            continue
        key = (abs(math.log2((bm // wm) / (bn // wn))), -(bm // wm))
        if best is None or key < best[0]:
            best = (key, (wm, wn))
    return None if best is None else best[1]


def _element_bytes(body) -> int:
    """Bytes of an element of ``a`` and ``b``: 4 for f32 inputs declared TF32 (either
    rounding), else 2."""
    return 4 if body is not None and body.tf32_rounding else 2


def geometry(schedule, body=None) -> Geometry:
    """The geometry of a schedule ``check`` accepted (for ``body``'s inputs: halves
    when it is not given)."""
    bm, bn, bk, stages = schedule.tile
    grid = _warp_grid(bm, bn, schedule.invocations // _WARP)
    assert grid is not None, schedule  # check refuses such schedules
    return Geometry(bm, bn, bk, stages, *grid, element=_element_bytes(body))


def _contiguous_k(body, name: str) -> bool:
    """Whether operand ``name`` lies along k in memory (row-major a, col-major b)."""
    return (body.a_layout if name == "a" else body.b_layout) == ("row" if name == "a" else "col")


def _tile_rows(body, g: Geometry, name: str) -> tuple[int, int]:
    """(rows, elements per row) of operand ``name``'s shared tile."""
    outer = g.bm if name == "a" else g.bn
    return (outer, g.bk) if _contiguous_k(body, name) else (g.bk, outer)


def check(body, schedule) -> None:
    """The rules of the pipelined path (``_mma.check`` has checked the common ones)."""
    bm, bn, bk, stages = schedule.tile
    tile = "x".join(map(str, schedule.tile))
    if not 2 <= stages <= _MAX_STAGES:
        raise ScheduleRefused(
            f"mma=1 with tile=BMxBNxBKxSTAGES keeps STAGES cp.async shared-memory stages, "
            f"2 to {_MAX_STAGES} (no register prefetch); got tile={tile}"
        )
    k_step = 16 if _element_bytes(body) == 2 else 8
    if k_step == 8 and (bm % 16 or bn % 16 or bk % 8):
        raise ScheduleRefused(
            f"mma=1 with cp.async stages computes tf32 inputs with m16n8k8 fragments on "
            f"16-wide warp tiles: BM and BN must be multiples of 16 and BK of 8, got "
            f"tile={tile}"
        )
    if bm % 16 or bn % 16 or bk % k_step:
        raise ScheduleRefused(
            f"mma=1 with cp.async stages computes with m16n8k16 fragments and ldmatrix "
            f"16 x 16 blocks: BM, BN and BK must be multiples of 16, got tile={tile}"
        )
    warps = schedule.invocations // _WARP
    grid = _warp_grid(bm, bn, warps)
    if grid is None:
        raise ScheduleRefused(
            f"a {bm}x{bn} tile does not split over {warps} warps into warp tiles whose "
            f"sides are multiples of 16 (tile={tile} on a {schedule.workgroup_size} "
            f"workgroup)"
        )
    g = Geometry(bm, bn, bk, stages, *grid, element=_element_bytes(body))
    per_thread = g.wtm * g.wtn // _WARP
    if per_thread > _MAX_ACCUMULATORS:
        raise ScheduleRefused(
            f"each warp computes {g.wtm}x{g.wtn} of c ({g.warps_m}x{g.warps_n} warps on a "
            f"{bm}x{bn} tile): {per_thread} f32 accumulators per thread, over "
            f"{_MAX_ACCUMULATORS}: they would spill (use more warps or a smaller tile)"
        )
    unit = "halves" if g.element == 2 else "floats"
    for name in ("a", "b"):
        _, elements = _tile_rows(body, g, name)
        chunks = elements // g.chunk
        if chunks not in (2, 4) and chunks % 8:
            layout = body.a_layout if name == "a" else body.b_layout
            raise ScheduleRefused(
                f"the shared tiles are swizzled in 16-byte chunks of {g.chunk} {unit}: a row "
                f"of {name}'s tile ({layout}-major, {elements} {unit} long) must be "
                f"{2 * g.chunk}, {4 * g.chunk} or a multiple of {8 * g.chunk} {unit} "
                f"(tile={tile})"
            )


def storage_bytes(body, schedule) -> int:
    return geometry(schedule, body).shared_bytes


def dynamic_storage_bytes(body, schedule) -> int:
    """The stage buffers when they are over the static 48 KiB (then all of them are
    dynamic shared memory), else 0."""
    need = geometry(schedule, body).shared_bytes
    return need if need > CUDA_STATIC_SHARED else 0


def _swizzle(row: str, chunks: int) -> str:
    """The chunk mask of tile row ``row`` (text) in a tile of ``chunks`` chunks a row:
    XOR-ed into the chunk index, it spreads any 8 consecutive rows (from a multiple of 8)
    at one chunk, and any 8 consecutive chunks of the tile, over the 8 chunk positions
    of a 128-byte line. Its period is 8 rows."""
    if chunks == 2:
        return f"(({row} >> 2u) & 1u)"
    if chunks == 4:
        return f"(({row} >> 1u) & 3u)"
    return f"({row} & 7u)"


def _swizzle_words(row: str, chunks: int) -> str:
    """The chunk mask of tile row ``row`` (text, a row along k) of a tf32 tile that lies
    along m or n, whose fragments are read a float at a time (``ld.shared.b32``: no
    ``ldmatrix .trans`` for 32-bit elements). A fragment register of the warp reads 8
    consecutive floats (2 chunks, from an even chunk) of each of 4 rows, k = t or t + 4
    (t = 0..3) of a k8 step; the mask sends those 4 pairs of chunks to 4 different pairs
    of a 128-byte line's 8 chunk positions, so the 32 lanes hit 32 banks: with 8 or more
    chunks a row, 2 (r % 4) + (r / 4) % 2; with 4 (two rows a line), r & 2. Any 8
    consecutive chunks of the tile (what a quarter warp writes) stay in 8 positions. Its
    period is 8 rows."""
    if chunks == 4:
        return f"({row} & 2u)"
    assert chunks % 8 == 0, chunks  # check keeps a tile along m or n 16 floats or more
    return f"((({row} & 3u) << 1u) | (({row} >> 2u) & 1u))"


#: The PTX primitives (sm_80 and later), as device functions: names and argument
#: orders are what the generated kernels call.
_PRIMITIVES_COMMON = """\
__device__ __forceinline__ unsigned int fg_shared_address(const void* pointer) {
    return (unsigned int)__cvta_generic_to_shared(pointer);
}

__device__ __forceinline__ void fg_cp_async16(
        unsigned int dst, const void* src, unsigned int bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\\n"
        :: "r"(dst), "l"(src), "r"(bytes) : "memory");
}

__device__ __forceinline__ void fg_cp_async_commit() {
    asm volatile("cp.async.commit_group;\\n" ::: "memory");
}

__device__ __forceinline__ void fg_cp_async_wait_stage() {
    asm volatile("cp.async.wait_group {pending};\\n" ::: "memory");
}

__device__ __forceinline__ void fg_cp_async_wait_all() {
    asm volatile("cp.async.wait_all;\\n" ::: "memory");
}

__device__ __forceinline__ void fg_st_shared16(
        unsigned int dst, unsigned int x, unsigned int y, unsigned int z, unsigned int w) {
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\\n"
        :: "r"(dst), "r"(x), "r"(y), "r"(z), "r"(w) : "memory");
}

__device__ __forceinline__ void fg_ldmatrix_x4(unsigned int* r, unsigned int src) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\\n"
        : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(src));
}
"""

#: Halves (f16, bf16): fragments of operands along m or n through ldmatrix .trans, and
#: m16n8k16.
PRIMITIVES = (
    _PRIMITIVES_COMMON
    + """
__device__ __forceinline__ void fg_ldmatrix_x4_trans(unsigned int* r, unsigned int src) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\\n"
        : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(src));
}

__device__ __forceinline__ void fg_mma_16816(
        float* d, const unsigned int* a, const unsigned int* b) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.{type}.{type}.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
"""
)

#: TF32 inputs (f32 in memory): an operand along m or n read a float at a time (ldmatrix
#: has no .trans for 32-bit elements), every fragment register rounded by
#: cvt.rna.tf32.f32, and m16n8k8 (a: a0..a3 at rows g, g+8 and k t, t+4; b: b0, b1 at k
#: t, t+4 and column g; c as m16n8k16's).
TF32_PRIMITIVES = (
    _PRIMITIVES_COMMON
    + """
__device__ __forceinline__ unsigned int fg_ld_shared32(unsigned int src) {
    unsigned int value;
    asm volatile("ld.shared.b32 %0, [%1];\\n" : "=r"(value) : "r"(src));
    return value;
}

__device__ __forceinline__ unsigned int fg_cvt_tf32(unsigned int bits) {
    unsigned int rounded;
    asm("cvt.rna.tf32.f32 %0, %1;\\n" : "=r"(rounded) : "f"(__uint_as_float(bits)));
    return rounded;
}

__device__ __forceinline__ void fg_mma_1688(
        float* d, const unsigned int* a, const unsigned int* b) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
"""
)


class _Operand:
    """One operand's tile: where its chunks come from and where its fragments are read."""

    def __init__(self, lowering: _PipelineLowering, name: str) -> None:
        body, g = lowering.body, lowering.g
        self.name = name
        self.along_k = _contiguous_k(body, name)
        self.rows, elements = _tile_rows(body, g, name)
        self.chunks = elements // g.chunk
        self.row_bytes = elements * g.element
        # fragments by ldmatrix (.trans for halves along m or n), else (tf32 along m or n)
        # a float at a time, in a swizzle made for such reads
        self.ldmatrix = self.along_k or g.element == 2
        self.swizzle = _swizzle if self.ldmatrix else _swizzle_words
        self.total = self.rows * self.chunks  # chunks per stage
        self.iterations = -(-self.total // g.threads)
        m, n, k = lowering.m, lowering.n, lowering.k
        outer, origin = (m, "fg_m0") if name == "a" else (n, "fg_n0")
        if self.along_k:
            self.row_origin, self.row_limit = origin, outer
            self.pos_origin, self.pos_limit = "fg_k0", k
        else:
            self.row_origin, self.row_limit = "fg_k0", k
            self.pos_origin, self.pos_limit = origin, outer
        self.ld = self.pos_limit  # elements between tile rows in global memory
        # Thread t's chunks are t, t + threads, ...: when ``threads`` is a whole number of
        # rows, and a multiple of 8 rows (the swizzle's period), each next chunk of a
        # thread is ``pass_rows`` rows further on at the same column and swizzle, so its
        # addresses are the first one's plus constants (``strided``).
        self.strided = g.threads % self.chunks == 0 and (g.threads // self.chunks) % 8 == 0
        self.pass_rows = g.threads // self.chunks
        # ldmatrix: which 8 x 8 matrix (j = lane / 8) each lane addresses a row of. Row-major
        # a and b (P) put matrix j at rows 8 * (j % 2), chunk j / 2; col-major (Q) at rows
        # 8 * (j / 2), chunk j % 2: the registers then come out as the fragments' a0..a3,
        # or b0, b1 of two 8-column fragments.
        layout = body.a_layout if name == "a" else body.b_layout
        if layout == "row":
            self.row_part, self.chunk_part = "fg_lane % 16u", "fg_lane / 16u"
        else:
            self.row_part, self.chunk_part = (
                "fg_lane / 16u * 8u + fg_lane % 8u",
                "fg_lane / 8u % 2u",
            )
        self.warp_origin = "fg_wm" if name == "a" else "fg_wn"
        self.fragments = (g.wtm if name == "a" else g.wtn) // 16  # 16-wide blocks per warp
        self.k_steps = g.bk // g.k_step
        self.offset = 0 if name == "a" else g.a_bytes  # within a stage

    def word(self, q: int) -> tuple[int, int]:
        """Where register ``q`` (0..3) of a 16-wide block's tf32 fragment reads, read a
        float at a time: (offset along m or n, along k) from (g, t), g = lane / 4, t =
        lane % 4. a's four are a0..a3 of m16n8k8: (g, t), (g + 8, t), (g, t + 4),
        (g + 8, t + 4); b's are b0, b1 of the block's two 8-column fragments: (g, t),
        (g, t + 4), (g + 8, t), (g + 8, t + 4)."""
        if self.name == "a":
            return 8 * (q % 2), 4 * (q // 2)
        return 8 * (q // 2), 4 * (q % 2)


class _PipelineLowering:
    def __init__(self, em: Emission) -> None:
        self.em, self.d, self.code = em, em.d, em.code
        self.body = em.body
        self.g = geometry(em.schedule, self.body)
        self.tf32 = self.g.element == 4
        # TF32 rounded to nearest: every fragment register through cvt.rna; truncated
        # (tf32rz): the f32 bits as they are, which the tensor core truncates itself
        self.cvt = "fg_cvt_tf32" if self.tf32 and self.body.tf32_rounding == "rna" else ""
        self.unit = "floats" if self.tf32 else "halves"
        self.m, self.n, self.k = (em.uniform(name) for name in ("m", "n", "k"))
        self.ops = {name: _Operand(self, name) for name in ("a", "b")}

    # -- set-up ------------------------------------------------------------------------
    def lower(self) -> None:
        em, d, code, g = self.em, self.d, self.code, self.g
        ptx_type = "f16" if self.body.input_dtype == "f16" else "bf16"
        primitives = TF32_PRIMITIVES if self.tf32 else PRIMITIVES
        em.definitions.append(
            primitives.replace("{pending}", str(g.stages - 2)).replace("{type}", ptx_type)
        )
        if g.shared_bytes > CUDA_STATIC_SHARED:  # the launch gives these bytes
            em.declare_shared(
                f"extern __shared__ __align__(128) unsigned char fg_smem[];  "
                f"// {g.shared_bytes} bytes of dynamic shared memory"
            )
        else:
            em.declare_shared(f"__shared__ __align__(128) unsigned char fg_smem[{g.shared_bytes}];")
        code.comment(
            f"{g.bm}x{g.bn} block of c per workgroup; {g.warps_m}x{g.warps_n} warps of "
            f"{g.wtm}x{g.wtn}, each {g.wtm // 16}x{g.wtn // 8} mma.sync m16n8k{g.k_step} "
            f"fragments; k in steps of {g.bk} through {g.stages} cp.async stages of "
            f"{g.stage_bytes} bytes"
        )
        em.let("fg_warp", "u32", f"fg_lidx / {_WARP}u")
        em.let("fg_lane", "u32", f"fg_lidx % {_WARP}u")
        em.let("fg_wm", "u32", f"fg_warp / {g.warps_n}u * {g.wtm}u")
        em.let("fg_wn", "u32", f"fg_warp % {g.warps_n}u * {g.wtn}u")
        em.let("fg_sbase", "u32", "fg_shared_address(fg_smem)")
        for op in self.ops.values():
            code.comment(
                f"{op.name}: a {op.rows} x {op.row_bytes // g.element} tile of {self.unit} "
                "a stage, "
                f"along {'k' if op.along_k else ('m' if op.name == 'a' else 'n')}; "
                "cp.async when 16-byte chunks are aligned"
            )
            aligned = (
                f"((unsigned long long){op.name} & 15ull) == 0ull && {op.ld} % {g.chunk}u == 0u"
            )
            em.let(f"fg_async_{op.name}", "bool", aligned)
            word = "unsigned int" if self.tf32 else "unsigned short"
            code.line(
                f"const {word}* const fg_{op.name}{8 * g.element} = "
                f"reinterpret_cast<const {word}*>({op.name});"
            )
            self._fragment_offsets(op)
            if op.strided:
                x = op.name
                em.let(f"fg_{x}_lr", "u32", f"fg_lidx / {op.chunks}u")
                em.let(f"fg_{x}_lq", "u32", f"fg_lidx % {op.chunks}u * {g.chunk}u")
                swizzle = op.swizzle(f"fg_{x}_lr", op.chunks)
                em.let(f"fg_{x}_ls", "u32", f"(fg_lidx ^ {swizzle}) * 16u")
        tiles_n = em.let("fg_tiles_n", "u32", em.ceil_div(self.n, g.bn))
        tiles_m = em.let("fg_tiles_m", "u32", em.ceil_div(self.m, g.bm))
        tiles = em.let("fg_tiles", "u32", f"{tiles_m} * {tiles_n}")
        em.let("fg_band", "u32", f"{_BAND}u * {tiles_n}")
        em.let("fg_steps", "u32", em.ceil_div(self.k, g.bk))
        em.let("fg_c2", "bool", f"((unsigned long long)c & 7ull) == 0ull && {self.n} % 2u == 0u")
        with code.block(
            d.loop("fg_tile", d.widen(d.group_linear), tiles, d.widen(d.group_count), wide=True)
        ):
            self._tile_origin(tiles_m)
            code.line(f"float fg_acc[{g.wtm // 16}][{g.wtn // 8}][4] = {{}};")
            self._main_loop()
            self._epilogue()

    def _fragment_offsets(self, op: _Operand) -> None:
        """Each lane's byte offsets, within its operand's tile, of the rows it gives
        ``ldmatrix``: one per k16 (or k8) step (tiles along k: the row is fixed, the
        chunk moves with k) or one per 16-wide block of the warp tile (tiles along m or
        n: the chunk is fixed, the row moves with k). Rows move in multiples of 16 (8),
        which keeps each row's swizzle (its period is 8 rows). A tf32 tile along m or n
        is read a float at a time instead (``_word_offsets``)."""
        em = self.em
        if not op.ldmatrix:
            self._word_offsets(op)
            return
        row_part = em.let(f"fg_{op.name}_row", "u32", op.row_part)
        chunk_part = em.let(f"fg_{op.name}_chunk", "u32", op.chunk_part)
        swizzle = em.let(f"fg_{op.name}_swz", "u32", _swizzle(row_part, op.chunks))
        if op.along_k:
            for step in range(op.k_steps):
                em.let(
                    f"fg_{op.name}_ld{step}",
                    "u32",
                    f"({op.warp_origin} + {row_part}) * {op.row_bytes}u + "
                    f"(({2 * step}u + {chunk_part}) ^ {swizzle}) * 16u",
                )
        else:
            for block in range(op.fragments):
                em.let(
                    f"fg_{op.name}_ld{block}",
                    "u32",
                    f"{row_part} * {op.row_bytes}u + (({op.warp_origin} / {self.g.chunk}u + "
                    f"{2 * block}u + {chunk_part}) ^ {swizzle}) * 16u",
                )

    def _word_offsets(self, op: _Operand) -> None:
        """Each lane's byte offsets, within a tf32 tile that lies along m or n (its rows
        along k), of the four floats of each 16-wide block of the warp tile it holds at
        the first k8 step (``_Operand.word``): row k, column ``warp origin + block *
        16 + offset + g``, in chunk ``column / 4`` swizzled by the row (the rows of a
        later step are 8 further on: the same swizzle)."""
        em = self.em
        x = op.name
        swizzles = [
            em.let(f"fg_{x}_swz{h}", "u32", op.swizzle(f"(fg_lane % 4u + {4 * h}u)", op.chunks))
            for h in range(2)
        ]
        for block in range(op.fragments):
            for q in range(4):
                outer, k = op.word(q)
                column = f"{op.warp_origin} + {16 * block + outer}u + fg_lane / 4u"
                em.let(
                    f"fg_{x}_ld{block}_{q}",
                    "u32",
                    f"(fg_lane % 4u + {k}u) * {op.row_bytes}u + "
                    f"((({column}) / 4u) ^ {swizzles[k // 4]}) * 16u + fg_lane / 4u % 4u * 4u",
                )

    def _tile_origin(self, tiles_m: str) -> None:
        """``fg_m0``, ``fg_n0`` of block ``fg_tile``: bands of 8 block rows, each walked
        down its rows first."""
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

    # -- the pipeline ----------------------------------------------------------------
    def _stage(self, index: str) -> str:
        """The shared address of the stage that holds k tile ``index``."""
        g = self.g
        return f"fg_sbase + {index} % {g.stages}u * {g.stage_bytes}u"

    def _main_loop(self) -> None:
        """The pipeline. Fragments are double-buffered in registers: each k16 (tf32:
        k8) step's mma.sync run on fragments loaded during the step before, and the last
        step of a k tile first waits for the next tile (the one barrier of the step) and
        loads that tile's first fragments, so no k16 step waits on ldmatrix."""
        code, d, g = self.code, self.d, self.g
        mi, nj = g.wtm // 16, g.wtn // 8
        code.line(f"unsigned int fg_fa[2][{mi}][4];  // a fragments, double-buffered")
        code.line(f"unsigned int fg_fb[2][{nj // 2}][4];  // b: two 8-column fragments each")
        code.comment(f"prologue: the first {g.stages - 1} k tiles in flight, one group each")
        with code.block(d.loop("fg_s", "0u", f"{g.stages - 1}u", "1u", unroll=True)):
            with code.block("if (fg_s < fg_steps) {"):
                self._load(f"fg_s * {g.bk}u", f"fg_sbase + fg_s * {g.stage_bytes}u")
            code.line("fg_cp_async_commit();")
        code.comment(
            f"k tile 0 has landed (at most {g.stages - 2} later groups in flight) and, after "
            "the barrier, is visible to every thread: its first fragments"
        )
        code.line("fg_cp_async_wait_stage();")
        code.line(d.barrier)
        with code.block("if (0u < fg_steps) {"):
            self._fragments(0, "fg_sbase", 0)
        with code.block(d.loop("fg_step", "0u", "fg_steps", "1u")):
            code.comment(
                f"refill the stage of k tile fg_step - 1 with tile fg_step + {g.stages - 1}: "
                "every warp read it before the last barrier"
            )
            self.em.let("fg_next", "u32", f"fg_step + {g.stages - 1}u")
            with code.block("if (fg_next < fg_steps) {"):
                self._load(f"fg_next * {g.bk}u", self._stage("fg_next"))
            code.line("fg_cp_async_commit();")
            self.em.let("fg_sa", "u32", self._stage("fg_step"))
            steps = g.bk // g.k_step
            for step in range(steps):
                code.comment(
                    f"k{g.k_step} step {step}: the next fragments, then {mi * nj} mma.sync"
                )
                if step + 1 < steps:
                    self._fragments((step + 1) % 2, "fg_sa", step + 1)
                else:
                    code.comment(
                        "k tile fg_step + 1 has landed and, after the barrier, is visible; "
                        "every warp is also done reading this tile's stage"
                    )
                    code.line("fg_cp_async_wait_stage();")
                    code.line(d.barrier)
                    with code.block("if (fg_step + 1u < fg_steps) {"):
                        self._fragments(steps % 2, self._stage("(fg_step + 1u)"), 0)
                self._products(step % 2)
            if steps % 2:  # the next tile's first fragments went to buffer 1
                for name, count in (("fg_fa", mi), ("fg_fb", nj // 2)):
                    with code.block(d.loop("fg_i", "0u", f"{count}u", "1u", unroll=True)):
                        with code.block(d.loop("fg_j", "0u", "4u", "1u", unroll=True)):
                            code.line(f"{name}[0][fg_i][fg_j] = {name}[1][fg_i][fg_j];")
        code.comment(
            "all copies landed and every warp is done with the stages: the next block "
            "may refill them"
        )
        code.line("fg_cp_async_wait_all();")
        code.line(d.barrier)

    def _load(self, k0: str, stage: str) -> None:
        """Issue the loads of the k tile at ``k0`` into the stage at shared address
        ``stage``: chunk ``e`` of an operand's tile (row ``e / chunks``) is thread ``e %
        threads``'s, so a quarter warp writes 8 consecutive chunks; by cp.async where the
        operand's chunks are aligned, else through registers."""
        em, code, d = self.em, self.code, self.d
        em.let("fg_k0", "u32", k0)
        em.let("fg_stage", "u32", stage)
        for op in self.ops.values():
            x = op.name
            if op.strided:  # where this thread's first chunk comes from
                em.let(f"fg_{x}_r", "u32", f"{op.row_origin} + fg_{x}_lr")
                em.let(f"fg_{x}_q", "u32", f"{op.pos_origin} + fg_{x}_lq")
                em.wide(f"fg_{x}_at", f"{d.widen(f'fg_{x}_r')} * {op.ld} + fg_{x}_q")
            with code.block(f"if (fg_async_{x}) {{"):
                self._chunks(op, self._async_chunk)
                code.otherwise()
                self._chunks(op, self._register_chunk)

    def _chunks(self, op: _Operand, chunk) -> None:
        """``chunk(op)`` for each of this thread's chunks of ``op``'s tile, with
        ``fg_r`` (its row in the matrix: along m, n or k), ``fg_q`` (its first element
        along the row), ``fg_at`` (that element's index) and ``fg_dst`` (the chunk's
        swizzled shared address) set."""
        em, code, d, g = self.em, self.code, self.d, self.g
        x = op.name
        with code.block(d.loop("fg_it", "0u", f"{op.iterations}u", "1u", unroll=True)):
            guard = op.iterations * g.threads > op.total
            if guard or not op.strided:
                em.let("fg_e", "u32", f"fg_lidx + fg_it * {g.threads}u")
            with code.block(f"if (fg_e < {op.total}u) {{") if guard else nullcontext():
                if op.strided:
                    em.let("fg_r", "u32", f"fg_{x}_r + fg_it * {op.pass_rows}u")
                    em.let("fg_q", "u32", f"fg_{x}_q")
                    em.wide("fg_at", f"fg_{x}_at + {d.widen(f'fg_it * {op.pass_rows}u')} * {op.ld}")
                    em.let(
                        "fg_dst",
                        "u32",
                        f"fg_stage + {op.offset}u + fg_{x}_ls + fg_it * {g.threads * 16}u",
                    )
                else:
                    em.let("fg_r", "u32", f"{op.row_origin} + fg_e / {op.chunks}u")
                    em.let("fg_q", "u32", f"{op.pos_origin} + fg_e % {op.chunks}u * {g.chunk}u")
                    em.wide("fg_at", f"{d.widen('fg_r')} * {op.ld} + fg_q")
                    swizzled = f"(fg_e ^ {op.swizzle(f'(fg_e / {op.chunks}u)', op.chunks)})"
                    em.let("fg_dst", "u32", f"fg_stage + {op.offset}u + {swizzled} * 16u")
                chunk(op)

    def _async_chunk(self, op: _Operand) -> None:
        """16 bytes by cp.async; outside the matrix a source size of 0 (zero fill) from
        the matrix's first element."""
        x = op.name
        self.em.let("fg_in", "bool", f"fg_r < {op.row_limit} && fg_q < {op.pos_limit}")
        self.code.line(
            f"fg_cp_async16(fg_dst, fg_in ? (const void*)({x} + fg_at) : (const void*){x}, "
            "fg_in ? 16u : 0u);"
        )

    def _register_chunk(self, op: _Operand) -> None:
        """8 guarded 2-byte loads (4 of 4 bytes for tf32; 0 outside the matrix), one
        16-byte shared store."""
        em, code = self.em, self.code
        em.let("fg_row_in", "bool", f"fg_r < {op.row_limit}")
        if self.tf32:
            code.line("unsigned int fg_w[4];")
            with code.block(self.d.loop("fg_i", "0u", "4u", "1u", unroll=True)):
                code.line(
                    f"fg_w[fg_i] = (fg_row_in && fg_q + fg_i < {op.pos_limit}) ? "
                    f"fg_{op.name}32[fg_at + fg_i] : 0u;"
                )
            code.line("fg_st_shared16(fg_dst, fg_w[0], fg_w[1], fg_w[2], fg_w[3]);")
            return
        code.line("unsigned int fg_h[8];")
        with code.block(self.d.loop("fg_i", "0u", "8u", "1u", unroll=True)):
            code.line(
                f"fg_h[fg_i] = (fg_row_in && fg_q + fg_i < {op.pos_limit}) ? "
                f"(unsigned int)fg_{op.name}16[fg_at + fg_i] : 0u;"
            )
        code.line(
            "fg_st_shared16(fg_dst, fg_h[0] | fg_h[1] << 16, fg_h[2] | fg_h[3] << 16, "
            "fg_h[4] | fg_h[5] << 16, fg_h[6] | fg_h[7] << 16);"
        )

    def _fragments(self, buffer: int, stage: str, step: int) -> None:
        """ldmatrix the warp's a and b fragments of k16 step ``step`` of the k tile in
        the stage at ``stage`` into fragment buffer ``buffer``. TF32: k8 steps, a tile
        along m or n read a float at a time, and (``"tf32"``) every register rounded to
        TF32 (``cvt.rna.tf32.f32``) before any mma.sync takes it."""
        code, g = self.code, self.g
        for op in self.ops.values():
            array = "fg_fa" if op.name == "a" else "fg_fb"
            base = stage if op.name == "a" else f"{stage} + {g.a_bytes}u"
            load = "fg_ldmatrix_x4" if op.along_k else "fg_ldmatrix_x4_trans"
            for block in range(op.fragments):
                registers = f"{array}[{buffer}][{block}]"
                if not op.ldmatrix:  # tf32 along m or n: 8 rows (k) further on per step
                    for q in range(4):
                        at = f"fg_{op.name}_ld{block}_{q} + {step * 8 * op.row_bytes}u"
                        code.line(f"{registers}[{q}] = {self.cvt}(fg_ld_shared32({base} + {at}));")
                    continue
                if op.along_k:  # the warp tile's 16-row block `block` at k step `step`
                    at = f"fg_{op.name}_ld{step} + {block * 16 * op.row_bytes}u"
                else:  # 16 rows (k) further on per step, each block its own chunk
                    at = f"fg_{op.name}_ld{block} + {step * 16 * op.row_bytes}u"
                code.line(f"{load}({registers}, {base} + {at});")
                if self.cvt:
                    for q in range(4):
                        code.line(f"{registers}[{q}] = {self.cvt}({registers}[{q}]);")

    def _products(self, buffer: int) -> None:
        """mma.sync of every fragment pair of buffer ``buffer`` into the accumulators."""
        code, d, g = self.code, self.d, self.g
        with code.block(d.loop("fg_i", "0u", f"{g.wtm // 16}u", "1u", unroll=True)):
            with code.block(d.loop("fg_j", "0u", f"{g.wtn // 8}u", "1u", unroll=True)):
                code.line(
                    f"{'fg_mma_1688' if self.tf32 else 'fg_mma_16816'}(fg_acc[fg_i][fg_j], "
                    f"fg_fa[{buffer}][fg_i], &fg_fb[{buffer}][fg_j / 2u][fg_j % 2u * 2u]);"
                )

    # -- the epilogue ----------------------------------------------------------------
    def _epilogue(self) -> None:
        em, code, g, d = self.em, self.code, self.g, self.d
        alpha, beta = em.uniform("alpha"), em.uniform("beta")
        code.comment(
            "c = alpha * acc + beta * c from the accumulators: fragment (i, j) holds rows "
            "g and g + 8, columns 2t and 2t + 1; c is not read when beta == 0"
        )
        with code.block(d.loop("fg_i", "0u", f"{g.wtm // 16}u", "1u", unroll=True)):
            with code.block(d.loop("fg_h", "0u", "2u", "1u", unroll=True)):
                em.let("fg_m", "u32", "fg_m0 + fg_wm + fg_i * 16u + fg_h * 8u + fg_lane / 4u")
                with code.block(f"if (fg_m < {self.m}) {{"):
                    with code.block(d.loop("fg_j", "0u", f"{g.wtn // 8}u", "1u", unroll=True)):
                        em.let("fg_n", "u32", "fg_n0 + fg_wn + fg_j * 8u + fg_lane % 4u * 2u")
                        em.wide("fg_at", f"{d.widen('fg_m')} * {self.n} + fg_n")
                        code.line(f"float fg_x = {alpha} * fg_acc[fg_i][fg_j][fg_h * 2u];")
                        code.line(f"float fg_y = {alpha} * fg_acc[fg_i][fg_j][fg_h * 2u + 1u];")
                        with code.block(f"if (fg_c2 && fg_n + 1u < {self.n}) {{"):
                            with code.block(f"if ({beta} != 0.0f) {{"):
                                code.line(
                                    "const float2 fg_old = "
                                    "*reinterpret_cast<const float2*>(&c[fg_at]);"
                                )
                                code.line(f"fg_x = fg_x + {beta} * fg_old.x;")
                                code.line(f"fg_y = fg_y + {beta} * fg_old.y;")
                            code.line(
                                "*reinterpret_cast<float2*>(&c[fg_at]) = make_float2(fg_x, fg_y);"
                            )
                            code.otherwise()
                            with code.block(f"if (fg_n < {self.n}) {{"):
                                with code.block(f"if ({beta} != 0.0f) {{"):
                                    code.line(f"fg_x = fg_x + {beta} * c[fg_at];")
                                code.line("c[fg_at] = fg_x;")
                            with code.block(f"if (fg_n + 1u < {self.n}) {{"):
                                with code.block(f"if ({beta} != 0.0f) {{"):
                                    code.line(f"fg_y = fg_y + {beta} * c[fg_at + 1ull];")
                                code.line("c[fg_at + 1ull] = fg_y;")


def lower(em: Emission) -> None:
    _PipelineLowering(em).lower()

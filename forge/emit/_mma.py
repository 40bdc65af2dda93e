"""Lowering of a mixed-precision ``matmul`` (f16 or bf16 a and b, f32 accumulation) onto
CUDA's tensor cores through WMMA (``mma.h``), under ``mma=1``.

``tile = (BM, BN, BK)`` on a workgroup of ``32 x W``: W warps, each computing a 32 x 32
block of ``c`` as 2 x 2 WMMA fragments of 16 x 16 (so ``W = BM/32 * BN/32``). Per step
of BK along k, the workgroup stages the BM x BK tile of ``a`` and the BK x BN tile of
``b`` in shared memory as row-major halves (zero outside the matrices, whatever their
layouts), padded by 8 halves a row against bank conflicts, and each warp runs BK/16
``mma_sync`` steps per fragment. The epilogue stores each accumulator fragment into a
per-warp 16 x 16 float scratch and writes ``alpha * acc + beta * c`` from it with
bounds checks (``c`` not read when beta is 0). Products of halves are exact in f32;
tensor cores sum them in f32 in their own order, which the k-dependent tolerance of
the mixed-precision GEMMs covers.

A four-number tile, ``tile = (BM, BN, BK, STAGES)``, takes the fast path instead:
``mma.sync`` m16n8k16 (m16n8k8 for f32 inputs declared TF32, ``input_dtype="tf32"``,
which take this path only) with ``ldmatrix``, register-blocked warp tiles and a ``cp.async``
pipeline of STAGES swizzled shared-memory stages (``_mma_pipeline.py``). The WMMA path
above stays as it is, for the schedules written for it.

A ``128 x G`` workgroup (G warpgroups) takes Hopper's ``wgmma`` instead
(``_wgmma.py``, sm_90a only).

WGSL has no matrix-multiply-accumulate (wgpu-native refuses the cooperative-matrix
feature at device creation), so ``mma=1`` is refused there.
"""

from __future__ import annotations

from . import _mma_pipeline, _wgmma
from ._code import Emission, ScheduleRefused

__all__ = ["check", "storage_bytes", "dynamic_storage_bytes", "device_features", "lower"]

_WARP = 32
_FRAGMENT = 16
_WARP_TILE = 32  # each warp's block of c: 2 x 2 fragments
_PAD = 8  # halves of padding per shared-memory row (keeps WMMA's 32-byte rows)
_SCRATCH = _FRAGMENT * _FRAGMENT


def _geometry(schedule) -> tuple[int, int, int, int]:
    """(BM, BN, BK, warps)."""
    bm, bn, bk = schedule.tile[:3]
    return bm, bn, bk, schedule.invocations // _WARP


def check(body, schedule, target: str | None) -> None:
    if target == "wgsl":
        raise ScheduleRefused(
            "mma=1 is unsupported, because WGSL has no matrix-multiply-"
            "accumulate (wgpu-native refuses the cooperative-matrix feature)"
        )
    if not (body.input_dtype in ("f16", "bf16") or body.tf32_rounding) or body.dtype != "f32":
        raise ScheduleRefused(
            f"mma=1 multiplies f16 or bf16 inputs into f32, or f32 inputs that the matmul "
            f"declares tf32 (input_dtype='tf32' or 'tf32rz': rounded or truncated to TF32 "
            f"in the reference too); this "
            f"matmul has {body.input_dtype} inputs and {body.dtype} accumulation"
        )
    if schedule.tile is None or len(schedule.tile) not in (3, 4):
        raise ScheduleRefused(
            "mma=1 takes tile=BMxBNxBK (WMMA, e.g. tile=64x64x32 on a 32x4 workgroup) or "
            "tile=BMxBNxBKxSTAGES (mma.sync with cp.async stages, e.g. tile=128x128x32x3 "
            "on a 32x4 workgroup)"
        )
    if (schedule.vector_width, schedule.items_per_invocation, schedule.unroll) != (1, 1, False):
        raise ScheduleRefused("mma=1 sets the work per warp itself: vec=1, ipt=1, no unroll")
    x, _, z = schedule.workgroup_size
    if _on_warpgroups(schedule):
        _wgmma.check(body, schedule)
        return
    if x != _WARP or z != 1:
        raise ScheduleRefused(
            f"mma=1 runs on whole warps: the workgroup is 32 x W, got {schedule.workgroup_size}"
        )
    if len(schedule.tile) == 4:
        _mma_pipeline.check(body, schedule)
        return
    if body.tf32_rounding:
        raise ScheduleRefused(
            "mma=1 multiplies tf32 inputs through the mma.sync pipeline only: "
            "tile=BMxBNxBKxSTAGES (e.g. tile=128x128x16x4 on a 32x4 workgroup); the WMMA "
            "tiles (BMxBNxBK) take f16 and bf16"
        )
    bm, bn, bk, warps = _geometry(schedule)
    if bm % _WARP_TILE or bn % _WARP_TILE or bk % _FRAGMENT:
        raise ScheduleRefused(
            f"mma=1 needs BM and BN multiples of 32 and BK of 16, got tile={bm}x{bn}x{bk}"
        )
    if warps != (bm // _WARP_TILE) * (bn // _WARP_TILE):
        raise ScheduleRefused(
            f"each warp computes 32x32 of c, so a {bm}x{bn} tile needs "
            f"{(bm // _WARP_TILE) * (bn // _WARP_TILE)} warps; the workgroup "
            f"has {warps}"
        )


def dynamic_storage_bytes(body, schedule) -> int:
    """Shared memory the CUDA source declares as dynamic (the WMMA path has none)."""
    if _on_warpgroups(schedule):
        return _wgmma.dynamic_storage_bytes(body, schedule)
    if _pipelined(schedule):
        return _mma_pipeline.dynamic_storage_bytes(body, schedule)
    return 0


def storage_bytes(body, schedule, target: str) -> int:
    if _on_warpgroups(schedule):
        return _wgmma.storage_bytes(body, schedule)
    if _pipelined(schedule):
        return _mma_pipeline.storage_bytes(body, schedule)
    bm, bn, bk, warps = _geometry(schedule)
    return 2 * (bm * (bk + _PAD) + bk * (bn + _PAD)) + 4 * _SCRATCH * warps


class _MmaLowering:
    def __init__(self, em: Emission) -> None:
        self.em, self.d, self.code = em, em.d, em.code
        self.body = em.body
        self.bm, self.bn, self.bk, self.warps = _geometry(em.schedule)
        self.lda, self.ldb = self.bk + _PAD, self.bn + _PAD
        self.half = self.d.scalar(self.body.input_dtype)
        self.m, self.n, self.k = (em.uniform(name) for name in ("m", "n", "k"))

    def lower(self) -> None:
        em, d, code = self.em, self.d, self.code
        em.includes.append("#include <mma.h>")
        for name, size in (("fg_as", self.bm * self.lda), ("fg_bs", self.bk * self.ldb)):
            em.declare_shared(f"__shared__ __align__(128) {self.half} {name}[{size}];")
        em.declare_shared(f"__shared__ __align__(128) float fg_cs[{_SCRATCH * self.warps}];")
        warps_n = self.bn // _WARP_TILE
        em.let("fg_warp", "u32", f"fg_lidx / {_WARP}u")
        em.let("fg_lane", "u32", f"fg_lidx % {_WARP}u")
        em.let("fg_wm", "u32", f"fg_warp / {warps_n}u * {_WARP_TILE}u")
        em.let("fg_wn", "u32", f"fg_warp % {warps_n}u * {_WARP_TILE}u")
        tiles_n = em.let("fg_tiles_n", "u32", em.ceil_div(self.n, self.bn))
        tiles = em.let("fg_tiles", "u32", f"{em.ceil_div(self.m, self.bm)} * {tiles_n}")
        code.comment(
            f"{self.bm}x{self.bn} block of c per workgroup, 32x32 per warp as 2x2 "
            f"WMMA 16x16x16 fragments, k in steps of {self.bk}"
        )
        with em.c_tiles(tiles, tiles_n, self.bm, self.bn):
            code.line(
                "nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> fg_acc[2][2];"
            )
            self._each_fragment(
                lambda i, j: code.line(f"nvcuda::wmma::fill_fragment(fg_acc[{i}][{j}], 0.0f);")
            )
            with code.block(d.loop("fg_k0", "0u", self.k, f"{self.bk}u")):
                self._stage("a", "fg_as", self.bm, self.bk, self.lda)
                self._stage("b", "fg_bs", self.bk, self.bn, self.ldb)
                code.line(d.barrier)
                self._multiply()
                code.line(d.barrier)
            self._epilogue()

    def _each_fragment(self, body) -> None:
        for i in range(2):
            for j in range(2):
                body(i, j)

    def _element(self, name: str, row: str, col: str) -> str:
        """The index of (row, col) of operand ``name`` (a: m x k, b: k x n) in its
        buffer, by its layout."""
        layout = self.body.a_layout if name == "a" else self.body.b_layout
        rows, cols = (self.m, self.k) if name == "a" else (self.k, self.n)
        if layout == "row":
            return f"{self.d.widen(row)} * {cols} + {col}"
        return f"{self.d.widen(col)} * {rows} + {row}"

    def _stage(self, name: str, shared: str, rows: int, cols: int, ld: int) -> None:
        """The ``rows x cols`` tile of operand ``name`` at this step into ``shared``,
        row-major with leading dimension ``ld``; zero outside the matrix."""
        d, code = self.d, self.code
        origin_row, origin_col = ("fg_m0", "fg_k0") if name == "a" else ("fg_k0", "fg_n0")
        limit_row, limit_col = (self.m, self.k) if name == "a" else (self.k, self.n)
        threads = self.em.schedule.invocations
        with code.block(d.loop("fg_e", "fg_lidx", f"{rows * cols}u", f"{threads}u")):
            code.line(f"const unsigned int fg_r = {origin_row} + fg_e / {cols}u;")
            code.line(f"const unsigned int fg_c = {origin_col} + fg_e % {cols}u;")
            inside = f"fg_r < {limit_row} && fg_c < {limit_col}"
            value = f"{name}[{self._element(name, 'fg_r', 'fg_c')}]"
            code.line(
                f"{shared}[fg_e / {cols}u * {ld}u + fg_e % {cols}u] = "
                f"({inside}) ? {value} : {self.half}(0.0f);"
            )

    def _multiply(self) -> None:
        code, half = self.code, self.half
        with code.block(self.d.loop("fg_kk", "0u", f"{self.bk}u", f"{_FRAGMENT}u", unroll=True)):
            code.line(
                f"nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, {half}, "
                f"nvcuda::wmma::row_major> fg_fa[2];"
            )
            code.line(
                f"nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, {half}, "
                f"nvcuda::wmma::row_major> fg_fb[2];"
            )
            for i in range(2):
                code.line(
                    f"nvcuda::wmma::load_matrix_sync(fg_fa[{i}], &fg_as[(fg_wm + "
                    f"{i * _FRAGMENT}u) * {self.lda}u + fg_kk], {self.lda}u);"
                )
                code.line(
                    f"nvcuda::wmma::load_matrix_sync(fg_fb[{i}], &fg_bs[fg_kk * "
                    f"{self.ldb}u + fg_wn + {i * _FRAGMENT}u], {self.ldb}u);"
                )
            self._each_fragment(
                lambda i, j: code.line(
                    f"nvcuda::wmma::mma_sync(fg_acc[{i}][{j}], fg_fa[{i}], fg_fb[{j}], "
                    f"fg_acc[{i}][{j}]);"
                )
            )

    def _epilogue(self) -> None:
        code, em = self.code, self.em
        alpha, beta = em.uniform("alpha"), em.uniform("beta")
        code.comment(
            "c = alpha * acc + beta * c through each warp's 16x16 scratch; c is not "
            "read when beta == 0"
        )
        code.line(f"float* const fg_scratch = &fg_cs[fg_warp * {_SCRATCH}u];")

        def fragment(i: int, j: int) -> None:
            code.line(
                f"nvcuda::wmma::store_matrix_sync(fg_scratch, fg_acc[{i}][{j}], 16, "
                "nvcuda::wmma::mem_row_major);"
            )
            code.line("__syncwarp();")
            with code.block(self.d.loop("fg_e", "fg_lane", f"{_SCRATCH}u", f"{_WARP}u")):
                code.line(
                    f"const unsigned int fg_m = fg_m0 + fg_wm + {i * _FRAGMENT}u + fg_e / 16u;"
                )
                code.line(
                    f"const unsigned int fg_n = fg_n0 + fg_wn + {j * _FRAGMENT}u + fg_e % 16u;"
                )
                with code.block(f"if (fg_m < {self.m} && fg_n < {self.n}) {{"):
                    code.line(
                        f"const unsigned long long fg_at = "
                        f"{self.d.widen('fg_m')} * {self.n} + fg_n;"
                    )
                    code.line(f"float fg_out = {alpha} * fg_scratch[fg_e];")
                    with code.block(f"if ({beta} != 0.0f) {{"):
                        code.line(f"fg_out = fg_out + {beta} * c[fg_at];")
                    code.line("c[fg_at] = fg_out;")
            code.line("__syncwarp();")

        self._each_fragment(fragment)


def _pipelined(schedule) -> bool:
    """Whether a checked schedule takes the mma.sync pipeline (tile=BMxBNxBKxSTAGES)."""
    return schedule.tile is not None and len(schedule.tile) == 4


def device_features(body, schedule) -> tuple[str, ...]:
    """What the device must offer beyond the target: Hopper's wgmma on warpgroups."""
    return _wgmma.device_features(body, schedule) if _on_warpgroups(schedule) else ()


def _on_warpgroups(schedule) -> bool:
    """Whether a schedule takes the wgmma path: a workgroup of 128 x G (warpgroups)."""
    return schedule.workgroup_size[0] == _wgmma.WARPGROUP


def lowering(schedule) -> str:
    """The name of the path a checked ``mma=1`` schedule takes, for reports: ``"wgmma"``,
    ``"mma.sync"`` (the cp.async pipeline) or ``"wmma"``."""
    if _on_warpgroups(schedule):
        return "wgmma"
    return "mma.sync" if _pipelined(schedule) else "wmma"


def lower(em: Emission) -> None:
    if _on_warpgroups(em.schedule):
        _wgmma.lower(em)
    elif _pipelined(em.schedule):
        _mma_pipeline.lower(em)
    else:
        _MmaLowering(em).lower()

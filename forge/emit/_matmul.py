"""Lowering of ``matmul``: shared-memory tiles with register blocking.

``tile = (BM, BN, BK[, stages])`` with workgroup ``(WX, WY)``: a workgroup computes a
BM x BN block of ``c``, each invocation a TM x TN micro-tile (TM = BM / WY,
TN = BN / WX) held in registers. Per step of BK along k, the workgroup stages the A and
B tiles through registers into shared memory, A stored transposed (``as[k][m]``) so
both operands are read along m and n; loads move ``vector_width`` consecutive elements
along each operand's contiguous dimension (float4 on CUDA when aligned). With
``stages = 2`` the next tile's global loads are issued before the current tile is
computed (register prefetch), hiding their latency behind the FMAs. Out-of-range rows
and columns are zero-filled on load and skipped on store, so any m, n, k work.

A micro-tile's rows and columns come in vectors of ``vector_width`` spread WY*vec and
WX*vec apart, so neighbouring invocations read neighbouring shared-memory vectors
(no bank conflicts) and store neighbouring vectors of ``c``. The portable baseline
``tile=16x16x16`` on a 16x16 workgroup is the classic one-element-per-invocation
tiling; ``tile=128x128x8x2, vec=4`` is the big-GPU schedule.

WGSL has no unroll hint, so the loops over a step's k values, the micro-tile's rows and
columns and the epilogue stay loops there, and the accumulators and fragments are
indexed by loop variables: a driver that does not unroll them keeps those arrays in
indexable (local) memory instead of registers. ``unroll=1`` writes these loops out in
full on WGSL (``Emission.unrolled``), every index into a register array a constant;
CUDA unrolls them by pragma either way. With ``vec=4`` (f32 accumulation) WGSL gets no
register arrays at all (``_NamedRegisters``): naga lowers a function-scope array to an
indexable variable and clamps every index it cannot prove in range, which a driver may
leave in local memory, so the accumulators are TM x TN/4 named ``vec4<f32>`` variables
(one FMA of a fragment scalar by a ``vec4`` per row and column group), the fragments
``let`` vectors, and the staged loads ``vec4`` variables. The tiles in workgroup memory
are ``vec4<f32>`` (a step reads each operand's fragment as TM/4 and TN/4 16-byte loads
at a constant offset from the invocation's own), and ``a``, ``b`` and ``c`` are
declared as arrays of vec4 so that global loads and stores move 16 bytes when a row's
length is a multiple of 4 (lane by lane otherwise, and at the edges).

A matmul that declares TF32 inputs rounds each element of ``a`` and ``b`` to TF32 as it
stores it into its tile (``_tf32.py``: ``fg_tf32``, ``fg_tf32x4`` for a named vec4
register), so every product the FMAs form is one of rounded values, as the reference's.
"""

from __future__ import annotations

from . import _mma, _tf32
from ._code import Emission, ScheduleRefused, plus

__all__ = ["PATTERN", "check", "storage_bytes", "workgroup_count", "lower"]

PATTERN = "matmul"  # the ``Body.kind`` this module lowers

_MAX_ACCUMULATORS = 256


def _geometry(schedule) -> tuple[int, int, int, int, int, int, int, int]:
    """(BM, BN, BK, stages, WX, WY, TM, TN); the tile must be checked first."""
    bm, bn, bk, *rest = schedule.tile
    wx, wy, _ = schedule.workgroup_size
    return bm, bn, bk, (rest[0] if rest else 1), wx, wy, bm // wy, bn // wx


def check(body, schedule, target: str | None) -> None:
    # a prepass matmul's rules and storage are its GEMM's (of the rounded operands)
    body = body.entry_body
    if schedule.mma:
        _mma.check(body, schedule, target)
        return
    if schedule.tile is None or len(schedule.tile) not in (3, 4):
        raise ScheduleRefused(
            "a matmul needs tile=BMxBNxBK (or BMxBNxBKxSTAGES), e.g. "
            "tile=64x64x8 on a 16x16 workgroup"
        )
    bm, bn, bk, stages, wx, wy, tm, tn = _geometry(schedule)
    v = schedule.vector_width
    if schedule.workgroup_size[2] != 1:
        raise ScheduleRefused(f"a matmul workgroup is 2-D (WX x WY), got {schedule.workgroup_size}")
    if schedule.items_per_invocation != 1:
        raise ScheduleRefused(
            "a matmul's work per invocation is its TM x TN micro-tile "
            "(tile / workgroup); items per invocation must be 1"
        )
    if stages not in (1, 2):
        raise ScheduleRefused(f"matmul stages must be 1 or 2 (register prefetch), got {stages}")
    if bm % wy or bn % wx:
        raise ScheduleRefused(
            f"tile {bm}x{bn} must split evenly over the {wx}x{wy} workgroup "
            f"(BM % WY == 0 and BN % WX == 0)"
        )
    if tm % v or tn % v:
        raise ScheduleRefused(
            f"each invocation's {tm}x{tn} micro-tile is read and stored in "
            f"vectors of {v}; TM and TN must be multiples of the vector width"
        )
    if tm * tn > _MAX_ACCUMULATORS:
        raise ScheduleRefused(
            f"a {tm}x{tn} micro-tile needs {tm * tn} accumulators per "
            f"invocation, over {_MAX_ACCUMULATORS}: it would spill registers"
        )
    for operand, layout, contiguous, extent in _operands(body, bm, bn, bk):
        if extent % v:
            raise ScheduleRefused(
                f"{operand} is {layout}-major, so its tile is loaded along "
                f"{'k' if contiguous == 'k' else ('m' if operand == 'a' else 'n')} in vectors "
                f"of {v}; that tile extent ({extent}) must be a multiple of the vector width"
            )


def _operands(body, bm: int, bn: int, bk: int):
    """(name, layout, contiguous dim, tile extent along it) for a and b."""
    a_contig = "k" if body.a_layout == "row" else "outer"
    b_contig = "k" if body.b_layout == "col" else "outer"
    return [
        ("a", body.a_layout, a_contig, bk if a_contig == "k" else bm),
        ("b", body.b_layout, b_contig, bk if b_contig == "k" else bn),
    ]


def device_features(body, schedule) -> tuple[str, ...]:
    """What a device must offer to run this schedule, beyond its target."""
    return _mma.device_features(body.entry_body, schedule) if schedule.mma else ()


def storage_bytes(body, schedule, target: str) -> int:
    body = body.entry_body
    if schedule.mma:
        return _mma.storage_bytes(body, schedule, target)
    bm, bn, bk, *_ = _geometry(schedule)
    return (bm + bn) * bk * (8 if body.dtype == "f64" else 4)


def workgroup_count(body, schedule, dims) -> int:
    bm, bn, *_ = _geometry(schedule)
    return -(-dims["m"] // bm) * -(-dims["n"] // bn)


class _MatmulLowering:
    def __init__(self, em: Emission) -> None:
        self.em = em
        self.body = em.body
        (self.bm, self.bn, self.bk, self.stages, self.wx, self.wy, self.tm, self.tn) = _geometry(
            em.schedule
        )
        self.v = em.schedule.vector_width
        self.unroll = em.schedule.unroll
        # WGSL tiles of vec4 (the CUDA text stays as it is under every schedule)
        self.vector_shared = (
            self.unroll and self.v == 4 and not em.d.pointer_vectors and em.body.dtype == "f32"
        )
        self.threads = self.wx * self.wy
        self.dtype = self.body.dtype
        self.m, self.n, self.k = (em.uniform(d) for d in ("m", "n", "k"))
        # TF32 inputs: each element rounded (or truncated) as it is stored into its tile
        self.tf32 = self.body.tf32_rounding is not None

    def _rounded(self, value: str) -> str:
        """``value``, an element of ``a`` or ``b`` on its way into a tile, as the
        products take it: rounded to TF32 for TF32 inputs."""
        return f"{_tf32.SCALAR}({value})" if self.tf32 else value

    def lower(self) -> None:
        em, d, code = self.em, self.em.d, self.em.code
        em.let("fg_tx", "u32", d.local_x)
        em.let("fg_ty", "u32", d.local_y)
        if self.vector_shared:
            em.shared("fg_as", "vec4<f32>", self.bk * self.bm // 4)
            em.shared("fg_bs", "vec4<f32>", self.bk * self.bn // 4)
        else:
            em.shared("fg_as", self.dtype, self.bk * self.bm)
            em.shared("fg_bs", self.dtype, self.bk * self.bn)
        tiles_n = em.let("fg_tiles_n", "u32", em.ceil_div(self.n, self.bn))
        tiles = em.let("fg_tiles", "u32", f"{em.ceil_div(self.m, self.bm)} * {tiles_n}")
        self.vec_ok = {
            "a": em.vec_ok(["a"], self.v, f" && {self._contiguous_extent('a')} % {self.v}u == 0u"),
            "b": em.vec_ok(["b"], self.v, f" && {self._contiguous_extent('b')} % {self.v}u == 0u"),
            "c": em.vec_ok(["c"], self.v, f" && {self.n} % {self.v}u == 0u"),
        }
        code.comment(
            f"{self.bm}x{self.bn} block of c per workgroup, {self.tm}x{self.tn} per "
            f"invocation, k in steps of {self.bk}"
            + (", next tile prefetched into registers" if self.stages == 2 else "")
        )
        with em.c_tiles(tiles, tiles_n, self.bm, self.bn):
            self._declare_registers()
            self._steps()

    def _declare_registers(self) -> None:
        """The accumulators and the staged loads, as register arrays."""
        code, d = self.em.code, self.em.d
        code.line(d.array("fg_acc", self.dtype, self.tm * self.tn))
        for name in ("a", "b"):
            code.line(d.array(f"fg_r{name}", self.dtype, self._slots(name) * self.v))

    def _steps(self) -> None:
        """The loop over k (each step staged through shared memory, the next prefetched
        with ``stages=2``), then the epilogue."""
        code, d = self.em.code, self.em.d
        if self.stages == 2:
            self._load_global("0u")
        with code.block(d.loop("fg_k0", "0u", self.k, f"{self.bk}u")):
            if self.stages == 1:
                self._load_global("fg_k0")
            self._store_shared()
            code.line(d.barrier)
            if self.stages == 2:
                with code.block(f"if (fg_k0 + {self.bk}u < {self.k}) {{"):
                    self._load_global(f"fg_k0 + {self.bk}u")
            self._compute()
            code.line(d.barrier)
        self._epilogue()

    # -- operand tiles -----------------------------------------------------------------
    def _contiguous(self, name: str) -> str:
        """``"k"`` or ``"outer"``: the dimension along which operand ``name`` is stored
        contiguously."""
        return {o: c for o, _, c, _ in _operands(self.body, self.bm, self.bn, self.bk)}[name]

    def _contiguous_extent(self, name: str) -> str:
        """The dimension an operand's rows run along in memory."""
        if self._contiguous(name) == "k":
            return self.k
        return self.m if name == "a" else self.n

    def _tile(self, name: str) -> tuple[str, int, str, str]:
        """(contiguous, tile outer extent, global outer size, outer origin)."""
        contiguous = self._contiguous(name)
        if name == "a":
            return contiguous, self.bm, self.m, "fg_m0"
        return contiguous, self.bn, self.n, "fg_n0"

    def _slots(self, name: str) -> int:
        """Vector loads per invocation for operand ``name``'s tile."""
        _, outer, _, _ = self._tile(name)
        return -(-(outer * self.bk // self.v) // self.threads)

    def _slot_coordinates(self, name: str, slot: str) -> tuple[str, str]:
        """(outer, k) position in the tile of the first element of vector ``slot``."""
        contiguous, outer, _, _ = self._tile(name)
        if contiguous == "k":
            per_line = self.bk // self.v
            return f"{slot} / {per_line}u", f"{slot} % {per_line}u * {self.v}u"
        per_line = outer // self.v
        return f"{slot} % {per_line}u * {self.v}u", f"{slot} / {per_line}u"

    def _load_global(self, k0: str) -> None:
        em, d, code = self.em, self.em.d, self.em.code
        for name in ("a", "b"):
            contiguous, outer, size, origin = self._tile(name)
            total = outer * self.bk // self.v
            for it in range(self._slots(name)):
                slot = em.let(em.values.fresh("s"), "u32", f"{it * self.threads}u + fg_lidx")
                o, k = self._slot_coordinates(name, slot)
                go = em.let(em.values.fresh("go"), "u32", f"{origin} + {o}")
                gk = em.let(em.values.fresh("gk"), "u32", f"{k0} + {k}")
                dest = f"fg_r{name}"
                for lane in range(self.v):
                    code.line(f"{dest}[{it * self.v + lane}u] = {d.literal(0, self.dtype)};")
                if contiguous == "k":
                    guard, pos, limit = f"{go} < {size}", gk, self.k
                    index = f"{d.widen(go)} * {self.k} + {gk}"
                else:
                    guard, pos, limit = f"{gk} < {self.k}", go, size
                    index = f"{d.widen(gk)} * {size} + {go}"
                in_tile = f"{slot} < {total}u && " if total % self.threads else ""
                with code.block(f"if ({in_tile}{guard}) {{"):
                    em.load_chunk(
                        name,
                        dest,
                        f"{it * self.v}u",
                        index,
                        pos,
                        limit,
                        self.v,
                        self.vec_ok[name],
                        into=self.dtype,
                    )

    def _store_shared(self) -> None:
        em, code = self.em, self.em.code
        for name in ("a", "b"):
            contiguous, outer, _, _ = self._tile(name)
            total = outer * self.bk // self.v
            shared = f"fg_{name}s"
            for it in range(self._slots(name)):
                slot = em.let(em.values.fresh("s"), "u32", f"{it * self.threads}u + fg_lidx")
                o, k = self._slot_coordinates(name, slot)
                guard = f"if ({slot} < {total}u) {{" if total % self.threads else None
                lines = self._shared_stores(name, shared, contiguous, outer, o, k, it)
                if guard:
                    with code.block(guard):
                        for line in lines:
                            code.line(line)
                else:
                    for line in lines:
                        code.line(line)

    def _shared_stores(
        self, name: str, shared: str, contiguous: str, outer: int, o: str, k: str, it: int
    ) -> list[str]:
        """The stores of one loaded vector into its tile: lane by lane, or, into vec4
        tiles, one vector (lanes along the tile's rows) or one component per lane (lanes
        along k, stored transposed)."""
        values = [self._rounded(f"fg_r{name}[{it * self.v + lane}u]") for lane in range(self.v)]
        if self.vector_shared and contiguous != "k":
            return [f"{shared}[(({k}) * {outer}u + {o}) / 4u] = vec4<f32>({', '.join(values)});"]
        lines = []
        for lane, value in enumerate(values):
            if contiguous == "k":
                where = f"({plus(k, lane)}) * {outer}u + {o}"
            else:
                where = f"({k}) * {outer}u + {plus(o, lane)}"
            element = (
                f"{shared}[({where}) / 4u][({where}) % 4u]"
                if self.vector_shared
                else f"{shared}[{where}]"
            )
            lines.append(f"{element} = {value};")
        return lines

    def _vector_fragments(
        self, register: str, tile: str, extent: int, across: int, lane_group: str, count: int
    ) -> None:
        """``register[i]`` for the micro-tile's ``count`` elements from a vec4 tile:
        each group of 4 is one 16-byte load (see ``_local``)."""
        code = self.em.code
        for g in range(count // 4):
            vector = f"{register}_v{g}"
            code.line(
                f"let {vector} = {tile}[fg_kk * {extent // 4}u + {g * across}u + {lane_group}];"
            )
            for c in range(4):
                code.line(f"{register}[{g * 4 + c}u] = {vector}.{'xyzw'[c]};")

    # -- the FMAs ------------------------------------------------------------------------
    def _local(self, index: str, across: int, lane_group: str) -> str:
        """Position in the block of micro-tile element ``index`` (vectors of v spread
        ``across * v`` apart, ``lane_group`` = fg_tx or fg_ty)."""
        v = self.v
        if v == 1:
            return f"{index} * {across}u + {lane_group}"
        return f"{index} / {v}u * {across * v}u + {lane_group} * {v}u + {index} % {v}u"

    def _each(self, var: str, count: int, body) -> None:
        """``body()`` for ``var`` = 0 .. ``count`` - 1: a loop (unrolled by pragma on
        CUDA), written out on WGSL under an ``unroll`` schedule."""
        if self.unroll:
            self.em.unrolled(var, count, body)
            return
        with self.em.code.block(self.em.d.loop(var, "0u", f"{count}u", "1u", unroll=True)):
            body()

    def _compute(self) -> None:
        d, code = self.em.d, self.em.code

        def fragments() -> None:
            code.line(
                f"fg_fa[fg_i] = fg_as[fg_kk * {self.bm}u + "
                f"{self._local('fg_i', self.wy, 'fg_ty')}];"
            )

        def columns() -> None:
            code.line(
                f"fg_fb[fg_j] = fg_bs[fg_kk * {self.bn}u + "
                f"{self._local('fg_j', self.wx, 'fg_tx')}];"
            )

        def products() -> None:
            self._each(
                "fg_j",
                self.tn,
                lambda: code.line(
                    f"fg_acc[fg_i * {self.tn}u + fg_j] += fg_fa[fg_i] * fg_fb[fg_j];"
                ),
            )

        def step() -> None:
            code.line(d.array("fg_fa", self.dtype, self.tm))
            code.line(d.array("fg_fb", self.dtype, self.tn))
            if self.vector_shared:
                self._vector_fragments("fg_fa", "fg_as", self.bm, self.wy, "fg_ty", self.tm)
                self._vector_fragments("fg_fb", "fg_bs", self.bn, self.wx, "fg_tx", self.tn)
            else:
                self._each("fg_i", self.tm, fragments)
                self._each("fg_j", self.tn, columns)
            self._each("fg_i", self.tm, products)

        self._each("fg_kk", self.bk, step)

    def _epilogue(self) -> None:
        em, d, code = self.em, self.em.d, self.em.code
        alpha, beta = em.uniform("alpha"), em.uniform("beta")
        zero = d.literal(0, self.dtype)
        code.comment("c = alpha * acc + beta * c; c is not read when beta == 0")

        def vector(m: str) -> None:
            n = em.let("fg_n", "u32", f"fg_n0 + fg_g * {self.wx * self.v}u + fg_tx * {self.v}u")
            index = f"{d.widen(m)} * {self.n} + {n}"
            code.line(d.array("fg_out", self.dtype, self.v))
            code.line(d.array("fg_old", self.dtype, self.v))
            for lane in range(self.v):
                acc = f"fg_acc[fg_i * {self.tn}u + fg_g * {self.v}u + {lane}u]"
                code.line(f"fg_out[{lane}u] = {alpha} * {acc};")
            with code.block(f"if ({beta} != {zero}) {{"):
                em.load_chunk("c", "fg_old", "0u", index, n, self.n, self.v, self.vec_ok["c"])
                for lane in range(self.v):
                    code.line(f"fg_out[{lane}u] = fg_out[{lane}u] + {beta} * fg_old[{lane}u];")
            em.store_chunk("c", "fg_out", "0u", index, n, self.n, self.v, self.vec_ok["c"])

        def row() -> None:
            m = em.let("fg_m", "u32", f"fg_m0 + {self._local('fg_i', self.wy, 'fg_ty')}")
            with code.block(f"if ({m} < {self.m}) {{"):
                self._each("fg_g", self.tn // self.v, lambda: vector(m))

        self._each("fg_i", self.tm, row)


_LANES = "xyzw"


class _NamedRegisters(_MatmulLowering):
    """WGSL under ``unroll=1, vec=4`` with f32 accumulation: every register is a named
    ``vec4<f32>`` (no function-scope array, so no index for naga to clamp or a driver
    to keep in local memory), and ``a``, ``b``, ``c`` are arrays of vec4 (see the module
    docstring)."""

    def lower(self) -> None:
        em, d, code = self.em, self.em.d, self.em.code
        em.vectorize(["a", "b", "c"], 4)
        em.let("fg_tx", "u32", d.local_x)
        em.let("fg_ty", "u32", d.local_y)
        em.shared("fg_as", "vec4<f32>", self.bk * self.bm // 4)
        em.shared("fg_bs", "vec4<f32>", self.bk * self.bn // 4)
        tiles_n = em.let("fg_tiles_n", "u32", em.ceil_div(self.n, self.bn))
        tiles = em.let("fg_tiles", "u32", f"{em.ceil_div(self.m, self.bm)} * {tiles_n}")
        # whole vec4 moves need rows whose length is a multiple of 4 (aligned starts)
        self.rows_of_4 = {
            name: em.let(f"fg_{name}_vec", "bool", f"{extent} % 4u == 0u")
            for name, extent in (
                ("a", self._contiguous_extent("a")),
                ("b", self._contiguous_extent("b")),
                ("c", self.n),
            )
        }
        code.comment(
            f"{self.bm}x{self.bn} block of c per workgroup, {self.tm}x{self.tn} per "
            f"invocation in named vec4 registers, k in steps of {self.bk}"
            + (", next tile prefetched into registers" if self.stages == 2 else "")
        )
        with em.c_tiles(tiles, tiles_n, self.bm, self.bn):
            self._declare_registers()
            self._steps()

    def _declare_registers(self) -> None:
        """The accumulators and the staged loads, each a named vec4."""
        code = self.em.code
        for i in range(self.tm):
            for g in range(self.tn // 4):
                code.line(f"var fg_acc{i}_{g}: vec4<f32> = vec4<f32>();")
        for name in ("a", "b"):
            for it in range(self._slots(name)):
                code.line(f"var fg_r{name}{it}: vec4<f32> = vec4<f32>();")

    def _element(self, name: str, index: str) -> str:
        """Element ``index`` of vec4 buffer ``name`` as f32."""
        value = f"{name}[({index}) / 4u][({index}) % 4u]"
        return value if self.em.decls[name].dtype == "f32" else f"f32({value})"

    def _vector(self, name: str, index: str) -> str:
        """The 4 elements from ``index`` (a multiple of 4) of buffer ``name`` as vec4<f32>."""
        value = f"{name}[{index} / 4u]"
        return value if self.em.decls[name].dtype == "f32" else f"vec4<f32>({value})"

    def _load_global(self, k0: str) -> None:
        em, code = self.em, self.em.code
        for name in ("a", "b"):
            contiguous, outer, size, origin = self._tile(name)
            total = outer * self.bk // self.v
            for it in range(self._slots(name)):
                reg = f"fg_r{name}{it}"
                slot = em.let(em.values.fresh("s"), "u32", f"{it * self.threads}u + fg_lidx")
                o, k = self._slot_coordinates(name, slot)
                go = em.let(em.values.fresh("go"), "u32", f"{origin} + {o}")
                gk = em.let(em.values.fresh("gk"), "u32", f"{k0} + {k}")
                code.line(f"{reg} = vec4<f32>();")
                if contiguous == "k":
                    guard, pos, limit = f"{go} < {size}", gk, self.k
                    index = f"{go} * {self.k} + {gk}"
                else:
                    guard, pos, limit = f"{gk} < {self.k}", go, size
                    index = f"{gk} * {size} + {go}"
                in_tile = f"{slot} < {total}u && " if total % self.threads else ""
                with code.block(f"if ({in_tile}{guard}) {{"):
                    at = em.let(em.values.fresh("i"), "u32", index)
                    with code.block(f"if ({self.rows_of_4[name]} && {pos} + 4u <= {limit}) {{"):
                        code.line(f"{reg} = {self._vector(name, at)};")
                        code.otherwise()
                        for lane in range(4):
                            code.line(
                                f"if ({plus(pos, lane)} < {limit}) {{ {reg}.{_LANES[lane]} = "
                                f"{self._element(name, plus(at, lane))}; }}"
                            )

    def _store_shared(self) -> None:
        em, code = self.em, self.em.code
        for name in ("a", "b"):
            contiguous, outer, _, _ = self._tile(name)
            total = outer * self.bk // self.v
            shared, quads = f"fg_{name}s", outer // 4
            for it in range(self._slots(name)):
                reg = f"fg_r{name}{it}"
                slot = em.let(em.values.fresh("s"), "u32", f"{it * self.threads}u + fg_lidx")
                o, k = self._slot_coordinates(name, slot)
                guard = f"if ({slot} < {total}u) {{" if total % self.threads else "{"
                with code.block(guard):
                    if self.tf32:  # the 4 inputs as the products take them
                        code.line(f"{reg} = {_tf32.VECTOR}({reg});")
                    if contiguous != "k":  # lanes along the tile's rows: one vec4
                        code.line(f"{shared}[({k}) * {quads}u + ({o}) / 4u] = {reg};")
                        continue
                    # lanes along k: stored transposed, one component of 4 rows of k
                    at = em.let(em.values.fresh("w"), "u32", f"({k}) * {quads}u + ({o}) / 4u")
                    part = em.let(em.values.fresh("p"), "u32", f"({o}) % 4u")
                    for lane in range(4):
                        code.line(
                            f"{shared}[{plus(at, lane * quads)}][{part}] = {reg}.{_LANES[lane]};"
                        )

    def _compute(self) -> None:
        code = self.em.code
        for kk in range(self.bk):
            with code.block("{"):
                for g in range(self.tm // 4):
                    code.line(f"let fg_fa{g} = fg_as[{kk * self.bm // 4 + g * self.wy}u + fg_ty];")
                for g in range(self.tn // 4):
                    code.line(f"let fg_fb{g} = fg_bs[{kk * self.bn // 4 + g * self.wx}u + fg_tx];")
                for i in range(self.tm):
                    for g in range(self.tn // 4):
                        code.line(f"fg_acc{i}_{g} += fg_fa{i // 4}.{_LANES[i % 4]} * fg_fb{g};")

    def _epilogue(self) -> None:
        em, d, code = self.em, self.em.d, self.em.code
        alpha, beta = em.uniform("alpha"), em.uniform("beta")
        code.comment("c = alpha * acc + beta * c; c is not read when beta == 0")
        for i in range(self.tm):
            row = f"{i // 4 * self.wy * 4}u + fg_ty * 4u + {i % 4}u"
            with code.block("{"):
                m = em.let("fg_m", "u32", f"fg_m0 + {row}")
                with code.block(f"if ({m} < {self.m}) {{"):
                    for g in range(self.tn // 4):
                        with code.block("{"):
                            self._store_c(i, g, m, alpha, beta, d.literal(0, self.dtype))

    def _store_c(self, i: int, g: int, m: str, alpha: str, beta: str, zero: str) -> None:
        em, code = self.em, self.em.code
        whole = f"{self.rows_of_4['c']} && fg_n + 4u <= {self.n}"
        em.let("fg_n", "u32", f"fg_n0 + {g * self.wx * 4}u + fg_tx * 4u")
        em.let("fg_at", "u32", f"{m} * {self.n} + fg_n")
        code.line(f"var fg_out: vec4<f32> = {alpha} * fg_acc{i}_{g};")
        with code.block(f"if ({beta} != {zero}) {{"):
            code.line("var fg_old: vec4<f32> = vec4<f32>();")
            with code.block(f"if ({whole}) {{"):
                code.line("fg_old = c[fg_at / 4u];")
                code.otherwise()
                for lane in range(4):
                    code.line(
                        f"if ({plus('fg_n', lane)} < {self.n}) {{ fg_old.{_LANES[lane]} = "
                        f"{self._element('c', plus('fg_at', lane))}; }}"
                    )
            code.line(f"fg_out = fg_out + {beta} * fg_old;")
        with code.block(f"if ({whole}) {{"):
            code.line("c[fg_at / 4u] = fg_out;")
            code.otherwise()
            for lane in range(4):
                at = plus("fg_at", lane)
                code.line(
                    f"if ({plus('fg_n', lane)} < {self.n}) {{ c[({at}) / 4u][({at}) % 4u] = "
                    f"fg_out.{_LANES[lane]}; }}"
                )


def lower(em: Emission) -> None:
    _lower_gemm(em)
    pattern = em.kernel.body.pattern
    if pattern.prepass:  # its first launch, defined before the GEMM's entry point
        if em.d.target == "wgsl":  # the GEMM reads a_tf32 and b_tf32 as a and b
            em.binding_names.update({"a_tf32": "a", "b_tf32": "b", **_tf32.PREPASS_INPUTS})
        em.definitions.append(
            _tf32.prepass_kernel(
                em.kernel.entry_point, pattern, em.d.target, dict(em.vector_arrays)
            )
        )


def _lower_gemm(em: Emission) -> None:
    if em.schedule.mma:
        _mma.lower(em)
        return
    lowering = _MatmulLowering(em)
    if lowering.vector_shared:
        lowering = _NamedRegisters(em)
    if lowering.tf32:
        em.definitions.append(_tf32.functions(em.d.target, em.body.tf32_rounding))
    lowering.lower()

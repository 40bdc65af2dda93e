"""Lowering of ``rows``: ``wg_x`` invocations share a row, ``wg_y`` rows per workgroup,
and a grid-stride loop over blocks of rows.

Each invocation handles chunks of ``vector_width`` consecutive columns, ``ipt`` chunks
per sweep, so a sweep covers ``CAP = wg_x * ipt * vec`` columns. When the row fits
(``cols <= CAP``) the kernel takes the one-pass path: the row is loaded into registers
once and every reduction level and the outputs are computed from them, so memory sees
one read and one write per element. Longer rows take the looped path, which re-reads
the row for each level. Reductions finish across the row with warp shuffles and one
shared-memory step on CUDA, and a shared-memory tree on WGSL (``wg_x`` is a power of
two for that).
"""

from __future__ import annotations

from ..ir import Expr, col, row
from ..ir._expr import walk
from ._code import Emission, ScheduleRefused

__all__ = ["check", "storage_bytes", "workgroup_count", "lower"]

_ROW, _COL = row(), col()
_WARP = 32


def check(body, schedule, target: str | None) -> None:
    x, y, z = schedule.workgroup_size
    if schedule.tile is not None:
        raise ScheduleRefused("a rows kernel takes no tile: the row is covered by "
                              "wg_x * items per invocation * vector width columns per sweep")
    if z != 1:
        raise ScheduleRefused(f"a rows kernel uses wg_x invocations per row and wg_y rows; "
                              f"wg_z must be 1, got {schedule.workgroup_size}")
    if x & (x - 1):
        raise ScheduleRefused(f"wg_x={x} invocations share a row and reduce it as a tree, "
                              "so wg_x must be a power of two")


def accumulator(dtype: str) -> str:
    """The dtype a reduction accumulates in: f16 sums run in f32 (rounded once at the
    end, as the float64 reference is), everything else in its own dtype."""
    return "f32" if dtype == "f16" else dtype


def _slots(level: list[Expr]) -> list[int]:
    """Each reduction's index among the level's reductions of its accumulator dtype."""
    seen: dict[str, int] = {}
    slots = []
    for r in level:
        t = accumulator(r.dtype)
        slots.append(seen.get(t, 0))
        seen[t] = slots[-1] + 1
    return slots


def _widest(body) -> dict[str, int]:
    """Per accumulator dtype, the most reductions of that dtype in one level."""
    widest: dict[str, int] = {}
    for level in body.reductions():
        for r, slot in zip(level, _slots(level)):
            t = accumulator(r.dtype)
            widest[t] = max(widest.get(t, 0), slot + 1)
    return widest


def _per_row(x: int, target: str) -> int:
    """Shared slots one row needs per reduction: the whole tree on WGSL, one per warp
    on CUDA (none when a row is one warp or less)."""
    if target == "wgsl":
        return x
    return x // _WARP if x > _WARP else 0


def storage_bytes(body, schedule, target: str) -> int:
    x, y, _ = schedule.workgroup_size
    per_row = _per_row(x, target)
    return sum(count * y * per_row * (8 if t == "f64" else 4)
               for t, count in _widest(body).items())


def workgroup_count(body, schedule, dims) -> int:
    return -(-dims["rows"] // schedule.workgroup_size[1])


def _identity(em: Emission, reduction: Expr) -> str:
    t = accumulator(reduction.dtype)
    if reduction.attr[0] == "sum":
        return em.d.literal(0, t)
    if t in ("i32", "u32"):
        return em.d.literal(-2**31 if t == "i32" else 0, t)
    return em.d.literal(float("-inf"), t)


def _matrix_loads(exprs) -> dict[str, Expr]:
    found: dict[str, Expr] = {}
    for expr in exprs:
        for node in walk(expr):
            if node.op == "load" and (node.attr[1] or "matrix") == "matrix":
                found.setdefault(node.attr[0], node)
    return found


class _RowLowering:
    """State of one rows lowering; see the module docstring."""

    def __init__(self, em: Emission) -> None:
        self.em = em
        self.body = em.body
        s = em.schedule
        self.x, self.y, _ = s.workgroup_size
        self.items, self.width = s.items_per_invocation, s.vector_width
        self.cap = self.x * self.items * self.width
        self.rows, self.cols = em.uniform("rows"), em.uniform("cols")
        self.matrix = _matrix_loads(self.body.expressions())
        self.outputs = dict(self.body.outputs)
        self.matrix_outputs = [n for n, _ in self.body.outputs
                               if self.body.output_layout(n) == "matrix"]
        self.row_outputs = [n for n in self.outputs if n not in self.matrix_outputs]
        self.vec_ok: str | None = None

    # -- the kernel ----------------------------------------------------------------------
    def lower(self) -> None:
        em, d, code, v = self.em, self.em.d, self.em.code, self.em.values
        em.bind_uniforms()
        v.hoist(self.body.expressions(), ("uniform",))
        em.let("fg_tx", "u32", d.local_x)
        em.let("fg_ty", "u32", d.local_y)
        blocks = em.let("fg_blocks", "u32", em.ceil_div(self.rows, self.y))
        self.vec_ok = em.vec_ok(list(self.matrix) + self.matrix_outputs, self.width,
                                f" && {self.cols} % {self.width}u == 0u")
        self._declare_reduction_memory()
        code.comment(f"{self.y} row(s) per workgroup, {self.x} invocations per row; "
                     f"rows of up to {self.cap} columns stay in registers")
        with code.block(d.loop("fg_blk", d.widen(d.group_linear), blocks,
                               d.widen(d.group_count), wide=True)):
            em.let("fg_row", "u32", f"{d.narrow('fg_blk')} * {self.y}u + fg_ty")
            em.let("fg_active", "bool", f"fg_row < {self.rows}")
            em.let("fg_rowc", "u32", f"min(fg_row, {self.rows} - 1u)")
            em.wide("fg_base", f"{d.widen('fg_rowc')} * {self.cols}")
            v.bind(_ROW, "fg_rowc")
            for name, load in self.body.loads().items():
                if load.attr[1] == "rows":
                    v.bind(load, d.load(name, "fg_rowc", load.dtype))
            with code.block(f"if ({self.cols} <= {self.cap}u) {{"):
                code.comment("one pass: the row lives in registers")
                self._passes(one_pass=True)
                code.otherwise()
                code.comment("looped: each level sweeps the row again")
                self._passes(one_pass=False)

    def _declare_reduction_memory(self) -> None:
        per_row = _per_row(self.x, self.em.d.target)
        for t, count in sorted(_widest(self.body).items()):
            if per_row:
                self.em.shared(f"fg_red_{t}", t, count * self.y * per_row)

    def _passes(self, one_pass: bool) -> None:
        em, d, code, v = self.em, self.em.d, self.em.code, self.em.values
        with v.scope():
            if one_pass:
                self._load_block("0u", list(self.matrix))
            for level in self.body.reductions():
                v.hoist([r.args[0] for r in level], ("uniform", "row"))
                accs = [v.fresh("acc") for _ in level]
                for acc, r in zip(accs, level):
                    code.line(d.var(acc, accumulator(r.dtype), _identity(em, r)))

                def accumulate(lane: int, level=level, accs=accs) -> None:
                    for acc, r in zip(accs, level):
                        t = accumulator(r.dtype)
                        value = v.get(r.args[0])
                        if t != r.dtype:
                            value = d.cast(value, r.dtype, t)
                        code.line(f"{acc} = {d.combine(r.attr[0], t, acc, value)};")
                self._sweep(one_pass, [r.args[0] for r in level], accumulate)
                for r, result in zip(level, self._reduce(level, accs)):
                    if accumulator(r.dtype) != r.dtype:
                        result = em.let(v.fresh("r"), r.dtype,
                                        d.cast(result, accumulator(r.dtype), r.dtype))
                    v.bind(r, result)
            v.hoist(self.body.expressions(), ("uniform", "row"))
            if self.row_outputs:
                with code.block("if (fg_active && fg_tx == 0u) {"):
                    for name in self.row_outputs:
                        expr = self.outputs[name]
                        code.line(d.store(name, "fg_rowc", expr.dtype, v.get(expr)))
            if self.matrix_outputs:
                self._sweep(one_pass, [self.outputs[n] for n in self.matrix_outputs],
                            self._compute_outputs, store=True)

    # -- sweeps over the row -----------------------------------------------------------
    def _sweep(self, one_pass: bool, exprs: list[Expr], element, store: bool = False) -> None:
        """Run ``element(lane)`` at every column of the row (registers bound), storing
        the matrix outputs chunk by chunk when ``store``."""
        d, code = self.em.d, self.em.code
        if one_pass:
            self._process("0u", element, store)
            return
        needed = list(_matrix_loads(exprs))
        with code.block(d.loop("fg_off", "0u", self.cols, f"{self.cap}u")):
            self._load_block("fg_off", needed)
            self._process("fg_off", element, store)

    def _chunk_start(self, base: str) -> str:
        return self.em.let(self.em.values.fresh("c"), "u32",
                           f"{base} + (fg_k * {self.x}u + fg_tx) * {self.width}u")

    def _load_block(self, base: str, names: list[str]) -> None:
        em, d, code = self.em, self.em.d, self.em.code
        for name in names:
            code.line(d.array(f"fg_v_{name}", self.matrix[name].dtype, self.items * self.width))
        if not names:
            return
        with code.block(d.loop("fg_k", "0u", f"{self.items}u", "1u", unroll=True)):
            c0 = self._chunk_start(base)
            for name in names:
                em.load_chunk(name, f"fg_v_{name}", f"fg_k * {self.width}u", f"fg_base + {c0}",
                              c0, self.cols, self.width, self.vec_ok)

    def _process(self, base: str, element, store: bool) -> None:
        em, d, code, v = self.em, self.em.d, self.em.code, self.em.values
        with code.block(d.loop("fg_k", "0u", f"{self.items}u", "1u", unroll=True)):
            c0 = self._chunk_start(base)
            if store:
                for name in self.matrix_outputs:
                    code.line(d.array(f"fg_o_{name}", self.outputs[name].dtype, self.width))
            for lane in range(self.width):
                column = c0 if lane == 0 else f"{c0} + {lane}u"
                with code.block(f"if ({column} < {self.cols}) {{"), v.scope():
                    slot = f"fg_k * {self.width}u" + (f" + {lane}u" if lane else "")
                    for name, load in self.matrix.items():
                        v.bind(load, f"fg_v_{name}[{slot}]")
                    for name, load in self.body.loads().items():
                        if load.attr[1] == "cols":
                            v.bind(load, d.load(name, column, load.dtype))
                    v.bind(_COL, column)
                    element(lane)
            if store:
                with code.block("if (fg_active) {"):
                    for name in self.matrix_outputs:
                        em.store_chunk(name, f"fg_o_{name}", "0u", f"fg_base + {c0}", c0,
                                       self.cols, self.width, self.vec_ok)

    def _compute_outputs(self, lane: int) -> None:
        for name in self.matrix_outputs:
            self.em.code.line(f"fg_o_{name}[{lane}u] = {self.em.values.get(self.outputs[name])};")

    # -- reduction across the row --------------------------------------------------------
    def _reduce(self, level: list[Expr], accs: list[str]) -> list[str]:
        if self.em.d.target == "cuda":
            return self._reduce_cuda(level, accs)
        return self._reduce_wgsl(level, accs)

    def _reduce_wgsl(self, level: list[Expr], accs: list[str]) -> list[str]:
        em, d, code, v = self.em, self.em.d, self.em.code, self.em.values
        plane = self.y * self.x
        slots = _slots(level)

        def slot(j: int, offset: str = "") -> str:
            r = level[j]
            return (f"fg_red_{accumulator(r.dtype)}[{slots[j] * plane}u + fg_ty * {self.x}u"
                    f" + fg_tx{offset}]")
        for j, acc in enumerate(accs):
            code.line(f"{slot(j)} = {acc};")
        code.line(d.barrier)
        stride = self.x // 2
        while stride:
            with code.block(f"if (fg_tx < {stride}u) {{"):
                for j, r in enumerate(level):
                    combined = d.combine(r.attr[0], accumulator(r.dtype), slot(j),
                                         slot(j, f" + {stride}u"))
                    code.line(f"{slot(j)} = {combined};")
            code.line(d.barrier)
            stride //= 2
        results = [em.let(v.fresh("r"), accumulator(r.dtype),
                          f"fg_red_{accumulator(r.dtype)}[{slots[j] * plane}u + fg_ty * {self.x}u]")
                   for j, r in enumerate(level)]
        code.line(d.barrier)
        return results

    def _reduce_cuda(self, level: list[Expr], accs: list[str]) -> list[str]:
        d, code, v = self.em.d, self.em.code, self.em.values
        threads = self.x * self.y
        width = min(self.x, _WARP)
        if threads % _WARP:
            # The last warp is partial: name only its lanes in the shuffle mask.
            code.line(f"const unsigned int fg_lanes = {threads}u - (fg_lidx & ~31u);")
            mask = "(fg_lanes >= 32u ? 0xffffffffu : ((1u << fg_lanes) - 1u))"
        else:
            mask = "0xffffffffu"
        offset = width // 2
        while offset:
            for acc, r in zip(accs, level):
                other = f"__shfl_xor_sync({mask}, {acc}, {offset}, {width})"
                code.line(f"{acc} = {d.combine(r.attr[0], accumulator(r.dtype), acc, other)};")
            offset //= 2
        if self.x <= _WARP:
            return accs
        warps = self.x // _WARP
        plane = self.y * warps
        slots = _slots(level)

        def shared(j: int, extra: str = "") -> str:
            t = accumulator(level[j].dtype)
            return f"fg_red_{t}[{slots[j] * plane}u + fg_ty * {warps}u{extra}]"
        with code.block("if ((fg_tx & 31u) == 0u) {"):
            for j, acc in enumerate(accs):
                code.line(f"{shared(j, ' + fg_tx / 32u')} = {acc};")
        code.line(d.barrier)
        results = []
        for j, r in enumerate(level):
            t = accumulator(r.dtype)
            result = v.fresh("r")
            code.line(d.var(result, t, shared(j)))
            for w in range(1, warps):
                code.line(f"{result} = {d.combine(r.attr[0], t, result, shared(j, f' + {w}u'))};")
            results.append(result)
        code.line(d.barrier)
        return results


def lower(em: Emission) -> None:
    _RowLowering(em).lower()

"""Lowering of ``rows``: ``wg_x`` invocations share a row, ``wg_y`` rows per workgroup,
and a grid-stride loop over blocks of rows.

Each invocation handles chunks of ``vector_width`` consecutive columns, ``ipt`` chunks
per sweep, so a sweep covers ``CAP = wg_x * ipt * vec`` columns. When the row fits
(``cols <= CAP``) the kernel takes the one-pass path: the row is loaded into registers
once and every reduction level and the outputs are computed from them, so memory sees
one read and one write per element. Longer rows take the looped path, which re-reads
the row for each level.

Reductions finish across the row with warp shuffles on CUDA: within each warp, then
(rows wider than a warp) every warp reads the per-warp partials, one per lane, and
shuffles them again, so a level costs one ``__syncthreads``; the partials alternate
between two halves of shared memory so that the next level may write while a slow warp
still reads. WGSL reduces through a shared-memory tree (``wg_x`` is a power of two).

A ``row_max(a)`` level followed by a ``row_sum(exp(a - row_max(a)))`` level (softmax,
log_softmax) is one online level: each invocation keeps its own maximum ``m`` and
``s = sum(exp(a - m))``, and partials merge as ``(max(m1, m2), s1 * exp(m1 - M) + ...)``,
so the row is swept once for both. On the one-pass path each ``exp(a - m)`` is kept
in registers and ``exp(a - M)`` becomes ``exp(a - m) * exp(m - M)`` (``/ S`` folded
into that per-invocation factor), so an element costs one ``exp``. This reassociates:
a few ulp more than the two-level form, far inside the kernels' tolerances.

A ``row_sum(a)`` level followed by a ``row_sum((a - m) * (a - m))`` level, ``m`` made of
the sum (layernorm's mean and variance), is one moments level: each invocation keeps
the count, the sum and the squared deviations from their own mean of its ``a - k`` (``k``
a shift near the row's values, see ``_moments_level``), and partials merge pairwise, so
the row is swept once and reduced across once (one barrier on CUDA, where the two levels
took two). The sum keeps the reference's rounding even where the row's mean is far
larger than its spread, which the two-level form's float32 sum did not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..ir import Expr, col, row
from ..ir._expr import walk
from ._code import Emission, ScheduleRefused, refuse_eight, refuse_unroll, short

__all__ = [
    "PATTERN",
    "SUBGROUPS",
    "VECTOR_WIDTHS",
    "check",
    "device_features",
    "storage_bytes",
    "workgroup_count",
    "lower",
]

PATTERN = "rows"  # the ``Body.kind`` this module lowers
SUBGROUPS = True  # takes sg=1 (on WGSL)
#: vec=8: 16-byte loads and stores of 2-byte elements (f16, bf16) on CUDA
VECTOR_WIDTHS = (1, 2, 4, 8)

_ROW, _COL = row(), col()
_WARP = 32
#: Whether WGSL's one-pass rows reduce a moments pair (layernorm's mean and variance)
#: as one level of (count, sum, squared deviations) partials, as CUDA does and WGSL's
#: looped path must (there a second level sweeps the row in memory again), or as two
#: levels (``_shifted_levels``: two reductions of one value, by ``subgroupAdd`` with
#: sg=1, where the moments merge three values with divisions). The one-pass layernorm
#: is the slowest of the WGSL rows through NVIDIA's Vulkan (2082 GB/s against 2346 for
#: the looped path under the clamps alone, H200, 2026-12-04), and two unshifted levels
#: took it from 404 to 994 GB/s under every naga check. The emission stays the moments
#: until two levels are measured under the clamps alone (``bench.probes wgsl-rows
#: --checks bounds --variant "as emitted" --variant "one-pass two levels"``); they are
#: checked to compute right on the CPU adapters (tests/test_emit_rows.py).
WGSL_ONE_PASS_MOMENTS = True
#: Whether CUDA holds a row of f16 or bf16 in registers packed two halves to a 32-bit
#: word (``Emission.load_packed_chunk``), or in an array of ``__nv_bfloat16``, to which
#: ptxas gives a register a half: the row then takes as many registers as in float.
#: Packed, layernorm_bf16 went from 0.92 to 0.97 of the device copy in P11 (H100,
#: 2026-12-07, consecutive runs; ``bench.probes cuda-half``: 2693 to 2830 GB/s best
#: against best, 2422 to 2659 at ``wg=512,ipt=8,vec=8``), with the same output bits;
#: rmsnorm_bf16 and softmax_bf16 within the noise. ptxas still takes every register
#: ``__launch_bounds__`` leaves it (65536 / wg); the row's half of them is room for
#: what it keeps live across the sweeps.
CUDA_PACKED_HALF_ROWS = True
#: The blocks a multiprocessor should hold at once where a row is packed
#: (``__launch_bounds__``'s second argument, capping the registers a thread): 2 would
#: leave room for a second block's row while one reduces, but through NVRTC 13.5 it
#: spills at every one-pass schedule of 32768 columns (LLVM keeps each unpacked float,
#: used in three sweeps, rather than unpack it three times), and on the H100 it was no
#: faster (layernorm_bf16 2823 against 2777 at ``wg=256,ipt=32,vec=4``, 2689 against
#: 2830 at ``wg=512,ipt=16,vec=4``).
CUDA_PACKED_ROW_BLOCKS = 1
#: The settings above, which ``python -m bench --emit NAME=VALUE`` may change for a run.
SWITCHES = ("WGSL_ONE_PASS_MOMENTS", "CUDA_PACKED_HALF_ROWS", "CUDA_PACKED_ROW_BLOCKS")


def check(body, schedule, target: str | None) -> None:
    refuse_unroll(schedule, "rows kernel")
    x, y, z = schedule.workgroup_size
    if schedule.tile is not None:
        raise ScheduleRefused(
            "a rows kernel takes no tile: the row is covered by "
            "wg_x * items per invocation * vector width columns per sweep"
        )
    if z != 1:
        raise ScheduleRefused(
            f"a rows kernel uses wg_x invocations per row and wg_y rows; "
            f"wg_z must be 1, got {schedule.workgroup_size}"
        )
    if x & (x - 1):
        raise ScheduleRefused(
            f"wg_x={x} invocations share a row and reduce it as a tree, "
            "so wg_x must be a power of two"
        )
    if schedule.vector_width == 8:
        refuse_eight([b for b in body.buffers() if b.layout in ("matrix", "cols")], target, "rows")
    if schedule.subgroups:
        _check_subgroups(body, schedule, target)


def _check_subgroups(body, schedule, target: str | None) -> None:
    """sg=1: WGSL's reductions through subgroup operations, one row per workgroup (a
    subgroup never straddles two rows), accumulators the operations take."""
    if target == "cuda":
        raise ScheduleRefused(
            "sg=1 is WGSL's subgroup reduction; CUDA's row reductions always go "
            "through warp shuffles, so the schedule without it is the same kernel"
        )
    if schedule.workgroup_size[1] != 1:
        raise ScheduleRefused(
            f"sg=1 reduces each row within its workgroup's subgroups, which may straddle "
            f"rows: it takes one row per workgroup (wg_y = 1), got {schedule.workgroup_size}"
        )
    wide = sorted({t for t in _widest(body, "subgroups") if t not in _SUBGROUP_TYPES})
    if wide:
        raise ScheduleRefused(
            f"sg=1 is unsupported, because subgroup operations take "
            f"{', '.join(sorted(_SUBGROUP_TYPES))} and this kernel accumulates in {', '.join(wide)}"
        )


#: Accumulator dtypes WGSL's subgroup operations take (f16 sums accumulate in f32).
_SUBGROUP_TYPES = frozenset({"f32", "i32", "u32"})
#: WebGPU's smallest subgroup: a workgroup of x invocations has at most x / 4 subgroups.
_MIN_SUBGROUP = 4


def device_features(body, schedule) -> tuple[str, ...]:
    """What a device must offer to run this schedule, beyond its target."""
    return ("subgroups",) if schedule.subgroups else ()


def accumulator(dtype: str) -> str:
    """The dtype a reduction accumulates in: f16 and bf16 sums run in f32 (rounded once
    at the end, as the float64 reference is), everything else in its own dtype."""
    return "f32" if dtype in ("f16", "bf16") else dtype


# -- levels ------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Online:
    """``peak = row_max(a)`` and ``total = row_sum(exp(a - peak))`` reduced together."""

    peak: Expr
    total: Expr

    @property
    def arg(self) -> Expr:
        return self.peak.args[0]

    @property
    def shifted_exp(self) -> Expr:
        return self.total.args[0]


def _online(first: list[Expr], second: list[Expr]) -> _Online | None:
    """The online pair when level ``first`` is one f32 ``row_max(a)`` and ``second`` one
    ``row_sum(exp(a - row_max(a)))``; None otherwise."""
    if len(first) != 1 or len(second) != 1:
        return None
    peak, total = first[0], second[0]
    if (peak.attr[0], total.attr[0], peak.dtype) != ("max", "sum", "f32"):
        return None
    e = total.args[0]
    if e.op != "exp" or e.args[0].op != "sub":
        return None
    a, m = e.args[0].args
    return _Online(peak, total) if (a.key, m.key) == (peak.args[0].key, peak.key) else None


@dataclass(frozen=True)
class _Moments:
    """``total = row_sum(a)`` and, a level later, ``squares = row_sum((a - m) * (a - m))``
    for a per-row ``m`` made of ``total`` (layernorm: ``m = total / cols``), reduced
    together as each invocation's (count, sum, squared deviations from its mean) of ``a``."""

    total: Expr
    squares: Expr

    @property
    def arg(self) -> Expr:
        return self.total.args[0]

    @property
    def centre(self) -> Expr:
        return self.squares.args[0].args[0].args[1]


def _moments(first: list[Expr], second: list[Expr]) -> _Moments | None:
    """The moments pair when level ``first`` is one f32 ``row_sum(a)`` and ``second``
    one f32 ``row_sum((a - m) * (a - m))`` with ``m`` the same for the whole row;
    None otherwise."""
    if len(first) != 1 or len(second) != 1:
        return None
    total, squares = first[0], second[0]
    if (total.attr[0], squares.attr[0], total.dtype, squares.dtype) != ("sum", "sum", "f32", "f32"):
        return None
    square = squares.args[0]
    if square.op != "mul" or square.args[0].key != square.args[1].key:
        return None
    centred = square.args[0]
    if centred.op != "sub" or centred.args[0].key != total.args[0].key:
        return None
    if centred.args[1].scope == "element":
        return None
    return _Moments(total, squares)


def _levels(body) -> list[list]:
    """The reduction levels, each a list of reductions, with an online or moments pair
    standing alone in the level that replaces its two."""
    levels, out = body.reductions(), []
    while levels:
        pair: _Online | _Moments | None = None
        if len(levels) > 1:
            pair = _online(levels[0], levels[1]) or _moments(levels[0], levels[1])
        out.append([pair] if pair else levels[0])
        levels = levels[2:] if pair else levels[1:]
    return out


def _arguments(item) -> list[Expr]:
    """The expressions over the row that a level item reduces."""
    if isinstance(item, _Online):
        return [item.arg]
    if isinstance(item, _Moments):
        return [item.arg, item.squares.args[0]]
    return [item.args[0]]


def _crossing(schedule, target: str) -> str:
    """How a reduction crosses the row's invocations: ``"cuda"`` (warp shuffles, then
    the warps' partials through shared memory), ``"subgroups"`` (WGSL's subgroup
    operations the same way, sg=1) or ``"wgsl"`` (a workgroup-memory tree)."""
    return "subgroups" if target == "wgsl" and schedule.subgroups else target


def _parts(item, how: str) -> list[str]:
    """Accumulator dtypes one level item keeps in shared memory at once: the online pair
    is a (max, sum) partial, except in the WGSL tree, which takes the two in turn; the
    moments pair a (count, sum, squared deviations) partial everywhere."""
    if isinstance(item, _Online):
        return ["f32"] if how == "wgsl" else ["f32", "f32"]
    if isinstance(item, _Moments):
        return ["f32", "f32", "f32"]
    return [accumulator(item.dtype)]


def _slots(level: list, how: str) -> list[list[int]]:
    """Each item's parts' indices among the level's parts of the same dtype."""
    seen: dict[str, int] = {}
    slots = []
    for item in level:
        mine = []
        for t in _parts(item, how):
            mine.append(seen.get(t, 0))
            seen[t] = mine[-1] + 1
        slots.append(mine)
    return slots


def _widest(body, how: str) -> dict[str, int]:
    """Per accumulator dtype, the most parts of that dtype in one level."""
    widest: dict[str, int] = {}
    for level in _levels(body):
        for item, slots in zip(level, _slots(level, how)):
            for t, slot in zip(_parts(item, how), slots):
                widest[t] = max(widest.get(t, 0), slot + 1)
    return widest


def _per_row(x: int, how: str) -> int:
    """Shared slots one row needs per part: the whole tree on WGSL; one per warp and
    two halves on CUDA (none when a row is one warp or less); one per subgroup (at most
    ``x / 4``) and two halves with sg=1."""
    if how == "wgsl":
        return x
    if how == "subgroups":
        return 2 * max(1, x // _MIN_SUBGROUP)
    return 2 * (x // _WARP) if x > _WARP else 0


def storage_bytes(body, schedule, target: str) -> int:
    x, y, _ = schedule.workgroup_size
    how = _crossing(schedule, target)
    per_row = _per_row(x, how)
    return sum(
        count * y * per_row * (8 if t == "f64" else 4) for t, count in _widest(body, how).items()
    )


def workgroup_count(body, schedule, dims) -> int:
    return -(-dims["rows"] // schedule.workgroup_size[1])


def _identity(em: Emission, op: str, t: str) -> str:
    if op == "sum":
        return em.d.literal(0, t)
    if t in ("i32", "u32"):
        return em.d.literal(-(2**31) if t == "i32" else 0, t)
    return em.d.literal(float("-inf"), t)


def _matrix_loads(exprs) -> dict[str, Expr]:
    found: dict[str, Expr] = {}
    for expr in exprs:
        for node in walk(expr):
            if node.op == "load" and (node.attr[1] or "matrix") == "matrix":
                found.setdefault(node.attr[0], node)
    return found


def _outside_reductions(exprs) -> set[tuple]:
    """Keys of the nodes of ``exprs`` reached without entering a row reduction."""
    seen: set[tuple] = set()
    stack = list(exprs)
    while stack:
        node = stack.pop()
        if node.key not in seen:
            seen.add(node.key)
            if node.op != "reduce":
                stack.extend(node.args)
    return seen


#: A count of values: a variable's name, or an int where it is known when emitting.
_Count = str | int
#: A moments partial: (count, sum of a - k, squared deviations from its mean).
_Partial = tuple[_Count, str, str]


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
        self.matrix_outputs = [
            n for n, _ in self.body.outputs if self.body.output_layout(n) == "matrix"
        ]
        self.row_outputs = [n for n in self.outputs if n not in self.matrix_outputs]
        self.vec_ok: str | None = None
        self.limit: str | None = self.cols  # None: every column of a sweep is in range
        self.target = em.d.target
        self.how = _crossing(s, self.target)
        self.neg_inf = em.d.literal(float("-inf"), "f32")
        # CUDA takes the online softmax's exp(a - max) (an argument <= 0, a result in
        # (0, 1] that is summed and scaled, never cancelled) through __expf when every
        # output is f16 or bf16 (``em.half_outputs``): its 2 + 1.17|arg| ulp of float32
        # (CUDA C Programming Guide) stay under 2^-17 of the result wherever it is a
        # normal float, far within half an ulp of either dtype, and it costs two
        # instructions to expf's eight or so (H200, 2026-12-03, ``bench.probes
        # cuda-half``: softmax_bf16 3117 to 3266 GB/s, 1 ulp of bf16 from expf's output
        # at most)
        self.fast_exp = self.target == "cuda" and em.half_outputs
        # (expression, its value's text from a register slot) bound at every column
        self.lane_values: list[tuple[Expr, Callable[[str], str]]] = []

    def _exp(self, arg: str) -> str:
        """exp of an f32 ``arg`` <= 0 (see ``fast_exp``)."""
        return f"__expf({arg})" if self.fast_exp else self.em.d.function("exp", "f32", [arg])

    # -- the kernel ----------------------------------------------------------------------
    def lower(self) -> None:
        em, d, code, v = self.em, self.em.d, self.em.code, self.em.values
        em.bind_uniforms()
        v.hoist(self.body.expressions(), ("uniform",))
        if any(self._packed(name) for name in self.matrix):
            em.min_blocks = CUDA_PACKED_ROW_BLOCKS
        em.let("fg_tx", "u32", d.local_x)
        em.let("fg_ty", "u32", d.local_y)
        blocks = em.let("fg_blocks", "u32", em.ceil_div(self.rows, self.y))
        columns = [n for n, load in self.body.loads().items() if load.attr[1] == "cols"]
        self.vec_ok = self._vector_access(list(self.matrix) + self.matrix_outputs + columns)
        self._declare_reduction_memory()
        code.comment(
            f"{self.y} row(s) per workgroup, {self.x} invocations per row; "
            f"rows of up to {self.cap} columns stay in registers"
        )
        with code.block(
            d.loop("fg_blk", d.widen(d.group_linear), blocks, d.widen(d.group_count), wide=True)
        ):
            em.let("fg_row", "u32", f"{d.narrow('fg_blk')} * {self.y}u + fg_ty")
            em.let("fg_active", "bool", f"fg_row < {self.rows}")
            em.let("fg_rowc", "u32", f"min(fg_row, {self.rows} - 1u)")
            em.wide("fg_base", f"{d.widen('fg_rowc')} * {self.cols}")
            v.bind(_ROW, "fg_rowc")
            for name, load in self.body.loads().items():
                if load.attr[1] == "rows":
                    v.bind(load, d.load(name, "fg_rowc", load.dtype))
            with code.block(f"if ({self.cols} == {self.cap}u) {{"):
                code.comment("one pass, the row exactly fills the registers: no bounds checks")
                self._passes(one_pass=True, exact=True)
                code.otherwise()
                with code.block(f"if ({self.cols} < {self.cap}u) {{"):
                    code.comment("one pass: the row lives in registers")
                    self._passes(one_pass=True)
                    code.otherwise()
                    code.comment("looped: each level sweeps the row again")
                    self._passes(one_pass=False)

    def _declare_reduction_memory(self) -> None:
        per_row = _per_row(self.x, self.how)
        widest = sorted(_widest(self.body, self.how).items())
        for t, count in widest:
            if per_row:
                self.em.shared(f"fg_red_{t}", t, count * self.y * per_row)
        if per_row and widest and self.how != "wgsl":
            # which half of the partials the next block-wide reduction writes
            self.em.code.line(self.em.d.var("fg_half", "u32", "0u"))

    def _passes(self, one_pass: bool, exact: bool = False) -> None:
        d, code, v = self.em.d, self.em.code, self.em.values
        self.lane_values = []
        self.limit = None if exact else self.cols
        with v.scope():
            if one_pass:
                self._load_block("0u", list(self.matrix))
            for level in _levels(self.body):
                if isinstance(level[0], _Online):
                    self._online_level(level[0], one_pass)
                elif isinstance(level[0], _Moments):
                    if one_pass and self.target == "wgsl" and not WGSL_ONE_PASS_MOMENTS:
                        self._shifted_levels(level[0])
                    else:
                        self._moments_level(level[0], one_pass)
                else:
                    self._plain_level(level, one_pass)
            v.hoist(self.body.expressions(), ("uniform", "row"))
            if self.row_outputs:
                with code.block("if (fg_active && fg_tx == 0u) {"):
                    for name in self.row_outputs:
                        expr = self.outputs[name]
                        code.line(d.store(name, "fg_rowc", expr.dtype, v.get(expr)))
            if self.matrix_outputs:
                self._sweep(
                    one_pass,
                    [self.outputs[n] for n in self.matrix_outputs],
                    self._compute_outputs,
                    store=True,
                )

    def _plain_level(self, level: list[Expr], one_pass: bool) -> None:
        em, d, code, v = self.em, self.em.d, self.em.code, self.em.values
        v.hoist([r.args[0] for r in level], ("uniform", "row"))
        accs = [v.fresh("acc") for _ in level]
        for acc, r in zip(accs, level):
            t = accumulator(r.dtype)
            code.line(d.var(acc, t, _identity(em, r.attr[0], t)))

        def accumulate(lane: int, slot: str) -> None:
            for acc, r in zip(accs, level):
                t = accumulator(r.dtype)
                value = v.get(r.args[0])
                if t != r.dtype:
                    value = d.cast(value, r.dtype, t)
                code.line(f"{acc} = {d.combine(r.attr[0], t, acc, value)};")

        self._sweep(one_pass, [r.args[0] for r in level], accumulate)
        specs = [(r.attr[0], accumulator(r.dtype)) for r in level]
        for r, result in zip(level, self._reduce(level, specs, accs)):
            if accumulator(r.dtype) != r.dtype:
                result = em.let(
                    v.fresh("r"), r.dtype, d.cast(result, accumulator(r.dtype), r.dtype)
                )
            v.bind(r, result)

    # -- the online (max, sum of exp) level --------------------------------------------
    def _safe(self, m: str) -> str:
        """``m``, or 0 where it is -inf (no finite value yet), as a shift for exp."""
        return self.em.d.select(f"{m} == {self.neg_inf}", self.em.d.literal(0.0, "f32"), m)

    def _factor(self, m: str, peak: str) -> str:
        """``exp(m - peak)`` for a partial of maximum ``m`` under a maximum ``peak >= m``:
        exactly 1 when they are equal, 0 for an empty partial (-inf)."""
        d = self.em.d
        scaled = d.select(
            f"{m} == {self.neg_inf}",
            d.literal(0.0, "f32"),
            self._exp(f"({m} - {peak})"),
        )
        return d.select(f"{m} == {peak}", d.literal(1.0, "f32"), scaled)

    def _online_level(self, pair: _Online, one_pass: bool) -> None:
        em, d, code, v = self.em, self.em.d, self.em.code, self.em.values
        v.hoist([pair.arg], ("uniform", "row"))
        m, s = v.fresh("m"), v.fresh("s")
        code.comment(f"{short(pair.peak)} and {short(pair.total)} online: one sweep")
        code.line(d.var(m, "f32", self.neg_inf))
        code.line(d.var(s, "f32", d.literal(0.0, "f32")))
        later = _outside_reductions(
            [e for _, e in self.body.outputs]
            + [
                arg
                for level in _levels(self.body)
                for item in level
                if not isinstance(item, _Online)
                for arg in _arguments(item)
            ]
        )
        fold = Expr("div", "f32", (pair.shifted_exp, pair.total))
        keep = one_pass and bool({pair.shifted_exp.key, fold.key} & later)
        kept = v.fresh("e")
        if keep:
            code.line(d.array(kept, "f32", self.items * self.width))

        def block(base: str) -> None:
            # the block's maximum first, then s rescaled to it once, not per element
            top = m if one_pass else v.fresh("top")
            if not one_pass:
                code.line(d.var(top, "f32", self.neg_inf))
            self._process(
                base,
                lambda lane, slot: code.line(
                    f"{top} = {d.combine('max', 'f32', top, v.get(pair.arg))};"
                ),
                [pair.arg],
            )
            if not one_pass:
                top = em.let(v.fresh("top"), "f32", d.combine("max", "f32", m, top))
                code.line(f"{s} = {s} * {self._factor(m, top)};")
                code.line(f"{m} = {top};")
            shift = em.let(v.fresh("shift"), "f32", self._safe(m))

            def add(lane: int, slot: str) -> None:
                e = em.let(
                    v.fresh("t"),
                    "f32",
                    self._exp(f"({v.get(pair.arg)} - {shift})"),
                )
                code.line(f"{s} = {s} + {e};")
                if keep:
                    code.line(f"{kept}[{slot}] = {e};")

            self._process(base, add, [pair.arg])

        self._blocks(one_pass, list(_matrix_loads([pair.arg])), block)
        peak, total = self._reduce_online(pair, m, s)
        v.bind(pair.peak, peak)
        v.bind(pair.total, total)
        if keep:
            own = em.let(v.fresh("f"), "f32", self._factor(m, peak))
            self.lane_values.append((pair.shifted_exp, lambda slot: f"({kept}[{slot}] * {own})"))
            if fold.key in later:
                over = em.let(v.fresh("g"), "f32", f"({own} / {total})")
                self.lane_values.append((fold, lambda slot: f"({kept}[{slot}] * {over})"))

    # -- the moments (sum, squared deviations) level ------------------------------------
    def _moments_level(self, item: _Moments, one_pass: bool) -> None:
        """``row_sum(a)`` and ``row_sum((a - m)^2)`` from one sweep and one reduction
        across the row. Each invocation keeps the count, the sum and the squared
        deviations from their mean of its values of ``a - k``; partials merge pairwise
        (Chan, Golub and LeVeque), so no deviation is ever squared off a far mean.

        ``k`` is a value of the row (the median of its first, middle and last ``a``:
        no single outlier) with as many low bits cleared as ``cols`` has significant
        bits, so that ``cols * k`` is exact. Near ``k``, ``a - k`` and its sums are
        exact, and the row's sum ``cols * k + sum(a - k)`` is rounded once, as the
        reference's float64 sum is: a mean far larger than the row's spread comes out
        as the reference's, to the bit (ties included), where a plain f32 sum is off
        by more than the spread."""
        em, d, code, v = self.em, self.em.d, self.em.code, self.em.values
        zero, one = d.literal(0.0, "f32"), d.literal(1.0, "f32")
        code.comment(f"{short(item.total)} and {short(item.squares)} as moments: one sweep")
        shift = self._shift(item)
        running: _Partial | None = None
        if not one_pass:
            running = (v.fresh("n"), v.fresh("s"), v.fresh("q"))
            for name in running:
                code.line(d.var(str(name), "f32", zero))
        mine: list[_Partial] = []

        def block(base: str) -> None:
            # this invocation's values of the block, from registers: their count and
            # sum, then their squared deviations from their mean; where the row exactly
            # fills the registers every invocation's count is known
            c: _Count = self.items * self.width if self.limit is None else v.fresh("c")
            total = v.fresh("s")
            if isinstance(c, str):
                code.line(d.var(c, "f32", zero))
            code.line(d.var(total, "f32", zero))

            def add(lane: int, slot: str) -> None:
                if isinstance(c, str):
                    code.line(f"{c} = {c} + {one};")
                code.line(f"{total} = {total} + ({v.get(item.arg)} - {shift});")

            self._process(base, add, [item.arg])
            # the squared deviations from r = k + mean rounded (exact near the values,
            # and no a - k shared with the sum above, which the compiler would keep in
            # registers beside a), less count * (mean - r)^2: those from the mean
            mean = em.let(v.fresh("mean"), "f32", self._per(total, c))
            centre = em.let(v.fresh("m"), "f32", f"({shift} + {mean})")
            squares = v.fresh("q")
            code.line(d.var(squares, "f32", zero))

            def square(lane: int, slot: str) -> None:
                t = em.let(v.fresh("t"), "f32", f"({v.get(item.arg)} - {centre})")
                code.line(f"{squares} = {squares} + {t} * {t};")

            self._process(base, square, [item.arg])
            off = em.let(v.fresh("g"), "f32", f"(({shift} - {centre}) + {mean})")
            q = em.let(
                v.fresh("q"),
                "f32",
                d.function(
                    "max",
                    "f32",
                    [f"({squares} - ({self._count(c)} * {off}) * {off})", zero],
                ),
            )
            if running is None:
                mine.append((c, total, q))
                return
            for name, value in zip(running, self._merge(running, (c, total, q))):
                code.line(f"{name} = {self._count(value)};")

        self._blocks(one_pass, list(_matrix_loads([item.arg])), block)
        n, total, q = self._reduce_moments(item, running or mine[0])
        # the row's sum; then m as the IR makes it of the sum, and the squared
        # deviations from m: those from the mean, plus n (mean - m)^2
        count = d.cast(self.cols, "u32", "f32")
        v.bind(item.total, em.let(v.fresh("r"), "f32", f"({count} * {shift} + {total})"))
        centre = v.get(item.centre)
        gap = em.let(v.fresh("g"), "f32", f"(({shift} - {centre}) + {self._per(total, n)})")
        squares = f"({q} + ({self._count(n)} * {gap}) * {gap})"
        if isinstance(n, str):  # no values (cols == 0): no squares either
            squares = d.select(f"{n} > {zero}", squares, zero)
        v.bind(item.squares, em.let(v.fresh("r"), "f32", squares))

    def _shift(self, item: _Moments) -> str:
        """A variable holding ``k`` for ``item`` (see ``_moments_level``): the median of
        the row's first, middle and last ``a``, its low bits cleared so that
        ``cols * k`` is exact; 0 for an empty row."""
        em, d, code, v = self.em, self.em.d, self.em.code, self.em.values
        v.hoist([item.arg], ("uniform", "row"))
        shift = v.fresh("k")
        code.line(d.var(shift, "f32", d.literal(0.0, "f32")))
        with code.block(f"if ({self.cols} > 0u) {{"):
            first, middle, last = (
                self._at_column(item.arg, c)
                for c in ("0u", f"{self.cols} / 2u", f"{self.cols} - 1u")
            )

            def f(name: str, a: str, b: str) -> str:
                return d.function(name, "f32", [a, b])

            median = f("max", f("min", first, middle), f("min", f("max", first, middle), last))
            low = em.let(v.fresh("b"), "u32", f"min({d.significant_bits(self.cols)}, 23u)")
            code.line(f"{shift} = {d.bits_f32(f'{d.f32_bits(median)} & (0xffffffffu << {low})')};")
        return shift

    def _shifted_levels(self, item: _Moments) -> None:
        """The moments pair as two levels, on WGSL's one-pass path (the row in
        registers, so the second level reads no memory): ``sum(a - k)`` reduced across
        the row (with ``k`` as in ``_moments_level``, so the row's sum keeps its
        rounding), then ``row_sum((a - m)^2)`` about the row's ``m`` as a plain level.
        Two reductions of one value each, by ``subgroupAdd`` with sg=1, where the moments
        take one of three values whose merge divides (a subgroup's size is not known to
        the emitter, so neither are the counts): see ``WGSL_ONE_PASS_MOMENTS``."""
        em, d, code, v = self.em, self.em.d, self.em.code, self.em.values
        code.comment(f"{short(item.total)} shifted, then {short(item.squares)}: two levels")
        shift = self._shift(item)
        total = v.fresh("s")
        code.line(d.var(total, "f32", d.literal(0.0, "f32")))

        def add(lane: int, slot: str) -> None:
            code.line(f"{total} = {total} + ({v.get(item.arg)} - {shift});")

        self._process("0u", add, [item.arg])
        (summed,) = self._reduce([item.total], [("sum", "f32")], [total])
        count = d.cast(self.cols, "u32", "f32")
        v.bind(item.total, em.let(v.fresh("r"), "f32", f"({count} * {shift} + {summed})"))
        self._plain_level([item.squares], one_pass=True)

    def _count(self, count: _Count) -> str:
        """A count's text: a variable, or an f32 literal where it is known."""
        return count if isinstance(count, str) else self.em.d.literal(float(count), "f32")

    def _per(self, total: str, count: _Count) -> str:
        """``total / count`` (0 for no values): a multiplication where the count is a
        known power of two."""
        d = self.em.d
        if isinstance(count, int):
            if count & (count - 1) == 0:
                return f"({total} * {d.literal(1.0 / count, 'f32')})"
            return f"({total} / {d.literal(float(count), 'f32')})"
        return f"({total} / {d.function('max', 'f32', [count, d.literal(1.0, 'f32')])})"

    def _at_column(self, expr: Expr, column: str) -> str:
        """A let of ``expr``'s value at ``column`` of the row, read from memory."""
        em, v = self.em, self.em.values
        with v.scope():
            index = "fg_base" if column == "0u" else f"fg_base + {column}"
            for name, load in self.matrix.items():
                v.bind(load, em.element(name, index))
            for name, load in self.body.loads().items():
                if load.attr[1] == "cols":
                    v.bind(load, em.element(name, column))
            v.bind(_COL, f"({column})")
            return em.let(v.fresh("at"), "f32", v.get(expr))

    def _merge(self, a: _Partial, b: _Partial) -> _Partial:
        """The (count, sum, squared deviations from the mean) of two partials' values
        together: counts and sums add, and the squared deviations gain
        ``(mean_b - mean_a)^2 * na * nb / n``, which for known equal counts ``m`` is
        ``(sb - sa)^2 / 2m`` (no division). An empty partial (0, 0, 0) leaves the other
        as it is. Swapping the partials negates a difference exactly, so both orders
        give the same bits (the two lanes of a shuffle agree)."""
        em, d, v = self.em, self.em.d, self.em.values
        (na, sa, qa), (nb, sb, qb) = a, b
        total = em.let(v.fresh("s"), "f32", f"({sa} + {sb})")
        if isinstance(na, int) and isinstance(nb, int) and na == nb:
            gap = em.let(v.fresh("g"), "f32", f"({sb} - {sa})")
            weight = d.literal(1.0 / (2 * na), "f32")
            q = em.let(v.fresh("q"), "f32", f"(({qa} + {qb}) + ({gap} * {gap}) * {weight})")
            return 2 * na, total, q
        one = d.literal(1.0, "f32")

        def per(value: str, count: _Count) -> str:
            return f"({value} / {d.function('max', 'f32', [self._count(count), one])})"

        n = em.let(v.fresh("n"), "f32", f"({self._count(na)} + {self._count(nb)})")
        gap = em.let(v.fresh("g"), "f32", f"({per(sb, nb)} - {per(sa, na)})")
        weight = per(f"({self._count(na)} * {self._count(nb)})", n)
        q = em.let(v.fresh("q"), "f32", f"(({qa} + {qb}) + ({gap} * {gap}) * {weight})")
        return n, total, q

    # -- sweeps over the row -----------------------------------------------------------
    def _blocks(self, one_pass: bool, names: list[str], body) -> None:
        """``body(base)`` for each block of ``CAP`` columns in registers: the row
        already loaded (one pass), or a loop that loads ``names`` block by block."""
        if one_pass:
            body("0u")
            return
        with self.em.code.block(self.em.d.loop("fg_off", "0u", self.cols, f"{self.cap}u")):
            self._load_block("fg_off", names)
            body("fg_off")

    def _vector_access(self, buffers: list[str]) -> str | None:
        """A bool value: a chunk of the row moves as one vector (rows start on a vector:
        ``cols`` is a multiple of the width; on CUDA the pointers are aligned too), or
        None where chunks go lane by lane. WGSL declares the row's buffers as arrays of
        vectors (``Emission.vectorize``): the driver cannot prove that four scalar loads
        of an ``array<f32>`` at ``base + 4k`` are one aligned 16-byte load, and a row
        kernel moved that way stays under the copy limit (H200 through Vulkan,
        2026-12-04, ``bench.probes wgsl-rows``: ``y = 2x`` at 3347 GB/s against 3967 for
        gelu's ``map``, which reads ``vec4``; 3852 to 4060 declared as vectors). Element
        by element reads (``_at_column``) take a component of the vector."""
        em = self.em
        rows_of = f"{self.cols} % {self.width}u == 0u"
        if em.d.pointer_vectors:
            return em.vec_ok(buffers, self.width, f" && {rows_of}")
        em.vectorize(buffers, self.width)
        if not any(name in em.vector_arrays for name in buffers):
            return None
        return em.let("fg_vec_ok", "bool", rows_of)

    def _sweep(self, one_pass: bool, exprs: list[Expr], element, store: bool = False) -> None:
        """Run ``element(lane, slot)`` at every column of the row (registers bound),
        storing the matrix outputs chunk by chunk when ``store``."""
        self._blocks(
            one_pass,
            list(_matrix_loads(exprs)),
            lambda base: self._process(base, element, exprs, store),
        )

    def _chunk_start(self, base: str) -> str:
        return self.em.let(
            self.em.values.fresh("c"), "u32", f"{base} + (fg_k * {self.x}u + fg_tx) * {self.width}u"
        )

    def _packed(self, name: str) -> bool:
        """Whether the row of ``name`` is held packed (``CUDA_PACKED_HALF_ROWS``)."""
        return CUDA_PACKED_HALF_ROWS and self.em.packs(self.matrix[name].dtype, self.width)

    def _register(self, name: str, lane: int, slot: str) -> str:
        """The value of ``name`` at ``lane`` of the chunk whose first register is
        ``slot``, as held (packed or not)."""
        if not self._packed(name):
            return f"fg_v_{name}[{slot}]"
        word = f"fg_k * {self.width // 2}u" + (f" + {lane // 2}u" if lane > 1 else "")
        return self.em.packed_element(f"fg_v_{name}", self.matrix[name].dtype, word, lane % 2 == 1)

    def _load_block(self, base: str, names: list[str]) -> None:
        em, d = self.em, self.em.d
        for name in names:
            if self._packed(name):
                em.code.line(d.array(f"fg_v_{name}", "u32", self.items * self.width // 2))
            else:
                em.code.line(
                    d.array(f"fg_v_{name}", self.matrix[name].dtype, self.items * self.width)
                )
        if not names:
            return

        def chunk() -> None:
            c0 = self._chunk_start(base)
            for name in names:
                packed = self._packed(name)
                load = em.load_packed_chunk if packed else em.load_chunk
                load(
                    name,
                    f"fg_v_{name}",
                    f"fg_k * {self.width // 2 if packed else self.width}u",
                    f"fg_base + {c0}",
                    c0,
                    self.limit,
                    self.width,
                    self.vec_ok,
                )

        em.unrolled("fg_k", self.items, chunk)

    def _process(self, base: str, element, exprs: list[Expr], store: bool = False) -> None:
        """Run ``element(lane, slot)`` at each column of the block at ``base``, with the
        registers and the per-column values ``exprs`` use bound; on CUDA those per-column
        buffers (layernorm's gamma and beta) move a chunk at a time like the row, not
        one element per load."""
        em, d, code, v = self.em, self.em.d, self.em.code, self.em.values
        reached = _outside_reductions(exprs)
        columns = {
            name: load
            for name, load in self.body.loads().items()
            if load.attr[1] == "cols" and load.key in reached and self.vec_ok
        }

        def chunk() -> None:
            c0 = self._chunk_start(base)
            for name, load in columns.items():
                code.line(d.array(f"fg_w_{name}", load.dtype, self.width))
                em.load_chunk(
                    name, f"fg_w_{name}", "0u", c0, c0, self.limit, self.width, self.vec_ok
                )
            if store:
                for name in self.matrix_outputs:
                    code.line(d.array(f"fg_o_{name}", self.outputs[name].dtype, self.width))
            for lane in range(self.width):
                column = c0 if lane == 0 else f"{c0} + {lane}u"
                guard = "{" if self.limit is None else f"if ({column} < {self.limit}) {{"
                with code.block(guard), v.scope():
                    slot = f"fg_k * {self.width}u" + (f" + {lane}u" if lane else "")
                    for name, load in self.matrix.items():
                        v.bind(load, self._register(name, lane, slot))
                    for name, load in self.body.loads().items():
                        if name in columns:
                            v.bind(load, f"fg_w_{name}[{lane}u]")
                        elif load.attr[1] == "cols":
                            v.bind(load, em.element(name, column))
                    for expr, text in self.lane_values:
                        v.bind(expr, text(slot))
                    v.bind(_COL, column)
                    element(lane, slot)
            if store:
                with code.block("if (fg_active) {"):
                    for name in self.matrix_outputs:
                        em.store_chunk(
                            name,
                            f"fg_o_{name}",
                            "0u",
                            f"fg_base + {c0}",
                            c0,
                            self.limit,
                            self.width,
                            self.vec_ok,
                        )

        em.unrolled("fg_k", self.items, chunk)

    def _compute_outputs(self, lane: int, slot: str) -> None:
        for name in self.matrix_outputs:
            self.em.code.line(f"fg_o_{name}[{lane}u] = {self.em.values.get(self.outputs[name])};")

    # -- reduction across the row --------------------------------------------------------
    def _reduce(self, level: list, specs: list[tuple[str, str]], accs: list[str]) -> list[str]:
        """The row's reductions ``specs`` ((op, accumulator dtype) each) of the
        invocations' ``accs``; ``level`` names the shared-memory slots."""
        if self.target == "cuda":
            stages = [self._stage(op, t) for op, t in specs]
            return [r[0] for r in self._reduce_cuda(level, [[a] for a in accs], stages)]
        if self.how == "subgroups":
            return [r[0] for r in self._reduce_subgroups(level, [[a] for a in accs])]
        return self._tree(_slots(level, "wgsl"), specs, accs)

    def _reduce_online(self, pair: _Online, m: str, s: str) -> tuple[str, str]:
        """The row's maximum and sum of exp(x - maximum), from each invocation's ``m``
        and ``s = sum(exp(x - m))`` (relative to 0 where ``m`` is -inf)."""
        em, v = self.em, self.em.values
        if self.target == "cuda":
            peak, total = self._reduce_cuda([pair], [[m, s]], [self._online_stage])[0]
            return peak, total
        if self.how == "subgroups":
            peak, total = self._reduce_subgroups([pair], [[m, s]])[0]
            return peak, total
        (peak,) = self._tree([[0]], [("max", "f32")], [m])
        scaled = em.let(v.fresh("s"), "f32", f"{s} * {self._factor(m, peak)}")
        (total,) = self._tree([[0]], [("sum", "f32")], [scaled])
        return peak, total

    def _reduce_moments(self, item: _Moments, values: _Partial) -> _Partial:
        """The row's (count, sum, squared deviations) from each invocation's (a known
        count is neither shuffled nor stored)."""
        em, d, code, v = self.em, self.em.d, self.em.code, self.em.values
        if self.target == "cuda":
            n, total, q = self._reduce_cuda([item], [list(values)], [self._moments_stage])[0]
            return n, total, q
        if self.how == "subgroups":
            n, total, q = self._reduce_subgroups([item], [[self._count(p) for p in values]])[0]
            return n, total, q
        # WGSL: a shared-memory tree, merging the upper half's partials into the lower's
        plane = self.y * self.x
        slots = _slots([item], "wgsl")[0]

        def slot(part: int, lane: str) -> str:
            return f"fg_red_f32[{slots[part] * plane}u + fg_ty * {self.x}u + {lane}]"

        parts = [p for p in range(3) if isinstance(values[p], str)]
        for part in parts:
            code.line(f"{slot(part, 'fg_tx')} = {values[part]};")
        code.line(d.barrier)
        count = values[0]
        stride = self.x // 2
        while stride:
            with code.block(f"if (fg_tx < {stride}u) {{"):
                low: list[_Count] = [count, "", ""]
                high: list[_Count] = [count, "", ""]
                for part in parts:
                    low[part] = em.let(v.fresh("p"), "f32", slot(part, "fg_tx"))
                    high[part] = em.let(v.fresh("p"), "f32", slot(part, f"fg_tx + {stride}u"))
                merged = self._merge(
                    (low[0], str(low[1]), str(low[2])), (high[0], str(high[1]), str(high[2]))
                )
                for part in parts:
                    code.line(f"{slot(part, 'fg_tx')} = {merged[part]};")
            count = merged[0] if isinstance(count, int) else count
            code.line(d.barrier)
            stride //= 2
        results = [count] + [em.let(v.fresh("r"), "f32", slot(p, "0u")) for p in (1, 2)]
        if isinstance(count, str):
            results[0] = em.let(v.fresh("r"), "f32", slot(0, "0u"))
        code.line(d.barrier)
        return results[0], str(results[1]), str(results[2])

    def _tree(
        self, slots: list[list[int]], specs: list[tuple[str, str]], accs: list[str]
    ) -> list[str]:
        """WGSL: a shared-memory tree over the row's ``wg_x`` invocations."""
        em, d, code, v = self.em, self.em.d, self.em.code, self.em.values
        plane = self.y * self.x

        def slot(j: int, offset: str = "") -> str:
            return (
                f"fg_red_{specs[j][1]}[{slots[j][0] * plane}u + fg_ty * {self.x}u + fg_tx{offset}]"
            )

        for j, acc in enumerate(accs):
            code.line(f"{slot(j)} = {acc};")
        code.line(d.barrier)
        stride = self.x // 2
        while stride:
            with code.block(f"if (fg_tx < {stride}u) {{"):
                for j, (op, t) in enumerate(specs):
                    code.line(f"{slot(j)} = {d.combine(op, t, slot(j), slot(j, f' + {stride}u'))};")
            code.line(d.barrier)
            stride //= 2
        results = [
            em.let(v.fresh("r"), t, f"fg_red_{t}[{slots[j][0] * plane}u + fg_ty * {self.x}u]")
            for j, (_, t) in enumerate(specs)
        ]
        code.line(d.barrier)
        return results

    # -- WGSL subgroups (sg=1) -----------------------------------------------------------
    def _reduce_subgroups(self, level: list, values: list[list[str]]) -> list[list[str]]:
        """Each item's partials reduced within every subgroup (``_within``); each
        subgroup's first invocation stores its result by ``subgroup_id`` in one half of
        workgroup memory (the halves alternate, so the next level may write while a
        slow subgroup still reads: one barrier a level, as on CUDA); then every
        invocation folds a strided share of those results and its subgroup reduces them
        again, so every invocation ends with the row's result. Nothing assumes how
        invocations are grouped into subgroups, nor their size, beyond WebGPU's 4 to
        128 (a workgroup of x invocations has at most x / 4 of them)."""
        d, code, v = self.em.d, self.em.code, self.em.values
        per = max(1, self.x // _MIN_SUBGROUP)
        widest = _widest(self.body, "subgroups")
        slots = _slots(level, "subgroups")

        def shared(i: int, p: int, index: str) -> str:
            t = _parts(level[i], "subgroups")[p]
            return f"fg_red_{t}[fg_half * {widest[t] * per}u + {slots[i][p] * per}u + {index}]"

        mine = [self._within(item, vals) for item, vals in zip(level, values)]
        with code.block("if (fg_sgi == 0u) {"):
            for i, parts in enumerate(mine):
                for p, value in enumerate(parts):
                    code.line(f"{shared(i, p, 'fg_sgid')} = {value};")
        code.line(d.barrier)
        folded = []
        for i, item in enumerate(level):
            acc = [v.fresh("a") for _ in _parts(item, "subgroups")]
            for name, t, start in zip(acc, _parts(item, "subgroups"), self._empty(item)):
                code.line(d.var(name, t, start))
            with code.block(d.loop("fg_j", "fg_sgi", "fg_nsg", "fg_sgs")):
                other = [
                    self.em.let(v.fresh("o"), t, shared(i, p, "fg_j"))
                    for p, t in enumerate(_parts(item, "subgroups"))
                ]
                for name, value in zip(acc, self._merged(item, acc, other)):
                    code.line(f"{name} = {value};")
            folded.append(acc)
        code.line("fg_half ^= 1u;")
        return [self._within(item, acc) for item, acc in zip(level, folded)]

    def _empty(self, item) -> list[str]:
        """The partial of no values: the reduction's identity; (-inf, 0) for the
        online pair, (0, 0, 0) for the moments."""
        d = self.em.d
        if isinstance(item, _Online):
            return [self.neg_inf, d.literal(0.0, "f32")]
        if isinstance(item, _Moments):
            return [d.literal(0.0, "f32")] * 3
        t = accumulator(item.dtype)
        return [_identity(self.em, item.attr[0], t)]

    def _merged(self, item, a: list[str], b: list[str]) -> list[str]:
        """One partial of the values of two."""
        em, d, v = self.em, self.em.d, self.em.values
        if isinstance(item, _Online):
            peak = em.let(v.fresh("p"), "f32", d.combine("max", "f32", a[0], b[0]))
            total = f"({a[1]} * {self._factor(a[0], peak)} + {b[1]} * {self._factor(b[0], peak)})"
            return [peak, em.let(v.fresh("t"), "f32", total)]
        if isinstance(item, _Moments):
            return [str(part) for part in self._merge((a[0], a[1], a[2]), (b[0], b[1], b[2]))]
        return [d.combine(item.attr[0], accumulator(item.dtype), a[0], b[0])]

    def _within(self, item, values: list[str]) -> list[str]:
        """The partial of the values of every invocation of this subgroup, the same in
        each: subgroupAdd and subgroupMax where the merge is one, a butterfly of
        subgroupShuffleXor for the moments (whose merge is not). A butterfly stays
        within the workgroup's x invocations, where a subgroup is wider."""
        em, d, code, v = self.em, self.em.d, self.em.code, self.em.values
        builtin = {"sum": "subgroupAdd", "max": "subgroupMax"}
        if isinstance(item, _Online):
            peak = em.let(v.fresh("peak"), "f32", f"subgroupMax({values[0]})")
            scaled = f"{values[1]} * {self._factor(values[0], peak)}"
            return [peak, em.let(v.fresh("total"), "f32", f"subgroupAdd({scaled})")]
        if not isinstance(item, _Moments):
            t = accumulator(item.dtype)
            return [em.let(v.fresh("r"), t, f"{builtin[item.attr[0]]}({values[0]})")]
        mine = [v.fresh("b") for _ in values]
        for name, value in zip(mine, values):
            code.line(d.var(name, "f32", value))
        with code.block(
            f"for (var fg_o: u32 = min(fg_sgs, {self.x}u) >> 1u; fg_o > 0u; fg_o = fg_o >> 1u) {{"
        ):
            other = [
                em.let(v.fresh("o"), "f32", f"subgroupShuffleXor({name}, fg_o)") for name in mine
            ]
            merged = self._merge((mine[0], mine[1], mine[2]), (other[0], other[1], other[2]))
            for name, part in zip(mine, merged):
                code.line(f"{name} = {self._count(part)};")
        return mine

    # CUDA: a stage turns each invocation's values of one item into the item's result
    # over the lanes that shuffle together (``offsets``), in every one of those lanes.
    def _stage(self, op: str, t: str):
        def stage(values: list[str], offsets: list[int], width: int, mask: str) -> list[str]:
            d, v = self.em.d, self.em.values
            acc = v.fresh("acc")
            self.em.code.line(d.var(acc, t, values[0]))
            self._butterfly(acc, op, t, offsets, width, mask)
            return [acc]

        return stage

    def _online_stage(
        self, values: list[str], offsets: list[int], width: int, mask: str
    ) -> list[str]:
        em, d, v = self.em, self.em.d, self.em.values
        m, s = values
        peak, total = v.fresh("peak"), v.fresh("total")
        em.code.line(d.var(peak, "f32", m))
        self._butterfly(peak, "max", "f32", offsets, width, mask)
        em.code.line(d.var(total, "f32", f"{s} * {self._factor(m, peak)}"))
        self._butterfly(total, "sum", "f32", offsets, width, mask)
        return [peak, total]

    def _moments_stage(
        self, values: list[_Count], offsets: list[int], width: int, mask: str
    ) -> list[_Count]:
        em, v = self.em, self.em.values
        mine: _Partial = (values[0], str(values[1]), str(values[2]))
        for offset in offsets:
            other = [
                value
                if isinstance(value, int)  # the same in every lane
                else em.let(
                    v.fresh("o"), "f32", f"__shfl_xor_sync({mask}, {value}, {offset}, {width})"
                )
                for value in mine
            ]
            mine = self._merge(mine, (other[0], str(other[1]), str(other[2])))
        return list(mine)

    def _butterfly(
        self, acc: str, op: str, t: str, offsets: list[int], width: int, mask: str
    ) -> None:
        # xor pairs combine the same two values in both lanes, so every lane ends with
        # the same bits
        for offset in offsets:
            other = f"__shfl_xor_sync({mask}, {acc}, {offset}, {width})"
            self.em.code.line(f"{acc} = {self.em.d.combine(op, t, acc, other)};")

    def _reduce_cuda(self, level: list, values: list[list], stages) -> list[list]:
        """Each item's ``stage`` within warps; then, for rows wider than a warp, the
        per-warp partials go through shared memory (one ``__syncthreads``) and every
        warp runs the stage again on them, one partial per lane. A part known when
        emitting (an int: the same in every lane) stays out of shared memory."""
        d, code, v = self.em.d, self.em.code, self.em.values
        threads = self.x * self.y
        width = min(self.x, _WARP)
        if threads % _WARP:
            # The last warp is partial: name only its lanes in the shuffle mask.
            code.line(f"const unsigned int fg_lanes = {threads}u - (fg_lidx & ~31u);")
            mask = "(fg_lanes >= 32u ? 0xffffffffu : ((1u << fg_lanes) - 1u))"
        else:
            mask = "0xffffffffu"
        offsets = [width >> i for i in range(1, width.bit_length())]
        partials = [stage(vals, offsets, width, mask) for stage, vals in zip(stages, values)]
        if self.x <= _WARP:
            return partials
        warps = self.x // _WARP
        plane = self.y * warps
        widest = _widest(self.body, "cuda")

        def shared(item: int, part: int, lane: str) -> str:
            t = _parts(level[item], "cuda")[part]
            base = _slots(level, "cuda")[item][part] * plane
            return (
                f"fg_red_{t}[fg_half * {widest[t] * plane}u + {base}u + fg_ty * {warps}u + {lane}]"
            )

        with code.block("if ((fg_tx & 31u) == 0u) {"):
            for i, parts in enumerate(partials):
                for p, value in enumerate(parts):
                    if not isinstance(value, int):
                        code.line(f"{shared(i, p, 'fg_tx / 32u')} = {value};")
        code.line(d.barrier)
        lane = f"(fg_tx & {warps - 1}u)"
        gathered = []
        for i, parts in enumerate(partials):
            types = _parts(level[i], "cuda")
            gathered.append(
                [
                    value
                    if isinstance(value, int)
                    else self.em.let(v.fresh("w"), types[p], shared(i, p, lane))
                    for p, value in enumerate(parts)
                ]
            )
        code.line("fg_half ^= 1u;")
        block_offsets = [warps >> i for i in range(1, warps.bit_length())]
        return [
            stage(vals, block_offsets, _WARP, "0xffffffffu")
            for stage, vals in zip(stages, gathered)
        ]


def lower(em: Emission) -> None:
    _RowLowering(em).lower()

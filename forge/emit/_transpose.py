"""Lowering of ``transpose``: a T x T tile goes through shared memory, read along rows of
``x`` and written along rows of ``y``, so both global accesses are coalesced. The tile
rows are padded by one element against shared-memory bank conflicts. The workgroup is
T x WY; each invocation moves T / WY elements of the tile."""

from __future__ import annotations

from ._code import Emission, ScheduleRefused, refuse_unroll

__all__ = ["PATTERN", "check", "storage_bytes", "workgroup_count", "lower"]

PATTERN = "transpose"  # the ``Body.kind`` this module lowers


def _side(schedule) -> int:
    return schedule.tile[0]


def check(body, schedule, target: str | None) -> None:
    refuse_unroll(schedule, "transpose")
    tile = schedule.tile
    if tile is None or len(tile) not in (1, 2) or (len(tile) == 2 and tile[0] != tile[1]):
        raise ScheduleRefused(
            "a transpose needs a square tile, tile=T or tile=TxT "
            "(e.g. tile=32x32 on a 32x8 workgroup)"
        )
    t = tile[0]
    wx, wy, wz = schedule.workgroup_size
    if wz != 1 or wx != t or t % wy:
        raise ScheduleRefused(
            f"a transpose tile of {t}x{t} needs a workgroup of {t} x WY "
            f"with WY dividing {t}; got {schedule.workgroup_size}"
        )
    if schedule.vector_width != 1 or schedule.items_per_invocation != 1:
        raise ScheduleRefused(
            "a transpose moves single elements through shared memory; "
            "vector width and items per invocation must be 1 (the tile "
            "sets the work per invocation)"
        )


def storage_bytes(body, schedule, target: str) -> int:
    t = _side(schedule)
    return t * (t + 1) * (8 if body.dtype == "f64" else 4)


def workgroup_count(body, schedule, dims) -> int:
    t = _side(schedule)
    return -(-dims["rows"] // t) * -(-dims["cols"] // t)


def lower(em: Emission) -> None:
    d, code = em.d, em.code
    t = _side(em.schedule)
    wy = em.schedule.workgroup_size[1]
    dtype = em.body.dtype
    rows, cols = em.uniform("rows"), em.uniform("cols")
    em.shared("fg_tile", dtype, t * (t + 1))
    em.let("fg_tx", "u32", d.local_x)
    em.let("fg_ty", "u32", d.local_y)
    tiles_c = em.let("fg_tiles_c", "u32", em.ceil_div(cols, t))
    tiles = em.let("fg_tiles", "u32", f"{em.ceil_div(rows, t)} * {tiles_c}")
    code.comment(f"{t}x{t} tiles through shared memory (rows padded to {t + 1})")
    with code.block(
        d.loop("fg_t", d.widen(d.group_linear), tiles, d.widen(d.group_count), wide=True)
    ):
        em.let("fg_r0", "u32", f"{d.narrow('fg_t')} / {tiles_c} * {t}u")
        em.let("fg_c0", "u32", f"{d.narrow('fg_t')} % {tiles_c} * {t}u")
        with code.block(d.loop("fg_j", "0u", f"{t}u", f"{wy}u", unroll=True)):
            em.let("fg_r", "u32", "fg_r0 + fg_ty + fg_j")
            em.let("fg_c", "u32", "fg_c0 + fg_tx")
            with code.block(f"if (fg_r < {rows} && fg_c < {cols}) {{"):
                value = d.load("x", f"{d.widen('fg_r')} * {cols} + fg_c", dtype)
                code.line(f"fg_tile[(fg_ty + fg_j) * {t + 1}u + fg_tx] = {value};")
        code.line(d.barrier)
        with code.block(d.loop("fg_j", "0u", f"{t}u", f"{wy}u", unroll=True)):
            em.let("fg_yr", "u32", "fg_c0 + fg_ty + fg_j")
            em.let("fg_yc", "u32", "fg_r0 + fg_tx")
            with code.block(f"if (fg_yr < {cols} && fg_yc < {rows}) {{"):
                code.line(
                    d.store(
                        "y",
                        f"{d.widen('fg_yr')} * {rows} + fg_yc",
                        dtype,
                        f"fg_tile[fg_tx * {t + 1}u + fg_ty + fg_j]",
                    )
                )
        code.line(d.barrier)

"""Deterministic test vectors for a kernel: every input drawn from the seed, laid out
in blocks of edge-case families, always inside the kernel's declared domain.

Families: ``normal`` (moderate values, sigma 1.5, folded back inside +-4; an eighth of
them on a grid of 1/16, where rounding has ties, and of those in float32 and wider a
fourth halfway between two bfloat16 values and a fourth halfway between two halves,
a narrowing conversion's ties), ``zeros`` (+0.0 and -0.0), ``negatives``,
``large`` (in rows, one sign per row; for floats, 1e4 to 1e9 in f32, its second half
from 1e5, or where the
domain ends before that but at 16 or further, from 4 out to its far ends; for integers
in a declared range, its two ends), ``small`` (in buffers of rows: 1e-8 to 1e-2,
normal numbers at the scale of a normalisation's epsilon, one band of them a row),
``tiny`` magnitudes, ``subnormal``, ``nonfinite`` (only when
``kernel.nonfinite_inputs``: +-Inf where the domain reaches them, NaN only for a buffer
with no declared domain, since NaN lies inside no range), and ``mixed``
(each element picked from the other families). Families are contiguous blocks, and in
a buffer with a ``shape`` whole rows of its last axis, so a kernel that reduces rows
also sees whole rows of zeros, of small or tiny values or of negatives. A family that
does not meet the domain is left out and its block stays ``normal``. A kernel that
calls a function without a defined result on some family is not drawn it
(``builtin_limits``): no large magnitudes for sin, cos and tan, no subnormals for WGSL's
log and pow, no NaN or Inf for WGSL's pow. Inside each family's block, half the rows
(and every other region of a flat buffer) hold their maximum and minimum at their ends
and at the ends of their aligned blocks of 32 to 1024 (``_extremes_at_ends``), where a
reduction that leaves out one element of each block or row loses it.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from forge.errors import ForgeError, InvalidArgument
from forge.kernel import Access, BufferSpec, KernelSpec
from forge.size import is_int
from forge.textures import unorm8_bytes, unorm8_values
from forge.types import is_float_dtype

from ._builtins import builtin_limits

__all__ = [
    "row_length",
    "has_float_rows",
    "largest_array",
    "Case",
    "make_case",
    "buffer_label",
    "FAMILIES",
    "POISON_OUTPUT",
    "POISON_INPUT",
    "poison",
    "INPUT_SETS",
    "ONE_SIGN_SETS",
    "OPPOSITE_SET",
    "FAR_SET",
    "draws_flat_floats",
    "opposite_signs",
    "draws_floats",
    "SMALL_SET",
    "conform",
]

FAMILIES = (
    "normal",
    "zeros",
    "negatives",
    "large",
    "small",
    "tiny",
    "subnormal",
    "nonfinite",
    "mixed",
)
_SPECIAL = FAMILIES[1:-1]
_SPECIAL_SHARE = 0.05  # of the elements, for each special family
_MIXED_SHARE = 0.14

# Bit patterns written where a kernel must write (outputs) and where it must not read
# (past the end of inputs): NaNs with payloads no arithmetic produces from numbers, and
# different from each other, so a value computed from input poison is never mistaken
# for output poison that was left in place.
POISON_OUTPUT = {2: 0x7DAD, 4: 0x7FBADBAD, 8: 0x7FF7BADBADBADBAD}
POISON_INPUT = {2: 0x7D0F, 4: 0x7FB0F0F0, 8: 0x7FF70F0F0F0F0F0F}

# log10 magnitude ranges of the large family, per float size (kept well inside the
# dtype so products and short sums stay finite).
_LARGE = {2: (2.0, 4.0), 4: (4.0, 9.0), 8: (8.0, 30.0)}

# The second half of a large block starts here instead (log10, f32 and wider): past the
# finite "lowest" a max is started from (-1e4, f16's -65504), so that some row of the
# one-sign negative set lies wholly below it (an argmax started there keeps -1; a row
# of 36 wholly past 65504 drawn from 1e4 was left to chance); the first half keeps the
# band from 1e4, where a float32 distance's cancellation shows.
_LARGE_SECOND_HALF = 5.0


def poison(dtype: np.dtype, count: int, pattern: Mapping[int, int] = POISON_OUTPUT) -> np.ndarray:
    """``count`` elements of ``dtype`` holding the poison bit pattern: for a float
    scalar of 2, 4 or 8 bytes a NaN with a payload no arithmetic makes; for anything
    else (integers, bytes, structs) the 4-byte pattern repeated over its bytes."""
    dtype = np.dtype(dtype)
    if dtype.subdtype is not None:  # a vector or array element: poison every lane
        base, shape = dtype.subdtype
        return poison(base, count * int(np.prod(shape)), pattern).reshape((count, *shape))
    if dtype.name == "bfloat16":  # its NaNs have f32's exponent: 0x7F80 | payload
        return np.full(count, 0x7FAD if pattern is POISON_OUTPUT else 0x7F8F, np.uint16).view(dtype)
    if dtype.kind == "f" and dtype.itemsize in pattern:
        words = {2: np.uint16, 4: np.uint32, 8: np.uint64}[dtype.itemsize]
        return np.full(count, pattern[dtype.itemsize], words).view(dtype)
    word = np.array([pattern[4]], np.uint32).view(np.uint8)
    raw = np.resize(word, count * dtype.itemsize)
    return raw.view(dtype) if dtype.itemsize else raw


def buffer_label(spec: BufferSpec) -> str:
    """A buffer's name, or ``g<group>b<binding>`` when it has none."""
    return spec.name or f"g{spec.group}b{spec.binding}"


@dataclass(frozen=True)
class Case:
    """The inputs of one evaluation: arrays by buffer label (inputs, and the initial
    contents of ``inout`` buffers), the uniform record, and where each family lies.
    ``input_hash`` covers the seed, the size and every byte."""

    kernel: KernelSpec
    size: int
    seed: int
    arrays: dict[str, np.ndarray]
    uniform: np.ndarray | None
    layout: dict[str, tuple[tuple[str, int, int], ...]] = field(repr=False)
    input_hash: str = ""
    input_set: str = "all"

    @property
    def generated(self) -> bool:
        """Whether the oracle drew these inputs (other input sets can be drawn too),
        rather than a user giving them (``inputs=``)."""
        return not any(blocks and blocks[0][0] == "given" for blocks in self.layout.values())

    @property
    def drawn(self) -> bool:
        """Whether any input was drawn from the input set's families: where every input
        is its ``fill`` (fixed content, or a generator seeded by the seed, the buffer and
        the size alone), given or initial content, every input set holds the same bytes,
        and running another set judges the same case again."""
        return any(
            blocks and blocks[0][0] not in ("fill", "given", "initial")
            for blocks in self.layout.values()
        )


def _blocks(count: int, families: list[str], row: int = 1) -> list[tuple[str, int, int]]:
    """Contiguous (family, start, stop) blocks: the special families and ``mixed``
    after a leading ``normal`` block that takes what is left (at least half). In a
    buffer of rows (``row`` elements each, its shape's last axis), families take whole
    rows, as many as fit in half of them (zeros and tiny first: a normalisation that
    forgot its epsilon differs on such a row, and on no other); those that get none
    are laid out by element at the end of the normal rows."""
    rows = count // row if row > 1 and count % row == 0 else 0
    if rows < 2:
        return _element_blocks(count, families)
    by_row = sorted(families, key=_ROW_ORDER.index)[: rows // 2]
    share = {
        f: max(1, round(rows * (_MIXED_SHARE if f == "mixed" else _SPECIAL_SHARE))) for f in by_row
    }
    if sum(share.values()) * 2 > rows:
        share = dict.fromkeys(by_row, 1)
    tail = 1 if rows - sum(share.values()) >= 2 else 0  # the last row normal, as by element
    start = count - (sum(share.values()) + tail) * row
    blocks = _element_blocks(start, [f for f in families if f not in share], tail=0)
    for family in by_row:
        blocks.append((family, start, start + share[family] * row))
        start += share[family] * row
    if tail:
        blocks.append(("normal", start, count))
    return blocks


#: Which families get whole rows first when half the rows cannot hold them all: an
#: 8-row buffer gets zeros, tiny, small and large rows (its first large row is all
#: negative, where a softmax whose running max starts at 0 is wrong), negatives by element.
_ROW_ORDER = ("zeros", "tiny", "small", "large", "negatives", "nonfinite", "subnormal", "mixed")


#: Normal values at the end of a buffer laid out by element: a loop that stops one
#: element, one vector or one partial block short (``i + 1 < n``) loses them, and a
#: sum that drops them must differ; were they tiny or zero (the families), it would not.
_NORMAL_TAIL = 16


def _element_blocks(
    count: int, families: list[str], tail: int = _NORMAL_TAIL
) -> list[tuple[str, int, int]]:
    sizes = [
        (f, max(1, int(count * (_MIXED_SHARE if f == "mixed" else _SPECIAL_SHARE))))
        for f in families
    ]
    total = sum(s for _, s in sizes)
    if total * 2 > count:  # too small to hold every family: keep as many as fit
        sizes = sizes[: max(0, count // 2)]
        sizes = [(f, 1) for f, _ in sizes]
        total = len(sizes)
    tail = min(tail, (count - total) // 4) if sizes else 0
    start = count - total - tail
    blocks = [("normal", 0, start)]
    for family, size in sizes:
        blocks.append((family, start, start + size))
        start += size
    blocks.append(("normal", start, count))
    return [b for b in blocks if b[2] > b[1]]


#: Aligned block sizes (warps, workgroups, tiles) at whose ends drawn lines hold their
#: extremes (``_extremes_at_ends``).
_BLOCK_ENDS = (1024, 512, 256, 128, 64, 32)


def _extremes_at_ends(values: np.ndarray, blocks, row: int = 1, flip: bool = False) -> np.ndarray:
    """``values`` permuted so that a line (a row of ``row`` elements, else the whole
    buffer) holds its maximum at its last element and its minimum at its first, and so
    does each block of ``_BLOCK_ENDS`` elements aligned on its start, largest first (a
    block's ends are its parent's where they share one, so none undoes another). A
    reduction that leaves out the last (or first) element of each block, warp or row
    (``is + 1 < ns``, a loop from 1) is wrong on a maximum, a minimum or an argmax only
    where that element is the extreme, one draw in the block's length: del-msh's
    bounding box that left out each block's last point passed.

    Where an extreme always sits at an end, a reduction that skips an element inside
    (a row argmax starting at the third column) is never wrong: of the rows, those
    ``_chosen`` leaves half as drawn, and in a flat buffer every other aligned region,
    so that an extreme lands anywhere there. Rows alternate too: the turned ones hold
    their maximum first and minimum last (so does every line where ``flip``: a negative
    one-sign set, whose largest magnitudes then come last). Values move only within a
    ``blocks`` segment of one family and a row, so each family keeps its place, each
    row its values and every value its domain; a block holding NaN is left as drawn."""
    dtype = values.dtype
    if values.size < 2 or dtype.names is not None or dtype.kind not in "fiuV":
        return values
    key = values.astype(np.float64) if dtype.kind in "fV" else values.copy()
    line = row if 1 < row < values.size and values.size % row == 0 else values.size
    order = np.arange(values.size)
    for _family, start, stop in blocks:
        # the lines wholly inside the segment, then the parts of a line at either end
        first, last = -(-start // line), stop // line
        spans = [(first * line, last * line)] if first < last else []
        if first > last:  # inside one line
            spans.append((start, stop))
        else:
            spans += [(start, first * line), (last * line, stop)]
        for size in (line, *(s for s in _BLOCK_ENDS if s < line)):
            for lo, hi in spans:
                if hi - lo >= 2:
                    _span_to_ends(key, order, lo, hi, (line, first), size, flip)
    return values[order]


def _chosen(starts: np.ndarray, size: int, lines: tuple[int, int], count: int, flip: bool):
    """Which blocks of ``size`` (by where each starts) ``_extremes_at_ends`` plants,
    and which of them it turns. In a buffer of rows, rows 0 and 1 of each 4 counted from
    the segment's first (``lines``: their length, that row), 1 turned, the other two as
    drawn: a family of one row (large values, where a softmax's maximum matters) has it
    planted. In a flat buffer (one line), the line and blocks larger than
    its regions (the largest block size of which it holds 4), and inside every other
    region all blocks; none where it holds fewer than 4 of the smallest."""
    line, origin = lines
    if line < count:
        nth = (starts // line - origin) % 4  # a part of a row before: the 4th
        return nth < 2, (nth == 1) != flip
    region = next((s for s in _BLOCK_ENDS if 4 * s <= line), 0)
    if size > region or not region:
        return np.ones(starts.shape, bool), np.full(starts.shape, flip)
    return starts // region % 2 == 0, np.full(starts.shape, flip)


def _span_to_ends(
    key, order, lo: int, hi: int, lines: tuple[int, int], size: int, flip: bool
) -> None:
    """``_to_ends`` on each block of ``size`` aligned on its line's start in
    ``[lo, hi)`` that ``_chosen`` picks: whole lines in one array of (lines, blocks,
    size) and the block cut short at each line's end, else (part of one line) the
    blocks cut short at ``lo`` and ``hi`` and the whole ones between."""
    line = lines[0]
    base = lo // line * line
    if lo == base and (hi - lo) % line == 0:  # whole lines
        firsts = np.arange(lo, hi, line)[:, None]
        whole = line // size * size
        pieces = [(0, whole, size), (whole, line, line % size)]
        rows = (key[lo:hi].reshape(-1, line), order[lo:hi].reshape(-1, line))
    else:
        firsts = np.array([[base]])
        head = min(hi, base + -(-(lo - base) // size) * size)
        tail = max(head, hi - (hi - base) % size)
        pieces = [(lo, head, head - lo), (head, tail, size), (tail, hi, hi - tail)]
        pieces = [(c0 - lo, c1 - lo, width) for c0, c1, width in pieces]
        rows = (key[lo:hi][None, :], order[lo:hi][None, :])
    for c0, c1, width in pieces:
        if width < 2 or c1 <= c0:
            continue
        offset = (lo - base + c0) // size * size  # where the first block starts in its line
        starts = firsts + offset + np.arange((c1 - c0) // width)[None, :] * size
        planted, turned = _chosen(starts, size, lines, key.size, flip)
        if planted.any():
            _to_ends(rows[0][:, c0:c1], rows[1][:, c0:c1], width, planted, turned)


def _to_ends(
    key: np.ndarray, order: np.ndarray, width: int, planted: np.ndarray, turned: np.ndarray
) -> None:
    """Swap, in each row of ``key`` (written back in place, ``order`` alongside), each
    ``planted`` block of ``width``'s maximum to its last element and its minimum to its
    first (the other way round where ``turned``); a block whose extreme is NaN is left."""
    k = key.reshape(key.shape[0], -1, width)
    o = order.reshape(k.shape)
    for largest in (True, False):
        at = (k.argmax if largest else k.argmin)(axis=2)
        extreme = np.take_along_axis(k, at[..., None], 2)[..., 0]
        target = np.where(turned != largest, width - 1, 0)
        there = np.take_along_axis(k, target[..., None], 2)[..., 0]
        i, j = np.nonzero(planted & (extreme == extreme) & (there != extreme))
        a, b = at[i, j], target[i, j]
        k[i, j, a], k[i, j, b] = k[i, j, b], k[i, j, a]
        o[i, j, a], o[i, j, b] = o[i, j, b], o[i, j, a]
    if not np.may_share_memory(k, key):  # reshaped into a copy: written back
        key[...], order[...] = k.reshape(key.shape), o.reshape(order.shape)


def _magnitude_sample(rng, n, lo_mag, hi_mag, signs, domain):
    """``n`` values with magnitudes log-uniform in [lo_mag, hi_mag] and a sign from
    ``signs``, restricted to ``domain``; None when no such value is in the domain."""
    lo, hi = domain
    intervals = []
    for sign in signs:  # magnitude interval that lands inside the domain with this sign
        if sign > 0:
            m_lo, m_hi = max(lo_mag, lo), min(hi_mag, hi)
        else:
            m_lo, m_hi = max(lo_mag, -hi), min(hi_mag, -lo)
        if m_lo <= m_hi:
            intervals.append((sign, m_lo, m_hi))
    if not intervals:
        return None
    pick = rng.integers(0, len(intervals), n)
    out = np.empty(n)
    for k, (sign, m_lo, m_hi) in enumerate(intervals):
        chosen = pick == k
        if m_lo > 0:
            mags = np.exp(rng.uniform(np.log(m_lo), np.log(m_hi), chosen.sum()))
        else:
            mags = rng.uniform(m_lo, m_hi, chosen.sum())
        out[chosen] = sign * mags
    return out


def _finfo(dtype: np.dtype):
    try:
        return np.finfo(dtype)
    except ValueError:  # bfloat16 and friends: ml_dtypes knows them
        import ml_dtypes

        return ml_dtypes.finfo(dtype)


#: How far the normal family reaches: its draws are folded back inside +-4 (``_folded``).
_NORMAL_REACH = 4.0
#: A domain reaching this many times further gets its far ends as the large family.
#: Nearer ends keep the large block normal, as before: drawn for every domain past 4,
#: the inputs moved a group norm's small-spread group away and its eps-outside-the-root
#: mutant went unseen (2026-12-03).
_FAR = 4.0

#: Magnitudes of the small family: normal numbers that are not tiny, the scale at which
#: an epsilon added to a sum of squares (1e-5, 1e-6, 1e-12) is of its size. A layernorm
#: or RMSNorm that adds eps outside the root (``x / (sqrt(ms) + eps)``) differs from the
#: right one only there: on normal rows by a few 1e-7, on rows of zeros not at all, on
#: tiny rows (their squares underflow) by less than any atol. The round-18 corpus
#: (``tests/wild/round18.py``) has such mutants. In rows, each row takes one band of
#: ``_SMALL_ROW_BANDS`` in turn, so one row's mean square is near 1e-5 and the next ones'
#: near 1e-9 and 1e-13. Only buffers with rows are drawn it: elementwise, the tiny
#: family already shows an eps in the wrong place (nothing squares it to 0), and small
#: gradients beside unrelated optimizer states (v = 0, |m| = 0.04) put llm.c's AdamW,
#: whose lerp cancels unless fma is fused (WGSL lets it not be; lavapipe and
#: SwiftShader do not fuse), 1.5e-5 off where no training run goes.
_SMALL = (1e-8, 1e-2)
_SMALL_ROW_BANDS = ((1e-4, 1e-2), (1e-6, 1e-4), (1e-8, 1e-6))

#: A domain around 0 that ends closer to it than this on one side is drawn uniformly:
#: the normal draw (sigma 1.5) would clip a third or more of its values to that end.
_NARROW = 3.0


def _folded(values: np.ndarray, a: float, b: float) -> np.ndarray:
    """``values`` with those past ``a`` or ``b`` folded back inside by as much as they
    were past it (then clipped, for the few past both). Clipped instead, about one value
    in 130 of a draw of sigma 1.5 landed on +-4 exactly: a row of 1000 had its maximum
    several times over, and an argmax that breaks ties otherwise than numpy's first
    index failed on ties the inputs made, not on anything its data would hold."""
    folded = np.where(values > b, 2 * b - values, np.where(values < a, 2 * a - values, values))
    return np.clip(folded, a, b)


def _narrow_ties(values: np.ndarray, grid: np.ndarray) -> None:
    """Of the grid's values (at most six significant bits), every fourth moved to
    halfway between two bfloat16 values (8 significant bits, its float32's low 16 bits
    0x8000) and the next to halfway between two halves (11 bits, low 13 bits 0x1000):
    the ties of a narrowing conversion, which numbers drawn from a continuum never are
    (round 57: a hand-written bf16 conversion taking ties away from zero, or to odd,
    passed every family)."""
    for first, bits in ((0, 8), (1, 11)):
        at = grid[first::4]
        x = values[at]
        at, x = at[x != 0], x[x != 0]
        values[at] = x + np.sign(x) * np.exp2(np.floor(np.log2(np.abs(x))) - bits)


def _float_family(
    rng, family: str, n: int, dtype: np.dtype, domain, nonfinite: bool, nan: bool = True
):
    info = _finfo(dtype)
    lo, hi = domain
    if family == "normal":
        a, b = max(lo, -_NORMAL_REACH), min(hi, _NORMAL_REACH)
        if a > b:  # the domain lies away from the origin: draw from it
            a, b = lo, hi
        if a >= b:
            return np.full(n, a)
        if a >= 0 or b <= 0 or min(-a, b) < _NARROW:
            # moderate values around 0 would clip to the end nearest the origin (a
            # domain of (20, 28) drew 20.0 everywhere, one of (0, 1) 0.0 half the time
            # and one of (-1, 1) +-1 half the time): draw across the interval, at most
            # 8 wide past an unbounded end
            if a >= 0:
                b = min(b, a + 8.0)
            elif b <= 0:
                a = max(a, b - 8.0)
            values = rng.uniform(a, b, n)
            grid = (rng.random(n) < 0.125) & (b - a >= 1.0)  # a grid of 1/16 inside it
            values[grid] = np.round(values[grid] * 16) / 16
            return np.clip(values, a, b)
        values = _folded(rng.standard_normal(n) * 1.5, a, b)
        # an eighth on a grid of 1/16: exact halves and quarters, the ties where a
        # rounding kernel's half-up and half-to-even differ (numbers drawn from a
        # continuum never are one)
        grid = rng.random(n) < 0.125
        values[grid] = np.round(values[grid] * 16) / 16
        if dtype.itemsize >= 4:
            _narrow_ties(values, np.flatnonzero(grid))
        return np.clip(values, a, b)
    if family == "zeros":
        if not lo <= 0 <= hi:
            return None
        return np.where(rng.integers(0, 2, n) == 1, -0.0, 0.0)
    if family == "nonfinite":
        if not nonfinite:
            return None
        choices = [np.nan] * nan + [v for v in (np.inf, -np.inf) if lo <= v <= hi]
        return rng.choice(np.array(choices), n) if choices else None
    large = _LARGE.get(dtype.itemsize, _LARGE[4]) if dtype.name != "bfloat16" else _LARGE[4]
    small = (max(_SMALL[0], float(info.tiny) * 4), _SMALL[1])
    if dtype.itemsize == 1:  # FP8: its own far end (448 for E4M3) and near its tiny
        top = math.log10(float(info.max))
        large, small = (top - 1.0, top - 0.05), (float(info.tiny) * 2, float(info.tiny) * 16)
    ranges = {
        "negatives": (1e-2, 1e2, (-1,)),
        "large": (10.0 ** large[0], 10.0 ** large[1], (1, -1)),
        "small": (small[0], small[1], (1, -1)),
        "tiny": (float(info.tiny), float(info.tiny) * 2.0**10, (1, -1)),
        "subnormal": (float(info.smallest_subnormal), float(info.tiny) * (1 - 2.0**-8), (1, -1)),
    }
    m_lo, m_hi, signs = ranges[family]
    if family == "large":
        reach = max(abs(lo), abs(hi))
        if math.isfinite(reach) and _FAR * _NORMAL_REACH <= reach < m_lo:
            # a domain that ends before the large magnitudes but far past the normal
            # draw (clipped at 4): its own far ends, so that a kernel whose exp
            # overflows past 88 is seen under a domain of (-100, 100)
            m_lo, m_hi = _NORMAL_REACH, reach
        elif dtype.itemsize >= 4 and m_lo < 10.0**_LARGE_SECOND_HALF < m_hi and n >= 2:
            first = _magnitude_sample(rng, n // 2, m_lo, m_hi, signs, domain)
            second = _magnitude_sample(
                rng, n - n // 2, 10.0**_LARGE_SECOND_HALF, m_hi, signs, domain
            )
            if first is not None and second is not None:
                return np.concatenate([first, second])
    return _magnitude_sample(rng, n, m_lo, m_hi, signs, domain)


def _int_family(rng, family: str, n: int, dtype: np.dtype, domain):
    info = np.iinfo(dtype)
    lo, hi = max(domain[0], info.min), min(domain[1], info.max)
    spans = {
        "normal": (-100, 100),
        "zeros": (0, 0),
        "negatives": (-1000, -1),
        "positives": (1, 1000),  # the one-sign positive set's moderate half, unsigned
        # unsigned: up to the type's top (bits 30 and 31 of a u32 set, where a packed
        # byte's top lane, a bitmap's high bits, an arithmetic shift differ); signed
        # ones stop at 2**30, where a sum of two stays in range
        "large": (
            min(2**20, info.max // 2),
            min(info.max, 2**63 - 1) if info.min == 0 else min(2**30, info.max),
        ),
        "tiny": (1, 3),
    }
    if family not in spans:
        return None
    a, b = spans[family]
    a, b = max(a, lo), min(b, hi)
    if family == "large" and a > b and hi - lo < 2**20:
        # a declared range (token ids, indices) below the large magnitudes: its two
        # ends, where an off-by-one bound check fails
        return rng.choice(np.array([int(lo), int(hi)], np.int64), n)
    if a > b:
        return None if family != "normal" else rng.integers(int(lo), int(hi) + 1, n, np.int64)
    values = rng.integers(int(a), int(b) + 1, n, np.int64)
    if family == "large" and lo < 0:
        values = np.where(rng.integers(0, 2, n) == 1, -values, values).clip(lo, hi)
    return values


def _family(rng, family, n, dtype, domain, nonfinite, nan=True):
    values = (
        _float_family(rng, family, n, dtype, domain, nonfinite, nan)
        if dtype.kind in "fV" or dtype.name == "bfloat16"
        else _int_family(rng, family, n, dtype, domain)
    )
    return None if values is None else values.astype(dtype)


#: Which edge-case families an input set draws from: ``"all"`` (every family the
#: kernel's contract admits), ``"finite"`` (no NaN or Inf, no large magnitudes: a set
#: whose results stay finite, judged where an adapter's non-finite results are
#: indeterminate), ``"normal"`` (moderate values only; also run for a kernel whose
#: reference takes a running sum, ``oracle._builtins.accumulates``), ``"small"`` (every buffer of
#: rows small values throughout, ``SMALL_SET``; other inputs normal).
INPUT_SETS = {
    "all": None,
    "finite": ("zeros", "negatives", "small", "tiny", "subnormal"),
    "normal": (),
    "small": ("small",),
    "negative": ("negative",),
    "positive": ("positive",),
    "opposite": ("opposite",),
    "far-negative": ("negative", "far"),
}

#: The one-sign input sets: every float (and signed integer) input of one sign
#: throughout, so that every line along any axis is: a running maximum started at 0
#: is wrong on the first, a minimum started at 0 on the second. The first half of each
#: buffer has magnitudes of 1e-2 to 1e2 (the ``negatives`` family's), the rest from a
#: row boundary on the ``large`` family's (a softmax whose maximum starts at 0 is wrong
#: only on a row whose every exp underflows). Run after ``"all"`` passes, for a kernel that
#: keeps a running extremum (``oracle._builtins.running_extremum``).
ONE_SIGN_SETS = ("negative", "positive")

#: A kernel's float inputs drawn of one sign each, the first negative, the next
#: positive and so on (the first of them as in ``"negative"``, the second as in
#: ``"positive"``): a running maximum over products of two inputs, attention's scores
#: ``Q @ K.T``, is over positive values in both one-sign sets, and its rows of large
#: negative scores, where a maximum started at 0 (GPU MODE's flash attention starts it
#: at ``1e-30f``) divides 0 by 0, are here. Run after the one-sign sets for a kernel of
#: two float inputs or more (``opposite_signs``; round 46).
OPPOSITE_SET = "opposite"

#: Every float input negative and of large magnitude throughout (the ``large`` family's,
#: as the second half of a ``"negative"`` buffer), for a kernel none of whose float
#: inputs is a buffer of rows (``draws_flat_floats``): there a buffer is one line, the
#: negative set's moderate half keeps its maximum near 0, and a softmax over the whole
#: buffer whose maximum starts at 0 (a LeetGPU softmax's ``float max = 0.0f``), wrong
#: only where every exp underflows, passed it (round 54). Run after the one-sign sets
#: for a kernel that keeps a running extremum and takes an exponential
#: (``oracle._builtins.calls_exp``; a maximum started at 0 without one shows on the
#: one-sign sets' moderate values).
FAR_SET = "far-negative"


def _float_inputs(kernel: KernelSpec) -> list[BufferSpec]:
    """The float inputs the oracle draws from its families (a ``fill`` that is no domain
    draws itself), in (group, binding) order."""
    return [
        spec
        for spec in kernel.buffers
        if (spec.access is Access.READ or spec.inout)
        and is_float_dtype(spec.dtype.base)
        and (spec.fill is None or _is_domain(spec.fill))
    ]


def draws_floats(kernel: KernelSpec) -> bool:
    """Whether the oracle draws some float input of ``kernel`` from its families."""
    return bool(_float_inputs(kernel))


def opposite_signs(kernel: KernelSpec) -> bool:
    """Whether the ``"opposite"`` set draws other inputs than the one-sign sets: a
    kernel of two float inputs or more."""
    return len(_float_inputs(kernel)) >= 2


def _is_domain(fill: Any) -> bool:
    return (
        isinstance(fill, tuple)
        and len(fill) == 2
        and all(isinstance(v, (int, float)) for v in fill)
    )


#: The ``small`` input set's families. In ``"all"`` the small family takes whole rows
#: (``_SMALL``), which is where a row's statistic is taken; a statistic over another
#: axis (BatchNorm in training over N and HW, BatchNorm1d down a column, an InstanceNorm
#: whose plane spans many rows) sees small rows mixed with normal ones, its variance
#: stays normal, and an epsilon in the wrong place changes it by about eps / sqrt(var),
#: near rtol. Here every buffer of rows is small values (one band a row, as in
#: ``"all"``), so every statistic over any of its axes is near eps or below it. The
#: oracle runs this set after ``"all"`` passes for a kernel that takes a root
#: (``oracle._builtins.calls_root``).
SMALL_SET = INPUT_SETS["small"]


def _scalar_values(
    name: str,
    domain,
    declared: bool,
    dtype: np.dtype,
    count: int,
    rng,
    kernel: KernelSpec,
    families: tuple[str, ...] | None,
    row: int = 1,
):
    """``count`` values of scalar ``dtype`` in blocks of edge-case families (by whole
    rows of ``row`` elements where there are rows, ``_blocks``)."""
    nonfinite = kernel.nonfinite_inputs and families is None

    def draw(family: str, n: int):
        return _family(rng, family, n, dtype, domain, nonfinite, not declared)

    if families is not None and families[0:1] in (("negative",), ("positive",)):
        sign = -1 if families[0] == "negative" else 1
        # moderate magnitudes, then large ones from a row boundary at the middle on (a
        # softmax whose max starts at 0 is wrong only where a whole row underflows exp);
        # in the far set (FAR_SET) a float buffer's large magnitudes throughout
        half = count // 2 // row * row if row > 1 else count // 2
        far = "far" in families and is_float_dtype(dtype)
        half = 0 if far else half
        # (the far set draws one moderate value, only to learn the domain admits them)
        # (an unsigned type has no negatives: its positive set draws 1 to 1000, so that
        # a minimum started at 0, or one that reads the rerun's 0 past the end, shows)
        moderate_family = "positives" if dtype.kind == "u" and sign > 0 else "negatives"
        moderate = draw(moderate_family, 1 if far else half)
        large = draw("large", count - half)
        if moderate is not None:
            moderate = moderate[:half]
            if large is None:  # a domain or dtype without large magnitudes: moderate
                large = draw(moderate_family, count - half)
            values = np.concatenate([np.abs(moderate), np.abs(large)])
            values = _clipped((sign * values).astype(dtype), dtype, domain)
            if (np.sign(values.astype(np.float64)) == sign).all():
                halves = (
                    ((families[0], 0, count),)
                    if far
                    else ((families[0], 0, half), (families[0], half, count))
                )
                return _extremes_at_ends(values, halves, row, flip=sign < 0), halves
        families = ()  # a domain or a dtype of the other sign only: normal values
    if families == SMALL_SET:
        if row > 1 and count % row == 0 and draw("small", 1) is not None:
            out = _small_rows(rng, count // row, row, dtype, domain, draw).astype(dtype)
            whole = (("small", 0, count),)
            return _extremes_at_ends(_clipped(out, dtype, domain), whole, row), whole
        families = ()  # elementwise inputs (gamma, beta, running statistics): normal
    allowed = _SPECIAL if families is None else tuple(f for f in _SPECIAL if f in families)
    if dtype.kind == "f":  # families where a called function has no defined result
        limits = builtin_limits(kernel)
        allowed = tuple(f for f in allowed if f not in limits)
        nonfinite = nonfinite and "nonfinite" not in limits
    if row == 1:  # small values matter where a row's squares are summed (_SMALL)
        allowed = tuple(f for f in allowed if f != "small")
    present = [f for f in allowed if draw(f, 1) is not None]
    blocks = _blocks(count, present + (["mixed"] if families is None else []), row)
    out = draw("normal", count)
    if families == () and dtype.kind == "f":
        # the normal set is the one a kernel's non-finite results are judged away in: no
        # exact zero there (the grid of 1/16 rounds values near 0 to it), whose quotient
        # (a broadcast division's denominator, Burn's div) is infinite in every set
        zero = out == 0
        out[zero] = _clipped(np.full(int(zero.sum()), 1.0 / 16), dtype, domain)
    for family, start, stop in blocks[1:]:
        n = stop - start
        if family == "mixed":
            stacked = np.stack([out[start:stop]] + [draw(f, n) for f in present])
            out[start:stop] = stacked[rng.integers(0, len(stacked), n), np.arange(n)]
        elif family == "large" and row > 1 and n % row == 0 and domain[0] < 0 < domain[1]:
            out[start:stop] = _one_sign_per_row(np.abs(draw(family, n)), row)
        elif family == "small" and row > 1 and n % row == 0:
            out[start:stop] = _small_rows(rng, n // row, row, dtype, domain, draw)
        elif family == "normal" and dtype.kind == "f" and row == 1:
            # the tail: magnitudes of 1 to 4 (clipped to the domain below), so that a
            # sum which drops one of them moves by more than a short sum's rounding
            signs = np.where(rng.integers(0, 2, n) == 1, -1.0, 1.0)
            out[start:stop] = signs * rng.uniform(1.0, 4.0, n)
        else:
            out[start:stop] = draw(family, n)
    return _extremes_at_ends(_clipped(out, dtype, domain), blocks, row), tuple(blocks)


def _clipped(out: np.ndarray, dtype: np.dtype, domain) -> np.ndarray:
    """``out`` with its finite floats clipped into ``domain`` (rounding to the dtype may
    step past a bound)."""
    if is_float_dtype(dtype):
        # an end past the dtype's range is its largest finite value (E4M3 has no Inf)
        top = float(_finfo(dtype).max)
        lo, hi = (dtype.type(min(max(v, -top), top)) for v in domain)
        finite = np.isfinite(out)
        out[finite] = np.clip(out[finite], lo, hi)
    return out


def _small_rows(rng, rows: int, row: int, dtype: np.dtype, domain, draw) -> np.ndarray:
    """Rows of the small family, each row's magnitudes in one band of
    ``_SMALL_ROW_BANDS`` in turn (a band the dtype or the domain does not hold: the
    whole family's range)."""
    floor = float(_finfo(dtype).tiny) * 4
    out = []
    for k in range(rows):
        lo, hi = _SMALL_ROW_BANDS[k % len(_SMALL_ROW_BANDS)]
        band = None if lo < floor else _magnitude_sample(rng, row, lo, hi, (1, -1), domain)
        out.append(draw("small", row) if band is None else band)
    return np.concatenate(out)


def _one_sign_per_row(magnitudes: np.ndarray, row: int) -> np.ndarray:
    """Rows of large magnitudes, all negative in the first row, all positive in the
    next, and so on: a row far below zero (every exp underflows, an attention row
    masked out) is where a softmax whose running max starts at 0 divides 0 by 0."""
    signs = np.where(np.arange(magnitudes.size // row) % 2 == 0, -1, 1).repeat(row)
    return magnitudes * signs.astype(magnitudes.dtype)


def _logical_values(dtype: np.dtype, count: int, draw_scalar) -> tuple[np.ndarray, tuple]:
    """``count`` elements of ``dtype`` (a scalar, a sub-array, a struct), each scalar
    lane drawn by ``draw_scalar(scalar dtype, n)``."""
    fields = dtype.fields
    if dtype.names and fields is not None:
        out = np.zeros(count, dtype)
        layout: tuple = ()
        for name in dtype.names:
            values, layout = _logical_values(fields[name][0], count, draw_scalar)
            out[name] = values
        return out, layout
    if dtype.subdtype is not None:
        base, shape = dtype.subdtype
        lanes = int(np.prod(shape))
        values, layout = _logical_values(base, count * lanes, draw_scalar)
        return values.reshape((count, *shape)), layout
    return draw_scalar(dtype, count)


def _fill(
    spec: BufferSpec, count: int, rng, kernel: KernelSpec, size, families: tuple[str, ...] | None
):
    """An input's values: its ``fill`` (a generator, fixed content, a domain), else
    edge-case families inside the kernel's domain for it."""
    fill = spec.fill
    if fill is not None and not _is_domain(fill):
        values = _given_fill(spec, fill, count, rng, size, kernel)
        return values, (("fill", 0, count),)
    if families == INPUT_SETS[OPPOSITE_SET]:
        at = next((k for k, s in enumerate(_float_inputs(kernel)) if s is spec), 0)
        families = INPUT_SETS[ONE_SIGN_SETS[at % 2]]
    declared = spec.name in kernel.domain or fill is not None
    bounds = fill if fill is not None else kernel.domain.get(spec.name, (-np.inf, np.inf))
    try:  # None is an open end: (0, None) is every value from 0 up
        domain = tuple(
            (-np.inf, np.inf)[i] if v is None else float(v) for i, v in enumerate(bounds)
        )
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(
            f"kernel {kernel.id}: domain of {spec.name!r} must be (low, high) numbers, "
            f"None for an open end; got {bounds!r}"
        ) from exc
    if len(domain) != 2:
        raise InvalidArgument(
            f"kernel {kernel.id}: domain of {spec.name!r} is (low, high), got {bounds!r}"
        )
    if domain[0] > domain[1]:
        raise InvalidArgument(f"kernel {kernel.id}: domain of {spec.name!r} is empty: {domain}")
    row = row_length(spec, count, size) if spec.dtype.names is None and not spec.dtype.shape else 1
    return _logical_values(
        spec.dtype,
        count,
        lambda dtype, n: _scalar_values(
            spec.name, domain, declared, dtype, n, rng, kernel, families, row
        ),
    )


def has_float_rows(case: Case) -> bool:
    """Whether some float input of ``case`` is a buffer of rows (``row_length`` > 1):
    what the ``small`` input set changes; without one it would draw normal values only."""
    specs = {buffer_label(spec): spec for spec in case.kernel.buffers}
    return any(
        label in specs
        and is_float_dtype(array.dtype)
        and row_length(specs[label], array.size, case.size) > 1
        for label, array in case.arrays.items()
    )


def draws_flat_floats(case: Case) -> bool:
    """Whether ``case`` draws float inputs from the families (not a ``fill``) and none
    of its float inputs is a buffer of rows: where the far set (``FAR_SET``) draws
    anything the one-sign sets do not."""
    drawn = any(
        is_float_dtype(array.dtype) and case.layout.get(label, (("fill",),))[0][0] != "fill"
        for label, array in case.arrays.items()
    )
    return drawn and not has_float_rows(case)


def largest_array(case: Case) -> int:
    """How many elements the largest of ``case``'s arrays (inputs, initial contents) has."""
    return max((a.size for a in case.arrays.values()), default=0)


def row_length(spec: BufferSpec, count: int, size) -> int:
    """The length of a buffer's rows: its ``shape``'s last axis, else, for a buffer of
    as many elements as a size of several dimensions holds (``rows x cols``), the last
    dimension; 1 where it has none."""
    if spec.shape is not None:
        shape = spec.shape_at(size)
        return shape[-1] if len(shape) > 1 else 1
    dims = list(getattr(size, "dims", {}).values())
    if len(dims) > 1 and int(np.prod(dims)) == count:
        return int(dims[-1])
    return 1


def _given_fill(spec: BufferSpec, fill: Any, count: int, rng, size, kernel: KernelSpec):
    where = f"kernel {kernel.id} buffer {spec.label}'s fill"
    if callable(fill) and not isinstance(fill, np.ndarray):
        try:
            values = fill(rng, count, size)
        except Exception as exc:
            raise InvalidArgument(f"{where} raised {type(exc).__name__}: {exc}") from exc
    elif np.isscalar(fill):
        values = np.full(count, fill)
    else:
        values = fill
    return conform(values, spec, count, where)


def conform(values: Any, spec: BufferSpec, count: int, where: str) -> np.ndarray:
    """``values`` as ``count`` elements of ``spec``'s dtype: same element count, and a
    dtype it converts to exactly (a float64 array for an f32 buffer is refused, never
    reinterpreted)."""
    if hasattr(values, "__dlpack__") and not isinstance(values, np.ndarray):
        try:
            values = np.from_dlpack(values)
        except (TypeError, RuntimeError, BufferError):
            values = np.asarray(values.cpu() if hasattr(values, "cpu") else values)
    array = np.asarray(values)
    want = spec.dtype
    if array.dtype.kind == "O":
        raise InvalidArgument(f"{where}: an array of Python objects cannot be a buffer")
    # A vector or array element type (vec4<f16>) takes arrays of its scalar with the
    # lanes as trailing axes (or flat); a struct takes a structured array of its fields.
    scalar = want.base if want.subdtype is not None else want
    if scalar.names is not None and array.dtype != scalar and _flat(array.dtype) == _flat(scalar):
        # the same fields in the same bytes, spelled otherwise: a matrix field as vectors
        # of vectors (('<f4', (4,)), (3,)) where the layout gives ('<f4', (3, 4))
        array = np.ascontiguousarray(array).view(scalar)
    if array.dtype not in (want, scalar):
        same_kind = array.dtype.kind == scalar.kind and array.dtype.itemsize <= scalar.itemsize
        if scalar.names is not None:
            raise InvalidArgument(
                f"{where}: an array of {array.dtype} for a buffer of "
                f"{spec.type} elements (give a structured array of dtype "
                f"{want})"
            )
        if not (same_kind and np.can_cast(array.dtype, scalar, "safe")):
            of = f" lanes ({spec.type})" if want.subdtype is not None else ""
            raise InvalidArgument(
                f"{where}: an array of {array.dtype} for a buffer of "
                f"{scalar}{of} (convert it explicitly, e.g. "
                f".astype(np.{scalar.name}))"
            )
        array = array.astype(scalar)
    lanes = int(np.prod(want.subdtype[1])) if want.subdtype else 1
    if array.size != count * lanes:
        raise InvalidArgument(
            f"{where}: {array.size // max(lanes, 1)} elements (shape "
            f"{array.shape}) for a buffer of {count} at this size"
        )
    return np.ascontiguousarray(array).reshape((count, *want.shape) if want.shape else count)


def _flat(dtype: np.dtype) -> Any:
    """``dtype`` as what its bytes hold: a struct's fields (name, offset, what each
    holds) and size, a sub-array's scalar and lane count however its shape nests."""
    if dtype.names is not None and dtype.fields is not None:
        return (
            tuple((n, dtype.fields[n][1], _flat(dtype.fields[n][0])) for n in dtype.names),
            dtype.itemsize,
        )
    lanes = 1
    while dtype.subdtype is not None:
        dtype, shape = dtype.subdtype
        lanes *= int(np.prod(shape))
    return dtype.str, lanes


def initial_contents(spec: BufferSpec, count: int, size, kernel: KernelSpec) -> np.ndarray:
    """``count`` elements of ``spec``'s declared ``initial`` content at ``size``."""
    where = f"kernel {kernel.id} buffer {spec.label}'s initial content"
    initial = spec.initial
    if callable(initial) and not isinstance(initial, np.ndarray):
        try:
            initial = initial(size)
        except Exception as exc:
            raise InvalidArgument(f"{where} raised {type(exc).__name__}: {exc}") from exc
    if np.isscalar(initial):
        return (
            np.full(count, initial, spec.dtype)
            if not spec.dtype.shape
            else np.full((count, *spec.dtype.shape), initial, spec.dtype.base)
        )
    return conform(initial, spec, count, where)


def size_from_given(kernel: KernelSpec, given: Mapping[str, Any]) -> Any:
    """The problem size at which every array in ``given`` has its buffer's element
    count: for ``oracle.evaluate(..., inputs=...)`` without ``size``. Tried in order:
    each array's shape (a 2-D kernel's rows x cols), its length, then the kernel's
    checked sizes; refused, naming the counts, when none fits."""
    arrays = {}
    for label, value in given.items():
        shape = getattr(value, "shape", None)
        arrays[label] = tuple(int(d) for d in shape) if shape is not None else np.shape(value)
    specs = {buffer_label(s): s for s in kernel.buffers}
    candidates: list[Any] = []
    for shape in arrays.values():
        if len(shape) == len(kernel.dims) > 1:
            candidates.append("x".join(map(str, shape)))
        if shape:
            candidates.append(math.prod(shape))
            candidates.append(shape[0])
    candidates += list(kernel.checked_sizes())

    def fits(size: Any) -> bool:
        try:
            size = kernel.size(size)
            for label, shape in arrays.items():
                spec = specs.get(label)
                if spec is None or spec.access is Access.UNIFORM:
                    continue
                lanes = int(np.prod(spec.dtype.shape)) if spec.dtype.shape else 1
                if spec.element_count(size) * lanes != math.prod(shape):
                    return False
            return True
        except (ForgeError, TypeError, ValueError, ArithmeticError):
            return False

    for candidate in candidates:
        if fits(candidate):
            return kernel.size(candidate)
    described = ", ".join(f"{label} of shape {shape}" for label, shape in arrays.items())
    raise InvalidArgument(
        f"kernel {kernel.id}: no size fits the inputs given ({described}); pass size= "
        "(an int, or e.g. '64x128' for a kernel of dims rows, cols)"
    )


def make_case(
    kernel: KernelSpec,
    size: Any,
    seed: int = 0,
    uniform: Mapping[str, Any] | None = None,
    *,
    input_set: str = "all",
    given: Mapping[str, Any] | None = None,
) -> Case:
    """The inputs for ``kernel`` at problem ``size`` from ``seed``: each input drawn
    (from its ``fill`` or the ``input_set``'s families), ``inout`` buffers drawn too,
    outputs with ``initial`` content filled with it. ``uniform`` overrides fields of
    the uniform block; ``given`` supplies arrays by buffer name (a user's own)."""
    if not is_int(seed) or seed < 0:
        raise InvalidArgument(f"seed must be an int >= 0, got {seed!r}")
    if input_set not in INPUT_SETS:
        raise InvalidArgument(f"input_set must be one of {list(INPUT_SETS)}, got {input_set!r}")
    size = kernel.size(size)
    families = INPUT_SETS[input_set]
    given = dict(given or {})
    unknown = set(given) - {buffer_label(s) for s in kernel.buffers}
    if unknown:
        raise InvalidArgument(
            f"kernel {kernel.id} has no buffers {sorted(unknown)}; its "
            f"buffers: {', '.join(buffer_label(s) for s in kernel.buffers)}"
        )
    written = [
        buffer_label(s)
        for s in kernel.buffers
        if buffer_label(s) in given and s.is_output and not s.inout and s.initial is None
    ]
    if written:
        raise InvalidArgument(
            f"kernel {kernel.id}: {', '.join(written)} "
            f"{'is an output' if len(written) == 1 else 'are outputs'} the kernel writes, "
            "so given content would be overwritten unjudged; give inputs only (declare "
            "inout=True on an output the kernel also reads, or initial= for its content "
            "before the run)"
        )
    digest = hashlib.sha256(f"size={size!r}:seed={seed}:set={input_set}".encode())
    arrays: dict[str, np.ndarray] = {}
    layout: dict[str, tuple[tuple[str, int, int], ...]] = {}
    record = None
    for index, spec in enumerate(kernel.buffers):
        label = buffer_label(spec)
        if spec.access is Access.UNIFORM:
            record = kernel.pack_uniform(size, **dict(uniform or {}))
            digest.update(label.encode() + record.tobytes())
            continue
        count = spec.element_count(size)
        if label in given:
            array = conform(given[label], spec, count, f"input {label}")
            blocks = (("given", 0, count),)
        elif spec.access is Access.READ or spec.inout:
            rng = np.random.default_rng([int(seed), index, int(size)])
            array, blocks = _fill(spec, count, rng, kernel, size, families)
        elif spec.initial is not None:
            array, blocks = initial_contents(spec, count, size, kernel), (("initial", 0, count),)
        else:
            continue
        if spec.unorm:
            # an rgba8unorm texture holds bytes: the reference sees what the shader reads
            array = unorm8_values(unorm8_bytes(array)).reshape(array.shape)
        arrays[label], layout[label] = array, blocks
        digest.update(label.encode() + array.dtype.str.encode() + array.tobytes())
    if uniform and record is None:
        raise InvalidArgument(f"kernel {kernel.id} has no uniform block to override")
    return Case(kernel, size, int(seed), arrays, record, layout, digest.hexdigest(), input_set)

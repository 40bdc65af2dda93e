"""Deterministic test vectors for a kernel: every input drawn from the seed, laid out
in blocks of edge-case families, always inside the kernel's declared domain.

Families: ``normal`` (moderate values), ``zeros`` (+0.0 and -0.0), ``negatives``,
``large`` and ``tiny`` magnitudes, ``subnormal``, ``nonfinite`` (only when
``kernel.nonfinite_inputs``: +-Inf where the domain reaches them, NaN only for a buffer
with no declared domain, since NaN lies inside no range), and ``mixed``
(each element picked from the other families). Families are contiguous blocks, so a
kernel that reduces rows also sees whole rows of zeros or of negatives. A family that
does not meet the domain is left out and its block stays ``normal``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from forge.errors import InvalidArgument
from forge.kernel import Access, BufferSpec, KernelSpec
from forge.types import float_info, is_float_dtype

__all__ = ["Case", "make_case", "buffer_label", "FAMILIES", "POISON_OUTPUT", "POISON_INPUT",
           "poison"]

FAMILIES = ("normal", "zeros", "negatives", "large", "tiny", "subnormal", "nonfinite", "mixed")
_SPECIAL = FAMILIES[1:-1]
_SPECIAL_SHARE = 0.06   # of the elements, for each special family
_MIXED_SHARE = 0.14

# Bit patterns written where a kernel must write (outputs) and where it must not read
# (past the end of inputs): NaNs with payloads no arithmetic produces from numbers, and
# different from each other, so a value computed from input poison is never mistaken
# for output poison that was left in place.
# Keyed by element size, or by dtype name where the size does not say it: bfloat16 has
# float32's 8-bit exponent, so the 2-byte (f16) patterns would be finite numbers there.
POISON_OUTPUT = {2: 0x7DAD, 4: 0x7FBADBAD, 8: 0x7FF7BADBADBADBAD, "bfloat16": 0x7FAD}
POISON_INPUT = {2: 0x7D0F, 4: 0x7FB0F0F0, 8: 0x7FF70F0F0F0F0F0F, "bfloat16": 0x7F8F}

# log10 magnitude ranges of the large family, per float size, or dtype name where the
# size does not say it (kept well inside the dtype so products and short sums stay
# finite; bfloat16 has float32's range).
_LARGE = {2: (2.0, 4.0), 4: (4.0, 9.0), 8: (8.0, 30.0), "bfloat16": (4.0, 9.0)}


def poison(dtype: np.dtype, count: int, pattern: Mapping[Any, int] = POISON_OUTPUT) -> np.ndarray:
    """``count`` elements of ``dtype`` holding the poison bit pattern."""
    dtype = np.dtype(dtype)
    words = {2: np.uint16, 4: np.uint32, 8: np.uint64}[dtype.itemsize]
    bits = pattern.get(dtype.name, pattern[dtype.itemsize])
    return np.full(count, bits, words).view(dtype)


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


def _blocks(count: int, families: list[str]) -> list[tuple[str, int, int]]:
    """Contiguous (family, start, stop) blocks: the special families and ``mixed``
    after a leading ``normal`` block that takes what is left (at least half)."""
    sizes = [(f, max(1, int(count * (_MIXED_SHARE if f == "mixed" else _SPECIAL_SHARE))))
             for f in families]
    total = sum(s for _, s in sizes)
    if total * 2 > count:  # too small to hold every family: keep as many as fit
        sizes = sizes[:max(0, count // 2)]
        sizes = [(f, 1) for f, _ in sizes]
        total = len(sizes)
    blocks, start = [("normal", 0, count - total)], count - total
    for family, size in sizes:
        blocks.append((family, start, start + size))
        start += size
    return [b for b in blocks if b[2] > b[1]]


def _magnitude_sample(rng, n, lo_mag, hi_mag, signs, domain):
    """``n`` values with magnitudes log-uniform in [lo_mag, hi_mag] and a sign from
    ``signs``, restricted to ``domain``; None when no such value is in the domain."""
    lo, hi = domain
    intervals = []
    for sign in signs:  # magnitude interval that lands inside the domain with this sign
        m_lo, m_hi = (max(lo_mag, lo), min(hi_mag, hi)) if sign > 0 else (max(lo_mag, -hi), min(hi_mag, -lo))
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


def _float_family(rng, family: str, n: int, dtype: np.dtype, domain, nonfinite: bool,
                  nan: bool = True):
    info = float_info(dtype)
    lo, hi = domain
    if family == "normal":
        a, b = max(lo, -4.0), min(hi, 4.0)
        if a > b:  # the domain lies away from the origin: draw from it
            a, b = lo, hi
        return np.clip(rng.standard_normal(n) * 1.5, a, b) if a < b else np.full(n, a)
    if family == "zeros":
        if not lo <= 0 <= hi:
            return None
        return np.where(rng.integers(0, 2, n) == 1, -0.0, 0.0)
    if family == "nonfinite":
        if not nonfinite:
            return None
        choices = [np.nan] * nan + [v for v in (np.inf, -np.inf) if lo <= v <= hi]
        return rng.choice(np.array(choices), n) if choices else None
    ranges = {
        "negatives": (1e-2, 1e2, (-1,)),
        "large": (10.0 ** _large(dtype)[0], 10.0 ** _large(dtype)[1], (1, -1)),
        "tiny": (float(info.tiny), float(info.tiny) * 2.0 ** 10, (1, -1)),
        "subnormal": (float(info.smallest_subnormal), float(info.tiny) * (1 - 2.0 ** -8), (1, -1)),
    }
    m_lo, m_hi, signs = ranges[family]
    return _magnitude_sample(rng, n, m_lo, m_hi, signs, domain)


def _large(dtype: np.dtype) -> tuple[float, float]:
    return _LARGE.get(dtype.name, _LARGE[dtype.itemsize])


def _int_family(rng, family: str, n: int, dtype: np.dtype, domain):
    info = np.iinfo(dtype)
    lo, hi = max(domain[0], info.min), min(domain[1], info.max)
    spans = {"normal": (-100, 100), "zeros": (0, 0), "negatives": (-1000, -1),
             "large": (2 ** 20, 2 ** 30), "tiny": (1, 3)}
    if family not in spans:
        return None
    a, b = spans[family]
    a, b = max(a, lo), min(b, hi)
    if a > b:
        return None if family != "normal" else rng.integers(int(lo), int(hi) + 1, n, np.int64)
    values = rng.integers(int(a), int(b) + 1, n, np.int64)
    if family == "large" and lo < 0:
        values = np.where(rng.integers(0, 2, n) == 1, -values, values).clip(lo, hi)
    return values


def _family(rng, family, n, dtype, domain, nonfinite, nan=True):
    values = (_float_family(rng, family, n, dtype, domain, nonfinite, nan) if is_float_dtype(dtype)
              else _int_family(rng, family, n, dtype, domain))
    return None if values is None else values.astype(dtype)


def _fill(spec: BufferSpec, count: int, rng, kernel: KernelSpec):
    dtype = spec.dtype
    declared = spec.name in kernel.domain
    domain = tuple(float(v) for v in kernel.domain.get(spec.name, (-np.inf, np.inf)))
    if domain[0] > domain[1]:
        raise InvalidArgument(f"kernel {kernel.id}: domain of {spec.name!r} is empty: {domain}")

    def draw(family: str, n: int):
        return _family(rng, family, n, dtype, domain, kernel.nonfinite_inputs, not declared)

    present = [f for f in _SPECIAL if draw(f, 1) is not None]
    blocks = _blocks(count, present + ["mixed"])
    out = draw("normal", count)
    for family, start, stop in blocks[1:]:
        n = stop - start
        if family == "mixed":
            stacked = np.stack([out[start:stop]] + [draw(f, n) for f in present])
            out[start:stop] = stacked[rng.integers(0, len(stacked), n), np.arange(n)]
        else:
            out[start:stop] = draw(family, n)
    if is_float_dtype(dtype):  # rounding to the dtype may step just past a domain bound
        lo, hi = (dtype.type(v) for v in domain)
        finite = np.isfinite(out)
        out[finite] = np.clip(out[finite], lo, hi)
    return out, tuple(blocks)


def make_case(kernel: KernelSpec, size: int, seed: int = 0,
              uniform: Mapping[str, Any] | None = None) -> Case:
    """The inputs for ``kernel`` at problem ``size`` from ``seed``; ``uniform``
    overrides fields of the uniform block."""
    if not isinstance(size, (int, np.integer)) or isinstance(size, bool) or size < 0:
        raise InvalidArgument(f"size must be an int >= 0, got {size!r}")
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise InvalidArgument(f"seed must be an int >= 0, got {seed!r}")
    digest = hashlib.sha256(f"size={size}:seed={seed}".encode())
    arrays, layout, record = {}, {}, None
    for index, spec in enumerate(kernel.buffers):
        label = buffer_label(spec)
        if spec.access is Access.UNIFORM:
            record = kernel.pack_uniform(int(size), **dict(uniform or {}))
            digest.update(label.encode() + record.tobytes())
            continue
        if spec.access is Access.READ_WRITE and not spec.inout:
            continue
        rng = np.random.default_rng([int(seed), index, int(size)])
        array, blocks = _fill(spec, spec.element_count(int(size)), rng, kernel)
        arrays[label], layout[label] = array, blocks
        digest.update(label.encode() + array.dtype.str.encode() + array.tobytes())
    if uniform and record is None:
        raise InvalidArgument(f"kernel {kernel.id} has no uniform block to override")
    return Case(kernel, int(size), int(seed), arrays, record, layout, digest.hexdigest())

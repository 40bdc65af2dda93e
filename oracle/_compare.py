"""``compare(got, want, tolerance) -> Comparison``: the tolerance comparison every
verdict rests on.

Checks run in a fixed order and stop at the first that fails structurally: shape,
dtype, then element by element the non-finite pattern (NaN, +-Inf, and -0.0 when the
policy asks) and finally values, measured as absolute, relative and ULP distance.

Two documented departures from IEEE-754 are judged by masking, never by wider
tolerances (a backend declares them in its ``AdapterConstraints``): where subnormals may
be flushed, an element may match a second expectation, computed on flushed inputs;
where non-finite results are indeterminate, elements whose expected value is not finite
are not judged. Every other element stays as strictly judged as before.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from forge.errors import InvalidArgument
from forge.types import float_info, is_float_dtype

from ._tolerance import Tolerance, default_tolerance, dtype_name

__all__ = [
    "compare",
    "Comparison",
    "Mismatch",
    "ulp_distance",
    "element_matches",
    "flush_subnormals",
    "nonfinite_expected",
    "MASKED_NONFINITE",
    "nan_excused",
    "log2_histogram",
]

_SHOWN = 8  # first mismatches and largest errors kept in a report
_SPREAD = 256  # mismatches sampled evenly over an output (Comparison.spread)

#: Why elements of a backend with indeterminate non-finite results are not judged.
MASKED_NONFINITE = "non-finite results are indeterminate in WGSL"


@dataclass(frozen=True)
class Mismatch:
    """One element that failed: where, what came back, what was expected, and why."""

    index: tuple[int, ...]
    got: Any
    want: Any
    kind: str  # "value", "nan", "inf", "finite", "signed zero"
    abs_error: float = float("nan")
    rel_error: float = float("nan")
    ulp: int | None = None

    def describe(self) -> str:
        where = ",".join(map(str, self.index))
        text = f"[{where}] got {_fmt(self.got)} want {_fmt(self.want)}"
        if self.kind == "value":
            return text + f" (abs {self.abs_error:.3g}, rel {self.rel_error:.3g}, ulp {self.ulp})"
        return text + f" ({self.kind})"

    def as_dict(self) -> dict:
        return {
            "index": list(self.index),
            "got": _json_number(self.got),
            "want": _json_number(self.want),
            "kind": self.kind,
            "abs_error": _json_number(self.abs_error),
            "rel_error": _json_number(self.rel_error),
            "ulp": self.ulp,
        }


@dataclass(frozen=True)
class Comparison:
    """The outcome of ``compare``. ``reason`` names the first structural failure
    (``"shape"``, ``"dtype"``) or is ``""``; element failures are counted in
    ``mismatches`` (of which ``nonfinite_mismatches`` disagree in NaN/Inf/zero-sign
    pattern) and listed in ``first_mismatches`` (in index order) and ``largest`` (by
    ULP, then absolute error). Error maxima cover judged elements finite on both sides.
    ``masked`` elements were not judged (``MASKED_NONFINITE``); ``flushed`` elements
    matched only the expectation computed with subnormals flushed to zero."""

    passed: bool
    tolerance: Tolerance
    shape: tuple[tuple[int, ...], tuple[int, ...]]
    dtype: tuple[str, str]
    count: int = 0
    reason: str = ""
    mismatches: int = 0
    nonfinite_mismatches: int = 0
    max_abs: float = 0.0
    max_rel: float = 0.0
    max_ulp: int = 0
    first_mismatches: tuple[Mismatch, ...] = ()
    largest: tuple[Mismatch, ...] = field(default=(), repr=False)
    masked: int = 0
    flushed: int = 0
    nonfinite_either: int = 0
    precise: int = 0
    bounded: int = 0
    # what ``bounded`` were accepted within
    bounded_by: str = "the rounding bound of a correct float computation"
    nan_input: int = 0
    undefined: int = 0
    saturated: int = 0
    single: int = 0
    unstable: int = 0
    near: int = 0
    # where the elements that differ from the reference's rounding all differ one way
    # (``one_way_rounding``): which way, and at how many of how many
    one_way: str = ""
    histogram: dict = field(default_factory=dict, repr=False, compare=False)
    # flat indices of up to _SPREAD mismatches, evenly spaced over all of them (where a
    # kernel goes wrong: the report names the input families they lie in)
    spread: tuple[int, ...] = field(default=(), repr=False, compare=False)

    def __bool__(self) -> bool:
        return self.passed

    def report(self, label: str = "output") -> str:
        """A readable account: verdict, error maxima, first mismatches, largest errors."""
        if self.reason == "shape":
            return f"{label}: shape differs: got {self.shape[0]}, want {self.shape[1]}"
        if self.reason == "dtype":
            return f"{label}: dtype differs: got {self.dtype[0]}, want {self.dtype[1]}"
        verdict = "ok" if self.passed else f"MISMATCH in {self.mismatches} of {self.count} elements"
        lines = [
            f"{label}: {verdict} ({self.dtype[1]}, {self.tolerance.describe()})",
            f"  max abs {self.max_abs:.3g}  max rel {self.max_rel:.3g}  max ulp {self.max_ulp}",
        ]
        if self.one_way:
            lines.append(f"  {self.one_way}")
        if self.nonfinite_mismatches:
            lines.append(
                f"  {self.nonfinite_mismatches} elements differ in their non-finite "
                "pattern (NaN / Inf / zero sign)"
            )
        if self.masked:
            lines.append(f"  masked: {MASKED_NONFINITE} ({self.masked} elements not judged)")
        if self.nan_input:
            lines.append(
                f"  {self.nan_input} elements match the reference with NaN inputs taken as "
                "missing (IEEE maxNum/minNum, fmaxf and WGSL's max return the other "
                "operand; numpy's maximum, max and argmax propagate NaN); the finite input "
                "set judges them too"
            )
        if self.flushed:
            lines.append(
                f"  {self.flushed} elements match only the expectation with "
                "subnormals flushed to zero"
            )
        if self.precise:
            lines.append(
                f"  {self.precise} elements match only the reference computed in "
                "float64 (more accurate than the reference's own roundings: an FMA "
                "or another order of operations under cancellation)"
            )
        if self.saturated:
            lines.append(
                f"  {self.saturated} elements match only the reference with its float to "
                "integer conversions saturated, as the GPU converts (toward zero, clamped "
                "to the integer's range, NaN to 0): numpy leaves a conversion out of range "
                "undefined"
            )
        if self.single:
            lines.append(
                f"  {self.single} integer elements match only the reference computed as "
                "float32 computes (rounded to float32, with its products fused into the "
                "sums as an FMA does, or moved by float32's roundings) or "
                "with its trigonometric functions off by what WGSL allows them: it decides "
                "between values float32 cannot tell apart (two distances within a few "
                "float32 roundings, an angle within atan2's error of a bin's edge), where a "
                "float32 kernel may take either"
            )
        if self.near:
            lines.append(
                f"  {self.near} integer elements choose another index than the reference's "
                "argmin or argmax, whose value lies within a float32 computation's rounding "
                "of the one chosen: the values' terms cancel (|x|^2 - 2 x.c + |c|^2, the "
                "way k-means and nearest-neighbour code expand a distance), so a right "
                "float32 kernel cannot tell them apart"
            )
        if self.unstable:
            lines.append(
                f"  {self.unstable} integer elements are ill-conditioned: their value "
                "moves when the reference's float operations round otherwise; where it "
                "scatters over more than one step (an escape count near the set's "
                "boundary: chaos) any value is taken, and where by one step (a cast of a "
                "value float32 rounds onto an integer, which a device's fused multiply-add "
                "leaves just below it) the value the reference gives in float64 throughout"
            )
        if self.bounded:
            lines.append(
                f"  {self.bounded} elements are off by less than a correct float "
                "computation of them may be: a long sum's rounding, which grows with the "
                "number and size of its terms; the rounding of its inputs and of each "
                "operation, carried through the reference; a conversion to f16 rounded "
                "either way, as WGSL allows"
            )
        if self.nonfinite_either:
            lines.append(
                f"  {self.nonfinite_either} elements are NaN where the reference "
                "has an infinity, or the reverse (edge inputs make both non-finite; "
                "the order and precision of the arithmetic decide which, and a max or "
                "min written as a comparison, or fmax/fmin, drops a NaN operand that "
                "numpy's max keeps)"
            )
        if self.first_mismatches:
            lines.append("  first mismatches:")
            lines += [f"    {m.describe()}" for m in self.first_mismatches]
        if self.largest and not self.passed:
            lines.append("  largest errors:")
            lines += [f"    {m.describe()}" for m in self.largest]
        return "\n".join(lines)

    def as_dict(self) -> dict:
        return {
            "passed": self.passed,
            "reason": self.reason,
            "count": self.count,
            "shape": [list(s) for s in self.shape],
            "dtype": list(self.dtype),
            "mismatches": self.mismatches,
            "nonfinite_mismatches": self.nonfinite_mismatches,
            "max_abs": _json_number(self.max_abs),
            "max_rel": _json_number(self.max_rel),
            "max_ulp": self.max_ulp,
            "masked": self.masked,
            "flushed": self.flushed,
            "precise": self.precise,
            "bounded": self.bounded,
            "nan_input": self.nan_input,
            "nonfinite_either": self.nonfinite_either,
            "one_way": self.one_way,
            "tolerance": self.tolerance.as_dict(),
            "first_mismatches": [m.as_dict() for m in self.first_mismatches],
            "largest": [m.as_dict() for m in self.largest],
            "histogram": dict(self.histogram),
        }


def log2_histogram(values: np.ndarray, where: np.ndarray | None = None) -> list[list]:
    """Counts of ``values`` (>= 0; those under ``where``) in power-of-two bins, as
    ``[[lower edge, count], ...]`` in rising order: edge 0 counts the exact zeros, edge
    ``2**e`` the values in ``[2**e, 2**(e+1))``, edge ``"inf"`` the infinite ones.
    Error distributions span dozens of orders of magnitude, and a picture of them
    needs only the bins. Works in chunks: outputs may hold 10^8 elements."""
    values = np.asarray(values).reshape(-1)
    where = np.ones(values.shape, bool) if where is None else np.asarray(where).reshape(-1)
    counts = np.zeros(_EXPONENT_OFFSET + 1100, np.int64)
    zeros = infinite = 0
    for start in range(0, values.size, _CHUNK):
        chunk = values[start : start + _CHUNK][where[start : start + _CHUNK]].astype(np.float64)
        finite = np.isfinite(chunk)
        infinite += int(chunk.size - finite.sum())
        zeros += int((chunk == 0).sum())
        # frexp: v = m * 2**e with m in [0.5, 1), so v lies in [2**(e-1), 2**e).
        exponents = np.frexp(chunk[finite & (chunk > 0)])[1].astype(np.int64)
        counts += np.bincount(exponents - 1 + _EXPONENT_OFFSET, minlength=counts.size)
    bins = (
        [[0, zeros]]
        + [[2.0 ** (e - _EXPONENT_OFFSET), int(c)] for e, c in enumerate(counts) if c]
        + [["inf", infinite]]
    )
    return [b for b in bins if b[1]]


_EXPONENT_OFFSET = 1100  # below float64's smallest binary exponent (-1074)
_CHUNK = 1 << 22


def _fmt(value: Any) -> str:
    # numpy prints the shortest text that round-trips in the value's own precision.
    return str(value)


def _json_number(value: Any) -> Any:
    """A JSON-safe number: NaN and +-Inf become strings, numpy scalars Python ones."""
    if isinstance(value, (float, np.floating)) or is_float_dtype(np.asarray(value).dtype):
        value = float(value)
        return value if np.isfinite(value) else str(value)
    if isinstance(value, np.integer):
        return int(value)
    return value


_INT_OF_FLOAT = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How many representable values lie between ``a`` and ``b`` (same float dtype),
    as uint64; -0.0 and +0.0 are 0 apart. Meaningless for NaN."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or not is_float_dtype(a.dtype):
        raise InvalidArgument(
            f"ulp_distance needs two arrays of one float dtype, got {a.dtype} and {b.dtype}"
        )
    ints = _INT_OF_FLOAT[a.dtype.itemsize]
    if a.dtype.itemsize <= 4:  # ranks fit int64 with room for their difference
        return np.abs(_ordered(a, ints) - _ordered(b, ints)).astype(np.uint64)
    magnitude_mask = np.iinfo(ints).max

    def signed_rank(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        bits = x.view(ints).astype(np.int64)
        negative = bits < 0
        return negative, (bits & magnitude_mask).astype(np.uint64)

    neg_a, mag_a = signed_rank(a)
    neg_b, mag_b = signed_rank(b)
    same = neg_a == neg_b
    # Same sign: distance of magnitudes; opposite signs: both distances to zero added.
    return np.where(same, np.where(mag_a > mag_b, mag_a - mag_b, mag_b - mag_a), mag_a + mag_b)


def _ordered(x: np.ndarray, ints: Any) -> np.ndarray:
    """Each float's rank in IEEE order as int64 (its bits; a negative one counts down
    from -0.0, which ranks with +0.0 at 0)."""
    bits = x.view(ints).astype(np.int64)
    np.subtract(np.iinfo(ints).min, bits, out=bits, where=bits < 0)
    return bits


def flush_subnormals(x: np.ndarray) -> np.ndarray:
    """``x`` with every subnormal replaced by a zero of its sign (``x`` itself when it
    holds none, or is not a float array; a record's float fields are flushed)."""
    x = np.asarray(x)
    if x.dtype.names:
        out = x.copy()
        for name in x.dtype.names:
            out[name] = flush_subnormals(x[name])
        return out
    if not is_float_dtype(x.dtype):
        return x
    with np.errstate(invalid="ignore"):  # bfloat16 warns where numpy's floats do not
        subnormal = (x != 0) & (np.abs(x) < float_info(x.dtype).tiny)
    if not subnormal.any():
        return x
    return np.where(subnormal, np.copysign(np.zeros_like(x), x), x)


class FlushingArray(np.ndarray):
    """An array whose every ufunc (arithmetic, ``exp``, a sum's ``reduce``, a
    ``matmul``) takes float operands below ``tiny`` in magnitude as zeros of their sign
    and gives results so flushed: how a device that flushes subnormals computes,
    intermediates included (``x * 0.5 * big`` of a tiny ``x`` is 0 there), while bits
    read through a view (``x.view(np.uint32)``, WGSL's ``bitcast``) stay as they are.
    What is no ufunc (``np.pad``, ``np.where``, ``einsum``) computes unflushed, and its
    float results flush again in later ufuncs (an image padded by ``np.pad`` kept its
    subnormal gradients, where a device computing them flushed them to zero)."""

    tiny: float = float(np.finfo(np.float32).tiny)

    def __array_finalize__(self, obj: Any) -> None:
        self.tiny = getattr(obj, "tiny", FlushingArray.tiny)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        result = super().__array_function__(func, types, args, kwargs)
        return self._rewrapped(result)

    def _rewrapped(self, result: Any) -> Any:
        if isinstance(result, (tuple, list)):
            return type(result)(self._rewrapped(r) for r in result)
        if (
            isinstance(result, np.ndarray)
            and not isinstance(result, FlushingArray)
            and result.dtype.kind == "f"
        ):
            view = result.view(FlushingArray)
            view.tiny = self.tiny
            return view
        return result

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        plain = tuple(self._operand(x) for x in inputs)
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = tuple(np.asarray(o) if isinstance(o, FlushingArray) else o for o in out)
        result = getattr(ufunc, method)(*plain, **kwargs)
        if method == "at":  # in place, on the first input
            self._flush_in_place(np.asarray(inputs[0]))
            return None
        if out is not None:
            for target in kwargs["out"]:
                self._flush_in_place(np.asarray(target))
            return out[0] if len(out) == 1 else out
        if isinstance(result, tuple):
            return tuple(self._flushed(r) for r in result)
        return self._flushed(result)

    def _operand(self, x: Any) -> Any:
        x = np.asarray(x) if isinstance(x, FlushingArray) else x
        if isinstance(x, (np.ndarray, np.floating)) and np.asarray(x).dtype.kind == "f":
            with np.errstate(invalid="ignore"):
                low = (x != 0) & (np.abs(x) < self.tiny)
            if np.any(low):
                return np.where(low, np.copysign(np.zeros_like(x), x), x)
        return x

    def _flush_in_place(self, array: np.ndarray) -> None:
        if array.dtype.kind == "f":
            with np.errstate(invalid="ignore"):
                array[(array != 0) & (np.abs(array) < self.tiny)] *= 0

    def _flushed(self, result: Any) -> Any:
        if isinstance(result, np.ndarray):  # integers too: their bits may become floats
            if result.dtype.kind == "f":
                with np.errstate(invalid="ignore"):
                    low = (result != 0) & (np.abs(result) < self.tiny)
                result = np.where(low, np.copysign(np.zeros_like(result), result), result)
            view = result.view(FlushingArray)
            view.tiny = self.tiny
            return view
        if isinstance(result, np.floating) and result != 0 and abs(result) < self.tiny:
            return type(result)(np.copysign(0.0, result))
        return result


def flushing(reference: Any, tiny: float) -> Any:
    """``reference`` run with its float arrays as ``FlushingArray`` (outputs written in
    place keep their memory): what a device that flushes subnormals computes."""

    @functools.wraps(reference)
    def run(*args: Any, **kwargs: Any) -> Any:
        def wrap(a: Any) -> Any:
            if isinstance(a, np.ndarray) and a.dtype.names is None:
                view = a.view(FlushingArray)
                view.tiny = tiny
                return view
            return a

        return reference(*map(wrap, args), **{k: wrap(v) for k, v in kwargs.items()})

    return run


def nonfinite_expected(*expectations: np.ndarray | None) -> np.ndarray:
    """Elements not finite in any of ``expectations`` (same shape; None ones skipped):
    those a backend with indeterminate non-finite results cannot be judged on."""
    present = [np.asarray(e) for e in expectations if e is not None]
    mask = np.zeros(present[0].shape, bool)
    for e in present:
        if is_float_dtype(e.dtype):
            mask |= ~np.isfinite(e)
    return mask


# Per-element mismatch codes (a byte each, so large outputs stay cheap to judge).
_KINDS = ("", "nan", "inf", "signed zero", "value")
_NAN, _INF, _ZERO, _VALUE = 1, 2, 3, 4


def _pattern_mismatch(g: np.ndarray, w: np.ndarray, tol: Tolerance) -> np.ndarray:
    """Per element, the code of the non-finite class it disagrees on (0 where none)."""
    kinds = np.zeros(g.shape, np.uint8)
    if not is_float_dtype(g.dtype):
        return kinds
    g_nan, w_nan = np.isnan(g), np.isnan(w)
    nan_bad = (g_nan != w_nan) | ((g_nan | w_nan) if tol.nan == "forbid" else False)
    inf_bad = ~nan_bad & ~g_nan & ~w_nan & (np.isinf(g) | np.isinf(w)) & (g != w)
    kinds[nan_bad] = _NAN
    kinds[inf_bad] = _INF
    if tol.signed_zeros:
        kinds[(g == 0) & (w == 0) & (np.signbit(g) != np.signbit(w))] = _ZERO
    return kinds


def _ordered_u64(x: np.ndarray) -> np.ndarray | None:
    """``x``'s integers mapped onto uint64 in the same order (signed ones offset by
    2^63), so that a difference of two is exact; None for other kinds."""
    if x.dtype.kind in "ub":
        return x.astype(np.uint64)
    if x.dtype.kind == "i":
        return x.astype(np.int64).view(np.uint64) ^ np.uint64(1 << 63)
    return None


def _integer_distance(g: np.ndarray, w: np.ndarray) -> np.ndarray | None:
    """|g - w| exactly, as uint64, for integers of one kind. Through float64, two 64-bit
    integers past 2^53 round alike (a mask word's low bit, a hash's), and a difference
    of 2^64 or more cast back to uint64 was no number, read as 0: torchvision's NMS mask
    word with every bit wrong passed as equal (round 63)."""
    if g.dtype.kind == "b" or w.dtype.kind == "b" or g.dtype.kind != w.dtype.kind:
        return None
    a, b = _ordered_u64(g), _ordered_u64(w)
    if a is None or b is None:
        return None
    return np.where(a >= b, a - b, b - a)


def _errors(g: np.ndarray, w: np.ndarray, finite: np.ndarray):
    """Absolute, relative and ULP distance over the elements finite on both sides."""
    exact = None if is_float_dtype(g.dtype) else _integer_distance(g, w)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        g64, w64 = g.astype(np.float64), w.astype(np.float64)  # signalling NaNs: no warning
        if exact is None:
            abs_err = np.where(finite, np.abs(g64 - w64), 0.0)
        else:  # the exact difference, rounded once: 0 only where the two are equal
            abs_err = np.where(finite, exact.astype(np.float64), 0.0)
        rel_err = np.where(abs_err == 0, 0.0, abs_err / np.abs(w64))
    if is_float_dtype(g.dtype):
        ulp = np.where(finite, ulp_distance(g, w), np.uint64(0))
    elif exact is not None:
        ulp = exact
    else:
        with np.errstate(invalid="ignore"):
            ulp = abs_err.astype(np.uint64)
    return abs_err, rel_err, ulp


def _mismatch(i: int, shape, g, w, kind, abs_err, rel_err, ulp) -> Mismatch:
    index = tuple(int(x) for x in np.unravel_index(i, shape))
    return Mismatch(
        index, g[i], w[i], _KINDS[kind], float(abs_err[i]), float(rel_err[i]), int(ulp[i])
    )


def _largest(mask: np.ndarray, abs_err: np.ndarray, ulp: np.ndarray) -> np.ndarray:
    """Indices of the largest errors under ``mask``, by ULP then absolute error."""
    ranked = np.flatnonzero(mask)
    if ranked.size > _SHOWN:  # select before sorting: outputs may hold 10^8 elements
        ranked = ranked[np.argpartition(-ulp[ranked].astype(np.float64), _SHOWN)[:_SHOWN]]
    return ranked[np.lexsort((-abs_err[ranked], -ulp[ranked].astype(np.float64)))]


def _judge(g: np.ndarray, w: np.ndarray, tol: Tolerance):
    """Per element of flat ``g`` against ``w``: both as compared (subnormals flushed
    when the tolerance says so), the mismatch code, finiteness and the error measures."""
    floats = is_float_dtype(w.dtype)
    if floats and tol.flush_subnormals:
        g, w = flush_subnormals(g), flush_subnormals(w)
    with np.errstate(invalid="ignore"):  # NaN comparisons: bfloat16 warns, floats do not
        kinds = _pattern_mismatch(g, w, tol)
    finite = (np.isfinite(g) & np.isfinite(w)) if floats else np.ones(g.shape, bool)
    abs_err, rel_err, ulp = _errors(g, w, finite)
    with np.errstate(over="ignore", invalid="ignore"):
        within = (abs_err <= tol.atol + tol.rtol * np.abs(w.astype(np.float64))) | (ulp <= tol.ulp)
    kinds[finite & ~within & (kinds == 0)] = _VALUE
    return g, w, kinds, finite, abs_err, rel_err, ulp


def element_matches(got: Any, want: Any, tolerance: Tolerance | dict | None = None) -> np.ndarray:
    """Per element (flat), whether ``got`` matches ``want`` under ``tolerance``: what
    ``compare`` counts, without the report."""
    got, want = np.asarray(got), np.asarray(want)
    tol = default_tolerance(want.dtype).merged(tolerance)
    return _judge(got.reshape(-1), want.reshape(-1), tol)[2] == 0


def nan_excused(
    got: Any, alternatives: Sequence[np.ndarray], tolerance: Tolerance | dict | None = None
) -> np.ndarray:
    """Per element (``got``'s shape), whether ``got`` matches one of ``alternatives``
    (``Expected.nan_alternatives``: the reference with NaN inputs as missing values),
    for ``compare(nan_input=...)``; all False when there is none."""
    got = np.asarray(got)
    found = np.zeros(got.size, bool)
    for alternative in alternatives:
        found |= element_matches(got, alternative, tolerance)
    return found.reshape(got.shape)


def _same_layout(name: str, array: np.ndarray, want: np.ndarray, dtype=None) -> np.ndarray:
    if array.shape != want.shape or (dtype is not None and array.dtype != dtype):
        raise InvalidArgument(
            f"compare: {name} must have the shape and dtype of want "
            f"({want.shape}, {dtype or want.dtype}), got "
            f"({array.shape}, {array.dtype})"
        )
    return array.reshape(-1)


def _accept_alternative(
    what: str,
    alternative: Any,
    g: np.ndarray,
    want: np.ndarray,
    tol: Tolerance,
    kinds: np.ndarray,
    eligible: np.ndarray,
    skip: np.ndarray,
    judged: list,
) -> np.ndarray:
    """Accept each ``eligible`` element that matches ``alternative`` (``want``'s layout):
    clear its mismatch kind and replace its expectation and errors in ``judged``
    (``[w, finite, abs_err, rel_err, ulp]``) by those against the alternative. Returns
    the mask of elements accepted so."""
    if alternative is None:
        return np.zeros(g.shape, bool)
    alt = _same_layout(what, np.asarray(alternative), want, want.dtype)
    _, *against = _judge(g, alt, tol)  # w, kinds, finite, abs, rel, ulp of the alternative
    alt_w, alt_kinds, alt_finite, alt_abs, alt_rel, alt_ulp = against
    accepted = eligible & (alt_kinds == 0) & ~skip
    kinds[accepted] = 0
    for index, value in enumerate((alt_w, alt_finite, alt_abs, alt_rel, alt_ulp)):
        judged[index] = np.where(accepted, value, judged[index])
    return accepted


def compare(
    got: Any,
    want: Any,
    tolerance: Tolerance | dict | None = None,
    *,
    flushed: Any = None,
    indeterminate: Any = None,
    nonfinite_either: bool = False,
    precise: Any = None,
    bound: Any = None,
    nan_input: Any = None,
    undefined: Any = None,
    saturated: Any = None,
    single: Any = None,
    unstable: Any = None,
    near: Any = None,
) -> Comparison:
    """Compare ``got`` with ``want`` (array-likes) under ``tolerance`` (a Tolerance,
    or overrides merged into the default for ``want``'s dtype).

    ``flushed``: what a backend that flushes subnormals computes (``want``'s shape and
    dtype; or a sequence of such expectations); an element matching it instead of
    ``want`` is accepted and counted in ``flushed``. ``indeterminate``: a boolean mask
    of elements the backend's semantics leave indeterminate (see
    ``nonfinite_expected``); they are not judged and are counted in ``masked``.
    Without both, judging is IEEE-strict.

    ``nonfinite_either``: accept NaN against an infinity (either way round; never
    under ``nan="forbid"``), counted in ``nonfinite_either``. For inputs made to
    reach NaN and Inf, where which one a computation reaches depends on its order and
    precision: an f32 product that underflows to 0 before meeting an Inf gives NaN
    where a float64 reference gives Inf.

    ``precise``: the reference computed in float64 and rounded to ``want``'s dtype; an
    element off ``want`` in value but within tolerance of it is accepted and counted in
    ``precise``: a single-rounding FMA where the reference rounds twice, under
    cancellation, is further from the reference than any tolerance allows and yet
    closer to the exact result.

    ``bound``: per element, the absolute error a correct computation in float may make
    beyond ``tolerance`` (``Expected.rounding_bound``: a long sum's rounding error); an
    element off in value by no more is accepted and counted in ``bounded``.

    ``nan_input``: a boolean mask (``nan_excused``) of elements that match what the
    reference gives with NaN inputs as missing values (``Expected.nan_alternatives``);
    an element off ``want`` there is accepted and counted in ``nan_input``: numpy's
    ``maximum``, ``max`` and ``argmax`` propagate NaN where IEEE 754-2008's maxNum,
    ``fmaxf`` and WGSL's ``max`` return the other operand, and both are right.

    ``undefined``: a boolean mask (``Expected.undefined_in_wgsl``) of elements that come
    from a builtin at arguments where the language defines no result (WGSL's
    ``atan2(0, 0)``); any value there is right, accepted and counted in ``undefined``.
    ``saturated``: the reference with its float-to-integer conversions saturated as
    the GPU makes them (``Expected.saturated_casts``); an element matching it instead
    of ``want`` is accepted and counted in ``saturated``. ``single``: the reference
    computed as float32 computes (``Expected.single``: a sequence of such runs); an
    integer element matching one instead of ``want`` is accepted and counted in
    ``single``. ``unstable``: a boolean mask of integer elements accepted as
    ill-conditioned (``Expected.unstable_integers``: the value is one the reference
    gives with its float operations rounded otherwise, chaotically, or one step off and
    the reference's in float64, ``Expected.widened_integers``), counted in ``unstable``.
    ``near``: a boolean mask of integer elements accepted as another index than the
    reference's argmin or argmax whose value is within a float computation's rounding of
    the chosen one (``Expected.near_choices``), counted in ``near``."""
    got, want = np.asarray(got), np.asarray(want)
    tol = default_tolerance(want.dtype).merged(tolerance)
    shapes = (tuple(got.shape), tuple(want.shape))
    dtypes = (dtype_name(got.dtype), dtype_name(want.dtype))
    base: dict[str, Any] = dict(tolerance=tol, shape=shapes, dtype=dtypes)
    if shapes[0] != shapes[1]:
        return Comparison(False, reason="shape", **base)
    if got.dtype != want.dtype:
        return Comparison(False, reason="dtype", **base)
    if want.dtype.kind not in "iub" and not is_float_dtype(want.dtype):
        raise InvalidArgument(f"compare handles float, integer and bool arrays, got {want.dtype}")
    skip = (
        np.zeros(want.size, bool)
        if indeterminate is None
        else _same_layout("indeterminate", np.asarray(indeterminate), want, np.dtype(bool))
    )
    g, w, kinds, finite, abs_err, rel_err, ulp = _judge(got.reshape(-1), want.reshape(-1), tol)
    judged = [w, finite, abs_err, rel_err, ulp]
    # An element off ``want`` may be accepted on a second expectation, and is then
    # measured against it: computed with subnormals flushed (any mismatch), or in
    # float64 (a mismatch in value only).
    use_flushed = np.zeros(g.shape, bool)
    for alternative in flushed if isinstance(flushed, (list, tuple)) else (flushed,):
        use_flushed |= _accept_alternative(
            "flushed", alternative, g, want, tol, kinds, kinds != 0, skip, judged
        )
    use_precise = _accept_alternative(
        "precise", precise, g, want, tol, kinds, kinds == _VALUE, skip, judged
    )
    use_saturated = _accept_alternative(
        "saturated", saturated, g, want, tol, kinds, kinds != 0, skip, judged
    )
    use_single = np.zeros(g.shape, bool)
    for alternative in single if isinstance(single, (list, tuple)) else (single,):
        use_single |= _accept_alternative(
            "single", alternative, g, want, tol, kinds, kinds != 0, skip, judged
        )
    w, finite, abs_err, rel_err, ulp = judged
    use_bound = np.zeros(g.shape, bool)
    if bound is not None:
        limit = _same_layout("bound", np.asarray(bound), want, np.dtype(np.float64))
        with np.errstate(invalid="ignore"):
            use_bound = (kinds == _VALUE) & ~skip & (abs_err <= limit)
        kinds[use_bound] = 0
    excused = np.zeros(g.shape, bool)
    if nan_input is not None:
        excused = (
            (kinds != 0)
            & ~skip
            & _same_layout("nan_input", np.asarray(nan_input), want, np.dtype(bool))
        )
        kinds[excused] = 0
    anything = np.zeros(g.shape, bool)
    if undefined is not None:
        where = _same_layout("undefined", np.asarray(undefined), want, np.dtype(bool))
        anything = (kinds != 0) & ~skip & where
        kinds[anything] = 0
    moved = np.zeros(g.shape, bool)
    if unstable is not None:
        where = _same_layout("unstable", np.asarray(unstable), want, np.dtype(bool))
        moved = (kinds != 0) & ~skip & where
        kinds[moved] = 0
    chose = np.zeros(g.shape, bool)
    if near is not None:
        where = _same_layout("near", np.asarray(near), want, np.dtype(bool))
        chose = (kinds != 0) & ~skip & where
        kinds[chose] = 0
    either = np.zeros(g.shape, bool)
    if nonfinite_either and w.dtype.kind == "f" and tol.nan != "forbid":
        with np.errstate(invalid="ignore"):
            swapped = np.isnan(g) != np.isnan(w)  # one NaN, the other an infinity
            either = (kinds != 0) & ~np.isfinite(g) & ~np.isfinite(w) & swapped & ~skip
        kinds[either] = 0
    kinds[skip] = 0
    accepted_apart = excused | anything | moved | chose  # judged by another expectation or none
    finite = finite & ~skip & ~accepted_apart
    abs_err, rel_err, ulp = (
        np.where(skip | accepted_apart, np.zeros((), a.dtype), a) for a in (abs_err, rel_err, ulp)
    )
    counts = dict(
        masked=int(skip.sum()),
        flushed=int(use_flushed.sum()),
        nonfinite_either=int(either.sum()),
        precise=int(use_precise.sum()),
        bounded=int(use_bound.sum()),
        nan_input=int(excused.sum()),
        undefined=int(anything.sum()),
        saturated=int(use_saturated.sum()),
        single=int(use_single.sum()),
        unstable=int(moved.sum()),
        near=int(chose.sum()),
    )
    return _comparison(got.shape, g, w, kinds, finite, (abs_err, rel_err, ulp), counts, base)


def _comparison(
    shape: tuple,
    g: np.ndarray,
    w: np.ndarray,
    kinds: np.ndarray,
    finite: np.ndarray,
    errors: tuple[np.ndarray, np.ndarray, np.ndarray],
    counts: dict,
    base: dict,
) -> Comparison:
    """The ``Comparison`` of judged elements: each element's mismatch kind (0: matched),
    its errors, and the counts of what was accepted or masked on the way."""
    abs_err, rel_err, ulp = errors
    value_bad = kinds == _VALUE
    bad = np.flatnonzero(kinds)
    args = (shape, g, w)
    first = tuple(_mismatch(i, *args, kinds[i], abs_err, rel_err, ulp) for i in bad[:_SHOWN])
    largest = tuple(
        _mismatch(i, *args, _VALUE, abs_err, rel_err, ulp)
        for i in _largest(value_bad if value_bad.any() else finite & (abs_err > 0), abs_err, ulp)
    )
    histogram = {"ulp": log2_histogram(ulp, finite), "rel": log2_histogram(rel_err, finite)}
    return Comparison(
        passed=bad.size == 0,
        count=int(g.size),
        mismatches=int(bad.size),
        histogram=histogram,
        nonfinite_mismatches=int(bad.size - value_bad.sum()),
        max_abs=float(abs_err.max(initial=0.0)),
        max_rel=float(rel_err.max(initial=0.0)),
        max_ulp=int(ulp.max(initial=0)),
        first_mismatches=first,
        largest=largest,
        spread=tuple(int(i) for i in bad[:: max(1, -(-bad.size // _SPREAD))]),
        **counts,
        **base,
    )

"""What a kernel must compute: its numpy reference run on a case, checked before it
may judge anything.

A reference may write its outputs in place or return them (an array, or a tuple in
output order) when their shapes and dtypes match. Anything else (a returned value of
the wrong shape or dtype, an output element left unwritten, nothing written and
nothing returned, an exception) raises ``ReferenceFailed`` naming the output and the
fix, which the oracle reports as the verdict ``reference-error``: a broken reference
never produces a pass.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
import threading
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import numpy as np

from forge.errors import InvalidArgument, ReferenceFailed
from forge.kernel import Access, KernelSpec, RawBody

from ._compare import flush_subnormals, flushing
from ._inputs import POISON_OUTPUT, Case, buffer_label, largest_array, poison

__all__ = ["Expected", "expected_outputs", "poisoned", "unwritten_mask", "NUMPY_REFERENCE"]

#: How the numpy reference is named in reports.
NUMPY_REFERENCE = "numpy"


def poisoned(dtype: np.dtype, count: int, pattern=POISON_OUTPUT) -> np.ndarray:
    """``count`` elements of a logical ``dtype`` (scalar, sub-array or struct) with
    every scalar lane holding the poison pattern."""
    fields = dtype.fields
    if dtype.names and fields is not None:
        out = np.zeros(count, dtype)
        for name in dtype.names:
            out[name] = poisoned(fields[name][0], count, pattern)
        return out
    if dtype.subdtype is not None:
        base, shape = dtype.subdtype
        return poison(base, count * int(np.prod(shape)), pattern).reshape((count, *shape))
    return poison(dtype, count, pattern)


def _lanes_equal(array: np.ndarray, marker: np.ndarray) -> np.ndarray:
    """Per element, whether any scalar lane holds exactly ``marker``'s bits."""
    if array.dtype.names:
        found = np.zeros(array.shape[:1], bool)
        for name in array.dtype.names:
            found |= _lanes_equal(array[name], marker[name])
        return found
    width = array.dtype.base.itemsize
    bits = array.reshape(array.shape[0], -1).view(np.dtype(f"u{width}"))
    mark = marker.reshape(marker.shape[0], -1).view(np.dtype(f"u{width}"))
    return (bits == mark).any(axis=1)


def leaves(label: str, array: np.ndarray) -> Iterator[tuple[str, np.ndarray]]:
    """The scalar lanes of a logical array, flat: itself for scalars, every lane of a
    vector or array element, each field of a struct (``label.field``)."""
    if array.dtype.names:
        for name in array.dtype.names:
            yield from leaves(f"{label}.{name}", array[name])
    else:
        yield label, array.reshape(-1)


def _leaf_outputs(outputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``outputs`` with each struct output as its fields' leaves (``label.field``,
    flat), what the judge compares and the bounds are keyed by; the rest as they are."""
    flat: dict[str, np.ndarray] = {}
    for label, array in outputs.items():
        if np.asarray(array).dtype.names:
            flat.update(leaves(label, np.asarray(array)))
        else:
            flat[label] = array
    return flat


def unwritten_mask(array: np.ndarray, pattern=POISON_OUTPUT) -> np.ndarray:
    """Per element of ``array`` (logical), whether a lane still holds the poison."""
    if array.size == 0:
        return np.zeros(0, bool)
    return _lanes_equal(array, poisoned(array.dtype, array.shape[0], pattern))


@dataclass(frozen=True)
class Expected:
    """The reference's outputs for a case (logical values by output label), computed
    once and shared by every backend and schedule judged on it. ``reference`` says
    what computed them (the numpy reference, or a backend in a port check).
    ``recompute(case)`` gives the same reference's expectation for another case (the
    further input sets of the same problem); None: the truth's numpy reference."""

    case: Case
    truth: KernelSpec
    outputs: dict[str, np.ndarray]
    reference: str
    semantics_of_reference: Any = None
    reference_backend: str | None = None
    recompute: Any = field(default=None, repr=False, compare=False)
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def flushed(self) -> dict[str, np.ndarray]:
        """What a device that flushes subnormals computes: the reference run on the
        inputs with subnormals flushed to zero (sign kept), its subnormal results
        flushed too. Computed on first use, then shared like ``outputs``."""
        if "flushed" not in self._cache:
            self._cache["flushed"] = _flushed_outputs(self)
        return self._cache["flushed"]

    def flushed_operations(self) -> dict[str, np.ndarray]:
        """The same device seen through its operations: the reference run with every
        float operand and result of its numpy operations below the smallest normal
        flushed (``oracle._compare.FlushingArray``), while bits read through a view
        stay (``x * 0.5`` of a tiny x is 0, its ``bitcast`` is not). A second
        expectation beside ``flushed`` (an argmax over a row of subnormals, no numpy
        operation, matches that one). Computed on first use."""
        if "flushed_operations" not in self._cache:
            self._cache["flushed_operations"] = _flushed_outputs(self, operations=True)
        return self._cache["flushed_operations"]

    def precise(self) -> dict[str, np.ndarray] | None:
        """The numpy reference run with its float inputs widened to float64 and its
        results rounded back to each output's dtype: a more accurate computation of the
        same function, which an element off the reference may match instead (an FMA,
        another order of operations, under cancellation). None for a backend's
        reference, a reference that fails in float64, or results straying from the
        reference's beyond tolerance in more than 1% of elements (then float64 changes
        what it means). Computed on first use, then shared."""
        if "precise" not in self._cache:
            self._cache["precise"] = _precise_outputs(self)
        return self._cache["precise"]

    def nan_alternatives(self) -> dict[str, list[np.ndarray]]:
        """Per output whose expectation depends on a non-finite input, what the
        reference gives when NaNs are missing values, as IEEE 754-2008's minNum and
        maxNum treat them: the reference run again with every NaN of the drawn float
        inputs replaced by -inf (what a max that drops NaN sees), then by +inf (a min),
        and run with numpy's min and max replaced by their NaN-dropping twins
        (``oracle._builtins.nan_dropping``: a NaN the kernel makes, inf - inf, meets a
        max too). numpy's ``maximum``, ``max`` and ``argmax`` propagate NaN; C's
        ``fmaxf`` and WGSL's ``max`` return the other operand, and a right kernel may do
        either. And run with a zero times Inf or NaN made zero
        (``oracle._builtins.zeros_annihilating``): a reference that pads with zeros and
        multiplies them in is NaN where a kernel that skips the padded taps is finite.
        Empty where every input is finite or the reference is a backend.
        Computed on first use."""
        if "nan_alternatives" not in self._cache:
            self._cache["nan_alternatives"] = _nan_alternatives(self)
        return self._cache["nan_alternatives"]

    def undefined_in_wgsl(self, flushed: bool = False) -> dict[str, np.ndarray]:
        """Per output, the elements that come from a WGSL builtin at arguments where
        WGSL defines no result and numpy does (``atan2(0, 0)``, ``pow`` of a negative
        base: ``oracle._builtins.undefined_in_wgsl``): those the reference changes when
        such calls give NaN or other values. With ``flushed``, on the inputs with
        subnormals flushed, as a device that flushes them sees them (a Sobel gradient of
        a subnormal image is atan2(0, 0) there). Empty where the kernel's WGSL calls
        none, or the reference is a backend. Computed on first use."""
        key = ("undefined", flushed)
        if key not in self._cache:
            self._cache[key] = _undefined_outputs(self, flushed)
        return self._cache[key]

    def divided_by_zero(self, wgsl: bool = False) -> dict[str, tuple[Any, np.ndarray]]:
        """Per output, (values, where): ``where`` the elements that depend on an integer
        division by zero in the reference, which numpy does not define (it warns, and
        gives 0 or an infinity; ``oracle._builtins.dividing_by_zero``), and ``values``
        None (CUDA C++ leaves them undefined too: any value is right) or, with ``wgsl``,
        the reference run with WGSL's values there (the dividend, 0 for a remainder).
        Empty where the reference makes none, or is a backend. Computed on first use."""
        key = ("by_zero", wgsl)
        if key not in self._cache:
            self._cache[key] = _divided_by_zero_outputs(self, wgsl)
        return self._cache[key]

    def unstable_integers(self, wgsl: bool = False) -> dict[str, Unstable]:
        """Per integer output (a struct's integer field as ``label.field``) whose value
        moves with the rounding of the reference's float operations (an escape count of
        an iteration, an index from a comparison near a tie), an ``Unstable``: the
        elements that move, the bits any run flipped in each, those that move between two
        values alone, and the least and the most value each takes over the
        reference and its runs in its own precision with every inexact float result one
        ulp off (``nudging_every_operation``, in ``_operation_rounding``'s patterns and
        at random; on WGSL a quotient too). Empty where none moves, or the reference is
        a backend. Computed on first use."""
        key = ("unstable", wgsl)
        if key not in self._cache:
            self._cache[key] = _unstable_integer_outputs(self, wgsl)
        return self._cache[key]

    def widened_integers(self) -> dict[str, np.ndarray]:
        """Per integer output (flat, by the judge's labels), what the reference gives run
        in float64 throughout (``oracle._builtins.widening_every_operation``), where
        that differs from the reference: the side of a float-to-integer cast the real
        numbers fall on, where the reference's own float32 rounding lands on the
        boundary (a device that fuses a multiply-add lands on the other side). Empty
        where none differs, or the reference is a backend. Computed on first use."""
        if "widened" not in self._cache:
            self._cache["widened"] = _widened_integer_outputs(self)
        return self._cache["widened"]

    def near_choices(self) -> dict[str, Choices]:
        """Per integer output (a struct's field as ``label.field``) that holds the
        reference's ``argmin`` or ``argmax`` over values it computes with cancelling
        terms (a distance as ``sum((x - c)**2)``), what it chose among and how far a
        float32 computation of each value may be off (``Choices``): another index within
        that of the chosen one is right. Empty where none is, or the reference is a
        backend. Computed on first use."""
        if "choices" not in self._cache:
            self._cache["choices"] = _near_choices(self)
        return self._cache["choices"]

    def saturated_casts(self, wgsl: bool = False) -> dict[str, np.ndarray]:
        """Per integer output that differs from it, the reference run with its float to
        integer conversions saturated as the GPU makes them (``wgsl``: WGSL's bounds;
        ``oracle._builtins.saturating_casts``): numpy's are undefined out of range, and
        ``(x * 255).astype(np.uint32)`` wraps a negative x where a GPU gives 0. Empty
        where no output differs, or the reference is a backend. Computed on first use."""
        key = ("saturated", wgsl)
        if key not in self._cache:
            self._cache[key] = _saturated_outputs(self, wgsl)
        return self._cache[key]

    def single(self, stage: int = 0) -> dict[str, list[np.ndarray]]:
        """Per integer output (or struct output with integer fields) that a float32
        computation may decide otherwise, what the reference gives computed as float32
        computes, in stages of growing cost (0 to ``SINGLE_STAGES - 1``): 0, every float
        result of its operations rounded to float32 (``in_single_precision``), and so
        but for its products, as a device that fuses ``a * b + c`` computes
        (``contracted``); then each
        moved by a float32 rounding (a sum by its rounding bound), 1: up and down by the
        bits of its index (``IndexBit``, 24 runs), 2: down at one residue of its index
        modulo 2, 4, 8 and 16 and up elsewhere (``IndexResidue``, 30 runs); 3: only its
        inexact quotients moved, each both ways by WGSL's 2.5 ulp, also those it
        computes in float32 or in numpy scalars (2 runs). A float64
        reference tells apart values that float32 rounds to one, or nearly: an argmin
        over distances equal to a few float32 roundings, where a float32 kernel may take
        either. Only for a case with float inputs of float32 or narrower; each stage
        computed on first use."""
        key = ("single", stage)
        if key not in self._cache:
            self._cache[key] = _single_outputs(self, stage)
        return self._cache[key]

    def trig_bound(self, absolute: float = 0.0) -> dict[str, np.ndarray]:
        """Per float output, how far a right float32 kernel's results may move through
        what it computes from sin, cos and tan: their arguments rounded in float32, and
        their values off by ``absolute`` (WGSL lets them err by 2**-11): 2.5 times the
        most the float64 reference moves when they are, at random, in 12 draws
        (``oracle._builtins.trig_erring``). Empty where the reference calls none, or is
        a backend. Computed on first use."""
        key = ("trig", absolute)
        if key not in self._cache:
            self._cache[key] = _trig_bounds(self, absolute)
        return self._cache[key]

    def builtin_erring(self) -> dict[str, list[np.ndarray]]:
        """Per integer output (or struct output with integer fields), what the reference
        gives (in its own precision) with numpy's counterparts of the trigonometric
        builtins the kernel's WGSL calls off by what WGSL allows them, at random per
        element, in a few runs: a bin chosen by an angle within atan2's 4096 ulp of its
        edge may be either. Empty where the kernel calls none, the reference names none,
        or is a backend. Computed on first use."""
        if "builtin_erring" not in self._cache:
            found: dict[str, list[np.ndarray]] = {}
            for run in _builtin_erring_runs(self):
                for label, out in run.items():
                    want, out = self.outputs.get(label), np.asarray(out)
                    if want is None:
                        continue
                    out = out if out.dtype.names else out.astype(want.dtype)
                    if _integers_differ(want, out):
                        found.setdefault(label, []).append(out)
            self._cache["builtin_erring"] = found
        return self._cache["builtin_erring"]

    def fp8_roundings(self) -> dict[str, list[np.ndarray]]:
        """Per one-byte float output (FP8), the two codes a right kernel may give: the
        reference's value before its FP8 rounding (``before_fp8_rounding``, in float64)
        moved down and up by ``FP8_COMPUTE_ERROR`` of itself, each rounded as numpy
        rounds. They differ from the reference only near a tie between two codes, where
        a float32 computation may land on either. Empty where that run fails or does
        not change what is rounded. Computed on first use."""
        if "fp8" not in self._cache:
            self._cache["fp8"] = _fp8_roundings(self)
        return self._cache["fp8"]

    def inverse_trig_bound(self) -> dict[str, np.ndarray]:
        """Per float output, how far a right float32 kernel's results may move through
        what it computes from WGSL's atan, atan2, asin and acos: the most the float64
        reference moves, in 12 draws, with numpy's counterparts off by what WGSL allows
        each of them (``oracle._builtins.inverse_trig_error``: 4096 ULP, and what asin
        and acos inherit from their formula), at random per element; zero at the
        elements none reaches. Taken as it is (no factor): each draw moves an element
        reached by one such call by all WGSL allows it. Empty where the reference calls
        none, or is a backend. Computed on first use."""
        if "inverse_trig" not in self._cache:
            self._cache["inverse_trig"] = _inverse_trig_bounds(self)
        return self._cache["inverse_trig"]

    def input_rounding_bound(self, unit: float) -> dict[str, np.ndarray]:
        """Per float output, how far a right kernel's results may move where it rounds
        each float input to a narrower precision before it multiplies (TF32 tensor
        cores: by less than ``unit`` = 2**-10 of itself, toward zero where it
        truncates): 5 times the root mean square of how far the float64 reference moves
        with its drawn float inputs moved by ``unit`` relative in random directions, in
        12 draws, and at least how far it moves with them all moved toward zero. Empty
        where the reference is a backend. Computed on first use."""
        key = ("inputs", unit)
        shared = self.shared()
        if key not in shared:
            shared[key] = _input_rounding_bounds(self, unit)
        return shared[key]

    def filtering_bound(self, codes: bool = False) -> dict[str, np.ndarray]:
        """Per float output of a kernel that reads a texture through a linear sampler,
        how far a right kernel's results may move through the precision of the
        filter's weights, which WebGPU leaves to the implementation and NVIDIA's
        texture units hold with ``forge.textures.FILTER_WEIGHT_BITS`` (8) bits of
        fraction (``_filtering_bounds``); with ``codes``, also on an adapter that
        rounds each blend of 8-bit unorm texels to a code (llvmpipe,
        ``forge.textures.filters_in_codes``). Empty for a kernel with no linear
        sampler, or a backend's reference. Computed on first use, then shared."""
        shared = self.shared()
        key = ("filtering", codes)
        if key not in shared:
            shared[key] = _filtering_bounds(self, codes)
        return shared[key]

    def filtered_runs(self, codes: bool = False) -> dict[str, list[np.ndarray]]:
        """Per integer output (or struct output with integer fields) of a kernel that
        reads a texture through a linear sampler, and whose reference samples through
        ``forge.textures.sample``, what the reference gives with the filter's weights
        rounded to 8 bits down, up, to nearest and as NVIDIA rounds them, and with
        ``codes`` as llvmpipe blends 8-bit unorm texels (``filtering_bound``'s runs,
        kept as the reference's own dtypes): a byte truncated from a sum of reads that
        a right device filters so is as right (cuda-samples' box filter packs such
        bytes). Only those that differ from the reference; empty otherwise. Computed
        on first use, shared."""
        shared = self.shared()
        key = ("filtered runs", codes)
        if key not in shared:
            shared[key] = _filtered_runs(self, codes)
        return shared[key]

    def rounding_bound(self, wgsl: bool = False, one_way: bool = False) -> dict[str, np.ndarray]:
        """Per float output with elements that are sums of products of the inputs (a
        polynomial of degree at most 4 in them, as a matmul, a row sum, a convolution,
        a dot product, a GEMM with beta or a linear layer with its bias is), the absolute
        error a correct float32 (or float64) computation of each element may make: the
        rounding error of summing its terms in another order (``_rounding_bounds``).
        Every element also gets how far the reference moves with its inputs nudged and
        its operations rounded the other way (exp, softmax's quotient, a resize's
        sample coordinates get only that). ``wgsl``: the
        reference's conversions to float16 may round either way, as WGSL's may. A struct
        output's float fields are keyed as the judge names them (``label.field``, flat).
        Computed on first use, then shared. ``one_way``: the sums are accumulated on
        tensor cores, whose roundings do not average out (``accumulates_on_tensor_cores``):
        a sum of k terms in all gets ``k u M``."""
        from ._builtins import approximated_calls, divides_exactly

        # the reference's exp and log where the kernel's are WGSL's or CUDA's fast ones,
        # as far as those may err: part of the key, as the runs are shared by kernels of
        # one reference (a mutant's source); so is whether its quotients are IEEE's
        target = "wgsl" if wgsl else "cuda"
        approximate = approximated_calls(self.case.kernel, target)
        exact = divides_exactly(self.case.kernel, target)
        key = ("bound", wgsl, one_way, approximate, exact)
        shared = self.shared()
        if key not in shared:
            shared[key] = _rounding_bounds(self, wgsl, one_way, approximate, exact)
        return shared[key]

    def float64_leaves(self) -> dict[str, np.ndarray]:
        """Per float output (a struct's float field as ``label.field``), flat: the numpy
        reference's own float64 run (``_own_float64_run``), which the rounding bounds
        move away from. Empty where there is none."""
        from forge.types import is_float_dtype

        plain = _own_float64_run(self)
        if plain is None:
            return {}
        wants = _leaf_outputs(self.outputs)
        found = {}
        for label, run in _leaf_outputs(plain).items():
            want = wants.get(label)
            if want is not None and is_float_dtype(want.dtype) and np.size(run) == want.size:
                found[label] = np.asarray(run, np.float64).reshape(-1)
        return found

    def shared(self) -> dict:
        """Where results that depend only on the case and the reference are kept (the
        float64 runs and the bounds drawn from them, which never read the kernel's
        source): one store for every kernel judged on the same case against the same
        reference (``_SharedRuns``), this expectation's own where it has no such twin."""
        if "shared" not in self._cache:
            self._cache["shared"] = _SHARED_RUNS.store(self)
        return self._cache["shared"]


# The kernel's fields that never reach the reference's runs: a kernel differing from
# another only in these (a mutant, a tune's variant with its own source) is judged on
# the same float64 runs. Every other field must be the same in both (``_same``).
_SOURCE_FIELDS = frozenset(
    {"id", "sources", "description", "tags", "version", "options", "include_dirs", "defines"}
)
# Cases of at most this many elements in all are shared (a bound of a 4096 x 32768
# output is a gigabyte of float64; these hold a few of 8 MB), and this many are kept.
_SHARED_ELEMENTS = 1 << 20
_SHARED_CASES = 4


class _SharedRuns:
    """The float64 runs of the reference and the bounds drawn from them, shared by the
    expectations of kernels judged on one case against one reference. A wrong kernel is
    where they are needed (before it fails, the judge asks how far a right one could
    be off: 27 runs of the reference), and the kernels judged on one case in a row are
    often many: the mutants of a test corpus (the float64 runs were four fifths of a
    failing boids mutant's 11.7 s on lavapipe, 2026-12-06), a tune's variants, the
    kernels of one file against one reference. Found by the same input bytes
    (``Case.input_hash``), the same reference function (by identity) and every other
    field of both kernels that can reach it the same (``_same``: the same object or an
    equal plain value; ``_SOURCE_FIELDS`` aside);
    the last ``_SHARED_CASES`` cases are kept, and none larger than ``_SHARED_ELEMENTS``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: list[tuple[tuple, dict]] = []

    @staticmethod
    def _identity(expected: Expected) -> tuple | None:
        case = expected.case
        if not case.input_hash or sum(np.size(a) for a in case.arrays.values()) > _SHARED_ELEMENTS:
            return None
        fields = tuple(
            getattr(kernel, f.name)
            for kernel in (case.kernel, expected.truth)
            for f in dataclasses.fields(kernel)
            if f.name not in _SOURCE_FIELDS
        )
        # the hash covers the size, the seed, the input set and every byte
        keys = (case.input_hash, expected.reference, expected.reference_backend)
        return (*keys, expected.truth.reference, *fields)

    def store(self, expected: Expected) -> dict:
        identity = self._identity(expected)
        if identity is None:
            return {}
        with self._lock:
            for i, (known, found) in enumerate(self._entries):
                if len(known) == len(identity) and all(map(_same, known, identity)):
                    self._entries.append(self._entries.pop(i))  # most recent last
                    return found
            found = {}
            self._entries = [*self._entries[-(_SHARED_CASES - 1) :], (identity, found)]
            return found


_SHARED_RUNS = _SharedRuns()


def _same(a: Any, b: Any) -> bool:
    """Whether two fields of kernels are the same for the reference's runs: the same
    object, equal plain values (a ``dataclasses.replace`` copies the tuples and dicts
    it normalises; their functions still compare by identity), or two raw bodies
    (hand-written sources: what they hold beside them is compared as fields)."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, RawBody):
        return True
    if isinstance(a, (str, int, float, tuple, dict, frozenset)):
        try:
            return bool(a == b)
        except Exception:  # noqa: BLE001 - an array inside: not known to be the same
            return False
    return False


# At most this share (or two elements) of a faithful float64 run's results may stray
# from the reference's beyond its tolerance (cancellation is rare in drawn inputs); more
# means the reference does not mean the same thing in float64 (bit tricks, dtype-bound
# arithmetic), and the run is not used.
_PRECISE_STRAY = 0.01


# A float input may begin with sizes its reference reads back (``int(a[0])``: Chrome's
# GPU Compute matrix product keeps (rows, columns) as a buffer's first two floats, round
# 56): a run that moves them makes the reference raise, and left the kernel with no
# bound. Such a run is tried again with up to this many leading elements of each moved
# float input kept as drawn, the fewest that let it run, found once for a case.
_MOST_HELD = 8
_HELD = "held"  # the key of that count in ``Expected.shared()``


def _float64_run(
    expected: Expected,
    transform: Any = None,
    *,
    scalars: bool = False,
    truth: Any = None,
    only: str | None = None,
) -> dict[str, np.ndarray] | None:
    """The numpy reference run with every float buffer widened to float64 and the drawn
    inputs (``only`` that one) passed through ``transform`` (None: as drawn; that run
    is kept for the next asker), and with ``scalars`` the uniform's float fields too;
    each buffer by label; None where the reference fails so (one bound to its dtypes).
    Where the moved inputs make it fail, the leading elements of each moved float
    array that the case's runs keep as drawn (``_MOST_HELD``) stay so."""
    own = truth is None  # the reference itself (else a variant of it, not kept)
    shared = expected.shared()
    if transform is None and own and "float64" in shared:
        return shared["float64"]
    found = _run_moved(expected, transform, scalars, truth, only, shared.get(_HELD, 0))
    if found is None and transform is not None and _HELD not in shared:
        shared[_HELD] = 0  # searched once for the case, found or not
        for held in range(1, _MOST_HELD + 1):
            found = _run_moved(expected, transform, scalars, truth, only, held)
            if found is not None:
                shared[_HELD] = held
                break
    if transform is None and own:
        shared["float64"] = found
    return found


def _run_moved(
    expected: Expected, transform: Any, scalars: bool, truth: Any, only: str | None, held: int
) -> dict[str, np.ndarray] | None:
    """``_float64_run``'s run, the first ``held`` elements of each moved float array
    (not of a struct's fields) kept as drawn."""
    from forge.types import is_float_dtype

    case, truth = expected.case, truth or expected.truth
    arrays = reference_arrays(case, truth)
    found: dict[str, np.ndarray] | None = None
    with np.errstate(all="ignore"):  # signalling NaNs widen with a warning
        for i, (spec, array) in enumerate(zip(truth.buffers, arrays)):
            if spec.access is Access.UNIFORM and scalars and array.dtype.names:
                for name in array.dtype.names:
                    if is_float_dtype(array.dtype[name]):
                        array[name] = transform(array[name].astype(np.float64))
                continue
            if spec.access is Access.UNIFORM:
                continue
            label = buffer_label(spec)
            drawn = transform is not None and label in case.arrays and only in (None, label)
            if array.dtype.names is not None:
                arrays[i] = _wide_struct(array, transform if drawn else None)
            elif is_float_dtype(array.dtype):
                wide = array.astype(np.float64)
                if drawn:
                    moved = transform(wide)
                    kept = min(held, wide.size)
                    moved.reshape(-1)[:kept] = wide.reshape(-1)[:kept]
                    wide = moved
                arrays[i] = wide
        try:
            truth.run_reference(arrays, case.size, None)
            found = {buffer_label(s): a for s, a in zip(truth.buffers, arrays)}
        except Exception:  # noqa: BLE001 - a reference bound to its dtypes: no such run
            pass
    return found


def _wide_struct(array: np.ndarray, transform: Any = None) -> np.ndarray:
    """A buffer of structs with its float fields (and their lanes) as float64, each
    passed through ``transform`` (None: as they are): a particle's ``pos`` and ``vel``
    move in the bounds' runs as a float array's elements do. Fields of other types stay;
    a struct nested in a struct leaves the buffer as it is."""
    from forge.types import is_float_dtype

    names = array.dtype.names or ()
    if any(array.dtype[name].base.names for name in names):
        return array
    fields = [
        (name, np.float64 if is_float_dtype(base) else base, array.dtype[name].shape)
        for name in names
        for base in (array.dtype[name].base,)
    ]
    wide = np.zeros(array.shape, np.dtype(fields))
    for name in names:
        values = array[name]
        if is_float_dtype(values.dtype):
            values = values.astype(np.float64)
            values = transform(values) if transform is not None else values
        wide[name] = values
    return wide


def _own_float64_run(expected: Expected) -> dict[str, np.ndarray] | None:
    """The numpy reference's own float64 run (``_float64_run``), which the bounds move
    away from; None where the expectation is no numpy reference's or the run fails."""
    if expected.reference != NUMPY_REFERENCE or expected.truth.reference is None:
        return None
    return _float64_run(expected)


def _widens(expected: Expected) -> bool:
    """Whether running the reference in float64 changes any buffer's precision."""
    from forge.types import is_float_dtype

    case = expected.case
    dtypes = [
        case.arrays[buffer_label(s)].dtype if buffer_label(s) in case.arrays else s.dtype
        for s in expected.truth.buffers
        if s.access is not Access.UNIFORM
    ]
    return any(
        d.names is None and is_float_dtype(d) and d.itemsize < 8 for d in map(np.dtype, dtypes)
    )


def _precise_outputs(expected: Expected) -> dict[str, np.ndarray] | None:
    """The numpy reference run again with its float inputs widened to float64, each
    result rounded back to its output's dtype; None where that is no faithful, more
    precise run of the same function (see ``Expected.precise``)."""
    from ._compare import compare
    from ._tolerance import resolve_tolerance

    case, truth = expected.case, expected.truth
    if expected.reference != NUMPY_REFERENCE or truth.reference is None:
        return None
    wide = _float64_run(expected) if _widens(expected) else None
    if wide is None:
        return None
    outputs = {}
    for label, array in wide.items():
        want = expected.outputs.get(label)
        if want is None:
            continue
        if want.dtype.names is not None or array.shape != want.shape:
            return None
        with np.errstate(all="ignore"):
            rounded = array.astype(want.dtype)
        tolerance = resolve_tolerance(want.dtype, truth.tolerance_at(case.size), None, None)
        agreement = compare(rounded, want, tolerance, nonfinite_either=True)
        if agreement.mismatches > max(_PRECISE_STRAY * agreement.count, 2):
            return None
        outputs[label] = rounded
    return outputs


# How far a float sum of k terms may round: ``oracle._builtins.summed_growth``.
_MIN_TERMS = 4.0
# An element is a polynomial of degree <= 4 in the drawn inputs where the fifth finite
# difference of f(t * inputs), t = 0..5, vanishes up to float64's rounding of k terms.
_SCALES = (0.0, 1.0, 2.0, 3.0, 4.0, 5.0)
_FIFTH_DIFFERENCE = (-1.0, 5.0, -10.0, 10.0, -5.0, 1.0)
_POLYNOMIAL_SLACK = 1e-10  # times k * sum|term|: float64's rounding of the six runs


def _rounding_bounds(
    expected: Expected,
    wgsl: bool = False,
    one_way: bool = False,
    approximate: frozenset = frozenset(),
    exact_quotients: bool = False,
) -> dict[str, np.ndarray]:
    """``Expected.rounding_bound``: where an element of the reference is a sum of
    products of the drawn inputs (a polynomial of degree at most 4 in them: a matmul, a
    row sum, ``alpha * A @ B + beta * C``, ``x @ W + b``), the error a correct float
    computation of it may make. From the reference run in float64 on the inputs scaled
    by t = 0..5 (an element is such a sum where the fifth difference vanishes), on
    their magnitudes with the uniform's float scalars' (``M``: the sum of |term|) and
    on their squares with the scalars' (the sum of term**2, which with ``M`` gives the
    number of terms that count, ``k = M**2 / sum(term**2)``), the bound is
    ``min(max(8 * sqrt(k), 256), k) * u * M`` for k >= 4 (0 below, and 0 at elements that are no
    such sum), with ``u`` the unit roundoff of float32 (or of the output's dtype, if
    wider): sums are accumulated at least in float32 (``_summed_bounds``). Every
    element, a sum or not, also gets how far it moves with the inputs nudged
    (``_sensitivity``) and with each of the reference's float operations rounded the
    other way (``_operation_rounding``), whichever is more. An output with no element
    so bounded has no entry."""
    from forge.types import is_float_dtype

    plain = _own_float64_run(expected)
    if plain is None:
        return {}
    moved = _sensitivity(expected, plain)
    rounded = _operation_rounding(expected, plain, wgsl, approximate, exact_quotients)
    for label, change in rounded.items():
        moved[label] = np.maximum(moved.get(label, 0.0), change)
    # where the runs at scaled inputs fail (an input that is an index, as a RoIAlign's
    # batch column, is out of range times 2), no sum is bounded as one, but the
    # reference's roundings still bound every element: torchvision's RoIAlign, its
    # sample coordinates rounded once by an FMA on the H100, failed by 1.6e-6 against
    # the bound of 1.4e-5 it lost with the sums'
    summed = _summed_bounds(expected, plain, one_way)
    bounds = {}
    for label, want in _leaf_outputs(expected.outputs).items():
        if not is_float_dtype(want.dtype):
            continue
        parts = [b for b in (summed.get(label), moved.get(label)) if b is not None]
        bound = np.maximum.reduce([p for p in parts if p.size == want.size] or [np.zeros(1)])
        if bound.any():
            bounds[label] = bound.reshape(want.shape)
    return bounds


def _summed_bounds(expected: Expected, plain: dict, one_way: bool) -> dict[str, np.ndarray]:
    """Per float output, flat: the rounding error of each element that is a sum of
    products of the inputs (``_rounding_bounds``), 0 at the others. Empty where a run
    at scaled inputs fails."""
    from forge.types import float_info, is_float_dtype

    from ._builtins import summed_growth

    runs = _polynomial_runs(expected, plain)
    if runs is None:
        return {}
    scaled, magnitude_run, squares_run = runs
    # how many terms each sum has, all of them (the reference on inputs and scalars of
    # 1): a tensor core's truncations come one a step whatever the terms' sizes
    ones = _float64_run(expected, np.ones_like, scalars=True) if one_way else None
    counts = _leaf_outputs(ones) if ones is not None else None
    bounds = {}
    scaled = [_leaf_outputs(r) for r in scaled]
    magnitude_run, squares_run = _leaf_outputs(magnitude_run), _leaf_outputs(squares_run)
    for label, want in _leaf_outputs(expected.outputs).items():
        if not is_float_dtype(want.dtype):
            continue
        if any(label not in r for r in (*scaled, magnitude_run, squares_run)):
            continue
        values = [np.asarray(r[label], np.float64).reshape(-1) for r in scaled]
        # a reference that casts its result (``.astype(np.float32)``) rounds each run
        ulp = float(float_info(want.dtype).eps)
        magnitude = np.abs(np.asarray(magnitude_run[label], np.float64).reshape(-1))
        squares = np.asarray(squares_run[label], np.float64).reshape(-1)
        if any(v.size != want.size for v in (*values, magnitude, squares)):
            continue
        terms, growth = summed_growth(magnitude, squares)
        many = terms >= _MIN_TERMS
        if one_way:
            # tensor cores: roundings that may all go one way, counted over every
            # term whatever its size: a k-term sum's deterministic bound, k u M
            counted = counts.get(label) if counts is not None else None
            count = terms if counted is None else np.abs(np.asarray(counted, np.float64))
            count = count.reshape(-1) if count.size == want.size else terms
            growth = np.maximum(growth, count)
            # a few large terms among many small ones still take one truncation a step
            many = many | (count >= _MIN_TERMS)
        with np.errstate(all="ignore"):
            finite = np.isfinite(magnitude) & np.isfinite(squares) & np.isfinite(terms)
            for v in values:
                finite &= np.isfinite(v)
            fifth = sum(c * v for c, v in zip(_FIFTH_DIFFERENCE, values))
            largest = np.max(np.abs(values), axis=0)
            slack = _POLYNOMIAL_SLACK * np.maximum(terms, 1.0) * magnitude
            slack += 32 * ulp * largest
            polynomial = finite & (np.abs(fifth) <= slack)
        u = np.finfo(np.promote_types(want.dtype, np.float32)).eps / 2
        # none for fewer than 4 terms: a*x + y has one right rounding or two (an FMA)
        bounds[label] = np.where(polynomial & many, growth * u * magnitude, 0.0)
    return bounds


def _polynomial_runs(expected: Expected, plain: dict) -> tuple[list, dict, dict] | None:
    """The float64 runs ``_rounding_bounds`` reads: at the inputs times each of
    ``_SCALES``, at their magnitudes and at their squares. With the reference's float32
    names read as float64 (``widened``) where that runs and gives outputs of the same
    shapes: a reference that accumulates in an array it made float32 is otherwise no
    polynomial to the fifth difference. None where a run fails."""
    from ._builtins import widened

    def runs(truth: Any) -> tuple[list, dict, dict] | None:
        scaled = [
            _float64_run(expected, _times(t), truth=truth) if truth or t != 1.0 else plain
            for t in _SCALES
        ]
        magnitude = _float64_run(expected, np.abs, scalars=True, truth=truth)
        squares = _float64_run(expected, np.square, scalars=True, truth=truth)
        if magnitude is None or squares is None or any(r is None for r in scaled):
            return None
        return scaled, magnitude, squares

    wide = widened(expected.truth.reference) if expected.truth.reference else None
    if wide is not None:
        found = runs(replace(expected.truth, reference=wide))
        shapes = {k: np.shape(v) for k, v in plain.items()}
        if found is not None and all(
            {k: np.shape(v) for k, v in run.items()} == shapes for run in (*found[0], *found[1:])
        ):
            return found
    return runs(None)


# A backward-stable float32 computation of a function whose elements read rows of k
# values returns f at inputs off by about sqrt(k) * u, relative, each (a sum's rounding
# spread over its terms). The reference run in float64 at a few such perturbations shows
# how far each element moves; 4 times the farthest of 3 is accepted.
_SENSITIVITY_DRAWS = 3
_SENSITIVITY_FACTOR = 4.0


def _sensitivity(expected: Expected, plain: dict) -> dict[str, np.ndarray]:
    """Per float output, ``_SENSITIVITY_FACTOR`` times the largest change of each element
    of the float64 reference when every drawn float input moves by ``sqrt(k) * u``
    relative, in random directions: the error a correct float32 computation makes where
    an element depends on a cancelling sum (layernorm's ``x - mean`` where x is near
    the mean). k is how many inputs an element reads (``_fan_in``), at most the longest
    row of the inputs (1 without rows): an elementwise ``exp`` over rows reads one, and
    gets no more than its own rounding. Elements that are well conditioned move by a few
    ulp, well inside the tolerance."""

    from ._inputs import row_length

    case = expected.case
    k = max(
        [
            row_length(spec, case.arrays[buffer_label(spec)].shape[0], case.size)
            for spec in case.kernel.buffers
            if buffer_label(spec) in case.arrays and buffer_label(spec) not in expected.outputs
        ]
        or [1]
    )
    if k > 1:
        fan_in = _fan_in(expected, plain)
        if math.isfinite(fan_in):
            k = max(1, min(k, round(fan_in)))

    def run(rng):
        seed = int(rng.integers(2**32))
        full = _float64_run(expected, _nudged(np.random.default_rng(seed), k))
        half = _float64_run(expected, _nudged(np.random.default_rng(seed), k, 0.5))
        if full is None or half is None:
            return None
        return _without_jumps(expected, plain, full, half)

    return _most_moved(expected, plain, run, case.seed)


_JUMP_ULPS = 16  # a change that does not halve and is larger than this many ulp: a jump


def _without_jumps(expected: Expected, plain: dict, full: dict, half: dict) -> dict:
    """``full`` (a run at inputs nudged by a step) with each float element whose change
    does not halve at half the step (0.2 to 0.8 of it) put back at ``plain``: there the
    reference jumps (a floor, a comparison, an index taken from an input), and the
    kernel, which reads the same inputs, makes the same jump. A lookup through
    ``floor(x)`` got the distance to the neighbouring entry as its bound wherever x was
    a whole number (a ``ceil(x) - 1`` kernel, wrong exactly there, passed at 17 of its
    20 such elements)."""
    from forge.types import float_info

    kept = _leaf_outputs(full)
    plain, wants = _leaf_outputs(plain), _leaf_outputs(expected.outputs)
    halves = _changes(expected, plain, half)
    for label, change in _changes(expected, plain, kept).items():
        halved = halves.get(label)
        if halved is None:
            continue
        base = np.asarray(plain[label], np.float64).reshape(-1)
        with np.errstate(all="ignore"):
            smooth = (halved > 0.2 * change) & (halved < 0.8 * change)
            # a change of a few ulp does not halve either where the reference rounds
            # its result (.astype(np.float32)): only what is far above that is a jump
            eps = float(float_info(wants[label].dtype).eps)
            grain = _JUMP_ULPS * eps * np.abs(base)
        jumps = (change > grain) & ~smooth
        if jumps.any():
            there = np.asarray(kept[label], np.float64).reshape(-1).copy()
            there[jumps] = base[jumps]
            kept[label] = there
    return kept


_ROUNDING_FACTOR = 1.0
_ROUNDING_DRAWS = 8


def _operation_rounding(
    expected: Expected,
    plain: dict,
    wgsl: bool = False,
    approximate: frozenset = frozenset(),
    exact_quotients: bool = False,
) -> dict[str, np.ndarray]:
    """Per float output, the most each element of the
    float64 reference moves when every float result of its numpy operations (on its
    arrays and those it creates: ``arange``, ``linspace``) is off by one rounding of the
    narrowest float output's precision, at random (``rounding_every_operation``): the
    kernel rounds what it derives from no input too (a resize's sample coordinates);
    with ``approximate``, those numpy functions (exp, log) as far off as WGSL lets its
    builtins be; with ``exact_quotients`` (a CUDA kernel that divides as IEEE does,
    ``divides_exactly``), a quotient that is a float32 number stays: cuda-samples'
    ``roundf(coef / step)`` at a coefficient of (k + 1/2) steps is a tie, rounded away
    from zero, and moving the quotient by WGSL's 2.5 ulp there accepted a ``rintf``
    (halves to even) a whole step off (tests/test_wild_round80.py)."""
    from forge.types import float_info, is_float_dtype

    from ._builtins import RoundingPattern, rounding_every_operation

    floats = [o.dtype for o in _leaf_outputs(expected.outputs).values() if is_float_dtype(o.dtype)]
    if not floats or expected.truth.reference is None:
        return {}
    unit = float(float_info(min(floats, key=lambda d: d.itemsize)).eps) / 2

    def run(rng):
        rounding = rounding_every_operation(
            expected.truth.reference,
            rng,
            unit,
            either_f16=wgsl,
            approximated=approximate,
            exact_quotients=exact_quotients,
        )
        if rounding is None:
            return None
        return _float64_run(expected, truth=replace(expected.truth, reference=rounding))

    # each operation moved by a whole half-ulp (the most a correct rounding makes), not
    # amplified: an intermediate off by one ulp (a product rounded the wrong way) still
    # fails where the result cancels
    # and by pattern: random directions per element cancel where two roundings carry an
    # element the same way, or apart (a resize's x and y sample coordinates: a right
    # bilinear resize on lavapipe was off by 2.7e-5 against a bound of 1.6e-5 from
    # three random runs)
    # and in 8 random runs, not 3: an element that sums many moves (an attention
    # output, over its keys' scores) spreads as a normal variable, and in some element
    # of thousands all of 3 draws fall far inside it; all of 8 practically never do
    patterns = [RoundingPattern(bit) for bit in (None, 0, 1, 2)]
    return _most_moved(
        expected, plain, run, 23, factor=_ROUNDING_FACTOR, also=patterns, draws=_ROUNDING_DRAWS
    )


_FAN_IN_PROBES = 2  # single elements moved per input buffer


def _fan_in(expected: Expected, plain: dict) -> float:
    """How many input elements a float output element reads, on average: the float64
    reference run again with one element of a drawn float input moved (in its leading
    block of normal values), ``_FAN_IN_PROBES`` times per buffer; the outputs that
    change, times the buffer's element count, summed over the buffers and divided by
    the output elements. 1 for an elementwise kernel, about k for a row of k values
    normalised, 2k for a k-long matmul. Infinite where a run fails (no bound is lost)."""
    case = expected.case
    rng = np.random.default_rng([case.seed, 17])
    outputs = sum(
        np.asarray(plain[label]).size
        for label, want in expected.outputs.items()
        if label in plain and want.dtype.names is None and want.dtype.kind == "f"
    )
    pairs = 0.0
    for label, array in case.arrays.items():
        if label in expected.outputs or array.dtype.names is not None:
            continue
        if array.dtype.kind != "f" or array.size == 0:
            continue
        # the layout's blocks count scalars (a vec4 element's lanes each), as ``flat`` does
        blocks = case.layout.get(label, ())
        stop = blocks[0][2] if blocks and blocks[0][0] == "normal" else array.size
        moved_outputs = 0
        for _ in range(_FAN_IN_PROBES):
            position = int(rng.integers(0, max(1, min(stop, array.size))))

            def move_one(a: np.ndarray, position: int = position) -> np.ndarray:
                a = a.copy()
                flat = a.reshape(-1)
                flat[position] += max(abs(float(flat[position])), 1.0) * 2.0**-20
                return a

            moved = _float64_run(expected, move_one, only=label)
            if moved is None:
                return float("inf")
            changes = _changes(expected, plain, moved).values()
            moved_outputs += sum(int(np.count_nonzero(change)) for change in changes)
        pairs += moved_outputs / _FAN_IN_PROBES * array.size
    return pairs / outputs if outputs else float("inf")


# A builtin's error is drawn with a random sign per call: where an output combines a
# few such values (slerp's sin((1 - t) theta) / sin(theta)), their signs decide how far
# it moves, and 3 draws that happened to cancel at an element gave a hundredth of the
# worst (a right slerp failed on SwiftShader): 12 draws meet every sign pattern of three
# calls with odds of 0.8 or better (and each pattern's opposite, which moves as far).
# Over a long sum of such values the most of 12 draws is about 2.3 of their spread
# where the most of 3 was about 1.3: a factor of 2.5 on it keeps the 4 times the most
# of 3 that sin and cos were judged within before (an FFT stage's twiddle with pi
# written 3.14 is still caught).
_BUILTIN_DRAWS = 12
_BUILTIN_FACTOR = 2.5


def _trig_bounds(expected: Expected, absolute: float) -> dict[str, np.ndarray]:
    from ._builtins import trig_erring

    plain = _own_float64_run(expected)
    if plain is None:
        return {}

    def run(rng):
        erring = trig_erring(expected.truth.reference, rng, absolute)
        if erring is None:  # it calls none of them
            return None
        return _float64_run(expected, truth=replace(expected.truth, reference=erring))

    return _most_moved(expected, plain, run, 11, factor=_BUILTIN_FACTOR, draws=_BUILTIN_DRAWS)


#: How far a right kernel's value before its FP8 rounding may lie from the reference's:
#: a float32 computation of a few operations (a scale, a clamp), 16 float32 ulps. A
#: conversion that truncates, or rounds ties away, is off by a step far from any tie.
FP8_COMPUTE_ERROR = 2.0**-20


def _fp8_roundings(expected: Expected) -> dict[str, list[np.ndarray]]:
    from ._builtins import before_fp8_rounding

    narrow = {
        label: want
        for label, want in expected.outputs.items()
        if want.dtype.names is None and want.dtype.itemsize == 1 and want.dtype.kind not in "iub"
    }
    if not narrow or expected.reference != NUMPY_REFERENCE or expected.truth.reference is None:
        return {}
    twin = before_fp8_rounding(expected.truth.reference)
    if twin is None:
        return {}
    run = _float64_run(expected, truth=replace(expected.truth, reference=twin))
    if run is None:
        return {}
    found = {}
    for label, want in narrow.items():
        exact = np.asarray(run.get(label), np.float64)
        if exact.shape != want.shape:
            continue
        with np.errstate(all="ignore"):
            codes = [(exact * (1.0 + s * FP8_COMPUTE_ERROR)).astype(want.dtype) for s in (-1, 1)]
        found[label] = codes
    return found


def _inverse_trig_bounds(expected: Expected) -> dict[str, np.ndarray]:
    from ._builtins import trig_erring

    plain = _own_float64_run(expected)
    if plain is None:
        return {}

    def run(rng):
        erring = trig_erring(expected.truth.reference, rng, inverse=True)
        if erring is None:  # it calls none of them
            return None
        return _float64_run(expected, truth=replace(expected.truth, reference=erring))

    return _most_moved(expected, plain, run, 13, factor=1.0, draws=_BUILTIN_DRAWS)


# The input-rounding bound is judged at every element of large outputs (a GEMM's
# thousands): the most of 3 draws, per element, falls far below the spread somewhere
# (a right TF32 GEMM on the H200 failed at 1 of 6144 elements whose 3 draws all moved
# it by under 2% of their spread). 12 draws estimate each element's spread within a
# factor of 2 but for odds of about 1e-4, and 5 times their root mean square is far
# past what rounding, whose error per input is a third of the nudge's, ever reaches.
_INPUT_DRAWS = 12
_INPUT_FACTOR = 5.0


#: A linear filter's weight off by less than 2**-8 on each axis (``FILTER_WEIGHT_BITS``
#: of fraction, rounded or truncated) moves a bilinear read by less than
#: (2 * 2**-8 + 2**-16) times the spread of its four texels (the read is
#: ``sum w_ij t_ij``; each weight's change is a product of the axes' changes).
FILTER_READ_ERROR = 2.0 * 2.0**-8 + 2.0**-16
_FILTER_DRAWS = 8
_FILTER_FACTOR = 2.0


def _linearly_sampled(kernel: KernelSpec) -> list:
    """The read-only float textures of ``kernel`` that a linear sampler may read: each
    with a linear ``BufferSpec.sampler`` (CUDA), and every one where the kernel
    declares a linear WGSL sampler (which of its textures the WGSL samples with it is
    not followed)."""
    from forge.types import is_float_dtype

    wgsl = any(s.sampler.linear for s in getattr(kernel, "samplers", ()))
    return [
        b
        for b in kernel.buffers
        if b.texture is not None
        and b.access is Access.READ
        and is_float_dtype(b.dtype)
        and (wgsl or (b.sampler is not None and b.sampler.linear))
    ]


def _filtering_bounds(expected: Expected, codes: bool = False) -> dict[str, np.ndarray]:
    """``Expected.filtering_bound``. Where the reference samples through
    ``forge.textures.sample``, it is run again with the weights rounded to 8 bits of
    fraction down, up, to nearest and as NVIDIA's texture units round them (the
    fractions to nearest, then each of the four texels' weights again), and
    with ``codes`` also as llvmpipe filters 8-bit unorm texels (each blend of two
    rounded to a code): the bound is twice the most an element moves (NVIDIA's Vulkan
    driver's rgba8unorm reads lie up to 0.002 of a code off its model, 1.5 times the
    move of some: H100, 2026-12-07), zero where
    every read's weights are exact in 8 bits (texel centres, quarter texels) and no
    blend is rounded, so a kernel off there still fails. Otherwise (the reference
    filters by hand) each texel of a linearly sampled texture is moved by
    ``FILTER_READ_ERROR`` times the spread of its 3 x 3 neighbourhood (which holds
    every four-texel footprint it is read in), and with ``codes`` a texel of an 8-bit
    unorm texture not alone in its neighbourhood by one code more (llvmpipe's two
    roundings, half a code each): all up, all down, and in 8 random draws; the bound
    is twice the most an element moves, and at least 5 times the root mean square of
    the random moves. A read through the filter then moves by as much as the real
    error where the kernel combines reads with weights of one sign (a blur, a
    resample); a kernel that amplifies differences of reads is carried through as its
    reference amplifies the texels'."""
    kernel = expected.case.kernel
    textures = _linearly_sampled(kernel)
    if not textures or expected.reference_backend is not None:
        return {}
    plain = _own_float64_run(expected)
    if plain is None:
        return {}
    calls: list = []

    def rounded(mode: str) -> dict | None:
        with _filtering(mode, calls):
            return _float64_run(expected, lambda a: a)

    modes = _filter_modes(codes)
    found = _most_moved(expected, plain, rounded, 0, factor=2.0, also=modes, draws=0)
    if calls:
        return found
    bounds: dict[str, np.ndarray] = {}
    for spec in textures:
        label = buffer_label(spec)
        if label not in expected.case.arrays:
            continue

        in_codes = codes and spec.texture in _CODE_FORMATS

        def moved(sign, label=label, in_codes=in_codes):
            def move(a: np.ndarray) -> np.ndarray:
                spread = _local_spread(a)
                step = FILTER_READ_ERROR * spread
                if in_codes:
                    step = step + np.where(spread > 0, 1.0 / 255.0, 0.0)
                if isinstance(sign, float):
                    return a + sign * step
                return a + step * sign.choice((-1.0, 1.0), size=a.shape)

            return _float64_run(expected, move, only=label)

        for out, bound in _most_moved(
            expected,
            plain,
            moved,
            41,
            factor=_FILTER_FACTOR,
            also=(1.0, -1.0),
            draws=_FILTER_DRAWS,
            spread=_INPUT_FACTOR,
        ).items():
            bounds[out] = bounds.get(out, 0.0) + bound
    return bounds


#: Texture formats whose texels a code-filtering adapter blends in codes
#: (``forge.textures.CODE_FILTERING_ADAPTERS``): 8-bit unorm.
_CODE_FORMATS = frozenset({"rgba8unorm"})


def _filter_modes(codes: bool) -> tuple[str, ...]:
    """How ``forge.textures.sample`` filters in the runs behind the filtering bound:
    its weights rounded to 8 bits each way and as NVIDIA rounds them (the fractions,
    then the four texels' weights), and with ``codes`` as llvmpipe blends."""
    modes = ("floor", "ceil", "round", "products", "products_down", "products_up")
    return (*modes, "codes") if codes else modes


@contextlib.contextmanager
def _filtering(mode: str, calls: list) -> Iterator[None]:
    """``forge.textures.sample`` filtering by ``mode`` meanwhile, each call counted in
    ``calls``."""
    from forge.textures import _WEIGHTS

    token = _WEIGHTS.set((mode, calls))
    try:
        yield
    finally:
        _WEIGHTS.reset(token)


def _filtered_runs(expected: Expected, codes: bool) -> dict[str, list[np.ndarray]]:
    from ._builtins import in_single_precision

    truth = expected.truth
    if (
        expected.reference != NUMPY_REFERENCE
        or truth.reference is None
        or not _linearly_sampled(expected.case.kernel)
    ):
        return {}
    # each filter also with every float result rounded to float32 (``single``'s first
    # stage): a byte truncated from a sum of reads is decided by both; on llvmpipe also
    # moved by float32's roundings of what is made of its reads
    twins = [
        (reference, _filter_modes(codes))
        for reference in (truth.reference, in_single_precision(truth.reference))
    ]
    floats = _narrow_float_inputs(expected.case)
    if codes and floats:
        moved = _moved_twins(expected, truth.reference, floats, 1)
        twins += [(reference, ("codes",)) for reference in moved]
    found: dict[str, list[np.ndarray]] = {}
    for reference, modes in twins:
        for mode in modes:
            calls: list = []

            @functools.wraps(reference)
            def twin(
                *args: Any, _f: Any = reference, _mode: str = mode, _calls: list = calls, **kw: Any
            ) -> Any:
                with _filtering(_mode, _calls):
                    return _f(*args, **kw)

            outputs = _twin_run(expected, twin)
            if not calls:  # the reference filters by hand: nothing to round
                return {}
            for label, out in (outputs or {}).items():
                if label in expected.outputs and _integers_differ(expected.outputs[label], out):
                    found.setdefault(label, []).append(out)
    return found


def _local_spread(a: np.ndarray) -> np.ndarray:
    """Per texel of ``a`` (rows and columns first, channels after), the spread (largest
    less smallest finite value) of its channel over the 3 x 3 texels around it."""
    if a.ndim < 2:
        finite = a[np.isfinite(a)]
        return np.full(a.shape, float(np.ptp(finite)) if finite.size else 0.0)
    x = np.where(np.isfinite(a), a, np.nan)
    pad = [(1, 1), (1, 1)] + [(0, 0)] * (a.ndim - 2)
    padded = np.pad(x, pad, mode="edge")
    h, w = a.shape[:2]
    windows = [padded[i : i + h, j : j + w] for i in range(3) for j in range(3)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN window
        spread = np.nanmax(windows, axis=0) - np.nanmin(windows, axis=0)
    return np.nan_to_num(spread, nan=0.0, posinf=0.0)


def _input_rounding_bounds(expected: Expected, unit: float) -> dict[str, np.ndarray]:
    plain = _own_float64_run(expected)
    if plain is None:
        return {}

    def run(rng):
        return _float64_run(expected, _nudged(rng, 1, unit * 2.0**24))

    found = _most_moved(
        expected, plain, run, 31, factor=0.0, draws=_INPUT_DRAWS, spread=_INPUT_FACTOR
    )
    toward_zero = _float64_run(expected, _times(1.0 - unit))
    if toward_zero is None or not found:
        return {}
    for label, change in _changes(expected, plain, toward_zero).items():
        found[label] = np.maximum(found.get(label, 0.0), change)
    return found


def _most_moved(
    expected: Expected,
    plain: dict,
    run,
    seed: int,
    factor: float = _SENSITIVITY_FACTOR,
    also: Sequence[Any] = (),
    draws: int = _SENSITIVITY_DRAWS,
    spread: float = 0.0,
) -> dict[str, np.ndarray]:
    """Per float output, ``factor`` times the most each element of the float64
    reference ``plain`` moves in ``draws`` runs ``run(rng)`` (each with its own
    generator from ``seed``), then in ``run(a)`` for each of ``also``; and at least
    ``spread`` times the root mean square of its moves in the random runs. Empty where
    a run gives None."""
    found: dict[str, np.ndarray] = {}
    squares: dict[str, np.ndarray] = {}
    generators = [np.random.default_rng([draw, seed]) for draw in range(draws)]
    for i, argument in enumerate([*generators, *also]):
        moved = run(argument)
        if moved is None:
            return {}
        for label, change in _changes(expected, plain, moved).items():
            found[label] = np.maximum(found.get(label, 0.0), factor * change)
            if i < draws:
                with np.errstate(over="ignore"):  # a move near 1e293 squares to inf
                    squares[label] = squares.get(label, 0.0) + change * change
    if spread:
        for label, total in squares.items():
            found[label] = np.maximum(found[label], spread * np.sqrt(total / draws))
    return found


def _changes(expected: Expected, plain: dict, moved: dict) -> dict[str, np.ndarray]:
    """Per float output, how far each finite element of ``moved`` lies from ``plain``
    (two float64 runs of the reference)."""
    from forge.types import is_float_dtype

    changes = {}
    plain, moved = _leaf_outputs(plain), _leaf_outputs(moved)
    for label, want in _leaf_outputs(expected.outputs).items():
        if not is_float_dtype(want.dtype) or label not in plain or label not in moved:
            continue
        base = np.asarray(plain[label], np.float64).reshape(-1)
        there = np.asarray(moved[label], np.float64).reshape(-1)
        if there.size != base.size:
            continue
        with np.errstate(all="ignore"):
            changes[label] = np.where(
                np.isfinite(base) & np.isfinite(there), np.abs(there - base), 0.0
            )
    return changes


def _nudged(rng, k: int, scale: float = 1.0):
    """Each input times (1 +- scale * sqrt(k) * u32), the signs drawn from ``rng``."""
    step = scale * np.sqrt(k) * 2.0**-24

    def nudge(a: np.ndarray) -> np.ndarray:
        return a * (1.0 + step * rng.choice((-1.0, 1.0), size=a.shape))

    return nudge


def _times(t: float):
    return lambda a: t * a


def _interface(kernel: KernelSpec) -> list:
    return [
        {
            k: v
            for k, v in b.describe().items()
            if k in ("binding", "group", "element", "access", "name", "fields", "inout", "scratch")
        }
        for b in kernel.buffers
    ]


def _check_truth(kernel: KernelSpec, truth: KernelSpec) -> None:
    if _interface(truth) != _interface(kernel):
        raise InvalidArgument(
            f"truth kernel {truth.id} binds different buffers than "
            f"{kernel.id}; it must describe the same interface"
        )


# A second poison for the reference's outputs, every byte unlike the first's (and still
# a NaN in each float width): an element of a 1- or 2-byte output that a reference
# writes with the first poison's byte (an int8 saturated at 127) is told from one it
# left, by running it again over this one.
_SECOND_POISON = {2: 0xFE5A, 4: 0xFFC5A5A5, 8: 0xFFF5A5A5A5A5A5A5}


def reference_arrays(
    case: Case, kernel: KernelSpec, pattern: Any = POISON_OUTPUT
) -> list[np.ndarray]:
    """The arrays a reference runs over: inputs and initial contents as drawn (copies),
    outputs without initial content poisoned (with ``pattern``), the uniform as its
    record."""
    arrays = []
    for spec in kernel.buffers:
        label = buffer_label(spec)
        if spec.access is Access.UNIFORM:
            assert case.uniform is not None  # a kernel with a uniform block has its record
            arrays.append(case.uniform.copy())
        elif label in case.arrays:
            arrays.append(case.arrays[label].copy())
        else:
            arrays.append(poisoned(spec.dtype, spec.element_count(case.size), pattern))
    return arrays


def expected_outputs(
    case: Case, truth: KernelSpec | None = None, constraints: Any = None
) -> Expected:
    """Run the numpy meaning of ``truth`` (default: the case's kernel) on ``case``, and
    check what it did (see the module docstring). ``constraints``: the adapter's, for a
    reference that reads them."""
    truth = truth or case.kernel
    _check_truth(case.kernel, truth)
    arrays = reference_arrays(case, truth)
    with np.errstate(all="ignore"):  # edge-case inputs overflow and make NaNs on purpose
        truth.run_reference(arrays, case.size, constraints)
    outputs = {}
    again: list[np.ndarray] | None = None  # the run over the second poison, if needed
    for index, (spec, array) in enumerate(zip(truth.buffers, arrays)):
        if not spec.is_output:
            continue
        label = buffer_label(spec)
        if spec.initial is None and not spec.inout:
            left = unwritten_mask(array)
            if left.any() and again is None:
                again = reference_arrays(case, truth, _SECOND_POISON)
                with np.errstate(all="ignore"):
                    truth.run_reference(again, case.size, constraints)
            if left.any():  # left unwritten: it holds each run's poison
                left &= unwritten_mask(again[index], _SECOND_POISON)  # type: ignore[index]
            if left.any():
                raise ReferenceFailed(_unwritten_message(truth, label, left))
            carried = _carries_poison(array)
            if carried:
                raise ReferenceFailed(
                    f"the reference of kernel {truth.id} reads output {label} before "
                    f"writing it: {carried} of its results carry the poison the output "
                    f"was filled with; if the kernel reads it too (y += ...), declare the "
                    "buffer inout=True (its initial contents are then drawn) or give it "
                    "initial=... contents"
                )
        outputs[label] = array
    return Expected(case, truth, outputs, NUMPY_REFERENCE)


# The NaN payload of each float poison, its quiet bit and sign left out: arithmetic on a
# NaN keeps its payload (quieted), so a result computed from the poison still shows it.
_PAYLOAD = {2: 0x01FF, 4: 0x003FFFFF, 8: 0x0007FFFFFFFFFFFF}


def _carries_poison(array: np.ndarray) -> int:
    """How many NaNs of a float output (not left as the poison itself) carry the output
    poison's payload: results the reference computed from the output's contents."""
    if array.dtype.names is not None or array.dtype.kind != "f" or array.size == 0:
        return 0
    width = array.dtype.itemsize
    if width not in _PAYLOAD:
        return 0
    bits = array.reshape(-1).view(np.dtype(f"u{width}"))
    mask = bits.dtype.type(_PAYLOAD[width])
    poison = bits.dtype.type(POISON_OUTPUT[width])
    nan = np.isnan(array.reshape(-1))
    return int(np.count_nonzero(nan & ((bits & mask) == (poison & mask)) & (bits != poison)))


def _unwritten_message(kernel: KernelSpec, label: str, left: np.ndarray) -> str:
    # a reference that moves or keeps what the output holds (an in-place kernel's: a
    # reversal, an image inverted but for its alpha) leaves the poison it was given
    in_place = (
        f"; if the kernel works on {label} in place, reading it before writing it, "
        "declare it inout=True (its contents are then drawn, and the reference gets them)"
    )
    if left.all():
        return (
            f"the reference of kernel {kernel.id} wrote nothing to output {label} and "
            "returned nothing: write it in place (y[:] = ...) or return it (return "
            f"a * 2, or a tuple of outputs in order){in_place}"
        )
    first = int(np.flatnonzero(left)[0])
    return (
        f"the reference of kernel {kernel.id} left {int(left.sum())} of {left.size} "
        f"elements of output {label} unwritten (first at element {first}); it must write "
        f"every element{in_place}"
    )


def _nan_alternatives(expected: Expected) -> dict[str, list[np.ndarray]]:
    from ._builtins import nan_dropping, zeros_annihilating

    case, truth = expected.case, expected.truth
    drawn = {
        label: a
        for label, a in case.arrays.items()
        if a.dtype.names is None and a.dtype.kind == "f" and label not in expected.outputs
    }
    nans = {label: np.isnan(a) for label, a in drawn.items()}
    nonfinite = any(not np.isfinite(a).all() for a in drawn.values())
    if expected.reference != NUMPY_REFERENCE or not nonfinite:
        return {}
    runs = []  # (the case, the reference) of each alternative
    for value in (-np.inf, np.inf) if any(m.any() for m in nans.values()) else ():
        arrays = dict(case.arrays)
        for label, mask in nans.items():
            if mask.any():
                arrays[label] = np.where(mask, arrays[label].dtype.type(value), arrays[label])
        runs.append((replace(case, arrays=arrays), truth))
    dropping = nan_dropping(getattr(truth, "reference", None))
    if dropping is not None:  # NaNs the kernel makes (inf - inf) meet a max too
        runs.append((case, replace(truth, reference=dropping)))
    skipping = zeros_annihilating(getattr(truth, "reference", None))
    if skipping is not None:  # a kernel that skips zero padding makes no 0 * Inf
        runs.append((case, replace(truth, reference=skipping)))
    found: dict[str, list[np.ndarray]] = {}
    for run_case, run_truth in runs:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # nanmax of all-NaN rows
                outputs = expected_outputs(run_case, run_truth).outputs
        except ReferenceFailed:
            continue
        for label, out in outputs.items():
            want = expected.outputs[label]
            if want.dtype.names is not None:  # a struct output: judged as drawn
                continue
            if not _same_elements(want, out).all():
                found.setdefault(label, []).append(out)
    return found


def _twin_run(expected: Expected, twin: Any) -> dict[str, np.ndarray] | None:
    """The outputs of the reference's ``twin`` on the case, quietly (its NaNs cast to
    integers warn); None where there is no twin or it fails."""
    if twin is None:
        return None
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)  # NaN cast to an integer
            truth = replace(expected.truth, reference=twin)
            return dict(expected_outputs(expected.case, truth).outputs)
    except (ReferenceFailed, InvalidArgument):
        return None


def _twin_outputs(expected: Expected, make_twin) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per output that is no struct, (what the reference's twin ``make_twin(reference)``
    gives, where it differs from the reference) for the outputs it changes; empty where
    the reference is a backend, has no twin, or its twin fails."""
    truth = expected.truth
    if expected.reference != NUMPY_REFERENCE or truth.reference is None:
        return {}
    outputs = _twin_run(expected, make_twin(truth.reference))
    if outputs is None:
        return {}
    found = {}
    for label, out in outputs.items():
        want = expected.outputs[label]
        if want.dtype.names is not None:  # a struct output: judged as drawn
            continue
        same = _same_elements(want, out)
        if not same.all():
            found[label] = (out, ~same)
    return found


#: What the reference's twins give where WGSL defines no result: NaN, and finite values
#: (lavapipe's atan2(0, 0) is 3 pi / 4), since a NaN that passes through a comparison
#: (``angle > 1.0`` is False) lands where numpy's value does and shows nothing.
_UNDEFINED_FILLS = (np.nan, 0.0, 3.0 * np.pi / 4.0, -3.0 * np.pi / 4.0, np.pi / 2.0, -np.pi, 1e4)


def _undefined_outputs(expected: Expected, flushed: bool = False) -> dict[str, np.ndarray]:
    from ._builtins import undefined_in_wgsl

    truth = expected.truth
    if expected.reference != NUMPY_REFERENCE or truth.reference is None:
        return {}
    kernel = expected.case.kernel
    if undefined_in_wgsl(truth.reference, kernel) is None:
        return {}  # the kernel calls none of them, or the reference names no numpy
    scopes: list[tuple[Expected, Any]] = [] if flushed else [(expected, lambda r: r)]
    if flushed:  # the inputs flushed, and every operation of the reference flushing
        tiny = float(np.finfo(np.float32).tiny)
        for case, wrap in (
            (_flushed_case(expected.case), lambda r: r),
            (expected.case, lambda r: flushing(r, tiny)),
        ):
            scope = replace(expected, case=case, _cache={})
            plain = _twin_run(scope, wrap(truth.reference))
            if plain is not None:
                scopes.append((replace(scope, outputs=plain), wrap))
    found: dict[str, np.ndarray] = {}
    for scope, wrap in scopes:
        for fill in _UNDEFINED_FILLS:
            twins = _twin_outputs(
                scope, lambda r, fill=fill, wrap=wrap: wrap(undefined_in_wgsl(r, kernel, fill))
            )
            for label, (_, differs) in twins.items():
                found[label] = found[label] | differs if label in found else differs
    return found


def _flushed_case(case: Case) -> Case:
    """``case`` with every subnormal of its inputs and uniform flushed to zero."""
    arrays = {label: flush_subnormals(a) for label, a in case.arrays.items()}
    uniform = None if case.uniform is None else flush_subnormals(case.uniform)
    return replace(case, arrays=arrays, uniform=uniform)


def _divided_by_zero_outputs(expected: Expected, wgsl: bool) -> dict[str, tuple[Any, np.ndarray]]:
    from ._builtins import _DividingArray, dividing_by_zero

    if not any(a.dtype.kind in "iu" for a in expected.case.arrays.values()):
        return {}  # no integer input: nothing to divide by zero
    if wgsl:  # defined: the dividend, 0 for a remainder
        twins = _twin_outputs(expected, lambda r: dividing_by_zero(r, None))
        if not _DividingArray.divided:
            return {}
        return {label: (out, differs) for label, (out, differs) in twins.items()}
    found: dict[str, tuple[Any, np.ndarray]] = {}
    for fill in (3, 7):  # two values: an element equal to one still differs by the other
        twins = _twin_outputs(expected, lambda r, fill=fill: dividing_by_zero(r, fill))
        if not _DividingArray.divided:
            return {}  # none divided by zero: what differs is not from that
        for label, (_, differs) in twins.items():
            found[label] = (None, found[label][1] | differs if label in found else differs)
    return found


@dataclass(frozen=True)
class Choices:
    """An integer output's choices (``Expected.near_choices``): per element, the values
    the reference chose among (``values``, one row an element, float64), how far a
    float32 computation of each may be off (``bound``), the index it chose, and whether
    it took the largest (argmax) or the smallest."""

    values: np.ndarray
    bound: np.ndarray
    chosen: np.ndarray
    largest: bool

    def accepts(self, got: np.ndarray) -> np.ndarray:
        """Per element of ``got``, whether it is another index whose value lies within
        the two values' bounds of the chosen one's, and differs from it (an exact tie is
        broken as the reference breaks it: first)."""
        index = np.asarray(got).reshape(-1).astype(np.int64)
        rows, count = self.values.shape
        valid = (index >= 0) & (index < count) & (index != self.chosen)
        index = np.where(valid, index, 0)
        at = np.arange(rows)
        theirs, ours = self.values[at, index], self.values[at, self.chosen]
        slack = self.bound[at, index] + self.bound[at, self.chosen]
        with np.errstate(invalid="ignore"):
            gap = ours - theirs if self.largest else theirs - ours
            return valid & np.isfinite(gap) & (theirs != ours) & (gap <= slack)


# How many unit roundoffs of its terms' magnitudes (beyond what cancels) a value that
# decides an argmin may be off by in a float32 kernel: |x|^2 - 2 x.c + |c|^2 over d
# dimensions rounds about (d + 2) times, most of it averaging out (a right k-means
# assignment on lavapipe chose a centroid 22 away in a squared distance of 10^5,
# from terms of 10^8).
_CHOICE_FACTOR = 8.0


def _integer_leaves(expected: Expected) -> dict[str, np.ndarray]:
    """The integer outputs, flat, by the labels the judge names them (a struct's
    integer fields as ``label.field``: a particle's grid cell beside its position)."""
    return {
        label: np.asarray(want).reshape(-1)
        for label, want in _leaf_outputs(expected.outputs).items()
        if np.asarray(want).dtype.kind in "iu"
    }


def _near_choices(expected: Expected) -> dict[str, Choices]:
    """``Expected.near_choices``: the reference run twice as ``oracle._builtins.choosing``
    runs it, on its values and on its terms' magnitudes, its argmin and argmax matched
    to the integer outputs that hold their results; the bound of each value is
    ``_CHOICE_FACTOR`` unit roundoffs of what its terms' magnitudes add up to beyond its
    own magnitude (0 where nothing cancels: a value read as it is, a sum of squares,
    whose near ties ``Expected.single`` handles)."""
    from ._builtins import choosing

    truth = expected.truth
    integers = _integer_leaves(expected)
    if not integers or expected.reference != NUMPY_REFERENCE or truth.reference is None:
        return {}
    seen: list = []
    magnitudes: list = []
    if _twin_run(expected, choosing(truth.reference, False, seen)) is None:
        return {}
    if _twin_run(expected, choosing(truth.reference, True, magnitudes)) is None:
        return {}
    if not seen or len(seen) != len(magnitudes):
        return {}
    floats = [a.dtype for a in expected.case.arrays.values() if a.dtype.kind == "f"]
    unit = min((float(np.finfo(d).eps) / 2 for d in floats if d.itemsize >= 4), default=2.0**-24)
    unit = max(unit, 2.0**-24)  # a float64 input is still computed on in float32
    found: dict[str, Choices] = {}
    for label, want in integers.items():
        for (values, axis, result, largest), (terms, *_) in zip(seen, magnitudes):
            if result.size != want.size or terms.shape != values.shape:
                continue
            if not np.array_equal(result.reshape(-1).astype(np.int64), want.astype(np.int64)):
                continue
            if axis is None:
                values, terms = values.reshape(1, -1), terms.reshape(1, -1)
            else:
                values = np.moveaxis(values, axis, -1).reshape(want.size, -1)
                terms = np.moveaxis(terms, axis, -1).reshape(want.size, -1)
            with np.errstate(all="ignore"):
                excess = np.abs(terms) - np.abs(values)
                bound = np.where(np.isfinite(excess), _CHOICE_FACTOR * unit * excess, 0.0)
            if values.shape[0] == want.size and (bound > 0).any():
                chosen = want.astype(np.int64)
                found[label] = Choices(values, np.maximum(bound, 0.0), chosen, largest)
                break
    return found


class Unstable(NamedTuple):
    """An integer output's elements that move with the rounding of the reference's float
    operations (``Expected.unstable_integers``), flat: which move; the least and the
    most value each takes over the reference and its reruns; the bits any rerun
    flipped; and which take exactly two values (``low`` and ``high``) over
    ``_UNSTABLE_RUNS + _TWO_WAY_RUNS`` reruns: a choice between two candidates (a
    nearest neighbour's index at a near tie), where an escape count's chaos shows more."""

    moved: np.ndarray
    low: np.ndarray
    high: np.ndarray
    flipped: np.ndarray
    two_way: np.ndarray

    @property
    def far(self) -> np.ndarray:
        """The elements that move by more than one step."""
        return self.high.astype(np.float64) - self.low.astype(np.float64) > 1


#: Random reruns behind ``Expected.unstable_integers`` (beside the four patterns), and
#: the more that an element moving between two values alone gets: of the escape counts
#: of round 14's Mandelbrot that moved by more than a step on lavapipe (2026-12-06),
#: every one but one showed three values or more in 8 runs, and three of them took a
#: value on lavapipe outside all of them, so a count that moves far is taken at any value;
#: a nearest neighbour's index at a near tie shows the same two however often it reruns
_UNSTABLE_RUNS = 4
_TWO_WAY_RUNS = 16


def _unstable_integer_outputs(expected: Expected, wgsl: bool) -> dict[str, Unstable]:
    from ._builtins import RoundingPattern, nudging_every_operation

    integers = _integer_leaves(expected)
    if not integers or expected.reference != NUMPY_REFERENCE or expected.truth.reference is None:
        return {}

    def reruns(directions: list) -> list[dict]:
        runs = []
        for rng in directions:
            run = _twin_run(expected, nudging_every_operation(expected.truth.reference, rng, wgsl))
            if run is None:
                break
            runs.append(_leaf_outputs(run))
        return runs

    def random(start: int, count: int) -> list:
        return [
            np.random.default_rng([expected.case.seed, 29, i]) for i in range(start, start + count)
        ]

    def stacked(label: str, want: np.ndarray, runs: list[dict]) -> np.ndarray:
        values = [want]
        for run in runs:
            if label in run and np.asarray(run[label]).size == want.size:
                values.append(np.asarray(run[label]).reshape(-1).astype(want.dtype))
        return np.stack(values)

    def distinct(values: np.ndarray) -> np.ndarray:
        ordered = np.sort(values, axis=0)
        return 1 + np.count_nonzero(ordered[1:] != ordered[:-1], axis=0)

    runs = reruns([RoundingPattern(bit) for bit in (None, 0, 1, 2)] + random(0, _UNSTABLE_RUNS))
    more: list[dict] | None = None
    found = {}
    for label, want in integers.items():
        values = stacked(label, want, runs)
        low, high = values.min(axis=0), values.max(axis=0)
        moved = low != high
        if not moved.any():
            continue
        flipped = np.bitwise_or.reduce(values ^ want.reshape(1, -1), axis=0)
        unstable = Unstable(moved, low, high, flipped, np.zeros_like(moved))
        two_way = unstable.far & (distinct(values) == 2)
        if two_way.any():
            if more is None:
                more = reruns(random(_UNSTABLE_RUNS, _TWO_WAY_RUNS))
            every = np.concatenate([values, stacked(label, want, more)[1:]])
            two_way &= distinct(every) == 2
        found[label] = unstable._replace(two_way=two_way)
    return found


def _widened_integer_outputs(expected: Expected) -> dict[str, np.ndarray]:
    from ._builtins import widening_every_operation

    integers = _integer_leaves(expected)
    if not integers or expected.reference != NUMPY_REFERENCE or expected.truth.reference is None:
        return {}
    run = _twin_run(expected, widening_every_operation(expected.truth.reference))
    if run is None:
        return {}
    leaves = _leaf_outputs(run)
    found = {}
    for label, want in integers.items():
        got = leaves.get(label)
        if got is not None and np.asarray(got).size == want.size:
            wide = np.asarray(got).reshape(-1).astype(want.dtype)
            if (wide != want).any():
                found[label] = wide
    return found


#: How many runs of the reference with WGSL's trigonometric builtins off by what WGSL
#: allows them, at random per element, show an integer output a builtin's error may
#: move (a bin chosen by an angle near its edge moves in half of them).
_BUILTIN_ERRING_RUNS = 6


def _builtin_erring_runs(expected: Expected) -> list[dict[str, np.ndarray]]:
    """The reference's outputs, in its own precision, with numpy's counterparts of the
    trigonometric builtins the kernel's WGSL calls off by what WGSL allows them
    (``oracle._builtins.trig_erring``); none where it calls none, or the reference
    names none of them."""
    from ._builtins import WGSL_TRIG_ERROR, calls_inverse_trig, calls_trig, trig_erring

    kernel, reference = expected.case.kernel, expected.truth.reference
    if expected.reference != NUMPY_REFERENCE or reference is None:
        return []
    kinds = [(WGSL_TRIG_ERROR, False)] if calls_trig(kernel, "wgsl") else []
    kinds += [(0.0, True)] if calls_inverse_trig(kernel) else []
    runs = []
    for absolute, inverse in kinds:
        for i in range(_BUILTIN_ERRING_RUNS):
            rng = np.random.default_rng([expected.case.seed, 31, i, inverse])
            run = _twin_run(expected, trig_erring(reference, rng, absolute, inverse))
            if run is None:
                break
            runs.append(run)
    return runs


#: How many stages ``Expected.single`` has.
SINGLE_STAGES = 4
# Bits of an element's index the float32 runs move by: two candidates fewer than 2**12
# apart (an argmin over up to 4096 centroids) are moved apart both ways.
_INDEX_BITS = 12


def _narrow_float_inputs(case: Any) -> list[np.dtype]:
    """The float dtypes of float32 or narrower among a case's inputs: a buffer's
    elements, a struct's fields (PlayCanvas's bin weights, a particle's position), the
    uniform record's fields (a camera, a scale); a float64 reference computes what a
    float32 kernel does not from any of them (round 78: the sort keys of a splat whose
    only float data was a struct's and the uniform's)."""
    records = [*case.arrays.values(), *([case.uniform] if case.uniform is not None else [])]
    floats = []
    for array in records:
        for _, leaf in leaves("", np.asarray(array)):
            if leaf.dtype.kind == "f" and leaf.dtype.itemsize <= 4:
                floats.append(leaf.dtype)
    return floats


def _single_outputs(expected: Expected, stage: int) -> dict[str, list[np.ndarray]]:
    from ._builtins import contracted, in_single_precision

    truth = expected.truth
    floats = _narrow_float_inputs(expected.case)
    if not floats or expected.reference != NUMPY_REFERENCE or truth.reference is None:
        return {}
    if stage == 0:
        twins = [in_single_precision(truth.reference), contracted(truth.reference)]
    else:
        twins = _moved_twins(expected, truth.reference, floats, stage)
    found: dict[str, list[np.ndarray]] = {}
    for twin in twins:
        for label, out in (_twin_run(expected, twin) or {}).items():
            if _integers_differ(expected.outputs[label], out):
                found.setdefault(label, []).append(out)
    return found


def _moved_twins(expected: Expected, reference: Any, floats: list, stage: int) -> list:
    """The twins of ``reference`` whose every float result is moved by a float32
    rounding (a sum by its rounding bound), in ``Expected.single``'s ``stage`` 1 (up
    and down by the bits of each element's index) or 2 (down at one residue of it), or
    whose inexact quotients alone are moved (3)."""
    from forge.types import float_info

    from ._builtins import IndexBit, IndexResidue, rounding_every_operation

    unit = float(float_info(max(floats, key=lambda d: d.itemsize)).eps) / 2
    if stage == 3:
        # only the quotients, each inexact one both ways by WGSL's 2.5 ulp (NVIDIA's
        # x * (1 / y) put a histogram's nearest splat in the last bucket: 1023 / span *
        # span reached 1023.0), also those the reference computes in float32 or in
        # numpy scalars (``lo, hi = range``); an exact one stays
        return [
            rounding_every_operation(
                reference,
                IndexBit(0, up),
                unit,
                alike=True,
                exact_quotients=True,
                only_quotients=True,
            )
            for up in (0, 1)
        ]
    bits = min(_INDEX_BITS, max(1, (largest_array(expected.case) - 1).bit_length()))
    patterns: list[Any] = (
        [IndexBit(bit, up) for bit in range(bits) for up in (0, 1)]
        if stage == 1
        else [IndexResidue(m, r) for m in (2, 4, 8, 16) for r in range(m)]
    )
    # a quotient exact in float32 stays, as a product does: x / 0.25 = k + 0.5 is a
    # tie the kernel rounds as written (round half up is wrong there)
    return [
        rounding_every_operation(reference, pattern, unit, correct_quotients=True, alike=True)
        for pattern in patterns
    ]


def _integers_differ(want: np.ndarray, out: np.ndarray) -> bool:
    """Whether ``out`` (a twin run's output) gives other values than the reference's
    ``want`` in an integer output, or in an integer field of a struct output (a
    particle's cell beside its position; the judge reads the field from the run)."""
    if out.shape != want.shape or out.dtype != want.dtype:
        return False
    if want.dtype.names:
        got = dict(leaves("", out))
        return any(_integers_differ(leaf, got[name]) for name, leaf in leaves("", want))
    return want.dtype.kind in "iu" and not _same_elements(want, out).all()


def _saturated_outputs(expected: Expected, wgsl: bool) -> dict[str, np.ndarray]:
    from ._builtins import saturating_casts

    twins = _twin_outputs(expected, lambda r: saturating_casts(r, wgsl))
    return {
        label: out
        for label, (out, _) in twins.items()
        if expected.outputs[label].dtype.kind in "iu"
    }


def _same_elements(want: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Per element, whether a second run of the reference gave what it gave (NaN as NaN)."""
    same = want == out
    if want.dtype.kind == "f":
        same |= np.isnan(want) & np.isnan(out)
    return same


def _flushed_outputs(expected: Expected, operations: bool = False) -> dict[str, np.ndarray]:
    """``Expected.flushed`` (the reference on its inputs with subnormals flushed) or,
    with ``operations``, ``Expected.flushed_operations`` (every float operand and result
    of its numpy operations flushed, below the smallest normal of the narrowest float
    output: ``FlushingArray``); its results flushed too. Where the reference cannot run
    so, the reference's own outputs flushed."""
    from forge.types import float_info, is_float_dtype

    case, truth = expected.case, expected.truth
    outputs = expected.outputs
    runs = []
    if expected.reference == NUMPY_REFERENCE and not operations:
        runs.append((_flushed_case(case), truth))
    elif expected.reference == NUMPY_REFERENCE and truth.reference is not None:
        floats = [o.dtype for o in outputs.values() if is_float_dtype(o.dtype)]
        narrowest = min(floats, key=lambda d: d.itemsize, default=np.dtype(np.float32))
        tiny = float_info(narrowest if narrowest.itemsize <= 4 else np.float32).tiny
        runs.append((case, replace(truth, reference=flushing(truth.reference, tiny))))
    for run_case, run_truth in runs:
        try:
            with np.errstate(all="ignore"):
                outputs = expected_outputs(run_case, run_truth).outputs
        except (ReferenceFailed, InvalidArgument):
            outputs = expected.outputs
    return {label: flush_subnormals(out) for label, out in outputs.items()}

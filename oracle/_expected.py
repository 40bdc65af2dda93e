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

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from forge.errors import InvalidArgument, ReferenceFailed
from forge.kernel import Access, KernelSpec

from ._compare import flush_subnormals
from ._inputs import POISON_OUTPUT, Case, buffer_label, poison

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


# At most this share (or two elements) of a faithful float64 run's results may stray
# from the reference's beyond its tolerance (cancellation is rare in drawn inputs); more
# means the reference does not mean the same thing in float64 (bit tricks, dtype-bound
# arithmetic), and the run is not used.
_PRECISE_STRAY = 0.01


def _precise_outputs(expected: Expected) -> dict[str, np.ndarray] | None:
    """The numpy reference run again with its float inputs widened to float64, each
    result rounded back to its output's dtype; None where that is no faithful, more
    precise run of the same function (see ``Expected.precise``)."""
    from forge.types import is_float_dtype

    from ._compare import compare
    from ._tolerance import resolve_tolerance

    case, truth = expected.case, expected.truth
    if expected.reference != NUMPY_REFERENCE or truth.reference is None:
        return None
    arrays, widened = reference_arrays(case, truth), False
    for i, (spec, array) in enumerate(zip(truth.buffers, arrays)):
        if (
            spec.access is not Access.UNIFORM
            and array.dtype.names is None
            and is_float_dtype(array.dtype)
            and array.dtype.itemsize < 8
        ):
            with np.errstate(all="ignore"):
                arrays[i], widened = array.astype(np.float64), True
    if not widened:
        return None
    try:
        with np.errstate(all="ignore"):
            truth.run_reference(arrays, case.size, None)
    except Exception:  # noqa: BLE001 - a reference bound to its dtypes: no precise run
        return None
    outputs = {}
    for spec, array in zip(truth.buffers, arrays):
        label = buffer_label(spec)
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


def reference_arrays(case: Case, kernel: KernelSpec) -> list[np.ndarray]:
    """The arrays a reference runs over: inputs and initial contents as drawn (copies),
    outputs without initial content poisoned, the uniform as its record."""
    arrays = []
    for spec in kernel.buffers:
        label = buffer_label(spec)
        if spec.access is Access.UNIFORM:
            assert case.uniform is not None  # a kernel with a uniform block has its record
            arrays.append(case.uniform.copy())
        elif label in case.arrays:
            arrays.append(case.arrays[label].copy())
        else:
            arrays.append(poisoned(spec.dtype, spec.element_count(case.size)))
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
    for spec, array in zip(truth.buffers, arrays):
        if not spec.is_output:
            continue
        label = buffer_label(spec)
        if spec.initial is None and not spec.inout:
            left = unwritten_mask(array)
            if left.any():
                raise ReferenceFailed(_unwritten_message(truth, label, left))
        outputs[label] = array
    return Expected(case, truth, outputs, NUMPY_REFERENCE)


def _unwritten_message(kernel: KernelSpec, label: str, left: np.ndarray) -> str:
    if left.all():
        return (
            f"the reference of kernel {kernel.id} wrote nothing to output {label} and "
            "returned nothing: write it in place (y[:] = ...) or return it (return "
            "a * 2, or a tuple of outputs in order)"
        )
    first = int(np.flatnonzero(left)[0])
    return (
        f"the reference of kernel {kernel.id} left {int(left.sum())} of {left.size} "
        f"elements of output {label} unwritten (first at element {first}); it must write "
        "every element"
    )


def _flushed_outputs(expected: Expected) -> dict[str, np.ndarray]:
    case = expected.case
    arrays = {label: flush_subnormals(a) for label, a in case.arrays.items()}
    uniform = None if case.uniform is None else flush_subnormals(case.uniform)
    changed = any(a is not case.arrays[label] for label, a in arrays.items()) or (
        uniform is not None
        and case.uniform is not None
        and uniform.tobytes() != case.uniform.tobytes()
    )
    outputs = expected.outputs
    if changed and expected.reference == NUMPY_REFERENCE:  # only the results can differ
        flushed_case = replace(case, arrays=arrays, uniform=uniform)
        try:
            outputs = expected_outputs(flushed_case, expected.truth).outputs
        except ReferenceFailed:
            outputs = expected.outputs
    return {label: flush_subnormals(out) for label, out in outputs.items()}

"""Judging a device run: what came back in each region, against what the reference
computed.

For every output the judge decodes the bound window through the backend's layout
(padding never judged), compares each scalar lane with the expectation under the
resolved tolerance and the context's float semantics, counts the elements still
holding the poison (never written) and the guard bytes that changed (written past the
end, or before the start). Inputs and the uniform block must come back byte for byte.
A struct output is judged field by field (``y.pos``, ``y.mass``).

Where the device's robust buffer access clamps or drops out-of-bounds writes (every
WGSL implementation), a write past the end shows only where it changed an in-bounds
value: the judge says so in the report instead of pretending to have looked.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from typing import Any, NamedTuple

import numpy as np

from forge.buffers import LISTS
from forge.errors import InvalidArgument
from forge.kernel import Access, KernelSpec
from forge.layout import as_elements
from forge.sources import strip_comments, wgsl_bindings, wgsl_packed_f16
from forge.textures import filters_in_codes, unorm8_bytes, unorm8_codes, unorm8_values
from forge.types import float_info, is_float_dtype

from ._builtins import (
    TF32_UNIT,
    WGSL_TRIG_ERROR,
    accumulates_on_tensor_cores,
    builtin_floor,
    calls_inverse_trig,
    calls_trig,
    endless_wgsl_loops,
    packs_bits,
    rounds_to_tf32,
    wgsl_loops,
)
from ._compare import (
    Comparison,
    compare,
    element_matches,
    flush_subnormals,
    nan_excused,
    nonfinite_expected,
)
from ._expected import SINGLE_STAGES, Expected, leaves, unwritten_mask
from ._inputs import FAMILIES, buffer_label, largest_array
from ._plan import BackendInfo, Outcome, Plan, Region
from ._results import Evaluation, Finding, FloatSemantics, OutputCheck
from ._tolerance import dtype_name, resolve_tolerance

__all__ = ["judge", "leaves", "coverage_gaps"]

_SHOWN_INPUTS = 4  # first mismatches whose inputs the report shows


def _changed_elements(got: np.ndarray, sent: np.ndarray, itemsize: int) -> tuple[int, int]:
    """(how many ``itemsize``-byte elements of ``got`` differ from ``sent``, the first)."""
    if got.size == 0:
        return 0, -1
    pad = -got.size % itemsize
    a = np.concatenate([got, np.zeros(pad, np.uint8)]).reshape(-1, itemsize)
    b = np.concatenate([sent, np.zeros(pad, np.uint8)]).reshape(-1, itemsize)
    changed = np.flatnonzero((a != b).any(axis=1))
    return int(changed.size), int(changed[0]) if changed.size else -1


def _decode(
    kernel: KernelSpec, spec, region: Region, raw: np.ndarray, target: str | None
) -> np.ndarray:
    data = raw[region.start : region.start + region.count * region.itemsize]
    values = as_elements(
        np.frombuffer(data.tobytes(), np.uint8), spec.dtype_for(target), region.count
    )
    return kernel.buffer_values(spec, values, target)


def _packed_halves(kernel: KernelSpec, spec, target: str | None) -> bool:
    """Whether ``spec`` is a u32 buffer the kernel's WGSL stores f16 pairs in
    (``pack2x16float``): judged as two f16 values per word, with f16's tolerance. A
    right kernel computes in f32 and rounds once to f16, which lands one f16 ulp from
    numpy's rounding where its f32 result is within an f32 rounding of a tie (about one
    word in 1400 of a SiLU): as exact integers such words were a false mismatch."""
    source = kernel.sources.get("wgsl") if target == "wgsl" else None
    if not isinstance(source, str) or spec.dtype != np.uint32 or spec.dtype.names:
        return False
    packed = wgsl_packed_f16(source)
    return any(
        b.group == spec.group and b.binding == spec.binding and b.name in packed
        for b in wgsl_bindings(source)
    )


def _halves(words: np.ndarray) -> np.ndarray:
    """u32 words as their f16 pairs (the low half first, as ``pack2x16float`` puts
    ``e[0]``), one row per word's row."""
    words = np.ascontiguousarray(words, "<u4")
    return words.view("<f2").astype(np.float16).reshape(*words.shape[:-1], -1)


def _leaf_tolerance(
    kernel: KernelSpec, dtype: Any, info: BackendInfo, expected: Expected, tolerance: Any
) -> Any:
    """The tolerance of one output lane on this backend; in a port check, the looser
    of this backend's and the reference backend's budgets."""
    table = kernel.tolerance_at(expected.case.size)
    tol = resolve_tolerance(dtype, table, info.name, tolerance)
    if expected.reference_backend is not None:
        tol = tol.loosest(resolve_tolerance(dtype, table, expected.reference_backend, tolerance))
    return builtin_floor(tol, kernel, info.target, dtype)  # the language's own error bounds


def _unorm_comparison(
    got: np.ndarray,
    want: np.ndarray,
    tol: Any,
    expected: Expected,
    label: str,
    wgsl: bool,
    in_codes: bool = False,
) -> Comparison:
    """An rgba8unorm output (``got``: the bytes as ``k / 255``) against the floats the
    reference stores (``want``): each byte must be one a conforming device may store
    for a float within ``tol`` (and a long sum's rounding bound) of the reference's,
    ``forge.textures.unorm8_codes`` (Vulkan's float-to-unorm rule: the two nearest
    codes, the exact one for an integer), and no other; judged then exactly against
    the accepted code nearest to the reference's, so a report shows bytes as floats."""
    codes = unorm8_bytes(got)
    exact = unorm_exact(expected, label, want)
    accepted = unorm_accepted(got, want, tol, exact=exact)
    summed = None if accepted.all() else expected.rounding_bound(wgsl).get(label)
    if summed is not None and np.size(summed) == np.size(want):
        accepted = unorm_accepted(got, want, tol, summed, exact)
    # a texture read through a linear sampler: its weights' precision, even where the
    # reference's float is exact (a bilinear weight of 8 bits is no float64 one)
    filtered = None if accepted.all() else expected.filtering_bound(in_codes).get(label)
    if filtered is not None and np.size(filtered) == np.size(want) and np.any(filtered):
        moved = np.asarray(filtered, np.float64).reshape(np.shape(want))
        slack = moved
        if summed is not None and np.size(summed) == np.size(want):
            slack = slack + np.asarray(summed, np.float64).reshape(np.shape(want))
        if exact is not None:  # exact only where no read moved it
            exact = np.asarray(exact).reshape(np.shape(want)) & (moved == 0)
        accepted = unorm_accepted(got, want, tol, slack, exact)
    target = np.where(accepted, codes, unorm8_bytes(want))
    exact = dataclasses.replace(tol, atol=0.0, rtol=0.0, ulp=0)
    return compare(got, unorm8_values(target).reshape(want.shape), exact)


def unorm_exact(expected: Expected, label: str, want: np.ndarray) -> np.ndarray | None:
    """Per element of an rgba8unorm output, whether the reference's float is the one
    its float64 run gives too (``Expected.precise``): a value the computation rounds
    no differently, such as a copy's ``k / 255`` or a single product, which a right
    kernel stores as it is; None where there is no float64 run."""
    precise = _precise_leaf(expected, label, label)
    if precise is None or np.size(precise) != np.size(want):
        return None
    return np.asarray(precise).reshape(np.shape(want)) == want


def unorm_accepted(
    got: Any, want: np.ndarray, tol: Any, bound: Any = None, exact: Any = None
) -> np.ndarray:
    """Per element of an rgba8unorm output, whether ``got`` (floats ``k / 255``; a
    reference backend's unquantised floats count as their nearest byte) is a byte a
    conforming device may store for the float the kernel stores: the reference's
    ``want``, or where it is not ``exact`` (``unorm_exact``: its computation rounds),
    any float within ``tol`` (and ``bound``, a long sum's rounding) of it
    (``forge.textures.unorm8_codes``). Without that distinction the tolerance would
    reach a neighbouring code wherever ``255 * want`` is near a whole number, as every
    copied byte's is, and accept a kernel one code off everywhere."""
    w = np.asarray(want, np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        slack = tol.atol + tol.rtol * np.abs(w)
        spacing = np.spacing(np.abs(np.asarray(want, np.float32))).astype(np.float64)
        slack = slack + tol.ulp * spacing
        if bound is not None:
            slack = slack + np.nan_to_num(np.asarray(bound, np.float64).reshape(w.shape))
    if exact is not None:
        slack = np.where(np.asarray(exact).reshape(w.shape), 0.0, slack)
    low, high = unorm8_codes(w, np.nan_to_num(slack, nan=0.0, posinf=0.0))
    codes = unorm8_bytes(got).reshape(w.shape)
    return (codes >= low) & (codes <= high)


def _compare_leaf(
    got: np.ndarray,
    want: np.ndarray,
    tol: Any,
    masks: dict[str, Any],
    value_coverage: bool,
    expected: Expected,
    output: str,
    label: str,
    trig: bool = False,
    packed: bool = False,
    wgsl: bool = False,
    tf32: bool = False,
    inverse_trig: bool = False,
    tensor_float: bool = False,
    codes: bool = False,
) -> Comparison:
    """``compare`` one lane; where it is off in value, again with the reference run in
    float64 as a second expectation (kept in ``masks`` for the later comparison), then
    within a long sum's rounding and the error of sin and cos of float32 arguments
    (``trig``: WGSL's, or CUDA's fast ``__sinf``, within 2**-11) carried through the
    reference, and (``tf32``) the rounding of its inputs to TF32; any value where the
    result is not defined: a WGSL builtin's (``wgsl``:
    ``atan2(0, 0)``), an integer division by zero. ``packed``: u32 words judged as
    their f16 pairs (``_halves``). ``codes``: the adapter filters 8-bit unorm texels
    to codes (``forge.textures.filters_in_codes``)."""
    comparison = compare(got, want, tol, nonfinite_either=value_coverage, **masks)
    if comparison.mismatches > comparison.nonfinite_mismatches:
        precise = _precise_leaf(expected, output, label)
        if precise is not None and packed:
            precise = _halves(precise)
        if precise is not None:  # closer to the exact result than the reference?
            masks["precise"] = precise
            comparison = compare(got, want, tol, nonfinite_either=value_coverage, **masks)
    if comparison.mismatches > comparison.nonfinite_mismatches:
        # a long sum in another order? (keyed by the leaf: a struct's field is
        # ``output.field``); the other bounds are a whole output's own
        summed = expected.rounding_bound(wgsl, tensor_float).get(label)
        whole = label == output
        # sin or cos of a float32 angle (within WGSL's bound), where one moved an element
        erring = (
            expected.trig_bound(WGSL_TRIG_ERROR if trig else 0.0).get(output) if whole else None
        )
        if erring is not None and not erring.any():
            erring = None
        # atan2, asin and acos within WGSL's 4096 ulp (and what acos inherits)
        inverse = (
            expected.inverse_trig_bound().get(output) if whole and wgsl and inverse_trig else None
        )
        if inverse is not None and not inverse.any():
            inverse = None
        # the inputs multiplied as TF32 on tensor cores
        narrowed = expected.input_rounding_bound(TF32_UNIT).get(output) if whole and tf32 else None
        # a texture read through a linear sampler, its weights held in fewer bits
        filtered = expected.filtering_bound(codes).get(output) if whole else None
        if filtered is not None and not np.any(filtered):
            filtered = None
        parts = [
            b.reshape(-1) for b in (summed, erring, inverse, narrowed, filtered) if b is not None
        ]
        if parts:
            # independent errors of one computation add up: a dot product's rounding
            # carried through acos's slope near 1, and acos's own 4096 ulp
            masks["bound"] = np.add.reduce(parts).reshape(want.shape)
            comparison = compare(got, want, tol, nonfinite_either=value_coverage, **masks)
            exact = expected.float64_leaves().get(label) if summed is not None else None
            if comparison.mismatches and exact is not None and exact.size == want.size:
                # the bound is how far a correct computation lies from the reference's
                # float64 run: an element within it of that run is right however far
                # the reference's own float32 lies from it. Where its rounding carried
                # a value it compares across the comparison (a sample coordinate onto
                # the map's edge, y == -1 in float32 and below it in float64), a kernel
                # that fuses the coordinate's multiply-adds lands on the float64 run's
                # side, a jump from the reference (mmcv's rotated RoIAlign, round 64)
                bound = masks["bound"].reshape(-1)
                g = np.asarray(got, np.float64).reshape(-1)
                w = np.asarray(want, np.float64).reshape(-1)
                with np.errstate(all="ignore"):
                    near = np.isfinite(exact) & (np.abs(g - exact) <= bound)
                    own = np.where(near & np.isfinite(w), np.abs(w - exact), 0.0)
                if own.any():
                    masks["bound"] = (bound + own).reshape(want.shape)
                    comparison = compare(got, want, tol, nonfinite_either=value_coverage, **masks)
            kinds = ["the rounding bound"] if summed is not None else []
            if erring is not None:
                kinds.append("the error of sin and cos carried through")
            if inverse is not None:
                kinds.append("WGSL's error of atan2, asin and acos carried through")
            if narrowed is not None:
                kinds.append("the rounding of its inputs to TF32 carried through")
            if filtered is not None:
                kinds.append("the precision of linear filtering's weights carried through")
            if len(kinds) > 1 or summed is None:
                comparison = dataclasses.replace(comparison, bounded_by=" plus ".join(kinds))
    if comparison.mismatches and value_coverage and label == output and tol.nan != "propagate":
        alternatives = expected.nan_alternatives().get(output, [])
        if packed:
            alternatives = [_halves(a) for a in alternatives]
        excused = nan_excused(got, alternatives, tol)
        if excused.any():  # NaN inputs dropped (maxNum) where numpy propagates them?
            masks["nan_input"] = excused.reshape(want.shape)
            comparison = compare(got, want, tol, nonfinite_either=value_coverage, **masks)
    if comparison.mismatches and not packed and label == output:
        # atan2(0, 0) and pow(-2, 2) in WGSL, an integer division by zero anywhere: any
        # value is right
        undefined = [
            mask.reshape(-1)
            for mask in (
                expected.undefined_in_wgsl().get(output) if wgsl else None,
                # WGSL lets any operation flush a subnormal: atan2 of subnormal
                # gradients may be atan2(0, 0) (lavapipe's is, though it keeps them
                # elsewhere)
                expected.undefined_in_wgsl(flushed=True).get(output) if wgsl else None,
                _by_zero(expected, output, got, wgsl),
            )
            if mask is not None and mask.size == want.size
        ]
        if undefined:
            masks["undefined"] = np.logical_or.reduce(undefined).reshape(want.shape)
            comparison = compare(got, want, tol, nonfinite_either=value_coverage, **masks)
    return comparison


def _rounds_to_nearest(dtype: np.dtype) -> bool:
    """Whether a right kernel's outputs of ``dtype`` are its values rounded to nearest,
    by a conversion the kernel's author chose: bf16 (WGSL has no bf16 type, so a WGSL
    kernel rounds it by hand; CUDA's and numpy's conversions round to nearest even).
    Not f16: WGSL lets a conversion to f16 take either neighbour, and CUDA's half
    intrinsics (``hexp``, ``h2rsqrt``) approximate in f16 itself, with errors whose
    direction was not measured."""
    name = dtype_name(dtype) if dtype.names is None else ""
    return name == "bf16"


#: ``one_way_rounding``: at least this many elements must differ from the reference's
#: rounding, and this share of the judged ones, and this share of them one way.
ONE_WAY_COUNT, ONE_WAY_SHARE, ONE_WAY_AGREEMENT = 32, 0.25, 0.97


def one_way_rounding(got: np.ndarray, want: np.ndarray, comparison: Comparison) -> Comparison:
    """``comparison`` (passed) failed where the elements of ``got`` that differ from
    ``want`` (the reference's value rounded to nearest) are many and nearly all off the
    same way (toward zero, away from it, down or up), each by a few steps at most. A
    conversion that truncates (f32 to bf16 by dropping the low 16 bits) is off by one
    step, inside the default tolerance of two, at about half the elements, every one
    toward zero. A right kernel's float32 errors move its value across a rounding
    boundary only where the value lies within them of one (one element in thousands
    for a few float32 ulps), and either way: judged over at least ``ONE_WAY_COUNT``
    such elements,
    ``ONE_WAY_SHARE`` of the judged ones, ``ONE_WAY_AGREEMENT`` of them one way (by
    chance, for a right kernel's random directions, once in 10**8 at the least count).
    Only finite, normal, nonzero values are counted: a device that flushes subnormals
    rounds them toward zero, rightly."""
    g = np.asarray(got, np.float64).reshape(-1)
    w = np.asarray(want, np.float64).reshape(-1)
    tiny = float(float_info(want.dtype).tiny)
    with np.errstate(invalid="ignore"):
        counted = np.isfinite(g) & np.isfinite(w) & (np.abs(w) >= tiny) & (np.abs(g) >= tiny)
    differ = counted & (g != w)
    n = int(differ.sum())
    if n < ONE_WAY_COUNT or n < ONE_WAY_SHARE * int(counted.sum()):
        return comparison
    # a few steps off at most: a conversion that rounds the other way gives the
    # neighbour of the reference's value, or two or three steps where it rounds
    # intermediate values too (a bf16 SwiGLU truncating each product); a low-precision
    # sum that loses its small terms, a right f16-accumulating GEMM on one-sign inputs,
    # is off one way by many steps
    bits = [np.asarray(a).reshape(-1).view(np.uint16)[differ].astype(np.int32) for a in (got, want)]
    near = int(((np.abs(bits[0] - bits[1]) <= 3) & ((bits[0] ^ bits[1]) < 0x8000)).sum())
    if near < ONE_WAY_AGREEMENT * n:
        return comparison
    toward = int((np.abs(g[differ]) < np.abs(w[differ])).sum())
    down = int((g[differ] < w[differ]).sum())
    ways = {
        "toward zero": toward,
        "away from zero": n - toward,
        "down": down,
        "up": n - down,
    }
    way, count = max(ways.items(), key=lambda item: item[1])
    if count < ONE_WAY_AGREEMENT * n:
        return comparison
    shown = np.where(differ.reshape(np.shape(got)), got, want)
    exact = dataclasses.replace(comparison.tolerance, atol=0.0, rtol=0.0, ulp=0)
    failed = compare(shown, want, exact)
    return dataclasses.replace(
        failed,
        tolerance=comparison.tolerance,
        one_way=(
            f"rounded {way} at {count} of the {n} elements that differ from the "
            f"reference's rounding to nearest ({int(counted.sum())} judged), each a few "
            "steps from it at most and within the tolerance, but a right kernel's float errors "
            "move a value across a rounding boundary rarely and either way; a "
            "conversion that truncates (f32 to bf16 by dropping the low 16 bits) or "
            "rounds one way does this"
        ),
    )


def _fp8_judged_exactly(
    kernel: KernelSpec, want: np.ndarray, size: Any, info: BackendInfo, tolerance: Any
) -> bool:
    """Whether an output of ``want``'s dtype is an FP8 one judged by its rounding (the
    default), not within the one step of its default tolerance: neither the kernel nor
    the call declares a tolerance for the dtype."""
    if want.dtype.names is not None or want.dtype.itemsize != 1 or want.dtype.kind in "iub":
        return False
    return not _declared(kernel, want.dtype, size, info, tolerance)


def _declared(
    kernel: KernelSpec, dtype: np.dtype, size: Any, info: BackendInfo, tolerance: Any
) -> bool:
    """Whether the kernel (for this backend or any) or the call declares a tolerance
    for ``dtype``: the author's word on how far a right result may be."""
    name = dtype_name(dtype)
    table = dict(kernel.tolerance_at(size) or {})
    declared = name in table or name in (table.get(f"backend:{info.name}") or {})
    return declared or tolerance is not None


def _by_zero(expected: Expected, output: str, got: np.ndarray, wgsl: bool) -> Any:
    """The elements of ``got`` right where the reference divides an integer by zero:
    any value (CUDA), or WGSL's (the dividend, 0 for a remainder); None where none."""
    found = expected.divided_by_zero(wgsl).get(output)
    if found is None:
        return None
    values, where = found
    if values is None:
        return where
    values, flat = np.asarray(values).reshape(-1), np.asarray(got).reshape(-1)
    if values.size != flat.size or where.size != flat.size:
        return None
    same = values == flat
    if flat.dtype.kind == "f":
        same |= np.isnan(values) & np.isnan(flat)
    return where.reshape(-1) & same


def _precise_leaf(expected: Expected, output: str, label: str) -> np.ndarray | None:
    precise = expected.precise()
    if precise is None or output not in precise:
        return None
    return dict(leaves(output, precise[output])).get(label)


def _semantics_masks(
    semantics: FloatSemantics, want: np.ndarray, flushed: list[np.ndarray]
) -> dict[str, Any]:
    indeterminate = (
        nonfinite_expected(want, *flushed) if semantics.nonfinite_indeterminate else None
    )
    return {
        "flushed": tuple(flushed) if semantics.subnormals_may_flush and flushed else None,
        "indeterminate": indeterminate,
    }


class _Edges(NamedTuple):
    """Writes outside an output's elements: into the guard before it, into the
    binding's padding, past the padding (the first such element, counted from the end
    of the data)."""

    before: int
    padding: int
    padding_written: int
    past: int
    first_past: int


def _edges(region: Region, raw: np.ndarray) -> _Edges:
    sent, size = region.data, region.itemsize
    end = region.start + region.count * size
    before, _ = _changed_elements(raw[: region.start], sent[: region.start], size)
    # The binding's padding (the rest of the last vector the shader declares, WebGPU's
    # 4-byte rounding) is inside the buffer as the shader sees it: writes there are
    # noted, not faults. Past it is past the end.
    pad_end = end + region.padding * size
    padding_written, _ = _changed_elements(raw[end:pad_end], sent[end:pad_end], size)
    past, first_past = _changed_elements(raw[pad_end:], sent[pad_end:], size)
    if past:
        first_past += region.padding
    return _Edges(before, region.padding, padding_written, past, first_past)


def _scratch_edges(ev: Evaluation, region: Region, raw: np.ndarray) -> None:
    """A finding where a scratch buffer (an intermediate the kernel keeps, whose values
    are not judged) was written outside its elements: before its start or past its
    binding's end. Its values are the kernel's own business, but in the user's program
    such a write lands in the next allocation: TVM's log-softmax with a row bound folded
    by 32, not 16, wrote its last block's 16 rows past its scratch maxima and passed,
    as nothing read them back (H100, 2026-12-07)."""
    edges = _edges(region, raw)
    if not (edges.before or edges.past):
        return
    count, where = region.count, []
    if edges.past:
        where.append(
            f"{edges.past} past the end (first at element {count + edges.first_past}, "
            f"the buffer holds {count})"
        )
    if edges.before:
        where.append(f"{edges.before} before its start")
    ev.extra.append(
        Finding(
            "past-end",
            f"{region.label}: scratch buffer written outside its elements: " + "; ".join(where),
            region.label,
        )
    )


# The most mismatches of an integer output, as a share of its elements, that the oracle
# tries to explain as near-ties float32 decides otherwise with its 54 runs of the
# reference, in a case whose largest input has more than _SMALL_CASE elements; in a
# smaller case it always tries (a VQ lookup's codebook drawn as rows of zeros and of
# 1e-20s ties 16 % of its points in float64, which a kernel that leaves out |z|^2 tells
# apart, rightly).
_NEAR_TIES = 0.05
_SMALL_CASE = 1 << 16


def _taking(
    got_leaf: np.ndarray,
    want_leaf: np.ndarray,
    tol: Any,
    masks: dict[str, Any],
    judging: tuple,
    output: str,
    label: str,
    order: Any,
    runs: Any,
    comparison: Comparison,
) -> Comparison:
    """``comparison`` again, where it has not passed, with the leaf ``label`` of each
    of ``runs()`` (the reference's outputs computed otherwise: in float32, with a
    builtin's error, through another filter) taken as right too (``masks["single"]``);
    ``runs`` is called only then."""
    if comparison.passed:
        return comparison
    found = [dict(leaves(output, order(run))).get(label) for run in runs()]
    taken = [
        r.reshape(want_leaf.shape) for r in found if r is not None and r.size == want_leaf.size
    ]
    if not taken:
        return comparison
    masks["single"] = masks.get("single", []) + taken
    return _compare_leaf(got_leaf, want_leaf, tol, masks, *judging)


def _single_stages(
    take: Any,
    comparison: Comparison,
    want_leaf: np.ndarray,
    expected: Expected,
    output: str,
    stages: range,
) -> Comparison:
    """``take`` (``_taking``) of ``Expected.single``'s ``stages``, stage by stage until
    the comparison passes; a stage past the first only where few elements are left
    (``_near_ties_worth_trying``)."""
    for stage in stages:
        if comparison.passed or (
            stage and not _near_ties_worth_trying(comparison, want_leaf, expected)
        ):
            break
        comparison = take(lambda stage=stage: expected.single(stage).get(output, []), comparison)
    return comparison


def _near_ties_worth_trying(comparison: Comparison, want: np.ndarray, expected: Expected) -> bool:
    small = largest_array(expected.case) <= _SMALL_CASE
    return small or comparison.mismatches <= _NEAR_TIES * want.size


def relabeled(labels: np.ndarray, reference: np.ndarray, fixed: tuple = ()) -> np.ndarray:
    """``labels`` (a labeling: equal values are one group) in ``reference``'s labels,
    equal to it exactly where both make the same partition: each group renamed to the
    reference's label at its first element, where that group also holds the first
    element of the reference's group of that label. Any other group (one the
    reference's group is split into, or one at a ``fixed`` value of the reference) gets
    a label the reference does not use, so a split, a merge and a group on the
    background all show as mismatches. ``fixed`` values, and elements still holding
    the poison (unwritten), stay as they are."""
    got = np.asarray(labels).reshape(-1)
    want = np.asarray(reference).reshape(-1)
    if got.size != want.size or got.size == 0:
        return np.asarray(labels)
    out = got.astype(want.dtype, copy=True)
    free = ~np.isin(got, np.asarray(fixed, np.int64)) & ~unwritten_mask(got)
    where = np.flatnonzero(free)
    if where.size == 0:
        return out.reshape(np.shape(labels))
    names, first, inverse = np.unique(got[where], return_index=True, return_inverse=True)
    first = where[first]  # each group's first element
    mapped = want[first]
    known, known_first = np.unique(want, return_index=True)
    holds_first = got[known_first[np.searchsorted(known, mapped)]] == names
    keep = holds_first & ~np.isin(mapped, np.asarray(fixed, np.int64))
    if not keep.all():  # labels the reference does not use, past its largest if they fit
        info, count = np.iinfo(want.dtype), int((~keep).sum())
        top = int(known.max())
        base = top + 1 if top + count + known.size <= int(info.max) else int(info.min)
        candidates = np.arange(count + known.size, dtype=np.int64) + base
        mapped = mapped.copy()
        mapped[~keep] = np.setdiff1d(candidates, known.astype(np.int64))[:count].astype(want.dtype)
    out[where] = mapped[inverse.reshape(-1)]
    return out.reshape(np.shape(labels))


class _Sorted:
    """How an ``unordered`` output is put in order before it is compared: ``parts``, the
    (start, stop) runs of its flat elements each sorted on their own: the whole output;
    where the reference appends, its prefix and the rest; and for an output with a
    ``shape`` of two or more axes, each row (along the last axis), with that rule in
    each. ``prefix`` is the single-prefix case's length, for the report."""

    def __init__(self, parts: list[tuple[int, int]] | None, size: int, prefix: int | None = None):
        self.parts = parts if parts is not None else [(0, size)]
        self.prefix = prefix
        self.rows = 0
        self.among: str | None = None  # the keys output whose ties the parts are
        self.unit = 1  # elements kept together: a row of integers (a key and its value)

    def __call__(self, a: np.ndarray) -> np.ndarray:
        flat = a.reshape(-1)
        if self.among is not None:  # runs of tied keys only; the rest stays in place
            flat = flat.copy()
            for start, stop in self.parts:
                run = flat[start:stop]
                flat[start:stop] = _sorted_rows(run, self.unit) if self.unit > 1 else np.sort(run)
            return flat
        if self.unit > 1:
            return np.concatenate([_sorted_rows(flat[a:b], self.unit) for a, b in self.parts])
        return np.concatenate([np.sort(flat[start:stop]) for start, stop in self.parts])


def _sorted_rows(flat: np.ndarray, unit: int) -> np.ndarray:
    """``flat``'s rows of ``unit`` elements in lexicographic order, each row kept whole."""
    rows = flat.reshape(-1, unit)
    return rows[np.lexsort(rows.T[::-1])].reshape(-1)


def _unordered_order(
    spec, want: np.ndarray, packed: bool, row: int | None = None, size: Any = None
) -> _Sorted:
    """For an unordered output, whether its reference appends (through an atomic counter,
    as a stream compaction or a culling pass does): it fills a prefix and leaves the
    declared scalar ``initial`` after it, a sentinel that is none of the values it
    wrote and outside their range (0xFFFFFFFF, -1, NaN; zero only for integers: a float
    zero is as likely a value as any). Then a kernel must fill the same prefix, in any
    order: an append one slot past (``atomicAdd(...) + 1``) leaves a hole at the front
    and writes past the count, which a multiset of the whole buffer cannot see. An
    output shaped in rows of ``row`` elements (its ``shape``'s last axis) is a multiset
    a row, each with that rule: a list per bucket, each appended from its own offset
    (cuda-samples' mapToBuckets), where a multiset of the whole buffer passed an index
    appended one past its bucket's base, or into the next bucket's list. That holds
    only where some row's reference appends so: rows with none (pairs stored as rows
    of two, an unordered list of points) are the whole output's multiset, as before,
    which any order of the pairs passes."""
    flat = want.reshape(-1)
    initial = _initial_at(spec, size)  # once: an initial(size) is a call
    rows: list[tuple[int, int]] = []
    if row is not None and not packed and 0 < row < flat.size and not flat.size % row:
        appended = False
        for start in range(0, flat.size, row):
            parts = _cut_at_prefix(initial, flat, start, start + row, packed)
            appended |= len(parts) > 1
            rows += parts
        if appended:
            order = _Sorted(rows, flat.size)
            order.rows = flat.size // row
            return order
    prefix = _prefix(initial, flat, packed)
    whole = None if prefix is None else [(0, prefix), (prefix, flat.size)]
    order = _Sorted(whole, flat.size, prefix)
    # rows of integers are whole items (a hash table's key and value, an edge's two
    # ends): a multiset of rows, so that a key stored with another key's value fails,
    # as it passed as a multiset of scalars (round 52); rows of floats stay scalars, as
    # a rounding that reorders two near-equal first elements would misalign the rest
    if (
        row is not None
        and 1 < row < flat.size
        and not packed
        and flat.dtype.kind in "iu"
        and not flat.size % row
        and (prefix is None or not prefix % row)
    ):
        order.unit = row
    return order


def _lists_order(want: np.ndarray, initial: Any, row: int | None) -> _Sorted:
    """For an output of lists each appended from its own base (``unordered="lists"``):
    each run of the reference's written elements, up to the free slots holding the
    sentinel ``initial`` after it, sorted on its own (of whole rows for integers shaped
    in rows: Bevy's draws, four words each); the free slots stay where they are, so a
    list appended one slot past its base fails where its set ends free (round 72)."""
    flat = want.reshape(-1)
    unit = row if row and flat.dtype.kind in "iu" and 1 < row and not flat.size % row else 1
    items = flat.reshape(-1, unit)
    with np.errstate(invalid="ignore"):
        free = (items == flat.dtype.type(initial)).all(axis=1)
        if flat.dtype.kind == "f" and np.isnan(initial):
            free = np.isnan(items).all(axis=1)
    edges = np.flatnonzero(np.diff(np.concatenate([[1], free.astype(np.int8), [1]])))
    runs = [(int(a) * unit, int(b) * unit) for a, b in zip(edges[::2], edges[1::2]) if b - a > 1]
    order = _Sorted(runs, flat.size)
    order.among, order.unit = LISTS, unit
    return order


def _tied_order(want: np.ndarray, keys: np.ndarray, row: int | None = None) -> _Sorted | None:
    """For an output unordered among equal keys (``unordered="keys"``: the values of a
    sort that is not stable), the runs of equal elements in the reference's ``keys``
    output, each sorted on its own (and cut at each row's end, for an output shaped in
    rows: a batch of arrays sorted one by one). Where ``keys`` holds one key a row of
    the output instead (vLLM's ``expert_ids``, an expert per GEMM block of
    ``sorted_token_ids``), each run of rows with equal keys is one multiset: an expert
    whose ids span several blocks may split them between its blocks in any order
    (round 65). None where ``keys`` matches neither the elements nor the rows."""
    flat, key = want.reshape(-1), keys.reshape(-1)
    per_row = row is not None and 1 < row and key.size * row == flat.size
    if per_row:
        key = np.repeat(key, int(row or 1))
    if key.size != flat.size:
        return None
    with np.errstate(invalid="ignore"):
        same = key[1:] == key[:-1]
        if key.dtype.kind == "f":
            same |= np.isnan(key[1:]) & np.isnan(key[:-1])
    if not per_row and row is not None and 0 < row < flat.size and not flat.size % row:
        same[row - 1 :: row] = False
    cuts = [0, *(np.flatnonzero(~same) + 1).tolist(), flat.size]
    return _Sorted([(a, b) for a, b in zip(cuts, cuts[1:]) if b - a > 1], flat.size)


def _prefix(initial: Any, flat: np.ndarray, packed: bool) -> int | None:
    """How many elements ``flat``'s reference appends before the sentinel ``initial``
    (the output's, ``_initial_at``) it leaves after them, or None where it does not
    append so."""
    if packed or not isinstance(initial, (int, float, np.number)) or isinstance(initial, bool):
        return None
    if flat.dtype.kind not in "iuf" or flat.size < 2:
        return None
    sentinel = flat.dtype.type(initial)
    with np.errstate(invalid="ignore"):
        left = flat == sentinel
        if flat.dtype.kind == "f" and np.isnan(sentinel):
            left = np.isnan(flat)
    written = np.flatnonzero(~left)
    prefix = int(written[-1]) + 1 if written.size else 0
    if not 0 < prefix < flat.size or left[:prefix].any():
        return None
    values = flat[:prefix]
    if flat.dtype.kind == "f":
        if sentinel == 0 or np.isnan(values).any():
            return None
        if not np.isnan(sentinel) and values.min() <= sentinel <= values.max():
            return None
    elif values.min() <= sentinel <= values.max():
        return None
    return prefix


def _cut_at_prefix(
    initial: Any, flat: np.ndarray, start: int, stop: int, packed: bool
) -> list[tuple[int, int]]:
    """``flat[start:stop]`` as one part, or as two where its reference appends before
    the sentinel ``initial`` (``_prefix``): its values, then its sentinels."""
    prefix = _prefix(initial, flat[start:stop], packed)
    if prefix is None:
        return [(start, stop)]
    return [(start, start + prefix), (start + prefix, stop)]


def _initial_at(spec, size: Any) -> Any:
    """``spec``'s declared ``initial``, an ``initial(size)`` called at ``size`` (None
    where that fails: the run's own upload reports it). One that gives a scalar is a
    sentinel too: vLLM's MoE sort pads each expert's run with ``numel``, the count of
    ids (round 65)."""
    initial = spec.initial
    if callable(initial) and not isinstance(initial, np.ndarray) and size is not None:
        try:
            return initial(size)
        except Exception:
            return None
    return initial


def _output_order(spec, want: np.ndarray, packed: bool, expected: Expected) -> _Sorted | None:
    """How an unordered output is put in order before it is compared (None: it is
    not unordered): as a multiset (``_unordered_order``), or among the ties of the
    keys output it names (``_tied_order``)."""
    if not spec.unordered:
        return None
    row = _row(spec, expected)
    if spec.unordered == LISTS and not packed:
        initial = _initial_at(spec, expected.case.size)
        if not isinstance(initial, (int, float, np.number)) or isinstance(initial, bool):
            raise InvalidArgument(
                f'output {spec.label} is declared unordered="lists", which needs the '
                "scalar initial= its free slots hold (0xFFFFFFFF, -1): a list ends where "
                f"that starts; got initial={initial!r}"
            )
        return _lists_order(want, initial, row)
    if spec.unordered is True or packed:
        return _unordered_order(spec, want, packed, row, expected.case.size)
    among = spec.unordered if isinstance(spec.unordered, str) else _keys_name(spec.unordered)
    if isinstance(spec.unordered, str):
        keys = expected.outputs.get(spec.unordered)
    else:  # a function of the case's buffers: the keys the kernel does not store
        keys = spec.unordered(_case_buffers(expected))
    order = None if keys is None else _tied_order(want, np.asarray(keys), row)
    if order is None:
        raise InvalidArgument(
            f"output {spec.label} is unordered among equal {among}, whose reference "
            "output (or keys function) must give one key for each of its elements, or "
            "for each of its rows (shape=(rows, n))"
        )
    order.among = among
    initial = _initial_at(spec, expected.case.size)
    flat = want.reshape(-1)
    parts = []
    for start, stop in order.parts:
        # a run the reference appends into, leaving the sentinel initial after: its
        # values and its sentinels each a multiset (an expert's ids before its padding)
        parts += [
            (a, b) for a, b in _cut_at_prefix(initial, flat, start, stop, packed) if b - a > 1
        ]
    order.parts = parts
    return order


def _keys_name(keys: Any) -> str:
    """How a report names the keys a function declares (``unordered=keys``)."""
    name = getattr(keys, "__name__", "") or type(keys).__name__
    return f"keys {name}()" if name != "<lambda>" else "its declared keys"


def _case_buffers(expected: Expected) -> dict[str, Any]:
    """The case's buffers by name for a keys function (``unordered=keys``): the inputs
    as drawn, each output as the reference computed it, the uniform record under its
    buffer's name."""
    arrays: dict[str, Any] = {**expected.case.arrays, **expected.outputs}
    uniform = next((b for b in expected.case.kernel.buffers if b.access is Access.UNIFORM), None)
    if uniform is not None and expected.case.uniform is not None:
        arrays[uniform.label] = expected.case.uniform.reshape(-1)[0]  # one record
    return arrays


def _each(order: Any, got: np.ndarray, flushed: list, later: np.ndarray | None) -> tuple:
    """``got``, each of ``flushed`` and ``later`` (None: none) put through ``order``."""
    return order(got), [order(f) for f in flushed], None if later is None else order(later)


def _equally_right_mask(rule: Any, got: np.ndarray, want: np.ndarray, expected: Expected):
    """Per element of ``got`` (flat), whether it differs from ``want`` and ``rule`` (a
    buffer's ``equally_right``) accepts it; all False where the rule fails or answers
    in another shape (the elements are then judged as they are)."""
    g, w = np.asarray(got).reshape(-1), np.asarray(want).reshape(-1)
    if g.size != w.size or g.size == 0:
        return np.zeros(g.size, bool)
    arrays = {
        **{k: np.asarray(v).reshape(-1) for k, v in expected.case.arrays.items()},
        **{k: np.asarray(v).reshape(-1) for k, v in expected.outputs.items()},
    }
    try:
        with np.errstate(all="ignore"):
            ok = np.asarray(rule(g.copy(), w.copy(), arrays), bool).reshape(-1)
    except Exception:  # noqa: BLE001  (a rule that cannot read the kernel's values)
        return np.zeros(g.size, bool)
    if ok.size != g.size:
        return np.zeros(g.size, bool)
    return ok & (g != w)


def _as_reference_where_equally_right(
    rule: Any, got: np.ndarray, want: np.ndarray, expected: Expected
) -> np.ndarray:
    """``got`` with each element its declaration accepts shown as the reference's."""
    ok = _equally_right_mask(rule, got, want, expected)
    if not ok.any():
        return got
    out = np.asarray(got).reshape(-1).copy()
    out[ok] = np.asarray(want).reshape(-1)[ok]
    return out.reshape(np.shape(got))


def _equally_right(spec, got: np.ndarray, want: np.ndarray, expected: Expected) -> int:
    """How many elements of ``got`` the buffer's ``equally_right`` accepts in place of
    the reference's values."""
    return int(np.count_nonzero(_equally_right_mask(spec.equally_right, got, want, expected)))


def _indexed_keys(spec, expected: Expected) -> np.ndarray | None:
    """The input an output of indices is unordered among (``unordered=`` naming an
    input: an argsort's keys), as the case drew it; None for any other output."""
    if not isinstance(spec.unordered, str) or spec.unordered in expected.outputs:
        return None
    keys = expected.case.arrays.get(spec.unordered)
    return None if keys is None else np.asarray(keys)


def tied_indices(
    got: np.ndarray, want: np.ndarray, keys: np.ndarray, row: int | None = None
) -> np.ndarray:
    """``got`` (indices into ``keys``' rows, an argsort's or a top-k's) with each index
    that points at a value equal to the one the reference's index points at, and
    appears once in its row, replaced by the reference's: the kernel chose another of
    equal values. Rows: the output's (``row`` elements each; one row when None), and
    ``keys`` split into as many; indices local to a row where the reference's all are,
    else into the whole of ``keys``. Indices out of range, and repeated ones, stay as
    they are (they show as mismatches)."""
    g, w = np.asarray(got).reshape(-1), np.asarray(want).reshape(-1)
    flat_keys = np.asarray(keys).reshape(-1)
    if g.size != w.size or g.size == 0 or flat_keys.size == 0 or w.dtype.kind not in "iu":
        return np.asarray(got)
    if not row:
        row = _permutation_rows(w) if w.size == flat_keys.size else None
    width = int(row) if row and w.size % int(row) == 0 else w.size
    rows = w.size // width
    span = flat_keys.size // rows if flat_keys.size % rows == 0 else 0
    wi, gi = w.astype(np.int64), g.astype(np.int64)
    local = span > 0 and bool(((wi >= 0) & (wi < span)).all())
    row_of = np.repeat(np.arange(rows, dtype=np.int64), width)
    base = row_of * span if local else np.zeros_like(row_of)
    bound = span if local else flat_keys.size
    g_ok, w_ok = (gi >= 0) & (gi < bound), (wi >= 0) & (wi < bound)
    g_key = flat_keys[np.where(g_ok, base + gi, 0)]
    w_key = flat_keys[np.where(w_ok, base + wi, 0)]
    with np.errstate(invalid="ignore"):
        equal = g_key == w_key
        if flat_keys.dtype.kind == "f":
            equal |= np.isnan(g_key) & np.isnan(w_key)
    # an index given twice in a row (a wrong kernel's) is not anyone's tie: every copy
    # stays as it is
    order = np.lexsort((gi, row_of))
    repeated = np.zeros(g.size, bool)
    same = (gi[order][1:] == gi[order][:-1]) & (row_of[order][1:] == row_of[order][:-1])
    repeated[order[1:][same]] = True
    repeated[order[:-1][same]] = True
    out = np.where(g_ok & w_ok & equal & ~repeated, w, g).astype(g.dtype)
    return out.reshape(np.shape(got))


def _permutation_rows(indices: np.ndarray) -> int | None:
    """The row length of a flat argsort's output declared without a ``shape``: the
    smallest length dividing it, from its largest index plus one, into rows that each
    hold a permutation of their own indices (ggml's argsort of ``nrows`` rows); None
    where there is none."""
    flat = indices.astype(np.int64)
    if flat.size == 0 or flat.min() < 0:
        return None
    for length in range(int(flat.max()) + 1, flat.size + 1):
        if flat.size % length == 0:
            rows = np.sort(flat.reshape(-1, length), axis=1)
            return length if (rows == np.arange(length)).all() else None
    return None


def _row(spec, expected: Expected) -> int | None:
    """The length of an output's rows where its ``shape`` has two or more axes."""
    if spec.shape is None:
        return None
    shape = spec.shape_at(expected.case.size)
    return int(shape[-1]) if len(shape) >= 2 else None


def _later(kernel: KernelSpec, spec, region: Region, raw, outcome: Outcome, index: int, target):
    """The output as the run after the timed samples left it, decoded (None when there
    was none), and whether it left the same bytes, guards included: then it is judged as
    the first was, without comparing millions of elements again."""
    later_raw = outcome.later[index] if outcome.later else None
    same = later_raw is not None and np.array_equal(later_raw, raw)
    if later_raw is None or same:
        return None, same
    return _decode(kernel, spec, region, later_raw, target), False


def _judge_output(
    ev: Evaluation,
    kernel: KernelSpec,
    spec,
    region: Region,
    outcome: Outcome,
    index: int,
    expected: Expected,
    info: BackendInfo,
    tolerance: Any,
    covered: dict[str, np.ndarray],
) -> None:
    raw = outcome.first[index]
    got = _decode(kernel, spec, region, raw, info.target)
    edges = _edges(region, raw)
    value_coverage = _value_coverage(expected)
    want = expected.outputs[region.label]
    # a device that flushes: the reference on its inputs flushed, and where elements
    # match neither that nor the reference, also through its operations (computed then)
    flushed = [expected.flushed()[region.label]] if ev.semantics.subnormals_may_flush else []
    later, same_later = _later(kernel, spec, region, raw, outcome, index, info.target)
    packed = _packed_halves(kernel, spec, info.target)
    words = (got, want)  # the poison is a word's: unwritten is told in words
    if packed:
        got, want = _halves(got), _halves(want)
        flushed = [_halves(f) for f in flushed]
        later = None if later is None else _halves(later)
        note = (
            f"{region.label} holds f16 pairs (the kernel stores pack2x16float in it): "
            "each u32 word is judged as its two f16 values, with f16's tolerance"
        )
        if note not in ev.notes:
            ev.notes.append(note)
    indexed = _indexed_keys(spec, expected)
    sort = None if indexed is not None else _output_order(spec, want, packed, expected)
    order = sort if sort is not None else (lambda a: a)
    if indexed is not None:  # indices into an input: any index of an equal value is right
        row, reference_indices = _row(spec, expected), want

        def order(a: np.ndarray) -> np.ndarray:
            return tied_indices(a, reference_indices, indexed, row)

        got, flushed, later = _each(order, got, flushed, later)
        note = (
            f"{region.label} is declared unordered among equal {spec.unordered}: it holds "
            f"indices into {spec.unordered}'s rows, and an index the kernel gives in place "
            f"of the reference's is shown as the reference's where {spec.unordered} holds "
            "an equal value there (each index once a row): an argsort's ties in any order"
        )
        if note not in ev.notes:
            ev.notes.append(note)
    if spec.labels is not False:  # a labeling: judged as its partition, in want's labels
        fixed = () if spec.labels is True else spec.labels
        reference_labels = want

        def order(a: np.ndarray) -> np.ndarray:
            return relabeled(a, reference_labels, fixed)

        got, flushed, later = _each(order, got, flushed, later)
        kept = f" (kept as they are: {', '.join(map(str, fixed))})" if fixed else ""
        note = (
            f"{region.label} is declared a labeling: it is judged as the partition its "
            "labels make, each of the kernel's groups shown under the reference's label "
            f"at its first element{kept}; a group the reference splits or that takes a "
            "kept value shows under a label the reference does not use"
        )
        if note not in ev.notes:
            ev.notes.append(note)
    if spec.equally_right is not None:  # other values the spec declares as right
        accepted = _equally_right(spec, got, want, expected)
        rule, reference_values = spec.equally_right, want

        def order(a: np.ndarray) -> np.ndarray:
            return _as_reference_where_equally_right(rule, a, reference_values, expected)

        got, flushed, later = _each(order, got, flushed, later)
        note = (
            f"{region.label} declares other values equally right (equally_right=): "
            f"{accepted} of its elements hold a value other than the reference's that the "
            "declaration accepts, shown as the reference's"
        )
        if note not in ev.notes:
            ev.notes.append(note)
    if sort is not None:  # any order is right: compared as multisets
        want = order(want)
        got, flushed, later = _each(order, got, flushed, later)
        note = (
            f"{region.label} is declared unordered: its values are compared sorted, as "
            "a multiset (element i of the report is the i-th smallest)"
        )
        if sort.among == LISTS:
            note = (
                f"{region.label} is declared lists appended from their own bases: each run "
                f"of the reference's written {'rows' if sort.unit > 1 else 'elements'} "
                f"({len(sort.parts)} of two or more here) is compared sorted, as a multiset, "
                "and the free slots after each list are compared where they are"
            )
        elif sort.among is not None:
            note = (
                f"{region.label} is declared unordered among equal {sort.among}: within "
                f"each run of equal keys in the reference's {sort.among} "
                f"({len(sort.parts)} runs of two or more here), its values are compared "
                "sorted, as a multiset; elsewhere element by element"
            )
        elif sort.rows:
            sentinel = _initial_at(spec, expected.case.size)
            note = (
                f"{region.label} is declared unordered and shaped in {sort.rows} rows: each "
                "row is compared sorted, as a multiset of its own (where its reference "
                f"appends, leaving the initial {sentinel!r} after, its prefix and the rest "
                "each; element i of the report is the i-th smallest of its part)"
            )
        elif sort.unit > 1:
            note = (
                f"{region.label} is declared unordered and shaped in rows of {sort.unit} "
                "integers: each row is kept whole (a key with its value) and the rows are "
                "compared sorted, as a multiset of rows"
                + (
                    f" (its reference appends: the first {sort.prefix // sort.unit} rows "
                    "and the rest each)"
                    if sort.prefix is not None
                    else ""
                )
            )
        elif sort.prefix is not None:
            sentinel = _initial_at(spec, expected.case.size)
            note = (
                f"{region.label} is declared unordered and its reference appends: it fills "
                f"the first {sort.prefix} elements and leaves the rest at the initial "
                f"{sentinel!r}, so each part is compared sorted, as a multiset (element i "
                "of the report is the i-th smallest of its part)"
            )
        if note not in ev.notes:
            ev.notes.append(note)
    trig = info.target is not None and calls_trig(kernel, info.target)
    wgsl = info.target == "wgsl"
    tf32 = rounds_to_tf32(kernel, info.target)
    tensor_float = accumulates_on_tensor_cores(kernel, info.target)
    inverse_trig = wgsl and calls_inverse_trig(kernel)
    # llvmpipe blends 8-bit unorm texels in codes (forge.textures.CODE_FILTERING_ADAPTERS)
    in_codes = wgsl and filters_in_codes(info.adapter.name if info.adapter else "")
    check_unwritten = spec.initial is None and not spec.inout
    # an rgba8unorm texture: the device converts the floats the reference stores
    unorm = info.target is not None and spec.unorm
    first_leaf = True
    flushed_leaves = [dict(leaves(region.label, f)) for f in flushed]
    later_leaves = dict(leaves(region.label, later)) if later is not None else {}
    for (label, got_leaf), (_, want_leaf) in zip(
        leaves(region.label, got), leaves(region.label, want)
    ):
        tol = _leaf_tolerance(kernel, want_leaf.dtype, info, expected, tolerance)
        masks = _semantics_masks(ev.semantics, want_leaf, [f[label] for f in flushed_leaves])
        judging = (
            value_coverage,
            expected,
            region.label,
            label,
            trig,
            packed,
            wgsl,
            tf32,
            inverse_trig,
            tensor_float,
            in_codes,
        )
        if unorm:
            comparison = _unorm_comparison(
                got_leaf, want_leaf, tol, expected, label, wgsl, in_codes
            )
        else:
            comparison = _compare_leaf(got_leaf, want_leaf, tol, masks, *judging)
        if flushed and not comparison.passed and len(flushed_leaves) == 1 and not unorm:
            operations = expected.flushed_operations()[region.label]
            operations = order(_halves(operations) if packed else operations)
            flushed_leaves.append(dict(leaves(region.label, operations)))
        if len(flushed_leaves) > 1 and not comparison.passed:
            masks = _semantics_masks(ev.semantics, want_leaf, [f[label] for f in flushed_leaves])
            comparison = _compare_leaf(got_leaf, want_leaf, tol, masks, *judging)
        if _fp8_judged_exactly(kernel, want_leaf, expected.case.size, info, tolerance):
            # FP8: the code numpy rounds to, or where a float32 computation may land on
            # either side of a tie, the other one (one step everywhere passed a
            # quantizer that truncates)
            roundings = expected.fp8_roundings().get(region.label, [])
            codes = [c.reshape(want_leaf.shape) for c in roundings if c.size == want_leaf.size]
            if codes:
                # judged by the codes alone: a rounding bound scaled from nudged runs
                # reached a whole step at a third of a quantizer's elements
                tol = dataclasses.replace(tol, atol=0.0, rtol=0.0, ulp=0)
                masks["single"] = masks.get("single", []) + codes
                masks["bound"] = np.zeros(want_leaf.shape)
                comparison = compare(
                    got_leaf, want_leaf, tol, nonfinite_either=value_coverage, **masks
                )
        if not comparison.passed and want_leaf.dtype.kind in "iu" and not packed:
            # numpy's float to integer conversion out of range is undefined; the GPU's
            # saturates: u32(-2.5) is 0 where numpy's uint32 wraps
            saturated = expected.saturated_casts(wgsl).get(region.label)
            leaf = None
            if saturated is not None:
                leaf = dict(leaves(region.label, order(saturated))).get(label)
            if leaf is not None and leaf.size == want_leaf.size:
                masks["saturated"] = leaf.reshape(want_leaf.shape)
                comparison = _compare_leaf(got_leaf, want_leaf, tol, masks, *judging)
        # the reference's outputs computed otherwise, taken as right where they differ
        take = functools.partial(
            _taking, got_leaf, want_leaf, tol, masks, judging, region.label, label, order
        )
        if not comparison.passed and want_leaf.dtype.kind in "iu" and not packed:
            # a float64 reference that decides between values float32 rounds to one or
            # nearly: first rounded to float32 alone (one run); the runs moved by
            # float32's roundings (many) after the cheaper acceptances below
            comparison = _single_stages(
                take, comparison, want_leaf, expected, region.label, range(1)
            )
            # a bin within atan2's error of its edge
            if wgsl:
                comparison = take(
                    lambda: expected.builtin_erring().get(region.label, []), comparison
                )
            # reads through a linear filter, as a device filters
            comparison = take(
                lambda: expected.filtered_runs(in_codes).get(region.label, []), comparison
            )
        if (
            not comparison.passed
            and want_leaf.dtype.kind in "iu"
            and not spec.unordered
            and spec.labels is False
        ):
            # an escape count or an index decided near a boundary: a value the reference
            # gives with its float operations rounded otherwise is right
            unstable = expected.unstable_integers(wgsl).get(label)
            if unstable is not None and unstable[0].size == want_leaf.size:
                moved, low, high, flipped, two_way = unstable
                # only where the runs scatter over more than one step (an iteration's
                # chaos): they sample too few of the values right roundings reach, and
                # any value is taken. One step apart is a boundary (a bin, a tie, a
                # truncated quotient the reference emulates in float64), where the
                # kernel is judged as written: a boundary bug shows exactly there
                chaotic = unstable.far
                accepted = moved & chaotic
                # but a value moving between two alone however often it reruns is a
                # choice between two candidates (a nearest neighbour's index at a near
                # tie), and only they are right: an index past the known points passed
                got_flat = np.asarray(got_leaf).reshape(-1)
                accepted &= ~two_way | (got_flat == low) | (got_flat == high)
                if expected.truth.reference is not None and packs_bits(expected.truth.reference):
                    # a bit field's word (an NMS mask) is no count: only the bits the
                    # runs flipped are free, each a decision at a tie, and the others
                    # are judged (a word filled with ones where one bit was free passed)
                    want_flat = np.asarray(want_leaf).reshape(-1)
                    off = got_flat.astype(want_flat.dtype) ^ want_flat
                    accepted &= (off & ~flipped) == 0
                # a one-step move where the kernel's value is the one the reference
                # gives in float64 throughout: the real numbers lie on the kernel's side
                # of the boundary and only the reference's float32 rounding crossed it
                # (an FMA the device contracts; GPU MODE's grayscale, round 46); a tie
                # the real numbers sit on exactly stays judged as written
                widened = expected.widened_integers().get(label)
                if widened is not None and widened.size == want_leaf.size:
                    accepted |= moved & ~chaotic & (got_flat == widened)
                masks["unstable"] = accepted.reshape(want_leaf.shape)
                comparison = _compare_leaf(got_leaf, want_leaf, tol, masks, *judging)
            # an argmin over distances whose terms cancel (k-means' expanded form): an
            # index whose value float32 cannot tell from the chosen one's is right
            choices = expected.near_choices().get(label) if not comparison.passed else None
            if choices is not None and choices.chosen.size == want_leaf.size:
                masks["near"] = choices.accepts(got_leaf).reshape(want_leaf.shape)
                comparison = _compare_leaf(got_leaf, want_leaf, tol, masks, *judging)
        if not comparison.passed and want_leaf.dtype.kind in "iu" and not packed:
            # the runs moved by float32's roundings (24 and 30 reruns of the reference),
            # only where few elements are left (a wrong kernel is off at many more) and
            # what an escape count's chaos or a near choice accepts did not do: a
            # Mandelbrot's counts took 27 s of them first, and passed by its chaos
            stages = range(1, SINGLE_STAGES)
            comparison = _single_stages(take, comparison, want_leaf, expected, region.label, stages)
        if (
            comparison.passed
            and _rounds_to_nearest(want_leaf.dtype)
            and not _declared(kernel, want_leaf.dtype, expected.case.size, info, tolerance)
        ):
            # within tolerance: rounded to nearest, or one way (a conversion truncating)?
            comparison = one_way_rounding(got_leaf, want_leaf, comparison)
        if not check_unwritten:
            unwritten = np.zeros(got_leaf.size, bool)
        elif packed:  # a word still poisoned leaves both its halves unwritten
            unwritten = np.repeat(unwritten_mask(words[0]) & ~unwritten_mask(words[1]), 2)
        else:
            unwritten = unwritten_mask(got_leaf) & ~unwritten_mask(want_leaf)
            if got_leaf.dtype.itemsize == 1 and not is_float_dtype(got_leaf.dtype):
                # a poison byte is an ordinary int8 or uint8 value (0x7F is 127, where
                # a saturating conversion lands): one the judgement accepted instead
                # of the reference's (saturated, moved by float32's roundings, an
                # unstable or near choice) is a value written, not poison left (round
                # 57: an int8 quantiser against a reference that does not clip)
                matches = np.zeros(got_leaf.shape, bool)
                alternatives = [masks.get("saturated"), *masks.get("single", [])]
                for alternative in alternatives:
                    if alternative is not None:
                        matches |= got_leaf == np.asarray(alternative).reshape(got_leaf.shape)
                for taken in (masks.get("unstable"), masks.get("near")):
                    if taken is not None:
                        matches |= np.asarray(taken, bool).reshape(got_leaf.shape)
                unwritten &= ~matches.reshape(unwritten.shape[0], -1).all(axis=1)
            if got_leaf.dtype.itemsize == 1 and is_float_dtype(got_leaf.dtype):
                # an FP8 poison byte is an ordinary code (0xBA is -224 in E5M2): one
                # within tolerance of the reference is a value written, not poison left
                matches = element_matches(got_leaf, want_leaf, tol)
                if masks.get("bound") is not None:  # or within a correct computation's
                    with np.errstate(invalid="ignore"):
                        off = np.abs(
                            got_leaf.astype(np.float64) - want_leaf.astype(np.float64)
                        ).reshape(-1)
                        matches |= off <= np.asarray(masks["bound"], np.float64).reshape(-1)
                unwritten &= ~matches.reshape(unwritten.shape[0], -1).all(axis=1)
        judged = (
            np.ones(got_leaf.size, bool)
            if masks["indeterminate"] is None
            else ~masks["indeterminate"]
        )
        if value_coverage:  # a NaN matched by a NaN checks no arithmetic
            judged = judged & _finite(want_leaf)
        if masks.get("nan_input") is not None:  # excused here: the finite set judges them
            # (those that match the reference itself are judged: a NaN-free row's
            # elements match its NaN-dropping twin too, and a failing softmax said
            # "6400 judged in no input set" of all its 6400)
            excused = masks["nan_input"].reshape(-1) & ~element_matches(got_leaf, want_leaf, tol)
            judged = judged & ~excused
        covered[label] = covered.get(label, np.zeros(got_leaf.size, bool)) | judged
        later_cmp: Comparison | None = comparison if same_later else None
        if label in later_leaves:
            later_masks = dict(masks)
            if masks.get("nan_input") is not None:  # what the later run matches, not the first
                later_masks["nan_input"] = nan_excused(
                    later_leaves[label], expected.nan_alternatives().get(region.label, []), tol
                )
            later_cmp = compare(
                later_leaves[label], want_leaf, tol, nonfinite_either=value_coverage, **later_masks
            )
            if not later_cmp.passed and "bound" not in later_masks:
                # the first run matched within tolerance, so no bound was made for it: a
                # later run summing its float atomics in another order may need one (a
                # weighted histogram off by 269 ulp on the H200, within its rounding)
                later_cmp = _compare_leaf(
                    later_leaves[label], want_leaf, tol, later_masks, *judging
                )
        raced = later_cmp is not None and not later_cmp.passed and not same_later
        note = outcome.later_reordered
        if raced and note and note not in ev.notes:
            ev.notes.append(note)
        first_unwritten = np.flatnonzero(unwritten)
        ev.outputs[label] = OutputCheck(
            label,
            comparison,
            got_leaf.size,
            int(unwritten.sum()),
            int(first_unwritten[0]) if first_unwritten.size else -1,
            edges.past if first_leaf else 0,
            edges.first_past if first_leaf else -1,
            edges.before if first_leaf else 0,
            edges.padding if first_leaf else 0,
            later_cmp,
            int(covered[label].sum()),
            edges.padding_written if first_leaf else 0,
        )
        ev.got[label] = got_leaf.copy()
        ev.counts[label] = got_leaf.size
        first_leaf = False


def _inputs_at(ev: Evaluation, expected: Expected) -> None:
    """For each failing flat output, the values of the inputs of the same length at its
    first mismatching elements (elementwise kernels: what made it wrong); a buffer the
    kernel updates in place shows what it held before, named ``label (before)``."""
    inputs = {
        f"{label} (before)" if label in expected.outputs else label: array.reshape(-1)
        for label, array in expected.case.arrays.items()
        if array.dtype.names is None
    }
    for label, check in ev.outputs.items():
        if check.comparison.passed:
            continue
        shown = {}
        for mismatch in check.comparison.first_mismatches[:_SHOWN_INPUTS]:
            flat = (
                int(np.ravel_multi_index(mismatch.index, (check.count,)))
                if len(mismatch.index) == 1
                else None
            )
            if flat is None:
                continue
            row = {
                name: array[flat].item()
                for name, array in inputs.items()
                if array.size == check.count
            }
            if row:
                shown[flat] = row
        if shown:
            ev.inputs_at_mismatch[label] = shown


def _reference_overflow_notes(ev: Evaluation, expected: Expected) -> None:
    """A note for each failing output where the reference is NaN or +-Inf, the kernel
    finite, and the inputs finite (all of them, or those shown at that element): a
    naive reference (``np.exp(x) / np.exp(x).sum()`` over a row of large negatives is
    0 / 0) is what is wrong there, more often than a kernel that subtracts the row's
    maximum. The verdict stays: which of the two is right is the user's to say."""
    # every drawn float buffer, an in-place one's values included (a covariance that
    # centres its data in place: a column's mean is -inf where another row holds -inf)
    floats = {
        label: a
        for label, a in expected.case.arrays.items()
        if a.dtype.names is None and a.dtype.kind == "f"
    }
    everywhere = all(bool(np.isfinite(a).all()) for a in floats.values())
    if everywhere:
        _poison_read_note(ev)
    for label, check in ev.outputs.items():
        comparison = check.comparison
        if comparison.passed or not comparison.nonfinite_mismatches:
            continue
        shown = ev.inputs_at_mismatch.get(label, {})
        for mismatch in comparison.first_mismatches:
            try:
                with np.errstate(invalid="ignore"):  # the poison is a signalling NaN
                    want = np.asarray(mismatch.want, np.float64)
                    got = np.asarray(mismatch.got, np.float64)
            except (TypeError, ValueError):
                continue
            if np.isfinite(want).all() or not np.isfinite(got).all():
                continue
            flat = mismatch.index[0] if len(mismatch.index) == 1 else None
            inputs = shown.get(flat, {}) if flat is not None else {}
            # only where every float input is shown there (elementwise): a weight
            # read by many elements (a convolution's) may hold the infinity
            finite_there = set(floats) <= set(inputs) and all(
                np.isfinite(np.asarray(v, np.float64)).all()
                for v in inputs.values()
                if isinstance(v, (int, float))
            )
            if not (everywhere or finite_there):
                continue
            ev.notes.append(
                f"{label}: at element {list(mismatch.index)} the reference gave "
                f"{mismatch.want} and the kernel {mismatch.got} from finite inputs: if "
                "the reference overflows or divides 0 by 0 there (np.exp of a large "
                "input, a softmax without its row maximum subtracted, a norm of huge "
                "values), it is what is wrong, not the kernel: compute it stably, or "
                "give the input a domain (where NaN is the right result, a sqrt or log "
                "of a negative, the kernel is wrong)"
            )
            break


def _poison_read_note(ev: Evaluation) -> None:
    """A note where an output holds NaN at elements the reference has finite, and every
    input is finite: what holds no value is NaN here (the guard elements past a
    buffer's end, an output before it is written), so the kernel most often read one
    of those (Rodinia's srad at one block row reads past ``J_cuda``'s end)."""
    nan_at = [
        label
        for label, check in ev.outputs.items()
        if not check.comparison.passed
        and any(
            isinstance(m.got, (float, np.floating))
            and isinstance(m.want, (float, np.floating))
            and np.isnan(m.got)
            and np.isfinite(m.want)
            for m in check.comparison.first_mismatches
        )
    ]
    if nan_at:
        ev.notes.append(
            f"{', '.join(nan_at)}: NaN where the reference is finite, from inputs that "
            "are all finite: kernel-forge fills what holds no value with NaN (the guard "
            "elements past each buffer's end, an output before it is written), so the "
            "kernel most likely read one of those: an index past a buffer's end (a "
            "neighbour of the last row or block), or an output another invocation had "
            "not written yet (a missing barrier, or a launch that runs before the one "
            "that writes it); else it computed a 0 / 0, inf - inf or square root of a "
            "negative that the reference does not"
        )


#: How the report names an input family (``oracle._inputs``).
_FAMILY_NAMES = {
    "zeros": "zeros",
    "small": "small values (1e-8 to 1e-2, a row's mean square near a normalisation's epsilon)",
    "tiny": "tiny values (near the smallest normal float; their squares underflow)",
    "subnormal": "subnormals",
    "large": "large magnitudes",
    "negatives": "negative values",
    "nonfinite": "NaN or Inf",
    "mixed": "values mixed from every family",
}
#: Fewer mismatches than this say nothing of where a kernel goes wrong (a tiny size's
#: one element may be any family's).
_FAMILY_EVIDENCE = 3


def _family_at(blocks: tuple[tuple[str, int, int], ...], element: int) -> str:
    """The family of the block holding ``element`` ("" past the last block)."""
    for family, start, stop in blocks:
        if start <= element < stop:
            return family
    return ""


def _family_notes(ev: Evaluation, expected: Expected) -> None:
    """For each failing output, the drawn input families its mismatches (a sample spread
    over them) lie in, when none lies in normal values: an input of the output's length
    (element by element), or of rows where the output has one element a row (a
    reduction). A
    normalisation wrong only on rows of small values has its epsilon in the wrong place;
    the layout ends on normal values, so a boundary bug does not read as a family's."""
    from ._inputs import row_length

    case = expected.case
    specs = {buffer_label(spec): spec for spec in case.kernel.buffers}
    for label, check in ev.outputs.items():
        comparison = check.comparison
        flats = comparison.spread
        if comparison.passed or comparison.reason or len(flats) < _FAMILY_EVIDENCE:
            continue
        findings = []
        for name, blocks in case.layout.items():
            array, spec = case.arrays[name], specs.get(name)
            if spec is None or array.dtype.names or array.dtype.shape or not blocks:
                continue
            if array.size == check.count:
                per = 1
            elif check.count and array.size % check.count == 0:
                per = array.size // check.count
                if row_length(spec, array.size, case.size) != per:
                    continue
            else:
                continue
            families = {_family_at(blocks, flat * per) for flat in flats}
            if not families <= set(_FAMILY_NAMES):  # normal values, or not drawn
                continue
            where = f"{name} (before)" if name in expected.outputs else name
            named = " or ".join(_FAMILY_NAMES[f] for f in sorted(families, key=FAMILIES.index))
            findings.append(f"where {where} holds {named}")
        if findings:
            sampled = "" if len(flats) == comparison.mismatches else f" ({len(flats)} sampled)"
            ev.notes.append(
                f"{label}: its mismatches{sampled} all lie "
                + ", and ".join(findings[:2])
                + ", none where it holds normal values: the kernel is wrong on those "
                "inputs only"
            )


def _tied(row: np.ndarray, got: int, want: int) -> bool:
    """Whether index ``got`` of ``row`` holds what index ``want`` does; where ``want``
    holds a NaN (numpy's argmax and argmin take a NaN as the extreme), whether ``got``
    holds the row's largest or least value with NaN taken as missing."""
    if row[got] == row[want] or (np.isnan(row[got]) and np.isnan(row[want])):
        return True
    if not np.isnan(row[want]) or np.isnan(row).all():
        return False
    return bool(row[got] == np.nanmax(row) or row[got] == np.nanmin(row))


def _tie_notes(ev: Evaluation, expected: Expected) -> None:
    """For a failing integer output of k elements a row of a float input (an argmax or
    a pooling index, k = 1; a top-k or an argsort of each row), whether at each of its
    mismatches (a sample spread over them) the kernel's index holds the same value of
    that row as the reference's: a tie, where the reference took one index (numpy's and
    torch's argmax the first, a stable sort the first in order) and the kernel another.
    On a device that flushes subnormals the values are compared flushed, as the kernel
    read them (a subnormal and a zero are a tie there). The verdict stands; the note
    says what the difference is."""
    from ._inputs import row_length

    case = expected.case
    specs = {buffer_label(spec): spec for spec in case.kernel.buffers}
    for label, check in ev.outputs.items():
        comparison, want = check.comparison, expected.outputs.get(label)
        got = ev.got.get(label)
        flats = comparison.spread
        if comparison.passed or comparison.reason or not len(flats) or got is None:
            continue
        if want is None or want.dtype.kind not in "iu" or got.dtype.kind not in "iu":
            continue
        got, want = got.reshape(-1), want.reshape(-1)
        for name, array in case.arrays.items():
            spec = specs.get(name)
            if spec is None or array.dtype.kind != "f" or not check.count:
                continue
            per = row_length(spec, array.size, case.size)  # elements a row of the input
            count = array.size // per if per > 1 and array.size % per == 0 else 0
            if not count or check.count % count:
                continue
            k = check.count // count  # elements a row of the output
            rows = array.reshape(count, per)
            if ev.semantics.subnormals_may_flush:  # equal as the kernel read them
                rows = flush_subnormals(rows)
            picked = [(int(flat) // k, int(got[flat]), int(want[flat])) for flat in flats]
            if not all(0 <= g < per and 0 <= w < per for _, g, w in picked):
                continue
            # ties on rows that hold one value alone (zeros) would say as much of a
            # count or any integer that happens to be in range: a row with two values
            # at least must show it
            varied = any(not (rows[r] == rows[r][0]).all() for r, _, _ in picked)
            if varied and all(_tied(rows[r], g, w) for r, g, w in picked):
                sampled = "" if len(flats) == comparison.mismatches else f" ({len(flats)} sampled)"
                ev.notes.append(
                    f"{label}: at each of its mismatches{sampled} the kernel's index holds the "
                    f"same value of {name}'s row as the reference's: a tie, where the "
                    "reference takes one of the equal values' indices (numpy's and torch's "
                    "argmax the first) and the kernel another; right for a kernel meant to "
                    "return any of them, wrong for one meant to match the reference's choice"
                )
                break


def judge(
    ev: Evaluation,
    plan: Plan,
    outcome: Outcome,
    expected: Expected,
    info: BackendInfo,
    tolerance: Any,
    covered: dict[str, np.ndarray],
) -> None:
    """Fill ``ev``'s outputs and modified inputs from ``outcome``; ``covered`` gathers,
    per output lane, whether it was judged in some input set."""
    kernel = expected.case.kernel
    for index, (spec, region) in enumerate(zip(kernel.buffers, plan.regions)):
        raw = outcome.first[index]
        if region.output:
            _judge_output(
                ev, kernel, spec, region, outcome, index, expected, info, tolerance, covered
            )
        elif spec.access is Access.READ or spec.access is Access.UNIFORM:
            changed, _ = _changed_elements(raw, region.data, region.itemsize)
            if changed:
                ev.inputs_modified[buffer_label(spec)] = changed
        elif spec.access is Access.READ_WRITE:  # scratch: its values are not judged
            _scratch_edges(ev, region, raw)
    _inputs_at(ev, expected)
    _reference_overflow_notes(ev, expected)
    _family_notes(ev, expected)
    _tie_notes(ev, expected)
    _loop_cap_notes(ev, kernel, info, expected)
    endless_loop_finding(ev, kernel, info)
    _opaque_trig_notes(ev, kernel, expected, info)


def _opaque_trig_notes(
    ev: Evaluation, kernel: KernelSpec, expected: Expected, info: BackendInfo
) -> None:
    """A note where a WGSL kernel that calls sin or cos fails in value against a numpy
    reference that calls none of the functions the oracle can carry WGSL's error through
    (``Expected.trig_bound``): an FFT's twiddles checked against ``np.fft.fft`` carry
    2**-11 each through every stage, further than the per-output widening."""
    if info.target != "wgsl" or expected.reference_backend is not None:
        return
    failing = [
        label
        for label, check in ev.outputs.items()
        if not check.comparison.passed and check.comparison.mismatches
    ]
    if not failing or not calls_trig(kernel, "wgsl"):
        return
    carried = expected.trig_bound(WGSL_TRIG_ERROR)  # zero where the reference calls none
    failing = [label for label in failing if not np.any(carried.get(label, 0.0))]
    if not failing:
        return
    ev.notes.append(
        f"{', '.join(failing)}: this kernel calls sin or cos, which WGSL lets err by "
        f"{WGSL_TRIG_ERROR:.2g} each, and each output was allowed that much; its reference "
        "calls no np.sin, np.cos, np.tan or np.exp of an imaginary angle through which the "
        "oracle could carry that error further (np.fft, say), so where an output sums many "
        "such values a right kernel may be further off: give a tolerance from WGSL's bound"
    )


#: Adapters that end every loop of an invocation after this many iterations, by a
#: name their adapter reports: llvmpipe (Mesa's lavapipe, the CPU Vulkan driver of CI)
#: stops loops at 65535 without a word, so a wait that would never end goes on, and a
#: longer loop's result is cut short.
LOOP_CAPS = {"llvmpipe": 65535}


def _loop_cap_notes(
    ev: Evaluation, kernel: KernelSpec, info: BackendInfo, expected: Expected
) -> None:
    """On an adapter that caps loops (``LOOP_CAPS``), a note for a WGSL kernel whose
    outputs fail and that loops where a loop may reach the cap (``_may_loop_long``:
    what it writes may be cut short), and for one that passes while a loop waits on
    other invocations (a pass here does not show the wait ends: WebGPU promises no
    forward progress between workgroups, and on a GPU a wait on a flag nobody sets
    hangs)."""
    if info.target != "wgsl":
        return
    cap = next((n for name, n in LOOP_CAPS.items() if name in info.adapter.name.lower()), None)
    if cap is None:
        return
    loops, waits = wgsl_loops(kernel)
    failing = any(not check.comparison.passed for check in ev.outputs.values())
    where = f"{info.adapter.name} ends every loop of an invocation after {cap} iterations"
    if failing and loops and (waits or _may_loop_long(kernel, expected, cap)):
        ev.notes.append(
            f"{where}: where this kernel's loops run longer (a serial pass over more "
            "elements, a wait on other invocations), what it writes here is cut short; "
            "judge it on another adapter too"
        )
    elif not failing and waits:
        ev.notes.append(
            f"{where}: this kernel has a loop that reads an atomic (a retry of a "
            "compare-exchange, a probe of a hash table, or a wait on other invocations); "
            "if it waits for another invocation, it ends here whether or not what it "
            "waits for happens, so this pass does not show that it ends on a GPU (WebGPU "
            "promises no forward progress between workgroups); judge it on another "
            "adapter too"
        )


def endless_loop_finding(ev: Evaluation, kernel: KernelSpec, info: BackendInfo) -> None:
    """A finding for a WGSL kernel with a loop that never ends (``endless_wgsl_loops``:
    ``for (...; s >= 0u; ...)`` with no break): a GPU hangs on it (the evaluation's
    TIMEOUT says why: ``oracle._evaluate``), while llvmpipe ends it after 65535
    iterations (``LOOP_CAPS``) and, where the extra iterations change nothing
    (``s >>= 1u`` stuck at 0), its outputs pass."""
    if info.target != "wgsl" or any(f.check == "loop" for f in ev.extra):
        return
    conditions = endless_wgsl_loops(kernel)
    if conditions:
        ev.extra.append(
            Finding(
                "loop",
                "a loop never ends: its condition "
                + ", ".join(f"`{c}`" for c in conditions)
                + " is true for every u32 and the loop has no break or return (a GPU hangs "
                "on it; llvmpipe ends every loop after 65535 iterations, so its outputs may "
                "match); compare with `> 0u`, or count with an i32",
            )
        )


# what decides how long a loop runs: a for's header, a while's condition, the condition
# of an ``if (...) { break; }``
_LOOP_HEADS = re.compile(
    r"\bfor\s*\(([^{]*)\)\s*\{|\bwhile\s*\(?([^{]*)\)?\s*\{|\bif\s*\(([^{]*)\)\s*\{?\s*break"
)


def _may_loop_long(kernel: KernelSpec, expected: Expected, cap: int) -> bool:
    """Whether a loop of ``kernel`` may run ``cap`` times at this case: a buffer or a
    dimension of that many elements, or a count that large in a loop's condition in the
    WGSL or in the uniform's values (an escape-time iteration's maximum). A histogram whose loops
    run 37 and 23 times was told its writes may be cut short (round 35)."""
    case = expected.case
    if largest_array(case) >= cap or int(case.size) >= cap:  # the size: every dim's product
        return True
    source = kernel.sources.get("wgsl")
    if isinstance(source, str):
        heads = ["".join(groups) for groups in _LOOP_HEADS.findall(strip_comments(source))]
        if any(
            int(n, 16 if n.lower().startswith("0x") else 10) >= cap
            for head in heads
            for n in re.findall(r"\b(0[xX][0-9a-fA-F]+|\d+)[iu]?\b", head)
        ):
            return True
    record = case.uniform
    if record is not None and record.dtype.names:
        for name in record.dtype.names:
            values = np.asarray(record[name])
            if values.dtype.kind in "iuf" and np.nanmax(np.abs(values.astype(np.float64))) >= cap:
                return True
    return False


def _value_coverage(expected: Expected) -> bool:
    """Whether an element counts as judged only where its expected value is finite: in
    the generated input set that holds NaN, Inf and huge values, an output that a NaN
    or an overflow reaches (every element of a matmul whose rows each hold one) matches
    by its NaN pattern whatever the arithmetic, so the oracle runs the finite input set
    for it. Elsewhere (the finite sets, a user's own arrays) a non-finite expectation is
    the kernel's own result and is judged as such."""
    return expected.case.generated and expected.case.input_set == "all"


def _finite(values: np.ndarray) -> np.ndarray:
    if values.dtype.kind in "iub":
        return np.ones(values.shape, bool)
    with np.errstate(invalid="ignore"):
        return np.isfinite(values.astype(np.float64, copy=False))


def coverage_gaps(covered: dict[str, np.ndarray]) -> dict[str, int]:
    """Per output lane label, how many elements were judged in no input set."""
    return {label: int((~mask).sum()) for label, mask in covered.items() if not mask.all()}

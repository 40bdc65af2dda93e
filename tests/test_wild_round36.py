"""Round 36's findings (tests/wild/round36.py), each pinned by the smallest run that
shows it: a host function's prototype (a .cu file's header declaring its launcher, as
mochimodev's sha256.cuh does) was refused by NVRTC, which nvcc compiles (fixed: such a
compile is retried with the prototypes as device declarations; ``<memory.h>`` is served
too, tests/test_nvrtc_headers.py); an unordered output of one list per bucket, each
appended from its own offset, was compared as one multiset, so an index appended one
past its bucket's base passed (fixed: an unordered output shaped in rows is a multiset
a row); and a min/max reduction that leaves out the last element of each block passed
unless that element happened to be an extreme (fixed: each drawn line and each aligned
block holds its extremes at its ends, ``oracle._inputs._extremes_at_ends``)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import oracle
from forge import BufferSpec
from forge.errors import CompileError
from oracle import Verdict
from oracle.pytest_plugin import require_available
from tests.wild.round36 import MINMAX_WGSL

_PROTOTYPE = """
void launch_scale(float* x, int n);  // the host launcher, defined in another file
void launch_scale_with_a_long_name(float* x,
                                   int n);
extern "C" __global__ void scale(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
}
"""


def test_a_host_prototype_compiles_with_nvrtc_as_nvcc_compiles_it():
    """No device needed: NVRTC refused ``void launch(float* x, int n);`` ("host functions
    are not allowed in JIT mode"), a declaration nvcc compiles and never asks the body
    of; mochimodev's sha256.cuh declares its batch launcher so. A host function with a
    body is still refused, with NVRTC's message."""
    from backends.cuda._nvrtc import compile_module

    image, names = compile_module(_PROTOTYPE, ["scale"], "sm_90")
    assert image and names == {"scale": "scale"}
    defined = _PROTOTYPE.replace(
        "void launch_scale(float* x, int n);", "void launch_scale(float* x, int n) { }"
    )
    with pytest.raises(CompileError, match="host functions are not allowed"):
        compile_module(defined, ["scale"], "sm_90")


def test_an_unordered_output_shaped_in_rows_is_a_multiset_a_row():
    """No device needed: mapToBuckets' indicesBuckets holds bucket b's indices from b * n
    on, in any order, -1 after (the reference's). Compared as one multiset, an index
    appended one past its bucket's base (or into the next bucket's list) passed; shaped
    (buckets, n), each row's prefix and rest are compared on their own."""
    from oracle._judge import _unordered_order

    spec = BufferSpec(0, "i32", "read_write", initial=-1, unordered=True, shape=(2, 4))
    want = np.array([[3, 1, -1, -1], [0, 2, 4, -1]], np.int32)
    order = _unordered_order(spec, want, False, row=4)
    assert order.parts == [(0, 2), (2, 4), (4, 7), (7, 8)] and order.rows == 2
    right = np.array([[1, 3, -1, -1], [4, 0, 2, -1]], np.int32)
    assert np.array_equal(order(right), order(want))
    one_past = np.array([[-1, 1, 3, -1], [-1, 0, 2, 4]], np.int32)
    next_list = np.array([[1, 3, 0, -1], [2, 4, -1, -1]], np.int32)
    whole = _unordered_order(spec, want, False)  # as it was: one multiset
    for wrong in (one_past, next_list):
        assert np.array_equal(whole(wrong), whole(want))
        assert not np.array_equal(order(wrong), order(want))


def test_a_min_max_that_leaves_out_a_blocks_last_element_fails(request):
    """del-msh's kernel_MinMax_TPB256 port with ``is + 1u < ns``: each block's scan leaves
    out its last point, so the bounding box is wrong only where that point is an extreme
    of an axis, which random inputs made unlikely: at 100 points one block, its last
    point the extreme of an axis in 6% of draws, and it passed. Each drawn line now holds
    its largest magnitude last in the one-sign sets (a bounding box keeps a running
    extremum, so it runs on them): the negative set's minimum is the last point's z."""
    require_available(request.config, "wgpu")
    wild = MINMAX_WGSL
    source = wild.kernel.sources["wgsl"].replace(
        "for (var is = 0u; is < ns; is++)", "for (var is = 0u; is + 1u < ns; is++)"
    )
    kernel = dataclasses.replace(
        wild.kernel, id=f"{wild.kernel.id}__last_point_left_out", sources={"wgsl": source}
    )
    ev = oracle.evaluate("wgpu", kernel, size=100, seed=0, samples=0)
    assert ev.verdict is Verdict.MISMATCH, ev.report()


def test_an_unordered_list_of_pairs_stored_as_rows_is_one_multiset():
    """No device needed: an unordered output of (x, y) pairs a reference returns as an
    (n, 2) array, so declared with that shape; no row's reference appends (each is a
    whole pair), so the output stays one multiset (and its appended prefix), which any
    order of the pairs passes; a multiset a row failed a right kernel whose pairs came
    in another order."""
    from oracle._judge import _unordered_order

    spec = BufferSpec(0, "u32", "read_write", initial=0xFFFFFFFF, unordered=True, shape=(4, 2))
    sentinel = 0xFFFFFFFF
    want = np.array([[1, 2], [3, 4], [5, 6], [sentinel, sentinel]], np.uint32)
    order = _unordered_order(spec, want, False, row=2)
    assert order.rows == 0 and order.prefix == 6
    right = np.array([[5, 6], [1, 2], [3, 4], [sentinel, sentinel]], np.uint32)
    assert np.array_equal(order(right), order(want))
    dropped = np.array([[5, 6], [1, 2], [sentinel, sentinel], [sentinel, sentinel]], np.uint32)
    assert not np.array_equal(order(dropped), order(want))

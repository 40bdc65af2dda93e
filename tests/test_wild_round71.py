"""What round 71 of the wild kernels (tests/wild/round71.py: CUDA as libraries write it
since CUDA 11: cuda-samples' ``reduce7`` with ``__reduce_add_sync`` and a ballot's mask
and its WebGPU port on subgroups, cuda-samples' ``cg_reduce`` with
``cg::tiled_partition<32>`` and ``cg::reduce``, CUB's ``BlockSortKernel`` over floats,
and cuDF's hash CSR groupby build with ``__match_any_sync`` and
``cuda::atomic_ref<size_type, cuda::thread_scope_device>``) showed, pinned.

The reduce7 port passes on the reference, lavapipe and SwiftShader and its mutants fail
on both (``KFORGE_SLOW_TESTS=1``); every CUDA original and mutant compiles with NVRTC
for sm_90 (their runs are the GPU machine's). No oracle change.

- Compiled as written, no refusal (the entries, and a probe compile of the idioms the
  entries leave out, for sm_80 and sm_90): ``<cuda/atomic>`` with ``cuda::atomic_ref`` and
  ``thread_scope_device``, ``cuda::std::numeric_limits``, ``__reduce_add_sync`` and
  ``__reduce_max_sync`` under ``#if __CUDA_ARCH__ >= 800``, ``__match_any_sync``,
  ``__nanosleep``, ``__syncwarp(mask)``, ``cg::block_tile_memory`` with a 128-thread
  ``tiled_partition``, and CUB's ``WarpReduce``, ``BlockRadixSort`` and
  ``BlockHistogram`` from their own headers. ``<cub/cub.cuh>``, which CCCL itself refuses
  under NVRTC (round 26 found it), is served as its device-level headers since round 76.
- A gap, pinned (strict xfail below): cuDF's ``hash_csr_build_kernel`` takes three
  structs by value that hold device pointers (the table's view, the row comparator, the
  row hasher). A spec describes such a struct by a uniform block with ``u64`` fields
  named like buffers, and a spec has at most one uniform block: the kernel as cuDF
  instantiates it cannot be declared. The entry's comparator and hasher are empty
  functors (given as their one byte) over a ``__device__`` key column the host copies
  in; the table's view is the uniform.
- A limit, said: the grouped rows are judged as one multiset (which of a key's rows
  comes first hangs on the atomics, and groups have as many rows as their key, so no
  fixed row shape splits them); counts and offsets are judged exactly, so a fill that
  put a row in another key's group while keeping every count would pass. No mutant
  here does.
- Not shown, and why: ``atomic_ref`` at ``thread_scope_block`` on the slot counts,
  which blocks share, is a mutant no value shows (``Wild.invisible``: NVIDIA's global
  atomics are performed at L2 whatever their scope, and compute-sanitizer checks no
  scope). WGSL has no thread scopes, no ``match_any`` and no block sort: those entries
  are CUDA only.

For the GPU run to confirm: each CUDA original passes (reduce7's ``redux.sync`` path on
sm_80 and later; the CUB sort's order of -0.0, +0.0 and signed NaNs, which the reference
takes from the keys' bits as CUB's radix sort does; the cuDF build's three launches
with the key column copied into a ``__device__`` array longer than the buffer); each
mutant fails by its values, the sort without its barrier by its values or under
compute-sanitizer (``Wild.races``); and the block-scoped ``atomic_ref`` passes there
(its skip says why).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from forge import BufferSpec
from forge.errors import InvalidArgument
from tests.wild import CORPUS, mutant
from tests.wild.round71 import _CAPACITY, _hash_csr_reference, _radix_order, _validity

_HASH = "wild_r71_cudf_hash_csr_match_any_atomic_ref"


def test_the_sort_reference_orders_floats_by_their_bits_as_a_radix_sort():
    """CUB's radix sort orders the keys' bits made unsigned-comparable: -0.0 before
    +0.0, a NaN with its sign bit set before -inf, one without after +inf; np.sort puts
    every NaN last and keeps zeros in input order."""
    neg_nan = np.array([0xFFC00000], np.uint32).view(np.float32)[0]
    keys = np.array([np.nan, 0.0, -0.0, np.inf, -np.inf, neg_nan, 1.5, -2.0], np.float32)
    out = _radix_order(keys)
    bits = out.view(np.uint32)
    assert np.isnan(out[0]) and bits[0] >> 31 == 1
    assert out[1] == -np.inf and out[2] == -2.0
    assert bits[3] == 0x80000000 and bits[4] == 0  # -0.0, then +0.0
    assert out[5] == 1.5 and out[6] == np.inf
    assert np.isnan(out[7]) and bits[7] >> 31 == 0


def test_the_groupby_reference_groups_every_valid_row_once():
    """The reference's grouped rows are the valid rows, each once, key by key; the
    counts sum to them and the offsets are the counts' exclusive scan."""
    rng = np.random.default_rng(0)
    n = 1000
    keys = rng.integers(0, 40, n).astype(np.int32)
    valid_rows = _validity(rng, (n + 31) // 32, n)
    out = _hash_csr_reference(keys, valid_rows, n)
    counts, grouped = out["slot_counts"], out["grouped_rows"]
    valid = grouped[grouped >= 0]
    assert counts.size == _CAPACITY and counts.sum() == valid.size
    assert 0.8 * n < valid.size < n  # about one row in eight null
    assert len(set(valid.tolist())) == valid.size
    assert (np.diff(keys[valid]) >= 0).all()
    assert (out["slot_offsets"] == np.cumsum(counts) - counts).all()


@pytest.mark.xfail(
    strict=True,
    raises=InvalidArgument,
    reason="a spec has at most one uniform block, and each struct by value holding "
    "device pointers is one: cuDF's build kernel takes three (table view, comparator, "
    "hasher)",
)
def test_the_build_kernel_with_three_pointer_structs_as_cudf_passes_them_can_be_declared():
    kernel = CORPUS[_HASH].kernel
    buffers = (
        *kernel.buffers,
        BufferSpec.uniform(8, (("keys", "u64"),), name="equal"),
        BufferSpec.uniform(9, (("keys", "u64"),), name="hasher"),
    )
    declared = dataclasses.replace(kernel, id=f"{_HASH}__three_structs", buffers=buffers)
    assert len([b for b in declared.buffers if b.access.name == "UNIFORM"]) == 3


@pytest.mark.parametrize(
    "name",
    sorted(
        n for n, w in CORPUS.items() if n.startswith("wild_r71_") and "cuda" in w.kernel.sources
    ),
)
def test_every_cuda_mutant_compiles_with_nvrtc(name):
    """The CUDA mutants build as the originals do (NVRTC needs no GPU): on the GPU
    machine each fails by its values, never by a compile error."""
    from backends.cuda._modules import check_steps, module_build

    wild = CORPUS[name]
    assert wild.mutants
    for what in wild.mutants:
        kernel = mutant(wild, what)
        schedule, size = kernel.schedules[0], kernel.largest_size()
        source = kernel.source("cuda", schedule, size)
        assert source != wild.kernel.source("cuda", schedule, size), what
        steps = kernel.steps("cuda", schedule, size, 2**31 - 1, source)
        image, _, entries = module_build(kernel, steps, source, "sm_90").build()
        assert image, what
        check_steps(kernel, steps, entries, source)

"""Round 77 of the wild kernels: RAPIDS (raft, cuML, cuGraph) and FAISS as those projects
write their CUDA, and a WebGPU port of each, ours. Each is read, not copied (the
project's rule for public code): the entry points and parameters (names, types, order),
block sizes, shared memory, idioms and numerics are theirs; the comments, local names
and formatting ours.

DOCSTRING-TODO

For the GPU run to confirm: TODO

What they showed: tests/test_wild_round77.py.
"""

# ruff: noqa: E501  (the CUDA and WGSL keep their sources' long lines)

from __future__ import annotations

from pathlib import Path

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import Wild

_INCLUDE = str(Path(__file__).with_name("round77_include"))

# -- 1. raft's weakly connected components by label propagation ---------------------------
_WEAK_CC_CUDA = r"""// kernel-forge corpus: raft's weakly connected components by label propagation
// (rapidsai/raft, cpp/include/raft/sparse/detail/csr.cuh), read, not copied.
#include <raft/core/detail/macros.hpp>
#include <raft/sparse/detail/utils.h>

#include <cuda_runtime.h>
#include <stdio.h>

namespace raft {
namespace sparse {
namespace detail {

// the host's filter when every vertex takes part (raft's weak_cc passes a device lambda
// that returns true; NVRTC names no lambda's type, so it is a functor here)
struct all_vertices {
  __device__ bool operator()(int) const { return true; }
};

template <typename Index_, int TPB_X = 256, typename Lambda>
RAFT_KERNEL weak_cc_label_device(Index_* __restrict__ labels,
                                 const Index_* __restrict__ row_ind,
                                 const Index_* __restrict__ row_ind_ptr,
                                 Index_ nnz,
                                 bool* __restrict__ m,
                                 Index_ start_vertex_id,
                                 Index_ batch_size,
                                 Index_ N,
                                 Lambda filter_op)
{
  Index_ tid       = threadIdx.x + blockIdx.x * TPB_X;
  Index_ global_id = tid + start_vertex_id;
  if (tid < batch_size && global_id < N) {
    Index_ start = __ldg(row_ind + tid);

    Index_ ci, cj;
    bool ci_mod        = false;
    ci                 = labels[global_id];
    bool ci_allow_prop = filter_op(global_id);

    Index_ end = get_stop_idx(tid, batch_size, nnz, row_ind);
    for (Index_ j = start; j < end; j++) {
      Index_ j_ind       = __ldg(row_ind_ptr + j);
      cj                 = labels[j_ind];
      bool cj_allow_prop = filter_op(j_ind);
      // push the smaller label along the edge, or pull the neighbour's
      if (ci < cj && ci_allow_prop) {
        if (sizeof(Index_) == 4)
          atomicMin((int*)(labels + j_ind), ci);
        else if (sizeof(Index_) == 8)
          atomicMin((long long int*)(labels + j_ind), ci);
        if (cj_allow_prop) *m = true;
      } else if (ci > cj && cj_allow_prop) {
        ci     = cj;
        ci_mod = true;
      }
    }
    if (ci_mod) {
      if (sizeof(Index_) == 4)
        atomicMin((int*)(labels + global_id), ci);
      else if (sizeof(Index_) == 8)
        atomicMin((long long int*)(labels + global_id), ci);
      if (ci_allow_prop) *m = true;
    }
  }
}

template <typename Index_, int TPB_X = 256, typename Lambda>
RAFT_KERNEL weak_cc_init_all_kernel(Index_* labels, Index_ N, Index_ MAX_LABEL, Lambda filter_op)
{
  Index_ tid = threadIdx.x + blockIdx.x * TPB_X;
  if (tid < N) {
    // one-based labels; a vertex the filter leaves out keeps the largest
    if (filter_op(tid))
      labels[tid] = tid + 1;
    else
      labels[tid] = MAX_LABEL;
  }
}

}  // namespace detail
}  // namespace sparse
}  // namespace raft
"""

# The port: the same two kernels, labels as atomics (WGSL reads an atomic only through
# atomicLoad), the flag a u32.
_WEAK_CC_WGSL = """
// kernel-forge corpus: a WebGPU port of raft's weak_cc_label_device and weak_cc_init_all_kernel.
struct Params { nnz: i32, start_vertex_id: i32, batch_size: i32, N: i32, MAX_LABEL: i32 }

const TPB_X: u32 = 256u;

@group(0) @binding(0) var<storage, read_write> labels: array<atomic<i32>>;
@group(0) @binding(1) var<storage, read> row_ind: array<i32>;
@group(0) @binding(2) var<storage, read> row_ind_ptr: array<i32>;
@group(0) @binding(3) var<storage, read_write> m: array<u32>;
@group(0) @binding(4) var<uniform> params: Params;

fn filter_op(v: i32) -> bool { return true; }

fn get_stop_idx(row: i32, rows: i32, nnz: i32) -> i32 {
    if (row < rows - 1) {
        return row_ind[row + 1];
    }
    return nnz;
}

@compute @workgroup_size(256)
fn weak_cc_label_device(@builtin(workgroup_id) wg: vec3<u32>,
                        @builtin(local_invocation_index) lane: u32) {
    let tid = i32(lane + wg.x * TPB_X);
    let global_id = tid + params.start_vertex_id;
    if (tid < params.batch_size && global_id < params.N) {
        let start = row_ind[tid];
        var ci = atomicLoad(&labels[global_id]);
        var ci_mod = false;
        let ci_allow_prop = filter_op(global_id);
        let end = get_stop_idx(tid, params.batch_size, params.nnz);
        for (var j = start; j < end; j++) {
            let j_ind = row_ind_ptr[j];
            let cj = atomicLoad(&labels[j_ind]);
            let cj_allow_prop = filter_op(j_ind);
            if (ci < cj && ci_allow_prop) {
                atomicMin(&labels[j_ind], ci);
                if (cj_allow_prop) { m[0] = 1u; }
            } else if (ci > cj && cj_allow_prop) {
                ci = cj;
                ci_mod = true;
            }
        }
        if (ci_mod) {
            atomicMin(&labels[global_id], ci);
            if (ci_allow_prop) { m[0] = 1u; }
        }
    }
}

@compute @workgroup_size(256)
fn weak_cc_init_all_kernel(@builtin(workgroup_id) wg: vec3<u32>,
                           @builtin(local_invocation_index) lane: u32) {
    let tid = i32(lane + wg.x * TPB_X);
    if (tid < params.N) {
        if (filter_op(tid)) {
            atomicStore(&labels[tid], tid + 1);
        } else {
            atomicStore(&labels[tid], params.MAX_LABEL);
        }
    }
}
"""

#: Label launches after the first: more than the slowest schedule needs on the drawn
#: graphs (each launch moves a label one edge further at least; tests/test_wild_round77.py
#: checks the drawn graphs' depth), so that every run ends converged, as the host's
#: ``do { ... } while (host_m)`` does.
_CC_ITERATIONS = 16
_INT_MAX = 2**31 - 1


def _cc_graph(n: int, e: int):
    """A directed graph of ``n`` vertices and ``e`` edges whose weak components are
    random trees (each vertex hung on an earlier one of its component, so each is a few
    edges deep) with extra edges inside them, some singletons, vertex ids shuffled;
    edges point either way. The last vertex hangs on its tree by one edge, its own:
    only its row's last edge joins it (a tail that reads one edge short leaves it
    alone). Returns (row_ind, row_ind_ptr, component of each vertex). Drawn from the
    size, not the case's seed: both CSR arrays must be of one graph."""
    rng = np.random.default_rng(7919 * n + e)
    comps = max(1, n // 25, n - e)
    # component sizes: the first vertices of a permutation cut in `comps` runs
    comps = min(comps, max(1, n - 2))
    cuts = (
        np.sort(rng.choice(np.arange(1, n - 1), size=comps - 1, replace=False)) if comps > 1 else []
    )
    order = rng.permutation(n - 1)  # the last vertex placed below, by hand
    runs = np.split(order, cuts)
    comp = np.empty(n, np.int64)
    src, dst = [], []
    for c, members in enumerate(runs):
        comp[members] = c
        for i in range(1, len(members)):
            # a parent among the previous eight (or fewer) members: deep enough that
            # labels travel several edges, shallow enough to converge well within
            # _CC_ITERATIONS launches
            parent = members[rng.integers(max(0, i - 8), i)]
            src.append(members[i])
            dst.append(parent)
    # the last vertex: one edge out, to a vertex of the largest component
    big = max(range(len(runs)), key=lambda c: len(runs[c]))
    comp[n - 1] = big
    if n > 1:
        src.append(n - 1)
        dst.append(int(runs[big][rng.integers(len(runs[big]))]) if len(runs[big]) else 0)
    extra = e - len(src)
    if extra > 0:
        sizes = np.array([len(r) for r in runs])
        weights = np.where(sizes > 1, sizes, 0).astype(float)
        pick = rng.choice(len(runs), size=extra, p=weights / weights.sum())
        for c in pick:
            a, b = rng.choice(runs[c], size=2, replace=False)
            src.append(int(a))
            dst.append(int(b))
    src_a, dst_a = np.array(src[: max(e, 0)], np.int64), np.array(dst[: max(e, 0)], np.int64)
    # half the edges reversed, but never the last vertex's own (its row must hold it)
    flip = (rng.random(len(src_a)) < 0.5) & (src_a != n - 1)
    src_a, dst_a = np.where(flip, dst_a, src_a), np.where(flip, src_a, dst_a)
    by_row = np.argsort(src_a * n + dst_a, kind="stable")
    src_a, dst_a = src_a[by_row], dst_a[by_row]
    row_ind = np.searchsorted(src_a, np.arange(n)).astype(np.int32)
    return row_ind, dst_a.astype(np.int32), comp


def _cc_fill(which: int):
    def fill(rng, count, size):
        return _cc_graph(int(size.N), int(size.E))[which]

    return fill


def _weak_cc_reference(labels, row_ind, row_ind_ptr, m, params=None):
    """The converged labels: each vertex the smallest one-based id of its weak component
    (min-label propagation over the edges both ways, in numpy until nothing changes)."""
    n = labels.size
    nnz = row_ind_ptr.size
    src = np.repeat(np.arange(n), np.diff(np.append(row_ind.astype(np.int64), nnz)))
    dst = row_ind_ptr.astype(np.int64)
    lab = np.arange(1, n + 1, dtype=np.int64)
    while True:
        new = lab.copy()
        np.minimum.at(new, dst, lab[src])
        np.minimum.at(new, src, lab[dst])
        if np.array_equal(new, lab):
            break
        lab = new
    labels[:] = lab.astype(np.int32)


_CC_STEP = (
    "raft::sparse::detail::weak_cc_label_device<int, 256, raft::sparse::detail::all_vertices>"
)


def _cc_launches(target: str):
    init = (
        "raft::sparse::detail::weak_cc_init_all_kernel<int, 256, raft::sparse::detail::all_vertices>"
        if target == "cuda"
        else "weak_cc_init_all_kernel"
    )
    step = _CC_STEP if target == "cuda" else "weak_cc_label_device"

    def launches(size):
        blocks = (ceil_div(int(size.N), 256), 1, 1)
        return (
            Dispatch(init, grid=blocks),
            *(Dispatch(step, grid=blocks) for _ in range(_CC_ITERATIONS)),
        )

    return launches


def _weak_cc_spec(target: str) -> KernelSpec:
    buffers = [
        BufferSpec(0, "i32", "read_write", name="labels", count="N"),
        BufferSpec(1, "i32", "read", name="row_ind", count="N", fill=_cc_fill(0)),
        BufferSpec(2, "i32", "read", name="row_ind_ptr", count="E", fill=_cc_fill(1)),
        # the host's convergence flag (a bool; a word here), memset before each launch
        BufferSpec(3, "u32", "read_write", name="m", count=1, scratch=True),
    ]
    values = {
        "nnz": lambda size: int(size.E),
        "start_vertex_id": lambda size: 0,
        "batch_size": lambda size: int(size.N),
        "N": lambda size: int(size.N),
        "MAX_LABEL": lambda size: _INT_MAX,
    }
    extra: dict = {}
    if target == "wgsl":
        buffers.append(BufferSpec.uniform(4, tuple((k, "i32") for k in values), name="params"))
        extra["params"] = lambda size: {k: f(size) for k, f in values.items()}
    else:
        # the empty functor by value: its one byte
        extra["params"] = lambda size: {
            **{k: f(size) for k, f in values.items()},
            "filter_op": b"\0",
        }
    return KernelSpec(
        id=f"wild_r77_raft_weak_cc_label_propagation{'' if target == 'cuda' else '_port'}",
        entry_point=(_CC_STEP if target == "cuda" else "weak_cc_label_device"),
        sources={target: _WEAK_CC_CUDA if target == "cuda" else _WEAK_CC_WGSL},
        dims=("N", "E"),
        buffers=tuple(buffers),
        reference=_weak_cc_reference,
        launches=_cc_launches(target),
        include_dirs=(_INCLUDE,) if target == "cuda" else (),
        schedules=(Schedule(256),),
        # 1000 vertices (four blocks, the last short), 300, and a lone short block
        test_sizes=("N=1000,E=1400", "N=300,E=330", "N=7,E=6"),
        **extra,
    )


_WEAK_CC_MUTANTS = {
    "cuda": {
        "the last row read one edge short": (
            "cuda",
            "Index_ end = get_stop_idx(tid, batch_size, nnz, row_ind);",
            "Index_ end = get_stop_idx(tid, batch_size, nnz - 1, row_ind);",
        ),
        "no pull from a smaller neighbour": (
            "cuda",
            "} else if (ci > cj && cj_allow_prop) {",
            "} else if (false) {",
        ),
        "zero-based labels from the init": ("cuda", "labels[tid] = tid + 1;", "labels[tid] = tid;"),
        "the batch's last vertex left out": (
            "cuda",
            "if (tid < batch_size && global_id < N) {",
            "if (tid < batch_size - 1 && global_id < N) {",
        ),
    },
    "wgsl": {
        "the last row read one edge short": (
            "wgsl",
            "let end = get_stop_idx(tid, params.batch_size, params.nnz);",
            "let end = get_stop_idx(tid, params.batch_size, params.nnz - 1);",
        ),
        "no pull from a smaller neighbour": (
            "wgsl",
            "} else if (ci > cj && cj_allow_prop) {",
            "} else if (false) {",
        ),
        "zero-based labels from the init": (
            "wgsl",
            "atomicStore(&labels[tid], tid + 1);",
            "atomicStore(&labels[tid], tid);",
        ),
        "the batch's last vertex left out": (
            "wgsl",
            "if (tid < params.batch_size && global_id < params.N) {",
            "if (tid < params.batch_size - 1 && global_id < params.N) {",
        ),
    },
}

WEAK_CC_CUDA = Wild(_weak_cc_spec("cuda"), _WEAK_CC_MUTANTS["cuda"])
WEAK_CC_WGSL = Wild(_weak_cc_spec("wgsl"), _WEAK_CC_MUTANTS["wgsl"])


ROUND77 = {w.kernel.id: w for w in (WEAK_CC_CUDA, WEAK_CC_WGSL)}

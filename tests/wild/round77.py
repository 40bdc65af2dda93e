"""Round 77 of the wild kernels: RAPIDS (raft, cuML, cuGraph) and FAISS as those projects
write their CUDA, and a WebGPU port of each, ours. Each is read, not copied (the project's
rule for public code): the entry points and parameters (names, types, order), block
sizes, shared memory, idioms and numerics are theirs where the file is named; the
comments, local names and formatting ours. Where a part is ours, it says so.

- raft's weakly connected components, which cuML's DBSCAN labels its clusters with
  (rapidsai/raft at f02902c7, Apache 2.0,
  ``cpp/include/raft/sparse/detail/csr.cuh``): ``weak_cc_label_device<Index_, TPB_X,
  Lambda>`` and ``weak_cc_init_all_kernel``, declared ``RAFT_KERNEL`` (raft's macro for
  ``__global__ static void``, found in tests/wild/round77_include's stand-in for
  ``raft/core/detail/macros.hpp``; ``get_stop_idx`` in the stand-in for
  ``raft/sparse/detail/utils.h``), nine parameters with ``bool* m`` and the filter
  ``Lambda filter_op`` by value: the host's always-true device lambda is a functor here
  (NVRTC names no lambda's type), passed as its one byte. Labels are one-based vertex
  ids pushed along each edge with ``atomicMin`` and pulled from smaller neighbours. The
  host's ``do { ... } while (host_m)`` is 16 label launches after the init, more than the
  drawn graphs need (tests/test_wild_round77.py), so every schedule's run ends converged
  and the output is exact: each vertex the smallest one-based id of its weak component.
  Graphs: directed random trees inside components, extra edges, singletons; the last
  vertex joined only by its own row's last edge.
- raft's expanded L2 distance (rapidsai/raft at 745f7f3c, Apache 2.0,
  ``cpp/include/raft/distance/detail/distance_ops/l2_exp.cuh``): ``l2_exp_distance_op``
  with its ``core`` and its ``epilog`` as raft writes them (``xn + yn - 2 acc``, times
  ``val > 0``, zeroed where ``val * val < 1e-6`` and the norms are equal: a point and
  itself; then ``sqrt``), passed by value as its one byte (``sqrt = true``), with an
  empty final op. The contraction around it is ours, in the shape of raft's
  ``Policy4x4<float>`` (256 threads, 64 x 64 outputs a block, 4 x 4 a thread, k in
  32s, tiles in shared memory), and so is the row-norm kernel (raft computes the norms
  with ``raft::linalg::rowNorm``). Inputs: a quarter of y's rows copies of x's rows, a
  quarter x's rows moved by 1e-4 to 1e-2 a coordinate (near neighbours, where float32's
  expansion keeps few bits), M, N and K not multiples of the tiles.
- a top-down BFS level in cuGraph's legacy manner (rapidsai/cugraph at 82ee5b39, Apache
  2.0, ``cpp/src/traversal/bfs_kernels.cuh``: ``int* visited_bmap`` claimed with
  ``atomicOr`` on ``1 << (v % INT_SIZE)``, the distance and the predecessor written by
  the thread whose claim found the bit clear, ``IndexType`` indices, the
  ``cugraph::detail::bfs_kernels`` namespace); the kernel is ours: a launch a level over
  every vertex (topology-driven, a grid of at most 4 blocks striding), where theirs
  expands frontier queues. The predecessor is whichever neighbour one level up claimed
  the vertex first: declared with ``BufferSpec(equally_right=...)`` (any neighbour one
  level nearer by the reference's levels). Graphs: several parents a level, a tenth
  unreachable, a few vertices behind the last vertex only.
- a PageRank power step in push form, ours in cuGraph's style (its ``vertex_t``,
  ``edge_t``, ``weight_t`` templates, CSR ``offsets`` and ``indices``): a thread a vertex
  pushes ``alpha * pr / degree`` along its out-edges with a float ``atomicAdd`` into a
  vector the host starts at ``(1 - alpha) / n``; the port's push is a compare-exchange
  loop over the float's bits (WGSL has no float atomics). Graphs with hubs that take a
  third of the edges (hundreds of pushes race into each: the sums' order differs run to
  run), a tenth dangling.
- FAISS's row norms (facebookresearch/faiss at 37a200e5, MIT, ``faiss/gpu/impl/
  L2Norm.cu``): ``l2NormRowMajor<float, float, 8, true>`` taking two
  ``faiss::gpu::Tensor<..., true>`` by value (64-bit ``idx_t`` indices: the data
  pointer, the strides, the sizes), the host's block the row rounded up to whole warps
  (at most 1024), a float a warp per tile row of dynamic shared memory, ``RowTileSize``
  8 and the last tile a row at a time. FAISS's headers are stood in for by
  tests/wild/round77_include (``Tensor.cuh``'s layout and element access,
  ``warpReduceAllSum``, ``getLaneId``, ``Math<float>``, ``ConvertTo<float>``,
  ``divUp``, ``kWarpSize``), written after theirs; its ``DeviceUtils.h``,
  ``FaissAssert.h``, ``Float16.cuh`` and ``impl/L2Norm.cuh`` includes, host-side or
  unused by the kernel, are left out. Row lengths not multiples of 4 (no ``float4``).
  The port: a workgroup of 256, a tree in workgroup memory for the warps' shuffles.

Every CUDA mutant has its twin, the same bug under the same name, in its port, which
fails on lavapipe and SwiftShader.

For the GPU run to confirm: each CUDA original passes on the H100 or H200: weak_cc
with its functor's one byte and ``bool* m``; the expanded distance at its near
neighbours, within the bound of its three float32 sums (as the ports do); the BFS with
any claimer's predecessor; the PageRank push's atomics in any order; FAISS's norms with
the tensors packed strides first (its kernel reads ``getSize`` from the sizes, and a
layout the other way round reads the wrong rows: the simulated driver shows it, the
GPU must). Each CUDA mutant fails by its values or by the illegal address it makes; the
two shared-memory races (the expanded distance's barrier after a tile's products,
FAISS's barrier before warp 0 reads the warps' sums) by their values or under
compute-sanitizer (``Wild.races``); the PageRank push as a plain read-modify-write, a
race on global memory that racecheck does not watch, by its values (hubs take hundreds
of pushes each).

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


# -- 2. raft's expanded L2 distance: ||x||^2 + ||y||^2 - 2 x.y, clamped, rooted ------------
_L2_CUDA = r"""// kernel-forge corpus: raft's expanded L2 distance (rapidsai/raft,
// cpp/include/raft/distance/detail/distance_ops/l2_exp.cuh, the op and its epilogue),
// read, not copied; the contraction around it is ours, in the shape of raft's
// Policy4x4<float> (64 x 64 outputs a block of 256 threads, 4 x 4 a thread, k in 32s).
#include <raft/core/detail/macros.hpp>

#include <cuda_runtime.h>

namespace raft::distance::detail {

// one digit of each type's precision kept back for rounding
template <typename DataT>
__device__ constexpr DataT get_clamp_precision()
{
  switch (sizeof(DataT)) {
    case 2: return 1e-3;
    case 4: return 1e-6;
    case 8: return 1e-15;
    default: return 0;
  }
}

struct Policy4x4 {
  static constexpr int AccRowsPerTh = 4;
  static constexpr int AccColsPerTh = 4;
  static constexpr int AccThRows    = 16;
  static constexpr int AccThCols    = 16;
  static constexpr int Mblk         = AccRowsPerTh * AccThRows;
  static constexpr int Nblk         = AccColsPerTh * AccThCols;
  static constexpr int Kblk         = 32;
  static constexpr int Nthreads     = AccThRows * AccThCols;
};

// c_ij = ||x_i||^2 + ||y_j||^2 - 2 x_i . y_j
template <typename DataType, typename AccType, typename IdxType>
struct l2_exp_distance_op {
  using DataT = DataType;
  using AccT  = AccType;
  using IdxT  = IdxType;

  const bool sqrt;

  DI void core(AccT& acc, DataT& x, DataT& y) const { acc += x * y; };

  template <typename Policy>
  DI void epilog(AccT acc[Policy::AccRowsPerTh][Policy::AccColsPerTh],
                 DataT* regxn,
                 DataT* regyn,
                 IdxT gridStrideX,
                 IdxT gridStrideY) const
  {
#pragma unroll
    for (int i = 0; i < Policy::AccRowsPerTh; ++i) {
#pragma unroll
      for (int j = 0; j < Policy::AccColsPerTh; ++j) {
        DataT accVal = acc[i][j];
        DataT val    = regxn[i] + regyn[j] - (DataT)2.0 * accVal;

        // a point and itself: equal norms, and a dot product that rounding left a
        // little off them; zero, not the rounding's remainder
        acc[i][j] =
          val * (val > 0) * !((val * val < get_clamp_precision<DataT>()) * (regxn[i] == regyn[j]));
      }
    }
    if (sqrt) {
#pragma unroll
      for (int i = 0; i < Policy::AccRowsPerTh; ++i) {
#pragma unroll
        for (int j = 0; j < Policy::AccColsPerTh; ++j) {
          acc[i][j] = ::sqrtf(acc[i][j]);
        }
      }
    }
  }
};

// the host's final op when none is given: the distance as it is
struct identity_op {
  template <typename T, typename IdxT>
  __device__ T operator()(T value, IdxT) const { return value; }
};

// squared L2 norm of each row, one row a thread (raft's rowNorm, L2Norm, no root)
template <typename DataT, typename IdxT>
RAFT_KERNEL row_norms(DataT* dots, const DataT* data, IdxT D, IdxT N)
{
  IdxT row = threadIdx.x + blockIdx.x * blockDim.x;
  if (row < N) {
    DataT acc = 0;
    for (IdxT c = 0; c < D; ++c) {
      DataT v = data[row * D + c];
      acc += v * v;
    }
    dots[row] = acc;
  }
}

template <typename Policy, typename OpT, typename FinOpT, typename DataT, typename IdxT>
__launch_bounds__(Policy::Nthreads, 2) RAFT_KERNEL
  pairwise_matrix_kernel(const DataT* x,
                         const DataT* y,
                         const DataT* _xn,
                         const DataT* _yn,
                         IdxT m,
                         IdxT n,
                         IdxT k,
                         IdxT lda,
                         IdxT ldb,
                         IdxT ldd,
                         DataT* dOutput,
                         OpT distance_op,
                         FinOpT fin_op)
{
  __shared__ DataT sx[Policy::Kblk][Policy::Mblk];
  __shared__ DataT sy[Policy::Kblk][Policy::Nblk];
  __shared__ DataT sxNorm[Policy::Mblk];
  __shared__ DataT syNorm[Policy::Nblk];

  const int tx    = threadIdx.x % Policy::AccThCols;
  const int ty    = threadIdx.x / Policy::AccThCols;
  const IdxT rowBase = blockIdx.y * Policy::Mblk;
  const IdxT colBase = blockIdx.x * Policy::Nblk;

  DataT acc[Policy::AccRowsPerTh][Policy::AccColsPerTh];
#pragma unroll
  for (int i = 0; i < Policy::AccRowsPerTh; ++i)
#pragma unroll
    for (int j = 0; j < Policy::AccColsPerTh; ++j)
      acc[i][j] = 0;

  for (IdxT kidx = 0; kidx < k; kidx += Policy::Kblk) {
    // the tile's rows of x and of y, k along the warp (coalesced), zeros past the ends
    for (int e = threadIdx.x; e < Policy::Kblk * Policy::Mblk; e += Policy::Nthreads) {
      const int r = e / Policy::Kblk, kk = e % Policy::Kblk;
      const IdxT gk = kidx + kk;
      sx[kk][r] = (rowBase + r < m && gk < k) ? x[(rowBase + r) * lda + gk] : DataT(0);
      sy[kk][r] = (colBase + r < n && gk < k) ? y[(colBase + r) * ldb + gk] : DataT(0);
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < Policy::Kblk; ++kk) {
      DataT regx[Policy::AccRowsPerTh], regy[Policy::AccColsPerTh];
#pragma unroll
      for (int i = 0; i < Policy::AccRowsPerTh; ++i)
        regx[i] = sx[kk][ty + i * Policy::AccThRows];
#pragma unroll
      for (int j = 0; j < Policy::AccColsPerTh; ++j)
        regy[j] = sy[kk][tx + j * Policy::AccThCols];
#pragma unroll
      for (int i = 0; i < Policy::AccRowsPerTh; ++i)
#pragma unroll
        for (int j = 0; j < Policy::AccColsPerTh; ++j)
          distance_op.core(acc[i][j], regx[i], regy[j]);
    }
    __syncthreads();
  }

  // the norms of the tile's rows, shared, then each thread's own
  if (threadIdx.x < Policy::Mblk) {
    sxNorm[threadIdx.x] = rowBase + threadIdx.x < m ? _xn[rowBase + threadIdx.x] : DataT(0);
  } else if (threadIdx.x < Policy::Mblk + Policy::Nblk) {
    const int c = threadIdx.x - Policy::Mblk;
    syNorm[c] = colBase + c < n ? _yn[colBase + c] : DataT(0);
  }
  __syncthreads();
  DataT regxn[Policy::AccRowsPerTh], regyn[Policy::AccColsPerTh];
#pragma unroll
  for (int i = 0; i < Policy::AccRowsPerTh; ++i)
    regxn[i] = sxNorm[ty + i * Policy::AccThRows];
#pragma unroll
  for (int j = 0; j < Policy::AccColsPerTh; ++j)
    regyn[j] = syNorm[tx + j * Policy::AccThCols];

  distance_op.template epilog<Policy>(acc, regxn, regyn, n, m);

#pragma unroll
  for (int i = 0; i < Policy::AccRowsPerTh; ++i) {
#pragma unroll
    for (int j = 0; j < Policy::AccColsPerTh; ++j) {
      const IdxT row = rowBase + ty + i * Policy::AccThRows;
      const IdxT col = colBase + tx + j * Policy::AccThCols;
      if (row < m && col < n) dOutput[row * ldd + col] = fin_op(acc[i][j], 0);
    }
  }
}

}  // namespace raft::distance::detail
"""

_L2_WGSL = """
// kernel-forge corpus: a WebGPU port of raft's expanded L2 distance (l2_exp_distance_op)
// over a 64 x 64 tile of 256 invocations, 4 x 4 each, k in 32s.
struct Params { m: u32, n: u32, k: u32, lda: u32, ldb: u32, ldd: u32, sqrt: u32 }

const AccRowsPerTh = 4u;
const AccColsPerTh = 4u;
const AccThRows = 16u;
const AccThCols = 16u;
const Mblk = 64u;
const Nblk = 64u;
const Kblk = 32u;
const Nthreads = 256u;
const clamp_precision = 1e-6;

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> y: array<f32>;
@group(0) @binding(2) var<storage, read_write> _xn: array<f32>;
@group(0) @binding(3) var<storage, read_write> _yn: array<f32>;
@group(0) @binding(4) var<storage, read_write> dOutput: array<f32>;
@group(0) @binding(5) var<uniform> params: Params;

var<workgroup> sx: array<array<f32, 64>, 32>;
var<workgroup> sy: array<array<f32, 64>, 32>;
var<workgroup> sxNorm: array<f32, 64>;
var<workgroup> syNorm: array<f32, 64>;

// squared norms of the rows of x (then of y), one a thread
@compute @workgroup_size(256)
fn row_norms(@builtin(global_invocation_id) gid: vec3<u32>) {
    let row = gid.x;
    if (row < params.m) {
        var acc = 0.0;
        for (var c = 0u; c < params.k; c++) {
            let v = x[row * params.lda + c];
            acc += v * v;
        }
        _xn[row] = acc;
    }
    if (row < params.n) {
        var acc = 0.0;
        for (var c = 0u; c < params.k; c++) {
            let v = y[row * params.ldb + c];
            acc += v * v;
        }
        _yn[row] = acc;
    }
}

@compute @workgroup_size(256)
fn pairwise_matrix_kernel(@builtin(workgroup_id) wg: vec3<u32>,
                          @builtin(local_invocation_index) lid: u32) {
    let tx = lid % AccThCols;
    let ty = lid / AccThCols;
    let rowBase = wg.y * Mblk;
    let colBase = wg.x * Nblk;
    var acc: array<array<f32, 4>, 4>;

    for (var kidx = 0u; kidx < params.k; kidx += Kblk) {
        for (var e = lid; e < Kblk * Mblk; e += Nthreads) {
            let r = e / Kblk;
            let kk = e % Kblk;
            let gk = kidx + kk;
            var vx = 0.0;
            if (rowBase + r < params.m && gk < params.k) { vx = x[(rowBase + r) * params.lda + gk]; }
            sx[kk][r] = vx;
            var vy = 0.0;
            if (colBase + r < params.n && gk < params.k) { vy = y[(colBase + r) * params.ldb + gk]; }
            sy[kk][r] = vy;
        }
        workgroupBarrier();
        for (var kk = 0u; kk < Kblk; kk++) {
            for (var i = 0u; i < AccRowsPerTh; i++) {
                let xv = sx[kk][ty + i * AccThRows];
                for (var j = 0u; j < AccColsPerTh; j++) {
                    acc[i][j] += xv * sy[kk][tx + j * AccThCols];
                }
            }
        }
        workgroupBarrier();
    }

    if (lid < Mblk) {
        var v = 0.0;
        if (rowBase + lid < params.m) { v = _xn[rowBase + lid]; }
        sxNorm[lid] = v;
    } else if (lid < Mblk + Nblk) {
        let c = lid - Mblk;
        var v = 0.0;
        if (colBase + c < params.n) { v = _yn[colBase + c]; }
        syNorm[c] = v;
    }
    workgroupBarrier();

    for (var i = 0u; i < AccRowsPerTh; i++) {
        for (var j = 0u; j < AccColsPerTh; j++) {
            let xn = sxNorm[ty + i * AccThRows];
            let yn = syNorm[tx + j * AccThCols];
            let val = xn + yn - 2.0 * acc[i][j];
            // raft's epilogue: clamped at 0, and a point and itself exactly 0
            var d = val * f32(val > 0.0) * f32(!((val * val < clamp_precision) && (xn == yn)));
            if (params.sqrt != 0u) { d = sqrt(d); }
            let row = rowBase + ty + i * AccThRows;
            let col = colBase + tx + j * AccThCols;
            if (row < params.m && col < params.n) { dOutput[row * params.ldd + col] = d; }
        }
    }
}
"""


def _l2_points(size):
    """x (M x K) and y (N x K) drawn from the size: coordinates in [-1, 1); of y's rows,
    a quarter copies of x's rows (a point and itself), a quarter x's rows moved by
    1e-4, 1e-3 or 1e-2 a coordinate (near neighbours, where the expansion cancels all
    but a few of float32's bits), the rest drawn alone."""
    m, n, k = int(size.M), int(size.N), int(size.K)
    rng = np.random.default_rng(104729 * m + 31 * n + k)
    x = rng.uniform(-1.0, 1.0, (m, k)).astype(np.float32)
    y = rng.uniform(-1.0, 1.0, (n, k)).astype(np.float32)
    same = rng.permutation(n)[: n // 2]
    copies, near = same[: n // 4], same[n // 4 :]
    y[copies] = x[rng.integers(0, m, len(copies))]
    scale = rng.choice([1e-4, 1e-3, 1e-2], len(near))[:, None]
    y[near] = x[rng.integers(0, m, len(near))] + (
        scale * rng.uniform(-1, 1, (len(near), k))
    ).astype(np.float32)
    return x, y


def _l2_fill(which: int):
    return lambda rng, count, size: _l2_points(size)[which].reshape(-1)


def _l2_reference(x, y, _xn, _yn, dOutput, params=None):
    """raft's definition, in float64: ``c_ij = ||x_i||^2 + ||y_j||^2 - 2 x_i . y_j``
    (its op's doc), clamped at 0 and rooted (``L2SqrtExpanded``); the norms, sums of
    squares. In float64 it is the distance itself to 1e-15 of the norms; written as
    the sums the kernel makes, the oracle bounds each as a float32 sum of its terms,
    which is what the cancellation near a point's neighbours is made of (a point and
    itself: 0 in float64, and raft's epilogue makes it 0 in float32 too)."""
    a, b = x.astype(np.float64), y.astype(np.float64)
    _xn[:] = (a * a).sum(axis=1)
    _yn[:] = (b * b).sum(axis=1)
    d2 = _xn[:, None].astype(np.float64) + _yn[None, :] - 2.0 * (a @ b.T)
    dOutput[:] = np.sqrt(np.maximum(d2, 0.0))


_L2_ENTRY = "raft::distance::detail::pairwise_matrix_kernel<raft::distance::detail::Policy4x4, raft::distance::detail::l2_exp_distance_op<float, float, int>, raft::distance::detail::identity_op, float, int>"
_L2_NORMS = "raft::distance::detail::row_norms<float, int>"


def _l2_spec(target: str) -> KernelSpec:
    buffers = [
        BufferSpec(0, "f32", "read", name="x", count="M*K", shape=("M", "K"), fill=_l2_fill(0)),
        BufferSpec(1, "f32", "read", name="y", count="N*K", shape=("N", "K"), fill=_l2_fill(1)),
        BufferSpec(2, "f32", "read_write", name="_xn", count="M"),
        BufferSpec(3, "f32", "read_write", name="_yn", count="N"),
        BufferSpec(4, "f32", "read_write", name="dOutput", count="M*N", shape=("M", "N")),
    ]
    grid = lambda sch, size: (ceil_div(int(size.N), 64), ceil_div(int(size.M), 64), 1)  # noqa: E731
    extra: dict = {}
    if target == "cuda":
        values = lambda size: {  # noqa: E731
            "m": int(size.M),
            "n": int(size.N),
            "k": int(size.K),
            "lda": int(size.K),
            "ldb": int(size.K),
            "ldd": int(size.N),
            "distance_op": b"\x01",  # l2_exp_distance_op{sqrt = true}
            "fin_op": b"\0",
        }
        extra["params"] = values
        launches = lambda size: (  # noqa: E731
            Dispatch(
                _L2_NORMS,
                grid=(ceil_div(int(size.M), 256), 1, 1),
                arguments=("_xn", "x", "K", "M"),
            ),
            Dispatch(
                _L2_NORMS,
                grid=(ceil_div(int(size.N), 256), 1, 1),
                arguments=("_yn", "y", "K", "N"),
            ),
            Dispatch(_L2_ENTRY, grid=grid),
        )
    else:
        fields = ("m", "n", "k", "lda", "ldb", "ldd", "sqrt")
        buffers.append(BufferSpec.uniform(5, tuple((f, "u32") for f in fields), name="params"))
        extra["params"] = lambda size: {
            "m": int(size.M),
            "n": int(size.N),
            "k": int(size.K),
            "lda": int(size.K),
            "ldb": int(size.K),
            "ldd": int(size.N),
            "sqrt": 1,
        }
        launches = lambda size: (  # noqa: E731
            Dispatch("row_norms", grid=(ceil_div(max(int(size.M), int(size.N)), 256), 1, 1)),
            Dispatch("pairwise_matrix_kernel", grid=grid),
        )
    return KernelSpec(
        id=f"wild_r77_raft_l2_expanded_distance{'' if target == 'cuda' else '_port'}",
        entry_point=_L2_ENTRY if target == "cuda" else "pairwise_matrix_kernel",
        sources={target: _L2_CUDA if target == "cuda" else _L2_WGSL},
        dims=("M", "N", "K"),
        buffers=tuple(buffers),
        reference=_l2_reference,
        launches=launches,
        schedules=(Schedule(256),),
        include_dirs=(_INCLUDE,) if target == "cuda" else (),
        nonfinite_inputs=False,
        # two by two tiles, the last short both ways, k in three tiles the last short;
        # one tile; a lone row against a few
        test_sizes=("M=80,N=100,K=70", "M=64,N=40,K=32", "M=1,N=9,K=5"),
        **extra,
    )


_L2_MUTANTS = {
    "cuda": {
        "the clamp at zero dropped": (
            "cuda",
            "          val * (val > 0) * !((val * val",
            "          val * !((val * val",
        ),
        "the cross term without its 2": (
            "cuda",
            "regxn[i] + regyn[j] - (DataT)2.0 * accVal;",
            "regxn[i] + regyn[j] - accVal;",
        ),
        "the barrier after a tile's products dropped": (
            "cuda",
            "          distance_op.core(acc[i][j], regx[i], regy[j]);\n    }\n    __syncthreads();\n",
            "          distance_op.core(acc[i][j], regx[i], regy[j]);\n    }\n",
        ),
        "the last short k tile skipped": (
            "cuda",
            "for (IdxT kidx = 0; kidx < k; kidx += Policy::Kblk) {",
            "for (IdxT kidx = 0; kidx + Policy::Kblk <= k; kidx += Policy::Kblk) {",
        ),
        "y's norms read from x's": (
            "cuda",
            "syNorm[c] = colBase + c < n ? _yn[colBase + c] : DataT(0);",
            "syNorm[c] = colBase + c < n ? _xn[colBase + c] : DataT(0);",
        ),
    },
    "wgsl": {
        "the clamp at zero dropped": (
            "wgsl",
            "var d = val * f32(val > 0.0) * f32(",
            "var d = val * f32(",
        ),
        "the cross term without its 2": (
            "wgsl",
            "let val = xn + yn - 2.0 * acc[i][j];",
            "let val = xn + yn - acc[i][j];",
        ),
        "the barrier after a tile's products dropped": (
            "wgsl",
            "            }\n        }\n        workgroupBarrier();\n    }\n",
            "            }\n        }\n    }\n",
        ),
        "the last short k tile skipped": (
            "wgsl",
            "for (var kidx = 0u; kidx < params.k; kidx += Kblk) {",
            "for (var kidx = 0u; kidx + Kblk <= params.k; kidx += Kblk) {",
        ),
        "y's norms read from x's": (
            "wgsl",
            "if (colBase + c < params.n) { v = _yn[colBase + c]; }",
            "if (colBase + c < params.n) { v = _xn[colBase + c]; }",
        ),
    },
}

L2_CUDA = Wild(
    _l2_spec("cuda"),
    _L2_MUTANTS["cuda"],
    races=frozenset({"the barrier after a tile's products dropped"}),
)
L2_WGSL = Wild(_l2_spec("wgsl"), _L2_MUTANTS["wgsl"])


# -- 3. a cuGraph-style BFS: a visited bitmap claimed by atomicOr, parents by the claim --------
_BFS_CUDA = r"""// kernel-forge corpus: a top-down BFS level as cuGraph's legacy traversal writes it
// (rapidsai/cugraph, cpp/src/traversal/bfs_kernels.cuh at branch-0.15): a visited
// bitmap of ints claimed with atomicOr, the distance and the predecessor written by the
// claiming thread, INT_SIZE and the bit masks as there; read, not copied. A level is a
// launch over every vertex (topology-driven) where theirs expands a frontier queue.
#include <cuda_runtime.h>
#include <limits.h>

#define INT_SIZE 32

namespace cugraph {
namespace detail {
namespace bfs_kernels {

template <typename IndexType>
__global__ void init_bfs_kernel(int* visited_bmap,
                                IndexType* distances,
                                IndexType* predecessors,
                                IndexType n,
                                IndexType source)
{
  const IndexType words = (n + INT_SIZE - 1) / INT_SIZE;
  for (IndexType v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
    distances[v]    = (v == source) ? 0 : INT_MAX;
    predecessors[v] = -1;
    if (v < words) {
      // the source's own bit set from the start
      visited_bmap[v] = (source / INT_SIZE == v) ? (1 << (source % INT_SIZE)) : 0;
    }
  }
}

template <typename IndexType>
__global__ void topdown_level_kernel(const IndexType* row_ptr,
                                     const IndexType* col_ind,
                                     IndexType n,
                                     int* visited_bmap,
                                     IndexType* distances,
                                     IndexType* predecessors,
                                     IndexType lvl)
{
  for (IndexType u = blockIdx.x * blockDim.x + threadIdx.x; u < n; u += gridDim.x * blockDim.x) {
    if (distances[u] != lvl) continue;  // not in this level's frontier
    const IndexType edge_begin = row_ptr[u], edge_end = row_ptr[u + 1];
    for (IndexType e = edge_begin; e < edge_end; ++e) {
      const IndexType v = col_ind[e];
      const int m       = 1 << (v % INT_SIZE);
      // a plain read first: most neighbours are seen already, and the atomic is dear
      if (visited_bmap[v / INT_SIZE] & m) continue;
      const int prev = atomicOr(&visited_bmap[v / INT_SIZE], m);
      if (!(prev & m)) {
        // this thread claimed v: its level and its way back are ours to write
        distances[v]    = lvl + 1;
        predecessors[v] = u;
      }
    }
  }
}

}  // namespace bfs_kernels
}  // namespace detail
}  // namespace cugraph
"""

_BFS_WGSL = """
// kernel-forge corpus: a WebGPU port of the cuGraph-style top-down BFS level.
struct Params { n: i32, source: i32 }

const INT_SIZE: i32 = 32;
const INT_MAX: i32 = 2147483647;
override lvl: i32 = 0;

@group(0) @binding(0) var<storage, read> row_ptr: array<i32>;
@group(0) @binding(1) var<storage, read> col_ind: array<i32>;
@group(0) @binding(2) var<storage, read_write> visited_bmap: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> distances: array<i32>;
@group(0) @binding(4) var<storage, read_write> predecessors: array<i32>;
@group(0) @binding(5) var<uniform> params: Params;

@compute @workgroup_size(256)
fn init_bfs_kernel(@builtin(global_invocation_id) gid: vec3<u32>,
                   @builtin(num_workgroups) groups: vec3<u32>) {
    let words = (params.n + INT_SIZE - 1) / INT_SIZE;
    for (var v = i32(gid.x); v < params.n; v += i32(groups.x * 256u)) {
        distances[v] = select(INT_MAX, 0, v == params.source);
        predecessors[v] = -1;
        if (v < words) {
            var bits = 0u;
            if (params.source / INT_SIZE == v) { bits = 1u << u32(params.source % INT_SIZE); }
            atomicStore(&visited_bmap[v], bits);
        }
    }
}

@compute @workgroup_size(256)
fn topdown_level_kernel(@builtin(global_invocation_id) gid: vec3<u32>,
                        @builtin(num_workgroups) groups: vec3<u32>) {
    for (var u = i32(gid.x); u < params.n; u += i32(groups.x * 256u)) {
        if (distances[u] != lvl) { continue; }
        let edge_begin = row_ptr[u];
        let edge_end = row_ptr[u + 1];
        for (var e = edge_begin; e < edge_end; e++) {
            let v = col_ind[e];
            let m = 1u << u32(v % INT_SIZE);
            if ((atomicLoad(&visited_bmap[v / INT_SIZE]) & m) != 0u) { continue; }
            let prev = atomicOr(&visited_bmap[v / INT_SIZE], m);
            if ((prev & m) == 0u) {
                distances[v] = lvl + 1;
                predecessors[v] = u;
            }
        }
    }
}
"""

#: Level launches: more than the drawn graphs' depth (tests/test_wild_round77.py).
_BFS_LEVELS = 16
_BFS_BLOCKS = 4  # a grid smaller than the graph: each thread strides over vertices


def _bfs_graph(n: int, e: int):
    """A directed graph of ``n`` vertices, ``e`` edges, drawn from the size: most
    vertices reachable from the source (vertex 0) over several levels with several
    parents one level up each, a tenth unreachable, and the last vertex the only way
    to a few (a walk over every vertex but the last misses them). Returns (row_ptr,
    col_ind)."""
    rng = np.random.default_rng(15485863 * n + e)
    unreachable = (
        set(rng.choice(np.arange(1, n - 1), size=max(0, n // 10), replace=False).tolist())
        if n > 4
        else set()
    )
    behind_last = (
        [v for v in range(1, n - 1) if v not in unreachable][-max(1, n // 50) :] if n > 4 else []
    )
    reachable = [v for v in range(1, n - 1) if v not in unreachable and v not in behind_last]
    order = [0] + list(rng.permutation(reachable)) + ([n - 1] if n > 1 else [])
    src, dst = [], []
    # a spanning tree over the reachable ones: each hung on one of a few earlier ones
    for i in range(1, len(order)):
        src.append(order[int(rng.integers(max(0, i // 2 - 1), i))])
        dst.append(order[i])
    for v in behind_last:
        src.append(n - 1)
        dst.append(v)
    # the rest: edges among the reachable ones (more parents a level up), and out of
    # the unreachable ones (never expanded)
    pool = np.array(order, np.int64)
    cut = np.array(sorted(unreachable), np.int64)
    while len(src) < e:
        if len(cut) and rng.random() < 0.1:
            src.append(int(rng.choice(cut)))
            dst.append(int(rng.choice(pool)))
        else:
            a, b = rng.choice(pool, 2)
            if a != b and b != 0:
                src.append(int(a))
                dst.append(int(b))
    src_a, dst_a = np.array(src[:e], np.int64), np.array(dst[:e], np.int64)
    by_row = np.argsort(src_a * n + dst_a, kind="stable")
    src_a, dst_a = src_a[by_row], dst_a[by_row]
    row_ptr = np.searchsorted(src_a, np.arange(n + 1)).astype(np.int32)
    return row_ptr, dst_a.astype(np.int32)


def _bfs_fill(which: int):
    return lambda rng, count, size: _bfs_graph(int(size.N), int(size.E))[which]


def _bfs_levels(row_ptr, col_ind, n: int):
    """Distances from vertex 0 by levels (INT_MAX unreached), in numpy."""
    src = np.repeat(np.arange(n), np.diff(row_ptr.astype(np.int64)))
    dst = col_ind.astype(np.int64)
    dist = np.full(n, _INT_MAX, np.int64)
    dist[0] = 0
    level = 0
    while True:
        out = (dist[src] == level) & (dist[dst] == _INT_MAX)
        if not out.any():
            return dist, src, dst
        dist[dst[out]] = level + 1
        level += 1


def _bfs_reference(row_ptr, col_ind, visited_bmap, distances, predecessors, params=None):
    """Levels from the source (INT_MAX where none reaches), and each reached vertex's
    predecessor: of its neighbours one level nearer, the smallest (one right answer of
    several: ``_bfs_equally_right`` accepts the others)."""
    n = distances.size
    dist, src, dst = _bfs_levels(row_ptr, col_ind, n)
    distances[:] = dist.astype(np.int32)
    up = (dist[src] != _INT_MAX) & (dist[dst] == dist[src] + 1)
    first = np.full(n, n, np.int64)
    np.minimum.at(first, dst[up], src[up])
    pred = np.where(first < n, first, -1)
    predecessors[:] = pred.astype(np.int32)


def _bfs_equally_right(got, want, arrays):
    """A predecessor is right where it is a neighbour of the vertex (an edge from it
    to the vertex) one level nearer the source, as the reference's levels say; -1
    only where the reference has -1 (the source, and vertices no path reaches)."""
    n = want.size
    row_ptr, col_ind = arrays["row_ptr"].astype(np.int64), arrays["col_ind"].astype(np.int64)
    dist = arrays["distances"].astype(np.int64)
    src = np.repeat(np.arange(n), np.diff(row_ptr))
    edges = np.unique(src * n + col_ind)
    g = got.astype(np.int64)
    v = np.arange(n)
    inside = (g >= 0) & (g < n) & (want >= 0)
    p = np.where(inside, g, 0)
    adjacent = np.isin(p * n + v, edges)
    return inside & adjacent & (dist[p] == dist - 1)


def _bfs_launches(target: str):
    ns = "cugraph::detail::bfs_kernels::" if target == "cuda" else ""
    init = f"{ns}init_bfs_kernel<int>" if target == "cuda" else "init_bfs_kernel"
    level = f"{ns}topdown_level_kernel<int>" if target == "cuda" else "topdown_level_kernel"

    def launches(size):
        blocks = (min(_BFS_BLOCKS, ceil_div(int(size.N), 256)), 1, 1)
        return (
            Dispatch(init, grid=blocks),
            *(Dispatch(level, grid=blocks, overrides={"lvl": lvl}) for lvl in range(_BFS_LEVELS)),
        )

    return launches


def _bfs_spec(target: str, equally_right=_bfs_equally_right) -> KernelSpec:
    words = lambda size: ceil_div(int(size.N), 32)  # noqa: E731
    buffers = [
        BufferSpec(0, "i32", "read", name="row_ptr", count="N+1", fill=_bfs_fill(0)),
        BufferSpec(1, "i32", "read", name="col_ind", count="E", fill=_bfs_fill(1)),
        BufferSpec(
            2,
            "u32" if target == "wgsl" else "i32",
            "read_write",
            name="visited_bmap",
            count=words,
            scratch=True,
        ),
        BufferSpec(3, "i32", "read_write", name="distances", count="N"),
        BufferSpec(
            4, "i32", "read_write", name="predecessors", count="N", equally_right=equally_right
        ),
    ]
    extra: dict = {}
    if target == "wgsl":
        buffers.append(BufferSpec.uniform(5, (("n", "i32"), ("source", "i32")), name="params"))
        extra["params"] = lambda size: {"n": int(size.N), "source": 0}
    else:
        extra["params"] = lambda size: {"n": int(size.N), "source": 0}
    return KernelSpec(
        id=f"wild_r77_cugraph_style_bfs_predecessors{'' if target == 'cuda' else '_port'}",
        entry_point="cugraph::detail::bfs_kernels::topdown_level_kernel<int>"
        if target == "cuda"
        else "topdown_level_kernel",
        sources={target: _BFS_CUDA if target == "cuda" else _BFS_WGSL},
        dims=("N", "E"),
        buffers=tuple(buffers),
        reference=_bfs_reference,
        launches=_bfs_launches(target),
        schedules=(Schedule(256),),
        # 3000 vertices over 4 blocks (each thread three or so), 700, and a short one
        test_sizes=("N=3000,E=9000", "N=700,E=2000", "N=9,E=14"),
        **extra,
    )


_BFS_MUTANTS = {
    "cuda": {
        "the claimed vertex given this level": (
            "cuda",
            "distances[v]    = lvl + 1;",
            "distances[v]    = lvl;",
        ),
        "the predecessor the vertex itself": (
            "cuda",
            "predecessors[v] = u;",
            "predecessors[v] = v;",
        ),
        "the last vertex never expanded": (
            "cuda",
            "for (IndexType u = blockIdx.x * blockDim.x + threadIdx.x; u < n; u += gridDim.x * blockDim.x) {\n    if (distances[u] != lvl)",
            "for (IndexType u = blockIdx.x * blockDim.x + threadIdx.x; u < n - 1; u += gridDim.x * blockDim.x) {\n    if (distances[u] != lvl)",
        ),
        "the source its own predecessor": (
            "cuda",
            "predecessors[v] = -1;",
            "predecessors[v] = (v == source) ? source : -1;",
        ),
    },
    "wgsl": {
        "the claimed vertex given this level": (
            "wgsl",
            "distances[v] = lvl + 1;",
            "distances[v] = lvl;",
        ),
        "the predecessor the vertex itself": (
            "wgsl",
            "predecessors[v] = u;",
            "predecessors[v] = v;",
        ),
        "the last vertex never expanded": (
            "wgsl",
            "for (var u = i32(gid.x); u < params.n; u += i32(groups.x * 256u)) {",
            "for (var u = i32(gid.x); u < params.n - 1; u += i32(groups.x * 256u)) {",
        ),
        "the source its own predecessor": (
            "wgsl",
            "predecessors[v] = -1;",
            "predecessors[v] = select(-1, v, v == params.source);",
        ),
    },
}

BFS_CUDA = Wild(_bfs_spec("cuda"), _BFS_MUTANTS["cuda"])
BFS_WGSL = Wild(_bfs_spec("wgsl"), _BFS_MUTANTS["wgsl"])


# -- 4. a cuGraph-style PageRank step in push form: float atomicAdd along the out-edges -------
_PR_CUDA = r"""// kernel-forge corpus: one PageRank power iteration in push form, as cuGraph's legacy
// and Gunrock-derived code writes it (a thread a vertex, its share alpha * pr / degree
// pushed along each out-edge with a float atomicAdd into the next vector, which the host
// starts at the teleport term (1 - alpha) / n; dangling vertices push nothing); the
// vertex_t / edge_t / weight_t templates are cuGraph's, the kernel ours.
#include <cuda_runtime.h>

namespace cugraph {
namespace detail {

template <typename vertex_t, typename edge_t, typename weight_t>
__global__ void pagerank_push_kernel(const edge_t* __restrict__ offsets,
                                     const vertex_t* __restrict__ indices,
                                     const weight_t* __restrict__ pageranks,
                                     weight_t* new_pageranks,
                                     vertex_t num_vertices,
                                     weight_t alpha)
{
  for (vertex_t u = blockIdx.x * blockDim.x + threadIdx.x; u < num_vertices;
       u += gridDim.x * blockDim.x) {
    const edge_t begin  = offsets[u];
    const edge_t end    = offsets[u + 1];
    const edge_t degree = end - begin;
    if (degree == 0) continue;  // dangling: the host spreads its rank with the teleport
    const weight_t share = alpha * pageranks[u] / static_cast<weight_t>(degree);
    for (edge_t e = begin; e < end; ++e) {
      atomicAdd(&new_pageranks[indices[e]], share);
    }
  }
}

}  // namespace detail
}  // namespace cugraph
"""

_PR_WGSL = """
// kernel-forge corpus: a WebGPU port of the push-form PageRank step; WGSL has no float
// atomics, so each push is a compare-exchange loop over the float's bits.
struct Params { num_vertices: u32, alpha: f32 }

@group(0) @binding(0) var<storage, read> offsets: array<i32>;
@group(0) @binding(1) var<storage, read> indices: array<i32>;
@group(0) @binding(2) var<storage, read> pageranks: array<f32>;
@group(0) @binding(3) var<storage, read_write> new_pageranks: array<atomic<u32>>;
@group(0) @binding(4) var<uniform> params: Params;

fn atomic_add_f32(i: i32, v: f32) {
    var old = atomicLoad(&new_pageranks[i]);
    loop {
        let r = atomicCompareExchangeWeak(&new_pageranks[i], old, bitcast<u32>(bitcast<f32>(old) + v));
        if (r.exchanged) { break; }
        old = r.old_value;
    }
}

@compute @workgroup_size(256)
fn pagerank_push_kernel(@builtin(global_invocation_id) gid: vec3<u32>,
                        @builtin(num_workgroups) groups: vec3<u32>) {
    for (var u = gid.x; u < params.num_vertices; u += groups.x * 256u) {
        let begin = offsets[u];
        let end = offsets[u + 1u];
        let degree = end - begin;
        if (degree == 0) { continue; }
        let share = params.alpha * pageranks[u] / f32(degree);
        for (var e = begin; e < end; e++) {
            atomic_add_f32(indices[e], share);
        }
    }
}
"""

_ALPHA = 0.85
_PR_BLOCKS = 8


def _pr_graph(n: int, e: int):
    """A directed graph of ``n`` vertices and ``e`` edges drawn from the size, as web
    graphs go: a few hubs take a third of the edges (hundreds of pushes race into each),
    a tenth of the vertices dangle (no out-edges), the last vertex has out-edges of its
    own. Returns (offsets, indices)."""
    rng = np.random.default_rng(32452843 * n + e)
    dangling = rng.choice(np.arange(n - 1), size=n // 10, replace=False) if n > 10 else []
    sources = np.setdiff1d(np.arange(n), dangling)
    hubs = rng.choice(n, size=max(1, n // 100), replace=False)
    src = rng.choice(sources, size=e)
    src[: min(e, 3)] = n - 1
    dst = np.where(rng.random(e) < 0.35, rng.choice(hubs, size=e), rng.integers(0, n, e))
    order = np.argsort(src * n + dst, kind="stable")
    src, dst = src[order], dst[order]
    offsets = np.searchsorted(src, np.arange(n + 1)).astype(np.int32)
    return offsets, dst.astype(np.int32)


def _pr_fill(which: int):
    return lambda rng, count, size: _pr_graph(int(size.N), int(size.E))[which]


def _pr_ranks(rng, count, size):
    """A rank vector as an iteration leaves it: positive, about 1 / n each."""
    return (rng.uniform(0.5, 1.5, count) / count).astype(np.float32)


def _pr_reference(offsets, indices, pageranks, new_pageranks, params=None):
    """(1 - alpha) / n plus, for each vertex, the shares alpha * pr[u] / deg(u) of its
    in-neighbours, in float64."""
    n = pageranks.size
    degree = np.diff(offsets.astype(np.int64))
    src = np.repeat(np.arange(n), degree)
    share = _ALPHA * pageranks.astype(np.float64)[src] / degree[src]
    out = np.full(n, (1.0 - _ALPHA) / n)
    np.add.at(out, indices.astype(np.int64), share)
    new_pageranks[:] = out


def _pr_spec(target: str) -> KernelSpec:
    buffers = [
        BufferSpec(0, "i32", "read", name="offsets", count="N+1", fill=_pr_fill(0)),
        BufferSpec(1, "i32", "read", name="indices", count="E", fill=_pr_fill(1)),
        BufferSpec(2, "f32", "read", name="pageranks", count="N", fill=_pr_ranks),
        # the host's start: the teleport term (float32, as the host fills it)
        BufferSpec(
            3,
            "f32",
            "read_write",
            name="new_pageranks",
            count="N",
            initial=lambda size: np.float32((1.0 - _ALPHA) / int(size.N)),
        ),
    ]
    extra: dict = {}
    if target == "wgsl":
        buffers.append(
            BufferSpec.uniform(4, (("num_vertices", "u32"), ("alpha", "f32")), name="params")
        )
        extra["params"] = lambda size: {"num_vertices": int(size.N), "alpha": _ALPHA}
    else:
        extra["params"] = lambda size: {"num_vertices": int(size.N), "alpha": _ALPHA}
    return KernelSpec(
        id=f"wild_r77_cugraph_style_pagerank_push{'' if target == 'cuda' else '_port'}",
        entry_point="cugraph::detail::pagerank_push_kernel<int, int, float>"
        if target == "cuda"
        else "pagerank_push_kernel",
        sources={target: _PR_CUDA if target == "cuda" else _PR_WGSL},
        dims=("N", "E"),
        buffers=tuple(buffers),
        reference=_pr_reference,
        grid=lambda sch, size: (min(_PR_BLOCKS, ceil_div(int(size.N), 256)), 1, 1),
        schedules=(Schedule(256),),
        # 5000 vertices over 8 blocks (a grid stride), 1000, a lone short block
        test_sizes=("N=5000,E=40000", "N=1000,E=6000", "N=37,E=150"),
        **extra,
    )


_PR_MUTANTS = {
    "cuda": {
        "the share not divided by the degree": (
            "cuda",
            "alpha * pageranks[u] / static_cast<weight_t>(degree);",
            "alpha * pageranks[u];",
        ),
        "the last vertex's pushes dropped": (
            "cuda",
            "u < num_vertices;\n       u += gridDim.x",
            "u < num_vertices - 1;\n       u += gridDim.x",
        ),
        "the push a plain read-modify-write": (
            "cuda",
            "atomicAdd(&new_pageranks[indices[e]], share);",
            "new_pageranks[indices[e]] += share;",
        ),
        "the row read one edge past its end": (
            "cuda",
            "for (edge_t e = begin; e < end; ++e) {",
            "for (edge_t e = begin; e <= end; ++e) {",
        ),
    },
    "wgsl": {
        "the share not divided by the degree": (
            "wgsl",
            "params.alpha * pageranks[u] / f32(degree);",
            "params.alpha * pageranks[u];",
        ),
        "the last vertex's pushes dropped": (
            "wgsl",
            "u < params.num_vertices; u += groups.x * 256u",
            "u < params.num_vertices - 1u; u += groups.x * 256u",
        ),
        "the push a plain read-modify-write": (
            "wgsl",
            "        let r = atomicCompareExchangeWeak(&new_pageranks[i], old, bitcast<u32>(bitcast<f32>(old) + v));\n        if (r.exchanged) { break; }\n        old = r.old_value;",
            "        atomicStore(&new_pageranks[i], bitcast<u32>(bitcast<f32>(old) + v));\n        break;",
        ),
        "the row read one edge past its end": (
            "wgsl",
            "for (var e = begin; e < end; e++) {",
            "for (var e = begin; e <= end; e++) {",
        ),
    },
}

# the plain push is a race on global memory, which racecheck does not watch: the hubs'
# hundreds of pushes must show it in the values
PAGERANK_CUDA = Wild(_pr_spec("cuda"), _PR_MUTANTS["cuda"])
PAGERANK_WGSL = Wild(_pr_spec("wgsl"), _PR_MUTANTS["wgsl"])


# -- 5. FAISS's row norms, faiss::gpu::Tensor by value -----------------------------------------
_L2NORM_CUDA = r"""// kernel-forge corpus: FAISS's row norms (facebookresearch/faiss, faiss/gpu/impl/L2Norm.cu,
// MIT licence), l2NormRowMajor, read, not copied: RowTileSize rows a block, each thread's
// columns strided by the block, each warp's sums by butterfly shuffles, the warps' sums
// through shared memory into warp 0.
#include <faiss/gpu/utils/StaticUtils.h>
#include <faiss/gpu/utils/ConversionOperators.cuh>
#include <faiss/gpu/utils/DeviceDefs.cuh>
#include <faiss/gpu/utils/MathOperators.cuh>
#include <faiss/gpu/utils/PtxUtils.cuh>
#include <faiss/gpu/utils/Reductions.cuh>
#include <faiss/gpu/utils/Tensor.cuh>

namespace faiss {
namespace gpu {

// Input: (batch x dim); output: the (squared) norm of each row. T: the type of the
// math, TVec: the (perhaps vector) type loaded.
template <typename T, typename TVec, int RowTileSize, bool NormSquared>
__global__ void l2NormRowMajor(
        Tensor<TVec, 2, true> input,
        Tensor<float, 1, true> output) {
    extern __shared__ char smemByte[]; // a float a warp, for each row of the tile
    float* smem = (float*)smemByte;

    // block-sized numbers: ints will do
    int numWarps = utils::divUp(blockDim.x, kWarpSize);
    int laneId = getLaneId();
    int warpId = threadIdx.x / kWarpSize;

    bool lastRowTile = (blockIdx.x == (gridDim.x - 1));
    idx_t rowStart = idx_t(blockIdx.x) * RowTileSize;
    // sums in float
    float rowNorm[RowTileSize];

    if (lastRowTile) {
        // the input's last rows, perhaps fewer than a tile: one at a time
        for (idx_t row = 0; row < input.getSize(0) - rowStart; ++row) {
            rowNorm[0] = 0;

            for (idx_t col = threadIdx.x; col < input.getSize(1);
                 col += blockDim.x) {
                TVec val = input[rowStart + row][col];
                val = Math<TVec>::mul(val, val);
                rowNorm[0] = rowNorm[0] + Math<TVec>::reduceAdd(val);
            }

            rowNorm[0] = warpReduceAllSum(rowNorm[0]);
            if (laneId == 0) {
                smem[row * numWarps + warpId] = rowNorm[0];
            }
        }
    } else {
        // a whole tile: its rows side by side
        TVec tmp[RowTileSize];

#pragma unroll
        for (int row = 0; row < RowTileSize; ++row) {
            rowNorm[row] = 0;
        }

        for (idx_t col = threadIdx.x; col < input.getSize(1);
             col += blockDim.x) {
#pragma unroll
            for (int row = 0; row < RowTileSize; ++row) {
                tmp[row] = input[rowStart + row][col];
            }

#pragma unroll
            for (int row = 0; row < RowTileSize; ++row) {
                tmp[row] = Math<TVec>::mul(tmp[row], tmp[row]);
            }

#pragma unroll
            for (int row = 0; row < RowTileSize; ++row) {
                rowNorm[row] = rowNorm[row] + Math<TVec>::reduceAdd(tmp[row]);
            }
        }

        // each warp's share of each row
#pragma unroll
        for (int row = 0; row < RowTileSize; ++row) {
            rowNorm[row] = warpReduceAllSum(rowNorm[row]);
        }

        if (laneId == 0) {
#pragma unroll
            for (int row = 0; row < RowTileSize; ++row) {
                smem[row * numWarps + warpId] = rowNorm[row];
            }
        }
    }

    __syncthreads();

    // warp 0 sums the warps' shares
    if (warpId == 0) {
#pragma unroll
        for (int row = 0; row < RowTileSize; ++row) {
            rowNorm[row] =
                    laneId < numWarps ? smem[row * numWarps + laneId] : 0;
        }

#pragma unroll
        for (int row = 0; row < RowTileSize; ++row) {
            rowNorm[row] = warpReduceAllSum(rowNorm[row]);
        }

        if (laneId == 0) {
#pragma unroll
            for (int row = 0; row < RowTileSize; ++row) {
                idx_t outCol = rowStart + row;

                if (lastRowTile) {
                    if (outCol < output.getSize(0)) {
                        output[outCol] = NormSquared
                                ? ConvertTo<float>::to(rowNorm[row])
                                : sqrtf(ConvertTo<float>::to(rowNorm[row]));
                    }
                } else {
                    output[outCol] = NormSquared
                            ? ConvertTo<float>::to(rowNorm[row])
                            : sqrtf(ConvertTo<float>::to(rowNorm[row]));
                }
            }
        }
    }
}

} // namespace gpu
} // namespace faiss
"""

_L2NORM_WGSL = """
// kernel-forge corpus: a WebGPU port of FAISS's l2NormRowMajor: RowTileSize rows a
// workgroup, the columns strided by the workgroup, each row's partials summed by a tree
// in workgroup memory (WGSL has subgroups only as an extension: a tree for the warps).
struct Dims { rows: u32, dim: u32 }

const RowTileSize = 8u;
const BLOCK = 256u;

@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;
@group(0) @binding(2) var<uniform> dims: Dims;

var<workgroup> partial: array<array<f32, 256>, 8>;

@compute @workgroup_size(256)
fn l2NormRowMajor(@builtin(workgroup_id) wg: vec3<u32>,
                  @builtin(local_invocation_index) tid: u32) {
    let rowStart = RowTileSize * wg.x;
    for (var row = 0u; row < RowTileSize; row++) {
        var norm = 0.0;
        if (rowStart + row < dims.rows) {
            for (var col = tid; col < dims.dim; col += BLOCK) {
                let v = input[(rowStart + row) * dims.dim + col];
                norm += v * v;
            }
        }
        partial[row][tid] = norm;
    }
    workgroupBarrier();
    for (var s = BLOCK / 2u; s > 0u; s >>= 1u) {
        if (tid < s) {
            for (var row = 0u; row < RowTileSize; row++) {
                partial[row][tid] += partial[row][tid + s];
            }
        }
        workgroupBarrier();
    }
    if (tid < RowTileSize && rowStart + tid < dims.rows) {
        output[rowStart + tid] = partial[tid][0];
    }
}
"""

_NORM_TILE = 8


def _l2norm_reference(input, output, dims=None):
    """Each row's squared norm, in float64."""
    x = input.astype(np.float64)
    output[:] = (x * x).sum(axis=1)


def _norm_threads(dim: int) -> int:
    """The host's block: the row's length rounded up to whole warps, at most the
    device's 1024 threads (no float4 loads: the lengths here are not multiples of 4)."""
    return min(ceil_div(dim, 32) * 32, 1024)


def _l2norm_spec(target: str) -> KernelSpec:
    buffers = [
        BufferSpec(0, "f32", "read", name="input", count="N*D", shape=("N", "D")),
        BufferSpec(1, "f32", "read_write", name="output", count="N", shape=("N",)),
    ]
    grid = lambda sch, size: (ceil_div(int(size.N), _NORM_TILE), 1, 1)  # noqa: E731
    extra: dict = {}
    if target == "wgsl":
        buffers.append(BufferSpec.uniform(2, (("rows", "u32"), ("dim", "u32")), name="dims"))
        extra["params"] = lambda size: {"rows": int(size.N), "dim": int(size.D)}
        extra["grid"] = grid
        schedule = Schedule(256)
    else:
        entry = "faiss::gpu::l2NormRowMajor<float, float, 8, true>"

        def launches(size):
            threads = _norm_threads(int(size.D))
            return (
                Dispatch(
                    entry,
                    grid=grid,
                    schedule=Schedule(threads),
                    # a float a warp for each row of a tile
                    shared_bytes=4 * _NORM_TILE * (threads // 32),
                ),
            )

        extra["launches"] = launches
        schedule = Schedule(1024)
    return KernelSpec(
        id=f"wild_r77_faiss_l2_norm_row_major{'_tensors' if target == 'cuda' else '_port'}",
        entry_point="faiss::gpu::l2NormRowMajor<float, float, 8, true>"
        if target == "cuda"
        else "l2NormRowMajor",
        sources={target: _L2NORM_CUDA if target == "cuda" else _L2NORM_WGSL},
        dims=("N", "D"),
        buffers=tuple(buffers),
        reference=_l2norm_reference,
        schedules=(schedule,),
        include_dirs=(_INCLUDE,) if target == "cuda" else (),
        # 37 rows of 1030: four whole tiles and a last one of five, 1024 threads striding;
        # two tiles of 2050; five rows of 70 (96 threads, the last warp partly idle)
        test_sizes=("N=37,D=1030", "N=16,D=2050", "N=5,D=70"),
        **extra,
    )


_L2NORM_MUTANTS = {
    "cuda": {
        "the warps' partials read before the barrier": (
            "cuda",
            "    __syncthreads();\n\n    // warp 0 sums",
            "\n    // warp 0 sums",
        ),
        "the last tile's columns strided by a warp": (
            "cuda",
            "                 col += blockDim.x) {\n                TVec val",
            "                 col += kWarpSize) {\n                TVec val",
        ),
        "the last tile's norms rooted": (
            "cuda",
            "                        output[outCol] = NormSquared\n",
            "                        output[outCol] = !NormSquared\n",
        ),
        "the tile's first row from the block index alone": (
            "cuda",
            "idx_t rowStart = idx_t(blockIdx.x) * RowTileSize;",
            "idx_t rowStart = idx_t(blockIdx.x);",
        ),
    },
    "wgsl": {
        "the warps' partials read before the barrier": (
            "wgsl",
            "        partial[row][tid] = norm;\n    }\n    workgroupBarrier();\n",
            "        partial[row][tid] = norm;\n    }\n",
        ),
        "the last tile's columns strided by a warp": (
            "wgsl",
            "for (var col = tid; col < dims.dim; col += BLOCK) {",
            "for (var col = tid; col < dims.dim; col += 32u) {",
        ),
        "the last tile's norms rooted": (
            "wgsl",
            "output[rowStart + tid] = partial[tid][0];",
            "output[rowStart + tid] = select(partial[tid][0], sqrt(partial[tid][0]), wg.x == (dims.rows - 1u) / RowTileSize);",
        ),
        "the tile's first row from the block index alone": (
            "wgsl",
            "let rowStart = RowTileSize * wg.x;",
            "let rowStart = wg.x;",
        ),
    },
}

L2NORM_CUDA = Wild(
    _l2norm_spec("cuda"),
    _L2NORM_MUTANTS["cuda"],
    races=frozenset({"the warps' partials read before the barrier"}),
)
L2NORM_WGSL = Wild(_l2norm_spec("wgsl"), _L2NORM_MUTANTS["wgsl"])


ROUND77 = {
    w.kernel.id: w
    for w in (
        WEAK_CC_CUDA,
        WEAK_CC_WGSL,
        L2_CUDA,
        L2_WGSL,
        BFS_CUDA,
        BFS_WGSL,
        PAGERANK_CUDA,
        PAGERANK_WGSL,
        L2NORM_CUDA,
        L2NORM_WGSL,
    )
}

"""Round 69 of kernels from the wild, merged into ``tests.wild.CORPUS``: spatial data
structures and geometry, as ray tracers, physics engines and point-cloud code publish
them: a linear BVH's internal nodes (Karras 2012), a uniform grid's cell ranges after
the particles are sorted by cell, and a point-in-polygon crossing number. Each CUDA
kernel is written for this corpus after the public file named below: read, not copied
(the project's rule for public code). What is theirs is kept: the ``__global__``
functions' names and parameters (names, types, order), the launches the host code
makes, the shared memory and its barriers, the idioms (``__clzll`` of XORed codes, a
binary search that halves a stride rounded up, a block's hashes staged with the previous
block's last one in front, a tile of points a thread) and the numerics (a slope divided
once an edge, ``p.x < slope * (p.y - vj.y) + vj.x``, the half-open ``>`` on both
ends of an edge). What is ours: the comments, the formatting, the helpers' bodies where
they are one line, and the WebGPU ports (each says what it changes).

- ToruNiina/lbvh at addc78e0 (MIT), ``lbvh/bvh.cuh``: ``determine_range``,
  ``find_split`` and ``construct_internal_nodes`` (with ``utility.cuh``'s
  ``common_upper_bits``, ``__clzll`` of the XOR for 64-bit codes). The library keys
  each object by its 30-bit Morton code shifted up 32 bits with the object's index in
  the low 32 (``m64 = m << 32 | idx`` after a stable sort) whenever two codes are
  equal: the index is the tie-break, and the 64-bit keys are unique. Its internal
  nodes are built by ``thrust::for_each`` over a lambda; here that lambda is the
  ``__global__`` ``construct_internal_nodes<unsigned long long>`` (blocks of 256 over
  ``num_objects - 1`` nodes, thrust's launch), writing a ``node {parent_idx, left_idx,
  right_idx, object_idx}`` array of ``2n - 1`` whose leaves (from ``n - 1``) the host
  had set, all 0xFFFFFFFF here. The keys are drawn as the library makes them: points
  on a coarse lattice (so that a third of the codes repeat), 30-bit codes, a stable
  sort, the index appended. The reference builds the tree top-down instead (a range's
  split where the highest differing bit of its ends turns to 1): the same tree,
  reached another way. The WebGPU port keeps 32-bit codes (WGSL has no u64) and takes
  the paper's tie-break instead, ``delta(i, j) = 32 + clz(i ^ j)`` where the codes
  are equal (Karras, "Maximizing Parallelism in the Construction of BVHs, Octrees, and
  k-d Trees", HPG 2012, section 4), the sorted position for the index.
- NVIDIA/cuda-samples (BSD 3-clause), ``Samples/5_Domain_Specific/particles/
  particles_kernel_impl.cuh``: ``reorderDataAndFindCellStartD(uint *cellStart, uint
  *cellEnd, float4 *sortedPos, float4 *sortedVel, uint *gridParticleHash, uint
  *gridParticleIndex, float4 *oldPos, float4 *oldVel, uint numParticles)``, blocks of
  ``min(256, n)`` (``computeGridSize``), ``sizeof(uint) * (numThreads + 1)`` bytes of
  dynamic shared memory holding the block's hashes one slot up and the previous
  block's last hash in slot 0, a barrier before they are compared, ``cellEnd[hash] =
  index + 1`` for the last particle; the host clears ``cellStart`` to 0xFFFFFFFF
  (empty cells) and here ``cellEnd`` too (the sample leaves an empty cell's end as it
  was, which no reader looks at; a spec needs it defined). The hashes come sorted
  (thrust's ``sort_by_key`` between ``calcHashD`` and this kernel): drawn as a
  16^3 grid's cells, crowded around a few centres, sorted, the indices the sort's
  permutation. The port: 256 invocations, the shared array a ``var<workgroup>`` of 257.
  Read through copies the code index holds (it has no NVIDIA/cuda-samples file): one
  with NVIDIA's 2015 header, ``cg::sync(cta)`` and float3 positions (its repository
  unnamed in the index), and others with ``float4`` positions, as the sample's own.
- zjin-lcf/HeCBench at 280045f0 (BSD 3-clause), ``src/pnpoly-cuda/kernel.h`` and
  ``main.cu`` (after Ben van Werkhoven's Kernel Tuner example, Dan Sunday's crossing
  number): ``pnpoly_opt<tile_size>(int *bitmap, const float2 *point, const float2
  *vertex, int n)`` with ``VERTICES`` 600 and ``BLOCK_SIZE_X`` 256 as defines, each
  thread ``tile_size`` points ``BLOCK_SIZE_X`` apart, the edge's slope divided once
  and reused for the tile, ``is_between`` the half-open ``(b > a) != (c > a)``. The
  host launches every tile size on ``ceil(n / 256)`` blocks (the blocks past the
  points do nothing); this entry is ``pnpoly_opt<4>``. The benchmark's own draw:
  points from a normal distribution and 600 vertices on the unit circle at random
  angles (a self-intersecting polygon, judged by parity); a tenth of the points are
  moved level with a vertex (``p.y`` equal to a vertex's y), where the half-open test
  decides and the slope's rounding does not (``slope * 0``). The port: a workgroup of
  256, a tile of 4 in a private array.

What they showed: tests/test_wild_round69.py.
"""

# ruff: noqa: E501  (the CUDA and WGSL keep their sources' long lines)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import Wild

_F = np.float32
_EMPTY = 0xFFFFFFFF

# -- 1. ToruNiina/lbvh: Karras's internal nodes ---------------------------------------------

_LBVH_CUDA = r"""// kernel-forge corpus: ToruNiina/lbvh's internal-node construction (read, not copied).
#include <cuda_runtime.h>

struct node {
    unsigned int parent_idx;  // 0xFFFFFFFF at the root
    unsigned int left_idx;    // children: internal below num_objects - 1, leaves from there
    unsigned int right_idx;
    unsigned int object_idx;  // 0xFFFFFFFF for an internal node
};

// the length of the common prefix of two keys
__device__ inline int common_upper_bits(const unsigned long long int lhs, const unsigned long long int rhs) noexcept {
    return ::__clzll(lhs ^ rhs);
}

// the range of leaves internal node idx covers: its direction from the prefix lengths to
// its neighbours, an exponential search for a bound, then a binary search for the end
template <typename UInt>
__device__ inline uint2 determine_range(UInt const* node_code, const unsigned int num_leaves, unsigned int idx) {
    if (idx == 0) {
        return make_uint2(0, num_leaves - 1);
    }
    const UInt self_code = node_code[idx];
    const int L_delta = common_upper_bits(self_code, node_code[idx - 1]);
    const int R_delta = common_upper_bits(self_code, node_code[idx + 1]);
    const int d = (R_delta > L_delta) ? 1 : -1;

    const int delta_min = min(L_delta, R_delta);
    int l_max = 2;
    int delta = -1;
    int i_tmp = idx + d * l_max;
    if (0 <= i_tmp && i_tmp < num_leaves) {
        delta = common_upper_bits(self_code, node_code[i_tmp]);
    }
    while (delta > delta_min) {
        l_max <<= 1;
        i_tmp = idx + d * l_max;
        delta = -1;
        if (0 <= i_tmp && i_tmp < num_leaves) {
            delta = common_upper_bits(self_code, node_code[i_tmp]);
        }
    }

    int l = 0;
    int t = l_max >> 1;
    while (t > 0) {
        i_tmp = idx + (l + t) * d;
        delta = -1;
        if (0 <= i_tmp && i_tmp < num_leaves) {
            delta = common_upper_bits(self_code, node_code[i_tmp]);
        }
        if (delta > delta_min) {
            l += t;
        }
        t >>= 1;
    }
    unsigned int jdx = idx + l * d;
    if (d < 0) {
        const unsigned int lo = jdx;  // first <= last
        jdx = idx;
        idx = lo;
    }
    return make_uint2(idx, jdx);
}

// the last leaf of [first, last] that shares more than the range's prefix with first
template <typename UInt>
__device__ inline unsigned int find_split(UInt const* node_code, const unsigned int num_leaves, const unsigned int first, const unsigned int last) noexcept {
    const UInt first_code = node_code[first];
    const UInt last_code = node_code[last];
    if (first_code == last_code) {
        return (first + last) >> 1;
    }
    const int delta_node = common_upper_bits(first_code, last_code);

    int split = first;
    int stride = last - first;
    do {
        stride = (stride + 1) >> 1;
        const int middle = split + stride;
        if (middle < last) {
            const int delta = common_upper_bits(first_code, node_code[middle]);
            if (delta > delta_node) {
                split = middle;
            }
        }
    } while (stride > 1);
    return split;
}

// the library's for_each lambda over internal nodes, a thread a node
template <typename UInt>
__global__ void construct_internal_nodes(node* nodes, UInt const* node_code, const unsigned int num_objects) {
    const unsigned int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= num_objects - 1) return;

    nodes[idx].object_idx = 0xFFFFFFFF;

    const uint2 ij = determine_range(node_code, num_objects, idx);
    const int gamma = find_split(node_code, num_objects, ij.x, ij.y);

    nodes[idx].left_idx = gamma;
    nodes[idx].right_idx = gamma + 1;
    if (min(ij.x, ij.y) == gamma) {
        nodes[idx].left_idx += num_objects - 1;
    }
    if (max(ij.x, ij.y) == gamma + 1) {
        nodes[idx].right_idx += num_objects - 1;
    }
    nodes[nodes[idx].left_idx].parent_idx = idx;
    nodes[nodes[idx].right_idx].parent_idx = idx;
}

template __global__ void construct_internal_nodes<unsigned long long>(node*, unsigned long long const*, const unsigned int);
"""

_LBVH_WGSL = """// ToruNiina/lbvh's internal nodes as a WebGPU port: 32-bit Morton codes, equal codes
// told apart by their sorted positions (Karras 2012's delta), an invocation a node.
struct Node {
    parent_idx: u32,
    left_idx: u32,
    right_idx: u32,
    object_idx: u32,
}

struct Params {
    num_objects: u32,
}

@group(0) @binding(0) var<storage, read_write> nodes: array<Node>;
@group(0) @binding(1) var<storage, read> morton: array<u32>;
@group(0) @binding(2) var<uniform> params: Params;

// the common prefix of keys i and j, -1 where j is off the array
fn delta(i: i32, j: i32) -> i32 {
    if (j < 0 || j >= i32(params.num_objects)) {
        return -1;
    }
    let a = morton[i];
    let b = morton[j];
    if (a == b) {
        return 32 + i32(countLeadingZeros(u32(i) ^ u32(j)));
    }
    return i32(countLeadingZeros(a ^ b));
}

fn determine_range(idx: i32) -> vec2<i32> {
    let n = i32(params.num_objects);
    if (idx == 0) {
        return vec2<i32>(0, n - 1);
    }
    let L_delta = delta(idx, idx - 1);
    let R_delta = delta(idx, idx + 1);
    let d = select(-1, 1, R_delta > L_delta);
    let delta_min = min(L_delta, R_delta);

    var l_max = 2;
    while (delta(idx, idx + d * l_max) > delta_min) {
        l_max = l_max << 1u;
    }
    var l = 0;
    var t = l_max >> 1u;
    while (t > 0) {
        if (delta(idx, idx + (l + t) * d) > delta_min) {
            l += t;
        }
        t = t >> 1u;
    }
    let jdx = idx + l * d;
    return vec2<i32>(min(idx, jdx), max(idx, jdx));
}

fn find_split(first: i32, last: i32) -> i32 {
    let delta_node = delta(first, last);
    var split = first;
    var stride = last - first;
    loop {
        stride = (stride + 1) >> 1u;
        let middle = split + stride;
        if (middle < last) {
            if (delta(first, middle) > delta_node) {
                split = middle;
            }
        }
        if (stride <= 1) {
            break;
        }
    }
    return split;
}

@compute @workgroup_size(256)
fn construct_internal_nodes(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = params.num_objects;
    if (gid.x + 1u >= n) {
        return;
    }
    let idx = i32(gid.x);
    nodes[idx].object_idx = 0xFFFFFFFFu;

    let ij = determine_range(idx);
    let gamma = find_split(ij.x, ij.y);

    var left = u32(gamma);
    var right = u32(gamma + 1);
    if (ij.x == gamma) {
        left += n - 1u;
    }
    if (ij.y == gamma + 1) {
        right += n - 1u;
    }
    nodes[idx].left_idx = left;
    nodes[idx].right_idx = right;
    nodes[left].parent_idx = u32(idx);
    nodes[right].parent_idx = u32(idx);
}
"""


def _expand_bits(v):
    """Karras's 10 bits spread two zeros apart, as ``expandBits`` multiplies them."""
    v = v.astype(np.uint64)
    v = (v * np.uint64(0x00010001)) & np.uint64(0xFF0000FF)
    v = (v * np.uint64(0x00000101)) & np.uint64(0x0F00F00F)
    v = (v * np.uint64(0x00000011)) & np.uint64(0xC30C30C3)
    v = (v * np.uint64(0x00000005)) & np.uint64(0x49249249)
    return v


def _sorted_morton(rng, n):
    """The library's keys before the tie-break: points in the unit cube, a third of them
    on a lattice of 1/8 so that their codes repeat, 30-bit codes stably sorted; with the
    objects' indices in that order."""
    pts = rng.random((n, 3))
    lattice = rng.random(n) < 1 / 3
    pts[lattice] = np.floor(pts[lattice] * 8) / 8 + 1 / 16
    q = np.minimum(np.maximum(pts * 1024.0, 0.0), 1023.0).astype(np.uint64)
    code = _expand_bits(q[:, 0]) * np.uint64(4) + _expand_bits(q[:, 1]) * np.uint64(2)
    code = code + _expand_bits(q[:, 2])
    order = np.argsort(code, kind="stable")
    return code[order], order.astype(np.uint64)


def _node_code_64(rng, count, size):
    """``m << 32 | idx``: the codes with the objects' indices as the tie-break."""
    code, order = _sorted_morton(rng, int(size.n))
    return ((code << np.uint64(32)) | order)[:count]


def _morton_32(rng, count, size):
    return _sorted_morton(rng, int(size.n))[0].astype(np.uint32)[:count]


def _tree_top_down(keys: list[int]) -> np.ndarray:
    """Karras's tree by recursion from the root: a range's split is its last key whose
    bit at the highest bit the range's ends differ in is 0; the left child is internal
    node ``split`` (a leaf where it is the range's first), the right ``split + 1`` (a
    leaf where it is the last). Rows: parent, left, right, object (0xFFFFFFFF unset)."""
    n = len(keys)
    nodes = np.full((2 * n - 1, 4), _EMPTY, np.uint32)
    arr = np.array(keys, dtype=object)
    stack = [(0, 0, n - 1)]
    while stack:
        idx, first, last = stack.pop()
        bit = (keys[first] ^ keys[last]).bit_length() - 1
        ones = [(k >> bit) & 1 for k in arr[first : last + 1]]
        gamma = first + ones.index(1) - 1
        left = gamma if gamma != first else gamma + n - 1
        right = gamma + 1 if gamma + 1 != last else gamma + n
        nodes[idx, 1:] = (left, right, _EMPTY)
        nodes[left, 0] = idx
        nodes[right, 0] = idx
        if gamma != first:
            stack.append((left, first, gamma))
        if gamma + 1 != last:
            stack.append((right, gamma + 1, last))
    return nodes


def _lbvh_reference_64(node_code, n):
    return {"nodes": _tree_top_down([int(k) for k in node_code])}


def _lbvh_reference_32(morton, n):
    # equal codes ordered by their positions: the key the paper's delta compares
    return {"nodes": _tree_top_down([(int(c) << 32) | i for i, c in enumerate(morton)])}


_NODE = (
    ("parent_idx", "u32"),
    ("left_idx", "u32"),
    ("right_idx", "u32"),
    ("object_idx", "u32"),
)
# 1000 objects (four blocks, the last part full), 3001, and 2: the root alone
_LBVH_SIZES = (1000, 3001, 2)


def _nodes_buffer(binding: int) -> BufferSpec:
    return BufferSpec(
        binding,
        "u32",
        "read_write",
        name="nodes",
        count="4*(2*n-1)",
        shape=("2*n-1", 4),
        initial=_EMPTY,
    )


LBVH_CUDA = Wild(
    KernelSpec(
        id="wild_r69_toruniina_lbvh_construct_internal_nodes",
        entry_point="construct_internal_nodes<unsigned long long>",
        sources={"cuda": _LBVH_CUDA},
        buffers=(
            _nodes_buffer(0),
            BufferSpec(1, "u64", "read", name="node_code", count="n", fill=_node_code_64),
        ),
        reference=_lbvh_reference_64,
        params=lambda s: {"num_objects": int(s.n)},
        arguments=("nodes", "node_code", "num_objects"),
        grid=lambda sch, s: (ceil_div(int(s.n) - 1, 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=_LBVH_SIZES,
    ),
    {
        "the split's stride halved down": (
            "cuda",
            "stride = (stride + 1) >> 1;",
            "stride = stride >> 1;",
        ),
        "the direction toward the shorter prefix": (
            "cuda",
            "const int d = (R_delta > L_delta) ? 1 : -1;",
            "const int d = (R_delta < L_delta) ? 1 : -1;",
        ),
        "the index tie-break cut off (codes compared in their upper 32 bits)": (
            "cuda",
            "return ::__clzll(lhs ^ rhs);",
            "return ::__clz((unsigned int)((lhs ^ rhs) >> 32));",
        ),
    },
)

LBVH_WGSL = Wild(
    KernelSpec(
        id="wild_r69_toruniina_lbvh_internal_nodes_webgpu_port",
        entry_point="construct_internal_nodes",
        sources={"wgsl": _LBVH_WGSL},
        buffers=(
            _nodes_buffer(0),
            BufferSpec(1, "u32", "read", name="morton", count="n", fill=_morton_32),
            BufferSpec.uniform(2, (("num_objects", "u32"),), name="params"),
        ),
        reference=_lbvh_reference_32,
        params=lambda s: {"num_objects": int(s.n)},
        grid=lambda sch, s: (ceil_div(int(s.n) - 1, 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=_LBVH_SIZES,
    ),
    {
        "equal codes not told apart by their positions": (
            "wgsl",
            "        return 32 + i32(countLeadingZeros(u32(i) ^ u32(j)));\n",
            "        return 32;\n",
        ),
        "a left leaf numbered from n": (
            "wgsl",
            "left += n - 1u;",
            "left += n;",
        ),
        "the right child a leaf one early": (
            "wgsl",
            "if (ij.y == gamma + 1) {",
            "if (ij.y == gamma + 2) {",
        ),
    },
)


# -- 2. cuda-samples particles: a uniform grid's cell ranges --------------------------------

_GRID_CUDA = r"""// kernel-forge corpus: cuda-samples' particles, reorderDataAndFindCellStartD (read, not copied).
#include <cuda_runtime.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;
typedef unsigned int uint;

// particles sorted by cell: each cell's first and one-past-last particle, and the
// positions and velocities gathered into the sorted order
__global__ void reorderDataAndFindCellStartD(uint *cellStart,         // out: a cell's first particle
                                             uint *cellEnd,           // out: one past its last
                                             float4 *sortedPos,       // out
                                             float4 *sortedVel,       // out
                                             uint *gridParticleHash,  // in: sorted cells
                                             uint *gridParticleIndex, // in: the sort's permutation
                                             float4 *oldPos,          // in
                                             float4 *oldVel,          // in
                                             uint numParticles) {
    cg::thread_block cta = cg::this_thread_block();
    // the block's hashes one slot up, the previous block's last in slot 0
    extern __shared__ uint sharedHash[];
    uint index = blockIdx.x * blockDim.x + threadIdx.x;

    uint hash;
    if (index < numParticles) {
        hash = gridParticleHash[index];
        sharedHash[threadIdx.x + 1] = hash;

        if (index > 0 && threadIdx.x == 0) {
            sharedHash[0] = gridParticleHash[index - 1];
        }
    }

    cg::sync(cta);

    if (index < numParticles) {
        // a new cell starts where the hash differs from the one before; the cell
        // before ends there
        if (index == 0 || hash != sharedHash[threadIdx.x]) {
            cellStart[hash] = index;
            if (index > 0) cellEnd[sharedHash[threadIdx.x]] = index;
        }
        if (index == numParticles - 1) {
            cellEnd[hash] = index + 1;
        }

        uint sortedIndex = gridParticleIndex[index];
        float4 pos = oldPos[sortedIndex];
        float4 vel = oldVel[sortedIndex];
        sortedPos[index] = pos;
        sortedVel[index] = vel;
    }
}
"""

_GRID_WGSL = """// cuda-samples' reorderDataAndFindCellStartD as a WebGPU port: 256 invocations, the
// block's hashes in workgroup memory one slot up, the previous workgroup's last in slot 0.
struct Params {
    numParticles: u32,
}

@group(0) @binding(0) var<storage, read_write> cellStart: array<u32>;
@group(0) @binding(1) var<storage, read_write> cellEnd: array<u32>;
@group(0) @binding(2) var<storage, read_write> sortedPos: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> sortedVel: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> gridParticleHash: array<u32>;
@group(0) @binding(5) var<storage, read> gridParticleIndex: array<u32>;
@group(0) @binding(6) var<storage, read> oldPos: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read> oldVel: array<vec4<f32>>;
@group(0) @binding(8) var<uniform> params: Params;

var<workgroup> sharedHash: array<u32, 257>;

@compute @workgroup_size(256)
fn reorderDataAndFindCellStart(@builtin(global_invocation_id) gid: vec3<u32>,
                               @builtin(local_invocation_id) lid: vec3<u32>) {
    let index = gid.x;
    let n = params.numParticles;
    var hash = 0u;
    if (index < n) {
        hash = gridParticleHash[index];
        sharedHash[lid.x + 1u] = hash;
        if (index > 0u && lid.x == 0u) {
            sharedHash[0] = gridParticleHash[index - 1u];
        }
    }

    workgroupBarrier();

    if (index < n) {
        let before = sharedHash[lid.x];
        if (index == 0u || hash != before) {
            cellStart[hash] = index;
            if (index > 0u) {
                cellEnd[before] = index;
            }
        }
        if (index == n - 1u) {
            cellEnd[hash] = index + 1u;
        }
        let sortedIndex = gridParticleIndex[index];
        sortedPos[index] = oldPos[sortedIndex];
        sortedVel[index] = oldVel[sortedIndex];
    }
}
"""

_GRID_CELLS = 16 * 16 * 16


def _sorted_hashes(rng, count, size):
    """``calcHashD``'s cells after the sort: particles crowded around a few centres of a
    16^3 grid (cells of one to dozens of particles, most cells empty), the last cell
    always among them; sorted ascending."""
    n = int(size.n)
    centres = rng.random((6, 3)) * 16
    pos = centres[rng.integers(0, 6, n)] + rng.normal(0, 1.5, (n, 3))
    cell = np.clip(np.floor(pos), 0, 15).astype(np.int64)
    hashes = (cell[:, 2] * 16 + cell[:, 1]) * 16 + cell[:, 0]
    hashes[rng.integers(0, n)] = _GRID_CELLS - 1
    return np.sort(hashes).astype(np.uint32)[:count]


def _permutation(rng, count, size):
    """The sort's permutation: which particle went where."""
    return rng.permutation(int(size.n)).astype(np.uint32)[:count]


def _grid_reference(gridParticleHash, gridParticleIndex, oldPos, oldVel):
    h = gridParticleHash.astype(np.int64)
    n = len(h)
    start = np.full(_GRID_CELLS, _EMPTY, np.uint32)
    end = np.full(_GRID_CELLS, _EMPTY, np.uint32)
    cells, first = np.unique(h, return_index=True)
    start[cells] = first
    end[cells] = np.append(first[1:], n)
    perm = gridParticleIndex.astype(np.int64)
    return {
        "cellStart": start,
        "cellEnd": end,
        "sortedPos": oldPos.reshape(n, 4)[perm],
        "sortedVel": oldVel.reshape(n, 4)[perm],
    }


def _grid_buffers(uniform: tuple = ()) -> tuple:
    return (
        BufferSpec(0, "u32", "read_write", name="cellStart", count=_GRID_CELLS, initial=_EMPTY),
        BufferSpec(1, "u32", "read_write", name="cellEnd", count=_GRID_CELLS, initial=_EMPTY),
        BufferSpec(2, "vec4<f32>", "read_write", name="sortedPos", count="n"),
        BufferSpec(3, "vec4<f32>", "read_write", name="sortedVel", count="n"),
        BufferSpec(4, "u32", "read", name="gridParticleHash", count="n", fill=_sorted_hashes),
        BufferSpec(5, "u32", "read", name="gridParticleIndex", count="n", fill=_permutation),
        BufferSpec(6, "vec4<f32>", "read", name="oldPos", count="n"),
        BufferSpec(7, "vec4<f32>", "read", name="oldVel", count="n"),
        *uniform,
    )


# 3001 particles (twelve blocks, the last part full), 1000, and 200 (one block of 200:
# computeGridSize's min(256, n))
_GRID_SIZES = (3001, 1000, 200)

GRID_CUDA = Wild(
    KernelSpec(
        id="wild_r69_cuda_samples_particles_reorder_and_find_cell_start",
        entry_point="reorderDataAndFindCellStartD",
        sources={"cuda": _GRID_CUDA},
        buffers=_grid_buffers(),
        reference=_grid_reference,
        params=lambda s: {"numParticles": int(s.n)},
        launches=(
            Dispatch(
                "reorderDataAndFindCellStartD",
                grid=lambda sch, s: (ceil_div(int(s.n), min(256, int(s.n))), 1, 1),
                schedule=lambda sch, s: Schedule(min(256, int(s.n))),
                shared_bytes=lambda sch, s: 4 * (min(256, int(s.n)) + 1),
                arguments=(
                    "cellStart",
                    "cellEnd",
                    "sortedPos",
                    "sortedVel",
                    "gridParticleHash",
                    "gridParticleIndex",
                    "oldPos",
                    "oldVel",
                    "numParticles",
                ),
            ),
        ),
        schedules=(Schedule(256),),
        test_sizes=_GRID_SIZES,
    ),
    {
        "the last cell's end at the last particle": (
            "cuda",
            "cellEnd[hash] = index + 1;",
            "cellEnd[hash] = index;",
        ),
        "a block's first thread compares with itself": (
            "cuda",
            "sharedHash[0] = gridParticleHash[index - 1];",
            "sharedHash[0] = gridParticleHash[index];",
        ),
        "no barrier before the neighbours' hashes are read": (
            "cuda",
            "    cg::sync(cta);\n",
            "",
        ),
    },
    races=frozenset({"no barrier before the neighbours' hashes are read"}),
)

GRID_WGSL = Wild(
    KernelSpec(
        id="wild_r69_cuda_samples_particles_find_cell_start_webgpu_port",
        entry_point="reorderDataAndFindCellStart",
        sources={"wgsl": _GRID_WGSL},
        buffers=_grid_buffers((BufferSpec.uniform(8, (("numParticles", "u32"),), name="params"),)),
        reference=_grid_reference,
        params=lambda s: {"numParticles": int(s.n)},
        grid=lambda sch, s: (ceil_div(int(s.n), 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=_GRID_SIZES,
    ),
    {
        "no barrier before the neighbours' hashes are read": (
            "wgsl",
            "    workgroupBarrier();\n",
            "",
        ),
        "a cell's start not closing the cell before": (
            "wgsl",
            "                cellEnd[before] = index;",
            "                cellEnd[before] = index - 1u;",
        ),
    },
)


# -- 3. HeCBench pnpoly: the crossing number, a tile of points a thread ---------------------

_PNPOLY_CUDA = r"""// kernel-forge corpus: HeCBench's pnpoly (after Kernel Tuner's), pnpoly_opt (read, not copied).
#include <cuda_runtime.h>

// whether a lies between b and c, the lower end in and the upper out
__device__ __forceinline__ int is_between(float a, float b, float c) {
    return (b > a) != (c > a);
}

// bitmap[i] is 1 where point i is inside the polygon (odd crossings), 0 outside; a
// thread takes tile_size points BLOCK_SIZE_X apart
template <int tile_size>
__global__ void pnpoly_opt(int *__restrict__ bitmap, const float2 *__restrict__ point, const float2 *__restrict__ vertex, int n) {
    int i = blockIdx.x * BLOCK_SIZE_X * tile_size + threadIdx.x;
    if (i < n) {
        int c[tile_size];
        float2 lpoint[tile_size];
#pragma unroll
        for (int ti = 0; ti < tile_size; ti++) {
            c[ti] = 0;
            if (i + BLOCK_SIZE_X * ti < n) {
                lpoint[ti] = point[i + BLOCK_SIZE_X * ti];
            }
        }

        int k = VERTICES - 1;
        for (int j = 0; j < VERTICES; k = j++) {  // the edge from vertex j to vertex k
            float2 vj = vertex[j];
            float2 vk = vertex[k];
            float slope = (vk.x - vj.x) / (vk.y - vj.y);

#pragma unroll
            for (int ti = 0; ti < tile_size; ti++) {
                float2 p = lpoint[ti];
                // a ray from p toward +x crosses the edge
                if (is_between(p.y, vj.y, vk.y) && (p.x < slope * (p.y - vj.y) + vj.x)) {
                    c[ti] = !c[ti];
                }
            }
        }

#pragma unroll
        for (int ti = 0; ti < tile_size; ti++) {
            if (i + BLOCK_SIZE_X * ti < n) bitmap[i + BLOCK_SIZE_X * ti] = c[ti];
        }
    }
}

template __global__ void pnpoly_opt<4>(int *__restrict__, const float2 *__restrict__, const float2 *__restrict__, int);
"""

_PNPOLY_WGSL = """// HeCBench's pnpoly_opt<4> as a WebGPU port: 256 invocations, four points each, 256 apart.
const VERTICES: u32 = 600u;
const BLOCK_SIZE_X: u32 = 256u;
const TILE: u32 = 4u;

struct Params {
    n: u32,
}

@group(0) @binding(0) var<storage, read_write> bitmap: array<i32>;
@group(0) @binding(1) var<storage, read> point: array<vec2<f32>>;
@group(0) @binding(2) var<storage, read> vertex: array<vec2<f32>>;
@group(0) @binding(3) var<uniform> params: Params;

fn is_between(a: f32, b: f32, c: f32) -> bool {
    return (b > a) != (c > a);
}

@compute @workgroup_size(256)
fn pnpoly(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let n = params.n;
    let i = wid.x * BLOCK_SIZE_X * TILE + lid.x;
    if (i >= n) {
        return;
    }
    var c: array<i32, 4>;
    var lpoint: array<vec2<f32>, 4>;
    for (var ti = 0u; ti < TILE; ti++) {
        c[ti] = 0;
        if (i + BLOCK_SIZE_X * ti < n) {
            lpoint[ti] = point[i + BLOCK_SIZE_X * ti];
        }
    }

    var k = VERTICES - 1u;
    for (var j = 0u; j < VERTICES; j++) {
        let vj = vertex[j];
        let vk = vertex[k];
        let slope = (vk.x - vj.x) / (vk.y - vj.y);
        for (var ti = 0u; ti < TILE; ti++) {
            let p = lpoint[ti];
            if (is_between(p.y, vj.y, vk.y) && (p.x < slope * (p.y - vj.y) + vj.x)) {
                c[ti] = 1 - c[ti];
            }
        }
        k = j;
    }

    for (var ti = 0u; ti < TILE; ti++) {
        if (i + BLOCK_SIZE_X * ti < n) {
            bitmap[i + BLOCK_SIZE_X * ti] = c[ti];
        }
    }
}
"""

_VERTICES = 600


def _benchmark_polygon() -> np.ndarray:
    """The benchmark's polygon, fixed as its seeded engine fixes it: 600 vertices on the
    unit circle at angles drawn from a normal distribution times 2 pi, in the order
    drawn (a self-intersecting polygon)."""
    t = (np.random.default_rng(123).normal(0, 1, _VERTICES) * 2 * np.pi).astype(_F)
    return np.stack([np.cos(t), np.sin(t)], axis=1).astype(_F)


_POLYGON = _benchmark_polygon()


def _points(rng, count, size):
    """The benchmark's points, normal in x and y; a tenth moved level with a vertex (its
    y exactly), where the half-open test decides and no rounding does."""
    n = int(size.n)
    pts = rng.normal(0, 1, (n, 2)).astype(_F)
    level = rng.random(n) < 0.1
    pts[level, 1] = _POLYGON[rng.integers(0, _VERTICES, int(level.sum())), 1]
    return pts[:count]


def _pnpoly_reference(point, vertex):
    p = point.reshape(-1, 2)
    v = vertex.reshape(-1, 2)
    vj = v
    vk = np.roll(v, 1, axis=0)  # k is the vertex before j, the last before the first
    with np.errstate(divide="ignore", invalid="ignore"):
        slope = (vk[:, 0] - vj[:, 0]) / (vk[:, 1] - vj[:, 1])
    py = p[:, 1:2]
    between = (vj[None, :, 1] > py) != (vk[None, :, 1] > py)
    with np.errstate(invalid="ignore"):
        cross = p[:, 0:1] < slope[None, :] * (py - vj[None, :, 1]) + vj[None, :, 0]
    return (np.count_nonzero(between & cross, axis=1) % 2).astype(np.int32)


def _pnpoly_buffers(uniform: tuple = ()) -> tuple:
    return (
        BufferSpec(0, "i32", "read_write", name="bitmap", count="n"),
        BufferSpec(1, "vec2<f32>", "read", name="point", count="n", fill=_points),
        BufferSpec(2, "vec2<f32>", "read", name="vertex", count=_VERTICES, fill=_POLYGON),
        *uniform,
    )


# 3001 points (three blocks of 1024, the last partly empty), 1000 (one block, its tiles
# partly past the end)
_PNPOLY_SIZES = (3001, 1000)

PNPOLY_CUDA = Wild(
    KernelSpec(
        id="wild_r69_hecbench_pnpoly_opt_tile4",
        entry_point="pnpoly_opt<4>",
        sources={"cuda": _PNPOLY_CUDA},
        buffers=_pnpoly_buffers(),
        reference=_pnpoly_reference,
        defines={"VERTICES": _VERTICES, "BLOCK_SIZE_X": 256},
        arguments=("bitmap", "point", "vertex", "n"),
        # the host's grid for every tile size: ceil(n / 256) blocks
        grid=lambda sch, s: (ceil_div(int(s.n), 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=_PNPOLY_SIZES,
    ),
    {
        "the closing edge left out": ("cuda", "int k = VERTICES - 1;", "int k = 0;"),
        "is_between's arguments swapped": (
            "cuda",
            "if (is_between(p.y, vj.y, vk.y) &&",
            "if (is_between(vj.y, p.y, vk.y) &&",
        ),
    },
)

PNPOLY_WGSL = Wild(
    KernelSpec(
        id="wild_r69_hecbench_pnpoly_webgpu_port",
        entry_point="pnpoly",
        sources={"wgsl": _PNPOLY_WGSL},
        buffers=_pnpoly_buffers((BufferSpec.uniform(3, (("n", "u32"),), name="params"),)),
        reference=_pnpoly_reference,
        params=lambda s: {"n": int(s.n)},
        grid=lambda sch, s: (ceil_div(int(s.n), 256 * 4), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=_PNPOLY_SIZES,
    ),
    {
        "the tile's points one apart": (
            "wgsl",
            "lpoint[ti] = point[i + BLOCK_SIZE_X * ti];",
            "lpoint[ti] = point[i + ti];",
        ),
        "a vertex level with the point counted above on one end": (
            "wgsl",
            "return (b > a) != (c > a);",
            "return (b >= a) != (c > a);",
        ),
    },
)


ROUND69: dict[str, Wild] = {
    w.kernel.id: w for w in (LBVH_CUDA, LBVH_WGSL, GRID_CUDA, GRID_WGSL, PNPOLY_CUDA, PNPOLY_WGSL)
}

"""Deliberately broken kernels, each beside its correct twin, to prove the oracle
catches wrong kernels (issue 6, item 8).

Every case is one raw kernel written once as a WGSL and a CUDA C template with a
``@BUG@`` slot: the correct text fills it for the control, the broken text for the
defect. Both share the correct numpy reference, so on a GPU backend the defect is in
the device code only. The reference backend runs numpy, not device code, so there the
defect is a broken numpy function (``broken_reference``) judged against the correct
one; defects numpy cannot have (a bounds guard, a barrier) have none.

``finding`` names the check that must fire: ``past_end`` (elements written beyond the
output), ``unwritten`` (elements left holding the poison), ``value`` (outputs differ),
``input`` (an input changed).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from forge import Access, BufferSpec, KernelSpec, Schedule

__all__ = ["BrokenCase", "CASES", "case"]


@dataclass(frozen=True)
class BrokenCase:
    """One defect: the correct kernel, the broken one, and what must catch it."""

    name: str
    good: KernelSpec
    broken: KernelSpec
    finding: str  # the check that must fire on a GPU backend
    broken_reference: KernelSpec | None
    reference_finding: str = ""
    note: str = ""


# -- shared pieces ----------------------------------------------------------------------
_WGSL_HEAD = """\
@group(0) @binding(0) var<storage, @XACCESS@> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;
"""
_WGSL_IDS = """\
@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
            @builtin(local_invocation_index) lid: u32"""
_CUDA_INDEX = (
    "const unsigned long long block = (unsigned long long)blockIdx.y * gridDim.x "
    "+ blockIdx.x;\n    const unsigned int lid = threadIdx.x;\n"
)

_AFFINE_WGSL = (
    """\
struct Params { a: f32, b: f32, n: u32 }
"""
    + _WGSL_HEAD
    + """
@compute @workgroup_size(${wg_x})
fn ${entry}("""
    + _WGSL_IDS
    + """) {
    let i = (wg.y * groups.x + wg.x) * ${wg_x}u + lid;
    @BUG@
}
"""
)

_AFFINE_CUDA = (
    """\
struct Params { float a; float b; unsigned int n; };
extern "C" __global__ void ${entry}(@XCONST@float* x, float* y, const Params p) {
    """
    + _CUDA_INDEX
    + """    const unsigned long long i = block * blockDim.x + lid;
    @BUG@
}
"""
)


def _affine(x, y, p):
    y[:] = np.float32(p["a"]) * x + np.float32(p["b"])


def _affine_buffers():
    return (
        BufferSpec(0, "f32", Access.READ, name="x"),
        BufferSpec(1, "f32", Access.READ_WRITE, name="y"),
        BufferSpec.uniform(2, (("a", "f32"), ("b", "f32"), ("n", "u32"))),
    )


def _fill(template: str, bug: str, xaccess: str = "read", xconst: str = "const ") -> str:
    return template.replace("@BUG@", bug).replace("@XACCESS@", xaccess).replace("@XCONST@", xconst)


def _pair(
    name: str, wgsl: str, cuda: str, good: tuple, bad: tuple, reference: Callable, **spec
) -> tuple[KernelSpec, KernelSpec]:
    """The correct and the broken kernel from one template pair. ``good`` and ``bad``
    are (wgsl fill, cuda fill) tuples of keyword arguments for ``_fill``."""
    kernels = []
    for suffix, (w, c) in (("good", good), ("broken", bad)):
        kernels.append(
            KernelSpec(
                id=f"{name}_{suffix}",
                entry_point=f"{name}_{suffix}",
                sources={"wgsl": _fill(wgsl, **w), "cuda": _fill(cuda, **c)},
                reference=reference,
                tags=("oracle-broken",),
                **spec,
            )
        )
    return kernels[0], kernels[1]


def _numpy_twin(kernel: KernelSpec, function: Callable) -> KernelSpec:
    """The kernel with a broken numpy meaning, for the reference backend (its own id,
    so no context mistakes it for the correct one)."""
    return KernelSpec(
        **{
            **{
                f: getattr(kernel, f)
                for f in (
                    "entry_point",
                    "buffers",
                    "sources",
                    "params",
                    "defaults",
                    "grid",
                    "schedules",
                    "domain",
                    "nonfinite_inputs",
                    "tolerance",
                    "test_sizes",
                    "tags",
                )
            },
            "id": kernel.id.replace("_good", "_numpy_broken"),
            "reference": function,
        }
    )


_AFFINE_SPEC = dict(
    buffers=_affine_buffers(),
    params=lambda n: {"n": n},
    defaults={"a": 2.0, "b": 0.5},
    schedules=(Schedule(64),),
    test_sizes=(1000,),
)
_GUARDED = "if (i < p.n) { y[i] = p.a * x[i] + p.b; }"


# -- 1. off-by-one index: adjacent differences, loop bound one too far -----------------
def _diff(x, y, p):
    y[:] = x[1:] - x[:-1]


def _diff_shifted(x, y, p):  # numpy off-by-one: each difference stored one slot late
    y[1:] = x[1:-1] - x[:-2]


_DIFF_WGSL = _AFFINE_WGSL.replace("a: f32, b: f32, n: u32", "n: u32")
_DIFF_CUDA = _AFFINE_CUDA.replace("float a; float b; unsigned int n;", "unsigned int n;")
_DIFF_GOOD = "if (i + 1u < p.n) { y[i] = x[i + 1u] - x[i]; }"
_DIFF_BAD = "if (i < p.n) { y[i] = x[i + 1u] - x[i]; }"
OFF_BY_ONE = _pair(
    "off_by_one",
    _DIFF_WGSL,
    _DIFF_CUDA,
    ({"bug": _DIFF_GOOD}, {"bug": _DIFF_GOOD.replace("1u", "1")}),
    ({"bug": _DIFF_BAD}, {"bug": _DIFF_BAD.replace("1u", "1")}),
    _diff,
    buffers=(
        BufferSpec(0, "f32", Access.READ, name="x"),
        BufferSpec(1, "f32", Access.READ_WRITE, name="y", count=lambda n: max(n - 1, 0)),
        BufferSpec.uniform(2, (("n", "u32"),)),
    ),
    params=lambda n: {"n": n},
    schedules=(Schedule(64),),
    test_sizes=(1000,),
)

# -- 2. missing bounds guard ---------------------------------------------------------------
MISSING_GUARD = _pair(
    "missing_guard",
    _AFFINE_WGSL,
    _AFFINE_CUDA,
    ({"bug": _GUARDED}, {"bug": _GUARDED}),
    ({"bug": "y[i] = p.a * x[i] + p.b;"}, {"bug": "y[i] = p.a * x[i] + p.b;"}),
    _affine,
    **_AFFINE_SPEC,
)

# -- 3. all zeros returned -----------------------------------------------------------------
ALL_ZEROS = _pair(
    "all_zeros",
    _AFFINE_WGSL,
    _AFFINE_CUDA,
    ({"bug": _GUARDED}, {"bug": _GUARDED}),
    ({"bug": "if (i < p.n) { y[i] = 0.0; }"}, {"bug": "if (i < p.n) { y[i] = 0.0f; }"}),
    _affine,
    **_AFFINE_SPEC,
)

# -- 4. inputs overwritten -------------------------------------------------------------------
_CLOBBER = "if (i < p.n) { y[i] = p.a * x[i] + p.b; x[i] = 0.0; }"
INPUTS_OVERWRITTEN = _pair(
    "inputs_overwritten",
    _AFFINE_WGSL,
    _AFFINE_CUDA,
    ({"bug": _GUARDED}, {"bug": _GUARDED}),
    (
        {"bug": _CLOBBER, "xaccess": "read_write"},
        {"bug": _CLOBBER.replace("0.0", "0.0f"), "xconst": ""},
    ),
    _affine,
    **_AFFINE_SPEC,
)

# -- 5. only part of the output written: two items per invocation, the second forgotten ----
_PAIR_GOOD = (
    "let j = 2u * i; if (j < p.n) { y[j] = p.a * x[j] + p.b; } "
    "if (j + 1u < p.n) { y[j + 1u] = p.a * x[j + 1u] + p.b; }"
)
_PAIR_BAD = "let j = 2u * i; if (j < p.n) { y[j] = p.a * x[j] + p.b; }"


def _cuda_pairs(text: str) -> str:
    return text.replace("let j", "const unsigned long long j").replace("1u", "1").replace("2u", "2")


PARTIAL_OUTPUT = _pair(
    "partial_output",
    _AFFINE_WGSL,
    _AFFINE_CUDA,
    ({"bug": _PAIR_GOOD}, {"bug": _cuda_pairs(_PAIR_GOOD)}),
    ({"bug": _PAIR_BAD}, {"bug": _cuda_pairs(_PAIR_BAD)}),
    _affine,
    grid=lambda s, n: (max(1, math.ceil(n / (2 * s.workgroup_size[0]))), 1, 1),
    **_AFFINE_SPEC,
)

# -- 6. wrong reduction identity: row max starting from 0 instead of the lowest float -------
_ROWMAX_WGSL = (
    """\
struct Params { rows: u32, cols: u32 }
"""
    + _WGSL_HEAD.replace("@XACCESS@", "read")
    + """
var<workgroup> partial: array<f32, 64>;

@compute @workgroup_size(64)
fn ${entry}("""
    + _WGSL_IDS
    + """) {
    let row = wg.y * groups.x + wg.x;
    var acc = @BUG@;
    for (var c = lid; c < p.cols; c += 64u) {
        acc = max(acc, x[row * p.cols + c]);
    }
    partial[lid] = acc;
    workgroupBarrier();
    for (var s = 32u; s > 0u; s >>= 1u) {
        if (lid < s) { partial[lid] = max(partial[lid], partial[lid + s]); }
        workgroupBarrier();
    }
    if (lid == 0u && row < p.rows) { y[row] = partial[0]; }
}
"""
)
_ROWMAX_CUDA = (
    """\
struct Params { unsigned int rows; unsigned int cols; };
extern "C" __global__ void ${entry}(const float* x, float* y, const Params p) {
    __shared__ float partial[64];
    """
    + _CUDA_INDEX
    + """    const unsigned long long row = block;
    float acc = @BUG@;
    for (unsigned int c = lid; c < p.cols; c += 64) {
        if (row < p.rows) acc = fmaxf(acc, x[row * p.cols + c]);
    }
    partial[lid] = acc;
    __syncthreads();
    for (unsigned int s = 32; s > 0; s >>= 1) {
        if (lid < s) partial[lid] = fmaxf(partial[lid], partial[lid + s]);
        __syncthreads();
    }
    if (lid == 0 && row < p.rows) y[row] = partial[0];
}
"""
)
_COLS = 100


def _row_max(x, y, p):
    y[:] = x.reshape(int(p["rows"]), int(p["cols"])).max(axis=1)


def _row_max_from_zero(x, y, p):
    y[:] = x.reshape(int(p["rows"]), int(p["cols"])).max(axis=1, initial=0.0)


WRONG_IDENTITY = _pair(
    "wrong_identity",
    _ROWMAX_WGSL,
    _ROWMAX_CUDA,
    # -FLT_MAX spelled so that it reads back exactly: Tint refuses "-3.40282347e+38",
    # which lies beyond the largest float32 (naga rounds it)
    ({"bug": "-3.4028234663852886e+38"}, {"bug": "-3.402823466e+38f"}),
    ({"bug": "0.0"}, {"bug": "0.0f"}),
    _row_max,
    buffers=(
        BufferSpec(0, "f32", Access.READ, name="x", count=lambda n: n // _COLS * _COLS),
        BufferSpec(1, "f32", Access.READ_WRITE, name="y", count=lambda n: n // _COLS),
        BufferSpec.uniform(2, (("rows", "u32"), ("cols", "u32"))),
    ),
    params=lambda n: {"rows": n // _COLS, "cols": _COLS},
    grid=lambda s, n: (max(1, n // _COLS), 1, 1),
    schedules=(Schedule(64),),
    # max() of a NaN is unspecified in WGSL; the contract here is finite inputs
    nonfinite_inputs=False,
    test_sizes=(4000,),
)

# -- 7. shared memory read without a barrier --------------------------------------------------
# Each workgroup of 64 swaps the halves of its block through shared memory. Every slot
# first holds a sentinel (behind a barrier both versions keep, so stale shared memory
# from an earlier run, which may hold the very values expected, cannot hide the race);
# the upper half then spins (a multiply by a runtime 1.0 the compiler cannot remove)
# before storing its slot, so without the second barrier the lower half reads the
# sentinel. Where a workgroup runs subgroup by subgroup up to each barrier (lavapipe),
# the early read always comes first; on CUDA the spin makes it all but certain.
_SWAP_WGSL = (
    """\
struct Params { n: u32, spin: u32, one: f32 }
"""
    + _WGSL_HEAD.replace("@XACCESS@", "read")
    + """
var<workgroup> tile: array<f32, 64>;

@compute @workgroup_size(64)
fn ${entry}("""
    + _WGSL_IDS
    + """) {
    let base = (wg.y * groups.x + wg.x) * 64u;
    let i = base + lid;
    tile[lid] = -3.0e38;
    workgroupBarrier();
    var v = 0.0;
    if (i < p.n) { v = x[i]; }
    if (lid >= 32u) {
        for (var k = 0u; k < p.spin; k++) { v = v * p.one; }
    }
    tile[lid] = v;
    @BUG@
    let partner = (lid + 32u) % 64u;
    if (i < p.n) {
        if (base + partner < p.n) { y[i] = tile[partner]; } else { y[i] = v; }
    }
}
"""
)
_SWAP_CUDA = (
    """\
struct Params { unsigned int n; unsigned int spin; float one; };
extern "C" __global__ void ${entry}(const float* x, float* y, const Params p) {
    __shared__ float tile[64];
    """
    + _CUDA_INDEX
    + """    const unsigned long long base = block * 64;
    const unsigned long long i = base + lid;
    tile[lid] = -3.0e38f;
    __syncthreads();
    float v = 0.0f;
    if (i < p.n) v = x[i];
    if (lid >= 32) {
        for (unsigned int k = 0; k < p.spin; ++k) v = v * p.one;
    }
    tile[lid] = v;
    @BUG@
    const unsigned int partner = (lid + 32) % 64;
    if (i < p.n) y[i] = (base + partner < p.n) ? tile[partner] : v;
}
"""
)


def _swap_halves(x, y, p):
    n = x.size
    index = np.arange(n)
    partner = index // 64 * 64 + (index % 64 + 32) % 64
    y[:] = np.where(partner < n, x[np.minimum(partner, n - 1)], x)


MISSING_BARRIER = _pair(
    "missing_barrier",
    _SWAP_WGSL,
    _SWAP_CUDA,
    ({"bug": "workgroupBarrier();"}, {"bug": "__syncthreads();"}),
    ({"bug": ""}, {"bug": ""}),
    _swap_halves,
    buffers=(
        BufferSpec(0, "f32", Access.READ, name="x"),
        BufferSpec(1, "f32", Access.READ_WRITE, name="y"),
        BufferSpec.uniform(2, (("n", "u32"), ("spin", "u32"), ("one", "f32"))),
    ),
    params=lambda n: {"n": n},
    defaults={"spin": 4096, "one": 1.0},
    grid=lambda s, n: (max(1, math.ceil(n / 64)), 1, 1),
    schedules=(Schedule(64),),
    test_sizes=(4000,),
)


# -- the table ---------------------------------------------------------------------------------
def _zeros(x, y, p):
    y[:] = 0


def _even_only(x, y, p):
    y[::2] = np.float32(p["a"]) * x[::2] + np.float32(p["b"])


def _clobber(x, y, p):
    _affine(x, y, p)
    x[:] = 0


CASES: dict[str, BrokenCase] = {
    c.name: c
    for c in (
        BrokenCase(
            "off_by_one",
            *OFF_BY_ONE,
            "past_end",
            _numpy_twin(OFF_BY_ONE[0], _diff_shifted),
            "value",
        ),
        BrokenCase(
            "missing_guard",
            *MISSING_GUARD,
            "past_end",
            None,
            note="numpy slices cannot run past their end",
        ),
        BrokenCase(
            "wrong_identity",
            *WRONG_IDENTITY,
            "value",
            _numpy_twin(WRONG_IDENTITY[0], _row_max_from_zero),
            "value",
        ),
        BrokenCase(
            "missing_barrier",
            *MISSING_BARRIER,
            "value",
            None,
            note="numpy has no workgroups and no barriers",
        ),
        BrokenCase(
            "partial_output",
            *PARTIAL_OUTPUT,
            "unwritten",
            _numpy_twin(PARTIAL_OUTPUT[0], _even_only),
            "unwritten",
        ),
        BrokenCase("all_zeros", *ALL_ZEROS, "value", _numpy_twin(ALL_ZEROS[0], _zeros), "value"),
        BrokenCase(
            "inputs_overwritten",
            *INPUTS_OVERWRITTEN,
            "input",
            _numpy_twin(INPUTS_OVERWRITTEN[0], _clobber),
            "input",
        ),
    )
}


def case(name: str) -> BrokenCase:
    return CASES[name]

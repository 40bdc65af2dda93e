"""Round 34's findings (tests/wild/round34.py), each pinned by the smallest run that
shows it: SGEMM_CUDA's ``uint`` did not compile under NVRTC (fixed: glibc's shorthands
are pre-included); a ``__constant__`` declarator list was read as its last name only
(fixed); a launch cannot name its entry point per target (open, a strict xfail); a WGSL
``{{wg_x}}`` is filled from the kernel's schedule, not a launch's own, and the shader
silently ran another workgroup size than the launch said (now refused, naming the
fix); and one bug of SGEMM_CUDA's own, which the oracle catches."""

from __future__ import annotations

import dataclasses

import pytest

import oracle
from forge import Dispatch, Schedule, ceil_div
from forge.errors import InvalidArgument
from oracle import Session, Verdict
from oracle.pytest_plugin import require_available
from tests.wild.round34 import DERIVATIVE_X, DYNAMIC_REVERSE, SGEMM_2D_BM64, SGEMM_VECTORIZE


@pytest.fixture(scope="module")
def session():
    """One worker per backend for this module's evaluations: a fresh worker for each
    is a second of start-up (1.2 s on lavapipe, 2026-12-06)."""
    with Session(timeout_s=60) as shared:
        yield shared


def test_sgemm_cuda_with_glibc_uint_compiles_with_nvrtc_as_written():
    """No device needed: every SGEMM_CUDA kernel declares its indices ``const uint``,
    glibc's <sys/types.h> typedef that nvcc's implicit host headers bring in. NVRTC said
    only ``identifier "uint" is undefined`` (20 times), with no hint, though
    forge.sources already read a ``uint`` parameter as glibc's ``unsigned int``; the
    shorthands are pre-included now where a source uses them undeclared."""
    from backends.cuda._nvrtc import compile_module

    kernel = SGEMM_2D_BM64.kernel
    assert not kernel.defines and "const uint" in kernel.sources["cuda"]
    schedule, size = kernel.schedules[0], kernel.largest_size()
    source = kernel.source("cuda", schedule, size)
    steps = kernel.steps("cuda", schedule, size, 2**31 - 1, source)
    compile_module(
        source, [s.entry_point for s in steps], "sm_90", options=kernel.compile_options("cuda")
    )


def test_a_constant_declarator_list_copies_every_symbol():
    """No device needed: finite-difference.cu declares ``__constant__ float c_ax, c_bx,
    c_cx, c_dx;`` and fills each with cudaMemcpyToSymbol. forge.sources'
    cuda_device_variables found only c_dx (its regex took the list's last name), so the
    buffers c_ax, c_bx and c_cx were neither arguments nor symbols: on a GPU the right
    derivative_x would have run with three coefficients of zero and been judged
    MISMATCH, and nothing said that three buffers were bound to nothing."""
    from forge.sources import cuda_device_variables

    kernel = DERIVATIVE_X.kernel
    assert "__constant__ float c_ax, c_bx, c_cx, c_dx;" in kernel.sources["cuda"]
    schedule, size = kernel.schedules[0], kernel.largest_size()
    (step,) = kernel.steps("cuda", schedule, size, 2**31 - 1)
    assert dict(step.symbols) == {2: "c_ax", 3: "c_bx", 4: "c_cx", 5: "c_dx"}
    names = cuda_device_variables(
        "__constant__ float w[2] = {1.0f, 2.0f}, z = 3.0f;\n"
        "__device__ float f(float x) { return x; }\n__constant__ float q;\n"
        "__device__ float g(float);\nextern __device__ int e;\n"
        "static __device__ Pair<int, 3> t, *u;"
    )
    assert names == ("w", "z", "q", "t", "u")


def _runner_block(schedule, size):
    """runSgemm2DBlocktiling's BM and BN: 128 when M and N reach 128, else 64."""
    return 128 if size.M >= 128 and size.N >= 128 else 64


def test_a_launch_of_a_template_instantiation_names_the_wgsl_entry_point():
    """No device needed: SGEMM_CUDA's runner picks BM = BN (and so the block) by size,
    which one spec can say only through ``launches`` (a Dispatch has its own schedule);
    the Dispatch's entry point, ``sgemm2DBlocktiling<{{BM}}, {{BN}}, 8, 8, 8>``, was
    also what the WGSL port was asked for (``entry_points`` applied to a single launch
    only): on wgpu, "Unable to find entry point 'sgemm2DBlocktiling<64, 64, 8, 8, 8>'".
    A launch naming the kernel's entry point now takes ``entry_points`` too (a strict
    xfail until then), and a launch may name one per target."""
    block = _runner_block
    kernel = dataclasses.replace(
        SGEMM_2D_BM64.kernel,
        id="wild_r34_siboehm_sgemm2DBlocktiling_runner_branches",
        entry_point="sgemm2DBlocktiling<{{BM}}, {{BN}}, 8, 8, 8>",
        constants={"BM": block, "BN": block},
        grid=None,
        schedules=(),
        launches=(
            Dispatch(
                "sgemm2DBlocktiling<{{BM}}, {{BN}}, 8, 8, 8>",
                grid=lambda s, size: (
                    ceil_div(size.N, block(s, size)),
                    ceil_div(size.M, block(s, size)),
                    1,
                ),
                schedule=lambda s, size: Schedule(block(s, size) ** 2 // 64),
            ),
        ),
        test_sizes=("M=64,N=192,K=72", "M=128,N=128,K=64"),
    )
    for size in kernel.checked_sizes():
        (cuda,) = kernel.steps("cuda", kernel.schedules[0], size)
        assert (
            cuda.entry_point
            == f"sgemm2DBlocktiling<{block(None, size)}, {block(None, size)}, 8, 8, 8>"
        )
        (wgsl,) = kernel.steps("wgsl", kernel.schedules[0], size)
        assert wgsl.entry_point == "sgemm2DBlocktiling"
    named = dataclasses.replace(
        kernel,
        entry_points={},
        launches=(
            dataclasses.replace(
                kernel.launches[0],
                entry_point={
                    "cuda": "sgemm2DBlocktiling<{{BM}}, {{BN}}, 8, 8, 8>",
                    "wgsl": "sgemm2DBlocktiling",
                },
            ),
        ),
    )
    size = named.size("M=64,N=192,K=72")
    assert named.steps("wgsl", named.schedules[0], size)[0].entry_point == "sgemm2DBlocktiling"
    assert named.steps("cuda", named.schedules[0], size)[0].entry_point == (
        "sgemm2DBlocktiling<64, 64, 8, 8, 8>"
    )
    cuda_only = dataclasses.replace(
        named, launches=(dataclasses.replace(named.launches[0], entry_point={"cuda": "x"}),)
    )
    with pytest.raises(InvalidArgument, match=r"entry point for \['cuda'\] only, not for wgsl"):
        cuda_only.steps("wgsl", named.schedules[0], size)


_DYNAMIC_REVERSE_WG_X = """
@group(0) @binding(0) var<storage, read_write> d: array<i32>;
override n: u32;

var<workgroup> s: array<i32, {{wg_x}}>;

@compute @workgroup_size({{wg_x}})
fn dynamicReverse(@builtin(local_invocation_index) t: u32) {
    let tr = n - t - 1u;
    s[t] = d[t];
    workgroupBarrier();
    d[t] = s[tr];
}
"""


def test_a_launch_schedule_the_wgsl_does_not_run_is_refused(request, session):
    """dynamicReverse's port written with ``{{wg_x}}`` for its workgroup size and array
    length, launched as the post does (one block of n: ``Dispatch(schedule=lambda s,
    size: Schedule(n))``): the source is rendered once under the kernel's default
    schedule (wg=64), so at n = 256 the shader runs 64 invocations while the step says a
    block of 256; MISMATCH on every element (d[0..63] all d[63], the rest unchanged),
    the report's header saying "schedule wg=64" and its note blaming robust access.
    At n = 37 the same port passes only because robust access drops the writes of
    invocations 37 to 63. (Round 33's candle fast_max port is rendered the same way:
    64 invocations at every size, its launch saying 256 or 1; its stride loop hides it.)
    The corpus port sizes both by ``override n``."""
    require_available(request.config, "wgpu")
    wild = DYNAMIC_REVERSE
    kernel = dataclasses.replace(
        wild.kernel,
        id="wild_r34_harris_shared_memory_dynamicReverse_wg_x",
        sources={**wild.kernel.sources, "wgsl": _DYNAMIC_REVERSE_WG_X},
    )
    ev = oracle.evaluate(session.runner("wgpu"), kernel, size=256, seed=0, samples=0)
    # a launch's own schedule does not render the source again; what was a silent
    # MISMATCH here (and a pass at n = 37) is refused, naming the override to use
    assert ev.verdict is Verdict.ERROR, ev.report()
    assert "does not render the source again" in ev.report(), ev.report()
    assert "@workgroup_size(64, 1, 1)" in ev.report() or "@workgroup_size(64" in ev.report()


def test_sgemm_vectorize_in_the_runners_64_branch_loads_half_the_tile_and_fails(request, session):
    """SGEMM_CUDA's own bug, which the oracle catches: runSgemmVectorize launches
    BM = BN = 64 (64 threads) when M or N is below 128, but sgemmVectorize loads one
    float4 of A and of B a thread per tile, 256 of As's and Bs's 512 floats: rows 32 to
    63 of As and rows 4 to 7 of Bs are never loaded. sgemm.cu's sizes start at 128, so
    its check against cuBLAS never runs that branch. The WGSL port, as the CUDA does."""
    require_available(request.config, "wgpu")
    kernel = dataclasses.replace(
        SGEMM_VECTORIZE.kernel,
        id="wild_r34_siboehm_sgemmVectorize_bm64",
        entry_point="sgemmVectorize<64, 64, 8, 8, 8>",
        constants={"BM": 64, "BN": 64},
        grid=lambda s, size: (ceil_div(size.N, 64), ceil_div(size.M, 64), 1),
        schedules=(Schedule(64),),
        test_sizes=("M=64,N=64,K=64",),
    )
    ev = oracle.evaluate(session.runner("wgpu"), kernel, size="M=64,N=64,K=64", seed=0, samples=0)
    assert ev.verdict is Verdict.MISMATCH, ev.report()


def test_a_schedule_the_wgsl_entry_point_does_not_declare_is_refused():
    """No device needed: a single launch too. ``Schedule(64)`` beside
    ``@workgroup_size(256)`` dispatched 16 workgroups of 256 at n = 1000, the report's
    header saying wg=64; the launch is refused now, naming the schedule to give."""
    from forge import BufferSpec, KernelSpec, Schedule, ceil_div
    from forge.errors import InvalidArgument

    source = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3u) {
    if (g.x < arrayLength(&y)) { y[g.x] = 2.0 * x[g.x]; }
}
"""

    def kernel(schedules):
        return KernelSpec(
            id="schedule_against_literal",
            entry_point="main",
            sources={"wgsl": source},
            buffers=(
                BufferSpec(0, "f32", "read", name="x"),
                BufferSpec(1, "f32", "read_write", name="y"),
            ),
            reference=lambda x, y: 2 * x,
            grid=lambda s, n: (ceil_div(n, s.workgroup_size[0]), 1, 1),
            schedules=schedules,
        )

    wrong = kernel((Schedule(64),))
    with pytest.raises(
        InvalidArgument, match=r"64x1x1.*@workgroup_size\(256, 1, 1\).*Schedule\(256, 1, 1\)"
    ):
        wrong.steps("wgsl", Schedule(64), wrong.size(1000))
    right = kernel(())
    (step,) = right.steps("wgsl", right.schedules[0], right.size(1000))
    assert step.block == (256, 1, 1) and step.workgroups == (4, 1, 1)

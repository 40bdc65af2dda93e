"""The rerun of a kernel with each workgroup's (block's) invocations in reverse order
(``oracle._reorder``, ``Plan.reversed``): a barrier dropped between invocation 0's
write to workgroup memory and the others' reads passed on lavapipe and SwiftShader,
which run a workgroup's SIMD groups in order (round 49's layer norm passed on every
adapter we have, NVIDIA's Vulkan included). The twin fails it; the kernel with its
barrier passes, as written and reversed; a twin the compiler refuses is not run. The
CUDA twin (its warps in reverse order, each keeping its lanes) is made only where
nothing reads the hardware's thread index. Small sizes: this file runs in seconds."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import forge
import oracle
import oracle._plan
from forge import BufferSpec, KernelSpec, Schedule, ceil_div
from oracle._plan import REVERSED_NOTE, REVERSED_REFUSED, SERIALIZED_NOTE
from oracle._reorder import SERIAL_LIMIT, reversed_invocations, reversed_warps, serializes
from oracle.pytest_plugin import require_available

# Each workgroup of 64 scales its 64 values by their mean, which invocation 0 computes
# from a workgroup copy; the others read it after a barrier.
_MEAN_SCALE = """
var<workgroup> tile: array<f32, 64>;
var<workgroup> mean: f32;
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    tile[li] = x[gid.x];
    workgroupBarrier();
    if (li == 0u) {
        var total = 0.0;
        for (var i = 0u; i < 64u; i++) { total += tile[i]; }
        mean = total / 64.0;
    }
    workgroupBarrier();
    y[gid.x] = x[gid.x] * mean;
}
"""
_DROPPED = ("mean = total / 64.0;\n    }\n    workgroupBarrier();", "mean = total / 64.0;\n    }")


def _mean_scale(x, y):
    rows = x.reshape(-1, 64)
    y[:] = (rows * (rows.astype(np.float64).mean(axis=1, keepdims=True))).reshape(-1)


def _kernel(source: str, kid: str) -> KernelSpec:
    return KernelSpec(
        id=kid,
        entry_point="main",
        sources={"wgsl": source},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
        ),
        reference=_mean_scale,
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        schedules=(Schedule(64),),
        test_sizes=(256,),
    )


@pytest.fixture(scope="module")
def session():
    with oracle.Session(timeout_s=60) as shared:
        yield shared


RIGHT = _kernel(_MEAN_SCALE, "mean_scale")
RACY = _kernel(_MEAN_SCALE.replace(*_DROPPED), "mean_scale_no_barrier")


@pytest.mark.parametrize("backend", ["wgpu", "browser"])
def test_a_dropped_barrier_fails_in_the_reversed_rerun_and_the_right_kernel_passes(
    request, session, backend
):
    require_available(request.config, backend)
    _right_passes_racy_fails(session.runner(backend), RIGHT, RACY)


def _right_passes_racy_fails(runner, right, racy, note: str = REVERSED_NOTE) -> None:
    """``right`` passes and ``racy`` fails on ``runner``, shown (``_shown``)."""
    judged = oracle.evaluate(runner, right, size=256, samples=0)
    assert judged.passed, judged.report()
    judged = oracle.evaluate(runner, racy, size=256, samples=0)
    assert not judged.passed, judged.report()
    _shown(judged, note)


def _shown(racy, note: str = REVERSED_NOTE) -> None:
    """The race failed the rerun with its invocations reordered (``note`` says how), or
    the judged run already (NVIDIA's Vulkan showed this one as written, 2026-12-06)."""
    first = any(not o.comparison.passed for o in racy.outputs.values())
    assert first or note in racy.notes, racy.report()


def test_the_reversed_rerun_follows_timed_runs_too(request, session):
    """With timed samples the outputs after the last one were read as the rerun's; the
    twin runs after them all the same."""
    require_available(request.config, "wgpu")
    racy = oracle.evaluate(session.runner("wgpu"), RACY, size=256, warmups=1, samples=3)
    assert not racy.passed, racy.report()
    _shown(racy)


def test_without_the_reversed_rerun_the_dropped_barrier_passed(request):
    """What the twin adds: with ``reorder=False`` the rerun is the kernel as written,
    and it finds nothing (lavapipe runs invocation 0's SIMD group first)."""
    require_available(request.config, "wgpu")
    with forge.open_context("wgpu") as ctx:
        ev = oracle.evaluate(ctx, RACY, size=256, samples=0, reorder=False)
        assert not oracle.evaluate(ctx, RACY, size=256, samples=0).passed
    if not ev.passed:
        pytest.skip("this adapter shows the race without the twin")
    assert REVERSED_NOTE not in ev.notes


def test_a_twin_the_compiler_refuses_is_not_run(request, monkeypatch):
    """A twin that does not compile (a compiler judging its uniformity otherwise) leaves
    the rerun to the kernel as written: the right kernel still passes."""
    require_available(request.config, "wgpu")
    broken = {"wgsl": "fn main( {"}
    monkeypatch.setattr(
        oracle._plan, "_reversed", lambda frozen, *_: dataclasses.replace(frozen, sources=broken)
    )
    with forge.open_context("wgpu") as ctx:
        ev = oracle.evaluate(ctx, RIGHT, size=256, samples=0)
    assert ev.passed, ev.report()
    assert REVERSED_NOTE not in ev.notes
    assert any(n.startswith(REVERSED_REFUSED) for n in ev.notes), ev.notes


def test_the_library_s_emitted_kernels_get_no_twin(request, monkeypatch):
    """The twin is for hand-written sources: forge.emit's are checked by their own tests,
    and a tune would compile each variant twice."""
    require_available(request.config, "wgpu")
    asked = []
    monkeypatch.setattr(oracle._plan, "_reversed", lambda *a: asked.append(a))
    with forge.open_context("wgpu") as ctx:
        ev = oracle.evaluate(ctx, forge.get_kernel("softmax"), size=(4, 64), samples=0)
        assert ev.passed, ev.report()
        assert not asked
        oracle.evaluate(ctx, RIGHT, size=256, samples=0)
    assert asked  # a hand-written one is asked for its twin


# -- a workgroup that is one SIMD group: its invocations one at a time ---------------------

# Each workgroup of 8 (one SIMD group on lavapipe, two on SwiftShader, part of one on
# NVIDIA) adds to each value its right neighbour's, through workgroup memory.
_NEIGHBOURS = """
var<workgroup> tile: array<f32, 8>;
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let base = gid.x - li;
    tile[li] = x[gid.x];
    workgroupBarrier();
    let right = tile[(li + 1u) % 8u];
    y[base + li] = x[gid.x] + right;
}
"""


def _neighbours(x, y):
    rows = x.reshape(-1, 8)
    y[:] = (rows + np.roll(rows, -1, axis=1)).reshape(-1)


def _small(source: str, kid: str) -> KernelSpec:
    return dataclasses.replace(
        _kernel(source, kid),
        reference=_neighbours,
        grid=lambda s, n: (ceil_div(n, 8), 1, 1),
        schedules=(Schedule(8),),
    )


SMALL_RIGHT = _small(_NEIGHBOURS, "neighbours")
SMALL_RACY = _small(_NEIGHBOURS.replace("    workgroupBarrier();\n", ""), "neighbours_no_barrier")


@pytest.mark.parametrize("backend", ["wgpu", "browser"])
def test_a_barrier_dropped_inside_one_simd_group_fails_in_the_serialized_rerun(
    request, session, backend
):
    """Reversing the invocations of one SIMD group changes nothing (its lanes run each
    statement together, so every write is there before any read after it); running
    them one at a time between barriers shows the race, and the right kernel passes."""
    require_available(request.config, backend)
    _right_passes_racy_fails(session.runner(backend), SMALL_RIGHT, SMALL_RACY, SERIALIZED_NOTE)


def test_without_the_serialized_rerun_the_lockstep_race_passed(request):
    """What the serialized twin adds: rerun as written, the race in one SIMD group
    passes on lavapipe (8 lanes in lockstep)."""
    require_available(request.config, "wgpu")
    with forge.open_context("wgpu") as ctx:
        ev = oracle.evaluate(ctx, SMALL_RACY, size=256, samples=0, reorder=False)
    if not ev.passed:
        pytest.skip("this adapter shows the race without the twin")
    assert SERIALIZED_NOTE not in ev.notes


def test_the_serialized_twin_wraps_what_runs_between_barriers_on_the_same_lines():
    twin = reversed_invocations(_NEIGHBOURS)
    assert twin is not None and serializes(twin)
    assert twin.count("\n") == _NEIGHBOURS.count("\n")
    turn = (
        "for (var kf_rev_turn = 0u; kf_rev_turn < 8u; kf_rev_turn++) "
        "{ if ((reverseBits(kf_rev_turn) >> 29u) == kf_rev_lane) { "
    )
    assert "@builtin(local_invocation_index) li: u32) { kf_rev_lane = li;" in twin
    assert "var<private> kf_rev_lane: u32; @compute @workgroup_size(8)" in twin
    # base is used past the barrier: declared before the run (its initializer computed
    # once more there, for its type) and assigned in it; the store before the barrier
    # is one run, the neighbour's read and the store after it another
    assert "    var base = gid.x - li; " + turn + "base = gid.x - li;\n" in twin
    assert "    tile[li] = x[gid.x]; } }\n    workgroupBarrier();\n" in twin
    assert (
        turn + "let right = tile[(li + 1u) % 8u];\n    y[base + li] = x[gid.x] + right; } }" in twin
    )


def test_the_serialized_twin_leaves_returns_barriers_and_their_callers_in_lockstep():
    source = """
var<workgroup> t: array<u32, 4>;
@group(0) @binding(0) var<storage, read_write> y: array<u32>;
fn sync() { workgroupBarrier(); }
fn sum_up(i: u32) -> u32 { sync(); return t[0] + t[1]; }
@compute @workgroup_size(2, 2) fn main(@builtin(local_invocation_id) lid: vec3<u32>) {
    let i = lid.y * 2u + lid.x;
    if (i >= arrayLength(&y)) { return; }
    t[i] = i;
    let total = sum_up(i);
    for (var k = 0u; k < 2u; k++) {
        t[i] += k;
        workgroupBarrier();
        if (k == 1u) { break; }
    }
    y[i] = total + t[i];
}
"""
    twin = reversed_invocations(source)
    assert twin is not None and serializes(twin)
    assert " kf_rev_lane = kf_rev_raw_index;" in twin
    assert "@builtin(local_invocation_index) kf_rev_raw_index: u32)" in twin
    turn = "{ if ((reverseBits(kf_rev_turn) >> 30u) == kf_rev_lane) { "
    assert "    if (i >= arrayLength(&y)) { return; }\n" in twin  # a return: as written
    assert turn + "t[i] = i; } }" in twin
    assert "    let total = sum_up(i);\n" in twin  # reaches a barrier through sync()
    assert turn + "t[i] += k; } }\n        workgroupBarrier();" in twin  # the loop's body
    assert "        if (k == 1u) { break; }\n" in twin  # breaks the loop, not the turns
    assert turn + "y[i] = total + t[i]; } }" in twin


# Each workgroup of 16 sums its values in a helper that stages them in workgroup memory
# and adds them up after a barrier, into an accumulator read after the next barrier.
_HELPER_SUM = """
var<workgroup> tile: array<f32, 16>;
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
const WIDTH = 16u;

fn block_sum(li: u32, v: f32) -> f32 {
    tile[li] = v;
    workgroupBarrier();
    var total = 0.0;
    for (var k = 0u; k < WIDTH; k++) { total += tile[k]; }
    workgroupBarrier();
    return total;
}

@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    y[gid.x] = block_sum(li, x[gid.x]);
}
"""


def _block_sums(x, y):
    rows = x.reshape(-1, 16)
    y[:] = np.repeat(rows.astype(np.float64).sum(axis=1), 16).astype(np.float32)


def test_a_helper_that_reaches_a_barrier_is_served_and_its_accumulator_moves_up(request, session):
    """The barrier dropped inside a helper: the helper's statements between its barriers
    run one invocation at a time too, and ``var total = 0.0;``, read after the next
    barrier, moves up before its run (left in place it would split the store from the
    loop that reads it, and nothing would show)."""
    racy_source = _HELPER_SUM.replace(
        "    tile[li] = v;\n    workgroupBarrier();\n", "    tile[li] = v;\n"
    )
    twin = reversed_invocations(racy_source)
    assert twin is not None and serializes(twin)
    assert twin.count("\n") == racy_source.count("\n")
    turn = "{ if ((reverseBits(kf_rev_turn) >> 28u) == kf_rev_lane) { "
    assert "    var total = 0.0; for (var kf_rev_turn = 0u; kf_rev_turn < 16u;" in twin
    assert turn + "tile[li] = v;\n" in twin
    assert "{ total += tile[k]; } } }\n    workgroupBarrier();" in twin
    assert "fn main(" in twin and "{ kf_rev_lane = li;" in twin
    require_available(request.config, "wgpu")
    kernel = dataclasses.replace(
        _kernel(_HELPER_SUM, "block_sum"),
        reference=_block_sums,
        grid=lambda s, n: (ceil_div(n, 16), 1, 1),
        schedules=(Schedule(16),),
        tolerance={"f32": {"atol": 1e-5, "rtol": 1e-5}},
    )
    racy = dataclasses.replace(kernel, id="block_sum_racy", sources={"wgsl": racy_source})
    _right_passes_racy_fails(session.runner("wgpu"), kernel, racy, SERIALIZED_NOTE)


# The neighbour read into a local before a second barrier, and used after it: the
# declaration is split, declared before its run and assigned in its place.
_READ_EARLY = _NEIGHBOURS.replace(
    "    let right = tile[(li + 1u) % 8u];\n    y[base + li] = x[gid.x] + right;\n",
    "    let right = tile[(li + 1u) % 8u];\n    workgroupBarrier();\n"
    "    y[base + li] = x[gid.x] + right;\n",
)


def test_a_local_read_before_a_later_barrier_is_split_and_its_race_shows(request, session):
    racy_source = _READ_EARLY.replace("x[gid.x];\n    workgroupBarrier();\n", "x[gid.x];\n", 1)
    assert racy_source.count("workgroupBarrier") == 1
    twin = reversed_invocations(racy_source)
    assert twin is not None and serializes(twin)
    assert twin.count("\n") == racy_source.count("\n")
    # computed once more before the run, for its type; assigned in the run
    assert "var right = tile[(li + 1u) % 8u]; for (var kf_rev_turn" in twin
    assert "    tile[li] = x[gid.x];\n    right = tile[(li + 1u) % 8u]; } }" in twin
    require_available(request.config, "wgpu")
    right, racy = _small(_READ_EARLY, "read_early"), _small(racy_source, "read_early_racy")
    _right_passes_racy_fails(session.runner("wgpu"), right, racy, SERIALIZED_NOTE)


def test_a_declaration_that_calls_a_function_or_reads_the_run_stays_in_lockstep():
    source = _READ_EARLY.replace(
        "let right = tile[(li + 1u) % 8u];", "let right = pick(li);"
    ).replace("@compute", "fn pick(i: u32) -> f32 { return tile[(i + 1u) % 8u]; }\n@compute")
    twin = reversed_invocations(source)
    assert twin is not None and "    let right = pick(li);\n" in twin


def test_a_workgroup_past_the_limit_is_reversed_and_one_using_subgroups_too():
    assert SERIAL_LIMIT == 32
    big = _NEIGHBOURS.replace("@workgroup_size(8)", "@workgroup_size(64)")
    twin = reversed_invocations(big)
    assert twin is not None and not serializes(twin) and "kf_raw_li" in twin
    grouped = "enable subgroups;\n" + _NEIGHBOURS.replace(
        "y[base + li] = x[gid.x] + right;", "y[base + li] = subgroupAdd(x[gid.x]) + right;"
    )
    twin = reversed_invocations(grouped)
    assert twin is not None and not serializes(twin)


# -- the transform, as text ---------------------------------------------------------------


def test_the_twin_takes_the_builtins_reversed_under_their_own_names_on_the_same_lines():
    twin = reversed_invocations(_MEAN_SCALE)
    assert twin is not None and twin.count("\n") == _MEAN_SCALE.count("\n")
    assert "@builtin(global_invocation_id) kf_raw_gid: vec3<u32>" in twin
    assert "@builtin(workgroup_id) kf_rev_wid: vec3<u32>" in twin  # added for gid
    assert "let li = kf_rev_index;" in twin and "let gid = kf_rev_wid * " in twin
    assert "kf_rev_index = kf_rev_x * kf_rev_y * kf_rev_z - 1u - kf_raw_li;" in twin


def test_a_struct_of_builtins_is_copied_with_its_members_reversed():
    source = """
struct In { @builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wg: vec3<u32> }
override WG: u32 = 8u;
var<workgroup> t: array<f32, 64>;
@compute @workgroup_size(WG, WG) fn main(input: In) {
    t[input.lid.y * 8u + input.lid.x] = f32(input.wg.x);
    workgroupBarrier();
}
"""
    twin = reversed_invocations(source)
    assert twin is not None
    assert (
        "fn main(kf_raw_input: In,@builtin(local_invocation_index) kf_rev_raw_index: u32)" in twin
    )
    assert "let kf_rev_x = u32(WG); let kf_rev_y = u32(WG); let kf_rev_z = u32(1);" in twin
    assert "var input = kf_raw_input; input.lid = kf_rev_lid;" in twin


@pytest.mark.parametrize(
    "why, source",
    [
        (
            "no workgroup memory or barrier",
            _MEAN_SCALE.replace("var<workgroup>", "var<private>").replace(
                "workgroupBarrier();", ""
            ),
        ),
        (
            "no invocation builtin",
            "var<workgroup> t: f32;\n@compute @workgroup_size(1) fn main() { t = 1.0; }",
        ),
    ],
)
def test_no_twin_where_reversing_means_nothing_or_changes_a_right_kernel(why, source):
    assert reversed_invocations(source) is None, why


def test_a_module_using_subgroups_reverses_whole_subgroups_each_keeping_its_lanes():
    """Round 62: subgroup s of S plays S - 1 - s, its lanes kept (a lane's shuffles read
    what they read); the order stays where the workgroup is no whole number of
    subgroups. Before, such a module had no twin at all."""
    source = _MEAN_SCALE.replace("mean = total / 64.0;", "mean = subgroupAdd(total);")
    twin = reversed_invocations(source)
    assert twin is not None
    assert "@builtin(subgroup_invocation_id) kf_rev_subgroup_invocation_id: u32" in twin
    assert (
        "let kf_rev_whole = kf_rev_num_subgroups * kf_rev_subgroup_size == "
        "kf_rev_x * kf_rev_y * kf_rev_z;" in twin
    )
    assert (
        "let kf_rev_index = select(kf_raw_li, (kf_rev_num_subgroups - 1u - "
        "kf_rev_subgroup_id) * kf_rev_subgroup_size + kf_rev_subgroup_invocation_id, "
        "kf_rev_whole);" in twin
    )
    assert twin.count("\n") == source.count("\n")


# -- CUDA: threadIdx reversed within the block --------------------------------------------

_CUDA_MEAN_SCALE = """
extern "C" __global__ void mean_scale(const float* x, float* y, int n) {
    __shared__ float tile[64];
    __shared__ float mean;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = x[i];
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f;
        for (int k = 0; k < 64; ++k) total += tile[k];
        mean = total / 64.0f;
    }
    __syncthreads();
    y[i] = x[i] * mean;
}
"""
_CUDA_DROPPED = (
    "mean = total / 64.0f;\n    }\n    __syncthreads();",
    "mean = total / 64.0f;\n    }",
)


def _cuda(source: str, kid: str) -> KernelSpec:
    return dataclasses.replace(RIGHT, id=kid, entry_point="mean_scale", sources={"cuda": source})


def test_a_dropped_syncthreads_fails_in_the_reversed_rerun_on_the_gpu(request, session):
    """Thread 0 of each block is in the last warp of the twin: the other warps read the
    mean before it is written (the shared memory's poison), where the kernel as written
    may pass (warp 0 ran first)."""
    require_available(request.config, "cuda")
    runner = session.runner("cuda")
    right = oracle.evaluate(runner, _cuda(_CUDA_MEAN_SCALE, "cuda_mean_scale"), size=256, samples=0)
    assert right.passed, right.report()
    racy = _cuda(_CUDA_MEAN_SCALE.replace(*_CUDA_DROPPED), "cuda_mean_scale_no_barrier")
    ev = oracle.evaluate(runner, racy, size=256, samples=0)
    assert not ev.passed, ev.report()


def test_the_cuda_twin_mirrors_warps_keeps_lanes_and_the_line_numbers():
    twin = reversed_warps(_CUDA_MEAN_SCALE, [(64, 1, 1)])
    assert twin is not None and twin.endswith(_CUDA_MEAN_SCALE)
    assert "#define threadIdx (kf_rev_thread_idx())\n#line 1\n" in twin
    assert "(kf_n / 32u - 1u - kf_p / 32u) * 32u + kf_p % 32u" in twin  # lane kept
    # a warp keeps its lanes: a shuffle reads what it read, so such kernels get a twin
    shuffled = _CUDA_MEAN_SCALE.replace(
        "total / 64.0f", "__shfl_sync(0xffffffffu, total, 0) / 64.0f"
    )
    assert reversed_warps(shuffled, [(64, 1, 1)]) is not None


@pytest.mark.parametrize(
    "why, source, block",
    [
        (
            "inline PTX may read %tid",
            _CUDA_MEAN_SCALE.replace("mean = total", 'asm volatile("");\n        mean = total'),
            64,
        ),
        ("one warp a block: nothing to reverse", _CUDA_MEAN_SCALE, 32),
        (
            "a header beyond CUDA's scalar ones",
            "#include <cub/block/block_reduce.cuh>\n" + _CUDA_MEAN_SCALE,
            64,
        ),
        ("a block that is not whole warps", _CUDA_MEAN_SCALE, 48),
        (
            "a host side",
            _CUDA_MEAN_SCALE + "\nvoid launch() { mean_scale<<<1, 64>>>(0, 0, 0); }",
            64,
        ),
        (
            "no shared memory or barrier",
            'extern "C" __global__ void f(float* y) { y[threadIdx.x] = 1.0f; }',
            64,
        ),
    ],
)
def test_no_cuda_twin_where_the_hardware_index_could_tell(why, source, block):
    assert reversed_warps(source, [(block, 1, 1)]) is None, why

"""Round 35's findings (tests/wild/round35.py), each pinned by the smallest run that
shows it: the histogram article's reduce binds one uniform buffer a pass, which a
KernelSpec cannot say (one uniform block for every launch; a strict xfail, open); a
``Dispatch`` override the WGSL does not declare reached the driver, which called the
WGSL rejected, where a kernel-level one is refused naming it (fixed, and one named
like a uniform field is told to be an ``override``); and on lavapipe every failing
kernel with a loop was told its loops may have been cut at 65535 iterations, however
short they are (fixed: only where a loop may run that long)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

import oracle
from forge import BufferSpec, Dispatch, KernelSpec, Schedule
from forge.errors import InvalidArgument, UnsupportedFeature
from oracle import Verdict
from oracle.pytest_plugin import require_available
from tests.test_cuda_fake_driver import fake_driver  # noqa: F401  (a fixture)
from tests.wild import mutant
from tests.wild.round35 import HIST_SLOW

# The chunk sum of webgpufundamentals.org's histogram article
# (webgpu-compute-shaders-histogram-optimized-more.html), written here after the page,
# not copied: a pass adds chunk `first + stride` into chunk `first`, one workgroup a
# pair, its stride read from a uniform buffer the page binds anew each pass (one bind
# group a pass). Kept: the entry point, the two bindings and their names, the
# 256-wide chunks as an array of arrays, a workgroup a chunk.
_CHUNK_SUM = """
const LANES = 256u;  // bins of one chunk, and the workgroup's width

struct Uniforms {
  stride: u32,
};

@group(0) @binding(0) var<storage, read_write> chunks: array<array<u32, LANES>>;
@group(0) @binding(1) var<uniform> uni: Uniforms;

@compute @workgroup_size(LANES)
fn cs(@builtin(workgroup_id) pair: vec3u, @builtin(local_invocation_id) lane: vec3u) {
  let keep = pair.x * 2u * uni.stride;  // the pair's first chunk keeps the sum
  let other = keep + uni.stride;
  chunks[keep][lane.x] = chunks[keep][lane.x] + chunks[other][lane.x];
}
"""


def _passes(num_chunks: int) -> list[tuple[int, int]]:
    """(stride, workgroups) a pass: the page's ``Math.floor(chunksLeft / 2)`` loop."""
    out, left = [], num_chunks
    for i in range(math.ceil(math.log2(num_chunks))):
        count = left // 2
        left -= count
        out.append((2**i, count))
    return out


def _chunk_sum_reference(chunks, uni):
    out = chunks.copy()
    for stride, count in _passes(len(out)):
        for w in range(count):
            out[w * stride * 2] += out[w * stride * 2 + stride]
    chunks[...] = out


def _chunk_counts(rng, count, size):
    return rng.integers(0, 1000, (count, 256)).astype(np.uint32)


def _chunk_sum(id: str, launch_overrides) -> KernelSpec:
    return KernelSpec(
        id=id,
        entry_point="cs",
        sources={"wgsl": _CHUNK_SUM},
        buffers=(
            BufferSpec(
                0, "array<u32, 256>", "read_write", name="chunks", inout=True, fill=_chunk_counts
            ),
            BufferSpec.uniform(1, (("stride", "u32"),), name="uni"),
        ),
        reference=_chunk_sum_reference,
        defaults={"stride": 1},
        schedules=(Schedule(256),),
        launches=lambda size: tuple(
            Dispatch("cs", grid=lambda s, z, c=count: (c, 1, 1), overrides=launch_overrides(stride))
            for stride, count in _passes(int(size))
        ),
        test_sizes=(10,),
    )


@pytest.mark.parametrize("backend", ["wgpu", "browser"])
def test_a_uniform_value_a_pass_as_the_histogram_reduce_binds_it(request, backend):
    """The page binds a uniform buffer a pass (stride 1, 2, 4, 8): each launch sets the
    field ``stride`` (``Step.fields``: its own copy of the block), and a twin whose
    launches all leave it at the block's 1 (what binding one block for every launch
    ran) fails. Once inexpressible (a strict xfail): the launch's ``stride`` was
    refused, naming ``override stride: u32`` as the way."""
    require_available(request.config, backend)
    kernel = _chunk_sum("r35_chunk_sum_uniform_a_pass", lambda stride: {"stride": stride})
    ev = oracle.evaluate(backend, kernel, size=10, seed=0, samples=2)
    assert ev.verdict is Verdict.PASS, ev.report()
    one = _chunk_sum("r35_chunk_sum_uniform_left_at_one", lambda stride: {"stride": 1})
    ev = oracle.evaluate(backend, one, size=10, seed=0, samples=0)
    assert ev.verdict is Verdict.MISMATCH, ev.report()


def test_a_dispatch_override_the_wgsl_does_not_declare_is_refused_naming_it():
    """No device needed: the chunk sum's launches pass ``strides`` (no such override)."""
    kernel = _chunk_sum("r35_chunk_sum_undeclared_override", lambda stride: {"strides": stride})
    try:
        kernel.steps("wgsl", kernel.schedules[0], kernel.size(10))
    except InvalidArgument as error:
        assert "strides" in str(error) and "declare" in str(error), str(error)
    else:
        raise AssertionError("the launches' override `strides` went through unchecked")
    named = _chunk_sum("r35_chunk_sum_uniform_field_override", lambda stride: {"stride": stride})
    steps = named.steps("wgsl", named.schedules[0], named.size(10))
    assert [s.fields for s in steps] == [(("stride", 2**i),) for i in range(4)]
    assert all(s.overrides == () for s in steps)  # no pipeline constant of that name


# the chunk sum as a CUDA port would write it: the stride by value, or in the struct
_CHUNK_SUM_CUDA = """
struct Uniforms { unsigned stride; };
extern "C" __global__ void by_value(unsigned* chunks, unsigned stride) {
  unsigned chunk0 = blockIdx.x * stride * 2, chunk1 = chunk0 + stride;
  chunks[chunk0 * 256 + threadIdx.x] += chunks[chunk1 * 256 + threadIdx.x];
}
extern "C" __global__ void in_struct(unsigned* chunks, Uniforms uni) {
  unsigned chunk0 = blockIdx.x * uni.stride * 2, chunk1 = chunk0 + uni.stride;
  chunks[chunk0 * 256 + threadIdx.x] += chunks[chunk1 * 256 + threadIdx.x];
}
"""
_CHUNK_SUM_CONSTANT = """
struct Uniforms { unsigned stride; };
__constant__ Uniforms uni;
extern "C" __global__ void in_constant(unsigned* chunks) {
  unsigned chunk0 = blockIdx.x * uni.stride * 2, chunk1 = chunk0 + uni.stride;
  chunks[chunk0 * 256 + threadIdx.x] += chunks[chunk1 * 256 + threadIdx.x];
}
"""


@pytest.mark.parametrize("entry", ["by_value", "in_struct"])
def test_a_cuda_launch_sets_a_uniform_field_it_takes_by_value_or_in_the_struct(entry):
    """No device needed. A launch's ``stride`` named like a field of the block, for a
    CUDA kernel taking ``unsigned stride`` by value: the argument read the block's
    field, and the launch's value was dropped without a word (every pass ran at stride
    1). Now it is the launch's field (``Step.fields``), which the backend writes into
    the bytes it passes; the struct taken by value gets it the same way."""
    kernel = replace(
        _chunk_sum("r35_chunk_sum_cuda_" + entry, lambda stride: {"stride": stride}),
        sources={"cuda": _CHUNK_SUM_CUDA},
        entry_point=entry,
        launches=lambda size: tuple(
            Dispatch(entry, grid=lambda s, z, c=count: (c, 1, 1), overrides={"stride": stride})
            for stride, count in _passes(int(size))
        ),
    )
    steps = kernel.steps("cuda", kernel.schedules[0], kernel.size(10))
    assert [s.fields for s in steps] == [(("stride", 2**i),) for i in range(4)]
    field = ("field", "stride") if entry == "by_value" else ("uniform", None)
    assert all(s.arguments == (("buffer", 0), field) for s in steps)
    from forge._bindings import uniform_field_bytes

    assert uniform_field_bytes(kernel, steps[2].fields, "cuda") == ((0, (4).to_bytes(4, "little")),)


def test_a_launch_field_the_block_cannot_pass_per_launch_or_hold_is_refused():
    """No device needed: the block copied once into a ``__constant__`` variable for
    every launch cannot take a launch's own value (UnsupportedFeature, naming it); a
    value the field cannot hold is an InvalidArgument naming field and value."""
    base = _chunk_sum("r35_chunk_sum_cuda_constant", lambda stride: {"stride": stride})
    kernel = replace(
        base,
        sources={"cuda": _CHUNK_SUM_CONSTANT},
        entry_point="in_constant",
        launches=(Dispatch("in_constant", grid=(5, 1, 1), overrides={"stride": 1}),),
    )
    with pytest.raises(UnsupportedFeature, match=r"stride.*copied once.*variable uni"):
        kernel.steps("cuda", kernel.schedules[0], kernel.size(10))
    negative = _chunk_sum("r35_chunk_sum_negative_stride", lambda stride: {"stride": -stride})
    with pytest.raises(InvalidArgument, match=r"uniform field stride to -1"):
        negative.steps("wgsl", negative.schedules[0], negative.size(10))


def test_a_backend_that_cannot_bind_a_launch_its_own_block_refuses_the_kernel(request, monkeypatch):
    require_available(request.config, "wgpu")
    from backends.wgpu import WgpuComputeContext

    monkeypatch.setattr(WgpuComputeContext, "sets_launch_fields", False)
    kernel = _chunk_sum("r35_chunk_sum_unbindable", lambda stride: {"stride": stride})
    ev = oracle.evaluate("wgpu", kernel, size=10, seed=0, samples=0, isolate=False)
    assert ev.verdict is Verdict.UNSUPPORTED, ev.report()
    assert "stride" in ev.report() and "per launch" in ev.report()


def test_a_short_loop_is_not_said_to_be_cut_short(request):
    require_available(request.config, "wgpu")
    broken = mutant(HIST_SLOW, "the last bin one past the end")
    ev = oracle.evaluate("wgpu", broken, size="W=37,H=23", seed=0, samples=0)
    adapter = ev.adapter.name if ev.adapter else ""
    if "llvmpipe" not in adapter:
        pytest.skip(f"{adapter} does not cut loops short")
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    assert not any("65535" in note for note in ev.notes), ev.report()
    # a loop that may run that long still gets the note: the same mutant over more pixels
    ev = oracle.evaluate("wgpu", broken, size="W=300,H=250", seed=0, samples=0)
    assert any("65535" in note for note in ev.notes), ev.report()


def _simulated_chunk_sum(args, grid, block):
    """The CUDA chunk sum on the simulated driver (tests/test_cuda_fake_driver.py):
    the stride is what the launch's argument bytes say."""
    from tests.test_cuda_fake_driver import device_array, ptr, u32

    stride = u32(args[1])
    chunks = device_array(ptr(args[0]), (2 * grid[0] * stride + 1) * 256, np.uint32)
    for w in range(grid[0]):
        first, second = w * stride * 2, w * stride * 2 + stride
        chunks[first * 256 : (first + 1) * 256] += chunks[second * 256 : (second + 1) * 256]


@pytest.mark.parametrize("entry", ["by_value", "in_struct"])
def test_the_cuda_backend_passes_each_launch_its_own_field(fake_driver, entry):  # noqa: F811
    """On the simulated driver: each pass reads its own stride from the bytes the
    backend passes, and the chunk sum passes; a twin leaving the stride at the
    block's 1 fails."""
    from backends.cuda import CudaComputeContext

    fake_driver.kernels[entry] = (_simulated_chunk_sum, (8, 4))
    verdicts = []
    for name, strides in (("own", lambda stride: stride), ("one", lambda stride: 1)):
        kernel = replace(
            _chunk_sum(f"r35_chunk_sum_simulated_{entry}_{name}", lambda stride: {}),
            sources={"cuda": _CHUNK_SUM_CUDA},
            entry_point=entry,
            launches=lambda size, strides=strides: tuple(
                Dispatch(entry, grid=lambda s, z, c=count: (c, 1, 1), overrides={"stride": s})
                for s, count in ((strides(stride), count) for stride, count in _passes(int(size)))
            ),
        )
        with CudaComputeContext(1 << 22) as ctx:
            verdicts.append(oracle.evaluate(ctx, kernel, size=10, seed=0, samples=0).verdict)
    assert verdicts == [Verdict.PASS, Verdict.MISMATCH]

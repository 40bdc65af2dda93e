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

import numpy as np
import pytest

import oracle
from forge import BufferSpec, Dispatch, KernelSpec, Schedule
from forge.errors import InvalidArgument
from oracle import Verdict
from oracle.pytest_plugin import require_available
from tests.wild import mutant
from tests.wild.round35 import HIST_SLOW

# webgpufundamentals.org, webgpu-compute-shaders-histogram-optimized-more.html: the
# chunk sum as the page writes it, one uniform buffer (and bind group) a pass
_CHUNK_SUM = """
const chunkWidth = 256;
const chunkHeight = 1;
const chunkSize = chunkWidth * chunkHeight;

struct Uniforms {
  stride: u32,
};

@group(0) @binding(0) var<storage, read_write> chunks: array<array<u32, chunkSize>>;
@group(0) @binding(1) var<uniform> uni: Uniforms;

@compute @workgroup_size(chunkSize, 1, 1) fn cs(
  @builtin(local_invocation_id) local_invocation_id: vec3u,
  @builtin(workgroup_id) workgroup_id: vec3u,
) {
  let chunk0 = workgroup_id.x * uni.stride * 2;
  let chunk1 = chunk0 + uni.stride;

  let sum = chunks[chunk0][local_invocation_id.x] +
            chunks[chunk1][local_invocation_id.x];
  chunks[chunk0][local_invocation_id.x] = sum;
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


@pytest.mark.xfail(
    strict=True,
    reason="inexpressible: a KernelSpec has one uniform block for all its launches, and a "
    "Dispatch gives its own override values only; the page binds a uniform buffer a pass "
    "(stride 1, 2, 4, 8): the launch's `stride` is refused, naming `override stride: u32` "
    "as the way a launch gets a value of its own",
)
def test_a_uniform_value_a_pass_as_the_histogram_reduce_binds_it(request):
    """tests/wild/round35.py's HIST_REDUCE reads the stride from an ``override`` for it."""
    require_available(request.config, "wgpu")
    kernel = _chunk_sum("r35_chunk_sum_uniform_a_pass", lambda stride: {"stride": stride})
    ev = oracle.evaluate("wgpu", kernel, size=10, seed=0, samples=0)
    assert ev.verdict is Verdict.PASS, ev.report()


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
    with pytest.raises(InvalidArgument, match=r"stride.*written once.*override stride: u32"):
        named.steps("wgsl", named.schedules[0], named.size(10))


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

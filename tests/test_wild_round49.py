"""What round 49 (tests/wild/round49.py: web-rwkv's NF4 quantiser and product, its layer
and group norms, its recenter + rms_norm; onnxruntime WebGPU's Hadamard transform)
showed.

- No false alarm and no missed mutant where they run here: every original passes on the
  reference, lavapipe and SwiftShader; every WGSL mutant fails on both CPU adapters
  (KFORGE_SLOW_TESTS=1) but two races the CPU adapters' scheduling hides: the NF4
  quantiser's table copied by invocation 0 and read with no barrier (lavapipe hides it,
  SwiftShader shows it) and the layer norm's statistics read with no barrier (both hide
  it): ``Wild.invisible_on``, for the GPU to show. The module with two entry points of
  different ``override BLOCK_SIZE`` sizing the same workgroup arrays (layer_norm 128,
  group_norm 32, each its own pipeline) compiles and runs on naga and Tint alike.
- An oracle gap, fixed: the wgpu backend refuses WGSL whose barrier not every
  invocation reaches together, as Chrome's Tint does and naga does not
  (``forge.sources.wgsl_barrier_in_nonuniform_flow``, round 44), but it took the
  invocation builtins for varying only where they are parameters of their own. web-rwkv's
  quantisers take them in a struct (``fn quantize(in: Input)``, ``in.uid``), and the
  file from 44697ab (2024-12-06) on returns early on ``bti`` before the workgroup's
  barrier: Tint refuses it (SwiftShader's Chrome, 2026-12-06: "'workgroupBarrier' must
  only be called from uniform control flow"), while on wgpu naga compiled it and
  lavapipe ran it, so the same WGSL was an error in the browser and a kernel judged on
  its values on wgpu. A parameter whose struct type has a member that varies by
  invocation now varies as a whole, as Tint judges it (Tint refuses a branch on the
  struct's uniform ``workgroup_id`` member too: checked in the same Chrome).
- Right verdicts on the originals' real defects, each in the corpus as the mutant that
  is the file's own history: group_norm.wgsl from 3270fb6 to 57c4de2 (2023) had no
  epsilon (the rows of tiny values fail it), and the quantiser from 44697ab on has the
  early return above (refused on both backends). The quantiser at 5f9dca1 has no
  bound at all, and its host launches four times the invocations it has words (the
  output's shape counts bytes, an invocation packs a u32): at the host's launch the
  oracle reports the writes past the end (below), so the corpus launches it 1-D, one
  invocation a block, then a word.

- The 4-bit codes are judged exactly, while WGSL lets ``1.0 / absmax`` be 2.5 ulp off:
  a value near the midpoint of two codes could move across it on a GPU that divides
  otherwise. Simulated on lavapipe (the scale's bits 1 or 2 ulp up or down, finite
  blocks only, seeds 0 to 2, both test sizes): no code changed, so no false alarm is
  seen at these inputs. An all-zero block (the zeros family) gives ``1.0 / 0.0``: IEEE
  infinity, then NaN, every comparison false, code 0 as in the reference; a device
  without infinities could give any code there (WGSL makes that value indeterminate).

What only the GPU can show: the two races above, and the codes where a GPU's division
is not correctly rounded.
"""

from __future__ import annotations

import dataclasses

import pytest

import oracle
from forge.sources import wgsl_barrier_in_nonuniform_flow
from oracle import Session, Verdict
from oracle.pytest_plugin import require_available
from tests.wild import mutant
from tests.wild.round49 import HOST_LAUNCHES_5F9DCA1, QUANT_NF4


@pytest.fixture(scope="module")
def session():
    with Session(timeout_s=60) as shared:
        yield shared


_STRUCT_OF_BUILTINS = """
struct Input {
    @builtin(global_invocation_id) uid: vec3<u32>,
    @builtin(local_invocation_index) index: u32,
    @builtin(num_workgroups) b: vec3<u32>,
};
struct Place {
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) b: vec3<u32>,
};
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
var<workgroup> q: u32;
"""


def test_a_barrier_after_a_return_on_a_struct_of_builtins_is_refused_as_tint_refuses_it():
    """No GPU: each case as Chrome's Tint judged it (2026-12-06)."""
    refused = [
        # web-rwkv's quant_mat_nf4.wgsl from 44697ab on, in short
        "fn quantize(in: Input) {\n let bti = dot(in.uid, vec3<u32>(1u, 64u * in.b.x, 0u));\n"
        " if bti >= 100u { return; }\n if in.index == 0u { q = 1u; }\n workgroupBarrier();\n"
        " o[bti] = q;\n}",
        # a branch on the struct's workgroup_id: Tint judges the parameter as a whole
        "fn main(@builtin(workgroup_id) w: vec3<u32>, in: Input) {\n"
        " if in.b.x > 1u { return; }\n workgroupBarrier();\n}",
    ]
    taken = [
        "fn quantize(in: Input) {\n let bti = dot(in.uid, vec3<u32>(1u, 64u * in.b.x, 0u));\n"
        " if in.index == 0u { q = 1u; }\n workgroupBarrier();\n o[bti] = q;\n}",
        # a struct of uniform builtins only
        "fn main(p: Place) {\n if p.wid.x >= 4u { return; }\n workgroupBarrier();\n}",
    ]
    for body in refused:
        found = wgsl_barrier_in_nonuniform_flow(
            _STRUCT_OF_BUILTINS + "@compute @workgroup_size(64)\n" + body
        )
        assert found is not None and found[0] == "workgroupBarrier()", body
    for body in taken:
        source = _STRUCT_OF_BUILTINS + "@compute @workgroup_size(64)\n" + body
        assert wgsl_barrier_in_nonuniform_flow(source) is None, body


def test_the_quantiser_with_its_early_return_is_refused_on_wgpu(request, session):
    """The corpus's mutant that is the file from 44697ab on: refused before it runs, with
    the error Tint gives in the browser."""
    require_available(request.config, "wgpu")
    broken = mutant(QUANT_NF4, "an early return before the barrier (the file from 44697ab on)")
    ev = oracle.evaluate(session.runner("wgpu"), broken, size="R=8,C=1024", seed=0, samples=0)
    assert ev.verdict is Verdict.ERROR, ev.report()
    assert "must only be called from uniform control flow" in (ev.error or ""), ev.report()


def test_the_quantiser_at_its_hosts_launch_writes_past_the_end(request, session):
    """quant_mat_nf4 at 5f9dca1 launched as its host launched it: the invocations past
    the words write past the end of the output (and of absmax), and the oracle says so
    (a right verdict: robust access keeps such writes in the buffer, where they may land
    on elements another invocation wrote)."""
    require_available(request.config, "wgpu")
    hosted = dataclasses.replace(QUANT_NF4.kernel, launches=HOST_LAUNCHES_5F9DCA1)
    ev = oracle.evaluate(session.runner("wgpu"), hosted, size="R=8,C=1024", seed=0, samples=0)
    assert not ev.passed, ev.report()
    assert "written past the end" in ev.report(), ev.report()

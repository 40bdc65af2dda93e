"""Round 44's findings (tests/wild/round44.py), each pinned by the smallest run that
shows it.

- A false pass, fixed: a softmax whose running maximum is an element of workgroup
  memory (ratchet's ``smem[index] = max(smem[index], X[...])``) was not seen keeping
  one, so the one-sign input sets never ran, and its maximum started at 0 or with a
  fold of its tree dropped passed.
- A false pass, fixed: naga compiled compute-shader-101's plain store to and load of
  an atomic (``histogram[i] = 0u``), which Tint refuses; wgpu now refuses it too.
- Explained, not changed: NaN weights vanish from a histogram whose flush tests
  ``if (old != 0)``, since naga's ``!=`` is an ordered comparison; the report says so.
- A false pass, fixed: a barrier moved into ``if (local_id.x == 0u)`` (wgpu's
  hello_synchronization) is a shader-creation error by WGSL's uniformity analysis,
  which Tint enforces; naga compiled it and lavapipe ran it to the right counts. wgpu
  now refuses the cases of that analysis ``forge.sources`` reads.
"""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

import oracle
from oracle import Session, Verdict
from oracle._builtins import running_extremum
from oracle.pytest_plugin import require_available
from tests.wild import mutant
from tests.wild.round44 import (
    FUTHARK_FADD_HISTOGRAM,
    HELLO_SYNCHRONIZATION,
    RADIX_COUNT_REDUCE,
    RATCHET_SOFTMAX,
)


@pytest.fixture(scope="module")
def session():
    with Session(timeout_s=60) as shared:
        yield shared


def test_a_running_max_kept_in_workgroup_memory_is_seen():
    """``smem[index] = max(smem[index], X[row_start + i])``: the kernel keeps a running
    maximum, so the oracle also runs it on the one-sign input sets."""
    assert running_extremum(RATCHET_SOFTMAX.kernel)


@pytest.mark.parametrize(
    "what, size",
    [
        # the one row of the negative set lies below -88: every exp underflows, 0 / 0
        ("maximum started at zero", "B=1,M=1,N=4"),
        # 65 vec4s: the row's maximum planted at its last element, in lane 64, which
        # the dropped fold leaves out; the positive set's exp overflows past it
        ("one fold of the maximum dropped", "B=1,M=1,N=260"),
    ],
)
def test_a_softmax_with_a_wrong_running_max_fails_on_a_one_sign_set(request, session, what, size):
    require_available(request.config, "wgpu")
    ev = oracle.evaluate(
        session.runner("wgpu"),
        mutant(RATCHET_SOFTMAX, what),
        size=size,
        seed=0,
        samples=0,
        warmups=0,
    )
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    assert "in the negative input set" in ev.report() or "in the positive input set" in (
        ev.report()
    ), ev.report()


# compute-shader-101's counting pass as its authors wrote it: the histogram of atomics
# zeroed and read back as plain values
_AS_WRITTEN = dataclasses.replace(
    RADIX_COUNT_REDUCE,
    mutants={
        "plain": (
            "wgsl",
            "atomicStore(&histogram[local_id.x], 0u);",
            "histogram[local_id.x] = 0u;",
        )
    },
)


def test_a_plain_store_to_an_atomic_is_refused_as_tint_refuses_it(request, session):
    """naga compiled it and wgpu passed it; a browser would not run it (Chromium's Tint,
    SwiftShader, 2026-12-06: "cannot assign 'u32' to 'atomic<u32>'", and for the load
    "cannot assign 'atomic<u32>' to 'u32'"). Now wgpu refuses it too, naming the access
    and the builtin to use."""
    require_available(request.config, "wgpu")
    kernel = mutant(_AS_WRITTEN, "plain")
    ev = oracle.evaluate(session.runner("wgpu"), kernel, size=1, seed=0, samples=0, warmups=0)
    assert ev.verdict is Verdict.ERROR, ev.report()
    assert "histogram[local_id.x] = 0u" in ev.report(), ev.report()
    assert "atomicStore(&h[i], 0u)" in ev.report(), ev.report()


def test_plain_access_to_an_atomic_is_found_as_wgsl_reads_it():
    """No GPU: a store or load of an atomic variable not through ``&`` is found (the
    first one, where it is); its uses through ``&`` and the builtins are not."""
    from forge.sources import wgsl_plain_atomic_access as plain

    head = (
        "var<workgroup> h: array<atomic<u32>, 16>;\n"
        "@group(0) @binding(0) var<storage, read_write> bins: array<atomic<u32>>;\n"
        "var<workgroup> n: atomic<u32>;\n"
        "fn f(i: u32) {\n"
    )
    found = {
        "h[i] = 0u;": "h[i] = 0u",
        "let c = h[i];": "h[i]",
        "out[i] = bins[i];": "bins[i]",
        "n = 1u;": "n = 1u",
    }
    for body, text in found.items():
        got = plain(head + body + "\n}")
        assert got is not None and got[0] == text, (body, got)
        assert (head + body).index(text) == got[1], (body, got)
    taken = [
        "atomicStore(&h[i], 0u); let c = atomicLoad(&h[i]);",
        "atomicAdd(&(bins[i]), 1u); let m = arrayLength(&bins);",
        "let p = &n; atomicMax(p, 3u); let q = atomicExchange(&( n ), 0u);",
        "let hist = s.h; let nn = 2u; x.bins[i] = 0u;",
    ]
    for body in taken:
        assert plain(head + body + "\n}") is None, body


def test_nan_weights_through_an_ordered_not_equal_are_explained(request, session):
    """The histogram given NaN weights (its default contract is finite ones): on an
    adapter whose ``!=`` is ordered, the flush's ``if (old != 0)`` skips a NaN bin;
    the report says it passes the finite set and why NaN differs."""
    require_available(request.config, "wgpu")
    runner = session.runner("wgpu")
    kernel = dataclasses.replace(FUTHARK_FADD_HISTOGRAM.kernel, nonfinite_inputs=True)
    ev = oracle.evaluate(runner, kernel, size=256, seed=0, samples=0, warmups=0)
    ordered = "nan_is_not_equal" in runner.info.constraints.float_departures
    said = "compiles != as an ordered comparison" in ev.report()
    if not ordered:
        assert not said, ev.report()
        return
    if ev.semantics.nonfinite_indeterminate:
        # NVIDIA's Vulkan driver (H100, 2026-12-06): the probe saw its `!=` ordered, and
        # its non-finite results indeterminate, so the NaN bins are not judged there
        assert ev.verdict is Verdict.PASS, ev.report()
        assert ev.outputs["hist"].comparison.masked > 0, ev.report()
        return
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    assert said and "it passes the finite input set" in ev.report(), ev.report()


def test_the_ordered_comparison_is_named_only_where_the_probe_saw_it():
    """No GPU: the note's clause needs both the probe's departure and a ``!=`` in the
    kernel's WGSL."""
    from oracle._evaluate import _ordered_not_equal

    kernel = FUTHARK_FADD_HISTOGRAM.kernel

    def runner(departures, target="wgsl"):
        constraints = SimpleNamespace(float_departures=departures)
        return SimpleNamespace(info=SimpleNamespace(constraints=constraints, target=target))

    assert "ordered comparison" in _ordered_not_equal(runner(("nan_is_not_equal",)), kernel)
    assert _ordered_not_equal(runner(()), kernel) == ""
    assert _ordered_not_equal(runner(("nan_is_not_equal",), "cuda"), kernel) == ""
    assert _ordered_not_equal(runner(("nan_is_not_equal",)), RATCHET_SOFTMAX.kernel) == ""


def test_a_barrier_only_some_invocations_reach_is_refused_on_wgpu(request, session):
    """The barrier inside ``if (local_id.x == 0u)``: lavapipe ran it and every count was
    16; Tint refuses it, and wgpu now refuses it too, before it runs."""
    require_available(request.config, "wgpu")
    kernel = mutant(HELLO_SYNCHRONIZATION, "barrier moved into the reporting branch")
    ev = oracle.evaluate(session.runner("wgpu"), kernel, size=4, seed=0, samples=0, warmups=0)
    assert ev.verdict is Verdict.ERROR, ev.report()
    assert "must only be called from uniform control flow" in ev.report(), ev.report()


_UNIFORMITY_HEAD = """
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<storage, read_write> buf: array<u32>;
var<workgroup> flag: array<u32, 4>;
fn sync() { workgroupBarrier(); }
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(global_invocation_id) gid: vec3<u32>) {
"""


def test_barriers_are_judged_uniform_or_not_as_tint_judges_them():
    """No GPU: each case as Chrome's Tint judged it (SwiftShader's browser, 2026-12-06):
    the refused ones made "must only be called from uniform control flow", the taken
    ones compiled."""
    from forge.sources import wgsl_barrier_in_nonuniform_flow as nonuniform

    refused = [
        "if (lid.x == 0u) { workgroupBarrier(); }",
        "if (gid.x >= 100u) { return; }\n workgroupBarrier();",
        "for (var i = lid.x; i < 64u; i += 16u) { workgroupBarrier(); }",
        "if (flag[0] == 1u) { workgroupBarrier(); }",
        "if (lid.x < 4u) { sync(); }",
        "var k = 0u; loop { if (lid.x > k) { break; } workgroupBarrier(); k++; }",
        "let l = lid.x; let m = l * 2u; if (m < 8u) { storageBarrier(); }",
        "if (lid.x == 0u) { out[0] = 2u; } else { workgroupBarrier(); }",
        "for (var i = 0u; i < buf[0]; i++) { workgroupBarrier(); }",
    ]
    taken = [
        "for (var s = 32u; s > 0u; s >>= 1u) { if (lid.x < s) { flag[0] = s; }\n"
        "  workgroupBarrier(); }",
        "if (wid.x == 0u) { workgroupBarrier(); }",
        "let v = workgroupUniformLoad(&flag[0]); if (v > 0u) { workgroupBarrier(); }",
        "if (lid.x == 0u) { out[0] = 2u; } else { out[1] = 2u; }\n workgroupBarrier();",
        "for (var i = 0u; i < arrayLength(&buf); i++) { workgroupBarrier(); }",
        "if (lid.x < 4u) { flag[lid.x] = 1u; }\n sync();",
        "var k = 0u; loop { if (k > 3u) { break; } workgroupBarrier(); k++; }",
    ]
    for body in refused:
        found = nonuniform(_UNIFORMITY_HEAD + body + "\n}")
        assert found is not None and found[0] in (
            "workgroupBarrier()",
            "storageBarrier()",
            "sync()",
        ), body
    for body in taken:
        assert nonuniform(_UNIFORMITY_HEAD + body + "\n}") is None, body

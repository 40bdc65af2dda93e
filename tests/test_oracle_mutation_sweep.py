"""Bug classes found by an automatic mutation sweep over the wild corpus's WGSL that the
drawn inputs could not expose on llvmpipe."""

from __future__ import annotations

import dataclasses

import oracle
from oracle import Verdict
from oracle._builtins import endless_wgsl_loops
from oracle._judge import LOOP_CAPS
from oracle.pytest_plugin import require_available
from tests.wild import CORPUS


def _with_wgsl(kernel, old: str, new: str):
    text = kernel.sources["wgsl"]
    assert old in text
    sources = {**kernel.sources, "wgsl": text.replace(old, new)}
    return dataclasses.replace(kernel, id=kernel.id + "__endless", sources=sources)


def test_a_loop_condition_no_u32_makes_false_is_found():
    row_sum = CORPUS["wild_row_sum_f64_reference"].kernel
    assert endless_wgsl_loops(row_sum) == []
    endless = _with_wgsl(row_sum, "s > 0u;", "s >= 0u;")
    assert endless_wgsl_loops(endless) == ["s >= 0u"]
    # a loop that can still leave is not endless, nor is a signed countdown
    leave = "if (s == 0u) { break; }\n        if (lid.x < s)"
    leaves = _with_wgsl(endless, "if (lid.x < s)", leave)
    assert endless_wgsl_loops(leaves) == []
    signed = _with_wgsl(row_sum, "var s = 64u; s > 0u;", "var s = 64; s >= 0;")
    assert endless_wgsl_loops(signed) == []
    # an `if (x >= 0u)` is no loop (round 30's originals have it)
    assert all(endless_wgsl_loops(w.kernel) == [] for w in CORPUS.values())


def test_an_endless_reduction_loop_fails_though_llvmpipe_ends_it(request):
    # the sweep's survivor: `s > 0u` -> `s >= 0u` in a tree reduction loops forever on
    # a GPU; llvmpipe stops it after 65535 iterations with s stuck at 0, and its sums match
    require_available(request.config, "wgpu")
    row_sum = CORPUS["wild_row_sum_f64_reference"].kernel
    endless = _with_wgsl(row_sum, "s > 0u;", "s >= 0u;")
    with oracle.Session(timeout_s=5) as session:
        runner = session.runner("wgpu")
        capped = any(name in runner.info.adapter.name.lower() for name in LOOP_CAPS)
        # one row: one workgroup spins its 65535 iterations (70 rows took 14 s on lavapipe)
        ev = oracle.evaluate(runner, endless, size="rows=1,cols=1", samples=0, warmups=0)
        # llvmpipe's outputs match, and the finding fails it; a GPU hangs until the timeout
        # (NVIDIA's Vulkan driver on the H100, 2026-12-06), and the finding says why
        assert ev.verdict == (Verdict.MISMATCH if capped else Verdict.TIMEOUT), ev.report()
        assert any(f.check == "loop" and "s >= 0u" in f.message for f in ev.findings)
    with oracle.Session(timeout_s=60) as session:
        ev = oracle.evaluate(
            session.runner("wgpu"), row_sum, size="rows=1,cols=1", samples=0, warmups=0
        )
        assert ev.verdict == Verdict.PASS, ev.report()

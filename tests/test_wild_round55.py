"""What round 55 (tests/wild/round55.py: CUDA idioms as Stack Overflow answers and the
OLCF training series post them) showed.

- No false alarm and no missed mutant where they run here: every original passes on the
  reference and, where it has a WebGPU port, on lavapipe and SwiftShader; every CUDA
  original and mutant compiles with NVRTC; every WGSL mutant fails on both adapters
  (``KFORGE_SLOW_TESTS=1``), but two that are races between invocations on one word:
  ``reduce_a``'s port with its compare-and-swap tried once passes on both CPU adapters,
  which never interleaved two workgroups' swaps (one a workgroup), as round 35's racy
  increment passed there (declared ``invisible_on``, for the GPU run); the bounding box's
  port with the swap tried once fails on both once the points hold a sweep (each point
  beating the ones before it), where the invocations of a SIMD group try the same word
  together: with the points drawn at random, the greatest point was never the one lost,
  and the mutant passed on both.
- A real bug of a much-copied answer, which the oracle finds, pinned below: the sign
  trick for float atomics (https://stackoverflow.com/a/51549250) sends -0.0 down the
  non-negative branch, where its bits are INT_MIN as a signed int. A maximum over a lone
  -0.0 stays at the -FLT_MAX it started from, and a minimum that has taken -0.0 takes
  any negative value after it (the unsigned maximum of the bits). The oracle's ``zeros``
  family holds -0.0, so the trick fails on the oracle's own inputs, rightly; the corpus
  entry draws coordinates without -0.0 (its contract), and exact +0.0 stays, where a
  mutant that sends zero down the negative branch fails. The CUDA kernel needs the GPU,
  so the trick's two atomics are run here as a WGSL compare-and-swap that computes what
  each computes (the signed maximum or minimum of the bits for a value >= 0, the
  unsigned minimum or maximum otherwise): it fails on the oracle's draws and passes on
  the entry's, and its two CUDA mutants fail too (checked by hand, 2026-12-06).
- A mutant left out as equivalent by design: njuffa's erfcxf refines its quotient
  ``q = (a - 2) / (a + 2)`` once from the residual of ``a - 2 - q (a + 2)``, which
  repairs a numerator written ``a - 1`` exactly (the residual is then -1, and the step
  adds -1 / (a + 2)); the residual's own pivot written 1 fails instead.
- Not an oracle defect, said here: for a mutant whose float64 runs reach 1e293 (erfcx of
  -26 is finite in float64 and +inf in float32), ``oracle._expected``'s spread of the
  moves squares them past float64's range, with a RuntimeWarning; those elements are
  infinite in float32 and are judged as such.

What only the GPU can show: every CUDA run (the originals' values, the CUDA mutants
failing, the OLCF reductions' float atomicAdd across blocks); the three CUDA races
(``reduce_a`` without the sweep's barrier, ``reduce_ws`` without the one before warp
0 reads the warps' sums, the stencil without its barrier): where their values pass,
compute-sanitizer must find them; ``reduce_a``'s port with its swap tried once failing
on a GPU that runs the grid's workgroups at once; the stencil's offset pointers
(``arguments=("in_ + 3", "out + 3")``) as the exercise's host passes them.
"""

from __future__ import annotations

import dataclasses

import oracle
from oracle import Verdict
from tests.wild import CORPUS
from tests.wild.round55 import MINMAX

# The sign trick's two atomics, run as what they compute: for a value >= 0 the signed
# maximum (minimum) of the bits, otherwise the unsigned minimum (maximum), each as one
# compare-and-swap loop on the word.
_SIGN_TRICK_AS_WGSL = """
fn trick(slot: u32, value: f32, greatest: bool) {
    var seen = atomicLoad(&bbox[slot]);
    let bits = bitcast<u32>(value);
    loop {
        var want: u32;
        if (value >= 0.0) {
            let a = bitcast<i32>(seen);
            let b = bitcast<i32>(bits);
            want = bitcast<u32>(select(min(a, b), max(a, b), greatest));
        } else {
            want = select(max(seen, bits), min(seen, bits), greatest);
        }
        let swap = atomicCompareExchangeWeak(&bbox[slot], seen, want);
        if (swap.exchanged) { break; }
        seen = swap.old_value;
    }
}
"""


def _sign_trick(kernel):
    port = kernel.sources["wgsl"]
    head, entry = port.split("@compute")
    body = entry.replace("atomic_min_f32(d,", "trick(d,").replace(
        "atomic_max_f32(3u + d, xyz[3u * i + d]);", "trick(3u + d, xyz[3u * i + d], true);"
    )
    body = body.replace("trick(d, xyz[3u * i + d]);", "trick(d, xyz[3u * i + d], false);")
    return dataclasses.replace(
        kernel,
        id="r55_sign_trick",
        sources={"wgsl": head + _SIGN_TRICK_AS_WGSL + "@compute" + body},
    )


def test_the_sign_trick_for_float_atomics_is_wrong_on_negative_zero_and_the_oracle_says_so(
    request, forge_session
):
    """The answer's trick, judged on the oracle's own draws (its ``zeros`` family holds
    -0.0): a lone point whose z is -0.0 gets a greatest z of -FLT_MAX. On the entry's
    draws, which leave -0.0 out, it passes."""
    from oracle.pytest_plugin import require_available

    require_available(request.config, "wgpu")
    xyz = MINMAX.kernel.buffers[0]
    drawn = dataclasses.replace(
        MINMAX.kernel, buffers=(dataclasses.replace(xyz, fill=None), *MINMAX.kernel.buffers[1:])
    )
    runner = forge_session.runner("wgpu")
    ev = oracle.evaluate(runner, _sign_trick(drawn), size=1, seed=1, samples=0, warmups=0)
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    assert "got -3.4028235e+38 want -0.0" in ev.report(), ev.report()
    ev = oracle.evaluate(runner, _sign_trick(MINMAX.kernel), size=1, seed=1, samples=0, warmups=0)
    assert ev.passed, ev.report()


def test_the_round_is_in_the_corpus():
    ids = [name for name in CORPUS if name.startswith("wild_r55_")]
    assert len(ids) == 8, ids

"""Round 37's findings (tests/wild/round37.py), each pinned by the smallest run that
shows it.

- A false alarm, fixed: a float32 operation whose result lies below float32's smallest
  normal keeps neither its value nor its sign (WGSL lets any operation flush a
  subnormal, a result below 2**-149 is 0 in any arithmetic, and ``-0 - -0`` is ``+0``),
  but the rounding bound moved each of the reference's results by a fraction of itself
  only. signalforge's FM discriminator, ``atan2(im, re)`` of sample products, failed on
  lavapipe at finite inputs holding small values: ``re`` = -0.0127 * -6.5e-38 (a
  subnormal lavapipe's ``atan2`` took as 0: -pi/2 for -1.5654), and an ``im`` of
  -2.9e-79 that float32 makes +0 (+pi for -pi). Each such result is now flushed to a
  zero of a drawn sign in the bound's runs (``oracle._builtins._underflow``).
- A platform defect, declared (``Wild.platform``), not the oracle's: SwiftShader's
  ``atan2(-0.0, 1.0)`` is pi and ``atan2(-0.0, -1.0)`` is 0. The oracle's MISMATCH there
  is the right verdict.
- Round 45: webgpu-lbm as its page runs it, collision (A to B) then streaming (B to A)
  twice, one kernel whose launches swap the buffers between ``src`` and ``dst``
  (``Dispatch.bindings``); in the corpus, and here with the swap forgotten.
- Not a finding: webgpu-lbm's streaming pulls f_i from x + e_i, against its velocity,
  as the demo writes it (the reference computes what the kernel says). The collision
  judged on drawn distributions (densities near its ``rho < 0.0001`` switch) passed
  at seeds 0 to 2, as Box-Muller did on drawn words (log of 0 and of 1 included).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import oracle
from forge import BufferSpec, Dispatch, KernelSpec, Schedule
from oracle import Session, Verdict
from oracle.pytest_plugin import require_available
from tests.wild import mutant
from tests.wild.round37 import FM_DEMOD, LBM_PAGE, _lbm_grid


@pytest.fixture(scope="module")
def session():
    """One worker per backend for this module's evaluations: a fresh worker for each
    is a second of start-up (1.2 s on lavapipe, 2026-12-06)."""
    with Session(timeout_s=60) as shared:
        yield shared


# sample pairs (n - 1, n) lavapipe computed otherwise than float64 does, then a normal pair
_I = np.array([-6.503119e-38, -0.012678532, 1.8854646e-38, -25.743614, 0.5, -0.25], np.float32)
_Q = np.array([0.0, 2.3511229, 0.0, -1.5346e-41, 0.25, 0.75], np.float32)


def _small_products() -> KernelSpec:
    """The discriminator on those six samples: outputs 1 and 3 compute from products
    below float32's range, output 5 from normal ones."""
    kernel = FM_DEMOD.kernel
    buffers = list(kernel.buffers)
    buffers[0] = dataclasses.replace(buffers[0], fill=_I)
    buffers[1] = dataclasses.replace(buffers[1], fill=_Q)
    return dataclasses.replace(
        kernel, id="r37_fm_demod_small_products", buffers=tuple(buffers), test_sizes=(6,)
    )


def test_a_result_below_float32s_range_is_bounded_as_a_flush_of_either_sign():
    """No device: the bound at the two elements covers what lavapipe computed (-pi/2,
    and +pi for -pi); at the element of normal products it stays a rounding's."""
    expected = oracle.expected_outputs(oracle.make_case(_small_products(), 6, 0))
    want = np.asarray(expected.outputs["output"], np.float64)
    bound = expected.rounding_bound(wgsl=True)["output"]
    assert bound[1] >= abs(-np.pi / 2 - want[1]) > 1e-3, (bound, want)
    assert bound[3] >= 2 * np.pi - 1e-3 and want[3] < 0, (bound, want)
    assert bound[5] < 1e-5, bound


def test_the_fm_discriminator_on_products_below_float32s_range(request, session):
    """lavapipe: MISMATCH before the fix (-pi/2 for -1.5654, +pi for -pi), PASS now; the
    conjugate taken of the wrong sample still fails, at the normal samples."""
    require_available(request.config, "wgpu")
    kernel = _small_products()
    ev = oracle.evaluate(session.runner("wgpu"), kernel, size=6, seed=0, samples=0)
    assert ev.passed, ev.report()
    broken = mutant(
        dataclasses.replace(FM_DEMOD, kernel=kernel), "the conjugate on the wrong sample"
    )
    ev = oracle.evaluate(session.runner("wgpu"), broken, size=6, seed=0, samples=0)
    assert ev.verdict is Verdict.MISMATCH, ev.report()


_ATAN2 = """
@group(0) @binding(0) var<storage, read> y: array<f32>;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) g: vec3u) { o[g.x] = atan2(y[g.x], x[g.x]); }
"""


def test_swiftshader_takes_atan2_of_minus_zero_for_another_angle(request, session):
    """atan2(-0, 1) and atan2(-0, -1): IEEE's -0 and -pi (lavapipe's); SwiftShader's pi
    and 0, neither of which ignoring the zero's sign (+0, +pi) allows. The MISMATCH is
    the right verdict (round 37's discriminator declares it as ``Wild.platform``)."""
    require_available(request.config, "browser")
    kernel = KernelSpec(
        id="r37_atan2_of_minus_zero",
        entry_point="main",
        sources={"wgsl": _ATAN2},
        buffers=(
            BufferSpec(0, "f32", "read", name="y", fill=np.array([-0.0, -0.0], np.float32)),
            BufferSpec(1, "f32", "read", name="x", fill=np.array([1.0, -1.0], np.float32)),
            BufferSpec(2, "f32", "read_write", name="o"),
        ),
        reference=lambda y, x, o: np.arctan2(y, x).astype(np.float32),
        grid=lambda s, n: (n, 1, 1),
        schedules=(Schedule(1),),
        nonfinite_inputs=False,
        test_sizes=(2,),
    )
    ev = oracle.evaluate(session.runner("browser"), kernel, size=2, seed=0, samples=0)
    adapter = ev.adapter.name if ev.adapter else ""
    if "swiftshader" not in adapter.lower():
        pytest.skip(f"{adapter}: the defect was seen on SwiftShader")
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    assert "got 3.1415927 want -0.0" in ev.report(), ev.report()


def test_the_lbm_page_with_its_swap_forgotten_fails(request, session):
    """The page's sequence with the streaming bound as the collision is (A in src, B in
    dst: the bind groups never swapped) reads the state before the collision and
    leaves its result in b: MISMATCH in both buffers (the corpus runs the right one)."""
    require_available(request.config, "wgpu")
    same = (
        Dispatch("collision", grid=_lbm_grid),
        Dispatch("streaming", grid=_lbm_grid, bindings={"src": "a", "dst": "b"}),
    ) * 2
    kernel = dataclasses.replace(LBM_PAGE.kernel, launches=same)
    ev = oracle.evaluate(session.runner("wgpu"), kernel, size="W=37,H=21", seed=0, samples=0)
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    assert {name for name, check in ev.outputs.items() if not check.passed} == {"a", "b"}

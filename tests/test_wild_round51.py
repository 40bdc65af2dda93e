"""What round 51's kernels (tests/wild/round51.py) showed, pinned: the FFTs' staged
references are the transforms they claim, an FFT's reference written with numpy's own
transform carries none of WGSL's twiddle error, and the particle update as its author
wrote it (no bound on the index) is caught at a count its workgroups do not divide."""

from __future__ import annotations

import numpy as np
import pytest

import oracle
from oracle import Session, Verdict
from oracle._builtins import WGSL_TRIG_ERROR, carries
from oracle.pytest_plugin import require_available
from tests.wild.round51 import (
    OCEAN_IFFT,
    PARTICLES_UPDATE,
    POPOV_IFFT,
    _ocean_ifft_reference,
    _popov_reference,
)


@pytest.fixture(scope="module")
def session():
    with Session(timeout_s=60) as shared:
        yield shared


def _complex(pairs):
    return pairs[..., 0].astype(np.float64) + 1j * pairs[..., 1].astype(np.float64)


@pytest.mark.parametrize("n", [32, 64, 256])
def test_the_fft_references_mirror_the_kernels_stages_and_are_the_transforms(n):
    rng = np.random.default_rng(n)
    pairs = rng.uniform(-1, 1, (n, n, 2)).astype(np.float32)
    z = _complex(pairs)
    ocean = _ocean_ifft_reference(None, None, None, pairs, None, None)
    assert np.allclose(_complex(ocean["dataIn"]), np.fft.fft2(z), atol=1e-3)
    popov = _popov_reference(None, None, pairs, None)
    last = popov["OutputBuffer" if int(np.log2(n)) % 2 else "InputBuffer"]
    assert np.allclose(_complex(last), np.fft.ifft(z, axis=1) * n, atol=1e-3)


def test_the_references_twiddles_are_where_the_oracle_carries_wgsl_error():
    # np.exp of an imaginary angle: the oracle draws each twiddle off by 2**-11 through
    # every stage (Expected.trig_bound); np.fft.fft2 would carry nothing, and a right FFT
    # on SwiftShader failed the per-output widening (0.0345 off at 64 x 64, allowed 4.9e-4)
    assert carries(OCEAN_IFFT.kernel.reference, frozenset({"exp"}))
    assert carries(POPOV_IFFT.kernel.reference, frozenset({"exp"}))
    assert not carries(lambda x: np.fft.fft2(x), frozenset({"sin", "cos", "tan", "exp"}))
    assert WGSL_TRIG_ERROR == 2.0**-11


def test_the_particle_update_as_written_writes_past_the_end_at_an_uneven_count(request, session):
    # piellardj's update has no `index < count` guard: the host's counts are whole
    # workgroups; at 4001 the last workgroup's extra invocations write past the end
    require_available(request.config, "wgpu")
    ev = oracle.evaluate(
        session.runner("wgpu"), PARTICLES_UPDATE.kernel, size=4001, seed=0, samples=0, warmups=0
    )
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    assert "written past the end" in ev.report(), ev.report()

"""How the oracle carries the error WGSL allows its builtins through a user's numpy
reference (round 22 of the wild kernels): which references it can carry it through,
what asin and acos inherit from their formula, and a flushing device's view of a
reference that pads with ``np.pad``. No device needed."""

from __future__ import annotations

import math

import numpy as np
from numpy import arctan2

from oracle._builtins import (
    _INVERSE_NAMES,
    _TRIG_NAMES,
    WGSL_ATAN_ULP,
    carries,
    inverse_trig_error,
    trig_erring,
    undefined_in_wgsl,
)
from oracle._compare import FlushingArray, flushing
from tests.test_oracle_inputs import _WGSL_SIN, _elementwise


def _angle_of(x):
    return np.arctan2(x, 1.0)


def _through_a_helper(x):
    return _angle_of(x) * 2.0


def _math_sine(x):
    return np.array([math.sin(v) for v in x])


def _imported(x):
    return arctan2(x, 1.0)


def _real_exp(x):
    return np.exp(x) + np.sin(x) * 0.0


def _twiddles(x):
    return np.exp(-2j * np.pi * x).real


def test_it_carries_through_numpy_calls_only_and_follows_helpers():
    assert carries(_through_a_helper, _INVERSE_NAMES)  # np.arctan2 inside a helper
    assert carries(_imported, _INVERSE_NAMES)  # from numpy import arctan2
    assert carries(np.arctan2, _INVERSE_NAMES)  # reference=np.arctan2
    assert not carries(_math_sine, _TRIG_NAMES)  # math.sin is no numpy call to rebind
    assert not carries(_through_a_helper, _TRIG_NAMES)
    assert carries(_twiddles, _TRIG_NAMES)  # exp of an imaginary angle
    assert carries(_real_exp, _TRIG_NAMES)  # by its np.sin
    assert not carries(lambda x: np.exp(x), _TRIG_NAMES)  # a real exponential carries no sine
    assert not carries(None, _TRIG_NAMES)


def test_acos_near_one_inherits_more_than_4096_ulp_and_atan2_gets_exactly_that():
    angle = np.float32(0.02)
    cosine = np.cos(np.float64(angle))
    ulp = float(np.spacing(angle))
    near_one = float(inverse_trig_error("arccos", np.arccos(cosine), cosine))
    assert near_one > WGSL_ATAN_ULP * ulp * 1.1  # 1 - x*x rounded in float32, carried
    assert near_one < WGSL_ATAN_ULP * ulp + math.sqrt(3 * 2.0**-24)
    at_zero = float(inverse_trig_error("arccos", np.arccos(0.0), 0.0))
    assert math.isclose(at_zero, WGSL_ATAN_ULP * float(np.spacing(np.float32(np.pi / 2))))
    flat = float(inverse_trig_error("arctan2", 0.5, 0.5, 1.0))
    assert flat == WGSL_ATAN_ULP * float(np.spacing(np.float32(0.5)))


def test_an_erring_arctan2_moves_each_element_by_what_wgsl_allows_it():
    x = np.linspace(-3, 3, 101)
    moved = trig_erring(_through_a_helper, np.random.default_rng(0), inverse=True)(x)
    allowed = 2.0 * inverse_trig_error("arctan2", np.arctan2(x, 1.0), x, 1.0)
    assert np.allclose(np.abs(moved - _through_a_helper(x)), allowed)
    assert trig_erring(_math_sine, np.random.default_rng(0), inverse=True) is None


def test_an_undefined_atan2_can_be_given_any_value_not_only_nan():
    """A NaN compared (angle > 1.0) lands where numpy's atan2(0, 0) = 0 does, so the
    oracle also gives the undefined elements finite values (lavapipe's is 3 pi / 4)."""
    source = _WGSL_SIN.replace("sin(x[gid.x])", "atan2(x[gid.x], x[gid.x])")
    kernel = _elementwise("a", {"wgsl": source})
    y = np.array([0.0, 1.0])
    nan_twin = undefined_in_wgsl(lambda v: np.arctan2(v, v), kernel)
    assert np.isnan(nan_twin(y)[0]) and nan_twin(y)[1] == np.pi / 4
    filled = undefined_in_wgsl(lambda v: np.arctan2(v, v), kernel, 3.0 * np.pi / 4.0)
    assert np.allclose(filled(y), [3.0 * np.pi / 4.0, np.pi / 4.0])
    bins = undefined_in_wgsl(lambda v: np.where(np.arctan2(v, v) > 1.0, 9, 0), kernel, 3.0)
    assert list(bins(y)) == [9, 0]  # the bin an undefined angle may land in


def test_a_flushing_reference_flushes_again_after_np_pad():
    tiny = float(np.finfo(np.float32).tiny)
    image = np.array([[4e-38, 5e-38], [5e-38, 4e-38]]).view(FlushingArray)
    padded = np.pad(image, 1, mode="edge")
    assert isinstance(padded, FlushingArray)
    difference = padded[1:2, 2:3] - padded[1:2, 1:2]  # 1e-38: below the smallest normal
    assert (np.asarray(difference) == 0.0).all()
    run = flushing(lambda a: np.pad(a, 1)[1:-1, 1:-1] - 4.5e-38, tiny)
    assert (np.asarray(run(np.full((2, 2), 5e-38))) == 0.0).all()
